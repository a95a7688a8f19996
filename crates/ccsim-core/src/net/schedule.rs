//! Piecewise-constant schedules of a link's rate, propagation delay or loss probability.
//!
//! A schedule is a base value and a list of changes: from each change's instant on, its value
//! holds until the next change. With a period, every change recurs once per period (the changes'
//! instants lie within the first period), so the value before the first change of a later cycle
//! is the previous cycle's last value; the base value holds only until the very first change.
//! Everything a link needs from a schedule is known in advance, so a packet's transmission end
//! and arrival time are worked out when it is queued, exactly, and no event is spent on a change.

use crate::units::{Dur, Time, NS_PER_S};

/// A time no packet reaches: a transmission that never ends (its link's rate is zero for good)
/// ends here. Above every time a scenario may give (`spec::MAX_TIME_NS`, 10^16 ns), and below
/// the marks a pipe entry's time may carry (2^54 ns).
pub const NEVER: Time = 11_000_000_000_000_000;

/// A base value and its changes (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule<T> {
    base: T,
    /// (instant, value from then on), instants strictly increasing.
    changes: Vec<(Time, T)>,
    /// 0: the changes happen once; else they recur every `period` (each instant below it).
    period: Dur,
}

impl<T: Copy> Schedule<T> {
    /// A schedule; `changes` strictly increasing in time, and below `period` when it is not 0.
    pub fn new(base: T, changes: Vec<(Time, T)>, period: Dur) -> Self {
        assert!(changes.windows(2).all(|w| w[0].0 < w[1].0), "a schedule's instants increase");
        assert!(period == 0 || changes.last().is_none_or(|&(t, _)| t < period), "changes within the period");
        Schedule { base, changes, period }
    }

    /// The value in effect at `t`.
    pub fn at(&self, t: Time) -> T {
        self.segment(t).0
    }

    /// The value in effect at `t` and the instant it next changes ([`NEVER`] if it does not).
    pub fn segment(&self, t: Time) -> (T, Time) {
        let Some(&(first, _)) = self.changes.first() else { return (self.base, NEVER) };
        if t < first {
            return (self.base, first);
        }
        let n = self.changes.len();
        let (cycle_start, u) = if self.period == 0 { (0, t) } else { (t - t % self.period, t % self.period) };
        // Changes at or before `u` in this cycle.
        let done = self.changes.partition_point(|&(at, _)| at <= u);
        let (value, next) = if done == 0 {
            // Before this cycle's first change (a later cycle): the last value carries over.
            (self.changes[n - 1].1, cycle_start + first)
        } else if done < n {
            (self.changes[done - 1].1, cycle_start + self.changes[done].0)
        } else if self.period == 0 {
            (self.changes[n - 1].1, NEVER)
        } else {
            (self.changes[n - 1].1, cycle_start + self.period + first)
        };
        (value, next.min(NEVER))
    }

    /// Whether some value after the first change satisfies `f` (every later cycle takes them all).
    fn any_change(&self, f: impl Fn(T) -> bool) -> bool {
        self.changes.iter().any(|&(_, v)| f(v))
    }
}

/// One packet's transmission on a link whose rate changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmission {
    /// When its first bit goes out (the transmitter may be stopped then, at rate 0).
    pub start: Time,
    /// When its last bit has gone out ([`NEVER`]: not before the rate turns positive again, which
    /// it does not).
    pub end: Time,
    /// The part of [start, end) during which the rate was positive (what utilization counts).
    pub busy: Dur,
}

impl Schedule<u64> {
    /// The transmission of `bytes` bytes starting at `start` at this schedule's rates (bit/s):
    /// each stretch of constant rate carries its rate times its length, a stretch at rate 0
    /// carries nothing (an outage: the transmission resumes where it stopped), and the last
    /// stretch ends the transmission, rounded up to the nanosecond as on a fixed-rate link.
    pub fn transmit(&self, start: Time, bytes: u32) -> Transmission {
        // Bits still to send, times 10^9: a stretch of `d` ns at `r` bit/s carries r * d of them.
        let mut need = bytes as u128 * 8 * NS_PER_S as u128;
        let mut t = start;
        let mut busy = 0;
        let repeats_without_capacity = self.period > 0 && !self.any_change(|r| r > 0);
        while t < NEVER {
            let (rate, until) = self.segment(t);
            if rate == 0 {
                if repeats_without_capacity && t >= self.changes[0].0 {
                    break;
                }
                t = until;
                continue;
            }
            let carried = rate as u128 * (until - t) as u128;
            if carried >= need {
                let d = need.div_ceil(rate as u128) as Dur;
                return Transmission { start, end: t + d, busy: busy + d };
            }
            need -= carried;
            busy += until - t;
            t = until;
        }
        Transmission { start, end: NEVER, busy }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::tx_time;

    const MS: Time = 1_000_000;

    #[test]
    fn a_one_off_schedule_holds_its_base_until_the_first_change_and_its_last_value_for_good() {
        let s = Schedule::new(10, vec![(5 * MS, 20), (8 * MS, 30)], 0);
        assert_eq!(s.segment(0), (10, 5 * MS));
        assert_eq!(s.segment(5 * MS - 1), (10, 5 * MS));
        assert_eq!(s.segment(5 * MS), (20, 8 * MS));
        assert_eq!(s.segment(9 * MS), (30, NEVER));
        assert_eq!(Schedule::new(7, vec![], 0).segment(123), (7, NEVER));
    }

    #[test]
    fn a_repeating_schedule_recurs_and_carries_its_last_value_into_the_next_cycle() {
        // Every 10 ms: 20 from 2 ms, 30 from 6 ms; 10 only before 2 ms.
        let s = Schedule::new(10, vec![(2 * MS, 20), (6 * MS, 30)], 10 * MS);
        assert_eq!(s.segment(MS), (10, 2 * MS));
        assert_eq!(s.segment(7 * MS), (30, 12 * MS));
        assert_eq!(s.segment(11 * MS), (30, 12 * MS), "the last value until the next cycle's first change");
        assert_eq!(s.segment(12 * MS), (20, 16 * MS));
        assert_eq!(s.segment(10 * MS), (30, 12 * MS));
        let from_zero = Schedule::new(1, vec![(0, 5), (4 * MS, 6)], 10 * MS);
        assert_eq!(from_zero.segment(10 * MS), (5, 14 * MS));
        assert_eq!(from_zero.segment(9 * MS), (6, 10 * MS));
    }

    #[test]
    fn a_transmission_at_a_constant_rate_takes_the_fixed_links_time() {
        let s = Schedule::new(8_000_000, vec![], 0);
        let t = s.transmit(3, 1000);
        assert_eq!(t, Transmission { start: 3, end: 3 + tx_time(1000, 8_000_000), busy: MS });
        let odd = Schedule::new(3_000_000, vec![], 0);
        assert_eq!(odd.transmit(0, 1).end, tx_time(1, 3_000_000), "rounded up the same way");
    }

    #[test]
    fn a_rate_change_sends_the_remaining_bits_at_the_new_rate() {
        // 1000 bytes at 8 Mb/s take 1 ms; half-way the rate halves: the other half takes 1 ms.
        let s = Schedule::new(8_000_000, vec![(MS / 2, 4_000_000)], 0);
        assert_eq!(s.transmit(0, 1000), Transmission { start: 0, end: 3 * MS / 2, busy: 3 * MS / 2 });
    }

    #[test]
    fn an_outage_stops_the_transmission_and_it_resumes_after() {
        let s = Schedule::new(8_000_000, vec![(MS / 2, 0), (5 * MS, 8_000_000)], 0);
        assert_eq!(s.transmit(0, 1000), Transmission { start: 0, end: 5 * MS + MS / 2, busy: MS });
        assert_eq!(s.transmit(MS, 1000), Transmission { start: MS, end: 6 * MS, busy: MS });
        let for_good = Schedule::new(8_000_000, vec![(MS / 2, 0)], 0);
        assert_eq!(for_good.transmit(0, 1000), Transmission { start: 0, end: NEVER, busy: MS / 2 });
        let all_off = Schedule::new(8_000_000, vec![(MS, 0)], 10 * MS);
        assert_eq!(all_off.transmit(2 * MS, 1000).end, NEVER, "no capacity in any cycle");
    }
}
