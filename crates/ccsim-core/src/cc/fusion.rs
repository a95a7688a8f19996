//! TCP-Fusion (K. Kaneko, T. Fujikawa, Z. Su, J. Katto, "TCP-Fusion: A Hybrid Congestion Control
//! Algorithm for High-speed Networks", PFLDnet 2007; restated as eq. 2-4 of K. Ogura, T. Fujikawa,
//! S. Zhou, J. Katto, "Improvement of RTT-Fairness in Hybrid TCP Congestion Control", seed 002).
//!
//! Three signals drive one window:
//! * a Vegas-like rule on the queue estimate diff = cwnd (RTT - RTT_min) / RTT, decided once per
//!   round from the round's smallest RTT: below alpha = cwnd D_min / RTT (queueing delay under
//!   `d_min_alpha`) the window grows by W_inc per RTT, W_inc = B D_min / PS (the segments that make
//!   `d_min_winc` of queue at the Westwood+ delivery-rate estimate B); above 3 alpha it shrinks by
//!   diff - alpha per RTT; in between it holds ("delay mode");
//! * an emulated Reno window, grown one segment per RTT on the same ACK clock, that the window
//!   never goes below ("loss mode" when it binds), so Fusion is never less aggressive than Reno;
//! * on a loss, a decrease to max(RTT_min / RTT, 1/2) of the window, RTT the one just before the
//!   loss (TCPW-RE's achieved rate): only the queued packets go, never more than half.
//!
//! [`FloorGrowth`] lets the RTT-fair proposal of seed 002 (`fusion_rf`) change only how the
//! emulated window grows.
//!
//! Choices (docs/algorithms.md, "fusion, fusion-rf"; none of the original Linux or ns-2 code was
//! available):
//! * alpha = cwnd D_min / RTT and W_inc = B D_min / PS are the form of the public ns-3 ports, not
//!   checked against the PFLDnet text. D_min is 1 ms for both (`d_min_alpha`, `d_min_winc`); the
//!   ports use one 4 ms jiffy for alpha. W_inc is at least `w_inc_min` = 1 segment (a port), so
//!   the increase phase is never slower than Reno, and is 1 segment until the estimator has its
//!   first sample.
//! * The phase is decided once per round (on the ACK that starts a new one) and applied per ACK
//!   during the next round: +W_inc / cwnd (increase), +(alpha - diff) / cwnd (decrease), 0
//!   (steady), so a round moves the window by W_inc or by alpha - diff. A round with fewer than 3
//!   RTT samples (delayed ACKs on a tiny window) takes no delay action, as Vegas.
//! * The emulated Reno window grows by acked / cwnd with the actual window (the flow's ACK clock),
//!   follows the window in slow start, and halves on a loss (`floor_restart = true`: it restarts
//!   from the new window, as one port does, which makes the floor more aggressive than Reno).
//! * A decrease lowers ssthresh with the window, so the delay rule cannot send the flow back into
//!   slow start.
//! * The RTT of the loss decrease is the latest sample before the loss is detected (duplicate ACKs
//!   carry none); the reduction is applied to the stack profile's basis (window or flight size).
//!   Before any sample the decrease is 1/2.
//! * A timeout: ssthresh = max(RTT_min / RTT, 1/2) of the basis on the first expiry (Reno would
//!   halve), cwnd = 1, and the emulated window restarts from it in slow start.
//! * From a loss until the first round that ends after recovery (or after the timeout), the delay
//!   rule is idle: the RTTs sampled in recovery still see the queue that the decrease removed.
//!   Samples in recovery still lower the base RTT and feed the rate estimate.
//! * Slow start is Reno's (Fusion leaves it only on a loss).
//! * RTT samples are the sender's per-ACK sample ([`AckSample::delay`]: `ca_rtt`, or the
//!   timestamp echo under ns2's timing), at least 1 ns. The base RTT RTT_min is the sender's
//!   shared one, the smallest sample ever, never aged. The round minimum and sample count are
//!   Fusion's own, not the sender's round summary: Fusion restarts its round at a loss, at a
//!   timeout and at recovery exit, which the sender's rounds do not.

use super::common::bandwidth::WestwoodBwe;
use super::common::delay::RoundRtt;
use super::common::{in_slow_start, may_grow, reduce_to, slow_start, MIN_SSTHRESH};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::units::{secs, Dur, Time};

pub const D_MIN_ALPHA: ParamInfo = ParamInfo {
    name: "d_min_alpha_ms",
    kind: ParamKind::Float,
    default: 1.0,
    min: 1e-3,
    max: 1e4,
    doc: "queueing delay below which the window grows and above 3x which it shrinks, ms \
          (alpha = cwnd d_min / RTT; default 1, ns-3 ports 4)",
};

pub const D_MIN_WINC: ParamInfo = ParamInfo {
    name: "d_min_winc_ms",
    kind: ParamKind::Float,
    default: 1.0,
    min: 0.0,
    max: 1e4,
    doc: "increase-phase growth per RTT is the rate estimate times this delay, ms (W_inc = B d_min / PS; \
          default and ns-3 port 1)",
};

pub const DEC_MULTIPLIER: ParamInfo = ParamInfo {
    name: "dec_multiplier",
    kind: ParamKind::Float,
    default: 3.0,
    min: 1.0,
    max: 1e3,
    doc: "the window shrinks while diff exceeds this many alpha (seed 002: 3)",
};

pub const LOSS_FLOOR: ParamInfo = ParamInfo {
    name: "loss_floor",
    kind: ParamKind::Float,
    default: 0.5,
    min: 0.01,
    max: 1.0,
    doc: "smallest fraction of the window kept on a loss; otherwise RTT_min/RTT (seed 002: 1/2)",
};

pub const W_INC_MIN: ParamInfo = ParamInfo {
    name: "w_inc_min",
    kind: ParamKind::Float,
    default: 1.0,
    min: 0.0,
    max: 1e6,
    doc: "smallest increase-phase growth, segments per RTT (ns-3 port: 1)",
};

pub const FLOOR_RESTART: ParamInfo = ParamInfo {
    name: "floor_restart",
    kind: ParamKind::Bool,
    default: 0.0,
    min: 0.0,
    max: 1.0,
    doc: "after a loss the emulated Reno window restarts from the new window (a port) instead of \
          halving itself",
};

pub const PARAMS: &[ParamInfo] = &[D_MIN_ALPHA, D_MIN_WINC, DEC_MULTIPLIER, LOSS_FLOOR, W_INC_MIN, FLOOR_RESTART];

/// Below this many RTT samples a round is probably delayed ACKs only: no delay action (Vegas).
const MIN_SAMPLES: u32 = 3;
/// Fusion never takes the window below two segments.
const MIN_CWND: f64 = 2.0;
/// The emulated Reno window halves on a loss.
const RENO_BETA: f64 = 0.5;

/// How the emulated Reno window (the floor) grows in congestion avoidance, per RTT.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FloorGrowth {
    /// One segment per RTT (TCP-Fusion).
    Reno,
    /// `k T^2` segments per RTT, T in seconds (seed 002's proposal, TCP-Libra's increase): T the
    /// sender's smoothed RTT, or with `round_min` the previous round's smallest RTT; at least
    /// `min_increase` segments.
    RttSquared { k: f64, round_min: bool, min_increase: f64 },
}

/// The delay rule's decision for the current round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Increase,
    Steady,
    Decrease,
    /// No delay action: too few samples in the last round, or a loss since.
    Idle,
}

#[derive(Clone, Debug)]
pub struct Fusion {
    name: &'static str,
    /// Seconds.
    d_min_alpha: f64,
    d_min_winc: f64,
    dec_multiplier: f64,
    loss_floor: f64,
    w_inc_min: f64,
    floor_restart: bool,
    growth: FloorGrowth,
    /// The sender's base RTT as of the latest ACK (for the loss decrease, which has no ACK).
    base: Option<Dur>,
    /// This round's samples: Fusion's own round, restarted at losses, timeouts and recovery exit.
    round: RoundRtt,
    bwe: Option<WestwoodBwe>,
    phase: Phase,
    /// The last decision's queue estimate, threshold and increment, segments.
    diff: f64,
    alpha: f64,
    w_inc: f64,
    /// The emulated Reno window; `None` until the first ACK shows the initial window.
    floor: Option<f64>,
    /// Latest RTT sample, and the previous round's smallest.
    last_rtt: Option<Dur>,
    prev_round_min: Option<Dur>,
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion {
            name: "fusion",
            d_min_alpha: 0.001,
            d_min_winc: 0.001,
            dec_multiplier: 3.0,
            loss_floor: 0.5,
            w_inc_min: 1.0,
            floor_restart: false,
            growth: FloorGrowth::Reno,
            base: None,
            round: RoundRtt::default(),
            bwe: None,
            phase: Phase::Idle,
            diff: 0.0,
            alpha: 0.0,
            w_inc: 1.0,
            floor: None,
            last_rtt: None,
            prev_round_min: None,
        }
    }
}

impl Fusion {
    pub fn from_params(p: &Params) -> Self {
        Fusion {
            d_min_alpha: p.get(D_MIN_ALPHA.name) / 1e3,
            d_min_winc: p.get(D_MIN_WINC.name) / 1e3,
            dec_multiplier: p.get(DEC_MULTIPLIER.name),
            loss_floor: p.get(LOSS_FLOOR.name),
            w_inc_min: p.get(W_INC_MIN.name),
            floor_restart: p.flag(FLOOR_RESTART.name),
            ..Default::default()
        }
    }

    /// The same algorithm under another name with another floor growth (the RTT-fair proposal).
    pub fn with_floor_growth(self, name: &'static str, growth: FloorGrowth) -> Self {
        Fusion { name, growth, ..self }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The emulated Reno window, segments.
    pub fn floor(&self) -> Option<f64> {
        self.floor
    }

    fn observe(&mut self, ack: &AckSample) {
        let rtt = ack.delay.latest.max(1);
        self.base = Some(ack.delay.base.max(1));
        self.round.sample(rtt);
        self.last_rtt = Some(rtt);
        self.bwe.get_or_insert_with(|| WestwoodBwe::new(ack.now)).on_ack(ack.now, ack.delivered, rtt);
    }

    /// The once-per-round decision from the round that just ended; a new round starts.
    fn end_round(&mut self, cwnd: f64) {
        if self.round.count > 0 {
            self.prev_round_min = Some(self.round.min);
        }
        self.phase = match self.base {
            Some(base) if self.round.count >= MIN_SAMPLES => {
                let (rtt, base) = (secs(self.round.min), secs(base));
                self.diff = cwnd * (rtt - base) / rtt;
                self.alpha = cwnd * self.d_min_alpha / rtt;
                let rate = self.bwe.as_ref().map_or(0.0, |b| b.estimate());
                self.w_inc = (rate * self.d_min_winc).max(self.w_inc_min);
                if self.diff < self.alpha {
                    Phase::Increase
                } else if self.diff > self.dec_multiplier * self.alpha {
                    Phase::Decrease
                } else {
                    Phase::Steady
                }
            }
            _ => Phase::Idle,
        };
        self.round = RoundRtt::default();
    }

    /// Segments the floor gains per RTT.
    fn floor_increase(&self, ack: &AckSample) -> f64 {
        match self.growth {
            FloorGrowth::Reno => 1.0,
            FloorGrowth::RttSquared { k, round_min, min_increase } => {
                let t = if round_min { self.prev_round_min.unwrap_or(ack.srtt) } else { ack.srtt };
                (k * secs(t).powi(2)).max(min_increase)
            }
        }
    }

    /// Congestion avoidance for `units` units of increase.
    fn avoid(&mut self, ack: &AckSample, w: &mut Window, units: f64) {
        let cwnd = w.cwnd;
        let floor = self.floor.unwrap_or(cwnd) + units * self.floor_increase(ack) / cwnd;
        self.floor = Some(floor);
        match self.phase {
            Phase::Increase => w.cwnd += units * self.w_inc / cwnd,
            Phase::Decrease => {
                w.cwnd += units * (self.alpha - self.diff) / cwnd;
                w.ssthresh = w.ssthresh.min(w.cwnd.max(floor).max(MIN_CWND)).max(MIN_SSTHRESH);
            }
            Phase::Steady | Phase::Idle => {}
        }
        w.cwnd = w.cwnd.max(floor).max(MIN_CWND);
    }

    /// The fraction of the window kept on a loss: RTT_min / RTT before the loss, at least
    /// `loss_floor`.
    fn decrease_factor(&self) -> f64 {
        match (self.base, self.last_rtt) {
            (Some(base), Some(rtt)) => (base as f64 / rtt as f64).clamp(self.loss_floor, 1.0),
            _ => self.loss_floor,
        }
    }
}

impl CongestionControl for Fusion {
    /// `phase`: 0 idle, 1 increase, 2 steady, 3 decrease; `floor`: the emulated Reno window.
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        let phase = match self.phase {
            Phase::Idle => 0.0,
            Phase::Increase => 1.0,
            Phase::Steady => 2.0,
            Phase::Decrease => 3.0,
        };
        out("phase", phase);
        out("floor", self.floor.unwrap_or(f64::NAN));
    }
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.observe(ack);
        if ack.round_start {
            self.end_round(w.cwnd);
        }
        if self.floor.is_none() {
            self.floor = Some(w.cwnd);
        }
        if !may_grow(ack) {
            return;
        }
        let mut units = ack.increase_units;
        if in_slow_start(w) {
            units = slow_start(ack, w);
            self.floor = Some(w.cwnd);
        }
        if units > 0.0 {
            self.avoid(ack, w, units);
        }
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.observe(ack);
    }

    fn on_dupack(&mut self, now: Time) {
        if let Some(b) = self.bwe.as_mut() {
            b.on_dupack(now);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        let target = ev.basis * self.decrease_factor();
        reduce_to(ev, w, target);
        self.floor = Some(match ev.kind {
            CongestionKind::Timeout => w.cwnd,
            _ if self.floor_restart => w.cwnd,
            _ => (self.floor.unwrap_or(w.cwnd) * RENO_BETA).max(MIN_SSTHRESH),
        });
        self.phase = Phase::Idle;
        self.round = RoundRtt::default();
    }

    fn on_recovery_exit(&mut self, _now: Time, w: &mut Window) {
        if let Some(floor) = self.floor {
            w.cwnd = w.cwnd.max(floor);
        }
        self.round = RoundRtt::default();
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack_rtt, congestion, Feed};
    use super::*;
    use crate::units::NS_PER_MS;

    const MS: u64 = NS_PER_MS;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// A Fusion with the floor at `floor`, starting a round, and a sender's delay meter that has
    /// seen a 100 ms base RTT (it stamps the ACKs fed to the Fusion).
    fn with_base_100ms(floor: f64) -> (Fusion, Feed) {
        let mut m = Feed::default();
        m.ack_rtt(100, false);
        let f = Fusion { floor: Some(floor), ..Fusion::default() };
        (f, m)
    }

    /// Two ACKs in the round (RTTs `a`, `b` ms), then the one that ends it with `c` ms.
    fn round(f: &mut Fusion, m: &mut Feed, w: &mut Window, a: u64, b: u64, c: u64) {
        f.on_ack(&m.ack_rtt(a, false), w);
        f.on_ack(&m.ack_rtt(b, false), w);
        f.on_ack(&m.ack_rtt(c, true), w);
    }

    /// Base 100 ms, D_min 1 ms, in avoidance at cwnd 50 (ssthresh 40), floor 30; no rate
    /// estimate yet (every ACK at one instant), so W_inc = w_inc_min = 1.
    /// * The two in-round ACKs: phase idle, cwnd held; floor 30 + 1/50 + 1/50 = 30.04.
    /// * Round minimum 100 ms: diff = 50 (100 - 100)/100 = 0 < alpha = 50 * 1/100 = 0.5:
    ///   increase. The closing ACK: floor 30.06, cwnd 50 + 1/50 = 50.02.
    /// * Next round, minimum 102 ms (queueing 2 ms, between 1 and 3 ms): with cwnd 50.02 + 2/50.02
    ///   (the two in-round ACKs still increase) = 50.05998..., diff = cwnd 2/102 = 0.98157,
    ///   alpha = cwnd/102 = 0.49078, 3 alpha = 1.4724: steady, cwnd held on the closing ACK.
    #[test]
    fn below_d_min_of_queueing_the_window_grows_between_d_min_and_3_d_min_it_holds() {
        let (mut f, mut m) = with_base_100ms(30.0);
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        f.on_ack(&m.ack_rtt(101, false), &mut w);
        f.on_ack(&m.ack_rtt(103, false), &mut w);
        assert_eq!((w.cwnd, f.phase), (50.0, Phase::Idle));
        assert!(close(f.floor.unwrap(), 30.0 + 1.0 / 50.0 + 1.0 / 50.0));
        f.on_ack(&m.ack_rtt(100, true), &mut w);
        assert_eq!(f.phase, Phase::Increase);
        assert!(f.diff == 0.0 && close(f.alpha, 0.5) && f.w_inc == 1.0, "{} {} {}", f.diff, f.alpha, f.w_inc);
        assert!(close(w.cwnd, 50.02), "{}", w.cwnd);
        assert!(close(f.floor.unwrap(), 30.04 + 1.0 / 50.0));

        round(&mut f, &mut m, &mut w, 104, 103, 102);
        let c = 50.02 + 1.0 / 50.02;
        let c = c + 1.0 / c;
        assert_eq!(f.phase, Phase::Steady);
        assert!(close(w.cwnd, c), "{} vs {c}", w.cwnd);
        assert!(close(f.diff, c * 2.0 / 102.0) && close(f.alpha, c / 102.0));
        // Steady: the next ACK leaves cwnd alone (the floor, about 30.1, is far below).
        f.on_ack(&m.ack_rtt(102, false), &mut w);
        assert!(close(w.cwnd, c));
    }

    /// Round minimum 110 ms at cwnd 50 (base 100): diff = 50 * 10/110 = 4.5454...,
    /// alpha = 50/110 = 0.4545... < diff / 3: decrease. Each ACK adds (alpha - diff)/cwnd:
    /// the closing ACK gives 50 - (500 - 50)/110/50 = 50 - 0.081818... = 49.918181...
    /// Over a round (50 more ACKs) the window loses about diff - alpha = 4.09 segments (a little
    /// more, since the step is divided by the shrinking window: at most 4.09 * 50/45.9 = 4.46).
    /// ssthresh (40) is not touched while the window stays above it.
    #[test]
    fn above_3_d_min_of_queueing_the_window_sheds_diff_minus_alpha_per_round() {
        let (mut f, mut m) = with_base_100ms(30.0);
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        round(&mut f, &mut m, &mut w, 112, 111, 110);
        assert_eq!(f.phase, Phase::Decrease);
        assert!(close(w.cwnd, 50.0 - 450.0 / 110.0 / 50.0), "{}", w.cwnd);
        for _ in 0..50 {
            f.on_ack(&m.ack_rtt(110, false), &mut w);
        }
        let lost = 50.0 - w.cwnd;
        assert!((4.09..4.46).contains(&lost), "lost {lost}");
        assert_eq!(w.ssthresh, 40.0);
    }

    /// A decrease that takes the window below ssthresh takes ssthresh along, so the next ACK
    /// is not slow start: cwnd 40.02, ssthresh 40, round minimum 200 ms: diff = 40.02/2 = 20.01,
    /// alpha = 40.02/200 = 0.2001: step (0.2001 - 20.01)/40.02 = -0.495; cwnd = ssthresh =
    /// 39.525.
    #[test]
    fn a_decrease_carries_ssthresh_down_with_the_window() {
        let (mut f, mut m) = with_base_100ms(10.0);
        let mut w = Window { cwnd: 40.02, ssthresh: 40.0 };
        // The in-round ACKs are idle: only the floor moves (10 + 2/40.02).
        round(&mut f, &mut m, &mut w, 200, 201, 202);
        let expect = 40.02 + (40.02 * 0.001 / 0.2 - 40.02 * 0.1 / 0.2) / 40.02;
        assert!(close(w.cwnd, expect) && close(w.ssthresh, expect), "{w:?} vs {expect}");
        f.on_ack(&m.ack_rtt(200, false), &mut w);
        assert!(w.cwnd < expect, "still decreasing, not slow start: {}", w.cwnd);
    }

    /// The Reno floor: the decrease phase above with the floor at 49.9. The in-round ACKs (idle)
    /// raise the floor to 49.9 + 2/50 = 49.94; the closing ACK would take cwnd to
    /// 50 - 0.0818 = 49.918, but the floor has reached 49.94 + 1/50 = 49.96: cwnd = 49.96, loss
    /// mode. The next ACK: the decrease would give 49.96 - 4.0909/49.96 = 49.878, the floor
    /// 49.96 + 1/49.96 = 49.98002: the floor, growing one segment per RTT, carries the window.
    #[test]
    fn the_window_never_goes_below_the_emulated_reno_window() {
        let (mut f, mut m) = with_base_100ms(49.9);
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        round(&mut f, &mut m, &mut w, 112, 111, 110);
        assert_eq!(f.phase, Phase::Decrease);
        let floor = 49.9 + 3.0 / 50.0;
        assert!(close(w.cwnd, floor), "{}", w.cwnd);
        assert_eq!(f.floor, Some(w.cwnd));
        f.on_ack(&m.ack_rtt(110, false), &mut w);
        assert!(close(w.cwnd, floor + 1.0 / floor), "{}", w.cwnd);
    }

    /// A round of two samples (150 ms, far above the base) takes no delay action: cwnd stays 50;
    /// the floor still grows 30 + 2/50.
    #[test]
    fn rounds_with_too_few_samples_take_no_delay_action() {
        let (mut f, mut m) = with_base_100ms(30.0);
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        f.on_ack(&m.ack_rtt(150, false), &mut w);
        f.on_ack(&m.ack_rtt(150, true), &mut w);
        assert_eq!((f.phase, w.cwnd), (Phase::Idle, 50.0));
        assert!(close(f.floor.unwrap(), 30.04));
    }

    /// Loss decrease from the RTT just before the loss (base 100 ms), basis 60:
    /// * last sample 150 ms: max(100/150, 1/2) = 2/3: ssthresh = cwnd = 40; the floor 36 halves
    ///   to 18; at recovery exit the window is max(40, 18) = 40;
    /// * last sample 250 ms: max(0.4, 1/2): 30;
    /// * last sample 100 ms (empty queue): the loss costs nothing, 60.
    #[test]
    fn a_loss_removes_the_queue_but_never_more_than_half() {
        for (rtt, expect) in [(150, 40.0), (250, 30.0), (100, 60.0)] {
            let (mut f, mut m) = with_base_100ms(36.0);
            f.observe(&m.ack_rtt(rtt, false));
            let mut w = Window { cwnd: 60.0, ssthresh: 40.0 };
            f.on_congestion(&congestion(CongestionKind::Loss, 60.0, false), &mut w);
            assert!(close(w.cwnd, expect) && close(w.ssthresh, expect), "rtt {rtt}: {w:?}");
            assert_eq!((f.floor, f.phase), (Some(18.0), Phase::Idle));
            f.on_recovery_exit(0, &mut w);
            assert!(close(w.cwnd, expect));
        }
        // No sample yet: halve.
        let mut f = Fusion::default();
        let mut w = Window { cwnd: 60.0, ssthresh: 40.0 };
        f.on_congestion(&congestion(CongestionKind::Loss, 60.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 30.0, ssthresh: 30.0 });
    }

    /// floor_restart: the floor restarts from the new window (40) instead of halving (18). A
    /// timeout (last sample 150 ms, basis 60): ssthresh 40, cwnd 1, floor 1; slow start then
    /// carries the floor with the window.
    #[test]
    fn the_floor_can_restart_from_the_window_and_timeouts_restart_it_at_one() {
        let (f, mut m) = with_base_100ms(36.0);
        let mut f = Fusion { floor_restart: true, ..f };
        f.observe(&m.ack_rtt(150, false));
        let mut w = Window { cwnd: 60.0, ssthresh: 40.0 };
        f.on_congestion(&congestion(CongestionKind::Loss, 60.0, false), &mut w);
        assert!(close(w.cwnd, 40.0) && close(f.floor.unwrap(), 40.0));

        let (mut f, mut m) = with_base_100ms(36.0);
        f.observe(&m.ack_rtt(150, false));
        let mut w = Window { cwnd: 60.0, ssthresh: 50.0 };
        f.on_congestion(&congestion(CongestionKind::Timeout, 60.0, true), &mut w);
        assert!(w.cwnd == 1.0 && close(w.ssthresh, 40.0) && f.floor == Some(1.0), "{w:?}");
        f.on_ack(&m.ack_rtt(150, false), &mut w);
        assert_eq!((w.cwnd, f.floor), (2.0, Some(2.0)));
    }

    /// W_inc = B D_min: ten segments per ms (10 000 segments/s) for 2 s at a 100 ms RTT gives a
    /// Westwood+ estimate within 1% of 10 000/s; with D_min = 1 ms, W_inc is about 10 segments per
    /// RTT, and the closing ACK at cwnd 50 adds W_inc/50 (about 0.2).
    #[test]
    fn the_increase_phase_adds_the_segments_that_make_d_min_of_queue_at_the_measured_rate() {
        let mut f = Fusion::default();
        let mut m = Feed::default();
        let mut scratch = Window { cwnd: 2.0, ssthresh: 1.0 };
        for t in 1..=2000u64 {
            let mut a = ack_rtt(100, false);
            a.now = (1000 + t) * MS;
            a.echoed_ts = a.now - 100 * MS;
            a.delivered = 10 * t;
            a.cwnd_limited = false;
            a.growth.gating = true;
            f.on_ack(&m.stamp(a), &mut scratch);
        }
        let rate = f.bwe.as_ref().unwrap().estimate();
        assert!((rate - 10_000.0).abs() < 100.0, "estimate {rate}");
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        let mut a = ack_rtt(100, true);
        a.now = 3001 * MS;
        a.echoed_ts = a.now - 100 * MS;
        a.delivered = 20_010;
        f.on_ack(&m.stamp(a), &mut w);
        assert_eq!(f.phase, Phase::Increase);
        assert!((f.w_inc - 10.0).abs() < 0.1, "W_inc {}", f.w_inc);
        assert!(close(w.cwnd, 50.0 + f.w_inc / 50.0), "{}", w.cwnd);
    }

    /// Slow start is Reno's and the floor follows the window: cwnd 10 -> 11 on one ACK, floor 11.
    /// Without growth permission (gated, not cwnd-limited) nothing moves.
    #[test]
    fn slow_start_is_renos_and_carries_the_floor() {
        let mut f = Fusion::default();
        let mut m = Feed::default();
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        f.on_ack(&m.ack_rtt(100, false), &mut w);
        assert_eq!((w.cwnd, f.floor), (11.0, Some(11.0)));
        let mut a = ack_rtt(100, false);
        a.growth.gating = true;
        a.cwnd_limited = false;
        f.on_ack(&m.stamp(a), &mut w);
        assert_eq!((w.cwnd, f.floor), (11.0, Some(11.0)));
    }
}
