//! The trait's pacing hook: an algorithm that asks for one segment per millisecond gets exactly
//! that spacing, whatever the window allows.

use std::sync::{Arc, Mutex};

use ccsim_core::Simulation;

use crate::probe::{factory, Call};
use crate::scenarios::*;

#[test]
fn a_pacing_algorithm_controls_the_spacing_of_transmissions() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let v = dumbbell(100_000_000, 5, droptail(1000), vec![flow("newreno", 20)], 2.0);
    let mut sim = Simulation::with_factory(&spec(&v), factory(log.clone(), Some((MS, 100.0)))).unwrap();
    sim.finish();
    let log = log.lock().unwrap();
    let sends: Vec<u64> = log
        .iter()
        .filter_map(|c| match c {
            Call::Sent { now, .. } => Some(*now),
            _ => None,
        })
        .collect();
    // Unpaced, a window of 100 would leave in bursts at 100 Mbps (83 us apart).
    let gaps: Vec<u64> = sends.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g >= MS), "a gap shorter than the pacing interval");
    let exact = gaps.iter().filter(|&&g| g == MS).count();
    assert!(exact as f64 > 0.99 * gaps.len() as f64, "{exact} of {} gaps exactly 1 ms", gaps.len());
    // About 1000 segments per second once the connection is open.
    assert!((1900..=2000).contains(&sends.len()), "{} sends", sends.len());
}
