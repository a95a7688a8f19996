//! Wi-Fi-like frame aggregation on a link direction, as a station sends A-MPDUs: when the channel
//! is free and packets wait, the sender first waits a random channel-access delay, then sends the
//! packets waiting by then back to back as one burst, up to `max_packets` of them or as many as
//! fit in `max_time` of airtime at the link's rate (at least one). Every packet of a burst
//! reaches the far end together, at the burst's end plus the propagation delay.
//!
//! The burst a packet joins is decided when it is queued, from what came before it only: it
//! joins the burst being formed if that burst has not yet seized the channel (its access instant
//! is not past), has room for one more packet and has airtime left for it; otherwise it opens
//! the next burst, whose channel access starts when the current burst ends (or at once, on an
//! idle channel). A packet joining a burst moves the burst's end, and so the arrival time of the
//! packets already in it: the link moves their pipe entries ([`crate::net::link`]). Bursts stay
//! in queue order, as a station's queue is FIFO.

use std::collections::VecDeque;

use crate::rng::{uniform, Stream};
use crate::units::{tx_time, Dur, Time};

/// The burst being formed (or the last one sent).
#[derive(Clone, Copy, Debug, Default)]
struct Burst {
    /// When the burst seized the channel: its first bit goes out then.
    access_at: Time,
    /// Packets in it.
    packets: u32,
    /// Airtime of its packets.
    airtime: Dur,
}

impl Burst {
    fn end(&self) -> Time {
        self.access_at + self.airtime
    }
}

/// A link direction's aggregation: its limits, its access-delay draws and the burst last opened.
pub struct Aggregation {
    rate_bps: u64,
    max_packets: u32,
    max_time: Dur,
    access_min: Dur,
    access_max: Dur,
    /// The link's own stream for channel-access delays (one draw per burst).
    rng: Stream,
    burst: Burst,
    /// (access instant, end) of the bursts that had not ended when the last one was opened, the
    /// last one included: the airtime after the end of a run is theirs.
    unfinished: VecDeque<(Time, Time)>,
}

/// Where a packet goes in the bursts of an aggregating link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// When its first bit goes out.
    pub start: Time,
    /// When its own last bit goes out.
    pub own_end: Time,
    /// When its burst's last bit goes out, as far as the burst is known: later packets may join.
    pub burst_end: Time,
    /// Its airtime.
    pub airtime: Dur,
    /// Packets of its burst before it (0: it opened a burst).
    pub ahead_in_burst: u32,
}

impl Aggregation {
    /// Aggregation on a link of `rate_bps`: up to `max_packets` packets and `max_time` of airtime
    /// a burst, after a channel-access delay uniform between `access_min` and `access_max`.
    pub fn new(rate_bps: u64, max_packets: u32, max_time: Dur, access_min: Dur, access_max: Dur, rng: Stream) -> Self {
        assert!(max_packets >= 1 && access_min <= access_max, "checked by the scenario's validation");
        Aggregation {
            rate_bps,
            max_packets,
            max_time,
            access_min,
            access_max,
            rng,
            burst: Burst::default(),
            unfinished: VecDeque::new(),
        }
    }

    /// Place a packet of `bytes` bytes queued at `now`.
    pub fn place(&mut self, now: Time, bytes: u32) -> Placement {
        let airtime = tx_time(bytes, self.rate_bps);
        let b = &mut self.burst;
        let joins =
            b.packets > 0 && now <= b.access_at && b.packets < self.max_packets && b.airtime + airtime <= self.max_time;
        if joins {
            let start = b.end();
            b.packets += 1;
            b.airtime += airtime;
            if let Some(last) = self.unfinished.back_mut() {
                last.1 = b.end();
            }
            return Placement { start, own_end: b.end(), burst_end: b.end(), airtime, ahead_in_burst: b.packets - 1 };
        }
        let free_from = now.max(self.burst.end());
        let access_at = free_from + self.access_delay();
        self.burst = Burst { access_at, packets: 1, airtime };
        let end = self.burst.end();
        while self.unfinished.front().is_some_and(|&(_, e)| e <= now) {
            self.unfinished.pop_front();
        }
        self.unfinished.push_back((access_at, end));
        Placement { start: access_at, own_end: end, burst_end: end, airtime, ahead_in_burst: 0 }
    }

    /// Airtime of the bursts placed so far that falls after `t` (no later than the last
    /// placement's instant): the access delays between bursts are idle, so this is not simply
    /// the last burst's end less `t`.
    pub fn airtime_after(&self, t: Time) -> Dur {
        self.unfinished.iter().map(|&(access, end)| end.saturating_sub(t.max(access))).sum()
    }

    fn access_delay(&mut self) -> Dur {
        if self.access_max == self.access_min {
            return self.access_min;
        }
        let span = (self.access_max - self.access_min) as f64;
        self.access_min + (uniform(&mut self.rng) * span) as Dur
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    const MS: Time = 1_000_000;

    /// 1000-byte packets at 8 Mb/s: 1 ms of airtime each.
    fn agg(max_packets: u32, max_time: Dur, access: (Dur, Dur)) -> Aggregation {
        Aggregation::new(
            8_000_000,
            max_packets,
            max_time,
            access.0,
            access.1,
            stream(1, Entity::Link, 0, Purpose::Access),
        )
    }

    #[test]
    fn packets_queued_before_channel_access_join_the_burst_up_to_its_limits() {
        let mut a = agg(3, 100 * MS, (2 * MS, 2 * MS));
        let p: Vec<Placement> = [0, MS, 2 * MS, 2 * MS].iter().map(|&t| a.place(t, 1000)).collect();
        assert_eq!(
            p[0],
            Placement { start: 2 * MS, own_end: 3 * MS, burst_end: 3 * MS, airtime: MS, ahead_in_burst: 0 }
        );
        assert_eq!((p[1].start, p[1].burst_end, p[1].ahead_in_burst), (3 * MS, 4 * MS, 1));
        assert_eq!((p[2].start, p[2].burst_end, p[2].ahead_in_burst), (4 * MS, 5 * MS, 2));
        // The fourth finds the burst full: the next burst waits for the channel from 5 ms.
        assert_eq!((p[3].start, p[3].burst_end, p[3].ahead_in_burst), (7 * MS, 8 * MS, 0));
        // After the access instant nobody joins: 8 ms is past 7 ms.
        assert_eq!(a.place(8 * MS, 1000).start, 10 * MS);
    }

    #[test]
    fn airtime_limits_a_burst_and_a_lone_packet_longer_than_the_limit_still_goes() {
        let mut a = agg(64, 2 * MS + MS / 2, (MS, MS));
        let starts: Vec<Time> = (0..4).map(|_| a.place(0, 1000).start).collect();
        // Two fit in 2.5 ms; the third opens a burst at 2 + 1 ms.
        assert_eq!(starts, [MS, 2 * MS, 4 * MS, 5 * MS]);
        let mut a = agg(64, MS / 2, (0, 0));
        let p: Vec<Placement> = (0..2).map(|_| a.place(0, 1000)).collect();
        assert_eq!((p[0].start, p[0].burst_end, p[1].start, p[1].ahead_in_burst), (0, MS, MS, 0));
    }

    #[test]
    fn the_airtime_after_an_instant_leaves_out_the_access_delays() {
        let mut a = agg(64, 100 * MS, (5 * MS, 5 * MS));
        a.place(0, 1000);
        a.place(MS, 1000);
        // Bursts: 5-7 ms (two packets), then 15-16 ms for a packet at 10 ms.
        a.place(10 * MS, 1000);
        assert_eq!(a.airtime_after(12 * MS), MS);
        assert_eq!(a.airtime_after(15 * MS + MS / 2), MS / 2);
        assert_eq!(a.airtime_after(20 * MS), 0);
    }

    #[test]
    fn access_delays_lie_within_their_bounds_and_repeat_for_the_same_stream() {
        let draws = || {
            let mut a = agg(1, MS, (MS, 3 * MS));
            (0..200).map(|i| a.place(i * 10 * MS, 1000).start - i * 10 * MS).collect::<Vec<Dur>>()
        };
        let d = draws();
        assert!(d.iter().all(|&x| (MS..=3 * MS).contains(&x)));
        assert!(d.iter().any(|&x| x < 3 * MS / 2) && d.iter().any(|&x| x > 5 * MS / 2));
        assert_eq!(d, draws());
    }
}
