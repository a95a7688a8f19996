"""L1's claims and their checks."""

from __future__ import annotations

import math

import pandas as pd

from ccsim.studies.core import (
    NONNEGATIVE,
    Check,
    Claim,
    Quantity,
    compare,
    measure,
)
from ccsim.studies.highspeed_parking_lot.common import (
    FAST_SLOW,
    FRIENDLINESS,
    LONG_FAVOURING,
    LOSS,
    RELATIVE,
    SHORT_FAVOURING,
    SHORT_SPEEDUP,
    TRADE_OFF,
    UTILIZATION,
)

# ---- the claims ----------------------------------------------------------------------------------
#
# Judged on the heavy load without random loss (in a quick run, which has only the light load
# without loss, on that: every check's label names the condition). A protocol that was not run
# gives empty quantities, so its checks are "not measured" and the claim is not graded.


def judged_condition(table: pd.DataFrame) -> dict[str, str]:
    """The condition the claims are judged on: the heavy load if it was run, else the light
    one; without random loss if that was run."""
    loads, losses = set(table["load"]), set(table["loss"])
    return {
        "load": "heavy" if "heavy" in loads else "light",
        "loss": "clean" if "clean" in losses or not losses else "lossy",
    }


def _where(table: pd.DataFrame) -> str:
    """The judged condition in words, the first part of every check's label."""
    condition = judged_condition(table)
    loss = "no random loss" if condition["loss"] == "clean" else f"random loss {LOSS:g}"
    return f"{condition['load']} load, {loss}"


def _q(
    table: pd.DataFrame, metric: str, algorithm: str, by: str = "all", bin_: str = "all"
) -> Quantity:
    """One row of the judged condition over the seeds (mixed runs for friendliness)."""
    mixture = "half" if metric == FRIENDLINESS else "all"
    return measure(
        table,
        metric,
        algorithm=algorithm,
        mixture=mixture,
        by=by,
        bin=bin_,
        **judged_condition(table),
    )


def _hop(table: pd.DataFrame, algorithm: str, hops: int) -> Quantity:
    return _q(table, RELATIVE, algorithm, "hops", str(hops))


def _long_over_short(table: pd.DataFrame, algorithm: str) -> Quantity:
    """Per seed, the protocol's fitted 300 ms / 30 ms throughput ratio over Reno's: the fitted
    relative throughput of a 300 ms flow over that of a 30 ms flow (the paper's "relative
    throughput of long flow (300msec RTT) and short flow (30ms RTT)"); 1 when the protocol
    shares between them as Reno does."""
    return Quantity.combine(
        lambda mine, reno: mine / reno if reno > 0 else math.nan,
        _q(table, FAST_SLOW, algorithm),
        _q(table, FAST_SLOW, "reno"),
        bounds=NONNEGATIVE,
    )


def _relative(table: pd.DataFrame, algorithm: str) -> Check:
    return compare(
        f"{_where(table)}: {algorithm}: relative throughput (same flows under Reno = 1)",
        _q(table, RELATIVE, algorithm),
        ">",
        1.0,
    )


def _utilization(table: pd.DataFrame, algorithm: str) -> Check:
    return compare(
        f"{_where(table)}: {algorithm}: backbone utilization vs Reno's (paired by seed)",
        _q(table, UTILIZATION, algorithm),
        ">",
        _q(table, UTILIZATION, "reno"),
        digits=3,
    )


def _ratio_vs_reno(table: pd.DataFrame, algorithm: str, op: str) -> Check:
    return compare(
        f"{_where(table)}: {algorithm}: relative throughput at 300 ms over at 30 ms (fitted 300 / "
        "30 ms ratio over Reno's)",
        _long_over_short(table, algorithm),
        ">" if op == ">" else "<",
        1.0,
    )


def _every_hop_gains(table: pd.DataFrame, algorithm: str) -> list[Check]:
    return [
        compare(
            f"{_where(table)}: {algorithm}: {hops}-hop flows' relative throughput",
            _hop(table, algorithm, hops),
            ">",
            1.0,
        )
        for hops in (1, 2, 3, 4)
    ]


def _friendly(table: pd.DataFrame, algorithm: str) -> Check:
    return compare(
        f"{_where(table)}: {algorithm}: Reno friendliness",
        _q(table, FRIENDLINESS, algorithm),
        ">=",
        0.9,
        reversal=0.7,
        required=">= 0.9 (reversed: < 0.7)",
    )


def _unfriendly(table: pd.DataFrame, algorithm: str) -> Check:
    return compare(
        f"{_where(table)}: {algorithm}: Reno friendliness",
        _q(table, FRIENDLINESS, algorithm),
        "<",
        0.9,
        reversal=1.0,
        required="< 0.9 (reversed: > 1)",
    )


def _aggressive_gain(table: pd.DataFrame) -> list[Check]:
    return [
        check for a in SHORT_FAVOURING for check in (_relative(table, a), _utilization(table, a))
    ]


def _favour_short(table: pd.DataFrame) -> list[Check]:
    checks = []
    for a in SHORT_FAVOURING:
        checks.append(
            compare(
                f"{_where(table)}: {a}: relative throughput of 1-hop flows vs 4-hop flows",
                _hop(table, a, 1),
                ">",
                _hop(table, a, 4),
            )
        )
        checks.append(_ratio_vs_reno(table, a, "<"))
    return checks


def _all_unfriendly(table: pd.DataFrame) -> list[Check]:
    return [_unfriendly(table, a) for a in SHORT_FAVOURING]


def _htcp(table: pd.DataFrame) -> list[Check]:
    return [
        _ratio_vs_reno(table, "htcp", ">"),
        _relative(table, "htcp"),
        _utilization(table, "htcp"),
        *_every_hop_gains(table, "htcp"),
    ]


def _compound(table: pd.DataFrame) -> list[Check]:
    milder = [
        compare(
            f"{_where(table)}: compound: backbone utilization vs {other}'s (paired by seed)",
            _q(table, UTILIZATION, "compound"),
            "<",
            _q(table, UTILIZATION, other),
        )
        for other in ("highspeed", "scalable", "bic", "htcp", "areno")
    ]
    return [_friendly(table, "compound"), _utilization(table, "compound"), *milder]


def areno_checks(table: pd.DataFrame, name: str = "areno") -> list[Check]:
    """AReno (``name`` in the table) efficient, fair and friendly, all flows improving."""
    return [
        _relative(table, name),
        _utilization(table, name),
        _ratio_vs_reno(table, name, ">"),
        _friendly(table, name),
        *_every_hop_gains(table, name),
    ]


def _areno(table: pd.DataFrame) -> list[Check]:
    return areno_checks(table)


def _scalable_short_hops(table: pd.DataFrame) -> list[Check]:
    one, four = _hop(table, "scalable", 1), _hop(table, "scalable", 4)
    where = _where(table)
    return [
        compare(f"{where}: scalable: 1-hop flows' relative throughput", one, ">", 1.0),
        compare(
            f"{where}: scalable: 4-hop flows' relative throughput",
            four,
            "<=",
            1.05,
            reversal=None,
            required="<= 1.05 (not improved)",
        ),
        compare(
            f"{where}: scalable: relative throughput of 1-hop flows vs 4-hop flows",
            one,
            ">",
            four,
        ),
    ]


def long_favoured(table: pd.DataFrame, name: str) -> Check:
    return _ratio_vs_reno(table, name, ">")


def _long_flows(table: pd.DataFrame) -> list[Check]:
    return [long_favoured(table, a) for a in LONG_FAVOURING]


def _trade_off(table: pd.DataFrame) -> list[Check]:
    where = _where(table)
    checks = []
    for other in TRADE_OFF:
        checks.append(
            compare(
                f"{where}: Reno friendliness of compound vs {other} (paired by seed)",
                _q(table, FRIENDLINESS, "compound"),
                ">",
                _q(table, FRIENDLINESS, other),
            )
        )
        checks.append(
            compare(
                f"{where}: relative throughput of compound vs {other} (paired by seed)",
                _q(table, RELATIVE, "compound"),
                "<",
                _q(table, RELATIVE, other),
            )
        )
    return checks


def lifetime_comparison(table: pd.DataFrame, name: str, favours_short: bool) -> Check:
    """Short files' speed-up over all-Reno against the long-lived flows' relative throughput."""
    speedup = _q(table, SHORT_SPEEDUP, name)
    relative = _q(table, RELATIVE, name)
    where = _where(table)
    if favours_short:
        return compare(
            f"{where}: {name}: short files' speed-up over all-Reno vs the long-lived flows' "
            "relative throughput (paired by seed)",
            speedup,
            ">",
            relative,
        )
    return compare(
        f"{where}: {name}: long-lived flows' relative throughput vs the short files' speed-up "
        "over all-Reno (paired by seed)",
        relative,
        ">",
        speedup,
    )


def _lifetimes(table: pd.DataFrame) -> list[Check]:
    return [lifetime_comparison(table, a, True) for a in SHORT_FAVOURING] + [
        lifetime_comparison(table, a, False) for a in LONG_FAVOURING
    ]


CLAIMS = (
    Claim(
        "HSTCP, Scalable and BIC raise per-flow throughput and efficiency",
        "for each: relative throughput > 1, and backbone utilization above Reno's in the same "
        "workloads (paired by seed); reversed: below",
        _aggressive_gain,
    ),
    Claim(
        "HSTCP, Scalable and BIC favour short-RTT and short-hop flows",
        "for each: relative throughput of 1-hop flows above that of 4-hop flows (paired by "
        "seed), and the relative throughput at 300 ms over that at 30 ms (the fitted 300 ms / "
        "30 ms throughput ratio over Reno's) < 1; reversed: the other way",
        _favour_short,
    ),
    Claim(
        "HSTCP, Scalable and BIC are unfriendly to Reno",
        "Reno friendliness < 0.9 for each (reversed: > 1)",
        _all_unfriendly,
    ),
    Claim(
        "H-TCP is fair across RTTs and hops, and efficient: all flows improve",
        "relative throughput at 300 ms over at 30 ms > 1 (flatter than Reno); backbone "
        "utilization above Reno's (paired by seed); relative throughput > 1 overall and at every "
        "hop count; each reversed the other way",
        _htcp,
    ),
    Claim(
        "Compound is friendly, with a milder efficiency gain",
        "Reno friendliness >= 0.9 (reversed: < 0.7); backbone utilization above Reno's, and "
        "below each of HSTCP's, Scalable's, BIC's, H-TCP's and AReno's (paired by seed; "
        "reversed: the other way)",
        _compound,
    ),
    Claim(
        "AReno is efficient, fair and friendly: all flows improve",
        "relative throughput > 1 overall and at every hop count, backbone utilization above "
        "Reno's (paired by seed), relative throughput at 300 ms over at 30 ms > 1, each "
        "reversed the other way; Reno friendliness >= 0.9 (reversed: < 0.7)",
        _areno,
    ),
    Claim(
        "Scalable improves only short-hop flows",
        "1-hop flows' relative throughput > 1 (reversed: < 1); 4-hop flows' <= 1.05 (failed "
        "above); 1-hop flows' above 4-hop flows' (paired by seed; reversed: below)",
        _scalable_short_hops,
    ),
    Claim(
        "AReno, H-TCP and Compound allocate more resource to long flows (300 ms RTT)",
        "for each: relative throughput at 300 ms over at 30 ms (the fitted 300 ms / 30 ms "
        "throughput ratio over Reno's) > 1 (reversed: < 1); the chart's other half (BIC, "
        "HSTCP, Scalable: short flows) is judged in the second claim",
        _long_flows,
    ),
    Claim(
        "Friendliness-efficiency trade-off: Compound is friendlier than BIC, Scalable, HSTCP "
        "and H-TCP, which are more efficient",
        "for each of the four: Compound's Reno friendliness above theirs and its relative "
        "throughput below theirs (paired by seed; reversed: the other way)",
        _trade_off,
    ),
    Claim(
        "Read as long-lived / short-lived flows: BIC, HSTCP and Scalable allocate more resource "
        "to the short-lived files, AReno, H-TCP and Compound to the long-lived flows",
        "for BIC, HSTCP and Scalable: the short files' speed-up over all-Reno (Reno's mean "
        "transfer time over the protocol's, on the files that finished in both) above the "
        "long-lived flows' relative throughput; for AReno, H-TCP and Compound below it "
        "(paired by seed; each reversed the other way)",
        _lifetimes,
    ),
)
