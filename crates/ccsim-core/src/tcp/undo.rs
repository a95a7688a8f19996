//! Spurious reductions, detected and undone: the sender's part of DSACK (RFC 2883; the stack's
//! `dsack`) and of undo (the stack's `undo`), SACK-based recovery only. F-RTO (`frto`) keeps its
//! state here too and undoes through the same path (`frto.rs`).
//!
//! An ACK's first SACK block may report a duplicate segment rather than new data. RFC 3708
//! section 2 tells it apart: the block lies below the cumulative ACK, or within the second block.
//! Such a block is taken off the ACK before the scoreboard, the send records and RACK read its
//! blocks, so that it is never taken for new SACK information, and is counted.
//!
//! Undo (RFC 3708 DSACK-based detection, as Linux's `undo_marker` / `undo_retrans` and
//! `tcp_try_undo_dsack`): when a recovery episode starts (fast retransmit; a timeout outside loss
//! recovery) the sender remembers cwnd and ssthresh as they were (Linux `prior_cwnd`, and
//! `prior_ssthresh` = max(ssthresh, 3/4 cwnd)) and where the episode starts (SND.UNA), and counts
//! the episode's retransmissions. Each DSACK of a segment from the episode's start on shows one
//! of them unneeded: the receiver had the segment already. When every retransmission is shown
//! unneeded the reduction was spurious (reordering, not loss), and it is undone, during recovery
//! or after it, until the next episode: cwnd becomes what the algorithm's
//! [`crate::cc::CongestionControl::undo_cwnd`] says (Linux `tcp_reno_undo_cwnd`, max(cwnd, prior
//! cwnd), unless the algorithm has its own), ssthresh the prior one if larger, and a recovery in
//! progress ends. An ECN reduction forgets the episode: its window is not to be undone.
//!
//! With timestamps (`rtt_sampling = "every_ack"`) `undo` also detects a spurious reduction as
//! Eifel does (RFC 3522; Linux `tcp_packet_delayed` in `tcp_try_undo_partial`, `_recovery` and
//! `_loss`): an ACK that advances the cumulative ACK past every segment the episode retransmitted
//! while echoing a send time earlier than its first retransmission was triggered by an original
//! transmission, so nothing had been lost. That undoes the reduction at once, about a round trip
//! before the DSACK of the retransmission would. After a timeout the segments it marked lost are
//! then not lost either, and the loss state ends (as F-RTO's undo, `frto.rs`).

use super::frto::Frto;
use super::Sender;
use crate::cc::Window;
use crate::net::packet::{Packet, SackBlocks};
use crate::tcp::stack_settings::{RttSampling, StackConfig};
use crate::units::Time;

/// What the sender keeps for DSACK and undo.
#[derive(Clone, Debug, Default)]
pub(super) struct Undo {
    /// Undo a reduction once DSACKs show all its retransmissions unneeded (`undo` with `dsack`).
    on_dsack: bool,
    /// Undo a reduction when an ACK's timestamp shows the original arrived (`undo` with
    /// every-ACK timestamps: Eifel).
    eifel: bool,
    /// The reduction that may still be undone.
    episode: Option<Episode>,
    /// DSACK blocks received.
    pub dsacks: u64,
    /// Reductions undone.
    pub undos: u64,
    /// Run F-RTO after timeouts (`frto`).
    pub frto_on: bool,
    /// F-RTO in progress after a timeout (`frto.rs`).
    pub frto: Option<Frto>,
    /// Timeouts F-RTO found spurious.
    pub spurious_timeouts: u64,
    /// Reductions the timestamps (Eifel) found spurious.
    pub eifel_undos: u64,
}

/// A reduction and what is known of its retransmissions.
#[derive(Clone, Copy, Debug)]
struct Episode {
    /// SND.UNA when it began (Linux `undo_marker`): DSACKs below tell nothing of it.
    marker: u32,
    /// Retransmissions not yet shown unneeded by a DSACK (Linux `undo_retrans`).
    unproven: u32,
    /// Whether anything was retransmitted at all.
    retransmitted: bool,
    /// When the first retransmission left (Linux `retrans_stamp`), and the highest segment
    /// retransmitted.
    first_retransmission: Option<Time>,
    highest_retransmitted: u32,
    /// cwnd and ssthresh to come back to.
    prior: Window,
}

impl Undo {
    /// The sender's DSACK, undo and F-RTO state, when the stack asks for any of them.
    pub fn for_stack(stack: &StackConfig, uses_sack: bool) -> Option<Box<Undo>> {
        let on_dsack = stack.dsack && stack.undo;
        let eifel = stack.undo && stack.rtt_sampling == RttSampling::EveryAck;
        (uses_sack && (stack.dsack || stack.frto || stack.undo))
            .then(|| Box::new(Undo { on_dsack, eifel, frto_on: stack.frto, ..Default::default() }))
    }

    /// The counts, as `cc_dsacks` and `cc_undos` in the sampled series.
    pub fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("dsacks", self.dsacks as f64);
        out("undos", self.undos as f64);
        if self.frto_on {
            out("spurious_timeouts", self.spurious_timeouts as f64);
        }
    }

    /// A retransmission of `seq` left at `now`.
    #[inline]
    pub fn on_retransmit(&mut self, seq: u32, now: Time) {
        if let Some(e) = &mut self.episode {
            e.unproven += 1;
            e.retransmitted = true;
            e.first_retransmission.get_or_insert(now);
            e.highest_retransmitted = e.highest_retransmitted.max(seq);
        }
    }

    /// Eifel (RFC 3522 section 3.2): the ACK `pkt` advances the cumulative ACK past every
    /// retransmission of the episode and echoes a send time before the first of them.
    fn original_arrived(&self, pkt: &Packet, snd_una: u32) -> bool {
        let Some(e) = self.episode.filter(|_| self.eifel && pkt.seq > snd_una) else { return false };
        e.first_retransmission.is_some_and(|first| pkt.ts < first) && pkt.seq > e.highest_retransmitted
    }

    /// DSACK `block` arrived: whether the reduction is now proven spurious.
    fn on_dsack(&mut self, (start, end): (u32, u32)) -> bool {
        self.dsacks += 1;
        let Some(e) = &mut self.episode else { return false };
        if end > e.marker {
            e.unproven = e.unproven.saturating_sub(end - start.max(e.marker));
        }
        self.on_dsack && e.retransmitted && e.unproven == 0
    }
}

/// RFC 3708 section 2: the first block of `blocks`, on an ACK of cumulative ACK `ack`, is a DSACK
/// when it lies at or below the cumulative ACK, or within the second block.
pub(super) fn dsack_block(blocks: &SackBlocks, ack: u32) -> Option<(u32, u32)> {
    let mut it = blocks.iter();
    let first = it.next()?;
    let within_second = it.next().is_some_and(|(start, end)| start <= first.0 && first.1 <= end);
    (first.1 <= ack || within_second).then_some(first)
}

impl Sender {
    /// Every ACK, before it is applied (out of line: only with `dsack`, `undo` or `frto` on): a
    /// DSACK block is taken off (undoing the last reduction if it proves it spurious), the
    /// timestamp is read for Eifel's proof, then F-RTO reads the ACK if a timeout started it.
    #[inline(never)]
    pub(super) fn undo_on_ack(&mut self, pkt: &Packet, sack: &mut SackBlocks, now: Time) {
        self.take_dsack(pkt, sack, now);
        if self.undo.as_ref().is_some_and(|u| u.original_arrived(pkt, self.snd_una)) {
            if let Some(u) = &mut self.undo {
                u.eifel_undos += 1;
            }
            self.undo_loss(now);
        }
        if self.undo.as_ref().is_some_and(|u| u.frto.is_some()) {
            self.frto_on_ack(pkt, sack, now);
        }
    }

    /// Undo the last reduction; after a timeout what it marked lost is not, and the loss state
    /// ends (Linux `tcp_try_undo_loss`).
    pub(super) fn undo_loss(&mut self, now: Time) {
        let after_timeout = !self.in_recovery && self.snd_una < self.recover;
        self.undo_reduction(now);
        if after_timeout {
            self.recovery.unmark_timeout_losses();
            self.recover = self.recover.min(self.snd_una.saturating_sub(1));
            self.backoff = 1;
        }
    }

    /// Take a DSACK block off the ACK `pkt`'s blocks; undo the last reduction if the DSACK
    /// proves it spurious.
    fn take_dsack(&mut self, pkt: &Packet, sack: &mut SackBlocks, now: Time) {
        let Some(block) = dsack_block(sack, pkt.seq) else { return };
        let mut rest = SackBlocks::default();
        sack.iter().skip(1).for_each(|b| rest.push(b));
        *sack = rest;
        let (snd_una, snd_nxt) = (self.snd_una, self.snd_nxt);
        if let Some(p) = self.recovery.rack_tlp() {
            p.on_dsack(block, snd_una, snd_nxt);
        }
        if self.undo.as_mut().is_some_and(|u| u.on_dsack(block)) {
            self.undo_loss(now);
        }
    }

    /// A reduction is about to be made (`timeout`: by the retransmission timer): a new episode
    /// starts unless a timeout falls within one (Linux `tcp_init_undo`, and `tcp_enter_loss` only
    /// outside loss recovery).
    #[inline(never)]
    pub(super) fn undo_on_reduction(&mut self, timeout: bool) {
        let in_loss_recovery = self.in_recovery || self.snd_una < self.recover;
        let frto = match &self.undo {
            Some(u) if timeout && u.frto_on => self.frto_on_timeout(self.in_recovery),
            _ => None,
        };
        let (snd_una, w) = (self.snd_una, self.w);
        let Some(u) = &mut self.undo else { return };
        u.frto = frto;
        if timeout && in_loss_recovery {
            return;
        }
        let prior = Window { cwnd: w.cwnd, ssthresh: w.ssthresh.max(0.75 * w.cwnd) };
        u.episode = Some(Episode {
            marker: snd_una,
            unproven: 0,
            retransmitted: false,
            first_retransmission: None,
            highest_retransmitted: 0,
            prior,
        });
    }

    /// An ECN reduction: the episode before it is no longer undone.
    #[inline(never)]
    pub(super) fn undo_forget(&mut self) {
        if let Some(u) = &mut self.undo {
            u.episode = None;
        }
    }

    /// Linux `tcp_undo_cwnd_reduction`: the algorithm's cwnd, the prior ssthresh if larger (no
    /// CWR is then due), a recovery in progress ends, and a new one may start at once.
    fn undo_reduction(&mut self, now: Time) {
        let Some(u) = &mut self.undo else { return };
        u.frto = None;
        let Some(e) = u.episode.take() else { return };
        u.undos += 1;
        self.w.cwnd = self.cc.undo_cwnd(now, &self.w, e.prior.cwnd);
        if e.prior.ssthresh > self.w.ssthresh {
            self.w.ssthresh = e.prior.ssthresh;
            self.ecn.cwr_pending = false;
        }
        self.in_recovery = false;
        // The episode did not happen: its recovery point holds no further one back (Linux enters
        // recovery again from the Open or Disorder state the undo leaves it in).
        self.recover = self.recover.min(self.snd_una.saturating_sub(1));
    }
}

#[cfg(test)]
#[path = "undo_tests.rs"]
mod tests;
