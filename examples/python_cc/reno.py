"""TCP Reno written in Python: the same window arithmetic as the engine's built-in ``reno``
(crates/ccsim-core/src/cc/reno.rs and cc/common.rs), operation for operation, so that a run with it
gives the same result tables, byte for byte.

    [[flows]]
    cc = "examples.python_cc.reno:Reno"   # run from the repository's root directory

Tutorial: docs/python-cc.md.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import ccsim

#: Smallest ssthresh after a reduction, segments (RFC 5681 eq. 4).
MIN_SSTHRESH = 2.0


class Reno(ccsim.CongestionControl):
    """AIMD(alpha, beta): slow start, ``alpha`` segments per RTT in congestion avoidance, the
    window cut to ``beta`` times the basis on a loss, one segment after a timeout."""

    # RFC 5681 fast recovery: leave on the first ACK of new data. (Typed as the base class types
    # it, so that a subclass may choose "newreno".)
    recovery: ClassVar[Literal["reno", "newreno"]] = "reno"

    def __init__(self, alpha: float = 1.0, beta: float = 0.5) -> None:
        self.alpha = alpha
        self.beta = beta

    def on_ack(self, ack: ccsim.AckSample) -> None:
        if ack.growth.gating and not ack.cwnd_limited:
            return  # the stack allows growth only while the window limits the sender
        if self.cwnd < self.ssthresh:
            left = self.slow_start(ack)
            if left > 0.0:
                self.cwnd += self.alpha * left / self.cwnd
        else:
            self.cwnd += self.alpha * ack.increase_units / self.cwnd

    def slow_start(self, ack: ccsim.AckSample) -> float:
        """One segment per unit of increase (capped per ACK where the profile says); returns the
        units left over when cwnd reaches ssthresh."""
        inc = ack.increase_units
        cap = ack.growth.slow_start_cap
        if cap is not None:
            inc = min(inc, cap)
        room = max(self.ssthresh - self.cwnd, 0.0)
        if inc <= room or ack.increase_units <= 1.0:
            self.cwnd += inc
            return 0.0
        self.cwnd += room
        return inc - room

    def on_congestion(self, event: ccsim.CongestionEvent) -> None:
        ssthresh = max(event.basis * self.beta, MIN_SSTHRESH)
        if event.kind == "timeout":
            if event.first_timeout:  # only the first expiry lowers ssthresh
                self.ssthresh = ssthresh
            self.cwnd = 1.0
        else:  # a loss or an ECN echo
            self.ssthresh = ssthresh
            self.cwnd = ssthresh
