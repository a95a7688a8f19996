"""The runs of B1-B4: each study's configurations (one sweep each, its seeds the replicates),
named so that the analysis finds a sweep's configuration again from its name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ccsim.studies.bbr.common import LOSS_BASED, V1, VERSIONS, dumbbell, flow
from ccsim.studies.core import Settings

# ---- what each study runs, full and quick -------------------------------------------------------

#: B1: buffers in BDPs at 40 ms; 1 Gb/s runs the ends and the middle of the range (its runs cost
#: ten times as much).
B1_BUFFERS = {"100M": (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0), "1G": (0.1, 0.5, 2.0, 16.0)}
B1_QUICK_BUFFERS = {"100M": (0.25, 1.0, 16.0)}
#: B1's mixes: BBR flows vs CUBIC flows.
B1_MIXES = {"1v1": 1, "2v2": 2}
#: Run length and warm-up (s) per rate.
B1_TIMES = {"100M": (60.0, 20.0), "1G": (30.0, 10.0)}
B1_QUICK_TIMES = {"100M": (20.0, 5.0)}

#: B2: the CUBIC flow counts and the (deep) buffers.
B2_COUNTS = (1, 2, 4, 8, 16)
B2_QUICK_COUNTS = (1, 4, 16)
B2_BUFFERS = (4.0, 16.0)
B2_QUICK_BUFFERS = (16.0,)
B2_TIMES = (90.0, 30.0)
B2_QUICK_TIMES = (30.0, 10.0)

#: B3: flow counts; RTTs evenly spaced from 10 to 100 ms; the buffer is one BDP at 100 ms.
B3_COUNTS = (2, 5, 10)
B3_QUICK_COUNTS = (2, 5)
B3_RTT_RANGE_MS = (10.0, 100.0)
B3_BDP_RTT = "100ms"
B3_TIMES = (60.0, 20.0)
B3_QUICK_TIMES = (30.0, 10.0)

#: B4: buffers; the partners of each version (one flow each), and four flows of one version.
B4_BUFFERS = (0.5, 2.0, 8.0)
B4_QUICK_BUFFERS = (2.0,)
B4_PARTNERS = (*LOSS_BASED, "itself")
B4_SELF_FLOWS = 4
B4_TIMES = (60.0, 20.0)
B4_QUICK_TIMES = (30.0, 10.0)

FULL_REPLICATES = 5
QUICK_REPLICATES = 3


@dataclass(frozen=True)
class Config:
    """One configuration of a study: its sweep's name, the keys its rows carry, the flows, the
    link and the run's length and warm-up."""

    name: str
    keys: dict[str, Any]
    rate: str
    buffer_bdp: float
    flows: tuple[dict[str, Any], ...]
    duration_s: float
    warmup_s: float
    bdp_rtt: str = "40ms"
    extra: dict[str, Any] = field(default_factory=dict)

    def sweep(self, seeds: list[int]) -> dict[str, Any]:
        scenario = dumbbell(
            self.rate, self.buffer_bdp, self.flows, self.duration_s, bdp_rtt=self.bdp_rtt
        )
        return {"name": self.name, "scenario": scenario, "seeds": seeds}


def b1_configs(s: Settings) -> list[Config]:
    buffers = s.pick(B1_BUFFERS, B1_QUICK_BUFFERS)
    times = s.pick(B1_TIMES, B1_QUICK_TIMES)
    configs = []
    for rate, points in buffers.items():
        duration, warmup = times[rate]
        for mix, n in B1_MIXES.items():
            flows = tuple([flow(V1)] * n + [flow("cubic")] * n)
            for bdp in points:
                configs.append(
                    Config(
                        name=f"b1-{rate}-{mix}-q{bdp:g}",
                        keys={
                            "config": f"{rate} {mix}",
                            "rate": rate,
                            "mix": mix,
                            "buffer_bdp": bdp,
                        },
                        rate=rate,
                        buffer_bdp=bdp,
                        flows=flows,
                        duration_s=duration,
                        warmup_s=warmup,
                    )
                )
    return configs


def b2_configs(s: Settings) -> list[Config]:
    duration, warmup = s.pick(B2_TIMES, B2_QUICK_TIMES)
    return [
        Config(
            name=f"b2-q{bdp:g}-n{n}",
            keys={"buffer": f"{bdp:g} BDP", "buffer_bdp": bdp, "n_cubic": n},
            rate="100M",
            buffer_bdp=bdp,
            flows=(flow(V1), *[flow("cubic")] * n),
            duration_s=duration,
            warmup_s=warmup,
        )
        for bdp in s.pick(B2_BUFFERS, B2_QUICK_BUFFERS)
        for n in s.pick(B2_COUNTS, B2_QUICK_COUNTS)
    ]


def b3_rtts_ms(n: int) -> list[float]:
    """``n`` RTTs evenly spaced over :data:`B3_RTT_RANGE_MS`, shortest first."""
    low, high = B3_RTT_RANGE_MS
    return [low + (high - low) * i / (n - 1) for i in range(n)]


def b3_configs(s: Settings) -> list[Config]:
    duration, warmup = s.pick(B3_TIMES, B3_QUICK_TIMES)
    return [
        Config(
            name=f"b3-{cc}-n{n}",
            keys={"algorithm": cc, "flows": n},
            rate="100M",
            buffer_bdp=1.0,
            flows=tuple(
                flow(cc, rtt=f"{r * 1000:.0f}us", label=f"{r:g} ms") for r in b3_rtts_ms(n)
            ),
            duration_s=duration,
            warmup_s=warmup,
            bdp_rtt=B3_BDP_RTT,
        )
        for cc in VERSIONS
        for n in s.pick(B3_COUNTS, B3_QUICK_COUNTS)
    ]


def b4_configs(s: Settings) -> list[Config]:
    duration, warmup = s.pick(B4_TIMES, B4_QUICK_TIMES)
    configs = []
    for cc in VERSIONS:
        for partner in B4_PARTNERS:
            if partner == "itself":
                flows = tuple([flow(cc)] * B4_SELF_FLOWS)
            else:
                flows = (flow(cc), flow(partner))
            for bdp in s.pick(B4_BUFFERS, B4_QUICK_BUFFERS):
                configs.append(
                    Config(
                        name=f"b4-{cc}-{partner}-q{bdp:g}",
                        keys={
                            "config": f"{cc} vs {partner}",
                            "algorithm": cc,
                            "partner": partner,
                            "buffer_bdp": bdp,
                        },
                        rate="100M",
                        buffer_bdp=bdp,
                        flows=flows,
                        duration_s=duration,
                        warmup_s=warmup,
                    )
                )
    return configs


def seeds(s: Settings) -> list[int]:
    return s.seeds(FULL_REPLICATES, QUICK_REPLICATES)


def sweeps_of(configs: list[Config], s: Settings) -> list[dict[str, Any]]:
    return [c.sweep(seeds(s)) for c in configs]


def b1_sweeps(s: Settings) -> list[dict[str, Any]]:
    return sweeps_of(b1_configs(s), s)


def b2_sweeps(s: Settings) -> list[dict[str, Any]]:
    return sweeps_of(b2_configs(s), s)


def b3_sweeps(s: Settings) -> list[dict[str, Any]]:
    return sweeps_of(b3_configs(s), s)


def b4_sweeps(s: Settings) -> list[dict[str, Any]]:
    return sweeps_of(b4_configs(s), s)
