//! The delay-based algorithms behave as delay-based: alone on a deep buffer they hold a small
//! standing queue without losing anything; against a loss-based flow that fills the buffer they
//! back off and lose out.

use serde_json::json;

use crate::scenarios::*;

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// One flow alone on 10 Mbps, 40 ms RTT (BDP 48 packets of 1040 B), 1000 packets of buffer (deep
/// enough for the slow-start overshoot), 30 s, the queue sampled every 10 ms.
fn alone(cc: &str, params: serde_json::Value) -> ccsim_core::RunResults {
    let mut f = flow(cc, 40);
    f["cc_params"] = params;
    let mut v = dumbbell(10_000_000, 10, droptail(1000), vec![f], 30.0);
    set(&mut v, "trace", json!({"sample_interval_ns": 10 * MS, "drops": false}));
    run(&v)
}

/// Vegas keeps alpha..beta = 2..4 of its packets queued. The Linux estimate
/// Q (BDP + Q) / BDP, truncated, is held in [2, 4]: Q from 2 to about 4.6 packets at a 48-packet
/// BDP; the paper's estimate is Q itself. Slow start overshoots (it is checked once per round
/// against the round's smallest RTT, which the round's first packets see before the queue builds)
/// and the window then comes down one segment per RTT, so the band is checked from 10 s on: the
/// link stays busy and nothing is lost. The sampled queue counts waiting packets, not the one
/// being sent.
#[test]
fn vegas_alone_keeps_a_few_packets_queued_and_loses_nothing() {
    for paper_diff in [0.0, 1.0] {
        let r = alone("vegas", json!({"paper_diff": paper_diff}));
        let q = bottleneck_queue(&r, 10.0);
        let (m, max) = (mean(&q), q.iter().cloned().fold(0.0, f64::max));
        let drops = r.links.u64("drops")[0];
        let util = r.links.f64("utilization")[0];
        eprintln!("vegas paper_diff={paper_diff}: queue after 10 s mean {m:.2} max {max} packets, drops {drops}, utilization {util:.4}");
        assert_eq!(drops, 0);
        assert_eq!(r.flows.u64("retransmits")[0], 0);
        assert!((2.0..=4.0).contains(&m), "paper_diff={paper_diff}: mean queue {m:.2}");
        assert!(max <= 6.0, "paper_diff={paper_diff}: queue reached {max}");
        assert!(util > 0.97, "utilization {util}");
    }
}

/// Vegas against Reno, same RTT, a 1-BDP DropTail buffer: Reno fills the buffer, Vegas reads the
/// queueing delay as its own backlog and shrinks, so it gets a small share.
#[test]
fn vegas_loses_out_against_reno() {
    let flows = vec![flow("vegas", 40), flow("reno", 40)];
    // 20 Mbps, 40 ms: BDP = 96 packets of 1040 B.
    let mut v = dumbbell(20_000_000, 10, droptail(96), flows, 40.0);
    set(&mut v, "flows.1.start_ns", json!(S));
    let r = run(&v);
    let g = r.flows.f64("goodput_bps");
    eprintln!("vegas {:.2} Mbps, reno {:.2} Mbps", g[0] / 1e6, g[1] / 1e6);
    assert!(g[0] < 0.35 * g[1], "vegas {:.2} vs reno {:.2} Mbps", g[0] / 1e6, g[1] / 1e6);
    assert!(g[0] + g[1] > 0.9 * 20e6, "the link stays busy");
}

/// YeAH ends slow start by "precautionary decongestion" (its queue estimate passes q_max = 80
/// at a round end: the queue is removed at once) where Reno ends it by overflowing the buffer.
/// Alone on a deep buffer neither loses anything afterwards. (Spec 10.8 expects a lone YeAH to
/// saw its queue between 0 and 80 for good; it does not: in slow mode its Reno estimate grows one
/// segment per round like its window, and decongestion never goes below it, as in Linux.)
#[test]
fn yeah_leaves_slow_start_by_decongestion_where_reno_overflows() {
    let yeah = alone("yeah", json!({}));
    let reno = alone("reno", json!({}));
    let q = bottleneck_queue(&yeah, 0.0);
    let max = q.iter().cloned().fold(0.0, f64::max);
    let (yd, rd) = (yeah.links.u64("drops")[0], reno.links.u64("drops")[0]);
    let yu = yeah.links.f64("utilization")[0];
    eprintln!("yeah: drops {yd}, queue max {max} packets, utilization {yu:.4}; reno: drops {rd}");
    assert_eq!(yd, 0);
    assert!(max < 500.0, "queue reached {max} of 1000");
    assert!(rd > 0, "Reno's slow start should overflow the buffer");
    assert!(yu > 0.97);
}
