"""The three studies in order, and the sensitivity runs of S1 and S2 (which find the study to
vary in that list): S1 and S2 again under the choices the paper does not state.
"""

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
from ccsim.studies.sync_tcp.common import CONFIGS, DEFAULT, Variant
from ccsim.studies.sync_tcp.startup import MODIFIED, S1, S2, reach_time, startup_sweeps
from ccsim.studies.sync_tcp.two_way import S3

# ---- the studies ----------------------------------------------------------------------------------


STUDIES: tuple[Study, ...] = (S1, S2, S3)


# ---- sensitivity of S1 and S2 to what the paper does not give ------------------------------------

#: The variants :func:`sensitivity` runs, one setting changed at a time from :data:`DEFAULT`:
#: the queue limit of every link (the paper: "finite", no size; the source's queue decides),
#: Sync-TCP's averaging weight (our default 1/8, not verified against Weigle's code) and
#: the unit of alpha0 (the claims about the modification are judged on the fraction reading).
SENSITIVITY: tuple[Variant, ...] = (
    DEFAULT,
    *(
        Variant(f"queue-{limit}", f"queue limit {limit} on every link", queue_limit=limit)
        for limit in (75, 100, 125, 150, 200, 300)
    ),
    Variant("w-avg-1-16", "Sync-TCP's w_avg 1/16", sync={"w_avg": 1 / 16}),
    Variant("w-avg-1-4", "Sync-TCP's w_avg 1/4", sync={"w_avg": 1 / 4}),
    Variant(
        "alpha0-segments",
        "alpha0 in segments (+0.375 per RTT)",
        modified={"alpha0_mode": 1},
    ),
)


def variant_study(study: Study, variant: Variant) -> Study:
    """S1 or S2 under ``variant``: the paper's claims only (not ours), the paper's configurations
    (no clock variants)."""
    rate, window = {"S1": ("10Mbps", 50), "S2": ("100Mbps", 500)}[study.id]
    return dataclasses.replace(
        study,
        sweeps=startup_sweeps(rate, window, CONFIGS, variant),
        claims=tuple(c for c in study.claims if not c.text.startswith("(ours)")),
        assumptions=(*study.assumptions, f"sensitivity variant: {variant.description}"),
    )


def sensitivity(
    *,
    quick: bool = False,
    workers: int | None = None,
    out: str | Path = Path("results") / "studies" / "seed003-sensitivity",
    variants: tuple[Variant, ...] = SENSITIVITY,
    progress: bool = True,
) -> pd.DataFrame:
    """S1 and S2 under every variant of :data:`SENSITIVITY` (S1 without the alpha0 variant, which
    cannot matter below C_low): each a full study (replicates added while a check is
    inconclusive, up to the study's cap) into ``out/<ID>/<variant>``. Returns, and writes to
    ``out/sensitivity.csv``, one row per study, variant and claim: the verdict, the number of
    seeds and the mean time to the maximum window of each configuration; prints the verdicts
    as a table of claims against variants."""
    root = Path(out)
    rows: list[dict[str, Any]] = []
    for study_id in ("S1", "S2"):
        base = next(s for s in STUDIES if s.id == study_id)
        for variant in variants:
            if study_id == "S1" and variant.modified:
                continue
            report = run_study(
                variant_study(base, variant),
                Settings(quick=quick),
                root / study_id / variant.slug,
                workers=workers,
            )
            rows += _sensitivity_rows(report, variant)
            if progress:
                done = ", ".join(f"{i + 1}: {v.verdict}" for i, v in enumerate(report.verdicts))
                print(f"{study_id} {variant.description}: {done} ({report.replicates} seeds)")
    table = pd.DataFrame(rows)
    root.mkdir(parents=True, exist_ok=True)
    table.to_csv(root / "sensitivity.csv", index=False)
    if progress:
        print(sensitivity_summary(table))
    return table


def _sensitivity_rows(report: StudyReport, variant: Variant) -> list[dict[str, Any]]:
    table = report.table
    times = {
        f"mean time, {label}": round(reach_time(table, label).mean, 2)
        for label in ("reno", "sync-tcp", MODIFIED)
    }
    return [
        {
            "study": report.study.id,
            "variant": variant.description,
            "claim": index + 1,
            "text": result.claim,
            "verdict": result.verdict,
            "seeds": report.replicates,
            **times,
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
        header = ["variant", *(f"claim {c}" for c in wide.columns)]
        lines = [
            f"{study_id}:",
            "| " + " | ".join(header) + " |",
            "| " + " | ".join("---" for _ in header) + " |",
        ]
        lines += [
            "| " + " | ".join([str(v), *(str(x) for x in wide.loc[v])]) + " |" for v in wide.index
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
