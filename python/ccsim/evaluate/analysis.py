"""What the battery measures in each run, and the summary over seeds.

Each run gives a few :class:`~ccsim.evaluate.battery.Measurement` s, measured by its test's
module (:data:`~ccsim.evaluate.battery.TESTS`); :func:`summarise` gathers them per test, metric
and condition into one :class:`~ccsim.studies.evidence.Quantity` per algorithm (a value per
seed), and compares the evaluated algorithm with each baseline on their per-seed differences
(the runs of one seed share their random draws, so the difference carries less noise than the
two means apart).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ccsim.evaluate.battery import METRICS, TESTS
from ccsim.evaluate.battery.common import (
    Comparison,
    Measurement,
    Run,
    SummaryRow,
    TestSweep,
)
from ccsim.results import Results
from ccsim.studies.evidence import Bounds, Quantity

__all__ = [
    "METRICS",
    "TABLES_READ",
    "Comparison",
    "SummaryRow",
    "derived",
    "measure_run",
    "summarise",
]

#: The result tables each test's measurements read (the others are not loaded).
TABLES_READ: dict[str, tuple[str, ...]] = {test.name: test.tables for test in TESTS.values()}


def measure_run(sweep: TestSweep, params: Mapping[str, Any], results: Results) -> list[Measurement]:
    """The measurements of one run of ``sweep`` at the point ``params`` (its axis values and
    seed)."""
    if sweep.test not in TESTS:
        raise ValueError(f"no measurements for test {sweep.test!r}")
    return TESTS[sweep.test].measure(Run(sweep, params, results))


def derived(measurements: Sequence[Measurement], baselines: Sequence[str]) -> list[Measurement]:
    """The measurements the tests derive once every run is measured (harm, from two runs)."""
    out: list[Measurement] = []
    for test in TESTS.values():
        if test.derive is not None:
            out += test.derive(measurements, baselines)
    return out


def summarise(
    measurements: Iterable[Measurement], baselines: Sequence[str], tests: Sequence[str]
) -> list[SummaryRow]:
    """One row per test, metric and condition (in the battery's order, then in the order of the
    test's metrics, then by axis value): the evaluated algorithm's quantity and, for each
    baseline measured at that condition, the baseline's and the paired difference."""
    frame = pd.DataFrame([vars(m) for m in measurements])
    if frame.empty:
        return []
    # Raw numbers other metrics derive from (named with a leading "_") are not summarised.
    frame = frame[frame["metric"].isin(list(METRICS))]
    if frame.empty:
        return []
    rows: list[SummaryRow] = []
    metric_order = {
        (test.name, metric.name): i
        for test in TESTS.values()
        for i, metric in enumerate(test.metrics)
    }
    keys = frame[["test", "metric", "condition", "order"]].drop_duplicates()
    keys = keys.assign(
        t=keys["test"].map({t: i for i, t in enumerate(tests)}),
        k=[metric_order[key] for key in zip(keys["test"], keys["metric"], strict=True)],
    ).sort_values(["t", "k", "order", "condition"], kind="stable")
    for key in keys.itertuples(index=False):
        here = frame[
            (frame["test"] == key.test)
            & (frame["metric"] == key.metric)
            & (frame["condition"] == key.condition)
        ]
        metric = METRICS[key.metric]

        def quantity(
            role: str, selected: pd.DataFrame = here, b: Bounds = metric.bounds
        ) -> Quantity:
            chosen = selected[selected["role"] == role]
            return Quantity.replicated(zip(chosen["seed"], chosen["value"], strict=True), b)

        value = quantity("alg")
        comparisons = []
        for baseline in baselines:
            other = quantity(baseline)
            if other.has_data:
                comparisons.append(Comparison(baseline, other, value - other))
        rows.append(
            SummaryRow(
                key.test,
                key.metric,
                key.condition,
                float(key.order),
                value,
                tuple(comparisons),
                metric.unit,
            )
        )
    return rows
