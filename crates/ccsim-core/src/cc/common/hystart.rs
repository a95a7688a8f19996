//! HyStart: leave slow start before it overflows the buffer (Ha & Rhee, "Taming the elephants:
//! New TCP slow start", Computer Networks 2011; the form in Linux `net/ipv4/tcp_cubic.c`).
//!
//! Two detectors run while cwnd is at least a low window, each once per round:
//! * ACK train: ACKs keep arriving at most 2 ms apart for longer than half the minimum RTT, so
//!   the window already spans about the path's capacity;
//! * delay increase: the minimum of the round's first 8 RTT samples exceeds the connection's
//!   minimum by more than an eighth of it, clamped to [4 ms, 16 ms].
//!
//! Either one ends slow start (the caller sets ssthresh = cwnd). Not modelled: Linux's extra ACK
//! delay allowance for TSO bursts (`hystart_ack_delay`); without pacing it only matters with
//! segmentation offload, which ccsim does not model.

use crate::units::{Dur, Time, NS_PER_MS};

/// ACKs closer than this belong to one train (Linux `hystart_ack_delta_us` = 2000).
pub const ACK_DELTA: Dur = 2 * NS_PER_MS;
/// Samples per round before the delay test (Linux `HYSTART_MIN_SAMPLES`).
pub const MIN_SAMPLES: u32 = 8;
/// Clamp of the delay threshold (Linux `HYSTART_DELAY_MIN` / `HYSTART_DELAY_MAX`).
pub const DELAY_MIN: Dur = 4 * NS_PER_MS;
pub const DELAY_MAX: Dur = 16 * NS_PER_MS;

#[derive(Clone, Debug)]
pub struct HyStart {
    /// Smallest cwnd at which the detectors run (Linux `hystart_low_window` = 16).
    low_window: f64,
    round_start: Time,
    last_ack: Time,
    /// Minimum RTT among this round's first samples, and how many were taken.
    round_min: Option<Dur>,
    samples: u32,
    /// An exit was detected; no more detection until [`HyStart::reset`].
    found: bool,
}

impl HyStart {
    pub fn new(low_window: f64) -> Self {
        HyStart { low_window, round_start: 0, last_ack: 0, round_min: None, samples: 0, found: false }
    }

    /// Forget a past detection (Linux does this when the connection enters loss recovery by
    /// timeout, so slow start after a timeout is watched again).
    pub fn reset(&mut self) {
        self.found = false;
    }

    /// A new round of slow start begins.
    pub fn start_round(&mut self, now: Time) {
        self.round_start = now;
        self.last_ack = now;
        self.round_min = None;
        self.samples = 0;
    }

    /// One ACK in slow start with its RTT sample and the connection's minimum RTT. Returns true
    /// when slow start should end here.
    pub fn on_ack(&mut self, now: Time, cwnd: f64, rtt: Dur, min_rtt: Dur) -> bool {
        if self.found || cwnd < self.low_window {
            return false;
        }
        self.found = self.ack_train(now, min_rtt) || self.delay_increase(rtt, min_rtt);
        self.found
    }

    fn ack_train(&mut self, now: Time, min_rtt: Dur) -> bool {
        if now.saturating_sub(self.last_ack) > ACK_DELTA {
            // The train broke; it does not resume within this round.
            return false;
        }
        self.last_ack = now;
        now - self.round_start > min_rtt / 2
    }

    fn delay_increase(&mut self, rtt: Dur, min_rtt: Dur) -> bool {
        self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
            return false;
        }
        let threshold = (min_rtt / 8).clamp(DELAY_MIN, DELAY_MAX);
        self.round_min.is_some_and(|m| m > min_rtt + threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NS_PER_MS;

    #[test]
    fn an_ack_train_longer_than_half_the_min_rtt_ends_slow_start() {
        let mut h = HyStart::new(16.0);
        h.start_round(0);
        // ACKs every 1 ms; min RTT 40 ms: the train must last more than 20 ms.
        for t in 1..=20 {
            assert!(!h.on_ack(t * MS, 32.0, 40 * MS, 40 * MS), "t = {t} ms");
        }
        assert!(h.on_ack(21 * MS, 32.0, 40 * MS, 40 * MS));
        // Detected once; nothing more until reset.
        h.start_round(30 * MS);
        assert!(!h.on_ack(60 * MS, 32.0, 40 * MS, 40 * MS));
    }

    #[test]
    fn a_gap_in_the_train_or_a_small_window_stops_the_train_test() {
        let mut h = HyStart::new(16.0);
        h.start_round(0);
        assert!(!h.on_ack(MS, 8.0, 40 * MS, 40 * MS), "below the low window");
        assert!(!h.on_ack(5 * MS, 32.0, 40 * MS, 40 * MS), "4 ms gap breaks the train");
        for t in 6..=40 {
            assert!(!h.on_ack(t * MS, 32.0, 40 * MS, 40 * MS), "t = {t} ms");
        }
    }

    /// min RTT 40 ms: threshold clamp(5 ms, 4, 16) = 5 ms. The first 8 samples of the round are
    /// taken; the 9th ACK tests the round minimum: 46 ms > 45 ms.
    #[test]
    fn a_round_minimum_above_min_rtt_plus_an_eighth_ends_slow_start() {
        let mut h = HyStart::new(16.0);
        h.start_round(0);
        for k in 0..8 {
            // 10 ms apart: no ACK train.
            assert!(!h.on_ack(10 * MS * k, 32.0, 46 * MS, 40 * MS));
        }
        assert!(h.on_ack(80 * MS, 32.0, 50 * MS, 40 * MS));
        let mut h = HyStart::new(16.0);
        h.start_round(0);
        for k in 0..9 {
            assert!(!h.on_ack(10 * MS * k, 32.0, 45 * MS, 40 * MS), "45 ms is not above 45 ms");
        }
    }
}
