//! Randomized TCP (seed 000 of the studies, docs/studies/randomized-tcp.md; the rules as ccsim
//! reads them in docs/algorithms.md, "randomized"): Paced TCP whose gaps are drawn at random, so
//! that flows sharing a DropTail queue stop losing in phase.
//!
//! * Timing ([`Spacing`]): segment gaps `srtt (1 + x) / cwnd`, x ~ U[-I, I]; when the timer finds
//!   the window closed, the ACK that opens it schedules the send a further `srtt y / cwnd` later,
//!   y ~ U(0, I). I = 0 is Paced TCP, transmission for transmission.
//! * Increase: the random delays stretch the effective RTT (paper section III.A, eq. 7 with the
//!   deferral's mean R I / (2w) added):
//!   `RTTeff = R + (R I / 2) (sqrt(2 / (3 pi w)) + 1 / (2w))`. Throughput goes as
//!   sqrt(alpha) / RTTeff, so alpha = (RTTeff / R)^2 restores Reno's share. R cancels:
//!   alpha = (1 + (I / 2) (sqrt(2 / (3 pi w)) + 1 / (2w)))^2, recomputed from the current cwnd on
//!   every ACK (per ACK `alpha / cwnd` in congestion avoidance; slow start unchanged).
//!   `scale_increase = 0` keeps alpha = 1.
//!
//! Loss: Reno's halving and Reno fast recovery, as the paper ("the congestion control and loss
//! recovery mechanisms of TCP Reno"); `newreno = 1` switches recovery.

use super::common::spacing::Spacing;
use super::common::{additive_increase, grow, multiplicative_decrease};
use super::paced::{recovery_of, NEWRENO_PARAM};
use super::params::{ParamInfo, ParamKind, Params};
use super::{
    AckSample, CongestionControl, CongestionEvent, CongestionKind, PacingContext, RecoveryProcedure, SentSample, Window,
};
use crate::rng::Stream;
use crate::units::Time;

/// The randomization interval I, shared with randomized binomial.
pub const INTERVAL_PARAM: ParamInfo = ParamInfo {
    name: "interval",
    kind: ParamKind::Float,
    default: 1.0,
    min: 0.0,
    max: 1.0,
    doc: "randomization interval I: gaps srtt (1 + x) / cwnd, x ~ U[-I, I] (0 = Paced TCP; the \
          paper finds 1 best)",
};

pub const PARAMS: &[ParamInfo] = &[
    INTERVAL_PARAM,
    NEWRENO_PARAM,
    ParamInfo {
        name: "scale_increase",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "scale the additive increase by alpha = (RTTeff / R)^2 to offset the added delay",
    },
];

/// The increase per RTT that offsets randomization interval `spread` at window `w` (segments):
/// (RTTeff / R)^2 with RTTeff = R + (R I / 2) (sqrt(2 / (3 pi w)) + 1 / (2w)).
pub fn increase_factor(spread: f64, w: f64) -> f64 {
    let w = w.max(1.0);
    let stretch = 1.0 + spread / 2.0 * ((2.0 / (3.0 * std::f64::consts::PI * w)).sqrt() + 1.0 / (2.0 * w));
    stretch * stretch
}

#[derive(Clone, Debug)]
pub struct Randomized {
    spread: f64,
    scale_increase: bool,
    spacing: Spacing,
    recovery: RecoveryProcedure,
}

impl Randomized {
    pub fn new(spread: f64, scale_increase: bool, recovery: RecoveryProcedure, rng: Stream) -> Self {
        Randomized { spread, scale_increase, spacing: Spacing::new(spread, rng), recovery }
    }

    pub fn from_params(p: &Params, rng: Stream) -> Self {
        Randomized::new(p.get("interval"), p.flag("scale_increase"), recovery_of(p), rng)
    }

    fn alpha(&self, cwnd: f64) -> f64 {
        if self.scale_increase {
            increase_factor(self.spread, cwnd)
        } else {
            1.0
        }
    }
}

impl CongestionControl for Randomized {
    fn name(&self) -> &'static str {
        "randomized"
    }
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        let alpha = self.alpha(w.cwnd);
        grow(ack, w, |w, units| additive_increase(w, alpha, units));
    }
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        multiplicative_decrease(ev, w, 0.5);
        if ev.kind == CongestionKind::Timeout {
            self.spacing.restart();
        }
    }
    fn watches_sends(&self) -> bool {
        true
    }
    fn on_sent(&mut self, sent: &SentSample) {
        self.spacing.on_sent(sent.now);
    }
    fn next_send_time(&mut self, ctx: &PacingContext) -> Option<Time> {
        self.spacing.next_send_time(ctx)
    }
    fn on_send_blocked(&mut self, _now: Time) {
        self.spacing.on_send_blocked();
    }
    fn customary_recovery(&self) -> RecoveryProcedure {
        self.recovery
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::ack;
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    fn rng() -> Stream {
        stream(3, Entity::Flow, 0, Purpose::Congestion)
    }

    #[test]
    fn alpha_matches_hand_computed_values() {
        // I = 1, w = 10: sqrt(2 / (30 pi)) = 0.1456731, + 1/20 = 0.1956731, / 2 = 0.0978366;
        // 1.0978366^2 = 1.2052451.
        assert!((increase_factor(1.0, 10.0) - 1.205_245_1).abs() < 1e-6);
        // I = 0.5, w = 4: sqrt(2 / (12 pi)) = 0.2303294, + 1/8 = 0.3553294, / 4 = 0.0888324;
        // 1.0888324^2 = 1.1855559.
        assert!((increase_factor(0.5, 4.0) - 1.185_555_9).abs() < 1e-6);
        // I = 1, w = 100: sqrt(2 / (300 pi)) = 0.0460659, + 1/200 = 0.0510659, / 2 = 0.0255329;
        // 1.0255329^2 = 1.0517178.
        assert!((increase_factor(1.0, 100.0) - 1.051_717_8).abs() < 1e-6);
        assert_eq!(increase_factor(0.0, 7.0), 1.0);
    }

    #[test]
    fn avoidance_adds_alpha_over_cwnd_per_ack_and_slow_start_is_unchanged() {
        let mut cc = Randomized::new(1.0, true, RecoveryProcedure::Reno, rng());
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert!((w.cwnd - (10.0 + 1.205_245_1 / 10.0)).abs() < 1e-6);
        let mut w = Window { cwnd: 4.0, ssthresh: 8.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(w.cwnd, 5.0);
        // Scaling off, or I = 0: Reno's 1/cwnd.
        for mut cc in [
            Randomized::new(1.0, false, RecoveryProcedure::Reno, rng()),
            Randomized::new(0.0, true, RecoveryProcedure::Reno, rng()),
        ] {
            let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
            cc.on_ack(&ack(1.0), &mut w);
            assert_eq!(w.cwnd, 10.1);
        }
    }

    #[test]
    fn loss_halves_as_reno() {
        use super::super::common::testing::congestion;
        let mut cc = Randomized::new(1.0, true, RecoveryProcedure::Reno, rng());
        let mut w = Window { cwnd: 20.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 20.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 10.0, ssthresh: 10.0 });
        assert_eq!(cc.customary_recovery(), RecoveryProcedure::Reno);
    }
}
