"""What a study leaves in its directory: the comparison table (``<ID>.csv``), every run's value
(``<ID>-runs.csv``), the verdicts (``<ID>-verdicts.csv``), the figure (``<ID>.png``) and
``study.json`` (the setup, the settings, the verdicts, the command that reproduces the study and
ccsim's version, which ``ccsim report`` reads); and where that directory is by default and the
command line that fills it.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ccsim.runner import version
from ccsim.studies.checks import FAILED, HELD, INCONCLUSIVE, REVERSED, ClaimResult
from ccsim.studies.evidence import CI_LEVEL, MIN_REPLICATES
from ccsim.studies.figures import study_figure
from ccsim.studies.model import Settings, Study, StudyReport
from ccsim.studies.tables import per_run

__all__ = [
    "STUDY_METADATA",
    "default_directory",
    "study_command",
    "write_metadata",
    "write_tables_and_figure",
]

#: What a study directory records of how it was made (read by ``ccsim report``).
STUDY_METADATA = "study.json"


def default_directory(study: Study, settings: Settings) -> Path:
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
    if out is not None and Path(out) != default_directory(study, settings):
        words += ["--out", str(out)]
    return shlex.join(words)


def write_tables_and_figure(
    study: Study,
    settings: Settings,
    table: pd.DataFrame,
    verdicts: Sequence[ClaimResult],
    directory: Path,
) -> list[Path]:
    """Write ``<ID>.csv``, ``<ID>-runs.csv``, ``<ID>.png`` and ``<ID>-verdicts.csv`` into
    ``directory``; returns their paths in that order."""
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

    figure = study_figure(study, settings, table)
    figure.savefig(png, dpi=110)
    plt.close(figure)
    return [csv, runs_csv, png, verdict_csv]


def write_metadata(report: StudyReport, out: str | os.PathLike[str] | None) -> Path:
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
