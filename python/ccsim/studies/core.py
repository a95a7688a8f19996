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
* each :class:`Claim` reads that table and returns :class:`Check` results, each of which holds,
  fails, or is reversed (the data goes clearly the other way); the verdict (reproduced, partly,
  reversed, not reproduced, not run) is computed from the checks (:func:`grade`), never written
  by hand.

:func:`run_study` does the rest: prints the setup (assumptions and stack profile included),
the table and the verdicts, and writes ``<ID>.csv``, ``<ID>.png``, ``<ID>-verdicts.csv`` and
``study.json`` (the setup, the settings, the verdicts, the command that reproduces the study and
ccsim's version, which ``ccsim report`` reads).
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

__all__ = [
    "CI_LEVEL",
    "FAILED",
    "HELD",
    "NOT_REPRODUCED",
    "NOT_RUN",
    "NO_DATA",
    "PARTLY",
    "REPRODUCED",
    "REVERSED",
    "STUDY_METADATA",
    "VERDICTS",
    "Check",
    "Claim",
    "ClaimResult",
    "Context",
    "Settings",
    "Study",
    "StudyReport",
    "grade",
    "run_study",
    "study_command",
    "summarise",
    "with_intervals",
]

REPRODUCED = "reproduced"
PARTLY = "partly"
NOT_REPRODUCED = "not reproduced"
#: The effect is there, but in the opposite direction of the paper's claim.
REVERSED = "reversed"
NOT_RUN = "not run"
#: Every verdict, in the order the summaries list them.
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, REVERSED, NOT_RUN)

#: What one check found: the claimed direction holds, it does not, or the data clearly goes the
#: other way (e.g. the paper's loser wins); NO_DATA when a value it needs is missing.
HELD = "held"
FAILED = "failed"
NO_DATA = "no data"

#: Columns every comparison table ends with (the key columns of a study come first).
VALUE_COLUMNS = ["metric", "ours", "sd", "ci_low", "ci_high", "runs", "published"]
#: The confidence level of the intervals in comparison tables, figures and reports.
CI_LEVEL = 0.95
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
class Check:
    """One testable condition of a claim: what it says, and whether it holds (None: no data).

    ``reversed`` marks a check that does not hold because the evidence clearly goes the other
    way (the flow the paper says loses wins, the sign is the opposite one): the check's
    :attr:`outcome` is then ``"reversed"`` instead of ``"failed"``. A check that holds cannot be
    reversed.
    """

    text: str
    ok: bool | None
    reversed: bool = False

    def __post_init__(self) -> None:
        if self.reversed and self.ok is not False:
            raise ValueError("only a check that does not hold can be reversed")

    @property
    def outcome(self) -> str:
        """``held``, ``failed``, ``reversed`` or ``no data``."""
        if self.ok is None:
            return NO_DATA
        if self.ok:
            return HELD
        return REVERSED if self.reversed else FAILED


@dataclass(frozen=True)
class ClaimResult:
    """A judged claim: its text, its criterion, the checks and the verdict graded from them."""

    claim: str
    criterion: str
    checks: tuple[Check, ...]
    verdict: str


@dataclass(frozen=True)
class Claim:
    """A published claim and the explicit criterion it is judged by.

    ``evaluate(table)`` returns the checks; :func:`grade` turns them into the verdict, so the
    verdict follows the numbers.
    """

    text: str
    criterion: str
    evaluate: Callable[[pd.DataFrame], Sequence[Check]]

    def judge(self, table: pd.DataFrame) -> ClaimResult:
        checks = tuple(self.evaluate(table))
        return ClaimResult(self.text, self.criterion, checks, grade(checks))


def grade(checks: Sequence[Check]) -> str:
    """The verdict from the checks, fixed by rule:

    * any check without data (or no checks): **not run** (a claim is not judged on half of its
      evidence);
    * every check held: **reproduced**;
    * some held: **partly** (the reversed ones are shown with the checks);
    * none held and at least half of them reversed: **reversed** (the effect is there, the
      other way round);
    * none held otherwise: **not reproduced**.
    """
    if not checks or any(c.ok is None for c in checks):
        return NOT_RUN
    held = sum(c.outcome == HELD for c in checks)
    if held == len(checks):
        return REPRODUCED
    if held:
        return PARTLY
    reversed_ = sum(c.outcome == REVERSED for c in checks)
    return REVERSED if 2 * reversed_ >= len(checks) else NOT_REPRODUCED


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
    """A named experiment of a seed paper (an entry of studies.md)."""

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

    def verdict(self, index: int) -> str:
        """The verdict of the claim at ``index`` (in the study's order)."""
        return self.verdicts[index].verdict

    def _repr_html_(self) -> str:
        """The setup, the comparison table (mean, 95% CI, n) and the verdicts, for Jupyter."""
        from ccsim.report import study_report_html

        return study_report_html(self)


def available_algorithms() -> set[str] | None:
    """The engine's algorithm names (None without an engine)."""
    from ccsim.scenario import _algorithms

    registry = _algorithms()
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

    ``out`` defaults to ``results/studies/<ID>`` (``<ID>-<profile>`` under another profile, so
    that the two are kept side by side). ``console`` is a rich Console to print to (None: print
    nothing).
    """
    from ccsim.sweep_run import run_sweeps
    from ccsim.sweeps import Sweep, record_command

    started = time.perf_counter()
    directory = Path(out) if out is not None else _default_directory(study, settings)
    directory.mkdir(parents=True, exist_ok=True)
    if console is not None:
        _print_setup(study, settings, console)
    have = available_algorithms()
    context = Context(settings, {})
    jobs: list[tuple[str, Sweep, Path]] = []
    for spec in study.sweeps(settings):
        spec = copy.deepcopy(spec)
        spec.setdefault("set", {})["profile"] = settings.profile
        pruned, missing = _prune(spec, have)
        if missing:
            context.notes.append(
                f"{spec['name']}: not in this engine, so not run: {', '.join(missing)}"
            )
        if pruned is None:
            context.results[spec["name"]] = None
            continue
        jobs.append((spec["name"], Sweep.from_dict(pruned), directory / "sweeps" / spec["name"]))
    # One pool for every sweep of the study: no worker waits for the end of one sweep.
    results = run_sweeps(
        [(sweep, target) for _, sweep, target in jobs], workers=workers, progress=progress
    )
    command = study_command(study, settings, out)
    runs = reused = 0
    for (name, _, target), result in zip(jobs, results, strict=True):
        record_command(target, command)
        if result.failures:
            context.notes.append(
                f"{name}: {len(result.failures)} runs failed: {result.failures[0].error}"
            )
        runs += result.distinct_runs
        reused += result.skipped
        context.results[name] = result
    table = with_intervals(study.analyse(context))
    verdicts = [claim.judge(table) for claim in study.claims]
    files = _write(study, settings, table, verdicts, directory)
    report = StudyReport(
        study, settings, table, verdicts, directory, files, context.notes, runs, reused
    )
    files.append(_write_metadata(report, out))
    report.elapsed_s = time.perf_counter() - started
    report.workers = workers
    if console is not None:
        _print_report(report, console)
    return report


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
) -> pd.DataFrame:
    """Per-run values -> the comparison table.

    ``records`` are dicts with the ``keys``, ``metric`` and ``value`` (one per run and metric);
    rows are grouped by keys and metric: mean (``ours``), sample standard deviation over runs
    (``sd``, NaN for one run), the :data:`CI_LEVEL` confidence interval of the mean by Student's t
    (``ci_low``, ``ci_high``: :func:`ccsim.metrics.mean_ci`; NaN for one run, where it is
    undefined) and count (``runs``). ``published`` maps (*keys, metric) to the paper's value.
    """
    from ccsim.metrics import mean_ci

    columns = [*keys, *VALUE_COLUMNS]
    if not records:
        frame = pd.DataFrame(columns=columns)
    else:
        data = pd.DataFrame(list(records))
        frame = mean_ci(data, [*keys, "metric"], "value", CI_LEVEL).rename(
            columns={"mean": "ours", "n": "runs"}
        )
    rows = {tuple(r[c] for c in [*keys, "metric"]) for _, r in frame.iterrows()}
    # The published values the paper gives for configurations we did not run still appear,
    # with our side empty, so the table always shows everything the paper reports.
    extra = [
        dict(zip([*keys, "metric"], key, strict=True)) | {"ours": np.nan, "runs": 0}
        for key in (published or {})
        if key not in rows
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
    (Student's t, as :func:`summarise` does) where it lacks them; unchanged otherwise."""
    if {"ci_low", "ci_high"} <= set(table.columns) or not {"ours", "sd", "runs"} <= set(table):
        return table
    from ccsim.metrics import ci_half_width

    half = ci_half_width(table["sd"], table["runs"], level)
    ours = pd.to_numeric(table["ours"], errors="coerce")
    table = table.copy()
    position = list(table.columns).index("sd") + 1
    table.insert(position, "ci_low", ours - half)
    table.insert(position + 1, "ci_high", ours + half)
    return table


def value(table: pd.DataFrame, metric: str, **keys: Any) -> float:
    """Our mean for one row of a comparison table (NaN when the row is missing or not run)."""
    rows = table[table["metric"] == metric]
    for key, wanted in keys.items():
        rows = rows[rows[key] == wanted]
    values = pd.to_numeric(rows["ours"], errors="coerce").dropna()
    return float(values.mean()) if len(values) else math.nan


def check(
    text: str,
    *values: float,
    test: Callable[..., bool],
    reverse: Callable[..., bool] | None = None,
) -> Check:
    """A Check that is None when any value it needs is missing (NaN).

    ``test`` says whether the claim's direction holds; ``reverse`` (optional) whether, when it
    does not, the values clearly go the opposite way (the check is then ``reversed``).
    """
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        return Check(text, None)
    ok = bool(test(*values))
    return Check(text, ok, reversed=not ok and reverse is not None and bool(reverse(*values)))


# ---- output ------------------------------------------------------------------------------------


def _write(
    study: Study,
    settings: Settings,
    table: pd.DataFrame,
    verdicts: Sequence[ClaimResult],
    directory: Path,
) -> list[Path]:
    csv = directory / f"{study.id}.csv"
    table.to_csv(csv, index=False)
    verdict_csv = directory / f"{study.id}-verdicts.csv"
    pd.DataFrame(
        [
            {
                "claim": v.claim,
                "criterion": v.criterion,
                "checks": "; ".join(f"{c.text}: {c.outcome}" for c in v.checks),
                "held": sum(c.outcome == HELD for c in v.checks),
                "reversed": sum(c.outcome == REVERSED for c in v.checks),
                "verdict": v.verdict,
                "profile": settings.profile,
                "quick": settings.quick,
            }
            for v in verdicts
        ]
    ).to_csv(verdict_csv, index=False)
    png = directory / f"{study.id}.png"
    import matplotlib.pyplot as plt

    figure = _figure(study, settings, table)
    figure.savefig(png, dpi=110)
    plt.close(figure)
    return [csv, png, verdict_csv]


def _write_metadata(report: StudyReport, out: str | os.PathLike[str] | None) -> Path:
    """``study.json``: what the study is, how it was run (settings, the command that repeats it,
    ccsim's version), its notes and verdicts: everything ``ccsim report`` needs besides the
    tables and figures beside it."""
    from ccsim.runner import version

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
    import matplotlib

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
    from rich.markup import escape

    from ccsim.scenario import Stack

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


def _print_report(report: StudyReport, console: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    study, table = report.study, report.table
    rich_table = Table(
        title=f"{study.id}: ccsim vs published ({study.source})",
        caption=f"ours: mean of n runs; {CI_LEVEL:.0%} CI: Student's t (-: one run)",
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
    colours = {
        REPRODUCED: "green",
        PARTLY: "yellow",
        NOT_REPRODUCED: "red",
        REVERSED: "magenta",
        NOT_RUN: "dim",
    }
    counts = {v: sum(r.verdict == v for r in report.verdicts) for v in VERDICTS}
    console.print("verdicts: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n))
    for result in report.verdicts:
        colour = colours[result.verdict]
        console.print(
            f"[bold {colour}]verdict: {result.verdict}[/bold {colour}] - {escape(result.claim)}"
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
