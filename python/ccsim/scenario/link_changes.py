"""Links that change during a run: rate, delay and loss schedules, and traces of delivery
opportunities in Mahimahi's format. The rules the engine applies are in docs/links.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainSerializer, model_validator

from ccsim import pycc
from ccsim.errors import ScenarioError, show_value
from ccsim.scenario.fields import Table, Time
from ccsim.units import MAX_TIME_NS, format_rate, parse_rate

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


def _as_table(value: Any) -> Any:
    """A plain list of points is the table ``{ points = [...] }``."""
    return {"points": value} if isinstance(value, list) else value


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


RateSchedule = Annotated[RateScheduleTable, BeforeValidator(_as_table)]
DelaySchedule = Annotated[DelayScheduleTable, BeforeValidator(_as_table)]
LossSchedule = Annotated[LossScheduleTable, BeforeValidator(_as_table)]


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
) -> dict[str, Any]:
    """The engine's ``LinkParams`` keys for one direction's changes (none when nothing
    changes, so that scenarios without them resolve as before)."""
    keys: dict[str, Any] = {}
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
