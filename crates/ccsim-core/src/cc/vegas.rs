//! TCP Vegas (L. Brakmo, L. Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
//! Internet", IEEE JSAC 13(8), 1995), in the form of Linux `net/ipv4/tcp_vegas.c`.
//!
//! Once per round, Vegas estimates how many of its packets sit in queues, diff, from how much
//! the round's minimum RTT exceeds the smallest RTT ever seen (the base RTT), and moves the window
//! by one segment to keep diff between `alpha` and `beta`. It leaves slow start as soon as diff
//! exceeds `gamma`, setting the window to what the path carries without a queue. Losses are
//! handled as Reno's.
//!
//! Choices where sources differ (Linux followed):
//! * diff = cwnd (RTT - base) / base (Linux), truncated to an integer as Linux's arithmetic does;
//!   `paper_diff = true` uses the paper's and ns-3's cwnd (RTT - base) / RTT, exactly the queued
//!   packets at equilibrium. The Linux form reads larger by RTT/base, so its queue settles a
//!   little lower.
//! * alpha, beta, gamma = 2, 4, 1 (Linux, ns-3); the paper and ns-2 use 1, 3, 1.
//! * Slow start grows every ACK and is checked once per round (the paper grows every other RTT).
//! * A loss halves the window as Reno (ns-2 cuts a quarter; ns-3 keeps ssthresh near cwnd).
//! * Vegas is suspended from a loss until recovery ends (Linux: only in the Open state). After a
//!   timeout it resumes at the next round start, about when Linux leaves its Loss state.
//! * With fewer than 3 RTT samples in a round (one ACK per round: delayed ACKs on a tiny window)
//!   that round grows as Reno.
//! * RTT samples are the sender's per-ACK sample (`ca_rtt`, or the timestamp echo under ns2's
//!   timing), plus 1 us as in Linux (no zero RTT). The base RTT is the sender's shared one
//!   ([`AckSample::delay`]); the round minimum is Vegas's own, because Linux Vegas also restarts
//!   its round when it returns to the Open state (recovery ends, or the first round after a
//!   timeout), which the sender's rounds do not.
//! * ssthresh is kept at 2 segments or more, like every ccsim algorithm (Linux's can reach 1 when
//!   Vegas shrinks a 2-segment window).

use super::common::delay::RoundRtt;
use super::common::{
    additive_increase, grow, in_slow_start, may_grow, multiplicative_decrease, slow_start, MIN_SSTHRESH,
};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, Window};
use crate::units::{Dur, Time};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "alpha",
        kind: ParamKind::Float,
        default: 2.0,
        min: 0.0,
        max: 1e6,
        doc: "grow by one segment per RTT while fewer than alpha packets are queued (Linux 2, paper 1)",
    },
    ParamInfo {
        name: "beta",
        kind: ParamKind::Float,
        default: 4.0,
        min: 0.0,
        max: 1e6,
        doc: "shrink by one segment per RTT while more than beta packets are queued (Linux 4, paper 3)",
    },
    ParamInfo {
        name: "gamma",
        kind: ParamKind::Float,
        default: 1.0,
        min: 0.0,
        max: 1e6,
        doc: "leave slow start once more than gamma packets are queued (Linux 1)",
    },
    ParamInfo {
        name: "paper_diff",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "estimate the queue as cwnd (RTT - base)/RTT (paper, ns-3) instead of Linux's \
              cwnd (RTT - base)/base",
    },
];

/// Linux adds 1 us to every RTT sample it gives Vegas, so no sample is zero.
pub const RTT_OFFSET: Dur = 1_000;
/// Below this many samples a round is probably delayed ACKs only: grow as Reno (Linux).
const MIN_SAMPLES: u32 = 3;
/// Linux `tcp_current_ssthresh`: outside recovery ssthresh is kept at least 3/4 of cwnd, so a
/// later slow start returns close to the current window.
const SSTHRESH_FLOOR: f64 = 0.75;
/// Vegas never takes the window below two segments (Linux).
const MIN_CWND: f64 = 2.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Adjusting once per round.
    On,
    /// In loss recovery: the sender owns the window.
    Suspended,
    /// After a timeout: Reno until the next round starts.
    ResumeAtRound,
}

#[derive(Clone, Debug)]
pub struct Vegas {
    alpha: f64,
    beta: f64,
    gamma: f64,
    paper_diff: bool,
    /// This round's samples (+1 us each). Not the sender's round summary: Vegas also restarts
    /// its round on leaving recovery and on resuming after a timeout (Linux `tcp_vegas_state`).
    round: RoundRtt,
    mode: Mode,
    /// diff at the last round end that computed one (for [`CongestionControl::inspect`]).
    last_diff: f64,
}

impl Default for Vegas {
    fn default() -> Self {
        Vegas {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
            paper_diff: false,
            round: RoundRtt::default(),
            mode: Mode::On,
            last_diff: f64::NAN,
        }
    }
}

impl Vegas {
    pub fn from_params(p: &Params) -> Self {
        Vegas {
            alpha: p.get("alpha"),
            beta: p.get("beta"),
            gamma: p.get("gamma"),
            paper_diff: p.flag("paper_diff"),
            ..Default::default()
        }
    }

    /// Packets this flow keeps queued, estimated from the round's minimum RTT against the base
    /// RTT of `ack`; `None` when the round has too few samples.
    fn queued(&self, ack: &AckSample, cwnd: f64) -> Option<(f64, f64)> {
        if self.round.count < MIN_SAMPLES {
            return None;
        }
        let rtt = self.round.min as f64;
        let base = (ack.delay.base + RTT_OFFSET) as f64;
        let denominator = if self.paper_diff { rtt } else { base };
        let diff = (cwnd * (rtt - base) / denominator).floor();
        // The window the path would carry at the base RTT (Linux `target_cwnd`).
        let target = (cwnd * base / rtt).floor();
        Some((diff, target))
    }

    /// The once-per-round decision, on the ACK that starts a new round.
    fn end_of_round(&mut self, ack: &AckSample, w: &mut Window) {
        let Some((diff, target)) = self.queued(ack, w.cwnd) else {
            reno(ack, w);
            return;
        };
        self.last_diff = diff;
        if in_slow_start(w) {
            if diff > self.gamma {
                // Too fast: match the rate the path delivers, and stop slow start.
                w.cwnd = w.cwnd.min(target + 1.0);
                w.ssthresh = w.ssthresh.min(w.cwnd);
            } else if may_grow(ack) {
                slow_start(ack, w);
            }
        } else if diff > self.beta {
            w.cwnd -= 1.0;
            w.ssthresh = w.ssthresh.min(w.cwnd);
        } else if diff < self.alpha && may_grow(ack) {
            w.cwnd += 1.0;
        }
        w.cwnd = w.cwnd.max(MIN_CWND);
        w.ssthresh = w.ssthresh.max(SSTHRESH_FLOOR * w.cwnd).max(MIN_SSTHRESH);
    }

    fn sample(&mut self, ack: &AckSample) {
        self.round.sample(ack.delay.latest + RTT_OFFSET);
    }

    fn resume(&mut self) {
        self.mode = Mode::On;
        self.round = RoundRtt::default();
    }
}

/// Reno's growth (slow start, then one segment per RTT).
fn reno(ack: &AckSample, w: &mut Window) {
    grow(ack, w, |w, units| additive_increase(w, 1.0, units));
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.sample(ack);
        match self.mode {
            Mode::On if ack.round_start => {
                self.end_of_round(ack, w);
                self.round = RoundRtt::default();
            }
            Mode::On => {
                // Between round ends only slow start moves the window.
                if in_slow_start(w) && may_grow(ack) {
                    slow_start(ack, w);
                }
            }
            Mode::Suspended | Mode::ResumeAtRound => {
                reno(ack, w);
                if ack.round_start && self.mode == Mode::ResumeAtRound {
                    self.resume();
                }
            }
        }
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        // Recovery samples stay in the round (Vegas restarts it only when recovery ends); they
        // lower the base RTT too, which the sender's meter takes in every state, as Linux does.
        self.sample(ack);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        multiplicative_decrease(ev, w, 0.5);
        self.mode = match ev.kind {
            super::CongestionKind::Timeout => Mode::ResumeAtRound,
            _ => Mode::Suspended,
        };
    }

    fn on_recovery_exit(&mut self, _now: Time, _w: &mut Window) {
        self.resume();
    }

    /// `diff`: the packets this flow keeps queued (expected minus actual rate, times the base
    /// RTT, or the RTT with `paper_diff`), as computed at the last round end that had enough
    /// samples; NaN before the first.
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("diff", self.last_diff);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{congestion, Feed};
    use super::super::CongestionKind;
    use super::*;
    use crate::units::NS_PER_MS;

    const MS: u64 = NS_PER_MS;

    /// A Vegas whose sender has seen a 100 ms base RTT, starting a fresh round.
    fn with_base_100ms() -> (Vegas, Feed) {
        let mut f = Feed::default();
        f.ack_rtt(100, true);
        (Vegas::default(), f)
    }

    /// Feed a round: `rtts` (ms) on ordinary ACKs, then the ACK that ends the round.
    fn round(v: &mut Vegas, f: &mut Feed, w: &mut Window, rtts: &[u64], closing_rtt: u64) {
        for &r in rtts {
            v.on_ack(&f.ack_rtt(r, false), w);
        }
        v.on_ack(&f.ack_rtt(closing_rtt, true), w);
    }

    /// Base RTT 100.001 ms (samples carry +1 us). In avoidance at cwnd 50, ssthresh 40:
    /// * round minimum 112.001 ms: diff = floor(50 * 12 / 100.001) = floor(5.99994) = 5 > 4:
    ///   cwnd 49, ssthresh min(40, 49) = 40, then max(40, 0.75 * 49 = 36.75) = 40;
    /// * round minimum 103.001 ms: diff = floor(49 * 3 / 100.001) = 1 < 2: cwnd 50;
    /// * round minimum 106.001 ms: diff = floor(50 * 6 / 100.001) = floor(2.99997) = 2: held.
    ///
    /// Between round ends nothing moves in avoidance.
    #[test]
    fn once_per_round_the_window_moves_one_segment_toward_the_queue_band() {
        let (mut v, mut f) = with_base_100ms();
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        round(&mut v, &mut f, &mut w, &[115, 112, 113], 114);
        assert_eq!(w, Window { cwnd: 49.0, ssthresh: 40.0 });
        round(&mut v, &mut f, &mut w, &[103, 104], 105);
        assert_eq!(w.cwnd, 50.0);
        round(&mut v, &mut f, &mut w, &[106, 107], 108);
        assert_eq!(w.cwnd, 50.0);
    }

    /// Round minimum 111.001 ms at cwnd 50: Linux's diff = floor(50 * 11 / 100.001) =
    /// floor(5.49995) = 5 > 4 shrinks; the paper's floor(50 * 11 / 111.001) = floor(4.955) = 4
    /// holds.
    #[test]
    fn the_paper_diff_reads_smaller_than_linuxs() {
        for (paper_diff, expect) in [(false, 49.0), (true, 50.0)] {
            let (v, mut f) = with_base_100ms();
            let mut v = Vegas { paper_diff, ..v };
            let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
            round(&mut v, &mut f, &mut w, &[111, 112], 113);
            assert_eq!(w.cwnd, expect, "paper_diff = {paper_diff}");
        }
    }

    /// Slow start, cwnd 40: in-round ACKs add one each (41, 42); the round end sees minimum
    /// 110.001 ms: diff = floor(42 * 10 / 100.001) = 4 > gamma = 1, so cwnd = min(42,
    /// floor(42 * 100.001 / 110.001) + 1) = min(42, 38 + 1) = 39 and ssthresh = 39.
    #[test]
    fn slow_start_ends_at_the_rate_the_path_delivers() {
        let (mut v, mut f) = with_base_100ms();
        let mut w = Window { cwnd: 40.0, ssthresh: f64::INFINITY };
        round(&mut v, &mut f, &mut w, &[110, 111], 112);
        assert_eq!(w, Window { cwnd: 39.0, ssthresh: 39.0 });
    }

    /// A round with only 2 samples grows as Reno on its closing ACK (cwnd 50: +1/50).
    #[test]
    fn too_few_samples_fall_back_to_reno() {
        let (mut v, mut f) = with_base_100ms();
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        round(&mut v, &mut f, &mut w, &[150], 150);
        assert!((w.cwnd - 50.02).abs() < 1e-12);
    }

    /// A loss halves as Reno and suspends Vegas: ACKs grow as Reno until recovery ends.
    #[test]
    fn losses_are_reno_and_suspend_vegas_until_recovery_ends() {
        let (mut v, mut f) = with_base_100ms();
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        v.on_congestion(&congestion(CongestionKind::Loss, 50.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 25.0, ssthresh: 25.0 });
        let a = f.ack_rtt(90, false);
        v.on_ack_in_recovery(&a);
        assert_eq!(a.delay.base + RTT_OFFSET, 90 * MS + RTT_OFFSET, "recovery samples lower the base");
        v.on_recovery_exit(0, &mut w);
        round(&mut v, &mut f, &mut w, &[92, 93], 93);
        // diff = floor(25 * 2 / 90.001) = 0 < 2: +1.
        assert_eq!(w.cwnd, 26.0);
        // Timeout: Reno until the next round starts, then Vegas again.
        v.on_congestion(&congestion(CongestionKind::Timeout, 26.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 13.0 });
        v.on_ack(&f.ack_rtt(200, false), &mut w);
        assert_eq!(w.cwnd, 2.0);
        v.on_ack(&f.ack_rtt(200, true), &mut w);
        assert_eq!((w.cwnd, v.mode), (3.0, Mode::On));
    }
}
