//! F-RTO as packet exchanges: the test plays the receiver over a 100 ms round trip (ACKs at
//! given times, each echoing the segment that triggered it), Linux profile with SACK recovery, no
//! delayed ACKs, Reno's window; the first window of 10 leaves at 100 ms, after the handshake.

use crate::cc::RecoveryProcedure;
use crate::net::packet::PacketKind;
use crate::profile::Profile;
use crate::tcp::recovery::sender_harness::{new_data, rtx, SenderHarness, MS};
use crate::tcp::retransmit_timer::TimerDuty;

fn sender(frto: bool) -> SenderHarness {
    let mut b = SenderHarness::new(RecoveryProcedure::Sack, Profile::LinuxSack, |s| {
        s.delayed_ack = false;
        s.frto = frto;
    });
    b.start_with_rtt(100 * MS);
    assert_eq!(b.sent(), SenderHarness::data(0..10));
    b
}

fn retransmissions_of(sent: &[(PacketKind, u32)], below: u32) -> Vec<u32> {
    sent.iter().filter(|p| p.1 < below).map(|p| p.1).collect()
}

/// RFC 5682 section 3.1, steps 1, 2b and 3b: nothing is lost, but every ACK of the first window
/// is held up on its way back past the retransmission timeout (due at 400 ms: SRTT 100 ms plus
/// the 200 ms minimum). The timeout retransmits segment 0 and the window falls to 1. ACK 1 then
/// arrives (for the original 0, or its retransmission: it cannot tell) and advances the
/// cumulative ACK: step 2b sends new data, 10 and 11, where conventional recovery would resend 1
/// and 2. ACK 2 acknowledges segment 1, which was never retransmitted: the timeout was spurious
/// (step 3b); the reduction is undone (cwnd back to 10, ssthresh back to the prior one,
/// infinite in slow start, as Linux's `tcp_try_undo_loss`), and no other segment is resent.
#[test]
fn a_spurious_timeout_is_detected_and_undone() {
    let mut b = sender(true);
    let before = b.sender.w;
    assert_eq!(b.fire_timer(), TimerDuty::Retransmission);
    assert_eq!((b.sent(), b.cwnd()), (vec![rtx(0)], 1.0));
    b.reply(1, &[], 0, 450 * MS);
    assert_eq!(b.sent(), vec![new_data(10), new_data(11)], "step 2b: new data, not 1 and 2");
    b.reply(2, &[], 1, 451 * MS);
    assert_eq!((b.cwnd(), b.ssthresh()), (before.cwnd + 1.0, f64::INFINITY), "undone, then slow start");
    for seq in 3..=10 {
        b.reply(seq, &[], seq - 1, (449 + seq as u64) * MS);
    }
    let sent = b.sent();
    assert!(retransmissions_of(&sent, 10).is_empty(), "{sent:?}");
    let u = b.sender.undo.as_ref().unwrap();
    assert_eq!((u.spurious_timeouts, u.undos), (1, 1));
    let stats = b.sender.stats;
    assert_eq!((stats.timeouts, stats.retransmits), (1, 1));

    // Without F-RTO the same ACKs bring retransmissions of data that was never lost.
    let mut plain = sender(false);
    plain.fire_timer();
    plain.sent();
    plain.reply(1, &[], 0, 450 * MS);
    assert_eq!(plain.sent(), vec![rtx(1), rtx(2)]);
    assert_eq!(plain.cwnd(), 2.0);
}

/// RFC 5682 section 3.1, steps 2b and 3a: a genuine timeout. Segments 0..4 are acknowledged
/// (cwnd 15: 10..19 leave), then 5..19 are all lost. The timeout resends 5; its ACK lets 20 and
/// 21 out (step 2b); they arrive and are SACKed above the hole at 6: the loss was real. F-RTO
/// ends without an undo, the window stays reduced, and the lost segments are resent from 6 on
/// as the SACKs take 20 and 21 out of `pipe`.
#[test]
fn a_genuine_timeout_stays_a_loss() {
    let mut b = sender(true);
    for seq in 1..=5 {
        b.reply(seq, &[], seq - 1, 200 * MS);
    }
    assert_eq!(b.sent(), SenderHarness::data(10..20));
    let before = b.sender.w;
    b.fire_timer();
    assert_eq!(b.sent(), vec![rtx(5)]);
    b.reply(6, &[], 5, b.now + 100 * MS);
    assert_eq!(b.sent(), vec![new_data(20), new_data(21)]);
    b.reply(6, &[(20, 21)], 20, b.now + 100 * MS);
    b.reply(6, &[(20, 22)], 21, b.now + MS);
    assert_eq!(b.sent(), vec![rtx(6), rtx(7)]);
    assert!(b.cwnd() < before.cwnd && b.ssthresh() < before.cwnd);
    let u = b.sender.undo.as_ref().unwrap();
    assert_eq!((u.spurious_timeouts, u.frto.is_none()), (0, true));
}
