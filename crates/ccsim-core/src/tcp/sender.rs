//! The TCP sender: handshake, window-limited transmission (paced when the algorithm asks), RTT
//! sampling, loss detection by duplicate ACKs (or SACK, or RACK's send times), fast retransmit
//! and the recovery procedure the stack names ([`super::recovery`]: Reno, NewReno, RFC 6675 SACK
//! or RFC 8985 RACK-TLP), and the retransmission timer with exponential backoff (RFC 6298), which
//! under RACK-TLP also serves as the loss-probe and reordering timers
//! ([`super::retransmit_timer`]; the sender's part of RACK-TLP is in `sender_rack_tlp.rs`).
//!
//! The congestion-control algorithm owns the window arithmetic; the sender owns everything about
//! which segment goes when, and calls the algorithm exactly once per loss episode. What differs
//! between recovery procedures (inflation, partial ACKs, the scoreboard, what to send next) lives
//! in the procedure's module; the sender keeps what they share: the duplicate-ACK count, the
//! recovery point and whether it is in recovery. With PRR (the stack's `prr`, SACK-based
//! procedures only) each ACK in recovery has the procedure set the window for what it may send
//! (`pace_recovery`) once the ACK's losses are marked.
//!
//! With ECN (RFC 3168; the stack's `ecn`, or an algorithm that needs it) new data carries ECT
//! (retransmissions do not, section 6.1.5; nor does the SYN: ECN is not negotiated, both ends
//! follow the stack). An ACK with ECE does not grow the window; outside loss recovery and once
//! the data outstanding at the last reduction is acknowledged (at most once per window, section
//! 6.1.2) it is a congestion event of kind [`CongestionKind::Ecn`]: the algorithm reduces the
//! window, nothing is retransmitted. After every reduction (ECN, fast retransmit or timeout) the
//! next new data segment carries CWR.
//!
//! The data's codepoint is ECT(0), or ECT(1) (RFC 9331) when the algorithm is an L4S one or the
//! stack's `ect` says so. Under AccECN feedback (RFC 9768; the stack's `ecn_feedback`, or the
//! algorithm's) the sender decodes each ACK's ACE field into the CE-marked segments it reports
//! ([`super::accecn::AceDecoder`], [`AckSample::ce_delivered`]); an ACK reporting any is treated
//! as ECN-Echo was (no growth, a reduction at most once per window, [`CaState::Cwr`]), and no
//! CWR is sent.

use std::sync::Arc;

use super::accecn::AceDecoder;
use super::clock::ClockSkew;
use super::delay_meter::DelayMeter;
use super::recovery::{AckDelivery, InRecovery, LossRecovery, SeqState};
use super::retransmit_timer::{RetransmitTimer, TimerDuty};
use super::rtt::RttEstimator;
use super::send_log::{Newest, Sacked, SendLog};
use super::send_overhead::SendOverhead;
use super::stack_settings::{RttSampling, SsthreshBasis, StackConfig};
use crate::cc::{
    AckSample, CaState, CongestionControl, CongestionEvent, CongestionKind, EcnFeedback, Growth, PacingContext,
    RecoveryProcedure, SentSample, Window,
};
use crate::event::{Event, LazyTimer, TimerKind};
use crate::net::fabric::Fabric;
use crate::net::packet::{ecn, Packet, PacketKind, SackBlocks, SackRef, HEADER_BYTES};
use crate::rng::{stream, Entity, Purpose};
use crate::units::{Dur, Time, NS_PER_S};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    Idle,
    Handshake,
    Open,
    Done,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    /// Data packets sent, retransmissions included.
    pub packets_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub rtt_sum_ns: u128,
    pub rtt_samples: u64,
    /// Congestion events after which the algorithm's window was smaller than before (Free-Drop's
    /// "congestion events" are the losses it does not forgive).
    pub window_cuts: u64,
    /// Congestion events raised by ECN-Echo (a subset of the algorithm's calls, not of the cuts).
    pub ecn_events: u64,
    /// Segments the ACKs reported CE-marked, summed over every ACK ([`AckSample::ce_delivered`],
    /// including ACKs no algorithm hook sees).
    pub ce_delivered: u64,
}

/// What a sender needs to know about its transfer.
pub struct SenderSetup {
    pub flow: u32,
    pub data_route: u32,
    pub mss: u32,
    /// `None` = infinite.
    pub size_bytes: Option<u64>,
    pub max_window: f64,
    /// The run's stack settings, shared by every sender.
    pub stack: Arc<StackConfig>,
    /// The loss-recovery procedure: the stack's, or the algorithm's customary one when the stack
    /// names none (resolved by whoever builds the flow).
    pub recovery: RecoveryProcedure,
    /// ECN-capable: ECT on new data, reaction to ECE (the stack's `ecn`, or the algorithm's need).
    pub ecn: bool,
    /// The scenario's seed, for the sender's own random stream (send overhead).
    pub seed: u64,
    /// The receiver's clock against this sender's (one-way delays only).
    pub clock: ClockSkew,
}

pub struct Sender {
    flow: u32,
    route: u32,
    mss: u32,
    total_segs: u32,
    last_seg_wire: u32,
    /// Shared with every other sender of the run: read on every ACK, and with thousands of
    /// flows one shared copy stays in the cache where a copy per flow would not.
    stack: Arc<StackConfig>,
    pub state: SenderState,
    pub snd_una: u32,
    pub snd_nxt: u32,
    pub snd_max: u32,
    pub w: Window,
    rwnd: f64,
    dupacks: u32,
    in_recovery: bool,
    /// Recovery point: one past the highest segment sent when the last episode began.
    recover: u32,
    /// snd_max at the last timeout: the sender is in [`CaState::Loss`] while snd_una is below it.
    loss_until: u32,
    /// The loss-recovery procedure and its state (inflation, scoreboard).
    recovery: LossRecovery,
    ecn: EcnState,
    rtt: RttEstimator,
    /// The retransmission timer (and, under RACK-TLP, the loss-probe and reordering timers).
    pub retransmit_timer: RetransmitTimer,
    pub pace_timer: LazyTimer,
    backoff: u32,
    /// Expiries of the timer since snd_una last advanced.
    una_timeouts: u32,
    /// The segment being timed (one-per-RTT sampling) and its send time.
    timed: Option<(u32, Time)>,
    cc: Box<dyn CongestionControl>,
    /// Send records of outstanding segments: the congestion-control RTT sample (every-ACK
    /// sampling only) and the delivery-rate sample.
    send_log: SendLog,
    /// Whether anything reads the send log: every-ACK sampling, SACK or the algorithm's
    /// delivery-rate sample ([`CongestionControl::wants_delivery_rate`]).
    keeps_send_log: bool,
    /// Whether the algorithm reads rate samples (it wants them, or sets cwnd on every ACK): only
    /// then are their flight and loss counts kept (they cost a flight count per segment sent).
    rate_details: bool,
    /// The algorithm paces or watches segments leave ([`CongestionControl::watches_sends`]).
    watches_sends: bool,
    /// The algorithm sets cwnd on every ACK ([`CongestionControl::sets_cwnd_on_every_ack`]).
    every_ack: bool,
    /// While an ACK of such an algorithm is processed: nothing leaves until it has set cwnd.
    hold_sends: bool,
    /// The sample of that ACK, handed over once its losses are marked.
    pending_ack: Option<AckSample>,
    /// Without SACK, for such an algorithm: duplicate ACKs counted as delivered segments
    /// (Linux's `sacked_out` under Reno), out of the flight until the cumulative ACK covers them.
    dupacks_delivered: u32,
    /// Losses the sender marked itself (without SACK) not yet counted in the meter.
    unnoted_losses: u64,
    /// Earliest-departure-time pacing by [`CongestionControl::pacing_rate`].
    pacing: Pacing,
    /// The delay and delivery measurements every algorithm gets in [`AckSample::delay`].
    meter: DelayMeter,
    /// The receiver's clock against ours, for one-way delays.
    clock: ClockSkew,
    /// Segments held back by the stack's send overhead (None: they leave at once). Boxed: rarely
    /// used, and large.
    overhead: Option<Box<SendOverhead>>,
    pub release_timer: LazyTimer,
    /// DSACK, undo and F-RTO (the stack's `dsack`, `undo`, `frto`; SACK-based recovery only):
    /// `undo.rs`, `frto.rs`. Boxed: rarely used.
    undo: Option<Box<undo::Undo>>,
    /// The window before the current episode's congestion event, and whether it was cut then.
    episode_cut: (f64, bool),
    cwnd_limited: bool,
    round_end: u32,
    round: u64,
    pub stats: SenderStats,
    pub completed_at: Option<Time>,
}

/// Linux's internal pacing (`tcp_update_skb_after_send`): the earliest departure time of the
/// next segment (0 while the flow has never been paced).
#[derive(Clone, Copy, Debug, Default)]
struct Pacing {
    next_departure: Time,
}

/// Segments at the start of a connection that leave unpaced (sch_fq's initial quantum of 10
/// packets).
const UNPACED_SEGMENTS: u64 = 10;

impl Pacing {
    /// The `sent`-th segment of the connection left at `now`, the flow paced at `rate`
    /// segments/s. The next may leave 1/rate after this one's slot; a segment that left late
    /// (the slot had passed) earns credit for the lateness, at most half an interval (Linux's
    /// allowance for timer slack).
    #[inline]
    fn on_send(&mut self, now: Time, sent: u64, rate: f64) {
        let slot = self.next_departure;
        self.next_departure = slot.max(now);
        if rate > 0.0 && sent >= UNPACED_SEGMENTS {
            let gap = (NS_PER_S as f64 / rate) as Dur;
            let late = self.next_departure - slot;
            self.next_departure += gap - late.min(gap / 2);
        }
    }

    /// When the next segment may leave, if later than `now`.
    #[inline]
    fn hold_until(&self, now: Time) -> Option<Time> {
        (self.next_departure > now).then_some(self.next_departure)
    }
}

/// The sender's half of RFC 3168.
#[derive(Clone, Copy, Debug)]
struct EcnState {
    enabled: bool,
    /// The codepoint of ECN-capable data: ECT(0), or ECT(1) for an L4S flow (RFC 9331).
    ect: u8,
    /// AccECN feedback (RFC 9768): ACKs carry a CE packet count, decoded here; no CWR.
    accecn: bool,
    ace: AceDecoder,
    /// The next new data segment carries CWR: the window was reduced.
    cwr_pending: bool,
    /// snd_max at the last window reduction: ECE is acted on only once snd_una has passed it
    /// (the ACK that acknowledges exactly up to it was sent for data from before the reduction).
    reduced_at: u32,
    /// One past snd_max at the last ECN-Echo reduction: [`CaState::Cwr`] while snd_una is below
    /// it (Linux leaves CWR once something above its `high_seq` is acknowledged).
    cwr_until: u32,
}

/// What one ACK says of CE marks.
#[derive(Clone, Copy, Debug, Default)]
struct EcnReport {
    /// Congestion was signalled: ECN-Echo, or under AccECN a CE count that rose.
    signal: bool,
    /// Under AccECN, the CE-marked segments reported; under the one-bit feedbacks `None`, and a
    /// signal stands for the ACK's whole delivery.
    counted: Option<u32>,
}

impl EcnReport {
    /// The CE-marked segments among `delivered` newly delivered ones.
    #[inline]
    fn ce_of(self, delivered: u32) -> u32 {
        match self.counted {
            Some(n) => n,
            None if self.signal => delivered,
            None => 0,
        }
    }

    /// Whether the delay meter counts the whole delivery as CE (one-bit feedback with ECE).
    #[inline]
    fn whole_delivery_echoed(self) -> bool {
        self.signal && self.counted.is_none()
    }
}

impl Sender {
    pub fn new(setup: SenderSetup, cc: Box<dyn CongestionControl>) -> Self {
        let payload_total = setup.size_bytes.unwrap_or(u64::MAX);
        let (total_segs, last_payload) = match setup.size_bytes {
            None => (u32::MAX, setup.mss),
            Some(b) => {
                let n = b.div_ceil(setup.mss as u64).max(1);
                let last = payload_total - (n - 1) * setup.mss as u64;
                (n.min(u32::MAX as u64 - 1) as u32, last.max(1) as u32)
            }
        };
        let stack = setup.stack;
        let ect = if stack.ect1_for(cc.l4s()) { ecn::ECT1 } else { ecn::ECT };
        let accecn = stack.ecn_feedback_for(cc.ecn_feedback()) == EcnFeedback::AccEcn;
        let ssthresh = if stack.initial_ssthresh_is_window { setup.max_window } else { f64::INFINITY };
        let mut recovery = LossRecovery::new(setup.recovery, &stack);
        let undo = undo::Undo::for_stack(&stack, recovery.uses_sack());
        let watches_sends = cc.watches_sends();
        let every_ack = cc.sets_cwnd_on_every_ack();
        if every_ack {
            recovery.leave_window_to_cc();
        }
        let rate_details = cc.wants_delivery_rate() || every_ack;
        let keeps_send_log = stack.rtt_sampling == RttSampling::EveryAck || recovery.uses_sack() || rate_details;
        let overhead = (stack.send_overhead_ns > 0).then(|| {
            let rng = stream(setup.seed, Entity::Flow, setup.flow as u64, Purpose::Jitter);
            Box::new(SendOverhead::new(stack.send_overhead_ns, rng))
        });
        Sender {
            flow: setup.flow,
            route: setup.data_route,
            mss: setup.mss,
            total_segs,
            last_seg_wire: last_payload + HEADER_BYTES,
            rtt: RttEstimator::new(&stack),
            stack,
            state: SenderState::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            w: Window { cwnd: 1.0, ssthresh },
            rwnd: setup.max_window,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            loss_until: 0,
            recovery,
            ecn: EcnState {
                enabled: setup.ecn,
                ect,
                accecn,
                ace: AceDecoder::default(),
                cwr_pending: false,
                reduced_at: 0,
                cwr_until: 0,
            },
            retransmit_timer: RetransmitTimer::default(),
            pace_timer: LazyTimer::default(),
            backoff: 1,
            una_timeouts: 0,
            timed: None,
            cc,
            send_log: SendLog::default(),
            keeps_send_log,
            rate_details,
            watches_sends,
            every_ack,
            hold_sends: false,
            pending_ack: None,
            dupacks_delivered: 0,
            unnoted_losses: 0,
            pacing: Pacing::default(),
            meter: DelayMeter::default(),
            clock: setup.clock,
            overhead,
            release_timer: LazyTimer::default(),
            undo,
            episode_cut: (0.0, false),
            cwnd_limited: false,
            round_end: 0,
            round: 0,
            stats: SenderStats::default(),
            completed_at: None,
        }
    }

    /// Payload bytes of a full segment.
    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// Whether the flow uses ECN (its data is ECN-capable).
    pub fn ecn_enabled(&self) -> bool {
        self.ecn.enabled
    }

    /// Whether its ECN-capable data carries ECT(1), the L4S identifier (RFC 9331), rather than
    /// ECT(0).
    pub fn sends_ect1(&self) -> bool {
        self.ecn.ect == ecn::ECT1
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    /// The algorithm's own state at `now`, as [`CongestionControl::inspect`] reports it.
    /// With the stack's `dsack`, `undo` or `frto` on, the sender's counts follow (`undo.rs`).
    pub fn inspect_cc(&self, now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        self.cc.inspect(now, out);
        if let Some(u) = &self.undo {
            u.inspect(out);
        }
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }

    /// Bytes of payload cumulatively acknowledged.
    pub fn bytes_acked(&self) -> u64 {
        if self.snd_una == 0 {
            0
        } else if self.snd_una >= self.total_segs {
            (self.total_segs as u64 - 1) * self.mss as u64 + (self.last_seg_wire - HEADER_BYTES) as u64
        } else {
            self.snd_una as u64 * self.mss as u64
        }
    }

    /// The loss-recovery procedure this sender runs.
    pub fn recovery_procedure(&self) -> RecoveryProcedure {
        self.recovery.procedure()
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Where the sender stands with respect to congestion, as [`AckSample::ca_state`] says.
    #[inline]
    pub fn ca_state(&self) -> CaState {
        if self.in_recovery {
            CaState::Recovery
        } else if self.snd_una < self.loss_until {
            CaState::Loss
        } else if self.snd_una < self.ecn.cwr_until {
            CaState::Cwr
        } else {
            CaState::Open
        }
    }

    /// The loss recovery as it runs, for tests that read its state.
    #[cfg(test)]
    pub(crate) fn recovery_state(&mut self) -> &mut LossRecovery {
        &mut self.recovery
    }

    /// The window transmissions are limited by: cwnd with the recovery inflation, capped by the
    /// receiver window (SACK recovery limits `pipe` by cwnd alone).
    pub fn window(&self) -> f64 {
        (self.w.cwnd + self.inflation()).min(self.rwnd)
    }

    /// What the window is inflated by: the procedure's inflation, or the duplicate ACKs counted
    /// as delivered for an algorithm that sets cwnd on every ACK (the same allowance Linux's
    /// flight count makes by subtracting `sacked_out`).
    #[inline]
    fn inflation(&self) -> f64 {
        self.recovery.inflation() + self.dupacks_delivered as f64
    }

    #[inline]
    fn seq_state(&self) -> SeqState {
        SeqState { snd_una: self.snd_una, snd_nxt: self.snd_nxt, snd_max: self.snd_max, total_segs: self.total_segs }
    }

    /// Segments presumed in the network, as the recovery procedure counts them.
    #[inline]
    fn flight(&self) -> u32 {
        self.recovery.flight(&self.seq_state()).saturating_sub(self.dupacks_delivered)
    }

    fn timer_event(&self, kind: TimerKind) -> Event {
        Event::Timer { flow: self.flow, kind }
    }

    fn packet(&self, kind: PacketKind, seq: u32, size: u32, now: Time) -> Packet {
        Packet {
            ts: now,
            ts_recv: 0,
            flow: self.flow,
            seq,
            size,
            route: self.route,
            sack: SackRef::NONE,
            hop: 0,
            kind,
            ecn: 0,
        }
    }

    /// Open the connection: a 40-byte SYN, answered by a SYN-ACK that gives the first RTT sample.
    /// Without a handshake (ns-2's one-way agents) the first window leaves at once.
    pub fn start(&mut self, now: Time, fab: &mut Fabric) {
        if self.stack.handshake {
            self.state = SenderState::Handshake;
            self.send_syn(now, fab);
        } else {
            self.open(now, fab);
        }
    }

    fn open(&mut self, now: Time, fab: &mut Fabric) {
        self.state = SenderState::Open;
        self.w.cwnd = self.initial_window();
        self.try_send(now, fab);
        if self.runs_rack_tlp() {
            self.rearm_rack_tlp_timer(now, fab, true);
        }
    }

    fn send_syn(&mut self, now: Time, fab: &mut Fabric) {
        fab.send(self.packet(PacketKind::Syn, 0, HEADER_BYTES, now), now);
        let at = now + self.rtt.backed_off(self.backoff);
        self.retransmit_timer.set_rto(at, &mut fab.events, self.timer_event(TimerKind::Retransmit));
    }

    fn initial_window(&self) -> f64 {
        if self.stack.initial_window_from_mss {
            StackConfig::rfc_initial_window(self.mss)
        } else {
            self.stack.initial_window
        }
    }

    /// An ACK or SYN-ACK arrived. Returns true when this ACK completed a finite transfer.
    pub fn on_ack(&mut self, pkt: &Packet, now: Time, fab: &mut Fabric) -> bool {
        match (pkt.kind, self.state) {
            (PacketKind::SynAck, SenderState::Handshake) => {
                self.rtt.sample(now - pkt.ts);
                self.backoff = 1;
                self.retransmit_timer.cancel();
                self.open(now, fab);
                false
            }
            (PacketKind::Ack, SenderState::Open) => {
                if self.every_ack {
                    self.on_ack_setting_cwnd(pkt, now, fab)
                } else {
                    self.on_data_ack(pkt, now, fab)
                }
            }
            _ => {
                fab.sacks.release(pkt.sack);
                false
            }
        }
    }

    /// An ACK for an algorithm that sets cwnd on every ACK, in Linux's order (`tcp_ack`): the
    /// ACK's deliveries and losses are processed (a recovery episode may start, the algorithm's
    /// `on_congestion` with it), nothing leaves meanwhile; then the algorithm sees the ACK
    /// (`cong_control`), and only then does the sender send.
    #[inline(never)]
    fn on_ack_setting_cwnd(&mut self, pkt: &Packet, now: Time, fab: &mut Fabric) -> bool {
        let snd_max = self.snd_max;
        self.hold_sends = true;
        let done = self.on_data_ack(pkt, now, fab);
        self.hold_sends = false;
        let newly_lost = self.note_losses();
        if let Some(mut a) = self.pending_ack.take() {
            a.newly_lost = newly_lost as f64;
            if let Some(r) = &mut a.delay.rate {
                r.lost += newly_lost;
            }
            a.in_flight = self.flight() as f64;
            a.ca_state = self.ca_state();
            self.cc.on_ack(&a, &mut self.w);
            if self.cc.take_app_limited() {
                self.meter.on_out_of_data(self.flight() as u64);
            }
        }
        if done {
            return true;
        }
        self.try_send(now, fab);
        if self.runs_rack_tlp() && self.snd_max > snd_max {
            self.rearm_rack_tlp_timer(now, fab, true);
        }
        false
    }

    /// Segments newly marked lost since the last count, now counted in the meter (for the rate
    /// samples' `lost`).
    #[inline]
    fn note_losses(&mut self) -> u64 {
        let n = std::mem::take(&mut self.unnoted_losses) + self.recovery.new_losses(self.snd_una);
        self.meter.on_lost(n);
        n
    }

    /// An ACK of a flow in the open state. Returns true when it completed a finite transfer.
    #[inline]
    fn on_data_ack(&mut self, pkt: &Packet, now: Time, fab: &mut Fabric) -> bool {
        let mut sack = fab.sacks.take(pkt.sack);
        // Linux's `prior_in_flight`: before this ACK's SACK blocks are applied (read only by the
        // samples of new ACKs, and of every ACK for an every-ACK algorithm).
        let prior_flight = if pkt.seq > self.snd_una || self.every_ack { self.flight() } else { 0 };
        if self.undo.is_some() {
            self.undo_on_ack(pkt, &mut sack, now);
        }
        let newly_sacked = self.recovery.on_ack(pkt.seq.max(self.snd_una), sack.iter());
        if pkt.seq > self.snd_una {
            return self.on_new_ack(pkt, &sack, prior_flight, now, fab);
        }
        let sacked = self.send_log.on_sack(sack.iter());
        let report = self.ecn_on_old_ack(pkt, newly_sacked);
        if self.every_ack && pkt.seq == self.snd_una {
            let sample = self.old_ack_sample(pkt, &sacked, prior_flight, report, now);
            self.pending_ack = Some(sample);
        } else {
            let ce = report.ce_of(sacked.delivered);
            self.note_ce(report, ce);
            self.meter.on_delivered(now, sacked.delivered, sacked.newest, report.whole_delivery_echoed());
        }
        if self.runs_rack_tlp() {
            self.rack_tlp_on_old_ack(pkt, &sack, &sacked, newly_sacked > 0, report.signal, now, fab);
        } else if pkt.seq == self.snd_una && self.snd_max > self.snd_una {
            self.on_dupack(now, fab, sacked.delivered);
            if report.signal {
                self.on_ecn_echo(now);
            }
        } else if newly_sacked > 0 {
            if self.in_recovery {
                self.pace_recovery(sacked.delivered, false);
            }
            self.try_send(now, fab);
        }
        false
    }

    /// What an ACK that advanced the cumulative ACK, newly delivering `delivered` segments (by
    /// the send log, duplicate ACKs not taken off), says of CE marks.
    #[inline]
    fn ecn_on_new_ack(&mut self, pkt: &Packet, delivered: u32) -> EcnReport {
        if !self.ecn.enabled {
            return EcnReport::default();
        }
        if self.ecn.accecn {
            self.ecn.ace.note_echo(pkt.ts_recv);
            let delivered = self.ecn.ace.new_delivery(delivered);
            return self.accecn_report(pkt, delivered);
        }
        EcnReport { signal: pkt.ecn & ecn::ECE != 0, counted: None }
    }

    /// What an ACK that did not advance the cumulative ACK says of CE marks (`newly_sacked`: the
    /// segments its blocks SACKed for the first time). Under AccECN its field is decoded only if
    /// the ACK is newer than those decoded before: it SACKs new data, or it is a duplicate ACK
    /// with a later timestamp echo (a duplicate ACK without SACK stands for one segment
    /// delivered); the marks of the others are counted by the next ACK that is.
    #[inline]
    fn ecn_on_old_ack(&mut self, pkt: &Packet, newly_sacked: u64) -> EcnReport {
        if !self.ecn.enabled {
            return EcnReport::default();
        }
        if !self.ecn.accecn {
            return EcnReport { signal: pkt.ecn & ecn::ECE != 0, counted: None };
        }
        let duplicate = pkt.seq == self.snd_una && self.snd_max > self.snd_una;
        if newly_sacked > 0 || (duplicate && self.ecn.ace.is_newer(pkt.ts_recv)) {
            self.ecn.ace.note_echo(pkt.ts_recv);
            if newly_sacked == 0 {
                self.ecn.ace.note_duplicate();
            }
            self.accecn_report(pkt, newly_sacked.clamp(1, u64::from(u32::MAX)) as u32)
        } else {
            EcnReport { signal: false, counted: Some(0) }
        }
    }

    /// Count the `ce` segments an ACK reported CE-marked; the delay meter takes AccECN's counts
    /// here (a one-bit echo it counts with the ACK's deliveries).
    #[inline]
    fn note_ce(&mut self, report: EcnReport, ce: u32) {
        self.stats.ce_delivered += u64::from(ce);
        if report.counted.is_some() {
            self.meter.on_ce_reported(ce);
        }
    }

    #[inline]
    fn accecn_report(&mut self, pkt: &Packet, delivered: u32) -> EcnReport {
        let n = self.ecn.ace.decode(pkt.ace(), delivered);
        EcnReport { signal: n > 0, counted: Some(n) }
    }

    /// Without SACK, the segments presumed lost (Linux's `lost_out`, at least 1): after a timeout
    /// everything then outstanding and not yet acknowledged, else the hole at snd_una. Duplicate
    /// ACKs count as delivered only the outstanding segments beyond them (Linux
    /// `tcp_limit_reno_sacked`): after a timeout, none.
    #[inline]
    fn holes(&self) -> u32 {
        let outstanding = self.snd_max - self.snd_una;
        self.loss_until.saturating_sub(self.snd_una).max(1).min(outstanding)
    }

    /// The sample of an ACK that does not advance the cumulative ACK (a duplicate ACK, or one
    /// with new SACK blocks) for an algorithm that sees every ACK; its deliveries counted. Without
    /// SACK a duplicate ACK counts one segment delivered, as Linux counts it in `sacked_out`
    /// (while fewer than the outstanding segments are so counted).
    #[inline(never)]
    fn old_ack_sample(
        &mut self,
        pkt: &Packet,
        sacked: &Sacked,
        prior_flight: u32,
        report: EcnReport,
        now: Time,
    ) -> AckSample {
        let mut delivered = sacked.delivered;
        if !self.recovery.uses_sack() && self.dupacks_delivered + 1 + self.holes() <= self.snd_max - self.snd_una {
            self.dupacks_delivered += 1;
            delivered += 1;
        }
        let one_way_delay = (pkt.ts_recv >= pkt.ts).then(|| self.clock.one_way_delay(pkt.ts, pkt.ts_recv));
        let min_rtt = self.rtt.min_rtt().unwrap_or(0);
        let ca_rtt = (self.stack.rtt_sampling == RttSampling::EveryAck)
            .then(|| sacked.latest_sent.map(|sent| now - sent))
            .flatten();
        let ce = report.ce_of(delivered);
        self.note_ce(report, ce);
        let echoed = (delivered, report.whole_delivery_echoed());
        let delay = self.meter.on_old_ack(now, one_way_delay, echoed, sacked.newest, min_rtt);
        AckSample {
            now,
            acked: 0.0,
            increase_units: 0.0,
            rtt: None,
            ca_rtt,
            srtt: self.rtt.srtt().unwrap_or(0),
            min_rtt,
            one_way_delay,
            delay,
            echoed_ts: pkt.ts,
            prior_in_flight: prior_flight as f64,
            in_flight: self.flight() as f64,
            delivered: self.snd_una as u64,
            round_start: false,
            round: self.round,
            cwnd_limited: self.cwnd_limited,
            growth: Growth { slow_start_cap: self.stack.slow_start_cap, gating: self.stack.cwnd_gating },
            ece: report.signal,
            delivered_now: delivered as f64,
            newly_lost: 0.0,
            ce_delivered: ce as f64,
            ca_state: self.ca_state(),
        }
    }

    /// The RTT sample for the estimator (srtt, RTO): the timestamp echo, or ns-2's timed segment.
    fn rtt_sample(&mut self, pkt: &Packet, now: Time) -> Option<Dur> {
        let sample = match self.stack.rtt_sampling {
            RttSampling::EveryAck => Some(now - pkt.ts),
            RttSampling::OnePerRtt => match self.timed {
                // ns-2 `tcp-newreno.cc partialnewack`: a partial ACK covering the timed segment
                // ends the timing without a sample (it may have waited behind a hole for many
                // RTTs), and resets the backoff.
                Some((seq, _)) if pkt.seq > seq && self.in_recovery && pkt.seq < self.recover => {
                    self.timed = None;
                    self.backoff = 1;
                    None
                }
                Some((seq, sent)) if pkt.seq > seq => {
                    self.timed = None;
                    Some(now - sent)
                }
                _ => None,
            },
        };
        if let Some(r) = sample {
            self.rtt.sample(r);
            self.backoff = 1;
            self.stats.rtt_sum_ns += r as u128;
            self.stats.rtt_samples += 1;
        }
        sample
    }

    /// What the send log says about the segments this ACK newly acknowledges: the RTT sample
    /// for congestion control under every-ACK sampling, Linux's `ca_rtt` (the RTT of the most
    /// recently sent segment this ACK newly acknowledges, by SACK, else cumulatively, falling back
    /// to the timestamp echo when a retransmission was acknowledged or nothing sent once was;
    /// None under one-per-RTT timing, where the algorithms use the echo), then the segments newly
    /// delivered and the most recently sent of them.
    fn newly_acked(&mut self, pkt: &Packet, sack: &SackBlocks, now: Time) -> NewlyAcked {
        if !self.keeps_send_log {
            return NewlyAcked::default();
        }
        let sacked = self.send_log.on_sack(sack.iter());
        let covered = self.send_log.on_cumulative_ack(pkt.seq);
        let mut newest = covered.newest;
        newest.merge(sacked.newest);
        let ca_rtt = (self.stack.rtt_sampling == RttSampling::EveryAck).then(|| {
            let cumulative = covered.latest_sent.filter(|_| !covered.retransmission_acked);
            sacked.latest_sent.or(cumulative).map_or(now - pkt.ts, |sent| now - sent)
        });
        let lowest_sent_once = match (sacked.lowest_sent_once, covered.lowest_sent_once) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        NewlyAcked { ca_rtt, delivered: sacked.delivered + covered.delivered, newest, lowest_sent_once }
    }

    fn on_new_ack(&mut self, pkt: &Packet, sack: &SackBlocks, prior_flight: u32, now: Time, fab: &mut Fabric) -> bool {
        let newly = pkt.seq - self.snd_una;
        self.snd_una = pkt.seq;
        self.snd_nxt = self.snd_nxt.max(self.snd_una);
        self.una_timeouts = 0;
        self.dupacks = 0;
        let rtt = self.rtt_sample(pkt, now);
        let NewlyAcked { ca_rtt, mut delivered, newest, lowest_sent_once } = self.newly_acked(pkt, sack, now);
        // What the ACK delivers by the send log (or the cumulative advance without one), before
        // the duplicate ACKs counted as deliveries are taken off: AccECN's decoding takes off
        // the ones it decoded itself.
        let covered = if self.keeps_send_log { delivered } else { newly };
        if self.dupacks_delivered > 0 {
            // Linux `tcp_remove_reno_sacks`: the duplicate ACKs counted the segments this ACK
            // covers but one (the hole it fills), which counts at least.
            delivered = newly.saturating_sub(self.dupacks_delivered).max(1);
            self.dupacks_delivered = self.dupacks_delivered.saturating_sub(newly - 1);
            let room = (self.snd_max - self.snd_una).saturating_sub(self.holes());
            self.dupacks_delivered = self.dupacks_delivered.min(room);
        }
        let round_start = pkt.seq >= self.round_end;
        if round_start {
            self.round += 1;
            self.round_end = self.snd_max.max(pkt.seq + 1);
        }
        let one_way_delay = (pkt.ts_recv >= pkt.ts).then(|| self.clock.one_way_delay(pkt.ts, pkt.ts_recv));
        let min_rtt = self.rtt.min_rtt().unwrap_or(0);
        // Congestion control's RTT sample: `ca_rtt`, else the timestamp echo (`cc::common::ca_rtt`).
        let cc_rtt = ca_rtt.unwrap_or_else(|| now.saturating_sub(pkt.ts));
        let delivered_now = if self.keeps_send_log { delivered } else { newly };
        let report = self.ecn_on_new_ack(pkt, covered);
        let ece = report.signal;
        let ce_delivered = report.ce_of(delivered_now);
        self.note_ce(report, ce_delivered);
        // Without a send log the cumulative advance is what was delivered (the meter's running
        // totals, which DCTCP reads, then count the cumulative ACKs alone).
        let echoed = (delivered_now, report.whole_delivery_echoed());
        let delay = self.meter.on_ack(now, cc_rtt, round_start, one_way_delay, echoed, newest, min_rtt);

        let delivered_now = delivered_now as f64;
        let sample = AckSample {
            now,
            acked: newly as f64,
            increase_units: if self.stack.per_ack_counting { 1.0 } else { newly as f64 },
            rtt,
            ca_rtt,
            srtt: self.rtt.srtt().unwrap_or(0),
            min_rtt,
            one_way_delay,
            delay,
            echoed_ts: pkt.ts,
            prior_in_flight: prior_flight as f64,
            in_flight: self.flight() as f64,
            delivered: self.snd_una as u64,
            round_start,
            round: self.round,
            cwnd_limited: self.cwnd_limited,
            growth: Growth { slow_start_cap: self.stack.slow_start_cap, gating: self.stack.cwnd_gating },
            ece,
            delivered_now,
            newly_lost: 0.0,
            ce_delivered: ce_delivered as f64,
            ca_state: self.ca_state(),
        };
        let mut restart_timer = true;
        if self.every_ack {
            if self.in_recovery {
                restart_timer = self.on_ack_in_recovery(newly, now);
            }
            self.pending_ack = Some(sample);
        } else if self.in_recovery {
            // The algorithm only observes ACKs in recovery (RTT samples, deliveries); the window
            // stays with the recovery procedure below.
            self.cc.on_ack_in_recovery(&sample);
            restart_timer = self.on_ack_in_recovery(newly, now);
        } else if ece {
            // Congestion was signalled: no growth on this ACK (ns-2 `opencwnd` is skipped too);
            // the algorithm observes it, and the reaction comes below.
            self.cc.on_ack_in_recovery(&sample);
        } else {
            self.cc.on_ack(&sample, &mut self.w);
            if self.watches_sends && self.cc.take_app_limited() {
                self.meter.on_out_of_data(self.flight() as u64);
            }
        }
        let rack_tlp = self.runs_rack_tlp();
        if rack_tlp {
            self.rack_tlp_on_new_ack(pkt, sack, newest, lowest_sent_once, now);
        }

        if self.snd_una >= self.total_segs {
            self.state = SenderState::Done;
            self.completed_at = Some(now);
            self.retransmit_timer.cancel();
            self.pace_timer.cancel();
            self.release_transfer_state();
            return true;
        }
        if self.snd_una >= self.snd_max {
            self.retransmit_timer.cancel();
        } else if restart_timer {
            self.arm_rto(now, fab);
        }
        if rack_tlp {
            self.rack_detect_losses(now);
        }
        // With SACK, the blocks of a new ACK may reveal a loss (RFC 6675 section 5); the loss
        // reduction then stands for any ECN-Echo on the same ACK.
        if self.detects_loss() {
            self.enter_recovery(now, fab, delivered);
        } else {
            if ece {
                self.on_ecn_echo(now);
            }
            if self.in_recovery {
                self.pace_recovery(delivered, true);
            }
            self.try_send(now, fab);
        }
        if rack_tlp {
            self.rearm_rack_tlp_timer(now, fab, true);
        }
        false
    }

    /// RFC 3168 section 6.1.2: ECN-Echo reduces the window at most once per window of data and
    /// not during loss recovery (that episode has already reduced it).
    fn on_ecn_echo(&mut self, now: Time) {
        if self.in_recovery || self.snd_una <= self.ecn.reduced_at {
            return;
        }
        self.stats.ecn_events += 1;
        self.ecn.cwr_until = self.snd_max + 1;
        let ev = self.congestion_event(CongestionKind::Ecn, now);
        self.congestion(&ev);
        if self.undo.is_some() {
            self.undo_forget();
        }
    }

    /// Handle a new ACK during fast recovery. Returns whether to restart the RTO timer.
    fn on_ack_in_recovery(&mut self, newly: u32, now: Time) -> bool {
        let s = self.seq_state();
        // An algorithm that sets cwnd on every ACK keeps it through recovery and out of it.
        let mut untouched = self.w;
        let w = if self.every_ack { &mut untouched } else { &mut self.w };
        match self.recovery.on_new_ack_in_recovery(&s, newly, self.recover, w) {
            InRecovery::Exit => {
                self.in_recovery = false;
                self.dupacks_delivered = 0;
                self.exit_recovery(now);
                true
            }
            InRecovery::Continue { restart_timer } => {
                if !self.recovery.uses_sack() {
                    // A partial ACK: the next hole is lost (Linux `tcp_newreno_mark_lost`).
                    self.unnoted_losses += 1;
                }
                restart_timer
            }
        }
    }

    /// A duplicate ACK that delivered `delivered` segments (by SACK).
    fn on_dupack(&mut self, now: Time, fab: &mut Fabric, delivered: u32) {
        self.dupacks += 1;
        self.cc.on_dupack(now);
        if self.in_recovery {
            self.recovery.on_dupack_in_recovery();
            self.pace_recovery(delivered, false);
            self.try_send(now, fab);
            return;
        }
        if self.detects_loss() {
            self.enter_recovery(now, fab, delivered);
        } else if self.undo.is_some() {
            self.undo_on_dupack(now, fab);
        }
    }

    /// An ACK in recovery that delivered `delivered` segments, its losses marked, before anything
    /// is sent: the procedure's pacing (PRR) sets the window for this ACK's sends.
    #[inline]
    fn pace_recovery(&mut self, delivered: u32, una_advanced: bool) {
        let s = self.seq_state();
        let ack = AckDelivery { delivered, una_advanced, packets_sent: self.stats.packets_sent };
        self.recovery.pace_recovery(&s, &ack, &mut self.w);
    }

    /// Whether a loss starts a recovery episode now: the procedure detects one (the DupThresh-th
    /// duplicate ACK; with SACK also the scoreboard's rule), outside recovery, and only once the
    /// cumulative ACK has passed the previous recovery point (RFC 6582 section 3.2 step 1,
    /// RFC 6675 section 5; ns-2 Reno's `bugFix_`).
    #[inline]
    fn detects_loss(&self) -> bool {
        !self.in_recovery && self.snd_una > self.recover && self.recovery.detects_loss(self.snd_una, self.dupacks)
    }

    fn reduction_basis(&self) -> f64 {
        match self.stack.ssthresh_basis {
            SsthreshBasis::Window => self.w.cwnd.min(self.rwnd),
            SsthreshBasis::FlightSize => self.flight() as f64,
            SsthreshBasis::Cwnd => self.w.cwnd,
        }
    }

    fn congestion_event(&self, kind: CongestionKind, now: Time) -> CongestionEvent {
        CongestionEvent {
            now,
            kind,
            in_flight: self.flight() as f64,
            basis: self.reduction_basis(),
            first_timeout: self.una_timeouts == 0,
            srtt: self.rtt.srtt().unwrap_or(0),
            min_rtt: self.rtt.min_rtt().unwrap_or(0),
        }
    }

    /// Hand a congestion event to the algorithm, counting it when the window shrinks. With ECN the
    /// next new segment says so (CWR), and ECN-Echo for the data outstanding now is ignored.
    fn congestion(&mut self, ev: &CongestionEvent) {
        if self.ecn.enabled {
            // AccECN has no CWR handshake: the receiver's count does not wait for one.
            self.ecn.cwr_pending = !self.ecn.accecn;
            self.ecn.reduced_at = self.snd_max;
        }
        let before = self.w.cwnd;
        self.cc.on_congestion(ev, &mut self.w);
        self.episode_cut = (before, self.w.cwnd < before);
        if self.episode_cut.1 {
            self.stats.window_cuts += 1;
        }
    }

    /// Recovery ends. An algorithm may decide only now to cut (Free-Drop, when a further loss of
    /// a free episode turns out to be near another): that counts as the episode's cut when its
    /// hook leaves the window below where the episode began.
    fn exit_recovery(&mut self, now: Time) {
        if let Some(p) = self.recovery.rack_tlp() {
            p.on_recovery_exit();
        }
        let before_hook = self.w.cwnd;
        self.cc.on_recovery_exit(now, &mut self.w);
        let (episode_start, counted) = self.episode_cut;
        if !counted && self.w.cwnd != before_hook && self.w.cwnd < episode_start {
            self.stats.window_cuts += 1;
        }
    }

    /// A recovery episode starts on an ACK that delivered `delivered` segments (0 from a timer).
    fn enter_recovery(&mut self, now: Time, fab: &mut Fabric, delivered: u32) {
        self.stats.fast_retransmits += 1;
        if self.undo.is_some() {
            self.undo_on_reduction(false);
        }
        let ev = self.congestion_event(CongestionKind::Loss, now);
        self.congestion(&ev);
        self.in_recovery = true;
        self.recover = self.snd_max;
        if self.timed.is_some_and(|(s, _)| s == self.snd_una) {
            self.timed = None; // Karn: the timed segment is being retransmitted
        }
        if !self.recovery.uses_sack() {
            // The first unacknowledged segment is lost (Linux marks the head lost).
            self.unnoted_losses += 1;
        }
        let s = self.seq_state();
        let ack = AckDelivery { delivered, una_advanced: false, packets_sent: self.stats.packets_sent };
        let mut untouched = self.w;
        let w = if self.every_ack { &mut untouched } else { &mut self.w };
        self.recovery.on_enter(&s, &ack, w);
        self.arm_rto(now, fab);
        self.try_send(now, fab);
    }

    /// The retransmission timer fired: a timeout, or under RACK-TLP a loss probe or the
    /// reordering timer, as the timer says.
    pub fn on_rto_timer(&mut self, now: Time, fab: &mut Fabric) {
        let ev = self.timer_event(TimerKind::Retransmit);
        match self.retransmit_timer.fire(now, &mut fab.events, ev) {
            None => return,
            Some(TimerDuty::Retransmission) => {}
            Some(TimerDuty::LossProbe) => return self.on_probe_timeout(now, fab),
            Some(TimerDuty::Reordering) => return self.on_reordering_timeout(now, fab),
        }
        self.stats.timeouts += 1;
        self.backoff = (self.backoff * 2).min(self.stack.max_backoff);
        match self.state {
            SenderState::Handshake => self.send_syn(now, fab),
            SenderState::Open => {
                if self.undo.is_some() {
                    self.undo_on_reduction(true);
                }
                let cev = self.congestion_event(CongestionKind::Timeout, now);
                self.congestion(&cev);
                self.una_timeouts += 1;
                self.in_recovery = false;
                self.dupacks = 0;
                self.recover = self.snd_max;
                self.loss_until = self.snd_max;
                self.timed = None;
                if !self.recovery.uses_sack() {
                    // Everything outstanding is presumed lost (the scoreboard counts its own).
                    self.unnoted_losses += u64::from(self.snd_max - self.snd_una);
                }
                self.dupacks_delivered = 0;
                self.recovery.on_timeout(self.snd_una, self.snd_max, &mut self.snd_nxt);
                if self.every_ack {
                    // Linux `tcp_enter_loss`: cwnd = in flight + 1, whatever the algorithm set.
                    self.w.cwnd = self.flight() as f64 + 1.0;
                }
                self.arm_rto(now, fab);
                self.try_send(now, fab);
            }
            _ => {}
        }
    }

    /// Segments held by the send overhead are due: they leave now, stamped with this time.
    pub fn on_release_timer(&mut self, now: Time, fab: &mut Fabric) {
        let ev = self.timer_event(TimerKind::Release);
        if !self.release_timer.fire(now, &mut fab.events, ev) {
            return;
        }
        let Some(o) = &mut self.overhead else { return };
        while let Some(mut pkt) = o.due(now) {
            pkt.ts = now;
            fab.send(pkt, now);
        }
        if let Some(at) = o.next_release() {
            self.release_timer.set(at, &mut fab.events, ev);
        }
    }

    /// The transfer is complete: nothing reads the send records or the scoreboard again (ACKs
    /// and timers of a finished sender are ignored), so their storage goes back to the allocator.
    /// A run with tens of thousands of finished transfers would otherwise keep every one's
    /// largest window of records.
    fn release_transfer_state(&mut self) {
        self.send_log = SendLog::default();
        self.recovery.release();
    }

    /// Data packets counted as sent but still held by the send overhead.
    pub fn held_packets(&self) -> u64 {
        self.overhead.as_ref().map_or(0, |o| o.held().count() as u64)
    }

    pub fn on_pacing_timer(&mut self, now: Time, fab: &mut Fabric) {
        let ev = self.timer_event(TimerKind::Pacing);
        if !self.pace_timer.fire(now, &mut fab.events, ev) || self.state != SenderState::Open {
            return;
        }
        let snd_max = self.snd_max;
        if self.next_segment().is_some() {
            self.try_send(now, fab);
        } else {
            self.cc.on_send_blocked(now);
        }
        if self.runs_rack_tlp() {
            self.rearm_rack_tlp_timer(now, fab, self.snd_max > snd_max);
        }
    }

    fn arm_rto(&mut self, now: Time, fab: &mut Fabric) {
        let at = now + self.rtt.backed_off(self.backoff);
        self.retransmit_timer.set_rto(at, &mut fab.events, self.timer_event(TimerKind::Retransmit));
    }

    /// The segment the window allows next, and whether it is a retransmission.
    #[inline]
    fn next_segment(&mut self) -> Option<(u32, bool)> {
        let seq = self.seq_state();
        self.recovery.next_segment(&seq, self.w.cwnd + self.dupacks_delivered as f64, self.rwnd)
    }

    fn try_send(&mut self, now: Time, fab: &mut Fabric) {
        if self.state != SenderState::Open || self.hold_sends {
            return;
        }
        if self.rate_details {
            self.note_losses();
        }
        while let Some((seq, retransmission)) = self.next_segment() {
            if self.watches_sends {
                if let Some(at) = self.pacing_time(now) {
                    self.pace_timer.set(at, &mut fab.events, self.timer_event(TimerKind::Pacing));
                    return;
                }
            }
            if let Some(at) = self.pacing.hold_until(now) {
                self.pace_timer.set(at, &mut fab.events, self.timer_event(TimerKind::Pacing));
                return;
            }
            self.recovery.on_send(seq, retransmission, &mut self.snd_nxt, now);
            self.transmit(seq, retransmission, now, fab);
        }
        let more_data = self.snd_nxt < self.total_segs;
        self.cwnd_limited = more_data && self.w.cwnd + self.inflation() <= self.rwnd;
        if !more_data {
            self.meter.on_out_of_data(self.flight() as u64);
        }
    }

    /// ECT(0) or ECT(1) on new data, and CWR on the first new segment after a window reduction.
    fn ecn_codepoint(&mut self) -> u8 {
        if std::mem::take(&mut self.ecn.cwr_pending) {
            self.ecn.ect | ecn::CWR
        } else {
            self.ecn.ect
        }
    }

    // Inlined into `try_send`, the hot path, even though the loss probe calls it too (a second
    // caller would otherwise keep it out of line: 5-8% more instructions per event measured).
    #[inline(always)]
    fn transmit(&mut self, seq: u32, retransmission: bool, now: Time, fab: &mut Fabric) {
        let size = if seq + 1 == self.total_segs { self.last_seg_wire } else { self.mss + HEADER_BYTES };
        let mut pkt = self.packet(PacketKind::Data, seq, size, now);
        if self.ecn.enabled && !retransmission {
            pkt.ecn = self.ecn_codepoint();
        }
        match &mut self.overhead {
            None => fab.send(pkt, now),
            Some(o) => {
                // The timer serves the holding queue's head: the earliest release. Setting it to
                // this packet's own (later) release would hold every packet before it too.
                o.hold(pkt, now);
                let head = o.next_release().expect("a packet was just held");
                self.release_timer.set(head, &mut fab.events, self.timer_event(TimerKind::Release));
            }
        }
        let empty = self.snd_max <= self.snd_una;
        self.stats.packets_sent += 1;
        if let Some(rate) = self.cc.pacing_rate() {
            self.pacing.on_send(now, self.stats.packets_sent, rate);
        }
        if retransmission {
            self.stats.retransmits += 1;
            if let Some(u) = &mut self.undo {
                u.on_retransmit(seq, now);
            }
            if self.timed.is_some_and(|(s, _)| s == seq) {
                self.timed = None;
            }
        } else if self.timed.is_none() && self.stack.rtt_sampling == RttSampling::OnePerRtt {
            self.timed = Some((seq, now));
        }
        self.snd_max = self.snd_max.max(seq + 1);
        if self.keeps_send_log {
            let in_flight = if self.rate_details { self.flight() as u64 } else { 0 };
            let stamp = self.meter.on_send(now, empty, in_flight);
            self.send_log.on_send(seq, stamp);
        } else {
            self.meter.on_send(now, empty, 0);
        }
        if !self.retransmit_timer.is_rto_armed() {
            self.arm_rto(now, fab);
        }
        if self.watches_sends {
            let sent = SentSample { now, seq, retransmission, in_flight: self.flight() as f64 };
            self.cc.on_sent(&sent);
        }
    }

    /// When the algorithm's pacing holds the next segment back to, if later than `now`.
    fn pacing_time(&mut self, now: Time) -> Option<Time> {
        let ctx =
            PacingContext { now, window: self.w, srtt: self.rtt.srtt().unwrap_or(0), in_flight: self.flight() as f64 };
        self.cc.next_send_time(&ctx).filter(|&at| at > now)
    }
}

/// What the send log says about the segments an ACK newly acknowledges
/// ([`Sender::newly_acked`]).
#[derive(Clone, Copy, Debug, Default)]
struct NewlyAcked {
    /// Linux's `ca_rtt` under every-ACK sampling.
    ca_rtt: Option<Dur>,
    /// Segments newly delivered.
    delivered: u32,
    /// The most recently sent of them.
    newest: Newest,
    /// The lowest-numbered of them never retransmitted (RACK's reordering detection).
    lowest_sent_once: Option<u32>,
}

#[path = "sender_rack_tlp.rs"]
mod rack_tlp;

#[path = "undo.rs"]
mod undo;

#[path = "frto.rs"]
mod frto;

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "sender_ecn_tests.rs"]
mod ecn_tests;

#[cfg(test)]
#[path = "sender_hooks_tests.rs"]
mod hooks_tests;
