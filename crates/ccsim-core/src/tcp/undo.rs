//! The sender's part of DSACK (RFC 2883; the stack's `dsack`): an ACK's first SACK block may
//! report a duplicate segment rather than new data. RFC 3708 section 2 tells it apart: the block
//! lies below the cumulative ACK, or within the second block. Such a block is taken off the ACK
//! before the scoreboard, the send records and RACK read its blocks, so that it is never taken
//! for new SACK information, and is counted.

use super::Sender;
use crate::net::packet::{Packet, SackBlocks};

/// What the sender keeps for DSACK.
#[derive(Clone, Debug, Default)]
pub(super) struct Undo {
    /// DSACK blocks received.
    pub dsacks: u64,
}

/// RFC 3708 section 2: the first block of `blocks`, on an ACK of cumulative ACK `ack`, is a DSACK
/// when it lies at or below the cumulative ACK, or within the second block.
pub(super) fn dsack_block(blocks: &SackBlocks, ack: u32) -> Option<(u32, u32)> {
    let mut it = blocks.iter();
    let first = it.next()?;
    let within_second = it.next().is_some_and(|(start, end)| start <= first.0 && first.1 <= end);
    (first.1 <= ack || within_second).then_some(first)
}

impl Undo {
    /// The counts, as `cc_dsacks` in the sampled series.
    pub fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("dsacks", self.dsacks as f64);
    }
}

impl Sender {
    /// Take a DSACK block off the ACK `pkt`'s blocks (out of line: only with `dsack` on).
    #[inline(never)]
    pub(super) fn take_dsack(&mut self, pkt: &Packet, sack: &mut SackBlocks) -> Option<(u32, u32)> {
        let block = dsack_block(sack, pkt.seq)?;
        let mut rest = SackBlocks::default();
        sack.iter().skip(1).for_each(|b| rest.push(b));
        *sack = rest;
        if let Some(u) = &mut self.undo {
            u.dsacks += 1;
        }
        Some(block)
    }
}

#[cfg(test)]
#[path = "undo_tests.rs"]
mod tests;
