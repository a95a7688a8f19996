//! Congestion control written in Python (`ccsim.CongestionControl` subclasses).
//!
//! The engine builds every flow's algorithm through a factory; for a scenario with Python
//! algorithms the bindings hand it one ([`factory`]) that builds a [`PyCc`] for the cc names the
//! Python side resolved to classes and asks the registry for every other name, so flows running
//! a Rust algorithm take exactly the path they take without Python.
//!
//! A [`PyCc`] implements the engine's `CongestionControl` by calling the Python object's hooks
//! with the GIL held (the bindings do not release it while such a simulation runs). It lends the
//! window as two plain attributes, `cwnd` and `ssthresh`: written before a hook that receives the
//! window (only when the sender changed them since), read back after it.
//!
//! The trait's hooks cannot fail, so the first exception a hook raises is recorded in the run's
//! [`Failures`]; from then on every Python hook of the run does nothing, and the bindings stop
//! the run at their next look between slices of events and raise it.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use ccsim_core::cc::common::delay;
use ccsim_core::cc::{self, registry, CaState, CongestionControl, CongestionKind, RecoveryProcedure, Window};
use ccsim_core::engine::CcFactory;
use ccsim_core::profile::Profile;
use ccsim_core::units::Time;
use pyo3::exceptions::{PyException, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

pyo3::create_exception!(
    ccsim._core,
    CongestionControlError,
    PyRuntimeError,
    "A hook of a congestion-control algorithm written in Python raised an exception: the run \
     stopped. The exception raised is this one's __cause__, with its own traceback."
);

/// The first failure of a run's Python algorithms, shared by all of them and the bindings.
#[derive(Default)]
pub struct Failures {
    stopped: AtomicBool,
    first: Mutex<Option<PyErr>>,
}

impl Failures {
    /// Whether a hook has failed: every Python hook of the run is skipped from then on.
    #[inline]
    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    /// Keep `err`, raised by `what`, unless an earlier failure is kept already. An `Exception`
    /// becomes the `__cause__` of a [`CongestionControlError`] saying where it happened; anything
    /// else (KeyboardInterrupt raised inside a hook by Ctrl-C, SystemExit) is kept as it is.
    fn record(&self, py: Python<'_>, err: PyErr, what: &str) {
        self.stopped.store(true, Ordering::Relaxed);
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if first.is_some() {
            return;
        }
        if !err.is_instance_of::<PyException>(py) {
            *first = Some(err);
            return;
        }
        let kind = err.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "exception".into());
        let wrapped = CongestionControlError::new_err(format!("{what} raised {kind}: {}", err.value(py)));
        wrapped.set_cause(py, Some(err));
        *first = Some(wrapped);
    }

    /// The recorded failure, if any (taken: asked again, it is gone).
    pub fn take(&self) -> Option<PyErr> {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// A `&'static str` for a name that comes from a scenario or a Python algorithm (the engine's
/// `name()` and `inspect` names are static): each distinct name is allocated once per process.
fn static_name(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

/// The controller factory of a simulation with Python algorithms: `makers` maps each cc name the
/// scenario uses for a Python algorithm to the callable that builds one (`ccsim.pycc`); every
/// other name is built by the registry, as `Simulation::new` does.
/// `inspect_limit`: the run's bound on distinct inspect names (`limits.inspect_columns`).
pub fn factory(
    profile: Profile,
    makers: HashMap<String, Py<PyAny>>,
    failures: Arc<Failures>,
    inspect_limit: usize,
) -> CcFactory {
    Box::new(move |t, rng| match makers.get(&t.cc) {
        None => registry::build_for_profile(&t.cc, &t.cc_params, profile, rng),
        Some(maker) => Ok(Box::new(Python::with_gil(|py| PyCc::build(py, maker, t, &failures, inspect_limit)))),
    })
}

/// One Python algorithm built outside a simulation, as a flow named `cc` with `params` and
/// `mss_bytes` would build it (the single-algorithm harness). A failing hook is recorded in
/// `failures`, as in a run.
pub fn build_one(
    py: Python<'_>,
    maker: &Py<PyAny>,
    cc: &str,
    params: &std::collections::BTreeMap<String, f64>,
    mss_bytes: u32,
    failures: &Arc<Failures>,
) -> PyCc {
    let t = ccsim_core::spec::FlowTemplate {
        label: cc.to_string(),
        cc: cc.to_string(),
        cc_params: params.clone(),
        mss_bytes,
        max_window_pkts: None,
        delayed_ack: None,
        reverse: false,
        clock_offset_ns: 0,
        clock_drift_ppm: 0.0,
    };
    PyCc::build(py, maker, &t, failures, usize::MAX)
}

/// The bound methods of one Python algorithm; `None` for an optional hook the class does not
/// override (it is not called at all).
struct Live {
    obj: Py<PyAny>,
    on_ack: Py<PyAny>,
    on_congestion: Py<PyAny>,
    on_recovery_exit: Option<Py<PyAny>>,
    undo_cwnd: Option<Py<PyAny>>,
    on_ack_in_recovery: Option<Py<PyAny>>,
    on_dupack: Option<Py<PyAny>>,
    on_sent: Option<Py<PyAny>>,
    next_send_time: Option<Py<PyAny>>,
    on_send_blocked: Option<Py<PyAny>>,
    pacing_rate: Option<Py<PyAny>>,
    take_app_limited: Option<Py<PyAny>>,
    inspect: Option<Py<PyAny>>,
    /// The window the Python object holds (as last written or read), bit for bit.
    synced: (u64, u64),
    /// This flow's growth rules (constant for a flow), built once.
    growth: Option<(cc::Growth, Py<Growth>)>,
}

/// One flow's Python algorithm, as the engine's `CongestionControl`.
pub struct PyCc {
    cc: &'static str,
    label: String,
    /// `None` when the constructor failed (the failure is recorded; the run stops).
    live: Option<Live>,
    recovery: RecoveryProcedure,
    /// The class's `needs_ecn`: its flows are ECN-capable whatever the stack says.
    needs_ecn: bool,
    wants_rate: bool,
    /// The class's `sets_cwnd_on_every_ack`.
    every_ack: bool,
    /// The rate the class's `pacing_rate()` last returned (segments per second), which the
    /// sender reads before each send; `None` also for a class that does not override it.
    pacing: Option<f64>,
    /// When the latest ACK reached `on_ack`, to date a failure of `take_app_limited`.
    last_ack: Time,
    failures: Arc<Failures>,
    /// The run's bound on distinct inspect names: no more of one report's names are passed on
    /// (each distinct name is interned for good; the series refuse the one beyond the bound).
    inspect_limit: usize,
}

impl PyCc {
    fn build(
        py: Python<'_>,
        maker: &Py<PyAny>,
        t: &ccsim_core::spec::FlowTemplate,
        failures: &Arc<Failures>,
        inspect_limit: usize,
    ) -> Self {
        let mut cc = PyCc {
            cc: static_name(&t.cc),
            label: t.label.clone(),
            live: None,
            recovery: RecoveryProcedure::NewReno,
            needs_ecn: false,
            wants_rate: false,
            every_ack: false,
            pacing: None,
            last_ack: 0,
            failures: failures.clone(),
            inspect_limit,
        };
        if let Err(err) = cc.instantiate(py, maker, t) {
            let what = format!("the constructor of {:?} (flows labelled {:?})", cc.cc, cc.label);
            failures.record(py, err, &what);
        }
        cc.refresh_pacing(py, 0); // built before the run starts
        cc
    }

    fn instantiate(&mut self, py: Python<'_>, maker: &Py<PyAny>, t: &ccsim_core::spec::FlowTemplate) -> PyResult<()> {
        let params = PyDict::new(py);
        for (k, v) in &t.cc_params {
            params.set_item(k, v)?;
        }
        let made = maker.bind(py).call1((params,))?;
        let (obj, hooks): (Bound<'_, PyAny>, Vec<String>) = made.extract()?;
        let method = |name: &str| obj.getattr(name).map(Bound::unbind);
        let optional = |name: &str| -> PyResult<Option<Py<PyAny>>> {
            if hooks.iter().any(|h| h == name) {
                method(name).map(Some)
            } else {
                Ok(None)
            }
        };
        let recovery: String = obj
            .getattr(intern!(py, "recovery"))?
            .extract()
            .map_err(|_| PyTypeError::new_err("recovery: expected \"reno\" or \"newreno\""))?;
        self.recovery = match recovery.as_str() {
            "reno" => RecoveryProcedure::Reno,
            "newreno" => RecoveryProcedure::NewReno,
            other => {
                return Err(PyValueError::new_err(format!("recovery = {other:?}: expected \"reno\" or \"newreno\"")))
            }
        };
        self.wants_rate = obj.getattr(intern!(py, "wants_delivery_rate"))?.is_truthy()?;
        self.needs_ecn = obj.getattr(intern!(py, "needs_ecn"))?.is_truthy()?;
        self.every_ack = obj.getattr(intern!(py, "sets_cwnd_on_every_ack"))?.is_truthy()?;
        self.live = Some(Live {
            on_ack: method("on_ack")?,
            on_congestion: method("on_congestion")?,
            on_recovery_exit: optional("on_recovery_exit")?,
            undo_cwnd: optional("undo_cwnd")?,
            on_ack_in_recovery: optional("on_ack_in_recovery")?,
            on_dupack: optional("on_dupack")?,
            on_sent: optional("on_sent")?,
            next_send_time: optional("next_send_time")?,
            on_send_blocked: optional("on_send_blocked")?,
            pacing_rate: optional("pacing_rate")?,
            take_app_limited: optional("take_app_limited")?,
            inspect: optional("inspect")?,
            obj: obj.unbind(),
            synced: (f64::NAN.to_bits(), f64::NAN.to_bits()),
            growth: None,
        });
        Ok(())
    }

    /// Whether the class overrides an optional hook (checked before taking the GIL: a hook it
    /// does not override costs a branch).
    #[inline]
    fn overrides(&self, hook: impl FnOnce(&Live) -> bool) -> bool {
        self.live.as_ref().is_some_and(hook)
    }

    /// The live algorithm, unless this run has stopped on a failure.
    #[inline]
    fn live(&mut self) -> Option<&mut Live> {
        if self.failures.stopped() {
            return None;
        }
        self.live.as_mut()
    }

    fn fail(&self, py: Python<'_>, hook: &str, now: Time, err: PyErr) {
        let what = format!(
            "{hook} of {:?} (flow labelled {:?}, at {:.6} s of simulated time)",
            self.cc,
            self.label,
            now as f64 / 1e9
        );
        self.failures.record(py, err, &what);
    }

    /// Call `hook` (an optional one is called only when the class overrides it), with the window
    /// lent when `w` is given; failures are recorded, with the hook's name and the time (`at`).
    fn call<'py, A, R>(
        &mut self,
        py: Python<'py>,
        at: (&str, Time),
        w: Option<&mut Window>,
        hook: impl FnOnce(&Live) -> Option<&Py<PyAny>>,
        args: impl FnOnce(Python<'py>, &mut Live) -> PyResult<A>,
        ret: impl FnOnce(Bound<'py, PyAny>) -> PyResult<R>,
    ) -> Option<R>
    where
        A: IntoPyObject<'py, Target = PyTuple>,
    {
        let live = self.live()?;
        let method = hook(live)?.clone_ref(py);
        let result = (|| {
            if let Some(w) = &w {
                live.push(py, w)?;
            }
            let args = args(py, live)?;
            let out = ret(method.bind(py).call1(args)?)?;
            if let Some(w) = w {
                live.pull(py, w)?;
            }
            Ok(out)
        })();
        result.map_err(|e| self.fail(py, at.0, at.1, e)).ok()
    }

    /// Ask a class that overrides `pacing_rate` for its rate (after its constructor and after
    /// each hook of an ACK or a loss, which may have changed it); the sender reads the answer
    /// through the trait's `pacing_rate`. A class that does not override it costs a branch.
    #[inline]
    fn refresh_pacing(&mut self, py: Python<'_>, now: Time) {
        if !self.overrides(|l| l.pacing_rate.is_some()) {
            return;
        }
        let rate = self.call(
            py,
            ("pacing_rate", now),
            None,
            |l| l.pacing_rate.as_ref(),
            |_, _| Ok(()),
            |out| {
                if out.is_none() {
                    return Ok(None);
                }
                match out.extract::<f64>() {
                    Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(Some(rate)),
                    _ => {
                        let shown = out.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
                        Err(PyValueError::new_err(format!(
                            "returned {shown}: expected None or a rate in segments per second, finite and above 0"
                        )))
                    }
                }
            },
        );
        if let Some(rate) = rate {
            self.pacing = rate;
        }
    }
}

impl Live {
    fn push(&mut self, py: Python<'_>, w: &Window) -> PyResult<()> {
        let obj = self.obj.bind(py);
        if w.cwnd.to_bits() != self.synced.0 {
            obj.setattr(intern!(py, "cwnd"), w.cwnd)?;
            self.synced.0 = w.cwnd.to_bits();
        }
        if w.ssthresh.to_bits() != self.synced.1 {
            obj.setattr(intern!(py, "ssthresh"), w.ssthresh)?;
            self.synced.1 = w.ssthresh.to_bits();
        }
        Ok(())
    }

    fn pull(&mut self, py: Python<'_>, w: &mut Window) -> PyResult<()> {
        let obj = self.obj.bind(py);
        let read = |name: &Bound<'_, pyo3::types::PyString>| -> PyResult<f64> {
            let value = obj.getattr(name)?;
            value.extract::<f64>().map_err(|_| {
                let shown = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
                PyTypeError::new_err(format!("{name} = {shown}: expected a number of segments"))
            })
        };
        let cwnd = read(intern!(py, "cwnd"))?;
        let ssthresh = read(intern!(py, "ssthresh"))?;
        if !(cwnd.is_finite() && cwnd > 0.0) {
            return Err(PyValueError::new_err(format!("cwnd = {cwnd}: expected a finite number of segments above 0")));
        }
        if ssthresh.is_nan() || ssthresh <= 0.0 {
            return Err(PyValueError::new_err(format!(
                "ssthresh = {ssthresh}: expected a number of segments above 0 (inf: no threshold)"
            )));
        }
        *w = Window { cwnd, ssthresh };
        self.synced = (cwnd.to_bits(), ssthresh.to_bits());
        Ok(())
    }

    fn ack<'py>(&mut self, py: Python<'py>, a: &cc::AckSample) -> PyResult<(Bound<'py, AckSample>,)> {
        let growth = match &self.growth {
            Some((g, obj)) if *g == a.growth => obj.clone_ref(py),
            _ => {
                let obj = Py::new(py, Growth { slow_start_cap: a.growth.slow_start_cap, gating: a.growth.gating })?;
                self.growth = Some((a.growth, obj.clone_ref(py)));
                obj
            }
        };
        Ok((Bound::new(py, AckSample::new(a, growth))?,))
    }
}

impl CongestionControl for PyCc {
    fn name(&self) -> &'static str {
        self.cc
    }

    fn on_ack(&mut self, ack: &cc::AckSample, w: &mut Window) {
        self.last_ack = ack.now;
        Python::with_gil(|py| {
            self.call(py, ("on_ack", ack.now), Some(w), |l| Some(&l.on_ack), |py, l| l.ack(py, ack), |_| Ok(()));
            self.refresh_pacing(py, ack.now);
        });
    }

    fn on_congestion(&mut self, ev: &cc::CongestionEvent, w: &mut Window) {
        Python::with_gil(|py| {
            let event = CongestionEvent::from(ev);
            self.call(
                py,
                ("on_congestion", ev.now),
                Some(w),
                |l| Some(&l.on_congestion),
                |py, _| Ok((Bound::new(py, event)?,)),
                |_| Ok(()),
            );
            self.refresh_pacing(py, ev.now);
        });
    }

    fn on_recovery_exit(&mut self, now: Time, w: &mut Window) {
        if !self.overrides(|l| l.on_recovery_exit.is_some()) {
            return;
        }
        Python::with_gil(|py| {
            self.call(
                py,
                ("on_recovery_exit", now),
                Some(w),
                |l| l.on_recovery_exit.as_ref(),
                |_, _| Ok((now,)),
                |_| Ok(()),
            );
            self.refresh_pacing(py, now);
        });
    }

    fn undo_cwnd(&mut self, now: Time, w: &Window, prior_cwnd: f64) -> f64 {
        let default = w.cwnd.max(prior_cwnd);
        if !self.overrides(|l| l.undo_cwnd.is_some()) {
            return default;
        }
        // The window is lent to be read; what the hook writes to it is ignored.
        let mut lent = *w;
        let cwnd = Python::with_gil(|py| {
            let cwnd = self.call(
                py,
                ("undo_cwnd", now),
                Some(&mut lent),
                |l| l.undo_cwnd.as_ref(),
                |_, _| Ok((now, prior_cwnd)),
                |out| {
                    let cwnd = out
                        .extract::<f64>()
                        .map_err(|_| PyTypeError::new_err("undo_cwnd: expected a number of segments (float)"))?;
                    if cwnd.is_finite() && cwnd > 0.0 {
                        Ok(cwnd)
                    } else {
                        Err(PyValueError::new_err(format!(
                            "undo_cwnd returned {cwnd}: expected a finite number of segments above 0"
                        )))
                    }
                },
            );
            self.refresh_pacing(py, now);
            cwnd
        });
        cwnd.unwrap_or(default)
    }

    fn on_ack_in_recovery(&mut self, ack: &cc::AckSample) {
        if !self.overrides(|l| l.on_ack_in_recovery.is_some()) {
            return;
        }
        Python::with_gil(|py| {
            self.call(
                py,
                ("on_ack_in_recovery", ack.now),
                None,
                |l| l.on_ack_in_recovery.as_ref(),
                |py, l| l.ack(py, ack),
                |_| Ok(()),
            );
            self.refresh_pacing(py, ack.now);
        });
    }

    fn on_dupack(&mut self, now: Time) {
        if !self.overrides(|l| l.on_dupack.is_some()) {
            return;
        }
        Python::with_gil(|py| {
            self.call(py, ("on_dupack", now), None, |l| l.on_dupack.as_ref(), |_, _| Ok((now,)), |_| Ok(()));
            self.refresh_pacing(py, now);
        });
    }

    fn watches_sends(&self) -> bool {
        // take_app_limited is polled only for algorithms that watch sends (or own the window on
        // every ACK): a class that overrides it is asked whatever else it does.
        self.overrides(|l| l.on_sent.is_some() || l.next_send_time.is_some() || l.take_app_limited.is_some())
    }

    fn on_sent(&mut self, sent: &cc::SentSample) {
        if !self.overrides(|l| l.on_sent.is_some()) {
            return;
        }
        Python::with_gil(|py| {
            let s = SentSample {
                now: sent.now,
                seq: sent.seq,
                retransmission: sent.retransmission,
                in_flight: sent.in_flight,
            };
            self.call(
                py,
                ("on_sent", sent.now),
                None,
                |l| l.on_sent.as_ref(),
                |py, _| Ok((Bound::new(py, s)?,)),
                |_| Ok(()),
            );
        });
    }

    fn next_send_time(&mut self, ctx: &cc::PacingContext) -> Option<Time> {
        if !self.overrides(|l| l.next_send_time.is_some()) {
            return None;
        }
        Python::with_gil(|py| {
            let c = PacingContext {
                now: ctx.now,
                cwnd: ctx.window.cwnd,
                ssthresh: ctx.window.ssthresh,
                srtt: ctx.srtt,
                in_flight: ctx.in_flight,
            };
            self.call(
                py,
                ("next_send_time", ctx.now),
                None,
                |l| l.next_send_time.as_ref(),
                |py, _| Ok((Bound::new(py, c)?,)),
                |out| {
                    if out.is_none() {
                        return Ok(None);
                    }
                    out.extract::<Time>().map(Some).map_err(|_| {
                        let shown = out.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
                        PyTypeError::new_err(format!(
                            "returned {shown}: expected None or a time in nanoseconds (an int, at least 0)"
                        ))
                    })
                },
            )
            .flatten()
        })
    }

    fn on_send_blocked(&mut self, now: Time) {
        if !self.overrides(|l| l.on_send_blocked.is_some()) {
            return;
        }
        Python::with_gil(|py| {
            self.call(
                py,
                ("on_send_blocked", now),
                None,
                |l| l.on_send_blocked.as_ref(),
                |_, _| Ok((now,)),
                |_| Ok(()),
            );
        });
    }

    fn wants_delivery_rate(&self) -> bool {
        self.wants_rate
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.pacing
    }

    fn sets_cwnd_on_every_ack(&self) -> bool {
        self.every_ack
    }

    fn take_app_limited(&mut self) -> bool {
        if !self.overrides(|l| l.take_app_limited.is_some()) {
            return false;
        }
        Python::with_gil(|py| {
            // The hook has no time of its own: a failure is dated by the flow's latest ACK.
            self.call(
                py,
                ("take_app_limited", self.last_ack),
                None,
                |l| l.take_app_limited.as_ref(),
                |_, _| Ok(()),
                |out| out.is_truthy(),
            )
            .unwrap_or(false)
        })
    }

    fn needs_ecn(&self) -> bool {
        self.needs_ecn
    }

    fn customary_recovery(&self) -> RecoveryProcedure {
        self.recovery
    }

    fn inspect(&self, now: Time, out: &mut dyn FnMut(&'static str, f64)) {
        if self.failures.stopped() {
            return;
        }
        let Some(hook) = self.live.as_ref().and_then(|l| l.inspect.as_ref()) else { return };
        Python::with_gil(|py| {
            let result = (|| -> PyResult<()> {
                let reported = hook.bind(py).call1((now,))?;
                let reported = reported
                    .downcast::<PyDict>()
                    .map_err(|_| PyTypeError::new_err("returned something else than a dict of names to numbers"))?;
                // One name beyond the bound is enough for the series to stop the run.
                for (k, v) in reported.iter().take(self.inspect_limit.saturating_add(1)) {
                    let name: String = k
                        .extract()
                        .map_err(|_| PyTypeError::new_err(format!("returned the key {k}: expected a str")))?;
                    let value: f64 = v
                        .extract()
                        .map_err(|_| PyTypeError::new_err(format!("returned {name} = {v}: expected a number")))?;
                    out(static_name(&name), value);
                }
                Ok(())
            })();
            if let Err(err) = result {
                self.fail(py, "inspect", now, err);
            }
        });
    }
}

// ---- what the hooks receive -----------------------------------------------------------------

/// How the stack counts increases and gates growth (the flow's stack profile).
#[pyclass(frozen, module = "ccsim._core", get_all)]
pub struct Growth {
    /// Cap on the slow-start increase per ACK, segments; None: no cap.
    slow_start_cap: Option<f64>,
    /// Skip growth when the flow is not cwnd-limited.
    gating: bool,
}

#[pymethods]
impl Growth {
    fn __repr__(&self) -> String {
        format!("Growth(slow_start_cap={:?}, gating={})", self.slow_start_cap, py_bool(self.gating))
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// One ACK: one that advanced the cumulative ACK, or any ACK for a class that sets the window on
/// every ACK. Times and durations in nanoseconds (int).
#[pyclass(frozen, module = "ccsim._core", get_all)]
pub struct AckSample {
    /// Simulated time the ACK reached the sender, ns.
    now: u64,
    /// Segments newly acknowledged by this ACK (how far the cumulative ACK moved; 0 on a duplicate
    /// ACK).
    acked: f64,
    /// Units of window increase this ACK earns: 1 under per-ACK counting (`ns2`), else `acked`.
    increase_units: f64,
    /// The RTT sample the RTT estimator (`srtt`, the RTO) took from this ACK, ns, exact (not
    /// truncated to clock ticks): the timestamp echo under every-ACK sampling, or, under `ns2`'s
    /// one timed segment per round trip, that segment's RTT on the ACK that covers it. None when
    /// this ACK gave the estimator no sample (most ACKs under `ns2`).
    rtt: Option<u64>,
    /// Under every-ACK sampling (`linux`, `rfc`), Linux's `ca_rtt`: the RTT of the most recently
    /// sent segment this ACK newly acknowledges (the echo when only retransmissions were), ns. None
    /// under `ns2`'s one-per-RTT timing.
    ca_rtt: Option<u64>,
    /// Smoothed RTT (RFC 6298) after this ACK's sample, ns, from the estimator's samples (truncated
    /// to clock ticks under `ns2`). 0 until the first sample: the SYN-ACK gives one under profiles
    /// with a handshake, else the first `rtt`.
    srtt: u64,
    /// Smallest of the estimator's samples so far (the SYN-ACK's included), exact, ns; 0 until the
    /// first sample, as `srtt`.
    min_rtt: u64,
    /// One-way delay of the segment this ACK echoes, ns: the receiver's timestamp of its arrival
    /// minus the sender's of its departure. Signed: with a flow's `clock_offset` or
    /// `clock_drift_ppm` the two clocks disagree. None when the ACK carries no arrival time for it.
    one_way_delay: Option<i64>,
    /// Send time of the segment whose timestamp this ACK echoes, ns (so `now - echoed_ts` is the
    /// echo RTT).
    echoed_ts: u64,
    /// Segments in flight before this ACK, as the sender counted them after its previous ACK and
    /// the sends since.
    prior_in_flight: f64,
    /// Segments in flight after this ACK.
    in_flight: f64,
    /// Segments cumulatively acknowledged since the flow opened, this ACK's included.
    delivered: u64,
    /// This ACK starts a new round: it acknowledges data sent after the previous round started (the
    /// first ACK of a flow does).
    round_start: bool,
    /// Rounds started so far, this ACK's included (1 from the flow's first ACK).
    round: u64,
    /// The sender was limited by `cwnd`, not by the receiver window or a lack of data.
    cwnd_limited: bool,
    /// The ACK echoes a congestion mark (ECN-Echo, RFC 3168; only on flows with ECN; under AccECN
    /// feedback, the ACK reports CE-marked segments: `ce_delivered > 0`). Such an ACK goes to
    /// `on_ack_in_recovery`: it never grows the window.
    ece: bool,
    /// Segments this ACK newly delivered, cumulatively or by SACK (Linux's `acked_sacked`); a
    /// duplicate ACK without SACK counts 1 (the ACK that later covers it counts that much less).
    delivered_now: f64,
    /// Segments the sender newly marked lost while processing this ACK (Linux's `rs->losses`).
    newly_lost: f64,
    /// Of the segments this ACK newly delivered, how many the receiver reports CE-marked (flows
    /// with ECN only): under AccECN feedback the rise of the receiver's CE counter decoded from
    /// the ACK (RFC 9768); under the one-bit feedbacks `delivered_now` when the ACK has `ece`.
    ce_delivered: f64,
    /// Where the sender stands after this ACK (Linux's `icsk_ca_state`): "open"; "cwr" (an ECN
    /// reduction under way); "recovery" (fast recovery); "loss" (after a timeout, until the data
    /// outstanding then is acknowledged).
    ca_state: &'static str,
    /// How the flow's stack profile counts increases and gates growth.
    growth: Py<Growth>,
    /// The delay and delivery measurements the sender takes on every ACK.
    delay: DelaySample,
}

impl AckSample {
    fn new(a: &cc::AckSample, growth: Py<Growth>) -> Self {
        AckSample {
            now: a.now,
            acked: a.acked,
            increase_units: a.increase_units,
            rtt: a.rtt,
            ca_rtt: a.ca_rtt,
            srtt: a.srtt,
            min_rtt: a.min_rtt,
            one_way_delay: a.one_way_delay,
            echoed_ts: a.echoed_ts,
            prior_in_flight: a.prior_in_flight,
            in_flight: a.in_flight,
            delivered: a.delivered,
            round_start: a.round_start,
            round: a.round,
            cwnd_limited: a.cwnd_limited,
            ece: a.ece,
            delivered_now: a.delivered_now,
            newly_lost: a.newly_lost,
            ce_delivered: a.ce_delivered,
            ca_state: match a.ca_state {
                CaState::Open => "open",
                CaState::Cwr => "cwr",
                CaState::Recovery => "recovery",
                CaState::Loss => "loss",
            },
            growth,
            delay: DelaySample(a.delay),
        }
    }
}

#[pymethods]
impl AckSample {
    fn __repr__(&self) -> String {
        format!(
            "AckSample(now={}, acked={}, increase_units={}, rtt={}, srtt={}, in_flight={}, round_start={}, round={}, \
             cwnd_limited={}, delivered_now={}, newly_lost={}, ce_delivered={}, ca_state={:?})",
            self.now,
            self.acked,
            self.increase_units,
            self.rtt.map_or("None".into(), |r| r.to_string()),
            self.srtt,
            self.in_flight,
            py_bool(self.round_start),
            self.round,
            py_bool(self.cwnd_limited),
            self.delivered_now,
            self.newly_lost,
            self.ce_delivered,
            self.ca_state
        )
    }
}

/// The sender's delay and delivery measurements on one ACK (see docs/python-cc.md).
#[pyclass(frozen, module = "ccsim._core")]
#[derive(Clone, Copy)]
pub struct DelaySample(delay::DelaySample);

#[pymethods]
impl DelaySample {
    /// This ACK's RTT sample, ns.
    #[getter]
    fn latest(&self) -> u64 {
        self.0.latest
    }
    /// Smallest RTT sample since the connection opened (the base RTT), ns.
    #[getter]
    fn base(&self) -> u64 {
        self.0.base
    }
    /// Largest RTT sample since the connection opened, ns.
    #[getter]
    fn max(&self) -> u64 {
        self.0.max
    }
    /// The current round's samples (on a round-start ACK: the round that just ended).
    #[getter]
    fn round(&self) -> RoundRtt {
        RoundRtt(self.0.round)
    }
    /// One-way delay of the echoed segment, ns (signed).
    #[getter]
    fn one_way_delay(&self) -> Option<i64> {
        self.0.one_way_delay
    }
    /// Delivery-rate sample: present when this ACK newly delivers a segment with a send record
    /// (its `valid` says whether its interval makes a rate), else None.
    #[getter]
    fn rate(&self) -> Option<RateSample> {
        self.0.rate.map(RateSample)
    }
    /// Segments delivered so far, this ACK's included (Linux `tp->delivered`).
    #[getter]
    fn delivered(&self) -> u64 {
        self.0.delivered
    }
    /// Of those, the segments reported CE-marked (Linux `tp->delivered_ce`).
    #[getter]
    fn delivered_ce(&self) -> u64 {
        self.0.delivered_ce
    }
    fn __repr__(&self) -> String {
        format!("DelaySample(latest={}, base={}, max={})", self.0.latest, self.0.base, self.0.max)
    }
}

/// Minimum, maximum, sum and count of one round's RTT samples, ns.
#[pyclass(frozen, module = "ccsim._core")]
#[derive(Clone, Copy)]
pub struct RoundRtt(delay::RoundRtt);

#[pymethods]
impl RoundRtt {
    #[getter]
    fn min(&self) -> u64 {
        self.0.min
    }
    #[getter]
    fn max(&self) -> u64 {
        self.0.max
    }
    #[getter]
    fn sum(&self) -> u64 {
        self.0.sum
    }
    #[getter]
    fn count(&self) -> u32 {
        self.0.count
    }
    /// Mean of the samples, ns; None without samples.
    fn mean(&self) -> Option<f64> {
        self.0.mean()
    }
    fn __repr__(&self) -> String {
        format!("RoundRtt(min={}, max={}, sum={}, count={})", self.0.min, self.0.max, self.0.sum, self.0.count)
    }
}

/// A delivery-rate sample (Linux `tcp_rate.c`): what happened between the send of the most
/// recently sent segment this ACK newly delivers and now.
#[pyclass(frozen, module = "ccsim._core")]
#[derive(Clone, Copy)]
pub struct RateSample(delay::RateSample);

#[pymethods]
impl RateSample {
    /// Segments delivered (cumulatively or by SACK) since that segment left, this ACK's included.
    #[getter]
    fn delivered(&self) -> u64 {
        self.0.delivered
    }
    /// max(send interval, ACK interval), ns: the rate's denominator when `valid`.
    #[getter]
    fn interval(&self) -> u64 {
        self.0.interval
    }
    /// Whether the interval makes a rate: False when it is 0 or shorter than the flow's minimum
    /// RTT (Linux does not trust those); the counts hold either way.
    #[getter]
    fn valid(&self) -> bool {
        self.0.valid
    }
    /// The segment left while the sender was app-limited (no data to send, or the algorithm's
    /// `take_app_limited` marked the flight): the rate says less than the path can carry.
    #[getter]
    fn app_limited(&self) -> bool {
        self.0.app_limited
    }
    /// The segment was a retransmission.
    #[getter]
    fn retransmission(&self) -> bool {
        self.0.retransmission
    }
    /// The sender's delivered count when the segment left (Linux `rs->prior_delivered`): a round
    /// that began at delivered count d ends with the first sample whose `prior_delivered` >= d.
    #[getter]
    fn prior_delivered(&self) -> u64 {
        self.0.prior_delivered
    }
    /// Segments in flight just after the segment left, itself included (BBRv3's `tx_in_flight`).
    #[getter]
    fn tx_in_flight(&self) -> u64 {
        self.0.tx_in_flight
    }
    /// Segments the sender marked lost between the segment's send and now (Linux `rs->lost`).
    #[getter]
    fn lost(&self) -> u64 {
        self.0.lost
    }
    /// Of `delivered`, the segments whose ACKs carried ECN-Echo (Linux `rs->delivered_ce`).
    #[getter]
    fn delivered_ce(&self) -> u64 {
        self.0.delivered_ce
    }
    /// Delivery rate, segments per second: `delivered` over `interval`; None unless `valid`.
    fn rate(&self) -> Option<f64> {
        self.0.rate()
    }
    fn __repr__(&self) -> String {
        format!(
            "RateSample(delivered={}, interval={}, valid={}, app_limited={}, prior_delivered={}, lost={})",
            self.0.delivered,
            self.0.interval,
            py_bool(self.0.valid),
            py_bool(self.0.app_limited),
            self.0.prior_delivered,
            self.0.lost
        )
    }
}

/// The start of a loss episode.
#[pyclass(frozen, module = "ccsim._core", get_all)]
pub struct CongestionEvent {
    /// Simulated time the episode was detected, ns.
    now: u64,
    /// What started the episode. "loss": duplicate ACKs (or SACK) detected a loss, fast retransmit
    /// follows; "ecn": an ACK echoed a congestion mark (at most once per window, never in recovery;
    /// nothing is retransmitted); "timeout": the retransmission timer expired.
    kind: &'static str,
    /// Segments in flight when the loss was detected.
    in_flight: f64,
    /// Segments a reduction is computed from, as the stack's `ssthresh_basis` says: min(cwnd,
    /// receiver window) for "window" (`ns2`), the flight size for "flight_size" (`rfc`), cwnd for
    /// "cwnd" (`linux`).
    basis: f64,
    /// For "timeout": this is the segment's first expiry; only the first lowers ssthresh (RFC 5681
    /// eq. 4). For "loss" and "ecn": no timeout has expired since the last ACK of new data
    /// (normally True).
    first_timeout: bool,
    /// Smoothed RTT, ns; 0 until the first RTT sample (as `AckSample.srtt`).
    srtt: u64,
    /// Smallest RTT sample so far, ns; 0 until the first (as `AckSample.min_rtt`).
    min_rtt: u64,
}

impl From<&cc::CongestionEvent> for CongestionEvent {
    fn from(ev: &cc::CongestionEvent) -> Self {
        CongestionEvent {
            now: ev.now,
            kind: match ev.kind {
                CongestionKind::Loss => "loss",
                CongestionKind::Ecn => "ecn",
                CongestionKind::Timeout => "timeout",
            },
            in_flight: ev.in_flight,
            basis: ev.basis,
            first_timeout: ev.first_timeout,
            srtt: ev.srtt,
            min_rtt: ev.min_rtt,
        }
    }
}

#[pymethods]
impl CongestionEvent {
    fn __repr__(&self) -> String {
        format!(
            "CongestionEvent(now={}, kind={:?}, in_flight={}, basis={}, first_timeout={})",
            self.now,
            self.kind,
            self.in_flight,
            self.basis,
            py_bool(self.first_timeout)
        )
    }
}

/// A segment leaving the sender.
#[pyclass(frozen, module = "ccsim._core", get_all)]
pub struct SentSample {
    /// Simulated time the segment left, ns.
    now: u64,
    /// The segment's sequence number, in segments from 0.
    seq: u32,
    /// The segment was sent before: this is a retransmission.
    retransmission: bool,
    /// Segments in flight, as the sender counts them once the segment has left.
    in_flight: f64,
}

/// What a pacing algorithm sees when asked for the next transmission time.
#[pyclass(frozen, module = "ccsim._core", get_all)]
pub struct PacingContext {
    /// Simulated time of the question, ns.
    now: u64,
    /// The sender's congestion window now, segments (the current value, which the algorithm's own
    /// `cwnd` attribute may lag in this hook).
    cwnd: f64,
    /// The sender's slow-start threshold now, segments (`math.inf`: none).
    ssthresh: f64,
    /// Smoothed RTT, ns; 0 until the first RTT sample.
    srtt: u64,
    /// Segments in flight.
    in_flight: f64,
}

/// Add the classes above to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CongestionControlError", m.py().get_type::<CongestionControlError>())?;
    m.add_class::<AckSample>()?;
    m.add_class::<DelaySample>()?;
    m.add_class::<RoundRtt>()?;
    m.add_class::<RateSample>()?;
    m.add_class::<Growth>()?;
    m.add_class::<CongestionEvent>()?;
    m.add_class::<SentSample>()?;
    m.add_class::<PacingContext>()?;
    Ok(())
}
