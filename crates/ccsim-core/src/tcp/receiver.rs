//! The receiver: cumulative ACKs, optional delayed ACKs (every second segment or a timer), an
//! immediate ACK for anything out of order or that fills a hole (RFC 5681 section 4.2), and the
//! TCP timestamp echo (the send time of the earliest unacknowledged segment, RFC 7323) together
//! with its arrival time, so a sender can measure one-way delay.

use super::seqset::SeqSet;
use crate::engine::event::{Event, LazyTimer, TimerKind};
use crate::engine::fabric::Fabric;
use crate::net::packet::{Packet, PacketKind, HEADER_BYTES};
use crate::units::{Dur, Time};

pub struct Receiver {
    flow: u32,
    ack_route: u32,
    rcv_nxt: u32,
    out_of_order: SeqSet,
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
    pub fn new(flow: u32, ack_route: u32, delayed_ack: bool, delay: Dur) -> Self {
        Receiver {
            flow,
            ack_route,
            rcv_nxt: 0,
            out_of_order: SeqSet::default(),
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

    fn send(&mut self, kind: PacketKind, echo: (Time, Time), now: Time, fab: &mut Fabric) {
        self.unacked = 0;
        self.delack_timer.cancel();
        let ack = Packet {
            ts: echo.0,
            ts_recv: echo.1,
            flow: self.flow,
            seq: self.rcv_nxt,
            size: HEADER_BYTES,
            route: self.ack_route,
            hop: 0,
            kind,
        };
        fab.send(ack, now);
    }
}
