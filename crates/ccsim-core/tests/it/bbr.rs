//! Whole-run checks of BBR v1 (`cc::bbr`): one flow alone on a 10 Mb/s bottleneck with a
//! 20 ms RTT and one BDP of drop-tail buffer, under the `linux` stack profile.

use ccsim_core::RunResults;
use serde_json::json;

use crate::scenarios::*;

/// 10 Mb/s carries 1202 segments of 1040 B a second: 24 of them in 20 ms.
const BDP_PKTS: u64 = 24;

fn alone(duration_s: f64) -> RunResults {
    let mut v = dumbbell(10_000_000, 5, droptail(BDP_PKTS), vec![flow("bbr", 20)], duration_s);
    set(&mut v, "stack.profile", json!("linux"));
    set(&mut v, "trace", json!({"sample_interval_ns": 10 * MS, "drops": false}));
    run(&v)
}

/// The link stays above 90% busy (the startup overshoot and PROBE_RTT's dips are the gaps), the
/// queue averages well under the buffer once STARTUP is over, and the cwnd dips to 4 segments
/// in PROBE_RTT every 10 s or so (the minimum RTT's window), for about 200 ms and a round, and
/// comes back to where it was. BBR sets the cwnd on every ACK (recovery included) and the sender
/// paces at BBR's rate; the STARTUP losses (a drop-tail overflow, not a policer) never make the
/// long-term estimate take over.
#[test]
fn one_flow_fills_the_link_with_a_small_queue_and_dips_every_ten_seconds() {
    let r = alone(30.0);
    let util = r.links.f64("utilization")[0];
    let queue = bottleneck_queue(&r, 2.0);
    let mean_queue = queue.iter().sum::<f64>() / queue.len() as f64;
    let episodes = probe_rtt_episodes(&r);
    let drops = r.flows.u64("drops")[0];
    eprintln!(
        "bbr alone: utilization {util:.4}, mean queue after 2 s {mean_queue:.2} of {BDP_PKTS} packets, drops {drops}, \
         PROBE_RTT {episodes:?}"
    );
    assert!(util > 0.9, "utilization {util}");
    assert!(r.series.f64("cc_lt_bw").iter().all(|v| v.is_nan()), "the long-term estimate was used");
    assert!(mean_queue < BDP_PKTS as f64 / 2.0, "mean queue {mean_queue}");

    assert_eq!(episodes.len(), 2, "{episodes:?}");
    assert!((10.0..10.6).contains(&episodes[0].0), "{episodes:?}");
    let period = episodes[1].0 - episodes[0].0;
    assert!((10.0..10.6).contains(&period), "PROBE_RTT every {period} s");
    let (t, cwnd) = (r.series.f64("t_s"), r.series.f64("cwnd_pkts"));
    for &(from, to) in &episodes {
        // 200 ms at 4 segments and a round more; the samples are 10 ms apart.
        assert!((0.19..0.35).contains(&(to - from)), "PROBE_RTT from {from} to {to}");
        let inside: Vec<f64> = (0..t.len()).filter(|&i| t[i] >= from && t[i] <= to).map(|i| cwnd[i]).collect();
        assert!(inside.iter().all(|&c| c == 4.0), "cwnd in PROBE_RTT {inside:?}");
        let after = (0..t.len()).find(|&i| t[i] > to + 0.1).map(|i| cwnd[i]).unwrap();
        assert!(after > 2.0 * BDP_PKTS as f64, "cwnd {after} after PROBE_RTT");
    }
}
