"""The claims of Q1-Q3 and their checks.

Checks are built from the configurations the table holds, so a quick run (one path, fewer
counts) is judged on what it ran, and a claim about an algorithm the engine lacks (``prague``
before it is registered) has no checks and is "not run". Every tolerance below is ours: the
sources the library holds state directions and design goals, not numbers to test against.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ccsim.studies.core import Check, Claim, Quantity, band, compare, measure, within
from ccsim.studies.l4s.common import (
    C_DELAY,
    DCTCP,
    DUALQ_DRAFT,
    JAIN,
    L4SOPS,
    L_DELAY,
    L_DROPS,
    PATH_WORDS,
    PI2_PAPER,
    PRAGUE,
    PRAGUE_SOURCE,
    RATIO,
    RFC9330,
    RFC9331,
    RFC9332,
    SHORT_LONG,
    SHORT_TARGET,
)

#: Q1: "about the same rate" as a band on the per-flow rate ratio L/C: within a factor of 2.
Q1_RATIO_BAND = (0.5, 2.0)
#: Q1: "sub-millisecond average queuing delay" in the L queue.
L_DELAY_MAX_MS = 1.0
#: Q1: the classic queue's PI2 target, and how far its mean delay may lie from it (relative).
C_TARGET_MS = 15.0
C_TARGET_TOLERANCE = 0.2
#: Q1: "zero congestion loss" for the L queue, as at most this % of its packets dropped.
L_DROPS_MAX_PERCENT = 0.1
#: Q2: a drop-tail FIFO makes a scalable flow "Reno-friendly": its rate within a factor of 2
#: of a classic flow's; above 2 it behaves as in a classic-ECN queue (the opposite).
FIFO_RATIO_BAND = (0.5, 2.0)
#: Q2 and Q3: "the same rate" (FQ enforcing fairness; RTTs at or below Prague's target) as the
#: ratio in [0.8, 1.25].
EVEN_BAND = (0.8, 1.25)


def _values(table: pd.DataFrame, column: str, **keys: Any) -> list[Any]:
    rows = table[table["runs"] > 0]
    for key, wanted in keys.items():
        rows = rows[rows[key] == wanted]
    return sorted(set(rows[column]))


def _where(path: str, l4s: str) -> str:
    return f"{PATH_WORDS[path]}, {l4s}"


def _log_distance(q: Quantity) -> Quantity:
    """|ln(ratio)|: how far a ratio is from an even split, the same above and below."""
    return q.map(lambda r: abs(math.log(r)) if r > 0 else math.inf, (0.0, math.inf))


# ---- Q1 ---------------------------------------------------------------------------------------------


def _q1_points(table: pd.DataFrame) -> list[tuple[str, str, int]]:
    return [
        (path, l4s, n)
        for path in _values(table, "path")
        for l4s in _values(table, "l4s", path=path)
        for n in _values(table, "n_cubic", path=path, l4s=l4s)
    ]


def _q1(table: pd.DataFrame, metric: str, path: str, l4s: str, n: int) -> Quantity:
    return measure(table, metric, path=path, l4s=l4s, n_cubic=n)


def q1_rate_balance(table: pd.DataFrame) -> list[Check]:
    low, high = Q1_RATIO_BAND
    return [
        band(
            f"{_where(path, l4s)} vs {n} CUBIC: per-flow rate ratio L/C",
            _q1(table, RATIO, path, l4s, n),
            low,
            high,
        )
        for path, l4s, n in _q1_points(table)
    ]


def q1_l_delay(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{_where(path, l4s)} vs {n} CUBIC: L queue's mean delay",
            _q1(table, L_DELAY, path, l4s, n),
            "<",
            L_DELAY_MAX_MS,
            unit="ms",
            reversal=None,
        )
        for path, l4s, n in _q1_points(table)
    ]


def q1_c_delay(table: pd.DataFrame) -> list[Check]:
    return [
        within(
            f"{_where(path, l4s)} vs {n} CUBIC: C queue's mean delay vs the {C_TARGET_MS:g} ms "
            "target",
            _q1(table, C_DELAY, path, l4s, n),
            C_TARGET_MS,
            C_TARGET_TOLERANCE,
            unit="ms",
        )
        for path, l4s, n in _q1_points(table)
    ]


def q1_l_loss(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{_where(path, l4s)} vs {n} CUBIC: L queue's drops, % of its packets",
            _q1(table, L_DROPS, path, l4s, n),
            "<",
            L_DROPS_MAX_PERCENT,
            reversal=None,
        )
        for path, l4s, n in _q1_points(table)
    ]


Q1_CLAIMS = (
    Claim(
        "In DualPI2 a scalable flow and a classic flow get about the same rate",
        f"for each path, scalable sender (Prague, DCTCP) and number of CUBIC flows (1, 4, 8): "
        f"a scalable flow's goodput over a CUBIC flow's (per seed) in [{Q1_RATIO_BAND[0]:g}, "
        f"{Q1_RATIO_BAND[1]:g}]; failed outside. Source: {DUALQ_DRAFT}: 'the Coupled AQM "
        f"ensures that a flow runs at about the same rate whether it uses DCTCP or TCP "
        f"Reno/Cubic'; {RFC9332}, the coupling factor k = 2 for rate balance; {PI2_PAPER}. "
        "'About the same' has no number in what the library holds: the factor of 2 is ours",
        q1_rate_balance,
    ),
    Claim(
        "DualPI2's L queue keeps a sub-millisecond mean queueing delay",
        f"for each path, sender and count: the L queue's mean head-of-line delay after the "
        f"warm-up < {L_DELAY_MAX_MS:g} ms; failed above. Source: {DUALQ_DRAFT}: 'DCTCP "
        f"achieved sub-millisecond average queuing delay'; {RFC9331}, abstract ('typically "
        "sub-millisecond on average'); direction only",
        q1_l_delay,
    ),
    Claim(
        "DualPI2's classic queue holds its 15 ms target",
        f"for each path, sender and count: the C queue's mean head-of-line delay after the "
        f"warm-up within +-{C_TARGET_TOLERANCE:.0%} of {C_TARGET_MS:g} ms (relative, per seed). "
        f"Source: {RFC9332} and Linux's sch_dualpi2 (target 15 ms, 'classic traffic requires a "
        "decent target queue (default 15ms for Internet deployment)', the L4S team's DualPI2 "
        "release notes); the tolerance is ours",
        q1_c_delay,
    ),
    Claim(
        "Scalable flows in DualPI2's L queue see (almost) no congestion loss",
        f"for each path, sender and count: the L queue's drops after the warm-up < "
        f"{L_DROPS_MAX_PERCENT:g} % of its packets; failed above. Source: {DUALQ_DRAFT}: "
        "'zero congestion loss under a wide range of mixes'; the threshold is ours",
        q1_l_loss,
    ),
)


# ---- Q2 ---------------------------------------------------------------------------------------------


def _q2(table: pd.DataFrame, metric: str, path: str, l4s: str, queue: str) -> Quantity:
    return measure(table, metric, path=path, l4s=l4s, queue=queue)


def _q2_pairs(table: pd.DataFrame, queue: str) -> list[tuple[str, str]]:
    return [
        (path, l4s)
        for path in _values(table, "path", queue=queue)
        for l4s in _values(table, "l4s", path=path, queue=queue)
    ]


def q2_classic_ecn(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{_where(path, l4s)} vs 1 CUBIC, RED with classic ECN: per-flow rate ratio L/C",
            _q2(table, RATIO, path, l4s, "red-ecn"),
            ">",
            1.0,
        )
        for path, l4s in _q2_pairs(table, "red-ecn")
    ]


def q2_fifo(table: pd.DataFrame) -> list[Check]:
    low, high = FIFO_RATIO_BAND
    return [
        band(
            f"{_where(path, l4s)} vs 1 CUBIC, drop-tail FIFO: per-flow rate ratio L/C",
            _q2(table, RATIO, path, l4s, "fifo"),
            low,
            high,
            reversal=(high, math.inf),
        )
        for path, l4s in _q2_pairs(table, "fifo")
    ]


def q2_fq(table: pd.DataFrame) -> list[Check]:
    low, high = EVEN_BAND
    return [
        band(
            f"{_where(path, l4s)} vs 1 CUBIC, FQ-CoDel: per-flow rate ratio L/C",
            _q2(table, RATIO, path, l4s, "fq_codel"),
            low,
            high,
        )
        for path, l4s in _q2_pairs(table, "fq_codel")
    ]


def q2_fq_isolates(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{_where(path, l4s)} vs 1 CUBIC: |ln(ratio L/C)|, FQ-CoDel vs RED with classic ECN "
            "(paired by seed)",
            _log_distance(_q2(table, RATIO, path, l4s, "fq_codel")),
            "<",
            _log_distance(_q2(table, RATIO, path, l4s, "red-ecn")),
        )
        for path, l4s in _q2_pairs(table, "fq_codel")
    ]


Q2_CLAIMS = (
    Claim(
        "In a single queue marking classic ECN a scalable flow takes more than a classic flow",
        "for each path and scalable sender, one against one CUBIC flow in RED with classic ECN "
        "(RFC 3168 marking): a scalable flow's goodput over the CUBIC flow's > 1 (reversed: "
        f"< 1). Source: {L4SOPS}: 'Classic ECN, FIFO: classic flows get less throughput than "
        f"L4S flows'; {DUALQ_DRAFT}: 'DCTCP is so aggressive that existing TCP algorithms "
        f"approach starvation'; {RFC9330}; direction only",
        q2_classic_ecn,
    ),
    Claim(
        "In a drop-tail FIFO a scalable flow becomes Reno-friendly",
        f"for each path and sender: the ratio in [{FIFO_RATIO_BAND[0]:g}, "
        f"{FIFO_RATIO_BAND[1]:g}] (reversed: above {FIFO_RATIO_BAND[1]:g}, the classic-ECN "
        f"outcome). Source: {L4SOPS}: 'Taildrop, any: L4S flows become Reno-friendly in "
        "response to loss'; the band is ours",
        q2_fifo,
    ),
    Claim(
        "FQ-CoDel gives a scalable and a classic flow the same rate",
        f"for each path and sender: the ratio in [{EVEN_BAND[0]:g}, {EVEN_BAND[1]:g}]. Source: "
        f"{L4SOPS}: 'FQ enforces fairness'; {RFC9330}, flow-queue isolation; the band is ours",
        q2_fq,
    ),
    Claim(
        "Flow queuing isolates: FQ-CoDel is fairer than the classic-ECN single queue",
        "for each path and sender: |ln(ratio)| (the distance from an even split) smaller "
        "under FQ-CoDel than under RED with classic ECN, paired by seed (reversed: larger). "
        f"Source: {L4SOPS}; {RFC9330}; direction only",
        q2_fq_isolates,
    ),
)


# ---- Q3 ---------------------------------------------------------------------------------------------


def _q3(table: pd.DataFrame, metric: str, config: str) -> Quantity:
    return measure(table, metric, config=config)


def q3_equal_below_target(table: pd.DataFrame) -> list[Check]:
    if "prague" not in _values(table, "config"):
        return []
    low, high = EVEN_BAND
    return [
        band(
            "prague with RTT scaling: goodput of the 5 ms flow over the 25 ms flow's",
            _q3(table, SHORT_TARGET, "prague"),
            low,
            high,
        )
    ]


def q3_dependent_without(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{config}: goodput of the 5 ms flow over the 25 ms flow's",
            _q3(table, SHORT_TARGET, config),
            ">",
            1.0,
        )
        for config in _values(table, "config", rtt_scaling="off")
    ]


def q3_scaling_helps(table: pd.DataFrame) -> list[Check]:
    configs = _values(table, "config")
    if "prague" not in configs or "prague-no-scaling" not in configs:
        return []
    return [
        compare(
            "Jain's index of the five flows, RTT scaling on vs off (paired by seed)",
            _q3(table, JAIN, "prague"),
            ">",
            _q3(table, JAIN, "prague-no-scaling"),
        ),
        compare(
            "|ln(5 ms / 100 ms goodput)|, RTT scaling on vs off (paired by seed)",
            _log_distance(_q3(table, SHORT_LONG, "prague")),
            "<",
            _log_distance(_q3(table, SHORT_LONG, "prague-no-scaling")),
        ),
    ]


Q3_CLAIMS = (
    Claim(
        "With RTT scaling, Prague flows at or below the 25 ms target RTT get the same rate",
        f"five Prague flows (5, 10, 25, 50, 100 ms) in DualPI2's L queue: the 5 ms flow's "
        f"goodput over the 25 ms flow's in [{EVEN_BAND[0]:g}, {EVEN_BAND[1]:g}]. Source: "
        f"{PRAGUE_SOURCE}: 'flows with e2e RTT <= target RTT achieve the same throughput'; "
        f"{RFC9331}, the requirement to reduce RTT dependence; the band is ours",
        q3_equal_below_target,
    ),
    Claim(
        "Without RTT scaling, a scalable flow's rate falls with its RTT",
        f"Prague with its RTT scaling off, and DCTCP (which has none): the 5 ms flow's goodput "
        f"over the 25 ms flow's > 1 (reversed: < 1). Source: {PRAGUE_SOURCE} (the dependence "
        f"its scaling removes); {RFC9331}; direction only",
        q3_dependent_without,
    ),
    Claim(
        "Prague's RTT scaling makes flows of 5-100 ms share more evenly",
        "Jain's index of the five flows higher with RTT scaling than without, and the 5 ms "
        "flow's goodput over the 100 ms flow's closer to 1 (|ln| smaller), each paired by "
        f"seed (reversed: the other way). Source: {PRAGUE_SOURCE}: scaling 'leaves room for "
        "higher RTT flows to grab a larger bandwidth share'; direction only",
        q3_scaling_helps,
    ),
)

#: The senders each study is about.
ALGORITHMS = (PRAGUE, DCTCP, "cubic")
