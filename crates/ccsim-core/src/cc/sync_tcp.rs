//! Sync-TCP (M. C. Weigle, K. Jeffay, F. D. Smith, "Delay-based early congestion detection and
//! adaptation in TCP: impact on web performance", Computer Communications 28, 2005; M. C. Weigle,
//! PhD thesis, UNC 2003) and the modification for high speed of seed 003 (A. Khan, D. M. Shah,
//! Z. Xu, "Sync-TCP in High-Speed Environments", ACM Southeast Conference 2005).
//!
//! Reno plus early, delay-driven window changes. Every ACK brings the forward one-way transit time
//! (OTT) of the segment it acknowledges; the queueing delay is q = OTT - min OTT. Per ACK the
//! sender averages it (EWMA, weight `w_avg`), places the average in one of four quarters of the
//! largest q seen so far (the region), and every three ACKs compares the median of the oldest
//! three of the last nine averages with the median of the newest three (the trend). The eight
//! (trend, region) indications map to eight reactions (Weigle et al., the table of seed 003's
//! missing Fig. 1):
//!
//! | trend | average (of max) | reaction |
//! | --- | --- | --- |
//! | increasing | 75-100 % | cwnd x 0.5 |
//! | increasing | 50-75 % | cwnd x 0.75 |
//! | increasing | 25-50 % | cwnd x 0.9 |
//! | increasing | 0-25 % | + 1 segment per RTT (Reno) |
//! | decreasing | 75-100 % | hold |
//! | decreasing | 50-75 % | + 10 % per RTT |
//! | decreasing | 25-50 % | + 25 % per RTT |
//! | decreasing | 0-25 % | + 50 % per RTT |
//!
//! Per ACK earning n units of increase: + 1 segment per RTT is `cwnd += n / cwnd`; + x per RTT is
//! `cwnd += x n` (cwnd (1 + x) after a window of ACKs); a decrease sets cwnd = max(cwnd (1 - y), 2)
//! and ssthresh = cwnd, at most once per RTT. Once indications exist they replace Reno's slow
//! start and congestion avoidance; before, the window grows as Reno. Losses are Reno's.
//!
//! `sync-tcp-hs` (seed 003): Reno (slow start, then + 1 per RTT) while cwnd < `c_low` = 100,
//! whatever the indications; a constant increase `alpha0` = 0.375 while cwnd < `c_high` = 150;
//! Sync-TCP above. `alpha0_mode` 0 (default) reads alpha0 as a fraction per RTT (`cwnd += alpha0
//! n`: x 1.375 per RTT, the mean of Sync-TCP's 25 % and 50 % increases, and the only reading that
//! fits seed 003's 4 s to reach 500 segments); 1 as segments per RTT (`cwnd += alpha0 n / cwnd`).
//!
//! Choices where the sources are silent (docs/algorithms.md, "sync-tcp, sync-tcp-hs"):
//! * EWMA weight 1/8 (`w_avg`); the average starts at the first sample's q, which is 0.
//! * Region = floor(4 avg / max), so an average at exactly 25, 50 or 75 % of the maximum lies in
//!   the region above the boundary; an average equal to the maximum is in 75-100 %. While the
//!   maximum is 0 (no queueing seen yet) there is no region and no indication.
//! * Trend: nine averages in a ring, a new trend on the ACK that fills it and every third ACK
//!   after; m0 = m2 keeps the previous trend (none before the first decided one). The middle
//!   median is not needed. Medians of three by comparisons: per-ACK work is O(1).
//! * "Not enough samples" (fewer than nine averages, no decided trend, or a maximum of 0): Reno.
//! * Decreases at most once per RTT, by a sequence guard: after a decrease no other until the
//!   data in flight at that moment is acknowledged (cumulatively delivered segments >= delivered +
//!   in flight at the decrease, i.e. snd_una >= the snd_nxt of then). The sender's rounds would
//!   allow a second decrease at the next round start, possibly a few ACKs later. `decrease_guard =
//!   false` removes the guard (the pitfall: a 50 % cut every three ACKs).
//! * A decrease sets ssthresh = cwnd, so a later Reno phase does not slow-start back up.
//! * Increases respect the stack's cwnd-limited gating; decreases do not.
//! * Detection runs on every ACK that advances the cumulative ACK, in recovery as outside it, and
//!   its state (min OTT, max q, the ring, the trend) survives losses and timeouts: it describes the
//!   path, not the window. An ACK without a one-way delay leaves the detector unchanged and reacts
//!   to the last indication.
//! * The OTT is the sender's `delay.one_way_delay`: the receiver's arrival time minus the send
//!   time of the segment whose timestamp the ACK echoes (exact clocks; a constant offset would
//!   cancel in q, and the value may be negative, which the arithmetic allows).
//! * Loss: Reno (ssthresh = max(basis/2, 2), cwnd = ssthresh), Reno fast recovery as in the
//!   Reno-based originals (`newreno = true` switches). Timeout: Reno (cwnd 1, ssthresh halved on
//!   the first expiry), then Reno slow start up to ssthresh with indications ignored
//!   (`timeout_slow_start`), Sync-TCP from there (without it the window would crawl back from one
//!   segment at <= 50 % per RTT).
//! * In `sync-tcp-hs` the alpha0 phase ignores indications (seed 003: "increased by a fixed rate
//!   ... until the window reaches C_high") and ssthresh; losses there are Reno's.

use super::common::{additive_increase, grow, in_slow_start, may_grow, multiplicative_decrease, MIN_SSTHRESH};
use super::paced::{recovery_of, NEWRENO_PARAM};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, RecoveryProcedure, Window};
use crate::units::{Time, NS_PER_S};

const W_AVG: ParamInfo = ParamInfo {
    name: "w_avg",
    kind: ParamKind::Float,
    default: 0.125,
    min: 1e-6,
    max: 1.0,
    doc: "EWMA weight of the newest queueing-delay sample in the average (default 1/8, the usual \
          RTT smoothing weight; the paper's exact weight was not verified)",
};
const DECREASE_GUARD: ParamInfo = ParamInfo {
    name: "decrease_guard",
    kind: ParamKind::Bool,
    default: 1.0,
    min: 0.0,
    max: 1.0,
    doc: "at most one delay-driven decrease per RTT: none until the data in flight at the last one \
          is acknowledged",
};
const TIMEOUT_SLOW_START: ParamInfo = ParamInfo {
    name: "timeout_slow_start",
    kind: ParamKind::Bool,
    default: 1.0,
    min: 0.0,
    max: 1.0,
    doc: "after a timeout, Reno slow start up to ssthresh with indications ignored \
          (false: reactions at once)",
};

pub const PARAMS: &[ParamInfo] = &[W_AVG, DECREASE_GUARD, TIMEOUT_SLOW_START, NEWRENO_PARAM];

pub const HS_PARAMS: &[ParamInfo] = &[
    W_AVG,
    DECREASE_GUARD,
    TIMEOUT_SLOW_START,
    NEWRENO_PARAM,
    ParamInfo {
        name: "c_low",
        kind: ParamKind::Float,
        default: 100.0,
        min: 0.0,
        max: 1e9,
        doc: "Reno below this window, segments, indications ignored (seed 003)",
    },
    ParamInfo {
        name: "c_high",
        kind: ParamKind::Float,
        default: 150.0,
        min: 0.0,
        max: 1e9,
        doc: "constant increase alpha0 from c_low up to this window, segments; Sync-TCP above (seed 003)",
    },
    ParamInfo {
        name: "alpha0",
        kind: ParamKind::Float,
        default: 0.375,
        min: 0.0,
        max: 1e6,
        doc: "increase between c_low and c_high, per RTT (seed 003)",
    },
    ParamInfo {
        name: "alpha0_mode",
        kind: ParamKind::Int,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "0: alpha0 is a fraction of the window per RTT (+alpha0 per ACK'd segment, x1.375 per \
              RTT); 1: alpha0 segments per RTT (+alpha0/cwnd per ACK'd segment)",
    },
];

/// Averages kept for the trend: three groups of three (seed 003).
const RING: usize = 9;
/// A new trend every this many ACKs (seed 003).
const TREND_EVERY: u8 = 3;
/// No delay-driven decrease takes the window below this, segments.
const MIN_CWND: f64 = 2.0;

/// Direction of the averaged queueing delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trend {
    /// Not decided yet (fewer than nine averages, or only ties so far).
    None,
    Increasing,
    Decreasing,
}

impl Trend {
    fn code(self) -> f64 {
        match self {
            Trend::None => 0.0,
            Trend::Increasing => 1.0,
            Trend::Decreasing => -1.0,
        }
    }
}

/// One of the eight congestion indications: a decided trend and the region (0..=3: the quarter
/// of the maximum queueing delay the average lies in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Indication {
    pub trend: Trend,
    pub region: u8,
}

impl Indication {
    /// `trend x (region + 1)`: +1..+4 increasing in regions 0..3, -1..-4 decreasing.
    pub fn code(self) -> f64 {
        self.trend.code() * (self.region as f64 + 1.0)
    }
}

/// What the window does on one indication (the table of the module header).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reaction {
    /// Multiply the window by `1 - y`, at most once per RTT.
    Decrease(f64),
    /// One segment per RTT.
    RenoIncrease,
    /// A fraction of the window per RTT.
    Increase(f64),
    Hold,
}

/// MixReact: the reaction to an indication.
pub fn reaction(ind: Indication) -> Reaction {
    match (ind.trend, ind.region) {
        (Trend::Increasing, 3) => Reaction::Decrease(0.5),
        (Trend::Increasing, 2) => Reaction::Decrease(0.25),
        (Trend::Increasing, 1) => Reaction::Decrease(0.1),
        (Trend::Increasing, _) => Reaction::RenoIncrease,
        (Trend::Decreasing, 3) => Reaction::Hold,
        (Trend::Decreasing, 2) => Reaction::Increase(0.1),
        (Trend::Decreasing, 1) => Reaction::Increase(0.25),
        (Trend::Decreasing, _) => Reaction::Increase(0.5),
        (Trend::None, _) => Reaction::RenoIncrease,
    }
}

/// Median of three by comparisons.
#[inline]
fn median3(a: f64, b: f64, c: f64) -> f64 {
    a.min(b).max(a.max(b).min(c))
}

/// SyncMix detection: queueing delay from OTTs, its average, region and trend. O(1) per sample.
#[derive(Clone, Debug)]
pub struct Detector {
    w_avg: f64,
    /// Smallest OTT seen, ns (+inf before the first).
    min_ott: f64,
    /// Largest queueing delay seen, ns.
    max_q: f64,
    /// Average queueing delay, ns; NaN before the first sample.
    avg_q: f64,
    /// The last averages; `next` is where the next one goes (the oldest once full).
    ring: [f64; RING],
    len: u8,
    next: u8,
    since_trend: u8,
    trend: Trend,
}

impl Detector {
    pub fn new(w_avg: f64) -> Self {
        Detector {
            w_avg,
            min_ott: f64::INFINITY,
            max_q: 0.0,
            avg_q: f64::NAN,
            ring: [0.0; RING],
            len: 0,
            next: 0,
            since_trend: 0,
            trend: Trend::None,
        }
    }

    /// One OTT sample, nanoseconds.
    pub fn sample(&mut self, ott: f64) {
        self.min_ott = self.min_ott.min(ott);
        let q = ott - self.min_ott;
        self.max_q = self.max_q.max(q);
        self.avg_q = if self.avg_q.is_nan() { q } else { (1.0 - self.w_avg) * self.avg_q + self.w_avg * q };
        self.ring[self.next as usize] = self.avg_q;
        self.next = (self.next + 1) % RING as u8;
        self.len = (self.len + 1).min(RING as u8);
        self.since_trend = self.since_trend.saturating_add(1);
        if self.len as usize == RING && self.since_trend >= TREND_EVERY {
            self.since_trend = 0;
            // Full ring: `next` is the oldest.
            let at = |k: usize| self.ring[(self.next as usize + k) % RING];
            let m0 = median3(at(0), at(1), at(2));
            let m2 = median3(at(6), at(7), at(8));
            if m0 < m2 {
                self.trend = Trend::Increasing;
            } else if m0 > m2 {
                self.trend = Trend::Decreasing;
            }
        }
    }

    /// The quarter of the maximum queueing delay the average lies in; `None` while the maximum
    /// is 0. Boundaries belong to the region above them.
    pub fn region(&self) -> Option<u8> {
        if self.max_q <= 0.0 || self.avg_q.is_nan() {
            return None;
        }
        // 4 avg and 2 avg are exact in floating point, so the boundaries are exact.
        let (a, m) = (self.avg_q, self.max_q);
        Some(if 4.0 * a >= 3.0 * m {
            3
        } else if 2.0 * a >= m {
            2
        } else if 4.0 * a >= m {
            1
        } else {
            0
        })
    }

    pub fn trend(&self) -> Trend {
        self.trend
    }

    /// The current indication; `None` = not enough samples.
    pub fn indication(&self) -> Option<Indication> {
        if self.trend == Trend::None {
            return None;
        }
        self.region().map(|region| Indication { trend: self.trend, region })
    }

    /// Average queueing delay, seconds (NaN before the first sample).
    pub fn avg_seconds(&self) -> f64 {
        self.avg_q / NS_PER_S as f64
    }
}

/// Which rule moved the window on the last ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Reno: no indication yet, slow start after a timeout, or below `c_low`.
    Reno,
    /// `sync-tcp-hs` between `c_low` and `c_high`: the constant alpha0 increase.
    Alpha0,
    /// A Sync-TCP reaction to an indication.
    Sync,
}

impl Mode {
    fn code(self) -> f64 {
        match self {
            Mode::Reno => 0.0,
            Mode::Alpha0 => 1.0,
            Mode::Sync => 2.0,
        }
    }
}

/// The high-speed modification's phases (seed 003).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HighSpeed {
    pub c_low: f64,
    pub c_high: f64,
    pub alpha0: f64,
    /// alpha0 in segments per RTT instead of a fraction of the window per RTT.
    pub alpha0_packets: bool,
}

impl Default for HighSpeed {
    fn default() -> Self {
        HighSpeed { c_low: 100.0, c_high: 150.0, alpha0: 0.375, alpha0_packets: false }
    }
}

#[derive(Clone, Debug)]
pub struct SyncTcp {
    name: &'static str,
    det: Detector,
    decrease_guard: bool,
    /// No delay-driven decrease until this many segments are cumulatively acknowledged.
    guard: u64,
    timeout_slow_start: bool,
    /// Since a timeout, until slow start reaches ssthresh: Reno, indications ignored.
    after_timeout: bool,
    hs: Option<HighSpeed>,
    recovery: RecoveryProcedure,
    mode: Mode,
}

impl Default for SyncTcp {
    fn default() -> Self {
        SyncTcp {
            name: "sync-tcp",
            det: Detector::new(0.125),
            decrease_guard: true,
            guard: 0,
            timeout_slow_start: true,
            after_timeout: false,
            hs: None,
            recovery: RecoveryProcedure::Reno,
            mode: Mode::Reno,
        }
    }
}

impl SyncTcp {
    /// `sync-tcp`.
    pub fn from_params(p: &Params) -> Self {
        SyncTcp {
            det: Detector::new(p.get("w_avg")),
            decrease_guard: p.flag("decrease_guard"),
            timeout_slow_start: p.flag("timeout_slow_start"),
            recovery: recovery_of(p),
            ..Default::default()
        }
    }

    /// `sync-tcp-hs`.
    pub fn hs_from_params(p: &Params) -> Self {
        SyncTcp {
            name: "sync-tcp-hs",
            hs: Some(HighSpeed {
                c_low: p.get("c_low"),
                c_high: p.get("c_high"),
                alpha0: p.get("alpha0"),
                alpha0_packets: p.get("alpha0_mode") >= 0.5,
            }),
            ..Self::from_params(p)
        }
    }

    /// The modified Sync-TCP with the given phases and otherwise default settings.
    pub fn high_speed(hs: HighSpeed) -> Self {
        SyncTcp { name: "sync-tcp-hs", hs: Some(hs), ..Default::default() }
    }

    pub fn detector(&self) -> &Detector {
        &self.det
    }

    fn observe(&mut self, ack: &AckSample) {
        if let Some(ott) = ack.delay.one_way_delay.map(|d| d as f64) {
            self.det.sample(ott);
        }
    }

    /// Apply the reaction to `ind` for one ACK.
    fn react(&mut self, ind: Indication, ack: &AckSample, w: &mut Window) {
        self.mode = Mode::Sync;
        let n = ack.increase_units;
        match reaction(ind) {
            Reaction::Decrease(y) => {
                if self.decrease_guard && ack.delivered < self.guard {
                    return;
                }
                w.cwnd = (w.cwnd * (1.0 - y)).max(MIN_CWND);
                w.ssthresh = w.cwnd.max(MIN_SSTHRESH);
                self.guard = ack.delivered + ack.in_flight.ceil() as u64;
            }
            Reaction::RenoIncrease if may_grow(ack) => additive_increase(w, 1.0, n),
            Reaction::Increase(x) if may_grow(ack) => w.cwnd += x * n,
            _ => {}
        }
    }

    fn reno(&mut self, ack: &AckSample, w: &mut Window) {
        self.mode = Mode::Reno;
        grow(ack, w, |w, units| additive_increase(w, 1.0, units));
    }

    /// Sync-TCP proper: the reaction to the current indication, Reno without one.
    fn sync(&mut self, ack: &AckSample, w: &mut Window) {
        match self.det.indication() {
            Some(ind) => self.react(ind, ack, w),
            None => self.reno(ack, w),
        }
    }
}

impl CongestionControl for SyncTcp {
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.observe(ack);
        if self.after_timeout {
            if in_slow_start(w) {
                self.reno(ack, w);
                self.after_timeout = in_slow_start(w);
                return;
            }
            self.after_timeout = false;
        }
        match self.hs {
            Some(hs) if w.cwnd < hs.c_low => self.reno(ack, w),
            Some(hs) if w.cwnd < hs.c_high => {
                self.mode = Mode::Alpha0;
                if may_grow(ack) {
                    if hs.alpha0_packets {
                        additive_increase(w, hs.alpha0, ack.increase_units);
                    } else {
                        w.cwnd += hs.alpha0 * ack.increase_units;
                    }
                }
            }
            _ => self.sync(ack, w),
        }
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.observe(ack);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        multiplicative_decrease(ev, w, 0.5);
        if ev.kind == CongestionKind::Timeout && self.timeout_slow_start {
            self.after_timeout = true;
        }
    }

    fn customary_recovery(&self) -> RecoveryProcedure {
        self.recovery
    }

    /// `qdelay`: average queueing delay, s (NaN before the first OTT); `region`: 0-3, the quarter
    /// of the largest queueing delay seen that the average lies in (NaN while that is 0);
    /// `trend`: +1 increasing, -1 decreasing, 0 not decided yet; `indication`: trend x (region +
    /// 1), 0 while there is none ("not enough samples"); `mode`: the rule that moved the window on
    /// the last ACK, 0 Reno, 1 the alpha0 increase (`sync-tcp-hs`), 2 a Sync-TCP reaction.
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("qdelay", self.det.avg_seconds());
        out("region", self.det.region().map_or(f64::NAN, f64::from));
        out("trend", self.det.trend().code());
        out("indication", self.det.indication().map_or(0.0, Indication::code));
        out("mode", self.mode.code());
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::*;

    const MS: f64 = 1e6;

    /// An ACK of one segment whose segment took `ott_ms` one way; `delivered` segments
    /// cumulatively acknowledged, 10 in flight.
    fn ott_ack(ott_ms: f64, delivered: u64) -> AckSample {
        let mut a = ack(1.0);
        a.delay.one_way_delay = Some((ott_ms * MS).round() as _);
        a.delivered = delivered;
        a
    }

    /// A detector with `w_avg = 1` (the average is the latest q) fed OTTs in ms.
    fn fed(otts: &[f64]) -> Detector {
        let mut d = Detector::new(1.0);
        for &o in otts {
            d.sample(o * MS);
        }
        d
    }

    /// A Sync-TCP whose detector has been fed `otts` (ms), with `w_avg = 1`.
    fn sync_fed(otts: &[f64]) -> SyncTcp {
        SyncTcp { det: fed(otts), ..Default::default() }
    }

    #[test]
    fn median_of_three_by_comparisons() {
        for (a, b, c) in
            [(1.0, 2.0, 3.0), (1.0, 3.0, 2.0), (2.0, 1.0, 3.0), (2.0, 3.0, 1.0), (3.0, 1.0, 2.0), (3.0, 2.0, 1.0)]
        {
            assert_eq!(median3(a, b, c), 2.0, "{a} {b} {c}");
        }
        assert_eq!(median3(5.0, 5.0, 1.0), 5.0);
        assert_eq!(median3(1.0, 5.0, 1.0), 1.0);
    }

    /// w_avg = 1/8, OTTs 10, 18, 10, 26 ms: q = 0, 8, 0, 16 ms; avg = 0, 1, 0.875,
    /// 0.875 x 7/8 + 2 = 2.765625 ms; max 8 then 16 ms; the minimum stays 10 ms. A later OTT of
    /// 6 ms moves the minimum: q = 0.
    #[test]
    fn queueing_delay_is_averaged_against_the_smallest_ott_and_its_maximum_kept() {
        let mut d = Detector::new(0.125);
        assert!(d.avg_seconds().is_nan());
        for (ott, avg, max) in [(10.0, 0.0, 0.0), (18.0, 1.0, 8.0), (10.0, 0.875, 8.0), (26.0, 2.765625, 16.0)] {
            d.sample(ott * MS);
            assert!((d.avg_q - avg * MS).abs() < 1e-6, "ott {ott}: avg {}", d.avg_q / MS);
            assert_eq!(d.max_q, max * MS);
        }
        d.sample(6.0 * MS);
        assert_eq!(d.min_ott, 6.0 * MS);
        assert!((d.avg_q - 2.765625 * 0.875 * MS).abs() < 1e-6);
        assert_eq!(d.max_q, 16.0 * MS);
    }

    /// Rising OTTs 10, 11, ..., 18 ms (q = 0..8): no trend for 8 samples, increasing on the 9th
    /// (medians 1 < 7). Then three falling samples q = 2, 1, 0: the trend is not recomputed on
    /// the first two (still increasing) and on the third the ring holds q = 3..8, 2, 1, 0: m0 =
    /// median(3, 4, 5) = 4 > m2 = median(2, 1, 0) = 1, decreasing.
    #[test]
    fn the_trend_needs_nine_averages_and_is_recomputed_every_three_acks() {
        let mut d = Detector::new(1.0);
        for k in 0..8 {
            d.sample((10.0 + k as f64) * MS);
            assert_eq!(d.trend(), Trend::None, "sample {}", k + 1);
            assert_eq!(d.indication(), None);
        }
        d.sample(18.0 * MS);
        assert_eq!(d.trend(), Trend::Increasing);
        d.sample(12.0 * MS);
        d.sample(11.0 * MS);
        assert_eq!(d.trend(), Trend::Increasing, "not recomputed between");
        d.sample(10.0 * MS);
        assert_eq!(d.trend(), Trend::Decreasing);
    }

    /// Falling q from a peak: OTTs 10, then 19, 18, ..., 12 ms (w_avg 1): on the 9th sample the
    /// ring is q = 0, 9, 8, 7, 6, 5, 4, 3, 2: m0 = median(0, 9, 8) = 8 > m2 = median(4, 3, 2) =
    /// 3, decreasing. Medians ignore one spike: newest three q = 1, 30, 1 (median 1) against
    /// 5, 5, 5 is decreasing.
    #[test]
    fn falling_delays_give_a_decreasing_trend_and_spikes_are_outvoted() {
        let d = fed(&[10.0, 19.0, 18.0, 17.0, 16.0, 15.0, 14.0, 13.0, 12.0]);
        assert_eq!(d.trend(), Trend::Decreasing);
        let d = fed(&[10.0, 15.0, 15.0, 15.0, 15.0, 15.0, 11.0, 40.0, 11.0]);
        assert_eq!(d.trend(), Trend::Decreasing);
    }

    /// Flat delays tie (m0 = m2): the trend stays as it was, none at first (so Reno), and
    /// increasing after a rise: nine rising samples, then six flat ones (two recomputations, the
    /// second on a ring of q = 6, 7, 8, 8, 8, 8, 8, 8, 8: m0 = 7 < m2 = 8, still increasing), then
    /// three more flat (ring all 8: a tie, kept).
    #[test]
    fn a_flat_sequence_keeps_the_previous_trend() {
        let d = fed(&[12.0; 15]);
        assert_eq!(d.trend(), Trend::None);
        assert_eq!(d.indication(), None, "no queueing seen: not enough samples");
        let mut d = fed(&[10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0]);
        for _ in 0..9 {
            d.sample(18.0 * MS);
        }
        assert_eq!(d.trend(), Trend::Increasing);
        assert_eq!(d.since_trend, 0, "the last sample recomputed");
    }

    /// Maximum q = 8 ms (OTTs 10 then 18 ms), w_avg = 1, so the average is the last q: regions
    /// switch exactly at 2, 4 and 6 ms, a boundary belonging to the region above it; q = 8 ms
    /// (the maximum itself) is in the top region.
    #[test]
    fn regions_switch_exactly_at_a_quarter_half_and_three_quarters_of_the_maximum() {
        for (q, region) in
            [(0.0, 0), (1.999, 0), (2.0, 1), (3.999, 1), (4.0, 2), (5.999, 2), (6.0, 3), (7.999, 3), (8.0, 3)]
        {
            let d = fed(&[10.0, 18.0, 10.0 + q]);
            assert_eq!(d.region(), Some(region), "q {q} ms");
        }
        assert_eq!(fed(&[10.0, 10.0]).region(), None, "no queueing seen yet");
    }

    /// The eight reactions on one ACK at cwnd 20 (n = 1), guard open: increasing: x0.5 = 10,
    /// x0.75 = 15, x0.9 = 18, +1/20; decreasing: hold, +0.1, +0.25, +0.5. A decrease sets
    /// ssthresh = cwnd.
    #[test]
    fn each_indication_moves_the_window_as_the_table_says() {
        use Trend::*;
        for (trend, region, cwnd, ssthresh) in [
            (Increasing, 3, 10.0, 10.0),
            (Increasing, 2, 15.0, 15.0),
            (Increasing, 1, 18.0, 18.0),
            (Increasing, 0, 20.05, 100.0),
            (Decreasing, 3, 20.0, 100.0),
            (Decreasing, 2, 20.1, 100.0),
            (Decreasing, 1, 20.25, 100.0),
            (Decreasing, 0, 20.5, 100.0),
        ] {
            let mut s = SyncTcp::default();
            let mut w = Window { cwnd: 20.0, ssthresh: 100.0 };
            s.react(Indication { trend, region }, &ott_ack(10.0, 0), &mut w);
            assert!((w.cwnd - cwnd).abs() < 1e-12, "{trend:?} {region}: {w:?}");
            assert_eq!(w.ssthresh, ssthresh, "{trend:?} {region}");
        }
    }

    /// One RTT of ACKs (20 at cwnd 20): decreasing in region 0 gives 20 + 20 x 0.5 = 30 = 20 x
    /// 1.5; region 1: 25; region 2: 22; increasing region 0 (Reno): about 21 (the sum of 1/cwnd
    /// over the ACKs, 20.98). Increases are skipped when the stack gates growth.
    #[test]
    fn increases_per_rtt_are_fractions_of_the_window() {
        for (region, after) in [(0, 30.0), (1, 25.0), (2, 22.0)] {
            let mut s = SyncTcp::default();
            let mut w = Window { cwnd: 20.0, ssthresh: 100.0 };
            for _ in 0..20 {
                s.react(Indication { trend: Trend::Decreasing, region }, &ott_ack(10.0, 0), &mut w);
            }
            assert!((w.cwnd - after).abs() < 1e-9, "region {region}: {}", w.cwnd);
        }
        let mut s = SyncTcp::default();
        let mut w = Window { cwnd: 20.0, ssthresh: 100.0 };
        for _ in 0..20 {
            s.react(Indication { trend: Trend::Increasing, region: 0 }, &ott_ack(10.0, 0), &mut w);
        }
        assert!((w.cwnd - 20.98).abs() < 0.01, "{}", w.cwnd);
        let mut gated = ott_ack(10.0, 0);
        (gated.growth.gating, gated.cwnd_limited) = (true, false);
        let mut w = Window { cwnd: 20.0, ssthresh: 100.0 };
        s.react(Indication { trend: Trend::Decreasing, region: 0 }, &gated, &mut w);
        assert_eq!(w.cwnd, 20.0);
    }

    /// At most one decrease per RTT: a 50 % cut at cwnd 40 with 100 segments delivered and 10 in
    /// flight (the builder's) closes the guard until 110 are delivered; at 109 nothing, at 110
    /// the next cut (20 -> 10). Without the guard every ACK cuts. The floor is 2 segments.
    #[test]
    fn decreases_happen_at_most_once_per_rtt() {
        let ind = Indication { trend: Trend::Increasing, region: 3 };
        let mut s = SyncTcp::default();
        let mut w = Window { cwnd: 40.0, ssthresh: 100.0 };
        s.react(ind, &ott_ack(10.0, 100), &mut w);
        assert_eq!((w.cwnd, s.guard), (20.0, 110));
        s.react(ind, &ott_ack(10.0, 109), &mut w);
        assert_eq!(w.cwnd, 20.0);
        s.react(ind, &ott_ack(10.0, 110), &mut w);
        assert_eq!(w.cwnd, 10.0);
        let mut s = SyncTcp { decrease_guard: false, ..Default::default() };
        let mut w = Window { cwnd: 40.0, ssthresh: 100.0 };
        for (k, expect) in [20.0, 10.0, 5.0, 2.5, 2.0, 2.0].into_iter().enumerate() {
            s.react(ind, &ott_ack(10.0, 100 + k as u64), &mut w);
            assert_eq!(w.cwnd, expect, "ack {k}");
        }
    }

    /// Whole path through `on_ack`: until nine averages exist Sync-TCP is Reno (slow start from
    /// 2 with ssthresh 100 gives 10 after 8 ACKs, whatever the delays); the 9th ACK of a rising
    /// sequence (q = 0..8 ms, w_avg 1) decides "increasing" with the average at the maximum
    /// (region 3): cwnd 10 -> 5, ssthresh 5. A 10th ACK (q 8 again, the guard closed) holds.
    #[test]
    fn too_few_samples_grow_as_reno_then_the_indication_takes_over() {
        let mut s = SyncTcp { det: Detector::new(1.0), ..Default::default() };
        let mut w = Window { cwnd: 2.0, ssthresh: 100.0 };
        for k in 0..8 {
            s.on_ack(&ott_ack(10.0 + k as f64, k + 1), &mut w);
            assert_eq!(s.mode, Mode::Reno);
        }
        assert_eq!(w.cwnd, 10.0);
        s.on_ack(&ott_ack(18.0, 9), &mut w);
        assert_eq!(s.det.indication(), Some(Indication { trend: Trend::Increasing, region: 3 }));
        assert_eq!((w.cwnd, w.ssthresh, s.mode), (5.0, 5.0, Mode::Sync));
        s.on_ack(&ott_ack(18.0, 10), &mut w);
        assert_eq!(w.cwnd, 5.0);
        // Congestion avoidance without an indication: + 1/cwnd (flat OTTs, no queueing ever).
        let mut s = SyncTcp::default();
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        for k in 0..12 {
            s.on_ack(&ott_ack(10.0, k), &mut w);
        }
        assert_eq!(s.det.trend(), Trend::None);
        assert!((w.cwnd - 50.0 - 12.0 / 50.0).abs() < 0.01, "{}", w.cwnd);
        // No one-way delay on an ACK: the detector is unchanged.
        let mut a = ott_ack(10.0, 0);
        a.delay.one_way_delay = None;
        s.on_ack(&a, &mut w);
        assert_eq!(s.det.len, 9);
    }

    /// Losses are Reno's: halve. After a timeout (cwnd 1, ssthresh 30 from a basis of 60) slow
    /// start runs to ssthresh as Reno's although the indication says "increasing, region 3"
    /// (1 -> 30 in 29 ACKs), and only then does the indication act (30 -> 15). With
    /// `timeout_slow_start = false` the indication acts at once (floor 2).
    #[test]
    fn losses_are_reno_and_a_timeout_slow_starts_to_ssthresh_first() {
        let rising: Vec<f64> = (0..9).map(|k| 10.0 + k as f64).collect();
        let mut s = sync_fed(&rising);
        let mut w = Window { cwnd: 60.0, ssthresh: 100.0 };
        s.on_congestion(&congestion(CongestionKind::Loss, 60.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 30.0, ssthresh: 30.0 });
        let mut w = Window { cwnd: 60.0, ssthresh: 100.0 };
        s.on_congestion(&congestion(CongestionKind::Timeout, 60.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 30.0 });
        for k in 0..29 {
            s.on_ack(&ott_ack(18.0, k), &mut w);
            assert_eq!(s.mode, Mode::Reno, "ack {k}");
        }
        assert_eq!(w.cwnd, 30.0);
        s.on_ack(&ott_ack(18.0, 29), &mut w);
        assert_eq!((w.cwnd, s.mode), (15.0, Mode::Sync));

        let mut s = SyncTcp { timeout_slow_start: false, ..sync_fed(&rising) };
        let mut w = Window { cwnd: 60.0, ssthresh: 100.0 };
        s.on_congestion(&congestion(CongestionKind::Timeout, 60.0, true), &mut w);
        s.on_ack(&ott_ack(18.0, 0), &mut w);
        assert_eq!(w.cwnd, 2.0);
    }

    /// Recovery ACKs feed the detector (the ring keeps filling), without moving the window.
    #[test]
    fn recovery_acks_are_observed() {
        let mut s = SyncTcp::default();
        for k in 0..9 {
            s.on_ack_in_recovery(&ott_ack(10.0 + k as f64, k));
        }
        assert_eq!(s.det.trend(), Trend::Increasing);
    }

    /// sync-tcp-hs under an indication "increasing, region 3" (which would halve): Reno slow
    /// start below c_low (98 -> 99 -> 100), then + alpha0 per ACK between c_low and c_high
    /// (100 -> 100.375), and Sync-TCP from c_high on (150 -> 75, and 75 is below c_low again:
    /// Reno, + 1/75 in avoidance as ssthresh = 75).
    #[test]
    fn the_high_speed_variant_switches_at_c_low_and_c_high() {
        let rising: Vec<f64> = (0..9).map(|k| 10.0 + k as f64).collect();
        let mut s = SyncTcp { det: fed(&rising), ..SyncTcp::high_speed(HighSpeed::default()) };
        let mut w = Window { cwnd: 98.0, ssthresh: f64::INFINITY };
        s.on_ack(&ott_ack(18.0, 1), &mut w);
        assert_eq!((w.cwnd, s.mode), (99.0, Mode::Reno));
        s.on_ack(&ott_ack(18.0, 2), &mut w);
        assert_eq!(w.cwnd, 100.0);
        s.on_ack(&ott_ack(18.0, 3), &mut w);
        assert_eq!((w.cwnd, s.mode), (100.375, Mode::Alpha0));
        let mut w = Window { cwnd: 150.0, ssthresh: f64::INFINITY };
        s.on_ack(&ott_ack(18.0, 4), &mut w);
        assert_eq!((w.cwnd, w.ssthresh, s.mode), (75.0, 75.0, Mode::Sync));
        s.on_ack(&ott_ack(18.0, 5), &mut w);
        assert_eq!((w.cwnd, s.mode), (75.0 + 1.0 / 75.0, Mode::Reno));
    }

    /// alpha0 modes over one RTT of ACKs at cwnd 100 (100 ACKs, n = 1): `fraction` gives
    /// 100 + 100 x 0.375 = 137.5 (x 1.375); `packets` gives + 0.375 / cwnd per ACK, about
    /// 100.375 (100.37430 to five places: the sum of 0.375/cwnd as cwnd creeps up).
    #[test]
    fn alpha0_is_a_fraction_of_the_window_or_segments_per_rtt() {
        for (packets, after) in [(false, 137.5), (true, 100.3743)] {
            let mut s = SyncTcp::high_speed(HighSpeed { alpha0_packets: packets, ..Default::default() });
            let mut w = Window { cwnd: 100.0, ssthresh: f64::INFINITY };
            for k in 0..100 {
                s.on_ack(&ott_ack(10.0, k), &mut w);
            }
            assert!((w.cwnd - after).abs() < 1e-4, "packets = {packets}: {}", w.cwnd);
        }
    }

    /// The parameters reach the controller: with c_low 80 and alpha0_mode 1 (packets), an ACK at
    /// cwnd 80 adds 0.375/80; `sync-tcp` has no alpha0_mode.
    #[test]
    fn parameters_build_both_variants() {
        use std::collections::BTreeMap;
        let rng = || crate::rng::stream(1, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion);
        let mut p = BTreeMap::new();
        p.insert("alpha0_mode".to_string(), 1.0);
        p.insert("c_low".to_string(), 80.0);
        let mut cc = super::super::registry::build("sync-tcp-hs", &p, rng()).unwrap();
        assert_eq!(cc.name(), "sync-tcp-hs");
        let mut w = Window { cwnd: 80.0, ssthresh: f64::INFINITY };
        cc.on_ack(&ott_ack(10.0, 0), &mut w);
        assert!((w.cwnd - (80.0 + 0.375 / 80.0)).abs() < 1e-12, "{}", w.cwnd);
        assert!(super::super::registry::build("sync-tcp", &p, rng()).is_err(), "no alpha0_mode in sync-tcp");
    }

    /// `inspect`: before any sample qdelay and region are NaN, trend and indication 0; after a
    /// rising sequence: 8 ms average (w_avg 1), region 3, trend +1, indication +4.
    #[test]
    fn inspect_reports_the_detector_and_the_rule_in_force() {
        let report = |s: &SyncTcp| {
            let mut v = Vec::new();
            s.inspect(0, &mut |n, x| v.push((n, x)));
            v
        };
        let r = report(&SyncTcp::default());
        let names: Vec<_> = r.iter().map(|p| p.0).collect();
        assert_eq!(names, ["qdelay", "region", "trend", "indication", "mode"]);
        assert!(r[0].1.is_nan() && r[1].1.is_nan());
        assert_eq!((r[2].1, r[3].1, r[4].1), (0.0, 0.0, 0.0));
        let rising: Vec<f64> = (0..9).map(|k| 10.0 + k as f64).collect();
        let r = report(&sync_fed(&rising));
        assert!((r[0].1 - 0.008).abs() < 1e-12);
        assert_eq!((r[1].1, r[2].1, r[3].1), (3.0, 1.0, 4.0));
        let falling = fed(&[10.0, 19.0, 18.0, 17.0, 16.0, 15.0, 14.0, 13.0, 12.0]);
        // Average 2 ms of a 9 ms maximum: region 0; decreasing: indication -1.
        assert_eq!(falling.indication().map(Indication::code), Some(-1.0));
    }
}
