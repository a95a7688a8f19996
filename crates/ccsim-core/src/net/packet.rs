//! The packet: a small plain struct moved by value from sender to queue to pipe to receiver.

use crate::units::Time;

/// Bytes of TCP/IP header on every data packet, and the size of a pure ACK.
pub const HEADER_BYTES: u32 = 40;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    Data,
    Ack,
    /// Connection set-up; carries no data. Answered by `SynAck`.
    Syn,
    SynAck,
}

impl PacketKind {
    /// Data and Syn travel sender -> receiver; the others travel back.
    #[inline]
    pub fn is_forward(self) -> bool {
        matches!(self, PacketKind::Data | PacketKind::Syn)
    }
}

/// Up to three SACK blocks [start, end) in segments (RFC 2018 with timestamps leaves room for 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub blocks: [(u32, u32); 3],
    pub len: u8,
}

impl SackBlocks {
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.blocks[..self.len as usize].iter().copied()
    }

    pub fn push(&mut self, block: (u32, u32)) {
        if (self.len as usize) < self.blocks.len() {
            self.blocks[self.len as usize] = block;
            self.len += 1;
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Data/Syn: time the sender sent it. Ack: the echoed send time (TCP timestamp).
    pub ts: Time,
    /// Ack: time the receiver got the echoed segment, for one-way delay.
    pub ts_recv: Time,
    pub flow: u32,
    /// Data: segment number. Ack: cumulative ACK, the next segment expected.
    pub seq: u32,
    /// Bytes on the wire.
    pub size: u32,
    /// Index of the route this packet follows, and of the next link on it.
    pub route: u32,
    pub hop: u16,
    pub kind: PacketKind,
    /// Ack: SACK blocks, when the flow uses SACK.
    pub sack: SackBlocks,
}

impl Packet {
    /// A data segment of flow 0 on route 0, sent at time 0 (for unit tests).
    #[cfg(test)]
    pub fn test_data(seq: u32, size: u32) -> Packet {
        Packet {
            ts: 0,
            ts_recv: 0,
            flow: 0,
            seq,
            size,
            route: 0,
            hop: 0,
            kind: PacketKind::Data,
            sack: SackBlocks::default(),
        }
    }
}
