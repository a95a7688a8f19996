"""One congestion-control algorithm driven by a script, without a network.

A :class:`Harness` stands in for the sender of one bulk transfer whose segments are acknowledged in
order: the script sends segments, lets time pass, acknowledges them with RTT samples and CE marks,
reports duplicate ACKs, losses and timeouts, and reads the window, the pacing rate and the
algorithm's own state after each step. This is how a congestion control is unit-tested against its
specification, in seconds and without a topology (ns-3's TCP tests call an algorithm's hooks the
same way). The engine side is ``crates/ccsim-core/src/cc/harness.rs``; its module documentation
says exactly which of the sender's rules it applies (RFC 6298 srtt, rounds, Linux's delivery-rate
samples, recovery that ends when the data outstanding at its start is acknowledged, one ECN
reduction per window, cwnd = 1 after a timeout) and what it leaves out (SACK, PRR, pacing delays).

>>> from ccsim.harness import Harness
>>> h = Harness("reno")
>>> h.round(rtt="100ms")          # fill the window, one RTT, an ACK per segment
>>> h.cwnd                        # slow start: 10 -> 20
20.0
>>> h.loss()
>>> (h.cwnd, h.ssthresh, h.ca_state)
(10.0, 10.0, 'recovery')

Times are written as in scenario files (``"100ms"``) or as integers of nanoseconds.
"""

from __future__ import annotations

from collections.abc import Mapping

from ccsim import pycc
from ccsim._core import CcHarness
from ccsim.units import parse_time

__all__ = ["Harness"]


def _ns(value: str | int, what: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f'{what}: {value!r}; expected a time like "40ms" or nanoseconds')
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{what}: {value}; expected a time at least 0")
        return value
    return parse_time(value, (what,))


class Harness:
    """The algorithm ``cc`` with ``params``: a built-in name (unset parameters take ``profile``'s
    defaults) or a Python algorithm (``"module:Class"`` or a name given to
    :func:`ccsim.register_cc`), under ``profile``'s growth and reduction rules (initial window,
    per-ACK or per-segment counting, what a reduction is computed from). ``seed`` keys a built-in
    algorithm's random stream.

    When a Python algorithm's hook raises, the step that called it raises
    :class:`~ccsim.CongestionControlError` (the hook's exception as its ``__cause__``), and the
    algorithm's hooks do nothing from then on, as in a run."""

    def __init__(
        self,
        cc: str,
        params: Mapping[str, float] | None = None,
        *,
        profile: str = "linux",
        seed: int = 1,
        mss: int = 1000,
    ) -> None:
        given = dict(params or {})
        maker = pycc.standalone_maker(cc, given, profile, mss) if pycc.is_python_cc(cc) else None
        self._h = CcHarness(cc, given, profile, seed, mss, maker)

    # Steps.

    def send(self, segments: int = 1) -> None:
        """Put ``segments`` new segments in flight now, whatever the window says."""
        self._h.send(segments)

    def fill(self) -> int:
        """Send until the flight reaches the window (its whole part); returns how many were sent."""
        return self._h.fill()

    def elapse(self, dt: str | int) -> None:
        """Let ``dt`` pass."""
        self._h.elapse(_ns(dt, "dt"))

    def ack(self, segments: int = 1, *, rtt: str | int | None = None, ce: int = 0) -> None:
        """An ACK of the ``segments`` oldest segments in flight, ``ce`` of them reported
        CE-marked, carrying an RTT sample if ``rtt`` is given. Raises ValueError when fewer are
        in flight."""
        self._h.ack(segments, None if rtt is None else _ns(rtt, "rtt"), ce)

    def dupack(self) -> None:
        """A duplicate ACK."""
        self._h.dupack()

    def loss(self) -> None:
        """A loss is detected (fast retransmit): recovery starts unless under way."""
        self._h.loss()

    def timeout(self) -> None:
        """The retransmission timer expires."""
        self._h.timeout()

    def undo(self) -> None:
        """The latest reduction proved spurious."""
        self._h.undo()

    def mark_app_limited(self) -> None:
        """The flight now is app-limited (its rate samples say less than the path's capacity)."""
        self._h.mark_app_limited()

    def round(self, *, rtt: str | int, marks: int = 0) -> int:
        """One round trip of a cwnd-limited, ACK-clocked sender: fill the window, then an ACK
        for each segment then in flight, ``rtt`` after it left, the window refilled after each
        (so rounds end where the sender's do). The first ``marks`` ACKs report CE. Returns the
        number of ACKs."""
        return self._h.round_trip(_ns(rtt, "rtt"), marks)

    def set_window(self, cwnd: float, ssthresh: float = float("inf")) -> None:
        """Set the window, as a test's starting point."""
        self._h.set_window(cwnd, ssthresh)

    # What the algorithm shows.

    @property
    def name(self) -> str:
        return self._h.name

    @property
    def cwnd(self) -> float:
        return self._h.cwnd

    @property
    def ssthresh(self) -> float:
        return self._h.ssthresh

    @property
    def pacing_rate(self) -> float | None:
        """Segments per second, or None for an algorithm that does not pace."""
        return self._h.pacing_rate

    @property
    def now(self) -> int:
        """Nanoseconds since the start."""
        return self._h.now

    @property
    def in_flight(self) -> int:
        return self._h.in_flight

    @property
    def delivered(self) -> int:
        return self._h.delivered

    @property
    def rounds(self) -> int:
        """Rounds started so far (the sender's count)."""
        return self._h.round

    @property
    def ca_state(self) -> str:
        """``"open"``, ``"cwr"``, ``"recovery"`` or ``"loss"``."""
        return self._h.ca_state

    @property
    def srtt(self) -> int | None:
        return self._h.srtt

    @property
    def min_rtt(self) -> int | None:
        return self._h.min_rtt

    @property
    def cwnd_limited(self) -> bool:
        """Whether the sender counts as limited by its window (growth is gated on it); True
        unless set."""
        return self._h.cwnd_limited

    @cwnd_limited.setter
    def cwnd_limited(self, limited: bool) -> None:
        self._h.cwnd_limited = limited

    def inspect(self) -> dict[str, float]:
        """The algorithm's own state, as its ``inspect`` reports it."""
        return dict(self._h.inspect())

    def state(self) -> dict[str, float | int | str | None]:
        """Everything above in one dictionary: the window, the flight, the state and the
        algorithm's own quantities (prefixed ``cc_``, as in the series table)."""
        out: dict[str, float | int | str | None] = {
            "t_ns": self.now,
            "cwnd": self.cwnd,
            "ssthresh": self.ssthresh,
            "pacing_rate": self.pacing_rate,
            "in_flight": self.in_flight,
            "delivered": self.delivered,
            "ca_state": self.ca_state,
        }
        out.update({f"cc_{k}": v for k, v in self.inspect().items()})
        return out
