//! Proportional Rate Reduction (PRR; RFC 9937, which obsoletes the experimental RFC 6937): how
//! much a SACK-based recovery ([`super::sack`], [`super::rack_tlp`]) sends on each ACK, in
//! segments.
//!
//! Without PRR the algorithm's reduction takes effect at once: cwnd drops to ssthresh and nothing
//! leaves until `pipe` has fallen below it, then everything cwnd - `pipe` allows leaves in one
//! burst. PRR spreads the reduction over the round trip instead. While `pipe` is above ssthresh it
//! sends in proportion to what arrives, ssthresh / RecoverFS segments per segment delivered, so
//! that when everything outstanding at the start has been delivered, ssthresh segments have been
//! sent. Once `pipe` is at or below ssthresh (losses took more out of the network than the
//! reduction asked for) a reduction bound lets it catch up towards ssthresh:
//!
//! - PRR-CRB, the conservative bound: no more than was delivered (packet conservation), but at
//!   least what this ACK delivered;
//! - PRR-SSRB, the slow-start bound: one segment more per ACK;
//! - RFC 9937 itself: CRB, and SSRB's extra segment on a "safe" ACK, one that advances SND.UNA
//!   without a further loss being marked (RFC 6937 left the choice to the implementation).
//!
//! The state of one episode (RFC 9937 section 6.1) and the computation on every ACK (section
//! 6.2): `on_ack` returns SndCnt, and the caller sets cwnd = `pipe` + SndCnt. At the end of the
//! episode cwnd = ssthresh (section 6.4, what SACK recovery does anyway).

use serde::{Deserialize, Serialize};

/// The stack's `prr` setting: off, or on with the reduction bound used when `pipe` is at or below
/// ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrrMode {
    /// No PRR: cwnd is the algorithm's from the start of recovery, and segments leave while
    /// cwnd - `pipe` >= 1 (RFC 6675).
    Off,
    /// RFC 9937: PRR-CRB, with PRR-SSRB's extra segment on a safe ACK.
    Rfc9937,
    /// PRR-SSRB on every ACK (RFC 6937's recommendation).
    Ssrb,
    /// PRR-CRB on every ACK.
    Crb,
}

impl PrrMode {
    /// The name a scenario writes.
    pub fn as_str(self) -> &'static str {
        match self {
            PrrMode::Off => "off",
            PrrMode::Rfc9937 => "rfc9937",
            PrrMode::Ssrb => "ssrb",
            PrrMode::Crb => "crb",
        }
    }

    pub fn is_on(self) -> bool {
        self != PrrMode::Off
    }
}

/// Rounding slack: a product such as 3 x 0.7 x 10 / 3 should not round up for its last bit.
const EPSILON: f64 = 1e-9;

/// One recovery episode's PRR state, in segments.
#[derive(Clone, Debug)]
pub struct Prr {
    mode: PrrMode,
    /// ssthresh when the episode began: the flight it ends with.
    ssthresh: f64,
    /// RecoverFS: what may be delivered during the episode (at least 1).
    recover_fs: u64,
    /// Segments delivered (cumulatively acknowledged or SACKed) since the episode began.
    prr_delivered: u64,
    /// Segments sent (new data and retransmissions) since the episode began.
    prr_out: u64,
}

impl Prr {
    /// Idle PRR state for `mode` (not [`PrrMode::Off`]), until [`Self::start`].
    pub fn new(mode: PrrMode) -> Self {
        debug_assert!(mode.is_on());
        Prr { mode, ssthresh: 0.0, recover_fs: 1, prr_delivered: 0, prr_out: 0 }
    }

    pub fn mode(&self) -> PrrMode {
        self.mode
    }

    /// RFC 9937 section 6.1: an episode starts with the algorithm's `ssthresh` and `recover_fs`
    /// (RecoverFS, the caller's count).
    pub fn start(&mut self, ssthresh: f64, recover_fs: u64) {
        self.ssthresh = ssthresh;
        self.recover_fs = recover_fs.max(1);
        self.prr_delivered = 0;
        self.prr_out = 0;
    }

    /// Section 6.3: `segments` left.
    pub fn on_sent(&mut self, segments: u64) {
        self.prr_out += segments;
    }

    pub fn prr_delivered(&self) -> u64 {
        self.prr_delivered
    }

    pub fn prr_out(&self) -> u64 {
        self.prr_out
    }

    pub fn recover_fs(&self) -> u64 {
        self.recover_fs
    }

    /// Section 6.2: an ACK delivered `delivered` segments, and `pipe` segments are now in the
    /// network; `safe_ack`: it advanced SND.UNA and no further loss was marked. Returns SndCnt,
    /// the segments this ACK may send (cwnd = `pipe` + SndCnt), or None when it delivered nothing
    /// (cwnd stays as it was).
    pub fn on_ack(&mut self, delivered: u32, pipe: u32, safe_ack: bool) -> Option<u64> {
        if delivered == 0 {
            return None;
        }
        let delivered = u64::from(delivered);
        self.prr_delivered += delivered;
        let sndcnt = if f64::from(pipe) > self.ssthresh {
            // Proportional part: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            let due = self.prr_delivered as f64 * self.ssthresh / self.recover_fs as f64;
            ((due - EPSILON).ceil() as u64).saturating_sub(self.prr_out)
        } else {
            let conserved = self.prr_delivered.saturating_sub(self.prr_out).max(delivered);
            let slow_start = match self.mode {
                PrrMode::Crb | PrrMode::Off => false,
                PrrMode::Ssrb => true,
                PrrMode::Rfc9937 => safe_ack,
            };
            // Whole segments up to ssthresh: with a fractional ssthresh (CUBIC's 0.7), the flight
            // stays at or below it.
            let room = (self.ssthresh - f64::from(pipe) + EPSILON).floor().max(0.0);
            (conserved + u64::from(slow_start)).min(room as u64)
        };
        // The first retransmission leaves whatever the formulas say.
        Some(if self.prr_out == 0 { sndcnt.max(1) } else { sndcnt })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sends of an episode: for each ACK, (segments it delivered, `pipe` before sending,
    /// whether it is safe), the sender sending all that PRR allows. Returns SndCnt per ACK.
    fn episode(prr: &mut Prr, acks: &[(u32, u32, bool)]) -> Vec<u64> {
        acks.iter()
            .map(|&(delivered, pipe, safe)| {
                let sndcnt = prr.on_ack(delivered, pipe, safe).unwrap_or(0);
                prr.on_sent(sndcnt);
                sndcnt
            })
            .collect()
    }

    /// The examples of RFC 6937 section 3.1 (kept in RFC 9937): cwnd = FlightSize = 20, Reno's
    /// halving (ssthresh 10), segment 0 lost; limited transmit has sent two new segments on the
    /// first two duplicate ACKs, so 22 are outstanding, 3 SACKed, when the third starts
    /// recovery. RecoverFS = SND.NXT - SND.UNA - SACKed before that ACK (RFC 9937 section 6.1)
    /// = 22 - 2 = 20.
    fn single_loss() -> Prr {
        let mut prr = Prr::new(PrrMode::Rfc9937);
        prr.start(10.0, 20);
        prr
    }

    /// RFC 9937 section 6.2 by hand over ACKs 3-19 of the single-loss example, each delivering
    /// one segment (`pipe` falls by one per ACK and rises by one per send):
    ///
    /// ```text
    /// ACK            3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19
    /// prr_delivered  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17
    /// CEIL(d*10/20)  1  1  2  2  3  3  4  4  5  5  6  6  7  7  8  8  -
    /// pipe          18 18 17 17 16 16 15 15 14 14 13 13 12 12 11 11 10
    /// SndCnt         1  0  1  0  1  0  1  0  1  0  1  0  1  0  1  0  0
    /// ```
    ///
    /// One segment per two delivered (the first is the fast retransmission), and the flight ends
    /// at ssthresh: at ACK 19 `pipe` = 10 leaves no room. The `pipe` after each ACK's sends is
    /// the `pipe` row of the RFC's PRR table from ACK 4 on; its `sent` row puts the last send on
    /// ACKs 18 and 19 rather than 17, which its own `pipe` row (12 after ACK 17, from 11 before
    /// it) does not allow.
    #[test]
    fn the_rfc_single_loss_example_sends_one_segment_per_two_delivered() {
        let mut prr = single_loss();
        let pipes = [18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10];
        let acks = pipes.map(|pipe| (1, pipe, false));
        let sent = episode(&mut prr, &acks);
        assert_eq!(sent, [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0]);
        assert_eq!((prr.prr_delivered(), prr.prr_out()), (17, 8));
        // After ACK 19: 10 in flight, no send: exactly ssthresh.
        assert_eq!(pipes[16] + sent[16] as u32, 10);
    }

    /// The burst example: segments 0-14 lost, so after the third duplicate ACK (ACK 17; 22
    /// outstanding, 15 lost, 3 SACKed) `pipe` = 4 is far below ssthresh 10 and the reduction
    /// bound decides. RecoverFS = 22 - 2 = 20 again. The RFC's tables: PRR-CRB sends one
    /// retransmission per ACK (`pipe` 4, 4, 4), PRR-SSRB two (`pipe` 4, 5, 6).
    #[test]
    fn the_rfc_burst_example_under_each_bound() {
        let run = |mode: PrrMode, pipes: [u32; 3]| {
            let mut prr = Prr::new(mode);
            prr.start(10.0, 20);
            episode(&mut prr, &pipes.map(|pipe| (1, pipe, false)))
        };
        // CRB: max(prr_delivered - prr_out, DeliveredData) = max(1 - 0, 1), then max(2 - 1, 1)...
        assert_eq!(run(PrrMode::Crb, [4, 4, 4]), [1, 1, 1]);
        // SSRB: max(1 - 0, 1) + 1 = 2, then max(2 - 2, 1) + 1 = 2, max(3 - 4, 1) + 1 = 2.
        assert_eq!(run(PrrMode::Ssrb, [4, 5, 6]), [2, 2, 2]);
        // RFC 9937: duplicate ACKs are never safe (SND.UNA does not advance): CRB.
        assert_eq!(run(PrrMode::Rfc9937, [4, 4, 4]), [1, 1, 1]);
    }

    /// RFC 9937 section 6.2: a safe ACK (SND.UNA advances, no further loss) earns SSRB's extra
    /// segment; an unsafe one gets CRB's conservation; both stop at ssthresh.
    #[test]
    fn a_safe_ack_earns_one_more_segment_up_to_ssthresh() {
        let mut prr = Prr::new(PrrMode::Rfc9937);
        prr.start(10.0, 20);
        prr.on_sent(1);
        // Delivered 2, banked 2 - 1 = 1: CRB max(1, 2) = 2; safe: 3; room 10 - 5 = 5.
        assert_eq!(prr.on_ack(2, 5, true), Some(3));
        prr.on_sent(3);
        // Delivered 1 more (3 in all, 4 sent): CRB max(-1 -> 0, 1) = 1, not safe.
        assert_eq!(prr.on_ack(1, 7, false), Some(1));
        prr.on_sent(1);
        // Safe, but 10 - 9 = 1 of room: 1.
        assert_eq!(prr.on_ack(3, 9, true), Some(1));
    }

    /// Section 6.2: an ACK that delivers nothing changes nothing; and the first retransmission
    /// leaves even when `pipe` is already at ssthresh (SndCnt 0 with prr_out 0 becomes 1), but
    /// not a second time.
    #[test]
    fn nothing_delivered_sends_nothing_and_the_first_retransmission_always_leaves() {
        let mut prr = Prr::new(PrrMode::Crb);
        prr.start(10.0, 20);
        assert_eq!(prr.on_ack(0, 10, true), None);
        assert_eq!(prr.prr_delivered(), 0);
        assert_eq!(prr.on_ack(1, 10, false), Some(1), "room 0, but nothing has left yet");
        prr.on_sent(1);
        assert_eq!(prr.on_ack(1, 10, false), Some(0));
    }

    /// A fractional ssthresh (CUBIC's 0.7 x cwnd, or 0.8 x 3 = 2.4000000000000004 in floating
    /// point): the proportional part is CEIL(d x ssthresh / RecoverFS) - prr_out, without the
    /// last bit of a product adding a segment; sending ahead of the proportion (prr_out above its
    /// due) sends nothing; and the bound never takes the flight above ssthresh.
    #[test]
    fn a_fractional_ssthresh_rounds_as_the_formulas_do() {
        let mut prr = Prr::new(PrrMode::Ssrb);
        prr.start(0.7 * 10.0, 10);
        // d = 1: CEIL(0.7) = 1; d = 2: CEIL(1.4) = 2 - 1; d = 3: CEIL(2.1) = 3 - 2; d = 4: 3 - 3.
        assert_eq!(episode(&mut prr, &[(1, 9, false), (1, 9, false), (1, 9, false), (1, 8, false)]), [1, 1, 1, 0]);
        prr.on_sent(2);
        // d = 5: CEIL(3.5) = 4 < prr_out 5: nothing.
        assert_eq!(prr.on_ack(1, 8, false), Some(0));
        // d = 10: CEIL(7) = 7, 2 more.
        assert_eq!(prr.on_ack(5, 8, false), Some(2));
        let mut prr = Prr::new(PrrMode::Crb);
        prr.start(0.8 * 3.0, 6);
        prr.on_sent(1);
        // 5 x 2.4000000000000004 / 6 = 2.0000000000000004: CEIL 2, one more, not 2.
        assert_eq!(prr.on_ack(5, 4, false), Some(1));
        let mut prr = Prr::new(PrrMode::Ssrb);
        prr.start(6.3, 10);
        prr.on_sent(1);
        // pipe 6 <= 6.3: SSRB would send 2, but only floor(6.3 - 6) = 0 whole segments fit.
        assert_eq!(prr.on_ack(1, 6, true), Some(0));
        assert_eq!(prr.on_ack(1, 5, true), Some(1));
    }
}

#[cfg(test)]
#[path = "prr_tests.rs"]
mod exchanges;
