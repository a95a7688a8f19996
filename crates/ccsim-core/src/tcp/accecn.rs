//! AccECN (RFC 9768, More Accurate ECN Feedback in TCP), as far as a sender's congestion control
//! needs it: the receiver counts the CE-marked data packets it receives and feeds the count back,
//! modulo 8, in every ACK's ACE field; the sender recovers from the successive values how many
//! packets were marked. Rules of the receiver (when it must ACK at once) are in
//! [`super::receiver`]; this module holds the counter's arithmetic on both ends.
//!
//! What is modelled: the packet counter (r.cep, starting at 5 as the RFC's section 3.2.2.1
//! says), the ACE field on every ACK, the Change-Triggered and Increment-Triggered ACKs of
//! section 3.2.2.5.1, and the sender's decoding with the conservative wrap inference of
//! section 3.2.2.5.2 and Appendix A.2.1 (the variant for a sender without the AccECN option).
//! What is not: the AccECN option (byte counters r.ceb, r.e0b, r.e1b; a packet has no room for
//! them), the handshake's negotiation and its fall-backs (both ends are configured by the stack),
//! ECN-capable ACKs and control packets, and middlebox checks (a zeroed ACE field).

/// The value both ends' CE packet counters start at (RFC 9768 section 3.2.2.1; Linux
/// `TCP_ACCECN_CEP_INIT_OFFSET`), so that a path that zeroes the field can be told apart.
pub const CEP_INIT: u32 = 5;

/// The ACE field's width: the counter is fed back modulo 8.
pub const ACE_MODULUS: u32 = 8;

/// CE marks a receiver may gather before it must ACK (RFC 9768 section 3.2.2.5.1,
/// Increment-Triggered ACKs: 'n' SHOULD be 2 while data is unacknowledged, never above 7; Linux
/// uses 6, `TCP_ACCECN_ACE_MAX_DELTA`). With 2 an ACK never reports more than 2 new marks, far
/// from the 8 that would let the field wrap between two ACKs that both arrive.
pub const INCREMENT_TRIGGER: u32 = 2;

/// The ACE field (three bits, already shifted into place in [`crate::net::packet::ecn`]) for a
/// receiver whose counter reads `cep`.
#[inline]
pub fn ace_bits(cep: u32) -> u8 {
    use crate::net::packet::ecn;
    ((cep % ACE_MODULUS) as u8) << ecn::ACE_SHIFT
}

/// The sender's side: its copy of the receiver's counter (s.cep); the newest timestamp echo of
/// an ACK it decoded, by which a duplicate ACK shows it is newer than those decoded before; and
/// the duplicate ACKs decoded as one segment delivered each since the cumulative ACK last moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AceDecoder {
    cep: u32,
    newest_echo: u64,
    duplicates: u32,
}

impl Default for AceDecoder {
    fn default() -> Self {
        AceDecoder { cep: CEP_INIT, newest_echo: 0, duplicates: 0 }
    }
}

impl AceDecoder {
    /// The CE-marked packets an ACK with field `ace` reports, when it newly delivered
    /// `delivered` segments. The field gives the increase modulo 8 (d.cep); an ACK that
    /// delivers 8 or more could hide whole turns of the counter (some ACKs before it were lost),
    /// so then the safest case is taken, the largest count of the same residue that the delivery
    /// allows (Appendix A.2.1's dSafer.cep, Linux's `safe_delta` without the option). An increase
    /// larger than the delivery is believed as it stands (section 3.2.2.5.2: the counter is
    /// right, the count of delivered packets short).
    #[inline]
    pub fn decode(&mut self, ace: u8, delivered: u32) -> u32 {
        let delta = u32::from(ace).wrapping_sub(self.cep) % ACE_MODULUS;
        let reported = if delivered < ACE_MODULUS { delta } else { delivered - (delivered - delta) % ACE_MODULUS };
        self.cep = self.cep.wrapping_add(reported);
        reported
    }

    /// Whether a duplicate ACK echoing `echo` is newer than every ACK decoded so far (its echo
    /// is later), and so safe to decode: a stale one, overtaken by a later ACK, would read as a
    /// turn of the counter.
    #[inline]
    pub fn is_newer(&self, echo: u64) -> bool {
        echo > self.newest_echo
    }

    /// A duplicate ACK that SACKed nothing new was decoded as one segment delivered (the segment
    /// that triggered it): the ACK that next moves the cumulative ACK covers that segment again.
    #[inline]
    pub fn note_duplicate(&mut self) {
        self.duplicates += 1;
    }

    /// The segments an ACK that moved the cumulative ACK newly delivers, for decoding: `covered`
    /// (those it acknowledges that no SACK block had) less the ones its duplicate ACKs were
    /// decoded for, at least the one that filled the hole. Without SACK the ACK that ends a
    /// recovery covers a whole window; counted whole, it would seem to hide turns of the field.
    #[inline]
    pub fn new_delivery(&mut self, covered: u32) -> u32 {
        covered.saturating_sub(std::mem::take(&mut self.duplicates)).max(1)
    }

    /// An ACK echoing `echo` is being decoded.
    #[inline]
    pub fn note_echo(&mut self, echo: u64) {
        self.newest_echo = self.newest_echo.max(echo);
    }

    /// The sender's counter, s.cep.
    pub fn counter(&self) -> u32 {
        self.cep
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;

    fn field(cep: u32) -> u8 {
        Packet { ecn: ace_bits(cep), ..Packet::test_data(0, 40) }.ace()
    }

    #[test]
    fn the_field_is_the_counter_modulo_8_starting_at_5() {
        assert_eq!(field(CEP_INIT), 5);
        assert_eq!(field(CEP_INIT + 3), 0);
        assert_eq!(field(CEP_INIT + 10), 7);
    }

    /// Receiver counter 5, 6, 8, 8, 13 on successive ACKs delivering 1, 2, 2, 2, 5 segments:
    /// increases 1, 2, 0, 5, read exactly (fewer than 8 delivered each time).
    #[test]
    fn small_deliveries_read_the_increase_modulo_8() {
        let mut d = AceDecoder::default();
        let got: Vec<u32> = [(5, 1), (6, 2), (8, 2), (8, 2), (13, 5)]
            .into_iter()
            .map(|(cep, delivered)| d.decode(field(cep), delivered))
            .collect();
        assert_eq!(got, vec![0, 1, 2, 0, 5]);
        assert_eq!(d.counter(), 13);
    }

    /// Appendix A.2.1's examples: an increase of 2 (mod 8) on an ACK of 9 segments is 2 (9 - 7 %
    /// 8); on an ACK of 10, 10 (10 - 8 % 8). With 8 delivered and no visible change, all 8
    /// may have been marked: the field turned once.
    #[test]
    fn large_deliveries_take_the_largest_count_the_field_allows() {
        let mut d = AceDecoder::default();
        assert_eq!(d.decode(field(7), 9), 2);
        let mut d = AceDecoder::default();
        assert_eq!(d.decode(field(7), 10), 10);
        assert_eq!(d.counter(), 15);
        let mut d = AceDecoder::default();
        assert_eq!(d.decode(field(5), 8), 8);
        assert_eq!(d.decode(field(13 + 3), 20), 19, "20 delivered, 3 (mod 8) new: 19");
        assert_eq!(d.decode(field(16 + 6), 3), 6, "more marks than deliveries: the field is believed");
    }

    /// The counter runs far past 8 over many ACKs without drift: 1000 ACKs of 2 segments, the
    /// first of every pair marked (so each ACK reports 1).
    #[test]
    fn the_counter_follows_the_receiver_through_many_turns() {
        let mut d = AceDecoder::default();
        let total: u32 = (1..=1000).map(|k| d.decode(field(CEP_INIT + k), 2)).sum();
        assert_eq!((total, d.counter()), (1000, CEP_INIT + 1000));
    }

    #[test]
    fn only_a_later_echo_lets_a_duplicate_ack_be_decoded() {
        let mut d = AceDecoder::default();
        d.note_echo(100);
        assert!(!d.is_newer(90), "overtaken");
        assert!(!d.is_newer(100), "no later than the newest");
        assert!(d.is_newer(110));
        d.note_echo(110);
        assert!(!d.is_newer(105));
        d.note_echo(105);
        assert!(!d.is_newer(107) && d.is_newer(111), "the newest stays the latest noted");
    }
}
