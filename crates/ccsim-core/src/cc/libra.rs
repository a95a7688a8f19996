//! TCP Libra (G. Marfia, C. Palazzi, G. Pau, M. Gerla, M. Y. Sanadidi, M. Roccetti, "TCP Libra:
//! Exploring RTT-Fairness for TCP", UCLA CSD TR-050037, 2005 / IFIP Networking 2007), in the form
//! seed 002 gives it (Ogura, Fujikawa, Zhou, Katto, eq. 6-7).
//!
//! AIMD whose amounts depend on the flow's RTT T (seconds): congestion avoidance adds
//! alpha(T) = gamma T^2 / (T + RTT0) segments per RTT and a loss removes the fraction
//! beta(T) = RTT1 / (2 (T + RTT0)) of the window. With RTT0, RTT1 >> T the increase grows as T^2,
//! so every flow gains the same rate per unit of time whatever its RTT, and the AIMD throughput
//! (1/T) sqrt(alpha/beta (1-p)/p) = sqrt(2 gamma/RTT1 (1-p)/p) does not depend on T (eq. 8).
//! Slow start is Reno's.
//!
//! Choices (docs/algorithms.md, "libra"; the sources leave them open):
//! * The original RTT0, RTT1 and gamma were not found. Seed 002 sets gamma "assuming RTT 40 ms"
//!   so that Libra behaves as Reno at 40 ms. The literal constants (RTT1 = RTT0 = 10 s,
//!   gamma = RTT0 / 0.04^2) give alpha(40 ms) = 10/10.04 = 0.996 and beta = 0.498, Reno only
//!   approximately. By default ccsim calibrates both exactly at `reno_rtt` = 40 ms:
//!   gamma = (RTT0 + 0.04)/0.04^2 and RTT1 = RTT0 + 0.04, so alpha(40 ms) = 1 and
//!   beta(40 ms) = 1/2 and the window trace is Reno's; elsewhere the law is eq. 6-7 with its
//!   T + RTT0 denominators (alpha(T) = (T/0.04)^2 (RTT0 + 0.04)/(RTT0 + T)). Setting `gamma` and
//!   `rtt1` explicitly (e.g. 6250 and 10) gives the literal constants.
//! * T is the sender's smoothed RTT (default); `rtt_source` = 1 takes the smallest
//!   sample of the current round, 2 the smallest ever (base RTT), both from the congestion-
//!   control RTT samples. Before any sample T is the ACK's own sample.
//! * A loss uses beta of the T seen on the last ACK before it; ssthresh = max((1 - beta) basis,
//!   2), cwnd = ssthresh; a timeout lowers ssthresh the same way (first expiry only) and restarts
//!   from one segment. Fast recovery is Reno's, as for the `reno` it equals at 40 ms.
//! * The capacity-scaled increase of the later papers (k1, k2, packet-pair capacity) is not
//!   implemented: its constants were not found.

use super::common::rtt_stats::RttStats;
use super::common::{additive_increase, ca_rtt, grow, reduce_to};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, RecoveryProcedure, Window};
use crate::units::Dur;

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "reno_rtt",
        kind: ParamKind::Float,
        default: 0.04,
        min: 1e-4,
        max: 10.0,
        doc: "RTT at which Libra equals Reno, seconds (seed 002: 40 ms); sets gamma and rtt1 when they are 0",
    },
    ParamInfo {
        name: "rtt0",
        kind: ParamKind::Float,
        default: 10.0,
        min: 1e-3,
        max: 1e6,
        doc: "RTT0 of eq. 6-7, seconds, >> any RTT (default 10 s; original not found)",
    },
    ParamInfo {
        name: "rtt1",
        kind: ParamKind::Float,
        default: 0.0,
        min: 0.0,
        max: 1e6,
        doc: "RTT1 of eq. 7, seconds; 0 = rtt0 + reno_rtt, so beta(reno_rtt) = 1/2 exactly",
    },
    ParamInfo {
        name: "gamma",
        kind: ParamKind::Float,
        default: 0.0,
        min: 0.0,
        max: 1e12,
        doc: "gamma of eq. 6, 1/s; 0 = (rtt0 + reno_rtt)/reno_rtt^2, so alpha(reno_rtt) = 1 exactly",
    },
    ParamInfo {
        name: "rtt_source",
        kind: ParamKind::Int,
        default: 0.0,
        min: 0.0,
        max: 2.0,
        doc: "T: 0 = smoothed RTT (default), 1 = smallest sample of the round, 2 = base RTT",
    },
];

/// Smallest T, seconds: Linux's 1 us guard against a zero RTT.
const MIN_T: f64 = 1e-6;

#[derive(Clone, Debug)]
pub struct Libra {
    reno_rtt: f64,
    rtt0: f64,
    /// `None`: calibrated at `reno_rtt`.
    rtt1: Option<f64>,
    gamma: Option<f64>,
    rtt_source: u32,
    rtt: RttStats,
    /// T on the last ACK, seconds.
    t: Option<f64>,
}

impl Default for Libra {
    fn default() -> Self {
        Libra { reno_rtt: 0.04, rtt0: 10.0, rtt1: None, gamma: None, rtt_source: 0, rtt: RttStats::default(), t: None }
    }
}

fn secs(d: Dur) -> f64 {
    d as f64 * 1e-9
}

impl Libra {
    pub fn from_params(p: &Params) -> Self {
        let set = |v: f64| (v > 0.0).then_some(v);
        Libra {
            reno_rtt: p.get("reno_rtt"),
            rtt0: p.get("rtt0"),
            rtt1: set(p.get("rtt1")),
            gamma: set(p.get("gamma")),
            rtt_source: p.get("rtt_source") as u32,
            ..Default::default()
        }
    }

    /// Segments added per RTT at RTT `t` seconds (eq. 6).
    pub fn alpha(&self, t: f64) -> f64 {
        match self.gamma {
            Some(g) => g * t * t / (t + self.rtt0),
            // gamma = (RTT0 + Tr)/Tr^2, written so that t = Tr gives exactly 1.
            None => {
                let x = t / self.reno_rtt;
                x * x * ((self.rtt0 + self.reno_rtt) / (self.rtt0 + t))
            }
        }
    }

    /// Fraction of the window removed by a loss at RTT `t` seconds (eq. 7).
    pub fn beta(&self, t: f64) -> f64 {
        let rtt1 = self.rtt1.unwrap_or(self.rtt0 + self.reno_rtt);
        (rtt1 / (2.0 * (t + self.rtt0))).min(1.0)
    }

    /// The T of the last ACK, seconds.
    pub fn t(&self) -> Option<f64> {
        self.t
    }

    fn observe(&mut self, ack: &AckSample) {
        let sample = ca_rtt(ack);
        if ack.round_start {
            self.rtt.start_round();
        }
        if sample > 0 {
            self.rtt.sample(sample);
        }
        let t = match self.rtt_source {
            1 => self.rtt.round_min(),
            2 => self.rtt.base(),
            _ => (ack.srtt > 0).then_some(ack.srtt),
        }
        .unwrap_or(sample);
        self.t = Some(secs(t).max(MIN_T));
    }
}

impl CongestionControl for Libra {
    fn inspect(&self, _now: crate::units::Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("t", self.t().unwrap_or(f64::NAN));
    }
    fn name(&self) -> &'static str {
        "libra"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.observe(ack);
        let alpha = self.alpha(self.t.unwrap_or(MIN_T));
        grow(ack, w, |w, units| additive_increase(w, alpha, units));
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.observe(ack);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        let t = self.t.unwrap_or_else(|| secs(ev.srtt).max(MIN_T));
        reduce_to(ev, w, ev.basis * (1.0 - self.beta(t)));
    }

    fn customary_recovery(&self) -> RecoveryProcedure {
        RecoveryProcedure::Reno
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::super::reno::Reno;
    use super::super::CongestionKind;
    use super::*;
    use crate::units::NS_PER_MS;

    /// An ACK whose smoothed RTT is `ms`.
    fn ack_at(ms: u64, units: f64) -> AckSample {
        let mut a = ack(units);
        a.srtt = ms * NS_PER_MS;
        a
    }

    #[test]
    fn alpha_and_beta_follow_eq_6_7() {
        let l = Libra::default();
        // Calibrated: alpha(0.04) = 1, beta(0.04) = 10.04 / (2 * 10.04) = 1/2.
        assert_eq!(l.alpha(0.04), 1.0);
        assert_eq!(l.beta(0.04), 0.5);
        // 80 ms: (0.08/0.04)^2 * 10.04/10.08 = 4 * 0.996032 = 3.984127; beta = 10.04/20.16.
        assert!((l.alpha(0.08) - 4.0 * 10.04 / 10.08).abs() < 1e-12);
        assert!((l.alpha(0.08) - 3.984127).abs() < 1e-6);
        assert!((l.beta(0.08) - 0.498016).abs() < 1e-6);
        // Oracle: at 100 ms about 6.25 segments per RTT (6.25 * 10.04/10.1 = 6.2129).
        assert!((l.alpha(0.1) - 6.212871).abs() < 1e-6);
        // The literal constants: gamma = 10/0.0016 = 6250, RTT1 = RTT0 = 10 s:
        // alpha(0.04) = 6250 * 0.0016 / 10.04 = 0.996016, beta = 10 / 20.08 = 0.498008.
        let lit = Libra { gamma: Some(6250.0), rtt1: Some(10.0), ..Default::default() };
        assert!((lit.alpha(0.04) - 10.0 / 10.04).abs() < 1e-12);
        assert!((lit.beta(0.04) - 10.0 / 20.08).abs() < 1e-12);
        // alpha/beta = 2 gamma T^2 / RTT1: T^2 times a constant, so throughput is RTT-free (eq. 8).
        let k = |t: f64| lit.alpha(t) / lit.beta(t) / (t * t);
        assert!((k(0.01) - k(0.2)).abs() < 1e-9 * k(0.01));
        assert!((k(0.01) - 2.0 * 6250.0 / 10.0).abs() < 1e-9);
    }

    /// The same ACK / loss / timeout sequence at 40 ms gives Reno's window to floating precision.
    #[test]
    fn at_40_ms_the_trace_is_renos() {
        let mut libra = Libra::default();
        let mut reno = Reno::default();
        let (mut wl, mut wr) = (Window { cwnd: 2.0, ssthresh: 8.0 }, Window { cwnd: 2.0, ssthresh: 8.0 });
        let mut step = |i: usize, wl: &mut Window, wr: &mut Window| {
            if i % 37 == 36 {
                let kind = if i % 111 == 110 { CongestionKind::Timeout } else { CongestionKind::Loss };
                libra.on_congestion(&congestion(kind, wl.cwnd, true), wl);
                reno.on_congestion(&congestion(kind, wr.cwnd, true), wr);
            } else {
                let units = if i.is_multiple_of(3) { 2.0 } else { 1.0 };
                libra.on_ack(&ack_at(40, units), wl);
                reno.on_ack(&ack_at(40, units), wr);
            }
        };
        for i in 0..400 {
            step(i, &mut wl, &mut wr);
            assert!((wl.cwnd - wr.cwnd).abs() < 1e-9 * wr.cwnd, "step {i}: {wl:?} vs {wr:?}");
            assert!((wl.ssthresh - wr.ssthresh).abs() < 1e-9 * wr.ssthresh.max(1.0), "step {i}");
        }
    }

    /// Hand trace at 80 ms: alpha = 3.984127, beta = 0.498016.
    /// cwnd 10 = ssthresh: avoidance, +3.984127/10 -> 10.398413; next ACK +3.984127/10.398413
    /// = 0.383148 -> 10.781561. A loss: ssthresh = 10.781561 * (1 - 0.498016) = 5.41217,
    /// cwnd = ssthresh (Reno's would be 5.39078). A timeout at cwnd 5.41217: ssthresh =
    /// 5.41217 * 0.501984 = 2.71682, cwnd 1; then slow start +1 per ACK.
    #[test]
    fn at_80_ms_the_increase_and_decrease_follow_the_rtt_scaling() {
        let mut cc = Libra::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        cc.on_ack(&ack_at(80, 1.0), &mut w);
        assert!((w.cwnd - 10.398413).abs() < 1e-6, "{w:?}");
        cc.on_ack(&ack_at(80, 1.0), &mut w);
        assert!((w.cwnd - 10.781561).abs() < 1e-6, "{w:?}");
        cc.on_congestion(&congestion(CongestionKind::Loss, w.cwnd, false), &mut w);
        assert!((w.cwnd - 5.41217).abs() < 1e-5 && w.cwnd == w.ssthresh, "{w:?}");
        cc.on_congestion(&congestion(CongestionKind::Timeout, w.cwnd, true), &mut w);
        assert!((w.ssthresh - 2.71682).abs() < 1e-5 && w.cwnd == 1.0, "{w:?}");
        cc.on_ack(&ack_at(80, 1.0), &mut w);
        assert_eq!(w.cwnd, 2.0);
        // Reno gains 1/cwnd per ACK: Libra at 80 ms gains 3.98 times as much per ACK, i.e.
        // 3.98 / 2 = 1.99 times as much rate per second as Reno at 80 ms, and at 40 ms exactly 1.
    }

    /// At 10 ms the increase is 1/16 * 10.04/10.01 = 0.062687 segments per RTT: 16 times slower.
    #[test]
    fn short_rtts_grow_slowly() {
        let mut cc = Libra::default();
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        cc.on_ack(&ack_at(10, 1.0), &mut w);
        assert!((w.cwnd - (20.0 + 0.0626873 / 20.0)).abs() < 1e-8, "{w:?}");
    }

    /// rtt_source 1: the round's smallest congestion-control sample, not srtt (100 ms here).
    /// Samples 80 then 40 ms in one round: T = 40 ms, alpha 1; a new round with 80 ms: alpha 3.98.
    #[test]
    fn round_minimum_as_t() {
        let mut cc = Libra { rtt_source: 1, ..Default::default() };
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        let mut a = ack_at(100, 1.0);
        a.ca_rtt = Some(80 * NS_PER_MS);
        a.round_start = true;
        cc.on_ack(&a, &mut w);
        assert_eq!(cc.t(), Some(0.08));
        a.ca_rtt = Some(40 * NS_PER_MS);
        a.round_start = false;
        let before = w.cwnd;
        cc.on_ack(&a, &mut w);
        assert!((w.cwnd - (before + 1.0 / before)).abs() < 1e-12);
        a.ca_rtt = Some(80 * NS_PER_MS);
        a.round_start = true;
        let before = w.cwnd;
        cc.on_ack(&a, &mut w);
        assert!((w.cwnd - (before + 3.984127 / before)).abs() < 1e-6);
    }
}
