"""F1: the response curves of TCP and Free-Drop TCP (throughput against loss probability)."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
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
    band,
    compare,
    measure,
    summarise,
)
from ccsim.studies.free_drop.common import (
    DEFAULT,
    FIT_BETA,
    FIT_EPS,
    FIXED,
    GOODPUT,
    LAW_LINK_SHARE,
    LAW_PW,
    LAW_SLOPE,
    MAX_WINDOW,
    MSS,
    NS2_QUEUE,
    RATE,
    RATE_BPS,
    RATIO,
    RTT_S,
    SLOPE,
    SOURCE,
    TCP,
    TCP_EPS,
    W_SLOPE,
    WALL,
    Variant,
    f1_f2_assumptions,
    fit_shift,
    fixed_window_name,
    log_log_slope,
    mean_of,
    quantity_records,
    set_published,
    shifted_name,
)

# ---- F1 and F2: one flow over a lossy link ------------------------------------------------------


def f1_plan(s: Settings) -> dict[str, Any]:
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


def law_range(plan: Mapping[str, Any], w: int) -> list[float]:
    """The p of the plan where eq. (4) applies at window ``w`` (see :data:`LAW_PW`)."""
    return [
        p
        for p in plan["p"]
        if p * w <= LAW_PW + 1e-12
        and fluid.fd_asymptotic_throughput(p, w, RTT_S) * MSS * 8 <= LAW_LINK_SHARE * RATE_BPS
    ]


def w_range(plan: Mapping[str, Any], p: float) -> list[int]:
    """The fixed windows of the plan in the law's range at ``p``."""
    return [w for w in plan["w"] if p in law_range(plan, w)]


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


def f1_sweeps(s: Settings, variant: Variant = DEFAULT) -> list[dict[str, Any]]:
    plan = f1_plan(s)
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
        return fixed_window_name(int(sweep.removeprefix("fd-w")))
    eps = float(sweep.removeprefix("fd-eps").split("-p")[0])
    return shifted_name(eps)


def lossy_points(c: Context) -> list[dict[str, Any]]:
    """One record per finished run of F1/F2: config, p, seed, goodput after the warm-up, CoV of
    cwnd after the warm-up, window cuts and losses per second over the run, engine wall time."""
    warmup = f1_plan(c.settings)["warmup"]
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


def config_p_values(plan: Mapping[str, Any], config: str) -> list[float]:
    """The p a Free-Drop configuration of the plan runs at."""
    if config.startswith("FD w="):
        return list(plan["p"])
    for eps, ps in plan["eps"].items():
        if config == shifted_name(eps):
            return list(ps)
    return []


def free_drop_configs(plan: Mapping[str, Any]) -> list[str]:
    return [*(fixed_window_name(w) for w in plan["w"]), *(shifted_name(e) for e in plan["eps"])]


def _curve(table: pd.DataFrame, metric: str, config: str, ps: Sequence[float]) -> list[Quantity]:
    return [measure(table, metric, config=config, p=p) for p in ps]


def mean_over(table: pd.DataFrame, metric: str, config: str, ps: Sequence[float]) -> Quantity:
    """The per-seed mean of ``metric`` over ``ps`` (empty when a p was not run)."""
    curve = _curve(table, metric, config, ps)
    return Quantity.combine(mean_of, *curve, bounds=NONNEGATIVE) if curve else Quantity()


def _slope_q(table: pd.DataFrame, config: str, ps: Sequence[float], metric: str) -> Quantity:
    """The per-seed log-log slope of ``metric`` in p over ``ps`` (empty below 2 points)."""
    if len(ps) < 2:
        return Quantity()
    return Quantity.combine(lambda *v: log_log_slope(ps, v), *_curve(table, metric, config, ps))


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
    for config in [TCP, *free_drop_configs(plan)]:
        ps = plan["p"] if config == TCP else config_p_values(plan, config)
        records += quantity_records(
            _slope_q(table, config, ps, GOODPUT), config=config, p=nan, metric=SLOPE
        )
    for w in plan["w"]:
        config, ps = fixed_window_name(w), law_range(plan, w)
        records += quantity_records(
            _slope_q(table, config, ps, GOODPUT), config=config, p=nan, metric=LAW_SLOPE
        )
        ratios = [
            Quantity.combine(lambda a, b: math.log(a / b) if a > 0 and b > 0 else nan, fd, tcp)
            for fd, tcp in zip(
                _curve(table, GOODPUT, config, ps), _curve(table, GOODPUT, TCP, ps), strict=True
            )
        ]
        if ratios:
            mean_log = Quantity.combine(mean_of, *ratios)
            records += quantity_records(
                mean_log.map(math.exp, NONNEGATIVE), config=config, p=nan, metric=RATIO
            )
    for p in plan["p"]:
        ws = w_range(plan, p)
        if len(ws) < 2:
            continue
        points = [measure(table, GOODPUT, config=fixed_window_name(w), p=p) for w in ws]
        slope = Quantity.combine(lambda *v, ws=ws: log_log_slope(ws, v), *points)
        records += quantity_records(slope, config=FIXED, p=p, metric=W_SLOPE)
    eps_tcp, beta_tcp = _fit_q(table, TCP, plan["p"])
    records += quantity_records(eps_tcp, config=TCP, p=nan, metric=FIT_EPS)
    records += quantity_records(beta_tcp, config=TCP, p=nan, metric=FIT_BETA)
    for eps, ps in plan["eps"].items():
        config = shifted_name(eps)
        fitted, beta = _fit_q(table, config, ps)
        tcp_same, _ = _fit_q(table, TCP, ps)
        records += quantity_records(fitted, config=config, p=nan, metric=FIT_EPS)
        records += quantity_records(beta, config=config, p=nan, metric=FIT_BETA)
        records += quantity_records(tcp_same, config=config, p=nan, metric=TCP_EPS)
    return records


F1_BOUNDS = {
    GOODPUT: NONNEGATIVE,
    RATIO: NONNEGATIVE,
    FIT_BETA: NONNEGATIVE,
    WALL: NONNEGATIVE,
    SLOPE: ANY,
}


def _f1_analyse(c: Context) -> pd.DataFrame:
    plan = f1_plan(c.settings)
    points = lossy_points(c)
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
            *((f"fluid {fixed_window_name(w)}", w) for w in plan["w"]),
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
        set_published(table, FIT_EPS, eps, config=shifted_name(eps))
    set_published(table, SLOPE, -0.5, config=TCP)
    for w in plan["w"]:
        set_published(table, LAW_SLOPE, -1.0, config=fixed_window_name(w))
    table.loc[table["metric"] == W_SLOPE, "published"] = -0.5
    table.attrs["plan"] = plan
    if len(frame):
        _f1_loglog(c, frame, plan)
    return table


def _f1_loglog(c: Context, frame: pd.DataFrame, plan: dict[str, Any]) -> None:
    """``F1-loglog.png`` next to the study's files: the packet-level points (mean over seeds),
    the fluid model's curves, and the fitted shifted curves beta/sqrt(p - eps), log-log. A
    configuration has one colour in both panels (TCP is NewReno's)."""
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import outside_legend, palette, tidy_log_ticks

    store = next(r for r in c.results.values() if r is not None).store
    path = store.root.parent.parent / "F1-loglog.png"
    means = frame.groupby(["config", "p"], as_index=False)["goodput_bps"].mean()
    to_mbps = MSS * 8 / 1e6
    grid = np.geomspace(min(plan["p"]), max(plan["p"]), 60)
    configs = [TCP, *(fixed_window_name(w) for w in plan["w"])]
    shifted = [shifted_name(eps) for eps in plan["eps"]]
    looks = palette.looks([*configs, *shifted], {TCP: "newreno"})
    figure = Figure(figsize=(13, 5.2), layout="constrained")
    left, right = figure.subplots(1, 2)
    for config in configs:
        rows = means[means["config"] == config]
        look = looks[config]
        left.loglog(
            rows["p"],
            rows["goodput_bps"] / 1e6,
            ls="none",
            marker=look.marker,
            color=look.colour,
            label=f"{config} (ccsim)",
        )
        w = math.inf if config == TCP else int(config.removeprefix("FD w="))
        curve = [fluid.fd_packet_throughput(p, w, RTT_S) * to_mbps for p in grid]
        left.loglog(grid, curve, alpha=0.6, label=f"{config} (fluid)", **look.line())
    left.axhline(600, color=palette.NEUTRAL, ls=":", label="link rate")
    left.set_title("F1: packet level (dots) and fluid model (lines)")
    tcp = means[means["config"] == TCP]
    right.loglog(
        tcp["p"],
        tcp["goodput_bps"] / 1e6,
        ls="none",
        marker="o",
        color=looks[TCP].colour,
        label="TCP (ccsim)",
    )
    for eps in plan["eps"]:
        name = shifted_name(eps)
        rows = means[means["config"] == name]
        if rows.empty:
            continue
        colour = looks[name].colour
        right.loglog(
            rows["p"],
            rows["goodput_bps"] / 1e6,
            ls="none",
            marker="s",
            color=colour,
            label=f"{name} (ccsim, w(p))",
        )
        target = np.geomspace(max(eps * 1.05, min(rows["p"])), max(rows["p"]), 60)
        right.loglog(
            target,
            np.sqrt(2 / (target - eps)) / RTT_S * to_mbps,
            ":",
            color=colour,
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
                color=colour,
                label=f"fit beta/sqrt(p - {eps_fit:.2g})",
            )
    right.set_title("shifted curves: w(p) = k (p - eps)/p^2")
    for ax in (left, right):
        ax.set_xlabel("loss probability p")
        ax.set_ylabel("goodput (Mb/s)")
        ax.grid(alpha=0.3, which="both")
        tidy_log_ticks(ax)
        outside_legend(ax, fontsize=7)
    figure.savefig(path, dpi=110)
    c.notes.append(f"F1: log-log figure {path}")


def plan_of(table: pd.DataFrame) -> Mapping[str, Any]:
    """The plan the table was made with (a full run's for hand-made tables)."""
    plan = table.attrs.get("plan")
    return plan if plan is not None else f1_plan(Settings())


def f1_tcp_slope(table: pd.DataFrame) -> list[Check]:
    return [
        band(
            "TCP: log-log slope of goodput in p over the fixed-w grid of p",
            measure(table, SLOPE, config=TCP),
            -0.6,
            -0.4,
        )
    ]


def f1_law(table: pd.DataFrame) -> list[Check]:
    plan = plan_of(table)
    checks = []
    for w in plan["w"]:
        ps = law_range(plan, w)
        if len(ps) >= 2:
            checks.append(
                band(
                    f"{fixed_window_name(w)}: log-log slope of goodput in p over the law's range "
                    f"(p = {', '.join(f'{p:g}' for p in ps)})",
                    measure(table, LAW_SLOPE, config=fixed_window_name(w)),
                    -1.25,
                    -0.75,
                    reversal=(-0.5, math.inf),
                )
            )
    for p in plan["p"]:
        ws = w_range(plan, p)
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


def f1_above(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{fixed_window_name(w)}: goodput over TCP's at the same p and seed, geometric mean over "
            "the law's range",
            measure(table, RATIO, config=fixed_window_name(w)),
            ">",
            1.0,
        )
        for w in plan_of(table)["w"]
    ]


def f1_shift(table: pd.DataFrame) -> list[Check]:
    plan = plan_of(table)
    return [
        band(
            f"{shifted_name(eps)}: fitted eps of the shifted curve",
            measure(table, FIT_EPS, config=shifted_name(eps)),
            eps / 2,
            2 * eps,
            reversal=(-math.inf, 0.0),
        )
        for eps in plan["eps"]
    ]


F1_MAX_REPLICATES = 12


def f1_study(variant: Variant) -> Study:
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
        assumptions=f1_f2_assumptions(variant),
        sweeps=functools.partial(f1_sweeps, variant=variant),
        analyse=_f1_analyse,
        claims=(
            Claim(
                "TCP's response curve is B ~ 1/sqrt(p) (eq. 2; Fig. 1's eps = 0 curve)",
                "the per-seed log-log slope of TCP's goodput in p over p = 1e-4..1e-2 lies in "
                "-0.6..-0.4",
                f1_tcp_slope,
            ),
            Claim(
                "At fixed w, Free-Drop's throughput is greater than TCP's (abstract: 'the "
                "greater asymptotic throughput for a given window size w')",
                "in the law's range (p w <= 0.1 and eq. 4's throughput at most half the link "
                "rate), each fixed-w goodput over TCP's at the same p and seed, geometric mean "
                "over the range, above 1 (reversed below)",
                f1_above,
            ),
            Claim(
                "At fixed w, Free-Drop's throughput follows B ~ 1/(p sqrt(w)) rather than "
                "1/sqrt(p) (abstract; eq. 4, 'this formula in fact holds')",
                "in the law's range (p w <= 0.1 and eq. 4's throughput at most half the link "
                "rate): each fixed-w curve's per-seed log-log slope in p within -1.25..-0.75 "
                "(reversed above -0.5, TCP's); at each p with two such w, the slope in w within "
                "-0.75..-0.25 (reversed above 0)",
                f1_law,
            ),
            Claim(
                "w(p) = Theta((p - eps)/p^2) shifts TCP's response curve by eps along p "
                "(Fig. 1a-c)",
                "for each eps, the per-seed fit of beta/sqrt(p - eps) to the shifted curve (a "
                "line through 1/B^2 against p, eps free on both sides) gives a fitted eps "
                "between half and twice the designed one; reversed below 0 (shifted the other "
                "way)",
                f1_shift,
            ),
        ),
        figure=FigureSpec(
            "goodput vs loss rate p", x="p", hue="config", xlabel="loss probability p"
        ),
        algorithms=("newreno", "freedrop"),
        max_replicates=F1_MAX_REPLICATES,
    )
