//! DSACK at the sender as packet exchanges: the test plays the receiver (see
//! `recovery/sender_harness.rs`) and sends DSACK blocks as RFC 2883 section 4 has a receiver
//! send them.

use super::dsack_block;
use crate::cc::RecoveryProcedure;
use crate::net::packet::{Packet, SackBlocks};
use crate::profile::Profile;
use crate::tcp::recovery::sender_harness::{SenderHarness, MS};

fn blocks(list: &[(u32, u32)]) -> SackBlocks {
    let mut b = SackBlocks::default();
    list.iter().for_each(|&x| b.push(x));
    b
}

/// RFC 3708 section 2 (RFC 2883 section 4): the first block is a DSACK when it lies below the
/// cumulative ACK or within the second block; a first block above the cumulative ACK and outside
/// the second is ordinary SACK information.
#[test]
fn a_dsack_block_is_told_from_sack_information() {
    assert_eq!(dsack_block(&blocks(&[(1, 2)]), 2), Some((1, 2)));
    assert_eq!(dsack_block(&blocks(&[(3, 4), (3, 5), (6, 7)]), 2), Some((3, 4)));
    assert_eq!(dsack_block(&blocks(&[(6, 7), (3, 5)]), 2), None);
    assert_eq!(dsack_block(&blocks(&[(3, 5)]), 2), None);
    assert_eq!(dsack_block(&blocks(&[]), 2), None);
}

/// A sender with `dsack` on, Linux profile with SACK recovery, no delayed ACKs: the initial
/// window of 10 leaves after the handshake.
fn dsack_sender(tweak: impl FnOnce(&mut crate::tcp::stack_settings::StackConfig)) -> SenderHarness {
    let mut b = SenderHarness::new(RecoveryProcedure::Sack, Profile::LinuxSack, |s| {
        s.delayed_ack = false;
        s.dsack = true;
        tweak(s);
    });
    b.handshake();
    assert_eq!(b.sent(), SenderHarness::data(0..10));
    b
}

/// RFC 2883 section 4 / RFC 3708 section 2: a DSACK within SACKed data is not new SACK
/// information, nor is one below the cumulative ACK. One segment SACKed above a hole, then a
/// DSACK of it: `pipe` still counts one SACKed segment; the DSACKs are counted.
#[test]
fn a_dsack_is_not_taken_for_new_sack_information() {
    let mut b = dsack_sender(|_| {});
    b.ack(1);
    assert_eq!(b.sent(), SenderHarness::data(10..12));
    b.ack_sack(1, &[(2, 3)]);
    assert_eq!(b.sender.flight(), 11 - 1);
    b.ack_sack(1, &[(2, 3), (2, 3)]);
    assert_eq!(b.sender.flight(), 11 - 1);
    b.ack_sack(3, &[(0, 1)]);
    assert_eq!(b.sender.flight(), b.sender.snd_max - 3, "nothing SACKed above the cumulative ACK");
    assert!(!b.in_recovery());
    assert_eq!(b.sender.undo.as_ref().unwrap().dsacks, 2);
}

/// The same spurious fast retransmit, as the receiver sees it: segment 1 is held back, 2..8
/// arrive first (SACKed: three SACKed above 1 make it lost, RFC 6675 section 5), 1 is
/// retransmitted once `pipe` allows, then the original 1 arrives (ACK 8) and the retransmission
/// after it: the receiver reports it in a DSACK block below the cumulative ACK (RFC 2883 section
/// 4.1.1). Without timestamps (one timed segment per RTT), so that only the DSACK can tell.
/// Returns the sender after the DSACK, with the window it had before the episode.
fn spurious_fast_retransmit(cc: &str, undo: bool) -> (SenderHarness, crate::cc::Window) {
    let mut b = SenderHarness::with_cc(cc, RecoveryProcedure::Sack, Profile::LinuxSack, |s| {
        s.delayed_ack = false;
        s.dsack = true;
        s.undo = undo;
        s.rtt_sampling = crate::tcp::stack_settings::RttSampling::OnePerRtt;
    });
    b.handshake();
    b.ack(1);
    assert_eq!(b.sent(), SenderHarness::data(0..12));
    let before = b.sender.w;
    b.ack_sack(1, &[(2, 3)]);
    b.ack_sack(1, &[(2, 4)]);
    b.ack_sack(1, &[(2, 5)]);
    assert!(b.in_recovery());
    assert!(b.cwnd() < before.cwnd);
    for end in 6..=8 {
        b.ack_sack(1, &[(2, end)]);
    }
    assert_eq!(b.sender.stats.retransmits, 1);
    assert!(b.sent().contains(&(crate::net::packet::PacketKind::Data, 1)));
    b.ack(8);
    assert!(b.in_recovery(), "a partial ACK: 8..12 and new data outstanding");
    b.ack_sack(8, &[(1, 2)]);
    (b, before)
}

/// RFC 3708 section 3 (and Linux `tcp_try_undo_dsack`): the one retransmission of the episode is
/// reported duplicate, so the fast retransmit was spurious: recovery ends, cwnd is back to its
/// value before the episode (Reno's undo: max(cwnd, prior cwnd)) and ssthresh to the prior one,
/// infinite here (the flow was in slow start; Linux's prior ssthresh is max(ssthresh, 3/4 cwnd)).
/// Without `undo` the DSACK is counted and nothing else changes.
#[test]
fn a_fast_retransmit_proven_spurious_by_dsack_is_undone() {
    let (b, before) = spurious_fast_retransmit("newreno", true);
    assert!(!b.in_recovery());
    assert_eq!((b.cwnd(), b.ssthresh()), (before.cwnd, f64::INFINITY));
    let u = b.sender.undo.as_ref().unwrap();
    assert_eq!((u.dsacks, u.undos), (1, 1));
    assert_eq!(b.sender.stats.window_cuts, 1, "the cut happened; it is undone, not uncounted");

    let (kept, _) = spurious_fast_retransmit("newreno", false);
    assert!(kept.in_recovery());
    assert!(kept.cwnd() < before.cwnd);
    let u = kept.sender.undo.as_ref().unwrap();
    assert_eq!((u.dsacks, u.undos), (1, 0));
}

/// RFC 3708 section 3: the undo needs every retransmission of the episode reported duplicate.
/// Two segments are retransmitted (1 held back, 2 really lost); only 1 comes back in a DSACK:
/// the reduction stands. A DSACK of a segment below the episode's start tells nothing of it.
#[test]
fn a_reduction_with_one_needed_retransmission_is_not_undone() {
    let mut b = dsack_sender(|s| s.undo = true);
    b.ack(1);
    b.sent();
    for end in 4..=9 {
        b.ack_sack(1, &[(3, end)]);
    }
    assert!(b.in_recovery());
    assert_eq!(b.sender.stats.retransmits, 2, "1 and 2");
    b.ack_sack(2, &[(3, 9)]);
    b.ack_sack(2, &[(1, 2), (3, 9)]);
    b.ack_sack(2, &[(0, 1), (3, 9)]);
    let u = b.sender.undo.as_ref().unwrap();
    assert_eq!((u.dsacks, u.undos), (2, 0));
    assert!(b.in_recovery());
}

/// The undo calls the algorithm's hook: H-TCP (Linux `htcp_cwnd_undo`) restores its own state
/// (tested in `cc::htcp`) and cwnd as Reno's undo; the spurious episode above ends with H-TCP's
/// window back where it was, and ssthresh back to the prior one.
#[test]
fn htcp_undoes_through_its_own_hook() {
    let (b, before) = spurious_fast_retransmit("htcp", true);
    assert!(!b.in_recovery());
    assert_eq!((b.cwnd(), b.ssthresh()), (before.cwnd, f64::INFINITY));
    assert_eq!(b.sender.undo.as_ref().unwrap().undos, 1);
}

/// RFC 8985 section 6.2 step 4 through the sender: under RACK-TLP with `dsack`, a DSACK (here
/// of segment 0, below the cumulative ACK) multiplies RACK's reordering window by two.
#[test]
fn a_dsack_widens_racks_reordering_window() {
    let mut b = SenderHarness::new(RecoveryProcedure::RackTlp, Profile::LinuxSack, |s| {
        s.delayed_ack = false;
        s.dsack = true;
    });
    b.handshake();
    b.ack(2);
    assert_eq!(b.sender.recovery_state().rack_tlp().unwrap().reo_wnd_mult(), 1);
    b.ack_sack(2, &[(0, 1)]);
    assert_eq!(b.sender.recovery_state().rack_tlp().unwrap().reo_wnd_mult(), 2);
}

/// RFC 3522 section 3.2 (Eifel, Linux `tcp_packet_delayed` in `tcp_try_undo_partial`): with
/// timestamps, the ACK that the held-back original 1 triggers echoes its send time, earlier than
/// the retransmission's, and covers the one segment retransmitted: the fast retransmit was
/// spurious, undone on that ACK without waiting for the DSACK. When instead the retransmission
/// fills the hole (its send time echoed), the reduction stands.
#[test]
fn timestamps_show_a_spurious_fast_retransmit_before_the_dsack() {
    let episode = |echo_original: bool| {
        let mut b = SenderHarness::new(RecoveryProcedure::Sack, Profile::LinuxSack, |s| {
            s.delayed_ack = false;
            s.undo = true;
        });
        b.start_with_rtt(100 * MS);
        b.reply(1, &[], 0, 200 * MS);
        let before = b.sender.w;
        for end in 3..=8 {
            b.reply(1, &[(2, end)], end - 1, 200 * MS + u64::from(end) * MS);
        }
        assert!(b.in_recovery() && b.sender.stats.retransmits == 1);
        let original_sent = 100 * MS;
        let ts = if echo_original { original_sent } else { b.last_sent_at(1) };
        let ack = Packet { ts, ..b.ack_packet(8, &[], 0) };
        b.now = 260 * MS;
        b.sender.on_ack(&ack, b.now, &mut b.fab);
        (b, before)
    };
    let (b, before) = episode(true);
    assert!(!b.in_recovery());
    // Undone before the ACK is applied: then slow start adds its 7 segments.
    assert_eq!((b.cwnd(), b.ssthresh()), (before.cwnd + 7.0, f64::INFINITY));
    assert_eq!(b.sender.undo.as_ref().unwrap().eifel_undos, 1);
    let (kept, before) = episode(false);
    assert!(kept.in_recovery() && kept.cwnd() < before.cwnd);
    assert_eq!(kept.sender.undo.as_ref().unwrap().eifel_undos, 0);
}
