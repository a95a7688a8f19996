//! TCP Libra and TCP Adaptive Reno over whole runs: Libra's RTT-scaled increase shares a
//! bottleneck between a 40 ms and an 80 ms flow more evenly than Reno does; AReno does not cut its
//! window for losses on an empty queue, so with random loss it keeps the link far busier than Reno.

use serde_json::json;

use crate::scenarios::*;

/// Goodput of two flows of `cc`, RTT 40 and 80 ms, on 20 Mbps with a DropTail buffer of 192
/// packets (the BDP at 80 ms for 1040-byte packets), 60 s, the second flow starting at 0.5 s.
fn two_rtts(cc: &str) -> (f64, f64) {
    let flows = vec![flow(cc, 40), flow(cc, 80)];
    let mut v = dumbbell(20_000_000, 5, droptail(192), flows, 60.0);
    set(&mut v, "flows.1.start_ns", json!(S / 2));
    let r = run(&v);
    let g = r.flows.f64("goodput_bps");
    (g[0], g[1])
}

/// Reno's 40 ms flow takes several times the 80 ms flow's goodput (shares go as 1/RTT^k); Libra
/// gives the 80 ms flow (80/40)^2 = 4 times the 40 ms flow's per-RTT increase, i.e. twice its
/// rate increase per second, and the ratio falls. Measured (seed 1): Reno 15.41 / 3.28 Mbps
/// (ratio 4.70), Libra 12.76 / 4.42 Mbps (ratio 2.88, total 17.2 of at most 19.2 Mbps of goodput
/// at 1000/1040 bytes): bounds ratio_reno > 3, ratio_libra < 0.75 ratio_reno, total > 16 Mbps.
#[test]
fn libra_shares_more_evenly_across_rtts_than_reno() {
    let (r40, r80) = two_rtts("reno");
    let (l40, l80) = two_rtts("libra");
    eprintln!(
        "reno 40 ms {:.2} / 80 ms {:.2} Mbps (ratio {:.2}); libra {:.2} / {:.2} Mbps (ratio {:.2})",
        r40 / 1e6,
        r80 / 1e6,
        r40 / r80,
        l40 / 1e6,
        l80 / 1e6,
        l40 / l80
    );
    assert!(r40 / r80 > 3.0, "reno ratio {:.2}", r40 / r80);
    assert!(l40 / l80 < 0.75 * (r40 / r80), "libra {:.2} vs reno {:.2}", l40 / l80, r40 / r80);
    assert!(l40 + l80 > 16e6, "libra keeps the link busy");
}

/// One flow, 40 ms, 20 Mbps, a 1-BDP buffer (96 packets), random loss 1% on the bottleneck,
/// 60 s: Reno's window is cut by every loss; AReno's losses happen with little queue (c near 0)
/// and cost little. Measured (seed 1): utilization Reno 0.100, AReno 0.241, AReno 2006 form
/// 0.286 (1% loss is heavy: neither fills the link); bounds: each AReno form above twice Reno.
fn lossy(cc: &str, params: serde_json::Value) -> f64 {
    let mut f = flow(cc, 40);
    f["cc_params"] = params;
    let mut v = dumbbell(20_000_000, 5, droptail(96), vec![f], 60.0);
    set(&mut v, "topology.forward.loss", json!({"kind": "bernoulli", "p": 0.01}));
    let r = run(&v);
    r.links.f64("utilization")[0]
}

#[test]
fn areno_keeps_utilization_under_random_loss() {
    let reno = lossy("reno", json!({}));
    let areno = lossy("areno", json!({}));
    let areno06 = lossy("areno", json!({"form": 2006}));
    eprintln!("utilization at 1% random loss: reno {reno:.3}, areno {areno:.3}, areno 2006 {areno06:.3}");
    assert!(areno > 2.0 * reno, "areno {areno:.3} vs reno {reno:.3}");
    assert!(areno06 > 2.0 * reno, "areno 2006 {areno06:.3} vs reno {reno:.3}");
}
