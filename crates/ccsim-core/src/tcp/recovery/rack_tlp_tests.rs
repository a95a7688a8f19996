//! RACK-TLP as packet exchanges: the test plays the receiver (ACKs and SACK blocks at given
//! times, each echoing the segment that triggered it) over a 100 ms round trip, and reads what
//! the sender sends and what its timer is armed for. Linux profile without delayed ACKs, Reno's
//! window (halved on a loss); every segment's ACK comes 100 ms after it left unless it is lost.

use super::super::sender_harness::{new_data, rtx, SenderHarness, MS};
use crate::cc::RecoveryProcedure;
use crate::profile::Profile;
use crate::tcp::retransmit_timer::TimerDuty;
use crate::units::Time;

const RTT: Time = 100 * MS;

fn sender(recovery: RecoveryProcedure, initial_window: f64) -> SenderHarness {
    let mut b = SenderHarness::new(recovery, Profile::LinuxSack, |s| {
        s.delayed_ack = false;
        s.initial_window = initial_window;
    });
    b.start_with_rtt(RTT);
    b
}

/// A transfer of `segments` segments; all leave at 100 ms, after the handshake.
fn short_transfer(recovery: RecoveryProcedure, segments: u32) -> SenderHarness {
    let mut b =
        SenderHarness::transfer(recovery, Profile::LinuxSack, segments as u64 * 1000, |s| s.delayed_ack = false);
    b.start_with_rtt(RTT);
    assert_eq!(b.sent(), SenderHarness::data(0..segments));
    b
}

fn timer(b: &SenderHarness) -> (Option<TimerDuty>, Option<Time>) {
    (b.sender.retransmit_timer.duty(), b.sender.retransmit_timer.deadline())
}

/// RFC 8985 sections 7.2-7.4: the last segment of a five-segment transfer is lost. With one
/// segment outstanding the PTO is 2 SRTT + 200 ms (the worst-case delayed ACK) = 400 ms, more
/// than the 300 ms left to the RTO, so the probe takes the RTO's place: it resends segment 4
/// (nothing new is left to send), its ACK completes the transfer, and no timeout happens. The
/// ACK covers a retransmitted probe: without DSACK that counts as a repaired loss, one window
/// reduction. SACK recovery waits for the same deadline as a timeout.
#[test]
fn a_tail_loss_is_repaired_by_the_probe_without_a_timeout() {
    let mut b = short_transfer(RecoveryProcedure::RackTlp, 5);
    for seq in 0..4 {
        b.reply(seq + 1, &[], seq, 200 * MS);
    }
    // srtt 100 ms, rttvar 16 ms: RTO = 100 + max(4 rttvar, 200) = 300 ms, due at 500 ms.
    assert_eq!(b.sender.retransmit_timer.rto_deadline(), Some(500 * MS));
    assert_eq!(timer(&b), (Some(TimerDuty::LossProbe), Some(500 * MS)), "PTO capped at the RTO");
    assert_eq!(b.fire_timer(), TimerDuty::LossProbe);
    assert_eq!(b.sent(), vec![rtx(4)]);
    assert_eq!(b.sender.retransmit_timer.rto_deadline(), Some(800 * MS), "the probe re-arms the RTO");
    let cwnd = b.cwnd();
    b.reply(5, &[], 4, 600 * MS);
    assert_eq!(b.sender.completed_at, Some(600 * MS));
    assert_eq!(b.sender.stats.timeouts, 0);
    assert_eq!((b.sender.stats.window_cuts, b.cwnd()), (1, cwnd / 2.0), "the repaired loss halves cwnd");

    let mut sack = short_transfer(RecoveryProcedure::Sack, 5);
    for seq in 0..4 {
        sack.reply(seq + 1, &[], seq, 200 * MS);
    }
    assert_eq!(timer(&sack), (Some(TimerDuty::Retransmission), Some(500 * MS)));
    sack.fire_timer();
    assert_eq!(sack.sender.stats.timeouts, 1);
}

/// RFC 8985 section 7.4.2 with DSACK (the stack's `dsack`): the same tail, but segment 4 was
/// only slow, not lost. The probe resends it; the original's ACK (5, exactly the probe's end)
/// completes the transfer, and the probe's copy then arrives as a duplicate, reported in a DSACK:
/// both copies arrived, no loss, no reduction. Without DSACK the same ACK 5 is taken for a
/// repaired loss and halves cwnd (the test above).
#[test]
fn a_probe_shown_spurious_by_dsack_costs_no_reduction() {
    let mut b = SenderHarness::transfer(RecoveryProcedure::RackTlp, Profile::LinuxSack, 6000, |s| {
        s.delayed_ack = false;
        s.dsack = true;
    });
    b.start_with_rtt(RTT);
    b.sent();
    for seq in 0..4 {
        b.reply(seq + 1, &[], seq, 200 * MS);
    }
    b.reply(5, &[], 4, 300 * MS);
    assert_eq!(timer(&b).0, Some(TimerDuty::LossProbe));
    assert_eq!(b.fire_timer(), TimerDuty::LossProbe);
    assert_eq!(b.sent(), vec![rtx(5)]);
    let cwnd = b.cwnd();
    b.reply(6, &[], 5, b.now + 10 * MS);
    assert_eq!(b.cwnd(), cwnd, "ACK of exactly the probe's end: waits for a DSACK");
    assert_eq!(b.sender.stats.window_cuts, 0);
}

/// RFC 8985 sections 7.2, 7.3 and 6.2: the last three of five segments are lost. With three
/// outstanding the PTO is 2 SRTT = 200 ms, before the RTO. The probe resends segment 4; its SACK
/// makes RACK's newest delivered segment the probe, sent long after 2 and 3, whose RACK.rtt +
/// reordering window (min_rtt / 4, no DupThresh SACKed) have passed: both are lost at once, and
/// one recovery episode resends them.
#[test]
fn the_probes_sack_reveals_the_rest_of_a_lost_tail() {
    let mut b = short_transfer(RecoveryProcedure::RackTlp, 5);
    b.reply(1, &[], 0, 200 * MS);
    b.reply(2, &[], 1, 200 * MS);
    assert_eq!(timer(&b), (Some(TimerDuty::LossProbe), Some(400 * MS)));
    assert_eq!(b.fire_timer(), TimerDuty::LossProbe);
    assert_eq!(b.sent(), vec![rtx(4)]);
    b.reply(2, &[(4, 5)], 4, 500 * MS);
    assert!(b.in_recovery());
    assert_eq!(b.sent(), vec![rtx(2), rtx(3)]);
    b.reply(5, &[], 3, 600 * MS);
    assert_eq!(b.sender.completed_at, Some(600 * MS));
    let stats = b.sender.stats;
    assert_eq!((stats.timeouts, stats.fast_retransmits, stats.window_cuts), (0, 1, 1), "one reduction");
}

/// RFC 8985 section 6.2 (RACK judges a retransmission by its last send): segment 1 is lost, and
/// so is its retransmission. Segment 8, first sent after that retransmission, is SACKed more
/// than RACK.rtt after it: the retransmission is lost, and 1 is resent at once, in the same
/// recovery episode, without waiting for the RTO.
#[test]
fn a_lost_retransmission_is_detected_by_rack_not_by_the_rto() {
    let mut b = sender(RecoveryProcedure::RackTlp, 6.0);
    assert_eq!(b.sent(), SenderHarness::data(0..6));
    b.reply(1, &[], 0, 200 * MS);
    assert_eq!(b.sent(), vec![new_data(6), new_data(7)]);
    // 2, 3, 4 SACKed: DupThresh SACKed before any reordering, so the reordering window is 0 and
    // 1, sent before 4, is lost at once. cwnd 7 -> 3.5; pipe 7 - 3 SACKed - 1 lost = 3: wait.
    b.reply(1, &[(2, 5)], 4, 201 * MS);
    assert!(b.in_recovery());
    assert_eq!(b.sent(), vec![]);
    b.reply(1, &[(2, 6)], 5, 202 * MS);
    assert_eq!(b.sent(), vec![rtx(1)]);
    b.reply(1, &[(2, 7)], 6, 300 * MS);
    b.reply(1, &[(2, 8)], 7, 301 * MS);
    assert_eq!(b.sent(), vec![new_data(8), new_data(9)]);
    // The retransmission (202 ms) is lost. 8 left at 300 ms and is SACKed at 400 ms:
    // RACK.rtt = 100 ms, and 202 + 100 <= 400.
    b.reply(1, &[(2, 9)], 8, 400 * MS);
    assert_eq!(b.sent()[0], rtx(1));
    let stats = b.sender.stats;
    assert_eq!((stats.retransmits, stats.fast_retransmits, stats.timeouts), (2, 1, 0));
    assert!(b.sender.retransmit_timer.rto_deadline() > Some(400 * MS));
    b.reply(10, &[], 1, 500 * MS);
    assert!(!b.in_recovery());
}

/// The same reordering script, run by `recovery`: segment 2 arrives 10 ms late (after 3), then
/// segment 4 arrives 10 ms late, after 5, 6 and 7. Returns the sender after the three SACKs of
/// the second reordering, and after the late segment's ACK.
fn reordered_twice(recovery: RecoveryProcedure) -> (SenderHarness, bool) {
    let mut b = sender(recovery, 10.0);
    b.reply(2, &[], 1, 200 * MS);
    b.reply(2, &[(3, 4)], 3, 201 * MS);
    b.reply(4, &[], 2, 210 * MS);
    for (i, seq) in (5..8).enumerate() {
        b.reply(4, &[(5, seq + 1)], seq, (211 + i as Time) * MS);
    }
    let in_recovery_after_three_sacks = b.in_recovery();
    b.reply(8, &[], 4, 220 * MS);
    (b, in_recovery_after_three_sacks)
}

/// RFC 8985 section 6.2 steps 3-5: a segment SACKed above a hole starts the reordering window
/// (min_rtt / 4 = 25 ms, no reordering seen yet and fewer than DupThresh SACKed): the timer waits
/// until 100 + RACK.rtt 101 + 25 = 226 ms for segment 2, which arrives at 210 ms, within it, and
/// is not resent. Delivered below RACK.fack without a retransmission, it shows reordering: from
/// then on the window stays open even with DupThresh segments SACKed above a hole, so the
/// second late segment is not taken for lost either, where SACK recovery (RFC 6675's DupThresh
/// rule) starts a recovery and halves its window.
#[test]
fn reordering_within_the_window_is_not_taken_for_loss() {
    let mut b = sender(RecoveryProcedure::RackTlp, 10.0);
    b.reply(2, &[], 1, 200 * MS);
    b.reply(2, &[(3, 4)], 3, 201 * MS);
    assert_eq!(timer(&b), (Some(TimerDuty::Reordering), Some(226 * MS)));
    b.reply(4, &[], 2, 210 * MS);
    assert_ne!(b.sender.retransmit_timer.duty(), Some(TimerDuty::Reordering));
    assert!(b.sender.recovery_state().rack_tlp().unwrap().reordering_seen());

    let (rack, rack_in_recovery) = reordered_twice(RecoveryProcedure::RackTlp);
    assert!(!rack_in_recovery);
    assert_eq!((rack.sender.stats.retransmits, rack.sender.stats.window_cuts), (0, 0), "nothing resent");

    let (sack, sack_in_recovery) = reordered_twice(RecoveryProcedure::Sack);
    assert!(sack_in_recovery);
    assert_eq!((sack.sender.stats.fast_retransmits, sack.sender.stats.window_cuts), (1, 1), "a reduction for nothing");
}

/// RFC 8985 section 6.2 step 5 (the reordering timer): segment 1 is lost; 2 and 3 are SACKed
/// at 200 and 201 ms, and then nothing arrives for a while. RACK waits out the reordering
/// window (25 ms) on its timer and marks 1 lost at 100 + RACK.rtt 101 + 25 = 226 ms, long before
/// the RTO (500 ms): recovery starts there. As in SACK recovery without PRR, the retransmission
/// waits for `pipe` (5 outstanding - 2 SACKed - 1 lost = 2, cwnd 2.5) to fall: the next SACK
/// lets it out.
#[test]
fn the_reordering_timer_marks_a_loss_when_no_further_ack_arrives() {
    let mut b = sender(RecoveryProcedure::RackTlp, 4.0);
    b.reply(1, &[], 0, 200 * MS);
    assert_eq!(b.sent(), SenderHarness::data(0..6));
    b.reply(1, &[(2, 3)], 2, 200 * MS);
    b.reply(1, &[(2, 4)], 3, 201 * MS);
    assert_eq!(timer(&b), (Some(TimerDuty::Reordering), Some(226 * MS)));
    assert_eq!(b.sender.retransmit_timer.rto_deadline(), Some(500 * MS));
    assert_eq!(b.fire_timer(), TimerDuty::Reordering);
    assert!(b.in_recovery());
    assert_eq!((b.cwnd(), b.sent()), (2.5, vec![]));
    assert_eq!(timer(&b).0, Some(TimerDuty::Retransmission), "no probe in recovery");
    b.reply(1, &[(2, 5)], 4, 300 * MS);
    assert_eq!(b.sent(), vec![rtx(1)]);
    assert_eq!((b.sender.stats.timeouts, b.sender.stats.fast_retransmits), (0, 1));
}

/// RFC 8985 section 7.4.2 (Linux `tcp_process_tlp_ack`), on the probe's own state: a probe that
/// resent segment 5 (end 6). With DSACK, an ACK of exactly 6 waits; a DSACK of 5 then ends the
/// episode without a loss, and a later ACK beyond 6 calls for nothing. Without the DSACK the ACK
/// beyond 6 is the repaired loss. Without `dsack` at all, the ACK of 6 already is.
#[test]
fn a_retransmitted_probe_waits_for_its_dsack() {
    use super::RackTlp;
    use crate::tcp::recovery::prr::PrrMode;
    let probe = |dsack: bool| {
        let mut p = RackTlp::new(3, PrrMode::Off).with_dsack(dsack);
        p.on_probe_sent(6, true);
        p
    };
    let mut spurious = probe(true);
    assert!(!spurious.on_cumulative_ack(6));
    spurious.on_dsack((5, 6), 6, 6);
    assert!(spurious.may_schedule_probe());
    assert!(!spurious.on_cumulative_ack(8));
    let mut repaired = probe(true);
    assert!(!repaired.on_cumulative_ack(6));
    assert!(repaired.on_cumulative_ack(7));
    assert!(probe(false).on_cumulative_ack(6));
}
