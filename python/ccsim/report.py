"""Reports: one self-contained HTML file for a run, a sweep or a study directory.

``ccsim report DIR`` (:func:`write_report`) writes ``DIR/report.html``: the setup and the
assumptions, the stack profile, the tables (means with their 95% confidence intervals over
replicates, by Student's t; a study's comparison with the published values and its verdicts),
every figure as a PNG embedded in the page (base64), the command that reproduces the results and
the ccsim version. The file refers to nothing outside itself (no scripts, style sheets, images or
links to files), so it can be mailed, archived or opened anywhere.

What each kind of directory gives:

* a **run** (``ccsim run``): the scenario (its ``scenario.toml``), the profile's knobs, the
  flows and links tables, and the figures of ``ccsim plot`` (time series when traced, goodput per
  flow, its CDF);
* a **sweep** (``ccsim sweep``): the sweep (axes, seeds, compared algorithms, base scenario),
  the knobs of its runs, the summary per parameter combination (mean +- 95% CI over seeds, n),
  the runs table, failures, and the figures of ``ccsim plot`` on a sweep;
* a **study** (``ccsim study``): its setup, warm-up, assumptions and settings, the knobs of each
  of its sweeps, the comparison table (ours with its 95% CI and n next to the published value),
  the verdicts with their checks, the notes, and every figure the study wrote.

:func:`results_html` and :func:`study_report_html` render a :class:`ccsim.Results` and a
:class:`ccsim.studies.StudyReport` the same way for Jupyter: importing this module registers them
in :mod:`ccsim.display`, where the objects' ``_repr_html_`` finds them.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd
import tomli_w

from ccsim import display, plots, studies
from ccsim.errors import ScenarioError
from ccsim.explore import directory_kind, query_error, read_manifest
from ccsim.results import Results
from ccsim.runner import version as ccsim_version
from ccsim.store import Store
from ccsim.studies.core import (
    CI_LEVEL,
    MIN_REPLICATES,
    SHOWN_COLUMNS,
    STUDY_METADATA,
    VERDICTS,
    Settings,
    StudyReport,
    shown_rows,
    study_command,
    with_intervals,
)
from ccsim.sweeps import recorded_command, summarise_runs
from ccsim.units import format_setting

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "REPORT_FILE",
    "report_html",
    "report_kind",
    "results_html",
    "study_report_html",
    "write_report",
]

#: The report's file name in the directory it describes (unless told otherwise).
REPORT_FILE = "report.html"
#: Longer tables are cut to this many rows in a report (the rest is in the directory's files).
MAX_TABLE_ROWS = 500
#: Rows of the flows and links tables shown in Jupyter.
NOTEBOOK_ROWS = 20
#: The summary numbers of a sweep's runs shown in its report: (column, header, scale, format).
SWEEP_METRICS = (
    ("goodput_bps", "goodput Mb/s", 1e-6, "{:.3g}"),
    ("jain", "Jain", 1.0, "{:.3f}"),
    ("utilization", "utilization %", 100.0, "{:.1f}"),
    ("loss_rate", "loss %", 100.0, "{:.3g}"),
    ("timeouts", "timeouts", 1.0, "{:.3g}"),
    ("mean_completion_s", "mean transfer s", 1.0, "{:.3g}"),
)

Kind = Literal["run", "sweep", "study"]

_STYLE = """
.ccsim-report { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b;
  max-width: 72rem; margin: 0 auto; padding: 0 1rem 2rem; line-height: 1.45; }
.ccsim-report h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
.ccsim-report h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; margin-top: 2rem; }
.ccsim-report h3 { font-size: 1.05rem; margin-bottom: 0.3rem; }
.ccsim-report .meta { color: #555; margin-top: 0; }
.ccsim-report pre { background: #f5f5f5; padding: 0.6rem; overflow-x: auto; font-size: 0.85rem; }
.ccsim-report table.data { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.85rem; }
.ccsim-report table.data caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
.ccsim-report table.data th, .ccsim-report table.data td { border: 1px solid #d0d0d0;
  padding: 0.2rem 0.5rem; vertical-align: top; }
.ccsim-report table.data th { background: #eef1f5; }
.ccsim-report td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.ccsim-report .note { color: #555; font-size: 0.85rem; }
.ccsim-report figure { margin: 1rem 0; }
.ccsim-report figure img { max-width: 100%; border: 1px solid #e0e0e0; }
.ccsim-report figcaption { color: #555; font-size: 0.85rem; }
.ccsim-report .reproduced { color: #1a7f37; font-weight: 600; }
.ccsim-report .partly { color: #9a6700; font-weight: 600; }
.ccsim-report .not-reproduced { color: #cf222e; font-weight: 600; }
.ccsim-report .reversed { color: #8250df; font-weight: 600; }
.ccsim-report .not-run, .ccsim-report .not-run-in---quick { color: #6e7781; font-weight: 600; }
.ccsim-report .inconclusive { color: #0969da; font-weight: 600; }
"""


# ---- entry points --------------------------------------------------------------------------------


def report_kind(directory: str | os.PathLike[str]) -> Kind:
    """``"study"``, ``"sweep"`` or ``"run"``: what ``directory`` holds.

    A study directory has ``study.json`` (or, written before it, ``<ID>-verdicts.csv`` and its
    ``sweeps/``); a sweep directory its manifest; a results directory ``summary.json``. Anything
    else raises :class:`ScenarioError`.
    """
    path = Path(directory)
    if (path / STUDY_METADATA).is_file() or (
        (path / "sweeps").is_dir() and any(path.glob("*-verdicts.csv"))
    ):
        return "study"
    try:
        kind = directory_kind(path)
    except ScenarioError:
        raise ScenarioError(
            f"{path}: not a results, sweep or study directory (no summary.json, sweep.json or "
            "study.json)"
        ) from None
    return "sweep" if kind == "sweep" else "run"


def report_html(directory: str | os.PathLike[str]) -> str:
    """The whole report of a run, sweep or study directory, as one HTML page."""
    import duckdb  # imported only to read a sweep's store

    path = Path(directory)
    kind = report_kind(path)
    try:
        if kind == "study":
            title, body = _study_body(_study_from_directory(path))
        elif kind == "sweep":
            title, body = _sweep_body(path)
        else:
            title, body = _run_body(path)
    except duckdb.Error as error:
        # The catalogue's views could not read a run's Parquet file (truncated, damaged): DuckDB
        # names the file in the first line.
        raise ScenarioError(f"{path}: cannot read the runs' tables: {query_error(error)}") from None
    return _page(title, body)


def write_report(
    directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None
) -> Path:
    """Write the report of ``directory`` to ``out`` (default ``DIRECTORY/report.html``); returns
    the file. It is written whole or not at all (a temporary file renamed into place)."""
    page = report_html(directory)
    target = Path(out) if out is not None else Path(directory) / REPORT_FILE
    if target.is_dir():
        raise ScenarioError(f"{target}: is a directory; expected the HTML file to write")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(page, encoding="utf-8")
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return target


def results_html(results: Results) -> str:
    """One run's summary, stack profile, flows and links (their first rows) as HTML: what
    :class:`ccsim.Results` shows in Jupyter."""
    summary = results.summary
    parts = [f"<h3>Run {_e(results.scenario.name)}</h3>", _run_facts(results.scenario, summary)]
    parts.append(_stack_table({"": _stack_of(summary)}, caption="Stack profile"))
    parts.append(_frame_table(results.flows, "Flows", NOTEBOOK_ROWS))
    parts.append(_frame_table(results.links, "Links", NOTEBOOK_ROWS))
    return _fragment("".join(parts))


def study_report_html(report: StudyReport) -> str:
    """A study's setup, comparison table (mean, 95% CI, n), verdicts, notes and figures as HTML:
    what a :class:`ccsim.studies.StudyReport` shows in Jupyter."""
    _, body = _study_body(_study_from_report(report), headings=3)
    return _fragment(body)


# Results and study reports are drawn in Jupyter by this module, which sits above both of them: it
# registers itself where their ``_repr_html_`` looks (ccsim.display) instead of being imported by
# them.
display.register_html(Results, results_html)
display.register_html(StudyReport, study_report_html)


# ---- HTML pieces -----------------------------------------------------------------------------------


def _e(text: Any) -> str:
    """Text content, escaped (quotes stay as they are: TOML reads as written)."""
    return html.escape(str(text), quote=False)


def _attr(text: Any) -> str:
    """An attribute value, escaped for a double-quoted attribute."""
    return html.escape(str(text), quote=True)


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f'<div class="ccsim-report">\n{body}\n</div>\n</body>\n</html>\n'
    )


def _fragment(body: str) -> str:
    return f'<div class="ccsim-report"><style>{_STYLE}</style>{body}</div>'


def _section(title: str, content: str, anchor: str, level: int = 2) -> str:
    return f'<section id="{anchor}">\n<h{level}>{_e(title)}</h{level}>\n{content}\n</section>\n'


def _paragraph(text: str, css: str | None = None) -> str:
    klass = f' class="{css}"' if css else ""
    return f"<p{klass}>{_e(text)}</p>\n"


def _pre(text: str) -> str:
    return f"<pre>{_e(text)}</pre>\n"


def _list(items: Iterable[str]) -> str:
    entries = "".join(f"<li>{_e(item)}</li>" for item in items)
    return f"<ul>{entries}</ul>\n" if entries else ""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _missing(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


def _cell(value: Any) -> str:
    """A table cell's text: ``-`` for missing values, 6 significant digits for floats."""
    if _missing(value):
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _table(
    header: Sequence[str],
    rows: Sequence[Sequence[Any]],
    caption: str | None = None,
    name: str | None = None,
    note: str | None = None,
    right: Iterable[str] = (),
) -> str:
    """An HTML table. Numbers, and every cell of the columns named in ``right``, are
    right-aligned; ``name`` is its ``data-table`` attribute, ``note`` a line under it."""
    aligned = {i for i, h in enumerate(header) if h in set(right)}
    label = f' data-table="{_attr(name)}"' if name else ""
    parts = [f'<table class="data"{label}>']
    if caption:
        parts.append(f"<caption>{_e(caption)}</caption>")
    parts.append("<thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr></thead>")
    parts.append("<tbody>")
    for row in rows:
        cells = []
        for column, value in enumerate(row):
            numeric = _is_number(value) or column in aligned
            text = value if isinstance(value, str) else _cell(value)
            cells.append(f'<td class="num">{_e(text)}</td>' if numeric else f"<td>{_e(text)}</td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    if note:
        parts.append(_paragraph(note, "note"))
    return "".join(parts) + "\n"


def _frame_table(frame: pd.DataFrame, caption: str, max_rows: int = MAX_TABLE_ROWS) -> str:
    """A DataFrame as an HTML table of at most ``max_rows`` rows (the caption says so)."""
    if frame.empty:
        return _paragraph(f"{caption}: no rows.", "note")
    shown = frame.head(max_rows)
    rows = [[_native(v) for v in row] for row in shown.itertuples(index=False)]
    note = None
    if len(frame) > max_rows:
        note = (
            f"The first {max_rows} of {len(frame)} rows; all of them are in the directory's files."
        )
    return _table([str(c) for c in frame.columns], rows, caption, name=caption, note=note)


def _native(value: Any) -> Any:
    """numpy scalars as Python numbers (so they format as numbers)."""
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, str):
        try:
            return item()
        except (ValueError, TypeError):
            return value
    return value


def _png_of(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def _image(name: str, png: bytes, caption: str | None = None) -> str:
    data = base64.b64encode(png).decode("ascii")
    text = caption or name
    return (
        f'<figure data-figure="{_attr(name)}"><img alt="{_attr(text)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{_e(text)}</figcaption></figure>\n'
    )


def _figures_section(figures: Sequence[tuple[str, bytes]], notes: Sequence[str] = ()) -> str:
    content = "".join(_image(name, png) for name, png in figures)
    if not figures:
        content += _paragraph("No figures.", "note")
    content += "".join(_paragraph(note, "note") for note in notes)
    return _section(f"Figures ({len(figures)})", content, "figures")


def _reproduce_section(
    command: str | None, cwd: str | None, *, note: str | None = None, extra: str = ""
) -> str:
    if command:
        content = _pre(command)
        if cwd:
            content += _paragraph(f"Run in {cwd}.", "note")
    else:
        content = _paragraph("The command that made this directory was not recorded.", "note")
    if note:
        content += _paragraph(note, "note")
    return _section("Reproduce", content + extra, "reproduce")


def _version_line(made_with: str | None) -> str:
    made = f"Results made with ccsim {made_with}" if made_with else "ccsim version not recorded"
    return f"{made}; report written by ccsim {ccsim_version()}."


# ---- stack profiles --------------------------------------------------------------------------------


def _stack_of(summary: Mapping[str, Any]) -> dict[str, Any]:
    stack = dict(summary.get("stack") or {})
    stack.setdefault("profile", summary.get("profile"))
    return stack


def _stack_table(stacks: Mapping[str, Mapping[str, Any]], caption: str) -> str:
    """The knobs of one or more stacks: a column per stack (one ``value`` column if they agree)."""
    distinct: dict[str, Mapping[str, Any]] = {}
    for name, stack in stacks.items():
        if stack and stack not in distinct.values():
            distinct[name] = stack
    if not distinct:
        return _paragraph("No finished run records its stack settings yet.", "note")
    names = list(distinct)
    keys = list(dict.fromkeys(k for stack in distinct.values() for k in stack))
    keys.sort(key=lambda k: (k != "profile", k))
    rows = [
        [key.removesuffix("_ns"), *(format_setting(key, distinct[n].get(key)) for n in names)]
        for key in keys
    ]
    header = ["knob", *(n or "value" for n in names)] if len(names) > 1 else ["knob", "value"]
    note = None
    if len(stacks) > 1 and len(names) == 1:
        note = "Every run has these settings."
    return _table(header, rows, caption, name="stack", note=note)


def _run_stacks(run_dirs: Iterable[Path]) -> dict[str, dict[str, Any]]:
    """The stack settings recorded in each run directory's summary.json, by directory name."""
    stacks = {}
    for run_dir in run_dirs:
        try:
            summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        stacks[run_dir.name] = _stack_of(summary)
    return stacks


# ---- a run -----------------------------------------------------------------------------------------


def _run_facts(scenario: Any, summary: Mapping[str, Any]) -> str:
    rows = [
        ["scenario", scenario.describe()],
        ["seed", summary.get("seed")],
        ["simulated (s)", summary.get("duration_s")],
        ["ended at (s)", summary.get("sim_end_s")],
        ["events", summary.get("events")],
        ["packet hops", summary.get("packet_hops")],
        ["wall time (s)", summary.get("wall_s")],
        ["events per second", summary.get("events_per_s")],
    ]
    return _table(["", ""], [r for r in rows if not _missing(r[1])], "Run", name="run")


def _run_body(directory: Path) -> tuple[str, str]:
    results = Results.load(directory)
    summary = results.summary
    name = results.scenario.name
    title = f"ccsim run {name}"
    parts = [
        f"<h1>{_e(title)}</h1>",
        _paragraph(_version_line(summary.get("ccsim_version")), "meta"),
    ]
    scenario_file = directory / "scenario.toml"
    again = shlex.join(["ccsim", "run", str(scenario_file), "--out", str(directory)])
    parts.append(
        _reproduce_section(
            summary.get("command"),
            summary.get("cwd"),
            note="scenario.toml holds the scenario with every default filled in, so this also "
            f"repeats the run exactly: {again}",
        )
    )
    setup = _run_facts(results.scenario, summary)
    setup += _paragraph(
        "Assumptions: those of the scenario below and of its stack profile (the knobs in the "
        "next section); a single run, so no confidence intervals.",
        "note",
    )
    setup += "<h3>scenario.toml</h3>" + _pre(results.scenario.to_toml())
    parts.append(_section("Setup", setup, "setup"))
    parts.append(
        _section(
            "Stack profile",
            _stack_table({"": _stack_of(summary)}, caption=f"Profile {summary.get('profile')}"),
            "stack",
        )
    )
    tables = _frame_table(results.flows, "Flows") + _frame_table(results.links, "Links")
    parts.append(_section("Tables", tables, "tables"))
    figures = [(kind, _png_of(figure)) for kind, figure in plots.run_figures(results).items()]
    parts.append(_figures_section(figures))
    return title, "".join(parts)


# ---- a sweep ---------------------------------------------------------------------------------------


def _sweep_body(directory: Path) -> tuple[str, str]:
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
    parts = [f"<h1>{_e(title)}</h1>", _paragraph(_version_line(version), "meta")]
    note = None
    if not recorded:
        note = (
            "Written from Python or by an earlier ccsim: run the sweep again with `ccsim sweep "
            "FILE --out DIR`; sweep.json holds the whole sweep, its base scenario inline."
        )
    parts.append(_reproduce_section(recorded.get("command"), recorded.get("cwd"), note=note))
    parts.append(_section("Setup", _sweep_setup(sweep, runs), "setup"))
    stacks = _run_stacks(store.run_dir(r) for r in done["run_id"].drop_duplicates())
    parts.append(_section("Stack profile", _stack_table(stacks, "Stack settings"), "stack"))
    tables = _sweep_summary_table(runs, columns)
    shown = [c for c in runs.columns if c not in ("reference_run",)]
    tables += _frame_table(runs[shown], "Runs")
    failures = store.failures()
    if failures:
        rows = [
            [run_id, "; ".join(f.get("points", [])), f.get("error")]
            for run_id, f in failures.items()
        ]
        tables += _table(["run", "points", "error"], rows, "Failed runs", name="failures")
    parts.append(_section("Tables", tables, "tables"))
    figures, notes = _sweep_figures(store, runs, columns)
    parts.append(_figures_section(figures, notes))
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
        _paragraph(
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
        parts.append(_table(["column", "scenario key", "values"], rows, "Axes", name="axes"))
    if sweep.get("set"):
        rows = [[key, str(value)] for key, value in sweep["set"].items()]
        parts.append(_table(["key", "value"], rows, "Set on every run", name="set"))
    compare = sweep.get("compare")
    if compare:
        rows = [
            ["algorithms", ", ".join(_describe_entry(a) for a in compare.get("algorithms", []))],
            ["mixtures", ", ".join(_describe_entry(m) for m in compare.get("mixtures", []))],
            ["baseline", _describe_entry(compare.get("baseline"))],
            ["reference runs added", "yes" if compare.get("reference", True) else "no"],
        ]
        parts.append(_table(["", ""], rows, "Compared", name="compare"))
    base = sweep.get("scenario") or {}
    parts.append("<h3>Base scenario</h3>" + _pre(tomli_w.dumps(base)))
    parts.append(
        _paragraph(
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
        return _paragraph("Summary: no finished run yet.", "note")
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
    return _table(
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
            figures += [(name, _png_of(figure)) for name, figure in drawn.items()]
    else:
        notes.append("No numeric sweep parameter takes more than one value: no metric figures.")
    for name, figure in plots.sweep_figures(store, metric=False).items():
        figures.append((name, _png_of(figure)))
    return figures, notes


# ---- a study ---------------------------------------------------------------------------------------


@dataclass
class _StudyData:
    """Everything a study's report shows, from its directory or from a StudyReport."""

    id: str
    title: str
    source: str = ""
    setup: str = ""
    warmup: str | None = None
    assumptions: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    command: str | None = None
    cwd: str | None = None
    command_note: str | None = None
    version: str | None = None
    runs: int | None = None
    #: Seeds per point in the end (the study adds replicates while a check is inconclusive).
    replicates: int | None = None
    max_replicates: int | None = None
    notes: list[str] = field(default_factory=list)
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    figures: list[tuple[str, bytes]] = field(default_factory=list)
    stacks: dict[str, dict[str, Any]] = field(default_factory=dict)


def _study_figures(directory: Path, study_id: str) -> list[tuple[str, bytes]]:
    """Every PNG the study wrote in its directory, its main figure first."""
    paths = sorted(directory.glob("*.png"), key=lambda p: (p.name != f"{study_id}.png", p.name))
    return [(p.name, p.read_bytes()) for p in paths]


def _study_stacks(directory: Path) -> dict[str, dict[str, Any]]:
    """The stack settings of the first finished run of each of the study's sweeps."""
    stacks: dict[str, dict[str, Any]] = {}
    for sweep_dir in sorted((directory / "sweeps").glob("*")):
        runs = sorted(p.parent for p in sweep_dir.glob("runs/*/summary.json"))
        found = _run_stacks(runs[:1])
        if found:
            stacks[sweep_dir.name] = next(iter(found.values()))
    return stacks


def _study_from_directory(directory: Path) -> _StudyData:
    meta_path = directory / STUDY_METADATA
    meta: dict[str, Any] = {}
    if meta_path.is_file():
        meta = _study_metadata(meta_path)
        study_id = str(meta["study"])
    else:
        verdict_files = sorted(directory.glob("*-verdicts.csv"))
        study_id = verdict_files[0].name.removesuffix("-verdicts.csv")
    table_path = directory / f"{study_id}.csv"
    table = with_intervals(_read_csv(table_path)) if table_path.is_file() else pd.DataFrame()
    data = _StudyData(id=study_id, title=str(meta.get("title", study_id)), table=table)
    data.figures = _study_figures(directory, study_id)
    data.stacks = _study_stacks(directory)
    if meta:
        data.source, data.setup = meta.get("source", ""), meta.get("setup", "")
        data.warmup = meta.get("warmup")
        data.assumptions = list(meta.get("assumptions", []))
        data.settings = dict(meta.get("settings", {}))
        data.command, data.cwd = meta.get("command"), meta.get("cwd")
        data.version, data.runs = meta.get("ccsim_version"), meta.get("runs")
        data.replicates, data.max_replicates = meta.get("replicates"), meta.get("max_replicates")
        data.notes = list(meta.get("notes", []))
        data.verdicts = list(meta.get("verdicts", []))
        return data
    _fill_from_registry(data, directory)
    return data


def _study_metadata(path: Path) -> dict[str, Any]:
    """A study directory's study.json; a damaged one raises :class:`ScenarioError` naming it."""
    again = "run the study again (the same command) to rewrite it"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:  # UnicodeDecodeError included
        reason = str(error).splitlines()[0] if str(error) else "invalid"
        raise ScenarioError(
            f"{path}: not valid JSON ({reason}; truncated or damaged); expected the study.json "
            f"ccsim study writes: {again}"
        ) from None
    if not isinstance(meta, dict) or not isinstance(meta.get("study"), str):
        raise ScenarioError(
            f'{path}: no "study" name; expected the study.json ccsim study writes: {again}'
        )
    return meta


def _read_csv(path: Path) -> pd.DataFrame:
    """A table a study wrote; a damaged one raises :class:`ScenarioError` naming it."""
    try:
        return pd.read_csv(path)
    except ValueError as error:  # pandas' EmptyDataError and ParserError among them
        reason = str(error).strip().splitlines()[0] if str(error).strip() else "unreadable"
        raise ScenarioError(
            f"{path}: not a readable CSV table ({reason}); expected the table ccsim study "
            "writes: run the study again (the same command) to rewrite it"
        ) from None


def _fill_from_registry(data: _StudyData, directory: Path) -> None:
    """A study directory written before study.json: the definition from the registry, the
    verdicts from the CSV, and the command rebuilt from the settings the CSV records."""
    verdicts = _read_csv(directory / f"{data.id}-verdicts.csv")
    data.verdicts = [
        {
            "claim": row["claim"],
            "criterion": row["criterion"],
            "verdict": row["verdict"],
            "checks": [{"text": str(row["checks"]), "outcome": ""}],
        }
        for _, row in verdicts.iterrows()
    ]
    try:
        study = studies.get(data.id)
    except ScenarioError:
        return
    data.title, data.source, data.setup = study.title, study.source, study.setup
    data.warmup, data.assumptions = study.warmup, list(study.assumptions)
    if len(verdicts):
        settings = Settings(
            quick=bool(verdicts["quick"].iloc[0]), profile=str(verdicts["profile"].iloc[0])
        )
        data.settings = {"quick": settings.quick, "profile": settings.profile}
        data.command = study_command(study, settings, directory)
        data.command_note = (
            "Rebuilt from the profile and mode in the verdicts file: this directory was written "
            "before ccsim recorded the command (the number of seeds, if it was set, is unknown)."
        )


def _seeds_per_point(data: _StudyData) -> str:
    """What the setup table says of the replicates: set by hand, or the study's own count
    and how far it went toward its cap."""
    settings = data.settings
    if settings.get("replicates"):
        return f"{settings['replicates']} (set by hand)"
    if data.replicates is None:
        return "the study's own number"
    cap = f", cap {data.max_replicates}" if data.max_replicates else ""
    return f"{data.replicates} (the study's own, more while a check is inconclusive{cap})"


def _study_from_report(report: StudyReport) -> _StudyData:
    study, settings = report.study, report.settings
    return _StudyData(
        id=study.id,
        title=study.title,
        source=study.source,
        setup=study.setup,
        warmup=study.warmup,
        assumptions=list(study.assumptions),
        settings={
            "quick": settings.quick,
            "profile": settings.profile,
            "replicates": settings.replicates,
            "first_seed": settings.first_seed,
        },
        command=study_command(study, settings, report.directory),
        version=ccsim_version(),
        runs=report.runs,
        replicates=report.replicates,
        max_replicates=study.max_replicates,
        notes=list(report.notes),
        table=report.table,
        verdicts=[
            {
                "claim": v.claim,
                "criterion": v.criterion,
                "verdict": v.verdict,
                "checks": [{"text": c.text, "outcome": c.outcome} for c in v.checks],
            }
            for v in report.verdicts
        ],
        figures=[(p.name, p.read_bytes()) for p in report.files if p.suffix == ".png"],
        stacks=_study_stacks(report.directory),
    )


def _study_body(data: _StudyData, headings: int = 2) -> tuple[str, str]:
    title = f"ccsim study {data.id}: {data.title}"
    top = "h1" if headings == 2 else "h3"
    parts = [f"<{top}>{_e(title)}</{top}>", _paragraph(_version_line(data.version), "meta")]
    parts.append(_reproduce_section(data.command, data.cwd, note=data.command_note))
    settings = data.settings
    mode = "quick (fewer points and seeds, shorter runs)" if settings.get("quick") else "full"
    rows = [
        ["source", data.source],
        ["setup", data.setup],
        ["warm-up", data.warmup or "not stated"],
        ["mode", mode],
        ["stack profile", settings.get("profile", "-")],
        ["seeds per point", _seeds_per_point(data)],
        ["first seed", settings.get("first_seed", 1)],
    ]
    if data.runs is not None:
        rows.append(["distinct runs", data.runs])
    setup = _table(["", ""], rows, "Setup", name="setup")
    setup += "<h3>Assumptions</h3>" + (_list(data.assumptions) or _paragraph("None stated."))
    parts.append(_section("Setup and assumptions", setup, "setup", headings))
    stack = _stack_table(data.stacks, "Stack settings of each sweep's runs")
    parts.append(_section("Stack profile", stack, "stack", headings))
    tables = ""
    if not data.table.empty:
        header, cells = shown_rows(data.table)
        tables += _table(
            header,
            cells,
            f"{data.id}: ccsim vs published",
            name="comparison",
            right=SHOWN_COLUMNS[1:],
            note=f"ours: the mean over n runs; {CI_LEVEL:.0%} CI: the Student t confidence "
            "interval of that mean within the quantity's range (- with fewer than "
            f"{MIN_REPLICATES} runs, or for a value not taken over runs); published: the "
            "paper's value (- where it gives none).",
        )
    counts = {v: sum(r.get("verdict") == v for r in data.verdicts) for v in VERDICTS}
    summary = ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "none"
    if settings.get("quick"):
        summary = f"quick run (a first look, not results): {summary}"
    verdict_rows = [
        [r.get("verdict", ""), r.get("claim", ""), r.get("criterion", "")] for r in data.verdicts
    ]
    tables += _table(
        ["verdict", "claim", "criterion"], verdict_rows, f"Verdicts: {summary}", name="verdicts"
    )
    for index, result in enumerate(data.verdicts, 1):
        verdict = str(result.get("verdict", ""))
        css = verdict.replace(" ", "-")
        tables += (
            f"<h{headings + 1}>Claim {index}: {'quick verdict ' if settings.get('quick') else ''}"
            f'<span class="{_attr(css)}">{_e(verdict)}</span>'
            f"</h{headings + 1}>" + _paragraph(str(result.get("claim", "")))
        )
        checks = [[c.get("outcome", ""), c.get("text", "")] for c in result.get("checks", [])]
        tables += _table(["outcome", "check"], checks, name=f"checks-{index}")
    if data.notes:
        tables += f"<h{headings + 1}>Notes</h{headings + 1}>" + _list(data.notes)
    parts.append(_section("Results and verdicts", tables, "results", headings))
    parts.append(_figures_section(data.figures))
    return title, "".join(parts)
