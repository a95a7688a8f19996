"""Scenarios: the user's TOML file, validated, and resolved into the engine's JSON.

A :class:`Scenario` is a pydantic model of the file format described in docs/scenario-format.md.
Validation happens in two layers:

* the models check each table on its own: types, units (``"100Mbps"``), unknown keys, and
  constraints within one table (RED thresholds, a RED queue needs a packet limit);
* :meth:`Scenario._check_consistency` checks what spans tables: flow endpoints against the
  topology, dumbbell RTTs against the bottleneck delay, algorithm names and parameters against the
  engine's registry, and that every "bdp" buffer has a reference RTT.

Every failure surfaces as one :class:`~ccsim.errors.ScenarioError` whose message names the key path
(``flows[0].rtt``), the value and what was expected.

:meth:`Scenario.resolve` produces the structure of ``crates/ccsim-core/src/spec.rs``: integers in
nanoseconds, bit/s, bytes and packets, flow groups expanded, buffers in packets or bytes.
"""

from __future__ import annotations

import copy
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import tomli_w
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from ccsim.errors import PathItem, ScenarioError, format_path, show_value
from ccsim.units import (
    HEADER_BYTES,
    Buffer,
    format_rate,
    format_signed_time,
    format_size,
    format_time,
    parse_buffer,
    parse_rate,
    parse_signed_time,
    parse_size,
    parse_time,
    parse_transfer_size,
)

__all__ = [
    "MAX_DEPTH",
    "ClosedLoopGenerator",
    "Dumbbell",
    "Explicit",
    "ExplicitLink",
    "FlowGroup",
    "Limits",
    "OpenLoopGenerator",
    "ParkingLot",
    "Pcap",
    "Red",
    "Scenario",
    "SizeDistribution",
    "Stack",
    "Trace",
]

# --------------------------------------------------------------------------------------------
# Field types. Quantities are stored as the engine's integers and written back as unit strings,
# so model_dump() output loads again. The lambdas keep pydantic from passing its `info` argument
# into the parsers' optional `path` parameter.

Rate = Annotated[int, BeforeValidator(lambda v: parse_rate(v)), PlainSerializer(format_rate)]
Time = Annotated[int, BeforeValidator(lambda v: parse_time(v)), PlainSerializer(format_time)]
SignedTime = Annotated[
    int, BeforeValidator(lambda v: parse_signed_time(v)), PlainSerializer(format_signed_time)
]
Size = Annotated[int, BeforeValidator(lambda v: parse_size(v)), PlainSerializer(format_size)]
TransferSize = Annotated[
    int | None,
    BeforeValidator(lambda v: parse_transfer_size(v)),
    PlainSerializer(lambda v: "inf" if v is None else format_size(v)),
]
BufferSize = Annotated[
    Buffer, BeforeValidator(lambda v: parse_buffer(v)), PlainSerializer(lambda b: str(b))
]


def _time_at_least(least_ns: int) -> Any:
    """A Time field's lower bound, checked after parsing, with the bound in the message."""

    def check(ns: int) -> int:
        if ns < least_ns:
            raise ScenarioError(
                f'"{format_time(ns)}" is too short; expected at least "{format_time(least_ns)}"'
            )
        return ns

    return AfterValidator(check)


Probability = Annotated[float, Field(strict=True, ge=0, lt=1, allow_inf_nan=False)]
PositiveFloat = Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)]
Count = Annotated[int, Field(strict=True, ge=1, lt=2**32)]
Threshold = Annotated[float, Field(strict=True, gt=0, le=1e12, allow_inf_nan=False)]
Seed = Annotated[int, Field(strict=True, ge=0, lt=2**64)]
Name = Annotated[str, Field(strict=True, min_length=1)]
Flag = Annotated[bool, Field(strict=True)]
QueueKind = Literal["droptail", "red", "codel", "fq_codel", "pie", "step"]
#: RED's thresholds and weight: a number, or "auto" for ns-2's automatic value.
Auto = Literal["auto"]

#: Access links must not be where packets are lost, so their default buffer is deep.
DEFAULT_ACCESS_BUFFER = "10000pkts"
#: Access links default to this multiple of the core link rate.
ACCESS_RATE_FACTOR = 4
DEFAULT_MSS = 1000
#: The shortest retransmission timeout (min_rto, initial_rto, max_rto): the engine's MIN_RTO_NS.
#: A zero timeout would retransmit in a loop that never lets simulated time advance.
MIN_RTO_NS = 1_000
#: The deepest nesting of tables and lists a scenario may have (a real one needs four).
MAX_DEPTH = 32
#: The largest MSS: a 65 535-byte IP packet less the headers (the engine's MAX_MSS_BYTES).
MAX_MSS = 65_495
#: Largest clock drift of a flow's receiver against its sender, ppm (the engine's bound).
MAX_CLOCK_DRIFT_PPM = 100_000.0


class _Table(BaseModel):
    """A TOML table: unknown keys are errors that list the keys this table accepts."""

    model_config = ConfigDict(extra="forbid", validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            for key in data:
                if key not in cls.model_fields:
                    allowed = ", ".join(cls.model_fields)
                    raise ScenarioError(f"unknown key; expected one of: {allowed}", (str(key),))
        elif not isinstance(data, BaseModel):
            raise ScenarioError(f"{show_value(data)} is not a table; expected a TOML table")
        return data


# --------------------------------------------------------------------------------------------
# Stack profile overrides


class Stack(_Table):
    """Scenario-wide overrides of the stack profile's knobs (``[stack]``); unset keys keep the
    profile's value. Times are unit strings here and ``*_ns`` integers in the engine."""

    initial_window: (
        Annotated[float, Field(strict=True, ge=1, le=2**32, allow_inf_nan=False)] | None
    ) = None
    per_ack_counting: Flag | None = None
    slow_start_cap: (
        Annotated[float, Field(strict=True, ge=0, le=2**32, allow_inf_nan=False)] | None
    ) = None
    ssthresh_basis: Literal["window", "flight_size", "cwnd"] | None = None
    initial_ssthresh_is_window: Flag | None = None
    rto_formula: Literal["rfc6298", "linux"] | None = None
    rtt_sampling: Literal["one_per_rtt", "every_ack"] | None = None
    min_rto: Annotated[Time, _time_at_least(MIN_RTO_NS)] | None = None
    initial_rto: Annotated[Time, _time_at_least(MIN_RTO_NS)] | None = None
    max_rto: Annotated[Time, _time_at_least(MIN_RTO_NS)] | None = None
    max_backoff: Annotated[int, Field(strict=True, ge=1, le=2**30)] | None = None
    clock_granularity: Annotated[Time, _time_at_least(1)] | None = None
    delayed_ack: Flag | None = None
    delayed_ack_timeout: Annotated[Time, _time_at_least(1)] | None = None
    cwnd_gating: Flag | None = None
    partial_window_deflation: Flag | None = None
    restart_rto_every_partial_ack: Flag | None = None
    dupack_threshold: Annotated[int, Field(strict=True, ge=1, le=2**20)] | None = None
    recovery: Literal["reno", "newreno", "sack"] | None = None
    sack: Flag | None = None
    ecn: Flag | None = None
    default_max_window: Annotated[int, Field(strict=True, ge=1, le=2**32)] | None = None
    handshake: Flag | None = None
    send_overhead: Time | None = None

    @model_validator(mode="after")
    def _sack_agrees_with_recovery(self) -> Stack:
        # ``sack`` is the older spelling of ``recovery = "sack"``; both written must agree.
        if self.sack is None or self.recovery is None:
            return self
        if self.sack != (self.recovery == "sack"):
            expected = "true" if self.recovery == "sack" else "false"
            raise ScenarioError(
                f"{str(self.sack).lower()} contradicts recovery = {self.recovery!r}; expected "
                f'{expected} with that recovery, or only one of the two keys (sack = true is recovery = "sack")',
                ("sack",),
            )
        return self

    def resolve(self) -> dict[str, Any]:
        """The engine's ``StackOverrides``: only the knobs that were set."""
        overrides = {}
        for key in type(self).model_fields:
            value = getattr(self, key)
            if value is not None:
                overrides[_STACK_ENGINE_NAMES.get(key, key)] = value
        return overrides


# [stack] keys whose engine name carries the unit.
_STACK_ENGINE_NAMES = {
    "min_rto": "min_rto_ns",
    "initial_rto": "initial_rto_ns",
    "max_rto": "max_rto_ns",
    "clock_granularity": "clock_granularity_ns",
    "delayed_ack_timeout": "delayed_ack_timeout_ns",
    "default_max_window": "default_max_window_pkts",
    "send_overhead": "send_overhead_ns",
}


# --------------------------------------------------------------------------------------------
# Queues and links


class Red(_Table):
    """RED parameters (ns-2 names and defaults); thresholds in packets. ``"auto"``: ns-2's
    automatic value (min_th = max(5, half of 5 ms of packets), max_th = 3 min_th,
    w_q = 1 - exp(-1/C) with C packets per second)."""

    min_th: Threshold | Auto = 5.0
    max_th: Threshold | Auto = 15.0
    max_p: Annotated[float, Field(strict=True, gt=0, le=1)] = 0.1
    w_q: Annotated[float, Field(strict=True, gt=0, le=1)] | Auto = 0.002
    gentle: Flag = True
    wait: Flag = True
    mean_pktsize: Count = 500
    #: ns-2's byte mode: the average follows bytes / mean_pktsize, small packets dropped less.
    byte_mode: Flag = False
    #: Mark ECN-capable packets (CE) instead of dropping them early.
    ecn: Flag = False

    @model_validator(mode="after")
    def _thresholds_ordered(self) -> Red:
        if self.min_th == "auto" or self.max_th == "auto":
            return self
        if self.max_th <= self.min_th:
            raise ScenarioError(
                f"{show_value(self.max_th)} is not above min_th ({self.min_th}); "
                "expected max_th > min_th",
                ("max_th",),
            )
        return self


class Codel(_Table):
    """CoDel parameters (RFC 8289)."""

    target: Annotated[Time, _time_at_least(1)] = "5ms"  # type: ignore[assignment]
    interval: Annotated[Time, _time_at_least(1)] = "100ms"  # type: ignore[assignment]
    #: Mark ECN-capable packets (CE) instead of dropping them.
    ecn: Flag = False


class FqCodel(Codel):
    """FQ-CoDel parameters (RFC 8290): CoDel's, the number of flow queues and the DRR quantum."""

    flows: Annotated[int, Field(strict=True, ge=1, le=65_536)] = 1024
    #: Bytes a queue may send per round (default: one packet, MSS + 40 bytes of headers).
    quantum: Annotated[int, Field(strict=True, ge=1, le=2**20)] | None = None


class Pie(_Table):
    """PIE parameters (RFC 8033); alpha and beta in 1/s."""

    target: Annotated[Time, _time_at_least(1)] = "15ms"  # type: ignore[assignment]
    tupdate: Annotated[Time, _time_at_least(1)] = "15ms"  # type: ignore[assignment]
    alpha: Annotated[float, Field(strict=True, ge=0, le=1e6, allow_inf_nan=False)] = 0.125
    beta: Annotated[float, Field(strict=True, ge=0, le=1e6, allow_inf_nan=False)] = 1.25
    max_burst: Time = "150ms"  # type: ignore[assignment]
    #: Mark ECN-capable packets (CE) instead of dropping them while the probability is <= 10 %.
    ecn: Flag = False


class Step(_Table):
    """Step marking for DCTCP: an arrival that finds ``k`` (packets or bytes) waiting is marked
    CE if ECN-capable (else dropped); behind it the queue is a tail drop at ``buffer``."""

    k: BufferSize = "20pkts"  # type: ignore[assignment]
    ecn: Flag = True


#: The parameter table of each queue kind that has one.
_QUEUE_TABLES: dict[str, type[_Table]] = {
    "red": Red,
    "codel": Codel,
    "fq_codel": FqCodel,
    "pie": Pie,
    "step": Step,
}


def _check_queue(model: Any) -> None:
    """Fill in the table of the model's queue kind (defaults when absent) and reject tables of
    other kinds and buffers in bytes for disciplines limited in packets."""
    for kind in _QUEUE_TABLES:
        if kind != model.queue and getattr(model, kind) is not None:
            raise ScenarioError(
                f'given but queue is "{model.queue}"; expected queue = "{kind}"', (kind,)
            )
    table = _QUEUE_TABLES.get(model.queue)
    if table is None:
        return
    if getattr(model, model.queue) is None:
        setattr(model, model.queue, table())
    if model.queue != "step" and model.buffer.unit == "bytes":
        name = {"red": "RED", "codel": "CoDel", "fq_codel": "FQ-CoDel", "pie": "PIE"}[model.queue]
        raise ScenarioError(
            f'"{model.buffer}" is a size in bytes, but a {name} queue is limited in packets; '
            'expected a buffer like "100pkts" or "1bdp"',
            ("buffer",),
        )


def _auto(value: float | str) -> float:
    """RED's "auto" is 0 in the engine."""
    return 0.0 if value == "auto" else float(value)


def _queue_spec(
    model: Any, buffer: Buffer, rate_bps: int, rtt: Fraction | None, packet: int
) -> dict[str, Any]:
    """The engine's ``QueueSpec`` for the model's queue (``model`` None: a tail drop)."""
    limit_pkts, limit_bytes = buffer.limits(rate_bps, rtt, packet)
    queue = "droptail" if model is None else model.queue
    if queue == "droptail":
        return {"kind": "droptail", "limit_pkts": limit_pkts, "limit_bytes": limit_bytes}
    t = getattr(model, queue)
    if queue == "red":
        spec = {
            "kind": "red",
            "limit_pkts": limit_pkts,
            "min_th": _auto(t.min_th),
            "max_th": _auto(t.max_th),
            "max_p": t.max_p,
            "w_q": _auto(t.w_q),
            "gentle": t.gentle,
            "wait": t.wait,
            "mean_pktsize": t.mean_pktsize,
        }
        # Only when set, so that existing RED scenarios resolve as before.
        spec |= {k: True for k in ("byte_mode", "ecn") if getattr(t, k)}
        return spec
    if queue in ("codel", "fq_codel"):
        spec = {
            "kind": queue,
            "limit_pkts": limit_pkts,
            "target_ns": t.target,
            "interval_ns": t.interval,
            "ecn": t.ecn,
        }
        if queue == "fq_codel":
            spec |= {"flows": t.flows, "quantum_bytes": t.quantum or packet}
        return spec
    if queue == "pie":
        return {
            "kind": "pie",
            "limit_pkts": limit_pkts,
            "target_ns": t.target,
            "tupdate_ns": t.tupdate,
            "alpha": t.alpha,
            "beta": t.beta,
            "max_burst_ns": t.max_burst,
            "ecn": t.ecn,
        }
    k_pkts, k_bytes = t.k.limits(rate_bps, rtt, packet)
    return {
        "kind": "step",
        "limit_pkts": limit_pkts,
        "limit_bytes": limit_bytes,
        "k_pkts": k_pkts,
        "k_bytes": k_bytes,
        "ecn": t.ecn,
    }


def _loss_spec(p: float) -> dict[str, Any]:
    return {"kind": "bernoulli", "p": p} if p > 0 else {"kind": "none"}


def _link_params(
    rate: int, delay: int, queue: dict[str, Any], loss: float, jitter: int = 0
) -> dict[str, Any]:
    """The engine's ``LinkParams`` (one direction of a link)."""
    return {
        "rate_bps": rate,
        "delay_ns": delay,
        "queue": queue,
        "loss": _loss_spec(loss),
        "jitter_ns": jitter,
    }


# --------------------------------------------------------------------------------------------
# Traffic


class _Transfer(_Table):
    """What a transfer looks like; shared by flow groups and generators."""

    cc: Name
    label: Name | None = None  # default: the cc name
    mss: Annotated[int, Field(strict=True, ge=1, le=MAX_MSS)] = DEFAULT_MSS
    max_window: Count | None = None
    delayed_ack: Flag | None = None
    # String defaults are parsed like user input (validate_default), hence the type: ignore.
    start: Time = "0s"  # type: ignore[assignment]
    params: dict[str, Any] = Field(default_factory=dict)
    #: Send from the far side (dumbbell: from behind the right-hand router; elsewhere src and
    #: dst swap), so data crosses the links the other flows' ACKs use.
    reverse: Flag = False
    #: The receiver's clock minus the sender's (signed), and how fast it runs against it (ppm):
    #: only one-way delays measured with the two hosts' timestamps see them.
    clock_offset: SignedTime = "0s"  # type: ignore[assignment]
    clock_drift_ppm: Annotated[
        float,
        Field(strict=True, ge=-MAX_CLOCK_DRIFT_PPM, le=MAX_CLOCK_DRIFT_PPM, allow_inf_nan=False),
    ] = 0.0

    @field_validator("params")
    @classmethod
    def _params_are_numbers(cls, params: dict[str, Any]) -> dict[str, Any]:
        for key, value in params.items():
            is_number = isinstance(value, int | float) and math.isfinite(value)
            if not (isinstance(value, bool) or is_number):
                raise ScenarioError(
                    f"{show_value(value)} is not a parameter value; "
                    "expected a number or true/false",
                    (key,),
                )
        return params

    @model_validator(mode="after")
    def _default_label(self) -> _Transfer:
        if self.label is None:
            self.label = self.cc
        return self

    def template(self) -> dict[str, Any]:
        """The engine's ``FlowTemplate``."""
        return {
            "label": self.label,
            "cc": self.cc,
            # The engine takes every parameter as f64; booleans travel as 1.0 / 0.0.
            "cc_params": {key: float(value) for key, value in sorted(self.params.items())},
            "mss_bytes": self.mss,
            "max_window_pkts": self.max_window,
            "delayed_ack": self.delayed_ack,
            "reverse": self.reverse,
            "clock_offset_ns": self.clock_offset,
            "clock_drift_ppm": float(self.clock_drift_ppm),
        }


class FlowGroup(_Transfer):
    """A ``[[flows]]`` table: ``count`` identical flows."""

    count: Count = 1
    src: Name | None = None
    dst: Name | None = None
    rtt: Time | None = None
    start_jitter: Time = "0s"  # type: ignore[assignment]
    size: TransferSize = "inf"  # type: ignore[assignment]

    def resolve(self) -> list[dict[str, Any]]:
        """``count`` engine ``FlowSpec`` dicts."""
        spec = self.template() | {
            "src": self.src,
            "dst": self.dst,
            "rtt_ns": self.rtt,
            "start_ns": self.start,
            "start_jitter_ns": self.start_jitter,
            "size_bytes": self.size,
        }
        return [dict(spec) for _ in range(self.count)]


class SizeDistribution(_Table):
    """Transfer sizes of a generator: fixed, exponential or Pareto with the given mean."""

    dist: Literal["fixed", "exponential", "pareto"]
    mean: Size
    shape: PositiveFloat | None = None

    @model_validator(mode="after")
    def _shape_fits_dist(self) -> SizeDistribution:
        if self.mean <= 0:
            raise ScenarioError('"0B" is zero; expected a positive size like "100KB"', ("mean",))
        if self.dist == "pareto":
            # The mean of a Pareto distribution is finite only for shape > 1.
            if self.shape is None or self.shape <= 1:
                shown = (
                    "required for a pareto distribution"
                    if self.shape is None
                    else f"{self.shape} is too small"
                )
                raise ScenarioError(f"{shown}; expected a shape above 1, like 1.5", ("shape",))
        elif self.shape is not None:
            raise ScenarioError(
                f'only a pareto distribution has a shape; this one is "{self.dist}"', ("shape",)
            )
        return self

    def resolve(self) -> dict[str, Any]:
        """The engine's ``SizeDist``."""
        if self.dist == "fixed":
            return {"kind": "fixed", "bytes": self.mean}
        spec: dict[str, Any] = {"kind": self.dist, "mean_bytes": float(self.mean)}
        if self.dist == "pareto":
            spec["shape"] = self.shape
        return spec


def _size_from_string(value: Any) -> Any:
    """``size = "100KB"`` is short for ``size = { dist = "fixed", mean = "100KB" }``."""
    if not isinstance(value, str):
        return value
    if value == "inf":
        raise ScenarioError(
            '"inf" is not allowed here; expected a finite size like "100KB" '
            "(a generator's transfers must end)"
        )
    parse_size(value)  # reports a malformed size at this key rather than at size.mean
    return {"dist": "fixed", "mean": value}


def _size_to_toml(size: SizeDistribution) -> Any:
    if size.dist == "fixed":
        return format_size(size.mean)
    table: dict[str, Any] = {"dist": size.dist, "mean": format_size(size.mean)}
    if size.shape is not None:
        table["shape"] = size.shape
    return table


GeneratorSize = Annotated[
    SizeDistribution, BeforeValidator(_size_from_string), PlainSerializer(_size_to_toml)
]


class RttDistribution(_Table):
    """Base RTTs of a generator's sources: uniform on [min, max] or exponential with a mean.

    Each source (a closed-loop slot, or an open-loop source) draws its RTT once, at the start.
    """

    dist: Literal["uniform", "exponential"]
    min: Time | None = None
    max: Time | None = None
    mean: Time | None = None

    @model_validator(mode="after")
    def _keys_fit_dist(self) -> RttDistribution:
        wanted = ("min", "max") if self.dist == "uniform" else ("mean",)
        for key in ("min", "max", "mean"):
            given = getattr(self, key) is not None
            if key in wanted and not given:
                raise ScenarioError(
                    f'required for a {self.dist} distribution; expected a time like "100ms"',
                    (key,),
                )
            if key not in wanted and given:
                raise ScenarioError(f"not used by a {self.dist} distribution", (key,))
        if self.dist == "uniform" and self.min is not None and self.max is not None:
            if self.max < self.min:
                raise ScenarioError(
                    f'"{format_time(self.max)}" is below min; expected max >= min', ("max",)
                )
        elif self.mean is not None and self.mean <= 0:
            raise ScenarioError('expected a positive mean like "130ms"', ("mean",))
        return self

    def mean_ns(self) -> Fraction:
        """Mean of the distribution, for sizing "bdp" buffers."""
        if self.dist == "uniform":
            return Fraction((self.min or 0) + (self.max or 0), 2)
        return Fraction(self.mean or 0)

    def resolve(self) -> dict[str, Any]:
        """The engine's ``RttDist``."""
        if self.dist == "uniform":
            return {"kind": "uniform", "min_ns": self.min, "max_ns": self.max}
        return {"kind": "exponential", "mean_ns": self.mean}


class _Generator(_Transfer):
    """Fields shared by both kinds of ``[[generators]]``."""

    kind: str
    size: GeneratorSize
    rtt_choices: list[Time] = Field(default_factory=list)
    rtt_dist: RttDistribution | None = None
    endpoints: list[tuple[Name, Name]] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_rtt_source(self) -> _Generator:
        if self.rtt_choices and self.rtt_dist is not None:
            raise ScenarioError("give either rtt_choices or rtt_dist, not both", ("rtt_dist",))
        return self

    def _arrivals(self) -> dict[str, Any]:
        raise NotImplementedError

    def _sources(self) -> int | None:
        return None

    def resolve(self) -> dict[str, Any]:
        """The engine's ``GeneratorSpec``."""
        return self.template() | {
            "arrivals": self._arrivals(),
            "size": self.size.resolve(),
            "start_ns": self.start,
            "rtt_choices_ns": list(self.rtt_choices),
            "rtt_dist": self.rtt_dist.resolve() if self.rtt_dist is not None else None,
            "endpoints": [list(pair) for pair in self.endpoints],
            "sources": self._sources(),
        }


class ClosedLoopGenerator(_Generator):
    """``slots`` transfers always active: when one finishes, the next starts at once."""

    kind: Literal["closed_loop"]
    slots: Count

    def _arrivals(self) -> dict[str, Any]:
        return {"kind": "closed_loop", "slots": self.slots}


class OpenLoopGenerator(_Generator):
    """Transfers arriving as a Poisson process of ``rate`` per second, until ``stop``."""

    kind: Literal["open_loop"]
    rate: Annotated[float, Field(strict=True, gt=0, le=1e9, allow_inf_nan=False)]
    stop: Time | None = None
    #: Number of sources, each with its own endpoints and RTT; an arrival picks one uniformly.
    sources: Count | None = None

    def _sources(self) -> int | None:
        return self.sources

    def _arrivals(self) -> dict[str, Any]:
        return {"kind": "open_loop", "rate_per_s": float(self.rate), "stop_ns": self.stop}


Generator = Annotated[ClosedLoopGenerator | OpenLoopGenerator, Field(discriminator="kind")]


FlowId = Annotated[int, Field(strict=True, ge=0, lt=2**32)]


class Pcap(_Table):
    """Packet capture (``[trace] pcap``): pcap files of the named flows and links."""

    #: Flow ids (as in the flows table) captured at their sender's host.
    flows: list[FlowId] = Field(default_factory=list)
    #: Links named "SRC->DST" by their node names, captured as packets enter them.
    links: list[Name] = Field(default_factory=list)

    @model_validator(mode="after")
    def _names_and_ids_once(self) -> Pcap:
        for i, link in enumerate(self.links):
            src, arrow, dst = link.partition("->")
            if not (arrow and src and dst):
                raise ScenarioError(
                    f'{show_value(link)} is not a link name; expected "SRC->DST" with node '
                    'names, like "R1->R2"',
                    ("links", i),
                )
        for key, values in (("flows", self.flows), ("links", self.links)):
            for i, value in enumerate(values):
                if value in values[:i]:
                    raise ScenarioError(
                        f"{show_value(value)} appears twice; expected each once", (key, i)
                    )
        return self

    def resolve(self) -> dict[str, Any]:
        """The engine's ``PcapSpec``."""
        return {"flows": list(self.flows), "links": list(self.links)}


class Trace(_Table):
    """What to record beyond the per-flow and per-link counters."""

    sample_interval: Time | None = None
    drops: Flag = False
    pcap: Pcap | None = None

    @model_validator(mode="after")
    def _positive_interval(self) -> Trace:
        if self.sample_interval == 0:
            raise ScenarioError(
                '"0s" is zero; expected an interval like "10ms"', ("sample_interval",)
            )
        return self

    def resolve(self) -> dict[str, Any]:
        """The engine's ``TraceSpec``."""
        spec: dict[str, Any] = {"sample_interval_ns": self.sample_interval, "drops": self.drops}
        # Only when asked for, so that the resolved scenario of a run without capture is as before.
        if self.pcap is not None:
            spec["pcap"] = self.pcap.resolve()
        return spec


# --------------------------------------------------------------------------------------------
# Topologies. Each knows how to check the traffic placed on it and how to resolve itself.

KeyPath = tuple[PathItem, ...]


def _check_node(
    name: str | None, known: Sequence[str], noun: str, where: str, path: KeyPath
) -> None:
    if name is None:
        required = f"required {where}" if where else "required"
        raise ScenarioError(f'{required}; expected a {noun} name like "{known[0]}"', path)
    if name not in known:
        raise ScenarioError(
            f"{show_value(name)} is not a {noun}; expected one of: {', '.join(known)}", path
        )


def _check_pair(
    src: str | None,
    dst: str | None,
    known: Sequence[str],
    noun: str,
    where: str,
    paths: tuple[KeyPath, KeyPath],
) -> None:
    _check_node(src, known, noun, where, paths[0])
    _check_node(dst, known, noun, where, paths[1])
    if src == dst:
        raise ScenarioError(
            f"{show_value(dst)} is the same as the source; expected a different {noun}", paths[1]
        )


def _reject(value: Any, why: str, path: KeyPath) -> None:
    if value is not None and value != []:
        raise ScenarioError(f"{show_value(_shown(value))} is not allowed {why}", path)


def _shown(value: Any) -> Any:
    """A parsed value as the user would write it (times are the only parsed values rejected)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return format_time(value)
    if isinstance(value, list | tuple):
        return [_shown(v) for v in value]
    return value


class Dumbbell(_Table):
    """Senders -> R1 -> bottleneck -> R2 -> receivers, each flow on its own access links."""

    kind: Literal["dumbbell"]
    bottleneck_rate: Rate
    bottleneck_delay: Time
    access_rate: Rate | None = None  # default: ACCESS_RATE_FACTOR x bottleneck_rate
    buffer: BufferSize = "1bdp"  # type: ignore[assignment]
    queue: QueueKind = "droptail"
    red: Red | None = None
    codel: Codel | None = None
    fq_codel: FqCodel | None = None
    pie: Pie | None = None
    step: Step | None = None
    loss: Probability = 0.0
    reverse_loss: Probability = 0.0
    access_buffer: BufferSize = DEFAULT_ACCESS_BUFFER  # type: ignore[assignment]
    bdp_rtt: Time | None = None  # default: the mean base RTT of the flows
    #: Random per-packet processing delay, uniform in [0, jitter], before the bottleneck queue
    #: (both directions).
    jitter: Time = "0s"  # type: ignore[assignment]

    @model_validator(mode="after")
    def _fill_defaults(self) -> Dumbbell:
        if self.access_rate is None:
            self.access_rate = ACCESS_RATE_FACTOR * self.bottleneck_rate
        _check_queue(self)
        return self

    def check_flow(self, flow: FlowGroup, path: KeyPath) -> None:
        why = "on a dumbbell; every dumbbell flow has its own sender and receiver"
        _reject(flow.src, why, (*path, "src"))
        _reject(flow.dst, why, (*path, "dst"))
        if flow.rtt is None:
            raise ScenarioError(
                'required on a dumbbell; expected a base RTT like "40ms"', (*path, "rtt")
            )
        self._check_rtt(flow.rtt, (*path, "rtt"))

    def check_generator(self, gen: _Generator, path: KeyPath) -> None:
        _reject(gen.endpoints, "on a dumbbell; use rtt_choices", (*path, "endpoints"))
        if not gen.rtt_choices and gen.rtt_dist is None:
            raise ScenarioError(
                "required on a dumbbell (or rtt_dist); expected a list of base RTTs like "
                '["40ms", "80ms"]',
                (*path, "rtt_choices"),
            )
        for j, rtt in enumerate(gen.rtt_choices):
            self._check_rtt(rtt, (*path, "rtt_choices", j))

    def _check_rtt(self, rtt: int, path: KeyPath) -> None:
        # The access links make up the rest of the RTT, so it cannot be below the bottleneck's
        # share (equal means access links without delay). The engine applies the same rule
        # (engine/topology.rs, Network::attach).
        floor = 2 * self.bottleneck_delay
        if rtt < floor:
            raise ScenarioError(
                f'"{format_time(rtt)}" is below twice the bottleneck delay; '
                f'expected a base RTT of at least "{format_time(floor)}"',
                path,
            )

    def buffers(self) -> list[tuple[KeyPath, Buffer]]:
        return [(path, buffer) for path, buffer, _ in self.buffer_rates()]

    def buffer_rates(self) -> list[tuple[KeyPath, Buffer, int]]:
        """Each buffer with its key path and the rate of the link it belongs to."""
        assert self.access_rate is not None
        return [
            (("topology", "buffer"), self.buffer, self.bottleneck_rate),
            (("topology", "access_buffer"), self.access_buffer, self.access_rate),
        ]

    def resolve(self, rtt: Fraction | None, packet: int) -> dict[str, Any]:
        assert self.access_rate is not None
        queue = _queue_spec(self, self.buffer, self.bottleneck_rate, rtt, packet)
        access = _queue_spec(None, self.access_buffer, self.access_rate, rtt, packet)
        rate, delay = self.bottleneck_rate, self.bottleneck_delay
        return {
            "kind": "dumbbell",
            "forward": _link_params(rate, delay, queue, self.loss, self.jitter),
            "reverse": _link_params(rate, delay, queue, self.reverse_loss, self.jitter),
            "access_rate_bps": self.access_rate,
            "access_queue": access,
        }


class ParkingLot(_Table):
    """Routers R0 .. R{routers-1} in a chain; flows enter and leave at any router."""

    kind: Literal["parking_lot"]
    routers: Annotated[int, Field(strict=True, ge=2, le=10_000)]
    rate: Rate
    delay: Time
    buffer: BufferSize = "1bdp"  # type: ignore[assignment]
    queue: QueueKind = "droptail"
    red: Red | None = None
    codel: Codel | None = None
    fq_codel: FqCodel | None = None
    pie: Pie | None = None
    step: Step | None = None
    loss: Probability = 0.0
    reverse_loss: Probability = 0.0
    access_rate: Rate | None = None  # default: ACCESS_RATE_FACTOR x rate
    access_delay: Time = "1ms"  # type: ignore[assignment]
    access_buffer: BufferSize = DEFAULT_ACCESS_BUFFER  # type: ignore[assignment]
    bdp_rtt: Time | None = None
    #: Random per-packet processing delay before every router-to-router queue (both directions).
    jitter: Time = "0s"  # type: ignore[assignment]

    @model_validator(mode="after")
    def _fill_defaults(self) -> ParkingLot:
        if self.access_rate is None:
            self.access_rate = ACCESS_RATE_FACTOR * self.rate
        _check_queue(self)
        return self

    def router_names(self) -> list[str]:
        return [f"R{i}" for i in range(self.routers)]

    def check_flow(self, flow: FlowGroup, path: KeyPath) -> None:
        names = self.router_names()
        paths = ((*path, "src"), (*path, "dst"))
        _check_pair(flow.src, flow.dst, names, "router", "on a parking lot", paths)

    def check_generator(self, gen: _Generator, path: KeyPath) -> None:
        _reject(gen.rtt_choices, "on a parking lot; use endpoints", (*path, "rtt_choices"))
        _check_endpoints(gen, self.router_names(), "router", "parking lot", path)

    def buffers(self) -> list[tuple[KeyPath, Buffer]]:
        return [(path, buffer) for path, buffer, _ in self.buffer_rates()]

    def buffer_rates(self) -> list[tuple[KeyPath, Buffer, int]]:
        """Each buffer with its key path and the rate of the link it belongs to."""
        assert self.access_rate is not None
        return [
            (("topology", "buffer"), self.buffer, self.rate),
            (("topology", "access_buffer"), self.access_buffer, self.access_rate),
        ]

    def resolve(self, rtt: Fraction | None, packet: int) -> dict[str, Any]:
        assert self.access_rate is not None
        queue = _queue_spec(self, self.buffer, self.rate, rtt, packet)
        access = _queue_spec(None, self.access_buffer, self.access_rate, rtt, packet)
        return {
            "kind": "parking_lot",
            "routers": self.routers,
            "forward": _link_params(self.rate, self.delay, queue, self.loss, self.jitter),
            "reverse": _link_params(self.rate, self.delay, queue, self.reverse_loss, self.jitter),
            "access_rate_bps": self.access_rate,
            "access_delay_ns": self.access_delay,
            "access_queue": access,
        }


def _check_endpoints(
    gen: _Generator, names: list[str], noun: str, topo: str, path: KeyPath
) -> None:
    if not gen.endpoints:
        raise ScenarioError(
            f'required on a {topo}; expected a list of [src, dst] pairs like [["{names[0]}", "{names[1]}"]]',
            (*path, "endpoints"),
        )
    for j, (src, dst) in enumerate(gen.endpoints):
        pair = (*path, "endpoints", j)
        _check_pair(src, dst, names, noun, f"on a {topo}", ((*pair, 0), (*pair, 1)))


class ExplicitLink(_Table):
    """A ``[[topology.links]]`` entry: one link, in both directions unless ``duplex = false``."""

    src: Name
    dst: Name
    rate: Rate
    delay: Time
    buffer: BufferSize = "1bdp"  # type: ignore[assignment]
    queue: QueueKind = "droptail"
    red: Red | None = None
    codel: Codel | None = None
    fq_codel: FqCodel | None = None
    pie: Pie | None = None
    step: Step | None = None
    loss: Probability = 0.0
    reverse_loss: Probability = 0.0
    duplex: Flag = True
    monitor: Flag = False
    #: Random per-packet processing delay before this link's queue (both directions if duplex).
    jitter: Time = "0s"  # type: ignore[assignment]

    @model_validator(mode="after")
    def _consistent(self) -> ExplicitLink:
        if self.src == self.dst:
            raise ScenarioError(
                f"{show_value(self.dst)} is the same as src; expected a different node", ("dst",)
            )
        if self.reverse_loss > 0 and not self.duplex:
            raise ScenarioError(
                "is set but duplex = false (there is no reverse link); expected 0 or duplex = true",
                ("reverse_loss",),
            )
        _check_queue(self)
        return self

    def resolve(self, rtt: Fraction | None, packet: int) -> list[dict[str, Any]]:
        """One engine ``ExplicitLink`` per direction."""
        queue = _queue_spec(self, self.buffer, self.rate, rtt, packet)
        forward = {"src": self.src, "dst": self.dst, "monitor": self.monitor}
        forward |= _link_params(self.rate, self.delay, queue, self.loss, self.jitter)
        if not self.duplex:
            return [forward]
        # Only the given direction is monitored: it is the one the user thinks of as "the link".
        reverse = {"src": self.dst, "dst": self.src, "monitor": False}
        reverse |= _link_params(self.rate, self.delay, queue, self.reverse_loss, self.jitter)
        return [forward, reverse]


class Explicit(_Table):
    """Named nodes and the links between them."""

    kind: Literal["explicit"]
    nodes: Annotated[list[Name], Field(min_length=2)]
    links: Annotated[list[ExplicitLink], Field(min_length=1)]
    bdp_rtt: Time | None = None

    @model_validator(mode="after")
    def _links_join_nodes(self) -> Explicit:
        seen_nodes: set[str] = set()
        for i, node in enumerate(self.nodes):
            if node in seen_nodes:
                raise ScenarioError(
                    f"{show_value(node)} is listed twice; expected unique names", ("nodes", i)
                )
            seen_nodes.add(node)
        seen_links: set[tuple[str, str]] = set()
        for i, link in enumerate(self.links):
            _check_node(link.src, self.nodes, "node", "", ("links", i, "src"))
            _check_node(link.dst, self.nodes, "node", "", ("links", i, "dst"))
            directions = [(link.src, link.dst)] + ([(link.dst, link.src)] if link.duplex else [])
            for direction in directions:
                if direction in seen_links:
                    raise ScenarioError(
                        f'a link from "{direction[0]}" to "{direction[1]}" is already given; '
                        "expected one link per direction",
                        ("links", i),
                    )
                seen_links.add(direction)
        return self

    def check_flow(self, flow: FlowGroup, path: KeyPath) -> None:
        _reject(
            flow.rtt, "on an explicit topology; the links on the path set the RTT", (*path, "rtt")
        )
        paths = ((*path, "src"), (*path, "dst"))
        _check_pair(flow.src, flow.dst, self.nodes, "node", "on an explicit topology", paths)

    def check_generator(self, gen: _Generator, path: KeyPath) -> None:
        _reject(gen.rtt_choices, "on an explicit topology; use endpoints", (*path, "rtt_choices"))
        _reject(
            gen.rtt_dist,
            "on an explicit topology; the links on the path set the RTT",
            (*path, "rtt_dist"),
        )
        _check_endpoints(gen, self.nodes, "node", "explicit topology", path)

    def buffers(self) -> list[tuple[KeyPath, Buffer]]:
        return [(path, buffer) for path, buffer, _ in self.buffer_rates()]

    def buffer_rates(self) -> list[tuple[KeyPath, Buffer, int]]:
        """Each buffer with its key path and the rate of the link it belongs to."""
        return [
            (("topology", "links", i, "buffer"), link.buffer, link.rate)
            for i, link in enumerate(self.links)
        ]

    def resolve(self, rtt: Fraction | None, packet: int) -> dict[str, Any]:
        links = [spec for link in self.links for spec in link.resolve(rtt, packet)]
        return {"kind": "explicit", "nodes": list(self.nodes), "links": links}


Topology = Annotated[Dumbbell | ParkingLot | Explicit, Field(discriminator="kind")]

# pydantic puts the discriminator's value in error locations ("topology.dumbbell.rate"); these
# are the values to leave out when showing a path to the user.
_UNION_TAGS = {"dumbbell", "parking_lot", "explicit", "closed_loop", "open_loop"}


# --------------------------------------------------------------------------------------------
# The engine's algorithm registry


@cache
def _algorithms() -> dict[str, dict[str, Any]] | None:
    """The engine's algorithms by name, or None when the engine is not built.

    Without the engine the names cannot be checked here; the engine checks them again anyway.
    """
    try:
        from ccsim import _core
    except ImportError:
        return None
    return {info["name"]: dict(info) for info in _core.algorithms()}


def _check_algorithm(transfer: _Transfer, path: KeyPath) -> None:
    from ccsim import pycc

    if pycc.is_python_cc(transfer.cc):
        # A class written in Python: importable here, its constructor taking these parameters.
        try:
            pycc.check(transfer.cc, transfer.params)
        except ScenarioError as error:
            raise error.under(path) from None
        return
    registry = _algorithms()
    if registry is None:
        return
    info = registry.get(transfer.cc)
    if info is None:
        raise ScenarioError(
            f"unknown algorithm {show_value(transfer.cc)}; expected one of: {', '.join(sorted(registry))}"
            ' (or a Python class as "package.module:ClassName")',
            (*path, "cc"),
        )
    params = {param["name"]: param for param in info["params"]}
    for name, value in transfer.params.items():
        param_path = (*path, "params", name)
        if name not in params:
            expected = f"one of: {', '.join(params)}" if params else "none (it takes no parameters)"
            raise ScenarioError(
                f"{transfer.cc} has no parameter {show_value(name)}; expected {expected}",
                param_path,
            )
        _check_param_value(value, params[name], param_path)


def _check_param_value(value: Any, param: Mapping[str, Any], path: KeyPath) -> None:
    _check_param_kind(value, param, path)
    low, high = param.get("min"), param.get("max")
    if low is not None and high is not None and not low <= value <= high:
        raise ScenarioError(
            f"{show_value(value)} is out of range; expected a value from {low:g} to {high:g} "
            f"(default {param['default']:g})",
            path,
        )


def _check_param_kind(value: Any, param: Mapping[str, Any], path: KeyPath) -> None:
    kind = param["kind"]
    if kind == "bool":
        ok = isinstance(value, bool)
        expected = "true or false"
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
        expected = "an integer"
    else:
        ok = not isinstance(value, bool)
        expected = "a number"
    if not ok:
        raise ScenarioError(
            f"{show_value(value)} is not valid; expected {expected} (default {param['default']:g})",
            path,
        )


# --------------------------------------------------------------------------------------------
# Limits on what a scenario may ask for


def _byte_count(value: Any) -> Any:
    """A limit in bytes: a whole number of bytes, or a size like ``"4GiB"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return parse_size(value)


ByteCount = Annotated[
    int,
    BeforeValidator(_byte_count),
    Field(strict=True, ge=1),
    PlainSerializer(format_size),
]

#: The engine's default bound on distinct inspect names per table (RunLimits::default).
DEFAULT_INSPECT_COLUMNS = 64
#: The most the engine accepts (RunLimits::MAX_INSPECT_COLUMNS).
MAX_INSPECT_COLUMNS = 65_536


class Limits(_Table):
    """``[limits]``: bounds on quantities that multiply into memory or events.

    The defaults stop typing mistakes (``count = 1000000``, ``rate = 1e300``) before they exhaust
    the machine; a scenario that means it raises them, up to what the engine can hold.
    """

    #: Flows in all: every flow of every group, closed-loop slots, open-loop sources.
    flows: Annotated[int, Field(strict=True, ge=1, le=2**24)] = 100_000
    #: Transfers open-loop generators are expected to start (rate x time they are active).
    transfers: Annotated[int, Field(strict=True, ge=1, le=2**28)] = 1_000_000
    #: Packets any one queue may hold (a buffer in bytes counts in packets of the largest MSS).
    buffer_pkts: Annotated[int, Field(strict=True, ge=1, le=2**40)] = 10_000_000
    #: Rows of the sampled series: flows (and monitored links) x duration / sample_interval.
    samples: Annotated[int, Field(strict=True, ge=1, le=10**12)] = 100_000_000
    #: Memory the sampled series take at their peak, estimated from their rows and columns
    #: (:func:`estimated_series_bytes`): a 24 GiB machine holds this and the rest of a run.
    series_bytes: ByteCount = 4 * 2**30
    #: Bytes of the pcap files of ``[trace] pcap`` together, estimated at the captured links'
    #: rates (:func:`estimated_pcap_bytes`); a run holds about twice this in memory.
    pcap_bytes: ByteCount = 10**9
    #: Distinct names the algorithms' ``inspect()`` may report in one run (and the queue
    #: disciplines' in the queues table): each name is a column as long as the whole table.
    #: The engine enforces it as the columns are created.
    inspect_columns: Annotated[int, Field(strict=True, ge=1, le=MAX_INSPECT_COLUMNS)] = (
        DEFAULT_INSPECT_COLUMNS
    )

    def resolve(self) -> dict[str, Any] | None:
        """What the engine enforces itself (the engine's ``RunLimits``), or None when that is
        its default: the resolved scenario, and so the run id, of a run with default limits is
        what it was before the engine enforced any."""
        if self.inspect_columns == DEFAULT_INSPECT_COLUMNS:
            return None
        return {"inspect_columns": self.inspect_columns}


def _over_limit(shown: str, what: str, limit: int, key: str, path: KeyPath) -> ScenarioError:
    return ScenarioError(
        f"{shown} is too many {what}; expected at most {limit} "
        f"(set limits.{key} in the scenario to allow more)",
        path,
    )


# What the sampled series and the pcap files of a run take, estimated before it starts.
#
# Series: the engine records each row's values in columns (a flow row: t_s, cwnd_pkts,
# ssthresh_pkts, srtt_s and rate_bps as f64, flow as u32; a queue row: t_s, avg_queue_pkts as
# f64, queue_bytes as u64, link and queue_pkts as u32; each inspect name an f64 column). The peak
# comes after the run, when the columns exist about three times over: the engine's bytes handed
# to Python, the arrays made from them and the DataFrame's blocks. Measured with /usr/bin/time -v
# (maximum resident set size less that of the same run without sampling), 100 flows sampled
# every 1 ms for 100 s (1e7 flow rows): newreno 129 B per row (3 x 44 = 132), cubic with 2 inspect
# columns 179 B (3 x 60 = 180), sync-tcp with 5 columns 252 B (3 x 84 = 252).
SERIES_PEAK_COPIES = 3
SERIES_FLOW_ROW_BYTES = 5 * 8 + 4
SERIES_QUEUE_ROW_BYTES = 2 * 8 + 8 + 2 * 4
SERIES_INSPECT_VALUE_BYTES = 8
#: The inspect names of each queue discipline (Qdisc::inspect in crates/ccsim-core), for the
#: columns of the queues table; RED reports its marks only with ECN.
QUEUE_INSPECT_NAMES: dict[str, frozenset[str]] = {
    "droptail": frozenset(),
    "red": frozenset({"marks"}),
    "step": frozenset({"marks"}),
    "codel": frozenset({"sojourn_s", "drop_state", "aqm_count", "aqm_drops", "marks"}),
    "fq_codel": frozenset({"sojourn_s", "drop_state", "aqm_drops", "marks"}),
    "pie": frozenset({"sojourn_s", "drop_prob", "aqm_drops", "marks"}),
}
# pcap: a record is a 16-byte header and the packet's headers: IPv4 (20) and TCP with the
# timestamp option (32); SACK blocks lengthen some ACKs. Measured: 1 Gbps for 10 s captured at
# the bottleneck gave 80 882 640 bytes for 1 189 450 packets (68.0 B each, 99% of the link's
# rate in 1040-byte packets); one flow's capture 68.2 B per data packet and ACK. The run holds
# about twice the files' bytes at the end (the engine's records and files, then Python's copy).
PCAP_RECORD_BYTES = 68


def estimated_series_bytes(scenario: Scenario) -> tuple[int, int, int]:
    """The memory the sampled series of ``scenario`` take at their peak, with their rows:
    ``(bytes, flow rows, queue rows)``; zeros without ``trace.sample_interval``.

    Every flow of a group is counted from its start to the end of the run, each closed-loop slot
    and open-loop source as one flow for the whole run. A flow row carries the inspect columns
    the scenario's engine algorithms report, or ``limits.inspect_columns`` of them when an
    algorithm written in Python has an ``inspect()`` (it may report any names, up to that bound).
    """
    interval = scenario.trace.sample_interval
    if interval is None:
        return 0, 0, 0

    def samples_after(start: int) -> int:
        return max(0, scenario.duration - start) // interval + 1

    flow_rows = sum(group.count * samples_after(group.start) for group in scenario.flows)
    for gen in scenario.generators:
        if isinstance(gen, ClosedLoopGenerator):
            concurrent = gen.slots
        else:
            concurrent = gen.sources or max(len(gen.rtt_choices), len(gen.endpoints), 1)
        flow_rows += concurrent * samples_after(gen.start)
    queue_kinds = _monitored_queue_kinds(scenario.topology)
    queue_rows = len(queue_kinds) * samples_after(0)
    queue_columns = len(frozenset().union(*(QUEUE_INSPECT_NAMES.get(k, ()) for k in queue_kinds)))
    flow_bytes = SERIES_FLOW_ROW_BYTES + _inspect_columns(scenario) * SERIES_INSPECT_VALUE_BYTES
    queue_bytes = SERIES_QUEUE_ROW_BYTES + queue_columns * SERIES_INSPECT_VALUE_BYTES
    total = SERIES_PEAK_COPIES * (flow_rows * flow_bytes + queue_rows * queue_bytes)
    return total, flow_rows, queue_rows


def _inspect_columns(scenario: Scenario) -> int:
    """The inspect columns a flow row of the series may carry (see estimated_series_bytes)."""
    from ccsim import pycc

    bound = scenario.limits.inspect_columns
    registry = _algorithms() or {}
    names: set[str] = set()
    for transfer in [*scenario.flows, *scenario.generators]:
        if pycc.is_python_cc(transfer.cc):
            # Checked importable already (_check_algorithm); its names are known only at run time.
            if pycc.resolve(transfer.cc).inspect is not pycc.CongestionControl.inspect:
                return bound
            continue
        names.update(registry.get(transfer.cc, {}).get("inspect", ()))
    return min(len(names), bound)


def _monitored_queue_kinds(topology: Dumbbell | ParkingLot | Explicit) -> list[str]:
    """The queue discipline of every link whose queue is sampled (as the engine picks them:
    both directions of a dumbbell's or parking lot's core links; the explicit links marked
    ``monitor``, in their given direction, or every direction of every link when none is)."""
    if isinstance(topology, Dumbbell):
        return [topology.queue] * 2
    if isinstance(topology, ParkingLot):
        return [topology.queue] * (2 * (topology.routers - 1))
    if any(link.monitor for link in topology.links):
        return [link.queue for link in topology.links if link.monitor]
    return [link.queue for link in topology.links for _ in range(2 if link.duplex else 1)]


def estimated_pcap_bytes(scenario: Scenario) -> list[tuple[KeyPath, str, int]]:
    """The bytes of each pcap file of ``[trace] pcap``, estimated: ``(key path, what, bytes)``.

    A link's file: every packet the link can carry at its rate, in packets of the smallest MSS,
    from the first transfer's start to the end of the run. A flow's file: its data packets at the
    rate of its path's slowest access or core link (at most each segment of a finite transfer
    twice), and an ACK for each.
    """
    pcap = scenario.trace.pcap
    if pcap is None:
        return []
    transfers: list[_Transfer] = [*scenario.flows, *scenario.generators]
    packet = min((t.mss for t in transfers), default=DEFAULT_MSS) + HEADER_BYTES
    first_start = min((t.start for t in transfers), default=0)
    topology = scenario.topology

    def packets_at(rate: int, start: int) -> int:
        return rate * max(0, scenario.duration - start) // (8 * 10**9 * packet)

    out: list[tuple[KeyPath, str, int]] = []
    for i, name in enumerate(pcap.links):
        rate = _link_rate(topology, name)
        packets = packets_at(rate, first_start)
        shown = f"{name} at {format_rate(rate)}" if rate else name
        out.append((("trace", "pcap", "links", i), shown, packets * PCAP_RECORD_BYTES))
    groups = [group for group in scenario.flows for _ in range(group.count)]
    for i, flow in enumerate(pcap.flows):
        if flow < len(groups):
            group = groups[flow]
            rate = _path_rate(topology, group)
            data = packets_at(rate, group.start)
            if group.size is not None:
                data = min(data, 2 * -(-group.size // group.mss))
        else:
            # A generator's transfer: its size is drawn at run time.
            rate = max(_link_rates(topology).values(), default=0)
            data = packets_at(rate, first_start)
        shown = f"flow {flow} at {format_rate(rate)}"
        out.append((("trace", "pcap", "flows", i), shown, 2 * data * PCAP_RECORD_BYTES))
    return out


def _link_rates(topology: Dumbbell | ParkingLot | Explicit) -> dict[str, int]:
    """The rate of every "SRC->DST" link between named nodes (routers and explicit nodes)."""
    if isinstance(topology, Explicit):
        rates = {}
        for link in topology.links:
            rates[f"{link.src}->{link.dst}"] = link.rate
            if link.duplex:
                rates[f"{link.dst}->{link.src}"] = link.rate
        return rates
    if isinstance(topology, Dumbbell):
        return {"R1->R2": topology.bottleneck_rate, "R2->R1": topology.bottleneck_rate}
    rates = {}
    for i in range(topology.routers - 1):
        rates[f"R{i}->R{i + 1}"] = rates[f"R{i + 1}->R{i}"] = topology.rate
    return rates


def _link_rate(topology: Dumbbell | ParkingLot | Explicit, name: str) -> int:
    """The rate of the link named "SRC->DST": a core link's, else (a host's link on a dumbbell
    or parking lot) the access rate; 0 for a name the engine will reject."""
    rates = _link_rates(topology)
    if name in rates or isinstance(topology, Explicit):
        return rates.get(name, 0)
    return topology.access_rate or 0


def _path_rate(topology: Dumbbell | ParkingLot | Explicit, flow: FlowGroup) -> int:
    """An upper bound on a flow's rate: its slowest link among access and core on a dumbbell or
    parking lot; on an explicit topology the slower of the fastest link out of its source and
    the fastest into its destination."""
    if isinstance(topology, Dumbbell):
        return min(topology.bottleneck_rate, topology.access_rate or topology.bottleneck_rate)
    if isinstance(topology, ParkingLot):
        return min(topology.rate, topology.access_rate or topology.rate)
    rates = _link_rates(topology)
    src, dst = (flow.dst, flow.src) if flow.reverse else (flow.src, flow.dst)
    out = max((r for name, r in rates.items() if name.split("->")[0] == src), default=0)
    into = max((r for name, r in rates.items() if name.split("->")[1] == dst), default=0)
    return min(out, into)


def _gigabytes(n: int) -> str:
    """Bytes for a reader: ``"13 GB"``, ``"981 MB"``."""
    return f"{n / 1e9:.3g} GB" if n >= 10**9 else f"{n / 1e6:.3g} MB"


@cache
def _stack_profiles() -> dict[str, dict[str, Any]] | None:
    """The engine's stack profiles (each one's resolved knobs), or None without the engine."""
    try:
        from ccsim import _core
    except ImportError:
        return None
    return dict(_core.stack_profiles())


def _nesting_depth(data: Any, limit: int) -> int:
    """How deeply ``data`` nests lists and dicts, counting no further than ``limit + 1``;
    iterative, so that any input is measured without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping | list | tuple):
            deepest = max(deepest, depth + 1)
            if deepest > limit:
                return deepest
            children = value.values() if isinstance(value, Mapping) else value
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _check_depth(data: Any) -> None:
    if _nesting_depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise ScenarioError(
            f"tables and lists nested more than {MAX_DEPTH} deep; expected a scenario "
            "as docs/scenario-format.md describes it"
        )


# --------------------------------------------------------------------------------------------
# The scenario

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Scenario(_Table):
    """One simulation run: topology, traffic, stack profile, duration and seed.

    Build one with :meth:`load`, :meth:`from_toml` or :meth:`model_validate` (a dict shaped like
    the TOML file); :meth:`resolve` gives the engine's JSON structure, :meth:`to_toml` the file
    with every default filled in.
    """

    name: str = "scenario"
    seed: Seed = 1
    duration: Time
    profile: Literal["ns2", "rfc", "linux"] = "ns2"
    stack: Stack = Field(default_factory=Stack)
    topology: Topology
    flows: list[FlowGroup] = Field(default_factory=list)
    generators: list[Generator] = Field(default_factory=list)
    trace: Trace = Field(default_factory=Trace)
    limits: Limits = Field(default_factory=Limits)

    # The input as given, so that overrides apply to what the user wrote, not to filled defaults
    # (an override of bottleneck_rate must still move the default access_rate with it).
    _source: dict[str, Any] = PrivateAttr(default_factory=dict)

    def __init__(self, **data: Any) -> None:
        _check_depth(data)
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise _scenario_error(error) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Scenario:
        """Validate a dict shaped like the TOML file; errors raise :class:`ScenarioError`."""
        _check_depth(obj)
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as error:
            raise _scenario_error(error) from None

    @model_validator(mode="wrap")
    @classmethod
    def _remember_source(cls, data: Any, handler: Any) -> Scenario:
        scenario: Scenario = handler(data)
        if isinstance(data, Mapping):
            scenario._source = copy.deepcopy(dict(data))
        return scenario

    @field_validator("name")
    @classmethod
    def _name_is_a_directory_name(cls, name: str) -> str:
        if not _NAME.fullmatch(name):
            raise ScenarioError(
                f"{show_value(name)} is not a valid name; expected letters, digits, '.', '-' or '_' "
                "(it names the results directory)"
            )
        return name

    @model_validator(mode="after")
    def _check_consistency(self) -> Scenario:
        if self.duration == 0:
            raise ScenarioError('"0s" is zero; expected a run length like "60s"', ("duration",))
        if not self.flows and not self.generators:
            raise ScenarioError(
                "no traffic; expected at least one [[flows]] or [[generators]] table", ("flows",)
            )
        for i, flow in enumerate(self.flows):
            self._check_transfer(flow, ("flows", i))
            self.topology.check_flow(flow, ("flows", i))
        for i, gen in enumerate(self.generators):
            self._check_transfer(gen, ("generators", i))
            self.topology.check_generator(gen, ("generators", i))
        self._check_bdp_rtt()
        self._check_stack()
        self._check_limits()
        return self

    def _check_stack(self) -> None:
        """Knobs that must agree with each other, the profile's values filling in unset ones."""
        profiles = _stack_profiles()
        if profiles is None:
            return  # the engine checks the same when it is built
        knobs = profiles[self.profile]
        min_rto = self.stack.min_rto if self.stack.min_rto is not None else knobs["min_rto_ns"]
        max_rto = self.stack.max_rto if self.stack.max_rto is not None else knobs["max_rto_ns"]
        if max_rto < min_rto:
            key = "max_rto" if self.stack.max_rto is not None else "min_rto"
            raise ScenarioError(
                f'max_rto "{format_time(max_rto)}" is below min_rto "{format_time(min_rto)}" '
                f"(profile {self.profile} fills in what [stack] does not set); "
                "expected max_rto >= min_rto",
                ("stack", key),
            )

    def _check_limits(self) -> None:
        """Quantities that multiply into memory or events, against ``[limits]``."""
        limits = self.limits
        total = 0
        sources: list[tuple[KeyPath, int]] = [
            (("flows", i, "count"), group.count) for i, group in enumerate(self.flows)
        ]
        for i, gen in enumerate(self.generators):
            if isinstance(gen, ClosedLoopGenerator):
                sources.append((("generators", i, "slots"), gen.slots))
            else:
                default = max(len(gen.rtt_choices), len(gen.endpoints), 1)
                sources.append((("generators", i, "sources"), gen.sources or default))
        for path, n in sources:
            total += n
            if total > limits.flows:
                raise _over_limit(str(n), "flows in all", limits.flows, "flows", path)
        expected = 0.0
        for i, gen in enumerate(self.generators):
            if isinstance(gen, OpenLoopGenerator):
                end = min(gen.stop if gen.stop is not None else self.duration, self.duration)
                expected += gen.rate * max(0, end - gen.start) / 1e9
                if expected > limits.transfers:
                    shown = f"{gen.rate:g} per second (about {expected:.3g} transfers)"
                    raise _over_limit(
                        shown, "transfers", limits.transfers, "transfers", ("generators", i, "rate")
                    )
        packet = self.largest_mss() + HEADER_BYTES
        rtt = self.bdp_rtt_ns()
        for path, buffer, rate in self.topology.buffer_rates():
            if buffer.unit == "bdp" and rtt is None:
                continue  # reported by _check_bdp_rtt
            pkts, size = buffer.limits(rate, rtt, packet)
            held = pkts if pkts is not None else -(-(size or 0) // packet)
            if held > limits.buffer_pkts:
                raise ScenarioError(
                    f'"{buffer}" is {held} packets; expected at most {limits.buffer_pkts} '
                    "(set limits.buffer_pkts in the scenario to allow more)",
                    path,
                )
        if self.trace.sample_interval is not None:
            rows = (total + 1) * (self.duration // self.trace.sample_interval + 1)
            if rows > limits.samples:
                raise ScenarioError(
                    f'"{format_time(self.trace.sample_interval)}" gives about {rows} samples; '
                    f"expected at most {limits.samples} (a longer interval, or set "
                    "limits.samples in the scenario to allow more)",
                    ("trace", "sample_interval"),
                )
            self._check_series_bytes()
        self._check_pcap_bytes()

    def _check_series_bytes(self) -> None:
        limit = self.limits.series_bytes
        estimate, flow_rows, queue_rows = estimated_series_bytes(self)
        if estimate <= limit:
            return
        inspect = _inspect_columns(self)
        columns = f" ({inspect} inspect columns each)" if inspect else ""
        # An algorithm written in Python is counted at the bound: lowering it lowers the estimate.
        fewer = ", a lower limits.inspect_columns" if inspect == self.limits.inspect_columns else ""
        raise ScenarioError(
            f'"{format_time(self.trace.sample_interval or 0)}" gives {flow_rows:.3g} flow rows'
            f"{columns} and {queue_rows:.3g} queue rows, about {_gigabytes(estimate)} in memory; "
            f'expected at most {_gigabytes(limit)} (limits.series_bytes = "{format_size(limit)}"):'
            f" a longer interval, a shorter run or fewer flows{fewer}, or set "
            "limits.series_bytes in the scenario to allow more",
            ("trace", "sample_interval"),
        )

    def _check_pcap_bytes(self) -> None:
        limit = self.limits.pcap_bytes
        files = estimated_pcap_bytes(self)
        estimate = sum(size for _, _, size in files)
        if estimate <= limit:
            return
        path, what, size = max(files, key=lambda file: file[2])
        points = f"{len(files)} capture point{'s' if len(files) != 1 else ''}"
        raise ScenarioError(
            f"{points} over {format_time(self.duration)} would write about "
            f"{_gigabytes(estimate)} of pcap files (the largest: {what}, {_gigabytes(size)}); "
            f'expected at most {_gigabytes(limit)} (limits.pcap_bytes = "{format_size(limit)}"):'
            " capture fewer links or flows or a shorter run, or set limits.pcap_bytes in the "
            "scenario to allow more",
            path,
        )

    def _check_transfer(self, transfer: _Transfer, path: KeyPath) -> None:
        if transfer.start >= self.duration:
            raise ScenarioError(
                f'"{format_time(transfer.start)}" is not before the end of the run '
                f"({format_time(self.duration)}); expected an earlier start",
                (*path, "start"),
            )
        _check_algorithm(transfer, path)

    def _check_bdp_rtt(self) -> None:
        if self.bdp_rtt_ns() is not None:
            return
        for path, buffer in self.topology.buffers():
            if buffer.unit == "bdp":
                raise ScenarioError(
                    f'required because {format_path(path)} is "{buffer}"; '
                    'expected the reference RTT for BDP buffers, like "100ms"',
                    ("topology", "bdp_rtt"),
                )

    # ---- construction -----------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, overrides: Mapping[str, Any] | None = None) -> Scenario:
        """Read a scenario file; its name defaults to the file name without ``.toml``.

        ``overrides`` (as for :meth:`with_overrides`) replace keys of the file before anything
        is checked: ``--set flows.0.cc=reno`` runs a file whose algorithm cannot be imported
        here, or whose value for a key is wrong, as the overridden scenario.
        """
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ScenarioError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise ScenarioError(f"{path}: is a directory, expected a scenario file") from None
        except UnicodeDecodeError:
            raise ScenarioError(f"{path}: not a UTF-8 text file") from None
        except OSError as error:
            raise ScenarioError(f"{path}: cannot read: {error.strerror or error}") from None
        try:
            return cls.from_toml(text, name=_name_from_stem(path.stem), overrides=overrides)
        except _TomlSyntaxError as error:
            raise ScenarioError(f"{path}: {error}") from None

    @classmethod
    def from_toml(
        cls, text: str, name: str | None = None, overrides: Mapping[str, Any] | None = None
    ) -> Scenario:
        """Parse TOML text; ``name`` is used when the text sets none; ``overrides`` (as for
        :meth:`with_overrides`) replace keys before the scenario is checked."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise _TomlSyntaxError(f"invalid TOML: {error}") from None
        except RecursionError:
            raise _TomlSyntaxError(
                f"invalid TOML: values nested too deeply; expected at most {MAX_DEPTH} levels"
            ) from None
        if name is not None and "name" not in data:
            data["name"] = name
        _apply_overrides(data, overrides or {})
        return cls.model_validate(data)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Scenario:
        """A copy with keys replaced: ``{"topology.loss": "0.01", "flows.0.cc": "cubic"}``.

        String values are read as TOML values when they parse as one (``"0.01"`` is a number,
        ``"true"`` a boolean, ``'["40ms"]'`` a list) and kept as strings otherwise
        (``"100Mbps"``). A path may index into a list: ``flows.0.cc`` or ``flows[0].cc``.
        """
        data = self.data()
        _apply_overrides(data, overrides)
        return Scenario.model_validate(data)

    def data(self) -> dict[str, Any]:
        """The scenario as the user wrote it: a dict shaped like the TOML file (a copy).

        Defaults are not filled in, so a flow without a ``label`` still has none and will follow
        its ``cc``; ``Scenario.model_validate(scenario.data())`` gives the same scenario back.
        """
        return copy.deepcopy(self._source) or _toml_ready(self.model_dump(mode="json"))

    # ---- output -----------------------------------------------------------------------------

    def to_toml(self) -> str:
        """The scenario as TOML with every default filled in; loads back to the same scenario."""
        return tomli_w.dumps(_toml_ready(self.model_dump(mode="json")))

    def resolve(self) -> dict[str, Any]:
        """The engine's ``ScenarioSpec`` as plain data (serialize it with ``json.dumps``)."""
        rtt = self.bdp_rtt_ns()
        packet = self.largest_mss() + HEADER_BYTES
        spec: dict[str, Any] = {
            "name": self.name,
            "seed": self.seed,
            "duration_ns": self.duration,
            "stack": {"profile": self.profile, "overrides": self.stack.resolve()},
            "topology": self.topology.resolve(rtt, packet),
            "flows": [flow for group in self.flows for flow in group.resolve()],
            "generators": [gen.resolve() for gen in self.generators],
            "trace": self.trace.resolve(),
        }
        # Only when they differ from the engine's defaults (see Limits.resolve).
        if (limits := self.limits.resolve()) is not None:
            spec["limits"] = limits
        return spec

    # ---- derived quantities -------------------------------------------------------------------

    @property
    def flow_count(self) -> int:
        """Number of flows after expanding ``count`` (generators not included)."""
        return sum(group.count for group in self.flows)

    def largest_mss(self) -> int:
        """The largest MSS of any flow or generator: BDP buffers are counted in these packets."""
        transfers: list[_Transfer] = [*self.flows, *self.generators]
        return max((t.mss for t in transfers), default=DEFAULT_MSS)

    def bdp_rtt_ns(self) -> Fraction | None:
        """The RTT that "bdp" buffers are computed with, in (possibly fractional) nanoseconds.

        ``topology.bdp_rtt`` when given; on a dumbbell otherwise the mean base RTT of all flows
        (a group of ``count`` flows counts ``count`` times) and generator RTT choices.
        """
        if self.topology.bdp_rtt is not None:
            return Fraction(self.topology.bdp_rtt)
        if not isinstance(self.topology, Dumbbell):
            return None
        # (total, weight) pairs: a group of `count` flows counts `count` times.
        parts = [
            (Fraction(group.rtt) * group.count, group.count)
            for group in self.flows
            if group.rtt is not None
        ]
        parts += [(Fraction(rtt), 1) for gen in self.generators for rtt in gen.rtt_choices]
        parts += [
            (gen.rtt_dist.mean_ns(), 1) for gen in self.generators if gen.rtt_dist is not None
        ]
        weight = sum(w for _, w in parts)
        return sum((total for total, _ in parts), Fraction(0)) / weight if weight else None

    def describe(self) -> str:
        """One line: name, traffic, topology, duration and profile."""
        parts = [f"{self.flow_count} flow{'s' if self.flow_count != 1 else ''}"]
        if self.generators:
            n = len(self.generators)
            parts.append(f"{n} generator{'s' if n != 1 else ''}")
        parts += [
            f"{self.topology.kind.replace('_', ' ')} topology",
            format_time(self.duration),
            f"profile {self.profile}",
        ]
        return f"{self.name} ({', '.join(parts)})"


class _TomlSyntaxError(ScenarioError):
    """A TOML syntax error, so that load() can put the file name in front."""


# --------------------------------------------------------------------------------------------
# Helpers: names, overrides, TOML output, error conversion


def _name_from_stem(stem: str) -> str:
    """A valid scenario name from a file name: other characters become '_'."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", stem).lstrip("._-")
    return name or "scenario"


def parse_override_value(text: str) -> Any:
    """A ``--set`` value: a TOML value when it parses as one, else the string itself."""
    try:
        value = tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise ScenarioError(
            f"{show_value(text)} is nested too deeply; expected at most {MAX_DEPTH} levels"
        ) from None
    # TOML reads a bare `inf` or `nan` as a float, but here they mean the word ("size=inf").
    if isinstance(value, float) and not math.isfinite(value):
        return text
    return value


def _apply_overrides(data: dict[str, Any], overrides: Mapping[str, Any]) -> None:
    """Set each ``key: value`` of ``overrides`` in scenario ``data`` (in place); a string value
    is read as TOML when it parses as a TOML value (:func:`parse_override_value`)."""
    for key, value in overrides.items():
        parsed = parse_override_value(value) if isinstance(value, str) else value
        _set_path(data, key, parsed)


def _set_path(data: dict[str, Any], key: str, value: Any) -> None:
    """Set ``data[a][b][0][c] = value`` for the key ``a.b.0.c`` (or ``a.b[0].c``)."""
    parts = re.sub(r"\[(\d+)\]", r".\1", key).split(".")
    if any(part == "" for part in parts):
        raise ScenarioError(
            f"{show_value(key)} is not a key path; expected something like topology.loss"
        )
    node: Any = data
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        where = ".".join(parts[:depth]) or "the scenario"
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ScenarioError(
                    f"cannot set {key}: {where} has {len(node)} entries; expected an index below {len(node)}"
                )
            index: Any = int(part)
        elif isinstance(node, dict):
            index = part
        else:
            raise ScenarioError(f"cannot set {key}: {where} is {show_value(node)}, not a table")
        if last:
            node[index] = value
        else:
            if isinstance(node, dict) and index not in node:
                node[index] = {}
            node = node[index]


def _toml_ready(value: Any) -> Any:
    """Drop unset (None) and empty values, which TOML cannot or need not say; ``kind`` first."""
    if isinstance(value, dict):
        cleaned = {k: _toml_ready(v) for k, v in value.items()}
        cleaned = {k: v for k, v in cleaned.items() if not _is_empty(v)}
        if "kind" in cleaned:
            cleaned = {"kind": cleaned.pop("kind"), **cleaned}
        return cleaned
    if isinstance(value, list | tuple):
        return [_toml_ready(v) for v in value]
    return value


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, dict | list) and not value)


# Expectations for required keys, by path without list indices.
_EXPECTED_FOR_MISSING = {
    "duration": 'a run length like "60s"',
    "topology": "a [topology] table",
    "topology.bottleneck_rate": 'a rate like "100Mbps"',
    "topology.bottleneck_delay": 'a one-way delay like "5ms"',
    "topology.routers": "the number of routers, at least 2",
    "topology.rate": 'a rate like "100Mbps"',
    "topology.delay": 'a one-way delay per hop like "5ms"',
    "topology.nodes": 'a list of node names like ["a", "b"]',
    "topology.links": "at least one [[topology.links]] table",
    "topology.links.src": "a node name",
    "topology.links.dst": "a node name",
    "topology.links.rate": 'a rate like "100Mbps"',
    "topology.links.delay": 'a one-way delay like "5ms"',
    "flows.cc": 'an algorithm name like "newreno" (see `ccsim algorithms`)',
    "generators.cc": 'an algorithm name like "newreno" (see `ccsim algorithms`)',
    "generators.size": 'a size like "100KB" or a table like { dist = "exponential", mean = "100KB" }',
    "generators.size.dist": '"fixed", "exponential" or "pareto"',
    "generators.size.mean": 'a size like "100KB"',
    "generators.slots": "the number of transfers kept active, like 25",
    "generators.rate": "arrivals per second, like 10.0",
}


def _user_path(loc: Sequence[PathItem]) -> list[PathItem]:
    """A pydantic error location without the discriminator values pydantic inserts."""
    path: list[PathItem] = []
    for item in loc:
        after_union = bool(path) and (
            path[-1] == "topology" or (isinstance(path[-1], int) and path[-2:-1] == ["generators"])
        )
        if isinstance(item, str) and item in _UNION_TAGS and after_union:
            continue
        path.append(item)
    return path


def _scenario_error(error: ValidationError) -> ScenarioError:
    """The first pydantic error as a one-line :class:`ScenarioError`."""
    first = error.errors()[0]
    path = _user_path(first["loc"])
    ctx = first.get("ctx") or {}
    original = ctx.get("error")
    if isinstance(original, ScenarioError):
        return original.under(path)
    kind = first["type"]
    value = first.get("input")
    if kind == "missing":
        key = ".".join(p for p in path if isinstance(p, str))
        expected = _EXPECTED_FOR_MISSING.get(key)
        detail = "required key is missing" + (f"; expected {expected}" if expected else "")
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        if not isinstance(value, Mapping):
            detail = f"{show_value(value)} is not a table; expected a table with a kind key"
        else:
            tags = ", ".join(f'"{tag}"' for tag in _union_tags(path))
            path.append("kind")
            shown = (
                "required key is missing"
                if "kind" not in value
                else f"{show_value(value['kind'])} is not valid"
            )
            detail = f"{shown}; expected one of {tags}"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        detail = f"{show_value(value)} is not a table; expected a TOML table"
    elif original is not None:
        detail = str(original)
    elif kind in ("too_short", "string_too_short"):
        least = ctx.get("min_length", 1)
        what = "a non-empty string" if kind == "string_too_short" else f"at least {least} entries"
        detail = f"{show_value(value)} is too short; expected {what}"
    else:
        expected = first["msg"].removeprefix("Input should be ")
        if expected.startswith(("greater", "less")):
            expected = f"a value {expected}"
        detail = f"{show_value(value)} is not valid; expected {_double_quoted(expected)}"
    return ScenarioError(detail, path)


def _union_tags(path: Sequence[PathItem]) -> tuple[str, ...]:
    """The kinds accepted by the union at ``path`` (the topology or a generator)."""
    union = (
        Dumbbell | ParkingLot | Explicit
        if path[-1:] == ["topology"]
        else ClosedLoopGenerator | OpenLoopGenerator
    )
    return tuple(get_args(cls.model_fields["kind"].annotation)[0] for cls in get_args(union))


def _double_quoted(text: str) -> str:
    """pydantic quotes choices as 'a'; TOML (and our messages) use "a"."""
    return re.sub(r"'([^']*)'", r'"\1"', text)
