"""Quantities measured over replicates, and their confidence intervals.

A study's runs are replicates: the same configuration under seeds 1, 2, ..., n. Every random
draw in ccsim comes from a stream keyed by (seed, entity, purpose), so two configurations run
under the same seed see the same start times, transfer sizes and link losses wherever they do
not differ (common random numbers). A :class:`Quantity` keeps one value per seed, so that a
comparison of two configurations is made on their paired per-seed differences, which carry
far less noise than the two means do apart.

The interval of a quantity's mean is Student's t over its per-seed values, intersected with the
range the quantity can take (goodput and times >= 0, Jain's index and shares in [0, 1], a
correlation in [-1, 1]). The true mean always lies in that range, so the intersection contains
it exactly when the t interval does: the coverage is the t interval's, and no impossible value
is printed or drawn. With fewer than :data:`MIN_REPLICATES` values no interval is given at all
(with two values the t interval is twelve standard deviations wide and says nothing).

A quantity computed without randomness (an analytic model, a fluid model) is ``exact``: its
interval is the point itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ANY",
    "CI_LEVEL",
    "CORRELATION",
    "MIN_REPLICATES",
    "NONNEGATIVE",
    "UNIT",
    "Quantity",
    "Replicates",
    "interval",
    "measure",
]

#: The confidence level of every interval of a study: tables, figures, checks, reports.
CI_LEVEL = 0.95
#: Fewest replicates an interval is computed from.
MIN_REPLICATES = 3

#: Ranges a quantity can take: (lowest, highest).
Bounds = tuple[float, float]
ANY: Bounds = (-math.inf, math.inf)
NONNEGATIVE: Bounds = (0.0, math.inf)
UNIT: Bounds = (0.0, 1.0)
CORRELATION: Bounds = (-1.0, 1.0)


def interval(
    values: Sequence[float] | np.ndarray,
    bounds: Bounds = ANY,
    level: float = CI_LEVEL,
) -> tuple[float, float] | None:
    """The ``level`` confidence interval of the mean of ``values`` (Student's t), intersected with
    ``bounds``; None with fewer than :data:`MIN_REPLICATES` values.

    >>> interval([1.0, 2.0, 3.0, 4.0])
    (0.9456..., 4.0543...)
    >>> interval([0.1, 0.0, 0.9], bounds=UNIT)[0]
    0.0
    """
    from scipy import stats

    data = np.asarray(values, dtype=float)
    n = len(data)
    if n < MIN_REPLICATES:
        return None
    mean = float(np.mean(data))
    sd = float(np.std(data, ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    low, high = bounds
    return max(low, mean - half), min(high, mean + half)


@dataclass(frozen=True)
class Replicates:
    """One row's per-run values in a comparison table: ``(seed, value)`` pairs and the range the
    quantity can take. Stored in the table's ``replicates`` column (left out of the CSV, which
    has the per-run values in ``<ID>-runs.csv``)."""

    values: tuple[tuple[int, float], ...]
    bounds: Bounds = ANY

    def __repr__(self) -> str:  # short, for tables printed in a debugger
        return f"Replicates(n={len(self.values)})"


@dataclass(frozen=True)
class Quantity:
    """A quantity over replicates: one value per seed, the range it can take, a unit for printing.

    Arithmetic between quantities pairs them by seed (only the seeds both have), so ``a - b`` is
    the per-seed difference of two configurations run under common random numbers; arithmetic
    with a number applies to every seed. ``exact`` quantities (computed, not sampled) have their
    value as their interval.
    """

    values: Mapping[int, float] = field(default_factory=dict)
    bounds: Bounds = ANY
    exact: bool = False

    # ---- construction ---------------------------------------------------------------------------

    @classmethod
    def of(cls, value: float) -> Quantity:
        """An exact quantity (a published constant, an analytic model's output)."""
        if value is None or math.isnan(value):
            return cls()
        return cls({0: float(value)}, exact=True)

    @classmethod
    def replicated(
        cls, values: Mapping[int, float] | Iterable[tuple[int, float]], bounds: Bounds = ANY
    ) -> Quantity:
        """Per-seed values (NaN values are dropped: a run where the quantity is undefined)."""
        pairs = values.items() if isinstance(values, Mapping) else values
        kept = {int(s): float(v) for s, v in pairs if v is not None and not math.isnan(float(v))}
        return cls(dict(sorted(kept.items())), bounds)

    # ---- what it is -----------------------------------------------------------------------------

    @property
    def n(self) -> int:
        """Replicates (0: no data; an exact quantity counts as one)."""
        return len(self.values)

    @property
    def has_data(self) -> bool:
        return bool(self.values)

    @property
    def mean(self) -> float:
        """The mean over replicates (NaN without data)."""
        return float(np.mean(list(self.values.values()))) if self.values else math.nan

    def interval(self, level: float = CI_LEVEL) -> tuple[float, float] | None:
        """The mean's confidence interval within :attr:`bounds` (the point for exact quantities;
        None with fewer than :data:`MIN_REPLICATES` replicates)."""
        if self.exact and self.values:
            return self.mean, self.mean
        return interval(list(self.values.values()), self.bounds, level)

    # ---- arithmetic -----------------------------------------------------------------------------

    def map(self, function: Callable[[float], float], bounds: Bounds = ANY) -> Quantity:
        """``function`` applied to every replicate."""
        return Quantity({s: float(function(v)) for s, v in self.values.items()}, bounds, self.exact)

    @staticmethod
    def combine(
        function: Callable[..., float], *quantities: Quantity, bounds: Bounds = ANY
    ) -> Quantity:
        """``function(a_s, b_s, ...)`` for every seed s all quantities have (exact quantities join
        every seed); exact when every input is."""
        exact = all(q.exact for q in quantities)
        sampled = [q for q in quantities if not q.exact]
        if any(not q.has_data for q in quantities):
            return Quantity(bounds=bounds)
        if exact:
            seeds: list[int] = [0]
        else:
            common = set(sampled[0].values)
            for q in sampled[1:]:
                common &= set(q.values)
            seeds = sorted(common)

        def at(q: Quantity, seed: int) -> float:
            return q.mean if q.exact else q.values[seed]

        values = {s: float(function(*(at(q, s) for q in quantities))) for s in seeds}
        values = {s: v for s, v in values.items() if not math.isnan(v)}
        return Quantity(values, bounds, exact)

    def _binary(
        self, other: Quantity | float, function: Callable[[float, float], float]
    ) -> Quantity:
        right = other if isinstance(other, Quantity) else Quantity.of(float(other))
        return Quantity.combine(function, self, right)

    def __add__(self, other: Quantity | float) -> Quantity:
        return self._with_bounds(self._binary(other, lambda a, b: a + b), other, "+")

    def __sub__(self, other: Quantity | float) -> Quantity:
        return self._with_bounds(self._binary(other, lambda a, b: a - b), other, "-")

    def __mul__(self, factor: float) -> Quantity:
        low, high = sorted((self.bounds[0] * factor, self.bounds[1] * factor))
        bounds = (low, high) if factor != 0 else (0.0, 0.0)
        return Quantity({s: v * factor for s, v in self.values.items()}, bounds, self.exact)

    __rmul__ = __mul__

    def __neg__(self) -> Quantity:
        return self * -1.0

    def __truediv__(self, other: Quantity | float) -> Quantity:
        return self._binary(other, lambda a, b: a / b if b != 0 else math.nan)

    def _with_bounds(self, result: Quantity, other: Quantity | float, op: str) -> Quantity:
        """Interval arithmetic on the ranges, so that sums and differences keep a range too."""
        o_low, o_high = other.bounds if isinstance(other, Quantity) else (other, other)
        s_low, s_high = self.bounds
        with np.errstate(invalid="ignore"):
            if op == "+":
                low, high = s_low + o_low, s_high + o_high
            else:
                low, high = s_low - o_high, s_high - o_low
        low = -math.inf if math.isnan(low) else low
        high = math.inf if math.isnan(high) else high
        return Quantity(dict(result.values), (low, high), result.exact)


def _selected(table: pd.DataFrame, metric: str, keys: Mapping[str, Any]) -> pd.DataFrame:
    rows = table[table["metric"] == metric]
    for key, wanted in keys.items():
        if isinstance(wanted, list | tuple | set | frozenset):
            rows = rows[rows[key].isin(list(wanted))]
        else:
            rows = rows[rows[key] == wanted]
    return rows


def measure(table: pd.DataFrame, metric: str, **keys: Any) -> Quantity:
    """The quantity of one row of a comparison table (``metric`` and the key columns' values),
    or the per-seed mean of several rows when a key is given a list of values.

    Without data (no such row, a row not run, a row that lacks one of the selected seeds) the
    quantity is empty, and so is every check that uses it: it is reported as not run.
    """
    rows = _selected(table, metric, keys)
    if not len(rows) or "replicates" not in rows.columns:
        return Quantity()
    per_row: list[dict[int, float]] = []
    bounds: list[Bounds] = []
    for cell in rows["replicates"]:
        if not isinstance(cell, Replicates) or not cell.values:
            return Quantity()
        per_row.append(dict(cell.values))
        bounds.append(cell.bounds)
    seeds = set(per_row[0])
    for values in per_row[1:]:
        seeds &= set(values)
    low = min(b[0] for b in bounds)
    high = max(b[1] for b in bounds)
    return Quantity.replicated(
        {s: float(np.mean([values[s] for values in per_row])) for s in sorted(seeds)},
        (low, high),
    )
