//! RTT statistics per round and over the connection, kept privately by the algorithms that have
//! not moved onto the sender's shared measurements ([`super::delay`]): Libra and AReno, whose
//! rounds start on the opposite side of the round-start ACK and whose filters skip zero samples. Linux keeps the same numbers in `tcp_vegas.c` (`baseRTT`, `minRTT`, `cntRTT`)
//! and `tcp_illinois.c` (`base_rtt`, `max_rtt`, `sum_rtt`, `cnt_rtt`).

use crate::units::Dur;

#[derive(Clone, Debug, Default)]
pub struct RttStats {
    /// Smallest sample ever (the "base RTT"); never aged, as in Linux.
    base: Option<Dur>,
    /// Largest sample ever; never aged (Illinois).
    max: Dur,
    round_min: Option<Dur>,
    round_sum: u128,
    round_count: u32,
}

impl RttStats {
    pub fn sample(&mut self, rtt: Dur) {
        self.base = Some(self.base.map_or(rtt, |b| b.min(rtt)));
        self.max = self.max.max(rtt);
        self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
        self.round_sum += rtt as u128;
        self.round_count += 1;
    }

    /// Forget the current round's samples (the connection-wide extremes stay).
    pub fn start_round(&mut self) {
        self.round_min = None;
        self.round_sum = 0;
        self.round_count = 0;
    }

    pub fn base(&self) -> Option<Dur> {
        self.base
    }

    pub fn max(&self) -> Dur {
        self.max
    }

    pub fn round_min(&self) -> Option<Dur> {
        self.round_min
    }

    /// Mean of this round's samples, nanoseconds.
    pub fn round_mean(&self) -> Option<f64> {
        (self.round_count > 0).then(|| self.round_sum as f64 / self.round_count as f64)
    }

    pub fn round_count(&self) -> u32 {
        self.round_count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_reset_but_connection_extremes_persist() {
        let mut s = RttStats::default();
        for r in [30, 10, 20] {
            s.sample(r);
        }
        assert_eq!((s.base(), s.max(), s.round_min(), s.round_count()), (Some(10), 30, Some(10), 3));
        assert_eq!(s.round_mean(), Some(20.0));
        s.start_round();
        assert_eq!((s.round_min(), s.round_mean(), s.round_count()), (None, None, 0));
        s.sample(25);
        assert_eq!((s.base(), s.max(), s.round_min()), (Some(10), 30, Some(25)));
    }
}
