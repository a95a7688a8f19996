//! Events and the event queue.
//!
//! Events are small `Copy` values holding ids. The queue orders them by time and, at equal times,
//! by a rank computed from the event and the time (see [`Event::rank`]), never by when they were
//! scheduled: a run is deterministic, and its results do not depend on how the engine happens to
//! schedule its work (whether a hop's arrival is scheduled when the packet leaves the previous
//! link or earlier, for one).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Retransmit,
    Pacing,
    DelayedAck,
    /// Transmissions held back by the stack's send overhead are due.
    Release,
}

const TIMER_KINDS: [TimerKind; 4] =
    [TimerKind::Retransmit, TimerKind::Pacing, TimerKind::DelayedAck, TimerKind::Release];

/// Declared in the order of their classes (`class`), each with its class as discriminant, so
/// that decoding a queued event is arithmetic rather than a table of cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Event {
    /// Record the sampled series.
    Sample = class::SAMPLE as u8,
    FlowStart(u32) = class::FLOW_START as u8,
    /// An open-loop generator's next arrival.
    GeneratorArrival(u32) = class::GENERATOR as u8,
    Timer {
        flow: u32,
        kind: TimerKind,
    } = class::TIMER as u8,
    /// The packet at the head of a link's processing stage (router jitter) reaches its queue.
    LinkIngress(u32) = class::LINK_INGRESS as u8,
    /// The packet at the head of a link's pipe reaches the far end.
    LinkArrival(u32) = class::LINK_ARRIVAL as u8,
}

/// Event classes in the order they run at equal times: the sample first (it records the state
/// as it was up to that instant), then flow starts, generator arrivals, timers, packets reaching
/// a router's queue, and packets reaching the far end of a link. Within a class, in an order
/// shuffled per instant (see [`Event::rank`]).
mod class {
    pub const SAMPLE: u64 = 0;
    pub const FLOW_START: u64 = 1;
    pub const GENERATOR: u64 = 2;
    pub const TIMER: u64 = 3;
    pub const LINK_INGRESS: u64 = 4;
    pub const LINK_ARRIVAL: u64 = 5;
}

/// Bits of a rank below the class.
const ID_BITS: u64 = (1 << 56) - 1;

/// A pseudo-random mask for the ids of events due at `time`: within a class, simultaneous events
/// run in an order that changes from instant to instant, so that no link or flow is always first
/// when packets tie (a fixed order would favour, say, the lowest link id in every tie at a full
/// queue: a phase effect of the simulator, not of the network).
#[inline(always)]
fn shuffle(time: Time) -> u64 {
    (time.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8) & ID_BITS
}

impl Event {
    /// The order of this event among events due at `time` (lower first): its class in the top
    /// bits, then its id (and a timer's kind) under the instant's mask. Two events due at the
    /// same time with the same rank are the same event.
    #[inline(always)]
    pub fn rank(self, time: Time) -> u64 {
        self.plain_rank() ^ shuffle(time)
    }

    /// The class and id, unshuffled.
    #[inline(always)]
    fn plain_rank(self) -> u64 {
        let (class, id) = match self {
            Event::Sample => (class::SAMPLE, 0),
            Event::FlowStart(f) => (class::FLOW_START, f as u64),
            Event::GeneratorArrival(g) => (class::GENERATOR, g as u64),
            Event::Timer { flow, kind } => (class::TIMER, (flow as u64) << 2 | kind as u64),
            Event::LinkIngress(l) => (class::LINK_INGRESS, l as u64),
            Event::LinkArrival(l) => (class::LINK_ARRIVAL, l as u64),
        };
        class << 60 | id
    }

    /// The event of a rank at `time`.
    #[inline(always)]
    fn from_rank(rank: u64, time: Time) -> Event {
        let rank = rank ^ shuffle(time);
        let id = rank & ID_BITS;
        match rank >> 60 {
            class::LINK_ARRIVAL => Event::LinkArrival(id as u32),
            class::TIMER => Event::Timer { flow: (id >> 2) as u32, kind: TIMER_KINDS[(id & 3) as usize] },
            class::LINK_INGRESS => Event::LinkIngress(id as u32),
            class::FLOW_START => Event::FlowStart(id as u32),
            class::GENERATOR => Event::GeneratorArrival(id as u32),
            _ => Event::Sample,
        }
    }
}

/// A pending event as one integer: the time in the high 64 bits, the event's rank in the low
/// ones, so that one comparison orders by (time, rank) and the event is read back from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    key: u128,
}

impl Entry {
    #[inline(always)]
    fn new(time: Time, event: Event) -> Self {
        Entry { key: ((time as u128) << 64) | event.rank(time) as u128 }
    }

    #[inline(always)]
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }

    #[inline(always)]
    fn event(&self) -> Event {
        Event::from_rank(self.key as u64, self.time())
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Bucket width of the wheel: 2^16 ns (about 66 us).
const SHIFT: u32 = 16;
/// Buckets in the wheel (a power of two): about 0.54 s of simulated time ahead.
const BUCKETS: u64 = 8192;
/// Width of the slices the current bucket is split into: 2^10 ns (about 1 us).
const SUB_SHIFT: u32 = 10;
/// Slices per bucket.
const SUBS: usize = 1 << (SHIFT - SUB_SHIFT);
const _: () = assert!(SUBS <= 64, "one bit per slice in a u64");
/// A bucket with at most this many events is taken whole, without slices.
const WHOLE: usize = 4;

/// The pending events, popped in (time, rank) order.
///
/// Later events wait unordered in the bucket of their time (about 66 us wide) on a wheel, and
/// those beyond the wheel in a heap. When a bucket comes up its events are spread over slices of
/// about 1 us; the slices are then sorted one at a time and taken in order. An event pushed into
/// the current bucket goes to its slice, or, when that slice is already being taken (the next
/// packet on a busy access link), to a small heap, and each pop takes the earlier of the sorted
/// slice's head and the heap's. A push is mostly an append and a pop an index step, however
/// many flows and timers are pending. Every event of a slice is sorted or in the heap before any
/// of them is popped, and both order by (time, rank), so the order is exactly that of one heap
/// over all events.
pub struct EventQueue {
    /// The current slice's events, sorted; those before `run_pos` have been popped.
    run: Vec<Entry>,
    run_pos: usize,
    /// Events pushed into the current slice (or before it) after `run` was sorted.
    late: BinaryHeap<Entry>,
    /// The slices of bucket `cur` after the current one (index: the slice within the bucket).
    slices: Vec<Vec<Entry>>,
    /// Bit `s` set: slice `s` has events.
    filled: u64,
    /// The slice of bucket `cur` whose events are in `run` and `late`.
    slice: usize,
    /// Bucket `b` (cur < b < cur + BUCKETS) at index `b % BUCKETS`. An empty bucket holds no
    /// storage: see `spare`.
    wheel: Vec<Vec<Entry>>,
    /// Storage of buckets that were emptied, reused last-in first-out by buckets that fill
    /// again. A bucket is drained once per turn of the wheel (0.54 s); had it kept its own
    /// storage, the first push into it would find its line long out of cache. Recently drained
    /// storage is still warm.
    spare: Vec<Vec<Entry>>,
    in_wheel: usize,
    /// Events in buckets from cur + BUCKETS on.
    far: BinaryHeap<Entry>,
    /// The current bucket.
    cur: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            run: Vec::new(),
            run_pos: 0,
            late: BinaryHeap::new(),
            slices: (0..SUBS).map(|_| Vec::new()).collect(),
            filled: 0,
            slice: 0,
            wheel: (0..BUCKETS).map(|_| Vec::new()).collect(),
            spare: Vec::new(),
            in_wheel: 0,
            far: BinaryHeap::new(),
            cur: 0,
        }
    }
}

#[inline(always)]
fn slice_of(time: Time) -> usize {
    (time >> SUB_SHIFT) as usize & (SUBS - 1)
}

impl EventQueue {
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: Event) {
        let e = Entry::new(time, event);
        let b = time >> SHIFT;
        if b <= self.cur {
            let s = slice_of(time);
            if b < self.cur || s <= self.slice {
                self.late.push(e);
            } else {
                self.slices[s].push(e);
                self.filled |= 1 << s;
            }
        } else if b - self.cur < BUCKETS {
            self.push_wheel(b, e);
        } else {
            self.far.push(e);
        }
    }

    /// Puts an entry of bucket `b` (within the wheel's reach) on the wheel.
    #[inline(always)]
    fn push_wheel(&mut self, b: u64, e: Entry) {
        let slot = &mut self.wheel[(b % BUCKETS) as usize];
        if slot.capacity() == 0 {
            if let Some(storage) = self.spare.pop() {
                *slot = storage;
            }
        }
        slot.push(e);
        self.in_wheel += 1;
    }

    /// Whether the current slice has events left.
    #[inline(always)]
    fn current_is_empty(&self) -> bool {
        self.run_pos == self.run.len() && self.late.is_empty()
    }

    /// The earliest pending entry of the current slice: from the sorted run (true) or the heap.
    #[inline(always)]
    fn head(&self) -> Option<(Entry, bool)> {
        let sorted = self.run.get(self.run_pos);
        match (sorted, self.late.peek()) {
            (Some(a), Some(b)) => Some(if a.key < b.key { (*a, true) } else { (*b, false) }),
            (Some(a), None) => Some((*a, true)),
            (None, Some(b)) => Some((*b, false)),
            (None, None) => None,
        }
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        if self.current_is_empty() && !self.refill() {
            return None;
        }
        self.head().map(|(e, _)| e.time())
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if self.current_is_empty() && !self.refill() {
            return None;
        }
        let (e, from_run) = self.head()?;
        if from_run {
            self.run_pos += 1;
        } else {
            self.late.pop();
        }
        Some((e.time(), e.event()))
    }

    /// The next event, if it is due by `end` (else it stays queued): one look at the queue's
    /// head instead of a peek and a pop.
    #[inline]
    pub fn pop_due(&mut self, end: Time) -> Option<(Time, Event)> {
        if self.current_is_empty() && !self.refill() {
            return None;
        }
        let (e, from_run) = self.head()?;
        if e.time() > end {
            return None;
        }
        if from_run {
            self.run_pos += 1;
        } else {
            self.late.pop();
        }
        Some((e.time(), e.event()))
    }

    /// The current slice is used up: move on to the next slice with events, in this bucket or
    /// the next bucket with events. False if there are none.
    #[inline(always)]
    fn refill(&mut self) -> bool {
        if self.filled == 0 {
            // The next bucket's events, spread over slices or (a sparse bucket) taken whole.
            match self.next_bucket() {
                None => return false,
                Some(true) => return true,
                Some(false) => {}
            }
        }
        // Slices up to the current one are empty (pushes there go to the heap).
        let s = self.filled.trailing_zeros() as usize;
        self.filled &= self.filled - 1;
        let slot = &mut self.slices[s];
        if slot.len() > 1 {
            slot.sort_unstable_by_key(|e| e.key);
        }
        // The slice becomes the run; the used-up run's storage goes back to the slice.
        self.run.clear();
        std::mem::swap(&mut self.run, slot);
        self.run_pos = 0;
        self.slice = s;
        true
    }

    /// Every slice of the current bucket is used up: move to the next bucket with events and
    /// spread them over the slices (`Some(false)`), or take a sparse one whole as the run
    /// (`Some(true)`). `None` if there is none.
    #[inline(never)]
    fn next_bucket(&mut self) -> Option<bool> {
        loop {
            if self.in_wheel == 0 {
                // Nothing on the wheel: jump straight to the first bucket beyond it.
                let first = self.far.peek()?;
                self.cur = first.time() >> SHIFT;
            } else {
                self.cur += 1;
            }
            // Events that now fall within the wheel's reach.
            while let Some(e) = self.far.peek() {
                let b = e.time() >> SHIFT;
                if b - self.cur >= BUCKETS {
                    break;
                }
                let e = self.far.pop().expect("peeked");
                self.push_wheel(b, e);
            }
            let slot = &mut self.wheel[(self.cur % BUCKETS) as usize];
            if !slot.is_empty() {
                let mut bucket = std::mem::take(slot);
                self.in_wheel -= bucket.len();
                if bucket.len() <= WHOLE {
                    // A sparse bucket is one slice: sorted at once, later pushes into it go to
                    // the heap.
                    bucket.sort_unstable_by_key(|e| e.key);
                    std::mem::swap(&mut self.run, &mut bucket);
                    self.run_pos = 0;
                    self.slice = SUBS - 1;
                    self.recycle(bucket);
                    return Some(true);
                }
                for e in bucket.drain(..) {
                    let s = slice_of(e.time());
                    self.slices[s].push(e);
                    self.filled |= 1 << s;
                }
                self.recycle(bucket);
                return Some(false);
            }
        }
    }

    /// Keeps the storage of an emptied bucket (or run) for the next bucket that fills.
    #[inline(always)]
    fn recycle(&mut self, mut storage: Vec<Entry>) {
        if storage.capacity() > 0 {
            storage.clear();
            self.spare.push(storage);
        }
    }

    pub fn len(&self) -> usize {
        let in_slices: usize = self.slices.iter().map(Vec::len).sum();
        self.run.len() - self.run_pos + self.late.len() + in_slices + self.in_wheel + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A timer that is re-armed often (RTO, pacing) without deleting heap entries: the deadline lives
/// here; an event that fires early is pushed again for the deadline, a stale one is ignored.
#[derive(Clone, Copy, Debug, Default)]
pub struct LazyTimer {
    deadline: Option<Time>,
    /// Time of the event this timer currently relies on, if any.
    pending: Option<Time>,
}

impl LazyTimer {
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    pub fn set(&mut self, at: Time, q: &mut EventQueue, event: Event) {
        self.deadline = Some(at);
        if self.pending.is_none_or(|p| p > at) {
            q.push(at, event);
            self.pending = Some(at);
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// Called when an event of this timer fires at `now`. Returns true if the timer is due.
    pub fn fire(&mut self, now: Time, q: &mut EventQueue, event: Event) -> bool {
        if self.pending != Some(now) {
            return false; // superseded by an earlier event
        }
        self.pending = None;
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                true
            }
            Some(d) => {
                q.push(d, event);
                self.pending = Some(d);
                false
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_of(e: Event) -> u32 {
        match e {
            Event::Sample => 0,
            Event::FlowStart(_) => 1,
            Event::GeneratorArrival(_) => 2,
            Event::Timer { .. } => 3,
            Event::LinkIngress(_) => 4,
            Event::LinkArrival(_) => 5,
        }
    }

    /// Events due at one time pop by class, in one order whatever the order they were pushed in.
    #[test]
    fn equal_times_pop_by_class_whatever_the_insertion_order() {
        let events = [
            Event::LinkArrival(2),
            Event::Timer { flow: 7, kind: TimerKind::DelayedAck },
            Event::LinkArrival(0),
            Event::FlowStart(3),
            Event::Sample,
            Event::LinkIngress(1),
            Event::Timer { flow: 7, kind: TimerKind::Retransmit },
            Event::GeneratorArrival(0),
            Event::Timer { flow: 1, kind: TimerKind::Release },
        ];
        for time in [5, 1_000_000_007, 123_456_789_012] {
            let mut first: Option<Vec<Event>> = None;
            for rotation in 0..events.len() {
                let mut q = EventQueue::default();
                q.push(time + 1, Event::FlowStart(0));
                for e in events.iter().cycle().skip(rotation).take(events.len()) {
                    q.push(time, *e);
                }
                let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
                assert_eq!(order.len(), events.len() + 1);
                assert_eq!(order[events.len()], (time + 1, Event::FlowStart(0)));
                let order: Vec<Event> =
                    order[..events.len()].iter().map(|&(t, e)| (t == time).then_some(e).unwrap()).collect();
                assert!(order.windows(2).all(|w| class_of(w[0]) <= class_of(w[1])), "{order:?}");
                assert_eq!(*first.get_or_insert_with(|| order.clone()), order, "rotation {rotation}");
            }
        }
    }

    /// Two links' packets that tie: each goes first at about half of the instants.
    #[test]
    fn ties_within_a_class_favour_no_one() {
        let n = 10_000u64;
        let mut zero_first = 0;
        for i in 0..n {
            let time = 12_000 * i + 1_000_000;
            let mut q = EventQueue::default();
            q.push(time, Event::LinkArrival(1));
            q.push(time, Event::LinkArrival(0));
            if q.pop() == Some((time, Event::LinkArrival(0))) {
                zero_first += 1;
            }
        }
        let expected = n as f64 / 2.0;
        assert!((zero_first as f64 - expected).abs() < 4.0 * (n as f64 / 4.0).sqrt(), "{zero_first} of {n}");
    }

    #[test]
    fn every_event_is_read_back_from_its_rank() {
        let kinds = [TimerKind::Retransmit, TimerKind::Pacing, TimerKind::DelayedAck, TimerKind::Release];
        for id in [0, 1, 77, u32::MAX] {
            let mut events = vec![
                Event::LinkArrival(id),
                Event::LinkIngress(id),
                Event::FlowStart(id),
                Event::GeneratorArrival(id),
                Event::Sample,
            ];
            events.extend(kinds.iter().map(|&kind| Event::Timer { flow: id, kind }));
            for e in events {
                for time in [0, 1, 65_536, 599_999_999_999, u64::MAX >> 1] {
                    assert_eq!(Event::from_rank(e.rank(time), time), e);
                }
            }
        }
    }

    /// Random pushes (within the current slice, the current bucket, the wheel and beyond it)
    /// interleaved with pops give the order of one heap over (time, rank).
    #[test]
    fn pops_in_the_order_of_a_single_heap() {
        use crate::rng::{stream, Entity, Purpose};
        use rand::Rng;
        use std::cmp::Reverse;
        let mut rng = stream(5, Entity::Flow, 0, Purpose::Start);
        for _ in 0..50 {
            let mut q = EventQueue::default();
            let mut reference = BinaryHeap::new();
            let mut seq = 0u32;
            let mut now = 0;
            for _ in 0..3000 {
                if rng.gen_bool(0.55) {
                    let ahead = match rng.gen_range(0..6) {
                        // Ties.
                        0 => rng.gen_range(0..4),
                        1 => rng.gen_range(0..2_000),
                        2 => rng.gen_range(0..70_000),
                        3 => rng.gen_range(0..2_000_000),
                        4 => rng.gen_range(0..1_000_000_000),
                        _ => rng.gen_range(0..5_000_000_000),
                    };
                    q.push(now + ahead, Event::FlowStart(seq));
                    let e = Event::FlowStart(seq);
                    reference.push(Reverse((now + ahead, e.rank(now + ahead), seq)));
                    seq += 1;
                } else if let Some((t, ev)) = q.pop() {
                    let Reverse((rt, _, rs)) = reference.pop().expect("same length");
                    assert_eq!((t, ev), (rt, Event::FlowStart(rs)));
                    now = t;
                } else {
                    assert!(reference.is_empty());
                }
                assert_eq!(q.len(), reference.len());
            }
            while let Some((t, ev)) = q.pop() {
                let Reverse((rt, _, rs)) = reference.pop().expect("same length");
                assert_eq!((t, ev), (rt, Event::FlowStart(rs)));
            }
            assert!(reference.is_empty());
        }
    }

    /// Drive a timer through random set/cancel sequences and check that it fires exactly at the
    /// last deadline set, like a reference timer that deletes and re-inserts.
    #[test]
    fn lazy_timer_fires_exactly_at_the_latest_deadline() {
        use crate::rng::{stream, Entity, Purpose};
        use rand::Rng;
        let mut rng = stream(9, Entity::Flow, 0, Purpose::Start);
        for _ in 0..200 {
            let mut q = EventQueue::default();
            let mut timer = LazyTimer::default();
            let ev = Event::Timer { flow: 0, kind: TimerKind::Retransmit };
            let mut reference: Option<Time> = None;
            let mut now = 0;
            let mut fired = Vec::new();
            let mut expected = Vec::new();
            for _ in 0..30 {
                now += rng.gen_range(0..10);
                // Run everything due by now.
                while q.peek_time().is_some_and(|t| t <= now) {
                    let (t, _) = q.pop().unwrap();
                    if timer.fire(t, &mut q, ev) {
                        fired.push(t);
                    }
                    if reference.is_some_and(|r| r <= t) {
                        expected.push(reference.take().unwrap());
                    }
                }
                if rng.gen_bool(0.2) {
                    timer.cancel();
                    reference = None;
                } else {
                    let at = now + rng.gen_range(1..30);
                    timer.set(at, &mut q, ev);
                    reference = Some(at);
                }
            }
            while let Some((t, _)) = q.pop() {
                if timer.fire(t, &mut q, ev) {
                    fired.push(t);
                }
            }
            if let Some(r) = reference {
                expected.push(r);
            }
            assert_eq!(fired, expected);
        }
    }
}
