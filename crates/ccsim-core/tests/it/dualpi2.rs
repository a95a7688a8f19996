//! DualPI2 (RFC 9332) in whole runs: classic ECN traffic (CUBIC with ECN and DCTCP, both sending
//! ECT(0), so both in the classic queue) through a 40 Mb/s bottleneck under Linux's defaults. The
//! PI2 controller holds the classic queue's delay near its 15 ms target, each queue's counters
//! add up (in = out + dropped + queued), and two runs give the same tables byte for byte.

use ccsim_core::results::Column;
use ccsim_core::RunResults;
use serde_json::{json, Value};

use crate::scenarios::*;

const RATE: u64 = 40_000_000;

/// Linux's sch_dualpi2 defaults.
fn dualpi2() -> Value {
    json!({"kind": "dualpi2", "limit_pkts": 10_000, "target_ns": 15 * MS, "tupdate_ns": 16 * MS,
           "alpha": 0.16, "beta": 3.2, "step_thresh_ns": MS, "min_qlen_step": 0, "coupling": 2.0,
           "c_weight_pct": 10, "drop_overload": true, "drop_early": false, "ecn_mask": 1})
}

/// Two CUBIC and two DCTCP flows of 40 ms, all with ECN, for `duration_s`, sampled every 10 ms.
fn mixed_run(duration_s: f64) -> RunResults {
    let flows = vec![flow("cubic", 40), flow("cubic", 40), flow("dctcp", 40), flow("dctcp", 40)];
    let mut v = dumbbell(RATE, 5, dualpi2(), flows, duration_s);
    set(&mut v, "stack", json!({"profile": "linux", "overrides": {"ecn": true}}));
    for i in 0..4 {
        set(&mut v, &format!("flows.{i}.start_jitter_ns"), json!(S));
    }
    set(&mut v, "trace", json!({"sample_interval_ns": 10 * MS}));
    run(&v)
}

/// The forward bottleneck's (link 0) samples of `name`, with their times.
fn forward(r: &RunResults, name: &str) -> Vec<(f64, f64)> {
    let t = r.queues.f64("t_s");
    let x = r.queues.f64(name);
    let link = match r.queues.column("link") {
        Some(Column::U32(v)) => v.clone(),
        _ => panic!("link"),
    };
    (0..t.len()).filter(|&i| link[i] == 0).map(|i| (t[i], x[i])).collect()
}

fn mean_after(samples: &[(f64, f64)], from_s: f64) -> f64 {
    let x: Vec<f64> = samples.iter().filter(|(t, _)| *t >= from_s).map(|&(_, v)| v).collect();
    x.iter().sum::<f64>() / x.len() as f64
}

#[test]
fn the_classic_queue_settles_near_its_target_and_every_queue_adds_up() {
    let r = mixed_run(40.0);
    let c_delay = mean_after(&forward(&r, "c_delay_s"), 10.0);
    let p = mean_after(&forward(&r, "prob_base"), 10.0);
    let util = r.links.f64("utilization")[0];
    let last = |name: &str| forward(&r, name).last().expect("samples").1;
    eprintln!(
        "CUBIC + DCTCP (ECT(0)) through DualPI2 at 40 Mb/s: classic head delay {:.1} ms, p' {p:.4}, \
         utilization {util:.3}, classic in {} out {} drops {} marks {} queued {}, L in {}",
        c_delay * 1e3,
        last("c_in"),
        last("c_out"),
        last("c_drops"),
        last("c_marks"),
        last("c_len_pkts"),
        last("l_in"),
    );
    assert!((0.010..0.020).contains(&c_delay), "classic delay near 15 ms: {c_delay}");
    assert!(util > 0.9, "{util}");
    assert!(last("c_marks") > 0.0, "the classic queue marks ECT(0)");
    // Conservation per queue at every sample, on both links (the reverse one carries ACKs).
    let (t, link) = (r.queues.f64("t_s"), r.queues.column("link").unwrap());
    let Column::U32(link) = link else { panic!("link") };
    for q in ["c", "l"] {
        let (i, o, d, n) = (
            r.queues.f64(&format!("{q}_in")),
            r.queues.f64(&format!("{q}_out")),
            r.queues.f64(&format!("{q}_drops")),
            r.queues.f64(&format!("{q}_len_pkts")),
        );
        for k in 0..t.len() {
            assert_eq!(i[k], o[k] + d[k] + n[k], "{q} queue of link {} at {} s", link[k], t[k]);
        }
    }
    assert_eq!(last("l_in"), 0.0, "no sender emits ECT(1) yet");
    let drops = r.links.u64("drops")[0] as f64;
    assert_eq!(drops, last("c_drops") + last("l_drops"), "the link's drops are the queues'");
}

#[test]
fn two_runs_give_byte_identical_tables() {
    let (a, b) = (mixed_run(5.0), mixed_run(5.0));
    assert_eq!(table_bytes(&a.queues), table_bytes(&b.queues));
    assert_eq!(table_bytes(&a.flows), table_bytes(&b.flows));
    assert_eq!(table_bytes(&a.links), table_bytes(&b.links));
}
