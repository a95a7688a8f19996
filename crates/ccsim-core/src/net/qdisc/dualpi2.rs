//! DualPI2, the DualQ Coupled AQM (RFC 9332) as Linux's sch_dualpi2 runs it: an L queue for
//! L4S traffic (classified by its ECN codepoint, RFC 9331) and a C queue for the rest, one PI2
//! controller, and a weighted round robin between the two queues.
//!
//! * Classification: an arrival whose IP ECN field (CE 11, ECT(0) 10, ECT(1) 01) shares a bit
//!   with the mask goes to the L queue (default mask 01: ECT(1) and CE).
//! * The controller: every `tupdate`, the base probability p' moves by
//!   alpha (qdelay - target) + beta (qdelay - qdelay_old), clamped to [0, 1], where qdelay is the
//!   larger of the two queues' head-of-line waiting times (Linux takes the larger; RFC 9332's
//!   pseudocode the classic queue's, which is the larger whenever the L queue holds its step).
//! * At dequeue (or at enqueue with `drop_early`), while the two queues hold at least two MTUs:
//!   a C packet is dropped (marked if ECN-capable) with p_C = p'^2 (two random draws must both
//!   fall below p'); an L packet is marked with the coupled p_CL = k p'. Overload, k p' > 1: the
//!   L queue drops with p_C like the classic queue (`drop_overload`) and marks every packet it
//!   does not drop; without `drop_overload`, p' is capped at 1/k instead, so the L queue only
//!   marks and overflows at the limit.
//! * L packets then meet the native step: one that waited longer than `step_thresh` is marked, so
//!   p_L = max(step, p_CL). The step applies to packets that found at least `min_qlen_step`
//!   packets in the L queue on arrival.
//! * Scheduler: a credit counter, reset to mtu (wc - wl) when both queues are empty. The L queue
//!   is served while the credit is at most 0 (or the C queue is empty); a packet sent while the
//!   other queue waits moves the credit by its size times the other queue's weight (up by wc
//!   for an L packet, down by wl = 100 - wc for a C packet), so under load of both the C queue
//!   gets wc% of the bytes.
//! * The limit counts both queues' packets; an arrival that finds it full is dropped.
//!
//! Not modelled: Linux's memory limit (the packet limit binds first here), GSO splitting (no
//! aggregates in the simulator), tc filters and the priority-based LLLL class. Linux keeps p' as
//! a 32-bit fraction and alpha, beta as integers (0.16 Hz becomes about 0.1601); here they are
//! floats at the nominal values.
//!
//! The periodic update needs no event of its own (as PIE's): before each operation the updates
//! due by then are run, each seeing the queues as they stood at its own time.

use std::collections::VecDeque;

use super::{DropSink, Verdict};
use crate::net::packet::Packet;
use crate::rng::{uniform, Stream};
use crate::units::{secs, Dur, Time};

/// Weights are in percent: wc + wl = 100.
const MAX_WEIGHT: i64 = 100;

#[derive(Clone, Copy, Debug)]
pub struct DualPi2Params {
    /// Packets in both queues together (Linux: 10,000).
    pub limit_pkts: u64,
    /// PI2 target delay (Linux: 15 ms).
    pub target: Dur,
    /// Update period (Linux: 16 ms).
    pub tupdate: Dur,
    /// Gains in Hz: probability per second of delay (Linux: 0.16 and 3.2).
    pub alpha: f64,
    pub beta: f64,
    /// L queue step marking threshold, sojourn time (Linux: 1 ms).
    pub step_thresh: Dur,
    /// The step applies to packets that found at least this many in the L queue (Linux: 0).
    pub min_qlen_step: u64,
    /// Coupling factor k (Linux: 2).
    pub coupling: f64,
    /// The C queue's share of the scheduler, percent (Linux: 10).
    pub c_weight_pct: u8,
    /// Overload (k p' > 1): drop L packets with p_C (true, Linux's default), or cap p' at 1/k.
    pub drop_overload: bool,
    /// Apply the probabilities at enqueue instead of dequeue (Linux: at dequeue).
    pub drop_early: bool,
    /// IP ECN bits that send a packet to the L queue (Linux: 0b01, ECT(1) and CE).
    pub ecn_mask: u8,
}

/// A packet waiting, with its enqueue time and whether the step applies to it.
#[derive(Clone, Copy)]
struct Entry {
    enqueued: Time,
    pkt: Packet,
    apply_step: bool,
}

/// One of the two queues, with its counters.
#[derive(Default)]
pub struct SubQueue {
    q: VecDeque<Entry>,
    bytes: u64,
    /// Arrivals classified to this queue (dropped ones included).
    pub arrivals: u64,
    /// Packets dequeued and sent.
    pub departures: u64,
    /// Arrivals dropped because both queues together were at the limit.
    pub overflow_drops: u64,
    /// AQM drops (the probabilities, or the step on a packet that is not ECN-capable).
    pub aqm_drops: u64,
    /// Packets this discipline set CE on (once per packet, whichever rule marked it).
    pub marks: u64,
    /// Sojourn time of the last packet sent from this queue.
    pub last_sojourn: Dur,
}

impl SubQueue {
    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// How long the head packet has waited at `now` (0 when empty).
    pub fn head_delay(&self, now: Time) -> Dur {
        self.q.front().map_or(0, |e| now - e.enqueued)
    }

    fn push(&mut self, e: Entry) {
        self.bytes += e.pkt.size as u64;
        self.q.push_back(e);
    }

    fn pop(&mut self) -> Option<Entry> {
        let e = self.q.pop_front()?;
        self.bytes -= e.pkt.size as u64;
        Some(e)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Classic,
    L4s,
}

pub struct DualPi2 {
    p: DualPi2Params,
    pub classic: SubQueue,
    pub l4s: SubQueue,
    /// The base probability p'.
    pub prob: f64,
    /// The delay the controller saw at its last update.
    pub qdelay_old: Dur,
    next_update: Time,
    /// Scheduler credit, bytes x percent: the L queue goes first while it is at most 0.
    credit: i64,
    mtu: u32,
    rng: Stream,
    /// L packets marked by the step (also counted in the L queue's `marks`).
    pub step_marks: u64,
    /// Sojourn time of the last packet sent (either queue).
    pub last_sojourn: Dur,
    /// The latest time the discipline was brought up to (for the head delays in `inspect`).
    now: Time,
}

impl DualPi2 {
    pub fn new(p: DualPi2Params, rng: Stream) -> Self {
        DualPi2 {
            p,
            classic: SubQueue::default(),
            l4s: SubQueue::default(),
            prob: 0.0,
            qdelay_old: 0,
            next_update: p.tupdate,
            credit: 0,
            mtu: 0,
            rng,
            step_marks: 0,
            last_sojourn: 0,
            now: 0,
        }
    }

    pub fn len_pkts(&self) -> usize {
        self.classic.len() + self.l4s.len()
    }

    pub fn len_bytes(&self) -> u64 {
        self.classic.bytes() + self.l4s.bytes()
    }

    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.l4s.q.iter().chain(self.classic.q.iter()).map(|e| &e.pkt)
    }

    /// The classic probability p_C = p'^2.
    pub fn prob_classic(&self) -> f64 {
        self.prob * self.prob
    }

    /// The coupled L probability p_CL = min(k p', 1).
    pub fn prob_coupled(&self) -> f64 {
        (self.p.coupling * self.prob).min(1.0)
    }

    /// Overload: the coupled probability would exceed 1.
    pub fn overloaded(&self) -> bool {
        self.p.coupling * self.prob > 1.0
    }

    /// Head-of-line waiting times of the classic and L queues at the latest time seen.
    pub fn head_delays(&self) -> (Dur, Dur) {
        (self.classic.head_delay(self.now), self.l4s.head_delay(self.now))
    }

    /// Whether an IP ECN field goes to the L queue.
    fn classify(&self, pkt: &Packet) -> Which {
        if pkt.ecn_field() & self.p.ecn_mask != 0 {
            Which::L4s
        } else {
            Which::Classic
        }
    }

    fn queue(&mut self, w: Which) -> &mut SubQueue {
        match w {
            Which::Classic => &mut self.classic,
            Which::L4s => &mut self.l4s,
        }
    }

    /// The scheduler's credit when both queues are empty: the L queue starts (wl > wc).
    fn initial_credit(&self) -> i64 {
        let wc = i64::from(self.p.c_weight_pct);
        i64::from(self.mtu) * (wc - (MAX_WEIGHT - wc))
    }

    /// Run the probability updates due by `now`.
    pub fn advance(&mut self, now: Time) {
        self.now = self.now.max(now);
        while self.next_update <= now {
            if self.is_calm() {
                // Every further update is a no-op: skip to the last one due.
                self.next_update += (now - self.next_update) / self.p.tupdate * self.p.tupdate;
            }
            let at = self.next_update;
            let qdelay = self.classic.head_delay(at).max(self.l4s.head_delay(at));
            self.update(qdelay);
            self.next_update += self.p.tupdate;
        }
    }

    /// Empty queues, zero probability and zero old delay: an update changes nothing.
    fn is_calm(&self) -> bool {
        self.prob == 0.0 && self.qdelay_old == 0 && self.classic.is_empty() && self.l4s.is_empty()
    }

    /// One PI2 step with the delay `qdelay` seen now.
    pub fn update(&mut self, qdelay: Dur) {
        let (cur, old, target) = (secs(qdelay), secs(self.qdelay_old), secs(self.p.target));
        let delta = self.p.alpha * (cur - target) + self.p.beta * (cur - old);
        self.qdelay_old = qdelay;
        self.prob = (self.prob + delta).clamp(0.0, 1.0);
        if !self.p.drop_overload {
            // Keep p_CL at most 1, so that L flows keep their window fairness while overflowing.
            self.prob = self.prob.min(1.0 / self.p.coupling);
        }
    }

    fn roll(&mut self, prob: f64) -> bool {
        uniform(&mut self.rng) < prob
    }

    /// The probabilities' verdict on `pkt` from queue `w` with `backlog` bytes held besides it:
    /// `Some(true)` drop, `Some(false)` mark, `None` leave it.
    fn aqm_verdict(&mut self, w: Which, pkt: &Packet, backlog: u64) -> Option<bool> {
        if backlog < 2 * self.mtu as u64 {
            return None;
        }
        let overload = self.overloaded();
        let prob = self.prob;
        match w {
            Which::Classic => {
                if self.roll(prob) && self.roll(prob) {
                    return Some(overload || !pkt.is_ect());
                }
                None
            }
            Which::L4s if overload => {
                if self.p.drop_overload && self.roll(prob) && self.roll(prob) {
                    return Some(true);
                }
                Some(false)
            }
            Which::L4s => {
                let coupled = self.prob_coupled();
                self.roll(coupled).then_some(!pkt.is_ect())
            }
        }
    }

    pub fn enqueue(&mut self, mut pkt: Packet, now: Time, drops: &mut DropSink) {
        self.advance(now);
        if self.mtu == 0 {
            self.mtu = pkt.size;
            self.credit = self.initial_credit();
        }
        self.mtu = self.mtu.max(pkt.size);
        let w = self.classify(&pkt);
        self.queue(w).arrivals += 1;
        if self.len_pkts() as u64 >= self.p.limit_pkts {
            self.queue(w).overflow_drops += 1;
            drops.push((now, pkt, Verdict::DropOverflow));
            return;
        }
        let mut marked = false;
        if self.p.drop_early {
            match self.aqm_verdict(w, &pkt, self.len_bytes()) {
                Some(true) => {
                    self.queue(w).aqm_drops += 1;
                    drops.push((now, pkt, Verdict::DropEarly));
                    return;
                }
                Some(false) => marked = self.mark(&mut pkt),
                None => {}
            }
        }
        let apply_step = w == Which::L4s && self.l4s.len() as u64 >= self.p.min_qlen_step;
        let q = self.queue(w);
        q.marks += u64::from(marked);
        q.push(Entry { enqueued: now, pkt, apply_step });
    }

    /// Set CE if the packet is ECN-capable; whether it was set.
    fn mark(&mut self, pkt: &mut Packet) -> bool {
        if !pkt.is_ect() {
            return false;
        }
        pkt.mark_ce();
        true
    }

    /// The queue the scheduler serves next, and the credit change if that packet is sent.
    fn pick(&self) -> Option<(Which, i64)> {
        let (c_len, l_len) = (self.classic.len(), self.l4s.len());
        let wc = i64::from(self.p.c_weight_pct);
        if l_len > 0 && (c_len == 0 || self.credit <= 0) {
            Some((Which::L4s, if c_len > 0 { wc } else { 0 }))
        } else if c_len > 0 {
            Some((Which::Classic, if l_len > 0 { -(MAX_WEIGHT - wc) } else { 0 }))
        } else {
            None
        }
    }

    pub fn dequeue(&mut self, now: Time, drops: &mut DropSink) -> Option<Packet> {
        self.advance(now);
        loop {
            let Some((w, weight)) = self.pick() else {
                self.credit = self.initial_credit();
                return None;
            };
            let Entry { enqueued, mut pkt, apply_step } = self.queue(w).pop().expect("picked a queue with packets");
            let mut marked = false;
            if !self.p.drop_early {
                match self.aqm_verdict(w, &pkt, self.len_bytes()) {
                    Some(true) => {
                        self.queue(w).aqm_drops += 1;
                        drops.push((now, pkt, Verdict::DropEarly));
                        continue;
                    }
                    Some(false) => marked = self.mark(&mut pkt),
                    None => {}
                }
            }
            let sojourn = now - enqueued;
            if w == Which::L4s && apply_step && sojourn > self.p.step_thresh {
                if !pkt.is_ect() {
                    self.l4s.aqm_drops += 1;
                    drops.push((now, pkt, Verdict::DropEarly));
                    continue;
                }
                marked = self.mark(&mut pkt);
                self.step_marks += 1;
            }
            self.credit += weight * pkt.size as i64;
            let q = self.queue(w);
            q.marks += u64::from(marked);
            q.departures += 1;
            q.last_sojourn = sojourn;
            self.last_sojourn = sojourn;
            return Some(pkt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::ecn;
    use crate::rng::{stream, Entity, Purpose};
    use crate::units::NS_PER_MS;

    const MS: Time = NS_PER_MS;

    fn params() -> DualPi2Params {
        DualPi2Params {
            limit_pkts: 10_000,
            target: 15 * MS,
            tupdate: 16 * MS,
            alpha: 0.16,
            beta: 3.2,
            step_thresh: MS,
            min_qlen_step: 0,
            coupling: 2.0,
            c_weight_pct: 10,
            drop_overload: true,
            drop_early: false,
            ecn_mask: 0b01,
        }
    }

    fn rng() -> Stream {
        stream(1, Entity::Link, 0, Purpose::Aqm)
    }

    fn dualpi2() -> DualPi2 {
        DualPi2::new(params(), rng())
    }

    fn with_ecn(seq: u32, bits: u8) -> Packet {
        Packet { ecn: bits, ..Packet::test_data(seq, 1000) }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// A scripted sequence of delays, worked by hand (alpha 0.16, beta 3.2, target 15 ms):
    /// 25 ms from 0: 0.16 x 0.010 + 3.2 x 0.025 = 0.0816; p_C = 0.0816^2 = 0.00665856,
    /// p_CL = 0.1632. 25 ms again: + 0.0016 = 0.0832; p_C = 0.00692224, p_CL = 0.1664.
    /// 35 ms: + 0.16 x 0.020 + 3.2 x 0.010 = 0.0352, 0.1184; p_C = 0.01401856, p_CL = 0.2368.
    /// 15 ms: + 0 + 3.2 x (-0.020) = -0.064, 0.0544; p_C = 0.00295936, p_CL = 0.1088.
    /// 0 ms: - 0.0024 - 0.048 = -0.0504, 0.004. 0 ms: -0.0024, 0.0016. 0 ms: clamped to 0.
    #[test]
    fn coupled_and_classic_probabilities_by_hand() {
        let mut q = dualpi2();
        let script = [
            (25, 0.0816, 0.00665856, 0.1632),
            (25, 0.0832, 0.00692224, 0.1664),
            (35, 0.1184, 0.01401856, 0.2368),
            (15, 0.0544, 0.00295936, 0.1088),
            (0, 0.004, 0.000016, 0.008),
            (0, 0.0016, 0.00000256, 0.0032),
            (0, 0.0, 0.0, 0.0),
        ];
        for (delay_ms, p, pc, pcl) in script {
            q.update(delay_ms * MS);
            assert!(close(q.prob, p), "{delay_ms} ms: p' {} (expected {p})", q.prob);
            assert!(close(q.prob_classic(), pc), "{delay_ms} ms: p_C {}", q.prob_classic());
            assert!(close(q.prob_coupled(), pcl), "{delay_ms} ms: p_CL {}", q.prob_coupled());
        }
    }

    /// Past p' = 1/k the coupled probability saturates at 1 and the queue is overloaded; without
    /// drop_overload p' itself stops at 1/k.
    #[test]
    fn overload_saturates_the_coupled_probability() {
        let mut q = dualpi2();
        q.update(200 * MS); // 0.16 x 0.185 + 3.2 x 0.2 = 0.6696
        assert!(close(q.prob, 0.6696) && q.prob_coupled() == 1.0 && q.overloaded());
        let mut capped = DualPi2::new(DualPi2Params { drop_overload: false, ..params() }, rng());
        capped.update(200 * MS);
        assert!(close(capped.prob, 0.5) && !capped.overloaded());
    }

    /// The periodic update takes the larger head-of-line delay of the two queues at its own time.
    #[test]
    fn the_controller_sees_the_larger_head_delay_at_each_update() {
        let mut q = dualpi2();
        let mut sink = Vec::new();
        q.enqueue(with_ecn(0, 0), 0, &mut sink);
        q.enqueue(with_ecn(1, ecn::ECT1), 10 * MS, &mut sink);
        q.advance(16 * MS); // classic head waited 16 ms: 0.16 x 0.001 + 3.2 x 0.016 = 0.05136
        assert!(close(q.prob, 0.05136), "{}", q.prob);
        assert_eq!(q.qdelay_old, 16 * MS);
        assert_eq!(q.head_delays(), (16 * MS, 6 * MS));
        q.advance(32 * MS); // 32 ms: + 0.16 x 0.017 + 3.2 x 0.016
        assert!(close(q.prob, 0.05136 + 0.00272 + 0.0512), "{}", q.prob);
    }

    #[test]
    fn ect1_and_ce_go_to_the_l_queue_and_the_rest_to_the_classic_queue() {
        let mut q = dualpi2();
        let mut sink = Vec::new();
        let cases = [
            (0, Which::Classic),
            (ecn::ECT, Which::Classic),
            (ecn::ECT1, Which::L4s),
            (ecn::ECT1 | ecn::CE, Which::L4s),
            (ecn::ECT | ecn::CE, Which::L4s),
        ];
        for (i, &(bits, want)) in cases.iter().enumerate() {
            assert_eq!(q.classify(&with_ecn(0, bits)), want, "ecn bits {bits:#b}");
            q.enqueue(with_ecn(i as u32, bits), 0, &mut sink);
        }
        assert_eq!((q.classic.arrivals, q.l4s.arrivals), (2, 3));
        assert_eq!((q.classic.len(), q.l4s.len()), (2, 3));
        // Any ECT (mask 11) takes classic ECN too.
        let any = DualPi2::new(DualPi2Params { ecn_mask: 0b11, ..params() }, rng());
        assert_eq!(any.classify(&with_ecn(0, ecn::ECT)), Which::L4s);
        assert_eq!(any.classify(&with_ecn(0, 0)), Which::Classic);
    }

    /// Both queues backlogged with 1000-byte packets: the credit starts at 1000 x (10 - 90) =
    /// -80,000; an L packet adds 10,000, a C packet takes 90,000. So L, L, ..., nine L packets
    /// bring it to +10,000, then one C packet to -80,000: 9 L to 1 C, the C queue's 10%.
    #[test]
    fn the_scheduler_gives_the_classic_queue_its_weight() {
        let mut q = dualpi2();
        let mut sink = Vec::new();
        for seq in 0..100 {
            q.enqueue(with_ecn(seq, 0), 0, &mut sink);
            q.enqueue(with_ecn(seq, ecn::ECT1), 0, &mut sink);
        }
        let order: String =
            (0..20).map(|_| if q.dequeue(0, &mut sink).unwrap().is_l4s() { 'L' } else { 'C' }).collect();
        assert_eq!(order, "LLLLLLLLLCLLLLLLLLLC");
        assert!(sink.is_empty());
    }

    /// The step marks an L packet that waited more than 1 ms, whatever p' is; a classic ECN
    /// packet that waited as long is not marked while p' = 0.
    #[test]
    fn the_l_queue_step_marks_above_one_millisecond() {
        let mut q = dualpi2();
        let mut sink = Vec::new();
        for seq in 0..4 {
            q.enqueue(with_ecn(seq, ecn::ECT1), 0, &mut sink);
            q.enqueue(with_ecn(seq, ecn::ECT), 0, &mut sink);
        }
        let ce = |p: Packet| (p.is_l4s(), p.is_ce());
        assert_eq!(ce(q.dequeue(MS, &mut sink).unwrap()), (true, false), "exactly 1 ms: not above");
        assert_eq!(ce(q.dequeue(MS + 1, &mut sink).unwrap()), (true, true));
        let rest: Vec<_> = (0..6).map(|_| ce(q.dequeue(2 * MS, &mut sink).unwrap())).collect();
        assert_eq!(rest.iter().filter(|&&(l, c)| l && c).count(), 2);
        assert_eq!(rest.iter().filter(|&&(l, c)| !l && c).count(), 0);
        assert_eq!((q.step_marks, q.l4s.marks, q.classic.marks), (3, 3, 0));
    }

    /// With p' = 0.3 (p_C = 0.09, p_CL = 0.6) and a deep backlog, marks come at about those
    /// rates; non-ECN classic packets are dropped instead. Overloaded (p' = 0.8), the L queue
    /// drops at p_C = 0.64 and marks the rest.
    #[test]
    fn marks_and_drops_follow_the_probabilities() {
        let mut q = DualPi2::new(DualPi2Params { step_thresh: 1000 * MS, limit_pkts: 100_000, ..params() }, rng());
        let mut sink = Vec::new();
        let n = 20_000u32;
        for seq in 0..n {
            q.enqueue(with_ecn(seq, if seq % 2 == 0 { ecn::ECT } else { 0 }), 0, &mut sink);
            q.enqueue(with_ecn(seq, ecn::ECT1), 0, &mut sink);
        }
        q.prob = 0.3;
        q.next_update = Time::MAX;
        while q.len_pkts() > 100 {
            q.dequeue(0, &mut sink);
        }
        let (l_done, c_done) = (q.l4s.departures + q.l4s.aqm_drops, q.classic.departures + q.classic.aqm_drops);
        let l_rate = q.l4s.marks as f64 / l_done as f64;
        let c_rate = (q.classic.marks + q.classic.aqm_drops) as f64 / c_done as f64;
        assert!((l_rate - 0.6).abs() < 0.02, "p_CL {l_rate}");
        assert!((c_rate - 0.09).abs() < 0.02, "p_C {c_rate}");
        assert!(q.classic.aqm_drops > 0 && q.l4s.aqm_drops == 0);
        // Overload.
        let mut o = DualPi2::new(DualPi2Params { step_thresh: 1000 * MS, limit_pkts: 100_000, ..params() }, rng());
        for seq in 0..n {
            o.enqueue(with_ecn(seq, ecn::ECT1), 0, &mut sink);
        }
        o.prob = 0.8;
        o.next_update = Time::MAX;
        while o.len_pkts() > 100 {
            o.dequeue(0, &mut sink);
        }
        let done = (o.l4s.departures + o.l4s.aqm_drops) as f64;
        assert!((o.l4s.aqm_drops as f64 / done - 0.64).abs() < 0.02, "{}", o.l4s.aqm_drops as f64 / done);
        assert_eq!(o.l4s.marks, o.l4s.departures, "every L packet sent under overload is marked");
    }

    /// With `drop_early` the verdict comes at enqueue, on the backlog the arrival finds.
    #[test]
    fn drop_early_decides_at_enqueue() {
        let mut q = DualPi2::new(DualPi2Params { drop_early: true, ..params() }, rng());
        let mut sink = Vec::new();
        q.prob = 1.0;
        q.next_update = Time::MAX;
        for seq in 0..3 {
            q.enqueue(with_ecn(seq, 0), 0, &mut sink);
            q.enqueue(with_ecn(seq, ecn::ECT), 0, &mut sink);
        }
        // The first two arrivals find less than two MTUs; every later one is dropped, ECT(0) or
        // not: p' = 1 is overload, where the classic queue drops instead of marking.
        assert_eq!(q.len_pkts(), 2);
        assert_eq!(q.classic.aqm_drops, 4);
        assert!(sink.iter().all(|&(_, _, v)| v == Verdict::DropEarly));
        assert!(q.dequeue(0, &mut sink).is_some() && q.dequeue(0, &mut sink).is_some());
        assert_eq!(sink.len(), 4, "nothing more at dequeue");
    }

    /// The step applies only to packets that found `min_qlen_step` packets in the L queue.
    #[test]
    fn the_step_waits_for_min_qlen_step() {
        let mut q = DualPi2::new(DualPi2Params { min_qlen_step: 2, ..params() }, rng());
        let mut sink = Vec::new();
        for seq in 0..4 {
            q.enqueue(with_ecn(seq, ecn::ECT1), 0, &mut sink);
        }
        let marked: Vec<bool> = (0..4).map(|_| q.dequeue(5 * MS, &mut sink).unwrap().is_ce()).collect();
        assert_eq!(marked, vec![false, false, true, true]);
        assert_eq!(q.step_marks, 2);
    }

    #[test]
    fn no_action_below_two_mtus_and_overflow_at_the_limit() {
        let mut q = DualPi2::new(DualPi2Params { limit_pkts: 3, ..params() }, rng());
        let mut sink = Vec::new();
        q.prob = 1.0;
        q.next_update = Time::MAX;
        for seq in 0..4 {
            q.enqueue(with_ecn(seq, 0), 0, &mut sink);
        }
        assert_eq!(sink.len(), 1);
        assert_eq!(sink[0].2, Verdict::DropOverflow);
        assert_eq!(q.classic.overflow_drops, 1);
        // Three held: the first dequeue leaves two MTUs and drops (p_C = 1), the next one leaves
        // one and is sent.
        let sent = q.dequeue(0, &mut sink).unwrap();
        assert_eq!(sent.seq, 1);
        assert_eq!(q.classic.aqm_drops, 1);
        let c = &q.classic;
        assert_eq!(c.arrivals, c.departures + c.aqm_drops + c.overflow_drops + c.len() as u64);
    }
}
