"""The claims of B1-B4 and their checks.

Checks are built from the configurations the table holds, so a quick run (fewer rates, buffers
and counts) is judged on what it ran; a claim about an algorithm that did not run (``bbr3``
before the engine has it) has no data and is "not run".
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ccsim.studies.bbr.analysis import rank_correlation
from ccsim.studies.bbr.common import (
    BBR3_RELEASE,
    BBR_RETX,
    BBR_SHARE,
    CAO,
    CUBIC_RETX,
    HOCK,
    LONG_SHORT,
    LOSS_BASED,
    QUEUE_DELAY,
    RANK,
    RATE_WORDS,
    V1,
    V3,
    WARE,
    buffer_words,
)
from ccsim.studies.core import (
    CORRELATION,
    Check,
    Claim,
    Quantity,
    band,
    compare,
    measure,
    within,
)

#: B1: buffers up to this many BDPs are "shallow" (BBR should take most of the link there) ...
SHALLOW_BDP = 0.5
#: ... and the deepest buffer run (16 BDP in a full run) is "deep" (CUBIC should take most).
#: B2: how far the share with the most CUBIC flows may lie from the share with one (relative),
#: and from Ware et al.'s model (absolute, of the link): tolerances of ours, the papers give none.
B2_FLAT_TOLERANCE = 0.25
B2_MODEL_TOLERANCE = 0.10


def _values(table: pd.DataFrame, column: str, **keys: Any) -> list[Any]:
    rows = table[table["runs"] > 0]
    for key, wanted in keys.items():
        rows = rows[rows[key] == wanted]
    return sorted(set(rows[column]))


# ---- B1 ---------------------------------------------------------------------------------------------


def _b1_where(config: str) -> str:
    rate, mix = config.split()
    return f"{RATE_WORDS[rate]}, {mix.replace('v', ' BBR vs ')} CUBIC"


def _b1(table: pd.DataFrame, metric: str, config: str, bdp: float) -> Quantity:
    return measure(table, metric, config=config, buffer_bdp=bdp)


def b1_shallow_share(table: pd.DataFrame) -> list[Check]:
    checks = []
    for config in _values(table, "config"):
        for bdp in _values(table, "buffer_bdp", config=config):
            if bdp <= SHALLOW_BDP:
                checks.append(
                    compare(
                        f"{_b1_where(config)}, {buffer_words(bdp)}: BBR's share of goodput",
                        _b1(table, BBR_SHARE, config, bdp),
                        ">",
                        0.5,
                    )
                )
    return checks


def b1_deep_share(table: pd.DataFrame) -> list[Check]:
    checks = []
    for config in _values(table, "config"):
        buffers = _values(table, "buffer_bdp", config=config)
        if not buffers:
            continue
        deepest = max(buffers)
        checks.append(
            compare(
                f"{_b1_where(config)}, {buffer_words(deepest)} (the deepest run): BBR's share "
                "of goodput",
                _b1(table, BBR_SHARE, config, deepest),
                "<",
                0.5,
            )
        )
    return checks


def b1_share_falls(table: pd.DataFrame) -> list[Check]:
    checks = []
    for config in _values(table, "config"):
        buffers = _values(table, "buffer_bdp", config=config)
        shares = [_b1(table, BBR_SHARE, config, b) for b in buffers]
        trend = Quantity.combine(
            lambda *s, x=tuple(buffers): rank_correlation(list(x), list(s)),
            *shares,
            bounds=CORRELATION,
        )
        checks.append(
            compare(
                f"{_b1_where(config)}: rank correlation of BBR's share with the buffer "
                f"({len(buffers)} buffers, per seed)",
                trend,
                "<",
                0.0,
            )
        )
    return checks


def b1_shallow_retransmissions(table: pd.DataFrame) -> list[Check]:
    checks = []
    for config in _values(table, "config"):
        for bdp in _values(table, "buffer_bdp", config=config):
            if bdp <= SHALLOW_BDP:
                checks.append(
                    compare(
                        f"{_b1_where(config)}, {buffer_words(bdp)}: retransmissions % of sent, "
                        "BBR vs CUBIC (paired by seed)",
                        _b1(table, BBR_RETX, config, bdp),
                        ">",
                        _b1(table, CUBIC_RETX, config, bdp),
                    )
                )
    return checks


B1_CLAIMS = (
    Claim(
        "In shallow buffers BBR takes most of the link from CUBIC",
        f"BBR's share of the goodput after the warm-up > 0.5 at every buffer <= {SHALLOW_BDP:g} "
        "BDP, for each rate and mix (reversed: < 0.5). Source: "
        f"{HOCK}, section on BBR vs CUBIC over buffer sizes; {CAO}, section on the buffer size "
        "(no threshold given in the sources the library holds: direction only)",
        b1_shallow_share,
    ),
    Claim(
        "In deep buffers CUBIC takes most of the link from BBR",
        "BBR's share < 0.5 at the deepest buffer run (16 BDP), for each rate and mix "
        f"(reversed: > 0.5). Source: {HOCK}; {CAO} (direction only)",
        b1_deep_share,
    ),
    Claim(
        "BBR's share falls as the buffer grows",
        "per seed, the rank correlation of BBR's share with the buffer size < 0 for each rate "
        f"and mix (reversed: > 0). Source: {HOCK}; {CAO}; {WARE}, Fig. 2 (direction only)",
        b1_share_falls,
    ),
    Claim(
        "In shallow buffers BBR retransmits far more than CUBIC",
        f"at every buffer <= {SHALLOW_BDP:g} BDP, for each rate and mix: BBR's retransmissions "
        "(% of segments sent, whole run) above CUBIC's, paired by seed (reversed: below). "
        f"Source: {CAO}; {HOCK} (no factor given in the sources the library holds: direction "
        "only)",
        b1_shallow_retransmissions,
    ),
)


# ---- B2 ---------------------------------------------------------------------------------------------


def _b2(table: pd.DataFrame, buffer: str, n: int) -> Quantity:
    return measure(table, BBR_SHARE, buffer=buffer, n_cubic=n)


def _b2_model(table: pd.DataFrame, buffer: str, n: int) -> float:
    rows = table[
        (table["metric"] == BBR_SHARE) & (table["buffer"] == buffer) & (table["n_cubic"] == n)
    ]
    return float(rows["published"].iloc[0]) if len(rows) else math.nan


def b2_flat(table: pd.DataFrame) -> list[Check]:
    checks = []
    for buffer in _values(table, "buffer"):
        counts = _values(table, "n_cubic", buffer=buffer)
        if len(counts) < 2:
            continue
        fewest, most = min(counts), max(counts)
        checks.append(
            within(
                f"{buffer}: BBR's share with {most} CUBIC flows vs with {fewest} (paired by seed)",
                _b2(table, buffer, most),
                _b2(table, buffer, fewest),
                B2_FLAT_TOLERANCE,
            )
        )
        checks.append(
            compare(
                f"{buffer}: BBR's share with {most} CUBIC flows vs its fair share 1/{most + 1}",
                _b2(table, buffer, most),
                ">",
                1.0 / (most + 1),
            )
        )
    return checks


def b2_model(table: pd.DataFrame) -> list[Check]:
    checks = []
    for buffer in _values(table, "buffer"):
        for n in _values(table, "n_cubic", buffer=buffer):
            model = _b2_model(table, buffer, n)
            ours = _b2(table, buffer, n)
            checks.append(
                band(
                    f"{buffer}, {n} CUBIC: BBR's share minus the model's {model:.3f}",
                    ours - model,
                    -B2_MODEL_TOLERANCE,
                    B2_MODEL_TOLERANCE,
                )
            )
    return checks


B2_CLAIMS = (
    Claim(
        "One BBR flow's share against N CUBIC flows is roughly independent of N",
        "for each buffer: BBR's share with the most CUBIC flows (16) within "
        f"+-{B2_FLAT_TOLERANCE:.0%} (relative, paired by seed) of its share with one; and above "
        f"its fair share 1/(N+1) (reversed: below). Source: {WARE}, section 4 and its "
        "conclusion that BBR's throughput does not depend on the number of loss-based flows; the "
        "tolerance is ours (none given)",
        b2_flat,
    ),
    Claim(
        "Ware et al.'s model predicts BBR's share (its in-flight cap)",
        f"for each buffer and N: BBR's share minus the model's prediction in "
        f"[-{B2_MODEL_TOLERANCE:g}, {B2_MODEL_TOLERANCE:g}] of the link. Source: {WARE}, "
        "section 4 (the closed form, ccsim.studies.bbr.analysis.ware_share); the tolerance is "
        "ours (none given)",
        b2_model,
    ),
)


# ---- B3 ---------------------------------------------------------------------------------------------


def b3_longer_rtt_gets_more(table: pd.DataFrame) -> list[Check]:
    checks = []
    for n in _values(table, "flows", algorithm=V1):
        checks.append(
            compare(
                f"bbr, {n} flows, RTT 10-100 ms: rank correlation of goodput with RTT (per seed)",
                measure(table, RANK, algorithm=V1, flows=n),
                ">",
                0.0,
            )
        )
        checks.append(
            compare(
                f"bbr, {n} flows: goodput of the 100 ms flow over the 10 ms flow's",
                measure(table, LONG_SHORT, algorithm=V1, flows=n),
                ">",
                1.0,
            )
        )
    return checks


B3_CLAIMS = (
    Claim(
        "Among BBR v1 flows, longer-RTT flows get more of the link",
        "for each flow count (2, 5, 10; RTTs evenly spaced 10-100 ms): the per-seed rank "
        "correlation of goodput with RTT > 0, and the 100 ms flow's goodput over the 10 ms "
        f"flow's > 1 (each reversed the other way). Source: {HOCK}, section on RTT unfairness "
        "(direction only)",
        b3_longer_rtt_gets_more,
    ),
)


# ---- B4 ---------------------------------------------------------------------------------------------


def _b4(table: pd.DataFrame, metric: str, cc: str, partner: str, bdp: float) -> Quantity:
    return measure(table, metric, algorithm=cc, partner=partner, buffer_bdp=bdp)


def _b4_buffers(table: pd.DataFrame) -> list[float]:
    return _values(table, "buffer_bdp")


def b4_coexistence(table: pd.DataFrame) -> list[Check]:
    checks = []
    for partner in LOSS_BASED:
        for bdp in _b4_buffers(table):
            distance = [
                _b4(table, BBR_SHARE, cc, partner, bdp).map(lambda s: abs(s - 0.5))
                for cc in (V3, V1)
            ]
            checks.append(
                compare(
                    f"1 BBR vs 1 {partner}, {buffer_words(bdp)}: |BBR's share - 0.5|, v3 vs v1 "
                    "(paired by seed)",
                    distance[0],
                    "<",
                    distance[1],
                )
            )
    return checks


def b4_lower_loss(table: pd.DataFrame) -> list[Check]:
    checks = []
    for partner in (*LOSS_BASED, "itself"):
        for bdp in _b4_buffers(table):
            against = "4 flows of the version" if partner == "itself" else f"1 vs 1 {partner}"
            checks.append(
                compare(
                    f"{against}, {buffer_words(bdp)}: BBR's retransmissions % of sent, v3 vs v1 "
                    "(paired by seed)",
                    _b4(table, BBR_RETX, V3, partner, bdp),
                    "<",
                    _b4(table, BBR_RETX, V1, partner, bdp),
                )
            )
    return checks


def b4_lower_queues(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"4 flows of the version, {buffer_words(bdp)}: queueing delay, v3 vs v1 (paired by "
            "seed)",
            _b4(table, QUEUE_DELAY, V3, "itself", bdp),
            "<",
            _b4(table, QUEUE_DELAY, V1, "itself", bdp),
            unit="ms",
        )
        for bdp in _b4_buffers(table)
    ]


B4_CLAIMS = (
    Claim(
        "BBR v3 coexists better with CUBIC and Reno than v1",
        "for CUBIC and Reno and each buffer (0.5, 2, 8 BDP): the distance of BBR's share from "
        "an even split, |share - 0.5|, smaller for v3 than for v1, paired by seed (reversed: "
        f"larger). Source: {BBR3_RELEASE}: 'better Reno/CUBIC coexistence than BBR v1' "
        "(no number; the IETF 117/119 slides' numbers were not available)",
        b4_coexistence,
    ),
    Claim(
        "BBR v3 loses less than v1",
        "for each partner (CUBIC, Reno, four flows of the version itself) and buffer: BBR's "
        "retransmissions (% of sent, whole run) lower for v3 than for v1, paired by seed "
        f"(reversed: higher). Source: {BBR3_RELEASE}: 'lower loss' (direction only)",
        b4_lower_loss,
    ),
    Claim(
        "BBR v3 keeps shorter queues than v1",
        "four flows of one version at 40 ms, each buffer: the bottleneck's mean queueing delay "
        "after the warm-up lower for v3 than for v1, paired by seed (reversed: higher). Source: "
        f"{BBR3_RELEASE}: 'lower queues' (direction only)",
        b4_lower_queues,
    ),
)
