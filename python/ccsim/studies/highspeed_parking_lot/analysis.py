"""From runs to records: per-flow goodput, utilization and the ratios the claims are judged on."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
    Context,
    summarise,
)
from ccsim.studies.highspeed_parking_lot.claims import judged_condition
from ccsim.studies.highspeed_parking_lot.common import (
    BOUNDS,
    FAST_SLOW,
    FRIENDLINESS,
    LOADS,
    LONG_GOODPUT,
    RELATIVE,
    RTT_BINS_MS,
    SHORT_SPEEDUP,
    SHORT_TIME,
    UTILIZATION,
)
from ccsim.studies.highspeed_parking_lot.workload import long_lived_flows, workload_plan

# ---- analysis ------------------------------------------------------------------------------------


def long_lived(flows: pd.DataFrame) -> pd.DataFrame:
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


def analyser(figures: bool) -> Callable[[Context], pd.DataFrame]:
    def analyse(c: Context) -> pd.DataFrame:
        return _analyse(c, figures)

    return analyse


def _analyse(c: Context, figures: bool = True) -> pd.DataFrame:
    plan = workload_plan(c.settings)
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
                long_flows = long_lived(load_table("flows"))
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
    efficiency-friendliness trade-off (means with their 95% intervals). Each algorithm has one
    colour in every panel; one legend under them."""
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette, tidy_log_ticks
    from ccsim.studies.figures import figure_legend

    condition = judged_condition(table)
    rows = table[(table["load"] == condition["load"]) & (table["loss"] == condition["loss"])]
    flows = per_flow[
        (per_flow["load"] == condition["load"]) & (per_flow["loss"] == condition["loss"])
    ]
    figure = Figure(figsize=(15, 9.2), layout="constrained")
    axes = figure.subplots(2, 3, squeeze=False)
    looks = palette.looks(str(a) for a in [*rows["algorithm"], *flows["algorithm"]])
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
            ax.plot(
                group["bin"], group["ours"], label=str(algorithm), **looks[str(algorithm)].points()
            )
        ax.axhline(1.0, color=palette.NEUTRAL, ls=":")
        ax.set_title(f"{title} (mean over seeds)", fontsize=10)
        ax.set_xlabel("hop count" if by == "hops" else "RTT bin")
        ax.set_ylabel("ratio to Reno")
        ax.grid(alpha=0.3)
    ax = axes[1][0]
    for algorithm, group in flows.groupby("algorithm", sort=False):
        look = looks[str(algorithm)]
        ax.scatter(
            group["rtt_ms"],
            group["goodput_mbps"],
            s=9,
            color=look.colour,
            marker=look.marker,
            label=str(algorithm),
        )
    ax.set(xscale="log", yscale="log", xlabel="base RTT (ms)", ylabel="goodput (Mb/s)")
    ax.set_title("per-flow throughput vs RTT (alone, every seed)", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    tidy_log_ticks(ax)
    ax = axes[1][1]
    for algorithm, group in flows.groupby("algorithm", sort=False):
        cdf = metrics.ecdf(group["goodput_mbps"])
        ax.step(
            cdf.iloc[:, 0],
            cdf.iloc[:, 1],
            where="post",
            label=str(algorithm),
            **looks[str(algorithm)].line(),
        )
    ax.set(xscale="log", xlabel="goodput (Mb/s)", ylabel="fraction of long-lived flows")
    ax.set_title("CDF of per-flow throughput (alone, every seed)", fontsize=10)
    ax.grid(alpha=0.3)
    tidy_log_ticks(ax)
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
            capsize=2,
            color=looks[str(algorithm)].colour,
            marker=looks[str(algorithm)].marker,
            label=str(algorithm),
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
    figure_legend(figure, list(axes.flat), fontsize=9)
    store = next(r for r in c.results.values() if r is not None).store
    path = store.root.parent.parent / "L1-figures.png"
    figure.savefig(path, dpi=100)
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
    long_flows = long_lived(flows).copy()
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
    joined = metrics.join_flows(long_lived(flows), long_lived(reference), ("goodput_bps",))
    if joined.empty:
        return records
    ref = joined["goodput_bps_ref"].astype(float)
    joined["ratio"] = joined["goodput_bps_x"].astype(float) / ref.where(ref > 0)
    labels = long_lived(flows).set_index("flow")["label"]
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
