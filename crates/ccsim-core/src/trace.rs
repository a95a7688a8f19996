//! Measurement recorded as columns: sampled series and the drop log. Counters live with the
//! components they count (links, senders, receivers); tables are assembled in `results`.

use crate::engine::fabric::DropKind;
use crate::net::link::LinkId;
use crate::net::packet::Packet;
use crate::units::{secs, Time};

#[derive(Default)]
pub struct DropLog {
    pub t_s: Vec<f64>,
    pub link: Vec<u32>,
    pub flow: Vec<u32>,
    pub seq: Vec<u32>,
    /// 0 data, 1 ACK/SYN-ACK.
    pub is_ack: Vec<u8>,
    pub kind: Vec<u8>,
}

impl DropLog {
    pub fn push(&mut self, now: Time, link: LinkId, pkt: &Packet, kind: DropKind) {
        self.t_s.push(secs(now));
        self.link.push(link);
        self.flow.push(pkt.flow);
        self.seq.push(pkt.seq);
        self.is_ack.push(u8::from(!pkt.kind.is_forward()));
        self.kind.push(kind as u8);
    }
}

/// Per-flow samples: one row per active flow per sampling instant.
#[derive(Default)]
pub struct FlowSeries {
    pub t_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd_pkts: Vec<f64>,
    pub ssthresh_pkts: Vec<f64>,
    pub srtt_s: Vec<f64>,
    pub rate_bps: Vec<f64>,
}

/// Per-link queue samples for monitored links.
#[derive(Default)]
pub struct QueueSeries {
    pub t_s: Vec<f64>,
    pub link: Vec<u32>,
    pub queue_pkts: Vec<u32>,
    pub queue_bytes: Vec<u64>,
    /// RED's average queue, packets (NaN for DropTail).
    pub avg_queue_pkts: Vec<f64>,
}
