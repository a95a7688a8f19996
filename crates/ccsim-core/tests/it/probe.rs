//! A recording congestion controller for trace tests: NewReno's window rules, with every hook
//! call logged, and optional fixed-interval pacing.

use std::sync::{Arc, Mutex};

use ccsim_core::cc::reno::RenoWindow;
use ccsim_core::cc::{
    AckSample, CongestionControl, CongestionEvent, CongestionKind, PacingContext, SentSample, Window,
};
use ccsim_core::engine::CcFactory;

#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Ack { now: u64, cwnd: f64, rtt: Option<u64> },
    Congestion { now: u64, kind: CongestionKind, cwnd: f64, ssthresh: f64, before: f64 },
    Sent { now: u64, seq: u32, retransmission: bool },
}

pub type Log = Arc<Mutex<Vec<Call>>>;

pub struct Probe {
    window: RenoWindow,
    log: Log,
    /// Fixed pacing interval and a fixed window (for the pacing check).
    pace: Option<(u64, f64)>,
    last_sent: Option<u64>,
}

impl CongestionControl for Probe {
    fn name(&self) -> &'static str {
        "probe"
    }
    fn on_ack(&mut self, ack: &AckSample, w: &mut Window) {
        match self.pace {
            Some((_, fixed)) => w.cwnd = fixed,
            None => self.window.on_ack(ack, w),
        }
        self.log.lock().unwrap().push(Call::Ack { now: ack.now, cwnd: w.cwnd, rtt: ack.ca_rtt });
    }
    fn on_congestion(&mut self, ev: &CongestionEvent, w: &mut Window) {
        let before = w.cwnd;
        self.window.on_congestion(ev, w);
        self.log.lock().unwrap().push(Call::Congestion {
            now: ev.now,
            kind: ev.kind,
            cwnd: w.cwnd,
            ssthresh: w.ssthresh,
            before,
        });
    }
    fn watches_sends(&self) -> bool {
        true
    }
    fn on_sent(&mut self, s: &SentSample) {
        self.last_sent = Some(s.now);
        self.log.lock().unwrap().push(Call::Sent { now: s.now, seq: s.seq, retransmission: s.retransmission });
    }
    fn next_send_time(&mut self, _ctx: &PacingContext) -> Option<u64> {
        let (interval, _) = self.pace?;
        self.last_sent.map(|t| t + interval)
    }
}

/// A factory that builds probes sharing one log.
pub fn factory(log: Log, pace: Option<(u64, f64)>) -> CcFactory {
    Box::new(move |_, _| Ok(Box::new(Probe { window: RenoWindow::default(), log: log.clone(), pace, last_sent: None })))
}
