//! Conservative SACK-based loss recovery (RFC 6675): the scoreboard
//! ([`crate::tcp::sack::Scoreboard`]) decides which segments are lost and `pipe` how many are in
//! the network; the sender transmits while cwnd - pipe >= 1, lost segments first (NextSeg()
//! rule 1), then new data (rule 2). No inflation: cwnd is set once on entry (the algorithm's
//! reduction) and to ssthresh when the recovery point is acknowledged.
//!
//! A loss is detected when the first unacknowledged segment is lost by the scoreboard's rule
//! (DupThresh SACKed segments above it) or after DupThresh duplicate ACKs (RFC 6675 section 5).
//! After a timeout everything unSACKed is presumed lost and resent first; SACKed data is not.
//!
//! With PRR ([`super::prr`], the stack's `prr`) the window is not cut at once: each ACK in
//! recovery sets cwnd to `pipe` plus PRR's share for it, so that the flight falls to ssthresh
//! over the round trip, and NextSeg() sends within that as before.

use super::prr::{Prr, PrrMode};
use super::{AckDelivery, InRecovery, SeqState};
use crate::cc::Window;
use crate::math::below_floor;
use crate::tcp::sack::{LossMarking, Scoreboard};

#[derive(Clone, Debug)]
pub struct Sack {
    scoreboard: Scoreboard,
    dupthresh: u32,
    /// PRR, when the stack asks for it. Boxed: a flow without it stays as small as before.
    prr: Option<Box<PrrPacing>>,
    /// Send new data only, no retransmission (F-RTO's step 2b, RFC 5682 section 3.1).
    new_data_only: bool,
    /// The loss edge and the scoreboard's one-by-one marks when losses were last counted
    /// ([`Self::new_losses`]).
    losses_seen: (u32, u64),
}

/// PRR over a recovery episode (RFC 9937), with what this procedure feeds it between ACKs.
#[derive(Clone, Debug)]
struct PrrPacing {
    prr: Prr,
    /// The sender's count of segments sent at the last ACK paced: those sent since are prr_out's.
    sent_seen: u64,
    /// The loss edge and the scoreboard's marks at the last ACK paced: a segment lost since is a
    /// further loss (the ACK is not RFC 9937's safeACK).
    edge_seen: u32,
    marks_seen: u64,
}

impl PrrPacing {
    fn new(mode: PrrMode) -> Option<Box<Self>> {
        mode.is_on().then(|| Box::new(PrrPacing { prr: Prr::new(mode), sent_seen: 0, edge_seen: 0, marks_seen: 0 }))
    }
}

impl Sack {
    pub fn new(dupthresh: u32, prr: PrrMode) -> Self {
        Sack {
            scoreboard: Scoreboard::new(dupthresh),
            dupthresh,
            prr: PrrPacing::new(prr),
            new_data_only: false,
            losses_seen: (0, 0),
        }
    }

    /// The same recovery on a scoreboard whose losses its owner marks (RACK-TLP's).
    pub(super) fn with_marked_losses(dupthresh: u32, prr: PrrMode) -> Self {
        Sack {
            scoreboard: Scoreboard::with_marking(LossMarking::Marked),
            dupthresh,
            prr: PrrPacing::new(prr),
            new_data_only: false,
            losses_seen: (0, 0),
        }
    }

    pub(super) fn drop_prr(&mut self) {
        self.prr = None;
    }

    /// Segments newly lost since the last call: those the loss edge passed (unSACKed, at or
    /// above `snd_una`) and those marked one by one.
    #[inline]
    pub(super) fn new_losses(&mut self, snd_una: u32) -> u64 {
        let sb = &self.scoreboard;
        let (edge_seen, marks_seen) = self.losses_seen;
        let n = sb.lost_past(edge_seen, snd_una) + (sb.loss_marks() - marks_seen);
        self.losses_seen = (sb.loss_edge(), sb.loss_marks());
        n
    }

    pub(super) fn prr_mode(&self) -> PrrMode {
        self.prr.as_ref().map_or(PrrMode::Off, |p| p.prr.mode())
    }

    pub(super) fn scoreboard(&mut self) -> &mut Scoreboard {
        &mut self.scoreboard
    }

    #[inline]
    pub(super) fn pipe(&self, s: &SeqState) -> u32 {
        self.scoreboard.pipe(s.snd_una, s.snd_max) as u32
    }

    pub(super) fn on_ack(&mut self, ack: u32, blocks: impl Iterator<Item = (u32, u32)>) -> u64 {
        self.scoreboard.on_ack(ack, blocks)
    }

    /// Whether any segment from `snd_una` on is lost.
    pub(super) fn has_lost(&self, snd_una: u32) -> bool {
        self.scoreboard.has_lost(snd_una)
    }

    pub(super) fn detects_loss(&self, snd_una: u32, dupacks: u32) -> bool {
        self.scoreboard.is_lost(snd_una) || dupacks >= self.dupthresh
    }

    /// An episode starts on `ack`; with PRR, RFC 9937 section 6.1, then the ACK's share.
    pub(super) fn on_enter(&mut self, s: &SeqState, ack: &AckDelivery, w: &mut Window) {
        self.scoreboard.start_episode(s.snd_una);
        let Some(p) = &mut self.prr else { return };
        // RecoverFS: what may be delivered during the episode, everything outstanding that was
        // not SACKed before this ACK (SND.NXT - SND.UNA - SACKed + this ACK's deliveries).
        let outstanding = u64::from(s.snd_max - s.snd_una);
        let unsacked = outstanding - self.scoreboard.sacked_count().min(outstanding);
        p.prr.start(w.ssthresh, unsacked + u64::from(ack.delivered));
        p.sent_seen = ack.packets_sent;
        p.edge_seen = self.scoreboard.loss_edge();
        p.marks_seen = self.scoreboard.loss_marks();
        // A recovery that RACK's reordering timer starts (no ACK) counts one segment delivered, as
        // Linux does: its first retransmission leaves at once.
        let pipe = self.scoreboard.pipe(s.snd_una, s.snd_max) as u32;
        if let Some(sndcnt) = p.prr.on_ack(ack.delivered.max(1), pipe, false) {
            w.cwnd = f64::from(pipe) + sndcnt as f64;
        }
    }

    /// An ACK in recovery, before the sender sends: with PRR, cwnd = `pipe` + PRR's share.
    #[inline]
    pub(super) fn pace_recovery(&mut self, s: &SeqState, ack: &AckDelivery, w: &mut Window) {
        if self.prr.is_some() {
            self.pace_by_prr(s, ack, w);
        }
    }

    /// RFC 9937 section 6.2. The ACK is safe when it advanced SND.UNA and no segment became lost
    /// since the last ACK paced (by the loss edge, a lost retransmission or RACK's marks).
    #[inline(never)]
    fn pace_by_prr(&mut self, s: &SeqState, ack: &AckDelivery, w: &mut Window) {
        let Some(p) = &mut self.prr else { return };
        let sb = &self.scoreboard;
        let further_loss = sb.loss_marks() != p.marks_seen || sb.lost_past(p.edge_seen, s.snd_una) > 0;
        p.edge_seen = sb.loss_edge();
        p.marks_seen = sb.loss_marks();
        p.prr.on_sent(ack.packets_sent - p.sent_seen);
        p.sent_seen = ack.packets_sent;
        let pipe = sb.pipe(s.snd_una, s.snd_max) as u32;
        if let Some(sndcnt) = p.prr.on_ack(ack.delivered, pipe, ack.una_advanced && !further_loss) {
            w.cwnd = f64::from(pipe) + sndcnt as f64;
        }
    }

    /// Recovery ends when the recovery point is acknowledged, with cwnd = ssthresh (RFC 6675;
    /// RFC 9937 section 6.4 with PRR); until then the scoreboard decides what to send, and every
    /// new ACK restarts the timer.
    pub(super) fn on_new_ack_in_recovery(&mut self, snd_una: u32, recover: u32, w: &mut Window) -> InRecovery {
        if snd_una >= recover {
            w.cwnd = w.ssthresh;
            InRecovery::Exit
        } else {
            InRecovery::Continue { restart_timer: true }
        }
    }

    pub(super) fn on_timeout(&mut self, snd_una: u32, snd_max: u32) {
        self.scoreboard.on_timeout(snd_una, snd_max);
    }

    /// F-RTO (RFC 5682 section 3.1 step 2b): whether only new data may leave.
    pub(super) fn set_new_data_only(&mut self, on: bool) {
        self.new_data_only = on;
    }

    /// A timeout proved spurious: what it marked lost is not (Linux `tcp_undo_cwnd_reduction`
    /// with `unmark_loss`).
    pub(super) fn unmark_timeout_losses(&mut self) {
        self.scoreboard.unmark_timeout_losses();
    }

    /// RFC 6675 NextSeg() rules 1 and 2, sent while cwnd - pipe >= 1: the first lost segment not
    /// yet retransmitted, else new data within the receiver window.
    pub(super) fn next_segment(&mut self, s: &SeqState, cwnd: f64, rwnd: f64) -> Option<(u32, bool)> {
        if !below_floor(self.scoreboard.pipe(s.snd_una, s.snd_max), cwnd + 1e-9) {
            return None;
        }
        if !self.new_data_only {
            if let Some(seq) = self.scoreboard.next_lost(s.snd_una) {
                return Some((seq, true));
            }
        }
        let in_rwnd = below_floor((s.snd_nxt - s.snd_una) as u64, rwnd + 1e-9);
        (s.snd_nxt < s.total_segs && in_rwnd).then_some((s.snd_nxt, false))
    }

    pub(super) fn on_send(&mut self, seq: u32, retransmission: bool, snd_nxt: &mut u32) {
        if retransmission {
            self.scoreboard.on_retransmit(seq, *snd_nxt);
        } else {
            *snd_nxt += 1;
        }
    }

    pub(super) fn release(&mut self) {
        let marking =
            if self.scoreboard.counts_sacks() { LossMarking::DupThresh(self.dupthresh) } else { LossMarking::Marked };
        self.scoreboard = Scoreboard::with_marking(marking);
        self.losses_seen = (0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::super::sender_harness::{new_data, rtx, SenderHarness};
    use crate::cc::RecoveryProcedure;
    use crate::profile::Profile;

    /// Linux profile with SACK, no delayed ACKs: after the handshake the initial window of 10
    /// leaves (0..10); 2 and 5 are lost.
    fn window_of_ten() -> SenderHarness {
        let mut b = SenderHarness::new(RecoveryProcedure::Sack, Profile::LinuxSack, |s| s.delayed_ack = false);
        b.handshake();
        assert_eq!(b.sent(), SenderHarness::data(0..10));
        b
    }

    #[test]
    fn sacked_segments_above_a_hole_mark_it_lost_and_pipe_paces_recovery() {
        let mut b = window_of_ten();
        b.ack(1);
        b.ack(2);
        // Slow start: cwnd 12; 10..14 left.
        assert_eq!(b.sent(), SenderHarness::data(10..14));
        assert_eq!(b.cwnd(), 12.0);
        // 3 and 4 arrive: SACK [3,5); two above the hole, fewer than DupThresh: no loss yet.
        b.ack_sack(2, &[(3, 4)]);
        b.ack_sack(2, &[(3, 5)]);
        assert!(!b.in_recovery());
        // 6 arrives: SACK [6,7),[3,5): three SACKed above 2, so 2 is lost (the third-highest
        // SACKed segment is 4 > 2): recovery. Linux's Reno: ssthresh = cwnd/2 = 6 = cwnd.
        // pipe = outstanding 12 - sacked 3 - lost 1 (2) = 8 >= 6: nothing may leave, not even 2.
        b.ack_sack(2, &[(6, 7), (3, 5)]);
        assert!(b.in_recovery());
        assert_eq!((b.cwnd(), b.ssthresh()), (6.0, 6.0));
        assert_eq!(b.sent(), vec![]);
        // 7, 8 arrive: SACKed 3,4,6,7,8; loss edge = 6 (third highest), so 5 is lost too:
        // pipe = 12 - 5 - 2 = 5 < 6: retransmit 2 (pipe 6).
        b.ack_sack(2, &[(6, 8), (3, 5)]);
        b.ack_sack(2, &[(6, 9), (3, 5)]);
        assert_eq!(b.sent(), vec![rtx(2)]);
        // 9: pipe = 12 - 6 - 2 + 1 = 5: retransmit 5.
        b.ack_sack(2, &[(6, 10), (3, 5)]);
        assert_eq!(b.sent(), vec![rtx(5)]);
        // 10: pipe 5 again: new data 14.
        b.ack_sack(2, &[(6, 11), (3, 5)]);
        assert_eq!(b.sent(), vec![new_data(14)]);
        // The retransmitted 2 arrives: ACK 5, partial; 5's retransmission is still in flight.
        b.ack_sack(5, &[(6, 11)]);
        assert!(b.in_recovery());
        // 5 arrives: ACK 11 >= recovery point 14? No: 11..15 still outstanding.
        b.ack(11);
        assert!(b.in_recovery());
        b.ack(14);
        assert!(!b.in_recovery());
        assert_eq!(b.cwnd(), 6.0, "cwnd = ssthresh on exit");
        assert_eq!(b.sender.stats.fast_retransmits, 1);
        assert_eq!(b.sender.stats.retransmits, 2);
    }

    #[test]
    fn three_duplicate_acks_without_blocks_also_detect_a_loss() {
        let mut b = window_of_ten();
        b.ack(2);
        b.sent();
        for _ in 0..3 {
            b.ack(2);
        }
        assert!(b.in_recovery(), "DupThresh duplicate ACKs, even without SACK information");
    }

    #[test]
    fn a_timeout_resends_every_unsacked_segment_but_not_the_sacked_ones() {
        let mut b = window_of_ten();
        b.ack_sack(0, &[(4, 6)]);
        b.sent();
        b.fire_rto();
        // cwnd 1: the first lost segment only.
        assert_eq!(b.sent(), vec![rtx(0)]);
        // ACK 1: slow start, cwnd 2: 1 and 2 are resent (not go-back-N's snd_nxt rewind).
        b.ack_sack(1, &[(4, 6)]);
        assert_eq!(b.sent(), vec![rtx(1), rtx(2)]);
        b.ack_sack(3, &[(4, 6)]);
        // ACK 3: cwnd 4, and 1, 2 are acknowledged: pipe 0. The lost segments left, in order,
        // skipping the SACKed 4 and 5: 3, 6, 7, 8.
        assert_eq!(b.sent(), vec![rtx(3), rtx(6), rtx(7), rtx(8)]);
    }
}
