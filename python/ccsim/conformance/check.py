"""One conformance check, its outcome, and which implementation runs under each name."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass

__all__ = ["Check", "Outcome", "Uses"]


class Uses:
    """Which implementation runs under each algorithm's name: the built-in one unless replaced."""

    def __init__(self, replacements: Mapping[str, str] | None = None) -> None:
        self.replacements = dict(replacements or {})

    def __call__(self, name: str) -> str:
        return self.replacements.get(name, name)


@dataclass(frozen=True)
class Check:
    """One quantity compared with a published reference. ``relative``: the tolerance is a
    fraction of the reference, else an absolute difference. ``algorithms``: the names whose
    implementation it measures (what ``--use`` may replace)."""

    id: str
    what: str
    source: str
    reference: float
    tolerance: float
    relative: bool
    algorithms: tuple[str, ...]
    measure: Callable[[Uses], float]

    def passes(self, ours: float) -> bool:
        if not math.isfinite(ours):
            return False
        bound = self.tolerance * abs(self.reference) if self.relative else self.tolerance
        return abs(ours - self.reference) <= bound + 1e-12

    def tolerance_text(self) -> str:
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
