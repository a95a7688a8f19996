//! Host clocks, for the one-way delays a flow measures with its two hosts' timestamps.
//!
//! The simulation runs on one true clock, and every RTT a sender measures uses its own clock at
//! both ends, so only one-way delays can see that two hosts disagree. A flow's [`ClockSkew`]
//! describes the receiver's clock against the sender's: it reads `t + offset + drift x t` at true
//! time `t`. An offset shifts every one-way delay by the same amount (so a delay measured against
//! its minimum does not see it); drift makes the shift grow with time (so it does).

use crate::units::Time;

/// The receiver's clock against the sender's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClockSkew {
    /// Receiver's reading minus the sender's at time 0, ns.
    pub offset_ns: i64,
    /// Extra nanoseconds the receiver's clock counts per million true ones.
    pub drift_ppm: f64,
}

impl ClockSkew {
    /// The one-way delay of a segment sent at `sent` and received at `arrived` (true times,
    /// `sent <= arrived`), as the receiver's timestamp minus the sender's: signed, since a
    /// receiver clock far enough behind makes it negative.
    pub fn one_way_delay(&self, sent: Time, arrived: Time) -> i64 {
        let true_delay = (arrived - sent) as i64;
        let drift = if self.drift_ppm == 0.0 { 0 } else { (self.drift_ppm * 1e-6 * arrived as f64).round() as i64 };
        true_delay + self.offset_ns + drift
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::NS_PER_MS;

    #[test]
    fn synchronised_clocks_measure_the_true_delay() {
        assert_eq!(ClockSkew::default().one_way_delay(10 * NS_PER_MS, 35 * NS_PER_MS), 25_000_000);
    }

    #[test]
    fn an_offset_shifts_every_delay_alike_and_drift_grows_with_time() {
        let behind = ClockSkew { offset_ns: -40_000_000, drift_ppm: 0.0 };
        assert_eq!(behind.one_way_delay(0, 25 * NS_PER_MS), -15_000_000);
        assert_eq!(behind.one_way_delay(1_000 * NS_PER_MS, 1_025 * NS_PER_MS), -15_000_000);
        // 100 ppm: the receiver's clock gains 100 us per true second.
        let fast = ClockSkew { offset_ns: 0, drift_ppm: 100.0 };
        assert_eq!(fast.one_way_delay(0, 25 * NS_PER_MS), 25_000_000 + 2_500);
        assert_eq!(fast.one_way_delay(10_000 * NS_PER_MS, 10_025 * NS_PER_MS), 25_000_000 + 1_002_500);
    }
}
