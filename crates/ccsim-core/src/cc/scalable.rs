//! Scalable TCP (T. Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area
//! Networks", ACM CCR 33(2), 2003; Linux `net/ipv4/tcp_scalable.c`).
//!
//! Multiplicative increase, multiplicative decrease: above a legacy window each acknowledged
//! segment adds 0.01 segment (the window grows 1% per RTT) and a congestion event removes 1/8
//! of it, so the time to recover from a loss is the same at every rate, about 13.4 RTTs.
//!
//! Linux form: `tcp_cong_avoid_ai` with `w = min(cwnd, ai_cnt)`, i.e. one segment per
//! min(cwnd, 100) acknowledged segments: Reno's 1/cwnd per segment below cwnd = 100, 1/100 above.
//! That makes Linux's legacy window 100 segments, where the paper's switch happens at a legacy
//! window of its own (16 segments is the value usually quoted, unverified); `ai_cnt` sets it.
//! Linux used 50 until 5.7, to make up for counting ACKs rather than segments under delayed ACKs;
//! "tcp: fix stretch ACK bugs in Scalable" (2020, Linux 5.7) made it count acknowledged segments
//! and raised the constant to 100.
//! Timeouts: Linux's ssthresh (cwnd - cwnd/8), then cwnd = 1.
//!
//! `linux26 = true`: Linux 2.6.22's `tcp_scalable.c` (as ns-2's TCP-Linux runs it): every ACK is
//! one unit whatever it acknowledges; slow start while cwnd <= ssthresh adds one segment per ACK;
//! in avoidance each ACK bumps a counter and the ACK that takes it past min(cwnd, 50) adds a
//! segment and clears it, so one segment per min(cwnd, 50) + 1 ACKs. `ai_cnt` defaults to 50
//! then. The decrease is the same.

use super::common::{grow, grow_2_6, increase_per, increase_per_ack_2_6, reduce_to};
use super::params::{ParamInfo, ParamKind, Params};
use super::{AckSample, CongestionControl, CongestionEvent, Window};

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "ai_cnt",
        kind: ParamKind::Float,
        // Linux TCP_SCALABLE_AI_CNT (100 since Linux 5.7; 50 before, when it counted ACKs).
        default: 100.0,
        min: 1.0,
        max: 1e9,
        doc: "one segment per min(cwnd, ai_cnt) acknowledged segments: a = 1/ai_cnt per segment \
              above cwnd = ai_cnt (Linux 100), Reno below",
    },
    ParamInfo {
        name: "md",
        kind: ParamKind::Float,
        // Kelly's b = 0.125; Linux TCP_SCALABLE_MD_SCALE = 3 (cwnd >> 3).
        default: 0.125,
        min: 0.001,
        max: 0.99,
        doc: "fraction of the window removed on a congestion event (Kelly's b = 1/8)",
    },
    ParamInfo {
        name: "linux26",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "Linux 2.6.22's tcp_scalable.c, as ns-2's TCP-Linux runs it: one unit per ACK, slow start \
              while cwnd <= ssthresh, one segment per min(cwnd, ai_cnt) + 1 ACKs, ai_cnt 50 unless set",
    },
];

/// Linux 2.6's `TCP_SCALABLE_AI_CNT` ("50 instead of 100 to account for delayed ack").
const AI_CNT_2_6: f64 = 50.0;

#[derive(Clone, Debug)]
pub struct Scalable {
    ai_cnt: f64,
    md: f64,
    linux26: bool,
}

impl Default for Scalable {
    fn default() -> Self {
        Scalable { ai_cnt: 100.0, md: 0.125, linux26: false }
    }
}

impl Scalable {
    pub fn from_params(p: &Params) -> Self {
        let linux26 = p.flag("linux26");
        let ai_cnt = match p.explicit("ai_cnt") {
            Some(v) => v,
            None if linux26 => AI_CNT_2_6,
            None => p.get("ai_cnt"),
        };
        Scalable { ai_cnt, md: p.get("md"), linux26 }
    }

    /// Linux 2.6.22: the module as it was, with its constant of 50.
    pub fn linux26() -> Self {
        Scalable { ai_cnt: AI_CNT_2_6, linux26: true, ..Default::default() }
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        let ai_cnt = self.ai_cnt;
        if self.linux26 {
            grow_2_6(ack, w, |w| increase_per_ack_2_6(w, w.cwnd.min(ai_cnt)));
            return;
        }
        grow(ack, w, |w, units| {
            let per = w.cwnd.min(ai_cnt);
            increase_per(w, per, units);
        });
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        reduce_to(ev, w, ev.basis * (1.0 - self.md));
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, congestion};
    use super::super::CongestionKind;
    use super::*;

    #[test]
    fn above_the_legacy_window_each_segment_adds_a_hundredth_below_it_reno() {
        let mut cc = Scalable::default();
        // cwnd 160 > 100: each ACK adds 1/100.
        let mut w = Window { cwnd: 160.0, ssthresh: 100.0 };
        for _ in 0..4 {
            cc.on_ack(&ack(1.0), &mut w);
        }
        assert!((w.cwnd - 160.04).abs() < 1e-9, "{}", w.cwnd);
        // A loss removes 1/8: 160.04 * 0.875 = 140.035.
        cc.on_congestion(&congestion(CongestionKind::Loss, w.cwnd, false), &mut w);
        assert!((w.cwnd - 140.035).abs() < 1e-9 && w.ssthresh == w.cwnd, "{w:?}");
        // cwnd 50 < 100: Reno, 1/50 per ACK; an ACK for 2 segments (byte counting) adds 2/50.
        let mut w = Window { cwnd: 50.0, ssthresh: 10.0 };
        cc.on_ack(&ack(1.0), &mut w);
        assert!((w.cwnd - 50.02).abs() < 1e-12);
        cc.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (50.02 + 2.0 / 50.02)).abs() < 1e-12);
    }

    #[test]
    fn timeouts_keep_seven_eighths_in_ssthresh_and_restart_at_one() {
        let mut cc = Scalable::default();
        let mut w = Window { cwnd: 400.0, ssthresh: 100.0 };
        cc.on_congestion(&congestion(CongestionKind::Timeout, 400.0, true), &mut w);
        assert_eq!(w, Window { cwnd: 1.0, ssthresh: 350.0 });
        // Slow start below ssthresh is standard: +1 per segment.
        cc.on_ack(&ack(1.0), &mut w);
        assert_eq!(w.cwnd, 2.0);
    }

    /// Linux 2.6.22 (`linux26`): ACKs counted, not segments, against min(cwnd, 50) + 1. At cwnd 160
    /// an ACK of 2 segments adds 1/51 = 0.0196078 (default: 2/100); at cwnd 30, below 50, 1/31 =
    /// 0.0322581 (default: 2/30). At cwnd = ssthresh = 100 an ACK is in slow start and adds a
    /// segment (default: avoidance, 1/100). The built form and `Scalable::linux26` agree, and an
    /// explicit `ai_cnt` wins over the 50.
    #[test]
    fn linux26_counts_acks_against_min_cwnd_50_plus_one() {
        use crate::cc::registry::build;
        use std::collections::BTreeMap;
        let rng = || crate::rng::stream(1, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion);
        let mut cc = Scalable::linux26();
        let mut w = Window { cwnd: 160.0, ssthresh: 100.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (160.0 + 1.0 / 51.0)).abs() < 1e-12, "{}", w.cwnd);
        let mut w = Window { cwnd: 30.0, ssthresh: 10.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (30.0 + 1.0 / 31.0)).abs() < 1e-12, "{}", w.cwnd);
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        cc.on_ack(&ack(2.0), &mut w);
        assert_eq!(w.cwnd, 101.0);
        let mut modern = Scalable::default();
        let mut w = Window { cwnd: 100.0, ssthresh: 100.0 };
        modern.on_ack(&ack(1.0), &mut w);
        assert!((w.cwnd - 100.01).abs() < 1e-12);
        let values = BTreeMap::from([("linux26".to_string(), 1.0)]);
        let mut built = build("scalable", &values, rng()).unwrap();
        let mut w = Window { cwnd: 160.0, ssthresh: 100.0 };
        built.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (160.0 + 1.0 / 51.0)).abs() < 1e-12, "{}", w.cwnd);
        let values = BTreeMap::from([("linux26".to_string(), 1.0), ("ai_cnt".to_string(), 100.0)]);
        let mut built = build("scalable", &values, rng()).unwrap();
        let mut w = Window { cwnd: 160.0, ssthresh: 100.0 };
        built.on_ack(&ack(2.0), &mut w);
        assert!((w.cwnd - (160.0 + 1.0 / 101.0)).abs() < 1e-12, "{}", w.cwnd);
    }

    /// Oracle (Scalable TCP's law): after a loss at W the window restarts at 7/8 W and grows by a
    /// factor 1.01 per round of ACKs (one ACK per segment of the round's window), so it takes
    /// ceil(ln(8/7) / ln(1.01)) = ceil(13.42) = 14 rounds to be back at W, at any W above the
    /// legacy window: 1.01^13 = 1.1381 < 8/7 = 1.1429 < 1.01^14 = 1.1495.
    #[test]
    fn recovery_after_a_loss_takes_fourteen_rounds_at_any_rate() {
        for w_max in [1000.0, 8000.0] {
            let mut cc = Scalable::default();
            let mut w = Window { cwnd: w_max, ssthresh: 1.0 };
            cc.on_congestion(&congestion(CongestionKind::Loss, w_max, false), &mut w);
            let mut rounds = 0;
            while w.cwnd < w_max {
                // A round: as many one-segment ACKs as the window held when it began.
                let acks = w.cwnd.floor() as usize;
                for _ in 0..acks {
                    cc.on_ack(&ack(1.0), &mut w);
                }
                rounds += 1;
            }
            assert_eq!(rounds, 14, "W = {w_max}");
        }
    }
}
