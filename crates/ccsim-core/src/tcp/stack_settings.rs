//! The stack settings: the one table of the `[stack]` knobs (several of them the ones on which
//! ns-2, the RFCs and Linux disagree), with each knob's value under each [`Profile`]. A run names
//! one profile, may override any knob, and prints the resolved [`StackConfig`] with its results.
//!
//! Sources: ns-2 `tcl/lib/ns-default.tcl` and `tcp/tcp.cc`; RFC 5681, 6298, 6582; Linux
//! `include/net/tcp.h`. See docs/scenario-format.md for the table.

use serde::{Deserialize, Serialize};

use super::recovery::prr::PrrMode;
use crate::cc::common::hystart_pp::HyStartMode;
use crate::cc::{EcnFeedback, RecoveryProcedure};
use crate::profile::Profile;
use crate::units::{Dur, NS_PER_MS, NS_PER_S};

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

/// The ECN codepoint of every flow's ECN-capable data (the stack's `ect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EctChoice {
    /// Each flow's algorithm's: ECT(1) for an L4S algorithm
    /// ([`crate::cc::CongestionControl::l4s`]), ECT(0) otherwise.
    Auto,
    /// ECT(0) on every flow: classic ECN (RFC 3168).
    Ect0,
    /// ECT(1) on every flow: the L4S identifier (RFC 9331).
    Ect1,
}

/// How every flow's receiver feeds CE marks back (the stack's `ecn_feedback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnFeedbackChoice {
    /// Each flow's algorithm's ([`crate::cc::CongestionControl::ecn_feedback`]).
    Auto,
    /// RFC 3168: ECE from the first CE until the sender's CWR.
    Rfc3168,
    /// RFC 8257 section 3.2: each ACK's ECE is the mark of the segments it covers.
    Dctcp,
    /// RFC 9768 (AccECN): a count of CE-marked packets in every ACK's ACE field.
    Accecn,
}

/// The shortest retransmission timeout a run accepts: shorter ones retransmit in a tight loop.
pub const MIN_RTO_NS: u64 = 1_000;
/// The largest window, segments (initial window, receiver window).
pub const MAX_WINDOW_PKTS: u64 = 1 << 32;

/// What a `[stack]` setting holds, and the values it accepts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SettingKind {
    /// true or false.
    Bool,
    /// An integer in `min..=max`.
    Int { min: u64, max: u64 },
    /// A finite number in `min..=max`.
    Float { min: f64, max: f64 },
    /// A duration, nanoseconds in the engine and a unit string in a scenario file, from `min_ns`
    /// to [`crate::spec::MAX_TIME_NS`].
    Time { min_ns: u64 },
    /// One of these names.
    Choice(&'static [&'static str]),
}

impl SettingKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            SettingKind::Bool => "bool",
            SettingKind::Int { .. } => "int",
            SettingKind::Float { .. } => "float",
            SettingKind::Time { .. } => "time",
            SettingKind::Choice(_) => "choice",
        }
    }
}

/// One `[stack]` setting as the engine publishes it: the scenario file's key, the engine's
/// field (which carries the unit: `min_rto_ns`), what it accepts, and a one-line description.
/// Each profile's value is that field of [`StackConfig::for_profile`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackSetting {
    pub key: &'static str,
    pub field: &'static str,
    pub kind: SettingKind,
    pub doc: &'static str,
}

/// A written override as the checks of [`SettingKind`] see it.
pub trait SettingValue {
    /// The value as an integer, for `Int` and `Time` settings.
    fn as_u64(&self) -> Option<u64> {
        None
    }
    /// The value as a number, for `Float` settings.
    fn as_f64(&self) -> Option<f64> {
        None
    }
}

impl SettingValue for bool {}
impl SettingValue for SsthreshBasis {}
impl SettingValue for RtoFormula {}
impl SettingValue for RttSampling {}
impl SettingValue for RecoveryProcedure {}
impl SettingValue for PrrMode {}
impl SettingValue for HyStartMode {}
impl SettingValue for EctChoice {}
impl SettingValue for EcnFeedbackChoice {}
impl SettingValue for u32 {
    fn as_u64(&self) -> Option<u64> {
        Some(u64::from(*self))
    }
}
impl SettingValue for u64 {
    fn as_u64(&self) -> Option<u64> {
        Some(*self)
    }
}
impl SettingValue for f64 {
    fn as_f64(&self) -> Option<f64> {
        Some(*self)
    }
}

/// How a written override becomes the resolved field: as written, except where the file's value
/// has a form of its own (`slow_start_cap = 0` is no cap, `recovery` picks a procedure).
trait IntoSetting<T> {
    fn into_setting(self) -> T;
}

impl<T> IntoSetting<T> for T {
    fn into_setting(self) -> T {
        self
    }
}

impl IntoSetting<Option<f64>> for f64 {
    fn into_setting(self) -> Option<f64> {
        (self > 0.0).then_some(self)
    }
}

impl IntoSetting<Option<RecoveryProcedure>> for RecoveryProcedure {
    fn into_setting(self) -> Option<RecoveryProcedure> {
        Some(self)
    }
}

/// Every stack setting, defined once: the resolved [`StackConfig`] field and its type, the
/// written [`StackOverrides`] field's type, the `[stack]` key, what it accepts, its value under
/// each profile (ns2, rfc, linux-sack, linux) and a one-line description. From this come both structs, the
/// profiles, the resolution of overrides, the engine's checks of written values
/// ([`STACK_SETTINGS`]) and, through ccsim-py, the Python schema of `[stack]`.
macro_rules! stack_settings {
    ($(
        $(#[doc = $field_doc:literal])*
        $field:ident: $config:ty, written $written:ty, key $key:literal, $kind:expr,
            [$ns2:expr, $rfc:expr, $linux_sack:expr, $linux:expr], $doc:literal;
    )*) => {
        /// The fully resolved stack configuration of one flow.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub struct StackConfig {
            pub profile: Profile,
            $( $(#[doc = $field_doc])* pub $field: $config, )*
            /// The initial window comes from the RFC 5681 formula on each flow's MSS (the `rfc`
            /// profile when `initial_window` is not set); not a knob of its own.
            #[serde(skip)]
            pub initial_window_from_mss: bool,
        }

        /// Scenario-wide overrides of a profile's knobs; every field optional.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct StackOverrides {
            $( pub $field: Option<$written>, )*
        }

        /// Every `[stack]` setting, in the order the documentation lists them.
        pub const STACK_SETTINGS: &[StackSetting] = &[
            $( StackSetting { key: $key, field: stringify!($field), kind: $kind, doc: $doc }, )*
        ];

        impl StackConfig {
            pub fn for_profile(profile: Profile) -> Self {
                match profile {
                    Profile::Ns2 => StackConfig {
                        profile,
                        $( $field: $ns2, )*
                        initial_window_from_mss: false,
                    },
                    Profile::Rfc => StackConfig {
                        profile,
                        $( $field: $rfc, )*
                        initial_window_from_mss: true,
                    },
                    Profile::LinuxSack => StackConfig {
                        profile,
                        $( $field: $linux_sack, )*
                        initial_window_from_mss: false,
                    },
                    Profile::Linux => StackConfig {
                        profile,
                        $( $field: $linux, )*
                        initial_window_from_mss: false,
                    },
                }
            }

            /// Each written override in its resolved form, over the profile's values.
            fn apply(&mut self, o: &StackOverrides) {
                $( if let Some(v) = o.$field.clone() { self.$field = v.into_setting(); } )*
            }
        }

        impl StackOverrides {
            /// Each written override with its setting, in [`STACK_SETTINGS`] order.
            pub fn written(&self) -> Vec<(&'static StackSetting, &dyn SettingValue)> {
                let mut out: Vec<(&'static StackSetting, &dyn SettingValue)> = Vec::new();
                let mut settings = STACK_SETTINGS.iter();
                $(
                    let setting = settings.next().expect("one setting per field");
                    if let Some(v) = &self.$field {
                        out.push((setting, v));
                    }
                )*
                out
            }
        }
    };
}

const US: Dur = 1_000;
const MS: Dur = NS_PER_MS;
const S: Dur = NS_PER_S;

stack_settings! {
    /// Initial window, segments (after the handshake).
    initial_window: f64, written f64, key "initial_window",
        SettingKind::Float { min: 1.0, max: MAX_WINDOW_PKTS as f64 },
        // rfc: replaced per flow by the RFC 5681 formula on the MSS
        [2.0, 3.0, 10.0, 10.0], "segments";
    /// Slow-start and congestion-avoidance increase once per ACK (ns-2) rather than per
    /// acknowledged segment (RFC 5681 byte counting, Linux).
    per_ack_counting: bool, written bool, key "per_ack_counting", SettingKind::Bool,
        [true, false, false, false], "grow once per ACK rather than per acknowledged segment";
    /// Cap on the slow-start increase per ACK, segments (RFC 5681: 1). None = no cap.
    slow_start_cap: Option<f64>, written f64, key "slow_start_cap",
        SettingKind::Float { min: 0.0, max: MAX_WINDOW_PKTS as f64 },
        [None, Some(1.0), None, None], "segments per ACK in slow start; 0 = no cap";
    /// HyStart++ (RFC 9406) in every flow's first slow start, on top of its algorithm
    /// ([`crate::cc::common::hystart_pp`]). The algorithm's own HyStart (CUBIC's `hystart`
    /// parameter, on under the `linux` profile) is off under it, and an error written on.
    hystart: HyStartMode, written HyStartMode, key "hystart", SettingKind::Choice(&["off", "rfc9406"]),
        [HyStartMode::Off, HyStartMode::Off, HyStartMode::Off, HyStartMode::Off],
        "HyStart++ (RFC 9406) slow start on every flow's algorithm";
    ssthresh_basis: SsthreshBasis, written SsthreshBasis, key "ssthresh_basis",
        SettingKind::Choice(&["window", "flight_size", "cwnd"]),
        [SsthreshBasis::Window, SsthreshBasis::FlightSize, SsthreshBasis::Cwnd, SsthreshBasis::Cwnd],
        "what a loss reduction is computed from";
    /// Initial ssthresh is the receiver window (ns-2 `window_`) rather than "infinite".
    initial_ssthresh_is_window: bool, written bool, key "initial_ssthresh_is_window",
        SettingKind::Bool, [true, false, false, false], "initial ssthresh = receiver window";
    rto_formula: RtoFormula, written RtoFormula, key "rto_formula",
        SettingKind::Choice(&["rfc6298", "linux"]),
        [RtoFormula::Rfc6298, RtoFormula::Rfc6298, RtoFormula::Linux, RtoFormula::Linux],
        "how the retransmission timeout is computed from the RTT estimate";
    rtt_sampling: RttSampling, written RttSampling, key "rtt_sampling",
        SettingKind::Choice(&["one_per_rtt", "every_ack"]),
        [RttSampling::OnePerRtt, RttSampling::EveryAck, RttSampling::EveryAck, RttSampling::EveryAck],
        "one timed segment per RTT (ns-2) or a sample per ACK (timestamps)";
    min_rto_ns: Dur, written Dur, key "min_rto", SettingKind::Time { min_ns: MIN_RTO_NS },
        [200 * MS, S, 200 * MS, 200 * MS], "lower bound of the retransmission timeout";
    initial_rto_ns: Dur, written Dur, key "initial_rto", SettingKind::Time { min_ns: MIN_RTO_NS },
        [3 * S, S, S, S], "retransmission timeout before the first RTT sample";
    max_rto_ns: Dur, written Dur, key "max_rto", SettingKind::Time { min_ns: MIN_RTO_NS },
        [60 * S, 60 * S, 120 * S, 120 * S], "upper bound of the retransmission timeout";
    /// Largest backoff multiplier (ns-2: 64); the timer is also capped at `max_rto_ns`.
    max_backoff: u32, written u32, key "max_backoff",
        SettingKind::Int { min: 1, max: 1 << 30 },
        [64, 1 << 16, 1 << 16, 1 << 16], "largest RTO backoff multiplier";
    /// Clock granularity G (RFC 6298); also the tick RTT samples are truncated to under
    /// `OnePerRtt` sampling.
    clock_granularity_ns: Dur, written Dur, key "clock_granularity",
        SettingKind::Time { min_ns: 1 }, [10 * MS, MS, MS, MS], "clock granularity G (RFC 6298)";
    delayed_ack: bool, written bool, key "delayed_ack", SettingKind::Bool,
        [false, true, true, true], "receivers delay ACKs";
    delayed_ack_timeout_ns: Dur, written Dur, key "delayed_ack_timeout",
        SettingKind::Time { min_ns: 1 }, [100 * MS, 200 * MS, 40 * MS, 40 * MS],
        "longest delay of a delayed ACK";
    /// Linux's quick-ACK mode at the start of a connection (`tcp_incr_quickack`,
    /// `TCP_MAX_QUICKACKS` = 16 in `include/net/tcp.h`): a delaying receiver acknowledges each
    /// in-order segment on arrival until it has sent this many ACKs, then delays. 0 = none.
    quick_acks: u32, written u32, key "quick_acks", SettingKind::Int { min: 0, max: 1 << 20 },
        [0, 0, 0, 16], "ACKs a delaying receiver sends at once at the start of a connection";
    /// Grow cwnd only while the flow is cwnd-limited (RFC 7661 / Linux). ns-2 does not gate.
    cwnd_gating: bool, written bool, key "cwnd_gating", SettingKind::Bool,
        [false, true, true, true], "grow only while cwnd-limited";
    /// NewReno partial ACKs deflate the window (RFC 6582); ns-2 does not.
    partial_window_deflation: bool, written bool, key "partial_window_deflation",
        SettingKind::Bool, [false, true, true, true], "NewReno partial ACKs deflate the window";
    /// NewReno restarts the RTO on every partial ACK (ns-2 "slow but steady") rather than only
    /// the first (RFC 6582 "impatient").
    restart_rto_every_partial_ack: bool, written bool, key "restart_rto_every_partial_ack",
        SettingKind::Bool, [true, false, false, true], "NewReno restarts the RTO on every partial ACK";
    /// Duplicate ACKs that trigger fast retransmit.
    dupack_threshold: u32, written u32, key "dupack_threshold",
        SettingKind::Int { min: 1, max: 1 << 20 }, [3, 3, 3, 3],
        "duplicate ACKs that trigger fast retransmit";
    /// The loss-recovery procedure every flow runs; `None`: each flow runs its algorithm's
    /// customary one (Reno for `reno` and the Reno-based originals, NewReno otherwise; see
    /// [`crate::cc::CongestionControl::customary_recovery`]).
    recovery: Option<RecoveryProcedure>, written RecoveryProcedure, key "recovery",
        SettingKind::Choice(&["reno", "newreno", "sack", "rack-tlp"]),
        [None, None, Some(RecoveryProcedure::Sack), Some(RecoveryProcedure::RackTlp)],
        "loss recovery of every flow; unset: each flow's algorithm's customary one";
    /// RACK's reordering window is zero, before any reordering has been seen, once
    /// `dupack_threshold` segments are SACKed (RFC 8985 section 6.2 step 4, Linux's default);
    /// false: time alone decides outside recovery (Linux's `TCP_RACK_NO_DUPTHRESH`). Only with
    /// `recovery` = `rack-tlp`.
    rack_dupthresh: bool, written bool, key "rack_dupthresh", SettingKind::Bool, [true, true, true, true],
        "RACK-TLP marks losses at DupThresh SACKed segments before reordering is seen";
    /// Receivers report SACK blocks and senders recover with a SACK scoreboard: `recovery` is
    /// `sack` (RFC 6675) or `rack-tlp` (RFC 8985). Kept as a knob of its own for older scenarios,
    /// where `true` means `sack`; always equal to whether `recovery` uses SACK.
    sack: bool, written bool, key "sack", SettingKind::Bool, [false, false, true, true],
        "the older spelling: true is recovery = \"sack\"";
    /// Proportional Rate Reduction (RFC 9937) in SACK-based recovery: each ACK in recovery may
    /// send PRR's share rather than what cwnd - `pipe` allows, with the reduction bound named
    /// here once `pipe` is at or below ssthresh. Needs `recovery` = `sack` or `rack-tlp`;
    /// written with `recovery` unset, it asks for `sack`, as `sack = true` does.
    prr: PrrMode, written PrrMode, key "prr", SettingKind::Choice(&["off", "rfc9937", "ssrb", "crb"]),
        [PrrMode::Off, PrrMode::Off, PrrMode::Off, PrrMode::Rfc9937],
        "Proportional Rate Reduction (RFC 9937) in SACK-based recovery, by reduction bound";
    /// DSACK (RFC 2883) in SACK-based recovery: receivers report a duplicate segment as the first
    /// SACK block, and senders tell such a block from new SACK information (RFC 3708 section 2).
    /// No effect with `recovery` = `reno` or `newreno` (no SACK blocks).
    dsack: bool, written bool, key "dsack", SettingKind::Bool, [false, false, false, true],
        "receivers report duplicate segments (DSACK, RFC 2883); SACK-based recovery only";
    /// Undo a window reduction proven spurious: with `dsack`, once every retransmission of the
    /// episode is reported duplicate (RFC 3708 detection, Linux `tcp_try_undo_dsack`); with
    /// every-ACK timestamps, when an ACK echoes an original transmission (Eifel, RFC 3522, Linux
    /// `tcp_packet_delayed`). cwnd comes back by the algorithm's
    /// [`crate::cc::CongestionControl::undo_cwnd`], ssthresh to its value before the reduction.
    /// SACK-based recovery only.
    undo: bool, written bool, key "undo", SettingKind::Bool, [false, false, false, true],
        "undo a window reduction proven spurious (DSACK, RFC 3708; timestamps, RFC 3522)";
    /// F-RTO (RFC 5682 section 3, SACK-enhanced; Linux `tcp_frto` = 2): after a timeout, new
    /// data leaves in the place of the second retransmission and the ACKs tell whether the
    /// timeout was spurious; if so its reduction is undone. SACK-based recovery only.
    frto: bool, written bool, key "frto", SettingKind::Bool, [false, false, false, true],
        "detect spurious timeouts and undo them (F-RTO, RFC 5682); SACK-based recovery only";
    /// ECN (RFC 3168): senders mark new data ECN-capable and react to ECN-Echo, receivers echo
    /// CE. Algorithms that need ECN (DCTCP) have it on their own flows whatever this says.
    ecn: bool, written bool, key "ecn", SettingKind::Bool, [false, false, false, false],
        "ECN (RFC 3168) on every flow";
    /// The codepoint of ECN-capable data: each flow's algorithm's (ECT(1) if it is an L4S
    /// algorithm, RFC 9331), or ECT(0) or ECT(1) on every flow.
    ect: EctChoice, written EctChoice, key "ect", SettingKind::Choice(&["auto", "ect0", "ect1"]),
        [EctChoice::Auto, EctChoice::Auto, EctChoice::Auto, EctChoice::Auto],
        "ECN codepoint of ECN-capable data: the algorithm's (ECT(1) for L4S), ECT(0) or ECT(1)";
    /// How receivers feed CE marks back and senders read them, on every flow with ECN: each
    /// flow's algorithm's way, or RFC 3168's, DCTCP's (RFC 8257) or AccECN's (RFC 9768) for all.
    /// Both ends of a flow follow it (as if negotiated at the handshake).
    ecn_feedback: EcnFeedbackChoice, written EcnFeedbackChoice, key "ecn_feedback",
        SettingKind::Choice(&["auto", "rfc3168", "dctcp", "accecn"]),
        [EcnFeedbackChoice::Auto, EcnFeedbackChoice::Auto, EcnFeedbackChoice::Auto, EcnFeedbackChoice::Auto],
        "ECN feedback of every flow: the algorithm's, RFC 3168, DCTCP's per-segment echo or AccECN";
    /// Receiver window used when a flow sets none, segments.
    default_max_window_pkts: u64, written u64, key "default_max_window",
        SettingKind::Int { min: 1, max: MAX_WINDOW_PKTS }, [1_000_000, 1_000_000, 1_000_000, 1_000_000],
        "receiver window (packets) when a flow sets none";
    /// Open each transfer with a SYN / SYN-ACK exchange before the first data segment. ns-2's
    /// one-way agents have none: their first segment leaves at the transfer's start time.
    handshake: bool, written bool, key "handshake", SettingKind::Bool, [false, true, true, true],
        "open each transfer with SYN / SYN-ACK";
    /// ns-2's `overhead_`: each transmission (new data or retransmission) leaves after a uniform
    /// random delay in [0, send_overhead_ns], in order. 0 = none. Breaks the deterministic phase
    /// locking that a simulator without any host noise shows (Floyd & Jacobson 1992).
    send_overhead_ns: Dur, written Dur, key "send_overhead", SettingKind::Time { min_ns: 0 },
        // linux: 25 us, the smallest bound that broke the phase lock of two flows at 100 Mb/s in
        // every seed while costing a lone flow and short transfers nothing measurable
        // (docs/phase-effects.md, "Decision for the linux profile").
        [0, 0, 0, 25 * US], "each transmission leaves after a uniform random delay in [0, this]";
}

impl StackConfig {
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
        let profile_recovery = c.recovery;
        c.apply(o);
        // A window the user wrote is used as written, even when it equals the profile's default.
        if o.initial_window.is_some() {
            c.initial_window_from_mss = false;
        }
        c.recovery = Self::resolve_recovery(profile_recovery, o);
        if o.prr.is_some_and(PrrMode::is_on) && c.recovery.is_none() {
            // PRR paces SACK-based recovery: asked for with no procedure named, it names one.
            c.recovery = Some(RecoveryProcedure::Sack);
        }
        if !c.recovery.is_some_and(RecoveryProcedure::uses_sack) {
            // The profile's PRR (linux) goes with its SACK: a scenario that turns SACK off runs
            // the procedure it names without it. (PRR written on beside a procedure without SACK
            // is an error: `prr_conflict`.)
            c.prr = PrrMode::Off;
        }
        c.sack = c.recovery.is_some_and(RecoveryProcedure::uses_sack);
        c
    }

    /// `recovery` as written; else `sack = true` means `sack`, and `sack = false` turns a
    /// profile's SACK off, leaving each flow its algorithm's customary procedure. (A scenario
    /// that writes both must agree with itself, `sack = true` with a procedure that uses SACK:
    /// [`StackOverrides::recovery_conflict`]; and `prr` asks for a procedure that uses SACK:
    /// [`StackOverrides::prr_conflict`].)
    fn resolve_recovery(profile: Option<RecoveryProcedure>, o: &StackOverrides) -> Option<RecoveryProcedure> {
        match (o.recovery, o.sack) {
            (Some(r), _) => Some(r),
            (None, Some(true)) => Some(RecoveryProcedure::Sack),
            (None, Some(false)) if profile.is_some_and(RecoveryProcedure::uses_sack) => None,
            (None, _) => profile,
        }
    }

    /// Whether a flow whose algorithm says `l4s` sends ECT(1) rather than ECT(0).
    pub fn ect1_for(&self, l4s: bool) -> bool {
        match self.ect {
            EctChoice::Auto => l4s,
            EctChoice::Ect0 => false,
            EctChoice::Ect1 => true,
        }
    }

    /// The ECN feedback a flow's two ends use: the stack's, else its algorithm's.
    pub fn ecn_feedback_for(&self, algorithm: EcnFeedback) -> EcnFeedback {
        match self.ecn_feedback {
            EcnFeedbackChoice::Auto => algorithm,
            EcnFeedbackChoice::Rfc3168 => EcnFeedback::Rfc3168,
            EcnFeedbackChoice::Dctcp => EcnFeedback::PerSegment,
            EcnFeedbackChoice::Accecn => EcnFeedback::AccEcn,
        }
    }

    /// The procedure a flow runs: the stack's, else its algorithm's customary one.
    pub fn recovery_for(&self, customary: RecoveryProcedure) -> RecoveryProcedure {
        self.recovery.unwrap_or(customary)
    }
}

impl StackOverrides {
    /// `sack` and `recovery` both written and disagreeing: the message naming both keys.
    pub fn recovery_conflict(&self) -> Option<String> {
        let (Some(r), Some(sack)) = (self.recovery, self.sack) else { return None };
        (sack != r.uses_sack()).then(|| {
            format!(
                "stack.sack: {sack} contradicts recovery = {:?}; expected {} with that recovery, \
                 or only one of the two keys (sack = true is recovery = \"sack\")",
                r.as_str(),
                r.uses_sack()
            )
        })
    }

    /// `prr` written on, with a procedure that does not use SACK written (`recovery` or
    /// `sack = false`): the message naming the keys. (With neither written PRR asks for `sack`.)
    pub fn prr_conflict(&self) -> Option<String> {
        let prr = self.prr.filter(|p| p.is_on())?;
        let written = match (self.recovery, self.sack) {
            (Some(r), _) if !r.uses_sack() => format!("recovery = {:?}", r.as_str()),
            (None, Some(false)) => "sack = false".to_string(),
            _ => return None,
        };
        Some(format!(
            "stack.prr: {:?} contradicts {written}; PRR paces SACK-based loss recovery: expected \
             recovery = \"sack\" or \"rack-tlp\" with it, or prr = \"off\"",
            prr.as_str()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overrides(field: &str, value: &str) -> Result<StackOverrides, serde_json::Error> {
        serde_json::from_str(&format!(r#"{{"{field}":{value}}}"#))
    }

    #[test]
    fn the_table_names_every_field_and_each_choice_is_what_serde_reads() {
        let ns2 = serde_json::to_value(StackConfig::for_profile(Profile::Ns2)).unwrap();
        let fields: Vec<&str> = ns2.as_object().unwrap().keys().map(String::as_str).collect();
        let mut published: Vec<&str> = STACK_SETTINGS.iter().map(|s| s.field).collect();
        published.push("profile");
        published.sort_unstable();
        assert_eq!(fields, published);
        for setting in STACK_SETTINGS {
            if let SettingKind::Choice(names) = setting.kind {
                for name in names {
                    let written = overrides(setting.field, &format!("\"{name}\"")).unwrap();
                    assert_eq!(written.written().len(), 1, "{}", setting.key);
                }
                assert!(overrides(setting.field, "\"none of them\"").is_err(), "{}", setting.key);
            }
        }
    }

    #[test]
    fn a_written_value_replaces_the_profiles() {
        let o = overrides("slow_start_cap", "0").unwrap();
        assert_eq!(StackConfig::resolve(Profile::Rfc, &o).slow_start_cap, None);
        let o = overrides("sack", "false").unwrap();
        let c = StackConfig::resolve(Profile::Linux, &o);
        assert_eq!((c.recovery, c.sack), (None, false));
        let o = overrides("recovery", "\"sack\"").unwrap();
        let c = StackConfig::resolve(Profile::Ns2, &o);
        assert_eq!((c.recovery, c.sack), (Some(RecoveryProcedure::Sack), true));
        let o = overrides("recovery", "\"rack-tlp\"").unwrap();
        let c = StackConfig::resolve(Profile::Linux, &o);
        assert_eq!((c.recovery, c.sack), (Some(RecoveryProcedure::RackTlp), true), "RACK-TLP uses SACK");
        let both: StackOverrides = serde_json::from_str(r#"{"recovery":"rack-tlp","sack":true}"#).unwrap();
        assert_eq!(both.recovery_conflict(), None);
        let o = overrides("initial_window", "3").unwrap();
        assert!(!StackConfig::resolve(Profile::Rfc, &o).initial_window_from_mss);
    }

    #[test]
    fn prr_asks_for_sack_recovery_and_contradicts_a_procedure_without_it() {
        let o = overrides("prr", "\"rfc9937\"").unwrap();
        let c = StackConfig::resolve(Profile::Ns2, &o);
        assert_eq!((c.prr, c.recovery, c.sack), (PrrMode::Rfc9937, Some(RecoveryProcedure::Sack), true));
        assert_eq!(o.prr_conflict(), None);
        let rack: StackOverrides = serde_json::from_str(r#"{"prr":"crb","recovery":"rack-tlp"}"#).unwrap();
        assert_eq!(StackConfig::resolve(Profile::Rfc, &rack).recovery, Some(RecoveryProcedure::RackTlp));
        assert_eq!(rack.prr_conflict(), None);
        let off: StackOverrides = serde_json::from_str(r#"{"prr":"off","recovery":"reno"}"#).unwrap();
        assert_eq!(off.prr_conflict(), None);
        assert_eq!(StackConfig::resolve(Profile::Linux, &off).prr, PrrMode::Off);
        let newreno: StackOverrides = serde_json::from_str(r#"{"prr":"ssrb","recovery":"newreno"}"#).unwrap();
        assert_eq!(
            newreno.prr_conflict().unwrap(),
            "stack.prr: \"ssrb\" contradicts recovery = \"newreno\"; PRR paces SACK-based loss recovery: \
             expected recovery = \"sack\" or \"rack-tlp\" with it, or prr = \"off\""
        );
        let no_sack: StackOverrides = serde_json::from_str(r#"{"prr":"rfc9937","sack":false}"#).unwrap();
        assert!(no_sack.prr_conflict().unwrap().starts_with("stack.prr: \"rfc9937\" contradicts sack = false;"));
    }
}
