//! Hand-computed traces of the sender's window through slow start and timeouts.

use std::sync::{Arc, Mutex};

use ccsim_core::cc::CongestionKind;
use ccsim_core::net::loss::LossModel;
use ccsim_core::rng::{stream, Entity, Purpose};
use ccsim_core::Simulation;

use crate::probe::{factory, Call};
use crate::scenarios::*;

/// cwnd after the last ACK that arrived before `t`.
fn cwnd_before(log: &[Call], t: u64) -> f64 {
    log.iter()
        .filter_map(|c| match c {
            Call::Ack { now, cwnd, .. } if *now < t => Some(*cwnd),
            _ => None,
        })
        .next_back()
        .unwrap_or(f64::NAN)
}

/// ns-2 profile, one ACK per segment, IW 2. Without a handshake (ns-2's one-way agents) the
/// initial window leaves at time 0; with one, a round trip later. By (h + 1.5) RTT + k RTT every
/// segment of round k is acknowledged, h being 1 with a handshake, so cwnd is 2 * 2^(k+1). A
/// 1 Gbps path with a huge buffer keeps loss away for the rounds checked.
#[test]
fn slow_start_doubles_cwnd_once_per_rtt_from_the_initial_window() {
    for handshake in [false, true] {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut v = dumbbell(1_000_000_000, 10, droptail(100_000), vec![flow("newreno", 100)], 1.5);
        set(&mut v, "stack.overrides.handshake", serde_json::json!(handshake));
        let mut sim = Simulation::with_factory(&spec(&v), factory(log.clone(), None)).unwrap();
        sim.finish();
        let log = log.lock().unwrap();
        assert!(!log.iter().any(|c| matches!(c, Call::Congestion { .. })), "no loss expected");
        let rtt = 100 * MS;
        let opening = if handshake { rtt } else { 0 };
        // Half a round after the initial window left, no ACK has come back yet.
        assert!(cwnd_before(&log, opening + rtt / 2).is_nan(), "handshake {handshake}: an ACK came early");
        for k in 0..10u32 {
            let t = opening + rtt + rtt / 2 + k as u64 * rtt;
            let expect = 2.0 * 2f64.powi(k as i32 + 1);
            assert_eq!(cwnd_before(&log, t), expect, "round {k}, handshake {handshake}");
        }
    }
}

/// Cut the path once the flow is in congestion avoidance: the first expiry sets ssthresh to half
/// the window and cwnd to 1; every further expiry keeps ssthresh, sets cwnd to 1 and comes after
/// twice the previous interval (exponential backoff), until the 60 s cap.
#[test]
fn timeouts_reset_cwnd_to_one_and_back_off_exponentially() {
    // ns-2: backoff multiplier capped at 64 (rto 0.2 s -> 12.8 s); Linux: only the 120 s cap.
    for (profile, cap) in [("ns2", 64 * 200 * MS), ("linux", 120 * S)] {
        timeouts_back_off(profile, cap);
    }
}

fn timeouts_back_off(profile: &str, cap: u64) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut v = dumbbell(10_000_000, 10, droptail(1000), vec![flow("newreno", 100)], 1000.0);
    set(&mut v, "flows.0.max_window_pkts", serde_json::json!(40));
    set(&mut v, "stack.profile", serde_json::json!(profile));
    let mut sim = Simulation::with_factory(&spec(&v), factory(log.clone(), None)).unwrap();
    sim.run_until(20 * S);
    let before = sim.flows[0].sender.w;
    assert_eq!(before.cwnd.min(40.0), 40.0, "window-limited at 40 before the cut: {before:?}");
    sim.fab.links[0].set_loss(LossModel::Bernoulli { p: 1.0, rng: stream(0, Entity::Link, 0, Purpose::Loss) });
    sim.finish();
    let log = log.lock().unwrap();
    let timeouts: Vec<(u64, f64, f64)> = log
        .iter()
        .filter_map(|c| match c {
            Call::Congestion { now, kind: CongestionKind::Timeout, cwnd, ssthresh, .. } => {
                Some((*now, *cwnd, *ssthresh))
            }
            _ => None,
        })
        .collect();
    assert!(timeouts.len() >= 6, "{timeouts:?}");
    // Basis min(cwnd, rwnd) (ns-2) or cwnd (Linux), halved on the first expiry, then kept.
    let cwnd_at_cut = cwnd_before(&log, timeouts[0].0);
    let basis = if profile == "ns2" { cwnd_at_cut.min(40.0) } else { cwnd_at_cut };
    for &(_, cwnd, ssthresh) in &timeouts {
        assert_eq!((cwnd, ssthresh), (1.0, basis / 2.0), "{profile}");
    }
    let gaps: Vec<u64> = timeouts.windows(2).map(|w| w[1].0 - w[0].0).collect();
    for g in gaps.windows(2) {
        assert_eq!(g[1], (2 * g[0]).min(cap), "{profile}: gaps {gaps:?}");
    }
    assert!(gaps.contains(&cap), "{profile}: backoff reaches its cap: {gaps:?}");
}
