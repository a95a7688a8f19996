"""Convergence: how long a second flow of the algorithm takes to share fairly with a running
one."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ccsim.evaluate.battery.common import (
    MSS,
    RTT,
    Algorithm,
    Measurement,
    Metric,
    Plan,
    Run,
    Summary,
    SummaryRow,
    Test,
    TestSweep,
    base_scenario,
    role_of,
    sweep_file,
)
from ccsim.evaluate.battery.drawing import Drawing
from ccsim.studies.evidence import NONNEGATIVE

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "convergence"

#: The convergence test's windows: Jain's index of the two flows' goodputs over each window of
#: this length, the windows starting every step.
CONVERGENCE_WINDOW_S = 1.0
CONVERGENCE_STEP_S = 0.1
#: The index the windows must keep from the convergence time on.
CONVERGENCE_JAIN = 0.9
#: The flows' sampling interval (s).
SAMPLE_INTERVAL_S = 0.01


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
    scenario = base_scenario(NAME, duration, flows)
    scenario["trace"] = {"sample_interval": f"{SAMPLE_INTERVAL_S * 1e3:g}ms"}
    sweep = sweep_file(f"{NAME}.{role}", scenario, plan, {})
    return [TestSweep(NAME, subject, role, sweep)]


CONVERGENCE_TIME = Metric("convergence time", "s", NONNEGATIVE, "{:.1f}")
RAMP_UP_TIME = Metric("ramp-up time", "s", NONNEGATIVE, "{:.2f}")

#: The evaluation suite's ramp-up marks (section 5.2): the second flow's 1500 x 10^n-th byte.
RAMP_UP_BYTES = (15_000, 150_000, 1_500_000, 15_000_000)


def measure(run: Run) -> list[Measurement]:
    duration = float(run.results.summary["duration_s"])
    join = join_time(duration)
    series = run.results.series
    time = convergence_time(series, join, duration)
    out = [run.measurement(CONVERGENCE_TIME, "second flow joins", time, 0)]
    reached = ramp_up_times(series[series["flow"] == 1], join)
    for i, (size, after) in enumerate(zip(RAMP_UP_BYTES, reached, strict=True)):
        out.append(run.measurement(RAMP_UP_TIME, _ramp_up_condition(size), after, i + 1))
    return out


def ramp_up_times(series: pd.DataFrame, join: float) -> list[float]:
    """Seconds from ``join`` until the flow of ``series`` (its samples every
    :data:`SAMPLE_INTERVAL_S`: ``t_s`` and the goodput ``rate_bps`` since the sample before) has
    had each of :data:`RAMP_UP_BYTES` acknowledged, to the samples' resolution; a size never
    reached gets the time to the last sample (a lower bound)."""
    times = series["t_s"].to_numpy(dtype=float)
    if not len(times):
        return [0.0] * len(RAMP_UP_BYTES)
    # Each sample's rate is the bytes acknowledged since the one before over the interval.
    acked = np.cumsum(series["rate_bps"].to_numpy(dtype=float) * SAMPLE_INTERVAL_S / 8)
    out = []
    for size in RAMP_UP_BYTES:
        # A little slack for the rates' rounding: the bytes are whole, the sums are not.
        at = int(np.searchsorted(acked, size - 0.5))
        out.append(float((times[at] if at < len(times) else times[-1]) - join))
    return out


def _size(size: int) -> str:
    return f"{size / 1e6:g} MB" if size >= 1_000_000 else f"{size // 1000} KB"


def _ramp_up_condition(size: int) -> str:
    return f"second flow's {_size(size)}"


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
    return [_converged_reading(summary, converged), *_ramp_up_reading(summary)]


def _ramp_up_reading(summary: Summary) -> list[str]:
    marks = [
        (size, row)
        for size in RAMP_UP_BYTES
        if (row := summary.find(RAMP_UP_TIME, _ramp_up_condition(size))) and row.value.has_data
    ]
    if not marks:
        return []
    parts = ", ".join(
        f"{_size(size)} in {RAMP_UP_TIME.fmt.format(row.value.mean)} s" for size, row in marks
    )
    return [
        f"The joining {summary.name} flow has {parts} acknowledged after it starts (the "
        "suite's ramp-up marks)."
    ]


def _converged_reading(summary: Summary, converged: SummaryRow) -> str:
    name = summary.name
    longest = _longest_measurable(summary.plan)
    censored = sum(v >= longest - 1e-6 for v in converged.value.values.values())
    window = f"{CONVERGENCE_WINDOW_S:g} s"
    if censored == converged.value.n:
        return (
            f"A second {name} flow joining a running one does not reach a fair share (Jain "
            f"index >= {CONVERGENCE_JAIN:g} over every {window} window from then on) within "
            f"the {longest:.0f} s measured."
        )
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
    return text + "."


def _longest_measurable(plan: Plan) -> float:
    """The longest convergence time the test can measure: from the join to the last window."""
    duration = plan.seconds(*DURATION_S)
    return duration - join_time(duration) - CONVERGENCE_WINDOW_S


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    return drawing.bars([CONVERGENCE_TIME, RAMP_UP_TIME])


TEST = Test(
    NAME,
    "Convergence of a second flow",
    "A flow of the algorithm runs alone; a second one joins at a third of the run. How "
    "long until the two share fairly, Jain's index over every 1 s window from then on at "
    "least 0.9? And how soon has the newcomer had 15 KB, 150 KB, 1.5 MB and 15 MB "
    "acknowledged?",
    "draft-irtf-iccrg-tcpeval-01, section 5.2 (ramp-up time: how quickly existing flows "
    "make room for a new one, timed at the new flow's 1500 x 10^n-th byte; the suite starts "
    "the newcomer without slow start, ccsim with it)",
    sweeps,
    measure,
    (CONVERGENCE_TIME, RAMP_UP_TIME),
    ("series",),
    readings=readings,
    figures=figures,
)
