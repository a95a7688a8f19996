//! The receiver: cumulative ACKs, optional delayed ACKs (every second segment or a timer), an
//! immediate ACK for anything out of order or that fills a hole (RFC 5681 section 4.2), and the
//! TCP timestamp echo (the send time of the earliest unacknowledged segment, RFC 7323) together
//! with its arrival time, so a sender can measure one-way delay. With SACK, every ACK carries up to
//! three blocks of out-of-order data: first the block holding the segment that triggered the ACK,
//! then the most recently reported others (RFC 2018 section 4).
//!
//! With quick ACKs (the stack's `quick_acks`, Linux's quick-ACK mode at the start of a
//! connection: `tcp_incr_quickack` with `TCP_MAX_QUICKACKS` = 16) a delaying receiver acknowledges
//! each of its first segments at once, spending one of a budget per ACK it sends, so that a
//! sender in its first round trips is not held back by delayed ACKs; then it delays as before.
//!
//! With DSACK (RFC 2883; the stack's `dsack`, SACK-based recovery only) a duplicate segment is
//! reported too: the ACK it triggers carries it as the first block, a block of its own (section
//! 4: a duplicate below the cumulative ACK, or one within data already SACKed, which is then
//! followed by the SACK block holding it), then the recent blocks as before, three in all. Each
//! duplicate is reported once, by the ACK sent on its arrival.
//!
//! With ECN the receiver echoes CE marks in the ACKs' ECE flag, in one of two ways
//! ([`EcnFeedback`]):
//! - RFC 3168 (section 6.1.3): ECE on every ACK from the first CE-marked segment until a segment
//!   with CWR arrives (CWR is applied before the same segment's CE). The segment whose CE starts
//!   an echo is acknowledged at once rather than delayed, as Linux does since 3.7 ("dont delay
//!   ACKs after CE": a sender that has just cut its window may have little in flight).
//! - DCTCP (RFC 8257 section 3.2): ECE is the CE mark of the last segment received. When the
//!   mark changes, a delayed ACK still pending for earlier segments leaves first with the old
//!   value, and the segment that changed it is acknowledged at once (Linux `tcp_dctcp.h`), so
//!   each ACK reports exactly the marks of the segments it covers.
//! - AccECN (RFC 9768): the receiver counts CE-marked data packets (from 5, [`super::accecn`])
//!   and every ACK carries the count modulo 8 in its ACE field; it has no ECE to latch and
//!   ignores CWR. A CE-marked segment after one that was not is acknowledged at once
//!   (Change-Triggered ACKs, section 3.2.2.5.1), and so is a segment that brings the marks since
//!   the last ACK to [`super::accecn::INCREMENT_TRIGGER`] (Increment-Triggered ACKs), so that the
//!   field cannot turn over between two ACKs. A segment that stops a run of marks waits for the
//!   delayed-ACK rule (the count already says how many there were).

use super::accecn;
use super::ranges::RangeSet;
use crate::cc::EcnFeedback;
use crate::event::{Event, LazyTimer, TimerKind};
use crate::net::fabric::Fabric;
use crate::net::packet::{ecn, Packet, PacketKind, SackBlocks, HEADER_BYTES};
use crate::units::{Dur, Time};

pub struct Receiver {
    flow: u32,
    ack_route: u32,
    rcv_nxt: u32,
    out_of_order: RangeSet,
    sack: bool,
    /// A segment of each of the most recently reported SACK blocks, newest first.
    recent_blocks: [Option<u32>; 3],
    delayed_ack: bool,
    delay: Dur,
    /// In-order segments received and not yet acknowledged.
    unacked: u32,
    /// (send time, arrival time) of the earliest unacknowledged segment.
    echo: (Time, Time),
    pub delack_timer: LazyTimer,
    /// Every data packet that reached the receiver, duplicates included.
    pub packets_received: u64,
    /// How CE is echoed; `None`: not ECN-capable.
    ecn: Option<EcnFeedback>,
    /// The ECE flag the next ACK carries (RFC 3168, DCTCP).
    ece: bool,
    /// AccECN: the CE packet counter (r.cep), whether the last data packet was CE-marked, and
    /// the marks since the last ACK.
    cep: u32,
    last_ce: bool,
    ce_since_ack: u32,
    /// CE-marked data packets received, duplicates included, under every feedback.
    pub ce_packets: u64,
    /// Report duplicate segments (RFC 2883).
    dsack: bool,
    /// The duplicate segment the next ACK reports first (a DSACK block), if any.
    duplicate: Option<u32>,
    /// ACKs still to send at once, whatever `delayed_ack` says (Linux's quick-ACK budget).
    quick_acks: u32,
}

impl Receiver {
    pub fn new(flow: u32, ack_route: u32, delayed_ack: bool, delay: Dur, sack: bool) -> Self {
        Receiver {
            flow,
            ack_route,
            rcv_nxt: 0,
            out_of_order: RangeSet::default(),
            sack,
            recent_blocks: [None; 3],
            delayed_ack,
            delay,
            unacked: 0,
            echo: (0, 0),
            delack_timer: LazyTimer::default(),
            packets_received: 0,
            ecn: None,
            ece: false,
            cep: accecn::CEP_INIT,
            last_ce: false,
            ce_since_ack: 0,
            ce_packets: 0,
            dsack: false,
            duplicate: None,
            quick_acks: 0,
        }
    }

    /// Acknowledge the first `n` segments at once even when delaying ACKs (quick-ACK mode).
    pub fn with_quick_acks(mut self, n: u32) -> Self {
        self.quick_acks = n;
        self
    }

    /// Report duplicate segments in DSACK blocks (RFC 2883); only with SACK.
    pub fn with_dsack(mut self) -> Self {
        self.dsack = self.sack;
        self
    }

    /// Whether its ACKs carry SACK blocks.
    pub fn sack(&self) -> bool {
        self.sack
    }

    /// Echo CE marks as `feedback` says.
    pub fn with_ecn(mut self, feedback: EcnFeedback) -> Self {
        self.ecn = Some(feedback);
        self
    }

    /// Update the echo state for an arriving data segment. Returns whether the segment must be
    /// acknowledged at once. Kept out of line: most receivers are not ECN-capable.
    #[inline(never)]
    fn on_ecn(&mut self, pkt: &Packet, now: Time, fab: &mut Fabric) -> bool {
        let ce = pkt.ecn & ecn::CE != 0;
        self.ce_packets += u64::from(ce);
        match self.ecn {
            None => false,
            Some(EcnFeedback::Rfc3168) => {
                if pkt.ecn & ecn::CWR != 0 {
                    self.ece = false;
                }
                let starts_echo = ce && !self.ece;
                self.ece |= ce;
                starts_echo
            }
            Some(EcnFeedback::AccEcn) => {
                let change = ce && !self.last_ce;
                self.last_ce = ce;
                if !ce {
                    return false;
                }
                self.cep = self.cep.wrapping_add(1);
                self.ce_since_ack += 1;
                change || self.ce_since_ack >= accecn::INCREMENT_TRIGGER
            }
            Some(EcnFeedback::PerSegment) => {
                if ce == self.ece {
                    return false;
                }
                if self.unacked > 0 {
                    self.send(PacketKind::Ack, self.echo, now, fab);
                }
                self.ece = ce;
                true
            }
        }
    }

    pub fn on_packet(&mut self, pkt: &Packet, now: Time, fab: &mut Fabric) {
        if pkt.kind == PacketKind::Syn {
            self.send(PacketKind::SynAck, (pkt.ts, now), now, fab);
            return;
        }
        self.packets_received += 1;
        let ack_now = self.ecn.is_some() && self.on_ecn(pkt, now, fab);
        if pkt.seq == self.rcv_nxt {
            let had_holes = !self.out_of_order.is_empty();
            self.rcv_nxt = self.out_of_order.advance_from(self.rcv_nxt + 1);
            if !self.delayed_ack || had_holes || self.quick_acks > 0 {
                self.send(PacketKind::Ack, (pkt.ts, now), now, fab);
                return;
            }
            if ack_now {
                // The echo is of the earliest segment this ACK covers (RFC 7323).
                let echo = if self.unacked > 0 { self.echo } else { (pkt.ts, now) };
                self.send(PacketKind::Ack, echo, now, fab);
                return;
            }
            if self.unacked == 0 {
                self.echo = (pkt.ts, now);
            }
            self.unacked += 1;
            if self.unacked >= 2 {
                self.send(PacketKind::Ack, self.echo, now, fab);
            } else {
                let ev = Event::Timer { flow: self.flow, kind: TimerKind::DelayedAck };
                self.delack_timer.set(now + self.delay, &mut fab.events, ev);
            }
        } else {
            if self.dsack && (pkt.seq < self.rcv_nxt || self.out_of_order.contains(pkt.seq)) {
                self.duplicate = Some(pkt.seq);
            }
            if pkt.seq > self.rcv_nxt {
                let block = self.out_of_order.insert(pkt.seq);
                self.note_block(pkt.seq, block);
            }
            // Out of order or a duplicate: acknowledge at once (a duplicate ACK).
            self.send(PacketKind::Ack, (pkt.ts, now), now, fab);
        }
    }

    pub fn on_delack_timer(&mut self, now: Time, fab: &mut Fabric) {
        let ev = Event::Timer { flow: self.flow, kind: TimerKind::DelayedAck };
        if self.delack_timer.fire(now, &mut fab.events, ev) && self.unacked > 0 {
            self.send(PacketKind::Ack, self.echo, now, fab);
        }
    }

    /// The delayed-ACK timer, due at `at`, runs before its event: the receiver's host is a
    /// delivering group's (see `Fabric::prepare_delivering_ahead`), where a packet delivered
    /// ahead at a later time is about to arrive. The event then finds the timer cancelled.
    pub fn run_delayed_ack(&mut self, at: Time, fab: &mut Fabric) {
        debug_assert_eq!(self.delack_timer.deadline(), Some(at));
        self.delack_timer.cancel();
        if self.unacked > 0 {
            self.send(PacketKind::Ack, self.echo, at, fab);
        }
    }

    /// Put `block`, the range now holding `seq`, first in the most-recently-reported list.
    fn note_block(&mut self, seq: u32, (start, end): (u32, u32)) {
        // A segment still in the set is in `block` exactly when it lies within its bounds.
        let same = |r: &Option<u32>| r.is_some_and(|s| start <= s && s < end);
        let mut next = [Some(seq), None, None];
        let mut n = 1;
        for r in self.recent_blocks {
            if n < 3 && r.is_some() && !same(&r) {
                next[n] = r;
                n += 1;
            }
        }
        self.recent_blocks = next;
    }

    /// SACK blocks for the next ACK: a duplicate just received (DSACK), then the recent blocks
    /// still above the cumulative ACK.
    fn sack_blocks(&mut self) -> SackBlocks {
        let mut blocks = SackBlocks::default();
        if !self.sack {
            return blocks;
        }
        // The DSACK block may equal a SACK block (a one-segment block received twice): that one
        // is listed as well, second.
        let reported = self.duplicate.take().map(|seq| blocks.push((seq, seq + 1))).is_some();
        for seq in self.recent_blocks.iter().flatten() {
            if let Some(b) = self.out_of_order.range_containing(*seq) {
                if b.0 > self.rcv_nxt && !blocks.iter().skip(usize::from(reported)).any(|x| x == b) {
                    blocks.push(b);
                }
            }
        }
        blocks
    }

    /// The ECN bits of the next ACK: ECE, or under AccECN the ACE field.
    #[inline]
    fn ack_ecn(&self) -> u8 {
        if self.ecn == Some(EcnFeedback::AccEcn) {
            accecn::ace_bits(self.cep)
        } else if self.ece {
            ecn::ECE
        } else {
            0
        }
    }

    /// The AccECN CE packet counter (r.cep), for tests and inspection.
    pub fn ce_counter(&self) -> u32 {
        self.cep
    }

    fn send(&mut self, kind: PacketKind, echo: (Time, Time), now: Time, fab: &mut Fabric) {
        self.unacked = 0;
        self.ce_since_ack = 0;
        if kind == PacketKind::Ack {
            self.quick_acks = self.quick_acks.saturating_sub(1);
        }
        self.delack_timer.cancel();
        let sack = fab.sacks.store(self.sack_blocks());
        let ack = Packet {
            ts: echo.0,
            ts_recv: echo.1,
            flow: self.flow,
            seq: self.rcv_nxt,
            size: HEADER_BYTES,
            route: self.ack_route,
            sack,
            hop: 0,
            kind,
            ecn: self.ack_ecn(),
        };
        fab.send(ack, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::drops::FlowDrops;
    use crate::net::link::Link;
    use crate::net::loss::LossModel;
    use crate::net::qdisc::{DropTail, Qdisc};

    /// A receiver whose ACKs go onto one idle link, where the test reads them back.
    fn setup(sack: bool, delayed_ack: bool) -> (Receiver, Fabric) {
        let q = Qdisc::DropTail(DropTail { limit_pkts: None, limit_bytes: None });
        let mut fab = Fabric::new(vec![Link::new(1, 0, 1_000_000_000, 1_000, q, LossModel::None)], false);
        let route = fab.add_route(&[0]);
        fab.flow_drops.push(FlowDrops::default());
        (Receiver::new(0, route, delayed_ack, 100_000_000, sack), fab)
    }

    fn data(seq: u32) -> Packet {
        Packet { ts: seq as u64, ..Packet::test_data(seq, 1040) }
    }

    fn acks(fab: &Fabric) -> Vec<(u32, Vec<(u32, u32)>)> {
        fab.links[0].in_link().map(|p| (p.seq, fab.sacks.get(p.sack).iter().collect())).collect()
    }

    #[test]
    fn sack_blocks_put_the_newest_first_and_drop_acknowledged_ones() {
        let (mut r, mut fab) = setup(true, false);
        for seq in [0, 1, 3, 6, 7, 4, 9, 2] {
            r.on_packet(&data(seq), 10, &mut fab);
        }
        let got = acks(&fab);
        assert_eq!(got[0], (1, vec![]));
        assert_eq!(got[1], (2, vec![]));
        assert_eq!(got[2], (2, vec![(3, 4)]));
        assert_eq!(got[3], (2, vec![(6, 7), (3, 4)]));
        assert_eq!(got[4], (2, vec![(6, 8), (3, 4)]));
        assert_eq!(got[5], (2, vec![(3, 5), (6, 8)]), "4 joins 3's block, which moves first");
        assert_eq!(got[6], (2, vec![(9, 10), (3, 5), (6, 8)]));
        assert_eq!(got[7], (5, vec![(9, 10), (6, 8)]), "2 fills the first hole; 3..5 is acknowledged");
    }

    /// RFC 2883 section 4 (examples of section 4.1.1-4.1.3, in segments): a duplicate below the
    /// cumulative ACK is reported alone in the first block; a duplicate within SACKed data is the
    /// first block, followed by the block that holds it, then the other recent blocks. Each
    /// duplicate is reported once; without `dsack` duplicates only trigger a duplicate ACK.
    #[test]
    fn a_duplicate_segment_is_reported_first_in_a_dsack_block() {
        let (r, mut fab) = setup(true, false);
        let mut r = r.with_dsack();
        for seq in [0, 1, 1, 3, 4, 6, 3, 0, 2] {
            r.on_packet(&data(seq), 10, &mut fab);
        }
        let got = acks(&fab);
        assert_eq!(got[2], (2, vec![(1, 2)]), "1 again, below the cumulative ACK");
        assert_eq!(got[3], (2, vec![(3, 4)]), "the next ACK reports no duplicate");
        assert_eq!(got[5], (2, vec![(6, 7), (3, 5)]));
        assert_eq!(got[6], (2, vec![(3, 4), (3, 5), (6, 7)]), "3 again, within SACKed 3..5");
        assert_eq!(got[7], (2, vec![(0, 1), (3, 5), (6, 7)]), "0 again");
        assert_eq!(got[8], (5, vec![(6, 7)]));
        let (mut plain, mut fab) = setup(true, false);
        for seq in [0, 1, 1] {
            plain.on_packet(&data(seq), 10, &mut fab);
        }
        assert_eq!(acks(&fab)[2], (2, vec![]), "without DSACK: a duplicate ACK, no block");
        let (no_sack, mut fab) = setup(false, false);
        let mut no_sack = no_sack.with_dsack();
        for seq in [0, 0] {
            no_sack.on_packet(&data(seq), 10, &mut fab);
        }
        assert_eq!(acks(&fab)[1], (1, vec![]), "DSACK needs SACK");
    }

    #[test]
    fn without_sack_acks_carry_no_blocks_and_delayed_acks_wait_for_two() {
        let (mut r, mut fab) = setup(false, true);
        for seq in [0, 1, 2, 4] {
            r.on_packet(&data(seq), 10, &mut fab);
        }
        // 0 waits, 1 completes the pair, 2 waits, 4 is out of order: an immediate duplicate ACK.
        assert_eq!(acks(&fab), vec![(2, vec![]), (3, vec![])]);
        assert_eq!(r.packets_received, 4);
    }

    /// Linux's quick-ACK mode at the start (`tcp_incr_quickack`, `tcp_dec_quickack_mode`): a
    /// delaying receiver with a budget of 3 acknowledges segments 0, 1 and 2 each at once, one
    /// ACK spent each, then pairs 3-4 into one ACK as without the budget.
    #[test]
    fn quick_acks_acknowledge_the_first_segments_each_then_delay() {
        let (r, mut fab) = setup(false, true);
        let mut r = r.with_quick_acks(3);
        for seq in [0, 1, 2, 3, 4, 5] {
            r.on_packet(&data(seq), 10, &mut fab);
        }
        let seqs: Vec<u32> = acks(&fab).into_iter().map(|(seq, _)| seq).collect();
        assert_eq!(seqs, vec![1, 2, 3, 5], "0, 1, 2 at once; 3-4 paired; 5 waits for its timer");
        assert!(r.delack_timer.is_armed());
    }

    /// (cumulative ACK, ECE) of every ACK sent.
    fn echoes(fab: &Fabric) -> Vec<(u32, bool)> {
        fab.links[0].in_link().map(|p| (p.seq, p.ecn & ecn::ECE != 0)).collect()
    }

    /// Data segment `seq`, ECN-capable, with CE and/or CWR as asked.
    fn ecn_data(seq: u32, ce: bool, cwr: bool) -> Packet {
        let mut p = Packet { ecn: ecn::ECT, ..data(seq) };
        if ce {
            p.mark_ce();
        }
        if cwr {
            p.ecn |= ecn::CWR;
        }
        p
    }

    #[test]
    fn rfc3168_echoes_from_the_first_ce_until_cwr_and_acks_the_first_ce_at_once() {
        let (r, mut fab) = setup(false, true);
        let mut r = r.with_ecn(EcnFeedback::Rfc3168);
        // 0, 1: a delayed pair, no echo. 2 is CE-marked: acknowledged at once, ECE on.
        // 3 waits; 4 completes the pair: still ECE (no CWR yet). 5 carries CWR: the echo stops
        // (5 waits); 6 completes the pair without ECE.
        let segs = [(0, false, false), (1, false, false), (2, true, false), (3, false, false)];
        for (seq, ce, cwr) in segs.into_iter().chain([(4, false, false), (5, false, true), (6, false, false)]) {
            r.on_packet(&ecn_data(seq, ce, cwr), 10, &mut fab);
        }
        assert_eq!(echoes(&fab), vec![(2, false), (3, true), (5, true), (7, false)]);
    }

    #[test]
    fn rfc3168_a_ce_while_echoing_follows_the_delayed_ack_rule() {
        let (r, mut fab) = setup(false, true);
        let mut r = r.with_ecn(EcnFeedback::Rfc3168);
        for (seq, ce) in [(0, true), (1, true), (2, true)] {
            r.on_packet(&ecn_data(seq, ce, false), 10, &mut fab);
        }
        // 0 starts the echo (at once); 1 waits; 2 completes the pair.
        assert_eq!(echoes(&fab), vec![(1, true), (3, true)]);
    }

    #[test]
    fn dctcp_acks_report_exactly_the_marks_of_the_segments_they_cover() {
        let (r, mut fab) = setup(false, true);
        let mut r = r.with_ecn(EcnFeedback::PerSegment);
        let marks = [false, false, true, true, false, false, false];
        for (seq, ce) in marks.into_iter().enumerate() {
            r.on_packet(&ecn_data(seq as u32, ce, false), 10, &mut fab);
        }
        // 0, 1: the pair, unmarked. 2: the mark turns on with nothing pending: 2 is acknowledged
        // at once with ECE. 3 (marked) waits. 4 turns the mark off: the pending ACK for 3 leaves
        // first with ECE, then 4's at once without. 5 waits; 6 completes the pair, unmarked.
        assert_eq!(echoes(&fab), vec![(2, false), (3, true), (4, true), (5, false), (7, false)]);
    }

    /// (cumulative ACK, ACE field) of every ACK sent.
    fn aces(fab: &Fabric) -> Vec<(u32, u8)> {
        fab.links[0].in_link().map(|p| (p.seq, p.ace())).collect()
    }

    /// AccECN with delayed ACKs. Marks F F T T T F T F F on segments 0..=8; the counter starts
    /// at 5. 0, 1: a pair, ACE 5. 2 is the first CE after a non-CE: acknowledged at once, count
    /// 6. 3 (CE, no change, one mark since the ACK) waits; 4 brings the marks since the last ACK
    /// to 2: at once, count 8, ACE 0. 5 (not CE) waits, the end of a run triggering nothing; 6
    /// is CE after non-CE: at once with 5, count 9, ACE 1. 7 waits; 8 completes the pair, ACE 1.
    /// No ACK carries ECE.
    #[test]
    fn accecn_counts_ce_packets_in_the_ace_field_and_acks_a_new_run_of_marks_at_once() {
        let (r, mut fab) = setup(false, true);
        let mut r = r.with_ecn(EcnFeedback::AccEcn);
        let marks = [false, false, true, true, true, false, true, false, false];
        for (seq, ce) in marks.into_iter().enumerate() {
            r.on_packet(&ecn_data(seq as u32, ce, false), 10, &mut fab);
        }
        assert_eq!(aces(&fab), vec![(2, 5), (3, 6), (5, 0), (7, 1), (9, 1)]);
        assert!(echoes(&fab).iter().all(|&(_, ece)| !ece));
        assert_eq!((r.ce_counter(), r.ce_packets), (9, 4));
    }

    /// Every ACK carries the count, duplicate ACKs included, and CWR changes nothing. 0 and 1
    /// are CE-marked (0 at once: a change; 1 waits), 3 arrives out of order, marked: a duplicate
    /// ACK at once with count 8 (ACE 0); 2 fills the hole: count still 8.
    #[test]
    fn accecn_duplicate_acks_carry_the_count_and_cwr_is_ignored() {
        let (r, mut fab) = setup(false, true);
        let mut r = r.with_ecn(EcnFeedback::AccEcn);
        for (seq, ce, cwr) in [(0, true, false), (1, true, true), (3, true, false), (2, false, true)] {
            r.on_packet(&ecn_data(seq, ce, cwr), 10, &mut fab);
        }
        assert_eq!(aces(&fab), vec![(1, 6), (2, 0), (4, 0)]);
    }

    #[test]
    fn without_ecn_ce_marks_are_not_echoed() {
        let (mut r, mut fab) = setup(false, false);
        r.on_packet(&ecn_data(0, true, false), 10, &mut fab);
        assert_eq!(echoes(&fab), vec![(1, false)]);
    }
}
