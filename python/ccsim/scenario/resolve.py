"""A scenario's tables, and what follows from them alone: the engine's ``ScenarioSpec``
(:meth:`ScenarioTables.resolve`), the RTT that "bdp" buffers are sized with, the packet they are
counted in, and a one-line description.

:class:`~ccsim.scenario.model.Scenario` adds to these how a scenario is built (files,
overrides) and checked across tables; the estimates of what a run holds
(:mod:`ccsim.scenario.resources`) need only what is here.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from pydantic import Field

from ccsim.scenario.fields import Seed, Table, Time
from ccsim.scenario.limits import Limits
from ccsim.scenario.stack import Stack
from ccsim.scenario.topology import Dumbbell, Topology
from ccsim.scenario.trace import Trace
from ccsim.scenario.traffic import DEFAULT_MSS, FlowGroup, Generator, Transfer
from ccsim.units import HEADER_BYTES, format_time


class ScenarioTables(Table):
    """The tables of a scenario file, each valid on its own; see
    :class:`~ccsim.scenario.model.Scenario`."""

    name: str = "scenario"
    seed: Seed = 1
    duration: Time
    profile: Literal["ns2", "rfc", "linux-sack", "linux"] = "ns2"
    stack: Stack = Field(default_factory=Stack)
    topology: Topology
    flows: list[FlowGroup] = Field(default_factory=list)
    generators: list[Generator] = Field(default_factory=list)
    trace: Trace = Field(default_factory=Trace)
    limits: Limits = Field(default_factory=Limits)

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

    def engine_spec(self) -> dict[str, Any]:
        """:meth:`resolve` with the flow groups the engine names flows by in its messages
        (``flows[1]``, not the engine's ``flows[12]``). Not part of the run's identity, which
        :meth:`resolve` alone makes."""
        return {**self.resolve(), "flow_groups": [group.count for group in self.flows]}

    # ---- derived quantities -------------------------------------------------------------------

    @property
    def flow_count(self) -> int:
        """Number of flows after expanding ``count`` (generators not included)."""
        return sum(group.count for group in self.flows)

    def largest_mss(self) -> int:
        """The largest MSS of any flow or generator: BDP buffers are counted in these packets."""
        transfers: list[Transfer] = [*self.flows, *self.generators]
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
