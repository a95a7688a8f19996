"""Numbers as a reader wants them: with their unit and a sensible number of significant digits.

``21077200`` bits per second is ``21.1 Mb/s``, a loss fraction of ``8.71147e-05`` is
``0.0087 %``, ``0.0603`` s is ``60.3 ms``. Reports use these for single values
(:func:`format_rate`, :func:`format_percent`, :func:`format_duration`, :func:`format_bytes`) and
for table columns (:func:`column_format`: the column's unit chosen once, from its values, and
named in the header, so a column reads in one unit). Nothing here depends on the rest of the
report, so terminal output can share it.

Rates are spelled with bits and SI prefixes: ``b/s``, ``Kb/s``, ``Mb/s``, ``Gb/s``; sizes with
decimal prefixes (``KB`` = 1000 B), as scenarios write them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ColumnFormat",
    "column_format",
    "format_bytes",
    "format_count",
    "format_duration",
    "format_mean_ci",
    "format_number",
    "format_percent",
    "format_rate",
    "format_with_unit",
    "significant",
    "unit_of",
]

#: Significant digits of a measured value (a rate, a time, a size).
DIGITS = 3
#: Percentages keep at most this many decimals: smaller shares show as ``< 0.0001 %``.
PERCENT_DECIMALS = 4

#: (unit, size of the unit in the base unit), largest first.
RATE_UNITS = (("Gb/s", 1e9), ("Mb/s", 1e6), ("Kb/s", 1e3), ("b/s", 1.0))
TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
SIZE_UNITS = (("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("B", 1.0))

MISSING = "-"


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(math.isnan(value))
    except TypeError:
        return False


def significant(value: float, digits: int = DIGITS, max_decimals: int | None = None) -> str:
    """``value`` with ``digits`` significant digits, in plain decimal notation (never ``e+07``),
    without trailing zeros; whole numbers of more digits keep all of them (``2472``, not
    ``2470``). ``max_decimals`` caps the decimals (``0.00871`` with 4 -> ``0.0087``)."""
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    if max_decimals is not None:
        decimals = min(decimals, max_decimals)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _unit_for(magnitude: float, units: Sequence[tuple[str, float]]) -> tuple[str, float]:
    """The largest unit in which ``magnitude`` is at least 1 (the smallest unit otherwise)."""
    for name, size in units:
        if magnitude >= size:
            return name, size
    return units[-1]


def format_with_unit(
    value: float | None, units: Sequence[tuple[str, float]], digits: int = DIGITS
) -> str:
    """``value`` (in the base unit) in the unit that suits its magnitude: ``"21.1 Mb/s"``."""
    if _is_missing(value):
        return MISSING
    assert value is not None
    if math.isinf(value):
        return significant(value)
    name, size = _unit_for(abs(value), units)
    return f"{significant(value / size, digits)} {name}"


def format_rate(bps: float | None) -> str:
    """Bits per second: ``21077200`` -> ``"21.1 Mb/s"``."""
    return format_with_unit(bps, RATE_UNITS)


def format_duration(seconds: float | None) -> str:
    """Seconds: ``0.0603056`` -> ``"60.3 ms"``, ``2.0`` -> ``"2 s"``."""
    return format_with_unit(seconds, TIME_UNITS)


def format_bytes(size: float | None) -> str:
    """Bytes, decimal prefixes: ``452000`` -> ``"452 KB"``."""
    return format_with_unit(size, SIZE_UNITS)


def _percent_digits(percent: float) -> str:
    if percent != 0 and abs(percent) < 0.5 * 10**-PERCENT_DECIMALS:
        return f"< {10**-PERCENT_DECIMALS:.{PERCENT_DECIMALS}f}"
    return significant(percent, DIGITS, PERCENT_DECIMALS)


def format_percent(fraction: float | None) -> str:
    """A fraction as a percentage: ``8.71147e-05`` -> ``"0.0087 %"``, ``0.3248`` -> ``"32.5 %"``
    (three significant digits, at most four decimals; a tiny non-zero share is ``< 0.0001 %``)."""
    if _is_missing(fraction):
        return MISSING
    assert fraction is not None
    return f"{_percent_digits(fraction * 100)} %"


def format_count(value: float | None) -> str:
    """A count: whole numbers as they are; a mean of counts with three significant digits."""
    if _is_missing(value):
        return MISSING
    assert value is not None
    if float(value).is_integer():
        return str(int(value))
    return significant(float(value))


def format_number(value: Any, digits: int = 4) -> str:
    """A number of no known unit: plain decimals with ``digits`` significant digits; very large
    or small magnitudes as ``8.71 × 10⁻⁵`` (never ``8.71e-05``). Anything else as text."""
    if _is_missing(value):
        return MISSING
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int) or (float(value).is_integer() and abs(value) < 1e15):
        return str(int(value))
    number = float(value)
    if math.isinf(number) or number == 0 or 1e-4 <= abs(number) < 1e6:
        return significant(number, digits)
    exponent = math.floor(math.log10(abs(number)))
    mantissa = significant(number / 10**exponent, digits)
    return f"{mantissa} × 10{_superscript(exponent)}"


def _superscript(exponent: int) -> str:
    return str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


# ---- table columns -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnFormat:
    """How a table shows one column: its header (with the unit) and each value's text."""

    header: str
    format: Callable[[Any], str]
    #: Right-aligned (numbers), or left (names, text).
    numeric: bool = True


#: Headers of columns whose name alone would read badly; the unit is added after.
LABELS = {
    "cc": "algorithm",
    "base_rtt_s": "base RTT",
    "mean_rtt_s": "mean RTT",
    "goodput_bps": "goodput",
    "rate_bps": "rate",
    "bottleneck_rate_bps": "bottleneck rate",
    "final_cwnd_pkts": "final cwnd",
    "in_flight_end": "in flight at end",
    "in_link_end": "in link at end",
    "mean_queue_pkts": "mean queue",
    "max_queue_pkts": "max queue",
    "size_bytes": "size",
    "bytes_acked": "acked",
    "jain": "Jain index",
    "mean_completion_s": "mean transfer time",
    "completion_s": "transfer time",
    "wall_s": "wall time",
    "run_id": "run",
    "loss_rate": "loss rate",
    "utilization": "utilisation",
}

#: Columns that hold a fraction, shown as a percentage.
FRACTIONS = {"utilization", "loss_rate", "loss", "reverse_loss", "share"}
#: Columns of 0/1 flags, shown as yes/no.
FLAGS = {"completed", "reverse", "monitored"}


def _label(name: str, suffix: str = "") -> str:
    if name in LABELS:
        return LABELS[name]
    base = name.removesuffix(suffix) if suffix else name
    return base.replace("_", " ")


def _typical(values: Iterable[Any]) -> float:
    """The largest magnitude of the finite numbers (what picks a column's unit: the largest value
    reads below 1000 of it, ``1.86`` and ``0.264 Mb/s`` rather than ``1864`` and ``264 Kb/s``)."""
    magnitudes = sorted(
        abs(float(v))
        for v in values
        if isinstance(v, int | float)
        and not isinstance(v, bool)
        and not _is_missing(v)
        and math.isfinite(v)
        and v != 0
    )
    return magnitudes[-1] if magnitudes else 0.0


def _scaled(size: float, digits: int = DIGITS) -> Callable[[Any], str]:
    def show(value: Any) -> str:
        if _is_missing(value):
            return MISSING
        if not isinstance(value, int | float) or isinstance(value, bool):
            return str(value)
        return significant(float(value) / size, digits)

    return show


def _percent(value: Any) -> str:
    if _is_missing(value):
        return MISSING
    if not isinstance(value, int | float) or isinstance(value, bool):
        return str(value)
    return _percent_digits(float(value) * 100)


def _flag(value: Any) -> str:
    if _is_missing(value):
        return MISSING
    if isinstance(value, bool | int | float):
        return "yes" if value else "no"
    return str(value)


def _plain(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return format_number(value)
    return MISSING if _is_missing(value) else str(value)


def _numeric(values: Sequence[Any]) -> bool:
    present = [v for v in values if not _is_missing(v)]
    return bool(present) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in present
    )


def column_format(name: str, values: Sequence[Any]) -> ColumnFormat:
    """The header and formatter of column ``name`` holding ``values``: the unit is read from the
    name (``_bps`` a rate, ``_s`` a time, ``_bytes`` a size, ``_pkts`` packets, a fraction such
    as ``utilization`` a percentage) and its prefix chosen from the values' typical magnitude, so
    ``goodput_bps`` of about 2e7 becomes ``goodput (Mb/s)`` with values like ``21.1``."""
    numeric = _numeric(values)
    if not numeric:
        return ColumnFormat(_label(name), _plain, numeric=False)
    typical = _typical(values)
    if name in FLAGS:
        return ColumnFormat(_label(name), _flag, numeric=False)
    if name in FRACTIONS or name.endswith("_fraction"):
        return ColumnFormat(f"{_label(name, '_fraction')} (%)", _percent)
    for suffix, units in (("_bps", RATE_UNITS), ("_s", TIME_UNITS), ("_bytes", SIZE_UNITS)):
        if name.endswith(suffix):
            unit, size = _unit_for(typical, units) if typical else units[0]
            return ColumnFormat(f"{_label(name, suffix)} ({unit})", _scaled(size))
    if name == "bytes_acked":
        unit, size = _unit_for(typical, SIZE_UNITS) if typical else SIZE_UNITS[-1]
        return ColumnFormat(f"{_label(name)} ({unit})", _scaled(size))
    if name.endswith("_pkts"):
        return ColumnFormat(f"{_label(name, '_pkts')} (pkts)", format_count)
    if name == "jain":
        return ColumnFormat(_label(name), _scaled(1.0))
    return ColumnFormat(_label(name), _plain)


# ---- means and their confidence intervals --------------------------------------------------------


def format_mean_ci(mean: float, half_width: float, size: float = 1.0) -> str:
    """``mean ± half-width`` in units of ``size``: the half-width with two significant digits and
    the mean to the same decimal place (``4.2036 ± 1.9612`` -> ``4.2 ± 2.0``); ``n/a`` for an
    undefined interval (one replicate), ``-`` without a mean."""
    if _is_missing(mean):
        return MISSING
    shown = mean / size
    if _is_missing(half_width):
        return f"{significant(shown)} ± n/a"
    half = half_width / size
    if half == 0 or not math.isfinite(half) or not math.isfinite(shown):
        return f"{significant(shown)} ± {significant(half)}"
    decimals = min(6, max(0, 1 - math.floor(math.log10(abs(half)))))
    return f"{shown:.{decimals}f} ± {half:.{decimals}f}"


def unit_of(kind: str, values: Iterable[Any]) -> tuple[str, float]:
    """The unit (name, size) in which a column of ``kind`` (``rate``, ``time``, ``size``,
    ``percent`` or ``plain``) reads best, from the typical magnitude of its ``values``."""
    typical = _typical(values)
    if kind == "percent":
        return "%", 0.01
    units = {"rate": RATE_UNITS, "time": TIME_UNITS, "size": SIZE_UNITS}.get(kind)
    if units is None:
        return "", 1.0
    return _unit_for(typical, units) if typical else units[0]
