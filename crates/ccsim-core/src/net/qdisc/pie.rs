//! PIE, Proportional Integral controller Enhanced (RFC 8033): drops (or marks) arriving packets
//! with a probability that a PI controller updates every `tupdate` from the queueing delay.
//!
//! Variant: the queueing delay is measured by timestamps (the sojourn time of the last packet
//! dequeued, zero once the queue is empty; RFC 8033 section 5.3 allows this instead of the
//! departure-rate estimate). Kept from the RFC: the update
//! p += alpha (qdelay - target) + beta (qdelay - qdelay_old) with alpha and beta in 1/s,
//! scaled down while the probability is small (the auto-tuning of section 4.2), the 2 % cap per
//! update once the probability is above 10 %, the 0.98 decay when the queue stays empty, the
//! burst allowance (no drops for `max_burst` after the queue was calm), and the rule that the
//! queue never drops while the old delay is below half the target and the probability below 20 %
//! or while it holds at most two MTUs. With `ecn`, an ECN-capable packet is marked instead of
//! dropped while the probability is at most 10 %. Not modelled: derandomization (section 5.1).
//!
//! `l4s_step` is a ccsim option, not Linux's (sch_pie and sch_fq_pie have no L4S marking): RFC
//! 9332's native L4S AQM, a step on the sojourn time, applied inside the one queue. An ECT(1)
//! packet (the L4S identifier, RFC 9331) that waited longer than the step when it is dequeued is
//! marked CE, whatever the probability; PIE's own drops and marks at enqueue apply to it as to
//! every packet. Off (`None`) by default, which leaves PIE exactly as above.
//!
//! The periodic update needs no event of its own: the link drives the discipline in time order
//! (every enqueue and dequeue at its exact time), and before each operation the updates due by
//! then are run, each with the delay as it stood at its own time.

use super::fifo::StampedFifo;
use super::{DropSink, Verdict};
use crate::net::packet::Packet;
use crate::rng::{uniform, Stream};
use crate::units::{secs, Dur, Time};

#[derive(Clone, Copy, Debug)]
pub struct PieParams {
    pub limit_pkts: u64,
    /// Target queueing delay (RFC 8033: 15 ms).
    pub target: Dur,
    /// Update period (RFC 8033: 15 ms).
    pub tupdate: Dur,
    /// Gains, 1/s (RFC 8033: 0.125 and 1.25).
    pub alpha: f64,
    pub beta: f64,
    /// Burst allowance (RFC 8033: 150 ms).
    pub max_burst: Dur,
    pub ecn: bool,
    /// Mark ECT(1) packets that waited longer than this (none: off).
    pub l4s_step: Option<Dur>,
}

pub struct Pie {
    p: PieParams,
    q: StampedFifo,
    /// Drop probability.
    pub prob: f64,
    /// Queueing delay now (sojourn of the last packet dequeued) and at the previous update.
    pub qdelay: Dur,
    qdelay_old: Dur,
    burst_allowance: Dur,
    next_update: Time,
    mtu: u32,
    rng: Stream,
    pub drops: u64,
    /// CE marks set by this queue: the probability's and the L4S step's.
    pub marks: u64,
    /// Of `marks`, those set by the L4S step.
    pub step_marks: u64,
    /// Sojourn time of the last packet dequeued.
    pub last_sojourn: Dur,
}

/// Marking stops (and dropping takes over) above this probability (RFC 8033 section 5.1).
const MARK_ECN_TH: f64 = 0.1;

impl Pie {
    pub fn new(p: PieParams, rng: Stream) -> Self {
        Pie {
            p,
            q: StampedFifo::default(),
            prob: 0.0,
            qdelay: 0,
            qdelay_old: 0,
            burst_allowance: p.max_burst,
            next_update: p.tupdate,
            mtu: 0,
            rng,
            drops: 0,
            marks: 0,
            step_marks: 0,
            last_sojourn: 0,
        }
    }

    /// Whether the L4S step is configured.
    pub fn has_l4s_step(&self) -> bool {
        self.p.l4s_step.is_some()
    }

    pub fn len_pkts(&self) -> usize {
        self.q.len()
    }

    pub fn len_bytes(&self) -> u64 {
        self.q.bytes()
    }

    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.q.iter().map(|(_, p)| p)
    }

    /// Run the probability updates due by `now`.
    pub fn advance(&mut self, now: Time) {
        while self.next_update <= now {
            if self.is_calm() {
                // Every further update is a no-op: skip to the last one due.
                self.next_update += (now - self.next_update) / self.p.tupdate * self.p.tupdate;
            }
            self.update();
            self.next_update += self.p.tupdate;
        }
    }

    /// Empty queue, zero probability, full burst allowance: an update changes nothing.
    fn is_calm(&self) -> bool {
        self.prob == 0.0 && self.qdelay == 0 && self.qdelay_old == 0 && self.burst_allowance == self.p.max_burst
    }

    /// The RFC's `calculate_drop_prob` and burst-allowance update.
    fn update(&mut self) {
        let (cur, old, target) = (secs(self.qdelay), secs(self.qdelay_old), secs(self.p.target));
        let mut delta = self.p.alpha * (cur - target) + self.p.beta * (cur - old);
        delta /= Self::scale(self.prob);
        if self.prob >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        self.prob += delta;
        if self.qdelay == 0 && self.qdelay_old == 0 {
            self.prob *= 0.98;
        }
        self.prob = self.prob.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(self.p.tupdate);
        let half = self.p.target / 2;
        if self.prob == 0.0 && self.qdelay < half && self.qdelay_old < half {
            self.burst_allowance = self.p.max_burst;
        }
        self.qdelay_old = self.qdelay;
    }

    /// The auto-tuning of RFC 8033 section 4.2: while the probability is small, a step of the
    /// controller is divided so that it changes the probability in proportion.
    pub fn scale(prob: f64) -> f64 {
        match prob {
            p if p < 0.000_001 => 2048.0,
            p if p < 0.000_01 => 512.0,
            p if p < 0.000_1 => 128.0,
            p if p < 0.001 => 32.0,
            p if p < 0.01 => 8.0,
            p if p < 0.1 => 2.0,
            _ => 1.0,
        }
    }

    /// The RFC's `drop_early`: whether an arrival of `size` bytes is a candidate for a drop.
    fn drop_early(&mut self) -> bool {
        if self.burst_allowance > 0 {
            return false;
        }
        if self.qdelay_old < self.p.target / 2 && self.prob < 0.2 {
            return false;
        }
        if self.q.bytes() <= 2 * self.mtu as u64 {
            return false;
        }
        uniform(&mut self.rng) < self.prob
    }

    pub fn enqueue(&mut self, mut pkt: Packet, now: Time, drops: &mut DropSink) {
        self.advance(now);
        self.mtu = self.mtu.max(pkt.size);
        if self.q.len() as u64 >= self.p.limit_pkts {
            drops.push((now, pkt, Verdict::DropOverflow));
            return;
        }
        if self.drop_early() {
            if self.p.ecn && pkt.is_ect() && self.prob <= MARK_ECN_TH {
                pkt.mark_ce();
                self.marks += 1;
            } else {
                self.drops += 1;
                drops.push((now, pkt, Verdict::DropEarly));
                return;
            }
        }
        self.q.push(now, pkt);
    }

    pub fn dequeue(&mut self, now: Time) -> Option<Packet> {
        self.advance(now);
        let (enqueued, mut pkt) = self.q.pop()?;
        self.last_sojourn = now - enqueued;
        self.qdelay = if self.q.is_empty() { 0 } else { self.last_sojourn };
        if let Some(step) = self.p.l4s_step {
            if self.last_sojourn > step && pkt.is_l4s() && !pkt.is_ce() {
                pkt.mark_ce();
                self.marks += 1;
                self.step_marks += 1;
            }
        }
        Some(pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Entity, Purpose};
    use crate::units::NS_PER_MS;

    const MS: Time = NS_PER_MS;

    fn pie() -> Pie {
        let p = PieParams {
            limit_pkts: 1000,
            target: 15 * MS,
            tupdate: 15 * MS,
            alpha: 0.125,
            beta: 1.25,
            max_burst: 150 * MS,
            ecn: false,
            l4s_step: None,
        };
        Pie::new(p, stream(1, Entity::Link, 0, Purpose::Aqm))
    }

    /// From p = 0 with the delay at 35 ms (old 15 ms): 0.125 * 0.020 + 1.25 * 0.020 = 0.0275,
    /// divided by 2048 (p < 1e-6): 1.3427734375e-5. Next update, delay still 35 ms (old 35 ms
    /// now): 0.125 * 0.020 = 0.0025, divided by 128 (p is in [1e-5, 1e-4)).
    #[test]
    fn probability_update_by_hand() {
        let mut q = pie();
        q.qdelay_old = 15 * MS;
        q.qdelay = 35 * MS;
        q.update();
        assert!((q.prob - 0.0275 / 2048.0).abs() < 1e-15, "{}", q.prob);
        q.update();
        assert!((q.prob - (0.0275 / 2048.0 + 0.0025 / 128.0)).abs() < 1e-15, "{}", q.prob);
        // Above 10 %, a step is capped at 2 %.
        q.prob = 0.5;
        q.qdelay_old = 0;
        q.qdelay = 200 * MS;
        q.update();
        assert!((q.prob - 0.52).abs() < 1e-12, "{}", q.prob);
    }

    #[test]
    fn the_probability_decays_when_the_queue_stays_empty() {
        let mut q = pie();
        q.prob = 0.5;
        q.update(); // alpha * (0 - 0.015) = -0.001875, then * 0.98
        assert!((q.prob - (0.5 - 0.001875) * 0.98).abs() < 1e-12, "{}", q.prob);
        q.advance(100_000 * MS);
        assert_eq!(q.prob, 0.0);
        assert!(q.is_calm());
    }

    #[test]
    fn no_drops_within_the_burst_allowance() {
        let mut q = pie();
        let mut sink = Vec::new();
        q.prob = 1.0;
        q.qdelay_old = 100 * MS;
        for seq in 0..100 {
            q.enqueue(Packet::test_data(seq, 1000), 0, &mut sink);
        }
        assert!(sink.is_empty(), "the allowance covers the start");
        q.burst_allowance = 0;
        q.enqueue(Packet::test_data(100, 1000), 0, &mut sink);
        assert_eq!(sink.len(), 1);
    }

    #[test]
    fn marks_below_ten_percent_and_drops_above() {
        let mut q = pie();
        q.p.ecn = true;
        q.burst_allowance = 0;
        q.qdelay_old = 100 * MS;
        let mut sink = Vec::new();
        let ect = |seq| {
            let mut p = Packet::test_data(seq, 1000);
            p.ecn = crate::net::packet::ecn::ECT;
            p
        };
        for seq in 0..10 {
            q.q.push(0, ect(seq));
        }
        q.prob = 0.1;
        for seq in 0..200 {
            q.enqueue(ect(seq), 0, &mut sink);
        }
        assert!(sink.is_empty() && q.marks > 5, "{}", q.marks);
        q.prob = 0.5;
        for seq in 0..200 {
            q.enqueue(ect(seq), 0, &mut sink);
        }
        assert!(sink.len() > 50, "{}", sink.len());
    }
}
