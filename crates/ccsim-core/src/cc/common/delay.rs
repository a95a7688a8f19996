//! The delay and delivery measurements the sender takes once per ACK and hands to every
//! algorithm in [`AckSample::delay`](crate::cc::AckSample::delay), in every state (open and
//! recovery alike). The sender's `tcp::delay_meter` computes them; the types live here so that
//! algorithms (and their tests) can read and build them.

use crate::units::{Dur, Time, NS_PER_S};

/// Minimum, maximum, sum and count of the RTT samples of one round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoundRtt {
    /// Smallest sample; 0 while `count` is 0.
    pub min: Dur,
    /// Largest sample; 0 while `count` is 0.
    pub max: Dur,
    /// Sum of the samples, nanoseconds.
    pub sum: u64,
    pub count: u32,
}

impl RoundRtt {
    #[inline]
    pub fn sample(&mut self, rtt: Dur) {
        if self.count == 0 {
            self.min = rtt;
            self.max = rtt;
        } else {
            self.min = self.min.min(rtt);
            self.max = self.max.max(rtt);
        }
        self.sum += rtt;
        self.count += 1;
    }

    /// Mean of the samples, nanoseconds; `None` without samples.
    #[inline]
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }
}

/// A delivery-rate sample in the manner of Linux's `rate_sample` (`net/ipv4/tcp_rate.c`): the
/// segments delivered between the send of the most recently sent segment this ACK newly
/// delivered and now, over the longer of that segment's send interval and its ACK interval,
/// with what else happened over the same span (losses, ECN-Echo, the flight it left into).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Segments delivered (cumulatively or by SACK) since that segment left.
    pub delivered: u64,
    /// max(send interval, ACK interval). Only a [`valid`](Self::valid) sample's is a rate's
    /// denominator.
    pub interval: Dur,
    /// The segment left while the sender was app-limited (Linux `is_app_limited`: it had no data
    /// to send, or the algorithm asked through
    /// [`take_app_limited`](crate::cc::CongestionControl::take_app_limited)): the rate says less
    /// than the path's capacity.
    pub app_limited: bool,
    /// The segment was a retransmission.
    pub retransmission: bool,
    /// The sender's delivered count when that segment left (Linux `rs->prior_delivered`): a
    /// round that began with `delivered = d` ends on the first sample with `prior_delivered >= d`.
    pub prior_delivered: u64,
    /// Segments in flight just after that segment left, itself included (BBRv3's
    /// `tx_in_flight`). Counted only for an algorithm that
    /// [wants delivery rates](crate::cc::CongestionControl::wants_delivery_rate) or
    /// [sets cwnd on every ACK](crate::cc::CongestionControl::sets_cwnd_on_every_ack) (else 0:
    /// it costs a flight count per segment sent).
    pub tx_in_flight: u64,
    /// Segments the sender marked lost between that segment's send and now (Linux `rs->lost`).
    /// Counted for the same algorithms as `tx_in_flight`.
    pub lost: u64,
    /// Of [`delivered`](Self::delivered), those acknowledged by ACKs that carried ECN-Echo
    /// (Linux `rs->delivered_ce`).
    pub delivered_ce: u64,
    /// Whether the interval can be trusted as a rate's denominator: false when it is 0 or
    /// shorter than the sender's minimum RTT (Linux sets `interval_us = -1` then). The counts
    /// are meaningful either way.
    pub valid: bool,
}

impl RateSample {
    /// Delivery rate, segments per second; `None` unless [`valid`](Self::valid).
    #[inline]
    pub fn rate(&self) -> Option<f64> {
        self.valid.then(|| self.delivered as f64 * NS_PER_S as f64 / self.interval as f64)
    }
}

/// What the sender measured on one ACK that advanced the cumulative ACK.
///
/// RTTs are congestion control's sample ([`super::ca_rtt`]): under every-ACK sampling Linux's
/// `ca_rtt` (the RTT of the most recently sent segment the ACK newly covers), else the timestamp
/// echo. Every ACK gives one sample, in every state.
///
/// **Rounds** are the sender's ([`AckSample::round_start`](crate::cc::AckSample::round_start)).
/// `round` summarises the samples of the current round up to and including this ACK's. On the
/// ACK that starts a new round it describes the round that just *ended*, this ACK's sample
/// included, as Linux Vegas evaluates its round (`tcp_vegas_cong_avoid` sees the current ACK's
/// sample, then resets); the next ACK's summary holds only its own sample. So an algorithm that
/// decides once per round reads `round` on the round-start ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DelaySample {
    /// This ACK's RTT sample.
    pub latest: Dur,
    /// Smallest sample since the connection opened (the base RTT); never aged or reset.
    pub base: Dur,
    /// Largest sample since the connection opened; never aged or reset.
    pub max: Dur,
    /// The current round's samples, this one included (see above).
    pub round: RoundRtt,
    /// One-way delay of the segment whose timestamp this ACK echoes, ns: the receiver's
    /// timestamp of its arrival minus the sender's of its departure (signed: the two hosts'
    /// clocks may disagree, see [`crate::tcp::clock::ClockSkew`]).
    pub one_way_delay: Option<i64>,
    /// Delivery-rate sample; `None` when no segment newly delivered by this ACK carries a send
    /// record (the sender had none yet, or keeps none: under the ns2 profile without SACK only
    /// for an algorithm whose
    /// [`wants_delivery_rate`](crate::cc::CongestionControl::wants_delivery_rate) says so).
    /// Present but not [`valid`](RateSample::valid) when the interval is shorter than the
    /// minimum RTT (Linux does not trust it as a rate, but counts rounds, losses and marks).
    pub rate: Option<RateSample>,
    /// Segments delivered so far, this ACK's included: cumulatively or by SACK, a duplicate ACK
    /// without SACK counting one for an algorithm that sets cwnd on every ACK (Linux
    /// `tp->delivered`). A sender that keeps no send log (the ns2 profile without SACK or
    /// every-ACK RTT sampling) counts the cumulative advances alone.
    pub delivered: u64,
    /// Of [`delivered`](Self::delivered), those reported CE-marked: delivered by ACKs that
    /// carried ECN-Echo, or under AccECN the counts decoded (Linux `tp->delivered_ce`). DCTCP
    /// takes its marked fraction from the two counts' growth over a window.
    pub delivered_ce: u64,
}

/// The per-segment state the rate sample needs, recorded when the segment leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateStamp {
    /// The segment's (latest) send time.
    pub sent_at: Time,
    /// Segments delivered when it left.
    pub delivered: u64,
    /// When that count last moved (or the send that opened the flight).
    pub delivered_at: Time,
    /// Start of the send interval it belongs to.
    pub first_sent: Time,
    pub app_limited: bool,
    pub retransmission: bool,
    /// Segments in flight just after it left, itself included.
    pub in_flight: u64,
    /// Segments the sender had marked lost when it left.
    pub lost: u64,
    /// Segments delivered by ACKs with ECN-Echo when it left.
    pub delivered_ce: u64,
}
