"""Type stubs for ccsim._core, the compiled engine (crates/ccsim-py).

The module is private: ccsim.run() and ccsim.scenario use it; users should not need to.
The dict shapes below are TypedDicts for the type checker only; at run time they are plain dicts.
"""

from collections.abc import Callable, Mapping
from typing import Any, Literal, TypedDict, final

__all__ = [
    "AckSample",
    "CongestionControlError",
    "CongestionEvent",
    "DelaySample",
    "Growth",
    "LimitExceededError",
    "OutOfMemoryError",
    "PacingContext",
    "RateSample",
    "RoundRtt",
    "SentSample",
    "Simulation",
    "algorithms",
    "format_time",
    "queue_kinds",
    "stack_profiles",
    "stack_settings",
    "validate",
    "version",
]

class ParamInfo(TypedDict):
    name: str
    default: float
    kind: Literal["float", "int", "bool"]
    min: float
    max: float
    doc: str
    #: Defaults that differ under a stack profile, by profile name (e.g. {"linux": 1.0}).
    profile_defaults: dict[str, float]

class AlgorithmInfo(TypedDict):
    name: str
    summary: str
    recovery: str
    params: list[ParamInfo]
    #: The names the algorithm reports through inspect() with its default parameters (a
    #: ``cc_<name>`` column of the series each).
    inspect: list[str]

class Table(TypedDict):
    """Columns of one result table. ``data[i]`` is a list of str when ``dtypes[i] == "str"``, else
    little-endian raw bytes of that dtype ("f64", "u64", "i64", "u32", "u8")."""

    names: list[str]
    dtypes: list[Literal["f64", "u64", "i64", "u32", "u8", "str"]]
    data: list[bytes | list[str]]

class RunStats(TypedDict):
    events: int
    packet_hops: int
    sim_end_ns: int

class RunOutput(TypedDict):
    """Tables "flows", "links", "series", "queues", "drops" (the last three empty unless traced)."""

    tables: dict[str, Table]
    #: pcap files by name ("link-R1-R2", "flow-3"), one per capture point of ``[trace] pcap``.
    pcap: dict[str, bytes]
    stats: RunStats
    stack: dict[str, Any]

def version() -> str:
    """The engine's version (the ccsim release it was built from)."""

def algorithms() -> list[AlgorithmInfo]:
    """Every congestion-control algorithm in the engine's registry, with its parameters."""

def stack_settings() -> list[dict[str, Any]]:
    """Every ``[stack]`` setting (crates/ccsim-core/src/tcp/stack_settings.rs), in the order the
    documentation lists them, each a dict: ``key`` in a scenario file (``min_rto``); ``field``,
    the engine's name (``min_rto_ns``); ``kind``, one of "bool", "int", "float", "time"
    (nanoseconds) or "choice"; ``min`` and ``max`` (None for "bool" and "choice"); ``choices``
    (the names a "choice" accepts, else empty); ``defaults``, each profile's value as in
    ``stack_profiles()`` (None: none); ``doc``, one line."""

def stack_profiles() -> dict[str, dict[str, Any]]:
    """Each stack profile's resolved configuration (the engine's StackConfig), by profile name:
    every knob the engine accepts, keyed as in a run's ``stack`` dict (``min_rto_ns``...)."""

def queue_kinds() -> list[str]:
    """The queue disciplines the engine accepts (the ``kind`` of a queue)."""

def validate(spec_json: str) -> None:
    """Check a resolved scenario as the engine does before building it; ValueError names the
    user's key (``stack.max_rto``, ``flows[1].rtt``), the value and what was expected."""

def format_time(ns: int) -> str:
    """A time in nanoseconds as the engine's messages write it (``"40ms"``, ``"1.5s"``)."""

@final
class Simulation:
    """One run of a resolved scenario (see ccsim.Scenario.resolve)."""

    def __new__(
        cls,
        spec_json: str,
        python_cc: Mapping[str, Callable[[dict[str, float]], tuple[Any, tuple[str, ...]]]]
        | None = None,
    ) -> Simulation:
        """Build the network and traffic. Raises ValueError for a spec the engine rejects.

        ``python_cc`` maps cc names to the builders of Python algorithms (ccsim.pycc.makers):
        called with a flow's parameters, each returns the instance and the names of the optional
        hooks its class overrides. A failing constructor raises CongestionControlError."""

    def advance(self, until_ns: int) -> bool:
        """Run until simulated time ``until_ns`` (GIL released unless Python algorithms take
        part); True once the run is over. Python signal handlers run every few milliseconds, so
        Ctrl-C raises KeyboardInterrupt promptly. An engine failure raises RuntimeError; a
        failing Python hook raises CongestionControlError (its cause: the hook's exception); a
        run that grows past ``limits.inspect_columns`` raises LimitExceededError, and one whose
        records cannot get memory OutOfMemoryError. After any of these the simulation is gone."""

    @property
    def now_ns(self) -> int:
        """Current simulated time, nanoseconds."""

    @property
    def duration_ns(self) -> int:
        """Simulated time at which the run ends, nanoseconds."""

    @property
    def events(self) -> int:
        """Events processed so far."""

    def finish(self) -> RunOutput:
        """Run to the end if needed and return the result tables and statistics. Raises as
        :meth:`advance` does (OutOfMemoryError also when the tables cannot be handed over)."""

class LimitExceededError(RuntimeError):
    """The run grew past a bound of its scenario's [limits] that only the running engine sees
    (limits.inspect_columns): the run stopped. The message names the run, the key and the
    bound, in one line."""

class OutOfMemoryError(MemoryError):
    """The engine could not allocate memory for a record that grows with the run (the sampled
    series, the drop log, the packet capture, the result tables): the run stopped. The message
    ("scenario NAME: out of memory: ...") names the run and the record."""

# ---- congestion control in Python (ccsim.pycc) -------------------------------------------------

class CongestionControlError(RuntimeError):
    """A hook of a congestion-control algorithm written in Python raised an exception: the run
    stopped. The exception raised is this one's ``__cause__``, with its own traceback."""

@final
class Growth:
    """How the stack counts increases and gates growth (the flow's stack profile)."""

    @property
    def slow_start_cap(self) -> float | None:
        """Cap on the slow-start increase per ACK, segments; None: no cap."""
    @property
    def gating(self) -> bool:
        """Skip growth when the flow is not cwnd-limited."""

@final
class RoundRtt:
    """Minimum, maximum, sum and count of one round's RTT samples (ns; 0 without samples)."""

    @property
    def min(self) -> int: ...
    @property
    def max(self) -> int: ...
    @property
    def sum(self) -> int: ...
    @property
    def count(self) -> int: ...
    def mean(self) -> float | None:
        """Mean of the samples, ns; None without samples."""

@final
class RateSample:
    """A delivery-rate sample in the manner of Linux's tcp_rate.c."""

    @property
    def delivered(self) -> int:
        """Segments delivered since the segment it is taken from left."""
    @property
    def interval(self) -> int:
        """max(send interval, ACK interval), ns."""
    @property
    def app_limited(self) -> bool: ...
    @property
    def retransmission(self) -> bool: ...
    def rate(self) -> float:
        """Delivery rate, segments per second."""

@final
class DelaySample:
    """The sender's delay and delivery measurements on one ACK, taken for every algorithm."""

    @property
    def latest(self) -> int:
        """This ACK's RTT sample, ns."""
    @property
    def base(self) -> int:
        """Smallest RTT sample since the connection opened, ns."""
    @property
    def max(self) -> int:
        """Largest RTT sample since the connection opened, ns."""
    @property
    def round(self) -> RoundRtt:
        """The current round's samples (on a round-start ACK: the round that just ended)."""
    @property
    def one_way_delay(self) -> int | None:
        """One-way delay of the echoed segment, ns (signed: the hosts' clocks may disagree)."""
    @property
    def rate(self) -> RateSample | None:
        """Delivery-rate sample, or None."""

@final
class AckSample:
    """An ACK that advanced the cumulative ACK (the Rust AckSample). Times in ns."""

    @property
    def now(self) -> int: ...
    @property
    def acked(self) -> float:
        """Segments newly acknowledged (cumulative advance)."""
    @property
    def increase_units(self) -> float:
        """Units of increase this ACK earns: 1 under per-ACK counting (ns-2), else acked."""
    @property
    def rtt(self) -> int | None:
        """The RTT estimator's sample from this ACK, if any."""
    @property
    def ca_rtt(self) -> int | None:
        """Linux's ca_rtt under every-ACK sampling, else None."""
    @property
    def srtt(self) -> int: ...
    @property
    def min_rtt(self) -> int: ...
    @property
    def one_way_delay(self) -> int | None: ...
    @property
    def echoed_ts(self) -> int:
        """Send timestamp of the segment this ACK echoes."""
    @property
    def prior_in_flight(self) -> float: ...
    @property
    def in_flight(self) -> float: ...
    @property
    def delivered(self) -> int:
        """Segments cumulatively acknowledged so far."""
    @property
    def round_start(self) -> bool:
        """Whether this ACK starts a new round."""
    @property
    def round(self) -> int: ...
    @property
    def cwnd_limited(self) -> bool: ...
    @property
    def ece(self) -> bool:
        """The ACK echoes a congestion mark (ECN-Echo, RFC 3168)."""
    @property
    def growth(self) -> Growth: ...
    @property
    def delay(self) -> DelaySample: ...

@final
class CongestionEvent:
    """The start of a loss episode (the Rust CongestionEvent)."""

    @property
    def now(self) -> int: ...
    @property
    def kind(self) -> Literal["loss", "ecn", "timeout"]: ...
    @property
    def in_flight(self) -> float: ...
    @property
    def basis(self) -> float:
        """What the stack profile computes a reduction from (window, flight size or cwnd)."""
    @property
    def first_timeout(self) -> bool:
        """For timeouts: the first expiry for the segment (only it lowers ssthresh)."""
    @property
    def srtt(self) -> int: ...
    @property
    def min_rtt(self) -> int: ...

@final
class SentSample:
    """A segment leaving the sender."""

    @property
    def now(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def retransmission(self) -> bool: ...
    @property
    def in_flight(self) -> float: ...

@final
class PacingContext:
    """What a pacing algorithm sees when asked for the next transmission time."""

    @property
    def now(self) -> int: ...
    @property
    def cwnd(self) -> float: ...
    @property
    def ssthresh(self) -> float: ...
    @property
    def srtt(self) -> int: ...
    @property
    def in_flight(self) -> float: ...
