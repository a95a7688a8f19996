//! Reordering on a link direction: each packet, independently with probability `p`, is held back
//! for an extra `delay` once it has crossed the link, and the packets behind it overtake it.
//!
//! The draw is made as a packet enters the link's pipe, from the link's own stream, and marked on
//! its pipe entry as a loss is; when the packet reaches the far end, a held packet moves into the
//! link's holding line (below) instead of leaving. It no longer occupies the queue or the
//! transmitter, so it delays nothing behind it. The delay is the same for every packet and packets
//! reach the far end in time order, so the holding line is released in the order it fills: a FIFO
//! with one pending event for its head, like the pipe.

use super::packet::Packet;
use super::ring::Ring;
use crate::rng::{uniform, Stream};
use crate::units::{Dur, Time};

/// A link's reordering: the draw and the packets held back.
pub struct Reorder {
    p: f64,
    delay: Dur,
    rng: Stream,
    /// Packets held back, with the time each leaves the link (non-decreasing).
    held: Ring<(Time, Packet)>,
    /// Packets held back so far.
    pub count: u64,
}

impl Reorder {
    /// Reordering with probability `p` in (0, 1] and a positive `delay`.
    pub fn new(p: f64, delay: Dur, rng: Stream) -> Self {
        assert!(p > 0.0 && p <= 1.0 && delay > 0, "reordering needs 0 < p <= 1 and a delay");
        Reorder { p, delay, rng, held: Ring::default(), count: 0 }
    }

    /// The extra delay of a held packet.
    pub fn delay(&self) -> Dur {
        self.delay
    }

    /// The draw for the packet now entering the pipe: whether it will be held back.
    #[inline]
    pub fn holds(&mut self) -> bool {
        uniform(&mut self.rng) < self.p
    }

    /// Hold back `pkt`, which reached the far end at `now`. Returns the time it leaves, when it
    /// is the only packet held (the caller schedules the line's head event then).
    pub fn hold(&mut self, pkt: Packet, now: Time) -> Option<Time> {
        let at = now + self.delay;
        self.held.push_back((at, pkt));
        self.count += 1;
        (self.held.len() == 1).then_some(at)
    }

    /// When the first packet held back leaves, if any.
    pub fn head_time(&self) -> Option<Time> {
        self.held.front().map(|&(t, _)| t)
    }

    /// Release the first packet held back (its time has come).
    pub fn release(&mut self) -> Packet {
        let (_, pkt) = self.held.pop_front().expect("release with nothing held back");
        pkt
    }

    /// The packets held back.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> + '_ {
        self.held.iter().map(|(_, p)| p)
    }
}
