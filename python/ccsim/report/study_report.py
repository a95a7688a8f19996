"""The report of a study directory, or of a study report in Jupyter: the verdicts, the comparison
with the published values, the checks and figures first; the setup and command after them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ccsim import studies
from ccsim.errors import ScenarioError
from ccsim.report.markup import (
    bullet_list,
    escape,
    escape_attribute,
    figures_section,
    html_table,
    is_missing,
    native,
    paragraph,
    reproduce_section,
    run_stacks,
    section,
    stack_table,
    version_line,
)
from ccsim.report.numbers import format_number
from ccsim.runner import version as ccsim_version
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
        found = run_stacks(runs[:1])
        if found:
            stacks[sweep_dir.name] = next(iter(found.values()))
    return stacks


def study_from_directory(directory: Path) -> _StudyData:
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


def study_from_report(report: StudyReport) -> _StudyData:
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


def comparison_rows(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """The comparison table's header and cells (:func:`~ccsim.studies.core.shown_rows`' columns)
    with the numbers in plain decimals: four significant digits, never ``8.711e-05``."""
    header, _ = shown_rows(table)
    keys = header[: len(header) - len(SHOWN_COLUMNS)]
    rows = []
    for _, row in table.iterrows():
        low, high = row.get("ci_low"), row.get("ci_high")
        interval = (
            "-"
            if is_missing(low) or is_missing(high)
            else f"[{format_number(native(low))}, {format_number(native(high))}]"
        )
        rows.append(
            [
                *(format_number(native(row[k])) for k in keys),
                format_number(native(row["metric"])),
                format_number(native(row["ours"])),
                interval,
                format_number(native(row["runs"])),
                format_number(native(row["published"])),
            ]
        )
    return header, rows


def study_body(
    data: _StudyData, headings: int = 2, location: Path | None = None
) -> tuple[str, str]:
    """The title and body of a study's report; the command's paths relative to ``location``
    (where the report is written; the working directory by default)."""
    location = Path.cwd() if location is None else location
    title = f"ccsim study {data.id}: {data.title}"
    top = "h1" if headings == 2 else "h3"
    sub = f"h{headings + 1}"
    settings = data.settings
    parts = [f"<{top}>{escape(title)}</{top}>"]
    if data.source:
        parts.append(paragraph(f"Reproducing {data.source}.", "meta"))
    parts.append(paragraph(version_line(data.version), "meta"))
    # Results first: the verdicts, then the numbers behind them.
    counts = {v: sum(r.get("verdict") == v for r in data.verdicts) for v in VERDICTS}
    verdict_counts = ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "none"
    if settings.get("quick"):
        verdict_counts = f"quick run (a first look, not results): {verdict_counts}"
    verdict_rows = [
        [r.get("verdict", ""), r.get("claim", ""), r.get("criterion", "")] for r in data.verdicts
    ]
    summary = html_table(
        ["verdict", "claim", "criterion"],
        verdict_rows,
        f"Verdicts: {verdict_counts}",
        name="verdicts",
    )
    parts.append(section("Summary", summary, "summary", headings))
    tables = ""
    if not data.table.empty:
        header, cells = comparison_rows(data.table)
        tables += html_table(
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
    for index, result in enumerate(data.verdicts, 1):
        verdict = str(result.get("verdict", ""))
        css = verdict.replace(" ", "-")
        tables += (
            f"<{sub}>Claim {index}: {'quick verdict ' if settings.get('quick') else ''}"
            f'<span class="{escape_attribute(css)}">{escape(verdict)}</span>'
            f"</{sub}>" + paragraph(str(result.get("claim", "")))
        )
        checks = [[c.get("outcome", ""), c.get("text", "")] for c in result.get("checks", [])]
        tables += html_table(["outcome", "check"], checks, name=f"checks-{index}")
    if data.notes:
        tables += f"<{sub}>Notes</{sub}>" + bullet_list(data.notes)
    parts.append(section("Results and checks", tables, "results", headings))
    parts.append(figures_section(data.figures, level=headings))
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
    setup = html_table(["", ""], rows, "Setup", name="setup")
    setup += f"<{sub}>Assumptions</{sub}>" + (
        bullet_list(data.assumptions) or paragraph("None stated.")
    )
    setup += stack_table(data.stacks, "Stack settings of each sweep's runs")
    parts.append(section("Setup and assumptions", setup, "setup", headings))
    parts.append(
        reproduce_section(
            data.command, data.cwd, location=location, note=data.command_note, level=headings
        )
    )
    return title, "".join(parts)
