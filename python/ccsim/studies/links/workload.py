"""The runs of C1 and C2: each configuration is one sweep (its seeds the replicates), named so
that the analysis finds its configuration again from the sweep's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccsim.studies.core import Settings
from ccsim.studies.links.common import (
    BBR,
    BBR_NO_ALLOWANCE,
    C1_ALGORITHMS,
    C2_ALGORITHMS,
    C3_SENDERS,
    dumbbell,
    traces,
)

FULL_REPLICATES = 5
QUICK_REPLICATES = 3

# ---- C1: one flow at a time over a cellular trace ------------------------------------------------

#: Base RTT of the flow (20 ms each way, as Mahimahi's mm-delay 20 in the Sprout and Pantheon
#: setups), 5 ms of it on the trace link each way.
C1_RTT = "40ms"
C1_RTT_MS = 40.0
C1_LINK_DELAY = "5ms"
#: A deep drop-tail buffer, as cellular base stations keep (1.2 s at the synthetic trace's mean
#: 12.6 Mb/s, 2.6 s at Verizon LTE's 4.7 Mb/s); Mahimahi's default is unlimited.
C1_BUFFER_PKTS = 1000
#: (duration, warm-up) in seconds: the warm-up (slow start) is left out of every measure.
C1_TIMES = (30.0, 5.0)
C1_QUICK_TIMES = (12.0, 3.0)

# ---- C2: a rate step 100 -> 20 -> 100 Mb/s ---------------------------------------------------------

C2_HIGH_BPS = 100e6
C2_LOW_BPS = 20e6
C2_RTT = "40ms"
C2_LINK_DELAY = "5ms"
#: One BDP at the high rate (333 packets: 40 ms at 100 Mb/s, 200 ms at 20 Mb/s).
C2_BUFFER = "1bdp"
#: (duration, step down, step up) in seconds.
C2_TIMES = (60.0, 20.0, 40.0)
C2_QUICK_TIMES = (24.0, 8.0, 16.0)
#: The sampling of the flow's rate and the queue, and the window the rate is judged over.
C2_SAMPLE_S = 0.01
RAMP_WINDOW_S = 0.1


# ---- C3: ACK aggregation -----------------------------------------------------------------------------

C3_RATE_BPS = 50e6
C3_RTT = "40ms"
C3_LINK_DELAY = "10ms"
#: One BDP at 50 Mb/s and 40 ms (167 packets) on each direction of the bottleneck.
C3_BUFFER = "1bdp"
#: ACKs a burst: the level's burst limit. Level 1 is the plain link (no aggregation).
C3_LEVELS = (1, 4, 16, 32, 64, 128)
C3_QUICK_LEVELS = (1, 128)
#: The time a level's access delay is scaled by: about one ACK's spacing at the full rate
#: (4167 segments a second acknowledged two at a time, 0.48 ms), so that a burst of level N
#: collects about N ACKs. The delay of each burst is uniform in [0.5, 1.5] x N x this.
C3_ACK_SPACING_MS = 0.5
#: (duration, warm-up) in seconds.
C3_TIMES = (30.0, 5.0)
C3_QUICK_TIMES = (6.0, 2.0)
C3_QUICK_REPLICATES = 3
#: The quick form's senders (CI's time budget): BBR with and without its allowance.
C3_QUICK_SENDERS = (BBR, BBR_NO_ALLOWANCE)
C3_SAMPLE_S = 0.1


def c3_aggregation(level: int) -> dict[str, Any] | None:
    """The ACK direction's aggregation at ``level`` (None for level 1: a plain link). The burst
    limit is twice the level, so that the channel carries twice the ACK rate and a burst holds
    what arrived during its access delay, about ``level`` ACKs; the airtime limit does not bind
    (128 ACKs take 0.8 ms at 50 Mb/s)."""
    if level <= 1:
        return None
    mean_ms = level * C3_ACK_SPACING_MS
    return {
        "max_packets": 2 * level,
        "max_time": "10ms",
        "access_delay": {
            "dist": "uniform",
            "min": f"{0.5 * mean_ms:g}ms",
            "max": f"{1.5 * mean_ms:g}ms",
        },
    }


@dataclass(frozen=True)
class Config:
    """One configuration: its sweep's name, the keys its rows carry, its scenario."""

    name: str
    keys: dict[str, Any]
    cc: str
    scenario: dict[str, Any]
    duration_s: float
    warmup_s: float
    #: C2: the step down's and the step up's times.
    steps_s: tuple[float, float] | None = None

    def sweep(self, seeds: list[int]) -> dict[str, Any]:
        return {"name": self.name, "scenario": self.scenario, "seeds": seeds}


def c1_configs(s: Settings, directory: Path | None = None) -> list[Config]:
    """Each trace of the trace directory (the synthetic one unless set) with each algorithm."""
    duration, warmup = s.pick(C1_TIMES, C1_QUICK_TIMES)
    configs = []
    for name, down, up in traces(directory):
        topology: dict[str, Any] = {
            # The trace sets the rate; this sizes nothing but the default access links.
            "bottleneck_rate": "12Mbps",
            "bottleneck_delay": C1_LINK_DELAY,
            "access_rate": "100Mbps",
            "buffer": f"{C1_BUFFER_PKTS}pkts",
            "trace": str(down),
        }
        if up is not None:
            topology["reverse_trace"] = str(up)
        record = {"sample_interval": "100ms", "pcap": {"flows": [0]}}
        for cc in C1_ALGORITHMS:
            configs.append(
                Config(
                    name=f"c1-{name}-{cc}",
                    keys={"trace": name, "algorithm": cc},
                    cc=cc,
                    scenario=dumbbell(topology, cc, C1_RTT, duration, record),
                    duration_s=duration,
                    warmup_s=warmup,
                )
            )
    return configs


def c2_configs(s: Settings) -> list[Config]:
    duration, down, up = s.pick(C2_TIMES, C2_QUICK_TIMES)
    topology = {
        "bottleneck_rate": f"{C2_HIGH_BPS / 1e6:g}Mbps",
        "bottleneck_delay": C2_LINK_DELAY,
        "buffer": C2_BUFFER,
        "bdp_rtt": C2_RTT,
        "rate_schedule": [
            [f"{down:g}s", f"{C2_LOW_BPS / 1e6:g}Mbps"],
            [f"{up:g}s", f"{C2_HIGH_BPS / 1e6:g}Mbps"],
        ],
    }
    record = {"sample_interval": f"{C2_SAMPLE_S * 1e3:g}ms"}
    return [
        Config(
            name=f"c2-{cc}",
            keys={"algorithm": cc},
            cc=cc,
            scenario=dumbbell(topology, cc, C2_RTT, duration, record),
            duration_s=duration,
            warmup_s=down,
            steps_s=(down, up),
        )
        for cc in C2_ALGORITHMS
    ]


def c3_configs(s: Settings) -> list[Config]:
    duration, warmup = s.pick(C3_TIMES, C3_QUICK_TIMES)
    configs = []
    for level in s.pick(C3_LEVELS, C3_QUICK_LEVELS):
        topology: dict[str, Any] = {
            "bottleneck_rate": f"{C3_RATE_BPS / 1e6:g}Mbps",
            "bottleneck_delay": C3_LINK_DELAY,
            "buffer": C3_BUFFER,
            "bdp_rtt": C3_RTT,
        }
        aggregation = c3_aggregation(level)
        if aggregation is not None:
            topology["reverse_aggregation"] = aggregation
        record = {"sample_interval": f"{C3_SAMPLE_S * 1e3:g}ms"}
        for label, (cc, params) in C3_SENDERS.items():
            if s.quick and label not in C3_QUICK_SENDERS:
                continue
            configs.append(
                Config(
                    name=f"c3-{label}-{level}",
                    keys={"algorithm": label, "level": level},
                    cc=cc,
                    scenario=dumbbell(topology, cc, C3_RTT, duration, record, params, label),
                    duration_s=duration,
                    warmup_s=warmup,
                )
            )
    return configs


def seeds(s: Settings) -> list[int]:
    return s.seeds(FULL_REPLICATES, QUICK_REPLICATES)


def c1_sweeps(s: Settings) -> list[dict[str, Any]]:
    return [c.sweep(seeds(s)) for c in c1_configs(s)]


def c2_sweeps(s: Settings) -> list[dict[str, Any]]:
    return [c.sweep(seeds(s)) for c in c2_configs(s)]


def c3_sweeps(s: Settings) -> list[dict[str, Any]]:
    chosen = s.seeds(FULL_REPLICATES, C3_QUICK_REPLICATES)
    return [c.sweep(chosen) for c in c3_configs(s)]
