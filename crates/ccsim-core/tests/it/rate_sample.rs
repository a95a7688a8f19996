//! The delivery-rate sample reaches the algorithms that need it: under every-ACK sampling or
//! SACK the sender keeps send records anyway; under the ns2 profile without SACK only for an
//! algorithm that asks (`CongestionControl::wants_delivery_rate`).

use std::sync::{Arc, Mutex};

use ccsim_core::cc::reno::RenoWindow;
use ccsim_core::cc::{AckSample, CongestionControl, CongestionEvent, Window};
use ccsim_core::engine::CcFactory;
use ccsim_core::Simulation;

use crate::scenarios::{droptail, dumbbell, flow, spec};

/// Rates the flow saw, segments per second.
type Rates = Arc<Mutex<Vec<f64>>>;

struct RateReader {
    window: RenoWindow,
    wants: bool,
    rates: Rates,
}

impl CongestionControl for RateReader {
    fn name(&self) -> &'static str {
        "rate-reader"
    }
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        if let Some(rate) = ack.delay.rate.and_then(|s| s.rate()) {
            self.rates.lock().unwrap().push(rate);
        }
        self.window.on_ack(ack, w);
    }
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.window.on_congestion(ev, w);
    }
    fn wants_delivery_rate(&self) -> bool {
        self.wants
    }
}

fn rates(profile: &str, wants: bool) -> Vec<f64> {
    let rates: Rates = Arc::new(Mutex::new(Vec::new()));
    let shared = rates.clone();
    let factory: CcFactory =
        Box::new(move |_, _| Ok(Box::new(RateReader { window: RenoWindow::default(), wants, rates: shared.clone() })));
    // One flow with a window cap of 20 segments on a 10 Mb/s, 40 ms path (BDP 48): it delivers
    // 20 segments per RTT, 500 per second.
    let mut f = flow("reno", 40);
    f["max_window_pkts"] = 20.into();
    let mut v = dumbbell(10_000_000, 10, droptail(100), vec![f], 5.0);
    v["stack"]["profile"] = profile.into();
    let mut sim = Simulation::with_factory(&spec(&v), factory).unwrap();
    sim.finish();
    let seen = rates.lock().unwrap().clone();
    seen
}

#[test]
fn the_ns2_profile_keeps_send_records_only_for_an_algorithm_that_reads_the_rate() {
    assert!(rates("ns2", false).is_empty(), "ns2 without SACK: no records, no rate sample");
    for (profile, wants) in [("ns2", true), ("linux", false)] {
        let seen = rates(profile, wants);
        assert!(seen.len() > 100, "{profile}: {} samples", seen.len());
        // After slow start the window-limited flow delivers 20 segments per 40 ms RTT.
        let late = &seen[seen.len() / 2..];
        let mean = late.iter().sum::<f64>() / late.len() as f64;
        assert!((mean - 500.0).abs() < 0.1 * 500.0, "{profile}: mean rate {mean:.1} segments/s");
    }
}
