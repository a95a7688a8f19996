"""Seed 004, interactions among legacy and high-speed TCPs: study L1 of docs/studies.md (shared
material), the 1 Gb/s parking lot.

Five routers in a line, the four router-to-router links at 1 Gb/s both ways ("8 backbone links")
with 2 MB buffers. Long-lived flows (4.7 GB files, so they never finish) enter and leave at any
router, each with an RTT drawn from an exponential distribution (mean 130 ms) and a start time
from an exponential distribution (mean 2 min); 100 short-lived sources send 1 MB Pareto files
with exponential 1 s gaps. Every protocol runs alone ("all": every flow, short and long) and
mixed with Reno ("half": the even long-lived flows on the protocol, the odd ones and the short
files on Reno); runs of one workload differ only in protocol (common random numbers), so every
long-lived flow is compared with itself under Reno ("flow by flow, file by file").

Choices the seed leaves open are in ``L1_ASSUME``.
"""

from __future__ import annotations

import itertools
import math
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

SOURCE = "seed 004 (interactions among legacy and high-speed TCPs)"
MSS = 1460
ROUTERS = 5
PROTOCOLS = ("reno", "highspeed", "scalable", "bic", "htcp", "compound", "areno")
QUICK_PROTOCOLS = ("reno", "highspeed", "htcp", "areno")
HIGH_SPEED = PROTOCOLS[1:]
#: Long-lived flows: light and heavy load.
LOADS = {"light": 10, "heavy": 40}
#: Random loss on every backbone link direction, "with and without" (the seed gives no rate).
LOSS = 1e-5
RTT_MEAN_S = 0.130
START_MEAN_S = 120.0
LONG_FILE = "4.7GB"
RTT_BINS_MS = (0, 50, 100, 200, math.inf)

UTILIZATION = "backbone utilization"
RELATIVE = "relative throughput"
FRIENDLINESS = "Reno friendliness"
FAST_SLOW = "300 ms / 30 ms throughput (fit)"
SHORT_TIME = "short-file transfer time s"
LONG_GOODPUT = "long-lived goodput Mb/s"

L1_ASSUME = (
    (
        "linux profile (SACK, delayed ACKs, Linux's module details) with initial window 3 "
        "(RFC 3390, the seed's era), MSS 1460 B"
    ),
    (
        "parking lot R0-R4, the 4 backbone links 1 Gb/s and 1 ms each way with 2 MB DropTail "
        "buffers (the slide's '15 msec' read as the buffer's drain time, 16.8 ms); access links "
        "10 Gb/s carrying each flow's RTT"
    ),
    (
        "long-lived flows: 10 (light) or 40 (heavy), each from a router to another drawn "
        "uniformly among the 20 ordered pairs (hop counts 1-4, both directions), RTT "
        "exponential with mean 130 ms raised to the path's own round trip where a draw is below "
        "it, start exponential with mean 2 min, 4.7 GB files; drawn per seed, the same for every "
        "protocol"
    ),
    (
        "short-lived: an open-loop generator of 100 sources, 100 arrivals/s in all, Pareto file "
        "sizes with mean 1 MB and shape 1.5, endpoints and RTT (exponential, mean 130 ms) drawn "
        "per source"
    ),
    (
        "random loss: none, or 1e-5 on every backbone link direction (the seed gives no rate); "
        "600 s runs (every long-lived flow has started with probability 1 - e^-5), 1 seed "
        "(quick: 60 s, light load, no loss, 4 protocols, long-lived starts with mean 10 s)"
    ),
    (
        "'all': every flow on the protocol; 'half': the even long-lived flows on it, the odd "
        "ones and every short file on Reno. Per-flow numbers are each long-lived flow's goodput "
        "over its own life, compared with the same flow in the all-Reno run"
    ),
)


def _plan(s: Settings) -> dict[str, Any]:
    return {
        "protocols": s.pick(PROTOCOLS, QUICK_PROTOCOLS),
        "loads": s.pick(("light", "heavy"), ("light",)),
        "losses": s.pick((0.0, LOSS), (0.0,)),
        "duration": s.pick("600s", "60s"),
        # Quick: the long-lived flows start within the first seconds, so a short run has them.
        "start_mean_s": s.pick(START_MEAN_S, 10.0),
        "seeds": s.seeds(1, 1),
    }


def _pairs() -> list[tuple[int, int]]:
    return [(a, b) for a in range(ROUTERS) for b in range(ROUTERS) if a != b]


def long_lived_flows(
    n: int, seed: int, start_mean_s: float = START_MEAN_S, hop_delay_ms: float = 1.0
) -> list[dict[str, Any]]:
    """``n`` long-lived flows drawn for ``seed``: endpoints, RTT and start time.

    Drawn here rather than by the engine so that the same draws give each run of a workload the
    same flows (the sweep varies only the protocol); the stream is keyed by the seed and ``n``.
    """
    rng = np.random.default_rng([seed, n, 4])
    pairs = _pairs()
    flows = []
    for i in range(n):
        src, dst = pairs[int(rng.integers(len(pairs)))]
        hops = abs(dst - src)
        floor_ms = 2 * hops * hop_delay_ms  # the backbone's own round trip
        rtt_ms = max(float(rng.exponential(RTT_MEAN_S * 1e3)), floor_ms)
        start_s = float(rng.exponential(start_mean_s))
        flows.append(
            {
                "cc": "reno",
                "src": f"R{src}",
                "dst": f"R{dst}",
                "rtt": f"{round(rtt_ms * 1000)}us",
                "start": f"{round(start_s * 1000)}ms",
                "size": LONG_FILE,
                "mss": MSS,
                "label": f"long {i}",
            }
        )
    return flows


def l1_scenario(
    load: str,
    loss: float,
    duration: str,
    seed: int,
    start_mean_s: float = START_MEAN_S,
    backbone_delay_ms: float = 1.0,
) -> dict[str, Any]:
    """The L1 parking lot with ``load``'s long-lived flows (all Reno: the sweep sets protocols).

    ``backbone_delay_ms = 15`` is the other reading of the slide's "2MB buffer (15msec)": 15 ms
    per backbone link, RTT draws below a path's own round trip raised to it.
    """
    duration_s = float(duration.removesuffix("s"))
    drawn = long_lived_flows(LOADS[load], seed, start_mean_s, backbone_delay_ms)
    flows = [f for f in drawn if _start_s(f) < duration_s]
    return {
        "name": "study",
        "seed": seed,
        "duration": duration,
        "topology": {
            "kind": "parking_lot",
            "routers": ROUTERS,
            "rate": "1Gbps",
            "delay": f"{backbone_delay_ms:g}ms",
            "buffer": "2MB",
            "loss": loss,
            "reverse_loss": loss,
            "access_rate": "10Gbps",
        },
        "stack": {"initial_window": 3},
        "flows": flows,
        "generators": [
            {
                "kind": "open_loop",
                "cc": "reno",
                "rate": 100.0,
                "sources": 100,
                "size": {"dist": "pareto", "mean": "1MB", "shape": 1.5},
                "endpoints": [[f"R{a}", f"R{b}"] for a, b in _pairs()],
                "rtt_dist": {"dist": "exponential", "mean": "130ms"},
                "mss": MSS,
                "label": "short",
            }
        ],
    }


def _start_s(flow: dict[str, Any]) -> float:
    return float(flow["start"].removesuffix("ms")) / 1e3


def _sweep_name(load: str, loss: float, seed: int) -> str:
    return f"{load}-{'lossy' if loss else 'clean'}-s{seed}"


def _sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _plan(s)
    return [
        {
            "name": _sweep_name(load, loss, seed),
            "scenario": l1_scenario(load, loss, plan["duration"], seed, plan["start_mean_s"]),
            "seeds": [seed],
            "compare": {
                "algorithms": list(plan["protocols"]),
                "mixtures": ["all", "half"],
                "baseline": "reno",
            },
        }
        for load in plan["loads"]
        for loss in plan["losses"]
        for seed in plan["seeds"]
    ]


# ---- analysis ------------------------------------------------------------------------------------


def _long(flows: pd.DataFrame) -> pd.DataFrame:
    return flows[flows["label"].astype(str).str.startswith("long")]


def _rtt_labels() -> list[str]:
    return [
        f"{int(a)}-{b:g} ms" if b != math.inf else f">{int(a)} ms"
        for a, b in itertools.pairwise(RTT_BINS_MS)
    ]


def _rtt_bin(rtt_s: pd.Series) -> pd.Series:
    return pd.cut(rtt_s * 1e3, list(RTT_BINS_MS), labels=_rtt_labels(), right=False).astype(str)


def _bin_order(by: str, label: str) -> float:
    return float(_rtt_labels().index(label)) if by == "rtt" else float(label)


def _path_hops(scenario_flows: list[dict[str, Any]]) -> dict[str, int]:
    return {f["label"]: abs(int(f["dst"][1:]) - int(f["src"][1:])) for f in scenario_flows}


def _fast_slow(long_flows: pd.DataFrame, column: str) -> float:
    """Throughput at 300 ms over throughput at 30 ms, from a log-log fit against base RTT."""
    kept = long_flows[(long_flows[column] > 0) & (long_flows["base_rtt_s"] > 0)]
    if len(kept) < 3:
        return math.nan
    slope = np.polyfit(np.log(kept["base_rtt_s"]), np.log(kept[column]), 1)[0]
    return float(10.0**slope)


def _analyse(c: Context) -> pd.DataFrame:
    plan = _plan(c.settings)
    records: list[dict[str, Any]] = []
    per_flow: list[pd.DataFrame] = []
    for sweep in c.results:
        if c.results[sweep] is None:
            continue
        load, loss_name, seed = sweep.split("-")
        drawn = long_lived_flows(LOADS[load], int(seed.removeprefix("s")), plan["start_mean_s"])
        hops_of = _path_hops(drawn)
        for point, load_table in c.points(sweep):
            records += _point_records(c, sweep, point, load_table, load, loss_name, hops_of)
            if str(point["mixture"]) == "all":
                long_flows = _long(load_table("flows"))
                per_flow.append(
                    pd.DataFrame(
                        {
                            "load": load,
                            "loss": loss_name,
                            "algorithm": str(point["algorithm"]),
                            "rtt_ms": long_flows["base_rtt_s"] * 1e3,
                            "goodput_mbps": long_flows["goodput_bps"] / 1e6,
                        }
                    )
                )
    table = summarise(records, ["load", "loss", "algorithm", "mixture", "by", "bin"])
    if per_flow and len(table):
        _figures(c, table, pd.concat(per_flow, ignore_index=True))
    return table


def _figures(c: Context, table: pd.DataFrame, per_flow: pd.DataFrame) -> None:
    """``L1-figures.png``: the seed's figures for one condition (heavy and clean when run):
    relative throughput vs hop count and vs RTT, Reno friendliness vs hop count, per-flow
    throughput vs RTT, its CDF, and the efficiency-friendliness trade-off."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    condition = _condition(table)
    rows = table[(table["load"] == condition["load"]) & (table["loss"] == condition["loss"])]
    flows = per_flow[
        (per_flow["load"] == condition["load"]) & (per_flow["loss"] == condition["loss"])
    ]
    figure, axes = plt.subplots(2, 3, figsize=(15, 8.5), squeeze=False)
    panels = [
        (axes[0][0], RELATIVE, "all", "hops", "relative throughput vs hop count"),
        (axes[0][1], RELATIVE, "all", "rtt", "relative throughput vs RTT"),
        (axes[0][2], FRIENDLINESS, "half", "hops", "Reno friendliness vs hop count"),
    ]
    for ax, metric, mixture, by, title in panels:
        mine = rows[(rows["metric"] == metric) & (rows["mixture"] == mixture) & (rows["by"] == by)]
        for algorithm, group in mine.groupby("algorithm", sort=False):
            order = [_bin_order(by, str(label)) for label in group["bin"]]
            group = group.assign(order=order).sort_values("order")
            ax.plot(group["bin"], group["ours"], marker="o", label=str(algorithm))
        ax.axhline(1.0, color="grey", ls=":")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    ax = axes[1][0]
    for algorithm, group in flows.groupby("algorithm", sort=False):
        ax.scatter(group["rtt_ms"], group["goodput_mbps"], s=9, label=str(algorithm))
    ax.set(xscale="log", yscale="log", xlabel="base RTT ms", ylabel="goodput Mb/s")
    ax.set_title("per-flow throughput vs RTT (alone)", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    ax = axes[1][1]
    for algorithm, group in flows.groupby("algorithm", sort=False):
        cdf = metrics.ecdf(group["goodput_mbps"])
        ax.step(cdf.iloc[:, 0], cdf.iloc[:, 1], where="post", label=str(algorithm))
    ax.set(xscale="log", xlabel="goodput Mb/s", ylabel="fraction of long-lived flows")
    ax.set_title("CDF of per-flow throughput (alone)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax = axes[1][2]
    for algorithm in dict.fromkeys(rows["algorithm"]):
        if algorithm == "reno":
            continue
        efficiency = value(rows, RELATIVE, algorithm=algorithm, mixture="all", by="all", bin="all")
        friendly = value(
            rows, FRIENDLINESS, algorithm=algorithm, mixture="half", by="all", bin="all"
        )
        ax.scatter([friendly], [efficiency])
        ax.annotate(str(algorithm), (friendly, efficiency), fontsize=8)
    ax.set(xlabel="Reno friendliness", ylabel="relative throughput")
    ax.set_title("efficiency vs friendliness", fontsize=10)
    ax.grid(alpha=0.3)
    figure.suptitle(
        f"L1: {condition['load']} load, {condition['loss']} (ccsim, {c.settings.profile})"
    )
    figure.tight_layout()
    store = next(r for r in c.results.values() if r is not None).store
    path = store.root.parent.parent / "L1-figures.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    c.notes.append(f"L1: figures {path}")


def _point_records(
    c: Context,
    sweep: str,
    point: pd.Series,
    load_table: Any,
    load: str,
    loss_name: str,
    hops_of: dict[str, int],
) -> list[dict[str, Any]]:
    algorithm, mixture = str(point["algorithm"]), str(point["mixture"])
    key = {"load": load, "loss": loss_name, "algorithm": algorithm, "mixture": mixture}
    flows = load_table("flows")
    links = load_table("links")
    records: list[dict[str, Any]] = []

    def add(metric: str, number: float, by: str = "all", bin_: str = "all") -> None:
        records.append(key | {"by": by, "bin": bin_, "metric": metric, "value": number})

    backbone = links[links["src"].str.startswith("R") & links["dst"].str.startswith("R")]
    add(UTILIZATION, float(backbone["utilization"].mean()))
    long_flows = _long(flows).copy()
    add(LONG_GOODPUT, float(long_flows["goodput_bps"].mean()) / 1e6)
    short = flows[~flows["label"].astype(str).str.startswith("long")]
    done = short[short["completed"] == 1] if "completed" in short else short
    add(SHORT_TIME, float(done["completion_s"].mean()) if len(done) else math.nan)
    if mixture == "all":
        add(FAST_SLOW, _fast_slow(long_flows, "goodput_bps"))
    reference = c.table(sweep, str(point["reference_run"]), "flows")
    joined = metrics.join_flows(_long(flows), _long(reference), ("goodput_bps",))
    if joined.empty:
        return records
    ref = joined["goodput_bps_ref"].astype(float)
    joined["ratio"] = joined["goodput_bps_x"].astype(float) / ref.where(ref > 0)
    labels = _long(flows).set_index("flow")["label"]
    joined["hops"] = joined["flow_x"].map(labels).map(hops_of)
    joined["rtt_bin"] = _rtt_bin(joined["base_rtt_s_x"].astype(float))
    # Alone: every long-lived flow against itself under Reno. Mixed: the Reno flows only.
    subset = joined if mixture == "all" else joined[joined["cc_x"] == "reno"]
    metric = RELATIVE if mixture == "all" else FRIENDLINESS
    if mixture == "half" and algorithm == "reno":
        return records
    add(metric, float(subset["ratio"].mean()))
    for hops, group in subset.groupby("hops"):
        add(metric, float(group["ratio"].mean()), "hops", str(int(hops)))
    for rtt_bin, group in subset.groupby("rtt_bin"):
        add(metric, float(group["ratio"].mean()), "rtt", str(rtt_bin))
    return records


# ---- the claims (criteria fixed before the first full run) ----------------------------------------
#
# Judged on the heavy load without random loss when it was run, else on the light load (quick).


def _condition(table: pd.DataFrame) -> dict[str, str]:
    loads = set(table["load"])
    return {"load": "heavy" if "heavy" in loads else "light", "loss": "clean"}


def _v(
    table: pd.DataFrame, metric: str, algorithm: str, by: str = "all", bin_: str = "all"
) -> float:
    mixture = "half" if metric == FRIENDLINESS else "all"
    return value(
        table, metric, algorithm=algorithm, mixture=mixture, by=by, bin=bin_, **_condition(table)
    )


def _present(table: pd.DataFrame, names: tuple[str, ...]) -> list[str]:
    return [a for a in names if a in set(table["algorithm"])]


def _gain(algorithm: str, table: pd.DataFrame) -> list[Check]:
    rt = _v(table, RELATIVE, algorithm)
    util, reno = _v(table, UTILIZATION, algorithm), _v(table, UTILIZATION, "reno")
    return [
        check(
            f"{algorithm}: relative throughput {rt:.2f} > 1 (reversed: < 1)",
            rt,
            test=lambda r: r > 1,
            reverse=lambda r: r < 1,
        ),
        check(
            f"{algorithm}: backbone utilization {util:.3f} > Reno's {reno:.3f} (reversed: lower)",
            util,
            reno,
            test=lambda a, b: a > b,
            reverse=lambda a, b: a < b,
        ),
    ]


def _hop_ends(algorithm: str, table: pd.DataFrame) -> tuple[float, float]:
    return _v(table, RELATIVE, algorithm, "hops", "1"), _v(table, RELATIVE, algorithm, "hops", "4")


def _aggressive_gain(table: pd.DataFrame) -> list[Check]:
    checks = [c for a in _present(table, ("highspeed", "scalable", "bic")) for c in _gain(a, table)]
    return checks or [Check("HSTCP, Scalable, BIC", None)]


def _favour_short(table: pd.DataFrame) -> list[Check]:
    checks = []
    reno = _v(table, FAST_SLOW, "reno")
    for a in _present(table, ("highspeed", "scalable", "bic")):
        one, four = _hop_ends(a, table)
        checks.append(
            check(
                f"{a}: relative throughput of 1-hop flows {one:.2f} > 4-hop flows {four:.2f}",
                one,
                four,
                test=lambda x, y: x > y,
                reverse=lambda x, y: x < y,
            )
        )
        mine = _v(table, FAST_SLOW, a)
        checks.append(
            check(
                f"{a}: 300 ms / 30 ms throughput {mine:.3f} < Reno's {reno:.3f} (steeper; "
                "reversed: flatter)",
                mine,
                reno,
                test=lambda x, y: x < y,
                reverse=lambda x, y: x > y,
            )
        )
    return checks or [Check("HSTCP, Scalable, BIC", None)]


def _friendliness(algorithm: str, table: pd.DataFrame, friendly: bool) -> Check:
    f = _v(table, FRIENDLINESS, algorithm)
    if friendly:
        return check(
            f"{algorithm}: Reno friendliness {f:.2f} >= 0.9 (reversed: < 0.7)",
            f,
            test=lambda v: v >= 0.9,
            reverse=lambda v: v < 0.7,
        )
    return check(
        f"{algorithm}: Reno friendliness {f:.2f} < 0.9 (reversed: >= 1)",
        f,
        test=lambda v: v < 0.9,
        reverse=lambda v: v >= 1,
    )


def _unfriendly(table: pd.DataFrame) -> list[Check]:
    checks = [
        _friendliness(a, table, friendly=False)
        for a in _present(table, ("highspeed", "scalable", "bic"))
    ]
    return checks or [Check("HSTCP, Scalable, BIC", None)]


def _flat(algorithm: str, table: pd.DataFrame) -> Check:
    mine, reno = _v(table, FAST_SLOW, algorithm), _v(table, FAST_SLOW, "reno")
    return check(
        f"{algorithm}: 300 ms / 30 ms throughput {mine:.3f} > Reno's {reno:.3f} (flatter; "
        "reversed: steeper)",
        mine,
        reno,
        test=lambda x, y: x > y,
        reverse=lambda x, y: x < y,
    )


def _every_hop_gains(algorithm: str, table: pd.DataFrame) -> list[Check]:
    checks = []
    for hops in ("1", "2", "3", "4"):
        rt = _v(table, RELATIVE, algorithm, "hops", hops)
        checks.append(
            check(
                f"{algorithm}: {hops}-hop flows' relative throughput {rt:.2f} > 1 (reversed: < 1)",
                rt,
                test=lambda r: r > 1,
                reverse=lambda r: r < 1,
            )
        )
    return checks


def _htcp(table: pd.DataFrame) -> list[Check]:
    if "htcp" not in set(table["algorithm"]):
        return [Check("htcp", None)]
    return [_flat("htcp", table), *_gain("htcp", table)[:1], *_every_hop_gains("htcp", table)]


def _compound(table: pd.DataFrame) -> list[Check]:
    if "compound" not in set(table["algorithm"]):
        return [Check("compound", None)]
    rt = _v(table, RELATIVE, "compound")
    others = [_v(table, RELATIVE, a) for a in _present(table, ("highspeed", "scalable", "bic"))]
    lowest = min(others) if others else math.nan
    highest = max(others) if others else math.nan
    return [
        _friendliness("compound", table, friendly=True),
        check(
            f"compound: relative throughput {rt:.2f} between 1 and the lowest of HSTCP, "
            f"Scalable, BIC ({lowest:.2f}) (reversed: above their highest, {highest:.2f})",
            rt,
            lowest,
            highest,
            test=lambda r, lo, hi: 1 < r < lo,
            reverse=lambda r, lo, hi: r > hi,
        ),
    ]


def _areno(table: pd.DataFrame) -> list[Check]:
    if "areno" not in set(table["algorithm"]):
        return [Check("areno", None)]
    return [
        *_gain("areno", table)[:1],
        _flat("areno", table),
        _friendliness("areno", table, friendly=True),
        *_every_hop_gains("areno", table),
    ]


def _scalable_short_hops(table: pd.DataFrame) -> list[Check]:
    if "scalable" not in set(table["algorithm"]):
        return [Check("scalable", None)]
    one, four = _hop_ends("scalable", table)
    return [
        check(f"scalable: 1-hop flows gain ({one:.2f} > 1)", one, test=lambda r: r > 1),
        check(
            f"scalable: 4-hop flows do not ({four:.2f} <= 1.05; reversed: more than the 1-hop "
            "flows)",
            four,
            one,
            test=lambda f, o: f <= 1.05,
            reverse=lambda f, o: f > o,
        ),
    ]


STUDIES: tuple[Study, ...] = (
    Study(
        id="L1",
        slug="highspeed-parking-lot",
        title="Legacy and high-speed TCPs on a 1 Gb/s parking lot, alone and mixed with Reno",
        source=SOURCE,
        setup="5-router parking lot, 1 Gb/s backbone both ways with 2 MB buffers; 10 or 40 "
        "long-lived flows (RTT exponential, mean 130 ms; 1-4 hops, both directions) and 100 "
        "short-file sources; Reno, HSTCP, Scalable, BIC, H-TCP, Compound and AReno alone and "
        "mixed with Reno, with and without random loss; every flow compared with itself "
        "under Reno",
        warmup=(
            "none: each long-lived flow's goodput over its own life, backbone utilization over "
            "the whole run, every finished short transfer"
        ),
        assumptions=L1_ASSUME,
        sweeps=_sweeps,
        analyse=_analyse,
        claims=(
            Claim(
                "HSTCP, Scalable and BIC raise per-flow throughput and efficiency",
                "relative throughput > 1 and backbone utilization above Reno's, for each "
                "(reversed: below)",
                _aggressive_gain,
            ),
            Claim(
                "HSTCP, Scalable and BIC favour short-RTT and short-hop flows",
                "relative throughput of 1-hop flows > 4-hop flows, and the fitted 300 ms / 30 ms "
                "throughput ratio below Reno's, for each (reversed: the other way)",
                _favour_short,
            ),
            Claim(
                "HSTCP, Scalable and BIC are unfriendly to Reno",
                "Reno friendliness < 0.9 for each (reversed: >= 1)",
                _unfriendly,
            ),
            Claim(
                "H-TCP is fair across RTTs and hops, and efficient: all flows improve",
                "300 ms / 30 ms ratio above Reno's (reversed: below); relative throughput > 1 "
                "overall and at every hop count (reversed: < 1)",
                _htcp,
            ),
            Claim(
                "Compound is friendly, with a milder efficiency gain",
                "Reno friendliness >= 0.9 (reversed: < 0.7); relative throughput between 1 and "
                "the lowest of HSTCP, Scalable, BIC (reversed: above their highest)",
                _compound,
            ),
            Claim(
                "AReno is efficient, fair and friendly: all flows improve",
                "relative throughput > 1 overall and at every hop count, 300 ms / 30 ms ratio "
                "above Reno's, Reno friendliness >= 0.9 (each reversed the other way)",
                _areno,
            ),
            Claim(
                "Scalable improves only short-hop flows",
                "1-hop flows' relative throughput > 1, 4-hop flows' <= 1.05 (reversed: 4-hop "
                "above 1-hop)",
                _scalable_short_hops,
            ),
        ),
        figure=FigureSpec("L1: utilization, relative throughput, friendliness, transfer times"),
        algorithms=PROTOCOLS,
        profile="linux",
    ),
)
