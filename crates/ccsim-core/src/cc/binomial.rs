//! Binomial congestion control (Bansal, Balakrishnan, "Binomial Congestion Control Algorithms",
//! INFOCOM 2001; docs/algorithms.md, "binomial"): per RTT without loss
//! `w += a / w^k`, on a loss `w -= b w^l`. Reno is (k, l, a, b) = (0, 1, 1, 0.5); k + l = 1
//! makes a scheme TCP-compatible. Two named instances are registered as presets:
//!
//! * `iiad` (inverse increase, additive decrease): k = 1, l = 0;
//! * `sqrt`: k = l = 0.5;
//!
//! both with a = 1, b = 0.67: the values of ns-2's `tcl/test/test-suite-aimd.tcl`
//! (`decrease_num_ 0.33`, i.e. b = 1 - 0.33), whose a / b = 1.49 meets the TCP-compatibility
//! condition a / b = 3/2 (the paper's own a, b are not stated).
//!
//! * Slow start and timeouts are TCP's: `cwnd += 1` per ACK below ssthresh; an
//!   RTO sets ssthresh = window / 2 and cwnd = 1. The binomial laws apply in congestion
//!   avoidance only.
//! * Per ACK in avoidance: `cwnd += a / cwnd^(k+1)` (ns-2 `opencwnd` case 6), per unit
//!   of increase.
//! * On a loss: `ssthresh = cwnd = max(window - b window^l, 2)`, window the stack's
//!   reduction basis. ns-2's `slowdown()` instead halves ssthresh on the connection's first
//!   decrease, in slow start, or after a timeout, and halves cwnd on the first decrease or in slow
//!   start; `ns2_halving = 1` reproduces that. Default off: the paper's law, not ns-2's extra halvings.
//!   ns-2's integer truncation (no `precisionReduce_`) is not modelled.
//! * `randomize = 1` sends with Randomized TCP's timing (interval `interval`, see
//!   [`super::randomized`]), as the seed paper's randomized binomial schemes. The increase is
//!   not rescaled: the paper derives alpha for Reno's law only.
//! * Reno loss recovery, as the paper's ns-2 agents; `newreno = 1` switches.

use super::common::spacing::Spacing;
use super::common::{grow, in_slow_start, reduce_to, MIN_SSTHRESH};
use super::paced::{recovery_of, NEWRENO_PARAM};
use super::params::{ParamInfo, ParamKind, Params};
use super::randomized::INTERVAL_PARAM;
use super::{
    AckSample, CongestionControl, CongestionEvent, CongestionKind, PacingContext, RecoveryProcedure, SentSample, Window,
};
use crate::rng::Stream;
use crate::units::Time;

/// The window laws: per RTT `w += a / w^k`, per loss `w -= b w^l`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Law {
    pub k: f64,
    pub l: f64,
    pub a: f64,
    pub b: f64,
}

/// IIAD with ns-2's test-suite constants.
pub const IIAD: Law = Law { k: 1.0, l: 0.0, a: 1.0, b: 0.67 };
/// SQRT with ns-2's test-suite constants.
pub const SQRT: Law = Law { k: 0.5, l: 0.5, a: 1.0, b: 0.67 };

const fn switch(name: &'static str, doc: &'static str) -> ParamInfo {
    ParamInfo { name, kind: ParamKind::Bool, default: 0.0, min: 0.0, max: 1.0, doc }
}

const RANDOMIZE: ParamInfo =
    switch("randomize", "send with Randomized TCP's timing (gaps srtt (1 + x) / cwnd, x ~ U[-I, I])");
const NS2_HALVING: ParamInfo = switch(
    "ns2_halving",
    "ns-2 slowdown(): halve instead on the first decrease, in slow start, or (ssthresh) after a timeout",
);

/// Parameters of the named presets (`iiad`, `sqrt`).
pub const PRESET_PARAMS: &[ParamInfo] = &[RANDOMIZE, INTERVAL_PARAM, NEWRENO_PARAM, NS2_HALVING];

const fn float(name: &'static str, default: f64, min: f64, max: f64, doc: &'static str) -> ParamInfo {
    ParamInfo { name, kind: ParamKind::Float, default, min, max, doc }
}

/// Parameters of the general `binomial` entry; defaults are Reno's (ns-2's defaults).
pub const PARAMS: &[ParamInfo] = &[
    float("k", 0.0, 0.0, 2.0, "increase exponent: w += a / w^k per RTT"),
    float("l", 1.0, 0.0, 1.0, "decrease exponent: w -= b w^l per loss"),
    float("a", 1.0, 1e-3, 100.0, "increase constant a"),
    float("b", 0.5, 1e-3, 0.99, "decrease constant b"),
    RANDOMIZE,
    INTERVAL_PARAM,
    NEWRENO_PARAM,
    NS2_HALVING,
];

#[derive(Clone, Debug)]
pub struct Binomial {
    name: &'static str,
    law: Law,
    ns2_halving: bool,
    /// For `ns2_halving`: whether the connection has decreased before, and whether the last
    /// window action was a timeout.
    decreased: bool,
    after_timeout: bool,
    spacing: Option<Spacing>,
    recovery: RecoveryProcedure,
}

impl Binomial {
    pub fn new(name: &'static str, law: Law, recovery: RecoveryProcedure) -> Self {
        Binomial { name, law, ns2_halving: false, decreased: false, after_timeout: false, spacing: None, recovery }
    }

    /// `law` = `None` reads k, l, a, b from the parameters (the general entry).
    pub fn from_params(name: &'static str, law: Option<Law>, p: &Params, rng: Stream) -> Self {
        let law = law.unwrap_or_else(|| Law { k: p.get("k"), l: p.get("l"), a: p.get("a"), b: p.get("b") });
        let mut cc = Binomial::new(name, law, recovery_of(p));
        cc.ns2_halving = p.flag("ns2_halving");
        if p.flag("randomize") {
            cc.spacing = Some(Spacing::new(p.get("interval"), rng));
        }
        cc
    }

    /// The window after a loss at `window`: window - b window^l.
    pub fn decreased_window(&self, window: f64) -> f64 {
        window - self.law.b * crate::math::powf(window, self.law.l)
    }

    fn on_loss(&mut self, ev: &CongestionEvent, w: &mut Window) {
        let window = ev.basis;
        let binomial = self.decreased_window(window);
        if !self.ns2_halving {
            reduce_to(ev, w, binomial);
            return;
        }
        // ns-2 `slowdown()`: halve on the first decrease or in slow start (both values), and
        // ssthresh also right after a timeout.
        let first_or_ss = !self.decreased || in_slow_start(w);
        let ssthresh = if first_or_ss || self.after_timeout { window / 2.0 } else { binomial };
        let cwnd = if first_or_ss { window / 2.0 } else { binomial };
        w.ssthresh = ssthresh.max(MIN_SSTHRESH);
        w.cwnd = cwnd.max(MIN_SSTHRESH);
    }
}

impl CongestionControl for Binomial {
    fn name(&self) -> &'static str {
        self.name
    }
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        let Law { k, a, .. } = self.law;
        grow(ack, w, |w, units| w.cwnd += a * units / crate::math::powf(w.cwnd, k + 1.0));
    }
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        if ev.kind == CongestionKind::Timeout {
            // TCP's timeout: ssthresh = window / 2 on the first expiry, cwnd = 1.
            reduce_to(ev, w, ev.basis / 2.0);
            self.after_timeout = true;
            if let Some(s) = &mut self.spacing {
                s.restart();
            }
        } else {
            self.on_loss(ev, w);
            self.after_timeout = false;
        }
        self.decreased = true;
    }
    fn watches_sends(&self) -> bool {
        self.spacing.is_some()
    }
    fn on_sent(&mut self, sent: &SentSample) {
        if let Some(s) = &mut self.spacing {
            s.on_sent(sent.now);
        }
    }
    fn next_send_time(&mut self, ctx: &PacingContext) -> Option<Time> {
        self.spacing.as_mut()?.next_send_time(ctx)
    }
    fn on_send_blocked(&mut self, _now: Time) {
        if let Some(s) = &mut self.spacing {
            s.on_send_blocked();
        }
    }
    fn customary_recovery(&self) -> RecoveryProcedure {
        self.recovery
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::*;

    fn close(x: f64, y: f64) -> bool {
        (x - y).abs() < 1e-9
    }

    #[test]
    fn iiad_increase_is_a_over_w_squared_per_ack() {
        let mut cc = Binomial::new("iiad", IIAD, RecoveryProcedure::Reno);
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert!(close(w.cwnd, 10.01)); // 1 / 10^2
        cc.on_ack(&ack(1.0), &mut w);
        assert!(close(w.cwnd, 10.01 + 1.0 / (10.01 * 10.01))); // 10.019980...
                                                               // Per RTT (10 ACKs at w about 10): about 1 / w = 0.1 segment (10.0991131 summed by hand).
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        for _ in 0..10 {
            cc.on_ack(&ack(1.0), &mut w);
        }
        assert!((w.cwnd - 10.099_113_1).abs() < 1e-6, "{}", w.cwnd);
    }

    #[test]
    fn sqrt_increase_is_a_over_w_to_the_three_halves_per_ack() {
        let mut cc = Binomial::new("sqrt", SQRT, RecoveryProcedure::Reno);
        let mut w = Window { cwnd: 16.0, ssthresh: 16.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert!(close(w.cwnd, 16.015625)); // 1 / 16^1.5 = 1/64
        let mut w = Window { cwnd: 4.0, ssthresh: 4.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert!(close(w.cwnd, 4.125)); // 1 / 8
    }

    #[test]
    fn iiad_decrease_removes_b_segments_and_sqrt_b_sqrt_w() {
        let mut cc = Binomial::new("iiad", IIAD, RecoveryProcedure::Reno);
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 20.0, false), &mut w);
        assert!(close(w.cwnd, 19.33) && close(w.ssthresh, 19.33));
        cc.on_congestion(&congestion(CongestionKind::Loss, 19.33, false), &mut w);
        assert!(close(w.cwnd, 18.66));
        // Floored at 2 segments.
        cc.on_congestion(&congestion(CongestionKind::Loss, 2.5, false), &mut w);
        assert_eq!(w.cwnd, 2.0);

        let mut cc = Binomial::new("sqrt", SQRT, RecoveryProcedure::Reno);
        let mut w = Window { cwnd: 25.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 25.0, false), &mut w);
        assert!(close(w.cwnd, 25.0 - 0.67 * 5.0)); // 21.65
        cc.on_congestion(&congestion(CongestionKind::Loss, 16.0, false), &mut w);
        assert!(close(w.cwnd, 16.0 - 0.67 * 4.0)); // 13.32
    }

    #[test]
    fn timeout_halves_ssthresh_and_restarts_at_one() {
        let mut cc = Binomial::new("iiad", IIAD, RecoveryProcedure::Reno);
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Timeout, 20.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 10.0 });
    }

    #[test]
    fn ns2_halving_halves_the_first_decrease_and_in_slow_start_only() {
        let mut cc = Binomial::new("iiad", IIAD, RecoveryProcedure::Reno);
        cc.ns2_halving = true;
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 20.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 10.0, ssthresh: 10.0 });
        cc.on_congestion(&congestion(CongestionKind::Loss, 10.0, false), &mut w);
        assert!(close(w.cwnd, 9.33) && close(w.ssthresh, 9.33));
        // In slow start (cwnd < ssthresh): halved again.
        let mut w = Window { cwnd: 8.0, ssthresh: 9.33 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 8.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 4.0, ssthresh: 4.0 });
        // Right after a timeout, ssthresh is halved but cwnd follows the law.
        let mut w = Window { cwnd: 12.0, ssthresh: 12.0 };
        cc.on_congestion(&congestion(CongestionKind::Timeout, 12.0, true), &mut w);
        w.cwnd = 12.0;
        cc.on_congestion(&congestion(CongestionKind::Loss, 12.0, false), &mut w);
        assert!(close(w.ssthresh, 6.0) && close(w.cwnd, 11.33), "{w:?}");
    }

    #[test]
    fn reno_parameters_reproduce_reno() {
        let mut cc = Binomial::new("binomial", Law { k: 0.0, l: 1.0, a: 1.0, b: 0.5 }, RecoveryProcedure::Reno);
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert!(close(w.cwnd, 10.1));
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 20.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 10.0, ssthresh: 10.0 });
    }
}
