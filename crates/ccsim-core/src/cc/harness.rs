//! One algorithm driven without a network: a scripted sequence of sends, ACKs, duplicate ACKs,
//! losses, timeouts, ECN marks and elapsed time, with the window, pacing rate and the algorithm's
//! own state readable after each step. This is how a congestion control is unit-tested against
//! its specification (ns-3's TCP test suite calls the algorithm's hooks the same way; packetdrill
//! scripts a whole stack), and how ccsim's conformance checks meet published response functions.
//!
//! The harness stands in for the sender in the simplest case that still exercises every hook: one
//! bulk transfer whose segments are acknowledged in order (no SACK, no reordering), every
//! segment the same size. It keeps what the sender would hand the algorithm:
//!
//! - **Sequence space and flight**: [`Harness::send`] puts segments in flight ([`Harness::fill`]
//!   up to the window, as a cwnd-limited sender would), [`Harness::ack`] acknowledges the
//!   oldest. A lost segment stays in flight until acknowledged, as if retransmitted at once.
//! - **RTT**: each ACK may carry an RTT sample; srtt follows RFC 6298 (gains 1/8 and 1/4), the
//!   minimum and the round's statistics follow the sender's [`super::common::delay`] rules.
//! - **Rounds**: a round ends when the data outstanding at its start is acknowledged (the
//!   sender's `round_end = snd_max`).
//! - **Delivery rate** (Linux `tcp_rate.c`, in-order case): each segment is stamped when sent;
//!   the ACK's newest segment gives the sample (delivered since it left, over the longer of its
//!   send and ACK intervals; not valid below the minimum RTT).
//! - **States**, as the sender moves between them: a loss starts recovery, which ends (cwnd set
//!   to ssthresh, then [`CongestionControl::on_recovery_exit`]) when everything outstanding at
//!   its start is acknowledged; an ACK with CE marks is observed only and triggers at most one
//!   ECN reduction per window; a timeout sets cwnd to 1 and holds the `Loss` state for the
//!   data then outstanding. An algorithm that [sets cwnd on every
//!   ACK](CongestionControl::sets_cwnd_on_every_ack) sees every ACK and keeps its window in
//!   recovery.
//!
//! What it does not model: SACK scoreboards, PRR, window inflation, the receiver (ACK
//! frequency is the script's), pacing delays (the rate is read, not enforced).

use std::collections::VecDeque;

use super::common::delay::{DelaySample, RateSample, RoundRtt};
use super::{AckSample, CaState, CongestionControl, CongestionEvent, CongestionKind, Growth, SentSample, Window};
use crate::units::{Dur, Time};

/// What a reduction is computed from ([`CongestionEvent::basis`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionBasis {
    /// cwnd (Linux `tcp_reno_ssthresh`).
    Cwnd,
    /// The data in flight when the loss is detected (RFC 5681 eq. 4).
    Flight,
}

/// The sender's rules the harness applies, fixed for a run (the stack profile's).
#[derive(Clone, Copy, Debug)]
pub struct HarnessOptions {
    pub initial_cwnd: f64,
    pub initial_ssthresh: f64,
    pub growth: Growth,
    /// One unit of increase per ACK (ns-2), else one per segment acknowledged.
    pub per_ack_counting: bool,
    pub basis: ReductionBasis,
}

impl Default for HarnessOptions {
    /// Linux's: an initial window of 10, ssthresh infinite, growth per segment acknowledged,
    /// cwnd-limited gating, reductions from cwnd.
    fn default() -> Self {
        HarnessOptions {
            initial_cwnd: 10.0,
            initial_ssthresh: f64::INFINITY,
            growth: Growth { slow_start_cap: None, gating: true },
            per_ack_counting: false,
            basis: ReductionBasis::Cwnd,
        }
    }
}

/// A segment in flight, with the delivery state when it left (Linux `tcp_rate_skb_sent`).
#[derive(Clone, Copy, Debug)]
struct Stamp {
    sent_at: Time,
    delivered: u64,
    delivered_at: Time,
    first_sent: Time,
    app_limited: bool,
    in_flight: u64,
    lost: u64,
    delivered_ce: u64,
}

pub struct Harness {
    cc: Box<dyn CongestionControl>,
    w: Window,
    opts: HarnessOptions,
    every_ack: bool,
    watches_sends: bool,
    now: Time,
    /// Oldest unacknowledged segment and the next to send.
    snd_una: u64,
    snd_nxt: u64,
    stamps: VecDeque<Stamp>,
    delivered: u64,
    delivered_at: Time,
    first_sent: Time,
    delivered_ce: u64,
    lost: u64,
    /// The flight is app-limited until this many segments are delivered (0: it is not).
    app_limited_until: u64,
    srtt: Option<Dur>,
    rttvar: Dur,
    latest_rtt: Dur,
    min_rtt: Option<Dur>,
    max_rtt: Dur,
    round_rtt: RoundRtt,
    round: u64,
    round_end: u64,
    ca_state: CaState,
    /// The state ends when snd_una reaches this.
    recover: u64,
    /// ECN reduces at most once per window: not again until snd_una passes this.
    ecn_reduced_at: Option<u64>,
    /// Expiries since snd_una last advanced.
    timeouts: u32,
    /// The window before the latest reduction (what [`Harness::undo`] hands the algorithm).
    prior: Window,
    pub cwnd_limited: bool,
    last_ack: Option<AckSample>,
}

/// A step the harness refused: the script asked for something the transfer cannot do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError(pub String);

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScriptError {}

impl Harness {
    pub fn new(cc: Box<dyn CongestionControl>, opts: HarnessOptions) -> Self {
        let w = Window { cwnd: opts.initial_cwnd, ssthresh: opts.initial_ssthresh };
        let every_ack = cc.sets_cwnd_on_every_ack();
        let watches_sends = cc.watches_sends();
        Harness {
            cc,
            w,
            opts,
            every_ack,
            watches_sends,
            now: 0,
            snd_una: 0,
            snd_nxt: 0,
            stamps: VecDeque::new(),
            delivered: 0,
            delivered_at: 0,
            first_sent: 0,
            delivered_ce: 0,
            lost: 0,
            app_limited_until: 0,
            srtt: None,
            rttvar: 0,
            latest_rtt: 0,
            min_rtt: None,
            max_rtt: 0,
            round_rtt: RoundRtt::default(),
            round: 0,
            round_end: 0,
            ca_state: CaState::Open,
            recover: 0,
            ecn_reduced_at: None,
            timeouts: 0,
            prior: w,
            cwnd_limited: true,
            last_ack: None,
        }
    }

    /// The sample the latest [`Harness::ack`] handed the algorithm.
    pub fn last_ack(&self) -> Option<&AckSample> {
        self.last_ack.as_ref()
    }

    pub fn window(&self) -> Window {
        self.w
    }

    /// Set the window, as a test's starting point.
    pub fn set_window(&mut self, w: Window) {
        self.w = w;
    }

    pub fn now(&self) -> Time {
        self.now
    }

    pub fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    pub fn round(&self) -> u64 {
        self.round
    }

    pub fn ca_state(&self) -> CaState {
        self.ca_state
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }

    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }

    pub fn pacing_rate(&self) -> Option<f64> {
        self.cc.pacing_rate()
    }

    pub fn name(&self) -> &'static str {
        self.cc.name()
    }

    /// The algorithm's own state ([`CongestionControl::inspect`]) now.
    pub fn inspect(&self) -> Vec<(&'static str, f64)> {
        let mut out = Vec::new();
        self.cc.inspect(self.now, &mut |name, value| out.push((name, value)));
        out
    }

    /// Let `dt` pass.
    pub fn elapse(&mut self, dt: Dur) {
        self.now += dt;
    }

    /// Send `segments` new segments now, whatever the window says.
    pub fn send(&mut self, segments: u64) {
        for _ in 0..segments {
            if self.snd_nxt == self.snd_una {
                // Linux `tcp_rate_skb_sent`: a send into an empty flight opens the interval.
                self.first_sent = self.now;
                self.delivered_at = self.now;
            }
            self.snd_nxt += 1;
            self.stamps.push_back(Stamp {
                sent_at: self.now,
                delivered: self.delivered,
                delivered_at: self.delivered_at,
                first_sent: self.first_sent,
                app_limited: self.app_limited_until > 0,
                in_flight: self.in_flight(),
                lost: self.lost,
                delivered_ce: self.delivered_ce,
            });
            if self.watches_sends {
                let sent = SentSample {
                    now: self.now,
                    seq: (self.snd_nxt - 1) as u32,
                    retransmission: false,
                    in_flight: self.in_flight() as f64,
                };
                self.cc.on_sent(&sent);
            }
        }
    }

    /// Send new segments until the flight reaches the window (its whole part). Returns how many.
    pub fn fill(&mut self) -> u64 {
        let room = (self.w.cwnd.floor() as u64).saturating_sub(self.in_flight());
        self.send(room);
        room
    }

    /// One round trip of a cwnd-limited, ACK-clocked sender: fill the window, then acknowledge
    /// each segment then in flight one `rtt` after it left (time moves to that instant), one
    /// ACK per segment carrying that RTT, refilling the window after each; the first `marks`
    /// of these ACKs report their segment CE-marked. Returns the ACKs.
    pub fn round_trip(&mut self, rtt: Dur, marks: u64) -> u64 {
        self.fill();
        let n = self.in_flight();
        for i in 0..n {
            let due = self.stamps.front().map_or(self.now, |s| s.sent_at + rtt);
            self.now = self.now.max(due);
            self.ack(1, Some(rtt), u64::from(i < marks)).expect("a segment is in flight");
            self.fill();
        }
        n
    }

    /// The flight is app-limited from now until it has been delivered (Linux `tp->app_limited`).
    pub fn mark_app_limited(&mut self) {
        self.app_limited_until = (self.delivered + self.in_flight()).max(1);
    }

    /// An ACK of the `segments` oldest outstanding segments, `ce` of them CE-marked as the
    /// receiver reports (ECN-Echo when `ce` > 0), with an RTT sample if `rtt` is given.
    pub fn ack(&mut self, segments: u64, rtt: Option<Dur>, ce: u64) -> Result<(), ScriptError> {
        if segments == 0 {
            return Err(ScriptError("ack: segments must be at least 1 (a duplicate ACK is dupack())".into()));
        }
        if segments > self.in_flight() {
            return Err(ScriptError(format!(
                "ack: {segments} segments acknowledged but only {} in flight (send them first)",
                self.in_flight()
            )));
        }
        if ce > segments {
            return Err(ScriptError(format!("ack: ce = {ce} marks on an ACK of {segments} segments")));
        }
        let prior_in_flight = self.in_flight() as f64;
        self.snd_una += segments;
        self.timeouts = 0;
        self.delivered += segments;
        self.delivered_at = self.now;
        self.delivered_ce += ce;
        let mut newest = None;
        for _ in 0..segments {
            newest = self.stamps.pop_front();
        }
        if self.app_limited_until > 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        if let Some(r) = rtt {
            self.rtt_sample(r);
        }
        let round_start = self.snd_una >= self.round_end;
        if round_start {
            self.round += 1;
            self.round_end = self.snd_nxt.max(self.snd_una + 1);
        }
        let latest = rtt.unwrap_or(self.latest_rtt);
        // On a round-start ACK the summary is the round that just ended, this sample included;
        // the next ACK's starts afresh (the sender's rule).
        let delay = DelaySample {
            latest,
            base: self.min_rtt.unwrap_or(0),
            max: self.max_rtt,
            round: self.round_rtt,
            one_way_delay: None,
            rate: newest.map(|s| self.rate_sample(&s)),
            delivered: self.delivered,
            delivered_ce: self.delivered_ce,
        };
        if let Some(s) = newest {
            // Linux `tcp_rate_skb_delivered`: the next send interval starts at this one's send.
            self.first_sent = s.sent_at;
        }
        if round_start {
            self.round_rtt = RoundRtt::default();
        }
        let sample = self.sample(segments, rtt, latest, delay, prior_in_flight, round_start, ce);
        self.last_ack = Some(sample);
        let ece = ce > 0;
        if self.every_ack {
            self.cc.on_ack(&sample, &mut self.w);
            self.poll_app_limited();
            self.end_states();
            return Ok(());
        }
        match self.ca_state {
            CaState::Recovery => {
                self.cc.on_ack_in_recovery(&sample);
            }
            _ if ece => {
                self.cc.on_ack_in_recovery(&sample);
                if self.ecn_reduced_at.is_none_or(|at| self.snd_una > at) {
                    self.ecn_reduced_at = Some(self.snd_nxt);
                    self.congestion(CongestionKind::Ecn);
                    if self.ca_state == CaState::Open {
                        self.ca_state = CaState::Cwr;
                        self.recover = self.snd_nxt + 1;
                    }
                }
            }
            _ => {
                self.cc.on_ack(&sample, &mut self.w);
                self.poll_app_limited();
            }
        }
        self.end_states();
        Ok(())
    }

    /// A duplicate ACK: one more segment left the network.
    pub fn dupack(&mut self) {
        self.cc.on_dupack(self.now);
        if self.every_ack {
            let delay = DelaySample {
                latest: self.latest_rtt,
                base: self.min_rtt.unwrap_or(0),
                max: self.max_rtt,
                round: self.round_rtt,
                one_way_delay: None,
                rate: None,
                delivered: self.delivered,
                delivered_ce: self.delivered_ce,
            };
            let mut sample = self.sample(0, None, self.latest_rtt, delay, self.in_flight() as f64, false, 0);
            sample.delivered_now = 1.0;
            self.cc.on_ack(&sample, &mut self.w);
        }
    }

    /// A loss is detected (fast retransmit): a recovery episode starts, unless one is under way.
    pub fn loss(&mut self) {
        if self.ca_state == CaState::Recovery {
            return;
        }
        self.lost += 1;
        self.congestion(CongestionKind::Loss);
        self.ca_state = CaState::Recovery;
        self.recover = self.snd_nxt;
    }

    /// The retransmission timer expires: the algorithm's timeout reaction, then cwnd = 1.
    pub fn timeout(&mut self) {
        self.lost += self.in_flight();
        self.congestion(CongestionKind::Timeout);
        self.timeouts += 1;
        self.w.cwnd = 1.0;
        self.ca_state = CaState::Loss;
        self.recover = self.snd_nxt;
    }

    /// The latest reduction proved spurious: the algorithm's undo, ssthresh restored.
    pub fn undo(&mut self) {
        self.w.cwnd = self.cc.undo_cwnd(self.now, &self.w, self.prior.cwnd);
        self.w.ssthresh = self.w.ssthresh.max(self.prior.ssthresh);
        self.ca_state = CaState::Open;
    }

    fn congestion(&mut self, kind: CongestionKind) {
        self.prior = self.w;
        let in_flight = self.in_flight() as f64;
        let ev = CongestionEvent {
            now: self.now,
            kind,
            in_flight,
            basis: match self.opts.basis {
                ReductionBasis::Cwnd => self.w.cwnd,
                ReductionBasis::Flight => in_flight,
            },
            first_timeout: self.timeouts == 0,
            srtt: self.srtt.unwrap_or(0),
            min_rtt: self.min_rtt.unwrap_or(0),
        };
        self.cc.on_congestion(&ev, &mut self.w);
    }

    /// Leave recovery, CWR or Loss once everything outstanding at their start is acknowledged.
    fn end_states(&mut self) {
        if self.ca_state == CaState::Open || self.snd_una < self.recover {
            return;
        }
        if self.ca_state == CaState::Recovery && !self.every_ack {
            self.w.cwnd = self.w.ssthresh;
        }
        let ended = self.ca_state;
        self.ca_state = CaState::Open;
        if ended == CaState::Recovery {
            self.cc.on_recovery_exit(self.now, &mut self.w);
        }
    }

    fn poll_app_limited(&mut self) {
        if (self.watches_sends || self.every_ack) && self.cc.take_app_limited() {
            self.mark_app_limited();
        }
    }

    /// RFC 6298's estimator, and the minimum, maximum and round statistics.
    fn rtt_sample(&mut self, r: Dur) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        self.latest_rtt = r;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.max_rtt = self.max_rtt.max(r);
        self.round_rtt.sample(r);
    }

    fn rate_sample(&self, s: &Stamp) -> RateSample {
        let send_interval = s.sent_at.saturating_sub(s.first_sent);
        let ack_interval = self.now.saturating_sub(s.delivered_at);
        let interval = send_interval.max(ack_interval);
        RateSample {
            delivered: self.delivered - s.delivered,
            interval,
            app_limited: s.app_limited,
            retransmission: false,
            prior_delivered: s.delivered,
            tx_in_flight: s.in_flight,
            lost: self.lost - s.lost,
            delivered_ce: self.delivered_ce - s.delivered_ce,
            valid: interval > 0 && self.min_rtt.is_none_or(|m| interval >= m),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn sample(
        &self,
        segments: u64,
        rtt: Option<Dur>,
        latest: Dur,
        delay: DelaySample,
        prior_in_flight: f64,
        round_start: bool,
        ce: u64,
    ) -> AckSample {
        AckSample {
            now: self.now,
            acked: segments as f64,
            increase_units: if self.opts.per_ack_counting && segments > 0 { 1.0 } else { segments as f64 },
            rtt,
            ca_rtt: rtt,
            srtt: self.srtt.unwrap_or(0),
            min_rtt: self.min_rtt.unwrap_or(0),
            one_way_delay: None,
            delay,
            echoed_ts: self.now.saturating_sub(latest),
            prior_in_flight,
            in_flight: self.in_flight() as f64,
            delivered: self.delivered,
            round_start,
            round: self.round,
            cwnd_limited: self.cwnd_limited,
            growth: self.opts.growth,
            ece: ce > 0,
            delivered_now: segments as f64,
            newly_lost: 0.0,
            ca_state: self.ca_state,
            ce_delivered: ce as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry;
    use crate::units::NS_PER_MS;
    use std::collections::BTreeMap;

    const MS: Dur = NS_PER_MS;

    fn harness(name: &str) -> Harness {
        let rng = crate::rng::stream(1, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion);
        Harness::new(registry::build(name, &BTreeMap::new(), rng).unwrap(), HarnessOptions::default())
    }

    /// One round: fill the window, let an RTT pass, acknowledge it segment by segment.
    fn round(h: &mut Harness, rtt: Dur) {
        let n = h.fill();
        h.elapse(rtt);
        for _ in 0..n {
            h.ack(1, Some(rtt), 0).unwrap();
        }
    }

    #[test]
    fn reno_doubles_per_round_in_slow_start_and_adds_one_in_congestion_avoidance() {
        let mut h = harness("reno");
        round(&mut h, 100 * MS);
        assert_eq!(h.window().cwnd, 20.0);
        round(&mut h, 100 * MS);
        assert_eq!(h.window().cwnd, 40.0);
        h.set_window(Window { cwnd: 40.0, ssthresh: 40.0 });
        round(&mut h, 100 * MS);
        // 40 ACKs of 1/cwnd each: a little under one segment (the window grows as it goes).
        let cwnd = h.window().cwnd;
        assert!(cwnd > 40.97 && cwnd <= 41.0, "{cwnd}");
    }

    #[test]
    fn a_loss_halves_and_recovery_ends_at_ssthresh_when_the_flight_is_acknowledged() {
        let mut h = harness("reno");
        h.set_window(Window { cwnd: 20.0, ssthresh: 10.0 });
        h.fill();
        h.elapse(100 * MS);
        h.loss();
        assert_eq!((h.window().ssthresh, h.ca_state()), (10.0, CaState::Recovery));
        h.ack(19, Some(100 * MS), 0).unwrap();
        assert_eq!(h.ca_state(), CaState::Recovery);
        h.ack(1, Some(100 * MS), 0).unwrap();
        assert_eq!((h.window().cwnd, h.ca_state()), (10.0, CaState::Open));
    }

    #[test]
    fn a_timeout_sets_cwnd_to_one_and_only_the_first_lowers_ssthresh() {
        let mut h = harness("reno");
        h.set_window(Window { cwnd: 20.0, ssthresh: f64::INFINITY });
        h.fill();
        h.timeout();
        assert_eq!((h.window().cwnd, h.window().ssthresh, h.ca_state()), (1.0, 10.0, CaState::Loss));
        h.timeout();
        assert_eq!(h.window().ssthresh, 10.0);
    }

    #[test]
    fn ecn_marks_reduce_once_per_window() {
        let mut h = harness("dctcp");
        h.set_window(Window { cwnd: 20.0, ssthresh: 20.0 });
        h.fill();
        h.elapse(10 * MS);
        // alpha starts at 1: the first marked ACK halves; the next in the same window does not.
        h.ack(1, Some(10 * MS), 1).unwrap();
        assert_eq!((h.window().cwnd, h.ca_state()), (10.0, CaState::Cwr));
        h.ack(1, Some(10 * MS), 1).unwrap();
        assert_eq!(h.window().cwnd, 10.0);
    }

    #[test]
    fn a_script_that_acknowledges_unsent_data_is_refused() {
        let mut h = harness("reno");
        h.send(2);
        let err = h.ack(3, None, 0).unwrap_err();
        assert!(err.0.contains("only 2 in flight"), "{err}");
        assert!(h.ack(1, None, 2).is_err());
    }

    #[test]
    fn the_delivery_rate_of_an_ack_clocked_flight_is_its_window_over_the_rtt() {
        // 10 segments, then one new segment per ACK; ACKs 2 ms apart, 20 ms after each send:
        // from the second flight on, each sample is 10 segments over 20 ms of sending and of
        // ACKs, 500 segments per second.
        let mut h = harness("reno");
        h.set_window(Window { cwnd: 10.0, ssthresh: 10.0 });
        h.cwnd_limited = false; // no growth: the window stays 10
        let mut sent_at = VecDeque::new();
        for i in 0..10 {
            h.send(1);
            sent_at.push_back(i * 2 * MS);
            h.elapse(2 * MS);
        }
        let mut rates = Vec::new();
        for _ in 0..30 {
            let sent = sent_at.pop_front().unwrap();
            h.elapse((sent + 20 * MS).saturating_sub(h.now()));
            h.ack(1, Some(20 * MS), 0).unwrap();
            rates.push(h.last_ack().unwrap().delay.rate.unwrap());
            h.send(1);
            sent_at.push_back(h.now());
        }
        let last = rates.last().unwrap();
        assert_eq!((last.delivered, last.interval, last.valid), (10, 20 * MS, true));
        assert_eq!(last.rate(), Some(500.0));
        // The first ACK's segment left before anything was delivered: 1 over 20 ms.
        assert_eq!((rates[0].delivered, rates[0].interval), (1, 20 * MS));
    }
}
