//! When each outstanding segment was last sent, for the RTT sample handed to congestion control.
//!
//! Linux gives its congestion-control modules `ca_rtt_us`: the RTT of the most recently sent
//! segment an ACK newly acknowledges (`tcp_clean_rtx_queue`'s `last_ackt`, or the newest newly
//! SACKed one), not the timestamp echo, which with delayed ACKs is the send time of the *earliest*
//! segment covered and so inflates every sample by the gap between the two. Segments that were
//! retransmitted give no sample (Karn); the caller falls back to the timestamp echo then, as
//! `tcp_ack_update_rtt` does.
//!
//! Each record also carries the state a delivery-rate sample needs ([`RateStamp`], Linux's
//! `tcp_rate_skb_sent`), and every ACK reports the newest segment it newly delivered, whether sent
//! once or not, and how many it delivered.

use crate::cc::common::delay::RateStamp;
use crate::units::Time;

#[derive(Clone, Copy, Debug, Default)]
struct Record {
    stamp: RateStamp,
    /// Acknowledged by a SACK block before the cumulative ACK reached it.
    sacked: bool,
}

/// The most recently sent of the segments an ACK newly delivered: latest send time, ties to the
/// higher sequence number (Linux `tcp_skb_sent_after`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Newest(Option<(Time, u32, RateStamp)>);

impl Newest {
    #[inline]
    fn offer(&mut self, seq: u32, stamp: &RateStamp) {
        if self.0.is_none_or(|(t, s, _)| (stamp.sent_at, seq) > (t, s)) {
            self.0 = Some((stamp.sent_at, seq, *stamp));
        }
    }

    #[inline]
    pub fn merge(&mut self, other: Newest) {
        if let Some((_, seq, stamp)) = other.0 {
            self.offer(seq, &stamp);
        }
    }

    #[inline]
    pub fn stamp(&self) -> Option<RateStamp> {
        self.0.map(|(_, _, s)| s)
    }

    /// The segment: its (last) send time, its number and whether it was ever retransmitted.
    #[inline]
    pub fn segment(&self) -> Option<(Time, u32, bool)> {
        self.0.map(|(t, seq, s)| (t, seq, s.retransmission))
    }
}

/// What newly SACKed segments tell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sacked {
    /// Latest send time among the newly SACKed segments that were sent once.
    pub latest_sent: Option<Time>,
    /// Segments newly SACKed.
    pub delivered: u32,
    pub newest: Newest,
    /// The lowest-numbered newly SACKed segment that was never retransmitted (RACK's reordering
    /// detection).
    pub lowest_sent_once: Option<u32>,
}

/// Send records of segments `base..base + len`, in a ring: segment `base + i` is in slot
/// `(head + i) & (ring.len() - 1)`, the ring's length a power of two (or 0 before the first send).
/// A ring rather than a `VecDeque`: an ACK that covers one segment (every ACK under ns2) then
/// costs a few index operations instead of a range and a drain.
#[derive(Clone, Debug, Default)]
pub struct SendLog {
    base: u32,
    ring: Vec<Record>,
    head: usize,
    len: usize,
}

/// What one ACK tells about the segments it newly acknowledges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Covered {
    /// Send time of the most recently sent segment newly acknowledged, cumulatively or by SACK,
    /// that was sent once.
    pub latest_sent: Option<Time>,
    /// A retransmitted segment was among the cumulatively acknowledged ones.
    pub retransmission_acked: bool,
    /// Segments newly delivered (cumulatively acknowledged and not SACKed before).
    pub delivered: u32,
    pub newest: Newest,
    /// The lowest-numbered newly delivered segment that was never retransmitted.
    pub lowest_sent_once: Option<u32>,
}

impl SendLog {
    /// Segment `seq` left at `stamp.sent_at` (`seq` is at most one past the highest sent so
    /// far); a segment sent before is marked a retransmission.
    #[inline(always)]
    pub fn on_send(&mut self, seq: u32, mut stamp: RateStamp) {
        let end = self.base + self.len as u32;
        if seq == end {
            stamp.retransmission = false;
            if self.len == self.ring.len() {
                self.grow();
            }
            let slot = self.slot(self.len);
            self.ring[slot] = Record { stamp, sacked: false };
            self.len += 1;
        } else if let Some(i) = seq.checked_sub(self.base).map(|i| i as usize).filter(|&i| i < self.len) {
            stamp.retransmission = true;
            let slot = self.slot(i);
            self.ring[slot].stamp = stamp;
        }
    }

    /// Whether an ACK of cumulative ACK `ack` and SACK blocks `blocks` newly delivers a segment
    /// below `below` that was sent only once (read before the ACK is applied; F-RTO's test,
    /// RFC 5682 section 3).
    pub fn delivers_sent_once(&self, ack: u32, mut blocks: impl Iterator<Item = (u32, u32)>, below: u32) -> bool {
        let end = (self.base + self.len as u32).min(below);
        let any_in = |lo: u32, hi: u32| {
            (lo.max(self.base)..hi.min(end)).any(|seq| {
                let r = &self.ring[self.slot((seq - self.base) as usize)];
                !r.sacked && !r.stamp.retransmission
            })
        };
        any_in(self.base, ack) || blocks.any(|(lo, hi)| any_in(lo, hi))
    }

    /// When outstanding segment `seq` was last sent, if it is in the log.
    #[inline]
    pub fn sent_at(&self, seq: u32) -> Option<Time> {
        let i = seq.checked_sub(self.base)? as usize;
        (i < self.len).then(|| self.ring[self.slot(i)].stamp.sent_at)
    }

    /// The ring slot of the `i`th record.
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & self.ring.len().wrapping_sub(1)
    }

    /// Double the ring (at least 16 slots), records back in order from slot 0.
    #[cold]
    fn grow(&mut self) {
        let cap = (2 * self.ring.len()).max(16);
        let mut ring = Vec::with_capacity(cap);
        ring.extend((0..self.len).map(|i| self.ring[self.slot(i)]));
        ring.resize(cap, Record::default());
        self.ring = ring;
        self.head = 0;
    }

    /// Mark newly SACKed segments; returns the latest send time among those sent once. Each block
    /// is scanned down from its top until a segment already marked, so the cost is the number of
    /// newly SACKed segments (blocks grow at the top as new data arrives out of order).
    #[inline(always)]
    pub fn on_sack(&mut self, blocks: impl Iterator<Item = (u32, u32)>) -> Sacked {
        let mut out = Sacked::default();
        for (start, end) in blocks {
            let lo = start.max(self.base);
            let hi = end.min(self.base + self.len as u32);
            for seq in (lo..hi).rev() {
                let slot = self.slot((seq - self.base) as usize);
                let r = &mut self.ring[slot];
                if r.sacked {
                    break;
                }
                r.sacked = true;
                out.delivered += 1;
                out.newest.offer(seq, &r.stamp);
                if !r.stamp.retransmission {
                    out.latest_sent = out.latest_sent.max(Some(r.stamp.sent_at));
                    out.lowest_sent_once = Some(out.lowest_sent_once.map_or(seq, |low| low.min(seq)));
                }
            }
        }
        out
    }

    /// The cumulative ACK reached `ack`: forget the segments below it and say what they were.
    #[inline(always)]
    pub fn on_cumulative_ack(&mut self, ack: u32) -> Covered {
        let mut covered = Covered::default();
        let n = (ack.saturating_sub(self.base) as usize).min(self.len);
        // Scan by reference (records are larger than what is read of them), then drop them.
        let mut newest: Option<(usize, Time)> = None;
        for i in 0..n {
            let r = &self.ring[self.slot(i)];
            if !r.sacked {
                covered.delivered += 1;
                // In sequence order, so a tie in send time goes to the higher sequence number.
                if newest.is_none_or(|(_, t)| r.stamp.sent_at >= t) {
                    newest = Some((i, r.stamp.sent_at));
                }
            }
            if r.stamp.retransmission {
                covered.retransmission_acked = true;
            } else if !r.sacked {
                covered.latest_sent = Some(r.stamp.sent_at);
                covered.lowest_sent_once.get_or_insert(self.base + i as u32);
            }
        }
        if let Some((i, t)) = newest {
            covered.newest = Newest(Some((t, self.base + i as u32, self.ring[self.slot(i)].stamp)));
        }
        self.head = self.slot(n);
        self.len -= n;
        self.base = self.base.max(ack);
        covered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: Time) -> RateStamp {
        RateStamp { sent_at: t, ..Default::default() }
    }

    #[test]
    fn a_delayed_ack_is_timed_from_the_second_segment_it_covers() {
        let mut log = SendLog::default();
        log.on_send(0, at(100));
        log.on_send(1, at(150));
        log.on_send(2, at(160));
        let covered = log.on_cumulative_ack(2);
        assert_eq!((covered.latest_sent, covered.retransmission_acked, covered.delivered), (Some(150), false, 2));
        assert_eq!(covered.newest.stamp().map(|s| s.sent_at), Some(150));
        let covered = log.on_cumulative_ack(3);
        assert_eq!((covered.latest_sent, covered.retransmission_acked, covered.delivered), (Some(160), false, 1));
    }

    #[test]
    fn retransmissions_give_no_sample_and_sacked_segments_time_the_sack() {
        let mut log = SendLog::default();
        for seq in 0..5 {
            log.on_send(seq, at(10 * seq as Time));
        }
        // Segment 1 is lost; 2..4 arrive and are SACKed, newest first in time order.
        assert_eq!(log.on_sack([(2, 4)].into_iter()).latest_sent, Some(30));
        assert_eq!(log.on_sack([(2, 5)].into_iter()).latest_sent, Some(40));
        log.on_send(1, at(100)); // the retransmission
        let covered = log.on_cumulative_ack(5);
        assert!(covered.retransmission_acked);
        // Segment 0 was never acknowledged on its own here; 2..4 were already SACKed.
        assert_eq!(covered.latest_sent, Some(0));
        // Delivered now: segments 0 and 1; the newest of them is the retransmission of 1.
        assert_eq!(covered.delivered, 2);
        assert_eq!(covered.newest.stamp().map(|s| (s.sent_at, s.retransmission)), Some((100, true)));
    }

    /// The ring wraps and grows with records in flight: 0..10 sent (segment k at 10 k), 0..6
    /// acknowledged, 10..30 sent (24 outstanding: the 16-slot ring, wrapped, doubles), 8
    /// retransmitted at 1000, 20..25 SACKed. The ACK of 30 delivers 6..30 less the 5 SACKed (19),
    /// a retransmission among them; the latest sent once and not SACKed is 29 (290), the newest
    /// delivered the retransmission of 8. Then 30 is appended at the new end.
    #[test]
    fn records_survive_the_ring_wrapping_and_growing() {
        let mut log = SendLog::default();
        for seq in 0..10 {
            log.on_send(seq, at(10 * seq as Time));
        }
        let c = log.on_cumulative_ack(6);
        assert_eq!((c.delivered, c.latest_sent), (6, Some(50)));
        for seq in 10..30 {
            log.on_send(seq, at(10 * seq as Time));
        }
        log.on_send(8, at(1000));
        let s = log.on_sack([(20, 25)].into_iter());
        assert_eq!((s.delivered, s.latest_sent), (5, Some(240)));
        let c = log.on_cumulative_ack(30);
        assert_eq!((c.delivered, c.latest_sent, c.retransmission_acked), (19, Some(290), true));
        assert_eq!(c.newest.stamp().map(|s| (s.sent_at, s.retransmission)), Some((1000, true)));
        log.on_send(30, at(3000));
        let c = log.on_cumulative_ack(31);
        assert_eq!((c.delivered, c.latest_sent), (1, Some(3000)));
    }
}
