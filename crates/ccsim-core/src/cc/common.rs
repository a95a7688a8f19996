//! Window arithmetic shared by the loss-based algorithms (the `tcp_cong.c` of ccsim).

use super::{AckSample, CongestionEvent, CongestionKind, Window};

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

/// Multiplicative decrease to `factor * basis` on a loss or ECN; on a timeout, ssthresh as for a
/// loss (first expiry only) and cwnd to one segment.
pub fn multiplicative_decrease(ev: &CongestionEvent, w: &mut Window, factor: f64) {
    match ev.kind {
        CongestionKind::Loss | CongestionKind::Ecn => {
            w.ssthresh = (ev.basis * factor).max(MIN_SSTHRESH);
            w.cwnd = w.ssthresh;
        }
        CongestionKind::Timeout => {
            if ev.first_timeout {
                w.ssthresh = (ev.basis * factor).max(MIN_SSTHRESH);
            }
            w.cwnd = 1.0;
        }
    }
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
            srtt: 100_000_000,
            min_rtt: 100_000_000,
            one_way_delay: None,
            echoed_ts: 0,
            prior_in_flight: 10.0,
            in_flight: 10.0,
            delivered: 0,
            round_start: false,
            round: 0,
            cwnd_limited: true,
            growth: Growth { slow_start_cap: None, gating: false },
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
