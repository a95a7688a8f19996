"""The comparison table: built from per-run values (:func:`summarise`), its confidence intervals
(:func:`with_intervals`), one row's mean (:func:`value`), its per-run form (:func:`per_run`,
what ``<ID>-runs.csv`` holds) and its text form (:func:`shown_rows`, printed on the console and
in reports).

A comparison table has one row per quantity the paper reports: the study's key columns, then
:data:`VALUE_COLUMNS`: the metric, our mean over seeds (``ours``), its spread (``sd``), the 95%
confidence interval of the mean by Student's t (``ci_low``, ``ci_high``; NaN with fewer than
:data:`~ccsim.studies.evidence.MIN_REPLICATES` runs), the number of runs (``runs``), the
published value (``published``, NaN where the paper gives none) and the per-run values
(``replicates``) the checks read.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ccsim.metrics import ci_half_width
from ccsim.studies.evidence import (
    ANY,
    CI_LEVEL,
    MIN_REPLICATES,
    Bounds,
    Replicates,
    interval,
)

__all__ = [
    "SHOWN_COLUMNS",
    "VALUE_COLUMNS",
    "format_interval",
    "metric_records",
    "per_run",
    "shown_rows",
    "summarise",
    "value",
    "with_intervals",
]

#: Columns every comparison table ends with (the key columns of a study come first). The
#: ``replicates`` column holds each row's per-run values (:class:`Replicates`), which the checks
#: read; it is not written to ``<ID>.csv`` (``<ID>-runs.csv`` has them, one line per run).
VALUE_COLUMNS = ["metric", "ours", "sd", "ci_low", "ci_high", "runs", "published", "replicates"]


def summarise(
    records: Sequence[Mapping[str, Any]],
    keys: Sequence[str],
    published: Mapping[tuple[Any, ...], float] | None = None,
    bounds: Mapping[str, Bounds] | None = None,
) -> pd.DataFrame:
    """Per-run values -> the comparison table.

    ``records`` are dicts with the ``keys``, ``metric``, ``seed`` and ``value``: one per run
    and metric (several records of one run and row, e.g. one per transfer, are first averaged
    into the run's value: the run, not the record, is the replicate). Rows are grouped by keys
    and metric: the mean over runs (``ours``), the sample standard deviation over runs (``sd``),
    the :data:`CI_LEVEL` confidence interval of the mean (``ci_low``, ``ci_high``: Student's t
    within the metric's range, ``bounds[metric]``, e.g. :data:`NONNEGATIVE`; NaN with fewer than
    :data:`MIN_REPLICATES` runs), the number of runs (``runs``), and the per-run values
    (``replicates``) the checks are computed from. ``published`` maps (*keys, metric) to the
    paper's value.
    """
    columns = [*keys, *VALUE_COLUMNS]
    bounds = bounds or {}
    rows: list[dict[str, Any]] = []
    if records:
        data = pd.DataFrame(list(records))
        if "seed" not in data.columns:
            raise ValueError("every record needs the seed of its run ('seed')")
        data["value"] = data["value"].astype(float)
        run_values = (
            data.groupby([*keys, "metric", "seed"], sort=False, dropna=False)["value"]
            .mean()
            .reset_index()
        )
        for key, group in run_values.groupby([*keys, "metric"], sort=False, dropna=False):
            key = key if isinstance(key, tuple) else (key,)
            metric = key[-1]
            limits = bounds.get(metric, ANY)
            kept = group.dropna(subset=["value"])
            values = kept["value"].to_numpy(float)
            ci = interval(values, limits, CI_LEVEL)
            rows.append(
                dict(zip([*keys, "metric"], key, strict=True))
                | {
                    "ours": float(values.mean()) if len(values) else np.nan,
                    "sd": float(values.std(ddof=1)) if len(values) > 1 else np.nan,
                    "ci_low": ci[0] if ci else np.nan,
                    "ci_high": ci[1] if ci else np.nan,
                    "runs": len(values),
                    "replicates": Replicates(
                        tuple(
                            (int(seed), float(v))
                            for seed, v in zip(kept["seed"], values, strict=True)
                        ),
                        limits,
                    ),
                }
            )
    frame = pd.DataFrame(rows, columns=[*keys, *VALUE_COLUMNS[:-2], "replicates"])
    have = {tuple(r[c] for c in [*keys, "metric"]) for r in rows}
    # The published values the paper gives for configurations we did not run still appear,
    # with our side empty, so the table always shows everything the paper reports.
    extra = [
        dict(zip([*keys, "metric"], key, strict=True)) | {"ours": np.nan, "runs": 0}
        for key in (published or {})
        if key not in have
    ]
    if extra:
        frame = pd.concat([frame, pd.DataFrame(extra)], ignore_index=True)
    frame["published"] = [
        (published or {}).get(tuple(r[c] for c in [*keys, "metric"]), np.nan)
        for _, r in frame.iterrows()
    ]
    frame["runs"] = frame["runs"].fillna(0).astype(int)
    return frame[columns]


def with_intervals(table: pd.DataFrame, level: float = CI_LEVEL) -> pd.DataFrame:
    """``table`` with ``ci_low`` and ``ci_high`` computed from ``ours``, ``sd`` and ``runs``
    (Student's t, NaN with fewer than :data:`MIN_REPLICATES` runs) where it lacks them;
    unchanged otherwise."""
    if {"ci_low", "ci_high"} <= set(table.columns) or not {"ours", "sd", "runs"} <= set(table):
        return table
    runs = pd.to_numeric(table["runs"], errors="coerce")
    half = np.where(runs >= MIN_REPLICATES, ci_half_width(table["sd"], runs, level), np.nan)
    ours = pd.to_numeric(table["ours"], errors="coerce")
    table = table.copy()
    position = list(table.columns).index("sd") + 1
    table.insert(position, "ci_low", ours - half)
    table.insert(position + 1, "ci_high", ours + half)
    return table


def value(table: pd.DataFrame, metric: str, **keys: Any) -> float:
    """Our mean for one row of a comparison table (NaN when the row is missing or not run);
    for printing. Checks decide on :func:`measure`, which keeps the per-run values."""
    rows = table[table["metric"] == metric]
    for key, wanted in keys.items():
        rows = rows[rows[key] == wanted]
    values = pd.to_numeric(rows["ours"], errors="coerce").dropna()
    return float(values.mean()) if len(values) else math.nan


def per_run(table: pd.DataFrame) -> pd.DataFrame:
    """Every run's value of every row of a comparison table: the key columns, ``metric``,
    ``seed`` and ``value`` (what ``<ID>-runs.csv`` holds)."""
    keys = [c for c in table.columns if c not in VALUE_COLUMNS]
    rows = []
    for _, row in table.iterrows():
        cell = row.get("replicates")
        if not isinstance(cell, Replicates):
            continue
        base = {k: row[k] for k in keys} | {"metric": row["metric"]}
        rows += [base | {"seed": seed, "value": v} for seed, v in cell.values]
    return pd.DataFrame(rows, columns=[*keys, "metric", "seed", "value"])


def _fmt(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float | np.floating):
        number = float(x)
        return f"{number:.4g}" if abs(number) < 10 else f"{number:.1f}"
    return str(x)


def format_interval(low: Any, high: Any) -> str:
    """``[low, high]`` as the tables print numbers, or ``-`` when undefined (a single run)."""
    if _missing(low) or _missing(high):
        return "-"
    return f"[{_fmt(float(low))}, {_fmt(float(high))}]"


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float | np.floating) and math.isnan(float(x)))


#: How the comparison table is shown (printed, and in reports): the key columns, then these.
SHOWN_COLUMNS = ("metric", "ours", f"{CI_LEVEL:.0%} CI", "n", "published")


def shown_rows(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """The comparison table as text cells: the key columns, metric, ours (the mean), its
    confidence interval, n (the runs it is over) and the published value; sd stays in the CSV."""
    keys = [c for c in table.columns if c not in VALUE_COLUMNS]
    header = [*keys, *SHOWN_COLUMNS]
    rows = []
    for _, row in table.iterrows():
        interval = format_interval(row.get("ci_low"), row.get("ci_high"))
        cells = [_fmt(row[k]) for k in keys]
        cells += [_fmt(row["metric"]), _fmt(row["ours"]), interval, _fmt(row["runs"])]
        rows.append([*cells, _fmt(row["published"])])
    return header, rows


def metric_records(
    keys: Mapping[str, Any], seed: int, values: Mapping[str, float]
) -> list[dict[str, Any]]:
    """One run's values as the long records :func:`summarise` reads: the configuration's keys,
    the seed, and one record per metric."""
    return [{**keys, "seed": seed, "metric": m, "value": v} for m, v in values.items()]
