"""The TCP evaluation suite's dumbbell, link types and traffic (draft-irtf-iccrg-tcpeval-01,
section 4), as the tests that use them (basic-scenarios, paths, standard-tcp) build them.

Its dumbbell joins two routers by a central link; each router has three nodes on edge links of
different delays, so that the nine source-destination pairs have a realistic spread of RTTs
(section 4.1, Table 1). Its link types (section 4.4) set the central link's rate, delay and
buffer, and the edges' rate (and, in the data centre, their delays).

The suite drives them with Tmix replays of the University of North Carolina's campus traces,
which ccsim does not ship. In their place, the traffic model of the draft's Appendix A: Poisson
arrivals of transfers with heavy-tailed sizes, the same arrivals and sizes under every algorithm
(the generators' draws are keyed by seed, generator and transfer). 10% of the transfers use
536-byte packets and 90% 1500-byte ones, as the suite's traces were processed to have (section
2.4).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ccsim.evaluate.battery.common import (
    DROP_RATE,
    MEAN_QUEUE_DELAY,
    UTILIZATION,
    Measurement,
    Metric,
    Run,
)
from ccsim.studies.evidence import NONNEGATIVE

#: The suite's edge delays (section 4.1), one way: three nodes on each side.
EDGES_LEFT_S = (0.0, 0.012, 0.025)
EDGES_RIGHT_S = (0.002, 0.037, 0.075)


@dataclass(frozen=True)
class SuiteScenario:
    """One of the suite's link types: the central link (its forward direction carries the
    heavier traffic), the edge links' rate and one-way delays on each side, the buffer."""

    name: str
    label: str
    rate_bps: float
    reverse_rate_bps: float
    central_delay_s: float
    edge_rate_bps: float
    #: The central link's buffer as time at its forward rate, in 1500-byte packets (both
    #: directions get as many packets).
    buffer_s: float
    edges_left_s: tuple[float, ...] = EDGES_LEFT_S
    edges_right_s: tuple[float, ...] = EDGES_RIGHT_S

    def rtts_s(self) -> list[float]:
        """The nine paths' base RTTs: each pair of edge links and the central link, both ways."""
        return [
            2 * (left + self.central_delay_s + right)
            for left in self.edges_left_s
            for right in self.edges_right_s
        ]

    @property
    def median_rtt_s(self) -> float:
        """The middle of the nine paths' base RTTs (the path from node 2 to node 5)."""
        return statistics.median(self.rtts_s())

    @property
    def buffer_pkts(self) -> int:
        return math.ceil(self.rate_bps * self.buffer_s / (8 * 1500))

    def topology(self) -> dict[str, Any]:
        topology: dict[str, Any] = {
            "kind": "dumbbell",
            "bottleneck_rate": f"{self.rate_bps:g}bps",
            "bottleneck_delay": f"{self.central_delay_s * 1e3:g}ms",
            "access_rate": f"{self.edge_rate_bps:g}bps",
            "buffer": f"{self.buffer_pkts}pkts",
            "queue": "droptail",
        }
        if self.reverse_rate_bps != self.rate_bps:
            topology["reverse_rate_schedule"] = [["0s", f"{self.reverse_rate_bps:g}bps"]]
        return topology


# 4.4.2: central and edge links 100 Mb/s, 2 ms one way, a buffer of 100 ms (one BDP at the mean
# RTT).
ACCESS_LINK = SuiteScenario("access-link", "access link", 100e6, 100e6, 0.002, 100e6, 0.100)
# 4.4.3: 1 Gb/s everywhere, 65 ms one way, 100 ms of buffer.
TRANS_OCEANIC = SuiteScenario("trans-oceanic", "trans-oceanic", 1e9, 1e9, 0.065, 1e9, 0.100)
# 4.4.4: 40 Mb/s down, 4 Mb/s up, 300 ms one way, 100 ms of buffer down and 1000 ms up (the same
# number of packets), edges 100 Mb/s.
GEO_SATELLITE = SuiteScenario("geo-satellite", "GEO satellite", 40e6, 4e6, 0.300, 100e6, 0.100)
# 4.4.1: 1 Gb/s everywhere, no central delay, 10 ms of buffer; the edge links of nodes 1, 2 and
# 4 have 10 us one way, those of nodes 3, 5 and 6 100 us.
DATA_CENTRE = SuiteScenario(
    "data-centre",
    "data centre",
    1e9,
    1e9,
    0.0,
    1e9,
    0.010,
    edges_left_s=(10e-6, 10e-6, 100e-6),
    edges_right_s=(10e-6, 100e-6, 100e-6),
)

#: The suite's link types (section 4.4) that ccsim runs. Its wireless LAN (a shared 802.11g
#: medium) and dial-up link (64 kb/s, whose runs the draft sizes at days of traffic) are not
#: among them.
SCENARIOS = (ACCESS_LINK, TRANS_OCEANIC, GEO_SATELLITE, DATA_CENTRE)


# The traffic (the suite's Tmix replays are not shipped; its Appendix A's model instead).

#: Bytes of headers on every packet (IPv4 and TCP with timestamps): a 1448-byte segment is a
#: 1500-byte packet, a 484-byte one a 536-byte packet.
HEADER_BYTES = 52
#: The suite's packet sizes, as (MSS, share of transfers): 90% 1500-byte, 10% 536-byte packets.
PACKET_MIX = ((1448, 0.9), (484, 0.1))
#: The transfers' sizes: Pareto (heavy-tailed, as Appendix A asks), mean 100 KB, shape 1.5.
MEAN_BYTES = 100_000
SHAPE = 1.5
#: The reverse direction is offered this share of the forward direction's load in bits per
#: second. The suite's traces offer more right to left than left to right by an amount the draft
#: does not state; a quarter is ccsim's choice.
REVERSE_SHARE = 0.25


def wire_factor() -> float:
    """Bytes on the wire per byte of payload, over the packet mix."""
    return sum(share * (mss + HEADER_BYTES) / mss for mss, share in PACKET_MIX)


def arrivals_per_s(load: float, rate_bps: float) -> float:
    """Transfers per second that offer ``load`` (a fraction) of a link of ``rate_bps``, headers
    included."""
    return load * rate_bps / (8 * MEAN_BYTES * wire_factor())


def generators(
    scenario: SuiteScenario, flow: Mapping[str, Any], load: float, label: str = ""
) -> list[dict[str, Any]]:
    """The traffic: for each of the nine paths and each packet size, one Poisson generator each
    way, the forward ones together offering ``load`` of the central link; ``flow`` holds the
    transfers' algorithm keys (``cc``, ``params``), ``label`` prefixes their labels."""
    forward = arrivals_per_s(load, scenario.rate_bps)
    out = []
    for reverse, total in ((False, forward), (True, REVERSE_SHARE * forward)):
        for rtt in scenario.rtts_s():
            for mss, share in PACKET_MIX:
                generator = {
                    "kind": "open_loop",
                    "label": label + ("reverse" if reverse else "forward"),
                    "rate": round(total * share / len(scenario.rtts_s()), 6),
                    "size": {"dist": "pareto", "mean": f"{MEAN_BYTES}B", "shape": SHAPE},
                    "rtt_choices": [f"{rtt * 1e6:.0f}us"],
                    "mss": mss,
                    **flow,
                }
                if reverse:
                    generator["reverse"] = True
                out.append(generator)
    return out


# What is measured (section 4.5).

REVERSE_UTILIZATION = Metric("reverse utilization", "%", (0.0, 100.0), "{:.1f}")
REVERSE_DROP_RATE = Metric("reverse drop rate", "%", (0.0, 100.0), "{:.2f}")
REVERSE_QUEUE_DELAY = Metric("reverse mean queue delay", "ms", NONNEGATIVE, "{:.1f}")
#: Each direction's metrics: utilization, drop rate, queueing delay.
FORWARD_METRICS = (UTILIZATION, DROP_RATE, MEAN_QUEUE_DELAY)
REVERSE_METRICS = (REVERSE_UTILIZATION, REVERSE_DROP_RATE, REVERSE_QUEUE_DELAY)


def central_link(run: Run, both_ways: bool = True) -> list[Measurement]:
    """The suite's metrics of the central link (section 4.5), forward and (``both_ways``)
    reverse, over the whole run: utilization, drop rate (drops over packets offered) and the mean
    queueing delay of the packets it admitted (the time they waited, summed, over their number)."""
    links = run.results.links
    duration_s = float(run.results.summary["duration_s"])
    condition, order = run.sweep.condition, run.sweep.order
    out = []
    directions = [("R1", "R2", FORWARD_METRICS), ("R2", "R1", REVERSE_METRICS)]
    for src, dst, metrics in directions if both_ways else directions[:1]:
        utilization, drop_rate, queue_delay = metrics
        link = links[(links["src"] == src) & (links["dst"] == dst)].iloc[0]
        arrivals = int(link["arrivals"])
        admitted = arrivals - int(link["queue_drops"])
        # The time-average queue in packets is the sum of the admitted packets' waits over the
        # run's duration (Little's law, as the engine accumulates it).
        waited_s = float(link["mean_queue_pkts"]) * duration_s
        out += [
            run.measurement(utilization, condition, 100 * float(link["utilization"]), order),
            run.measurement(
                drop_rate, condition, 100 * int(link["drops"]) / max(arrivals, 1), order
            ),
            run.measurement(queue_delay, condition, 1e3 * waited_s / max(admitted, 1), order),
        ]
    return out
