//! The receiver: cumulative ACKs, optional delayed ACKs (every second segment or a timer), an
//! immediate ACK for anything out of order or that fills a hole (RFC 5681 section 4.2), and the
//! TCP timestamp echo (the send time of the earliest unacknowledged segment, RFC 7323) together
//! with its arrival time, so a sender can measure one-way delay. With SACK, every ACK carries up to
//! three blocks of out-of-order data: first the block holding the segment that triggered the ACK,
//! then the most recently reported others (RFC 2018 section 4).

use super::ranges::RangeSet;
use crate::event::{Event, LazyTimer, TimerKind};
use crate::net::fabric::Fabric;
use crate::net::packet::{Packet, PacketKind, SackBlocks, HEADER_BYTES};
use crate::units::{Dur, Time};

pub struct Receiver {
    flow: u32,
    ack_route: u32,
    rcv_nxt: u32,
    out_of_order: RangeSet,
    sack: bool,
    /// A segment of each of the most recently reported SACK blocks, newest first.
    recent_blocks: [Option<u32>; 3],
    delayed_ack: bool,
    delay: Dur,
    /// In-order segments received and not yet acknowledged.
    unacked: u32,
    /// (send time, arrival time) of the earliest unacknowledged segment.
    echo: (Time, Time),
    pub delack_timer: LazyTimer,
    /// Every data packet that reached the receiver, duplicates included.
    pub packets_received: u64,
}

impl Receiver {
    pub fn new(flow: u32, ack_route: u32, delayed_ack: bool, delay: Dur, sack: bool) -> Self {
        Receiver {
            flow,
            ack_route,
            rcv_nxt: 0,
            out_of_order: RangeSet::default(),
            sack,
            recent_blocks: [None; 3],
            delayed_ack,
            delay,
            unacked: 0,
            echo: (0, 0),
            delack_timer: LazyTimer::default(),
            packets_received: 0,
        }
    }

    pub fn on_packet(&mut self, pkt: &Packet, now: Time, fab: &mut Fabric) {
        if pkt.kind == PacketKind::Syn {
            self.send(PacketKind::SynAck, (pkt.ts, now), now, fab);
            return;
        }
        self.packets_received += 1;
        if pkt.seq == self.rcv_nxt {
            let had_holes = !self.out_of_order.is_empty();
            self.rcv_nxt = self.out_of_order.advance_from(self.rcv_nxt + 1);
            if !self.delayed_ack || had_holes {
                self.send(PacketKind::Ack, (pkt.ts, now), now, fab);
                return;
            }
            if self.unacked == 0 {
                self.echo = (pkt.ts, now);
            }
            self.unacked += 1;
            if self.unacked >= 2 {
                self.send(PacketKind::Ack, self.echo, now, fab);
            } else {
                let ev = Event::Timer { flow: self.flow, kind: TimerKind::DelayedAck };
                self.delack_timer.set(now + self.delay, &mut fab.events, ev);
            }
        } else {
            if pkt.seq > self.rcv_nxt {
                self.out_of_order.insert(pkt.seq);
                self.note_block(pkt.seq);
            }
            // Out of order or a duplicate: acknowledge at once (a duplicate ACK).
            self.send(PacketKind::Ack, (pkt.ts, now), now, fab);
        }
    }

    pub fn on_delack_timer(&mut self, now: Time, fab: &mut Fabric) {
        let ev = Event::Timer { flow: self.flow, kind: TimerKind::DelayedAck };
        if self.delack_timer.fire(now, &mut fab.events, ev) && self.unacked > 0 {
            self.send(PacketKind::Ack, self.echo, now, fab);
        }
    }

    /// Put the block holding `seq` first in the most-recently-reported list.
    fn note_block(&mut self, seq: u32) {
        let block = self.out_of_order.range_containing(seq);
        let same = |r: &Option<u32>| r.and_then(|s| self.out_of_order.range_containing(s)) == block;
        let mut next = [Some(seq), None, None];
        let mut n = 1;
        for r in self.recent_blocks {
            if n < 3 && r.is_some() && !same(&r) {
                next[n] = r;
                n += 1;
            }
        }
        self.recent_blocks = next;
    }

    /// SACK blocks for the next ACK: the recent blocks still above the cumulative ACK.
    fn sack_blocks(&self) -> SackBlocks {
        let mut blocks = SackBlocks::default();
        if !self.sack {
            return blocks;
        }
        for seq in self.recent_blocks.iter().flatten() {
            if let Some(b) = self.out_of_order.range_containing(*seq) {
                if b.0 > self.rcv_nxt && !blocks.iter().any(|x| x == b) {
                    blocks.push(b);
                }
            }
        }
        blocks
    }

    fn send(&mut self, kind: PacketKind, echo: (Time, Time), now: Time, fab: &mut Fabric) {
        self.unacked = 0;
        self.delack_timer.cancel();
        let sack = fab.sacks.store(self.sack_blocks());
        let ack = Packet {
            ts: echo.0,
            ts_recv: echo.1,
            flow: self.flow,
            seq: self.rcv_nxt,
            size: HEADER_BYTES,
            route: self.ack_route,
            sack,
            hop: 0,
            kind,
            ecn: 0,
        };
        fab.send(ack, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::drops::FlowDrops;
    use crate::net::link::Link;
    use crate::net::loss::LossModel;
    use crate::net::qdisc::{DropTail, Qdisc};

    /// A receiver whose ACKs go onto one idle link, where the test reads them back.
    fn setup(sack: bool, delayed_ack: bool) -> (Receiver, Fabric) {
        let q = Qdisc::DropTail(DropTail { limit_pkts: None, limit_bytes: None });
        let mut fab = Fabric::new(vec![Link::new(1, 0, 1_000_000_000, 1_000, q, LossModel::None)], false);
        let route = fab.add_route(&[0]);
        fab.flow_drops.push(FlowDrops::default());
        (Receiver::new(0, route, delayed_ack, 100_000_000, sack), fab)
    }

    fn data(seq: u32) -> Packet {
        Packet { ts: seq as u64, ..Packet::test_data(seq, 1040) }
    }

    fn acks(fab: &Fabric) -> Vec<(u32, Vec<(u32, u32)>)> {
        fab.links[0].in_link().map(|p| (p.seq, fab.sacks.get(p.sack).iter().collect())).collect()
    }

    #[test]
    fn sack_blocks_put_the_newest_first_and_drop_acknowledged_ones() {
        let (mut r, mut fab) = setup(true, false);
        for seq in [0, 1, 3, 6, 7, 4, 9, 2] {
            r.on_packet(&data(seq), 10, &mut fab);
        }
        let got = acks(&fab);
        assert_eq!(got[0], (1, vec![]));
        assert_eq!(got[1], (2, vec![]));
        assert_eq!(got[2], (2, vec![(3, 4)]));
        assert_eq!(got[3], (2, vec![(6, 7), (3, 4)]));
        assert_eq!(got[4], (2, vec![(6, 8), (3, 4)]));
        assert_eq!(got[5], (2, vec![(3, 5), (6, 8)]), "4 joins 3's block, which moves first");
        assert_eq!(got[6], (2, vec![(9, 10), (3, 5), (6, 8)]));
        assert_eq!(got[7], (5, vec![(9, 10), (6, 8)]), "2 fills the first hole; 3..5 is acknowledged");
    }

    #[test]
    fn without_sack_acks_carry_no_blocks_and_delayed_acks_wait_for_two() {
        let (mut r, mut fab) = setup(false, true);
        for seq in [0, 1, 2, 4] {
            r.on_packet(&data(seq), 10, &mut fab);
        }
        // 0 waits, 1 completes the pair, 2 waits, 4 is out of order: an immediate duplicate ACK.
        assert_eq!(acks(&fab), vec![(2, vec![]), (3, vec![])]);
        assert_eq!(r.packets_received, 4);
    }
}
