//! TCP Prague, the L4S team's scalable congestion control, as `net/ipv4/tcp_prague.c` of
//! L4STeam/linux runs it (module version 0.7, commit 893e147, in its fractional-window mode),
//! with the RTT-scaling heuristics of version 0.6 (commit 02573a2) as options;
//! draft-briscoe-iccrg-prague-congestion-control (-00 to -04) describes the same design. A Linux
//! `cong_control` module: it sets cwnd itself on every ACK, in every state
//! ([`CongestionControl::sets_cwnd_on_every_ack`]).
//!
//! Prague is DCTCP (RFC 8257) made fit for the Internet (RFC 9331 section 4.3, the "Prague L4S
//! requirements"): its packets carry ECT(1) ([`CongestionControl::l4s`]), the receiver feeds back
//! how many delivered segments were CE-marked (AccECN, [`EcnFeedback::AccEcn`]; the sender's
//! [`AckSample::ce_delivered`]), and it paces.
//!
//! State and rules (units: segments, seconds):
//! * `frac_cwnd`, a fractional window (Linux keeps it in 2^-20 segments). The cwnd the sender
//!   uses is `max(2, ceil(frac_cwnd))`, reached one segment per ACK: an ACK that finds cwnd above
//!   it takes one segment off (and sets ssthresh to the new cwnd), one that finds it below adds
//!   one. Reductions therefore take effect over as many ACKs as segments they remove.
//! * `alpha`, the EWMA of the CE-marked fraction of the deliveries, updated once per round
//!   (a round: until the data outstanding at the last update is acknowledged, the sender's
//!   [`AckSample::round_start`]): `F = CE-marked / delivered` (segments, this round),
//!   `alpha <- (1 - g) alpha + g F`, g = 1/16 (Linux `PRAGUE_SHIFT_G` 4; RFC 8257 section 4.2).
//!   Alpha stays put until the first CE mark is seen (Linux `saw_ce`: proof of an AQM on the
//!   path). It starts at 0, and the first CE mark halves `frac_cwnd` (v0.7's default
//!   `prague_alpha_mode` 0); with `halve_on_first_mark = false` alpha starts at 1 instead and
//!   the first reduction halves (v0.6, DCTCP).
//! * Reduction on CE (entering the sender's CWR state, at most once per window of data, the
//!   sender's [`CongestionKind::Ecn`] event): `frac_cwnd <- frac_cwnd (1 - alpha / 2)`. Once RTT
//!   independent, at most once per `rtt_target` as well.
//! * Additive increase on every ACK outside the loss states, in CWR too (Prague keeps growing
//!   while marked, DCTCP does not): by the segments the ACK delivered that were not CE-marked,
//!   `frac_cwnd += acked_not_ce x ai / frac_cwnd`, so `ai` segments per round when nothing is
//!   marked; nothing unless cwnd-limited.
//! * Slow start (cwnd < ssthresh, ssthresh unset at first): cwnd grows by the unmarked segments
//!   delivered, `frac_cwnd` follows it. It ends at the first CE mark (its halving starts the
//!   one-per-ACK decrease, which sets ssthresh) or the first loss.
//! * RTT independence (`rtt_scaling`): after `rtt_transition` rounds out of slow start (Linux
//!   `DEFAULT_RTT_TRANSITION` 4 in v0.7; 500 in v0.6), a flow whose smoothed RTT is below
//!   `rtt_target` (Linux `RTT_TARGET` 25 ms) grows as if its RTT were the target:
//!   `ai = (srtt / rtt_target)^2` segments per round, so its rate grows by `1 / rtt_target^2`
//!   segments per second per second whatever its RTT, as a flow at the target RTT does. Flows at
//!   or above the target (and above 100 ms, Linux `MAX_SCALED_RTT`) are not scaled: `ai = 1`.
//!   The scaling thus applies *below* the reference RTT, not above it: it slows short-RTT flows
//!   down to the growth of a 25 ms flow and leaves longer ones as Reno-like as DCTCP. Alpha is
//!   then updated at most once per `rtt_target` too (over the deliveries since the last update),
//!   so that flows of different RTTs on a step AQM converge to the same alpha. Options from
//!   v0.6: `rtt_scaling = 2` (Linux `RTT_CONTROL_SCALABLE`: `ai = (R0/8 + min(max(srtt - R1,
//!   0), R0)) srtt / R0^2`, R0 = 16.384 ms, R1 = 1.536 ms: at least 1/8 segment per round), `3`
//!   (`RTT_CONTROL_ADDITIVE`: the rate rule with target `rtt_target + srtt`), `0` none.
//! * Loss (entering fast recovery, or the first timeout: Linux `prague_enter_loss`): `frac_cwnd`
//!   halves (Reno-like), growth stops until the sender is back in the open state. The cwnd then
//!   walks down one segment per ACK (no PRR: Linux bypasses it for `cong_control` modules); after
//!   a timeout the sender sets cwnd to the flight + 1 and it walks up toward the halved window.
//!   An undo restores the window before the loss (Linux `prague_cwnd_undo`).
//! * Pacing ([`CongestionControl::pacing_rate`]): `max(floor(frac_cwnd), in flight) / srtt`
//!   segments per second (100% of the window per RTT), doubled while `cwnd < ssthresh / 2`
//!   (slow start: 200%, as each ACK releases two segments).
//! * Minimum window 2 segments (Linux `MIN_CWND_RTT`).
//!
//! Not modelled (all in v0.7; each needs what the hooks do not give, or matters only below a
//! few segments of window):
//! * the rate-based mode that takes over below 4 packets of window (`prague_cwnd_mode` 2,
//!   `prague_cwnd_transit` 4), the packet-size reduction below about 1 Mb/s (`MIN_MSS` 150) and
//!   the pacing floor of 100 kb/s (`MINIMUM_RATE`); with them the ±3% pacing offset per half
//!   RTT, which 893e147 applies only in the rate-based mode;
//! * the scaling of the increase by 1500 bytes / packet size (`MTU_SYS`): here one segment per
//!   round whatever the segment size (the same at a 1500-byte MTU);
//! * TSO/GSO burst sizing (`prague_burst_shift`): ccsim sends segments one by one;
//! * the classic-ECN-bottleneck fallback: v0.6 carried a delay-variation detector
//!   (`prague_ecn_fallback`, off by default) and v0.7 removed it; the draft lists detection as
//!   work in progress (Briscoe and Ahmed, arXiv 1911.00710). Prague here always behaves as over
//!   an L4S AQM and, on a classic ECN queue, takes the larger share the L4S studies show;
//! * the fall-back to Reno when AccECN is not negotiated (`prague-reno`): ccsim's flows of an
//!   algorithm that needs ECN always have it.
//!
//! Choices: rounds are the sender's (Linux `next_seq = snd_nxt` at each alpha update; here a
//! round ends at the first round start after the last update). The increase per round is
//! refreshed, as in Linux, at each round and each cwnd step, from the smoothed RTT then. The
//! increase is divided by `max(1, frac_cwnd)` (a fractional window below one segment, after
//! several halvings without growth, would otherwise add many segments on one ACK). A
//! timeout halves `frac_cwnd` only when no loss reduction is under way (Linux raises
//! `CA_EVENT_LOSS` only on entering the loss state from the open or disorder state).

use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CaState, CongestionControl, CongestionEvent, CongestionKind, EcnFeedback, Window};
use crate::units::{Dur, Time, NS_PER_MS, NS_PER_S};

/// Smallest cwnd, segments (Linux `MIN_CWND_RTT`).
pub const MIN_CWND: f64 = 2.0;

/// Above this smoothed RTT the increase is never scaled (Linux `MAX_SCALED_RTT`, 100 ms).
pub const MAX_SCALED_RTT: Dur = 100 * NS_PER_MS;

/// The RTT-scaling heuristics (Linux v0.6 `RTT_CONTROL_*`; v0.7 keeps only `Rate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttScaling {
    None,
    Rate,
    Scalable,
    Additive,
}

impl RttScaling {
    fn from_index(i: f64) -> Self {
        match i as u32 {
            0 => RttScaling::None,
            2 => RttScaling::Scalable,
            3 => RttScaling::Additive,
            _ => RttScaling::Rate,
        }
    }
}

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "g",
        kind: ParamKind::Float,
        // Linux PRAGUE_SHIFT_G = 4: g = 1/2^4 (RFC 8257 section 4.2).
        default: 0.0625,
        min: 1e-6,
        max: 1.0,
        doc: "weight of the newest round's CE-marked fraction in alpha (Linux PRAGUE_SHIFT_G 4: 1/16)",
    },
    ParamInfo {
        name: "rtt_scaling",
        kind: ParamKind::Int,
        default: 1.0,
        min: 0.0,
        max: 3.0,
        doc: "RTT independence below rtt_target: 0 none, 1 rate (grow as a flow at rtt_target; v0.7's only \
              mode, the default), 2 scalable, 3 additive (v0.6 RTT_CONTROL_SCALABLE, _ADDITIVE)",
    },
    ParamInfo {
        name: "rtt_target",
        kind: ParamKind::Float,
        // Linux RTT_TARGET / prague_rtt_target = 25 ms (v0.6 and v0.7).
        default: 0.025,
        min: 1e-4,
        max: 1.0,
        doc: "reference RTT, seconds: shorter-RTT flows grow as if at this RTT (Linux prague_rtt_target 25 ms)",
    },
    ParamInfo {
        name: "rtt_transition",
        kind: ParamKind::Int,
        // Linux v0.7 DEFAULT_RTT_TRANSITION = 4 (v0.6: 500).
        default: 4.0,
        min: 0.0,
        max: 100_000.0,
        doc: "rounds out of slow start before the RTT scaling applies (Linux v0.7 prague_rtt_transition 4; v0.6 500)",
    },
    ParamInfo {
        name: "halve_on_first_mark",
        kind: ParamKind::Bool,
        // Linux v0.7 prague_alpha_mode = 0.
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "alpha starts at 0 and the first CE mark halves the window (Linux v0.7 prague_alpha_mode 0); \
              false: alpha starts at 1 (v0.6)",
    },
];

#[derive(Clone, Debug)]
pub struct Prague {
    g: f64,
    scaling: RttScaling,
    rtt_target: Dur,
    rtt_transition: u64,
    /// Whether `frac_cwnd` has taken the sender's initial window (Linux `prague_init`).
    started: bool,
    frac_cwnd: f64,
    alpha: f64,
    saw_ce: bool,
    /// Segments delivered, and CE-marked among them, since the last alpha update.
    round_delivered: f64,
    round_ce: f64,
    /// A sender round has ended since the last alpha update (Linux `prague_e2e_rtt_elapsed`).
    round_elapsed: bool,
    /// Rounds counted out of slow start (Linux `ca->round`).
    rounds: u64,
    /// Increase per round, segments (Linux `ai_ack_increase`, in 2^-20).
    ai: f64,
    alpha_stamp: Time,
    cwr_stamp: Option<Time>,
    in_loss: bool,
    loss_cwnd: f64,
    loss_frac_cwnd: f64,
    srtt: Dur,
    pacing_rate: f64,
    halve_on_first_mark: bool,
}

impl Prague {
    pub fn new(g: f64, scaling: RttScaling, rtt_target: Dur, rtt_transition: u64, halve_on_first_mark: bool) -> Self {
        Prague {
            g,
            scaling,
            rtt_target,
            rtt_transition,
            started: false,
            frac_cwnd: 0.0,
            alpha: if halve_on_first_mark { 0.0 } else { 1.0 },
            saw_ce: false,
            round_delivered: 0.0,
            round_ce: 0.0,
            round_elapsed: false,
            rounds: 0,
            ai: 1.0,
            alpha_stamp: 0,
            cwr_stamp: None,
            in_loss: false,
            loss_cwnd: 0.0,
            loss_frac_cwnd: 0.0,
            srtt: 0,
            pacing_rate: 0.0,
            halve_on_first_mark,
        }
    }

    pub fn from_params(p: &Params) -> Self {
        let target = (p.get("rtt_target") * NS_PER_S as f64).round() as Dur;
        Prague::new(
            p.get("g"),
            RttScaling::from_index(p.get("rtt_scaling")),
            target,
            p.get("rtt_transition") as u64,
            p.flag("halve_on_first_mark"),
        )
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn frac_cwnd(&self) -> f64 {
        self.frac_cwnd
    }

    /// The increase per round without loss or marks, segments.
    pub fn ai_per_round(&self) -> f64 {
        self.ai
    }

    fn sync(&mut self, w: &Window) {
        if !self.started {
            self.started = true;
            self.frac_cwnd = w.cwnd;
        }
    }

    /// Linux `prague_is_rtt_indep`.
    pub fn rtt_independent(&self, w: &Window) -> bool {
        self.scaling != RttScaling::None && w.cwnd >= w.ssthresh && self.rounds >= self.rtt_transition
    }

    /// The reference RTT: `rtt_target`, plus the smoothed RTT under the additive heuristic.
    fn target(&self) -> Dur {
        match self.scaling {
            RttScaling::Additive => self.rtt_target + self.srtt,
            _ => self.rtt_target,
        }
    }

    /// Linux `prague_ai_ack_increase`: the increase per round, from the smoothed RTT now.
    fn refresh_ai(&mut self) {
        let rtt = self.srtt;
        self.ai = if self.rounds < self.rtt_transition || rtt == 0 || rtt > MAX_SCALED_RTT {
            1.0
        } else {
            scaled_increase(self.scaling, rtt, self.target())
        };
    }

    /// Linux `prague_update_alpha` and `prague_new_round`.
    fn update_alpha(&mut self, now: Time, w: &Window) {
        if self.saw_ce {
            let f = if self.round_ce > 0.0 { self.round_ce / self.round_delivered.max(1.0) } else { 0.0 };
            self.alpha = ((1.0 - self.g) * self.alpha + self.g * f).min(1.0);
            self.alpha_stamp = now;
        }
        self.round_delivered = 0.0;
        self.round_ce = 0.0;
        self.round_elapsed = false;
        if w.cwnd >= w.ssthresh {
            self.rounds += 1;
        }
        self.refresh_ai();
    }

    /// Linux `prague_update_cwnd`: growth by the unmarked deliveries, then one step of cwnd
    /// toward the fractional window.
    fn update_cwnd(&mut self, ack: &AckSample, w: &mut Window) {
        let mut acked = ack.delivered_now - ack.ce_delivered;
        if ack.ce_delivered > 0.0 {
            if !self.saw_ce && self.halve_on_first_mark {
                self.frac_cwnd /= 2.0;
            }
            self.saw_ce = true;
        }
        if acked > 0.0 && !self.in_loss && ack.cwnd_limited {
            if w.cwnd < w.ssthresh {
                let grown = (w.cwnd + acked).min(w.ssthresh);
                acked -= grown - w.cwnd;
                w.cwnd = grown;
                self.frac_cwnd = grown;
                if acked <= 0.0 {
                    self.refresh_ai();
                    return;
                }
            }
            // Below one segment v0.7's rate-based mode (not modelled) would hold the window;
            // dividing by at least 1, as v0.6's integer window did, keeps one ACK from adding
            // more than `ai` segments per segment it delivers.
            self.frac_cwnd += acked * self.ai / self.frac_cwnd.max(1.0);
        }
        // The fractional window rounded up; a hair of float error is no extra segment.
        let target = (self.frac_cwnd - 1e-9).ceil().max(MIN_CWND);
        if w.cwnd > target {
            w.cwnd = (w.cwnd - 1.0).max(MIN_CWND);
            w.ssthresh = w.cwnd;
            self.refresh_ai();
        } else if w.cwnd < target {
            w.cwnd += 1.0;
            self.refresh_ai();
        }
    }

    /// Linux `prague_enter_loss`.
    fn enter_loss(&mut self, w: &Window) {
        self.loss_cwnd = w.cwnd;
        self.loss_frac_cwnd = self.frac_cwnd;
        self.frac_cwnd /= 2.0;
        self.in_loss = true;
    }

    fn update_pacing_rate(&mut self, in_flight: f64, w: &Window) {
        if self.srtt == 0 {
            return;
        }
        let mut rate = self.frac_cwnd.floor().max(in_flight) * NS_PER_S as f64 / self.srtt as f64;
        if w.cwnd < w.ssthresh / 2.0 {
            rate *= 2.0;
        }
        self.pacing_rate = rate;
    }
}

/// The increase per round of a flow with smoothed RTT `rtt` under `scaling` with reference RTT
/// `target`, segments (Linux `prague_rate_scaled_ai_ack_increase`,
/// `prague_scalable_ai_ack_increase`).
pub fn scaled_increase(scaling: RttScaling, rtt: Dur, target: Dur) -> f64 {
    let r = rtt as f64;
    match scaling {
        RttScaling::None => 1.0,
        RttScaling::Rate | RttScaling::Additive => {
            if rtt >= target {
                1.0
            } else {
                (r / target as f64).powi(2)
            }
        }
        RttScaling::Scalable => {
            // Linux v0.6: R0 = 2^14 us, R1 = 2^10 + 2^9 us.
            let (r0, r1) = (16_384_000.0, 1_536_000.0);
            (r0 / 8.0 + (r - r1).clamp(0.0, r0)) * r / (r0 * r0)
        }
    }
}

impl Default for Prague {
    fn default() -> Self {
        Prague::new(0.0625, RttScaling::Rate, 25 * NS_PER_MS, 4, true)
    }
}

impl CongestionControl for Prague {
    fn name(&self) -> &'static str {
        "prague"
    }

    /// Linux `prague_cong_control`: every ACK, in every state.
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.sync(w);
        if ack.ca_state == CaState::Open {
            self.in_loss = false; // Linux prague_ca_open
        }
        if ack.srtt > 0 {
            self.srtt = ack.srtt;
        }
        self.round_delivered += ack.delivered_now;
        self.round_ce += ack.ce_delivered;
        self.round_elapsed |= ack.round_start;
        self.update_cwnd(ack, w);
        let waited = ack.now.saturating_sub(self.alpha_stamp) >= self.target();
        if self.round_elapsed && (!self.rtt_independent(w) || waited) {
            self.update_alpha(ack.now, w);
        }
        self.update_pacing_rate(ack.in_flight, w);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.sync(w);
        match ev.kind {
            // Linux prague_enter_cwr.
            CongestionKind::Ecn => {
                let recent = self.cwr_stamp.is_some_and(|t| ev.now.saturating_sub(t) < self.target());
                if self.rtt_independent(w) && recent {
                    return;
                }
                self.cwr_stamp = Some(ev.now);
                self.frac_cwnd -= self.alpha * self.frac_cwnd / 2.0;
            }
            CongestionKind::Loss => self.enter_loss(w),
            CongestionKind::Timeout => {
                if ev.first_timeout && !self.in_loss {
                    self.enter_loss(w);
                }
            }
        }
    }

    /// Linux `prague_cwnd_undo`: the window before the loss, and the fractional window with it
    /// (or the one grown since, if larger).
    fn undo_cwnd(&mut self, _now: Time, w: &Window, _prior_cwnd: f64) -> f64 {
        self.in_loss = false;
        self.frac_cwnd = self.frac_cwnd.max(self.loss_frac_cwnd);
        w.cwnd.max(self.loss_cwnd)
    }

    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::AccEcn
    }

    fn l4s(&self) -> bool {
        true
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<f64> {
        (self.pacing_rate > 0.0).then_some(self.pacing_rate)
    }

    fn sets_cwnd_on_every_ack(&self) -> bool {
        true
    }

    /// `alpha` (0..=1), `frac_cwnd` (segments), `ai` (the increase per unmarked round,
    /// segments: below 1 while the RTT scaling holds a short-RTT flow back), `rounds` (rounds out
    /// of slow start, toward `rtt_transition`), `pacing_rate` (segments per second, NaN before
    /// the first RTT sample).
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.alpha);
        out("frac_cwnd", self.frac_cwnd);
        out("ai", self.ai);
        out("rounds", self.rounds as f64);
        out("pacing_rate", self.pacing_rate().unwrap_or(f64::NAN));
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::*;

    const MS: u64 = NS_PER_MS;

    /// An ACK at `now_ms` delivering one segment, CE-marked or not, with smoothed RTT `rtt_ms`.
    fn one(now_ms: u64, rtt_ms: u64, ce: bool, round_start: bool) -> AckSample {
        let mut a = ack(1.0);
        a.now = now_ms * MS;
        a.srtt = rtt_ms * MS;
        a.ece = ce;
        a.ce_delivered = if ce { 1.0 } else { 0.0 };
        a.round_start = round_start;
        a
    }

    /// One round of `n` single-segment ACKs ending at `end_ms` (the last starts the next round),
    /// the first `marked` of them CE-marked.
    fn round(cc: &mut Prague, w: &mut Window, end_ms: u64, n: usize, marked: usize) {
        for i in 0..n {
            cc.on_ack(&one(end_ms, 100, i < marked, i + 1 == n), w);
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn alpha_waits_for_the_first_mark_then_moves_by_g_towards_each_rounds_marked_fraction() {
        let mut cc = Prague::default();
        let mut w = Window { cwnd: 40.0, ssthresh: 20.0 };
        round(&mut cc, &mut w, 100, 10, 0);
        assert_eq!(cc.alpha(), 0.0, "no CE seen yet: alpha is not updated");
        // F = 2/10: alpha = 0 + 0.2 / 16 = 0.0125.
        round(&mut cc, &mut w, 200, 10, 2);
        assert!(close(cc.alpha(), 0.0125), "{}", cc.alpha());
        // F = 4/10: alpha = 0.0125 x 15/16 + 0.4 / 16 = 0.01171875 + 0.025 = 0.03671875.
        round(&mut cc, &mut w, 300, 10, 4);
        assert!(close(cc.alpha(), 0.036_718_75), "{}", cc.alpha());
        // F = 0: alpha = 0.03671875 x 15/16 = 0.034423828125.
        round(&mut cc, &mut w, 400, 10, 0);
        assert!(close(cc.alpha(), 0.034_423_828_125), "{}", cc.alpha());
        // F = 1: alpha = 0.034423828125 x 15/16 + 1/16 = 0.0947723388671875.
        round(&mut cc, &mut w, 500, 10, 10);
        assert!(close(cc.alpha(), 0.094_772_338_867_187_5), "{}", cc.alpha());
    }

    #[test]
    fn with_v0_6s_initial_alpha_the_first_mark_does_not_halve_and_the_first_cut_does() {
        let mut cc = Prague::new(0.0625, RttScaling::Rate, 25 * MS, 4, false);
        let mut w = Window { cwnd: 40.0, ssthresh: 20.0 };
        cc.on_ack(&one(10, 100, true, false), &mut w);
        assert_eq!((cc.alpha(), cc.frac_cwnd(), w.cwnd), (1.0, 40.0, 40.0));
        cc.on_congestion(&congestion(CongestionKind::Ecn, 40.0, false), &mut w);
        assert_eq!(cc.frac_cwnd(), 20.0, "alpha 1: frac_cwnd (1 - 1/2)");
    }

    /// A cut lowers the fractional window at once; cwnd follows one segment per ACK (ssthresh
    /// with it), and marked ACKs do not grow the window.
    #[test]
    fn a_ce_cut_takes_alpha_over_two_of_frac_cwnd_and_cwnd_walks_down_one_per_ack() {
        let mut cc = Prague::default();
        let mut w = Window { cwnd: 40.0, ssthresh: 30.0 };
        cc.on_ack(&one(10, 100, false, false), &mut w);
        let frac = cc.frac_cwnd();
        assert!(close(frac, 40.0 + 1.0 / 40.0), "one unmarked segment: + 1/40");
        cc.alpha = 0.5;
        cc.saw_ce = true;
        cc.on_congestion(&congestion(CongestionKind::Ecn, 40.0, false), &mut w);
        assert!(close(cc.frac_cwnd(), frac * 0.75), "{}", cc.frac_cwnd());
        assert_eq!(w.cwnd, 41.0, "the window waits for the ACKs");
        // frac_cwnd 30.01875: cwnd walks 41 -> 31 over ten marked ACKs and stops there.
        for k in 1..=12 {
            cc.on_ack(&one(10 + k, 100, true, false), &mut w);
            let want = (41.0 - k as f64).max(31.0);
            assert_eq!((w.cwnd, w.ssthresh), (want, want), "ACK {k}");
        }
        assert!(close(cc.frac_cwnd(), frac * 0.75), "marked ACKs add nothing");
    }

    #[test]
    fn below_one_segment_the_increase_is_divided_by_one() {
        let mut cc = Prague::default();
        let mut w = Window { cwnd: 2.0, ssthresh: 2.0 };
        (cc.started, cc.frac_cwnd) = (true, 0.25);
        cc.on_ack(&one(1, 100, false, false), &mut w);
        assert_eq!((cc.frac_cwnd(), w.cwnd), (1.25, 2.0));
    }

    #[test]
    fn the_window_never_goes_below_two_segments() {
        let mut cc = Prague::default();
        let mut w = Window { cwnd: 3.0, ssthresh: 3.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 3.0, false), &mut w);
        cc.on_congestion(&congestion(CongestionKind::Loss, 3.0, false), &mut w);
        assert!(cc.frac_cwnd() < 1.0);
        for k in 0..4 {
            let mut a = one(k, 100, false, false);
            a.ca_state = CaState::Recovery;
            cc.on_ack(&a, &mut w);
        }
        assert_eq!(w, Window { cwnd: MIN_CWND, ssthresh: MIN_CWND });
    }

    /// The increase over one round of unmarked ACKs (as many as the window), per heuristic and
    /// RTT, against `ai` per round: (rtt / 25 ms)^2 below the target, 1 at and above it.
    fn growth_over_a_round(scaling: RttScaling, rtt_ms: u64) -> (f64, f64, f64) {
        let mut cc = Prague::new(0.0625, scaling, 25 * MS, 4, true);
        let mut w = Window { cwnd: 40.0, ssthresh: 40.0 };
        (cc.started, cc.frac_cwnd, cc.rounds, cc.srtt) = (true, 40.0, 4, rtt_ms * MS);
        cc.refresh_ai();
        let before = cc.frac_cwnd();
        cc.on_ack(&one(1, rtt_ms, false, false), &mut w);
        let first = cc.frac_cwnd() - before;
        for k in 1..40 {
            cc.on_ack(&one(1 + k, rtt_ms, false, false), &mut w);
        }
        (cc.ai_per_round(), first, cc.frac_cwnd() - before)
    }

    #[test]
    fn the_additive_increase_is_scaled_below_the_reference_rtt_only() {
        for (scaling, rtt_ms, want) in [
            (RttScaling::Rate, 5, 0.04),
            (RttScaling::Rate, 25, 1.0),
            (RttScaling::Rate, 100, 1.0),
            (RttScaling::None, 5, 1.0),
            (RttScaling::None, 25, 1.0),
            (RttScaling::None, 100, 1.0),
        ] {
            let (ai, first, per_round) = growth_over_a_round(scaling, rtt_ms);
            assert!(close(ai, want), "{scaling:?} {rtt_ms} ms: ai {ai}");
            assert!(close(first, want / 40.0), "{scaling:?} {rtt_ms} ms: first ACK {first}");
            // 40 ACKs of ai / frac_cwnd each, frac_cwnd growing from 40 by at most one.
            assert!((per_round - want).abs() < 0.026 * want, "{scaling:?} {rtt_ms} ms: {per_round}");
        }
        // Rate independence: the window's growth per round over the RTT squared, i.e. the rate's
        // growth per second per second, is the same at 5 ms as at 25 ms (1 / 25 ms^2).
        let per_rtt_sq = |rtt_ms: u64| growth_over_a_round(RttScaling::Rate, rtt_ms).0 / (rtt_ms as f64 * 1e-3).powi(2);
        assert!(close(per_rtt_sq(5), 1600.0) && close(per_rtt_sq(25), 1600.0));
        assert!(close(per_rtt_sq(100), 100.0), "a 100 ms flow grows as Reno");
    }

    #[test]
    fn the_scaling_waits_for_rtt_transition_rounds_out_of_slow_start() {
        let mut cc = Prague::default();
        let mut w = Window { cwnd: 40.0, ssthresh: 40.0 };
        for r in 1..=5u64 {
            for k in 0..40 {
                cc.on_ack(&one(r * 5, 5, false, k == 39), &mut w);
            }
            // The increase is refreshed on the round's end: unscaled until four rounds are counted.
            let want = if r >= 4 { 0.04 } else { 1.0 };
            assert!(close(cc.ai_per_round(), want), "round {r}: {}", cc.ai_per_round());
        }
    }

    #[test]
    fn v0_6s_scalable_and_additive_heuristics() {
        // Additive: the rate rule against 25 ms + srtt: at 25 ms, (25 / 50)^2.
        assert_eq!(scaled_increase(RttScaling::Additive, 25 * MS, 50 * MS), 0.25);
        // Scalable at 10 ms: (16.384/8 + (10 - 1.536)) x 10 / 16.384^2 (ms).
        let want = (2.048 + 8.464) * 10.0 / (16.384f64 * 16.384);
        assert!(close(scaled_increase(RttScaling::Scalable, 10 * MS, 25 * MS), want));
        // At least 1/8 segment per round times rtt / R0 at the shortest RTTs.
        let tiny = scaled_increase(RttScaling::Scalable, MS, 25 * MS);
        assert!(close(tiny, 2.048 / (16.384f64 * 16.384)), "{tiny}");
    }

    #[test]
    fn slow_start_doubles_per_round_paced_at_twice_the_window_and_ends_at_the_first_mark() {
        let mut cc = Prague::default();
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        for k in 0..10 {
            cc.on_ack(&one(k, 100, false, false), &mut w);
        }
        assert_eq!((w.cwnd, cc.frac_cwnd()), (20.0, 20.0));
        // max(20, in flight 10) per 100 ms, doubled in slow start.
        assert_eq!(cc.pacing_rate(), Some(400.0));
        cc.on_ack(&one(11, 100, true, false), &mut w);
        assert_eq!(cc.frac_cwnd(), 10.0, "the first mark halves");
        assert_eq!(w, Window { cwnd: 19.0, ssthresh: 19.0 }, "one step down; out of slow start");
        assert_eq!(cc.pacing_rate(), Some(100.0), "100% of the window per RTT");
        for k in 0..8 {
            cc.on_ack(&one(12 + k, 100, false, false), &mut w);
        }
        assert!(cc.frac_cwnd() < 11.0);
        assert_eq!(w.cwnd, 11.0, "down to ceil(frac_cwnd) while it grows by 1/frac_cwnd per ACK");
    }

    #[test]
    fn a_loss_halves_stops_growth_until_the_open_state_and_an_undo_restores() {
        let mut cc = Prague::default();
        let mut w = Window { cwnd: 40.0, ssthresh: 40.0 };
        cc.on_ack(&one(1, 100, false, false), &mut w);
        let frac = cc.frac_cwnd();
        cc.on_congestion(&congestion(CongestionKind::Loss, 40.0, false), &mut w);
        assert!(close(cc.frac_cwnd(), frac / 2.0));
        for k in 0..25 {
            let mut a = one(2 + k, 100, false, false);
            a.ca_state = CaState::Recovery;
            cc.on_ack(&a, &mut w);
        }
        assert!(close(cc.frac_cwnd(), frac / 2.0), "no growth in recovery");
        assert_eq!(w.cwnd, 21.0, "ceil(20.0125)");
        cc.on_ack(&one(30, 100, false, false), &mut w);
        assert!(cc.frac_cwnd() > frac / 2.0, "open again: growth");
        assert_eq!(cc.undo_cwnd(31, &w, 40.0), 41.0, "the window before the loss");
        assert!(close(cc.frac_cwnd(), frac));
    }

    #[test]
    fn only_the_first_timeout_outside_a_loss_reduction_halves() {
        let mut cc = Prague::default();
        let mut w = Window { cwnd: 40.0, ssthresh: 40.0 };
        cc.on_congestion(&congestion(CongestionKind::Timeout, 40.0, true), &mut w);
        assert_eq!(cc.frac_cwnd(), 20.0);
        cc.on_congestion(&congestion(CongestionKind::Timeout, 40.0, true), &mut w);
        cc.on_congestion(&congestion(CongestionKind::Timeout, 40.0, false), &mut w);
        assert_eq!(cc.frac_cwnd(), 20.0);
        // The sender sets cwnd to the flight + 1; the window walks up one per ACK.
        w.cwnd = 1.0;
        let mut a = one(1, 100, false, false);
        a.ca_state = CaState::Loss;
        cc.on_ack(&a, &mut w);
        assert_eq!(w.cwnd, 2.0);
    }

    /// Once RTT independent, a 5 ms flow updates alpha once per 25 ms, over every delivery since
    /// the last update, and cuts at most once per 25 ms.
    #[test]
    fn rtt_independent_flows_update_alpha_and_cut_at_most_once_per_reference_rtt() {
        let mut cc = Prague::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        (cc.started, cc.frac_cwnd, cc.rounds, cc.saw_ce, cc.alpha_stamp) = (true, 10.0, 4, true, 0);
        // Rounds of 10 ACKs over 5 ms each, 1 marked in each, the first ending at 5 ms.
        let mut alphas = Vec::new();
        for r in 1..=10u64 {
            for k in 0..10 {
                let mut a = one(0, 5, k == 0, k == 9);
                a.now = ((r - 1) * 10 + k + 1) * MS / 2;
                cc.on_ack(&a, &mut w);
            }
            alphas.push(cc.alpha());
        }
        // Updates at 25 and 50 ms only, each over five rounds' deliveries: F = 5/50.
        assert!(alphas[..4].iter().all(|&a| a == 0.0), "{alphas:?}");
        assert!(close(alphas[4], 0.1 / 16.0) && alphas[5..9].iter().all(|&a| a == alphas[4]), "{alphas:?}");
        assert!(close(alphas[9], 0.1 / 16.0 * 15.0 / 16.0 + 0.1 / 16.0), "{alphas:?}");
        cc.alpha = 0.5;
        let mut cut_at = |ms: u64, cc: &mut Prague| {
            let before = cc.frac_cwnd();
            let mut ev = congestion(CongestionKind::Ecn, 10.0, false);
            ev.now = ms * MS;
            cc.on_congestion(&ev, &mut w);
            cc.frac_cwnd() < before
        };
        assert!(cut_at(60, &mut cc));
        assert!(!cut_at(70, &mut cc), "10 ms after the last cut");
        assert!(cut_at(85, &mut cc), "25 ms after");
    }
}
