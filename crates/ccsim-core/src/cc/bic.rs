//! BIC-TCP (L. Xu, K. Harfoush, I. Rhee, "Binary Increase Congestion Control for Fast, Long
//! Distance Networks", INFOCOM 2004), in the form of Linux `net/ipv4/tcp_bic.c`.
//!
//! After a loss at W_max the window binary-searches back toward it: each RTT it moves a fraction
//! of the remaining distance, at most `max_increment` segments (additive increase far below
//! W_max) and at least a small step near it. Past W_max it probes for a new maximum, slowly at
//! first, then faster, until the step is `max_increment` again. Up to `low_window` it is Reno.
//!
//! Choices where sources differ (Linux followed):
//! * the search moves 1/B = 1/4 of the distance per RTT (the paper: 1/2), Smax is 16 segments per
//!   RTT (paper 32), the smallest step is B/smooth_part = 0.2 segment per RTT (paper 0.01);
//! * a loss keeps 819/1024 of the window (paper: removes 1/8); fast convergence sets
//!   W_max = cwnd (1 + beta) / 2 when the loss comes below the previous W_max;
//! * until the first loss the step is at least cwnd/20 per RTT (5%);
//! * a timeout forgets W_max (Linux resets the module state on entering Loss);
//! * the count is divided by a smoothed segments-per-ACK ratio (`ack_ratio`, on by default under
//!   every profile, since it is the module's arithmetic, not the stack's). Linux keeps the ratio
//!   in sixteenths, starting at 2 (`delayed_ack = 2 << 4`), and on each ACK outside recovery
//!   (`bictcp_acked`, state Open) moves it as d += acked - (d >> 4); the count becomes
//!   (cnt << 4) / d. The ratio was meant for kernels that counted ACKs; since Linux 5.7
//!   (`tcp: fix stretch ACK bugs in BIC`) the increase also counts acknowledged segments, so with
//!   delayed ACKs (d = 32) BIC grows twice as fast as the unscaled count says. With an ACK per
//!   segment the integer filter stops at d = 31 (31 >> 4 = 1), a factor 1.94. A timeout resets
//!   d to 32.
//!
//! Not modelled: Linux recomputes its per-ACK count at most every HZ/32 while cwnd is unchanged
//! (the count depends only on cwnd, W_max and the ratio, so this matters only when the ratio
//! moves within one whole window); ccsim recomputes on every ACK. Linux truncates cwnd and the
//! count to integers; ccsim keeps the window fractional and truncates only the search distance,
//! where truncation decides the branch.
//!
//! `linux26 = true`: Linux 2.6.22's `tcp_bic.c` (as ns-2's TCP-Linux runs it; its arithmetic is
//! the same in 2.6.18). The count and the segments-per-ACK ratio are computed as above, but the
//! module was called once per ACK and counted ACKs, for which the ratio was made: each ACK in
//! avoidance moves a counter, and the ACK that finds it at cnt or more adds a segment and clears
//! it, so one segment per cnt + 1 ACKs whatever they acknowledge; slow start while cwnd <=
//! ssthresh adds one segment per ACK. With delayed ACKs (ratio 2) that is one segment per about
//! cnt acknowledged segments, half the growth of the default.

use super::common::{grow, grow_2_6, increase_per, increase_per_ack_2_6, reduce_to};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "beta",
        kind: ParamKind::Float,
        // Linux `beta = 819` over BICTCP_BETA_SCALE 1024.
        default: 819.0 / 1024.0,
        min: 0.01,
        max: 0.99,
        doc: "fraction of the window kept after a loss (Linux 819/1024 = 0.7998)",
    },
    ParamInfo {
        name: "max_increment",
        kind: ParamKind::Float,
        default: 16.0,
        min: 1.0,
        max: 1e6,
        doc: "largest increase per RTT, segments (Smax; Linux 16, the paper 32)",
    },
    ParamInfo {
        name: "low_window",
        kind: ParamKind::Float,
        default: 14.0,
        min: 0.0,
        max: 1e9,
        doc: "at or below this window BIC is Reno (Linux 14)",
    },
    ParamInfo {
        name: "search_divisor",
        kind: ParamKind::Float,
        // Linux BICTCP_B.
        default: 4.0,
        min: 2.0,
        max: 64.0,
        doc: "the binary search moves 1/search_divisor of the distance to W_max per RTT (Linux \
              BICTCP_B = 4; the paper 2)",
    },
    ParamInfo {
        name: "smooth_part",
        kind: ParamKind::Float,
        default: 20.0,
        min: 1.0,
        max: 1e6,
        doc: "near W_max the increase is search_divisor/smooth_part segments per RTT (Linux 20, so \
              0.2)",
    },
    ParamInfo {
        name: "fast_convergence",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "after a loss below the previous W_max, remember W_max = cwnd (1 + beta) / 2 so a new \
              flow gets room faster",
    },
    ParamInfo {
        name: "ack_ratio",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "divide the count by Linux's smoothed segments-per-ACK ratio (starts at 2; about 2 with \
              delayed ACKs, 1.94 without), which with per-segment counting (Linux 5.7+) doubles the \
              growth; false: the unscaled count",
    },
    ParamInfo {
        name: "linux26",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "Linux 2.6.22's tcp_bic.c, as ns-2's TCP-Linux runs it: the same count and ratio, but one \
              unit per ACK (one segment per cnt + 1 ACKs) and slow start while cwnd <= ssthresh",
    },
];

/// Before the first loss the count is capped so the window grows at least 5% per RTT (Linux).
const NO_LOSS_MAX_CNT: f64 = 20.0;
/// The segments-per-ACK ratio is kept in 1/2^4 (Linux `ACK_RATIO_SHIFT`) and starts at 2.
const ACK_RATIO_SHIFT: u32 = 4;
const INITIAL_DELAYED_ACK: u32 = 2 << ACK_RATIO_SHIFT;

#[derive(Clone, Debug)]
pub struct Bic {
    beta: f64,
    max_increment: f64,
    low_window: f64,
    b: f64,
    smooth_part: f64,
    fast_convergence: bool,
    /// Window at the last loss, after fast convergence (`last_max_cwnd`); 0 = none yet.
    w_max: f64,
    ack_ratio: bool,
    /// Smoothed segments per ACK in sixteenths (Linux `delayed_ack`).
    delayed_ack: u32,
    /// Linux 2.6.22's per-ACK counting (see the module header).
    linux26: bool,
}

impl Default for Bic {
    fn default() -> Self {
        Bic {
            beta: 819.0 / 1024.0,
            max_increment: 16.0,
            low_window: 14.0,
            b: 4.0,
            smooth_part: 20.0,
            fast_convergence: true,
            w_max: 0.0,
            ack_ratio: true,
            delayed_ack: INITIAL_DELAYED_ACK,
            linux26: false,
        }
    }
}

impl Bic {
    pub fn from_params(p: &Params) -> Self {
        Bic {
            beta: p.get("beta"),
            max_increment: p.get("max_increment"),
            low_window: p.get("low_window"),
            b: p.get("search_divisor"),
            smooth_part: p.get("smooth_part"),
            fast_convergence: p.flag("fast_convergence"),
            w_max: 0.0,
            ack_ratio: p.flag("ack_ratio"),
            delayed_ack: INITIAL_DELAYED_ACK,
            linux26: p.flag("linux26"),
        }
    }

    /// Segments to acknowledge per one-segment increase at this window (Linux `ca->cnt`), after
    /// the segments-per-ACK scaling when `ack_ratio` is on.
    pub fn count(&self, cwnd: f64) -> f64 {
        if cwnd <= self.low_window {
            return cwnd;
        }
        let cnt = if cwnd < self.w_max { self.search_count(cwnd) } else { self.probe_count(cwnd) };
        let cnt = if self.w_max == 0.0 { cnt.min(NO_LOSS_MAX_CNT) } else { cnt };
        let cnt = if self.ack_ratio {
            cnt * f64::from(1u32 << ACK_RATIO_SHIFT) / f64::from(self.delayed_ack.max(1))
        } else {
            cnt
        };
        cnt.max(1.0)
    }

    /// Below W_max: close 1/B of the distance per RTT, between B/smooth_part and max_increment.
    fn search_count(&self, cwnd: f64) -> f64 {
        let dist = ((self.w_max - cwnd) / self.b).floor();
        if dist > self.max_increment {
            cwnd / self.max_increment
        } else if dist <= 1.0 {
            cwnd * self.smooth_part / self.b
        } else {
            cwnd / dist
        }
    }

    /// Past W_max: the slow step for B segments, then (cwnd - W_max)/(B - 1) per RTT, which
    /// accelerates, until it reaches max_increment.
    fn probe_count(&self, cwnd: f64) -> f64 {
        let above = cwnd - self.w_max;
        if above < self.b {
            cwnd * self.smooth_part / self.b
        } else if above < self.max_increment * (self.b - 1.0) {
            cwnd * (self.b - 1.0) / above
        } else {
            cwnd / self.max_increment
        }
    }

    /// The smoothed segments-per-ACK ratio in sixteenths (Linux `delayed_ack`).
    pub fn delayed_ack(&self) -> u32 {
        self.delayed_ack
    }

    /// Linux `bictcp_acked`: d = d + acked - d/16, in integers (the ACK's whole segments).
    fn track_ack_ratio(&mut self, acked: f64) {
        let acked = acked.max(0.0).min(u32::MAX as f64) as u32;
        self.delayed_ack = self.delayed_ack.saturating_add(acked) - (self.delayed_ack >> ACK_RATIO_SHIFT);
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        // Linux updates the ratio (`pkts_acked`) before the window (`cong_avoid`).
        self.track_ack_ratio(ack.acked);
        if self.linux26 {
            grow_2_6(ack, w, |w| {
                let cnt = self.count(w.cwnd);
                increase_per_ack_2_6(w, cnt);
            });
            return;
        }
        grow(ack, w, |w, units| {
            let cnt = self.count(w.cwnd);
            increase_per(w, cnt, units);
        });
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        let cwnd = w.cwnd;
        self.w_max = if self.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.beta) / 2.0 } else { cwnd };
        let keep = if cwnd <= self.low_window { 0.5 } else { self.beta };
        reduce_to(ev, w, ev.basis * keep);
        if ev.kind == CongestionKind::Timeout {
            // Linux `bictcp_reset` on entering Loss.
            self.w_max = 0.0;
            self.delayed_ack = INITIAL_DELAYED_ACK;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::*;

    const BETA: f64 = 819.0 / 1024.0;

    /// Loss at 200 with no earlier W_max: W_max = 200, ssthresh = 200 * 0.7998 = 159.96.
    /// Then per ACK from 159.96: dist = floor((200 - 159.96) / 4) = floor(10.01) = 10, so cnt =
    /// 159.96 / 10 and each ACK adds 10/159.96 = 0.062516 (+10 per RTT, 1/4 of the distance).
    #[test]
    fn after_a_loss_the_search_closes_a_quarter_of_the_distance_per_rtt() {
        // The unscaled count; the segments-per-ACK ratio (on by default, which halves the count
        // with 2-segment ACKs) has its own test below.
        let mut cc = Bic { ack_ratio: false, ..Default::default() };
        let mut w = Window { cwnd: 200.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 200.0, false), &mut w);
        assert_eq!(cc.w_max(), 200.0);
        assert!((w.cwnd - 200.0 * BETA).abs() < 1e-12 && w.ssthresh == w.cwnd);
        let c0 = w.cwnd;
        cc.on_ack(&ack(1.0), &mut w);
        assert!((w.cwnd - (c0 + 10.0 / c0)).abs() < 1e-12, "{}", w.cwnd);
    }

    /// The count in each region at W_max = 1000 (hand-computed from Linux's rules):
    ///  cwnd 900: dist = 25 > 16: cnt = 900/16 = 56.25 (additive, +16 per RTT)
    ///  cwnd 960: dist = 10: cnt = 96 (+10 per RTT)
    ///  cwnd 998: dist = floor(0.5) = 0 <= 1: cnt = 998 * 20 / 4 = 4990 (+0.2 per RTT)
    ///  cwnd 1002: 2 above W_max < B: cnt = 1002 * 5 = 5010 (+0.2)
    ///  cwnd 1024: 24 above < 48: cnt = 1024 * 3 / 24 = 128 (+8 per RTT)
    ///  cwnd 1100: 100 above >= 48: cnt = 1100 / 16 = 68.75 (+16)
    ///  cwnd 10 <= low_window: cnt = 10 (Reno)
    #[test]
    fn the_count_follows_search_probe_and_reno_regions() {
        // The unscaled count (`ack_ratio = false`); with the default ratio of 2 each count above
        // low_window is halved (tested below).
        let cc = Bic { w_max: 1000.0, ack_ratio: false, ..Default::default() };
        for (cwnd, cnt) in [
            (900.0, 56.25),
            (960.0, 96.0),
            (998.0, 4990.0),
            (1002.0, 5010.0),
            (1024.0, 128.0),
            (1100.0, 68.75),
            (10.0, 10.0),
        ] {
            assert!((cc.count(cwnd) - cnt).abs() < 1e-9, "cwnd {cwnd}: {} vs {cnt}", cc.count(cwnd));
        }
        // No loss yet: at least 5% per RTT, cnt = min(cwnd / 16, 20) at 1100 -> 20.
        let fresh = Bic { ack_ratio: false, ..Default::default() };
        assert_eq!(fresh.count(1100.0), 20.0);
        // With Linux's initial ratio of 2 (32/16), every count above low_window is halved; the
        // Reno region is not scaled (Linux returns before the division).
        let linux = Bic { w_max: 1000.0, ..Default::default() };
        assert_eq!((linux.count(900.0), linux.count(10.0)), (56.25 / 2.0, 10.0));
        assert_eq!(Bic::default().count(1100.0), 10.0);
    }

    /// Fast convergence: a loss at 150 below W_max = 200 remembers 150 * (1 + 0.7998) / 2 =
    /// 134.985; ssthresh = 150 * 0.7998 = 119.97. A loss at or below low_window halves. A timeout
    /// forgets W_max.
    #[test]
    fn fast_convergence_small_windows_and_timeouts() {
        let mut cc = Bic { w_max: 200.0, ..Default::default() };
        let mut w = Window { cwnd: 150.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 150.0, false), &mut w);
        assert!((cc.w_max() - 150.0 * (1.0 + BETA) / 2.0).abs() < 1e-12);
        assert!((w.ssthresh - 150.0 * BETA).abs() < 1e-12);
        let mut w = Window { cwnd: 12.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 12.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 6.0, ssthresh: 6.0 });
        let mut w = Window { cwnd: 300.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Timeout, 300.0, true), &mut w);
        assert_eq!(w.cwnd, 1.0);
        assert!((w.ssthresh - 300.0 * BETA).abs() < 1e-12);
        assert_eq!(cc.w_max(), 0.0);
    }

    /// Linux 2.6.22 (`linux26`): the same count and ratio, one unit per ACK. W_max = 1000, cwnd
    /// 960 (dist 10, unscaled cnt 96):
    ///  delayed ACKs of 2 segments: d stays 32, cnt = 96 * 16 / 32 = 48, and a segment takes
    ///    cnt + 1 = 49 ACKs: the ACK adds 1/49 = 0.020408 (default: 2/48 = 0.041667, twice);
    ///  ACKs of 1 segment: d = 31, cnt = 96 * 16 / 31 = 49.548387, the ACK adds 1/50.548387;
    ///  cwnd 10 <= low_window in avoidance: cnt = cwnd, 1/11 per ACK (Reno's cwnd + 1);
    ///  slow start at cwnd = ssthresh = 100: an ACK of 2 segments adds 1 (default: avoidance).
    #[test]
    fn linux26_counts_acks_one_segment_per_cnt_plus_one() {
        let mut cc = Bic { w_max: 1000.0, linux26: true, ..Default::default() };
        let mut w = Window { cwnd: 960.0, ssthresh: 100.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (960.0 + 1.0 / 49.0)).abs() < 1e-12, "{}", w.cwnd);
        let mut cc = Bic { w_max: 1000.0, linux26: true, ..Default::default() };
        let mut w = Window { cwnd: 960.0, ssthresh: 100.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(cc.delayed_ack(), 31);
        assert!((w.cwnd - (960.0 + 1.0 / (96.0 * 16.0 / 31.0 + 1.0))).abs() < 1e-12, "{}", w.cwnd);
        assert!((w.cwnd - 960.0 - 1.0 / 50.548387).abs() < 1e-9);
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert!((w.cwnd - (10.0 + 1.0 / 11.0)).abs() < 1e-12, "{}", w.cwnd);
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert_eq!(w.cwnd, 101.0);
        let mut modern = Bic { w_max: 1000.0, ..Default::default() };
        let mut w = Window { cwnd: 960.0, ssthresh: 100.0 };
        modern.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (960.0 + 2.0 / 48.0)).abs() < 1e-12, "{}", w.cwnd);
    }

    /// Linux (since 5.7, `tcp_bic.c`): the count is divided by a smoothed segments-per-ACK ratio
    /// kept in sixteenths, `delayed_ack`, starting at 2 << 4 = 32 and updated on every ACK outside
    /// recovery, before the count, as d += acked - (d >> 4); the count becomes (cnt << 4) / d.
    /// W_max = 1000, cwnd 960: dist = 10, cnt = 96.
    ///  ACK of 2 segments (delayed ACK): d = 32 + 2 - 2 = 32, cnt = 96 * 16 / 32 = 48, so the
    ///    window grows 2/48 (old model: 2/96, half as fast).
    ///  ACKs of 1 segment: d = 32 + 1 - 2 = 31, then 31 + 1 - (31 >> 4 = 1) = 31 for ever (the
    ///    integer filter's dead band): cnt = 96 * 16 / 31 = 49.548..., growth 1/49.548 per ACK.
    ///  A timeout resets d to 32 (Linux `bictcp_reset` on entering Loss).
    #[test]
    fn the_count_is_divided_by_the_smoothed_segments_per_ack_ratio() {
        let mut cc = Bic { w_max: 1000.0, ..Default::default() };
        let mut w = Window { cwnd: 960.0, ssthresh: 100.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (960.0 + 2.0 / 48.0)).abs() < 1e-12, "{}", w.cwnd);
        let mut w = Window { cwnd: 960.0, ssthresh: 100.0 };
        for _ in 0..5 {
            let before = w.cwnd;
            cc.on_ack(&ack(1.0), &mut w);
            let cnt = (1000.0 - before) / 4.0;
            let cnt = before / cnt.floor() * 16.0 / 31.0;
            assert!((w.cwnd - (before + 1.0 / cnt)).abs() < 1e-12, "{} from {before}", w.cwnd);
        }
        assert_eq!(cc.delayed_ack(), 31);
        let mut w = Window { cwnd: 960.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Timeout, 960.0, true), &mut w);
        assert_eq!(cc.delayed_ack(), 32);
        // Without the ratio (`ack_ratio = false`) the count is the unscaled 96.
        let mut plain = Bic { w_max: 1000.0, ack_ratio: false, ..Default::default() };
        let mut w = Window { cwnd: 960.0, ssthresh: 100.0 };
        plain.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (960.0 + 2.0 / 96.0)).abs() < 1e-12, "{}", w.cwnd);
    }
}
