"""The machinery every named study shares: definition, running, comparison, verdicts, output.

A :class:`Study` is data plus three functions:

* ``sweeps(settings)`` returns the sweep definitions (dicts shaped like a sweep file, see
  docs/experiments.md) that produce its runs. Each runs through :func:`ccsim.sweep` into its own
  result store under the study's directory, so a study is parallel, resumable and cached exactly
  as a sweep is: running it again runs only what is missing.
* ``analyse(context)`` turns the finished runs into the comparison table: one row per quantity
  the paper reports, with our mean over seeds (``ours``), its spread (``sd``), the 95% confidence
  interval of the mean by Student's t (``ci_low``, ``ci_high``; NaN with a single run), the
  number of runs (``runs``) and the published value (``published``, NaN where the paper gives
  none).
* each :class:`Claim` reads that table and returns checks, each of which compares a measured
  quantity with what the claim requires with the quantity's uncertainty (over the replicates,
  paired by seed: :mod:`ccsim.studies.checks`); the verdict is graded from the checks by one
  rule (:func:`grade`), never written by hand.

:func:`run_study` does the rest: runs the sweeps, and in a full run adds replicates (up to the
study's :attr:`Study.max_replicates`) while a check is inconclusive; prints the setup
(assumptions and stack profile included), the table and the verdicts, and writes ``<ID>.csv``,
``<ID>-runs.csv`` (every run's value of every quantity), ``<ID>.png``, ``<ID>-verdicts.csv``
and ``study.json`` (the setup, the settings, the verdicts, the command that reproduces the study
and ccsim's version, which ``ccsim report`` reads).
"""

from __future__ import annotations

import copy
import functools
import json
import math
import os
import shlex
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.markup import escape
from rich.table import Table

from ccsim import display
from ccsim.metrics import ci_half_width
from ccsim.runner import version
from ccsim.scenario import Stack
from ccsim.scenario import engine as scenario_engine
from ccsim.studies.checks import (
    FAILED,
    HELD,
    INCONCLUSIVE,
    NO_DATA,
    NOT_REPRODUCED,
    NOT_RUN,
    NOT_RUN_QUICK,
    PARTLY,
    REPRODUCED,
    REVERSED,
    VERDICTS,
    Check,
    Claim,
    ClaimResult,
    band,
    compare,
    grade,
    within,
)
from ccsim.studies.evidence import (
    ANY,
    CI_LEVEL,
    CORRELATION,
    MIN_REPLICATES,
    NONNEGATIVE,
    UNIT,
    Bounds,
    Quantity,
    Replicates,
    interval,
    measure,
)
from ccsim.sweep_run import run_sweeps
from ccsim.sweeps import Sweep, record_command

__all__ = [
    "ANY",
    "CI_LEVEL",
    "CORRELATION",
    "FAILED",
    "HELD",
    "INCONCLUSIVE",
    "MIN_REPLICATES",
    "NONNEGATIVE",
    "NOT_REPRODUCED",
    "NOT_RUN",
    "NOT_RUN_QUICK",
    "NO_DATA",
    "PARTLY",
    "REPRODUCED",
    "REVERSED",
    "STUDY_METADATA",
    "UNIT",
    "VERDICTS",
    "Check",
    "Claim",
    "ClaimResult",
    "Context",
    "Quantity",
    "Settings",
    "Study",
    "StudyReport",
    "band",
    "compare",
    "grade",
    "measure",
    "run_study",
    "study_command",
    "summarise",
    "with_intervals",
    "within",
]

#: Columns every comparison table ends with (the key columns of a study come first). The
#: ``replicates`` column holds each row's per-run values (:class:`Replicates`), which the checks
#: read; it is not written to ``<ID>.csv`` (``<ID>-runs.csv`` has them, one line per run).
VALUE_COLUMNS = ["metric", "ours", "sd", "ci_low", "ci_high", "runs", "published", "replicates"]
#: What a study directory records of how it was made (read by ``ccsim report``).
STUDY_METADATA = "study.json"


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


# ---- running -----------------------------------------------------------------------------------


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


@dataclass
class StudyReport:
    """What :func:`run_study` returns: the comparison table, the verdicts and the files."""

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


def available_algorithms() -> set[str] | None:
    """The engine's algorithm names (None without an engine)."""
    registry = scenario_engine.algorithm_registry()  # through the module: tests patch it
    return None if registry is None else set(registry)


def _prune(sweep: dict[str, Any], have: set[str] | None) -> tuple[dict[str, Any] | None, list[str]]:
    """Drop the compared algorithms the engine lacks; the whole sweep if its flows need one.

    A study is written against the paper's algorithms; until the engine has all of them the
    configurations it can run still run, and the missing ones are reported as not run.
    """
    if have is None:
        return sweep, []
    sweep = copy.deepcopy(sweep)
    compare = sweep.get("compare")
    if not compare:
        needed = {f["cc"] for f in sweep["scenario"].get("flows", [])}
        needed |= {g["cc"] for g in sweep["scenario"].get("generators", [])}
        lacking = sorted(needed - have)
        return (None, lacking) if lacking else (sweep, [])
    # In a comparative sweep every flow runs a compared algorithm or the baseline (the base
    # scenario's flows are written with the baseline), so only those two matter.
    baseline = compare.get("baseline", "reno")
    base_cc = baseline if isinstance(baseline, str) else baseline["cc"]
    if base_cc not in have:
        return None, [base_cc]
    entries = compare["algorithms"]
    kept = [a for a in entries if (a if isinstance(a, str) else a["cc"]) in have]
    missing = sorted({a if isinstance(a, str) else a["cc"] for a in entries if a not in kept})
    # With every compared algorithm missing, the reference (all-baseline) runs still run.
    if not kept:
        compare["algorithms"], compare["mixtures"] = [baseline], ["all"]
    else:
        compare["algorithms"] = kept
    return sweep, missing


def run_study(
    study: Study,
    settings: Settings,
    out: str | Path | None = None,
    *,
    workers: int | None = None,
    console: Any = None,
    progress: bool = False,
) -> StudyReport:
    """Run one study: its sweeps (cached), the analysis, the verdicts, the files, the printout.

    A full run whose replicates are the study's own (no ``replicates`` in ``settings``) adds
    replicates while a check is inconclusive: the number of seeds is doubled, up to
    :attr:`Study.max_replicates`, and the runs already done are kept. A check that is still
    inconclusive at the cap stays so.

    ``out`` defaults to ``results/studies/<ID>`` (``<ID>-<profile>`` under another profile, so
    that the two are kept side by side). ``console`` is a rich Console to print to (None: print
    nothing).
    """
    started = time.perf_counter()
    directory = Path(out) if out is not None else _default_directory(study, settings)
    directory.mkdir(parents=True, exist_ok=True)
    if console is not None:
        _print_setup(study, settings, console)
    have = available_algorithms()
    command = study_command(study, settings, out)
    current = settings
    escalations: list[str] = []
    # Runs simulated by this call, over every pass: a run an earlier pass made is not one the
    # directory already held, though the last pass finds it there.
    ran_now = 0
    while True:
        context = Context(current, {})
        jobs: list[tuple[str, Sweep, Path]] = []
        for spec in study.sweeps(current):
            spec = copy.deepcopy(spec)
            spec.setdefault("set", {})["profile"] = current.profile
            pruned, missing = _prune(spec, have)
            if missing:
                context.notes.append(
                    f"{spec['name']}: not in this engine, so not run: {', '.join(missing)}"
                )
            if pruned is None:
                context.results[spec["name"]] = None
                continue
            target = directory / "sweeps" / spec["name"]
            jobs.append((spec["name"], Sweep.from_dict(pruned), target))
        # One pool for every sweep of the study: no worker waits for the end of one sweep.
        results = run_sweeps(
            [(sweep, target) for _, sweep, target in jobs], workers=workers, progress=progress
        )
        runs = failed = 0
        for (name, _, target), result in zip(jobs, results, strict=True):
            record_command(target, command)
            if result.failures:
                context.notes.append(
                    f"{name}: {len(result.failures)} runs failed: {result.failures[0].error}"
                )
            runs += result.distinct_runs
            failed += len(result.failures)
            ran_now += result.completed
            context.results[name] = result
        table = with_intervals(study.analyse(context))
        verdicts = [claim.judge(table, quick=current.quick) for claim in study.claims]
        more = _more_replicates(study, current, verdicts, settings.replicates is not None)
        if more is None:
            break
        escalations.append(
            f"{_inconclusive(verdicts)} inconclusive checks with {_replicates(study, current)} "
            f"replicates: running {more}"
        )
        if console is not None:
            console.print(f"[yellow]{escalations[-1]}[/yellow]")
        current = _with_replicates(current, more)
    context.notes[:0] = escalations
    reused = max(runs - failed - ran_now, 0)
    files = _write(study, current, table, verdicts, directory)
    report = StudyReport(
        study, settings, table, verdicts, directory, files, context.notes, runs, reused
    )
    report.replicates = _replicates(study, current, table)
    files.append(_write_metadata(report, out))
    report.elapsed_s = time.perf_counter() - started
    report.workers = workers
    if console is not None:
        _print_report(report, console)
    return report


def _replicates(study: Study, settings: Settings, table: pd.DataFrame | None = None) -> int:
    """The distinct seeds the study's sweeps run under ``settings`` (a study whose every seed
    draws its own workload has one sweep per seed); for a study without sweeps (a model run in
    Python), the most runs of a row of its ``table``."""
    seeds = {seed for spec in study.sweeps(settings) for seed in spec.get("seeds", [1])}
    if not seeds and table is not None and "runs" in table and len(table):
        return max(1, int(pd.to_numeric(table["runs"], errors="coerce").max()))
    return max(1, len(seeds))


def _inconclusive(verdicts: Sequence[ClaimResult]) -> int:
    return sum(c.outcome == INCONCLUSIVE for v in verdicts for c in v.checks)


def _more_replicates(
    study: Study, settings: Settings, verdicts: Sequence[ClaimResult], by_hand: bool
) -> int | None:
    """The replicates to run next, or None: a quick run, replicates set by hand, no inconclusive
    check, or the study's cap reached."""
    if settings.quick or by_hand or study.max_replicates is None or not _inconclusive(verdicts):
        return None
    now = _replicates(study, settings)
    more = min(study.max_replicates, 2 * now)
    # A study whose sweeps ignore the number of replicates (or that has none) cannot add any.
    if more <= now or _replicates(study, _with_replicates(settings, more)) <= now:
        return None
    return more


def _with_replicates(settings: Settings, replicates: int) -> Settings:
    return Settings(
        quick=settings.quick,
        profile=settings.profile,
        replicates=replicates,
        first_seed=settings.first_seed,
    )


def _default_directory(study: Study, settings: Settings) -> Path:
    suffix = "" if settings.profile == study.profile else f"-{settings.profile}"
    quick = "-quick" if settings.quick else ""
    return Path("results") / "studies" / f"{study.id}{suffix}{quick}"


def study_command(
    study: Study, settings: Settings, out: str | os.PathLike[str] | None = None
) -> str:
    """The ``ccsim study`` command line that runs ``study`` with ``settings`` into ``out``
    (None: the default directory, relative to where it is run), quoted for a POSIX shell.

    The number of workers is left out: it does not change the results.
    """
    words = ["ccsim", "study", study.id]
    if settings.quick:
        words.append("--quick")
    if settings.profile != study.profile:
        words += ["--profile", settings.profile]
    if settings.replicates is not None:
        words += ["--replicates", str(settings.replicates)]
    if settings.first_seed != 1:
        words += ["--first-seed", str(settings.first_seed)]
    if out is not None and Path(out) != _default_directory(study, settings):
        words += ["--out", str(out)]
    return shlex.join(words)


# ---- the comparison table ----------------------------------------------------------------------


def summarise(
    records: Sequence[Mapping[str, Any]],
    keys: Sequence[str],
    published: Mapping[tuple[Any, ...], float] | None = None,
    bounds: Mapping[str, Bounds] | None = None,
) -> pd.DataFrame:
    """Per-run values -> the comparison table.

    ``records`` are dicts with the ``keys``, ``metric``, ``seed`` and ``value``: one per run
    and metric (several records of one run and row, e.g. one per transfer, are first averaged
    into the run's value: the run, not the record, is the replicate). Rows are grouped by keys
    and metric: the mean over runs (``ours``), the sample standard deviation over runs (``sd``),
    the :data:`CI_LEVEL` confidence interval of the mean (``ci_low``, ``ci_high``: Student's t
    within the metric's range, ``bounds[metric]``, e.g. :data:`NONNEGATIVE`; NaN with fewer than
    :data:`MIN_REPLICATES` runs), the number of runs (``runs``), and the per-run values
    (``replicates``) the checks are computed from. ``published`` maps (*keys, metric) to the
    paper's value.
    """
    columns = [*keys, *VALUE_COLUMNS]
    bounds = bounds or {}
    rows: list[dict[str, Any]] = []
    if records:
        data = pd.DataFrame(list(records))
        if "seed" not in data.columns:
            raise ValueError("every record needs the seed of its run ('seed')")
        data["value"] = data["value"].astype(float)
        per_run = (
            data.groupby([*keys, "metric", "seed"], sort=False, dropna=False)["value"]
            .mean()
            .reset_index()
        )
        for key, group in per_run.groupby([*keys, "metric"], sort=False, dropna=False):
            key = key if isinstance(key, tuple) else (key,)
            metric = key[-1]
            limits = bounds.get(metric, ANY)
            kept = group.dropna(subset=["value"])
            values = kept["value"].to_numpy(float)
            ci = interval(values, limits, CI_LEVEL)
            rows.append(
                dict(zip([*keys, "metric"], key, strict=True))
                | {
                    "ours": float(values.mean()) if len(values) else np.nan,
                    "sd": float(values.std(ddof=1)) if len(values) > 1 else np.nan,
                    "ci_low": ci[0] if ci else np.nan,
                    "ci_high": ci[1] if ci else np.nan,
                    "runs": len(values),
                    "replicates": Replicates(
                        tuple(
                            (int(seed), float(v))
                            for seed, v in zip(kept["seed"], values, strict=True)
                        ),
                        limits,
                    ),
                }
            )
    frame = pd.DataFrame(rows, columns=[*keys, *VALUE_COLUMNS[:-2], "replicates"])
    have = {tuple(r[c] for c in [*keys, "metric"]) for r in rows}
    # The published values the paper gives for configurations we did not run still appear,
    # with our side empty, so the table always shows everything the paper reports.
    extra = [
        dict(zip([*keys, "metric"], key, strict=True)) | {"ours": np.nan, "runs": 0}
        for key in (published or {})
        if key not in have
    ]
    if extra:
        frame = pd.concat([frame, pd.DataFrame(extra)], ignore_index=True)
    frame["published"] = [
        (published or {}).get(tuple(r[c] for c in [*keys, "metric"]), np.nan)
        for _, r in frame.iterrows()
    ]
    frame["runs"] = frame["runs"].fillna(0).astype(int)
    return frame[columns]


def with_intervals(table: pd.DataFrame, level: float = CI_LEVEL) -> pd.DataFrame:
    """``table`` with ``ci_low`` and ``ci_high`` computed from ``ours``, ``sd`` and ``runs``
    (Student's t, NaN with fewer than :data:`MIN_REPLICATES` runs) where it lacks them;
    unchanged otherwise."""
    if {"ci_low", "ci_high"} <= set(table.columns) or not {"ours", "sd", "runs"} <= set(table):
        return table
    runs = pd.to_numeric(table["runs"], errors="coerce")
    half = np.where(runs >= MIN_REPLICATES, ci_half_width(table["sd"], runs, level), np.nan)
    ours = pd.to_numeric(table["ours"], errors="coerce")
    table = table.copy()
    position = list(table.columns).index("sd") + 1
    table.insert(position, "ci_low", ours - half)
    table.insert(position + 1, "ci_high", ours + half)
    return table


def value(table: pd.DataFrame, metric: str, **keys: Any) -> float:
    """Our mean for one row of a comparison table (NaN when the row is missing or not run);
    for printing. Checks decide on :func:`measure`, which keeps the per-run values."""
    rows = table[table["metric"] == metric]
    for key, wanted in keys.items():
        rows = rows[rows[key] == wanted]
    values = pd.to_numeric(rows["ours"], errors="coerce").dropna()
    return float(values.mean()) if len(values) else math.nan


# ---- output ------------------------------------------------------------------------------------


def _write(
    study: Study,
    settings: Settings,
    table: pd.DataFrame,
    verdicts: Sequence[ClaimResult],
    directory: Path,
) -> list[Path]:
    csv = directory / f"{study.id}.csv"
    table.drop(columns=["replicates"], errors="ignore").to_csv(csv, index=False)
    runs_csv = directory / f"{study.id}-runs.csv"
    per_run(table).to_csv(runs_csv, index=False)
    verdict_csv = directory / f"{study.id}-verdicts.csv"
    pd.DataFrame(
        [
            {
                "claim": v.claim,
                "criterion": v.criterion,
                "checks": "; ".join(f"[{c.outcome}] {c.text}" for c in v.checks),
                **{
                    outcome: sum(c.outcome == outcome for c in v.checks)
                    for outcome in (HELD, FAILED, REVERSED, INCONCLUSIVE)
                },
                "verdict": v.verdict,
                "profile": settings.profile,
                "quick": settings.quick,
            }
            for v in verdicts
        ]
    ).to_csv(verdict_csv, index=False)
    png = directory / f"{study.id}.png"
    import matplotlib.pyplot as plt  # slow to import: only to draw

    figure = _figure(study, settings, table)
    figure.savefig(png, dpi=110)
    plt.close(figure)
    return [csv, runs_csv, png, verdict_csv]


def per_run(table: pd.DataFrame) -> pd.DataFrame:
    """Every run's value of every row of a comparison table: the key columns, ``metric``,
    ``seed`` and ``value`` (what ``<ID>-runs.csv`` holds)."""
    keys = [c for c in table.columns if c not in VALUE_COLUMNS]
    rows = []
    for _, row in table.iterrows():
        cell = row.get("replicates")
        if not isinstance(cell, Replicates):
            continue
        base = {k: row[k] for k in keys} | {"metric": row["metric"]}
        rows += [base | {"seed": seed, "value": v} for seed, v in cell.values]
    return pd.DataFrame(rows, columns=[*keys, "metric", "seed", "value"])


def _write_metadata(report: StudyReport, out: str | os.PathLike[str] | None) -> Path:
    """``study.json``: what the study is, how it was run (settings, the command that repeats it,
    ccsim's version), its notes and verdicts: everything ``ccsim report`` needs besides the
    tables and figures beside it."""
    study, settings = report.study, report.settings
    metadata = {
        "format": 1,
        "study": study.id,
        "slug": study.slug,
        "title": study.title,
        "source": study.source,
        "setup": study.setup,
        "warmup": study.warmup,
        "assumptions": list(study.assumptions),
        "settings": {
            "quick": settings.quick,
            "profile": settings.profile,
            "replicates": settings.replicates,
            "first_seed": settings.first_seed,
        },
        "command": study_command(study, settings, out),
        "cwd": os.getcwd(),
        "ccsim_version": version(),
        "ci_level": CI_LEVEL,
        "min_replicates": MIN_REPLICATES,
        "replicates": report.replicates,
        "max_replicates": study.max_replicates,
        "runs": report.runs,
        "notes": list(report.notes),
        "verdicts": [
            {
                "claim": v.claim,
                "criterion": v.criterion,
                "verdict": v.verdict,
                "checks": [{"text": c.text, "outcome": c.outcome} for c in v.checks],
            }
            for v in report.verdicts
        ],
        "files": [path.name for path in report.files],
    }
    path = report.directory / STUDY_METADATA
    path.write_text(json.dumps(metadata, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    return path


def _interval_errors(rows: pd.DataFrame) -> np.ndarray:
    """Error-bar lengths below and above ``ours`` from the confidence interval (NaN, so no bar,
    where it is undefined: a single run)."""
    ours = pd.to_numeric(rows["ours"], errors="coerce").to_numpy(float)
    low = pd.to_numeric(rows["ci_low"], errors="coerce").to_numpy(float)
    high = pd.to_numeric(rows["ci_high"], errors="coerce").to_numpy(float)
    return np.vstack([ours - low, high - ours])


#: Bars of the summary figure that get a label; past this, every k-th one does.
MAX_BAR_LABELS = 24


def _figure(study: Study, settings: Settings, table: pd.DataFrame) -> Any:
    """One panel per metric: lines against ``x`` per ``hue`` (ours solid, with the 95% confidence
    interval of the mean as error bars; the paper's dashed), or bars of ours (with the interval)
    next to the paper's per row. A point of a single run has no error bar."""
    import matplotlib  # slow to import: only to draw

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spec = study.figure
    metrics = list(dict.fromkeys(table["metric"])) or ["(no data)"]
    cols = min(len(metrics), 3)
    rows = math.ceil(len(metrics) / cols)
    figure, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.9 * rows), squeeze=False)
    mode = "quick" if settings.quick else "full"
    figure.suptitle(
        f"{study.id}: {spec.title} (ccsim, {settings.profile}, {mode}; "
        f"error bars: {CI_LEVEL:.0%} CI of the mean)"
    )
    keys = [c for c in table.columns if c not in VALUE_COLUMNS]
    for ax, metric in zip(axes.flat, metrics, strict=False):
        rows_m = table[table["metric"] == metric]
        if spec.x is not None:
            groups = rows_m.groupby(spec.hue, sort=False) if spec.hue else [("", rows_m)]
            for name, group in groups:
                group = group.sort_values(spec.x)
                x = pd.to_numeric(group[spec.x], errors="coerce")
                line = ax.errorbar(
                    x,
                    group["ours"],
                    yerr=_interval_errors(group),
                    marker="o",
                    ms=3,
                    capsize=2,
                    label=f"{name} (ccsim)" if name != "" else "ccsim",
                )
                if group["published"].notna().any():
                    ax.plot(
                        x,
                        group["published"],
                        ls="--",
                        marker="x",
                        color=line.lines[0].get_color(),
                        label=f"{name} (paper)",
                    )
            ax.set_xlabel(spec.xlabel or spec.x)
        else:
            labels = [" ".join(str(r[k]) for k in keys) for _, r in rows_m.iterrows()]
            positions = np.arange(len(labels))
            ax.bar(
                positions - 0.2,
                rows_m["ours"],
                0.4,
                yerr=_interval_errors(rows_m),
                label="ccsim",
                capsize=2,
            )
            ax.bar(positions + 0.2, rows_m["published"], 0.4, label="paper")
            # Past a few dozen bars every label overlaps its neighbours (and drawing hundreds
            # of rotated labels takes seconds): label every k-th bar, in the table's order.
            step = max(1, math.ceil(len(labels) / MAX_BAR_LABELS))
            ax.set_xticks(positions[::step], labels[::step], rotation=30, ha="right", fontsize=7)
        ax.set_title(metric, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(metrics) :]:
        ax.set_visible(False)
    figure.tight_layout()
    return figure


# ---- printing ----------------------------------------------------------------------------------


def _print_setup(study: Study, settings: Settings, console: Any) -> None:
    mode = "quick (shortened: fewer points, seeds, shorter runs)" if settings.quick else "full"
    console.print(f"[bold]{study.id} ({study.slug}): {escape(study.title)}[/bold]")
    console.print(f"source: {escape(study.source)}; mode: {mode}")
    console.print(f"setup: {escape(study.setup)}")
    console.print(f"warm-up: {escape(study.warmup or 'not stated')}")
    for line in study.assumptions:
        console.print(f"  assume: {escape(line)}")
    knobs = Stack.model_fields if hasattr(Stack, "model_fields") else {}
    console.print(
        f"stack profile: [bold]{settings.profile}[/bold] (its knobs, {len(knobs)} in all, are "
        "listed in docs/scenario-format.md and stored in each run's summary.json)"
    )


def _fmt(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float | np.floating):
        number = float(x)
        return f"{number:.4g}" if abs(number) < 10 else f"{number:.1f}"
    return str(x)


def format_interval(low: Any, high: Any) -> str:
    """``[low, high]`` as the tables print numbers, or ``-`` when undefined (a single run)."""
    if _missing(low) or _missing(high):
        return "-"
    return f"[{_fmt(float(low))}, {_fmt(float(high))}]"


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float | np.floating) and math.isnan(float(x)))


#: How the comparison table is shown (printed, and in reports): the key columns, then these.
SHOWN_COLUMNS = ("metric", "ours", f"{CI_LEVEL:.0%} CI", "n", "published")


def shown_rows(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """The comparison table as text cells: the key columns, metric, ours (the mean), its
    confidence interval, n (the runs it is over) and the published value; sd stays in the CSV."""
    keys = [c for c in table.columns if c not in VALUE_COLUMNS]
    header = [*keys, *SHOWN_COLUMNS]
    rows = []
    for _, row in table.iterrows():
        interval = format_interval(row.get("ci_low"), row.get("ci_high"))
        cells = [_fmt(row[k]) for k in keys]
        cells += [_fmt(row["metric"]), _fmt(row["ours"]), interval, _fmt(row["runs"])]
        rows.append([*cells, _fmt(row["published"])])
    return header, rows


#: How each verdict is coloured on a terminal.
VERDICT_COLOURS = {
    REPRODUCED: "green",
    PARTLY: "yellow",
    INCONCLUSIVE: "cyan",
    NOT_REPRODUCED: "red",
    REVERSED: "magenta",
    NOT_RUN: "dim",
    NOT_RUN_QUICK: "dim",
}


def _print_report(report: StudyReport, console: Any) -> None:
    study, table = report.study, report.table
    rich_table = Table(
        title=f"{study.id}: ccsim vs published ({study.source})",
        caption=f"ours: mean of n runs; {CI_LEVEL:.0%} CI: Student's t within the quantity's "
        f"range (-: fewer than {MIN_REPLICATES} runs, no interval)",
    )
    header, rows = shown_rows(table)
    for column in header:
        rich_table.add_column(
            column, justify="left" if column not in SHOWN_COLUMNS[1:] else "right"
        )
    for cells in rows:
        rich_table.add_row(*(escape(cell) for cell in cells))
    console.print(rich_table)
    for note in report.notes:
        console.print(f"[yellow]note:[/yellow] {escape(note)}")
    counts = {v: sum(r.verdict == v for r in report.verdicts) for v in VERDICTS}
    kind = "quick verdicts (a first look, not results)" if report.settings.quick else "verdicts"
    console.print(f"{kind}: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n))
    if report.replicates:
        console.print(
            f"replicates: {report.replicates} seeds per point"
            + (f" (cap {report.study.max_replicates})" if report.study.max_replicates else "")
        )
    label = "quick verdict" if report.settings.quick else "verdict"
    for result in report.verdicts:
        colour = VERDICT_COLOURS[result.verdict]
        console.print(
            f"[bold {colour}]{label}: {result.verdict}[/bold {colour}] - {escape(result.claim)}"
        )
        console.print(f"  criterion: {escape(result.criterion)}")
        for c in result.checks:
            console.print(f"    {escape('[' + c.outcome + ']')} {escape(c.text)}")
    console.print(f"wrote {', '.join(str(f) for f in report.files)}")
    console.print(timing_line(report))


def timing_line(report: StudyReport) -> str:
    """How long the study took: its runs (those reused from the directory apart), the wall
    time and the workers, e.g. ``L1: 52 runs (0 reused) in 14.2 min on 2 workers``."""
    workers = report.workers if report.workers is not None else (os.cpu_count() or 1)
    minutes = report.elapsed_s / 60
    return (
        f"{report.study.id}: {report.runs} runs ({report.reused} reused) in "
        f"{minutes:.1f} min on {workers} worker{'s' if workers != 1 else ''}"
    )
