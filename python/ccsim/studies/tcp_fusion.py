"""Seed 002, TCP-Fusion with RTT fairness: studies H1-H3 (docs/studies/tcp-fusion.md).

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
    band,
    compare,
    measure,
    summarise,
    within,
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
#: Every access link's queue: ns-2's default DropTail (``limit_ 50``, which counts the packet in
#: transmission: 49 waiting, ccsim's count); the paper states only the router's buffer, "equal
#: to the BDP".
ACCESS_BUFFER = "49pkts"
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
        "access links 1 Gb/s with ns-2's default DropTail queues (limit_ 50: 49 waiting), "
        "RED as H2 (ns-2's automatic configuration)"
    ),
    "competitor RTTs 20, 40, 60, 80, 100, 140, 200 ms (quick: 20, 40, 100, 200)",
    (
        "both flows start at random times in [0, 5 s); runs of 120 s (quick: 40 s), goodput "
        "after a 20 s warm-up (quick: 10 s); 5 seeds, up to 20 while a check is inconclusive (quick: 3)"
    ),
)


def _h3_plan(s: Settings) -> dict[str, Any]:
    return {
        "rtts": s.pick(H3_RTTS_MS, H3_QUICK_RTTS_MS),
        "duration": s.pick("120s", "40s"),
        "warmup": s.pick(20.0, 10.0),
        "seeds": s.seeds(5, 3),
    }


def h3_scenario(competitor: str, rtt_ms: int, duration: str) -> dict[str, Any]:
    """A 40 ms Reno flow and one ``competitor`` flow at ``rtt_ms``, RED, BDP buffer at 40 ms."""
    topology = {
        "kind": "dumbbell",
        "bottleneck_rate": "100Mbps",
        "bottleneck_delay": "1ms",
        "access_rate": "1Gbps",
        "access_buffer": ACCESS_BUFFER,
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
            key = {"competitor": sweep, "rtt_ms": rtt_ms, "seed": int(point["seed"])}
            share = reno / (reno + other) if reno + other > 0 else math.nan
            for metric, number in (
                (RENO_GOODPUT, reno),
                (OTHER_GOODPUT, other),
                (RENO_SHARE, share),
            ):
                records.append(key | {"metric": metric, "value": number})
    bounds = {RENO_GOODPUT: NONNEGATIVE, OTHER_GOODPUT: NONNEGATIVE, RENO_SHARE: UNIT}
    table = summarise(records, ["competitor", "rtt_ms"], bounds=bounds)
    if len(table):
        table = table.sort_values(["metric", "competitor", "rtt_ms"], kind="stable")
        table = table.reset_index(drop=True)
    return table


def _rtts(table: pd.DataFrame, competitor: str) -> list[float]:
    """The competitor RTTs run, ascending."""
    rows = table[(table["metric"] == OTHER_GOODPUT) & (table["competitor"] == competitor)]
    return sorted(float(r) for r in rows[rows["runs"] > 0]["rtt_ms"])


def _h3(table: pd.DataFrame, metric: str, competitor: str, rtt_ms: float) -> Quantity:
    return measure(table, metric, competitor=competitor, rtt_ms=rtt_ms)


def _curve(table: pd.DataFrame, competitor: str) -> tuple[list[float], list[Quantity]]:
    """The competitor's goodput at each swept RTT (per seed)."""
    rtts = _rtts(table, competitor)
    return rtts, [_h3(table, OTHER_GOODPUT, competitor, r) for r in rtts]


def _falls_with_rtt(table: pd.DataFrame, competitor: str) -> Check:
    rtts, curve = _curve(table, competitor)
    label = f"{competitor}: rank correlation of its RTT and its goodput in each seed"
    if len(rtts) < 3:
        return Check.no_data(label)
    rho = Quantity.combine(lambda *g: _rank_correlation(rtts, list(g)), *curve, bounds=CORRELATION)
    return compare(label, rho, "<=", -0.8, reversal=0.5, required="<= -0.8 (reversed: >= 0.5)")


def _h3_reno(table: pd.DataFrame) -> list[Check]:
    ratio = _h3(table, OTHER_GOODPUT, "reno", 40.0) / _h3(table, RENO_GOODPUT, "reno", 40.0)
    return [
        band(
            "equal RTTs (40 ms): the competing Reno's goodput / the first Reno's",
            ratio,
            0.7,
            1 / 0.7,
        ),
        _falls_with_rtt(table, "reno"),
    ]


def _h3_fusion(table: pd.DataFrame) -> list[Check]:
    ratio = _h3(table, OTHER_GOODPUT, "fusion", 40.0) / _h3(table, RENO_GOODPUT, "fusion", 40.0)
    return [
        compare(
            "equal RTTs (40 ms): Fusion's goodput / Reno's",
            ratio,
            ">",
            1.0,
            reversal=0.9,
            required="> 1 (reversed: < 0.9)",
        ),
        _falls_with_rtt(table, "fusion"),
    ]


def _spread(table: pd.DataFrame, competitor: str) -> Quantity:
    """Per seed, max / min of the competitor's goodput over the swept RTTs."""
    rtts, curve = _curve(table, competitor)
    if len(rtts) < 2:
        return Quantity()
    return Quantity.combine(
        lambda *g: max(g) / min(g) if min(g) > 0 else math.nan, *curve, bounds=(1.0, math.inf)
    )


def _h3_constant(table: pd.DataFrame) -> list[Check]:
    mine = _spread(table, PROPOSAL)
    return [
        compare(
            "proposal: max / min of its goodput over the swept RTTs, in each seed",
            mine,
            "<=",
            1.5,
            reversal=None,
        ),
        compare(
            "max / min of the goodput over the swept RTTs, proposal vs competing Reno",
            mine,
            "<",
            _spread(table, "reno"),
        ),
    ]


def _h3_friendly(table: pd.DataFrame) -> list[Check]:
    rtts = _rtts(table, PROPOSAL)
    return [
        compare(
            f"against the proposal at {rtt:g} ms: the 40 ms Reno flow's share of the two flows' "
            "goodput",
            _h3(table, RENO_SHARE, PROPOSAL, rtt),
            ">=",
            0.3,
            reversal=0.15,
            required=">= 0.3 (reversed: < 0.15)",
        )
        for rtt in rtts
    ] or [Check.no_data("the Reno flow's share against the proposal")]


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
                "at 40 ms the competing Reno's goodput / the first Reno's in [0.7, 1.43]; per "
                "seed, the rank correlation of the competing Reno's RTT and goodput <= -0.8 "
                "(reversed: >= 0.5)",
                _h3_reno,
            ),
            Claim(
                "Fusion takes more than Reno, and more the smaller its RTT",
                "at 40 ms Fusion's goodput / the Reno flow's > 1 (reversed: < 0.9); per seed, "
                "the rank correlation of Fusion's RTT and goodput <= -0.8 (reversed: >= 0.5)",
                _h3_fusion,
            ),
            Claim(
                "the proposal's throughput stays almost constant over RTT",
                "per seed, max/min of the proposal's goodput over the swept RTTs <= 1.5 (failed "
                "when clearly above), and below the competing Reno's max/min, paired (reversed: "
                "above)",
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
        max_replicates=20,
    ),
)
