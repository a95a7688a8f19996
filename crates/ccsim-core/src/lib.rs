//! # ccsim-core
//!
//! A packet-level discrete-event simulator for TCP congestion control.
//!
//! Layers, bottom up:
//! * [`units`], [`rng`]: integer time, rates and sizes; seeded random streams.
//! * [`net`]: packets, links (FIFO queue + transmitter + propagation pipe), queue disciplines
//!   (DropTail, RED), random loss, shortest-path routing, built-in topologies.
//! * [`tcp`]: the one-way TCP sender and receiver, RTT estimation, stack profiles.
//! * [`cc`]: the congestion-control trait, the registry, one file per algorithm.
//! * [`traffic`]: bulk flows, finite transfers, closed- and open-loop generators.
//! * [`engine`]: the event queue and the run loop; [`results`] and [`trace`]: output columns.
//!
//! Determinism: the core reads no clock and no OS entropy. Every random draw comes from a stream
//! keyed by (scenario seed, entity, purpose), events at equal times run in insertion order, and
//! nothing iterates a hash map on an output path. The same resolved scenario gives the same
//! tables, bit for bit, on any machine.

// No unsafe code, with one reviewed exception: the cache prefetch hints of the links' pipes
// (`net/ring.rs`), which cannot fault and change no result.
#![deny(unsafe_code)]

pub mod cc;
pub mod engine;
pub mod math;
pub mod net;
pub mod results;
pub mod rng;
pub mod spec;
pub mod tcp;
pub mod trace;
pub mod traffic;
pub mod units;

pub use engine::Simulation;
pub use results::RunResults;
pub use spec::ScenarioSpec;

/// Version of the engine.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
