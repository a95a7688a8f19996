//! The resolved scenario: the contract between the Python front end and the engine.
//!
//! Python parses the user's TOML (units as strings, "1bdp" buffers, flow groups with `count`) and
//! hands the engine this plain structure as JSON: every quantity an integer in nanoseconds, bits
//! per second, bytes or packets, every default filled in except those that belong to the stack
//! profile. Unknown keys are rejected so that the two sides cannot drift apart silently.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::profile::Profile;
use crate::tcp::stack_settings::{SettingKind, StackConfig, StackOverrides};
pub use crate::tcp::stack_settings::{MAX_WINDOW_PKTS, MIN_RTO_NS};
use crate::units::format_time;

/// The largest time the engine accepts anywhere (a duration, a delay, a start, a timeout):
/// 10^16 ns, about 116 days. Every sum the engine forms of a few such times stays far below
/// 2^64 ns, so its clock cannot wrap.
pub const MAX_TIME_NS: u64 = 10_000_000_000_000_000;
/// The largest link rate, bit/s (10 Tbps).
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;
/// The most flows, generator slots, sources, nodes or links of one kind in a scenario. Beyond
/// this the engine's tables (u32 ids) and memory cannot follow.
pub const MAX_ENTITIES: u64 = 1 << 24;
/// The most transfers an open-loop generator may be expected to start (rate x active time).
pub const MAX_TRANSFERS: f64 = (1u64 << 28) as f64;
/// The largest queue limit in packets, and in bytes.
pub const MAX_QUEUE_PKTS: u64 = 1 << 40;
pub const MAX_QUEUE_BYTES: u64 = 1 << 50;
/// The largest transfer size, bytes.
pub const MAX_SIZE_BYTES: u64 = 1 << 60;
/// The largest MSS, bytes (a 65 535-byte IP packet less 40 bytes of headers).
pub const MAX_MSS_BYTES: u32 = 65_495;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    pub name: String,
    pub seed: u64,
    pub duration_ns: u64,
    pub stack: StackSpec,
    pub topology: TopologySpec,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub generators: Vec<GeneratorSpec>,
    #[serde(default)]
    pub trace: TraceSpec,
    /// Bounds the engine enforces as the run goes (absent: [`RunLimits::default`]).
    #[serde(default, skip_serializing_if = "RunLimits::is_default")]
    pub limits: RunLimits,
    /// How many of `flows` each of the user's flow groups became, in order (`[[flows]]` tables
    /// with a `count`), so that messages name the key the user wrote: the engine's flow 12 is
    /// `flows[1]` when the first group has `count = 10`. It changes no behaviour (the run's
    /// identity leaves it out); absent, messages name the engine's own index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow_groups: Vec<u32>,
}

/// Bounds on what a run may grow that only the running engine can see (the scenario's
/// `[limits]`; the Python front end checks the others before the run).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RunLimits {
    /// Distinct names the flows' algorithms may report through `inspect` in one run (a column
    /// of the series each), and the same for the queue disciplines and the queues table.
    #[serde(default = "RunLimits::default_inspect_columns")]
    pub inspect_columns: u32,
}

impl RunLimits {
    pub const DEFAULT_INSPECT_COLUMNS: u32 = 64;
    pub const MAX_INSPECT_COLUMNS: u32 = 65_536;

    fn default_inspect_columns() -> u32 {
        Self::DEFAULT_INSPECT_COLUMNS
    }

    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits { inspect_columns: Self::DEFAULT_INSPECT_COLUMNS }
    }
}

/// The TCP stack profile and any scenario-wide overrides of its knobs.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackSpec {
    pub profile: Profile,
    #[serde(default)]
    pub overrides: StackOverrides,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    /// Tail drop. The limits count packets waiting, not the one being transmitted.
    Droptail { limit_pkts: Option<u64>, limit_bytes: Option<u64> },
    /// Random Early Detection (Floyd & Jacobson 1993, ns-2 variant). Thresholds in packets;
    /// `min_th`, `max_th` or `w_q` = 0: ns-2's automatic value. `byte_mode`: ns-2's `bytes_`.
    /// `ecn`: early drops of ECN-capable packets become CE marks.
    Red {
        limit_pkts: u64,
        min_th: f64,
        max_th: f64,
        max_p: f64,
        w_q: f64,
        gentle: bool,
        wait: bool,
        mean_pktsize: u32,
        #[serde(default, skip_serializing_if = "is_false")]
        byte_mode: bool,
        #[serde(default, skip_serializing_if = "is_false")]
        ecn: bool,
    },
    /// CoDel (RFC 8289), with a tail-drop limit in packets. `ce_threshold_ns` (Linux's
    /// `ce_threshold`, absent: off): an ECN-capable packet sent after waiting longer is marked CE,
    /// whatever CoDel's own state.
    Codel {
        limit_pkts: u64,
        target_ns: u64,
        interval_ns: u64,
        ecn: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ce_threshold_ns: Option<u64>,
    },
    /// FQ-CoDel (RFC 8290): `flows` hashed queues under CoDel, DRR with `quantum_bytes`;
    /// `limit_pkts` over all queues. `ce_threshold_ns` as CoDel's; with a nonzero
    /// `ce_threshold_mask` it applies only to packets whose IP ECN field (CE 3, ECT(0) 2,
    /// ECT(1) 1) ANDed with the mask equals `ce_threshold_selector` (Linux's selector and mask,
    /// on the ECN bits only: 1 and 3 select ECT(1), the L4S identifier).
    FqCodel {
        limit_pkts: u64,
        target_ns: u64,
        interval_ns: u64,
        ecn: bool,
        flows: u32,
        quantum_bytes: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ce_threshold_ns: Option<u64>,
        #[serde(default, skip_serializing_if = "is_zero_u8")]
        ce_threshold_selector: u8,
        #[serde(default, skip_serializing_if = "is_zero_u8")]
        ce_threshold_mask: u8,
    },
    /// PIE (RFC 8033), delay measured by timestamps; `alpha` and `beta` in 1/s. `l4s_step_ns`
    /// (a ccsim option, absent: off; Linux's PIE has none): an ECT(1) packet sent after waiting
    /// longer is marked CE, RFC 9332's native L4S step applied inside the one queue.
    Pie {
        limit_pkts: u64,
        target_ns: u64,
        tupdate_ns: u64,
        alpha: f64,
        beta: f64,
        max_burst_ns: u64,
        ecn: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        l4s_step_ns: Option<u64>,
    },
    /// DualPI2, the DualQ Coupled AQM (RFC 9332, Linux's sch_dualpi2): `limit_pkts` over both
    /// queues; `alpha`, `beta` in Hz; `coupling` the factor k; `c_weight_pct` the classic queue's
    /// share of the scheduler; `ecn_mask` the IP ECN bits that select the L queue (1: ECT(1) and
    /// CE, 2: ECT(0) and CE, 3: any ECT).
    #[serde(rename = "dualpi2")]
    DualPi2 {
        limit_pkts: u64,
        target_ns: u64,
        tupdate_ns: u64,
        alpha: f64,
        beta: f64,
        step_thresh_ns: u64,
        min_qlen_step: u64,
        coupling: f64,
        c_weight_pct: u8,
        drop_overload: bool,
        drop_early: bool,
        ecn_mask: u8,
    },
    /// Step marking (DCTCP): an arrival finding `k_pkts` packets or `k_bytes` bytes waiting is
    /// marked (ECN-capable, `ecn` on) or dropped; tail drop at the limits.
    Step { limit_pkts: Option<u64>, limit_bytes: Option<u64>, k_pkts: Option<u64>, k_bytes: Option<u64>, ecn: bool },
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero_u8(v: &u8) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossSpec {
    #[default]
    None,
    /// Each packet crossing the link is dropped independently with probability `p`.
    Bernoulli { p: f64 },
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReorderSpec {
    #[default]
    None,
    /// Each packet crossing the link is held back independently with probability `p`: it
    /// leaves `delay_ns` after it reached the far end, and the packets behind it overtake it.
    /// `p` = 0 or `delay_ns` = 0: none.
    Bernoulli { p: f64, delay_ns: u64 },
}

impl ReorderSpec {
    fn is_none(&self) -> bool {
        *self == ReorderSpec::None
    }
}

/// A piecewise-constant schedule of a link's rate, delay or loss probability: from each point's
/// instant (ns) its value holds until the next point's; the link's own value (`rate_bps`,
/// `delay_ns`, `loss`) holds before the first. `repeat_ns` > 0: every point recurs with that
/// period (each instant below it), so a later cycle starts with the last point's value.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScheduleSpec<T> {
    pub points: Vec<(u64, T)>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repeat_ns: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A trace of delivery opportunities in Mahimahi's format, read and checked by the front end:
/// each entry a millisecond at which one 1500-byte packet may leave (repeated entries: several),
/// non-decreasing; the trace loops with its last entry as the period.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OpportunityTrace {
    pub ms: Vec<u64>,
}

/// Wi-Fi-like aggregation on a link direction (docs/links.md): when the channel is free and
/// packets wait, a channel-access delay uniform between `access_min_ns` and `access_max_ns`, then up to
/// `max_packets` packets, or as many as fit in `max_time_ns` of airtime (at least one), sent back
/// to back; all of a burst's packets reach the far end together.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AggregationSpec {
    pub max_packets: u32,
    pub max_time_ns: u64,
    pub access_min_ns: u64,
    pub access_max_ns: u64,
}

/// One direction of a link.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub queue: QueueSpec,
    #[serde(default)]
    pub loss: LossSpec,
    /// Absent unless set, so that specs without reordering read and write as before.
    #[serde(default, skip_serializing_if = "ReorderSpec::is_none")]
    pub reorder: ReorderSpec,
    /// Random per-packet processing delay at the router feeding this link: each packet reaches
    /// the queue after a uniform delay in [0, jitter_ns], in order. 0 = none.
    #[serde(default)]
    pub jitter_ns: u64,
    /// Changes of the rate (bit/s, 0: an outage), the propagation delay (ns) and the loss
    /// probability during the run; absent unless set, like `trace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<ScheduleSpec<u64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_schedule: Option<ScheduleSpec<u64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_schedule: Option<ScheduleSpec<f64>>,
    /// The transmitter follows this trace instead of a rate. `rate_bps` still sizes the queue's
    /// automatic parameters (the front end writes the trace's mean rate); the links table shows
    /// the trace's mean rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<OpportunityTrace>,
    /// Packets go in bursts; absent unless set, like `trace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregation: Option<AggregationSpec>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologySpec {
    /// Senders -> R1 -> R2 -> receivers. Each flow (or generator slot) gets its own access links,
    /// with delays chosen to give the flow its requested base RTT.
    Dumbbell { forward: LinkParams, reverse: LinkParams, access_rate_bps: u64, access_queue: QueueSpec },
    /// Routers R0..R{n-1} in a chain; flows enter and leave at any router through their own hosts.
    ParkingLot {
        routers: u32,
        forward: LinkParams,
        reverse: LinkParams,
        access_rate_bps: u64,
        access_delay_ns: u64,
        access_queue: QueueSpec,
    },
    /// Named nodes and links, given one direction at a time.
    Explicit { nodes: Vec<String>, links: Vec<ExplicitLink> },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplicitLink {
    pub src: String,
    pub dst: String,
    #[serde(flatten)]
    pub params: LinkParams,
    /// Record this link's queue in the sampled series.
    #[serde(default)]
    pub monitor: bool,
}

/// What a transfer looks like, shared by single flows and generators.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowTemplate {
    pub label: String,
    pub cc: String,
    #[serde(default)]
    pub cc_params: BTreeMap<String, f64>,
    pub mss_bytes: u32,
    #[serde(default)]
    pub max_window_pkts: Option<u64>,
    #[serde(default)]
    pub delayed_ack: Option<bool>,
    /// Send data from the far side: on a dumbbell the sender sits behind the right-hand router
    /// (its data crosses the bottleneck's reverse direction, as the other flows' ACKs do); on the
    /// other topologies `src` and `dst` swap.
    #[serde(default)]
    pub reverse: bool,
    /// The receiver's clock minus the sender's at time 0, ns (signed): what a one-way delay
    /// measured with the two hosts' timestamps is off by. Only one-way delays see it.
    #[serde(default)]
    pub clock_offset_ns: i64,
    /// How fast the receiver's clock runs against the sender's, parts per million (signed): its
    /// reading at true time t is t + offset + drift x 1e-6 x t.
    #[serde(default)]
    pub clock_drift_ppm: f64,
}

/// Largest clock drift a flow's hosts may have, parts per million (10 %).
pub const MAX_CLOCK_DRIFT_PPM: f64 = 100_000.0;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    #[serde(flatten)]
    pub template: FlowTemplate,
    /// Source and destination: node names (explicit), router names `"R<i>"` (parking lot), or
    /// absent (dumbbell).
    #[serde(default)]
    pub src: Option<String>,
    #[serde(default)]
    pub dst: Option<String>,
    /// Requested base RTT: required on a dumbbell, optional on a parking lot.
    #[serde(default)]
    pub rtt_ns: Option<u64>,
    pub start_ns: u64,
    /// Start is drawn uniformly from [start, start + jitter) on the flow's own stream.
    #[serde(default)]
    pub start_jitter_ns: u64,
    /// `None` = infinite (bulk) transfer.
    #[serde(default)]
    pub size_bytes: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    Fixed { bytes: u64 },
    Exponential { mean_bytes: f64 },
    Pareto { mean_bytes: f64, shape: f64 },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ArrivalSpec {
    /// `slots` transfers always active; when one finishes the next starts at once.
    ClosedLoop { slots: u32 },
    /// Poisson arrivals at `rate_per_s`, until `stop_ns` (or the end of the run).
    OpenLoop { rate_per_s: f64, stop_ns: Option<u64> },
}

/// A distribution of base RTTs, drawn once per generator source (slot).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RttDist {
    Uniform { min_ns: u64, max_ns: u64 },
    Exponential { mean_ns: u64 },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorSpec {
    #[serde(flatten)]
    pub template: FlowTemplate,
    pub arrivals: ArrivalSpec,
    pub size: SizeDist,
    pub start_ns: u64,
    /// Dumbbell: base RTTs to draw from, uniformly.
    #[serde(default)]
    pub rtt_choices_ns: Vec<u64>,
    /// Base RTTs drawn from a distribution instead of `rtt_choices_ns`, once per source. A draw
    /// below the path's own round-trip delay is raised to it.
    #[serde(default)]
    pub rtt_dist: Option<RttDist>,
    /// Explicit / parking lot: (src, dst) pairs to draw from, uniformly.
    #[serde(default)]
    pub endpoints: Vec<(String, String)>,
    /// Open loop: number of sources, each with its own endpoints and RTT drawn at the start;
    /// every arrival picks a source uniformly. Default: one source per RTT or endpoint choice.
    #[serde(default)]
    pub sources: Option<u32>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Sample cwnd/ssthresh/srtt/rate per flow and queue length per monitored link at this
    /// interval. `None` = no series.
    #[serde(default)]
    pub sample_interval_ns: Option<u64>,
    /// Record every drop (time, link, flow, seq).
    #[serde(default)]
    pub drops: bool,
    /// Capture packets for pcap files. `None` = no capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap: Option<PcapSpec>,
}

/// Where packets are captured for pcap export (see `crate::pcap`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Flow ids whose packets are captured at their sender's host: data and SYNs leaving it,
    /// ACKs arriving.
    #[serde(default)]
    pub flows: Vec<u32>,
    /// Links named "SRC->DST" (node names) whose entering packets are captured, drops included.
    #[serde(default)]
    pub links: Vec<String>,
}

impl ScenarioSpec {
    /// Parse and [`validate`](Self::validate) a resolved scenario.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let spec: Self = serde_json::from_str(text).map_err(|e| format!("invalid resolved scenario: {e}"))?;
        spec.validate()?;
        Ok(spec)
    }

    /// Reject what the engine cannot run, whoever built the spec: every quantity in its range,
    /// every time below [`MAX_TIME_NS`], counts that fit in memory. The message names the key
    /// (the engine's name for it) and the expected range.
    pub fn validate(&self) -> Result<(), String> {
        check_time("duration_ns", self.duration_ns, 1)?;
        self.stack.validate()?;
        self.topology.validate()?;
        check_count("flows", self.flows.len() as u64)?;
        check_count("generators", self.generators.len() as u64)?;
        self.check_flow_groups()?;
        for (i, f) in self.flows.iter().enumerate() {
            let what = self.flow_key(i);
            f.validate(&what)?;
            if let Some(rtt) = f.rtt_ns {
                self.topology.check_base_rtt(&format!("{what}.rtt"), rtt)?;
            }
        }
        for (i, g) in self.generators.iter().enumerate() {
            let what = format!("generators[{i}]");
            g.validate(&what, self.duration_ns)?;
            for (j, &rtt) in g.rtt_choices_ns.iter().enumerate() {
                self.topology.check_base_rtt(&format!("{what}.rtt_choices[{j}]"), rtt)?;
            }
        }
        if let Some(interval) = self.trace.sample_interval_ns {
            check_time("trace.sample_interval_ns", interval, 0)?;
        }
        if let Some(pcap) = &self.trace.pcap {
            check_count("trace.pcap.flows", pcap.flows.len() as u64)?;
            check_count("trace.pcap.links", pcap.links.len() as u64)?;
        }
        let columns = self.limits.inspect_columns;
        if !(1..=RunLimits::MAX_INSPECT_COLUMNS).contains(&columns) {
            let expected = format!("1..={}", RunLimits::MAX_INSPECT_COLUMNS);
            return Err(out_of_range("limits.inspect_columns", columns, &expected));
        }
        Ok(())
    }
}

fn out_of_range<T: std::fmt::Display>(key: &str, value: T, expected: &str) -> String {
    format!("{key}: {value} is out of range; expected {expected}")
}

fn check_time(key: &str, value: u64, min: u64) -> Result<(), String> {
    if value < min || value > MAX_TIME_NS {
        return Err(out_of_range(key, value, &format!("{min}..={MAX_TIME_NS} ns")));
    }
    Ok(())
}

fn check_count(key: &str, n: u64) -> Result<(), String> {
    if n > MAX_ENTITIES {
        return Err(out_of_range(key, n, &format!("at most {MAX_ENTITIES} entries")));
    }
    Ok(())
}

fn check_float(key: &str, value: f64, min: f64, max: f64) -> Result<(), String> {
    if !(value.is_finite() && value >= min && value <= max) {
        return Err(out_of_range(key, value, &format!("a finite number in {min}..={max}")));
    }
    Ok(())
}

impl ScenarioSpec {
    /// The key of the engine's flow `i` as the user wrote it: `flows[g]` of the group it came
    /// from (every flow of a group is the same, so what is wrong with one is wrong with the
    /// group), or `flows[i]` when the spec carries no groups.
    pub fn flow_key(&self, i: usize) -> String {
        let mut first = 0usize;
        for (g, &count) in self.flow_groups.iter().enumerate() {
            first += count as usize;
            if i < first {
                return format!("flows[{g}]");
            }
        }
        format!("flows[{i}]")
    }

    fn check_flow_groups(&self) -> Result<(), String> {
        let total: u64 = self.flow_groups.iter().map(|&c| u64::from(c)).sum();
        if !self.flow_groups.is_empty() && total != self.flows.len() as u64 {
            return Err(format!(
                "flow_groups: {total} flows in all; expected as many as `flows` ({})",
                self.flows.len()
            ));
        }
        Ok(())
    }
}

impl TopologySpec {
    /// A dumbbell's access links make up what the bottleneck leaves of a flow's base RTT, so the
    /// RTT cannot be below the bottleneck's share (equal: access links without delay).
    pub fn check_base_rtt(&self, key: &str, rtt_ns: u64) -> Result<(), String> {
        match self {
            TopologySpec::Dumbbell { forward, .. } => check_dumbbell_rtt(key, rtt_ns, forward.delay_ns),
            _ => Ok(()),
        }
    }
}

/// The rule behind [`TopologySpec::check_base_rtt`], for a dumbbell whose bottleneck has
/// `bottleneck_delay_ns` of one-way delay.
pub fn check_dumbbell_rtt(key: &str, rtt_ns: u64, bottleneck_delay_ns: u64) -> Result<(), String> {
    let floor = 2 * bottleneck_delay_ns;
    if rtt_ns < floor {
        return Err(format!(
            "{key}: \"{}\" is below twice the bottleneck delay; expected a base RTT of at least \"{}\"",
            format_time(rtt_ns),
            format_time(floor)
        ));
    }
    Ok(())
}

impl StackSpec {
    /// The overrides on their own, then the resolved configuration as a whole (a `max_rto_ns`
    /// below the profile's `min_rto_ns` is as wrong as one below an explicit `min_rto_ns`).
    pub fn validate(&self) -> Result<(), String> {
        let o = &self.overrides;
        // Each written value against its setting's kind and range (tcp::stack_settings::STACK_SETTINGS).
        for (setting, value) in o.written() {
            let key = format!("stack.{}", setting.field);
            match setting.kind {
                SettingKind::Float { min, max } => {
                    check_float(&key, value.as_f64().expect("a number setting"), min, max)?
                }
                SettingKind::Int { min, max } => {
                    let v = value.as_u64().expect("an integer setting");
                    if !(min..=max).contains(&v) {
                        return Err(out_of_range(&key, v, &format!("{min}..={max}")));
                    }
                }
                SettingKind::Time { min_ns } => check_time(&key, value.as_u64().expect("a time setting"), min_ns)?,
                // Serde reads only true, false and the names of the choice.
                SettingKind::Bool | SettingKind::Choice(_) => {}
            }
        }
        if let Some(e) = o.recovery_conflict().or_else(|| o.prr_conflict()) {
            return Err(e);
        }
        let c = StackConfig::resolve(self.profile, o);
        if c.max_rto_ns < c.min_rto_ns {
            // Name the key the scenario wrote: the profile filled in the other one.
            let key = if o.max_rto_ns.is_some() { "max_rto" } else { "min_rto" };
            return Err(format!(
                "stack.{key}: max_rto \"{}\" is below min_rto \"{}\" (profile {} fills in what \
                 [stack] does not set); expected max_rto >= min_rto",
                format_time(c.max_rto_ns),
                format_time(c.min_rto_ns),
                profile_name(self.profile)
            ));
        }
        Ok(())
    }
}

/// Every stack profile, in the order the documentation lists them.
pub const PROFILES: [Profile; 4] = [Profile::Ns2, Profile::Rfc, Profile::LinuxSack, Profile::Linux];

/// A profile's name as written in a scenario (a match, so that a new profile must be added to
/// [`PROFILES`] and named here).
pub fn profile_name(p: Profile) -> &'static str {
    match p {
        Profile::Ns2 => "ns2",
        Profile::Rfc => "rfc",
        Profile::LinuxSack => "linux-sack",
        Profile::Linux => "linux",
    }
}

impl QueueSpec {
    /// The `kind` of every queue discipline, as written in a spec.
    pub const KINDS: &'static [&'static str] = &["droptail", "red", "codel", "fq_codel", "pie", "dualpi2", "step"];

    /// This queue's `kind` (a match, so that a new discipline must be added to [`Self::KINDS`]).
    pub fn kind(&self) -> &'static str {
        match self {
            QueueSpec::Droptail { .. } => "droptail",
            QueueSpec::Red { .. } => "red",
            QueueSpec::Codel { .. } => "codel",
            QueueSpec::FqCodel { .. } => "fq_codel",
            QueueSpec::Pie { .. } => "pie",
            QueueSpec::DualPi2 { .. } => "dualpi2",
            QueueSpec::Step { .. } => "step",
        }
    }

    fn validate(&self, what: &str) -> Result<(), String> {
        let key = |k: &str| format!("{what}.{k}");
        let pkts = |k: &str, v: u64| {
            if v > MAX_QUEUE_PKTS {
                return Err(out_of_range(&key(k), v, &format!("at most {MAX_QUEUE_PKTS} packets")));
            }
            Ok(())
        };
        let positive_pkts =
            |k: &str, v: u64| if v == 0 { Err(out_of_range(&key(k), v, "at least 1 packet")) } else { pkts(k, v) };
        let bytes = |k: &str, v: Option<u64>| match v {
            Some(b) if b > MAX_QUEUE_BYTES => {
                Err(out_of_range(&key(k), b, &format!("at most {MAX_QUEUE_BYTES} bytes")))
            }
            _ => Ok(()),
        };
        match self {
            QueueSpec::Droptail { limit_pkts, limit_bytes } => {
                if let Some(p) = limit_pkts {
                    pkts("limit_pkts", *p)?;
                }
                bytes("limit_bytes", *limit_bytes)?;
            }
            QueueSpec::Red { limit_pkts, min_th, max_th, max_p, w_q, mean_pktsize, .. } => {
                pkts("limit_pkts", *limit_pkts)?;
                // 0: automatic (ns-2).
                check_float(&key("min_th"), *min_th, 0.0, MAX_QUEUE_PKTS as f64)?;
                check_float(&key("max_th"), *max_th, 0.0, MAX_QUEUE_PKTS as f64)?;
                if *min_th > 0.0 && *max_th > 0.0 && max_th <= min_th {
                    return Err(format!(
                        "{}: {max_th} is not above min_th ({min_th}); expected max_th > min_th",
                        key("max_th")
                    ));
                }
                check_float(&key("max_p"), *max_p, f64::MIN_POSITIVE, 1.0)?;
                check_float(&key("w_q"), *w_q, 0.0, 1.0)?;
                if *mean_pktsize == 0 {
                    return Err(out_of_range(&key("mean_pktsize"), mean_pktsize, "at least 1 byte"));
                }
            }
            QueueSpec::Codel { limit_pkts, target_ns, interval_ns, ce_threshold_ns, .. } => {
                positive_pkts("limit_pkts", *limit_pkts)?;
                check_time(&key("target_ns"), *target_ns, 1)?;
                check_time(&key("interval_ns"), *interval_ns, 1)?;
                if let Some(t) = ce_threshold_ns {
                    check_time(&key("ce_threshold_ns"), *t, 0)?;
                }
            }
            QueueSpec::FqCodel {
                limit_pkts,
                target_ns,
                interval_ns,
                flows,
                quantum_bytes,
                ce_threshold_ns,
                ce_threshold_selector,
                ce_threshold_mask,
                ..
            } => {
                positive_pkts("limit_pkts", *limit_pkts)?;
                check_time(&key("target_ns"), *target_ns, 1)?;
                check_time(&key("interval_ns"), *interval_ns, 1)?;
                check_ce_threshold(&key, *ce_threshold_ns, *ce_threshold_selector, *ce_threshold_mask)?;
                if !(1..=65_536).contains(flows) {
                    return Err(out_of_range(&key("flows"), flows, "1..=65536 queues"));
                }
                if !(1..=1 << 20).contains(quantum_bytes) {
                    return Err(out_of_range(&key("quantum_bytes"), quantum_bytes, "1..=1048576 bytes"));
                }
            }
            QueueSpec::Pie { limit_pkts, target_ns, tupdate_ns, alpha, beta, max_burst_ns, l4s_step_ns, .. } => {
                positive_pkts("limit_pkts", *limit_pkts)?;
                check_time(&key("target_ns"), *target_ns, 1)?;
                check_time(&key("tupdate_ns"), *tupdate_ns, 1)?;
                check_time(&key("max_burst_ns"), *max_burst_ns, 0)?;
                if let Some(t) = l4s_step_ns {
                    check_time(&key("l4s_step_ns"), *t, 0)?;
                }
                check_float(&key("alpha"), *alpha, 0.0, 1e6)?;
                check_float(&key("beta"), *beta, 0.0, 1e6)?;
            }
            QueueSpec::DualPi2 {
                limit_pkts,
                target_ns,
                tupdate_ns,
                alpha,
                beta,
                step_thresh_ns,
                min_qlen_step,
                coupling,
                c_weight_pct,
                ecn_mask,
                ..
            } => {
                positive_pkts("limit_pkts", *limit_pkts)?;
                check_time(&key("target_ns"), *target_ns, 0)?;
                check_time(&key("tupdate_ns"), *tupdate_ns, 1)?;
                check_float(&key("alpha"), *alpha, 0.0, 1e6)?;
                check_float(&key("beta"), *beta, 0.0, 1e6)?;
                check_time(&key("step_thresh_ns"), *step_thresh_ns, 0)?;
                pkts("min_qlen_step", *min_qlen_step)?;
                check_float(&key("coupling"), *coupling, 0.001, 1000.0)?;
                if *c_weight_pct > 100 {
                    return Err(out_of_range(&key("c_weight_pct"), c_weight_pct, "0..=100 percent"));
                }
                if !(1..=3).contains(ecn_mask) {
                    return Err(out_of_range(&key("ecn_mask"), ecn_mask, "1..=3 (IP ECN bits: 1 ECT(1), 2 ECT(0))"));
                }
            }
            QueueSpec::Step { limit_pkts, limit_bytes, k_pkts, k_bytes, .. } => {
                if let Some(p) = limit_pkts {
                    pkts("limit_pkts", *p)?;
                }
                bytes("limit_bytes", *limit_bytes)?;
                if let Some(k) = k_pkts {
                    pkts("k_pkts", *k)?;
                }
                bytes("k_bytes", *k_bytes)?;
                if k_pkts.is_none() && k_bytes.is_none() {
                    return Err(format!("{}: missing; expected a marking threshold k_pkts or k_bytes", key("k_pkts")));
                }
            }
        }
        Ok(())
    }
}

/// FQ-CoDel's `ce_threshold` with its selector and mask: both within the IP ECN field (ccsim
/// carries no DSCP), the selector within the mask, and neither without a threshold.
fn check_ce_threshold(
    key: &dyn Fn(&str) -> String,
    threshold_ns: Option<u64>,
    selector: u8,
    mask: u8,
) -> Result<(), String> {
    if let Some(t) = threshold_ns {
        check_time(&key("ce_threshold_ns"), t, 0)?;
    }
    for (name, v) in [("ce_threshold_mask", mask), ("ce_threshold_selector", selector)] {
        if v > 3 {
            return Err(out_of_range(&key(name), v, "0..=3 (IP ECN bits: 1 ECT(1), 2 ECT(0), 3 CE)"));
        }
    }
    if selector & !mask != 0 {
        return Err(format!(
            "{}: {selector} has bits outside ce_threshold_mask ({mask}); expected selector & mask == selector",
            key("ce_threshold_selector")
        ));
    }
    if threshold_ns.is_none() && mask != 0 {
        return Err(format!(
            "{}: {mask} without ce_threshold_ns; expected ce_threshold_ns set, or no mask",
            key("ce_threshold_mask")
        ));
    }
    Ok(())
}

impl LinkParams {
    fn validate(&self, what: &str) -> Result<(), String> {
        let key = |k: &str| format!("{what}.{k}");
        if self.rate_bps == 0 || self.rate_bps > MAX_RATE_BPS {
            return Err(out_of_range(&key("rate_bps"), self.rate_bps, &format!("1..={MAX_RATE_BPS} bit/s")));
        }
        check_time(&key("delay_ns"), self.delay_ns, 0)?;
        check_time(&key("jitter_ns"), self.jitter_ns, 0)?;
        self.queue.validate(&key("queue"))?;
        if let LossSpec::Bernoulli { p } = self.loss {
            if !(p.is_finite() && (0.0..1.0).contains(&p)) {
                return Err(out_of_range(&key("loss.p"), p, "a probability in [0, 1)"));
            }
        }
        if let ReorderSpec::Bernoulli { p, delay_ns } = self.reorder {
            if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
                return Err(out_of_range(&key("reorder.p"), p, "a probability in [0, 1]"));
            }
            check_time(&key("reorder.delay_ns"), delay_ns, 0)?;
        }
        if let Some(s) = &self.rate_schedule {
            s.validate(&key("rate_schedule"), |k, &r| {
                if r > MAX_RATE_BPS {
                    return Err(out_of_range(k, r, &format!("0..={MAX_RATE_BPS} bit/s")));
                }
                Ok(())
            })?;
        }
        if let Some(s) = &self.delay_schedule {
            s.validate(&key("delay_schedule"), |k, &d| check_time(k, d, 0))?;
        }
        if let Some(s) = &self.loss_schedule {
            s.validate(&key("loss_schedule"), |k, &p| {
                if !(p.is_finite() && (0.0..1.0).contains(&p)) {
                    return Err(out_of_range(k, p, "a probability in [0, 1)"));
                }
                Ok(())
            })?;
        }
        if let Some(t) = &self.trace {
            if self.rate_schedule.is_some() {
                return Err(format!("{}: set with a trace; expected one or the other", key("rate_schedule")));
            }
            t.validate(&key("trace"))?;
        }
        if let Some(a) = &self.aggregation {
            a.validate(&key("aggregation"))?;
            for (set, other) in [(self.trace.is_some(), "trace"), (self.rate_schedule.is_some(), "rate_schedule")] {
                if set {
                    return Err(format!(
                        "{}: set with {}; expected aggregation on a link of fixed rate",
                        key("aggregation"),
                        key(other)
                    ));
                }
            }
            if matches!(
                self.queue,
                QueueSpec::Codel { .. } | QueueSpec::FqCodel { .. } | QueueSpec::Pie { .. } | QueueSpec::DualPi2 { .. }
            ) {
                return Err(format!(
                    "{}: set with the queue {:?}; expected a queue that decides on arrival (droptail, red or \
                     step) on an aggregating link",
                    key("aggregation"),
                    self.queue.kind()
                ));
            }
        }
        Ok(())
    }
}

/// The most packets a burst may carry.
pub const MAX_BURST_PACKETS: u32 = 1 << 20;

impl AggregationSpec {
    fn validate(&self, what: &str) -> Result<(), String> {
        let key = |k: &str| format!("{what}.{k}");
        if self.max_packets == 0 || self.max_packets > MAX_BURST_PACKETS {
            return Err(out_of_range(
                &key("max_packets"),
                self.max_packets,
                &format!("1..={MAX_BURST_PACKETS} packets"),
            ));
        }
        check_time(&key("max_time_ns"), self.max_time_ns, 1)?;
        check_time(&key("access_min_ns"), self.access_min_ns, 0)?;
        check_time(&key("access_max_ns"), self.access_max_ns, self.access_min_ns)?;
        Ok(())
    }
}

impl<T> ScheduleSpec<T> {
    /// Instants within bounds and increasing (below the period, if it repeats), each value
    /// checked by `value` (given its key).
    fn validate(&self, what: &str, value: impl Fn(&str, &T) -> Result<(), String>) -> Result<(), String> {
        check_count(&format!("{what}.points"), self.points.len() as u64)?;
        if self.repeat_ns > 0 {
            check_time(&format!("{what}.repeat_ns"), self.repeat_ns, 1)?;
        }
        let mut last = None;
        for (i, (at, v)) in self.points.iter().enumerate() {
            let k = format!("{what}.points[{i}]");
            check_time(&format!("{k}[0]"), *at, 0)?;
            if last.is_some_and(|l| *at <= l) {
                return Err(format!("{k}[0]: {at} is not after the point before; expected increasing instants"));
            }
            if self.repeat_ns > 0 && *at >= self.repeat_ns {
                return Err(out_of_range(
                    &format!("{k}[0]"),
                    at,
                    &format!("an instant below repeat_ns ({})", self.repeat_ns),
                ));
            }
            value(&format!("{k}[1]"), v)?;
            last = Some(*at);
        }
        Ok(())
    }
}

impl OpportunityTrace {
    fn validate(&self, what: &str) -> Result<(), String> {
        check_count(&format!("{what}.ms"), self.ms.len() as u64)?;
        let max_ms = MAX_TIME_NS / 1_000_000;
        let mut last = 0;
        for (i, &ms) in self.ms.iter().enumerate() {
            let k = format!("{what}.ms[{i}]");
            if ms > max_ms {
                return Err(out_of_range(&k, ms, &format!("0..={max_ms} ms")));
            }
            if ms < last {
                return Err(format!("{k}: {ms} is before the entry above ({last}); expected non-decreasing times"));
            }
            last = ms;
        }
        if last == 0 {
            return Err(format!("{what}.ms: the trace lasts no time; expected entries ending after 0 ms"));
        }
        Ok(())
    }
}

impl TopologySpec {
    fn validate(&self) -> Result<(), String> {
        let access = |rate: u64, queue: &QueueSpec| -> Result<(), String> {
            if rate == 0 || rate > MAX_RATE_BPS {
                return Err(out_of_range("topology.access_rate_bps", rate, &format!("1..={MAX_RATE_BPS} bit/s")));
            }
            queue.validate("topology.access_queue")
        };
        match self {
            TopologySpec::Dumbbell { forward, reverse, access_rate_bps, access_queue } => {
                forward.validate("topology.forward")?;
                reverse.validate("topology.reverse")?;
                access(*access_rate_bps, access_queue)?;
            }
            TopologySpec::ParkingLot { routers, forward, reverse, access_rate_bps, access_delay_ns, access_queue } => {
                if *routers < 2 || u64::from(*routers) > MAX_ENTITIES {
                    return Err(out_of_range("topology.routers", routers, &format!("2..={MAX_ENTITIES}")));
                }
                forward.validate("topology.forward")?;
                reverse.validate("topology.reverse")?;
                access(*access_rate_bps, access_queue)?;
                check_time("topology.access_delay_ns", *access_delay_ns, 0)?;
            }
            TopologySpec::Explicit { nodes, links } => {
                check_count("topology.nodes", nodes.len() as u64)?;
                check_count("topology.links", links.len() as u64)?;
                for (i, l) in links.iter().enumerate() {
                    l.params.validate(&format!("topology.links[{i}]"))?;
                }
            }
        }
        Ok(())
    }
}

impl FlowTemplate {
    fn validate(&self, what: &str) -> Result<(), String> {
        if self.mss_bytes == 0 || self.mss_bytes > MAX_MSS_BYTES {
            return Err(out_of_range(
                &format!("{what}.mss_bytes"),
                self.mss_bytes,
                &format!("1..={MAX_MSS_BYTES} bytes"),
            ));
        }
        if let Some(w) = self.max_window_pkts {
            if w == 0 || w > MAX_WINDOW_PKTS {
                return Err(out_of_range(
                    &format!("{what}.max_window_pkts"),
                    w,
                    &format!("1..={MAX_WINDOW_PKTS} packets"),
                ));
            }
        }
        for (name, v) in &self.cc_params {
            if !v.is_finite() {
                return Err(out_of_range(&format!("{what}.cc_params.{name}"), v, "a finite number"));
            }
        }
        if self.clock_offset_ns.unsigned_abs() > MAX_TIME_NS {
            return Err(out_of_range(
                &format!("{what}.clock_offset_ns"),
                self.clock_offset_ns,
                &format!("-{MAX_TIME_NS}..={MAX_TIME_NS} ns"),
            ));
        }
        check_float(
            &format!("{what}.clock_drift_ppm"),
            self.clock_drift_ppm,
            -MAX_CLOCK_DRIFT_PPM,
            MAX_CLOCK_DRIFT_PPM,
        )?;
        Ok(())
    }
}

impl FlowSpec {
    fn validate(&self, what: &str) -> Result<(), String> {
        self.template.validate(what)?;
        check_time(&format!("{what}.start_ns"), self.start_ns, 0)?;
        check_time(&format!("{what}.start_jitter_ns"), self.start_jitter_ns, 0)?;
        if let Some(rtt) = self.rtt_ns {
            check_time(&format!("{what}.rtt_ns"), rtt, 0)?;
        }
        if let Some(size) = self.size_bytes {
            if size == 0 || size > MAX_SIZE_BYTES {
                return Err(out_of_range(&format!("{what}.size_bytes"), size, &format!("1..={MAX_SIZE_BYTES} bytes")));
            }
        }
        Ok(())
    }
}

impl GeneratorSpec {
    fn validate(&self, what: &str, duration_ns: u64) -> Result<(), String> {
        let key = |k: &str| format!("{what}.{k}");
        self.template.validate(what)?;
        check_time(&key("start_ns"), self.start_ns, 0)?;
        match self.arrivals {
            ArrivalSpec::ClosedLoop { slots } => {
                if slots == 0 || u64::from(slots) > MAX_ENTITIES {
                    return Err(out_of_range(&key("arrivals.slots"), slots, &format!("1..={MAX_ENTITIES}")));
                }
            }
            ArrivalSpec::OpenLoop { rate_per_s, stop_ns } => {
                check_float(&key("arrivals.rate_per_s"), rate_per_s, f64::MIN_POSITIVE, f64::MAX)?;
                if let Some(stop) = stop_ns {
                    check_time(&key("arrivals.stop_ns"), stop, 0)?;
                }
                let end = stop_ns.unwrap_or(duration_ns).min(duration_ns);
                let active_s = end.saturating_sub(self.start_ns) as f64 / 1e9;
                let expected = rate_per_s * active_s;
                if expected > MAX_TRANSFERS {
                    return Err(format!(
                        "{}: {rate_per_s} per second for {active_s} s is {expected:.3e} transfers; expected at most {MAX_TRANSFERS:.3e}",
                        key("arrivals.rate_per_s")
                    ));
                }
            }
        }
        match self.size {
            SizeDist::Fixed { bytes } => {
                if bytes == 0 || bytes > MAX_SIZE_BYTES {
                    return Err(out_of_range(&key("size.bytes"), bytes, &format!("1..={MAX_SIZE_BYTES} bytes")));
                }
            }
            SizeDist::Exponential { mean_bytes } => {
                check_float(&key("size.mean_bytes"), mean_bytes, 1.0, MAX_SIZE_BYTES as f64)?
            }
            SizeDist::Pareto { mean_bytes, shape } => {
                check_float(&key("size.mean_bytes"), mean_bytes, 1.0, MAX_SIZE_BYTES as f64)?;
                if !(shape.is_finite() && shape > 1.0 && shape <= 1e6) {
                    return Err(out_of_range(&key("size.shape"), shape, "a number above 1 (at most 1e6)"));
                }
            }
        }
        check_count(&key("rtt_choices_ns"), self.rtt_choices_ns.len() as u64)?;
        for (j, &rtt) in self.rtt_choices_ns.iter().enumerate() {
            check_time(&key(&format!("rtt_choices_ns[{j}]")), rtt, 0)?;
        }
        match self.rtt_dist {
            Some(RttDist::Uniform { min_ns, max_ns }) => {
                check_time(&key("rtt_dist.min_ns"), min_ns, 0)?;
                check_time(&key("rtt_dist.max_ns"), max_ns, min_ns)?;
            }
            // An exponential draw is capped at MAX_TIME_NS where it is drawn.
            Some(RttDist::Exponential { mean_ns }) => check_time(&key("rtt_dist.mean_ns"), mean_ns, 1)?,
            None => {}
        }
        check_count(&key("endpoints"), self.endpoints.len() as u64)?;
        if let Some(s) = self.sources {
            if s == 0 || u64::from(s) > MAX_ENTITIES {
                return Err(out_of_range(&key("sources"), s, &format!("1..={MAX_ENTITIES}")));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_profiles_are_what_serde_reads() {
        for p in PROFILES {
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", profile_name(p)));
        }
        for kind in QueueSpec::KINDS {
            let json = match *kind {
                "droptail" => r#"{"kind":"droptail","limit_pkts":5,"limit_bytes":null}"#.to_string(),
                "codel" => r#"{"kind":"codel","limit_pkts":5,"target_ns":5,"interval_ns":100,"ecn":false}"#.to_string(),
                "fq_codel" => r#"{"kind":"fq_codel","limit_pkts":5,"target_ns":5,"interval_ns":100,"ecn":false,"flows":1024,"quantum_bytes":1500}"#.to_string(),
                "pie" => r#"{"kind":"pie","limit_pkts":5,"target_ns":5,"tupdate_ns":5,"alpha":0.125,"beta":1.25,"max_burst_ns":5,"ecn":true}"#.to_string(),
                "dualpi2" => r#"{"kind":"dualpi2","limit_pkts":5,"target_ns":5,"tupdate_ns":5,"alpha":0.16,"beta":3.2,"step_thresh_ns":5,"min_qlen_step":0,"coupling":2.0,"c_weight_pct":10,"drop_overload":true,"drop_early":false,"ecn_mask":1}"#.to_string(),
                "step" => r#"{"kind":"step","limit_pkts":5,"limit_bytes":null,"k_pkts":3,"k_bytes":null,"ecn":true}"#.to_string(),
                _ => format!(
                    r#"{{"kind":"{kind}","limit_pkts":5,"min_th":1,"max_th":2,"max_p":0.1,"w_q":0.002,"gentle":true,"wait":true,"mean_pktsize":500}}"#
                ),
            };
            let q: QueueSpec = serde_json::from_str(&json).unwrap();
            assert_eq!(q.kind(), *kind);
        }
    }

    fn spec(stack: &str, link: &str) -> String {
        format!(
            r#"{{"name":"t","seed":1,"duration_ns":1000000000,"stack":{{"profile":"ns2","overrides":{{{stack}}}}},
            "topology":{{"kind":"dumbbell","forward":{link},"reverse":{link},"access_rate_bps":1000000,
            "access_queue":{{"kind":"droptail","limit_pkts":100,"limit_bytes":null}}}},
            "flows":[{{"label":"a","cc":"reno","mss_bytes":1000,"rtt_ns":40000000,"start_ns":0}}]}}"#
        )
    }

    const LINK: &str =
        r#"{"rate_bps":1000000,"delay_ns":5000000,"queue":{"kind":"droptail","limit_pkts":10,"limit_bytes":null}}"#;

    #[test]
    fn rejects_what_cannot_run_naming_the_key() {
        assert!(ScenarioSpec::from_json(&spec("", LINK)).is_ok());
        let bad_stack = [
            (r#""max_rto_ns":0"#, "stack.max_rto_ns"),
            (r#""min_rto_ns":0"#, "stack.min_rto_ns"),
            (r#""initial_rto_ns":0"#, "stack.initial_rto_ns"),
            (r#""max_rto_ns":1000000"#, "stack.max_rto:"), // below the ns2 min_rto: the user's key
            (r#""initial_window":-1"#, "stack.initial_window"),
            (r#""dupack_threshold":0"#, "stack.dupack_threshold"),
            (r#""clock_granularity_ns":0"#, "stack.clock_granularity_ns"),
            (r#""max_backoff":0"#, "stack.max_backoff"),
            (r#""sack":true,"recovery":"newreno""#, "stack.sack"),
            (r#""sack":false,"recovery":"sack""#, "stack.sack"),
            (r#""prr":"rfc9937","recovery":"newreno""#, "stack.prr"),
            (r#""prr":"crb","sack":false"#, "stack.prr"),
        ];
        for (o, key) in bad_stack {
            let e = ScenarioSpec::from_json(&spec(o, LINK)).unwrap_err();
            assert!(e.starts_with(key), "{o}: {e}");
        }
        let lossy = LINK.replace("}}", r#"},"loss":{"kind":"bernoulli","p":2.0}}"#);
        let e = ScenarioSpec::from_json(&spec("", &lossy)).unwrap_err();
        assert!(e.starts_with("topology.forward.loss.p"), "{e}");
        let reorder = |r: &str| LINK.replace("}}", &format!(r#"}},"reorder":{{"kind":"bernoulli",{r}}}}}"#));
        assert!(ScenarioSpec::from_json(&spec("", &reorder(r#""p":1.0,"delay_ns":5000000"#))).is_ok());
        let e = ScenarioSpec::from_json(&spec("", &reorder(r#""p":1.5,"delay_ns":5000000"#))).unwrap_err();
        assert_eq!(e, "topology.forward.reorder.p: 1.5 is out of range; expected a probability in [0, 1]");
        let e = ScenarioSpec::from_json(&spec("", &reorder(r#""p":-0.1,"delay_ns":5000000"#))).unwrap_err();
        assert!(e.starts_with("topology.forward.reorder.p: -0.1 is out of range"), "{e}");
        let e = ScenarioSpec::from_json(&spec("", &reorder(r#""p":0.1,"delay_ns":20000000000000000"#))).unwrap_err();
        assert!(e.starts_with("topology.forward.reorder.delay_ns: 20000000000000000 is out of range"), "{e}");
        // A negative delay is no u64: the reader says so, naming the field.
        let e = ScenarioSpec::from_json(&spec("", &reorder(r#""p":0.1,"delay_ns":-5"#))).unwrap_err();
        assert!(e.contains("delay_ns") || e.contains("invalid value: integer `-5`"), "{e}");
        let far = LINK.replace("5000000", "9223372036854775000");
        let e = ScenarioSpec::from_json(&spec("", &far)).unwrap_err();
        assert!(e.starts_with("topology.forward.delay_ns"), "{e}");
    }

    #[test]
    fn single_queue_l4s_options_are_off_unless_written_and_checked_naming_the_key() {
        let fq = |extra: &str| {
            let q = format!(
                r#"{{"kind":"fq_codel","limit_pkts":5,"target_ns":5,"interval_ns":100,"ecn":false,"flows":1024,"quantum_bytes":1500{extra}}}"#
            );
            LINK.replace(r#"{"kind":"droptail","limit_pkts":10,"limit_bytes":null}"#, &q)
        };
        // Absent keys stay absent when written back, so that existing specs keep their bytes.
        let plain: QueueSpec = serde_json::from_str(
            r#"{"kind":"pie","limit_pkts":5,"target_ns":5,"tupdate_ns":5,"alpha":0.125,"beta":1.25,"max_burst_ns":5,"ecn":true}"#,
        )
        .unwrap();
        assert!(!serde_json::to_string(&plain).unwrap().contains("l4s_step_ns"));
        assert!(!serde_json::to_string(&serde_json::from_str::<LinkParams>(&fq("")).unwrap()).unwrap().contains("ce_"));
        let ok = [
            r#","ce_threshold_ns":1000000"#,
            r#","ce_threshold_ns":1000000,"ce_threshold_selector":1,"ce_threshold_mask":3"#,
            r#","ce_threshold_ns":0,"ce_threshold_mask":2"#,
        ];
        for extra in ok {
            assert!(ScenarioSpec::from_json(&spec("", &fq(extra))).is_ok(), "{extra}");
        }
        let bad = [
            (r#","ce_threshold_ns":1000000,"ce_threshold_mask":4"#, "ce_threshold_mask: 4 is out of range"),
            (
                r#","ce_threshold_ns":1000000,"ce_threshold_selector":1,"ce_threshold_mask":2"#,
                "ce_threshold_selector: 1 has bits outside",
            ),
            (r#","ce_threshold_selector":1,"ce_threshold_mask":3"#, "ce_threshold_mask: 3 without ce_threshold_ns"),
            (r#","ce_threshold_ns":20000000000000000"#, "ce_threshold_ns: 20000000000000000 is out of range"),
        ];
        for (extra, msg) in bad {
            let e = ScenarioSpec::from_json(&spec("", &fq(extra))).unwrap_err();
            assert!(e.starts_with(&format!("topology.forward.queue.{msg}")), "{extra}: {e}");
        }
        let pie = LINK.replace(
            r#"{"kind":"droptail","limit_pkts":10,"limit_bytes":null}"#,
            r#"{"kind":"pie","limit_pkts":5,"target_ns":5,"tupdate_ns":5,"alpha":0.125,"beta":1.25,"max_burst_ns":5,"ecn":true,"l4s_step_ns":20000000000000000}"#,
        );
        let e = ScenarioSpec::from_json(&spec("", &pie)).unwrap_err();
        assert!(e.starts_with("topology.forward.queue.l4s_step_ns: 20000000000000000 is out of range"), "{e}");
    }

    #[test]
    fn rules_between_settings_are_told_in_the_users_keys_and_units() {
        let e = ScenarioSpec::from_json(&spec(r#""max_rto_ns":150000000"#, LINK)).unwrap_err();
        assert_eq!(
            e,
            "stack.max_rto: max_rto \"150ms\" is below min_rto \"200ms\" (profile ns2 fills in what \
             [stack] does not set); expected max_rto >= min_rto"
        );
        // Only min_rto written: the profile's max_rto (ns-2: 60 s) is what it contradicts.
        let e = ScenarioSpec::from_json(&spec(r#""min_rto_ns":101000000000"#, LINK)).unwrap_err();
        assert!(e.starts_with(r#"stack.min_rto: max_rto "60s" is below min_rto "101s""#), "{e}");
        let e = ScenarioSpec::from_json(&spec(r#""sack":true,"recovery":"newreno""#, LINK)).unwrap_err();
        assert!(e.starts_with(r#"stack.sack: true contradicts recovery = "newreno"; expected false"#), "{e}");
    }

    /// The spec of [`spec`] with `flows` flows of RTT `rtt_ms` in groups `groups`.
    fn grouped(flows: usize, rtt_ms: &str, groups: &str) -> String {
        let flow = format!(r#"{{"label":"a","cc":"reno","mss_bytes":1000,"rtt_ns":{rtt_ms}000000,"start_ns":0}}"#);
        let all = vec![flow; flows].join(",");
        let text = spec("", LINK).replace(
            r#""flows":[{"label":"a","cc":"reno","mss_bytes":1000,"rtt_ns":40000000,"start_ns":0}]"#,
            &format!(r#""flows":[{all}]{groups}"#),
        );
        assert!(text.contains(&all));
        text
    }

    #[test]
    fn a_flow_is_named_by_the_group_the_user_wrote() {
        let spec = ScenarioSpec::from_json(&grouped(5, "40", r#","flow_groups":[2,3]"#)).unwrap();
        let keys: Vec<String> = (0..5).map(|i| spec.flow_key(i)).collect();
        assert_eq!(keys, ["flows[0]", "flows[0]", "flows[1]", "flows[1]", "flows[1]"]);
        // Without groups, the engine's own index; with groups that do not add up, an error.
        let plain = ScenarioSpec::from_json(&grouped(5, "40", "")).unwrap();
        assert_eq!(plain.flow_key(4), "flows[4]");
        let e = ScenarioSpec::from_json(&grouped(5, "40", r#","flow_groups":[2,2]"#)).unwrap_err();
        assert!(e.starts_with("flow_groups: 4 flows in all; expected as many as `flows` (5)"), "{e}");
    }

    #[test]
    fn a_dumbbell_rtt_below_the_bottleneck_share_names_the_group_and_the_floor() {
        // LINK has 5 ms of delay: the floor is 10 ms.
        let e = ScenarioSpec::from_json(&grouped(3, "9", r#","flow_groups":[3]"#)).unwrap_err();
        assert_eq!(
            e,
            r#"flows[0].rtt: "9ms" is below twice the bottleneck delay; expected a base RTT of at least "10ms""#
        );
        assert!(ScenarioSpec::from_json(&grouped(3, "10", r#","flow_groups":[3]"#)).is_ok(), "exactly twice");
    }
}
