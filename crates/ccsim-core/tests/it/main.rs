//! Integration tests: whole runs checked against laws, hand-computed traces and invariants.
//! One binary (faster to build and link than one per file).

mod accecn;
mod aqm;
mod bbr;
mod bbr3;
mod conservation;
mod delay;
mod determinism;
mod dualpi2;
mod ecn_network;
mod ecn_recovery;
mod fairness;
mod fast_compound;
mod freedrop;
mod fusion;
mod inspect;
mod laws;
mod libra_areno;
mod linux_details;
mod pacing;
mod pass_on;
mod prague;
mod probe;
mod randomized;
mod rate_sample;
mod red;
mod reordering;
mod response;
mod sack;
mod scenarios;
mod stack;
mod sync_tcp;
mod traces;
mod traffic;
mod two_way;
mod zoo;
