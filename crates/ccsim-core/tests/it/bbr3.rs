//! Whole-run checks of BBR v3 (`cc::bbr3`): one flow alone on a 10 Mb/s bottleneck with a
//! 20 ms RTT and one BDP of drop-tail buffer, under the `linux` stack profile.

use ccsim_core::RunResults;
use serde_json::json;

use crate::scenarios::*;

/// 10 Mb/s carries 1202 segments of 1040 B a second: 24 of them in 20 ms.
const BDP_PKTS: u64 = 24;

/// `send_overhead_ns`: the linux profile's send-time noise (25 us when `None`).
fn alone(duration_s: f64, send_overhead_ns: Option<u64>) -> RunResults {
    let mut v = dumbbell(10_000_000, 5, droptail(BDP_PKTS), vec![flow("bbr3", 20)], duration_s);
    set(&mut v, "stack.profile", json!("linux"));
    if let Some(ns) = send_overhead_ns {
        set(&mut v, "stack.overrides", json!({ "send_overhead_ns": ns }));
    }
    set(&mut v, "trace", json!({"sample_interval_ns": 10 * MS, "drops": false}));
    run(&v)
}

/// The link stays above 90% busy, the queue averages well under the buffer once STARTUP is
/// over, and the cwnd dips to half the BDP (13 segments) in PROBE_RTT for 200 ms and a round,
/// then comes back. PROBE_RTT comes when no RTT sample has been below the 5 s minimum for 5 s:
/// the first at 5 s; after each, a sample below the one PROBE_RTT measured restarts the 5 s,
/// and the linux profile's 25 us of send-time noise makes such samples (without it, below:
/// every 5.2 s exactly). PROBE_BW probes for bandwidth every min(63, BDP) = 24 rounds or so,
/// the Reno-coexistence bound, well before its 2-3 s.
#[test]
fn one_flow_fills_the_link_with_a_small_queue_and_dips_to_half_a_bdp_every_five_seconds_or_more() {
    let r = alone(30.0, None);
    let util = r.links.f64("utilization")[0];
    let queue = bottleneck_queue(&r, 2.0);
    let mean_queue = queue.iter().sum::<f64>() / queue.len() as f64;
    let episodes = probe_rtt_episodes(&r);
    let drops = r.flows.u64("drops")[0];
    let (t, cwnd) = (r.series.f64("t_s"), r.series.f64("cwnd_pkts"));
    let phases = r.series.f64("cc_phase");
    let probes = (1..t.len()).filter(|&i| phases[i] == 0.0 && phases[i - 1] != 0.0).count();
    eprintln!(
        "bbr3 alone: utilization {util:.4}, mean queue after 2 s {mean_queue:.2} of {BDP_PKTS} packets, drops \
         {drops}, bandwidth probes (UP) {probes}, PROBE_RTT {episodes:?}"
    );
    assert!(util > 0.95, "utilization {util}");
    assert!(mean_queue < BDP_PKTS as f64 / 4.0, "mean queue {mean_queue}");
    assert!((20..60).contains(&probes), "{probes} probes in 30 s");

    assert!(episodes.len() >= 3, "{episodes:?}");
    assert!((5.0..5.3).contains(&episodes[0].0), "{episodes:?}");
    for pair in episodes.windows(2) {
        let period = pair[1].0 - pair[0].0;
        assert!((5.2..12.0).contains(&period), "PROBE_RTT after {period} s: {episodes:?}");
    }
    for &(from, to) in &episodes {
        // 200 ms at half the BDP and a round more; the samples are 10 ms apart.
        assert!((0.19..0.3).contains(&(to - from)), "PROBE_RTT from {from} to {to}");
        let inside: Vec<f64> = (0..t.len()).filter(|&i| t[i] > from && t[i] <= to).map(|i| cwnd[i]).collect();
        assert!(inside.iter().all(|&c| c <= 13.0), "cwnd in PROBE_RTT {inside:?}");
        if let Some(after) = (0..t.len()).find(|&i| t[i] > to + 0.1).map(|i| cwnd[i]) {
            assert!(after > BDP_PKTS as f64, "cwnd {after} after PROBE_RTT");
        }
    }

    // Without the send-time noise no sample beats PROBE_RTT's: every 5 s + 200 ms + a round.
    let episodes = probe_rtt_episodes(&alone(30.0, Some(0)));
    eprintln!("bbr3 alone without send noise: PROBE_RTT {episodes:?}");
    assert_eq!(episodes.len(), 5, "{episodes:?}");
    for pair in episodes.windows(2) {
        let period = pair[1].0 - pair[0].0;
        assert!((5.2..5.3).contains(&period), "PROBE_RTT every {period} s: {episodes:?}");
    }
}
