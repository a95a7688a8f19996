"""Running a scenario on the engine.

The engine runs with the GIL released, in about a hundred chunks of simulated time so that a
progress bar can follow it and Ctrl-C is noticed between chunks. A scenario with algorithms
written in Python (:mod:`ccsim.pycc`) runs with the GIL held instead, calling their hooks.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any

from ccsim import pycc
from ccsim.errors import EngineError, ScenarioError
from ccsim.scenario import Scenario

if TYPE_CHECKING:
    from ccsim.results import Results

__all__ = ["build", "run", "version"]

#: The run is advanced in about this many steps of simulated time.
CHUNKS = 100
#: The progress bar appears only once a run has taken this long (wall-clock seconds).
PROGRESS_AFTER_S = 2.0


def engine() -> ModuleType:
    """The compiled engine module, or an ImportError that says how to build it."""
    try:  # imported here, so that ccsim imports (and says this) when the engine is not built
        from ccsim import _core
    except ImportError as error:
        raise ImportError(
            "the ccsim engine (ccsim._core) is not built; install ccsim with `pip install .`"
        ) from error
    return _core


def version() -> str:
    """ccsim's version: the engine's, or the installed package's when the engine is missing."""
    try:
        return str(engine().version())
    except ImportError:  # no engine: the installed package's metadata (slow to import) tells
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as package_version

        try:
            return package_version("ccsim")
        except PackageNotFoundError:
            return "unknown"


def run(scenario: Scenario, *, progress: bool = False) -> Results:
    """Simulate ``scenario`` and return its :class:`~ccsim.results.Results`.

    With ``progress=True`` a progress bar of simulated time is shown on stderr once the run has
    taken more than two seconds. A spec the engine rejects raises :class:`ScenarioError`; a
    failure inside the engine raises :class:`EngineError` naming the scenario. An exception in a
    hook of an algorithm written in Python stops the run and raises
    :class:`~ccsim.CongestionControlError`, whose ``__cause__`` is that exception (with its
    traceback). A hook that raises SystemExit has failed the same way; so has one that raises
    KeyboardInterrupt where no Ctrl-C can (a sweep's worker), while a KeyboardInterrupt in the
    main thread is taken for Ctrl-C and propagates as it is.
    """
    core = engine()
    started = time.perf_counter()
    simulation = build(scenario)
    with _ProgressBar(enabled=progress, description=scenario.name) as bar:
        _advance(simulation, scenario, bar)
    output = _engine_call(scenario, "finishing", simulation.finish)
    wall_s = time.perf_counter() - started
    from ccsim.results import Results  # pandas: imported only when a run needs it

    try:
        results = Results.from_engine(scenario, output, wall_s=wall_s, version=str(core.version()))
    except MemoryError as error:
        raise EngineError(
            f"scenario {scenario.name}: out of memory while building the result tables"
        ) from error
    if os.environ.get(CHECK_INVARIANTS_ENV):
        check_conservation(results)
    return results


#: When this environment variable is set (the test suite sets it), every run checks packet
#: conservation before returning; the variable reaches sweep workers in other processes too.
CHECK_INVARIANTS_ENV = "CCSIM_CHECK_INVARIANTS"


def check_conservation(results: Results) -> None:
    """Raise EngineError unless every data packet is accounted for, per flow and per link.

    Per flow: sent = delivered + dropped + still in the network when the run ended.
    Per link: offered = left the far end + dropped by the queue + still inside.
    """
    flows, links = results.flows, results.links
    flow_gap = flows["packets_sent"].astype("int64") - (
        flows["packets_delivered"].astype("int64")
        + flows["drops"].astype("int64")
        + flows["in_flight_end"].astype("int64")
    )
    link_gap = links["arrivals"].astype("int64") - (
        links["packets"].astype("int64")
        + links["queue_drops"].astype("int64")
        + links["in_link_end"].astype("int64")
    )
    bad = [f"flow {f}" for f in flows["flow"][flow_gap != 0]]
    bad += [f"link {link}" for link in links["link"][link_gap != 0]]
    if bad:
        name = results.summary.get("name", "?")
        raise EngineError(f"{name}: packets not conserved at {', '.join(bad[:5])}")


def check_with_engine(scenario: Scenario) -> None:
    """Let the engine check the scenario (routes, for instance) without running it."""
    build(scenario)


def build(scenario: Scenario) -> Any:
    """The engine's simulation of ``scenario``, built but not run (``ccsim._core.Simulation``),
    with the scenario's Python algorithms (if any) handed to it."""
    core = engine()
    spec = json.dumps(scenario.engine_spec())
    python_cc = pycc.makers(scenario)
    try:
        return core.Simulation(spec, python_cc) if python_cc else core.Simulation(spec)
    except ValueError as error:
        # The engine rejects what the schema cannot see (e.g. no route between two nodes), naming
        # the user's flow group (engine_spec carries the groups).
        raise ScenarioError(str(error)) from None
    except (KeyboardInterrupt, SystemExit) as error:
        failed = _algorithms_error(error, scenario)
        if failed is None:
            raise
        raise failed from error
    except BaseException as error:
        if _from_a_hook(error):
            raise  # a Python algorithm's constructor raised: the user's exception is its cause
        raise EngineError(
            f"{scenario.name}: the engine failed while building the simulation: {error}"
        ) from error


def _advance(simulation: Any, scenario: Scenario, bar: _ProgressBar) -> None:
    duration = int(simulation.duration_ns)
    step = max(1, -(-duration // CHUNKS))
    until = 0
    while until < duration:
        until = min(until + step, duration)
        done = _engine_call(scenario, "running", simulation.advance, until)
        bar.update(simulation.now_ns / 1e9, duration / 1e9)
        if done:
            break


def _engine_call(scenario: Scenario, doing: str, method: Any, *args: Any) -> Any:
    """Call the engine, turning any failure into an EngineError that names the scenario."""
    try:
        return method(*args)
    except (KeyboardInterrupt, SystemExit) as error:
        failed = _algorithms_error(error, scenario)
        if failed is None:
            raise
        raise failed from error
    except BaseException as error:
        if _from_a_hook(error):
            raise  # a Python algorithm's hook raised: the user's exception is its cause
        core = engine()
        if isinstance(error, getattr(core, "LimitExceededError", ())):
            # A [limits] key the run went past while running (its message names the key): the
            # scenario asks for more than it allows, as when the bound is checked beforehand.
            raise ScenarioError(str(error)) from error
        if isinstance(error, getattr(core, "OutOfMemoryError", ())):
            raise EngineError(str(error)) from error  # it names the run already
        # pyo3 reports a Rust panic as PanicException, which derives from BaseException.
        raise EngineError(f"{scenario.name}: the engine failed while {doing}: {error}") from error


def _algorithms_error(error: BaseException, scenario: Scenario) -> Exception | None:
    """For a SystemExit or KeyboardInterrupt out of the engine: the algorithm's error
    (:class:`~ccsim.CongestionControlError`) when one of its hooks raised it and it is not a
    Ctrl-C; else None (``error`` goes on as it is).

    A KeyboardInterrupt is a Ctrl-C only where Python can raise one for SIGINT: in the main
    thread of a process that does not ignore SIGINT. A sweep's workers ignore it (their parent
    handles Ctrl-C) and a Dask worker runs tasks in other threads, so there a KeyboardInterrupt
    came from the hook, and must fail that run, not end the sweep.
    """
    if isinstance(error, KeyboardInterrupt) and ctrl_c_reaches_this_thread():
        return None
    return pycc.hook_error(error, scenario)


def ctrl_c_reaches_this_thread() -> bool:
    """Whether a Ctrl-C (SIGINT) can raise KeyboardInterrupt in the running thread."""
    if threading.current_thread() is not threading.main_thread():
        return False
    return signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, None)


def _from_a_hook(error: BaseException) -> bool:
    """Whether ``error`` is the engine's report of an exception raised by a hook of a
    congestion-control algorithm written in Python (``CongestionControlError``)."""
    try:
        from ccsim._core import CongestionControlError  # the engine, which may not be built
    except ImportError:
        return False
    return isinstance(error, CongestionControlError)


class _ProgressBar:
    """A rich progress bar of simulated seconds that appears only for runs longer than a moment."""

    def __init__(self, *, enabled: bool, description: str) -> None:
        self._enabled = enabled
        self._description = description
        self._started = time.perf_counter()
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> _ProgressBar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def update(self, now_s: float, total_s: float) -> None:
        if not self._enabled:
            return
        if self._progress is None:
            if time.perf_counter() - self._started < PROGRESS_AFTER_S:
                return
            self._start(total_s)
        self._progress.update(self._task, completed=now_s)

    def _start(self, total_s: float) -> None:
        # rich's console and progress take about 50 ms to import: only when a bar is shown.
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.completed:.1f} / {task.total:.1f} s simulated"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(self._description, total=total_s)
