//! `ccsim._core.CcHarness`: one congestion-control algorithm driven by a script, without a
//! network ([`ccsim_core::cc::harness`]). `ccsim.harness.Harness` is its Python face (times as
//! written in scenarios, a state dictionary after each step).

use std::collections::BTreeMap;
use std::sync::Arc;

use ccsim_core::cc::harness::{Harness, HarnessOptions, ReductionBasis};
use ccsim_core::cc::{registry, CaState, Growth, Window};
use ccsim_core::rng::{stream, Entity, Purpose};
use ccsim_core::spec::{profile_name, PROFILES};
use ccsim_core::tcp::stack_settings::{SsthreshBasis, StackConfig};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::pycc::{build_one, Failures};

#[pyclass(module = "ccsim._core", unsendable)]
pub struct CcHarness {
    h: Harness,
    /// A Python algorithm's first failing hook (none for a built-in algorithm).
    failures: Arc<Failures>,
}

impl CcHarness {
    /// The exception a Python hook raised during the last step, if any.
    fn raised(&self) -> PyResult<()> {
        self.failures.take().map_or(Ok(()), Err)
    }
}

fn ca_state_name(s: CaState) -> &'static str {
    match s {
        CaState::Open => "open",
        CaState::Cwr => "cwr",
        CaState::Recovery => "recovery",
        CaState::Loss => "loss",
    }
}

#[pymethods]
impl CcHarness {
    /// A built-in algorithm `cc` with `params` (unset ones take `profile`'s defaults), under
    /// `profile`'s growth and reduction rules, its random stream keyed by `seed` as flow 0's; or,
    /// given `maker` (`ccsim.pycc`'s), the Python algorithm it builds.
    #[new]
    #[pyo3(signature = (cc, params = None, profile = "linux", seed = 1, mss = 1000, maker = None))]
    fn new(
        py: Python<'_>,
        cc: &str,
        params: Option<BTreeMap<String, f64>>,
        profile: &str,
        seed: u64,
        mss: u32,
        maker: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let Some(profile) = PROFILES.into_iter().find(|p| profile_name(*p) == profile) else {
            let names: Vec<_> = PROFILES.iter().map(|p| profile_name(*p)).collect();
            return Err(PyValueError::new_err(format!("profile: {profile:?}; expected one of {}", names.join(", "))));
        };
        let params = params.unwrap_or_default();
        let failures = Arc::new(Failures::default());
        let algorithm: Box<dyn ccsim_core::cc::CongestionControl> = match &maker {
            Some(maker) => Box::new(build_one(py, maker, cc, &params, mss, &failures)),
            None => {
                let rng = stream(seed, Entity::Flow, 0, Purpose::Congestion);
                registry::build_for_profile(cc, &params, profile, rng).map_err(PyValueError::new_err)?
            }
        };
        if let Some(err) = failures.take() {
            return Err(err);
        }
        let stack = StackConfig::for_profile(profile);
        let opts = HarnessOptions {
            initial_cwnd: if stack.initial_window_from_mss {
                StackConfig::rfc_initial_window(mss)
            } else {
                stack.initial_window
            },
            initial_ssthresh: f64::INFINITY,
            growth: Growth { slow_start_cap: stack.slow_start_cap, gating: stack.cwnd_gating },
            per_ack_counting: stack.per_ack_counting,
            basis: match stack.ssthresh_basis {
                SsthreshBasis::FlightSize => ReductionBasis::Flight,
                SsthreshBasis::Window | SsthreshBasis::Cwnd => ReductionBasis::Cwnd,
            },
        };
        Ok(CcHarness { h: Harness::new(algorithm, opts), failures })
    }

    fn send(&mut self, segments: u64) -> PyResult<()> {
        self.h.send(segments);
        self.raised()
    }

    fn fill(&mut self) -> PyResult<u64> {
        let sent = self.h.fill();
        self.raised().map(|_| sent)
    }

    #[pyo3(signature = (segments, rtt_ns = None, ce = 0))]
    fn ack(&mut self, segments: u64, rtt_ns: Option<u64>, ce: u64) -> PyResult<()> {
        self.h.ack(segments, rtt_ns, ce).map_err(|e| PyValueError::new_err(e.0))?;
        self.raised()
    }

    #[pyo3(signature = (rtt_ns, marks = 0))]
    fn round_trip(&mut self, rtt_ns: u64, marks: u64) -> PyResult<u64> {
        let acks = self.h.round_trip(rtt_ns, marks);
        self.raised().map(|_| acks)
    }

    fn dupack(&mut self) -> PyResult<()> {
        self.h.dupack();
        self.raised()
    }

    fn loss(&mut self) -> PyResult<()> {
        self.h.loss();
        self.raised()
    }

    fn timeout(&mut self) -> PyResult<()> {
        self.h.timeout();
        self.raised()
    }

    fn undo(&mut self) -> PyResult<()> {
        self.h.undo();
        self.raised()
    }

    fn elapse(&mut self, dt_ns: u64) {
        self.h.elapse(dt_ns);
    }

    fn mark_app_limited(&mut self) {
        self.h.mark_app_limited();
    }

    fn set_window(&mut self, cwnd: f64, ssthresh: f64) -> PyResult<()> {
        if !(cwnd.is_finite() && cwnd > 0.0 && ssthresh > 0.0) {
            return Err(PyValueError::new_err(format!(
                "set_window: cwnd = {cwnd}, ssthresh = {ssthresh}; expected a finite cwnd above 0 and ssthresh above 0"
            )));
        }
        self.h.set_window(Window { cwnd, ssthresh });
        Ok(())
    }

    #[getter]
    fn name(&self) -> &'static str {
        self.h.name()
    }

    #[getter]
    fn cwnd(&self) -> f64 {
        self.h.window().cwnd
    }

    #[getter]
    fn ssthresh(&self) -> f64 {
        self.h.window().ssthresh
    }

    #[getter]
    fn pacing_rate(&self) -> Option<f64> {
        self.h.pacing_rate()
    }

    #[getter]
    fn now(&self) -> u64 {
        self.h.now()
    }

    #[getter]
    fn in_flight(&self) -> u64 {
        self.h.in_flight()
    }

    #[getter]
    fn delivered(&self) -> u64 {
        self.h.delivered()
    }

    #[getter]
    fn round(&self) -> u64 {
        self.h.round()
    }

    #[getter]
    fn ca_state(&self) -> &'static str {
        ca_state_name(self.h.ca_state())
    }

    #[getter]
    fn srtt(&self) -> Option<u64> {
        self.h.srtt()
    }

    #[getter]
    fn min_rtt(&self) -> Option<u64> {
        self.h.min_rtt()
    }

    #[getter]
    fn cwnd_limited(&self) -> bool {
        self.h.cwnd_limited
    }

    #[setter]
    fn set_cwnd_limited(&mut self, limited: bool) {
        self.h.cwnd_limited = limited;
    }

    /// The algorithm's own state now, as its `inspect` reports it (name -> value).
    fn inspect<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, value) in self.h.inspect() {
            d.set_item(name, value)?;
        }
        Ok(d)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CcHarness>()
}
