//! Response functions of the high-speed algorithms over a link with Bernoulli loss: one flow, a
//! link far faster than the flow's window needs, a buffer that never fills, so every loss is the
//! link's. The mean window is measured as goodput x mean RTT / MSS after a warm-up that lets the
//! first slow-start overshoot die out.
//!
//! The laws are for periodic loss (a loss every 1/p packets); random loss spreads the loss
//! intervals, which changes the constant by up to ~20% but not the slope, so each test checks
//! both a ratio band and the log-log slope between two loss rates.

use ccsim_core::Simulation;
use serde_json::{json, Value};

use crate::scenarios::*;

pub struct Measured {
    pub goodput_bps: f64,
    pub rtt_s: f64,
    /// goodput x RTT in segments: the mean window.
    pub window: f64,
}

/// One flow of `cc` (with `params`) at base RTT `rtt_ms` over a 1 Gbps link with Bernoulli loss
/// `p` on the data direction. The run lasts long enough for about `losses` loss events at the
/// expected mean window `w_guess`, a fifth of it warm-up.
pub fn bernoulli(cc: &str, params: Value, p: f64, rtt_ms: u64, w_guess: f64, losses: f64, seed: u64) -> Measured {
    let packets_per_s = w_guess / (rtt_ms as f64 / 1e3);
    let measured_s = losses / p / packets_per_s;
    let warmup_s = 0.25 * measured_s + 2.0;
    let mut f = flow(cc, rtt_ms);
    f["cc_params"] = params;
    let mut v = dumbbell(1_000_000_000, 2, droptail(1_000_000), vec![f], warmup_s + measured_s);
    set(&mut v, "topology.forward.loss", json!({"kind": "bernoulli", "p": p}));
    set(&mut v, "seed", json!(seed));
    let mut sim = Simulation::new(&spec(&v)).expect("builds");
    sim.run_until((warmup_s * S as f64) as u64);
    let s0 = &sim.flows[0].sender;
    let (bytes0, rtt_sum0, rtt_n0) = (s0.bytes_acked(), s0.stats.rtt_sum_ns, s0.stats.rtt_samples);
    sim.finish();
    crate::conservation::assert_conserved(&sim);
    let s = &sim.flows[0].sender;
    let goodput_bps = (s.bytes_acked() - bytes0) as f64 * 8.0 / measured_s;
    let rtt_s = (s.stats.rtt_sum_ns - rtt_sum0) as f64 / (s.stats.rtt_samples - rtt_n0) as f64 / 1e9;
    let window = goodput_bps / 8.0 / 1000.0 * rtt_s;
    Measured { goodput_bps, rtt_s, window }
}

fn slope(p: (f64, f64), y: (f64, f64)) -> f64 {
    (y.1 / y.0).ln() / (p.1 / p.0).ln()
}

/// RFC 3649 section 5: w = 0.12 / p^0.835 above 38 segments (the table form rounds a(w) and b(w),
/// so a few percent either way).
fn hstcp_law(p: f64) -> f64 {
    0.12 / p.powf(0.835)
}

/// The mean windows of HSTCP at two loss rates, with its log-log slope.
fn highspeed_at(table: bool, ps: (f64, f64), losses: f64, seed: u64) -> (Vec<f64>, f64) {
    let params = json!({"table": if table { 1.0 } else { 0.0 }});
    let windows: Vec<f64> = [ps.0, ps.1]
        .iter()
        .map(|&p| bernoulli("highspeed", params.clone(), p, 20, hstcp_law(p), losses, seed).window)
        .collect();
    for (p, w) in [ps.0, ps.1].iter().zip(&windows) {
        let law = hstcp_law(*p);
        eprintln!("highspeed table={table} p={p:e}: mean window {w:.1} (law {law:.1}), ratio {:.3}", w / law);
    }
    let d = -slope(ps, (windows[0], windows[1]));
    eprintln!("highspeed table={table}: log-log slope {d:.3} (law 0.835, Reno 0.5)");
    (windows, d)
}

/// RFC 3649's continuous a(w), b(w) at p = 5e-4 and 5e-5 (laws 68 and 468 segments, above
/// Low_Window = 38): the mean window is on 0.12/p^0.835 and the slope near 0.835, well away from
/// Reno's 0.5. Across seeds 1-6 the ratios spread over 0.92-1.27 and the slope over 0.72-0.90
/// (few loss cycles at large windows), hence the bands.
#[test]
fn highspeed_follows_its_response_function() {
    let ps = (5e-4, 5e-5);
    let (w, d) = highspeed_at(false, ps, 100.0, 1);
    for (p, w) in [ps.0, ps.1].iter().zip(&w) {
        let ratio = w / hstcp_law(*p);
        assert!((0.85..=1.35).contains(&ratio), "p={p}: window {w:.1} vs law {:.1}", hstcp_law(*p));
    }
    assert!((0.68..=0.95).contains(&d), "slope {d}");
}

/// The Linux table (default) applies each row's a and b, which RFC 3649 Appendix B computed at
/// the row's upper window, across the whole row: just above 38 segments a = 2 where the formula
/// gives 1.0, and the excess shrinks as rows get relatively narrower. So the table form runs
/// above the law at windows of a few hundred (seeds 1-6 at p = 2e-4, law 147: ratios 1.15-1.43)
/// and closes in on it at larger ones (p = 2e-5, law 1007: 0.89-1.22), a slope a little under
/// the law's (0.71-0.81).
#[test]
fn highspeed_linux_table_runs_above_the_law_at_small_windows() {
    let ps = (2e-4, 2e-5);
    let (w, d) = highspeed_at(true, ps, 60.0, 1);
    let ratios: Vec<f64> = [ps.0, ps.1].iter().zip(&w).map(|(p, w)| w / hstcp_law(*p)).collect();
    assert!((1.1..=1.5).contains(&ratios[0]), "p={}: ratio {:.3}", ps.0, ratios[0]);
    assert!((0.85..=1.35).contains(&ratios[1]), "p={}: ratio {:.3}", ps.1, ratios[1]);
    assert!((0.62..=0.92).contains(&d), "slope {d}");
}

/// Scalable: mean window 0.0745/p for periodic loss (a = 0.01, b = 1/8), so goodput is
/// inversely proportional to p: log-log slope -1, against Reno's -0.5. Windows well above the
/// legacy window of 100: p = 3e-4 and 5e-5 (laws 248 and 1490). Seeds 1-6: ratios 0.93-1.12,
/// slopes -0.92 to -1.08.
#[test]
fn scalable_goodput_is_inversely_proportional_to_p() {
    let law = |p: f64| 0.0745 / p;
    let ps = (3e-4, 5e-5);
    let m: Vec<Measured> =
        [ps.0, ps.1].iter().map(|&p| bernoulli("scalable", json!({}), p, 20, law(p), 100.0, 1)).collect();
    for (p, r) in [ps.0, ps.1].iter().zip(&m) {
        let ratio = r.window / law(*p);
        eprintln!(
            "scalable p={p:e}: mean window {:.1} (0.0745/p = {:.1}), ratio {ratio:.3}, goodput {:.1} Mbps",
            r.window,
            law(*p),
            r.goodput_bps / 1e6
        );
        assert!((0.8..=1.35).contains(&ratio), "p={p}: window {:.1} vs {:.1}", r.window, law(*p));
    }
    let d = slope(ps, (m[0].goodput_bps, m[1].goodput_bps));
    eprintln!("scalable: log-log slope of goodput vs p {d:.3} (law -1)");
    assert!((-1.15..=-0.85).contains(&d), "slope {d}");
}

/// RFC 9438 section 5.1 (eq. 6-7): AVG_W = max(1.054 (RTT/p)^0.75, 1.22/sqrt(p)); returns both.
fn cubic_law(p: f64, rtt_s: f64) -> (f64, f64) {
    let (c, beta): (f64, f64) = (0.4, 0.7);
    let cubic = (c * (3.0 + beta) / (4.0 * (1.0 - beta))).powf(0.25) * (rtt_s / p).powf(0.75);
    let alpha = 3.0 * (1.0 - beta) / (1.0 + beta);
    let reno = (alpha * (1.0 + beta) / (2.0 * (1.0 - beta) * p)).sqrt();
    (cubic, reno)
}

/// CUBIC in its own region: RTT 400 ms, p = 2e-3 and 2e-4 (cubic law 56 and 315 segments, the
/// Reno-friendly estimate 27 and 87): the mean window on the cubic law (against the measured
/// RTT), slope near 0.75. Seeds 1-6: ratios 1.01-1.27, slopes 0.67-0.80.
#[test]
fn cubic_follows_its_cubic_response_at_long_rtts() {
    let ps = (2e-3, 2e-4);
    let mut windows = Vec::new();
    for p in [ps.0, ps.1] {
        let (law, reno) = cubic_law(p, 0.4);
        let r = bernoulli("cubic", json!({}), p, 400, law, 200.0, 1);
        let (law_at_rtt, _) = cubic_law(p, r.rtt_s);
        let ratio = r.window / law_at_rtt;
        eprintln!(
            "cubic p={p:e} rtt {:.3}: mean window {:.1} (cubic law {law_at_rtt:.1}, Reno {reno:.1}), ratio {ratio:.3}",
            r.rtt_s, r.window
        );
        assert!((0.95..=1.35).contains(&ratio), "p={p}: window {:.1} vs {law_at_rtt:.1}", r.window);
        windows.push(r.window);
    }
    let d = -slope(ps, (windows[0], windows[1]));
    eprintln!("cubic (400 ms): log-log slope {d:.3} (cubic law 0.75, Reno 0.5)");
    assert!((0.62..=0.86).contains(&d), "slope {d}");
}

/// CUBIC in the Reno-friendly region: RTT 10 ms, p = 1e-3 and 1e-2 (cubic law 5.9 and 1.1
/// segments, far below Reno's 38.7 and 12.2): the mean window is Reno's, slope 0.5. Linux's form
/// steers toward W_est and lands on Reno's law (seeds 1-6: 0.86-1.11); RFC 9438's jumps to it and
/// raises its alpha to 1 once past the pre-loss window, so it sits a little above (1.00-1.23).
#[test]
fn cubic_follows_renos_response_in_the_reno_friendly_region() {
    for (rfc, band) in [(false, 0.8..=1.2), (true, 0.9..=1.32)] {
        let mut windows = Vec::new();
        for p in [1e-3, 1e-2] {
            let (cubic, reno) = cubic_law(p, 0.01);
            let params = json!({"rfc9438": if rfc { 1.0 } else { 0.0 }});
            let r = bernoulli("cubic", params, p, 10, reno, 300.0, 1);
            let ratio = r.window / reno;
            eprintln!(
                "cubic rfc9438={rfc} p={p:e} rtt {:.4}: mean window {:.1} (Reno law {reno:.1}, cubic {cubic:.1}), ratio {ratio:.3}",
                r.rtt_s, r.window
            );
            assert!(band.contains(&ratio), "rfc={rfc} p={p}: window {:.1} vs {reno:.1}", r.window);
            windows.push(r.window);
        }
        let d = -slope((1e-3, 1e-2), (windows[0], windows[1]));
        eprintln!("cubic rfc9438={rfc} (10 ms): log-log slope {d:.3} (Reno 0.5)");
        assert!((0.45..=0.62).contains(&d), "rfc={rfc}: slope {d}");
    }
}

/// The spread of the measurements above over seeds 1-6 (the numbers quoted in the comments).
/// Heavier than CI should run; `cargo test -p ccsim-core --release --test it response_spread --
/// --ignored --nocapture` (about 30 s).
#[test]
#[ignore]
fn response_spread_over_seeds() {
    for seed in 1..=6 {
        eprintln!("-- seed {seed}");
        highspeed_at(false, (5e-4, 5e-5), 100.0, seed);
        highspeed_at(true, (2e-4, 2e-5), 60.0, seed);
        let law = |p: f64| 0.0745 / p;
        let m: Vec<Measured> =
            [3e-4, 5e-5].iter().map(|&p| bernoulli("scalable", json!({}), p, 20, law(p), 100.0, seed)).collect();
        let d = slope((3e-4, 5e-5), (m[0].goodput_bps, m[1].goodput_bps));
        eprintln!("scalable ratios {:.3} {:.3} slope {d:.3}", m[0].window / law(3e-4), m[1].window / law(5e-5));
        let mut ws = vec![];
        for p in [2e-3, 2e-4] {
            let r = bernoulli("cubic", json!({}), p, 400, cubic_law(p, 0.4).0, 200.0, seed);
            eprintln!("cubic 400 ms p={p:e} ratio {:.3}", r.window / cubic_law(p, r.rtt_s).0);
            ws.push(r.window);
        }
        eprintln!("cubic 400 ms slope {:.3}", -slope((2e-3, 2e-4), (ws[0], ws[1])));
        for rfc in [0.0, 1.0] {
            let mut ws = vec![];
            for p in [1e-3, 1e-2] {
                let reno = cubic_law(p, 0.01).1;
                let r = bernoulli("cubic", json!({"rfc9438": rfc}), p, 10, reno, 300.0, seed);
                eprintln!("cubic 10 ms rfc9438={rfc} p={p:e} ratio {:.3}", r.window / reno);
                ws.push(r.window);
            }
            eprintln!("cubic 10 ms rfc9438={rfc} slope {:.3}", -slope((1e-3, 1e-2), (ws[0], ws[1])));
        }
    }
}
