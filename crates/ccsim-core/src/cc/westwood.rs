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
//!
//! TCPW-RE (`estimator = 1`; R. Wang, M. Valla, M. Y. Sanadidi, M. Gerla, "Adaptive Bandwidth
//! Share Estimation in TCP Westwood", Globecom 2002; H. Shimonishi, M. Y. Sanadidi, M. Gerla,
//! ICC 2005) estimates the rate the flow achieves rather than the bandwidth it could have: bytes
//! acknowledged over an interval T of the order of an RTT, divided by T, filtered. The reaction is
//! the same, ssthresh = RE x RTT_min; with RE near cwnd/RTT that is cwnd x RTT_min/RTT, a cut of
//! exactly the packets the flow has queued. Here RE is the same estimator (filters, duplicate-ACK
//! credit) with intervals of `re_interval` seconds, or of one RTT without Linux's 50 ms floor when
//! `re_interval` is 0, so on short paths it samples more often than Westwood+ and follows the
//! flow's own rate. The published TCPW-RE sets ssthresh at the loss: `reduce_at_entry = true`.

use super::common::bandwidth::{BweSpan, WestwoodBwe};
use super::common::{additive_increase, ca_rtt, grow, multiplicative_decrease, reduce_to, MIN_SSTHRESH};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::units::{Time, NS_PER_S};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "reduce_at_entry",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "set ssthresh = BWE x RTT_min when a loss is detected (papers) instead of Reno's halving \
              then BWE x RTT_min when recovery ends (Linux)",
    },
    ParamInfo {
        name: "estimator",
        kind: ParamKind::Int,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "0: Westwood+ bandwidth estimate, samples over max(RTT, 50 ms) (Linux); 1: TCPW-RE rate \
              estimate, samples over re_interval",
    },
    ParamInfo {
        name: "re_interval",
        kind: ParamKind::Float,
        default: 0.0,
        min: 0.0,
        max: 60.0,
        doc: "TCPW-RE's sampling interval T, seconds; 0 = one RTT (latest sample, no 50 ms floor). \
              Only with estimator = 1",
    },
];

#[derive(Clone, Debug, Default)]
pub struct Westwood {
    reduce_at_entry: bool,
    bwe: Option<WestwoodBwe>,
    /// How long the estimator's sampling intervals last: Westwood+'s, or TCPW-RE's.
    span: BweSpan,
}

impl Westwood {
    pub fn from_params(p: &Params) -> Self {
        let span = estimator_span(p.get("estimator"), p.get("re_interval"));
        Westwood { reduce_at_entry: p.flag("reduce_at_entry"), bwe: None, span }
    }

    fn observe(&mut self, ack: &AckSample) {
        let span = self.span;
        let bwe = self.bwe.get_or_insert_with(|| WestwoodBwe::with_span(ack.now, span));
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

/// The sampling interval of `estimator` (0 Westwood+, 1 TCPW-RE) with `re_interval` seconds.
fn estimator_span(estimator: f64, re_interval: f64) -> BweSpan {
    if estimator == 0.0 {
        BweSpan::Westwood
    } else if re_interval > 0.0 {
        BweSpan::Fixed((re_interval * NS_PER_S as f64).round() as u64)
    } else {
        BweSpan::Rtt
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

    /// `bwe`: the filtered estimate (BWE, or RE with `estimator = 1`), segments/s; `pipe`: the
    /// estimate times RTT_min, the window a loss sets, segments. Both NaN before the first sample.
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        let bwe = self.bwe.as_ref().map_or(0.0, |b| b.estimate());
        out("bwe", if bwe > 0.0 { bwe } else { f64::NAN });
        out("pipe", self.pipe().unwrap_or(f64::NAN));
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
        let mut cc = Westwood { reduce_at_entry: true, ..Default::default() };
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

    /// Feed ACKs at 1 s + 0, 10, ..., `until_ms` ms, each acknowledging 10 segments (1000
    /// segments/s) with a `rtt_ms` RTT.
    fn every_10ms(cc: &mut Westwood, until_ms: u64, rtt_ms: u64) {
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        for (i, t) in (0..=until_ms).step_by(10).enumerate() {
            let mut a = ack(10.0);
            a.now = (1000 + t) * MS;
            a.echoed_ts = a.now - rtt_ms * MS;
            a.delivered = 10 * i as u64;
            cc.on_ack(&a, &mut w);
        }
    }

    fn variant(estimator: f64, re_interval: f64) -> Westwood {
        Westwood { reduce_at_entry: true, bwe: None, span: estimator_span(estimator, re_interval) }
    }

    /// A 15 ms path, one ACK of 10 segments every 10 ms, ACKs at 0..=60 ms. The first ACK only
    /// sets the counting point, and an interval is closed by the first ACK after it has lasted
    /// long enough, before that ACK's segments are counted.
    ///
    /// Westwood+ (BE): intervals last more than max(15, 50) = 50 ms, so the one sample by 60 ms is
    /// closed at 60 ms with the ACKs of 10..50 ms: 50 segments / 0.060 s = 833.33/s, which seeds
    /// both filter stages. Pipe = 833.33 x 0.015 s = 12.5 segments.
    ///
    /// TCPW-RE, `re_interval = 0` (one RTT, no floor): intervals last more than 15 ms, so they
    /// close every 20 ms: at 20 ms (ACK of 10 ms: 10 / 0.020 = 500/s, the seed), 40 ms (ACKs of
    /// 20, 30 ms: 20 / 0.020 = 1000/s) and 60 ms (1000/s):
    /// * seed: stage 1 = RE = 500;
    /// * 1000: stage 1 = (7 x 500 + 1000)/8 = 562.5, RE = (7 x 500 + 562.5)/8 = 507.8125;
    /// * 1000: stage 1 = (7 x 562.5 + 1000)/8 = 617.1875, RE = (7 x 507.8125 + 617.1875)/8 =
    ///   521.484375.
    ///
    /// Pipe = 521.484375 x 0.015 = 7.822265625 segments: three samples where BE has one, and still
    /// filtered toward the early low samples, so RE reads lower.
    ///
    /// TCPW-RE, `re_interval = 0.035`: intervals last more than 35 ms, closing at 40 ms with the
    /// ACKs of 10..30 ms: 30 / 0.040 = 750/s, the only sample by 60 ms. Pipe = 750 x 0.015 =
    /// 11.25.
    ///
    /// With `reduce_at_entry`, a loss at cwnd 20 sets ssthresh to the pipe and cwnd to
    /// min(20, pipe).
    #[test]
    fn the_rate_estimate_samples_every_re_interval_where_westwood_plus_waits_50ms() {
        let cases = [
            (0.0, 0.0, 833.333_333_333_333_4, 12.5),
            (1.0, 0.0, 521.484_375, 7.822_265_625),
            (1.0, 0.035, 750.0, 11.25),
        ];
        for (estimator, re_interval, estimate, pipe) in cases {
            let mut cc = variant(estimator, re_interval);
            every_10ms(&mut cc, 60, 15);
            let got = cc.estimate().unwrap().estimate();
            assert!((got - estimate).abs() < 1e-9, "estimator {estimator} T {re_interval}: {got}");
            assert!((cc.pipe().unwrap() - pipe).abs() < 1e-9, "estimator {estimator} T {re_interval}");
            let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
            cc.on_congestion(&congestion(CongestionKind::Loss, 20.0, false), &mut w);
            assert!((w.ssthresh - pipe).abs() < 1e-9 && w.cwnd == w.ssthresh, "{w:?}");
        }
    }

    /// On a path of 50 ms or more, max(RTT, 50 ms) = RTT: RE over one RTT takes the same samples
    /// as Westwood+. 60 ms RTT, ACKs at 0..=200 ms: intervals close at 70 ms (ACKs of 10..60 ms:
    /// 60 / 0.070 = 857.14/s) and 140 ms (ACKs of 70..130 ms: 70 / 0.070 = 1000/s) in both.
    #[test]
    fn on_long_paths_re_over_one_rtt_is_westwood_plus() {
        let mut be = variant(0.0, 0.0);
        let mut re = variant(1.0, 0.0);
        every_10ms(&mut be, 200, 60);
        every_10ms(&mut re, 200, 60);
        let (b, r) = (be.estimate().unwrap().estimate(), re.estimate().unwrap().estimate());
        let seed = 60.0 / 0.07;
        let stage1 = (7.0 * seed + 1000.0) / 8.0;
        assert!((b - (7.0 * seed + stage1) / 8.0).abs() < 1e-9, "{b}");
        assert_eq!(b, r);
    }

    /// Estimator 0 is Westwood+ whatever `re_interval`; estimator 1 samples over one RTT, or
    /// over `re_interval` seconds when it is set.
    #[test]
    fn the_estimator_parameters_choose_the_sampling_interval() {
        assert_eq!(estimator_span(0.0, 0.035), BweSpan::Westwood);
        assert_eq!(estimator_span(1.0, 0.0), BweSpan::Rtt);
        assert_eq!(estimator_span(1.0, 0.035), BweSpan::Fixed(35 * MS));
        assert_eq!(Westwood::default().span, BweSpan::Westwood);
    }

    /// Before a sample both values are NaN; then `bwe` is the estimate and `pipe` BWE x RTT_min.
    #[test]
    fn inspect_reports_the_estimate_and_the_pipe() {
        let mut cc = variant(1.0, 0.035);
        let mut seen = Vec::new();
        cc.inspect(0, &mut |n, v| seen.push((n, v)));
        assert!(seen.len() == 2 && seen.iter().all(|(_, v)| v.is_nan()));
        every_10ms(&mut cc, 60, 15);
        seen.clear();
        cc.inspect(0, &mut |n, v| seen.push((n, v)));
        assert_eq!(seen, vec![("bwe", 750.0), ("pipe", 11.25)]);
    }
}
