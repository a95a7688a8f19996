"""What a test's figures are drawn from (:class:`Drawing`): its measurements, every algorithm's
role and label, and the bar and line charts most tests draw, with matplotlib's Agg backend."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ccsim.evaluate.battery.metric import Metric
from ccsim.report.markup import png_of
from ccsim.studies.evidence import Quantity

__all__ = ["Drawing"]


@dataclass(frozen=True)
class Drawing:
    """What a test's figures are drawn from: its measurements (every algorithm and seed) and
    each algorithm's role and label. Its figures are drawn with matplotlib's Agg backend."""

    test: str
    frame: pd.DataFrame
    roles: Sequence[tuple[str, str]]

    def measured(self, metric: Metric) -> bool:
        # A test left out of the run (evaluate's ``tests``) gets no figure.
        return bool((self.frame["metric"] == metric.name).any())

    def lines(self, metric: Metric, ax: Any, log_x: bool) -> None:
        """One line per algorithm: the mean over seeds against the condition's order (its axis
        value), with the 95% interval."""
        for role, label in self.roles:
            chosen = self.frame[self.frame["metric"] == metric.name]
            chosen = chosen[chosen["role"] == role]
            if chosen.empty:
                continue
            xs, means, errors = [], [], []
            for x, group in chosen.groupby("order"):
                q = Quantity.replicated(zip(group["seed"], group["value"], strict=True))
                ci = q.interval()
                xs.append(x)
                means.append(q.mean)
                errors.append(0.0 if ci is None else (ci[1] - ci[0]) / 2)
            ax.errorbar(xs, means, yerr=errors, marker="o", capsize=3, label=label)
        if log_x:
            ax.set_xscale("log")
        ax.set_ylabel(metric.name + (f" ({metric.unit})" if metric.unit else ""))
        ax.grid(alpha=0.3)

    def bars(
        self, metrics: Sequence[Metric], reference: float | None = None
    ) -> list[tuple[str, bytes]]:
        """A bar chart by condition of each of ``metrics`` measured, one above the other (none
        when none is), with a dashed line at ``reference``."""
        import matplotlib.pyplot as plt

        drawn = [
            (metric, chosen)
            for metric in metrics
            if not (chosen := self.frame[self.frame["metric"] == metric.name]).empty
        ]
        if not drawn:
            return []
        widest = max(len(set(chosen["condition"])) for _, chosen in drawn)
        # One metric above the other, so that many conditions stay readable.
        size = (min(max(6, 1.3 * widest), 16), 4 if len(drawn) == 1 else 3.4 * len(drawn))
        figure, axes = plt.subplots(len(drawn), 1, figsize=size, squeeze=False)
        for ax, (metric, chosen) in zip(axes[:, 0], drawn, strict=True):
            self._bars(ax, metric, chosen, reference)
        name = f"{self.test}-{'-'.join(metric.name for metric in metrics)}"
        return [(name, self.png(figure))]

    def _bars(self, ax: Any, metric: Metric, chosen: Any, reference: float | None) -> None:
        """One bar per role and condition: the mean over seeds with its 95% interval."""
        conditions = list(dict.fromkeys(chosen.sort_values("order", kind="stable")["condition"]))
        width = 0.8 / len(self.roles)
        for i, (role, label) in enumerate(self.roles):
            means, errors, at = [], [], []
            for j, condition in enumerate(conditions):
                group = chosen[(chosen["condition"] == condition) & (chosen["role"] == role)]
                if group.empty:
                    continue
                q = Quantity.replicated(zip(group["seed"], group["value"], strict=True))
                ci = q.interval()
                at.append(j + i * width)
                means.append(q.mean)
                errors.append(0.0 if ci is None else (ci[1] - ci[0]) / 2)
            if at:
                ax.bar(at, means, width, yerr=errors, capsize=3, label=label)
        ax.set_xticks([j + width * (len(self.roles) - 1) / 2 for j in range(len(conditions))])
        ax.set_xticklabels([c.replace(", ", "\n") for c in conditions], fontsize=8)
        ax.set_ylabel(metric.name + (f" ({metric.unit})" if metric.unit else ""))
        if reference is not None:
            ax.axhline(reference, color="k", linestyle="--", linewidth=1)
        self.legend(ax)

    @staticmethod
    def legend(ax: Any) -> None:
        # A test left out of the run (evaluate's ``tests``) leaves its axes empty.
        if ax.get_legend_handles_labels()[0]:
            ax.legend()

    @staticmethod
    def png(figure: Any) -> bytes:
        """The figure as PNG, closed."""
        import matplotlib.pyplot as plt

        png = png_of(figure)
        plt.close(figure)
        return png
