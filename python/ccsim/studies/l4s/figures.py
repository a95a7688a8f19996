"""The figures the generic study figure cannot draw, each beside the study's own files
(``<ID>-figures.png``): Q1's rate ratio and per-queue delays against the number of CUBIC flows,
with the claims' bands; Q2's rate ratio per queue on a log axis; Q3's goodput against RTT.
Error bars are the 95 % intervals of the means."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ccsim.studies.core import Context
from ccsim.studies.figures import figure_target, interval_errors, save_study_figure
from ccsim.studies.l4s.common import (
    C_DELAY,
    C_DROPS,
    L_DELAY,
    L_MARKS,
    PATH_WORDS,
    RATIO,
    goodput_metric,
)


def _words(config: str) -> str:
    path, l4s = config.split()
    return f"{l4s}, {PATH_WORDS[path]}"


def _ratio_ticks(ax: Any) -> None:
    """Plain numbers on a log axis of ratios (matplotlib writes 2 x 10^0)."""
    low, high = ax.get_ylim()
    ticks = [t for t in (0.2, 0.5, 1, 2, 5, 10, 20, 50) if low <= t <= high]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()


def q1_figure(c: Context, table: pd.DataFrame) -> None:
    """The rate ratio, both queues' delays and the L marks / C drops against N."""
    started = figure_target(c, table)
    if started is None:
        return
    directory, ran = started
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette

    figure = Figure(figsize=(12, 8.4), layout="constrained")
    axes = figure.subplots(2, 2, squeeze=False)
    configs = list(dict.fromkeys(ran["config"]))
    looks = palette.looks(_words(x) for x in configs)
    panels = (
        (axes[0][0], RATIO, "per-flow rate ratio L/C (band: 0.5-2)", True),
        (axes[0][1], L_DELAY, "L queue delay, ms (line: 1 ms)", False),
        (axes[1][0], C_DELAY, "C queue delay, ms (band: 15 ms +- 20 %)", False),
        (axes[1][1], L_MARKS, "L marks (solid) and C drops (dotted), % of packets", True),
    )
    for ax, metric, title, log_y in panels:
        for config in configs:
            look = looks[_words(config)]
            for shown, style in ((metric, {}), (C_DROPS, {"linestyle": ":"})):
                if shown == C_DROPS and metric != L_MARKS:
                    continue
                rows = ran[(ran["metric"] == shown) & (ran["config"] == config)]
                rows = rows.sort_values("n_cubic")
                ax.errorbar(
                    rows["n_cubic"],
                    rows["ours"],
                    yerr=interval_errors(rows),
                    capsize=2,
                    ms=4,
                    label=_words(config) if shown == metric else "_",
                    **(look.points() | style),
                )
        counts = sorted(set(ran["n_cubic"]))
        ax.set_xticks(counts, [str(n) for n in counts])
        if log_y:
            ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("CUBIC flows against one scalable flow")
        ax.grid(alpha=0.3, which="both")
    _ratio_ticks(axes[0][0])
    axes[0][0].axhspan(0.5, 2.0, color=palette.NEUTRAL, alpha=0.12)
    axes[0][0].axhline(1.0, color=palette.NEUTRAL, ls=":")
    axes[0][1].axhline(1.0, color=palette.NEUTRAL, ls=":")
    axes[1][0].axhspan(12.0, 18.0, color=palette.NEUTRAL, alpha=0.12)
    axes[1][0].axhline(15.0, color=palette.NEUTRAL, ls=":")
    save_study_figure(
        c, figure, list(axes.flat), "Q1", "a scalable flow against N CUBIC in DualPI2", directory
    )


def q2_figure(c: Context, table: pd.DataFrame) -> None:
    """The rate ratio L/C per queue, one group of bars per queue, a bar per configuration."""
    started = figure_target(c, table)
    if started is None:
        return
    directory, ran = started
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette

    rows = ran[ran["metric"] == RATIO]
    queues = [q for q in ("fifo", "red-ecn", "fq_codel", "dualpi2") if q in set(rows["queue"])]
    configs = list(dict.fromkeys(rows["config"]))
    looks = palette.looks(_words(x) for x in configs)
    figure = Figure(figsize=(9, 5.2), layout="constrained")
    ax = figure.subplots()
    width = 0.8 / max(len(configs), 1)
    for i, config in enumerate(configs):
        mine = rows[rows["config"] == config].set_index("queue").reindex(queues)
        x = np.arange(len(queues)) + (i - (len(configs) - 1) / 2) * width
        ax.bar(
            x,
            mine["ours"],
            width,
            yerr=interval_errors(mine.reset_index()),
            capsize=2,
            color=looks[_words(config)].colour,
            alpha=0.85 - 0.15 * (i % 2),
            label=_words(config),
        )
    ax.set_yscale("log")
    _ratio_ticks(ax)
    ax.axhline(1.0, color=palette.NEUTRAL, ls=":")
    ax.set_xticks(np.arange(len(queues)), queues)
    ax.set_ylabel("per-flow rate ratio L/C (1 CUBIC flow)")
    ax.grid(alpha=0.3, axis="y", which="both")
    save_study_figure(
        c, figure, [ax], "Q2", "a scalable flow against a CUBIC flow per queue", directory
    )


def q3_figure(c: Context, table: pd.DataFrame, rtts_ms: tuple[float, ...]) -> None:
    """Each flow's goodput against its RTT, a line per configuration."""
    started = figure_target(c, table)
    if started is None:
        return
    directory, ran = started
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette

    configs = list(dict.fromkeys(ran["config"]))
    looks = palette.looks(configs)
    figure = Figure(figsize=(7.5, 5.2), layout="constrained")
    ax = figure.subplots()
    for config in configs:
        mine = ran[ran["config"] == config]
        found = [(r, mine[mine["metric"] == goodput_metric(r)]) for r in rtts_ms]
        found = [(r, rows) for r, rows in found if len(rows)]
        if not found:
            continue
        rows = pd.concat([rows for _, rows in found])
        ax.errorbar(
            [r for r, _ in found],
            rows["ours"],
            yerr=interval_errors(rows),
            capsize=2,
            ms=4,
            label=config,
            **looks[config].points(),
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(list(rtts_ms), [f"{r:g}" for r in rtts_ms])
    ax.minorticks_off()
    ax.axvline(25.0, color=palette.NEUTRAL, ls=":")
    ax.set_xlabel("base RTT, ms (dotted: Prague's 25 ms target)")
    ax.set_ylabel("goodput, Mb/s")
    ax.grid(alpha=0.3, which="both")
    save_study_figure(c, figure, [ax], "Q3", "five scalable flows of 5-100 ms, 100 Mb/s", directory)
