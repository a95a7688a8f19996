//! CoDel, Controlled Delay (RFC 8289): drop at dequeue when the sojourn time of packets has stayed
//! above `target` for at least `interval`, then at intervals shrinking as interval/sqrt(count).
//!
//! [`CoDelState`] is the per-queue state machine of the RFC's pseudocode (also used per flow by
//! FQ-CoDel); [`CoDel`] is one FIFO under it. With `ecn`, an ECN-capable packet the control law
//! picks is marked CE and sent instead of dropped (the schedule advances as for a drop). Times are
//! integer nanoseconds; the control law's interval/sqrt(count) is computed in f64 and truncated.
//!
//! [`CeThreshold`] is Linux's `ce_threshold` (CoDel and FQ-CoDel; the selector and mask FQ-CoDel's
//! only, from Linux 5.16): a shallow step on the sojourn time that marks CE whatever CoDel's own
//! state, the L4S marking of a single queue when restricted to ECT(1).

use super::fifo::StampedFifo;
use super::{DropSink, Verdict};
use crate::net::packet::Packet;
use crate::units::{Dur, Time};

#[derive(Clone, Copy, Debug)]
pub struct CoDelParams {
    /// Acceptable standing queue delay (RFC 8289: 5 ms).
    pub target: Dur,
    /// Window over which the delay must stay above target before a drop (RFC 8289: 100 ms).
    pub interval: Dur,
    pub ecn: bool,
}

/// Linux's `ce_threshold` (the end of `codel_dequeue` in include/net/codel_impl.h): the packet
/// about to be sent, if it waited longer than `threshold` (strictly, as `codel_time_after`) and
/// is selected, is marked CE. It is checked after CoDel's own decision and leaves CoDel's state
/// alone; it applies whether or not CoDel's `ecn` is on, and only to ECN-capable packets.
///
/// Selection as Linux's `ce_threshold_selector` and `ce_threshold_mask`: with a nonzero mask,
/// only packets whose IP ECN field (CE 0b11, ECT(0) 0b10, ECT(1) 0b01) ANDed with the mask
/// equals the selector; mask 0 (Linux's default) selects every packet. Linux compares the whole
/// DS field; ccsim's packets carry no DSCP, so both are ECN bits. Selector 1 with mask 3 marks
/// ECT(1) only (the 5.16 `ce_threshold_ect1` behaviour).
///
/// Counting differs from Linux's `ce_mark` in one case: Linux counts a packet that already
/// carried CE (marked upstream, or by CoDel's `ecn` on the same dequeue); here only packets this
/// rule set CE are counted, so that a queue's marks add up to the CE marks receivers see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CeThreshold {
    pub threshold: Dur,
    pub selector: u8,
    pub mask: u8,
}

impl CeThreshold {
    /// Whether the rule applies to `pkt` (by its IP ECN field under the mask).
    fn selects(&self, pkt: &Packet) -> bool {
        self.mask == 0 || pkt.ecn_field() & self.mask == self.selector
    }

    /// Mark `pkt`, about to be sent after waiting `sojourn`, if the rule calls for it: whether
    /// this set CE.
    pub fn apply(&self, pkt: &mut Packet, sojourn: Dur) -> bool {
        if sojourn <= self.threshold || !pkt.is_ect() || pkt.is_ce() || !self.selects(pkt) {
            return false;
        }
        pkt.mark_ce();
        true
    }
}

/// The RFC's per-queue variables.
#[derive(Clone, Debug, Default)]
pub struct CoDelState {
    /// When the sojourn time, above target since then, will have been so for an interval.
    first_above_time: Option<Time>,
    /// When the next drop is due (in the drop state).
    pub drop_next: Time,
    /// Drops (and marks) since entering the drop state, as the control law counts them.
    pub count: u32,
    lastcount: u32,
    /// In the drop state.
    pub dropping: bool,
    /// Sojourn time of the last packet dequeued.
    pub last_sojourn: Dur,
    pub drops: u64,
    /// CE marks set by this queue: the control law's and the `ce_threshold` rule's.
    pub marks: u64,
    /// Of `marks`, those set by the `ce_threshold` rule.
    pub ce_marks: u64,
}

/// The next drop time: `t + interval / sqrt(count)`.
pub fn control_law(t: Time, interval: Dur, count: u32) -> Time {
    t + (interval as f64 / (count as f64).sqrt()) as Dur
}

impl CoDelState {
    /// Take the head packet of `q` and tell whether its sojourn time allows a drop (the RFC's
    /// `dodequeue`). `others` is the backlog of the rest of the discipline (FQ-CoDel's other
    /// flows): a backlog of at most one MTU is never a standing queue.
    fn take(
        &mut self,
        p: &CoDelParams,
        q: &mut StampedFifo,
        others: u64,
        mtu: u32,
        now: Time,
    ) -> Option<(Packet, bool)> {
        let (enqueued, pkt) = q.pop()?;
        let sojourn = now - enqueued;
        self.last_sojourn = sojourn;
        if sojourn < p.target || q.bytes() + others <= mtu as u64 {
            self.first_above_time = None;
            return Some((pkt, false));
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                Some((pkt, false))
            }
            Some(t) => Some((pkt, now >= t)),
        }
    }

    /// Drop `pkt`, or mark it (true: then it is sent).
    fn punish(&mut self, p: &CoDelParams, pkt: &mut Packet, now: Time, drops: &mut DropSink) -> bool {
        if p.ecn && pkt.is_ect() {
            pkt.mark_ce();
            self.marks += 1;
            return true;
        }
        self.drops += 1;
        drops.push((now, *pkt, Verdict::DropEarly));
        false
    }

    /// The packet to send from `q` at `now`, if any: the RFC's `dequeue`, then the
    /// `ce_threshold` rule (if any) on the packet it returns.
    #[allow(clippy::too_many_arguments)]
    pub fn dequeue(
        &mut self,
        p: &CoDelParams,
        ce: Option<&CeThreshold>,
        q: &mut StampedFifo,
        others: u64,
        mtu: u32,
        now: Time,
        drops: &mut DropSink,
    ) -> Option<Packet> {
        let mut pkt = self.control(p, q, others, mtu, now, drops)?;
        if ce.is_some_and(|ce| ce.apply(&mut pkt, self.last_sojourn)) {
            self.marks += 1;
            self.ce_marks += 1;
        }
        Some(pkt)
    }

    /// The RFC's `dequeue`: the packet to send from `q` at `now`, if any, after the drops the
    /// control law calls for.
    fn control(
        &mut self,
        p: &CoDelParams,
        q: &mut StampedFifo,
        others: u64,
        mtu: u32,
        now: Time,
        drops: &mut DropSink,
    ) -> Option<Packet> {
        let Some((mut pkt, mut ok_to_drop)) = self.take(p, q, others, mtu, now) else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                // The sojourn time went below target: leave the drop state.
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if self.punish(p, &mut pkt, now, drops) {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    return Some(pkt);
                }
                (pkt, ok_to_drop) = match self.take(p, q, others, mtu, now) {
                    Some(next) => next,
                    None => {
                        self.dropping = false;
                        return None;
                    }
                };
                if ok_to_drop {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                } else {
                    self.dropping = false;
                }
            }
            return Some(pkt);
        }
        if ok_to_drop {
            let sent = self.punish(p, &mut pkt, now, drops);
            self.enter_drop_state(p, now);
            if !sent {
                return self.take(p, q, others, mtu, now).map(|(next, _)| next);
            }
        }
        Some(pkt)
    }

    /// Enter the drop state. If it was left only recently (within 16 intervals of when the next
    /// drop would have been due), resume near the drop rate that controlled the queue then
    /// instead of starting over at count 1.
    fn enter_drop_state(&mut self, p: &CoDelParams, now: Time) {
        self.dropping = true;
        let delta = self.count.wrapping_sub(self.lastcount);
        let recent = (now as i128 - self.drop_next as i128) < 16 * p.interval as i128;
        self.count = if delta > 1 && delta < u32::MAX / 2 && recent { delta } else { 1 };
        self.drop_next = control_law(now, p.interval, self.count);
        self.lastcount = self.count;
    }
}

/// One FIFO under CoDel, with a tail-drop limit in packets.
pub struct CoDel {
    pub params: CoDelParams,
    pub limit_pkts: u64,
    pub q: StampedFifo,
    pub state: CoDelState,
    /// Linux's `ce_threshold` (none: off).
    pub ce_threshold: Option<CeThreshold>,
    /// Largest packet seen: the MTU of the RFC's "backlog of at most one MTU" test.
    mtu: u32,
}

impl CoDel {
    pub fn new(params: CoDelParams, limit_pkts: u64) -> Self {
        CoDel {
            params,
            limit_pkts,
            q: StampedFifo::default(),
            state: CoDelState::default(),
            ce_threshold: None,
            mtu: 0,
        }
    }

    pub fn with_ce_threshold(mut self, ce: Option<CeThreshold>) -> Self {
        self.ce_threshold = ce;
        self
    }

    pub fn enqueue(&mut self, pkt: Packet, now: Time, drops: &mut DropSink) {
        if self.q.len() as u64 >= self.limit_pkts {
            drops.push((now, pkt, Verdict::DropOverflow));
            return;
        }
        self.mtu = self.mtu.max(pkt.size);
        self.q.push(now, pkt);
    }

    pub fn dequeue(&mut self, now: Time, drops: &mut DropSink) -> Option<Packet> {
        self.state.dequeue(&self.params, self.ce_threshold.as_ref(), &mut self.q, 0, self.mtu, now, drops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::NS_PER_MS;

    const MS: Time = NS_PER_MS;

    fn codel() -> CoDel {
        CoDel::new(CoDelParams { target: 5 * MS, interval: 100 * MS, ecn: false }, 10_000)
    }

    fn pkt(seq: u32) -> Packet {
        Packet::test_data(seq, 1000)
    }

    /// A queue kept at a standing delay: packets enqueued long ago, one dequeued every ms.
    fn standing_queue(c: &mut CoDel, n: u32) {
        let mut sink = Vec::new();
        for seq in 0..n {
            c.enqueue(pkt(seq), 0, &mut sink);
        }
        assert!(sink.is_empty());
    }

    #[test]
    fn control_law_by_hand() {
        assert_eq!(control_law(0, 100 * MS, 1), 100 * MS);
        // 100 ms / sqrt(2) = 70.710678 ms; / sqrt(3) = 57.735026 ms.
        assert_eq!(control_law(0, 100 * MS, 2), 70_710_678);
        assert_eq!(control_law(0, 100 * MS, 3), 57_735_026);
    }

    /// Sojourn above target from the first dequeue at 10 ms: the first drop is one interval
    /// later (110 ms), the next at 110 + 100/sqrt(1)... the RFC's schedule: entering the drop
    /// state at 110 ms sets count 1 and drop_next = 210 ms; the drop there makes count 2 and
    /// drop_next = 210 + 70.71 ms; then count 3 and + 57.74 ms.
    #[test]
    fn drop_times_at_count_1_2_3() {
        let mut c = codel();
        standing_queue(&mut c, 5000);
        let mut sink = Vec::new();
        let mut drop_times = vec![];
        let mut t = 10 * MS;
        while drop_times.len() < 4 && t < 2000 * MS {
            let before = sink.len();
            c.dequeue(t, &mut sink);
            if sink.len() > before {
                drop_times.push((t, c.state.count, c.state.drop_next));
            }
            t += MS / 10;
        }
        assert_eq!(drop_times[0], (110 * MS, 1, 210 * MS));
        assert_eq!(drop_times[1], (210 * MS, 2, 210 * MS + 70_710_678));
        // The dequeue at 280.8 ms is the first at or after 280.710678 ms.
        assert_eq!(drop_times[2], (280_800_000, 3, 210 * MS + 70_710_678 + 57_735_026));
        assert_eq!(drop_times[3].1, 4);
    }

    #[test]
    fn a_short_queue_is_never_dropped_and_resets_the_timer() {
        let mut c = codel();
        let mut sink = Vec::new();
        // One packet at a time with a large sojourn: the backlog after it is empty (<= MTU).
        for i in 0..1000u64 {
            c.enqueue(pkt(i as u32), i * 10 * MS, &mut sink);
            assert!(c.dequeue(i * 10 * MS + 50 * MS, &mut sink).is_some());
        }
        assert!(sink.is_empty() && !c.state.dropping);
    }

    #[test]
    fn leaving_and_reentering_soon_resumes_the_count() {
        let mut c = codel();
        c.state.dropping = false;
        c.state.count = 10;
        c.state.lastcount = 4;
        c.state.drop_next = 500 * MS;
        // Re-enter at 600 ms (within 16 intervals of 500 ms): count = 10 - 4 = 6.
        c.state.enter_drop_state(&c.params.clone(), 600 * MS);
        assert_eq!((c.state.count, c.state.drop_next), (6, 600 * MS + 40_824_829));
        // Re-entering long after starts over at 1.
        c.state.count = 10;
        c.state.lastcount = 4;
        c.state.enter_drop_state(&c.params.clone(), 600 * MS + 16 * 100 * MS + 40_824_829);
        assert_eq!(c.state.count, 1);
    }

    #[test]
    fn ecn_capable_packets_are_marked_not_dropped() {
        let mut c = CoDel::new(CoDelParams { target: 5 * MS, interval: 100 * MS, ecn: true }, 10_000);
        let mut sink = Vec::new();
        for seq in 0..5000 {
            let mut p = pkt(seq);
            p.ecn = crate::net::packet::ecn::ECT;
            c.enqueue(p, 0, &mut sink);
        }
        let mut marked = 0;
        let mut t = 10 * MS;
        while let Some(p) = c.dequeue(t, &mut sink) {
            marked += u32::from(p.ecn & crate::net::packet::ecn::CE != 0);
            t += MS / 10;
        }
        assert!(sink.is_empty(), "nothing dropped");
        assert_eq!(marked as u64, c.state.marks);
        assert!(marked >= 4, "{marked}");
    }
}
