"""H1: goodput over a lossy link, TCP-Fusion against the other high-speed algorithms."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ccsim.studies.core import (
    NONNEGATIVE,
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Settings,
    Study,
    compare,
    measure,
    summarise,
    within,
)
from ccsim.studies.tcp_fusion.common import (
    ACCESS_BUFFER,
    ALGORITHMS,
    CAPACITY_MBPS,
    DROPS,
    GOODPUT,
    LOSSES,
    LOSSY,
    MSS,
    OTHERS,
    PROPOSAL,
    QUICK_ALGORITHMS,
    QUICK_LOSSES,
    RANDOM_LOSSES,
    RTT,
    SOURCE,
    WINNERS,
)

H1_ASSUME = (
    (
        "ns2 profile with SACK recovery ([stack] sack = true, ns-2's SACK agent): with NewReno "
        "recovery (one hole per RTT) the slow-start overshoot into the BDP buffer keeps every "
        "NewReno-recovery algorithm near 1 Mb/s at p <= 1e-4 (the recovery rule, not the "
        "algorithm)"
    ),
    "MSS 1000 B (ns-2 packetSize_ default): goodput ceiling 96.15 Mb/s",
    (
        "Fig. 2 dumbbell: 1 Gb/s access links carrying the flow's delay, each with a "
        "DropTail queue of ns-2's default limit_ 50, 49 waiting packets (the paper states only the router's "
        "buffer), 100 Mb/s 1 ms "
        "bottleneck, buffer 1 BDP at 40 ms (482 packets), Bernoulli loss p on the bottleneck, "
        "data direction only"
    ),
    (
        "300 s runs, 3 seeds, up to 12 while a check is inconclusive (quick: 30 s, 3 seeds, 4 loss rates, 7 algorithms); throughput is "
        "the whole run's goodput (the slow start is about 1 % of it); at p = 1e-6 a run sees "
        "about 3.6 random losses, so the smallest p is resolved only coarsely"
    ),
    "every algorithm at its ccsim defaults (Libra, fusion-rf: k and gamma for a 40 ms RTT)",
)


def _plan(s: Settings) -> dict[str, Any]:
    return {
        "algorithms": s.pick(ALGORITHMS, QUICK_ALGORITHMS),
        "p": list(s.pick(LOSSES, QUICK_LOSSES)),
        "duration": s.pick("300s", "30s"),
        "seeds": s.seeds(3, 3),
    }


def scenario(cc: str, duration: str, loss: float = 0.0, rtt: str = RTT) -> dict[str, Any]:
    """One flow of ``cc`` over the Fig. 2 dumbbell with loss ``loss`` on the bottleneck."""
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "100Mbps",
            "bottleneck_delay": "1ms",
            "access_rate": "1Gbps",
            "access_buffer": ACCESS_BUFFER,
            "buffer": "1bdp",
            "loss": loss,
        },
        "stack": {"sack": True},
        "flows": [{"cc": cc, "rtt": rtt, "mss": MSS}],
    }


def h1_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _plan(s)
    return [
        {
            "name": cc,
            "scenario": scenario(cc, plan["duration"]),
            "seeds": plan["seeds"],
            "axes": {"topology.loss": plan["p"]},
        }
        for cc in plan["algorithms"]
    ]


def _h1_analyse(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for sweep in c.results:
        if c.results[sweep] is None:
            continue
        for point, load in c.points(sweep):
            flow = load("flows").iloc[0]
            p = float(point["loss"])
            key = {"algorithm": sweep, "loss": p, "seed": int(point["seed"])}
            duration = _plan(c.settings)["duration"]
            sent = float(flow["goodput_bps"]) * float(duration.removesuffix("s")) / (8 * MSS)
            for metric, number in (
                (GOODPUT, float(flow["goodput_bps"]) / 1e6),
                (RANDOM_LOSSES, p * sent),
                (DROPS, float(flow["drops"])),
            ):
                records.append(key | {"metric": metric, "value": number})
    table = summarise(
        records,
        ["algorithm", "loss"],
        bounds=dict.fromkeys((GOODPUT, RANDOM_LOSSES, DROPS), NONNEGATIVE),
    )
    if len(table):
        table = table.sort_values(["metric", "algorithm", "loss"], kind="stable")
        table = table.reset_index(drop=True)
        _h1_loglog(c, table)
    return table


def _h1_loglog(c: Context, table: pd.DataFrame) -> None:
    """``H1-loglog.png`` next to the study's files: goodput against p on log-log axes, each
    algorithm in its colour (the paper's winners drawn thicker)."""
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import outside_legend, palette, tidy_log_ticks

    store = next(r for r in c.results.values() if r is not None).store
    path = store.root.parent.parent / "H1-loglog.png"
    rows = table[table["metric"] == GOODPUT]
    looks = palette.looks(str(a) for a in rows["algorithm"])
    figure = Figure(figsize=(9.0, 5.2), layout="constrained")
    ax = figure.subplots()
    for algorithm, group in rows.groupby("algorithm", sort=False):
        group = group.sort_values("loss")
        width = 2.2 if algorithm in (*WINNERS, "fusion") else 1.2
        ax.loglog(
            group["loss"],
            group["ours"],
            ms=3,
            lw=width,
            label=str(algorithm),
            **looks[str(algorithm)].points(),
        )
    ax.axhline(CAPACITY_MBPS, color=palette.NEUTRAL, ls=":", label="link goodput ceiling")
    ax.set_xlabel("random loss probability p (bottleneck)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title("H1: one flow, RTT 40 ms, 100 Mb/s bottleneck (ccsim; winners thick)")
    ax.grid(alpha=0.3, which="both")
    tidy_log_ticks(ax)
    outside_legend(ax, fontsize=8)
    figure.savefig(path, dpi=110)
    c.notes.append(f"H1: log-log figure {path}")


# ---- the claims (criteria fixed before the first full run) ----------------------------------------


def _algorithms(table: pd.DataFrame) -> list[str]:
    """The algorithms with goodput rows, in the table's order."""
    rows = table[table["metric"] == GOODPUT]
    return list(dict.fromkeys(rows["algorithm"]))


def _losses_run(table: pd.DataFrame, algorithm: str) -> list[float]:
    """The loss rates at which ``algorithm`` has goodput, ascending."""
    rows = table[(table["metric"] == GOODPUT) & (table["algorithm"] == algorithm)]
    return sorted(float(p) for p in rows[rows["runs"] > 0]["loss"])


def _goodput(table: pd.DataFrame, algorithm: str, p: float) -> Quantity:
    return measure(table, GOODPUT, algorithm=algorithm, loss=p)


def _h1_near_link(table: pd.DataFrame) -> list[Check]:
    checks = []
    for algorithm in _algorithms(table):
        for p in (p for p in _losses_run(table, algorithm) if p < 1e-5):
            checks.append(
                compare(
                    f"{algorithm}, p = {p:g}: goodput",
                    _goodput(table, algorithm, p),
                    ">=",
                    0.9 * CAPACITY_MBPS,
                    unit="Mb/s",
                    reversal=None,
                    required=f">= {0.9 * CAPACITY_MBPS:.1f} (90 % of the ceiling)",
                )
            )
    return checks or [Check.no_data("goodput at p < 1e-5")]


def _h1_degrade(table: pd.DataFrame) -> list[Check]:
    checks = []
    for algorithm in _algorithms(table):
        losses = _losses_run(table, algorithm)
        if len(losses) < 2:
            checks.append(Check.no_data(f"{algorithm}: goodput at two loss rates"))
            continue
        ratio = _goodput(table, algorithm, losses[-1]) / _goodput(table, algorithm, losses[0])
        checks.append(
            compare(
                f"{algorithm}: goodput at p = {losses[-1]:g} / at p = {losses[0]:g}",
                ratio,
                "<",
                0.2,
                reversal=1.0,
                required="< 0.2 (reversed: > 1)",
            )
        )
    return checks or [Check.no_data("goodput against p")]


def lossy_points(table: pd.DataFrame, algorithms: Sequence[str]) -> list[float]:
    """The loss rates of the lossy range (``LOSSY``) that every one of ``algorithms`` ran."""
    run = [set(_losses_run(table, a)) for a in algorithms]
    if not run:
        return []
    return [p for p in sorted(set.intersection(*run)) if any(math.isclose(p, q) for q in LOSSY)]


def lossy_mean(table: pd.DataFrame, algorithm: str, points: Sequence[float]) -> Quantity:
    """Per seed, the geometric mean of an algorithm's goodput over the loss rates ``points``."""
    goodputs = [_goodput(table, algorithm, p) for p in points]
    if not goodputs or any(not q.has_data for q in goodputs):
        return Quantity()
    return Quantity.combine(
        lambda *g: float(np.exp(np.mean(np.log(g)))) if min(g) > 0 else math.nan,
        *goodputs,
        bounds=NONNEGATIVE,
    )


def _h1_winners(table: pd.DataFrame) -> list[Check]:
    present = set(_algorithms(table))
    others = [a for a in OTHERS if a in present]
    winners = [a for a in WINNERS if a in present]
    points = lossy_points(table, [*winners, *others])
    if not others or not points:
        return [Check.no_data("the algorithms' goodput over p = 1e-4 .. 1e-2")]
    range_ = f"p = {points[0]:g} .. {points[-1]:g} ({len(points)} rates)"
    means = [lossy_mean(table, a, points) for a in others]
    best = Quantity.combine(lambda *g: max(g), *means, bounds=NONNEGATIVE)
    median = Quantity.combine(lambda *g: float(np.median(g)), *means, bounds=NONNEGATIVE)
    return [
        compare(
            f"{winner}: geometric-mean goodput over {range_} vs the best of the "
            f"{len(others)} others in each seed",
            lossy_mean(table, winner, points) if winner in present else Quantity(),
            ">",
            best,
            unit="Mb/s",
            reversal=median,
        )
        for winner in WINNERS
    ]


def _pair_close(a_name: str, b_name: str, tolerance: float) -> Any:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        losses = sorted(set(_losses_run(table, a_name)) | set(_losses_run(table, b_name)))
        return [
            within(
                f"p = {p:g}: {a_name} goodput vs {b_name}'s",
                _goodput(table, a_name, p),
                _goodput(table, b_name, p),
                tolerance,
                unit="Mb/s",
            )
            for p in losses
        ] or [Check.no_data(f"{a_name} vs {b_name}")]

    return evaluate


H1 = Study(
    id="H1",
    slug="fusion-lossy-link",
    title="Throughput of one flow against random loss, Reno to TCP-Fusion (Fig. 3)",
    source=SOURCE,
    setup="one flow, RTT 40 ms, over a 100 Mb/s 1 ms bottleneck with a BDP buffer and "
    "random loss p = 1e-6 .. 1e-1; goodput vs p for Reno, NewReno, Fusion, the proposal "
    "(fusion-rf), AReno, FAST, Libra, Compound, Westwood and the high-speed TCPs",
    warmup="none: goodput and drops over each whole run",
    assumptions=H1_ASSUME,
    sweeps=h1_sweeps,
    analyse=_h1_analyse,
    claims=(
        Claim(
            "every algorithm uses nearly the link bandwidth when p < 1e-5",
            "for each algorithm and each p < 1e-5, goodput >= 90 % of the 96.15 Mb/s "
            "goodput ceiling (failed when clearly below)",
            _h1_near_link,
        ),
        Claim(
            "throughput degrades as the loss rate increases",
            "for each algorithm, per seed, goodput at the largest p / goodput at the "
            "smallest < 0.2 (reversed: > 1)",
            _h1_degrade,
        ),
        Claim(
            "the proposal, AReno and FAST are more efficient on the lossy link than the others",
            "per seed, the geometric mean of goodput over p = 1e-4 .. 1e-2 of each of "
            "fusion-rf, areno and fast above the best of every other algorithm's (Fusion, "
            "equal to the proposal here, excluded); reversed when clearly below the others' "
            "median",
            _h1_winners,
        ),
        Claim(
            "the proposal behaves as Fusion on one 40 ms flow",
            "fusion-rf goodput within 5 % of fusion's at every p (the interval of the "
            "relative difference within +-5 %)",
            _pair_close(PROPOSAL, "fusion", 0.05),
        ),
        Claim(
            "Libra (gamma set for a 40 ms RTT) behaves as Reno",
            "libra goodput within 20 % of reno's at every p (the interval of the relative "
            "difference within +-20 %)",
            _pair_close("libra", "reno", 0.20),
        ),
    ),
    figure=FigureSpec(
        "goodput vs random loss p (log-log in H1-loglog.png)",
        x="loss",
        hue="algorithm",
        xlabel="loss probability p",
    ),
    algorithms=ALGORITHMS,
    max_replicates=12,
)
