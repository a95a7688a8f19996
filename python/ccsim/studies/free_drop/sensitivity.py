"""The sensitivity runs: F1, F2 and F3 again under each variant of the paper's unstated choices."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pandas as pd

from ccsim.studies.core import (
    Settings,
    Study,
    StudyReport,
    run_study,
)
from ccsim.studies.free_drop.common import SENSITIVITY, Variant
from ccsim.studies.free_drop.f1_response_curves import f1_study
from ccsim.studies.free_drop.f2_f3 import f2_study, f3_study

# ---- sensitivity ---------------------------------------------------------------------------------


def variant_study(study_id: str, variant: Variant) -> Study:
    """F1, F2 or F3 under ``variant`` (the same claims and criteria)."""
    make = {"F1": f1_study, "F2": f2_study, "F3": f3_study}[study_id]
    study = make(variant)
    return dataclasses.replace(
        study, assumptions=(*study.assumptions, f"sensitivity variant: {variant.description}")
    )


def sensitivity(
    *,
    quick: bool = False,
    workers: int | None = None,
    out: str | Path = Path("results") / "studies" / "seed001-sensitivity",
    variants: tuple[Variant, ...] = SENSITIVITY,
    max_replicates: int = 12,
    progress: bool = True,
) -> pd.DataFrame:
    """F1, F2 and F3 under every variant of :data:`SENSITIVITY` that applies to them, each a
    study in its own right (replicates added while a check is inconclusive, up to
    ``max_replicates``) into ``out/<ID>/<variant>`` (F2 into F1's directory: it reuses F1's
    runs). Returns, and writes to ``out/sensitivity.csv``, one row per study, variant and claim:
    the verdict and the outcomes of its checks; prints the verdicts as a table of claims against
    variants."""
    root = Path(out)
    rows: list[dict[str, Any]] = []
    for variant in variants:
        for study_id in ("F1", "F2", "F3"):
            if study_id not in variant.studies:
                continue
            study = variant_study(study_id, variant)
            cap = min(max_replicates, study.max_replicates or max_replicates)
            study = dataclasses.replace(study, max_replicates=cap)
            directory = root / ("F1" if study_id == "F2" else study_id) / variant.slug
            report = run_study(study, Settings(quick=quick), directory, workers=workers)
            rows += _sensitivity_rows(report, variant)
            if progress:
                done = ", ".join(f"{i + 1}: {v.verdict}" for i, v in enumerate(report.verdicts))
                print(f"{study_id} {variant.slug}: {done} ({report.replicates} seeds)", flush=True)
    table = pd.DataFrame(rows)
    root.mkdir(parents=True, exist_ok=True)
    table.to_csv(root / "sensitivity.csv", index=False)
    if progress:
        print(sensitivity_summary(table))
    return table


def _sensitivity_rows(report: StudyReport, variant: Variant) -> list[dict[str, Any]]:
    return [
        {
            "study": report.study.id,
            "variant": variant.slug,
            "claim": index + 1,
            "text": result.claim,
            "verdict": result.verdict,
            "checks": "; ".join(f"[{c.outcome}] {c.text}" for c in result.checks),
            "seeds": report.replicates,
        }
        for index, result in enumerate(report.verdicts)
    ]


def sensitivity_summary(table: pd.DataFrame) -> str:
    """The verdicts of :func:`sensitivity` as a Markdown table per study: a row per variant, a
    column per claim."""
    parts = []
    for study_id, rows in table.groupby("study", sort=False):
        wide = rows.pivot(index="variant", columns="claim", values="verdict")
        wide = wide.reindex(list(dict.fromkeys(rows["variant"])))
        seeds = rows.groupby("variant")["seeds"].max()
        header = ["variant", *(f"claim {c}" for c in wide.columns), "seeds"]
        lines = [
            f"{study_id}:",
            "| " + " | ".join(header) + " |",
            "| " + " | ".join("---" for _ in header) + " |",
        ]
        lines += [
            "| " + " | ".join([str(v), *(str(x) for x in wide.loc[v]), str(seeds[v])]) + " |"
            for v in wide.index
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
