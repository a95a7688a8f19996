//! pcap export: captured packets as IPv4 + TCP headers in classic libpcap files.
//!
//! The file format (one 24-byte file header, then a 16-byte record header before each packet) is
//! libpcap's, little-endian, with the nanosecond magic 0xa1b23c4d: a record's time is the
//! simulated time, from the epoch. The link type is LINKTYPE_RAW (101): every packet starts at its
//! IPv4 header. Payload bytes are not stored: a record holds the headers only and gives the
//! packet's full length as its original length, as a capture with a short snap length would.
//!
//! How the simulation's packets map to TCP (documented for users in docs/pcap.md):
//! * Host (node) `n` has the address 10.a.b.c with a.b.c the low 24 bits of `n`.
//! * Flow `f` runs from port [`sender_port`] to port [`RECEIVER_PORT`].
//! * Sequence numbers are bytes: the first data byte is the sender's [`isn`] + 1 and segment `k`
//!   starts `k` x MSS bytes later (mod 2^32), the last segment of a finite transfer being shorter.
//!   ACK numbers, and SACK block edges, are the same conversion of segment numbers, capped at the
//!   transfer's size. The receiver's sequence number is its own ISN + 1 (it sends no data).
//! * Timestamps (RFC 7323) are in microseconds: TSval is the time the sender sent the segment
//!   (data, SYN) or the time the receiver got the segment it answers (ACK, SYN-ACK); an ACK's
//!   TSecr echoes its segment's send time. Data segments echo nothing (TSecr 0).
//! * ECN (RFC 3168, RFC 9331): the IP codepoint (ECT(0) 10, ECT(1) 01, CE 11) and the TCP flags
//!   ECE and CWR as the packet carries them; an ECN-capable flow's SYN carries ECE + CWR and its SYN-ACK ECE.
//!   An AccECN ACK (RFC 9768) carries its ACE field in the AE (the former NS bit), CWR and ECE
//!   flags, most significant first; the handshake's flags stay RFC 3168's (AccECN's negotiation
//!   is not modelled: both ends follow the stack).
//! * The window field is 65535: the simulation does not model the advertised window in bytes.
//! * The TCP checksum is right for a payload of zeros (zeros add nothing to the sum).

use crate::grow::{self, OutOfMemory};
use crate::net::capture::Capture;
use crate::net::packet::{ecn, Packet, PacketKind, SackBlocks, HEADER_BYTES};

/// LINKTYPE_RAW: packets begin with an IP header.
pub const LINKTYPE_RAW: u32 = 101;
/// Classic pcap with nanosecond timestamps.
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// The most header bytes a record holds: 20 of IPv4, at most 60 of TCP.
pub const SNAPLEN: u32 = 80;
/// The port every flow's receiver listens on.
pub const RECEIVER_PORT: u16 = 5001;

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const ECE: u8 = 0x40;
const CWR: u8 = 0x80;

/// The IPv4 address of a node: 10.a.b.c from the low 24 bits of its id.
pub fn ipv4(node: u32) -> [u8; 4] {
    [10, (node >> 16) as u8, (node >> 8) as u8, node as u8]
}

/// The sender's port of a flow: 1024 + (flow mod 64512), so 1024..=65535.
pub fn sender_port(flow: u32) -> u16 {
    (1024 + flow % 64_512) as u16
}

/// Initial sequence numbers of a flow's sender and receiver: fixed functions of the flow id
/// (Knuth's multiplicative hash, offset), so that flows do not start at the same number.
pub fn isn(flow: u32) -> (u32, u32) {
    let h = flow.wrapping_mul(2_654_435_761);
    (h.wrapping_add(1_000_000), h.wrapping_add(3_000_000_000))
}

/// One pcap file of a run: `name` is the file's stem (`link-R1-R2`, `flow-3`).
pub struct PcapFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What the encoder needs to know of a flow.
#[derive(Clone, Copy, Debug)]
pub struct FlowInfo {
    pub src: u32,
    pub dst: u32,
    pub mss: u32,
    /// Bytes of a finite transfer; `None` for an endless one.
    pub size_bytes: Option<u64>,
    pub sack: bool,
    pub ecn: bool,
}

impl FlowInfo {
    /// Byte offset (from the first data byte) of segment `seg`, capped at the transfer's size.
    fn offset(&self, seg: u32) -> u64 {
        let at = seg as u64 * self.mss as u64;
        self.size_bytes.map_or(at, |size| at.min(size))
    }

    /// The sequence number of segment `seg`'s first byte (or of the byte after the transfer).
    fn seq(&self, isn: u32, seg: u32) -> u32 {
        (isn as u64 + 1 + self.offset(seg)) as u32
    }
}

/// The TCP options of one segment, at most 40 bytes, a multiple of 4.
struct Options {
    bytes: [u8; 40],
    len: usize,
}

impl Options {
    fn new() -> Self {
        Options { bytes: [0; 40], len: 0 }
    }

    fn put(&mut self, b: &[u8]) {
        self.bytes[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }

    fn nops(&mut self, n: usize) {
        for _ in 0..n {
            self.put(&[1]);
        }
    }

    /// Kind 8 (RFC 7323), 10 bytes.
    fn timestamps(&mut self, val: u32, ecr: u32) {
        self.put(&[8, 10]);
        self.put(&val.to_be_bytes());
        self.put(&ecr.to_be_bytes());
    }

    /// Kind 5 (RFC 2018), 2 + 8 bytes per block, behind two NOPs.
    fn sack(&mut self, blocks: &[(u32, u32)]) {
        if blocks.is_empty() {
            return;
        }
        self.nops(2);
        self.put(&[5, 2 + 8 * blocks.len() as u8]);
        for &(left, right) in blocks {
            self.put(&left.to_be_bytes());
            self.put(&right.to_be_bytes());
        }
    }
}

/// One segment's header fields.
struct Segment {
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    /// The AE flag (RFC 9768; the low bit of the data-offset byte).
    ae: bool,
    /// The IP header's TOS byte (its two low bits are the ECN codepoint).
    tos: u8,
    options: Options,
    payload: u32,
}

/// Microseconds, as a 32-bit TCP timestamp (it wraps after about 71 minutes).
fn micros(ns: u64) -> u32 {
    (ns / 1000) as u32
}

/// The TCP segment a simulated packet stands for.
fn segment(pkt: &Packet, f: &FlowInfo, sack: &SackBlocks) -> Segment {
    let (isn_c, isn_s) = isn(pkt.flow);
    let (sport, dport) = (sender_port(pkt.flow), RECEIVER_PORT);
    let mut options = Options::new();
    let mut flags;
    let mut ae = false;
    let (seq, ack, payload);
    match pkt.kind {
        PacketKind::Syn | PacketKind::SynAck => {
            let syn_ack = pkt.kind == PacketKind::SynAck;
            options.put(&[2, 4]);
            options.put(&(f.mss.min(u16::MAX as u32) as u16).to_be_bytes());
            if f.sack {
                options.put(&[4, 2]);
            } else {
                options.nops(2);
            }
            if syn_ack {
                options.timestamps(micros(pkt.ts_recv), micros(pkt.ts));
                (seq, ack, flags) = (isn_s, isn_c.wrapping_add(1), SYN | ACK);
            } else {
                options.timestamps(micros(pkt.ts), 0);
                (seq, ack, flags) = (isn_c, 0, SYN);
            }
            if f.ecn {
                flags |= if syn_ack { ECE } else { ECE | CWR };
            }
            payload = 0;
        }
        PacketKind::Data => {
            options.nops(2);
            options.timestamps(micros(pkt.ts), 0);
            (seq, ack) = (f.seq(isn_c, pkt.seq), isn_s.wrapping_add(1));
            flags = ACK | if pkt.ecn & ecn::CWR != 0 { CWR } else { 0 };
            payload = pkt.size.saturating_sub(HEADER_BYTES);
        }
        PacketKind::Ack => {
            options.nops(2);
            options.timestamps(micros(pkt.ts_recv), micros(pkt.ts));
            let blocks: Vec<(u32, u32)> = sack.iter().map(|(l, r)| (f.seq(isn_c, l), f.seq(isn_c, r))).collect();
            options.sack(&blocks);
            (seq, ack) = (isn_s.wrapping_add(1), f.seq(isn_c, pkt.seq));
            flags = ACK | if pkt.ecn & ecn::ECE != 0 { ECE } else { 0 };
            // An AccECN ACK's field (RFC 9768 section 3.2.2): AE, CWR, ECE from the most
            // significant bit. One with the field at 0 sets no flag, as the field says.
            let ace = pkt.ace();
            if ace != 0 {
                ae = ace & 0b100 != 0;
                flags = ACK | if ace & 0b010 != 0 { CWR } else { 0 } | if ace & 0b001 != 0 { ECE } else { 0 };
            }
            payload = 0;
        }
    }
    let (src, dst, sport, dport) = if pkt.kind.is_forward() {
        (ipv4(f.src), ipv4(f.dst), sport, dport)
    } else {
        (ipv4(f.dst), ipv4(f.src), dport, sport)
    };
    Segment { src, dst, sport, dport, seq, ack, flags, ae, tos: pkt.ecn_field(), options, payload }
}

/// The 16-bit ones' complement sum (RFC 1071) of `bytes`, added to `sum`, not yet folded.
fn sum16(bytes: &[u8], mut sum: u32) -> u32 {
    for pair in bytes.chunks(2) {
        let hi = pair[0] as u32;
        let lo = pair.get(1).copied().unwrap_or(0) as u32;
        sum += (hi << 8) | lo;
    }
    sum
}

fn checksum(sum: u32) -> u16 {
    let mut s = sum;
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// The IPv4 and TCP headers of a segment, and the packet's full length (headers and payload,
/// at most 65535). Checksums included.
fn headers(s: &Segment) -> (Vec<u8>, u32) {
    let tcp_len = 20 + s.options.len;
    let total = (20 + tcp_len as u32 + s.payload).min(u16::MAX as u32);
    let mut ip = [0u8; 20];
    ip[0] = 0x45; // version 4, 5 words
    ip[1] = s.tos;
    ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    ip[6] = 0x40; // don't fragment
    ip[8] = 64; // TTL
    ip[9] = 6; // TCP
    ip[12..16].copy_from_slice(&s.src);
    ip[16..20].copy_from_slice(&s.dst);
    let ip_sum = checksum(sum16(&ip, 0));
    ip[10..12].copy_from_slice(&ip_sum.to_be_bytes());

    let mut tcp = Vec::with_capacity(tcp_len);
    tcp.extend_from_slice(&s.sport.to_be_bytes());
    tcp.extend_from_slice(&s.dport.to_be_bytes());
    tcp.extend_from_slice(&s.seq.to_be_bytes());
    tcp.extend_from_slice(&s.ack.to_be_bytes());
    tcp.push((((tcp_len / 4) as u8) << 4) | u8::from(s.ae));
    tcp.push(s.flags);
    tcp.extend_from_slice(&u16::MAX.to_be_bytes()); // window
    tcp.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    tcp.extend_from_slice(&s.options.bytes[..s.options.len]);
    // The pseudo-header (RFC 793): addresses, protocol, TCP length. The payload, zeros, adds 0.
    let segment_len = total - 20;
    let mut pseudo = sum16(&s.src, 0);
    pseudo = sum16(&s.dst, pseudo);
    pseudo += 6 + (segment_len >> 16) + (segment_len & 0xffff);
    let tcp_sum = checksum(sum16(&tcp, pseudo));
    tcp[16..18].copy_from_slice(&tcp_sum.to_be_bytes());

    let mut out = ip.to_vec();
    out.extend_from_slice(&tcp);
    (out, total)
}

/// The pcap file header (little-endian, nanosecond timestamps, LINKTYPE_RAW).
pub fn file_header() -> Vec<u8> {
    let mut h = Vec::with_capacity(24);
    h.extend_from_slice(&MAGIC_NANOS.to_le_bytes());
    h.extend_from_slice(&2u16.to_le_bytes());
    h.extend_from_slice(&4u16.to_le_bytes());
    h.extend_from_slice(&0i32.to_le_bytes()); // time zone
    h.extend_from_slice(&0u32.to_le_bytes()); // timestamp accuracy
    h.extend_from_slice(&SNAPLEN.to_le_bytes());
    h.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
    h
}

/// Append one packet's record (header and captured bytes) to a file's bytes.
pub fn write_record(out: &mut Vec<u8>, t_ns: u64, pkt: &Packet, flow: &FlowInfo, sack: &SackBlocks) {
    let (bytes, total) = headers(&segment(pkt, flow, sack));
    out.extend_from_slice(&((t_ns / 1_000_000_000) as u32).to_le_bytes());
    out.extend_from_slice(&((t_ns % 1_000_000_000) as u32).to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&total.to_le_bytes());
    out.extend_from_slice(&bytes);
}

/// The most bytes one record takes: its header and the longest IPv4 and TCP headers.
const MAX_RECORD_BYTES: usize = 16 + SNAPLEN as usize;

/// The pcap files of a run's capture: one per point, in the order of `points`, each with a
/// record for every packet captured there, in time order. The files are as large as the
/// capture, so they grow fallibly ([`crate::grow`]).
pub fn files(capture: &Capture, points: usize, flows: &[FlowInfo]) -> Result<Vec<Vec<u8>>, OutOfMemory> {
    let mut out = vec![file_header(); points];
    for r in &capture.records {
        let sack = capture.sack_of(r);
        let file = &mut out[r.point as usize];
        grow::reserve(file, MAX_RECORD_BYTES, "the pcap files")?;
        write_record(file, r.t, &r.pkt, &flows[r.pkt.flow as usize], &sack);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::SackRef;

    const FLOW: FlowInfo =
        FlowInfo { src: 2, dst: 0x01_02_03, mss: 1000, size_bytes: Some(2500), sack: true, ecn: true };

    fn pkt(kind: PacketKind, seq: u32, size: u32) -> Packet {
        Packet {
            ts: 5_000_000,
            ts_recv: 7_000_000,
            flow: 1,
            seq,
            size,
            route: 0,
            sack: SackRef::NONE,
            hop: 0,
            kind,
            ecn: 0,
        }
    }

    /// Sum of the header with its checksum field in place: folds to 0xffff when it is right.
    fn verifies(bytes: &[u8], start: u32) -> bool {
        checksum(sum16(bytes, start)) == 0
    }

    #[test]
    fn the_ip_ecn_field_carries_each_codepoint() {
        let with = |bits| Packet { ecn: bits, ..pkt(PacketKind::Data, 2, 540) };
        assert_eq!(Packet::ecn_field(&with(0)), 0b00);
        assert_eq!(Packet::ecn_field(&with(ecn::ECT)), 0b10);
        assert_eq!(Packet::ecn_field(&with(ecn::ECT1)), 0b01);
        assert_eq!(Packet::ecn_field(&with(ecn::ECT | ecn::CE)), 0b11);
        assert_eq!(Packet::ecn_field(&with(ecn::ECT1 | ecn::CE)), 0b11);
        let (bytes, _) = headers(&segment(&with(ecn::ECT1), &FLOW, &SackBlocks::default()));
        assert_eq!(bytes[1], 0b01, "the TOS byte");
    }

    /// An AccECN ACK's ACE field in AE (byte 32's low bit, under the data offset), CWR and ECE
    /// (byte 33): 5 = 101 sets AE and ECE, 6 = 110 AE and CWR, 0 none; the data offset stays.
    #[test]
    fn an_accecn_ack_carries_its_ace_field_in_ae_cwr_and_ece() {
        let ack = |ace: u8| {
            let p = Packet { ecn: ace << ecn::ACE_SHIFT, ..pkt(PacketKind::Ack, 2, 40) };
            let (bytes, _) = headers(&segment(&p, &FLOW, &SackBlocks::default()));
            (bytes[32], bytes[33])
        };
        let (offset, _) = ack(0);
        assert_eq!(offset & 1, 0);
        assert_eq!(ack(5), (offset | 1, ACK | ECE));
        assert_eq!(ack(6), (offset | 1, ACK | CWR));
        assert_eq!(ack(3), (offset, ACK | CWR | ECE));
        assert_eq!(ack(0), (offset, ACK));
    }

    #[test]
    fn a_data_segment_has_the_headers_worked_out_by_hand() {
        let mut p = pkt(PacketKind::Data, 2, 540);
        p.ecn = ecn::ECT | ecn::CE | ecn::CWR;
        let (bytes, total) = headers(&segment(&p, &FLOW, &SackBlocks::default()));
        // isn(1) = 2654435761 + 1e6 = 2655435761; + 1 + 2 x 1000 = 2655437762 = 0x9E46_C3C2.
        // The receiver's ISN + 1: 2654435761 + 3e9 + 1 - 2^32 = 1359468466 = 0x5107_D7B2.
        #[rustfmt::skip]
        let expected: [u8; 52] = [
            0x45, 0x03, 0x02, 0x28, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 2, 10, 1, 2, 3,
            0x04, 0x01, 0x13, 0x89, 0x9e, 0x46, 0xc3, 0xc2, 0x51, 0x07, 0xd7, 0xb2,
            0x80, 0x90, 0xff, 0xff, 0, 0, 0, 0,
            1, 1, 8, 10, 0, 0, 0x13, 0x88, 0, 0, 0, 0,
        ];
        let mut zeroed = bytes.clone();
        zeroed[10..12].fill(0);
        zeroed[36..38].fill(0);
        assert_eq!(zeroed, expected);
        // 20 + 20 + 12 of options + the segment's 500 bytes (540 on the wire less 40).
        assert_eq!(total, 552);
        assert_eq!(&bytes[10..12], &[0x22, 0xc8], "IP checksum, summed by hand");
        assert!(verifies(&bytes[..20], 0), "IP header checksum");
        let pseudo = sum16(&[10, 0, 0, 2, 10, 1, 2, 3], 6 + 532);
        assert!(verifies(&bytes[20..], pseudo), "TCP checksum over the pseudo-header and a zero payload");
    }

    #[test]
    fn acks_carry_sack_edges_in_bytes_and_the_transfer_end_caps_them() {
        let mut blocks = SackBlocks::default();
        blocks.push((1, 3));
        let (bytes, total) = headers(&segment(&pkt(PacketKind::Ack, 0, 40), &FLOW, &blocks));
        assert_eq!(bytes.len(), 20 + 20 + 12 + 12);
        assert_eq!(total, 64);
        assert_eq!(&bytes[12..20], &[10, 1, 2, 3, 10, 0, 0, 2], "from the receiver");
        let first = isn(1).0.wrapping_add(1);
        assert_eq!(&bytes[28..32], &first.to_be_bytes(), "ACK of segment 0: the first data byte");
        assert_eq!(bytes[33], ACK);
        assert_eq!(&bytes[42..52], &[8, 10, 0, 0, 0x1b, 0x58, 0, 0, 0x13, 0x88], "TSval 7000 us, TSecr 5000 us");
        assert_eq!(&bytes[52..56], &[1, 1, 5, 10]);
        assert_eq!(&bytes[56..60], &(first + 1000).to_be_bytes());
        assert_eq!(&bytes[60..64], &(first + 2500).to_be_bytes(), "the transfer's last byte + 1");
        let pseudo = sum16(&bytes[12..20], 6 + 44);
        assert!(verifies(&bytes[20..], pseudo));
    }

    #[test]
    fn a_syn_offers_mss_sack_timestamps_and_ecn() {
        let (bytes, total) = headers(&segment(&pkt(PacketKind::Syn, 0, 40), &FLOW, &SackBlocks::default()));
        assert_eq!(total, 56);
        assert_eq!(&bytes[24..28], &isn(1).0.to_be_bytes());
        assert_eq!(bytes[33], SYN | ECE | CWR);
        assert_eq!(&bytes[40..46], &[2, 4, 0x03, 0xe8, 4, 2]);
        let (syn_ack, _) = headers(&segment(&pkt(PacketKind::SynAck, 0, 40), &FLOW, &SackBlocks::default()));
        assert_eq!(syn_ack[33], SYN | ACK | ECE);
        assert_eq!(&syn_ack[28..32], &isn(1).0.wrapping_add(1).to_be_bytes());
    }

    #[test]
    fn records_hold_the_time_in_nanoseconds_and_both_lengths() {
        let mut out = file_header();
        assert_eq!(&out[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        write_record(&mut out, 3_000_000_123, &pkt(PacketKind::Data, 0, 1040), &FLOW, &SackBlocks::default());
        assert_eq!(&out[24..40], &[3, 0, 0, 0, 123, 0, 0, 0, 52, 0, 0, 0, 0x1c, 0x04, 0, 0]);
        assert_eq!(out.len(), 24 + 16 + 52, "captured: 52 bytes of headers; original: 1052 bytes");
    }
}
