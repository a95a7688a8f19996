//! Every algorithm in the registry through whole runs: alone under each stack profile with
//! losses, timeouts and recovery, and all of them side by side on one bottleneck (the scenario of
//! examples/zoo.toml, shortened).

use ccsim_core::cc::registry;
use serde_json::json;

use crate::scenarios::*;

/// Alone on 10 Mbps, 40 ms, a 30-packet buffer and 0.5% random loss for 8 s, under each profile:
/// the run completes, packets are conserved (checked by `run`), the window stays finite and
/// positive, and the flow moves a reasonable amount of data.
#[test]
fn every_algorithm_runs_under_every_profile() {
    for info in registry::algorithms() {
        for profile in ["ns2", "rfc", "linux"] {
            let mut v = dumbbell(10_000_000, 10, droptail(30), vec![flow(info.name, 40)], 8.0);
            set(&mut v, "stack.profile", json!(profile));
            set(&mut v, "topology.forward.loss", json!({"kind": "bernoulli", "p": 0.005}));
            let r = run(&v);
            let goodput = r.flows.f64("goodput_bps")[0];
            let cwnd = r.flows.f64("final_cwnd_pkts")[0];
            let fr = r.flows.u64("fast_retransmits")[0];
            assert!(cwnd.is_finite() && cwnd >= 1.0, "{} {profile}: cwnd {cwnd}", info.name);
            assert!(goodput > 1e6, "{} {profile}: goodput {goodput}", info.name);
            assert!(fr > 5, "{} {profile}: {fr} fast retransmits: losses should have been recovered", info.name);
        }
    }
}

/// The same with the Linux 2.6 modules' arithmetic (`linux26 = true`), for every algorithm that
/// has it: the run completes, the window stays finite and positive, losses are recovered and the
/// flow moves data.
#[test]
fn every_linux_2_6_module_runs_under_every_profile() {
    for info in registry::algorithms().iter().filter(|a| a.params.iter().any(|p| p.name == "linux26")) {
        for profile in ["ns2", "rfc", "linux"] {
            let mut v = dumbbell(10_000_000, 10, droptail(30), vec![flow(info.name, 40)], 8.0);
            set(&mut v, "stack.profile", json!(profile));
            set(&mut v, "flows.0.cc_params", json!({"linux26": 1.0}));
            set(&mut v, "topology.forward.loss", json!({"kind": "bernoulli", "p": 0.005}));
            let r = run(&v);
            let goodput = r.flows.f64("goodput_bps")[0];
            let cwnd = r.flows.f64("final_cwnd_pkts")[0];
            let fr = r.flows.u64("fast_retransmits")[0];
            assert!(cwnd.is_finite() && cwnd >= 1.0, "{} {profile}: cwnd {cwnd}", info.name);
            assert!(goodput > 1e6, "{} {profile}: goodput {goodput}", info.name);
            assert!(fr > 5, "{} {profile}: {fr} fast retransmits: losses should have been recovered", info.name);
        }
    }
}

/// The twelve algorithms on one 20 Mbps bottleneck with a 1-BDP buffer, each flow at 40 ms:
/// the link stays busy, everyone gets something, and Vegas, which yields to queues built by
/// others, gets less than an equal share.
#[test]
fn the_zoo_shares_one_bottleneck() {
    let names: Vec<&str> = registry::algorithms().iter().map(|a| a.name).collect();
    let flows = names.iter().map(|n| flow(n, 40)).collect();
    // 20 Mbps x 40 ms = 96 packets of 1040 B.
    let mut v = dumbbell(20_000_000, 10, droptail(96), flows, 30.0);
    for i in 0..names.len() {
        set(&mut v, &format!("flows.{i}.start_jitter_ns"), json!(S));
    }
    let r = run(&v);
    let g = r.flows.f64("goodput_bps");
    let fair = 20e6 / names.len() as f64;
    for (n, g) in names.iter().zip(g) {
        eprintln!("{n:>10}: {:6.2} Mbps ({:.2} of an equal share)", g / 1e6, g / fair);
    }
    let util = r.links.f64("utilization")[0];
    eprintln!("utilization {util:.4}");
    assert!(util > 0.95, "utilization {util}");
    assert!(g.iter().all(|&g| g > 0.02 * fair), "someone starved: {g:?}");
    let vegas = names.iter().position(|&n| n == "vegas").unwrap();
    assert!(g[vegas] < fair, "vegas {:.2} Mbps", g[vegas] / 1e6);
}
