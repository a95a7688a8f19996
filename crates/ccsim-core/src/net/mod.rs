//! The network: packets, links (queue discipline + transmitter + propagation pipe), queue
//! disciplines, loss and reordering models, links that change (rate, delay and loss schedules,
//! traces, Wi-Fi-like aggregation), routes, and the [`fabric::Fabric`] that carries packets between endpoints and
//! records what it drops.

pub mod aggregation;
pub mod capture;
pub mod changing;
pub mod drops;
pub mod fabric;
pub mod link;
pub mod loss;
pub mod packet;
pub mod qdisc;
pub mod reorder;
pub mod ring;
pub mod routing;
pub mod schedule;
pub mod trace_link;

/// Where a flow's packets enter and leave the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoints {
    pub src: link::NodeId,
    pub dst: link::NodeId,
}
