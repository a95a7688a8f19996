//! A FIFO of packets stamped with their enqueue time: the storage of the disciplines that decide
//! at dequeue (they need each packet's sojourn time when it leaves).

use std::collections::VecDeque;

use crate::net::packet::Packet;
use crate::units::Time;

#[derive(Default)]
pub struct StampedFifo {
    pkts: VecDeque<(Time, Packet)>,
    bytes: u64,
}

impl StampedFifo {
    pub fn push(&mut self, now: Time, pkt: Packet) {
        self.bytes += pkt.size as u64;
        self.pkts.push_back((now, pkt));
    }

    /// The head packet and its enqueue time.
    pub fn pop(&mut self) -> Option<(Time, Packet)> {
        let (t, pkt) = self.pkts.pop_front()?;
        self.bytes -= pkt.size as u64;
        Some((t, pkt))
    }

    pub fn len(&self) -> usize {
        self.pkts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn iter(&self) -> impl Iterator<Item = &(Time, Packet)> {
        self.pkts.iter()
    }
}
