"""Seed 002, TCP-Fusion with RTT fairness: studies H1-H3 of docs/studies.md (shared material).

H2 (four flows of one protocol at 40/50/80/100 ms, DropTail and RED; Fig. 4-6, Tables II-IV)
and H3 (a 40 ms Reno flow against a Reno, Fusion or proposal flow whose RTT is swept, RED;
Fig. 7) follow H1 below; their assumptions are in ``H2_ASSUME`` and ``H3_ASSUME``.

H1 is the paper's Fig. 3: one flow with a 40 ms RTT over the Fig. 2 dumbbell (1 Gb/s access
links, a 100 Mb/s 1 ms bottleneck with a BDP buffer, 1 Gb/s 1 ms receiver links) with random
loss p on the bottleneck, throughput against p for every algorithm the paper compares: Reno,
Fusion, the proposal (``fusion-rf``, Fusion whose loss mode grows by k RTT^2 with
k = 1/0.04^2), Adaptive Reno, FAST, Libra and the high-speed TCPs.

Choices the paper leaves open (printed with the study):

* the ns2 profile with SACK recovery (``[stack] sack = true``, ns-2's SACK agent). The paper
  ran ns-2 but does not say which TCP agent; with the ns2 profile's NewReno recovery (one hole
  repaired per RTT) the slow-start overshoot into a BDP buffer at 100 Mb/s leaves every
  NewReno-recovery algorithm (Fusion, AReno, Compound, the high-speed family) near 1 Mb/s at
  p <= 1e-4, which measures the recovery rule and not the congestion control the figure
  compares. The other ns2 knobs stay (initial window 2, no delayed ACKs).
* MSS 1000 B (ns-2's ``packetSize_`` default); the link's goodput ceiling is then
  100 Mb/s x 1000/1040 = 96.15 Mb/s.
* runs of 300 s, 3 seeds: at p = 1e-6 a flow at the link rate sees about 3.6 random losses per
  run, so the smallest p is resolved only coarsely (the table's ``random losses`` rows give the
  expected count, p x packets sent).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ccsim import metrics
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

SOURCE = "seed 002 (TCP-Fusion with RTT fairness)"
MSS = 1000
RTT = "40ms"
#: Goodput ceiling of the 100 Mb/s bottleneck with 1000-byte payloads in 1040-byte packets.
CAPACITY_MBPS = 100.0 * MSS / (MSS + 40)
PROPOSAL = "fusion-rf"
#: The paper's winners on the lossy link (Fig. 3): the proposal, Adaptive Reno and FAST.
WINNERS = (PROPOSAL, "areno", "fast")
#: Every other algorithm of Fig. 3 (Fusion is left out: the paper says the proposal equals it).
OTHERS = (
    "reno",
    "newreno",
    "libra",
    "compound",
    "westwood",
    "highspeed",
    "scalable",
    "bic",
    "cubic",
    "htcp",
)
ALGORITHMS = ("reno", "newreno", "fusion", PROPOSAL, "areno", "fast", "libra", *OTHERS[3:])
QUICK_ALGORITHMS = ("reno", "fusion", PROPOSAL, "areno", "fast", "libra", "scalable")
LOSSES = (1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
QUICK_LOSSES = (3e-6, 1e-4, 1e-3, 1e-2)
#: The lossy range where the paper's winners are judged (Fig. 3's spread between curves).
LOSSY = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2)
GOODPUT = "goodput Mb/s"
RANDOM_LOSSES = "random losses per run (expected)"
DROPS = "drops per run (random + queue)"

H1_ASSUME = (
    (
        "ns2 profile with SACK recovery ([stack] sack = true, ns-2's SACK agent): with NewReno "
        "recovery (one hole per RTT) the slow-start overshoot into the BDP buffer keeps every "
        "NewReno-recovery algorithm near 1 Mb/s at p <= 1e-4 (the recovery rule, not the "
        "algorithm)"
    ),
    "MSS 1000 B (ns-2 packetSize_ default): goodput ceiling 96.15 Mb/s",
    (
        "Fig. 2 dumbbell: 1 Gb/s access links carrying the flow's delay, 100 Mb/s 1 ms "
        "bottleneck, buffer 1 BDP at 40 ms (482 packets), Bernoulli loss p on the bottleneck, "
        "data direction only"
    ),
    (
        "300 s runs, 3 seeds (quick: 30 s, 1 seed, 4 loss rates, 7 algorithms); throughput is "
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
        "seeds": s.seeds(3, 1),
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
            "buffer": "1bdp",
            "loss": loss,
        },
        "stack": {"sack": True},
        "flows": [{"cc": cc, "rtt": rtt, "mss": MSS}],
    }


def _h1_sweeps(s: Settings) -> list[dict[str, Any]]:
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
            records.append(
                {
                    "algorithm": sweep,
                    "loss": p,
                    "metric": GOODPUT,
                    "value": float(flow["goodput_bps"]) / 1e6,
                }
            )
            duration = _plan(c.settings)["duration"]
            sent = float(flow["goodput_bps"]) * float(duration.removesuffix("s")) / (8 * MSS)
            for metric, number in ((RANDOM_LOSSES, p * sent), (DROPS, float(flow["drops"]))):
                records.append({"algorithm": sweep, "loss": p, "metric": metric, "value": number})
    table = summarise(records, ["algorithm", "loss"])
    if len(table):
        table = table.sort_values(["metric", "algorithm", "loss"], kind="stable")
        table = table.reset_index(drop=True)
        _h1_loglog(c, table)
    return table


def _h1_loglog(c: Context, table: pd.DataFrame) -> None:
    """``H1-loglog.png`` next to the study's files: goodput against p on log-log axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    store = next(r for r in c.results.values() if r is not None).store
    path = store.root.parent.parent / "H1-loglog.png"
    rows = table[table["metric"] == GOODPUT]
    figure, ax = plt.subplots(figsize=(7.5, 5.2))
    for algorithm, group in rows.groupby("algorithm", sort=False):
        group = group.sort_values("loss")
        style = "-" if algorithm in (*WINNERS, "fusion") else "--"
        ax.loglog(group["loss"], group["ours"], style, marker="o", ms=3, label=str(algorithm))
    ax.axhline(CAPACITY_MBPS, color="grey", ls=":", label="link goodput ceiling")
    ax.set_xlabel("random loss probability p (bottleneck)")
    ax.set_ylabel("goodput Mb/s")
    ax.set_title("H1: one flow, RTT 40 ms, 100 Mb/s bottleneck (ccsim)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    c.notes.append(f"H1: log-log figure {path}")


# ---- the claims (criteria fixed before the first full run) ----------------------------------------


def _goodputs(table: pd.DataFrame) -> pd.DataFrame:
    """Goodput rows: algorithm, loss, ours (Mb/s)."""
    rows = table[table["metric"] == GOODPUT]
    return rows[["algorithm", "loss", "ours"]].dropna()


def _algorithms(table: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(_goodputs(table)["algorithm"]))


def _h1_near_link(table: pd.DataFrame) -> list[Check]:
    rows = _goodputs(table)
    small = rows[rows["loss"] < 1e-5]
    checks = []
    for algorithm in _algorithms(table):
        mine = small[small["algorithm"] == algorithm]["ours"]
        low = float(mine.min()) if len(mine) else math.nan
        checks.append(
            check(
                f"{algorithm}: lowest goodput at p < 1e-5 = {low:.1f} Mb/s >= "
                f"{0.9 * CAPACITY_MBPS:.1f} (90 % of the ceiling)",
                low,
                test=lambda v: v >= 0.9 * CAPACITY_MBPS,
            )
        )
    return checks or [Check("goodput at p < 1e-5", None)]


def _h1_degrade(table: pd.DataFrame) -> list[Check]:
    rows = _goodputs(table)
    checks = []
    for algorithm in _algorithms(table):
        mine = rows[rows["algorithm"] == algorithm].sort_values("loss")
        if len(mine) < 2:
            checks.append(Check(f"{algorithm}: goodput at the extremes of p", None))
            continue
        first, last = float(mine["ours"].iloc[0]), float(mine["ours"].iloc[-1])
        checks.append(
            check(
                f"{algorithm}: goodput at p = {mine['loss'].iloc[-1]:g} ({last:.2f}) < 20 % of "
                f"that at p = {mine['loss'].iloc[0]:g} ({first:.1f})",
                first,
                last,
                test=lambda a, b: b < 0.2 * a,
                reverse=lambda a, b: b > a,
            )
        )
    return checks or [Check("goodput against p", None)]


def lossy_mean(table: pd.DataFrame, algorithm: str) -> float:
    """Geometric mean of an algorithm's goodput over the lossy range (NaN if any point lacks)."""
    rows = _goodputs(table)
    values = []
    for p in sorted(set(rows["loss"])):
        if not any(math.isclose(p, q) for q in LOSSY):
            continue
        mine = rows[(rows["algorithm"] == algorithm) & (rows["loss"] == p)]["ours"]
        if not len(mine) or float(mine.iloc[0]) <= 0:
            return math.nan
        values.append(float(mine.iloc[0]))
    return float(np.exp(np.mean(np.log(values)))) if values else math.nan


def _h1_winners(table: pd.DataFrame) -> list[Check]:
    present = set(_algorithms(table))
    others = [a for a in OTHERS if a in present]
    other_means = {a: lossy_mean(table, a) for a in others}
    finite = [v for v in other_means.values() if not math.isnan(v)]
    best = max(finite) if finite else math.nan
    best_name = max(other_means, key=lambda a: other_means[a]) if finite else "-"
    median = float(np.median(finite)) if finite else math.nan
    checks = []
    for winner in WINNERS:
        mine = lossy_mean(table, winner) if winner in present else math.nan
        checks.append(
            check(
                f"{winner}: lossy-range geometric mean {mine:.1f} Mb/s > best other "
                f"({best_name}, {best:.1f}); reversed below the others' median ({median:.1f})",
                mine,
                best,
                median,
                test=lambda a, b, m: a > b,
                reverse=lambda a, b, m: a < m,
            )
        )
    return checks


def _pair_close(a_name: str, b_name: str, tolerance: float) -> Any:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        rows = _goodputs(table)
        checks = []
        for p in sorted(set(rows["loss"])):
            a = value(table, GOODPUT, algorithm=a_name, loss=p)
            b = value(table, GOODPUT, algorithm=b_name, loss=p)
            checks.append(
                check(
                    f"p = {p:g}: {a_name} {a:.2f} vs {b_name} {b:.2f} Mb/s, within {tolerance:.0%}",
                    a,
                    b,
                    test=lambda x, y: abs(x - y) <= tolerance * max(x, y),
                )
            )
        return checks or [Check(f"{a_name} vs {b_name}", None)]

    return evaluate


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

H2_ASSUME = (
    "ns2 profile with SACK recovery, MSS 1000 B, as H1",
    (
        "Fig. 2 dumbbell, 100 Mb/s 1 ms bottleneck, buffer 1 BDP at 100 ms (1202 packets); "
        "four flows of one protocol with base RTTs 40, 50, 80, 100 ms (Table I)"
    ),
    (
        "RED: ns-2's automatic configuration for 100 Mb/s (its defaults since 2001): "
        "min_th 62.5, max_th 187.5 packets, w_q = 1 - exp(-1/25000), max_p 0.1, gentle"
    ),
    (
        "each flow starts at a random time in [0, 5 s) drawn per seed: the seeds are Fig. 6's "
        "start-time changes; 20 seeds (quick: 2)"
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
        "seeds": s.seeds(20, 2),
    }


def h2_scenario(cc: str, queue: str, duration: str) -> dict[str, Any]:
    """Four ``cc`` flows at 40/50/80/100 ms over the Fig. 2 dumbbell with a ``queue``."""
    topology: dict[str, Any] = {
        "kind": "dumbbell",
        "bottleneck_rate": "100Mbps",
        "bottleneck_delay": "1ms",
        "access_rate": "1Gbps",
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


def _h2_sweeps(s: Settings) -> list[dict[str, Any]]:
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


def _rank_correlation(x: Sequence[float], y: Sequence[float]) -> float:
    from scipy.stats import spearmanr

    if len(set(y)) < 2:
        return math.nan
    return float(spearmanr(x, y).statistic)


def _h2_run_records(
    queue: str, cc: str, goodput: np.ndarray, lost: np.ndarray
) -> list[dict[str, Any]]:
    base = {"queue": queue, "algorithm": cc}
    records = []
    for rtt, g, n in zip(RTTS_MS, goodput, lost, strict=True):
        flow = {**base, "flow": f"{rtt} ms"}
        records += [
            flow | {"metric": FLOW_GOODPUT, "value": g},
            flow | {"metric": LOST, "value": n},
        ]
    top = int(np.argmax(goodput))
    whole = {**base, "flow": ALL}
    for metric, number in (
        (LOST, float(lost.sum())),
        (JAIN, metrics.jain_index(goodput)),
        (VARIANCE, metrics.throughput_variance(goodput)),
        (TOP_SHARE, float(goodput[top] / goodput.sum()) if goodput.sum() > 0 else math.nan),
        (TOP_FEWEST, float(lost[top] == lost.min())),
        (RANK, _rank_correlation(RTTS_MS, list(goodput))),
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
        for _, load in c.points(sweep):
            goodput = late_goodput_mbps(load("series"), len(RTTS_MS), warmup)
            lost = late_losses(load("drops"), len(RTTS_MS), warmup)
            records += _h2_run_records(queue, cc, goodput, lost)
    table = summarise(records, ["queue", "algorithm", "flow"], H2_PUBLISHED)
    if len(table) and any(r is not None for r in c.results.values()):
        _h2_throughput_figure(c)
    return table


def _h2_throughput_figure(c: Context) -> None:
    """``H2-throughput.png``: each flow's delivered rate over time in the first seed's run of
    every configuration (the paper's Fig. 4 and 5)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(2, 3, figsize=(13, 6.5), sharex=True, sharey=True, squeeze=False)
    store = None
    for row, queue in enumerate(QUEUES):
        for col, cc in enumerate(H2_ALGORITHMS):
            ax = axes[row][col]
            ax.set_title(f"{cc}, {queue}", fontsize=10)
            sweep = f"{cc}-{queue}"
            if c.results.get(sweep) is None:
                continue
            store = c.results[sweep].store
            point, load = next(iter(c.points(sweep)))
            series = load("series")
            for i, rtt in enumerate(RTTS_MS):
                mine = series[series["flow"] == i]
                ax.plot(mine["t_s"], mine["rate_bps"] / 1e6, lw=0.9, label=f"{rtt} ms")
            ax.grid(alpha=0.3)
            ax.set_xlabel(f"time s (seed {int(point['seed'])})")
    axes[0][0].set_ylabel("delivered Mb/s (1 s)")
    axes[1][0].set_ylabel("delivered Mb/s (1 s)")
    axes[0][0].legend(fontsize=7)
    figure.suptitle("H2: four flows of one protocol, RTT 40/50/80/100 ms (ccsim)")
    figure.tight_layout()
    if store is not None:
        path = store.root.parent.parent / "H2-throughput.png"
        figure.savefig(path, dpi=100)
        c.notes.append(f"H2: throughput over time {path}")
    plt.close(figure)


def _short_long(table: pd.DataFrame, queue: str, cc: str) -> tuple[float, float]:
    def g(rtt: int) -> float:
        return value(table, FLOW_GOODPUT, queue=queue, algorithm=cc, flow=f"{rtt} ms")

    return (g(40) + g(50)) / 2, (g(80) + g(100)) / 2


def _h2_short_wins(queue: str, with_losses: bool = False) -> Any:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        checks = []
        for cc in ("reno", "fusion"):
            short, long_ = _short_long(table, queue, cc)
            checks.append(
                check(
                    f"{cc}, {queue}: 40/50 ms flows {short:.1f} > 80/100 ms flows {long_:.1f} "
                    "Mb/s (mean per flow)",
                    short,
                    long_,
                    test=lambda a, b: a > b,
                    reverse=lambda a, b: a < b,
                )
            )
            if with_losses:
                first = value(table, LOST, queue=queue, algorithm=cc, flow="40 ms")
                last = value(table, LOST, queue=queue, algorithm=cc, flow="100 ms")
                checks.append(
                    check(
                        f"{cc}, {queue}: the 40 ms flow loses more ({first:.0f}) than the "
                        f"100 ms flow ({last:.0f})",
                        first,
                        last,
                        test=lambda a, b: a > b,
                        reverse=lambda a, b: a < b,
                    )
                )
        return checks

    return evaluate


def _h2_proposal_dominance(table: pd.DataFrame) -> list[Check]:
    def top(queue: str) -> float:
        return value(table, TOP_SHARE, queue=queue, algorithm=PROPOSAL, flow=ALL)

    fewest = value(table, TOP_FEWEST, queue="droptail", algorithm=PROPOSAL, flow=ALL)
    rank = value(table, RANK, queue="droptail", algorithm=PROPOSAL, flow=ALL)
    reno_rank = value(table, RANK, queue="droptail", algorithm="reno", flow=ALL)
    return [
        check(
            f"largest flow's share under DropTail {top('droptail'):.2f} > under RED "
            f"{top('red'):.2f}",
            top("droptail"),
            top("red"),
            test=lambda a, b: a > b,
            reverse=lambda a, b: a < b,
        ),
        check(
            f"the largest flow loses least in {fewest:.0%} of DropTail runs (>= 50 %)",
            fewest,
            test=lambda f: f >= 0.5,
        ),
        check(
            f"throughput less ordered by RTT than Reno's: rank correlation {rank:.2f} > "
            f"Reno's {reno_rank:.2f}",
            rank,
            reno_rank,
            test=lambda a, b: a > b,
            reverse=lambda a, b: a < b,
        ),
    ]


def _total_losses(table: pd.DataFrame, queue: str, cc: str) -> float:
    return value(table, LOST, queue=queue, algorithm=cc, flow=ALL)


def _h2_droptail_losses(table: pd.DataFrame) -> list[Check]:
    mine = _total_losses(table, "droptail", PROPOSAL)
    checks = []
    for other in ("fusion", "reno"):
        theirs = _total_losses(table, "droptail", other)
        checks.append(
            check(
                f"DropTail: proposal loses {mine:.0f} > {other} {theirs:.0f}",
                mine,
                theirs,
                test=lambda a, b: a > b,
                reverse=lambda a, b: a < b,
            )
        )
    return checks


def _h2_red_losses(table: pd.DataFrame) -> list[Check]:
    order = [PROPOSAL, "fusion", "reno"]
    totals = [_total_losses(table, "red", cc) for cc in order]
    return [
        check(
            f"RED: {order[i]} loses {totals[i]:.0f} > {order[i + 1]} {totals[i + 1]:.0f}",
            totals[i],
            totals[i + 1],
            test=lambda a, b: a > b,
            reverse=lambda a, b: a < b,
        )
        for i in range(2)
    ]


def _h2_fairest(metric: str, lower_is_better: bool) -> Any:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        mine = value(table, metric, queue="red", algorithm=PROPOSAL, flow=ALL)
        checks = []
        for other in ("fusion", "reno"):
            theirs = value(table, metric, queue="red", algorithm=other, flow=ALL)
            sign = "<" if lower_is_better else ">"
            better = (lambda a, b: a < b) if lower_is_better else (lambda a, b: a > b)
            worse = (lambda a, b: a > b) if lower_is_better else (lambda a, b: a < b)
            checks.append(
                check(
                    f"RED: proposal's {metric} {mine:.3g} {sign} {other}'s {theirs:.3g}",
                    mine,
                    theirs,
                    test=better,
                    reverse=worse,
                )
            )
        if not lower_is_better:
            checks.append(
                check(
                    f"RED: proposal's {metric} {mine:.3f} >= 0.95", mine, test=lambda a: a >= 0.95
                )
            )
        return checks

    return evaluate


# ---- H3: a 40 ms Reno flow against one Reno / Fusion / proposal flow of swept RTT, RED ------------

H3_COMPETITORS = ("reno", "fusion", PROPOSAL)
H3_RTTS_MS = (20, 40, 60, 80, 100, 140, 200)
H3_QUICK_RTTS_MS = (20, 40, 100, 200)
RENO_GOODPUT = "Reno (40 ms) goodput Mb/s"
OTHER_GOODPUT = "competitor goodput Mb/s"
RENO_SHARE = "Reno (40 ms) share"

H3_ASSUME = (
    "ns2 profile with SACK recovery, MSS 1000 B, as H1",
    (
        "Fig. 2 dumbbell, 100 Mb/s 1 ms bottleneck, buffer 1 BDP at 40 ms (481 packets), "
        "RED as H2 (ns-2's automatic configuration)"
    ),
    "competitor RTTs 20, 40, 60, 80, 100, 140, 200 ms (quick: 20, 40, 100, 200)",
    (
        "both flows start at random times in [0, 5 s); runs of 120 s (quick: 40 s), goodput "
        "after a 20 s warm-up (quick: 10 s); 5 seeds (quick: 2)"
    ),
)


def _h3_plan(s: Settings) -> dict[str, Any]:
    return {
        "rtts": s.pick(H3_RTTS_MS, H3_QUICK_RTTS_MS),
        "duration": s.pick("120s", "40s"),
        "warmup": s.pick(20.0, 10.0),
        "seeds": s.seeds(5, 2),
    }


def h3_scenario(competitor: str, rtt_ms: int, duration: str) -> dict[str, Any]:
    """A 40 ms Reno flow and one ``competitor`` flow at ``rtt_ms``, RED, BDP buffer at 40 ms."""
    topology = {
        "kind": "dumbbell",
        "bottleneck_rate": "100Mbps",
        "bottleneck_delay": "1ms",
        "access_rate": "1Gbps",
        "buffer": "1bdp",
        "bdp_rtt": RTT,
        "queue": "red",
        "red": dict(RED),
    }
    flow = {"mss": MSS, "start_jitter": START_JITTER}
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": topology,
        "stack": {"sack": True},
        "trace": {"sample_interval": "1s"},
        "flows": [
            {"cc": "reno", "rtt": RTT, "label": "reno 40 ms", **flow},
            {"cc": competitor, "rtt": f"{rtt_ms}ms", "label": competitor, **flow},
        ],
    }


def _h3_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _h3_plan(s)
    return [
        {
            "name": competitor,
            "scenario": h3_scenario(competitor, plan["rtts"][0], plan["duration"]),
            "seeds": plan["seeds"],
            "axes": {"flows.1.rtt": [f"{r}ms" for r in plan["rtts"]]},
        }
        for competitor in H3_COMPETITORS
    ]


def _h3_analyse(c: Context) -> pd.DataFrame:
    warmup = _h3_plan(c.settings)["warmup"]
    records: list[dict[str, Any]] = []
    for sweep in c.results:
        if c.results[sweep] is None:
            continue
        for point, load in c.points(sweep):
            rtt_ms = float(str(point["rtt"]).removesuffix("ms"))
            reno, other = late_goodput_mbps(load("series"), 2, warmup)
            key = {"competitor": sweep, "rtt_ms": rtt_ms}
            share = reno / (reno + other) if reno + other > 0 else math.nan
            for metric, number in (
                (RENO_GOODPUT, reno),
                (OTHER_GOODPUT, other),
                (RENO_SHARE, share),
            ):
                records.append(key | {"metric": metric, "value": number})
    table = summarise(records, ["competitor", "rtt_ms"])
    if len(table):
        table = table.sort_values(["metric", "competitor", "rtt_ms"], kind="stable")
        table = table.reset_index(drop=True)
    return table


def _curve(table: pd.DataFrame, metric: str, competitor: str) -> pd.DataFrame:
    rows = table[(table["metric"] == metric) & (table["competitor"] == competitor)]
    return rows[["rtt_ms", "ours"]].dropna().sort_values("rtt_ms")


def _spread(table: pd.DataFrame, competitor: str) -> float:
    """max / min of the competitor's goodput over the swept RTTs (NaN without two points)."""
    curve = _curve(table, OTHER_GOODPUT, competitor)["ours"]
    if len(curve) < 2 or float(curve.min()) <= 0:
        return math.nan
    return float(curve.max() / curve.min())


def _falls_with_rtt(table: pd.DataFrame, competitor: str) -> Check:
    curve = _curve(table, OTHER_GOODPUT, competitor)
    rho = (
        _rank_correlation(list(curve["rtt_ms"]), list(curve["ours"]))
        if len(curve) > 2
        else math.nan
    )
    return check(
        f"{competitor}'s goodput falls as its RTT grows: rank correlation {rho:.2f} <= -0.8",
        rho,
        test=lambda r: r <= -0.8,
        reverse=lambda r: r >= 0.5,
    )


def _h3_reno(table: pd.DataFrame) -> list[Check]:
    reno = value(table, RENO_GOODPUT, competitor="reno", rtt_ms=40.0)
    other = value(table, OTHER_GOODPUT, competitor="reno", rtt_ms=40.0)
    return [
        check(
            f"equal RTTs: the two Reno flows get {reno:.1f} and {other:.1f} Mb/s (ratio in "
            "[0.7, 1.43])",
            reno,
            other,
            test=lambda a, b: 0.7 <= b / a <= 1 / 0.7,
        ),
        _falls_with_rtt(table, "reno"),
    ]


def _h3_fusion(table: pd.DataFrame) -> list[Check]:
    reno = value(table, RENO_GOODPUT, competitor="fusion", rtt_ms=40.0)
    fusion = value(table, OTHER_GOODPUT, competitor="fusion", rtt_ms=40.0)
    return [
        check(
            f"equal RTTs: Fusion {fusion:.1f} > Reno {reno:.1f} Mb/s",
            fusion,
            reno,
            test=lambda a, b: a > b,
            reverse=lambda a, b: a < 0.9 * b,
        ),
        _falls_with_rtt(table, "fusion"),
    ]


def _h3_constant(table: pd.DataFrame) -> list[Check]:
    mine, reno = _spread(table, PROPOSAL), _spread(table, "reno")
    return [
        check(
            f"proposal's goodput max/min over RTT {mine:.2f} <= 1.5",
            mine,
            test=lambda s: s <= 1.5,
        ),
        check(
            f"proposal's max/min {mine:.2f} < the competing Reno's {reno:.2f}",
            mine,
            reno,
            test=lambda a, b: a < b,
            reverse=lambda a, b: a > b,
        ),
    ]


def _h3_friendly(table: pd.DataFrame) -> list[Check]:
    curve = _curve(table, RENO_SHARE, PROPOSAL)
    return [
        check(
            f"RTT {rtt:g} ms: the 40 ms Reno flow keeps {share:.0%} of the two flows' goodput "
            "(>= 30 %)",
            share,
            test=lambda v: v >= 0.3,
            reverse=lambda v: v < 0.15,
        )
        for rtt, share in zip(curve["rtt_ms"], curve["ours"], strict=True)
    ] or [Check("the Reno flow's share against the proposal", None)]


STUDIES: tuple[Study, ...] = (
    Study(
        id="H1",
        slug="fusion-lossy-link",
        title="Throughput of one flow against random loss, Reno to TCP-Fusion (Fig. 3)",
        source=SOURCE,
        setup="one flow, RTT 40 ms, over a 100 Mb/s 1 ms bottleneck with a BDP buffer and "
        "random loss p = 1e-6 .. 1e-1; goodput vs p for Reno, NewReno, Fusion, the proposal "
        "(fusion-rf), AReno, FAST, Libra, Compound, Westwood and the high-speed TCPs",
        warmup="none: goodput and drops over each whole run",
        assumptions=H1_ASSUME,
        sweeps=_h1_sweeps,
        analyse=_h1_analyse,
        claims=(
            Claim(
                "every algorithm uses nearly the link bandwidth when p < 1e-5",
                "for each algorithm, goodput at every p < 1e-5 >= 90 % of the 96.15 Mb/s "
                "goodput ceiling",
                _h1_near_link,
            ),
            Claim(
                "throughput degrades as the loss rate increases",
                "for each algorithm, goodput at the largest p < 20 % of that at the smallest "
                "(reversed: higher)",
                _h1_degrade,
            ),
            Claim(
                "the proposal, AReno and FAST are more efficient on the lossy link than the others",
                "geometric mean of goodput over p = 1e-4 .. 1e-2 of each of fusion-rf, areno, "
                "fast above that of every other algorithm (Fusion, equal to the proposal here, "
                "excluded); reversed when below the others' median",
                _h1_winners,
            ),
            Claim(
                "the proposal behaves as Fusion on one 40 ms flow",
                "fusion-rf goodput within 5 % of fusion's at every p",
                _pair_close(PROPOSAL, "fusion", 0.05),
            ),
            Claim(
                "Libra (gamma set for a 40 ms RTT) behaves as Reno",
                "libra goodput within 20 % of reno's at every p",
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
    ),
    Study(
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
        sweeps=_h2_sweeps,
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
                "proposal: largest flow's share higher under DropTail than under RED (reversed: "
                "lower); the largest flow has the fewest losses in >= 50 % of DropTail runs; "
                "its RTT-goodput rank correlation above Reno's (reversed: below)",
                _h2_proposal_dominance,
            ),
            Claim(
                "DropTail: the proposal loses far more packets than Fusion and Reno "
                "(Table II: 290 vs 28 and 22)",
                "total losses after warm-up under DropTail: proposal > fusion and > reno "
                "(reversed: lower)",
                _h2_droptail_losses,
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
                "Jain's index under RED: proposal > fusion and > reno (reversed: lower), and "
                "the proposal's >= 0.95",
                _h2_fairest(JAIN, lower_is_better=False),
            ),
            Claim(
                "the proposal's throughput variance over start times is lower than the others' "
                "(Fig. 6)",
                "mean over seeds of the four throughputs' variance (eq. 11) under RED: proposal "
                "< fusion and < reno (reversed: higher)",
                _h2_fairest(VARIANCE, lower_is_better=True),
            ),
            Claim(
                "RED: the proposal loses most, Fusion next, Reno least (Table III: 571, 206, 114)",
                "total losses after warm-up under RED: proposal > fusion > reno (each step "
                "reversed when lower)",
                _h2_red_losses,
            ),
        ),
        figure=FigureSpec("per-flow goodput, losses, Jain's index, variance (ccsim vs paper)"),
        algorithms=H2_ALGORITHMS,
    ),
    Study(
        id="H3",
        slug="fusion-reno-friendliness",
        title="A 40 ms Reno flow against a Reno, Fusion or proposal flow of varying RTT, RED "
        "(Fig. 7)",
        source=SOURCE,
        setup="one Reno flow at 40 ms and one Reno, Fusion or fusion-rf flow whose RTT is swept "
        "from 20 to 200 ms, RED bottleneck of 100 Mb/s with a BDP buffer; both flows' goodput",
        warmup="20 s (quick: 10 s): throughput is counted after it",
        assumptions=H3_ASSUME,
        sweeps=_h3_sweeps,
        analyse=_h3_analyse,
        claims=(
            Claim(
                "two Reno flows share fairly only at equal RTTs; the longer the competitor's "
                "RTT, the less it gets",
                "at 40 ms the two Reno flows' goodputs are within a ratio of 1.43; the "
                "competing Reno's goodput falls with its RTT (rank correlation <= -0.8; "
                "reversed: >= 0.5)",
                _h3_reno,
            ),
            Claim(
                "Fusion takes more than Reno, and more the smaller its RTT",
                "at 40 ms Fusion's goodput > the Reno flow's (reversed: < 0.9 of it); Fusion's "
                "goodput falls with its RTT (rank correlation <= -0.8; reversed: >= 0.5)",
                _h3_fusion,
            ),
            Claim(
                "the proposal's throughput stays almost constant over RTT",
                "max/min of the proposal's goodput over the swept RTTs <= 1.5, and below the "
                "competing Reno's max/min (reversed: above)",
                _h3_constant,
            ),
            Claim(
                "the proposal does not expel Reno, even at large RTT",
                "at every swept RTT the 40 ms Reno flow keeps >= 30 % of the two flows' goodput "
                "(reversed: < 15 %)",
                _h3_friendly,
            ),
        ),
        figure=FigureSpec(
            "goodput of the 40 ms Reno flow and its competitor vs the competitor's RTT",
            x="rtt_ms",
            hue="competitor",
            xlabel="competitor's RTT, ms",
        ),
        algorithms=H3_COMPETITORS,
    ),
)
