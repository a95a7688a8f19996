//! F-RTO (RFC 5682, the SACK-enhanced algorithm of section 3, as Linux's `tcp_frto` = 2; the
//! stack's `frto`, SACK-based recovery only): after a retransmission timeout the sender finds
//! out from the next ACKs whether the timeout was spurious (the data it took for lost was only
//! delayed) and, if so, undoes the reduction.
//!
//! The timeout retransmits the first unacknowledged segment as always (step 1). Then, ACK by ACK
//! (Linux `tcp_process_loss`), until the data outstanding at the timeout is acknowledged:
//! - an ACK that newly acknowledges (cumulatively or by SACK) a segment that was never
//!   retransmitted shows that data sent before the timeout was not lost: the timeout was
//!   spurious (step 3b). The reduction is undone as a DSACK-proven one is (`undo.rs`: cwnd by
//!   the algorithm's `undo_cwnd`, ssthresh back), nothing more is taken for lost, the loss state
//!   ends (RFC 5682's response, as Linux's `tcp_try_undo_loss`);
//! - the first ACK that advances the cumulative ACK otherwise (step 2b) lets new data leave in
//!   its place of retransmissions (as much as the window allows, two segments after a timeout's
//!   window of one), if any is left and the receiver window has room; else F-RTO ends;
//! - after that, an ACK with SACK blocks or a duplicate ACK means the loss was real (step 3a):
//!   F-RTO ends and recovery goes on as without it (everything outstanding at the timeout and
//!   not SACKed is retransmitted).
//!
//! F-RTO runs after a timeout outside fast recovery, or after a further timeout (Linux: a first
//! timeout during fast recovery does not start it).

use super::Sender;
use crate::net::fabric::Fabric;
use crate::net::packet::{Packet, SackBlocks};
use crate::units::Time;

/// F-RTO after a timeout.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frto {
    /// Linux `high_seq`: SND.NXT at the timeout, then at step 2b; acknowledged, F-RTO is over.
    high_seq: u32,
    /// Step 2b has let new data out.
    new_data_sent: bool,
}

impl Sender {
    /// A duplicate ACK after a timeout, with F-RTO on: what its SACK blocks took out of `pipe`
    /// may be resent now (Linux sends on every ACK in its Loss state; without this the window
    /// F-RTO gave to new data would wait for the next timeout once the loss proves real).
    #[inline(never)]
    pub(super) fn undo_on_dupack(&mut self, now: Time, fab: &mut Fabric) {
        if self.undo.as_ref().is_some_and(|u| u.frto_on) && self.snd_una < self.recover {
            self.try_send(now, fab);
        }
    }

    /// A timeout is about to reduce the window (`in_fast_recovery`: it fires during a fast
    /// recovery): F-RTO starts, unless this is a first timeout in fast recovery.
    pub(super) fn frto_on_timeout(&mut self, in_fast_recovery: bool) -> Option<Frto> {
        self.recovery.set_new_data_only(false);
        (!in_fast_recovery || self.una_timeouts > 0).then_some(Frto { high_seq: self.snd_max, new_data_sent: false })
    }

    /// F-RTO's reading of the ACK `pkt` (blocks `sack`, a DSACK already taken off), before the
    /// sender applies it.
    pub(super) fn frto_on_ack(&mut self, pkt: &Packet, sack: &SackBlocks, now: Time) {
        let Some(mut f) = self.undo.as_mut().and_then(|u| u.frto.take()) else { return };
        self.recovery.set_new_data_only(false);
        if self.send_log.delivers_sent_once(pkt.seq, sack.iter(), f.high_seq) {
            // Step 3b: data sent before the timeout (or before step 2b) arrived, never
            // retransmitted: the timeout was spurious.
            if let Some(u) = &mut self.undo {
                u.spurious_timeouts += 1;
            }
            self.undo_loss(now);
            return;
        }
        let advanced = pkt.seq > self.snd_una;
        if f.new_data_sent {
            if sack.len > 0 || !advanced {
                return; // step 3a: the loss was real
            }
        } else if advanced && pkt.seq < f.high_seq {
            // Step 2b: new data in the place of retransmissions, if there is any to send.
            f = Frto { high_seq: self.snd_max, new_data_sent: true };
            let in_rwnd = f64::from(self.snd_nxt - pkt.seq) + 1.0 <= self.rwnd;
            if self.snd_nxt >= self.total_segs || !in_rwnd {
                return;
            }
            self.recovery.set_new_data_only(true);
        }
        if pkt.seq < f.high_seq {
            if let Some(u) = &mut self.undo {
                u.frto = Some(f);
            }
        }
    }
}

#[cfg(test)]
#[path = "frto_tests.rs"]
mod tests;
