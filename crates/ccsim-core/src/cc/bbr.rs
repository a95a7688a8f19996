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
//!   phase per minimum RTT (the 1.25 phase lasts until the flight reaches 1.25 BDP or a segment
//!   is marked lost, the 0.75 one ends early once the flight is at most one BDP), entered at a
//!   random phase other than 0.75 (drawn from the flow's own stream, so runs stay byte-exact);
//! * PROBE_RTT, when the minimum RTT is 10 s old: cwnd 4 segments until the flight has been at 4
//!   or less for max(200 ms, one round), then back to PROBE_BW (or STARTUP if the pipe was never
//!   found full) with the cwnd from before. Meanwhile the flight is marked app-limited
//!   ([`CongestionControl::take_app_limited`]), so its low rates do not enter the filter.
//!
//! Rounds are Linux's: a round ends on the ACK whose rate sample was sent with at least the
//! delivered count recorded at the round's start ([`RateSample::prior_delivered`]); entering
//! recovery and PROBE_RTT's low point start one.
//!
//! The window is BBR's on every ACK in every state ([`CongestionControl::sets_cwnd_on_every_ack`],
//! Linux's `cong_control`): cwnd moves toward the target cwnd_gain x BDP + the ACK-aggregation
//! allowance + 3 send quanta, rounded up to even (plus 2 in the 1.25 phase), by the segments each
//! ACK delivers (cumulatively or by SACK, [`AckSample::delivered_now`]); before the pipe is full
//! it only grows. At least 4 segments (Linux `bbr_cwnd_min_target`). Losses do not cut by a
//! factor: each ACK first takes the segments it newly marked lost off the cwnd
//! ([`AckSample::newly_lost`]); the ACK that enters recovery sets the cwnd to the flight plus what
//! it delivered and the first round of recovery conserves packets (cwnd at least flight +
//! delivered), after which the cwnd grows toward the target again by what each ACK delivers (so
//! an ACK releases at most twice what it delivered); the ACK that ends recovery, or the loss
//! state after a timeout, restores the cwnd from before (the stack's `ca_state`,
//! [`AckSample::ca_state`], says which). A timeout sets cwnd to 1 (Linux `tcp_enter_loss`, done
//! by the sender) and forgets the full-pipe bandwidth. An undone reduction (the stack's `undo`,
//! `frto`; Linux `bbr_undo_cwnd`) keeps the cwnd, restarts full-pipe detection and the long-term
//! estimate, and the next ACK, the recovery over, restores the saved cwnd. ssthresh stays as the
//! stack set it, except that entering DRAIN sets it to one BDP's target (as Linux, for
//! reporting). ECN-Echo only saves the cwnd (BBR v1 ignores ECN).
//!
//! The long-term ("policer") bandwidth (Linux `lt_bw`, parameter `lt_bw`): from the first loss,
//! BBR measures the delivery rate over intervals of 4 to 16 rounds, each ended by a loss; an
//! interval that lost at least 50/256 (about 20%) of what it delivered is lossy. Two lossy
//! intervals in a row whose rates differ by at most 1/8 (or 4 kbit/s) mean a token-bucket
//! policer: their mean becomes the bandwidth, PROBE_BW paces at gain 1 (no probing), for 48
//! rounds of PROBE_BW, after which the estimate is dropped and gain cycling restarts at a random
//! phase. An app-limited sample, or an interval past 16 rounds, restarts the sampling.
//!
//! Units: bandwidth and pacing rate in segments per second (the series' `cc_btlbw`, the
//! estimate BBR uses, long-term when in use, and `cc_pacing_rate`; multiply by the wire size of
//! a segment for bit/s), `cc_lt_bw` the long-term estimate while in use (NaN otherwise),
//! `cc_min_rtt` in seconds, `cc_state` 0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT (Linux's
//! `bbr_mode` order), `cc_pacing_gain`, `cc_cwnd_gain` as plain factors.
//!
//! Pacing is the sender's ([`CongestionControl::pacing_rate`]: Linux's internal, earliest
//! departure time pacing). BBR follows the departure times the sender gives segments (the same
//! rule, from the rate it reported) only to estimate the flight left in the network when the
//! next segment leaves (Linux `bbr_packets_in_net_at_edt` reads `tcp_wstamp_ns`). ccsim has no
//! TSO/GSO: it paces single segments, and the send quantum Linux budgets for
//! (`bbr_tso_segs_goal`: about 1 ms of data at the pacing rate, at least 2 segments, at most a
//! 64 KB GSO burst) is computed in segments: max(pacing rate / 1024 s^-1, 2) segments, at most
//! 44 (1 segment below 100 segments/s, Linux's 1.2 Mb/s threshold at 1500-byte packets).
//!
//! Where ccsim still differs from Linux:
//! * Linux does not let an ACK that may have been delayed replace an expired minimum RTT; here
//!   that is an ACK that cumulatively acknowledges exactly one segment and delivers nothing else.
//! * The long-term estimator's 4 kbit/s rate difference is taken at 1500-byte segments (BBR does
//!   not know the segment size), as the send quantum's threshold is.
//! * The segments a timeout marks lost count toward the long-term estimator's losses when the
//!   sender reports them (on later ACKs, [`AckSample::newly_lost`]); Linux counts them at the
//!   timeout, before it tells BBR of the loss.
//! * Without SACK only (ccsim's guard, as `bbr3`'s): rate samples taken in fast recovery, in the
//!   loss state after a timeout, or on the ACK that ends either, enter neither the bandwidth
//!   filter nor the ACK-aggregation estimate (rounds and the long-term sampler still count them).
//!   The ACK that fills a hole counts at once the segments above it that duplicate ACKs had
//!   reported, and samples across it overshoot the path; on 10 Mb/s, 40 ms, 0.5% random loss,
//!   8 s, `ns2` profile: 2.1 Mb/s and 3 fast retransmits without the guard, 4.8 Mb/s and 11
//!   with it (`rfc` 5.8, `linux` 9.2, where the guard is off). A connection counts as without
//!   SACK once a duplicate ACK delivers a segment with no rate sample.
//!
//! Not modelled: restarts from idle (`CA_EVENT_TX_START`: ccsim's flows do not go idle
//! mid-transfer, so `idle_restart` never holds); `snd_cwnd_clamp`.

use super::common::ack_aggregation::AckAggregation;
use super::common::ca_rtt;
use super::common::departures::Departures;
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CaState, CongestionControl, CongestionEvent, CongestionKind, SentSample, Window};
use crate::rng::{uniform, Stream};
use crate::units::{Dur, Time, NS_PER_MS, NS_PER_S};

#[cfg(doc)]
use super::common::delay::RateSample;

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
    ParamInfo {
        name: "lt_bw",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "the long-term (policer) bandwidth estimate: two lossy intervals (4-16 rounds, loss >= 50/256) \
              of consistent rate set the bandwidth to their mean, paced at gain 1 for 48 rounds (Linux lt_bw)",
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
/// The ACK-aggregation estimate's window: two halves of this many rounds.
const EXTRA_ACKED_ROUNDS: u32 = 5;
/// A long-term sampling interval lasts at least this many rounds, and at most 4 times as many.
pub const LT_INTERVAL_MIN_ROUNDS: u32 = 4;
/// An interval is lossy when it lost at least this fraction of what it delivered (Linux 50/256).
pub const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
/// Two intervals' rates are consistent when they differ by at most this fraction of the first ...
pub const LT_BW_RATIO: f64 = 1.0 / 8.0;
/// ... or by at most 4 kbit/s (500 B/s) at the pacing margin, in 1500-byte segments per second.
const LT_BW_DIFF: f64 = 500.0 / 1500.0;
/// Rounds of PROBE_BW the long-term estimate is used for.
pub const LT_BW_MAX_ROUNDS: u32 = 48;

/// BBR's modes, numbered as Linux's `bbr_mode` (the series' `cc_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

/// Recovery, or the loss state after a timeout: the states whose end restores the saved cwnd
/// (Linux compares `icsk_ca_state` with `TCP_CA_Recovery`).
fn repairing(state: CaState) -> bool {
    matches!(state, CaState::Recovery | CaState::Loss)
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

/// Linux's long-term bandwidth sampling (`lt_*` in `struct bbr`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct LongTerm {
    /// Sampling since the first loss.
    sampling: bool,
    /// Rounds in the current interval; while the estimate is used, rounds of PROBE_BW since.
    rounds: u32,
    /// The last interval's rate, or the estimate in use; segments/s, 0 for none.
    bw: f64,
    in_use: bool,
    /// The interval's start: segments delivered and lost then, and the time in whole
    /// milliseconds (Linux keeps it in ms).
    start_delivered: u64,
    start_lost: u64,
    start_ms: u64,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    high_gain: f64,
    probe_bw_cwnd_gain: f64,
    bw_window_rounds: u64,
    min_rtt_window: Dur,
    probe_rtt_time: Dur,
    ack_aggregation: bool,
    lt_enabled: bool,
    rng: Stream,

    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Delivery rates of the last rounds, segments/s.
    bw: WindowedMax,
    /// Rounds counted so far (the bandwidth filter's clock).
    rounds: u64,
    round_start: bool,
    /// The round ends with a rate sample sent with at least this many segments delivered.
    next_rtt_delivered: u64,
    /// The sender's delivered count after the latest ACK with a rate sample (Linux
    /// `tp->delivered`: prior_delivered + delivered of that sample).
    delivered: u64,
    /// Segments marked lost so far (Linux `tp->lost`).
    lost: u64,
    /// Segments the latest ACK newly marked lost (Linux `rs->losses`).
    losses: f64,
    /// Segments the latest ACK delivered (Linux `acked_sacked`).
    acked_sacked: f64,
    lt: LongTerm,
    min_rtt: Option<Dur>,
    min_rtt_stamp: Time,
    probe_rtt_done_at: Option<Time>,
    probe_rtt_round_done: bool,
    /// PROBE_RTT asks the sender to mark the flight app-limited (taken after each ACK).
    app_limited_request: bool,
    full_bw: f64,
    /// ssthresh for the sender when STARTUP ends (applied where the sender lends the window).
    drain_ssthresh: Option<f64>,
    full_bw_count: u32,
    full_bw_reached: bool,
    cycle_index: usize,
    cycle_stamp: Time,
    /// Segments/s; 0 until the first ACK sets it from the RTT.
    pacing_rate: f64,
    has_seen_rtt: bool,
    /// The cwnd to come back to after recovery or PROBE_RTT ("last known good").
    prior_cwnd: f64,
    cwnd: f64,
    /// The stack's state at the last ACK that delivered something (or a timeout's).
    prev_ca_state: CaState,
    /// The first round of recovery: cwnd at least flight + delivered.
    packet_conservation: bool,
    /// The connection runs without SACK: a duplicate ACK delivered a segment with no rate sample.
    without_sack: bool,
    /// This ACK's rate sample stays out of the bandwidth filter and the ACK-aggregation estimate
    /// (without SACK only; see the module's list of departures).
    repair_burst: bool,
    // ACK aggregation.
    aggregation: AckAggregation,
    /// The connection's first segment left (Linux `bbr_init`).
    opened: bool,
    // The sender's departure slot for the next segment, followed (module docs), and segments sent.
    departures: Departures,
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
            lt_enabled: true,
            rng,
            mode: Mode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            bw: WindowedMax::default(),
            rounds: 0,
            round_start: false,
            next_rtt_delivered: 0,
            delivered: 0,
            lost: 0,
            losses: 0.0,
            acked_sacked: 0.0,
            lt: LongTerm::default(),
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_done_at: None,
            probe_rtt_round_done: false,
            app_limited_request: false,
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
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            without_sack: false,
            repair_burst: false,
            aggregation: AckAggregation::default(),
            opened: false,
            departures: Departures::default(),
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
        b.lt_enabled = p.flag("lt_bw");
        b.update_gains();
        b
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The bandwidth estimate BBR paces and sizes its cwnd by, segments/s: the long-term one while
    /// in use, else the windowed maximum (Linux `bbr_bw`).
    pub fn btlbw(&self) -> f64 {
        if self.lt.in_use {
            self.lt.bw
        } else {
            self.bw.get()
        }
    }

    /// The windowed maximum of the delivery rate, segments/s (Linux `bbr_max_bw`).
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The long-term (policer) estimate while in use, segments/s.
    pub fn lt_bw(&self) -> Option<f64> {
        self.lt.in_use.then_some(self.lt.bw)
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
        let wait = self.departures.wait(now);
        let delivered_meanwhile = (self.btlbw() * wait as f64 / NS_PER_S as f64).floor();
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
        self.aggregation.allowance(self.btlbw())
    }

    /// Linux `bbr_save_cwnd`: the cwnd now, unless recovery or PROBE_RTT has cut it.
    fn save_cwnd(&mut self, cwnd: f64) {
        self.prior_cwnd = if !repairing(self.prev_ca_state) && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.high_gain, self.high_gain),
            Mode::Drain => (DRAIN_GAIN * HIGH_GAIN / self.high_gain, self.high_gain),
            Mode::ProbeBw if self.lt.in_use => (1.0, self.probe_bw_cwnd_gain),
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

    /// Everything BBR learns from an ACK, in Linux's order (`bbr_update_model`).
    fn update_model(&mut self, ack: &AckSample) {
        if let Some(rs) = ack.delay.rate {
            self.delivered = rs.prior_delivered + rs.delivered;
        }
        self.losses = ack.newly_lost;
        self.lost += ack.newly_lost as u64;
        self.acked_sacked = ack.delivered_now;
        self.update_bw(ack);
        self.update_ack_aggregation(ack);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(ack) {
            self.advance_cycle_phase(ack.now);
        }
        self.check_full_bw_reached(ack);
        self.check_drain(ack);
        self.update_min_rtt(ack);
        self.update_gains();
    }

    /// Linux `bbr_update_bw`: rounds, the long-term estimate, and the max filter; only a valid
    /// rate sample counts.
    fn update_bw(&mut self, ack: &AckSample) {
        self.round_start = false;
        let Some(rs) = ack.delay.rate.filter(|r| r.valid) else {
            return;
        };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rounds += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(ack.now, rs.app_limited);

        let Some(bw) = rs.rate() else { return };
        if self.repair_burst {
            return;
        }
        if !rs.app_limited || bw >= self.max_bw() {
            self.bw.update(self.bw_window_rounds, self.rounds, bw);
        }
    }

    /// Linux `bbr_update_ack_aggregation`: the largest excess of delivered data over bandwidth x
    /// time since the ACK rate last fell to the bandwidth, per window of 5 rounds.
    fn update_ack_aggregation(&mut self, ack: &AckSample) {
        let acked = self.acked_sacked;
        if !self.ack_aggregation || acked <= 0.0 || self.repair_burst || !ack.delay.rate.is_some_and(|r| r.valid) {
            return;
        }
        self.aggregation.update(acked, ack.now, self.btlbw(), self.cwnd, self.round_start, EXTRA_ACKED_ROUNDS);
    }

    /// Linux `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, ack: &AckSample) -> bool {
        let full_length = self.min_rtt.is_some_and(|m| ack.now.saturating_sub(self.cycle_stamp) > m);
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let in_network = self.in_network_at_departure(ack.prior_in_flight, ack.now);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            full_length && (self.losses > 0.0 || in_network >= self.inflight(bw, self.pacing_gain))
        } else {
            full_length || in_network <= self.inflight(bw, 1.0)
        }
    }

    /// Linux `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, ack: &AckSample) {
        let app_limited = ack.delay.rate.is_some_and(|r| r.app_limited);
        if self.full_bw_reached || !self.round_start || app_limited {
            return;
        }
        let bw = self.max_bw();
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = bw;
            self.full_bw_count = 0;
        } else {
            self.full_bw_count += 1;
            self.full_bw_reached = self.full_bw_count >= FULL_BW_ROUNDS;
        }
    }

    /// Linux `bbr_check_drain`; ssthresh set to one BDP's flight is for reporting only.
    fn check_drain(&mut self, ack: &AckSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.drain_ssthresh = Some(self.inflight(self.max_bw(), 1.0));
        }
        if self.mode == Mode::Drain
            && self.in_network_at_departure(ack.in_flight, ack.now) <= self.inflight(self.max_bw(), 1.0)
        {
            self.enter_probe_bw(ack.now);
        }
    }

    /// Linux `bbr_update_min_rtt`, PROBE_RTT included.
    fn update_min_rtt(&mut self, ack: &AckSample) {
        let now = ack.now;
        if self.min_rtt.is_none() && ack.min_rtt > 0 {
            // Linux `bbr_init` starts from the connection's minimum RTT (the handshake's).
            self.min_rtt = Some(ack.min_rtt);
        }
        let expired = now > self.min_rtt_stamp + self.min_rtt_window;
        // An RTT sample comes with an ACK that acknowledged something new, cumulatively or by SACK.
        let rtt = (ack.acked > 0.0 || ack.delay.rate.is_some()).then(|| ca_rtt(ack));
        let maybe_delayed = ack.acked == 1.0 && ack.delivered_now == 1.0;
        if let Some(rtt) = rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || (expired && !maybe_delayed) {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if self.probe_rtt_time > 0 && expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(self.cwnd);
            self.probe_rtt_done_at = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // Rates measured until the flight recovers say little of the path.
        self.app_limited_request = true;
        match self.probe_rtt_done_at {
            None if ack.in_flight <= CWND_MIN_TARGET => {
                self.probe_rtt_done_at = Some(now + self.probe_rtt_time);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
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
    /// the cwnd from before comes back.
    fn check_probe_rtt_done(&mut self, now: Time) {
        if self.probe_rtt_done_at.is_some_and(|at| now > at) {
            self.min_rtt_stamp = now;
            self.cwnd = self.cwnd.max(self.prior_cwnd);
            self.reset_mode(now);
        }
    }

    /// Start a long-term interval at the counts and time now.
    fn reset_lt_interval(&mut self, now: Time) {
        self.lt.start_delivered = self.delivered;
        self.lt.start_lost = self.lost;
        self.lt.start_ms = now / NS_PER_MS;
        self.lt.rounds = 0;
    }

    /// Drop the long-term estimate and stop sampling until the next loss.
    fn reset_lt(&mut self, now: Time) {
        self.lt.bw = 0.0;
        self.lt.in_use = false;
        self.lt.sampling = false;
        self.reset_lt_interval(now);
    }

    /// Linux `bbr_lt_bw_sampling`, on each valid rate sample (and on a timeout, as a loss).
    fn lt_bw_sampling(&mut self, now: Time, app_limited: bool) {
        if !self.lt_enabled {
            return;
        }
        if self.lt.in_use {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rounds += 1;
                if self.lt.rounds >= LT_BW_MAX_ROUNDS {
                    self.reset_lt(now);
                    self.enter_probe_bw(now);
                }
            }
            return;
        }
        // A policer's burst allowance is spent by the first loss: sample from there.
        let lossy_ack = self.losses > 0.0;
        if !self.lt.sampling {
            if !lossy_ack {
                return;
            }
            self.reset_lt_interval(now);
            self.lt.sampling = true;
        }
        if app_limited {
            self.reset_lt(now);
            return;
        }
        if self.round_start {
            self.lt.rounds += 1;
        }
        if self.lt.rounds < LT_INTERVAL_MIN_ROUNDS {
            return;
        }
        if self.lt.rounds > 4 * LT_INTERVAL_MIN_ROUNDS {
            self.reset_lt(now);
            return;
        }
        // An interval ends on a loss: the tokens are spent, the rate is the policer's.
        if !lossy_ack {
            return;
        }
        let lost = self.lost - self.lt.start_lost;
        let delivered = self.delivered - self.lt.start_delivered;
        if delivered == 0 || (lost as f64) < LT_LOSS_THRESH * delivered as f64 {
            return;
        }
        let ms = (now / NS_PER_MS).saturating_sub(self.lt.start_ms);
        if ms < 1 {
            return;
        }
        self.lt_interval_done(now, delivered as f64 * 1000.0 / ms as f64);
    }

    /// Linux `bbr_lt_bw_interval_done`: a lossy interval at `bw`; with the one before at a
    /// consistent rate, a policer.
    fn lt_interval_done(&mut self, now: Time, bw: f64) {
        if self.lt.bw > 0.0 {
            let diff = (bw - self.lt.bw).abs();
            if diff <= LT_BW_RATIO * self.lt.bw || diff * PACING_MARGIN <= LT_BW_DIFF {
                self.lt.bw = (bw + self.lt.bw) / 2.0;
                self.lt.in_use = true;
                self.pacing_gain = 1.0;
                self.lt.rounds = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.reset_lt_interval(now);
    }

    fn set_pacing_rate(&mut self, srtt: Dur) {
        if !self.has_seen_rtt && srtt > 0 {
            self.init_pacing_rate(srtt);
        }
        let rate = self.btlbw() * self.pacing_gain * PACING_MARGIN;
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// high_gain x cwnd / RTT, before any bandwidth sample (Linux `bbr_init_pacing_rate_from_rtt`).
    fn init_pacing_rate(&mut self, srtt: Dur) {
        self.has_seen_rtt = true;
        self.pacing_rate = self.cwnd * NS_PER_S as f64 / srtt as f64 * self.high_gain * PACING_MARGIN;
    }

    /// Linux `bbr_set_cwnd`: recovery's rules, else toward the target by what the ACK
    /// delivered; PROBE_RTT's cap on every ACK.
    fn set_cwnd(&mut self, ack: &AckSample) {
        let acked = self.acked_sacked;
        if acked > 0.0 && !self.recover_or_restore(ack, acked) {
            self.grow_toward_target(acked);
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(CWND_MIN_TARGET);
        }
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: whether packet conservation set the cwnd.
    fn recover_or_restore(&mut self, ack: &AckSample, acked: f64) -> bool {
        let (prev, state) = (self.prev_ca_state, ack.ca_state);
        // An ACK releases at most twice what it delivered: what it marked lost comes off first.
        let mut cwnd = if self.losses > 0.0 { (self.cwnd - self.losses).max(1.0) } else { self.cwnd };
        if state == CaState::Recovery && prev != CaState::Recovery {
            // The first round of recovery starts now, from the flight (unused cwnd dropped).
            self.packet_conservation = true;
            self.next_rtt_delivered = self.delivered;
            cwnd = ack.in_flight + acked;
        } else if repairing(prev) && !repairing(state) {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            self.cwnd = cwnd.max(ack.in_flight + acked);
            return true;
        }
        self.cwnd = cwnd;
        false
    }

    /// Slow start toward the target before the pipe is full; after, up to it or down to it.
    fn grow_toward_target(&mut self, acked: f64) {
        let target = self.quantization_budget(self.bdp(self.btlbw(), self.cwnd_gain) + self.ack_aggregation_cwnd());
        if self.full_bw_reached {
            self.cwnd = (self.cwnd + acked).min(target);
        } else if self.cwnd < target || (self.delivered as f64) < INIT_CWND {
            self.cwnd += acked;
        }
        self.cwnd = self.cwnd.max(CWND_MIN_TARGET);
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// Linux `bbr_main`, on every ACK.
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.cwnd = w.cwnd;
        // Only without SACK does a duplicate ACK deliver a segment that has no rate sample.
        self.without_sack |= ack.acked == 0.0 && ack.delivered_now > 0.0 && ack.delay.rate.is_none();
        let (prev, state) = (self.prev_ca_state, ack.ca_state);
        self.repair_burst = self.without_sack && (repairing(state) || (repairing(prev) && state != prev));
        self.update_model(ack);
        if let Some(ssthresh) = self.drain_ssthresh.take() {
            w.ssthresh = ssthresh;
        }
        self.set_pacing_rate(ack.srtt);
        self.set_cwnd(ack);
        w.cwnd = self.cwnd;
    }

    /// Linux `bbr_ssthresh` (the cwnd saved for the end of the episode) and, on a timeout,
    /// `bbr_set_state(TCP_CA_Loss)`: the full-pipe bandwidth forgotten, a round ended and the
    /// long-term sampler told of a loss. The cwnd itself changes on the next ACK (recovery) or
    /// by the sender (1 after a timeout).
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.save_cwnd(w.cwnd);
        if ev.kind == CongestionKind::Timeout {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true;
            self.losses = 1.0;
            self.lt_bw_sampling(ev.now, false);
            self.losses = 0.0;
            self.cwnd = w.cwnd;
        }
    }

    /// Linux `bbr_undo_cwnd`: the reduction was spurious, so the slow-down that made STARTUP's
    /// bandwidth look flat may have been too: full-pipe detection and the long-term estimate
    /// start over (the pipe stays full if it was found full). The cwnd stays as it is; the ACK
    /// after the undo finds the recovery or loss state over and restores the saved cwnd.
    fn undo_cwnd(&mut self, now: Time, w: &Window, _prior_cwnd: f64) -> f64 {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.reset_lt(now);
        w.cwnd
    }

    fn sets_cwnd_on_every_ack(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<f64> {
        (self.pacing_rate > 0.0).then_some(self.pacing_rate)
    }

    fn take_app_limited(&mut self) -> bool {
        std::mem::take(&mut self.app_limited_request)
    }

    fn watches_sends(&self) -> bool {
        true
    }

    fn wants_delivery_rate(&self) -> bool {
        true
    }

    /// The connection opens with the first segment (Linux `bbr_init`: the minimum RTT's and the
    /// aggregation epoch's clocks start), and each segment takes the sender's next departure
    /// slot: 1/pacing rate after the last, less up to half of that for lateness.
    fn on_sent(&mut self, sent: &SentSample) {
        if !self.opened {
            self.opened = true;
            self.min_rtt_stamp = sent.now;
            self.aggregation.start_epoch(sent.now);
        }
        self.departures.on_sent(sent.now, self.pacing_rate);
    }

    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("state", self.mode as u8 as f64);
        out("btlbw", self.btlbw());
        out("min_rtt", self.min_rtt.map_or(f64::NAN, |m| m as f64 / NS_PER_S as f64));
        out("pacing_rate", self.pacing_rate);
        out("pacing_gain", self.pacing_gain);
        out("cwnd_gain", self.cwnd_gain);
        out("lt_bw", self.lt_bw().unwrap_or(f64::NAN));
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::delay::RateSample;
    use super::super::common::testing::{ack, congestion};
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    const MS: u64 = NS_PER_MS;

    fn bbr(seed: u64) -> Bbr {
        Bbr::new(stream(seed, Entity::Flow, 0, Purpose::Congestion))
    }

    /// An ACK at `now` delivering 2 segments (so not a possibly delayed one) with an RTT sample
    /// `rtt`, after which the sender has delivered `delivered` segments, and a rate sample of
    /// `rate` segments/s over 1 s: its segment left when `delivered - rate` had been delivered.
    fn sample(now: Time, rtt: Dur, rate: f64, in_flight: f64, delivered: u64) -> AckSample {
        sent_at(now, rtt, rate, in_flight, delivered, delivered - rate as u64)
    }

    /// As [`sample`], the rate sample's segment sent when `prior` had been delivered.
    fn sent_at(now: Time, rtt: Dur, rate: f64, in_flight: f64, delivered: u64, prior: u64) -> AckSample {
        let mut a = ack(2.0);
        a.now = now;
        a.ca_rtt = Some(rtt);
        a.srtt = rtt;
        a.prior_in_flight = in_flight + 2.0;
        a.in_flight = in_flight;
        a.delivered = delivered;
        let d = delivered - prior;
        a.delay.rate = Some(RateSample {
            delivered: d,
            interval: (d as f64 / rate * NS_PER_S as f64).round() as Dur,
            prior_delivered: prior,
            valid: true,
            ..Default::default()
        });
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

    /// Rounds with max bandwidth 100, 200, 240, 245, 249 segments/s, one per ACK (each rate
    /// sample's segment left when the previous ACK's count had been delivered): 200 is 25% above
    /// 100 (the pipe may not be full), 240 is not 25% above 200, nor are 245 and 249. The third
    /// round without that growth ends STARTUP: DRAIN, pacing at 88/256 of the bandwidth,
    /// ssthresh set to one BDP's flight (ceil(249 x 0.1) = 25 + 3 quanta of 2 = 31, even: 32).
    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth() {
        let mut b = bbr(1);
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        let rates = [100.0, 200.0, 240.0, 245.0, 249.0];
        let mut modes = Vec::new();
        let mut delivered = 0;
        for (i, &rate) in rates.iter().enumerate() {
            let now = (i as u64 + 1) * 100 * MS;
            delivered += rate as u64;
            b.on_ack(&sample(now, 100 * MS, rate, 200.0, delivered), &mut w);
            modes.push((b.mode, b.rounds, b.full_bw, b.full_bw_count));
        }
        assert_eq!(
            modes,
            [
                (Mode::Startup, 1, 100.0, 0),
                (Mode::Startup, 2, 200.0, 0),
                (Mode::Startup, 3, 200.0, 1),
                (Mode::Startup, 4, 200.0, 2),
                (Mode::Drain, 5, 200.0, 3),
            ]
        );
        assert_eq!(b.pacing_gain, 88.0 / 256.0);
        assert_eq!(b.cwnd_gain, HIGH_GAIN);
        assert_eq!(w.ssthresh, 32.0);
        // STARTUP grew the cwnd by what each ACK delivered (2), whatever the target.
        assert_eq!(w.cwnd, 20.0);
        // App-limited rounds do not count, and an ACK whose sample left before the round began
        // (sent with fewer segments delivered than at its start) ends no round.
        let mut b = bbr(1);
        let mut delivered = 100;
        b.on_ack(&sample(100 * MS, 100 * MS, 100.0, 200.0, delivered), &mut w);
        for i in 0..5 {
            delivered += 100;
            let mut a = sample((i + 2) * 100 * MS, 100 * MS, 100.0, 200.0, delivered);
            a.delay.rate.as_mut().unwrap().app_limited = true;
            b.on_ack(&a, &mut w);
            assert!(b.round_start);
            delivered += 1;
            b.on_ack(&sample((i + 2) * 100 * MS + 1, 100 * MS, 100.0, 200.0, delivered), &mut w);
            assert!(!b.round_start);
        }
        assert_eq!((b.mode, b.rounds, b.full_bw_count), (Mode::Startup, 6, 0));
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
    /// The 1.25 phase waits, past one minimum RTT, until the flight reaches its target or an ACK
    /// marks a segment lost; the 0.75 phase ends as soon as the flight is down to one BDP's.
    #[test]
    fn the_gain_cycle_runs_in_order_one_phase_per_min_rtt() {
        let start = 1000 * MS;
        let mut b = in_probe_bw(start);
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let mut changes = vec![(0, b.cycle_index, b.pacing_gain)];
        for i in 1..=90u64 {
            let now = start + i * 10 * MS;
            b.on_ack(&sample(now, 100 * MS, 1000.0, 140.0, 10_000 + 2 * i), &mut w);
            if b.cycle_index != changes.last().unwrap().1 {
                changes.push((i * 10, b.cycle_index, b.pacing_gain));
            }
        }
        let expected: Vec<(u64, usize, f64)> = (0..=8).map(|k| (k as u64 * 110, k % 8, PACING_GAINS[k % 8])).collect();
        assert_eq!(changes, expected);

        // The 1.25 phase at a flight of 100 outlasts the minimum RTT; at 133 it ends.
        let mut b = in_probe_bw(start);
        for i in 1..=30u64 {
            b.on_ack(&sample(start + i * 10 * MS, 100 * MS, 1000.0, 100.0, 10_000 + 2 * i), &mut w);
        }
        assert_eq!(b.cycle_index, 0);
        b.on_ack(&sample(start + 310 * MS, 100 * MS, 1000.0, 133.0, 10_062), &mut w);
        assert_eq!(b.cycle_index, 1);
        // The 0.75 phase: at a flight of 106 (one BDP's target) it ends on the next ACK.
        b.on_ack(&sample(start + 320 * MS, 100 * MS, 1000.0, 104.0, 10_064), &mut w);
        assert_eq!((b.cycle_index, b.pacing_gain), (2, 1.0));
        // At a flight of 100 a loss ends the 1.25 phase once it is a minimum RTT long.
        let mut b = in_probe_bw(start);
        let mut a = sample(start + 50 * MS, 100 * MS, 1000.0, 100.0, 10_002);
        a.newly_lost = 1.0;
        b.on_ack(&a, &mut w);
        assert_eq!(b.cycle_index, 0, "half a minimum RTT into the phase");
        a.now = start + 110 * MS;
        b.on_ack(&a, &mut w);
        assert_eq!(b.cycle_index, 1);
    }

    /// The minimum RTT (100 ms, taken at 1 s) is not seen again: every sample is 120 ms. At the
    /// first ACK more than 10 s later PROBE_RTT begins: the cwnd (150) is saved and capped at
    /// 4, the 120 ms sample becomes the minimum, and every ACK from then asks the sender to mark
    /// the flight app-limited. The flight reaches 4 at 11.05 s, which starts a round: it ends
    /// with the ACK of a segment sent after that (ACKs of 2 segments every 10 ms, each for a
    /// segment sent 24 segments earlier, so 120 ms on); 200 ms must pass too. Here the round
    /// ends first, so PROBE_RTT ends at the first ACK after 11.25 s, with the cwnd from before
    /// (capped by the target, 2 x 120 + 6 + the ACK-aggregation allowance) and the minimum RTT's
    /// 10 s starting again.
    #[test]
    fn probe_rtt_begins_when_the_min_rtt_is_ten_seconds_old_and_holds_four_segments_for_200_ms() {
        let start = 1000 * MS;
        let mut b = in_probe_bw(start);
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let mut delivered = 10_000;
        let mut now = start;
        let mut feed = |b: &mut Bbr, w: &mut Window, now: Time, in_flight: f64| {
            delivered += 2;
            b.on_ack(&sent_at(now, 120 * MS, 1000.0, in_flight, delivered, delivered - 24), w);
            delivered
        };
        while now < start + 10_000 * MS {
            now += 10 * MS;
            feed(&mut b, &mut w, now, 140.0);
            assert_ne!(b.mode, Mode::ProbeRtt, "at {now}");
            assert!(!b.take_app_limited());
            w.cwnd = 150.0;
        }
        now += 10 * MS; // 11.01 s
        feed(&mut b, &mut w, now, 140.0);
        assert_eq!((b.mode, w.cwnd, b.prior_cwnd), (Mode::ProbeRtt, 4.0, 150.0));
        assert_eq!((b.min_rtt, b.min_rtt_stamp), (Some(120 * MS), now));
        assert_eq!((b.pacing_gain, b.cwnd_gain), (1.0, 1.0));
        assert!(b.take_app_limited() && !b.take_app_limited(), "asked once per ACK");
        // The flight drains to 4 over 40 ms.
        let mut low_delivered = 0;
        for in_flight in [100.0, 60.0, 20.0, 4.0] {
            now += 10 * MS;
            low_delivered = feed(&mut b, &mut w, now, in_flight);
            assert_eq!((b.mode, w.cwnd), (Mode::ProbeRtt, 4.0));
            assert!(b.take_app_limited());
        }
        let low_at = now;
        assert_eq!((b.probe_rtt_done_at, b.next_rtt_delivered), (Some(low_at + 200 * MS), low_delivered));
        while now < low_at + 200 * MS {
            now += 10 * MS;
            feed(&mut b, &mut w, now, 4.0);
            assert_eq!((b.mode, w.cwnd), (Mode::ProbeRtt, 4.0), "at {}", now - low_at);
            assert_eq!(b.probe_rtt_round_done, now - low_at >= 120 * MS, "at {}", now - low_at);
        }
        now += 10 * MS;
        feed(&mut b, &mut w, now, 4.0);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(b.min_rtt_stamp, now);
        let target = b.quantization_budget(240.0 + b.ack_aggregation_cwnd());
        assert_eq!(w.cwnd, target.min(152.0));

        // A round longer than 200 ms (RTT 300 ms; 2 segments delivered every 10 ms, so each
        // sample's segment left 60 deliveries before): PROBE_RTT lasts until a segment sent
        // when the flight reached 4 (100 delivered) is delivered, 300 ms later.
        let mut b = in_probe_bw(start);
        b.min_rtt_stamp = 0;
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let now = 10_001 * MS;
        b.on_ack(&sent_at(now, 120 * MS, 1000.0, 4.0, 100, 40), &mut w);
        assert_eq!((b.mode, b.probe_rtt_done_at), (Mode::ProbeRtt, Some(now + 200 * MS)));
        for ms in (10..300).step_by(10) {
            let delivered = 100 + ms / 5;
            b.on_ack(&sent_at(now + ms * MS, 300 * MS, 1000.0, 4.0, delivered, delivered - 60), &mut w);
            assert_eq!(b.mode, Mode::ProbeRtt, "at {ms} ms");
        }
        b.on_ack(&sent_at(now + 300 * MS, 300 * MS, 1000.0, 4.0, 160, 100), &mut w);
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

    /// Linux's recovery with the window BBR's on every ACK (PROBE_BW, target 2 x 100 + 6 + 2 =
    /// 208). The loss event saves the cwnd (120). The first ACK in recovery (flight 90, 1
    /// delivered, 1 newly lost) sets flight + delivered, 91, and starts a round of packet
    /// conservation: the cwnd holds at least flight + delivered (an ACK with the flight at 89
    /// and 1 delivered keeps 91; one that marks 3 lost takes them off, 88, then flight 87 + 1
    /// leaves it). The round ends with the sample of a segment sent after recovery began (at
    /// 10_001 delivered): from then the cwnd grows by what each ACK delivers (2: 90). The ACK
    /// that ends recovery restores 120, then grows it by what it delivered: 122. A timeout then
    /// saves 122; the sender sets 1; the ACKs after it grow from 1 until the loss state ends and
    /// 122 comes back.
    #[test]
    fn recovery_conserves_packets_for_a_round_then_grows_and_its_end_restores_the_cwnd() {
        let start = 1000 * MS;
        let mut b = in_probe_bw(start);
        let mut w = Window { cwnd: 120.0, ssthresh: f64::INFINITY };
        let mut ev = congestion(CongestionKind::Loss, 120.0, false);
        ev.in_flight = 90.0;
        b.on_congestion(&ev, &mut w);
        assert_eq!((w.cwnd, w.ssthresh, b.prior_cwnd), (120.0, f64::INFINITY, 120.0));
        let in_recovery = |now: u64, in_flight: f64, delivered_now: f64, lost: f64, delivered: u64, prior: u64| {
            let mut a = sent_at(start + now * MS, 100 * MS, 1000.0, in_flight, delivered, prior);
            a.delivered_now = delivered_now;
            a.newly_lost = lost;
            a.ca_state = CaState::Recovery;
            a
        };
        b.on_ack(&in_recovery(10, 90.0, 1.0, 1.0, 10_001, 9_900), &mut w);
        assert_eq!((w.cwnd, b.packet_conservation, b.next_rtt_delivered), (91.0, true, 10_001));
        b.on_ack(&in_recovery(20, 89.0, 1.0, 0.0, 10_002, 9_901), &mut w);
        assert_eq!(w.cwnd, 91.0);
        b.on_ack(&in_recovery(30, 87.0, 1.0, 3.0, 10_003, 9_902), &mut w);
        assert_eq!(w.cwnd, 88.0);
        b.on_ack(&in_recovery(40, 86.0, 2.0, 0.0, 10_005, 10_001), &mut w);
        assert_eq!((w.cwnd, b.packet_conservation), (90.0, false));
        let mut exit = in_recovery(50, 86.0, 2.0, 0.0, 10_007, 10_003);
        exit.ca_state = CaState::Open;
        b.on_ack(&exit, &mut w);
        assert_eq!(w.cwnd, 122.0);

        b.on_congestion(&congestion(CongestionKind::Timeout, 122.0, true), &mut w);
        assert_eq!((b.prior_cwnd, b.full_bw, b.prev_ca_state), (122.0, 0.0, CaState::Loss));
        w.cwnd = 1.0; // the sender's, at the timeout
        let mut after = in_recovery(300, 1.0, 1.0, 0.0, 10_008, 10_004);
        after.ca_state = CaState::Loss;
        b.on_ack(&after, &mut w);
        assert_eq!(w.cwnd, 4.0, "1 + 1, at least 4");
        after.ca_state = CaState::Open;
        b.on_ack(&after, &mut w);
        assert_eq!(w.cwnd, 123.0);
    }

    /// Linux `bbr_undo_cwnd`: the cwnd stays, full-pipe detection starts over, and the next ACK
    /// (the recovery over) restores the cwnd from before, then moves it toward the target.
    #[test]
    fn an_undone_reduction_restores_the_saved_cwnd_at_the_next_ack() {
        let start = 1000 * MS;
        let mut b = in_probe_bw(start);
        b.full_bw = 1000.0;
        b.full_bw_count = 2;
        let mut w = Window { cwnd: 100.0, ssthresh: f64::INFINITY };
        let mut ev = congestion(CongestionKind::Loss, 100.0, false);
        ev.in_flight = 70.0;
        b.on_congestion(&ev, &mut w);
        let mut a = sample(start + 10 * MS, 100 * MS, 1000.0, 70.0, 10_000);
        a.delivered_now = 1.0;
        a.ca_state = CaState::Recovery;
        b.on_ack(&a, &mut w);
        assert_eq!(w.cwnd, 71.0);
        assert_eq!(b.undo_cwnd(start, &w, 100.0), 71.0);
        assert_eq!((b.full_bw, b.full_bw_count, b.full_bw_reached), (0.0, 0, true));
        b.on_ack(&sample(start + 20 * MS, 100 * MS, 1000.0, 70.0, 10_002), &mut w);
        // max(71, 100) + 2 delivered, below the target 2 x 100 + 6 + 2.
        assert_eq!(w.cwnd, 102.0);
    }

    /// A policer at 600 segments/s on a path BBR measured at 1000: every ACK (10 ms apart)
    /// delivers 6 segments and marks 2 lost (a third of what is delivered, above 50/256), each
    /// rate sample's segment sent 60 deliveries earlier, so a round ends every 10th ACK (the 1st,
    /// 11th, 21st...). The first loss (ACK 1, 66 delivered, 2 lost) starts an interval, and that
    /// ACK's round is its first; the 4th round (ACK 31) ends it: 180 delivered and 60 lost in
    /// 300 ms, 600 segments/s, the first lossy interval. The next (from ACK 31) ends at ACK 71:
    /// 240 delivered, 80 lost in 400 ms, 600/s again, within 1/8: BBR takes their mean, 600, as
    /// the bandwidth and paces at gain 1 (594 segments/s), whatever the phase. After 48 rounds of
    /// PROBE_BW (ACK 551) the estimate is dropped and the gain cycle restarts.
    #[test]
    fn two_lossy_intervals_of_consistent_rate_mean_a_policer() {
        let start = 1000 * MS;
        let mut b = in_probe_bw(start);
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let policed = |i: u64| {
            let delivered = 60 + 6 * i;
            let mut a = sent_at(start + i * 10 * MS, 100 * MS, 600.0, 100.0, delivered, delivered - 60);
            a.delivered_now = 6.0;
            a.newly_lost = 2.0;
            a
        };
        let mut log = Vec::new();
        for i in 1..=80 {
            b.on_ack(&policed(i), &mut w);
            if b.round_start {
                log.push((i, b.lt.sampling, b.lt.rounds, b.lt.bw, b.lt.in_use));
            }
        }
        assert_eq!(
            log,
            [
                (1, true, 1, 0.0, false),
                (11, true, 2, 0.0, false),
                (21, true, 3, 0.0, false),
                (31, true, 0, 600.0, false),
                (41, true, 1, 600.0, false),
                (51, true, 2, 600.0, false),
                (61, true, 3, 600.0, false),
                (71, true, 0, 600.0, true),
            ]
        );
        assert_eq!((b.btlbw(), b.lt_bw(), b.pacing_gain), (600.0, Some(600.0), 1.0));
        assert!((b.pacing_rate - 594.0).abs() < 1e-9, "{}", b.pacing_rate);
        let mut state = Vec::new();
        b.inspect(0, &mut |name, v| state.push((name, v)));
        assert!(state.contains(&("lt_bw", 600.0)) && state.contains(&("btlbw", 600.0)), "{state:?}");
        for i in 81..=550 {
            b.on_ack(&policed(i), &mut w);
            assert_eq!((b.lt_bw(), b.pacing_gain), (Some(600.0), 1.0), "ACK {i}");
        }
        assert_eq!(b.lt.rounds, 47);
        b.on_ack(&policed(551), &mut w);
        assert_eq!((b.lt_bw(), b.lt.sampling, b.mode), (None, false, Mode::ProbeBw));
        assert_eq!(b.pacing_gain, PACING_GAINS[b.cycle_index]);

        // Rates 600 then 700 (more than 1/8 apart): the second interval replaces the first.
        let mut b = in_probe_bw(start);
        b.lt = LongTerm {
            sampling: true,
            bw: 600.0,
            start_delivered: 1000,
            start_lost: 100,
            start_ms: 1000,
            rounds: 3,
            ..Default::default()
        };
        (b.delivered, b.lost, b.losses, b.round_start) = (1280, 200, 1.0, true);
        b.lt_bw_sampling(1400 * MS, false);
        assert_eq!((b.lt.bw, b.lt.in_use, b.lt.rounds, b.lt.start_delivered), (700.0, false, 0, 1280));
        // 20 lost of 103 delivered is 49.7/256, below 50/256: not lossy, the interval goes on.
        let mut b = in_probe_bw(start);
        b.lt = LongTerm {
            sampling: true,
            bw: 600.0,
            start_delivered: 1000,
            start_lost: 100,
            start_ms: 1000,
            rounds: 3,
            ..Default::default()
        };
        (b.delivered, b.lost, b.losses, b.round_start) = (1103, 120, 1.0, true);
        b.lt_bw_sampling(1400 * MS, false);
        assert_eq!((b.lt.bw, b.lt.in_use, b.lt.rounds), (600.0, false, 4));
        // An app-limited sample, or a 17th round, drops everything.
        b.lt_bw_sampling(1410 * MS, true);
        assert_eq!(b.lt, LongTerm { start_delivered: 1103, start_lost: 120, start_ms: 1410, ..Default::default() });
        b.lt = LongTerm { sampling: true, bw: 600.0, rounds: 16, ..Default::default() };
        b.losses = 0.0;
        b.lt_bw_sampling(1420 * MS, false);
        assert!(!b.lt.sampling && b.lt.bw == 0.0);
    }
}
