"""Reports: one self-contained HTML file for a run, a sweep or a study directory.

``ccsim report DIR`` (:func:`write_report`) writes ``DIR/report.html``. Results come first: a
summary, then the tables (means with their 95% confidence intervals over replicates, by Student's
t; a study's comparison with the published values and its verdicts) and every figure as a PNG
embedded in the page (base64); then the setup and assumptions, the stack profile, the command
that reproduces the results and the ccsim version; the full scenario last, folded. Numbers carry
their units (``21.1 Mb/s``, ``0.0087 %``, ``60.3 ms``: :mod:`~ccsim.report.numbers`), wide tables
scroll in their own box, long ones are folded after their first rows (a run's links the busiest
first), and the page names no absolute local path (paths are relative to the report). The file
refers to nothing outside itself (no scripts, style sheets, images or links to files), so it can
be mailed, archived, published or opened anywhere.

What each kind of directory gives:

* a **run** (``ccsim run``): its headline numbers (total goodput, fairness, bottleneck
  utilisation, loss rate, ...), the flows and links tables, the figures of ``ccsim plot`` (time
  series when traced, goodput per flow, its CDF), the run's facts, the profile's knobs and the
  scenario (its ``scenario.toml``);
* a **sweep** (``ccsim sweep``): the summary per parameter combination (mean +- 95% CI over
  seeds, n), failures, the runs table (folded), the figures of ``ccsim plot`` on a sweep, then
  the sweep (axes, seeds, compared algorithms), the knobs of its runs and the base scenario;
* a **study** (``ccsim study``): the verdicts, the comparison table (ours with its 95% CI and n
  next to the published value), each claim's checks, the notes and every figure the study wrote,
  then its setup, warm-up, assumptions and settings and the knobs of each of its sweeps.

:func:`results_html` and :func:`study_report_html` render a :class:`ccsim.Results` and a
:class:`ccsim.studies.StudyReport` the same way for Jupyter: importing this module registers them
in :mod:`ccsim.display`, where the objects' ``_repr_html_`` finds them.

This module holds the entry points; the pages are built by :mod:`~ccsim.report.markup` (the HTML
pieces every report shares: page, sections, tables, figures, stack profiles),
:mod:`~ccsim.report.numbers` (numbers with their units),
:mod:`~ccsim.report.run_report`, :mod:`~ccsim.report.sweep_report` and
:mod:`~ccsim.report.study_report`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from ccsim import display
from ccsim.errors import ScenarioError
from ccsim.explore import directory_kind, query_error
from ccsim.report.markup import escape, frame_table, html_fragment, html_page, stack_of, stack_table
from ccsim.report.run_report import run_body, run_facts
from ccsim.report.study_report import study_body, study_from_directory, study_from_report
from ccsim.report.sweep_report import sweep_body
from ccsim.results import Results
from ccsim.studies.core import STUDY_METADATA, StudyReport

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
#: Rows of the flows and links tables shown in Jupyter.
NOTEBOOK_ROWS = 20

Kind = Literal["run", "sweep", "study"]


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


def report_html(
    directory: str | os.PathLike[str], location: str | os.PathLike[str] | None = None
) -> str:
    """The whole report of a run, sweep or study directory, as one HTML page, to be saved in the
    directory ``location`` (default: ``directory``): the paths it names are relative to it."""
    import duckdb  # imported only to read a sweep's store

    path = Path(directory)
    where = path if location is None else Path(location)
    kind = report_kind(path)
    try:
        if kind == "study":
            title, body = study_body(study_from_directory(path), location=where)
        elif kind == "sweep":
            title, body = sweep_body(path, location=where)
        else:
            title, body = run_body(path, location=where)
    except duckdb.Error as error:
        # The catalogue's views could not read a run's Parquet file (truncated, damaged): DuckDB
        # names the file in the first line.
        raise ScenarioError(f"{path}: cannot read the runs' tables: {query_error(error)}") from None
    return html_page(title, body)


def write_report(
    directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None
) -> Path:
    """Write the report of ``directory`` to ``out`` (default ``DIRECTORY/report.html``); returns
    the file. It is written whole or not at all (a temporary file renamed into place)."""
    target = Path(out) if out is not None else Path(directory) / REPORT_FILE
    if target.is_dir():
        raise ScenarioError(f"{target}: is a directory; expected the HTML file to write")
    page = report_html(directory, location=target.parent)
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
    parts = [f"<h3>Run {escape(results.scenario.name)}</h3>", run_facts(results.scenario, summary)]
    parts.append(stack_table({"": stack_of(summary)}, caption="Stack profile"))
    parts.append(frame_table(results.flows, "Flows", NOTEBOOK_ROWS))
    parts.append(frame_table(results.links, "Links", NOTEBOOK_ROWS))
    return html_fragment("".join(parts))


def study_report_html(report: StudyReport) -> str:
    """A study's setup, comparison table (mean, 95% CI, n), verdicts, notes and figures as HTML:
    what a :class:`ccsim.studies.StudyReport` shows in Jupyter."""
    # Paths relative to where the notebook runs.
    _, body = study_body(study_from_report(report), headings=3, location=Path.cwd())
    return html_fragment(body)


# Results and study reports are drawn in Jupyter by this module, which sits above both of them: it
# registers itself where their ``_repr_html_`` looks (ccsim.display) instead of being imported by
# them.
display.register_html(Results, results_html)
display.register_html(StudyReport, study_report_html)
