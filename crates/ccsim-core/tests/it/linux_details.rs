//! Linux-exact algorithm details seen in whole runs (the hand-computed traces are unit tests in
//! each algorithm's file).

use serde_json::json;

use crate::scenarios::*;

/// One CUBIC flow alone on 10 Mbps, 40 ms RTT, 1000 packets of buffer, 3 s: plain slow start
/// fills the buffer and loses packets; HyStart leaves slow start near the path's capacity and
/// loses none in that time. Under the `linux` profile HyStart is on unless the scenario turns it
/// off; under `ns2` it is off unless the scenario turns it on.
fn cubic_drops(profile: &str, hystart: Option<bool>) -> u64 {
    let mut f = flow("cubic", 40);
    if let Some(h) = hystart {
        f["cc_params"] = json!({ "hystart": if h { 1.0 } else { 0.0 } });
    }
    let mut v = dumbbell(10_000_000, 10, droptail(1000), vec![f], 3.0);
    set(&mut v, "stack.profile", json!(profile));
    let r = run(&v);
    r.links.u64("drops")[0]
}

#[test]
fn cubic_hystart_follows_the_profile_unless_set() {
    let linux_default = cubic_drops("linux", None);
    let linux_off = cubic_drops("linux", Some(false));
    let ns2_default = cubic_drops("ns2", None);
    let ns2_on = cubic_drops("ns2", Some(true));
    eprintln!("drops: linux {linux_default}, linux hystart=0 {linux_off}, ns2 {ns2_default}, ns2 hystart=1 {ns2_on}");
    assert_eq!(linux_default, 0);
    assert_eq!(ns2_on, 0);
    assert!(linux_off > 0 && ns2_default > 0);
}
