//! ECN end to end through marking queues: the endpoints' half (ECT, ECE until CWR, one reduction
//! per window, DCTCP's per-segment echo and alpha) meeting the queues that set CE.

use serde_json::{json, Value};

use crate::scenarios::*;

/// Link 0 of a dumbbell is the forward bottleneck.
const BOTTLENECK: usize = 0;

fn step(k_pkts: u64, limit_pkts: u64) -> Value {
    json!({"kind": "step", "limit_pkts": limit_pkts, "limit_bytes": null, "k_pkts": k_pkts, "k_bytes": null,
           "ecn": true})
}

fn marking_red() -> Value {
    json!({"kind": "red", "limit_pkts": 1000, "min_th": 5.0, "max_th": 15.0, "max_p": 0.1, "w_q": 0.002,
           "gentle": true, "wait": true, "mean_pktsize": 1000, "ecn": true})
}

fn flows(cc: &str, n: usize, rtt_ms: u64) -> Vec<Value> {
    (0..n).map(|_| flow(cc, rtt_ms)).collect()
}

#[test]
fn dctcp_holds_the_queue_near_k_at_full_utilization() {
    // 100 Mb/s, 4 ms RTT: a BDP of about 48 packets; K = 20, a buffer of 400.
    let k = 20.0;
    let mut v = dumbbell(100_000_000, 1, step(20, 400), flows("dctcp", 2, 4), 4.0);
    for i in 0..2 {
        set(&mut v, &format!("flows.{i}.start_jitter_ns"), json!(10 * MS));
    }
    let r = run(&v);
    let util = r.links.f64("utilization")[BOTTLENECK];
    let mean_q = r.links.f64("mean_queue_pkts")[BOTTLENECK];
    let max_q = r.links.u64("max_queue_pkts")[BOTTLENECK];
    eprintln!("DCTCP, K = {k}: utilization {util:.3}, mean queue {mean_q:.1} pkts, max {max_q}");
    assert_eq!(r.links.u64("queue_drops")[BOTTLENECK], 0);
    assert_eq!(r.flows.u64("retransmits").iter().sum::<u64>(), 0);
    assert!(util > 0.95, "utilization {util}");
    assert!((0.5 * k..=1.5 * k).contains(&mean_q), "mean queue {mean_q}");
}

#[test]
fn an_ecn_flow_through_a_marking_red_queue_backs_off_without_losses() {
    let duration_s = 20.0;
    let rtt_s = 0.06;
    let mut v = dumbbell(10_000_000, 10, marking_red(), flows("reno", 4, 60), duration_s);
    set(&mut v, "stack.overrides", json!({"ecn": true}));
    for i in 0..4 {
        set(&mut v, &format!("flows.{i}.start_jitter_ns"), json!(S));
    }
    set(&mut v, "trace", json!({"drops": true}));
    let r = run(&v);
    let cuts = r.flows.u64("window_cuts");
    let drops = r.drops.f64("t_s");
    eprintln!(
        "4 Reno flows with ECN through RED: cuts {cuts:?}, utilization {:.3}, {} drops, the last at {:.2} s",
        r.links.f64("utilization")[BOTTLENECK],
        drops.len(),
        drops.last().copied().unwrap_or(0.0)
    );
    // The first slow starts overshoot faster than RED's slow average follows: the queue's forced
    // drops (average above 2 max_th) stay drops. After that, RED only marks: nothing is lost.
    assert!(drops.iter().all(|&t| t < 2.0), "a loss after the start-up: {drops:?}");
    for &c in cuts {
        // Reductions happen (the queue marks), at most one per window: the RTT is at least the
        // 60 ms base, so never more than duration / RTT of them.
        assert!(c > 10 && (c as f64) < duration_s / rtt_s, "{cuts:?}");
    }
}

#[test]
fn without_ecn_the_same_red_queue_drops_instead() {
    let mut v = dumbbell(10_000_000, 10, marking_red(), flows("reno", 4, 60), 20.0);
    for i in 0..4 {
        set(&mut v, &format!("flows.{i}.start_jitter_ns"), json!(S));
    }
    let r = run(&v);
    assert!(r.links.u64("queue_drops")[BOTTLENECK] > 0);
    assert!(r.flows.u64("retransmits").iter().sum::<u64>() > 0);
}
