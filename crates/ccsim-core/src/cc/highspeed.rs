//! HighSpeed TCP (RFC 3649; Linux `net/ipv4/tcp_highspeed.c`).
//!
//! Reno up to a window of 38 segments; above it the increase a(w) per RTT grows and the decrease
//! b(w) shrinks with the window, so that the average window follows w = 0.12 / p^0.835 instead of
//! Reno's 1.2 / sqrt(p) (RFC 3649 section 5).
//!
//! Choices where sources differ:
//! * a(w), b(w) come from the table of RFC 3649 Appendix B as Linux holds it (`hstcp_aimd_vals`,
//!   72 rows; ns-3's copy has a typo and an extra row). `table = false` evaluates the RFC's
//!   continuous formulas instead.
//! * Linux moves its table row only in congestion avoidance, so a loss that ends slow start uses
//!   the row of the last avoidance ACK (row 0, b = 1/2, on the first loss). Kept.
//! * Linux adds a(w) per ACK, not per acknowledged segment (`per_ack = true`): with delayed ACKs
//!   that halves the increase. RFC 3649 defines a(w) per RTT; `per_ack = false` counts segments.
//! * Slow start is standard, as in Linux; `max_ssthresh > 0` turns on RFC 3742 Limited Slow-Start,
//!   which RFC 3649 recommends alongside.
//! * Timeouts: Linux's reduction (w (1 - b(w))) for ssthresh, then cwnd = 1; ns-2 and RFC 3649
//!   halve, and ns-2 also halves on the first decrease of a connection (not modelled).
//!
//! `linux26 = true`: Linux 2.6.22's `tcp_highspeed.c` (as ns-2's TCP-Linux runs it). Avoidance
//! is the same (a(w) per ACK from the table); slow start is 2.6's: while cwnd <= ssthresh, one
//! segment per ACK whatever it acknowledges (current Linux: cwnd < ssthresh, one per acknowledged
//! segment), and with `max_ssthresh` the limited form of 2.6's `tcp_slow_start`, max_ssthresh/2
//! segments per window of ACKs above it. `per_ack` is moot (always per ACK).

use super::common::{in_slow_start, in_slow_start_2_6, may_grow, reduce_to, slow_start};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, Window};
use crate::math::{ln, powf};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "table",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "use the RFC 3649 Appendix B table as Linux does (true) or the continuous formulas of \
              RFC 3649 section 5 (false)",
    },
    ParamInfo {
        name: "per_ack",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "add a(w)/cwnd per ACK as Linux (true) or per acknowledged segment, RFC 3649's per-RTT \
              reading (false); they differ only with delayed ACKs",
    },
    ParamInfo {
        name: "max_ssthresh",
        kind: ParamKind::Float,
        default: 0.0,
        min: 0.0,
        max: 1e9,
        doc: "RFC 3742 Limited Slow-Start threshold, segments (RFC 3742 suggests 100); 0 = standard \
              slow start, as Linux",
    },
    ParamInfo {
        name: "linux26",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "Linux 2.6.22's tcp_highspeed.c, as ns-2's TCP-Linux runs it: slow start while cwnd <= \
              ssthresh, one segment per ACK; avoidance unchanged (per ACK)",
    },
];

/// RFC 3649 section 5 constants.
const LOW_WINDOW: f64 = 38.0;
const HIGH_WINDOW: f64 = 83_000.0;
const HIGH_P: f64 = 1e-7;
const LOW_P: f64 = 1e-3;
const HIGH_DECREASE: f64 = 0.1;

/// RFC 3649 Appendix B as Linux's `hstcp_aimd_vals`: row i applies to windows in
/// (WINDOWS[i-1], WINDOWS[i]] with a = i + 1 segments per RTT and b = DECREASE[i] / 256.
const WINDOWS: [u32; 72] = [
    38, 118, 221, 347, 495, 663, 851, 1058, 1284, 1529, 1793, 2076, 2378, 2699, 3039, 3399, 3778, 4177, 4596, 5036,
    5497, 5979, 6483, 7009, 7558, 8130, 8726, 9346, 9991, 10661, 11358, 12082, 12834, 13614, 14424, 15265, 16137,
    17042, 17981, 18955, 19965, 21013, 22101, 23230, 24402, 25618, 26881, 28193, 29557, 30975, 32450, 33986, 35586,
    37253, 38992, 40808, 42707, 44694, 46776, 48961, 51258, 53677, 56230, 58932, 61799, 64851, 68113, 71617, 75401,
    79517, 84035, 89053,
];
const DECREASE: [u32; 72] = [
    128, 112, 104, 98, 93, 89, 86, 83, 81, 78, 76, 74, 72, 71, 69, 68, 66, 65, 64, 62, 61, 60, 59, 58, 57, 56, 55, 54,
    53, 52, 52, 51, 50, 49, 48, 48, 47, 46, 45, 45, 44, 43, 43, 42, 41, 41, 40, 39, 39, 38, 38, 37, 36, 36, 35, 35, 34,
    33, 33, 32, 32, 31, 30, 30, 29, 28, 28, 27, 26, 26, 25, 24,
];

/// The continuous decrease b(w) of RFC 3649 section 5: 0.5 at Low_Window falling linearly in
/// log w to High_Decrease at High_Window.
pub fn b_continuous(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    let frac = (ln(w) - ln(LOW_WINDOW)) / (ln(HIGH_WINDOW) - ln(LOW_WINDOW));
    (HIGH_DECREASE - 0.5) * frac + 0.5
}

/// The continuous increase a(w) = w^2 p(w) 2 b(w) / (2 - b(w)) of RFC 3649 section 5, with
/// p(w) = Low_P (w / Low_Window)^(1/S) the inverse of the response function.
pub fn a_continuous(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 1.0;
    }
    let s = (ln(HIGH_WINDOW) - ln(LOW_WINDOW)) / (ln(HIGH_P) - ln(LOW_P));
    let p = LOW_P * powf(w / LOW_WINDOW, 1.0 / s);
    let b = b_continuous(w);
    w * w * p * 2.0 * b / (2.0 - b)
}

#[derive(Clone, Debug)]
pub struct HighSpeed {
    table: bool,
    per_ack: bool,
    max_ssthresh: f64,
    linux26: bool,
    /// Current table row (Linux `ca->ai`), moved only in congestion avoidance.
    row: usize,
}

impl Default for HighSpeed {
    fn default() -> Self {
        HighSpeed { table: true, per_ack: true, max_ssthresh: 0.0, linux26: false, row: 0 }
    }
}

impl HighSpeed {
    pub fn from_params(p: &Params) -> Self {
        HighSpeed {
            table: p.flag("table"),
            per_ack: p.flag("per_ack"),
            max_ssthresh: p.get("max_ssthresh"),
            linux26: p.flag("linux26"),
            row: 0,
        }
    }

    /// Linux 2.6.22 `tcp_slow_start` (byte counting off): one segment per ACK, or with a
    /// `max_ssthresh` below cwnd, max_ssthresh/2 segments per cwnd ACKs.
    fn slow_start_2_6(&self, w: &mut Window) {
        if self.max_ssthresh > 0.0 && w.cwnd > self.max_ssthresh {
            w.cwnd += 0.5 * self.max_ssthresh / w.cwnd;
        } else {
            w.cwnd += 1.0;
        }
    }

    /// Move the row to the one holding cwnd, one step at a time as Linux does.
    fn update_row(&mut self, cwnd: f64) {
        while self.row < WINDOWS.len() - 1 && cwnd > WINDOWS[self.row] as f64 {
            self.row += 1;
        }
        while self.row > 0 && cwnd <= WINDOWS[self.row - 1] as f64 {
            self.row -= 1;
        }
    }

    /// Increase per RTT at this window.
    fn a(&self, cwnd: f64) -> f64 {
        if self.table {
            (self.row + 1) as f64
        } else {
            a_continuous(cwnd)
        }
    }

    /// Fraction of the window removed on a congestion event.
    fn b(&self, cwnd: f64) -> f64 {
        if self.table {
            DECREASE[self.row] as f64 / 256.0
        } else {
            b_continuous(cwnd)
        }
    }

    /// RFC 3742: above max_ssthresh, at most max_ssthresh/2 segments per RTT, via
    /// cwnd += 1/K per segment with K = floor(cwnd / (max_ssthresh / 2)).
    fn limited_slow_start(&self, ack: &AckSample, w: &mut Window) {
        let k = (w.cwnd / (0.5 * self.max_ssthresh)).floor();
        w.cwnd = (w.cwnd + ack.increase_units / k).min(w.ssthresh.max(w.cwnd));
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        if !may_grow(ack) {
            return;
        }
        if self.linux26 {
            if in_slow_start_2_6(w) {
                self.slow_start_2_6(w);
            } else {
                self.update_row(w.cwnd);
                w.cwnd += self.a(w.cwnd) / w.cwnd;
            }
            return;
        }
        if in_slow_start(w) {
            if self.max_ssthresh > 0.0 && w.cwnd > self.max_ssthresh {
                self.limited_slow_start(ack, w);
            } else {
                slow_start(ack, w);
            }
            return;
        }
        self.update_row(w.cwnd);
        let units = if self.per_ack { 1.0 } else { ack.increase_units };
        w.cwnd += self.a(w.cwnd) * units / w.cwnd;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        // The table row is the one of the last avoidance ACK (see the header); the continuous
        // form evaluates b at the current window.
        let b = self.b(w.cwnd);
        reduce_to(ev, w, ev.basis * (1.0 - b));
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::super::CongestionKind;
    use super::*;

    #[test]
    fn the_table_matches_rfc_3649_appendix_b_endpoints() {
        assert_eq!((WINDOWS.len(), DECREASE.len()), (72, 72));
        assert!(WINDOWS.windows(2).all(|p| p[0] < p[1]));
        assert!(DECREASE.windows(2).all(|p| p[0] >= p[1]));
        // Row 0 is Reno: a = 1, b = 128/256. 83000 lies in (79517, 84035], row 70: a = 71,
        // b = 25/256 ~ 0.1 (RFC 3649: a(83000) ~ 72, b = 0.1). Past the last row, the last row.
        let mut h = HighSpeed::default();
        assert_eq!((h.a(10.0), h.b(10.0)), (1.0, 0.5));
        h.update_row(83_000.0);
        assert_eq!((h.a(83_000.0), DECREASE[h.row]), (71.0, 25));
        h.update_row(1e6);
        assert_eq!((h.a(1e6), DECREASE[h.row]), (72.0, 24));
        h.update_row(38.0);
        assert_eq!(h.row, 0);
    }

    /// Spot values of the continuous formulas (RFC 3649): w = 100: a 1.8, b 0.45; w = 1000: a
    /// 7.7, b 0.33; w = 10000: a 29, b 0.21.
    #[test]
    fn continuous_formulas_match_the_rfc_spot_values() {
        for (w, a, b) in [(100.0, 1.8, 0.45), (1000.0, 7.7, 0.33), (10_000.0, 29.0, 0.21)] {
            assert!((a_continuous(w) - a).abs() / a < 0.04, "a({w}) = {}", a_continuous(w));
            assert!((b_continuous(w) - b).abs() < 0.006, "b({w}) = {}", b_continuous(w));
        }
        assert_eq!((a_continuous(38.0), b_continuous(38.0)), (1.0, 0.5));
    }

    /// From cwnd 300 in avoidance: 300 lies in (221, 347], row 3, a = 4, b = 98/256.
    /// Each ACK adds 4/cwnd: 300 + 4/300 = 300.013333.., then + 4/300.01333 = 300.026666..
    /// A loss then keeps 1 - 98/256 = 158/256 of the basis: 300.02666 * 0.6171875 = 185.1727.
    #[test]
    fn avoidance_adds_the_rows_increase_and_a_loss_removes_its_decrease() {
        let mut cc = HighSpeed::default();
        let mut w = Window { cwnd: 300.0, ssthresh: 100.0 };
        cc.on_ack(&ack(1.0), &mut w);
        let c1 = 300.0 + 4.0 / 300.0;
        assert!((w.cwnd - c1).abs() < 1e-9);
        cc.on_ack(&ack(1.0), &mut w);
        let c2 = c1 + 4.0 / c1;
        assert!((w.cwnd - c2).abs() < 1e-9);
        assert_eq!(cc.row, 3);
        cc.on_congestion(&congestion(CongestionKind::Loss, c2, false), &mut w);
        assert!((w.cwnd - c2 * 158.0 / 256.0).abs() < 1e-9);
        assert!((w.cwnd - 185.1727).abs() < 1e-3 && w.ssthresh == w.cwnd);
        // Per ACK (Linux): a delayed ACK for 2 segments adds a/cwnd once, not twice.
        // cwnd 185.17 lies in (118, 221]: row 2, a = 3.
        let before = w.cwnd;
        cc.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (before + 3.0 / before)).abs() < 1e-9);
    }

    /// A loss that ends slow start uses the stale row 0: the window is halved even at 1000.
    #[test]
    fn a_loss_in_slow_start_halves_as_linux() {
        let mut cc = HighSpeed::default();
        let mut w = Window { cwnd: 999.0, ssthresh: f64::INFINITY };
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(w.cwnd, 1000.0);
        cc.on_congestion(&congestion(CongestionKind::Loss, 1000.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 500.0, ssthresh: 500.0 });
        // The next avoidance ACK moves the row to (495, 663]: row 5, a = 6.
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(cc.row, 5);
        assert!((w.cwnd - (500.0 + 6.0 / 500.0)).abs() < 1e-12);
        // A timeout: ssthresh = 500.012 * (1 - 89/256), cwnd 1.
        let basis = w.cwnd;
        cc.on_congestion(&congestion(CongestionKind::Timeout, basis, true), &mut w);
        assert_eq!(w.cwnd, 1.0);
        assert!((w.ssthresh - basis * 167.0 / 256.0).abs() < 1e-9);
    }

    /// Linux 2.6.22 (`linux26`): slow start while cwnd <= ssthresh, one segment per ACK. At
    /// cwnd = ssthresh = 300 an ACK of 2 segments is still slow start: 301 (default: avoidance,
    /// 300 + 4/300 as above); below ssthresh it adds 1 (default: 2). Avoidance is unchanged: at
    /// 301 (row 3, a = 4) an ACK of 2 segments adds 4/301. With max_ssthresh 100, at cwnd 400 an
    /// ACK adds 50/400 = 0.125 (2.6's limited slow start).
    #[test]
    fn linux26_slow_start_is_per_ack_and_includes_cwnd_equal_to_ssthresh() {
        let mut cc = HighSpeed { linux26: true, ..Default::default() };
        let mut w = Window { cwnd: 300.0, ssthresh: 300.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert_eq!(w.cwnd, 301.0);
        cc.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (301.0 + 4.0 / 301.0)).abs() < 1e-12, "{}", w.cwnd);
        let mut w = Window { cwnd: 20.0, ssthresh: 100.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert_eq!(w.cwnd, 21.0);
        let mut modern = HighSpeed::default();
        let mut w = Window { cwnd: 20.0, ssthresh: 100.0 };
        modern.on_ack(&ack(2.0), &mut w);
        assert_eq!(w.cwnd, 22.0);
        let mut limited = HighSpeed { linux26: true, max_ssthresh: 100.0, ..Default::default() };
        let mut w = Window { cwnd: 400.0, ssthresh: 1000.0 };
        limited.on_ack(&ack(2.0), &mut w);
        assert_eq!(w.cwnd, 400.125);
    }

    /// RFC 3742 with max_ssthresh 100: at cwnd 400, K = floor(400 / 50) = 8, so 1/8 per segment.
    #[test]
    fn limited_slow_start_caps_the_per_rtt_increase() {
        let mut cc = HighSpeed { max_ssthresh: 100.0, ..Default::default() };
        let mut w = Window { cwnd: 400.0, ssthresh: 1000.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(w.cwnd, 400.125);
        let mut w = Window { cwnd: 80.0, ssthresh: 1000.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(w.cwnd, 81.0, "standard below max_ssthresh");
    }
}
