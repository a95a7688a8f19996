"""What every Free-Drop study shares: the paper's link and stack, the metric names, the sensitivity
variants and the helpers that fit and summarise curves.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ccsim.studies.core import Quantity

SOURCE = "seed 001 (Free-Drop TCP)"
MSS = 1000
RTT_S = 0.05
RATE = "600Mbps"
RATE_BPS = 600e6
#: 2 BDP at 600 Mb/s, 50 ms, 1000-byte packets (3750 packets per BDP).
MAX_WINDOW = 7500
#: ns-2's default queue limit (``Queue set limit_ 50``) as ccsim's buffer: ns-2 counts the packet
#: being transmitted in its limit and ccsim counts only those waiting (droptail.rs), so 49.
NS2_QUEUE = "49pkts"
#: The queue of every link where the paper gives none, before ns-2's default was adopted (F1/F2:
#: no link ever overflows; the sensitivity variant "deep queues").
DEEP_QUEUE = "100000pkts"
TCP = "TCP"

# ---- the metrics of the comparison tables ------------------------------------------------------

GOODPUT = "goodput Mb/s"
SLOPE = "slope of log B in log p"
LAW_SLOPE = "slope of log B in log p, law's range"
W_SLOPE = "slope of log B in log w, law's range"
RATIO = "goodput FD/TCP, geometric mean over the law's range"
FIT_EPS = "fitted eps"
FIT_BETA = "fitted beta (pkt/s)"
TCP_EPS = "TCP's fitted eps over the same p"
WALL = "engine wall time s"
COV = "cwnd CoV"
COV_RATIO = "CoV ratio FD/TCP"
MEAN_COV_RATIO = "mean CoV ratio FD/TCP over p"
CUTS = "window cuts /s"
LOSSES = "loss events /s"
CUTS_MEAN = "window cuts /s, mean over p"
TCP_CUTS_MEAN = "TCP window cuts /s, mean over the same p"
LOSSES_MEAN = "loss events /s, mean over p"
TCP_LOSSES_MEAN = "TCP loss events /s, mean over the same p"
#: The configuration label of the three shifted curves together (F2).
SHIFTED = "FD shifted curves"
FIXED = "FD fixed w"

#: The law B ~ alpha/(RTT p sqrt(w)) (eq. 4) is asymptotic: it needs p w small (at p w ~ 1 Free-
#: Drop is TCP) and a throughput the link does not cap (the paper: "if there is such a maximum,
#: throughput will tend to a constant"). Its range in F1: p w <= LAW_PW and eq. (4)'s throughput
#: at most LAW_LINK_SHARE of the link rate.
LAW_PW = 0.1
LAW_LINK_SHARE = 0.5


# ---- what the paper does not give ------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Variant:
    """A setting of what the paper does not give: the queue of every link it gives none for,
    Free-Drop's options, the constant ``k`` of the shifted curves' ``w(p) = k (p - eps)/p^2``,
    and F3's ``w``. ``studies`` lists the studies the variant applies to."""

    slug: str
    description: str
    queue: str = NS2_QUEUE
    fd_params: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    k: float = 1.0
    f3_w: int = 100
    studies: tuple[str, ...] = ("F1", "F2", "F3")


#: The studies' own setting.
DEFAULT = Variant("default", "ns-2 default queues (50), Free-Drop defaults, k = 1, F3 w = 100")
#: The variants :func:`sensitivity` runs.
SENSITIVITY: tuple[Variant, ...] = (
    Variant(
        "deep-queues",
        "queues of 100000 packets where the paper gives none (F1/F2 every link, F3 access links)",
        queue=DEEP_QUEUE,
    ),
    Variant(
        "literal",
        "Free-Drop literal = true (previous loss counted back from the detection)",
        fd_params={"literal": True},
    ),
    Variant(
        "rto-test",
        "Free-Drop rto_test = true (timeouts judged by the cut rule)",
        fd_params={"rto_test": True},
    ),
    Variant("k0.5", "shifted curves with w(p) = 0.5 (p - eps)/p^2", k=0.5, studies=("F1", "F2")),
    Variant("k2", "shifted curves with w(p) = 2 (p - eps)/p^2", k=2.0, studies=("F1", "F2")),
    Variant("w10", "F3 with Free-Drop w = 10", f3_w=10, studies=("F3",)),
    Variant("w1000", "F3 with Free-Drop w = 1000", f3_w=1000, studies=("F3",)),
)

COMMON = (
    "TCP = newreno (Free-Drop's own recovery), so the two differ only in the cut rule",
    "MSS 1000 B (ns-2 packetSize_ default); delayed ACKs off (ns2 profile); ACKs 40 B",
    (
        "no send overhead and no router jitter (ns-2's default overhead_ = 0); F3's flows share "
        "one RTT and start at random times (docs/phase-effects.md: what the knobs change)"
    ),
)


def f1_f2_assumptions(variant: Variant) -> tuple[str, ...]:
    queue = (
        f"ns-2's default limit 50 ({variant.queue} in ccsim, which does not count the packet on "
        "the wire)"
        if variant.queue == NS2_QUEUE
        else f"{variant.queue} (sensitivity variant: no link ever overflows)"
    )
    return (
        *COMMON,
        (
            "one flow, dumbbell: sender -> R1 (access link, 2400 Mb/s) -> R2 (the lossy link, "
            "600 Mb/s, 10 ms, Bernoulli loss p on data) -> receiver (access link, 2400 Mb/s); "
            "base RTT 50 ms"
        ),
        (
            f"every link, both directions (sender access, lossy link, receiver access): DropTail "
            f"of {queue}; the paper gives no queue"
        ),
        "receiver window 7500 packets = 2 BDP (the paper gives none)",
        (
            "cwnd and delivered rate sampled every 100 ms; goodput and CoV after a 30 s warm-up "
            "(quick: 10 s), so the slow-start overshoot does not count"
        ),
        (
            f"shifted curves: w(p) = {variant.k:g} (p - eps)/p^2 rounded (the paper's Theta rule "
            "with TCP's own beta, ccsim.fluid.shift_window); fixed w = 10, 100, 1000 besides"
        ),
        *free_drop_options(variant),
    )


def free_drop_options(variant: Variant) -> tuple[str, ...]:
    if not variant.fd_params:
        return ("Free-Drop options at their defaults: literal = false, rto_test = false",)
    shown = ", ".join(f"{k} = {str(v).lower()}" for k, v in variant.fd_params.items())
    return (f"Free-Drop options (sensitivity variant): {shown}",)


def fixed_window_name(w: int) -> str:
    return f"FD w={w}"


def shifted_name(eps: float) -> str:
    return f"FD eps={eps:g}"


def quantity_records(quantity: Quantity, **keys: Any) -> list[dict[str, Any]]:
    """One record per replicate of ``quantity`` (seed 0 for an exact one)."""
    return [keys | {"seed": seed, "value": v} for seed, v in quantity.values.items()]


def set_published(table: pd.DataFrame, metric: str, value: float, **keys: Any) -> None:
    """Set the published value of rows whose keys include NaN (not matched in a dict)."""
    mask = table["metric"] == metric
    for key, wanted in keys.items():
        mask &= table[key] == wanted
    table.loc[mask, "published"] = value


def mean_of(*values: float) -> float:
    return float(np.mean(values))


def log_log_slope(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Least-squares slope of log y against log x (positive points only)."""
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    good = (xs > 0) & (ys > 0)
    if good.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(xs[good]), np.log(ys[good]), 1)[0])


def fit_shift(
    p: Sequence[float] | np.ndarray, throughput: Sequence[float] | np.ndarray
) -> tuple[float, float]:
    """Fit ``B = beta/sqrt(p - eps)`` to ``(p, B)`` points with ``eps`` free on both sides.

    ``1/B^2 = (p - eps)/beta^2`` is linear in ``p``: an ordinary least-squares line through
    ``1/B^2`` against ``p`` gives ``beta = 1/sqrt(slope)`` and ``eps = -intercept/slope``.
    Unlike a fit of the curve itself (whose ``eps`` must stay below the smallest ``p`` for every
    point to lie on it), nothing bounds ``eps`` here, so the fitted shift can come out larger
    than the designed one as well as smaller. Returns ``(eps, beta)``; NaNs when the line does
    not rise (slope <= 0) or fewer than 2 points are usable.
    """
    x, y = np.asarray(p, dtype=float), np.asarray(throughput, dtype=float)
    good = np.isfinite(x) & np.isfinite(y) & (y > 0)
    if good.sum() < 2:
        return math.nan, math.nan
    inv = 1.0 / y[good] ** 2
    slope, intercept = np.polyfit(x[good], inv, 1)
    if slope <= 0:
        return math.nan, math.nan
    return float(-intercept / slope), float(1.0 / math.sqrt(slope))
