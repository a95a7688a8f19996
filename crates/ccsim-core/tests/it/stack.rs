//! Stack-level details: the RTT sample congestion control sees, the send overhead and router
//! jitter, and the count of window cuts.

use std::sync::{Arc, Mutex};

use crate::probe::{factory, Call};
use crate::scenarios::*;
use ccsim_core::Simulation;

/// Linux hands congestion control the RTT of the most recently sent segment an ACK covers. A
/// probe sends one segment every 20 ms on a 100 ms path; the receiver delays its ACKs and
/// acknowledges each pair when the second segment arrives, echoing the first one's timestamp.
/// The echo's RTT is therefore 120 ms and the covered-latest RTT 100 ms (plus serialization).
#[test]
fn congestion_control_gets_the_rtt_of_the_latest_covered_segment() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut v = dumbbell(1_000_000_000, 10, droptail(1000), vec![flow("newreno", 100)], 3.0);
    set(&mut v, "stack.profile", serde_json::json!("linux"));
    let mut sim = Simulation::with_factory(&spec(&v), factory(log.clone(), Some((20 * MS, 100.0)))).unwrap();
    sim.finish();
    let log = log.lock().unwrap();
    let rtts: Vec<u64> = log
        .iter()
        .filter_map(|c| match c {
            Call::Ack { rtt, now, .. } if *now > S => *rtt,
            _ => None,
        })
        .collect();
    assert!(rtts.len() > 20, "{} samples", rtts.len());
    for r in &rtts {
        // 100 ms of propagation plus a few microseconds of serialization; the echo would give
        // 120 ms.
        assert!((100 * MS..101 * MS).contains(r), "rtt sample {r} ns");
    }
    assert_eq!(sim.flows[0].sender.srtt().map(|s| s / MS), Some(120), "srtt keeps the echo");
}

fn two_flows(overhead_ns: u64, jitter_ns: u64) -> serde_json::Value {
    let mut v = dumbbell(10_000_000, 10, droptail(20), vec![flow("newreno", 20), flow("newreno", 80)], 30.0);
    set(&mut v, "stack.overrides", serde_json::json!({"send_overhead_ns": overhead_ns}));
    set(&mut v, "topology.forward.jitter_ns", serde_json::json!(jitter_ns));
    v
}

/// Holding packets back (host overhead) or delaying them at a router (jitter) keeps every
/// packet accounted for, and runs stay deterministic.
#[test]
fn send_overhead_and_router_jitter_conserve_packets_and_are_deterministic() {
    for (overhead, jitter) in [(0, 0), (MS, 0), (0, MS), (2 * MS, 500_000)] {
        let a = run(&two_flows(overhead, jitter));
        let b = run(&two_flows(overhead, jitter));
        assert_eq!(a.flows.u64("packets_sent"), b.flows.u64("packets_sent"));
        assert!(a.flows.u64("packets_sent").iter().all(|&n| n > 1000), "{overhead} {jitter}");
    }
    // The knobs change what happens (they are not ignored).
    let plain = run(&two_flows(0, 0));
    let noisy = run(&two_flows(MS, 0));
    let jittered = run(&two_flows(0, MS));
    assert_ne!(plain.flows.u64("packets_sent"), noisy.flows.u64("packets_sent"));
    assert_ne!(plain.flows.u64("packets_sent"), jittered.flows.u64("packets_sent"));
}

/// Router jitter delays each packet by at most the bound and never reorders: a lone flow's
/// RTT grows by less than the bound and it sees no duplicate ACKs without loss.
#[test]
fn router_jitter_is_bounded_and_keeps_order() {
    let mut v = dumbbell(100_000_000, 10, droptail(100_000), vec![flow("newreno", 40)], 5.0);
    set(&mut v, "flows.0.max_window_pkts", serde_json::json!(20));
    set(&mut v, "topology.forward.jitter_ns", serde_json::json!(2 * MS));
    let r = run(&v);
    assert_eq!(r.flows.u64("retransmits")[0], 0);
    assert_eq!(r.flows.u64("fast_retransmits")[0], 0);
    let mean = r.flows.f64("mean_rtt_s")[0];
    assert!(mean > 0.040 && mean < 0.0425, "mean rtt {mean}");
}

/// The column counts the congestion events after which the algorithm's window was smaller: the
/// probe logs its window before and after each event, and the two counts agree. Not every event
/// is a cut (ns-2 Reno at cwnd 2 keeps 2; a timeout at cwnd 1 keeps 1), and this run has both.
#[test]
fn window_cuts_count_the_congestion_events_that_shrank_the_window() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let v = dumbbell(10_000_000, 10, droptail(8), vec![flow("reno", 20), flow("reno", 40), flow("reno", 80)], 30.0);
    let mut sim = Simulation::with_factory(&spec(&v), factory(log.clone(), None)).unwrap();
    let r = sim.finish();
    let log = log.lock().unwrap();
    let (mut events, mut shrank) = (0u64, 0u64);
    for c in log.iter() {
        if let Call::Congestion { cwnd, before, .. } = c {
            events += 1;
            shrank += u64::from(cwnd < before);
        }
    }
    let cuts: u64 = r.flows.u64("window_cuts").iter().sum();
    assert!(events > shrank && shrank > 20, "{events} events, {shrank} shrank the window");
    assert_eq!(cuts, shrank);
}

/// Free-Drop forgives isolated losses, so fewer of its congestion events cut the window than
/// Reno's; with w = 0 only timeouts cut.
#[test]
fn free_drop_cuts_fewer_times_than_it_sees_losses() {
    let lossy = |cc: &str, params: serde_json::Value| {
        let mut v = dumbbell(100_000_000, 10, droptail(10_000), vec![flow(cc, 50)], 60.0);
        set(&mut v, "flows.0.cc_params", params);
        set(&mut v, "duration_ns", serde_json::json!(120 * S));
        set(&mut v, "topology.forward.loss", serde_json::json!({"kind": "bernoulli", "p": 0.001}));
        let r = run(&v);
        let events = r.flows.u64("fast_retransmits")[0] + r.flows.u64("timeouts")[0];
        (r.flows.u64("window_cuts")[0], events, r.flows.u64("timeouts")[0])
    };
    let (reno_cuts, reno_events, _) = lossy("newreno", serde_json::json!({}));
    assert!(reno_events > 30 && reno_cuts + 2 >= reno_events, "newreno {reno_cuts} of {reno_events}");
    let (fd_cuts, fd_events, _) = lossy("freedrop", serde_json::json!({"w": 100}));
    assert!(fd_events > 30 && fd_cuts > 0 && fd_cuts * 2 < fd_events, "freedrop {fd_cuts} of {fd_events}");
    let (none_cuts, _, none_timeouts) = lossy("freedrop", serde_json::json!({"w": 0}));
    assert!(none_cuts <= none_timeouts, "w = 0: {none_cuts} cuts, {none_timeouts} timeouts");
}
