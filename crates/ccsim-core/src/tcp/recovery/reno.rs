//! Reno fast recovery (RFC 5681 section 3.2): on the DupThresh-th duplicate ACK retransmit the
//! first unacknowledged segment, inflate the window by the duplicate ACKs (each is a segment that
//! left the network), and leave recovery on the first ACK of new data with cwnd = ssthresh.
//! A second loss in the same window is found only by three more duplicate ACKs after the exit
//! (and then only if the cumulative ACK passed the recovery point) or by the timer.
//!
//! The inflation is kept apart from the algorithm's cwnd, as ns-2 keeps `dupwnd_`, so that the
//! algorithm's window never carries the stack's bookkeeping.

use super::{InRecovery, SeqState};
use crate::cc::Window;
use crate::math::below_floor;

#[derive(Clone, Debug)]
pub struct Reno {
    /// Fast-recovery inflation, segments.
    pub(super) inflation: f64,
    /// The first unacknowledged segment is to be retransmitted before anything else.
    pub(super) retransmit_pending: bool,
    dupthresh: u32,
    /// Whether duplicate ACKs inflate the window (not when the algorithm sets cwnd on every ACK).
    pub(super) inflates: bool,
}

impl Reno {
    pub fn new(dupthresh: u32) -> Self {
        Reno { inflation: 0.0, retransmit_pending: false, dupthresh, inflates: true }
    }

    /// Exactly the DupThresh-th duplicate ACK triggers fast retransmit (later ones only inflate).
    pub(super) fn detects_loss(&self, dupacks: u32) -> bool {
        dupacks == self.dupthresh
    }

    /// RFC 5681 step 2-3: the DupThresh segments the duplicate ACKs announced have left.
    pub(super) fn on_enter(&mut self) {
        if self.inflates {
            self.inflation = self.dupthresh as f64;
        }
        self.retransmit_pending = true;
    }

    pub(super) fn on_dupack_in_recovery(&mut self) {
        if self.inflates {
            self.inflation += 1.0;
        }
    }

    /// RFC 5681 step 6: any new ACK ends recovery; the window deflates to ssthresh.
    pub(super) fn on_new_ack_in_recovery(&mut self, w: &mut Window) -> InRecovery {
        self.inflation = 0.0;
        w.cwnd = w.ssthresh;
        InRecovery::Exit
    }

    /// Go-back-N from the first unacknowledged segment.
    pub(super) fn on_timeout(&mut self, snd_una: u32, snd_nxt: &mut u32) {
        self.inflation = 0.0;
        self.retransmit_pending = false;
        *snd_nxt = snd_una;
    }

    /// The pending retransmission first, then the next segment while what is outstanding stays
    /// below the inflated window (capped by the receiver's).
    pub(super) fn next_segment(&self, s: &SeqState, cwnd: f64, rwnd: f64) -> Option<(u32, bool)> {
        if self.retransmit_pending {
            return Some((s.snd_una, true));
        }
        let allowed = (cwnd + self.inflation).min(rwnd) + 1e-9;
        if s.snd_nxt < s.total_segs && below_floor((s.snd_nxt - s.snd_una) as u64, allowed) {
            Some((s.snd_nxt, s.snd_nxt < s.snd_max))
        } else {
            None
        }
    }

    /// The pending retransmission does not move snd_nxt; anything else (new data, or a segment
    /// resent by go-back-N) does.
    pub(super) fn on_send(&mut self, snd_nxt: &mut u32) {
        if self.retransmit_pending {
            self.retransmit_pending = false;
        } else {
            *snd_nxt += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sender_harness::{new_data, rtx, SenderHarness};
    use crate::cc::RecoveryProcedure;
    use crate::profile::Profile;

    /// ns-2 profile, Reno recovery: per-ACK counting, ssthresh from min(cwnd, rwnd), no
    /// handshake. The window opens to 8 (segments 0..14 sent), then 6 and 8 are lost.
    fn reno_with_two_losses() -> SenderHarness {
        let mut b = SenderHarness::new(RecoveryProcedure::Reno, Profile::Ns2, |_| {});
        b.open_to(6);
        assert_eq!(b.cwnd(), 8.0);
        assert_eq!(b.sender.snd_max, 14, "ACK 6 leaves 6..14 outstanding");
        b
    }

    #[test]
    fn three_dupacks_retransmit_once_and_inflate_per_dupack() {
        let mut b = reno_with_two_losses();
        // 7 arrives: dupACK 1; 9: dupACK 2. Nothing leaves: 8 outstanding in a window of 8.
        b.ack(6);
        b.ack(6);
        assert_eq!(b.sent(), vec![]);
        // 10: dupACK 3. Fast retransmit of 6; ssthresh = cwnd = 8/2 = 4, inflation 3: window 7,
        // 8 outstanding, so nothing new.
        b.ack(6);
        assert_eq!(b.sent(), vec![rtx(6)]);
        assert_eq!((b.cwnd(), b.ssthresh(), b.window()), (4.0, 4.0, 7.0));
        // 11, 12, 13: dupACKs 4..6 inflate to 10: two new segments (14, 15) fit.
        b.ack(6);
        assert_eq!(b.sent(), vec![]);
        b.ack(6);
        assert_eq!(b.sent(), vec![new_data(14)]);
        b.ack(6);
        assert_eq!(b.sent(), vec![new_data(15)]);
        assert_eq!(b.window(), 10.0);
    }

    #[test]
    fn the_first_new_ack_ends_recovery_even_when_partial() {
        let mut b = reno_with_two_losses();
        for _ in 0..6 {
            b.ack(6);
        }
        b.sent();
        // The retransmitted 6 arrives; 8 is still missing: ACK 8 is partial, but Reno leaves
        // recovery at once: cwnd = ssthresh = 4, no inflation; 8..16 outstanding is too much.
        b.ack(8);
        assert!(!b.in_recovery());
        assert_eq!((b.cwnd(), b.window()), (4.0, 4.0));
        assert_eq!(b.sent(), vec![]);
        // Further duplicate ACKs for 8 (from 14, 15 and others): three of them, but 8 < the
        // recovery point 14, so no second fast retransmit (RFC 6582's check; ns-2's bugFix_).
        for _ in 0..3 {
            b.ack(8);
        }
        assert_eq!(b.sent(), vec![]);
        assert_eq!(b.sender.stats.fast_retransmits, 1);
    }

    #[test]
    fn a_timeout_goes_back_to_snd_una_without_inflation() {
        let mut b = reno_with_two_losses();
        for _ in 0..3 {
            b.ack(6);
        }
        b.sent();
        b.fire_rto();
        // Reno's reduction at the timeout: ssthresh = 4/2 = 2 (never below 2), cwnd = 1.
        assert_eq!((b.cwnd(), b.window()), (1.0, 1.0));
        assert_eq!(b.sent(), vec![rtx(6)]);
        // ACK 7 (slow start: cwnd 2): go-back-N resends 7 and 8.
        b.ack(7);
        assert_eq!(b.sent(), vec![rtx(7), rtx(8)]);
    }
}
