"""The figure of a study (``<ID>.png``): its comparison table drawn as
:attr:`Study.figure <ccsim.studies.model.Study.figure>` says, one panel per metric, with the
confidence interval of each mean as error bars.

Every series (an algorithm, or a configuration such as "Paced" or "FD w=8") has one look in every
panel, its algorithm's colour where it names one (:mod:`ccsim.plots.palette`), and one legend
for the whole figure under the panels, where it hides no data."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ccsim.plots import palette
from ccsim.studies.evidence import ANY, CI_LEVEL, Bounds, Replicates
from ccsim.studies.model import Context, Settings, Study
from ccsim.studies.tables import VALUE_COLUMNS

__all__ = ["MAX_BAR_LABELS", "SERIES_COLUMNS", "figure_legend", "study_figure"]

#: Bars of the summary figure that get a label; past this, every k-th one does.
MAX_BAR_LABELS = 24
#: Key columns that name a row's series (its algorithm or configuration), first found wins: bars
#: take the series' colour.
SERIES_COLUMNS = ("algorithm", "tcp", "config", "competitor", "protocol", "cc")
#: Words of a metric's name that say it cannot be negative (for tables whose metric has no
#: declared range): rates, times, counts, and Jain's index, which is at most 1 too.
_NONNEGATIVE_WORDS = (
    *("goodput", "throughput", "mb/s", "kbps", "delay", " ms", "time", "drops"),
    *("losses", "jain", "utili", "queue", "packets", "transfer"),
)


def _bounds(metric: str, rows: pd.DataFrame) -> Bounds:
    """The range the metric can take: the one the table's intervals were clipped to (its
    replicates carry it), or, where none was declared, what its name says."""
    for replicates in rows.get("replicates", pd.Series(dtype=object)):
        if isinstance(replicates, Replicates) and replicates.bounds != ANY:
            return replicates.bounds
    name = metric.lower()
    low = 0.0 if any(word in name for word in _NONNEGATIVE_WORDS) else -math.inf
    high = 1.0 if "jain" in name else math.inf
    return low, high


def interval_errors(rows: pd.DataFrame, bounds: Bounds = ANY) -> np.ndarray:
    """Error-bar lengths below and above ``ours`` from the confidence interval, clipped to
    ``bounds`` (NaN, so no bar, where it is undefined: fewer runs than an interval needs)."""
    ours = pd.to_numeric(rows["ours"], errors="coerce").to_numpy(float)
    low = pd.to_numeric(rows["ci_low"], errors="coerce").to_numpy(float).clip(*bounds)
    high = pd.to_numeric(rows["ci_high"], errors="coerce").to_numpy(float).clip(*bounds)
    return np.vstack([np.maximum(ours - low, 0.0), np.maximum(high - ours, 0.0)])


def figure_legend(
    figure: Any, axes: Sequence[Any], fontsize: float = 8, extra: Sequence[Any] = ()
) -> None:
    """One legend for all of ``axes`` (their entries, each label once, then the ``extra``
    handles) under the panels, outside every data area (the figure's constrained layout makes
    room for it)."""
    entries: dict[str, Any] = {}
    for handle in extra:
        entries.setdefault(handle.get_label(), handle)
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if not label.startswith("_"):
                entries.setdefault(label, handle)
    if entries:
        longest = max(len(label) for label in entries)
        columns = max(1, min(len(entries), 6, 90 // max(longest, 1)))
        figure.legend(
            list(entries.values()),
            list(entries),
            loc="outside lower center",
            ncols=columns,
            fontsize=fontsize,
            frameon=False,
        )


def _series_column(keys: Sequence[str]) -> str | None:
    return next((c for c in SERIES_COLUMNS if c in keys), None)


def study_figure(study: Study, settings: Settings, table: pd.DataFrame) -> Any:
    """One panel per metric: lines against ``x`` per ``hue`` (ours solid, with the 95% confidence
    interval of the mean as error bars; the paper's dotted with crosses), or bars of ours (with
    the interval) next to the paper's (hatched) per row, coloured by the row's series. A point
    of a single run has no error bar."""
    from matplotlib.figure import Figure  # slow to import: only to draw

    spec = study.figure
    metrics = list(dict.fromkeys(table["metric"])) or ["(no data)"]
    keys = [c for c in table.columns if c not in VALUE_COLUMNS]
    bars = (
        0 if spec.x is not None else int(table["metric"].value_counts().max() if len(table) else 0)
    )
    # Many bars per panel: one panel a row, as wide as its labels need.
    cols = 1 if bars > 16 else min(len(metrics), 3)
    rows = math.ceil(len(metrics) / cols)
    width = max(5.2, 0.34 * bars + 1.5)
    figure = Figure(figsize=(width * cols, 3.9 * rows + 0.8), layout="constrained")
    axes = figure.subplots(rows, cols, squeeze=False)
    mode = "quick" if settings.quick else "full"
    figure.suptitle(
        f"{study.id}: {spec.title} (ccsim, {settings.profile}, {mode}; "
        f"error bars: {CI_LEVEL:.0%} CI of the mean)"
    )
    series = spec.hue if spec.x is not None else _series_column(keys)
    names = [str(n) for n in table[series]] if series and series in table else []
    looks = palette.looks(names)
    keyed: list[Any] = []
    for ax, metric in zip(axes.flat, metrics, strict=False):
        rows_m = table[table["metric"] == metric]
        bounds = _bounds(str(metric), rows_m)
        if spec.x is not None:
            _lines(ax, rows_m, spec.x, spec.hue, looks, bounds)
            ax.set_xlabel(spec.xlabel or spec.x)
        else:
            keyed += _bars(ax, rows_m, keys, series, looks, bounds)
        ax.set_title(metric, fontsize=10)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(metrics) :]:
        ax.set_visible(False)
    figure_legend(figure, list(axes.flat), extra=keyed)
    return figure


def _lines(
    ax: Any,
    rows: pd.DataFrame,
    x_column: str,
    hue: str | None,
    looks: dict[Any, palette.Look],
    bounds: Bounds,
) -> None:
    groups = rows.groupby(hue, sort=False) if hue else [("", rows)]
    for name, group in groups:
        group = group.sort_values(x_column)
        x = pd.to_numeric(group[x_column], errors="coerce")
        look = looks.get(str(name), palette.Look(palette.COLOURS[0]))
        ax.errorbar(
            x,
            group["ours"],
            yerr=interval_errors(group, bounds),
            ms=4,
            capsize=2,
            label=f"{name} (ccsim)" if name != "" else "ccsim",
            **look.points(),
        )
        if group["published"].notna().any():
            ax.plot(
                x,
                group["published"],
                ls=":",
                marker="x",
                color=look.colour,
                label=f"{name} (paper)" if name != "" else "paper",
            )


def _bars(
    ax: Any,
    rows: pd.DataFrame,
    keys: Sequence[str],
    series: str | None,
    looks: dict[Any, palette.Look],
    bounds: Bounds,
) -> list[Any]:
    """Ours filled and the paper's hatched, side by side, in the row's series colour; labels
    name what differs between the panel's rows (a key the same in every row says nothing).
    Returns the legend's entries: each series once (its colour), what filled and hatched mean."""
    from matplotlib.patches import Patch

    varying = [k for k in keys if rows[k].astype(str).nunique() > 1] or list(keys)[:1]
    labels = [" ".join(str(r[k]) for k in varying) for _, r in rows.iterrows()]
    colours = [
        looks[str(r[series])].colour if series else palette.COLOURS[0] for _, r in rows.iterrows()
    ]
    positions = np.arange(len(labels))
    ax.bar(
        positions - 0.2,
        rows["ours"],
        0.4,
        yerr=interval_errors(rows, bounds),
        color=colours,
        capsize=2,
        error_kw={"ecolor": "#333333", "elinewidth": 1},
    )
    ax.bar(
        positions + 0.2,
        rows["published"],
        0.4,
        facecolor="white",
        edgecolor=colours,
        hatch="///",
        linewidth=0.8,
    )
    names = dict.fromkeys(str(r[series]) for _, r in rows.iterrows()) if series else {}
    handles = [Patch(color=looks[name].colour, label=name) for name in names]
    handles.append(Patch(facecolor="#BBBBBB", label="ccsim (filled)"))
    handles.append(
        Patch(facecolor="white", edgecolor="#555555", hatch="///", label="paper (hatched)")
    )
    # Past a few dozen bars every label overlaps its neighbours (and drawing hundreds of
    # rotated labels takes seconds): label every k-th bar, in the table's order.
    step = max(1, math.ceil(len(labels) / MAX_BAR_LABELS))
    vertical = len(labels) > 6 or max((len(label) for label in labels), default=0) > 14
    ax.set_xticks(
        positions[::step],
        labels[::step],
        rotation=90 if vertical else 0,
        fontsize=7,
    )
    ax.set_xlim(-0.7, len(labels) - 0.3)
    return handles


def figure_target(c: Context, table: pd.DataFrame) -> tuple[Path, pd.DataFrame] | None:
    """Where a study's own figure goes and the table rows it can draw (those with runs); None
    when there is nothing to draw or no study directory."""
    directory = c.study_directory()
    ran = table[table["runs"] > 0]
    if directory is None or not len(ran):
        return None
    return directory, ran


def save_study_figure(
    c: Context, figure: Any, axes: Sequence[Any], sid: str, title: str, directory: Path
) -> Path:
    """Save a study's own figure as ``<sid>-figures.png`` in its directory, the legend outside
    the data and the title naming the settings it ran with; the report notes where."""
    figure_legend(figure, axes, fontsize=9)
    mode = "quick" if c.settings.quick else "full"
    figure.suptitle(f"{sid}: {title} (ccsim, {c.settings.profile}, {mode})", fontsize=11)
    path = directory / f"{sid}-figures.png"
    figure.savefig(path, dpi=100)
    c.notes.append(f"{sid}: figures {path}")
    return path
