"""Quantities with units: parsing, error messages, formatting and round trips."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from ccsim.errors import ScenarioError
from ccsim.units import (
    MAX_BUFFER_PKTS,
    MAX_RATE_BPS,
    MAX_SIZE_BYTES,
    MAX_TIME_NS,
    RATE_UNITS,
    SIZE_UNITS,
    TIME_UNITS,
    Buffer,
    bdp_packets,
    format_rate,
    format_size,
    format_time,
    parse_buffer,
    parse_rate,
    parse_size,
    parse_time,
    parse_transfer_size,
)
from conftest import requires_engine
from hypothesis import given
from hypothesis import strategies as st

# ---- good values -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "bps"),
    [
        ("500bps", 500),
        ("10Kbps", 10_000),
        ("100Mbps", 100_000_000),
        ("1Gbps", 1_000_000_000),
        ("1.5Gbps", 1_500_000_000),
        ("0.001Mbps", 1_000),
        ("2.5e3Mbps", 2_500_000_000),
        (" 100 Mbps ", 100_000_000),
    ],
)
def test_rates(text: str, bps: int) -> None:
    assert parse_rate(text) == bps


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("10ns", 10),
        ("250us", 250_000),
        ("40ms", 40_000_000),
        ("1s", 1_000_000_000),
        ("0.1s", 100_000_000),  # exact: parsed as a decimal, not a float
        ("2min", 120_000_000_000),
        ("0s", 0),
        ("1.4ns", 1),  # rounded to the nearest nanosecond
        ("1.5ns", 2),
    ],
)
def test_times(text: str, ns: int) -> None:
    assert parse_time(text) == ns


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("1500B", 1500),
        ("64KB", 64_000),
        ("2MB", 2_000_000),
        ("1GB", 1_000_000_000),
        ("64KiB", 65_536),
        ("1MiB", 1_048_576),
        ("1GiB", 2**30),
        ("1.5KB", 1500),
        ("0B", 0),
    ],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_transfer_size_inf_means_endless() -> None:
    assert parse_transfer_size("inf") is None
    assert parse_transfer_size("2MB") == 2_000_000


@pytest.mark.parametrize(
    ("text", "buffer"),
    [
        ("50pkts", Buffer(Decimal(50), "pkts")),
        ("1pkt", Buffer(Decimal(1), "pkts")),
        ("64KB", Buffer(Decimal(64_000), "bytes")),
        ("0.5bdp", Buffer(Decimal("0.5"), "bdp")),
        ("1bdp", Buffer(Decimal(1), "bdp")),
        ("0pkts", Buffer(Decimal(0), "pkts")),
    ],
)
def test_buffers(text: str, buffer: Buffer) -> None:
    assert parse_buffer(text) == buffer


def test_buffer_limits() -> None:
    assert parse_buffer("50pkts").limits(10**8, None, 1040) == (50, None)
    assert parse_buffer("64KB").limits(10**8, None, 1040) == (None, 64_000)
    # 100 Mbps x 20 ms / (8 x 1040 B) = 240.38 -> 241 packets
    assert parse_buffer("1bdp").limits(10**8, 20_000_000, 1040) == (241, None)


# ---- bad values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parse", "value", "fragment"),
    [
        (
            parse_rate,
            "100Mbs",
            '"100Mbs" is not a rate; expected a number with a unit like "100Mbps"',
        ),
        (parse_rate, "100Mbits", "is not a rate"),
        (parse_rate, "100Mb/h", "is not a rate"),
        (parse_rate, "Mbps", "is not a rate"),
        (parse_rate, "", "is not a rate"),
        (parse_rate, 100, "100 is not a rate"),
        (parse_rate, True, "true is not a rate"),
        (parse_rate, "-10Mbps", '"-10Mbps" is negative'),
        (parse_rate, "0Mbps", "is zero"),
        (parse_rate, "0.1bps", "is zero"),
        (parse_time, "40", '"40" is not a time; expected a number with a unit like "40ms"'),
        (parse_time, "-5ms", '"-5ms" is negative'),
        (parse_time, "5 sec", "is not a time"),
        (parse_time, "nan s", "is not a time"),
        (parse_time, "1e30s", "too large"),
        (parse_time, "1e999999999999s", "too large"),
        (parse_size, "1.5B", "not a whole number of bytes"),
        (parse_size, "10kb", "is not a size"),
        (parse_size, "10mB", "is not a size"),  # "m" is milli: no size
        (parse_time, "10MS", "is not a time"),  # ms and Ms are different units: no guessing
        (parse_size, "inf", "is not a size"),
        (parse_transfer_size, "0B", "is zero"),
        (parse_transfer_size, "lots", 'expected "inf" or a size'),
        (parse_buffer, "1.5pkts", "not a whole number of packets"),
        (parse_buffer, "0bdp", "is zero"),
        (parse_buffer, "50", "is not a buffer size"),
        (parse_buffer, "-1pkts", "is negative"),
    ],
)
def test_bad_values_name_the_key_value_and_expectation(parse, value, fragment: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse(value, ("topology", "links", 2, "rate"))
    message = str(caught.value)
    assert message.startswith("topology.links[2].rate: ")
    assert fragment in message
    assert "\n" not in message
    assert "expected" in message or "too large" in message or "whole number" in message


def test_error_lists_the_units() -> None:
    with pytest.raises(ScenarioError, match=r"\(bps, Kbps, Mbps, Gbps\)"):
        parse_rate("100Mbs")
    with pytest.raises(ScenarioError, match=r"\(ns, us, ms, s, min\)"):
        parse_time("1h")


# ---- other spellings, and bits for bytes ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("100Mb/s", "100Mbps"),
        ("100mbps", "100Mbps"),
        ("100MbPs", "100Mbps"),
        ("100mb/s", "100Mbps"),
        ("100Mbit/s", "100Mbps"),
        ("10kbps", "10Kbps"),
        ("10Kb/s", "10Kbps"),
        ("1gbps", "1Gbps"),
        ("1Gb/s", "1Gbps"),
        ("500b/s", "500bps"),
        ("500bPS", "500bps"),
        (" 2.5 mb/S ", "2.5Mbps"),
    ],
)
def test_rate_units_may_be_written_in_any_case_and_per_second(text: str, canonical: str) -> None:
    assert parse_rate(text) == parse_rate(canonical)


@given(
    st.integers(min_value=1, max_value=10**4),
    st.sampled_from(["", "k", "K", "m", "M", "g", "G"]),
    st.sampled_from(["ps", "pS", "Ps", "PS", "/s", "/S", "it/s"]),
)
def test_every_bit_rate_spelling_scales_like_its_unit(n: int, prefix: str, suffix: str) -> None:
    assert parse_rate(f"{n}{prefix}b{suffix}") == n * RATE_UNITS[f"{prefix.upper()}bps"]


@given(st.integers(min_value=1, max_value=MAX_RATE_BPS))
def test_rates_written_per_second_round_trip(bps: int) -> None:
    # The formatter's spelling ("Mbps") and the "/s" one ("Mb/s") load to the same number.
    assert parse_rate(format_rate(bps).replace("bps", "b/s")) == bps


@pytest.mark.parametrize(
    ("text", "buffer"),
    [
        ("1BDP", Buffer(Decimal(1), "bdp")),
        ("0.5Bdp", Buffer(Decimal("0.5"), "bdp")),
        ("50PKTS", Buffer(Decimal(50), "pkts")),
        ("1Pkt", Buffer(Decimal(1), "pkts")),
        ("64kB", Buffer(Decimal(64_000), "bytes")),
    ],
)
def test_buffer_units_in_any_case(text: str, buffer: Buffer) -> None:
    assert parse_buffer(text) == buffer
    assert str(parse_buffer(text)) == str(buffer)  # written back in the usual spelling


def test_a_kilobyte_may_be_written_the_si_way() -> None:
    assert parse_size("64kB") == parse_size("64KB") == 64_000
    assert format_size(parse_size("64kB")) == "64KB"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("10MB/s", '"80Mbps" for 10 megabytes per second, or "10Mbps" for 10 megabits per second'),
        ("10MBps", '"80Mbps" for 10 megabytes per second'),
        # All capitals say nothing about bits or bytes: asked, not guessed.
        ("10MBPS", '"80Mbps" for 10 megabytes per second, or "10Mbps" for 10 megabits'),
        ("1GB/s", '"8Gbps" for 1 gigabyte per second, or "1Gbps" for 1 gigabit per second'),
        ("100kB/s", '"800Kbps" for 100 kilobytes per second'),
        ("1Bps", '"8bps" for 1 byte per second, or "1bps" for 1 bit per second'),
        # No exact rate in bits to offer: only the other reading.
        ("0.01Bps", 'per second: expected "0.01bps" for 0.01 bits per second'),
        ("1e999999999MB/s", 'expected "1e999999999Mbps" for 1e999999999 megabits per second'),
    ],
)
def test_a_rate_in_bytes_explains_bits_and_bytes(text: str, fragment: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_rate(text, ("topology", "bottleneck_rate"))
    message = str(caught.value)
    assert message.startswith(f'topology.bottleneck_rate: "{text}" is not a rate; ')
    assert "B is bytes and b is bits, and a rate is in bits per second" in message
    assert fragment in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("parse", "text", "fragment"),
    [
        (parse_size, "1Mb", '"1MB" for 1 megabyte, or "125KB" for 1 megabit'),
        (parse_size, "10kb", '"10KB" for 10 kilobytes, or "1.25KB" for 10 kilobits'),
        (parse_size, "2gb", '"2GB" for 2 gigabytes, or "250MB" for 2 gigabits'),
        (parse_size, "64Kib", '"64KiB" for 64 kibibytes, or "8KiB" for 64 kibibits'),
        (parse_size, "1b", 'expected "1B" for 1 byte'),  # an eighth of a byte is no size
        (parse_transfer_size, "2Mb", '"2MB" for 2 megabytes, or "250KB" for 2 megabits'),
        (parse_buffer, "64Kb", '"64KB" for 64 kilobytes, or "8KB" for 64 kilobits'),
    ],
)
def test_a_size_in_bits_explains_bits_and_bytes(parse, text: str, fragment: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse(text, ("flows", 0, "size"))
    message = str(caught.value)
    assert message.startswith(f'flows[0].size: "{text}" is not a ')
    assert "b is bits and B is bytes, and a size is in bytes" in message
    assert fragment in message


def _suggestions(parse, text: str) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        parse(text)
    return re.findall(r'"([^"]+)" for', str(caught.value))


@given(st.integers(min_value=1, max_value=10**3), st.sampled_from(["", "K", "M", "G"]))
def test_the_spellings_offered_for_a_byte_rate_mean_what_they_say(n: int, prefix: str) -> None:
    as_bytes, as_bits = _suggestions(parse_rate, f"{n}{prefix}B/s")
    assert parse_rate(as_bytes) == 8 * n * RATE_UNITS[f"{prefix}bps"]
    assert parse_rate(as_bits) == n * RATE_UNITS[f"{prefix}bps"]


@given(st.integers(min_value=1, max_value=10**5), st.sampled_from(["K", "M", "G", "Ki", "Mi"]))
def test_the_spellings_offered_for_a_size_in_bits_mean_what_they_say(n: int, prefix: str) -> None:
    offered = _suggestions(parse_size, f"{n}{prefix}b")
    assert parse_size(offered[0]) == n * SIZE_UNITS[f"{prefix}B"]
    if len(offered) == 2:  # the size in bits, when it is whole bytes
        assert parse_size(offered[1]) * 8 == n * SIZE_UNITS[f"{prefix}B"]
    else:
        assert n * SIZE_UNITS[f"{prefix}B"] % 8 != 0


# ---- formatting and round trips --------------------------------------------------------------


@pytest.mark.parametrize(
    ("format_", "value", "text"),
    [
        (format_rate, 100_000_000, "100Mbps"),
        (format_rate, 1_500_000, "1.5Mbps"),
        (format_rate, 1, "1bps"),
        (format_rate, 1_234_567, "1.234567Mbps"),
        (format_time, 40_000_000, "40ms"),
        (format_time, 60_000_000_000, "60s"),
        (format_time, 250_000, "250us"),
        (format_time, 0, "0s"),
        (format_size, 64_000, "64KB"),
        (format_size, 65_536, "64KiB"),
        (format_size, 1040, "1.04KB"),
        (format_size, 0, "0B"),
    ],
)
def test_format(format_, value: int, text: str) -> None:
    assert format_(value) == text


@given(st.integers(min_value=1, max_value=MAX_RATE_BPS))
def test_rate_round_trip(bps: int) -> None:
    assert parse_rate(format_rate(bps)) == bps


@given(st.integers(min_value=0, max_value=MAX_TIME_NS))
def test_time_round_trip(ns: int) -> None:
    assert parse_time(format_time(ns)) == ns


@given(st.integers(min_value=0, max_value=10**15))
def test_size_round_trip(size: int) -> None:
    assert parse_size(format_size(size)) == size


@given(st.integers(min_value=1, max_value=10**4), st.sampled_from(sorted(RATE_UNITS)))
def test_rate_units_scale_exactly(n: int, unit: str) -> None:
    assert parse_rate(f"{n}{unit}") == n * RATE_UNITS[unit]


@given(st.integers(min_value=0, max_value=10**5), st.sampled_from(sorted(TIME_UNITS)))
def test_time_units_scale_exactly(n: int, unit: str) -> None:
    assert parse_time(f"{n}{unit}") == n * TIME_UNITS[unit]


@given(st.integers(min_value=0, max_value=10**5), st.sampled_from(sorted(SIZE_UNITS)))
def test_size_units_scale_exactly(n: int, unit: str) -> None:
    assert parse_size(f"{n}{unit}") == n * SIZE_UNITS[unit]


@given(st.decimals(min_value=0, max_value=10**6, places=6, allow_nan=False, allow_infinity=False))
def test_decimal_milliseconds_are_exact(ms: Decimal) -> None:
    # Six decimals of a millisecond are whole nanoseconds: no rounding may happen.
    assert parse_time(f"{ms}ms") == int(ms * 10**6)


@pytest.mark.parametrize(
    ("parse", "text", "fragment"),
    [
        (parse_time, "10000001s", 'expected at most "10000000s"'),
        (parse_rate, "10001Gbps", 'expected at most "10000Gbps"'),
        (parse_size, "1000001GB", 'expected at most "1000000GB"'),
        (parse_buffer, "1e5000pkts", 'expected at most "1000000000000pkts"'),
        (parse_buffer, "1e999999999pkts", 'expected at most "1000000000000pkts"'),
        (parse_buffer, "1e30pkts", 'expected at most "1000000000000pkts"'),
        (parse_buffer, "1e999999999bdp", 'to "1000000bdp"'),
        (parse_buffer, "1e-999999999bdp", 'from "0.000001bdp"'),
        (parse_buffer, "1e999999999B", "too large for a size"),
        (parse_time, "1e999999999s", "too large for a time"),
    ],
)
def test_quantities_beyond_the_engine_are_refused_at_once(parse, text: str, fragment: str) -> None:
    # Each of these once overflowed, hit Python's integer-conversion limit or took forever.
    with pytest.raises(ScenarioError) as caught:
        parse(text, ("topology", "buffer"))
    assert str(caught.value).startswith("topology.buffer: "), caught.value
    assert fragment in str(caught.value)


def test_the_largest_quantities_are_accepted() -> None:
    assert parse_time(format_time(MAX_TIME_NS)) == MAX_TIME_NS
    assert parse_rate(format_rate(MAX_RATE_BPS)) == MAX_RATE_BPS
    assert parse_size(format_size(MAX_SIZE_BYTES)) == MAX_SIZE_BYTES
    assert parse_buffer(f"{MAX_BUFFER_PKTS}pkts").amount == MAX_BUFFER_PKTS


# ---- bandwidth-delay products ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rate", "rtt_ns", "packet", "multiple", "packets"),
    [
        (100_000_000, 20_000_000, 1040, "1", 241),  # 240.38
        (100_000_000, 20_000_000, 1040, "0.5", 121),  # 120.19
        (10_000_000, 100_000_000, 1500, "1", 84),  # 83.33
        (1_000_000_000, 8_320, 1040, "1", 1),  # exactly one packet: no rounding up
        (1_000, 1_000, 1040, "1", 1),  # tiny BDPs are still one packet
        (100_000_000, 20_000_000, 1040, "2", 481),  # 480.77
    ],
)
def test_bdp_packets(rate: int, rtt_ns: int, packet: int, multiple: str, packets: int) -> None:
    assert bdp_packets(rate, rtt_ns, packet, Decimal(multiple)) == packets


def test_stack_settings_are_printed_the_same_everywhere() -> None:
    from ccsim.units import format_setting

    assert format_setting("sack", True) == "on"
    assert format_setting("slow_start_cap", None) == "none"
    assert format_setting("min_rto_ns", 200_000_000) == "200ms"
    assert format_setting("initial_window", 3.0) == "3"
    assert format_setting("initial_window", 2.5) == "2.5"


@requires_engine
@given(st.integers(min_value=0, max_value=MAX_TIME_NS))
def test_the_engine_writes_times_as_the_scenario_file_does(ns: int) -> None:
    # The engine's messages quote times in the user's spelling ("40ms", "1.5s").
    from ccsim import _core

    assert _core.format_time(ns) == format_time(ns)
