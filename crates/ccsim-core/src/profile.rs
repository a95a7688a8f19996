//! Which implementation a run models: ns-2, the RFCs or Linux. The stack's knobs follow it
//! ([`crate::tcp::stack_settings`]), and so do some algorithms' defaults ([`crate::cc::registry`]);
//! it sits below both so that neither imports the other for it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    Ns2,
    Rfc,
    Linux,
}
