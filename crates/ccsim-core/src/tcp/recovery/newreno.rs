//! NewReno fast recovery (RFC 6582): as Reno's, but recovery lasts until the recovery point
//! (snd_max when it began) is acknowledged. A partial ACK (new data, below the recovery point)
//! shows that the next hole is lost as well: retransmit it at once and stay in recovery, so one
//! episode repairs every loss of a window with one window reduction.
//!
//! Profile variants: RFC 6582 deflates the inflated window by the amount a partial ACK
//! acknowledges (adding one segment back) and, on the full ACK, sets cwnd to
//! min(ssthresh, flight + 1) ("option 1"); ns-2 drops the inflation on a partial ACK and sets cwnd
//! to ssthresh (`partial_window_deflation`). RFC 6582 restarts the timer only on the first
//! partial ACK ("impatient"); ns-2 on every one ("slow but steady",
//! `restart_rto_every_partial_ack`).

use super::reno::Reno;
use super::{InRecovery, SeqState};
use crate::cc::Window;
use crate::tcp::stack_settings::StackConfig;

#[derive(Clone, Debug)]
pub struct NewReno {
    /// Inflation and the pending retransmission work as in Reno.
    pub(super) reno: Reno,
    /// Partial ACKs in this episode.
    partial_acks: u32,
    deflation: bool,
    restart_every_partial_ack: bool,
}

impl NewReno {
    pub fn new(stack: &StackConfig) -> Self {
        NewReno {
            reno: Reno::new(stack.dupack_threshold),
            partial_acks: 0,
            deflation: stack.partial_window_deflation,
            restart_every_partial_ack: stack.restart_rto_every_partial_ack,
        }
    }

    pub(super) fn on_enter(&mut self) {
        self.partial_acks = 0;
        self.reno.on_enter();
    }

    pub(super) fn on_new_ack_in_recovery(
        &mut self,
        s: &SeqState,
        newly: u32,
        recover: u32,
        w: &mut Window,
    ) -> InRecovery {
        if s.snd_una >= recover {
            self.exit(s, w);
            return InRecovery::Exit;
        }
        self.partial_ack(newly, w);
        InRecovery::Continue { restart_timer: self.restart_every_partial_ack || self.partial_acks == 1 }
    }

    /// The full ACK: RFC 6582 3.2 step 3 (option 1), or ns-2's cwnd = ssthresh.
    fn exit(&mut self, s: &SeqState, w: &mut Window) {
        self.reno.inflation = 0.0;
        w.cwnd = if self.deflation {
            let flight = s.snd_nxt - s.snd_una;
            w.ssthresh.min(flight.max(1) as f64 + 1.0)
        } else {
            w.ssthresh
        };
    }

    /// A partial ACK: the next hole is lost too; retransmit it at once.
    fn partial_ack(&mut self, newly: u32, w: &Window) {
        self.partial_acks += 1;
        self.reno.retransmit_pending = true;
        let r = &mut self.reno;
        if self.deflation && r.inflates {
            // RFC 6582 3.2 step 4: deflate by the amount acknowledged, add back one segment.
            r.inflation -= newly as f64;
            if newly >= 1 {
                r.inflation += 1.0;
            }
            r.inflation = r.inflation.max(1.0 - w.cwnd);
        } else {
            // ns-2 `tcp-newreno.cc` without partial_window_deflation_: the inflation is dropped
            // entirely on a partial ACK (dupwnd_ = 0); later duplicate ACKs inflate it again.
            r.inflation = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sender_harness::{new_data, rtx, SenderHarness};
    use crate::cc::RecoveryProcedure;
    use crate::profile::Profile;

    /// The window opens to 8 (segments 0..14 sent, 6..14 outstanding); 6, 8 and 11 are lost.
    /// The receiver holds 7, 9, 10, 12, 13: five duplicate ACKs for 6.
    fn three_losses(profile: Profile) -> SenderHarness {
        let mut b = SenderHarness::new(RecoveryProcedure::NewReno, profile, |s| {
            s.per_ack_counting = true;
            s.delayed_ack = false;
            s.initial_window = 2.0;
            s.initial_window_from_mss = false;
        });
        b.open_to(6);
        assert_eq!(b.cwnd(), 8.0);
        assert_eq!(b.sender.snd_max, 14);
        b
    }

    #[test]
    fn ns2_partial_acks_retransmit_each_hole_and_drop_the_inflation() {
        let mut b = three_losses(Profile::Ns2);
        // dupACKs 1, 2, 3 (from 7, 9, 10): retransmit 6; ssthresh = cwnd = 4; window 4 + 3.
        for _ in 0..3 {
            b.ack(6);
        }
        assert_eq!(b.sent(), vec![rtx(6)]);
        assert_eq!((b.cwnd(), b.ssthresh(), b.window()), (4.0, 4.0, 7.0));
        // dupACKs 4, 5 (from 12, 13): window 9, 8 outstanding: 14 leaves.
        b.ack(6);
        b.ack(6);
        assert_eq!(b.sent(), vec![new_data(14)]);
        // 6 arrives: partial ACK 8. Retransmit 8 at once; ns-2 drops the inflation: window 4,
        // 8..15 = 7 outstanding, nothing new.
        b.ack(8);
        assert!(b.in_recovery());
        assert_eq!(b.sent(), vec![rtx(8)]);
        assert_eq!(b.window(), 4.0);
        // 8 arrives: partial ACK 11 (9, 10 were held). Retransmit 11.
        b.ack(11);
        assert_eq!(b.sent(), vec![rtx(11)]);
        // 14's duplicate ACK inflates by one: window 5, 11..15 = 4 outstanding: 15 leaves.
        b.ack(11);
        assert_eq!(b.sent(), vec![new_data(15)]);
        // 11 arrives: ACK 15 >= recovery point 14: full ACK, cwnd = ssthresh = 4.
        b.ack(15);
        assert!(!b.in_recovery());
        assert_eq!((b.cwnd(), b.window()), (4.0, 4.0));
        assert_eq!(b.sender.stats.fast_retransmits, 1, "one episode, one reduction");
        assert_eq!(b.sender.stats.retransmits, 3);
        // 15 outstanding, window 4: 16, 17, 18 leave.
        assert_eq!(b.sent(), vec![new_data(16), new_data(17), new_data(18)]);
    }

    #[test]
    fn rfc_partial_acks_deflate_by_the_amount_acknowledged() {
        let mut b = three_losses(Profile::Rfc);
        // The rfc profile's flight-size basis: ssthresh = max(8 outstanding / 2, 2) = 4.
        for _ in 0..5 {
            b.ack(6);
        }
        assert_eq!(b.sent(), vec![rtx(6), new_data(14)]);
        assert_eq!(b.window(), 9.0);
        // Partial ACK 8 acknowledges 2: inflation 5 - 2 + 1 = 4, window 8; 8..15 is 7: 15 leaves.
        b.ack(8);
        assert_eq!(b.sent(), vec![rtx(8), new_data(15)]);
        assert_eq!(b.window(), 8.0);
        // Partial ACK 11 acknowledges 3: inflation 4 - 3 + 1 = 2, window 6; 11..16 is 5: 16.
        b.ack(11);
        assert_eq!(b.sent(), vec![rtx(11), new_data(16)]);
        assert_eq!(b.window(), 6.0);
        // Full ACK 17 (everything up to 16 held): cwnd = min(ssthresh 4, flight 0 -> 1, + 1) = 2.
        b.ack(17);
        assert!(!b.in_recovery());
        assert_eq!(b.cwnd(), 2.0);
    }

    #[test]
    fn only_the_first_partial_ack_restarts_the_timer_under_rfc() {
        // Three duplicate ACKs, a partial ACK, 5 ms, a second partial ACK: the retransmission
        // deadline after the first partial ACK and after the second.
        let deadlines = |profile| {
            let mut b = three_losses(profile);
            for _ in 0..3 {
                b.ack(6);
            }
            b.ack(8);
            let first = b.sender.retransmit_timer.deadline();
            b.advance(5);
            b.ack(11);
            (first, b.sender.retransmit_timer.deadline())
        };
        let (first, second) = deadlines(Profile::Rfc);
        assert_eq!(second, first, "impatient: the second keeps the deadline");
        let (first, second) = deadlines(Profile::Ns2);
        assert!(second > first, "slow but steady: every one restarts it");
    }
}
