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

use std::collections::VecDeque;

use crate::cc::common::delay::RateStamp;
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
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
}

/// What newly SACKed segments tell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sacked {
    /// Latest send time among the newly SACKed segments that were sent once.
    pub latest_sent: Option<Time>,
    /// Segments newly SACKed.
    pub delivered: u32,
    pub newest: Newest,
}

/// Send records of segments `base..base + records.len()`.
#[derive(Clone, Debug, Default)]
pub struct SendLog {
    base: u32,
    records: VecDeque<Record>,
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
}

impl SendLog {
    /// Segment `seq` left at `stamp.sent_at` (`seq` is at most one past the highest sent so
    /// far); a segment sent before is marked a retransmission.
    #[inline]
    pub fn on_send(&mut self, seq: u32, mut stamp: RateStamp) {
        let end = self.base + self.records.len() as u32;
        if seq == end {
            stamp.retransmission = false;
            self.records.push_back(Record { stamp, sacked: false });
        } else if let Some(r) = seq.checked_sub(self.base).and_then(|i| self.records.get_mut(i as usize)) {
            stamp.retransmission = true;
            r.stamp = stamp;
        }
    }

    /// Mark newly SACKed segments; returns the latest send time among those sent once. Each block
    /// is scanned down from its top until a segment already marked, so the cost is the number of
    /// newly SACKed segments (blocks grow at the top as new data arrives out of order).
    #[inline]
    pub fn on_sack(&mut self, blocks: impl Iterator<Item = (u32, u32)>) -> Sacked {
        let mut out = Sacked::default();
        for (start, end) in blocks {
            let lo = start.max(self.base);
            let hi = end.min(self.base + self.records.len() as u32);
            for seq in (lo..hi).rev() {
                let r = &mut self.records[(seq - self.base) as usize];
                if r.sacked {
                    break;
                }
                r.sacked = true;
                out.delivered += 1;
                out.newest.offer(seq, &r.stamp);
                if !r.stamp.retransmission {
                    out.latest_sent = out.latest_sent.max(Some(r.stamp.sent_at));
                }
            }
        }
        out
    }

    /// The cumulative ACK reached `ack`: forget the segments below it and say what they were.
    #[inline]
    pub fn on_cumulative_ack(&mut self, ack: u32) -> Covered {
        let mut covered = Covered::default();
        let n = (ack.saturating_sub(self.base) as usize).min(self.records.len());
        // Scan by reference (records are larger than what is read of them), then drop them.
        let mut newest: Option<(usize, Time)> = None;
        for (i, r) in self.records.range(..n).enumerate() {
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
            }
        }
        if let Some((i, t)) = newest {
            covered.newest = Newest(Some((t, self.base + i as u32, self.records[i].stamp)));
        }
        self.records.drain(..n);
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
}
