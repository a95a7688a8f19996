//! A test harness (not a benchmark): a sender on its own, for tests that read as packet
//! exchanges. The test plays the receiver, hands the sender ACKs (with SACK blocks when it wants)
//! and reads what the sender put on one fast link.

use std::collections::BTreeMap;

use crate::cc::{CongestionControl, RecoveryProcedure};
use crate::event::{Event, TimerKind};
use crate::net::drops::FlowDrops;
use crate::net::fabric::Fabric;
use crate::net::link::Link;
use crate::net::loss::LossModel;
use crate::net::packet::{Packet, PacketKind, SackBlocks, SackRef};
use crate::net::qdisc::{droptail::DropTail, Qdisc};
use crate::profile::Profile;
use crate::tcp::retransmit_timer::TimerDuty;
use crate::tcp::sender::{Sender, SenderSetup};
use crate::tcp::stack_settings::StackConfig;
use crate::units::Time;

pub const MS: Time = 1_000_000;

/// A retransmission of `seq` on the wire (the same packet as new data: for readability).
pub fn rtx(seq: u32) -> (PacketKind, u32) {
    (PacketKind::Data, seq)
}

/// New data `seq` on the wire.
pub fn new_data(seq: u32) -> (PacketKind, u32) {
    (PacketKind::Data, seq)
}

pub struct SenderHarness {
    pub sender: Sender,
    pub fab: Fabric,
    /// Packets already read off the link.
    seen: usize,
    /// The time of the next event the test delivers; each ACK moves it 1 ms on.
    pub now: Time,
}

impl SenderHarness {
    /// A sender running `cc` (its window rules) with `recovery`, under `profile` as `tweak`
    /// changes it.
    pub fn with_cc(
        cc: &str,
        recovery: RecoveryProcedure,
        profile: Profile,
        tweak: impl FnOnce(&mut StackConfig),
    ) -> Self {
        Self::build(cc, recovery, profile, None, tweak)
    }

    /// A Reno-window sender with `recovery` and a transfer of `size_bytes` (1000-byte segments).
    pub fn transfer(
        recovery: RecoveryProcedure,
        profile: Profile,
        size_bytes: u64,
        tweak: impl FnOnce(&mut StackConfig),
    ) -> Self {
        Self::build("newreno", recovery, profile, Some(size_bytes), tweak)
    }

    fn build(
        cc: &str,
        recovery: RecoveryProcedure,
        profile: Profile,
        size_bytes: Option<u64>,
        tweak: impl FnOnce(&mut StackConfig),
    ) -> Self {
        let rng = crate::rng::stream(1, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion);
        let cc = crate::cc::registry::build(cc, &BTreeMap::new(), rng).unwrap();
        Self::with_algorithm(cc, recovery, profile, size_bytes, tweak)
    }

    /// A sender running the algorithm `cc` (a test's own), otherwise as [`Self::with_cc`].
    pub fn with_algorithm(
        cc: Box<dyn CongestionControl>,
        recovery: RecoveryProcedure,
        profile: Profile,
        size_bytes: Option<u64>,
        tweak: impl FnOnce(&mut StackConfig),
    ) -> Self {
        let q = Qdisc::DropTail(DropTail { limit_pkts: None, limit_bytes: None });
        let mut fab = Fabric::new(vec![Link::new(0, 1, 10_000_000_000, MS, q, LossModel::None)], false);
        fab.add_route(&[0]);
        fab.flow_drops.push(FlowDrops::default());
        let mut stack = StackConfig::for_profile(profile);
        tweak(&mut stack);
        let setup = SenderSetup {
            flow: 0,
            data_route: 0,
            mss: 1000,
            size_bytes,
            max_window: 1000.0,
            ecn: stack.ecn,
            stack: std::sync::Arc::new(stack),
            recovery,
            seed: 1,
            clock: Default::default(),
        };
        SenderHarness { sender: Sender::new(setup, cc), fab, seen: 0, now: 0 }
    }

    /// A sender running `cc` with the recovery procedure the stack gives it (the stack's
    /// `recovery` if set, else the algorithm's customary one), as a scenario would build it.
    pub fn for_cc(cc: &str, profile: Profile, tweak: impl FnOnce(&mut StackConfig)) -> Self {
        let mut stack = StackConfig::for_profile(profile);
        tweak(&mut stack);
        let rng = crate::rng::stream(1, crate::rng::Entity::Flow, 0, crate::rng::Purpose::Congestion);
        let customary = crate::cc::registry::build(cc, &BTreeMap::new(), rng).unwrap().customary_recovery();
        let recovery = stack.recovery_for(customary);
        Self::with_cc(cc, recovery, profile, |s| *s = stack)
    }

    /// Deliver a cumulative ACK of `seq` at `now`.
    pub fn ack_at(&mut self, seq: u32, now: Time) {
        self.now = now;
        let pkt = self.ack_packet(seq, &[], 0);
        self.sender.on_ack(&pkt, now, &mut self.fab);
    }

    /// A Reno-window sender with `recovery`.
    pub fn new(recovery: RecoveryProcedure, profile: Profile, tweak: impl FnOnce(&mut StackConfig)) -> Self {
        Self::with_cc("newreno", recovery, profile, tweak)
    }

    /// (kind, seq) of every packet sent since the last call.
    pub fn sent(&mut self) -> Vec<(PacketKind, u32)> {
        let all: Vec<_> = self.fab.links[0].in_link().map(|p| (p.kind, p.seq)).collect();
        let new = all[self.seen..].to_vec();
        self.seen = all.len();
        new
    }

    /// Every packet sent since the last call, whole.
    pub fn sent_packets(&mut self) -> Vec<Packet> {
        let all: Vec<Packet> = self.fab.links[0].in_link().copied().collect();
        let new = all[self.seen..].to_vec();
        self.seen = all.len();
        new
    }

    pub fn data(seqs: std::ops::Range<u32>) -> Vec<(PacketKind, u32)> {
        seqs.map(|s| (PacketKind::Data, s)).collect()
    }

    pub fn advance(&mut self, ms: Time) {
        self.now += ms * MS;
    }

    /// An ACK packet with cumulative ACK `seq` and the ECN flags `ecn`.
    pub fn ack_packet(&mut self, seq: u32, blocks: &[(u32, u32)], ecn: u8) -> Packet {
        let mut b = SackBlocks::default();
        for &blk in blocks {
            b.push(blk);
        }
        let sack = if blocks.is_empty() { SackRef::NONE } else { self.fab.sacks.store(b) };
        Packet { ts: 0, ts_recv: 0, flow: 0, seq, size: 40, route: 0, sack, hop: 0, kind: PacketKind::Ack, ecn }
    }

    /// Deliver an ACK, 1 ms after the previous event.
    pub fn deliver(&mut self, pkt: Packet) {
        self.now += MS;
        self.sender.on_ack(&pkt, self.now, &mut self.fab);
    }

    pub fn ack(&mut self, seq: u32) {
        let p = self.ack_packet(seq, &[], 0);
        self.deliver(p);
    }

    pub fn ack_sack(&mut self, seq: u32, blocks: &[(u32, u32)]) {
        let p = self.ack_packet(seq, blocks, 0);
        self.deliver(p);
    }

    /// Complete the handshake (profiles with one) or start sending.
    pub fn handshake(&mut self) {
        self.sender.start(self.now, &mut self.fab);
        if self.sent() == vec![(PacketKind::Syn, 0)] {
            let syn_ack = Packet { kind: PacketKind::SynAck, ..self.ack_packet(0, &[], 0) };
            self.deliver(syn_ack);
        } else {
            self.seen = 0;
        }
    }

    /// Start at time 0 with a handshake whose SYN-ACK arrives `rtt` later (the first RTT
    /// sample): the first window leaves then. The test then plays the receiver with [`Self::reply`].
    pub fn start_with_rtt(&mut self, rtt: Time) {
        self.sender.start(0, &mut self.fab);
        assert_eq!(self.sent(), vec![(PacketKind::Syn, 0)]);
        self.now = rtt;
        let syn_ack = Packet { kind: PacketKind::SynAck, ..self.ack_packet(0, &[], 0) };
        self.sender.on_ack(&syn_ack, rtt, &mut self.fab);
    }

    /// When segment `seq` last left.
    pub fn last_sent_at(&self, seq: u32) -> Time {
        let sends = self.fab.links[0].in_link().filter(|p| p.kind == PacketKind::Data && p.seq == seq);
        sends.map(|p| p.ts).last().expect("sent")
    }

    /// The receiver's ACK at time `at`: cumulative ACK `cum`, SACK blocks `blocks`, sent on the
    /// arrival of (the last transmission of) segment `echo`, whose timestamp it echoes.
    pub fn reply(&mut self, cum: u32, blocks: &[(u32, u32)], echo: u32, at: Time) {
        let ts = self.last_sent_at(echo);
        self.now = at;
        let pkt = Packet { ts, ..self.ack_packet(cum, blocks, 0) };
        self.sender.on_ack(&pkt, at, &mut self.fab);
    }

    /// Fire the retransmission timer at its deadline, whatever it is armed for: what it fired for.
    pub fn fire_timer(&mut self) -> TimerDuty {
        let duty = self.sender.retransmit_timer.duty().expect("armed");
        self.fire_rto();
        duty
    }

    /// Start and acknowledge every segment up to `una`, one ACK each, reading what was sent.
    pub fn open_to(&mut self, una: u32) {
        self.handshake();
        for seq in 1..=una {
            self.ack(seq);
        }
        self.sent();
    }

    /// Fire the retransmission timer at its deadline (whatever it is armed for).
    pub fn fire_rto(&mut self) {
        let at = self.sender.retransmit_timer.deadline().expect("armed");
        while let Some((t, ev)) = self.fab.events.pop() {
            if let Event::Timer { kind: TimerKind::Retransmit, .. } = ev {
                self.now = t;
                self.sender.on_rto_timer(t, &mut self.fab);
                if t >= at {
                    break;
                }
            }
        }
    }

    pub fn cwnd(&self) -> f64 {
        self.sender.w.cwnd
    }

    pub fn ssthresh(&self) -> f64 {
        self.sender.w.ssthresh
    }

    /// cwnd with the recovery inflation.
    pub fn window(&self) -> f64 {
        self.sender.window()
    }

    pub fn in_recovery(&self) -> bool {
        self.sender.in_recovery()
    }
}
