"""Intra-protocol fairness: flows of the algorithm sharing one bottleneck, at one RTT and
across RTTs."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ccsim.evaluate.battery.common import (
    GOODPUT,
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
from ccsim.metrics import jain_index
from ccsim.studies.evidence import NONNEGATIVE, UNIT

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "intra-fairness"

#: The fairness test's flow counts.
FLOW_COUNTS = (2, 8, 16)
#: The RTT-fairness flows' base RTTs (ms), all through one bottleneck at once.
FAIRNESS_RTTS_MS = (10, 50, 100, 200)


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = role_of(alg, subject)
    duration = plan.seconds(20, 60)
    # Starts spread over the first second, so that the flows do not start in one phase.
    flows = [subject.flow(rtt=RTT, mss=MSS, count=2, start_jitter="1s")]
    scenario = base_scenario(NAME, duration, flows)
    axes = {"flows.0.count": {"name": "flow_count", "values": list(FLOW_COUNTS)}}
    together = sweep_file(f"{NAME}.{role}", scenario, plan, axes)
    rtts = [
        subject.flow(label=f"rtt{ms}ms", rtt=f"{ms}ms", mss=MSS, start_jitter="1s")
        for ms in FAIRNESS_RTTS_MS
    ]
    # The buffer is one BDP of a 100 ms path, as a router sized for the middle of the range.
    rtt_scenario = base_scenario(
        "rtt-fairness", duration, rtts, bdp_rtt="100ms", bottleneck_delay="2ms"
    )
    rtt_sweep = sweep_file(f"rtt-fairness.{role}", rtt_scenario, plan, {})
    return [
        TestSweep(NAME, subject, role, together, warmup_s=duration / 4),
        TestSweep(NAME, subject, role, rtt_sweep, warmup_s=duration / 4),
    ]


JAIN_INDEX = Metric("Jain index", "", UNIT, "{:.3f}")
RTT_EXPONENT = Metric("RTT exponent", "", (-math.inf, math.inf), "{:.2f}")
RTT_RATIO = Metric("10 ms / 200 ms goodput", "", NONNEGATIVE, "{:.2f}")

#: The condition of the numbers over all the RTT-fairness flows.
RTT_CONDITION = "RTT 10, 50, 100, 200 ms"


def measure(run: Run) -> list[Measurement]:
    flows = run.results.flows
    if "flow_count" in run.params:
        n = int(run.params["flow_count"])
        return [run.measurement(JAIN_INDEX, f"{n} flows", jain_index(flows["goodput_bps"]), n)]
    by_label = flows.groupby("label")["goodput_bps"].sum()
    goodputs = [float(by_label[f"rtt{ms}ms"]) for ms in FAIRNESS_RTTS_MS]
    short, long_ = goodputs[0], goodputs[-1]
    condition = RTT_CONDITION
    ratio = short / long_ if long_ > 0 else float("nan")
    exponent = rtt_exponent(FAIRNESS_RTTS_MS, goodputs)
    return [
        *(
            run.measurement(GOODPUT, f"RTT {ms} ms", g / 1e6, ms)
            for ms, g in zip(FAIRNESS_RTTS_MS, goodputs, strict=True)
        ),
        run.measurement(JAIN_INDEX, condition, jain_index(goodputs), 100),
        run.measurement(RTT_RATIO, condition, ratio, 100),
        run.measurement(RTT_EXPONENT, condition, exponent, 100),
    ]


def rtt_exponent(rtts_ms: Sequence[float], goodputs: Sequence[float]) -> float:
    """The slope of log goodput against log RTT, fitted by least squares: goodput grows as
    RTT to this power (0: RTT-fair; -1: goodput inversely proportional to RTT). A flow with no
    goodput counts as 1 kb/s, so that its logarithm is finite."""
    x = np.log(np.asarray(rtts_ms, dtype=float))
    y = np.log(np.maximum(np.asarray(goodputs, dtype=float), 1e3))
    return float(np.polyfit(x, y, 1)[0])


def readings(summary: Summary) -> list[str]:
    eight = summary.find(JAIN_INDEX, "8 flows")
    sixteen = summary.find(JAIN_INDEX, "16 flows")
    exponent = summary.find(RTT_EXPONENT, RTT_CONDITION)
    rtt = summary.find(RTT_RATIO, RTT_CONDITION)
    if not (eight and eight.value.has_data):
        return []
    text = f"Eight flows of {summary.name} reach a Jain index of {eight.value.mean:.2f}"
    if sixteen and sixteen.value.has_data:
        text += f", sixteen {sixteen.value.mean:.2f}"
    if exponent and exponent.value.has_data:
        text += (
            f"; across RTTs of 10-200 ms its goodput goes as RTT to the power "
            f"{RTT_EXPONENT.shown(exponent.value)} (0 is RTT-fair)"
        )
    if rtt and rtt.value.has_data:
        text += f", a 10 ms flow getting {rtt.value.mean:.1f} times a 200 ms flow's goodput"
    return [text + "."]


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    import matplotlib.pyplot as plt

    out = []
    if drawing.measured(GOODPUT):
        figure, ax = plt.subplots(figsize=(6, 4))
        drawing.lines(GOODPUT, ax, log_x=True)
        ax.set_yscale("log")
        ax.set_xlabel("base RTT (ms), four flows through one bottleneck")
        drawing.legend(ax)
        out.append(("rtt-fairness", drawing.png(figure)))
    return out + drawing.bars([JAIN_INDEX])


TEST = Test(
    NAME,
    "Fairness among flows of the algorithm, and across RTTs",
    "Do flows of the same algorithm share equally (2, 8 and 16 flows), and how does the "
    "goodput of flows at 10, 50, 100 and 200 ms of RTT through one bottleneck depend on "
    "their RTT?",
    "draft-irtf-iccrg-tcpeval-01, section 6.2 (intra-protocol and inter-RTT fairness: RTTs "
    "of 10-160 ms, the ratio of two flows' throughputs)",
    sweeps,
    measure,
    (GOODPUT, JAIN_INDEX, RTT_EXPONENT, RTT_RATIO),
    ("flows",),
    readings=readings,
    figures=figures,
)
