"""Seed 000, Randomized TCP: studies R1-R13 (docs/studies/randomized-tcp.md).

Every study is written against the paper's algorithms: ``reno`` (the paper's base, Reno loss
recovery), ``paced``, ``randomized`` (parameter ``interval`` I; its increase parameter is scaled
as section III.A says) and the binomial ``iiad`` and ``sqrt`` (with ``randomize``). Until the
engine has all of them, the configurations it can run are run and the others are reported as
not run.

Every check decides with the interval of its quantity over the replicates (seeds), paired by
seed where two configurations are compared (:mod:`ccsim.studies.checks`); a verdict follows from
its checks by the one rule of :func:`ccsim.studies.checks.grade`.

Choices common to every study (printed with each):

* Packet size. The paper's "MSS 500 B" is ns-2's ``packetSize_``, which ns-2 puts on the wire
  with 40 B of TCP/IP headers; ccsim's ``mss = 500`` is the same thing (500 B payload, 540 B on
  the wire), so the two queue and serialize identically. R13's "1000 B packets" are read the same
  way (``mss = 1000``).
* Queues. Every link is DropTail. A bottleneck's buffer is the paper's, in packets as the paper
  counts them ("1/4 BDP" at 4 Mb/s and 100 ms is 25 packets of 500 B), not recomputed from
  ccsim's 540-byte packets. Every link the paper gives no buffer for (the access links, both
  directions) has ns-2's default DropTail queue, ``limit_ 50``, which holds 49 waiting packets
  besides the one in transmission: ccsim counts waiting packets, so 49 (:data:`NS2_QUEUE`).
  Each study notes the deepest access-link queue and the access-link drops of its runs.
* "End-to-end propagation" is read as the base round-trip time, as the paper's default "round
  trip time of 100 ms" is; the bottleneck's one-way delay is a fixed part of it and the access
  links carry the rest.
* Flows start at uniform random times in the first second (``start_jitter``): the seed moves
  them, and replicates over seeds show how much two-flow results swing with start times.

The package: ``common`` holds the stack, the dumbbell, the per-run records and the sensitivity
grids every study uses; each other module declares one study or a pair (``r1_interval`` ..
``r13_floyd_jacobson``) with its sweeps, analysis and checks.
"""

from __future__ import annotations

from ccsim.studies.core import Study
from ccsim.studies.randomized_tcp.common import NS2_QUEUE
from ccsim.studies.randomized_tcp.r1_interval import R1, r1_curve
from ccsim.studies.randomized_tcp.r2_r3_bulk import (
    BULK_BOUNDS,
    BULK_NS,
    R2,
    R3,
    r2_equal,
    r2_randomized_best,
)
from ccsim.studies.randomized_tcp.r4_r10_web import R4, R10, WEB_BOUNDS, WEB_SHORT, r4_short
from ccsim.studies.randomized_tcp.r5_reno import R5, R5_BOUNDS
from ccsim.studies.randomized_tcp.r6_r7_phase import (
    PHASE_DELAY,
    PHASE_DELAYS,
    R6,
    R7,
    R7_IDEAL,
    r6_phase,
    r7_claims,
)
from ccsim.studies.randomized_tcp.r8_bottlenecks import R8
from ccsim.studies.randomized_tcp.r9_synchronization import R9, R9_NEAR_ZERO, R9_TABULATED, r9_many
from ccsim.studies.randomized_tcp.r11_burst_losses import R11, r11_several, r11_trend
from ccsim.studies.randomized_tcp.r12_binomial import (
    R12,
    R12_A,
    R12_B,
    R12_BOUNDS,
    R12_SENSITIVITY_A,
    R12_SENSITIVITY_B,
    r12_beat_down,
    r12_fairer,
)
from ccsim.studies.randomized_tcp.r13_floyd_jacobson import R13

__all__ = [
    "BULK_BOUNDS",
    "BULK_NS",
    "NS2_QUEUE",
    "PHASE_DELAY",
    "PHASE_DELAYS",
    "R1",
    "R2",
    "R3",
    "R4",
    "R5",
    "R5_BOUNDS",
    "R6",
    "R7",
    "R7_IDEAL",
    "R8",
    "R9",
    "R9_NEAR_ZERO",
    "R9_TABULATED",
    "R10",
    "R11",
    "R12",
    "R12_A",
    "R12_B",
    "R12_BOUNDS",
    "R12_SENSITIVITY_A",
    "R12_SENSITIVITY_B",
    "R13",
    "STUDIES",
    "WEB_BOUNDS",
    "WEB_SHORT",
    "r1_curve",
    "r2_equal",
    "r2_randomized_best",
    "r4_short",
    "r6_phase",
    "r7_claims",
    "r9_many",
    "r11_several",
    "r11_trend",
    "r12_beat_down",
    "r12_fairer",
]


STUDIES: tuple[Study, ...] = (R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13)
