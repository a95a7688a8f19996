"""Convergence: how long a second flow of the algorithm takes to share fairly with a running
one."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ccsim.evaluate.battery.common import (
    MSS,
    RTT,
    Algorithm,
    Drawing,
    Measurement,
    Metric,
    Plan,
    Run,
    Summary,
    Test,
    TestSweep,
    base_scenario,
    role_of,
    sweep_file,
)
from ccsim.studies.evidence import NONNEGATIVE

#: The convergence test's windows: Jain's index of the two flows' goodputs over each window of
#: this length, the windows starting every step.
CONVERGENCE_WINDOW_S = 1.0
CONVERGENCE_STEP_S = 0.1
#: The index the windows must keep from the convergence time on.
CONVERGENCE_JAIN = 0.9


def join_time(duration_s: float) -> float:
    """When the convergence test's second flow starts."""
    return duration_s / 3


#: The run lengths, quick and full (s).
DURATION_S = (30, 60)


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = role_of(alg, subject)
    duration = plan.seconds(*DURATION_S)
    flows = [
        subject.flow(label="first", rtt=RTT, mss=MSS),
        subject.flow(label="second", rtt=RTT, mss=MSS, start=f"{join_time(duration):g}s"),
    ]
    scenario = base_scenario("convergence", duration, flows)
    scenario["trace"] = {"sample_interval": "10ms"}
    sweep = sweep_file(f"convergence.{role}", scenario, plan, {})
    return [TestSweep("convergence", subject, role, sweep)]


CONVERGENCE_TIME = Metric("convergence time", "s", NONNEGATIVE, "{:.1f}")


def measure(run: Run) -> list[Measurement]:
    duration = float(run.results.summary["duration_s"])
    time = convergence_time(run.results.series, join_time(duration), duration)
    return [run.measurement(CONVERGENCE_TIME, "second flow joins", time, 0)]


def convergence_time(series: pd.DataFrame, join: float, end: float) -> float:
    """Seconds from ``join`` until Jain's index of the flows' goodputs, over every window of
    :data:`CONVERGENCE_WINDOW_S` starting on a :data:`CONVERGENCE_STEP_S` grid from then to the
    run's end, stays at least :data:`CONVERGENCE_JAIN`; when the last window is below it, the
    whole span from ``join`` to that window's start (a lower bound)."""
    rates = series[series["t_s"] > join].pivot_table(
        index="t_s", columns="flow", values="rate_bps", aggfunc="sum", fill_value=0.0
    )
    starts = np.arange(join, end - CONVERGENCE_WINDOW_S + 1e-9, CONVERGENCE_STEP_S)
    if rates.shape[1] < 2 or not len(starts):
        return max(end - CONVERGENCE_WINDOW_S - join, 0.0)
    times = rates.index.to_numpy(dtype=float)
    values = rates.to_numpy(dtype=float)
    # Cumulative sums give each window's mean rate per flow in one subtraction.
    cumulative = np.vstack([np.zeros(values.shape[1]), np.cumsum(values, axis=0)])
    low = np.searchsorted(times, starts, side="right")
    high = np.searchsorted(times, starts + CONVERGENCE_WINDOW_S, side="right")
    sums = cumulative[high] - cumulative[low]
    squares = (sums**2).sum(axis=1)
    jain = np.where(squares > 0, sums.sum(axis=1) ** 2 / (sums.shape[1] * squares), 0.0)
    below = np.flatnonzero(jain < CONVERGENCE_JAIN)
    if not len(below):
        return 0.0
    last = int(below[-1])
    if last == len(starts) - 1:
        return float(starts[last] - join)
    return float(starts[last + 1] - join)


def readings(summary: Summary) -> list[str]:
    converged = summary.find(CONVERGENCE_TIME, "second flow joins")
    if not (converged and converged.value.has_data):
        return []
    name = summary.name
    longest = _longest_measurable(summary.plan)
    censored = sum(v >= longest - 1e-6 for v in converged.value.values.values())
    window = f"{CONVERGENCE_WINDOW_S:g} s"
    if censored == converged.value.n:
        return [
            f"A second {name} flow joining a running one does not reach a fair share (Jain "
            f"index >= {CONVERGENCE_JAIN:g} over every {window} window from then on) within "
            f"the {longest:.0f} s measured."
        ]
    text = (
        f"A second {name} flow joining a running one shares fairly (Jain index >= "
        f"{CONVERGENCE_JAIN:g} over every {window} window from then on) after "
        f"{CONVERGENCE_TIME.shown(converged.value)} s"
    )
    if censored:
        text += (
            f" (in {censored} of {converged.value.n} seeds not within the "
            f"{longest:.0f} s measured: a lower bound)"
        )
    return [text + "."]


def _longest_measurable(plan: Plan) -> float:
    """The longest convergence time the test can measure: from the join to the last window."""
    duration = plan.seconds(*DURATION_S)
    return duration - join_time(duration) - CONVERGENCE_WINDOW_S


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    return drawing.bars([CONVERGENCE_TIME])


TEST = Test(
    "convergence",
    "Convergence of a second flow",
    "A flow of the algorithm runs alone; a second one joins at a third of the run. How "
    "long until the two share fairly, Jain's index over every 1 s window from then on at "
    "least 0.9?",
    "draft-irtf-iccrg-tcpeval-01, section 5.2 (ramp-up time: how quickly existing flows "
    "make room for a new one; it times the new flow's 1500 x 10^n-th byte, ccsim the "
    "share's convergence)",
    sweeps,
    measure,
    (CONVERGENCE_TIME,),
    ("series",),
    readings=readings,
    figures=figures,
)
