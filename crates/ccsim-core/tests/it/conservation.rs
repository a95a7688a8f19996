//! Packet conservation: sent = delivered + dropped + in flight, per flow and per link, and every
//! SACK block stored for an ACK is held until that ACK arrives or is dropped. Every run made
//! through `scenarios::run` is checked.

use ccsim_core::Simulation;

pub fn assert_conserved(sim: &Simulation) {
    for (i, c) in sim.flow_conservation().iter().enumerate() {
        assert_eq!(c.sent, c.delivered + c.dropped + c.in_network, "flow {i}: {c:?}");
    }
    for (i, c) in sim.link_conservation().iter().enumerate() {
        assert_eq!(c.arrivals, c.departures + c.queue_drops + c.inside, "link {i}: {c:?}");
    }
    let (held, carried) = sim.sack_blocks_held();
    assert_eq!(held, carried, "SACK blocks held by the store vs carried by ACKs in links");
}
