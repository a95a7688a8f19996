//! A link whose transmitter follows a recorded trace of delivery opportunities, in Mahimahi's
//! format: each entry a millisecond at which up to [`OPPORTUNITY_BYTES`] may leave (entries
//! repeat for several at once), the whole trace looping with a period of its last entry.
//!
//! The rules, as in Mahimahi's link emulator:
//! - An opportunity at time t serves the packets that have reached the link by t, in queue order:
//!   the head packet takes bytes from it; a packet that finishes with bytes to spare leaves them to
//!   the next packet waiting; a packet larger than what is left continues at the next opportunity.
//! - A packet leaves the transmitter at the opportunity that carries its last byte.
//! - Bytes of an opportunity that no waiting packet uses are lost.
//!
//! The one difference: Mahimahi works in whole milliseconds and a packet arriving within the
//! millisecond of an opportunity misses it; here time is in nanoseconds and a packet arriving at
//! the opportunity's exact instant is served by it.
//!
//! The opportunities a packet uses depend only on when it can start (its arrival, or the end of
//! the packet before it) and on what the packets before it used, so they are worked out when the
//! packet is queued, as a fixed-rate link works out its transmission time.

use super::schedule::{Transmission, NEVER};
use crate::units::{Dur, Time, NS_PER_MS, NS_PER_S};

/// Bytes one delivery opportunity carries: one 1500-byte packet (an Ethernet MTU).
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// A trace's opportunities and where the transmitter stands in them.
#[derive(Clone, Debug)]
pub struct TraceLink {
    /// Opportunity instants within one period, ns, non-decreasing; the last is the period.
    at: Vec<Time>,
    period: Dur,
    /// The opportunity in use, counted from the first of the run (period after period), and the
    /// bytes it has left.
    current: u64,
    left: u32,
}

impl TraceLink {
    /// A trace from its entries in milliseconds: non-empty, non-decreasing, the last positive
    /// (checked by the scenario's validation).
    pub fn new(ms: &[u64]) -> Self {
        assert!(!ms.is_empty() && ms.windows(2).all(|w| w[0] <= w[1]), "a trace is non-decreasing");
        let at: Vec<Time> = ms.iter().map(|&m| m * NS_PER_MS).collect();
        let period = *at.last().expect("not empty");
        assert!(period > 0, "a trace lasts a positive time");
        TraceLink { at, period, current: 0, left: OPPORTUNITY_BYTES }
    }

    /// The mean capacity, bit/s (rounded down, at least 1).
    pub fn mean_rate_bps(&self) -> u64 {
        let bits = self.at.len() as u128 * OPPORTUNITY_BYTES as u128 * 8 * NS_PER_S as u128;
        ((bits / self.period as u128) as u64).max(1)
    }

    /// The time of opportunity `i` (counted from the first of the run).
    fn time_of(&self, i: u64) -> Time {
        let n = self.at.len() as u64;
        ((i / n) * self.period + self.at[(i % n) as usize]).min(NEVER)
    }

    /// The first opportunity at or after `t`.
    fn first_from(&self, t: Time) -> u64 {
        let n = self.at.len() as u64;
        // The cycle whose opportunities end at or after `t`: at a multiple of the period, the one
        // ending there (its last opportunity is at `t`).
        let cycle = t.saturating_sub(1) / self.period;
        let base = cycle * self.period;
        let i = self.at.partition_point(|&a| base + a < t) as u64;
        cycle * n + i
    }

    /// Send `bytes` bytes that can start at `ready` (the packet has arrived and the one before it
    /// has left): the opportunities they use, from the first to the one carrying the last byte.
    /// `busy` is the time the packet would take at the trace's mean rate, so that a link's
    /// utilization is the share of the trace's capacity it used.
    pub fn transmit(&mut self, ready: Time, bytes: u32) -> Transmission {
        if self.left == 0 {
            self.current += 1;
            self.left = OPPORTUNITY_BYTES;
        }
        if self.time_of(self.current) < ready {
            // The opportunities in between found nobody waiting: lost.
            self.current = self.first_from(ready);
            self.left = OPPORTUNITY_BYTES;
        }
        let start = self.time_of(self.current);
        let mut rest = bytes;
        loop {
            let take = rest.min(self.left);
            rest -= take;
            self.left -= take;
            if rest == 0 {
                break;
            }
            self.current += 1;
            self.left = OPPORTUNITY_BYTES;
        }
        let end = self.time_of(self.current);
        let per_period = self.at.len() as u128 * OPPORTUNITY_BYTES as u128;
        let busy = (bytes as u128 * self.period as u128).div_ceil(per_period) as Dur;
        Transmission { start, end, busy }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = NS_PER_MS;

    #[test]
    fn each_opportunity_carries_one_full_packet_and_repeated_entries_carry_several() {
        let mut t = TraceLink::new(&[1, 1, 3, 4]);
        assert_eq!(t.mean_rate_bps(), 4 * 1500 * 8 * 1000 / 4);
        let ends: Vec<Time> = (0..6).map(|_| t.transmit(0, 1500).end).collect();
        // Two at 1 ms, one at 3 and 4, then the trace loops (period 4 ms): 5 ms twice.
        assert_eq!(ends, [MS, MS, 3 * MS, 4 * MS, 5 * MS, 5 * MS]);
    }

    #[test]
    fn small_packets_share_an_opportunity_and_a_large_one_spans_several() {
        let mut t = TraceLink::new(&[1, 2, 3, 4]);
        let ends: Vec<Time> = [500, 500, 500, 1000, 1000].iter().map(|&b| t.transmit(0, b).end).collect();
        // 1500 bytes at 1 ms: three 500-byte packets; then 1000 at 2 ms, 500 left, and the next
        // 1000 takes those and 500 of the 3 ms opportunity.
        assert_eq!(ends, [MS, MS, MS, 2 * MS, 3 * MS]);
        let big = t.transmit(0, 4000);
        assert_eq!((big.start, big.end), (3 * MS, 5 * MS), "1000 left at 3 ms, 1500 at 4 and 5 ms");
    }

    #[test]
    fn opportunities_with_nobody_waiting_are_lost() {
        let mut t = TraceLink::new(&[1, 2, 3, 4]);
        assert_eq!(t.transmit(0, 100).end, MS);
        // The rest of 1 ms's opportunity, and 2 ms's, pass with nothing waiting.
        let late = t.transmit(2 * MS + 1, 100);
        assert_eq!((late.start, late.end), (3 * MS, 3 * MS));
        // A packet ready at an opportunity's instant is served by it.
        assert_eq!(t.transmit(4 * MS, 100).end, 4 * MS);
        // Far ahead: cycle 25 (100 ms) onwards.
        assert_eq!(t.transmit(100 * MS + 1, 1500).end, 101 * MS);
        assert_eq!(t.transmit(104 * MS, 1500).end, 104 * MS);
    }

    #[test]
    fn busy_time_is_the_time_at_the_traces_mean_rate() {
        let mut t = TraceLink::new(&[2, 4]);
        assert_eq!(t.transmit(0, 1500).busy, 2 * MS);
        assert_eq!(t.transmit(0, 750).busy, MS);
    }
}
