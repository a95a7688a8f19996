//! Which implementation a run models: ns-2, the RFCs, or Linux (today's defaults, or the SACK
//! stack without the mechanisms Linux added since 2011). The stack's knobs follow it
//! ([`crate::tcp::stack_settings`]), and so do some algorithms' defaults ([`crate::cc::registry`]);
//! it sits below both so that neither imports the other for it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    Ns2,
    Rfc,
    /// Linux's SACK stack without RACK-TLP, PRR, DSACK undo, F-RTO or quick ACKs: what the
    /// `linux` profile was before it modelled Linux 6.x, kept so that earlier results can be
    /// re-created.
    #[serde(rename = "linux-sack")]
    LinuxSack,
    /// Linux 6.x defaults, as far as ccsim models them (docs/scenario-format.md lists each value
    /// with its kernel source).
    Linux,
}
