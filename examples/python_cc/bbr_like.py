"""A BBR-like algorithm in Python: BBR's model of the path (the largest delivery rate of the last
ten rounds and the smallest RTT), pacing at a gain times that bandwidth and a window capped at
two bandwidth-delay products. Not BBR (no PROBE_RTT, no long-term or ACK-aggregation estimates,
no response to losses): the built-in ``bbr`` is that. It shows what a rate-based algorithm reads
and sets: the rate sample on every ACK, ``pacing_rate()`` and ``sets_cwnd_on_every_ack``.

    [[flows]]
    cc = "examples.python_cc.bbr_like:BbrLike"

Run by examples/python_cc/bbr_like.toml; see docs/python-cc.md.
"""

from __future__ import annotations

from collections import deque

import ccsim

STARTUP_GAIN = 2.885  # 2 / ln 2: the sending rate doubles every round
# Once the pipe is full: probe for more bandwidth for a round, drain what that queued, cruise.
PROBE_GAINS = (1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
MIN_CWND = 4.0


class BbrLike(ccsim.CongestionControl):
    # on_ack sees every ACK, duplicates and recovery included, and the window is ours throughout.
    sets_cwnd_on_every_ack = True

    def __init__(self, bw_rounds: int = 10, cwnd_gain: float = 2.0) -> None:
        self.bw_rounds = bw_rounds
        self.cwnd_gain = cwnd_gain
        self.rates: deque[tuple[int, float]] = deque()  # (round, its best rate), segments/s
        self.bw = 0.0  # the largest of those rates
        self.round = 0
        self.round_ends_at = 0  # the delivered count whose delivery ends the current round
        self.min_rtt_s = 0.0
        self.mode = "startup"  # then "drain", then "probe"
        self.gain = STARTUP_GAIN
        self.full_bw = 0.0  # STARTUP ends after 3 rounds without 25% more than this
        self.stalled_rounds = 0

    def on_ack(self, ack: ccsim.AckSample) -> None:
        self.update_model(ack)
        bdp = self.bw * self.min_rtt_s
        if bdp == 0.0:
            return  # no estimate yet: the initial window stands
        target = max(self.cwnd_gain * bdp, MIN_CWND)
        grown = self.cwnd + ack.delivered_now
        if self.mode == "startup":
            self.cwnd = max(self.cwnd, min(grown, target))  # grows only, as slow start does
        else:
            self.cwnd = max(min(grown, target), MIN_CWND)

    def update_model(self, ack: ccsim.AckSample) -> None:
        sample = ack.delay.rate
        if sample is None:
            return  # this ACK delivered no segment the sender timed
        self.min_rtt_s = ack.delay.base / 1e9
        # A round ends when a segment sent after it began is delivered.
        new_round = sample.prior_delivered >= self.round_ends_at
        if new_round:
            self.round += 1
            self.round_ends_at = sample.prior_delivered + sample.delivered
            while self.rates and self.rates[0][0] <= self.round - self.bw_rounds:
                self.rates.popleft()
            self.bw = max((rate for _, rate in self.rates), default=0.0)
        rate = sample.rate()  # None when the interval was too short to measure
        # An app-limited sample says less than the path can carry, unless it beats the estimate.
        if rate is not None and (not sample.app_limited or rate >= self.bw):
            if self.rates and self.rates[-1][0] == self.round:
                rate = max(rate, self.rates.pop()[1])
            self.rates.append((self.round, rate))
            self.bw = max(self.bw, rate)
        if new_round:
            self.next_gain(ack)

    def next_gain(self, ack: ccsim.AckSample) -> None:
        if self.mode == "startup":
            if self.bw >= 1.25 * self.full_bw:
                self.full_bw, self.stalled_rounds = self.bw, 0
            else:
                self.stalled_rounds += 1
            if self.stalled_rounds == 3:  # the pipe is full: drain the queue STARTUP built
                self.mode, self.gain = "drain", 1.0 / STARTUP_GAIN
        elif self.mode == "drain" and ack.in_flight > self.bw * self.min_rtt_s:
            pass  # still draining
        else:
            self.mode, self.gain = "probe", PROBE_GAINS[self.round % len(PROBE_GAINS)]

    def pacing_rate(self) -> float | None:
        return self.gain * self.bw if self.bw > 0.0 else None  # unpaced until the first estimate

    def on_congestion(self, event: ccsim.CongestionEvent) -> None:
        pass  # the model ignores losses (after a timeout the sender has set cwnd to 1)

    def inspect(self, now: int) -> dict[str, float]:
        return {"bw": self.bw, "gain": self.gain, "min_rtt_s": self.min_rtt_s}
