"""Seed 001, Free-Drop TCP: studies F1-F4 of docs/studies.md (shared material).

Free-Drop TCP (``freedrop``, parameter ``w`` in packet transmissions) is NewReno whose halving on
a loss happens only when another loss occurred within the last ``w`` transmissions. F1 and F2
are the paper's single-flow lossy-link runs, F3 its five-flow fairness runs, F4 its fluid model
(pure Python, :mod:`ccsim.fluid`, no engine runs).

Choices common to the packet-level studies (printed with each):

* TCP is ``newreno``: Free-Drop in ccsim uses NewReno recovery, so the two differ only in the
  rule that decides whether a loss halves the window.
* MSS 1000 B (ns-2's default ``packetSize_``; the paper gives none).
* F1/F2: the lossy link never overflows (a queue of 100 000 packets) and the receiver window is
  2 BDP (7500 packets at 600 Mb/s, 50 ms, 1000 B): a flow can fill the link and queue at most one
  BDP. Without the cap, Free-Drop at small p grows its window (free losses) until the slow-start
  burst drowns NewReno recovery, which repairs one hole per RTT. Goodput is measured after the warm-up.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ccsim import fluid, metrics
from ccsim.studies.core import (
    Check,
    Claim,
    Context,
    FigureSpec,
    Settings,
    Study,
    check,
    summarise,
    value,
)

SOURCE = "seed 001 (Free-Drop TCP)"
MSS = 1000
RTT_S = 0.05
RATE = "600Mbps"
#: 2 BDP at 600 Mb/s, 50 ms, 1000-byte packets (3750 packets per BDP).
MAX_WINDOW = 7500
TCP = "TCP"
COMMON = (
    "TCP = newreno (Free-Drop's own recovery), so the two differ only in the cut rule",
    "MSS 1000 B (ns-2 packetSize_ default); delayed ACKs off (ns2 profile); ACKs 40 B",
    (
        "no send overhead and no router jitter (ns-2's default overhead_ = 0); F3's flows share "
        "one RTT and start at random times (docs/phase-effects.md: what the knobs change)"
    ),
)
F12_ASSUME = (
    *COMMON,
    (
        "one flow, dumbbell with 10 ms bottleneck delay, base RTT 50 ms, Bernoulli loss p on the "
        "600 Mb/s link, data direction"
    ),
    "the lossy link never overflows (queue 100000 packets); receiver window 7500 packets = 2 BDP",
    (
        "cwnd and delivered rate sampled every 100 ms; goodput and CoV after a 30 s warm-up "
        "(quick: 10 s), so the slow-start overshoot does not count"
    ),
    (
        "shifted curves: w(p) = (p - eps)/p^2 rounded (the paper's Theta rule with TCP's own beta, "
        "ccsim.fluid.shift_window); fixed w = 10, 100, 1000 besides"
    ),
)


def _w_name(w: int) -> str:
    return f"FD w={w}"


def _eps_name(eps: float) -> str:
    return f"FD eps={eps:g}"


def _f1_plan(s: Settings) -> dict[str, Any]:
    """Loss rates, fixed windows and shifts of F1/F2 (full or quick)."""
    return {
        "p": s.pick([1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2], [1e-4, 1e-3, 1e-2]),
        "w": s.pick([10, 100, 1000], [10, 100]),
        "eps": s.pick(
            {
                5e-5: [1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2],
                5e-4: [6e-4, 7e-4, 1e-3, 2e-3, 5e-3, 1e-2],
                1e-3: [1.2e-3, 1.5e-3, 2e-3, 5e-3, 1e-2],
            },
            {5e-4: [6e-4, 1e-3, 1e-2]},
        ),
        "duration": s.pick("600s", "60s"),
        "warmup": s.pick(30.0, 10.0),
        "seeds": s.seeds(3, 1),
    }


def _lossy(cc: str, params: dict[str, Any] | None, duration: str) -> dict[str, Any]:
    flow: dict[str, Any] = {
        "cc": cc,
        "rtt": "50ms",
        "mss": MSS,
        "max_window": MAX_WINDOW,
    }
    if params:
        flow["params"] = params
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": RATE,
            "bottleneck_delay": "10ms",
            "buffer": "100000pkts",
            "access_buffer": "100000pkts",
            "loss": 0.0,
        },
        "flows": [flow],
        "trace": {"sample_interval": "100ms"},
    }


def _f1_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _f1_plan(s)
    duration, seeds = plan["duration"], plan["seeds"]
    sweeps = [
        {
            "name": "tcp",
            "scenario": _lossy("newreno", None, duration),
            "seeds": seeds,
            "axes": {"topology.loss": plan["p"]},
        }
    ]
    for w in plan["w"]:
        sweeps.append(
            {
                "name": f"fd-w{w}",
                "scenario": _lossy("freedrop", {"w": w}, duration),
                "seeds": seeds,
                "axes": {"topology.loss": plan["p"]},
            }
        )
    for eps, ps in plan["eps"].items():
        for p in ps:
            w = max(1, round(fluid.shift_window(p, eps, RTT_S)))
            scenario = _lossy("freedrop", {"w": w}, duration)
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
    """One record per finished run of F1/F2: config, p, w, goodput, CoV of cwnd, wall time."""
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
                    "goodput_bps": float(late.mean()) if len(late) else math.nan,
                    "whole_run_bps": float(point["goodput_bps"]),
                    "cov": float(cov.iloc[0]) if len(cov) else math.nan,
                    "wall_s": float(point.get("wall_s", math.nan)),
                    # The paper's congestion events are losses; a cut is one the algorithm
                    # answered by reducing its window (engine column window_cuts).
                    "losses_per_s": float(flow["drops"]) / span if span > 0 else math.nan,
                    "cuts_per_s": cuts / span if span > 0 else math.nan,
                }
            )
    return out


def _slope(x: Sequence[float] | pd.Series, y: Sequence[float] | pd.Series) -> float:
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
    than the designed one as well as smaller. (Weighting the line by relative residuals would
    bring the bound back: the point at the smallest ``p`` then pins the line near zero there.)
    Returns ``(eps, beta)``; NaNs when the line does not rise (slope <= 0) or fewer than 2
    points are usable.
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


def _f1_analyse(c: Context) -> pd.DataFrame:
    plan = _f1_plan(c.settings)
    points = _lossy_points(c)
    records: list[dict[str, Any]] = []
    for r in points:
        records.append(
            {
                "config": r["config"],
                "p": r["p"],
                "metric": "goodput Mb/s",
                "value": r["goodput_bps"] / 1e6,
            }
        )
    frame = pd.DataFrame(points)
    # The fluid model's curves at the same p (pkt/s -> Mb/s), capped by nothing.
    to_mbps = MSS * 8 / 1e6
    for p in plan["p"]:
        records.append(
            {
                "config": "fluid TCP",
                "p": p,
                "metric": "goodput Mb/s",
                "value": fluid.fd_packet_throughput(p, math.inf, RTT_S) * to_mbps,
            }
        )
        for w in plan["w"]:
            records.append(
                {
                    "config": f"fluid {_w_name(w)}",
                    "p": p,
                    "metric": "goodput Mb/s",
                    "value": fluid.fd_packet_throughput(p, w, RTT_S) * to_mbps,
                }
            )
    if len(frame):
        means = frame.groupby(["config", "p"], as_index=False)["goodput_bps"].mean()
        # Log-log slopes of goodput in p (over the whole p range of each config).
        for config, group in means.groupby("config"):
            records.append(
                {
                    "config": config,
                    "p": math.nan,
                    "metric": "slope d log B / d log p",
                    "value": _slope(group["p"], group["goodput_bps"]),
                }
            )
        # Least-squares fit of beta/sqrt(p - eps) to each shifted curve (pkt/s).
        for eps in plan["eps"]:
            group = means[means["config"] == _eps_name(eps)]
            if len(group) >= 3:
                fitted = fit_shift(
                    group["p"].to_numpy(), group["goodput_bps"].to_numpy() / (MSS * 8)
                )
                if math.isnan(fitted[0]):
                    c.notes.append(f"fit of {_eps_name(eps)} failed (1/B^2 does not rise)")
                records.append(
                    {
                        "config": _eps_name(eps),
                        "p": math.nan,
                        "metric": "fitted eps",
                        "value": fitted[0],
                    }
                )
                records.append(
                    {
                        "config": _eps_name(eps),
                        "p": math.nan,
                        "metric": "fitted beta (pkt/s)",
                        "value": fitted[1],
                    }
                )
        tcp = means[means["config"] == TCP]
        if len(tcp) >= 2:
            eps_tcp, beta_tcp = fit_shift(
                tcp["p"].to_numpy(), tcp["goodput_bps"].to_numpy() / (MSS * 8)
            )
            records.append({"config": TCP, "p": math.nan, "metric": "fitted eps", "value": eps_tcp})
            records.append(
                {
                    "config": TCP,
                    "p": math.nan,
                    "metric": "fitted beta (pkt/s)",
                    "value": beta_tcp,
                }
            )
        wall = frame["wall_s"].sum()
        records.append(
            {
                "config": "all runs",
                "p": math.nan,
                "metric": "engine wall time s",
                "value": float(wall),
            }
        )
        c.notes.append(
            f"F1: {len(frame)} runs of {plan['duration']} simulated at 600 Mb/s; engine wall time "
            f"{wall:.2f} s in all (sum over runs, longest {frame['wall_s'].max():.2f} s)"
        )
    table = summarise(records, ["config", "p"])
    if len(frame):
        _f1_loglog(c, means, plan)
    # NaN keys do not match in a dict; fill the published fits by hand.
    for eps in plan["eps"]:
        mask = (table["config"] == _eps_name(eps)) & (table["metric"] == "fitted eps")
        table.loc[mask, "published"] = eps
    return table


def _f1_loglog(c: Context, means: pd.DataFrame, plan: dict[str, Any]) -> None:
    """``F1-loglog.png`` next to the study's files: the packet-level points, the fluid model's
    curves, and the fitted shifted curves beta/sqrt(p - eps), on log-log axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    store = next(r for r in c.results.values() if r is not None).store
    path = store.root.parent.parent / "F1-loglog.png"
    to_mbps = MSS * 8 / 1e6
    grid = np.geomspace(min(plan["p"]), max(plan["p"]), 60)
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    fixed = [TCP, *(_w_name(w) for w in plan["w"])]
    for config in fixed:
        rows = means[means["config"] == config]
        dots = left.loglog(rows["p"], rows["goodput_bps"] / 1e6, "o", label=f"{config} (ccsim)")
        w = math.inf if config == TCP else int(config.removeprefix("FD w="))
        curve = [fluid.fd_packet_throughput(p, w, RTT_S) * to_mbps for p in grid]
        left.loglog(
            grid,
            curve,
            "-",
            color=dots[0].get_color(),
            alpha=0.6,
            label=f"{config} (fluid)",
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
            rows["p"],
            rows["goodput_bps"] / 1e6,
            "s",
            label=f"{_eps_name(eps)} (ccsim, w(p))",
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
            if math.isnan(eps_fit):
                continue
            start = max(eps_fit * 1.05, min(rows["p"]))
            if start >= max(rows["p"]):
                continue
            ps = np.geomspace(start, max(rows["p"]), 60)
            right.loglog(
                ps,
                beta_fit / np.sqrt(ps - eps_fit) * to_mbps,
                "-",
                color=dots[0].get_color(),
                label=f"fit beta/sqrt(p - {eps_fit:.2g})",
            )
    right.set_title("shifted curves: w(p) = (p - eps)/p^2")
    for ax in (left, right):
        ax.set_xlabel("loss probability p")
        ax.set_ylabel("goodput Mb/s")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    c.notes.append(f"F1: log-log figure {path}")


def _rows(table: pd.DataFrame, config: str, metric: str) -> pd.DataFrame:
    rows = table[(table["config"] == config) & (table["metric"] == metric)]
    return rows.dropna(subset=["ours"]).sort_values("p")


def _f1_tcp_slope(table: pd.DataFrame) -> list[Check]:
    slope = value(table, "slope d log B / d log p", config=TCP)
    return [
        check(
            f"TCP slope {slope:.3f} in [-0.6, -0.4]",
            slope,
            test=lambda s: -0.6 <= s <= -0.4,
        )
    ]


def _fd_configs(table: pd.DataFrame) -> list[str]:
    return sorted(c for c in table["config"].unique() if str(c).startswith("FD w="))


def _f1_fd_better(table: pd.DataFrame) -> list[Check]:
    tcp = _rows(table, TCP, "goodput Mb/s").set_index("p")["ours"]
    tcp_slope = value(table, "slope d log B / d log p", config=TCP)
    checks = []
    configs = _fd_configs(table)
    if tcp.empty or not configs:
        return [Check("Free-Drop above TCP at every p and steeper", None)]
    for config in configs:
        fd = _rows(table, config, "goodput Mb/s").set_index("p")["ours"]
        common = fd.index.intersection(tcp.index)
        above = bool(len(common)) and bool((fd[common] > tcp[common]).all())
        below = bool(len(common)) and bool((fd[common] < tcp[common]).all())
        checks.append(
            Check(
                f"{config} above TCP at every p ({len(common)} p; reversed: below at every p)",
                above,
                reversed=not above and below,
            )
        )
        slope = value(table, "slope d log B / d log p", config=config)
        checks.append(
            check(
                f"{config} slope {slope:.3f} steeper than TCP's {tcp_slope:.3f} (reversed: "
                f"flatter)",
                slope,
                tcp_slope,
                test=lambda a, b: a < b,
                reverse=lambda a, b: a > b,
            )
        )
    return checks


def _f1_shift(table: pd.DataFrame) -> list[Check]:
    rows = table[table["metric"] == "fitted eps"]
    rows = rows[rows["config"].astype(str).str.startswith("FD eps=")]
    if rows.empty:
        return [Check("fitted eps within a factor 2 of the designed shift", None)]
    return [
        check(
            f"{r['config']}: fitted eps {r['ours']:.3g} within x2 of {r['published']:g} "
            f"(reversed: < 0, the curve shifted the other way)",
            float(r["ours"]),
            test=lambda e, want=float(r["published"]): want / 2 <= e <= 2 * want,
            reverse=lambda e: e < 0,
        )
        for _, r in rows.iterrows()
    ]


# ---- F2 ------------------------------------------------------------------------------------------


def _f2_analyse(c: Context) -> pd.DataFrame:
    points = _lossy_points(c)
    records = [
        {"config": r["config"], "p": r["p"], "metric": "cwnd CoV", "value": r["cov"]}
        for r in points
    ]
    for r in points:
        records.append(
            {
                "config": r["config"],
                "p": r["p"],
                "metric": "loss events /s",
                "value": r["losses_per_s"],
            }
        )
        records.append(
            {
                "config": r["config"],
                "p": r["p"],
                "metric": "window cuts /s",
                "value": r["cuts_per_s"],
            }
        )
    frame = pd.DataFrame(points)
    if len(frame):
        events = frame.groupby(["config", "p"])["losses_per_s"].mean()
        for (config, p), rate in events.items():
            if config != TCP and (TCP, p) in events.index:
                records.append(
                    {
                        "config": config,
                        "p": p,
                        "metric": "loss events ratio FD/TCP",
                        "value": rate / events[(TCP, p)],
                    }
                )
        means = frame.groupby(["config", "p"])["cov"].mean()
        ratios = []
        for (config, p), cov in means.items():
            if config == TCP or (TCP, p) not in means.index:
                continue
            ratio = cov / means[(TCP, p)]
            ratios.append(ratio)
            records.append({"config": config, "p": p, "metric": "CoV ratio FD/TCP", "value": ratio})
        for config in {k[0] for k in means.index if k[0] != TCP}:
            sub = [
                r for r in records if r["config"] == config and r["metric"] == "CoV ratio FD/TCP"
            ]
            if sub:
                records.append(
                    {
                        "config": config,
                        "p": math.nan,
                        "metric": "mean CoV ratio FD/TCP",
                        "value": float(np.mean([r["value"] for r in sub])),
                    }
                )
    table = summarise(records, ["config", "p"])
    mask = table["metric"] == "mean CoV ratio FD/TCP"
    table.loc[mask, "published"] = 1.6
    return table


def _f2_ratio(table: pd.DataFrame) -> list[Check]:
    rows = table[table["metric"] == "mean CoV ratio FD/TCP"].dropna(subset=["ours"])
    if rows.empty:
        return [Check("Free-Drop's CoV of cwnd above TCP's", None)]
    checks = [
        Check(
            f"{r['config']}: mean CoV ratio {r['ours']:.2f} > 1 (reversed: < 1)",
            bool(r["ours"] > 1),
            reversed=bool(r["ours"] < 1),
        )
        for _, r in rows.iterrows()
    ]
    overall = float(rows["ours"].mean())
    checks.append(
        Check(
            f"mean ratio over configs {overall:.2f} within 1.2..2.0 (paper ~1.6)",
            1.2 <= overall <= 2.0,
        )
    )
    return checks


def _f2_events(table: pd.DataFrame) -> list[Check]:
    """The paper's "higher rates of congestion events": at the same p, Free-Drop's higher
    throughput means more losses per second than TCP's."""
    rows = table[table["metric"] == "loss events ratio FD/TCP"].dropna(subset=["ours"])
    if rows.empty:
        return [Check("Free-Drop's loss events per second above TCP's", None)]
    checks = []
    for config, group in rows.groupby("config", sort=True):
        ratio = group["ours"]
        checks.append(
            Check(
                f"{config}: loss events/s above TCP's at every p (ratios "
                f"{', '.join(f'{v:.2f}' for v in ratio)}; reversed: below at every p)",
                bool((ratio > 1).all()),
                reversed=bool((ratio < 1).all()),
            )
        )
    return checks


# ---- F3 ------------------------------------------------------------------------------------------

F3_CASES = (
    ("50Mbps", "0.2bdp"),
    ("500Mbps", "0.2bdp"),
    ("50Mbps", "1bdp"),
    ("500Mbps", "1bdp"),
)
F3_W = 100


def _f3_scenario(cc: str, params: dict[str, Any] | None, duration: str) -> dict[str, Any]:
    flow: dict[str, Any] = {
        "cc": cc,
        "rtt": "50ms",
        "mss": MSS,
        "count": 5,
        "start_jitter": "1s",
    }
    if params:
        flow["params"] = params
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "50Mbps",
            "bottleneck_delay": "10ms",
            "buffer": "1bdp",
        },
        "flows": [flow],
    }


def _f3_sweeps(s: Settings) -> list[dict[str, Any]]:
    duration = s.pick("600s", "30s")
    seeds = s.seeds(3, 1)
    axes = {
        "topology.bottleneck_rate": ["50Mbps", "500Mbps"],
        "topology.buffer": ["0.2bdp", "1bdp"],
    }
    return [
        {
            "name": "tcp",
            "scenario": _f3_scenario("newreno", None, duration),
            "seeds": seeds,
            "axes": axes,
        },
        {
            "name": "fd",
            "scenario": _f3_scenario("freedrop", {"w": F3_W}, duration),
            "seeds": seeds,
            "axes": axes,
        },
    ]


def _f3_analyse(c: Context) -> pd.DataFrame:
    records = []
    names = {"tcp": TCP, "fd": _w_name(F3_W)}
    for sweep, config in names.items():
        for point, load in c.points(sweep):
            flows = load("flows")
            case = f"{point['bottleneck_rate']} buf {point['buffer']}"
            records.append(
                {
                    "case": case,
                    "config": config,
                    "metric": "Jain index",
                    "value": metrics.jain_index(flows["goodput_bps"]),
                }
            )
            records.append(
                {
                    "case": case,
                    "config": config,
                    "metric": "total goodput Mb/s",
                    "value": float(flows["goodput_bps"].sum()) / 1e6,
                }
            )
    return summarise(records, ["case", "config"])


def _f3_fair(table: pd.DataFrame) -> list[Check]:
    checks = []
    for rate, buf in F3_CASES:
        case = f"{rate} buf {buf}"
        tcp = value(table, "Jain index", case=case, config=TCP)
        fd = value(table, "Jain index", case=case, config=_w_name(F3_W))
        checks.append(
            check(
                f"{case}: Jain TCP {tcp:.3f}, FD {fd:.3f} both >= 0.9",
                tcp,
                fd,
                test=lambda a, b: a >= 0.9 and b >= 0.9,
            )
        )
        checks.append(
            check(
                f"{case}: |TCP - FD| = {abs(tcp - fd):.3f} <= 0.05",
                tcp,
                fd,
                test=lambda a, b: abs(a - b) <= 0.05,
            )
        )
    return checks


# ---- F4 ------------------------------------------------------------------------------------------

F4_LAMBDAS = (1.0, 5.0, 20.0)
F4_P = (1e-5, 1e-4)
F4_W = (2, 10, 20)


def _f4_analyse(c: Context) -> pd.DataFrame:
    n_paths = c.settings.pick(2000, 500)
    started = time.perf_counter()
    records = []
    for lam in F4_LAMBDAS:
        result = fluid.simulate(lam, math.inf, RTT_S, n_paths=n_paths)
        records.append(
            {
                "model": "TCP",
                "x": f"lambda={lam:g}",
                "metric": "B RTT^2 lambda",
                "value": result.throughput * RTT_S**2 * lam,
            }
        )
        records.append(
            {
                "model": "TCP",
                "x": f"lambda={lam:g}",
                "metric": "window CoV",
                "value": result.window_cov,
            }
        )
    for p in F4_P:
        for w in F4_W:
            result = fluid.simulate_packet(p, w, RTT_S, n_paths=n_paths)
            x = f"p={p:g} w={w}"
            records.append(
                {
                    "model": "FD",
                    "x": x,
                    "metric": "B RTT p sqrt(w)",
                    "value": result.throughput * RTT_S * p * math.sqrt(w),
                }
            )
            records.append(
                {
                    "model": "FD",
                    "x": x,
                    "metric": "MC / exact fluid law",
                    "value": result.throughput / fluid.fd_packet_throughput(p, w, RTT_S),
                }
            )
            records.append(
                {
                    "model": "FD",
                    "x": x,
                    "metric": "window CoV",
                    "value": result.window_cov,
                }
            )
    # The fluid model's answer to F2: the CoV of the window, Free-Drop over TCP, at p w = 2
    # (near the fluid model's largest CoV, docs/fluid.md) and at p w = 0.01.
    tcp_cov = fluid.simulate(1.0, math.inf, RTT_S, n_paths=n_paths).window_cov
    for pw in (0.01, 2.0):
        result = fluid.simulate_packet(1e-3, pw / 1e-3, RTT_S, n_paths=n_paths)
        records.append(
            {
                "model": "FD",
                "x": f"p w={pw:g}",
                "metric": "CoV ratio FD/TCP",
                "value": result.window_cov / tcp_cov,
            }
        )
    # Log-log slopes of the MC throughput: in p at each w, in w at each p.
    for w in F4_W:
        b = [fluid.simulate_packet(p, w, RTT_S, n_paths=n_paths).throughput for p in F4_P]
        records.append(
            {
                "model": "FD",
                "x": f"w={w}",
                "metric": "slope in p",
                "value": _slope(F4_P, b),
            }
        )
    for p in F4_P:
        b = [fluid.simulate_packet(p, w, RTT_S, n_paths=n_paths).throughput for w in F4_W]
        records.append(
            {
                "model": "FD",
                "x": f"p={p:g}",
                "metric": "slope in w",
                "value": _slope(F4_W, b),
            }
        )
    c.notes.append(
        f"F4: Monte Carlo with {n_paths} paths took {time.perf_counter() - started:.1f} s"
    )
    published: dict[tuple[Any, ...], float] = {}
    for lam in F4_LAMBDAS:
        published[("TCP", f"lambda={lam:g}", "B RTT^2 lambda")] = 2.0
    for w in F4_W:
        published[("FD", f"w={w}", "slope in p")] = -1.0
    for p in F4_P:
        published[("FD", f"p={p:g}", "slope in w")] = -0.5
    for pw in (0.01, 2.0):
        published[("FD", f"p w={pw:g}", "CoV ratio FD/TCP")] = 1.6
    return summarise(records, ["model", "x"], published)


def _f4_tcp(table: pd.DataFrame) -> list[Check]:
    rows = table[table["metric"] == "B RTT^2 lambda"].dropna(subset=["ours"])
    if rows.empty:
        return [Check("B RTT^2 lambda = 2", None)]
    return [
        Check(f"{r['x']}: {r['ours']:.3f} within 2% of 2", abs(r["ours"] / 2 - 1) <= 0.02)
        for _, r in rows.iterrows()
    ]


def _f4_fd(table: pd.DataFrame) -> list[Check]:
    checks = []
    for metric, want in (("slope in p", -1.0), ("slope in w", -0.5)):
        for _, r in table[table["metric"] == metric].iterrows():
            checks.append(
                Check(
                    f"{r['x']}: {metric} {r['ours']:.3f} within 0.05 of {want}",
                    abs(r["ours"] - want) <= 0.05,
                )
            )
    for _, r in table[table["metric"] == "MC / exact fluid law"].iterrows():
        checks.append(
            Check(
                f"{r['x']}: MC / exact law {r['ours']:.4f} within 2%",
                abs(r["ours"] - 1) <= 0.02,
            )
        )
    return checks or [Check("the 1/(p sqrt w) law", None)]


# ---- the studies ---------------------------------------------------------------------------------

STUDIES: tuple[Study, ...] = (
    Study(
        id="F1",
        slug="response-curves",
        title="Response curves of TCP and Free-Drop TCP, and the shifted curves (Fig. 1)",
        source=SOURCE,
        setup="one flow over a 600 Mb/s link with random loss p, RTT 50 ms, 10-minute runs, "
        "3 seeds; goodput vs p for TCP, Free-Drop at fixed w and with w(p) for the shift eps; "
        "fluid-model curves at the same p; least-squares fit of beta/sqrt(p - eps)",
        warmup=(
            "30 s (quick: 10 s): goodput is the mean delivered rate sampled after it, so the "
            "slow-start overshoot does not count"
        ),
        assumptions=F12_ASSUME,
        sweeps=_f1_sweeps,
        analyse=_f1_analyse,
        claims=(
            Claim(
                "TCP's response curve is B ~ 1/sqrt(p)",
                "log-log slope of goodput in p within -0.6..-0.4",
                _f1_tcp_slope,
            ),
            Claim(
                "Free-Drop's throughput is above TCP's and falls faster with p (B ~ 1/(p sqrt w))",
                "every fixed-w Free-Drop curve above TCP at every p and with a more negative "
                "log-log slope (reversed: below at every p, or flatter)",
                _f1_fd_better,
            ),
            Claim(
                "w(p) = Theta((p - eps)/p^2) shifts the TCP curve by eps along p",
                "the fit of beta/sqrt(p - eps) to each shifted curve (a straight line through "
                "1/B^2 against p, eps free on both sides) gives eps within a factor 2 of the "
                "designed shift; reversed if eps < 0",
                _f1_shift,
            ),
        ),
        figure=FigureSpec(
            "goodput vs loss rate p", x="p", hue="config", xlabel="loss probability p"
        ),
        algorithms=("newreno", "freedrop"),
    ),
    Study(
        id="F2",
        slug="cwnd-cov",
        title="Coefficient of variation of cwnd, TCP vs Free-Drop TCP (Fig. 2)",
        source=SOURCE,
        setup="the runs of F1; cwnd sampled every 100 ms after a 30 s warm-up; CoV per run; "
        "ratio Free-Drop / TCP at each p",
        warmup=(
            "30 s (quick: 10 s) for the CoV of cwnd; loss events and window cuts per second count "
            "the whole run"
        ),
        assumptions=(*F12_ASSUME, "quick mode: 60 s runs, warm-up 10 s"),
        sweeps=_f1_sweeps,
        analyse=_f2_analyse,
        claims=(
            Claim(
                "Free-Drop's CoV of cwnd is about 1.6 times TCP's",
                "every Free-Drop configuration's mean ratio above 1 (reversed: below 1), and the "
                "mean over configurations within 1.2..2.0",
                _f2_ratio,
            ),
            Claim(
                "Free-Drop's higher throughput comes with a higher rate of congestion events",
                "for every Free-Drop configuration, loss events per second (the flow's drops "
                "over its run) above TCP's at every p where both ran; reversed if below at "
                "every p. Window cuts per second are reported beside them",
                _f2_events,
            ),
        ),
        figure=FigureSpec(
            "CoV of cwnd vs loss rate p",
            x="p",
            hue="config",
            xlabel="loss probability p",
        ),
        algorithms=("newreno", "freedrop"),
    ),
    Study(
        id="F3",
        slug="free-drop-fairness",
        title="Jain's index of 5 flows, TCP vs Free-Drop TCP (Fig. 3)",
        source=SOURCE,
        setup="dumbbell, 5 flows of one protocol, RTT 50 ms; bottleneck 50 and 500 Mb/s; "
        "DropTail queue 20% and 100% of the BDP; Jain index of the flows' goodputs",
        warmup=(
            "none: each flow's goodput is taken over its whole run (flows start in the first "
            "second)"
        ),
        assumptions=(
            *COMMON,
            "RTT 50 ms, 600 s (quick: 30 s), flows start in the first second",
            f"Free-Drop w = {F3_W} (the paper gives none for Fig. 3)",
            "no random loss: only queue overflow",
        ),
        sweeps=_f3_sweeps,
        analyse=_f3_analyse,
        claims=(
            Claim(
                "Both TCP and Free-Drop are fair, with little to choose between them",
                "in each of the four cases both Jain indices >= 0.9 and within 0.05 of each other",
                _f3_fair,
            ),
        ),
        figure=FigureSpec("Jain index and goodput, 5 flows"),
        algorithms=("newreno", "freedrop"),
    ),
    Study(
        id="F4",
        slug="free-drop-fluid",
        title="Fluid model of TCP and Free-Drop TCP: Monte Carlo vs the closed forms",
        source=SOURCE,
        setup="Monte Carlo of dW = dt/RTT with Poisson losses (ccsim.fluid), RTT 50 ms; TCP "
        "(every loss halves) and Free-Drop (a loss halves only after another within T = w/B)",
        warmup=(
            "the first 30 loss cycles of each Monte Carlo path are discarded "
            "(ccsim.fluid.simulate's default)"
        ),
        assumptions=(
            "the fluid model of section 2 as docs/fluid.md states it",
            "lambda = p B, T = w / B (the paper's substitution)",
            "quick mode: 500 paths instead of 2000",
        ),
        sweeps=lambda s: [],
        analyse=_f4_analyse,
        claims=(
            Claim(
                "TCP: B RTT^2 lambda = 2",
                "each Monte Carlo value within 2% of 2",
                _f4_tcp,
            ),
            Claim(
                "Free-Drop: B ~ 1/(RTT p sqrt(w)) at small p",
                "log-log slope in p within 0.05 of -1 and in w within 0.05 of -0.5; Monte "
                "Carlo within 2% of the exact fluid law",
                _f4_fd,
            ),
        ),
        figure=FigureSpec("fluid model"),
        algorithms=(),
    ),
)
