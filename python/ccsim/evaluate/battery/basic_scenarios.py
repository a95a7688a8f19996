"""Basic scenarios: the TCP evaluation suite's dumbbell, nine paths of different RTTs carrying
many transfers both ways, every one run by the algorithm, at three offered loads.

draft-irtf-iccrg-tcpeval-01, section 4: three edge links on each side of a central link, with
one-way delays of 0, 12 and 25 ms on one side and 2, 37 and 75 ms on the other, so that the nine
source-destination pairs have base RTTs of 4 to 200 ms (Table 1) plus the central link's round
trip; traffic shared evenly among the nine pairs; offered loads of 60, 85 and 110% of the
central link in the heavier direction; and four of its link types (access link, trans-oceanic,
geostationary satellite, data centre) with the rates, delays and buffers of its section 4.4.

The traffic is :func:`~ccsim.evaluate.battery.suite.generators`' (the draft's Appendix A model in
place of its Tmix traces).
"""

from __future__ import annotations

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
from ccsim.evaluate.battery.suite import (
    ACCESS_LINK,
    DATA_CENTRE,
    GEO_SATELLITE,
    REVERSE_DROP_RATE,
    REVERSE_METRICS,
    REVERSE_QUEUE_DELAY,
    REVERSE_UTILIZATION,
    TRANS_OCEANIC,
    SuiteScenario,
    central_link,
    generators,
)

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "basic-scenarios"

#: The offered loads, in % of the central link's forward capacity (the suite's moderate, high
#: and overload).
LOADS_FULL = (60, 85, 110)
LOADS_QUICK = (85,)


#: The link types this test runs, with its run lengths (quick, full) on each.
SCENARIOS = (
    (ACCESS_LINK, 20, 60),
    (TRANS_OCEANIC, 10, 30),
    (GEO_SATELLITE, 30, 120),
    (DATA_CENTRE, 5, 10),
)


def condition_of(scenario: SuiteScenario, load_pct: int) -> str:
    return f"{scenario.label}, {load_pct}%"


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = role_of(alg, subject)
    loads = LOADS_QUICK if plan.quick else LOADS_FULL
    out = []
    for index, (scenario, quick_s, full_s) in enumerate(SCENARIOS):
        duration = plan.seconds(quick_s, full_s)
        for load_pct in loads:
            spec = {
                "name": f"basic-{scenario.name}-{load_pct}",
                "duration": f"{duration:g}s",
                "profile": "linux",
                "topology": scenario.topology(),
                "generators": generators(scenario, subject.flow(), load_pct / 100),
            }
            sweep = sweep_file(f"{NAME}.{scenario.name}-{load_pct}.{role}", spec, plan, {})
            out.append(
                TestSweep(
                    NAME,
                    subject,
                    role,
                    sweep,
                    condition=condition_of(scenario, load_pct),
                    order=index * 1000 + load_pct,
                )
            )
    return out


def measure(run: Run) -> list[Measurement]:
    return central_link(run)


def readings(summary: Summary) -> list[str]:
    """For each link type at its middle load: the forward direction's utilization, queueing
    delay and drops, the baselines' queueing delay beside them."""
    out = []
    for scenario, _, _ in SCENARIOS:
        loads = LOADS_QUICK if summary.plan.quick else LOADS_FULL
        condition = condition_of(scenario, loads[len(loads) // 2])
        util = summary.find(UTILIZATION, condition)
        delay = summary.find(MEAN_QUEUE_DELAY, condition)
        drops = summary.find(DROP_RATE, condition)
        if not (util and delay and drops and util.value.has_data):
            continue
        rtts = scenario.rtts_s()
        text = (
            f"On the suite's {scenario.label} scenario at {condition.rpartition(', ')[2]} "
            "offered load "
            f"(base RTTs {_ms(min(rtts))}-{_ms(max(rtts))} ms, traffic both ways), "
            f"{summary.name}'s transfers use {util.value.mean:.0f}% of the link with "
            f"{MEAN_QUEUE_DELAY.fmt.format(delay.value.mean)} ms of mean queueing delay and "
            f"{DROP_RATE.fmt.format(drops.value.mean)}% drops"
        )
        others = [
            f"{c.baseline}: {MEAN_QUEUE_DELAY.fmt.format(c.value.mean)} ms, queueing delay "
            + MEAN_QUEUE_DELAY.against(c.difference, c.baseline)
            for c in delay.comparisons
        ]
        out.append(text + (f" ({'; '.join(others)})" if others else "") + ".")
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g}"


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    return drawing.bars([UTILIZATION, MEAN_QUEUE_DELAY, DROP_RATE]) + drawing.bars(
        list(REVERSE_METRICS)
    )


TEST = Test(
    NAME,
    "The evaluation suite's basic scenarios: nine RTTs, traffic both ways, three loads",
    "Real links carry many flows of many RTTs in both directions, not one long flow: with "
    "every transfer run by the algorithm, how fully and with how much queue and loss does the "
    "central link of an access link, a trans-oceanic link, a geostationary satellite hop "
    "(40 Mb/s down, 4 Mb/s up) and a data centre carry a moderate, high and overloading "
    "offer of heavy-tailed transfers over nine paths of 4-200 ms (plus the link's own round "
    "trip)?",
    "draft-irtf-iccrg-tcpeval-01, section 4 (basic scenarios: topology, edge delays, link "
    "types, loads, metrics); its Appendix A's traffic model in place of its Tmix traces",
    sweeps,
    measure,
    (
        UTILIZATION,
        MEAN_QUEUE_DELAY,
        DROP_RATE,
        REVERSE_UTILIZATION,
        REVERSE_QUEUE_DELAY,
        REVERSE_DROP_RATE,
    ),
    ("links",),
    readings=readings,
    figures=figures,
)
