//! Everything a packet touches between endpoints: links, routes, the event queue and the drop
//! log. Endpoints hand packets to [`Fabric::send`]; [`Fabric::link_arrival`] moves a packet across
//! one link and returns it once it reaches the end of its route.

use super::drops::{DropKind, DropLog, FlowDrops};
use crate::event::{Event, EventQueue};
use crate::net::link::{Link, LinkId, Offer};
use crate::net::packet::{Packet, PacketKind, SackStore};
use crate::net::qdisc::Verdict;
use crate::units::Time;

pub struct Fabric {
    pub links: Vec<Link>,
    /// Routes as (offset, length) into `route_links`.
    routes: Vec<(u32, u16)>,
    route_links: Vec<LinkId>,
    pub events: EventQueue,
    pub flow_drops: Vec<FlowDrops>,
    pub drop_log: Option<DropLog>,
    /// SACK blocks of the ACKs in flight.
    pub sacks: SackStore,
    /// Packets that crossed a link (one per link crossed).
    pub hops: u64,
}

impl Fabric {
    pub fn new(links: Vec<Link>, log_drops: bool) -> Self {
        Fabric {
            links,
            routes: Vec::new(),
            route_links: Vec::new(),
            events: EventQueue::default(),
            flow_drops: Vec::new(),
            drop_log: log_drops.then(DropLog::default),
            sacks: SackStore::default(),
            hops: 0,
        }
    }

    pub fn add_route(&mut self, links: &[LinkId]) -> u32 {
        assert!(!links.is_empty() && links.len() < u16::MAX as usize);
        self.routes.push((self.route_links.len() as u32, links.len() as u16));
        self.route_links.extend_from_slice(links);
        (self.routes.len() - 1) as u32
    }

    pub fn route(&self, id: u32) -> &[LinkId] {
        let (off, len) = self.routes[id as usize];
        &self.route_links[off as usize..off as usize + len as usize]
    }

    /// Put a packet on the first link of its route.
    #[inline]
    pub fn send(&mut self, pkt: Packet, now: Time) {
        self.enter_link(&pkt, 0, now);
    }

    /// The packet reaches link number `hop` of its route.
    #[inline]
    fn enter_link(&mut self, pkt: &Packet, hop: u16, now: Time) {
        let (off, _) = self.routes[pkt.route as usize];
        let link = self.route_links[off as usize + hop as usize];
        let l = &mut self.links[link as usize];
        if l.has_jitter() {
            return self.hold_at_router(link, Packet { hop, ..*pkt }, now);
        }
        let offer = l.offer(pkt, hop, now);
        self.settle(link, pkt, offer, now);
    }

    /// A link with router jitter: the packet waits in the processing stage first. Kept out of
    /// line so that the common path stays small enough to inline.
    #[cold]
    #[inline(never)]
    fn hold_at_router(&mut self, link: LinkId, pkt: Packet, now: Time) {
        if let Some(t) = self.links[link as usize].hold(pkt, now) {
            self.events.push(t, Event::LinkIngress(link));
        }
    }

    /// The packet at the head of `link`'s processing stage reaches the queue.
    pub fn link_ingress(&mut self, link: LinkId, now: Time) {
        let l = &mut self.links[link as usize];
        let (pkt, next) = l.release();
        if let Some(t) = next {
            self.events.push(t, Event::LinkIngress(link));
        }
        let offer = l.admit(&pkt, pkt.hop, now);
        self.settle(link, &pkt, offer, now);
    }

    #[inline(always)]
    fn settle(&mut self, link: LinkId, pkt: &Packet, offer: Offer, now: Time) {
        match offer {
            Offer::Accepted { schedule_at: Some(t) } => self.events.push(t, Event::LinkArrival(link)),
            Offer::Accepted { schedule_at: None } => {}
            Offer::Dropped(v) => {
                let kind = if v == Verdict::DropEarly { DropKind::Early } else { DropKind::Overflow };
                self.record_drop(link, pkt, now, kind);
            }
        }
    }

    fn record_drop(&mut self, link: LinkId, pkt: &Packet, now: Time, kind: DropKind) {
        self.sacks.release(pkt.sack);
        let d = &mut self.flow_drops[pkt.flow as usize];
        if pkt.kind == PacketKind::Data {
            d.data += 1;
        } else {
            d.control += 1;
        }
        if let Some(log) = &mut self.drop_log {
            log.push(now, link, pkt, kind);
        }
    }

    /// The packet at the head of `link`'s pipe arrives at the far end. It continues on its route
    /// (returns `None`), is lost (`None`), or has reached its destination (returned).
    #[inline]
    pub fn link_arrival(&mut self, link: LinkId, now: Time) -> Option<Packet> {
        let l = &mut self.links[link as usize];
        let pkt = l.pop_arrival();
        if let Some(t) = l.head_time() {
            self.events.push(t, Event::LinkArrival(link));
        }
        self.hops += 1;
        if l.loss.drops() {
            l.counters.loss_drops += 1;
            self.record_drop(link, &pkt, now, DropKind::Loss);
            return None;
        }
        let hop = pkt.hop + 1;
        let (_, len) = self.routes[pkt.route as usize];
        if hop < len {
            self.enter_link(&pkt, hop, now);
            None
        } else {
            Some(pkt)
        }
    }
}
