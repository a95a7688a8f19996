"""The runs of Q1-Q3: each study's configurations (one sweep each, its seeds the replicates),
named so that the analysis finds a sweep's configuration again from its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ccsim.scenario import engine as scenario_engine
from ccsim.studies.core import Settings
from ccsim.studies.l4s.common import (
    CLASSIC,
    DCTCP,
    PATHS,
    PRAGUE,
    PRAGUE_SCALING_PARAMS,
    SCALABLE,
    dumbbell,
    flow,
)

# ---- the queues --------------------------------------------------------------------------------

#: DualPI2 with Linux's defaults, but classifying every ECN-capable packet into the L queue: the
#: classic (CUBIC) flows do not use ECN, so this puts exactly the scalable flows there, DCTCP's
#: ECT(0) packets as well as Prague's ECT(1) (what DCTCP with ECT(1) would get with the default
#: classifier).
DUALPI2 = {"classify": "any_ect"}
#: Linux's DualPI2 limit.
DUALPI2_BUFFER = "10000pkts"
#: FQ-CoDel's L4S setting in Linux: mark ECN-capable packets that waited longer than this
#: (``ce_threshold``). CUBIC does not use ECN here, so it applies to the scalable flow only.
FQ_CODEL_CE_THRESHOLD = "1ms"


def _fq_codel() -> dict[str, Any]:
    """FQ-CoDel with ECN (Linux's default), and its L4S ce_threshold where the scenario format
    has it."""
    from ccsim.scenario.queues import FqCodel

    table: dict[str, Any] = {"ecn": True}
    if "ce_threshold" in FqCodel.model_fields:
        table["ce_threshold"] = FQ_CODEL_CE_THRESHOLD
    return table


#: The single queues of Q2: a drop-tail FIFO, RED marking classic ECN (RFC 3168: early drops
#: of ECN-capable packets become CE marks) with thresholds scaled to the link (ns-2's
#: automatic ones), and FQ-CoDel. Each holds one BDP.
SINGLE_QUEUES: dict[str, tuple[str, dict[str, Any] | None]] = {
    "fifo": ("droptail", None),
    "red-ecn": ("red", {"ecn": True, "min_th": "auto", "max_th": "auto", "w_q": "auto"}),
    "fq_codel": ("fq_codel", _fq_codel()),
}
SINGLE_BUFFER = "1bdp"

# ---- what each study runs, full and quick ---------------------------------------------------------

#: Q1: CUBIC flow counts against one scalable flow; both paths.
Q1_COUNTS = (1, 4, 8)
Q1_QUICK_COUNTS = (1, 4)
Q1_PATHS = tuple(PATHS)
Q1_QUICK_PATHS = ("40M-50ms",)
Q1_TIMES = (40.0, 15.0)
Q1_QUICK_TIMES = (20.0, 8.0)

#: Q2: one scalable flow against one CUBIC flow in each single queue (and in DualPI2, for
#: reference), both paths.
Q2_QUEUES = (*SINGLE_QUEUES, "dualpi2")
Q2_PATHS = tuple(PATHS)
Q2_QUICK_PATHS = ("40M-50ms",)
Q2_TIMES = (40.0, 15.0)
Q2_QUICK_TIMES = (20.0, 8.0)

#: Q3: five Prague flows with these RTTs through DualPI2's L queue at 100 Mb/s; Prague's RTT
#: scaling targets 25 ms, so three are at or below it and two above.
Q3_RTTS_MS = (5.0, 10.0, 25.0, 50.0, 100.0)
Q3_RATE = 100e6
Q3_TIMES = (60.0, 25.0)
Q3_QUICK_TIMES = (30.0, 15.0)

FULL_REPLICATES = 5
QUICK_REPLICATES = 3


@dataclass(frozen=True)
class Config:
    """One configuration of a study: its sweep's name, the keys its rows carry, and its
    scenario's parts."""

    name: str
    keys: dict[str, Any]
    rate_bps: float
    queue: str
    queue_table: dict[str, Any] | None
    buffer: str
    flows: tuple[dict[str, Any], ...]
    duration_s: float
    warmup_s: float
    bdp_rtt: str | None = None

    def sweep(self, seeds: list[int]) -> dict[str, Any]:
        scenario = dumbbell(
            self.rate_bps,
            self.queue,
            self.queue_table,
            self.flows,
            self.duration_s,
            self.buffer,
            self.bdp_rtt,
        )
        return {"name": self.name, "scenario": scenario, "seeds": seeds}


def prague_scaling_param() -> tuple[str, Any] | None:
    """Prague's parameter that turns its RTT independence off, and the value that does: None
    without an engine, without Prague, or when its Prague has no such parameter."""
    registry = scenario_engine.algorithm_registry()
    info = (registry or {}).get(PRAGUE)
    if info is None:
        return None
    for param in info.get("params", []):
        if param["name"] in PRAGUE_SCALING_PARAMS:
            return param["name"], False if param.get("kind") == "bool" else 0
    return None


def q1_configs(s: Settings) -> list[Config]:
    duration, warmup = s.pick(Q1_TIMES, Q1_QUICK_TIMES)
    configs = []
    for path in s.pick(Q1_PATHS, Q1_QUICK_PATHS):
        rate, rtt = PATHS[path]
        for cc in SCALABLE:
            for n in s.pick(Q1_COUNTS, Q1_QUICK_COUNTS):
                configs.append(
                    Config(
                        name=f"q1-{path}-{cc}-n{n}",
                        keys={"config": f"{path} {cc}", "path": path, "l4s": cc, "n_cubic": n},
                        rate_bps=rate,
                        queue="dualpi2",
                        queue_table=DUALPI2,
                        buffer=DUALPI2_BUFFER,
                        flows=(flow(cc, rtt), *[flow(CLASSIC, rtt)] * n),
                        duration_s=duration,
                        warmup_s=warmup,
                    )
                )
    return configs


def q2_configs(s: Settings) -> list[Config]:
    duration, warmup = s.pick(Q2_TIMES, Q2_QUICK_TIMES)
    configs = []
    for path in s.pick(Q2_PATHS, Q2_QUICK_PATHS):
        rate, rtt = PATHS[path]
        for cc in SCALABLE:
            for queue in Q2_QUEUES:
                kind, table = SINGLE_QUEUES.get(queue, ("dualpi2", DUALPI2))
                configs.append(
                    Config(
                        name=f"q2-{path}-{cc}-{queue}",
                        keys={"config": f"{path} {cc}", "path": path, "l4s": cc, "queue": queue},
                        rate_bps=rate,
                        queue=kind,
                        queue_table=table,
                        buffer=DUALPI2_BUFFER if kind == "dualpi2" else SINGLE_BUFFER,
                        flows=(flow(cc, rtt), flow(CLASSIC, rtt)),
                        duration_s=duration,
                        warmup_s=warmup,
                        bdp_rtt=rtt,
                    )
                )
    return configs


#: Q3's configurations: (name, algorithm, RTT scaling on). DCTCP has no RTT scaling: its rows
#: are the scalable sender without it, run whatever the engine's Prague offers.
Q3_VARIANTS = (
    ("prague", PRAGUE, True),
    ("prague-no-scaling", PRAGUE, False),
    ("dctcp", DCTCP, False),
)


def q3_configs(s: Settings) -> list[Config]:
    duration, warmup = s.pick(Q3_TIMES, Q3_QUICK_TIMES)
    scaling = prague_scaling_param()
    configs = []
    for name, cc, on in Q3_VARIANTS:
        params: dict[str, Any] | None = None
        if cc == PRAGUE and not on:
            # Without the parameter the configuration cannot be written: left out (its claims
            # are then not run), as an algorithm the engine lacks is.
            if scaling is None:
                continue
            params = {scaling[0]: scaling[1]}
        configs.append(
            Config(
                name=f"q3-{name}",
                keys={"config": name, "algorithm": cc, "rtt_scaling": "on" if on else "off"},
                rate_bps=Q3_RATE,
                queue="dualpi2",
                queue_table=DUALPI2,
                buffer=DUALPI2_BUFFER,
                flows=tuple(
                    flow(cc, f"{r:g}ms", label=f"{cc} {r:g} ms", params=params) for r in Q3_RTTS_MS
                ),
                duration_s=duration,
                warmup_s=warmup,
            )
        )
    return configs


def seeds(s: Settings) -> list[int]:
    return s.seeds(FULL_REPLICATES, QUICK_REPLICATES)


def sweeps_of(configs: list[Config], s: Settings) -> list[dict[str, Any]]:
    return [c.sweep(seeds(s)) for c in configs]


def q1_sweeps(s: Settings) -> list[dict[str, Any]]:
    return sweeps_of(q1_configs(s), s)


def q2_sweeps(s: Settings) -> list[dict[str, Any]]:
    return sweeps_of(q2_configs(s), s)


def q3_sweeps(s: Settings) -> list[dict[str, Any]]:
    return sweeps_of(q3_configs(s), s)
