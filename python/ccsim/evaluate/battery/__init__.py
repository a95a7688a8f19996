"""The evaluation battery: named tests, each a sweep template rendered for one algorithm.

Each test is one module of this package, holding all of it: its sweeps, what it measures in one
run and the metrics it reports, and the card's sentences and figures of it. This module lists
the tests in the battery's order (:data:`TESTS`), gathers their metrics (:data:`METRICS`) and
renders every sweep of an evaluation (:func:`battery`). The types they share are in
:mod:`~ccsim.evaluate.battery.common`.

The templates are code that renders sweep files (dicts shaped like the TOML of
docs/experiments.md, the base scenario inline): a test's points, seeds and run length depend on
``--quick``, and its flows on the algorithm evaluated, so each is a function rather than a
fixed file. Every rendered sweep is written into the output directory as a sweep file a user
can open and run again with ``ccsim sweep``.

Every sweep of one evaluation uses the same seeds: the engine keys each random draw by seed,
entity and purpose, so the evaluated algorithm and each baseline see the same link losses and
start times, and their results are compared seed by seed (common random numbers).

Bump :data:`BATTERY_VERSION` whenever a test's scenario, points or measurements change: reports
made under different versions are not comparable.
"""

from __future__ import annotations

from ccsim.evaluate.battery import (
    basic_scenarios,
    convergence,
    delay_throughput,
    inter_protocol,
    intra_fairness,
    multi_bottleneck,
    paths,
    random_loss,
    rate_step,
    short_flows,
    single_flow,
    standard_tcp,
)
from ccsim.evaluate.battery.common import (
    Algorithm,
    Measurement,
    Metric,
    Plan,
    Test,
    TestSweep,
)

__all__ = [
    "BATTERY_VERSION",
    "METRICS",
    "TESTS",
    "TIME_SCALE",
    "Algorithm",
    "Measurement",
    "Metric",
    "Plan",
    "Test",
    "TestSweep",
    "battery",
]

#: The battery's version, printed in every report card and summary.
BATTERY_VERSION = "3"

#: Tests' simulated durations are multiplied by this (tests of ccsim itself shorten runs with it;
#: a report made with any other value says so).
TIME_SCALE = 1.0

#: The tests, in the battery's order (the order of the summary, the readings and the card's
#: sections).
TESTS: dict[str, Test] = {
    module.TEST.name: module.TEST
    for module in [
        single_flow,
        delay_throughput,
        random_loss,
        intra_fairness,
        multi_bottleneck,
        convergence,
        inter_protocol,
        short_flows,
        rate_step,
        paths,
        basic_scenarios,
        standard_tcp,
    ]
}


def _metrics() -> dict[str, Metric]:
    metrics: dict[str, Metric] = {}
    for test in TESTS.values():
        for metric in test.metrics:
            # Two tests reporting one metric name must report the same metric.
            if metrics.setdefault(metric.name, metric) != metric:
                raise ValueError(f"two metrics named {metric.name!r} differ (test {test.name})")
    return metrics


#: Every test's metrics, by name.
METRICS = _metrics()


def battery(alg: Algorithm, against: list[Algorithm], plan: Plan) -> list[TestSweep]:
    """Every sweep of the battery: each test for ``alg``, then for each baseline."""
    sweeps: list[TestSweep] = []
    for test in TESTS.values():
        for subject in [alg, *against]:
            sweeps.extend(test.sweeps(alg, subject, against, plan))
    return sweeps
