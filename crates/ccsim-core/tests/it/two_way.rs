//! Two-way traffic: data in both directions over the same bottleneck, so one direction's ACKs
//! queue behind the other's data (ACK compression), and one-way delays under skewed host clocks.

use std::sync::{Arc, Mutex};

use ccsim_core::cc::reno::RenoWindow;
use ccsim_core::cc::{AckSample, CongestionControl, CongestionEvent, Window};
use ccsim_core::engine::CcFactory;
use ccsim_core::{RunResults, Simulation};
use serde_json::Value;

use crate::conservation::assert_conserved;
use crate::scenarios::{droptail, dumbbell, flow, spec, MS};

/// What the watched flow saw on each ACK: its arrival time and one-way delay.
type Seen = Arc<Mutex<Vec<(u64, Option<i64>)>>>;

/// Reno that records the ACKs it is given.
struct Watch {
    window: RenoWindow,
    seen: Seen,
}

impl CongestionControl for Watch {
    fn name(&self) -> &'static str {
        "watch"
    }
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.seen.lock().unwrap().push((ack.now, ack.one_way_delay));
        self.window.on_ack(ack, w);
    }
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.window.on_congestion(ev, w);
    }
}

/// The flow labelled "watched" records its ACKs; every other flow runs its own algorithm.
fn watching(seen: Seen) -> CcFactory {
    Box::new(move |t, rng| {
        if t.label == "watched" {
            return Ok(Box::new(Watch { window: RenoWindow::default(), seen: seen.clone() }));
        }
        ccsim_core::cc::registry::build(&t.cc, &t.cc_params, rng)
    })
}

fn reverse(mut f: Value) -> Value {
    f["reverse"] = Value::Bool(true);
    f
}

/// One watched forward Reno flow (a fixed window of 20 segments, well below the path's 50) and
/// `reverse_flows` Reno flows sending the other way, on a 10 Mb/s dumbbell with 20 ms of delay
/// each way.
fn two_way(reverse_flows: usize, duration_s: f64) -> (Value, Seen) {
    let mut watched = flow("reno", 60);
    watched["label"] = "watched".into();
    watched["max_window_pkts"] = 20.into();
    let mut flows = vec![watched];
    flows.extend((0..reverse_flows).map(|_| reverse(flow("reno", 60))));
    (dumbbell(10_000_000, 20, droptail(100), flows, duration_s), Arc::new(Mutex::new(Vec::new())))
}

fn run_watched(v: &Value, seen: &Seen) -> (RunResults, Simulation) {
    let mut sim = Simulation::with_factory(&spec(v), watching(seen.clone())).unwrap();
    let r = sim.finish();
    (r, sim)
}

/// Share of the watched flow's ACK gaps after `from_ns` shorter than half the time a data
/// packet takes on the 10 Mb/s bottleneck (1040 B: 832 us): ACKs closer together than the data
/// they acknowledge left the bottleneck were compressed on the way back.
fn compressed_share(seen: &Seen, from_ns: u64) -> f64 {
    let times: Vec<u64> = seen.lock().unwrap().iter().map(|(t, _)| *t).filter(|t| *t >= from_ns).collect();
    let gaps: Vec<u64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.iter().filter(|&&g| g < 416_000).count() as f64 / gaps.len() as f64
}

#[test]
fn reverse_traffic_compresses_the_acks_of_the_forward_flow() {
    let mut shares = Vec::new();
    for n in [0, 1, 4] {
        let (v, seen) = two_way(n, 20.0);
        let (_, sim) = run_watched(&v, &seen);
        assert_conserved(&sim);
        shares.push(compressed_share(&seen, 5_000 * MS));
    }
    println!("compressed ACK gaps with 0, 1, 4 reverse flows: {shares:?}");
    // Alone, a flow's ACKs come back as spaced as its data left the bottleneck; with data queued
    // on the reverse path they bunch up behind it, more so with more reverse load.
    assert_eq!(shares[0], 0.0, "no reverse traffic: {shares:?}");
    assert!(shares[1] > 0.1 && shares[2] > shares[1], "{shares:?}");
}

#[test]
fn both_directions_carry_data_and_conserve_packets() {
    let mut forward = flow("reno", 60);
    forward["label"] = "forward".into();
    let v = dumbbell(10_000_000, 20, droptail(30), vec![forward, reverse(flow("reno", 60))], 20.0);
    let mut sim = Simulation::new(&spec(&v)).unwrap();
    let r = sim.finish();
    assert_conserved(&sim);
    // Both bottleneck directions carry data at a useful rate, and both drop (30-packet buffers).
    let goodputs = r.flows.f64("goodput_bps");
    assert!(goodputs.iter().all(|&g| g > 2e6), "{goodputs:?}");
    let (drops, utilization) = (r.links.u64("drops"), r.links.f64("utilization"));
    for link in 0..2 {
        assert!(
            drops[link] > 0 && utilization[link] > 0.5,
            "link {link}: {} drops, {}",
            drops[link],
            utilization[link]
        );
    }
}

#[test]
fn a_clock_offset_shifts_one_way_delays_and_drift_tilts_them() {
    let samples = |offset_ns: i64, drift_ppm: f64| {
        let (mut v, seen) = two_way(0, 10.0);
        v["flows"][0]["clock_offset_ns"] = offset_ns.into();
        v["flows"][0]["clock_drift_ppm"] = drift_ppm.into();
        run_watched(&v, &seen);
        let s = seen.lock().unwrap().clone();
        s.into_iter().map(|(t, d)| (t, d.expect("every ACK carries a one-way delay"))).collect::<Vec<_>>()
    };
    let synced = samples(0, 0.0);
    let behind = samples(-50 * MS as i64, 0.0);
    let drifting = samples(0, 1_000.0);
    assert_eq!(synced.len(), behind.len(), "the clocks change no packet's fate");
    for ((s, b), d) in synced.iter().zip(&behind).zip(&drifting) {
        assert_eq!(b.1, s.1 - 50 * MS as i64, "an offset shifts every delay alike");
        // 1000 ppm: the receiver's clock gains 1 ms per second; the arrival is a little before
        // the ACK's return, so the shift lies between what the two times give.
        let gained = d.1 - s.1;
        assert!(
            gained >= ((d.0 as f64 - 60.0 * MS as f64) * 1e-3) as i64 - 1 && gained <= (d.0 as f64 * 1e-3) as i64 + 1
        );
    }
    assert!(behind.iter().any(|(_, d)| *d < 0), "a clock far enough behind gives negative delays");
}
