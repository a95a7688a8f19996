//! Links that change (`ccsim_core::net::changing`): a schedule that keeps every value gives the
//! fixed link's results, runs with schedules and traces are deterministic and unchanged by
//! passing on, and a saturating flow through a trace link gets exactly the trace's
//! opportunities.

use ccsim_core::results::RunResults;
use ccsim_core::Simulation;
use serde_json::{json, Value};

use crate::scenarios::*;

pub fn assert_same_tables(a: &RunResults, b: &RunResults) {
    for (name, ta, tb) in [
        ("flows", &a.flows, &b.flows),
        ("links", &a.links, &b.links),
        ("series", &a.series, &b.series),
        ("queues", &a.queues, &b.queues),
        ("drops", &a.drops, &b.drops),
    ] {
        assert_eq!(table_bytes(ta), table_bytes(tb), "{name} table differs");
    }
}

/// Two NewReno flows through a 10 Mb/s, 10 ms dumbbell with `queue`, random loss both ways.
fn two_flows(queue: Value) -> Value {
    let mut v = dumbbell(10_000_000, 10, queue, vec![flow("newreno", 40), flow("newreno", 80)], 8.0);
    set(&mut v, "topology.forward.loss", json!({"kind": "bernoulli", "p": 0.001}));
    set(&mut v, "topology.reverse.loss", json!({"kind": "bernoulli", "p": 0.001}));
    set(&mut v, "trace", json!({"sample_interval_ns": 100 * MS, "drops": true}));
    v
}

fn codel() -> Value {
    json!({"kind": "codel", "limit_pkts": 100, "target_ns": 5 * MS, "interval_ns": 100 * MS, "ecn": false})
}

/// Schedules whose every point repeats the link's own value take the changing link's path and
/// must give exactly the fixed link's results (the same transmission times, delays and loss
/// draws), under a discipline that decides at admission and one that decides at dequeue.
#[test]
fn schedules_that_keep_the_links_values_change_nothing() {
    for queue in [droptail(40), codel()] {
        let fixed = two_flows(queue);
        let mut same = fixed.clone();
        for dir in ["forward", "reverse"] {
            set(&mut same, &format!("topology.{dir}.rate_schedule"), json!({"points": [[S, 10_000_000]]}));
            set(&mut same, &format!("topology.{dir}.delay_schedule"), json!({"points": [[2 * S, 10 * MS]]}));
            set(&mut same, &format!("topology.{dir}.loss_schedule"), json!({"points": [[3 * S, 0.001]]}));
        }
        let (a, b) = (run(&fixed), run(&same));
        assert_same_tables(&a, &b);
        assert!(a.links.u64("packets")[0] > 5000);
    }
}

/// The same scenario and seed give the same tables, with every packet through every pipe too.
#[test]
fn changing_links_are_deterministic_with_or_without_passing_on() {
    let mut v = two_flows(droptail(40));
    let rate = json!({"points": [[0, 10_000_000], [2 * S, 0], [2 * S + 300 * MS, 20_000_000]], "repeat_ns": 3 * S});
    set(&mut v, "topology.forward.rate_schedule", rate);
    set(&mut v, "topology.forward.delay_schedule", json!({"points": [[S, 30 * MS], [4 * S, 2 * MS]]}));
    set(&mut v, "topology.reverse.trace", json!({"ms": [1, 1, 2, 3, 5, 5, 6, 8, 9, 10]}));
    let a = run(&v);
    assert_same_tables(&a, &run(&v));
    let mut piped = Simulation::new(&spec(&v)).expect("builds");
    piped.disable_passing_on();
    let c = piped.finish();
    crate::conservation::assert_conserved(&piped);
    assert_same_tables(&a, &c);
    // The changes matter.
    assert_ne!(table_bytes(&a.flows), table_bytes(&run(&two_flows(droptail(40))).flows));
}

/// A synthetic cellular-like trace of 1 s: 1 opportunity a millisecond for 400 ms, 3 a
/// millisecond for 200 ms, none for 100 ms, then one every other millisecond (0 to 36 Mb/s,
/// 13.8 Mb/s on average).
fn trace_ms() -> Vec<u64> {
    let mut ms = vec![];
    for t in 1..=1000u64 {
        let n = match t {
            1..=400 => 1,
            401..=600 => 3,
            601..=700 => 0,
            _ => u64::from(t % 2 == 0),
        };
        ms.extend(std::iter::repeat_n(t, n as usize));
    }
    ms
}

/// Opportunities of the looping trace in (from, to], ns.
fn opportunities(ms: &[u64], from: u64, to: u64) -> u64 {
    let period = ms.last().unwrap() * MS;
    let mut n = 0;
    for cycle in 0..=to / period {
        n += ms.iter().filter(|&&m| (from + 1..=to).contains(&(cycle * period + m * MS))).count() as u64;
    }
    n
}

/// Three CUBIC flows through a trace bottleneck with a drop-tail buffer: once its queue has
/// built up, the link never idles and every opportunity carries 1500 bytes, so the bytes leaving
/// the bottleneck between two instants are the trace's opportunities between them (the packets
/// taking `delay` to cross) times 1500, within one packet, while the queue drops the excess.
/// With 1500-byte packets that is one packet per opportunity; with 1040-byte ones, packets
/// share opportunities.
#[test]
fn saturating_flows_on_a_trace_link_get_exactly_the_traces_opportunities() {
    let ms = trace_ms();
    for mss in [1460, 1000] {
        let size = mss + 40;
        let mut f = flow("cubic", 40);
        set(&mut f, "mss_bytes", json!(mss));
        let mut v = dumbbell(20_000_000, 10, droptail(300), vec![f.clone(), f.clone(), f], 12.0);
        set(&mut v, "stack.profile", json!("linux"));
        set(&mut v, "topology.forward.trace", json!({ "ms": ms }));
        let mut sim = Simulation::new(&spec(&v)).expect("builds");
        let delay = 10 * MS;
        let (from, to) = (3 * S, 11 * S + 500 * MS);
        sim.run_until(from);
        let before = sim.fab.links[0].counters.departures;
        sim.run_until(to);
        let left = sim.fab.links[0].counters.departures - before;
        let opportunities = opportunities(&ms, from - delay, to - delay);
        assert!(
            (left * size).abs_diff(opportunities * 1500) <= size,
            "mss {mss}: {left} packets of {size} bytes left, {opportunities} opportunities"
        );
        let r = sim.finish();
        crate::conservation::assert_conserved(&sim);
        assert!(r.links.u64("queue_drops")[0] > 0, "the queue overflowed (the link was saturated)");
        // The links table reports the trace's mean rate: 1150 opportunities a second.
        assert_eq!(r.links.u64("rate_bps")[0], 1150 * 1500 * 8);
    }
}
