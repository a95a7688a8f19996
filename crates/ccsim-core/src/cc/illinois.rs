//! TCP-Illinois (S. Liu, T. Basar, R. Srikant, "TCP-Illinois: A Loss and Delay-Based Congestion
//! Control Algorithm for High-Speed Networks", VALUETOOLS 2006 / Performance Evaluation 65(6-7),
//! 2008; Linux `net/ipv4/tcp_illinois.c`).
//!
//! AIMD whose amounts depend on queueing delay: once per round, from the round's average delay
//! above the minimum RTT (da) and the largest queueing delay seen (dm), the increase alpha falls
//! from 10 segments per RTT (no queue) to 0.3 (queue at its maximum) and the decrease beta rises
//! from 1/8 to 1/2. Loss still decides when to decrease; delay only sets how much.
//!
//! alpha(da) = alpha_max while da <= d1 = dm/100, then k1 / (k2 + da), the curve through
//! (d1, alpha_max) and (dm, alpha_min); beta(da) = beta_min up to d2 = dm/10, beta_max from
//! d3 = 8 dm/10, linear between (paper eq. 5-6; Linux `alpha()`, `beta()`).
//!
//! Choices where sources differ (Linux followed):
//! * Below `win_thresh` = 15 segments it is Reno (paper: 10).
//! * After delay has been high, alpha returns to alpha_max only after `theta` = 5 consecutive
//!   low-delay rounds.
//! * dm uses the largest RTT ever seen and the smallest (never aged), recovery samples included.
//! * The round's samples keep accumulating through fast recovery (Linux's `pkts_acked` hook sees
//!   ACKs in every state and only the round update or a timeout clears the sum); a round that
//!   ended during recovery is evaluated on the first ACK after it.
//! * A timeout computes ssthresh with the current beta, then resets alpha to 1 and beta to 1/2
//!   until the next round's update (Linux resets on entering Loss).
//! * Linux works in fixed point (alpha in 1/128, beta in 1/64, microseconds) and clamps samples
//!   at 3.3 s against overflow; ccsim uses real numbers.

use super::common::delay::{DelaySample, RoundRtt};
use super::common::{grow, reduce_to};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "alpha_min",
        kind: ParamKind::Float,
        default: 0.3,
        min: 1e-3,
        max: 1e3,
        doc: "increase per RTT with the queue at its maximum, segments (paper, Linux 0.3)",
    },
    ParamInfo {
        name: "alpha_max",
        kind: ParamKind::Float,
        default: 10.0,
        min: 1e-3,
        max: 1e3,
        doc: "increase per RTT with no queueing delay, segments (paper, Linux 10)",
    },
    ParamInfo {
        name: "beta_min",
        kind: ParamKind::Float,
        default: 0.125,
        min: 0.0,
        max: 0.99,
        doc: "fraction of the window removed on a loss with little queueing delay (1/8)",
    },
    ParamInfo {
        name: "beta_max",
        kind: ParamKind::Float,
        default: 0.5,
        min: 0.0,
        max: 0.99,
        doc: "fraction removed with the queue near its maximum (1/2)",
    },
    ParamInfo {
        name: "win_thresh",
        kind: ParamKind::Float,
        default: 15.0,
        min: 0.0,
        max: 1e9,
        doc: "below this window Illinois is Reno (Linux 15, paper 10)",
    },
    ParamInfo {
        name: "theta",
        kind: ParamKind::Int,
        default: 5.0,
        min: 0.0,
        max: 1e6,
        doc: "low-delay rounds needed before alpha returns to alpha_max (Linux 5)",
    },
];

/// The delay thresholds as fractions of dm (paper eta_1..eta_3; Linux dm/100, dm/10, 8dm/10).
const D1: f64 = 0.01;
const D2: f64 = 0.1;
const D3: f64 = 0.8;
/// Reno's amounts, used for small windows and after a timeout.
const RENO_ALPHA: f64 = 1.0;
const RENO_BETA: f64 = 0.5;

#[derive(Clone, Debug)]
pub struct Illinois {
    alpha_min: f64,
    alpha_max: f64,
    beta_min: f64,
    beta_max: f64,
    win_thresh: f64,
    theta: u32,
    /// This round's samples. Illinois's own round, not the sender's summary: a round that ends
    /// in recovery keeps its samples until the first ACK after recovery evaluates it, and a
    /// timeout clears it (Linux `end_seq`, `tcp_illinois_state`). The extremes dm is computed
    /// from are the sender's shared base and maximum RTT ([`AckSample::delay`]).
    round: RoundRtt,
    alpha: f64,
    beta: f64,
    /// Delay went above d1 since alpha was last at its maximum.
    rtt_above: bool,
    /// Consecutive low-delay rounds since then.
    rtt_low: u32,
    /// A round ended during recovery; evaluate it on the next ACK outside recovery.
    round_due: bool,
}

impl Default for Illinois {
    fn default() -> Self {
        Illinois {
            alpha_min: 0.3,
            alpha_max: 10.0,
            beta_min: 0.125,
            beta_max: 0.5,
            win_thresh: 15.0,
            theta: 5,
            round: RoundRtt::default(),
            alpha: 10.0,
            beta: RENO_BETA,
            rtt_above: false,
            rtt_low: 0,
            round_due: false,
        }
    }
}

impl Illinois {
    pub fn from_params(p: &Params) -> Self {
        let alpha_max = p.get("alpha_max");
        Illinois {
            alpha_min: p.get("alpha_min"),
            alpha_max,
            beta_min: p.get("beta_min"),
            beta_max: p.get("beta_max"),
            win_thresh: p.get("win_thresh"),
            theta: p.get("theta") as u32,
            alpha: alpha_max,
            ..Default::default()
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// Once per round: new alpha and beta from the round's delays (Linux `update_params`).
    fn end_of_round(&mut self, delay: &DelaySample, cwnd: f64) {
        if cwnd < self.win_thresh {
            self.alpha = RENO_ALPHA;
            self.beta = RENO_BETA;
        } else if let Some(mean) = self.round.mean() {
            let base = delay.base as f64;
            let dm = delay.max as f64 - base;
            let da = mean - base;
            self.alpha = self.alpha_for(da, dm);
            self.beta = self.beta_for(da, dm);
        }
        self.round = RoundRtt::default();
    }

    fn alpha_for(&mut self, da: f64, dm: f64) -> f64 {
        let d1 = D1 * dm;
        if da <= d1 {
            if !self.rtt_above {
                return self.alpha_max;
            }
            // Back at low delay: wait theta rounds before going to full speed.
            self.rtt_low += 1;
            if self.rtt_low < self.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return self.alpha_max;
        }
        self.rtt_above = true;
        let (dm, da) = (dm - d1, da - d1);
        self.alpha_max * dm / (dm + da * (self.alpha_max - self.alpha_min) / self.alpha_min)
    }

    fn beta_for(&self, da: f64, dm: f64) -> f64 {
        let (d2, d3) = (D2 * dm, D3 * dm);
        if da <= d2 {
            self.beta_min
        } else if da >= d3 || d3 <= d2 {
            self.beta_max
        } else {
            (self.beta_min * d3 - self.beta_max * d2 + (self.beta_max - self.beta_min) * da) / (d3 - d2)
        }
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.round.sample(ack.delay.latest);
        if ack.round_start || self.round_due {
            self.round_due = false;
            self.end_of_round(&ack.delay, w.cwnd);
        }
        let alpha = self.alpha;
        grow(ack, w, |w, units| w.cwnd += alpha * units / w.cwnd);
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.round.sample(ack.delay.latest);
        self.round_due |= ack.round_start;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        reduce_to(ev, w, ev.basis * (1.0 - self.beta));
        if ev.kind == CongestionKind::Timeout {
            self.alpha = RENO_ALPHA;
            self.beta = RENO_BETA;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.round_due = false;
            self.round = RoundRtt::default();
        }
    }

    /// `alpha`: the increase, segments per RTT; `beta`: the fraction of the window a loss takes
    /// off (cwnd becomes (1 - beta) cwnd).
    fn inspect(&self, _now: crate::units::Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.alpha);
        out("beta", self.beta);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{congestion, Feed};
    use super::*;

    /// Base 100 ms, maximum 200 ms (dm = 100 ms: d1 = 1, d2 = 10, d3 = 80 ms).
    fn seen_100_to_200() -> (Illinois, Feed) {
        let mut f = Feed::default();
        f.ack_rtt(100, false);
        f.ack_rtt(200, true);
        (Illinois::default(), f)
    }

    /// Round mean 130 ms: da = 30 ms. alpha = 10 * 99 / (99 + 29 * 9.7 / 0.3) = 990 / 1036.667
    /// = 0.954984; beta = (0.125 * 80 - 0.5 * 10 + 0.375 * 30) / 70 = 16.25 / 70 = 0.232143.
    /// Avoidance at cwnd 100: +0.954984/100 per ACK; a loss keeps 1 - 0.232143 of the window.
    #[test]
    fn alpha_and_beta_follow_the_average_queueing_delay() {
        let (mut cc, mut f) = seen_100_to_200();
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        cc.on_ack(&f.ack_rtt(120, false), &mut w);
        cc.on_ack(&f.ack_rtt(140, false), &mut w);
        // Before the round ends alpha is still the initial alpha_max: 100 + 0.1 + 10/100.1.
        assert!((w.cwnd - (100.1 + 10.0 / 100.1)).abs() < 1e-9);
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        cc.on_ack(&f.ack_rtt(130, true), &mut w);
        assert!((cc.alpha() - 990.0 / (99.0 + 29.0 * 9.7 / 0.3)).abs() < 1e-9, "{}", cc.alpha());
        assert!((cc.alpha() - 0.954984).abs() < 1e-6);
        assert!((cc.beta() - 16.25 / 70.0).abs() < 1e-12);
        assert!((w.cwnd - (100.0 + cc.alpha() / 100.0)).abs() < 1e-12);
        let basis = w.cwnd;
        cc.on_congestion(&congestion(CongestionKind::Loss, basis, false), &mut w);
        assert!((w.cwnd - basis * (1.0 - 16.25 / 70.0)).abs() < 1e-9);
    }

    /// The extremes: a round at the base RTT (da = 0 <= d1) and no delay seen before: alpha 10,
    /// beta 1/8. A round at 190 ms (da = 90 >= d3 = 80): beta 1/2 and alpha = 10 * 99 / (99 + 89
    /// * 9.7 / 0.3) = 0.3324. Back at low delay, alpha stays until the 5th low round.
    #[test]
    fn low_delay_means_fast_growth_and_small_cuts_after_theta_rounds() {
        let (mut cc, mut f) = seen_100_to_200();
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        cc.on_ack(&f.ack_rtt(100, true), &mut w);
        assert_eq!((cc.alpha(), cc.beta()), (10.0, 0.125));
        cc.on_ack(&f.ack_rtt(190, true), &mut w);
        assert_eq!(cc.beta(), 0.5);
        assert!((cc.alpha() - 990.0 / (99.0 + 89.0 * 9.7 / 0.3)).abs() < 1e-9);
        let slow = cc.alpha();
        for round in 1..=5 {
            cc.on_ack(&f.ack_rtt(100, true), &mut w);
            let expect = if round < 5 { slow } else { 10.0 };
            assert_eq!(cc.alpha(), expect, "low round {round}");
        }
    }

    /// Below win_thresh it is Reno; a timeout cuts with the current beta, then resets to Reno's.
    #[test]
    fn small_windows_are_reno_and_timeouts_reset() {
        let (mut cc, mut f) = seen_100_to_200();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        cc.on_ack(&f.ack_rtt(100, true), &mut w);
        assert_eq!((cc.alpha(), cc.beta()), (1.0, 0.5));
        assert!((w.cwnd - 10.1).abs() < 1e-12);
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        cc.on_ack(&f.ack_rtt(100, true), &mut w);
        assert_eq!(cc.beta(), 0.125);
        cc.on_congestion(&congestion(CongestionKind::Timeout, 100.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 87.5 });
        assert_eq!((cc.alpha(), cc.beta()), (1.0, 0.5));
    }

    /// Linux feeds every ACK's RTT to `tcp_illinois_acked` in every state and clears the round's
    /// sum only in `update_params` (or on a timeout), so a round that spans a fast recovery keeps
    /// the samples taken during it; the round that ended during recovery is evaluated on the
    /// first ACK after it (`after(ack, end_seq)`). Samples 120 (before the loss), 160 and 160
    /// (in recovery, the second ending the round), 130 (first ACK after recovery): mean 142.5 ms,
    /// da = 42.5 ms. alpha = 10 * 99 / (99 + 41.5 * 9.7 / 0.3) = 990 / 1440.833 = 0.687102;
    /// beta = (0.125 * 80 - 0.5 * 10 + 0.375 * 42.5) / 70 = 20.9375 / 70 = 0.299107.
    #[test]
    fn a_round_keeps_its_rtt_samples_through_recovery() {
        let (mut cc, mut f) = seen_100_to_200();
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        cc.on_ack(&f.ack_rtt(120, false), &mut w);
        let basis = w.cwnd;
        cc.on_congestion(&congestion(CongestionKind::Loss, basis, false), &mut w);
        cc.on_ack_in_recovery(&f.ack_rtt(160, false));
        cc.on_ack_in_recovery(&f.ack_rtt(160, true));
        cc.on_recovery_exit(0, &mut w);
        cc.on_ack(&f.ack_rtt(130, false), &mut w);
        assert!((cc.alpha() - 990.0 / (99.0 + 41.5 * 9.7 / 0.3)).abs() < 1e-9, "{}", cc.alpha());
        assert!((cc.alpha() - 0.687102).abs() < 1e-6);
        assert!((cc.beta() - 20.9375 / 70.0).abs() < 1e-12, "{}", cc.beta());
        // The next round starts empty: its first ACK (110 ms) alone does not end it.
        cc.on_ack(&f.ack_rtt(110, false), &mut w);
        assert!((cc.beta() - 20.9375 / 70.0).abs() < 1e-12);
    }
}
