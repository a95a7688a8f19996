//! Quick engine-only timing of the reference scenarios (the full harness is benchmarks/run.py).
use std::time::Instant;

use ccsim_core::{ScenarioSpec, Simulation};
use serde_json::json;

fn dumbbell(n: usize, rate: u64, access: u64, secs: u64) -> serde_json::Value {
    let bdp = (rate as f64 * 0.020 / 8.0 / 1040.0).round() as u64;
    let q = json!({"kind": "droptail", "limit_pkts": bdp});
    let flows: Vec<_> = (0..n)
        .map(|_| json!({"label": "newreno", "cc": "newreno", "mss_bytes": 1000, "rtt_ns": 20_000_000u64, "start_ns": 0, "start_jitter_ns": 1_000_000_000u64}))
        .collect();
    json!({"name": "bench", "seed": 1, "duration_ns": secs * 1_000_000_000, "stack": {"profile": "ns2"},
        "topology": {"kind": "dumbbell",
            "forward": {"rate_bps": rate, "delay_ns": 5_000_000u64, "queue": q},
            "reverse": {"rate_bps": rate, "delay_ns": 5_000_000u64, "queue": q},
            "access_rate_bps": access, "access_queue": {"kind": "droptail", "limit_pkts": 100000}},
        "flows": flows})
}

fn main() {
    for (name, v) in [
        ("a", dumbbell(10, 100_000_000, 1_000_000_000, 60)),
        ("b", dumbbell(10, 1_000_000_000, 10_000_000_000, 10)),
        ("c", dumbbell(50, 100_000_000, 1_000_000_000, 60)),
    ] {
        let spec = ScenarioSpec::from_json(&v.to_string()).unwrap();
        let t = Instant::now();
        let mut sim = Simulation::new(&spec).unwrap();
        let r = sim.finish();
        let wall = t.elapsed().as_secs_f64();
        println!("{name}: wall {wall:.3} s, events {:.1} M/s, hops {:.1} M/s", r.events as f64 / wall / 1e6, r.packet_hops as f64 / wall / 1e6);
    }
}
