"""A number the battery reports (:class:`Metric`): its name, unit, range and format, and how a
quantity of it and a paired difference read."""

from __future__ import annotations

from dataclasses import dataclass

from ccsim.studies.evidence import Bounds, Quantity

__all__ = ["Metric"]


@dataclass(frozen=True)
class Metric:
    """A number the battery reports: its name, unit, range (for the confidence interval) and
    the format a value is printed in (after scaling to ``unit``)."""

    name: str
    unit: str
    bounds: Bounds
    fmt: str

    def shown(self, quantity: Quantity, signed: bool = False) -> str:
        """``mean [low, high]`` in the metric's format (the mean alone with too few seeds)."""
        if not quantity.has_data:
            return "-"
        fmt = self.fmt

        def number(value: float, sign: str = "") -> str:
            # A value that rounds to zero is shown as 0, never -0.0.
            text = fmt.format(value)
            return fmt.replace("{:", "{:" + sign).format(0.0 if float(text) == 0 else value)

        text = number(quantity.mean, "+" if signed else "")
        ci = quantity.interval()
        if ci is not None:
            text += " [" + number(ci[0]) + ", " + number(ci[1]) + "]"
        return text

    def against(self, difference: Quantity, baseline: str) -> str:
        """How the evaluated algorithm compares with a baseline, from their paired
        ``difference``: above or below when its interval excludes zero and the difference shows
        at the metric's precision."""
        ci = difference.interval()
        if ci is None:
            return f"too few seeds to compare with {baseline}"

        def negligible(value: float) -> bool:
            return float(self.fmt.format(abs(value))) == 0

        if ci[0] > 0 or ci[1] < 0:
            if negligible(difference.mean):
                return f"same as {baseline}"
            return f"{'above' if ci[0] > 0 else 'below'} {baseline}"
        if negligible(ci[0]) and negligible(ci[1]):
            return f"same as {baseline}"
        return f"no clear difference from {baseline}"
