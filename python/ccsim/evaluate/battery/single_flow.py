"""Single flow: one flow's utilization and queueing delay against the buffer's size."""

from __future__ import annotations

import numpy as np

from ccsim.evaluate.battery.common import (
    MEAN_QUEUE_DELAY,
    MSS,
    RATE_BPS,
    RTT,
    UTILIZATION,
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
NAME = "single-flow"

BUFFERS_QUICK = (0.1, 1.0, 10.0)
BUFFERS_FULL = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    buffers = BUFFERS_QUICK if plan.quick else BUFFERS_FULL
    duration = plan.seconds(10, 30)
    scenario = base_scenario(NAME, duration, [subject.flow(rtt=RTT, mss=MSS)])
    scenario["trace"] = {"sample_interval": "10ms"}
    axes = {"topology.buffer": {"name": "buffer", "values": [f"{b:g}bdp" for b in buffers]}}
    name = f"{NAME}.{role_of(alg, subject)}"
    sweep = sweep_file(name, scenario, plan, axes)
    return [TestSweep(NAME, subject, role_of(alg, subject), sweep, warmup_s=duration / 5)]


P95_QUEUE_DELAY = Metric("p95 queue delay", "ms", NONNEGATIVE, "{:.1f}")


def measure(run: Run) -> list[Measurement]:
    bdp = float(str(run.params["buffer"]).removesuffix("bdp"))
    condition = f"buffer {bdp:g} BDP"
    links = run.results.links
    utilization = float(links.loc[links["link"] == 0, "utilization"].iloc[0])
    queue = run.results.queues
    queue = queue[(queue["link"] == 0) & (queue["t_s"] >= run.sweep.warmup_s)]
    delay_ms = queue["queue_bytes"].to_numpy(dtype=float) * 8 / RATE_BPS * 1e3
    return [
        run.measurement(UTILIZATION, condition, 100 * utilization, bdp),
        run.measurement(MEAN_QUEUE_DELAY, condition, float(np.mean(delay_ms)), bdp),
        run.measurement(P95_QUEUE_DELAY, condition, float(np.percentile(delay_ms, 95)), bdp),
    ]


def readings(summary: Summary) -> list[str]:
    util = summary.find(UTILIZATION, "buffer 1 BDP")
    delay = summary.find(MEAN_QUEUE_DELAY, "buffer 1 BDP")
    shallow = summary.find(UTILIZATION, "buffer 0.1 BDP")
    deep = summary.find(MEAN_QUEUE_DELAY, "buffer 10 BDP")
    if not (util and delay and util.value.has_data and delay.value.has_data):
        return []
    text = (
        f"{summary.name} fills {util.value.mean:.0f}% of the link with "
        f"{delay.value.mean:.1f} ms of mean queueing delay at 1 BDP"
    )
    if shallow and shallow.value.has_data:
        text += f", {shallow.value.mean:.0f}% at 0.1 BDP"
    if deep and deep.value.has_data:
        text += f"; with a 10 BDP buffer it keeps {deep.value.mean:.0f} ms of queue"
    return [text + "."]


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    import matplotlib.pyplot as plt

    if not drawing.measured(UTILIZATION):
        return []
    figure, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for ax, metric in zip(axes, [UTILIZATION, MEAN_QUEUE_DELAY, P95_QUEUE_DELAY], strict=True):
        drawing.lines(metric, ax, log_x=True)
        ax.set_xlabel("buffer (BDP)")
    drawing.legend(axes[0])
    return [(NAME, drawing.png(figure))]


TEST = Test(
    NAME,
    "One flow: utilization and queueing delay against buffer size",
    "Does the algorithm fill the link with a shallow buffer, and how much queue does it "
    "keep with a deep one?",
    "draft-irtf-iccrg-tcpeval-01, section 5.1 (the delay/throughput trade-off against "
    "buffer size: 10-200% of a BDP; ccsim's range reaches 10 BDP)",
    sweeps,
    measure,
    (UTILIZATION, MEAN_QUEUE_DELAY, P95_QUEUE_DELAY),
    ("links", "queues"),
    readings=readings,
    figures=figures,
)
