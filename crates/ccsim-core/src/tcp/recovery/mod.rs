//! Loss recovery after fast retransmit, one module per procedure behind one enum,
//! [`LossRecovery`] (a flow's recovery as it runs: the procedure and its state):
//!
//! - [`reno`]: RFC 5681 fast recovery, left on the first ACK of new data;
//! - [`newreno`]: RFC 6582, left only when everything outstanding at its start is acknowledged,
//!   one hole retransmitted per partial ACK (with ns-2's variants where the profile says);
//! - [`sack`]: RFC 6675 conservative SACK-based recovery driven by a scoreboard
//!   ([`crate::tcp::sack::Scoreboard`]) and `pipe`;
//! - [`rack_tlp`]: RFC 8985, losses detected by send time ([`crate::tcp::rack`]) on the same
//!   scoreboard and `pipe`, and tail loss probes.
//!
//! The two SACK-based procedures may pace their sends by Proportional Rate Reduction ([`prr`],
//! RFC 9937; the stack's `prr`): each ACK in recovery then sets cwnd to `pipe` plus PRR's share.
//!
//! The sender owns what they all share: the duplicate-ACK count, the recovery point, whether
//! it is in recovery, the call into the congestion-control algorithm, the timer. A procedure owns
//! its own state (window inflation, the pending retransmission, the scoreboard) and answers the
//! sender's questions: how much is in flight, whether a loss is detected, what to send next, what
//! a new ACK in recovery means. An enum rather than a trait object: the sender asks on every ACK
//! and every transmission, and a match on four variants costs less than an indirect call.
//!
//! Which procedure a flow runs ([`RecoveryProcedure`], named in [`crate::cc`] so that algorithms
//! can name their customary one) is the stack's `recovery` setting
//! ([`crate::tcp::stack_settings::StackConfig::recovery_for`]), else its algorithm's customary one.

pub mod newreno;
pub mod prr;
pub mod rack_tlp;
pub mod reno;
pub mod sack;

use super::stack_settings::StackConfig;
use crate::cc::{RecoveryProcedure, Window};
use crate::units::Time;

/// The sequence-space state a procedure reads: segments, as the sender counts them.
#[derive(Clone, Copy, Debug)]
pub struct SeqState {
    pub snd_una: u32,
    pub snd_nxt: u32,
    pub snd_max: u32,
    /// One past the last segment of the transfer.
    pub total_segs: u32,
}

/// What the ACK at hand (or the timer that starts a recovery) tells PRR ([`prr`]).
#[derive(Clone, Copy, Debug)]
pub struct AckDelivery {
    /// Segments it delivered: cumulatively acknowledged or SACKed, and not SACKed before.
    pub delivered: u32,
    /// It advanced SND.UNA.
    pub una_advanced: bool,
    /// Segments the sender has sent so far (PRR's prr_out counts those of the episode).
    pub packets_sent: u64,
}

/// What a new ACK during recovery means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InRecovery {
    /// Recovery is over; the procedure has set cwnd for the way out.
    Exit,
    /// Recovery goes on; whether to restart the retransmission timer.
    Continue { restart_timer: bool },
}

/// One flow's loss recovery as it runs: the procedure the flow was given ([`RecoveryProcedure`]
/// names it) with that procedure's state. An explicit one-byte tag: the sender matches on it
/// several times per ACK, and a tag niched into the scoreboard's vectors costs more to read.
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum LossRecovery {
    Reno(reno::Reno),
    NewReno(newreno::NewReno),
    Sack(sack::Sack),
    /// Boxed: its state is larger than the others', and a flow's sender stays as small as before
    /// for every other procedure.
    RackTlp(Box<rack_tlp::RackTlp>),
}

impl LossRecovery {
    pub fn new(procedure: RecoveryProcedure, stack: &StackConfig) -> Self {
        match procedure {
            RecoveryProcedure::Reno => LossRecovery::Reno(reno::Reno::new(stack.dupack_threshold)),
            RecoveryProcedure::NewReno => LossRecovery::NewReno(newreno::NewReno::new(stack)),
            RecoveryProcedure::Sack => LossRecovery::Sack(sack::Sack::new(stack.dupack_threshold, stack.prr)),
            RecoveryProcedure::RackTlp => {
                let rack_tlp = rack_tlp::RackTlp::new(stack.dupack_threshold, stack.prr)
                    .with_dsack(stack.dsack)
                    .with_dupthresh_shortcut(stack.rack_dupthresh);
                LossRecovery::RackTlp(Box::new(rack_tlp))
            }
        }
    }

    /// For an algorithm that sets cwnd on every ACK
    /// ([`CongestionControl::sets_cwnd_on_every_ack`](crate::cc::CongestionControl::sets_cwnd_on_every_ack)):
    /// no window inflation and no PRR. The procedure still decides what to send and when
    /// recovery ends.
    pub fn leave_window_to_cc(&mut self) {
        match self {
            LossRecovery::Reno(p) => p.inflates = false,
            LossRecovery::NewReno(p) => p.reno.inflates = false,
            LossRecovery::Sack(p) => p.drop_prr(),
            LossRecovery::RackTlp(p) => p.drop_prr(),
        }
    }

    /// Segments the scoreboard has marked lost since the last call (SACK-based procedures; the
    /// sender counts the others' losses itself): the loss edge's advance over unSACKed segments,
    /// segments marked one by one (RACK) and retransmissions found lost again, each as Linux's
    /// `tcp_mark_skb_lost` counts them in `tp->lost`.
    #[inline]
    pub fn new_losses(&mut self, snd_una: u32) -> u64 {
        match self {
            LossRecovery::Sack(p) => p.new_losses(snd_una),
            LossRecovery::RackTlp(p) => p.new_losses(snd_una),
            _ => 0,
        }
    }

    pub fn procedure(&self) -> RecoveryProcedure {
        match self {
            LossRecovery::Reno(_) => RecoveryProcedure::Reno,
            LossRecovery::NewReno(_) => RecoveryProcedure::NewReno,
            LossRecovery::Sack(_) => RecoveryProcedure::Sack,
            LossRecovery::RackTlp(_) => RecoveryProcedure::RackTlp,
        }
    }

    /// Whether the receiver is asked for SACK blocks and the sender keeps send records for them.
    pub fn uses_sack(&self) -> bool {
        self.procedure().uses_sack()
    }

    /// The RACK-TLP state, when this is RACK-TLP: the sender runs its timers and probes.
    #[inline]
    pub fn rack_tlp(&mut self) -> Option<&mut rack_tlp::RackTlp> {
        match self {
            LossRecovery::RackTlp(p) => Some(p),
            _ => None,
        }
    }

    /// Segments presumed in the network: RFC 6675 `pipe` with SACK, else everything sent and not
    /// cumulatively acknowledged (after a timeout, since the go-back-N point).
    #[inline]
    pub fn flight(&self, s: &SeqState) -> u32 {
        match self {
            LossRecovery::Sack(p) => p.pipe(s),
            LossRecovery::RackTlp(p) => p.pipe(s),
            _ => s.snd_nxt - s.snd_una,
        }
    }

    /// Fast-recovery inflation added to cwnd (duplicate ACKs counted as segments that left).
    #[inline]
    pub fn inflation(&self) -> f64 {
        match self {
            LossRecovery::Reno(p) => p.inflation,
            LossRecovery::NewReno(p) => p.reno.inflation,
            LossRecovery::Sack(_) | LossRecovery::RackTlp(_) => 0.0,
        }
    }

    /// Every ACK first: the SACK blocks it carries (`ack` is its cumulative ACK, at least
    /// snd_una). Returns the segments newly SACKed (0 without SACK).
    #[inline]
    pub fn on_ack(&mut self, ack: u32, blocks: impl Iterator<Item = (u32, u32)>) -> u64 {
        match self {
            LossRecovery::Sack(p) => p.on_ack(ack, blocks),
            LossRecovery::RackTlp(p) => p.on_ack(ack, blocks),
            _ => 0,
        }
    }

    /// Outside recovery and past the last recovery point: whether the sender must enter
    /// recovery, given `dupacks` duplicate ACKs in a row (RACK-TLP: whether RACK marked a loss).
    #[inline(always)]
    pub fn detects_loss(&self, snd_una: u32, dupacks: u32) -> bool {
        match self {
            LossRecovery::Reno(p) => p.detects_loss(dupacks),
            LossRecovery::NewReno(p) => p.reno.detects_loss(dupacks),
            LossRecovery::Sack(p) => p.detects_loss(snd_una, dupacks),
            LossRecovery::RackTlp(p) => p.detects_loss(snd_una),
        }
    }

    /// Recovery starts with the first unacknowledged segment lost, on `ack` (a timer's: nothing
    /// delivered), after the algorithm's reduction (`w`). With PRR the episode starts and the
    /// ACK's share of the reduced window is set in `w`.
    pub fn on_enter(&mut self, s: &SeqState, ack: &AckDelivery, w: &mut Window) {
        match self {
            LossRecovery::Reno(p) => p.on_enter(),
            LossRecovery::NewReno(p) => p.on_enter(),
            LossRecovery::Sack(p) => p.on_enter(s, ack, w),
            LossRecovery::RackTlp(p) => p.on_enter(s, ack, w),
        }
    }

    /// An ACK during recovery, its losses marked, before the sender sends: with PRR, cwnd in `w`
    /// becomes `pipe` plus this ACK's share (RFC 9937 section 6.2); else nothing changes.
    #[inline]
    pub fn pace_recovery(&mut self, s: &SeqState, ack: &AckDelivery, w: &mut Window) {
        match self {
            LossRecovery::Sack(p) => p.pace_recovery(s, ack, w),
            LossRecovery::RackTlp(p) => p.pace_recovery(s, ack, w),
            _ => {}
        }
    }

    /// A duplicate ACK during recovery.
    #[inline]
    pub fn on_dupack_in_recovery(&mut self) {
        match self {
            LossRecovery::Reno(p) => p.on_dupack_in_recovery(),
            LossRecovery::NewReno(p) => p.reno.on_dupack_in_recovery(),
            LossRecovery::Sack(_) | LossRecovery::RackTlp(_) => {}
        }
    }

    /// An ACK advanced snd_una (already updated in `s`) by `newly` segments during recovery that
    /// began when `recover` was snd_max. On exit the procedure sets cwnd in `w`.
    pub fn on_new_ack_in_recovery(&mut self, s: &SeqState, newly: u32, recover: u32, w: &mut Window) -> InRecovery {
        match self {
            LossRecovery::Reno(p) => p.on_new_ack_in_recovery(w),
            LossRecovery::NewReno(p) => p.on_new_ack_in_recovery(s, newly, recover, w),
            LossRecovery::Sack(p) => p.on_new_ack_in_recovery(s.snd_una, recover, w),
            LossRecovery::RackTlp(p) => p.on_new_ack_in_recovery(s.snd_una, recover, w),
        }
    }

    /// The retransmission timer fired: recovery is abandoned. Without SACK the sender goes back
    /// to snd_una (`snd_nxt` is rewound); with it, everything unSACKed is presumed lost and resent
    /// first, SACKed data is not.
    pub fn on_timeout(&mut self, snd_una: u32, snd_max: u32, snd_nxt: &mut u32) {
        match self {
            LossRecovery::Reno(p) => p.on_timeout(snd_una, snd_nxt),
            LossRecovery::NewReno(p) => p.reno.on_timeout(snd_una, snd_nxt),
            LossRecovery::Sack(p) => p.on_timeout(snd_una, snd_max),
            LossRecovery::RackTlp(p) => p.on_timeout(snd_una, snd_max),
        }
    }

    /// F-RTO (RFC 5682 section 3.1 step 2b): send new data only (SACK-based procedures).
    pub fn set_new_data_only(&mut self, on: bool) {
        match self {
            LossRecovery::Sack(p) => p.set_new_data_only(on),
            LossRecovery::RackTlp(p) => p.set_new_data_only(on),
            _ => {}
        }
    }

    /// A timeout proved spurious: the segments it marked lost are not (SACK-based procedures).
    pub fn unmark_timeout_losses(&mut self) {
        match self {
            LossRecovery::Sack(p) => p.unmark_timeout_losses(),
            LossRecovery::RackTlp(p) => p.unmark_timeout_losses(),
            _ => {}
        }
    }

    /// The segment the window allows next, and whether it is a retransmission.
    #[inline(always)]
    pub fn next_segment(&mut self, s: &SeqState, cwnd: f64, rwnd: f64) -> Option<(u32, bool)> {
        match self {
            LossRecovery::Reno(p) => p.next_segment(s, cwnd, rwnd),
            LossRecovery::NewReno(p) => p.reno.next_segment(s, cwnd, rwnd),
            LossRecovery::Sack(p) => p.next_segment(s, cwnd, rwnd),
            LossRecovery::RackTlp(p) => p.next_segment(s, cwnd, rwnd),
        }
    }

    /// The segment `next_segment` offered (or a loss probe) leaves at `now`: advances `snd_nxt`
    /// when it was new data.
    #[inline(always)]
    pub fn on_send(&mut self, seq: u32, retransmission: bool, snd_nxt: &mut u32, now: Time) {
        match self {
            LossRecovery::Reno(p) => p.on_send(snd_nxt),
            LossRecovery::NewReno(p) => p.reno.on_send(snd_nxt),
            LossRecovery::Sack(p) => p.on_send(seq, retransmission, snd_nxt),
            LossRecovery::RackTlp(p) => p.on_send(seq, retransmission, snd_nxt, now),
        }
    }

    /// The transfer is complete: give large state back to the allocator.
    pub fn release(&mut self) {
        match self {
            LossRecovery::Sack(p) => p.release(),
            LossRecovery::RackTlp(p) => p.release(),
            _ => {}
        }
    }
}

#[cfg(test)]
pub(crate) mod sender_harness;
