//! The SACK scoreboard and the loss-recovery arithmetic of RFC 6675 ("conservative" SACK-based
//! loss recovery), in segments.
//!
//! RFC 6675 recomputes `pipe` by walking every outstanding segment on each ACK; here the same
//! quantity is kept from counters so that an ACK costs O(holes), not O(window):
//!
//! ```text
//! pipe = outstanding - sacked - lost + retransmitted_in_flight
//! ```
//!
//! where a segment is *lost* if it is not SACKed and at least DupThresh SACKed segments lie above
//! it (IsLost, RFC 6675 section 4), or if it was outstanding when the retransmission timer fired
//! (the whole window is then presumed lost, as Linux marks it on entering the Loss state, while
//! SACK information is kept).
//!
//! RFC 6675 cannot see a lost retransmission: only the timer recovers it. Like Linux
//! (`tcp_mark_lost_retrans`, and RACK after it), the scoreboard presumes a retransmission lost
//! once a segment first sent after it has been SACKed, and offers it for retransmission again.
//!
//! Under RACK (RFC 8985) neither SACK-count rule applies: its owner marks segments lost one by
//! one ([`Scoreboard::mark_lost`], by send time), lost retransmissions included, and `pipe` and
//! NextSeg() read those marks as they read the rules' ([`LossMarking`]).

use std::collections::VecDeque;

use super::ranges::RangeSet;

/// `dupthresh` of a scoreboard whose losses are marked by its owner ([`LossMarking::Marked`]).
const NO_SACK_COUNT_RULE: u32 = 0;

/// Which rule, besides a timeout, marks segments lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossMarking {
    /// RFC 6675 IsLost (DupThresh SACKed segments above), and a retransmission overtaken by
    /// SACKed later data.
    DupThresh(u32),
    /// Only what the owner marks with [`Scoreboard::mark_lost`] (RACK: by send time).
    Marked,
}

#[derive(Clone, Debug)]
pub struct Scoreboard {
    sacked: RangeSet,
    /// Segments marked lost by [`Scoreboard::mark_lost`] at or above the loss edge (below it,
    /// unSACKed segments are lost anyway), none of them SACKed.
    marked_lost: RangeSet,
    /// Segments retransmitted and neither acknowledged nor SACKed since.
    retransmitted: RangeSet,
    /// Each retransmission with the next new segment at the time it left, in sending order (so
    /// the second field never decreases): SACKed data at or above it proves the retransmission
    /// was lost.
    rtx_order: VecDeque<(u32, u32)>,
    /// Every unSACKed segment below this was outstanding at the last timeout: lost.
    timeout_edge: u32,
    /// Retransmission candidates start here (one past the highest segment retransmitted for
    /// loss in this episode: RFC 6675 HighRxt + 1).
    next_rxt: u32,
    dupthresh: u32,
    /// The loss edge (see [`Self::loss_edge`]) and the SACKed segments below it, kept from the
    /// last change of `sacked` or `timeout_edge`: `pipe` and `next_lost` are asked before every
    /// segment sent, and recomputing them walks the SACKed ranges.
    edge: u32,
    sacked_below_edge: u64,
    /// Every segment from the retransmission candidates' start up to this one is SACKed or
    /// retransmitted (0: nothing known): where the last `next_lost` search stopped, so that
    /// the next one, before every segment sent in recovery, does not walk the same ranges again.
    /// Reset whenever a segment stops being retransmitted without being SACKed.
    searched_to: u32,
    /// Every segment in `[.0, .1)` marked lost one by one is retransmitted: what the last search
    /// of those marks walked, so that the next, before every segment sent while many marked
    /// segments wait for their retransmissions' fate, does not walk them again. Cut short
    /// whenever a marked segment in it becomes a retransmission candidate again.
    marked_searched: (u32, u32),
    /// Segments marked lost one by one so far: by the owner ([`Self::mark_lost`]) and as lost
    /// retransmissions. With the loss edge's moves ([`Self::lost_past`]) this tells whether an
    /// ACK showed a further loss (PRR's safeACK, RFC 9937).
    loss_marks: u64,
}

impl Scoreboard {
    /// RFC 6675's scoreboard: lost by DupThresh SACKed segments above.
    pub fn new(dupthresh: u32) -> Self {
        Self::with_marking(LossMarking::DupThresh(dupthresh))
    }

    pub fn with_marking(marking: LossMarking) -> Self {
        Scoreboard {
            sacked: RangeSet::default(),
            marked_lost: RangeSet::default(),
            retransmitted: RangeSet::default(),
            rtx_order: VecDeque::new(),
            timeout_edge: 0,
            next_rxt: 0,
            dupthresh: match marking {
                LossMarking::DupThresh(n) => n,
                LossMarking::Marked => NO_SACK_COUNT_RULE,
            },
            edge: 0,
            sacked_below_edge: 0,
            searched_to: 0,
            marked_searched: (0, 0),
            loss_marks: 0,
        }
    }

    /// Whether losses are marked by the SACK-count rules (else only by the owner and timeouts).
    #[inline]
    pub fn counts_sacks(&self) -> bool {
        self.dupthresh != NO_SACK_COUNT_RULE
    }

    /// Apply an ACK: everything below `una` is acknowledged; `blocks` are SACKed. Returns the
    /// number of segments newly SACKed (an ACK with new SACK information counts as a duplicate
    /// ACK, RFC 6675 section 2).
    #[inline]
    pub fn on_ack(&mut self, una: u32, blocks: impl Iterator<Item = (u32, u32)>) -> u64 {
        let mut blocks = blocks.peekable();
        if self.sacked.is_empty()
            && self.retransmitted.is_empty()
            && self.marked_lost.is_empty()
            && blocks.peek().is_none()
        {
            // Nothing to forget, to add or to overtake: the ACK of a window without holes (most
            // ACKs; this test is inlined into the ACK path, the rest is not).
            return 0;
        }
        self.update(una, blocks)
    }

    #[inline(never)]
    fn update(&mut self, una: u32, blocks: impl Iterator<Item = (u32, u32)>) -> u64 {
        self.sacked.remove_below(una);
        self.retransmitted.remove_below(una);
        self.marked_lost.remove_below(una);
        let mut added = 0;
        for (start, end) in blocks {
            let start = start.max(una);
            if start < end {
                added += self.sacked.insert_range(start, end);
                self.retransmitted.remove_range(start, end);
                if !self.marked_lost.is_empty() {
                    // Delivered after all: late, or its retransmission arrived.
                    self.marked_lost.remove_range(start, end);
                }
            }
        }
        self.detect_lost_retransmissions();
        self.refresh_edge();
        added
    }

    fn refresh_edge(&mut self) {
        let by_sack = if self.counts_sacks() { self.sacked.nth_highest(self.dupthresh as u64).unwrap_or(0) } else { 0 };
        self.edge = by_sack.max(self.timeout_edge);
        self.sacked_below_edge = self.sacked.count() - self.sacked.count_from(self.edge);
    }

    /// Retransmissions overtaken by SACKed later data are lost: they leave `retransmitted` (so
    /// `pipe` stops counting them) and become retransmission candidates again.
    fn detect_lost_retransmissions(&mut self) {
        let Some(&(_, highest_end)) = self.sacked.ranges().last() else { return };
        while let Some(&(seq, sent_before)) = self.rtx_order.front() {
            if sent_before >= highest_end {
                break;
            }
            self.rtx_order.pop_front();
            if self.retransmitted.remove_range(seq, seq + 1) == 1 {
                self.next_rxt = self.next_rxt.min(seq);
                self.searched_to = 0;
                self.unsearch_marked(seq);
                self.loss_marks += 1;
            }
        }
    }

    /// Segments below this that are not SACKed are lost.
    pub fn loss_edge(&self) -> u32 {
        self.edge
    }

    /// Segments the loss edge has made lost since it stood at `edge_was`, with nothing below
    /// `una` outstanding: those not SACKed in [max(edge_was, una), edge). (SACKed segments stay
    /// SACKed, so none of them was lost before.)
    pub fn lost_past(&self, edge_was: u32, una: u32) -> u64 {
        let from = edge_was.max(una);
        if self.edge <= from {
            return 0;
        }
        let sacked = self.sacked.count_from(from) - self.sacked.count_from(self.edge);
        u64::from(self.edge - from) - sacked
    }

    /// Segments marked lost one by one so far (see the field).
    pub fn loss_marks(&self) -> u64 {
        self.loss_marks
    }

    /// Whether `seq` (not SACKed) is lost.
    pub fn is_lost(&self, seq: u32) -> bool {
        seq < self.loss_edge() && !self.sacked.contains(seq) || self.marked_lost.contains(seq)
    }

    pub fn is_sacked(&self, seq: u32) -> bool {
        self.sacked.contains(seq)
    }

    /// Whether any segment from `una` on is lost (Linux: `lost_out > 0`).
    pub fn has_lost(&self, una: u32) -> bool {
        self.lost(una) > 0
    }

    /// Lost, unSACKed segments from `una` on: those in [una, loss edge) and those marked above it.
    fn lost(&self, una: u32) -> u64 {
        let marked = self.marked_lost.count();
        if self.edge <= una {
            return marked;
        }
        // Nothing below `una` is SACKed (each ACK forgets it), so the SACKed segments below the
        // edge all lie in [una, edge).
        (self.edge - una) as u64 - self.sacked_below_edge + marked
    }

    /// RFC 6675 `pipe`: segments presumed in the network, given [una, snd_max) outstanding.
    pub fn pipe(&self, una: u32, snd_max: u32) -> u64 {
        let outstanding = (snd_max - una) as u64;
        outstanding - self.sacked.count() - self.lost(una) + self.retransmitted.count()
    }

    pub fn sacked_count(&self) -> u64 {
        self.sacked.count()
    }

    /// RFC 6675 NextSeg() rule 1: the first lost segment not yet retransmitted in this episode
    /// (or whose retransmission was lost).
    #[inline]
    pub fn next_lost(&mut self, una: u32) -> Option<u32> {
        let seq = self.next_rxt.max(una);
        if seq >= self.loss_edge() && self.marked_lost.is_empty() {
            // Nothing below the loss edge is left to look at and nothing marked above it: the
            // common case, asked before every segment sent (inlined; the search is not).
            return None;
        }
        self.search_lost(seq)
    }

    #[inline(never)]
    fn search_lost(&mut self, mut seq: u32) -> Option<u32> {
        let edge = self.loss_edge();
        if seq >= edge {
            return self.next_marked_lost(seq);
        }
        seq = seq.max(self.searched_to);
        let found = loop {
            if seq >= edge {
                break None;
            }
            match self.sacked.range_containing(seq).or_else(|| self.retransmitted.range_containing(seq)) {
                Some((_, end)) => seq = end,
                None => break Some(seq),
            }
        };
        self.searched_to = seq;
        found.or_else(|| if self.marked_lost.is_empty() { None } else { self.next_marked_lost(edge) })
    }

    /// The first segment from `from` on marked lost and not retransmitted since.
    #[inline(never)]
    fn next_marked_lost(&mut self, from: u32) -> Option<u32> {
        let (searched_from, searched_to) = self.marked_searched;
        let resumes = (searched_from..=searched_to).contains(&from);
        let begin = if resumes { searched_to } else { from };
        let mut found = None;
        let mut scanned_to = begin;
        'ranges: for &(start, end) in self.marked_lost.ranges_from(begin) {
            let mut seq = start.max(begin);
            while seq < end {
                match self.retransmitted.range_containing(seq) {
                    Some((_, rtx_end)) => seq = rtx_end,
                    None => {
                        found = Some(seq);
                        break 'ranges;
                    }
                }
            }
            scanned_to = end;
        }
        let stop = found.unwrap_or(scanned_to);
        self.marked_searched = if resumes { (searched_from, stop) } else { (from, stop) };
        found
    }

    /// Marked segment `seq` may be a retransmission candidate again: the walked span ends there.
    #[inline]
    fn unsearch_marked(&mut self, seq: u32) {
        let (from, to) = self.marked_searched;
        if (from..to).contains(&seq) {
            self.marked_searched = (from, seq);
        }
    }

    /// A loss retransmission of `seq` left while `snd_nxt` was the next new segment.
    pub fn on_retransmit(&mut self, seq: u32, snd_nxt: u32) {
        self.retransmitted.insert(seq);
        if self.counts_sacks() {
            self.rtx_order.push_back((seq, snd_nxt));
        }
        self.next_rxt = self.next_rxt.max(seq + 1);
    }

    /// `seq` (outstanding, not SACKed) is lost: its owner's rule says so (RACK: by send time).
    /// A retransmission of it in flight is lost too: it leaves `pipe`, and `seq` is offered
    /// for retransmission again.
    pub fn mark_lost(&mut self, seq: u32) {
        debug_assert!(!self.sacked.contains(seq), "a SACKed segment is not lost");
        self.loss_marks += 1;
        self.retransmitted.remove_range(seq, seq + 1);
        if seq >= self.edge {
            self.marked_lost.insert(seq);
        }
        self.next_rxt = self.next_rxt.min(seq);
        self.searched_to = 0;
        self.unsearch_marked(seq);
    }

    /// A new loss-recovery episode starts at `una`.
    pub fn start_episode(&mut self, una: u32) {
        self.next_rxt = una;
        self.searched_to = 0;
    }

    /// A timeout proved spurious: the segments it marked lost are not (those marked by the
    /// SACK-count rule stay lost).
    pub fn unmark_timeout_losses(&mut self) {
        self.timeout_edge = 0;
        self.searched_to = 0;
        self.refresh_edge();
    }

    /// The retransmission timer fired with [una, snd_max) outstanding: all of it that is not
    /// SACKed is lost, earlier retransmissions included.
    pub fn on_timeout(&mut self, una: u32, snd_max: u32) {
        self.timeout_edge = snd_max;
        self.marked_lost.clear();
        self.retransmitted.clear();
        self.rtx_order.clear();
        self.next_rxt = una;
        self.searched_to = 0;
        self.marked_searched = (0, 0);
        self.refresh_edge();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten segments 0..10 outstanding; 2 and 5 are lost; the receiver reports 3-4, then 6-9.
    #[test]
    fn a_hand_computed_episode() {
        let mut sb = Scoreboard::new(3);
        // ACK 2 with SACK [3,5): two segments above 2, fewer than DupThresh: nothing lost yet.
        assert_eq!(sb.on_ack(2, [(3, 5)].into_iter()), 2);
        assert_eq!(sb.loss_edge(), 0);
        assert_eq!(sb.pipe(2, 10), 8 - 2);
        assert_eq!(sb.next_lost(2), None);
        // SACK [3,5) and [6,8): four SACKed above 2; the 3rd highest is 4, so 2 is lost, 5 not.
        assert_eq!(sb.on_ack(2, [(6, 8), (3, 5)].into_iter()), 2);
        assert_eq!(sb.loss_edge(), 4);
        assert!(sb.is_lost(2) && !sb.is_lost(3) && !sb.is_lost(5));
        // outstanding 8 - sacked 4 - lost 1 = 3 (segments 5, 8, 9).
        assert_eq!(sb.pipe(2, 10), 3);
        sb.start_episode(2);
        assert_eq!(sb.next_lost(2), Some(2));
        sb.on_retransmit(2, 10);
        assert_eq!(sb.pipe(2, 10), 4, "the retransmission is in flight");
        assert_eq!(sb.next_lost(2), None);
        // SACK [6,10): now 3,4,6,7,8,9 are SACKed; 3rd highest is 7, so 5 is lost too.
        sb.on_ack(2, [(6, 10), (3, 5)].into_iter());
        assert_eq!(sb.loss_edge(), 7);
        assert_eq!(sb.next_lost(2), Some(5));
        // outstanding 8 - sacked 6 - lost 2 (2, 5) + retransmitted 1 = 1.
        assert_eq!(sb.pipe(2, 10), 1);
        sb.on_retransmit(5, 10);
        // The retransmission of 2 arrives: ACK 5 (3, 4 were held); 5's retransmission is in flight.
        sb.on_ack(5, [(6, 10)].into_iter());
        // outstanding 5 - sacked 4 - lost 1 (5) + retransmitted 1 = 1.
        assert_eq!(sb.pipe(5, 10), 1);
        assert_eq!(sb.next_lost(5), None);
    }

    /// 0..10 outstanding, 2 lost and retransmitted while 10 was the next new segment; new data
    /// 10..13 follows. SACKs of segments sent before the retransmission prove nothing; once 10,
    /// sent after it, is SACKed, the retransmission of 2 cannot still be on its way.
    #[test]
    fn a_retransmission_overtaken_by_later_data_is_lost_again() {
        let mut sb = Scoreboard::new(3);
        sb.on_ack(2, [(3, 9)].into_iter());
        sb.start_episode(2);
        assert_eq!(sb.next_lost(2), Some(2));
        sb.on_retransmit(2, 10);
        assert_eq!(sb.next_lost(2), None);
        // outstanding 11 - sacked 6 - lost 1 (segment 2) + its retransmission in flight 1.
        assert_eq!(sb.pipe(2, 13), 11 - 6 - 1 + 1);
        sb.on_ack(2, [(3, 10)].into_iter());
        assert_eq!(sb.next_lost(2), None, "9 was sent before the retransmission");
        sb.on_ack(2, [(3, 11)].into_iter());
        assert_eq!(sb.next_lost(2), Some(2), "10 was sent after it and arrived first");
        // outstanding 11 - sacked 8 - lost 1 (segment 2) + 0 retransmissions in flight: 11, 12.
        assert_eq!(sb.pipe(2, 13), 2);
    }

    /// What PRR's safeACK reads: the segments the loss edge newly made lost since an earlier
    /// edge, and the count of segments marked lost one by one (lost retransmissions, RACK).
    #[test]
    fn further_losses_are_told_by_the_edge_and_the_marks() {
        let mut sb = Scoreboard::new(3);
        sb.on_ack(1, [(4, 7)].into_iter());
        assert_eq!((sb.loss_edge(), sb.lost_past(0, 1)), (4, 3), "1, 2 and 3");
        sb.on_ack(1, [(4, 8)].into_iter());
        assert_eq!((sb.loss_edge(), sb.lost_past(4, 1)), (5, 0), "past SACKed 4 only");
        // 9..12 SACKed: the edge jumps to 9, past SACKed 5..8 and the hole at 8.
        sb.on_ack(1, [(4, 8), (9, 12)].into_iter());
        assert_eq!((sb.loss_edge(), sb.lost_past(5, 1), sb.lost_past(5, 9)), (9, 1, 0));
        assert_eq!(sb.loss_marks(), 0);
        // 1 is retransmitted while 12 is the next new segment; 12 is SACKed: the retransmission
        // is lost, a mark.
        sb.start_episode(1);
        sb.on_retransmit(1, 12);
        sb.on_ack(1, [(4, 8), (9, 13)].into_iter());
        assert_eq!(sb.loss_marks(), 1);
        let mut rack = Scoreboard::with_marking(LossMarking::Marked);
        rack.on_ack(0, [(3, 5)].into_iter());
        rack.mark_lost(0);
        rack.mark_lost(1);
        assert_eq!((rack.loss_marks(), rack.lost_past(0, 0)), (2, 0), "RACK's marks, no edge");
    }

    #[test]
    fn a_timeout_marks_the_whole_window_lost_but_keeps_sack_information() {
        let mut sb = Scoreboard::new(3);
        sb.on_ack(0, [(4, 6)].into_iter());
        sb.on_retransmit(0, 10);
        sb.on_timeout(0, 10);
        assert_eq!(sb.pipe(0, 10), 0, "nothing presumed in flight after a timeout");
        let order: Vec<u32> = std::iter::from_fn(|| {
            let s = sb.next_lost(0)?;
            sb.on_retransmit(s, 10);
            Some(s)
        })
        .collect();
        assert_eq!(order, vec![0, 1, 2, 3, 6, 7, 8, 9], "SACKed 4 and 5 are skipped");
        assert_eq!(sb.pipe(0, 10), 8);
    }

    /// Under RACK's marking: a segment marked lost (and not SACKed) is lost with nothing
    /// SACKed above it; marking its retransmission lost offers it again; SACK clears a mark.
    #[test]
    fn marked_losses_count_in_pipe_and_are_offered_in_order() {
        let mut sb = Scoreboard::with_marking(LossMarking::Marked);
        // 0..10 outstanding, 4..10 SACKed: no DupThresh rule, nothing lost yet.
        sb.on_ack(0, [(4, 10)].into_iter());
        assert_eq!((sb.loss_edge(), sb.pipe(0, 10), sb.next_lost(0)), (0, 4, None));
        sb.mark_lost(2);
        sb.mark_lost(0);
        assert!(sb.has_lost(0) && sb.is_lost(2) && !sb.is_lost(1));
        assert_eq!(sb.pipe(0, 10), 2);
        assert_eq!(sb.next_lost(0), Some(0));
        sb.on_retransmit(0, 10);
        assert_eq!((sb.next_lost(0), sb.pipe(0, 10)), (Some(2), 3));
        sb.on_retransmit(2, 10);
        assert_eq!(sb.next_lost(0), None);
        // The retransmission of 0 is lost as well: offered again, out of pipe.
        sb.mark_lost(0);
        assert_eq!((sb.next_lost(0), sb.pipe(0, 10)), (Some(0), 3));
        // 2's retransmission arrives: SACKed, no longer lost.
        sb.on_ack(0, [(2, 3), (4, 10)].into_iter());
        assert!(!sb.is_lost(2));
        assert_eq!(sb.pipe(0, 10), 2, "1 and 3 in flight; 0 lost; 2 and 4..10 SACKed");
    }

    /// Random episodes under RACK's marking (marks, SACKs, retransmissions, timeouts): `pipe` and
    /// `next_lost` agree with a model kept segment by segment.
    #[test]
    fn marked_losses_agree_with_a_segment_by_segment_model() {
        use crate::rng::{stream, Entity, Purpose};
        use rand::Rng;
        use std::collections::BTreeSet;
        let mut rng = stream(11, Entity::Flow, 0, Purpose::Start);
        for _ in 0..50 {
            let mut sb = Scoreboard::with_marking(LossMarking::Marked);
            let (mut una, mut snd_nxt, mut edge, mut next_rxt) = (0u32, 40u32, 0u32, 0u32);
            let (mut sacked, mut rtx, mut marked) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
            for _ in 0..300 {
                match rng.gen_range(0..10) {
                    0..=2 => {
                        let start = una + rng.gen_range(0..40);
                        let end = start + rng.gen_range(1..6);
                        una += if rng.gen_bool(0.2) { rng.gen_range(0..4) } else { 0 };
                        snd_nxt = snd_nxt.max(una + 1).max(end);
                        sb.on_ack(una, [(start, end)].into_iter());
                        for set in [&mut sacked, &mut rtx, &mut marked] {
                            set.retain(|&q| q >= una);
                        }
                        for q in start.max(una)..end {
                            sacked.insert(q);
                            rtx.remove(&q);
                            marked.remove(&q);
                        }
                    }
                    3..=4 => {
                        let seq = una + rng.gen_range(0..snd_nxt - una);
                        if !sacked.contains(&seq) {
                            sb.mark_lost(seq);
                            rtx.remove(&seq);
                            if seq >= edge {
                                marked.insert(seq);
                            }
                            next_rxt = next_rxt.min(seq);
                        }
                    }
                    5..=6 => {
                        if let Some(seq) = sb.next_lost(una) {
                            sb.on_retransmit(seq, snd_nxt);
                            rtx.insert(seq);
                            next_rxt = next_rxt.max(seq + 1);
                        }
                    }
                    7 => {
                        sb.start_episode(una);
                        next_rxt = una;
                    }
                    8 if rng.gen_bool(0.1) => {
                        sb.on_timeout(una, snd_nxt);
                        (edge, next_rxt) = (snd_nxt, una);
                        rtx.clear();
                        marked.clear();
                    }
                    _ => snd_nxt += 1,
                }
                let lost = |q: &u32| !sacked.contains(q) && (*q < edge || marked.contains(q));
                let lost_count = (una..snd_nxt).filter(lost).count() as u64;
                let pipe = (snd_nxt - una) as u64 - sacked.len() as u64 - lost_count + rtx.len() as u64;
                assert_eq!(sb.pipe(una, snd_nxt), pipe);
                let first = (next_rxt.max(una)..snd_nxt).find(|q| lost(q) && !rtx.contains(q));
                assert_eq!(sb.next_lost(una), first);
            }
        }
    }

    /// The first lost segment, searched from scratch as RFC 6675 NextSeg() reads.
    fn next_lost_from_scratch(sb: &Scoreboard, una: u32) -> Option<u32> {
        let by_sack = sb.sacked.nth_highest(sb.dupthresh as u64).unwrap_or(0);
        let edge = by_sack.max(sb.timeout_edge);
        (sb.next_rxt.max(una)..edge).find(|&seq| !sb.sacked.contains(seq) && !sb.retransmitted.contains(seq))
    }

    /// Random recovery episodes (holes, SACKs, retransmissions, lost retransmissions, timeouts):
    /// the kept loss edge, `pipe` and the resumed `next_lost` search agree with a recomputation
    /// from scratch after every step.
    #[test]
    fn kept_state_agrees_with_a_recomputation() {
        use crate::rng::{stream, Entity, Purpose};
        use rand::Rng;
        let mut rng = stream(9, Entity::Flow, 0, Purpose::Start);
        for _ in 0..50 {
            let mut sb = Scoreboard::new(3);
            let (mut una, mut snd_nxt) = (0u32, 40u32);
            for _ in 0..300 {
                match rng.gen_range(0..10) {
                    0..=3 => {
                        let start = una + rng.gen_range(0..40);
                        let block = (start, start + rng.gen_range(1..6));
                        una += if rng.gen_bool(0.2) { rng.gen_range(0..4) } else { 0 };
                        snd_nxt = snd_nxt.max(una + 1).max(block.1);
                        sb.on_ack(una, [block].into_iter());
                    }
                    4..=6 => {
                        if let Some(seq) = sb.next_lost(una) {
                            sb.on_retransmit(seq, snd_nxt);
                            snd_nxt += 1;
                        }
                    }
                    7 => sb.start_episode(una),
                    8 if rng.gen_bool(0.1) => sb.on_timeout(una, snd_nxt),
                    _ => snd_nxt += 1,
                }
                let by_sack = sb.sacked.nth_highest(3).unwrap_or(0);
                assert_eq!(sb.loss_edge(), by_sack.max(sb.timeout_edge));
                assert_eq!(sb.next_lost(una), next_lost_from_scratch(&sb, una));
                let lost = (una..sb.loss_edge()).filter(|&q| !sb.sacked.contains(q)).count() as u64;
                let pipe = (snd_nxt - una) as u64 - sb.sacked.count() - lost + sb.retransmitted.count();
                assert_eq!(sb.pipe(una, snd_nxt), pipe);
            }
        }
    }

    /// RACK marks 2..8 lost; all are retransmitted. 3's retransmission is marked lost and resent:
    /// the next search starts at 4 and walks 4..8, all retransmitted: nothing. 6's
    /// retransmission is then marked lost: 6 is offered, though the last search walked past it.
    #[test]
    fn a_mark_inside_a_walked_span_is_found() {
        let mut sb = Scoreboard::with_marking(LossMarking::Marked);
        sb.on_ack(0, [(8, 10)].into_iter());
        for seq in 2..8 {
            sb.mark_lost(seq);
        }
        for seq in 2..8 {
            assert_eq!(sb.next_lost(0), Some(seq));
            sb.on_retransmit(seq, 10);
        }
        assert_eq!(sb.next_lost(0), None);
        sb.mark_lost(3);
        assert_eq!(sb.next_lost(0), Some(3));
        sb.on_retransmit(3, 10);
        assert_eq!(sb.next_lost(0), None);
        assert_eq!(sb.next_lost(0), None, "again, from the walked span's end");
        sb.mark_lost(6);
        assert_eq!(sb.next_lost(0), Some(6));
        sb.on_retransmit(6, 10);
        assert_eq!(sb.next_lost(0), None);
    }
}
