"""What every test of the battery shares: the types a test is made of and returns, the access
path most tests use, and the helpers that render a sweep file."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MSS",
    "RATE",
    "RATE_BPS",
    "RTT",
    "RTT_S",
    "Algorithm",
    "Measurement",
    "Plan",
    "Test",
    "TestSweep",
    "base_scenario",
    "role_of",
    "sweep_file",
]

# The path every test but the fairness ones uses: the TCP evaluation suite's access-link scale,
# 50 Mb/s with a 40 ms base RTT.
RATE = "50Mbps"
RATE_BPS = 50e6
RTT = "40ms"
RTT_S = 0.040
MSS = 1448


@dataclass(frozen=True)
class Algorithm:
    """An algorithm under test: a ``cc`` value (a built-in name or ``module:Class``), its
    parameters, and the short name used in tables and directory names."""

    name: str
    cc: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def flow(self, **settings: Any) -> dict[str, Any]:
        flow: dict[str, Any] = {"cc": self.cc, **settings}
        if self.params:
            flow["params"] = dict(self.params)
        return flow

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9._-]", "_", self.name)


@dataclass(frozen=True)
class Plan:
    """How large a battery run is: points per axis, seeds and run length."""

    quick: bool
    seeds: tuple[int, ...]
    time_scale: float = 1.0

    def seconds(self, quick_s: float, full_s: float) -> float:
        return (quick_s if self.quick else full_s) * self.time_scale


@dataclass(frozen=True)
class TestSweep:
    """One sweep of a test: the algorithm it measures (``subject``), the one it competes with
    (``opponent``, inter-protocol only), and the sweep file as data."""

    test: str
    subject: Algorithm
    role: str  # "alg" for the algorithm evaluated, else the baseline's name
    sweep: dict[str, Any]
    opponent: Algorithm | None = None
    warmup_s: float = 0.0
    #: The opponent's role: "alg" for the algorithm evaluated, else the baseline's name.
    opponent_role: str | None = None
    #: For a test with one sweep per condition (paths): the condition and where it sorts.
    condition: str = ""
    order: float = 0.0

    @property
    def name(self) -> str:
        """The sweep's name: its directory under ``sweeps/`` and its file under ``scenarios/``."""
        return str(self.sweep["name"])


@dataclass(frozen=True)
class Measurement:
    """One number measured in one run: the test and metric, the condition (a point of the
    test's axis), which algorithm it measures, the run's seed and the value."""

    test: str
    metric: str
    condition: str
    role: str  # "alg" or a baseline's name
    seed: int
    value: float
    order: float = 0.0  # where the condition sorts among the test's (its axis value)


@dataclass(frozen=True)
class Test:
    name: str
    title: str
    why: str
    source: str
    #: The sweeps for one algorithm (and, for inter-protocol, each opponent).
    sweeps: Callable[[Algorithm, Algorithm, list[Algorithm], Plan], list[TestSweep]]


def base_scenario(
    name: str, duration_s: float, flows: list[dict[str, Any]], **topology: Any
) -> dict[str, Any]:
    """A scenario on the access path (a dumbbell), its topology's keys overridden by
    ``topology``."""
    return {
        "name": name,
        "duration": f"{duration_s:g}s",
        "profile": "linux",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": RATE,
            "bottleneck_delay": "10ms",
            "access_rate": "1Gbps",
            "buffer": "1bdp",
            "queue": "droptail",
            **topology,
        },
        "flows": flows,
    }


def sweep_file(
    name: str, scenario: dict[str, Any], plan: Plan, axes: Mapping[str, Any]
) -> dict[str, Any]:
    """A sweep file as data: the scenario inline, every seed of the plan, the axes."""
    return {"name": name, "scenario": scenario, "seeds": list(plan.seeds), "axes": dict(axes)}


def role_of(alg: Algorithm, subject: Algorithm) -> str:
    """``subject``'s role: "alg" for the algorithm evaluated, else the baseline's name."""
    return "alg" if subject is alg else subject.slug
