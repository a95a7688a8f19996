"""What every parking-lot study shares: the protocols, loads and loss, the links, the replicate
counts, the kernel era's parameters and the metric names.
"""

from __future__ import annotations

import math
from typing import Any

from ccsim.studies.core import (
    NONNEGATIVE,
    UNIT,
)

SOURCE = "seed 004 (interactions among legacy and high-speed TCPs)"
MSS = 1460
ROUTERS = 5
PROTOCOLS = ("reno", "highspeed", "scalable", "bic", "htcp", "compound", "areno")
QUICK_PROTOCOLS = ("reno", "highspeed", "htcp", "areno")
HIGH_SPEED = PROTOCOLS[1:]
#: The protocols the paper says allocate more to short flows, and to long flows (its trade-off
#: chart: "Allocate more resource on... Long-flows: AReno, Hamilton, Compound; Short-flows:
#: BIC, HSTCP, Scalable").
SHORT_FAVOURING = ("highspeed", "scalable", "bic")
LONG_FAVOURING = ("areno", "htcp", "compound")
#: The protocols the paper trades Compound's friendliness against ("Friendliness-efficiency
#: tradeoff: Compound vs. BIC, Scalable, HSTCP, Hamilton").
TRADE_OFF = ("bic", "scalable", "highspeed", "htcp")
#: Long-lived flows: light and heavy load.
LOADS = {"light": 10, "heavy": 40}
#: Random loss on every backbone link direction, "with and without" (the seed gives no rate).
LOSS = 1e-5
#: The conditions, (load, loss): the study runs the one its claims are judged on, the heavy load
#: without random loss; :func:`light_load` runs the light load without and with random loss (the
#: paper ran random loss with 10 long-lived flows: "With/without random packet losses - 10
#: long-lived flows, 100 short-lived flows"). A quick run has the light load without loss.
CONDITIONS = (("heavy", "clean"),)
LIGHT_CONDITIONS = (("light", "clean"), ("light", "lossy"))
QUICK_CONDITIONS = (("light", "clean"),)
RTT_MEAN_S = 0.130
START_MEAN_S = 120.0
LONG_FILE = "4.7GB"
RTT_BINS_MS = (0, 50, 100, 200, math.inf)
#: The backbone links' buffer (the paper's "2MB buffer"), DropTail (ns-2's default discipline;
#: the paper names none).
BACKBONE_BUFFER = "2MB"
#: Every access link's queue, both directions: ns-2's default DropTail, ``limit_ 50``, which
#: counts the packet in transmission: 49 waiting, ccsim's count (the paper states only the
#: backbone's buffer).
ACCESS_BUFFER = "49pkts"
ACCESS_RATE = "10Gbps"

#: A quick run's length, and the mean start time of its long-lived flows (early, so that a short
#: run has them all).
QUICK_DURATION = "60s"
QUICK_START_MEAN_S = 10.0

#: Seeds per point of a full run, and of a quick one.
FULL_REPLICATES = 3
QUICK_REPLICATES = 3
#: The most seeds a full run goes up to on the judged condition while a check is inconclusive.
MAX_REPLICATES = 4

# ---- the modules' era: THE place where it is set --------------------------------------------------
#
# The paper ran Linux's congestion-control modules of 2006-2007 through ns-2's Linux patch
# (TCP-Linux). Every protocol of every run gets its engine entry from ``protocol_entry``: the
# compared algorithms, the Reno baseline (and so every flow and short file on Reno) and AReno's
# sensitivity variants. ``linux26 = true`` gives each module the arithmetic of Linux 2.6.22, the
# modules ns-2 ships (docs/algorithms.md, "The Linux 2.6 modules"). AReno is not one of them, but
# the paper ran it in the same patch, where a module's window grows once per ACK: it gets the same
# per-ACK counting (its ``linux26``), so its slow start is not twice as fast as its baseline's.

#: The protocols the study runs with Linux 2.6.22's arithmetic (AReno: its per-ACK counting).
LINUX26_MODULES = ("reno", "highspeed", "scalable", "bic", "htcp", "compound", "areno")
#: Per algorithm, the engine parameters that select the modules' era.
ERA_PARAMS: dict[str, dict[str, Any]] = {a: {"linux26": True} for a in LINUX26_MODULES}
#: Stack keys that select the modules' era (none: the option is per algorithm).
ERA_STACK: dict[str, Any] = {}


def protocol_entry(algorithm: str, name: str | None = None, **params: Any) -> Any:
    """The ``[compare]`` entry of one protocol: the engine's ``algorithm`` with the era's
    parameters (``ERA_PARAMS``) and ``params``, catalogued as ``name`` (default: the algorithm);
    the bare name when there are no parameters."""
    merged = ERA_PARAMS.get(algorithm, {}) | params
    if not merged and name in (None, algorithm):
        return algorithm
    return {"name": name or algorithm, "cc": algorithm, "params": merged}


UTILIZATION = "backbone utilization"
RELATIVE = "relative throughput"
FRIENDLINESS = "Reno friendliness"
FAST_SLOW = "300 ms / 30 ms throughput (fit)"
SHORT_TIME = "short-file transfer time s"
SHORT_SPEEDUP = "short-file speed-up vs all-Reno"
LONG_GOODPUT = "long-lived goodput Mb/s"
BOUNDS = {
    UTILIZATION: UNIT,
    RELATIVE: NONNEGATIVE,
    FRIENDLINESS: NONNEGATIVE,
    FAST_SLOW: NONNEGATIVE,
    SHORT_TIME: NONNEGATIVE,
    SHORT_SPEEDUP: NONNEGATIVE,
    LONG_GOODPUT: NONNEGATIVE,
}

L1_ASSUME = (
    (
        "linux profile (SACK, delayed ACKs, Linux's module details) with initial window 3 "
        "(RFC 3390, the seed's era), MSS 1460 B; every Linux module (Reno, HSTCP, Scalable, "
        "BIC, H-TCP, Compound) with the arithmetic of Linux 2.6.22, the modules ns-2's Linux "
        "patch runs (linux26 = true); AReno, not a Linux module, with their per-ACK counting "
        "(its linux26)"
    ),
    (
        "parking lot R0-R4, the 4 backbone links 1 Gb/s and 1 ms each way with 2 MB DropTail "
        "buffers (the slide's '15 msec' read as the buffer's drain time: 2 MB drains in 16 ms); every flow on "
        "its own hosts, access links 10 Gb/s carrying each flow's RTT, each direction with a "
        "DropTail queue of ns-2's default limit_ 50 (49 waiting; the paper states only the "
        "backbone's)"
    ),
    (
        "long-lived flows: 10 (light) or 40 (heavy), each from a router to another drawn "
        "uniformly among the 20 ordered pairs (hop counts 1-4, both directions), RTT "
        "exponential with mean 130 ms raised to the path's own round trip where a draw is below "
        "it, start exponential with mean 2 min, 4.7 GB files; drawn per seed, the same for every "
        "protocol"
    ),
    (
        "short-lived: an open-loop generator of 100 sources, 100 arrivals/s in all, Pareto file "
        "sizes with mean 1 MB and shape 1.5, endpoints and RTT (exponential, mean 130 ms) drawn "
        "per source"
    ),
    (
        "heavy load without random loss (light load without and with random loss 1e-5 on every "
        "backbone link direction: ccsim study L1-light); 600 s runs (every long-lived flow has "
        f"started with probability 1 - e^-5); {FULL_REPLICATES} seeds, up to {MAX_REPLICATES} "
        f"while a check is inconclusive (quick: 60 s, the light load without loss judged "
        f"instead, {QUICK_REPLICATES} seeds, Reno, HSTCP, H-TCP and AReno, long-lived starts "
        "with mean 10 s)"
    ),
    (
        "'all': every flow on the protocol; 'half': the even long-lived flows on it, the odd "
        "ones and every short file on Reno. Per-flow numbers are each long-lived flow's goodput "
        "over its own life, compared with the same flow in the all-Reno run; short files are "
        "compared on those that finished in both runs"
    ),
    "AReno: alpha 10 pkt/s, beta 0.1 (the paper gives none; ccsim study L1-areno varies them)",
)
