//! YeAH-TCP (A. Baiocchi, A. P. Castellani, F. Vacirca, "YeAH-TCP: Yet Another Highspeed TCP",
//! PFLDnet 2007; Linux `net/ipv4/tcp_yeah.c`).
//!
//! Two modes, chosen once per round from a Vegas-style estimate of this flow's queued packets
//! Q = cwnd (RTT - base) / RTT (round minimum RTT against the base RTT):
//! * fast mode (Q <= q_max and queueing delay <= base / phy): Scalable TCP's increase, one
//!   segment per min(cwnd, 100) acknowledged;
//! * slow mode otherwise: Reno's increase; and when Q > q_max, "precautionary decongestion"
//!   removes Q segments at once (at most half the window), never going below reno_count, an
//!   estimate of what a competing Reno flow would have.
//!
//! On a loss, unless it has been in slow mode for `rho` rounds (a sign of Reno competition), it
//! removes only its queue Q, between 1/8 and 1/2 of the window; otherwise it halves as Reno.
//!
//! Linux's constants are the defaults (ns-3 has the same). Linux integer arithmetic is mirrored
//! where it decides a branch: Q and the window halvings are truncated. RTT samples: the sender's
//! per-ACK sample ([`AckSample::delay`]), plus 1 us (YeAH uses Vegas's sample hook); the base RTT
//! is the sender's shared one. The round minimum is YeAH's own, because its round also restarts
//! when recovery ends and at a timeout (Linux re-enables Vegas on entering Open and on `TCP_CA_Loss`),
//! which the sender's rounds do not. A loss episode
//! halves reno_count once; a timeout only on its first expiry, where Linux computes ssthresh.

use super::common::delay::RoundRtt;
use super::common::{grow, increase_per, reduce_to};
use super::params::{ParamInfo, ParamKind, Params};
use super::vegas::RTT_OFFSET;
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::units::Time;

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "q_max",
        kind: ParamKind::Float,
        default: 80.0,
        min: 0.0,
        max: 1e9,
        doc: "largest queue the flow keeps before decongesting, packets (Linux TCP_YEAH_ALPHA 80)",
    },
    ParamInfo {
        name: "phy",
        kind: ParamKind::Float,
        default: 8.0,
        min: 1.0,
        max: 1e6,
        doc: "slow mode when queueing delay exceeds base RTT / phy (Linux TCP_YEAH_PHY 8)",
    },
    ParamInfo {
        name: "gamma",
        kind: ParamKind::Float,
        default: 1.0,
        min: 1.0,
        max: 1e6,
        doc: "decongestion removes Q / gamma packets (Linux TCP_YEAH_GAMMA 1)",
    },
    ParamInfo {
        name: "delta",
        kind: ParamKind::Int,
        default: 3.0,
        min: 0.0,
        max: 30.0,
        doc: "a loss removes at least cwnd / 2^delta (Linux TCP_YEAH_DELTA 3: 1/8)",
    },
    ParamInfo {
        name: "epsilon",
        kind: ParamKind::Int,
        default: 1.0,
        min: 0.0,
        max: 30.0,
        doc: "decongestion removes at most cwnd / 2^epsilon (Linux TCP_YEAH_EPSILON 1: 1/2)",
    },
    ParamInfo {
        name: "rho",
        kind: ParamKind::Int,
        default: 16.0,
        min: 0.0,
        max: 1e9,
        doc: "slow-mode rounds after which a loss is treated as Reno competition (Linux TCP_YEAH_RHO 16)",
    },
    ParamInfo {
        name: "zeta",
        kind: ParamKind::Int,
        default: 50.0,
        min: 0.0,
        max: 1e9,
        doc: "fast-mode rounds after which the Reno estimate is reset (Linux TCP_YEAH_ZETA 50)",
    },
];

/// Scalable TCP's increase in fast mode: one segment per min(cwnd, 100) (Linux
/// TCP_SCALABLE_AI_CNT).
const SCALABLE_AI_CNT: f64 = 100.0;
/// Below this many RTT samples a round is not evaluated (Linux, as Vegas).
const MIN_SAMPLES: u32 = 3;
/// Floor of the Reno estimate and of the window, segments.
const MIN_WINDOW: f64 = 2.0;

#[derive(Clone, Debug)]
pub struct Yeah {
    q_max: f64,
    phy: f64,
    gamma: f64,
    delta: i32,
    epsilon: i32,
    rho: u32,
    zeta: u32,
    /// This round\'s samples (+1 us each); restarted at round starts outside recovery, at recovery
    /// exit and at timeouts (so not the sender\'s round summary).
    round: RoundRtt,
    /// Consecutive slow-mode rounds; 0 in fast mode.
    slow_rounds: u32,
    fast_rounds: u32,
    /// Emulated window of a competing Reno flow.
    reno_count: f64,
    /// Queue estimated at the last round end.
    last_q: f64,
}

impl Default for Yeah {
    fn default() -> Self {
        Yeah {
            q_max: 80.0,
            phy: 8.0,
            gamma: 1.0,
            delta: 3,
            epsilon: 1,
            rho: 16,
            zeta: 50,
            round: RoundRtt::default(),
            slow_rounds: 0,
            fast_rounds: 0,
            reno_count: MIN_WINDOW,
            last_q: 0.0,
        }
    }
}

impl Yeah {
    pub fn from_params(p: &Params) -> Self {
        Yeah {
            q_max: p.get("q_max"),
            phy: p.get("phy"),
            gamma: p.get("gamma"),
            delta: p.get("delta") as i32,
            epsilon: p.get("epsilon") as i32,
            rho: p.get("rho") as u32,
            zeta: p.get("zeta") as u32,
            ..Default::default()
        }
    }

    pub fn in_fast_mode(&self) -> bool {
        self.slow_rounds == 0
    }

    pub fn reno_count(&self) -> f64 {
        self.reno_count
    }

    /// The once-per-round mode decision (and decongestion), on the ACK that starts a new round.
    fn end_of_round(&mut self, ack: &AckSample, w: &mut Window) {
        if self.round.count < MIN_SAMPLES {
            return;
        }
        let (rtt, base) = (self.round.min, ack.delay.base + RTT_OFFSET);
        let queueing = (rtt - base) as f64;
        let q = (w.cwnd * queueing / rtt as f64).floor();
        if q > self.q_max || queueing > base as f64 / self.phy {
            if q > self.q_max && w.cwnd > self.reno_count {
                let removed = (q / self.gamma).floor().min(shift(w.cwnd, self.epsilon));
                w.cwnd = (w.cwnd - removed).max(self.reno_count);
                w.ssthresh = w.cwnd;
            }
            // Emulate Reno: start at half the window, then one segment per round.
            self.reno_count =
                if self.reno_count <= MIN_WINDOW { shift(w.cwnd, 1).max(MIN_WINDOW) } else { self.reno_count + 1.0 };
            self.slow_rounds += 1;
        } else {
            self.fast_rounds += 1;
            if self.fast_rounds > self.zeta {
                self.reno_count = MIN_WINDOW;
                self.fast_rounds = 0;
            }
            self.slow_rounds = 0;
        }
        self.last_q = q;
    }

    /// Segments to remove on a loss from a window of `cwnd` (Linux `tcp_yeah_ssthresh`).
    fn loss_reduction(&self, cwnd: f64) -> f64 {
        let half = shift(cwnd, 1).max(MIN_WINDOW);
        if self.slow_rounds < self.rho {
            self.last_q.min(half).max(shift(cwnd, self.delta))
        } else {
            half
        }
    }
}

/// `floor(x / 2^k)`: Linux's `x >> k` on an integer window.
fn shift(x: f64, k: i32) -> f64 {
    (x / 2f64.powi(k)).floor()
}

impl CongestionControl for Yeah {
    fn name(&self) -> &'static str {
        "yeah"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.round.sample(ack.delay.latest + RTT_OFFSET);
        let fast = self.in_fast_mode();
        grow(ack, w, |w, units| {
            let per = if fast { w.cwnd.min(SCALABLE_AI_CNT) } else { w.cwnd };
            increase_per(w, per, units);
        });
        if ack.round_start {
            self.end_of_round(ack, w);
            self.round = RoundRtt::default();
        }
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.round.sample(ack.delay.latest + RTT_OFFSET);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        let reduction = self.loss_reduction(ev.basis);
        if ev.kind != CongestionKind::Timeout || ev.first_timeout {
            // Linux `tcp_yeah_ssthresh` runs once per loss episode and, for timeouts, only on the
            // first expiry (`tcp_enter_loss`).
            self.fast_rounds = 0;
            self.reno_count = shift(self.reno_count, 1).max(MIN_WINDOW);
        }
        reduce_to(ev, w, ev.basis - reduction);
        if ev.kind == CongestionKind::Timeout {
            self.round = RoundRtt::default();
        }
    }

    fn on_recovery_exit(&mut self, _now: Time, _w: &mut Window) {
        self.round = RoundRtt::default();
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{congestion, Feed};
    use super::*;

    /// A YeAH whose sender has seen a 100 ms base RTT, starting a fresh round.
    fn with_base_100ms() -> (Yeah, Feed) {
        let mut f = Feed::default();
        f.ack_rtt(100, true);
        (Yeah::default(), f)
    }

    /// Fast mode is Scalable: at cwnd 400, +1/100 per segment; below 100, Reno's 1/cwnd.
    /// The round's closing ACK first grows the window (400.03), then the round minimum
    /// 105.001 ms gives Q = floor(400.03 * 5 / 105.001) = floor(19.05) = 19 <= 80, and 5 ms of
    /// queueing <= 100.001/8 = 12.5 ms: fast mode stays.
    #[test]
    fn fast_mode_grows_as_scalable() {
        let (mut y, mut f) = with_base_100ms();
        let mut w = Window { cwnd: 400.0, ssthresh: 100.0 };
        y.on_ack(&f.ack_rtt(105, false), &mut w);
        assert!((w.cwnd - 400.01).abs() < 1e-9);
        y.on_ack(&f.ack_rtt(106, false), &mut w);
        y.on_ack(&f.ack_rtt(107, true), &mut w);
        assert!((w.cwnd - 400.03).abs() < 1e-9);
        assert!(y.in_fast_mode());
        assert_eq!(y.last_q, 19.0);
    }

    /// From cwnd 600 three fast-mode ACKs give 600.03; the round minimum 120.001 ms then gives
    /// Q = floor(600.03 * 20 / 120.001) = floor(100.004) = 100 > 80: slow mode, and decongestion
    /// removes min(100, floor(600.03 / 2) = 300) = 100: cwnd = ssthresh = 500.03, reno_count =
    /// max(floor(500.03 / 2), 2) = 250. Slow mode then grows as Reno: +1/cwnd.
    #[test]
    fn a_queue_above_q_max_is_removed_at_once() {
        let (mut y, mut f) = with_base_100ms();
        let mut w = Window { cwnd: 600.0, ssthresh: 100.0 };
        y.on_ack(&f.ack_rtt(121, false), &mut w);
        y.on_ack(&f.ack_rtt(120, false), &mut w);
        y.on_ack(&f.ack_rtt(125, true), &mut w);
        assert!((w.cwnd - 500.03).abs() < 1e-9, "{w:?}");
        assert_eq!(w.ssthresh, w.cwnd);
        assert!(!y.in_fast_mode());
        assert_eq!((y.reno_count(), y.last_q), (250.0, 100.0));
        let before = w.cwnd;
        y.on_ack(&f.ack_rtt(120, false), &mut w);
        assert!((w.cwnd - (before + 1.0 / before)).abs() < 1e-12);
    }

    /// Loss in fast mode with a small queue: the reduction is max(min(Q, cwnd/2), cwnd >> 3).
    /// Q = 19, cwnd 400: max(min(19, 200), 50) = 50 -> ssthresh 350 (1/8 off). With Q = 150:
    /// min(150, 200) = 150 -> 250. After rho = 16 slow rounds a loss halves: 200.
    #[test]
    fn losses_remove_the_queue_unless_reno_competition_was_seen() {
        let mut y = Yeah { last_q: 19.0, ..Default::default() };
        let mut w = Window { cwnd: 400.0, ssthresh: 100.0 };
        y.on_congestion(&congestion(CongestionKind::Loss, 400.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 350.0, ssthresh: 350.0 });
        let mut y = Yeah { last_q: 150.0, ..Default::default() };
        let mut w = Window { cwnd: 400.0, ssthresh: 100.0 };
        y.on_congestion(&congestion(CongestionKind::Loss, 400.0, false), &mut w);
        assert_eq!(w.cwnd, 250.0);
        let mut y = Yeah { last_q: 150.0, slow_rounds: 16, reno_count: 90.0, ..Default::default() };
        let mut w = Window { cwnd: 400.0, ssthresh: 100.0 };
        y.on_congestion(&congestion(CongestionKind::Loss, 400.0, false), &mut w);
        assert_eq!(w.cwnd, 200.0);
        assert_eq!(y.reno_count(), 45.0);
    }

    /// Linux calls `tcp_yeah_ssthresh` (which halves reno_count and clears the fast-round count)
    /// once per loss episode and, for timeouts, only on the first expiry (`tcp_enter_loss`). With
    /// reno_count 90: first expiry -> 45, a second expiry of the same segment -> still 45, and
    /// ssthresh stays where the first expiry put it (400 - max(min(19, 200), 50) = 350).
    #[test]
    fn a_timeout_episode_halves_reno_count_once() {
        let mut y = Yeah { last_q: 19.0, reno_count: 90.0, fast_rounds: 7, ..Default::default() };
        let mut w = Window { cwnd: 400.0, ssthresh: 100.0 };
        y.on_congestion(&congestion(CongestionKind::Timeout, 400.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 350.0 });
        assert_eq!((y.reno_count(), y.fast_rounds), (45.0, 0));
        y.fast_rounds = 3;
        y.on_congestion(&congestion(CongestionKind::Timeout, 1.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 350.0 });
        assert_eq!((y.reno_count(), y.fast_rounds), (45.0, 3));
    }
}
