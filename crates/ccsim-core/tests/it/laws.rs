//! Whole-run behaviour against analytic laws and well-known effects.

use crate::scenarios::*;
use serde_json::json;

/// Mathis et al. 1997: goodput = (MSS / RTT) * sqrt(3/2) / sqrt(p), one ACK per segment.
fn mathis_bps(mss: f64, rtt_s: f64, p: f64) -> f64 {
    mss * 8.0 / rtt_s * (1.5f64).sqrt() / p.sqrt()
}

/// One flow over a 100 Mbps link with Bernoulli loss p on the data direction and a buffer far
/// larger than the window: goodput vs the Mathis law, using the flow's measured mean RTT.
fn mathis_ratio(cc: &str, p: f64, seed: u64) -> f64 {
    let duration = 20.0 / p.sqrt(); // many loss cycles: ~ 600 s at p = 0.001
    let mut v = dumbbell(100_000_000, 20, droptail(10_000), vec![flow(cc, 100)], duration);
    set(&mut v, "topology.forward.loss", json!({"kind": "bernoulli", "p": p}));
    set(&mut v, "seed", json!(seed));
    let r = run(&v);
    let rtt = r.flows.f64("mean_rtt_s")[0];
    let law = mathis_bps(1000.0, rtt, p);
    r.flows.f64("goodput_bps")[0] / law
}

#[test]
fn reno_and_newreno_follow_the_mathis_law_under_random_loss() {
    for cc in ["reno", "newreno"] {
        for p in [0.001, 0.003, 0.01] {
            let ratio = mathis_ratio(cc, p, 7);
            eprintln!("{cc} p={p}: goodput / Mathis = {ratio:.3}");
            assert!((0.8..=1.2).contains(&ratio), "{cc} at p={p}: goodput/Mathis = {ratio:.3}");
        }
    }
}

fn ten_flows_utilization(buffer_bdp: f64) -> f64 {
    // 100 Mbps, 20 ms RTT: BDP = 250 kB = 240 packets of 1040 B.
    let bdp_pkts = 100e6 * 0.020 / 8.0 / 1040.0;
    let limit = (buffer_bdp * bdp_pkts).round() as u64;
    let flows = (0..10).map(|_| flow("newreno", 20)).collect();
    let mut v = dumbbell(100_000_000, 5, droptail(limit), flows, 30.0);
    set(&mut v, "flows.0.start_jitter_ns", json!(S));
    for i in 0..10 {
        set(&mut v, &format!("flows.{i}.start_jitter_ns"), json!(S));
    }
    let r = run(&v);
    r.links.f64("utilization")[0]
}

#[test]
fn a_bdp_of_buffer_keeps_the_bottleneck_busy_and_a_tenth_does_not() {
    let full = ten_flows_utilization(1.0);
    let small = ten_flows_utilization(0.1);
    eprintln!("utilization: 1 BDP {full:.4}, 0.1 BDP {small:.4}");
    assert!(full > 0.95, "1 BDP buffer: utilization {full}");
    assert!(small < full - 0.02, "0.1 BDP buffer: utilization {small} vs {full}");
}

#[test]
fn the_shorter_rtt_flow_gets_more_on_droptail() {
    for seed in [1, 2, 3] {
        let flows = vec![flow("newreno", 40), flow("newreno", 80)];
        let mut v = dumbbell(10_000_000, 10, droptail(50), flows, 60.0);
        set(&mut v, "seed", json!(seed));
        set(&mut v, "flows.0.start_jitter_ns", json!(S));
        set(&mut v, "flows.1.start_jitter_ns", json!(S));
        let r = run(&v);
        let g = r.flows.f64("goodput_bps");
        eprintln!("seed {seed}: 40 ms {:.2} Mbps, 80 ms {:.2} Mbps", g[0] / 1e6, g[1] / 1e6);
        assert!(g[0] > g[1] * 1.2, "seed {seed}: {g:?}");
    }
}
