//! A unidirectional link: a queue discipline, a transmitter, and a propagation pipe.
//!
//! Admission disciplines (DropTail, RED, step marking) use head-only scheduling: when a packet is
//! admitted its transmission start and its arrival at the far end are fixed at once (the queue is
//! FIFO and the rate constant), and it goes straight into the pipe. The pipe is ordered by
//! arrival time, so the link needs exactly one pending event, for the packet at its head. Packets
//! still waiting for the transmitter are tracked by their start times alone, which is all queue
//! length, RED and the statistics need.
//!
//! Dequeue disciplines (CoDel, FQ-CoDel, PIE) hold the waiting packets themselves. Each time the
//! transmitter frees, at `busy_until`, the discipline picks the next packet, which then enters
//! the pipe with its arrival time. These transmit completions need no events of their own: the
//! link runs them, each at its own time, whenever it is next touched ([`Link::serve`]: at an
//! arrival, at its pipe event, when sampled). That is exact, because a completion at time T
//! depends only on the packets that arrived by T (each arrival runs the completions due before
//! it first), and it is always in time: the packet sent at T leaves the pipe at T + tx + delay,
//! after the packet before it, whose pipe event (at T + delay) runs the completion at the latest.
//! So a link of either kind has at most one pending event: its pipe head.
//!
//! Random loss is drawn as a packet enters the pipe and applied when it leaves: packets enter
//! and leave in the same order, so each packet gets the draw it would get at the far end, and
//! a packet's fate is known at admission (which lets [`crate::net::fabric`] pass it on at once).
//!
//! Optional reordering ([`crate::net::reorder`]) is drawn the same way and marked on the pipe
//! entry too: a held packet, on reaching the far end, waits in the link's holding line for the
//! extra delay instead of leaving. The holding line keeps one pending event of its own, for its
//! head; both heads' events are `LinkArrival`s, told apart by which head is due (the pipe's first).
//!
//! Optional router jitter puts a processing stage in front of the queue: each packet reaches the
//! queue a uniform random time in [0, jitter] after it reached the router, never before the
//! packet ahead of it (the stage is FIFO too, so it needs one pending event of its own).
//!
//! Optional changes ([`crate::net::changing`]: a rate schedule or a trace, a delay or loss
//! schedule) take the special path: the transmission and arrival times they give are worked out
//! by [`Link::admit`] and [`Link::serve`] as the fixed ones are, so such a link keeps one pending
//! event too. Such a link is special: packets are not passed on into it or out of it, which
//! keeps every branch its changes need off the common path. Aggregation
//! ([`crate::net::aggregation`]) is one of these changes: a packet's burst, and so its arrival
//! time, is decided when it is queued, and a packet joining a burst moves the pipe entries of the
//! packets ahead of it in the burst to the burst's new end.

use std::collections::VecDeque;

use super::changing::Changes;
use super::loss::LossModel;
use super::packet::{Packet, HEADER_BYTES};
use super::qdisc::{DropSink, Qdisc, QueueView, Verdict};
use super::reorder::Reorder;
use super::ring::Ring;
use crate::rng::{uniform, Stream};
use crate::units::{tx_time, Dur, Time};

pub type LinkId = u32;
pub type NodeId = u32;

/// Set in a pipe entry's time: the packet is lost when it leaves the pipe.
const LOST: Time = 1 << 63;
/// Set in a pipe entry's time: the packet is held back when it leaves the pipe (reordering).
const HELD: Time = 1 << 62;
/// The marks a pipe entry's time may carry (times themselves stay below 2^54 ns).
const MARKS: Time = LOST | HELD;

/// [`LOST`] if `lost`, else nothing.
#[inline(always)]
fn lost_mark(lost: bool) -> Time {
    LOST * Time::from(lost)
}

/// What leaves a link at an event that is not the plain departure of its pipe's head
/// ([`Link::take_exit`]). `next` is the time of the next event for the line the packet came from
/// (the pipe's or the holding line's new head), to be scheduled.
pub enum Exit {
    /// The pipe's head, lost at the far end.
    Lost { pkt: Packet, next: Option<Time> },
    /// The pipe's head, held back: `hold_until` is set when it is the only packet held (its
    /// release is to be scheduled then). Also, with `next` the pipe's head and no `hold_until`:
    /// nothing leaves, the head's exit has moved later (its burst grew, on an aggregating link).
    Held { next: Option<Time>, hold_until: Option<Time> },
    /// A packet leaves: the pipe's head, or the first packet held back, released.
    Leaves { pkt: Packet, next: Option<Time> },
}

/// A link's totals. In this order (`repr(C)`): the packet counts share a cache line with the
/// link's discipline, the time sums take the next.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct LinkCounters {
    /// Packets offered to the link.
    pub arrivals: u64,
    /// Packets that left the far end of the pipe (including those then lost).
    pub departures: u64,
    pub queue_drops: u64,
    pub max_queue_pkts: u64,
    /// Sum over admitted packets of the time spent waiting, ns (for the mean queue length).
    pub wait_ns: u128,
    /// Sum of transmission times of admitted packets, ns (for utilization).
    pub busy_ns: u128,
    pub loss_drops: u64,
}

/// Outcome of offering a packet to a link.
pub enum Offer {
    Accepted {
        /// The pipe was empty: the caller schedules the head event at this time.
        schedule_at: Option<Time>,
    },
    Dropped(Verdict),
}

/// The fields are laid out by hand (`repr(C)`, from a cache-line boundary): what every packet
/// reads or writes comes first, in four cache lines (pipe and flags; transmission times and the
/// waiting queue; the discipline and the packet counters; the time sums), the rest follows. With
/// thousands of flows each host's access link is out of the cache by its next packet, and every
/// line its packets touch is a miss.
#[repr(C, align(64))]
pub struct Link {
    // Line 0.
    /// Packets in transmission or propagation, with their arrival time at the far end (and
    /// [`LOST`] set for a packet the loss model drops).
    pipe: Ring<(Time, Packet)>,
    /// When the transmitter finishes the last admitted packet.
    busy_until: Time,
    pub delay: Dur,
    data_size: u32,
    /// Entering packets leave the fast path: jitter, a dequeue discipline or capture.
    special: bool,
    /// The discipline decides at dequeue (a copy of the discipline's kind, read per packet).
    dequeue: bool,
    /// Packets leaving this link may be captured (`crate::net::capture`).
    capture_exit: bool,
    /// Each packet entering the pipe gets a draw: the loss model can drop packets or the link
    /// reorders them (read per packet).
    draws: bool,
    // Line 1.
    /// Transmission times of a pure ACK and of the last data packet size seen: most packets
    /// are one of the two, and this saves a 64-bit division per hop.
    ack_tx: Dur,
    data_tx: Dur,
    /// Transmission start times and sizes of packets still waiting.
    waiting: Ring<(Time, u32)>,
    waiting_bytes: u64,
    // Lines 2 and 3.
    qdisc: Qdisc,
    pub counters: LinkCounters,
    // The rest: read when the run is built or reported, or on rare paths.
    loss: LossModel,
    rate_bps: u64,
    pub src: NodeId,
    pub dst: NodeId,
    pub monitor: bool,
    /// Packets entering this link may be captured.
    capture_entry: bool,
    /// Router processing jitter (None: packets reach the queue on arrival). Boxed: most links
    /// have none.
    jitter: Option<Box<Jitter>>,
    /// Reordering (None: every packet leaves when it reaches the far end). Boxed likewise.
    reorder: Option<Box<Reorder>>,
    /// What changes during the run (None: a fixed rate, delay and loss probability). Boxed
    /// likewise.
    changes: Option<Box<Changes>>,
    /// Packets a dequeue discipline dropped, until the network records them.
    dropped: DropSink,
}

/// The processing stage in front of a link's queue.
struct Jitter {
    max: Dur,
    rng: Stream,
    /// Packets being processed, with the time each reaches the queue (non-decreasing).
    stage: VecDeque<(Time, Packet)>,
    last_release: Time,
}

impl Link {
    pub fn new(src: NodeId, dst: NodeId, rate_bps: u64, delay: Dur, qdisc: Qdisc, loss: LossModel) -> Self {
        Link {
            src,
            dst,
            rate_bps,
            delay,
            monitor: false,
            dequeue: qdisc.decides_at_dequeue(),
            qdisc,
            draws: false,
            loss: LossModel::None,
            busy_until: 0,
            ack_tx: tx_time(HEADER_BYTES, rate_bps),
            data_size: 0,
            data_tx: 0,
            waiting: Ring::default(),
            waiting_bytes: 0,
            pipe: Ring::default(),
            jitter: None,
            reorder: None,
            changes: None,
            dropped: Vec::new(),
            counters: LinkCounters::default(),
            capture_entry: false,
            capture_exit: false,
            special: false,
        }
        .with_loss(loss)
    }

    fn with_loss(mut self, loss: LossModel) -> Self {
        self.set_loss(loss);
        self.update_special();
        self
    }

    fn update_special(&mut self) {
        self.special = self.jitter.is_some() || self.dequeue || self.capture_entry || self.changes.is_some();
    }

    /// The link's rate, fixed when it is built (the transmission times below depend on it); for
    /// a link whose rate changes, its base rate (a trace's mean rate).
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// Give the link its changes (None: none), before the routes are prepared: packets are
    /// never passed on into or out of a changing link.
    pub fn set_changes(&mut self, changes: Option<Changes>) {
        self.changes = changes.map(Box::new);
        self.update_special();
    }

    /// The link's changes, if any.
    pub fn changes(&self) -> Option<&Changes> {
        self.changes.as_deref()
    }

    /// Give the router feeding this link a random processing delay, uniform in [0, max].
    pub fn set_jitter(&mut self, max: Dur, rng: Stream) {
        self.jitter = (max > 0).then(|| Box::new(Jitter { max, rng, stage: VecDeque::new(), last_release: 0 }));
        self.update_special();
    }

    /// Mark the link for capture of packets entering it and/or leaving it (marks add up).
    pub fn watch(&mut self, entry: bool, exit: bool) {
        self.capture_entry |= entry;
        self.capture_exit |= exit;
        self.update_special();
    }

    pub fn captures_entry(&self) -> bool {
        self.capture_entry
    }

    pub fn captures_exit(&self) -> bool {
        self.capture_exit
    }

    pub fn has_jitter(&self) -> bool {
        self.jitter.is_some()
    }

    /// Whether the discipline decides at dequeue (packets go through [`Self::enqueue`]).
    #[inline(always)]
    pub fn decides_at_dequeue(&self) -> bool {
        self.dequeue
    }

    /// The loss model's draw for the packet now entering the pipe: whether it is lost.
    #[inline(always)]
    pub fn draws_loss(&mut self) -> bool {
        !matches!(self.loss, LossModel::None) && self.loss.drops()
    }

    /// The draws for the packet now entering the pipe, as the marks of its pipe entry: 0 for a
    /// packet that simply leaves at the far end (always, on a link without loss or reordering).
    #[inline(always)]
    pub fn draws_fate(&mut self) -> Time {
        if self.draws {
            self.draw_fate()
        } else {
            0
        }
    }

    /// Both streams advance by one draw per packet, whatever the other one drew.
    #[inline]
    fn draw_fate(&mut self) -> Time {
        let lost = self.loss.drops();
        let held = self.reorder.as_mut().is_some_and(|r| r.holds());
        lost_mark(lost) | (HELD * Time::from(held))
    }

    /// Replace the loss model (from the next packet on).
    pub fn set_loss(&mut self, loss: LossModel) {
        self.loss = loss;
        self.update_draws();
    }

    /// Set the link's reordering (None: none) before the run, and before the routes are
    /// prepared: packets are never passed on out of a reordering link.
    pub fn set_reorder(&mut self, reorder: Option<Reorder>) {
        self.reorder = reorder.map(Box::new);
        self.update_draws();
    }

    fn update_draws(&mut self) {
        self.draws = !matches!(self.loss, LossModel::None) || self.reorder.is_some();
    }

    /// The link's reordering, if any.
    pub fn reorder(&self) -> Option<&Reorder> {
        self.reorder.as_deref()
    }

    /// Whether packets entering this link leave the fast path (router jitter, a discipline
    /// that decides at dequeue, or capture).
    #[inline(always)]
    pub fn is_special(&self) -> bool {
        self.special
    }

    /// A packet reached the router (a link with jitter only). Returns the time to schedule the
    /// stage's head event at, when the stage was empty.
    pub fn hold(&mut self, pkt: Packet, now: Time) -> Option<Time> {
        self.counters.arrivals += 1;
        let j = self.jitter.as_mut().expect("hold on a link without jitter");
        let delay = (uniform(&mut j.rng) * j.max as f64) as Dur;
        let at = (now + delay).max(j.last_release);
        j.last_release = at;
        j.stage.push_back((at, pkt));
        (j.stage.len() == 1).then_some(at)
    }

    /// The packet at the head of the processing stage, due now, and the next one's due time.
    pub fn release(&mut self) -> (Packet, Option<Time>) {
        let j = self.jitter.as_mut().expect("release on a link without jitter");
        let (_, pkt) = j.stage.pop_front().expect("ingress event with an empty stage");
        (pkt, j.stage.front().map(|&(t, _)| t))
    }

    /// Forget waiting entries whose transmission has started by `now`.
    #[inline]
    fn advance(&mut self, now: Time) {
        while let Some(&(start, size)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.waiting_bytes -= size as u64;
        }
    }

    /// Queue length (packets, bytes) at `now`, not counting the packet in transmission.
    pub fn queue_len(&mut self, now: Time) -> (usize, u64) {
        if self.dequeue {
            self.serve(now);
            return self.qdisc.held();
        }
        self.advance(now);
        (self.waiting.len(), self.waiting_bytes)
    }

    /// The discipline's own state for the `queues` series (see [`Qdisc::inspect`]).
    pub fn inspect_queue(&self, f: &mut dyn FnMut(&'static str, f64)) {
        self.qdisc.inspect(f);
    }

    /// Run the transmitter up to `now` (dequeue disciplines): each transmit completion due by
    /// then, at its own time, hands the discipline's next packet to the pipe.
    pub fn serve(&mut self, now: Time) {
        while self.busy_until <= now {
            let at = self.busy_until;
            let Some(pkt) = self.qdisc.dequeue(at, &mut self.dropped) else { break };
            // Waiting time is counted as packets leave the queue (the fast path counts it on
            // arrival, when it is already known).
            self.counters.wait_ns += self.qdisc.last_sojourn() as u128;
            self.transmit(pkt, at);
        }
        self.qdisc.advance(now);
    }

    /// Start transmitting `pkt` at `at` (dequeue disciplines).
    fn transmit(&mut self, pkt: Packet, at: Time) {
        if self.changes.is_some() {
            return self.transmit_changing(pkt, at);
        }
        let tx = self.tx_time(pkt.size);
        self.busy_until = at + tx;
        self.counters.busy_ns += tx as u128;
        let fate = self.draws_fate();
        self.pipe.push_back(((self.busy_until + self.delay) | fate, pkt));
    }

    /// [`Self::transmit`] on a changing link: the transmitter may wait for its rate or its trace
    /// after `at`, which then counts as the transmission's (the discipline has let the packet go).
    #[cold]
    fn transmit_changing(&mut self, pkt: Packet, at: Time) {
        let c = self.changes.as_mut().expect("a changing link");
        let tx = c.transmit(at, pkt.size);
        let exit = c.exit(tx.end, self.delay);
        self.busy_until = tx.end;
        self.counters.busy_ns += tx.busy as u128;
        let fate = self.changing_fate(tx.end);
        self.pipe.push_back((exit | fate, pkt));
    }

    /// The draws for a packet entering a changing link's pipe whose last bit leaves the
    /// transmitter at `end` (as [`Self::draws_fate`]; a scheduled loss probability is the one
    /// in effect at `end`).
    fn changing_fate(&mut self, end: Time) -> Time {
        let lost = match self.changes.as_mut().and_then(|c| c.lost(end)) {
            Some(lost) => lost,
            None => self.loss.drops(),
        };
        let held = self.reorder.as_mut().is_some_and(|r| r.holds());
        lost_mark(lost) | (HELD * Time::from(held))
    }

    /// Queue a packet (already counted as an arrival) in a dequeue discipline. Returns the time to
    /// schedule the link's pipe event at, when the pipe was empty. Drops (the arrival or others)
    /// wait in the link until [`Self::take_drops`].
    pub fn enqueue(&mut self, pkt: Packet, now: Time) -> Option<Time> {
        self.serve(now);
        let was_empty = self.pipe.is_empty();
        // Completions due by now have run: if the transmitter is free, it has been idle (nothing
        // was queued) and the next one is now.
        self.busy_until = self.busy_until.max(now);
        self.qdisc.enqueue(pkt, now, &mut self.dropped);
        let (held, _) = self.qdisc.held();
        self.counters.max_queue_pkts = self.counters.max_queue_pkts.max(held as u64);
        self.serve(now);
        (was_empty && !self.pipe.is_empty()).then(|| self.head_time().expect("not empty"))
    }

    /// Packets dropped by a dequeue discipline since the last call, each with its drop time.
    pub fn take_drops(&mut self) -> std::vec::Drain<'_, (Time, Packet, Verdict)> {
        self.counters.queue_drops += self.dropped.len() as u64;
        self.dropped.drain(..)
    }

    /// The discipline's average queue length, if it keeps one (RED).
    pub fn average_queue(&self) -> Option<f64> {
        self.qdisc.average()
    }

    /// Offer a packet arriving at the link's input at `now`; `hop` is this link's index on the
    /// packet's route, stored with the packet if it is admitted.
    #[inline]
    pub fn offer(&mut self, pkt: &Packet, hop: u16, now: Time) -> Offer {
        self.counters.arrivals += 1;
        self.admit(pkt, hop, now)
    }

    /// Queue a packet (already counted as an arrival) and put it in the pipe, or drop it.
    #[inline]
    pub fn admit(&mut self, pkt: &Packet, hop: u16, now: Time) -> Offer {
        if self.changes.is_some() {
            return self.admit_changing(pkt, hop, now);
        }
        match self.queue(pkt.size, pkt.ecn, now) {
            Ok((exit, ecn)) => {
                let fate = self.draws_fate();
                self.enter_pipe(pkt, hop, ecn, exit, fate)
            }
            Err(verdict) => Offer::Dropped(verdict),
        }
    }

    /// [`Self::admit`] on a changing link: the discipline decides as on any link, then the
    /// transmission and arrival times come from the link's changes.
    #[cold]
    #[inline(never)]
    fn admit_changing(&mut self, pkt: &Packet, hop: u16, now: Time) -> Offer {
        self.advance(now);
        let must_wait = self.busy_until > now;
        let ecn = match self.verdict(pkt.size, pkt.ecn, now, must_wait) {
            Ok(ecn) => ecn,
            Err(verdict) => return Offer::Dropped(verdict),
        };
        let c = self.changes.as_mut().expect("a changing link");
        if c.aggregates() {
            return self.admit_aggregated(pkt, hop, ecn, now);
        }
        let tx = c.transmit(self.busy_until.max(now), pkt.size);
        let exit = c.exit(tx.end, self.delay);
        // Waiting until its first bit goes out: behind the packets ahead, or for the trace's
        // next opportunity.
        if tx.start > now {
            self.waiting.push_back((tx.start, pkt.size));
            self.waiting_bytes += pkt.size as u64;
            self.counters.max_queue_pkts = self.counters.max_queue_pkts.max(self.waiting.len() as u64);
            self.counters.wait_ns += (tx.start - now) as u128;
        }
        self.busy_until = tx.end;
        self.counters.busy_ns += tx.busy as u128;
        let fate = self.changing_fate(tx.end);
        self.enter_pipe(pkt, hop, ecn, exit, fate)
    }

    /// [`Self::admit_changing`] on an aggregating link, for a packet the discipline admitted: it
    /// joins the burst being formed or opens the next ([`crate::net::aggregation`]). A packet
    /// joining a burst moves its end, and so the exit of the packets ahead of it in the burst:
    /// they are the last entries of the pipe (none has left, as a burst leaves after its access
    /// instant and a joiner comes by then), and move with it. If the burst's first packet is at
    /// the pipe's head, its event stays at the earlier time and is moved on then
    /// ([`Self::take_exit`]).
    fn admit_aggregated(&mut self, pkt: &Packet, hop: u16, ecn: u8, now: Time) -> Offer {
        let c = self.changes.as_mut().expect("a changing link");
        let place = c.place(now, pkt.size);
        let exit = c.exit(place.burst_end, self.delay);
        let len = self.pipe.len();
        for i in len - place.ahead_in_burst as usize..len {
            let entry = self.pipe.get_mut(i).expect("a burst's packets are in the pipe");
            entry.0 = exit | (entry.0 & MARKS);
        }
        if place.start > now {
            self.waiting.push_back((place.start, pkt.size));
            self.waiting_bytes += pkt.size as u64;
            self.counters.max_queue_pkts = self.counters.max_queue_pkts.max(self.waiting.len() as u64);
            self.counters.wait_ns += (place.start - now) as u128;
        }
        self.busy_until = place.burst_end;
        self.counters.busy_ns += place.airtime as u128;
        let fate = self.changing_fate(place.own_end);
        self.enter_pipe(pkt, hop, ecn, exit, fate)
    }

    /// The discipline's verdict on a packet of `size` bytes with ECN bits `ecn` arriving at
    /// `now` (`must_wait`: the transmitter is busy): its ECN bits if admitted; a drop is counted.
    #[inline(always)]
    fn verdict(&mut self, size: u32, ecn: u8, now: Time, must_wait: bool) -> Result<u8, Verdict> {
        let verdict = match &mut self.qdisc {
            // Decided from plain values, inline: the common case, cheaper than building a view.
            Qdisc::DropTail(d) => d.verdict(must_wait, self.waiting.len(), self.waiting_bytes, size),
            other => {
                let view = QueueView {
                    now,
                    len_pkts: self.waiting.len(),
                    len_bytes: self.waiting_bytes,
                    must_wait,
                    idle_since: if must_wait { None } else { Some(self.busy_until) },
                };
                other.admit(&view, size, ecn & super::packet::ecn::ANY_ECT != 0)
            }
        };
        match verdict {
            Verdict::Enqueue => Ok(ecn),
            Verdict::Mark => Ok(ecn | super::packet::ecn::CE),
            Verdict::DropOverflow | Verdict::DropEarly => {
                self.counters.queue_drops += 1;
                Err(verdict)
            }
        }
    }

    /// Queue a packet of `size` bytes with ECN bits `ecn` (already counted as an arrival) for
    /// the transmitter: the time it reaches the far end and its ECN bits, or the discipline's
    /// drop verdict. The caller then puts it in the pipe ([`Self::enter_pipe`]) or, drawing no
    /// loss, passes it on ([`Self::pass_on`]).
    #[inline(always)]
    pub fn queue(&mut self, size: u32, ecn: u8, now: Time) -> Result<(Time, u8), Verdict> {
        self.advance(now);
        let must_wait = self.busy_until > now;
        let ecn = self.verdict(size, ecn, now, must_wait)?;
        let start = self.busy_until.max(now);
        let tx = self.tx_time(size);
        if must_wait {
            self.waiting.push_back((start, size));
            self.waiting_bytes += size as u64;
            self.counters.max_queue_pkts = self.counters.max_queue_pkts.max(self.waiting.len() as u64);
            self.counters.wait_ns += (start - now) as u128;
        }
        self.busy_until = start + tx;
        self.counters.busy_ns += tx as u128;
        Ok((self.busy_until + self.delay, ecn))
    }

    /// Put a queued packet in the pipe, to reach the far end at `exit` (`lost`: the loss
    /// model's draw). The packet is passed by reference and its hop and ECN bits apart, and
    /// written once, into the pipe: a copy that is changed on the stack and then moved on makes
    /// the CPU wait for its own stores (measured: a sixth of the event loop's time at 1 Gbps).
    /// `fate`: the draws' marks ([`Self::draws_fate`]).
    #[inline(always)]
    pub fn enter_pipe(&mut self, pkt: &Packet, hop: u16, ecn: u8, exit: Time, fate: Time) -> Offer {
        debug_assert!(exit & MARKS == 0 && fate & !MARKS == 0);
        self.pipe.push_back((exit | fate, Packet { hop, ecn, ..*pkt }));
        Offer::Accepted { schedule_at: (self.pipe.len() == 1).then_some(exit) }
    }

    /// A queued packet that is not lost leaves for the next link now, instead of through the
    /// pipe (its arrival time there is already known): it counts as departed.
    #[inline(always)]
    pub fn pass_on(&mut self) {
        self.counters.departures += 1;
    }

    /// Whether packets leaving this link may be passed on at admission: not when they are
    /// captured as they leave, nor when some are held back (the next link would then see them
    /// out of time order), nor out of a changing link (special, so its packets take its pipe).
    #[inline(always)]
    pub fn may_pass_on(&self) -> bool {
        !self.capture_exit && self.reorder.is_none() && self.changes.is_none()
    }

    /// Transmission time of `size` bytes at this link's rate.
    #[inline(always)]
    fn tx_time(&mut self, size: u32) -> Dur {
        let ack = size == HEADER_BYTES;
        // One branch, rarely taken; data or ACK is then a select rather than a branch (which way
        // the next packet goes is anyone's guess).
        if !ack & (size != self.data_size) {
            self.learn_data_size(size);
        }
        if ack {
            self.ack_tx
        } else {
            self.data_tx
        }
    }

    #[cold]
    fn learn_data_size(&mut self, size: u32) {
        self.data_size = size;
        self.data_tx = tx_time(size, self.rate_bps);
    }

    /// Whether the link's event at `now` is the plain departure of the pipe's head: due now,
    /// neither lost nor held back (a marked entry's time never equals the clock). Otherwise
    /// the event is for [`Self::take_exit`].
    #[inline(always)]
    pub fn head_leaves_at(&self, now: Time) -> bool {
        self.pipe.front().is_some_and(|&(t, _)| t == now)
    }

    /// What the link's event at `now` does when it is not the plain departure of the pipe's
    /// head: the pipe's head is due and lost or held back, or else the first packet held back
    /// is released. The caller schedules the times it returns.
    #[cold]
    #[inline(never)]
    pub fn take_exit(&mut self, now: Time) -> Exit {
        if let Some(&(t, pkt)) = self.pipe.front() {
            if t & !MARKS == now {
                self.pipe.pop_front();
                let next = self.head_time();
                if t & LOST != 0 {
                    self.counters.departures += 1;
                    return Exit::Lost { pkt, next };
                }
                if t & HELD != 0 {
                    let r = self.reorder.as_mut().expect("a held packet on a link that reorders");
                    return Exit::Held { next, hold_until: r.hold(pkt, now) };
                }
                self.counters.departures += 1;
                return Exit::Leaves { pkt, next };
            }
        }
        match self.reorder.as_mut() {
            Some(r) if r.head_time() == Some(now) => {
                let pkt = r.release();
                self.counters.departures += 1;
                Exit::Leaves { pkt, next: r.head_time() }
            }
            _ => {
                // The pipe's head is in a burst that grew after its event was scheduled.
                debug_assert!(self.changes.as_ref().is_some_and(|c| c.aggregates()), "a link event with nothing due");
                debug_assert!(self.head_time().is_some_and(|t| t > now), "a link event with nothing due");
                Exit::Held { next: self.head_time(), hold_until: None }
            }
        }
    }

    /// Take the packet at the head of the pipe (its arrival time has come); the caller then
    /// schedules [`Link::head_time`]. The packet alone is returned (not with the next time or
    /// its loss, as a pair): the pair was assembled and taken apart on the stack, and the CPU
    /// waited for those stores at every hop (measured again with the loss flag: 7% of (n)).
    #[inline]
    pub fn pop_arrival(&mut self) -> Packet {
        let (_, pkt) = self.pipe.pop_front().expect("link event with an empty pipe");
        self.counters.departures += 1;
        pkt
    }

    /// Arrival time of the packet at the head of the pipe, if any.
    #[inline]
    pub fn head_time(&self) -> Option<Time> {
        self.pipe.front().map(|&(t, _)| t & !MARKS)
    }

    /// Packets inside the link (being processed, waiting, in transmission, propagating or held
    /// back).
    pub fn in_link(&self) -> impl Iterator<Item = &Packet> {
        let stage = self.jitter.iter().flat_map(|j| j.stage.iter().map(|(_, p)| p));
        let held = self.reorder.iter().flat_map(|r| r.packets());
        stage.chain(self.qdisc.packets()).chain(self.pipe.iter().map(|(_, p)| p)).chain(held)
    }

    /// Busy time and waiting time up to `end` only (the tail beyond the run is cut off).
    pub fn clipped_totals(&self, end: Time) -> (u128, u128) {
        let busy_over = match self.changes.as_deref().and_then(|c| c.airtime_after(end)) {
            Some(airtime) => airtime as u128,
            None => self.busy_until.saturating_sub(end) as u128,
        };
        let wait_over: u128 = self.waiting.iter().map(|&(start, _)| start.saturating_sub(end) as u128).sum();
        (self.counters.busy_ns.saturating_sub(busy_over), self.counters.wait_ns.saturating_sub(wait_over))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::qdisc::droptail::DropTail;
    use crate::rng::{stream, Entity, Purpose};

    /// 1000-byte packets on 8 Mb/s: 1 ms of transmission each; 10 ms of propagation.
    fn link(limit_pkts: u64) -> Link {
        let q = Qdisc::DropTail(DropTail { limit_pkts: Some(limit_pkts), limit_bytes: None });
        Link::new(0, 1, 8_000_000, 10_000_000, q, LossModel::None)
    }

    fn pkt(seq: u32) -> Packet {
        Packet::test_data(seq, 1000)
    }

    const MS: Time = 1_000_000;

    #[test]
    fn a_burst_leaves_one_transmission_time_apart_and_only_the_head_is_scheduled() {
        let mut l = link(10);
        let first = l.offer(&pkt(0), 0, 0);
        assert!(matches!(first, Offer::Accepted { schedule_at: Some(t) } if t == 11 * MS));
        for seq in 1..4 {
            assert!(matches!(l.offer(&pkt(seq), 0, 0), Offer::Accepted { schedule_at: None }));
        }
        assert_eq!(l.queue_len(0), (3, 3000));
        assert_eq!(l.queue_len(2 * MS), (1, 1000), "two have started transmitting by 2 ms");
        let mut arrivals = vec![];
        let mut next = Some(11 * MS);
        while let Some(t) = next {
            let p = l.pop_arrival();
            arrivals.push((p.seq, t));
            next = l.head_time();
        }
        assert_eq!(arrivals, vec![(0, 11 * MS), (1, 12 * MS), (2, 13 * MS), (3, 14 * MS)]);
        assert_eq!(l.counters.departures, 4);
    }

    #[test]
    fn tail_drop_counts_waiting_packets_not_the_one_in_transmission() {
        let mut l = link(2);
        for seq in 0..3 {
            assert!(matches!(l.offer(&pkt(seq), 0, 0), Offer::Accepted { .. }), "seq {seq}");
        }
        assert!(matches!(l.offer(&pkt(3), 0, 0), Offer::Dropped(Verdict::DropOverflow)));
        assert_eq!((l.counters.arrivals, l.counters.queue_drops), (4, 1));
        // Once the first has left the transmitter a place is free again.
        assert!(matches!(l.offer(&pkt(4), 0, MS), Offer::Accepted { .. }));
    }

    #[test]
    fn utilization_and_queue_totals_are_clipped_at_the_end_of_the_run() {
        let mut l = link(10);
        for seq in 0..4 {
            l.offer(&pkt(seq), 0, 0);
        }
        // By 2 ms two transmissions are complete; the third started at 2 ms.
        let (busy, wait) = l.clipped_totals(2 * MS);
        assert_eq!(busy, (2 * MS) as u128);
        // Waits: 0, 1, 2, 3 ms, of which only the parts before 2 ms count: 0 + 1 + 2 + 2.
        assert_eq!(wait, (5 * MS) as u128);
    }

    #[test]
    fn jitter_delays_within_its_bound_and_keeps_order() {
        let mut l = link(1000);
        l.set_jitter(MS, stream(1, Entity::Link, 0, Purpose::Jitter));
        let mut scheduled = None;
        for seq in 0..200 {
            if let Some(t) = l.hold(pkt(seq), seq as Time * 10_000) {
                assert!(scheduled.is_none());
                scheduled = Some(t);
            }
        }
        assert_eq!(l.in_link().count(), 200, "held packets are inside the link");
        let mut last = 0;
        let mut seqs = vec![];
        let mut next = scheduled;
        while let Some(t) = next {
            let (p, n) = l.release();
            assert!(t >= last && t >= p.seq as Time * 10_000 && t <= p.seq as Time * 10_000 + MS);
            last = t;
            seqs.push(p.seq);
            next = n;
        }
        assert_eq!(seqs, (0..200).collect::<Vec<_>>());
        assert_eq!(l.counters.arrivals, 200, "counted once, when they reached the router");
    }
}

#[cfg(test)]
mod changing_tests {
    use super::*;
    use crate::net::changing::{Changes, Transmitter};
    use crate::net::qdisc::codel::CoDelParams;
    use crate::net::qdisc::{CoDel, DropTail};
    use crate::net::schedule::{Schedule, NEVER};

    const MS: Time = 1_000_000;

    /// 1000-byte packets: 1 ms each at 8 Mb/s; 10 ms of propagation unless scheduled.
    fn link(limit_pkts: u64, changes: Changes) -> Link {
        let q = Qdisc::DropTail(DropTail { limit_pkts: Some(limit_pkts), limit_bytes: None });
        let mut l = Link::new(0, 1, 8_000_000, 10 * MS, q, LossModel::None);
        l.set_changes(Some(changes));
        l
    }

    fn rates(changes: Vec<(Time, u64)>) -> Changes {
        Changes::new(Transmitter::Scheduled(Schedule::new(8_000_000, changes, 0)), None, None)
    }

    /// Offer 1000-byte packets at the given times; their exit times, in order (None: dropped).
    fn exits(l: &mut Link, at: &[Time]) -> Vec<Option<Time>> {
        let offered: Vec<bool> = at
            .iter()
            .enumerate()
            .map(|(i, &t)| matches!(l.offer(&Packet::test_data(i as u32, 1000), 0, t), Offer::Accepted { .. }))
            .collect();
        let mut times = vec![];
        while let Some(t) = l.head_time() {
            l.pop_arrival();
            times.push(t);
        }
        let mut times = times.into_iter();
        offered.iter().map(|&ok| if ok { times.next() } else { None }).collect()
    }

    #[test]
    fn a_changing_link_is_special_and_passes_nothing_on() {
        let l = link(10, rates(vec![]));
        assert!(l.is_special() && !l.may_pass_on());
    }

    #[test]
    fn a_rate_change_applies_to_the_packet_in_transmission_and_those_behind_it() {
        // Down to 4 Mb/s at 0.5 ms: the first packet's second half takes 1 ms, the next two 2 ms
        // each; back to 8 Mb/s at 3.5 ms, in the middle of the third packet.
        let mut l = link(10, rates(vec![(MS / 2, 4_000_000), (7 * MS / 2, 8_000_000)]));
        let got = exits(&mut l, &[0, 0, 0]);
        // Ends at 1.5 ms and 3.5 ms; the third starts at the change back and takes 1 ms.
        assert_eq!(got, [Some(11 * MS + MS / 2), Some(13 * MS + MS / 2), Some(14 * MS + MS / 2)]);
    }

    #[test]
    fn during_an_outage_packets_wait_in_the_queue_and_the_discipline_drops_the_excess() {
        // No capacity from 1 ms to 5 ms. The packet offered at 0.5 ms waits out the outage
        // half-sent; three arrive during it: two wait, the third finds the limit of 2 waiting.
        let mut l = link(2, rates(vec![(MS, 0), (5 * MS, 8_000_000)]));
        let at = [MS / 2, 2 * MS, 2 * MS, 3 * MS];
        let mut offered = vec![];
        for (i, &t) in at.iter().enumerate() {
            offered.push(matches!(l.offer(&Packet::test_data(i as u32, 1000), 0, t), Offer::Accepted { .. }));
            if i == 2 {
                assert_eq!(l.queue_len(3 * MS), (2, 2000), "waiting through the outage");
            }
        }
        assert_eq!(offered, [true, true, true, false]);
        let mut times = vec![];
        while let Some(t) = l.head_time() {
            l.pop_arrival();
            times.push(t);
        }
        // 0.5 ms sent before the outage, 0.5 ms after: out at 5.5 ms; then 6.5 and 7.5 ms.
        assert_eq!(times, [15 * MS + MS / 2, 16 * MS + MS / 2, 17 * MS + MS / 2]);
        assert_eq!(l.counters.queue_drops, 1);
        // Utilization counts the time at a positive rate only.
        assert_eq!(l.counters.busy_ns, 3 * MS as u128);
    }

    #[test]
    fn an_outage_that_never_ends_keeps_packets_in_the_link() {
        let mut l = link(10, rates(vec![(MS / 2, 0)]));
        assert!(matches!(l.offer(&Packet::test_data(0, 1000), 0, 0), Offer::Accepted { schedule_at: Some(NEVER) }));
        assert!(matches!(l.offer(&Packet::test_data(1, 1000), 0, 0), Offer::Accepted { schedule_at: None }));
        assert_eq!(l.in_link().count(), 2);
        assert_eq!(l.queue_len(100 * MS), (1, 1000));
    }

    #[test]
    fn a_delay_change_applies_from_the_instant_a_packet_finishes_transmission_without_reordering() {
        // 10 ms of delay, 30 ms from 2 ms on, 5 ms from 4 ms on.
        let delays = Schedule::new(10 * MS, vec![(2 * MS, 30 * MS), (4 * MS, 5 * MS)], 0);
        let c = Changes::new(Transmitter::Fixed { rate_bps: 8_000_000 }, Some(delays), None);
        let mut l = link(10, c);
        let got = exits(&mut l, &[0, 0, 0, 0, 0, 0]);
        // Ends at 1..=6 ms: 1 + 10; 2 + 30 and 3 + 30; then 4 + 5 = 9 ms would overtake: held to
        // 33 ms, as is 5 + 5; 6 + 5 = 11 ms too.
        let expected: Vec<Option<Time>> = [11, 32, 33, 33, 33, 33].iter().map(|&m| Some(m * MS)).collect();
        assert_eq!(got, expected);
        // Later packets get the new delay once it no longer overtakes.
        assert_eq!(exits(&mut l, &[40 * MS]), [Some(46 * MS)]);
    }

    #[test]
    fn a_loss_schedule_draws_once_per_packet_with_the_probability_at_its_transmission_end() {
        use crate::rng::{stream, Entity, Purpose};
        // Certain loss from 3 ms on (0.999999 is as good as certain over 3 packets), none before.
        let losses = Schedule::new(0.0, vec![(3 * MS, 0.999_999)], 0);
        let rng = stream(1, Entity::Link, 0, Purpose::Loss);
        let c = Changes::new(Transmitter::Fixed { rate_bps: 8_000_000 }, None, Some((losses, rng)));
        let mut l = link(10, c);
        for seq in 0..6 {
            l.offer(&Packet::test_data(seq, 1000), 0, 0);
        }
        let mut fates = vec![];
        while let Some(t) = l.head_time() {
            fates.push(match l.take_exit(t) {
                Exit::Lost { .. } => "lost",
                Exit::Leaves { .. } => "left",
                Exit::Held { .. } => "held",
            });
        }
        // Ends at 1, 2, 3, ... ms: the third one ends at the change.
        assert_eq!(fates, ["left", "left", "lost", "lost", "lost", "lost"]);
    }

    #[test]
    fn under_a_dequeue_discipline_a_rate_change_applies_the_same_way() {
        let q =
            Qdisc::CoDel(Box::new(CoDel::new(CoDelParams { target: 50 * MS, interval: 100 * MS, ecn: false }, 100)));
        let mut l = Link::new(0, 1, 8_000_000, 10 * MS, q, LossModel::None);
        l.set_changes(Some(rates(vec![(MS / 2, 4_000_000), (7 * MS / 2, 8_000_000)])));
        assert_eq!(l.enqueue(Packet::test_data(0, 1000), 0), Some(11 * MS + MS / 2));
        for seq in 1..3 {
            assert_eq!(l.enqueue(Packet::test_data(seq, 1000), 0), None);
        }
        let mut times = vec![];
        let mut next = l.head_time();
        while let Some(t) = next {
            l.serve(t);
            l.pop_arrival();
            times.push(t);
            next = l.head_time();
        }
        assert_eq!(times, [11 * MS + MS / 2, 13 * MS + MS / 2, 14 * MS + MS / 2]);
    }
}

#[cfg(test)]
mod dequeue_tests {
    use super::*;
    use crate::net::packet::ecn;
    use crate::net::qdisc::codel::CoDelParams;
    use crate::net::qdisc::{CoDel, DropTail, Step};

    const MS: Time = 1_000_000;

    fn ect(seq: u32) -> Packet {
        let mut p = Packet::test_data(seq, 1000);
        p.ecn = ecn::ECT;
        p
    }

    /// Under CoDel a burst leaves exactly as under DropTail (1 ms apart, after 10 ms of
    /// propagation), and only the first arrival asks for an event.
    #[test]
    fn a_dequeue_discipline_keeps_one_pending_event_and_exact_departures() {
        let q = Qdisc::CoDel(Box::new(CoDel::new(CoDelParams { target: 5 * MS, interval: 100 * MS, ecn: false }, 100)));
        let mut l = Link::new(0, 1, 8_000_000, 10 * MS, q, LossModel::None);
        assert_eq!(l.enqueue(Packet::test_data(0, 1000), 0), Some(11 * MS));
        for seq in 1..4 {
            assert_eq!(l.enqueue(Packet::test_data(seq, 1000), 0), None);
        }
        assert_eq!(l.queue_len(0), (3, 3000));
        let mut arrivals = vec![];
        let mut next = Some(11 * MS);
        while let Some(t) = next {
            l.serve(t);
            let p = l.pop_arrival();
            arrivals.push((p.seq, t));
            next = l.head_time();
        }
        assert_eq!(arrivals, vec![(0, 11 * MS), (1, 12 * MS), (2, 13 * MS), (3, 14 * MS)]);
        assert_eq!(l.take_drops().count(), 0);
    }

    /// Hand-made ECN-capable packets through a step-marking link: those finding 2 or more
    /// waiting are marked CE, none is dropped.
    #[test]
    fn a_marking_link_sets_ce_instead_of_dropping() {
        let tail = DropTail { limit_pkts: Some(100), limit_bytes: None };
        let q = Qdisc::Step(Box::new(Step { tail, k_pkts: Some(2), k_bytes: None, ecn: true, marks: 0 }));
        let mut l = Link::new(0, 1, 8_000_000, 0, q, LossModel::None);
        for seq in 0..6 {
            assert!(matches!(l.offer(&ect(seq), 0, 0), Offer::Accepted { .. }));
        }
        let mut ce = vec![];
        for _ in 0..6 {
            let p = l.pop_arrival();
            ce.push(p.ecn & ecn::CE != 0);
        }
        // Seq 0 is transmitted at once; 1 and 2 find 0 and 1 waiting; 3..5 find 2, 3, 4.
        assert_eq!(ce, vec![false, false, false, true, true, true]);
        assert_eq!(l.counters.queue_drops, 0);
    }
}
