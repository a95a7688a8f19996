//! The resolved scenario: the contract between the Python front end and the engine.
//!
//! Python parses the user's TOML (units as strings, "1bdp" buffers, flow groups with `count`) and
//! hands the engine this plain structure as JSON: every quantity an integer in nanoseconds, bits
//! per second, bytes or packets, every default filled in except those that belong to the stack
//! profile. Unknown keys are rejected so that the two sides cannot drift apart silently.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::tcp::profile::{Profile, StackOverrides};

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
    /// Random Early Detection (Floyd & Jacobson 1993, ns-2 variant). Thresholds in packets.
    Red {
        limit_pkts: u64,
        min_th: f64,
        max_th: f64,
        max_p: f64,
        w_q: f64,
        gentle: bool,
        wait: bool,
        mean_pktsize: u32,
    },
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossSpec {
    #[default]
    None,
    /// Each packet crossing the link is dropped independently with probability `p`.
    Bernoulli { p: f64 },
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
    /// Random per-packet processing delay at the router feeding this link: each packet reaches
    /// the queue after a uniform delay in [0, jitter_ns], in order. 0 = none.
    #[serde(default)]
    pub jitter_ns: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologySpec {
    /// Senders -> R1 -> R2 -> receivers. Each flow (or generator slot) gets its own access links,
    /// with delays chosen to give the flow its requested base RTT.
    Dumbbell {
        forward: LinkParams,
        reverse: LinkParams,
        access_rate_bps: u64,
        access_queue: QueueSpec,
    },
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
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    #[serde(flatten)]
    pub template: FlowTemplate,
    /// Source and destination: node names (explicit), router names "R<i>" (parking lot), or
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
}

impl ScenarioSpec {
    pub fn from_json(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("invalid resolved scenario: {e}"))
    }
}
