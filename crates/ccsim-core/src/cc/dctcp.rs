//! DCTCP (RFC 8257, "Data Center TCP (DCTCP): TCP Congestion Control for Data Centers", 2017;
//! Alizadeh et al., SIGCOMM 2010; Linux `net/ipv4/tcp_dctcp.c`).
//!
//! The receiver reflects every CE mark exactly (ECE on the ACKs of marked segments only: the
//! receiver's [`super::EcnFeedback::PerSegment`]; or, when the stack sets `ecn_feedback =
//! "accecn"`, AccECN's counts). The sender estimates the fraction of its data that was marked:
//! once per window of data (the sender's rounds, which end when the data outstanding at the
//! round's start is acknowledged, as Linux's `next_seq = snd_nxt`),
//!
//! ```text
//! F = marked / delivered (segments, this window),   alpha <- (1 - g) alpha + g F
//! ```
//!
//! counted as Linux 5.1+ counts them (`dctcp_update_alpha`): from the sender's running totals
//! `tp->delivered` and `tp->delivered_ce` ([`super::common::delay::DelaySample::delivered`]),
//! so a window's deliveries include segments SACKed and duplicate ACKs (one segment each
//! without SACK), and its marks those reported on any ACK: the ECE ACKs' whole deliveries, or
//! AccECN's decoded counts, duplicate ACKs' included. The window's end is checked on the ACKs
//! that advance the cumulative ACK, this ACK's deliveries counted first (RFC 8257 section 3.3's
//! order).
//!
//! and, at most once per window when ECE arrives (the sender's guard), cuts the window in
//! proportion to it: `cwnd <- cwnd (1 - alpha / 2)` (ssthresh likewise, floored at 2 segments).
//! Growth is Reno's. A loss still halves (RFC 8257 section 3.4: react to loss as conventional
//! TCP); a timeout is Reno's.
//!
//! Defaults: g = 1/16 (RFC 8257 section 4.2; Linux `dctcp_shift_g = 4`), alpha starts at 1
//! (Linux `dctcp_alpha_on_init` = its maximum: the first marks halve, as Reno's would).
//!
//! Choices: marks are counted in segments, not bytes (all segments but a transfer's last are
//! full-sized). Linux reads the totals before the ACK's cumulative deliveries are counted (its
//! `in_ack_event` comes before `tcp_clean_rtx_queue`), so its window ends one ACK later than
//! RFC 8257's; ccsim follows the RFC. DCTCP needs ECN: its flows are ECN-capable whatever the
//! stack says.

use super::common::reduce_to;
use super::params::{ParamInfo, ParamKind, Params};
use super::reno::RenoWindow;
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, EcnFeedback, Window};
use crate::units::Time;

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "g",
        kind: ParamKind::Float,
        // RFC 8257 section 4.2 and Linux dctcp_shift_g = 4: g = 1/2^4.
        default: 0.0625,
        min: 1e-6,
        max: 1.0,
        doc: "weight of the newest window's marked fraction in alpha (RFC 8257: 1/16)",
    },
    ParamInfo {
        name: "alpha_init",
        kind: ParamKind::Float,
        // Linux dctcp_alpha_on_init = DCTCP_MAX_ALPHA (1024/1024).
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "alpha before the first window is measured (Linux: 1, the first marks halve)",
    },
];

#[derive(Clone, Debug)]
pub struct Dctcp {
    window: RenoWindow,
    g: f64,
    /// The estimate of the marked fraction, 0..=1.
    alpha: f64,
    /// The sender's delivered and CE-delivered totals when the current window began.
    window_delivered: u64,
    window_ce: u64,
    /// cwnd before the last reduction, ECN or loss (Linux `loss_cwnd`): what an undo restores.
    loss_cwnd: f64,
}

impl Dctcp {
    pub fn new(g: f64, alpha_init: f64) -> Self {
        Dctcp { window: RenoWindow::default(), g, alpha: alpha_init, window_delivered: 0, window_ce: 0, loss_cwnd: 0.0 }
    }

    pub fn from_params(p: &Params) -> Self {
        Dctcp::new(p.get("g"), p.get("alpha_init"))
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// At the end of a window, fold its marked fraction into alpha.
    fn observe(&mut self, ack: &AckSample) {
        if !ack.round_start {
            return;
        }
        let delivered = ack.delay.delivered - self.window_delivered;
        let marked = ack.delay.delivered_ce - self.window_ce;
        let f = if delivered > 0 { (marked as f64 / delivered as f64).min(1.0) } else { 0.0 };
        self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
        self.window_delivered = ack.delay.delivered;
        self.window_ce = ack.delay.delivered_ce;
    }
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp::new(0.0625, 1.0)
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.observe(ack);
        self.window.on_ack(ack, w);
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.observe(ack);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.loss_cwnd = w.cwnd;
        match ev.kind {
            // RFC 8257 section 3.3: from cwnd itself, whatever the profile's loss basis.
            CongestionKind::Ecn => reduce_to(ev, w, w.cwnd * (1.0 - self.alpha / 2.0)),
            CongestionKind::Loss | CongestionKind::Timeout => self.window.on_congestion(ev, w),
        }
    }

    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::PerSegment
    }

    /// Linux `dctcp_cwnd_undo`: the window before DCTCP's own last reduction (ECN or loss),
    /// not the sender's from before the episode.
    fn undo_cwnd(&mut self, _now: Time, w: &Window, _prior_cwnd: f64) -> f64 {
        w.cwnd.max(self.loss_cwnd)
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    /// `alpha`: the estimated fraction of marked segments, 0..=1.
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::*;

    /// The sender's running totals (Linux `tp->delivered`, `tp->delivered_ce`) for hand-fed ACKs.
    #[derive(Default)]
    struct Totals {
        delivered: u64,
        ce: u64,
    }

    impl Totals {
        /// An ACK newly delivering `segments` (cumulatively or by SACK), `ce` of them reported
        /// CE-marked; it ends the window when `round_start`.
        fn ack(&mut self, segments: u64, ce: u64, round_start: bool) -> AckSample {
            self.delivered += segments;
            self.ce += ce;
            let mut a = ack(segments as f64);
            a.ece = ce > 0;
            a.ce_delivered = ce as f64;
            a.round_start = round_start;
            a.delay.delivered = self.delivered;
            a.delay.delivered_ce = self.ce;
            a
        }
    }

    /// One window of `n` single-segment ACKs, the first `marked` of them with ECE; the last ends
    /// the window (the sender's round start).
    fn window(cc: &mut Dctcp, w: &mut Window, totals: &mut Totals, n: usize, marked: usize) {
        for i in 0..n {
            let a = totals.ack(1, u64::from(i < marked), i + 1 == n);
            if a.ece {
                cc.on_ack_in_recovery(&a); // the sender does not let an ECE ACK grow the window
            } else {
                cc.on_ack(&a, w);
            }
        }
    }

    /// Linux `dctcp_cwnd_undo`: an undo comes back to the window before DCTCP's own last
    /// reduction, whatever the sender remembers of the episode's start (here an ECN cut came
    /// first: the loss episode began at the cut window, 40 segments, where DCTCP restores 40).
    #[test]
    fn an_undo_restores_the_window_before_dctcps_last_reduction() {
        let mut cc = Dctcp::new(0.0625, 0.5);
        let mut w = Window { cwnd: 80.0, ssthresh: 80.0 };
        cc.on_congestion(&congestion(CongestionKind::Ecn, 80.0, false), &mut w);
        assert_eq!(w.cwnd, 60.0, "cwnd (1 - alpha / 2)");
        w.cwnd = 40.0;
        cc.on_congestion(&congestion(CongestionKind::Loss, 40.0, false), &mut w);
        assert_eq!(w.cwnd, 20.0);
        assert_eq!(cc.undo_cwnd(0, &w, 80.0), 40.0);
    }

    #[test]
    fn alpha_moves_by_g_towards_each_windows_marked_fraction() {
        let mut cc = Dctcp::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        let t = &mut Totals::default();
        assert_eq!(cc.alpha(), 1.0);
        // F = 0: alpha = 15/16 * 1 = 0.9375.
        window(&mut cc, &mut w, t, 4, 0);
        assert_eq!(cc.alpha(), 0.9375);
        // F = 1/2: alpha = 15/16 * 0.9375 + 1/16 * 1/2 = 0.87890625 + 0.03125 = 0.91015625.
        window(&mut cc, &mut w, t, 4, 2);
        assert_eq!(cc.alpha(), 0.910_156_25);
        // F = 1: alpha = 15/16 * 0.91015625 + 1/16 = 0.853271484375 + 0.0625 = 0.915771484375.
        window(&mut cc, &mut w, t, 4, 4);
        assert_eq!(cc.alpha(), 0.915_771_484_375);
    }

    #[test]
    fn unmarked_windows_decay_alpha_geometrically() {
        let mut cc = Dctcp::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        let t = &mut Totals::default();
        for _ in 0..16 {
            window(&mut cc, &mut w, t, 3, 0);
        }
        assert!((cc.alpha() - (15.0f64 / 16.0).powi(16)).abs() < 1e-15); // 0.3561
    }

    #[test]
    fn an_ecn_event_cuts_cwnd_by_half_alpha() {
        let mut cc = Dctcp::new(0.0625, 0.5);
        let mut w = Window { cwnd: 10.0, ssthresh: 100.0 };
        // alpha 0.5: cwnd = 10 (1 - 0.25) = 7.5.
        cc.on_congestion(&congestion(CongestionKind::Ecn, 10.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 7.5, ssthresh: 7.5 });
        // alpha 1 (the initial value): the first marks halve, as Reno's would.
        let mut cc = Dctcp::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Ecn, 10.0, false), &mut w);
        assert_eq!(w.cwnd, 5.0);
        // alpha 0: no cut at all.
        let mut cc = Dctcp::new(0.0625, 0.0);
        let mut w = Window { cwnd: 10.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Ecn, 10.0, false), &mut w);
        assert_eq!(w.cwnd, 10.0);
    }

    #[test]
    fn after_a_fully_marked_window_the_cut_follows_the_new_alpha() {
        let mut cc = Dctcp::new(0.0625, 0.0);
        let mut w = Window { cwnd: 16.0, ssthresh: 8.0 };
        // Every segment of a window marked: alpha = 1/16; cwnd 16 (1 - 1/32) = 15.5.
        window(&mut cc, &mut w, &mut Totals::default(), 16, 16);
        assert_eq!((cc.alpha(), w.cwnd), (0.0625, 16.0), "ECE ACKs do not grow the window");
        cc.on_congestion(&congestion(CongestionKind::Ecn, 16.0, false), &mut w);
        assert_eq!(w.cwnd, 15.5);
    }

    /// Linux counts a window's deliveries and marks from the sender's totals, so segments
    /// SACKed by duplicate ACKs, and the marks those ACKs report, count where the cumulative
    /// ACKs alone would not see them. A window: a cumulative ACK of 2 segments (unmarked), three
    /// duplicate ACKs SACKing 2 segments each, two of them reporting both marked, and the ACK
    /// that ends the window, covering 1 more: F = 4 / 9. From alpha 0: alpha = 4/9 / 16.
    #[test]
    fn sacked_deliveries_and_marks_on_duplicate_acks_count() {
        let mut cc = Dctcp::new(0.0625, 0.0);
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        let t = &mut Totals::default();
        cc.on_ack(&t.ack(2, 0, false), &mut w);
        t.ack(2, 2, false); // duplicate ACKs: DCTCP sees none of them
        t.ack(2, 0, false);
        t.ack(2, 2, false);
        cc.on_ack_in_recovery(&t.ack(1, 0, true));
        assert_eq!(cc.alpha(), 4.0 / 9.0 / 16.0);
    }

    /// Under AccECN an ACK may report more marks than it delivers (earlier ACKs were lost):
    /// the window's fraction counts them, capped at 1.
    #[test]
    fn accecn_counts_are_the_marks_and_the_fraction_is_at_most_one() {
        let mut cc = Dctcp::new(0.0625, 0.0);
        let t = &mut Totals::default();
        cc.on_ack_in_recovery(&t.ack(4, 3, true));
        assert_eq!(cc.alpha(), 0.0625 * 0.75);
        let mut over = Totals { delivered: t.delivered, ce: t.ce };
        let a = over.ack(2, 5, true);
        cc.on_ack_in_recovery(&a);
        assert_eq!(cc.alpha(), 0.9375 * 0.0625 * 0.75 + 0.0625);
    }

    #[test]
    fn a_loss_still_halves_and_growth_is_renos() {
        let mut cc = Dctcp::new(0.0625, 0.0);
        let mut w = Window { cwnd: 10.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 10.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 5.0, ssthresh: 5.0 });
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(w.cwnd, 5.2, "congestion avoidance: 1/cwnd per segment");
    }
}
