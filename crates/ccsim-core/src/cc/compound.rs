//! Compound TCP (K. Tan, J. Song, Q. Zhang, M. Sridharan, "A Compound TCP Approach for
//! High-speed and Long Distance Networks", IEEE INFOCOM 2006; draft-sridharan-tcpm-ctcp), with
//! the constants of the Linux `tcp_compound.c` module (release 1.3).
//!
//! Two windows, a Reno loss window and a delay window: the sender uses win = cwnd + dwnd. The
//! Reno part grows one segment per RTT (1/win per acknowledged unit, since the flow sends win
//! per RTT). Once per round, from a Vegas-style estimate of this flow's queued packets
//! diff = old_wnd (RTT - base) / RTT, dwnd grows by alpha win^k - 1 while diff < gamma (so the
//! total grows binomially, like HSTCP, on an empty pipe) and shrinks by zeta diff above it (so
//! with a queue CTCP is Reno). A loss multiplies the total by 1 - beta: the Reno part halves and
//! dwnd takes what is left. Below low_wnd segments CTCP is exactly Reno.
//!
//! Choices (docs/algorithms.md, "compound"):
//! * alpha 1/8, k 0.75 on the total window (the INFOCOM form Linux keeps; older drafts applied
//!   the power to dwnd), beta 1/2, zeta 1, gamma 30 packets: Linux and the paper.
//! * low_wnd = 38 segments (Linux 1.3, also HSTCP's Low_Window) rather than the draft's 41; a
//!   parameter.
//! * diff uses the paper's denominator RTT (Linux Compound does too), the round's minimum RTT,
//!   and old_wnd = the segments acknowledged during the round (what was actually sent in the
//!   previous round: a flow not limited by its window does not see a fake queue). Not truncated.
//! * The dwnd increment floor(alpha win^k) - 1 is added at the round end (paper/draft);
//!   `pace_dwnd = true` spreads it as Linux 1.3 does, 2 inc / win per ACK (half a round).
//! * dwnd is only updated in congestion avoidance, with at least 3 RTT samples in the round
//!   (Linux, as Vegas), and is zero while win < low_wnd and in slow start.
//! * The loss reduction is computed from the profile's basis as win: ssthresh = total =
//!   max(win (1 - beta), 2), Reno part halved (capped at the new total), dwnd the rest.
//!   When the stack changes the window itself, both parts are scaled by the same factor (Linux).
//! * Timeout: ssthresh as for a loss (first expiry only), window 1, dwnd 0 (draft).
//! * Gamma auto-tuning (Linux 1.3) is available, off by default: at each loss with a fresh
//!   diff_reno (the round's diff computed with the Reno part), gamma += (3/4 diff_reno -
//!   gamma)/4, clamped to [5, 30].
//! * RTT samples: the sender's per-ACK sample ([`AckSample::delay`]: `ca_rtt`, or the timestamp
//!   echo under ns2's timing) on every ACK, recovery included, plus 1 us as Linux's Vegas family.
//!   The base RTT is the sender's shared one (plus 1 us), never aged. The round minimum and
//!   sample count are CTCP's own, not the sender's round summary: CTCP restarts its round at
//!   recovery exit and at a timeout, and a round that ends in recovery keeps its samples.
//!
//! `linux26 = true`: the `tcp_compound.c` of the CTCP patch for Linux 2.6 that ns-2's TCP-Linux
//! ships (A. Castellani and S. Hemminger, on 2.6.22.6's Vegas; gamma 30, alpha 1/8, k 3/4,
//! eta 1). It differs from the form above in:
//! * the Reno part counts ACKs: one unit per ACK whatever it acknowledges, one segment per win
//!   ACKs in avoidance (win the total), and slow start (one segment per ACK) while the *Reno
//!   part* is at or below ssthresh, so after a loss the Reno part regrows one segment per ACK;
//! * a loss only sets ssthresh = win / 2 (Linux's Reno rule on the total); the module splits the
//!   window the stack leaves it, at the next ACK: if the Reno part or dwnd alone exceeds it, the
//!   Reno part takes it all and dwnd is 0 (after a halving that is every split but an equal one);
//!   otherwise dwnd stays and the Reno part is the rest;
//! * dwnd is evaluated at every round, in slow start and at any window (no low_wnd), from
//!   old_wnd, the segments sent in the round (acknowledged in it here): dwnd grows
//!   floor(alpha old_wnd^k) - 1 (nothing below 41 segments) while diff < gamma;
//! * nothing is evaluated on an ACK that is not cwnd-limited (the module returns first): a round
//!   that ends on one is evaluated at the next cwnd-limited ACK;
//! * no gamma tuning, no pacing of the increment, no low_wnd (`tune_gamma`, `pace_dwnd` and
//!   `low_wnd` are ignored).

use super::common::delay::RoundRtt;
use super::common::{additive_increase, grow, in_slow_start, may_grow, reduce_to};
use super::params::{ParamInfo, ParamKind, Params};
use super::vegas::RTT_OFFSET;
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::math::powf;
use crate::units::Time;

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "alpha",
        kind: ParamKind::Float,
        default: 0.125,
        min: 0.0,
        max: 1e3,
        doc: "dwnd grows alpha win^k - 1 per round on an empty pipe (paper, Linux 1/8)",
    },
    ParamInfo {
        name: "k",
        kind: ParamKind::Float,
        default: 0.75,
        min: 0.0,
        max: 1.0,
        doc: "exponent of the binomial increase, applied to the total window (Linux, INFOCOM 0.75)",
    },
    ParamInfo {
        name: "beta",
        kind: ParamKind::Float,
        default: 0.5,
        min: 0.01,
        max: 0.99,
        doc: "fraction of the total window removed by a loss (paper, Linux 1/2)",
    },
    ParamInfo {
        name: "zeta",
        kind: ParamKind::Float,
        default: 1.0,
        min: 0.0,
        max: 1e3,
        doc: "dwnd shrinks zeta diff per round above gamma (Linux eta 1)",
    },
    ParamInfo {
        name: "gamma",
        kind: ParamKind::Float,
        default: 30.0,
        min: 0.0,
        max: 1e9,
        doc: "queued packets above which dwnd shrinks (Linux 30)",
    },
    ParamInfo {
        name: "low_wnd",
        kind: ParamKind::Float,
        default: 38.0,
        min: 0.0,
        max: 1e9,
        doc: "below this total window CTCP is Reno, segments (Linux 1.3 38; draft 41)",
    },
    ParamInfo {
        name: "pace_dwnd",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "spread each dwnd increment over half a round (Linux 1.3) instead of adding it at the \
              round end (paper, draft)",
    },
    ParamInfo {
        name: "tune_gamma",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "auto-tune gamma at each loss from 3/4 of the Reno part's queue estimate, within [5, 30] \
              (Linux 1.3 option)",
    },
    ParamInfo {
        name: "linux26",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "the CTCP patch's tcp_compound.c that ns-2's TCP-Linux ships (Linux 2.6.22): Reno part \
              per ACK, slow start while the Reno part <= ssthresh, a loss halves the total and resets \
              dwnd unless it fits, dwnd from old_wnd at every round (no low_wnd)",
    },
];

/// Below this many RTT samples a round is not evaluated (Linux, as Vegas).
const MIN_SAMPLES: u32 = 3;
/// Gamma auto-tuning (Linux 1.3): sample 3/4 diff_reno, gain 1/4, range [5, 30].
const GAMMA_SAMPLE: f64 = 0.75;
const GAMMA_GAIN: f64 = 0.25;
const GAMMA_MIN: f64 = 5.0;
const GAMMA_MAX: f64 = 30.0;

#[derive(Clone, Debug)]
pub struct Compound {
    alpha: f64,
    k: f64,
    beta: f64,
    zeta: f64,
    gamma: f64,
    low_wnd: f64,
    pace_dwnd: bool,
    tune_gamma: bool,
    /// This round's samples (+1 us each): CTCP's own round, restarted at recovery exit and at a
    /// timeout. The base RTT is the sender's ([`AckSample::delay`]).
    round: RoundRtt,
    /// The Reno (loss) part and the delay part; the sender's window is their sum.
    reno: f64,
    dwnd: f64,
    /// Delivered count at the last round start.
    round_delivered: u64,
    /// dwnd increment still to add, and the share per ACK (pace_dwnd).
    pending: f64,
    step: f64,
    /// Queue estimate of the Reno part at the last evaluated round, until a loss uses it.
    diff_reno: Option<f64>,
    /// The CTCP patch of Linux 2.6 (see the module header).
    linux26: bool,
    /// Linux 2.6: a round ended on an ACK that was not cwnd-limited; evaluated at the next one.
    round_due: bool,
}

impl Default for Compound {
    fn default() -> Self {
        Compound {
            alpha: 0.125,
            k: 0.75,
            beta: 0.5,
            zeta: 1.0,
            gamma: 30.0,
            low_wnd: 38.0,
            pace_dwnd: false,
            tune_gamma: false,
            round: RoundRtt::default(),
            reno: 0.0,
            dwnd: 0.0,
            round_delivered: 0,
            pending: 0.0,
            step: 0.0,
            diff_reno: None,
            linux26: false,
            round_due: false,
        }
    }
}

impl Compound {
    pub fn from_params(p: &Params) -> Self {
        Compound {
            alpha: p.get("alpha"),
            k: p.get("k"),
            beta: p.get("beta"),
            zeta: p.get("zeta"),
            gamma: p.get("gamma"),
            low_wnd: p.get("low_wnd"),
            pace_dwnd: p.flag("pace_dwnd"),
            tune_gamma: p.flag("tune_gamma"),
            linux26: p.flag("linux26"),
            ..Default::default()
        }
    }

    /// Linux 2.6 CTCP: when the stack has lowered the window below the two parts, the Reno part
    /// takes it all if either part alone exceeds it, else the Reno part is what dwnd leaves.
    fn reconcile_2_6(&mut self, w: &Window) {
        if self.reno == 0.0 && self.dwnd == 0.0 {
            // `tcp_compound_init`: the Reno part is the window the connection starts with.
            self.reno = w.cwnd;
        } else if self.reno + self.dwnd > w.cwnd {
            if self.reno > w.cwnd || self.dwnd > w.cwnd {
                self.reno = w.cwnd;
                self.dwnd = 0.0;
            } else {
                self.reno = w.cwnd - self.dwnd;
            }
        }
    }

    /// Linux 2.6 CTCP's once-per-round dwnd update, from the segments of the round.
    fn end_of_round_2_6(&mut self, ack: &AckSample) {
        let old_wnd = ack.delivered.saturating_sub(self.round_delivered) as f64;
        self.round_delivered = ack.delivered;
        if self.round.count >= MIN_SAMPLES {
            let (rtt, base) = (self.round.min, ack.delay.base + RTT_OFFSET);
            let diff = old_wnd * (rtt - base) as f64 / rtt as f64;
            if diff < self.gamma {
                self.dwnd += ((self.alpha * powf(old_wnd, self.k)).floor() - 1.0).max(0.0);
            } else {
                self.dwnd = (self.dwnd - self.zeta * diff).max(0.0);
            }
        }
        self.round = RoundRtt::default();
    }

    /// Linux 2.6 CTCP's `cong_avoid`, on one ACK.
    fn on_ack_2_6(&mut self, ack: &AckSample, w: &mut Window) {
        self.round.sample(ack.delay.latest + RTT_OFFSET);
        self.round_due |= ack.round_start;
        self.reconcile_2_6(w);
        if !may_grow(ack) {
            return;
        }
        // The Reno part: slow start while it is at or below ssthresh, else one segment per win
        // ACKs.
        self.reno += if self.reno <= w.ssthresh { 1.0 } else { 1.0 / w.cwnd };
        if std::mem::take(&mut self.round_due) {
            self.end_of_round_2_6(ack);
        }
        w.cwnd = self.reno + self.dwnd;
    }

    /// The Reno (loss-based) part of the window.
    pub fn reno_window(&self) -> f64 {
        self.reno
    }

    /// The delay-based part of the window.
    pub fn dwnd(&self) -> f64 {
        self.dwnd
    }

    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// If the stack moved the window (first ACK, recovery exit at a value other than ours),
    /// scale both parts by the same factor, as Linux does.
    fn reconcile(&mut self, w: &Window) {
        let total = self.reno + self.dwnd;
        if (w.cwnd - total).abs() > 1e-9 {
            if total > 0.0 {
                let f = w.cwnd / total;
                self.reno *= f;
                self.dwnd *= f;
                self.pending *= f;
            } else {
                self.reno = w.cwnd;
            }
        }
    }

    /// The once-per-round update of dwnd, on the ACK that starts a new round.
    fn end_of_round(&mut self, ack: &AckSample, w: &Window) {
        let old_wnd = ack.delivered.saturating_sub(self.round_delivered) as f64;
        self.round_delivered = ack.delivered;
        let win = w.cwnd;
        if win < self.low_wnd || in_slow_start(w) {
            self.dwnd = 0.0;
            self.pending = 0.0;
            return;
        }
        if self.round.count < MIN_SAMPLES {
            return;
        }
        let (rtt, base) = (self.round.min, ack.delay.base + RTT_OFFSET);
        let queueing = (rtt - base) as f64 / rtt as f64;
        let diff = old_wnd * queueing;
        self.diff_reno = Some(self.reno * queueing);
        if diff < self.gamma {
            if !may_grow(ack) {
                return;
            }
            let inc = ((self.alpha * powf(win, self.k)).floor() - 1.0).max(0.0);
            if self.pace_dwnd {
                self.pending = inc;
                self.step = 2.0 * inc / win;
            } else {
                self.dwnd += inc;
            }
        } else {
            self.pending = 0.0;
            self.dwnd = (self.dwnd - self.zeta * diff).max(0.0);
        }
    }
}

impl CongestionControl for Compound {
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("dwnd", self.dwnd());
        out("reno", self.reno_window());
        out("gamma", self.gamma());
    }
    fn name(&self) -> &'static str {
        "compound"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        if self.linux26 {
            self.on_ack_2_6(ack, w);
            return;
        }
        self.round.sample(ack.delay.latest + RTT_OFFSET);
        self.reconcile(w);
        if in_slow_start(w) {
            // Slow start is Reno's on the total; no delay window.
            self.reno = w.cwnd;
            self.dwnd = 0.0;
            self.pending = 0.0;
        } else if self.pending > 0.0 && may_grow(ack) {
            let inc = (self.step * ack.increase_units).min(self.pending);
            self.dwnd += inc;
            self.pending -= inc;
        }
        // Reno's growth on the total window: 1/win per unit in avoidance, the part that is not
        // dwnd being the Reno window (Linux: snd_cwnd grown as Reno, cwnd = snd_cwnd - dwnd).
        w.cwnd = self.reno + self.dwnd;
        grow(ack, w, |w, units| additive_increase(w, 1.0, units));
        self.reno = w.cwnd - self.dwnd;
        if ack.round_start {
            self.end_of_round(ack, w);
            self.round = RoundRtt::default();
            w.cwnd = self.reno + self.dwnd;
        }
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.round.sample(ack.delay.latest + RTT_OFFSET);
        if ack.round_start {
            self.round_delivered = ack.delivered;
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        if self.linux26 {
            // Linux 2.6 CTCP: `tcp_reno_ssthresh` on the total; the parts are split at the next
            // ACK against the window the stack leaves.
            reduce_to(ev, w, ev.basis * (1.0 - self.beta));
            if ev.kind == CongestionKind::Timeout {
                self.round = RoundRtt::default();
                self.round_due = false;
            }
            return;
        }
        self.reconcile(w);
        let lowers_ssthresh = ev.kind != CongestionKind::Timeout || ev.first_timeout;
        if self.tune_gamma && lowers_ssthresh {
            if let Some(d) = self.diff_reno.take() {
                self.gamma += GAMMA_GAIN * (GAMMA_SAMPLE * d - self.gamma);
                self.gamma = self.gamma.clamp(GAMMA_MIN, GAMMA_MAX);
            }
        }
        let win_new = ev.basis * (1.0 - self.beta);
        let reno_before = self.reno;
        reduce_to(ev, w, win_new);
        self.pending = 0.0;
        if ev.kind == CongestionKind::Timeout {
            self.reno = w.cwnd;
            self.dwnd = 0.0;
            self.round = RoundRtt::default();
        } else {
            self.reno = (reno_before / 2.0).min(w.cwnd);
            self.dwnd = w.cwnd - self.reno;
        }
    }

    fn on_recovery_exit(&mut self, _now: Time, w: &mut Window) {
        if self.linux26 {
            // Linux 2.6 CTCP restarts its round on returning to Open (`cvegas_enable`).
            self.round = RoundRtt::default();
            self.round_due = false;
            return;
        }
        self.reconcile(w);
        self.round = RoundRtt::default();
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{congestion, Feed};
    use super::*;
    /// A CTCP in avoidance with Reno part `reno` and delay part `dwnd`, and a sender's delay
    /// meter that has seen a 100 ms base RTT (it stamps the ACKs fed to the CTCP).
    fn avoiding(reno: f64, dwnd: f64) -> (Compound, Window, Feed) {
        let mut m = Feed::default();
        m.ack_rtt(100, false);
        let c = Compound { reno, dwnd, ..Default::default() };
        (c, Window { cwnd: reno + dwnd, ssthresh: 10.0 }, m)
    }

    /// Feed a round: `n` ACKs at `rtt_ms`, then the round-start ACK, `delivered` segments
    /// acknowledged in the round.
    fn round(c: &mut Compound, m: &mut Feed, w: &mut Window, n: usize, rtt_ms: u64, delivered: u64) {
        let d0 = c.round_delivered;
        for i in 0..n {
            let mut a = m.ack_rtt(rtt_ms, false);
            a.delivered = d0 + i as u64 + 1;
            c.on_ack(&a, w);
        }
        let mut a = m.ack_rtt(rtt_ms, true);
        a.delivered = d0 + delivered;
        c.on_ack(&a, w);
    }

    /// Empty pipe, Reno part 600, dwnd 400: every ACK adds 1/win to the Reno part. After
    /// 4 ACKs (all at the base RTT) the total is 1000 + 1/1000 + 1/1000.001 + ... ~ 1000.004; the
    /// round end sees diff = 0 < 30 and adds floor(1/8 * 1000.004^0.75) - 1 = floor(22.23) - 1
    /// = 21 to dwnd: 421, total ~ 1021.004.
    #[test]
    fn an_empty_pipe_grows_dwnd_by_alpha_win_to_the_k_minus_one() {
        let (mut c, mut w, mut m) = avoiding(600.0, 400.0);
        round(&mut c, &mut m, &mut w, 3, 100, 1000);
        assert_eq!(c.dwnd(), 421.0);
        let reno = 600.0 + 1.0 / 1000.0 + 1.0 / 1000.001 + 1.0 / 1000.002 + 1.0 / 1000.003;
        assert!((c.reno_window() - reno).abs() < 1e-6, "{}", c.reno_window());
        assert!((w.cwnd - (reno + 421.0)).abs() < 1e-9);
    }

    /// Queue: round minimum 110.001 ms against the base 100.001 ms, 500 segments acknowledged in
    /// the round: diff = 500 * 10 / 110.001 = 45.45 >= 30, so dwnd = 100 - 45.45 = 54.55. With
    /// 300 acknowledged diff = 27.27 < 30 and dwnd grows by floor(1/8 * 600^0.75) - 1 =
    /// floor(15.15) - 1 = 14. A larger queue empties dwnd (never below 0).
    #[test]
    fn a_queue_above_gamma_shrinks_dwnd_by_zeta_diff() {
        let (mut c, mut w, mut m) = avoiding(500.0, 100.0);
        round(&mut c, &mut m, &mut w, 3, 110, 500);
        let diff = 500.0 * 10.0 / 110.001;
        assert!((c.dwnd() - (100.0 - diff)).abs() < 1e-9, "{}", c.dwnd());
        let (mut c, mut w, mut m) = avoiding(500.0, 100.0);
        round(&mut c, &mut m, &mut w, 3, 110, 300);
        assert_eq!(c.dwnd(), 114.0);
        let (mut c, mut w, mut m) = avoiding(500.0, 10.0);
        round(&mut c, &mut m, &mut w, 3, 150, 500);
        assert_eq!(c.dwnd(), 0.0);
        assert!((w.cwnd - c.reno_window()).abs() < 1e-12);
    }

    /// Below low_wnd (38) CTCP is Reno: total 30, empty pipe, no dwnd; the total grows 1/30 per
    /// ACK. Same for rounds with fewer than 3 samples (dwnd kept as is) and in slow start.
    #[test]
    fn small_windows_and_slow_start_are_reno() {
        let (mut c, mut w, mut m) = avoiding(30.0, 0.0);
        round(&mut c, &mut m, &mut w, 3, 100, 30);
        assert_eq!(c.dwnd(), 0.0);
        assert!(w.cwnd > 30.13 && w.cwnd < 30.134, "{}", w.cwnd);
        let (mut c, mut w, mut m) = avoiding(100.0, 50.0);
        round(&mut c, &mut m, &mut w, 1, 100, 150);
        assert_eq!(c.dwnd(), 50.0);
        let (mut c, mut w, mut m) = avoiding(100.0, 0.0);
        w.ssthresh = 1000.0;
        round(&mut c, &mut m, &mut w, 3, 100, 100);
        assert_eq!((c.dwnd(), w.cwnd), (0.0, 104.0));
    }

    /// Loss at Reno 600 + dwnd 400: the total goes to 1000 / 2 = 500 = ssthresh, the Reno part
    /// halves to 300, dwnd = 200. With beta = 0.2, 800: Reno 300, dwnd 500. Timeout: ssthresh
    /// 500, window 1, dwnd 0.
    #[test]
    fn a_loss_cuts_the_total_by_beta_and_dwnd_takes_the_rest() {
        let (mut c, mut w, _) = avoiding(600.0, 400.0);
        c.on_congestion(&congestion(CongestionKind::Loss, 1000.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 500.0, ssthresh: 500.0 });
        assert_eq!((c.reno_window(), c.dwnd()), (300.0, 200.0));
        let (mut c, mut w, _) = avoiding(600.0, 400.0);
        c.beta = 0.2;
        c.on_congestion(&congestion(CongestionKind::Loss, 1000.0, false), &mut w);
        assert_eq!((w.cwnd, c.reno_window(), c.dwnd()), (800.0, 300.0, 500.0));
        let (mut c, mut w, _) = avoiding(600.0, 400.0);
        c.on_congestion(&congestion(CongestionKind::Timeout, 1000.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 500.0 });
        assert_eq!((c.reno_window(), c.dwnd()), (1.0, 0.0));
    }

    /// When the stack sets a different window (here 750 for a 600 + 400 split) both parts scale
    /// by 0.75: 450 + 300.
    #[test]
    fn a_window_set_by_the_stack_scales_both_parts() {
        let (mut c, w, _) = avoiding(600.0, 400.0);
        let mut w = Window { cwnd: 750.0, ..w };
        c.on_recovery_exit(0, &mut w);
        assert_eq!((c.reno_window(), c.dwnd()), (450.0, 300.0));
    }

    /// Paced increments (Linux 1.3): inc = 21 at win ~1000.004 is spread 2 * 21 / 1000.004 =
    /// 0.041999 per ACK, so 250 ACKs add ~10.5 and 550 finish it (and add no more).
    #[test]
    fn paced_dwnd_increments_spread_over_half_a_round() {
        let (mut c, mut w, mut m) = avoiding(600.0, 400.0);
        c.pace_dwnd = true;
        round(&mut c, &mut m, &mut w, 3, 100, 1000);
        assert_eq!(c.dwnd(), 400.0);
        for _ in 0..250 {
            c.on_ack(&m.ack_rtt(100, false), &mut w);
        }
        assert!((c.dwnd() - 410.5).abs() < 1e-3, "{}", c.dwnd());
        for _ in 0..300 {
            c.on_ack(&m.ack_rtt(100, false), &mut w);
        }
        assert!((c.dwnd() - 421.0).abs() < 1e-9, "{}", c.dwnd());
    }

    /// The CTCP patch of Linux 2.6 (`linux26`) with Reno part `reno` and delay part `dwnd`.
    fn patch_2_6(reno: f64, dwnd: f64, ssthresh: f64) -> (Compound, Window, Feed) {
        let (mut c, mut w, m) = avoiding(reno, dwnd);
        c.linux26 = true;
        w.ssthresh = ssthresh;
        (c, w, m)
    }

    /// Linux 2.6 CTCP (`linux26`): the Reno part counts ACKs. Reno 600 + dwnd 400 in avoidance:
    /// an ACK of 2 segments adds 1/1000 (default: 2/1000). Its slow start is keyed on the Reno
    /// part alone: Reno 100 + dwnd 300 with ssthresh 200 (the total, 400, is above it) is in
    /// slow start, and an ACK makes the Reno part 101 (default: avoidance, 400 + 2/400).
    #[test]
    fn linux26_the_reno_part_counts_acks_and_slow_starts_on_its_own_size() {
        let (mut c, mut w, mut m) = patch_2_6(600.0, 400.0, 10.0);
        let mut a = m.ack_rtt(100, false);
        (a.acked, a.increase_units) = (2.0, 2.0);
        c.on_ack(&a, &mut w);
        assert!((c.reno_window() - 600.001).abs() < 1e-12 && (w.cwnd - 1000.001).abs() < 1e-12);
        let (mut modern, mut w2, _) = avoiding(600.0, 400.0);
        modern.on_ack(&a, &mut w2);
        assert!((w2.cwnd - 1000.002).abs() < 1e-12, "{}", w2.cwnd);
        let (mut c, mut w, _) = patch_2_6(100.0, 300.0, 200.0);
        c.on_ack(&a, &mut w);
        assert_eq!((c.reno_window(), c.dwnd(), w.cwnd), (101.0, 300.0, 401.0));
    }

    /// Linux 2.6 CTCP (`linux26`): a loss only sets ssthresh = win / 2; the parts are split at the
    /// next ACK against the window the stack leaves. 600 + 400: ssthresh = cwnd = 500; the Reno
    /// part alone exceeds 500, so it takes the window and dwnd is 0; that ACK finds the Reno part
    /// at 500 <= ssthresh, slow start: 501 (default: Reno 300 + dwnd 200 = 500). 300 + 300 (both
    /// fit in 300): the Reno part is 300 - 300 = 0, dwnd stays 300, and the Reno part slow-starts
    /// from there: 1 + 300. A window of 450 left under 200 + 300: dwnd stays, Reno 150 (+1 = 151).
    /// A timeout: window 1, Reno 1 + dwnd 0, then slow start: 2.
    #[test]
    fn linux26_a_loss_halves_the_total_and_dwnd_survives_only_if_both_parts_fit() {
        let (mut c, mut w, mut m) = patch_2_6(600.0, 400.0, 10.0);
        c.on_congestion(&congestion(CongestionKind::Loss, 1000.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 500.0, ssthresh: 500.0 });
        c.on_ack(&m.ack_rtt(100, false), &mut w);
        assert_eq!((c.reno_window(), c.dwnd(), w.cwnd), (501.0, 0.0, 501.0));
        let (mut c, mut w, mut m) = patch_2_6(300.0, 300.0, 10.0);
        c.on_congestion(&congestion(CongestionKind::Loss, 600.0, false), &mut w);
        c.on_ack(&m.ack_rtt(100, false), &mut w);
        assert_eq!((c.reno_window(), c.dwnd(), w.cwnd), (1.0, 300.0, 301.0));
        let (mut c, _, mut m) = patch_2_6(200.0, 300.0, 250.0);
        let mut w = Window { cwnd: 450.0, ssthresh: 250.0 };
        c.on_ack(&m.ack_rtt(100, false), &mut w);
        assert_eq!((c.reno_window(), c.dwnd(), w.cwnd), (151.0, 300.0, 451.0));
        let (mut c, mut w, mut m) = patch_2_6(600.0, 400.0, 10.0);
        c.on_congestion(&congestion(CongestionKind::Timeout, 1000.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 500.0 });
        c.on_ack(&m.ack_rtt(100, false), &mut w);
        assert_eq!((c.reno_window(), c.dwnd(), w.cwnd), (2.0, 0.0, 2.0));
    }

    /// Linux 2.6 CTCP (`linux26`) moves dwnd at every round, from old_wnd, the segments of the
    /// round. Reno 150 + dwnd 50 (total 200), empty pipe, 1000 segments acknowledged in the
    /// round: dwnd grows floor(1/8 * 1000^0.75) - 1 = floor(22.23) - 1 = 21, to 71 (the default
    /// takes the total: floor(1/8 * 200^0.75) - 1 = 5). The round ends on an ACK that is not
    /// cwnd-limited: nothing until the next cwnd-limited ACK. In slow start (Reno 50, ssthresh
    /// 1000) a round of 100 segments adds floor(1/8 * 100^0.75) - 1 = floor(3.95) - 1 = 2 while
    /// the Reno part slow-starts 50 -> 54 (the default: no dwnd in slow start).
    #[test]
    fn linux26_dwnd_moves_at_every_round_from_the_segments_sent_in_it() {
        let (mut c, mut w, mut m) = patch_2_6(150.0, 50.0, 10.0);
        for i in 0..3u64 {
            let mut a = m.ack_rtt(100, false);
            a.delivered = i + 1;
            c.on_ack(&a, &mut w);
        }
        let mut end = m.ack_rtt(100, true);
        (end.delivered, end.growth.gating, end.cwnd_limited) = (1000, true, false);
        c.on_ack(&end, &mut w);
        assert_eq!(c.dwnd(), 50.0);
        let mut next = m.ack_rtt(100, false);
        next.delivered = 1000;
        c.on_ack(&next, &mut w);
        assert_eq!(c.dwnd(), 71.0);
        assert!((w.cwnd - (c.reno_window() + 71.0)).abs() < 1e-12);
        assert!(c.reno_window() > 150.0 && c.reno_window() < 150.03, "{}", c.reno_window());
        let (mut modern, mut w, mut m) = avoiding(150.0, 50.0);
        round(&mut modern, &mut m, &mut w, 3, 100, 1000);
        assert_eq!(modern.dwnd(), 55.0);
        let (mut c, mut w, mut m) = patch_2_6(50.0, 0.0, 1000.0);
        round(&mut c, &mut m, &mut w, 3, 100, 100);
        assert_eq!((c.reno_window(), c.dwnd(), w.cwnd), (54.0, 2.0, 56.0));
    }

    /// Gamma tuning: a round with a 10 ms queue at Reno part 400 gives diff_reno = 400 * 10 /
    /// 110.001 = 36.36; the loss moves gamma 30 + (0.75 * 36.36 - 30)/4 = 29.32. A second loss
    /// without a fresh round leaves it.
    #[test]
    fn gamma_tuning_follows_three_quarters_of_the_reno_queue() {
        let (mut c, mut w, mut m) = avoiding(400.0, 100.0);
        c.tune_gamma = true;
        round(&mut c, &mut m, &mut w, 3, 110, 100);
        let d = c.reno_window() * 10.0 / 110.001;
        c.on_congestion(&congestion(CongestionKind::Loss, w.cwnd, false), &mut w);
        let expect = 30.0 + (0.75 * d - 30.0) / 4.0;
        assert!((c.gamma() - expect).abs() < 1e-9, "{} vs {expect}", c.gamma());
        c.on_congestion(&congestion(CongestionKind::Loss, w.cwnd, false), &mut w);
        assert!((c.gamma() - expect).abs() < 1e-9);
    }
}
