//! Queue disciplines.
//!
//! Two kinds, by where they decide:
//! * At admission (DropTail, RED, step marking): the arriving packet is dropped, marked or
//!   queued, and the queue is FIFO at a constant rate, so the link fixes its departure at once
//!   ([`Qdisc::admit`], the link's computed-departure fast path).
//! * At dequeue, or with state that moves with departures (CoDel, FQ-CoDel, PIE, DualPI2): the discipline
//!   holds the packets, and the link asks it for the next one each time the transmitter frees
//!   ([`Qdisc::enqueue`], [`Qdisc::dequeue`]).
//!
//! One discipline per file. ECN: a discipline configured with `ecn` marks CE on an ECN-capable
//! packet where it would otherwise drop it early (never on overflow).

pub mod codel;
pub mod droptail;
pub mod dualpi2;
pub mod fifo;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod step;

pub use codel::CoDel;
pub use droptail::DropTail;
pub use dualpi2::DualPi2;
pub use fq_codel::FqCodel;
pub use pie::Pie;
pub use red::Red;
pub use step::Step;

use crate::net::packet::Packet;
use crate::units::{secs, Dur, Time};

/// The queue as an arriving packet finds it.
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    pub now: Time,
    /// Packets waiting (not counting the one being transmitted).
    pub len_pkts: usize,
    pub len_bytes: u64,
    /// Whether the arrival must wait (the link is busy).
    pub must_wait: bool,
    /// When the link became idle, if it is idle now.
    pub idle_since: Option<Time>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue with CE set (the packet is ECN-capable and the discipline marks).
    Mark,
    /// Buffer overflow or a forced drop.
    DropOverflow,
    /// An early (AQM) drop.
    DropEarly,
}

/// Packets a discipline dropped, with the time of each drop (a dequeue discipline is run at the
/// times its transmissions complete, which may be earlier than when the link is next touched).
pub type DropSink = Vec<(Time, Packet, Verdict)>;

pub enum Qdisc {
    DropTail(DropTail),
    Red(Box<Red>),
    Step(Box<Step>),
    CoDel(Box<CoDel>),
    FqCodel(Box<FqCodel>),
    Pie(Box<Pie>),
    DualPi2(Box<DualPi2>),
}

impl Qdisc {
    /// Whether the discipline holds its packets and hands them out at dequeue.
    pub fn decides_at_dequeue(&self) -> bool {
        matches!(self, Qdisc::CoDel(_) | Qdisc::FqCodel(_) | Qdisc::Pie(_) | Qdisc::DualPi2(_))
    }

    /// RED's average queue length, packets; `None` for disciplines without one.
    pub fn average(&self) -> Option<f64> {
        match self {
            Qdisc::Red(r) => Some(r.avg),
            _ => None,
        }
    }

    /// An admission discipline's verdict on an arrival of `size` bytes (`ect`: ECN-capable).
    /// (Links decide DropTail inline, without the view: see `Link::queue`.)
    #[inline(never)]
    pub fn admit(&mut self, q: &QueueView, size: u32, ect: bool) -> Verdict {
        match self {
            Qdisc::DropTail(d) => d.admit(q, size),
            Qdisc::Red(r) => r.admit_ecn(q, size, ect),
            Qdisc::Step(s) => s.admit(q, size, ect),
            _ => unreachable!("admit on a discipline that decides at dequeue"),
        }
    }

    /// Queue a packet (dequeue disciplines). Drops go to `drops`: the arrival, or for FQ-CoDel
    /// the head of the fattest queue.
    pub fn enqueue(&mut self, pkt: Packet, now: Time, drops: &mut DropSink) {
        match self {
            Qdisc::CoDel(c) => c.enqueue(pkt, now, drops),
            Qdisc::FqCodel(f) => f.enqueue(pkt, now, drops),
            Qdisc::Pie(p) => p.enqueue(pkt, now, drops),
            Qdisc::DualPi2(d) => d.enqueue(pkt, now, drops),
            _ => unreachable!("enqueue on an admission discipline"),
        }
    }

    /// The next packet to transmit at `now` (dequeue disciplines), after any drops.
    pub fn dequeue(&mut self, now: Time, drops: &mut DropSink) -> Option<Packet> {
        match self {
            Qdisc::CoDel(c) => c.dequeue(now, drops),
            Qdisc::FqCodel(f) => f.dequeue(now, drops),
            Qdisc::Pie(p) => p.dequeue(now),
            Qdisc::DualPi2(d) => d.dequeue(now, drops),
            _ => unreachable!("dequeue on an admission discipline"),
        }
    }

    /// Bring time-driven state up to `now` (PIE's and DualPI2's periodic probability update).
    pub fn advance(&mut self, now: Time) {
        match self {
            Qdisc::Pie(p) => p.advance(now),
            Qdisc::DualPi2(d) => d.advance(now),
            _ => {}
        }
    }

    /// Sojourn time of the packet just dequeued.
    pub fn last_sojourn(&self) -> Dur {
        match self {
            Qdisc::CoDel(c) => c.state.last_sojourn,
            Qdisc::FqCodel(f) => f.last_sojourn,
            Qdisc::Pie(p) => p.last_sojourn,
            Qdisc::DualPi2(d) => d.last_sojourn,
            _ => 0,
        }
    }

    /// Packets held (dequeue disciplines): count and bytes.
    pub fn held(&self) -> (usize, u64) {
        match self {
            Qdisc::CoDel(c) => (c.q.len(), c.q.bytes()),
            Qdisc::FqCodel(f) => (f.len_pkts() as usize, f.len_bytes()),
            Qdisc::Pie(p) => (p.len_pkts(), p.len_bytes()),
            Qdisc::DualPi2(d) => (d.len_pkts(), d.len_bytes()),
            _ => (0, 0),
        }
    }

    /// Packets held (dequeue disciplines).
    pub fn packets(&self) -> Box<dyn Iterator<Item = &Packet> + '_> {
        match self {
            Qdisc::CoDel(c) => Box::new(c.q.iter().map(|(_, p)| p)),
            Qdisc::FqCodel(f) => Box::new(f.packets()),
            Qdisc::Pie(p) => Box::new(p.packets()),
            Qdisc::DualPi2(d) => Box::new(d.packets()),
            _ => Box::new(std::iter::empty()),
        }
    }

    /// The discipline's own state, as (column name, value) pairs for the `queues` series:
    /// `sojourn_s` (of the last packet dequeued), `drop_state` (CoDel: 1 in the drop state;
    /// FQ-CoDel: queues in the drop state), `aqm_count` (CoDel's control-law count), `drop_prob`
    /// (PIE), `aqm_drops` and `marks` (totals so far). DropTail and RED without ECN report none.
    /// CoDel and FQ-CoDel with `ce_threshold` also report `ce_marks`, and PIE with its L4S step
    /// `step_marks`: the part of `marks` that rule set.
    /// DualPI2 reports its base probability `prob_base` (p'), `prob_c` (p'^2) and `prob_l` (the
    /// coupled min(k p', 1)), and per queue (`c_`, `l_`) the length in packets, the head packet's
    /// waiting time `delay_s`, and the counters `in` (arrivals), `out` (sent), `drops` (overflow
    /// and AQM) and `marks`, with `l_step_marks`; `sojourn_s`, `aqm_drops` and `marks` are totals.
    pub fn inspect(&self, f: &mut dyn FnMut(&'static str, f64)) {
        match self {
            Qdisc::DropTail(_) => {}
            Qdisc::Red(r) => {
                if r.ecn() {
                    f("marks", r.marks as f64);
                }
            }
            Qdisc::Step(s) => f("marks", s.marks as f64),
            Qdisc::CoDel(c) => {
                f("sojourn_s", secs(c.state.last_sojourn));
                f("drop_state", f64::from(u8::from(c.state.dropping)));
                f("aqm_count", c.state.count as f64);
                f("aqm_drops", c.state.drops as f64);
                f("marks", c.state.marks as f64);
                if c.ce_threshold.is_some() {
                    f("ce_marks", c.state.ce_marks as f64);
                }
            }
            Qdisc::FqCodel(q) => {
                let (drops, marks, dropping) = q.aqm_counts();
                f("sojourn_s", secs(q.last_sojourn));
                f("drop_state", dropping as f64);
                f("aqm_drops", drops as f64);
                f("marks", marks as f64);
                if q.has_ce_threshold() {
                    f("ce_marks", q.ce_marks() as f64);
                }
            }
            Qdisc::Pie(p) => {
                f("sojourn_s", secs(p.qdelay));
                f("drop_prob", p.prob);
                f("aqm_drops", p.drops as f64);
                f("marks", p.marks as f64);
                if p.has_l4s_step() {
                    f("step_marks", p.step_marks as f64);
                }
            }
            Qdisc::DualPi2(d) => {
                let (c_delay, l_delay) = d.head_delays();
                let (c, l) = (&d.classic, &d.l4s);
                f("sojourn_s", secs(d.last_sojourn));
                f("prob_base", d.prob);
                f("prob_c", d.prob_classic());
                f("prob_l", d.prob_coupled());
                f("c_len_pkts", c.len() as f64);
                f("l_len_pkts", l.len() as f64);
                f("c_delay_s", secs(c_delay));
                f("l_delay_s", secs(l_delay));
                f("c_in", c.arrivals as f64);
                f("l_in", l.arrivals as f64);
                f("c_out", c.departures as f64);
                f("l_out", l.departures as f64);
                f("c_drops", (c.aqm_drops + c.overflow_drops) as f64);
                f("l_drops", (l.aqm_drops + l.overflow_drops) as f64);
                f("c_marks", c.marks as f64);
                f("l_marks", l.marks as f64);
                f("l_step_marks", d.step_marks as f64);
                f("aqm_drops", (c.aqm_drops + l.aqm_drops) as f64);
                f("marks", (c.marks + l.marks) as f64);
            }
        }
    }
}
