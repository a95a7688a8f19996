"""Seed 004, interactions among legacy and high-speed TCPs: study L1
(docs/studies/highspeed-parking-lot.md), the 1 Gb/s parking lot.

Five routers in a line, the four router-to-router links at 1 Gb/s both ways ("8 backbone links")
with 2 MB buffers. Long-lived flows (4.7 GB files, so they never finish) enter and leave at any
router, each with an RTT drawn from an exponential distribution (mean 130 ms) and a start time
from an exponential distribution (mean 2 min); 100 short-lived sources send 1 MB Pareto files
with exponential 1 s gaps. Every protocol runs alone ("all": every flow, short and long) and
mixed with Reno ("half": the even long-lived flows on the protocol, the odd ones and the short
files on Reno); runs of one workload differ only in protocol (common random numbers), so every
long-lived flow is compared with itself under Reno ("flow by flow, file by file").

Replicates: every seed draws a new workload (the long-lived flows' routers, RTTs and starts, the
short files). The claims are judged on the heavy load without random loss with their intervals
over the seeds, paired by seed where two protocols are compared (:mod:`ccsim.studies.checks`).

Choices the seed leaves open are in ``L1_ASSUME``. Where the engine's modules are set for the
protocols is :func:`protocol_entry` (the Linux module era, ``ERA_PARAMS``). AReno's alpha and
beta, which the paper does not give, are varied by ``ccsim study L1-areno``.

The package: ``common`` (protocols, loads, links, replicate counts, the era's parameters),
``workload`` (the parking lot and its flows, one sweep per seed), ``analysis`` (runs to records),
``claims`` (L1's claims and checks) and ``declarations`` (L1, its light load and AReno
companions).
"""

from __future__ import annotations

from ccsim.studies.highspeed_parking_lot.analysis import long_lived
from ccsim.studies.highspeed_parking_lot.common import (
    ACCESS_BUFFER,
    BOUNDS,
    ERA_PARAMS,
    ERA_STACK,
    FAST_SLOW,
    FRIENDLINESS,
    FULL_REPLICATES,
    LOSS,
    MAX_REPLICATES,
    PROTOCOLS,
    QUICK_PROTOCOLS,
    QUICK_REPLICATES,
    RELATIVE,
    SHORT_FAVOURING,
    SHORT_SPEEDUP,
    UTILIZATION,
    protocol_entry,
)
from ccsim.studies.highspeed_parking_lot.declarations import (
    ARENO_ALPHAS,
    ARENO_BETAS,
    ARENO_QUICK_PAIRS,
    STUDIES,
    areno_study,
    areno_variant,
    light_load_study,
)
from ccsim.studies.highspeed_parking_lot.workload import l1_scenario, long_lived_flows

__all__ = [
    "ACCESS_BUFFER",
    "ARENO_ALPHAS",
    "ARENO_BETAS",
    "ARENO_QUICK_PAIRS",
    "BOUNDS",
    "ERA_PARAMS",
    "ERA_STACK",
    "FAST_SLOW",
    "FRIENDLINESS",
    "FULL_REPLICATES",
    "LOSS",
    "MAX_REPLICATES",
    "PROTOCOLS",
    "QUICK_PROTOCOLS",
    "QUICK_REPLICATES",
    "RELATIVE",
    "SHORT_FAVOURING",
    "SHORT_SPEEDUP",
    "STUDIES",
    "UTILIZATION",
    "areno_study",
    "areno_variant",
    "l1_scenario",
    "light_load_study",
    "long_lived",
    "long_lived_flows",
    "protocol_entry",
]
