//! Everything a packet touches between endpoints: links, routes, the event queue and the drop
//! log. Endpoints hand packets to [`Fabric::send`]; [`Fabric::link_arrival`] moves a packet across
//! one link and returns it once it reaches the end of its route.
//!
//! **Passing on.** Some links are fed by one link only: every route through a router's link to a
//! host, say, comes from the same link into that router. Such a link sees its packets in the
//! feeding link's order, and a packet's arrival time at it is known as soon as the feeding link
//! admits it (FIFO queue, constant rate; its loss is drawn then too). So the packet is admitted
//! to the next link at once, with that arrival time: the same arithmetic, one event and one pipe
//! entry fewer. Results are identical, because simultaneous events run in an order fixed by what
//! they are, not by when they were scheduled ([`crate::event`]); `tests/pass_on.rs` runs
//! scenarios both ways. Not done into a link with jitter, a dequeue discipline, capture or (when
//! series are sampled) a sampled queue, out of a captured link, nor for a packet that would
//! arrive after the end of the run.

use super::capture::Capture;
use super::drops::{DropKind, DropLog, FlowDrops};
use crate::event::{Event, EventQueue};
use crate::net::link::{Link, LinkId, Offer};
use crate::net::packet::{Packet, PacketKind, SackStore};
use crate::net::qdisc::Verdict;
use crate::units::Time;

/// Marks the end of a route in [`Fabric::route_links`].
const END: LinkId = LinkId::MAX;

pub struct Fabric {
    pub links: Vec<Link>,
    /// The links of every route, each route followed by [`END`]; a route's id is the offset of
    /// its first link. A packet finds its next link, and whether it has one, in the same place.
    route_links: Vec<LinkId>,
    /// For each entry of `route_links`: packets leaving that link on that route may be passed
    /// on into the route's next link (see [`Fabric::prepare_passing_on`]). Empty until then.
    passes_on: Vec<bool>,
    /// Packets are passed on only if they reach the next link by this time (the end of the run).
    pass_on_until: Time,
    pub events: EventQueue,
    pub flow_drops: Vec<FlowDrops>,
    pub drop_log: Option<DropLog>,
    /// SACK blocks of the ACKs in flight.
    pub sacks: SackStore,
    /// Packets that crossed a link (one per link crossed).
    pub hops: u64,
    /// Packets captured for pcap export, when the scenario asks for any.
    pub capture: Option<Box<Capture>>,
    scratch: Vec<(Time, Packet, Verdict)>,
}

impl Fabric {
    pub fn new(links: Vec<Link>, log_drops: bool) -> Self {
        Fabric {
            links,
            route_links: Vec::new(),
            passes_on: Vec::new(),
            pass_on_until: 0,
            events: EventQueue::default(),
            flow_drops: Vec::new(),
            drop_log: log_drops.then(DropLog::default),
            sacks: SackStore::default(),
            hops: 0,
            capture: None,
            scratch: Vec::new(),
        }
    }

    /// Add a route (before [`Self::prepare_passing_on`]); returns its id.
    pub fn add_route(&mut self, links: &[LinkId]) -> u32 {
        assert!(!links.is_empty() && links.len() < u16::MAX as usize && !links.contains(&END));
        assert!(self.passes_on.is_empty(), "a route added after passing on was prepared");
        let id = u32::try_from(self.route_links.len()).expect("fewer than 2^32 route links");
        self.route_links.extend_from_slice(links);
        self.route_links.push(END);
        id
    }

    /// Allow passing on (module docs) for packets that reach the next link by `until`, once every
    /// route has been added and every link set up. `sampled`: the run samples the queues of
    /// links marked `monitor`, which must then see their packets arrive in time.
    pub fn prepare_passing_on(&mut self, until: Time, sampled: bool) {
        #[derive(Clone, Copy, PartialEq)]
        enum Feed {
            Unused,
            Link(LinkId),
            Several,
        }
        let mut feed = vec![Feed::Unused; self.links.len()];
        for route in self.route_links.split(|&l| l == END).filter(|r| !r.is_empty()) {
            // The first link is fed by a host, each later one by the link before it.
            feed[route[0] as usize] = Feed::Several;
            for pair in route.windows(2) {
                let f = &mut feed[pair[1] as usize];
                *f = match *f {
                    Feed::Unused => Feed::Link(pair[0]),
                    Feed::Link(l) if l == pair[0] => Feed::Link(l),
                    _ => Feed::Several,
                };
            }
        }
        // The link every packet of a link comes from, when they may be passed on into it.
        let sole_feeder: Vec<Option<LinkId>> = feed
            .iter()
            .zip(&self.links)
            .map(|(f, l)| match f {
                Feed::Link(from) if !(l.is_special() || sampled && l.monitor) => Some(*from),
                _ => None,
            })
            .collect();
        // Decided once per route position rather than per packet: the next link on the route is
        // fed by this one alone.
        self.passes_on = vec![false; self.route_links.len()];
        for (i, pair) in self.route_links.windows(2).enumerate() {
            let (link, next) = (pair[0], pair[1]);
            if link != END && next != END {
                self.passes_on[i] = sole_feeder[next as usize] == Some(link) && self.links[link as usize].may_pass_on();
            }
        }
        self.pass_on_until = until;
    }

    /// Mark a link for capture of the packets entering and/or leaving it (marks add up). Once
    /// passing on is prepared (a transfer that starts during the run), packets are no longer
    /// passed on into or out of the link where capture needs them to go through its pipe.
    pub fn watch_link(&mut self, link: LinkId, entry: bool, exit: bool) {
        self.links[link as usize].watch(entry, exit);
        for i in 0..self.passes_on.len() {
            let next_is_link = self.route_links.get(i + 1) == Some(&link);
            if exit && self.route_links[i] == link || entry && next_is_link {
                self.passes_on[i] = false;
            }
        }
    }

    /// Never pass packets on (every packet through every pipe; the same results).
    pub fn disable_passing_on(&mut self) {
        self.pass_on_until = 0;
    }

    pub fn route(&self, id: u32) -> &[LinkId] {
        let links = &self.route_links[id as usize..];
        &links[..links.iter().position(|&l| l == END).expect("every route ends")]
    }

    /// Put a packet on the first link of its route.
    #[inline]
    pub fn send(&mut self, pkt: Packet, now: Time) {
        self.enter_route_link(&pkt, 0, now);
    }

    /// The packet reaches link number `hop` of its route. A loop rather than a recursion for
    /// packets passed on: one call per packet.
    #[inline(always)]
    fn enter_route_link(&mut self, pkt: &Packet, mut hop: u16, mut now: Time) {
        let mut ecn = pkt.ecn;
        let off = pkt.route as usize;
        loop {
            let link = self.route_links[off + hop as usize];
            let l = &mut self.links[link as usize];
            if l.is_special() {
                return self.enter_special(link, Packet { hop, ecn, ..*pkt }, now);
            }
            l.counters.arrivals += 1;
            let exit = match l.queue(pkt.size, ecn, now) {
                Ok((exit, marked)) => {
                    ecn = marked;
                    exit
                }
                Err(verdict) => return self.settle(link, &Packet { ecn, ..*pkt }, Offer::Dropped(verdict), now),
            };
            let lost = l.draws_loss();
            if !lost && exit <= self.pass_on_until && self.passes_on.get(off + hop as usize) == Some(&true) {
                l.pass_on();
                self.hops += 1;
                (hop, now) = (hop + 1, exit);
                continue;
            }
            // The packet is written once, into the pipe (see `Link::enter_pipe`); `settle` reads
            // it only for a drop, which this is not.
            let offer = self.links[link as usize].enter_pipe(pkt, hop, ecn, exit, lost);
            return self.settle(link, pkt, offer, now);
        }
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

    /// The drop log in (time, link, kind) order. Drops are recorded out of time order: a
    /// dequeue discipline records its drops when its link is next touched, and a packet passed
    /// on may be dropped at the next link before drops elsewhere at earlier times.
    pub fn take_drop_log(&mut self) -> Option<DropLog> {
        let mut log = self.drop_log.take()?;
        log.sort_by_time();
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
        let lost = l.head_is_lost();
        let pkt = l.pop_arrival();
        if let Some(t) = l.head_time() {
            self.events.push(t, Event::LinkArrival(link));
        }
        self.hops += 1;
        if lost {
            l.counters.loss_drops += 1;
            self.record_drop(link, &pkt, now, DropKind::Loss);
            return None;
        }
        let hop = pkt.hop + 1;
        if self.route_links[pkt.route as usize + hop as usize] != END {
            self.enter_route_link(&pkt, hop, now);
            None
        } else {
            if self.links[link as usize].captures_exit() {
                self.capture_exit(&pkt, now);
            }
            Some(pkt)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::loss::LossModel;
    use crate::net::qdisc::{droptail::DropTail, Qdisc};

    const MS: Time = 1_000_000;

    /// Host 0 -> router 1 -> host 2: the second link is fed by the first alone.
    fn two_hops() -> Fabric {
        let link = |src, dst| {
            let q = Qdisc::DropTail(DropTail { limit_pkts: Some(100), limit_bytes: None });
            Link::new(src, dst, 8_000_000, 10 * MS, q, LossModel::None)
        };
        let mut fab = Fabric::new(vec![link(0, 1), link(1, 2)], false);
        fab.add_route(&[0, 1]);
        fab.flow_drops.push(FlowDrops::default());
        fab.prepare_passing_on(Time::MAX, false);
        fab
    }

    fn in_link(fab: &Fabric, link: LinkId) -> usize {
        fab.links[link as usize].in_link().count()
    }

    #[test]
    fn a_packet_is_passed_on_until_its_link_is_captured_as_packets_leave() {
        let mut fab = two_hops();
        fab.send(Packet::test_data(0, 1000), 0);
        assert_eq!((in_link(&fab, 0), in_link(&fab, 1)), (0, 1), "passed on into the second link");
        assert_eq!(fab.hops, 1);
        // A transfer that starts during the run is captured: its packets must leave through the
        // first link's pipe, to be recorded as they leave it.
        fab.watch_link(0, false, true);
        fab.send(Packet::test_data(1, 1000), MS);
        assert_eq!((in_link(&fab, 0), in_link(&fab, 1)), (1, 1), "kept in the captured link's pipe");
        assert_eq!(fab.hops, 1);
    }

    #[test]
    fn capture_of_packets_entering_a_link_stops_passing_on_into_it() {
        let mut fab = two_hops();
        fab.watch_link(1, true, false);
        fab.send(Packet::test_data(0, 1000), 0);
        assert_eq!((in_link(&fab, 0), in_link(&fab, 1)), (1, 0));
    }
}
