"""Where the runs of a sweep execute: this process, a local process pool, or a Dask cluster.

Every executor calls the same function, :func:`execute`, once per run. It runs the scenario and
writes the run's directory straight into the result store (so large tables never travel), and
returns a :class:`RunOutcome` of a few numbers. A run that fails returns its error instead: it
never stops the others.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "DaskExecutor",
    "Executor",
    "LocalExecutor",
    "RunOutcome",
    "RunTask",
    "SerialExecutor",
    "default_workers",
    "execute",
    "make_executor",
]


@dataclass(frozen=True)
class RunTask:
    """One run to execute: the scenario (as data shaped like its TOML file) and where to put it.

    ``python_cc`` maps the algorithm names the scenario uses that were registered from Python
    (:func:`ccsim.register_cc`) to their classes' import paths: a worker in another process
    imports the classes by these paths.
    """

    run_id: str
    scenario: dict[str, Any]
    root: str
    python_cc: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RunOutcome:
    """What comes back from a run: its summary numbers, or why it failed."""

    run_id: str
    ok: bool
    metrics: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    kind: str | None = None
    detail: str | None = None  # the traceback of an unexpected failure


def execute(task: RunTask) -> RunOutcome:
    """Run one scenario and store its results; failures are returned, not raised.

    The run id is checked against the scenario it names, so a scenario that does not resolve the
    same way on the worker (a different ccsim version there) is an error, not a mislabelled run.
    Algorithms written in Python are imported here by their paths; one that cannot be is an error
    naming the flow's key and the path.
    """
    from ccsim.errors import EngineError, ScenarioError
    from ccsim.pycc import register_paths
    from ccsim.runner import run
    from ccsim.scenario import Scenario
    from ccsim.store import Store, run_metrics
    from ccsim.sweeps import run_id

    try:
        register_paths(task.python_cc)
        scenario = Scenario.model_validate(task.scenario)
        if run_id(scenario) != task.run_id:
            raise ScenarioError(
                f"the scenario resolves to run {run_id(scenario)} on this worker, not "
                f"{task.run_id}; is the same ccsim version installed everywhere?"
            )
        results = run(scenario)
        metrics = run_metrics(results)
        Store(task.root).save_run(task.run_id, results, metrics)
        return RunOutcome(task.run_id, True, metrics)
    except (ScenarioError, EngineError) as error:
        return RunOutcome(task.run_id, False, error=str(error), kind=type(error).__name__)
    except Exception as error:  # a bug or an I/O failure: keep the traceback for the report
        return RunOutcome(
            task.run_id,
            False,
            error=f"{type(error).__name__}: {error}",
            kind=type(error).__name__,
            detail=traceback.format_exc(),
        )


#: Called with each task and its outcome, in completion order.
OnDone = Callable[[RunTask, RunOutcome], None]


class Executor(Protocol):
    """Runs tasks and reports each outcome as it arrives (in completion order)."""

    def run(self, tasks: Sequence[RunTask], on_done: OnDone) -> None: ...


def default_workers() -> int:
    """The number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class SerialExecutor:
    """Runs every task in this process, one after another (``workers = 1``)."""

    def run(self, tasks: Sequence[RunTask], on_done: OnDone) -> None:
        for task in tasks:
            on_done(task, execute(task))


class LocalExecutor:
    """A pool of worker processes on this machine, one run per process at a time."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or default_workers()

    def run(self, tasks: Sequence[RunTask], on_done: OnDone) -> None:
        if not tasks:
            return
        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(tasks)),
            mp_context=_context(),
            initializer=_init_worker,
        )
        futures = {pool.submit(execute, task): task for task in tasks}
        try:
            for future in as_completed(futures):
                task = futures[future]
                on_done(task, _outcome(future, task))
        except BaseException:
            # Interrupted: stop the runs in progress at once. Their half-written directories are
            # in the store's staging area and are cleared when the sweep starts again.
            _terminate(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _context() -> multiprocessing.context.BaseContext:
    # "spawn": each worker is a fresh interpreter and a direct child of this process, so that it
    # can be told to die with it (see _die_with_parent). "fork" would copy this process's threads
    # (the progress bar's) unsafely; the fork server outlives a parent killed by SIGKILL.
    return multiprocessing.get_context("spawn")


def _init_worker() -> None:
    # Ctrl-C reaches the whole process group; only the parent should act on it (it stops the
    # workers itself), so that one interrupt does not print a traceback per worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()


def _die_with_parent() -> None:
    """On Linux, ask the kernel to kill this worker when its parent dies (even by SIGKILL), so
    that no run goes on writing after the sweep that started it is gone."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    # The parent may have died before the request: then this worker was already adopted.
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:
        os._exit(1)


def _terminate(pool: ProcessPoolExecutor) -> None:
    # ProcessPoolExecutor has no public way to stop running tasks before Python 3.14
    # (terminate_workers); its process table is the only handle on the workers.
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.terminate()


def _outcome(future: Future[RunOutcome], task: RunTask) -> RunOutcome:
    try:
        return future.result()
    except Exception as error:  # the worker process died (BrokenProcessPool) or could not start
        return RunOutcome(
            task.run_id, False, error=f"{type(error).__name__}: {error}", kind=type(error).__name__
        )


class DaskExecutor:
    """Runs tasks on a Dask distributed cluster.

    ``scheduler`` is a scheduler address (``"tcp://host:8786"``) or a ``distributed.Client``. The
    workers must be able to write to the store's directory (a shared file system) and have the
    same ccsim installed. Only the small :class:`RunOutcome` travels back to this process.
    """

    def __init__(self, scheduler: Any) -> None:
        self.scheduler = scheduler

    def run(self, tasks: Sequence[RunTask], on_done: OnDone) -> None:
        if not tasks:
            return
        try:
            from distributed import Client
            from distributed import as_completed as dask_completed
        except ImportError as error:
            raise ImportError(
                "running on a Dask cluster needs the distributed package: "
                "pip install 'dask[distributed]'"
            ) from error
        own_client = not isinstance(self.scheduler, Client)
        # distributed's own functions carry no annotations.
        client = Client(self.scheduler) if own_client else self.scheduler  # type: ignore[no-untyped-call]
        # One key per run: resubmitting a run still known to the cluster reuses its result.
        keys = [f"ccsim-run-{task.run_id}" for task in tasks]
        futures = client.map(execute, tasks, key=keys, pure=False)
        by_key = {future.key: task for future, task in zip(futures, tasks, strict=True)}
        try:
            for future in dask_completed(futures):  # type: ignore[no-untyped-call]
                task = by_key[future.key]
                on_done(task, _dask_outcome(future, task))
        except BaseException:
            client.cancel(futures)
            raise
        finally:
            if own_client:
                client.close()


def _dask_outcome(future: Any, task: RunTask) -> RunOutcome:
    try:
        outcome: RunOutcome = future.result()
        return outcome
    except Exception as error:  # the task itself failed on the cluster (a lost worker...)
        return RunOutcome(
            task.run_id, False, error=f"{type(error).__name__}: {error}", kind=type(error).__name__
        )


def make_executor(workers: int | None = None, scheduler: Any = None) -> Executor:
    """A Dask executor when ``scheduler`` is given, else a local pool (or this process when
    ``workers == 1``)."""
    if scheduler is not None:
        return DaskExecutor(scheduler)
    if workers is not None and workers < 1:
        raise ValueError(f"workers = {workers}; expected at least 1")
    if workers == 1:
        return SerialExecutor()
    return LocalExecutor(workers)
