"""Running the suite: every check of :mod:`.response`, :mod:`.laws`, :mod:`.exchange` and
:mod:`.verdicts`, in that order."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping

from ccsim.conformance.check import Check, Outcome, Uses
from ccsim.conformance.exchange import CHECKS as EXCHANGE_CHECKS
from ccsim.conformance.laws import CHECKS as LAW_CHECKS
from ccsim.conformance.response import CHECKS as RESPONSE_CHECKS
from ccsim.conformance.verdicts import CHECKS as VERDICT_CHECKS

__all__ = ["VERSION", "all_checks", "run"]

#: The suite's version: its checks, references and tolerances (2: BIC's decrease added; 3:
#: H-TCP, Free-Drop's law, DCTCP under step marking, loss-recovery exchanges, study verdicts;
#: 4: PFTK's model for Reno and NewReno).
VERSION = "5"


def all_checks() -> list[Check]:
    return [*RESPONSE_CHECKS, *LAW_CHECKS, *EXCHANGE_CHECKS, *VERDICT_CHECKS]


def run(
    uses: Mapping[str, str] | None = None,
    only: Iterable[str] | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Run the checks (those whose id starts with one of ``only``, if given) with ``uses``'s
    replacements; a check whose measurement raises fails with the error."""
    chosen = all_checks()
    if only is not None:
        prefixes = tuple(only)
        chosen = [c for c in chosen if c.id.startswith(prefixes)]
    resolve = Uses(uses)
    outcomes = []
    for check in chosen:
        started = time.perf_counter()
        error = None
        try:
            ours = float(check.measure(resolve))
        except Exception as exc:  # one broken check never hides the others' results
            ours, error = math.nan, f"{type(exc).__name__}: {exc}"
        outcome = Outcome(
            id=check.id,
            what=check.what,
            source=check.source,
            reference=check.reference,
            ours=ours,
            tolerance=check.tolerance_text(),
            passed=error is None and check.passes(ours),
            seconds=time.perf_counter() - started,
            error=error,
        )
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    return outcomes
