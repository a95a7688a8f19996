"""H2: fairness between flows of different round-trip times."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
    CORRELATION,
    NONNEGATIVE,
    UNIT,
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
)
from ccsim.studies.tcp_fusion.common import ACCESS_BUFFER, MSS, PROPOSAL, SOURCE

# ---- H2: four flows of one protocol at 40/50/80/100 ms, DropTail and RED -------------------------

#: Table I: the four flows' RTTs, ms (flow i of a run has RTTS[i]).
RTTS_MS = (40, 50, 80, 100)
H2_ALGORITHMS = ("reno", "fusion", PROPOSAL)
QUEUES = ("droptail", "red")
#: ns-2's automatic RED configuration (its defaults since 2001: thresh_ = maxthresh_ = 0,
#: q_weight_ = -1, targetdelay_ 5 ms, mean_pktsize_ 500 B, linterm_ 10, gentle_) worked out for
#: the 100 Mb/s bottleneck: min_th = max(5, 0.005 C / 2) = 62.5, max_th = 3 min_th and
#: w_q = 1 - exp(-1 / C), with C = 100e6 / (8 x 500) = 25000 packets/s.
RED = {"min_th": 62.5, "max_th": 187.5, "w_q": 1.0 - math.exp(-1.0 / 25000.0), "max_p": 0.1}
START_JITTER = "5s"

FLOW_GOODPUT = "goodput Mb/s"
LOST = "packets lost"
JAIN = "Jain index"
VARIANCE = "throughput variance (Mb/s)^2"
TOP_SHARE = "largest flow's share"
TOP_FEWEST = "largest flow loses least (share of runs)"
TOP_LOSSES = "largest flow's losses / others' mean"
RANK = "rank correlation RTT-goodput"
ALL = "all"

#: Tables II-IV: packet losses per flow (40/50/80/100 ms) and in total, and Jain's index (RED).
_H2_LOSSES = {
    ("droptail", PROPOSAL): (79, 6, 70, 135, 290),
    ("droptail", "fusion"): (14, 1, 7, 6, 28),
    ("droptail", "reno"): (7, 2, 4, 9, 22),
    ("red", PROPOSAL): (124, 131, 149, 167, 571),
    ("red", "fusion"): (71, 71, 40, 24, 206),
    ("red", "reno"): (36, 35, 27, 16, 114),
}
H2_PUBLISHED: dict[tuple[Any, ...], float] = {
    (queue, algorithm, flow, LOST): float(n)
    for (queue, algorithm), counts in _H2_LOSSES.items()
    for flow, n in zip([f"{r} ms" for r in RTTS_MS] + [ALL], counts, strict=True)
} | {
    ("red", PROPOSAL, ALL, JAIN): 0.997487,
    ("red", "fusion", ALL, JAIN): 0.811747,
    ("red", "reno", ALL, JAIN): 0.833822,
}

#: The range of every H2 quantity.
H2_BOUNDS = {
    FLOW_GOODPUT: NONNEGATIVE,
    LOST: NONNEGATIVE,
    JAIN: UNIT,
    VARIANCE: NONNEGATIVE,
    TOP_SHARE: UNIT,
    TOP_FEWEST: UNIT,
    TOP_LOSSES: NONNEGATIVE,
    RANK: CORRELATION,
}

H2_ASSUME = (
    "ns2 profile with SACK recovery, MSS 1000 B, as H1",
    (
        "Fig. 2 dumbbell, 100 Mb/s 1 ms bottleneck, buffer 1 BDP at 100 ms (1202 packets), "
        "access links 1 Gb/s with ns-2's default DropTail queues (limit_ 50: 49 waiting); "
        "four flows of one protocol with base RTTs 40, 50, 80, 100 ms (Table I)"
    ),
    (
        "RED: ns-2's automatic configuration for 100 Mb/s (its defaults since 2001): "
        "min_th 62.5, max_th 187.5 packets, w_q = 1 - exp(-1/25000), max_p 0.1, gentle"
    ),
    (
        "each flow starts at a random time in [0, 5 s) drawn per seed: the seeds are Fig. 6's "
        "start-time changes; 20 seeds, up to 40 while a check is inconclusive (quick: 3)"
    ),
    (
        "runs of 120 s (quick: 40 s); throughput and losses are counted after a 20 s warm-up "
        "(quick: 10 s), which leaves out the slow-start overshoot (hundreds to thousands of "
        "packets into the 1202-packet buffer, which Tables II-III cannot include)"
    ),
    "cwnd and delivered rate sampled every second (Fig. 4-5 in H2-throughput.png)",
)


def _h2_plan(s: Settings) -> dict[str, Any]:
    return {
        "duration": s.pick("120s", "40s"),
        "warmup": s.pick(20.0, 10.0),
        "seeds": s.seeds(20, 3),
    }


def h2_scenario(cc: str, queue: str, duration: str) -> dict[str, Any]:
    """Four ``cc`` flows at 40/50/80/100 ms over the Fig. 2 dumbbell with a ``queue``."""
    topology: dict[str, Any] = {
        "kind": "dumbbell",
        "bottleneck_rate": "100Mbps",
        "bottleneck_delay": "1ms",
        "access_rate": "1Gbps",
        "access_buffer": ACCESS_BUFFER,
        "buffer": "1bdp",
        "bdp_rtt": "100ms",
        "queue": queue,
    }
    if queue == "red":
        topology["red"] = dict(RED)
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": topology,
        "stack": {"sack": True},
        "trace": {"sample_interval": "1s", "drops": True},
        "flows": [
            {
                "cc": cc,
                "rtt": f"{rtt}ms",
                "mss": MSS,
                "start_jitter": START_JITTER,
                "label": f"{rtt} ms",
            }
            for rtt in RTTS_MS
        ],
    }


def h2_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _h2_plan(s)
    return [
        {
            "name": f"{cc}-{queue}",
            "scenario": h2_scenario(cc, queue, plan["duration"]),
            "seeds": plan["seeds"],
        }
        for queue in QUEUES
        for cc in H2_ALGORITHMS
    ]


def late_goodput_mbps(series: pd.DataFrame, flows: int, warmup: float) -> np.ndarray:
    """Each flow's mean delivered rate after ``warmup`` seconds, Mb/s (flow order)."""
    late = series[series["t_s"] > warmup]
    rates = late.groupby("flow")["rate_bps"].mean()
    return np.array([float(rates.get(i, 0.0)) / 1e6 for i in range(flows)])


def late_losses(drops: pd.DataFrame, flows: int, warmup: float) -> np.ndarray:
    """Packets each flow lost after ``warmup`` seconds (flow order)."""
    late = drops[drops["t_s"] > warmup]
    counts = late.groupby("flow").size()
    return np.array([float(counts.get(i, 0)) for i in range(flows)])


def rank_correlation(x: Sequence[float], y: Sequence[float]) -> float:
    from scipy.stats import spearmanr

    if len(set(y)) < 2:
        return math.nan
    return float(spearmanr(x, y).statistic)


def _h2_run_records(
    queue: str, cc: str, seed: int, goodput: np.ndarray, lost: np.ndarray
) -> list[dict[str, Any]]:
    base = {"queue": queue, "algorithm": cc, "seed": seed}
    records = []
    for rtt, g, n in zip(RTTS_MS, goodput, lost, strict=True):
        flow = {**base, "flow": f"{rtt} ms"}
        records += [
            flow | {"metric": FLOW_GOODPUT, "value": g},
            flow | {"metric": LOST, "value": n},
        ]
    top = int(np.argmax(goodput))
    others = float(np.delete(lost, top).mean())
    whole = {**base, "flow": ALL}
    for metric, number in (
        (LOST, float(lost.sum())),
        (JAIN, metrics.jain_index(goodput)),
        (VARIANCE, metrics.throughput_variance(goodput)),
        (TOP_SHARE, float(goodput[top] / goodput.sum()) if goodput.sum() > 0 else math.nan),
        (TOP_FEWEST, float(lost[top] == lost.min())),
        (TOP_LOSSES, float(lost[top]) / others if others > 0 else math.nan),
        (RANK, rank_correlation(RTTS_MS, list(goodput))),
    ):
        records.append(whole | {"metric": metric, "value": number})
    return records


def _h2_analyse(c: Context) -> pd.DataFrame:
    warmup = _h2_plan(c.settings)["warmup"]
    records: list[dict[str, Any]] = []
    for sweep in c.results:
        if c.results[sweep] is None:
            continue
        cc, queue = sweep.rsplit("-", 1)
        for point, load in c.points(sweep):
            goodput = late_goodput_mbps(load("series"), len(RTTS_MS), warmup)
            lost = late_losses(load("drops"), len(RTTS_MS), warmup)
            records += _h2_run_records(queue, cc, int(point["seed"]), goodput, lost)
    table = summarise(records, ["queue", "algorithm", "flow"], H2_PUBLISHED, H2_BOUNDS)
    if len(table) and any(r is not None for r in c.results.values()):
        _h2_throughput_figure(c)
    return table


def _h2_throughput_figure(c: Context) -> None:
    """``H2-throughput.png``: each flow's delivered rate over time in the first seed's run of
    every configuration (the paper's Fig. 4 and 5): a panel per algorithm and queue, a line per
    flow in its RTT's colour (the same in every panel), one legend under the panels."""
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette
    from ccsim.studies.figures import figure_legend

    figure = Figure(figsize=(13, 7.0), layout="constrained")
    axes = figure.subplots(2, 3, sharex=True, sharey=True, squeeze=False)
    looks = palette.looks(f"{rtt} ms" for rtt in RTTS_MS)
    store = None
    seeds: set[int] = set()
    for row, queue in enumerate(QUEUES):
        for col, cc in enumerate(H2_ALGORITHMS):
            ax = axes[row][col]
            ax.set_title(f"{cc}, {queue}", fontsize=10)
            ax.grid(alpha=0.3)
            sweep = f"{cc}-{queue}"
            if c.results.get(sweep) is None:
                continue
            store = c.results[sweep].store
            point, load = next(iter(c.points(sweep)))
            seeds.add(int(point["seed"]))
            series = load("series")
            for i, rtt in enumerate(RTTS_MS):
                mine = series[series["flow"] == i]
                label = f"{rtt} ms"
                ax.plot(
                    mine["t_s"], mine["rate_bps"] / 1e6, lw=0.9, label=label, **looks[label].line()
                )
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    for ax in axes[:, 0]:
        ax.set_ylabel("delivered (Mb/s, 1 s bins)")
    figure_legend(figure, list(axes.flat), fontsize=9)
    seed = f"seed {min(seeds)}" if len(seeds) == 1 else "first seed"
    figure.suptitle(f"H2: four flows of one protocol, RTT 40/50/80/100 ms (ccsim, {seed})")
    if store is not None:
        path = store.root.parent.parent / "H2-throughput.png"
        figure.savefig(path, dpi=100)
        c.notes.append(f"H2: throughput over time {path}")


SHORT = ["40 ms", "50 ms"]
LONG = ["80 ms", "100 ms"]


def _h2(table: pd.DataFrame, metric: str, queue: str, cc: str, flow: Any = ALL) -> Quantity:
    return measure(table, metric, queue=queue, algorithm=cc, flow=flow)


def _h2_short_wins(queue: str, with_losses: bool = False) -> Any:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        checks = []
        for cc in ("reno", "fusion"):
            checks.append(
                compare(
                    f"{cc}, {queue}: goodput per flow of the 40/50 ms flows vs the 80/100 ms flows",
                    _h2(table, FLOW_GOODPUT, queue, cc, SHORT),
                    ">",
                    _h2(table, FLOW_GOODPUT, queue, cc, LONG),
                    unit="Mb/s",
                )
            )
            if with_losses:
                checks.append(
                    compare(
                        f"{cc}, {queue}: packets lost by the 40 ms flow vs the 100 ms flow",
                        _h2(table, LOST, queue, cc, "40 ms"),
                        ">",
                        _h2(table, LOST, queue, cc, "100 ms"),
                    )
                )
        return checks

    return evaluate


def _h2_proposal_dominance(table: pd.DataFrame) -> list[Check]:
    """The paper compares the proposal under DropTail with Reno and Fusion under DropTail
    (Fig. 4 (a)-(c), Table II)."""
    checks = []
    for other in ("reno", "fusion"):
        checks.append(
            compare(
                f"DropTail: the largest flow's share of goodput, proposal vs {other}",
                _h2(table, TOP_SHARE, "droptail", PROPOSAL),
                ">",
                _h2(table, TOP_SHARE, "droptail", other),
            )
        )
    for other in ("reno", "fusion"):
        checks.append(
            compare(
                f"DropTail: rank correlation of RTT and goodput (-1: in RTT order), proposal vs "
                f"{other}",
                _h2(table, RANK, "droptail", PROPOSAL),
                ">",
                _h2(table, RANK, "droptail", other),
            )
        )
    checks.append(
        compare(
            "DropTail, proposal: the largest flow's losses / the other three flows' mean",
            _h2(table, TOP_LOSSES, "droptail", PROPOSAL),
            "<",
            1.0,
        )
    )
    return checks


def _h2_losses(queue: str, pairs: Sequence[tuple[str, str]]) -> Any:
    """Total losses after warm-up: the first of each pair loses more (a paired comparison)."""

    def evaluate(table: pd.DataFrame) -> list[Check]:
        return [
            compare(
                f"{queue}: packets lost by all four flows, {first} vs {second}",
                _h2(table, LOST, queue, first),
                ">",
                _h2(table, LOST, queue, second),
            )
            for first, second in pairs
        ]

    return evaluate


def _h2_fairest(metric: str, lower_is_better: bool) -> Any:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        mine = _h2(table, metric, "red", PROPOSAL)
        checks = [
            compare(
                f"RED: {metric}, proposal vs {other}",
                mine,
                "<" if lower_is_better else ">",
                _h2(table, metric, "red", other),
            )
            for other in ("fusion", "reno")
        ]
        if not lower_is_better:
            checks.append(compare(f"RED: proposal's {metric}", mine, ">=", 0.95, reversal=None))
        return checks

    return evaluate


H2 = Study(
    id="H2",
    slug="fusion-rtt-fairness",
    title="Four flows of one protocol at 40/50/80/100 ms, DropTail and RED (Fig. 4-6, "
    "Tables II-IV)",
    source=SOURCE,
    setup="four flows of Reno, Fusion or the proposal (fusion-rf) with RTTs 40, 50, 80, "
    "100 ms over the 100 Mb/s bottleneck with a BDP buffer (at 100 ms), DropTail or RED; "
    "per-flow throughput and losses, Jain's index and the variance of the four throughputs "
    "over start-time changes",
    warmup="20 s (quick: 10 s): throughput and losses are counted after it",
    assumptions=H2_ASSUME,
    sweeps=h2_sweeps,
    analyse=_h2_analyse,
    claims=(
        Claim(
            "DropTail: Reno's and Fusion's short-RTT flows take more of the link than the "
            "long-RTT flows",
            "for reno and fusion under DropTail, mean goodput of the 40 and 50 ms flows > "
            "that of the 80 and 100 ms flows (reversed: lower)",
            _h2_short_wins("droptail"),
        ),
        Claim(
            "DropTail: under the proposal one flow dominates, the RTT order is lost, and "
            "the dominating flow seldom loses packets",
            "under DropTail, paired by seed: the largest flow's share of goodput higher for "
            "the proposal than for Reno and for Fusion; the RTT-goodput rank correlation "
            "higher (less in RTT order) than Reno's and Fusion's; the proposal's largest flow "
            "loses fewer packets than the mean of its other three flows (ratio < 1); each "
            "reversed when clearly the other way",
            _h2_proposal_dominance,
        ),
        Claim(
            "DropTail: the proposal loses far more packets than Fusion and Reno "
            "(Table II: 290 vs 28 and 22)",
            "total losses after warm-up under DropTail, paired by seed: proposal > fusion "
            "and proposal > reno (reversed: lower)",
            _h2_losses("droptail", [(PROPOSAL, "fusion"), (PROPOSAL, "reno")]),
        ),
        Claim(
            "RED: Reno's and Fusion's throughputs stay in RTT order, and their short-RTT "
            "flows lose more (Table III)",
            "for reno and fusion under RED, mean goodput of the 40/50 ms flows > that of "
            "the 80/100 ms flows, and the 40 ms flow's losses > the 100 ms flow's "
            "(reversed: lower)",
            _h2_short_wins("red", with_losses=True),
        ),
        Claim(
            "RED: the proposal is the fairest (Table IV: Jain 0.997 vs 0.812 and 0.834)",
            "Jain's index under RED, paired by seed: proposal > fusion and > reno "
            "(reversed: lower), and the proposal's >= 0.95 (failed when clearly below)",
            _h2_fairest(JAIN, lower_is_better=False),
        ),
        Claim(
            "the proposal's throughput variance over start times is lower than the others' "
            "(Fig. 6)",
            "the four throughputs' variance (eq. 11) under RED, paired by seed: proposal "
            "< fusion and < reno (reversed: higher)",
            _h2_fairest(VARIANCE, lower_is_better=True),
        ),
        Claim(
            "RED: the proposal loses most, Fusion next, Reno least (Table III: 571, 206, 114)",
            "total losses after warm-up under RED, paired by seed: proposal > fusion and "
            "fusion > reno (each step reversed when lower)",
            _h2_losses("red", [(PROPOSAL, "fusion"), ("fusion", "reno")]),
        ),
    ),
    figure=FigureSpec("per-flow goodput, losses, Jain's index, variance (ccsim vs paper)"),
    algorithms=H2_ALGORITHMS,
    max_replicates=40,
)
