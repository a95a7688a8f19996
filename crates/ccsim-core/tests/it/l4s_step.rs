//! L4S marking inside single-queue AQMs: Linux's `ce_threshold` in CoDel and FQ-CoDel (with
//! FQ-CoDel's ECN selector and mask) and ccsim's L4S step in PIE. Scripted enqueues and dequeues
//! with sojourn times below, at and above the threshold, checked against hand-counted marks.

use ccsim_core::net::packet::{ecn, Packet, PacketKind};
use ccsim_core::net::qdisc::codel::{CeThreshold, CoDelParams};
use ccsim_core::net::qdisc::pie::PieParams;
use ccsim_core::net::qdisc::{CoDel, FqCodel, Pie};
use ccsim_core::rng::{stream, Entity, Purpose};

use crate::scenarios::MS;

const US: u64 = 1_000;

fn data(seq: u32, bits: u8) -> Packet {
    Packet { seq, size: 1000, kind: PacketKind::Data, ecn: bits, ..Packet::default() }
}

fn codel_params(ecn: bool) -> CoDelParams {
    CoDelParams { target: 5 * MS, interval: 100 * MS, ecn }
}

/// Every-packet threshold of 1 ms (mask 0, as sch_codel and fq_codel's default).
const ONE_MS: CeThreshold = CeThreshold { threshold: MS, selector: 0, mask: 0 };
/// FQ-CoDel's `ce_threshold_selector 0x1/0x3`: ECT(1) only.
const ONE_MS_ECT1: CeThreshold = CeThreshold { threshold: MS, selector: 1, mask: 3 };

/// Sojourn times below target (5 ms), so that CoDel's own law never acts: only the threshold
/// marks, and only strictly above 1 ms.
const SOJOURNS: [u64; 5] = [500 * US, MS, MS + 1, 3 * MS, 4 * MS];

/// Each packet enqueued alone at `10 ms * i` and dequeued after its sojourn: which came out CE.
fn marked_one_at_a_time(dequeue: &mut dyn FnMut(Packet, u64, u64) -> Packet, bits: u8) -> Vec<bool> {
    SOJOURNS
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let at = 10 * MS * i as u64;
            dequeue(data(i as u32, bits), at, at + s).ecn & ecn::CE != 0
        })
        .collect()
}

#[test]
fn codel_marks_every_ect_packet_that_waited_longer_than_ce_threshold() {
    let mut c = CoDel::new(codel_params(false), 100).with_ce_threshold(Some(ONE_MS));
    let mut sink = Vec::new();
    let mut through = |p: Packet, at: u64, out: u64| {
        c.enqueue(p, at, &mut sink);
        c.dequeue(out, &mut sink).expect("the packet")
    };
    // 0.5 ms and exactly 1 ms: no; 1 ms + 1 ns, 3 and 4 ms: marked. ECT(0) and ECT(1) alike.
    let expected = [false, false, true, true, true];
    assert_eq!(marked_one_at_a_time(&mut through, ecn::ECT), expected);
    assert_eq!(marked_one_at_a_time(&mut through, ecn::ECT1), expected);
    // Not ECN-capable: never marked, never dropped (the threshold is no drop rule).
    assert_eq!(marked_one_at_a_time(&mut through, 0), [false; 5]);
    assert!(sink.is_empty());
    assert_eq!((c.state.marks, c.state.ce_marks, c.state.drops), (6, 6, 0));
    assert!(!c.state.dropping && c.state.count == 0, "CoDel's own state untouched");
}

#[test]
fn without_ce_threshold_codel_marks_nothing_below_target() {
    let mut c = CoDel::new(codel_params(true), 100);
    let mut sink = Vec::new();
    let mut through = |p: Packet, at: u64, out: u64| {
        c.enqueue(p, at, &mut sink);
        c.dequeue(out, &mut sink).expect("the packet")
    };
    assert_eq!(marked_one_at_a_time(&mut through, ecn::ECT1), [false; 5]);
    assert_eq!((c.state.marks, c.state.ce_marks), (0, 0));
}

/// One FQ-CoDel flow (one queue) through a packet at a time, under `ce`.
fn fq_codel_marks(ce: CeThreshold, bits: u8) -> (Vec<bool>, u64, u64) {
    let mut f = FqCodel::new(codel_params(false), 100, 1024, 1500, 7).with_ce_threshold(Some(ce));
    let mut sink = Vec::new();
    let mut through = |p: Packet, at: u64, out: u64| {
        f.enqueue(p, at, &mut sink);
        f.dequeue(out, &mut sink).expect("the packet")
    };
    let marked = marked_one_at_a_time(&mut through, bits);
    assert!(sink.is_empty());
    let (_, marks, _) = f.aqm_counts();
    (marked, marks, f.ce_marks())
}

#[test]
fn fq_codel_selector_and_mask_restrict_the_threshold_to_ect1() {
    let above = vec![false, false, true, true, true];
    // Selector 1 under mask 3 (the IP ECN field equals 01): ECT(1) marked, ECT(0) left alone.
    assert_eq!(fq_codel_marks(ONE_MS_ECT1, ecn::ECT1), (above.clone(), 3, 3));
    assert_eq!(fq_codel_marks(ONE_MS_ECT1, ecn::ECT), (vec![false; 5], 0, 0));
    // Mask 0 (Linux's default): every ECN-capable packet.
    assert_eq!(fq_codel_marks(ONE_MS, ecn::ECT), (above.clone(), 3, 3));
    // Selector 2 under mask 2 (the ECT(0) bit): ECT(0) only.
    let ect0_only = CeThreshold { threshold: MS, selector: 2, mask: 2 };
    assert_eq!(fq_codel_marks(ect0_only, ecn::ECT), (above, 3, 3));
    assert_eq!(fq_codel_marks(ect0_only, ecn::ECT1), (vec![false; 5], 0, 0));
    // A packet that arrives CE (marked upstream) keeps CE and is no mark of this queue's.
    let (marked, marks, _) = fq_codel_marks(ONE_MS, ecn::ECT1 | ecn::CE);
    assert_eq!((marked, marks), (vec![true; 5], 0));
}

/// A standing queue of ECT(0) packets under CoDel with `ecn`, dequeued every 0.1 ms from 10 ms:
/// (packets dequeued, law marks, threshold marks, CoDel's drop-state count) by 400 ms.
fn standing_queue(ce: Option<CeThreshold>) -> (u64, u64, u64, u32) {
    let mut c = CoDel::new(codel_params(true), 10_000).with_ce_threshold(ce);
    let mut sink = Vec::new();
    for seq in 0..5000 {
        c.enqueue(data(seq, ecn::ECT), 0, &mut sink);
    }
    let (mut t, mut n) = (10 * MS, 0);
    while t < 400 * MS {
        c.dequeue(t, &mut sink).expect("backlogged");
        n += 1;
        t += 100 * US;
    }
    assert!(sink.is_empty(), "ECN-capable: marked, never dropped");
    (n, c.state.marks - c.state.ce_marks, c.state.ce_marks, c.state.count)
}

/// The threshold leaves CoDel's control law alone: the same law marks at the same times (110,
/// 210, 280.8 ms, ... as the unit tests' schedule), and every other packet, all above 1 ms, is
/// marked by the threshold, each packet counted once.
#[test]
fn ce_threshold_marks_what_the_control_law_does_not_and_leaves_its_schedule_alone() {
    let (n, law, ce, count) = standing_queue(None);
    assert_eq!(ce, 0);
    let (n2, law2, ce2, count2) = standing_queue(Some(ONE_MS));
    assert_eq!((n2, law2, count2), (n, law, count));
    assert!(law >= 4, "{law}");
    assert_eq!(law2 + ce2, n2, "every packet marked exactly once");
}

fn pie(step: Option<u64>) -> Pie {
    let p = PieParams {
        limit_pkts: 1000,
        target: 15 * MS,
        tupdate: 15 * MS,
        alpha: 0.125,
        beta: 1.25,
        max_burst: 150 * MS,
        ecn: true,
        l4s_step: step,
    };
    Pie::new(p, stream(1, Entity::Link, 0, Purpose::Aqm))
}

#[test]
fn pie_l4s_step_marks_ect1_packets_that_waited_longer_than_the_step() {
    let mut q = pie(Some(MS));
    let mut sink = Vec::new();
    let mut through = |p: Packet, at: u64, out: u64| {
        q.enqueue(p, at, &mut sink);
        q.dequeue(out).expect("the packet")
    };
    assert_eq!(marked_one_at_a_time(&mut through, ecn::ECT1), [false, false, true, true, true]);
    // ECT(0) and not-ECT are PIE's classic traffic: the step leaves them alone.
    assert_eq!(marked_one_at_a_time(&mut through, ecn::ECT), [false; 5]);
    assert_eq!(marked_one_at_a_time(&mut through, 0), [false; 5]);
    assert!(sink.is_empty());
    assert_eq!((q.marks, q.step_marks, q.drops, q.prob), (3, 3, 0, 0.0));
    // Without the step, the same ECT(1) packets pass unmarked (PIE's probability is 0).
    let mut plain = pie(None);
    let mut through = |p: Packet, at: u64, out: u64| {
        plain.enqueue(p, at, &mut sink);
        plain.dequeue(out).expect("the packet")
    };
    assert_eq!(marked_one_at_a_time(&mut through, ecn::ECT1), [false; 5]);
    assert_eq!(plain.step_marks, 0);
}

/// A backlog: 10 ECT(1) packets at 0, one sent every 0.3 ms from 0.3 ms, sojourns 0.3 to 3 ms.
/// Those sent after 1 ms (the 4th, at 1.2 ms, onwards) are marked: 7 of 10.
#[test]
fn pie_l4s_step_in_a_draining_backlog() {
    let mut q = pie(Some(MS));
    let mut sink = Vec::new();
    for seq in 0..10 {
        q.enqueue(data(seq, ecn::ECT1), 0, &mut sink);
    }
    let marked: Vec<bool> = (1..=10).map(|k| q.dequeue(k * 300 * US).expect("queued").ecn & ecn::CE != 0).collect();
    assert_eq!(marked, [false, false, false, true, true, true, true, true, true, true]);
    assert_eq!((q.marks, q.step_marks), (7, 7));
}

/// FQ-CoDel's defaults with `ce_threshold` 1 ms on ECT(1) only, CoDel's `ecn` off.
fn fq_codel_ect1_threshold() -> serde_json::Value {
    serde_json::json!({"kind": "fq_codel", "limit_pkts": 10_240, "target_ns": 5 * MS, "interval_ns": 100 * MS,
        "ecn": false, "flows": 1024, "quantum_bytes": 1040, "ce_threshold_ns": MS,
        "ce_threshold_selector": 1, "ce_threshold_mask": 3})
}

/// The forward bottleneck's (link 0) queue counter `name` at the end of the run.
fn forward_count(sim: &ccsim_core::Simulation, name: &str) -> f64 {
    let mut value = f64::NAN;
    sim.fab.links[0].inspect_queue(&mut |n, v| {
        if n == name {
            value = v;
        }
    });
    value
}

/// A DCTCP transfer sending ECT(1) and a CUBIC one (not ECN-capable), 5 MB each, through `queue`
/// at 40 Mb/s, 20 ms, under the `linux` profile, run until both complete.
fn dctcp_ect1_and_cubic(queue: serde_json::Value) -> ccsim_core::Simulation {
    use crate::scenarios::{dumbbell, flow, set};
    use serde_json::json;

    let mut v = dumbbell(40_000_000, 5, queue, vec![flow("dctcp", 20), flow("cubic", 20)], 120.0);
    set(&mut v, "stack", json!({"profile": "linux", "overrides": {"ect": "ect1"}}));
    for i in 0..2 {
        set(&mut v, &format!("flows.{i}.size_bytes"), json!(5_000_000));
        set(&mut v, &format!("flows.{i}.start_ns"), json!(i as u64 * 50 * MS));
    }
    let spec = ccsim_core::ScenarioSpec::from_json(&v.to_string()).expect("valid spec");
    let mut sim = ccsim_core::Simulation::new(&spec).expect("builds");
    sim.finish();
    crate::conservation::assert_conserved(&sim);
    for (i, f) in sim.flows.iter().enumerate() {
        assert!(f.sender.completed_at.is_some(), "flow {i} completes");
    }
    sim
}

/// Every mark the bottleneck made was `rule`'s (`ce_marks`, `step_marks`), was on DCTCP's ECT(1)
/// packets, and reached DCTCP's sender: it counted as marked exactly the packets its receiver got
/// CE. CUBIC's packets are never marked. Returns the marks.
fn assert_marks_are_the_rules_and_fed_back(sim: &ccsim_core::Simulation, rule: &str) -> f64 {
    let (dctcp, cubic) = (&sim.flows[0], &sim.flows[1]);
    let (marks, by_rule) = (forward_count(sim, "marks"), forward_count(sim, rule));
    eprintln!(
        "{rule}: {marks} marks ({by_rule} by the rule); DCTCP's sender counted {}, its receiver {}",
        dctcp.sender.stats.ce_delivered, dctcp.receiver.ce_packets
    );
    assert!(marks > 50.0, "{marks}");
    assert_eq!(by_rule, marks, "the AQM's own ECN is off: every mark is the rule's");
    assert_eq!(dctcp.sender.stats.ce_delivered, dctcp.receiver.ce_packets);
    assert_eq!(dctcp.receiver.ce_packets as f64, marks, "every mark reached DCTCP's receiver");
    assert_eq!(cubic.receiver.ce_packets, 0, "ECT(1) only: nothing marks CUBIC's packets");
    marks
}

#[test]
fn fq_codel_ce_threshold_marks_an_ect1_dctcp_flow_and_every_mark_reaches_its_sender() {
    let sim = dctcp_ect1_and_cubic(fq_codel_ect1_threshold());
    assert_marks_are_the_rules_and_fed_back(&sim, "ce_marks");
}

#[test]
fn pie_l4s_step_marks_an_ect1_dctcp_flow_and_every_mark_reaches_its_sender() {
    let pie = serde_json::json!({"kind": "pie", "limit_pkts": 1000, "target_ns": 15 * MS, "tupdate_ns": 15 * MS,
        "alpha": 0.125, "beta": 1.25, "max_burst_ns": 150 * MS, "ecn": false, "l4s_step_ns": MS});
    let sim = dctcp_ect1_and_cubic(pie);
    assert_marks_are_the_rules_and_fed_back(&sim, "step_marks");
}
