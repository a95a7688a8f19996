"""S3: two-way traffic on a 1 Gb/s link."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from ccsim.studies.core import (
    NONNEGATIVE,
    UNIT,
    Check,
    Claim,
    Context,
    FigureSpec,
    Settings,
    Study,
    compare,
    measure,
    summarise,
)
from ccsim.studies.sync_tcp.common import MSS, NS2_QUEUE_LIMIT, SOURCE, ns2_buffer

# ---- S3 (ours): 1 Gb/s, 20-200 ms, with and without a congested reverse path ----------------------

S3_PROTOCOLS = ("reno", "highspeed", "cubic", "sync-tcp", "sync-tcp-hs")
S3_RTTS = ("20ms", "60ms", "120ms", "200ms")
LOSS_BASED = ("reno", "highspeed", "cubic")
QUEUE_DELAY = "forward queueing delay ms (mean)"
UTILIZATION = "forward goodput / link rate"
LOSS_RATE = "forward drops per second"
S3_BOUNDS = {QUEUE_DELAY: NONNEGATIVE, UTILIZATION: UNIT, LOSS_RATE: NONNEGATIVE}
S3_SEEDS = 5
S3_MAX_REPLICATES = 20

S3_ASSUME = (
    "ns2 profile with SACK recovery (as the seed-002 studies at 100 Mb/s and above), MSS 1460 B",
    (
        "dumbbell, 1 Gb/s bottleneck with 5 ms one-way delay, DropTail buffer 1/4 BDP at "
        "100 ms (2140 packets) in each direction (ours: the paper has no 1 Gb/s setup); every "
        "host's 10 Gb/s access link has a DropTail queue of ns-2's default limit "
        f"{NS2_QUEUE_LIMIT} packets in each direction (ccsim buffer {ns2_buffer(NS2_QUEUE_LIMIT)})"
    ),
    "forward: four flows of the protocol with base RTTs 20, 60, 120, 200 ms",
    (
        "reverse path: idle (ACKs only) or congested by four Reno bulk flows with the same "
        "RTTs sending the other way"
    ),
    (
        "flows start at random times in [0, 2 s); 60 s runs (quick: 20 s), measured after a "
        f"10 s warm-up (quick: 5 s); drops count the forward flows' packets lost at any queue; "
        f"{S3_SEEDS} seeds, more while a check is inconclusive, up to {S3_MAX_REPLICATES} "
        "(quick: 3)"
    ),
)


def _s3_plan(s: Settings) -> dict[str, Any]:
    return {
        "duration": s.pick("60s", "20s"),
        "warmup": s.pick(10.0, 5.0),
        "seeds": s.seeds(S3_SEEDS, 3),
    }


def s3_scenario(cc: str, reverse_load: bool, duration: str) -> dict[str, Any]:
    """Four ``cc`` flows at 20-200 ms over 1 Gb/s, optionally with four reverse Reno flows."""
    flows: list[dict[str, Any]] = [
        {"cc": cc, "rtt": rtt, "mss": MSS, "start_jitter": "2s", "label": cc} for rtt in S3_RTTS
    ]
    if reverse_load:
        flows += [
            {
                "cc": "reno",
                "rtt": rtt,
                "mss": MSS,
                "start_jitter": "2s",
                "reverse": True,
                "label": "reverse reno",
            }
            for rtt in S3_RTTS
        ]
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "1Gbps",
            "bottleneck_delay": "5ms",
            "access_rate": "10Gbps",
            "buffer": "0.25bdp",
            "bdp_rtt": "100ms",
            "access_buffer": ns2_buffer(NS2_QUEUE_LIMIT),
        },
        "stack": {"sack": True},
        "trace": {"sample_interval": "100ms", "drops": True},
        "flows": flows,
    }


def s3_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _s3_plan(s)
    return [
        {
            "name": f"{cc}-{'two-way' if reverse else 'one-way'}",
            "scenario": s3_scenario(cc, reverse, plan["duration"]),
            "seeds": plan["seeds"],
        }
        for reverse in (False, True)
        for cc in S3_PROTOCOLS
    ]


def _late_drops(drops: pd.DataFrame, flows: pd.Series, warmup: float, end: float) -> float:
    """Drops per second of the given flows after the warm-up."""
    late = drops[drops["flow"].isin(flows) & (drops["t_s"] > warmup)]
    return len(late) / (end - warmup)


def _s3_analyse(c: Context) -> pd.DataFrame:
    plan = _s3_plan(c.settings)
    warmup, plan_end = plan["warmup"], float(plan["duration"].removesuffix("s"))
    records: list[dict[str, Any]] = []
    for sweep in c.results:
        if c.results[sweep] is None:
            continue
        cc, reverse = sweep.rsplit("-", 2)[0], sweep.endswith("two-way")
        for point, load in c.points(sweep):
            links, queues = load("links"), load("queues")
            forward = links[(links["src"] == "R1") & (links["dst"] == "R2")].iloc[0]
            late = queues[(queues["link"] == forward["link"]) & (queues["t_s"] > warmup)]
            delay_ms = float(late["queue_bytes"].mean()) * 8 / float(forward["rate_bps"]) * 1e3
            flows, series = load("flows"), load("series")
            mine = flows[flows["label"] == cc]
            rates = series[series["flow"].isin(mine["flow"]) & (series["t_s"] > warmup)]
            goodput = float(rates.groupby("t_s")["rate_bps"].sum().mean())
            key = {
                "reverse path": "congested" if reverse else "idle",
                "algorithm": cc,
                "seed": int(point["seed"]),
            }
            for metric, number in (
                (QUEUE_DELAY, delay_ms),
                (UTILIZATION, goodput / float(forward["rate_bps"])),
                (LOSS_RATE, _late_drops(load("drops"), mine["flow"], warmup, plan_end)),
            ):
                records.append(key | {"metric": metric, "value": number})
    return summarise(records, ["reverse path", "algorithm"], bounds=S3_BOUNDS)


def _s3_sync_lower(metric: str, label: str) -> Callable[[pd.DataFrame], list[Check]]:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        checks = []
        for path in ("idle", "congested"):
            mine = measure(table, metric, **{"reverse path": path, "algorithm": "sync-tcp"})
            for other in LOSS_BASED:
                theirs = measure(table, metric, **{"reverse path": path, "algorithm": other})
                checks.append(
                    compare(
                        f"reverse path {path}: {label}, Sync-TCP vs {other} (paired by seed)",
                        mine,
                        "<",
                        theirs,
                    )
                )
        return checks

    return evaluate


def _s3_utilization(table: pd.DataFrame) -> list[Check]:
    checks = []
    for path in ("idle", "congested"):
        reno = measure(table, UTILIZATION, **{"reverse path": path, "algorithm": "reno"})
        for label in ("sync-tcp", "sync-tcp-hs"):
            mine = measure(table, UTILIZATION, **{"reverse path": path, "algorithm": label})
            checks.append(
                compare(
                    f"reverse path {path}: {label}'s goodput over Reno's (ratio paired by seed)",
                    mine / reno,
                    ">=",
                    0.9,
                    reversal=0.5,
                    required=">= 0.9 (reversed: < 0.5)",
                )
            )
    return checks


S3 = Study(
    id="S3",
    slug="sync-tcp-two-way-1g",
    title="Sync-TCP against Reno, HSTCP and CUBIC at 1 Gb/s, reverse path idle or congested (ours)",
    source=SOURCE + ", a question it leaves open",
    setup="four flows of one protocol (RTTs 20-200 ms) over a 1 Gb/s dumbbell, the reverse "
    "path idle or loaded by four Reno flows; forward queueing delay, goodput and drops",
    warmup="10 s (quick: 5 s): queueing delay, drops and goodput are measured after it",
    assumptions=S3_ASSUME,
    sweeps=s3_sweeps,
    analyse=_s3_analyse,
    claims=(
        Claim(
            "(ours) Sync-TCP's early detection keeps the queue shorter than loss-based TCPs, "
            "also when the reverse path is congested",
            "mean forward queueing delay after warm-up, Sync-TCP minus reno, highspeed and "
            "cubic, paired by seed, < 0 with the reverse path idle and congested "
            "(reversed: > 0)",
            _s3_sync_lower(QUEUE_DELAY, "queueing delay ms"),
        ),
        Claim(
            "(ours) Sync-TCP loses fewer packets than loss-based TCPs",
            "forward drops per second after warm-up, Sync-TCP minus reno, highspeed and "
            "cubic, paired by seed, < 0 with the reverse path idle and congested "
            "(reversed: > 0)",
            _s3_sync_lower(LOSS_RATE, "drops/s"),
        ),
        Claim(
            "(ours) the short queue costs little throughput",
            "forward goodput after warm-up of sync-tcp and sync-tcp-hs over Reno's, paired "
            "by seed, >= 0.9 with the reverse path idle and congested (reversed: < 0.5)",
            _s3_utilization,
        ),
    ),
    figure=FigureSpec("S3: forward queueing delay, goodput and drops"),
    algorithms=S3_PROTOCOLS,
    max_replicates=S3_MAX_REPLICATES,
)
