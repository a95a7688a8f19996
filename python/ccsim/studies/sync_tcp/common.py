"""What every Sync-TCP study shares: ns-2's buffer, the configurations compared, the metric names
and the variants of the sensitivity runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ccsim.studies.core import (
    NONNEGATIVE,
    UNIT,
)

SOURCE = "seed 003 (Sync-TCP in high-speed environments)"
MSS = 1460
#: ns-2's default queue limit (``Queue set limit_ 50``), used on every link where the paper gives
#: no size.
NS2_QUEUE_LIMIT = 50


def ns2_buffer(limit: int) -> str:
    """ccsim's ``buffer`` for an ns-2 DropTail queue of ``limit`` packets.

    ns-2's DropTail drops an arrival when the packets waiting plus one reach ``limit_``, the
    packet on the wire being outside the queue, so at most ``limit - 1`` packets wait; ccsim's
    limit counts waiting packets (crates/ccsim-core/src/net/qdisc/droptail.rs).

    >>> ns2_buffer(50)
    '49pkts'
    """
    if limit < 1:
        raise ValueError(f"queue limit {limit}: at least 1")
    return f"{limit - 1}pkts"


#: The compared configurations: a label, the algorithm, its parameters and other keys of the
#: measured flow (its hosts' clocks).
Config = tuple[str, dict[str, Any], dict[str, Any]]
CONFIGS: dict[str, Config] = {
    "reno": ("reno", {}, {}),
    "sync-tcp": ("sync-tcp", {}, {}),
    "sync-tcp-hs": ("sync-tcp-hs", {}, {}),
    "sync-tcp-hs (alpha0 in packets)": ("sync-tcp-hs", {"alpha0_mode": 1}, {}),
}
#: S2 also runs Sync-TCP with unsynchronised clocks (ours): the receiver's clock 20 ms behind
#: the sender's, or running 100 ppm fast or slow (a free-running quartz clock; NTP keeps a host
#: within a few ppm).
CLOCK_CONFIGS: dict[str, Config] = {
    "sync-tcp (clock offset -20 ms)": ("sync-tcp", {}, {"clock_offset": "-20ms"}),
    "sync-tcp (clock drift +100 ppm)": ("sync-tcp", {}, {"clock_drift_ppm": 100.0}),
    "sync-tcp (clock drift -100 ppm)": ("sync-tcp", {}, {"clock_drift_ppm": -100.0}),
}
DURATION_S = 25.0
REACH = "time to max window s (25: not reached)"
REACHED = "reached within 25 s (share of runs)"
DROPS_BEFORE = "data packets lost before it"
EARLY = "lost packets before it (share of runs)"
GOODPUT = "goodput Mb/s"
#: The range of every quantity of S1 and S2.
STARTUP_BOUNDS = {
    REACH: (0.0, DURATION_S),
    REACHED: UNIT,
    DROPS_BEFORE: NONNEGATIVE,
    EARLY: UNIT,
    GOODPUT: NONNEGATIVE,
}
#: The paper's "X s" from one run is read as "within a factor of ABOUT of X" (0.4 s: 0.2 to
#: 0.8 s; 8 s: 4 to 16 s).
ABOUT = 2.0
#: Seeds per configuration in a full run (quick: 3), and the most a full run goes up to while a
#: check is inconclusive.
STARTUP_SEEDS = 5
STARTUP_MAX_REPLICATES = 80

#: The paper's numbers: S1 time to cwnd 50 (Reno 0.4 s, Sync-TCP 0.85 s, modified = Reno);
#: S2 time to cwnd 500 (Sync-TCP 8 s, modified 4 s; Reno "could not reach this size until
#: 25 seconds"), Sync-TCP with losses, the modified without early loss.
S1_PUBLISHED = {("reno", REACH): 0.4, ("sync-tcp", REACH): 0.85, ("sync-tcp-hs", REACH): 0.4}
S2_PUBLISHED = {
    ("reno", REACH): 25.0,
    ("sync-tcp", REACH): 8.0,
    ("sync-tcp-hs", REACH): 4.0,
    ("sync-tcp", REACHED): 1.0,
    ("sync-tcp-hs", REACHED): 1.0,
    ("sync-tcp", EARLY): 1.0,
    ("sync-tcp-hs", EARLY): 0.0,
}


@dataclasses.dataclass(frozen=True)
class Variant:
    """A setting of what the paper does not give: the queue limit of every link (ns-2's way of
    counting), Sync-TCP's parameters (for ``sync-tcp`` and ``sync-tcp-hs``) and the modified
    Sync-TCP's own (for ``sync-tcp-hs``)."""

    slug: str
    description: str
    queue_limit: int = NS2_QUEUE_LIMIT
    sync: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    modified: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def params(self, cc: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The measured flow's parameters under this variant."""
        merged = dict(params)
        if cc.startswith("sync-tcp"):
            merged |= dict(self.sync)
        if cc == "sync-tcp-hs":
            merged |= dict(self.modified)
        return merged


#: The studies' own setting: ns-2's default queue on every link, Sync-TCP's defaults
#: (docs/algorithms.md, sync-tcp).
DEFAULT = Variant("default", f"ns-2 defaults: queue limit {NS2_QUEUE_LIMIT}, w_avg 1/8")
