//! TCP NewReno (RFC 6582): Reno's window rules with NewReno loss recovery (the sender stays in
//! fast recovery until everything outstanding at its start is acknowledged, retransmitting one
//! hole per partial ACK).

use super::reno::RenoWindow;
use super::{AckSample, CongestionControl, CongestionEvent, RecoveryProcedure, Window};

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    window: RenoWindow,
}

impl NewReno {
    pub fn new(window: RenoWindow) -> Self {
        NewReno { window }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        self.window.on_ack(ack, w);
    }
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        self.window.on_congestion(ev, w);
    }
    fn customary_recovery(&self) -> RecoveryProcedure {
        RecoveryProcedure::NewReno
    }
}
