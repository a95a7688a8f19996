"""A new idea tried in Python: Reno with a delay threshold. Once per round trip it compares the
round's smallest RTT with the smallest ever seen (the base RTT); when the difference, the delay
the flow's packets spent queued, exceeds ``threshold_ms`` it cuts the window by ``backoff``
without waiting for a loss. Losses are handled as Reno handles them.

    [[flows]]
    cc = "examples.python_cc.delay_reno:DelayReno"
    params = { threshold_ms = 2.0 }

Compared with CUBIC in examples/python_cc/sweep_delay_vs_cubic.toml; see docs/python-cc.md.
"""

from __future__ import annotations

import ccsim

from examples.python_cc.reno import MIN_SSTHRESH, Reno


class DelayReno(Reno):
    """Reno that also backs off, at most once per round trip, when queueing delay exceeds a
    threshold."""

    recovery = "newreno"

    def __init__(self, threshold_ms: float = 2.0, backoff: float = 0.85, beta: float = 0.5) -> None:
        super().__init__(alpha=1.0, beta=beta)
        self.threshold_ns = threshold_ms * 1e6
        self.backoff = backoff
        self.queueing_ns = 0.0

    def on_ack(self, ack: ccsim.AckSample) -> None:
        round_ = ack.delay.round
        if ack.round_start and round_.count > 0:
            # On a round-start ACK, delay.round summarises the round that just ended.
            self.queueing_ns = float(round_.min - ack.delay.base)
            if self.queueing_ns > self.threshold_ns:
                self.cwnd = max(self.cwnd * self.backoff, MIN_SSTHRESH)
                self.ssthresh = self.cwnd  # and leave slow start for good
                return
        super().on_ack(ack)

    def inspect(self, now: int) -> dict[str, float]:
        # A `cc_queueing_s` column in the series table when the scenario samples.
        return {"queueing_s": self.queueing_ns / 1e9}
