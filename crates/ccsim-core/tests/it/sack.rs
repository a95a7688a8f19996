//! SACK-based recovery (RFC 6675): many losses in one window are repaired in about one round trip
//! instead of one per round trip, with no timeout.

use crate::scenarios::*;
use serde_json::json;

/// One flow overshoots in slow start into a small buffer, losing many segments of one window.
fn overshoot(sack: bool) -> ccsim_core::RunResults {
    let mut v = dumbbell(10_000_000, 10, droptail(20), vec![flow("newreno", 100)], 10.0);
    set(&mut v, "stack.overrides", json!({"sack": sack}));
    set(&mut v, "trace", json!({"drops": true}));
    run(&v)
}

#[test]
fn sack_repairs_a_window_of_losses_quickly() {
    let (plain, sack) = (overshoot(false), overshoot(true));
    let lost = plain.flows.u64("drops")[0];
    let first_loss = plain.drops.f64("t_s")[0];
    eprintln!(
        "overshoot: {lost} drops; goodput NewReno {:.2} Mb/s, SACK {:.2} Mb/s; timeouts {} / {}",
        plain.flows.f64("goodput_bps")[0] / 1e6,
        sack.flows.f64("goodput_bps")[0] / 1e6,
        plain.flows.u64("timeouts")[0],
        sack.flows.u64("timeouts")[0],
    );
    assert!(lost > 20, "the overshoot should lose many segments: {lost}");
    assert_eq!(sack.flows.u64("timeouts")[0], 0);
    // Same network, same overshoot: the first loss happens at the same time.
    assert_eq!(first_loss, sack.drops.f64("t_s")[0]);
    // NewReno repairs one hole per RTT (100 ms): > 2 s for 20+ holes. SACK fills them together.
    assert!(sack.flows.f64("goodput_bps")[0] > 1.3 * plain.flows.f64("goodput_bps")[0]);
    // Every lost segment is retransmitted once: no spurious retransmissions.
    assert_eq!(sack.flows.u64("retransmits")[0], sack.flows.u64("drops")[0]);
}

#[test]
fn sack_reno_follows_the_mathis_law() {
    for p in [0.001, 0.01] {
        let duration = 20.0 / f64::sqrt(p);
        let mut v = dumbbell(100_000_000, 20, droptail(10_000), vec![flow("reno", 100)], duration);
        set(&mut v, "topology.forward.loss", json!({"kind": "bernoulli", "p": p}));
        set(&mut v, "stack.overrides", json!({"sack": true}));
        let r = run(&v);
        let law = 1000.0 * 8.0 / r.flows.f64("mean_rtt_s")[0] * 1.5f64.sqrt() / p.sqrt();
        let ratio = r.flows.f64("goodput_bps")[0] / law;
        eprintln!("SACK p={p}: goodput / Mathis = {ratio:.3}");
        assert!((0.8..=1.25).contains(&ratio), "p={p}: {ratio}");
    }
}

#[test]
fn linux_profile_uses_sack_and_fills_a_1gbps_link() {
    let flows = (0..10).map(|_| flow("newreno", 20)).collect();
    let mut v = dumbbell(1_000_000_000, 5, droptail(2404), flows, 10.0);
    for i in 0..10 {
        set(&mut v, &format!("flows.{i}.start_jitter_ns"), json!(S));
    }
    let ns2 = run(&v).links.f64("utilization")[0];
    set(&mut v, "stack.profile", json!("linux"));
    let linux = run(&v).links.f64("utilization")[0];
    eprintln!("1 Gbps, 10 NewReno flows: utilization ns2 {ns2:.3}, linux (SACK) {linux:.3}");
    assert!(linux > 0.9, "{linux}");
}
