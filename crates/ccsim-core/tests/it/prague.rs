//! TCP Prague in whole runs through DualPI2 (Linux's sch_dualpi2 defaults) at 40 Mb/s: one flow
//! fills the link with the L queue's delay near its 1 ms step, and two flows of 5 and 50 ms RTT
//! share more equally with Prague's RTT scaling than without (a direction, not a law's value).

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

/// Prague flows of the given RTTs (and `rtt_scaling`) through DualPI2 under the linux profile,
/// one-way bottleneck delay 1 ms, sampled every 10 ms. Returns the results and each flow's
/// goodput after `warmup_s`, bits per second.
fn prague_run(rtts_ms: &[u64], rtt_scaling: f64, duration_s: f64, warmup_s: f64) -> (RunResults, Vec<f64>) {
    let flows = rtts_ms
        .iter()
        .map(|&rtt| {
            let mut f = flow("prague", rtt);
            f["cc_params"] = json!({"rtt_scaling": rtt_scaling});
            f
        })
        .collect();
    let mut v = dumbbell(RATE, 1, dualpi2(), flows, duration_s);
    set(&mut v, "stack", json!({"profile": "linux"}));
    for i in 1..rtts_ms.len() {
        set(&mut v, &format!("flows.{i}.start_ns"), json!(i as u64 * 100 * MS));
    }
    set(&mut v, "trace", json!({"sample_interval_ns": 10 * MS}));
    let mut sim = ccsim_core::Simulation::new(&spec(&v)).expect("builds");
    sim.run_until((warmup_s * S as f64) as u64);
    let before: Vec<u64> = sim.flows.iter().map(|f| f.sender.bytes_acked()).collect();
    let r = sim.finish();
    crate::conservation::assert_conserved(&sim);
    let span = duration_s - warmup_s;
    let goodput = sim.flows.iter().zip(before).map(|(f, b)| (f.sender.bytes_acked() - b) as f64 * 8.0 / span).collect();
    (r, goodput)
}

/// The forward bottleneck's (link 0) samples of `name` from `from_s` on.
fn forward_after(r: &RunResults, name: &str, from_s: f64) -> Vec<f64> {
    let (t, x) = (r.queues.f64("t_s"), r.queues.f64(name));
    let Some(Column::U32(link)) = r.queues.column("link") else { panic!("link") };
    (0..t.len()).filter(|&i| link[i] == 0 && t[i] >= from_s).map(|i| x[i]).collect()
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

#[test]
fn one_prague_flow_fills_the_link_with_the_l_queue_near_its_step() {
    let (r, goodput) = prague_run(&[20], 1.0, 20.0, 5.0);
    let l_delay = forward_after(&r, "l_delay_s", 5.0);
    let l_len = forward_after(&r, "l_len_pkts", 5.0);
    let last = |name: &str| *forward_after(&r, name, 0.0).last().expect("samples");
    let util = goodput[0] / RATE as f64 * 1040.0 / 1000.0;
    let alpha = mean(&r.series.f64("cc_alpha")[500..]);
    eprintln!(
        "one Prague flow, 20 ms, DualPI2 at 40 Mb/s, 5-20 s: goodput {:.2} Mb/s (link {:.3} with headers), \
         L queue delay mean {:.3} ms, length {:.1} pkts, alpha {alpha:.3}; L in {} marks {} (step {}) drops {}, \
         classic in {}; retransmits {}",
        goodput[0] / 1e6,
        util,
        mean(&l_delay) * 1e3,
        mean(&l_len),
        last("l_in"),
        last("l_marks"),
        last("l_step_marks"),
        last("l_drops"),
        last("c_in"),
        r.flows.u64("retransmits")[0],
    );
    assert!(util > 0.9, "fills the link: {util}");
    assert!((0.0002..0.002).contains(&mean(&l_delay)), "L queue near the 1 ms step: {}", mean(&l_delay));
    // The SYN is not ECN-capable: the classic queue's one packet.
    assert!(last("c_in") <= 1.0, "every data packet is ECT(1) or CE: all in the L queue");
    assert!(last("l_marks") > 0.0 && last("l_drops") == 0.0);
    assert!(alpha > 0.0 && alpha < 1.0, "{alpha}");
}

#[test]
fn rtt_scaling_brings_a_5_ms_and_a_50_ms_flow_closer_to_equal_shares() {
    let ratio = |scaling: f64| {
        let (r, g) = prague_run(&[5, 50], scaling, 40.0, 10.0);
        let ai = r.series.f64("cc_ai");
        eprintln!(
            "Prague 5 ms vs 50 ms, DualPI2 at 40 Mb/s, rtt_scaling {scaling}, 10-40 s: {:.2} and {:.2} Mb/s, \
             ratio {:.2}, last ai {:.3} / {:.3}",
            g[0] / 1e6,
            g[1] / 1e6,
            g[0] / g[1],
            ai[ai.len() - 2],
            ai[ai.len() - 1],
        );
        g[0] / g[1]
    };
    let (with, without) = (ratio(1.0), ratio(0.0));
    assert!(with < without, "with scaling {with:.2}, without {without:.2}");
}
