//! When each outstanding segment was last sent, for the RTT sample handed to congestion control.
//!
//! Linux gives its congestion-control modules `ca_rtt_us`: the RTT of the most recently sent
//! segment an ACK newly acknowledges (`tcp_clean_rtx_queue`'s `last_ackt`, or the newest newly
//! SACKed one), not the timestamp echo, which with delayed ACKs is the send time of the *earliest*
//! segment covered and so inflates every sample by the gap between the two. Segments that were
//! retransmitted give no sample (Karn); the caller falls back to the timestamp echo then, as
//! `tcp_ack_update_rtt` does.

use std::collections::VecDeque;

use crate::units::Time;

#[derive(Clone, Copy, Debug)]
struct Record {
    sent_at: Time,
    retransmitted: bool,
    /// Acknowledged by a SACK block before the cumulative ACK reached it.
    sacked: bool,
}

/// Send records of segments `base..base + records.len()`.
#[derive(Debug, Default)]
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
}

impl SendLog {
    /// Segment `seq` left at `now` (`seq` is at most one past the highest sent so far).
    pub fn on_send(&mut self, seq: u32, now: Time) {
        let end = self.base + self.records.len() as u32;
        if seq == end {
            self.records.push_back(Record { sent_at: now, retransmitted: false, sacked: false });
        } else if let Some(r) = seq.checked_sub(self.base).and_then(|i| self.records.get_mut(i as usize)) {
            r.sent_at = now;
            r.retransmitted = true;
        }
    }

    /// Mark newly SACKed segments; returns the latest send time among those sent once. Each block
    /// is scanned down from its top until a segment already marked, so the cost is the number of
    /// newly SACKed segments (blocks grow at the top as new data arrives out of order).
    pub fn on_sack(&mut self, blocks: impl Iterator<Item = (u32, u32)>) -> Option<Time> {
        let mut latest: Option<Time> = None;
        for (start, end) in blocks {
            let lo = start.max(self.base);
            let hi = end.min(self.base + self.records.len() as u32);
            for seq in (lo..hi).rev() {
                let r = &mut self.records[(seq - self.base) as usize];
                if r.sacked {
                    break;
                }
                r.sacked = true;
                if !r.retransmitted {
                    latest = latest.max(Some(r.sent_at));
                }
            }
        }
        latest
    }

    /// The cumulative ACK reached `ack`: forget the segments below it and say what they were.
    pub fn on_cumulative_ack(&mut self, ack: u32) -> Covered {
        let mut covered = Covered::default();
        while self.base < ack {
            let Some(r) = self.records.pop_front() else {
                self.base = ack;
                break;
            };
            self.base += 1;
            if r.retransmitted {
                covered.retransmission_acked = true;
            } else if !r.sacked {
                covered.latest_sent = Some(r.sent_at);
            }
        }
        covered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delayed_ack_is_timed_from_the_second_segment_it_covers() {
        let mut log = SendLog::default();
        log.on_send(0, 100);
        log.on_send(1, 150);
        log.on_send(2, 160);
        assert_eq!(log.on_cumulative_ack(2), Covered { latest_sent: Some(150), retransmission_acked: false });
        assert_eq!(log.on_cumulative_ack(3), Covered { latest_sent: Some(160), retransmission_acked: false });
    }

    #[test]
    fn retransmissions_give_no_sample_and_sacked_segments_time_the_sack() {
        let mut log = SendLog::default();
        for seq in 0..5 {
            log.on_send(seq, 10 * seq as Time);
        }
        // Segment 1 is lost; 2..4 arrive and are SACKed, newest first in time order.
        assert_eq!(log.on_sack([(2, 4)].into_iter()), Some(30));
        assert_eq!(log.on_sack([(2, 5)].into_iter()), Some(40));
        log.on_send(1, 100); // the retransmission
        let covered = log.on_cumulative_ack(5);
        assert!(covered.retransmission_acked);
        // Segment 0 was never acknowledged on its own here; 2..4 were already SACKed.
        assert_eq!(covered.latest_sent, Some(0));
    }
}
