"""Queue disciplines compared: the table and figure of examples/sweep_aqm.toml.

Reads a finished `ccsim sweep examples/sweep_aqm.toml` directory and, per queue discipline and
workload (all Reno, all CUBIC, half CUBIC against half Reno), gives the mean over seeds with the
half-width of its 95% confidence interval (Student's t) of:

* total goodput and Jain's index of the eight flows' goodputs (the catalogue's runs table);
* per-flow goodput of the short (20 ms) and long (100 ms) flows, and in the half-and-half runs
  of the CUBIC and the Reno flows;
* queueing delay at the bottleneck after a warm-up of WARMUP_S: the per-packet sojourn time
  (`sojourn_s` of the `queues` series: the packet last dequeued, sampled every 10 ms; CoDel,
  FQ-CoDel and PIE report it), the sampled backlog in time to drain at the link rate, and the
  links table's mean queue over the whole run (slow start included) in the same unit.

It prints the table and draws the figure next to the sweep's results (RESULTS/aqm-sweep.png), or
where --out says (the README's copy: --out docs/figures/aqm-sweep.png):

    ccsim sweep examples/sweep_aqm.toml
    python examples/sweep_aqm_figure.py results/sweep_aqm      # results/sweep_aqm/aqm-sweep.png
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import ccsim
import pandas as pd
from ccsim import metrics

#: Samples before this time are left out of the queueing delays (the flows start within 1 s and
#: leave slow start within a few seconds).
WARMUP_S = 10.0
#: Bytes of a data packet on the wire (MSS 1000 + 40 bytes of headers).
PACKET_BYTES = 1040
QUEUES = ["droptail", "red", "codel", "fq_codel", "pie"]
WORKLOADS = {
    ("reno", "all"): "all Reno",
    ("cubic", "all"): "all CUBIC",
    ("cubic", "half"): "half/half",
}
#: The algorithm whose colour a workload is drawn in (the mixed one takes a colour of its own).
WORKLOAD_ALGORITHMS = {"all Reno": "reno", "all CUBIC": "cubic"}
METRICS = {
    "goodput_mbps": "goodput Mb/s",
    "jain": "Jain",
    "short_mbps": "short flow Mb/s",
    "long_mbps": "long flow Mb/s",
    "cubic_mbps": "CUBIC flow Mb/s",
    "reno_mbps": "Reno flow Mb/s",
    "sojourn_ms": "sojourn ms",
    "sojourn_p95_ms": "sojourn p95 ms",
    "backlog_ms": "backlog ms",
    "mean_queue_ms": "links mean queue ms",
}


def per_run(store: ccsim.Store) -> pd.DataFrame:
    """One row per run: its queue, workload and seed and the measures of the module docstring."""
    keys = "queue, algorithm, mixture, seed"
    runs = store.query(
        f"SELECT {keys}, goodput_bps / 1e6 AS goodput_mbps, jain FROM runs WHERE status = 'done'"
    )
    by_label = store.query(
        f"SELECT {keys}, label, avg(goodput_bps) / 1e6 AS mbps FROM flows GROUP BY ALL"
    ).pivot_table(index=keys.split(", "), columns="label", values="mbps")
    by_cc = store.query(
        f"SELECT {keys}, cc, avg(goodput_bps) / 1e6 AS mbps FROM flows"
        " WHERE mixture = 'half' GROUP BY ALL"
    ).pivot_table(index=keys.split(", "), columns="cc", values="mbps")
    delay = store.query(
        f"SELECT {keys}, avg(sojourn_s) * 1e3 AS sojourn_ms,"
        " quantile_cont(sojourn_s, 0.95) * 1e3 AS sojourn_p95_ms,"
        " avg(queue_bytes * 8 / l.rate_bps) * 1e3 AS backlog_ms"
        f" FROM queues q JOIN (SELECT run_id, link, rate_bps FROM links) l USING (run_id, link)"
        f" WHERE link = 0 AND t_s >= {WARMUP_S} GROUP BY ALL"
    )
    mean_queue = store.query(
        f"SELECT {keys}, mean_queue_pkts * {PACKET_BYTES * 8} / rate_bps * 1e3 AS mean_queue_ms"
        " FROM links WHERE link = 0"
    )
    table = runs.merge(
        by_label.rename(columns={"short": "short_mbps", "long": "long_mbps"}).reset_index(),
        on=keys.split(", "),
    )
    table = table.merge(
        by_cc.rename(columns={"cubic": "cubic_mbps", "reno": "reno_mbps"}).reset_index(),
        on=keys.split(", "),
        how="left",
    )
    table = table.merge(delay, on=keys.split(", ")).merge(mean_queue, on=keys.split(", "))
    table["workload"] = [
        WORKLOADS[(a, m)] for a, m in zip(table.algorithm, table.mixture, strict=True)
    ]
    return table


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95% half-width of every measure per (queue, workload), in QUEUES order."""
    parts = []
    for column in METRICS:
        stats = metrics.mean_ci(runs, ["queue", "workload"], column)
        parts.append(
            stats.assign(metric=column)[["queue", "workload", "metric", "mean", "half_width"]]
        )
    table = pd.concat(parts, ignore_index=True)
    table["queue"] = pd.Categorical(table.queue, QUEUES, ordered=True)
    table["workload"] = pd.Categorical(table.workload, list(WORKLOADS.values()), ordered=True)
    return table.sort_values(["queue", "workload"], kind="stable").reset_index(drop=True)


def text_table(stats: pd.DataFrame) -> str:
    """The summary as printed: a row per (queue, workload), `mean +- half-width` per measure."""
    cells = stats.assign(
        cell=[
            "-" if pd.isna(m) else (f"{m:.3f}" if k == "jain" else f"{m:.2f}") + f" +- {h:.2f}"
            for m, h, k in zip(stats["mean"], stats.half_width, stats.metric, strict=True)
        ]
    )
    wide = cells.pivot_table(
        index=["queue", "workload"], columns="metric", values="cell", aggfunc="first", observed=True
    )
    wide = wide[list(METRICS)].rename(columns=METRICS)
    return str(wide.to_string())


def plot(stats: pd.DataFrame, path: Path) -> None:
    from ccsim.plots import palette
    from matplotlib.figure import Figure

    def value(queue: str, workload: str, metric: str) -> tuple[float, float]:
        row = stats[
            (stats.queue == queue) & (stats.workload == workload) & (stats.metric == metric)
        ]
        return float(row["mean"].iloc[0]), float(row.half_width.iloc[0])

    looks = palette.looks(WORKLOADS.values(), WORKLOAD_ALGORITHMS)
    # Grey whiskers stay visible on Reno's black bars as well as on the lighter ones.
    whiskers = {"capsize": 2, "ecolor": palette.NEUTRAL}
    figure = Figure(figsize=(13.5, 4.2), layout="constrained")
    goodput, fairness, delay = figure.subplots(1, 3)
    xs = range(len(QUEUES))
    bars = [("all Reno", "short_mbps"), ("all Reno", "long_mbps"), ("all CUBIC", "short_mbps"),
            ("all CUBIC", "long_mbps")]  # fmt: skip
    width = 0.2
    for i, (workload, metric) in enumerate(bars):
        means, errors = zip(*(value(q, workload, metric) for q in QUEUES), strict=True)
        label = (
            f"{workload.removeprefix('all ')}, {'20 ms' if metric == 'short_mbps' else '100 ms'}"
        )
        goodput.bar([x + (i - 1.5) * width for x in xs], means, width, yerr=errors, **whiskers,
                    label=label, color=looks[workload].colour,
                    alpha=1.0 if i % 2 == 0 else 0.5)  # fmt: skip
    goodput.set_ylabel("goodput per flow (Mb/s)")
    goodput.set_title("Short (20 ms) and long (100 ms) RTT flows")
    width = 0.27
    for i, workload in enumerate(WORKLOADS.values()):
        means, errors = zip(*(value(q, workload, "jain") for q in QUEUES), strict=True)
        fairness.bar([x + (i - 1) * width for x in xs], means, width, yerr=errors, **whiskers,
                     label=workload, color=looks[workload].colour)  # fmt: skip
    fairness.set_ylim(0.5, 1.0)
    fairness.set_ylabel("Jain's index of the 8 flows' goodputs")
    fairness.set_title("Fairness")
    for i, workload in enumerate(["all Reno", "all CUBIC"]):
        means, errors = zip(*(value(q, workload, "backlog_ms") for q in QUEUES), strict=True)
        delay.bar([x + (i - 0.5) * 0.35 for x in xs], means, 0.35, yerr=errors, **whiskers,
                  label=f"{workload}: backlog", color=looks[workload].colour)  # fmt: skip
        sojourn = [value(q, workload, "sojourn_ms")[0] for q in QUEUES]
        # White diamonds: black ones would vanish on Reno's black bars.
        delay.scatter([x + (i - 0.5) * 0.35 for x in xs], sojourn, marker="D", facecolor="white",
                      edgecolor="black", s=16, zorder=3,
                      label="per-packet sojourn" if i == 0 else None)  # fmt: skip
    delay.set_yscale("log")
    delay.set_ylabel(f"queueing delay after {WARMUP_S:.0f} s (ms)")
    delay.set_title("Bottleneck queueing delay")
    goodput.set_ylim(0, 5.5)
    for axes in (goodput, fairness, delay):
        axes.set_xticks(list(xs), [q.replace("_", "-") for q in QUEUES])
        axes.grid(axis="y", alpha=0.3, which="both")
        axes.legend(fontsize=8, ncols=2 if axes is goodput else 1, loc="upper right")
    figure.suptitle(
        "8 flows (4 at 20 ms, 4 at 100 ms RTT), 20 Mb/s bottleneck, 500-packet buffer; "
        "mean and 95% CI over 5 seeds",
        fontsize=10,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", type=Path, help="the sweep's results directory")
    parser.add_argument(
        "--out", type=Path, help="the figure's file; default: SWEEP/aqm-sweep.png, beside its runs"
    )
    args = parser.parse_args(argv)
    stats = summary(per_run(ccsim.Store.open(args.sweep)))
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(text_table(stats))
    out = args.out if args.out is not None else args.sweep / "aqm-sweep.png"
    plot(stats, out)
    print(f"figure: {out}")


if __name__ == "__main__":
    main()
