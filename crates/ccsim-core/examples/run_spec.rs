//! Run one resolved scenario (the JSON that `ccsim.Scenario.resolve()` produces) and print the
//! event count: a profiling target without Python, e.g.
//! `valgrind --tool=callgrind target/profiling/examples/run_spec spec.json`.
//!
//! With `--no-pass-on`, packets are never passed on at admission nor delivered ahead, with
//! `--no-deliver-ahead` never delivered ahead (`ccsim_core::net::fabric`).
//! With `--digest`, also print a 64-bit FNV-1a digest of every result table (each column's name,
//! type and values, in order), of the event and hop counts and of the stack description: two
//! builds that print the same digest for a scenario produced byte-identical results the same way.
//! The second digest, `results`, leaves the event count out: with and without `--no-pass-on` it
//! must be the same.

use ccsim_core::results::{Column, RunResults, Table};
use ccsim_core::{ScenarioSpec, Simulation};

struct Fnv(u64);

impl Fnv {
    fn eat(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x100_0000_01b3);
        }
    }

    fn table(&mut self, name: &str, t: &Table) {
        self.eat(name.as_bytes());
        self.eat(&(t.columns.len() as u64).to_le_bytes());
        for (col, values) in &t.columns {
            self.eat(col.as_bytes());
            self.eat(values.dtype().as_bytes());
            self.eat(&(values.len() as u64).to_le_bytes());
            match values {
                Column::Str(v) => {
                    for s in v {
                        self.eat(&(s.len() as u64).to_le_bytes());
                        self.eat(s.as_bytes());
                    }
                }
                other => self.eat(&other.to_le_bytes().expect("numeric column")),
            }
        }
    }
}

fn tables(h: &mut Fnv, r: &RunResults) {
    for (name, t) in
        [("flows", &r.flows), ("links", &r.links), ("series", &r.series), ("queues", &r.queues), ("drops", &r.drops)]
    {
        h.table(name, t);
    }
}

/// The tables, the event and hop counts, the end time and the stack description: two builds that
/// print the same one did the same work.
fn digest(r: &RunResults) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    tables(&mut h, r);
    h.eat(&r.events.to_le_bytes());
    h.eat(&r.packet_hops.to_le_bytes());
    h.eat(&r.sim_end_ns.to_le_bytes());
    h.eat(r.stack_json.as_bytes());
    h.0
}

/// The same without the event count: what a run computes, whatever the number of events it took
/// (passing on changes only that).
fn results_digest(r: &RunResults) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    tables(&mut h, r);
    h.eat(&r.packet_hops.to_le_bytes());
    h.eat(&r.sim_end_ns.to_le_bytes());
    h.eat(r.stack_json.as_bytes());
    h.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let want_digest = args.iter().any(|a| a == "--digest");
    let path = args.iter().find(|a| !a.starts_with("--")).expect("usage: run_spec [--digest] SPEC.json");
    let text = std::fs::read_to_string(path).expect("readable spec");
    let spec = ScenarioSpec::from_json(&text).expect("valid spec");
    let mut sim = Simulation::new(&spec).expect("builds");
    if args.iter().any(|a| a == "--no-pass-on") {
        // Every packet through every pipe (the results are the same, with more events).
        sim.disable_passing_on();
    }
    if args.iter().any(|a| a == "--no-deliver-ahead") {
        // Every packet reaches its receiver through the last pipe of its route (the same results).
        sim.disable_delivering_ahead();
    }
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
    if want_digest {
        println!(
            "digest {:016x}, results {:016x} (flows {} rows, series {} rows, drops {} rows)",
            digest(&results),
            results_digest(&results),
            results.flows.rows(),
            results.series.rows(),
            results.drops.rows()
        );
    }
}
