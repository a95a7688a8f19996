"""The parts of a sweep (see :mod:`ccsim.sweeps`): its axes, compared algorithms and mixtures,
and its points, each one run named by the hash of its resolved scenario."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ccsim.errors import show_value
from ccsim.scenario import Scenario
from ccsim.store import METRIC_COLUMNS

#: Catalogue columns that sweep parameters may not be named after: the point's identity and
#: state, and each run's summary numbers.
RESERVED_COLUMNS = frozenset(
    {"point", "run_id", "reference_run", "status", "error", "seed", "algorithm", "mixture"}
) | frozenset(METRIC_COLUMNS)


def run_id(scenario: Scenario) -> str:
    """The run's identity: the first 16 hex digits of the SHA-256 of its resolved scenario.

    The hash is over the engine's JSON (``Scenario.resolve()``) with sorted keys and no spaces,
    so it changes exactly when the simulation would.
    """
    spec = json.dumps(scenario.resolve(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(spec.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Axis:
    """One varied key: ``key`` is a scenario key path, ``name`` its catalogue column."""

    key: str
    name: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Algorithm:
    """An entry of ``compare.algorithms``: a name for the catalogue, an engine cc and params."""

    name: str
    cc: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Mixture:
    """Which flows run the compared algorithm; the others run the baseline.

    ``flows`` is ``"all"``, ``"half"`` (flows 0, 2, 4, ... in the order of the expanded
    ``[[flows]]`` tables), ``"one"`` (flow 0) or an explicit tuple of flow indices.
    ``generators`` says whether generator transfers run the compared algorithm.
    """

    name: str
    flows: str | tuple[int, ...]
    generators: bool

    def chooses(self, index: int) -> bool:
        """Whether flow ``index`` (numbered from 0 over the expanded flows) runs the compared
        algorithm."""
        if self.flows == "all":
            return True
        if self.flows == "half":
            return index % 2 == 0
        if self.flows == "one":
            return index == 0
        return index in self.flows


@dataclass(frozen=True)
class Point:
    """One run of a sweep: its parameters (the catalogue columns) and its scenario."""

    index: int
    params: Mapping[str, Any]
    scenario: Scenario
    run_id: str
    #: The run this one is compared with flow by flow (the all-baseline run of the same
    #: workload), or None outside comparative studies.
    reference: str | None = None

    def describe(self) -> str:
        """``rate=10Mbps algorithm=reno seed=2``: how messages and tables name the point."""
        return " ".join(f"{name}={show_param_value(value)}" for name, value in self.params.items())


def show_param_value(value: Any) -> str:
    return value if isinstance(value, str) else show_value(value)


def unique_runs(points: Iterable[Point]) -> list[Point]:
    """The first point of each distinct run, in order."""
    seen: set[str] = set()
    unique = []
    for point in points:
        if point.run_id not in seen:
            seen.add(point.run_id)
            unique.append(point)
    return unique
