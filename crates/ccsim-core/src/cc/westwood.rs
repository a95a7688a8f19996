//! TCP Westwood+ (L. Grieco, S. Mascolo, "Performance evaluation and comparison of Westwood+,
//! New Reno and Vegas TCP congestion control", ACM CCR 34(2), 2004; Westwood: Casetti, Gerla,
//! Mascolo, Sanadidi, Wang, MobiCom 2001; Linux `net/ipv4/tcp_westwood.c`).
//!
//! Probing is Reno's. The sender estimates the rate at which its data is delivered (one sample
//! per RTT, filtered, see [`WestwoodBwe`]) and after a congestion event sets the window to that
//! rate times the minimum RTT, the pipe without a queue, instead of halving it: a loss that was
//! not caused by a full queue then costs little.
//!
//! Choices where sources differ:
//! * Linux (default) enters recovery with Reno's ssthresh (cwnd/2) and, when recovery ends, sets
//!   ssthresh and cwnd to BWE x RTT_min, which may be above the window before the loss. The
//!   papers (`reduce_at_entry = true`) set ssthresh = BWE x RTT_min at the loss and cwnd to the
//!   smaller of cwnd and ssthresh.
//! * A timeout sets cwnd = 1; on the first expiry of a timeout episode it also sets
//!   ssthresh = BWE x RTT_min and takes the next RTT sample as the new minimum (Linux raises
//!   `CA_EVENT_LOSS` only where `tcp_enter_loss` recomputes ssthresh, not on later expiries).
//! * Before the first bandwidth sample (within the first RTT) the reductions are Reno's; Linux
//!   would use its floor of 2 segments.
//! * The estimator is Linux's: samples over max(RTT, 50 ms), two cascaded 1/8 filters, duplicate
//!   ACKs credited as delivered.

use super::common::bandwidth::WestwoodBwe;
use super::common::{additive_increase, ca_rtt, grow, multiplicative_decrease, reduce_to, MIN_SSTHRESH};
use super::registry::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::units::Time;

pub const PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "reduce_at_entry",
    kind: ParamKind::Bool,
    default: 0.0,
    min: 0.0,
    max: 1.0,
    doc: "set ssthresh = BWE x RTT_min when a loss is detected (papers) instead of Reno's halving \
          then BWE x RTT_min when recovery ends (Linux)",
}];

#[derive(Clone, Debug, Default)]
pub struct Westwood {
    reduce_at_entry: bool,
    bwe: Option<WestwoodBwe>,
}

impl Westwood {
    pub fn from_params(p: &Params) -> Self {
        Westwood { reduce_at_entry: p.flag("reduce_at_entry"), bwe: None }
    }

    fn observe(&mut self, ack: &AckSample) {
        let bwe = self.bwe.get_or_insert_with(|| WestwoodBwe::new(ack.now));
        bwe.on_ack(ack.now, ack.delivered, ca_rtt(ack));
    }

    /// BWE x RTT_min in segments, once there is an estimate.
    pub fn pipe(&self) -> Option<f64> {
        self.bwe.as_ref().filter(|b| b.estimate() > 0.0).map(|b| b.pipe().max(MIN_SSTHRESH))
    }

    pub fn estimate(&self) -> Option<&WestwoodBwe> {
        self.bwe.as_ref()
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.observe(ack);
        grow(ack, w, |w, units| additive_increase(w, 1.0, units));
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.observe(ack);
    }

    fn on_dupack(&mut self, now: Time) {
        if let Some(b) = self.bwe.as_mut() {
            b.on_dupack(now);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        let Some(pipe) = self.pipe() else {
            multiplicative_decrease(ev, w, 0.5);
            return;
        };
        match ev.kind {
            CongestionKind::Timeout => {
                w.cwnd = 1.0;
                if ev.first_timeout {
                    w.ssthresh = pipe;
                    if let Some(b) = self.bwe.as_mut() {
                        b.reset_rtt_min();
                    }
                }
            }
            _ if self.reduce_at_entry => {
                let cwnd = w.cwnd;
                reduce_to(ev, w, pipe);
                w.cwnd = cwnd.min(w.ssthresh);
            }
            _ => multiplicative_decrease(ev, w, 0.5),
        }
    }

    fn on_recovery_exit(&mut self, _now: Time, w: &mut Window) {
        if self.reduce_at_entry {
            return;
        }
        if let Some(pipe) = self.pipe() {
            w.ssthresh = pipe;
            w.cwnd = pipe;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::*;
    use crate::units::NS_PER_MS;

    const MS: u64 = NS_PER_MS;

    /// Deliver one segment per ACK every 1 ms (1000 segments/s) for `ms` milliseconds at a
    /// 100 ms RTT, in avoidance, from 1 s + `from_ms`.
    fn steady(cc: &mut Westwood, w: &mut Window, from_ms: u64, ms: u64) {
        for t in from_ms..from_ms + ms {
            let mut a = ack(1.0);
            a.now = (1000 + t) * MS;
            a.echoed_ts = a.now - 100 * MS;
            a.delivered = t;
            cc.on_ack(&a, w);
        }
    }

    /// Intervals close after 101 ms: the first holds 100 segments (990/s), the later ones 101
    /// (1000/s), so after 2 s the filtered estimate is within 1% of 1000/s and BWE x RTT_min is
    /// 100 segments at a 100 ms RTT. Linux: a loss at cwnd 150 halves (75) and recovery ends at
    /// the pipe.
    #[test]
    fn recovery_ends_at_the_estimated_pipe() {
        let mut cc = Westwood::default();
        let mut w = Window { cwnd: 150.0, ssthresh: 10.0 };
        steady(&mut cc, &mut w, 1, 2000);
        let pipe = cc.pipe().unwrap();
        assert!((pipe - 100.0).abs() < 1.0, "pipe {pipe}");
        let mut w = Window { cwnd: 150.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 150.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 75.0, ssthresh: 75.0 });
        cc.on_recovery_exit(0, &mut w);
        assert_eq!(w, Window { cwnd: pipe, ssthresh: pipe });
    }

    /// Papers: ssthresh = pipe at the loss; cwnd = min(cwnd, ssthresh). A loss at cwnd 80 below
    /// the pipe keeps cwnd 80 (ssthresh 100); at 150 it drops to 100. A timeout sets ssthresh =
    /// pipe and cwnd = 1.
    #[test]
    fn papers_reduce_at_entry_and_timeouts_use_the_pipe() {
        let mut cc = Westwood { reduce_at_entry: true, bwe: None };
        let mut w = Window { cwnd: 150.0, ssthresh: 10.0 };
        steady(&mut cc, &mut w, 1, 2000);
        let pipe = cc.pipe().unwrap();
        let mut w = Window { cwnd: 80.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 80.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 80.0, ssthresh: pipe });
        let mut w = Window { cwnd: 150.0, ssthresh: 10.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 150.0, false), &mut w);
        assert_eq!(w, Window { cwnd: pipe, ssthresh: pipe });
        cc.on_congestion(&congestion(CongestionKind::Timeout, 150.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: pipe });
    }

    #[test]
    fn before_any_estimate_reductions_are_renos() {
        let mut cc = Westwood::default();
        let mut w = Window { cwnd: 40.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Loss, 40.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 20.0, ssthresh: 20.0 });
        cc.on_recovery_exit(0, &mut w);
        assert_eq!(w, Window { cwnd: 20.0, ssthresh: 20.0 });
        // Growth is Reno's: 20 + 1/20.
        let mut a = ack(1.0);
        a.now = MS;
        cc.on_ack(&a, &mut w);
        assert!((w.cwnd - 20.05).abs() < 1e-12);
    }

    /// Linux raises CA_EVENT_LOSS (ssthresh = BWE x RTT_min, RTT_min taken afresh from the next
    /// sample) only where `tcp_enter_loss` recomputes ssthresh: the first expiry of a timeout
    /// episode. A later expiry of the same segment only sets cwnd = 1. After a steady 100 ms
    /// (pipe about 100): first expiry -> ssthresh = pipe, and the next sample (200 ms) is the new
    /// minimum; second expiry with ssthresh 40 -> ssthresh stays 40, and a 300 ms sample does not
    /// replace the 200 ms minimum.
    #[test]
    fn only_the_first_expiry_of_a_timeout_resets_ssthresh_and_the_min_rtt() {
        let mut cc = Westwood::default();
        let mut w = Window { cwnd: 150.0, ssthresh: 10.0 };
        steady(&mut cc, &mut w, 1, 2000);
        let pipe = cc.pipe().unwrap();
        cc.on_congestion(&congestion(CongestionKind::Timeout, 150.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: pipe });
        let sample = |cc: &mut Westwood, t_ms: u64, rtt_ms: u64| {
            let mut a = ack(1.0);
            a.now = t_ms * MS;
            a.echoed_ts = a.now - rtt_ms * MS;
            a.delivered = 2001;
            cc.on_ack_in_recovery(&a);
        };
        sample(&mut cc, 3500, 200);
        assert_eq!(cc.estimate().unwrap().rtt_min(), Some(200 * MS));
        let mut w = Window { cwnd: 1.0, ssthresh: 40.0 };
        cc.on_congestion(&congestion(CongestionKind::Timeout, 1.0, false), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 40.0 });
        sample(&mut cc, 4500, 300);
        assert_eq!(cc.estimate().unwrap().rtt_min(), Some(200 * MS));
    }
}
