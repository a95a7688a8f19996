"""R5: Randomized and paced TCP sharing the bottleneck with Reno."""

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
    band,
    compare,
    measure,
)
from ccsim.studies.randomized_tcp.common import (
    COMMON,
    DIAGNOSTIC,
    PACED,
    RANDOMIZED,
    RANDOMIZED_A1,
    SOURCE,
    Run,
    comparison_table,
    dumbbell_scenario,
    kbps,
    sweep_definition,
)

# ---- R5: interaction with Reno ------------------------------------------------------------------

_R5_NAMES = {
    ("paced", "one"): "Reno vs Paced",
    ("randomized", "one"): "Reno vs Randomized",
    ("randomized-a1", "one"): f"Reno vs {DIAGNOSTIC}",
    ("reno", "all"): "Reno vs Reno",
}
#: Tables I-II, and the X/Reno throughput ratios they give.
R5_PUBLISHED: dict[tuple[Any, ...], float] = {
    ("Reno vs Paced", "Reno", "kb/s"): 480.21,
    ("Reno vs Paced", "Paced", "kb/s"): 351.86,
    ("Reno vs Paced", "Reno", "losses"): 118,
    ("Reno vs Paced", "Paced", "losses"): 202,
    ("Reno vs Paced", "Reno", "timeouts"): 6,
    ("Reno vs Paced", "Paced", "timeouts"): 28,
    ("Reno vs Randomized", "Reno", "kb/s"): 389.31,
    ("Reno vs Randomized", "Randomized", "kb/s"): 408.92,
    ("Reno vs Randomized", "Reno", "losses"): 162,
    ("Reno vs Randomized", "Randomized", "losses"): 210,
    ("Reno vs Randomized", "Reno", "timeouts"): 22,
    ("Reno vs Randomized", "Randomized", "timeouts"): 32,
    ("Reno vs Paced", "X/Reno", "throughput ratio"): 351.86 / 480.21,
    ("Reno vs Randomized", "X/Reno", "throughput ratio"): 408.92 / 389.31,
}
R5_BOUNDS = {
    "kb/s": NONNEGATIVE,
    "losses": NONNEGATIVE,
    "timeouts": NONNEGATIVE,
    "throughput ratio": NONNEGATIVE,
}
#: Even competition: X / Reno within 0.85 .. 1 / 0.85; "beaten down": below 0.85.
R5_EVEN = 0.85


def _r5_sweeps(s: Settings) -> list[dict[str, Any]]:
    # Flow 0 runs the compared algorithm ("one"), flow 1 stays Reno.
    flows = [{"cc": "reno", "rtt": "100ms"}, {"cc": "reno", "rtt": "100ms"}]
    return [
        sweep_definition(
            "pair",
            dumbbell_scenario("1Mbps", flows, duration=s.pick("100s", "30s"), delay="40ms"),
            s.seeds(10, 3),
            compare={
                "algorithms": [PACED, RANDOMIZED, RANDOMIZED_A1],
                "mixtures": ["one"],
                "baseline": "reno",
            },
        )
    ]


def _r5_run(run: Run) -> list[dict[str, Any]]:
    """Each flow's goodput, losses and timeouts (flows named by their algorithm, or "Reno 0"
    and "Reno 1" when both are Reno) and, with one flow not Reno, its goodput over the Reno
    flow's."""
    flows = run.load("flows").sort_values("flow")
    records = []
    for _, f in flows.iterrows():
        tcp = "Reno" if f["cc"] == "reno" else f["cc"].capitalize()
        if run.config == "Reno vs Reno":
            tcp = f"Reno {int(f['flow'])}"
        values = (
            ("kb/s", kbps(f["goodput_bps"])),
            ("losses", f["drops"]),
            ("timeouts", f["timeouts"]),
        )
        records += run.records({"config": run.config, "tcp": tcp}, values)
    if run.config != "Reno vs Reno":
        x = flows[flows["cc"] != "reno"]["goodput_bps"].iloc[0]
        reno = flows[flows["cc"] == "reno"]["goodput_bps"].iloc[0]
        records += run.records(
            {"config": run.config, "tcp": "X/Reno"}, [("throughput ratio", x / reno)]
        )
    return records


def _r5_analyse(c: Context) -> pd.DataFrame:
    return comparison_table(c, _R5_NAMES, _r5_run, ["config", "tcp"], R5_PUBLISHED, R5_BOUNDS)


def _r5_ratio(table: pd.DataFrame, x: str) -> Quantity:
    return measure(table, "throughput ratio", config=f"Reno vs {x}", tcp="X/Reno")


def _r5_paced(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            "Paced/Reno throughput ratio",
            _r5_ratio(table, "Paced"),
            "<",
            R5_EVEN,
            reversal=1 / R5_EVEN,
            required=f"< {R5_EVEN:g} (reversed above 1/{R5_EVEN:g} = {1 / R5_EVEN:.2f})",
        )
    ]


def _r5_randomized(table: pd.DataFrame) -> list[Check]:
    return [
        band(
            "Randomized/Reno throughput ratio",
            _r5_ratio(table, "Randomized"),
            R5_EVEN,
            1 / R5_EVEN,
        )
    ]


def _r5_counts(x: str) -> Callable[[pd.DataFrame], list[Check]]:
    """Tables I-II: the X flow loses more packets and times out more often than the Reno flow
    it shares the link with (the same run: paired by seed)."""

    def evaluate(table: pd.DataFrame) -> list[Check]:
        config = f"Reno vs {x}"
        return [
            compare(
                f"{x} flow's {metric} against the Reno flow's",
                measure(table, metric, config=config, tcp=x),
                ">",
                measure(table, metric, config=config, tcp="Reno"),
            )
            for metric in ("losses", "timeouts")
        ]

    return evaluate


R5 = Study(
    id="R5",
    slug="interaction-with-reno",
    title="Interaction with Reno (Tables I, II)",
    source=f"{SOURCE}, Tables I-II",
    setup="Dumbbell 1 Mb/s, RTT 100 ms, DropTail 25 packets; one Reno flow against one Paced "
    "flow, then against one Randomized flow (I = 1).",
    warmup=(
        "none: each flow's goodput, losses and timeouts over its whole run (flows start in the "
        "first second)"
    ),
    assumptions=(
        *COMMON,
        (
            "100 s runs (quick: 30 s); throughput in kb/s (the tables' header says pkts/s, but "
            "480 pkts/s of 500 B would exceed the 1 Mb/s link; the text says Kbps)"
        ),
        "the paper gives one run; ours are replicates over seeds",
        "losses: the flow's dropped packets at every queue (all at the bottleneck here)",
    ),
    sweeps=_r5_sweeps,
    analyse=_r5_analyse,
    claims=(
        Claim(
            "Paced is beaten down by Reno",
            "Paced/Reno throughput ratio (per seed) < 0.85; reversed above 1/0.85",
            _r5_paced,
        ),
        Claim(
            "Randomized competes evenly with Reno",
            "Randomized/Reno throughput ratio (per seed) in 0.85..1/0.85 (the paper's is 1.05); "
            "no direction to reverse",
            _r5_randomized,
        ),
        Claim(
            "Table I: the Paced flow has more losses (202 vs 118) and timeouts (28 vs 6) than "
            "the Reno flow",
            "Paced flow's losses and timeouts above the Reno flow's in the same run (paired by "
            "seed; reversed where below)",
            _r5_counts("Paced"),
        ),
        Claim(
            "Table II: the Randomized flow has more losses (210 vs 162) and timeouts (32 vs 22) "
            "than the Reno flow",
            "Randomized flow's losses and timeouts above the Reno flow's in the same run "
            "(paired by seed; reversed where below)",
            _r5_counts("Randomized"),
        ),
    ),
    figure=FigureSpec("one flow each: Reno against Paced / Randomized"),
    algorithms=("reno", "paced", "randomized"),
    max_replicates=40,
)
