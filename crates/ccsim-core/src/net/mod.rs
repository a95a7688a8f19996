//! The network: packets, links (queue discipline + transmitter + propagation pipe), queue
//! disciplines, loss and reordering models, routes, and the [`fabric::Fabric`] that carries
//! packets between endpoints and records what it drops.

pub mod capture;
pub mod drops;
pub mod fabric;
pub mod link;
pub mod loss;
pub mod packet;
pub mod qdisc;
pub mod reorder;
pub mod ring;
pub mod routing;

/// Where a flow's packets enter and leave the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoints {
    pub src: link::NodeId,
    pub dst: link::NodeId,
}
