//! Algorithms' own state in the sampled series: `cc_<name>` columns from
//! `CongestionControl::inspect`.

use ccsim_core::results::{Column, RunResults};
use serde_json::json;

use crate::scenarios::*;

fn sampled(flows: Vec<serde_json::Value>, duration_s: f64) -> RunResults {
    let mut v = dumbbell(10_000_000, 10, droptail(1000), flows, duration_s);
    set(&mut v, "trace", json!({"sample_interval_ns": 10 * MS, "drops": false}));
    run(&v)
}

fn series_names(r: &RunResults) -> Vec<String> {
    r.series.columns.iter().map(|(n, _)| n.to_string()).collect()
}

const FIXED: [&str; 6] = ["t_s", "flow", "cwnd_pkts", "ssthresh_pkts", "srtt_s", "rate_bps"];

/// One Vegas flow alone on 10 Mbps, 40 ms RTT (BDP 48 packets), as in `delay.rs`: its series
/// carries `cc_diff`, the queue estimate of its last round end. It is a whole number of packets
/// (Linux truncates) and never negative (no RTT is below the base); it can exceed the window
/// once, at the end of slow start, which it measured before cutting the window to the rate the
/// path delivers (and after a loss halved the window). From 10 s on, when Vegas holds its band,
/// it stays in alpha..beta = 2..4 give or take the one-segment step a round end takes, and
/// matches what the window says is queued: diff = floor(cwnd (RTT - base)/base), and with the
/// whole window in flight cwnd = BDP x RTT/base, so diff is about cwnd - BDP (within the
/// truncation and the sampling's lag of one round).
#[test]
fn a_vegas_flow_reports_its_queue_estimate() {
    let r = sampled(vec![flow("vegas", 40)], 30.0);
    assert_eq!(series_names(&r)[..6], FIXED);
    assert_eq!(series_names(&r)[6..], ["cc_diff"]);
    let (t, cwnd, diff) = (r.series.f64("t_s"), r.series.f64("cwnd_pkts"), r.series.f64("cc_diff"));
    assert!(diff[0].is_nan(), "no round has ended at the first sample");
    let known: Vec<usize> = (0..t.len()).filter(|&i| !diff[i].is_nan()).collect();
    assert!(known.len() > t.len() * 9 / 10, "{} of {} samples", known.len(), t.len());
    for &i in &known {
        assert_eq!(diff[i], diff[i].floor(), "t {}: diff {}", t[i], diff[i]);
        assert!(diff[i] >= 0.0, "t {}: diff {}", t[i], diff[i]);
    }
    let late: Vec<usize> = known.into_iter().filter(|&i| t[i] >= 10.0).collect();
    let bdp = 48.0;
    let mut sum = 0.0;
    for &i in &late {
        assert!((1.0..=5.0).contains(&diff[i]), "t {}: diff {}", t[i], diff[i]);
        assert!((diff[i] - (cwnd[i] - bdp)).abs() <= 2.0, "t {}: diff {} cwnd {}", t[i], diff[i], cwnd[i]);
        sum += diff[i];
    }
    let mean_diff = sum / late.len() as f64;
    assert!((2.0..=4.0).contains(&mean_diff), "mean diff {mean_diff}");
}

/// Columns come from every algorithm that reports, sorted by name, NaN in other flows' rows:
/// CUBIC reports w_max and k, Vegas diff, Reno nothing.
#[test]
fn columns_are_the_union_sorted_with_nan_where_a_flow_does_not_report() {
    let r = sampled(vec![flow("newreno", 40), flow("cubic", 40), flow("vegas", 40)], 10.0);
    assert_eq!(series_names(&r)[6..], ["cc_diff", "cc_k", "cc_w_max"]);
    let rows = r.series.rows();
    for (_, c) in &r.series.columns {
        assert_eq!(c.len(), rows);
    }
    let flow = match r.series.column("flow") {
        Some(Column::U32(v)) => v,
        _ => panic!("flow column"),
    };
    let (diff, w_max) = (r.series.f64("cc_diff"), r.series.f64("cc_w_max"));
    for i in 0..rows {
        if flow[i] != 2 {
            assert!(diff[i].is_nan(), "row {i}: flow {} has a diff", flow[i]);
        }
        if flow[i] != 1 {
            assert!(w_max[i].is_nan(), "row {i}: flow {} has a w_max", flow[i]);
        }
    }
    assert!((0..rows).any(|i| flow[i] == 1 && w_max[i] > 0.0), "CUBIC lost a packet and set W_max");
}

/// Reno reports nothing: the series has the fixed columns only, as before the hook existed.
#[test]
fn algorithms_that_report_nothing_add_no_columns() {
    let r = sampled(vec![flow("reno", 40), flow("newreno", 60)], 5.0);
    assert!(r.series.rows() > 0);
    assert_eq!(series_names(&r), FIXED);
}

/// The seed-002 algorithms report their own state: Compound's delay window sums with its Reno
/// part to the window; Fusion's phase is one of its four codes and its floor never exceeds the
/// window; FAST's smoothed RTT is at least its base RTT; AReno's congestion level is in [0, 1].
#[test]
fn the_hybrid_algorithms_report_their_state() {
    let flows = vec![flow("compound", 40), flow("fusion", 40), flow("fast", 40), flow("areno", 40), flow("libra", 80)];
    let mut v = dumbbell(10_000_000, 10, droptail(100), flows, 20.0);
    set(&mut v, "stack.profile", json!("linux-sack"));
    set(&mut v, "trace", json!({"sample_interval_ns": 10 * MS, "drops": false}));
    let r = run(&v);
    assert_eq!(
        series_names(&r)[6..],
        [
            "cc_avg_rtt",
            "cc_base_rtt",
            "cc_c",
            "cc_dwnd",
            "cc_floor",
            "cc_gamma",
            "cc_phase",
            "cc_reno",
            "cc_rtt_cong",
            "cc_t"
        ]
    );
    let s = &r.series;
    let (flow, cwnd) = (s.u32("flow"), s.f64("cwnd_pkts"));
    for i in 0..flow.len() {
        match flow[i] {
            // Before the first ACK the stack alone sets the window (the Reno part is still 0).
            0 if s.f64("cc_reno")[i] > 0.0 => {
                let (dwnd, reno) = (s.f64("cc_dwnd")[i], s.f64("cc_reno")[i]);
                assert!((dwnd + reno - cwnd[i]).abs() < 1e-6 * cwnd[i], "dwnd {dwnd} reno {reno} cwnd {}", cwnd[i]);
            }
            0 => {}
            1 => {
                assert!([0.0, 1.0, 2.0, 3.0].contains(&s.f64("cc_phase")[i]));
                let floor = s.f64("cc_floor")[i];
                assert!(floor.is_nan() || floor <= cwnd[i] + 1e-9, "floor {floor} cwnd {}", cwnd[i]);
            }
            2 => {
                let (avg, base) = (s.f64("cc_avg_rtt")[i], s.f64("cc_base_rtt")[i]);
                assert!(avg.is_nan() || avg >= base - 1e-12, "avg {avg} base {base}");
            }
            3 => assert!((0.0..=1.0).contains(&s.f64("cc_c")[i])),
            _ => assert!(s.f64("cc_t")[i].is_nan() || s.f64("cc_t")[i] >= 0.08),
        }
    }
}

/// `limits.inspect_columns` bounds the distinct names of a run: CUBIC's two names do not fit in
/// one column. The run stops sampling at the first row, says which algorithm and flow reported
/// the name beyond the bound, and gives no results; the default bound leaves the spec as it was.
#[test]
fn names_beyond_the_runs_bound_stop_the_run_with_the_key_and_the_algorithm() {
    let mut v = dumbbell(10_000_000, 10, droptail(1000), vec![flow("newreno", 40), flow("cubic", 40)], 2.0);
    set(&mut v, "trace", json!({"sample_interval_ns": 10 * MS, "drops": false}));
    let default = spec(&v);
    assert_eq!(default.limits, ccsim_core::spec::RunLimits::default());
    assert!(!serde_json::to_string(&default).unwrap().contains("limits"), "absent when default");
    set(&mut v, "limits", json!({"inspect_columns": 1}));
    let mut sim = ccsim_core::Simulation::new(&spec(&v)).expect("builds");
    sim.run_until(S);
    let failure = sim.failure().expect("the run failed");
    let text = failure.to_string();
    assert!(text.starts_with("limits.inspect_columns: algorithm \"cubic\" (flow 1, labelled \"cubic\")"), "{text}");
    assert!(text.contains("expected at most 1"), "{text}");
    assert_eq!(sim.try_finish().err(), Some(failure));
    set(&mut v, "limits", json!({"inspect_columns": 0}));
    let err = ccsim_core::ScenarioSpec::from_json(&v.to_string()).unwrap_err();
    assert!(err.starts_with("limits.inspect_columns: 0 is out of range"), "{err}");
}
