//! Stack profiles: the knobs on which ns-2, the RFCs and Linux disagree, grouped so that a run
//! names one profile and prints it with its results.
//!
//! Sources: ns-2 `tcl/lib/ns-default.tcl` and `tcp/tcp.cc`; RFC 5681, 6298, 6582; Linux
//! `include/net/tcp.h`. See docs/scenario-format.md for the table.

use serde::{Deserialize, Serialize};

use super::recovery::Procedure;
use crate::units::{Dur, NS_PER_MS, NS_PER_S};

pub use crate::profile::Profile;

/// What the reduction on a loss is computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshBasis {
    /// min(cwnd, receiver window): ns-2 `window()`.
    Window,
    /// Data outstanding when the loss is detected: RFC 5681 eq. (4).
    FlightSize,
    /// cwnd: Linux `tcp_reno_ssthresh`.
    Cwnd,
}

/// How the retransmission timeout is computed from the RTT estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoFormula {
    /// RFC 6298: max(min_rto, srtt + max(G, 4 rttvar)).
    Rfc6298,
    /// Linux: srtt + max(4 rttvar, min_rto), so never below srtt + min_rto.
    Linux,
}

/// How RTT samples are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// ns-2: one timed segment per RTT, samples truncated to clock ticks, Karn's rule.
    OnePerRtt,
    /// Timestamps echoed on every ACK (RFC 7323): a sample per ACK, retransmissions included.
    EveryAck,
}

/// The fully resolved stack configuration of one flow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StackConfig {
    pub profile: Profile,
    /// Initial window, segments (after the handshake).
    pub initial_window: f64,
    /// Slow-start and congestion-avoidance increase once per ACK (ns-2) rather than per
    /// acknowledged segment (RFC 5681 byte counting, Linux).
    pub per_ack_counting: bool,
    /// Cap on the slow-start increase per ACK, segments (RFC 5681: 1). None = no cap.
    pub slow_start_cap: Option<f64>,
    pub ssthresh_basis: SsthreshBasis,
    /// Initial ssthresh is the receiver window (ns-2 `window_`) rather than "infinite".
    pub initial_ssthresh_is_window: bool,
    pub rto_formula: RtoFormula,
    pub rtt_sampling: RttSampling,
    pub min_rto_ns: Dur,
    pub initial_rto_ns: Dur,
    pub max_rto_ns: Dur,
    /// Largest backoff multiplier (ns-2: 64); the timer is also capped at `max_rto_ns`.
    pub max_backoff: u32,
    /// Clock granularity G (RFC 6298); also the tick RTT samples are truncated to under
    /// `OnePerRtt` sampling.
    pub clock_granularity_ns: Dur,
    pub delayed_ack: bool,
    pub delayed_ack_timeout_ns: Dur,
    /// Grow cwnd only while the flow is cwnd-limited (RFC 7661 / Linux). ns-2 does not gate.
    pub cwnd_gating: bool,
    /// NewReno partial ACKs deflate the window (RFC 6582); ns-2 does not.
    pub partial_window_deflation: bool,
    /// NewReno restarts the RTO on every partial ACK (ns-2 "slow but steady") rather than only
    /// the first (RFC 6582 "impatient").
    pub restart_rto_every_partial_ack: bool,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// The loss-recovery procedure every flow runs; `None`: each flow runs its algorithm's
    /// customary one (Reno for `reno` and the Reno-based originals, NewReno otherwise; see
    /// [`crate::cc::CongestionControl::recovery`]).
    pub recovery: Option<Procedure>,
    /// Receivers report SACK blocks and senders recover with a SACK scoreboard (RFC 6675):
    /// `recovery` is `sack`. Kept as a knob of its own for older scenarios; always equal to
    /// `recovery == Some(Sack)`.
    pub sack: bool,
    /// ECN (RFC 3168): senders mark new data ECN-capable and react to ECN-Echo, receivers echo
    /// CE. Algorithms that need ECN (DCTCP) have it on their own flows whatever this says.
    pub ecn: bool,
    /// Receiver window used when a flow sets none, segments.
    pub default_max_window_pkts: u64,
    /// Open each transfer with a SYN / SYN-ACK exchange before the first data segment. ns-2's
    /// one-way agents have none: their first segment leaves at the transfer's start time.
    pub handshake: bool,
    /// ns-2's `overhead_`: each transmission (new data or retransmission) leaves after a uniform
    /// random delay in [0, send_overhead_ns], in order. 0 = none. Breaks the deterministic phase
    /// locking that a simulator without any host noise shows (Floyd & Jacobson 1992).
    pub send_overhead_ns: Dur,
    /// The initial window comes from the RFC 5681 formula on each flow's MSS (the `rfc` profile
    /// when `initial_window` is not set); not a knob of its own.
    #[serde(skip)]
    pub initial_window_from_mss: bool,
}

impl StackConfig {
    pub fn for_profile(profile: Profile) -> Self {
        match profile {
            Profile::Ns2 => StackConfig {
                profile,
                initial_window: 2.0,
                per_ack_counting: true,
                slow_start_cap: None,
                ssthresh_basis: SsthreshBasis::Window,
                initial_ssthresh_is_window: true,
                rto_formula: RtoFormula::Rfc6298,
                rtt_sampling: RttSampling::OnePerRtt,
                min_rto_ns: 200 * NS_PER_MS,
                initial_rto_ns: 3 * NS_PER_S,
                max_rto_ns: 60 * NS_PER_S,
                max_backoff: 64,
                clock_granularity_ns: 10 * NS_PER_MS,
                delayed_ack: false,
                delayed_ack_timeout_ns: 100 * NS_PER_MS,
                cwnd_gating: false,
                partial_window_deflation: false,
                restart_rto_every_partial_ack: true,
                dupack_threshold: 3,
                recovery: None,
                sack: false,
                ecn: false,
                default_max_window_pkts: 1_000_000,
                handshake: false,
                send_overhead_ns: 0,
                initial_window_from_mss: false,
            },
            Profile::Rfc => StackConfig {
                profile,
                initial_window: 3.0, // replaced per flow by the RFC 5681 formula on the MSS
                per_ack_counting: false,
                slow_start_cap: Some(1.0),
                ssthresh_basis: SsthreshBasis::FlightSize,
                initial_ssthresh_is_window: false,
                rto_formula: RtoFormula::Rfc6298,
                rtt_sampling: RttSampling::EveryAck,
                min_rto_ns: NS_PER_S,
                initial_rto_ns: NS_PER_S,
                max_rto_ns: 60 * NS_PER_S,
                max_backoff: 1 << 16,
                clock_granularity_ns: NS_PER_MS,
                delayed_ack: true,
                delayed_ack_timeout_ns: 200 * NS_PER_MS,
                cwnd_gating: true,
                partial_window_deflation: true,
                restart_rto_every_partial_ack: false,
                dupack_threshold: 3,
                recovery: None,
                sack: false,
                ecn: false,
                default_max_window_pkts: 1_000_000,
                handshake: true,
                send_overhead_ns: 0,
                initial_window_from_mss: true,
            },
            Profile::Linux => StackConfig {
                profile,
                initial_window: 10.0,
                per_ack_counting: false,
                slow_start_cap: None,
                ssthresh_basis: SsthreshBasis::Cwnd,
                initial_ssthresh_is_window: false,
                rto_formula: RtoFormula::Linux,
                rtt_sampling: RttSampling::EveryAck,
                min_rto_ns: 200 * NS_PER_MS,
                initial_rto_ns: NS_PER_S,
                max_rto_ns: 120 * NS_PER_S,
                max_backoff: 1 << 16,
                clock_granularity_ns: NS_PER_MS,
                delayed_ack: true,
                delayed_ack_timeout_ns: 40 * NS_PER_MS,
                cwnd_gating: true,
                partial_window_deflation: true,
                restart_rto_every_partial_ack: false,
                dupack_threshold: 3,
                recovery: Some(Procedure::Sack),
                sack: true,
                ecn: false,
                default_max_window_pkts: 1_000_000,
                handshake: true,
                send_overhead_ns: 0,
                initial_window_from_mss: false,
            },
        }
    }

    /// RFC 5681 section 3.1 initial window for a given MSS (rfc profile only).
    pub fn rfc_initial_window(mss: u32) -> f64 {
        if mss <= 1095 {
            4.0
        } else if mss <= 2190 {
            3.0
        } else {
            2.0
        }
    }

    pub fn resolve(profile: Profile, o: &StackOverrides) -> Self {
        let mut c = Self::for_profile(profile);
        macro_rules! apply {
            ($($f:ident),*) => { $( if let Some(v) = o.$f.clone() { c.$f = v; } )* };
        }
        apply!(
            initial_window,
            per_ack_counting,
            ssthresh_basis,
            initial_ssthresh_is_window,
            rto_formula,
            rtt_sampling,
            min_rto_ns,
            initial_rto_ns,
            max_rto_ns,
            max_backoff,
            clock_granularity_ns,
            delayed_ack,
            delayed_ack_timeout_ns,
            cwnd_gating,
            partial_window_deflation,
            restart_rto_every_partial_ack,
            dupack_threshold,
            ecn,
            default_max_window_pkts,
            handshake,
            send_overhead_ns
        );
        // A window the user wrote is used as written, even when it equals the profile's default.
        if o.initial_window.is_some() {
            c.initial_window_from_mss = false;
        }
        if let Some(cap) = o.slow_start_cap {
            c.slow_start_cap = if cap > 0.0 { Some(cap) } else { None };
        }
        c.recovery = Self::resolve_recovery(c.recovery, o);
        c.sack = c.recovery == Some(Procedure::Sack);
        c
    }

    /// `recovery` as written; else `sack = true` means `sack`, and `sack = false` turns a
    /// profile's SACK off, leaving each flow its algorithm's customary procedure. (A scenario
    /// that writes both must agree with itself: [`StackOverrides::recovery_conflict`].)
    fn resolve_recovery(profile: Option<Procedure>, o: &StackOverrides) -> Option<Procedure> {
        match (o.recovery, o.sack) {
            (Some(r), _) => Some(r),
            (None, Some(true)) => Some(Procedure::Sack),
            (None, Some(false)) if profile == Some(Procedure::Sack) => None,
            (None, _) => profile,
        }
    }

    /// The procedure a flow runs: the stack's, else its algorithm's customary one.
    pub fn recovery_for(&self, customary: crate::cc::Recovery) -> Procedure {
        self.recovery.unwrap_or(match customary {
            crate::cc::Recovery::Reno => Procedure::Reno,
            crate::cc::Recovery::NewReno => Procedure::NewReno,
        })
    }
}

/// Scenario-wide overrides of a profile's knobs; every field optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackOverrides {
    pub initial_window: Option<f64>,
    pub per_ack_counting: Option<bool>,
    /// 0 = no cap.
    pub slow_start_cap: Option<f64>,
    pub ssthresh_basis: Option<SsthreshBasis>,
    pub initial_ssthresh_is_window: Option<bool>,
    pub rto_formula: Option<RtoFormula>,
    pub rtt_sampling: Option<RttSampling>,
    pub min_rto_ns: Option<Dur>,
    pub initial_rto_ns: Option<Dur>,
    pub max_rto_ns: Option<Dur>,
    pub max_backoff: Option<u32>,
    pub clock_granularity_ns: Option<Dur>,
    pub delayed_ack: Option<bool>,
    pub delayed_ack_timeout_ns: Option<Dur>,
    pub cwnd_gating: Option<bool>,
    pub partial_window_deflation: Option<bool>,
    pub restart_rto_every_partial_ack: Option<bool>,
    pub dupack_threshold: Option<u32>,
    pub recovery: Option<Procedure>,
    /// Alias: `true` is `recovery = "sack"`.
    pub sack: Option<bool>,
    pub ecn: Option<bool>,
    pub default_max_window_pkts: Option<u64>,
    pub handshake: Option<bool>,
    pub send_overhead_ns: Option<Dur>,
}

impl StackOverrides {
    /// `sack` and `recovery` both written and disagreeing: the message naming both keys.
    pub fn recovery_conflict(&self) -> Option<String> {
        let (Some(r), Some(sack)) = (self.recovery, self.sack) else { return None };
        (sack != (r == Procedure::Sack)).then(|| {
            format!(
                "stack.sack: {sack} contradicts stack.recovery = {:?}; expected sack = {} with that recovery, \
                 or only one of the two keys (sack = true is recovery = \"sack\")",
                r.as_str(),
                r == Procedure::Sack
            )
        })
    }
}
