"""Where the runs of a sweep execute: this process, a local process pool, or a Dask cluster.

Every executor calls the same function, :func:`execute`, once per run. It runs the scenario and
writes the run's directory straight into the result store (so large tables never travel), and
returns a :class:`RunOutcome` of a few numbers. A run that fails returns its error instead: it
never stops the others.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Protocol

from ccsim.errors import EngineError, ScenarioError
from ccsim.pycc import register_paths
from ccsim.runner import ctrl_c_reaches_this_thread, run
from ccsim.scenario import Scenario
from ccsim.store import Store, run_metrics
from ccsim.sweeps import run_id

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
        return _unexpected(task, error)
    except (KeyboardInterrupt, SystemExit) as error:
        # A hook's are the algorithm's errors already (ccsim.runner); others, such as a module
        # of the algorithm exiting as it is imported, fail the run too, in a worker: there it
        # cannot be a Ctrl-C, and it must not end the sweep. In the sweep's own thread it may be.
        if ctrl_c_reaches_this_thread():
            raise
        return _unexpected(task, error)


def _unexpected(task: RunTask, error: BaseException) -> RunOutcome:
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
    """A pool of worker processes on this machine, one run per process at a time.

    A run that kills its worker process (out of memory, a crash in native code, ``os._exit`` in
    a Python algorithm) breaks the whole pool, and the runs that were in progress die with it;
    which of them killed it is not known. So the runs that had not started go on in a fresh
    pool, and each of the runs that were in progress runs again alone, in a pool of one worker:
    one that crashes its worker there too (twice in all) is recorded as crashed, with how its
    worker ended.
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or default_workers()

    def run(self, tasks: Sequence[RunTask], on_done: OnDone) -> None:
        waiting = list(range(len(tasks)))  # not started yet
        suspects: list[int] = []  # were in progress when a pool broke: to run alone
        crashes: dict[int, list[str]] = {}  # how the worker of each crash ended
        breaks_unexplained = 0
        while waiting or suspects:
            alone = bool(suspects)
            batch = suspects if alone else waiting
            width = 1 if alone else min(self.workers, len(batch))
            broken = _run_pool([(i, tasks[i]) for i in batch], width, on_done)
            if alone:
                suspects = broken.waiting if broken else []
            else:
                waiting = broken.waiting if broken else []
            if broken is None:
                continue
            for index in broken.running:
                causes = crashes.setdefault(index, [])
                causes.append(broken.how_ended.get(index, "its worker process ended"))
                if len(causes) >= 2:
                    on_done(tasks[index], _crashed(tasks[index], causes))
                else:
                    suspects.append(index)
            if broken.running or broken.finished:
                breaks_unexplained = 0
                continue
            # The pool broke with no run in progress (a worker that could not even start): once
            # may be chance; twice in a row, nothing would run, so report it on every run left.
            breaks_unexplained += 1
            if breaks_unexplained >= 2:
                for index in [*suspects, *waiting]:
                    on_done(tasks[index], _failed(tasks[index], broken.error))
                return


@dataclass
class _Broken:
    """A pool that broke: its runs in progress then, those not started, and how workers ended."""

    running: list[int]
    waiting: list[int]
    finished: int
    how_ended: dict[int, str]
    error: BaseException


def _run_pool(batch: Sequence[tuple[int, RunTask]], width: int, on_done: OnDone) -> _Broken | None:
    """Run ``batch`` (tasks with their indices) on a fresh pool of ``width`` processes, reporting
    each outcome; None once all are done, or what is left when a worker died."""
    context = _context()
    # Each worker says which task it starts, and it is its process id: when the pool breaks, the
    # tasks started and not finished are those that were in progress.
    reader, writer = context.Pipe(duplex=False)
    started: dict[int, int] = {}  # task index -> process id of its worker
    finished: set[int] = set()
    broken: BaseException | None = None
    oom_kills = _oom_kills()
    tasks = dict(batch)
    futures: dict[Future[RunOutcome], int] = {}
    processes: dict[int, multiprocessing.process.BaseProcess] = {}
    pool: ProcessPoolExecutor | None = None
    try:
        # Workers start with SIGINT blocked, so that a Ctrl-C while they import (it reaches the
        # whole process group) does not print a traceback from each; they ignore it once
        # started. A Ctrl-C meanwhile reaches this process once SIGINT is unblocked.
        with _sigint_blocked():
            pool = ProcessPoolExecutor(
                max_workers=width, mp_context=context, initializer=_init_worker, initargs=(writer,)
            )
            try:
                for index, task in batch:
                    futures[pool.submit(_execute_in_worker, index, task)] = index
            except BrokenProcessPool as error:  # a worker died before all were submitted
                broken = error
            # The workers are started by the first submissions, in this thread.
            processes = dict(getattr(pool, "_processes", None) or {})
        for future in as_completed(futures):
            _read_started(reader, started)
            index = futures[future]
            try:
                outcome = future.result()
            except BrokenProcessPool as error:
                broken = error
                continue
            except Exception as error:  # the task could not be sent to a worker
                outcome = _failed(tasks[index], error)
            finished.add(index)
            on_done(tasks[index], outcome)
    except BaseException:
        # Interrupted: stop the runs in progress at once. Their half-written directories are
        # in the store's staging area and are cleared when the sweep starts again.
        if pool is not None:
            _terminate(pool)
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        _read_started(reader, started)
        reader.close()
        writer.close()
    if broken is None:
        return None
    running = [index for index in started if index not in finished]
    exits = {pid: process.exitcode for pid, process in processes.items()}
    out_of_memory = _oom_kills() > oom_kills
    return _Broken(
        running=running,
        waiting=[index for index, _ in batch if index not in finished and index not in started],
        finished=len(finished),
        how_ended={i: _how_it_ended(exits.get(started[i]), out_of_memory) for i in running},
        error=broken,
    )


def _crashed(task: RunTask, causes: Sequence[str]) -> RunOutcome:
    return RunOutcome(
        task.run_id,
        False,
        error=f"crashed its worker process twice, the second time running alone: {causes[-1]}",
        kind="WorkerCrashed",
        detail="\n".join(f"crash {n}: {cause}" for n, cause in enumerate(causes, 1)),
    )


def _failed(task: RunTask, error: BaseException) -> RunOutcome:
    return RunOutcome(
        task.run_id, False, error=f"{type(error).__name__}: {error}", kind=type(error).__name__
    )


def _how_it_ended(exitcode: int | None, out_of_memory: bool) -> str:
    """How a worker process ended, from its exit code, in words."""
    if exitcode is None:
        return "the process ended, how is not known"
    if exitcode >= 0:
        return f"the process exited with status {exitcode}"
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = f"signal {-exitcode}"
    if -exitcode == signal.SIGKILL:
        if out_of_memory:
            return f"killed by {name}: out of memory (the kernel's out-of-memory killer acted)"
        return f"killed by {name} (as the kernel does when memory runs out)"
    if -exitcode in (signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGABRT):
        return f"killed by {name} (a crash in native code)"
    return f"killed by {name}"


def _oom_kills() -> int:
    """How many processes the Linux out-of-memory killer has killed (0 where not known)."""
    try:
        with open("/proc/vmstat", encoding="ascii") as vmstat:
            for line in vmstat:
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Block SIGINT in this thread, and so in the processes it starts meanwhile."""
    if not hasattr(signal, "pthread_sigmask"):  # not POSIX
        yield
        return
    # Started once per process, multiprocessing's resource tracker unblocks SIGINT after
    # starting: start it first. (Imported here, where POSIX is known.)
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _read_started(reader: Connection, started: dict[int, int]) -> None:
    """Take the workers' "started" messages sent so far: task index and process id."""
    try:
        while reader.poll():
            index, pid = reader.recv_bytes().split()
            started[int(index)] = int(pid)
    except (EOFError, OSError, ValueError):
        return


def _context() -> multiprocessing.context.BaseContext:
    # "spawn": each worker is a fresh interpreter and a direct child of this process, so that it
    # can be told to die with it (see _die_with_parent). "fork" would copy this process's threads
    # (the progress bar's) unsafely; the fork server outlives a parent killed by SIGKILL.
    return multiprocessing.get_context("spawn")


#: In a worker process: where it says which task it starts.
_started: Connection | None = None


def _init_worker(started: Connection | None = None) -> None:
    # Ctrl-C reaches the whole process group; only the parent should act on it (it stops the
    # workers itself), so that one interrupt does not print a traceback per worker.
    global _started
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _started = started
    _die_with_parent()


def _execute_in_worker(index: int, task: RunTask) -> RunOutcome:
    if _started is not None:
        # One short write (atomic on a pipe), before anything that could kill the process.
        with suppress(OSError):
            _started.send_bytes(f"{index} {os.getpid()}".encode())
    return execute(task)


def _die_with_parent() -> None:
    """On Linux, ask the kernel to kill this worker when its parent dies (even by SIGKILL), so
    that no run goes on writing after the sweep that started it is gone."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # Linux only, like the call below

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
        try:  # Dask is optional, and needed only here
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
        # One key per run and store: a key the cluster still knows (another sweep's) is given
        # that task's result, so the store is part of the key; two sweeps of one file into two
        # stores at once would otherwise share runs, and one of them write nothing.
        keys = [task_key(task) for task in tasks]
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


def task_key(task: RunTask) -> str:
    """The Dask key of a run: its store (a hash of the store's real path) and run id."""
    store = hashlib.sha256(os.path.realpath(task.root).encode()).hexdigest()[:16]
    return f"ccsim-run-{store}-{task.run_id}"


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
