//! The sender on its own, as packet exchanges: what leaves after each ACK or timer, with the
//! network reduced to one fast link whose contents the test reads.

use super::*;
use crate::profile::Profile;
use crate::tcp::recovery::sender_harness::{SenderHarness, MS};

#[test]
fn ns2_opens_without_a_handshake_and_slow_start_sends_two_per_ack() {
    let mut b = SenderHarness::for_cc("reno", Profile::Ns2, |_| {});
    b.sender.start(0, &mut b.fab);
    assert_eq!(b.sent(), SenderHarness::data(0..2), "the initial window of 2 leaves at once");
    b.ack_at(1, 10 * MS);
    assert_eq!(b.sent(), SenderHarness::data(2..4), "cwnd 3, one in flight: two more");
    b.ack_at(2, 11 * MS);
    assert_eq!(b.sent(), SenderHarness::data(4..6));
    assert_eq!(b.sender.w.cwnd, 4.0);
}

#[test]
fn with_a_handshake_data_waits_for_the_syn_ack() {
    let mut b = SenderHarness::for_cc("reno", Profile::LinuxSack, |_| {});
    b.sender.start(0, &mut b.fab);
    assert_eq!(b.sent(), vec![(PacketKind::Syn, 0)]);
    let syn_ack = Packet { kind: PacketKind::SynAck, ..b.ack_packet(0, &[], 0) };
    b.sender.on_ack(&syn_ack, 2 * MS, &mut b.fab);
    assert_eq!(b.sent(), SenderHarness::data(0..10), "Linux's initial window of 10");
}

#[test]
fn three_duplicate_acks_retransmit_the_hole_and_halve_the_window() {
    let mut b = SenderHarness::for_cc("newreno", Profile::Ns2, |_| {});
    b.sender.start(0, &mut b.fab);
    b.sent();
    for (i, ack) in (1..=6).enumerate() {
        b.ack_at(ack, (10 + i as Time) * MS);
    }
    let cwnd = b.sender.w.cwnd;
    assert_eq!(cwnd, 8.0);
    b.sent();
    // Segment 6 is lost: the next ACKs all say 6.
    b.ack_at(6, 20 * MS);
    b.ack_at(6, 20 * MS);
    assert!(b.sent().iter().all(|&(_, s)| s > 6), "two duplicates are not yet a loss");
    b.ack_at(6, 21 * MS);
    assert_eq!(b.sent().first(), Some(&(PacketKind::Data, 6)), "the third retransmits the hole");
    assert_eq!(b.sender.w.ssthresh, cwnd / 2.0);
    assert_eq!(b.sender.stats.fast_retransmits, 1);
}

#[test]
fn a_timeout_goes_back_to_the_first_unacknowledged_segment_with_one_segment() {
    let mut b = SenderHarness::for_cc("newreno", Profile::Ns2, |_| {});
    b.sender.start(0, &mut b.fab);
    b.ack_at(1, 10 * MS);
    b.sent();
    let at = b.sender.retransmit_timer.deadline().expect("armed");
    // Drain the event queue up to the deadline: the timer event fires there.
    while let Some((t, ev)) = b.fab.events.pop() {
        if let Event::Timer { kind: TimerKind::Retransmit, .. } = ev {
            b.sender.on_rto_timer(t, &mut b.fab);
            if t >= at {
                break;
            }
        }
    }
    assert_eq!(b.sent(), SenderHarness::data(1..2));
    assert_eq!((b.sender.w.cwnd, b.sender.stats.timeouts), (1.0, 1));
}

#[test]
fn send_overhead_holds_segments_in_order_until_their_release() {
    let mut b = SenderHarness::for_cc("reno", Profile::Ns2, |s| s.send_overhead_ns = 5 * MS);
    b.sender.start(0, &mut b.fab);
    assert!(b.sent().is_empty(), "held by the host");
    assert_eq!(b.sender.held_packets(), 2);
    assert_eq!(b.sender.stats.packets_sent, 2, "counted as sent when decided");
    while let Some((t, ev)) = b.fab.events.pop() {
        if let Event::Timer { kind: TimerKind::Release, .. } = ev {
            assert!(t <= 5 * MS);
            b.sender.on_release_timer(t, &mut b.fab);
        }
    }
    assert_eq!(b.sent(), SenderHarness::data(0..2));
    assert_eq!(b.sender.held_packets(), 0);
}
