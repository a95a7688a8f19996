//! CUBIC (RFC 9438; Ha, Rhee, Xu, "CUBIC: A New TCP-Friendly High-Speed TCP Variant", ACM SIGOPS
//! OSR 42(5), 2008; Linux `net/ipv4/tcp_cubic.c`).
//!
//! The window is a cubic function of the time since the last congestion event, with its plateau
//! at the window W_max where that event happened: W(t) = C (t - K)^3 + W_max, K the time to climb
//! back to W_max (RFC 9438 eq. 1-2). Concave below W_max, convex above. A loss keeps beta = 0.7 of
//! the window. An estimate W_est of what Reno would have (AIMD with alpha = 3(1-beta)/(1+beta),
//! RFC 9438 eq. 4) puts a floor under the window: the Reno-friendly region.
//!
//! Choices where sources differ (Linux by default, RFC 9438 with `rfc9438 = true`):
//! * Linux steers cwnd toward W_est at (W_est - cwnd) per RTT; RFC 9438 section 4.3 sets
//!   cwnd = W_est whenever W(t) < W_est, and raises W_est's alpha to 1 once W_est passes the
//!   window before the last reduction (cwnd_prior).
//! * Linux aims one *minimum* RTT ahead, W(t + min RTT), ignoring RTT samples in the first second
//!   of an avoidance stage; RFC 9438 section 4.4 aims at W(t + srtt) and caps the target at
//!   1.5 cwnd.
//! * Linux lets the window grow at most one segment per 2 acknowledged (the same 1.5x per RTT as
//!   the RFC's cap) and, before the first loss or after a timeout, at least 5% per RTT.
//! * Fast convergence (RFC 9438 section 4.7, Linux `fast_convergence`): a loss below the previous
//!   W_max remembers W_max = cwnd (1 + beta) / 2.
//! * A timeout forgets W_max (Linux resets on entering Loss; RFC 9438 section 4.8 starts the next
//!   avoidance stage with K = 0 and W_max = cwnd): the same curve.
//! * C = 0.4 and beta = 0.7 as RFC 9438; Linux's fixed point gives 0.4004 and 0.7002.
//! * HyStart (Linux's, see [`super::common::hystart`]) is on by default under the `linux` stack
//!   profile, as in Linux (`hystart = 1`), and off under `ns2` and `rfc`: ns-2-era comparisons
//!   used plain slow start, and it is a slow-start exit rather than part of the window law
//!   ([`PROFILE_DEFAULTS`]). An explicit `hystart` wins under any profile. RFC 9438 recommends
//!   HyStart++ (RFC 9406), not modelled.
//!
//! Not modelled: time spent application-limited is not taken out of t (RFC 9438 section 5.8;
//! Linux shifts the epoch on `CA_EVENT_TX_START`): ccsim's transfers never go idle mid-flow.
//!
//! `linux26 = true`: CUBIC 2.1, Linux 2.6.22's `tcp_cubic.c` (as ns-2's TCP-Linux runs it). The
//! curve, K, the target one minimum RTT ahead and the Reno steering are as above; the module
//! differs in:
//! * beta = 819/1024 (0.7998; `beta` defaults to it), so fast convergence remembers 0.8999 cwnd;
//! * one unit per ACK: each ACK in avoidance moves a counter and the ACK that finds it at cnt or
//!   more adds a segment, so one segment per cnt + 1 ACKs whatever they acknowledge; the count is
//!   first divided by BIC's smoothed segments-per-ACK ratio (sixteenths, from 2; a timeout resets
//!   it), which makes up for delayed ACKs; at least 1 (current Linux: at least 2, no ratio);
//! * slow start while cwnd <= ssthresh, one segment per ACK, and no HyStart (it came with CUBIC
//!   2.3): `hystart` is ignored, and so is `rfc9438`;
//! * before the first loss (and after a timeout) the count is 50, not at most 20;
//! * at or past the plateau (t >= K) the growth is capped at max_increment = 16 segments per
//!   100 ms of minimum RTT: cnt >= cwnd 0.1 s / (16 min RTT);
//! * the Reno estimate counts ACKs: one segment per cwnd 23/8 ACKs, 23 being Linux's integer
//!   8 (1024 + 819) / 3 / (1024 - 819) (current Linux: alpha 0.53 per acknowledged segment);
//! * the minimum RTT is taken from the timestamp echo on ACKs outside recovery only.
//!
//! Not modelled: Linux 2.6's jiffies (1 ms) resolution of the time and the minimum RTT.

use super::common::hystart::HyStart;
use super::common::{ca_rtt, grow, grow_2_6, in_slow_start, increase_per, increase_per_ack_2_6, reduce_to};
use super::params::{ParamInfo, ParamKind, Params, ProfileDefault};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::units::{secs, Dur, Time, NS_PER_S};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "c",
        kind: ParamKind::Float,
        default: 0.4,
        min: 1e-3,
        max: 100.0,
        doc: "cubic scaling constant C, segments/s^3 (RFC 9438: 0.4; Linux bic_scale 41 = 0.4004)",
    },
    ParamInfo {
        name: "beta",
        kind: ParamKind::Float,
        default: 0.7,
        min: 0.1,
        max: 0.99,
        doc: "fraction of the window kept after a congestion event (RFC 9438: 0.7)",
    },
    ParamInfo {
        name: "fast_convergence",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "after a loss below the previous W_max, remember W_max = cwnd (1 + beta) / 2 (RFC 9438 \
              section 4.7)",
    },
    ParamInfo {
        name: "tcp_friendliness",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "keep the window at least at the Reno estimate W_est (the Reno-friendly region)",
    },
    ParamInfo {
        name: "rfc9438",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "RFC 9438 rules instead of Linux's: jump to W_est, alpha -> 1 past cwnd_prior, target \
              W(t + srtt) capped at 1.5 cwnd",
    },
    ParamInfo {
        name: "hystart",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "leave slow start on Linux's HyStart signals (ACK train, delay increase); off = plain \
              slow start. Default by profile: true under linux and linux-sack (as Linux), false under ns2 and rfc",
    },
    ParamInfo {
        name: "hystart_low_window",
        kind: ParamKind::Float,
        default: 16.0,
        min: 0.0,
        max: 1e9,
        doc: "HyStart runs only from this window up, segments (Linux 16)",
    },
    ParamInfo {
        name: "linux26",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "CUBIC 2.1, Linux 2.6.22's tcp_cubic.c as ns-2's TCP-Linux runs it: beta 819/1024 unless \
              set, one unit per ACK (cnt + 1 ACKs per segment, count divided by the segments-per-ACK \
              ratio), slow start while cwnd <= ssthresh without HyStart, count 50 before the first \
              loss, at most 16 segments per 100 ms of min RTT past the plateau",
    },
];

/// Linux 2.6.22 (`linux26`): beta = 819/1024.
const BETA_2_6: f64 = 819.0 / 1024.0;
/// Linux 2.6.22: before the first loss the count is exactly this.
const NO_LOSS_CNT_2_6: f64 = 50.0;
/// Linux 2.6.22 `max_increment`: past the plateau at most this many segments per 100 ms of
/// minimum RTT.
const MAX_INCREMENT_2_6: f64 = 16.0;
/// Linux 2.6.22 keeps the segments-per-ACK ratio in sixteenths, starting at 2 (as BIC).
const ACK_RATIO_SHIFT: u32 = 4;
const INITIAL_DELAYED_ACK: u32 = 2 << ACK_RATIO_SHIFT;

/// HyStart is on under the `linux` and `linux-sack` profiles, as Linux enables it by default (`tcp_cubic.c`
/// `hystart = 1`); the parameter's own default (off) holds under `ns2` and `rfc`.
pub const PROFILE_DEFAULTS: &[ProfileDefault] = &[
    ProfileDefault { param: "hystart", profile: crate::profile::Profile::Linux, value: 1.0 },
    ProfileDefault { param: "hystart", profile: crate::profile::Profile::LinuxSack, value: 1.0 },
];

/// Linux: before the first loss, at least one segment per 20 acknowledged (5% per RTT).
const NO_LOSS_MAX_CNT: f64 = 20.0;
/// Linux: at most one segment per 2 acknowledged, i.e. 1.5x per RTT (`cnt >= 2`).
const MIN_CNT: f64 = 2.0;
/// Linux: without a target above cwnd, creep at one segment per 100 windows acknowledged.
const FLAT_CNT_FACTOR: f64 = 100.0;
/// RFC 9438 section 4.4: the target is at most 1.5 cwnd.
const MAX_TARGET_RATIO: f64 = 1.5;
/// Linux ignores RTT samples for this long after an avoidance stage begins, i.e. just after a
/// recovery, when the queue it built is still draining.
const MIN_RTT_QUIET: Dur = NS_PER_S;
/// Linux 2.6.22: `max_increment` is per 100 ms of minimum RTT.
const RTT_REF_2_6: f64 = 0.1;

/// One avoidance stage, from the first ACK after a reduction (or slow start) to the next event.
#[derive(Clone, Debug)]
struct Epoch {
    start: Time,
    /// Seconds from the start to the plateau.
    k: f64,
    /// The plateau: W_max, or the window at the start if that is already above W_max.
    origin: f64,
    /// Reno's window estimate, and RFC 9438's alpha for it.
    w_est: f64,
    alpha: f64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    tcp_friendliness: bool,
    rfc9438: bool,
    hystart: Option<HyStart>,
    /// Window at the last congestion event after fast convergence (`last_max_cwnd`); 0 = none.
    w_max: f64,
    /// Window just before the last reduction (RFC 9438 cwnd_prior).
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// Smallest RTT sample (Linux `delay_min`).
    delay_min: Option<Dur>,
    /// CUBIC 2.1 of Linux 2.6.22 (see the module header).
    linux26: bool,
    /// Linux 2.6: smoothed segments per ACK in sixteenths (`delayed_ack`).
    delayed_ack: u32,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            tcp_friendliness: true,
            rfc9438: false,
            hystart: None,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            delay_min: None,
            linux26: false,
            delayed_ack: INITIAL_DELAYED_ACK,
        }
    }
}

impl Cubic {
    pub fn from_params(p: &Params) -> Self {
        let linux26 = p.flag("linux26");
        let beta = match p.explicit("beta") {
            Some(b) => b,
            None if linux26 => BETA_2_6,
            None => p.get("beta"),
        };
        Cubic {
            c: p.get("c"),
            beta,
            fast_convergence: p.flag("fast_convergence"),
            tcp_friendliness: p.flag("tcp_friendliness"),
            rfc9438: p.flag("rfc9438"),
            hystart: (p.flag("hystart") && !linux26).then(|| HyStart::new(p.get("hystart_low_window"))),
            linux26,
            ..Default::default()
        }
    }

    /// CUBIC 2.1 as Linux 2.6.22 has it, with its defaults.
    pub fn linux26() -> Self {
        Cubic { beta: BETA_2_6, linux26: true, ..Default::default() }
    }

    /// Linux 2.6.22's Reno estimate: one segment per cwnd beta_scale/8 ACKs, with the integer
    /// beta_scale = 8 (1024 + b) / 3 / (1024 - b), b = 1024 beta (23 for 819).
    fn alpha_2_6(&self) -> f64 {
        let b = self.beta * 1024.0;
        let beta_scale = ((8.0 * (1024.0 + b) / 3.0).floor() / (1024.0 - b)).floor().max(1.0);
        8.0 / beta_scale
    }

    /// Linux 2.6 `bictcp_acked`: d = d + acked - d/16, in integers.
    fn track_ack_ratio(&mut self, acked: f64) {
        let acked = acked.max(0.0).min(u32::MAX as f64) as u32;
        self.delayed_ack = self.delayed_ack.saturating_add(acked) - (self.delayed_ack >> ACK_RATIO_SHIFT);
    }

    /// The smoothed segments-per-ACK ratio in sixteenths (Linux 2.6 `delayed_ack`).
    pub fn delayed_ack(&self) -> u32 {
        self.delayed_ack
    }

    /// Linux 2.6.22 `measure_delay`: the timestamp echo's RTT, not in the first second of an
    /// avoidance stage.
    fn track_min_rtt_2_6(&mut self, ack: &AckSample) {
        if self.epoch.as_ref().is_some_and(|e| ack.now.saturating_sub(e.start) < MIN_RTT_QUIET) {
            return;
        }
        let rtt = ack.now.saturating_sub(ack.echoed_ts).max(1);
        self.delay_min = Some(self.delay_min.map_or(rtt, |d| d.min(rtt)));
    }

    /// Linux 2.6.22 `bictcp_update` and the counter of `bictcp_cong_avoid`, for one ACK.
    fn avoid_2_6(&mut self, now: Time, w: &mut Window) {
        let cwnd = w.cwnd;
        if self.epoch.is_none() {
            self.epoch = Some(self.begin_epoch(now, cwnd));
        }
        let alpha = self.alpha_2_6();
        let e = self.epoch.as_mut().expect("set above");
        e.w_est += alpha / cwnd;
        let e = self.epoch.as_ref().expect("set above");
        let t = secs(now - e.start) + secs(self.delay_min.unwrap_or(0));
        let target = self.w_cubic(e, t);
        let mut cnt = if target > cwnd { cwnd / (target - cwnd) } else { FLAT_CNT_FACTOR * cwnd };
        if let Some(d) = self.delay_min.filter(|_| t >= e.k) {
            cnt = cnt.max(cwnd * RTT_REF_2_6 / (MAX_INCREMENT_2_6 * secs(d)));
        }
        if self.w_max == 0.0 {
            cnt = NO_LOSS_CNT_2_6;
        }
        if self.tcp_friendliness && e.w_est > cwnd {
            cnt = cnt.min(cwnd / (e.w_est - cwnd));
        }
        let cnt = cnt * f64::from(1u32 << ACK_RATIO_SHIFT) / f64::from(self.delayed_ack.max(1));
        increase_per_ack_2_6(w, cnt.max(1.0));
    }

    /// Reno's additive increase for the same average window at this beta (RFC 9438 eq. 4).
    fn alpha_aimd(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// W(t) = C (t - K)^3 + origin, t in seconds since the epoch began (RFC 9438 eq. 1).
    fn w_cubic(&self, e: &Epoch, t: f64) -> f64 {
        self.c * (t - e.k).powi(3) + e.origin
    }

    fn begin_epoch(&mut self, now: Time, cwnd: f64) -> Epoch {
        // RFC 9438 eq. 2 / Linux: K = cbrt((W_max - cwnd) / C) when below the old maximum; a
        // window already above it (no loss yet, after a timeout or HyStart) starts at the plateau.
        let (k, origin) =
            if self.w_max > cwnd { (crate::math::cbrt((self.w_max - cwnd) / self.c), self.w_max) } else { (0.0, cwnd) };
        let alpha = if self.rfc9438 && cwnd >= self.cwnd_prior { 1.0 } else { self.alpha_aimd() };
        Epoch { start: now, k, origin, w_est: cwnd, alpha }
    }

    fn track_min_rtt(&mut self, ack: &AckSample) {
        let quiet = self.epoch.as_ref().is_some_and(|e| ack.now.saturating_sub(e.start) < MIN_RTT_QUIET);
        if quiet && !self.rfc9438 {
            return;
        }
        let rtt = ca_rtt(ack);
        if rtt > 0 {
            self.delay_min = Some(self.delay_min.map_or(rtt, |d| d.min(rtt)));
        }
    }

    fn hystart_step(&mut self, ack: &AckSample, w: &mut Window) {
        let (Some(h), Some(min_rtt)) = (self.hystart.as_mut(), self.delay_min) else { return };
        if !in_slow_start(w) {
            return;
        }
        if ack.round_start {
            h.start_round(ack.now);
        }
        if h.on_ack(ack.now, w.cwnd, ca_rtt(ack), min_rtt) {
            w.ssthresh = w.cwnd;
            self.cwnd_prior = w.cwnd;
        }
    }

    /// Congestion avoidance for `units` acknowledged segments.
    fn avoid(&mut self, now: Time, srtt: Dur, w: &mut Window, units: f64) {
        if self.epoch.is_none() {
            self.epoch = Some(self.begin_epoch(now, w.cwnd));
        }
        let mut e = self.epoch.take().expect("set above");
        e.w_est += e.alpha * units / w.cwnd;
        if self.rfc9438 {
            self.avoid_rfc(&mut e, now, srtt, w, units);
        } else {
            self.avoid_linux(&e, now, w, units);
        }
        self.epoch = Some(e);
    }

    /// Linux: one segment per `cnt` acknowledged, cnt chosen so the window reaches the target
    /// W(t + min RTT) in one RTT, or W_est if that is higher.
    fn avoid_linux(&self, e: &Epoch, now: Time, w: &mut Window, units: f64) {
        let cwnd = w.cwnd;
        let t = secs(now - e.start) + secs(self.delay_min.unwrap_or(0));
        let target = self.w_cubic(e, t);
        let mut cnt = if target > cwnd { cwnd / (target - cwnd) } else { FLAT_CNT_FACTOR * cwnd };
        if self.w_max == 0.0 {
            cnt = cnt.min(NO_LOSS_MAX_CNT);
        }
        if self.tcp_friendliness && e.w_est > cwnd {
            cnt = cnt.min(cwnd / (e.w_est - cwnd));
        }
        increase_per(w, cnt.max(MIN_CNT), units);
    }

    /// RFC 9438 sections 4.2-4.4.
    fn avoid_rfc(&self, e: &mut Epoch, now: Time, srtt: Dur, w: &mut Window, units: f64) {
        if e.w_est >= self.cwnd_prior {
            e.alpha = 1.0;
        }
        let t = secs(now - e.start);
        if self.tcp_friendliness && self.w_cubic(e, t) < e.w_est {
            w.cwnd = w.cwnd.max(e.w_est);
            return;
        }
        let target = self.w_cubic(e, t + secs(srtt)).clamp(w.cwnd, MAX_TARGET_RATIO * w.cwnd);
        w.cwnd += (target - w.cwnd) / w.cwnd * units;
    }

    /// The curve of the current avoidance stage at `t` seconds into it, if one is under way.
    pub fn curve_at(&self, t: f64) -> Option<f64> {
        self.epoch.as_ref().map(|e| self.w_cubic(e, t))
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Reno's window estimate in the current stage.
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.as_ref().map(|e| e.w_est)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        if self.linux26 {
            // Linux 2.6.22: `pkts_acked` (the ratio), then `cong_avoid` (delay, growth).
            self.track_ack_ratio(ack.acked);
            self.track_min_rtt_2_6(ack);
            let now = ack.now;
            grow_2_6(ack, w, |w| self.avoid_2_6(now, w));
            return;
        }
        self.track_min_rtt(ack);
        self.hystart_step(ack, w);
        let (now, srtt) = (ack.now, ack.srtt);
        grow(ack, w, |w, units| self.avoid(now, srtt, w, units));
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        // Linux takes delay samples in every state (`cubictcp_acked`); 2.6.22 only in
        // `cong_avoid`, which recovery does not call.
        if !self.linux26 {
            self.track_min_rtt(ack);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        let cwnd = w.cwnd;
        self.epoch = None;
        if ev.kind != CongestionKind::Timeout || ev.first_timeout {
            self.w_max = if self.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.beta) / 2.0 } else { cwnd };
            self.cwnd_prior = cwnd;
        }
        reduce_to(ev, w, ev.basis * self.beta);
        if ev.kind == CongestionKind::Timeout {
            // Linux `bictcp_reset` on entering Loss; RFC 9438 section 4.8.
            self.w_max = 0.0;
            self.delay_min = None;
            self.delayed_ack = INITIAL_DELAYED_ACK;
            if let Some(h) = self.hystart.as_mut() {
                h.reset();
            }
        }
    }

    /// `w_max`: the plateau W_max, segments (NaN before the first loss and after a timeout);
    /// `k`: seconds from the start of the current avoidance stage to the plateau (NaN outside
    /// one).
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("w_max", if self.w_max > 0.0 { self.w_max } else { f64::NAN });
        out("k", self.epoch.as_ref().map_or(f64::NAN, |e| e.k));
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::*;
    use crate::units::NS_PER_MS;

    const MS: u64 = NS_PER_MS;

    /// An ACK for one segment at `now` with an RTT of `rtt`.
    fn ack_at(now: Time, rtt: Dur) -> AckSample {
        let mut a = ack(1.0);
        a.now = now;
        a.echoed_ts = now - rtt;
        a.rtt = Some(rtt);
        a.srtt = rtt;
        a.min_rtt = rtt;
        a
    }

    /// Run ACK-clocked rounds at a fixed RTT from `start` to `until`: each round delivers as many
    /// one-segment ACKs as the window held, evenly spread. Returns (time, cwnd) after each round.
    fn drive(cc: &mut Cubic, w: &mut Window, start: Time, until: Time, rtt: Dur) -> Vec<(f64, f64)> {
        let mut t = start;
        let mut out = Vec::new();
        while t < until {
            let n = w.cwnd.floor() as u64;
            for i in 1..=n {
                cc.on_ack(&ack_at(t + rtt * i / n, rtt), w);
            }
            t += rtt;
            out.push((secs(t), w.cwnd));
        }
        out
    }

    /// Put the flow in avoidance at 100 segments with a 100 ms minimum RTT learned at t = 0,
    /// then lose at t = 1 s: W_max = 100 (first loss, no fast convergence), cwnd = ssthresh = 70.
    fn after_loss_at_100(rfc9438: bool) -> (Cubic, Window) {
        let mut cc = Cubic { rfc9438, ..Default::default() };
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        cc.track_min_rtt(&ack_at(100 * MS, 100 * MS));
        cc.on_congestion(&congestion(CongestionKind::Loss, 100.0, false), &mut w);
        assert_eq!((cc.w_max(), w.cwnd, w.ssthresh), (100.0, 70.0, 70.0));
        (cc, w)
    }

    /// First avoidance ACK at t0 = 2 s. K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.217163 s.
    /// Linux targets W(0 + 0.1 s) = 100 + 0.4 (0.1 - 4.217163)^3 = 100 - 0.4 * 69.79017 =
    /// 72.08393, so cnt = 70 / 2.08393 = 33.5904 and the ACK adds 1/33.5904 = 0.0297704:
    /// cwnd 70.0297704.
    /// W_est = 70 + 0.529412/70 = 70.00756 stays below cwnd: no Reno-friendly effect.
    #[test]
    fn the_first_avoidance_ack_aims_at_the_curve_one_min_rtt_ahead() {
        let (mut cc, mut w) = after_loss_at_100(false);
        cc.on_ack(&ack_at(2 * NS_PER_S, 100 * MS), &mut w);
        assert!((cc.curve_at(0.0).unwrap() - 70.0).abs() < 1e-9, "W(0) = W_max - C K^3 = 70");
        assert!((cc.curve_at(0.1).unwrap() - 72.08393).abs() < 1e-4);
        assert!((w.cwnd - 70.0297704).abs() < 1e-6, "{}", w.cwnd);
        assert!((cc.w_est().unwrap() - (70.0 + 0.5294118 / 70.0)).abs() < 1e-6);
    }

    /// Oracle (CUBIC's window curve): at RTT 100 ms the window after the loss follows
    /// W(t) = 0.4 (t - 4.217)^3 + 100: W(1) = 100 - 0.4 * 3.217^3 = 86.68, W(2) = 95.64,
    /// W(K) = 100, W(K + 2) = 103.2, W(K + 3) = 110.8, as long as it is above Reno's estimate.
    /// That grows alpha = 0.5294 per RTT from 70: 70 + 5.294 t, only 92.3 at K. Linux keeps that
    /// alpha (at K + 3: 108.2 < 110.8, the curve still governs); RFC 9438 switches to alpha = 1
    /// once the estimate passes cwnd_prior = 100, at t = 30 / 5.294 = 5.667 s, after which it is
    /// 100 + 10 (t - 5.667): 105.5 at K + 2 and 115.5 at K + 3, above the curve: there the RFC
    /// window follows the estimate (Reno-friendly region). ACK clocking lags the target by up to
    /// an RTT, so the window is compared within the increase of one RTT (slope/10) + 0.6.
    #[test]
    fn the_window_follows_the_cubic_curve_after_a_loss() {
        let k = 75f64.cbrt();
        let alpha = 3.0 * 0.3 / 1.7;
        for rfc in [false, true] {
            let (mut cc, mut w) = after_loss_at_100(rfc);
            let t0 = 2 * NS_PER_S;
            let trace = drive(&mut cc, &mut w, t0, t0 + 8 * NS_PER_S, 100 * MS);
            for t in [1.0, 2.0, k, k + 2.0, k + 3.0] {
                let (_, cwnd) = *trace.iter().find(|(s, _)| *s - 2.0 >= t - 1e-9).unwrap();
                let curve = 0.4 * (t - k).powi(3) + 100.0;
                let reach_prior = 30.0 / (alpha * 10.0);
                let reno =
                    if rfc && t > reach_prior { 100.0 + 10.0 * (t - reach_prior) } else { 70.0 + alpha * 10.0 * t };
                let expect = curve.max(reno);
                let slope = if reno > curve { 10.0 } else { 1.2 * (t - k).powi(2) };
                let tol = 0.1 * slope + 0.6;
                assert!((cwnd - expect).abs() <= tol, "rfc={rfc} t={t:.2}: cwnd {cwnd:.2} vs {expect:.2}");
            }
        }
    }

    /// At a 10 ms RTT, Reno's estimate (0.53 per RTT = 53 segments/s) outruns the curve, which
    /// needs 4.2 s to get back to 100: the window follows W_est, the Reno-friendly region.
    /// RFC 9438: W_est = 70 + 0.529412 n/cwnd per ACK, so after 2 s (200 rounds) it reaches
    /// about 70 + 0.53 * 200 = 176 (alpha turns 1 past cwnd_prior = 100: faster still), while
    /// W(2 s) = 95.6. Linux steers toward W_est, so it stays close behind.
    #[test]
    fn at_short_rtts_the_reno_estimate_governs() {
        for rfc in [false, true] {
            let mut cc = Cubic { rfc9438: rfc, ..Default::default() };
            let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
            cc.track_min_rtt(&ack_at(10 * MS, 10 * MS));
            cc.on_congestion(&congestion(CongestionKind::Loss, 100.0, false), &mut w);
            let trace = drive(&mut cc, &mut w, NS_PER_S, 3 * NS_PER_S, 10 * MS);
            let w_est = cc.w_est().unwrap();
            let cwnd = trace.last().unwrap().1;
            assert!(w_est > 150.0, "rfc={rfc}: W_est {w_est}");
            assert!(cwnd > 0.97 * w_est && cwnd <= w_est + 1.0, "rfc={rfc}: cwnd {cwnd} vs W_est {w_est}");
            // The cubic curve alone would be at 95.6.
            assert!(cwnd > 140.0);
        }
    }

    /// RFC 9438, hand trace of the jump to W_est: the first ACK of the stage at t = 0 sees
    /// W(0) = 70 < W_est = 70 + 0.529412/70 = 70.007563, so cwnd = 70.007563.
    #[test]
    fn rfc_mode_sets_cwnd_to_w_est_in_the_reno_friendly_region() {
        let (mut cc, mut w) = after_loss_at_100(true);
        cc.on_ack(&ack_at(2 * NS_PER_S, 100 * MS), &mut w);
        assert!((w.cwnd - 70.007563).abs() < 1e-6, "{}", w.cwnd);
    }

    /// Fast convergence: a loss at 80 below W_max = 100 remembers 80 * 1.7 / 2 = 68; ssthresh is
    /// 0.7 * 80 = 56. A timeout then sets ssthresh 0.7 * 56 = 39.2, cwnd 1, and forgets W_max,
    /// so the next stage starts on its plateau (K = 0) with the 5%-per-RTT floor: cnt =
    /// min(100 * cwnd, 20) = 20 at the start.
    #[test]
    fn fast_convergence_and_timeouts() {
        let mut cc = Cubic { w_max: 100.0, ..Default::default() };
        let mut w = Window { cwnd: 80.0, ssthresh: 50.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 80.0, false), &mut w);
        assert!((cc.w_max() - 68.0).abs() < 1e-12 && (w.cwnd - 56.0).abs() < 1e-12);
        cc.on_congestion(&congestion(CongestionKind::Timeout, 56.0, true), &mut w);
        assert_eq!(w.cwnd, 1.0);
        assert!((w.ssthresh - 39.2).abs() < 1e-12);
        assert_eq!(cc.w_max(), 0.0);
        let mut w = Window { cwnd: 40.0, ssthresh: 39.2 };
        cc.on_ack(&ack_at(5 * NS_PER_S, 100 * MS), &mut w);
        assert!((w.cwnd - 40.05).abs() < 1e-12, "{}", w.cwnd);
    }

    /// HyStart on: a train of ACKs 1 ms apart for more than half the 40 ms minimum RTT ends slow
    /// start with ssthresh = cwnd; plain CUBIC keeps doubling.
    #[test]
    fn hystart_option_ends_slow_start_on_an_ack_train() {
        for (hystart, exits) in [(true, true), (false, false)] {
            let mut cc = Cubic { hystart: hystart.then(|| HyStart::new(16.0)), ..Default::default() };
            let mut w = Window { cwnd: 32.0, ssthresh: f64::INFINITY };
            let base = NS_PER_S;
            for i in 0..=30u64 {
                let mut a = ack_at(base + i * MS, 40 * MS);
                a.round_start = i == 0;
                cc.on_ack(&a, &mut w);
            }
            assert_eq!(w.ssthresh.is_finite(), exits, "hystart={hystart}: {w:?}");
            if exits {
                // The 21 ACKs of 0..20 ms take slow start from 32 to 53; the ACK at 21 ms (21 ms
                // > 40/2) detects the train and sets ssthresh = 53.
                assert_eq!(w.ssthresh, 53.0);
            }
        }
    }

    /// A delayed ACK for two segments at `now` with an RTT of `rtt`.
    fn ack2_at(now: Time, rtt: Dur) -> AckSample {
        let mut a = ack_at(now, rtt);
        (a.acked, a.increase_units) = (2.0, 2.0);
        a
    }

    /// CUBIC 2.1 (`linux26`) keeps beta = 819/1024: a loss at 100 sets ssthresh = cwnd =
    /// 79.980469 and W_max = 100; a loss at 80 below it remembers 80 (1 + 0.7998047) / 2 =
    /// 71.992188 with ssthresh 63.984375. Built from parameters, beta defaults to 819/1024 with
    /// `linux26` and an explicit beta wins. A timeout resets the segments-per-ACK ratio to 2.
    #[test]
    fn linux26_keeps_beta_819_over_1024() {
        let mut cc = Cubic::linux26();
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 100.0, false), &mut w);
        assert_eq!((cc.w_max(), w.cwnd, w.ssthresh), (100.0, 79.98046875, 79.98046875));
        let mut w = Window { cwnd: 80.0, ssthresh: 50.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 80.0, false), &mut w);
        assert_eq!((cc.w_max(), w.cwnd), (71.9921875, 63.984375));
        use crate::cc::registry::build;
        use std::collections::BTreeMap;
        let rng = || crate::rng::stream(1, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion);
        for (values, keep) in [
            (BTreeMap::from([("linux26".to_string(), 1.0)]), 79.98046875),
            (BTreeMap::from([("linux26".to_string(), 1.0), ("beta".to_string(), 0.7)]), 70.0),
            (BTreeMap::new(), 70.0),
        ] {
            let mut built = build("cubic", &values, rng()).unwrap();
            let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
            built.on_congestion(&congestion(CongestionKind::Loss, 100.0, false), &mut w);
            assert!((w.cwnd - keep).abs() < 1e-12, "{values:?}: {}", w.cwnd);
        }
        cc.delayed_ack = 20;
        cc.on_congestion(&congestion(CongestionKind::Timeout, 63.0, true), &mut w);
        assert_eq!(cc.delayed_ack(), 32);
    }

    /// CUBIC 2.1 (`linux26`) counts ACKs. After the loss at 100 above (cwnd = ssthresh =
    /// 79.980469, min RTT 100 ms) the first ACK, at 2 s, finds cwnd <= ssthresh: slow start,
    /// 80.980469. The next, 1 ms later and for 2 segments, starts the stage and keeps the ratio at
    /// d = 32 + 2 - 2 = 32; K = cbrt((100 - 80.980469) / 0.4) = 3.622819 s, the target
    /// W(0.1 s) = 100 + 0.4 (0.1 - 3.622819)^3 = 82.512373, cnt = 80.980469 / 1.531904 =
    /// 52.862625, over the ratio 32/16: 26.431312; a segment takes cnt + 1 ACKs, so the ACK adds
    /// 1/27.431312 = 0.0364547: cwnd 81.016923. (The default adds both segments: 2/cnt.)
    #[test]
    fn linux26_counts_acks_against_the_count_over_the_ratio_plus_one() {
        let mut cc = Cubic::linux26();
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        cc.track_min_rtt_2_6(&ack_at(100 * MS, 100 * MS));
        cc.on_congestion(&congestion(CongestionKind::Loss, 100.0, false), &mut w);
        cc.on_ack(&ack2_at(2 * NS_PER_S, 100 * MS), &mut w);
        assert_eq!(w.cwnd, 80.98046875);
        cc.on_ack(&ack2_at(2 * NS_PER_S + MS, 100 * MS), &mut w);
        assert_eq!(cc.delayed_ack(), 32);
        assert!((w.cwnd - 81.0169234).abs() < 1e-6, "{}", w.cwnd);
    }

    /// CUBIC 2.1 (`linux26`) lets the count go down to 1 (current Linux: 2). W_max = 1000, a stage
    /// starting at cwnd 100 (K = cbrt(900 / 0.4) = 13.1037 s): 13 s in, the target is 999.9996,
    /// cnt = 100 / 899.9996 = 0.111, over the ratio 2: 0.056, raised to 1, so an ACK adds
    /// 1/(1 + 1) = 0.5 segment. The default's floor of 2 lets an ACK of 2 segments add 1.
    #[test]
    fn linux26_the_count_is_at_least_one() {
        let mut cc = Cubic { w_max: 1000.0, ..Cubic::linux26() };
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        cc.on_ack(&ack2_at(5 * NS_PER_S, 100 * MS), &mut w);
        let before = w.cwnd;
        cc.on_ack(&ack2_at(18 * NS_PER_S, 100 * MS), &mut w);
        assert_eq!(w.cwnd - before, 0.5);
        let mut modern = Cubic { w_max: 1000.0, ..Default::default() };
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        modern.on_ack(&ack2_at(5 * NS_PER_S, 100 * MS), &mut w);
        let before = w.cwnd;
        modern.on_ack(&ack2_at(18 * NS_PER_S, 100 * MS), &mut w);
        assert!((w.cwnd - before - 1.0).abs() < 1e-12, "{}", w.cwnd - before);
    }

    /// CUBIC 2.1 (`linux26`) before the first loss: the count is 50 (current Linux: at most 20).
    /// A fresh flow at cwnd 100 in avoidance, ACK of 2 segments: cnt = 50 / 2 (ratio) = 25, the
    /// ACK adds 1/26 = 0.0384615; the default adds 2/20 = 0.1. The Reno estimate counts the ACK,
    /// not its segments: + (8/23)/100 = 0.0034783 (23 = Linux's integer 8 (1024 + 819) / 3 /
    /// (1024 - 819)); the default adds 0.5294118 * 2/100 = 0.0105882.
    #[test]
    fn linux26_before_the_first_loss_the_count_is_fifty_and_the_reno_estimate_counts_acks() {
        let mut cc = Cubic::linux26();
        assert_eq!(cc.alpha_2_6(), 8.0 / 23.0);
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        cc.on_ack(&ack2_at(5 * NS_PER_S, 100 * MS), &mut w);
        assert!((w.cwnd - (100.0 + 1.0 / 26.0)).abs() < 1e-12, "{}", w.cwnd);
        assert!((cc.w_est().unwrap() - 100.0034783).abs() < 1e-7);
        let mut modern = Cubic::default();
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        modern.on_ack(&ack2_at(5 * NS_PER_S, 100 * MS), &mut w);
        assert!((w.cwnd - 100.1).abs() < 1e-12, "{}", w.cwnd);
        assert!((modern.w_est().unwrap() - 100.0105882).abs() < 1e-7);
    }

    /// CUBIC 2.1 (`linux26`) past the plateau grows at most 16 segments per 100 ms of minimum
    /// RTT. W_max = 100, cwnd 100, min RTT 10 ms: the stage starts on its plateau (K = 0). Two s
    /// later the target W(2.01 s) = 100 + 0.4 * 2.01^3 = 103.248240 asks for cnt = 100 / 3.248240
    /// = 30.786, but t >= K caps it at cwnd 0.1 / (16 * 0.01) = 62.5 (1.6 segments per 10 ms
    /// RTT); over the ratio 2, 31.25, so the ACK adds 1/32.25 = 0.0310078 (uncapped it would add
    /// 1/16.39). On the stage's first ACK the target is flat (W(0.01 s) = 100.0000004) and the
    /// Reno estimate, 100 + (8/23)/100, steers: cnt = 100 / 0.0034783 = 28750, 14375 over the
    /// ratio, +1/14376.
    #[test]
    fn linux26_past_the_plateau_growth_is_capped_at_sixteen_per_hundred_ms() {
        let mut cc = Cubic { w_max: 100.0, delay_min: Some(10 * MS), ..Cubic::linux26() };
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        let t0 = 5 * NS_PER_S;
        cc.on_ack(&ack2_at(t0, 10 * MS), &mut w);
        assert!((w.cwnd - (100.0 + 1.0 / 14376.0)).abs() < 1e-9, "{}", w.cwnd);
        let before = w.cwnd;
        cc.on_ack(&ack2_at(t0 + 2 * NS_PER_S, 10 * MS), &mut w);
        let capped = before * 0.1 / (16.0 * 0.01) / 2.0;
        assert!((capped - 31.25).abs() < 1e-4);
        assert!((w.cwnd - (before + 1.0 / (capped + 1.0))).abs() < 1e-12, "{}", w.cwnd);
        assert!((w.cwnd - before - 0.0310078).abs() < 1e-7);
    }

    /// CUBIC 2.1 (`linux26`): slow start while cwnd <= ssthresh, one segment per ACK (at 40 =
    /// ssthresh an ACK of 2 segments makes 41), and no HyStart even under the `linux` profile
    /// (the ACK train that ends slow start at 53 above does not). The minimum RTT is the
    /// timestamp echo's (120 ms here, where Linux's newest-segment sample says 100 ms), and ACKs
    /// in recovery do not move it.
    #[test]
    fn linux26_slow_start_has_no_hystart_and_the_min_rtt_is_the_echo_outside_recovery() {
        let mut cc = Cubic::linux26();
        let mut w = Window { cwnd: 40.0, ssthresh: 40.0 };
        cc.on_ack(&ack2_at(5 * NS_PER_S, 100 * MS), &mut w);
        assert_eq!(w.cwnd, 41.0);
        use crate::cc::registry::build_for_profile;
        use crate::profile::Profile;
        use std::collections::BTreeMap;
        let rng = crate::rng::stream(1, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion);
        let values = BTreeMap::from([("linux26".to_string(), 1.0)]);
        let mut built = build_for_profile("cubic", &values, Profile::Linux, rng).unwrap();
        let mut w = Window { cwnd: 32.0, ssthresh: f64::INFINITY };
        for i in 0..=30u64 {
            let mut a = ack_at(NS_PER_S + i * MS, 40 * MS);
            a.round_start = i == 0;
            built.on_ack(&a, &mut w);
        }
        assert_eq!((w.cwnd, w.ssthresh), (63.0, f64::INFINITY));
        let mut cc = Cubic::linux26();
        let mut a = ack_at(5 * NS_PER_S, 120 * MS);
        a.ca_rtt = Some(100 * MS);
        cc.on_ack(&a, &mut Window { cwnd: 10.0, ssthresh: 5.0 });
        assert_eq!(cc.delay_min, Some(120 * MS));
        cc.on_ack_in_recovery(&ack_at(6 * NS_PER_S, 90 * MS));
        assert_eq!(cc.delay_min, Some(120 * MS));
        let mut modern = Cubic::default();
        modern.on_ack(&a, &mut Window { cwnd: 10.0, ssthresh: 5.0 });
        assert_eq!(modern.delay_min, Some(100 * MS));
    }

    /// HyStart's default follows the stack profile: built for `linux` the ACK train above ends
    /// slow start at 53; for `ns2` and `rfc` (and without a profile) it does not; an explicit
    /// `hystart = 0` under `linux` turns it off, and `hystart = 1` under `ns2` turns it on.
    #[test]
    fn hystart_is_on_by_default_only_under_the_linux_profile() {
        use crate::cc::registry::{build, build_for_profile};
        use crate::profile::Profile;
        use std::collections::BTreeMap;
        let rng = || crate::rng::stream(1, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion);
        let exit = |mut cc: Box<dyn CongestionControl>| {
            let mut w = Window { cwnd: 32.0, ssthresh: f64::INFINITY };
            for i in 0..=30u64 {
                let mut a = ack_at(NS_PER_S + i * MS, 40 * MS);
                a.round_start = i == 0;
                cc.on_ack(&a, &mut w);
            }
            w.ssthresh
        };
        let none = BTreeMap::new();
        let with = |v: f64| BTreeMap::from([("hystart".to_string(), v)]);
        assert_eq!(exit(build_for_profile("cubic", &none, Profile::Linux, rng()).unwrap()), 53.0);
        for profile in [Profile::Ns2, Profile::Rfc] {
            assert!(exit(build_for_profile("cubic", &none, profile, rng()).unwrap()).is_infinite(), "{profile:?}");
        }
        assert!(exit(build("cubic", &none, rng()).unwrap()).is_infinite());
        assert!(exit(build_for_profile("cubic", &with(0.0), Profile::Linux, rng()).unwrap()).is_infinite());
        assert_eq!(exit(build_for_profile("cubic", &with(1.0), Profile::Ns2, rng()).unwrap()), 53.0);
    }
}
