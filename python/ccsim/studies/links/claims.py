"""The claims of C1 and C2 and their checks.

Checks are built from what the table holds, so each trace C1 ran is judged on its own, and a
check about an algorithm the engine lacks has no data (its claim "not run"). The sources state
directions; every threshold below is ours, fixed before the first full run
(docs/studies/links.md).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ccsim.studies.core import Check, Claim, Quantity, compare, measure
from ccsim.studies.links.common import (
    AGG_THROUGHPUT,
    ALFREDSSON,
    BBR,
    BBR3,
    BBR3_NO_ALLOWANCE,
    BBR_AGGREGATION_COMMIT,
    BBR_AGGREGATION_SLIDES,
    BBR_NO_ALLOWANCE,
    BBR_PAPER,
    CUBIC,
    DELAY_BASED,
    DRAIN_TIME,
    P95_DELAY,
    PANTHEON,
    QUEUE_PEAK,
    RAMP_TIME,
    RENO,
    RFC9438,
    SPROUT,
    TCPEVAL,
    THROUGHPUT,
    VEGAS,
    VEGAS_CC,
    VERUS,
    WIRE_BYTES,
)
from ccsim.studies.links.workload import C1_RTT_MS, C2_HIGH_BPS, C3_LEVELS

#: C1: CUBIC's delay is bufferbloat when its 95th percentile is above this many times the path's
#: base one-way delay (20 ms): 100 ms, the bound Sprout keeps 95 % of its packets under.
BLOAT_FACTOR = 5.0
BLOAT_MS = BLOAT_FACTOR * C1_RTT_MS / 2
#: C1: BBR keeps at least this share of CUBIC's throughput.
BBR_SHARE_OF_CUBIC = 0.8
#: C2: the buffer (one BDP at 100 Mb/s and 40 ms, in 1500-byte packets) and the share of it
#: BBR's old bandwidth estimate fills after the step down.
C2_BUFFER_PKTS = math.ceil(C2_HIGH_BPS * 0.040 / (8 * WIRE_BYTES))
OVERSHOOT_SHARE = 0.5


def _values(table: pd.DataFrame, column: str, **keys: Any) -> list[Any]:
    rows = table[table["runs"] > 0]
    for key, wanted in keys.items():
        rows = rows[rows[key] == wanted]
    return sorted(set(rows[column]))


# ---- C1 --------------------------------------------------------------------------------------------------


def _c1(table: pd.DataFrame, metric: str, trace: str, algorithm: str) -> Quantity:
    return measure(table, metric, trace=trace, algorithm=algorithm)


def c1_cubic_highest_delay(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{trace}: p95 one-way delay, cubic vs {other} (paired by seed)",
            _c1(table, P95_DELAY, trace, CUBIC),
            ">",
            _c1(table, P95_DELAY, trace, other),
            unit="ms",
        )
        for trace in _values(table, "trace")
        for other in (BBR, BBR3, *DELAY_BASED)
    ]


def c1_cubic_bloat(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{trace}: cubic's p95 one-way delay",
            _c1(table, P95_DELAY, trace, CUBIC),
            ">",
            BLOAT_MS,
            unit="ms",
            reversal=None,
        )
        for trace in _values(table, "trace")
    ]


def c1_delay_based_cost(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{trace}: throughput, {other} vs cubic (paired by seed)",
            _c1(table, THROUGHPUT, trace, other),
            "<",
            _c1(table, THROUGHPUT, trace, CUBIC),
            unit="Mb/s",
        )
        for trace in _values(table, "trace")
        for other in DELAY_BASED
    ]


def c1_bbr_throughput(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{trace}: {version}'s throughput over cubic's (per seed)",
            _c1(table, THROUGHPUT, trace, version) / _c1(table, THROUGHPUT, trace, CUBIC),
            ">",
            BBR_SHARE_OF_CUBIC,
            reversal=None,
        )
        for trace in _values(table, "trace")
        for version in (BBR, BBR3)
    ]


_C1_SOURCES = f"{SPROUT}; {PANTHEON}"

C1_CLAIMS = (
    Claim(
        "Loss-based CUBIC fills the deep buffer: the highest 95th-percentile delay",
        "for each trace: CUBIC's 95th-percentile one-way delay above BBR's, BBRv3's, Vegas's "
        "and FAST's, each paired by seed (reversed: below). Sources: "
        f"{SPROUT} ('current protocols build up multi-second queues in network gateways'; "
        f"its figures put Cubic's delay above every other scheme's); {PANTHEON}; {VERUS}; "
        f"{ALFREDSSON}; direction only",
        c1_cubic_highest_delay,
    ),
    Claim(
        "CUBIC's delay on a cellular link is bufferbloat",
        f"for each trace: CUBIC's 95th-percentile one-way delay > {BLOAT_MS:g} ms "
        f"({BLOAT_FACTOR:g} times the path's {C1_RTT_MS / 2:g} ms base one-way delay, Sprout's "
        f"100 ms bound); failed below. Sources: {SPROUT}; {VERUS} (Cubic's delay an order of "
        "magnitude above Verus's); the threshold is ours",
        c1_cubic_bloat,
    ),
    Claim(
        "Delay-based senders keep delay lower at a cost in throughput",
        "for each trace: Vegas's and FAST's throughput below CUBIC's, paired by seed "
        "(reversed: above); their delay is judged by the first claim. Sources: "
        f"{_C1_SOURCES} (Vegas at lower throughput and lower delay than Cubic on the cellular "
        "traces); direction only",
        c1_delay_based_cost,
    ),
    Claim(
        "BBR keeps most of CUBIC's throughput",
        f"for each trace: BBR's and BBRv3's throughput over CUBIC's (per seed) > "
        f"{BBR_SHARE_OF_CUBIC:g}; failed below. Source: {PANTHEON} (BBR among the "
        "highest-throughput schemes on its cellular paths, at a lower delay than Cubic); the "
        "threshold is ours",
        c1_bbr_throughput,
    ),
)


# ---- C2 --------------------------------------------------------------------------------------------------


def _c2(table: pd.DataFrame, metric: str, algorithm: str) -> Quantity:
    return measure(table, metric, algorithm=algorithm)


def _faster(table: pd.DataFrame, algorithm: str, op: str, than: str) -> Check:
    return compare(
        f"time to 90% after the step up, {algorithm} vs {than} (paired by seed)",
        _c2(table, RAMP_TIME, algorithm),
        op,  # type: ignore[arg-type]
        _c2(table, RAMP_TIME, than),
        unit="s",
    )


def c2_bbr_ramp(table: pd.DataFrame) -> list[Check]:
    return [_faster(table, version, "<", RENO) for version in (BBR, BBR3)]


def c2_cubic_ramp(table: pd.DataFrame) -> list[Check]:
    return [_faster(table, CUBIC, "<", RENO)]


def c2_vegas_ramp(table: pd.DataFrame) -> list[Check]:
    return [_faster(table, VEGAS_CC, ">", RENO)]


def c2_drain(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"time to drain after the step down, {other} vs cubic (paired by seed)",
            _c2(table, DRAIN_TIME, other),
            "<",
            _c2(table, DRAIN_TIME, CUBIC),
            unit="s",
        )
        for other in (BBR, BBR3, VEGAS_CC)
    ]


def c2_bbr_overshoot(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{version}'s queue peak after the step down",
            _c2(table, QUEUE_PEAK, version),
            ">",
            OVERSHOOT_SHARE * C2_BUFFER_PKTS,
            unit="pkts",
            reversal=None,
        )
        for version in (BBR, BBR3)
    ]


C2_CLAIMS = (
    Claim(
        "BBR takes up new capacity faster than Reno",
        "the time from the step up (20 -> 100 Mb/s) to the first 100 ms at 90 % of the link, "
        "BBR's and BBRv3's each below Reno's, paired by seed (reversed: above). Sources: "
        f"{TCPEVAL}; {BBR_PAPER} (BBR probes for more bandwidth every 8 rounds and grows its "
        "estimate by up to 1.25 each time, while Reno adds one segment per round trip); "
        "direction only",
        c2_bbr_ramp,
    ),
    Claim(
        "CUBIC takes up new capacity faster than Reno",
        "the same time, CUBIC's below Reno's, paired by seed (reversed: above). Source: "
        f"{RFC9438}; direction only",
        c2_cubic_ramp,
    ),
    Claim(
        "Vegas, keeping only a few packets queued, is the slowest to fill new capacity",
        "the same time, Vegas's above Reno's, paired by seed (reversed: below): Vegas enters "
        "the step up with a window of about the low rate's BDP and grows it by one segment a "
        "round trip, while Reno's window holds its share of the buffer as well. Source: "
        f"{VEGAS}; the direction is ours, from its design",
        c2_vegas_ramp,
    ),
    Claim(
        "After the step down, BBR and Vegas drain the queue and CUBIC keeps it",
        "the time from the step down (100 -> 20 Mb/s) until the queue, from its peak on, first "
        "holds at most 20 ms at the low rate: BBR's, BBRv3's and Vegas's each below CUBIC's, "
        "paired by seed (reversed: above). A queue never drained counts the whole low period. "
        f"Sources: {BBR_PAPER} (its drain and ProbeRTT states); {VEGAS}; direction only",
        c2_drain,
    ),
    Claim(
        "BBR overshoots after the step down: its old bandwidth estimate fills the buffer",
        f"BBR's and BBRv3's queue peak after the step down > {OVERSHOOT_SHARE:g} of the "
        f"{C2_BUFFER_PKTS}-packet buffer; failed below. Source: {BBR_PAPER} (the bandwidth "
        "estimate is a maximum over 10 round trips, so it holds the old rate that long); the "
        "threshold is ours",
        c2_bbr_overshoot,
    ),
)


# ---- C3 --------------------------------------------------------------------------------------------------

#: C3: a sender "keeps its throughput" at a level when its throughput there is above this share
#: of its throughput on the plain ACK path (level 1), per seed; "falls" below it.
KEEPS_SHARE = 0.9
NO_ALLOWANCE = {BBR: BBR_NO_ALLOWANCE, BBR3: BBR3_NO_ALLOWANCE}


def _c3(table: pd.DataFrame, algorithm: str, level: int) -> Quantity:
    return measure(table, AGG_THROUGHPUT, algorithm=algorithm, level=level)


def _levels(table: pd.DataFrame) -> list[int]:
    return [int(v) for v in _values(table, "level")]


def _keeps(table: pd.DataFrame, algorithms: tuple[str, ...]) -> list[Check]:
    return [
        compare(
            f"{algorithm}'s throughput at {level} ACKs a burst over the plain ACK path's (per seed)",
            _c3(table, algorithm, level) / _c3(table, algorithm, 1),
            ">",
            KEEPS_SHARE,
            reversal=None,
        )
        for algorithm in algorithms
        for level in _levels(table)
        if level > 1
    ]


def c3_bbr_keeps(table: pd.DataFrame) -> list[Check]:
    return _keeps(table, (BBR, BBR3))


def c3_loss_based_keeps(table: pd.DataFrame) -> list[Check]:
    return _keeps(table, (CUBIC, RENO))


def c3_without_allowance(table: pd.DataFrame) -> list[Check]:
    levels = _levels(table)
    if not levels:
        return []
    top = max(levels)
    checks = []
    for version, bare in NO_ALLOWANCE.items():
        checks.append(
            compare(
                f"throughput at {top} ACKs a burst, {bare} vs {version} (paired by seed)",
                _c3(table, bare, top),
                "<",
                _c3(table, version, top),
                unit="Mb/s",
            )
        )
        checks.append(
            compare(
                f"{bare}'s throughput at {top} ACKs a burst over the plain ACK path's (per seed)",
                _c3(table, bare, top) / _c3(table, bare, 1),
                "<",
                KEEPS_SHARE,
                reversal=None,
            )
        )
    return checks


C3_CLAIMS = (
    Claim(
        "BBR's ACK-aggregation allowance keeps its throughput as the aggregation grows",
        f"BBR's and BBRv3's throughput at each aggregation level ({', '.join(map(str, C3_LEVELS[1:]))} "
        f"ACKs a burst) over their throughput on the plain ACK path, per seed, > {KEEPS_SHARE:g}; "
        f"failed below. Sources: {BBR_AGGREGATION_COMMIT}; {BBR_AGGREGATION_SLIDES}; the "
        "threshold is ours",
        c3_bbr_keeps,
    ),
    Claim(
        "Without the allowance BBR's throughput falls once the ACK silences are long",
        "at the highest level: BBR's and BBRv3's throughput with ack_aggregation off below their "
        "throughput with it, paired by seed (reversed: above), and below "
        f"{KEEPS_SHARE:g} of their own on the plain ACK path, per seed (failed above). Source: "
        f"{BBR_AGGREGATION_COMMIT} (cwnd at 2 BDP halts the sender through the silences); the "
        "threshold is ours",
        c3_without_allowance,
    ),
    Claim(
        "Loss-based CUBIC and Reno keep their throughput under ACK aggregation",
        f"CUBIC's and Reno's throughput at each level over their throughput on the plain ACK "
        f"path, per seed, > {KEEPS_SHARE:g}; failed below. Source: {BBR_AGGREGATION_COMMIT} "
        "(loss-based senders keep growing cwnd after bursts of ACKs until the buffer is full); "
        "the threshold is ours",
        c3_loss_based_keeps,
    ),
)
