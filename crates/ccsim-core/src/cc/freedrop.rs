//! Free-Drop TCP (Y. Baryshnikov, E. Coffman, J. Feng, V. Misra, "Free-Drop TCP", 2006; seed 001;
//! docs/algorithms.md, "freedrop"): Reno's window, but a detected loss halves
//! it only if at least one other packet was lost within `w` packet transmissions of it. An
//! isolated ("free") loss is still retransmitted by the sender; only the cut is skipped. The paper
//! derives the throughput law B ~ alpha / (RTT p sqrt(w)) instead of Reno's alpha / (RTT sqrt(p)).
//!
//! Choices (the paper leaves them open; docs/algorithms.md repeats them):
//!
//! * **Counting.** Every data transmission counts, retransmissions included (the
//!   analysis treats every transmission as a loss trial). Transmission `k` (1-based, from
//!   [`CongestionControl::on_sent`]) has index `k`; for every unacknowledged segment the index of
//!   its latest transmission is kept.
//! * **What "a loss" is.** The sender reports one [`CongestionEvent`] per loss episode, so the
//!   episodes alone would miss every further hole of a window: with a window above `w`, two
//!   episodes are always more than `w` transmissions apart (the second loss must be sent after the
//!   first was detected) and nothing would ever be cut. So a loss is (a) the segment at the
//!   cumulative ACK when an episode starts (the one the sender retransmits first) and (b) every
//!   further segment the sender retransmits inside the same episode: a NewReno partial-ACK hole or
//!   a SACK-marked hole. Its index is that of the lost transmission (where it happened), not
//!   the time of detection. Retransmissions after a timeout (go-back-N) are not losses.
//! * **Decision.** A loss at index `i` is a congestion event iff the previous loss has index `l`
//!   with `|i - l| <= w`: losses exactly `w` transmissions apart cut, `w + 1` apart do not. Free
//!   losses also become the previous loss. The first loss of a connection is free.
//!   `literal = true` reads the paper's text instead ("a loss within the last w transmissions
//!   before" the detection): a loss is a congestion event iff the previous loss has index
//!   `l >= n - w`, `n` being the number of transmissions when it is detected. Detection comes
//!   about a window after the lost transmission, so this rule forgives more at large windows.
//! * **Free episode.** cwnd and ssthresh are left alone; the sender's recovery runs with the
//!   uncut window and at its end ([`CongestionControl::on_recovery_exit`], after the sender's
//!   cwnd = ssthresh) the window is put back as it was when the episode began. ACKs during the
//!   recovery do not grow it (the sender owns the window then).
//! * **A cut found inside a free episode** (a further hole within `w` of the previous loss) is
//!   applied when the recovery ends, halving the window the episode began with: the hooks that
//!   see recovery ACKs and transmissions cannot change the window. At most one halving per
//!   episode.
//! * **Timeouts** keep their usual effect, cwnd = 1 and ssthresh halved on the first expiry
//!   (the paper's model ignores timeouts); the timed-out segment counts as a
//!   loss for the next decision. With `rto_test = true` a timeout is judged like any loss: a
//!   free one leaves cwnd and ssthresh as they were (the sender still goes back to the first
//!   unacknowledged segment).
//! * **ECN** is not a drop: an ECN echo halves as Reno does and is not counted.
//! * **Recovery.** NewReno by default (`newreno = true`): the paper does not name the TCP it
//!   modified, and further holes in a window need NewReno's or SACK's recovery: with Reno recovery
//!   a second hole in one window ends in a timeout, which becomes common once Free-Drop's window
//!   exceeds 1/p. `newreno = false` gives Reno recovery.
//! * **`w` default 100.** The paper gives none (w is swept, Fig. 1(d)); 100 is ccsim's choice:
//!   at p = 1e-3 it gives W ~ 125 against Reno's 39, a gap the tests measure easily.

use std::collections::VecDeque;

use super::common::MIN_SSTHRESH;
use super::params::{ParamInfo, ParamKind, Params};
use super::reno::RenoWindow;
use super::{AckSample, CongestionControl, CongestionEvent, CongestionKind, RecoveryProcedure, SentSample, Window};
use crate::units::Time;

pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "w",
        kind: ParamKind::Int,
        default: 100.0,
        min: 0.0,
        max: 1e12,
        doc: "packet-loss window: a loss halves cwnd only if another loss was within w transmissions",
    },
    ParamInfo {
        name: "newreno",
        kind: ParamKind::Bool,
        default: 1.0,
        min: 0.0,
        max: 1.0,
        doc: "NewReno loss recovery (default); false = Reno's",
    },
    ParamInfo {
        name: "literal",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "the paper's literal rule: cut iff the previous loss is among the last w transmissions at detection",
    },
    ParamInfo {
        name: "rto_test",
        kind: ParamKind::Bool,
        default: 0.0,
        min: 0.0,
        max: 1.0,
        doc: "judge timeouts by the same rule (a free timeout keeps the window); default: every timeout cuts",
    },
];

/// The loss episode the sender is in, as far as Free-Drop is concerned.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Episode {
    /// No recovery under way.
    Idle,
    /// Fast recovery after a loss. `lost` is the segment reported at its start, `repaired`
    /// whether its retransmission has gone out (any other retransmission is a further loss).
    Recovering { lost: u32, repaired: bool, free: Option<FreeEpisode> },
    /// After a timeout: retransmissions are go-back-N, not detected losses.
    TimedOut,
}

/// What a free episode must restore or apply when it ends.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FreeEpisode {
    /// The window when the episode began.
    saved: Window,
    /// The reduction basis the sender gave at its start, halved if a cut turns up later.
    basis: f64,
    cut_pending: bool,
}

#[derive(Clone, Debug)]
pub struct FreeDrop {
    window: RenoWindow,
    /// The packet-loss window, transmissions.
    w: u64,
    recovery: RecoveryProcedure,
    /// The literal-text rule (previous loss within the last `w` transmissions at detection).
    literal: bool,
    /// Timeouts are judged by the rule too.
    rto_test: bool,
    /// Data transmissions so far; the latest has this index.
    tx_count: u64,
    /// Index of the latest transmission of segment `base + k` at position `k` (0 = unknown).
    tx_of: VecDeque<u64>,
    base: u32,
    /// The cumulative ACK point (first unacknowledged segment), from the last ACK sample.
    snd_una: u32,
    /// Index of the most recent lost transmission.
    last_loss: Option<u64>,
    episode: Episode,
    /// Losses counted (timeouts included) and halvings made on losses (timeouts not included),
    /// for tests and reports.
    pub losses: u64,
    pub cuts: u64,
}

impl FreeDrop {
    pub fn new(w: u64, recovery: RecoveryProcedure) -> Self {
        FreeDrop {
            window: RenoWindow::default(),
            w,
            recovery,
            literal: false,
            rto_test: false,
            tx_count: 0,
            tx_of: VecDeque::new(),
            base: 0,
            snd_una: 0,
            last_loss: None,
            episode: Episode::Idle,
            losses: 0,
            cuts: 0,
        }
    }

    pub fn from_params(p: &Params) -> Self {
        let recovery = if p.flag("newreno") { RecoveryProcedure::NewReno } else { RecoveryProcedure::Reno };
        FreeDrop::new(p.get("w") as u64, recovery).with_rules(p.flag("literal"), p.flag("rto_test"))
    }

    /// The literal-text decision rule and/or judging timeouts by the rule (see the module doc).
    pub fn with_rules(mut self, literal: bool, rto_test: bool) -> Self {
        self.literal = literal;
        self.rto_test = rto_test;
        self
    }

    /// Follow the cumulative ACK and forget the transmissions of acknowledged segments.
    fn acked_to(&mut self, snd_una: u32) {
        self.snd_una = self.snd_una.max(snd_una);
        while self.base < self.snd_una && !self.tx_of.is_empty() {
            self.tx_of.pop_front();
            self.base += 1;
        }
        if self.tx_of.is_empty() {
            self.base = self.base.max(self.snd_una);
        }
    }

    /// Index of the latest transmission of `seq`; the current count if it was never seen (only
    /// in hand-built traces that skip `on_sent`).
    fn tx_index(&self, seq: u32) -> u64 {
        seq.checked_sub(self.base)
            .and_then(|k| self.tx_of.get(k as usize).copied())
            .filter(|&i| i > 0)
            .unwrap_or(self.tx_count)
    }

    /// Record the loss of transmission `i`; true if it is a congestion event (another loss within
    /// `w` transmissions of it).
    fn loss(&mut self, i: u64) -> bool {
        self.losses += 1;
        let congestion = match self.last_loss {
            None => false,
            Some(l) if self.literal => l.saturating_add(self.w) >= self.tx_count,
            Some(l) => i.abs_diff(l) <= self.w,
        };
        self.last_loss = Some(self.last_loss.map_or(i, |l| l.max(i)));
        congestion
    }

    fn halve(&mut self, basis: f64, w: &mut Window) {
        self.cuts += 1;
        w.ssthresh = (basis * self.window.beta).max(MIN_SSTHRESH);
        w.cwnd = w.ssthresh;
    }
}

impl CongestionControl for FreeDrop {
    fn name(&self) -> &'static str {
        "freedrop"
    }

    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.acked_to(ack.delivered as u32);
        self.window.on_ack(ack, w);
    }

    fn on_ack_in_recovery(&mut self, ack: &AckSample) {
        self.acked_to(ack.delivered as u32);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        match ev.kind {
            CongestionKind::Loss => {
                let lost = self.snd_una;
                let free = if self.loss(self.tx_index(lost)) {
                    self.cuts += 1;
                    self.window.on_congestion(ev, w);
                    None
                } else {
                    Some(FreeEpisode { saved: *w, basis: ev.basis, cut_pending: false })
                };
                self.episode = Episode::Recovering { lost, repaired: false, free };
            }
            CongestionKind::Timeout => {
                // The usual timeout: cwnd 1, ssthresh halved on the first expiry;
                // with `rto_test` only when the rule says the loss is not free.
                let i = self.tx_index(self.snd_una);
                let congestion = self.loss(i);
                if congestion || !self.rto_test {
                    self.window.on_congestion(ev, w);
                }
                self.episode = Episode::TimedOut;
            }
            CongestionKind::Ecn => {
                // A mark, not a drop: Reno's response, no effect on the loss history.
                self.window.on_congestion(ev, w);
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: Time, w: &mut Window) {
        if let Episode::Recovering { free: Some(f), .. } = self.episode {
            if f.cut_pending {
                self.halve(f.basis, w);
            } else {
                // The sender has set cwnd = ssthresh; a free loss leaves the window as it was.
                *w = f.saved;
            }
        }
        self.episode = Episode::Idle;
    }

    /// `losses`: losses counted so far (timeouts included); `cuts`: how many of them halved the
    /// window (the rest were free). Both cumulative, so their gap is the free losses.
    fn inspect(&self, _now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        out("losses", self.losses as f64);
        out("cuts", self.cuts as f64);
    }

    /// Free-Drop watches its retransmissions leave (whether the lost segment was repaired).
    fn watches_sends(&self) -> bool {
        true
    }

    fn on_sent(&mut self, sent: &SentSample) {
        if sent.retransmission {
            if let Episode::Recovering { lost, repaired, free } = self.episode {
                if sent.seq == lost && !repaired {
                    self.episode = Episode::Recovering { lost, repaired: true, free };
                } else {
                    // A further hole of this episode, found by a partial ACK or by SACK.
                    let congestion = self.loss(self.tx_index(sent.seq));
                    if let (true, Some(mut f)) = (congestion, free) {
                        f.cut_pending = true;
                        self.episode = Episode::Recovering { lost, repaired, free: Some(f) };
                    }
                }
            }
        }
        self.tx_count += 1;
        if let Some(k) = sent.seq.checked_sub(self.base) {
            let k = k as usize;
            if k >= self.tx_of.len() {
                self.tx_of.resize(k + 1, 0);
            }
            self.tx_of[k] = self.tx_count;
        }
    }

    fn customary_recovery(&self) -> RecoveryProcedure {
        self.recovery
    }
}
