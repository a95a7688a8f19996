//! Whole runs of a paced algorithm that sets cwnd on every ACK: packets stay conserved under every
//! recovery procedure, every segment is counted delivered exactly once across the ACKs the
//! algorithm sees, and with per-segment ECN feedback the deliveries acknowledged with ECN-Echo
//! are exactly the segments the queue marked; with AccECN feedback, so are the CE counts the
//! ACKs report.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::cc::{AckSample, CongestionControl, CongestionEvent, EcnFeedback, Window};
use crate::engine::CcFactory;
use crate::spec::ScenarioSpec;
use crate::Simulation;

const MS: u64 = 1_000_000;

/// Totals over the ACKs the algorithm saw.
#[derive(Default, Debug)]
struct Totals {
    delivered: f64,
    delivered_with_ece: f64,
    ce_delivered: f64,
    lost: f64,
    congestion_events: u32,
}

/// Paces at `rate` segments/s and holds cwnd at `cwnd`, whatever happens.
struct Steady {
    rate: f64,
    cwnd: f64,
    ecn: bool,
    totals: Arc<Mutex<Totals>>,
}

impl CongestionControl for Steady {
    fn name(&self) -> &'static str {
        "steady"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        let mut t = self.totals.lock().unwrap();
        t.delivered += ack.delivered_now;
        t.lost += ack.newly_lost;
        if ack.ece {
            t.delivered_with_ece += ack.delivered_now;
        }
        t.ce_delivered += ack.ce_delivered;
        w.cwnd = self.cwnd;
    }

    fn on_congestion(&mut self, _ev: &CongestionEvent, _w: &mut Window) {
        self.totals.lock().unwrap().congestion_events += 1;
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.rate)
    }

    fn sets_cwnd_on_every_ack(&self) -> bool {
        true
    }

    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::PerSegment
    }

    fn needs_ecn(&self) -> bool {
        self.ecn
    }
}

/// One 10 Mb/s, 20 ms RTT dumbbell flow of `segments` 1000-byte segments (1040 bytes on the wire:
/// 1202 segments/s, a BDP of 24) under `profile`, paced at 1.5 times the bottleneck with cwnd 60.
fn run(profile: &str, queue: Value, segments: u64, ecn: bool) -> (Simulation, Totals) {
    run_with(json!({"profile": profile}), queue, segments, ecn)
}

/// [`run`] with the stack as written (`{"profile": ..., "overrides": {...}}`).
fn run_with(stack: Value, queue: Value, segments: u64, ecn: bool) -> (Simulation, Totals) {
    let v = json!({
        "name": "hooks",
        "seed": 3,
        "duration_ns": 60_000 * MS,
        "stack": stack,
        "topology": {
            "kind": "dumbbell",
            "forward": {"rate_bps": 10_000_000, "delay_ns": 5 * MS, "queue": queue},
            "reverse": {"rate_bps": 10_000_000, "delay_ns": 5 * MS, "queue": {"kind": "droptail", "limit_pkts": 1000}},
            "access_rate_bps": 100_000_000,
            "access_queue": {"kind": "droptail", "limit_pkts": 100_000},
        },
        "flows": [{"label": "steady", "cc": "reno", "mss_bytes": 1000, "rtt_ns": 20 * MS, "start_ns": 0,
                   "size_bytes": segments * 1000}],
    });
    let totals = Arc::new(Mutex::new(Totals::default()));
    let shared = totals.clone();
    let factory: CcFactory =
        Box::new(move |_, _| Ok(Box::new(Steady { rate: 1.5 * 1202.0, cwnd: 60.0, ecn, totals: shared.clone() })));
    let spec = ScenarioSpec::from_json(&v.to_string()).expect("valid spec");
    let mut sim = Simulation::with_factory(&spec, factory).expect("builds");
    sim.finish();
    let t = std::mem::take(&mut *totals.lock().unwrap());
    (sim, t)
}

fn assert_conserved(sim: &Simulation) {
    for (i, c) in sim.flow_conservation().iter().enumerate() {
        assert_eq!(c.sent, c.delivered + c.dropped + c.in_network, "flow {i}: {c:?}");
    }
    for (i, c) in sim.link_conservation().iter().enumerate() {
        assert_eq!(c.arrivals, c.departures + c.queue_drops + c.inside, "link {i}: {c:?}");
    }
    let (held, carried) = sim.sack_blocks_held();
    assert_eq!(held, carried);
}

/// A 10-packet buffer overflows at 1.5 times the bottleneck rate: losses, recovery episodes,
/// retransmissions, timeouts. Under SACK every segment is counted delivered once over the ACKs
/// the algorithm sees (the last one included); under every procedure the run conserves packets
/// and the transfer completes (without SACK only after several timeouts: a cwnd held at 60
/// overflows the path again after each).
#[test]
fn a_paced_every_ack_flow_conserves_packets_and_counts_each_delivery_once() {
    let buffer = json!({"kind": "droptail", "limit_pkts": 10});
    for profile in ["ns2", "linux-sack", "linux"] {
        let (sim, t) = run(profile, buffer.clone(), 3000, false);
        assert_conserved(&sim);
        let s = &sim.flows[0].sender.stats;
        assert!(s.retransmits > 0 && t.congestion_events > 0, "{profile}: {s:?} {t:?}");
        assert!(sim.flows[0].sender.completed_at.is_some(), "{profile}: the transfer completes");
        assert!(t.lost > 0.0, "{profile}: {t:?}");
        if profile != "ns2" {
            assert_eq!(t.delivered, 3000.0, "{profile}: {t:?}");
        }
    }
}

/// A step queue marks every arrival finding 10 packets waiting (never dropping); per-segment
/// feedback echoes each segment's mark. Deliveries acknowledged with ECN-Echo add up to the
/// queue's marks.
#[test]
fn deliveries_acknowledged_with_ecn_echo_are_the_marks_made() {
    let step =
        json!({"kind": "step", "limit_pkts": 1000, "limit_bytes": null, "k_pkts": 10, "k_bytes": null, "ecn": true});
    let (sim, t) = run("linux-sack", step, 3000, true);
    assert_conserved(&sim);
    let mut marks = 0.0;
    for l in &sim.fab.links {
        l.inspect_queue(&mut |name, v| {
            if name == "marks" {
                marks += v;
            }
        });
    }
    assert!(marks > 100.0, "{marks}");
    assert_eq!(t.delivered_with_ece, marks, "{t:?}");
    assert_eq!(t.ce_delivered, marks, "{t:?}");
    assert_eq!(sim.flows[0].sender.stats.retransmits, 0);
}

/// The same run with the stack's `ecn_feedback = "accecn"` over the algorithm's per-segment
/// echo: the CE counts decoded from the ACE fields add up to the queue's marks, on the ACKs the
/// algorithm sees as in the sender's own count, and the ACKs that report marks are the ones
/// with `ece`.
#[test]
fn ce_counts_fed_back_by_accecn_are_the_marks_made() {
    let step =
        json!({"kind": "step", "limit_pkts": 1000, "limit_bytes": null, "k_pkts": 10, "k_bytes": null, "ecn": true});
    let stack = json!({"profile": "linux-sack", "overrides": {"ecn_feedback": "accecn"}});
    let (sim, t) = run_with(stack, step, 3000, true);
    assert_conserved(&sim);
    let mut marks = 0.0;
    for l in &sim.fab.links {
        l.inspect_queue(&mut |name, v| {
            if name == "marks" {
                marks += v;
            }
        });
    }
    assert!(marks > 100.0, "{marks}");
    assert_eq!(t.ce_delivered, marks, "{t:?}");
    assert_eq!(sim.flows[0].sender.stats.ce_delivered as f64, marks);
    assert!(t.delivered_with_ece >= marks, "{t:?}");
}
