//! Run one resolved scenario (the JSON that `ccsim.Scenario.resolve()` produces) and print the
//! event count: a profiling target without Python, e.g.
//! `valgrind --tool=callgrind target/profiling/examples/run_spec spec.json`.

use ccsim_core::{ScenarioSpec, Simulation};

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_spec SPEC.json");
    let text = std::fs::read_to_string(&path).expect("readable spec");
    let spec = ScenarioSpec::from_json(&text).expect("valid spec");
    let mut sim = Simulation::new(&spec).expect("builds");
    let started = std::time::Instant::now();
    let results = sim.finish();
    let wall = started.elapsed().as_secs_f64();
    println!(
        "{} events, {} packet-hops, {:.3} s, {:.2} M events/s",
        results.events,
        results.packet_hops,
        wall,
        results.events as f64 / wall / 1e6
    );
}
