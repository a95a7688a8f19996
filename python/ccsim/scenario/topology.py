"""``[topology]``: a dumbbell, a parking lot, or named nodes and the links between them. Each
kind checks the traffic placed on it (endpoints, RTTs) and resolves itself into the engine's
topology spec."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from ccsim.errors import ScenarioError, show_value
from ccsim.scenario.fields import BufferSize, Flag, KeyPath, Name, Probability, Rate, Table, Time
from ccsim.scenario.link_changes import (
    Aggregation,
    DelaySchedule,
    LossSchedule,
    RateSchedule,
    Trace,
    check_aggregation,
    check_one_transmitter,
    link_changes,
)
from ccsim.scenario.queues import (
    Codel,
    DualPi2,
    FqCodel,
    Pie,
    QueueKind,
    Red,
    Step,
    check_queue,
    link_params,
    queue_spec,
)
from ccsim.scenario.traffic import BaseGenerator, FlowGroup
from ccsim.units import Buffer, format_time

#: Access links must not be where packets are lost, so their default buffer is deep.
DEFAULT_ACCESS_BUFFER = "10000pkts"
#: Access links default to this multiple of the core link rate.
ACCESS_RATE_FACTOR = 4


class Reorder(Table):
    """``reorder = { probability = 0.01, delay = "5ms" }``: each packet crossing the link is,
    independently with ``probability``, held back for ``delay`` after it reaches the far end, and
    the packets behind it overtake it. Drawn from the link's own random stream."""

    probability: Annotated[float, Field(strict=True, ge=0, le=1, allow_inf_nan=False)]
    delay: Time


class _ChangingLink(Table):
    """The keys of a link that changes during the run, for each direction (docs/links.md):
    ``rate_schedule``, ``delay_schedule``, ``loss_schedule``, ``trace``, ``aggregation`` and their ``reverse_``
    twins. Declared on each topology table after its own keys (see :func:`_changing_keys`)."""

    def changes(self, reverse: bool) -> dict[str, Any]:
        """The engine's ``LinkParams`` keys for one direction's changes."""
        prefix = "reverse_" if reverse else ""
        return link_changes(
            getattr(self, f"{prefix}rate_schedule"),
            getattr(self, f"{prefix}delay_schedule"),
            getattr(self, f"{prefix}loss_schedule"),
            getattr(self, f"{prefix}trace"),
            getattr(self, f"{prefix}aggregation"),
        )

    def check_changes(self, duplex: bool = True) -> None:
        for prefix in ("", "reverse_"):
            check_one_transmitter(
                getattr(self, f"{prefix}rate_schedule"),
                getattr(self, f"{prefix}trace"),
                f"{prefix}rate_schedule",
            )
            check_aggregation(
                getattr(self, f"{prefix}aggregation"),
                getattr(self, f"{prefix}rate_schedule"),
                getattr(self, f"{prefix}trace"),
                getattr(self, "queue", "droptail"),
                f"{prefix}aggregation",
            )
        if not duplex:
            for key in ("rate_schedule", "delay_schedule", "loss_schedule", "trace", "aggregation"):
                if getattr(self, f"reverse_{key}") is not None:
                    raise ScenarioError(
                        "is set but duplex = false (there is no reverse link); expected no "
                        f"reverse_{key} or duplex = true",
                        (f"reverse_{key}",),
                    )


def _link(
    rate: int,
    delay: int,
    queue: dict[str, Any],
    loss: float,
    jitter: int,
    reorder: Reorder | None,
    changes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The engine's ``LinkParams``, with ``reorder`` only where it reorders anything and the
    changes only where there are some (so that scenarios without them resolve as before)."""
    params = link_params(rate, delay, queue, loss, jitter)
    if reorder is not None and reorder.probability > 0 and reorder.delay > 0:
        params["reorder"] = {
            "kind": "bernoulli",
            "p": reorder.probability,
            "delay_ns": reorder.delay,
        }
    params |= changes or {}
    return params


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


class Dumbbell(_ChangingLink):
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
    dualpi2: DualPi2 | None = None
    step: Step | None = None
    loss: Probability = 0.0
    reverse_loss: Probability = 0.0
    #: Packets held back on the bottleneck, data direction (``reverse_reorder``: ACK direction).
    reorder: Reorder | None = None
    reverse_reorder: Reorder | None = None
    access_buffer: BufferSize = DEFAULT_ACCESS_BUFFER  # type: ignore[assignment]
    bdp_rtt: Time | None = None  # default: the mean base RTT of the flows
    #: Random per-packet processing delay, uniform in [0, jitter], before the bottleneck queue
    #: (both directions).
    jitter: Time = "0s"  # type: ignore[assignment]
    #: Changes during the run, data direction (``reverse_*``: the other), docs/links.md.
    rate_schedule: RateSchedule | None = None
    delay_schedule: DelaySchedule | None = None
    loss_schedule: LossSchedule | None = None
    trace: Trace | None = None
    reverse_rate_schedule: RateSchedule | None = None
    reverse_delay_schedule: DelaySchedule | None = None
    reverse_loss_schedule: LossSchedule | None = None
    reverse_trace: Trace | None = None
    #: Packets sent in bursts, as by a Wi-Fi station (``reverse_aggregation``: the other
    #: direction, e.g. the ACKs), docs/links.md.
    aggregation: Aggregation | None = None
    reverse_aggregation: Aggregation | None = None

    @model_validator(mode="after")
    def _fill_defaults(self) -> Dumbbell:
        if self.access_rate is None:
            self.access_rate = ACCESS_RATE_FACTOR * self.bottleneck_rate
        check_queue(self)
        self.check_changes()
        return self

    def check_flow(self, flow: FlowGroup, path: KeyPath) -> None:
        why = "on a dumbbell; every dumbbell flow has its own sender and receiver"
        _reject(flow.src, why, (*path, "src"))
        _reject(flow.dst, why, (*path, "dst"))
        if flow.rtt is None:
            raise ScenarioError(
                'required on a dumbbell; expected a base RTT like "40ms"', (*path, "rtt")
            )
        # The RTT against the bottleneck delay is the engine's rule (spec.rs, check_base_rtt).

    def check_generator(self, gen: BaseGenerator, path: KeyPath) -> None:
        _reject(gen.endpoints, "on a dumbbell; use rtt_choices", (*path, "endpoints"))
        if not gen.rtt_choices and gen.rtt_dist is None:
            raise ScenarioError(
                "required on a dumbbell (or rtt_dist); expected a list of base RTTs like "
                '["40ms", "80ms"]',
                (*path, "rtt_choices"),
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
        queue = queue_spec(self, self.buffer, self.bottleneck_rate, rtt, packet)
        access = queue_spec(None, self.access_buffer, self.access_rate, rtt, packet)
        rate, delay = self.bottleneck_rate, self.bottleneck_delay
        return {
            "kind": "dumbbell",
            "forward": _link(
                rate, delay, queue, self.loss, self.jitter, self.reorder, self.changes(False)
            ),
            "reverse": _link(
                rate,
                delay,
                queue,
                self.reverse_loss,
                self.jitter,
                self.reverse_reorder,
                self.changes(True),
            ),
            "access_rate_bps": self.access_rate,
            "access_queue": access,
        }


class ParkingLot(_ChangingLink):
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
    dualpi2: DualPi2 | None = None
    step: Step | None = None
    loss: Probability = 0.0
    reverse_loss: Probability = 0.0
    #: Packets held back on every router-to-router link (``reverse_reorder``: towards R0).
    reorder: Reorder | None = None
    reverse_reorder: Reorder | None = None
    access_rate: Rate | None = None  # default: ACCESS_RATE_FACTOR x rate
    access_delay: Time = "1ms"  # type: ignore[assignment]
    access_buffer: BufferSize = DEFAULT_ACCESS_BUFFER  # type: ignore[assignment]
    bdp_rtt: Time | None = None
    #: Random per-packet processing delay before every router-to-router queue (both directions).
    jitter: Time = "0s"  # type: ignore[assignment]
    #: Changes during the run, every router-to-router link towards higher numbers (``reverse_*``: towards R0), docs/links.md.
    rate_schedule: RateSchedule | None = None
    delay_schedule: DelaySchedule | None = None
    loss_schedule: LossSchedule | None = None
    trace: Trace | None = None
    reverse_rate_schedule: RateSchedule | None = None
    reverse_delay_schedule: DelaySchedule | None = None
    reverse_loss_schedule: LossSchedule | None = None
    reverse_trace: Trace | None = None
    #: Packets sent in bursts, as by a Wi-Fi station (``reverse_aggregation``: the other
    #: direction, e.g. the ACKs), docs/links.md.
    aggregation: Aggregation | None = None
    reverse_aggregation: Aggregation | None = None

    @model_validator(mode="after")
    def _fill_defaults(self) -> ParkingLot:
        if self.access_rate is None:
            self.access_rate = ACCESS_RATE_FACTOR * self.rate
        check_queue(self)
        self.check_changes()
        return self

    def router_names(self) -> list[str]:
        return [f"R{i}" for i in range(self.routers)]

    def check_flow(self, flow: FlowGroup, path: KeyPath) -> None:
        names = self.router_names()
        paths = ((*path, "src"), (*path, "dst"))
        _check_pair(flow.src, flow.dst, names, "router", "on a parking lot", paths)

    def check_generator(self, gen: BaseGenerator, path: KeyPath) -> None:
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
        queue = queue_spec(self, self.buffer, self.rate, rtt, packet)
        access = queue_spec(None, self.access_buffer, self.access_rate, rtt, packet)
        return {
            "kind": "parking_lot",
            "routers": self.routers,
            "forward": _link(
                self.rate,
                self.delay,
                queue,
                self.loss,
                self.jitter,
                self.reorder,
                self.changes(False),
            ),
            "reverse": _link(
                self.rate,
                self.delay,
                queue,
                self.reverse_loss,
                self.jitter,
                self.reverse_reorder,
                self.changes(True),
            ),
            "access_rate_bps": self.access_rate,
            "access_delay_ns": self.access_delay,
            "access_queue": access,
        }


def _check_endpoints(
    gen: BaseGenerator, names: list[str], noun: str, topo: str, path: KeyPath
) -> None:
    if not gen.endpoints:
        raise ScenarioError(
            f'required on a {topo}; expected a list of [src, dst] pairs like [["{names[0]}", "{names[1]}"]]',
            (*path, "endpoints"),
        )
    for j, (src, dst) in enumerate(gen.endpoints):
        pair = (*path, "endpoints", j)
        _check_pair(src, dst, names, noun, f"on a {topo}", ((*pair, 0), (*pair, 1)))


class ExplicitLink(_ChangingLink):
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
    dualpi2: DualPi2 | None = None
    step: Step | None = None
    loss: Probability = 0.0
    reverse_loss: Probability = 0.0
    #: Packets held back, ``src`` -> ``dst`` (``reverse_reorder``: the reverse link).
    reorder: Reorder | None = None
    reverse_reorder: Reorder | None = None
    duplex: Flag = True
    monitor: Flag = False
    #: Random per-packet processing delay before this link's queue (both directions if duplex).
    jitter: Time = "0s"  # type: ignore[assignment]
    #: Changes during the run, ``src`` -> ``dst`` (``reverse_*``: the reverse link), docs/links.md.
    rate_schedule: RateSchedule | None = None
    delay_schedule: DelaySchedule | None = None
    loss_schedule: LossSchedule | None = None
    trace: Trace | None = None
    reverse_rate_schedule: RateSchedule | None = None
    reverse_delay_schedule: DelaySchedule | None = None
    reverse_loss_schedule: LossSchedule | None = None
    reverse_trace: Trace | None = None
    #: Packets sent in bursts, as by a Wi-Fi station (``reverse_aggregation``: the other
    #: direction, e.g. the ACKs), docs/links.md.
    aggregation: Aggregation | None = None
    reverse_aggregation: Aggregation | None = None

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
        if self.reverse_reorder is not None and not self.duplex:
            raise ScenarioError(
                "is set but duplex = false (there is no reverse link); expected no "
                "reverse_reorder or duplex = true",
                ("reverse_reorder",),
            )
        check_queue(self)
        self.check_changes(self.duplex)
        return self

    def resolve(self, rtt: Fraction | None, packet: int) -> list[dict[str, Any]]:
        """One engine ``ExplicitLink`` per direction."""
        queue = queue_spec(self, self.buffer, self.rate, rtt, packet)
        forward = {"src": self.src, "dst": self.dst, "monitor": self.monitor}
        forward |= _link(
            self.rate, self.delay, queue, self.loss, self.jitter, self.reorder, self.changes(False)
        )
        if not self.duplex:
            return [forward]
        # Only the given direction is monitored: it is the one the user thinks of as "the link".
        reverse = {"src": self.dst, "dst": self.src, "monitor": False}
        reverse |= _link(
            self.rate,
            self.delay,
            queue,
            self.reverse_loss,
            self.jitter,
            self.reverse_reorder,
            self.changes(True),
        )
        return [forward, reverse]


class Explicit(Table):
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

    def check_generator(self, gen: BaseGenerator, path: KeyPath) -> None:
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
