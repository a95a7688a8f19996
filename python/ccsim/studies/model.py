"""What a study is and what running it gives: :class:`Study`, :class:`Settings`,
:class:`FigureSpec`, :class:`Context` (what a study's analysis reads) and :class:`StudyReport`.

A :class:`Study` is data plus three functions:

* ``sweeps(settings)`` returns the sweep definitions (dicts shaped like a sweep file, see
  docs/experiments.md) that produce its runs. Each runs through :func:`ccsim.sweep` into its own
  result store under the study's directory, so a study is parallel, resumable and cached exactly
  as a sweep is: running it again runs only what is missing.
* ``analyse(context)`` turns the finished runs into the comparison table
  (:func:`ccsim.studies.tables.summarise`): one row per quantity the paper reports, with our
  mean over seeds, its spread, its confidence interval, the number of runs and the published
  value.
* each :class:`~ccsim.studies.checks.Claim` reads that table and returns checks; the verdict is
  graded from the checks by one rule (:func:`ccsim.studies.checks.grade`), never written by hand.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pandas as pd

from ccsim import display
from ccsim.studies.checks import Claim, ClaimResult

__all__ = ["Context", "FigureSpec", "Settings", "Study", "StudyReport"]


class _Named(Protocol):
    """A study configuration: its sweep's name."""

    @property
    def name(self) -> str: ...


ConfigT = TypeVar("ConfigT", bound=_Named)
MeasuresT = TypeVar("MeasuresT")


@dataclass(frozen=True)
class Settings:
    """How a study is run: full or ``quick``, the TCP stack profile, the seeds."""

    quick: bool = False
    profile: str = "ns2"
    #: None: the study's own number of replicates (fewer with ``quick``).
    replicates: int | None = None

    #: The first seed: seeds are ``first_seed .. first_seed + n - 1`` (so one seed at a time can
    #: be run, e.g. to measure how a quick result varies from seed to seed).
    first_seed: int = 1

    def seeds(self, full: int, quick: int) -> list[int]:
        """Seeds ``first_seed``.. (n of them), n being ``replicates`` when given, else the study's
        full or quick count."""
        n = self.replicates if self.replicates is not None else (quick if self.quick else full)
        return list(range(self.first_seed, self.first_seed + max(1, n)))

    def pick(self, full: Any, quick: Any) -> Any:
        """``quick`` in quick mode, ``full`` otherwise (points, durations, ...)."""
        return quick if self.quick else full


@dataclass(frozen=True)
class FigureSpec:
    """How the comparison table is drawn: ``x`` (a key column) gives a line per ``hue`` value
    against it; without ``x``, bars of ours next to published per row. One panel per metric."""

    title: str
    x: str | None = None
    hue: str | None = None
    xlabel: str | None = None


@dataclass(frozen=True)
class Study:
    """A named experiment of a seed paper (its report: docs/studies/)."""

    id: str
    slug: str
    title: str
    source: str
    setup: str
    assumptions: tuple[str, ...]
    sweeps: Callable[[Settings], list[dict[str, Any]]]
    analyse: Callable[[Context], pd.DataFrame]
    claims: tuple[Claim, ...]
    figure: FigureSpec
    #: Algorithm names the study is about (listed by ``ccsim study --list``).
    algorithms: tuple[str, ...] = ()
    #: The stack profile the study runs under unless told otherwise: the paper's (ns2 for the
    #: ns-2 papers; linux for seed 004, which ran Linux's modules).
    profile: str = "ns2"
    #: The warm-up left out of the measurements, in words ("20 s (quick: 10 s): ..."), or
    #: "none: ..." when everything from the start of each run counts. Printed with the setup;
    #: None prints "not stated".
    warmup: str | None = None
    #: The most replicates (seeds per point) a full run goes up to while a check is
    #: inconclusive; None: the study's own count (no replicates are added).
    max_replicates: int | None = None


@dataclass
class Context:
    """What ``analyse`` sees: the settings and the finished sweeps by name (None: not run)."""

    settings: Settings
    results: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def runs(self, sweep: str) -> pd.DataFrame:
        """The catalogue's runs table of one sweep (finished points only); empty if not run."""
        result = self.results.get(sweep)
        if result is None:
            return pd.DataFrame()
        runs = result.runs
        return runs[runs["status"] == "done"].reset_index(drop=True)

    def table(self, sweep: str, run_id: str, name: str) -> pd.DataFrame:
        """One run's table (``flows``, ``drops``, ``series``, ...) from the sweep's store."""
        path = self.results[sweep].store.run_dir(run_id) / f"{name}.parquet"
        return pd.read_parquet(path)

    def points(self, sweep: str) -> Iterator[tuple[pd.Series, Callable[[str], pd.DataFrame]]]:
        """Each finished point of a sweep, with a loader of its run's tables."""
        for _, point in self.runs(sweep).iterrows():
            run_id = point["run_id"]
            yield point, functools.partial(self.table, sweep, run_id)

    def each_run(
        self,
        configs: Iterable[ConfigT],
        measure: Callable[[Callable[[str], pd.DataFrame], ConfigT], MeasuresT],
    ) -> list[tuple[ConfigT, int, MeasuresT]]:
        """Every finished run of the configurations whose sweep ran: (configuration, seed,
        ``measure(load, configuration)``), ``load`` reading the run's tables."""
        found = []
        for config in configs:
            if self.results.get(config.name) is None:
                continue
            for point, load in self.points(config.name):
                found.append((config, int(point["seed"]), measure(load, config)))
        return found

    def study_directory(self) -> Path | None:
        """The study's directory (its sweeps' stores sit two levels below); None before any of
        its sweeps ran."""
        result = next((r for r in self.results.values() if r is not None), None)
        return None if result is None else Path(result.store.root).parent.parent


@dataclass
class StudyReport:
    """What :func:`ccsim.studies.running.run_study` returns: the comparison table, the verdicts
    and the files."""

    study: Study
    settings: Settings
    table: pd.DataFrame
    verdicts: list[ClaimResult]
    directory: Path
    files: list[Path]
    notes: list[str]
    runs: int = 0
    #: Of ``runs``, those found complete in the study directory and not run again.
    reused: int = 0
    #: Wall time of the whole study (sweeps, analysis, files), seconds.
    elapsed_s: float = 0.0
    #: Worker processes the sweeps ran on (None: one per core).
    workers: int | None = None
    #: Seeds per point in the end (more than the study's own when checks were inconclusive).
    replicates: int = 0

    def verdict(self, index: int) -> str:
        """The verdict of the claim at ``index`` (in the study's order)."""
        return self.verdicts[index].verdict

    def _repr_html_(self) -> str:
        """The setup, the comparison table (mean, 95% CI, n) and the verdicts, for Jupyter (drawn
        by :mod:`ccsim.report`, registered in :mod:`ccsim.display`)."""
        return display.html(self)
