//! Congestion control as a plug-in.
//!
//! The TCP sender owns loss detection, recovery and the retransmission timer; a congestion-control
//! algorithm only decides the window (and, optionally, when each segment may leave). It is fed one
//! [`AckSample`] per ACK outside recovery (and, to observe, per ACK in recovery), one
//! [`CongestionEvent`] per loss episode, and is asked for transmission times when it paces. A
//! rate-based algorithm (BBR) may instead have the sender pace it at a rate
//! ([`CongestionControl::pacing_rate`]), set cwnd itself on every ACK in every state
//! ([`CongestionControl::sets_cwnd_on_every_ack`]) and mark app-limited periods
//! ([`CongestionControl::take_app_limited`]); docs/algorithms.md, "Pacing and rate samples". The window itself lives in a [`Window`] the sender owns
//! and lends to every hook, so the stack's own rules (cwnd = 1 after a timeout, recovery inflation)
//! and the algorithm's never fight over who holds the number.
//!
//! One file per algorithm; [`registry`] maps names to constructors and parameter schemas. What
//! several algorithms need (per-round RTT statistics, a delivery-rate estimate, HyStart, the
//! window arithmetic of Linux `tcp_cong.c`) lives once in [`common`]. Delay measurements are
//! taken once, by the sender, for every algorithm: each [`AckSample`] carries
//! [`AckSample::delay`] (base and largest RTT, the round's min/mean/max/count, the latest
//! `ca_rtt`, the one-way delay, a delivery-rate sample), fed by every ACK in every state. Vegas,
//! YeAH, Fusion, FAST, Compound and H-TCP read their base RTT from it, Illinois its base and
//! maximum, Sync-TCP its one-way delay; algorithms whose rounds or minima follow Linux-specific
//! resets keep those parts themselves (CUBIC, Westwood, Libra and AReno their minimum too: see
//! each module and docs/algorithms.md).

pub mod areno;
pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod binomial;
pub mod common;
pub mod compound;
pub mod cubic;
pub mod dctcp;
pub mod fast;
pub mod freedrop;
pub mod fusion;
pub mod fusion_rf;
pub mod harness;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod libra;
pub mod newreno;
pub mod paced;
pub mod params;
pub mod prague;
pub mod randomized;
pub mod registry;
pub mod reno;
pub mod scalable;
pub mod sync_tcp;
pub mod vegas;
pub mod westwood;
pub mod yeah;

use serde::{Deserialize, Serialize};

use crate::units::{Dur, Time};

/// Congestion window and slow-start threshold, in segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

/// How the stack counts increases and gates growth; copied into every sample so that shared
/// helpers ([`common`]) apply the profile without each algorithm knowing about profiles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Growth {
    /// Cap on the slow-start increase per ACK, segments; `None` = no cap.
    pub slow_start_cap: Option<f64>,
    /// Skip growth when the flow is not cwnd-limited.
    pub gating: bool,
}

/// Everything an algorithm may want to know about one ACK that advanced the cumulative ACK (or,
/// for an algorithm that [sets cwnd on every ACK](CongestionControl::sets_cwnd_on_every_ack), any
/// ACK at or above it: `acked` is 0 on a duplicate ACK, `rtt` none and `round_start` false).
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: Time,
    /// Segments newly acknowledged by this ACK (cumulative advance).
    pub acked: f64,
    /// Units of increase this ACK earns: 1 under per-ACK counting (ns-2), else `acked`.
    pub increase_units: f64,
    /// The RTT sample the RTT estimator took from this ACK, if any (exact, not tick-truncated):
    /// the timestamp echo, or ns-2's one timed segment per RTT.
    pub rtt: Option<Dur>,
    /// Under every-ACK sampling, Linux's `ca_rtt`: the RTT of the most recently sent segment this
    /// ACK newly acknowledges (the echo when only retransmissions were). None under ns-2's
    /// one-per-RTT timing. Algorithms read it through [`common::ca_rtt`], which falls back to
    /// the echo.
    pub ca_rtt: Option<Dur>,
    pub srtt: Dur,
    pub min_rtt: Dur,
    /// One-way delay of the acknowledged segment, ns: the receiver's timestamp of its arrival
    /// minus the sender's of its departure. Signed: with the flow's clock skew
    /// ([`crate::tcp::clock::ClockSkew`], zero by default) the two clocks disagree.
    pub one_way_delay: Option<i64>,
    /// The sender's delay and delivery measurements, taken once for every algorithm: this ACK's
    /// [`common::ca_rtt`], the base (smallest ever) and largest RTT, the current round's
    /// min/mean/max/count, the one-way delay and a delivery-rate sample. See
    /// [`common::delay::DelaySample`] for what a round's summary covers.
    pub delay: common::delay::DelaySample,
    /// Send timestamp of the segment this ACK echoes.
    pub echoed_ts: Time,
    /// Segments in flight before this ACK (before its SACK blocks were applied: Linux
    /// `prior_in_flight`) and after it (for an every-ACK algorithm, after its losses were marked).
    pub prior_in_flight: f64,
    pub in_flight: f64,
    /// Total segments cumulatively acknowledged so far.
    pub delivered: u64,
    /// Whether this ACK starts a new round (a window of data acknowledged since the last start).
    pub round_start: bool,
    pub round: u64,
    /// Whether the sender was limited by cwnd (not by the receiver window or lack of data).
    pub cwnd_limited: bool,
    pub growth: Growth,
    /// The ACK carried ECN-Echo (only on flows with ECN). Such an ACK does not grow the window:
    /// the sender hands it to [`CongestionControl::on_ack_in_recovery`] (observe only), and
    /// reacts at most once per window with a [`CongestionKind::Ecn`] event.
    pub ece: bool,
    /// Segments this ACK newly delivered, cumulatively or by SACK (Linux `acked_sacked`); a
    /// duplicate ACK without SACK counts 1, as Linux counts it in `sacked_out`.
    pub delivered_now: f64,
    /// Segments newly marked lost while this ACK was processed (Linux `rs->losses`).
    pub newly_lost: f64,
    /// Of the segments this ACK newly delivered, how many the receiver reports as CE-marked
    /// (only on flows with ECN): under [`EcnFeedback::AccEcn`] the increase of the receiver's
    /// CE counter decoded from the ACK's ACE field ([`crate::tcp::accecn::AceDecoder`]: when the
    /// ACK delivers 8 or more segments, the largest count the field allows), which may exceed
    /// `delivered_now` when earlier ACKs were lost; under the one-bit feedbacks the ACK's whole
    /// delivery when it carries ECE. Under AccECN [`Self::ece`] is `ce_delivered > 0`: such an
    /// ACK is a congestion signal as ECN-Echo is. The sender sums it over every ACK, those no
    /// hook sees included, in [`crate::tcp::sender::SenderStats::ce_delivered`].
    pub ce_delivered: f64,
    /// The sender's loss/ECN state after this ACK was processed (Linux `icsk_ca_state` when
    /// `cong_control` runs).
    pub ca_state: CaState,
}

/// Where the sender stands with respect to congestion (Linux `icsk_ca_state`, without Linux's
/// `Disorder`, which ccsim's sender does not distinguish from `Open`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaState {
    /// No reduction under way.
    #[default]
    Open,
    /// An ECN-Echo reduction is under way: from the event until the data outstanding at it is
    /// acknowledged and one segment beyond (so that the receiver saw CWR).
    Cwr,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout, until the data outstanding at it is acknowledged.
    Loss,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Loss detected by duplicate ACKs: fast retransmit.
    Loss,
    /// ECN-Echo received (RFC 3168): at most once per window of data, never in loss recovery.
    /// Nothing is retransmitted; the default reaction is the algorithm's loss reduction.
    Ecn,
    /// Retransmission timeout.
    Timeout,
}

/// The start of a loss episode. Called once per episode: the sender guarantees it.
#[derive(Clone, Copy, Debug)]
pub struct CongestionEvent {
    pub now: Time,
    pub kind: CongestionKind,
    /// Segments in flight when the loss was detected.
    pub in_flight: f64,
    /// What the stack profile says a reduction is computed from (window, flight size or cwnd).
    pub basis: f64,
    /// For timeouts: whether this is the first expiry for the segment; only the first lowers
    /// ssthresh (RFC 5681 eq. 4).
    pub first_timeout: bool,
    pub srtt: Dur,
    pub min_rtt: Dur,
}

/// A segment leaving the sender.
#[derive(Clone, Copy, Debug)]
pub struct SentSample {
    pub now: Time,
    pub seq: u32,
    pub retransmission: bool,
    pub in_flight: f64,
}

/// What a pacing algorithm sees when asked for the next transmission time.
#[derive(Clone, Copy, Debug)]
pub struct PacingContext {
    pub now: Time,
    pub window: Window,
    pub srtt: Dur,
    pub in_flight: f64,
}

/// A loss-recovery procedure, by the name the stack's `recovery` setting gives it. One type for
/// both places that name one: the stack's setting ([`crate::tcp::stack_settings::StackConfig::recovery`])
/// and each algorithm's customary procedure ([`CongestionControl::customary_recovery`]), which its
/// flows run when the stack names none. It lives here, below [`crate::tcp`], so that both can
/// name it; the procedures themselves, and the running state of one
/// ([`crate::tcp::recovery::LossRecovery`]), are in [`crate::tcp::recovery`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryProcedure {
    /// RFC 5681 fast recovery: leave on the first ACK of new data.
    Reno,
    /// RFC 6582: stay in recovery until all data outstanding at its start is acknowledged.
    #[serde(rename = "newreno")]
    NewReno,
    /// RFC 6675: conservative SACK-based recovery with a scoreboard.
    Sack,
    /// RFC 8985: RACK (losses detected by send time) and TLP (tail loss probes), with RFC 6675's
    /// scoreboard and `pipe` for what to send.
    #[serde(rename = "rack-tlp")]
    RackTlp,
}

impl RecoveryProcedure {
    /// The name a scenario writes (`recovery = "newreno"`).
    pub fn as_str(self) -> &'static str {
        match self {
            RecoveryProcedure::Reno => "reno",
            RecoveryProcedure::NewReno => "newreno",
            RecoveryProcedure::Sack => "sack",
            RecoveryProcedure::RackTlp => "rack-tlp",
        }
    }

    /// Whether receivers report SACK blocks for it (the stack's `sack` says so).
    pub fn uses_sack(self) -> bool {
        matches!(self, RecoveryProcedure::Sack | RecoveryProcedure::RackTlp)
    }
}

/// How a receiver reports the CE marks it sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnFeedback {
    /// RFC 3168 section 6.1.3: ECE on every ACK from the first CE until a segment with CWR.
    Rfc3168,
    /// RFC 8257 section 3.2: each ACK's ECE is the CE mark of the segments it acknowledges; on a
    /// change an ACK for the segments before it leaves at once.
    PerSegment,
    /// RFC 9768 (Accurate ECN): the receiver counts CE-marked packets and feeds the count back
    /// in every ACK's ACE field (three bits, modulo 8); the sender recovers how many of the
    /// segments each ACK delivers were marked ([`AckSample::ce_delivered`]). No CWR handshake.
    /// The stack's `ecn_feedback` may impose it (or another) on every flow; what is modelled:
    /// [`crate::tcp::accecn`].
    AccEcn,
}

/// A congestion-control algorithm. Every hook but two has a no-op default.
pub trait CongestionControl: Send + Sync {
    fn name(&self) -> &'static str;

    /// An ACK advanced the cumulative ACK while not in loss recovery (without ECN-Echo); for an
    /// algorithm that [sets cwnd on every ACK](Self::sets_cwnd_on_every_ack), every ACK.
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window);

    /// A loss episode starts: set ssthresh and the post-reduction cwnd.
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window);

    /// Fast recovery ended with a full ACK. The sender has already set cwnd = ssthresh (unless
    /// the algorithm [sets cwnd on every ACK](Self::sets_cwnd_on_every_ack)).
    fn on_recovery_exit(&mut self, _now: Time, _w: &mut Window) {}

    /// The last reduction proved spurious (DSACKs showed every retransmission of its episode
    /// unneeded, or a timestamp the original's arrival, or F-RTO found the timeout spurious; the
    /// stack's `undo`, `frto`): the cwnd to
    /// restore, given the window now (`w`) and the cwnd before the reduction (`prior_cwnd`).
    /// The sender then puts ssthresh back to what it was before, if that is larger. An algorithm
    /// may restore its own state here too. Default: Linux's `tcp_reno_undo_cwnd`,
    /// max(cwnd, prior_cwnd), which every Linux 6.x module but H-TCP and DCTCP uses.
    fn undo_cwnd(&mut self, _now: Time, w: &Window, prior_cwnd: f64) -> f64 {
        w.cwnd.max(prior_cwnd)
    }

    /// An ACK advanced the cumulative ACK during fast recovery: a partial ACK, or the full ACK
    /// that ends it (before [`Self::on_recovery_exit`]). The sender owns the window until
    /// recovery ends, so this hook only observes: Linux likewise hands RTT samples and delivery
    /// counts to the algorithm in every state (`pkts_acked`, `in_ack_event`), which H-TCP and
    /// Illinois use for their RTT extremes and Westwood for its bandwidth estimate.
    fn on_ack_in_recovery(&mut self, _ack: &AckSample) {}

    /// A duplicate ACK arrived, in recovery or not: one more segment has left the network.
    /// Westwood counts it as delivered (Linux `tcp_westwood.c`, `westwood_acked_count`).
    fn on_dupack(&mut self, _now: Time) {}

    /// Whether the sender should call [`Self::on_sent`] and [`Self::next_send_time`]: true for
    /// an algorithm that overrides either. Read once, when the flow is built; the sender skips
    /// both calls (and building their arguments, which needs the flight size twice per
    /// segment) for the many algorithms that neither pace nor watch segments leave.
    fn watches_sends(&self) -> bool {
        false
    }

    /// A segment left the sender (called only if [`Self::watches_sends`]).
    fn on_sent(&mut self, _sent: &SentSample) {}

    /// Earliest time the next segment may leave; `None` sends as soon as the window allows.
    /// Called each time the window would allow a transmission (only if
    /// [`Self::watches_sends`]).
    fn next_send_time(&mut self, _ctx: &PacingContext) -> Option<Time> {
        None
    }

    /// The pacing timer fired but the window did not allow a transmission.
    fn on_send_blocked(&mut self, _now: Time) {}

    /// Whether this algorithm reads [`AckSample::delay`]'s delivery-rate sample. The sender keeps
    /// per-segment send records for it only when something needs them: every-ACK RTT sampling
    /// (Linux's `ca_rtt`), SACK, or an algorithm that says yes here; otherwise (the ns2 profile
    /// without SACK) `delay.rate` is `None` and sending costs no record.
    fn wants_delivery_rate(&self) -> bool {
        false
    }

    /// The loss-recovery procedure this algorithm's sources used, read once when a flow is built
    /// and used only when the stack names none: older scenarios keep meaning what they meant (`reno` ran Reno recovery).
    /// The sender never asks; which procedure runs is the stack's setting.
    fn customary_recovery(&self) -> RecoveryProcedure {
        RecoveryProcedure::NewReno
    }

    /// How this algorithm's receivers echo CE marks. [`EcnFeedback::Rfc3168`] (ECE from the
    /// first CE until the sender's CWR) unless the algorithm needs every mark (DCTCP).
    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::Rfc3168
    }

    /// Whether this is a scalable congestion control that identifies its packets as L4S (RFC 9331
    /// section 4): its ECN-capable packets carry ECT(1) instead of ECT(0), unless the stack's
    /// `ect` setting names a codepoint for every flow
    /// ([`crate::tcp::stack_settings::StackConfig::ect1_for`]).
    fn l4s(&self) -> bool {
        false
    }

    /// Whether the algorithm works only with ECN: its flows are ECN-capable whatever the stack's
    /// `ecn` says (and writing `ecn = false` is an error).
    fn needs_ecn(&self) -> bool {
        false
    }

    /// The pacing rate the sender holds this flow to, segments per second; `None` (the default)
    /// sends as soon as the window allows. When `Some`, the sender paces in the manner of
    /// Linux's internal pacing (or `sch_fq`), by earliest departure time: each segment may leave
    /// no earlier than 1/rate after the previous one's departure slot; the first 10 segments of
    /// the connection are not paced (`sch_fq`'s initial quantum); a sender that comes late to a
    /// slot (the window was closed) starts from now, credited at most half an interval for the
    /// lateness (Linux's allowance for timer slack). Read after every hook that may change it
    /// and before each send. Independent of [`Self::next_send_time`], which keeps working.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }

    /// Whether the algorithm sets the window itself on every ACK, in every state (Linux's
    /// `cong_control` modules: BBR). Read once, when the flow is built. When true, the sender
    /// calls [`Self::on_ack`] on every ACK (new or duplicate, in recovery, after a timeout,
    /// with ECN-Echo) after its loss detection, with [`AckSample::ca_state`] saying where it
    /// stands, and leaves cwnd to the algorithm during recovery: no PRR, no window inflation, no
    /// cwnd = ssthresh when recovery ends ([`Self::on_recovery_exit`] is still called, and
    /// [`Self::on_ack_in_recovery`] is not). [`Self::on_congestion`] is still called once per
    /// episode, and a timeout still sets cwnd to 1 (Linux `tcp_enter_loss`) before the
    /// algorithm sees the next ACK.
    fn sets_cwnd_on_every_ack(&self) -> bool {
        false
    }

    /// Polled by the sender after each [`Self::on_ack`] of an algorithm that
    /// [`watches_sends`](Self::watches_sends) or
    /// [`sets_cwnd_on_every_ack`](Self::sets_cwnd_on_every_ack): true marks the current flight
    /// app-limited (Linux `tp->app_limited = delivered + in_flight`, at least 1; BBR's PROBE_RTT
    /// asks this), so rate samples of segments sent until that flight is delivered are
    /// flagged [`app_limited`](common::delay::RateSample::app_limited).
    fn take_app_limited(&mut self) -> bool {
        false
    }

    /// Report the algorithm's own state at `now`, one `(name, value)` pair per quantity, by
    /// calling `out` (e.g. Vegas's queue estimate as `("diff", 3.0)`); `now` is for state that
    /// moves with time between events (H-TCP's alpha). Called only when the scenario samples
    /// (`[trace] sample_interval`), once per flow per sampling instant, so an algorithm that does
    /// not override it costs nothing, and one that does costs nothing unless the run samples.
    ///
    /// Each name becomes a `cc_<name>` column of the `series` table (NaN in rows of flows that do
    /// not report it); columns are sorted by name, and a run where no flow reports anything has
    /// none. Names are short snake_case words, stable across samples, each reported at most once
    /// per call; report a quantity even while it is undefined (as NaN) if it has a value at other
    /// times, so the column keeps its meaning. Units go in the algorithm's documentation:
    /// segments for windows, seconds for times.
    fn inspect(&self, _now: Time, _out: &mut dyn FnMut(&'static str, f64)) {}
}
