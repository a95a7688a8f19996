"""Traffic: ``[[flows]]`` groups of long-lived or sized transfers, and ``[[generators]]`` that
start transfers as the run goes (closed loop: a fixed number always active; open loop: Poisson
arrivals), with their size and RTT distributions."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, PlainSerializer, field_validator, model_validator

from ccsim.errors import ScenarioError, show_value
from ccsim.scenario.fields import (
    Count,
    Flag,
    Name,
    PositiveFloat,
    SignedTime,
    Size,
    Table,
    Time,
    TransferSize,
)
from ccsim.units import format_size, format_time, parse_size

DEFAULT_MSS = 1000
#: The largest MSS: a 65 535-byte IP packet less the headers (the engine's MAX_MSS_BYTES).
MAX_MSS = 65_495
#: Largest clock drift of a flow's receiver against its sender, ppm (the engine's bound).
MAX_CLOCK_DRIFT_PPM = 100_000.0


class Transfer(Table):
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
    def _default_label(self) -> Transfer:
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


class FlowGroup(Transfer):
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


class SizeDistribution(Table):
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


class RttDistribution(Table):
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


class BaseGenerator(Transfer):
    """Fields shared by both kinds of ``[[generators]]``."""

    kind: str
    size: GeneratorSize
    rtt_choices: list[Time] = Field(default_factory=list)
    rtt_dist: RttDistribution | None = None
    endpoints: list[tuple[Name, Name]] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_rtt_source(self) -> BaseGenerator:
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


class ClosedLoopGenerator(BaseGenerator):
    """``slots`` transfers always active: when one finishes, the next starts at once."""

    kind: Literal["closed_loop"]
    slots: Count

    def _arrivals(self) -> dict[str, Any]:
        return {"kind": "closed_loop", "slots": self.slots}


class OpenLoopGenerator(BaseGenerator):
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
