//! The delay and delivery measurements of one sender, taken once per ACK for every algorithm
//! ([`DelaySample`], handed over as `AckSample::delay`).
//!
//! * RTT: every ACK that advances the cumulative ACK gives one sample (congestion control's
//!   `ca_rtt`), in every state; the meter keeps the smallest and largest ever and the current
//!   round's minimum, mean, maximum and count. A round's summary includes the sample of the ACK
//!   that ends it (the ACK flagged `round_start`) and is cleared on the next ACK.
//! * Delivery rate, in the manner of Linux `net/ipv4/tcp_rate.c`: each segment is stamped when it
//!   leaves with the delivered count, the time that count last moved, and the start of the
//!   current send interval ([`RateStamp`]). An ACK takes the most recently sent segment it newly
//!   delivers (cumulatively or by SACK): delivered = delivered now - delivered at its send, over
//!   max(its send time - its interval's start, now - delivered time at its send). Samples shorter
//!   than the sender's minimum RTT are kept but flagged not valid as rates, as Linux does. Delivered counts segments newly
//!   SACKed or cumulatively acknowledged without having been SACKed; without SACK a duplicate ACK
//!   delivers nothing here (Linux counts one per duplicate ACK then).

use crate::cc::common::delay::{DelaySample, RateSample, RateStamp, RoundRtt};
use crate::tcp::send_log::Newest;
use crate::units::{Dur, Time};

#[derive(Clone, Debug, Default)]
pub struct DelayMeter {
    base: Option<Dur>,
    max: Dur,
    /// The last RTT sample.
    latest: Dur,
    round: RoundRtt,
    /// The last ACK ended a round: clear the summary before the next sample.
    clear_round: bool,
    /// Segments delivered so far (Linux `tp->delivered`).
    delivered: u64,
    /// When `delivered` last moved, or when a send opened an empty flight.
    delivered_at: Time,
    /// Start of the current send interval (Linux `first_tx_mstamp`).
    first_sent: Time,
    /// While nonzero, the sender ran out of data with this many segments delivered or in flight;
    /// segments sent until more than that are delivered are app-limited (Linux `app_limited`).
    app_limited_until: u64,
    /// Segments the sender has marked lost so far (Linux `tp->lost`).
    lost: u64,
    /// Segments reported CE-marked (Linux `tp->delivered_ce`): those delivered by ACKs that
    /// carried ECN-Echo, or under AccECN the counts decoded ([`Self::on_ce_reported`]).
    delivered_ce: u64,
}

impl DelayMeter {
    /// A segment leaves at `now`, `in_flight` segments in flight with it; `empty` when nothing
    /// was outstanding before it (a new flight starts its intervals here).
    #[inline]
    pub fn on_send(&mut self, now: Time, empty: bool, in_flight: u64) -> RateStamp {
        if empty {
            self.first_sent = now;
            self.delivered_at = now;
        }
        RateStamp {
            sent_at: now,
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_sent: self.first_sent,
            app_limited: self.app_limited_until != 0,
            retransmission: false,
            in_flight,
            lost: self.lost,
            delivered_ce: self.delivered_ce,
        }
    }

    /// The sender has no more data to send with `in_flight` segments outstanding (or the
    /// algorithm asked to mark the flight app-limited).
    #[inline]
    pub fn on_out_of_data(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }

    /// The sender marked `count` more segments lost.
    #[inline]
    pub fn on_lost(&mut self, count: u64) {
        self.lost += count;
    }

    /// Segments delivered so far.
    #[inline]
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// `count` segments were newly delivered at `now` by an ACK with ECN-Echo (`ece`) or
    /// without, the most recently sent of them `newest` (an ACK that does not advance the
    /// cumulative ACK, with new SACK blocks, or the first step of [`Self::on_ack`]). Returns the
    /// newest segment's stamp.
    #[inline]
    pub fn on_delivered(&mut self, now: Time, count: u32, newest: Newest, ece: bool) -> Option<RateStamp> {
        if count > 0 {
            self.delivered += count as u64;
            if ece {
                self.delivered_ce += count as u64;
            }
            self.delivered_at = now;
            if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
                self.app_limited_until = 0;
            }
        }
        let stamp = newest.stamp()?;
        // The next send interval starts at this segment's send (Linux `tcp_rate_skb_delivered`).
        self.first_sent = stamp.sent_at;
        Some(stamp)
    }

    /// An AccECN ACK reported `count` CE-marked segments: counted before the ACK's deliveries
    /// (which then come with `ece` false), so that its rate sample includes them.
    #[inline]
    pub fn on_ce_reported(&mut self, count: u32) {
        self.delivered_ce += u64::from(count);
    }

    /// An ACK that advanced the cumulative ACK: take its RTT sample `rtt` and its deliveries
    /// (`delivered`, ECN-Echo with them or not), and say what the algorithms see. `round_start`
    /// is the sender's flag for this ACK; `min_rtt` the sender's minimum RTT (rate samples over a
    /// shorter interval are not valid).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn on_ack(
        &mut self,
        now: Time,
        rtt: Dur,
        round_start: bool,
        one_way_delay: Option<i64>,
        (delivered, ece): (u32, bool),
        newest: Newest,
        min_rtt: Dur,
    ) -> DelaySample {
        let base = self.base.map_or(rtt, |b| b.min(rtt));
        self.base = Some(base);
        self.max = self.max.max(rtt);
        self.latest = rtt;
        if self.clear_round {
            self.round = RoundRtt::default();
        }
        self.round.sample(rtt);
        self.clear_round = round_start;
        let rate = self.on_delivered(now, delivered, newest, ece).map(|s| self.rate_sample(now, &s, min_rtt));
        DelaySample {
            latest: rtt,
            base,
            max: self.max,
            round: self.round,
            one_way_delay,
            rate,
            delivered: self.delivered,
            delivered_ce: self.delivered_ce,
        }
    }

    /// An ACK that did not advance the cumulative ACK but delivered `delivered` segments (by
    /// SACK, or one for a duplicate ACK without SACK), for an algorithm that sees every ACK: the
    /// measurements as they stand, with a rate sample when a delivered segment has a send record.
    /// RTT statistics and rounds take no sample from it.
    #[inline]
    pub fn on_old_ack(
        &mut self,
        now: Time,
        one_way_delay: Option<i64>,
        (delivered, ece): (u32, bool),
        newest: Newest,
        min_rtt: Dur,
    ) -> DelaySample {
        let rate = self.on_delivered(now, delivered, newest, ece).map(|s| self.rate_sample(now, &s, min_rtt));
        DelaySample {
            latest: self.latest,
            base: self.base.unwrap_or(0),
            max: self.max,
            round: self.round,
            one_way_delay,
            rate,
            delivered: self.delivered,
            delivered_ce: self.delivered_ce,
        }
    }

    /// The rate sample of the segment stamped `s`, its deliveries counted (Linux
    /// `tcp_rate_gen`).
    #[inline]
    fn rate_sample(&self, now: Time, s: &RateStamp, min_rtt: Dur) -> RateSample {
        let send = s.sent_at.saturating_sub(s.first_sent);
        let ack = now.saturating_sub(s.delivered_at);
        let interval = send.max(ack);
        RateSample {
            delivered: self.delivered - s.delivered,
            interval,
            app_limited: s.app_limited,
            retransmission: s.retransmission,
            prior_delivered: s.delivered,
            tx_in_flight: s.in_flight,
            lost: self.lost - s.lost,
            delivered_ce: self.delivered_ce - s.delivered_ce,
            valid: interval > 0 && interval >= min_rtt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::send_log::SendLog;

    fn ack(m: &mut DelayMeter, rtt: Dur, round_start: bool) -> DelaySample {
        m.on_ack(0, rtt, round_start, None, (0, false), Newest::default(), 0)
    }

    /// Round 1: 30, 10, 20 and the round-start ACK with 40 (min 10, max 40, mean 25, 4
    /// samples); round 2 starts with the next ACK (50 alone), then 5 lowers base and round min.
    #[test]
    fn the_round_start_ack_closes_its_round_with_its_own_sample() {
        let mut m = DelayMeter::default();
        for r in [30, 10, 20] {
            ack(&mut m, r, false);
        }
        let d = ack(&mut m, 40, true);
        assert_eq!(d.round, RoundRtt { min: 10, max: 40, sum: 100, count: 4 });
        assert_eq!((d.round.mean(), d.base, d.max, d.latest), (Some(25.0), 10, 40, 40));
        let d = ack(&mut m, 50, false);
        assert_eq!(d.round, RoundRtt { min: 50, max: 50, sum: 50, count: 1 });
        assert_eq!((d.base, d.max), (10, 50));
        let d = ack(&mut m, 5, false);
        assert_eq!((d.round.min, d.round.max, d.round.count, d.round.mean()), (5, 50, 2, Some(27.5)));
        assert_eq!(d.base, 5);
    }

    /// The base is the minimum of every sample the sender takes, whatever the state: the meter is
    /// fed on each ACK that advances the cumulative ACK, in recovery as outside it, and nothing
    /// (a loss, a timeout) resets it.
    #[test]
    fn the_base_and_max_never_reset() {
        let mut m = DelayMeter::default();
        ack(&mut m, 100, false);
        ack(&mut m, 90, true); // e.g. a partial ACK in recovery
        let d = ack(&mut m, 120, false);
        assert_eq!((d.base, d.max, d.round.count), (90, 120, 1));
        let d = ack(&mut m, 95, true);
        assert_eq!((d.base, d.max, d.round.min, d.round.count), (90, 120, 95, 2));
    }

    /// Sends at 0, 10, 20, 30 (ns), flight empty at the first. A delayed ACK at 100 covers 0 and
    /// 1: delivered 2 since segment 1 left (it left with 0 delivered, stamped at 0), interval
    /// max(10 - 0, 100 - 0) = 100. Segment 4 leaves at 110, stamped with delivered 2 at 100 and
    /// its send interval starting at 10 (segment 1's send). The ACK at 130 covers 2 and 3:
    /// delivered 4 - 0 = 4 over max(30 - 0, 130 - 0) = 130. The ACK at 200 covers 4: 5 - 2 = 3
    /// over max(110 - 10, 200 - 100) = 100, valid with a 100 ns minimum RTT; a minimum of 150
    /// drops it.
    #[test]
    fn rate_samples_follow_the_newest_segment_each_ack_delivers() {
        let mut m = DelayMeter::default();
        let mut log = SendLog::default();
        for (seq, t) in [(0, 0), (1, 10), (2, 20), (3, 30)] {
            log.on_send(seq, m.on_send(t, seq == 0, seq as u64 + 1));
        }
        let ack_at = |m: &mut DelayMeter, log: &mut SendLog, now, to, min_rtt| {
            let c = log.on_cumulative_ack(to);
            m.on_ack(now, 50, false, None, (c.delivered, false), c.newest, min_rtt).rate
        };
        let r = ack_at(&mut m, &mut log, 100, 2, 0).unwrap();
        assert_eq!((r.delivered, r.interval, r.app_limited), (2, 100, false));
        assert_eq!(r.rate(), Some(2e7));
        log.on_send(4, m.on_send(110, false, 3));
        let r = ack_at(&mut m, &mut log, 130, 4, 0).unwrap();
        assert_eq!((r.delivered, r.interval), (4, 130));
        let (mut m2, mut log2) = (m.clone(), log.clone());
        let r = ack_at(&mut m, &mut log, 200, 5, 100).unwrap();
        assert_eq!((r.delivered, r.interval), (3, 100));
        let r = ack_at(&mut m2, &mut log2, 200, 5, 150).unwrap();
        assert!(!r.valid, "shorter than the minimum RTT");
        assert_eq!((r.delivered, r.rate()), (3, None));
    }

    /// Out of data with 3 segments delivered and 2 in flight: segments sent now are app-limited
    /// until more than 5 are delivered.
    #[test]
    fn segments_sent_without_data_to_send_are_app_limited_until_the_flight_is_delivered() {
        let mut m = DelayMeter::default();
        m.on_delivered(10, 3, Newest::default(), false);
        m.on_out_of_data(2);
        assert!(m.on_send(20, false, 3).app_limited);
        m.on_delivered(30, 2, Newest::default(), false);
        assert!(m.on_send(40, false, 3).app_limited, "5 delivered: not past the mark yet");
        m.on_delivered(50, 1, Newest::default(), false);
        assert!(!m.on_send(60, false, 3).app_limited);
    }
}
