//! BBR v3 as the google/bbr `v3` branch's `net/ipv4/tcp_bbr.c` runs it (`BBR_VERSION` 3, a Linux
//! `cong_control` module), cross-checked with draft-ietf-ccwg-bbr (-04 to -06). Where the two
//! differ, this follows the Linux code; the differences are listed at the end.
//!
//! The model has a long-term and a short-term side. Long term: `max_bw`, the larger of the
//! maxima of the last two PROBE_BW cycles' delivery-rate samples (`bw_hi`), and `inflight_hi`,
//! the flight at which probing last met too much loss (more than 2% of what was in flight when
//! the lost data left) or too many ECN marks (more than half). Short term, outside probing:
//! `bw_lo` and `inflight_lo`, cut once per round with loss to 0.7 of themselves (never below
//! what the last round delivered) and with ECN by `1 - ecn_factor x alpha`. The rate used is
//! `bw = min(max_bw, bw_lo)`; the pacing rate is `pacing_gain x bw`, 1% below (Linux's margin).
//!
//! States (the series' `cc_state`, Linux's `bbr_mode` order):
//! * 0 STARTUP: pacing gain 2.77, cwnd gain 2, until the pipe is full: 3 rounds without a rate
//!   sample 25% above the last plateau (app-limited samples do not count), or at the end of a
//!   round in fast recovery with at least 6 ACKs that marked losses and the loss rate above 2%,
//!   or 2 rounds running with at least half the delivered data CE-marked (ECN in use only).
//!   The loss and ECN exits also set `inflight_hi` to the larger of one BDP and what the last
//!   round delivered.
//! * 1 DRAIN: pacing gain 1/2.885, until the flight (at the next departure) is one BDP.
//! * 2 PROBE_BW, sub-state in `cc_phase`: 0 UP (pacing 1.25, cwnd gain 2.25: until the flight
//!   reaches `inflight_hi` after a probe that went too high, or the bandwidth plateaus as in
//!   STARTUP while `inflight_hi` does not limit it, or loss/ECN are too high; `inflight_hi`
//!   grows meanwhile by 1, 2, 4... segments per round, once per `cwnd / 2^k` delivered); 1 DOWN
//!   (pacing 0.91, until the flight is below both `inflight_hi` less 15% headroom and one BDP);
//!   2 CRUISE (pacing 1, cwnd capped at `inflight_hi` less the headroom); 3 REFILL (pacing 1,
//!   one round with the short-term bounds lifted, then UP). DOWN and CRUISE last until the
//!   probe wait (2 s plus a uniform 0-1 s, drawn from the flow's own stream) has passed since
//!   DOWN began, or as many rounds as a Reno flow at this BDP would take (min(63, BDP) plus a
//!   random 0 or 1 start), or at once when ECN marks stopped (the sender is back in `Open`)
//!   in a cycle that saw marks and no loss.
//! * 3 PROBE_RTT: when no RTT sample has been below the 5 s minimum for 5 s: cwnd
//!   `max(4, BDP/2)` until the flight has been at most that for 200 ms and a round, then
//!   PROBE_BW's CRUISE (STARTUP if the pipe was never full). The minimum RTT itself is the
//!   smallest of 10 s (BDP = `bw x min_rtt`). The rate samples of PROBE_RTT's flight are
//!   app-limited (the sender marks them at the algorithm's request).
//!
//! The cwnd grows by what each ACK delivers toward `cwnd_gain x BDP` + the ACK-aggregation
//! allowance (the largest excess of delivered data over `bw x time` within 5 to 10 rounds, 1 to
//! 2 before the pipe is full, at most 100 ms of data), at least 3 send quanta and 4 segments,
//! +2 in UP; before the pipe is full it only grows (and always below twice the initial window).
//! Then it is capped by the inflight model (`inflight_hi` while probing, `inflight_hi` less the
//! headroom in CRUISE and PROBE_RTT, `inflight_lo` always) and PROBE_RTT's cap. Losses do not
//! cut it directly: entering recovery or CWR saves it and the bounds for undo (Linux
//! `bbr_ssthresh`); a timeout sets 1 (the stack) and restores the saved cwnd once the loss
//! state ends; an undo restores the cwnd, the short-term bounds and `inflight_hi` from before.
//!
//! ECN: used only when the route allows it (`ecn_low`, Linux's per-route `ecn_low` feature,
//! off by default) and the minimum RTT is at most 5 ms (`ecn_max_rtt`); the flow then asks for
//! one ECN-Echo per CE-marked segment (Linux's precise ECE ACKs, DCTCP-style). `alpha`, an EWMA
//! of the CE-marked share of each round's deliveries with gain 1/16 starting at 1, sets the
//! cut of `inflight_lo`.
//!
//! Units, as `bbr` (v1): bandwidth and pacing rate in segments per second (`cc_btlbw` is
//! `max_bw`, `cc_bw_lo` the short-term bound, NaN while unset), `cc_min_rtt` in seconds,
//! `cc_inflight_hi`, `cc_inflight_lo` in segments (NaN while unset), `cc_pacing_gain`,
//! `cc_cwnd_gain`, `cc_ecn_alpha` as plain factors, `cc_phase` 0-3 in PROBE_BW (NaN outside).
//! Linux computes gains and fractions in 256ths; the defaults are those values (710/256 for
//! 2.77, 232/256 for 0.91, 5/256 for 2%, ...) and the thresholds are rounded down to whole
//! segments where Linux's integers are.
//!
//! Pacing is the sender's ([`CongestionControl::pacing_rate`]: Linux's internal pacing, first
//! 10 segments unpaced). The send quantum (Linux `bbr_tso_segs_goal`, which v3 sizes from 1 ms
//! at the pacing rate plus a 64 KB burst halved for every 512 us of minimum RTT, at least 2
//! segments, at most a 64 KB GSO burst) is counted in segments, with 64 KB taken as 44 segments
//! (as in `bbr`).
//!
//! Where ccsim's hooks fall short of the Linux code:
//! * Linux reacts to each segment as it is marked lost (`bbr_skb_marked_lost`), from that
//!   segment's own send-time flight and loss count, and finds the flight at which the loss rate
//!   crossed 2%. The hooks give the losses per ACK ([`AckSample::newly_lost`]) and the ACK's rate
//!   sample: the same test and formula run once per ACK that marks losses, with the rate
//!   sample's segment (sent after the lost ones) standing in for the lost segment.
//! * Losses repaired by a tail-loss probe (`CA_EVENT_TLP_RECOVERY`) are not signalled: they
//!   count as losses only if the sender marked them.
//! * The delivered count (Linux `tp->delivered`) is the rate sample's
//!   (`prior_delivered + delivered`), else the sum of [`AckSample::delivered_now`]; the
//!   CE-marked count adds the segments of ACKs with ECN-Echo.
//! * An ACK counts as possibly delayed (its RTT cannot refresh an expired minimum) when its
//!   cumulative advance is one segment.
//! * Rate samples taken in the loss state after a timeout, on the ACK that ends it or fast
//!   recovery, and without SACK in fast recovery, enter neither the bandwidth filter nor the
//!   ACK-aggregation estimate (ccsim only). Without SACK such an ACK counts at once the
//!   segments above the holes it fills (the duplicate ACKs' count of them is forgotten or
//!   capped, as Linux's `tcp_reset_reno_sack` and `tcp_limit_reno_sacked` do): on 10 Mb/s with
//!   0.5% loss under the `ns2` profile one read 9 times the link's rate and held the cwnd near
//!   450 segments, and under `rfc` a partial ACK read 1.28 times it, enough for timeouts. With
//!   the guard that run moves 7.1 Mb/s under `rfc` (8.9 under `linux`, where it changes
//!   nothing). A connection counts as without SACK once a duplicate ACK delivers a segment
//!   without a rate sample.
//! * The time of the next departure (for the flight "in the network" when it leaves) is
//!   tracked from the sends, as the sender paces them.
//!
//! Not modelled: the fast path for app-limited ACKs (a CPU saving; the one visible effect in
//! Linux is that such ACKs skip the ACK-aggregation estimate), restarts from idle
//! (`CA_EVENT_TX_START`), Protective Load Balancing (PLB: no multipath here), `snd_cwnd_clamp`.
//!
//! Differences between the draft and the Linux code (this module follows Linux): the draft's
//! DRAIN pacing gain is 0.5 (1/STARTUP's cwnd gain) where Linux keeps v1's 1/2.885; the draft
//! rounds PROBE_BW DOWN's gain to 0.90 (Linux 91/100 in 256ths: 0.906) and states loss 2%, beta
//! 0.7, headroom 0.15 exactly (Linux 5/256, 180/256, 38/256); the draft's send quantum is its
//! own rule, not Linux's TSO budget; the draft names the bounds `inflight_longterm` /
//! `inflight_shortterm`; the draft describes no ECN response (`ecn_*` parameters are Linux's
//! only); Linux's cwnd before the pipe is full grows below twice the initial window whatever
//! the target, and PROBE_RTT's end restarts only the 5 s PROBE_RTT clock, not the 10 s window.

use super::common::ack_aggregation::AckAggregation;
use super::common::ca_rtt;
use super::common::departures::Departures;
use super::params::{ParamInfo, ParamKind, Params};
use super::{
    AckSample, CaState, CongestionControl, CongestionEvent, CongestionKind, EcnFeedback, PacingContext, SentSample,
    Window,
};
use crate::rng::{uniform, Stream};
use crate::units::{Dur, Time, NS_PER_MS, NS_PER_S};

/// Linux's fixed-point unit for gains and fractions.
const UNIT: f64 = 256.0;
const NS_PER_US: u64 = 1_000;

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "startup_pacing_gain",
        kind: ParamKind::Float,
        default: 710.0 / UNIT,
        min: 1.0,
        max: 10.0,
        doc: "STARTUP's pacing gain (Linux v3 bbr_startup_pacing_gain 256 x 277/100 + 1 = 710/256; draft \
              4 ln 2 = 2.77)",
    },
    ParamInfo {
        name: "startup_cwnd_gain",
        kind: ParamKind::Float,
        default: 2.0,
        min: 1.0,
        max: 10.0,
        doc: "STARTUP's and DRAIN's cwnd gain (Linux v3 bbr_startup_cwnd_gain 2; draft 2)",
    },
    ParamInfo {
        name: "drain_gain",
        kind: ParamKind::Float,
        default: 88.0 / UNIT,
        min: 0.01,
        max: 1.0,
        doc: "DRAIN's pacing gain (Linux v3 bbr_drain_gain 256 x 1000/2885 = 88/256, as v1; the draft \
              has 0.5)",
    },
    ParamInfo {
        name: "cwnd_gain",
        kind: ParamKind::Float,
        default: 2.0,
        min: 1.0,
        max: 10.0,
        doc: "PROBE_BW's cwnd gain (Linux v3 bbr_cwnd_gain 2; draft 2)",
    },
    ParamInfo {
        name: "probe_up_cwnd_gain",
        kind: ParamKind::Float,
        default: 0.25,
        min: 0.0,
        max: 0.75,
        doc: "added to the cwnd gain in PROBE_BW UP (Linux v3 bbr_bw_probe_cwnd_gain 1 quarter; draft \
              2.25 in all)",
    },
    ParamInfo {
        name: "probe_up_gain",
        kind: ParamKind::Float,
        default: 1.25,
        min: 1.0,
        max: 4.0,
        doc: "PROBE_BW UP's pacing gain (Linux v3 5/4; draft 1.25)",
    },
    ParamInfo {
        name: "probe_down_gain",
        kind: ParamKind::Float,
        default: 232.0 / UNIT,
        min: 0.1,
        max: 1.0,
        doc: "PROBE_BW DOWN's pacing gain (Linux v3 256 x 91/100 = 232/256; draft 0.90)",
    },
    ParamInfo {
        name: "loss_thresh",
        kind: ParamKind::Float,
        default: 5.0 / UNIT,
        min: 0.0,
        max: 1.0,
        doc: "loss rate, of the data in flight when the lost data left, that makes a probe too high \
              (Linux v3 bbr_loss_thresh 256 x 2/100 = 5/256; draft 2%)",
    },
    ParamInfo {
        name: "beta",
        kind: ParamKind::Float,
        default: 76.0 / UNIT,
        min: 0.0,
        max: 1.0,
        doc: "the multiplicative cut per lossy round of bw_lo and inflight_lo, and of the BDP for \
              inflight_hi (Linux v3 bbr_beta 256 x 30/100 = 76/256, keeping 180/256; draft keeps 0.7)",
    },
    ParamInfo {
        name: "headroom",
        kind: ParamKind::Float,
        default: 38.0 / UNIT,
        min: 0.0,
        max: 1.0,
        doc: "share of inflight_hi left unused in CRUISE and PROBE_RTT (Linux v3 bbr_inflight_headroom \
              256 x 15/100 = 38/256; draft 0.15)",
    },
    ParamInfo {
        name: "full_loss_count",
        kind: ParamKind::Int,
        default: 6.0,
        min: 0.0,
        max: 15.0,
        doc: "ACKs marking losses in a round of recovery (with loss above loss_thresh) that end STARTUP; \
              0 disables (Linux v3 bbr_full_loss_cnt 6; draft 6)",
    },
    ParamInfo {
        name: "full_ecn_count",
        kind: ParamKind::Int,
        default: 2.0,
        min: 0.0,
        max: 3.0,
        doc: "rounds running with a CE-marked share of at least ecn_thresh that end STARTUP; 0 disables \
              (Linux v3 bbr_full_ecn_cnt 2)",
    },
    ParamInfo {
        name: "ecn_low",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "the route marks CE at a shallow threshold, so BBR may use ECN (Linux's per-route ecn_low \
              feature, off unless configured; with ECN negotiated too)",
    },
    ParamInfo {
        name: "ecn_max_rtt",
        kind: ParamKind::Float,
        default: 0.005,
        min: 0.0,
        max: 1e3,
        doc: "seconds: ECN is used only while the minimum RTT is at most this; 0 = any RTT (Linux v3 \
              bbr_ecn_max_rtt_us 5000)",
    },
    ParamInfo {
        name: "ecn_alpha_gain",
        kind: ParamKind::Float,
        default: 16.0 / UNIT,
        min: 0.0,
        max: 1.0,
        doc: "EWMA gain of the CE-marked share per round (Linux v3 bbr_ecn_alpha_gain 1/16; alpha \
              starts at 1, bbr_ecn_alpha_init)",
    },
    ParamInfo {
        name: "ecn_factor",
        kind: ParamKind::Float,
        default: 85.0 / UNIT,
        min: 0.0,
        max: 1.0,
        doc: "inflight_lo is cut to 1 - ecn_factor x alpha in a round with ECN-Echo; 0 disables ECN \
              (Linux v3 bbr_ecn_factor 256/3 = 85/256)",
    },
    ParamInfo {
        name: "ecn_thresh",
        kind: ParamKind::Float,
        default: 128.0 / UNIT,
        min: 0.0,
        max: 1.0,
        doc: "CE-marked share of a sample that makes a probe too high; 0 disables (Linux v3 \
              bbr_ecn_thresh 1/2)",
    },
    ParamInfo {
        name: "ecn_reprobe_gain",
        kind: ParamKind::Float,
        default: 128.0 / UNIT,
        min: 0.0,
        max: 1.0,
        doc: "after ECN marks without loss stop, probe again at once, the first round's inflight_hi \
              increase this share of inflight_hi; 0 disables (Linux v3 bbr_ecn_reprobe_gain 1/2)",
    },
    ParamInfo {
        name: "bw_probe_max_rounds",
        kind: ParamKind::Int,
        default: 63.0,
        min: 1.0,
        max: 255.0,
        doc: "most rounds between bandwidth probes, the Reno-coexistence bound min(this, BDP) (Linux v3 \
              bbr_bw_probe_max_rounds 63)",
    },
    ParamInfo {
        name: "bw_probe_rand_rounds",
        kind: ParamKind::Int,
        default: 2.0,
        min: 1.0,
        max: 255.0,
        doc: "the round count toward that bound starts at a uniform draw below this (Linux v3 \
              bbr_bw_probe_rand_rounds 2)",
    },
    ParamInfo {
        name: "bw_probe_base",
        kind: ParamKind::Float,
        default: 2.0,
        min: 0.0,
        max: 1e3,
        doc: "seconds from the start of DOWN to the next bandwidth probe, before the random part \
              (Linux v3 bbr_bw_probe_base_us 2 s; draft 2 s)",
    },
    ParamInfo {
        name: "bw_probe_rand",
        kind: ParamKind::Float,
        default: 1.0,
        min: 0.0,
        max: 1e3,
        doc: "seconds of uniform random wait added to bw_probe_base (Linux v3 bbr_bw_probe_rand_us 1 s; \
              draft 0-1 s)",
    },
    ParamInfo {
        name: "min_rtt_window",
        kind: ParamKind::Float,
        default: 10.0,
        min: 0.001,
        max: 1e6,
        doc: "seconds the minimum RTT (for the BDP) is kept (Linux v3 bbr_min_rtt_win_sec 10; draft 10 s)",
    },
    ParamInfo {
        name: "probe_rtt_interval",
        kind: ParamKind::Float,
        default: 5.0,
        min: 0.001,
        max: 1e6,
        doc: "seconds without an RTT sample below the recent minimum before PROBE_RTT (Linux v3 \
              bbr_probe_rtt_win_ms 5000; draft 5 s)",
    },
    ParamInfo {
        name: "probe_rtt_time",
        kind: ParamKind::Float,
        default: 0.2,
        min: 0.0,
        max: 1e3,
        doc: "seconds PROBE_RTT holds the flight at its cwnd, a round at least too; 0 disables PROBE_RTT \
              (Linux v3 bbr_probe_rtt_mode_ms 200; draft 200 ms)",
    },
    ParamInfo {
        name: "probe_rtt_cwnd_gain",
        kind: ParamKind::Float,
        default: 0.5,
        min: 0.0,
        max: 1.0,
        doc: "PROBE_RTT's cwnd in BDPs, at least 4 segments (Linux v3 bbr_probe_rtt_cwnd_gain 1/2; \
              draft 0.5)",
    },
    ParamInfo {
        name: "ack_aggregation",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "add the ACK-aggregation allowance to the target cwnd (Linux v3 bbr_extra_acked_gain 1, \
              5-round window (1 before the pipe is full), at most 100 ms at the bandwidth)",
    },
];

/// The smallest cwnd, and the least PROBE_RTT holds (Linux `bbr_cwnd_min_target`).
const CWND_MIN_TARGET: f64 = 4.0;
/// A rate sample this much above the plateau says the pipe may not be full yet ...
const FULL_BW_THRESH: f64 = 320.0 / UNIT;
/// ... and this many rounds without one say it is.
const FULL_BW_ROUNDS: u32 = 3;
/// The pacing rate is this fraction of bw x gain (Linux's 1% margin).
const PACING_MARGIN: f64 = 0.99;
/// Linux's initial window, until the connection tells its own.
const INIT_CWND: f64 = 10.0;
/// The ACK-aggregation estimate's window once the pipe is full: two halves of this many rounds.
const EXTRA_ACKED_ROUNDS: u32 = 5;
/// A 64 KB GSO burst, in segments.
const GSO_MAX_SEGMENTS: f64 = 44.0;
/// The send quantum's RTT allowance halves for every this many microseconds of minimum RTT.
const TSO_RTT_SHIFT: u32 = 9;
/// The smallest nonzero bandwidth in Linux's units (2^-24 segments per microsecond).
const BW_MIN: f64 = 1e6 / (1u64 << 24) as f64;
/// Linux keeps inflight_hi in 32 bits: the unset value's half has log2 30.
const U32_MAX: f64 = u32::MAX as f64;

/// BBR's modes, numbered as Linux's `bbr_mode` (the series' `cc_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

/// PROBE_BW's sub-states, numbered as Linux's `bbr_pacing_gain_phase` (the series' `cc_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up = 0,
    Down = 1,
    Cruise = 2,
    Refill = 3,
}

/// What the ACKs now arriving say about bandwidth probing (Linux `bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// One ACK's rate sample as BBR reads it (Linux `struct rate_sample`): without a sample the
/// counts are 0 and `delivered` is -1, as Linux leaves them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sample {
    /// Segments per second; 0 unless the interval is valid.
    bw: f64,
    valid: bool,
    delivered: i64,
    prior_delivered: u64,
    tx_in_flight: f64,
    lost: f64,
    delivered_ce: f64,
    app_limited: bool,
    /// This ACK's newly delivered and newly lost segments (`acked_sacked`, `losses`).
    acked_sacked: f64,
    losses: f64,
    /// Taken in the loss state after a timeout, or on the ACK that ends it or fast recovery
    /// (module docs).
    repair_burst: bool,
}

impl Sample {
    fn of(ack: &AckSample) -> Sample {
        let mut s =
            Sample { delivered: -1, acked_sacked: ack.delivered_now, losses: ack.newly_lost, ..Sample::default() };
        if let Some(rs) = ack.delay.rate {
            s.bw = rs.rate().unwrap_or(0.0);
            s.valid = rs.valid;
            s.delivered = rs.delivered as i64;
            s.prior_delivered = rs.prior_delivered;
            s.tx_in_flight = rs.tx_in_flight as f64;
            s.lost = rs.lost as f64;
            s.delivered_ce = rs.delivered_ce as f64;
            s.app_limited = rs.app_limited;
        }
        s
    }
}

#[derive(Clone, Debug)]
pub struct Bbr3 {
    startup_pacing_gain: f64,
    startup_cwnd_gain: f64,
    drain_gain: f64,
    probe_bw_cwnd_gain: f64,
    probe_up_cwnd_gain: f64,
    probe_up_gain: f64,
    probe_down_gain: f64,
    loss_thresh: f64,
    beta: f64,
    headroom: f64,
    full_loss_count: u32,
    full_ecn_count: u32,
    ecn_low: bool,
    ecn_max_rtt: Dur,
    ecn_alpha_gain: f64,
    ecn_factor: f64,
    ecn_thresh: f64,
    ecn_reprobe_gain: f64,
    bw_probe_max_rounds: u32,
    bw_probe_rand_rounds: u32,
    bw_probe_base: Dur,
    bw_probe_rand: Dur,
    min_rtt_window: Dur,
    probe_rtt_interval: Dur,
    probe_rtt_time: Dur,
    probe_rtt_cwnd_gain: f64,
    ack_aggregation: bool,
    rng: Stream,

    mode: Mode,
    phase: Phase,
    pacing_gain: f64,
    cwnd_gain: f64,
    cwnd: f64,
    init_cwnd: f64,
    prior_cwnd: f64,
    prev_ca_state: CaState,
    /// ssthresh for the sender when STARTUP ends (Linux sets it for reporting only).
    drain_ssthresh: Option<f64>,

    /// Linux `tp->delivered` and `tp->delivered_ce`.
    delivered: u64,
    delivered_ce: u64,
    /// A round ends when a segment sent after this count was reached is delivered.
    next_rtt_delivered: u64,
    round_start: bool,
    rounds_since_probe: u32,

    min_rtt: Option<Dur>,
    min_rtt_stamp: Time,
    probe_rtt_min: Option<Dur>,
    probe_rtt_min_stamp: Time,
    probe_rtt_done_at: Option<Time>,
    probe_rtt_round_done: bool,
    /// PROBE_RTT asks the sender to mark the flight app-limited.
    mark_app_limited: bool,

    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    full_bw_reached: bool,

    /// The maxima of the previous and the current PROBE_BW cycle's rate samples.
    bw_hi: [f64; 2],
    /// Unset (Linux ~0U) is infinity.
    bw_lo: f64,
    bw_latest: f64,
    inflight_hi: f64,
    inflight_lo: f64,
    inflight_latest: f64,
    undo_bw_lo: f64,
    undo_inflight_lo: f64,
    undo_inflight_hi: f64,

    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_in_cycle: bool,
    loss_events_in_round: u32,
    ecn_in_round: bool,
    ecn_in_cycle: bool,
    startup_ecn_rounds: u32,
    ecn_eligible: bool,
    ecn_alpha: f64,
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,

    cycle_stamp: Time,
    ack_phase: AckPhase,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    bw_probe_up_rounds: u32,
    bw_probe_up_cnt: f64,
    bw_probe_up_acks: f64,
    probe_wait: Dur,

    aggregation: AckAggregation,

    pacing_rate: f64,
    has_seen_rtt: bool,
    initialized: bool,
    departures: Departures,
    /// A duplicate ACK has shown that the connection runs without SACK.
    without_sack: bool,
}

impl Bbr3 {
    pub fn new(rng: Stream) -> Self {
        let mut b = Bbr3 {
            startup_pacing_gain: 710.0 / UNIT,
            startup_cwnd_gain: 2.0,
            drain_gain: 88.0 / UNIT,
            probe_bw_cwnd_gain: 2.0,
            probe_up_cwnd_gain: 0.25,
            probe_up_gain: 1.25,
            probe_down_gain: 232.0 / UNIT,
            loss_thresh: 5.0 / UNIT,
            beta: 76.0 / UNIT,
            headroom: 38.0 / UNIT,
            full_loss_count: 6,
            full_ecn_count: 2,
            ecn_low: false,
            ecn_max_rtt: 5 * NS_PER_MS,
            ecn_alpha_gain: 16.0 / UNIT,
            ecn_factor: 85.0 / UNIT,
            ecn_thresh: 128.0 / UNIT,
            ecn_reprobe_gain: 128.0 / UNIT,
            bw_probe_max_rounds: 63,
            bw_probe_rand_rounds: 2,
            bw_probe_base: 2 * NS_PER_S,
            bw_probe_rand: NS_PER_S,
            min_rtt_window: 10 * NS_PER_S,
            probe_rtt_interval: 5 * NS_PER_S,
            probe_rtt_time: 200 * NS_PER_MS,
            probe_rtt_cwnd_gain: 0.5,
            ack_aggregation: true,
            rng,
            mode: Mode::Startup,
            phase: Phase::Up,
            pacing_gain: 0.0,
            cwnd_gain: 0.0,
            cwnd: INIT_CWND,
            init_cwnd: INIT_CWND,
            prior_cwnd: 0.0,
            prev_ca_state: CaState::Open,
            drain_ssthresh: None,
            delivered: 0,
            delivered_ce: 0,
            next_rtt_delivered: 0,
            round_start: false,
            rounds_since_probe: 0,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_min: None,
            probe_rtt_min_stamp: 0,
            probe_rtt_done_at: None,
            probe_rtt_round_done: false,
            mark_app_limited: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_hi: f64::INFINITY,
            inflight_lo: f64::INFINITY,
            inflight_latest: 0.0,
            undo_bw_lo: 0.0,
            undo_inflight_lo: 0.0,
            undo_inflight_hi: 0.0,
            // Loss rounds start counting after the first flight is delivered.
            loss_round_delivered: 1,
            loss_round_start: false,
            loss_in_round: false,
            loss_in_cycle: false,
            loss_events_in_round: 0,
            ecn_in_round: false,
            ecn_in_cycle: false,
            startup_ecn_rounds: 0,
            ecn_eligible: false,
            ecn_alpha: 1.0,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            cycle_stamp: 0,
            ack_phase: AckPhase::Init,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: f64::INFINITY,
            bw_probe_up_acks: 0.0,
            probe_wait: 0,
            aggregation: AckAggregation::default(),
            pacing_rate: 0.0,
            has_seen_rtt: false,
            initialized: false,
            departures: Departures::default(),
            without_sack: false,
        };
        b.update_gains();
        b
    }

    pub fn from_params(p: &Params, rng: Stream) -> Self {
        let secs = |name: &str| (p.get(name) * NS_PER_S as f64).round() as Dur;
        let mut b = Bbr3::new(rng);
        b.startup_pacing_gain = p.get("startup_pacing_gain");
        b.startup_cwnd_gain = p.get("startup_cwnd_gain");
        b.drain_gain = p.get("drain_gain");
        b.probe_bw_cwnd_gain = p.get("cwnd_gain");
        b.probe_up_cwnd_gain = p.get("probe_up_cwnd_gain");
        b.probe_up_gain = p.get("probe_up_gain");
        b.probe_down_gain = p.get("probe_down_gain");
        b.loss_thresh = p.get("loss_thresh");
        b.beta = p.get("beta");
        b.headroom = p.get("headroom");
        b.full_loss_count = p.get("full_loss_count") as u32;
        b.full_ecn_count = p.get("full_ecn_count") as u32;
        b.ecn_low = p.flag("ecn_low");
        b.ecn_max_rtt = secs("ecn_max_rtt");
        b.ecn_alpha_gain = p.get("ecn_alpha_gain");
        b.ecn_factor = p.get("ecn_factor");
        b.ecn_thresh = p.get("ecn_thresh");
        b.ecn_reprobe_gain = p.get("ecn_reprobe_gain");
        b.bw_probe_max_rounds = p.get("bw_probe_max_rounds") as u32;
        b.bw_probe_rand_rounds = p.get("bw_probe_rand_rounds") as u32;
        b.bw_probe_base = secs("bw_probe_base");
        b.bw_probe_rand = secs("bw_probe_rand");
        b.min_rtt_window = secs("min_rtt_window");
        b.probe_rtt_interval = secs("probe_rtt_interval");
        b.probe_rtt_time = secs("probe_rtt_time");
        b.probe_rtt_cwnd_gain = p.get("probe_rtt_cwnd_gain");
        b.ack_aggregation = p.flag("ack_aggregation");
        b.update_gains();
        b
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The long-term bandwidth estimate, segments/s.
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// The bandwidth BBR paces and sizes the cwnd by: the long-term estimate, bounded by the
    /// short-term one.
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    pub fn inflight_hi(&self) -> f64 {
        self.inflight_hi
    }

    pub fn inflight_lo(&self) -> f64 {
        self.inflight_lo
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// ceil(bw x min_rtt x gain) segments; the initial window before any RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            None => self.init_cwnd,
            Some(rtt) => (bw * rtt as f64 / NS_PER_S as f64 * gain - 1e-9).ceil().max(0.0),
        }
    }

    /// Linux v3 `bbr_tso_segs_goal`, in segments (module docs).
    fn send_quantum(&self) -> f64 {
        let mut segments = self.pacing_rate / 1024.0;
        let shift = self.min_rtt.map_or(u64::MAX, |m| m / NS_PER_US) >> TSO_RTT_SHIFT;
        if shift < 32 {
            segments += GSO_MAX_SEGMENTS / (1u64 << shift) as f64;
        }
        segments.min(GSO_MAX_SEGMENTS).floor().max(2.0)
    }

    /// Room for the segments end hosts hold (3 send quanta), at least 4, and 2 more in UP.
    fn quantization_budget(&self, cwnd: f64) -> f64 {
        let cwnd = cwnd.max(3.0 * self.send_quantum()).max(CWND_MIN_TARGET);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd + 2.0
        } else {
            cwnd
        }
    }

    /// The flight `gain` x BDP asks for, with the budget.
    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// One BDP's flight, or the cwnd if congestion cut it lower (Linux `bbr_target_inflight`).
    fn target_inflight(&self) -> f64 {
        self.inflight(self.bw(), 1.0).min(self.cwnd)
    }

    /// The flight left in the network when the next segment may leave: what is in flight less
    /// what the bottleneck delivers meanwhile (plus that segment's quantum when growing).
    fn in_network_at_departure(&self, in_flight: f64, now: Time) -> f64 {
        let wait = self.departures.wait(now);
        let delivered_meanwhile = (self.bw() * wait as f64 / NS_PER_S as f64).floor();
        let mut at_departure = in_flight;
        if self.pacing_gain > 1.0 {
            at_departure += self.send_quantum();
        }
        (at_departure - delivered_meanwhile).max(0.0)
    }

    fn ack_aggregation_cwnd(&self) -> f64 {
        if !self.ack_aggregation {
            return 0.0;
        }
        self.aggregation.allowance(self.bw())
    }

    /// PROBE_RTT's cwnd: half a BDP, at least 4 segments.
    fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp(self.bw(), self.probe_rtt_cwnd_gain).max(CWND_MIN_TARGET)
    }

    /// `inflight_hi` less the headroom (at least 1 segment), at least 4.
    fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_hi.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (self.inflight_hi * self.headroom).floor().max(1.0);
        (self.inflight_hi - headroom).max(CWND_MIN_TARGET)
    }

    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    fn save_cwnd(&mut self, cwnd: f64) {
        self.prior_cwnd = if matches!(self.prev_ca_state, CaState::Open | CaState::Cwr) && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.startup_pacing_gain, self.startup_cwnd_gain),
            Mode::Drain => (self.drain_gain, self.startup_cwnd_gain),
            Mode::ProbeBw => match self.phase {
                Phase::Up => (self.probe_up_gain, self.probe_bw_cwnd_gain + self.probe_up_cwnd_gain),
                Phase::Down => (self.probe_down_gain, self.probe_bw_cwnd_gain),
                Phase::Cruise | Phase::Refill => (1.0, self.probe_bw_cwnd_gain),
            },
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = f64::INFINITY;
    }

    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    /// Whether the losses or CE marks of a sample say the flight was too high: more lost than
    /// `loss_thresh` of the flight the sampled segment left into, or more marked than
    /// `ecn_thresh` of what it delivered (thresholds in whole segments, as Linux's).
    fn is_inflight_too_high(&self, s: &Sample) -> bool {
        if s.lost > 0.0 && s.tx_in_flight > 0.0 && s.lost > (s.tx_in_flight * self.loss_thresh).floor() {
            return true;
        }
        s.delivered_ce > 0.0
            && s.delivered > 0
            && self.ecn_eligible
            && self.ecn_thresh > 0.0
            && s.delivered_ce > (s.delivered as f64 * self.ecn_thresh).floor()
    }

    /// The flight at which the loss rate crossed `loss_thresh`, when the segment that left into
    /// `s.tx_in_flight` (itself included) was lost with `s.lost` losses counted since: the
    /// flight before it plus the part of it beyond the loss budget of that flight.
    fn inflight_hi_from_lost_segment(&self, s: &Sample) -> f64 {
        let inflight_prev = s.tx_in_flight - 1.0;
        let lost_prev = s.lost - 1.0;
        if inflight_prev < 0.0 || lost_prev < 0.0 {
            return f64::INFINITY;
        }
        let loss_budget = (inflight_prev * self.loss_thresh).ceil();
        let lost_prefix =
            if lost_prev >= loss_budget { 0.0 } else { ((loss_budget - lost_prev) / (1.0 - self.loss_thresh)).floor() };
        inflight_prev + lost_prefix
    }

    /// The probe went too high: `inflight_hi` comes down to the flight that caused it (or
    /// 1 - beta of a BDP, if more), unless the sample was app-limited; UP ends.
    fn handle_inflight_too_high(&mut self, s: &Sample, now: Time) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !s.app_limited {
            self.inflight_hi = s.tx_in_flight.max((self.target_inflight() * (1.0 - self.beta)).floor());
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_probe_down(now);
        }
    }

    /// A loss was marked in this round (Linux `bbr_note_loss`).
    fn note_loss(&mut self) {
        if !self.loss_in_round {
            self.loss_round_delivered = self.delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// Linux `bbr_skb_marked_lost`, once per ACK that marks losses (module docs).
    fn on_marked_lost(&mut self, s: &Sample, now: Time) {
        self.note_loss();
        if !self.bw_probe_samples || s.delivered < 0 {
            return;
        }
        let probe = Sample { delivered: 0, delivered_ce: 0.0, ..*s };
        if self.is_inflight_too_high(&probe) {
            let at = Sample { tx_in_flight: self.inflight_hi_from_lost_segment(&probe), ..probe };
            self.handle_inflight_too_high(&at, now);
        }
    }

    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = (uniform(&mut self.rng) * self.bw_probe_rand_rounds as f64) as u32;
        let rand_us = (uniform(&mut self.rng) * (self.bw_probe_rand / NS_PER_US) as f64) as u64;
        self.probe_wait = self.bw_probe_base + rand_us * NS_PER_US;
    }

    /// Per round of UP, `inflight_hi` grows twice as fast: 1 segment per cwnd/2^k delivered.
    fn raise_inflight_hi_slope(&mut self) {
        let growth_this_round = 2f64.powi(self.bw_probe_up_rounds as i32);
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (self.cwnd / growth_this_round).floor().max(1.0);
    }

    fn probe_inflight_hi_upward(&mut self, s: &Sample, cwnd_limited: bool) {
        if !cwnd_limited || self.cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += s.acked_sacked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = (self.bw_probe_up_acks / self.bw_probe_up_cnt).floor();
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    fn start_refill(&mut self, up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = up_rounds;
        self.bw_probe_up_acks = 0.0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = self.delivered;
        self.phase = Phase::Refill;
    }

    fn start_probe_up(&mut self, s: &Sample, now: Time) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = self.delivered;
        self.cycle_stamp = now;
        self.reset_full_bw();
        self.full_bw = s.bw;
        self.phase = Phase::Up;
        self.raise_inflight_hi_slope();
    }

    fn start_probe_down(&mut self, now: Time) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = f64::INFINITY;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = self.delivered;
        self.phase = Phase::Down;
    }

    fn start_cruise(&mut self) {
        if self.inflight_lo.is_finite() {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.phase = Phase::Cruise;
    }

    /// Linux `bbr_adapt_upper_bounds`; true when it decided a transition.
    fn adapt_upper_bounds(&mut self, s: &Sample, now: Time, cwnd_limited: bool) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The samples of the probe are over: now the current cycle's maximum may replace the
            // last one's.
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !s.app_limited && self.bw_hi[1] > 0.0 {
                self.bw_hi = [self.bw_hi[1], 0.0];
            }
            // A probe that stopped at inflight_hi without trouble: refill and probe again.
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_refill(0);
                return true;
            }
        }
        if self.is_inflight_too_high(s) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(s, now);
            }
        } else {
            if self.inflight_hi.is_infinite() {
                return false;
            }
            if s.tx_in_flight > self.inflight_hi {
                self.inflight_hi = s.tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_hi_upward(s, cwnd_limited);
            }
        }
        false
    }

    fn check_time_to_probe_bw(&mut self, ca_state: CaState, now: Time) -> bool {
        if self.ecn_reprobe_gain > 0.0
            && self.ecn_eligible
            && self.ecn_in_cycle
            && !self.loss_in_cycle
            && ca_state == CaState::Open
        {
            let volume = (self.inflight_hi.min(U32_MAX) * self.ecn_reprobe_gain).floor().max(1.0);
            self.start_refill(volume.log2().floor() as u32);
            return true;
        }
        let reno_rounds = (self.bw_probe_max_rounds as f64).min(self.target_inflight());
        if now > self.cycle_stamp + self.probe_wait || self.rounds_since_probe as f64 >= reno_rounds {
            self.start_refill(0);
            return true;
        }
        false
    }

    /// Linux `bbr_update_cycle_phase`: PROBE_BW's sub-state machine.
    fn update_cycle_phase(&mut self, ack: &AckSample, s: &Sample) {
        if !self.full_bw_reached {
            return;
        }
        let now = ack.now;
        if self.adapt_upper_bounds(s, now, ack.cwnd_limited) || self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.in_network_at_departure(ack.prior_in_flight, now);
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(ack.ca_state, now);
            }
            Phase::Refill => {
                // A round of REFILL's samples is in: from here they may show the probe.
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_probe_up(s, now);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if ack.cwnd_limited && self.cwnd >= self.inflight_hi {
                    // inflight_hi, not the path, holds the rate: no plateau yet.
                    self.reset_full_bw();
                    self.full_bw = s.bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_probe_down(now);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(ack.ca_state, now) {
                    return;
                }
                if inflight <= self.inflight_with_headroom() && inflight <= self.inflight(self.max_bw(), 1.0) {
                    self.start_cruise();
                }
            }
        }
    }

    /// The CE-marked share of the round just ended, folded into alpha; `None` when ECN is not
    /// in use or nothing was delivered.
    fn update_ecn_alpha(&mut self) -> Option<f64> {
        let rtt_ok = self.ecn_max_rtt == 0 || self.min_rtt.is_some_and(|m| m <= self.ecn_max_rtt);
        if !self.ecn_eligible && self.ecn_low && self.ecn_factor > 0.0 && rtt_ok {
            self.ecn_eligible = true;
        }
        if !self.ecn_eligible {
            return None;
        }
        let delivered = self.delivered - self.alpha_last_delivered;
        if delivered == 0 {
            return None;
        }
        let ce_ratio = (self.delivered_ce - self.alpha_last_delivered_ce) as f64 / delivered as f64;
        let g = self.ecn_alpha_gain;
        self.ecn_alpha = ((1.0 - g) * self.ecn_alpha + g * ce_ratio).min(1.0);
        self.alpha_last_delivered = self.delivered;
        self.alpha_last_delivered_ce = self.delivered_ce;
        if !self.full_bw_reached && self.full_ecn_count > 0 && self.ecn_thresh > 0.0 {
            if ce_ratio >= self.ecn_thresh {
                self.startup_ecn_rounds += 1;
            } else {
                self.startup_ecn_rounds = 0;
            }
            if self.startup_ecn_rounds >= self.full_ecn_count {
                self.queue_too_high_in_startup();
            }
        }
        Some(ce_ratio)
    }

    /// STARTUP ends on loss or ECN: the pipe counts as full, and `inflight_hi` starts at one BDP
    /// or what the last round delivered, the larger.
    fn queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        self.inflight_hi = self.inflight(self.max_bw(), 1.0).max(self.inflight_latest);
    }

    /// Linux `bbr_update_latest_delivery_signals`.
    fn update_latest_delivery_signals(&mut self, s: &Sample) {
        self.loss_round_start = false;
        if !s.valid || s.acked_sacked == 0.0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(s.bw);
        self.inflight_latest = self.inflight_latest.max(s.delivered as f64);
        if s.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// Outside probing, the short-term bounds come down once per round with loss or ECN.
    fn adapt_lower_bounds(&mut self) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = f64::INFINITY;
        if self.ecn_in_round && self.ecn_factor > 0.0 {
            if self.inflight_lo.is_infinite() {
                self.inflight_lo = self.cwnd;
            }
            ecn_inflight_lo = (self.inflight_lo * (1.0 - self.ecn_alpha * self.ecn_factor)).floor();
        }
        if self.loss_in_round {
            if self.bw_lo.is_infinite() {
                self.bw_lo = self.max_bw();
            }
            if self.inflight_lo.is_infinite() {
                self.inflight_lo = self.cwnd;
            }
            let keep = 1.0 - self.beta;
            self.bw_lo = self.bw_latest.max(self.bw_lo * keep);
            self.inflight_lo = self.inflight_latest.max((self.inflight_lo * keep).floor());
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
        self.bw_lo = self.bw_lo.max(BW_MIN);
    }

    fn update_congestion_signals(&mut self, s: &Sample) {
        if !s.valid || s.acked_sacked == 0.0 {
            return;
        }
        if (!s.app_limited || s.bw >= self.max_bw()) && !s.repair_burst {
            self.bw_hi[1] = self.bw_hi[1].max(s.bw);
        }
        self.loss_in_round |= s.losses > 0.0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds();
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    fn update_ack_aggregation(&mut self, s: &Sample, now: Time) {
        if !self.ack_aggregation || s.acked_sacked <= 0.0 || !s.valid || s.repair_burst {
            return;
        }
        // Before the pipe is full the window is a single round (v3's change).
        let window = if self.full_bw_reached { EXTRA_ACKED_ROUNDS } else { 1 };
        self.aggregation.update(s.acked_sacked, now, self.bw(), self.cwnd, self.round_start, window);
    }

    /// STARTUP's loss exit, checked at the end of each round of fast recovery.
    fn check_loss_too_high_in_startup(&mut self, s: &Sample, ca_state: CaState) {
        if self.full_bw_reached {
            return;
        }
        if s.losses > 0.0 {
            self.loss_events_in_round = (self.loss_events_in_round + 1).min(15);
        }
        if self.full_loss_count > 0
            && self.loss_round_start
            && ca_state == CaState::Recovery
            && self.loss_events_in_round >= self.full_loss_count
            && self.is_inflight_too_high(s)
        {
            self.queue_too_high_in_startup();
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// The plateau: a sample 25% above the last plateau starts a new one; 3 rounds without
    /// one fill the pipe. Runs in every mode (PROBE_BW UP ends on it too).
    fn check_full_bw_reached(&mut self, s: &Sample) {
        if self.full_bw_now || s.app_limited {
            return;
        }
        if s.bw >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = s.bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_ROUNDS;
        self.full_bw_reached |= self.full_bw_now;
    }

    fn check_drain(&mut self, in_flight: f64, now: Time) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.drain_ssthresh = Some(self.inflight(self.max_bw(), 1.0));
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain && self.in_network_at_departure(in_flight, now) <= self.inflight(self.max_bw(), 1.0)
        {
            self.mode = Mode::ProbeBw;
            self.start_probe_down(now);
        }
    }

    /// The two minimum RTTs (5 s for PROBE_RTT's schedule, 10 s for the BDP) and PROBE_RTT.
    fn update_min_rtt(&mut self, ack: &AckSample, s: &Sample) {
        let now = ack.now;
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + self.probe_rtt_interval;
        // A duplicate ACK's timestamp echo is an old segment's: only a delivering ACK's
        // sample counts (Linux's `rs->rtt_us` is -1 otherwise).
        let rtt = ack.ca_rtt.or_else(|| (ack.acked > 0.0).then(|| ca_rtt(ack)));
        if let Some(rtt) = rtt.filter(|_| s.acked_sacked > 0.0) {
            let maybe_delayed = ack.acked == 1.0;
            if self.probe_rtt_min.is_none_or(|m| rtt < m) || (probe_rtt_expired && !maybe_delayed) {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + self.min_rtt_window;
        if let Some(p) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p <= m) || min_rtt_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if self.probe_rtt_time > 0 && probe_rtt_expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(self.cwnd);
            self.probe_rtt_done_at = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = self.delivered;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // Its low rates say nothing of the path.
        self.mark_app_limited = true;
        match self.probe_rtt_done_at {
            None if ack.in_flight <= self.probe_rtt_cwnd() => {
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

    /// PROBE_RTT ends once its time and its round are over: the cwnd from before comes back,
    /// the 5 s clock restarts, and PROBE_BW resumes cruising (the flight is below a BDP).
    fn check_probe_rtt_done(&mut self, now: Time) {
        if self.probe_rtt_done_at.is_none_or(|at| now <= at) {
            return;
        }
        self.probe_rtt_min_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_probe_down(now);
            self.start_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn set_pacing_rate(&mut self, srtt: Dur) {
        if !self.has_seen_rtt && srtt > 0 {
            self.init_pacing_rate(srtt);
        }
        let rate = self.bw() * self.pacing_gain * PACING_MARGIN;
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// STARTUP's gain x cwnd / RTT, before any bandwidth sample (1 ms without an RTT).
    fn init_pacing_rate(&mut self, srtt: Dur) {
        let rtt = if srtt > 0 {
            self.has_seen_rtt = true;
            srtt
        } else {
            NS_PER_MS
        };
        self.pacing_rate = self.cwnd * NS_PER_S as f64 / rtt as f64 * self.startup_pacing_gain * PACING_MARGIN;
    }

    /// Toward the target by what the ACK delivered; before the pipe is full, only up.
    fn set_cwnd(&mut self, acked: f64) {
        if acked > 0.0 {
            let target = self.quantization_budget(self.bdp(self.bw(), self.cwnd_gain) + self.ack_aggregation_cwnd());
            if self.full_bw_reached {
                self.cwnd = (self.cwnd + acked).min(target);
            } else if self.cwnd < target || self.cwnd < 2.0 * self.init_cwnd {
                self.cwnd += acked;
            }
            self.cwnd = self.cwnd.max(CWND_MIN_TARGET);
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// The inflight model's cap: `inflight_hi` while probing, less the headroom when cruising
    /// or in PROBE_RTT, and `inflight_lo` always.
    fn bound_cwnd_for_inflight_model(&mut self) {
        let mut cap = f64::INFINITY;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt || self.mode == Mode::ProbeBw {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(CWND_MIN_TARGET);
        self.cwnd = self.cwnd.min(cap);
    }

    /// The connection opens (Linux `bbr_init`, with the handshake's RTT).
    fn init(&mut self, now: Time, srtt: Dur, cwnd: f64) {
        self.initialized = true;
        self.cwnd = cwnd;
        self.init_cwnd = cwnd.min(127.0);
        self.init_pacing_rate(srtt);
        if srtt > 0 && self.min_rtt.is_none() {
            self.min_rtt = Some(srtt);
            self.probe_rtt_min = Some(srtt);
        }
        self.min_rtt_stamp = now;
        self.probe_rtt_min_stamp = now;
        self.aggregation.start_epoch(now);
        self.next_rtt_delivered = self.delivered;
        self.loss_round_delivered = self.delivered + 1;
    }

    /// Everything one ACK changes, in Linux's order (`bbr_main`).
    fn main(&mut self, ack: &AckSample, s: &Sample) {
        let now = ack.now;
        self.round_start = false;
        if s.valid && s.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.round_start = true;
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(255);
            self.update_ecn_alpha();
        }
        self.ecn_in_round |= self.ecn_eligible && ack.ece;
        self.update_latest_delivery_signals(s);

        self.update_congestion_signals(s);
        self.update_ack_aggregation(s, now);
        self.check_loss_too_high_in_startup(s, ack.ca_state);
        self.check_full_bw_reached(s);
        self.check_drain(ack.in_flight, now);
        self.update_cycle_phase(ack, s);
        self.update_min_rtt(ack, s);

        self.update_gains();
        self.set_pacing_rate(ack.srtt);
        self.set_cwnd(s.acked_sacked);
        self.bound_cwnd_for_inflight_model();

        // Once per round the latest delivery signals start over.
        if self.loss_round_start {
            self.bw_latest = s.bw;
            self.inflight_latest = s.delivered.max(0) as f64;
        }
        self.prev_ca_state = ack.ca_state;
        self.loss_in_cycle |= s.lost > 0.0;
        self.ecn_in_cycle |= s.delivered_ce > 0.0;
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        if !self.initialized {
            self.init(ack.now, ack.srtt, w.cwnd);
        }
        self.cwnd = w.cwnd;
        let mut s = Sample::of(ack);
        // Only without SACK does a duplicate ACK deliver a segment that has no rate sample.
        self.without_sack |= ack.acked == 0.0 && ack.delivered_now > 0.0 && ack.delay.rate.is_none();
        s.repair_burst = ack.ca_state == CaState::Loss
            || (self.without_sack && ack.ca_state == CaState::Recovery)
            || (matches!(self.prev_ca_state, CaState::Loss | CaState::Recovery) && ack.ca_state != self.prev_ca_state);
        let newly = ack.delivered_now.max(0.0).round() as u64;
        self.delivered = match ack.delay.rate {
            Some(rs) => (rs.prior_delivered + rs.delivered).max(self.delivered),
            None => self.delivered + newly,
        };
        if ack.ece {
            self.delivered_ce += newly;
        }
        // The loss state after a timeout is over: back to the cwnd from before (Linux
        // `bbr_set_state` on leaving TCP_CA_Loss, before `bbr_main`).
        if self.prev_ca_state == CaState::Loss && ack.ca_state != CaState::Loss {
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
        // The stack marks losses before the algorithm sees the ACK.
        if s.losses > 0.0 {
            self.on_marked_lost(&s, ack.now);
        }
        self.main(ack, &s);
        if let Some(ssthresh) = self.drain_ssthresh.take() {
            w.ssthresh = ssthresh;
        }
        w.cwnd = self.cwnd;
    }

    /// Entering recovery or CWR (Linux `bbr_ssthresh`): note the cwnd and the bounds an undo
    /// would restore; nothing is cut here. A timeout also restarts full-bandwidth detection and
    /// gives `inflight_lo` the cwnd from before, if unset and not probing (`bbr_set_state`).
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        if ev.kind != CongestionKind::Timeout || ev.first_timeout {
            self.save_cwnd(w.cwnd);
            self.undo_bw_lo = self.bw_lo;
            self.undo_inflight_lo = self.inflight_lo;
            self.undo_inflight_hi = self.inflight_hi;
        }
        if ev.kind == CongestionKind::Timeout {
            self.cwnd = 1.0;
            w.cwnd = 1.0;
            self.prev_ca_state = CaState::Loss;
            self.reset_full_bw();
            if !self.is_probing_bandwidth() && self.inflight_lo.is_infinite() {
                self.inflight_lo = self.cwnd.max(self.prior_cwnd);
            }
        }
    }

    /// Linux `bbr_undo_cwnd`: the reduction was spurious, so the slow-down that made the
    /// bandwidth look flat may have been too, and the bounds the losses cut come back.
    fn undo_cwnd(&mut self, _now: Time, _w: &Window, _prior_cwnd: f64) -> f64 {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        self.cwnd = self.prior_cwnd.max(1.0);
        self.cwnd
    }

    fn sets_cwnd_on_every_ack(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<f64> {
        (self.pacing_rate > 0.0).then_some(self.pacing_rate)
    }

    fn take_app_limited(&mut self) -> bool {
        std::mem::take(&mut self.mark_app_limited)
    }

    fn watches_sends(&self) -> bool {
        true
    }

    fn wants_delivery_rate(&self) -> bool {
        true
    }

    fn ecn_feedback(&self) -> EcnFeedback {
        if self.ecn_low {
            EcnFeedback::PerSegment
        } else {
            EcnFeedback::Rfc3168
        }
    }

    /// Tracks the next departure the sender's pacing allows, for the flight "in the network".
    fn on_sent(&mut self, sent: &SentSample) {
        self.departures.on_sent(sent.now, self.pacing_rate);
    }

    /// The sender paces by [`Self::pacing_rate`]; this only opens the connection's model.
    fn next_send_time(&mut self, ctx: &PacingContext) -> Option<Time> {
        if !self.initialized {
            self.init(ctx.now, ctx.srtt, ctx.window.cwnd);
        } else if !self.has_seen_rtt && ctx.srtt > 0 {
            // The handshake's RTT arrived after the model opened.
            self.init_pacing_rate(ctx.srtt);
            if self.min_rtt.is_none() {
                self.min_rtt = Some(ctx.srtt);
                self.probe_rtt_min = Some(ctx.srtt);
            }
        }
        None
    }

    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        let unset_nan = |v: f64| if v.is_finite() { v } else { f64::NAN };
        out("state", self.mode as u8 as f64);
        out("phase", if self.mode == Mode::ProbeBw { self.phase as u8 as f64 } else { f64::NAN });
        out("btlbw", self.max_bw());
        out("bw_lo", unset_nan(self.bw_lo));
        out("min_rtt", self.min_rtt.map_or(f64::NAN, |m| m as f64 / NS_PER_S as f64));
        out("pacing_rate", self.pacing_rate);
        out("inflight_hi", unset_nan(self.inflight_hi));
        out("inflight_lo", unset_nan(self.inflight_lo));
        out("pacing_gain", self.pacing_gain);
        out("cwnd_gain", self.cwnd_gain);
        out("ecn_alpha", self.ecn_alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::delay::RateSample;
    use super::super::common::testing::ack;
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    const MS: u64 = NS_PER_MS;

    fn bbr3(seed: u64) -> Bbr3 {
        Bbr3::new(stream(seed, Entity::Flow, 0, Purpose::Congestion))
    }

    /// The sender's side of hand-built ACKs: its delivered count, and the ACK each step gives.
    struct Feed {
        delivered: u64,
    }

    impl Feed {
        /// An ACK at `now` delivering 2 segments (so never a possibly delayed one) with an RTT
        /// sample `rtt` and a rate sample of exactly `bw` segments/s whose segment left into a
        /// flight of `in_flight`. With `round` the sampled segment left after the round began (so
        /// the ACK ends BBR's round, and its loss round); without, before.
        fn ack(&mut self, b: &Bbr3, now: Time, rtt: Dur, bw: f64, in_flight: f64, round: bool) -> AckSample {
            let before = self.delivered;
            self.delivered += 2;
            let prior_delivered =
                if round { before } else { b.next_rtt_delivered.min(b.loss_round_delivered).saturating_sub(1) };
            let delivered = self.delivered - prior_delivered;
            let mut a = ack(2.0);
            a.now = now;
            a.ca_rtt = Some(rtt);
            a.srtt = rtt;
            a.prior_in_flight = in_flight + 2.0;
            a.in_flight = in_flight;
            a.delay.rate = Some(RateSample {
                delivered,
                interval: (delivered as f64 / bw * NS_PER_S as f64).round() as Dur,
                prior_delivered,
                tx_in_flight: in_flight as u64,
                valid: true,
                ..RateSample::default()
            });
            a
        }
    }

    /// PROBE_BW in `phase` at bandwidth `bw` segments/s and minimum RTT `min_rtt` (both
    /// minima taken at `now`), 1000 segments delivered, no bounds yet, the next probe far off,
    /// the ACK-aggregation allowance off (so that targets are whole BDPs).
    fn in_probe_bw(now: Time, bw: f64, min_rtt: Dur, phase: Phase, cwnd: f64) -> (Bbr3, Feed) {
        let mut b = bbr3(1);
        b.init(now, min_rtt, cwnd);
        b.ack_aggregation = false;
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.phase = phase;
        b.bw_hi = [bw, 0.0];
        b.delivered = 1000;
        b.next_rtt_delivered = 1000;
        b.loss_round_delivered = 1000;
        b.alpha_last_delivered = 1000;
        b.cycle_stamp = now;
        b.probe_wait = 100 * NS_PER_S;
        b.update_gains();
        b.pacing_rate = bw * b.pacing_gain * PACING_MARGIN;
        (b, Feed { delivered: 1000 })
    }

    /// Rounds whose rate samples are 100, 200, 240, 245, 249 segments/s: 200 is at least 25%
    /// above the plateau of 100 (a new plateau), 240, 245 and 249 are not 25% above 200. The
    /// third round without such growth fills the pipe: DRAIN, pacing at 88/256 of the
    /// bandwidth, cwnd gain 2, ssthresh one BDP's flight (ceil(249 x 0.1) = 25, above 3 send
    /// quanta of 2 and 4). STARTUP grew the cwnd by the 2 segments of each ACK from 10.
    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth() {
        let mut b = bbr3(1);
        b.init(0, 100 * MS, 10.0);
        let mut feed = Feed { delivered: 0 };
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        let mut trace = Vec::new();
        for (i, rate) in [100.0, 200.0, 240.0, 245.0, 249.0].into_iter().enumerate() {
            let a = feed.ack(&b, (i as u64 + 1) * 100 * MS, 100 * MS, rate, 200.0, true);
            b.on_ack(&a, &mut w);
            trace.push((b.mode, b.full_bw, b.full_bw_count, w.cwnd));
        }
        assert_eq!(
            trace,
            [
                (Mode::Startup, 100.0, 0, 12.0),
                (Mode::Startup, 200.0, 0, 14.0),
                (Mode::Startup, 200.0, 1, 16.0),
                (Mode::Startup, 200.0, 2, 18.0),
                (Mode::Drain, 200.0, 3, 20.0),
            ]
        );
        assert_eq!((b.pacing_gain, b.cwnd_gain), (88.0 / 256.0, 2.0));
        assert_eq!(w.ssthresh, 25.0);
        assert!((b.max_bw() - 249.0).abs() < 1e-3, "{}", b.max_bw());

        // App-limited samples do not count, nor does an ACK that ends no round.
        let mut b = bbr3(1);
        b.init(0, 100 * MS, 10.0);
        let mut feed = Feed { delivered: 0 };
        b.on_ack(&feed.ack(&b, 100 * MS, 100 * MS, 100.0, 200.0, true), &mut w);
        for i in 0..5 {
            let mut a = feed.ack(&b, (i + 2) * 100 * MS, 100 * MS, 100.0, 200.0, true);
            a.delay.rate.as_mut().unwrap().app_limited = true;
            b.on_ack(&a, &mut w);
            let a = feed.ack(&b, (i + 2) * 100 * MS + 1, 100 * MS, 100.0, 200.0, false);
            b.on_ack(&a, &mut w);
        }
        assert_eq!((b.mode, b.full_bw_count), (Mode::Startup, 0));
    }

    /// 1000 segments/s, minimum RTT 100 ms (BDP 100), cruising at the target 2 x 100. Every RTT
    /// sample is 120 ms, so none refreshes the 5 s minimum: PROBE_RTT begins at the first ACK
    /// more than 5 s after it was taken, saving the cwnd (200) and capping it at half the BDP
    /// (50). The 120 ms sample becomes the 5 s minimum; the 10 s one keeps 100 ms. Once the
    /// flight is at 50, PROBE_RTT holds for 200 ms and a round (here the round ends first, 100 ms
    /// in), so it ends at the first ACK after 200 ms, back in CRUISE with the saved cwnd and the
    /// 5 s clock restarted. Its flight is marked app-limited all along.
    #[test]
    fn probe_rtt_begins_after_five_seconds_at_half_the_bdp_for_200_ms_and_a_round() {
        let start = 1000 * MS;
        let (mut b, mut feed) = in_probe_bw(start, 1000.0, 100 * MS, Phase::Cruise, 150.0);
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let mut now = start;
        while now < start + 5000 * MS {
            now += 10 * MS;
            let a = feed.ack(&b, now, 120 * MS, 1000.0, 100.0, false);
            b.on_ack(&a, &mut w);
            assert_eq!((b.mode, b.phase), (Mode::ProbeBw, Phase::Cruise), "at {now}");
        }
        assert_eq!(w.cwnd, 200.0);
        assert!(!b.take_app_limited());
        now += 10 * MS; // 6.01 s
        b.on_ack(&feed.ack(&b, now, 120 * MS, 1000.0, 100.0, false), &mut w);
        assert_eq!((b.mode, w.cwnd, b.prior_cwnd), (Mode::ProbeRtt, 50.0, 200.0));
        assert_eq!((b.probe_rtt_min, b.probe_rtt_min_stamp), (Some(120 * MS), now));
        assert_eq!((b.min_rtt, b.min_rtt_stamp), (Some(100 * MS), start));
        assert_eq!((b.pacing_gain, b.cwnd_gain), (1.0, 1.0));
        assert!(b.take_app_limited());
        for in_flight in [80.0, 60.0, 50.0] {
            now += 10 * MS;
            b.on_ack(&feed.ack(&b, now, 120 * MS, 1000.0, in_flight, false), &mut w);
            assert_eq!((b.mode, w.cwnd), (Mode::ProbeRtt, 50.0));
        }
        let low_at = now;
        assert_eq!(b.probe_rtt_done_at, Some(low_at + 200 * MS));
        while now < low_at + 200 * MS {
            now += 10 * MS;
            let round = now == low_at + 100 * MS;
            b.on_ack(&feed.ack(&b, now, 120 * MS, 1000.0, 50.0, round), &mut w);
            assert_eq!((b.mode, w.cwnd), (Mode::ProbeRtt, 50.0), "at {}", now - low_at);
            assert_eq!(b.probe_rtt_round_done, now >= low_at + 100 * MS);
            assert!(b.take_app_limited());
        }
        now += 10 * MS;
        b.on_ack(&feed.ack(&b, now, 120 * MS, 1000.0, 50.0, false), &mut w);
        assert_eq!((b.mode, b.phase, w.cwnd), (Mode::ProbeBw, Phase::Cruise, 200.0));
        assert_eq!(b.probe_rtt_min_stamp, now);
        // The ACK that ends PROBE_RTT still marks its flight (Linux marks before it checks).
        assert!(b.take_app_limited());
        now += 10 * MS;
        b.on_ack(&feed.ack(&b, now, 120 * MS, 1000.0, 50.0, false), &mut w);
        assert!(!b.take_app_limited());
    }

    /// In UP (BDP 100, cwnd 150, no inflight_hi yet), a rate sample whose segment left into a
    /// flight of 130 has seen 2 losses: 2 is not above floor(130 x 5/256) = 2, so the probe
    /// goes on. With 3 it is: inflight_hi becomes the 130 that flight was (more than
    /// floor(102 x 180/256) = 71, 1 - beta of UP's BDP target), UP ends in DOWN (pacing 232/256,
    /// cwnd gain 2), and the cwnd is capped at inflight_hi. DOWN lasts while the flight (122 at
    /// the ACK, 124 with the next quantum) is above inflight_hi less 15% (130 - 19 = 111).
    #[test]
    fn a_loss_rate_above_two_percent_in_probe_up_sets_inflight_hi_and_moves_to_down() {
        let start = 1000 * MS;
        let (mut b, mut feed) = in_probe_bw(start, 1000.0, 100 * MS, Phase::Up, 150.0);
        b.bw_probe_samples = true;
        b.ack_phase = AckPhase::ProbeFeedback;
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let mut a = feed.ack(&b, start + 10 * MS, 100 * MS, 1000.0, 120.0, false);
        a.delay.rate.as_mut().unwrap().tx_in_flight = 130;
        a.delay.rate.as_mut().unwrap().lost = 2;
        b.on_ack(&a, &mut w);
        assert_eq!((b.phase, b.inflight_hi, w.cwnd), (Phase::Up, f64::INFINITY, 152.0));
        let mut a = feed.ack(&b, start + 20 * MS, 100 * MS, 1000.0, 120.0, false);
        a.delay.rate.as_mut().unwrap().tx_in_flight = 130;
        a.delay.rate.as_mut().unwrap().lost = 3;
        b.on_ack(&a, &mut w);
        assert_eq!((b.mode, b.phase, b.inflight_hi, w.cwnd), (Mode::ProbeBw, Phase::Down, 130.0, 130.0));
        assert_eq!((b.pacing_gain, b.cwnd_gain), (232.0 / 256.0, 2.0));
        assert!(b.prev_probe_too_high && !b.bw_probe_samples);
        assert_eq!(b.cycle_stamp, start + 20 * MS);
        assert!((2 * NS_PER_S..3 * NS_PER_S).contains(&b.probe_wait), "{}", b.probe_wait);

        // The ACK that marks a loss finds where the loss rate crossed 2%: of the 130, the
        // flight before the lost segment (129) had a budget of ceil(129 x 5/256) = 3 losses,
        // and 4 were lost before it: inflight_hi 129.
        let (mut b, mut feed) = in_probe_bw(start, 1000.0, 100 * MS, Phase::Up, 150.0);
        b.bw_probe_samples = true;
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        let mut a = feed.ack(&b, start + 10 * MS, 100 * MS, 1000.0, 120.0, false);
        a.newly_lost = 1.0;
        a.delay.rate.as_mut().unwrap().tx_in_flight = 130;
        a.delay.rate.as_mut().unwrap().lost = 5;
        b.on_ack(&a, &mut w);
        assert_eq!((b.phase, b.inflight_hi, w.cwnd), (Phase::Down, 129.0, 129.0));
        assert!(b.loss_in_round && b.loss_in_cycle);
    }

    /// ECN in use (route `ecn_low`, minimum RTT 4 ms, 25000 segments/s: BDP 100), cruising at
    /// cwnd 200. In one round half the delivered segments (50 of 100) come back with ECN-Echo:
    /// at the round's end alpha = 15/16 x 1 + 1/16 x 1/2 = 0.96875, and inflight_lo starts at
    /// the cwnd and is cut to floor(200 x (1 - 0.96875 x 85/256)) = 135, which caps the cwnd.
    /// While the sender is in CWR nothing else happens; the first ACK back in Open, in a cycle
    /// with marks and no loss, starts a new probe at once: REFILL, the short-term bounds
    /// lifted, and UP's first round set to raise inflight_hi by 2^30 (half of the unset
    /// inflight_hi's 2^32).
    #[test]
    fn ecn_marks_cut_inflight_lo_by_alpha_and_their_end_starts_a_probe() {
        let start = 1000 * MS;
        let (mut b, mut feed) = in_probe_bw(start, 25000.0, 4 * MS, Phase::Cruise, 200.0);
        b.ecn_low = true;
        b.ecn_eligible = true;
        let mut w = Window { cwnd: 200.0, ssthresh: f64::INFINITY };
        for i in 1..=50u64 {
            let mut a = feed.ack(&b, start + i * 80_000, 4 * MS, 25000.0, 100.0, i == 50);
            a.ca_state = CaState::Cwr;
            if i % 2 == 1 {
                a.ece = true;
                a.delay.rate.as_mut().unwrap().delivered_ce = 2;
            }
            b.on_ack(&a, &mut w);
            if i < 50 {
                assert_eq!((b.phase, b.inflight_lo, w.cwnd, b.ecn_alpha), (Phase::Cruise, f64::INFINITY, 200.0, 1.0));
            }
        }
        assert_eq!((b.ecn_alpha, b.inflight_lo, w.cwnd, b.phase), (0.96875, 135.0, 135.0, Phase::Cruise));
        assert!(b.ecn_in_cycle && !b.loss_in_cycle);

        let a = feed.ack(&b, start + 51 * 80_000, 4 * MS, 25000.0, 100.0, false);
        b.on_ack(&a, &mut w);
        assert_eq!((b.phase, b.inflight_lo, b.bw_probe_up_rounds), (Phase::Refill, f64::INFINITY, 30));
        assert_eq!(w.cwnd, 137.0);

        // Without the route's ecn_low (Linux's default) ECN-Echo changes nothing.
        let (mut b, mut feed) = in_probe_bw(start, 25000.0, 4 * MS, Phase::Cruise, 200.0);
        let mut w = Window { cwnd: 200.0, ssthresh: f64::INFINITY };
        for i in 1..=51u64 {
            let mut a = feed.ack(&b, start + i * 80_000, 4 * MS, 25000.0, 100.0, i == 50);
            a.ece = i <= 49 && i % 2 == 1;
            a.ca_state = if i <= 50 { CaState::Cwr } else { CaState::Open };
            b.on_ack(&a, &mut w);
        }
        assert_eq!((b.ecn_eligible, b.ecn_alpha, b.inflight_lo, w.cwnd), (false, 1.0, f64::INFINITY, 200.0));
        assert_eq!(b.phase, Phase::Cruise);
    }

    /// STARTUP's ECN exit: two rounds running with at least half the deliveries CE-marked fill
    /// the pipe, and inflight_hi starts at one BDP's flight: ceil(25000 x 0.004) = 100
    /// segments, raised to 3 send quanta of 44 (STARTUP paces at 68642 segments/s, more than
    /// a 64 KB burst per millisecond).
    #[test]
    fn two_rounds_of_half_marked_deliveries_end_startup() {
        let mut b = bbr3(1);
        b.ecn_low = true;
        b.init(0, 4 * MS, 10.0);
        b.bw_hi = [25000.0, 0.0];
        b.full_bw = 1e9; // no plateau exit in the way
        let mut feed = Feed { delivered: 0 };
        let mut w = Window { cwnd: 300.0, ssthresh: f64::INFINITY };
        let mut reached = Vec::new();
        for i in 1..=30u64 {
            let mut a = feed.ack(&b, i * 100_000, 4 * MS, 25000.0, 150.0, i % 10 == 0);
            a.ece = i % 2 == 0;
            a.delay.rate.as_mut().unwrap().tx_in_flight = 90;
            b.on_ack(&a, &mut w);
            reached.push(b.full_bw_reached);
        }
        // Round 1 (ACKs 1-10) makes ECN eligible with its share of 1/2; round 2 counts one high
        // round (its start ACK saw 10 of 20 marked), round 3 the second.
        assert_eq!(reached.iter().position(|&r| r), Some(19));
        assert_eq!(b.mode, Mode::Drain);
        assert_eq!(b.inflight_hi, 132.0);
    }
}
