//! RACK, "recent acknowledgment" (RFC 8985 section 6): a segment is lost when a segment sent
//! sufficiently later has been delivered, judged by send times rather than by counting segments
//! or duplicate ACKs. Retransmissions are judged like any segment (by their last send), so a lost
//! retransmission is found without waiting for the retransmission timeout.
//!
//! What an ACK delivered updates the state of the most recently sent delivered segment
//! (RACK.xmit_ts, RACK.end_seq, RACK.rtt: [`Rack::on_delivery`], section 6.2 steps 2 and 3; step 1,
//! the minimum RTT, is the sender's estimator). Every unacknowledged segment sent before that one
//! is lost once RACK.rtt plus the reordering window have passed since it was sent
//! ([`Rack::detect_losses`], step 5); until then the reordering timer waits for it.
//!
//! The reordering window (step 4, [`Rack::reordering_window`]) is zero until reordering has been
//! seen if the sender is in loss recovery or DupThresh segments are SACKed, else a quarter of the
//! minimum RTT, at most SRTT. With DSACK (the stack's `dsack`) it widens as step 4 says: each
//! round trip in which a DSACK arrives (a segment was retransmitted that had not been lost)
//! multiplies the quarter RTT by one more (RACK.reo_wnd_mult), until 16 recoveries have ended
//! without a further DSACK ([`Rack::on_dsack`], [`Rack::on_recovery_exit`]).
//!
//! Send times come in order, so the transmissions are kept in a queue sorted by time (Linux's
//! `tsorted_sent_queue`): the first entries are the oldest, and loss detection reads from the
//! front, dropping entries of segments delivered, marked lost or sent again since, until it
//! reaches a segment still within its window. The reordering timer is set for that segment, the
//! earliest that will become lost; RFC 8985 and Linux set it for the latest of the waiting
//! segments so that one expiry marks them all, where here each is marked at its own deadline
//! and the timer is set again for the next. Each transmission enters and leaves the queue once.

use std::collections::VecDeque;

use super::sack::Scoreboard;
use super::send_log::SendLog;
use crate::units::{Dur, Time};

/// What one ACK delivered, as RACK reads it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Delivery {
    /// The most recently sent of the segments newly delivered (cumulatively or by SACK): its last
    /// send time, its number, and whether it was ever retransmitted.
    pub newest: Option<(Time, u32, bool)>,
    /// The lowest-numbered newly delivered segment that was never retransmitted.
    pub lowest_sent_once: Option<u32>,
    /// One past the highest segment this ACK reports delivered (cumulative ACK or SACK block).
    pub delivered_end: u32,
    /// The ACK's timestamp echo: the send time of the transmission that triggered it.
    pub echoed_ts: Time,
}

#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment known delivered (send
    /// time, segment number; a later number breaks a tie in time).
    newest: Option<(Time, u32)>,
    /// RACK.rtt: the RTT of that segment's delivery.
    rtt: Dur,
    /// RACK.fack: one past the highest segment delivered.
    fack: u32,
    /// RACK.reordering_seen: a segment never retransmitted was delivered below RACK.fack.
    reordering_seen: bool,
    /// Every transmission (send time, segment), oldest first; some no longer current.
    transmissions: VecDeque<(Time, u32)>,
    /// When the earliest segment still within its reordering window becomes lost.
    deadline: Option<Time>,
    /// RACK.reo_wnd_mult - 1: how many quarter RTTs DSACKs have added to the window.
    reo_wnd_extra: u32,
    /// RACK.dsack_round: SND.NXT at the DSACK that last widened the window; another DSACK widens
    /// it again only once SND.UNA has passed this (once per round trip).
    dsack_round: Option<u32>,
    /// RACK.reo_wnd_persist: recoveries left before the window narrows back.
    reo_wnd_persist: u32,
}

/// Recoveries a widened window lasts without a further DSACK (RFC 8985 section 6.2 step 4).
pub const REO_WND_PERSIST: u32 = 16;

impl Rack {
    /// `seq` left at `now` (new data or a retransmission).
    #[inline]
    pub fn on_transmit(&mut self, seq: u32, now: Time) {
        self.transmissions.push_back((now, seq));
    }

    /// Section 6.2 steps 2 and 3: the most recently sent segment this ACK delivered, unless it
    /// was retransmitted and the ACK may be for an earlier transmission of it (the echo is older
    /// than the retransmission, or the RTT would be below the minimum); and reordering, a
    /// segment never retransmitted delivered below RACK.fack.
    pub fn on_delivery(&mut self, delivery: &Delivery, now: Time, min_rtt: Dur) {
        if let Some((sent, seq, retransmitted)) = delivery.newest {
            let rtt = now.saturating_sub(sent);
            let ambiguous = retransmitted && (delivery.echoed_ts < sent || rtt < min_rtt);
            if !ambiguous {
                self.rtt = rtt;
                if self.newest.is_none_or(|newest| (sent, seq) > newest) {
                    self.newest = Some((sent, seq));
                }
            }
        }
        if delivery.lowest_sent_once.is_some_and(|seq| seq + 1 < self.fack) {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(delivery.delivered_end);
    }

    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    /// Section 6.2 step 4: a DSACK arrived with SND.UNA at `snd_una`, SND.NXT at `snd_nxt`: the
    /// window widens by a quarter RTT, at most once per round trip, and lasts 16 recoveries.
    pub fn on_dsack(&mut self, snd_una: u32, snd_nxt: u32) {
        if self.dsack_round.is_some_and(|round| snd_una >= round) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_extra += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// Section 6.2 step 4: a recovery ended; the sixteenth since the last DSACK narrows the window
    /// back to a quarter RTT.
    pub fn on_recovery_exit(&mut self) {
        if self.reo_wnd_extra > 0 {
            self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
            if self.reo_wnd_persist == 0 {
                self.reo_wnd_extra = 0;
            }
        }
    }

    /// RACK.reo_wnd_mult.
    pub fn reo_wnd_mult(&self) -> u32 {
        self.reo_wnd_extra + 1
    }

    /// RACK.rtt.
    pub fn rtt(&self) -> Dur {
        self.rtt
    }

    /// Section 6.2 step 4: zero before any reordering while in loss recovery or with at least
    /// `dupthresh` segments SACKed (`None`: time alone decides, Linux's `TCP_RACK_NO_DUPTHRESH`),
    /// else min_rtt / 4 times RACK.reo_wnd_mult, bounded by SRTT.
    pub fn reordering_window(
        &self,
        in_loss_recovery: bool,
        sacked: u64,
        dupthresh: Option<u32>,
        min_rtt: Dur,
        srtt: Dur,
    ) -> Dur {
        let dupthresh_reached = dupthresh.is_some_and(|d| sacked >= u64::from(d));
        if !self.reordering_seen && (in_loss_recovery || dupthresh_reached) {
            0
        } else {
            (min_rtt / 4 * Dur::from(self.reo_wnd_mult())).min(srtt)
        }
    }

    /// Section 6.2 step 5 at `now`: mark lost, in `scoreboard`, every segment from `una` on sent
    /// before the most recently sent delivered one whose RACK.rtt + `reo_wnd` has passed since its
    /// last send (`log` tells which transmission of a segment is its last). Returns how many were
    /// marked; [`Self::reordering_deadline`] is then when the next one will be.
    pub fn detect_losses(
        &mut self,
        now: Time,
        reo_wnd: Dur,
        una: u32,
        scoreboard: &mut Scoreboard,
        log: &SendLog,
    ) -> u32 {
        self.deadline = None;
        let Some(newest) = self.newest else { return 0 };
        let mut marked = 0;
        while let Some(&(sent, seq)) = self.transmissions.front() {
            let current = seq >= una && log.sent_at(seq) == Some(sent) && !scoreboard.is_sacked(seq);
            if current {
                if (sent, seq) >= newest {
                    break; // not sent before the newest delivered segment, nor is anything after it
                }
                let lost_at = sent + self.rtt + reo_wnd;
                if lost_at > now {
                    self.deadline = Some(lost_at);
                    break; // later transmissions become lost later
                }
                scoreboard.mark_lost(seq);
                marked += 1;
            }
            self.transmissions.pop_front();
        }
        marked
    }

    /// When the reordering timer should fire: the earliest waiting segment becomes lost.
    pub fn reordering_deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// The retransmission timer fired: every outstanding segment is presumed lost (the
    /// scoreboard's timeout); only transmissions from now on are timed.
    pub fn on_timeout(&mut self) {
        self.transmissions.clear();
        self.deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::common::delay::RateStamp;
    use crate::tcp::sack::LossMarking;

    fn log_sends(log: &mut SendLog, rack: &mut Rack, sends: &[(Time, u32)]) {
        for &(t, seq) in sends {
            log.on_send(seq, RateStamp { sent_at: t, ..Default::default() });
            rack.on_transmit(seq, t);
        }
    }

    /// Section 6.2 step 5 on hand-computed times: 0..4 sent at 0, 10, 20, 30; 2 is SACKed at 100
    /// (RACK.rtt 80). 0 and 1 were sent before it: 0 becomes lost at 0 + 80 + 5, 1 at 95.
    #[test]
    fn segments_sent_before_the_newest_delivered_become_lost_one_window_after_it() {
        let (mut log, mut rack) = (SendLog::default(), Rack::default());
        let mut sb = Scoreboard::with_marking(LossMarking::Marked);
        log_sends(&mut log, &mut rack, &[(0, 0), (10, 1), (20, 2), (30, 3)]);
        sb.on_ack(0, [(2, 3)].into_iter());
        let sacked = log.on_sack([(2, 3)].into_iter());
        let delivery =
            Delivery { newest: sacked.newest.segment(), delivered_end: 3, echoed_ts: 20, ..Default::default() };
        rack.on_delivery(&delivery, 100, 80);
        assert_eq!(rack.rtt(), 80);
        assert_eq!(rack.detect_losses(84, 5, 0, &mut sb, &log), 0);
        assert_eq!(rack.reordering_deadline(), Some(85));
        assert_eq!(rack.detect_losses(85, 5, 0, &mut sb, &log), 1);
        assert!(sb.is_lost(0) && !sb.is_lost(1));
        assert_eq!(rack.reordering_deadline(), Some(95), "3 was sent after 2: it waits for no one");
        // 0 is retransmitted at 90: its earlier transmission no longer counts, and the new one
        // was sent after the newest delivered segment.
        sb.on_retransmit(0, 4);
        log_sends(&mut log, &mut rack, &[(90, 0)]);
        assert_eq!(rack.detect_losses(95, 5, 0, &mut sb, &log), 1);
        assert_eq!(rack.reordering_deadline(), None);
        assert!(sb.is_lost(1) && sb.next_lost(0) == Some(1));
    }

    /// Section 6.2 step 4 with DSACK: each DSACK in a new round trip adds a quarter RTT to the
    /// window (at most SRTT); a second DSACK before SND.UNA passes the first one's SND.NXT adds
    /// nothing; sixteen recoveries without a DSACK narrow it back.
    #[test]
    fn dsacks_widen_the_reordering_window_for_sixteen_recoveries() {
        let mut rack = Rack::default();
        let window = |rack: &Rack| rack.reordering_window(false, 1, Some(3), 80, 1000);
        assert_eq!(window(&rack), 20);
        rack.on_dsack(0, 10);
        assert_eq!((rack.reo_wnd_mult(), window(&rack)), (2, 40));
        rack.on_dsack(9, 12);
        assert_eq!(rack.reo_wnd_mult(), 2, "the same round trip");
        rack.on_dsack(10, 20);
        assert_eq!((rack.reo_wnd_mult(), window(&rack)), (3, 60));
        assert_eq!(rack.reordering_window(false, 1, Some(3), 80, 50), 50, "at most SRTT");
        for _ in 0..15 {
            rack.on_recovery_exit();
        }
        assert_eq!(rack.reo_wnd_mult(), 3);
        rack.on_recovery_exit();
        assert_eq!((rack.reo_wnd_mult(), window(&rack)), (1, 20));
    }

    /// Section 6.2 steps 2-4: a retransmitted segment acknowledged sooner than the minimum RTT
    /// after its retransmission tells nothing; a segment sent once and delivered below RACK.fack
    /// is reordering, and from then on the window is min_rtt / 4 even with DupThresh SACKed.
    #[test]
    fn ambiguous_acks_are_ignored_and_reordering_opens_the_window() {
        let mut rack = Rack::default();
        let sack = |newest, lowest, end| Delivery {
            newest: Some(newest),
            lowest_sent_once: lowest,
            delivered_end: end,
            echoed_ts: 0,
        };
        rack.on_delivery(&sack((100, 5, false), Some(5), 6), 180, 80);
        assert_eq!(rack.rtt(), 80);
        rack.on_delivery(&Delivery { echoed_ts: 150, ..sack((150, 2, true), None, 3) }, 200, 80);
        assert_eq!(rack.rtt(), 80, "50 after its retransmission: the original's ACK");
        assert_eq!(rack.reordering_window(false, 3, Some(3), 80, 100), 0);
        assert_eq!(rack.reordering_window(false, 3, None, 80, 100), 20, "without the DupThresh shortcut");
        assert_eq!(rack.reordering_window(true, 0, Some(3), 80, 100), 0);
        assert_eq!(rack.reordering_window(true, 0, None, 80, 100), 0, "in recovery either way");
        assert_eq!(rack.reordering_window(false, 1, Some(3), 80, 100), 20);
        assert_eq!(rack.reordering_window(false, 1, Some(3), 80, 10), 10, "at most SRTT");
        rack.on_delivery(&sack((90, 4, false), Some(4), 5), 210, 80);
        assert!(rack.reordering_seen(), "4 came after 5 without a retransmission");
        assert_eq!(rack.reordering_window(true, 3, Some(3), 80, 100), 20);
    }
}
