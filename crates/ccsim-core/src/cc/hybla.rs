//! TCP Hybla (C. Caini, R. Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous
//! networks", Int. J. Satellite Communications and Networking 22(5), 2004; Linux
//! `net/ipv4/tcp_hybla.c`).
//!
//! A long-RTT flow grows its window per unit of time like a reference flow of RTT0 = 25 ms:
//! with rho = RTT / RTT0 (at least 1), slow start adds 2^rho - 1 segments per ACK and congestion
//! avoidance rho^2 / cwnd, so the window grows rho^2 segments per RTT and the rate like a Reno
//! flow at RTT0. Losses are handled as Reno's. With RTT <= RTT0 it is Reno.
//!
//! Choices where sources differ (Linux followed):
//! * rho comes from the smallest smoothed RTT seen (Linux; ns-3 uses the minimum RTT sample) and
//!   RTT0 is 25 ms (Linux and the paper; ns-3 50 ms).
//! * The increase is per ACK, not per acknowledged segment (`per_ack = false` counts segments, the
//!   paper's one-ACK-per-segment intent); 2^rho is capped at 2^16 as Linux does. Linux keeps rho
//!   in eighths and 2^rho from a table; ccsim computes both exactly.
//! * Slow start stops at ssthresh (Linux clamps the window to it).
//! * Initial window: the stack profile's. Linux sets cwnd = rho at connection start, which is
//!   below the profile's IW on most paths.
//! * After a timeout Hybla's slow start applies at once; Linux uses Reno's until its loss
//!   recovery is over.

use super::common::{in_slow_start, may_grow, multiplicative_decrease};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, Window};
use crate::units::{secs, Dur, NS_PER_MS};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "rtt0_ms",
        kind: ParamKind::Float,
        default: 25.0,
        min: 0.001,
        max: 1e6,
        doc: "reference RTT the flow emulates, ms (paper and Linux 25; ns-3 50)",
    },
    ParamInfo {
        name: "per_ack",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "apply the increase once per ACK as Linux (true) or per acknowledged segment (false); \
              they differ only with delayed ACKs",
    },
];

/// Linux caps the slow-start exponent at 16.
const MAX_RHO_EXPONENT: f64 = 16.0;

#[derive(Clone, Debug)]
pub struct Hybla {
    rtt0: f64,
    per_ack: bool,
    rho: f64,
    min_srtt: Option<Dur>,
}

impl Default for Hybla {
    fn default() -> Self {
        Hybla { rtt0: secs(25 * NS_PER_MS), per_ack: true, rho: 1.0, min_srtt: None }
    }
}

impl Hybla {
    pub fn from_params(p: &Params) -> Self {
        Hybla { rtt0: p.get("rtt0_ms") / 1e3, per_ack: p.flag("per_ack"), ..Default::default() }
    }

    pub fn rho(&self) -> f64 {
        self.rho
    }

    fn track_rho(&mut self, srtt: Dur) {
        if srtt == 0 || self.min_srtt.is_some_and(|m| srtt >= m) {
            return;
        }
        self.min_srtt = Some(srtt);
        self.rho = (secs(srtt) / self.rtt0).max(1.0);
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        "hybla"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.track_rho(ack.srtt);
        if !may_grow(ack) {
            return;
        }
        let units = if self.per_ack { 1.0 } else { ack.increase_units };
        if in_slow_start(w) {
            let inc = crate::math::powf(2.0, self.rho.min(MAX_RHO_EXPONENT)) - 1.0;
            w.cwnd = (w.cwnd + inc * units).min(w.ssthresh);
        } else {
            w.cwnd += self.rho * self.rho * units / w.cwnd;
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        multiplicative_decrease(ev, w, 0.5);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::super::CongestionKind;
    use super::*;

    fn ack_srtt(srtt_ms: u64, units: f64) -> AckSample {
        let mut a = ack(units);
        a.srtt = srtt_ms * NS_PER_MS;
        a
    }

    /// srtt 100 ms: rho = 100/25 = 4. Slow start adds 2^4 - 1 = 15 per ACK (x16 per RTT), capped
    /// at ssthresh; avoidance adds rho^2/cwnd = 16/cwnd per ACK (16 per RTT).
    #[test]
    fn long_rtts_grow_rho_squared_per_rtt() {
        let mut cc = Hybla::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 50.0 };
        cc.on_ack(&ack_srtt(100, 1.0), &mut w);
        assert_eq!((cc.rho(), w.cwnd), (4.0, 25.0));
        cc.on_ack(&ack_srtt(100, 1.0), &mut w);
        assert_eq!(w.cwnd, 40.0);
        cc.on_ack(&ack_srtt(100, 1.0), &mut w);
        assert_eq!(w.cwnd, 50.0, "clamped at ssthresh");
        cc.on_ack(&ack_srtt(100, 1.0), &mut w);
        assert_eq!(w.cwnd, 50.0 + 16.0 / 50.0);
        // Per ACK: a delayed ACK for two segments adds the same.
        let before = w.cwnd;
        cc.on_ack(&ack_srtt(100, 2.0), &mut w);
        assert!((w.cwnd - (before + 16.0 / before)).abs() < 1e-12);
        // A larger srtt does not change rho (minimum smoothed RTT); a smaller one does:
        // 50 ms -> rho 2.
        cc.on_ack(&ack_srtt(200, 1.0), &mut w);
        assert_eq!(cc.rho(), 4.0);
        cc.on_ack(&ack_srtt(50, 1.0), &mut w);
        assert_eq!(cc.rho(), 2.0);
    }

    /// srtt 10 ms < RTT0: rho = 1, exactly Reno (+1 per ACK in slow start, 1/cwnd after).
    #[test]
    fn short_rtts_are_reno() {
        let mut cc = Hybla::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 11.0 };
        cc.on_ack(&ack_srtt(10, 1.0), &mut w);
        assert_eq!((cc.rho(), w.cwnd), (1.0, 11.0));
        cc.on_ack(&ack_srtt(10, 1.0), &mut w);
        assert_eq!(w.cwnd, 11.0 + 1.0 / 11.0);
        cc.on_congestion(&congestion(CongestionKind::Loss, 12.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 6.0, ssthresh: 6.0 });
    }

    /// Fractional rho: srtt 60 ms gives rho 2.4, 2^2.4 - 1 = 4.278 per slow-start ACK.
    #[test]
    fn fractional_rho_uses_the_exact_power() {
        let mut cc = Hybla::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 100.0 };
        cc.on_ack(&ack_srtt(60, 1.0), &mut w);
        assert!((cc.rho() - 2.4).abs() < 1e-12);
        assert!((w.cwnd - (10.0 + 2f64.powf(2.4) - 1.0)).abs() < 1e-12);
        assert!((w.cwnd - 14.2780).abs() < 1e-4);
    }
}
