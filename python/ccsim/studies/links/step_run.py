"""What C2 measures of one run: the flow's rate and the bottleneck's queue around the two
steps, and the times and peaks read from them."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ccsim.studies.links.common import WIRE_BYTES
from ccsim.studies.links.workload import C2_HIGH_BPS, C2_LOW_BPS, RAMP_WINDOW_S

__all__ = ["DRAINED_PKTS", "DRAINED_S", "RAMP_SHARE", "StepRun"]

#: The flow's rate is judged over RAMP_WINDOW_S (ending at each sample) for the 90% mark.
RAMP_SHARE = 0.9
#: The queue is drained once it holds at most 20 ms at the low rate.
DRAINED_S = 0.02
DRAINED_PKTS = C2_LOW_BPS * DRAINED_S / (8 * WIRE_BYTES)


@dataclass(frozen=True)
class StepRun:
    #: Time (s), the flow's rate over the last RAMP_WINDOW_S (b/s), the bottleneck's queue (pkts).
    t_s: np.ndarray
    rate_bps: np.ndarray
    queue_t_s: np.ndarray
    queue_pkts: np.ndarray
    down_s: float
    up_s: float
    end_s: float

    def ramp_time(self) -> float:
        """From the step up to the first window at 90% of the high rate; the time left in the
        run (a lower bound) when it never gets there."""
        after = (self.t_s >= self.up_s + RAMP_WINDOW_S - 1e-9) & (
            self.rate_bps >= RAMP_SHARE * C2_HIGH_BPS
        )
        hits = self.t_s[after]
        return float(hits[0] - self.up_s) if len(hits) else self.end_s - self.up_s

    def _low(self) -> np.ndarray:
        return (self.queue_t_s > self.down_s) & (self.queue_t_s <= self.up_s)

    def queue_peak(self) -> float:
        low = self._low()
        return float(self.queue_pkts[low].max()) if low.any() else math.nan

    def drain_time(self) -> float:
        """From the step down to the first sample, from the queue's peak on, with at most
        DRAINED_PKTS queued; the whole low period (a lower bound) when it never drains."""
        low = self._low()
        t, q = self.queue_t_s[low], self.queue_pkts[low]
        if not len(q):
            return math.nan
        peak = int(np.argmax(q))
        drained = np.nonzero(q[peak:] <= DRAINED_PKTS)[0]
        return (
            float(t[peak + drained[0]] - self.down_s) if len(drained) else self.up_s - self.down_s
        )

    def low_utilization(self) -> float:
        low = (self.t_s > self.down_s + RAMP_WINDOW_S) & (self.t_s <= self.up_s)
        per_sample = self.rate_bps[low]
        return float(per_sample.mean()) / C2_LOW_BPS if len(per_sample) else math.nan
