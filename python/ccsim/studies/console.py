"""What a study prints on a console (a rich Console): the setup before it runs, then the
comparison table, the notes, the verdicts with their checks, the files written and the time
taken."""

from __future__ import annotations

import os
from typing import Any

from rich.markup import escape

from ccsim.cli.tables import print_table, text_table
from ccsim.scenario import Stack
from ccsim.studies.checks import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_RUN,
    NOT_RUN_QUICK,
    PARTLY,
    REPRODUCED,
    REVERSED,
    VERDICTS,
)
from ccsim.studies.evidence import CI_LEVEL, MIN_REPLICATES
from ccsim.studies.model import Settings, Study, StudyReport
from ccsim.studies.tables import SHOWN_COLUMNS, shown_rows

__all__ = ["VERDICT_COLOURS", "duration_text", "print_report", "print_setup", "timing_line"]


def print_setup(study: Study, settings: Settings, console: Any) -> None:
    """What is about to run: the study, the mode, the setup, the warm-up, the assumptions and the
    stack profile."""
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


def print_report(report: StudyReport, console: Any, *, wide: bool = False) -> None:
    """The comparison table, the notes, the verdicts with their checks, the files written and
    the time taken."""
    study = report.study
    header, rows = shown_rows(report.table)
    caption = (
        f"ours: mean of n runs; {CI_LEVEL:.0%} CI: Student's t within the quantity's range "
        f"(-: fewer than {MIN_REPLICATES} runs, no interval)"
    )
    # Fitted to the console as every ccsim table is: no value cut; what does not fit is left out
    # (the interval and n first) and named, and ID.csv holds it all. Only the metric's
    # description may wrap, at spaces, when leaving columns out is not enough.
    table = text_table(
        f"{study.id}: ccsim vs published ({study.source})",
        header,
        rows,
        right_aligned=SHOWN_COLUMNS[1:],
        optional=("published", "n", "95% CI"),
        prose=("metric",),
        notes=[caption],
        name=study.id,
    )
    print_table(console, table, wide=wide)
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
    return (
        f"{report.study.id}: {report.runs} runs ({report.reused} reused) in "
        f"{duration_text(report.elapsed_s)} on {workers} worker{'s' if workers != 1 else ''}"
    )


def duration_text(seconds: float) -> str:
    """A wall time as a person reads it: seconds under a minute ("4 s", "0.3 s"), minutes under
    an hour ("14.2 min"), hours above ("2.5 h")."""
    if seconds < 1:
        return f"{seconds:.1f} s"
    if seconds < 59.5:  # rounds to at most "59 s"; 59.5 s on reads "1.0 min"
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
