"""Multiple bottlenecks: a flow of the algorithm across three bottlenecks beside one flow on each
(the evaluation suite's parking lot, draft-irtf-iccrg-tcpeval-01, section 6.3)."""

from __future__ import annotations

from ccsim.evaluate.battery.common import (
    DROP_RATE,
    GOODPUT,
    MSS,
    Algorithm,
    Measurement,
    Metric,
    Plan,
    Run,
    Summary,
    Test,
    TestSweep,
    role_of,
    sweep_file,
)
from ccsim.evaluate.battery.drawing import Drawing
from ccsim.studies.evidence import NONNEGATIVE

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "multi-bottleneck"

#: The suite's parking lot (its Figure 10): three 100 Mb/s bottlenecks of 10 ms one way between
#: four routers, access links of 1 Gb/s, every flow at 60 ms of base RTT (the three-hop flow's
#: own round trip; the one-hop flows' edges make up the rest).
HOPS = 3
RATE = "100Mbps"
HOP_DELAY = "10ms"
FLOW_RTT = "60ms"
CONDITION = "parking lot, 3 x 100 Mb/s, 60 ms"


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = role_of(alg, subject)
    duration = plan.seconds(20, 60)
    flows = [
        subject.flow(
            label="three hops", src="R0", dst=f"R{HOPS}", rtt=FLOW_RTT, mss=MSS, start_jitter="1s"
        )
    ] + [
        subject.flow(
            label="one hop", src=f"R{i}", dst=f"R{i + 1}", rtt=FLOW_RTT, mss=MSS, start_jitter="1s"
        )
        for i in range(HOPS)
    ]
    scenario = {
        "name": NAME,
        "duration": f"{duration:g}s",
        "profile": "linux",
        "topology": {
            "kind": "parking_lot",
            "routers": HOPS + 1,
            "rate": RATE,
            "delay": HOP_DELAY,
            "access_rate": "1Gbps",
            "access_delay": "0ms",
            # One BDP of the flows' common RTT, on every bottleneck.
            "buffer": "1bdp",
            "bdp_rtt": FLOW_RTT,
            "queue": "droptail",
        },
        "flows": flows,
    }
    sweep = sweep_file(f"{NAME}.{role}", scenario, plan, {})
    return [TestSweep(NAME, subject, role, sweep, condition=CONDITION)]


RATIO = Metric("one-hop / three-hop goodput", "", NONNEGATIVE, "{:.2f}")


def measure(run: Run) -> list[Measurement]:
    """The suite's output (section 6.3.2): the one-hop flows' mean goodput over the three-hop
    flow's; with each flow's goodput and the bottlenecks' mean drop rate."""
    flows = run.results.flows
    three = float(flows.loc[flows["label"] == "three hops", "goodput_bps"].sum())
    one = float(flows.loc[flows["label"] == "one hop", "goodput_bps"].mean())
    links = run.results.links
    hops = links[links["src"].str.fullmatch(r"R\d+") & links["dst"].str.fullmatch(r"R\d+")]
    forward = hops[hops["src"].str[1:].astype(int) < hops["dst"].str[1:].astype(int)]
    drops = (forward["drops"] / forward["arrivals"].clip(lower=1)).mean()
    return [
        run.measurement(RATIO, CONDITION, one / three if three > 0 else float("nan"), 0),
        run.measurement(GOODPUT, "three-hop flow", three / 1e6, 1),
        run.measurement(GOODPUT, "one-hop flows (mean)", one / 1e6, 2),
        run.measurement(DROP_RATE, "bottlenecks (mean)", 100 * float(drops), 3),
    ]


def readings(summary: Summary) -> list[str]:
    ratio = summary.find(RATIO, CONDITION)
    three = summary.find(GOODPUT, "three-hop flow")
    one = summary.find(GOODPUT, "one-hop flows (mean)")
    if not (ratio and three and one and ratio.value.has_data):
        return []
    others = [
        f"{c.baseline}: {RATIO.fmt.format(c.value.mean)}, "
        + RATIO.against(c.difference, c.baseline)
        for c in ratio.comparisons
    ]
    return [
        f"Across three 100 Mb/s bottlenecks a {summary.name} flow gets "
        f"{GOODPUT.fmt.format(three.value.mean)} Mb/s while each one-hop flow beside it gets "
        f"{GOODPUT.fmt.format(one.value.mean)}: {RATIO.shown(ratio.value)} times as much"
        + (f" ({'; '.join(others)})" if others else "")
        + "; 1 is an even split of every link, every flow at 60 ms of RTT."
    ]


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    return drawing.bars([RATIO, GOODPUT], reference=None)


TEST = Test(
    NAME,
    "Multiple bottlenecks: a flow across three beside one on each",
    "On a parking lot of three 100 Mb/s bottlenecks, one flow of the algorithm crosses all "
    "three while a flow on each crosses one, all at 60 ms of base RTT: how much more do the "
    "one-hop flows get than the three-hop flow?",
    "draft-irtf-iccrg-tcpeval-01, section 6.3 (multiple bottlenecks: its symmetric parking "
    "lot, 100 Mb/s bottlenecks, 1 Gb/s access, 60 ms for every flow, the ratio of the "
    "single-bottleneck flows' throughput to the multiple-bottleneck flow's; it drives them "
    "with Tmix traffic, ccsim with one long-lived flow each)",
    sweeps,
    measure,
    (RATIO, GOODPUT, DROP_RATE),
    ("flows", "links"),
    readings=readings,
    figures=figures,
)
