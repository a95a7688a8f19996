//! Passing a packet on at admission to a link fed by one link only, and delivering it to its
//! receiver at admission to the link into the receiver's host (`ccsim_core::net::fabric`), save
//! events and change nothing else: every table is byte-identical to a run that sends each packet
//! through each pipe.

use ccsim_core::results::{Column, RunResults};
use ccsim_core::Simulation;
use serde_json::{json, Value};

use crate::scenarios::*;

/// Run with and without passing on (and delivering ahead); return both results.
fn both_ways(v: &Value) -> (RunResults, RunResults) {
    let (a, _) = both_ways_with_groups(v);
    a
}

/// Both results, and the number of delivering groups.
fn both_ways_with_groups(v: &Value) -> ((RunResults, RunResults), usize) {
    let mut passing = Simulation::new(&spec(v)).expect("builds");
    let groups = passing.delivering_groups();
    let a = passing.finish();
    crate::conservation::assert_conserved(&passing);
    let mut piped = Simulation::new(&spec(v)).expect("builds");
    piped.disable_passing_on();
    let b = piped.finish();
    crate::conservation::assert_conserved(&piped);
    ((a, b), groups)
}

fn assert_identical(v: &Value) -> (RunResults, RunResults) {
    let (a, b) = both_ways(v);
    assert_tables_identical(&a, &b);
    (a, b)
}

fn assert_tables_identical(a: &RunResults, b: &RunResults) {
    for (name, ta, tb) in [
        ("flows", &a.flows, &b.flows),
        ("links", &a.links, &b.links),
        ("series", &a.series, &b.series),
        ("queues", &a.queues, &b.queues),
        ("drops", &a.drops, &b.drops),
    ] {
        assert_eq!(table_bytes(ta), table_bytes(tb), "{name} table differs");
    }
    assert_eq!(a.packet_hops, b.packet_hops);
    assert_eq!(a.sim_end_ns, b.sim_end_ns);
    assert!(a.events < b.events, "passing on saved no events: {} vs {}", a.events, b.events);
}

/// A dumbbell with random loss on the bottleneck (drawn as packets are passed on), an
/// overflowing queue, web and Poisson transfers, and sampled series and drops (the workload of
/// the determinism tests); the run ends with packets in flight.
#[test]
fn a_lossy_dumbbell_with_web_traffic_gives_identical_tables() {
    let v = crate::determinism::workload("reno");
    let (a, _) = assert_identical(&v);
    let Some((_, Column::U8(kinds))) = a.drops.columns.iter().find(|(n, _)| n == "kind") else {
        panic!("the drops table has a u8 kind column")
    };
    assert!(kinds.contains(&2), "random losses were drawn");
    assert!(kinds.contains(&0), "the queue overflowed");
}

/// A parking lot with RED, two-way long flows (data and ACKs share links) and short transfers
/// between every router pair, at 1 Gb/s: hops of 1 to 4 links, ties in time between links.
#[test]
fn a_two_way_parking_lot_with_red_gives_identical_tables() {
    let hop = json!({"rate_bps": 1_000_000_000u64, "delay_ns": MS,
        "queue": {"kind": "red", "limit_pkts": 400, "min_th": 50.0, "max_th": 150.0, "max_p": 0.1,
                  "w_q": 0.002, "gentle": true, "wait": true, "mean_pktsize": 1500}});
    let long = |src: &str, dst: &str, cc: &str, reverse: bool| {
        json!({"label": cc, "cc": cc, "mss_bytes": 1460, "rtt_ns": 30 * MS, "start_ns": 0,
               "src": src, "dst": dst, "reverse": reverse})
    };
    let mut v = json!({
        "name": "test", "seed": 3, "duration_ns": 4 * S, "stack": {"profile": "linux"},
        "topology": {"kind": "parking_lot", "routers": 4, "forward": hop, "reverse": hop,
            "access_rate_bps": 10_000_000_000u64, "access_delay_ns": MS, "access_queue": droptail(1000)},
        "flows": [long("R0", "R3", "cubic", false), long("R1", "R2", "reno", true),
                  long("R3", "R1", "highspeed", false)],
    });
    set(
        &mut v,
        "generators",
        json!([{
            "label": "short", "cc": "reno", "mss_bytes": 1460, "start_ns": 0,
            "arrivals": {"kind": "open_loop", "rate_per_s": 200.0, "stop_ns": null},
            "size": {"kind": "pareto", "mean_bytes": 200000.0, "shape": 1.5},
            "rtt_dist": {"kind": "exponential", "mean_ns": 60 * MS},
            "endpoints": [["R0", "R1"], ["R0", "R3"], ["R1", "R3"], ["R2", "R0"], ["R3", "R2"]],
            "sources": 50
        }]),
    );
    set(&mut v, "trace", json!({"drops": true}));
    assert_identical(&v);
}

/// Queue sampling on a link that would take passed-on packets (R1->D0, where a queue builds)
/// leaves it out of passing on (a sample must not see packets that have not arrived yet); the
/// unsampled R1->D1 still takes them. The series agree.
#[test]
fn sampled_queues_see_only_packets_that_have_arrived() {
    let link = |src: &str, dst: &str, rate_bps: u64, monitor: bool| {
        json!({"src": src, "dst": dst, "rate_bps": rate_bps, "delay_ns": 2 * MS,
               "queue": droptail(60), "monitor": monitor})
    };
    let mut links = vec![link("R0", "R1", 20_000_000, true), link("R1", "R0", 20_000_000, false)];
    for (host, router) in [("S0", "R0"), ("S1", "R0"), ("D0", "R1"), ("D1", "R1")] {
        // R1->D0 is sampled, and slower than R0->R1: its queue builds.
        let (rate, sampled) = if host == "D0" { (10_000_000, true) } else { (100_000_000, false) };
        links.push(link(host, router, 100_000_000, false));
        links.push(link(router, host, rate, sampled));
    }
    let flow = |src: &str, dst: &str, cc: &str| json!({"label": cc, "cc": cc, "mss_bytes": 1000, "start_ns": 0, "src": src, "dst": dst});
    let v = json!({
        "name": "test", "seed": 2, "duration_ns": 10 * S, "stack": {"profile": "ns2"},
        "topology": {"kind": "explicit", "nodes": ["S0", "S1", "R0", "R1", "D0", "D1"], "links": links},
        "flows": [flow("S0", "D0", "reno"), flow("S1", "D1", "cubic")],
        "trace": {"sample_interval_ns": 10 * MS},
    });
    let (a, _) = assert_identical(&v);
    assert!(a.queues.rows() > 2 * 900, "two links sampled every 10 ms: {} rows", a.queues.rows());
}

/// Five senders to one host D through a 10 Mb/s bottleneck with random loss, with delayed ACKs:
/// its receivers form one delivering group (their delayed-ACK timers interleave with packets
/// delivered ahead to the others). Web transfers from two sources share D too, several at once.
/// Host E receives one flow and sends another (to S0): no group. The run ends mid-transfer.
#[test]
fn receivers_sharing_a_host_give_identical_tables_when_delivered_to_ahead() {
    let link = |src: &str, dst: &str, rate_bps: u64, delay_ms: u64| json!({"src": src, "dst": dst, "rate_bps": rate_bps, "delay_ns": delay_ms * MS, "queue": droptail(50)});
    let mut links = vec![link("R0", "R1", 10_000_000, 10), link("R1", "R0", 10_000_000, 10)];
    links[0]["loss"] = json!({"kind": "bernoulli", "p": 0.003});
    let senders = ["S0", "S1", "S2", "S3", "S4"];
    for (i, host) in senders.iter().enumerate() {
        links.push(link(host, "R0", 100_000_000, 1 + 3 * i as u64));
        links.push(link("R0", host, 100_000_000, 1 + 3 * i as u64));
    }
    for host in ["D", "E"] {
        links.push(link(host, "R1", 100_000_000, 2));
        links.push(link("R1", host, 100_000_000, 2));
    }
    let flow = |src: &str, dst: &str, cc: &str, start_ms: u64| json!({"label": cc, "cc": cc, "mss_bytes": 1000, "start_ns": start_ms * MS, "src": src, "dst": dst});
    let mut flows: Vec<Value> = ["reno", "cubic", "highspeed", "bic"]
        .iter()
        .enumerate()
        .map(|(i, cc)| flow(senders[i], "D", cc, 37 * i as u64))
        .collect();
    flows.push(flow("S4", "E", "reno", 5));
    flows.push(flow("E", "S0", "cubic", 11));
    let v = json!({
        "name": "test", "seed": 5, "duration_ns": 12 * S, "stack": {"profile": "linux"},
        "topology": {"kind": "explicit", "nodes": ["S0", "S1", "S2", "S3", "S4", "R0", "R1", "D", "E"], "links": links},
        "flows": flows,
        "generators": [{
            "label": "web", "cc": "reno", "mss_bytes": 1000, "start_ns": 0,
            "arrivals": {"kind": "open_loop", "rate_per_s": 8.0, "stop_ns": null},
            "size": {"kind": "pareto", "mean_bytes": 60000.0, "shape": 1.5},
            "endpoints": [["S2", "D"], ["S3", "D"]],
        }],
        "trace": {"drops": true},
    });
    let ((a, b), groups) = both_ways_with_groups(&v);
    assert_tables_identical(&a, &b);
    assert_eq!(groups, 1, "D is a delivering group, E is not");
    // Passing on alone: every data packet D's receivers got cost one more event (and some
    // delayed-ACK timers re-armed before their event are one event more too).
    let mut not_ahead = Simulation::new(&spec(&v)).expect("builds");
    not_ahead.disable_delivering_ahead();
    let c = not_ahead.finish();
    assert_tables_identical(&a, &c);
    let Some((_, Column::U64(delivered))) = a.flows.columns.iter().find(|(n, _)| n == "packets_delivered") else {
        panic!("the flows table has a u64 packets_delivered column")
    };
    // Flows 0-3 and the web transfers (from 6 on) go to D.
    let into_d: u64 = delivered.iter().take(4).chain(delivered.iter().skip(6)).sum();
    assert!(delivered.len() > 8 && into_d > 2000, "{} flows, {into_d} packets into D", delivered.len());
    assert!(c.events - a.events >= into_d, "{} events saved, {into_d} packets into D", c.events - a.events);
}
