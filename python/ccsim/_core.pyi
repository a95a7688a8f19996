"""Type stubs for ccsim._core, the compiled engine (crates/ccsim-py).

The module is private: ccsim.run() and ccsim.scenario use it; users should not need to.
The dict shapes below are TypedDicts for the type checker only; at run time they are plain dicts.
"""

from collections.abc import Callable, Mapping
from typing import Any, Literal, TypedDict, final

__all__ = [
    "AckSample",
    "CcHarness",
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

@final
class CcHarness:
    """One algorithm driven by a script without a network (ccsim.harness.Harness is its
    Python face; crates/ccsim-core/src/cc/harness.rs says which sender rules it applies)."""

    def __new__(
        cls,
        cc: str,
        params: Mapping[str, float] | None = None,
        profile: str = "linux",
        seed: int = 1,
        mss: int = 1000,
        maker: Callable[[dict[str, float]], tuple[Any, tuple[str, ...]]] | None = None,
    ) -> CcHarness:
        """A built-in algorithm, or with ``maker`` (ccsim.pycc.standalone_maker) a Python one.
        ValueError for an unknown algorithm, parameter or profile."""

    def send(self, segments: int) -> None: ...
    def fill(self) -> int: ...
    def ack(self, segments: int, rtt_ns: int | None = None, ce: int = 0) -> None: ...
    def round_trip(self, rtt_ns: int, marks: int = 0) -> int: ...
    def dupack(self) -> None: ...
    def loss(self) -> None: ...
    def timeout(self) -> None: ...
    def undo(self) -> None: ...
    def elapse(self, dt_ns: int) -> None: ...
    def mark_app_limited(self) -> None: ...
    def set_window(self, cwnd: float, ssthresh: float) -> None: ...
    def inspect(self) -> dict[str, float]: ...
    @property
    def name(self) -> str: ...
    @property
    def cwnd(self) -> float: ...
    @property
    def ssthresh(self) -> float: ...
    @property
    def pacing_rate(self) -> float | None: ...
    @property
    def now(self) -> int: ...
    @property
    def in_flight(self) -> int: ...
    @property
    def delivered(self) -> int: ...
    @property
    def round(self) -> int: ...
    @property
    def ca_state(self) -> str: ...
    @property
    def srtt(self) -> int | None: ...
    @property
    def min_rtt(self) -> int | None: ...
    @property
    def cwnd_limited(self) -> bool: ...
    @cwnd_limited.setter
    def cwnd_limited(self, limited: bool) -> None: ...

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

# The samples the hooks receive. Times (``now``, timestamps) are the simulated time in integer
# nanoseconds since the run began; durations (RTTs, intervals) integer nanoseconds; amounts of
# data float segments. docs/python-cc.md has the same fields as tables.

@final
class Growth:
    """How the stack counts increases and gates growth (the flow's stack profile)."""

    @property
    def slow_start_cap(self) -> float | None:
        """Cap on the slow-start increase per ACK, segments (RFC 5681: 1); None: no cap."""
    @property
    def gating(self) -> bool:
        """Grow only while the window limits the sender (``AckSample.cwnd_limited``)."""

@final
class RoundRtt:
    """The RTT samples (``DelaySample.latest``) of one round: minimum, maximum, sum and count.
    A round ends at a round-start ACK, whose summary covers the round that ended, its own
    sample included; the next ACK's holds its sample alone."""

    @property
    def min(self) -> int:
        """Smallest sample of the round, ns; 0 while ``count`` is 0."""
    @property
    def max(self) -> int:
        """Largest sample of the round, ns; 0 while ``count`` is 0."""
    @property
    def sum(self) -> int:
        """Sum of the round's samples, ns."""
    @property
    def count(self) -> int:
        """Number of samples in the round (every ACK that advances the cumulative ACK gives
        one, so at least 1 in a sample a hook receives)."""
    def mean(self) -> float | None:
        """Mean of the samples, ns (a float); None without samples."""

@final
class RateSample:
    """A delivery-rate sample in the manner of Linux's ``tcp_rate.c``: what happened between
    the send of the most recently sent segment this ACK newly delivers and now: the segments
    delivered, over the longer of its send interval and its ACK interval, and the losses and
    ECN marks over the same span."""

    @property
    def delivered(self) -> int:
        """Segments delivered (cumulatively or by SACK) since that segment left, this ACK's
        included."""
    @property
    def interval(self) -> int:
        """max(send interval, ACK interval), ns: the rate's denominator when ``valid``."""
    @property
    def valid(self) -> bool:
        """Whether the interval makes a rate: False when it is 0 or shorter than the flow's
        minimum RTT (Linux does not trust those); the counts hold either way."""
    @property
    def app_limited(self) -> bool:
        """The segment left while the sender was app-limited (it had no data to send, or the
        algorithm's ``take_app_limited`` marked the flight; Linux ``is_app_limited``): the
        rate says less than the path can carry."""
    @property
    def retransmission(self) -> bool:
        """The segment was a retransmission."""
    @property
    def prior_delivered(self) -> int:
        """The sender's delivered count when the segment left (Linux ``rs->prior_delivered``):
        a round that began at delivered count d ends with the first sample whose
        ``prior_delivered`` is at least d. The count now is ``prior_delivered + delivered``."""
    @property
    def tx_in_flight(self) -> int:
        """Segments in flight just after the segment left, itself included (BBRv3's
        ``tx_in_flight``)."""
    @property
    def lost(self) -> int:
        """Segments the sender marked lost between the segment's send and now (Linux
        ``rs->lost``)."""
    @property
    def delivered_ce(self) -> int:
        """Of ``delivered``, the segments whose ACKs carried ECN-Echo (Linux
        ``rs->delivered_ce``)."""
    def rate(self) -> float | None:
        """``delivered`` over ``interval``: the delivery rate, segments per second; None
        unless ``valid``."""

@final
class DelaySample:
    """The sender's delay and delivery measurements on one ACK (``AckSample.delay``), taken
    for every algorithm, in every state (recovery included)."""

    @property
    def latest(self) -> int:
        """This ACK's RTT sample for congestion control, ns: ``ca_rtt`` where there is one,
        else the timestamp echo (``now - echoed_ts``). Every ACK has one."""
    @property
    def base(self) -> int:
        """Smallest ``latest`` since the flow opened (the base RTT), this ACK's included, ns;
        never aged or reset."""
    @property
    def max(self) -> int:
        """Largest ``latest`` since the flow opened, this ACK's included, ns; never reset."""
    @property
    def round(self) -> RoundRtt:
        """The current round's samples, this ACK's included (on a round-start ACK: the round
        that just ended)."""
    @property
    def one_way_delay(self) -> int | None:
        """Same as ``AckSample.one_way_delay``: the echoed segment's one-way delay, ns
        (signed); None when the ACK carries no arrival time for it."""
    @property
    def rate(self) -> RateSample | None:
        """Delivery-rate sample; None when no segment this ACK newly delivers has a send record
        (none yet, or none kept: under ``ns2`` without SACK only for an algorithm with
        ``wants_delivery_rate``). Present, with ``valid`` False, when its interval is too short
        to make a rate."""
    @property
    def delivered(self) -> int:
        """Segments delivered so far, this ACK's included: cumulatively or by SACK (Linux
        ``tp->delivered``); without a send log (``ns2`` without SACK) the cumulative advances."""
    @property
    def delivered_ce(self) -> int:
        """Of ``delivered``, the segments reported CE-marked (Linux ``tp->delivered_ce``): the
        ``ce_delivered`` of every ACK so far, those no hook saw included."""

@final
class AckSample:
    """An ACK that advanced the cumulative ACK, as ``on_ack`` and ``on_ack_in_recovery``
    receive it, or any ACK, duplicates included, for a class that ``sets_cwnd_on_every_ack``.
    Times and RTTs in integer ns, amounts of data in segments."""

    @property
    def now(self) -> int:
        """Simulated time the ACK reached the sender, ns."""
    @property
    def acked(self) -> float:
        """Segments newly acknowledged by this ACK (how far the cumulative ACK moved; 0 on a
        duplicate ACK)."""
    @property
    def increase_units(self) -> float:
        """Units of window increase this ACK earns: 1 under per-ACK counting (``ns2``), else
        ``acked``."""
    @property
    def rtt(self) -> int | None:
        """The RTT sample the RTT estimator (``srtt``, the RTO) took from this ACK, ns, exact
        (not truncated to clock ticks): the timestamp echo under every-ACK sampling, or, under
        ``ns2``'s one timed segment per round trip, that segment's RTT on the ACK that covers
        it. None when this ACK gave the estimator no sample (most ACKs under ``ns2``)."""
    @property
    def ca_rtt(self) -> int | None:
        """Under every-ACK sampling (``linux``, ``rfc``), Linux's ``ca_rtt``: the RTT of the
        most recently sent segment this ACK newly acknowledges (the echo when only
        retransmissions were), ns. None under ``ns2``'s one-per-RTT timing."""
    @property
    def srtt(self) -> int:
        """Smoothed RTT (RFC 6298) after this ACK's sample, ns, from the estimator's samples
        (truncated to clock ticks under ``ns2``). 0 until the first sample: the SYN-ACK gives
        one under profiles with a handshake, else the first ``rtt``."""
    @property
    def min_rtt(self) -> int:
        """Smallest of the estimator's samples so far (the SYN-ACK's included), exact, ns; 0
        until the first sample, as ``srtt``."""
    @property
    def one_way_delay(self) -> int | None:
        """One-way delay of the segment this ACK echoes, ns: the receiver's timestamp of its
        arrival minus the sender's of its departure. Signed: with a flow's ``clock_offset`` or
        ``clock_drift_ppm`` the two clocks disagree. None when the ACK carries no arrival time
        for it."""
    @property
    def echoed_ts(self) -> int:
        """Send time of the segment whose timestamp this ACK echoes, ns (so ``now -
        echoed_ts`` is the echo RTT)."""
    @property
    def prior_in_flight(self) -> float:
        """Segments in flight before this ACK, as the sender counted them after its previous
        ACK and the sends since."""
    @property
    def in_flight(self) -> float:
        """Segments in flight after this ACK."""
    @property
    def delivered(self) -> int:
        """Segments cumulatively acknowledged since the flow opened, this ACK's included."""
    @property
    def round_start(self) -> bool:
        """This ACK starts a new round: it acknowledges data sent after the previous round
        started (the first ACK of a flow does)."""
    @property
    def round(self) -> int:
        """Rounds started so far, this ACK's included (1 from the flow's first ACK)."""
    @property
    def cwnd_limited(self) -> bool:
        """The sender was limited by ``cwnd``, not by the receiver window or a lack of data."""
    @property
    def ece(self) -> bool:
        """The ACK echoes a congestion mark (ECN-Echo, RFC 3168; only on flows with ECN; under
        AccECN feedback, the ACK reports CE-marked segments: ``ce_delivered > 0``). Such an ACK
        goes to ``on_ack_in_recovery``: it never grows the window."""
    @property
    def delivered_now(self) -> float:
        """Segments this ACK newly delivered, cumulatively or by SACK (Linux's
        ``acked_sacked``); a duplicate ACK without SACK counts 1 (the ACK that later covers it
        counts that much less)."""
    @property
    def newly_lost(self) -> float:
        """Segments the sender newly marked lost while processing this ACK (Linux's
        ``rs->losses``)."""
    @property
    def ce_delivered(self) -> float:
        """Of the segments this ACK newly delivered, how many the receiver reports CE-marked
        (flows with ECN only): under AccECN feedback the rise of the receiver's CE counter
        decoded from the ACK (RFC 9768); under the one-bit feedbacks ``delivered_now`` when the
        ACK has ``ece``."""
    @property
    def ca_state(self) -> Literal["open", "cwr", "recovery", "loss"]:
        """Where the sender stands after this ACK (Linux's ``icsk_ca_state``): "open";
        "cwr", an ECN reduction under way; "recovery", fast recovery; "loss", after a
        timeout, until the data outstanding then is acknowledged."""
    @property
    def growth(self) -> Growth:
        """How the flow's stack profile counts increases and gates growth."""
    @property
    def delay(self) -> DelaySample:
        """The delay and delivery measurements the sender takes on every ACK."""

@final
class CongestionEvent:
    """The start of a loss episode, as ``on_congestion`` receives it: called once per episode
    (the sender guarantees it)."""

    @property
    def now(self) -> int:
        """Simulated time the episode was detected, ns."""
    @property
    def kind(self) -> Literal["loss", "ecn", "timeout"]:
        """What started the episode. "loss": duplicate ACKs (or SACK) detected a loss, fast
        retransmit follows; "ecn": an ACK echoed a congestion mark (at most once per window,
        never in recovery; nothing is retransmitted); "timeout": the retransmission timer
        expired."""
    @property
    def in_flight(self) -> float:
        """Segments in flight when the loss was detected."""
    @property
    def basis(self) -> float:
        """Segments a reduction is computed from, as the stack's ``ssthresh_basis`` says:
        min(cwnd, receiver window) for "window" (``ns2``), the flight size for "flight_size"
        (``rfc``), cwnd for "cwnd" (``linux``)."""
    @property
    def first_timeout(self) -> bool:
        """For "timeout": this is the segment's first expiry; only the first lowers ssthresh
        (RFC 5681 eq. 4). For "loss" and "ecn": no timeout has expired since the last ACK of
        new data (normally True)."""
    @property
    def srtt(self) -> int:
        """Smoothed RTT, ns; 0 until the first RTT sample (as ``AckSample.srtt``)."""
    @property
    def min_rtt(self) -> int:
        """Smallest RTT sample so far, ns; 0 until the first (as ``AckSample.min_rtt``)."""

@final
class SentSample:
    """A segment leaving the sender, as ``on_sent`` receives it."""

    @property
    def now(self) -> int:
        """Simulated time the segment left, ns."""
    @property
    def seq(self) -> int:
        """The segment's sequence number, in segments from 0."""
    @property
    def retransmission(self) -> bool:
        """The segment was sent before: this is a retransmission."""
    @property
    def in_flight(self) -> float:
        """Segments in flight, as the sender counts them once the segment has left."""

@final
class PacingContext:
    """What a pacing algorithm sees when asked for the next transmission time
    (``next_send_time``)."""

    @property
    def now(self) -> int:
        """Simulated time of the question, ns."""
    @property
    def cwnd(self) -> float:
        """The sender's congestion window now, segments (the current value, which the
        algorithm's own ``cwnd`` attribute may lag in this hook)."""
    @property
    def ssthresh(self) -> float:
        """The sender's slow-start threshold now, segments (``math.inf``: none)."""
    @property
    def srtt(self) -> int:
        """Smoothed RTT, ns; 0 until the first RTT sample."""
    @property
    def in_flight(self) -> float:
        """Segments in flight."""
