//! Whole-run behaviour against analytic laws.

use crate::scenarios::*;
use serde_json::json;

#[test]
fn smoke_ten_flows_fill_the_bottleneck() {
    let flows = (0..10).map(|_| flow("newreno", 20)).collect();
    let v = dumbbell(100_000_000, 5, droptail(240), flows, 20.0);
    let t0 = std::time::Instant::now();
    let r = run(&v);
    let util = r.links.f64("utilization")[0];
    let gp: f64 = r.flows.f64("goodput_bps").iter().sum();
    eprintln!("util {util} goodput {gp} events {} hops {} wall {:?}", r.events, r.packet_hops, t0.elapsed());
    eprintln!("drops {:?}", r.flows.u64("drops"));
    eprintln!("timeouts {:?}", r.flows.u64("timeouts"));
    let _ = json!({});
    assert!(util > 0.95);
}
