//! Packet capture: which links and flows are watched, and a compact record of every packet seen
//! at a capture point. The records become pcap bytes at the end of a run (`crate::pcap`).
//!
//! A capture point is a set of links (packets entering them) or a flow (its forward packets
//! entering the first link of their route, its ACKs leaving the last link of theirs: what the
//! sender's host sends and receives). Links with something to capture are marked, and only
//! marked links leave the fabric's fast path, so runs without capture pay nothing per packet.

use std::collections::BTreeMap;

use super::link::LinkId;
use super::packet::{Packet, SackBlocks, SackStore};
use crate::grow::{self, OutOfMemory};
use crate::units::Time;

/// One captured packet: 56 bytes, the packet as it was plus where and when it was seen.
#[derive(Clone, Copy, Debug)]
pub struct Record {
    pub t: Time,
    pub pkt: Packet,
    /// The capture point (an index into the points given to [`Capture::new`]).
    pub point: u32,
    /// Index of its SACK blocks in [`Capture::sacks`]; [`Record::NO_SACK`] for none. (The
    /// packet's own reference into the network's store is reused once the ACK arrives.)
    pub sack: u32,
}

impl Record {
    pub const NO_SACK: u32 = u32::MAX;
}

const NO_POINT: u32 = u32::MAX;

#[derive(Debug, Default)]
pub struct Capture {
    /// The link capture point of each link id, or `NO_POINT`.
    link_point: Vec<u32>,
    /// The capture point of each captured flow id.
    flow_point: BTreeMap<u32, u32>,
    pub records: Vec<Record>,
    pub sacks: Vec<SackBlocks>,
    /// The records could not grow (and when): nothing is recorded from then on.
    pub failed: Option<(OutOfMemory, Time)>,
}

impl Capture {
    /// `links[i]`: the point of link id i, if it is captured; `flows`: (flow id, point) pairs.
    pub fn new(links: Vec<Option<u32>>, flows: impl IntoIterator<Item = (u32, u32)>) -> Self {
        Capture {
            link_point: links.into_iter().map(|p| p.unwrap_or(NO_POINT)).collect(),
            flow_point: flows.into_iter().collect(),
            records: Vec::new(),
            sacks: Vec::new(),
            failed: None,
        }
    }

    /// Whether the flow's packets are captured at its sender's host.
    pub fn watches_flow(&self, flow: u32) -> bool {
        self.flow_point.contains_key(&flow)
    }

    /// A packet enters `link` (`pkt.hop` is the link's index on its route), before its queue
    /// decides on it.
    pub fn on_entry(&mut self, link: LinkId, pkt: &Packet, now: Time, sacks: &SackStore) {
        let point = self.link_point.get(link as usize).copied().unwrap_or(NO_POINT);
        if point != NO_POINT {
            self.record(point, pkt, now, sacks);
        }
        if pkt.hop == 0 && pkt.kind.is_forward() {
            if let Some(&point) = self.flow_point.get(&pkt.flow) {
                self.record(point, pkt, now, sacks);
            }
        }
    }

    /// A packet leaves the last link of its route: an ACK reaches its sender's host.
    pub fn on_exit(&mut self, pkt: &Packet, now: Time, sacks: &SackStore) {
        if !pkt.kind.is_forward() {
            if let Some(&point) = self.flow_point.get(&pkt.flow) {
                self.record(point, pkt, now, sacks);
            }
        }
    }

    fn record(&mut self, point: u32, pkt: &Packet, now: Time, sacks: &SackStore) {
        if self.failed.is_some() {
            return;
        }
        if let Err(e) = self.try_record(point, pkt, now, sacks) {
            self.failed = Some((e, now));
        }
    }

    fn try_record(&mut self, point: u32, pkt: &Packet, now: Time, sacks: &SackStore) -> Result<(), OutOfMemory> {
        const WHAT: &str = "the packet capture";
        grow::reserve(&mut self.records, 1, WHAT)?;
        let mut sack = Record::NO_SACK;
        if pkt.sack.is_some() {
            sack = self.sacks.len() as u32;
            grow::push(&mut self.sacks, sacks.get(pkt.sack), WHAT)?;
        }
        self.records.push(Record { t: now, pkt: *pkt, point, sack });
        Ok(())
    }

    /// The SACK blocks of a record (none for most).
    pub fn sack_of(&self, r: &Record) -> SackBlocks {
        if r.sack == Record::NO_SACK {
            SackBlocks::default()
        } else {
            self.sacks[r.sack as usize]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;

    #[test]
    fn a_record_stays_small() {
        assert_eq!(std::mem::size_of::<Record>(), 56);
    }

    #[test]
    fn links_see_every_packet_and_flows_their_own_at_the_host() {
        let mut c = Capture::new(vec![None, Some(0)], [(7, 1)]);
        let store = SackStore::default();
        let data = Packet { flow: 7, ..Packet::test_data(3, 1040) };
        c.on_entry(0, &data, 10, &store);
        c.on_entry(1, &Packet { hop: 1, ..data }, 20, &store);
        c.on_entry(1, &Packet { flow: 8, ..data }, 30, &store);
        let ack = Packet { kind: PacketKind::Ack, ..data };
        c.on_entry(0, &ack, 40, &store);
        c.on_exit(&ack, 50, &store);
        c.on_exit(&Packet { flow: 8, ..ack }, 60, &store);
        let seen: Vec<(Time, u32)> = c.records.iter().map(|r| (r.t, r.point)).collect();
        assert_eq!(seen, vec![(10, 1), (20, 0), (30, 0), (50, 1)]);
    }
}
