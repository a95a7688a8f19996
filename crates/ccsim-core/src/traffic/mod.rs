//! Traffic: flows (bulk or finite transfers) and the generators that create transfers over time.
//!
//! Common random numbers: every draw is keyed by what it is for, not by when it happens. A flow's
//! start comes from the flow's own stream; transfer k of a generator slot draws its size from a
//! stream keyed by (generator, slot, k), so two runs that differ only in protocol see the same
//! workload even though transfers finish, and so start, at different times.

use crate::net::link::NodeId;
use crate::net::Endpoints;
use crate::rng::{exponential, pareto, stream, uniform, Entity, Purpose, Stream};
use crate::spec::{ArrivalSpec, FlowTemplate, RttDist, SizeDist};
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::Sender;
use crate::units::{Dur, Time};

/// One TCP transfer: sender, receiver and what the results table reports about it.
pub struct Flow {
    pub label: String,
    pub endpoints: Endpoints,
    pub path: PathSummary,
    pub start: Time,
    pub size_bytes: Option<u64>,
    pub base_rtt: Dur,
    pub sender: Sender,
    pub receiver: Receiver,
    pub started: bool,
    /// (generator, slot) for generated transfers.
    pub origin: Option<(u32, u32)>,
    /// Bytes acknowledged at the previous series sample.
    pub sampled_bytes: u64,
}

/// Where a generator's transfers run: endpoints, routes and base RTT.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    pub endpoints: Endpoints,
    pub data_route: u32,
    pub ack_route: u32,
    pub base_rtt: Dur,
    pub path: PathSummary,
}

/// Where a flow's data crosses the network between its hosts: the first and last router on the
/// data path (the path without a host's single access link at either end), the links between
/// them, and whether the data runs against the order of the nodes (R2 -> R1 on a dumbbell,
/// towards lower-numbered routers on a parking lot, backwards in `topology.nodes` on an explicit
/// topology).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathSummary {
    pub src_router: NodeId,
    pub dst_router: NodeId,
    pub hops: u32,
    pub reverse: bool,
}

pub struct Generator {
    pub id: u32,
    pub template: FlowTemplate,
    pub arrivals: ArrivalSpec,
    pub size: SizeDist,
    pub start: Time,
    /// Closed loop: one placement per slot. Open loop: the placements to draw from.
    pub placements: Vec<Placement>,
    /// Transfers started so far, per slot (closed loop) or in all (open loop, index 0).
    pub started: Vec<u64>,
    /// Open loop: the arrival process.
    pub arrival_rng: Stream,
    pub seed: u64,
}

fn transfer_key(generator: u32, slot: u32, k: u64) -> u64 {
    ((generator as u64) << 48) ^ ((slot as u64) << 32) ^ k
}

impl Generator {
    /// Draw a transfer size; at least one byte.
    pub fn size_of(&self, slot: u32, k: u64) -> u64 {
        let mut rng = stream(self.seed, Entity::Transfer, transfer_key(self.id, slot, k), Purpose::Size);
        let bytes = match self.size {
            SizeDist::Fixed { bytes } => bytes as f64,
            SizeDist::Exponential { mean_bytes } => exponential(&mut rng, mean_bytes),
            SizeDist::Pareto { mean_bytes, shape } => pareto(&mut rng, mean_bytes, shape),
        };
        (bytes.round() as u64).max(1)
    }

    /// Open loop: which placement arrival `k` uses.
    pub fn placement_of(&self, k: u64) -> usize {
        if self.placements.len() == 1 {
            return 0;
        }
        let mut rng = stream(self.seed, Entity::Transfer, transfer_key(self.id, u32::MAX, k), Purpose::Endpoints);
        ((uniform(&mut rng) * self.placements.len() as f64) as usize).min(self.placements.len() - 1)
    }

    /// Open loop: time to the next arrival.
    pub fn next_gap(&mut self) -> Dur {
        match self.arrivals {
            ArrivalSpec::OpenLoop { rate_per_s, .. } => {
                crate::units::from_secs(exponential(&mut self.arrival_rng, 1.0 / rate_per_s)).max(1)
            }
            ArrivalSpec::ClosedLoop { .. } => unreachable!("closed-loop generators have no arrival process"),
        }
    }
}

/// Which of `choices` a generator source (slot) uses, for the given purpose; fixed per source.
pub fn slot_choice(seed: u64, generator: u32, slot: u32, choices: usize, purpose: Purpose) -> usize {
    if choices <= 1 {
        return 0;
    }
    let mut rng = stream(seed, Entity::Transfer, transfer_key(generator, slot, u64::MAX >> 16), purpose);
    ((uniform(&mut rng) * choices as f64) as usize).min(choices - 1)
}

/// A source's base RTT drawn from a distribution.
pub fn draw_rtt(seed: u64, generator: u32, slot: u32, dist: &RttDist) -> Dur {
    let mut rng = stream(seed, Entity::Transfer, transfer_key(generator, slot, u64::MAX >> 16), Purpose::Rtt);
    match *dist {
        RttDist::Uniform { min_ns, max_ns } => {
            min_ns + (uniform(&mut rng) * max_ns.saturating_sub(min_ns) as f64) as u64
        }
        RttDist::Exponential { mean_ns } => exponential(&mut rng, mean_ns as f64) as u64,
    }
}
