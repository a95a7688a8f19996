//! Reordering links (`ccsim_core::net::reorder`): packets held back are accounted for, the run is
//! deterministic and unchanged by passing on, a probability of 0 is no reordering at all, and a
//! flow through a reordering link sees what reordering does to loss recovery.

use ccsim_core::results::RunResults;
use ccsim_core::Simulation;
use serde_json::{json, Value};

use crate::scenarios::*;

fn reorder(p: f64, delay_ns: u64) -> Value {
    json!({"kind": "bernoulli", "p": p, "delay_ns": delay_ns})
}

/// The determinism tests' workload (a lossy dumbbell, bulk flows, web and Poisson transfers,
/// sampled series and drops) with reordering both ways on the bottleneck.
fn reordering_workload(p: f64) -> Value {
    let mut v = crate::determinism::workload("reno");
    set(&mut v, "topology.forward.reorder", reorder(p, 3 * MS));
    set(&mut v, "topology.reverse.reorder", reorder(p, MS));
    v
}

fn assert_same_tables(a: &RunResults, b: &RunResults) {
    for (name, ta, tb) in [
        ("flows", &a.flows, &b.flows),
        ("links", &a.links, &b.links),
        ("series", &a.series, &b.series),
        ("queues", &a.queues, &b.queues),
        ("drops", &a.drops, &b.drops),
    ] {
        assert_eq!(table_bytes(ta), table_bytes(tb), "{name} table differs");
    }
    assert_eq!((a.packet_hops, a.sim_end_ns), (b.packet_hops, b.sim_end_ns));
}

/// Packets held back are counted once, when they leave (`run` checks conservation per flow and
/// per link, the held ones inside their link until then); two runs give identical tables, and so
/// does a run that sends every packet through every pipe.
#[test]
fn held_packets_are_conserved_and_runs_are_deterministic_with_or_without_passing_on() {
    let v = reordering_workload(0.05);
    let a = run(&v);
    let b = run(&v);
    assert_same_tables(&a, &b);
    let mut piped = Simulation::new(&spec(&v)).expect("builds");
    piped.disable_passing_on();
    let c = piped.finish();
    crate::conservation::assert_conserved(&piped);
    assert_same_tables(&a, &c);
    // The bottleneck (link 0) counts every packet that crossed it, held back or not.
    let arrivals = a.links.u64("arrivals")[0];
    let (left, dropped, inside) =
        (a.links.u64("packets")[0], a.links.u64("queue_drops")[0], a.links.u64("in_link_end")[0]);
    assert_eq!(arrivals, left + dropped + inside);
    assert!(left > 10_000, "{left} packets crossed the bottleneck");
}

/// A probability of 0 is no reordering: the same tables and the same events as a scenario
/// without the key.
#[test]
fn a_probability_of_zero_changes_nothing() {
    let plain = crate::determinism::workload("reno");
    let zero = reordering_workload(0.0);
    let (a, b) = (run(&plain), run(&zero));
    assert_same_tables(&a, &b);
    assert_eq!(a.events, b.events);
    // Reordering does change the run.
    let c = run(&reordering_workload(0.05));
    assert_ne!(table_bytes(&a.flows), table_bytes(&c.flows));
}

/// One flow, its window capped below the path's capacity so that nothing is dropped: without
/// reordering it never enters loss recovery; with 1% of its packets 5 ms late (each is overtaken
/// by the packets sent in the next 5 ms, up to 37), both recovery procedures take a reordered
/// packet for a loss, with no drop. SACK recovery does so again and again (three SACKed segments
/// above a hole are a loss); RACK-TLP takes the first one for a loss, sees the original arrive,
/// and from then on waits a reordering window before marking anything lost.
#[test]
fn a_flow_through_a_reordering_link_enters_recovery_without_losses() {
    let lone = |p: f64, recovery: &str| {
        let mut v = dumbbell(100_000_000, 10, droptail(10_000), vec![flow("newreno", 40)], 20.0);
        set(&mut v, "stack", json!({"profile": "linux", "overrides": {"recovery": recovery}}));
        set(&mut v, "flows.0.max_window_pkts", json!(300));
        if p > 0.0 {
            set(&mut v, "topology.forward.reorder", reorder(p, 5 * MS));
        }
        run(&v)
    };
    let mut recoveries = vec![];
    for recovery in ["sack", "rack-tlp"] {
        let clean = lone(0.0, recovery);
        assert_eq!(clean.flows.u64("fast_retransmits")[0], 0, "{recovery}");
        assert_eq!(clean.flows.u64("retransmits")[0], 0, "{recovery}");
        let r = lone(0.01, recovery);
        let fast = r.flows.u64("fast_retransmits")[0];
        eprintln!(
            "{recovery}: {fast} fast retransmits, {} retransmits, {} timeouts, goodput {:.1} Mb/s (clean {:.1})",
            r.flows.u64("retransmits")[0],
            r.flows.u64("timeouts")[0],
            r.flows.f64("goodput_bps")[0] / 1e6,
            clean.flows.f64("goodput_bps")[0] / 1e6
        );
        assert_eq!(r.flows.u64("drops")[0], 0, "{recovery}");
        assert!(fast >= 1, "{recovery}: the reordering went unnoticed");
        recoveries.push(fast);
    }
    assert!(recoveries[0] > 10 * recoveries[1], "sack {} vs rack-tlp {} recoveries", recoveries[0], recoveries[1]);
}
