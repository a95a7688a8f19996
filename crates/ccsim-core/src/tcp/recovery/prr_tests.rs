//! PRR as packet exchanges: the test plays a SACK receiver and reads what the sender sends on
//! each ACK. Linux profile without delayed ACKs, Reno's window (cwnd 20 halved to ssthresh 10):
//! an initial window of 19 after the handshake, and the ACK of segment 0 takes cwnd to 20 and
//! sends 19 and 20, so that segments 1..21 are in flight (a loss of the very first segment starts
//! no recovery: SND.UNA must pass the recovery point, 0). The setting of RFC 6937 section 3.1's
//! examples, which RFC 9937 keeps, except that ccsim has no limited transmit (RFC 3042): the
//! first two duplicate ACKs send nothing, so 20 segments are outstanding, not 22, when the third
//! starts recovery, and RecoverFS is 18, not 20.

use std::ops::RangeInclusive;

use super::super::sender_harness::{new_data, rtx, SenderHarness};
use super::PrrMode;
use crate::cc::RecoveryProcedure;
use crate::net::packet::PacketKind;
use crate::profile::Profile;

fn window_of_twenty(recovery: RecoveryProcedure, prr: PrrMode) -> SenderHarness {
    let mut b = SenderHarness::new(recovery, Profile::LinuxSack, |s| {
        s.delayed_ack = false;
        s.initial_window = 19.0;
        s.prr = prr;
    });
    b.handshake();
    assert_eq!(b.sent(), SenderHarness::data(0..19));
    b.ack(1);
    assert_eq!((b.sent(), b.cwnd()), (SenderHarness::data(19..21), 20.0));
    b
}

/// The receiver gets segments `arrive`, those from `first` on (1..first lost); one ACK each,
/// SACKing [first, seq + 1). Returns what each ACK sent.
fn sack_each(b: &mut SenderHarness, first: u32, arrive: RangeInclusive<u32>) -> Vec<Vec<(PacketKind, u32)>> {
    arrive
        .map(|seq| {
            b.ack_sack(1, &[(first, seq + 1)]);
            b.sent()
        })
        .collect()
}

/// RFC 9937 section 6.2 (the proportional part while `pipe` > ssthresh) and section 6.4: segment
/// 1 is lost. The SACK of segment 4 starts recovery with RecoverFS 18 (20 outstanding, 2 SACKed
/// before it) and `pipe` 16: CEIL(1 x 10 / 18) = 1, the retransmission, at once. Then, by hand:
///
/// ```text
/// ACK of           4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20
/// prr_delivered    1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17
/// pipe            16 16 16 15 15 14 14 13 13 12 12 12 11 11 10  9  9
/// CEIL(d x 10/18)  1  2  2  3  3  4  4  5  5  6  7  7  8  8  .  .  .
/// sent             R  N  .  N  .  N  .  N  .  N  N  .  N  .  .  N  N
/// ```
///
/// 10 segments for each 18 delivered while `pipe` is above ssthresh; at the ACK of segment 18
/// `pipe` reaches ssthresh, and from then on one leaves per one delivered. The retransmission's
/// ACK ends recovery with cwnd = ssthresh.
///
/// Without PRR (RFC 6675) cwnd is 10 at once: nothing leaves, not even the retransmission, until
/// `pipe` has fallen below 10 seven ACKs later; then one segment per ACK.
#[test]
fn prr_sends_in_proportion_to_what_is_delivered_and_ends_at_ssthresh() {
    let mut b = window_of_twenty(RecoveryProcedure::Sack, PrrMode::Rfc9937);
    assert_eq!(sack_each(&mut b, 2, 2..=3), [vec![], vec![]]);
    let sends = sack_each(&mut b, 2, 4..=20);
    assert!(b.in_recovery());
    assert_eq!(b.ssthresh(), 10.0);
    let counts: Vec<usize> = sends.iter().map(Vec::len).collect();
    assert_eq!(counts, [1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1]);
    let sent: Vec<_> = sends.concat();
    let expected: Vec<_> = std::iter::once(rtx(1)).chain((21..30).map(new_data)).collect();
    assert_eq!(sent, expected);
    // The retransmission of 1 arrives: everything below 21, the recovery point, is acknowledged.
    b.ack(21);
    assert!(!b.in_recovery());
    assert_eq!(b.cwnd(), b.ssthresh(), "RFC 9937 section 6.4: cwnd = ssthresh");

    let mut off = window_of_twenty(RecoveryProcedure::Sack, PrrMode::Off);
    sack_each(&mut off, 2, 2..=3);
    let sends = sack_each(&mut off, 2, 4..=20);
    let first_send = sends.iter().position(|s| !s.is_empty()).unwrap();
    assert_eq!((first_send, &sends[first_send]), (7, &vec![rtx(1)]), "the ACK of segment 11");
    assert!(sends[first_send..].iter().all(|s| s.len() == 1));
}

/// The burst of RFC 6937 section 3.1: segments 1-15 are lost. The SACK of segment 18 starts
/// recovery with `pipe` = 20 - 3 SACKed - 15 lost = 2, far below ssthresh 10, and the reduction
/// bound decides what each ACK sends (RFC 9937 section 6.2): PRR-CRB what was delivered, one
/// retransmission per ACK; PRR-SSRB one more, two per ACK; RFC 9937 CRB, as duplicate ACKs never
/// advance SND.UNA. Then the first retransmission arrives: an ACK of segment 1 that advances
/// SND.UNA and marks no further loss, a safe ACK, on which RFC 9937 sends SSRB's extra segment,
/// two. Without PRR, RFC 6675 sends eight retransmissions in one burst at the start.
#[test]
fn after_a_burst_of_losses_the_reduction_bound_decides() {
    let sends_of = |prr: PrrMode| {
        let mut b = window_of_twenty(RecoveryProcedure::Sack, prr);
        let sends = sack_each(&mut b, 16, 16..=20);
        assert!(b.in_recovery());
        let mut counts: Vec<usize> = sends.iter().map(Vec::len).collect();
        b.ack_sack(2, &[(16, 21)]);
        counts.push(b.sent().len());
        counts
    };
    assert_eq!(sends_of(PrrMode::Crb), [0, 0, 1, 1, 1, 1]);
    assert_eq!(sends_of(PrrMode::Ssrb), [0, 0, 2, 2, 2, 2]);
    assert_eq!(sends_of(PrrMode::Rfc9937), [0, 0, 1, 1, 1, 2]);
    assert_eq!(sends_of(PrrMode::Off), [0, 0, 8, 1, 1, 1]);
}

/// RFC 9937 section 6.2, "Force a fast retransmit upon entering recovery", for a recovery that
/// RACK's reordering timer starts, with no ACK (counted as one segment delivered, as Linux does):
/// the script of RACK-TLP's reordering-timer test. Segment 1 is lost; 2 and 3 are SACKed, and at
/// 226 ms the timer marks 1 lost. `pipe` = 5 - 2 SACKed - 1 lost = 2 is below ssthresh 2.5, so the
/// bound gives no room (floor(2.5 - 2) = 0), but nothing has left in the episode yet: the
/// retransmission leaves at once, where without PRR it waits for the next SACK.
#[test]
fn the_first_retransmission_leaves_at_once_when_a_timer_starts_recovery() {
    use super::super::sender_harness::MS;
    use crate::tcp::retransmit_timer::TimerDuty;
    for (prr, at_once) in [(PrrMode::Rfc9937, vec![rtx(1)]), (PrrMode::Off, vec![])] {
        let mut b = SenderHarness::new(RecoveryProcedure::RackTlp, Profile::LinuxSack, |s| {
            s.delayed_ack = false;
            s.initial_window = 4.0;
            s.prr = prr;
        });
        b.start_with_rtt(100 * MS);
        b.reply(1, &[], 0, 200 * MS);
        assert_eq!(b.sent(), SenderHarness::data(0..6));
        b.reply(1, &[(2, 3)], 2, 200 * MS);
        b.reply(1, &[(2, 4)], 3, 201 * MS);
        assert_eq!(b.fire_timer(), TimerDuty::Reordering);
        assert!(b.in_recovery());
        assert_eq!((b.ssthresh(), b.sent()), (2.5, at_once), "{prr:?}");
    }
}
