"""The figure of a study (``<ID>.png``): its comparison table drawn as
:attr:`Study.figure <ccsim.studies.model.Study.figure>` says, one panel per metric, with the
confidence interval of each mean as error bars."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ccsim.studies.evidence import CI_LEVEL
from ccsim.studies.model import Settings, Study
from ccsim.studies.tables import VALUE_COLUMNS

__all__ = ["MAX_BAR_LABELS", "study_figure"]


def _interval_errors(rows: pd.DataFrame) -> np.ndarray:
    """Error-bar lengths below and above ``ours`` from the confidence interval (NaN, so no bar,
    where it is undefined: a single run)."""
    ours = pd.to_numeric(rows["ours"], errors="coerce").to_numpy(float)
    low = pd.to_numeric(rows["ci_low"], errors="coerce").to_numpy(float)
    high = pd.to_numeric(rows["ci_high"], errors="coerce").to_numpy(float)
    return np.vstack([ours - low, high - ours])


#: Bars of the summary figure that get a label; past this, every k-th one does.
MAX_BAR_LABELS = 24


def study_figure(study: Study, settings: Settings, table: pd.DataFrame) -> Any:
    """One panel per metric: lines against ``x`` per ``hue`` (ours solid, with the 95% confidence
    interval of the mean as error bars; the paper's dashed), or bars of ours (with the interval)
    next to the paper's per row. A point of a single run has no error bar."""
    import matplotlib  # slow to import: only to draw

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spec = study.figure
    metrics = list(dict.fromkeys(table["metric"])) or ["(no data)"]
    cols = min(len(metrics), 3)
    rows = math.ceil(len(metrics) / cols)
    figure, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.9 * rows), squeeze=False)
    mode = "quick" if settings.quick else "full"
    figure.suptitle(
        f"{study.id}: {spec.title} (ccsim, {settings.profile}, {mode}; "
        f"error bars: {CI_LEVEL:.0%} CI of the mean)"
    )
    keys = [c for c in table.columns if c not in VALUE_COLUMNS]
    for ax, metric in zip(axes.flat, metrics, strict=False):
        rows_m = table[table["metric"] == metric]
        if spec.x is not None:
            groups = rows_m.groupby(spec.hue, sort=False) if spec.hue else [("", rows_m)]
            for name, group in groups:
                group = group.sort_values(spec.x)
                x = pd.to_numeric(group[spec.x], errors="coerce")
                line = ax.errorbar(
                    x,
                    group["ours"],
                    yerr=_interval_errors(group),
                    marker="o",
                    ms=3,
                    capsize=2,
                    label=f"{name} (ccsim)" if name != "" else "ccsim",
                )
                if group["published"].notna().any():
                    ax.plot(
                        x,
                        group["published"],
                        ls="--",
                        marker="x",
                        color=line.lines[0].get_color(),
                        label=f"{name} (paper)",
                    )
            ax.set_xlabel(spec.xlabel or spec.x)
        else:
            labels = [" ".join(str(r[k]) for k in keys) for _, r in rows_m.iterrows()]
            positions = np.arange(len(labels))
            ax.bar(
                positions - 0.2,
                rows_m["ours"],
                0.4,
                yerr=_interval_errors(rows_m),
                label="ccsim",
                capsize=2,
            )
            ax.bar(positions + 0.2, rows_m["published"], 0.4, label="paper")
            # Past a few dozen bars every label overlaps its neighbours (and drawing hundreds
            # of rotated labels takes seconds): label every k-th bar, in the table's order.
            step = max(1, math.ceil(len(labels) / MAX_BAR_LABELS))
            ax.set_xticks(positions[::step], labels[::step], rotation=30, ha="right", fontsize=7)
        ax.set_title(metric, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(metrics) :]:
        ax.set_visible(False)
    figure.tight_layout()
    return figure
