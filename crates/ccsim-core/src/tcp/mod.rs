//! One-way TCP: a sender that owns loss detection, recovery and the retransmission timer, and a
//! cumulative-ACK receiver. Sequence numbers count segments, as in ns-2's one-way agents.

pub mod accecn;
pub mod clock;
pub mod delay_meter;
pub mod rack;
pub mod ranges;
pub mod receiver;
pub mod recovery;
pub mod retransmit_timer;
pub mod rtt;
pub mod sack;
pub mod send_log;
pub mod send_overhead;
pub mod sender;
pub mod stack_settings;

#[cfg(test)]
mod hooks_run_tests;
