"""Running a sweep: the store, the executor and the progress bar together.

:func:`sweep` (``ccsim.sweep``) runs a sweep file, a :class:`~ccsim.sweeps.Sweep` or a dict shaped
like the file into a result store; :func:`run_sweep` writes the manifest, reconciles the catalogue with what is already on disk,
hands the runs that are not there yet to an executor, records each outcome as it arrives, and
rebuilds the catalogue at the end, also when interrupted. Start it again after any interruption
and it runs only what is missing.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import pandas as pd
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ccsim.executors import RunOutcome, RunTask, make_executor
from ccsim.pycc import registered_in
from ccsim.scenario import Scenario
from ccsim.store import CatalogError, Store
from ccsim.sweeps import Point, Sweep, record_command, unique_runs

__all__ = [
    "Failure",
    "SweepResult",
    "run_sweep",
    "run_sweeps",
    "summary_table",
    "sweep",
]

#: While a sweep runs, the catalogue is rebuilt at most this often (seconds), so that queries
#: see finished runs before the end.
CATALOG_EVERY_S = 10.0


@dataclass(frozen=True)
class Failure:
    """A failed run: the points it serves (their parameters) and the error."""

    run_id: str
    points: tuple[str, ...]
    error: str


@dataclass
class SweepResult:
    """The outcome of :func:`ccsim.sweep`: counts, failures, and the store to query."""

    store: Store
    points: list[Point]
    #: Distinct runs that were already complete when the sweep started (not run again).
    skipped: int = 0
    #: Distinct runs completed by this call.
    completed: int = 0
    #: Distinct runs whose files no longer matched what was written when the sweep started
    #: (run again; their directories moved to ``damaged/``).
    damaged: int = 0
    failures: list[Failure] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every run is complete."""
        return not self.failures

    @property
    def runs(self) -> pd.DataFrame:
        """The catalogue's ``runs`` table: one row per point."""
        return self.store.query("SELECT * FROM runs ORDER BY point")

    def query(self, sql: str) -> pd.DataFrame:
        """SQL over the catalogue (tables ``runs``, ``flows``, ``links``, ``series``, ...)."""
        return self.store.query(sql)

    @property
    def distinct_runs(self) -> int:
        return len({p.run_id for p in self.points})


def sweep(
    spec: Sweep | str | Path | Mapping[str, Any],
    out: str | Path | None = None,
    *,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = False,
    command: str | None = None,
) -> SweepResult:
    """Run a sweep and return its :class:`~ccsim.sweep_run.SweepResult`.

    ``spec`` is a :class:`Sweep`, a sweep file path or a dict shaped like the file. Results go
    to ``out`` (default ``results/<name>``), a result store (see :mod:`ccsim.store`); runs
    already there are not run again. Runs go to a local process pool of ``workers`` processes
    (default: one per core; 1 runs them in this process), or, with ``scheduler`` (a Dask
    scheduler address or a ``distributed.Client``), to a Dask cluster whose workers can write
    to ``out``. A failed run is recorded with its error and does not stop the others.

    ``command`` (a shell command line) is recorded in the directory's ``command.json`` as what
    made it; by default, for a sweep file, ``ccsim sweep FILE --out OUT`` (the equivalent
    command), and nothing for a sweep given as data.
    """
    if command is None and isinstance(spec, str | Path):
        words = ["ccsim", "sweep", str(spec)] + (["--out", str(out)] if out is not None else [])
        command = shlex.join(words)
    if isinstance(spec, str | Path):
        spec = Sweep.load(spec)
    elif isinstance(spec, Mapping):
        spec = Sweep.from_dict(spec)
    target = Path(out) if out is not None else Path("results") / spec.name
    result = run_sweep(spec, target, workers=workers, scheduler=scheduler, progress=progress)
    if command is not None:
        record_command(target, command)
    return result


def run_sweep(
    sweep: Sweep,
    target: Path,
    *,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = False,
) -> SweepResult:
    """Run ``sweep`` into the store at ``target``; see :func:`ccsim.sweep`."""
    return run_sweeps([(sweep, target)], workers=workers, scheduler=scheduler, progress=progress)[0]


def run_sweeps(
    jobs: Sequence[tuple[Sweep, Path]],
    *,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = False,
) -> list[SweepResult]:
    """Run several sweeps, each into its own store, through one executor.

    Every missing run of every sweep is queued at once, the most expensive first (by simulated
    time and flow count, a rough guess), so that no worker waits for the last run of one sweep
    before the next sweep starts: a study of four sweeps of 13 runs on two workers would
    otherwise leave one worker idle at the end of each. Results are the same as running the
    sweeps one after another; only the order in which runs finish changes.
    """
    started = time.perf_counter()
    roots = [Path(target).resolve() for _, target in jobs]
    if len(set(roots)) != len(roots):
        raise ValueError("two sweeps write to the same directory; give each its own")
    with ExitStack() as stack:
        results: list[SweepResult] = []
        trackers: dict[str, _Tracker] = {}
        tasks: list[tuple[float, RunTask]] = []
        bars = stack.enter_context(_ProgressBars()) if progress else None
        for sweep, target in jobs:
            points = sweep.points()
            store = Store.create(target)
            stack.enter_context(store.lock())
            changed = store.write_manifest(
                sweep.to_data(), sweep.columns(), [_record(p) for p in points]
            )
            store.clean_staging()
            check = store.check_runs()  # every finished run's files, sizes and checksums
            already = set(check.done)
            for run_id, problem in sorted(check.damaged.items()):
                print(
                    f"{store.root}: run {run_id} is damaged ({problem}); running it again",
                    file=sys.stderr,
                )
            todo = [p for p in unique_runs(points) if p.run_id not in already]
            # The catalogue agrees with the files before anything runs, and is rebuilt at the end
            # (also when interrupted: callbacks run last in, first out). A store with nothing to
            # run whose manifest and catalogue already agree with its files is left as it is.
            if changed or check.damaged or todo or not store.catalog_is_current():
                store.rebuild_catalog()
                stack.callback(store.rebuild_catalog)
            result = SweepResult(
                store,
                points,
                skipped=len({p.run_id for p in points} & already),
                damaged=len(check.damaged),
            )
            results.append(result)
            trackers[str(store.root)] = _Tracker(result, bars)
            for p in todo:
                task = RunTask(
                    p.run_id, p.scenario.data(), str(store.root), registered_in(p.scenario)
                )
                tasks.append((_expected_cost(p.scenario), task))
        # Stable: equal guesses keep the order the runs were listed in.
        ordered = [task for _, task in sorted(tasks, key=lambda pair: -pair[0])]

        def record(task: RunTask, outcome: RunOutcome) -> None:
            trackers[task.root].record(outcome)

        make_executor(workers, scheduler).run(ordered, record)
        # Every run has ended and no worker writes any more: what a worker killed while writing
        # (its pool broken by another run's crash) left half-written goes now, not at the next
        # start. (An interrupted sweep leaves that to the next start: Dask cannot stop a run.)
        for result in results:
            result.store.clean_staging()
    # Catalogues rebuilt and stores unlocked: the sweeps are complete.
    for result in results:
        result.wall_s = time.perf_counter() - started
    return results


def _expected_cost(scenario: Scenario) -> float:
    """A rough guess of a run's cost, for ordering only: simulated time times flows (long-lived
    flows and generators' sources alike)."""
    flows = sum(group.count for group in scenario.flows)
    flows += sum(int(getattr(g, "slots", 1)) for g in scenario.generators)
    return float(scenario.duration) * max(flows, 1)


def _record(point: Point) -> dict[str, Any]:
    return {
        "point": point.index,
        "run_id": point.run_id,
        "reference_run": point.reference,
        "params": dict(point.params),
    }


class _Tracker:
    """Records one sweep's outcomes in its store and result, and drives its progress bar."""

    def __init__(self, result: SweepResult, bars: _ProgressBars | None) -> None:
        self.result = result
        self.described: dict[str, list[str]] = {}
        for point in result.points:
            self.described.setdefault(point.run_id, []).append(point.describe())
        self.bars = bars
        self.bar = (
            bars.add(result.store.root.name, result.distinct_runs, result.skipped) if bars else None
        )
        self.last_catalog = time.monotonic()

    def record(self, outcome: RunOutcome) -> None:
        store = self.result.store
        if outcome.ok and not store.holds(outcome.run_id):
            # Done means in this store: a worker that wrote elsewhere (no shared file system),
            # or a result the cluster had for another store, is not this sweep's run.
            outcome = RunOutcome(
                outcome.run_id,
                False,
                error=(
                    f"the run was reported written, but {store.run_dir(outcome.run_id)} is not "
                    "in this store; on a cluster, the workers must write to this directory (a "
                    "shared file system)"
                ),
                kind="NotInStore",
            )
        if outcome.ok:
            self.result.completed += 1
        else:
            error = outcome.error or "unknown error"
            store.save_failure(
                outcome.run_id,
                {"error": error, "kind": outcome.kind, "detail": outcome.detail,
                 "points": self.described.get(outcome.run_id, [])},
            )  # fmt: skip
            self.result.failures.append(
                Failure(outcome.run_id, tuple(self.described.get(outcome.run_id, [])), error)
            )
        if self.bars is not None and self.bar is not None:
            self.bars.update(self.bar, self.result)
        if time.monotonic() - self.last_catalog > CATALOG_EVERY_S:
            # A catalogue that cannot be rebuilt now (a disk full for a moment) must not stop
            # the runs in progress: the old one is kept, and the final rebuild reports it.
            with contextlib.suppress(CatalogError):
                store.rebuild_catalog()
            self.last_catalog = time.monotonic()


class _ProgressBars:
    """One line per sweep: runs done / total, failures, elapsed time and ETA, on stderr."""

    def __init__(self) -> None:
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("runs"),
            TextColumn("[red]{task.fields[failed]}[/red]"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )

    def __enter__(self) -> _ProgressBars:
        self.progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.progress.stop()

    def add(self, name: str, total: int, skipped: int) -> Any:
        return self.progress.add_task(name, total=total, completed=skipped, failed="")

    def update(self, bar: Any, result: SweepResult) -> None:
        failed = len(result.failures)
        shown = f"{failed} failed" if failed else ""
        self.progress.update(
            bar, completed=result.skipped + result.completed + failed, failed=shown
        )


# ---- the tables printed at the end -------------------------------------------------------------


def summary_table(result: SweepResult, max_rows: int = 40) -> Any:
    """A rich Table: for each parameter combination (seeds pooled), the mean over replicates of
    total goodput, Jain index, bottleneck utilization, loss rate and timeouts."""
    runs = result.runs
    columns = [c for c in result.store.manifest()["columns"] if c != "seed"]
    table = Table(title=f"Sweep {result.store.root.name}: mean over replicates")
    for name in [*columns, "runs", "goodput Mb/s", "Jain", "util.", "loss", "timeouts"]:
        table.add_column(name, justify="left" if name in columns else "right")
    grouped = list(runs.groupby(columns, sort=False, dropna=False) if columns else [((), runs)])
    if len(grouped) > max_rows:
        table.caption = (
            f'{max_rows} of {len(grouped)} rows; all: ccsim query DIR "SELECT * FROM runs"'
        )
    for key, group in grouped[:max_rows]:
        values = key if isinstance(key, tuple) else (key,)
        done = group[group["status"] == "done"]
        table.add_row(
            *(str(v) for v in values),
            f"{len(done)}/{len(group)}",
            _mean(done["goodput_bps"], 1e-6, "{:.2f}"),
            _mean(done["jain"], 1, "{:.3f}"),
            _mean(done["utilization"], 1, "{:.1%}"),
            _mean(done["loss_rate"], 1, "{:.2%}"),
            _mean(done["timeouts"], 1, "{:.1f}"),
        )
    return table


def _mean(values: pd.Series, scale: float, fmt: str) -> str:
    numbers = pd.to_numeric(values, errors="coerce").dropna()
    return "-" if numbers.empty else fmt.format(numbers.mean() * scale)
