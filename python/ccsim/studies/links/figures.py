"""The figures beside each study's own files (``<ID>-figures.png``). C1: the Pantheon-style
figure, each algorithm's throughput against its 95th-percentile one-way delay (delay axis
logarithmic and reversed, so better is up and to the right), a panel per trace, error bars the
95 % intervals of both means. C2: seed one's rate and queue around the two steps, and the ramp-up
and drain times with their intervals."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ccsim.studies.core import Context
from ccsim.studies.figures import figure_target, interval_errors, save_study_figure
from ccsim.studies.links.common import DRAIN_TIME, P95_DELAY, RAMP_TIME, THROUGHPUT
from ccsim.studies.links.step_run import StepRun
from ccsim.studies.links.workload import C2_SAMPLE_S, RAMP_WINDOW_S


def c1_figure(c: Context, table: pd.DataFrame) -> None:
    """Throughput against p95 one-way delay, a point per algorithm, a panel per trace."""
    found = figure_target(c, table)
    if found is None:
        return
    directory, ran = found
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette

    names = list(dict.fromkeys(ran["trace"]))
    algorithms = list(dict.fromkeys(ran["algorithm"]))
    looks = palette.looks(algorithms)
    figure = Figure(figsize=(6.2 * len(names), 5.2), layout="constrained")
    axes = figure.subplots(1, len(names), squeeze=False)[0]
    for ax, name in zip(axes, names, strict=True):
        mine = ran[ran["trace"] == name]
        for algorithm in algorithms:
            delay = mine[(mine["algorithm"] == algorithm) & (mine["metric"] == P95_DELAY)]
            rate = mine[(mine["algorithm"] == algorithm) & (mine["metric"] == THROUGHPUT)]
            if not len(delay) or not len(rate):
                continue
            ax.errorbar(
                delay["ours"],
                rate["ours"],
                xerr=interval_errors(delay),
                yerr=interval_errors(rate),
                capsize=3,
                ms=7,
                linestyle="none",
                marker=looks[algorithm].marker,
                color=looks[algorithm].colour,
                label=algorithm,
            )
            ax.annotate(
                algorithm,
                (float(delay["ours"].iloc[0]), float(rate["ours"].iloc[0])),
                textcoords="offset points",
                xytext=(6, 6),
                fontsize=9,
            )
        ax.set_xscale("log")
        ax.invert_xaxis()
        ax.set_xlabel("95th percentile one-way delay, ms (log; better to the right)")
        ax.set_ylabel("average throughput, Mb/s")
        ax.set_title(f"trace {name}", fontsize=10)
        ax.grid(alpha=0.3, which="both")
    save_study_figure(
        c, figure, list(axes), "C1", "one flow at a time over a cellular trace", directory
    )


def c2_figure(c: Context, table: pd.DataFrame, shown: Mapping[str, StepRun]) -> None:
    """Seed one's rate and queue against time, and the ramp-up and drain times per algorithm."""
    found = figure_target(c, table)
    if found is None:
        return
    directory, ran = found
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette

    algorithms = list(dict.fromkeys(ran["algorithm"]))
    looks = palette.looks(algorithms)
    figure = Figure(figsize=(13, 8.4), layout="constrained")
    axes = figure.subplots(2, 2, squeeze=False)
    rate_ax, queue_ax = axes[0]
    for algorithm in algorithms:
        run = shown.get(algorithm)
        if run is None:
            continue
        colour = looks[algorithm].colour
        # Every 100 ms window once: the 10 ms samples' alternation (delayed ACKs) drawn at
        # every sample would hide the lines behind it.
        every = max(1, round(RAMP_WINDOW_S / C2_SAMPLE_S))
        rate_ax.plot(
            run.t_s[::every], run.rate_bps[::every] / 1e6, color=colour, lw=1, label=algorithm
        )
        queue_ax.plot(run.queue_t_s, run.queue_pkts, color=colour, lw=1)
    some = next(iter(shown.values()), None)
    if some is not None:
        edges = [0.0, some.down_s, some.up_s, some.end_s]
        capacity = [100.0, 20.0, 100.0, 100.0]
        rate_ax.step(edges, capacity, where="post", color=palette.NEUTRAL, ls=":", lw=1.5)
        rate_ax.text(0.01, 0.02, "dotted: the link's rate", transform=rate_ax.transAxes)
    rate_ax.set_ylabel("rate over 100 ms, Mb/s (seed 1)")
    queue_ax.set_ylabel("bottleneck queue, packets (seed 1)")
    for ax in (rate_ax, queue_ax):
        ax.set_xlabel("time, s")
        ax.grid(alpha=0.3)
    for ax, metric in zip(axes[1], (RAMP_TIME, DRAIN_TIME), strict=True):
        rows = ran[ran["metric"] == metric].set_index("algorithm").reindex(algorithms)
        x = np.arange(len(algorithms))
        ax.bar(
            x,
            rows["ours"],
            0.6,
            yerr=interval_errors(rows.reset_index()),
            capsize=3,
            color=[looks[a].colour for a in algorithms],
        )
        ax.set_xticks(x, algorithms)
        ax.set_ylabel(f"{metric.removesuffix(' s')}, s")
        ax.grid(alpha=0.3, axis="y")
    save_study_figure(c, figure, [rate_ax], "C2", "a rate step 100 -> 20 -> 100 Mb/s", directory)
