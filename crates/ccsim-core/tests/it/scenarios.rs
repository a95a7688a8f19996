//! Scenario builders for the tests, written as the JSON the Python front end would produce.

use ccsim_core::results::{Column, Table};
use ccsim_core::{RunResults, ScenarioSpec, Simulation};
use serde_json::{json, Value};

pub const MS: u64 = 1_000_000;
pub const S: u64 = 1_000_000_000;

pub fn droptail(limit_pkts: u64) -> Value {
    json!({"kind": "droptail", "limit_pkts": limit_pkts})
}

pub fn flow(cc: &str, rtt_ms: u64) -> Value {
    json!({"label": cc, "cc": cc, "mss_bytes": 1000, "rtt_ns": rtt_ms * MS, "start_ns": 0})
}

/// A dumbbell with the given bottleneck rate, one-way bottleneck delay, queue and flows.
pub fn dumbbell(rate_bps: u64, delay_ms: u64, queue: Value, flows: Vec<Value>, duration_s: f64) -> Value {
    json!({
        "name": "test",
        "seed": 1,
        "duration_ns": (duration_s * S as f64) as u64,
        "stack": {"profile": "ns2"},
        "topology": {
            "kind": "dumbbell",
            "forward": {"rate_bps": rate_bps, "delay_ns": delay_ms * MS, "queue": queue.clone()},
            "reverse": {"rate_bps": rate_bps, "delay_ns": delay_ms * MS, "queue": queue},
            "access_rate_bps": rate_bps * 10,
            "access_queue": droptail(100_000),
        },
        "flows": flows,
    })
}

pub fn spec(v: &Value) -> ScenarioSpec {
    ScenarioSpec::from_json(&v.to_string()).expect("valid spec")
}

pub fn run(v: &Value) -> RunResults {
    let mut sim = Simulation::new(&spec(v)).expect("builds");
    let r = sim.finish();
    crate::conservation::assert_conserved(&sim);
    r
}

pub fn set(v: &mut Value, path: &str, value: Value) {
    let mut cur = v;
    let parts: Vec<&str> = path.split('.').collect();
    for p in &parts[..parts.len() - 1] {
        cur = match p.parse::<usize>() {
            Ok(i) => &mut cur[i],
            Err(_) => &mut cur[*p],
        };
    }
    cur[parts[parts.len() - 1]] = value;
}

/// A table's columns as raw bytes, for comparing two runs' tables exactly.
pub fn table_bytes(t: &Table) -> Vec<(String, Vec<u8>)> {
    t.columns
        .iter()
        .map(|(n, c)| {
            let b = c.to_le_bytes().unwrap_or_else(|| match c {
                Column::Str(v) => v.join("\0").into_bytes(),
                _ => unreachable!(),
            });
            (n.to_string(), b)
        })
        .collect()
}

/// Queue samples (packets) of the forward bottleneck, link 0, from `from_s` on.
pub fn bottleneck_queue(r: &RunResults, from_s: f64) -> Vec<f64> {
    let t = r.queues.f64("t_s");
    let (Some(Column::U32(q)), Some(Column::U32(link))) = (r.queues.column("queue_pkts"), r.queues.column("link"))
    else {
        panic!("no queue samples")
    };
    (0..t.len()).filter(|&i| link[i] == 0 && t[i] >= from_s).map(|i| q[i] as f64).collect()
}

/// The sampled stretches a BBR flow spent in PROBE_RTT (`cc_state` 3, in v1 and v3): (first,
/// last) sample times.
pub fn probe_rtt_episodes(r: &RunResults) -> Vec<(f64, f64)> {
    let (t, state) = (r.series.f64("t_s"), r.series.f64("cc_state"));
    let mut episodes: Vec<(f64, f64)> = Vec::new();
    let mut inside = false;
    for i in 0..t.len() {
        let probing = state[i] == 3.0;
        match (probing, inside) {
            (true, false) => episodes.push((t[i], t[i])),
            (true, true) => episodes.last_mut().unwrap().1 = t[i],
            _ => {}
        }
        inside = probing;
    }
    episodes
}
