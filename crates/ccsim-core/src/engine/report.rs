//! Assembling the result tables at the end of a run, and the conservation accounting.

use super::{RunError, Simulation};
use crate::net::packet::PacketKind;
use crate::results::{Column, RunResults, Table};
use crate::units::secs;

/// Per-flow packet accounting: every data packet sent was delivered, dropped, or is still inside
/// a link when the run ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowConservation {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_network: u64,
}

/// Per-link accounting: every packet offered left the far end, was dropped by the queue, or is
/// still inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkConservation {
    pub arrivals: u64,
    pub departures: u64,
    pub queue_drops: u64,
    pub inside: u64,
}

impl Simulation {
    /// Data packets of each flow still inside links.
    fn data_in_network(&self) -> Vec<u64> {
        let mut n = vec![0u64; self.flows.len()];
        for l in &self.fab.links {
            for p in l.in_link() {
                if p.kind == PacketKind::Data {
                    n[p.flow as usize] += 1;
                }
            }
        }
        n
    }

    pub fn flow_conservation(&self) -> Vec<FlowConservation> {
        let inside = self.data_in_network();
        self.flows
            .iter()
            .enumerate()
            .map(|(i, f)| FlowConservation {
                sent: f.sender.stats.packets_sent,
                delivered: f.receiver.packets_received,
                dropped: self.fab.flow_drops[i].data,
                // Held by the host's send overhead: sent by the sender's count, not yet on a link.
                in_network: inside[i] + f.sender.held_packets(),
            })
            .collect()
    }

    /// SACK blocks held by the network's store, and ACKs inside links that carry some: equal
    /// when every ACK's blocks are taken back on arrival or released on a drop.
    pub fn sack_blocks_held(&self) -> (usize, usize) {
        let carried = self.fab.links.iter().flat_map(|l| l.in_link()).filter(|p| p.sack.is_some()).count();
        (self.fab.sacks.in_use(), carried)
    }

    pub fn link_conservation(&self) -> Vec<LinkConservation> {
        self.fab
            .links
            .iter()
            .map(|l| LinkConservation {
                arrivals: l.counters.arrivals,
                departures: l.counters.departures,
                queue_drops: l.counters.queue_drops,
                inside: l.in_link().count() as u64,
            })
            .collect()
    }

    fn flows_table(&self) -> Table {
        let end = self.now;
        let inside = self.data_in_network();
        let fs = &self.flows;
        let node = |n: u32| self.node_names[n as usize].clone();
        let f64col = |f: &dyn Fn(usize) -> f64| Column::F64((0..fs.len()).map(f).collect());
        let u64col = |f: &dyn Fn(usize) -> u64| Column::U64((0..fs.len()).map(f).collect());
        let active_end = |i: usize| fs[i].sender.completed_at.unwrap_or(end).max(fs[i].start);
        let mut t = Table::default();
        t.push("flow", Column::U32((0..fs.len() as u32).collect()));
        t.push("label", Column::Str(fs.iter().map(|f| f.label.clone()).collect()));
        t.push("cc", Column::Str(fs.iter().map(|f| f.sender.cc_name().to_string()).collect()));
        t.push("src", Column::Str(fs.iter().map(|f| node(f.endpoints.src)).collect()));
        t.push("dst", Column::Str(fs.iter().map(|f| node(f.endpoints.dst)).collect()));
        t.push("start_s", f64col(&|i| secs(fs[i].start)));
        t.push("end_s", f64col(&|i| secs(active_end(i))));
        t.push("base_rtt_s", f64col(&|i| secs(fs[i].base_rtt)));
        t.push("size_bytes", f64col(&|i| fs[i].size_bytes.map_or(f64::INFINITY, |b| b as f64)));
        t.push("bytes_acked", u64col(&|i| fs[i].sender.bytes_acked()));
        t.push(
            "goodput_bps",
            f64col(&|i| {
                let span = secs(active_end(i) - fs[i].start);
                if span > 0.0 {
                    fs[i].sender.bytes_acked() as f64 * 8.0 / span
                } else {
                    0.0
                }
            }),
        );
        t.push("packets_sent", u64col(&|i| fs[i].sender.stats.packets_sent));
        t.push("packets_delivered", u64col(&|i| fs[i].receiver.packets_received));
        t.push("in_flight_end", u64col(&|i| inside[i] + fs[i].sender.held_packets()));
        t.push("retransmits", u64col(&|i| fs[i].sender.stats.retransmits));
        t.push("drops", u64col(&|i| self.fab.flow_drops[i].data));
        t.push("control_drops", u64col(&|i| self.fab.flow_drops[i].control));
        t.push("timeouts", u64col(&|i| fs[i].sender.stats.timeouts));
        t.push("fast_retransmits", u64col(&|i| fs[i].sender.stats.fast_retransmits));
        t.push("window_cuts", u64col(&|i| fs[i].sender.stats.window_cuts));
        t.push("completed", Column::U8(fs.iter().map(|f| u8::from(f.sender.completed_at.is_some())).collect()));
        t.push("completion_s", f64col(&|i| fs[i].sender.completed_at.map_or(f64::NAN, |c| secs(c - fs[i].start))));
        t.push(
            "mean_rtt_s",
            f64col(&|i| {
                let s = &fs[i].sender.stats;
                if s.rtt_samples == 0 {
                    f64::NAN
                } else {
                    s.rtt_sum_ns as f64 / s.rtt_samples as f64 / 1e9
                }
            }),
        );
        t.push("final_cwnd_pkts", f64col(&|i| fs[i].sender.w.cwnd));
        t.push("generator", Column::I64(fs.iter().map(|f| f.origin.map_or(-1, |(g, _)| g as i64)).collect()));
        t.push("src_router", Column::Str(fs.iter().map(|f| node(f.path.src_router)).collect()));
        t.push("dst_router", Column::Str(fs.iter().map(|f| node(f.path.dst_router)).collect()));
        t.push("hops", Column::U32(fs.iter().map(|f| f.path.hops).collect()));
        t.push("reverse", Column::U8(fs.iter().map(|f| u8::from(f.path.reverse)).collect()));
        t
    }

    fn links_table(&self) -> Table {
        let end = self.now;
        let ls = &self.fab.links;
        let dur = secs(end).max(1e-12);
        let node = |n: u32| self.node_names[n as usize].clone();
        let mut t = Table::default();
        t.push("link", Column::U32((0..ls.len() as u32).collect()));
        t.push("src", Column::Str(ls.iter().map(|l| node(l.src)).collect()));
        t.push("dst", Column::Str(ls.iter().map(|l| node(l.dst)).collect()));
        t.push("rate_bps", Column::U64(ls.iter().map(|l| l.rate_bps()).collect()));
        t.push("delay_s", Column::F64(ls.iter().map(|l| secs(l.delay)).collect()));
        t.push("utilization", Column::F64(ls.iter().map(|l| l.clipped_totals(end).0 as f64 / 1e9 / dur).collect()));
        t.push("arrivals", Column::U64(ls.iter().map(|l| l.counters.arrivals).collect()));
        t.push("packets", Column::U64(ls.iter().map(|l| l.counters.departures).collect()));
        t.push("drops", Column::U64(ls.iter().map(|l| l.counters.queue_drops + l.counters.loss_drops).collect()));
        t.push("queue_drops", Column::U64(ls.iter().map(|l| l.counters.queue_drops).collect()));
        t.push("loss_drops", Column::U64(ls.iter().map(|l| l.counters.loss_drops).collect()));
        t.push("in_link_end", Column::U64(ls.iter().map(|l| l.in_link().count() as u64).collect()));
        t.push("mean_queue_pkts", Column::F64(ls.iter().map(|l| l.clipped_totals(end).1 as f64 / 1e9 / dur).collect()));
        t.push("max_queue_pkts", Column::U64(ls.iter().map(|l| l.counters.max_queue_pkts).collect()));
        t.push("monitored", Column::U8(ls.iter().map(|l| u8::from(l.monitor)).collect()));
        t
    }

    /// Finish the run (if needed) and assemble the result tables. Panics if the run failed
    /// ([`Self::try_finish`] returns why instead).
    pub fn finish(&mut self) -> RunResults {
        self.try_finish().unwrap_or_else(|e| panic!("scenario {}: {e}", self.name))
    }

    /// Finish the run (if needed) and assemble the result tables; or the run's
    /// [`failure`](Self::failure), if something it records could not grow (its records are then
    /// incomplete).
    pub fn try_finish(&mut self) -> Result<RunResults, RunError> {
        if let Some(failure) = self.failure() {
            return Err(failure);
        }
        self.run();
        for link in 0..self.fab.links.len() as u32 {
            self.fab.serve(link, self.now);
        }
        if let Some(failure) = self.failure() {
            return Err(failure);
        }
        let mut s = std::mem::take(&mut self.series);
        let mut state = s.take_cc();
        let mut series = Table::default();
        series.push("t_s", Column::F64(s.t_s));
        series.push("flow", Column::U32(s.flow));
        series.push("cwnd_pkts", Column::F64(s.cwnd_pkts));
        series.push("ssthresh_pkts", Column::F64(s.ssthresh_pkts));
        series.push("srtt_s", Column::F64(s.srtt_s));
        series.push("rate_bps", Column::F64(s.rate_bps));
        state.sort_by_key(|(name, _)| *name);
        for (name, values) in state {
            series.push(format!("cc_{name}"), Column::F64(values));
        }
        let mut q = std::mem::take(&mut self.queues);
        let mut aqm = q.take_aqm();
        let mut queues = Table::default();
        queues.push("t_s", Column::F64(q.t_s));
        queues.push("link", Column::U32(q.link));
        queues.push("queue_pkts", Column::U32(q.queue_pkts));
        queues.push("queue_bytes", Column::U64(q.queue_bytes));
        queues.push("avg_queue_pkts", Column::F64(q.avg_queue_pkts));
        aqm.sort_by_key(|(name, _)| *name);
        for (name, values) in aqm {
            queues.push(name, Column::F64(values));
        }
        let now = self.now;
        let d = self.fab.take_drop_log().map_err(|e| RunError::out_of_memory(&e, now))?.unwrap_or_default();
        let mut drops = Table::default();
        drops.push("t_s", Column::F64(d.t_s));
        drops.push("link", Column::U32(d.link));
        drops.push("flow", Column::U32(d.flow));
        drops.push("seq", Column::U32(d.seq));
        drops.push("is_ack", Column::U8(d.is_ack));
        drops.push("kind", Column::U8(d.kind));
        let pcap = self.pcap_files()?;
        Ok(RunResults {
            flows: self.flows_table(),
            links: self.links_table(),
            series,
            queues,
            drops,
            pcap,
            events: self.events,
            packet_hops: self.fab.hops,
            sim_end_ns: self.now,
            stack_json: serde_json::to_string(&*self.stack).expect("stack config serializes"),
        })
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }
}
