"""The figures the generic study figure cannot draw: B1 against the buffer on a log axis
(``B1-figures.png``), B2's share against N beside Ware et al.'s model (``B2-figures.png``).
Each goes next to the study's own files; error bars are the 95% intervals of the means."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.bbr.common import (
    BBR_RETX,
    BBR_SHARE,
    CUBIC_RETX,
    QUEUE_DELAY,
    RATE_WORDS,
)
from ccsim.studies.core import Context
from ccsim.studies.figures import interval_errors


def _config_words(config: str) -> str:
    rate, mix = config.split()
    return f"{RATE_WORDS[rate]}, {mix.replace('v', ' vs ')}"


def b1_figure(c: Context, table: pd.DataFrame) -> None:
    """BBR's share, each one's retransmissions and the queueing delay against the buffer."""
    directory = c.study_directory()
    ran = table[table["runs"] > 0]
    if directory is None or not len(ran):
        return
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette
    from ccsim.studies.figures import figure_legend

    figure = Figure(figsize=(13, 8.4), layout="constrained")
    axes = figure.subplots(2, 2, squeeze=False)
    configs = list(dict.fromkeys(ran["config"]))
    looks = palette.looks(_config_words(x) for x in configs)
    panels = (
        (axes[0][0], (BBR_SHARE,), "BBR's share of goodput", False),
        (axes[0][1], (QUEUE_DELAY,), "queueing delay (ms)", False),
        (axes[1][0], (BBR_RETX,), "BBR's retransmissions (% of sent)", True),
        (axes[1][1], (CUBIC_RETX,), "CUBIC's retransmissions (% of sent)", True),
    )
    for ax, metrics, title, log_y in panels:
        for config in configs:
            look = looks[_config_words(config)]
            rows = ran[(ran["metric"] == metrics[0]) & (ran["config"] == config)]
            rows = rows.sort_values("buffer_bdp")
            ax.errorbar(
                rows["buffer_bdp"],
                rows["ours"],
                yerr=interval_errors(rows),
                capsize=2,
                ms=4,
                label=_config_words(config),
                **look.points(),
            )
        ax.set_xscale("log")
        buffers = sorted(set(ran["buffer_bdp"]))
        ax.set_xticks(buffers, [f"{b:g}" for b in buffers])
        ax.minorticks_off()
        if log_y and (ran[ran["metric"] == metrics[0]]["ours"] > 0).all():
            ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("buffer (BDP at 40 ms)")
        ax.grid(alpha=0.3, which="both")
    axes[0][0].axhline(0.5, color=palette.NEUTRAL, ls=":")
    axes[0][0].set_ylim(0, 1)
    figure_legend(figure, list(axes.flat), fontsize=9)
    mode = "quick" if c.settings.quick else "full"
    figure.suptitle(f"B1: BBR vs CUBIC over buffer sizes (ccsim, {c.settings.profile}, {mode})")
    path = directory / "B1-figures.png"
    figure.savefig(path, dpi=100)
    c.notes.append(f"B1: figures {path}")


def b2_figure(c: Context, table: pd.DataFrame) -> None:
    """BBR's share against the number of CUBIC flows per buffer, Ware et al.'s model dotted."""
    directory = c.study_directory()
    ran = table[(table["runs"] > 0) & (table["metric"] == BBR_SHARE)]
    if directory is None or not len(ran):
        return
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette
    from ccsim.studies.figures import figure_legend

    figure = Figure(figsize=(7.5, 5.2), layout="constrained")
    ax = figure.subplots()
    buffers = list(dict.fromkeys(ran["buffer"]))
    looks = palette.looks(buffers)
    for buffer in buffers:
        rows = ran[ran["buffer"] == buffer].sort_values("n_cubic")
        look = looks[buffer]
        ax.errorbar(
            rows["n_cubic"],
            rows["ours"],
            yerr=interval_errors(rows),
            capsize=2,
            ms=4,
            label=f"{buffer} (ccsim)",
            **look.points(),
        )
        ax.plot(
            rows["n_cubic"],
            rows["published"],
            ls=":",
            marker="x",
            color=look.colour,
            label=f"{buffer} (Ware et al.'s model)",
        )
    counts = sorted(set(ran["n_cubic"]))
    fair = [1.0 / (n + 1) for n in counts]
    ax.plot(counts, fair, color=palette.NEUTRAL, ls="--", label="fair share 1/(N+1)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(counts, [str(n) for n in counts])
    ax.set_ylim(0, 1)
    ax.set_xlabel("CUBIC flows N")
    ax.set_ylabel("BBR's share of goodput")
    ax.grid(alpha=0.3)
    figure_legend(figure, [ax], fontsize=9)
    mode = "quick" if c.settings.quick else "full"
    figure.suptitle(f"B2: one BBR vs N CUBIC, 100 Mb/s, 40 ms (ccsim, {mode})", fontsize=11)
    path = directory / "B2-figures.png"
    figure.savefig(path, dpi=100)
    c.notes.append(f"B2: figures {path}")
