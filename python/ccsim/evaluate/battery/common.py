"""What every test of the battery shares: the types a test is made of and returns, the access
path most tests use, the helpers that render a sweep file, and what a test's reading sentences
are drawn from (:class:`Summary`). A metric's type is in :mod:`~ccsim.evaluate.battery.metric`,
what a test's figures are drawn from in :mod:`~ccsim.evaluate.battery.drawing`."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim.evaluate.battery.metric import Metric
from ccsim.results import Results
from ccsim.studies.evidence import NONNEGATIVE, Quantity

if TYPE_CHECKING:
    from ccsim.evaluate.battery.drawing import Drawing

__all__ = [
    "DROP_RATE",
    "GOODPUT",
    "MEAN_QUEUE_DELAY",
    "MSS",
    "RATE",
    "RATE_BPS",
    "RTT",
    "RTT_S",
    "UTILIZATION",
    "Algorithm",
    "Comparison",
    "Measurement",
    "Metric",
    "Plan",
    "Run",
    "Summary",
    "SummaryRow",
    "Test",
    "TestSweep",
    "base_scenario",
    "role_of",
    "sweep_file",
]

# The path most tests use, ccsim's own: 50 Mb/s with a 40 ms base RTT. (The TCP evaluation
# suite's access link, 100 Mb/s with nine RTTs of 8-204 ms, is basic_scenarios'.)
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
    #: The paths test's cellular trace (a Mahimahi ``.down`` file); None: the synthetic one.
    cellular_trace: Path | None = None

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


#: Metrics more than one test reports.
GOODPUT = Metric("goodput", "Mb/s", NONNEGATIVE, "{:.2f}")
UTILIZATION = Metric("utilization", "%", (0.0, 100.0), "{:.1f}")
MEAN_QUEUE_DELAY = Metric("mean queue delay", "ms", NONNEGATIVE, "{:.1f}")
DROP_RATE = Metric("drop rate", "%", (0.0, 100.0), "{:.2f}")


@dataclass(frozen=True)
class Run:
    """One finished run of a test's sweep: the sweep, the point's parameters (its axis values
    and seed) and the run's results (the summary and the tables its test reads)."""

    sweep: TestSweep
    params: Mapping[str, Any]
    results: Results

    def measurement(
        self, metric: Metric | str, condition: str, value: float, order: float = 0.0
    ) -> Measurement:
        """A number of this run. A metric given by a name that starts with "_" is raw: kept in
        measurements.csv for a number derived over several runs, not summarised."""
        name = metric if isinstance(metric, str) else metric.name
        seed = int(self.params["seed"])
        return Measurement(
            self.sweep.test, name, condition, self.sweep.role, seed, float(value), order
        )


@dataclass(frozen=True)
class Comparison:
    """A baseline's quantity and the paired difference (evaluated minus baseline)."""

    baseline: str
    value: Quantity
    difference: Quantity


@dataclass(frozen=True)
class SummaryRow:
    """One row of the summary: a test's metric at one condition, the evaluated algorithm's
    quantity over seeds, the comparisons with the baselines, and the metric's unit."""

    test: str
    metric: str
    condition: str
    order: float
    value: Quantity
    comparisons: tuple[Comparison, ...]
    unit: str


@dataclass(frozen=True)
class Summary:
    """What a test's reading sentences are drawn from: its rows of the summary, the evaluated
    algorithm's name, the baselines' and the plan."""

    rows: Sequence[SummaryRow]
    name: str
    baselines: Sequence[str]
    plan: Plan

    def find(self, metric: Metric, condition: str) -> SummaryRow | None:
        """The row of ``metric`` at ``condition``."""
        for row in self.rows:
            if (row.metric, row.condition) == (metric.name, condition):
                return row
        return None


@dataclass(frozen=True)
class Test:
    """One test of the battery: what it asks and where it comes from, its sweeps, what it
    measures in each run, and what the card says and draws of it."""

    name: str
    title: str
    why: str
    source: str
    #: The sweeps for one algorithm (and, for inter-protocol, each opponent).
    sweeps: Callable[[Algorithm, Algorithm, list[Algorithm], Plan], list[TestSweep]]
    #: The measurements of one run.
    measure: Callable[[Run], list[Measurement]]
    #: The metrics it reports, in the order the summary lists them.
    metrics: tuple[Metric, ...]
    #: The result tables ``measure`` reads (the others are not loaded).
    tables: tuple[str, ...]
    #: Measurements derived once every run is measured (from raw ones; harm needs two runs),
    #: given the baselines' names.
    derive: Callable[[Sequence[Measurement], Sequence[str]], list[Measurement]] | None = None
    #: Plain-language sentences drawn from its summary rows.
    readings: Callable[[Summary], list[str]] | None = None
    #: A reading of one summary row of its own, after the comparisons with the baselines
    #: (None for a row it says nothing of).
    row_reading: Callable[[SummaryRow], str | None] | None = None
    #: Its figures, each a name and a PNG.
    figures: Callable[[Drawing], list[tuple[str, bytes]]] | None = None


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
