//! L4S signalling in whole runs: ECT(1) senders classified into DualPI2's L queue, and AccECN
//! feedback (RFC 9768) that reports every CE mark a queue made: for every flow, the CE-marked
//! segments its sender decoded from the ACKs equal the CE-marked packets its receiver got, and
//! over all flows those are the marks the bottleneck made (finite transfers that complete, so no
//! marked packet is still on its way).

use ccsim_core::{ScenarioSpec, Simulation};
use serde_json::{json, Value};

use crate::scenarios::*;

const RATE: u64 = 40_000_000;

/// Linux's sch_dualpi2 defaults.
fn dualpi2() -> Value {
    json!({"kind": "dualpi2", "limit_pkts": 10_000, "target_ns": 15 * MS, "tupdate_ns": 16 * MS,
           "alpha": 0.16, "beta": 3.2, "step_thresh_ns": MS, "min_qlen_step": 0, "coupling": 2.0,
           "c_weight_pct": 10, "drop_overload": true, "drop_early": false, "ecn_mask": 1})
}

/// Step marking at 10 packets (DCTCP's AQM), never dropping an ECN-capable packet.
fn step() -> Value {
    json!({"kind": "step", "limit_pkts": 1000, "limit_bytes": null, "k_pkts": 10, "k_bytes": null, "ecn": true})
}

/// `flows` transfers of `segments` 1000-byte segments each through `queue` at 40 Mb/s, 5 ms one
/// way, under the `linux` profile with the `[stack]` overrides `overrides`, run to the end.
fn finished(queue: Value, flows: Vec<Value>, segments: u64, overrides: Value) -> Simulation {
    let n = flows.len();
    let mut v = dumbbell(RATE, 5, queue, flows, 60.0);
    set(&mut v, "stack", json!({"profile": "linux", "overrides": overrides}));
    for i in 0..n {
        set(&mut v, &format!("flows.{i}.size_bytes"), json!(segments * 1000));
        set(&mut v, &format!("flows.{i}.start_ns"), json!(i as u64 * 50 * MS));
    }
    let spec = ScenarioSpec::from_json(&v.to_string()).expect("valid spec");
    let mut sim = Simulation::new(&spec).expect("builds");
    sim.finish();
    crate::conservation::assert_conserved(&sim);
    for (i, f) in sim.flows.iter().enumerate() {
        assert!(f.sender.completed_at.is_some(), "flow {i} completes");
    }
    sim
}

/// The forward bottleneck's (link 0) queue counter `name` at the end of the run.
fn forward_count(sim: &Simulation, name: &str) -> f64 {
    let mut value = f64::NAN;
    sim.fab.links[0].inspect_queue(&mut |n, v| {
        if n == name {
            value = v;
        }
    });
    value
}

/// Every flow's sender decoded exactly the marks its receiver counted, and the receivers
/// together got every mark the bottleneck made. Returns the marks.
fn assert_every_mark_fed_back(sim: &Simulation) -> f64 {
    let mut received = 0;
    for (i, f) in sim.flows.iter().enumerate() {
        assert_eq!(f.sender.stats.ce_delivered, f.receiver.ce_packets, "flow {i}");
        assert_eq!(u64::from(f.receiver.ce_counter()), 5 + f.receiver.ce_packets, "flow {i}: r.cep from 5");
        received += f.receiver.ce_packets;
    }
    let marks = forward_count(sim, "marks");
    assert_eq!(received as f64, marks);
    marks
}

/// DCTCP sends ECT(0) by default (as Linux's), so DualPI2 queues it with the classic traffic;
/// with `ect = "ect1"` every new data segment goes to the L queue, and only the SYN and the
/// retransmissions (Not-ECT) to the classic one.
#[test]
fn ect1_data_is_classified_into_the_l_queue() {
    let classic = finished(dualpi2(), vec![flow("dctcp", 20)], 2000, json!({}));
    assert!(!classic.flows[0].sender.sends_ect1());
    assert_eq!(forward_count(&classic, "l_in"), 0.0, "ECT(0) is classic");
    let l4s = finished(dualpi2(), vec![flow("dctcp", 20)], 2000, json!({"ect": "ect1"}));
    let s = &l4s.flows[0].sender;
    assert!(s.sends_ect1());
    let (l_in, c_in) = (forward_count(&l4s, "l_in"), forward_count(&l4s, "c_in"));
    eprintln!("DCTCP with ECT(1) through DualPI2: L in {l_in}, classic in {c_in}, sent {}", s.stats.packets_sent);
    assert_eq!(l_in, (s.stats.packets_sent - s.stats.retransmits) as f64);
    assert_eq!(c_in, (1 + s.stats.retransmits) as f64, "the SYN and retransmissions");
    assert!(forward_count(&l4s, "l_marks") > 0.0, "the L queue's step marks");
}

/// DCTCP under AccECN through a step queue, one flow and then three: every mark is fed back.
#[test]
fn accecn_feeds_back_every_mark_a_step_queue_makes() {
    let overrides = json!({"ecn_feedback": "accecn"});
    let one = finished(step(), vec![flow("dctcp", 20)], 10_000, overrides.clone());
    let marks = assert_every_mark_fed_back(&one);
    eprintln!("one DCTCP flow under AccECN through step marking: {marks} marks");
    assert!(marks > 100.0, "{marks}");
    let three = finished(step(), vec![flow("dctcp", 20), flow("dctcp", 40), flow("dctcp", 80)], 3000, overrides);
    let marks = assert_every_mark_fed_back(&three);
    assert!(three.flows.iter().all(|f| f.receiver.ce_packets > 0), "{marks}");
}

/// DCTCP as an L4S sender (ECT(1), AccECN) beside ECN CUBIC (ECT(0), RFC 3168 echo made AccECN
/// too by the stack) through DualPI2: the L queue's step and coupled marks and the classic
/// queue's marks all come back, flow by flow.
#[test]
fn accecn_feeds_back_every_mark_through_dualpi2() {
    let overrides = json!({"ecn": true, "ect": "ect1", "ecn_feedback": "accecn"});
    let sim = finished(dualpi2(), vec![flow("dctcp", 20), flow("dctcp", 40)], 10_000, overrides);
    let marks = assert_every_mark_fed_back(&sim);
    eprintln!("two DCTCP flows, ECT(1) + AccECN, through DualPI2: {marks} marks");
    assert!(marks > 100.0, "{marks}");
    let mixed = json!({"ecn": true, "ecn_feedback": "accecn"});
    let sim = finished(dualpi2(), vec![flow("dctcp", 20), flow("cubic", 20)], 4000, mixed);
    assert_every_mark_fed_back(&sim);
}

/// Under the default feedback nothing changes: DCTCP's per-segment echo, and the receivers'
/// counts of CE packets still match the queue's marks.
#[test]
fn the_one_bit_feedbacks_report_the_marks_as_before() {
    let sim = finished(step(), vec![flow("dctcp", 20)], 3000, json!({}));
    let f = &sim.flows[0];
    assert_eq!(f.receiver.ce_packets as f64, forward_count(&sim, "marks"));
    assert_eq!(f.receiver.ce_counter(), 5, "no AccECN counter");
    assert!(f.sender.stats.ce_delivered >= f.receiver.ce_packets, "ECE stands for a whole delayed ACK");
}

/// Losses both ways: 0.5% of data packets and 1% of ACKs dropped at random, DCTCP, CUBIC and
/// NewReno with ECN under AccECN through step marking. With SACK (`linux`, `linux-sack`) every
/// mark is still fed back exactly: a lost ACK's marks come with the next (the count is
/// cumulative), and no decoded ACK newly delivers 8 segments or more. Without SACK (`rfc`,
/// `ns2`) the ACK that ends a recovery may cover many segments, and the safe decoding then counts
/// more marks than were made, never fewer.
#[test]
fn with_losses_accecn_is_exact_with_sack_and_never_short_without() {
    for profile in ["linux", "linux-sack", "rfc", "ns2"] {
        let q = json!({"kind": "step", "limit_pkts": 25, "limit_bytes": null, "k_pkts": 10, "k_bytes": null,
                       "ecn": true});
        let flows = vec![flow("dctcp", 20), flow("cubic", 20), flow("newreno", 40)];
        let mut v = dumbbell(RATE, 5, q, flows, 60.0);
        set(&mut v, "topology.forward.loss", json!({"kind": "bernoulli", "p": 0.005}));
        set(&mut v, "topology.reverse.loss", json!({"kind": "bernoulli", "p": 0.01}));
        set(&mut v, "stack", json!({"profile": profile, "overrides": {"ecn": true, "ecn_feedback": "accecn"}}));
        for i in 0..3 {
            set(&mut v, &format!("flows.{i}.size_bytes"), json!(8_000_000));
        }
        let spec = ScenarioSpec::from_json(&v.to_string()).expect("valid spec");
        let mut sim = Simulation::new(&spec).expect("builds");
        sim.finish();
        crate::conservation::assert_conserved(&sim);
        for (i, f) in sim.flows.iter().enumerate() {
            let (decoded, received) = (f.sender.stats.ce_delivered, f.receiver.ce_packets);
            eprintln!(
                "{profile} flow {i}: {decoded} decoded, {received} received, {} retransmits",
                f.sender.stats.retransmits
            );
            assert!(f.sender.completed_at.is_some() && f.sender.stats.retransmits > 0, "{profile} flow {i}");
            if profile.starts_with("linux") {
                assert_eq!(decoded, received, "{profile} flow {i}");
            } else {
                assert!(decoded >= received, "{profile} flow {i}: {decoded} < {received}");
            }
        }
    }
}
