//! Wi-Fi-like aggregation (`ccsim_core::net::aggregation`): a burst's packets leave the link
//! together, bursts keep to their packet and airtime limits, ACKs aggregated on the reverse
//! direction reach the sender in bursts, one packet a burst without access delay is a plain
//! link, and runs are deterministic and conserve packets.

use ccsim_core::Simulation;
use serde_json::{json, Value};

use crate::links_changing::assert_same_tables;
use crate::scenarios::*;

/// Two CUBIC flows (1040-byte packets) through a 20 Mb/s, 10 ms dumbbell; `agg` on `dir`.
fn flows_with(dir: &str, agg: Value) -> Value {
    let mut v = dumbbell(20_000_000, 10, droptail(100), vec![flow("cubic", 40), flow("cubic", 60)], 6.0);
    set(&mut v, &format!("topology.{dir}.aggregation"), agg);
    v
}

fn agg(max_packets: u32, max_time_ns: u64, access_ns: (u64, u64)) -> Value {
    json!({"max_packets": max_packets, "max_time_ns": max_time_ns,
           "access_min_ns": access_ns.0, "access_max_ns": access_ns.1})
}

/// Run event by event, every packet through every pipe; the packets leaving `link` at each
/// instant at which some leave (the dumbbell's bottleneck is link 0, its reverse link 1).
fn departures_by_instant(v: &Value, link: usize) -> (Vec<(u64, u64)>, Simulation) {
    let mut sim = Simulation::new(&spec(v)).expect("builds");
    sim.disable_passing_on();
    let mut groups: Vec<(u64, u64)> = vec![];
    let mut seen = 0;
    while !sim.is_done() {
        sim.run_for(sim.duration(), 1);
        let left = sim.fab.links[link].counters.departures;
        if left > seen {
            match groups.last_mut() {
                Some((t, n)) if *t == sim.now() => *n += left - seen,
                _ => groups.push((sim.now(), left - seen)),
            }
            seen = left;
        }
    }
    (groups, sim)
}

#[test]
fn a_bursts_packets_leave_together_and_bursts_keep_to_their_limits() {
    let tx = 1040 * 8 * S / 20_000_000; // 416 us a data packet
                                        // The packet limit binds (5 packets take 2.1 ms of 10 ms), then the airtime limit (2.5 ms:
                                        // 6 packets).
    for (n, t, most) in [(5, 10 * MS, 5), (64, 2 * MS + MS / 2, 6)] {
        let (groups, mut sim) = departures_by_instant(&flows_with("forward", agg(n, t, (0, MS))), 0);
        let biggest = groups.iter().map(|&(_, k)| k).max().unwrap();
        assert_eq!(biggest, most, "limits {n} packets, {t} ns");
        assert!(biggest * tx <= t);
        let in_bursts: u64 = groups.iter().filter(|&&(_, k)| k > 1).map(|&(_, k)| k).sum();
        let all: u64 = groups.iter().map(|&(_, k)| k).sum();
        assert!(in_bursts * 2 > all, "most packets went in bursts: {in_bursts} of {all}");
        sim.finish();
        crate::conservation::assert_conserved(&sim);
    }
}

/// ACKs aggregated on the reverse direction reach the senders in bursts: the reverse bottleneck
/// delivers up to 16 at one instant, where a plain link never delivers two at once.
#[test]
fn ack_aggregation_on_the_reverse_direction_delivers_acks_in_bursts() {
    let (plain, _) = departures_by_instant(&flows_with("forward", Value::Null), 1);
    assert!(plain.iter().all(|&(_, k)| k == 1));
    let (groups, mut sim) = departures_by_instant(&flows_with("reverse", agg(16, 4 * MS, (2 * MS, 4 * MS))), 1);
    assert_eq!(groups.iter().map(|&(_, k)| k).max(), Some(16));
    let acks: u64 = groups.iter().map(|&(_, k)| k).sum();
    let mean = acks as f64 / groups.len() as f64;
    assert!(mean > 4.0, "{acks} ACKs in {} bursts", groups.len());
    // Consecutive bursts are at least the access delay apart (2 ms), plus the burst's airtime.
    assert!(groups.windows(2).all(|w| w[1].0 - w[0].0 >= 2 * MS));
    sim.finish();
    crate::conservation::assert_conserved(&sim);
}

/// One packet a burst and no access delay: each packet waits for the one before it and goes
/// alone, as on a plain link; the tables are the plain link's, byte for byte (both directions,
/// with random loss, so the loss draws line up too).
#[test]
fn one_packet_a_burst_without_access_delay_is_a_plain_link() {
    let mut plain = flows_with("forward", Value::Null);
    set(&mut plain, "topology.forward.loss", json!({"kind": "bernoulli", "p": 0.001}));
    set(&mut plain, "trace", json!({"sample_interval_ns": 100 * MS, "drops": true}));
    let mut same = plain.clone();
    for dir in ["forward", "reverse"] {
        set(&mut same, &format!("topology.{dir}.aggregation"), agg(1, S, (0, 0)));
    }
    let a = run(&plain);
    assert_same_tables(&a, &run(&same));
    assert!(a.links.u64("packets")[0] > 2000, "{:?}", a.links.u64("packets"));
}

/// The same scenario and seed give the same tables, with every packet through every pipe too;
/// aggregation on both directions, with a delay schedule and random loss on the same link.
#[test]
fn aggregating_links_are_deterministic_and_conserve_packets() {
    let mut v = flows_with("forward", agg(8, 3 * MS, (0, 2 * MS)));
    set(&mut v, "topology.reverse.aggregation", agg(32, 4 * MS, (MS, 3 * MS)));
    set(&mut v, "topology.forward.loss", json!({"kind": "bernoulli", "p": 0.002}));
    set(&mut v, "topology.forward.delay_schedule", json!({"points": [[2 * S, 30 * MS], [4 * S, 5 * MS]]}));
    let a = run(&v);
    assert_same_tables(&a, &run(&v));
    let mut piped = Simulation::new(&spec(&v)).expect("builds");
    piped.disable_passing_on();
    let c = piped.finish();
    crate::conservation::assert_conserved(&piped);
    assert_same_tables(&a, &c);
    let mut other = v.clone();
    set(&mut other, "seed", json!(2));
    assert_ne!(table_bytes(&a.flows), table_bytes(&run(&other).flows), "the access delays are drawn");
}

#[test]
fn bad_aggregation_values_are_one_line_naming_the_key() {
    let check = |a: Value, expected: &str| {
        let e = ccsim_core::ScenarioSpec::from_json(&flows_with("reverse", a).to_string()).unwrap_err();
        assert_eq!(e, expected);
    };
    check(
        agg(0, MS, (0, 0)),
        "topology.reverse.aggregation.max_packets: 0 is out of range; expected 1..=1048576 packets",
    );
    check(
        agg(4, 0, (0, 0)),
        "topology.reverse.aggregation.max_time_ns: 0 is out of range; expected 1..=10000000000000000 ns",
    );
    check(
        agg(4, MS, (2 * MS, MS)),
        "topology.reverse.aggregation.access_max_ns: 1000000 is out of range; expected 2000000..=10000000000000000 ns",
    );
    let mut v = flows_with("forward", agg(4, MS, (0, 0)));
    set(&mut v, "topology.forward.trace", json!({"ms": [1, 2]}));
    let e = ccsim_core::ScenarioSpec::from_json(&v.to_string()).unwrap_err();
    assert_eq!(
        e,
        "topology.forward.aggregation: set with topology.forward.trace; expected aggregation on a link of fixed rate"
    );
}
