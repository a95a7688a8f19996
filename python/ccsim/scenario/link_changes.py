"""Links that change during a run: rate, delay and loss schedules, and traces of delivery
opportunities in Mahimahi's format. The rules the engine applies are in docs/links.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, PlainSerializer, model_validator

from ccsim import pycc
from ccsim.errors import ScenarioError, show_value
from ccsim.scenario.fields import Table, Time
from ccsim.units import MAX_TIME_NS, format_rate, format_time, parse_rate

#: Bytes one delivery opportunity of a trace carries (one 1500-byte packet).
OPPORTUNITY_BYTES = 1500
#: The most entries a trace may have (the engine's bound on a list in a scenario).
MAX_TRACE_ENTRIES = 1 << 24


def _rate_or_zero(value: object) -> int:
    """A scheduled rate: a rate like ``"20Mbps"``, or 0 (an outage: ``0``, ``"0"``,
    ``"0Mbps"``)."""
    if (value == 0 and not isinstance(value, bool)) or value == "0":
        return 0
    try:
        return parse_rate(value)
    except ScenarioError as error:
        if "is zero" in error.detail:
            return 0
        raise


ScheduledRate = Annotated[
    int,
    BeforeValidator(_rate_or_zero),
    PlainSerializer(lambda bps: format_rate(bps) if bps else "0bps"),
]
ScheduledLoss = Annotated[float, Field(strict=True, ge=0, lt=1, allow_inf_nan=False)]


def _is_array(value: object) -> bool:
    """A NumPy array (or anything with its ``tolist`` and ``ndim``: a pandas Series too)."""
    return hasattr(value, "tolist") and hasattr(value, "ndim")


def _array_points(value: object, kind: str) -> object:
    """Points given from Python as arrays: ``(times, values)`` (two 1-D arrays of the same
    length) or one array of ``[time, value]`` rows. Times are in seconds, rates in bit/s (0: an
    outage), delays in seconds, loss as probabilities. Anything else is returned as it was."""
    if _is_array(value) and getattr(value, "ndim", 0) == 2:
        rows = value.tolist()  # type: ignore[attr-defined]
    elif (
        isinstance(value, tuple | list)
        and len(value) == 2
        and all(_is_array(a) and getattr(a, "ndim", 0) == 1 for a in value)
    ):
        times, values = (a.tolist() for a in value)
        if len(times) != len(values):
            raise ScenarioError(
                f"{len(times)} times and {len(values)} values; expected arrays of the same length"
            )
        rows = [list(row) for row in zip(times, values, strict=True)]
    else:
        return value

    def ns(seconds: object) -> object:
        # A number of seconds as a time the scenario file takes; anything else to be rejected
        # by the same check as in a file.
        if isinstance(seconds, int | float) and not isinstance(seconds, bool):
            return f"{round(seconds * 1e9)}ns"
        return seconds

    def point(row: object) -> object:
        if not isinstance(row, list) or len(row) != 2:
            return row
        at, v = row
        if kind == "rate" and isinstance(v, int | float) and not isinstance(v, bool):
            v = 0 if v == 0 else f"{round(v)}bps"
        elif kind == "delay":
            v = ns(v)
        return [ns(at), v]

    return [point(row) for row in rows]


def _as_table(kind: str) -> Callable[[Any], Any]:
    """A plain list of points is the table ``{ points = [...] }``; so are arrays (see
    :func:`_array_points`), as the whole schedule or as its ``points``."""

    def convert(value: Any) -> Any:
        if isinstance(value, dict) and "points" in value:
            return {**value, "points": _array_points(value["points"], kind)}
        value = _array_points(value, kind)
        return {"points": value} if isinstance(value, list) else value

    return convert


class _Schedule(Table):
    """Shared checks: instants increase, and lie below ``repeat`` when it is given."""

    repeat: Time | None = None

    def pairs(self) -> Sequence[tuple[int, Any]]:
        """The points, (instant ns, value)."""
        raise NotImplementedError

    def instants(self) -> list[int]:
        return [at for at, _ in self.pairs()]

    @model_validator(mode="after")
    def _instants_increase(self) -> _Schedule:
        instants = self.instants()
        for i in range(1, len(instants)):
            if instants[i] <= instants[i - 1]:
                raise ScenarioError(
                    "is not after the point before; expected points in increasing time",
                    ("points", i, 0),
                )
        if self.repeat is not None:
            if self.repeat == 0:
                raise ScenarioError('"0s" is zero; expected a period like "15s"', ("repeat",))
            for i, at in enumerate(instants):
                if at >= self.repeat:
                    raise ScenarioError(
                        "is not below repeat; expected every point within one period",
                        ("points", i, 0),
                    )
        return self

    def spec(self, value: Callable[[Any], Any] = lambda v: v) -> dict[str, Any]:
        """The engine's ``ScheduleSpec``."""
        points = [[at, value(v)] for at, v in self.pairs()]
        spec: dict[str, Any] = {"points": points}
        if self.repeat:
            spec["repeat_ns"] = self.repeat
        return spec


class RateScheduleTable(_Schedule):
    """``rate_schedule = [["10s", "20Mbps"], ["20s", "0"]]``: the link's rate from each instant
    on (0: an outage), its own rate before the first; ``{ points = [...], repeat = "15s" }``
    makes the points recur every period."""

    points: Annotated[list[tuple[Time, ScheduledRate]], Field(min_length=1)]

    def pairs(self) -> Sequence[tuple[int, Any]]:
        return self.points


class DelayScheduleTable(_Schedule):
    """``delay_schedule = [["10s", "50ms"]]``: the propagation delay from each instant on."""

    points: Annotated[list[tuple[Time, Time]], Field(min_length=1)]

    def pairs(self) -> Sequence[tuple[int, Any]]:
        return self.points


class LossScheduleTable(_Schedule):
    """``loss_schedule = [["10s", 0.01]]``: the loss probability from each instant on."""

    points: Annotated[list[tuple[Time, ScheduledLoss]], Field(min_length=1)]

    def pairs(self) -> Sequence[tuple[int, Any]]:
        return self.points


RateSchedule = Annotated[RateScheduleTable, BeforeValidator(_as_table("rate"))]
DelaySchedule = Annotated[DelayScheduleTable, BeforeValidator(_as_table("delay"))]
LossSchedule = Annotated[LossScheduleTable, BeforeValidator(_as_table("loss"))]

#: The most packets a burst may carry (the engine's bound).
MAX_BURST_PACKETS = 1 << 20


class AccessDelay(Table):
    """``access_delay = { dist = "uniform", min = "0ms", max = "1ms" }``: the channel-access
    delay before each burst, uniform in [min, max]."""

    dist: Literal["uniform"] = "uniform"
    min: Time = "0s"  # type: ignore[assignment]
    max: Time

    @model_validator(mode="after")
    def _ordered(self) -> AccessDelay:
        if self.max < self.min:
            raise ScenarioError(
                f'"{format_time(self.max)}" is below min ("{format_time(self.min)}"); expected '
                "max at least min",
                ("max",),
            )
        return self


def _access_delay(value: Any) -> Any:
    """A single time is a constant access delay."""
    return {"min": value, "max": value} if isinstance(value, str | int) else value


class Aggregation(Table):
    """``aggregation = { max_packets = 32, max_time = "4ms", access_delay = { min = "0ms",
    max = "1ms" } }``: the link sends in bursts, as a Wi-Fi station sends A-MPDUs
    (docs/links.md): when the channel is free and packets wait, a channel-access delay, then up
    to ``max_packets`` packets, or as many as fit in ``max_time`` of airtime (at least one), back
    to back; all of a burst's packets reach the far end together. ``access_delay`` may be one
    time (constant)."""

    max_packets: Annotated[int, Field(strict=True, ge=1, le=MAX_BURST_PACKETS)] = 64
    max_time: Annotated[Time, Field(gt=0)] = "4ms"  # type: ignore[assignment]
    access_delay: Annotated[AccessDelay, BeforeValidator(_access_delay)] = "0s"  # type: ignore[assignment]

    def spec(self) -> dict[str, Any]:
        return {
            "max_packets": self.max_packets,
            "max_time_ns": self.max_time,
            "access_min_ns": self.access_delay.min,
            "access_max_ns": self.access_delay.max,
        }


@dataclass(frozen=True)
class OpportunityTrace:
    """A trace file (``path``: where it was found, absolute, so that the scenario written back
    with :meth:`~ccsim.Scenario.to_toml`, as in a results directory, finds it from anywhere) and
    its entries, in milliseconds."""

    path: str
    ms: tuple[int, ...]

    def mean_rate_bps(self) -> int:
        """The trace's mean capacity, bit/s (as the engine computes it)."""
        bits = len(self.ms) * OPPORTUNITY_BYTES * 8 * 1_000_000_000
        return max(1, bits // (self.ms[-1] * 1_000_000))

    def spec(self) -> dict[str, Any]:
        return {"ms": list(self.ms)}


def _trace_file(path: str) -> Path:
    """A trace's file: as given, or beside the scenario file for a relative path."""
    given = Path(path).expanduser()
    if given.is_absolute() or given.is_file():
        return given
    # The scenario file's directory while it is being read (the one Python algorithms are
    # looked for in as well).
    directory = pycc._SCENARIO_DIRECTORY.get()
    return directory / given if directory is not None else given


def read_trace(value: object) -> OpportunityTrace:
    """Read and check a trace file: one whole number of milliseconds a line, non-decreasing,
    the last one positive (the trace's period). A bad line is one error naming the file, the
    line, its text and what was expected."""
    if isinstance(value, OpportunityTrace):
        return value
    if not isinstance(value, str) or not value:
        raise ScenarioError(
            f'{show_value(value)} is not a file name; expected a path like "traces/lte.down"'
        )
    file = _trace_file(value)
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise ScenarioError(f"{file}: cannot be read ({error.strerror or error})") from None
    ms: list[int] = []
    max_ms = MAX_TIME_NS // 1_000_000
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        entry = line.strip()
        where = f"{file} line {number}"
        if not entry.isascii() or not entry.isdigit():
            raise ScenarioError(
                f"{where}: {show_value(line)} is not a whole number of milliseconds; expected one "
                "non-negative integer per line (Mahimahi's trace format)"
            )
        at = int(entry)
        if at > max_ms:
            raise ScenarioError(f"{where}: {at} is too late; expected at most {max_ms} ms")
        if ms and at < ms[-1]:
            raise ScenarioError(
                f"{where}: {at} is before the line above ({ms[-1]}); expected non-decreasing times"
            )
        ms.append(at)
    if not ms:
        raise ScenarioError(f"{file}: is empty; expected one millisecond a line")
    if len(ms) > MAX_TRACE_ENTRIES:
        raise ScenarioError(f"{file}: {len(ms)} lines; expected at most {MAX_TRACE_ENTRIES}")
    if ms[-1] == 0:
        raise ScenarioError(
            f"{file} line {len(ms)}: the trace ends at 0 ms; expected a last line after 0 "
            "(it is the period the trace loops with)"
        )
    return OpportunityTrace(str(file.resolve()), tuple(ms))


Trace = Annotated[OpportunityTrace, BeforeValidator(read_trace), PlainSerializer(lambda t: t.path)]


def link_changes(
    rate_schedule: RateScheduleTable | None,
    delay_schedule: DelayScheduleTable | None,
    loss_schedule: LossScheduleTable | None,
    trace: OpportunityTrace | None,
    aggregation: Aggregation | None = None,
) -> dict[str, Any]:
    """The engine's ``LinkParams`` keys for one direction's changes (none when nothing
    changes, so that scenarios without them resolve as before)."""
    keys: dict[str, Any] = {}
    if aggregation is not None:
        keys["aggregation"] = aggregation.spec()
    if rate_schedule is not None:
        keys["rate_schedule"] = rate_schedule.spec()
    if delay_schedule is not None:
        keys["delay_schedule"] = delay_schedule.spec()
    if loss_schedule is not None:
        keys["loss_schedule"] = loss_schedule.spec(float)
    if trace is not None:
        keys["trace"] = trace.spec()
        keys["rate_bps"] = trace.mean_rate_bps()
    return keys


def check_one_transmitter(
    rate_schedule: RateScheduleTable | None, trace: OpportunityTrace | None, key: str
) -> None:
    """A direction's transmitter follows a rate schedule or a trace, not both."""
    if rate_schedule is not None and trace is not None:
        raise ScenarioError(
            f"is set with {key.replace('rate_schedule', 'trace')}; expected a rate schedule or a "
            "trace, not both",
            (key,),
        )


#: Queue disciplines that decide at dequeue: an aggregating link takes the others only.
DEQUEUE_QUEUES = ("codel", "fq_codel", "pie", "dualpi2")


def check_aggregation(
    aggregation: Aggregation | None,
    rate_schedule: RateScheduleTable | None,
    trace: OpportunityTrace | None,
    queue: str,
    key: str,
) -> None:
    """An aggregating direction sends at its link's fixed rate, through a queue that decides
    on arrival."""
    if aggregation is None:
        return
    other = key.replace("aggregation", "trace" if trace is not None else "rate_schedule")
    if trace is not None or rate_schedule is not None:
        raise ScenarioError(
            f"is set with {other}; expected aggregation on a link of fixed rate", (key,)
        )
    if queue in DEQUEUE_QUEUES:
        raise ScenarioError(
            f'is set with queue = "{queue}"; expected a queue that decides on arrival '
            '("droptail", "red" or "step") on an aggregating link',
            (key,),
        )
