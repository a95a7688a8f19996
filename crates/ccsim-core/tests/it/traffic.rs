//! Traffic generators: closed loop keeps N transfers active; open loop arrives at its rate with
//! sizes and per-source RTTs from their distributions.

use ccsim_core::results::Column;
use serde_json::json;

use crate::scenarios::*;

fn generator_rows(r: &ccsim_core::RunResults, g: i64) -> Vec<usize> {
    match r.flows.column("generator") {
        Some(Column::I64(v)) => (0..v.len()).filter(|&i| v[i] == g).collect(),
        _ => panic!("no generator column"),
    }
}

#[test]
fn closed_loop_keeps_exactly_its_slots_busy() {
    let mut v = dumbbell(10_000_000, 10, droptail(50), vec![], 30.0);
    set(
        &mut v,
        "generators",
        json!([{
            "label": "web", "cc": "reno", "mss_bytes": 1000, "start_ns": 0,
            "arrivals": {"kind": "closed_loop", "slots": 7},
            "size": {"kind": "fixed", "bytes": 60000}, "rtt_choices_ns": [100_000_000u64]
        }]),
    );
    let r = run(&v);
    let rows = generator_rows(&r, 0);
    let (start, end) = (r.flows.f64("start_s"), r.flows.f64("end_s"));
    assert!(rows.len() > 100, "{} transfers", rows.len());
    for k in 1..60 {
        let t = k as f64 * 0.5 - 0.00123;
        let active = rows.iter().filter(|&&i| start[i] <= t && t < end[i]).count();
        assert_eq!(active, 7, "at t={t}");
    }
    assert!(r.flows.f64("size_bytes").iter().all(|&s| s == 60000.0));
}

#[test]
fn open_loop_arrivals_sizes_and_source_rtts_follow_their_distributions() {
    let mut v = json!({
        "name": "pl", "seed": 3, "duration_ns": 200 * S, "stack": {"profile": "ns2"},
        "topology": {"kind": "parking_lot", "routers": 5,
            "forward": {"rate_bps": 1_000_000_000u64, "delay_ns": 15 * MS, "queue": droptail(2000)},
            "reverse": {"rate_bps": 1_000_000_000u64, "delay_ns": 15 * MS, "queue": droptail(2000)},
            "access_rate_bps": 10_000_000_000u64, "access_delay_ns": MS, "access_queue": droptail(100_000)},
        "flows": [],
    });
    set(
        &mut v,
        "generators",
        json!([{
            "label": "short", "cc": "newreno", "mss_bytes": 1000, "start_ns": 0,
            "arrivals": {"kind": "open_loop", "rate_per_s": 20.0, "stop_ns": null},
            "size": {"kind": "pareto", "mean_bytes": 100000.0, "shape": 1.5},
            "rtt_dist": {"kind": "exponential", "mean_ns": 130 * MS},
            "endpoints": [["R0", "R1"], ["R0", "R4"], ["R1", "R3"], ["R2", "R4"]],
            "sources": 100
        }]),
    );
    let r = run(&v);
    let rows = generator_rows(&r, 0);
    let n = rows.len() as f64;
    assert!((n - 4000.0).abs() < 4.0 * 4000f64.sqrt(), "{n} arrivals for 4000 expected");
    let rtt = r.flows.f64("base_rtt_s");
    let mut distinct: Vec<u64> = rows.iter().map(|&i| (rtt[i] * 1e9) as u64).collect();
    distinct.sort();
    distinct.dedup();
    // 100 sources, but draws below a path's own round trip (up to 4 x 2 x 15 ms = 120 ms) are raised
    // to it, so several sources share their path's minimum.
    assert!(distinct.len() > 40 && distinct.len() <= 100, "{} distinct source RTTs", distinct.len());
    let mean_rtt = rows.iter().map(|&i| rtt[i]).sum::<f64>() / n;
    assert!((0.13..0.25).contains(&mean_rtt), "mean base RTT {mean_rtt}");
    let (src, dst) = match (r.flows.column("src"), r.flows.column("dst")) {
        (Some(Column::Str(s)), Some(Column::Str(d))) => (s.clone(), d.clone()),
        _ => panic!(),
    };
    assert!(rows.iter().all(|&i| src[i].starts_with("sg0.") && dst[i].starts_with("rg0.")));
    let sizes = r.flows.f64("size_bytes");
    let median = {
        let mut s: Vec<f64> = rows.iter().map(|&i| sizes[i]).collect();
        s.sort_by(f64::total_cmp);
        s[s.len() / 2]
    };
    // Pareto(mean 100 kB, shape 1.5): scale 33.3 kB, median = scale * 2^(1/1.5) = 52.9 kB.
    assert!((median / 52_913.0 - 1.0).abs() < 0.1, "median size {median}");
    let done = rows.iter().filter(|&&i| !r.flows.f64("completion_s")[i].is_nan()).count();
    assert!(done as f64 > 0.9 * n, "{done} of {n} transfers completed");
}

fn strings(r: &ccsim_core::RunResults, name: &str) -> Vec<String> {
    match r.flows.column(name) {
        Some(Column::Str(v)) => v.clone(),
        _ => panic!("no string column {name}"),
    }
}

#[test]
fn the_flows_table_names_each_flows_routers_hops_and_direction() {
    let hop = json!({"rate_bps": 100_000_000u64, "delay_ns": 2 * MS, "queue": droptail(200)});
    let flow = |src: &str, dst: &str, reverse: bool| json!({"label": "reno", "cc": "reno", "mss_bytes": 1000, "start_ns": 0, "src": src, "dst": dst, "reverse": reverse});
    let mut v = json!({
        "name": "pl", "seed": 1, "duration_ns": 2 * S, "stack": {"profile": "ns2"},
        "topology": {"kind": "parking_lot", "routers": 5, "forward": hop, "reverse": hop,
            "access_rate_bps": 1_000_000_000u64, "access_delay_ns": MS, "access_queue": droptail(1000)},
        "flows": [flow("R0", "R4", false), flow("R1", "R3", true), flow("R3", "R2", false)],
    });
    set(
        &mut v,
        "generators",
        json!([{
            "label": "short", "cc": "reno", "mss_bytes": 1000, "start_ns": 0,
            "arrivals": {"kind": "open_loop", "rate_per_s": 20.0, "stop_ns": null},
            "size": {"kind": "fixed", "bytes": 20000},
            "endpoints": [["R0", "R2"], ["R4", "R1"]], "sources": 8
        }]),
    );
    let r = run(&v);
    let (src, dst) = (strings(&r, "src_router"), strings(&r, "dst_router"));
    let (hops, reverse) = (r.flows.u32("hops"), u8s(&r, "reverse"));
    let row = |i: usize| (src[i].as_str(), dst[i].as_str(), hops[i], reverse[i]);
    assert_eq!(row(0), ("R0", "R4", 4, 0));
    assert_eq!(row(1), ("R3", "R1", 2, 1), "reverse = true swaps src and dst");
    assert_eq!(row(2), ("R3", "R2", 1, 1), "towards a lower-numbered router");
    let rows = generator_rows(&r, 0);
    assert!(rows.len() > 20, "{} transfers", rows.len());
    for &i in &rows {
        assert!(matches!(row(i), ("R0", "R2", 2, 0) | ("R4", "R1", 3, 1)), "{:?}", row(i));
    }
    assert!(rows.iter().any(|&i| reverse[i] == 1) && rows.iter().any(|&i| reverse[i] == 0));

    // A dumbbell: every flow crosses the bottleneck once, reverse flows from R2 to R1.
    let mut d = dumbbell(10_000_000, 10, droptail(50), vec![flow_at(40, false), flow_at(40, true)], 1.0);
    set(&mut d, "name", json!("db"));
    let r = run(&d);
    assert_eq!(strings(&r, "src_router"), ["R1", "R2"]);
    assert_eq!(strings(&r, "dst_router"), ["R2", "R1"]);
    assert_eq!((r.flows.u32("hops"), u8s(&r, "reverse").as_slice()), (&[1u32, 1][..], &[0u8, 1][..]));
}

fn u8s(r: &ccsim_core::RunResults, name: &str) -> Vec<u8> {
    match r.flows.column(name) {
        Some(Column::U8(v)) => v.clone(),
        _ => panic!("no u8 column {name}"),
    }
}

fn flow_at(rtt_ms: u64, reverse: bool) -> serde_json::Value {
    let mut f = flow("reno", rtt_ms);
    f["reverse"] = json!(reverse);
    f
}
