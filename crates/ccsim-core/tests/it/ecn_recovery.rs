//! The stack's `recovery` and `ecn` keys on whole runs: the recovery procedure follows the stack
//! whatever the algorithm, and ECN without a marking queue changes nothing.

use crate::scenarios::*;
use ccsim_core::{RunResults, ScenarioSpec, Simulation};
use serde_json::{json, Value};

/// Two flows overshooting in slow start into a small buffer: several losses per window, where
/// Reno, NewReno and SACK recovery part ways.
fn overshoot(cc: &str, overrides: Value) -> Value {
    let mut v = dumbbell(10_000_000, 10, droptail(20), vec![flow(cc, 100), flow(cc, 60)], 10.0);
    set(&mut v, "stack.overrides", overrides);
    v
}

/// The flows table's numeric columns (not the label and algorithm names), bit for bit.
fn numbers(r: &RunResults) -> Vec<(String, Vec<u8>)> {
    r.flows.columns.iter().filter_map(|(name, col)| Some((name.to_string(), col.to_le_bytes()?))).collect()
}

#[test]
fn the_stack_names_the_recovery_procedure_whatever_the_algorithm() {
    // `reno` and `newreno` share their window rules; only the customary recovery differs.
    let customary = run(&overshoot("reno", json!({})));
    let newreno = run(&overshoot("newreno", json!({})));
    assert_ne!(numbers(&customary), numbers(&newreno), "the scenario must tell Reno from NewReno");
    let reno_as_newreno = run(&overshoot("reno", json!({"recovery": "newreno"})));
    assert_eq!(numbers(&reno_as_newreno), numbers(&newreno));
    let newreno_as_reno = run(&overshoot("newreno", json!({"recovery": "reno"})));
    assert_eq!(numbers(&newreno_as_reno), numbers(&customary));
    // `sack = true` is `recovery = "sack"`.
    let sack = run(&overshoot("reno", json!({"sack": true})));
    assert_eq!(numbers(&sack), numbers(&run(&overshoot("reno", json!({"recovery": "sack"})))));
    assert_ne!(numbers(&sack), numbers(&customary));
}

#[test]
fn sack_and_recovery_must_agree() {
    let e =
        ScenarioSpec::from_json(&overshoot("reno", json!({"sack": true, "recovery": "reno"})).to_string()).unwrap_err();
    assert!(e.starts_with("stack.sack: true contradicts recovery = \"reno\""), "{e}");
}

#[test]
fn ecn_through_queues_that_do_not_mark_changes_nothing() {
    for cc in ["reno", "cubic"] {
        let plain = run(&overshoot(cc, json!({})));
        let ecn = run(&overshoot(cc, json!({"ecn": true})));
        assert_eq!(numbers(&plain), numbers(&ecn), "{cc}");
    }
}

#[test]
fn dctcp_turns_ecn_on_for_its_flows_and_rejects_an_explicit_ecn_off() {
    // Without marks DCTCP is Reno with NewReno recovery: the same run as `newreno`.
    let dctcp = run(&overshoot("dctcp", json!({})));
    assert_eq!(numbers(&dctcp), numbers(&run(&overshoot("newreno", json!({})))));
    let v = overshoot("dctcp", json!({"ecn": false}));
    let e = Simulation::new(&spec(&v)).err().expect("ecn = false with dctcp is an error");
    assert!(e.starts_with("stack.ecn: false, but flows[0].cc \"dctcp\" works only with ECN"), "{e}");
}
