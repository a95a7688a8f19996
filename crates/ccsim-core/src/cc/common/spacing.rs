//! Transmission timing of Paced and Randomized TCP, written once for [`super::super::paced`],
//! [`super::super::randomized`] and randomized [`super::super::binomial`].
//!
//! Paced TCP (Aggarwal, Savage, Anderson, INFOCOM 2000) sends one segment every `srtt / cwnd`
//! from a timer. Randomized TCP (seed 000: Kulkarni et al.; docs/algorithms.md, "randomized")
//! draws each gap as `srtt (1 + x) / cwnd`, x ~ U[-I, I], and adds one rule: when the timer fires
//! but the window forbids a send, the next ACK schedules that send after a further
//! `srtt y / cwnd`, y ~ U(0, I).
//! With I = 0 both draws vanish and the two schemes coincide (the deferral is then "send at the
//! ACK", which is Paced TCP's `max(now, next_send_time)`).
//!
//! The paper's timer runs after every send whether or not the window will allow the next one;
//! ccsim's sender only arms it when the window allows a send (and reports a closed window through
//! `on_send_blocked` when the window shrank meanwhile). So the "timer found the window closed"
//! case is also recognised here when the window closed right after a send (no timer armed) and
//! the sender next asks past the due time: had the window been open at the due time, the sender
//! would have asked before it and sent at it.
//!
//! The gap is recomputed from the current srtt and cwnd each time the sender asks (a halved
//! window doubles the interval at once); only the random factor (1 + x) is fixed when the previous
//! segment leaves. Times are integer nanoseconds, no coarse tick (a tick would bunch the gaps).

use super::super::PacingContext;
use crate::rng::{uniform, Stream};
use crate::units::{Dur, Time};

#[derive(Clone, Debug)]
pub struct Spacing {
    /// The randomization interval I (0 = Paced TCP).
    spread: f64,
    rng: Stream,
    /// When the previous segment left, and the factor (1 + x) of the gap that follows it.
    last_sent: Option<Time>,
    factor: f64,
    /// The send time drawn by the after-ACK rule, until that segment leaves.
    deferred: Option<Time>,
    /// The sender's pacing timer fired while the window was closed.
    blocked: bool,
    /// Since the last send, a future time was returned while the window was open (the sender
    /// armed its timer for it).
    armed: bool,
}

impl Spacing {
    pub fn new(spread: f64, rng: Stream) -> Self {
        Spacing { spread, rng, last_sent: None, factor: 1.0, deferred: None, blocked: false, armed: false }
    }

    /// `srtt * factor / cwnd`, rounded to the nearest nanosecond.
    fn gap(srtt: Dur, cwnd: f64, factor: f64) -> Dur {
        (srtt as f64 * factor / cwnd.max(1.0)).round() as Dur
    }

    /// Earliest time the next segment may leave (`None` = now). No srtt yet, or nothing sent
    /// yet: unpaced, so the connection can start.
    pub fn next_send_time(&mut self, ctx: &PacingContext) -> Option<Time> {
        let last = self.last_sent?;
        if ctx.srtt == 0 {
            return None;
        }
        if let Some(at) = self.deferred {
            return Some(at);
        }
        let due = last + Self::gap(ctx.srtt, ctx.window.cwnd, self.factor);
        if ctx.now < due {
            // The window is open now, so the sender arms its timer for `due`.
            self.armed = true;
            return Some(due);
        }
        // Past the due time. If the sender's timer was armed (the window was open after the last
        // send) and did not report a closed window, the window is still open: send. Otherwise the
        // timer found the window closed, and this call comes from the ACK that opened it.
        let timer_found_window_closed = self.blocked || (!self.armed && ctx.now > due);
        if !timer_found_window_closed {
            return Some(due);
        }
        // Randomized TCP waits a further srtt y / cwnd, y ~ U(0, I).
        self.blocked = false;
        let y = self.spread * uniform(&mut self.rng);
        let at = ctx.now + Self::gap(ctx.srtt, ctx.window.cwnd, y);
        self.deferred = Some(at);
        Some(at)
    }

    /// A segment left: draw the factor of the gap after it, x ~ U[-I, I].
    pub fn on_sent(&mut self, now: Time) {
        let x = self.spread * (2.0 * uniform(&mut self.rng) - 1.0);
        self.last_sent = Some(now);
        self.factor = 1.0 + x;
        self.deferred = None;
        self.armed = false;
    }

    /// The pacing timer fired but the window did not allow a send (a deferred send included:
    /// the ACK that opens the window draws a new deferral).
    pub fn on_send_blocked(&mut self) {
        self.blocked = true;
        self.deferred = None;
    }

    /// After a retransmission timeout the retransmission leaves at once (it is not ACK-clocked
    /// and the old schedule belongs to a window that no longer exists).
    pub fn restart(&mut self) {
        self.last_sent = None;
        self.deferred = None;
        self.blocked = false;
        self.armed = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::Window;
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    const SRTT: Dur = 100_000_000; // 100 ms

    fn ctx(now: Time, cwnd: f64) -> PacingContext {
        PacingContext { now, window: Window { cwnd, ssthresh: 1e9 }, srtt: SRTT, in_flight: 0.0 }
    }

    fn spacing(spread: f64) -> Spacing {
        Spacing::new(spread, stream(1, Entity::Flow, 0, Purpose::Congestion))
    }

    /// Send `n` segments with the window always open, as the sender would: ask, wait until the
    /// answer, ask again (which must now say "go"), send. Returns the gaps.
    fn open_window_gaps(s: &mut Spacing, n: usize, cwnd: f64) -> Vec<Dur> {
        let mut now = 1_000;
        assert_eq!(s.next_send_time(&ctx(now, cwnd)), None, "the first segment is unpaced");
        s.on_sent(now);
        let mut gaps = Vec::with_capacity(n);
        for _ in 0..n {
            let at = s.next_send_time(&ctx(now, cwnd)).unwrap();
            assert!(at >= now);
            assert_eq!(s.next_send_time(&ctx(at, cwnd)), Some(at), "due now: send");
            gaps.push(at - now);
            now = at;
            s.on_sent(now);
        }
        gaps
    }

    #[test]
    fn without_an_srtt_nothing_is_paced() {
        let mut s = spacing(1.0);
        s.on_sent(0);
        let mut c = ctx(5, 10.0);
        c.srtt = 0;
        assert_eq!(s.next_send_time(&c), None);
    }

    #[test]
    fn interval_zero_spaces_segments_exactly_srtt_over_cwnd() {
        let gaps = open_window_gaps(&mut spacing(0.0), 50, 8.0);
        assert!(gaps.iter().all(|&g| g == SRTT / 8), "{gaps:?}");
        // A window that is not a divisor: rounded to the nearest nanosecond.
        let gaps = open_window_gaps(&mut spacing(0.0), 10, 3.0);
        assert!(gaps.iter().all(|&g| g == 33_333_333), "{gaps:?}");
    }

    #[test]
    fn interval_one_spreads_gaps_over_zero_to_twice_the_paced_gap_with_the_same_mean() {
        let n = 20_000;
        let gaps = open_window_gaps(&mut spacing(1.0), n, 10.0);
        let paced = (SRTT / 10) as f64;
        assert!(gaps.iter().all(|&g| g as f64 <= 2.0 * paced), "a gap above 2 srtt/cwnd");
        let mean = gaps.iter().sum::<u64>() as f64 / n as f64;
        // U[0, 2 g]: standard deviation g / sqrt(3), so the mean of 20 000 is within 1% (2.5 sd).
        assert!((mean / paced - 1.0).abs() < 0.01, "mean gap {mean} vs {paced}");
        let short = gaps.iter().filter(|&&g| (g as f64) < 0.5 * paced).count() as f64 / n as f64;
        assert!((short - 0.25).abs() < 0.02, "{short} of gaps below half the paced gap (expected 1/4)");
    }

    #[test]
    fn half_interval_keeps_gaps_within_half_to_three_halves() {
        let gaps = open_window_gaps(&mut spacing(0.5), 5_000, 10.0);
        let paced = (SRTT / 10) as f64;
        assert!(gaps.iter().all(|&g| (0.5 * paced..=1.5 * paced).contains(&(g as f64))));
    }

    #[test]
    fn the_gap_follows_the_current_window() {
        let mut s = spacing(0.0);
        s.on_sent(0);
        assert_eq!(s.next_send_time(&ctx(0, 10.0)), Some(SRTT / 10));
        // The window halved before the timer fired: the interval doubles at once.
        assert_eq!(s.next_send_time(&ctx(1, 5.0)), Some(SRTT / 5));
    }

    /// The timer fires at the due time with the window closed (the sender reports it); the ACK
    /// that opens the window schedules the send a further srtt y / cwnd later, y ~ U(0, I).
    #[test]
    fn a_blocked_timer_defers_the_send_after_the_next_ack() {
        let cwnd = 10.0;
        let bound = SRTT as f64 / cwnd; // I * srtt / cwnd with I = 1
        let mut delays = Vec::new();
        let mut s = spacing(1.0);
        let mut now = 0;
        for _ in 0..2_000 {
            s.on_sent(now);
            let due = s.next_send_time(&ctx(now, cwnd)).unwrap();
            s.on_send_blocked();
            let ack = due + 3_000_000; // the ACK that opens the window, 3 ms later
            let at = s.next_send_time(&ctx(ack, cwnd)).unwrap();
            let d = (at - ack) as f64;
            assert!(d > 0.0 && d < bound, "delay {d} not in (0, {bound})");
            // Later ACKs before that time keep the same schedule; at that time: send.
            assert_eq!(s.next_send_time(&ctx(ack + 1, cwnd)), Some(at));
            assert_eq!(s.next_send_time(&ctx(at, cwnd)), Some(at));
            delays.push(d);
            now = at;
        }
        let mean = delays.iter().sum::<f64>() / delays.len() as f64;
        assert!((mean / (bound / 2.0) - 1.0).abs() < 0.05, "mean delay {mean}, expected {}", bound / 2.0);
    }

    /// The same rule when the sender never armed a timer (the window closed right after the
    /// send, so it did not ask): the ACK that opens the window comes after the due time.
    #[test]
    fn an_ack_after_the_due_time_counts_as_a_blocked_timer() {
        let mut s = spacing(1.0);
        s.on_sent(0);
        let ack = SRTT / 4 * 2; // the paced gap at cwnd 4 is SRTT / 4; even x = +1 has passed
        let at = s.next_send_time(&ctx(ack, 4.0)).unwrap();
        assert!(at > ack && ((at - ack) as f64) < SRTT as f64 / 4.0, "{at} {ack}");
        // Paced TCP sends at that ACK: max(now, next_send_time).
        let mut p = spacing(0.0);
        p.on_sent(0);
        assert_eq!(p.next_send_time(&ctx(SRTT, 4.0)), Some(SRTT));
        // An armed timer that finds the window open is not a closed window: send at once.
        let mut q = spacing(1.0);
        q.on_sent(0);
        let due = q.next_send_time(&ctx(0, 4.0)).unwrap();
        assert_eq!(q.next_send_time(&ctx(due + 5, 4.0)), Some(due));
        // The sender reports it closed: the ACK that opens it draws a deferral.
        q.on_send_blocked();
        let at = q.next_send_time(&ctx(due + 9, 4.0)).unwrap();
        assert!(at > due + 9);
    }

    #[test]
    fn restart_sends_at_once() {
        let mut s = spacing(1.0);
        s.on_sent(0);
        s.restart();
        assert_eq!(s.next_send_time(&ctx(10, 1.0)), None);
    }
}
