//! H-TCP (D. Leith, R. Shorten, "H-TCP: TCP for high-speed and long-distance networks", PFLDnet
//! 2004; draft-leith-tcp-htcp-06; Linux `net/ipv4/tcp_htcp.c`).
//!
//! AIMD whose increase depends on the time D since the last congestion event: Reno's one segment
//! per RTT for the first second, then alpha(D) = 1 + 10 (D - 1) + ((D - 1)/2)^2 segments per RTT.
//! The decrease adapts to the path, beta = RTT_min / RTT_max in [0.5, 0.8], so a flow that filled
//! the buffer backs off just enough to drain it; alpha is scaled by 2 (1 - beta) to stay fair to
//! Reno, and (RTT scaling) by RTT_min / 100 ms so flows with different RTTs grow alike per second.
//!
//! Choices where sources differ (Linux followed; FreeBSD turns RTT scaling and adaptive beta off):
//! * D counts from the flow's start (Linux `htcp_init`; here its first ACK, as the algorithm
//!   has no connection-start hook), then from the end of the last recovery (Linux resets its
//!   clock on entering and on leaving recovery). After a timeout D counts from the timeout:
//!   ccsim's sender has no "loss state over" event, and Linux's leaves it about when slow start
//!   is done.
//! * Linux's fixed point (`fixed_point = true`): the alpha factor is an integer,
//!   1 + floor(10 d + d^2/4), the RTT scale is an integer in eighths, beta is in 1/128 (max
//!   102/128), and the window grows as `htcp_cong_avoid` grows it: a counter of acknowledged
//!   segments, one whole segment added by the ACK that finds cnt * alpha >= cwnd (that ACK's own
//!   segments are not counted, the counter restarts at 0), so at most one segment per ACK; alpha
//!   is recomputed after each such increase and at each congestion event (with D still counted
//!   from the previous event, so the first segment after a reduction comes early, as in Linux).
//!   Slow start is `tcp_slow_start` without carrying the excess into avoidance. With
//!   `fixed_point = false` the formulas are evaluated in real numbers, as in the paper (alpha
//!   after D = 2 s is then 11.25, not 11), alpha is recomputed on every ACK and the window grows
//!   alpha / cwnd per acknowledged segment (as FreeBSD).
//! * beta adapts from the second congestion event on (Linux `modeswitch`), and the bandwidth
//!   switch resets it to 0.5 when the throughput measured before an event moved by more than 20%
//!   since the previous one. RTT_max grows only by samples outside recovery, at most 20 ms above
//!   the current maximum, and fades toward RTT_min by 5% at each event.
//! * RTT samples are the sender's per-ACK sample ([`AckSample::delay`]: `ca_rtt`, or the
//!   timestamp echo under ns2's timing). RTT_min is the sender's shared base RTT (the smallest
//!   sample ever, from every ACK in every state, as Linux's `minRTT`). Linux skips zero samples;
//!   none occur here, since every link has a finite rate. RTT_max is H-TCP's own (guarded,
//!   open-state samples only, faded at events).
//!
//! `linux26 = true`: Linux 2.6.22's `tcp_htcp.c` (as ns-2's TCP-Linux runs it). The increase
//! counter, alpha, beta and the throughput tracking are as today; two things differ:
//! * slow start while cwnd <= ssthresh adds one segment per ACK whatever it acknowledges;
//! * RTT_min and RTT_max are taken from the smoothed RTT (`srtt`), not from each RTT sample, and
//!   only on avoidance ACKs (`measure_rtt` was called from `htcp_cong_avoid`, past the
//!   cwnd-limited test and outside slow start), never in recovery; RTT_max moves only once
//!   ssthresh is set (below 0xFFFF) and more than 3 RTT_min have passed since the last event
//!   (current Linux dropped both guards).

use super::common::bandwidth::DeliveryInterval;
use super::common::delay::DelaySample;
use super::common::{grow, in_slow_start, in_slow_start_2_6, may_grow, reduce_to, slow_start};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::units::{secs, Dur, Time, NS_PER_MS};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "rtt_scaling",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "scale alpha by RTT_min / 100 ms, clamped to [0.1, 2] (Linux use_rtt_scaling)",
    },
    ParamInfo {
        name: "adaptive_beta",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "beta = RTT_min / RTT_max in [0.5, 0.8] from the second congestion event (true, Linux) \
              or always 0.5 (false)",
    },
    ParamInfo {
        name: "bandwidth_switch",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "fall back to beta = 0.5 when the throughput changed by more than 20% between \
              congestion events (Linux use_bandwidth_switch)",
    },
    ParamInfo {
        name: "fixed_point",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "Linux's integer alpha factor and 1/128 beta (true) or the paper's real-valued formulas \
              (false)",
    },
    ParamInfo {
        name: "linux26",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "Linux 2.6.22's tcp_htcp.c, as ns-2's TCP-Linux runs it: slow start while cwnd <= \
              ssthresh, one segment per ACK; RTT_min and RTT_max from the smoothed RTT on avoidance \
              ACKs only",
    },
];

/// Linux 2.6.22: RTT_max grows only while ssthresh is below this (set by a first event).
const SSTHRESH_UNSET_2_6: f64 = 65535.0;

/// Reno-like phase after each event (draft-leith-tcp-htcp: Delta_L = 1 s).
const DELTA_L: f64 = 1.0;
/// Bounds of the adaptive decrease (Linux BETA_MIN = 64/128, BETA_MAX = 102/128; draft: 0.8).
const BETA_MIN: f64 = 0.5;
const BETA_MAX_128: f64 = 102.0;
/// RTT scaling reference and clamp (Linux: ratio 100 ms / RTT_min kept in [0.5, 10]).
const RTT_REF: f64 = 0.1;
const RTT_SCALE_MIN: f64 = 0.1;
const RTT_SCALE_MAX: f64 = 2.0;
/// beta adapts only on paths longer than this (Linux: minRTT > 10 ms).
const ADAPT_MIN_RTT: Dur = 10 * NS_PER_MS;
/// RTT_max ignores samples more than this above it (Linux: outlier guard).
const MAX_RTT_STEP: Dur = 20 * NS_PER_MS;
/// At each event RTT_max keeps 95% of its excess over RTT_min (Linux: fading memory).
const MAX_RTT_FADE: f64 = 0.95;
/// Bandwidth switch band: the new maximum must lie within [0.8, 1.2] of the old (Linux: 4/5, 6/5).
const SWITCH_LOW: f64 = 0.8;
const SWITCH_HIGH: f64 = 1.2;
/// Throughput samples within this many RTTs of an event restart the average (Linux ccount <= 3).
const FRESH_RTTS: f64 = 3.0;

#[derive(Clone, Debug)]
pub struct Htcp {
    rtt_scaling: bool,
    adaptive_beta: bool,
    bandwidth_switch: bool,
    fixed_point: bool,
    /// Linux 2.6.22's slow start and RTT measurement (see the module header).
    linux26: bool,
    beta: f64,
    /// beta adapts only once an event has passed without the bandwidth switch (Linux).
    modeswitch: bool,
    /// Start of the current congestion epoch; set at the flow's first ACK (or event).
    last_cong: Option<Time>,
    /// Fixed point: alpha as Linux holds it (recomputed at whole-segment increases and events),
    /// in segments per RTT (Linux `ca->alpha` / 128), and the segment counter (`snd_cwnd_cnt`).
    held_alpha: f64,
    cwnd_cnt: f64,
    /// The sender's base RTT as of the latest ACK (alpha's RTT scaling and beta read it between
    /// ACKs).
    min_rtt: Option<Dur>,
    max_rtt: Option<Dur>,
    /// Throughput tracking: smoothed rate and its maximum since the last event, segments/s.
    delivery: DeliveryInterval,
    rate: f64,
    max_rate: f64,
    old_max_rate: f64,
    /// What the last reduction changed and an undo restores (Linux `undo_last_cong`,
    /// `undo_maxRTT`, `undo_old_maxB`), until recovery ends.
    undo: Option<HtcpUndo>,
}

/// H-TCP's state before a reduction.
#[derive(Clone, Copy, Debug)]
struct HtcpUndo {
    last_cong: Option<Time>,
    max_rtt: Option<Dur>,
    old_max_rate: f64,
}

impl Default for Htcp {
    fn default() -> Self {
        Htcp {
            rtt_scaling: true,
            adaptive_beta: true,
            bandwidth_switch: true,
            fixed_point: true,
            linux26: false,
            beta: BETA_MIN,
            modeswitch: false,
            last_cong: None,
            held_alpha: 1.0,
            cwnd_cnt: 0.0,
            min_rtt: None,
            max_rtt: None,
            delivery: DeliveryInterval::default(),
            rate: 0.0,
            max_rate: 0.0,
            old_max_rate: 0.0,
            undo: None,
        }
    }
}

impl Htcp {
    pub fn from_params(p: &Params) -> Self {
        Htcp {
            rtt_scaling: p.flag("rtt_scaling"),
            adaptive_beta: p.flag("adaptive_beta"),
            bandwidth_switch: p.flag("bandwidth_switch"),
            fixed_point: p.flag("fixed_point"),
            linux26: p.flag("linux26"),
            ..Default::default()
        }
    }

    /// Increase per RTT D = `now - last_cong` after the last event:
    /// 2 (1 - beta) * alpha_raw(D) * RTT scale.
    pub fn alpha(&self, now: Time) -> f64 {
        let factor = self.scaled_factor(self.time_factor(now));
        let alpha = 2.0 * (1.0 - self.beta) * factor;
        // Linux: an alpha of 0 in 1/128 becomes ALPHA_BASE (cannot happen with beta <= 0.8).
        if alpha > 0.0 {
            alpha
        } else {
            1.0
        }
    }

    /// Time since the last congestion event (0 before the flow's first ACK).
    fn since_event(&self, now: Time) -> Time {
        now.saturating_sub(self.last_cong.unwrap_or(now))
    }

    /// The congestion clock starts with the flow (Linux sets it in `htcp_init`).
    fn start_clock(&mut self, now: Time) {
        self.last_cong.get_or_insert(now);
    }

    /// Linux `htcp_cong_avoid` in avoidance: whole segments from a counter, at most one per ACK.
    fn linux_increase(&mut self, now: Time, units: f64, w: &mut Window) {
        if self.cwnd_cnt * self.held_alpha >= w.cwnd.floor() {
            w.cwnd += 1.0;
            self.cwnd_cnt = 0.0;
            self.held_alpha = self.alpha(now);
        } else {
            self.cwnd_cnt += units;
        }
    }

    /// alpha_raw(D): 1 up to Delta_L, then 1 + 10 d + (d/2)^2 with d = D - Delta_L (integer in
    /// Linux).
    fn time_factor(&self, now: Time) -> f64 {
        let d = secs(self.since_event(now)) - DELTA_L;
        if d <= 0.0 {
            return 1.0;
        }
        let growth = 10.0 * d + (d / 2.0).powi(2);
        if self.fixed_point {
            1.0 + growth.floor()
        } else {
            1.0 + growth
        }
    }

    fn scaled_factor(&self, factor: f64) -> f64 {
        let Some(min_rtt) = self.min_rtt.filter(|_| self.rtt_scaling) else { return factor };
        let ratio = secs(min_rtt) / RTT_REF;
        if !self.fixed_point {
            return factor * ratio.clamp(RTT_SCALE_MIN, RTT_SCALE_MAX);
        }
        // Linux keeps the inverse ratio in eighths, 8 * 100 ms / RTT_min in [4, 80], truncated.
        let scale = (8.0 / ratio).floor().clamp(8.0 / RTT_SCALE_MAX, 8.0 / RTT_SCALE_MIN);
        (factor * 8.0 / scale).floor().max(1.0)
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// Take the sender's measurements of one ACK: RTT_min is its base RTT; RTT_max grows by its
    /// sample (`open`: outside recovery only).
    fn measure_rtt(&mut self, delay: &DelaySample, open: bool) {
        let (rtt, min) = (delay.latest, delay.base);
        self.min_rtt = Some(min);
        if open {
            let max = self.max_rtt.unwrap_or(0).max(min);
            let guarded = rtt > max && rtt <= max + MAX_RTT_STEP;
            self.max_rtt = Some(if guarded { rtt } else { max });
        }
    }

    /// Linux 2.6.22 `measure_rtt`, on an avoidance ACK: RTT_min and RTT_max follow the smoothed
    /// RTT; RTT_max only once ssthresh is set and more than 3 RTT_min after the last event, and
    /// at most 20 ms above its current value.
    fn measure_srtt_2_6(&mut self, now: Time, srtt: Dur, ssthresh: f64) {
        let min = self.min_rtt.map_or(srtt, |m| m.min(srtt));
        self.min_rtt = Some(min);
        let rtts_since_event = self.since_event(now) / min.max(1);
        if ssthresh < SSTHRESH_UNSET_2_6 && rtts_since_event > 3 {
            let max = self.max_rtt.unwrap_or(0).max(min);
            let guarded = srtt > max && srtt <= max + MAX_RTT_STEP;
            self.max_rtt = Some(if guarded { srtt } else { max });
        }
    }

    /// Linux 2.6.22 `htcp_cong_avoid`: 2.6 slow start, else the RTT extremes from srtt and the
    /// whole-segment counter (or the real-valued increase).
    fn on_ack_2_6(&mut self, ack: &AckSample, w: &mut Window) {
        self.measure_rate(ack, w.cwnd);
        if !may_grow(ack) {
            return;
        }
        if in_slow_start_2_6(w) {
            w.cwnd += 1.0;
            return;
        }
        self.measure_srtt_2_6(ack.now, ack.srtt, w.ssthresh);
        if self.fixed_point {
            self.linux_increase(ack.now, ack.acked, w);
        } else {
            w.cwnd += self.alpha(ack.now) * ack.acked / w.cwnd;
        }
    }

    /// Linux `measure_achieved_throughput`: about one sample per window and RTT.
    fn measure_rate(&mut self, ack: &AckSample, cwnd: f64) {
        let Some(min_rtt) = self.min_rtt else { return };
        self.delivery.add(ack.acked);
        let needed = cwnd - self.alpha(ack.now).floor().max(1.0);
        if self.delivery.segments() < needed || self.delivery.elapsed(ack.now) < min_rtt {
            return;
        }
        let sample = self.delivery.close(ack.now);
        let rtts_since_event = secs(self.since_event(ack.now)) / secs(min_rtt);
        if rtts_since_event <= FRESH_RTTS {
            self.rate = sample;
            self.max_rate = sample;
        } else {
            self.rate = (3.0 * self.rate + sample) / 4.0;
            self.max_rate = self.max_rate.max(self.rate);
        }
    }

    /// Linux `htcp_beta_update`, at a congestion event.
    fn update_beta(&mut self) {
        if self.bandwidth_switch {
            let (max, old) = (self.max_rate, self.old_max_rate);
            self.old_max_rate = max;
            if !(SWITCH_LOW * old..=SWITCH_HIGH * old).contains(&max) {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        let adapt = self.adaptive_beta && self.modeswitch;
        match (self.min_rtt, self.max_rtt) {
            (Some(min), Some(max)) if adapt && min > ADAPT_MIN_RTT && max > 0 => {
                self.beta = self.rtt_ratio_beta(min, max);
            }
            _ => {
                self.beta = BETA_MIN;
                self.modeswitch = true;
            }
        }
    }

    fn rtt_ratio_beta(&self, min: Dur, max: Dur) -> f64 {
        let ratio = min as f64 / max as f64;
        if self.fixed_point {
            (ratio * 128.0).floor().clamp(BETA_MIN * 128.0, BETA_MAX_128) / 128.0
        } else {
            ratio.clamp(BETA_MIN, BETA_MAX_128 / 128.0)
        }
    }

    fn fade_max_rtt(&mut self) {
        if let (Some(min), Some(max)) = (self.min_rtt, self.max_rtt) {
            if max > min {
                self.max_rtt = Some(min + ((max - min) as f64 * MAX_RTT_FADE) as Dur);
            }
        }
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.start_clock(ack.now);
        if self.linux26 {
            self.on_ack_2_6(ack, w);
            return;
        }
        self.measure_rtt(&ack.delay, true);
        self.measure_rate(ack, w.cwnd);
        if !self.fixed_point {
            let alpha = self.alpha(ack.now);
            grow(ack, w, |w, units| w.cwnd += alpha * units / w.cwnd);
        } else if may_grow(ack) {
            if in_slow_start(w) {
                // Linux ignores what `tcp_slow_start` leaves over.
                slow_start(ack, w);
            } else {
                self.linux_increase(ack.now, ack.increase_units, w);
            }
        }
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.start_clock(ack.now);
        if !self.linux26 {
            self.measure_rtt(&ack.delay, false);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.start_clock(ev.now);
        let saved = HtcpUndo { last_cong: self.last_cong, max_rtt: self.max_rtt, old_max_rate: self.old_max_rate };
        self.undo = Some(saved);
        if ev.kind != CongestionKind::Timeout || ev.first_timeout {
            // Linux `htcp_param_update`: beta, then alpha with D still from the previous event.
            self.update_beta();
            self.held_alpha = self.alpha(ev.now);
            self.fade_max_rtt();
        }
        reduce_to(ev, w, ev.basis * self.beta);
        // Linux clears `snd_cwnd_cnt` when a reduction or a timeout starts.
        self.cwnd_cnt = 0.0;
        self.last_cong = Some(ev.now);
        self.delivery.restart(ev.now);
    }

    fn on_recovery_exit(&mut self, now: Time, _w: &mut Window) {
        // D counts from the end of recovery (Linux resets its clock on returning to Open, and
        // forgets what an undo would have restored).
        self.last_cong = Some(now);
        self.delivery.restart(now);
        self.undo = None;
    }

    /// Linux `htcp_cwnd_undo`: the congestion clock, RTT_max and the previous throughput maximum
    /// go back to what they were before the reduction (beta and alpha stay), then Reno's undo.
    fn undo_cwnd(&mut self, _now: Time, w: &Window, prior_cwnd: f64) -> f64 {
        if let Some(saved) = self.undo.take() {
            self.last_cong = saved.last_cong;
            self.max_rtt = saved.max_rtt;
            self.old_max_rate = saved.old_max_rate;
        }
        w.cwnd.max(prior_cwnd)
    }

    /// `alpha`: the increase in segments per RTT that avoidance applies at `now` (with
    /// `fixed_point`, the value Linux holds until its next whole-segment increase); `beta`: the
    /// fraction of the window kept at the next congestion event.
    fn inspect(&self, now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", if self.fixed_point { self.held_alpha } else { self.alpha(now) });
        out("beta", self.beta);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion, Feed};
    use super::*;
    use crate::units::NS_PER_S;

    const MS: u64 = NS_PER_MS;

    fn paper() -> Htcp {
        Htcp { rtt_scaling: false, fixed_point: false, bandwidth_switch: false, ..Default::default() }
    }

    /// Oracle (H-TCP's increase law): with beta = 0.5, no RTT scaling, alpha = 2 (1 - 0.5) alpha_raw
    /// = alpha_raw: D <= 1 s: 1; D = 1.5 s: 1 + 5 + 0.0625 = 6.0625; D = 2 s: 1 + 10 + 0.25 =
    /// 11.25; D = 3 s: 1 + 20 + 1 = 22; D = 10 s: 1 + 90 + 20.25 = 111.25. Linux truncates the
    /// growth: 6, 11, 22, 111.
    #[test]
    fn alpha_grows_with_time_since_the_last_event() {
        let mut cc = paper();
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 200.0, false), &mut w);
        assert_eq!((cc.beta(), w.cwnd), (0.5, 100.0), "the first event always halves");
        cc.on_recovery_exit(0, &mut w);
        let s = |x: f64| (x * NS_PER_S as f64) as Time;
        for (d, a) in [(0.5, 1.0), (1.0, 1.0), (1.5, 6.0625), (2.0, 11.25), (3.0, 22.0), (10.0, 111.25)] {
            assert!((cc.alpha(s(d)) - a).abs() < 1e-12, "D = {d}: {}", cc.alpha(s(d)));
        }
        // A flow whose clock started at 0 (its first ACK, or the recovery exit above).
        let linux = Htcp { fixed_point: true, last_cong: Some(0), ..paper() };
        for (d, a) in [(1.5, 6.0), (2.0, 11.0), (3.0, 22.0), (10.0, 111.0)] {
            assert_eq!(linux.alpha(s(d)), a, "D = {d}");
        }
        // An avoidance ACK at D = 2 s adds alpha / cwnd = 11.25 / 100.
        let mut a = ack(1.0);
        a.now = s(2.0);
        a.echoed_ts = a.now - 100 * MS;
        cc.on_ack(&Feed::default().stamp(a), &mut w);
        assert!((w.cwnd - 100.1125).abs() < 1e-12, "{}", w.cwnd);
    }

    /// Linux `htcp_cwnd_undo` (RFC 3708's response, as H-TCP defines it): a reduction undone
    /// before recovery ends puts back the congestion clock (D counts from the event before,
    /// so alpha is as if the spurious event had not happened), RTT_max (not faded) and the
    /// previous throughput maximum; beta stays. After recovery has ended only Reno's undo remains
    /// (Linux forgets H-TCP's saved state on returning to Open).
    #[test]
    fn an_undo_restores_the_congestion_clock_and_rtt_max() {
        let s = |x: f64| (x * NS_PER_S as f64) as Time;
        let mut cc = Htcp { rtt_scaling: false, bandwidth_switch: false, last_cong: Some(0), ..Default::default() };
        cc.max_rtt = Some(150 * MS);
        cc.min_rtt = Some(100 * MS);
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        assert_eq!(cc.alpha(s(3.0)), 22.0, "D = 3 s");
        let ev = CongestionEvent { now: s(3.0), ..congestion(CongestionKind::Loss, 100.0, false) };
        cc.on_congestion(&ev, &mut w);
        assert_eq!((cc.last_cong, cc.max_rtt), (Some(s(3.0)), Some(100 * MS + 47_500_000)));
        assert_eq!(cc.alpha(s(3.5)), 1.0, "D = 0.5 s after the event");
        assert_eq!(cc.undo_cwnd(s(3.5), &w, 100.0), 100.0, "max(cwnd, prior cwnd)");
        assert_eq!((cc.last_cong, cc.max_rtt), (Some(0), Some(150 * MS)));
        assert_eq!(cc.alpha(s(3.5)), 27.0, "D = 3.5 s again: 1 + floor(25 + 1.5625), beta 0.5");
        // An event, recovery ends: nothing of H-TCP's is undone any more.
        cc.on_congestion(&ev, &mut w);
        cc.on_recovery_exit(s(3.2), &mut w);
        assert_eq!(cc.undo_cwnd(s(3.5), &Window { cwnd: 50.0, ssthresh: 50.0 }, 100.0), 100.0);
        assert_eq!(cc.last_cong, Some(s(3.2)));
    }

    /// RTT scaling at RTT_min = 50 ms: the factor is multiplied by 0.5, so D = 2 s gives 5.625.
    /// Linux: scale = floor(8 / 0.5) = 16 eighths, factor = floor(11 * 8 / 16) = 5. At 1 s RTT
    /// the multiplier is clamped to 2: 22.5.
    #[test]
    fn rtt_scaling_makes_alpha_proportional_to_min_rtt() {
        let d2 = 2 * NS_PER_S;
        // Clocks started at time 0 (D is counted from the flow's first ACK or event).
        let mut cc = Htcp { rtt_scaling: true, last_cong: Some(0), ..paper() };
        cc.measure_rtt(&Feed::default().ack_rtt(50, false).delay, true);
        assert!((cc.alpha(d2) - 5.625).abs() < 1e-12);
        cc.fixed_point = true;
        assert_eq!(cc.alpha(d2), 5.0);
        let mut far = Htcp { rtt_scaling: true, last_cong: Some(0), ..paper() };
        far.measure_rtt(&Feed::default().ack_rtt(1000, false).delay, true);
        assert!((far.alpha(d2) - 22.5).abs() < 1e-12);
    }

    /// beta = RTT_min / RTT_max from the second event on: RTT 100 ms then samples up to 150 ms
    /// (each within 20 ms of the maximum): beta = 100/150 = 0.6667, alpha(D <= 1) = 2 (1 - 0.6667)
    /// = 0.6667. RTT_max then fades to 100 + 0.95 * 50 = 147.5 ms. A 200 ms sample (50 ms above
    /// the maximum) is ignored, and so are samples in recovery.
    #[test]
    fn beta_adapts_to_the_rtt_ratio_after_the_first_event() {
        let mut cc = paper();
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        let mut m = Feed::default();
        for r in [100, 110, 130, 150, 200] {
            cc.measure_rtt(&m.ack_rtt(r, false).delay, true);
        }
        cc.on_ack_in_recovery(&m.stamp({
            let mut a = ack(1.0);
            a.now = 1000 * MS;
            a.echoed_ts = 835 * MS;
            a
        }));
        assert_eq!((cc.min_rtt, cc.max_rtt), (Some(100 * MS), Some(150 * MS)));
        cc.on_congestion(&congestion(CongestionKind::Loss, 100.0, false), &mut w);
        assert_eq!(cc.beta(), 0.5);
        assert_eq!(cc.max_rtt, Some(147_500_000));
        let mut linux = Htcp { fixed_point: true, ..cc.clone() };
        cc.on_congestion(&congestion(CongestionKind::Loss, 100.0, false), &mut w);
        assert!((cc.beta() - 100.0 / 147.5).abs() < 1e-12);
        assert!((w.cwnd - 100.0 * 100.0 / 147.5).abs() < 1e-9);
        assert!((cc.alpha(0) - 2.0 * (1.0 - 100.0 / 147.5)).abs() < 1e-12);
        // Linux fixed point: floor(128 * 100 / 147.5 = 86.78) = 86, so 86/128 = 0.671875.
        linux.on_congestion(&congestion(CongestionKind::Loss, 100.0, false), &mut w);
        assert_eq!(linux.beta(), 86.0 / 128.0);
    }

    /// Bandwidth switch: a throughput maximum outside [0.8, 1.2] of the previous one resets beta
    /// to 0.5 and pauses adaptation for one event.
    #[test]
    fn a_change_in_throughput_resets_beta() {
        let mut cc = Htcp { bandwidth_switch: true, ..paper() };
        cc.modeswitch = true;
        cc.min_rtt = Some(100 * MS);
        cc.max_rtt = Some(150 * MS);
        cc.old_max_rate = 1000.0;
        cc.max_rate = 1100.0;
        cc.update_beta();
        assert!((cc.beta() - 100.0 / 150.0).abs() < 1e-12, "within 20%: adaptive");
        cc.max_rate = 1500.0;
        cc.update_beta();
        assert_eq!((cc.beta(), cc.modeswitch), (0.5, false));
        cc.max_rate = 1500.0;
        cc.update_beta();
        assert_eq!((cc.beta(), cc.modeswitch), (0.5, true), "adaptation resumes at the next event");
    }

    /// Avoidance ACKs of 3 segments, 1 ms apart, RTT 100 ms, cwnd 10, on a fresh flow.
    fn stretch_acks(cc: &mut Htcp, w: &mut Window, from: Time, n: usize) -> Vec<f64> {
        let mut m = Feed::default();
        (0..n)
            .map(|k| {
                let mut a = ack(3.0);
                a.now = from + k as Time * MS;
                // The first ACKs come at 1 ms, before any echo of a 100 ms RTT could: the sample
                // is given directly.
                a.ca_rtt = Some(100 * MS);
                cc.on_ack(&m.stamp(a), w);
                w.cwnd
            })
            .collect()
    }

    /// Linux `htcp_cong_avoid` (fixed point): a counter of acknowledged segments; an ACK that
    /// finds cnt * alpha >= cwnd adds one whole segment, clears the counter and does not count
    /// its own segments; otherwise it adds them. alpha starts at 1 (ALPHA_BASE) and is recomputed
    /// after each increase. cwnd 10, ACKs of 3 segments:
    ///  ACKs 1-4: cnt 0 -> 3 -> 6 -> 9 -> 12 (each test 0, 3, 6, 9 < 10), cwnd 10
    ///  ACK 5: 12 >= 10: cwnd 11, cnt 0 (its 3 segments dropped); alpha(D = 4 ms) = 1
    ///  ACKs 6-9: cnt 3, 6, 9, 12 (9 < 11), ACK 10: 12 >= 11: cwnd 12.
    /// The per-ACK form (`fixed_point = false`) adds 3/cwnd on every ACK instead.
    #[test]
    fn fixed_point_grows_by_whole_segments_from_a_counter() {
        let mut cc = Htcp::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        let trace = stretch_acks(&mut cc, &mut w, MS, 10);
        assert_eq!(trace, [10.0, 10.0, 10.0, 10.0, 11.0, 11.0, 11.0, 11.0, 11.0, 12.0]);
        let mut real = Htcp { fixed_point: false, ..Default::default() };
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        let trace = stretch_acks(&mut real, &mut w, MS, 1);
        assert!((trace[0] - 10.3).abs() < 1e-12, "{trace:?}");
    }

    /// Linux 2.6.22 (`linux26`), ACKs of 3 segments whose RTT samples are all 100 ms:
    ///  at cwnd = ssthresh = 10 the ACK is in slow start and adds one segment, 11 (the default is
    ///    in avoidance there), measuring nothing;
    ///  avoidance ACKs take RTT_min from the smoothed RTT: srtt 120 ms gives 120 ms (the default:
    ///    100 ms, the smallest sample); an ACK in recovery (srtt 110 ms) changes nothing;
    ///  RTT_max waits until more than 3 RTT_min (360 ms) have passed since the clock started at
    ///    1 s: unset at 1.1 s; at 1.5 s (500 / 120 = 4 > 3) srtt 135 ms sets it, first to RTT_min,
    ///    then 135 <= 120 + 20: 135 ms. With ssthresh unset (65535 or more) it never moves.
    #[test]
    fn linux26_slow_start_per_ack_and_rtt_extremes_from_srtt_in_avoidance() {
        let at = |ms: u64, srtt_ms: u64| {
            let mut a = ack(3.0);
            a.now = ms * MS;
            a.ca_rtt = Some(100 * MS);
            a.echoed_ts = a.now - 100 * MS;
            a.srtt = srtt_ms * MS;
            a
        };
        let mut cc = Htcp { linux26: true, ..Default::default() };
        let mut m = Feed::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        cc.on_ack(&m.stamp(at(1000, 120)), &mut w);
        assert_eq!((w.cwnd, cc.min_rtt), (11.0, None));
        w.ssthresh = 5.0;
        cc.on_ack(&m.stamp(at(1100, 120)), &mut w);
        assert_eq!((cc.min_rtt, cc.max_rtt), (Some(120 * MS), None));
        cc.on_ack_in_recovery(&m.stamp(at(1200, 110)));
        assert_eq!(cc.min_rtt, Some(120 * MS));
        cc.on_ack(&m.stamp(at(1500, 135)), &mut w);
        assert_eq!((cc.min_rtt, cc.max_rtt), (Some(120 * MS), Some(135 * MS)));
        let mut unset = Htcp { linux26: true, ..Default::default() };
        let mut w = Window { cwnd: 70_000.0, ssthresh: 65_535.0 };
        for (t, srtt) in [(1000, 120), (1500, 135)] {
            unset.on_ack(&m.stamp(at(t, srtt)), &mut w);
        }
        assert_eq!((unset.min_rtt, unset.max_rtt), (Some(120 * MS), None));
        let mut modern = Htcp::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        modern.on_ack(&Feed::default().stamp(at(1000, 120)), &mut w);
        assert_eq!(modern.min_rtt, Some(100 * MS));
        assert_eq!(w.cwnd, 10.0, "avoidance: the counter starts");
    }

    /// The time of the last congestion event starts at the flow's start (Linux `htcp_init`), here
    /// its first ACK, not at time 0: a flow whose first ACK comes at t = 10 s is at D = 0, so
    /// alpha = 1 (paper form: cwnd 10 + 3/10 = 10.3; fixed point: the trace above). Counting from
    /// time 0 would give alpha(D = 10 s) = 111.25 and +33.4 segments on the first ACK.
    #[test]
    fn the_congestion_clock_starts_with_the_flow() {
        let mut real = paper();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        let trace = stretch_acks(&mut real, &mut w, 10 * NS_PER_S, 1);
        assert!((trace[0] - 10.3).abs() < 1e-12, "{trace:?}");
        let mut cc = Htcp::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        let trace = stretch_acks(&mut cc, &mut w, 10 * NS_PER_S, 10);
        assert_eq!(trace, [10.0, 10.0, 10.0, 10.0, 11.0, 11.0, 11.0, 11.0, 11.0, 12.0]);
    }
}
