//! RED under load: with a physical limit far above max_th, the average settles between the
//! thresholds and drops begin long before the buffer is full.

use crate::scenarios::*;
use serde_json::json;

#[test]
fn red_keeps_the_average_between_thresholds_and_drops_early() {
    let red = json!({"kind": "red", "limit_pkts": 1000, "min_th": 5.0, "max_th": 15.0, "max_p": 0.1,
                     "w_q": 0.002, "gentle": true, "wait": true, "mean_pktsize": 1000});
    let flows = (0..20).map(|_| flow("newreno", 60)).collect();
    let mut v = dumbbell(10_000_000, 10, red, flows, 60.0);
    for i in 0..20 {
        set(&mut v, &format!("flows.{i}.start_jitter_ns"), json!(2 * S));
    }
    set(&mut v, "trace", json!({"sample_interval_ns": 10 * MS, "drops": true}));
    let r = run(&v);
    let t = r.queues.f64("t_s");
    let avg = r.queues.f64("avg_queue_pkts");
    let link = match r.queues.column("link") {
        Some(ccsim_core::results::Column::U32(v)) => v.clone(),
        _ => panic!(),
    };
    let settled: Vec<f64> = (0..t.len()).filter(|&i| link[i] == 0 && t[i] > 20.0).map(|i| avg[i]).collect();
    let mean = settled.iter().sum::<f64>() / settled.len() as f64;
    eprintln!("RED average queue after 20 s: {mean:.2} packets");
    assert!((5.0..15.0).contains(&mean), "mean average queue {mean}");
    let max_queue = r.links.u64("max_queue_pkts")[0];
    let drops = r.links.u64("queue_drops")[0];
    assert!(drops > 100, "{drops} drops");
    assert!(max_queue < 200, "queue reached {max_queue} of 1000 packets: drops were not early");
    let early = match r.drops.column("kind") {
        Some(ccsim_core::results::Column::U8(k)) => k.iter().filter(|&&k| k == 1).count(),
        _ => panic!(),
    };
    assert!(early as f64 > 0.5 * drops as f64, "{early} of {drops} drops were early");
}
