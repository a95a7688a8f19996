//! Window arithmetic shared by the algorithms (the `tcp_cong.c` of ccsim), and the estimators
//! several of them need, each written once:
//!
//! * [`delay`]: the measurements the sender takes once per ACK for every algorithm
//!   ([`AckSample::delay`]: base and largest RTT, the round's summary, one-way delay, delivery
//!   rate), and [`delay::RoundRtt`], the round accumulator the algorithms whose rounds restart
//!   at recovery exit or timeouts keep for their own (Linux-defined) rounds (Vegas, YeAH,
//!   Illinois, Fusion, Compound); the base RTT of all of these, and of FAST and H-TCP, is the
//!   shared one;
//! * [`rtt_stats`]: per-round RTT minimum/mean and the all-time extremes, for the two algorithms
//!   that keep their own (Libra and AReno: their rounds and sample filters differ);
//! * [`bandwidth`]: delivery counted over intervals, and Westwood+'s filtered estimate (Westwood,
//!   H-TCP's throughput tracking);
//! * [`hystart`]: Linux's HyStart slow-start exit (CUBIC);
//! * [`hystart_pp`]: HyStart++ (RFC 9406), a wrapper that gives any algorithm its slow-start
//!   exit;
//! * [`spacing`]: Paced and Randomized TCP's transmission timing;
//! * [`ack_aggregation`] and [`departures`]: BBR's ACK-aggregation allowance and its view of the
//!   sender's next departure time (v1 and v3).
//!
//! Rounds ("once per RTT") come from the sender: [`AckSample::round_start`].

pub mod ack_aggregation;
pub mod bandwidth;
pub mod delay;
pub mod departures;
pub mod hystart;
pub mod hystart_pp;
pub mod rtt_stats;
pub mod spacing;

use super::{AckSample, CongestionEvent, CongestionKind, Window};
use crate::units::Dur;

/// Smallest ssthresh after a reduction, segments (RFC 5681 eq. 4).
pub const MIN_SSTHRESH: f64 = 2.0;

/// Whether the window is in slow start. `cwnd < ssthresh`, as ns-2, ns-3 and current Linux.
#[inline]
pub fn in_slow_start(w: &Window) -> bool {
    w.cwnd < w.ssthresh
}

/// Whether the stack allows growth on this ACK (cwnd-limited gating, RFC 7661).
#[inline]
pub fn may_grow(ack: &AckSample) -> bool {
    !ack.growth.gating || ack.cwnd_limited
}

/// Slow-start increase: one segment per unit of increase, capped per ACK where the profile says.
/// Returns the units left over if cwnd crossed ssthresh (Linux carries them into avoidance).
pub fn slow_start(ack: &AckSample, w: &mut Window) -> f64 {
    let mut inc = ack.increase_units;
    if let Some(cap) = ack.growth.slow_start_cap {
        inc = inc.min(cap);
    }
    let room = (w.ssthresh - w.cwnd).max(0.0);
    if inc <= room || ack.increase_units <= 1.0 {
        // Per-ACK growth of one segment may overshoot ssthresh by a fraction, as in ns-2.
        w.cwnd += inc;
        0.0
    } else {
        w.cwnd += room;
        inc - room
    }
}

/// Additive increase of `a` segments per window's worth of units: `cwnd += a * units / cwnd`.
#[inline]
pub fn additive_increase(w: &mut Window, a: f64, units: f64) {
    w.cwnd += a * units / w.cwnd;
}

/// One segment per `per` units of increase: the float form of Linux's
/// `tcp_cong_avoid_ai(tp, per, acked)` (`net/ipv4/tcp_cong.c`), which the CUBIC, BIC, Scalable and
/// YeAH modules call with their own `per`. Linux accumulates whole segments in `snd_cwnd_cnt`;
/// the fractional window here grows by the same amount, spread over the ACKs.
#[inline]
pub fn increase_per(w: &mut Window, per: f64, units: f64) {
    w.cwnd += units / per.max(f64::MIN_POSITIVE);
}

/// The common shape of per-ACK growth: nothing when the stack gates growth, slow start below
/// ssthresh, and congestion avoidance (`avoid`, given the units to apply) above it. Units left
/// over when slow start reaches ssthresh carry into avoidance, as Linux's `tcp_slow_start`
/// returns them to its caller.
pub fn grow(ack: &AckSample, w: &mut Window, avoid: impl FnOnce(&mut Window, f64)) {
    if !may_grow(ack) {
        return;
    }
    if in_slow_start(w) {
        let left = slow_start(ack, w);
        if left > 0.0 {
            avoid(w, left);
        }
    } else {
        avoid(w, ack.increase_units);
    }
}

/// Linux 2.6 (the modules of 2.6.22, as ns-2's TCP-Linux runs them; `linux26` parameters): slow
/// start while cwnd <= ssthresh (current Linux, ns-2 and ns-3: cwnd < ssthresh).
#[inline]
pub fn in_slow_start_2_6(w: &Window) -> bool {
    w.cwnd <= w.ssthresh
}

/// Linux 2.6 growth: one unit per ACK whatever it acknowledges (`cong_avoid` was called once per
/// ACK, and `tcp_slow_start` added one segment per call with byte counting off, the default).
/// Nothing when the stack gates growth; slow start (cwnd <= ssthresh) adds one segment with no
/// leftover carried into avoidance; otherwise `avoid` applies one ACK's increase.
pub fn grow_2_6(ack: &AckSample, w: &mut Window, avoid: impl FnOnce(&mut Window)) {
    if !may_grow(ack) {
        return;
    }
    if in_slow_start_2_6(w) {
        w.cwnd += 1.0;
    } else {
        avoid(w);
    }
}

/// The avoidance counter of the Linux 2.6 Reno, BIC, CUBIC and Scalable modules: an ACK that
/// finds `snd_cwnd_cnt` at `cnt` or more adds one segment and restarts the counter at 0 without
/// counting itself, so one segment takes cnt + 1 ACKs. Float form: 1/(cnt + 1) per ACK. (Current
/// Linux's `tcp_cong_avoid_ai` counts the incrementing ACK's segments too: cnt per segment.)
#[inline]
pub fn increase_per_ack_2_6(w: &mut Window, cnt: f64) {
    w.cwnd += 1.0 / (cnt.max(0.0) + 1.0);
}

/// Apply a reduction to `ssthresh` (floored at [`MIN_SSTHRESH`]): on a loss or ECN cwnd drops to
/// it; on a timeout only the first expiry lowers ssthresh (RFC 5681 eq. 4) and cwnd restarts at
/// one segment.
pub fn reduce_to(ev: &CongestionEvent, w: &mut Window, ssthresh: f64) {
    match ev.kind {
        CongestionKind::Loss | CongestionKind::Ecn => {
            w.ssthresh = ssthresh.max(MIN_SSTHRESH);
            w.cwnd = w.ssthresh;
        }
        CongestionKind::Timeout => {
            if ev.first_timeout {
                w.ssthresh = ssthresh.max(MIN_SSTHRESH);
            }
            w.cwnd = 1.0;
        }
    }
}

/// Multiplicative decrease to `factor * basis` on a loss or ECN; on a timeout, ssthresh as for a
/// loss (first expiry only) and cwnd to one segment.
pub fn multiplicative_decrease(ev: &CongestionEvent, w: &mut Window, factor: f64) {
    reduce_to(ev, w, ev.basis * factor);
}

/// The RTT sample for congestion control on every ACK. Under every-ACK sampling (rfc, linux)
/// it is Linux's `ca_rtt_us`: the RTT of the most recently sent segment the ACK newly covers,
/// which with delayed ACKs is the later of the two segments, where the timestamp echo times the
/// earlier one. Otherwise (ns2, whose estimator times one segment per RTT) it is the timestamp
/// echo, now minus the send time the ACK echoes. The delay-based algorithms need a sample per
/// ACK: Linux gets them from its per-segment send times, ns-2's Vegas times every segment
/// itself (`tcp-vegas.cc`).
#[inline]
pub fn ca_rtt(ack: &AckSample) -> Dur {
    ack.ca_rtt.unwrap_or_else(|| ack.now.saturating_sub(ack.echoed_ts))
}

#[cfg(test)]
pub(crate) mod testing {
    //! Builders for hand-computed traces.
    use super::super::*;

    pub fn ack(units: f64) -> AckSample {
        AckSample {
            now: 0,
            acked: units,
            increase_units: units,
            rtt: None,
            ca_rtt: None,
            srtt: 100_000_000,
            min_rtt: 100_000_000,
            one_way_delay: None,
            delay: common::delay::DelaySample::default(),
            echoed_ts: 0,
            prior_in_flight: 10.0,
            in_flight: 10.0,
            delivered: 0,
            round_start: false,
            round: 0,
            cwnd_limited: true,
            growth: Growth { slow_start_cap: None, gating: false },
            ece: false,
            delivered_now: units,
            newly_lost: 0.0,
            ce_delivered: 0.0,
            ca_state: CaState::Open,
        }
    }

    /// An ACK at t = 10 s whose timestamp echo gives an RTT of `rtt_ms` (the delay-based
    /// algorithms take their samples from the echo).
    pub fn ack_rtt(rtt_ms: u64, round_start: bool) -> AckSample {
        let mut a = ack(1.0);
        a.now = 10_000 * crate::units::NS_PER_MS;
        a.echoed_ts = a.now - rtt_ms * crate::units::NS_PER_MS;
        a.round_start = round_start;
        a
    }

    /// A sender's delay meter for hand-built ACKs: stamps each with the measurements
    /// ([`AckSample::delay`]) the sender would give it, from its RTT sample ([`ca_rtt`]) and
    /// round flag, so algorithms that read the shared base RTT see the history of the ACKs fed.
    #[derive(Default)]
    pub struct Feed(crate::tcp::delay_meter::DelayMeter);

    impl Feed {
        pub fn stamp(&mut self, mut a: AckSample) -> AckSample {
            let rtt = common::ca_rtt(&a);
            a.delay = self.0.on_ack(a.now, rtt, a.round_start, a.one_way_delay, (0, false), Default::default(), 0);
            a
        }

        /// [`ack_rtt`], stamped.
        pub fn ack_rtt(&mut self, rtt_ms: u64, round_start: bool) -> AckSample {
            self.stamp(ack_rtt(rtt_ms, round_start))
        }
    }

    pub fn congestion(kind: CongestionKind, basis: f64, first_timeout: bool) -> CongestionEvent {
        CongestionEvent {
            now: 0,
            kind,
            in_flight: basis,
            basis,
            first_timeout,
            srtt: 100_000_000,
            min_rtt: 100_000_000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::ack_rtt;
    use super::*;

    #[test]
    fn algorithms_see_the_latest_covered_segment_when_the_stack_gives_it_else_the_echo() {
        let mut a = ack_rtt(120, false);
        assert_eq!(ca_rtt(&a), 120_000_000, "ns2: the timestamp echo");
        a.ca_rtt = Some(100_000_000);
        assert_eq!(ca_rtt(&a), 100_000_000, "every-ACK sampling: Linux's ca_rtt");
    }
}
