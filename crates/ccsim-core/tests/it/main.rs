//! Integration tests: whole runs checked against laws, hand-computed traces and invariants.
//! One binary (faster to build and link than one per file).

mod conservation;
mod determinism;
mod laws;
mod pacing;
mod probe;
mod red;
mod scenarios;
mod traces;
mod traffic;
