"""The evaluation battery: named tests, each a sweep template rendered for one algorithm.

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

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccsim.leo import leo_path

__all__ = [
    "BATTERY_VERSION",
    "TESTS",
    "Algorithm",
    "Measurement",
    "Plan",
    "TestSweep",
    "battery",
]

#: The battery's version, printed in every report card and summary.
BATTERY_VERSION = "2"

#: Tests' simulated durations are multiplied by this (tests of ccsim itself shorten runs with it;
#: a report made with any other value says so).
TIME_SCALE = 1.0

# The path every test but the fairness ones uses: the TCP evaluation suite's access-link scale,
# 50 Mb/s with a 40 ms base RTT.
RATE = "50Mbps"
RATE_BPS = 50e6
RTT = "40ms"
RTT_S = 0.040
MSS = 1448


@dataclass(frozen=True)
class Algorithm:
    """An algorithm under test: a ``cc`` value (a built-in name or ``module:Class``), its
    parameters, and the short name used in tables and directory names."""

    name: str
    cc: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def flow(self, **settings: Any) -> dict[str, Any]:
        flow: dict[str, Any] = {"cc": self.cc, **settings}
        if self.params:
            flow["params"] = dict(self.params)
        return flow

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9._-]", "_", self.name)


@dataclass(frozen=True)
class Plan:
    """How large a battery run is: points per axis, seeds and run length."""

    quick: bool
    seeds: tuple[int, ...]
    time_scale: float = 1.0

    def seconds(self, quick_s: float, full_s: float) -> float:
        return (quick_s if self.quick else full_s) * self.time_scale


@dataclass(frozen=True)
class TestSweep:
    """One sweep of a test: the algorithm it measures (``subject``), the one it competes with
    (``opponent``, inter-protocol only), and the sweep file as data."""

    test: str
    subject: Algorithm
    role: str  # "alg" for the algorithm evaluated, else the baseline's name
    sweep: dict[str, Any]
    opponent: Algorithm | None = None
    warmup_s: float = 0.0
    #: The opponent's role: "alg" for the algorithm evaluated, else the baseline's name.
    opponent_role: str | None = None
    #: For a test with one sweep per condition (paths): the condition and where it sorts.
    condition: str = ""
    order: float = 0.0

    @property
    def name(self) -> str:
        """The sweep's name: its directory under ``sweeps/`` and its file under ``scenarios/``."""
        return str(self.sweep["name"])


@dataclass(frozen=True)
class Measurement:
    """One number measured in one run: the test and metric, the condition (a point of the
    test's axis), which algorithm it measures, the run's seed and the value."""

    test: str
    metric: str
    condition: str
    role: str  # "alg" or a baseline's name
    seed: int
    value: float
    order: float = 0.0  # where the condition sorts among the test's (its axis value)


@dataclass(frozen=True)
class Test:
    name: str
    title: str
    why: str
    source: str
    #: The sweeps for one algorithm (and, for inter-protocol, each opponent).
    sweeps: Callable[[Algorithm, Algorithm, list[Algorithm], Plan], list[TestSweep]]


def _base(
    name: str, duration_s: float, flows: list[dict[str, Any]], **topology: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "duration": f"{duration_s:g}s",
        "profile": "linux",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": RATE,
            "bottleneck_delay": "10ms",
            "access_rate": "1Gbps",
            "buffer": "1bdp",
            "queue": "droptail",
            **topology,
        },
        "flows": flows,
    }


def _sweep(
    name: str, scenario: dict[str, Any], plan: Plan, axes: Mapping[str, Any]
) -> dict[str, Any]:
    return {"name": name, "scenario": scenario, "seeds": list(plan.seeds), "axes": dict(axes)}


# ---- the tests ---------------------------------------------------------------------------------

BUFFERS_QUICK = (0.1, 1.0, 10.0)
BUFFERS_FULL = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
LOSSES_QUICK = (1e-5, 1e-3, 1e-2)
LOSSES_FULL = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2)


def _single_flow(
    alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan
) -> list[TestSweep]:
    buffers = BUFFERS_QUICK if plan.quick else BUFFERS_FULL
    duration = plan.seconds(10, 30)
    scenario = _base("single-flow", duration, [subject.flow(rtt=RTT, mss=MSS)])
    scenario["trace"] = {"sample_interval": "10ms"}
    axes = {"topology.buffer": {"name": "buffer", "values": [f"{b:g}bdp" for b in buffers]}}
    name = f"single-flow.{_role(alg, subject)}"
    sweep = _sweep(name, scenario, plan, axes)
    return [TestSweep("single-flow", subject, _role(alg, subject), sweep, warmup_s=duration / 5)]


def _random_loss(
    alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan
) -> list[TestSweep]:
    losses = LOSSES_QUICK if plan.quick else LOSSES_FULL
    scenario = _base(
        "random-loss", plan.seconds(20, 60), [subject.flow(rtt=RTT, mss=MSS)], buffer="1bdp"
    )
    axes = {"topology.loss": {"name": "loss", "values": list(losses)}}
    sweep = _sweep(f"random-loss.{_role(alg, subject)}", scenario, plan, axes)
    return [TestSweep("random-loss", subject, _role(alg, subject), sweep)]


#: The fairness test's flow counts.
FLOW_COUNTS = (2, 8, 16)
#: The RTT-fairness flows' base RTTs (ms), all through one bottleneck at once.
FAIRNESS_RTTS_MS = (10, 50, 100, 200)


def _intra_fairness(
    alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan
) -> list[TestSweep]:
    role = _role(alg, subject)
    duration = plan.seconds(20, 60)
    # Starts spread over the first second, so that the flows do not start in one phase.
    flows = [subject.flow(rtt=RTT, mss=MSS, count=2, start_jitter="1s")]
    scenario = _base("intra-fairness", duration, flows)
    axes = {"flows.0.count": {"name": "flow_count", "values": list(FLOW_COUNTS)}}
    together = _sweep(f"intra-fairness.{role}", scenario, plan, axes)
    rtts = [
        subject.flow(label=f"rtt{ms}ms", rtt=f"{ms}ms", mss=MSS, start_jitter="1s")
        for ms in FAIRNESS_RTTS_MS
    ]
    # The buffer is one BDP of a 100 ms path, as a router sized for the middle of the range.
    rtt_scenario = _base("rtt-fairness", duration, rtts, bdp_rtt="100ms", bottleneck_delay="2ms")
    rtt_sweep = _sweep(f"rtt-fairness.{role}", rtt_scenario, plan, {})
    return [
        TestSweep("intra-fairness", subject, role, together, warmup_s=duration / 4),
        TestSweep("intra-fairness", subject, role, rtt_sweep, warmup_s=duration / 4),
    ]


#: The convergence test's windows: Jain's index of the two flows' goodputs over each window of
#: this length, the windows starting every step.
CONVERGENCE_WINDOW_S = 1.0
CONVERGENCE_STEP_S = 0.1
#: The index the windows must keep from the convergence time on.
CONVERGENCE_JAIN = 0.9


def join_time(duration_s: float) -> float:
    """When the convergence test's second flow starts."""
    return duration_s / 3


def _convergence(
    alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan
) -> list[TestSweep]:
    role = _role(alg, subject)
    duration = plan.seconds(30, 60)
    flows = [
        subject.flow(label="first", rtt=RTT, mss=MSS),
        subject.flow(label="second", rtt=RTT, mss=MSS, start=f"{join_time(duration):g}s"),
    ]
    scenario = _base("convergence", duration, flows)
    scenario["trace"] = {"sample_interval": "10ms"}
    sweep = _sweep(f"convergence.{role}", scenario, plan, {})
    return [TestSweep("convergence", subject, role, sweep)]


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


def _short_flows(
    alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan
) -> list[TestSweep]:
    role = _role(alg, subject)
    duration = plan.seconds(20, 60)
    start, stop = short_window(duration)
    scenario = _base("short-flows", duration, [subject.flow(label="background", rtt=RTT, mss=MSS)])
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
    sweep = _sweep(f"short-flows.{role}", scenario, plan, {})
    return [TestSweep("short-flows", subject, role, sweep)]


#: The inter-protocol test's queues at the bottleneck.
INTER_QUEUES = ("droptail", "fq_codel", "dualpi2")


def _inter_protocol(
    alg: Algorithm, subject: Algorithm, against: list[Algorithm], plan: Plan
) -> list[TestSweep]:
    # The evaluated algorithm meets itself and every baseline; each baseline meets itself. A
    # share is read against the baseline's own (half the link, in a fair world), and harm (Ware
    # et al.) against each algorithm's goodput and delay when it competes with itself.
    opponents = [alg, *against] if subject is alg else [subject]
    out = []
    for opponent in opponents:
        flows = [
            subject.flow(label="subject", rtt=RTT, mss=MSS, start_jitter="1s"),
            opponent.flow(label="opponent", rtt=RTT, mss=MSS, start_jitter="1s"),
        ]
        duration = plan.seconds(20, 60)
        scenario = _base("inter-protocol", duration, flows)
        role = _role(alg, subject)
        # "alg" names ALG as an opponent even when a baseline has its name (cubic against cubic).
        opponent_role = "alg" if opponent is alg else opponent.slug
        axes = {"topology.queue": {"name": "queue", "values": list(INTER_QUEUES)}}
        sweep = _sweep(f"inter-protocol.{role}-vs-{opponent_role}", scenario, plan, axes)
        out.append(
            TestSweep(
                "inter-protocol",
                subject,
                role,
                sweep,
                opponent,
                warmup_s=duration / 4,
                opponent_role=opponent_role,
            )
        )
    return out


@dataclass(frozen=True)
class PathSpec:
    """One path of the paths test: its bottleneck's keys, the flow's base RTT, run lengths."""

    name: str
    label: str
    topology: Mapping[str, Any]
    rtt: str
    quick_s: float
    full_s: float


#: C1's synthetic cellular trace, as shipped in the package (study C1, docs/studies/links.md).
CELLULAR_TRACES = Path(__file__).resolve().parents[1] / "studies" / "links" / "traces"

LEO_S = (30.0, 60.0)


def paths(plan: Plan) -> list[PathSpec]:
    """The paths test's paths: the evaluation suite's trans-oceanic, geostationary-satellite and
    data-centre bottlenecks, C1's cellular trace, a Wi-Fi hop that sends in aggregated bursts,
    and a LEO path with handovers."""
    leo_duration = plan.seconds(*LEO_S)
    return [
        PathSpec(
            "trans-oceanic",
            "trans-oceanic, 1 Gb/s, 130 ms",
            {"bottleneck_rate": "1Gbps", "bottleneck_delay": "65ms", "access_rate": "10Gbps"},
            "130ms",
            10,
            30,
        ),
        PathSpec(
            "geo-satellite",
            "GEO satellite, 40 Mb/s, 600 ms",
            {"bottleneck_rate": "40Mbps", "bottleneck_delay": "300ms"},
            "600ms",
            20,
            60,
        ),
        PathSpec(
            "data-centre",
            "data centre, 1 Gb/s, 1 ms",
            {"bottleneck_rate": "1Gbps", "bottleneck_delay": "0.25ms", "access_rate": "10Gbps"},
            "1ms",
            5,
            10,
        ),
        PathSpec(
            "cellular",
            "cellular trace, 40 ms",
            {
                # As study C1: the trace sets the rate (12.6 Mb/s on average), the buffer is
                # deep as base stations keep it; the rate given sizes nothing else.
                "bottleneck_rate": "12Mbps",
                "bottleneck_delay": "5ms",
                "buffer": "1000pkts",
                "trace": str(CELLULAR_TRACES / "synthetic-cellular.down"),
                "reverse_trace": str(CELLULAR_TRACES / "synthetic-cellular.up"),
            },
            "40ms",
            12,
            30,
        ),
        PathSpec(
            "wifi",
            "Wi-Fi aggregation, 50 Mb/s, 40 ms",
            {
                # Data in A-MPDU-like bursts (up to 64 packets or 4 ms of airtime, after a
                # channel access of 0.5-2 ms), ACKs in bursts of up to 16 after 2-6 ms
                # (docs/links.md's example); only drop-tail-like queues are allowed with it.
                "aggregation": {
                    "max_packets": 64,
                    "max_time": "4ms",
                    "access_delay": {"dist": "uniform", "min": "0.5ms", "max": "2ms"},
                },
                "reverse_aggregation": {
                    "max_packets": 16,
                    "max_time": "4ms",
                    "access_delay": {"dist": "uniform", "min": "2ms", "max": "6ms"},
                },
            },
            RTT,
            10,
            30,
        ),
        PathSpec(
            "leo",
            "LEO, 50-200 Mb/s, 30-70 ms, handovers",
            {
                # As examples/leo.toml: the schedules set rate and delay; these size the buffer.
                "bottleneck_rate": "200Mbps",
                "bottleneck_delay": "10ms",
                "bdp_rtt": "50ms",
                **leo_path(f"{leo_duration:g}s", seed=1),
            },
            "30ms",
            *LEO_S,
        ),
    ]


def _paths(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = _role(alg, subject)
    out = []
    for index, path in enumerate(paths(plan)):
        flows = [subject.flow(rtt=path.rtt, mss=MSS)]
        scenario = _base(
            f"paths-{path.name}", plan.seconds(path.quick_s, path.full_s), flows, **path.topology
        )
        sweep = _sweep(f"paths.{path.name}.{role}", scenario, plan, {})
        out.append(
            TestSweep("paths", subject, role, sweep, condition=path.label, order=float(index))
        )
    return out


#: The rate-step test's link: 100 Mb/s, 20 Mb/s from a third of the run, 100 Mb/s again from
#: two thirds.
STEP_HIGH_BPS = 100e6
STEP_LOW_BPS = 20e6


def step_times(duration_s: float) -> tuple[float, float]:
    """When the rate-step test's link steps down and back up."""
    return duration_s / 3, 2 * duration_s / 3


def _rate_step(
    alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan
) -> list[TestSweep]:
    duration = plan.seconds(30, 60)
    down, up = step_times(duration)
    scenario = _base(
        "rate-step",
        duration,
        [subject.flow(rtt=RTT, mss=MSS)],
        bottleneck_rate=f"{STEP_HIGH_BPS / 1e6:g}Mbps",
        rate_schedule=[
            [f"{down:g}s", f"{STEP_LOW_BPS / 1e6:g}Mbps"],
            [f"{up:g}s", f"{STEP_HIGH_BPS / 1e6:g}Mbps"],
        ],
    )
    scenario["trace"] = {"sample_interval": "10ms"}
    role = _role(alg, subject)
    sweep = _sweep(f"rate-step.{role}", scenario, plan, {})
    return [TestSweep("rate-step", subject, role, sweep)]


def _role(alg: Algorithm, subject: Algorithm) -> str:
    return "alg" if subject is alg else subject.slug


TESTS: dict[str, Test] = {
    test.name: test
    for test in [
        Test(
            "single-flow",
            "One flow: utilization and queueing delay against buffer size",
            "Does the algorithm fill the link with a shallow buffer, and how much queue does it "
            "keep with a deep one?",
            "draft-irtf-iccrg-tcpeval, basic scenarios (access link); the buffer-size range of "
            "its sensitivity analysis",
            _single_flow,
        ),
        Test(
            "random-loss",
            "One flow under random loss, with the Mathis line",
            "How far does goodput fall with loss that is not congestion (wireless, corruption)? "
            "Reno-like algorithms follow the Mathis law; loss-agnostic ones stay above it.",
            "Mathis et al., CCR 1997; draft-irtf-iccrg-tcpeval's note on non-congestion loss",
            _random_loss,
        ),
        Test(
            "intra-fairness",
            "Fairness among flows of the algorithm, and across RTTs",
            "Do flows of the same algorithm share equally (2, 8 and 16 flows), and how does the "
            "goodput of flows at 10, 50, 100 and 200 ms of RTT through one bottleneck depend on "
            "their RTT?",
            "draft-irtf-iccrg-tcpeval, intra-protocol and RTT fairness",
            _intra_fairness,
        ),
        Test(
            "convergence",
            "Convergence of a second flow",
            "A flow of the algorithm runs alone; a second one joins at a third of the run. How "
            "long until the two share fairly, Jain's index over every 1 s window from then on at "
            "least 0.9?",
            "draft-irtf-iccrg-tcpeval, intra-protocol fairness (convergence times)",
            _convergence,
        ),
        Test(
            "inter-protocol",
            "Sharing with each baseline",
            "What share does one flow of the algorithm take from one flow of each baseline, in a "
            "drop-tail queue of one BDP, under FQ-CoDel (which should enforce half) and under "
            "DualPI2? How much does it harm the baseline (its loss of goodput, and the rise of "
            "its RTT, against the baseline competing with itself), and how much does the "
            "baseline harm it?",
            'draft-irtf-iccrg-tcpeval, inter-protocol fairness ("TCP-friendliness"); Ware, '
            "Mukerjee, Seshan and Sherry, HotNets 2019 (Beyond Jain's Fairness Index: Setting "
            "the Bar for the Deployment of Congestion Control Algorithms): harm",
            _inter_protocol,
        ),
        Test(
            "short-flows",
            "Completion times of short transfers beside a long flow",
            "Web-like transfers (open-loop arrivals, 20 a second, Pareto sizes with a mean of "
            "50 KB, run by CUBIC) share the link with one long flow of the algorithm: how long "
            "do they take, by size, with it in the background rather than a baseline (the same "
            "arrivals and sizes under each seed)?",
            "draft-irtf-iccrg-tcpeval, traffic with many short transfers; Ware et al., HotNets "
            "2019 (harm to short flows' completion times)",
            _short_flows,
        ),
        Test(
            "rate-step",
            "Start-up and adaptation to a rate step",
            "How fast does one flow fill a 100 Mb/s link after its start, and after the link "
            "comes back from 20 Mb/s; how much queue does it build when the rate drops to a "
            "fifth under it?",
            "draft-irtf-iccrg-tcpeval, transients (a sudden change in capacity)",
            _rate_step,
        ),
        Test(
            "paths",
            "Utilization and delay on other paths",
            "How well does one flow fill a trans-oceanic path (1 Gb/s, 130 ms), a geostationary "
            "satellite path (40 Mb/s, 600 ms), a data-centre path (1 Gb/s, 1 ms), a cellular "
            "link replaying a trace, a Wi-Fi hop that sends data and ACKs in aggregated bursts, "
            "and a LEO path whose rate and delay change at every satellite handover (with a "
            "50 ms outage), and at what RTT?",
            "draft-irtf-iccrg-tcpeval, basic scenarios (trans-oceanic, geostationary satellite, "
            "data centre); study C1's synthetic cellular trace (docs/studies/links.md); "
            "Wi-Fi-like aggregation and ccsim.leo (docs/links.md)",
            _paths,
        ),
    ]
}


def battery(alg: Algorithm, against: list[Algorithm], plan: Plan) -> list[TestSweep]:
    """Every sweep of the battery: each test for ``alg``, then for each baseline."""
    sweeps: list[TestSweep] = []
    for test in TESTS.values():
        for subject in [alg, *against]:
            sweeps.extend(test.sweeps(alg, subject, against, plan))
    return sweeps


def mathis_bps(loss: float, rtt_s: float = RTT_S, mss: int = MSS) -> float:
    """The Mathis rate with delayed ACKs (C = sqrt(3/4)), capped at the link rate."""
    return min(math.sqrt(3 / 4) * mss * 8 / (rtt_s * math.sqrt(loss)), RATE_BPS)
