"""``[stack]``: scenario-wide overrides of the stack profile's knobs, and the check of the knobs
that must agree once the profile fills in the ones the scenario leaves unset."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

import ccsim.scenario.engine as engine
from ccsim.errors import ScenarioError
from ccsim.scenario.fields import Flag, Table, Time, time_at_least
from ccsim.units import format_time

#: The shortest retransmission timeout (min_rto, initial_rto, max_rto): the engine's MIN_RTO_NS.
#: A zero timeout would retransmit in a loop that never lets simulated time advance.
MIN_RTO_NS = 1_000


class Stack(Table):
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
    min_rto: Annotated[Time, time_at_least(MIN_RTO_NS)] | None = None
    initial_rto: Annotated[Time, time_at_least(MIN_RTO_NS)] | None = None
    max_rto: Annotated[Time, time_at_least(MIN_RTO_NS)] | None = None
    max_backoff: Annotated[int, Field(strict=True, ge=1, le=2**30)] | None = None
    clock_granularity: Annotated[Time, time_at_least(1)] | None = None
    delayed_ack: Flag | None = None
    delayed_ack_timeout: Annotated[Time, time_at_least(1)] | None = None
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
                overrides[STACK_ENGINE_NAMES.get(key, key)] = value
        return overrides


# [stack] keys whose engine name carries the unit.
STACK_ENGINE_NAMES = {
    "min_rto": "min_rto_ns",
    "initial_rto": "initial_rto_ns",
    "max_rto": "max_rto_ns",
    "clock_granularity": "clock_granularity_ns",
    "delayed_ack_timeout": "delayed_ack_timeout_ns",
    "default_max_window": "default_max_window_pkts",
    "send_overhead": "send_overhead_ns",
}


def check_stack_against_profile(stack: Stack, profile: str) -> None:
    """Knobs that must agree with each other, the profile's values filling in unset ones."""
    profiles = engine.stack_profiles()
    if profiles is None:
        return  # the engine checks the same when it is built
    knobs = profiles[profile]
    min_rto = stack.min_rto if stack.min_rto is not None else knobs["min_rto_ns"]
    max_rto = stack.max_rto if stack.max_rto is not None else knobs["max_rto_ns"]
    if max_rto < min_rto:
        key = "max_rto" if stack.max_rto is not None else "min_rto"
        raise ScenarioError(
            f'max_rto "{format_time(max_rto)}" is below min_rto "{format_time(min_rto)}" '
            f"(profile {profile} fills in what [stack] does not set); "
            "expected max_rto >= min_rto",
            ("stack", key),
        )
