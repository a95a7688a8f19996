"""What every BBR study shares: the sources, the link, the algorithms, the metric names and their
ranges, and the scenario of one dumbbell run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ccsim.studies.core import CORRELATION, NONNEGATIVE, UNIT

HOCK = "Hock, Bless, Zitterbart, ICNP 2017 (Experimental evaluation of BBR congestion control)"
CAO = "Cao et al., IMC 2019 (When to use and when not to use BBR)"
WARE = "Ware et al., IMC 2019 (Modeling BBR's interactions with loss-based congestion control)"
BBR3_RELEASE = (
    'google/bbr v3 release (commit \'net-tcp_bbr: v3: update TCP "bbr" congestion control '
    "module to BBRv3')"
)
SOURCE = f"{HOCK}; {CAO}; {WARE}; {BBR3_RELEASE}"

#: The stack every BBR study runs under: Linux 6.x (RACK-TLP, PRR, pacing where the algorithm
#: asks for it), where Linux runs BBR.
PROFILE = "linux"
#: Linux's MSS with TCP timestamps on a 1500-byte MTU.
MSS = 1448
#: Bytes a packet of one MSS takes on the wire (ccsim's 40-byte headers plus the 12-byte
#: timestamp option Linux sends): what the link's packet rate and the models count.
WIRE_BYTES = 1500
RTT = "40ms"
RTT_S = 0.040
BOTTLENECK_DELAY = "1ms"
#: Each flow's start is drawn uniformly in [0, START_JITTER) per seed: the seeds differ in who
#: starts first, as repeated testbed runs do.
START_JITTER = "1s"

V1 = "bbr"
V3 = "bbr3"
VERSIONS = (V1, V3)
LOSS_BASED = ("cubic", "reno")

#: Rates by name: link rate in b/s.
RATES = {"100M": 100e6, "1G": 1e9}
RATE_WORDS = {"100M": "100 Mb/s", "1G": "1 Gb/s"}

# ---- metric names and their ranges ---------------------------------------------------------------

BBR_SHARE = "BBR's share of goodput"
UTILIZATION = "link utilization"
BBR_RETX = "BBR retransmissions % of sent"
CUBIC_RETX = "CUBIC retransmissions % of sent"
PARTNER_RETX = "loss-based flows' retransmissions % of sent"
BBR_RETX_COUNT = "BBR retransmitted segments per flow"
CUBIC_RETX_COUNT = "CUBIC retransmitted segments per flow"
RETX = "retransmissions % of sent"
QUEUE_DELAY = "queueing delay ms"
JAIN = "Jain index"
RANK = "rank correlation RTT-goodput"
LONG_SHORT = "longest-RTT / shortest-RTT goodput"
SHORTEST = "shortest-RTT flow goodput Mb/s"
LONGEST = "longest-RTT flow goodput Mb/s"

BOUNDS = {
    BBR_SHARE: UNIT,
    UTILIZATION: UNIT,
    BBR_RETX: (0.0, 100.0),
    CUBIC_RETX: (0.0, 100.0),
    PARTNER_RETX: (0.0, 100.0),
    BBR_RETX_COUNT: NONNEGATIVE,
    CUBIC_RETX_COUNT: NONNEGATIVE,
    RETX: (0.0, 100.0),
    QUEUE_DELAY: NONNEGATIVE,
    JAIN: UNIT,
    RANK: CORRELATION,
    LONG_SHORT: NONNEGATIVE,
    SHORTEST: NONNEGATIVE,
    LONGEST: NONNEGATIVE,
}


def buffer_words(bdp: float) -> str:
    """``0.25`` -> ``"0.25 BDP"``."""
    return f"{bdp:g} BDP"


def dumbbell(
    rate: str,
    buffer_bdp: float,
    flows: Sequence[dict[str, Any]],
    duration_s: float,
    bdp_rtt: str = RTT,
) -> dict[str, Any]:
    """One dumbbell run: a ``rate`` bottleneck (a key of :data:`RATES`) with a drop-tail buffer of
    ``buffer_bdp`` times the BDP at ``bdp_rtt``, access links ten times faster, the ``flows``
    (bulk, each starting in the first second), the link and queue sampled every 100 ms."""
    return {
        "name": "study",
        "seed": 1,
        "duration": f"{duration_s:g}s",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": f"{RATES[rate] / 1e6:g}Mbps",
            "bottleneck_delay": BOTTLENECK_DELAY,
            "access_rate": f"{10 * RATES[rate] / 1e6:g}Mbps",
            "buffer": f"{buffer_bdp:g}bdp",
            "bdp_rtt": bdp_rtt,
            "queue": "droptail",
        },
        "trace": {"sample_interval": "100ms"},
        "flows": list(flows),
    }


def flow(cc: str, rtt: str = RTT, label: str | None = None) -> dict[str, Any]:
    """A bulk flow of ``cc`` with base RTT ``rtt``, labelled with its algorithm unless told."""
    return {
        "cc": cc,
        "rtt": rtt,
        "mss": MSS,
        "start_jitter": START_JITTER,
        "label": label or cc,
    }
