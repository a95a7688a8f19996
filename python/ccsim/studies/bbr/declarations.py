"""B1-B4 as ``ccsim study`` runs them."""

from __future__ import annotations

from ccsim.studies.bbr.analysis import b1_table, b2_table, b3_table, b4_table
from ccsim.studies.bbr.claims import B1_CLAIMS, B2_CLAIMS, B3_CLAIMS, B4_CLAIMS
from ccsim.studies.bbr.common import (
    BBR3_RELEASE,
    CAO,
    HOCK,
    MSS,
    PROFILE,
    SOURCE,
    START_JITTER,
    V1,
    V3,
    WARE,
)
from ccsim.studies.bbr.workload import (
    B1_BUFFERS,
    B1_QUICK_BUFFERS,
    B1_QUICK_TIMES,
    B1_TIMES,
    B2_BUFFERS,
    B2_COUNTS,
    B2_QUICK_BUFFERS,
    B2_QUICK_COUNTS,
    B2_QUICK_TIMES,
    B2_TIMES,
    B3_COUNTS,
    B3_QUICK_COUNTS,
    B3_QUICK_TIMES,
    B3_TIMES,
    B4_BUFFERS,
    B4_QUICK_BUFFERS,
    B4_QUICK_TIMES,
    B4_SELF_FLOWS,
    B4_TIMES,
    FULL_REPLICATES,
    QUICK_REPLICATES,
    b1_sweeps,
    b2_sweeps,
    b3_sweeps,
    b4_sweeps,
)
from ccsim.studies.core import FigureSpec, Study

#: The most seeds a full run goes up to while a check is inconclusive. B1 adds none: its 1 Gb/s
#: runs are most of the study's time; B2 and B4, whose runs are many, go up to 8.
B1_MAX_REPLICATES = FULL_REPLICATES
MAX_REPLICATES = 10
B2_B4_MAX_REPLICATES = 8


def _list(values: tuple[float, ...]) -> str:
    return ", ".join(f"{v:g}" for v in values)


COMMON_ASSUME = (
    f"linux profile (Linux 6.x: RACK-TLP, PRR, DSACK and undo, delayed ACKs, 25 us send-time "
    f"noise); BBR v1 is ccsim's bbr (Linux tcp_bbr.c, its internal pacing), v3 is bbr3 "
    f"(run once the engine has it; configurations with it are reported as not run until then); "
    f"CUBIC with Linux's HyStart as the profile sets it; MSS {MSS} B",
    "dumbbell: one drop-tail bottleneck, 1 ms each way, access links ten times faster; the "
    "buffer in BDPs of the bottleneck rate at 40 ms (B3: at 100 ms)",
    f"bulk flows, each starting at a time drawn uniformly in [0, {START_JITTER}) per seed "
    f"(the seeds are repeated runs); {FULL_REPLICATES} seeds (quick: {QUICK_REPLICATES})",
    "goodput: each flow's delivered rate averaged over the run after the warm-up (100 ms "
    "samples); retransmissions: retransmitted over sent segments over the whole run, as the "
    "papers' iperf/ss counts are; queueing delay: the bottleneck's mean queue in bytes after "
    "the warm-up over the link rate",
)

B1 = Study(
    id="B1",
    slug="bbr-vs-cubic-buffers",
    title="BBR vs CUBIC over buffer sizes: share, retransmissions, queueing delay",
    source=f"{HOCK}; {CAO}",
    setup="1 BBR vs 1 CUBIC and 2 vs 2 at RTT 40 ms on 100 Mb/s (buffers "
    f"{_list(B1_BUFFERS['100M'])} BDP) and 1 Gb/s (buffers {_list(B1_BUFFERS['1G'])} BDP); "
    "BBR's share of the goodput, each algorithm's retransmissions, the queueing delay",
    warmup=f"{B1_TIMES['100M'][1]:g} s of {B1_TIMES['100M'][0]:g} s at 100 Mb/s, "
    f"{B1_TIMES['1G'][1]:g} s of {B1_TIMES['1G'][0]:g} s at 1 Gb/s (quick: 100 Mb/s only, "
    f"buffers {_list(B1_QUICK_BUFFERS['100M'])} BDP, {B1_QUICK_TIMES['100M'][1]:g} s of "
    f"{B1_QUICK_TIMES['100M'][0]:g} s)",
    assumptions=COMMON_ASSUME,
    sweeps=b1_sweeps,
    analyse=b1_table,
    claims=B1_CLAIMS,
    figure=FigureSpec(
        "BBR vs CUBIC over buffer sizes",
        x="buffer_bdp",
        hue="config",
        xlabel="buffer (BDP at 40 ms)",
    ),
    algorithms=(V1, "cubic"),
    profile=PROFILE,
    max_replicates=B1_MAX_REPLICATES,
)

B2 = Study(
    id="B2",
    slug="bbr-vs-n-cubic",
    title="One BBR flow against N CUBIC flows in a deep buffer, beside Ware et al.'s model",
    source=WARE,
    setup=f"1 BBR vs N CUBIC (N = {_list(B2_COUNTS)}) at 100 Mb/s, RTT 40 ms, buffers "
    f"{_list(B2_BUFFERS)} BDP; BBR's share next to Ware et al.'s closed-form prediction (the "
    "table's published column)",
    warmup=f"{B2_TIMES[1]:g} s of {B2_TIMES[0]:g} s (quick: N = {_list(B2_QUICK_COUNTS)}, "
    f"{_list(B2_QUICK_BUFFERS)} BDP, {B2_QUICK_TIMES[1]:g} s of {B2_QUICK_TIMES[0]:g} s)",
    assumptions=(
        *COMMON_ASSUME,
        "Ware et al.'s model with 1500-byte packets on the wire, one BBR flow, a 10 s PROBE_RTT "
        "period lasting the queue's drain time + 200 ms + one RTT",
    ),
    sweeps=b2_sweeps,
    analyse=b2_table,
    claims=B2_CLAIMS,
    figure=FigureSpec(
        "one BBR vs N CUBIC (dotted: Ware et al.'s model)",
        x="n_cubic",
        hue="buffer",
        xlabel="CUBIC flows",
    ),
    algorithms=(V1, "cubic"),
    profile=PROFILE,
    max_replicates=B2_B4_MAX_REPLICATES,
)

B3 = Study(
    id="B3",
    slug="bbr-rtt-fairness",
    title="RTT fairness among BBR flows, v1 and v3",
    source=f"{HOCK}; {BBR3_RELEASE}",
    setup=f"{_list(B3_COUNTS)} flows of one BBR version with RTTs evenly spaced over "
    "10-100 ms, 100 Mb/s, buffer 1 BDP at 100 ms; each flow's goodput, the longest over the "
    "shortest, the rank correlation of goodput with RTT, Jain's index",
    warmup=f"{B3_TIMES[1]:g} s of {B3_TIMES[0]:g} s (quick: {_list(B3_QUICK_COUNTS)} flows, "
    f"{B3_QUICK_TIMES[1]:g} s of {B3_QUICK_TIMES[0]:g} s)",
    assumptions=COMMON_ASSUME,
    sweeps=b3_sweeps,
    analyse=b3_table,
    claims=B3_CLAIMS,
    figure=FigureSpec(
        "RTT fairness among BBR flows", x="flows", hue="algorithm", xlabel="flows (RTTs 10-100 ms)"
    ),
    algorithms=(V1, V3),
    profile=PROFILE,
    max_replicates=MAX_REPLICATES,
)

B4 = Study(
    id="B4",
    slug="bbr-v3-vs-v1",
    title="BBR v3 against v1: coexistence with CUBIC and Reno, retransmissions, queueing, "
    "fairness among themselves",
    source=BBR3_RELEASE,
    setup=f"100 Mb/s, RTT 40 ms, buffers {_list(B4_BUFFERS)} BDP: 1 BBR (v1 or v3) vs 1 CUBIC, "
    f"vs 1 Reno, and {B4_SELF_FLOWS} flows of one version; BBR's share, retransmissions, "
    "queueing delay, Jain's index among the version's own flows",
    warmup=f"{B4_TIMES[1]:g} s of {B4_TIMES[0]:g} s (quick: {_list(B4_QUICK_BUFFERS)} BDP, "
    f"{B4_QUICK_TIMES[1]:g} s of {B4_QUICK_TIMES[0]:g} s)",
    assumptions=COMMON_ASSUME,
    sweeps=b4_sweeps,
    analyse=b4_table,
    claims=B4_CLAIMS,
    figure=FigureSpec(
        "BBR v3 against v1", x="buffer_bdp", hue="config", xlabel="buffer (BDP at 40 ms)"
    ),
    algorithms=(V1, V3, "cubic", "reno"),
    profile=PROFILE,
    max_replicates=B2_B4_MAX_REPLICATES,
)

#: B1-B4, as ``ccsim study`` lists them.
STUDIES: tuple[Study, ...] = (B1, B2, B3, B4)
__all__ = ["B1", "B2", "B2_B4_MAX_REPLICATES", "B3", "B4", "MAX_REPLICATES", "SOURCE", "STUDIES"]
