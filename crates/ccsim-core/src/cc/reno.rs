//! TCP Reno (RFC 5681): slow start, +1 segment per RTT in congestion avoidance, halve on loss,
//! one segment after a timeout. Fast recovery leaves on the first ACK of new data.
//!
//! The window rules are shared with [`super::newreno::NewReno`]; the two differ only in the loss
//! recovery the sender runs, which the sender owns.
//!
//! `linux26 = true`: the arithmetic of Linux 2.6.22's `tcp_reno_cong_avoid` (`tcp_cong.c`, as
//! ns-2's TCP-Linux runs it; byte counting off, its default): every ACK is one unit whatever it
//! acknowledges; slow start while cwnd <= ssthresh adds one segment per ACK; avoidance adds one
//! segment per cwnd + 1 ACKs (the incrementing ACK restarts the counter without counting itself).
//! With delayed ACKs that is half a segment per RTT, where current Linux counts segments.

use super::common::{
    additive_increase, grow_2_6, in_slow_start, increase_per_ack_2_6, may_grow, multiplicative_decrease, slow_start,
};
use super::{AckSample, CongestionControl, CongestionEvent, RecoveryProcedure, Window};

/// AIMD(alpha, beta) window arithmetic, used by Reno and NewReno: `alpha` segments per RTT in
/// congestion avoidance, the window cut to `beta` times the basis on a loss. Reno is (1, 1/2).
#[derive(Clone, Debug)]
pub struct RenoWindow {
    pub alpha: f64,
    pub beta: f64,
    /// Linux 2.6.22's per-ACK arithmetic (see the module header).
    pub linux26: bool,
}

impl Default for RenoWindow {
    fn default() -> Self {
        RenoWindow { alpha: 1.0, beta: 0.5, linux26: false }
    }
}

impl RenoWindow {
    pub fn from_params(p: &super::params::Params) -> Self {
        RenoWindow { alpha: p.get("alpha"), beta: p.get("beta"), linux26: p.flag("linux26") }
    }

    pub fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        if self.linux26 {
            // One segment per cwnd/alpha + 1 ACKs (Linux's module has alpha = 1).
            let alpha = self.alpha;
            grow_2_6(ack, w, |w| increase_per_ack_2_6(w, w.cwnd / alpha));
            return;
        }
        if !may_grow(ack) {
            return;
        }
        if in_slow_start(w) {
            let left = slow_start(ack, w);
            if left > 0.0 {
                additive_increase(w, self.alpha, left);
            }
        } else {
            additive_increase(w, self.alpha, ack.increase_units);
        }
    }

    pub fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        multiplicative_decrease(ev, w, self.beta);
    }
}

/// TCP Reno.
#[derive(Clone, Debug, Default)]
pub struct Reno {
    window: RenoWindow,
}

impl Reno {
    pub fn new(window: RenoWindow) -> Self {
        Reno { window }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.window.on_ack(ack, w);
    }
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.window.on_congestion(ev, w);
    }
    fn customary_recovery(&self) -> RecoveryProcedure {
        RecoveryProcedure::Reno
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::super::CongestionKind;
    use super::*;

    #[test]
    fn slow_start_adds_one_segment_per_ack_then_avoidance_one_per_window() {
        let mut cc = Reno::default();
        let mut w = Window { cwnd: 2.0, ssthresh: 4.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(w.cwnd, 3.0);
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(w.cwnd, 4.0);
        // cwnd == ssthresh: congestion avoidance, 1/cwnd per ACK.
        cc.on_ack(&ack(1.0), &mut w);
        assert!((w.cwnd - 4.25).abs() < 1e-12);
        cc.on_ack(&ack(1.0), &mut w);
        assert!((w.cwnd - (4.25 + 1.0 / 4.25)).abs() < 1e-12);
    }

    #[test]
    fn loss_halves_the_basis_and_timeout_resets_to_one() {
        let mut cc = Reno::default();
        let mut w = Window { cwnd: 20.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 20.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 10.0, ssthresh: 10.0 });
        cc.on_congestion(&congestion(CongestionKind::Timeout, 10.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 5.0 });
        // A second expiry of the same segment keeps ssthresh.
        cc.on_congestion(&congestion(CongestionKind::Timeout, 1.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 5.0 });
        // Never below 2 segments.
        cc.on_congestion(&congestion(CongestionKind::Loss, 3.0, false), &mut w);
        assert_eq!(w.ssthresh, 2.0);
    }

    #[test]
    fn byte_counting_with_a_cap_limits_slow_start_per_ack() {
        let mut cc = Reno::default();
        let mut w = Window { cwnd: 4.0, ssthresh: 100.0 };
        let mut a = ack(2.0); // a delayed ACK covering two segments
        a.growth.slow_start_cap = Some(1.0);
        cc.on_ack(&a, &mut w);
        assert_eq!(w.cwnd, 5.0);
        a.growth.slow_start_cap = None;
        cc.on_ack(&a, &mut w);
        assert_eq!(w.cwnd, 7.0);
    }

    #[test]
    fn no_growth_when_gated_and_not_cwnd_limited() {
        let mut cc = Reno::default();
        let mut w = Window { cwnd: 4.0, ssthresh: 100.0 };
        let mut a = ack(1.0);
        a.growth.gating = true;
        a.cwnd_limited = false;
        cc.on_ack(&a, &mut w);
        assert_eq!(w.cwnd, 4.0);
    }

    /// Linux 2.6.22 (`linux26`): one unit per ACK. At cwnd 4 = ssthresh the ACK is still in slow
    /// start (cwnd <= ssthresh) and adds a segment: 5, where the default is in avoidance (4.25
    /// above). A delayed ACK of 2 segments in slow start adds 1 (byte counting: 2). In avoidance
    /// at cwnd 10 a segment takes cwnd + 1 = 11 ACKs: an ACK of 2 segments adds 1/11 = 0.090909
    /// (byte counting: 2/10), the next, at 10.090909, adds 1/11.090909. A loss halves as before.
    #[test]
    fn linux26_counts_acks_and_a_segment_takes_cwnd_plus_one_of_them() {
        let mut cc = Reno::new(RenoWindow { linux26: true, ..Default::default() });
        let mut w = Window { cwnd: 4.0, ssthresh: 4.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(w.cwnd, 5.0);
        let mut w = Window { cwnd: 4.0, ssthresh: 100.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert_eq!(w.cwnd, 5.0);
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - 10.090909).abs() < 1e-6, "{}", w.cwnd);
        cc.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (10.090909 + 1.0 / 11.090909)).abs() < 1e-6, "{}", w.cwnd);
        let mut bytes = Reno::default();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        bytes.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - 10.2).abs() < 1e-12);
        cc.on_congestion(&congestion(CongestionKind::Loss, 20.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 10.0, ssthresh: 10.0 });
    }

    #[test]
    fn slow_start_overshoot_carries_into_avoidance_under_byte_counting() {
        let mut cc = Reno::default();
        let mut w = Window { cwnd: 9.0, ssthresh: 10.0 };
        cc.on_ack(&ack(3.0), &mut w);
        // 1 segment of slow start reaches 10, the other 2 units give 2/10.
        assert!((w.cwnd - 10.2).abs() < 1e-12);
    }
}
