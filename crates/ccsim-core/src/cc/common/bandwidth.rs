//! Delivery-rate estimation from ACKs.
//!
//! [`DeliveryInterval`] counts segments acknowledged since an interval began and turns them into
//! a rate when the caller closes it; H-TCP closes one per RTT for its throughput tracking.
//! [`WestwoodBwe`] is Westwood+'s filtered bandwidth estimate (Grieco & Mascolo, "Performance
//! evaluation and comparison of Westwood+, New Reno and Vegas TCP congestion control", CCR 2004;
//! the Linux form in `net/ipv4/tcp_westwood.c`), kept here because the Westwood family
//! (TCPW-RE, TCP-Fusion, Adaptive Reno) builds on the same estimate.
//!
//! Rates are in segments per second: windows are in segments everywhere in `cc`.

use crate::units::{secs, Dur, Time, NS_PER_MS};

/// Segments delivered since `start`.
#[derive(Clone, Debug, Default)]
pub struct DeliveryInterval {
    start: Time,
    segments: f64,
}

impl DeliveryInterval {
    pub fn restart(&mut self, now: Time) {
        self.start = now;
        self.segments = 0.0;
    }

    pub fn add(&mut self, segments: f64) {
        self.segments += segments;
    }

    pub fn segments(&self) -> f64 {
        self.segments
    }

    pub fn elapsed(&self, now: Time) -> Dur {
        now.saturating_sub(self.start)
    }

    /// The rate over the interval, segments/s (0 for an empty interval); a new one starts now.
    pub fn close(&mut self, now: Time) -> f64 {
        let dt = secs(self.elapsed(now));
        let rate = if dt > 0.0 { self.segments / dt } else { 0.0 };
        self.restart(now);
        rate
    }
}

/// Shortest sampling interval (Linux `TCP_WESTWOOD_RTT_MIN` = HZ/20): on short paths an interval
/// of one RTT would hold too few ACKs to give a useful sample.
pub const WESTWOOD_MIN_INTERVAL: Dur = 50 * NS_PER_MS;

/// How long a [`WestwoodBwe`] sampling interval lasts: it closes on the first ACK after more
/// than this has elapsed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BweSpan {
    /// Westwood+ (Linux): max(latest RTT, [`WESTWOOD_MIN_INTERVAL`]).
    #[default]
    Westwood,
    /// The latest RTT sample, without the 50 ms floor.
    Rtt,
    /// A fixed duration, nanoseconds.
    Fixed(Dur),
}

/// Westwood+'s bandwidth estimate: one sample per interval of at least an RTT (and at least
/// [`WESTWOOD_MIN_INTERVAL`]), smoothed by two cascaded EWMAs of gain 1/8 (Linux
/// `westwood_filter`). Duplicate ACKs are credited as one delivered segment each and subtracted
/// again from the cumulative ACK that covers them (`westwood_acked_count`), so the estimate does
/// not collapse during recovery and spike after it.
#[derive(Clone, Debug, Default)]
pub struct WestwoodBwe {
    span: BweSpan,
    interval: DeliveryInterval,
    /// First filter stage (`bw_ns_est`) and the estimate (`bw_est`), segments/s.
    first_stage: f64,
    estimate: f64,
    /// Cumulative ACK point already counted (`w->snd_una`); `None` until the first ACK.
    counted_to: Option<u64>,
    /// Segments credited to duplicate ACKs and not yet covered by a cumulative ACK.
    dup_credit: f64,
    /// Latest RTT sample and the minimum since the last reset.
    rtt: Option<Dur>,
    rtt_min: Option<Dur>,
    reset_rtt_min: bool,
}

impl WestwoodBwe {
    pub fn new(now: Time) -> Self {
        Self::with_span(now, BweSpan::default())
    }

    /// An estimate whose sampling intervals last `span` (TCPW-RE's rate estimate).
    pub fn with_span(now: Time, span: BweSpan) -> Self {
        let mut w = WestwoodBwe { span, reset_rtt_min: true, ..Default::default() };
        w.interval.restart(now);
        w
    }

    /// An ACK that advanced the cumulative ACK to `delivered` segments, with its RTT sample.
    pub fn on_ack(&mut self, now: Time, delivered: u64, rtt: Dur) {
        if rtt > 0 {
            self.rtt = Some(rtt);
        }
        let Some(counted) = self.counted_to else {
            // The first ACK only sets the counting point (Linux `first_ack`).
            self.counted_to = Some(delivered);
            self.update_rtt_min();
            return;
        };
        self.maybe_sample(now);
        let mut newly = delivered.saturating_sub(counted) as f64;
        if newly > 1.0 {
            // A cumulative ACK after duplicates: what they were credited is taken off it, and an
            // ACK fully covered by earlier credit still counts one segment.
            if self.dup_credit >= newly {
                self.dup_credit -= newly;
                newly = 1.0;
            } else {
                newly -= self.dup_credit;
                self.dup_credit = 0.0;
            }
        }
        self.interval.add(newly);
        self.counted_to = Some(delivered);
        self.update_rtt_min();
    }

    /// A duplicate ACK: a segment left the network.
    pub fn on_dupack(&mut self, now: Time) {
        if self.counted_to.is_none() {
            return;
        }
        self.maybe_sample(now);
        self.dup_credit += 1.0;
        self.interval.add(1.0);
    }

    /// Close the sampling interval once it spans more than its span (Westwood+: max(RTT, 50 ms)).
    /// No sample is taken before the first RTT sample, whatever the span.
    fn maybe_sample(&mut self, now: Time) {
        let Some(rtt) = self.rtt else { return };
        let span = match self.span {
            BweSpan::Westwood => rtt.max(WESTWOOD_MIN_INTERVAL),
            BweSpan::Rtt => rtt,
            BweSpan::Fixed(t) => t,
        };
        if self.interval.elapsed(now) <= span {
            return;
        }
        let sample = self.interval.close(now);
        if self.estimate == 0.0 && self.first_stage == 0.0 {
            // The first sample seeds both stages.
            self.first_stage = sample;
            self.estimate = sample;
        } else {
            self.first_stage = ewma_eighth(self.first_stage, sample);
            self.estimate = ewma_eighth(self.estimate, self.first_stage);
        }
    }

    fn update_rtt_min(&mut self) {
        let Some(rtt) = self.rtt else { return };
        self.rtt_min = match (self.reset_rtt_min, self.rtt_min) {
            (false, Some(m)) => Some(m.min(rtt)),
            _ => Some(rtt),
        };
        self.reset_rtt_min = false;
    }

    /// Take the next RTT sample as the new minimum (Linux does this after a timeout, in case the
    /// path changed).
    pub fn reset_rtt_min(&mut self) {
        self.reset_rtt_min = true;
    }

    /// The filtered estimate, segments/s.
    pub fn estimate(&self) -> f64 {
        self.estimate
    }

    pub fn rtt_min(&self) -> Option<Dur> {
        self.rtt_min
    }

    /// Estimated bandwidth times the minimum RTT: the pipe without a queue, segments.
    pub fn pipe(&self) -> f64 {
        self.estimate * self.rtt_min.map_or(0.0, secs)
    }
}

/// `(7 old + new) / 8`, Linux `westwood_do_filter`.
fn ewma_eighth(old: f64, new: f64) -> f64 {
    (7.0 * old + new) / 8.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NS_PER_MS;

    #[test]
    fn delivery_interval_gives_segments_per_second() {
        let mut d = DeliveryInterval::default();
        d.restart(0);
        d.add(30.0);
        d.add(20.0);
        assert_eq!(d.close(500 * MS), 100.0);
        assert_eq!(d.segments(), 0.0);
        assert_eq!(d.elapsed(600 * MS), 100 * MS);
    }

    /// 10 segments per ACK every 10 ms (1000 segments/s), RTT 100 ms, estimator started at 0.
    #[test]
    fn westwood_samples_once_per_rtt_and_filters_in_two_stages() {
        let mut b = WestwoodBwe::new(0);
        let rtt = 100 * MS;
        // The ACK at 10 ms only sets the counting point.
        b.on_ack(10 * MS, 10, rtt);
        // The ACK at 110 ms is the first more than 100 ms into the interval: it closes it before
        // being counted, so the sample holds the ACKs of 20..100 ms, 90 segments in 110 ms.
        for k in 2..=11u64 {
            b.on_ack(k * 10 * MS, 10 * k, rtt);
        }
        let first = 90.0 / 0.110;
        assert!((b.estimate() - first).abs() < 1e-9, "{}", b.estimate());
        // The next interval starts at 110 ms and closes at 220 ms with the ACKs of 110..210 ms:
        // 110 segments in 110 ms. The first sample seeded both stages, so each stage moves 1/8 of
        // the way toward its input.
        for k in 12..=22u64 {
            b.on_ack(k * 10 * MS, 10 * k, rtt);
        }
        let sample = 110.0 / 0.110;
        let stage1 = (7.0 * first + sample) / 8.0;
        let est = (7.0 * first + stage1) / 8.0;
        assert!((b.estimate() - est).abs() < 1e-9, "{} vs {est}", b.estimate());
        assert_eq!(b.rtt_min(), Some(rtt));
        assert!((b.pipe() - est * 0.1).abs() < 1e-9);
    }

    #[test]
    fn duplicate_acks_are_credited_once() {
        let mut b = WestwoodBwe::new(0);
        b.on_ack(0, 100, 50 * MS);
        // Three duplicates, then a cumulative ACK for 5 segments: 3 + (5 - 3) = 5 in all.
        for _ in 0..3 {
            b.on_dupack(MS);
        }
        b.on_ack(2 * MS, 105, 50 * MS);
        assert_eq!(b.interval.segments(), 5.0);
        assert_eq!(b.dup_credit, 0.0);
        // A single-segment ACK is counted in full even with credit outstanding (Linux counts
        // only ACKs above one MSS against the credit).
        b.on_dupack(3 * MS);
        b.on_ack(4 * MS, 106, 50 * MS);
        assert_eq!(b.interval.segments(), 7.0);
        assert_eq!(b.dup_credit, 1.0);
        // Credit covering a whole cumulative ACK: it counts one segment and uses up its size.
        for _ in 0..3 {
            b.on_dupack(5 * MS);
        }
        b.on_ack(6 * MS, 109, 50 * MS);
        assert_eq!(b.interval.segments(), 11.0);
        assert_eq!(b.dup_credit, 1.0);
    }

    #[test]
    fn rtt_min_can_be_reset_to_the_next_sample() {
        let mut b = WestwoodBwe::new(0);
        b.on_ack(0, 1, 40 * MS);
        b.on_ack(MS, 2, 60 * MS);
        assert_eq!(b.rtt_min(), Some(40 * MS));
        b.reset_rtt_min();
        b.on_ack(2 * MS, 3, 60 * MS);
        assert_eq!(b.rtt_min(), Some(60 * MS));
    }
}
