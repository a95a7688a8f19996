"""Running the battery for one algorithm: check the input, write the sweep files, run every
sweep through one executor into its own store (resumable), measure, summarise, write the card."""

from __future__ import annotations

import json
import os
import re
import time
import tomllib
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import pandas as pd
import tomli_w

from ccsim import pycc
from ccsim.errors import ScenarioError
from ccsim.evaluate import battery as battery_module
from ccsim.evaluate.analysis import TABLES_READ, derived, measure_run, summarise
from ccsim.evaluate.battery import BATTERY_VERSION, TESTS, Algorithm, Plan, battery
from ccsim.evaluate.card import write_csv, write_html
from ccsim.evaluate.model import Evaluation
from ccsim.results import TABLES, Results
from ccsim.scenario.model import Scenario
from ccsim.scenario.toml_file import toml_ready
from ccsim.sweep_run import run_sweeps
from ccsim.sweeps import Sweep, record_command

__all__ = ["Evaluation", "evaluate", "parse_algorithm", "parse_params"]

QUICK_SEEDS = (1, 2, 3)
FULL_SEEDS = (1, 2, 3, 4, 5)


def parse_params(items: Sequence[str]) -> dict[str, Any]:
    """``k=v`` items as a parameter table; each value is read as a TOML value (a number, a
    boolean, a quoted string), a bare word as a string."""
    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) or not text.strip():
            raise ScenarioError(f'--params "{item}": expected NAME=VALUE, e.g. --params beta=0.7')
        try:
            params[key] = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            params[key] = text.strip()
    return params


def parse_algorithm(
    text: str, params: Mapping[str, Any] | None = None
) -> tuple[Algorithm, Path | None]:
    """ALG as given: a built-in name, ``module:Class``, or ``path/to/file.py:Class`` (the module
    is then imported from the file's directory). Returns the algorithm and that directory."""
    text = text.strip()
    directory: Path | None = None
    cc = text
    module, sep, cls = text.rpartition(":")
    if sep and module.endswith(".py"):
        path = Path(module)
        if not path.is_file():
            raise ScenarioError(f"{text}: no such file {module}")
        directory = path.resolve().parent
        cc = f"{path.stem}:{cls}"
    name = cls if sep else text
    if params:
        # Shown in the report card and the default directory: a tuned variant is not the default.
        shown = (str(v).lower() if isinstance(v, bool) else str(v) for v in params.values())
        name += "(" + ",".join(f"{k}={v}" for k, v in zip(params, shown, strict=True)) + ")"
    return Algorithm(name, cc, dict(params or {})), directory


def evaluate(
    alg: str,
    *,
    params: Mapping[str, Any] | None = None,
    against: Sequence[str] = ("cubic", "reno"),
    quick: bool = False,
    out: str | Path | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = False,
    command: str | None = None,
    tests: Sequence[str] | None = None,
    cellular_trace: str | Path | None = None,
) -> Evaluation:
    """Run the battery for ``alg`` (and ``against``, its baselines) and write the report card.

    Every sweep is checked before anything is written: an unknown algorithm or a bad parameter
    raises :class:`ScenarioError` and leaves no directory behind. Runs already in ``out``
    (default ``results/evaluate/<ALG>``, ``-quick`` for a quick run) are not run again.
    ``tests`` runs only the battery's tests of those names (all when None). ``cellular_trace``
    is the paths test's cellular link: a Mahimahi ``.down`` file (its ``.up`` twin, when beside
    it, on the ACKs' direction); None runs the synthetic trace shipped with ccsim.
    """
    started = time.perf_counter()
    subject, directory = parse_algorithm(alg, params)
    baselines = [Algorithm(b.strip(), b.strip()) for b in against if b.strip()]
    if len({b.name for b in baselines}) != len(baselines):
        raise ScenarioError(f"--against {','.join(against)}: a baseline is named twice")
    trace = None if cellular_trace is None else Path(cellular_trace).resolve()
    if trace is not None and not trace.is_file():
        raise ScenarioError(f"--cellular-trace {cellular_trace}: no such file")
    plan = Plan(
        quick,
        QUICK_SEEDS if quick else FULL_SEEDS,
        time_scale=battery_module.TIME_SCALE,
        cellular_trace=trace,
    )
    unknown = sorted(set(tests or ()) - set(TESTS))
    if unknown:
        raise ScenarioError(f"no test {unknown[0]!r} in the battery; its tests: {', '.join(TESTS)}")
    sweeps = [s for s in battery(subject, baselines, plan) if tests is None or s.test in tests]

    def beside() -> AbstractContextManager[None]:
        return pycc.modules_beside(directory) if directory is not None else nullcontext()

    with beside():
        checked = [Sweep.from_dict(s.sweep) for s in sweeps]  # raises on bad input: nothing written
    target = Path(out) if out is not None else _default_directory(subject, quick)
    target.mkdir(parents=True, exist_ok=True)
    (target / "scenarios").mkdir(exist_ok=True)
    # Where ALG's module is, relative to the output directory (a report names no local path).
    path_hint = f"PYTHONPATH={os.path.relpath(directory, target.resolve())} " if directory else ""
    for s in sweeps:
        text = (
            f"# ccsim evaluate, battery v{BATTERY_VERSION}: test {s.test}\n"
            "# Run again on its own, in the evaluation's directory (into its store, where every\n"
            f"# run is done already): {path_hint}ccsim sweep scenarios/{s.name}.toml "
            f"--out sweeps/{s.name}\n" + tomli_w.dumps(toml_ready(s.sweep))
        )
        (target / "scenarios" / f"{s.name}.toml").write_text(text, encoding="utf-8")
    jobs = [(sweep, target / "sweeps" / s.name) for s, sweep in zip(sweeps, checked, strict=True)]
    with beside():
        results = run_sweeps(jobs, workers=workers, scheduler=scheduler, progress=progress)
    evaluation = Evaluation(
        subject, [b.name for b in baselines], plan, target, sweeps, [], [], command=command
    )
    evaluation.cwd = os.getcwd()
    for s, result in zip(sweeps, results, strict=True):
        if command is not None:
            record_command(result.store.root, command)
        evaluation.runs += result.distinct_runs
        evaluation.ran += result.completed
        evaluation.skipped += result.skipped
        evaluation.failures += [
            f"{s.name} {', '.join(f.points)}: {f.error}" for f in result.failures
        ]
        done = result.store.completed()
        for point in result.points:
            if point.run_id in done:
                run = _load_run(result.store.run_dir(point.run_id), point.scenario, s.test)
                evaluation.measurements += measure_run(s, dict(point.params), run)
    evaluation.measurements += derived(evaluation.measurements, evaluation.baselines)
    evaluation.summary = summarise(evaluation.measurements, evaluation.baselines, list(TESTS))
    files = [target / "summary.csv", target / "measurements.csv", target / "report.html"]
    write_csv(evaluation, files[0])
    evaluation.measurements_frame().to_csv(files[1], index=False)
    evaluation.wall_s = time.perf_counter() - started
    write_html(evaluation, files[2])
    meta = {
        "battery_version": BATTERY_VERSION,
        "algorithm": {"name": subject.name, "cc": subject.cc, "params": dict(subject.params)},
        "baselines": evaluation.baselines,
        "quick": quick,
        "seeds": list(plan.seeds),
        "tests": evaluation.tests_run(),
        "cellular_trace": None if trace is None else str(trace),
        "time_scale": plan.time_scale,
        "runs": evaluation.runs,
        "ran": evaluation.ran,
        "failed": len(evaluation.failures),
        "wall_s": round(evaluation.wall_s, 2),
        "command": command,
    }
    files.append(target / "evaluate.json")
    files[-1].write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    evaluation.files = files
    return evaluation


def _load_run(directory: Path, scenario: Scenario, test: str) -> Results:
    """A finished run's results as the test's measurements need them: its summary and the
    tables the test reads (a run's directory holds five; reading them all, and its scenario
    file again, was most of the time a rerun of a finished evaluation took)."""
    summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    tables = {}
    for name in TABLES_READ.get(test, TABLES):
        path = directory / f"{name}.parquet"
        tables[name] = pd.read_parquet(path) if path.is_file() else pd.DataFrame()
    return Results(scenario, tables, summary)


def _default_directory(alg: Algorithm, quick: bool) -> Path:
    return Path("results") / "evaluate" / (alg.slug + ("-quick" if quick else ""))
