"""The runs of C1 and C2: each configuration is one sweep (its seeds the replicates), named so
that the analysis finds its configuration again from the sweep's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccsim.studies.core import Settings
from ccsim.studies.links.common import C1_ALGORITHMS, C2_ALGORITHMS, dumbbell, traces

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


def seeds(s: Settings) -> list[int]:
    return s.seeds(FULL_REPLICATES, QUICK_REPLICATES)


def c1_sweeps(s: Settings) -> list[dict[str, Any]]:
    return [c.sweep(seeds(s)) for c in c1_configs(s)]


def c2_sweeps(s: Settings) -> list[dict[str, Any]]:
    return [c.sweep(seeds(s)) for c in c2_configs(s)]
