//! The sender's one retransmission timer and what it is armed for.
//!
//! Under RACK-TLP (RFC 8985) a sender needs three timers that are never wanted at once in their
//! own right: the retransmission timeout, the tail loss probe's timeout (PTO) and RACK's
//! reordering timer. Linux keeps them on one timer with a tag saying which is pending
//! (`icsk_pending`: ICSK_TIME_RETRANS, ICSK_TIME_LOSS_PROBE, ICSK_TIME_REO_TIMEOUT); so does this
//! one, on the sender's one [`LazyTimer`] and its one event kind ([`crate::event::TimerKind::Retransmit`]).
//!
//! The retransmission timeout keeps its own deadline, set and cancelled exactly as when it is the
//! timer's only duty (every procedure but RACK-TLP never sets another, and then the timer is the
//! plain RFC 6298 one, event for event). A probe or reordering deadline ([`RetransmitTimer::set_early`]) lies
//! over it while it is no later: the timer then fires for that duty, and is armed again for the
//! timeout afterwards. A probe due exactly when the timeout is goes out as a probe (RFC 8985
//! section 7.2 caps the PTO at the time left to the RTO so that the probe comes first).

use crate::event::{Event, EventQueue, LazyTimer};
use crate::units::Time;

/// What the timer fires for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerDuty {
    /// The retransmission timeout (RFC 6298).
    Retransmission,
    /// The tail loss probe's timeout (RFC 8985 section 7).
    LossProbe,
    /// RACK's reordering window has passed for a segment still unacknowledged (RFC 8985
    /// section 6.2 step 5).
    Reordering,
}

#[derive(Clone, Debug, Default)]
pub struct RetransmitTimer {
    timer: LazyTimer,
    /// When the retransmission timeout is due, whatever the timer fires for first.
    rto_at: Option<Time>,
    /// A loss probe or the reordering window, when one is wanted.
    early: Option<(Time, TimerDuty)>,
}

impl RetransmitTimer {
    /// When the timer fires next, for whatever duty.
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        self.timer.deadline()
    }

    /// What the timer fires for next.
    pub fn duty(&self) -> Option<TimerDuty> {
        self.next().map(|(_, duty)| duty)
    }

    /// When the retransmission timeout is due.
    #[inline]
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_at
    }

    #[inline]
    pub fn is_rto_armed(&self) -> bool {
        self.rto_at.is_some()
    }

    /// (Re)start the retransmission timeout, due at `at`.
    #[inline]
    pub fn set_rto(&mut self, at: Time, q: &mut EventQueue, event: Event) {
        self.rto_at = Some(at);
        if self.early.is_none() {
            self.timer.set(at, q, event);
        } else {
            self.apply(q, event);
        }
    }

    /// Nothing is outstanding: no duty is left.
    #[inline]
    pub fn cancel(&mut self) {
        self.rto_at = None;
        self.early = None;
        self.timer.cancel();
    }

    /// The loss probe or reordering deadline wanted now (`None`: neither).
    pub fn set_early(&mut self, early: Option<(Time, TimerDuty)>, q: &mut EventQueue, event: Event) {
        if self.early != early {
            self.early = early;
            self.apply(q, event);
        }
    }

    /// The duty due first and when.
    fn next(&self) -> Option<(Time, TimerDuty)> {
        match (self.early, self.rto_at) {
            (Some((at, duty)), Some(rto)) if at <= rto => Some((at, duty)),
            (_, Some(rto)) => Some((rto, TimerDuty::Retransmission)),
            (early, None) => early,
        }
    }

    fn apply(&mut self, q: &mut EventQueue, event: Event) {
        match self.next() {
            Some((at, _)) => self.timer.set(at, q, event),
            None => self.timer.cancel(),
        }
    }

    /// An event of this timer fires at `now`: the duty that is due, if any. A timeout ends every
    /// other duty; after a probe or the reordering timer the timeout stays armed.
    #[inline]
    pub fn fire(&mut self, now: Time, q: &mut EventQueue, event: Event) -> Option<TimerDuty> {
        if !self.timer.fire(now, q, event) {
            return None;
        }
        if self.early.is_none() {
            self.rto_at = None;
            return Some(TimerDuty::Retransmission);
        }
        self.fire_with_early_duty(q, event)
    }

    #[inline(never)]
    fn fire_with_early_duty(&mut self, q: &mut EventQueue, event: Event) -> Option<TimerDuty> {
        let (_, duty) = self.next()?;
        if duty == TimerDuty::Retransmission {
            self.rto_at = None;
            self.early = None;
        } else {
            self.early = None;
            self.apply(q, event);
        }
        Some(duty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::TimerKind;

    const EV: Event = Event::Timer { flow: 0, kind: TimerKind::Retransmit };

    /// Fire every event of the queue in order; the duties that came due, with their times.
    fn run(timer: &mut RetransmitTimer, q: &mut EventQueue) -> Vec<(Time, TimerDuty)> {
        let mut fired = vec![];
        while let Some((t, _)) = q.pop() {
            if let Some(duty) = timer.fire(t, q, EV) {
                fired.push((t, duty));
            }
        }
        fired
    }

    #[test]
    fn an_earlier_duty_fires_first_and_the_timeout_stays_armed() {
        let (mut timer, mut q) = (RetransmitTimer::default(), EventQueue::default());
        timer.set_rto(100, &mut q, EV);
        timer.set_early(Some((40, TimerDuty::LossProbe)), &mut q, EV);
        assert_eq!((timer.deadline(), timer.duty()), (Some(40), Some(TimerDuty::LossProbe)));
        assert_eq!(run(&mut timer, &mut q), vec![(40, TimerDuty::LossProbe), (100, TimerDuty::Retransmission)]);
        assert_eq!(timer.deadline(), None);
    }

    #[test]
    fn a_probe_due_with_the_timeout_goes_first_and_a_later_one_waits_for_it() {
        let (mut timer, mut q) = (RetransmitTimer::default(), EventQueue::default());
        timer.set_rto(100, &mut q, EV);
        timer.set_early(Some((100, TimerDuty::LossProbe)), &mut q, EV);
        assert_eq!(run(&mut timer, &mut q), vec![(100, TimerDuty::LossProbe), (100, TimerDuty::Retransmission)]);
        // A reordering deadline after the timeout: the timeout fires and ends it.
        timer.set_rto(200, &mut q, EV);
        timer.set_early(Some((250, TimerDuty::Reordering)), &mut q, EV);
        assert_eq!(run(&mut timer, &mut q), vec![(200, TimerDuty::Retransmission)]);
    }

    #[test]
    fn without_another_duty_it_is_the_plain_timer() {
        let (mut timer, mut q) = (RetransmitTimer::default(), EventQueue::default());
        timer.set_rto(100, &mut q, EV);
        timer.set_rto(150, &mut q, EV);
        assert_eq!(run(&mut timer, &mut q), vec![(150, TimerDuty::Retransmission)]);
        timer.set_rto(300, &mut q, EV);
        timer.cancel();
        assert_eq!(run(&mut timer, &mut q), vec![]);
    }
}
