"""``ccsim conformance``: does this build of ccsim agree with what is known?

Each check measures one quantity with the engine and compares it with a reference from a
published source: an algorithm's response function driven through the single-algorithm harness
(:mod:`ccsim.harness`; :mod:`.response`), a law or documented dynamic of whole runs
(:mod:`.laws`), a loss-recovery packet exchange read from the sender's capture
(:mod:`.exchange`), or a seed study's robust quick verdict (:mod:`.verdicts`). A check passes
when ours is within its tolerance of the reference (or, for a claim that is a direction, on its
side of it). The suite is versioned (:data:`VERSION`): a report names the version it ran, and a
check's reference or tolerance never changes without a new version.

A user testing their own implementation of a built-in algorithm runs the checks of that algorithm
against it: ``uses={"reno": "mymodule:MyReno"}`` (``ccsim conformance --use reno=mymodule:MyReno``).
"""

from __future__ import annotations

from ccsim.conformance.check import AT_LEAST, AT_MOST, WITHIN, Check, Outcome, Uses
from ccsim.conformance.suite import VERSION, all_checks, run

__all__ = [
    "AT_LEAST",
    "AT_MOST",
    "VERSION",
    "WITHIN",
    "Check",
    "Outcome",
    "Uses",
    "all_checks",
    "run",
]
