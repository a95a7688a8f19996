//! What changes on a link during a run: its transmitter's rate (a schedule, or a trace of
//! delivery opportunities), its propagation delay and its loss probability.
//!
//! The rules (stated for users in docs/links.md):
//! - A rate change applies from its instant to the packet in transmission (its remaining bits go
//!   at the new rate) and to every packet behind it. At rate 0 nothing is sent: the packet in
//!   transmission stops and resumes when the rate is positive again; arrivals queue behind it
//!   and the queue discipline drops as it would at any other time.
//! - A packet's propagation delay is the one in effect when its last bit leaves the transmitter.
//!   After a delay drop a packet may not overtake the one before it: it leaves the link no
//!   earlier than that one (packets stay in order).
//! - A packet's loss draw uses the probability in effect when its last bit leaves the
//!   transmitter.
//!
//! Every schedule is known in advance, so all of this is worked out when a packet is queued (or,
//! under a discipline that decides at dequeue, when its transmission starts): a changing link
//! keeps one pending event, for its pipe's head, like any other, and spends nothing on the
//! changes themselves. A link without changes has none of this state and takes none of its
//! branches.
//!
//! Aggregation ([`crate::net::aggregation`]) sends at the link's fixed rate in bursts; it is
//! carried here so that it takes the same special path, and combines with delay and loss
//! schedules (the delay in effect when a burst's last bit leaves, the loss probability when the
//! packet's own last bit leaves).

use super::aggregation::{Aggregation, Placement};
use super::schedule::{Schedule, Transmission, NEVER};
use super::trace_link::TraceLink;
use crate::rng::{uniform, Stream};
use crate::units::{tx_time, Dur, Time};

/// How a changing link's transmitter sends.
pub enum Transmitter {
    /// At the link's fixed rate (only the delay or the loss probability changes).
    Fixed { rate_bps: u64 },
    /// At a scheduled rate, bit/s.
    Scheduled(Schedule<u64>),
    /// In the opportunities of a trace.
    Trace(TraceLink),
}

/// A link's changes and the state they need.
pub struct Changes {
    transmitter: Transmitter,
    delay: Option<Schedule<Dur>>,
    /// The loss probability's schedule and the link's loss stream (one draw per packet).
    loss: Option<(Schedule<f64>, Stream)>,
    /// When the last packet put in the pipe leaves it.
    last_exit: Time,
    /// Packets go in bursts (with a [`Transmitter::Fixed`] transmitter only).
    aggregation: Option<Aggregation>,
}

impl Changes {
    pub fn new(transmitter: Transmitter, delay: Option<Schedule<Dur>>, loss: Option<(Schedule<f64>, Stream)>) -> Self {
        Changes { transmitter, delay, loss, last_exit: 0, aggregation: None }
    }

    /// The same changes, sending in bursts (the transmitter is to be [`Transmitter::Fixed`]).
    pub fn with_aggregation(mut self, aggregation: Aggregation) -> Self {
        debug_assert!(matches!(self.transmitter, Transmitter::Fixed { .. }), "aggregation at a fixed rate");
        self.aggregation = Some(aggregation);
        self
    }

    /// Whether packets go in bursts.
    #[inline]
    pub fn aggregates(&self) -> bool {
        self.aggregation.is_some()
    }

    /// The airtime after `t` of the packets queued so far, on an aggregating link (None on
    /// another: there the transmitter is busy without a break until its last packet's end).
    pub fn airtime_after(&self, t: Time) -> Option<Dur> {
        self.aggregation.as_ref().map(|a| a.airtime_after(t))
    }

    /// Place a packet of `bytes` bytes queued at `now` in a burst (an aggregating link only).
    pub fn place(&mut self, now: Time, bytes: u32) -> Placement {
        self.aggregation.as_mut().expect("a link that aggregates").place(now, bytes)
    }

    /// The transmission of a packet of `bytes` bytes that can start at `ready`.
    pub fn transmit(&mut self, ready: Time, bytes: u32) -> Transmission {
        match &mut self.transmitter {
            Transmitter::Fixed { rate_bps } => {
                let tx = tx_time(bytes, *rate_bps);
                Transmission { start: ready, end: ready + tx, busy: tx }
            }
            Transmitter::Scheduled(rates) => rates.transmit(ready, bytes),
            Transmitter::Trace(trace) => trace.transmit(ready, bytes),
        }
    }

    /// When a packet whose last bit left the transmitter at `end` leaves the far end: after the
    /// delay then in effect (`fixed` without a delay schedule), and not before the packet ahead.
    pub fn exit(&mut self, end: Time, fixed: Dur) -> Time {
        if end >= NEVER {
            return NEVER;
        }
        let delay = self.delay.as_ref().map_or(fixed, |d| d.at(end));
        let exit = (end + delay).max(self.last_exit).min(NEVER);
        self.last_exit = exit;
        exit
    }

    /// The loss draw of a packet whose last bit left the transmitter at `end`, when the loss
    /// probability is scheduled (None: the link's own loss model draws).
    pub fn lost(&mut self, end: Time) -> Option<bool> {
        let (schedule, rng) = self.loss.as_mut()?;
        Some(uniform(rng) < schedule.at(end))
    }

    /// The trace the transmitter follows, if any.
    pub fn trace(&self) -> Option<&TraceLink> {
        match &self.transmitter {
            Transmitter::Trace(t) => Some(t),
            _ => None,
        }
    }
}
