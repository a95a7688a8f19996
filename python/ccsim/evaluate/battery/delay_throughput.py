"""Delay against throughput: the evaluation suite's access link at 85% load with buffers of 10% to
200% of a BDP (draft-irtf-iccrg-tcpeval-01, section 5.1)."""

from __future__ import annotations

import dataclasses

from ccsim.evaluate.battery.common import (
    DROP_RATE,
    MEAN_QUEUE_DELAY,
    UTILIZATION,
    Algorithm,
    Measurement,
    Plan,
    Run,
    Summary,
    Test,
    TestSweep,
    role_of,
    sweep_file,
)
from ccsim.evaluate.battery.drawing import Drawing
from ccsim.evaluate.battery.suite import ACCESS_LINK, central_link, generators

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "delay-throughput"

#: The buffers, in % of the BDP of a 100 ms flow (the access link's mean base RTT): the suite's
#: five, and three of them in a quick run.
BUFFERS_FULL = (10, 20, 50, 100, 200)
BUFFERS_QUICK = (10, 50, 200)
#: The suite's load for this test (section 5.1.1): the access link's high load.
LOAD = 0.85


def condition_of(buffer_pct: int) -> str:
    return f"buffer {buffer_pct}% of BDP"


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = role_of(alg, subject)
    duration = plan.seconds(20, 60)
    out = []
    for buffer_pct in BUFFERS_QUICK if plan.quick else BUFFERS_FULL:
        link = dataclasses.replace(ACCESS_LINK, buffer_s=ACCESS_LINK.buffer_s * buffer_pct / 100)
        spec = {
            "name": f"{NAME}-{buffer_pct}",
            "duration": f"{duration:g}s",
            "profile": "linux",
            "topology": link.topology(),
            "generators": generators(link, subject.flow(), LOAD),
        }
        sweep = sweep_file(f"{NAME}.buffer{buffer_pct}.{role}", spec, plan, {})
        out.append(
            TestSweep(
                NAME, subject, role, sweep, condition=condition_of(buffer_pct), order=buffer_pct
            )
        )
    return out


def measure(run: Run) -> list[Measurement]:
    """The suite's three figures (section 5.1.3) of the access link's forward direction: its
    utilization, drop rate and the mean queueing delay of the packets it admitted, over the
    whole run."""
    return central_link(run, both_ways=False)


def readings(summary: Summary) -> list[str]:
    """The forward direction's throughput and delay at the smallest and largest buffer."""
    low = condition_of(min(BUFFERS_QUICK if summary.plan.quick else BUFFERS_FULL))
    high = condition_of(max(BUFFERS_QUICK if summary.plan.quick else BUFFERS_FULL))
    rows = [
        (summary.find(UTILIZATION, c), summary.find(MEAN_QUEUE_DELAY, c), c) for c in (low, high)
    ]
    if not all(u and d and u.value.has_data and d.value.has_data for u, d, _ in rows):
        return []
    parts = [
        f"{u.value.mean:.0f}% of the link at {MEAN_QUEUE_DELAY.fmt.format(d.value.mean)} ms of "
        f"queueing delay with a {c.removeprefix('buffer ')} buffer"
        for u, d, c in rows
        if u is not None and d is not None
    ]
    return [
        f"At 85% offered load on the suite's access link, {summary.name}'s transfers use "
        + " and ".join(parts)
        + "."
    ]


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    """The suite's delay/throughput and delay/drop-rate graphs: the mean queueing delay against
    the utilization and against the drop rate, a point per buffer, a line per algorithm."""
    import matplotlib.pyplot as plt

    if not drawing.measured(UTILIZATION):
        return []
    frame = drawing.frame
    means = frame.pivot_table(
        index=["role", "order"], columns="metric", values="value", aggfunc="mean"
    )
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for role, label in drawing.roles:
        if role not in means.index.get_level_values("role"):
            continue
        chosen = means.loc[role].sort_index()
        for ax, metric in zip(axes, (UTILIZATION, DROP_RATE), strict=True):
            ax.plot(chosen[MEAN_QUEUE_DELAY.name], chosen[metric.name], marker="o", label=label)
            for buffer_pct, row in chosen.iterrows():
                ax.annotate(
                    f"{buffer_pct:g}%", (row[MEAN_QUEUE_DELAY.name], row[metric.name]), fontsize=7
                )
    for ax, metric in zip(axes, (UTILIZATION, DROP_RATE), strict=True):
        ax.set_xlabel("mean queueing delay (ms)")
        ax.set_ylabel(f"{metric.name} ({metric.unit})")
        ax.grid(alpha=0.3)
    drawing.legend(axes[0])
    return [(NAME, drawing.png(figure))]


TEST = Test(
    NAME,
    "Delay against throughput as the buffer grows",
    "With many transfers of many RTTs on the suite's access link (85% offered load, both "
    "ways), how much throughput does a smaller buffer cost the algorithm, and how much "
    "queueing delay does a larger one add?",
    "draft-irtf-iccrg-tcpeval-01, section 5.1 (delay/throughput trade-off as a function of "
    "queue size: the access link at 85% load, buffers of 10, 20, 50, 100 and 200% of the BDP "
    "of a 100 ms flow, throughput, drop rate and queueing delay)",
    sweeps,
    measure,
    (UTILIZATION, MEAN_QUEUE_DELAY, DROP_RATE),
    ("links",),
    readings=readings,
    figures=figures,
)
