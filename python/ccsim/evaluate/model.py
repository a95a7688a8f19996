"""What an evaluation did and found (:class:`Evaluation`), shared by the run and the card."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ccsim.evaluate.battery import TESTS, Algorithm, Measurement, Plan, TestSweep
from ccsim.evaluate.battery.common import SummaryRow

__all__ = ["Evaluation"]


@dataclass
class Evaluation:
    """What :func:`evaluate` did and found."""

    alg: Algorithm
    baselines: list[str]
    plan: Plan
    directory: Path
    sweeps: list[TestSweep]
    measurements: list[Measurement]
    summary: list[SummaryRow]
    runs: int = 0
    ran: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    command: str | None = None
    cwd: str | None = None
    files: list[Path] = field(default_factory=list)

    def tests_run(self) -> list[str]:
        """The battery's tests this evaluation ran, in the battery's order."""
        names = {s.test for s in self.sweeps}
        return [name for name in TESTS if name in names]

    def measurements_frame(self) -> pd.DataFrame:
        return pd.DataFrame([vars(m) for m in self.measurements])
