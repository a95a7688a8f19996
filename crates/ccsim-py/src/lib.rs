//! Python bindings for ccsim-core: a `Simulation` class that runs with the GIL released and hands
//! back columns; `algorithms()`, `stack_settings()`, `stack_profiles()`, `queue_kinds()` (the engine's schema, which
//! the Python front end is tested against) and `version()`; and, in `pycc`, congestion control
//! written in Python (the classes its hooks receive, and the engine-side wrapper that calls them).

mod harness;
mod pycc;

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ccsim_core::cc::registry;
use ccsim_core::engine::RunError;
use ccsim_core::results::{Column, RunResults, Table};
use ccsim_core::spec::{profile_name, QueueSpec, MAX_TIME_NS, PROFILES};
use ccsim_core::tcp::stack_settings::{SettingKind, StackConfig, STACK_SETTINGS};
use ccsim_core::{ScenarioSpec, Simulation as CoreSimulation};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

pyo3::create_exception!(
    ccsim._core,
    LimitExceededError,
    PyRuntimeError,
    "The run grew past a bound of its scenario's [limits] that only the running engine sees \
     (limits.inspect_columns): the run stopped. The message names the run, the key and the bound."
);

pyo3::create_exception!(
    ccsim._core,
    OutOfMemoryError,
    PyMemoryError,
    "The engine could not allocate memory for a record that grows with the run (the sampled \
     series, the drop log, the packet capture, the result tables): the run stopped. The message \
     names the run and the record."
);

/// The Python exception for a run's failure, naming the run.
fn run_error(scenario: &str, e: RunError) -> PyErr {
    let message = format!("scenario {scenario}: {e}");
    match e {
        RunError::Limit { .. } => LimitExceededError::new_err(message),
        RunError::OutOfMemory { .. } => OutOfMemoryError::new_err(message),
    }
}

/// Turn a panic payload into a message.
fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Events run between two looks at Python's signal handlers (a few milliseconds of work).
const EVENTS_PER_SLICE: u64 = 200_000;
/// The same with Python algorithms, whose hooks make events slower; it is also how soon a run
/// stops after a hook failed (the hooks do nothing from then on).
const PY_EVENTS_PER_SLICE: u64 = 20_000;

/// One simulation run. Build it from the resolved scenario JSON, advance it, then `finish()`.
#[pyclass(module = "ccsim._core")]
struct Simulation {
    inner: Option<CoreSimulation>,
    name: String,
    /// With Python algorithms: their first failure. Such a run keeps the GIL while it runs (its
    /// hooks need it at every ACK).
    failures: Option<Arc<pycc::Failures>>,
}

impl Simulation {
    fn sim(&mut self) -> PyResult<&mut CoreSimulation> {
        self.inner.as_mut().ok_or_else(|| {
            PyRuntimeError::new_err(format!("scenario {}: the simulation already finished or crashed", self.name))
        })
    }

    /// Run `f` on the simulation without the GIL, turning a panic into RuntimeError and
    /// discarding the broken simulation.
    ///
    /// With Python algorithms the GIL stays held, and a hook's failure discards the simulation
    /// and is raised (a `CongestionControlError` whose cause is the hook's exception). A run
    /// whose records could not grow (`Simulation::failure`) is discarded too, and its failure
    /// raised: `LimitExceededError` or `OutOfMemoryError`.
    fn guarded<T: Send>(&mut self, py: Python<'_>, f: impl FnOnce(&mut CoreSimulation) -> T + Send) -> PyResult<T> {
        let name = self.name.clone();
        let failures = self.failures.clone();
        let sim = self.sim()?;
        let out = match failures {
            Some(_) => catch_unwind(AssertUnwindSafe(|| f(sim))),
            None => py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| f(sim)))),
        };
        if let Some(err) = self.failures.as_ref().and_then(|f| f.take()) {
            self.inner = None;
            return Err(err);
        }
        let out = out.map_err(|p| {
            self.inner = None;
            PyRuntimeError::new_err(format!("scenario {name}: engine crashed: {}", panic_message(p)))
        })?;
        if let Some(failure) = self.inner.as_ref().and_then(CoreSimulation::failure) {
            self.inner = None;
            return Err(run_error(&name, failure));
        }
        Ok(out)
    }
}

#[pymethods]
impl Simulation {
    /// `python_cc` maps the cc names of Python algorithms to the callables that build them
    /// (`ccsim.pycc`); every other name comes from the engine's registry.
    #[new]
    #[pyo3(signature = (spec_json, python_cc = None))]
    fn new(py: Python<'_>, spec_json: &str, python_cc: Option<HashMap<String, Py<PyAny>>>) -> PyResult<Self> {
        let spec = ScenarioSpec::from_json(spec_json).map_err(PyValueError::new_err)?;
        let makers = python_cc.unwrap_or_default();
        let (built, failures) = if makers.is_empty() {
            (py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| CoreSimulation::new(&spec)))), None)
        } else {
            let failures = Arc::new(pycc::Failures::default());
            let inspect_limit = spec.limits.inspect_columns as usize;
            let factory = pycc::factory(spec.stack.profile, makers, failures.clone(), inspect_limit);
            let built = catch_unwind(AssertUnwindSafe(|| CoreSimulation::with_factory(&spec, factory)));
            if let Some(err) = failures.take() {
                return Err(err);
            }
            (built, Some(failures))
        };
        match built {
            Ok(Ok(sim)) => Ok(Simulation { name: spec.name.clone(), inner: Some(sim), failures }),
            Ok(Err(msg)) => Err(PyValueError::new_err(msg)),
            Err(p) => Err(PyRuntimeError::new_err(format!(
                "scenario {}: engine crashed while building: {}",
                spec.name,
                panic_message(p)
            ))),
        }
    }

    /// Run until `until_ns` of simulated time (capped at the duration). True when the run is over.
    ///
    /// The engine runs in slices of at most `EVENTS_PER_SLICE` events with the GIL released, and
    /// Python's signal handlers run between slices: Ctrl-C raises KeyboardInterrupt here within
    /// a fraction of a second, however long the step of simulated time.
    fn advance(&mut self, py: Python<'_>, until_ns: u64) -> PyResult<bool> {
        let slice = if self.failures.is_some() { PY_EVENTS_PER_SLICE } else { EVENTS_PER_SLICE };
        loop {
            if self.guarded(py, |s| s.run_for(until_ns, slice))? {
                return Ok(self.sim()?.is_done());
            }
            py.check_signals()?;
        }
    }

    #[getter]
    fn now_ns(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.now())
    }

    #[getter]
    fn duration_ns(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.duration())
    }

    #[getter]
    fn events(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.events_processed())
    }

    /// Run to the end and return the results as columns.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let name = self.name.clone();
        let results = self.guarded(py, |s| s.try_finish())?.map_err(|e| run_error(&name, e));
        self.inner = None;
        results_to_py(py, results?).map_err(|e| {
            // Python could not allocate the tables' bytes: say so as the engine's records do.
            if e.is_instance_of::<PyMemoryError>(py) && !e.is_instance_of::<OutOfMemoryError>(py) {
                run_error(&name, RunError::OutOfMemory { detail: format!("handing the results to Python: {e}") })
            } else {
                e
            }
        })
    }
}

/// A numeric column as Python bytes (little-endian), written in place: the column's bytes are
/// not made twice, and a failed allocation is a MemoryError rather than an abort.
fn column_bytes<'py>(py: Python<'py>, col: &Column, table: &str, name: &str) -> PyResult<Bound<'py, PyBytes>> {
    fn fill<const N: usize, T: Copy>(out: &mut [u8], v: &[T], f: impl Fn(T) -> [u8; N]) {
        for (chunk, &x) in out.chunks_exact_mut(N).zip(v) {
            chunk.copy_from_slice(&f(x));
        }
    }
    let width = match col {
        Column::F64(_) | Column::U64(_) | Column::I64(_) => 8,
        Column::U32(_) => 4,
        Column::U8(_) => 1,
        Column::Str(_) => unreachable!("string columns have no byte form"),
    };
    let len = col.len().checked_mul(width).ok_or_else(|| PyMemoryError::new_err("column too large"))?;
    PyBytes::new_with(py, len, |out| {
        match col {
            Column::F64(v) => fill(out, v, f64::to_le_bytes),
            Column::U64(v) => fill(out, v, u64::to_le_bytes),
            Column::I64(v) => fill(out, v, i64::to_le_bytes),
            Column::U32(v) => fill(out, v, u32::to_le_bytes),
            Column::U8(v) => out.copy_from_slice(v),
            Column::Str(_) => {}
        }
        Ok(())
    })
    .map_err(|e| {
        if e.is_instance_of::<PyMemoryError>(py) {
            PyMemoryError::new_err(format!("the {table} table's column {name} ({len} bytes)"))
        } else {
            e
        }
    })
}

fn table_to_py<'py>(py: Python<'py>, table: &str, t: Table) -> PyResult<Bound<'py, PyDict>> {
    let names = PyList::empty(py);
    let dtypes = PyList::empty(py);
    let data = PyList::empty(py);
    for (name, col) in t.columns {
        names.append(&name)?;
        dtypes.append(col.dtype())?;
        match col {
            Column::Str(v) => data.append(PyList::new(py, v)?)?,
            // Each column is freed as soon as Python holds its bytes.
            col => data.append(column_bytes(py, &col, table, &name)?)?,
        }
    }
    let d = PyDict::new(py);
    d.set_item("names", names)?;
    d.set_item("dtypes", dtypes)?;
    d.set_item("data", data)?;
    Ok(d)
}

fn results_to_py(py: Python<'_>, r: RunResults) -> PyResult<Bound<'_, PyDict>> {
    let tables = PyDict::new(py);
    tables.set_item("flows", table_to_py(py, "flows", r.flows)?)?;
    tables.set_item("links", table_to_py(py, "links", r.links)?)?;
    tables.set_item("series", table_to_py(py, "series", r.series)?)?;
    tables.set_item("queues", table_to_py(py, "queues", r.queues)?)?;
    tables.set_item("drops", table_to_py(py, "drops", r.drops)?)?;
    let stats = PyDict::new(py);
    stats.set_item("events", r.events)?;
    stats.set_item("packet_hops", r.packet_hops)?;
    stats.set_item("sim_end_ns", r.sim_end_ns)?;
    let json = py.import("json")?;
    let stack = json.call_method1("loads", (r.stack_json,))?;
    // One entry per capture point, in the scenario's order (dicts keep it).
    let pcap = PyDict::new(py);
    for file in r.pcap {
        pcap.set_item(file.name, PyBytes::new(py, &file.bytes))?;
    }
    let out = PyDict::new(py);
    out.set_item("tables", tables)?;
    out.set_item("pcap", pcap)?;
    out.set_item("stats", stats)?;
    out.set_item("stack", stack)?;
    Ok(out)
}

/// Every congestion-control algorithm with its parameters and defaults.
#[pyfunction]
fn algorithms(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for a in registry::algorithms() {
        let params = PyList::empty(py);
        for p in a.params {
            let d = PyDict::new(py);
            d.set_item("name", p.name)?;
            d.set_item("kind", p.kind.as_str())?;
            d.set_item("default", p.default)?;
            d.set_item("min", p.min)?;
            d.set_item("max", p.max)?;
            d.set_item("doc", p.doc)?;
            // Defaults that depend on the stack profile (CUBIC's HyStart under linux).
            let by_profile = PyDict::new(py);
            for pd in a.profile_defaults.iter().filter(|pd| pd.param == p.name) {
                by_profile.set_item(profile_name(pd.profile), pd.value)?;
            }
            d.set_item("profile_defaults", by_profile)?;
            params.append(d)?;
        }
        let d = PyDict::new(py);
        d.set_item("name", a.name)?;
        d.set_item("summary", a.summary)?;
        d.set_item("recovery", a.recovery.as_str())?;
        d.set_item("params", params)?;
        d.set_item("inspect", a.inspect_names())?;
        out.append(d)?;
    }
    Ok(out)
}

/// Every stack profile's resolved configuration (`StackConfig`), by profile name: the knobs the
/// engine accepts in `[stack]`, with the profile's values, as the run's `stack` dict reports them.
#[pyfunction]
fn stack_profiles(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let json = py.import("json")?;
    let out = PyDict::new(py);
    for p in PROFILES {
        let text =
            serde_json::to_string(&StackConfig::for_profile(p)).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        out.set_item(profile_name(p), json.call_method1("loads", (text,))?)?;
    }
    Ok(out)
}

/// Every `[stack]` setting (`tcp::stack_settings::STACK_SETTINGS`): its key in a scenario file, the
/// engine's field, its kind ("bool", "int", "float", "time" in ns, "choice"), its bounds or
/// choices, each profile's value (null: none) and a one-line description. The Python schema of
/// `[stack]` is built from this.
#[pyfunction]
fn stack_settings(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let json = py.import("json")?;
    let mut profiles = Vec::new();
    for p in PROFILES {
        let config =
            serde_json::to_value(StackConfig::for_profile(p)).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        profiles.push((profile_name(p), config));
    }
    let out = PyList::empty(py);
    for setting in STACK_SETTINGS {
        let d = PyDict::new(py);
        d.set_item("key", setting.key)?;
        d.set_item("field", setting.field)?;
        d.set_item("kind", setting.kind.as_str())?;
        // Bounds as the setting's own type: integers stay integers in Python (2**30, not 1.0e9).
        let none: Option<u64> = None;
        let mut choices: &[&str] = &[];
        match setting.kind {
            SettingKind::Int { min, max } => {
                d.set_item("min", min)?;
                d.set_item("max", max)?;
            }
            SettingKind::Float { min, max } => {
                d.set_item("min", min)?;
                d.set_item("max", max)?;
            }
            SettingKind::Time { min_ns } => {
                d.set_item("min", min_ns)?;
                d.set_item("max", MAX_TIME_NS)?;
            }
            SettingKind::Bool | SettingKind::Choice(_) => {
                d.set_item("min", none)?;
                d.set_item("max", none)?;
                if let SettingKind::Choice(names) = setting.kind {
                    choices = names;
                }
            }
        }
        d.set_item("choices", choices)?;
        let defaults = PyDict::new(py);
        for (name, config) in &profiles {
            let text = config[setting.field].to_string();
            defaults.set_item(*name, json.call_method1("loads", (text,))?)?;
        }
        d.set_item("defaults", defaults)?;
        d.set_item("doc", setting.doc)?;
        out.append(d)?;
    }
    Ok(out)
}

/// The queue disciplines (`kind` of a queue) the engine accepts.
#[pyfunction]
fn queue_kinds() -> Vec<&'static str> {
    QueueSpec::KINDS.to_vec()
}

/// The engine's version.
#[pyfunction]
fn version() -> &'static str {
    ccsim_core::VERSION
}

/// Check a resolved scenario (JSON) as the engine does before it builds anything: every quantity
/// in range and the rules between settings (`stack.max_rto` against the profile's `min_rto`, a
/// dumbbell flow's RTT against the bottleneck delay). Raises ValueError naming the user's key.
#[pyfunction]
fn validate(spec_json: &str) -> PyResult<()> {
    ScenarioSpec::from_json(spec_json).map(|_| ()).map_err(PyValueError::new_err)
}

/// A time in nanoseconds as the engine's messages write it ("40ms", "1.5s").
#[pyfunction]
fn format_time(ns: u64) -> String {
    ccsim_core::units::format_time(ns)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add("LimitExceededError", m.py().get_type::<LimitExceededError>())?;
    m.add("OutOfMemoryError", m.py().get_type::<OutOfMemoryError>())?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(stack_settings, m)?)?;
    m.add_function(wrap_pyfunction!(stack_profiles, m)?)?;
    m.add_function(wrap_pyfunction!(queue_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(format_time, m)?)?;
    pycc::register(m)?;
    harness::register(m)?;
    Ok(())
}
