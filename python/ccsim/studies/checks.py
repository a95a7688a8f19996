"""Checks and verdicts: how a study decides whether a published claim is reproduced.

A claim of a paper is judged by explicit checks. A check compares a measured
:class:`~ccsim.studies.evidence.Quantity` with what the claim requires, **with the quantity's
uncertainty**: the confidence interval of its mean over replicates (of the paired per-seed
difference where two configurations are compared). Its outcome is

* **held** when the whole interval lies on the claim's side of the boundary;
* **reversed** when it lies wholly in the region that says the opposite (by default, the other
  side of the boundary: the paper's loser wins);
* **failed** when it lies wholly outside the claim's side but not in the opposite region (a
  threshold missed, a value outside a band);
* **inconclusive** when it straddles a boundary, or when there are fewer than
  :data:`~ccsim.studies.evidence.MIN_REPLICATES` replicates to give an interval at all;
* **no data** when a value it needs was not measured (a configuration not run).

A boundary is never won by floating-point noise: an interval must clear it by more than a
relative 1e-9 of the numbers involved, so equal values (a tie) are inconclusive.

The verdict of a claim follows from its checks by one rule (:func:`grade`), applied in order:

1. **not run** (``not run in --quick`` in a quick run): no checks, or a check without data. A
   claim is not graded on half of its evidence.
2. **reproduced**: every check held.
3. **reversed**: more than half of the checks reversed.
4. **inconclusive**: no check failed or reversed, and at least one is inconclusive.
5. **partly**: at least half of the checks held and none reversed.
6. **not reproduced**: anything else (fewer than half held, or some held and some reversed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from ccsim.studies.evidence import CI_LEVEL, MIN_REPLICATES, Quantity

__all__ = [
    "FAILED",
    "HELD",
    "INCONCLUSIVE",
    "NOT_REPRODUCED",
    "NOT_RUN",
    "NOT_RUN_QUICK",
    "NO_DATA",
    "OUTCOMES",
    "PARTLY",
    "REPRODUCED",
    "REVERSED",
    "VERDICTS",
    "Check",
    "Claim",
    "ClaimResult",
    "band",
    "compare",
    "grade",
    "inconclusive_checks",
    "within",
]

# ---- outcomes of one check ----------------------------------------------------------------------

HELD = "held"
FAILED = "failed"
REVERSED = "reversed"
INCONCLUSIVE = "inconclusive"
NO_DATA = "no data"
#: Every outcome a check can have.
OUTCOMES = (HELD, FAILED, REVERSED, INCONCLUSIVE, NO_DATA)

# ---- verdicts of a claim ------------------------------------------------------------------------

REPRODUCED = "reproduced"
PARTLY = "partly"
NOT_REPRODUCED = "not reproduced"
NOT_RUN = "not run"
#: A quick run left out the protocols or conditions the claim is about.
NOT_RUN_QUICK = "not run in --quick"
#: Every verdict, in the order the summaries list them (``reversed`` and ``inconclusive`` are
#: both an outcome and a verdict).
VERDICTS = (REPRODUCED, PARTLY, INCONCLUSIVE, NOT_REPRODUCED, REVERSED, NOT_RUN, NOT_RUN_QUICK)

#: Relative margin by which an interval must clear a boundary (floating-point noise is no win).
NOISE = 1e-9

Operator = Literal[">", ">=", "<", "<="]
Region = tuple[float, float]


@dataclass(frozen=True)
class Check:
    """One tested condition of a claim: a statement of what was measured and what was required
    (``text``), and its :attr:`outcome` (one of :data:`OUTCOMES`)."""

    text: str
    outcome: str

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome {self.outcome!r}: expected one of {', '.join(OUTCOMES)}")

    @classmethod
    def no_data(cls, text: str) -> Check:
        """A check whose values were not measured (a configuration not run)."""
        return cls(f"{text}: not measured", NO_DATA)


@dataclass(frozen=True)
class ClaimResult:
    """A judged claim: its text, its criterion, the checks and the verdict graded from them."""

    claim: str
    criterion: str
    checks: tuple[Check, ...]
    verdict: str


@dataclass(frozen=True)
class Claim:
    """A published claim and the explicit criterion it is judged by.

    ``evaluate(table)`` returns the checks; :func:`grade` turns them into the verdict, so the
    verdict follows the numbers.
    """

    text: str
    criterion: str
    evaluate: Callable[[pd.DataFrame], Sequence[Check]]

    def judge(self, table: pd.DataFrame, quick: bool = False) -> ClaimResult:
        checks = tuple(self.evaluate(table))
        return ClaimResult(self.text, self.criterion, checks, grade(checks, quick))


def grade(checks: Sequence[Check], quick: bool = False) -> str:
    """The verdict from the checks by the rule in this module's documentation."""
    if not checks or any(c.outcome == NO_DATA for c in checks):
        return NOT_RUN_QUICK if quick else NOT_RUN
    count = {outcome: sum(c.outcome == outcome for c in checks) for outcome in OUTCOMES}
    total = len(checks)
    if count[HELD] == total:
        return REPRODUCED
    if 2 * count[REVERSED] > total:
        return REVERSED
    if count[FAILED] == count[REVERSED] == 0:
        return INCONCLUSIVE
    if 2 * count[HELD] >= total and count[REVERSED] == 0:
        return PARTLY
    return NOT_REPRODUCED


def inconclusive_checks(verdicts: Sequence[ClaimResult]) -> int:
    """How many checks of the judged claims are inconclusive (a full study run adds replicates
    while there are any)."""
    return sum(c.outcome == INCONCLUSIVE for v in verdicts for c in v.checks)


# ---- deciding with an interval ------------------------------------------------------------------


def _noise(*numbers: float) -> float:
    finite = [abs(x) for x in numbers if math.isfinite(x)]
    return NOISE * max([1.0, *finite]) if finite else NOISE


def _inside(low: float, high: float, region: Region) -> bool:
    """The interval lies within ``region``, clearing each finite end by more than the noise."""
    margin = _noise(low, high, *region)
    return region[0] + margin < low and high < region[1] - margin


def _outside(low: float, high: float, region: Region) -> bool:
    """The interval and ``region`` do not meet (by more than the noise)."""
    margin = _noise(low, high, *region)
    return high < region[0] - margin or low > region[1] + margin


def decide(
    quantity: Quantity, claim: Region, reversal: Region | None, level: float = CI_LEVEL
) -> str:
    """The outcome of a quantity whose claimed values are ``claim`` and whose values saying the
    opposite are ``reversal`` (None: nothing counts as the opposite)."""
    if not quantity.has_data:
        return NO_DATA
    bounds = quantity.interval(level)
    if bounds is None:
        return INCONCLUSIVE
    low, high = bounds
    if _inside(low, high, claim):
        return HELD
    if reversal is not None and _inside(low, high, reversal):
        return REVERSED
    if _outside(low, high, claim):
        return FAILED
    return INCONCLUSIVE


# ---- printing what was measured -----------------------------------------------------------------


def number(x: float, digits: int = 3) -> str:
    """A number as checks print it: ``digits`` significant digits, no exponent for ordinary
    sizes."""
    if x is None or math.isnan(x):
        return "-"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x != 0 and (abs(x) >= 1e6 or abs(x) < 1e-3):
        return f"{x:.{digits}g}"
    if abs(x) >= 10 ** (digits - 1):
        return f"{x:.0f}"
    return f"{x:.{digits}g}" if abs(x) >= 1 else f"{x:.{digits}f}".rstrip("0").rstrip(".")


def estimate(quantity: Quantity, unit: str = "", digits: int = 3) -> str:
    """``mean (low to high)``, ``mean (n = 2, no interval)`` or ``mean (exact)``."""
    suffix = f" {unit}" if unit else ""
    mean = number(quantity.mean, digits)
    if quantity.exact:
        return f"{mean}{suffix}"
    bounds = quantity.interval()
    if bounds is None:
        return f"{mean}{suffix} (n = {quantity.n}: fewer than {MIN_REPLICATES} runs, no interval)"
    return (
        f"{mean}{suffix} ({number(bounds[0], digits)} to {number(bounds[1], digits)}, "
        f"n = {quantity.n})"
    )


def _region(op: Operator, boundary: float) -> tuple[Region, Region]:
    if op in (">", ">="):
        return (boundary, math.inf), (-math.inf, boundary)
    if op in ("<", "<="):
        return (-math.inf, boundary), (boundary, math.inf)
    raise ValueError(f"operator {op!r}: expected one of >, >=, <, <=")


def compare(
    label: str,
    quantity: Quantity,
    op: Operator,
    reference: Quantity | float,
    *,
    unit: str = "",
    reversal: Literal["opposite"] | float | Quantity | None = "opposite",
    required: str | None = None,
    digits: int = 3,
) -> Check:
    """A check that ``quantity op reference``.

    ``reference`` is a number (a published value, a threshold) or another quantity; then the
    comparison is made on the per-seed difference ``quantity - reference`` against 0, and the
    check shows both means and the difference's interval. ``reversal`` says what counts as the
    opposite of the claim: the other side of the boundary (``"opposite"``, the default: the
    paper's winner loses), a number beyond which the data goes the other way, another quantity
    (with a quantity ``reference``: reversed when ``quantity`` is clearly on the wrong side of
    it, e.g. below the others' median), or None (a missed threshold is a failure, not a
    reversal). ``required`` replaces the printed requirement (e.g. ``"> 90% of the link rate"``).
    """
    if isinstance(reference, Quantity):
        if not quantity.has_data or not reference.has_data:
            return Check.no_data(label)
        difference = quantity - reference
        claim, opposite = _region(op, 0.0)
        text = (
            f"{label}: {number(quantity.mean, digits)} vs {number(reference.mean, digits)}"
            f"{' ' + unit if unit else ''}, difference {estimate(difference, '', digits)}, "
            f"required: difference {required or f'{op} 0'}"
        )
        if isinstance(reversal, Quantity):
            outcome = decide(difference, claim, None)
            beyond = quantity - reversal
            if outcome != HELD and decide(beyond, opposite, None) == HELD:
                outcome = REVERSED
            text += (
                f"; reversed if clearly {'below' if op in ('>', '>=') else 'above'} "
                f"{number(reversal.mean, digits)} (difference {estimate(beyond, '', digits)})"
            )
            return Check(text, outcome)
        return Check(text, decide(difference, claim, _reversal(op, reversal, opposite, False)))
    if isinstance(reversal, Quantity):
        raise ValueError("a reversal quantity needs a reference quantity")
    boundary = float(reference)
    claim, opposite = _region(op, boundary)
    text = (
        f"{label}: {estimate(quantity, unit, digits)}, required "
        f"{required or f'{op} {number(boundary, digits)}'}"
    )
    if not quantity.has_data:
        return Check.no_data(label)
    return Check(text, decide(quantity, claim, _reversal(op, reversal, opposite, True)))


def _reversal(
    op: Operator,
    reversal: Literal["opposite"] | float | None,
    opposite: Region,
    numeric_allowed: bool,
) -> Region | None:
    """The region of values that say the opposite of the claim (None: nothing does)."""
    if reversal is None:
        return None
    if reversal == "opposite":
        return opposite
    if isinstance(reversal, str):
        raise ValueError(f"reversal {reversal!r}: expected 'opposite', a number or None")
    # A numeric boundary is on the quantity's own scale; a comparison with a reference quantity
    # decides on the difference, whose scale is shifted, so it needs a reversal quantity.
    if not numeric_allowed:
        raise ValueError("a numeric reversal boundary needs a numeric reference")
    level = float(reversal)
    return (-math.inf, level) if op in (">", ">=") else (level, math.inf)


def within(
    label: str,
    quantity: Quantity,
    reference: Quantity | float,
    tolerance: float,
    *,
    unit: str = "",
    digits: int = 3,
) -> Check:
    """A check that ``quantity`` equals ``reference`` within a relative ``tolerance``: the
    interval of the per-seed relative difference ``quantity / reference - 1`` lies within
    ``[-tolerance, tolerance]`` (an equivalence test). Failed when the interval lies wholly
    outside; nothing counts as reversed."""
    if not quantity.has_data or (isinstance(reference, Quantity) and not reference.has_data):
        return Check.no_data(label)
    relative = quantity / reference - 1.0
    shown = number(reference.mean if isinstance(reference, Quantity) else float(reference), digits)
    text = (
        f"{label}: {number(quantity.mean, digits)} vs {shown}{' ' + unit if unit else ''}, "
        f"relative difference {estimate(relative, '', digits)}, required within "
        f"+-{tolerance:g}"
    )
    return Check(text, decide(relative, (-tolerance, tolerance), None))


def band(
    label: str,
    quantity: Quantity,
    low: float,
    high: float,
    *,
    unit: str = "",
    reversal: Region | None = None,
    digits: int = 3,
) -> Check:
    """A check that ``quantity`` lies in ``[low, high]`` (e.g. a correlation "near zero"), with
    an optional ``reversal`` region (values that say the opposite of the claim)."""
    if not quantity.has_data:
        return Check.no_data(label)
    text = (
        f"{label}: {estimate(quantity, unit, digits)}, required in "
        f"[{number(low, digits)}, {number(high, digits)}]"
    )
    return Check(text, decide(quantity, (low, high), reversal))
