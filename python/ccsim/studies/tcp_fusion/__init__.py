"""Seed 002, TCP-Fusion with RTT fairness: studies H1-H3 (docs/studies/tcp-fusion.md).

H2 (four flows of one protocol at 40/50/80/100 ms, DropTail and RED; Fig. 4-6, Tables II-IV)
and H3 (a 40 ms Reno flow against a Reno, Fusion or proposal flow whose RTT is swept, RED;
Fig. 7) follow H1 below; their assumptions are in ``H2_ASSUME`` and ``H3_ASSUME``.

H1 is the paper's Fig. 3: one flow with a 40 ms RTT over the Fig. 2 dumbbell (1 Gb/s access
links, a 100 Mb/s 1 ms bottleneck with a BDP buffer, 1 Gb/s 1 ms receiver links) with random
loss p on the bottleneck, throughput against p for every algorithm the paper compares: Reno,
Fusion, the proposal (``fusion-rf``, Fusion whose loss mode grows by k RTT^2 with
k = 1/0.04^2), Adaptive Reno, FAST, Libra and the high-speed TCPs.

Choices the paper leaves open (printed with the study):

* the ns2 profile with SACK recovery (``[stack] sack = true``, ns-2's SACK agent). The paper
  ran ns-2 but does not say which TCP agent; with the ns2 profile's NewReno recovery (one hole
  repaired per RTT) the slow-start overshoot into a BDP buffer at 100 Mb/s leaves every
  NewReno-recovery algorithm (Fusion, AReno, Compound, the high-speed family) near 1 Mb/s at
  p <= 1e-4, which measures the recovery rule and not the congestion control the figure
  compares. The other ns2 knobs stay (initial window 2, no delayed ACKs).
* MSS 1000 B (ns-2's ``packetSize_`` default); the link's goodput ceiling is then
  100 Mb/s x 1000/1040 = 96.15 Mb/s.
* runs of 300 s, 3 seeds: at p = 1e-6 a flow at the link rate sees about 3.6 random losses per
  run, so the smallest p is resolved only coarsely (the table's ``random losses`` rows give the
  expected count, p x packets sent).

The package: ``common`` holds the link, the algorithms and the metric names;
``h1_lossy_link``, ``h2_rtt_fairness`` and ``h3_reno_friendliness`` declare one study each with
its sweeps, analysis and checks.
"""

from __future__ import annotations

from ccsim.studies.core import Study
from ccsim.studies.tcp_fusion.common import ALGORITHMS, GOODPUT, LOSSES, LOSSY, WINNERS
from ccsim.studies.tcp_fusion.h1_lossy_link import H1, h1_sweeps
from ccsim.studies.tcp_fusion.h2_rtt_fairness import (
    ALL,
    FLOW_GOODPUT,
    H2,
    H2_BOUNDS,
    JAIN,
    LOST,
    RANK,
    TOP_LOSSES,
    TOP_SHARE,
    VARIANCE,
    h2_sweeps,
)
from ccsim.studies.tcp_fusion.h3_reno_friendliness import (
    H3,
    OTHER_GOODPUT,
    goodput_spread,
    h3_sweeps,
)

__all__ = [
    "ALGORITHMS",
    "ALL",
    "FLOW_GOODPUT",
    "GOODPUT",
    "H1",
    "H2",
    "H2_BOUNDS",
    "H3",
    "JAIN",
    "LOSSES",
    "LOSSY",
    "LOST",
    "OTHER_GOODPUT",
    "RANK",
    "STUDIES",
    "TOP_LOSSES",
    "TOP_SHARE",
    "VARIANCE",
    "WINNERS",
    "goodput_spread",
    "h1_sweeps",
    "h2_sweeps",
    "h3_sweeps",
]


STUDIES: tuple[Study, ...] = (H1, H2, H3)
