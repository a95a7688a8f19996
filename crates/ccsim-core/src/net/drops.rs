//! What the network records of the packets it drops: per-flow counts and the optional drop log.

use super::link::LinkId;
use super::packet::Packet;
use crate::grow::{self, OutOfMemory};
use crate::units::{secs, Time};

/// Drops of one flow's packets, anywhere in the network.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowDrops {
    /// Data segments.
    pub data: u64,
    /// SYN, SYN-ACK and ACK packets.
    pub control: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropKind {
    /// Buffer overflow or a forced AQM drop.
    Overflow = 0,
    /// Early AQM drop.
    Early = 1,
    /// Random loss on the link.
    Loss = 2,
}

#[derive(Default)]
pub struct DropLog {
    pub t_s: Vec<f64>,
    pub link: Vec<u32>,
    pub flow: Vec<u32>,
    pub seq: Vec<u32>,
    /// 0 data, 1 ACK/SYN-ACK.
    pub is_ack: Vec<u8>,
    pub kind: Vec<u8>,
    /// The log could not grow (and when): no drop is logged from then on.
    pub failed: Option<(OutOfMemory, Time)>,
}

const WHAT: &str = "the drop log";

impl DropLog {
    pub fn push(&mut self, now: Time, link: LinkId, pkt: &Packet, kind: DropKind) {
        if self.failed.is_some() {
            return;
        }
        if let Err(e) = self.make_room() {
            self.failed = Some((e, now));
            return;
        }
        self.t_s.push(secs(now));
        self.link.push(link);
        self.flow.push(pkt.flow);
        self.seq.push(pkt.seq);
        self.is_ack.push(u8::from(!pkt.kind.is_forward()));
        self.kind.push(kind as u8);
    }

    /// Room for one more row in every column, so that a failure leaves the rows whole.
    fn make_room(&mut self) -> Result<(), OutOfMemory> {
        grow::reserve(&mut self.t_s, 1, WHAT)?;
        grow::reserve(&mut self.link, 1, WHAT)?;
        grow::reserve(&mut self.flow, 1, WHAT)?;
        grow::reserve(&mut self.seq, 1, WHAT)?;
        grow::reserve(&mut self.is_ack, 1, WHAT)?;
        grow::reserve(&mut self.kind, 1, WHAT)
    }
}

impl DropLog {
    /// Sort the rows by (time, link, kind), keeping the order of rows that tie. The order and
    /// each sorted column are allocated fallibly (a long log is as large as the series).
    pub fn sort_by_time(&mut self) -> Result<(), OutOfMemory> {
        let mut order: Vec<usize> = Vec::new();
        grow::reserve(&mut order, self.t_s.len(), WHAT)?;
        order.extend(0..self.t_s.len());
        order.sort_by(|&a, &b| {
            let by_time = self.t_s[a].total_cmp(&self.t_s[b]);
            by_time.then(self.link[a].cmp(&self.link[b])).then(self.kind[a].cmp(&self.kind[b]))
        });
        fn permute<T: Copy>(v: &mut Vec<T>, order: &[usize]) -> Result<(), OutOfMemory> {
            let mut sorted = Vec::new();
            grow::reserve(&mut sorted, order.len(), WHAT)?;
            sorted.extend(order.iter().map(|&i| v[i]));
            *v = sorted;
            Ok(())
        }
        permute(&mut self.t_s, &order)?;
        permute(&mut self.link, &order)?;
        permute(&mut self.flow, &order)?;
        permute(&mut self.seq, &order)?;
        permute(&mut self.is_ack, &order)?;
        permute(&mut self.kind, &order)
    }
}
