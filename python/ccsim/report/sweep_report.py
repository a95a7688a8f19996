"""The report of a sweep directory."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import tomli_w

from ccsim import plots
from ccsim.explore import read_manifest
from ccsim.report.markup import (
    escape,
    figures_section,
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
from ccsim.store import Store
from ccsim.sweeps import recorded_command, summarise_runs

if TYPE_CHECKING:
    pass


#: The summary numbers of a sweep's runs shown in its report: (column, header, scale, format).
SWEEP_METRICS = (
    ("goodput_bps", "goodput Mb/s", 1e-6, "{:.3g}"),
    ("jain", "Jain", 1.0, "{:.3f}"),
    ("utilization", "utilization %", 100.0, "{:.1f}"),
    ("loss_rate", "loss %", 100.0, "{:.3g}"),
    ("timeouts", "timeouts", 1.0, "{:.3g}"),
    ("mean_completion_s", "mean transfer s", 1.0, "{:.3g}"),
)


# ---- a sweep ---------------------------------------------------------------------------------------


def sweep_body(directory: Path) -> tuple[str, str]:
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
    note = None
    if not recorded:
        note = (
            "Written from Python or by an earlier ccsim: run the sweep again with `ccsim sweep "
            "FILE --out DIR`; sweep.json holds the whole sweep, its base scenario inline."
        )
    parts.append(reproduce_section(recorded.get("command"), recorded.get("cwd"), note=note))
    parts.append(section("Setup", _sweep_setup(sweep, runs), "setup"))
    stacks = run_stacks(store.run_dir(r) for r in done["run_id"].drop_duplicates())
    parts.append(section("Stack profile", stack_table(stacks, "Stack settings"), "stack"))
    tables = _sweep_summary_table(runs, columns)
    shown = [c for c in runs.columns if c not in ("reference_run",)]
    tables += frame_table(runs[shown], "Runs")
    failures = store.failures()
    if failures:
        rows = [
            [run_id, "; ".join(f.get("points", [])), f.get("error")]
            for run_id, f in failures.items()
        ]
        tables += html_table(["run", "points", "error"], rows, "Failed runs", name="failures")
    parts.append(section("Tables", tables, "tables"))
    figures, notes = _sweep_figures(store, runs, columns)
    parts.append(figures_section(figures, notes))
    return title, "".join(parts)


def _run_versions(store: Any, run_ids: Iterable[str]) -> list[Any]:
    versions = []
    for run_id in list(dict.fromkeys(run_ids))[:50]:
        try:
            summary = json.loads((store.run_dir(run_id) / "summary.json").read_text("utf-8"))
        except (OSError, ValueError):
            continue
        versions.append(summary.get("ccsim_version"))
    return versions


def _sweep_setup(sweep: Mapping[str, Any], runs: pd.DataFrame) -> str:
    status = runs["status"].value_counts()
    counts = ", ".join(
        f"{int(status[s])} {s}" for s in ("done", "failed", "damaged", "pending") if s in status
    )
    parts = [
        paragraph(
            f"{len(runs)} points, {runs['run_id'].nunique()} distinct runs ({counts}); seeds "
            f"{', '.join(map(str, sweep.get('seeds', [])))}: the replicates over which means and "
            "95% confidence intervals (Student's t) are taken."
        )
    ]
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
    base = sweep.get("scenario") or {}
    parts.append("<h3>Base scenario</h3>" + preformatted(tomli_w.dumps(base)))
    parts.append(
        paragraph(
            "Assumptions: those of the base scenario and its stack profile; the runs differ only "
            "in the parameters above.",
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
    header = [*keys, "n / points", *(f"{h} (mean ± 95% CI)" for _, h, _, _ in metrics)]
    groups = list(summary.groupby(keys, sort=False, dropna=False)) if keys else [((), summary)]
    rows = []
    for key, group in groups:
        values = key if isinstance(key, tuple) else (key,)
        by_metric = group.set_index("metric")
        cells = [_mean_pm(by_metric.loc[column], scale, fmt) for column, _, scale, fmt in metrics]
        n = int(by_metric["n"].max())
        rows.append(
            [*(str(v) for v in values), f"{n} / {int(by_metric['points'].iloc[0])}", *cells]
        )
    return html_table(
        header,
        rows,
        "Summary: mean over the runs of each parameter combination (the seeds pooled)",
        name="summary",
        right=header[len(keys) :],
        note="± the half-width of the 95% confidence interval of the mean (Student's t with n - 1 "
        "degrees of freedom, n the finished runs); n/a where n = 1 (undefined); - where no run "
        "has a value.",
    )


def _mean_pm(row: pd.Series, scale: float, fmt: str) -> str:
    mean, half = float(row["mean"]), float(row["half_width"])
    if math.isnan(mean):
        return "-"
    shown = "n/a" if math.isnan(half) else fmt.format(half * scale)
    return f"{fmt.format(mean * scale)} ± {shown}"


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
