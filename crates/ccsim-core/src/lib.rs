//! # ccsim-core
//!
//! A packet-level discrete-event simulator for TCP congestion control.
//!
//! Layers, bottom up. A module imports only modules on lower lines (tests and doc links aside),
//! so no two modules import each other:
//! * [`units`], [`math`], [`rng`]: integer time, rates and sizes; deterministic maths; seeded
//!   random streams. [`profile`]: which implementation a run models (ns-2, the RFCs, Linux).
//!   [`grow`]: growing the records of a run without aborting when memory runs out.
//! * [`event`]: the event scheduler (events, the event queue, lazily re-armed timers).
//! * [`net`]: packets, links (queue discipline + transmitter + propagation pipe), queue
//!   disciplines, random loss, routes, and the fabric that carries packets between endpoints
//!   and records the drops. It knows nothing of TCP: endpoints hand it packets and get them back.
//! * [`cc`]: the congestion-control trait, the registry, one file per algorithm.
//! * [`tcp`]: the one-way TCP sender and receiver, RTT estimation, loss recovery, the
//!   stack settings ([`tcp::stack_settings`]).
//! * [`spec`]: the resolved scenario. [`traffic`]: bulk flows, finite transfers, closed- and
//!   open-loop generators.
//! * [`trace`] and [`results`]: output columns; [`pcap`]: captured packets as pcap files.
//! * [`engine`]: builds a run from a scenario (topologies included) and runs the event loop,
//!   dispatching each event to the network or an endpoint.
//!
//! Determinism: the core reads no clock and no OS entropy. Every random draw comes from a stream
//! keyed by (scenario seed, entity, purpose), events at equal times run in an order computed from
//! the events and the time (not from when they were scheduled; see [`event`]), and nothing
//! iterates a hash map on an output path. The same resolved scenario gives the same
//! tables, bit for bit, on any machine.

// No unsafe code, with one reviewed exception: the cache prefetch hints of the links' pipes
// (`net/ring.rs`), which cannot fault and change no result.
#![deny(unsafe_code)]

pub mod cc;
pub mod engine;
pub mod event;
pub mod grow;
pub mod math;
pub mod net;
pub mod pcap;
pub mod profile;
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
