"""Quantities with units, as written in scenario files.

A scenario says ``"100Mbps"``, ``"40ms"``, ``"64KB"`` or ``"0.5bdp"``; the engine wants integers in
bit/s, nanoseconds and bytes. This module converts both ways:

* ``parse_*`` turn a string into the engine's integer, or raise :class:`~ccsim.errors.ScenarioError`
  naming the key path, the value and what was expected;
* ``format_*`` turn an integer back into the shortest exact string, so that a normalized scenario
  file reads naturally and loads back to the same numbers.

Numbers are parsed as :class:`~decimal.Decimal`, never as floats, so ``"0.1s"`` is exactly
100 000 000 ns and a value survives any number of format/parse round trips. Units are decimal
(``KB`` = 1000 B); ``KiB``/``MiB``/``GiB`` are the binary sizes.

Case matters only where it changes the meaning. ``B`` is bytes and ``b`` bits: a size is in bytes
(``"1MB"``), a rate in bits (``"100Mbps"``), and a size in bits or a rate in bytes is refused with
both readings spelled out. Otherwise a rate's unit may be written in any case and as ``b/s`` or
``bit/s`` (``"100mbps"``, ``"100Mb/s"``), a kilobyte also as ``kB``, and ``bdp``/``pkts`` in any
case (``"1BDP"``); times stay exact (``ms`` is not ``Ms``).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from ccsim.errors import PathItem, ScenarioError, show_value

__all__ = [
    "HEADER_BYTES",
    "MAX_BDP_MULTIPLE",
    "MAX_BUFFER_PKTS",
    "MAX_RATE_BPS",
    "MAX_SIZE_BYTES",
    "MAX_TIME_NS",
    "MIN_BDP_MULTIPLE",
    "RATE_UNITS",
    "SIZE_UNITS",
    "TIME_UNITS",
    "Buffer",
    "bdp_packets",
    "format_rate",
    "format_size",
    "format_time",
    "parse_buffer",
    "parse_rate",
    "parse_size",
    "parse_time",
    "parse_transfer_size",
]

RATE_UNITS: dict[str, int] = {"bps": 1, "Kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9}
TIME_UNITS: dict[str, int] = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9}
SIZE_UNITS: dict[str, int] = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
}

#: TCP/IP header bytes on every packet: a data packet is ``mss + 40`` bytes on the wire, an ACK 40.
HEADER_BYTES = 40

# The engine stores every quantity in a u64.
_U64_LIMIT = 2**64

#: The longest time anywhere in a scenario (10^7 s, about 116 days): the engine's MAX_TIME_NS.
MAX_TIME_NS = 10**16
#: The fastest link, bit/s (10 Tbps): the engine's MAX_RATE_BPS.
MAX_RATE_BPS = 10**13
#: The largest size (1 PB): a transfer, a generator's mean size, a buffer in bytes.
MAX_SIZE_BYTES = 10**15
#: The largest buffer in packets the syntax accepts (the engine's limit is 2^40); a scenario's
#: ``limits.buffer_pkts`` sets the bound actually applied.
MAX_BUFFER_PKTS = 10**12
#: Buffers in BDPs: multiples outside this range are typing mistakes.
MAX_BDP_MULTIPLE = Decimal(10**6)
MIN_BDP_MULTIPLE = Decimal("1e-6")

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_QUANTITY = re.compile(rf"\s*({_NUMBER})\s*([A-Za-z]+(?:/[A-Za-z]+)?)\s*")

# A decimal prefix in either case ("k" is the SI spelling, "K" ours), then bits or bytes.
_PREFIX = "[kKmMgG]?"
# Rates: "bps", "b/s" or "bit/s" with "ps"/"s" in any case; the "b" must be lowercase (bits).
_BIT_RATE_UNIT = re.compile(rf"({_PREFIX})b(?:[pP][sS]|/[sS]|it/[sS])")
# A rate in bytes ("MB/s", "MBps", and "MBPS", where the case says nothing): refused.
_BYTE_RATE_UNIT = re.compile(rf"({_PREFIX})B(?:[pP][sS]|/[sS])")
# A size in bits ("Mb", "kb", "Mib"): refused, sizes are in bytes.
_BIT_SIZE_UNIT = re.compile(rf"({_PREFIX})(i?)b")
_PREFIX_WORDS = {"": "", "K": "kilo", "M": "mega", "G": "giga"}
_BINARY_PREFIX_WORDS = {"K": "kibi", "M": "mebi", "G": "gibi"}


@dataclass(frozen=True)
class _Kind:
    """What a quantity is called in messages, and the units it accepts."""

    noun: str
    example: str
    units: Sequence[str]
    hint: str = ""  # replaces the generic expectation when the units need explaining
    # Other accepted spellings of a unit ("mb/s" for "Mbps"); None for the exact names only.
    spelling: Callable[[str], str | None] | None = None
    # Given the number and the unit as written, the expectation to show for a unit that means
    # something else than the user likely meant (bits where bytes are expected), or None.
    confusion: Callable[[str, str], str | None] | None = None

    def expectation(self, qualifier: str = "") -> str:
        if self.hint:
            return f"expected {self.hint}"
        units = ", ".join(self.units)
        return f'expected a {qualifier}number with a unit like "{self.example}" ({units})'

    def unit(self, written: str) -> str | None:
        """The unit's name in :attr:`units` for the unit as written, or None."""
        if written in self.units:
            return written
        return self.spelling(written) if self.spelling is not None else None


def _rate_spelling(written: str) -> str | None:
    """``"mb/s"``, ``"Mb/s"``, ``"Mbit/s"``, ``"mbps"``, ``"MbPS"`` -> ``"Mbps"``."""
    match = _BIT_RATE_UNIT.fullmatch(written)
    return f"{match.group(1).upper()}bps" if match else None


def _size_spelling(written: str) -> str | None:
    """``"kB"`` (the SI spelling of a kilobyte) -> ``"KB"``."""
    return "KB" if written == "kB" else None


def _buffer_spelling(written: str) -> str | None:
    """``"BDP"``, ``"Pkts"`` -> ``"bdp"``, ``"pkts"``; sizes as :func:`_size_spelling`."""
    if written.lower() in ("pkts", "pkt", "bdp"):
        return written.lower()
    return _size_spelling(written)


def _plural(number: str, noun: str) -> str:
    return f"{number} {noun}" + ("" if Decimal(number) == 1 else "s")


def _exact_multiple(number: str, factor: Fraction, limit: int) -> int | None:
    """``number * factor`` when it is a whole number from 1 to ``limit``, else None."""
    amount = Decimal(number)
    if not -30 <= amount.adjusted() <= 30:  # no arithmetic on "1e999999999"
        return None
    exact = Fraction(amount) * factor
    if exact.denominator != 1 or not 0 < exact <= limit:
        return None
    return int(exact)


def _byte_rate_confusion(number: str, written: str) -> str | None:
    """For ``"10MB/s"``: both readings of the number, as rates in bits per second."""
    match = _BYTE_RATE_UNIT.fullmatch(written)
    if match is None:
        return None
    prefix = match.group(1).upper()
    per_second = _PREFIX_WORDS[prefix]
    meant_bits = f'"{number}{prefix}bps" for {_plural(number, per_second + "bit")} per second'
    reason = "B is bytes and b is bits, and a rate is in bits per second"
    bps = _exact_multiple(number, Fraction(RATE_UNITS[f"{prefix}bps"] * 8), MAX_RATE_BPS)
    if bps is None:
        return f"{reason}: expected {meant_bits}"
    meant_bytes = f'"{format_rate(bps)}" for {_plural(number, per_second + "byte")} per second'
    return f"{reason}: expected {meant_bytes}, or {meant_bits}"


def _bit_size_confusion(number: str, written: str) -> str | None:
    """For ``"1Mb"``: both readings of the number, as sizes in bytes."""
    match = _BIT_SIZE_UNIT.fullmatch(written)
    if match is None:
        return None
    prefix, binary = match.group(1).upper(), match.group(2)
    if binary and not prefix:
        return None  # "ib" is no unit at all
    words = _BINARY_PREFIX_WORDS if binary else _PREFIX_WORDS
    bytes_unit = f"{prefix}{binary}B"
    meant_bytes = f'"{number}{bytes_unit}" for {_plural(number, words[prefix] + "byte")}'
    reason = "b is bits and B is bytes, and a size is in bytes"
    size = _exact_multiple(number, Fraction(SIZE_UNITS[bytes_unit], 8), MAX_SIZE_BYTES)
    if size is None:
        return f"{reason}: expected {meant_bytes}"
    meant_bits = f'"{format_size(size)}" for {_plural(number, words[prefix] + "bit")}'
    return f"{reason}: expected {meant_bytes}, or {meant_bits}"


_RATE = _Kind(
    "rate",
    "100Mbps",
    tuple(RATE_UNITS),
    spelling=_rate_spelling,
    confusion=_byte_rate_confusion,
)
_TIME = _Kind("time", "40ms", tuple(TIME_UNITS))
_SIZE = _Kind(
    "size", "64KB", tuple(SIZE_UNITS), spelling=_size_spelling, confusion=_bit_size_confusion
)
_BUFFER = _Kind(
    "buffer size",
    "50pkts",
    ("pkts", "pkt", "bdp", *SIZE_UNITS),
    hint='a number of packets like "50pkts", a size like "64KB", '
    'or a multiple of the bandwidth-delay product like "1bdp"',
    spelling=_buffer_spelling,
    confusion=_bit_size_confusion,
)


def _split(value: object, kind: _Kind, path: Sequence[PathItem]) -> tuple[Decimal, str]:
    """Split ``"100Mbps"`` into ``(Decimal(100), "Mbps")``, rejecting anything else; a unit
    written another accepted way (``"100mb/s"``) comes back under its name in ``kind.units``."""
    if not isinstance(value, str):
        raise ScenarioError(f"{show_value(value)} is not a {kind.noun}; {kind.expectation()}", path)
    match = _QUANTITY.fullmatch(value)
    unit = kind.unit(match.group(2)) if match is not None else None
    if match is None or unit is None:
        confusion = None
        if match is not None and kind.confusion is not None:
            confusion = kind.confusion(match.group(1).lstrip("+-"), match.group(2))
        raise ScenarioError(
            f"{show_value(value)} is not a {kind.noun}; {confusion or kind.expectation()}", path
        )
    number = Decimal(match.group(1))
    if number < 0:
        raise ScenarioError(
            f"{show_value(value)} is negative; {kind.expectation('non-negative ')}", path
        )
    return number, unit


def _scale(
    value: str, number: Decimal, factor: int, kind: _Kind, path: Sequence[PathItem]
) -> Decimal:
    """``number * factor`` exactly, or an error if it is too large for the engine."""
    try:
        with decimal.localcontext() as ctx:
            ctx.prec = 60
            ctx.traps[decimal.Inexact] = False
            scaled = number * factor
    except ArithmeticError:
        scaled = Decimal(_U64_LIMIT)
    if scaled >= _U64_LIMIT:
        raise ScenarioError(f"{show_value(value)} is too large for a {kind.noun}", path)
    return scaled


def _to_int(scaled: Decimal) -> int:
    """Round to the nearest integer (halves away from zero)."""
    return int(scaled.quantize(Decimal(1), rounding=decimal.ROUND_HALF_UP))


def _at_most(value: object, amount: int, limit: int, shown: str, path: Sequence[PathItem]) -> int:
    if amount > limit:
        raise ScenarioError(f"{show_value(value)} is too large; expected at most {shown}", path)
    return amount


def parse_rate(value: object, path: Sequence[PathItem] = ()) -> int:
    """``"100Mbps"`` -> ``100_000_000`` (bit/s). Rates must be positive, at most 10 Tbps."""
    number, unit = _split(value, _RATE, path)
    bps = _to_int(_scale(str(value), number, RATE_UNITS[unit], _RATE, path))
    if bps <= 0:
        raise ScenarioError(f"{show_value(value)} is zero; {_RATE.expectation('positive ')}", path)
    return _at_most(value, bps, MAX_RATE_BPS, f'"{format_rate(MAX_RATE_BPS)}"', path)


def parse_time(value: object, path: Sequence[PathItem] = ()) -> int:
    """``"40ms"`` -> ``40_000_000`` (nanoseconds, rounded to the nearest). Times may be zero;
    none may exceed :data:`MAX_TIME_NS`."""
    number, unit = _split(value, _TIME, path)
    ns = _to_int(_scale(str(value), number, TIME_UNITS[unit], _TIME, path))
    return _at_most(value, ns, MAX_TIME_NS, f'"{format_time(MAX_TIME_NS)}"', path)


def parse_size(value: object, path: Sequence[PathItem] = ()) -> int:
    """``"64KB"`` -> ``64_000``, ``"64KiB"`` -> ``65_536`` (bytes; a whole number, at most
    :data:`MAX_SIZE_BYTES`)."""
    number, unit = _split(value, _SIZE, path)
    scaled = _scale(str(value), number, SIZE_UNITS[unit], _SIZE, path)
    if scaled != scaled.to_integral_value():
        raise ScenarioError(f"{show_value(value)} is not a whole number of bytes", path)
    return _at_most(value, int(scaled), MAX_SIZE_BYTES, f'"{format_size(MAX_SIZE_BYTES)}"', path)


def parse_transfer_size(value: object, path: Sequence[PathItem] = ()) -> int | None:
    """A flow's transfer size in bytes; ``"inf"`` (an endless bulk transfer) gives ``None``."""
    if value == "inf":
        return None
    if not isinstance(value, str) or _QUANTITY.fullmatch(value) is None:
        raise ScenarioError(
            f'{show_value(value)} is not a transfer size; expected "inf" or a size like "2MB" '
            f"({', '.join(SIZE_UNITS)})",
            path,
        )
    size = parse_size(value, path)
    if size == 0:
        raise ScenarioError(
            f'{show_value(value)} is zero; expected a positive size like "2MB"', path
        )
    return size


@dataclass(frozen=True)
class Buffer:
    """A queue limit: a number of packets, a number of bytes, or a multiple of the BDP.

    ``amount`` is exact: whole packets, whole bytes, or a decimal multiple of the bandwidth-delay
    product, which is converted to packets once the link rate and reference RTT are known.
    """

    amount: Decimal
    unit: Literal["pkts", "bytes", "bdp"]

    def __str__(self) -> str:
        if self.unit == "bytes":
            return format_size(int(self.amount))
        return f"{_plain(self.amount)}{self.unit}"

    def limits(
        self, rate_bps: int, bdp_rtt_ns: int | Fraction | None, packet_bytes: int
    ) -> tuple[int | None, int | None]:
        """``(limit_pkts, limit_bytes)`` for the engine, on a link of ``rate_bps``.

        A BDP buffer needs the reference RTT ``bdp_rtt_ns`` and the packet size on the wire.
        """
        if self.unit == "pkts":
            return int(self.amount), None
        if self.unit == "bytes":
            return None, int(self.amount)
        if bdp_rtt_ns is None:
            raise ValueError(f'buffer "{self}" needs a reference RTT')
        return bdp_packets(rate_bps, bdp_rtt_ns, packet_bytes, self.amount), None


def parse_buffer(value: object, path: Sequence[PathItem] = ()) -> Buffer:
    """``"50pkts"``, ``"64KB"`` or ``"0.5bdp"`` -> :class:`Buffer`."""
    number, unit = _split(value, _BUFFER, path)
    # Compared as decimals first: int() of "1e999999999" would take forever.
    if unit in ("pkts", "pkt"):
        if number > MAX_BUFFER_PKTS:
            raise ScenarioError(
                f'{show_value(value)} is too large; expected at most "{MAX_BUFFER_PKTS}pkts"', path
            )
        if number != number.to_integral_value():
            raise ScenarioError(f"{show_value(value)} is not a whole number of packets", path)
        return Buffer(Decimal(int(number)), "pkts")
    if unit == "bdp":
        if number == 0:
            raise ScenarioError(
                f'{show_value(value)} is zero; expected a positive multiple like "1bdp"', path
            )
        if not MIN_BDP_MULTIPLE <= number <= MAX_BDP_MULTIPLE:
            raise ScenarioError(
                f"{show_value(value)} is out of range; expected a multiple from "
                f'"{MIN_BDP_MULTIPLE}bdp" to "{MAX_BDP_MULTIPLE}bdp"',
                path,
            )
        return Buffer(number.normalize(), "bdp")
    return Buffer(Decimal(parse_size(value, path)), "bytes")


def bdp_packets(
    rate_bps: int, rtt_ns: int | Fraction, packet_bytes: int, multiple: Decimal = Decimal(1)
) -> int:
    """``multiple`` bandwidth-delay products in packets: ``rate * rtt / (8 * packet_bytes)``.

    Computed exactly, rounded up, and at least 1 (a queue that holds nothing is never what
    "a fraction of a BDP" means).
    """
    exact = Fraction(multiple) * rate_bps * rtt_ns / (8 * packet_bytes * 10**9)
    return max(1, -(-exact.numerator // exact.denominator))


def _plain(number: Decimal) -> str:
    """A decimal without exponent or trailing zeros: ``Decimal("1.50")`` -> ``"1.5"``."""
    return format(number.normalize(), "f")


def _format_decimal(value: int, units: Sequence[tuple[str, int]]) -> str:
    """``value`` in the largest unit it reaches; units are powers of ten, largest first."""
    for unit, factor in units:
        if value >= factor:
            return f"{_plain(Decimal(value) / Decimal(factor))}{unit}"
    unit, _ = units[-1]
    return f"0{unit}"


def format_rate(bps: int) -> str:
    """``100_000_000`` -> ``"100Mbps"``; ``1_500_000`` -> ``"1.5Mbps"``. Exact."""
    return _format_decimal(bps, sorted(RATE_UNITS.items(), key=lambda kv: -kv[1]))


def format_time(ns: int) -> str:
    """``40_000_000`` -> ``"40ms"``; ``1_500_000_000`` -> ``"1.5s"``. Exact; never uses ``min``."""
    if ns == 0:
        return "0s"
    units = [(unit, factor) for unit, factor in TIME_UNITS.items() if unit != "min"]
    return _format_decimal(ns, sorted(units, key=lambda kv: -kv[1]))


def parse_signed_time(value: object, path: Sequence[PathItem] = ()) -> int:
    """``"-3ms"`` -> ``-3_000_000``: a time that may be negative (a clock offset), at most
    :data:`MAX_TIME_NS` either way."""
    if isinstance(value, str) and value.strip().startswith("-"):
        return -parse_time(value.strip()[1:], path)
    return parse_time(value, path)


def format_signed_time(ns: int) -> str:
    """``-3_000_000`` -> ``"-3ms"``."""
    return f"-{format_time(-ns)}" if ns < 0 else format_time(ns)


def format_size(size: int) -> str:
    """``64_000`` -> ``"64KB"``; ``65_536`` -> ``"64KiB"``; ``1_500`` -> ``"1.5KB"``. Exact."""
    if size % 1024 == 0 and size % 1000 != 0:
        for unit in ("GiB", "MiB", "KiB"):
            if size % SIZE_UNITS[unit] == 0:
                return f"{size // SIZE_UNITS[unit]}{unit}"
    decimal_units = [(unit, SIZE_UNITS[unit]) for unit in ("GB", "MB", "KB", "B")]
    return _format_decimal(size, decimal_units)


def format_setting(key: str, value: object) -> str:
    """A stack setting as printed with results: booleans as on/off, None as none, ``*_ns``
    durations with a unit, whole floats without their ``.0``."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if key.endswith("_ns") and isinstance(value, int):
        return format_time(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
