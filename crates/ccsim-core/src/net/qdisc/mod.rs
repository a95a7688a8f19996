//! Queue disciplines as admission policies.
//!
//! Links are FIFO: a packet's departure time is fixed when it is admitted, so a discipline only
//! decides, at arrival, whether the packet enters (DropTail, RED). Disciplines that drop at
//! dequeue would need a different link model.

pub mod droptail;
pub mod red;

pub use droptail::DropTail;
pub use red::Red;

use crate::units::Time;

/// The queue as an arriving packet finds it.
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    pub now: Time,
    /// Packets waiting (not counting the one being transmitted).
    pub len_pkts: usize,
    pub len_bytes: u64,
    /// Whether the arrival must wait (the link is busy).
    pub must_wait: bool,
    /// When the link became idle, if it is idle now.
    pub idle_since: Option<Time>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Buffer overflow or a forced drop.
    DropOverflow,
    /// An early (probabilistic) drop.
    DropEarly,
}

pub enum Qdisc {
    DropTail(DropTail),
    Red(Box<Red>),
}

impl Qdisc {
    /// RED's average queue length, packets; `None` for disciplines without one.
    pub fn average(&self) -> Option<f64> {
        match self {
            Qdisc::DropTail(_) => None,
            Qdisc::Red(r) => Some(r.avg),
        }
    }

    #[inline]
    pub fn admit(&mut self, q: &QueueView, size: u32) -> Verdict {
        match self {
            Qdisc::DropTail(d) => d.admit(q, size),
            Qdisc::Red(r) => r.admit(q, size),
        }
    }
}
