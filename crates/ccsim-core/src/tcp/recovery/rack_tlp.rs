//! RACK-TLP loss recovery (RFC 8985), as Linux runs it by default: losses are detected by send
//! time ([`crate::tcp::rack`]), and a tail loss probe (TLP, section 7) makes the receiver
//! report a loss at the tail of a flight, which would otherwise wait for the retransmission
//! timeout because no later segment is delivered to show it.
//!
//! What to send is RFC 6675's, on the same scoreboard as [`super::sack`]: lost segments first
//! while cwnd - `pipe` >= 1, then new data (with PRR, the stack's `prr`, cwnd set on each ACK
//! in recovery as [`super::sack`] sets it). Only the loss marking differs: the scoreboard marks
//! nothing by counting SACKed segments; RACK marks each segment lost by time, lost
//! retransmissions included, and a timeout marks everything unSACKed as before. Recovery starts
//! when RACK marks a loss (Linux: `lost_out > 0`), one congestion event per episode, and ends
//! when the recovery point is acknowledged, with cwnd = ssthresh, as SACK recovery does. The
//! sender runs the parts that need its clock and timer (`sender_rack_tlp.rs`).
//!
//! The probe (sections 7.2-7.4): with data outstanding, outside loss recovery and no probe in
//! flight, a probe timeout (PTO) of 2 SRTT, plus the worst-case delayed ACK (200 ms) when one
//! segment is in flight, at most the time left to the RTO, 1 s before any RTT sample. When it
//! fires, one segment leaves whatever cwnd says: new data if any and the receiver window allows,
//! else the highest segment sent, again. An ACK covering the probe ends it; if the probe was a
//! retransmission it repaired a loss, unless both copies arrived: RFC 8985 tells the two apart
//! by a DSACK (section 7.4.2). ccsim's receivers send DSACKs only with the stack's `dsack`.
//! Without it every such ACK counts as a repaired loss and the algorithm reduces its window once
//! (conservative: a spurious probe costs a reduction). With it, as Linux's `tcp_process_tlp_ack`:
//! a DSACK of the probe ends the episode without a reduction; an ACK beyond the probe's end
//! without one means the probe repaired a loss (one reduction); an ACK of exactly the probe's end
//! waits for a DSACK that may follow. DSACKs also widen RACK's reordering window (section 6.2
//! step 4, [`crate::tcp::rack`]).

use super::prr::PrrMode;
use super::sack::Sack;
use super::{AckDelivery, InRecovery, SeqState};
use crate::cc::Window;
use crate::math::below_floor;
use crate::tcp::rack::{Delivery, Rack};
use crate::tcp::send_log::SendLog;
use crate::units::{Dur, Time, NS_PER_MS, NS_PER_S};

/// RFC 8985 section 7.2 WCDelAckT: the longest a receiver may delay the ACK of a lone segment.
pub const WORST_CASE_DELAYED_ACK: Dur = 200 * NS_PER_MS;
/// The probe timeout before any RTT sample (RFC 8985 section 7.2).
pub const PTO_WITHOUT_SRTT: Dur = NS_PER_S;

#[derive(Clone, Debug)]
pub struct RackTlp {
    /// SACK recovery on a scoreboard whose losses RACK marks.
    sack: Sack,
    rack: Rack,
    probe: LossProbe,
    dupthresh: u32,
    /// The reordering window's DupThresh shortcut (the stack's `rack_dupthresh`).
    dupthresh_shortcut: bool,
    /// Receivers send DSACKs (the stack's `dsack`): a retransmitted probe's ACK waits for one.
    dsack: bool,
}

/// The tail loss probe's state (RFC 8985 section 7).
#[derive(Clone, Copy, Debug, Default)]
struct LossProbe {
    /// When the scheduled probe timeout is due.
    due: Option<Time>,
    /// The probe in flight: TLP.end_seq (one past the highest segment sent when it left) and
    /// TLP.is_retrans.
    in_flight: Option<(u32, bool)>,
}

// The methods the sender's per-segment paths dispatch to stay out of line, so that those paths
// stay as small for every other procedure as they were before RACK-TLP.
impl RackTlp {
    pub fn new(dupthresh: u32, prr: PrrMode) -> Self {
        RackTlp {
            sack: Sack::with_marked_losses(dupthresh, prr),
            rack: Rack::default(),
            probe: LossProbe::default(),
            dupthresh,
            dupthresh_shortcut: true,
            dsack: false,
        }
    }

    /// Whether the reordering window is zero, before any reordering is seen, once DupThresh
    /// segments are SACKed (RFC 8985 section 6.2 step 4; Linux unless `TCP_RACK_NO_DUPTHRESH`).
    pub fn with_dupthresh_shortcut(mut self, on: bool) -> Self {
        self.dupthresh_shortcut = on;
        self
    }

    /// Receivers send DSACKs: section 7.4.2 tells a spurious probe by them.
    pub fn with_dsack(mut self, dsack: bool) -> Self {
        self.dsack = dsack;
        self
    }

    #[inline(never)]
    pub(super) fn drop_prr(&mut self) {
        self.sack.drop_prr();
    }

    pub(super) fn new_losses(&mut self, snd_una: u32) -> u64 {
        self.sack.new_losses(snd_una)
    }

    pub(super) fn pipe(&self, s: &SeqState) -> u32 {
        self.sack.pipe(s)
    }

    #[inline(never)]
    pub(super) fn on_ack(&mut self, ack: u32, blocks: impl Iterator<Item = (u32, u32)>) -> u64 {
        self.sack.on_ack(ack, blocks)
    }

    /// RACK has marked a segment lost.
    #[inline(never)]
    pub(super) fn detects_loss(&self, snd_una: u32) -> bool {
        self.sack.has_lost(snd_una)
    }

    /// A recovery episode starts; its window reduction ends any probe episode (Linux resets
    /// `tlp_high_seq` when a reduction starts).
    pub(super) fn on_enter(&mut self, s: &SeqState, ack: &AckDelivery, w: &mut Window) {
        self.sack.on_enter(s, ack, w);
        self.probe = LossProbe::default();
    }

    #[inline(never)]
    pub(super) fn pace_recovery(&mut self, s: &SeqState, ack: &AckDelivery, w: &mut Window) {
        self.sack.pace_recovery(s, ack, w);
    }

    pub(super) fn on_new_ack_in_recovery(&mut self, snd_una: u32, recover: u32, w: &mut Window) -> InRecovery {
        self.sack.on_new_ack_in_recovery(snd_una, recover, w)
    }

    pub(super) fn on_timeout(&mut self, snd_una: u32, snd_max: u32) {
        self.sack.on_timeout(snd_una, snd_max);
        self.rack.on_timeout();
        self.probe = LossProbe::default();
    }

    pub(super) fn set_new_data_only(&mut self, on: bool) {
        self.sack.set_new_data_only(on);
    }

    pub(super) fn unmark_timeout_losses(&mut self) {
        self.sack.unmark_timeout_losses();
    }

    #[inline(never)]
    pub(super) fn next_segment(&mut self, s: &SeqState, cwnd: f64, rwnd: f64) -> Option<(u32, bool)> {
        self.sack.next_segment(s, cwnd, rwnd)
    }

    /// A segment leaves at `now`: every transmission, probes included, is timed.
    #[inline(never)]
    pub(super) fn on_send(&mut self, seq: u32, retransmission: bool, snd_nxt: &mut u32, now: Time) {
        self.sack.on_send(seq, retransmission, snd_nxt);
        self.rack.on_transmit(seq, now);
    }

    pub(super) fn release(&mut self) {
        *self = RackTlp::new(self.dupthresh, self.sack.prr_mode())
            .with_dsack(self.dsack)
            .with_dupthresh_shortcut(self.dupthresh_shortcut);
    }

    /// What an ACK at `now` delivered (RFC 8985 section 6.2 steps 2-3).
    pub fn on_delivery(&mut self, delivery: &Delivery, now: Time, min_rtt: Dur) {
        self.rack.on_delivery(delivery, now, min_rtt);
    }

    /// RFC 8985 section 6.2 steps 4-5 at `now`: mark lost what RACK finds lost; returns how many
    /// segments were marked.
    pub fn detect_losses(&mut self, now: Time, in_loss_recovery: bool, rtt: RttFacts, una: u32, log: &SendLog) -> u32 {
        let scoreboard = self.sack.scoreboard();
        let sacked = scoreboard.sacked_count();
        let dupthresh = self.dupthresh_shortcut.then_some(self.dupthresh);
        let reo_wnd = self.rack.reordering_window(in_loss_recovery, sacked, dupthresh, rtt.min_rtt, rtt.srtt);
        self.rack.detect_losses(now, reo_wnd, una, scoreboard, log)
    }

    /// When RACK's reordering timer should fire.
    pub fn reordering_deadline(&self) -> Option<Time> {
        self.rack.reordering_deadline()
    }

    /// DSACK `block` arrived: the reordering window may widen (RFC 8985 section 6.2 step 4); if
    /// it reports a retransmitted probe's segment, both copies arrived and the probe episode ends
    /// without a loss (section 7.4.2).
    pub fn on_dsack(&mut self, (start, end): (u32, u32), snd_una: u32, snd_nxt: u32) {
        self.rack.on_dsack(snd_una, snd_nxt);
        if let Some((probe_end, true)) = self.probe.in_flight {
            let probe_seq = probe_end - 1;
            if start <= probe_seq && probe_seq < end {
                self.probe.in_flight = None;
            }
        }
    }

    /// A recovery ended (section 6.2 step 4): a widened window lasts 16 of them.
    pub fn on_recovery_exit(&mut self) {
        self.rack.on_recovery_exit();
    }

    /// RACK.reo_wnd_mult.
    pub fn reo_wnd_mult(&self) -> u32 {
        self.rack.reo_wnd_mult()
    }

    /// Whether RACK has seen reordering (its window no longer closes in recovery).
    pub fn reordering_seen(&self) -> bool {
        self.rack.reordering_seen()
    }

    /// RFC 8985 section 7.2: no probe is in flight, so one may be scheduled.
    pub fn may_schedule_probe(&self) -> bool {
        self.probe.in_flight.is_none()
    }

    /// When the scheduled probe timeout is due.
    pub fn probe_due(&self) -> Option<Time> {
        self.probe.due
    }

    pub fn set_probe_due(&mut self, due: Option<Time>) {
        self.probe.due = due;
    }

    /// RFC 8985 section 7.3: the segment a probe sends (whatever cwnd allows): the next new one if
    /// there is one and the receiver window has room, else the highest segment sent, again.
    pub fn probe_segment(&self, s: &SeqState, rwnd: f64) -> Option<(u32, bool)> {
        let in_rwnd = below_floor((s.snd_nxt - s.snd_una) as u64, rwnd + 1e-9);
        if s.snd_nxt < s.total_segs && in_rwnd {
            Some((s.snd_nxt, false))
        } else {
            (s.snd_max > s.snd_una).then(|| (s.snd_max - 1, true))
        }
    }

    /// A probe left; `end` is one past the highest segment sent.
    pub fn on_probe_sent(&mut self, end: u32, retransmission: bool) {
        self.probe = LossProbe { due: None, in_flight: Some((end, retransmission)) };
    }

    /// RFC 8985 section 7.4: the cumulative ACK reached `ack`. Returns true when it acknowledges
    /// a retransmitted probe: a loss the probe repaired (without DSACK, a spurious probe looks
    /// the same), which calls for one window reduction. With DSACK an ACK of exactly the probe's
    /// end waits for the DSACK that would show the probe spurious.
    pub fn on_cumulative_ack(&mut self, ack: u32) -> bool {
        match self.probe.in_flight {
            Some((end, true)) if self.dsack && ack == end => false,
            Some((end, retransmission)) if ack >= end => {
                self.probe.in_flight = None;
                retransmission
            }
            _ => false,
        }
    }
}

/// The RTT estimates RACK reads (ns): the minimum RTT and SRTT.
#[derive(Clone, Copy, Debug)]
pub struct RttFacts {
    pub min_rtt: Dur,
    pub srtt: Dur,
}

/// RFC 8985 section 7.2: the probe timeout with `outstanding` segments in flight and `srtt` (if
/// any sample was taken): 2 SRTT, plus the worst-case delayed ACK when a lone segment's ACK may
/// be delayed; 1 s without a sample. The caller caps it at the time left to the RTO.
pub fn probe_timeout(srtt: Option<Dur>, outstanding: u32) -> Dur {
    match srtt {
        None => PTO_WITHOUT_SRTT,
        Some(srtt) if outstanding == 1 => 2 * srtt + WORST_CASE_DELAYED_ACK,
        Some(srtt) => 2 * srtt,
    }
}

#[cfg(test)]
#[path = "rack_tlp_tests.rs"]
mod tests;
