//! Everything a packet touches between endpoints: links, routes, the event queue and the drop
//! log. Endpoints hand packets to [`Fabric::send`]; [`Fabric::link_arrival`] moves a packet across
//! one link and returns it once it reaches the end of its route.

use super::capture::Capture;
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
    /// Packets captured for pcap export, when the scenario asks for any.
    pub capture: Option<Box<Capture>>,
    /// Some drop was recorded after later drops on other links (dequeue disciplines).
    dropped_late: bool,
    scratch: Vec<(Time, Packet, Verdict)>,
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
            capture: None,
            dropped_late: false,
            scratch: Vec::new(),
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
        self.enter_route_link(pkt, off, hop, now);
    }

    /// The packet reaches link number `hop` of its route, whose links start at `off` in
    /// `route_links`.
    #[inline(always)]
    fn enter_route_link(&mut self, pkt: &Packet, off: u32, hop: u16, now: Time) {
        let link = self.route_links[off as usize + hop as usize];
        let l = &mut self.links[link as usize];
        if l.is_special() {
            return self.enter_special(link, Packet { hop, ..*pkt }, now);
        }
        let offer = l.offer(pkt, hop, now);
        self.settle(link, pkt, offer, now);
    }

    /// A captured link (the packet is recorded as it enters), a link with router jitter (the
    /// packet waits in the processing stage first) or with a discipline that decides at dequeue.
    /// Kept out of line so that the common path stays small enough to inline.
    #[cold]
    #[inline(never)]
    fn enter_special(&mut self, link: LinkId, pkt: Packet, now: Time) {
        if self.links[link as usize].captures_entry() {
            if let Some(c) = &mut self.capture {
                c.on_entry(link, &pkt, now, &self.sacks);
            }
        }
        let l = &mut self.links[link as usize];
        if l.has_jitter() {
            if let Some(t) = l.hold(pkt, now) {
                self.events.push(t, Event::LinkIngress(link));
            }
            return;
        }
        if l.decides_at_dequeue() {
            l.counters.arrivals += 1;
            return self.enqueue(link, pkt, now);
        }
        let offer = l.offer(&pkt, pkt.hop, now);
        self.settle(link, &pkt, offer, now);
    }

    /// A packet leaves the last link of its route at a captured link.
    #[cold]
    #[inline(never)]
    fn capture_exit(&mut self, pkt: &Packet, now: Time) {
        if let Some(c) = &mut self.capture {
            c.on_exit(pkt, now, &self.sacks);
        }
    }

    /// Queue a packet (already counted as an arrival) in a dequeue discipline.
    fn enqueue(&mut self, link: LinkId, pkt: Packet, now: Time) {
        if let Some(t) = self.links[link as usize].enqueue(pkt, now) {
            self.events.push(t, Event::LinkArrival(link));
        }
        self.record_queue_drops(link);
    }

    /// Record the drops a dequeue discipline made (at their own times).
    fn record_queue_drops(&mut self, link: LinkId) {
        let mut drops = std::mem::take(&mut self.scratch);
        drops.extend(self.links[link as usize].take_drops());
        self.dropped_late |= !drops.is_empty();
        for (at, pkt, v) in drops.drain(..) {
            let kind = if v == Verdict::DropEarly { DropKind::Early } else { DropKind::Overflow };
            self.record_drop(link, &pkt, at, kind);
        }
        self.scratch = drops;
    }

    /// Run a dequeue discipline's transmitter up to `now` (before the link is sampled, and at the
    /// end of a run).
    pub fn serve(&mut self, link: LinkId, now: Time) {
        if self.links[link as usize].decides_at_dequeue() {
            self.links[link as usize].serve(now);
            self.record_queue_drops(link);
        }
    }

    /// The drop log in time order. Dequeue disciplines record drops when their link is next
    /// touched, after drops elsewhere at later times: those runs sort the log by (time, link),
    /// which keeps each link's own order.
    pub fn take_drop_log(&mut self) -> Option<DropLog> {
        let mut log = self.drop_log.take()?;
        if self.dropped_late {
            log.sort_by_time();
        }
        Some(log)
    }

    /// The packet at the head of `link`'s processing stage reaches the queue.
    pub fn link_ingress(&mut self, link: LinkId, now: Time) {
        let l = &mut self.links[link as usize];
        let (pkt, next) = l.release();
        if let Some(t) = next {
            self.events.push(t, Event::LinkIngress(link));
        }
        if l.decides_at_dequeue() {
            return self.enqueue(link, pkt, now);
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
        if self.links[link as usize].decides_at_dequeue() {
            // Transmissions completed by now hand their packets to the pipe first.
            self.serve(link, now);
        }
        let l = &mut self.links[link as usize];
        let pkt = l.pop_arrival();
        if let Some(t) = l.head_time() {
            self.events.push(t, Event::LinkArrival(link));
        }
        self.hops += 1;
        if l.loses_packet() {
            l.counters.loss_drops += 1;
            self.record_drop(link, &pkt, now, DropKind::Loss);
            return None;
        }
        let hop = pkt.hop + 1;
        let (off, len) = self.routes[pkt.route as usize];
        if hop < len {
            self.enter_route_link(&pkt, off, hop, now);
            None
        } else {
            if self.links[link as usize].captures_exit() {
                self.capture_exit(&pkt, now);
            }
            Some(pkt)
        }
    }
}
