"""The parking lot and its workload: long-lived and short flows, one sweep per seed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ccsim.studies.core import Settings
from ccsim.studies.highspeed_parking_lot import common
from ccsim.studies.highspeed_parking_lot.common import (
    ACCESS_BUFFER,
    ACCESS_RATE,
    BACKBONE_BUFFER,
    CONDITIONS,
    FULL_REPLICATES,
    LOADS,
    LONG_FILE,
    LOSS,
    MSS,
    PROTOCOLS,
    QUICK_CONDITIONS,
    QUICK_DURATION,
    QUICK_PROTOCOLS,
    QUICK_REPLICATES,
    QUICK_START_MEAN_S,
    ROUTERS,
    RTT_MEAN_S,
    START_MEAN_S,
    protocol_entry,
)


def workload_plan(s: Settings) -> dict[str, Any]:
    return {
        "protocols": s.pick(PROTOCOLS, QUICK_PROTOCOLS),
        "conditions": s.pick(CONDITIONS, QUICK_CONDITIONS),
        "duration": s.pick("600s", QUICK_DURATION),
        "start_mean_s": s.pick(START_MEAN_S, QUICK_START_MEAN_S),
        "seeds": s.seeds(FULL_REPLICATES, QUICK_REPLICATES),
    }


def _pairs() -> list[tuple[int, int]]:
    return [(a, b) for a in range(ROUTERS) for b in range(ROUTERS) if a != b]


def long_lived_flows(
    n: int, seed: int, start_mean_s: float = START_MEAN_S, hop_delay_ms: float = 1.0
) -> list[dict[str, Any]]:
    """``n`` long-lived flows drawn for ``seed``: endpoints, RTT and start time.

    Drawn here rather than by the engine so that the same draws give each run of a workload the
    same flows (the sweep varies only the protocol); the stream is keyed by the seed and ``n``.
    """
    rng = np.random.default_rng([seed, n, 4])
    pairs = _pairs()
    flows = []
    for i in range(n):
        src, dst = pairs[int(rng.integers(len(pairs)))]
        hops = abs(dst - src)
        floor_ms = 2 * hops * hop_delay_ms  # the backbone's own round trip
        rtt_ms = max(float(rng.exponential(RTT_MEAN_S * 1e3)), floor_ms)
        start_s = float(rng.exponential(start_mean_s))
        flows.append(
            {
                "cc": "reno",
                "src": f"R{src}",
                "dst": f"R{dst}",
                "rtt": f"{round(rtt_ms * 1000)}us",
                "start": f"{round(start_s * 1000)}ms",
                "size": LONG_FILE,
                "mss": MSS,
                "label": f"long {i}",
            }
        )
    return flows


def l1_scenario(
    load: str,
    loss: float,
    duration: str,
    seed: int,
    start_mean_s: float = START_MEAN_S,
    backbone_delay_ms: float = 1.0,
) -> dict[str, Any]:
    """The L1 parking lot with ``load``'s long-lived flows (all Reno: the sweep sets protocols).

    ``backbone_delay_ms = 15`` is the other reading of the slide's "2MB buffer (15msec)": 15 ms
    per backbone link, RTT draws below a path's own round trip raised to it.
    """
    duration_s = float(duration.removesuffix("s"))
    drawn = long_lived_flows(LOADS[load], seed, start_mean_s, backbone_delay_ms)
    flows = [f for f in drawn if _start_s(f) < duration_s]
    return {
        "name": "study",
        "seed": seed,
        "duration": duration,
        "topology": {
            "kind": "parking_lot",
            "routers": ROUTERS,
            "rate": "1Gbps",
            "delay": f"{backbone_delay_ms:g}ms",
            "buffer": BACKBONE_BUFFER,
            "queue": "droptail",
            "loss": loss,
            "reverse_loss": loss,
            "access_rate": ACCESS_RATE,
            "access_buffer": ACCESS_BUFFER,
        },
        # Read through the module, not bound at import, so the era is set in one place.
        "stack": {"initial_window": 3} | common.ERA_STACK,
        "flows": flows,
        "generators": [
            {
                "kind": "open_loop",
                "cc": "reno",
                "rate": 100.0,
                "sources": 100,
                "size": {"dist": "pareto", "mean": "1MB", "shape": 1.5},
                "endpoints": [[f"R{a}", f"R{b}"] for a, b in _pairs()],
                "rtt_dist": {"dist": "exponential", "mean": "130ms"},
                "mss": MSS,
                "label": "short",
            }
        ],
    }


def _start_s(flow: dict[str, Any]) -> float:
    return float(flow["start"].removesuffix("ms")) / 1e3


def _sweep_name(load: str, loss_name: str, seed: int) -> str:
    return f"{load}-{loss_name}-s{seed}"


def workload_sweeps(
    s: Settings, algorithms: Sequence[Any], conditions: Sequence[tuple[str, str]]
) -> list[dict[str, Any]]:
    """One comparative sweep per condition and seed (each seed draws its own long-lived flows):
    ``algorithms`` alone and mixed with Reno."""
    plan = workload_plan(s)
    seeds: list[int] = plan["seeds"]
    sweeps = []
    for load, loss_name in conditions:
        loss = LOSS if loss_name == "lossy" else 0.0
        for seed in seeds:
            sweeps.append(
                {
                    "name": _sweep_name(load, loss_name, seed),
                    "scenario": l1_scenario(
                        load, loss, plan["duration"], seed, plan["start_mean_s"]
                    ),
                    "seeds": [seed],
                    "compare": {
                        "algorithms": list(algorithms),
                        "mixtures": ["all", "half"],
                        "baseline": protocol_entry("reno"),
                    },
                }
            )
    return sweeps


def protocol_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = workload_plan(s)
    entries = [protocol_entry(a) for a in plan["protocols"]]
    return workload_sweeps(s, entries, plan["conditions"])
