//! FAST TCP (C. Jin, D. X. Wei, S. H. Low, "FAST TCP: Motivation, Architecture, Algorithms,
//! Performance", IEEE INFOCOM 2004), with the update rules of the ns-2 FAST TCP module of the
//! University of Melbourne (v1.1.3).
//!
//! Equation-based and delay-based: every other round the window moves a fraction gamma of the
//! way toward the window that leaves exactly alpha of this flow's packets queued,
//! w <- min(2w, (1 - gamma) w + gamma (base/avg w + alpha)), where avg is a smoothed RTT and base
//! the smallest RTT seen. At equilibrium each flow keeps alpha packets in queues whatever its RTT.
//! While the smoothed RTT shows (almost) no queue the window doubles per round instead ("MI"
//! mode, one segment per ACK). Losses are Reno's.
//!
//! Choices (docs/algorithms.md, "fast"):
//! * alpha = 100 packets by default (no authoritative value; the paper used 200 at Gb/s), a
//!   parameter. It must stay below buffer / flows or FAST degenerates into a Reno sawtooth.
//! * Smoothed RTT gain min(3 / cwnd, 1/256) per ACK (ns-2); the paper's cap 1/4 is the
//!   `avg_gain_cap` parameter. The first sample initialises it.
//! * MI threshold 1 ms of smoothed queueing delay (ns-2's value not found; must be well below
//!   the equilibrium queueing delay alpha / rate), a parameter. MI ignores ssthresh, as ns-2.
//! * Updates happen on the sender's round starts (the ACK that covers the data outstanding at
//!   the previous one), alternately updating and freezing (ns-2 default "as in Linux");
//!   `freeze = false` updates every round.
//! * The window the acknowledged packets were sent with (ns-2 records it per packet) is taken as
//!   the window at the previous round start: the packets acknowledged in a round left during the
//!   previous one. With freezing, that is the window the update round ended at.
//! * Increases are spread evenly over the next round's acknowledged segments (ns-2 paces them
//!   over the RTT's ACKs); `pace = false` applies them at once. Decreases are immediate. The
//!   target is kept at 2 segments or more. Increases wait while the stack gates growth.
//! * ns-2's dead band (no update while the queue estimate is in [alpha, beta)) is empty with its
//!   default beta = alpha, and is not modelled.
//! * RTT samples: the sender's per-ACK sample ([`AckSample::delay`]: `ca_rtt`, or the timestamp
//!   echo under ns2's timing) on every ACK, in recovery too (they update the average); a zero
//!   sample counts as 1 ns. The base RTT is the sender's shared one (the smallest sample ever,
//!   never aged), taken from every ACK in every state.
//! * A loss halves cwnd and ssthresh (ns-2 CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF); no FAST
//!   update during recovery, and pending increments are dropped. A timeout sets ssthresh to half
//!   the window and restarts at one segment like every ccsim algorithm (ns-2 FAST restarts at 2).

use super::common::{may_grow, multiplicative_decrease};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, Window};
use crate::units::{Dur, Time, NS_PER_MS};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "alpha",
        kind: ParamKind::Float,
        default: 100.0,
        min: 0.0,
        max: 1e9,
        doc: "packets each flow keeps queued at equilibrium (no authoritative default: 100 for \
              100 Mb/s studies; the paper used 200 at Gb/s)",
    },
    ParamInfo {
        name: "gamma",
        kind: ParamKind::Float,
        default: 0.5,
        min: 1e-6,
        max: 1.0,
        doc: "fraction of the way to the target window moved per update (ns-2, paper 0.5)",
    },
    ParamInfo {
        name: "avg_gain_cap",
        kind: ParamKind::Float,
        default: 1.0 / 256.0,
        min: 1e-9,
        max: 1.0,
        doc: "cap on the smoothed-RTT gain min(3/cwnd, cap) per ACK (ns-2 1/256, paper 1/4)",
    },
    ParamInfo {
        name: "mi_threshold_ms",
        kind: ParamKind::Float,
        default: 1.0,
        min: 0.0,
        max: 1e6,
        doc: "below this smoothed queueing delay the window doubles per round (MI mode), ms \
              (no authoritative default)",
    },
    ParamInfo {
        name: "freeze",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "update every other round, freezing in between (ns-2 default); false updates every round",
    },
    ParamInfo {
        name: "pace",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "spread an update's increase over the next round's ACKs (ns-2) instead of applying it at once",
    },
];

/// The update never takes the window below two segments.
const MIN_CWND: f64 = 2.0;

#[derive(Clone, Debug)]
pub struct Fast {
    alpha: f64,
    gamma: f64,
    avg_gain_cap: f64,
    /// Nanoseconds.
    mi_threshold: f64,
    freeze: bool,
    pace: bool,
    /// The sender's base RTT as of the latest ACK, at least 1 ns (reported by `inspect`).
    base_rtt: Option<Dur>,
    /// Smoothed RTT, nanoseconds.
    avg_rtt: Option<f64>,
    /// Whether the next round start updates the window (else it freezes).
    update_next: bool,
    /// Window at the last round start: the one the packets acknowledged in this round left with.
    round_cwnd: Option<f64>,
    /// Increase still to apply from the last update, and its share per acknowledged segment.
    pending: f64,
    step: f64,
}

impl Default for Fast {
    fn default() -> Self {
        Fast {
            alpha: 100.0,
            gamma: 0.5,
            avg_gain_cap: 1.0 / 256.0,
            mi_threshold: NS_PER_MS as f64,
            freeze: true,
            pace: true,
            base_rtt: None,
            avg_rtt: None,
            update_next: true,
            round_cwnd: None,
            pending: 0.0,
            step: 0.0,
        }
    }
}

impl Fast {
    pub fn from_params(p: &Params) -> Self {
        Fast {
            alpha: p.get("alpha"),
            gamma: p.get("gamma"),
            avg_gain_cap: p.get("avg_gain_cap"),
            mi_threshold: p.get("mi_threshold_ms") * NS_PER_MS as f64,
            freeze: p.flag("freeze"),
            pace: p.flag("pace"),
            ..Default::default()
        }
    }

    /// Smoothed RTT, nanoseconds.
    pub fn avg_rtt(&self) -> Option<f64> {
        self.avg_rtt
    }

    /// Take one RTT sample into the smoothed RTT; returns (base, avg), base the sender's.
    fn sample(&mut self, ack: &AckSample, cwnd: f64) -> (f64, f64) {
        let base = ack.delay.base.max(1);
        self.base_rtt = Some(base);
        let s = ack.delay.latest.max(1) as f64;
        let gain = (3.0 / cwnd.max(1.0)).min(self.avg_gain_cap);
        let avg = self.avg_rtt.map_or(s, |a| (1.0 - gain) * a + gain * s);
        self.avg_rtt = Some(avg);
        (base as f64, avg)
    }

    /// The FAST law: move toward the window that leaves alpha packets queued.
    fn update(&mut self, old_cwnd: f64, base: f64, avg: f64, w: &mut Window) {
        let cwnd = w.cwnd;
        let target = (1.0 - self.gamma) * cwnd + self.gamma * (old_cwnd * base / avg + self.alpha);
        let target = target.min(2.0 * cwnd).max(MIN_CWND);
        if target >= cwnd && self.pace {
            self.pending = target - cwnd;
            self.step = self.pending / cwnd.max(1.0);
        } else {
            w.cwnd = target;
            self.pending = 0.0;
        }
    }
}

impl CongestionControl for Fast {
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("avg_rtt", self.avg_rtt().map_or(f64::NAN, |r| r / 1e9));
        out("base_rtt", self.base_rtt.map_or(f64::NAN, |b| b as f64 / 1e9));
    }
    fn name(&self) -> &'static str {
        "fast"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        let (base, avg) = self.sample(ack, w.cwnd);
        let old_cwnd = *self.round_cwnd.get_or_insert(w.cwnd);
        if avg - base < self.mi_threshold {
            // MI mode: no queue yet, one segment per ACK.
            self.pending = 0.0;
            if may_grow(ack) {
                w.cwnd += ack.increase_units;
            }
        } else if ack.round_start && self.update_next {
            self.update(old_cwnd, base, avg, w);
        } else if self.pending > 0.0 && may_grow(ack) {
            let inc = (self.step * ack.acked).min(self.pending);
            w.cwnd += inc;
            self.pending -= inc;
        }
        if ack.round_start {
            self.update_next = !self.freeze || !self.update_next;
            self.round_cwnd = Some(w.cwnd);
        }
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        let cwnd = self.round_cwnd.unwrap_or(MIN_CWND);
        self.sample(ack, cwnd);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        multiplicative_decrease(ev, w, 0.5);
        self.pending = 0.0;
        self.round_cwnd = None;
    }

    fn on_recovery_exit(&mut self, _now: Time, _w: &mut Window) {
        self.update_next = true;
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{congestion, Feed};
    use super::super::CongestionKind;
    use super::*;

    const MS: f64 = NS_PER_MS as f64;

    /// A FAST flow whose smoothed RTT is `avg_ms`, and a sender's delay meter that has seen a
    /// 100 ms base RTT (it stamps the ACKs fed to the flow).
    fn settled(alpha: f64, avg_ms: f64, cwnd: f64) -> (Fast, Feed) {
        let mut m = Feed::default();
        m.ack_rtt(100, false);
        let f = Fast { alpha, avg_rtt: Some(avg_ms * MS), round_cwnd: Some(cwnd), ..Default::default() };
        (f, m)
    }

    /// Base 100 ms, smoothed RTT 120 ms, cwnd 100, alpha 10. The round-start ACK samples 120 ms
    /// (gain min(3/100, 1/256) = 1/256: the average stays 120 ms) and updates:
    /// target = 0.5 * 100 + 0.5 * (100 * 100/120 + 10) = 50 + 0.5 * 93.333 = 96.667, below cwnd:
    /// applied at once. The next round freezes; the one after updates again from the window the
    /// frozen round started with (96.667): 0.5 * 96.667 + 0.5 * (96.667 / 1.2 + 10) =
    /// 48.333 + 45.278 = 93.611.
    #[test]
    fn decreases_are_immediate_and_every_other_round_is_frozen() {
        let (mut f, mut m) = settled(10.0, 120.0, 100.0);
        let mut w = Window { cwnd: 100.0, ssthresh: f64::INFINITY };
        f.on_ack(&m.ack_rtt(120, true), &mut w);
        assert!((w.cwnd - 96.0 - 2.0 / 3.0).abs() < 1e-9, "{}", w.cwnd);
        for _ in 0..5 {
            f.on_ack(&m.ack_rtt(120, false), &mut w);
        }
        f.on_ack(&m.ack_rtt(120, true), &mut w);
        assert!((w.cwnd - 96.0 - 2.0 / 3.0).abs() < 1e-9, "frozen round: {}", w.cwnd);
        f.on_ack(&m.ack_rtt(120, true), &mut w);
        let expect = 0.5 * (290.0 / 3.0) + 0.5 * ((290.0 / 3.0) / 1.2 + 10.0);
        assert!((w.cwnd - expect).abs() < 1e-9, "{} vs {expect}", w.cwnd);
    }

    /// Base 100 ms, smoothed 102 ms, cwnd 50, alpha 20: target = 25 + 0.5 * (50 * 100/102 + 20)
    /// = 25 + 0.5 * 69.020 = 59.510, an increase of 9.510 paced over the next 50 segments:
    /// 0.19020 per segment. 25 ACKs give +4.755; 30 more finish it at 59.510 and add no more.
    #[test]
    fn increases_are_spread_over_the_next_round() {
        let (mut f, mut m) = settled(20.0, 102.0, 50.0);
        let mut w = Window { cwnd: 50.0, ssthresh: f64::INFINITY };
        f.on_ack(&m.ack_rtt(102, true), &mut w);
        assert_eq!(w.cwnd, 50.0);
        let target = 25.0 + 0.5 * (50.0 * 100.0 / 102.0 + 20.0);
        for _ in 0..25 {
            f.on_ack(&m.ack_rtt(102, false), &mut w);
        }
        assert!((w.cwnd - (50.0 + (target - 50.0) / 2.0)).abs() < 1e-9, "{}", w.cwnd);
        for _ in 0..30 {
            f.on_ack(&m.ack_rtt(102, false), &mut w);
        }
        assert!((w.cwnd - target).abs() < 1e-9, "{} vs {target}", w.cwnd);
        // Without pacing the same update lands at once.
        let (f, mut m) = settled(20.0, 102.0, 50.0);
        let mut f = Fast { pace: false, ..f };
        let mut w = Window { cwnd: 50.0, ssthresh: f64::INFINITY };
        f.on_ack(&m.ack_rtt(102, true), &mut w);
        assert!((w.cwnd - target).abs() < 1e-9);
    }

    /// With an empty queue (smoothed RTT within 1 ms of the base) every ACK adds a segment. The
    /// FAST target is capped at twice the window: base 100, smoothed 101.5 ms (1.5 ms queueing),
    /// cwnd 4, alpha 100: 0.5 * 4 + 0.5 * (4 / 1.015 + 100) = 53.97 > 8, so the target is 8.
    #[test]
    fn mi_mode_without_a_queue_and_the_target_is_at_most_twice_the_window() {
        let (mut f, mut m) = settled(100.0, 100.5, 10.0);
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        f.on_ack(&m.ack_rtt(100, false), &mut w);
        f.on_ack(&m.ack_rtt(100, true), &mut w);
        assert_eq!(w.cwnd, 12.0);
        let (f, mut m) = settled(100.0, 101.5, 4.0);
        let mut f = Fast { pace: false, ..f };
        let mut w = Window { cwnd: 4.0, ssthresh: f64::INFINITY };
        f.on_ack(&m.ack_rtt(101, true), &mut w);
        assert_eq!(w.cwnd, 8.0);
    }

    /// The smoothed RTT: first sample taken as is (120 ms); then gain min(3/cwnd, 1/256). At
    /// cwnd 1000 the gain is 3/1000: 120 + 0.003 * (220 - 120) = 120.3 ms. At cwnd 10 it is
    /// 1/256: 120.3 + (220 - 120.3)/256 = 120.689... ms.
    #[test]
    fn the_smoothed_rtt_gain_is_min_of_3_over_w_and_1_over_256() {
        let mut f = Fast::default();
        let mut m = Feed::default();
        let mut w = Window { cwnd: 1000.0, ssthresh: f64::INFINITY };
        f.on_ack(&m.ack_rtt(120, false), &mut w);
        assert_eq!(f.avg_rtt(), Some(120.0 * MS));
        w.cwnd = 1000.0;
        f.on_ack(&m.ack_rtt(220, false), &mut w);
        assert!((f.avg_rtt().unwrap() - 120.3 * MS).abs() < 1.0);
        w.cwnd = 10.0;
        f.on_ack(&m.ack_rtt(220, false), &mut w);
        let expect = 120.3 + (220.0 - 120.3) / 256.0;
        assert!((f.avg_rtt().unwrap() - expect * MS).abs() < 1.0);
    }

    /// At equilibrium (alpha packets queued) the window is a fixed point: base 100 ms, smoothed
    /// 125 ms, cwnd 100: queued = 100 * 25 / 125 = 20 = alpha, and target = 50 + 0.5 * (80 + 20)
    /// = 100.
    #[test]
    fn alpha_packets_queued_is_a_fixed_point() {
        let (mut f, mut m) = settled(20.0, 125.0, 100.0);
        let mut w = Window { cwnd: 100.0, ssthresh: f64::INFINITY };
        for _ in 0..4 {
            f.on_ack(&m.ack_rtt(125, true), &mut w);
            for _ in 0..100 {
                f.on_ack(&m.ack_rtt(125, false), &mut w);
            }
        }
        assert!((w.cwnd - 100.0).abs() < 1e-9, "{}", w.cwnd);
    }

    /// Loss: halve cwnd and ssthresh, drop a pending increase; after recovery the next round
    /// start updates. Timeout: ssthresh half the window, cwnd 1.
    #[test]
    fn losses_halve_as_reno() {
        let (mut f, mut m) = settled(20.0, 102.0, 50.0);
        let mut w = Window { cwnd: 50.0, ssthresh: f64::INFINITY };
        f.on_ack(&m.ack_rtt(102, true), &mut w);
        f.on_congestion(&congestion(CongestionKind::Loss, 50.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 25.0, ssthresh: 25.0 });
        assert_eq!(f.pending, 0.0);
        f.on_recovery_exit(0, &mut w);
        // Smoothed RTT ~102 ms (2 ms queueing): target = 12.5 + 0.5 * (25 * 100/102 + 20) = 34.75.
        let avg = f.avg_rtt().unwrap();
        let mut g = Fast { pace: false, ..f.clone() };
        let mut wg = w;
        g.on_ack(&m.ack_rtt(102, true), &mut wg);
        let expect = 12.5 + 0.5 * (25.0 * 100.0 * MS / avg + 20.0);
        assert!((wg.cwnd - expect).abs() < 1e-9, "{} vs {expect}", wg.cwnd);
        f.on_congestion(&congestion(CongestionKind::Timeout, 40.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 20.0 });
    }
}
