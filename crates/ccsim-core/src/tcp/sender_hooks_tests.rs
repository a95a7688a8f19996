//! The hooks a rate-based algorithm (BBR) needs, as packet exchanges: pacing by the algorithm's
//! rate, an algorithm that sets cwnd on every ACK in every state, app-limited marking on request,
//! and what each ACK's sample says about deliveries, losses and ECN marks.

use std::sync::{Arc, Mutex};

use crate::cc::{AckSample, CaState, CongestionControl, CongestionEvent, CongestionKind, RecoveryProcedure, Window};
use crate::event::{Event, TimerKind};
use crate::net::packet::{ecn, Packet, PacketKind};
use crate::profile::Profile;
use crate::tcp::recovery::prr::PrrMode;
use crate::tcp::recovery::sender_harness::{new_data, rtx, SenderHarness, MS};
use crate::units::Time;

/// What the algorithm saw.
#[derive(Default)]
struct Seen {
    acks: Vec<AckSample>,
    congestion: Vec<CongestionKind>,
    recovery_exits: u32,
}

/// A test algorithm: holds cwnd at `cwnd` (set on each `on_ack`), paces at `pacing` and asks
/// for app-limited marking on its `app_limited_at`-th ACK (1-based).
struct Hooked {
    seen: Arc<Mutex<Seen>>,
    every_ack: bool,
    cwnd: f64,
    pacing: Option<f64>,
    app_limited_at: Option<usize>,
}

impl Hooked {
    fn new(every_ack: bool, cwnd: f64) -> (Self, Arc<Mutex<Seen>>) {
        let seen = Arc::new(Mutex::new(Seen::default()));
        (Hooked { seen: seen.clone(), every_ack, cwnd, pacing: None, app_limited_at: None }, seen)
    }
}

impl CongestionControl for Hooked {
    fn name(&self) -> &'static str {
        "hooked"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.seen.lock().unwrap().acks.push(*ack);
        w.cwnd = self.cwnd;
    }

    /// Like BBR: the cwnd is not cut here (ssthresh only).
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.seen.lock().unwrap().congestion.push(ev.kind);
        w.ssthresh = (w.cwnd / 2.0).max(2.0);
    }

    fn on_recovery_exit(&mut self, _now: Time, _w: &mut Window) {
        self.seen.lock().unwrap().recovery_exits += 1;
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.pacing
    }

    fn sets_cwnd_on_every_ack(&self) -> bool {
        self.every_ack
    }

    fn take_app_limited(&mut self) -> bool {
        self.app_limited_at == Some(self.seen.lock().unwrap().acks.len())
    }

    fn wants_delivery_rate(&self) -> bool {
        true
    }
}

/// A linux-sack sender (no delayed ACKs, 10 segments initial window) with `recovery` and PRR on
/// (which an every-ACK algorithm must not see), running `cc`, its SYN-ACK at 10 ms: 0..10 leave.
fn started(
    cc: Hooked,
    recovery: RecoveryProcedure,
    tweak: impl FnOnce(&mut crate::tcp::stack_settings::StackConfig),
) -> SenderHarness {
    let mut b = SenderHarness::with_algorithm(Box::new(cc), recovery, Profile::LinuxSack, None, |s| {
        s.delayed_ack = false;
        s.prr = PrrMode::Rfc9937;
        tweak(s);
    });
    b.start_with_rtt(10 * MS);
    assert_eq!(b.sent(), SenderHarness::data(0..10));
    b
}

/// Deliver the timers (pacing, retransmission) due up to `end`.
fn run_until(b: &mut SenderHarness, end: Time) {
    while let Some((t, ev)) = b.fab.events.pop_due(end) {
        b.now = t;
        match ev {
            Event::Timer { kind: TimerKind::Pacing, .. } => b.sender.on_pacing_timer(t, &mut b.fab),
            Event::Timer { kind: TimerKind::Retransmit, .. } => b.sender.on_rto_timer(t, &mut b.fab),
            _ => {}
        }
    }
    b.now = end;
}

/// (seq, send time in us) of the data sent since the last look.
fn sends(b: &mut SenderHarness) -> Vec<(u32, Time)> {
    b.sent_packets().iter().filter(|p| p.kind == PacketKind::Data).map(|p| (p.seq, p.ts / 1000)).collect()
}

/// At 1000 segments/s: the initial window leaves unpaced at 10 ms; the 10th send sets the next
/// departure to 11 ms. ACK 1 at 30 ms opens cwnd to 100: segment 10 leaves at once, 19 ms late,
/// so it earns the largest credit, half an interval: the next leaves at 30.5 ms, then one per
/// millisecond (31.5, 32.5, ...) from the pacing timer.
#[test]
fn the_pacing_rate_spaces_segments_after_the_first_ten() {
    let (mut cc, _) = Hooked::new(false, 100.0);
    cc.pacing = Some(1000.0);
    let mut b = started(cc, RecoveryProcedure::Sack, |_| {});
    b.reply(1, &[], 0, 30 * MS);
    assert_eq!(sends(&mut b), vec![(10, 30_000)]);
    assert_eq!(b.sender.pace_timer.deadline(), Some(30 * MS + 500_000), "one timer, at the next departure");
    run_until(&mut b, 33 * MS);
    assert_eq!(sends(&mut b), vec![(11, 30_500), (12, 31_500), (13, 32_500)]);
}

/// A segment that waits for the window, not the pacer, leaves when the window opens; its
/// lateness shortens the next gap by at most half an interval. At 1000 segments/s with cwnd
/// 10: segment 10 leaves at 30 ms (next at 30.5), 11 waits for ACK 2 at 30.8 ms (0.3 ms late):
/// the next gap is 1 - 0.3 = 0.7 ms; ACK 3 at 31.4 ms finds the slot at 31.5.
#[test]
fn lateness_is_credited_up_to_half_an_interval() {
    let (mut cc, _) = Hooked::new(false, 10.0);
    cc.pacing = Some(1000.0);
    let mut b = started(cc, RecoveryProcedure::Sack, |_| {});
    b.reply(1, &[], 0, 30 * MS);
    assert_eq!(sends(&mut b), vec![(10, 30_000)]);
    run_until(&mut b, 30 * MS + 800_000);
    assert!(sends(&mut b).is_empty(), "the window is full: the pacer has nothing to send");
    b.reply(2, &[], 1, 30 * MS + 800_000);
    assert_eq!(sends(&mut b), vec![(11, 30_800)]);
    b.reply(3, &[], 2, 31 * MS + 400_000);
    assert!(sends(&mut b).is_empty(), "held to 31.5 ms");
    run_until(&mut b, 32 * MS);
    assert_eq!(sends(&mut b), vec![(12, 31_500)]);
}

/// Without a pacing rate nothing is held: the window's segments leave together.
#[test]
fn without_a_pacing_rate_the_window_leaves_at_once() {
    let (cc, _) = Hooked::new(false, 14.0);
    let mut b = started(cc, RecoveryProcedure::Sack, |_| {});
    b.reply(1, &[], 0, 30 * MS);
    assert_eq!(sends(&mut b), vec![(10, 30_000), (11, 30_000), (12, 30_000), (13, 30_000), (14, 30_000)]);
    assert_eq!(b.sender.pace_timer.deadline(), None);
}

/// SACK recovery with an algorithm that holds cwnd at 10 on every ACK. Segment 1 is lost.
/// ACK 1, then SACKs of 2, 3, 4 (each a duplicate ACK delivering one segment, each seen by the
/// algorithm with a rate sample); the third marks 1 lost and starts recovery: the algorithm sees
/// the episode's `on_congestion` once, then that ACK in state Recovery with one segment newly
/// lost, and only then is 1 retransmitted. PRR never touches cwnd; the full ACK ends recovery
/// without cwnd = ssthresh.
#[test]
fn an_every_ack_algorithm_sees_each_ack_in_every_state_and_keeps_its_cwnd() {
    let (cc, seen) = Hooked::new(true, 10.0);
    let mut b = started(cc, RecoveryProcedure::Sack, |_| {});
    b.reply(1, &[], 0, 20 * MS);
    assert_eq!(b.sent(), vec![new_data(10)]);
    b.reply(1, &[(2, 3)], 2, 21 * MS);
    assert_eq!(b.sent(), vec![new_data(11)], "pipe 9 under cwnd 10");
    b.reply(1, &[(2, 4)], 3, 22 * MS);
    assert_eq!(b.sent(), vec![new_data(12)]);
    b.reply(1, &[(2, 5)], 4, 23 * MS);
    assert!(b.in_recovery());
    // pipe = 12 outstanding (1..13) - 3 SACKed - 1 lost = 8: the retransmission and one new
    // segment.
    assert_eq!(b.sent(), vec![rtx(1), new_data(13)]);
    assert_eq!(b.cwnd(), 10.0, "the algorithm's cwnd, not PRR's");
    {
        let s = seen.lock().unwrap();
        assert_eq!(s.congestion, vec![CongestionKind::Loss]);
        let a = &s.acks;
        assert_eq!(a.len(), 4);
        let facts: Vec<_> = a
            .iter()
            .map(|a| (a.acked, a.delivered_now, a.newly_lost, a.ca_state, a.prior_in_flight, a.in_flight))
            .collect();
        assert_eq!(
            facts,
            vec![
                (1.0, 1.0, 0.0, CaState::Open, 10.0, 9.0),
                (0.0, 1.0, 0.0, CaState::Open, 10.0, 9.0),
                (0.0, 1.0, 0.0, CaState::Open, 10.0, 9.0),
                // 12 outstanding (1..13): 2 SACKed before, 10 in flight; 3 SACKed and 1 lost
                // after, 8.
                (0.0, 1.0, 1.0, CaState::Recovery, 10.0, 8.0),
            ]
        );
        // The sample of the ACK that found the loss: segment 4 left at 10 ms with nothing
        // delivered, 5 in flight with it (0..5); 4 delivered since (0, 2, 3, 4), 1 lost since.
        let r = a[3].delay.rate.expect("a rate sample on a SACK-only ACK");
        assert_eq!((r.prior_delivered, r.tx_in_flight, r.delivered, r.lost), (0, 5, 4, 1));
        assert_eq!((r.interval, r.valid, r.delivered_ce), (13 * MS, true, 0));
    }
    // The retransmission of 1 arrives: ACK 13 (everything up to the recovery point 13) ends
    // recovery, delivering the 9 segments of 1..13 not SACKed before. cwnd stays the
    // algorithm's.
    b.reply(13, &[], 1, 33 * MS);
    assert!(!b.in_recovery());
    let s = seen.lock().unwrap();
    assert_eq!((s.recovery_exits, s.congestion.len()), (1, 1));
    let last = s.acks.last().unwrap();
    assert_eq!((last.acked, last.delivered_now, last.ca_state), (12.0, 9.0, CaState::Open));
    assert_eq!(b.cwnd(), 10.0);
}

/// A timeout sets cwnd to 1 (Linux `tcp_enter_loss`: in flight + 1, nothing being in flight
/// once everything is presumed lost) whatever the algorithm holds; it sees the timeout once and
/// the next ACKs in state Loss until everything outstanding at the timeout is acknowledged.
#[test]
fn a_timeout_sets_cwnd_to_one_and_the_next_acks_are_in_loss() {
    let (cc, seen) = Hooked::new(true, 10.0);
    let mut b = started(cc, RecoveryProcedure::Sack, |_| {});
    b.fire_rto();
    assert_eq!(b.cwnd(), 1.0);
    assert_eq!(b.sent(), vec![rtx(0)]);
    assert_eq!(seen.lock().unwrap().congestion, vec![CongestionKind::Timeout]);
    let t = b.now;
    b.reply(1, &[], 0, t + 10 * MS);
    assert_eq!(seen.lock().unwrap().acks.last().unwrap().ca_state, CaState::Loss);
    assert_eq!(b.cwnd(), 10.0, "the algorithm's again");
    b.reply(10, &[], 9, t + 20 * MS);
    assert_eq!(seen.lock().unwrap().acks.last().unwrap().ca_state, CaState::Open);
}

/// Without SACK a duplicate ACK delivers one segment (Linux counts it in `sacked_out`): the
/// algorithm sees it with `delivered_now` 1, the window is not inflated, and those segments leave
/// the flight. The ACK that fills the hole counts what the duplicates did not: 7 newly
/// acknowledged, 3 counted before: 4.
#[test]
fn without_sack_duplicate_acks_each_deliver_one_segment() {
    let (cc, seen) = Hooked::new(true, 10.0);
    let mut b = started(cc, RecoveryProcedure::NewReno, |_| {});
    b.reply(1, &[], 0, 20 * MS);
    assert_eq!(b.sent(), vec![new_data(10)]);
    for (k, echo) in [(1, 2), (2, 3), (3, 4)] {
        b.reply(1, &[], echo, (20 + k) * MS);
    }
    assert!(b.in_recovery());
    {
        let s = seen.lock().unwrap();
        let dup: Vec<_> = s.acks[1..].iter().map(|a| (a.acked, a.delivered_now, a.in_flight, a.ca_state)).collect();
        assert_eq!(
            dup,
            vec![(0.0, 1.0, 9.0, CaState::Open), (0.0, 1.0, 9.0, CaState::Open), (0.0, 1.0, 9.0, CaState::Recovery)]
        );
        assert_eq!(s.acks[3].newly_lost, 1.0);
    }
    // 10 outstanding (1..11) less 3 delivered by duplicates: 7 in flight, plus 11, 12, 13 sent
    // on the duplicates and the retransmission of 1 after the third.
    assert_eq!(b.sent(), vec![new_data(11), new_data(12), rtx(1), new_data(13)]);
    b.reply(8, &[], 1, 30 * MS);
    let s = seen.lock().unwrap();
    let a = s.acks.last().unwrap();
    assert_eq!((a.acked, a.delivered_now, a.ca_state), (7.0, 4.0, CaState::Recovery), "partial ACK");
}

/// The algorithm asks on ACK 1 (1 delivered, 9 in flight): segments sent until more than 10 are
/// delivered are app-limited. One ACK per segment, each sending one: ACK k delivers segment
/// k - 1, and segment k + 9 leaves on it. Segments 10..=19 leave on ACKs 1..=10 (at most 10
/// delivered): the samples of ACKs 11..=20 are app-limited; segment 20 leaves on ACK 11, so the
/// sample of ACK 21 is not, nor is that of ACK 1 (segment 0 left before the request).
#[test]
fn take_app_limited_marks_the_flight_app_limited() {
    let (mut cc, seen) = Hooked::new(true, 10.0);
    cc.app_limited_at = Some(1);
    let mut b = started(cc, RecoveryProcedure::Sack, |_| {});
    for seq in 1..=21 {
        b.reply(seq, &[], seq - 1, (20 + seq as Time) * MS);
    }
    let s = seen.lock().unwrap();
    let flags: Vec<_> = s.acks.iter().map(|a| a.delay.rate.unwrap().app_limited).collect();
    let expected: Vec<_> = (1..=21).map(|k| (11..=20).contains(&k)).collect();
    assert_eq!(flags, expected);
}

/// Per-segment ECN feedback with an every-ACK algorithm: ACK 3 with ECN-Echo delivers 2 and 3
/// (2 marked deliveries), ACK 4 without. The sample on ACK 4 (segment 3 left with nothing
/// delivered) counts 4 delivered, 2 of them by ECN-Echo ACKs; the ACK with ECE was handed to
/// `on_ack` in state Cwr.
#[test]
fn rate_samples_count_deliveries_acknowledged_with_ecn_echo() {
    let (cc, seen) = Hooked::new(true, 10.0);
    let mut b = started(cc, RecoveryProcedure::Sack, |s| s.ecn = true);
    b.reply(1, &[], 0, 20 * MS);
    let ts = b.last_sent_at(2);
    let pkt = Packet { ts, ..b.ack_packet(3, &[], ecn::ECE) };
    b.now = 21 * MS;
    b.sender.on_ack(&pkt, 21 * MS, &mut b.fab);
    b.reply(4, &[], 3, 22 * MS);
    let s = seen.lock().unwrap();
    assert_eq!(s.congestion, vec![CongestionKind::Ecn]);
    assert_eq!((s.acks[1].ece, s.acks[1].ca_state), (true, CaState::Cwr));
    let r = s.acks[2].delay.rate.unwrap();
    assert_eq!((r.delivered, r.delivered_ce), (4, 2));
}

/// After a timeout without SACK every outstanding segment is presumed lost, so a duplicate ACK
/// delivers nothing (Linux `tcp_limit_reno_sacked`: `sacked_out` stays within the segments not
/// lost): the algorithm sees it with `delivered_now` 0 and the flight does not shrink.
#[test]
fn after_a_timeout_without_sack_duplicate_acks_deliver_nothing() {
    let (cc, seen) = Hooked::new(true, 10.0);
    let mut b = started(cc, RecoveryProcedure::NewReno, |_| {});
    b.fire_rto();
    assert_eq!(b.sent(), vec![rtx(0)]);
    let t = b.now;
    b.reply(0, &[], 5, t + MS);
    let s = seen.lock().unwrap();
    let a = s.acks.last().unwrap();
    assert_eq!((a.acked, a.delivered_now, a.ca_state), (0.0, 0.0, CaState::Loss));
}

/// The same exchange under AccECN: ACK 3 delivers 2 and 3 with the counter 5 -> 6 (one mark,
/// the receiver's count, not the ACK's whole delivery), ACK 4 with 6 (none). ACK 3 has `ece`
/// and `ce_delivered` 1 and is handed over in state Cwr; the sample on ACK 4 counts 4 delivered,
/// 1 of them CE-marked.
#[test]
fn rate_samples_count_the_marks_accecn_reports() {
    use crate::tcp::accecn::ace_bits;
    use crate::tcp::stack_settings::EcnFeedbackChoice;
    let (cc, seen) = Hooked::new(true, 10.0);
    let mut b = started(cc, RecoveryProcedure::Sack, |s| {
        s.ecn = true;
        s.ecn_feedback = EcnFeedbackChoice::Accecn;
    });
    let reply = |b: &mut SenderHarness, cum: u32, echo: u32, cep: u32, at: Time| {
        let ts = b.last_sent_at(echo);
        let pkt = Packet { ts, ..b.ack_packet(cum, &[], ace_bits(cep)) };
        b.now = at;
        b.sender.on_ack(&pkt, at, &mut b.fab);
    };
    reply(&mut b, 1, 0, 5, 20 * MS);
    reply(&mut b, 3, 2, 6, 21 * MS);
    reply(&mut b, 4, 3, 6, 22 * MS);
    let s = seen.lock().unwrap();
    assert_eq!(s.congestion, vec![CongestionKind::Ecn]);
    assert_eq!((s.acks[1].ece, s.acks[1].ce_delivered, s.acks[1].ca_state), (true, 1.0, CaState::Cwr));
    assert_eq!((s.acks[2].ece, s.acks[2].ce_delivered), (false, 0.0));
    let r = s.acks[2].delay.rate.unwrap();
    assert_eq!((r.delivered, r.delivered_ce), (4, 1));
}
