"""The studies S1-S3 as ``ccsim study`` runs them: setup, sweeps, analysis and claims."""

from __future__ import annotations

from ccsim.studies.core import (
    Claim,
    FigureSpec,
    Study,
)
from ccsim.studies.sync_tcp.common import (
    CLOCK_CONFIGS,
    CONFIGS,
    S1_PUBLISHED,
    S2_PUBLISHED,
    SOURCE,
    STARTUP_MAX_REPLICATES,
)
from ccsim.studies.sync_tcp.startup import (
    S2_OURS,
    _s1_claims,
    _s2_claims,
    _startup_analyse,
    _startup_assume,
    _startup_sweeps,
)
from ccsim.studies.sync_tcp.two_way import (
    LOSS_RATE,
    QUEUE_DELAY,
    S3_ASSUME,
    S3_MAX_REPLICATES,
    S3_PROTOCOLS,
    _s3_analyse,
    _s3_sweeps,
    _s3_sync_lower,
    _s3_utilization,
)

# ---- the studies ----------------------------------------------------------------------------------

S1_SETUP = (
    "one flow (Reno, Sync-TCP, modified Sync-TCP) from the source node over two routers to the "
    "destination node at 10 Mb/s, every link 10 ms with ns-2's default 50-packet DropTail "
    "queue, max window 50, one Reno flow from the destination to the source; time for cwnd to "
    "reach 50"
)
S2_SETUP = (
    "as S1 at 100 Mb/s with max window 500: time for cwnd to reach 500, packets lost before, "
    "goodput over the 25 s"
)
STARTUP_WARMUP = (
    "none: the time to reach the window is measured from the flow's start, the goodput over the "
    "whole run"
)

STUDIES: tuple[Study, ...] = (
    Study(
        id="S1",
        slug="sync-tcp-low-speed",
        title="Time for cwnd to reach 50 at 10 Mb/s, two-way traffic",
        source=SOURCE,
        setup=S1_SETUP,
        warmup=STARTUP_WARMUP,
        assumptions=_startup_assume("10 Mb/s", 50),
        sweeps=_startup_sweeps("10Mbps", 50, CONFIGS),
        analyse=_startup_analyse("S1", 50, S1_PUBLISHED),
        claims=_s1_claims(),
        figure=FigureSpec("S1: time to cwnd 50 (ccsim vs paper)"),
        algorithms=("reno", "sync-tcp", "sync-tcp-hs"),
        max_replicates=STARTUP_MAX_REPLICATES,
    ),
    Study(
        id="S2",
        slug="sync-tcp-high-speed",
        title="Time for cwnd to reach 500 at 100 Mb/s, two-way traffic (Fig. 2)",
        source=SOURCE,
        setup=S2_SETUP,
        warmup=STARTUP_WARMUP,
        assumptions=_startup_assume("100 Mb/s", 500),
        sweeps=_startup_sweeps("100Mbps", 500, CONFIGS | CLOCK_CONFIGS),
        analyse=_startup_analyse("S2", 500, S2_PUBLISHED),
        claims=(*_s2_claims(), S2_OURS),
        figure=FigureSpec("S2: time to cwnd 500, losses and goodput (ccsim vs paper)"),
        algorithms=("reno", "sync-tcp", "sync-tcp-hs"),
        max_replicates=STARTUP_MAX_REPLICATES,
    ),
    Study(
        id="S3",
        slug="sync-tcp-two-way-1g",
        title="Sync-TCP against Reno, HSTCP and CUBIC at 1 Gb/s, reverse path idle or congested "
        "(ours)",
        source=SOURCE + ", a question it leaves open",
        setup="four flows of one protocol (RTTs 20-200 ms) over a 1 Gb/s dumbbell, the reverse "
        "path idle or loaded by four Reno flows; forward queueing delay, goodput and drops",
        warmup="10 s (quick: 5 s): queueing delay, drops and goodput are measured after it",
        assumptions=S3_ASSUME,
        sweeps=_s3_sweeps,
        analyse=_s3_analyse,
        claims=(
            Claim(
                "(ours) Sync-TCP's early detection keeps the queue shorter than loss-based TCPs, "
                "also when the reverse path is congested",
                "mean forward queueing delay after warm-up, Sync-TCP minus reno, highspeed and "
                "cubic, paired by seed, < 0 with the reverse path idle and congested "
                "(reversed: > 0)",
                _s3_sync_lower(QUEUE_DELAY, "queueing delay ms"),
            ),
            Claim(
                "(ours) Sync-TCP loses fewer packets than loss-based TCPs",
                "forward drops per second after warm-up, Sync-TCP minus reno, highspeed and "
                "cubic, paired by seed, < 0 with the reverse path idle and congested "
                "(reversed: > 0)",
                _s3_sync_lower(LOSS_RATE, "drops/s"),
            ),
            Claim(
                "(ours) the short queue costs little throughput",
                "forward goodput after warm-up of sync-tcp and sync-tcp-hs over Reno's, paired "
                "by seed, >= 0.9 with the reverse path idle and congested (reversed: < 0.5)",
                _s3_utilization,
            ),
        ),
        figure=FigureSpec("S3: forward queueing delay, goodput and drops"),
        algorithms=S3_PROTOCOLS,
        max_replicates=S3_MAX_REPLICATES,
    ),
)
