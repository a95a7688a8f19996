"""R11: burst losses."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ccsim import metrics
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
    RANDOMIZED,
    RENO_RANDOMIZED_NAMES,
    SOURCE,
    Run,
    comparison_table,
    dumbbell_scenario,
    sweep_definition,
)

# ---- R11: burst losses -------------------------------------------------------------------------

#: Table VIII: burst losses by (rate, flows, tcp).
R11_PUBLISHED = {
    ("1Mbps", 20, "Reno", "burst losses"): 87,
    ("1Mbps", 20, "Randomized", "burst losses"): 23,
    ("1Mbps", 25, "Reno", "burst losses"): 119,
    ("1Mbps", 25, "Randomized", "burst losses"): 18,
    ("1Mbps", 30, "Reno", "burst losses"): 141,
    ("1Mbps", 30, "Randomized", "burst losses"): 15,
    ("2Mbps", 20, "Reno", "burst losses"): 1,
    ("2Mbps", 20, "Randomized", "burst losses"): 27,
    ("2Mbps", 25, "Reno", "burst losses"): 100,
    ("2Mbps", 25, "Randomized", "burst losses"): 31,
    ("2Mbps", 30, "Reno", "burst losses"): 168,
    ("2Mbps", 30, "Randomized", "burst losses"): 28,
}
R11_BOUNDS = {m: NONNEGATIVE for m in ("burst losses", "drops", "back-to-back drops")}
_R11_RATES = ("1Mbps", "2Mbps")
#: "Several times": Reno's burst losses at least this many times Randomized's.
R11_SEVERAL = 3.0
#: Randomized's burst losses "decrease (or remain constant)" from 20 to 30 flows: rise by less
#: than this fraction.
R11_CONSTANT = 0.1


def _r11_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [{"cc": "reno", "rtt": "200ms", "count": 20}]
    return [
        sweep_definition(
            "bursts",
            dumbbell_scenario(
                "1Mbps",
                flows,
                duration=s.pick("100s", "30s"),
                delay="80ms",
                trace={"drops": True},
            ),
            s.seeds(3, 3),
            axes={
                "topology.bottleneck_rate": list(_R11_RATES),
                "flows.0.count": s.pick([20, 25, 30], [20, 30]),
            },
            compare={"algorithms": ["reno", RANDOMIZED], "baseline": "reno"},
        ),
    ]


def _r11_run(run: Run) -> list[dict[str, Any]]:
    """The run's burst losses (every flow's), its drops and its back-to-back drops."""
    drops = run.load("drops")
    bursts = metrics.burst_losses(drops, run.load("flows"))
    key = {
        "rate": run.point["bottleneck_rate"],
        "flows": int(run.point["count"]),
        "tcp": run.config,
    }
    values = (
        ("burst losses", bursts["bursts"].sum()),
        ("drops", run.point["drops"]),
        ("back-to-back drops", _back_to_back(drops)),
    )
    return run.records(key, values)


def _r11_analyse(c: Context) -> pd.DataFrame:
    return comparison_table(
        c, RENO_RANDOMIZED_NAMES, _r11_run, ["rate", "flows", "tcp"], R11_PUBLISHED, R11_BOUNDS
    )


def _back_to_back(drops: pd.DataFrame) -> int:
    """Drops of a segment right after the flow's previous segment was dropped at the same
    queue (consecutive sequence numbers): the paper's "back-to-back losses", shown beside the
    episode-based count the study specifies (docs/studies/randomized-tcp.md, R11)."""
    data = drops[(drops["is_ack"] == 0) & drops["kind"].isin(list(metrics.QUEUE_DROP_KINDS))]
    data = data.sort_values(["link", "flow", "t_s"], kind="stable")
    previous = data.groupby(["link", "flow"])["seq"].shift()
    return int(((data["seq"].astype(float) - previous) == 1).sum())


def _bursts(table: pd.DataFrame, rate: str, n: int, tcp: str) -> Quantity:
    return measure(table, "burst losses", rate=rate, flows=n, tcp=tcp)


def r11_several(table: pd.DataFrame) -> list[Check]:
    checks = []
    for rate in _R11_RATES:
        ratio = Quantity.combine(
            lambda reno, rand: reno / max(rand, 1.0),
            _bursts(table, rate, 30, "Reno"),
            _bursts(table, rate, 30, "Randomized"),
            bounds=NONNEGATIVE,
        )
        checks.append(
            compare(
                f"{rate}, 30 flows: Reno's burst losses / Randomized's (Randomized's counted at "
                "least 1)",
                ratio,
                ">",
                R11_SEVERAL,
                reversal=1 / R11_SEVERAL,
                required=f"> {R11_SEVERAL:g} (reversed below 1/{R11_SEVERAL:g})",
            )
        )
    return checks


def r11_trend(table: pd.DataFrame) -> list[Check]:
    checks = []
    for rate in _R11_RATES:
        checks.append(
            compare(
                f"{rate}: Reno's burst losses at 30 flows against at 20",
                _bursts(table, rate, 30, "Reno"),
                ">",
                _bursts(table, rate, 20, "Reno"),
            )
        )
        change = (
            _bursts(table, rate, 30, "Randomized") / _bursts(table, rate, 20, "Randomized") - 1.0
        )
        checks.append(
            compare(
                f"{rate}: Randomized's burst losses at 30 flows relative to at 20",
                change,
                "<",
                R11_CONSTANT,
                required=f"< {R11_CONSTANT:g} (falls, or rises by under 10%)",
            )
        )
    return checks


R11 = Study(
    id="R11",
    slug="burst-losses",
    title="Burst losses (Table VIII)",
    source=f"{SOURCE}, Table VIII",
    setup="Dumbbell 1 and 2 Mb/s, 20/25/30 flows, RTT 200 ms, buffer 25 packets; burst loss = "
    "more than one drop of a flow in one loss episode (drops of one flow at one queue less than "
    "one RTT apart).",
    warmup="none: every drop of the run counts (flows start in the first second)",
    assumptions=(
        *COMMON,
        "'end-to-end propagation 200 ms' read as the base RTT; 100 s runs (quick: 30 s, 20 and "
        "30 flows)",
        (
            "the 'average number of burst losses' is the total over all flows of one run, averaged "
            "over seeds (the paper does not say over what it averages)"
        ),
        "one RTT = the flow's measured mean RTT (queueing included)",
    ),
    sweeps=_r11_sweeps,
    analyse=_r11_analyse,
    claims=(
        Claim(
            "Randomized drastically reduces burst losses, the more so as flows increase: Reno "
            "has several times Randomized's at 30 flows (141 vs 15, 168 vs 28)",
            "at 30 flows, each rate: Reno's burst losses / Randomized's (per seed) > 3; "
            "reversed below 1/3",
            r11_several,
        ),
        Claim(
            "As flows increase at a fixed bandwidth, Reno's back-to-back losses increase and "
            "Randomized's decrease or remain constant",
            "each rate, 20 -> 30 flows (paired by seed): Reno's burst losses rise (reversed: "
            "fall); Randomized's relative change < +0.1 (reversed: above)",
            r11_trend,
        ),
    ),
    figure=FigureSpec("burst losses", x="flows", hue="tcp", xlabel="flows"),
    algorithms=("reno", "randomized"),
    max_replicates=24,
)
