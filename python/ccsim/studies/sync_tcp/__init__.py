"""Seed 003, Sync-TCP in high-speed environments: studies S1-S2 (docs/studies/sync-tcp.md),
S3, a question the paper leaves open, and a sensitivity sweep of S1-S2 over what the
paper does not give (:func:`sensitivity`).

S1 and S2 are the paper's start-up experiments (its Table 1 and Fig. 2): one source node, two
finite-buffer DropTail routers and one destination node in a line, every link 10 ms (a 60 ms
base RTT) and at the study's rate; "two-way TCP traffic": the measured flow from the source to
the destination and one Reno bulk flow from the destination to the source, over the same links;
25 s. How long the measured flow's cwnd takes to reach the maximum window (50 at 10 Mb/s in S1,
500 at 100 Mb/s in S2; both the path's BDP with 1500-byte packets), whether it lost packets
before, and its goodput. Compared: Reno, Sync-TCP (``sync-tcp``) and the modified Sync-TCP
(``sync-tcp-hs``), the latter under both readings of its constant increase alpha0
(``alpha0_mode``: 0, the default, +alpha0 x cwnd per RTT; 1, +alpha0 segments per RTT).

Every link has a DropTail queue in each direction. The paper gives no size, so each is ns-2's
default queue limit, 50 packets (:data:`NS2_QUEUE_LIMIT`). ns-2 counts the packet being
transmitted in its limit and ccsim does not, so that is ccsim's ``buffer = "49pkts"``
(:func:`ns2_buffer`). The queue that decides is the source's own: every link has the same rate,
so a window that grows faster than the ACKs return queues there and nowhere else.

S3 (ours) asks whether Sync-TCP's delay-based detection still pays at 1 Gb/s when the reverse
path is congested: RTT-based signals see the reverse queue, Sync-TCP's one-way delays do not.

Choices the paper leaves open are in ``S1_ASSUME``, ``S2_ASSUME`` and ``S3_ASSUME``; the ones a
verdict may hang on (the queue size, Sync-TCP's averaging weight, alpha0's unit) are varied by
:func:`sensitivity`:

    python3 -c "from ccsim.studies import sync_tcp; sync_tcp.sensitivity(workers=2)"

The package: ``common`` holds ns-2's buffer, the configurations and the variants; ``startup``
declares S1 and S2, ``two_way`` S3, each with its sweeps, analysis and checks; ``sensitivity``
lists the studies and runs S1 and S2 under each variant.
"""

from __future__ import annotations

from ccsim.studies.sync_tcp.common import (
    CONFIGS,
    DROPS_BEFORE,
    DURATION_S,
    GOODPUT,
    REACH,
    REACHED,
    STARTUP_BOUNDS,
    Variant,
    ns2_buffer,
)
from ccsim.studies.sync_tcp.sensitivity import (
    SENSITIVITY,
    STUDIES,
    sensitivity,
    sensitivity_summary,
    variant_study,
)
from ccsim.studies.sync_tcp.startup import sweep_name
from ccsim.studies.sync_tcp.two_way import (
    LOSS_BASED,
    LOSS_RATE,
    QUEUE_DELAY,
    S3_BOUNDS,
    UTILIZATION,
    s3_sweeps,
)

__all__ = [
    "CONFIGS",
    "DROPS_BEFORE",
    "DURATION_S",
    "GOODPUT",
    "LOSS_BASED",
    "LOSS_RATE",
    "QUEUE_DELAY",
    "REACH",
    "REACHED",
    "S3_BOUNDS",
    "SENSITIVITY",
    "STARTUP_BOUNDS",
    "STUDIES",
    "UTILIZATION",
    "Variant",
    "ns2_buffer",
    "s3_sweeps",
    "sensitivity",
    "sensitivity_summary",
    "sweep_name",
    "variant_study",
]
