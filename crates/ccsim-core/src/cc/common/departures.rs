//! When a paced sender's next segment may leave, as a pacing algorithm must know it to reason
//! about the flight at that moment (Linux BBR's `bbr_packets_in_net_at_edt`, which reads the
//! socket's earliest departure time). This mirrors the sender's own earliest-departure pacing
//! ([`crate::cc::CongestionControl::pacing_rate`]): the first segments leave unpaced, each later
//! one a pacing interval after the previous one's slot, and a sender late for its slot is
//! credited at most half an interval.

use crate::units::{Dur, Time, NS_PER_S};

/// Segments that leave unpaced at the start of a connection (the sender's rule, sch_fq's
/// initial quantum).
const UNPACED_SEGMENTS: u64 = 10;

#[derive(Clone, Debug, Default)]
pub struct Departures {
    next: Time,
    sent: u64,
}

impl Departures {
    /// A segment left at `now` while the pacing rate was `rate` segments/s.
    pub fn on_sent(&mut self, now: Time, rate: f64) {
        self.sent += 1;
        let prior = self.next;
        self.next = self.next.max(now);
        if self.sent >= UNPACED_SEGMENTS && rate > 0.0 {
            let gap = (NS_PER_S as f64 / rate) as Dur;
            let late = self.next - prior;
            self.next += gap - late.min(gap / 2);
        }
    }

    /// How long from `now` until the next segment may leave.
    pub fn wait(&self, now: Time) -> Dur {
        self.next.saturating_sub(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_segments_leave_unpaced_then_one_interval_apart_with_half_an_interval_of_credit() {
        let mut d = Departures::default();
        // 1000 segments/s: 1 ms apart once ten have left at t = 0.
        for _ in 0..9 {
            d.on_sent(0, 1000.0);
        }
        assert_eq!(d.wait(0), 0);
        d.on_sent(0, 1000.0);
        assert_eq!(d.wait(0), 1_000_000);
        // Sent on time at 1 ms: the next slot is 2 ms.
        d.on_sent(1_000_000, 1000.0);
        assert_eq!(d.wait(1_000_000), 1_000_000);
        // Sent 0.8 ms late (2.8 ms): credited half an interval, the next slot at 3.3 ms.
        d.on_sent(2_800_000, 1000.0);
        assert_eq!(d.wait(2_800_000), 500_000);
    }
}
