//! TCP Adaptive Reno, AReno (H. Shimonishi, T. Murase, M. Y. Sanadidi, "Assessing Interactions
//! among Legacy and High-Speed TCPs", PFLDnet 2007 = seed 004; H. Shimonishi, T. Hama, T. Murase,
//! "TCP-Adaptive Reno for Improving Efficiency-Friendliness Tradeoffs of TCP Congestion Control
//! Algorithm", PFLDnet 2006 = seed 002's reference \[10\]).
//!
//! A Reno whose increase adapts to a congestion level c = (RTT - RTTmin) / (RTTcong - RTTmin),
//! clamped to [0, 1], where RTTcong is an average of the RTTs at which losses happened: with an
//! empty queue (c = 0) it probes fast, in proportion to the link capacity B over its own rate R,
//! and as the queue approaches the loss level it pulls back; a loss divides the window by 1 + c,
//! so a loss on an empty queue (a random loss) costs nothing and one at the usual congestion
//! delay halves it. Slow start is Reno's.
//!
//! Two forms, `form`:
//! * 2007 (seed 004, default): per ACK in avoidance W += (alpha (B/R) RTT e^c - beta W c) / W,
//!   with R = W/RTT; a Reno window W_reno += 1/W runs alongside and W = max(W, W_reno); on a loss
//!   both are divided by 1 + c. The update is zero at R = sqrt(B alpha e^c / (beta c)).
//! * 2006 (the earlier published algorithm seed 002 compares against): W = W_base + W_probe,
//!   W_base += 1/W (Reno), W_probe = max(W_probe + W_inc(c)/W, 0) with
//!   W_inc(c) = W_max e^(-a c) + b c + g, W_max = B/M; b and g make W_inc(1) = 1 and the mean of
//!   W_inc over [0, 1] equal 1.
//!   On a loss W_base = W/(1 + c) and W_probe = 0.
//!
//! Choices (docs/algorithms.md, "areno"; the papers leave them open):
//! * alpha = 10 segments/s and beta = 0.1 are proposals (seed 004 gives no values); the 2006
//!   constants a = 10 and M = 10 Mbit/s come from secondary sources. All are parameters.
//! * RTT is the mean of the congestion-control RTT samples of the current round so far
//!   (`rtt_round_mean`, default: "smoothed over the round"); 0 uses the latest sample. RTTmin
//!   is the smallest sample ever.
//! * RTTcong is an EWMA of the RTT at each loss with history weight 0.85 (the first loss sets it).
//!   At a loss it is updated first and c is computed from the updated value, so the first loss
//!   (c = 1) halves like Reno instead of being ignored. Before the first loss c = 0.
//!   RTTcong - RTTmin is floored at 1 ms (`min_cong_delay`).
//! * B is the largest Westwood+ bandwidth estimate since the connection start or the last
//!   timeout (capacity-like, not the current share). Until there is an estimate B/R = 1.
//! * W_max = B/M needs B in bits: the estimate (segments/s) is converted with `mss_bytes`, which
//!   should be the flow's MSS (the algorithm does not see it).
//! * A timeout: ssthresh = max(W/(1 + c), 2) on its first expiry (RTTcong updated as for a loss,
//!   the B maximum restarted), cwnd = 1, slow start; the Reno (base) window follows cwnd in slow
//!   start.
//! * Recovery is NewReno's (the Linux module seed 004 ran used the stack's recovery).
//!
//! `linux26 = true`: AReno as a Linux 2.6.22 module under ns-2's TCP-Linux (the setting seed 004
//! ran it in), with the other 2.6 modules' counting: one unit per ACK whatever it acknowledges,
//! slow start while cwnd <= ssthresh adding one segment with nothing carried into avoidance, and
//! avoidance's per-ACK update applied once per ACK (by default both count acknowledged segments,
//! so with delayed ACKs they grow about twice as fast).

use super::common::bandwidth::WestwoodBwe;
use super::common::rtt_stats::RttStats;
use super::common::{ca_rtt, in_slow_start, in_slow_start_2_6, may_grow, reduce_to, slow_start};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::units::{Dur, Time};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "form",
        kind: ParamKind::Int,
        default: 2007.0,
        min: 2006.0,
        max: 2007.0,
        doc: "2007 = seed 004's W += (alpha (B/R) RTT e^c - beta W c)/W over a Reno floor; \
              2006 = PFLDnet 2006 base + probe windows (seed 002's reference)",
    },
    ParamInfo {
        name: "alpha",
        kind: ParamKind::Float,
        default: 10.0,
        min: 0.0,
        max: 1e6,
        doc: "2007 form: probe gain, segments/s (proposal; seed 004 gives none)",
    },
    ParamInfo {
        name: "beta",
        kind: ParamKind::Float,
        default: 0.1,
        min: 0.0,
        max: 10.0,
        doc: "2007 form: fraction of W pulled back per RTT at c = 1 (proposal; seed 004 gives none)",
    },
    ParamInfo {
        name: "a",
        kind: ParamKind::Float,
        default: 10.0,
        min: 0.01,
        max: 100.0,
        doc: "2006 form: exponent of W_inc(c) = W_max e^(-a c) + b c + g (secondary sources: 10)",
    },
    ParamInfo {
        name: "m_mbps",
        kind: ParamKind::Float,
        default: 10.0,
        min: 1e-3,
        max: 1e6,
        doc: "2006 form: M of W_max = B/M, Mbit/s (secondary sources: 10)",
    },
    ParamInfo {
        name: "mss_bytes",
        kind: ParamKind::Float,
        default: 1000.0,
        min: 1.0,
        max: 65535.0,
        doc: "2006 form: segment size converting the bandwidth estimate to bit/s; set to the flow's MSS",
    },
    ParamInfo {
        name: "rtt_cong_weight",
        kind: ParamKind::Float,
        default: 0.85,
        min: 0.0,
        max: 1.0,
        doc: "history weight of the RTTcong average of RTTs at losses (ports of the 2006 form: 0.85)",
    },
    ParamInfo {
        name: "rtt_round_mean",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "RTT in c and R: mean of this round's samples (1) or the latest sample (0)",
    },
    ParamInfo {
        name: "min_cong_delay",
        kind: ParamKind::Float,
        default: 0.001,
        min: 1e-6,
        max: 10.0,
        doc: "floor of RTTcong - RTTmin, seconds (guard against a hypersensitive c)",
    },
    ParamInfo {
        name: "linux26",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "as a Linux 2.6.22 module under ns-2's TCP-Linux: one unit per ACK whatever it \
              acknowledges, in slow start (while cwnd <= ssthresh, no leftover) and in avoidance",
    },
];

const NS: f64 = 1e-9;

#[derive(Clone, Debug)]
pub struct AReno {
    form_2006: bool,
    alpha: f64,
    beta: f64,
    a: f64,
    /// M in segments/s.
    m_segments: f64,
    rtt_cong_weight: f64,
    rtt_round_mean: bool,
    min_cong_delay: f64,
    rtt: RttStats,
    bwe: Option<WestwoodBwe>,
    /// Largest bandwidth estimate since the start or the last timeout, segments/s.
    b_max: f64,
    /// RTT as used for c and R, seconds (0 before any sample).
    rtt_now: f64,
    /// Average RTT at losses, seconds.
    rtt_cong: Option<f64>,
    /// 2007 form: the Reno window; 2006 form: the base window. `None` until the first ACK.
    w_reno: Option<f64>,
    /// 2006 form: the probe window.
    w_probe: f64,
    /// Linux 2.6.22's per-ACK growth (see the module header).
    linux26: bool,
}

impl Default for AReno {
    fn default() -> Self {
        AReno {
            form_2006: false,
            alpha: 10.0,
            beta: 0.1,
            a: 10.0,
            m_segments: 10e6 / 8000.0,
            rtt_cong_weight: 0.85,
            rtt_round_mean: true,
            min_cong_delay: 0.001,
            rtt: RttStats::default(),
            bwe: None,
            b_max: 0.0,
            rtt_now: 0.0,
            rtt_cong: None,
            w_reno: None,
            w_probe: 0.0,
            linux26: false,
        }
    }
}

impl AReno {
    pub fn from_params(p: &Params) -> Self {
        AReno {
            form_2006: p.get("form") < 2006.5,
            alpha: p.get("alpha"),
            beta: p.get("beta"),
            a: p.get("a"),
            m_segments: p.get("m_mbps") * 1e6 / (8.0 * p.get("mss_bytes")),
            rtt_cong_weight: p.get("rtt_cong_weight"),
            rtt_round_mean: p.flag("rtt_round_mean"),
            min_cong_delay: p.get("min_cong_delay"),
            linux26: p.flag("linux26"),
            ..Default::default()
        }
    }

    /// Congestion level in [0, 1]; 0 before the first loss or the first sample.
    pub fn c(&self) -> f64 {
        let (Some(cong), Some(min)) = (self.rtt_cong, self.rtt.base()) else { return 0.0 };
        let min = min as f64 * NS;
        ((self.rtt_now - min) / (cong - min).max(self.min_cong_delay)).clamp(0.0, 1.0)
    }

    /// B over R = W/RTT; 1 until there is a bandwidth estimate.
    fn b_over_r(&self, w: f64) -> f64 {
        if self.b_max > 0.0 && self.rtt_now > 0.0 && w > 0.0 {
            self.b_max * self.rtt_now / w
        } else {
            1.0
        }
    }

    /// 2007 form: the change of W per RTT (W ACKs), segments: alpha (B/R) RTT e^c - beta W c.
    pub fn increase_per_rtt(&self, w: f64) -> f64 {
        let c = self.c();
        self.alpha * self.b_over_r(w) * self.rtt_now * c.exp() - self.beta * w * c
    }

    /// 2006 form: W_inc(c) = W_max e^(-a c) + b c + g, segments per RTT.
    pub fn w_inc(&self, c: f64) -> f64 {
        let a = self.a;
        let w_max = if self.b_max > 0.0 { self.b_max / self.m_segments } else { 0.0 };
        let e = (-a).exp();
        let b = 2.0 * w_max * (1.0 / a - (1.0 / a + 1.0) * e);
        let g = 1.0 - 2.0 * w_max * (1.0 / a - (1.0 / a + 0.5) * e);
        w_max * (-a * c).exp() + b * c + g
    }

    fn observe(&mut self, ack: &AckSample) {
        let sample: Dur = ca_rtt(ack);
        let bwe = self.bwe.get_or_insert_with(|| WestwoodBwe::new(ack.now));
        bwe.on_ack(ack.now, ack.delivered, sample);
        self.b_max = self.b_max.max(bwe.estimate());
        if ack.round_start {
            self.rtt.start_round();
        }
        if sample > 0 {
            self.rtt.sample(sample);
            self.rtt_now = if self.rtt_round_mean {
                self.rtt.round_mean().unwrap_or(sample as f64) * NS
            } else {
                sample as f64 * NS
            };
        }
    }

    /// Per-ACK avoidance with `units` units of increase.
    fn avoid(&mut self, w: &mut Window, units: f64) {
        let w_reno = self.w_reno.get_or_insert(w.cwnd);
        let cw = w.cwnd;
        if self.form_2006 {
            *w_reno += units / cw;
            let base = *w_reno;
            self.w_probe = (self.w_probe + units * self.w_inc(self.c()) / cw).max(0.0);
            w.cwnd = base + self.w_probe;
        } else {
            *w_reno += units / cw;
            let reno = *w_reno;
            let next = cw + units * self.increase_per_rtt(cw) / cw;
            w.cwnd = next.max(reno);
        }
    }

    /// A loss or the first expiry of a timeout: fold the RTT at the loss into RTTcong, then c.
    fn loss_level(&mut self) -> f64 {
        if self.rtt_now > 0.0 {
            let a = self.rtt_cong_weight;
            self.rtt_cong = Some(match self.rtt_cong {
                Some(old) => a * old + (1.0 - a) * self.rtt_now,
                None => self.rtt_now,
            });
        }
        self.c()
    }

    pub fn rtt_cong(&self) -> Option<f64> {
        self.rtt_cong
    }
}

impl CongestionControl for AReno {
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("c", self.c());
        out("rtt_cong", self.rtt_cong().unwrap_or(f64::NAN));
    }
    fn name(&self) -> &'static str {
        "areno"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.observe(ack);
        if !may_grow(ack) {
            return;
        }
        if self.linux26 {
            // A 2.6 module's cong_avoid ran once per ACK: one unit whatever the ACK covers.
            if in_slow_start_2_6(w) {
                w.cwnd += 1.0;
                self.w_reno = Some(w.cwnd);
                self.w_probe = 0.0;
            } else {
                self.avoid(w, 1.0);
            }
            return;
        }
        if in_slow_start(w) {
            let left = slow_start(ack, w);
            self.w_reno = Some(w.cwnd);
            self.w_probe = 0.0;
            if left > 0.0 {
                self.avoid(w, left);
            }
        } else {
            self.avoid(w, ack.increase_units);
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
        if ev.kind == CongestionKind::Timeout && !ev.first_timeout {
            w.cwnd = 1.0;
            return;
        }
        let c = self.loss_level();
        let target = ev.basis / (1.0 + c);
        reduce_to(ev, w, target);
        if self.form_2006 {
            self.w_reno = Some(w.ssthresh);
            self.w_probe = 0.0;
        } else if let Some(r) = self.w_reno.as_mut() {
            *r = (*r / (1.0 + c)).min(w.ssthresh);
        }
        if ev.kind == CongestionKind::Timeout {
            self.b_max = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::*;
    use crate::units::NS_PER_MS;

    const MS: u64 = NS_PER_MS;

    /// An ACK at `t_ms` with a congestion-control RTT of `rtt_ms`.
    fn ack_rtt(t_ms: u64, rtt_ms: u64, round_start: bool) -> AckSample {
        let mut a = ack(1.0);
        a.now = t_ms * MS;
        a.ca_rtt = Some(rtt_ms * MS);
        a.round_start = round_start;
        a
    }

    /// RTTmin 100 ms from a first sample, then a loss at 140 ms sets RTTcong = 140 ms.
    fn with_rtt_cong() -> (AReno, Window) {
        let mut cc = AReno { rtt_round_mean: false, ..Default::default() };
        let mut w = Window { cwnd: 40.0, ssthresh: 10.0 };
        cc.on_ack(&ack_rtt(1000, 100, true), &mut w);
        cc.on_ack(&ack_rtt(1001, 140, true), &mut w);
        cc.on_congestion(&congestion(CongestionKind::Loss, 40.0, false), &mut w);
        (cc, w)
    }

    /// c from RTTmin 100, RTTcong 140 ms: 120 ms -> 0.5, 90 ms -> 0 (clamped), 200 -> 1.
    /// The first loss (at 140 ms = RTTcong) has c = 1 and halves 40 -> 20.
    #[test]
    fn congestion_level_and_first_loss() {
        let (mut cc, w) = with_rtt_cong();
        assert_eq!(w, Window { cwnd: 20.0, ssthresh: 20.0 });
        assert_eq!(cc.rtt_cong(), Some(0.14));
        cc.observe(&ack_rtt(1002, 120, false));
        assert!((cc.c() - 0.5).abs() < 1e-9);
        cc.observe(&ack_rtt(1003, 200, false));
        assert_eq!(cc.c(), 1.0);
        // A loss at 110 ms: RTTcong = 0.85 * 0.14 + 0.15 * 0.11 = 0.1355, c = 10/35.5 = 0.28169;
        // W 30 -> 30 / 1.28169 = 23.4066.
        cc.observe(&ack_rtt(1004, 110, false));
        let mut w = Window { cwnd: 30.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 30.0, false), &mut w);
        assert!((cc.rtt_cong().unwrap() - 0.1355).abs() < 1e-12);
        assert!((w.cwnd - 23.4066).abs() < 1e-4, "{w:?}");
    }

    /// A random loss on an empty queue (RTT = RTTmin, c = 0) costs nothing; RTTcong moves to
    /// 0.85 * 0.14 + 0.15 * 0.10 = 0.134.
    #[test]
    fn a_loss_on_an_empty_queue_keeps_the_window() {
        let (mut cc, _) = with_rtt_cong();
        cc.observe(&ack_rtt(1002, 100, false));
        let mut w = Window { cwnd: 50.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 50.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 50.0, ssthresh: 50.0 });
        assert!((cc.rtt_cong().unwrap() - 0.134).abs() < 1e-12);
    }

    /// Hand trace, 2007 form, no bandwidth estimate yet (B/R = 1), RTTmin 100, RTTcong 140 ms.
    /// Window 20 (W_reno 20 after the halving).
    /// * RTT 100 ms (c = 0): per RTT alpha RTT = 10 * 0.1 = 1 segment, per ACK 1/20 -> 20.05;
    ///   W_reno 20 + 1/20 = 20.05 too.
    /// * RTT 120 ms (c = 0.5): 10 * 0.12 * e^0.5 - 0.1 * 20.05 * 0.5 = 1.978465 - 1.0025 =
    ///   0.975965 per RTT, / 20.05 = 0.048676 -> 20.098676; W_reno + 1/20.05 = 20.099875 is
    ///   larger: W = 20.099875 (the Reno floor).
    /// * RTT 140 ms (c = 1): 10 * 0.14 * e - 0.1 * W = 3.805595 - 2.0099875 = 1.795608 per RTT,
    ///   / 20.099875 -> 20.189210; W_reno 20.099875 + 1/20.099875 = 20.149627: W = 20.189210.
    #[test]
    fn hand_trace_2007_form() {
        let (mut cc, mut w) = with_rtt_cong();
        assert_eq!(cc.w_reno, Some(20.0));
        cc.on_ack(&ack_rtt(1002, 100, false), &mut w);
        assert!((w.cwnd - 20.05).abs() < 1e-9, "{w:?}");
        cc.on_ack(&ack_rtt(1003, 120, false), &mut w);
        assert!((w.cwnd - 20.099875).abs() < 1e-6, "{w:?}");
        cc.on_ack(&ack_rtt(1004, 140, false), &mut w);
        assert!((w.cwnd - 20.189210).abs() < 1e-6, "{w:?}");
        assert!((cc.w_reno.unwrap() - 20.149627).abs() < 1e-6);
    }

    /// The 2007 update is zero at R = W/RTT = sqrt(B alpha e^c / (beta c)) (seed 004's steady
    /// state): B = 1000 segments/s, RTT 120 ms (c = 0.5): R* = sqrt(1000 * 10 * 1.648721 / 0.05)
    /// = 574.24 segments/s, W* = 68.909. Above W* the update is negative, below positive, and
    /// iterating the per-ACK rule from either side converges to W*.
    #[test]
    fn equilibrium_rate_matches_seed_004() {
        let (mut cc, _) = with_rtt_cong();
        cc.observe(&ack_rtt(1002, 120, false));
        cc.b_max = 1000.0;
        let c = cc.c();
        assert!((c - 0.5).abs() < 1e-12);
        let r_star = (cc.b_max * cc.alpha * c.exp() / (cc.beta * c)).sqrt();
        assert!((r_star - 574.24).abs() < 0.01, "{r_star}");
        let w_star = r_star * 0.12;
        assert!(cc.increase_per_rtt(w_star).abs() < 1e-9, "{}", cc.increase_per_rtt(w_star));
        assert!(cc.increase_per_rtt(0.9 * w_star) > 0.0 && cc.increase_per_rtt(1.1 * w_star) < 0.0);
        for start in [30.0, 150.0] {
            let mut w = Window { cwnd: start, ssthresh: 2.0 };
            for _ in 0..20_000 {
                cc.w_reno = Some(2.0); // keep the Reno floor out of the way
                cc.avoid(&mut w, 1.0);
            }
            assert!((w.cwnd - w_star).abs() < 1e-3 * w_star, "from {start}: {} vs {w_star}", w.cwnd);
        }
    }

    /// 2006 form: W_inc(1) = 1 and the mean over c in [0, 1] is 1; W_inc(0) = W_max + g.
    /// B = 12500 segments/s of 1000 B = 100 Mbit/s: W_max = 10, e^-10 = 4.54e-5,
    /// g = 1 - 20 (0.1 - 0.6 * 4.54e-5) = -0.999455, W_inc(0) = 9.000545.
    #[test]
    fn w_inc_2006_is_reno_at_c_1_and_on_average() {
        let cc = AReno { form_2006: true, b_max: 12_500.0, ..Default::default() };
        assert!((cc.w_inc(1.0) - 1.0).abs() < 1e-12);
        let n = 100_000;
        let mean = (0..n).map(|i| cc.w_inc((i as f64 + 0.5) / n as f64)).sum::<f64>() / n as f64;
        assert!((mean - 1.0).abs() < 1e-6, "{mean}");
        assert!((cc.w_inc(0.0) - 9.000545).abs() < 1e-6, "{}", cc.w_inc(0.0));
        assert!(cc.w_inc(0.4) < 0.0, "negative in the middle: {}", cc.w_inc(0.4));
    }

    /// 2006 hand trace: W 20 = base 20, probe 0, c = 0 (RTT 100 ms), B as above.
    /// ACK: base 20 + 1/20 = 20.05, probe 0 + 9.000545/20 = 0.450027 -> W = 20.500027.
    /// A loss at RTT 140 ms (c = 1, RTTcong stays 0.14): W_base = 20.500027 / 2 = 10.250014,
    /// probe 0, cwnd = ssthresh = 10.250014. Next ACK at c = 0.4 (RTT 116 ms): W_inc(0.4) =
    /// 10 e^-4 + 1.999001 * 0.4 - 0.999455 = 0.183156 + 0.799600 - 0.999455 = -0.016698 < 0,
    /// so the probe stays at 0 and
    /// W = base + 1/10.250014 = 10.347575.
    #[test]
    fn hand_trace_2006_form() {
        let (mut cc, _) = with_rtt_cong();
        cc.form_2006 = true;
        cc.b_max = 12_500.0;
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        cc.w_reno = Some(20.0);
        cc.on_ack(&ack_rtt(1002, 100, false), &mut w);
        assert!((w.cwnd - 20.500027).abs() < 1e-6, "{w:?}");
        cc.observe(&ack_rtt(1003, 140, false));
        cc.on_congestion(&congestion(CongestionKind::Loss, w.cwnd, false), &mut w);
        assert!((w.cwnd - 10.250014).abs() < 1e-6 && w.cwnd == w.ssthresh, "{w:?}");
        assert!((cc.rtt_cong().unwrap() - 0.14).abs() < 1e-12);
        cc.on_ack(&ack_rtt(1004, 116, false), &mut w);
        assert!((cc.c() - 0.4).abs() < 1e-9);
        assert!((cc.w_inc(0.4) + 0.016698).abs() < 1e-6, "{}", cc.w_inc(0.4));
        assert_eq!(cc.w_probe, 0.0);
        assert!((w.cwnd - 10.347575).abs() < 1e-6, "{w:?}");
    }

    /// Slow start is Reno's and keeps W_reno = W; a timeout at c = 1 sets ssthresh = W/2,
    /// cwnd 1, and forgets the bandwidth maximum; a later expiry only sets cwnd = 1.
    #[test]
    fn slow_start_and_timeouts() {
        let (mut cc, _) = with_rtt_cong();
        let mut w = Window { cwnd: 4.0, ssthresh: 100.0 };
        cc.on_ack(&ack_rtt(1002, 140, false), &mut w);
        assert_eq!(w.cwnd, 5.0);
        assert_eq!(cc.w_reno, Some(5.0));
        cc.b_max = 500.0;
        let mut w = Window { cwnd: 30.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Timeout, 30.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 15.0 });
        assert_eq!(cc.b_max, 0.0);
        cc.on_congestion(&congestion(CongestionKind::Timeout, 1.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 15.0 });
    }
    /// Linux 2.6 (`linux26`): one unit per ACK. Slow start at cwnd = ssthresh = 10 (today's test
    /// cwnd < ssthresh says avoidance): an ACK of 2 segments adds 1, to 11, and W_reno follows.
    /// In avoidance before any loss (c = 0, B/R = 1 without an estimate, RTT 100 ms): the 2007
    /// update per unit is alpha RTT / W = 10 * 0.1 / 20 = 0.05 and W_reno gains 1/20; the same
    /// ACK of 2 segments adds 0.05 under linux26 and 0.1 by default.
    #[test]
    fn linux26_grows_one_unit_per_ack() {
        let mut cc = AReno { linux26: true, ..Default::default() };
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        let mut a = ack_rtt(1000, 100, false);
        a.increase_units = 2.0;
        a.acked = 2.0;
        cc.on_ack(&a, &mut w);
        assert_eq!(w, Window { cwnd: 11.0, ssthresh: 10.0 });
        assert_eq!(cc.w_reno, Some(11.0));

        let mut cc = AReno { linux26: true, ..Default::default() };
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        cc.on_ack(&a, &mut w);
        assert!((w.cwnd - 20.05).abs() < 1e-12, "{w:?}");
        assert_eq!(cc.w_reno, Some(20.05));

        let mut cc = AReno::default();
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        cc.on_ack(&a, &mut w);
        assert!((w.cwnd - 20.1).abs() < 1e-12, "{w:?}");
    }
}
