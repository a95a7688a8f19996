"""Seed 001, Free-Drop TCP: studies F1-F4 (docs/studies/free-drop-tcp.md), and a
sensitivity sweep of F1-F3 over what the paper does not give (:func:`sensitivity`).

Free-Drop TCP (``freedrop``, parameter ``w`` in packet transmissions) is NewReno whose halving on
a loss happens only when another loss occurred within the last ``w`` transmissions. F1 and F2
are the paper's single-flow lossy-link runs (Fig. 1 and 2), F3 its five-flow fairness runs
(Fig. 3), F4 its fluid model (section 2; pure Python, :mod:`ccsim.fluid`, no engine runs).

Every check decides with the interval of its quantity over replicates (seeds), paired by seed
where two configurations are compared (:mod:`ccsim.studies.checks`); the claims and their
criteria are written from the paper's text (docs/studies/free-drop-tcp.md has their history).

Choices common to the packet-level studies (printed with each):

* TCP is ``newreno``: Free-Drop in ccsim uses NewReno recovery, so the two differ only in the
  rule that decides whether a loss halves the window.
* MSS 1000 B (ns-2's default ``packetSize_``; the paper gives none).
* Queues: every link of the dumbbell (bottleneck and access links, both directions) is DropTail.
  Where the paper gives no size (every link of F1/F2, the access links of F3) it is ns-2's default
  limit of 50 packets, which is ccsim's ``49pkts`` (ns-2 counts the packet on the wire in its
  limit, ccsim does not: :data:`NS2_QUEUE`). F3's bottleneck has the paper's 20% and 100% of the
  BDP.
* F1/F2: the receiver window is 2 BDP (7500 packets at 600 Mb/s, 50 ms, 1000 B); the paper
  gives none, and ns-2's default ``window_`` of 20 packets would cap TCP far below its curve.

What a verdict may hang on and the paper does not give (the queues, Free-Drop's counting rule
and timeout rule, the constant of w(p), F3's w) is varied by :func:`sensitivity`::

    python3 -c "from ccsim.studies import free_drop; free_drop.sensitivity(workers=2)"
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ccsim import fluid, metrics
from ccsim.studies.core import (
    ANY,
    NONNEGATIVE,
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Settings,
    Study,
    StudyReport,
    band,
    compare,
    measure,
    run_study,
    summarise,
    within,
)

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


def _f12_assume(variant: Variant) -> tuple[str, ...]:
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
        *_fd_options(variant),
    )


def _fd_options(variant: Variant) -> tuple[str, ...]:
    if not variant.fd_params:
        return ("Free-Drop options at their defaults: literal = false, rto_test = false",)
    shown = ", ".join(f"{k} = {str(v).lower()}" for k, v in variant.fd_params.items())
    return (f"Free-Drop options (sensitivity variant): {shown}",)


def _w_name(w: int) -> str:
    return f"FD w={w}"


def _eps_name(eps: float) -> str:
    return f"FD eps={eps:g}"


def _records(quantity: Quantity, **keys: Any) -> list[dict[str, Any]]:
    """One record per replicate of ``quantity`` (seed 0 for an exact one)."""
    return [keys | {"seed": seed, "value": v} for seed, v in quantity.values.items()]


def _publish(table: pd.DataFrame, metric: str, value: float, **keys: Any) -> None:
    """Set the published value of rows whose keys include NaN (not matched in a dict)."""
    mask = table["metric"] == metric
    for key, wanted in keys.items():
        mask &= table[key] == wanted
    table.loc[mask, "published"] = value


def _mean(*values: float) -> float:
    return float(np.mean(values))


def _slope(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
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


# ---- F1 and F2: one flow over a lossy link ------------------------------------------------------


def _f1_plan(s: Settings) -> dict[str, Any]:
    """Loss rates, fixed windows and shifts of F1/F2 (full or quick)."""
    p = s.pick([1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2], [1e-4, 1e-3, 1e-2])
    eps = s.pick(
        {
            5e-5: [1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2],
            5e-4: [6e-4, 7e-4, 1e-3, 2e-3, 5e-3, 1e-2],
            1e-3: [1.2e-3, 1.5e-3, 2e-3, 5e-3, 1e-2],
        },
        {5e-5: [1e-4, 1e-3, 1e-2], 5e-4: [6e-4, 1e-3, 1e-2], 1e-3: [1.2e-3, 2e-3, 1e-2]},
    )
    return {
        "p": p,
        "w": [10, 100, 1000],
        "eps": eps,
        # TCP runs at every p of every curve, so that each shifted curve can be compared with
        # TCP's own curve over the same p.
        "tcp_p": sorted({*p, *(q for ps in eps.values() for q in ps)}),
        "duration": s.pick("600s", "60s"),
        "warmup": s.pick(30.0, 10.0),
        "seeds": s.seeds(3, 3),
    }


def _law_range(plan: Mapping[str, Any], w: int) -> list[float]:
    """The p of the plan where eq. (4) applies at window ``w`` (see :data:`LAW_PW`)."""
    return [
        p
        for p in plan["p"]
        if p * w <= LAW_PW + 1e-12
        and fluid.fd_asymptotic_throughput(p, w, RTT_S) * MSS * 8 <= LAW_LINK_SHARE * RATE_BPS
    ]


def _w_range(plan: Mapping[str, Any], p: float) -> list[int]:
    """The fixed windows of the plan in the law's range at ``p``."""
    return [w for w in plan["w"] if p in _law_range(plan, w)]


def _shifted_w(p: float, eps: float, k: float) -> int:
    return max(1, round(k * fluid.shift_window(p, eps, RTT_S)))


def _lossy(
    cc: str, params: Mapping[str, Any] | None, duration: str, queue: str = NS2_QUEUE
) -> dict[str, Any]:
    flow: dict[str, Any] = {"cc": cc, "rtt": "50ms", "mss": MSS, "max_window": MAX_WINDOW}
    if params:
        flow["params"] = dict(params)
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": RATE,
            "bottleneck_delay": "10ms",
            "queue": "droptail",
            "buffer": queue,
            "access_buffer": queue,
            "loss": 0.0,
        },
        "flows": [flow],
        "trace": {"sample_interval": "100ms"},
    }


def _f1_sweeps(s: Settings, variant: Variant = DEFAULT) -> list[dict[str, Any]]:
    plan = _f1_plan(s)
    duration, seeds, queue = plan["duration"], plan["seeds"], variant.queue
    fd = dict(variant.fd_params)
    sweeps = [
        {
            "name": "tcp",
            "scenario": _lossy("newreno", None, duration, queue),
            "seeds": seeds,
            "axes": {"topology.loss": plan["tcp_p"]},
        }
    ]
    for w in plan["w"]:
        sweeps.append(
            {
                "name": f"fd-w{w}",
                "scenario": _lossy("freedrop", {"w": w, **fd}, duration, queue),
                "seeds": seeds,
                "axes": {"topology.loss": plan["p"]},
            }
        )
    for eps, ps in plan["eps"].items():
        for p in ps:
            w = _shifted_w(p, eps, variant.k)
            scenario = _lossy("freedrop", {"w": w, **fd}, duration, queue)
            scenario["topology"]["loss"] = p
            sweeps.append({"name": f"fd-eps{eps:g}-p{p:g}", "scenario": scenario, "seeds": seeds})
    return sweeps


def _config_of(sweep: str) -> str:
    if sweep == "tcp":
        return TCP
    if sweep.startswith("fd-w"):
        return _w_name(int(sweep.removeprefix("fd-w")))
    eps = float(sweep.removeprefix("fd-eps").split("-p")[0])
    return _eps_name(eps)


def _lossy_points(c: Context) -> list[dict[str, Any]]:
    """One record per finished run of F1/F2: config, p, seed, goodput after the warm-up, CoV of
    cwnd after the warm-up, window cuts and losses per second over the run, engine wall time."""
    warmup = _f1_plan(c.settings)["warmup"]
    out = []
    for sweep in c.results:
        for point, load in c.points(sweep):
            p = float(point.get("loss", math.nan))
            if math.isnan(p):
                p = float(sweep.split("-p")[-1])
            series = load("series")
            cov = metrics.cwnd_cov(series, warmup_s=warmup)
            # Goodput after the warm-up (the per-interval delivered rate of the trace): the
            # slow-start overshoot of the first seconds would otherwise inflate short runs.
            late = series[series["t_s"] > warmup]["rate_bps"]
            flow = load("flows").iloc[0]
            span = float(flow["end_s"] - flow["start_s"])
            cuts = float(flow["window_cuts"]) if "window_cuts" in flow else math.nan
            out.append(
                {
                    "config": _config_of(sweep),
                    "p": p,
                    "seed": int(point["seed"]),
                    "goodput_bps": float(late.mean()) if len(late) else math.nan,
                    "cov": float(cov.iloc[0]) if len(cov) else math.nan,
                    "wall_s": float(point.get("wall_s", math.nan)),
                    # A congestion event in the paper is a loss that makes the window shrink:
                    # a cut (engine column window_cuts). Losses are counted beside them.
                    "losses_per_s": float(flow["drops"]) / span if span > 0 else math.nan,
                    "cuts_per_s": cuts / span if span > 0 else math.nan,
                }
            )
    return out


def _config_p(plan: Mapping[str, Any], config: str) -> list[float]:
    """The p a Free-Drop configuration of the plan runs at."""
    if config.startswith("FD w="):
        return list(plan["p"])
    for eps, ps in plan["eps"].items():
        if config == _eps_name(eps):
            return list(ps)
    return []


def _fd_configs(plan: Mapping[str, Any]) -> list[str]:
    return [*(_w_name(w) for w in plan["w"]), *(_eps_name(e) for e in plan["eps"])]


def _curve(table: pd.DataFrame, metric: str, config: str, ps: Sequence[float]) -> list[Quantity]:
    return [measure(table, metric, config=config, p=p) for p in ps]


def _mean_over(table: pd.DataFrame, metric: str, config: str, ps: Sequence[float]) -> Quantity:
    """The per-seed mean of ``metric`` over ``ps`` (empty when a p was not run)."""
    curve = _curve(table, metric, config, ps)
    return Quantity.combine(_mean, *curve, bounds=NONNEGATIVE) if curve else Quantity()


def _slope_q(table: pd.DataFrame, config: str, ps: Sequence[float], metric: str) -> Quantity:
    """The per-seed log-log slope of ``metric`` in p over ``ps`` (empty below 2 points)."""
    if len(ps) < 2:
        return Quantity()
    return Quantity.combine(lambda *v: _slope(ps, v), *_curve(table, metric, config, ps))


def _fit_q(table: pd.DataFrame, config: str, ps: Sequence[float]) -> tuple[Quantity, Quantity]:
    """Per-seed fit of beta/sqrt(p - eps) to a curve (goodput in pkt/s): (eps, beta)."""
    if len(ps) < 3:
        return Quantity(), Quantity()
    curve = _curve(table, GOODPUT, config, ps)
    to_pkts = 1e6 / (MSS * 8)
    eps = Quantity.combine(lambda *v: fit_shift(ps, np.array(v) * to_pkts)[0], *curve)
    beta = Quantity.combine(
        lambda *v: fit_shift(ps, np.array(v) * to_pkts)[1], *curve, bounds=NONNEGATIVE
    )
    return eps, beta


def _f1_derived(table: pd.DataFrame, plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per-seed statistics of F1's curves: slopes, the law's range, the shift fits."""
    records: list[dict[str, Any]] = []
    nan = math.nan
    for config in [TCP, *_fd_configs(plan)]:
        ps = plan["p"] if config == TCP else _config_p(plan, config)
        records += _records(
            _slope_q(table, config, ps, GOODPUT), config=config, p=nan, metric=SLOPE
        )
    for w in plan["w"]:
        config, ps = _w_name(w), _law_range(plan, w)
        records += _records(
            _slope_q(table, config, ps, GOODPUT), config=config, p=nan, metric=LAW_SLOPE
        )
        ratios = [
            Quantity.combine(lambda a, b: math.log(a / b) if a > 0 and b > 0 else nan, fd, tcp)
            for fd, tcp in zip(
                _curve(table, GOODPUT, config, ps), _curve(table, GOODPUT, TCP, ps), strict=True
            )
        ]
        if ratios:
            mean_log = Quantity.combine(_mean, *ratios)
            records += _records(
                mean_log.map(math.exp, NONNEGATIVE), config=config, p=nan, metric=RATIO
            )
    for p in plan["p"]:
        ws = _w_range(plan, p)
        if len(ws) < 2:
            continue
        points = [measure(table, GOODPUT, config=_w_name(w), p=p) for w in ws]
        slope = Quantity.combine(lambda *v, ws=ws: _slope(ws, v), *points)
        records += _records(slope, config=FIXED, p=p, metric=W_SLOPE)
    eps_tcp, beta_tcp = _fit_q(table, TCP, plan["p"])
    records += _records(eps_tcp, config=TCP, p=nan, metric=FIT_EPS)
    records += _records(beta_tcp, config=TCP, p=nan, metric=FIT_BETA)
    for eps, ps in plan["eps"].items():
        config = _eps_name(eps)
        fitted, beta = _fit_q(table, config, ps)
        tcp_same, _ = _fit_q(table, TCP, ps)
        records += _records(fitted, config=config, p=nan, metric=FIT_EPS)
        records += _records(beta, config=config, p=nan, metric=FIT_BETA)
        records += _records(tcp_same, config=config, p=nan, metric=TCP_EPS)
    return records


F1_BOUNDS = {
    GOODPUT: NONNEGATIVE,
    RATIO: NONNEGATIVE,
    FIT_BETA: NONNEGATIVE,
    WALL: NONNEGATIVE,
    SLOPE: ANY,
}


def _f1_analyse(c: Context) -> pd.DataFrame:
    plan = _f1_plan(c.settings)
    points = _lossy_points(c)
    records: list[dict[str, Any]] = [
        {
            "config": r["config"],
            "p": r["p"],
            "seed": r["seed"],
            "metric": GOODPUT,
            "value": r["goodput_bps"] / 1e6,
        }
        for r in points
    ]
    runs = summarise(records, ["config", "p"], bounds=F1_BOUNDS)
    records += _f1_derived(runs, plan)
    # The fluid model's curves at the same p (pkt/s -> Mb/s), capped by nothing: exact values,
    # shown for comparison (seed 0: one value, no interval).
    to_mbps = MSS * 8 / 1e6
    for p in plan["p"]:
        for config, w in [
            ("fluid TCP", math.inf),
            *((f"fluid {_w_name(w)}", w) for w in plan["w"]),
        ]:
            value = fluid.fd_packet_throughput(p, w, RTT_S) * to_mbps
            records.append({"config": config, "p": p, "seed": 0, "metric": GOODPUT, "value": value})
    frame = pd.DataFrame(points)
    if len(frame):
        for seed, group in frame.groupby("seed"):
            records.append(
                {
                    "config": "all runs",
                    "p": math.nan,
                    "seed": int(seed),
                    "metric": WALL,
                    "value": float(group["wall_s"].sum()),
                }
            )
        wall = frame["wall_s"].sum()
        c.notes.append(
            f"F1: {len(frame)} runs of {plan['duration']} simulated at 600 Mb/s; engine wall time "
            f"{wall:.2f} s in all (sum over runs, longest {frame['wall_s'].max():.2f} s)"
        )
    table = summarise(records, ["config", "p"], bounds=F1_BOUNDS)
    for eps in plan["eps"]:
        _publish(table, FIT_EPS, eps, config=_eps_name(eps))
    _publish(table, SLOPE, -0.5, config=TCP)
    for w in plan["w"]:
        _publish(table, LAW_SLOPE, -1.0, config=_w_name(w))
    table.loc[table["metric"] == W_SLOPE, "published"] = -0.5
    table.attrs["plan"] = plan
    if len(frame):
        _f1_loglog(c, frame, plan)
    return table


def _f1_loglog(c: Context, frame: pd.DataFrame, plan: dict[str, Any]) -> None:
    """``F1-loglog.png`` next to the study's files: the packet-level points (mean over seeds),
    the fluid model's curves, and the fitted shifted curves beta/sqrt(p - eps), log-log."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    store = next(r for r in c.results.values() if r is not None).store
    path = store.root.parent.parent / "F1-loglog.png"
    means = frame.groupby(["config", "p"], as_index=False)["goodput_bps"].mean()
    to_mbps = MSS * 8 / 1e6
    grid = np.geomspace(min(plan["p"]), max(plan["p"]), 60)
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for config in [TCP, *(_w_name(w) for w in plan["w"])]:
        rows = means[means["config"] == config]
        dots = left.loglog(rows["p"], rows["goodput_bps"] / 1e6, "o", label=f"{config} (ccsim)")
        w = math.inf if config == TCP else int(config.removeprefix("FD w="))
        curve = [fluid.fd_packet_throughput(p, w, RTT_S) * to_mbps for p in grid]
        left.loglog(
            grid, curve, "-", color=dots[0].get_color(), alpha=0.6, label=f"{config} (fluid)"
        )
    left.axhline(600, color="grey", ls=":", label="link rate")
    left.set_title("F1: goodput vs p, packet level (dots) and fluid model (lines)")
    tcp = means[means["config"] == TCP]
    right.loglog(tcp["p"], tcp["goodput_bps"] / 1e6, "ko", label="TCP (ccsim)")
    for eps in plan["eps"]:
        rows = means[means["config"] == _eps_name(eps)]
        if rows.empty:
            continue
        dots = right.loglog(
            rows["p"], rows["goodput_bps"] / 1e6, "s", label=f"{_eps_name(eps)} (ccsim, w(p))"
        )
        target = np.geomspace(max(eps * 1.05, min(rows["p"])), max(rows["p"]), 60)
        right.loglog(
            target,
            np.sqrt(2 / (target - eps)) / RTT_S * to_mbps,
            ":",
            color=dots[0].get_color(),
            label=f"TCP fluid shifted by {eps:g}",
        )
        if len(rows) >= 3:
            eps_fit, beta_fit = fit_shift(
                rows["p"].to_numpy(), rows["goodput_bps"].to_numpy() / (MSS * 8)
            )
            start = max(eps_fit * 1.05, min(rows["p"])) if not math.isnan(eps_fit) else math.nan
            if math.isnan(start) or start >= max(rows["p"]):
                continue
            ps = np.geomspace(start, max(rows["p"]), 60)
            right.loglog(
                ps,
                beta_fit / np.sqrt(ps - eps_fit) * to_mbps,
                "-",
                color=dots[0].get_color(),
                label=f"fit beta/sqrt(p - {eps_fit:.2g})",
            )
    right.set_title("shifted curves: w(p) = k (p - eps)/p^2")
    for ax in (left, right):
        ax.set_xlabel("loss probability p")
        ax.set_ylabel("goodput Mb/s")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    c.notes.append(f"F1: log-log figure {path}")


def _plan_of(table: pd.DataFrame) -> Mapping[str, Any]:
    """The plan the table was made with (a full run's for hand-made tables)."""
    plan = table.attrs.get("plan")
    return plan if plan is not None else _f1_plan(Settings())


def _f1_tcp_slope(table: pd.DataFrame) -> list[Check]:
    return [
        band(
            "TCP: log-log slope of goodput in p over the fixed-w grid of p",
            measure(table, SLOPE, config=TCP),
            -0.6,
            -0.4,
        )
    ]


def _f1_law(table: pd.DataFrame) -> list[Check]:
    plan = _plan_of(table)
    checks = []
    for w in plan["w"]:
        ps = _law_range(plan, w)
        if len(ps) >= 2:
            checks.append(
                band(
                    f"{_w_name(w)}: log-log slope of goodput in p over the law's range "
                    f"(p = {', '.join(f'{p:g}' for p in ps)})",
                    measure(table, LAW_SLOPE, config=_w_name(w)),
                    -1.25,
                    -0.75,
                    reversal=(-0.5, math.inf),
                )
            )
    for p in plan["p"]:
        ws = _w_range(plan, p)
        if len(ws) >= 2:
            checks.append(
                band(
                    f"p = {p:g}: log-log slope of goodput in w (w = {', '.join(map(str, ws))})",
                    measure(table, W_SLOPE, config=FIXED, p=p),
                    -0.75,
                    -0.25,
                    reversal=(0.0, math.inf),
                )
            )
    return checks


def _f1_above(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{_w_name(w)}: goodput over TCP's at the same p and seed, geometric mean over "
            "the law's range",
            measure(table, RATIO, config=_w_name(w)),
            ">",
            1.0,
        )
        for w in _plan_of(table)["w"]
    ]


def _f1_shift(table: pd.DataFrame) -> list[Check]:
    plan = _plan_of(table)
    return [
        band(
            f"{_eps_name(eps)}: fitted eps of the shifted curve",
            measure(table, FIT_EPS, config=_eps_name(eps)),
            eps / 2,
            2 * eps,
            reversal=(-math.inf, 0.0),
        )
        for eps in plan["eps"]
    ]


# ---- F2 ------------------------------------------------------------------------------------------

F2_BOUNDS = {
    COV: NONNEGATIVE,
    COV_RATIO: NONNEGATIVE,
    MEAN_COV_RATIO: NONNEGATIVE,
    CUTS: NONNEGATIVE,
    LOSSES: NONNEGATIVE,
    CUTS_MEAN: NONNEGATIVE,
    TCP_CUTS_MEAN: NONNEGATIVE,
    LOSSES_MEAN: NONNEGATIVE,
    TCP_LOSSES_MEAN: NONNEGATIVE,
}


def _f2_analyse(c: Context) -> pd.DataFrame:
    plan = _f1_plan(c.settings)
    records: list[dict[str, Any]] = []
    for r in _lossy_points(c):
        for metric, key in ((COV, "cov"), (CUTS, "cuts_per_s"), (LOSSES, "losses_per_s")):
            keys = {"config": r["config"], "p": r["p"], "seed": r["seed"]}
            records.append(keys | {"metric": metric, "value": r[key]})
    runs = summarise(records, ["config", "p"], bounds=F2_BOUNDS)
    nan = math.nan
    shifted = []
    for config in _fd_configs(plan):
        ps = _config_p(plan, config)
        ratios = []
        for p in ps:
            ratio = measure(runs, COV, config=config, p=p) / measure(runs, COV, config=TCP, p=p)
            ratios.append(ratio)
            records += _records(ratio, config=config, p=p, metric=COV_RATIO)
        mean = Quantity.combine(_mean, *ratios) if ratios else Quantity()
        records += _records(mean, config=config, p=nan, metric=MEAN_COV_RATIO)
        if config.startswith("FD eps="):
            shifted.append(mean)
        for metric, mine, tcp in (
            (CUTS, CUTS_MEAN, TCP_CUTS_MEAN),
            (LOSSES, LOSSES_MEAN, TCP_LOSSES_MEAN),
        ):
            for label, whose in ((mine, config), (tcp, TCP)):
                records += _records(
                    _mean_over(runs, metric, whose, ps), config=config, p=nan, metric=label
                )
    if shifted:
        records += _records(
            Quantity.combine(_mean, *shifted), config=SHIFTED, p=nan, metric=MEAN_COV_RATIO
        )
    table = summarise(records, ["config", "p"], bounds=F2_BOUNDS)
    _publish(table, MEAN_COV_RATIO, 1.6, config=SHIFTED)
    table.attrs["plan"] = plan
    return table


def _f2_ratio(table: pd.DataFrame) -> list[Check]:
    plan = _plan_of(table)
    checks = [
        compare(
            f"{_eps_name(eps)}: CoV of cwnd over TCP's at the same p and seed, mean over its p",
            measure(table, MEAN_COV_RATIO, config=_eps_name(eps)),
            ">",
            1.0,
        )
        for eps in plan["eps"]
    ]
    checks.append(
        band(
            "the three shifted curves: mean CoV ratio FD/TCP",
            measure(table, MEAN_COV_RATIO, config=SHIFTED),
            1.2,
            2.0,
        )
    )
    return checks


def _f2_events(table: pd.DataFrame) -> list[Check]:
    """The paper's "higher rates of congestion events", a congestion event being a loss that
    makes the window shrink: Free-Drop's window cuts per second against TCP's at the same p."""
    return [
        compare(
            f"{config}: window cuts per second, mean over its p, against TCP's at the same p",
            measure(table, CUTS_MEAN, config=config),
            ">",
            measure(table, TCP_CUTS_MEAN, config=config),
            unit="/s",
        )
        for config in _fd_configs(_plan_of(table))
    ]


# ---- F3 ------------------------------------------------------------------------------------------

F3_CASES = (
    ("50Mbps", "0.2bdp"),
    ("500Mbps", "0.2bdp"),
    ("50Mbps", "1bdp"),
    ("500Mbps", "1bdp"),
)
F3_W = DEFAULT.f3_w
JAIN = "Jain index"
TOTAL = "total goodput Mb/s"
LOST = "packets lost /s (all flows)"
#: Jain's index of 5 flows lies in [1/5, 1].
F3_BOUNDS = {JAIN: (0.2, 1.0), TOTAL: NONNEGATIVE, LOST: NONNEGATIVE}
#: "Fair": Jain's index at least this; "little to choose": indices within this of each other.
FAIR = 0.9
CLOSE = 0.05


def _case(rate: str, buf: str) -> str:
    return f"{rate} buf {buf}"


def _f3_scenario(
    cc: str, params: Mapping[str, Any] | None, duration: str, access: str = NS2_QUEUE
) -> dict[str, Any]:
    flow: dict[str, Any] = {
        "cc": cc,
        "rtt": "50ms",
        "mss": MSS,
        "count": 5,
        "start_jitter": "1s",
    }
    if params:
        flow["params"] = dict(params)
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "50Mbps",
            "bottleneck_delay": "10ms",
            "queue": "droptail",
            "buffer": "1bdp",
            "access_buffer": access,
        },
        "flows": [flow],
    }


def _f3_plan(s: Settings) -> dict[str, Any]:
    return {"duration": s.pick("600s", "120s"), "seeds": s.seeds(3, 3)}


def _f3_sweeps(s: Settings, variant: Variant = DEFAULT) -> list[dict[str, Any]]:
    plan = _f3_plan(s)
    axes = {
        "topology.bottleneck_rate": ["50Mbps", "500Mbps"],
        "topology.buffer": ["0.2bdp", "1bdp"],
    }
    fd = {"w": variant.f3_w, **variant.fd_params}
    return [
        {
            "name": "tcp",
            "scenario": _f3_scenario("newreno", None, plan["duration"], variant.queue),
            "seeds": plan["seeds"],
            "axes": axes,
        },
        {
            "name": f"fd-w{variant.f3_w}",
            "scenario": _f3_scenario("freedrop", fd, plan["duration"], variant.queue),
            "seeds": plan["seeds"],
            "axes": axes,
        },
    ]


def _f3_analyse(c: Context) -> pd.DataFrame:
    records = []
    duration = float(_f3_plan(c.settings)["duration"].removesuffix("s"))
    for sweep in c.results:
        config = TCP if sweep == "tcp" else _w_name(int(sweep.removeprefix("fd-w")))
        for point, load in c.points(sweep):
            flows = load("flows")
            keys = {
                "case": _case(point["bottleneck_rate"], point["buffer"]),
                "config": config,
                "seed": int(point["seed"]),
            }
            records.append(
                keys | {"metric": JAIN, "value": metrics.jain_index(flows["goodput_bps"])}
            )
            records.append(
                keys | {"metric": TOTAL, "value": float(flows["goodput_bps"].sum()) / 1e6}
            )
            records.append(keys | {"metric": LOST, "value": float(flows["drops"].sum()) / duration})
    return summarise(records, ["case", "config"], bounds=F3_BOUNDS)


def _f3_fd(table: pd.DataFrame) -> str:
    """The Free-Drop configuration of the table (whatever its w)."""
    configs = sorted(str(c) for c in table["config"].unique() if str(c).startswith("FD w="))
    return configs[0] if configs else _w_name(F3_W)


def _f3_fair(table: pd.DataFrame) -> list[Check]:
    checks = []
    fd = _f3_fd(table)
    for rate, buf in F3_CASES:
        case = _case(rate, buf)
        for config in (TCP, fd):
            checks.append(
                compare(
                    f"{case}: {config} Jain index",
                    measure(table, JAIN, case=case, config=config),
                    ">=",
                    FAIR,
                    reversal=None,
                )
            )
    return checks


def _f3_close(table: pd.DataFrame) -> list[Check]:
    fd = _f3_fd(table)
    checks = []
    for rate, buf in F3_CASES:
        case = _case(rate, buf)
        ours = measure(table, JAIN, case=case, config=fd)
        tcp = measure(table, JAIN, case=case, config=TCP)
        if not ours.has_data or not tcp.has_data:
            checks.append(Check.no_data(f"{case}: Jain index, {fd} minus TCP"))
            continue
        checks.append(
            band(f"{case}: Jain index, {fd} minus TCP (paired by seed)", ours - tcp, -CLOSE, CLOSE)
        )
    return checks


def _f3_more(metric: str, what: str) -> Callable[[pd.DataFrame], list[Check]]:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        fd = _f3_fd(table)
        return [
            compare(
                f"{_case(rate, buf)}: {what}, {fd} against TCP",
                measure(table, metric, case=_case(rate, buf), config=fd),
                ">",
                measure(table, metric, case=_case(rate, buf), config=TCP),
            )
            for rate, buf in F3_CASES
        ]

    return evaluate


def _f3_assume(variant: Variant) -> tuple[str, ...]:
    access = (
        f"ns-2's default limit 50 ({variant.queue} in ccsim)"
        if variant.queue == NS2_QUEUE
        else f"{variant.queue} (sensitivity variant)"
    )
    return (
        *COMMON,
        "RTT 50 ms, 600 s (quick: 120 s), flows start in the first second",
        (
            "dumbbell: each sender -> R1 on its own access link (4x the bottleneck rate) -> "
            "bottleneck R1 -> R2 (10 ms) -> each receiver on its own access link"
        ),
        (
            "bottleneck, both directions: DropTail of 20% or 100% of the BDP at 50 ms with "
            "1040-byte packets (the paper's ~20% and ~100%: 61 and 301 packets at 50 Mb/s, 601 "
            "and 3005 at 500 Mb/s)"
        ),
        f"every access link, both directions: DropTail of {access}; the paper gives none",
        f"Free-Drop w = {variant.f3_w} (the paper gives none for Fig. 3)",
        *_fd_options(variant),
        "no random loss: only queue overflow",
    )


# ---- F4 ------------------------------------------------------------------------------------------

F4_LAMBDAS = (1.0, 5.0, 20.0)
F4_P = (1e-5, 1e-4)
F4_W = (2, 10, 20)
#: The fluid-model CoV of the window at these p w, Free-Drop over TCP (for comparison with
#: Fig. 2; not a claim of the fluid model).
F4_COV_PW = (0.01, 2.0)
BRL = "B RTT^2 lambda"
BRPW = "B RTT p sqrt(w)"
P_SLOPE = "slope in p"
SLOPE_W = "slope in w"
MC_EXACT = "MC / exact fluid law"
WINDOW_COV = "window CoV"
CUT_RATE = "cut rate / (lambda^2 T)"
GAP_COV = "CoV of the time between cuts"
F4_BOUNDS = {BRL: NONNEGATIVE, BRPW: NONNEGATIVE, MC_EXACT: NONNEGATIVE, WINDOW_COV: NONNEGATIVE}


def _f4_point(p: float, w: int) -> str:
    return f"p={p:g} w={w}"


def _f4_exact(p: float, w: int) -> tuple[float, float]:
    """The fluid model's cut rate over lambda^2 T and the CoV of the time between cuts at
    lambda T = p w (exact, :func:`ccsim.fluid.cycle_moments`; 1 and 1 for a Poisson process of
    rate lambda^2 T)."""
    x = p * w
    m1, m2 = fluid.cycle_moments(1.0, x)
    return fluid.cut_probability(1.0, x) / x, math.sqrt(m2 / m1**2 - 1)


def _f4_analyse(c: Context) -> pd.DataFrame:
    n_paths = c.settings.pick(2000, 500)
    seeds = c.settings.seeds(10, 3)
    started = time.perf_counter()
    records: list[dict[str, Any]] = []
    for seed in seeds:
        run = {"seed": seed}
        tcp_cov = math.nan
        for lam in F4_LAMBDAS:
            result = fluid.simulate(lam, math.inf, RTT_S, n_paths=n_paths, seed=seed)
            keys = run | {"model": "TCP", "x": f"lambda={lam:g}"}
            records.append(keys | {"metric": BRL, "value": result.throughput * RTT_S**2 * lam})
            records.append(keys | {"metric": WINDOW_COV, "value": result.window_cov})
            tcp_cov = result.window_cov if lam == 1.0 else tcp_cov
        throughput: dict[tuple[float, int], float] = {}
        for p in F4_P:
            for w in F4_W:
                result = fluid.simulate_packet(p, w, RTT_S, n_paths=n_paths, seed=seed)
                throughput[(p, w)] = result.throughput
                keys = run | {"model": "FD", "x": _f4_point(p, w)}
                records.append(
                    keys | {"metric": BRPW, "value": result.throughput * RTT_S * p * math.sqrt(w)}
                )
                exact = fluid.fd_packet_throughput(p, w, RTT_S)
                records.append(keys | {"metric": MC_EXACT, "value": result.throughput / exact})
                records.append(keys | {"metric": WINDOW_COV, "value": result.window_cov})
        for w in F4_W:
            b = [throughput[(p, w)] for p in F4_P]
            records.append(
                run | {"model": "FD", "x": f"w={w}", "metric": P_SLOPE, "value": _slope(F4_P, b)}
            )
        for p in F4_P:
            b = [throughput[(p, w)] for w in F4_W]
            records.append(
                run | {"model": "FD", "x": f"p={p:g}", "metric": SLOPE_W, "value": _slope(F4_W, b)}
            )
        # The fluid model's CoV of the window, Free-Drop over TCP, at p w = 0.01 and 2 (near the
        # fluid model's largest CoV, docs/fluid.md): for comparison with Fig. 2.
        for pw in F4_COV_PW:
            result = fluid.simulate_packet(1e-3, pw / 1e-3, RTT_S, n_paths=n_paths, seed=seed)
            records.append(
                run
                | {
                    "model": "FD",
                    "x": f"p w={pw:g}",
                    "metric": "CoV ratio FD/TCP",
                    "value": result.window_cov / tcp_cov,
                }
            )
    for p in F4_P:
        for w in F4_W:
            rate, gaps = _f4_exact(p, w)
            keys = {"model": "FD", "x": _f4_point(p, w), "seed": 0}
            records.append(keys | {"metric": CUT_RATE, "value": rate})
            records.append(keys | {"metric": GAP_COV, "value": gaps})
    c.notes.append(
        f"F4: Monte Carlo with {n_paths} paths per replicate, {len(seeds)} replicates, took "
        f"{time.perf_counter() - started:.1f} s"
    )
    published: dict[tuple[Any, ...], float] = {}
    for lam in F4_LAMBDAS:
        published[("TCP", f"lambda={lam:g}", BRL)] = 2.0
    for w in F4_W:
        published[("FD", f"w={w}", P_SLOPE)] = -1.0
    for p in F4_P:
        published[("FD", f"p={p:g}", SLOPE_W)] = -0.5
        for w in F4_W:
            published[("FD", _f4_point(p, w), BRPW)] = fluid.FLUID_ALPHA
            published[("FD", _f4_point(p, w), CUT_RATE)] = 1.0
            published[("FD", _f4_point(p, w), GAP_COV)] = 1.0
    for pw in F4_COV_PW:
        published[("FD", f"p w={pw:g}", "CoV ratio FD/TCP")] = 1.6
    return summarise(records, ["model", "x"], published, bounds=F4_BOUNDS)


def _f4_tcp(table: pd.DataFrame) -> list[Check]:
    return [
        within(
            f"lambda = {lam:g}/s: B RTT^2 lambda (Monte Carlo)",
            measure(table, BRL, model="TCP", x=f"lambda={lam:g}"),
            2.0,
            0.02,
        )
        for lam in F4_LAMBDAS
    ]


def _f4_fd(table: pd.DataFrame) -> list[Check]:
    checks = [
        band(
            f"w = {w}: log-log slope of B in p (p = {', '.join(f'{p:g}' for p in F4_P)})",
            measure(table, P_SLOPE, model="FD", x=f"w={w}"),
            -1.05,
            -0.95,
        )
        for w in F4_W
    ]
    checks += [
        band(
            f"p = {p:g}: log-log slope of B in w (w = {', '.join(map(str, F4_W))})",
            measure(table, SLOPE_W, model="FD", x=f"p={p:g}"),
            -0.55,
            -0.45,
        )
        for p in F4_P
    ]
    checks += [
        within(
            f"{_f4_point(p, w)}: B RTT p sqrt(w), the constant alpha of eq. (4) (Monte Carlo)",
            measure(table, BRPW, model="FD", x=_f4_point(p, w)),
            fluid.FLUID_ALPHA,
            0.02,
        )
        for p in F4_P
        for w in F4_W
    ]
    return checks


def _f4_poisson(table: pd.DataFrame) -> list[Check]:
    """Exact: the cut process of the fluid model at small lambda T (no table needed)."""
    checks = []
    for p in F4_P:
        for w in F4_W:
            rate, gaps = _f4_exact(p, w)
            point = f"{_f4_point(p, w)} (lambda T = {p * w:g})"
            checks.append(
                within(f"{point}: cut rate over lambda^2 T (exact)", Quantity.of(rate), 1.0, 0.01)
            )
            checks.append(
                within(
                    f"{point}: CoV of the time between cuts (exact; 1 for a Poisson process)",
                    Quantity.of(gaps),
                    1.0,
                    0.01,
                )
            )
    return checks


# ---- the studies ---------------------------------------------------------------------------------

F1_MAX_REPLICATES = 12
F3_MAX_REPLICATES = 24


def _f1(variant: Variant) -> Study:
    return Study(
        id="F1",
        slug="response-curves",
        title="Response curves of TCP and Free-Drop TCP, and the shifted curves (Fig. 1)",
        source=SOURCE,
        setup="one flow over a 600 Mb/s link with random loss p, RTT 50 ms, 10-minute runs, "
        "3 seeds (more while a check is inconclusive); goodput vs p for TCP, Free-Drop at fixed "
        "w and with w(p) for the shift eps; fluid-model curves at the same p; per-seed fits of "
        "beta/sqrt(p - eps)",
        warmup=(
            "30 s (quick: 10 s): goodput is the mean delivered rate sampled after it, so the "
            "slow-start overshoot does not count"
        ),
        assumptions=_f12_assume(variant),
        sweeps=functools.partial(_f1_sweeps, variant=variant),
        analyse=_f1_analyse,
        claims=(
            Claim(
                "TCP's response curve is B ~ 1/sqrt(p) (eq. 2; Fig. 1's eps = 0 curve)",
                "the per-seed log-log slope of TCP's goodput in p over p = 1e-4..1e-2 lies in "
                "-0.6..-0.4",
                _f1_tcp_slope,
            ),
            Claim(
                "At fixed w, Free-Drop's throughput is greater than TCP's (abstract: 'the "
                "greater asymptotic throughput for a given window size w')",
                "in the law's range (p w <= 0.1 and eq. 4's throughput at most half the link "
                "rate), each fixed-w goodput over TCP's at the same p and seed, geometric mean "
                "over the range, above 1 (reversed below)",
                _f1_above,
            ),
            Claim(
                "At fixed w, Free-Drop's throughput follows B ~ 1/(p sqrt(w)) rather than "
                "1/sqrt(p) (abstract; eq. 4, 'this formula in fact holds')",
                "in the law's range (p w <= 0.1 and eq. 4's throughput at most half the link "
                "rate): each fixed-w curve's per-seed log-log slope in p within -1.25..-0.75 "
                "(reversed above -0.5, TCP's); at each p with two such w, the slope in w within "
                "-0.75..-0.25 (reversed above 0)",
                _f1_law,
            ),
            Claim(
                "w(p) = Theta((p - eps)/p^2) shifts TCP's response curve by eps along p "
                "(Fig. 1a-c)",
                "for each eps, the per-seed fit of beta/sqrt(p - eps) to the shifted curve (a "
                "line through 1/B^2 against p, eps free on both sides) gives a fitted eps "
                "between half and twice the designed one; reversed below 0 (shifted the other "
                "way)",
                _f1_shift,
            ),
        ),
        figure=FigureSpec(
            "goodput vs loss rate p", x="p", hue="config", xlabel="loss probability p"
        ),
        algorithms=("newreno", "freedrop"),
        max_replicates=F1_MAX_REPLICATES,
    )


def _f2(variant: Variant) -> Study:
    return Study(
        id="F2",
        slug="cwnd-cov",
        title="Coefficient of variation of cwnd, TCP vs Free-Drop TCP (Fig. 2)",
        source=SOURCE,
        setup="the runs of F1; cwnd sampled every 100 ms after a 30 s warm-up; CoV per run; "
        "ratio Free-Drop / TCP at each p and seed; window cuts per second",
        warmup=(
            "30 s (quick: 10 s) for the CoV of cwnd; loss events and window cuts per second count "
            "the whole run"
        ),
        assumptions=(*_f12_assume(variant), "quick mode: 60 s runs, warm-up 10 s"),
        sweeps=functools.partial(_f1_sweeps, variant=variant),
        analyse=_f2_analyse,
        claims=(
            Claim(
                "Free-Drop's CoV of cwnd is increased, about 1.6 times TCP's (Fig. 2, on the "
                "runs of Fig. 1's shifted curves)",
                "for each shifted curve (eps = 5e-5, 5e-4, 1e-3), the per-seed mean over its p of "
                "CoV_FD/CoV_TCP at the same p above 1 (reversed below 1); the mean of the three "
                "within 1.2..2.0",
                _f2_ratio,
            ),
            Claim(
                "Free-Drop's higher throughput comes with a higher rate of congestion events "
                "(abstract: a possible cost; a congestion event is a loss that makes the window "
                "shrink)",
                "for every Free-Drop configuration (fixed w = 10, 100, 1000 and the three "
                "shifted curves), window cuts per second, mean over its p, above TCP's at the "
                "same p, paired by seed; reversed below",
                _f2_events,
            ),
        ),
        figure=FigureSpec(
            "CoV of cwnd vs loss rate p", x="p", hue="config", xlabel="loss probability p"
        ),
        algorithms=("newreno", "freedrop"),
        max_replicates=F1_MAX_REPLICATES,
    )


def _f3(variant: Variant) -> Study:
    return Study(
        id="F3",
        slug="free-drop-fairness",
        title="Jain's index of 5 flows, TCP vs Free-Drop TCP (Fig. 3)",
        source=SOURCE,
        setup="dumbbell, 5 flows of one protocol, RTT 50 ms; bottleneck 50 and 500 Mb/s; "
        "DropTail queue 20% and 100% of the BDP; Jain index of the flows' goodputs, total "
        "goodput and packets lost per second; 3 seeds (more while a check is inconclusive)",
        warmup=(
            "none: each flow's goodput is taken over its whole run (flows start in the first "
            "second)"
        ),
        assumptions=_f3_assume(variant),
        sweeps=functools.partial(_f3_sweeps, variant=variant),
        analyse=_f3_analyse,
        claims=(
            Claim(
                "TCP and Free-Drop are both fair protocols (Fig. 3a-d: 'Free-Drop TCP is "
                "essentially fair under these conditions')",
                f"in each of the four cases, TCP's and Free-Drop's Jain index at least {FAIR}",
                _f3_fair,
            ),
            Claim(
                "There is little to choose between TCP and Free-Drop from the standpoint of "
                "fairness (Fig. 3a-d)",
                f"in each case, Free-Drop's Jain index minus TCP's (paired by seed) within "
                f"+-{CLOSE}",
                _f3_close,
            ),
            Claim(
                "Free-Drop produces more packet losses (section 2)",
                "in each case, packets lost per second (all five flows) above TCP's, paired by "
                "seed; reversed below",
                _f3_more(LOST, "packets lost per second"),
            ),
            Claim(
                "In the aggregate, Free-Drop flows tend toward higher utilization (section 2)",
                "in each case, the five flows' total goodput above TCP's, paired by seed; "
                "reversed below",
                _f3_more(TOTAL, "total goodput"),
            ),
        ),
        figure=FigureSpec("Jain index, goodput and losses, 5 flows"),
        algorithms=("newreno", "freedrop"),
        max_replicates=F3_MAX_REPLICATES,
    )


STUDIES: tuple[Study, ...] = (
    _f1(DEFAULT),
    _f2(DEFAULT),
    _f3(DEFAULT),
    Study(
        id="F4",
        slug="free-drop-fluid",
        title="Fluid model of TCP and Free-Drop TCP: Monte Carlo vs the closed forms",
        source=SOURCE,
        setup="Monte Carlo of dW = dt/RTT with Poisson losses (ccsim.fluid), RTT 50 ms; TCP "
        "(every loss halves) and Free-Drop (a loss halves only after another within T = w/B); "
        "10 replicates (quick: 3), each its own random stream; the cut process's exact moments",
        warmup=(
            "the first 30 loss cycles of each Monte Carlo path are discarded "
            "(ccsim.fluid.simulate's default)"
        ),
        assumptions=(
            "the fluid model of section 2 as docs/fluid.md states it; no links (no queues)",
            "lambda = p B, T = w / B (the paper's substitution)",
            "2000 paths per replicate (quick: 500)",
        ),
        sweeps=lambda s: [],
        analyse=_f4_analyse,
        claims=(
            Claim(
                "TCP in the fluid model: B = 2/(RTT^2 lambda) (eq. 3)",
                "B RTT^2 lambda within 2% of 2 at each lambda (interval of the relative "
                "difference over replicates)",
                _f4_tcp,
            ),
            Claim(
                "Free-Drop in the fluid model: B ~ alpha/(RTT p sqrt(w)) at small p (eq. 4)",
                "log-log slope in p within -1.05..-0.95 at each w and in w within -0.55..-0.45 "
                "at each p; B RTT p sqrt(w) within 2% of sqrt(2), the alpha of eq. 3 in the same "
                "model, at each (p, w)",
                _f4_fd,
            ),
            Claim(
                "Congestion events become a Poisson process of rate lambda(1 - exp(-lambda T)) "
                "~ lambda^2 T as lambda T -> 0 (section 2)",
                "at each (p, w) of F4 (lambda T = p w <= 2e-3): the exact cut rate over "
                "lambda^2 T within 1% of 1, and the exact CoV of the time between cuts within 1% "
                "of 1 (an exponential's)",
                _f4_poisson,
            ),
        ),
        figure=FigureSpec("fluid model"),
        algorithms=(),
        # No escalation: a study without sweeps has no replicates the core can count (it would
        # ask for 2 seeds again and again); its 10 replicates are all Monte Carlo.
        max_replicates=None,
    ),
)


# ---- sensitivity ---------------------------------------------------------------------------------


def variant_study(study_id: str, variant: Variant) -> Study:
    """F1, F2 or F3 under ``variant`` (the same claims and criteria)."""
    make = {"F1": _f1, "F2": _f2, "F3": _f3}[study_id]
    study = make(variant)
    return dataclasses.replace(
        study, assumptions=(*study.assumptions, f"sensitivity variant: {variant.description}")
    )


def sensitivity(
    *,
    quick: bool = False,
    workers: int | None = None,
    out: str | Path = Path("results") / "studies" / "seed001-sensitivity",
    variants: tuple[Variant, ...] = SENSITIVITY,
    max_replicates: int = 12,
    progress: bool = True,
) -> pd.DataFrame:
    """F1, F2 and F3 under every variant of :data:`SENSITIVITY` that applies to them, each a
    study in its own right (replicates added while a check is inconclusive, up to
    ``max_replicates``) into ``out/<ID>/<variant>`` (F2 into F1's directory: it reuses F1's
    runs). Returns, and writes to ``out/sensitivity.csv``, one row per study, variant and claim:
    the verdict and the outcomes of its checks; prints the verdicts as a table of claims against
    variants."""
    root = Path(out)
    rows: list[dict[str, Any]] = []
    for variant in variants:
        for study_id in ("F1", "F2", "F3"):
            if study_id not in variant.studies:
                continue
            study = variant_study(study_id, variant)
            cap = min(max_replicates, study.max_replicates or max_replicates)
            study = dataclasses.replace(study, max_replicates=cap)
            directory = root / ("F1" if study_id == "F2" else study_id) / variant.slug
            report = run_study(study, Settings(quick=quick), directory, workers=workers)
            rows += _sensitivity_rows(report, variant)
            if progress:
                done = ", ".join(f"{i + 1}: {v.verdict}" for i, v in enumerate(report.verdicts))
                print(f"{study_id} {variant.slug}: {done} ({report.replicates} seeds)", flush=True)
    table = pd.DataFrame(rows)
    root.mkdir(parents=True, exist_ok=True)
    table.to_csv(root / "sensitivity.csv", index=False)
    if progress:
        print(sensitivity_summary(table))
    return table


def _sensitivity_rows(report: StudyReport, variant: Variant) -> list[dict[str, Any]]:
    return [
        {
            "study": report.study.id,
            "variant": variant.slug,
            "claim": index + 1,
            "text": result.claim,
            "verdict": result.verdict,
            "checks": "; ".join(f"[{c.outcome}] {c.text}" for c in result.checks),
            "seeds": report.replicates,
        }
        for index, result in enumerate(report.verdicts)
    ]


def sensitivity_summary(table: pd.DataFrame) -> str:
    """The verdicts of :func:`sensitivity` as a Markdown table per study: a row per variant, a
    column per claim."""
    parts = []
    for study_id, rows in table.groupby("study", sort=False):
        wide = rows.pivot(index="variant", columns="claim", values="verdict")
        wide = wide.reindex(list(dict.fromkeys(rows["variant"])))
        seeds = rows.groupby("variant")["seeds"].max()
        header = ["variant", *(f"claim {c}" for c in wide.columns), "seeds"]
        lines = [
            f"{study_id}:",
            "| " + " | ".join(header) + " |",
            "| " + " | ".join("---" for _ in header) + " |",
        ]
        lines += [
            "| " + " | ".join([str(v), *(str(x) for x in wide.loc[v]), str(seeds[v])]) + " |"
            for v in wide.index
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
