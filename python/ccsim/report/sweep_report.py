"""The report of a sweep directory: the summary per parameter combination, failures, figures and
the runs first; the sweep's definition, stack settings, command and base scenario after them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import tomli_w

from ccsim import plots
from ccsim.explore import read_manifest
from ccsim.report.markup import (
    escape,
    figures_section,
    folded,
    frame_table,
    html_table,
    paragraph,
    png_of,
    preformatted,
    reproduce_section,
    run_stacks,
    section,
    stack_table,
    version_line,
)
from ccsim.report.numbers import format_mean_ci, unit_of
from ccsim.store import Store
from ccsim.sweeps import recorded_command, summarise_runs

#: The summary numbers of a sweep's runs shown in its report: (column, header, kind of unit).
SWEEP_METRICS = (
    ("goodput_bps", "goodput", "rate"),
    ("jain", "Jain index", "plain"),
    ("utilization", "utilisation", "percent"),
    ("loss_rate", "loss rate", "percent"),
    ("timeouts", "timeouts", "plain"),
    ("mean_completion_s", "mean transfer time", "time"),
)


# ---- a sweep ---------------------------------------------------------------------------------------


def sweep_body(directory: Path, location: Path | None = None) -> tuple[str, str]:
    """The title and body of the report of ``directory``, to be written in ``location`` (its
    paths relative to it; ``directory`` itself by default)."""
    location = directory if location is None else location
    manifest = read_manifest(directory)  # checked: a damaged one is named in one line
    store = Store.open(directory)
    sweep = manifest["sweep"]
    columns = list(manifest["columns"])
    runs = store.runs_table()
    done = runs[runs["status"] == "done"]
    recorded = recorded_command(directory) or {}
    versions = sorted({str(v) for v in _run_versions(store, done["run_id"])} - {"None"})
    version = recorded.get("ccsim_version") or (", ".join(versions) if versions else None)
    title = f"ccsim sweep {sweep.get('name', directory.name)}"
    parts = [f"<h1>{escape(title)}</h1>", paragraph(version_line(version), "meta")]
    summary = paragraph(_run_counts(sweep, runs)) + _sweep_summary_table(runs, columns)
    failures = store.failures()
    if failures:
        rows = [
            [run_id, "; ".join(f.get("points", [])), _relative_text(f.get("error"), directory)]
            for run_id, f in failures.items()
        ]
        summary += html_table(["run", "points", "error"], rows, "Failed runs", name="failures")
    parts.append(section("Summary", summary, "summary"))
    figures, notes = _sweep_figures(store, runs, columns)
    parts.append(figures_section(figures, notes))
    shown = [c for c in runs.columns if c not in ("reference_run",)]
    tables = folded(
        f"Runs: every point of the sweep ({len(runs)} rows)",
        frame_table(runs[shown], "Runs", shown_rows=None),
    )
    parts.append(section("Tables", tables, "tables"))
    parts.append(section("Setup", _sweep_setup(sweep), "setup"))
    stacks = run_stacks(store.run_dir(r) for r in done["run_id"].drop_duplicates())
    parts.append(section("Stack profile", stack_table(stacks, "Stack settings"), "stack"))
    note = None
    if not recorded:
        note = (
            "Written from Python or by an earlier ccsim: run the sweep again with `ccsim sweep "
            "FILE --out DIR`; sweep.json holds the whole sweep, its base scenario inline."
        )
    parts.append(
        reproduce_section(
            recorded.get("command"), recorded.get("cwd"), location=location, note=note
        )
    )
    base = folded(
        "The base scenario every run starts from",
        preformatted(tomli_w.dumps(sweep.get("scenario") or {})),
    )
    parts.append(section("Base scenario", base, "scenario"))
    return title, "".join(parts)


def _relative_text(text: Any, directory: Path) -> Any:
    """An error message with the sweep directory's absolute path replaced by its name."""
    if not isinstance(text, str):
        return text
    absolute = str(directory.resolve())
    return text.replace(absolute, directory.resolve().name) if absolute != "/" else text


def _run_versions(store: Any, run_ids: Iterable[str]) -> list[Any]:
    versions = []
    for run_id in list(dict.fromkeys(run_ids))[:50]:
        try:
            summary = json.loads((store.run_dir(run_id) / "summary.json").read_text("utf-8"))
        except (OSError, ValueError):
            continue
        versions.append(summary.get("ccsim_version"))
    return versions


def _run_counts(sweep: Mapping[str, Any], runs: pd.DataFrame) -> str:
    status = runs["status"].value_counts()
    counts = ", ".join(
        f"{int(status[s])} {s}" for s in ("done", "failed", "damaged", "pending") if s in status
    )
    return (
        f"{len(runs)} points, {runs['run_id'].nunique()} distinct runs ({counts}); seeds "
        f"{', '.join(map(str, sweep.get('seeds', [])))}: the replicates over which means and "
        "95% confidence intervals (Student's t) are taken."
    )


def _sweep_setup(sweep: Mapping[str, Any]) -> str:
    parts = []
    axes = sweep.get("axes") or {}
    if axes:
        rows = [
            [spec.get("name", key), key, ", ".join(map(str, spec.get("values", [])))]
            for key, spec in axes.items()
        ]
        parts.append(html_table(["column", "scenario key", "values"], rows, "Axes", name="axes"))
    if sweep.get("set"):
        rows = [[key, str(value)] for key, value in sweep["set"].items()]
        parts.append(html_table(["key", "value"], rows, "Set on every run", name="set"))
    compare = sweep.get("compare")
    if compare:
        rows = [
            ["algorithms", ", ".join(_describe_entry(a) for a in compare.get("algorithms", []))],
            ["mixtures", ", ".join(_describe_entry(m) for m in compare.get("mixtures", []))],
            ["baseline", _describe_entry(compare.get("baseline"))],
            ["reference runs added", "yes" if compare.get("reference", True) else "no"],
        ]
        parts.append(html_table(["", ""], rows, "Compared", name="compare"))
    parts.append(
        paragraph(
            "Assumptions: those of the base scenario (at the end of this report) and its stack "
            "profile; the runs differ only in the parameters above.",
            "note",
        )
    )
    return "".join(parts)


def _describe_entry(entry: Any) -> str:
    if isinstance(entry, Mapping):
        return json.dumps(dict(entry), sort_keys=True)
    return str(entry)


def _sweep_summary_table(runs: pd.DataFrame, columns: Sequence[str]) -> str:
    # The summary numbers some finished run has (no transfer times in a sweep of bulk flows).
    done = runs[runs["status"] == "done"]
    metrics = [m for m in SWEEP_METRICS if m[0] in runs and done[m[0]].notna().any()]
    if not metrics:
        return paragraph("Summary: no finished run yet.", "note")
    summary = summarise_runs(runs, columns, [m[0] for m in metrics])
    keys = [c for c in columns if c != "seed"]
    # One unit per column, from the magnitude of its means: goodput in Mb/s, loss in %.
    units = {
        column: unit_of(kind, summary.loc[summary["metric"] == column, "mean"])
        for column, _, kind in metrics
    }
    header = [
        *keys,
        "n / points",
        *(f"{label}{f' ({units[c][0]})' if units[c][0] else ''}" for c, label, _ in metrics),
    ]
    groups = list(summary.groupby(keys, sort=False, dropna=False)) if keys else [((), summary)]
    rows = []
    for key, group in groups:
        values = key if isinstance(key, tuple) else (key,)
        by_metric = group.set_index("metric")
        cells = [
            format_mean_ci(
                float(by_metric.loc[c, "mean"]), float(by_metric.loc[c, "half_width"]), units[c][1]
            )
            for c, _, _ in metrics
        ]
        n = int(by_metric["n"].max())
        rows.append(
            [*(str(v) for v in values), f"{n} / {int(by_metric['points'].iloc[0])}", *cells]
        )
    return html_table(
        header,
        rows,
        "Mean ± 95% CI over the runs of each parameter combination (the seeds pooled)",
        name="summary",
        right=header[len(keys) :],
        note="± the half-width of the 95% confidence interval of the mean (Student's t with n - 1 "
        "degrees of freedom, n the finished runs); n/a where n = 1 (undefined); - where no run "
        "has a value. Goodput is summed over a run's flows, the utilisation is its busiest "
        "link's, the loss rate its data drops over packets sent.",
    )


def _sweep_figures(
    store: Any, runs: pd.DataFrame, columns: Sequence[str]
) -> tuple[list[tuple[str, bytes]], list[str]]:
    done = runs[runs["status"] == "done"]
    if done.empty:
        return [], ["No finished run yet: no figures."]
    figures: list[tuple[str, bytes]] = []
    notes = []
    if plots.numeric_axes(done, columns):
        for y in ("goodput_bps", "jain", "utilization", "loss_rate"):
            try:
                drawn = plots.sweep_figures(store, y=[y], cdf=False)
            except ValueError as error:
                notes.append(f"{y}: not drawn ({error})")
                continue
            figures += [(name, png_of(figure)) for name, figure in drawn.items()]
    else:
        notes.append("No numeric sweep parameter takes more than one value: no metric figures.")
    for name, figure in plots.sweep_figures(store, metric=False).items():
        figures.append((name, png_of(figure)))
    return figures, notes
