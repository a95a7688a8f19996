//! The network: packets, links (queue + pipe), queue disciplines, loss models, routing and the
//! built-in topologies.

pub mod link;
pub mod loss;
pub mod packet;
pub mod qdisc;
pub mod ring;
pub mod routing;
pub mod topology;
