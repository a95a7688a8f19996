//! RTT fairness per algorithm: two flows of one algorithm, base RTTs 20 and 80 ms, sharing a
//! DropTail bottleneck with one BDP of buffer, five seeds, 200 s each (the first 20 s not counted).
//! Prints the short/long throughput ratio per algorithm: mean, min and max over the seeds, the
//! long flow's congestion events and the utilization. Reno's theory: between 80/20 = 4 with
//! unsynchronized losses and (80/20)^2 = 16 with synchronized ones; CUBIC, H-TCP and BIC at large
//! windows aim at about linear, Scalable at unbounded, Hybla at 1.
//!
//! A measurement, not a check, and heavy (about 15 s in release):
//! `cargo test -p ccsim-core --release --test it rtt_fairness -- --ignored --nocapture`, with
//! `CCSIM_PROFILE=ns2|rfc|linux` (default ns2) and `CCSIM_RATE_MBPS` (default 20). Until the
//! sender recovers with SACK, algorithms that lose many packets per window spend long spells in
//! NewReno recovery, which weighs on these numbers as much as the window laws do.

use ccsim_core::cc::registry;
use serde_json::json;

use crate::scenarios::*;

pub struct Fairness {
    pub ratios: Vec<f64>,
    /// Congestion events (fast retransmits + timeouts) of the long-RTT flow, per run.
    pub events: Vec<u64>,
    pub utilization: Vec<f64>,
}

/// `rate_bps`, 5 ms one way on the bottleneck, a buffer of one BDP at the mean RTT (50 ms),
/// `duration_s` per run, the first `warmup_s` not counted.
pub fn rtt_fairness(cc: &str, profile: &str, rate_bps: u64, seeds: &[u64], duration_s: f64, warmup_s: f64) -> Fairness {
    let buffer = (rate_bps as f64 * 0.050 / 8320.0).round() as u64;
    let mut out = Fairness { ratios: vec![], events: vec![], utilization: vec![] };
    for &seed in seeds {
        let flows = vec![flow(cc, 20), flow(cc, 80)];
        let mut v = dumbbell(rate_bps, 5, droptail(buffer), flows, duration_s);
        set(&mut v, "seed", json!(seed));
        set(&mut v, "stack.profile", json!(profile));
        set(&mut v, "flows.0.start_jitter_ns", json!(S));
        set(&mut v, "flows.1.start_jitter_ns", json!(S));
        let mut sim = ccsim_core::Simulation::new(&spec(&v)).expect("builds");
        sim.run_until((warmup_s * S as f64) as u64);
        let before: Vec<u64> = sim.flows.iter().map(|f| f.sender.bytes_acked()).collect();
        let r = sim.finish();
        let after: Vec<u64> = sim.flows.iter().map(|f| f.sender.bytes_acked()).collect();
        let short = (after[0] - before[0]) as f64;
        let long = (after[1] - before[1]).max(1) as f64;
        out.ratios.push(short / long);
        out.events.push(r.flows.u64("fast_retransmits")[1] + r.flows.u64("timeouts")[1]);
        out.utilization.push(r.links.f64("utilization")[0]);
    }
    out
}

fn summary(v: &[f64]) -> (f64, f64, f64) {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let min = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let max = v.iter().cloned().fold(0.0, f64::max);
    (mean, min, max)
}

#[test]
#[ignore]
fn rtt_fairness_per_algorithm() {
    let seeds = [1, 2, 3, 4, 5];
    let profile = std::env::var("CCSIM_PROFILE").unwrap_or_else(|_| "ns2".into());
    let rate: u64 = std::env::var("CCSIM_RATE_MBPS").ok().and_then(|r| r.parse().ok()).unwrap_or(20) * 1_000_000;
    eprintln!(
        "throughput ratio, 20 ms flow over 80 ms flow: {} Mbps, 1 BDP DropTail, profile {profile}, 200 s (first 20 s not counted), seeds 1-5",
        rate / 1_000_000
    );
    eprintln!("{:>10} {:>7} {:>7} {:>7} {:>12} {:>6}", "algorithm", "mean", "min", "max", "events(80ms)", "util");
    for info in registry::algorithms() {
        let f = rtt_fairness(info.name, &profile, rate, &seeds, 200.0, 20.0);
        let (mean, min, max) = summary(&f.ratios);
        let events = f.events.iter().sum::<u64>() as f64 / f.events.len() as f64;
        let util = summary(&f.utilization).0;
        eprintln!("{:>10} {mean:>7.2} {min:>7.2} {max:>7.2} {events:>12.0} {util:>6.3}", info.name);
    }
}
