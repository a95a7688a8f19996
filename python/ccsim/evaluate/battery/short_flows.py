"""Short flows: completion times of web-like transfers beside one long flow of the algorithm."""

from __future__ import annotations

import math

import numpy as np

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
NAME = "short-flows"

#: The short-flow test's workload: open-loop arrivals of web-like transfers with Pareto sizes
#: (the heavy tail of web objects), run by CUBIC, Linux's default, whatever the background.
SHORT_RATE_PER_S = 20.0
SHORT_MEAN = "50KB"
SHORT_SHAPE = 1.2
SHORT_CC = "cubic"
#: The size classes' upper bounds in bytes: within Linux's initial window of 10 segments
#: (14.5 KB), up to ten times that, then the rest.
SHORT_CLASSES = ((15_000, "< 15 KB"), (150_000, "15-150 KB"), (math.inf, ">= 150 KB"))


def short_window(duration_s: float) -> tuple[float, float]:
    """When the short-flow test's transfers start arriving and stop: after the background flow's
    start-up, and early enough that every transfer has a fifth of the run to finish."""
    return duration_s / 5, 4 * duration_s / 5


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = role_of(alg, subject)
    duration = plan.seconds(20, 60)
    start, stop = short_window(duration)
    flows = [subject.flow(label="background", rtt=RTT, mss=MSS)]
    scenario = base_scenario(NAME, duration, flows)
    scenario["generators"] = [
        {
            "kind": "open_loop",
            "label": "web",
            "rate": SHORT_RATE_PER_S,
            "start": f"{start:g}s",
            "stop": f"{stop:g}s",
            "size": {"dist": "pareto", "mean": SHORT_MEAN, "shape": SHORT_SHAPE},
            "cc": SHORT_CC,
            "rtt_choices": [RTT],
            "mss": MSS,
        }
    ]
    sweep = sweep_file(f"{NAME}.{role}", scenario, plan, {})
    return [TestSweep(NAME, subject, role, sweep)]


MEDIAN_COMPLETION = Metric("median completion time", "ms", NONNEGATIVE, "{:.0f}")
P95_COMPLETION = Metric("p95 completion time", "ms", NONNEGATIVE, "{:.0f}")


def measure(run: Run) -> list[Measurement]:
    duration = float(run.results.summary["duration_s"])
    flows = run.results.flows
    web = flows[flows["label"] != "background"]
    # A transfer unfinished at the end counts with the time it had (a lower bound).
    times = np.where(
        web["completed"].astype(bool),
        web["completion_s"].astype(float),
        duration - web["start_s"].astype(float),
    )
    sizes = web["size_bytes"].to_numpy(dtype=float)
    out = []
    low = 0.0
    for i, (high, label) in enumerate(SHORT_CLASSES):
        chosen = times[(sizes >= low) & (sizes < high)] * 1e3
        low = high
        if not len(chosen):
            continue
        out.append(run.measurement(MEDIAN_COMPLETION, label, float(np.median(chosen)), i))
        out.append(run.measurement(P95_COMPLETION, label, float(np.percentile(chosen, 95)), i))
    return out


def readings(summary: Summary) -> list[str]:
    """The short transfers' median and 95th percentile by size class beside ALG, each with the
    baselines' in brackets."""
    parts = []
    for _, label in SHORT_CLASSES:
        median = summary.find(MEDIAN_COMPLETION, label)
        p95 = summary.find(P95_COMPLETION, label)
        if not (median and p95 and median.value.has_data):
            continue
        text = f"{label} in {median.value.mean:.0f} ms (95th percentile {p95.value.mean:.0f} ms"
        others = [
            f"{c.value.mean:.0f} ms beside {c.baseline}: "
            + P95_COMPLETION.against(c.difference, c.baseline)
            for c in p95.comparisons
        ]
        parts.append(text + (f"; {'; '.join(others)}" if others else "") + ")")
    if not parts:
        return []
    return [
        f"Web-like transfers beside one long {summary.name} flow finish: " + ", ".join(parts) + "."
    ]


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    return drawing.bars([MEDIAN_COMPLETION, P95_COMPLETION])


TEST = Test(
    NAME,
    "Completion times of short transfers beside a long flow",
    "Web-like transfers (open-loop arrivals, 20 a second, Pareto sizes with a mean of "
    "50 KB, run by CUBIC) share the link with one long flow of the algorithm: how long "
    "do they take, by size, with it in the background rather than a baseline (the same "
    "arrivals and sizes under each seed)?",
    "draft-irtf-iccrg-tcpeval-01, section 4.5 (the transfer time per flow against its "
    "size); Ware et al., HotNets "
    "2019 (harm to short flows' completion times)",
    sweeps,
    measure,
    (MEDIAN_COMPLETION, P95_COMPLETION),
    ("flows",),
    readings=readings,
    figures=figures,
)
