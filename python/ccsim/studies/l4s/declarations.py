"""Q1-Q3 as ``ccsim study`` runs them."""

from __future__ import annotations

from ccsim.studies.core import FigureSpec, Study
from ccsim.studies.l4s.analysis import q1_table, q2_table, q3_table
from ccsim.studies.l4s.claims import ALGORITHMS, Q1_CLAIMS, Q2_CLAIMS, Q3_CLAIMS
from ccsim.studies.l4s.common import (
    DUALQ_DRAFT,
    L4SOPS,
    MSS,
    PI2_PAPER,
    PRAGUE_SOURCE,
    PROFILE,
    RFC9330,
    RFC9331,
    RFC9332,
    START_JITTER,
)
from ccsim.studies.l4s.workload import (
    FULL_REPLICATES,
    Q1_COUNTS,
    Q1_QUICK_COUNTS,
    Q1_QUICK_TIMES,
    Q1_TIMES,
    Q2_QUICK_TIMES,
    Q2_TIMES,
    Q3_QUICK_TIMES,
    Q3_RTTS_MS,
    Q3_TIMES,
    QUICK_REPLICATES,
    q1_sweeps,
    q2_sweeps,
    q3_sweeps,
)

#: The most seeds a full run goes up to while a check is inconclusive.
MAX_REPLICATES = 10


def _list(values: tuple[float, ...]) -> str:
    return ", ".join(f"{v:g}" for v in values)


def _warmup(times: tuple[float, float], quick: tuple[float, float], extra: str = "") -> str:
    return (
        f"{times[1]:g} s of {times[0]:g} s (quick: {extra}{quick[1]:g} s of {quick[0]:g} s, "
        f"{QUICK_REPLICATES} seeds)"
    )


COMMON_ASSUME = (
    "linux profile (Linux 6.x: RACK-TLP, PRR, DSACK and undo, delayed ACKs, 25 us send-time "
    f"noise); MSS {MSS} B; CUBIC without ECN (Not-ECT, so classic and dropped); DCTCP and "
    "Prague with ECN as they require (Prague's packets ECT(1), DCTCP's ECT(0)); prague runs "
    "once the engine has it, its configurations are reported as not run until then",
    "DualPI2 with Linux's defaults (target 15 ms, tupdate 16 ms, alpha 0.16, beta 3.2, step "
    "1 ms, k = 2, 10 % classic weight, 10,000-packet limit) but classify = any_ect: every "
    "ECN-capable packet goes to the L queue, which here is every scalable flow's and no "
    "classic flow's, as the default classifier would with DCTCP sending ECT(1)",
    "dumbbell: one bottleneck with 1 ms each way, access links ten times faster, each flow's "
    "base RTT on its access links",
    f"bulk flows, each starting at a time drawn uniformly in [0, {START_JITTER}) per seed; "
    f"{FULL_REPLICATES} seeds (quick: {QUICK_REPLICATES}), up to {MAX_REPLICATES} while a "
    "check is inconclusive",
    "goodput: each flow's delivered rate averaged after the warm-up (100 ms samples); queue "
    "delays: each queue's head-of-line waiting time sampled every 100 ms after the warm-up; "
    "marks and drops: the queue's counters' growth after the warm-up over its arrivals",
)

Q1 = Study(
    id="Q1",
    slug="l4s-dualpi2-coexistence",
    title="A scalable flow (Prague, DCTCP) against 1-8 CUBIC flows in DualPI2: rate balance, "
    "per-queue delay, marks and drops",
    source=f"{RFC9332}; {DUALQ_DRAFT}; {PI2_PAPER}",
    setup="40 Mb/s with RTT 50 ms and 100 Mb/s with RTT 20 ms, DualPI2: one Prague or DCTCP "
    f"flow against N = {_list(Q1_COUNTS)} CUBIC flows; the per-flow rate ratio L/C, Jain's "
    "index, each queue's delay, marks and drops",
    warmup=_warmup(Q1_TIMES, Q1_QUICK_TIMES, f"40 Mb/s only, N = {_list(Q1_QUICK_COUNTS)}, "),
    assumptions=COMMON_ASSUME,
    sweeps=q1_sweeps,
    analyse=q1_table,
    claims=Q1_CLAIMS,
    figure=FigureSpec(
        "A scalable flow against N CUBIC flows in DualPI2",
        x="n_cubic",
        hue="config",
        xlabel="CUBIC flows",
    ),
    algorithms=ALGORITHMS,
    profile=PROFILE,
    max_replicates=MAX_REPLICATES,
)

Q2 = Study(
    id="Q2",
    slug="l4s-single-queue",
    title="A scalable flow against a CUBIC flow in one classic queue: drop-tail FIFO, RED with "
    "classic ECN, FQ-CoDel (and DualPI2 beside them)",
    source=f"{L4SOPS}; {DUALQ_DRAFT}; {RFC9330}",
    setup="40 Mb/s, 50 ms and 100 Mb/s, 20 ms; one Prague or DCTCP flow against one CUBIC "
    "flow in a one-BDP drop-tail FIFO, in RED marking classic ECN (thresholds ns-2's "
    "automatic ones), in FQ-CoDel with ECN, and in DualPI2; the per-flow rate ratio L/C, "
    "Jain's index, the queueing delay, marks and drops",
    warmup=_warmup(Q2_TIMES, Q2_QUICK_TIMES, "40 Mb/s only, "),
    assumptions=(
        *COMMON_ASSUME,
        "single queues: marks and drops over the whole run, over the bottleneck's arrivals; "
        "queueing delay: the mean backlog after the warm-up over the link rate",
    ),
    sweeps=q2_sweeps,
    analyse=q2_table,
    claims=Q2_CLAIMS,
    figure=FigureSpec("A scalable flow against a CUBIC flow in one queue", x=None, hue="config"),
    algorithms=ALGORITHMS,
    profile=PROFILE,
    max_replicates=MAX_REPLICATES,
)

Q3 = Study(
    id="Q3",
    slug="l4s-rtt-independence",
    title="RTT independence: five Prague flows of 5-100 ms in DualPI2's L queue, with and "
    "without Prague's RTT scaling",
    source=f"{PRAGUE_SOURCE}; {RFC9331}",
    setup=f"100 Mb/s, DualPI2; five flows of one sender with RTTs {_list(Q3_RTTS_MS)} ms: "
    "Prague with its RTT scaling (the default), Prague without it, and DCTCP; each flow's "
    "goodput, the 5 ms flow's over the 25 ms and the 100 ms flows', Jain's index",
    warmup=_warmup(Q3_TIMES, Q3_QUICK_TIMES),
    assumptions=(
        *COMMON_ASSUME,
        "Prague's RTT scaling applies after rtt_transition rounds past slow start (4 in the "
        "engine's Prague, tcp_prague.c v0.7; 500 in v0.6) and to flows below its 25 ms "
        "rtt_target; the warm-up covers those rounds in either version",
    ),
    sweeps=q3_sweeps,
    analyse=q3_table,
    claims=Q3_CLAIMS,
    figure=FigureSpec("RTT independence among scalable flows", x=None, hue="config"),
    algorithms=ALGORITHMS,
    profile=PROFILE,
    max_replicates=MAX_REPLICATES,
)

#: Q1-Q3, as ``ccsim study`` lists them.
STUDIES: tuple[Study, ...] = (Q1, Q2, Q3)
__all__ = ["MAX_REPLICATES", "Q1", "Q2", "Q3", "STUDIES"]
