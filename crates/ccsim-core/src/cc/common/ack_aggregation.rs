//! BBR's estimate of ACK aggregation (Linux `bbr_update_ack_aggregation` and
//! `bbr_ack_aggregation_cwnd`, the same in v1 and v3): how much more data ACKs report delivered
//! than the bandwidth estimate explains since the ACK rate last fell to it. A receiver that
//! acknowledges in bursts (delayed ACKs, Wi-Fi aggregation, a stretch-ACKing middlebox) would
//! otherwise leave the sender without window while it waits for the next burst; the largest
//! excess over the last two windows of rounds is added to the target cwnd.

use crate::units::{Dur, Time, NS_PER_MS, NS_PER_S};

/// The allowance is at most this much data at the bandwidth (Linux `bbr_extra_acked_max_us`).
const EXTRA_ACKED_MAX: Dur = 100 * NS_PER_MS;
/// An epoch restarts after this many segments (Linux's 20-bit `ack_epoch_acked`).
const EPOCH_RESET: f64 = (1u64 << 20) as f64;

/// The excess of each of two windows of rounds (the newer being filled) and the current epoch.
#[derive(Clone, Debug, Default)]
pub struct AckAggregation {
    epoch_start: Time,
    epoch_acked: f64,
    extra: [f64; 2],
    rounds: u32,
    newer: usize,
}

impl AckAggregation {
    /// Start the first epoch (when the connection's data starts to flow).
    pub fn start_epoch(&mut self, now: Time) {
        self.epoch_start = now;
    }

    /// Count `acked` segments delivered at `now`. `round_start`: this ACK starts a round, and
    /// after `window_rounds` rounds the older window is dropped. `bw` is the bandwidth estimate
    /// (segments/s); the excess is capped at `cwnd`.
    pub fn update(&mut self, acked: f64, now: Time, bw: f64, cwnd: f64, round_start: bool, window_rounds: u32) {
        if round_start {
            self.rounds = (self.rounds + 1).min(31);
            if self.rounds >= window_rounds {
                self.rounds = 0;
                self.newer = 1 - self.newer;
                self.extra[self.newer] = 0.0;
            }
        }
        let epoch = now.saturating_sub(self.epoch_start);
        let mut expected = (bw * epoch as f64 / NS_PER_S as f64).floor();
        if self.epoch_acked <= expected || self.epoch_acked + acked >= EPOCH_RESET {
            // ACKs came no faster than the bandwidth: a new epoch starts here.
            self.epoch_acked = 0.0;
            self.epoch_start = now;
            expected = 0.0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(EPOCH_RESET - 1.0);
        let excess = (self.epoch_acked - expected).min(cwnd);
        let slot = &mut self.extra[self.newer];
        *slot = slot.max(excess);
    }

    /// The allowance for the target cwnd at bandwidth `bw`: the larger window's excess, at most
    /// 100 ms of data.
    pub fn allowance(&self, bw: f64) -> f64 {
        let cap = (bw * EXTRA_ACKED_MAX as f64 / NS_PER_S as f64).floor();
        self.extra[0].max(self.extra[1]).min(cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = NS_PER_MS;

    #[test]
    fn a_burst_above_the_bandwidth_is_the_excess_and_a_slow_ack_restarts_the_epoch() {
        // 1000 segments/s: one per ms. 5 segments open an epoch at 0; 10 more at 2 ms exceed
        // the 2 expected by 13.
        let mut a = AckAggregation::default();
        a.start_epoch(0);
        a.update(5.0, 0, 1000.0, 100.0, false, 5);
        a.update(10.0, 2 * MS, 1000.0, 100.0, false, 5);
        assert_eq!(a.allowance(1000.0), 13.0);
        // At 20 ms the epoch's 15 segments are below the 20 expected: a new epoch of 1.
        a.update(1.0, 20 * MS, 1000.0, 100.0, false, 5);
        assert_eq!(a.allowance(1000.0), 13.0);
        // Capped at 100 ms of data (10 segments at 100/s) and at the cwnd (below: 30).
        assert_eq!(a.allowance(100.0), 10.0);
        assert_eq!(a.allowance(50.0), 5.0);
        // At 21 ms the epoch's 1 segment is not above the 1 expected: a new epoch of 40.
        a.update(40.0, 21 * MS, 1000.0, 30.0, false, 5);
        assert_eq!(a.allowance(1000.0), 30.0);
    }

    #[test]
    fn the_older_window_is_dropped_after_window_rounds() {
        let mut a = AckAggregation::default();
        a.update(9.0, MS, 1000.0, 100.0, false, 2);
        assert_eq!(a.allowance(1000.0), 9.0);
        // Two round starts: the newer window rotates once, the excess survives in the older.
        a.update(0.0, 100 * MS, 1000.0, 100.0, true, 2);
        a.update(0.0, 200 * MS, 1000.0, 100.0, true, 2);
        assert_eq!(a.allowance(1000.0), 9.0);
        // Two more: both windows have been refilled without it.
        a.update(0.0, 300 * MS, 1000.0, 100.0, true, 2);
        a.update(0.0, 400 * MS, 1000.0, 100.0, true, 2);
        assert_eq!(a.allowance(1000.0), 0.0);
    }
}
