"""What every L4S study shares: the sources, the paths, the algorithms, the metric names and
their ranges, and the scenario of one dumbbell run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ccsim.studies.core import CORRELATION, NONNEGATIVE, UNIT

RFC9330 = "RFC 9330 (L4S architecture)"
RFC9331 = "RFC 9331 (the L4S ECN protocol)"
RFC9332 = "RFC 9332 (DualQ Coupled AQM)"
DUALQ_DRAFT = (
    "draft-ietf-tsvwg-aqm-dualq-coupled-01 (De Schepper, Briscoe, Bondarenko, Tsang, 2017), "
    "abstract"
)
PI2_PAPER = (
    "De Schepper, Bondarenko, Tsang, Briscoe, CoNEXT 2016 (PI2: A Linearized AQM for both "
    "Classic and Scalable TCP)"
)
L4SOPS = (
    "White (CableLabs), 'L4S Operational Guidance', IETF 108 TSVWG slides (2020), the "
    "coexistence table; draft-ietf-tsvwg-l4sops"
)
PRAGUE_SOURCE = (
    "tcp_prague.c of the L4S team's Linux tree (L4STeam/linux): RTT_CONTROL_RATE, "
    "prague_rtt_target 25 ms"
)
SOURCE = f"{RFC9332}; {DUALQ_DRAFT}; {PI2_PAPER}; {L4SOPS}; {PRAGUE_SOURCE}"

#: The stack every L4S study runs under: Linux 6.x, where DualPI2, AccECN and Prague live.
PROFILE = "linux"
#: Linux's MSS with TCP timestamps on a 1500-byte MTU.
MSS = 1448
BOTTLENECK_DELAY = "1ms"
#: Each flow's start is drawn uniformly in [0, START_JITTER) per seed.
START_JITTER = "1s"

PRAGUE = "prague"
DCTCP = "dctcp"
#: The scalable (L4S) senders, in the order the tables list them.
SCALABLE = (PRAGUE, DCTCP)
CLASSIC = "cubic"

#: Prague's parameter that turns its RTT independence on (1) and off (0); None until the
#: engine's Prague is known to take one (see :func:`prague_scaling_param`).
PRAGUE_SCALING_PARAMS = ("rtt_scaling", "rtt_independence")

#: The paths: (link rate in b/s, base RTT).
PATHS = {"40M-50ms": (40e6, "50ms"), "100M-20ms": (100e6, "20ms")}
PATH_WORDS = {"40M-50ms": "40 Mb/s, 50 ms", "100M-20ms": "100 Mb/s, 20 ms"}
RTT_MS = {"50ms": 50.0, "20ms": 20.0}

# ---- metric names and their ranges ---------------------------------------------------------------

RATIO = "rate ratio L/C per flow"
JAIN = "Jain index"
L_SHARE = "L4S share of goodput"
L_DELAY = "L queue delay ms"
C_DELAY = "C queue delay ms"
QUEUE_DELAY = "queueing delay ms"
L_MARKS = "L marks % of L packets"
L_DROPS = "L drops % of L packets"
C_DROPS = "C drops % of C packets"
C_MARKS = "C marks % of C packets"
MARKS = "marks % of packets"
DROPS = "drops % of packets"
L4S_RETX = "L4S retransmissions % of sent"
CLASSIC_RETX = "CUBIC retransmissions % of sent"
UTILIZATION = "link utilization"
SHORT_TARGET = "5 ms / 25 ms flow goodput"
SHORT_LONG = "5 ms / 100 ms flow goodput"
RANK = "rank correlation RTT-goodput"


def goodput_metric(rtt_ms: float) -> str:
    """The row of one RTT's flow in Q3."""
    return f"goodput Mb/s, {rtt_ms:g} ms flow"


PERCENT = (0.0, 100.0)
BOUNDS = {
    RATIO: NONNEGATIVE,
    JAIN: UNIT,
    L_SHARE: UNIT,
    L_DELAY: NONNEGATIVE,
    C_DELAY: NONNEGATIVE,
    QUEUE_DELAY: NONNEGATIVE,
    L_MARKS: PERCENT,
    L_DROPS: PERCENT,
    C_DROPS: PERCENT,
    C_MARKS: PERCENT,
    MARKS: PERCENT,
    DROPS: PERCENT,
    L4S_RETX: PERCENT,
    CLASSIC_RETX: PERCENT,
    UTILIZATION: UNIT,
    SHORT_TARGET: NONNEGATIVE,
    SHORT_LONG: NONNEGATIVE,
    RANK: CORRELATION,
}


def dumbbell(
    rate_bps: float,
    queue: str,
    queue_table: dict[str, Any] | None,
    flows: Sequence[dict[str, Any]],
    duration_s: float,
    buffer: str,
    bdp_rtt: str | None = None,
) -> dict[str, Any]:
    """One dumbbell run: a ``rate_bps`` bottleneck with ``queue`` (its table ``queue_table``) and
    ``buffer``, access links ten times faster, the ``flows`` (bulk, each starting in the first
    second), the link and queues sampled every 100 ms."""
    topology: dict[str, Any] = {
        "kind": "dumbbell",
        "bottleneck_rate": f"{rate_bps / 1e6:g}Mbps",
        "bottleneck_delay": BOTTLENECK_DELAY,
        "access_rate": f"{10 * rate_bps / 1e6:g}Mbps",
        "buffer": buffer,
        "queue": queue,
    }
    if bdp_rtt is not None:
        topology["bdp_rtt"] = bdp_rtt
    if queue_table:
        topology[queue] = dict(queue_table)
    return {
        "name": "study",
        "seed": 1,
        "duration": f"{duration_s:g}s",
        "topology": topology,
        "trace": {"sample_interval": "100ms"},
        "flows": list(flows),
    }


def flow(
    cc: str, rtt: str, label: str | None = None, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A bulk flow of ``cc`` with base RTT ``rtt``, labelled with its algorithm unless told."""
    entry: dict[str, Any] = {
        "cc": cc,
        "rtt": rtt,
        "mss": MSS,
        "start_jitter": START_JITTER,
        "label": label or cc,
    }
    if params:
        entry["params"] = dict(params)
    return entry
