"""Seed 004, interactions among legacy and high-speed TCPs: study L1
(docs/studies/highspeed-parking-lot.md), the 1 Gb/s parking lot.

Five routers in a line, the four router-to-router links at 1 Gb/s both ways ("8 backbone links")
with 2 MB buffers. Long-lived flows (4.7 GB files, so they never finish) enter and leave at any
router, each with an RTT drawn from an exponential distribution (mean 130 ms) and a start time
from an exponential distribution (mean 2 min); 100 short-lived sources send 1 MB Pareto files
with exponential 1 s gaps. Every protocol runs alone ("all": every flow, short and long) and
mixed with Reno ("half": the even long-lived flows on the protocol, the odd ones and the short
files on Reno); runs of one workload differ only in protocol (common random numbers), so every
long-lived flow is compared with itself under Reno ("flow by flow, file by file").

Replicates: every seed draws a new workload (the long-lived flows' routers, RTTs and starts, the
short files). The claims are judged on the heavy load without random loss with their intervals
over the seeds, paired by seed where two protocols are compared (:mod:`ccsim.studies.checks`).

Choices the seed leaves open are in ``L1_ASSUME``. Where the engine's modules are set for the
protocols is :func:`protocol_entry` (the Linux module era, ``ERA_PARAMS``). AReno's alpha and
beta, which the paper does not give, are varied by ``ccsim study L1-areno``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
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

SOURCE = "seed 004 (interactions among legacy and high-speed TCPs)"
MSS = 1460
ROUTERS = 5
PROTOCOLS = ("reno", "highspeed", "scalable", "bic", "htcp", "compound", "areno")
QUICK_PROTOCOLS = ("reno", "highspeed", "htcp", "areno")
HIGH_SPEED = PROTOCOLS[1:]
#: The protocols the paper says allocate more to short flows, and to long flows (its trade-off
#: chart: "Allocate more resource on... Long-flows: AReno, Hamilton, Compound; Short-flows:
#: BIC, HSTCP, Scalable").
SHORT_FAVOURING = ("highspeed", "scalable", "bic")
LONG_FAVOURING = ("areno", "htcp", "compound")
#: The protocols the paper trades Compound's friendliness against ("Friendliness-efficiency
#: tradeoff: Compound vs. BIC, Scalable, HSTCP, Hamilton").
TRADE_OFF = ("bic", "scalable", "highspeed", "htcp")
#: Long-lived flows: light and heavy load.
LOADS = {"light": 10, "heavy": 40}
#: Random loss on every backbone link direction, "with and without" (the seed gives no rate).
LOSS = 1e-5
#: The conditions, (load, loss): the study runs the one its claims are judged on, the heavy load
#: without random loss; :func:`light_load` runs the light load without and with random loss (the
#: paper ran random loss with 10 long-lived flows: "With/without random packet losses - 10
#: long-lived flows, 100 short-lived flows"). A quick run has the light load without loss.
CONDITIONS = (("heavy", "clean"),)
LIGHT_CONDITIONS = (("light", "clean"), ("light", "lossy"))
QUICK_CONDITIONS = (("light", "clean"),)
RTT_MEAN_S = 0.130
START_MEAN_S = 120.0
LONG_FILE = "4.7GB"
RTT_BINS_MS = (0, 50, 100, 200, math.inf)
#: The backbone links' buffer (the paper's "2MB buffer"), DropTail (ns-2's default discipline;
#: the paper names none).
BACKBONE_BUFFER = "2MB"
#: Every access link's queue, both directions: ns-2's default DropTail, ``limit_ 50``, which
#: counts the packet in transmission: 49 waiting, ccsim's count (the paper states only the
#: backbone's buffer).
ACCESS_BUFFER = "49pkts"
ACCESS_RATE = "10Gbps"

#: Seeds per point of a full run, and of a quick one.
FULL_REPLICATES = 3
QUICK_REPLICATES = 3
#: The most seeds a full run goes up to on the judged condition while a check is inconclusive.
MAX_REPLICATES = 4

# ---- the modules' era: THE place where it is set --------------------------------------------------
#
# The paper ran Linux's congestion-control modules of 2006-2007 through ns-2's Linux patch
# (TCP-Linux). Every protocol of every run gets its engine entry from ``protocol_entry``: the
# compared algorithms, the Reno baseline (and so every flow and short file on Reno) and AReno's
# sensitivity variants. ``linux26 = true`` gives each module the arithmetic of Linux 2.6.22, the
# modules ns-2 ships (docs/algorithms.md, "The Linux 2.6 modules"). AReno is not one of them, but
# the paper ran it in the same patch, where a module's window grows once per ACK: it gets the same
# per-ACK counting (its ``linux26``), so its slow start is not twice as fast as its baseline's.

#: The protocols the study runs with Linux 2.6.22's arithmetic (AReno: its per-ACK counting).
LINUX26_MODULES = ("reno", "highspeed", "scalable", "bic", "htcp", "compound", "areno")
#: Per algorithm, the engine parameters that select the modules' era.
ERA_PARAMS: dict[str, dict[str, Any]] = {a: {"linux26": True} for a in LINUX26_MODULES}
#: Stack keys that select the modules' era (none: the option is per algorithm).
ERA_STACK: dict[str, Any] = {}


def protocol_entry(algorithm: str, name: str | None = None, **params: Any) -> Any:
    """The ``[compare]`` entry of one protocol: the engine's ``algorithm`` with the era's
    parameters (``ERA_PARAMS``) and ``params``, catalogued as ``name`` (default: the algorithm);
    the bare name when there are no parameters."""
    merged = ERA_PARAMS.get(algorithm, {}) | params
    if not merged and name in (None, algorithm):
        return algorithm
    return {"name": name or algorithm, "cc": algorithm, "params": merged}


UTILIZATION = "backbone utilization"
RELATIVE = "relative throughput"
FRIENDLINESS = "Reno friendliness"
FAST_SLOW = "300 ms / 30 ms throughput (fit)"
SHORT_TIME = "short-file transfer time s"
SHORT_SPEEDUP = "short-file speed-up vs all-Reno"
LONG_GOODPUT = "long-lived goodput Mb/s"
BOUNDS = {
    UTILIZATION: UNIT,
    RELATIVE: NONNEGATIVE,
    FRIENDLINESS: NONNEGATIVE,
    FAST_SLOW: NONNEGATIVE,
    SHORT_TIME: NONNEGATIVE,
    SHORT_SPEEDUP: NONNEGATIVE,
    LONG_GOODPUT: NONNEGATIVE,
}

L1_ASSUME = (
    (
        "linux profile (SACK, delayed ACKs, Linux's module details) with initial window 3 "
        "(RFC 3390, the seed's era), MSS 1460 B; every Linux module (Reno, HSTCP, Scalable, "
        "BIC, H-TCP, Compound) with the arithmetic of Linux 2.6.22, the modules ns-2's Linux "
        "patch runs (linux26 = true); AReno, not a Linux module, with their per-ACK counting "
        "(its linux26)"
    ),
    (
        "parking lot R0-R4, the 4 backbone links 1 Gb/s and 1 ms each way with 2 MB DropTail "
        "buffers (the slide's '15 msec' read as the buffer's drain time: 2 MB drains in 16 ms); every flow on "
        "its own hosts, access links 10 Gb/s carrying each flow's RTT, each direction with a "
        "DropTail queue of ns-2's default limit_ 50 (49 waiting; the paper states only the "
        "backbone's)"
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
        "heavy load without random loss (light load without and with random loss 1e-5 on every "
        "backbone link direction: ccsim study L1-light); 600 s runs (every long-lived flow has "
        f"started with probability 1 - e^-5); {FULL_REPLICATES} seeds, up to {MAX_REPLICATES} "
        f"while a check is inconclusive (quick: 60 s, the light load without loss judged "
        f"instead, {QUICK_REPLICATES} seeds, Reno, HSTCP, H-TCP and AReno, long-lived starts "
        "with mean 10 s)"
    ),
    (
        "'all': every flow on the protocol; 'half': the even long-lived flows on it, the odd "
        "ones and every short file on Reno. Per-flow numbers are each long-lived flow's goodput "
        "over its own life, compared with the same flow in the all-Reno run; short files are "
        "compared on those that finished in both runs"
    ),
    "AReno: alpha 10 pkt/s, beta 0.1 (the paper gives none; ccsim study L1-areno varies them)",
)


def _plan(s: Settings) -> dict[str, Any]:
    return {
        "protocols": s.pick(PROTOCOLS, QUICK_PROTOCOLS),
        "conditions": s.pick(CONDITIONS, QUICK_CONDITIONS),
        "duration": s.pick("600s", "60s"),
        # Quick: the long-lived flows start within the first seconds, so a short run has them.
        "start_mean_s": s.pick(START_MEAN_S, 10.0),
        "seeds": s.seeds(FULL_REPLICATES, QUICK_REPLICATES),
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
            "buffer": BACKBONE_BUFFER,
            "queue": "droptail",
            "loss": loss,
            "reverse_loss": loss,
            "access_rate": ACCESS_RATE,
            "access_buffer": ACCESS_BUFFER,
        },
        "stack": {"initial_window": 3} | ERA_STACK,
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


def _sweep_name(load: str, loss_name: str, seed: int) -> str:
    return f"{load}-{loss_name}-s{seed}"


def _workload_sweeps(
    s: Settings, algorithms: Sequence[Any], conditions: Sequence[tuple[str, str]]
) -> list[dict[str, Any]]:
    """One comparative sweep per condition and seed (each seed draws its own long-lived flows):
    ``algorithms`` alone and mixed with Reno."""
    plan = _plan(s)
    seeds: list[int] = plan["seeds"]
    sweeps = []
    for load, loss_name in conditions:
        loss = LOSS if loss_name == "lossy" else 0.0
        for seed in seeds:
            sweeps.append(
                {
                    "name": _sweep_name(load, loss_name, seed),
                    "scenario": l1_scenario(
                        load, loss, plan["duration"], seed, plan["start_mean_s"]
                    ),
                    "seeds": [seed],
                    "compare": {
                        "algorithms": list(algorithms),
                        "mixtures": ["all", "half"],
                        "baseline": protocol_entry("reno"),
                    },
                }
            )
    return sweeps


def _sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _plan(s)
    entries = [protocol_entry(a) for a in plan["protocols"]]
    return _workload_sweeps(s, entries, plan["conditions"])


# ---- analysis ------------------------------------------------------------------------------------


def _long(flows: pd.DataFrame) -> pd.DataFrame:
    return flows[flows["label"].astype(str).str.startswith("long")]


def _short(flows: pd.DataFrame) -> pd.DataFrame:
    return flows[~flows["label"].astype(str).str.startswith("long")]


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


def _parse_sweep(name: str) -> tuple[str, str, int] | None:
    """(load, loss, seed) of a workload sweep's name; None for other sweeps."""
    parts = name.split("-")
    if len(parts) != 3 or parts[0] not in LOADS or not parts[2].startswith("s"):
        return None
    return parts[0], parts[1], int(parts[2].removeprefix("s"))


def _analyser(figures: bool) -> Callable[[Context], pd.DataFrame]:
    def analyse(c: Context) -> pd.DataFrame:
        return _analyse(c, figures)

    return analyse


def _analyse(c: Context, figures: bool = True) -> pd.DataFrame:
    plan = _plan(c.settings)
    records: list[dict[str, Any]] = []
    per_flow: list[pd.DataFrame] = []
    for sweep in c.results:
        parsed = _parse_sweep(sweep)
        if c.results[sweep] is None or parsed is None:
            continue
        load, loss_name, seed = parsed
        hops_of = _path_hops(long_lived_flows(LOADS[load], seed, plan["start_mean_s"]))
        for point, load_table in c.points(sweep):
            records += _point_records(c, sweep, point, load_table, load, loss_name, hops_of)
            if str(point["mixture"]) == "all":
                long_flows = _long(load_table("flows"))
                per_flow.append(
                    pd.DataFrame(
                        {
                            "load": load,
                            "loss": loss_name,
                            "seed": seed,
                            "algorithm": str(point["algorithm"]),
                            "rtt_ms": long_flows["base_rtt_s"] * 1e3,
                            "goodput_mbps": long_flows["goodput_bps"] / 1e6,
                        }
                    )
                )
    table = summarise(records, ["load", "loss", "algorithm", "mixture", "by", "bin"], bounds=BOUNDS)
    if figures and per_flow and len(table):
        _figures(c, table, pd.concat(per_flow, ignore_index=True))
    return table


def _figures(c: Context, table: pd.DataFrame, per_flow: pd.DataFrame) -> None:
    """``L1-figures.png``: the seed's figures for the judged condition (heavy load without loss
    when run): relative throughput vs hop count and vs RTT, Reno friendliness vs hop count (means
    over seeds), per-flow throughput vs RTT and its CDF (the flows of every seed), and the
    efficiency-friendliness trade-off (means with their 95% intervals)."""
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
        ax.set_title(f"{title} (mean over seeds)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    ax = axes[1][0]
    for algorithm, group in flows.groupby("algorithm", sort=False):
        ax.scatter(group["rtt_ms"], group["goodput_mbps"], s=9, label=str(algorithm))
    ax.set(xscale="log", yscale="log", xlabel="base RTT ms", ylabel="goodput Mb/s")
    ax.set_title("per-flow throughput vs RTT (alone, every seed)", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    ax = axes[1][1]
    for algorithm, group in flows.groupby("algorithm", sort=False):
        cdf = metrics.ecdf(group["goodput_mbps"])
        ax.step(cdf.iloc[:, 0], cdf.iloc[:, 1], where="post", label=str(algorithm))
    ax.set(xscale="log", xlabel="goodput Mb/s", ylabel="fraction of long-lived flows")
    ax.set_title("CDF of per-flow throughput (alone, every seed)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax = axes[1][2]
    for algorithm in dict.fromkeys(rows["algorithm"]):
        if algorithm == "reno":
            continue
        keys = {"algorithm": algorithm, "by": "all", "bin": "all"}
        efficiency = rows[
            (rows["metric"] == RELATIVE) & (rows["mixture"] == "all") & _match(rows, keys)
        ]
        friendly = rows[
            (rows["metric"] == FRIENDLINESS) & (rows["mixture"] == "half") & _match(rows, keys)
        ]
        if not len(efficiency) or not len(friendly):
            continue
        x, y = float(friendly["ours"].iloc[0]), float(efficiency["ours"].iloc[0])
        ax.errorbar(
            [x],
            [y],
            xerr=_error(friendly.iloc[0]),
            yerr=_error(efficiency.iloc[0]),
            marker="o",
            capsize=2,
        )
        ax.annotate(str(algorithm), (x, y), fontsize=8)
    ax.set(xlabel="Reno friendliness", ylabel="relative throughput")
    ax.set_title("efficiency vs friendliness (95% CI)", fontsize=10)
    ax.grid(alpha=0.3)
    seeds = sorted(set(flows["seed"]))
    figure.suptitle(
        f"L1: {condition['load']} load, {condition['loss']}, {len(seeds)} seeds "
        f"(ccsim, {c.settings.profile}{', quick' if c.settings.quick else ''})"
    )
    figure.tight_layout()
    store = next(r for r in c.results.values() if r is not None).store
    path = store.root.parent.parent / "L1-figures.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    c.notes.append(f"L1: figures {path}")


def _match(rows: pd.DataFrame, keys: dict[str, str]) -> pd.Series:
    selected = pd.Series(True, index=rows.index)
    for key, wanted in keys.items():
        selected &= rows[key] == wanted
    return selected


def _error(row: pd.Series) -> list[list[float]] | None:
    """Error-bar lengths of one row from its interval (None without one)."""
    low, high, mean = row.get("ci_low"), row.get("ci_high"), float(row["ours"])
    if low is None or high is None or math.isnan(float(low)) or math.isnan(float(high)):
        return None
    return [[mean - float(low)], [float(high) - mean]]


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
    key = {
        "load": load,
        "loss": loss_name,
        "algorithm": algorithm,
        "mixture": mixture,
        "seed": int(point["seed"]),
    }
    flows = load_table("flows")
    links = load_table("links")
    records: list[dict[str, Any]] = []

    def add(metric: str, number: float, by: str = "all", bin_: str = "all") -> None:
        records.append(key | {"by": by, "bin": bin_, "metric": metric, "value": number})

    backbone = links[links["src"].str.startswith("R") & links["dst"].str.startswith("R")]
    add(UTILIZATION, float(backbone["utilization"].mean()))
    long_flows = _long(flows).copy()
    add(LONG_GOODPUT, float(long_flows["goodput_bps"].mean()) / 1e6)
    if mixture == "all":
        add(FAST_SLOW, _fast_slow(long_flows, "goodput_bps"))
    reference = c.table(sweep, str(point["reference_run"]), "flows")
    # Short files: those that finished both here and in the all-Reno run, so that every protocol
    # is compared on the same files (a file cut off by the end of one run is left out of both).
    short = metrics.join_flows(_short(flows), _short(reference), ("completed", "completion_s"))
    both = short[(short["completed_x"] == 1) & (short["completed_ref"] == 1)]
    if len(both):
        mine, theirs = float(both["completion_s_x"].mean()), float(both["completion_s_ref"].mean())
        add(SHORT_TIME, mine)
        add(SHORT_SPEEDUP, theirs / mine if mine > 0 else math.nan)
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


# ---- the claims ----------------------------------------------------------------------------------
#
# Judged on the heavy load without random loss (in a quick run, which has only the light load
# without loss, on that: every check's label names the condition). A protocol that was not run
# gives empty quantities, so its checks are "not measured" and the claim is not graded.


def _condition(table: pd.DataFrame) -> dict[str, str]:
    """The condition the claims are judged on: the heavy load if it was run, else the light
    one; without random loss if that was run."""
    loads, losses = set(table["load"]), set(table["loss"])
    return {
        "load": "heavy" if "heavy" in loads else "light",
        "loss": "clean" if "clean" in losses or not losses else "lossy",
    }


def _where(table: pd.DataFrame) -> str:
    """The judged condition in words, the first part of every check's label."""
    condition = _condition(table)
    loss = "no random loss" if condition["loss"] == "clean" else f"random loss {LOSS:g}"
    return f"{condition['load']} load, {loss}"


def _q(
    table: pd.DataFrame, metric: str, algorithm: str, by: str = "all", bin_: str = "all"
) -> Quantity:
    """One row of the judged condition over the seeds (mixed runs for friendliness)."""
    mixture = "half" if metric == FRIENDLINESS else "all"
    return measure(
        table, metric, algorithm=algorithm, mixture=mixture, by=by, bin=bin_, **_condition(table)
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


def _long_favoured(table: pd.DataFrame, name: str) -> Check:
    return _ratio_vs_reno(table, name, ">")


def _long_flows(table: pd.DataFrame) -> list[Check]:
    return [_long_favoured(table, a) for a in LONG_FAVOURING]


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


def _lifetime_comparison(table: pd.DataFrame, name: str, favours_short: bool) -> Check:
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
    return [_lifetime_comparison(table, a, True) for a in SHORT_FAVOURING] + [
        _lifetime_comparison(table, a, False) for a in LONG_FAVOURING
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


STUDIES: tuple[Study, ...] = (
    Study(
        id="L1",
        slug="highspeed-parking-lot",
        title="Legacy and high-speed TCPs on a 1 Gb/s parking lot, alone and mixed with Reno",
        source=SOURCE,
        setup="5-router parking lot, 1 Gb/s backbone both ways with 2 MB DropTail buffers, "
        "access queues of ns-2's default limit_ 50 (49 waiting); 40 long-lived flows (RTT exponential, mean 130 ms; 1-4 hops, "
        "both directions) and 100 short-file sources; Reno, HSTCP, Scalable, BIC, H-TCP, "
        "Compound and AReno alone and mixed with Reno; every flow compared with itself under "
        "Reno",
        warmup=(
            "none: each long-lived flow's goodput over its own life, backbone utilization over "
            "the whole run, every short transfer that finished in both runs compared"
        ),
        assumptions=L1_ASSUME,
        sweeps=_sweeps,
        analyse=_analyser(figures=True),
        claims=CLAIMS,
        figure=FigureSpec("L1: utilization, relative throughput, friendliness, transfer times"),
        algorithms=PROTOCOLS,
        profile="linux",
        max_replicates=MAX_REPLICATES,
    ),
)


# ---- companions: the light load (``ccsim study L1-light``), and AReno's alpha and beta
# (``ccsim study L1-areno``). Each is a registered study; they run L1's own seeds
# (``FULL_REPLICATES``) and add none.


def _on_condition(
    table: pd.DataFrame, evaluate: Callable[[pd.DataFrame], Sequence[Check]], load: str, loss: str
) -> list[Check]:
    """A claim's checks on one condition's rows."""
    return list(evaluate(table[(table["load"] == load) & (table["loss"] == loss)]))


def _condition_words(load: str, loss: str) -> str:
    return f"{load} load, {'no random loss' if loss == 'clean' else f'random loss {LOSS:g}'}"


def _light_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _plan(s)
    entries = [protocol_entry(a) for a in plan["protocols"]]
    return _workload_sweeps(s, entries, s.pick(LIGHT_CONDITIONS, QUICK_CONDITIONS))


def light_load_study() -> Study:
    """L1's claims on the light load (10 long-lived flows), without and with random loss."""
    claims = tuple(
        Claim(
            f"{_condition_words(load, loss)}: {claim.text}",
            claim.criterion,
            functools.partial(_on_condition, evaluate=claim.evaluate, load=load, loss=loss),
        )
        for load, loss in LIGHT_CONDITIONS
        for claim in CLAIMS
    )
    return Study(
        id="L1-light",
        slug="highspeed-parking-lot-light",
        title="L1 on the light load (10 long-lived flows), without and with random loss",
        source=SOURCE,
        setup="L1's parking lot with 10 long-lived flows, without random loss and with 1e-5 on "
        "every backbone link direction; the seven protocols alone and mixed with Reno",
        warmup=STUDIES[0].warmup,
        assumptions=L1_ASSUME,
        sweeps=_light_sweeps,
        analyse=_analyser(figures=False),
        claims=claims,
        figure=FigureSpec("L1: light load"),
        algorithms=PROTOCOLS,
        profile="linux",
        max_replicates=FULL_REPLICATES,
    )


# AReno's alpha and beta.
#
# The paper gives no values for AReno's alpha and beta; the study runs the defaults (alpha 10
# pkt/s, beta 0.1). ``ccsim study L1-areno`` re-runs AReno's part of the judged condition over a
# grid of both and judges AReno's checks for each pair.

#: alpha (packets per second: the probe adds alpha (B/R) RTT packets per RTT) and beta (the
#: fraction of the window taken back per RTT at the congestion delay): a factor of 3 either side
#: of the defaults, 10 and 0.1.
ARENO_ALPHAS = (3.0, 10.0, 30.0)
ARENO_BETAS = (0.03, 0.1, 0.3)
#: No replicates are added: each pair runs L1's own seeds.
ARENO_MAX_REPLICATES = FULL_REPLICATES


def areno_variant(alpha: float, beta: float) -> str:
    """The catalogue name of AReno with ``alpha`` and ``beta``."""
    return f"areno a={alpha:g} b={beta:g}"


#: The pairs a quick run has (the others print "not run in --quick").
ARENO_QUICK_PAIRS = ((10.0, 0.1), (30.0, 0.1))


def _areno_pairs(s: Settings) -> list[tuple[float, float]]:
    if s.quick:
        return list(ARENO_QUICK_PAIRS)
    return [(a, b) for a in ARENO_ALPHAS for b in ARENO_BETAS]


def _areno_sweeps(s: Settings) -> list[dict[str, Any]]:
    entries = [
        protocol_entry("areno", name=areno_variant(a, b), alpha=a, beta=b)
        for a, b in _areno_pairs(s)
    ]
    return _workload_sweeps(s, entries, _plan(s)["conditions"])


def _long_favoured_checks(table: pd.DataFrame, name: str) -> list[Check]:
    return [_long_favoured(table, name)]


def _long_lived_checks(table: pd.DataFrame, name: str) -> list[Check]:
    return [_lifetime_comparison(table, name, False)]


def _areno_claims(pairs: Sequence[tuple[float, float]]) -> tuple[Claim, ...]:
    """L1's AReno claims, each judged on AReno's checks with every (alpha, beta) pair."""
    claims = []
    for alpha, beta in pairs:
        name = areno_variant(alpha, beta)
        claims += [
            Claim(
                f"{name}: AReno is efficient, fair and friendly: all flows improve",
                CLAIMS[5].criterion,
                functools.partial(areno_checks, name=name),
            ),
            Claim(
                f"{name}: AReno allocates more resource to long flows (300 ms RTT)",
                "relative throughput at 300 ms over at 30 ms > 1 (reversed: < 1)",
                functools.partial(_long_favoured_checks, name=name),
            ),
            Claim(
                f"{name}: read as long-lived / short-lived flows, AReno allocates more resource "
                "to the long-lived flows",
                "the long-lived flows' relative throughput above the short files' speed-up over "
                "all-Reno (paired by seed; reversed: below)",
                functools.partial(_long_lived_checks, name=name),
            ),
        ]
    return tuple(claims)


def areno_study() -> Study:
    """L1's AReno checks over ``ARENO_ALPHAS`` x ``ARENO_BETAS`` (``ccsim study L1-areno``;
    quick: the ``ARENO_QUICK_PAIRS`` on L1's quick setup)."""
    pairs = _areno_pairs(Settings(quick=False))
    return Study(
        id="L1-areno",
        slug="highspeed-parking-lot-areno",
        title="L1's AReno checks over alpha and beta (the paper gives neither)",
        source=SOURCE,
        setup="L1's judged condition (heavy load, no random loss; quick: light load), AReno "
        f"with alpha in {', '.join(f'{a:g}' for a in ARENO_ALPHAS)} pkt/s and beta in "
        f"{', '.join(f'{b:g}' for b in ARENO_BETAS)}, alone and mixed with Reno",
        warmup=STUDIES[0].warmup,
        assumptions=L1_ASSUME[:-1],
        sweeps=_areno_sweeps,
        analyse=_analyser(figures=False),
        claims=_areno_claims(pairs),
        figure=FigureSpec("L1: AReno over alpha and beta"),
        algorithms=("areno",),
        profile="linux",
        max_replicates=ARENO_MAX_REPLICATES,
    )


#: L1 and its companions, the light load and AReno's alpha and beta, as ``ccsim study`` lists them.
STUDIES = (*STUDIES, light_load_study(), areno_study())
