"""Paths: one flow's utilization and RTT on paths unlike the access link (long, satellite,
data-centre, cellular, Wi-Fi, LEO)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccsim.evaluate.battery import suite
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
from ccsim.leo import leo_path
from ccsim.studies.evidence import NONNEGATIVE

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "paths"


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
CELLULAR_TRACES = Path(__file__).resolve().parents[2] / "studies" / "links" / "traces"
SYNTHETIC_CELLULAR = CELLULAR_TRACES / "synthetic-cellular.down"

LEO_S = (30.0, 60.0)


#: The evaluation suite's link types the paths test runs, with its run lengths (quick, full).
SUITE_PATHS = (
    (suite.TRANS_OCEANIC, 10, 30),
    (suite.GEO_SATELLITE, 20, 60),
    (suite.DATA_CENTRE, 5, 10),
)


def suite_path(scenario: suite.SuiteScenario, quick_s: float, full_s: float) -> PathSpec:
    """One flow across one of the suite's link types, with the base RTT of the middle of its
    nine paths (node 2 to node 5). Its edge links are ten times as fast as the central link
    where the suite's are not faster: one flow alone would otherwise queue on its own edge."""
    rtt_ms = scenario.median_rtt_s * 1e3
    topology = scenario.topology()
    if scenario.edge_rate_bps <= scenario.rate_bps:
        topology["access_rate"] = f"{10 * scenario.rate_bps:g}bps"
    if scenario.rate_bps >= 1e9:
        rate = f"{scenario.rate_bps / 1e9:g} Gb/s"
    elif scenario.reverse_rate_bps != scenario.rate_bps:
        rate = f"{scenario.rate_bps / 1e6:g}/{scenario.reverse_rate_bps / 1e6:g} Mb/s"
    else:
        rate = f"{scenario.rate_bps / 1e6:g} Mb/s"
    label = f"{scenario.label}, {rate}, {rtt_ms:.3g} ms"
    return PathSpec(scenario.name, label, topology, f"{rtt_ms * 1e3:.0f}us", quick_s, full_s)


def cellular_path(trace: Path | None) -> PathSpec:
    """A cellular link replaying ``trace`` (a Mahimahi ``.down`` file; C1's synthetic one when
    None), with the ``.up`` file beside it on the ACKs' direction when there is one."""
    down = SYNTHETIC_CELLULAR if trace is None else trace
    topology: dict[str, Any] = {
        # As study C1: the trace sets the rate, the buffer is deep as base stations keep it; the
        # rate given sizes nothing else (and is the ACKs' rate without an .up file).
        "bottleneck_rate": "12Mbps",
        "bottleneck_delay": "5ms",
        "buffer": "1000pkts",
        "trace": str(down),
    }
    if (up := down.with_suffix(".up")).is_file():
        topology["reverse_trace"] = str(up)
    label = "cellular trace" + ("" if trace is None else f" {down.stem}") + ", 40 ms"
    return PathSpec("cellular", label, topology, "40ms", 12, 30)


def path_specs(plan: Plan) -> list[PathSpec]:
    """The paths test's paths: the evaluation suite's trans-oceanic, geostationary-satellite and
    data-centre link types, C1's cellular trace, a Wi-Fi hop that sends in aggregated bursts,
    and a LEO path with handovers."""
    leo_duration = plan.seconds(*LEO_S)
    return [
        *(suite_path(scenario, quick_s, full_s) for scenario, quick_s, full_s in SUITE_PATHS),
        cellular_path(plan.cellular_trace),
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


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = role_of(alg, subject)
    out = []
    for index, path in enumerate(path_specs(plan)):
        flows = [subject.flow(rtt=path.rtt, mss=MSS)]
        scenario = base_scenario(
            f"{NAME}-{path.name}", plan.seconds(path.quick_s, path.full_s), flows, **path.topology
        )
        sweep = sweep_file(f"{NAME}.{path.name}.{role}", scenario, plan, {})
        out.append(TestSweep(NAME, subject, role, sweep, condition=path.label, order=float(index)))
    return out


# The paths' utilization: on a trace link the share of the trace's mean capacity, which a run
# can exceed a little (the trace's opportunities carry any packet size), so not capped.
CAPACITY_USED = Metric("capacity used", "%", NONNEGATIVE, "{:.1f}")
MEAN_RTT = Metric("mean RTT", "ms", NONNEGATIVE, "{:.1f}")


def measure(run: Run) -> list[Measurement]:
    links = run.results.links
    utilization = float(links.loc[links["link"] == 0, "utilization"].iloc[0])
    rtt_ms = float(run.results.flows["mean_rtt_s"].iloc[0]) * 1e3
    condition, order = run.sweep.condition, run.sweep.order
    return [
        run.measurement(CAPACITY_USED, condition, 100 * utilization, order),
        run.measurement(MEAN_RTT, condition, rtt_ms, order),
    ]


def readings(summary: Summary) -> list[str]:
    on_paths = [
        f"{row.value.mean:.0f}% of the {row.condition.partition(',')[0]} path"
        + (
            f" at a mean RTT of {MEAN_RTT.fmt.format(rtt.value.mean)} ms"
            if (rtt := summary.find(MEAN_RTT, row.condition)) and rtt.value.has_data
            else ""
        )
        for row in summary.rows
        if row.metric == CAPACITY_USED.name and row.value.has_data
    ]
    if not on_paths:
        return []
    return [
        f"One {summary.name} flow fills " + ", ".join(on_paths) + " (the base RTTs in the table)."
    ]


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    return drawing.bars([CAPACITY_USED, MEAN_RTT])


TEST = Test(
    NAME,
    "Utilization and delay on other paths",
    "How well does one flow fill the evaluation suite's trans-oceanic path (1 Gb/s, 65 ms "
    "one way, 100 ms of buffer), its geostationary satellite hop (40 Mb/s down, 4 Mb/s up, "
    "300 ms one way) and its data centre (1 Gb/s, 10 ms of buffer), each at the base RTT of "
    "the middle of its nine paths (228 ms, 698 ms, 0.22 ms), a cellular link replaying a trace, a Wi-Fi hop that sends data and ACKs in aggregated bursts, "
    "and a LEO path whose rate and delay change at every satellite handover (with a "
    "50 ms outage), and at what RTT?",
    "draft-irtf-iccrg-tcpeval-01, sections 4.1 and 4.4 (trans-oceanic, geostationary "
    "satellite, data centre); study C1's synthetic cellular trace (docs/studies/links.md); "
    "Wi-Fi-like aggregation and ccsim.leo (docs/links.md)",
    sweeps,
    measure,
    (CAPACITY_USED, MEAN_RTT),
    ("flows", "links"),
    readings=readings,
    figures=figures,
)
