"""Running a study (:func:`run_study`): its sweeps (cached, on one pool of workers), the
analysis, the verdicts, more replicates while a check is inconclusive, the files and the
printout. Algorithms the engine lacks are left out of the sweeps (:func:`prune`) and reported
as not run.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ccsim.scenario import engine as scenario_engine
from ccsim.studies.checks import ClaimResult, inconclusive_checks
from ccsim.studies.console import print_report, print_setup
from ccsim.studies.files import (
    default_directory,
    study_command,
    write_metadata,
    write_tables_and_figure,
)
from ccsim.studies.model import Context, Settings, Study, StudyReport
from ccsim.studies.tables import with_intervals
from ccsim.sweep_run import run_sweeps
from ccsim.sweeps import Sweep, record_command

__all__ = ["available_algorithms", "prune", "run_study", "seeds_per_point"]


def available_algorithms() -> set[str] | None:
    """The engine's algorithm names (None without an engine)."""
    registry = scenario_engine.algorithm_registry()  # through the module: tests patch it
    return None if registry is None else set(registry)


def prune(sweep: dict[str, Any], have: set[str] | None) -> tuple[dict[str, Any] | None, list[str]]:
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
    wide: bool = False,
) -> StudyReport:
    """Run one study: its sweeps (cached), the analysis, the verdicts, the files, the printout.

    A full run whose replicates are the study's own (no ``replicates`` in ``settings``) adds
    replicates while a check is inconclusive: the number of seeds is doubled, up to
    :attr:`Study.max_replicates`, and the runs already done are kept. A check that is still
    inconclusive at the cap stays so.

    ``out`` defaults to ``results/studies/<ID>`` (``<ID>-<profile>`` under another profile, so
    that the two are kept side by side). ``console`` is a rich Console to print to (None: print
    nothing); ``wide`` prints the comparison table unfitted to its width.
    """
    started = time.perf_counter()
    directory = Path(out) if out is not None else default_directory(study, settings)
    directory.mkdir(parents=True, exist_ok=True)
    if console is not None:
        print_setup(study, settings, console)
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
            pruned, missing = prune(spec, have)
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
            f"{inconclusive_checks(verdicts)} inconclusive checks with {seeds_per_point(study, current)} "
            f"replicates: running {more}"
        )
        if console is not None:
            console.print(f"[yellow]{escalations[-1]}[/yellow]")
        current = _with_replicates(current, more)
    context.notes[:0] = escalations
    reused = max(runs - failed - ran_now, 0)
    files = write_tables_and_figure(study, current, table, verdicts, directory)
    report = StudyReport(
        study, settings, table, verdicts, directory, files, context.notes, runs, reused
    )
    report.replicates = seeds_per_point(study, current, table)
    files.append(write_metadata(report, out))
    report.elapsed_s = time.perf_counter() - started
    report.workers = workers
    if console is not None:
        print_report(report, console, wide=wide)
    return report


def seeds_per_point(study: Study, settings: Settings, table: pd.DataFrame | None = None) -> int:
    """The distinct seeds the study's sweeps run under ``settings`` (a study whose every seed
    draws its own workload has one sweep per seed); for a study without sweeps (a model run in
    Python), the most runs of a row of its ``table``."""
    seeds = {seed for spec in study.sweeps(settings) for seed in spec.get("seeds", [1])}
    if not seeds and table is not None and "runs" in table and len(table):
        return max(1, int(pd.to_numeric(table["runs"], errors="coerce").max()))
    return max(1, len(seeds))


def _more_replicates(
    study: Study, settings: Settings, verdicts: Sequence[ClaimResult], by_hand: bool
) -> int | None:
    """The replicates to run next, or None: a quick run, replicates set by hand, no inconclusive
    check, or the study's cap reached."""
    if (
        settings.quick
        or by_hand
        or study.max_replicates is None
        or not inconclusive_checks(verdicts)
    ):
        return None
    now = seeds_per_point(study, settings)
    more = min(study.max_replicates, 2 * now)
    # A study whose sweeps ignore the number of replicates (or that has none) cannot add any.
    if more <= now or seeds_per_point(study, _with_replicates(settings, more)) <= now:
        return None
    return more


def _with_replicates(settings: Settings, replicates: int) -> Settings:
    return Settings(
        quick=settings.quick,
        profile=settings.profile,
        replicates=replicates,
        first_seed=settings.first_seed,
    )
