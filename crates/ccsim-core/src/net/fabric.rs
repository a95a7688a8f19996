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
//! series are sampled) a sampled queue, out of a captured or reordering link, nor for a packet
//! that would arrive after the end of the run.
//!
//! **Delivering ahead.** A packet admitted to the last link of its route, the link into its
//! receiver's host, is known then to reach the receiver at its exit time. A receiver's ACKs
//! depend only on the data reaching it and on its delayed-ACK timer, and go out through its
//! host's link towards the network. So when every receiver behind a link into a host sends
//! through links that nothing else feeds, the packet is handed to its receiver at once, with its
//! arrival time, and the receiver acts at that time: the ACKs it sends enter their host's link in
//! time order all the same, because the link into the host delivers in time order. Receivers
//! grouped behind one such link (a [delivering group](Fabric::prepare_delivering_ahead)) must run
//! their delayed-ACK timers in the same order: the engine runs the timers that come due before a
//! packet delivered ahead first. Results are identical; the packet spends no event at the end of
//! its route. Not done for a packet that would arrive after the end of the run, nor where the
//! link into the host or out of it is special, reorders or is sampled, nor where the host also
//! sends data or receives ACKs, nor where a packet could reach the link into the host straight
//! from its sender (passed on all the way).

use super::capture::Capture;
use super::drops::{DropKind, DropLog, FlowDrops};
use crate::event::{Event, EventQueue};
use crate::grow::OutOfMemory;
use crate::net::link::{Exit, Link, LinkId, Offer};
use crate::net::packet::{Packet, PacketKind, SackStore};
use crate::net::qdisc::Verdict;
use crate::units::Time;

/// Marks the end of a route in [`Fabric::route_links`].
const END: LinkId = LinkId::MAX;

/// The group of a packet not delivered ahead (see [`Delivery`]).
pub const NOT_AHEAD: u32 = u32::MAX;

/// What becomes of a packet admitted to the link at one position of a route, once its arrival
/// time at the far end is known (and it is not lost on the way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Onward {
    /// It goes through the link's pipe: an event when it reaches the far end.
    Pipe,
    /// It is passed on into the next link of its route at once (module docs).
    PassOn,
    /// It is delivered to its receiver at once (module docs).
    Deliver,
}

/// A packet that reached the end of its route.
#[derive(Clone, Copy, Debug)]
pub struct Delivery {
    pub pkt: Packet,
    /// When it arrives: now, or later for a packet delivered ahead.
    pub at: Time,
    /// For a packet delivered ahead, its receiver's delivering group (see
    /// [`Fabric::prepare_delivering_ahead`]); [`NOT_AHEAD`] otherwise.
    pub group: u32,
}

pub struct Fabric {
    pub links: Vec<Link>,
    /// The links of every route, each route followed by [`END`]; a route's id is the offset of
    /// its first link. A packet finds its next link, and whether it has one, in the same place.
    route_links: Vec<LinkId>,
    /// For each entry of `route_links`: what becomes of packets admitted to that link on that
    /// route (see [`Fabric::prepare_passing_on`] and [`Fabric::prepare_delivering_ahead`]).
    /// Empty until then.
    onward: Vec<Onward>,
    /// For each link into or out of the host of a delivering group, the group; else
    /// [`NOT_AHEAD`]. Empty until delivering ahead is prepared.
    delivering_group: Vec<u32>,
    /// Packets are passed on or delivered ahead only if they arrive by this time (the end of
    /// the run).
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
            onward: Vec::new(),
            delivering_group: Vec::new(),
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
        assert!(self.onward.is_empty(), "a route added after passing on was prepared");
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
        for (_, route) in self.routes() {
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
        self.onward = vec![Onward::Pipe; self.route_links.len()];
        for (i, pair) in self.route_links.windows(2).enumerate() {
            let (link, next) = (pair[0], pair[1]);
            if link != END
                && next != END
                && sole_feeder[next as usize] == Some(link)
                && self.links[link as usize].may_pass_on()
            {
                self.onward[i] = Onward::PassOn;
            }
        }
        self.pass_on_until = until;
    }

    /// The routes, as (id, links).
    fn routes(&self) -> impl Iterator<Item = (u32, &[LinkId])> + '_ {
        let mut start = 0;
        self.route_links.split(|&l| l == END).filter(|r| !r.is_empty()).map(move |r| {
            let id = start;
            start += r.len() as u32 + 1;
            (id, r)
        })
    }

    /// Allow delivering ahead (module docs), after [`Self::prepare_passing_on`], given every
    /// (data route, ACK route) pair that flows will use. Returns the number of delivering groups:
    /// each is a link into a host such that
    /// - the link ends every route through it, never starts one, and carries no ACKs;
    /// - every route into it reaches it from an event at an earlier link, not straight from its
    ///   sender (passed on all the way);
    /// - the ACK routes of the flows received through it start at links that no other route
    ///   uses, and that carry no data;
    /// - none of these links is special (jitter, a dequeue discipline, capture), reorders or is
    ///   sampled.
    ///
    /// Group ids are numbered from 0 in the order of the pairs.
    pub fn prepare_delivering_ahead(&mut self, pairs: &[(u32, u32)], sampled: bool) -> u32 {
        let n = self.links.len();
        self.delivering_group = vec![NOT_AHEAD; n];
        if self.onward.is_empty() {
            return 0;
        }
        // How routes use each link.
        #[derive(Clone, Copy, Default)]
        struct Use {
            first: bool,
            inner: bool,
            last: bool,
            starts_data: bool,
            ends_acks: bool,
        }
        let mut carries_data = vec![false; self.route_links.len()];
        let mut carries_acks = vec![false; self.route_links.len()];
        for &(data, ack) in pairs {
            carries_data[data as usize] = true;
            carries_acks[ack as usize] = true;
        }
        let mut uses = vec![Use::default(); n];
        for (id, route) in self.routes() {
            let k = route.len() - 1;
            for (i, &link) in route.iter().enumerate() {
                let u = &mut uses[link as usize];
                u.first |= i == 0;
                u.inner |= i > 0 && i < k;
                u.last |= i > 0 && i == k;
                u.starts_data |= i == 0 && carries_data[id as usize];
                u.ends_acks |= i == k && carries_acks[id as usize];
            }
        }
        let plain = |l: &Link| !(l.is_special() || sampled && l.monitor || !l.may_pass_on());
        // The link into the host of each flow's receiver, and out of it: candidates until one of
        // the conditions fails.
        const NO: LinkId = LinkId::MAX;
        let mut into_ok = vec![true; n];
        let mut out_of = vec![NO; n]; // for a link out of a host: the link into it
        let mut out_ok = vec![true; n];
        for &(data, ack) in pairs {
            let route = self.route(data);
            let into = *route.last().expect("routes are not empty");
            let out = self.route(ack)[0];
            let u = uses[into as usize];
            // Reached from an event at an earlier link on the route (not passed on from the first).
            let from_event = self.onward[data as usize..][..route.len() - 1].iter().any(|&o| o != Onward::PassOn);
            into_ok[into as usize] &=
                !u.first && !u.inner && !u.ends_acks && from_event && plain(&self.links[into as usize]);
            let v = uses[out as usize];
            out_ok[out as usize] &= !v.inner && !v.last && !v.starts_data && plain(&self.links[out as usize]);
            let owner = out_of[out as usize];
            if owner != NO && owner != into {
                // Receivers behind two links into a host send through one link out of it.
                into_ok[owner as usize] = false;
                into_ok[into as usize] = false;
            }
            out_of[out as usize] = into;
        }
        // A link into a host qualifies if every link out of the host it pairs with does.
        for (out, &into) in out_of.iter().enumerate() {
            if into != NO && !out_ok[out] {
                into_ok[into as usize] = false;
            }
        }
        let mut groups = 0;
        for &(data, _) in pairs {
            let into = *self.route(data).last().expect("routes are not empty");
            if into_ok[into as usize] && self.delivering_group[into as usize] == NOT_AHEAD {
                self.delivering_group[into as usize] = groups;
                groups += 1;
            }
        }
        for (out, &into) in out_of.iter().enumerate() {
            if into != NO && into_ok[into as usize] {
                self.delivering_group[out] = self.delivering_group[into as usize];
            }
        }
        for &(data, _) in pairs {
            let at = data as usize + self.route(data).len() - 1;
            if self.delivering_group[self.route_links[at] as usize] != NOT_AHEAD {
                self.onward[at] = Onward::Deliver;
            }
        }
        groups
    }

    /// Mark a link for capture of the packets entering and/or leaving it (marks add up). Once
    /// passing on is prepared (a transfer that starts during the run), packets are no longer
    /// passed on into or out of the link where capture needs them to go through its pipe.
    pub fn watch_link(&mut self, link: LinkId, entry: bool, exit: bool) {
        self.links[link as usize].watch(entry, exit);
        for i in 0..self.onward.len() {
            let next_is_link = self.route_links.get(i + 1) == Some(&link);
            if (exit && self.route_links[i] == link || entry && next_is_link) && self.onward[i] == Onward::PassOn {
                self.onward[i] = Onward::Pipe;
            }
        }
        // A flow's capture watches its sender's host links, which a delivering group never uses.
        debug_assert!(self.delivering_group.get(link as usize).is_none_or(|&g| g == NOT_AHEAD));
    }

    /// Never pass packets on (every packet through every pipe; the same results).
    pub fn disable_passing_on(&mut self) {
        self.pass_on_until = 0;
    }

    /// Never deliver packets ahead (every packet reaches its receiver through the last pipe of
    /// its route; the same results).
    pub fn disable_delivering_ahead(&mut self) {
        for onward in &mut self.onward {
            if *onward == Onward::Deliver {
                *onward = Onward::Pipe;
            }
        }
    }

    pub fn route(&self, id: u32) -> &[LinkId] {
        let links = &self.route_links[id as usize..];
        &links[..links.iter().position(|&l| l == END).expect("every route ends")]
    }

    /// Put a packet on the first link of its route.
    #[inline]
    pub fn send(&mut self, pkt: Packet, now: Time) {
        let delivered = self.enter_route_link(&pkt, 0, now);
        debug_assert!(delivered.is_none(), "delivered ahead straight from its sender");
    }

    /// The packet reaches link number `hop` of its route. A loop rather than a recursion for
    /// packets passed on: one call per packet. Returns the packet if it is delivered ahead.
    #[inline(always)]
    fn enter_route_link(&mut self, pkt: &Packet, mut hop: u16, mut now: Time) -> Option<Delivery> {
        let mut ecn = pkt.ecn;
        let off = pkt.route as usize;
        loop {
            let link = self.route_links[off + hop as usize];
            let l = &mut self.links[link as usize];
            if l.is_special() {
                self.enter_special(link, Packet { hop, ecn, ..*pkt }, now);
                return None;
            }
            l.counters.arrivals += 1;
            let exit = match l.queue(pkt.size, ecn, now) {
                Ok((exit, marked)) => {
                    ecn = marked;
                    exit
                }
                Err(verdict) => {
                    self.settle(link, &Packet { ecn, ..*pkt }, Offer::Dropped(verdict), now);
                    return None;
                }
            };
            let fate = l.draws_fate();
            if fate == 0 && exit <= self.pass_on_until {
                match self.onward.get(off + hop as usize) {
                    Some(Onward::PassOn) => {
                        l.pass_on();
                        self.hops += 1;
                        (hop, now) = (hop + 1, exit);
                        continue;
                    }
                    Some(Onward::Deliver) => {
                        l.pass_on();
                        self.hops += 1;
                        let group = self.delivering_group[link as usize];
                        return Some(Delivery { pkt: Packet { hop, ecn, ..*pkt }, at: exit, group });
                    }
                    _ => {}
                }
            }
            // The packet is written once, into the pipe (see `Link::enter_pipe`); `settle` reads
            // it only for a drop, which this is not.
            let offer = self.links[link as usize].enter_pipe(pkt, hop, ecn, exit, fate);
            self.settle(link, pkt, offer, now);
            return None;
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
    pub fn take_drop_log(&mut self) -> Result<Option<DropLog>, OutOfMemory> {
        let Some(mut log) = self.drop_log.take() else { return Ok(None) };
        log.sort_by_time()?;
        Ok(Some(log))
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
    /// (returns `None`, or the packet if it is delivered ahead on the way), is lost or held back
    /// (`None`), or has reached its destination (returned). On a reordering link the event may
    /// instead release a packet held back, which then goes on the same way.
    #[inline]
    pub fn link_arrival(&mut self, link: LinkId, now: Time) -> Option<Delivery> {
        if self.links[link as usize].decides_at_dequeue() {
            // Transmissions completed by now hand their packets to the pipe first.
            self.serve(link, now);
        }
        let l = &mut self.links[link as usize];
        if !l.head_leaves_at(now) {
            return self.special_exit(link, now);
        }
        let pkt = l.pop_arrival();
        if let Some(t) = l.head_time() {
            self.events.push(t, Event::LinkArrival(link));
        }
        self.hops += 1;
        self.leave_link(link, pkt, now)
    }

    /// A link event that is not the plain departure of the pipe's head (see [`Link::take_exit`]):
    /// a loss, a packet held back, or one released. Kept out of line, as losses are rare.
    #[cold]
    #[inline(never)]
    fn special_exit(&mut self, link: LinkId, now: Time) -> Option<Delivery> {
        match self.links[link as usize].take_exit(now) {
            Exit::Lost { pkt, next } => {
                self.schedule_exit(link, next);
                self.hops += 1;
                self.links[link as usize].counters.loss_drops += 1;
                self.record_drop(link, &pkt, now, DropKind::Loss);
                None
            }
            Exit::Held { next, hold_until } => {
                self.schedule_exit(link, next);
                self.schedule_exit(link, hold_until);
                None
            }
            Exit::Leaves { pkt, next } => {
                self.schedule_exit(link, next);
                self.hops += 1;
                self.leave_link(link, pkt, now)
            }
        }
    }

    fn schedule_exit(&mut self, link: LinkId, at: Option<Time>) {
        if let Some(t) = at {
            self.events.push(t, Event::LinkArrival(link));
        }
    }

    /// `pkt` has left `link` at `now`: on to the next link of its route, or delivered.
    #[inline(always)]
    fn leave_link(&mut self, link: LinkId, pkt: Packet, now: Time) -> Option<Delivery> {
        let hop = pkt.hop + 1;
        if self.route_links[pkt.route as usize + hop as usize] != END {
            self.enter_route_link(&pkt, hop, now)
        } else {
            if self.links[link as usize].captures_exit() {
                self.capture_exit(&pkt, now);
            }
            Some(Delivery { pkt, at: now, group: NOT_AHEAD })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::loss::LossModel;
    use crate::net::qdisc::{droptail::DropTail, Qdisc};
    use crate::net::reorder::Reorder;
    use crate::rng::{stream, uniform, Entity, Purpose};

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

    /// Hosts 0 and 1 send to host 2 through router 3: links 0 (0->3), 1 (1->3), 2 (3->2), and
    /// back 3 (2->3), 4 (3->0), 5 (3->1). Routes for the (data, ACK) pairs given, with link 2
    /// sampled if `sampled`; returns the pairs' route ids.
    fn star(pairs: &[(&[LinkId], &[LinkId])], sampled: bool) -> (Fabric, Vec<(u32, u32)>) {
        let ends = [(0, 3), (1, 3), (3, 2), (2, 3), (3, 0), (3, 1)];
        let links = ends
            .iter()
            .map(|&(src, dst)| {
                let q = Qdisc::DropTail(DropTail { limit_pkts: Some(100), limit_bytes: None });
                Link::new(src, dst, 8_000_000, 10 * MS, q, LossModel::None)
            })
            .collect();
        let mut fab = Fabric::new(links, false);
        let ids = pairs.iter().map(|(data, ack)| (fab.add_route(data), fab.add_route(ack))).collect();
        fab.flow_drops.push(FlowDrops::default());
        fab.links[2].monitor = true;
        fab.prepare_passing_on(Time::MAX, sampled);
        (fab, ids)
    }

    /// Flows from hosts 0 and 1 to host 2.
    const INTO_2: [(&[LinkId], &[LinkId]); 2] = [(&[0, 2], &[3, 4]), (&[1, 2], &[3, 5])];

    #[test]
    fn receivers_behind_a_link_fed_by_several_are_delivered_to_ahead() {
        let (mut fab, pairs) = star(&INTO_2, false);
        assert_eq!(fab.prepare_delivering_ahead(&pairs, false), 1);
        // 1000 bytes at 8 Mb/s: 1 ms on the wire, then 10 ms of propagation, on each link.
        fab.send(Packet { route: pairs[1].0, ..Packet::test_data(0, 1000) }, 0);
        assert!(fab.events.pop().is_some_and(|(t, e)| t == 11 * MS && e == Event::LinkArrival(1)));
        let d = fab.link_arrival(1, 11 * MS).expect("delivered ahead at admission to link 2");
        assert_eq!((d.at, d.group, d.pkt.hop), (22 * MS, 0, 1));
        assert_eq!((fab.hops, in_link(&fab, 2)), (2, 0));
        assert!(fab.events.pop().is_none(), "no event at the receiver");
    }

    #[test]
    fn a_receiving_host_that_also_sends_or_is_sampled_is_no_delivering_group() {
        // Host 2 sends to host 0 too: data out through link 3, its ACKs in through link 2.
        let (mut fab, pairs) = star(&[INTO_2[0], INTO_2[1], (&[3, 4], &[0, 2])], false);
        assert_eq!(fab.prepare_delivering_ahead(&pairs, false), 0);
        let (mut fab, pairs) = star(&INTO_2, true);
        assert_eq!(fab.prepare_delivering_ahead(&pairs, true), 0, "link 2's queue is sampled");
    }

    #[test]
    fn a_receiver_reached_by_passing_on_from_its_sender_is_not_delivered_to_ahead() {
        // One sender: link 2 is fed by link 0 alone, so a packet goes from its sender's call
        // into link 2, where nothing may be delivered ahead (the sender's call is no place to
        // run a receiver).
        let (mut fab, pairs) = star(&INTO_2[..1], false);
        assert_eq!(fab.prepare_delivering_ahead(&pairs, false), 0);
        fab.send(Packet::test_data(0, 1000), 0);
        assert_eq!((in_link(&fab, 0), in_link(&fab, 2)), (0, 1), "passed on into link 2's pipe");
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

    /// One link from host 0 to host 1 (1000-byte packets: 1 ms on the wire, 10 ms of
    /// propagation) that holds packets back with probability `p` for `delay`, drawn from the
    /// stream of `seed`, and loses them with probability `loss` (on another stream).
    fn reordering(p: f64, delay: Time, seed: u64, loss: f64) -> Fabric {
        let q = Qdisc::DropTail(DropTail { limit_pkts: Some(1000), limit_bytes: None });
        let loss = if loss > 0.0 {
            LossModel::Bernoulli { p: loss, rng: stream(seed, Entity::Link, 0, Purpose::Loss) }
        } else {
            LossModel::None
        };
        let mut l = Link::new(0, 1, 8_000_000, 10 * MS, q, loss);
        l.set_reorder(Some(Reorder::new(p, delay, stream(seed, Entity::Link, 0, Purpose::Reorder))));
        let mut fab = Fabric::new(vec![l], false);
        fab.add_route(&[0]);
        fab.flow_drops.push(FlowDrops::default());
        fab.prepare_passing_on(Time::MAX, false);
        fab
    }

    /// Run the events to the end: each delivery as (seq, time). Checks at every event that the
    /// link accounts for every packet offered (left, dropped or inside).
    fn deliveries(fab: &mut Fabric) -> Vec<(u32, Time)> {
        let mut out = vec![];
        while let Some((t, e)) = fab.events.pop() {
            assert_eq!(e, Event::LinkArrival(0));
            if let Some(d) = fab.link_arrival(0, t) {
                assert_eq!(d.at, t);
                out.push((d.pkt.seq, t));
            }
            let c = &fab.links[0].counters;
            assert_eq!(c.arrivals, c.departures + c.queue_drops + in_link(fab, 0) as u64);
        }
        out
    }

    /// Packets offered 1 ms apart, so that each finds the link idle: packet `i` reaches the far
    /// end at (i + 11) ms.
    fn send_spaced(fab: &mut Fabric, n: u32) {
        for seq in 0..n {
            fab.send(Packet::test_data(seq, 1000), seq as Time * MS);
        }
    }

    #[test]
    fn with_probability_one_every_packet_is_late_by_exactly_the_delay_in_order() {
        let mut fab = reordering(1.0, 5 * MS, 1, 0.0);
        send_spaced(&mut fab, 20);
        let got = deliveries(&mut fab);
        let expected: Vec<(u32, Time)> = (0..20).map(|i| (i, (i as Time + 16) * MS)).collect();
        assert_eq!(got, expected);
        let l = &fab.links[0];
        assert_eq!((l.counters.departures, l.counters.loss_drops), (20, 0));
        assert_eq!((l.reorder().map(|r| r.count), fab.hops), (Some(20), 20), "each held once, one hop each");
    }

    #[test]
    fn a_held_packet_is_overtaken_by_those_behind_it_and_counted_while_held() {
        // 3 ms late: a held packet is overtaken by the three packets behind it when they are not
        // held; ties (a held packet due with the pipe's head) go pipe first.
        let (p, delay, n) = (0.3, 3 * MS, 400);
        let mut fab = reordering(p, delay, 7, 0.0);
        let mut draws = stream(7, Entity::Link, 0, Purpose::Reorder);
        let held: Vec<bool> = (0..n).map(|_| uniform(&mut draws) < p).collect();
        let mut expected: Vec<(Time, bool, u32)> = (0..n as u32)
            .map(|i| {
                let exit = (i as Time + 11) * MS;
                let h = held[i as usize];
                (if h { exit + delay } else { exit }, h, i)
            })
            .collect();
        expected.sort();
        send_spaced(&mut fab, n as u32);
        let got = deliveries(&mut fab);
        assert_eq!(got, expected.iter().map(|&(t, _, i)| (i, t)).collect::<Vec<_>>());
        let overtaken = got.windows(2).filter(|w| w[1].0 < w[0].0).count();
        let n_held = held.iter().filter(|&&h| h).count();
        assert!(n_held > 80 && overtaken > 80, "{n_held} held, {overtaken} out of order");
        assert_eq!(fab.links[0].reorder().map(|r| r.count), Some(n_held as u64));
        assert_eq!(fab.links[0].counters.departures, n as u64);
    }

    #[test]
    fn a_packet_held_back_is_inside_the_link_until_it_leaves() {
        let mut fab = reordering(1.0, 5 * MS, 1, 0.0);
        fab.send(Packet::test_data(0, 1000), 0);
        let (t, _) = fab.events.pop().unwrap();
        assert_eq!(t, 11 * MS);
        assert!(fab.link_arrival(0, t).is_none(), "held back at the far end");
        assert_eq!((in_link(&fab, 0), fab.links[0].counters.departures), (1, 0));
        let (t, _) = fab.events.pop().unwrap();
        assert_eq!(t, 16 * MS);
        assert_eq!(fab.link_arrival(0, t).map(|d| d.pkt.seq), Some(0));
        assert_eq!((in_link(&fab, 0), fab.links[0].counters.departures), (0, 1));
    }

    #[test]
    fn a_lost_packet_is_not_held_back_and_each_stream_draws_once_per_packet() {
        let (n, p, loss) = (300, 0.2, 0.1);
        let mut fab = reordering(p, 2 * MS, 3, loss);
        send_spaced(&mut fab, n);
        let got = deliveries(&mut fab);
        let mut lost_draws = stream(3, Entity::Link, 0, Purpose::Loss);
        let mut held_draws = stream(3, Entity::Link, 0, Purpose::Reorder);
        let fates: Vec<(bool, bool)> =
            (0..n).map(|_| (uniform(&mut lost_draws) < loss, uniform(&mut held_draws) < p)).collect();
        let lost: Vec<u32> = (0..n).filter(|&i| fates[i as usize].0).collect();
        let mut delivered: Vec<u32> = got.iter().map(|&(seq, _)| seq).collect();
        delivered.sort();
        assert_eq!(delivered, (0..n).filter(|i| !lost.contains(i)).collect::<Vec<_>>());
        let held_and_kept = fates.iter().filter(|&&(l, h)| h && !l).count() as u64;
        let l = &fab.links[0];
        assert_eq!((l.counters.loss_drops, l.reorder().map(|r| r.count)), (lost.len() as u64, Some(held_and_kept)));
        assert_eq!(fab.flow_drops[0].data, lost.len() as u64);
        assert_eq!(l.counters.departures, n as u64, "lost packets left the pipe too");
    }

    #[test]
    fn packets_are_never_passed_on_out_of_a_reordering_link() {
        let mut fab = two_hops();
        let l = &mut fab.links[0];
        l.set_reorder(Some(Reorder::new(0.5, MS, stream(1, Entity::Link, 0, Purpose::Reorder))));
        fab.prepare_passing_on(Time::MAX, false);
        fab.send(Packet::test_data(0, 1000), 0);
        assert_eq!((in_link(&fab, 0), in_link(&fab, 1)), (1, 0), "in the reordering link's pipe");
        // Into a reordering link, packets are passed on: they reach it in order.
        let mut fab = two_hops();
        let l = &mut fab.links[1];
        l.set_reorder(Some(Reorder::new(0.5, MS, stream(1, Entity::Link, 1, Purpose::Reorder))));
        fab.prepare_passing_on(Time::MAX, false);
        fab.send(Packet::test_data(0, 1000), 0);
        assert_eq!((in_link(&fab, 0), in_link(&fab, 1)), (0, 1));
    }

    #[test]
    fn a_reordering_link_into_a_host_delivers_nothing_ahead() {
        let (mut fab, pairs) = star(&INTO_2, false);
        fab.links[2].set_reorder(Some(Reorder::new(0.5, MS, stream(1, Entity::Link, 2, Purpose::Reorder))));
        fab.prepare_passing_on(Time::MAX, false);
        assert_eq!(fab.prepare_delivering_ahead(&pairs, false), 0);
    }

    #[test]
    fn capture_of_packets_entering_a_link_stops_passing_on_into_it() {
        let mut fab = two_hops();
        fab.watch_link(1, true, false);
        fab.send(Packet::test_data(0, 1000), 0);
        assert_eq!((in_link(&fab, 0), in_link(&fab, 1)), (1, 0));
    }
}
