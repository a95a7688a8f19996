//! Paced TCP (Aggarwal, Savage, Anderson, "Understanding the Performance of TCP Pacing",
//! INFOCOM 2000; docs/algorithms.md, "paced"): Reno's window, but the
//! window is spread over the RTT, one segment every `srtt / cwnd`, from a timer.
//!
//! Choices: the timing is [`Spacing`] with randomization interval 0 (section 2.3: when the timer
//! finds the window closed, the next ACK sends at `max(now, next_send_time)`); before an srtt
//! exists the sender is unpaced (ccsim always has one from the SYN-ACK, so in practice the
//! initial window is paced with the SYN RTT); retransmissions go through the same timer; a
//! timeout restarts the schedule. Reno loss recovery as in the paper (`newreno = 1` switches).

use super::common::spacing::Spacing;
use super::params::{ParamInfo, ParamKind, Params};
use super::reno::RenoWindow;
use super::{
    AckSample, CongestionControl, CongestionEvent, CongestionKind, PacingContext, RecoveryProcedure, SentSample, Window,
};
use crate::rng::Stream;
use crate::units::Time;

/// The `newreno` switch shared by Paced, Randomized and the binomial entries.
pub const NEWRENO_PARAM: ParamInfo = ParamInfo {
    name: "newreno",
    kind: ParamKind::Bool,
    default: 0.0,
    min: 0.0,
    max: 1.0,
    doc: "NewReno loss recovery instead of Reno's (the paper's base is Reno)",
};

pub const PARAMS: &[ParamInfo] = &[NEWRENO_PARAM];

/// The recovery a `newreno` switch selects.
pub fn recovery_of(p: &Params) -> RecoveryProcedure {
    if p.flag("newreno") {
        RecoveryProcedure::NewReno
    } else {
        RecoveryProcedure::Reno
    }
}

#[derive(Clone, Debug)]
pub struct Paced {
    window: RenoWindow,
    spacing: Spacing,
    recovery: RecoveryProcedure,
}

impl Paced {
    pub fn new(recovery: RecoveryProcedure, rng: Stream) -> Self {
        Paced { window: RenoWindow::default(), spacing: Spacing::new(0.0, rng), recovery }
    }

    pub fn from_params(p: &Params, rng: Stream) -> Self {
        Paced::new(recovery_of(p), rng)
    }
}

impl CongestionControl for Paced {
    fn name(&self) -> &'static str {
        "paced"
    }
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.window.on_ack(ack, w);
    }
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.window.on_congestion(ev, w);
        if ev.kind == CongestionKind::Timeout {
            self.spacing.restart();
        }
    }
    fn watches_sends(&self) -> bool {
        true
    }
    fn on_sent(&mut self, sent: &SentSample) {
        self.spacing.on_sent(sent.now);
    }
    fn next_send_time(&mut self, ctx: &PacingContext) -> Option<Time> {
        self.spacing.next_send_time(ctx)
    }
    fn on_send_blocked(&mut self, _now: Time) {
        self.spacing.on_send_blocked();
    }
    fn customary_recovery(&self) -> RecoveryProcedure {
        self.recovery
    }
}
