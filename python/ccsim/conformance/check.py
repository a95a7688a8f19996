"""One conformance check, its outcome, and which implementation runs under each name."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass

__all__ = ["AT_LEAST", "AT_MOST", "WITHIN", "Check", "Outcome", "Uses"]


class Uses:
    """Which implementation runs under each algorithm's name: the built-in one unless replaced."""

    def __init__(self, replacements: Mapping[str, str] | None = None) -> None:
        self.replacements = dict(replacements or {})

    def __call__(self, name: str) -> str:
        return self.replacements.get(name, name)


#: How a check compares ours with its reference: within the tolerance of it (the default), or,
#: for a published claim that is a direction rather than a number (a seed study's "more than",
#: "most of"), at least or at most the reference (the tolerance is then unused, 0).
WITHIN, AT_LEAST, AT_MOST = "within", "at least", "at most"


@dataclass(frozen=True)
class Check:
    """One quantity compared with a published reference. ``relative``: the tolerance is a
    fraction of the reference, else an absolute difference. ``algorithms``: the names whose
    implementation it measures (what ``--use`` may replace). ``kind``: :data:`WITHIN`,
    :data:`AT_LEAST` or :data:`AT_MOST`."""

    id: str
    what: str
    source: str
    reference: float
    tolerance: float
    relative: bool
    algorithms: tuple[str, ...]
    measure: Callable[[Uses], float]
    kind: str = WITHIN

    def __post_init__(self) -> None:
        if self.kind not in (WITHIN, AT_LEAST, AT_MOST):
            raise ValueError(f"{self.id}: kind {self.kind!r}; expected within, at least or at most")

    def passes(self, ours: float) -> bool:
        if not math.isfinite(ours):
            return False
        if self.kind == AT_LEAST:
            return ours >= self.reference
        if self.kind == AT_MOST:
            return ours <= self.reference
        bound = self.tolerance * abs(self.reference) if self.relative else self.tolerance
        return abs(ours - self.reference) <= bound + 1e-12

    def tolerance_text(self) -> str:
        if self.kind != WITHIN:
            return self.kind
        return f"±{self.tolerance:.0%}" if self.relative else f"±{self.tolerance:g}"


@dataclass(frozen=True)
class Outcome:
    """What one check found."""

    id: str
    what: str
    source: str
    reference: float
    ours: float
    tolerance: str
    passed: bool
    seconds: float
    error: str | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)
