//! The packet: a small plain struct moved by value from sender to queue to pipe to receiver.
//!
//! Its size matters: a 1 Gbps path holds thousands of packets in its pipes, each written when it
//! enters a link and read milliseconds later, long out of the cache. So the few ACKs that carry
//! SACK blocks keep them in a [`SackStore`] beside the network and the packet holds a 4-byte
//! [`SackRef`]: a packet is 40 bytes, a pipe entry 48 (72 with the blocks inline).

use crate::units::Time;

/// Bytes of TCP/IP header on every data packet, and the size of a pure ACK.
pub const HEADER_BYTES: u32 = 40;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    #[default]
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

/// Where an ACK's SACK blocks are kept in the [`SackStore`]; [`SackRef::NONE`] for none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackRef(u32);

impl SackRef {
    pub const NONE: SackRef = SackRef(0);

    pub fn is_some(self) -> bool {
        self != SackRef::NONE
    }
}

/// The SACK blocks of ACKs in flight. An ACK's blocks are stored when it is sent and taken back
/// when it arrives (or freed when it is dropped); slots are reused, so the store stays as small
/// as the number of SACK-carrying ACKs in flight at once.
#[derive(Debug, Default)]
pub struct SackStore {
    slots: Vec<SackBlocks>,
    free: Vec<u32>,
}

impl SackStore {
    /// Keep `blocks` for an ACK about to be sent; no blocks need no slot.
    pub fn store(&mut self, blocks: SackBlocks) -> SackRef {
        if blocks.len == 0 {
            return SackRef::NONE;
        }
        let slot = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = blocks;
                i
            }
            None => {
                self.slots.push(blocks);
                (self.slots.len() - 1) as u32
            }
        };
        SackRef(slot + 1)
    }

    /// The blocks of an ACK that arrived; its slot is free again.
    #[inline]
    pub fn take(&mut self, r: SackRef) -> SackBlocks {
        if r == SackRef::NONE {
            return SackBlocks::default();
        }
        self.free.push(r.0 - 1);
        self.slots[(r.0 - 1) as usize]
    }

    /// The blocks of an ACK still in flight, left in place (for inspection and capture).
    pub fn get(&self, r: SackRef) -> SackBlocks {
        if r == SackRef::NONE {
            return SackBlocks::default();
        }
        self.slots[(r.0 - 1) as usize]
    }

    /// An ACK carrying `r` was dropped.
    pub fn release(&mut self, r: SackRef) {
        if r != SackRef::NONE {
            self.free.push(r.0 - 1);
        }
    }

    /// Blocks stored and not yet taken or released.
    pub fn in_use(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[derive(Clone, Copy, Debug, Default)]
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
    /// The route this packet follows (its id in the fabric), and the packet's link on it.
    pub route: u32,
    /// Ack: its SACK blocks in the network's [`SackStore`], when it carries any.
    pub sack: SackRef,
    pub hop: u16,
    pub kind: PacketKind,
    /// ECN bits ([`ecn`]): the IP codepoint on data, the TCP flags ECE and CWR, and on an
    /// AccECN ACK its ACE field ([`ecn::ACE_SHIFT`]).
    pub ecn: u8,
}

/// ECN (RFC 3168) in one byte of the packet: the IP codepoint (ECT set by an ECN-capable sender,
/// CE set by a queue that marks instead of dropping) and the TCP flags (ECE echoed on ACKs by the
/// receiver, CWR set by the sender on the first data packet after it reduced its window).
///
/// The codepoint is ECT(0) ([`ecn::ECT`]) for classic ECN or ECT(1) ([`ecn::ECT1`]) for L4S
/// (RFC 9331); a queue marks CE on either, and CE keeps the ECT bit it was set on, so that a dual
/// queue still tells an L4S packet by its [`ecn::ECT1`] bit after an earlier hop marked it (on
/// the wire CE is one codepoint, 11, which RFC 9331 also classifies as L4S).
///
/// An ACK under AccECN (RFC 9768) carries instead of ECE its ACE field, the receiver's count of
/// CE-marked packets modulo 8, in the byte's three high bits (on the wire the AE, CWR and ECE
/// flags); they are free on every other packet, so the packet does not grow for it.
pub mod ecn {
    /// ECN-capable transport, ECT(0): classic ECN.
    pub const ECT: u8 = 1;
    /// Congestion experienced.
    pub const CE: u8 = 2;
    /// ACK: ECN-Echo.
    pub const ECE: u8 = 4;
    /// Data: Congestion Window Reduced.
    pub const CWR: u8 = 8;
    /// ECN-capable transport, ECT(1): the L4S identifier (RFC 9331).
    pub const ECT1: u8 = 16;
    /// Either ECT codepoint.
    pub const ANY_ECT: u8 = ECT | ECT1;
    /// AccECN ACK: where its 3-bit ACE field starts.
    pub const ACE_SHIFT: u8 = 5;
    /// AccECN ACK: the ACE field's bits.
    pub const ACE: u8 = 0b111 << ACE_SHIFT;
}

impl Packet {
    /// Whether a queue may mark this packet instead of dropping it.
    #[inline]
    pub fn is_ect(&self) -> bool {
        self.ecn & ecn::ANY_ECT != 0
    }

    /// The IP header's two-bit ECN field (RFC 3168, RFC 9331): CE 0b11, ECT(0) 0b10, ECT(1)
    /// 0b01, not ECN-capable 0b00. What a pcap shows and what queues that classify by codepoint
    /// (DualPI2, FQ-CoDel's `ce_threshold` selector) compare with their masks.
    #[inline]
    pub fn ecn_field(&self) -> u8 {
        if self.ecn & ecn::CE != 0 {
            0b11
        } else if self.ecn & ecn::ECT != 0 {
            0b10
        } else if self.ecn & ecn::ECT1 != 0 {
            0b01
        } else {
            0
        }
    }

    /// Sent with the L4S identifier, ECT(1) (RFC 9331), whether or not a queue marked it since.
    #[inline]
    pub fn is_l4s(&self) -> bool {
        self.ecn & ecn::ECT1 != 0
    }

    /// Whether a queue has set CE.
    #[inline]
    pub fn is_ce(&self) -> bool {
        self.ecn & ecn::CE != 0
    }

    /// An AccECN ACK's ACE field: the receiver's CE packet counter modulo 8 (RFC 9768).
    #[inline]
    pub fn ace(&self) -> u8 {
        (self.ecn & ecn::ACE) >> ecn::ACE_SHIFT
    }

    /// Congestion experienced: a marking queue sets CE on an ECN-capable packet.
    #[inline]
    pub fn mark_ce(&mut self) {
        debug_assert!(self.is_ect(), "CE on a packet that is not ECN-capable");
        self.ecn |= ecn::CE;
    }
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
            sack: SackRef::NONE,
            hop: 0,
            kind: PacketKind::Data,
            ecn: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_and_its_pipe_entry_stay_small() {
        assert_eq!(std::mem::size_of::<Packet>(), 40);
        assert_eq!(std::mem::size_of::<(Time, Packet)>(), 48);
    }

    #[test]
    fn both_ect_codepoints_are_ecn_capable_and_only_ect1_is_l4s() {
        let with = |bits| Packet { ecn: bits, ..Packet::test_data(0, 100) };
        assert!(!with(0).is_ect() && !with(0).is_l4s());
        assert!(with(ecn::ECT).is_ect() && !with(ecn::ECT).is_l4s());
        assert!(with(ecn::ECT1).is_ect() && with(ecn::ECT1).is_l4s());
        let mut p = with(ecn::ECT1 | ecn::CWR);
        p.mark_ce();
        assert!(p.is_ce() && p.is_l4s(), "CE keeps the codepoint it was set on");
    }

    /// The ACE field shares the byte with the codepoint and flags without touching them, and
    /// the packet stays 40 bytes with it.
    #[test]
    fn the_ace_field_fits_in_the_spare_high_bits() {
        assert_eq!(ecn::ACE & (ecn::ANY_ECT | ecn::CE | ecn::ECE | ecn::CWR), 0);
        for ace in 0..8u8 {
            let p = Packet { ecn: (ace << ecn::ACE_SHIFT) | ecn::ECT1, ..Packet::test_data(0, 40) };
            assert_eq!((p.ace(), p.is_l4s(), p.is_ce()), (ace, true, false));
        }
        assert_eq!(std::mem::size_of::<Packet>(), 40);
    }

    #[test]
    fn sack_blocks_round_trip_through_the_store_and_slots_are_reused() {
        let mut store = SackStore::default();
        assert_eq!(store.store(SackBlocks::default()), SackRef::NONE, "no blocks, no slot");
        let mut a = SackBlocks::default();
        a.push((5, 7));
        let mut b = a;
        b.push((9, 12));
        let (ra, rb) = (store.store(a), store.store(b));
        assert_ne!(ra, rb);
        assert_eq!(store.in_use(), 2);
        assert_eq!(store.get(rb), b, "looking leaves the blocks in place");
        assert_eq!(store.take(rb), b);
        store.release(ra);
        assert_eq!(store.in_use(), 0);
        let rc = store.store(b);
        assert!(rc == ra || rc == rb, "a freed slot is reused");
        assert_eq!(store.take(rc).iter().collect::<Vec<_>>(), vec![(5, 7), (9, 12)]);
        assert_eq!(store.take(SackRef::NONE), SackBlocks::default());
    }
}
