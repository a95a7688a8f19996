//! DSACK at the sender as packet exchanges: the test plays the receiver (see
//! `recovery/sender_harness.rs`) and sends DSACK blocks as RFC 2883 section 4 has a receiver
//! send them.

use super::dsack_block;
use crate::cc::RecoveryProcedure;
use crate::net::packet::SackBlocks;
use crate::profile::Profile;
use crate::tcp::recovery::sender_harness::SenderHarness;

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
    let mut b = SenderHarness::new(RecoveryProcedure::Sack, Profile::Linux, |s| {
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
