//! The sender's half of ECN (RFC 3168) as packet exchanges: which segments carry ECT and CWR,
//! and how ACKs with ECE change the window.

use crate::cc::RecoveryProcedure;
use crate::net::packet::{ecn, Packet, PacketKind};
use crate::profile::Profile;
use crate::tcp::recovery::sender_harness::{new_data, SenderHarness};

/// Linux profile (SACK recovery, reductions from cwnd) with ECN, no delayed ACKs. After the
/// handshake the initial window of 10 leaves (0..10).
fn linux_ecn() -> (SenderHarness, Vec<Packet>) {
    let mut b = SenderHarness::new(RecoveryProcedure::Sack, Profile::LinuxSack, |s| {
        s.ecn = true;
        s.delayed_ack = false;
    });
    b.sender.start(0, &mut b.fab);
    let syn = b.sent_packets();
    let syn_ack = Packet { kind: PacketKind::SynAck, ..b.ack_packet(0, &[], 0) };
    b.deliver(syn_ack);
    (b, syn)
}

fn ece_ack(b: &mut SenderHarness, seq: u32) {
    let p = b.ack_packet(seq, &[], ecn::ECE);
    b.deliver(p);
}

fn flags(pkts: &[Packet]) -> Vec<(u32, u8)> {
    pkts.iter().map(|p| (p.seq, p.ecn)).collect()
}

const ECT: u8 = ecn::ECT;
const ECT_CWR: u8 = ecn::ECT | ecn::CWR;

#[test]
fn new_data_is_ect_and_the_syn_is_not() {
    let (mut b, syn) = linux_ecn();
    assert_eq!(flags(&syn), vec![(0, 0)]);
    let first: Vec<_> = (0..10).map(|s| (s, ECT)).collect();
    assert_eq!(flags(&b.sent_packets()), first);
}

#[test]
fn ece_halves_once_per_window_and_the_next_new_segment_carries_cwr() {
    let (mut b, _) = linux_ecn();
    b.sent_packets();
    // ACK 1: slow start, cwnd 11: 10 and 11 leave.
    b.ack(1);
    assert_eq!(flags(&b.sent_packets()), vec![(10, ECT), (11, ECT)]);
    // ACK 2 with ECE: no growth; Reno's reduction from cwnd 11: cwnd = ssthresh = 5.5. Nothing
    // is retransmitted; 2..12 (10) outstanding is above 5 segments: nothing leaves.
    ece_ack(&mut b, 2);
    assert_eq!((b.cwnd(), b.ssthresh()), (5.5, 5.5));
    assert_eq!(b.sender.stats.ecn_events, 1);
    assert!(!b.in_recovery());
    assert!(b.sent_packets().is_empty());
    // ACKs 3..=8 with ECE, for data sent before the reduction: ignored (no second cut, no
    // growth). At ACK 8, 4 outstanding: 12 leaves, with CWR.
    for seq in 3..=7 {
        ece_ack(&mut b, seq);
    }
    assert!(b.sent_packets().is_empty());
    ece_ack(&mut b, 8);
    assert_eq!(flags(&b.sent_packets()), vec![(12, ECT_CWR)]);
    // ACKs 9..=12 (ECE, still the old window: the ACK for 11 covers up to 12 = snd_max at the
    // reduction) each let one new segment out, without CWR.
    for seq in 9..=12 {
        ece_ack(&mut b, seq);
    }
    assert_eq!(flags(&b.sent_packets()), vec![(13, ECT), (14, ECT), (15, ECT), (16, ECT)]);
    assert_eq!((b.cwnd(), b.sender.stats.ecn_events), (5.5, 1));
    // ACK 13 acknowledges 12, sent after the reduction: a new window, a second cut to 2.75.
    ece_ack(&mut b, 13);
    assert_eq!((b.cwnd(), b.sender.stats.ecn_events), (2.75, 2));
}

#[test]
fn acks_without_ece_grow_the_window_as_usual() {
    let (mut b, _) = linux_ecn();
    b.ack(1);
    b.ack(2);
    assert_eq!((b.cwnd(), b.sender.stats.ecn_events), (12.0, 0));
}

#[test]
fn retransmissions_are_not_ect_and_a_loss_reduction_also_sends_cwr() {
    let mut b = SenderHarness::new(RecoveryProcedure::NewReno, Profile::Ns2, |s| s.ecn = true);
    b.open_to(6);
    // cwnd 8, 6..14 outstanding. 6 is lost: three duplicate ACKs.
    for _ in 0..3 {
        b.ack(6);
    }
    assert_eq!(flags(&b.sent_packets()), vec![(6, 0)], "the retransmission is not ECN-capable");
    // Duplicate ACKs with ECE during recovery: ignored (this episode already reduced).
    for _ in 0..3 {
        ece_ack(&mut b, 6);
    }
    assert_eq!(b.sender.stats.ecn_events, 0);
    // Window 4 + 6 = 10 over 8 outstanding: 14 and 15 leave; the first new one carries CWR.
    let sent = b.sent_packets();
    assert_eq!(sent.iter().map(|p| (p.kind, p.seq)).collect::<Vec<_>>(), vec![new_data(14), new_data(15)]);
    assert_eq!(flags(&sent), vec![(14, ECT_CWR), (15, ECT)]);
}

#[test]
fn without_ecn_nothing_is_marked_and_ece_is_ignored() {
    let mut b = SenderHarness::new(RecoveryProcedure::NewReno, Profile::Ns2, |_| {});
    b.open_to(2);
    assert!(b.sent_packets().is_empty());
    ece_ack(&mut b, 3);
    assert!(b.sent_packets().iter().all(|p| p.ecn == 0));
    assert_eq!(b.sender.stats.ecn_events, 0);
}

/// An L4S algorithm's flows send ECT(1) (RFC 9331), others ECT(0); the stack's `ect` names one
/// codepoint for every flow. The SYN and retransmissions stay Not-ECT, and CWR rides on the
/// flow's own codepoint.
#[test]
fn ect1_for_l4s_flows_or_when_the_stack_says_so() {
    use crate::tcp::stack_settings::EctChoice;
    let first = |ect: EctChoice| {
        let mut b = SenderHarness::new(RecoveryProcedure::Sack, Profile::LinuxSack, |s| {
            s.ecn = true;
            s.delayed_ack = false;
            s.ect = ect;
        });
        b.sender.start(0, &mut b.fab);
        let syn = b.sent_packets();
        let syn_ack = Packet { kind: PacketKind::SynAck, ..b.ack_packet(0, &[], 0) };
        b.deliver(syn_ack);
        (b, syn)
    };
    let (mut auto, _) = first(EctChoice::Auto);
    assert!(auto.sent_packets().iter().all(|p| p.ecn == ECT), "newreno is not L4S: ECT(0)");
    assert!(!auto.sender.sends_ect1());
    let (mut b, syn) = first(EctChoice::Ect1);
    assert_eq!(flags(&syn), vec![(0, 0)]);
    assert!(b.sender.sends_ect1());
    let ect1: Vec<_> = (0..10).map(|s| (s, ecn::ECT1)).collect();
    assert_eq!(flags(&b.sent_packets()), ect1);
    b.ack(1);
    b.sent_packets();
    ece_ack(&mut b, 2);
    for seq in 3..=8 {
        ece_ack(&mut b, seq);
    }
    assert_eq!(flags(&b.sent_packets()), vec![(12, ecn::ECT1 | ecn::CWR)]);
    let (mut zero, _) = first(EctChoice::Ect0);
    assert!(zero.sent_packets().iter().all(|p| p.ecn == ECT));
}

/// Reno's window rules, declared an L4S algorithm.
struct L4sReno(crate::cc::reno::Reno);

impl crate::cc::CongestionControl for L4sReno {
    fn name(&self) -> &'static str {
        "l4s-reno"
    }
    fn on_ack(&mut self, ack: &crate::cc::AckSample, w: &mut crate::cc::Window) {
        self.0.on_ack(ack, w)
    }
    fn on_congestion(&mut self, ev: &crate::cc::CongestionEvent, w: &mut crate::cc::Window) {
        self.0.on_congestion(ev, w)
    }
    fn l4s(&self) -> bool {
        true
    }
}

#[test]
fn an_l4s_algorithm_sends_ect1_unless_the_stack_names_ect0() {
    use crate::tcp::stack_settings::EctChoice;
    for (ect, want) in [(EctChoice::Auto, ecn::ECT1), (EctChoice::Ect1, ecn::ECT1), (EctChoice::Ect0, ECT)] {
        let cc = Box::new(L4sReno(crate::cc::reno::Reno::default()));
        let mut b = SenderHarness::with_algorithm(cc, RecoveryProcedure::Sack, Profile::Ns2, None, |s| {
            s.ecn = true;
            s.ect = ect;
        });
        b.sender.start(0, &mut b.fab);
        let sent = b.sent_packets();
        assert!(!sent.is_empty() && sent.iter().all(|p| p.ecn == want), "{ect:?}: {:?}", flags(&sent));
    }
}

/// Linux profile with ECN under AccECN feedback, no delayed ACKs; the initial window 0..10 out.
fn linux_accecn() -> SenderHarness {
    use crate::tcp::stack_settings::EcnFeedbackChoice;
    let mut b = SenderHarness::new(RecoveryProcedure::Sack, Profile::LinuxSack, |s| {
        s.ecn = true;
        s.delayed_ack = false;
        s.ecn_feedback = EcnFeedbackChoice::Accecn;
    });
    b.handshake();
    b.sent_packets();
    b
}

/// An ACK of `seq` whose ACE field carries the receiver's counter `cep`.
fn ace_ack(b: &mut SenderHarness, seq: u32, cep: u32) {
    let p = b.ack_packet(seq, &[], crate::tcp::accecn::ace_bits(cep));
    b.deliver(p);
}

/// The ECE test above under AccECN: every ACK from the second on reports one more CE mark (the
/// counter 6, 7, ... 17, the field turning over at 8 and 16). A rise of the count does what ECE
/// did: no growth, one reduction per window (cwnd 11 -> 5.5, then 2.75 once 12, sent after the
/// first, is acknowledged), the sender in CWR meanwhile; but no segment carries CWR. Each ACK's
/// count adds up: 12 reported.
#[test]
fn accecn_a_rising_count_reduces_once_per_window_and_no_cwr_is_sent() {
    let mut b = linux_accecn();
    ace_ack(&mut b, 1, 5);
    assert_eq!((b.cwnd(), b.sender.stats.ce_delivered), (11.0, 0));
    assert_eq!(flags(&b.sent_packets()), vec![(10, ECT), (11, ECT)]);
    ace_ack(&mut b, 2, 6);
    assert_eq!((b.cwnd(), b.sender.stats.ecn_events, b.sender.stats.ce_delivered), (5.5, 1, 1));
    assert_eq!(b.sender.ca_state(), crate::cc::CaState::Cwr);
    for seq in 3..=7 {
        ace_ack(&mut b, seq, seq + 4);
    }
    assert!(b.sent_packets().is_empty());
    ace_ack(&mut b, 8, 12);
    assert_eq!(flags(&b.sent_packets()), vec![(12, ECT)], "no CWR under AccECN");
    for seq in 9..=12 {
        ace_ack(&mut b, seq, seq + 4);
    }
    assert!(b.sent_packets().iter().all(|p| p.ecn == ECT));
    assert_eq!((b.cwnd(), b.sender.stats.ecn_events), (5.5, 1));
    ace_ack(&mut b, 13, 17);
    assert_eq!((b.cwnd(), b.sender.stats.ecn_events, b.sender.stats.ce_delivered), (2.75, 2, 12));
}

/// An unchanged count is no signal: the window grows as without ECN.
#[test]
fn accecn_acks_with_an_unchanged_count_grow_the_window() {
    let mut b = linux_accecn();
    ace_ack(&mut b, 1, 5);
    ace_ack(&mut b, 2, 5);
    assert_eq!((b.cwnd(), b.sender.stats.ecn_events, b.sender.stats.ce_delivered), (12.0, 0, 0));
}

/// RFC 9768 Appendix A.2.1 in the sender: the first ACK acknowledges 9 segments with the field
/// 2 above the sender's counter (5 -> 7): 9 - (9 - 2) % 8 = 2 marks. Acknowledging 10 with the
/// same field, the field may have turned once: 10 - (10 - 2) % 8 = 10. Acknowledging 8 with the
/// field unchanged: 8.
#[test]
fn accecn_an_ack_of_8_or_more_segments_takes_the_safest_count() {
    for (seq, cep, want) in [(9, 7, 2), (10, 7, 10), (8, 5, 8), (7, 5, 0)] {
        let mut b = linux_accecn();
        ace_ack(&mut b, seq, cep);
        assert_eq!(b.sender.stats.ce_delivered, want, "ACK of {seq} with counter {cep}");
        assert_eq!(b.sender.stats.ecn_events, u64::from(want > 0));
    }
}

/// Duplicate ACKs: one that SACKs new data is decoded; a duplicate ACK that SACKs nothing new
/// is decoded only when the receiver sent it later than every ACK decoded before (its own
/// timestamp, TSval: `ts_recv`, is later), as Linux decodes ACKs that make forward progress or
/// advance the timestamp; a stale one, overtaken on the way, would otherwise read as a turn of
/// the field (here 7 marks). A duplicate ACK decoded as one segment delivered is taken off the
/// delivery of the ACK that next moves the cumulative ACK.
#[test]
fn accecn_duplicate_acks_are_decoded_when_they_are_news() {
    let mut b = linux_accecn();
    let ace = crate::tcp::accecn::ace_bits;
    // 0 is lost; 1 and 2 arrive, the second CE-marked: two duplicate ACKs, counts 5 and 6.
    let d1 = Packet { ts_recv: 10, ..b.ack_packet(0, &[(1, 2)], ace(5)) };
    let d2 = Packet { ts_recv: 20, ..b.ack_packet(0, &[(1, 3)], ace(6)) };
    b.deliver(d1);
    b.deliver(d2);
    assert_eq!(b.sender.stats.ce_delivered, 1);
    // The first one again, late: SACKs nothing new, sent no later: ignored.
    let stale = Packet { ts_recv: 10, ..b.ack_packet(0, &[(1, 2)], ace(5)) };
    b.deliver(stale);
    assert_eq!(b.sender.stats.ce_delivered, 1);
    // A duplicate ACK with nothing new SACKed but sent later (3 arrived, CE): decoded.
    let d3 = Packet { ts_recv: 30, ..b.ack_packet(0, &[(1, 3)], ace(7)) };
    b.deliver(d3);
    assert_eq!(b.sender.stats.ce_delivered, 2);
}

/// Without SACK, 9 duplicate ACKs (segments 1..=9 arrived above the lost 0, each decoded as one
/// segment delivered, the last three CE-marked: counter 5 -> 8), then the ACK of the
/// retransmission covers 0..=9: 10 segments, of which only the retransmission is new to the
/// decoder, so the unchanged field reads 0 marks rather than the 8 a 10-segment delivery would
/// allow (10 - (10 - 0) % 8).
#[test]
fn accecn_without_sack_duplicate_acks_count_once() {
    use crate::tcp::stack_settings::EcnFeedbackChoice;
    let mut b = SenderHarness::new(RecoveryProcedure::NewReno, Profile::Rfc, |s| {
        s.ecn = true;
        s.delayed_ack = false;
        s.ecn_feedback = EcnFeedbackChoice::Accecn;
        s.initial_window = 10.0;
    });
    b.handshake();
    b.sent_packets();
    let ace = crate::tcp::accecn::ace_bits;
    for k in 1..=9u32 {
        let cep = 5 + k.saturating_sub(6);
        let d = Packet { ts_recv: u64::from(k), ..b.ack_packet(0, &[], ace(cep)) };
        b.deliver(d);
    }
    assert_eq!(b.sender.stats.ce_delivered, 3);
    let full = Packet { ts_recv: 100, ..b.ack_packet(10, &[], ace(8)) };
    b.deliver(full);
    assert_eq!(b.sender.stats.ce_delivered, 3, "no phantom turn of the field");
}
