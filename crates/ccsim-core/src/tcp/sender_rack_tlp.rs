//! The sender's part of RACK-TLP (RFC 8985; the procedure is [`crate::tcp::recovery::rack_tlp`]):
//! what needs the sender's clock, RTT estimates, send log and its one timer.
//!
//! On every ACK RACK learns what was delivered and marks losses by time (section 6.2); a loss
//! starts a recovery episode as a SACK loss does. Then the timer is armed for what comes first
//! ([`crate::tcp::retransmit_timer`]): the reordering timer while a segment waits out its reordering
//! window, else a probe timeout when one may be scheduled (section 7.2), over the retransmission
//! timeout, which is kept as every other procedure keeps it.

use super::{Sender, SenderState};
use crate::cc::CongestionKind;
use crate::event::TimerKind;
use crate::net::fabric::Fabric;
use crate::net::packet::{Packet, SackBlocks};
use crate::tcp::rack::Delivery;
use crate::tcp::recovery::rack_tlp::{probe_timeout, RttFacts};
use crate::tcp::recovery::LossRecovery;
use crate::tcp::retransmit_timer::TimerDuty;
use crate::tcp::send_log::{Newest, Sacked};
use crate::units::Time;

// Out of line: every other procedure's ACK path only tests which procedure runs.
impl Sender {
    #[inline]
    pub(super) fn runs_rack_tlp(&self) -> bool {
        matches!(self.recovery, LossRecovery::RackTlp(_))
    }

    /// In loss recovery: fast recovery, or after a timeout until everything then outstanding is
    /// acknowledged (Linux's Recovery and Loss states).
    fn in_loss_recovery(&self) -> bool {
        self.in_recovery || self.snd_una < self.recover
    }

    /// RFC 8985 section 6.2 steps 2-3: what the ACK `pkt` (with SACK blocks `sack`) delivered.
    #[inline(never)]
    fn rack_on_delivery(
        &mut self,
        pkt: &Packet,
        sack: &SackBlocks,
        newest: Newest,
        lowest_sent_once: Option<u32>,
        now: Time,
    ) {
        let min_rtt = self.rtt.min_rtt().unwrap_or(0);
        let delivered_end = sack.iter().map(|(_, end)| end).fold(pkt.seq, u32::max);
        let delivery = Delivery { newest: newest.segment(), lowest_sent_once, delivered_end, echoed_ts: pkt.ts };
        if let Some(p) = self.recovery.rack_tlp() {
            p.on_delivery(&delivery, now, min_rtt);
        }
    }

    /// RFC 8985 section 6.2 steps 4-5 at `now`. Returns whether a segment was newly marked lost.
    #[inline(never)]
    pub(super) fn rack_detect_losses(&mut self, now: Time) -> bool {
        let in_loss_recovery = self.in_loss_recovery();
        let rtt = RttFacts { min_rtt: self.rtt.min_rtt().unwrap_or(0), srtt: self.rtt.srtt().unwrap_or(0) };
        let una = self.snd_una;
        match &mut self.recovery {
            LossRecovery::RackTlp(p) => p.detect_losses(now, in_loss_recovery, rtt, una, &self.send_log) > 0,
            _ => false,
        }
    }

    /// A new cumulative ACK: RACK learns what it delivered, and an ACK covering a retransmitted
    /// probe reveals the loss the probe repaired (RFC 8985 section 7.4): the algorithm reduces
    /// its window once, without a recovery episode (Linux enters CWR and leaves it at once).
    #[inline(never)]
    pub(super) fn rack_tlp_on_new_ack(
        &mut self,
        pkt: &Packet,
        sack: &SackBlocks,
        newest: Newest,
        lowest_sent_once: Option<u32>,
        now: Time,
    ) {
        self.rack_on_delivery(pkt, sack, newest, lowest_sent_once, now);
        let repaired = self.recovery.rack_tlp().is_some_and(|p| p.on_cumulative_ack(pkt.seq));
        if repaired && !self.in_loss_recovery() {
            let ev = self.congestion_event(CongestionKind::Loss, now);
            self.congestion(&ev);
        }
    }

    /// An ACK that does not advance the cumulative ACK (`sacked`: what its blocks newly SACKed;
    /// `delivered`: whether they SACKed anything; `ecn_signal`: whether it signals congestion):
    /// RACK learns and detects, a loss starts recovery, and a duplicate ACK counts as for every
    /// procedure.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn rack_tlp_on_old_ack(
        &mut self,
        pkt: &Packet,
        sack: &SackBlocks,
        sacked: &Sacked,
        delivered: bool,
        ecn_signal: bool,
        now: Time,
        fab: &mut Fabric,
    ) {
        let snd_max = self.snd_max;
        self.rack_on_delivery(pkt, sack, sacked.newest, sacked.lowest_sent_once, now);
        let marked = self.rack_detect_losses(now);
        if pkt.seq == self.snd_una && self.snd_max > self.snd_una {
            self.on_dupack(now, fab, sacked.delivered);
            if ecn_signal {
                self.on_ecn_echo(now);
            }
        } else if self.detects_loss() {
            self.enter_recovery(now, fab, sacked.delivered);
        } else if delivered || marked {
            if self.in_recovery {
                self.pace_recovery(sacked.delivered, false);
            }
            self.try_send(now, fab);
        }
        self.rearm_rack_tlp_timer(now, fab, delivered || self.snd_max > snd_max);
    }

    /// Arm the timer over the retransmission timeout for what RACK-TLP wants first: the
    /// reordering timer while a segment waits out its window; else, outside loss recovery with
    /// data outstanding and no probe in flight, the probe timeout (RFC 8985 section 7.2), a new
    /// one when `reschedule_probe` (an ACK delivered data, or new data left), else the one
    /// already scheduled. The probe timeout is at most the time left to the RTO.
    #[inline(never)]
    pub(super) fn rearm_rack_tlp_timer(&mut self, now: Time, fab: &mut Fabric, reschedule_probe: bool) {
        let outstanding = self.snd_max - self.snd_una;
        let probing_allowed = self.state == SenderState::Open && outstanding > 0 && !self.in_loss_recovery();
        let srtt = self.rtt.srtt();
        let rto_at = self.retransmit_timer.rto_deadline();
        let Some(p) = self.recovery.rack_tlp() else { return };
        let reordering = p.reordering_deadline();
        let probe_due = if reordering.is_none() && probing_allowed && p.may_schedule_probe() {
            match p.probe_due() {
                Some(due) if !reschedule_probe => Some(due),
                _ => {
                    let due = now + probe_timeout(srtt, outstanding);
                    Some(rto_at.map_or(due, |rto| due.min(rto)))
                }
            }
        } else {
            None
        };
        p.set_probe_due(probe_due);
        debug_assert!(probe_due.is_none_or(|due| due >= now) && reordering.is_none_or(|at| at > now));
        let early = match reordering {
            Some(at) => Some((at, TimerDuty::Reordering)),
            None => probe_due.map(|at| (at, TimerDuty::LossProbe)),
        };
        let ev = self.timer_event(TimerKind::Retransmit);
        self.retransmit_timer.set_early(early, &mut fab.events, ev);
    }

    /// RFC 8985 section 7.3: the probe timeout fired. One segment leaves whatever cwnd says (new
    /// data if the receiver window allows, else the highest segment sent, again), and the RTO,
    /// not another probe, is armed.
    #[inline(never)]
    pub(super) fn on_probe_timeout(&mut self, now: Time, fab: &mut Fabric) {
        if self.state != SenderState::Open {
            return;
        }
        let s = self.seq_state();
        let rwnd = self.rwnd;
        let Some(p) = self.recovery.rack_tlp() else { return };
        p.set_probe_due(None);
        let Some((seq, retransmission)) = p.probe_segment(&s, rwnd) else { return };
        self.recovery.on_send(seq, retransmission, &mut self.snd_nxt, now);
        self.transmit(seq, retransmission, now, fab);
        let end = self.snd_max;
        if let Some(p) = self.recovery.rack_tlp() {
            p.on_probe_sent(end, retransmission);
        }
        self.arm_rto(now, fab);
        self.rearm_rack_tlp_timer(now, fab, false);
    }

    /// RFC 8985 section 6.2 step 5 on RACK's reordering timer: segments whose window has passed
    /// are lost; the first loss outside recovery starts an episode.
    #[inline(never)]
    pub(super) fn on_reordering_timeout(&mut self, now: Time, fab: &mut Fabric) {
        if self.state != SenderState::Open {
            return;
        }
        if self.rack_detect_losses(now) {
            if self.detects_loss() {
                self.enter_recovery(now, fab, 0);
            } else {
                self.try_send(now, fab);
            }
        }
        self.rearm_rack_tlp_timer(now, fab, false);
    }
}
