//! TCP-Fusion with RTT fairness, the proposal of K. Ogura, T. Fujikawa, S. Zhou, J. Katto,
//! "Improvement of RTT-Fairness in Hybrid TCP Congestion Control" (seed 002, section III, eq. 9-10).
//!
//! TCP-Fusion ([`super::fusion`]) whose loss mode, where the emulated Reno window drives the
//! window, grows by k T^2 segments per RTT instead of one (TCP-Libra's increase): every flow then
//! adds k T segments per second of rate whatever its RTT T. k = 1/0.04^2 = 625 s^-2 (seed 002), so
//! at 40 ms the floor grows as Reno's, at 80 ms four times faster, at 10 ms sixteen times slower.
//! Delay mode, slow start and the loss decrease are Fusion's unchanged.
//!
//! Choices (docs/algorithms.md, "fusion, fusion-rf"; everything else as in `fusion`):
//! * Only the floor's growth changes: `floor += acked k T^2 / cwnd` per ACK, on the flow's ACK
//!   clock (the actual window), so a round adds k T^2.
//! * T is the sender's smoothed RTT, queueing included (eq. 9 uses the round's RTT, and in loss
//!   mode the queue is building); `t_round_min = true` uses the previous round's smallest RTT.
//! * The floor halves on a loss, as Fusion's (Reno's and Libra's beta of about 1/2).
//! * No lower bound on the growth by default (`min_increase` = 0, the paper has none): a 10 ms flow
//!   adds 0.0625 segments per RTT in loss mode.

use super::fusion::{self, FloorGrowth, Fusion};
use super::params::{ParamInfo, ParamKind, Params};

pub const K: ParamInfo = ParamInfo {
    name: "k",
    kind: ParamKind::Float,
    default: 625.0,
    min: 0.0,
    max: 1e9,
    doc: "loss-mode growth k T^2 segments per RTT, s^-2 (seed 002: 1/0.04^2, Reno's at 40 ms)",
};

pub const T_ROUND_MIN: ParamInfo = ParamInfo {
    name: "t_round_min",
    kind: ParamKind::Bool,
    default: 0.0,
    min: 0.0,
    max: 1.0,
    doc: "T is the previous round's smallest RTT instead of the smoothed RTT",
};

pub const MIN_INCREASE: ParamInfo = ParamInfo {
    name: "min_increase",
    kind: ParamKind::Float,
    default: 0.0,
    min: 0.0,
    max: 1e6,
    doc: "smallest loss-mode growth, segments per RTT (0: none, as the paper)",
};

pub const PARAMS: &[ParamInfo] = &[
    fusion::D_MIN_ALPHA,
    fusion::D_MIN_WINC,
    fusion::DEC_MULTIPLIER,
    fusion::LOSS_FLOOR,
    fusion::W_INC_MIN,
    fusion::FLOOR_RESTART,
    K,
    T_ROUND_MIN,
    MIN_INCREASE,
];

/// TCP-Fusion with the RTT-fair floor.
pub fn from_params(p: &Params) -> Fusion {
    Fusion::from_params(p).with_floor_growth(
        "fusion-rf",
        FloorGrowth::RttSquared {
            k: p.get(K.name),
            round_min: p.flag(T_ROUND_MIN.name),
            min_increase: p.get(MIN_INCREASE.name),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack_rtt, congestion, Feed};
    use super::super::{CongestionControl, CongestionKind, Window};
    use super::*;
    use crate::units::NS_PER_MS;

    const MS: u64 = NS_PER_MS;

    fn rf() -> Fusion {
        Fusion::default()
            .with_floor_growth("fusion-rf", FloorGrowth::RttSquared { k: 625.0, round_min: false, min_increase: 0.0 })
    }

    /// In loss mode (floor = cwnd = 50, avoidance, phase idle) one ACK with smoothed RTT T moves
    /// the floor, and with it the window, by k T^2 / 50:
    /// 40 ms: 625 * 0.0016 = 1 -> 0.02 (Reno's 1/50, the same as Fusion's); 80 ms: 625 * 0.0064 =
    /// 4 -> 0.08; 100 ms: 6.25 -> 0.125; 10 ms: 0.0625 -> 0.00125.
    #[test]
    fn loss_mode_grows_k_rtt_squared_per_rtt() {
        for (t_ms, per_rtt) in [(40u64, 1.0), (80, 4.0), (100, 6.25), (10, 0.0625)] {
            let mut f = rf();
            let mut m = Feed::default();
            let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
            let mut a = ack_rtt(t_ms, false);
            a.srtt = t_ms * MS;
            f.on_ack(&m.stamp(a), &mut w);
            assert!((w.cwnd - (50.0 + per_rtt / 50.0)).abs() < 1e-12, "T {t_ms} ms: {}", w.cwnd);
            assert_eq!(f.floor(), Some(w.cwnd));
        }
        // Fusion at 80 ms: Reno's 1/50.
        let mut f = Fusion::default();
        let mut m = Feed::default();
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        let mut a = ack_rtt(80, false);
        a.srtt = 80 * MS;
        f.on_ack(&m.stamp(a), &mut w);
        assert!((w.cwnd - 50.02).abs() < 1e-12);
    }

    /// Over a round of ACKs (one per segment of the window) at 80 ms the floor gains about
    /// k T^2 = 4 segments, Fusion's 1: each ACK adds 4/cwnd with cwnd rising from 50 to 54, so
    /// 50 ACKs add between 50 * 4/54 = 3.70 and 4; Fusion's 50 ACKs add between 50/51 and 1.
    /// The ratio is the factor (80/40)^2 = 4 within 1%.
    #[test]
    fn a_round_at_80_ms_grows_four_times_renos_segment() {
        let gain = |mut f: Fusion| {
            let mut m = Feed::default();
            let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
            let mut a = ack_rtt(80, false);
            a.srtt = 80 * MS;
            for _ in 0..50 {
                f.on_ack(&m.stamp(a), &mut w);
            }
            w.cwnd - 50.0
        };
        let (g_rf, g_reno) = (gain(rf()), gain(Fusion::default()));
        assert!((3.70..4.0).contains(&g_rf), "fusion-rf {g_rf}");
        assert!((50.0 / 51.0..1.0).contains(&g_reno), "fusion {g_reno}");
        assert!((g_rf / g_reno - 4.0).abs() < 0.04 * 4.0, "ratio {}", g_rf / g_reno);
    }

    /// T from the previous round's minimum: a round at 80, 81, 82 ms (srtt 40 ms) ends; the next
    /// ACK grows the floor by 625 * 0.08^2 / cwnd = 4/cwnd, not the srtt's 1/cwnd. A guard of
    /// 0.5 segment per RTT lifts the 10 ms growth (0.0625) to 0.5.
    #[test]
    fn t_can_be_the_round_minimum_and_the_growth_can_have_a_floor() {
        let mut f = Fusion::default()
            .with_floor_growth("fusion-rf", FloorGrowth::RttSquared { k: 625.0, round_min: true, min_increase: 0.0 });
        let mut m = Feed::default();
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        for (t, start) in [(82, false), (81, false), (80, true)] {
            let mut a = ack_rtt(t, start);
            a.srtt = 40 * MS;
            f.on_ack(&m.stamp(a), &mut w);
        }
        // The first two ACKs had no round yet: srtt 40 ms, 1/50 each; the closing ACK
        // (after the round ended, minimum 80 ms) 4/50.02... The phase is increase with W_inc = 1,
        // which the floor, growing faster, overrides.
        let c = 50.0 + 1.0 / 50.0;
        let c = c + 1.0 / c;
        assert!((w.cwnd - (c + 4.0 / c)).abs() < 1e-9, "{} vs {}", w.cwnd, c + 4.0 / c);

        let mut f = Fusion::default()
            .with_floor_growth("fusion-rf", FloorGrowth::RttSquared { k: 625.0, round_min: false, min_increase: 0.5 });
        let mut m = Feed::default();
        let mut w = Window { cwnd: 50.0, ssthresh: 40.0 };
        let mut a = ack_rtt(10, false);
        a.srtt = 10 * MS;
        f.on_ack(&m.stamp(a), &mut w);
        assert!((w.cwnd - 50.01).abs() < 1e-12, "{}", w.cwnd);
    }

    /// Loss: as Fusion. Base 40 ms, last sample 60 ms: max(40/60, 1/2) of 60 = 40; the floor
    /// (60) halves to 30.
    #[test]
    fn a_loss_is_fusions() {
        let mut f = rf();
        let mut m = Feed::default();
        let mut w = Window { cwnd: 60.0, ssthresh: 40.0 };
        let mut a = ack_rtt(40, false);
        a.srtt = 40 * MS;
        f.on_ack(&m.stamp(a), &mut w);
        f.on_ack(&m.ack_rtt(60, false), &mut w);
        let floor = f.floor().unwrap();
        f.on_congestion(&congestion(CongestionKind::Loss, 60.0, false), &mut w);
        assert!((w.cwnd - 40.0).abs() < 1e-12, "{w:?}");
        assert_eq!(f.floor(), Some(floor / 2.0));
        assert_eq!(f.name(), "fusion-rf");
    }
}
