//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: Congestion-Based Congestion
//! Control", ACM Queue 14(5), 2016), as Linux 5.x/6.x `net/ipv4/tcp_bbr.c` runs it.
//!
//! BBR models the path by two numbers: the bottleneck bandwidth, the largest delivery rate of the
//! last 10 rounds ([`AckSample::delay`]'s rate sample, Linux `tcp_rate.c`), and the propagation
//! delay, the smallest RTT of the last 10 s. It paces at `pacing_gain` times the bandwidth (1%
//! below, Linux's pacing margin) and caps the flight at `cwnd_gain` times the product of the two,
//! the BDP. Four modes set the gains:
//! * STARTUP, both gains 2/ln 2 (Linux 739/256 = 2.887), until the bandwidth grew less than 25%
//!   in 3 rounds running (not counting app-limited samples);
//! * DRAIN, pacing gain 88/256 (1/2.885), cwnd gain 2.887, until the flight is at most one BDP;
//! * PROBE_BW, cwnd gain 2 and a pacing gain cycling through [1.25, 0.75, 1, 1, 1, 1, 1, 1], one
//!   phase per minimum RTT (the 1.25 phase lasts until the flight reaches 1.25 BDP or a loss, the
//!   0.75 one ends early once the flight is at most one BDP), entered at a random phase other
//!   than 0.75 (drawn from the flow's own stream, so runs stay byte-exact);
//! * PROBE_RTT, when the minimum RTT is 10 s old: cwnd 4 segments until the flight has been at 4
//!   or less for max(200 ms, one round), then back to PROBE_BW (or STARTUP if the pipe was never
//!   found full) with the cwnd from before.
//!
//! The window: cwnd moves toward the target cwnd_gain x BDP + the ACK-aggregation allowance +
//! 3 send quanta, rounded up to even (plus 2 in the 1.25 phase), by the segments each ACK
//! delivers; before the pipe is full it only grows. At least 4 segments (Linux
//! `bbr_cwnd_min_target`). Losses do not cut by a factor: entering recovery saves the cwnd and
//! sets it to the flight plus the ACK's segment (packet conservation); leaving recovery restores
//! the saved cwnd, capped by the target. An undone reduction (the stack's `undo`, `frto`;
//! Linux `bbr_undo_cwnd`) keeps the cwnd, restarts full-pipe detection and restores the saved
//! cwnd at the next ACK. A timeout sets cwnd to 1 (Linux
//! `tcp_enter_loss`), forgets the full-pipe bandwidth and restores the saved cwnd once the data
//! outstanding at the timeout is acknowledged. ssthresh stays as the stack set it, except that
//! entering DRAIN sets it to one BDP's target (as Linux, for reporting). ECN-Echo only saves the
//! cwnd (BBR v1 ignores ECN; Linux's CWR state does not touch a `cong_control` module's cwnd).
//!
//! Units: bandwidth and pacing rate in segments per second (the series' `cc_btlbw`,
//! `cc_pacing_rate`; multiply by the wire size of a segment for bit/s), `cc_min_rtt` in seconds,
//! `cc_state` 0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT (Linux's `bbr_mode` order),
//! `cc_pacing_gain`, `cc_cwnd_gain` as plain factors.
//!
//! Pacing is Linux's internal (earliest-departure-time) pacing: after each segment the next may
//! leave 1/pacing_rate later, less up to half of that for the time the sender was late (Linux's
//! credit for OS jitter), and the first 10 segments of the connection are not paced (as sch_fq).
//! ccsim has no TSO/GSO: it paces single segments, and the send quantum Linux budgets for
//! (`bbr_tso_segs_goal`: about 1 ms of data at the pacing rate, at least 2 segments, at most a
//! 64 KB GSO burst) is computed in segments: max(pacing rate / 1024 s^-1, 2) segments, at most
//! 44 (1 segment below 100 segments/s, Linux's 1.2 Mb/s threshold at 1500-byte packets).
//!
//! Where ccsim's hooks fall short of Linux (the sender's code was not changed for BBR):
//! * During loss recovery the sender owns cwnd ([`CongestionControl::on_ack_in_recovery`] only
//!   observes), so the cwnd BBR sets on entering recovery holds until recovery ends: packet
//!   conservation for the whole episode, where Linux conserves for one round and then grows
//!   toward the target by up to 2 segments per segment delivered. BBR's model (bandwidth,
//!   min RTT, mode, pacing rate) is still updated on every ACK in recovery. A PROBE_RTT entered in
//!   recovery caps cwnd only when recovery ends. ACKs carrying ECN-Echo are likewise observed
//!   only.
//! * The hooks give no per-ACK loss count (`rs->losses`): the 1.25 phase ends on a loss when a
//!   congestion event came since the last ACK, and the deduction of newly lost segments from
//!   cwnd is not modelled (recovery entry sets cwnd to the flight + 1 anyway).
//! * Rounds are BBR's own, as Linux counts them: a round ends when a segment sent after it began
//!   is delivered (the rate sample's segment, sent `ca_rtt` before the ACK), and recovery and
//!   PROBE_RTT's low point start one. The sender's [`AckSample::round_start`] counts by the
//!   cumulative ACK, which stalls through a long SACK recovery and would stretch the 10-round
//!   bandwidth window over seconds.
//! * Segments delivered per ACK (Linux `acked_sacked`, for cwnd growth and ACK aggregation): the
//!   cumulative advance less the segments duplicate ACKs reported (one each), since the hooks
//!   carry no SACK count and [`AckSample::prior_in_flight`] equals `in_flight` under SACK (the
//!   sender counts `pipe` after the ACK's SACK blocks and cumulative point are applied).
//! * ccsim's delivery-rate sample counts a segment when SACK reports it or the cumulative ACK
//!   passes it; without SACK (the `ns2` and `rfc` profiles) Linux counts each duplicate ACK as a
//!   delivered segment, ccsim does not, so the ACK that fills a hole counts everything above it
//!   at once and rates measured across it overshoot the path (4x on a lossy 10 Mb/s path), while
//!   those measured in recovery undershoot. BBR here leaves out rate samples of segments sent
//!   before an ACK whose cumulative advance covered segments duplicate ACKs had reported, and
//!   lets samples taken in recovery or after a timeout only raise the estimate, as app-limited
//!   ones. With SACK this drops about a round of samples after each recovery.
//! * PROBE_RTT marks the sender app-limited in Linux, so that its low delivery rates do not enter
//!   the bandwidth filter; ccsim's sender marks only running out of data, so BBR treats the rate
//!   samples of segments sent from PROBE_RTT's start until the data in flight at its end has
//!   been delivered as app-limited itself (the segment's send time is the ACK's time less its
//!   `ca_rtt`, the same segment the rate sample is taken from).
//! * Linux does not let an ACK that may have been delayed (one that delivers a single segment)
//!   replace an expired minimum RTT; here: an ACK whose cumulative advance is one segment.
//! * The end of the loss state after a timeout is when the cumulative ACK passes the data
//!   outstanding at the timeout as the sender counted it (`pipe` under SACK recovery).
//!
//! Not modelled: the long-term bandwidth (policer) estimator (`lt_bw`; Linux uses it only after
//! two lossy intervals of consistent rate, loss above 20%); restarts from idle
//! (`CA_EVENT_TX_START`: ccsim's flows do not go idle mid-transfer); `snd_cwnd_clamp`.

use super::common::ca_rtt;
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, PacingContext, SentSample, Window};
use crate::rng::{uniform, Stream};
use crate::units::{Dur, Time, NS_PER_MS, NS_PER_S};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "high_gain",
        kind: ParamKind::Float,
        default: HIGH_GAIN,
        min: 1.0,
        max: 10.0,
        doc: "STARTUP's pacing and cwnd gain, DRAIN's cwnd gain and the inverse of its pacing gain's \
              nominal value (Linux tcp_bbr.c: 2/ln 2 as 739/256)",
    },
    ParamInfo {
        name: "cwnd_gain",
        kind: ParamKind::Float,
        default: 2.0,
        min: 1.0,
        max: 10.0,
        doc: "PROBE_BW's cwnd in BDPs, before the allowances (Linux bbr_cwnd_gain 2)",
    },
    ParamInfo {
        name: "bw_window_rounds",
        kind: ParamKind::Int,
        default: 10.0,
        min: 1.0,
        max: 1000.0,
        doc: "rounds the bandwidth max filter spans (Linux bbr_bw_rtts: the 8-phase cycle + 2)",
    },
    ParamInfo {
        name: "min_rtt_window",
        kind: ParamKind::Float,
        default: 10.0,
        min: 0.001,
        max: 1e6,
        doc: "seconds the minimum RTT is trusted before PROBE_RTT (Linux bbr_min_rtt_win_sec 10)",
    },
    ParamInfo {
        name: "probe_rtt_time",
        kind: ParamKind::Float,
        default: 0.2,
        min: 0.0,
        max: 1e3,
        doc: "seconds PROBE_RTT holds the flight at 4 segments, at least a round too (Linux \
              bbr_probe_rtt_mode_ms 200)",
    },
    ParamInfo {
        name: "ack_aggregation",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "add the ACK-aggregation allowance to the target cwnd once the pipe is full (Linux 5.x/6.x: \
              bbr_extra_acked_gain 1, 5-round window, at most 100 ms at the bandwidth)",
    },
];

/// 2/ln 2 as Linux's fixed point has it: 256 x 2.885 + 1 = 739 in 256ths.
pub const HIGH_GAIN: f64 = 739.0 / 256.0;
/// DRAIN's pacing gain: 256 / 2.885 = 88 in 256ths.
const DRAIN_GAIN: f64 = 88.0 / 256.0;
/// PROBE_BW's pacing gains, one phase per minimum RTT.
pub const PACING_GAINS: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The smallest cwnd outside PROBE_RTT, and PROBE_RTT's cwnd.
pub const CWND_MIN_TARGET: f64 = 4.0;
/// Full pipe: the bandwidth grew less than this factor ...
const FULL_BW_THRESH: f64 = 1.25;
/// ... in this many rounds running.
const FULL_BW_ROUNDS: u32 = 3;
/// The pacing rate is this fraction of bandwidth x gain.
const PACING_MARGIN: f64 = 0.99;
/// Linux's initial window: cwnd grows in STARTUP until this much is delivered, whatever the target.
const INIT_CWND: f64 = 10.0;
/// Segments that leave unpaced at the start of a connection (sch_fq's and Linux's rule).
const UNPACED_SEGMENTS: u64 = 10;
/// The ACK-aggregation estimate's window: two halves of this many rounds.
const EXTRA_ACKED_ROUNDS: u32 = 5;
/// The aggregation allowance is at most this much data at the bandwidth.
const EXTRA_ACKED_MAX: Dur = 100 * NS_PER_MS;
/// An aggregation epoch restarts after this many segments (Linux's 20-bit counter).
const ACK_EPOCH_RESET: f64 = (1u64 << 20) as f64;

/// BBR's modes, numbered as Linux's `bbr_mode` (the series' `cc_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

/// A running maximum over a window of `win` time units (here rounds), kept as the best, second
/// best and third best samples of successive sub-windows (Nichols' windowed min/max filter, which
/// Linux `lib/minmax.c` implements): O(1) per sample, exact when the maximum is recent and an
/// approximation by sub-window otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct WindowedMax {
    best: [(u64, f64); 3],
}

impl WindowedMax {
    fn get(&self) -> f64 {
        self.best[0].1
    }

    fn reset(&mut self, t: u64, v: f64) {
        self.best = [(t, v); 3];
    }

    fn update(&mut self, win: u64, t: u64, v: f64) {
        let [first, second, third] = self.best;
        if v >= first.1 || t.saturating_sub(third.0) > win {
            // A new maximum, or nothing left in the window.
            self.reset(t, v);
            return;
        }
        if v >= second.1 {
            self.best[1] = (t, v);
            self.best[2] = (t, v);
        } else if v >= third.1 {
            self.best[2] = (t, v);
        }
        let age = t.saturating_sub(first.0);
        if age > win {
            // The best has left the window: the others move up, the sample comes in third.
            self.best = [self.best[1], self.best[2], (t, v)];
            if t.saturating_sub(self.best[0].0) > win {
                self.best = [self.best[1], self.best[2], (t, v)];
            }
        } else if self.best[1].0 == first.0 && age > win / 4 {
            // A quarter of the window passed with one choice: take a second from the sample.
            self.best[1] = (t, v);
            self.best[2] = (t, v);
        } else if self.best[2].0 == self.best[1].0 && age > win / 2 {
            self.best[2] = (t, v);
        }
    }
}

#[derive(Clone, Debug)]
pub struct Bbr {
    high_gain: f64,
    probe_bw_cwnd_gain: f64,
    bw_window_rounds: u64,
    min_rtt_window: Dur,
    probe_rtt_time: Dur,
    ack_aggregation: bool,
    rng: Stream,

    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Delivery rates of the last rounds, segments/s.
    bw: WindowedMax,
    /// Rounds counted so far (the bandwidth filter's clock).
    rounds: u64,
    round_start: bool,
    /// When the current round began: it ends with the delivery of a segment sent since.
    round_began_at: Time,
    min_rtt: Option<Dur>,
    min_rtt_stamp: Time,
    probe_rtt_done_at: Option<Time>,
    probe_rtt_round_done: bool,
    /// Rate samples of segments sent in `[from, until)` are app-limited (PROBE_RTT's marking);
    /// `until` is `None` while marking, and the marking stops once `delivered` passes `mark`.
    quiet_from: Option<Time>,
    quiet_until: Option<Time>,
    quiet_mark: u64,
    full_bw: f64,
    /// ssthresh for the sender when STARTUP ends (applied where the sender lends the window).
    drain_ssthresh: Option<f64>,
    full_bw_count: u32,
    full_bw_reached: bool,
    cycle_index: usize,
    cycle_stamp: Time,
    /// Segments/s; 0 until the first send sets it from the RTT.
    pacing_rate: f64,
    has_seen_rtt: bool,
    /// The cwnd to come back to after recovery or PROBE_RTT ("last known good").
    prior_cwnd: f64,
    /// The cwnd BBR last set (the sender's during recovery may differ).
    cwnd: f64,
    in_recovery: bool,
    /// After a timeout: the loss state ends, and the saved cwnd comes back, when `delivered`
    /// reaches this (0 after an undo: at the next ACK).
    loss_until: Option<u64>,
    /// A congestion event came since the last ACK (Linux's `rs->losses` for the gain cycle).
    losses: bool,
    /// The latest cumulative-ACK count seen, and what the latest ACK delivered.
    delivered: u64,
    last_acked: f64,
    /// Segments SACKed (one per duplicate ACK) that the cumulative ACK has not yet passed.
    sacked: f64,
    /// The last ACK whose cumulative advance covered segments duplicate ACKs had reported.
    burst_at: Option<Time>,
    // ACK aggregation.
    ack_epoch_start: Time,
    ack_epoch_acked: f64,
    extra_acked: [f64; 2],
    extra_acked_rounds: u32,
    extra_acked_index: usize,
    // Pacing: the earliest departure time of the next segment, and segments sent.
    next_departure: Time,
    segments_sent: u64,
}

impl Bbr {
    pub fn new(rng: Stream) -> Self {
        Bbr {
            high_gain: HIGH_GAIN,
            probe_bw_cwnd_gain: 2.0,
            bw_window_rounds: 10,
            min_rtt_window: 10 * NS_PER_S,
            probe_rtt_time: 200 * NS_PER_MS,
            ack_aggregation: true,
            rng,
            mode: Mode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            bw: WindowedMax::default(),
            rounds: 0,
            round_start: false,
            round_began_at: 0,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_done_at: None,
            probe_rtt_round_done: false,
            quiet_from: None,
            quiet_until: None,
            quiet_mark: 0,
            full_bw: 0.0,
            drain_ssthresh: None,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_index: 0,
            cycle_stamp: 0,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            prior_cwnd: 0.0,
            cwnd: INIT_CWND,
            in_recovery: false,
            loss_until: None,
            losses: false,
            delivered: 0,
            last_acked: 0.0,
            sacked: 0.0,
            burst_at: None,
            ack_epoch_start: 0,
            ack_epoch_acked: 0.0,
            extra_acked: [0.0; 2],
            extra_acked_rounds: 0,
            extra_acked_index: 0,
            next_departure: 0,
            segments_sent: 0,
        }
    }

    pub fn from_params(p: &Params, rng: Stream) -> Self {
        let mut b = Bbr::new(rng);
        b.high_gain = p.get("high_gain");
        b.probe_bw_cwnd_gain = p.get("cwnd_gain");
        b.bw_window_rounds = p.get("bw_window_rounds") as u64;
        b.min_rtt_window = (p.get("min_rtt_window") * NS_PER_S as f64).round() as Dur;
        b.probe_rtt_time = (p.get("probe_rtt_time") * NS_PER_S as f64).round() as Dur;
        b.ack_aggregation = p.flag("ack_aggregation");
        b.update_gains();
        b
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The bottleneck bandwidth estimate, segments/s.
    pub fn btlbw(&self) -> f64 {
        self.bw.get()
    }

    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    pub fn cycle_index(&self) -> usize {
        self.cycle_index
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// ceil(bw x min_rtt x gain) segments; the initial window before any RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            None => INIT_CWND,
            Some(rtt) => (bw * rtt as f64 / NS_PER_S as f64 * gain - 1e-9).ceil().max(0.0),
        }
    }

    /// Linux `bbr_tso_segs_goal` in segments (module docs).
    fn send_quantum(&self) -> f64 {
        if self.pacing_rate < 100.0 {
            1.0
        } else {
            (self.pacing_rate / 1024.0).floor().clamp(2.0, 44.0)
        }
    }

    /// Room for the segments end hosts hold, rounded up to even, and 2 more in the 1.25 phase.
    fn quantization_budget(&self, cwnd: f64) -> f64 {
        let cwnd = cwnd + 3.0 * self.send_quantum();
        let even = 2.0 * (cwnd / 2.0).ceil();
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            even + 2.0
        } else {
            even
        }
    }

    /// The flight that `gain` x BDP asks for, with the budget.
    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// The flight left in the network when the next segment may leave: what is in flight now
    /// less what the bottleneck delivers meanwhile (plus that segment's quantum when growing).
    fn in_network_at_departure(&self, in_flight: f64, now: Time) -> f64 {
        let wait = self.next_departure.saturating_sub(now);
        let delivered_meanwhile = (self.bw.get() * wait as f64 / NS_PER_S as f64).floor();
        let mut at_departure = in_flight;
        if self.pacing_gain > 1.0 {
            at_departure += self.send_quantum();
        }
        (at_departure - delivered_meanwhile).max(0.0)
    }

    fn ack_aggregation_cwnd(&self) -> f64 {
        if !self.ack_aggregation || !self.full_bw_reached {
            return 0.0;
        }
        let cap = (self.bw.get() * EXTRA_ACKED_MAX as f64 / NS_PER_S as f64).floor();
        self.extra_acked[0].max(self.extra_acked[1]).min(cap)
    }

    fn save_cwnd(&mut self, cwnd: f64) {
        self.prior_cwnd = if !self.in_recovery && self.loss_until.is_none() && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.high_gain, self.high_gain),
            Mode::Drain => (DRAIN_GAIN * HIGH_GAIN / self.high_gain, self.high_gain),
            Mode::ProbeBw => (PACING_GAINS[self.cycle_index], self.probe_bw_cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_index = (self.cycle_index + 1) % PACING_GAINS.len();
        self.cycle_stamp = now;
    }

    /// PROBE_BW at a random phase other than the 0.75 one: the phase before one of 7 drawn
    /// uniformly from {7, 6, ..., 1}, then advanced to the next, so 0 or 2..7.
    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        let draw = ((uniform(&mut self.rng) * 7.0) as usize).min(6);
        self.cycle_index = PACING_GAINS.len() - 1 - draw;
        self.advance_cycle_phase(now);
    }

    fn reset_mode(&mut self, now: Time) {
        if self.full_bw_reached {
            self.enter_probe_bw(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Whether a rate sample of the segment sent at `sent_at` falls in PROBE_RTT's marking.
    fn quiet(&self, sent_at: Time) -> bool {
        match self.quiet_from {
            Some(from) => sent_at >= from && self.quiet_until.is_none_or(|until| sent_at < until),
            None => false,
        }
    }

    /// Everything BBR learns from an ACK, in Linux's order (`bbr_update_model`), and the pacing
    /// rate from it. The cwnd is set separately, where the sender lends it.
    fn update_model(&mut self, ack: &AckSample, cwnd_now: f64) {
        let now = ack.now;
        self.delivered = ack.delivered;
        self.last_acked = self.acked_sacked(ack);
        let rtt = ca_rtt(ack);
        let sent_at = now.saturating_sub(rtt);
        let app_limited = ack.delay.rate.is_some_and(|r| r.valid && r.app_limited) || self.quiet(sent_at);
        // Rates measured in recovery may only raise the estimate (see the module docs).
        let repairing = self.in_recovery || self.loss_until.is_some();
        // PROBE_RTT's marking stops once what was in flight at its end is delivered.
        let marking = self.quiet_from.is_some() && self.quiet_until.is_none();
        if marking && self.mode != Mode::ProbeRtt && ack.delivered > self.quiet_mark {
            self.quiet_until = Some(now);
        }

        // Bandwidth (Linux `bbr_update_bw`). A round ends when a segment sent after it began is
        // delivered (the segment of the rate sample, sent `rtt` ago).
        self.round_start = ack.delay.rate.is_some_and(|r| r.valid) && sent_at >= self.round_began_at;
        if self.round_start {
            self.rounds += 1;
            self.round_began_at = now;
        }
        // A rate sample whose interval spans such an ACK counts what it covered as delivered at
        // once (without SACK the sender's count takes no note of duplicate ACKs, where Linux
        // counts each as a delivered segment): it is left out.
        let spans_burst = self.burst_at.is_some_and(|at| sent_at < at);
        if let Some(rs) = ack.delay.rate.filter(|r| r.valid && !spans_burst) {
            let bw = rs.rate().unwrap_or_default();
            if !(app_limited || repairing) || bw >= self.bw.get() {
                self.bw.update(self.bw_window_rounds, self.rounds, bw);
            }
            let acked = self.last_acked;
            if acked > 0.0 {
                self.update_ack_aggregation(now, acked, cwnd_now);
            }
        }

        // Gain cycling.
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(ack) {
            self.advance_cycle_phase(now);
        }
        self.losses = false;

        // Full pipe.
        if !self.full_bw_reached && self.round_start && !app_limited {
            let bw = self.bw.get();
            if bw >= self.full_bw * FULL_BW_THRESH {
                self.full_bw = bw;
                self.full_bw_count = 0;
            } else {
                self.full_bw_count += 1;
                self.full_bw_reached = self.full_bw_count >= FULL_BW_ROUNDS;
            }
        }

        // Drain. Linux sets ssthresh to one BDP's flight here (reporting only).
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.drain_ssthresh = Some(self.inflight(self.bw.get(), 1.0));
        }
        if self.mode == Mode::Drain
            && self.in_network_at_departure(ack.in_flight, now) <= self.inflight(self.bw.get(), 1.0)
        {
            self.enter_probe_bw(now);
        }

        self.update_min_rtt(ack, rtt, cwnd_now);
        self.update_gains();
        self.set_pacing_rate(ack.srtt, cwnd_now);
    }

    fn update_ack_aggregation(&mut self, now: Time, acked: f64, cwnd_now: f64) {
        if !self.ack_aggregation {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= EXTRA_ACKED_ROUNDS {
                self.extra_acked_rounds = 0;
                self.extra_acked_index = 1 - self.extra_acked_index;
                self.extra_acked[self.extra_acked_index] = 0.0;
            }
        }
        let epoch = now.saturating_sub(self.ack_epoch_start);
        let mut expected = (self.bw.get() * epoch as f64 / NS_PER_S as f64).floor();
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + acked >= ACK_EPOCH_RESET {
            // ACKs came no faster than the bandwidth: a new epoch starts here.
            self.ack_epoch_acked = 0.0;
            self.ack_epoch_start = now;
            expected = 0.0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(ACK_EPOCH_RESET - 1.0);
        let extra = (self.ack_epoch_acked - expected).min(cwnd_now);
        let slot = &mut self.extra_acked[self.extra_acked_index];
        *slot = slot.max(extra);
    }

    /// Linux `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, ack: &AckSample) -> bool {
        let full_length = self.min_rtt.is_some_and(|m| ack.now.saturating_sub(self.cycle_stamp) > m);
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let in_network = self.in_network_at_departure(ack.prior_in_flight, ack.now);
        let bw = self.bw.get();
        if self.pacing_gain > 1.0 {
            full_length && (self.losses || in_network >= self.inflight(bw, self.pacing_gain))
        } else {
            full_length || in_network <= self.inflight(bw, 1.0)
        }
    }

    /// Linux `bbr_update_min_rtt`, PROBE_RTT included.
    fn update_min_rtt(&mut self, ack: &AckSample, rtt: Dur, cwnd_now: f64) {
        let now = ack.now;
        let expired = now > self.min_rtt_stamp + self.min_rtt_window;
        let maybe_delayed = ack.acked == 1.0;
        if self.min_rtt.is_none_or(|m| rtt < m) || (expired && !maybe_delayed) {
            self.min_rtt = Some(rtt);
            self.min_rtt_stamp = now;
        }
        if self.probe_rtt_time > 0 && expired && self.mode != Mode::ProbeRtt {
            self.save_cwnd(cwnd_now);
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_done_at = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // Rates measured from here until the flight recovers say little of the path.
        if self.quiet_from.is_none() || self.quiet_until.is_some() {
            self.quiet_from = Some(now);
            self.quiet_until = None;
        }
        self.quiet_mark = ack.delivered + ack.in_flight as u64;
        match self.probe_rtt_done_at {
            None if ack.in_flight <= CWND_MIN_TARGET => {
                self.probe_rtt_done_at = Some(now + self.probe_rtt_time);
                self.probe_rtt_round_done = false;
                self.round_began_at = now;
            }
            None => {}
            Some(_) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(now);
                }
            }
        }
    }

    /// PROBE_RTT ends once its time and its round are over: the minimum RTT counts as fresh, and
    /// the cwnd from before comes back (applied where the sender lends the window).
    fn check_probe_rtt_done(&mut self, now: Time) {
        if self.probe_rtt_done_at.is_some_and(|at| now > at) {
            self.min_rtt_stamp = now;
            self.cwnd = self.cwnd.max(self.prior_cwnd);
            self.reset_mode(now);
        }
    }

    fn set_pacing_rate(&mut self, srtt: Dur, cwnd_now: f64) {
        if !self.has_seen_rtt && srtt > 0 {
            self.init_pacing_rate(srtt, cwnd_now);
        }
        let rate = self.bw.get() * self.pacing_gain * PACING_MARGIN;
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// high_gain x cwnd / RTT, before any bandwidth sample (1 ms without an RTT).
    fn init_pacing_rate(&mut self, srtt: Dur, cwnd_now: f64) {
        let rtt = if srtt > 0 {
            self.has_seen_rtt = true;
            srtt
        } else {
            NS_PER_MS
        };
        self.pacing_rate = cwnd_now * NS_PER_S as f64 / rtt as f64 * self.high_gain * PACING_MARGIN;
    }

    /// Segments this ACK newly delivered, Linux's `acked_sacked`: the cumulative advance less the
    /// segments duplicate ACKs already reported delivered (one each), so that the ACK of a
    /// retransmission that fills a hole does not count the segments above it a second time.
    fn acked_sacked(&mut self, ack: &AckSample) -> f64 {
        let newly = (ack.acked - self.sacked).max(ack.acked.min(1.0));
        if ack.acked > newly {
            self.burst_at = Some(ack.now);
        }
        self.sacked = (self.sacked - (ack.acked - newly)).max(0.0);
        newly
    }

    /// Linux `bbr_set_cwnd` outside recovery: toward the target by what the ACK delivered.
    fn set_cwnd(&mut self, ack: &AckSample) {
        let acked = self.last_acked;
        if acked > 0.0 {
            if self.loss_until.is_some_and(|end| ack.delivered >= end) {
                // The loss state after a timeout is over: back to the cwnd from before.
                self.loss_until = None;
                self.cwnd = self.cwnd.max(self.prior_cwnd);
            }
            self.grow_toward_target(acked, ack.delivered);
        }
        self.cap_in_probe_rtt();
    }

    /// Slow start toward the target before the pipe is full; after, up to it or down to it.
    fn grow_toward_target(&mut self, acked: f64, delivered: u64) {
        let bw = self.bw.get();
        let target = self.quantization_budget(self.bdp(bw, self.cwnd_gain) + self.ack_aggregation_cwnd());
        if self.full_bw_reached {
            self.cwnd = (self.cwnd + acked).min(target);
        } else if self.cwnd < target || (delivered as f64) < INIT_CWND {
            self.cwnd += acked;
        }
        self.cwnd = self.cwnd.max(CWND_MIN_TARGET);
    }

    fn cap_in_probe_rtt(&mut self) {
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(CWND_MIN_TARGET);
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.cwnd = w.cwnd;
        self.update_model(ack, w.cwnd);
        if let Some(ssthresh) = self.drain_ssthresh.take() {
            w.ssthresh = ssthresh;
        }
        self.set_cwnd(ack);
        w.cwnd = self.cwnd;
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        let cwnd = self.cwnd;
        self.update_model(ack, cwnd);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.save_cwnd(w.cwnd);
        match ev.kind {
            CongestionKind::Loss => {
                self.losses = true;
                self.round_began_at = ev.now;
                // Packet conservation: what is in flight, plus the segment this ACK delivered.
                self.in_recovery = true;
                self.cwnd = (ev.in_flight + 1.0).max(1.0);
                self.cap_in_probe_rtt();
                w.cwnd = self.cwnd;
            }
            CongestionKind::Ecn => {}
            CongestionKind::Timeout => {
                self.losses = true;
                self.full_bw = 0.0;
                self.in_recovery = false;
                self.loss_until = Some(self.delivered + ev.in_flight.max(1.0) as u64);
                self.cwnd = 1.0;
                w.cwnd = 1.0;
            }
        }
    }

    /// Linux restores the cwnd from before recovery on the ACK that ends it, and the same ACK
    /// then moves it toward the target: both happen here, with what that ACK delivered.
    fn on_recovery_exit(&mut self, _now: Time, w: &mut Window) {
        self.in_recovery = false;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.grow_toward_target(self.last_acked, self.delivered);
        self.cap_in_probe_rtt();
        w.cwnd = self.cwnd;
    }

    /// Linux `bbr_undo_cwnd`: the reduction was spurious, so the slow-down that made STARTUP's
    /// bandwidth look flat may have been too: full-pipe detection starts over (the pipe stays
    /// full if it was found full). The cwnd stays as it is; the ACK after the undo finds the
    /// recovery or loss state over and restores the saved cwnd, as Linux does.
    fn undo_cwnd(&mut self, _now: Time, w: &Window, _prior_cwnd: f64) -> f64 {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        if self.in_recovery || self.loss_until.is_some() {
            self.in_recovery = false;
            self.loss_until = Some(0);
        }
        self.cwnd = w.cwnd;
        w.cwnd
    }

    fn on_dupack(&mut self, _now: Time) {
        self.sacked += 1.0;
    }

    fn watches_sends(&self) -> bool {
        true
    }

    fn wants_delivery_rate(&self) -> bool {
        true
    }

    fn on_sent(&mut self, sent: &SentSample) {
        self.segments_sent += 1;
        let prior = self.next_departure;
        self.next_departure = self.next_departure.max(sent.now);
        if self.segments_sent >= UNPACED_SEGMENTS && self.pacing_rate > 0.0 {
            let gap = (NS_PER_S as f64 / self.pacing_rate) as Dur;
            let late = self.next_departure - prior;
            self.next_departure += gap - late.min(gap / 2);
        }
    }

    fn next_send_time(&mut self, ctx: &PacingContext) -> Option<Time> {
        if self.pacing_rate == 0.0 || (!self.has_seen_rtt && ctx.srtt > 0) {
            // The connection opens: Linux's `bbr_init` runs with the handshake's RTT.
            self.init_pacing_rate(ctx.srtt, ctx.window.cwnd);
            if self.min_rtt.is_none() && ctx.srtt > 0 {
                self.min_rtt = Some(ctx.srtt);
            }
            self.min_rtt_stamp = ctx.now;
            self.ack_epoch_start = ctx.now;
        }
        (self.next_departure > ctx.now).then_some(self.next_departure)
    }

    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("state", self.mode as u8 as f64);
        out("btlbw", self.bw.get());
        out("min_rtt", self.min_rtt.map_or(f64::NAN, |m| m as f64 / NS_PER_S as f64));
        out("pacing_rate", self.pacing_rate);
        out("pacing_gain", self.pacing_gain);
        out("cwnd_gain", self.cwnd_gain);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::delay::RateSample;
    use super::super::common::testing::ack;
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    const MS: u64 = NS_PER_MS;

    fn bbr(seed: u64) -> Bbr {
        Bbr::new(stream(seed, Entity::Flow, 0, Purpose::Congestion))
    }

    /// An ACK at `now` delivering 2 segments (so not a possibly delayed one) with an RTT sample
    /// `rtt` and a delivery-rate sample of `rate` segments/s over 1 s.
    fn sample(now: Time, rtt: Dur, rate: f64, in_flight: f64, delivered: u64, round_start: bool) -> AckSample {
        let mut a = ack(2.0);
        a.now = now;
        a.ca_rtt = Some(rtt);
        a.srtt = rtt;
        a.prior_in_flight = in_flight + 2.0;
        a.in_flight = in_flight;
        a.delivered = delivered;
        a.round_start = round_start;
        a.delay.rate =
            Some(RateSample { delivered: rate as u64, interval: NS_PER_S, valid: true, ..Default::default() });
        a
    }

    /// PROBE_BW at bandwidth 1000 segments/s and a 100 ms minimum RTT (BDP 100), in phase 0.
    fn in_probe_bw(now: Time) -> Bbr {
        let mut b = bbr(1);
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.min_rtt = Some(100 * MS);
        b.min_rtt_stamp = now;
        b.bw.reset(0, 1000.0);
        b.cycle_index = 0;
        b.cycle_stamp = now;
        b.has_seen_rtt = true;
        b.update_gains();
        b
    }

    /// Rounds with max bandwidth 100, 200, 240, 245, 249 segments/s: 200 is 25% above 100 (the
    /// pipe may not be full), 240 is not 25% above 200, nor are 245 and 249. The third round
    /// without that growth ends STARTUP: DRAIN, pacing at 88/256 of the bandwidth, ssthresh set
    /// to one BDP's flight (ceil(249 x 0.1) = 25 + 3 quanta of 2 = 31, even: 32).
    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth() {
        let mut b = bbr(1);
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        let rates = [100.0, 200.0, 240.0, 245.0, 249.0];
        let mut modes = Vec::new();
        for (i, &rate) in rates.iter().enumerate() {
            let now = (i as u64 + 1) * 100 * MS;
            b.on_ack(&sample(now, 100 * MS, rate, 200.0, 20 * (i as u64 + 1), true), &mut w);
            modes.push((b.mode, b.full_bw, b.full_bw_count));
        }
        assert_eq!(
            modes,
            [
                (Mode::Startup, 100.0, 0),
                (Mode::Startup, 200.0, 0),
                (Mode::Startup, 200.0, 1),
                (Mode::Startup, 200.0, 2),
                (Mode::Drain, 200.0, 3),
            ]
        );
        assert_eq!(b.pacing_gain, 88.0 / 256.0);
        assert_eq!(b.cwnd_gain, HIGH_GAIN);
        assert_eq!(w.ssthresh, 32.0);
        // STARTUP grew the cwnd by what each ACK delivered (2), whatever the target.
        assert_eq!(w.cwnd, 20.0);
        // App-limited rounds do not count, and an ACK that starts no round does not either.
        let mut b = bbr(1);
        b.on_ack(&sample(100 * MS, 100 * MS, 100.0, 200.0, 2, true), &mut w);
        for i in 0..5 {
            let mut a = sample((i + 2) * 100 * MS, 100 * MS, 100.0, 200.0, 2 * i + 4, true);
            a.delay.rate.as_mut().unwrap().app_limited = true;
            b.on_ack(&a, &mut w);
            b.on_ack(&sample((i + 2) * 100 * MS + 1, 100 * MS, 100.0, 200.0, 2 * i + 5, false), &mut w);
        }
        assert_eq!((b.mode, b.full_bw_count), (Mode::Startup, 0));
    }

    /// PROBE_BW's random start: the phase before one of 7 drawn uniformly, then the next: each
    /// of 0 and 2..7 about 1/7 of the time, never the 0.75 phase (1). The draws come from the
    /// flow's stream: the same seed gives the same phase.
    #[test]
    fn probe_bw_starts_at_a_random_phase_other_than_the_draining_one() {
        let mut counts = [0u32; 8];
        let n = 7000;
        for seed in 0..n {
            let mut b = bbr(seed);
            b.enter_probe_bw(0);
            counts[b.cycle_index] += 1;
            let mut again = bbr(seed);
            again.enter_probe_bw(0);
            assert_eq!(again.cycle_index, b.cycle_index);
        }
        assert_eq!(counts[1], 0, "{counts:?}");
        for (phase, &c) in counts.iter().enumerate().filter(|&(p, _)| p != 1) {
            // Binomial(7000, 1/7): sd 29; 5 sd either side of 1000.
            assert!((855..=1145).contains(&c), "phase {phase}: {c} of {n}");
        }
    }

    /// The gain cycle in order, 1.25, 0.75, then six of 1, each phase lasting more than one
    /// minimum RTT (100 ms; ACKs every 10 ms, so the 11th ACK of a phase ends it), when the
    /// flight is 140 (above the 1.25 phase's 125 + 8 and the 1.0 target of 100 + 6).
    /// The 1.25 phase waits, past one minimum RTT, until the flight reaches its target; the
    /// 0.75 phase ends as soon as the flight is down to one BDP's.
    #[test]
    fn the_gain_cycle_runs_in_order_one_phase_per_min_rtt() {
        let start = 1000 * MS;
        let mut b = in_probe_bw(start);
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let mut changes = vec![(0, b.cycle_index, b.pacing_gain)];
        for i in 1..=90u64 {
            let now = start + i * 10 * MS;
            b.on_ack(&sample(now, 100 * MS, 1000.0, 140.0, 2 * i, i % 10 == 0), &mut w);
            if b.cycle_index != changes.last().unwrap().1 {
                changes.push((i * 10, b.cycle_index, b.pacing_gain));
            }
        }
        let expected: Vec<(u64, usize, f64)> = (0..=8).map(|k| (k as u64 * 110, k % 8, PACING_GAINS[k % 8])).collect();
        assert_eq!(changes, expected);

        // The 1.25 phase at a flight of 100 outlasts the minimum RTT; at 133 it ends.
        let mut b = in_probe_bw(start);
        for i in 1..=30u64 {
            b.on_ack(&sample(start + i * 10 * MS, 100 * MS, 1000.0, 100.0, 2 * i, false), &mut w);
        }
        assert_eq!(b.cycle_index, 0);
        b.on_ack(&sample(start + 310 * MS, 100 * MS, 1000.0, 133.0, 62, false), &mut w);
        assert_eq!(b.cycle_index, 1);
        // The 0.75 phase: at a flight of 106 (one BDP's target) it ends on the next ACK.
        b.on_ack(&sample(start + 320 * MS, 100 * MS, 1000.0, 104.0, 64, false), &mut w);
        assert_eq!((b.cycle_index, b.pacing_gain), (2, 1.0));
    }

    /// The minimum RTT (100 ms, taken at 1 s) is not seen again: every sample is 120 ms. At the
    /// first ACK more than 10 s later PROBE_RTT begins: the cwnd (150) is saved and capped at
    /// 4, the 120 ms sample becomes the minimum. The flight reaches 4 at 11.05 s: 200 ms from
    /// then, and a round (the 4 segments in flight then delivered), before it ends. Here the
    /// round ends first, so PROBE_RTT ends at the first ACK after 11.25 s, with the cwnd from
    /// before (capped by the target, 2 x 120 + 6 + the ACK-aggregation allowance) and the
    /// minimum RTT's 10 s starting again.
    #[test]
    fn probe_rtt_begins_when_the_min_rtt_is_ten_seconds_old_and_holds_four_segments_for_200_ms() {
        let start = 1000 * MS;
        let mut b = in_probe_bw(start);
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let mut delivered = 0;
        let mut now = start;
        let mut feed = |b: &mut Bbr, w: &mut Window, now: Time, in_flight: f64| {
            delivered += 2;
            w.cwnd = w.cwnd.max(0.0);
            b.on_ack(&sample(now, 120 * MS, 1000.0, in_flight, delivered, false), w);
        };
        while now < start + 10_000 * MS {
            now += 10 * MS;
            feed(&mut b, &mut w, now, 140.0);
            assert_ne!(b.mode, Mode::ProbeRtt, "at {now}");
            w.cwnd = 150.0;
        }
        now += 10 * MS; // 11.01 s
        feed(&mut b, &mut w, now, 140.0);
        assert_eq!((b.mode, w.cwnd, b.prior_cwnd), (Mode::ProbeRtt, 4.0, 150.0));
        assert_eq!((b.min_rtt, b.min_rtt_stamp), (Some(120 * MS), now));
        assert_eq!((b.pacing_gain, b.cwnd_gain), (1.0, 1.0));
        // The flight drains to 4 over 40 ms.
        for in_flight in [100.0, 60.0, 20.0, 4.0] {
            now += 10 * MS;
            feed(&mut b, &mut w, now, in_flight);
            assert_eq!((b.mode, w.cwnd), (Mode::ProbeRtt, 4.0));
        }
        let low_at = now;
        assert_eq!(b.probe_rtt_done_at, Some(low_at + 200 * MS));
        while now < low_at + 200 * MS {
            now += 10 * MS;
            feed(&mut b, &mut w, now, 4.0);
            assert_eq!((b.mode, w.cwnd), (Mode::ProbeRtt, 4.0), "at {}", now - low_at);
        }
        assert!(b.probe_rtt_round_done);
        now += 10 * MS;
        feed(&mut b, &mut w, now, 4.0);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(b.min_rtt_stamp, now);
        let target = b.quantization_budget(240.0 + b.ack_aggregation_cwnd());
        assert_eq!(w.cwnd, target.min(152.0));

        // A round longer than 200 ms (RTT 300 ms): PROBE_RTT lasts until a segment sent when the
        // flight reached 4 is delivered, 300 ms later.
        let mut b = in_probe_bw(start);
        b.min_rtt_stamp = 0;
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let now = 10_001 * MS;
        b.on_ack(&sample(now, 120 * MS, 1000.0, 4.0, 100, false), &mut w);
        assert_eq!((b.mode, b.probe_rtt_done_at), (Mode::ProbeRtt, Some(now + 200 * MS)));
        for ms in (10..300).step_by(10) {
            b.on_ack(&sample(now + ms * MS, 300 * MS, 1000.0, 4.0, 100 + ms, false), &mut w);
            assert_eq!(b.mode, Mode::ProbeRtt, "at {ms} ms");
        }
        b.on_ack(&sample(now + 300 * MS, 300 * MS, 1000.0, 4.0, 400, false), &mut w);
        assert_eq!(b.mode, Mode::ProbeBw);
    }

    /// The windowed max keeps a sample for its window of rounds, then falls to the best of the
    /// later ones.
    #[test]
    fn the_bandwidth_filter_forgets_a_maximum_after_its_window() {
        let mut f = WindowedMax::default();
        f.update(10, 1, 500.0);
        for t in 2..=11 {
            f.update(10, t, 300.0 + t as f64);
            assert_eq!(f.get(), 500.0, "round {t}");
        }
        f.update(10, 12, 200.0);
        assert!(f.get() < 500.0 && f.get() >= 300.0, "{}", f.get());
    }

    /// Losses do not cut by a factor: recovery starts at the flight + 1 (packet conservation) and
    /// ends with the cwnd from before; a timeout sets 1 and keeps the cwnd to come back to.
    #[test]
    fn losses_conserve_packets_and_recovery_restores_the_cwnd() {
        use super::super::common::testing::congestion;
        let start = 1000 * MS;
        let mut b = in_probe_bw(start);
        b.cwnd = 120.0;
        let mut w = Window { cwnd: 120.0, ssthresh: f64::INFINITY };
        let mut ev = congestion(CongestionKind::Loss, 120.0, false);
        ev.in_flight = 90.0;
        b.on_congestion(&ev, &mut w);
        assert_eq!((w.cwnd, w.ssthresh, b.prior_cwnd), (91.0, f64::INFINITY, 120.0));
        w.cwnd = w.ssthresh; // the sender's cwnd = ssthresh at the end of recovery
        b.on_recovery_exit(start, &mut w);
        assert_eq!(w.cwnd, 120.0);
        let ev = congestion(CongestionKind::Timeout, 120.0, true);
        b.on_congestion(&ev, &mut w);
        assert_eq!((w.cwnd, b.prior_cwnd, b.full_bw), (1.0, 120.0, 0.0));
    }

    /// Linux `bbr_undo_cwnd`: the cwnd stays, full-pipe detection starts over, and the next ACK
    /// (the recovery over) restores the cwnd from before, then moves it toward the target.
    #[test]
    fn an_undone_reduction_restores_the_saved_cwnd_at_the_next_ack() {
        use super::super::common::testing::congestion;
        let start = 1000 * MS;
        let mut b = in_probe_bw(start);
        b.full_bw = 1000.0;
        b.full_bw_count = 2;
        let mut w = Window { cwnd: 100.0, ssthresh: f64::INFINITY };
        let mut ev = congestion(CongestionKind::Loss, 100.0, false);
        ev.in_flight = 70.0;
        b.on_congestion(&ev, &mut w);
        assert_eq!(w.cwnd, 71.0);
        assert_eq!(b.undo_cwnd(start, &w, 100.0), 71.0);
        assert_eq!((b.full_bw, b.full_bw_count, b.full_bw_reached), (0.0, 0, true));
        b.on_ack(&sample(start + 10 * MS, 100 * MS, 1000.0, 70.0, 2, false), &mut w);
        // max(71, 100) + 2 delivered, below the target 2 x 100 + 6 + 2.
        assert_eq!(w.cwnd, 102.0);
    }
}
