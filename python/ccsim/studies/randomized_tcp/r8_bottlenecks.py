"""R8: multiple bottlenecks (a parking lot)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from ccsim.studies.core import (
    NONNEGATIVE,
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Settings,
    Study,
    compare,
    measure,
)
from ccsim.studies.randomized_tcp.common import (
    COMMON,
    MSS,
    NS2_QUEUE,
    RANDOMIZED,
    SOURCE,
    Run,
    comparison_table,
    kbps,
    sweep_definition,
)

# ---- R8: two bottlenecks ------------------------------------------------------------------------

_R8_NAMES = {
    ("reno", "all"): "Reno/Reno",
    ("randomized", "all"): "Random/Random",
    ("randomized", "short"): "Reno long + Random short",
    ("randomized", "long"): "Random long + Reno short",
}
_R8_PUBLISHED_ROWS = {
    "Reno/Reno": (50.28, 44.08, 106.18, 108.16),
    "Random/Random": (61.28, 55.64, 83.84, 84.36),
    "Reno long + Random short": (56.12, 59.24, 85.20, 86.00),
    "Random long + Reno short": (50.04, 55.00, 94.50, 98.92),
}
_R8_PUBLISHED = {
    (c, f"S{i + 1} kb/s"): v for c, row in _R8_PUBLISHED_ROWS.items() for i, v in enumerate(row)
}
_R8_PUBLISHED |= {
    (c, "long/short"): (r[0] + r[1]) / (r[2] + r[3]) for c, r in _R8_PUBLISHED_ROWS.items()
}
PARKING_LOT_ROUTERS = frozenset({"R0", "R1", "R2"})
#: The sources of Table V: S1 and S2 cross both bottlenecks, S3 and S4 one each.
R8_SOURCES = ("S1", "S2", "S3", "S4")
R8_BOUNDS = {m: NONNEGATIVE for m in (*(f"{s} kb/s" for s in R8_SOURCES), "long/short")}


def _r8_sweeps(s: Settings) -> list[dict[str, Any]]:
    scenario = {
        "name": "study",
        "seed": 1,
        "duration": s.pick("200s", "40s"),
        "topology": {
            "kind": "parking_lot",
            "routers": 3,
            "rate": "1Mbps",
            "delay": "20ms",
            "buffer": "25pkts",
            "access_rate": "4Mbps",
            "access_buffer": NS2_QUEUE,
        },
        "flows": [
            {"cc": "reno", "src": "R0", "dst": "R2", "rtt": "120ms", "label": "S1"},
            {"cc": "reno", "src": "R0", "dst": "R2", "rtt": "120ms", "label": "S2"},
            {"cc": "reno", "src": "R0", "dst": "R1", "rtt": "60ms", "label": "S3"},
            {"cc": "reno", "src": "R1", "dst": "R2", "rtt": "60ms", "label": "S4"},
        ],
    }
    for flow in scenario["flows"]:
        flow.update({"mss": MSS, "start_jitter": "1s"})
    mixtures = [
        "all",
        {"name": "short", "flows": [2, 3]},
        {"name": "long", "flows": [0, 1]},
    ]
    return [
        sweep_definition(
            "chain",
            scenario,
            s.seeds(5, 3),
            compare={
                "algorithms": [RANDOMIZED],
                "mixtures": mixtures,
                "baseline": "reno",
            },
        )
    ]


def _r8_run(run: Run) -> list[dict[str, Any]]:
    """Each source's goodput and the long flows' total over the short flows'."""
    x = run.load("flows").set_index("label")["goodput_bps"]
    values = [(f"{label} kb/s", kbps(x[label])) for label in R8_SOURCES]
    values.append(("long/short", (x["S1"] + x["S2"]) / (x["S3"] + x["S4"])))
    return run.records({"config": run.config}, values)


def _r8_analyse(c: Context) -> pd.DataFrame:
    return comparison_table(
        c,
        _R8_NAMES,
        _r8_run,
        ["config"],
        _R8_PUBLISHED,
        R8_BOUNDS,
        routers=PARKING_LOT_ROUTERS,
    )


#: A change of the long/short ratio that counts as a reduction (or a rise) of phase effects.
R8_MARGIN = 0.1


def _r8_ratio(table: pd.DataFrame, config: str) -> Quantity:
    return measure(table, "long/short", config=config)


def _r8_against_reno(config: str, label: str) -> Callable[[pd.DataFrame], list[Check]]:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        return [
            compare(
                f"long/short throughput ratio, {label} minus all Reno",
                _r8_ratio(table, config) - _r8_ratio(table, "Reno/Reno"),
                ">",
                R8_MARGIN,
                reversal=-R8_MARGIN,
                required=f"> {R8_MARGIN:g} (reversed below -{R8_MARGIN:g})",
            )
        ]

    return evaluate


def _r8_long_randomized(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            "long/short throughput ratio, short flows randomized against long flows randomized",
            _r8_ratio(table, "Reno long + Random short"),
            ">",
            _r8_ratio(table, "Random long + Reno short"),
        )
    ]


R8 = Study(
    id="R8",
    slug="multiple-bottlenecks",
    title="Multiple bottlenecks (Table V, Fig. 9)",
    source=f"{SOURCE}, Table V",
    setup="Chain of three routers, two 1 Mb/s / 20 ms bottlenecks (DropTail 25 packets), other "
    "links 4 Mb/s; long flows S1, S2 cross both (RTT 120 ms), short flows S3, S4 one each (RTT "
    "60 ms); configurations (long, short) in {Reno, Random}^2.",
    warmup=(
        "none: each flow's goodput is taken over its whole run (flows start in the first second)"
    ),
    assumptions=(
        *COMMON,
        (
            "200 s runs (quick: 40 s); the stated 120/60 ms are base RTTs; 25-packet bottleneck "
            "buffers (the paper's default); access links 4 Mb/s with ns-2's default queue"
        ),
    ),
    sweeps=_r8_sweeps,
    analyse=_r8_analyse,
    claims=(
        Claim(
            "Phase effects against the long flows with Reno are removed when all flows use "
            "Randomized TCP",
            "long/short throughput ratio, all Randomized minus all Reno (paired by seed) > 0.1; "
            "reversed below -0.1",
            _r8_against_reno("Random/Random", "all Randomized"),
        ),
        Claim(
            "Randomizing the short flows (long flows Reno) reduces the phase effects",
            "long/short throughput ratio, short flows Randomized minus all Reno (paired by "
            "seed) > 0.1; reversed below -0.1",
            _r8_against_reno("Reno long + Random short", "short flows Randomized"),
        ),
        Claim(
            "Randomizing the long flows does not: the phase effects persist (the departure "
            "process of the first bottleneck undoes their randomness)",
            "long/short throughput ratio with the short flows randomized above the one with the "
            "long flows randomized (paired by seed); reversed where below",
            _r8_long_randomized,
        ),
    ),
    figure=FigureSpec("two bottlenecks: per-source kb/s"),
    algorithms=("reno", "randomized"),
    max_replicates=40,
)
