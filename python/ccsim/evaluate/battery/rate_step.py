"""Rate step: one flow's start-up, and its adaptation when the link's rate drops to a fifth and
comes back."""

from __future__ import annotations

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
    Test,
    TestSweep,
    base_scenario,
    role_of,
    sweep_file,
)
from ccsim.evaluate.battery.drawing import Drawing
from ccsim.studies.evidence import NONNEGATIVE

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "rate-step"

#: The rate-step test's link: 100 Mb/s, 20 Mb/s from a third of the run, 100 Mb/s again from
#: two thirds.
STEP_HIGH_BPS = 100e6
STEP_LOW_BPS = 20e6


def step_times(duration_s: float) -> tuple[float, float]:
    """When the rate-step test's link steps down and back up."""
    return duration_s / 3, 2 * duration_s / 3


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    duration = plan.seconds(30, 60)
    down, up = step_times(duration)
    scenario = base_scenario(
        NAME,
        duration,
        [subject.flow(rtt=RTT, mss=MSS)],
        bottleneck_rate=f"{STEP_HIGH_BPS / 1e6:g}Mbps",
        rate_schedule=[
            [f"{down:g}s", f"{STEP_LOW_BPS / 1e6:g}Mbps"],
            [f"{up:g}s", f"{STEP_HIGH_BPS / 1e6:g}Mbps"],
        ],
    )
    scenario["trace"] = {"sample_interval": "10ms"}
    role = role_of(alg, subject)
    sweep = sweep_file(f"{NAME}.{role}", scenario, plan, {})
    return [TestSweep(NAME, subject, role, sweep)]


TIME_TO_90 = Metric("time to 90% utilization", "s", NONNEGATIVE, "{:.2f}")
QUEUE_PEAK = Metric("queue peak", "ms", NONNEGATIVE, "{:.0f}")

#: The flow's sampled goodput is smoothed over this many samples (100 ms) before asking when it
#: reaches 90% of the link.
SMOOTHING_SAMPLES = 10


def measure(run: Run) -> list[Measurement]:
    duration = float(run.results.summary["duration_s"])
    down, up = step_times(duration)
    series = run.results.series
    goodput = series.groupby("t_s")["rate_bps"].sum().sort_index()
    smooth = goodput.rolling(SMOOTHING_SAMPLES, min_periods=1).mean()
    queue = run.results.queues
    queue = queue[(queue["link"] == 0) & (queue["t_s"] >= down) & (queue["t_s"] < up)]
    peak_ms = float(queue["queue_bytes"].max()) * 8 / STEP_LOW_BPS * 1e3
    return [
        run.measurement(TIME_TO_90, "after the start", _time_to(smooth, 0.0, down), 0),
        run.measurement(TIME_TO_90, "after the step up", _time_to(smooth, up, duration), 2),
        run.measurement(QUEUE_PEAK, "after the step down to 20 Mb/s", peak_ms, 1),
    ]


def _time_to(goodput: pd.Series, start: float, end: float) -> float:
    """Seconds from ``start`` until the smoothed goodput first reaches 90% of the 100 Mb/s link
    (samples after ``start`` only); the whole span to ``end`` when it never does (a lower
    bound)."""
    after = goodput[(goodput.index > start) & (goodput.index < end)]
    reached = after[after >= 0.9 * STEP_HIGH_BPS]
    when = float(reached.index[0]) if len(reached) else end
    return when - start


def readings(summary: Summary) -> list[str]:
    start = summary.find(TIME_TO_90, "after the start")
    step_up = summary.find(TIME_TO_90, "after the step up")
    peak = summary.find(QUEUE_PEAK, "after the step down to 20 Mb/s")
    if not (start and step_up and peak and start.value.has_data):
        return []
    return [
        f"It reaches 90% of a 100 Mb/s link {start.value.mean:.1f} s after its start and "
        f"{step_up.value.mean:.1f} s after the link steps back up from 20 Mb/s; the step "
        f"down builds a queue of {peak.value.mean:.0f} ms."
    ]


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    return drawing.bars([TIME_TO_90]) + drawing.bars([QUEUE_PEAK])


TEST = Test(
    NAME,
    "Start-up and adaptation to a rate step",
    "How fast does one flow fill a 100 Mb/s link after its start, and after the link "
    "comes back from 20 Mb/s; how much queue does it build when the rate drops to a "
    "fifth under it?",
    "draft-irtf-iccrg-tcpeval-01, section 5.3 (transients: unresponsive cross traffic "
    "stepping between 0 and 75 Mb/s of a 100 Mb/s link, the time to regain 60-90% of the "
    "BDP)",
    sweeps,
    measure,
    (TIME_TO_90, QUEUE_PEAK),
    ("series", "queues"),
    readings=readings,
    figures=figures,
)
