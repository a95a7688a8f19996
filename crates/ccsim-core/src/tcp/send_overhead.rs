//! ns-2's `overhead_`: a host's random delay between deciding to send a segment and the segment
//! leaving, uniform in [0, max]. Segments keep their order (each leaves no earlier than the one
//! before it), so the holding queue's head is always the next due and one timer serves it.
//!
//! Without any such noise a simulated network is perfectly deterministic, and flows whose
//! packets reach a full DropTail queue at fixed phases can be locked out (Floyd & Jacobson,
//! "On traffic phase effects in packet-switched gateways", 1992).

use std::collections::VecDeque;

use crate::net::packet::Packet;
use crate::rng::{uniform, Stream};
use crate::units::{Dur, Time};

pub struct SendOverhead {
    max: Dur,
    rng: Stream,
    held: VecDeque<(Time, Packet)>,
    last_release: Time,
}

impl SendOverhead {
    pub fn new(max: Dur, rng: Stream) -> Self {
        SendOverhead { max, rng, held: VecDeque::new(), last_release: 0 }
    }

    /// Hold a packet decided at `now`; returns its release time.
    pub fn hold(&mut self, pkt: Packet, now: Time) -> Time {
        let delay = (uniform(&mut self.rng) * self.max as f64) as Dur;
        let at = (now + delay).max(self.last_release);
        self.last_release = at;
        self.held.push_back((at, pkt));
        at
    }

    /// The next held packet if it is due by `now`.
    pub fn due(&mut self, now: Time) -> Option<Packet> {
        match self.held.front() {
            Some(&(at, _)) if at <= now => self.held.pop_front().map(|(_, p)| p),
            _ => None,
        }
    }

    /// When the next held packet is due.
    pub fn next_release(&self) -> Option<Time> {
        self.held.front().map(|&(at, _)| at)
    }

    /// Data packets held (sent by the sender's count, not yet in the network).
    pub fn held(&self) -> impl Iterator<Item = &Packet> {
        self.held.iter().map(|(_, p)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    fn pkt(seq: u32) -> Packet {
        Packet::test_data(seq, 1040)
    }

    #[test]
    fn delays_are_bounded_and_order_is_kept() {
        let mut o = SendOverhead::new(1_000, stream(1, Entity::Flow, 0, Purpose::Jitter));
        let mut last = 0;
        for seq in 0..1000 {
            let at = o.hold(pkt(seq), 5_000);
            assert!((5_000..=6_000).contains(&at));
            assert!(at >= last);
            last = at;
        }
        let mut seqs = Vec::new();
        while let Some(p) = o.due(6_000) {
            seqs.push(p.seq);
        }
        assert_eq!(seqs, (0..1000).collect::<Vec<_>>());
    }
}
