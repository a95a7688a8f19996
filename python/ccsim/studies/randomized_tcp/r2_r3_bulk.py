"""R2 and R3: bulk transfers over the same and over different round-trip times."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
    NONNEGATIVE,
    UNIT,
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Settings,
    Study,
    compare,
    measure,
    within,
)
from ccsim.studies.randomized_tcp.common import (
    COMMON,
    COMPARE_THREE,
    DIAGNOSTIC,
    RANDOMIZED_A1,
    SOURCE,
    THREE_NAMES,
    Run,
    Side,
    comparison_table,
    dumbbell_scenario,
    sweep_definition,
)

# ---- R2 and R3: bulk transfers, same and different RTTs -----------------------------------------

#: The numbers of flows of Fig. 6 and 7.
BULK_NS = (10, 20, 30, 40, 50)
BULK_BOUNDS = {
    "throughput Mb/s": NONNEGATIVE,
    "loss rate": UNIT,
    "timeouts": NONNEGATIVE,
    "Jain": UNIT,
    "RTT-weighted Jain": UNIT,
}


def _r2_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [{"cc": "reno", "rtt": "100ms", "count": 10}]
    scenario = dumbbell_scenario("4Mbps", flows, duration=s.pick("100s", "20s"), delay="40ms")
    axes = {"flows.0.count": list(BULK_NS)}
    return [
        sweep_definition("bulk", scenario, s.seeds(3, 3), axes=axes, compare=COMPARE_THREE),
        # Diagnostic, not one of the paper's configurations: Randomized with alpha = 1.
        sweep_definition(
            "bulk-diagnostic",
            scenario,
            s.seeds(3, 3),
            axes=axes,
            compare={
                "algorithms": [RANDOMIZED_A1],
                "baseline": "reno",
                "reference": False,
            },
        ),
    ]


def _bulk_run(run: Run, n: int) -> list[dict[str, Any]]:
    """The run's aggregate throughput, loss rate and timeouts and its flows' fairness, keyed
    by its configuration and number of flows ``n``."""
    flows = run.load("flows")
    values = {
        "throughput Mb/s": run.point["goodput_bps"] / 1e6,
        "loss rate": run.point["loss_rate"],
        "timeouts": run.point["timeouts"],
        "Jain": metrics.jain_index(flows["goodput_bps"]),
        "RTT-weighted Jain": metrics.rtt_weighted_jain_index(
            flows["goodput_bps"], flows["base_rtt_s"]
        ),
    }
    return run.records({"tcp": run.config, "N": n}, values.items())


def _r2_run(run: Run) -> list[dict[str, Any]]:
    return _bulk_run(run, int(run.point["count"]))


#: R2's configurations: the paper's three and the diagnostic (each runs in its own sweep only:
#: the diagnostic sweep has no reference runs).
_R2_NAMES = THREE_NAMES | {("randomized-a1", "all"): DIAGNOSTIC}


def _r2_analyse(c: Context) -> pd.DataFrame:
    table = comparison_table(c, _R2_NAMES, _r2_run, ["tcp", "N"], bounds=BULK_BOUNDS)
    return table[table["metric"] != "RTT-weighted Jain"].reset_index(drop=True)


def _bulk(table: pd.DataFrame, metric: str, tcp: str, n: int) -> Quantity:
    return measure(table, metric, tcp=tcp, N=n)


#: "The same throughput": within 5% of Reno's.
EQUAL_THROUGHPUT = 0.05


def r2_equal(table: pd.DataFrame) -> list[Check]:
    checks = []
    for n in BULK_NS:
        reno = _bulk(table, "throughput Mb/s", "Reno", n)
        for tcp in ("Paced", "Randomized"):
            checks.append(
                within(
                    f"N = {n}: {tcp}'s throughput against Reno's",
                    _bulk(table, "throughput Mb/s", tcp, n),
                    reno,
                    EQUAL_THROUGHPUT,
                    unit="Mb/s",
                )
            )
    return checks


def _r2_paced_loses(table: pd.DataFrame) -> list[Check]:
    checks = []
    for n in BULK_NS:
        paced = _bulk(table, "loss rate", "Paced", n)
        for other in ("Reno", "Randomized"):
            checks.append(
                compare(
                    f"N = {n}: Paced's loss rate against {other}'s",
                    paced,
                    ">",
                    _bulk(table, "loss rate", other, n),
                )
            )
    return checks


def _best_at(
    table: pd.DataFrame, n: int, metrics_: Sequence[tuple[str, Side]], others: Sequence[str]
) -> list[Check]:
    """Randomized against each of ``others`` at N = n on each (metric, direction): direction
    ``<`` where lower is better."""
    checks = []
    for metric, op in metrics_:
        rand = _bulk(table, metric, "Randomized", n)
        for other in others:
            checks.append(
                compare(
                    f"N = {n}: Randomized's {metric} against {other}'s",
                    rand,
                    op,
                    _bulk(table, metric, other, n),
                )
            )
    return checks


def r2_randomized_best(table: pd.DataFrame) -> list[Check]:
    return _best_at(
        table,
        BULK_NS[-1],
        (("loss rate", "<"), ("timeouts", "<"), ("throughput Mb/s", ">")),
        ("Reno", "Paced"),
    )


def _r2_fairness(table: pd.DataFrame) -> list[Check]:
    return _best_at(table, BULK_NS[-1], (("Jain", ">"),), ("Reno", "Paced"))


R2 = Study(
    id="R2",
    slug="bulk-same-rtt",
    title="Bulk transfer, same RTT (Fig. 6)",
    source=f"{SOURCE}, Fig. 6",
    setup="Dumbbell 4 Mb/s, RTT 100 ms, DropTail 25 packets; N = 10..50 flows, all Reno, all "
    "Paced or all Randomized (I = 1).",
    warmup=(
        "none: throughput, loss rate, timeouts and fairness over each whole run (flows start in "
        "the first second)"
    ),
    assumptions=(
        *COMMON,
        "run length 100 s (the paper gives none); quick: 20 s",
        "fairness is Jain's index of the flows' goodputs (Fig. 6 plots 'fairness' without a "
        "definition for equal RTTs; section IV's RTT-weighted index equals it when every RTT is "
        "the same)",
    ),
    sweeps=_r2_sweeps,
    analyse=_r2_analyse,
    claims=(
        Claim(
            "Reno, Paced and Randomized get the same throughput",
            "at every N: Paced's and Randomized's aggregate throughput within 5% of Reno's "
            "(equivalence: the interval of the per-seed relative difference inside +-0.05)",
            r2_equal,
        ),
        Claim(
            "The losses are more for Paced",
            "at every N: Paced's loss rate above Reno's and above Randomized's (paired by seed; "
            "reversed where below)",
            _r2_paced_loses,
        ),
        Claim(
            "As the number of flows increases Randomized does the best of the lot: higher "
            "throughput, fewer losses and timeouts (section VI summary)",
            "at N = 50: Randomized's loss rate and timeouts below, and its throughput above, "
            "Reno's and Paced's (paired by seed; reversed where the other way)",
            r2_randomized_best,
        ),
        Claim(
            "Fig. 6's fairness curve: with higher multiplexing Randomized is the fairest",
            "at N = 50: Randomized's Jain index above Reno's and above Paced's (paired by seed; "
            "reversed where below)",
            _r2_fairness,
        ),
    ),
    figure=FigureSpec("bulk transfer, same RTT", x="N", hue="tcp", xlabel="flows N"),
    algorithms=("reno", "paced", "randomized"),
    max_replicates=24,
)


def _r3_sweeps(s: Settings) -> list[dict[str, Any]]:
    sweeps = []
    for n in BULK_NS:
        flows = [{"cc": "reno", "rtt": f"{80 + i * 40 / n:g}ms"} for i in range(n)]
        sweeps.append(
            sweep_definition(
                f"N{n}",
                dumbbell_scenario("4Mbps", flows, duration=s.pick("100s", "20s"), delay="30ms"),
                s.seeds(3, 3),
                compare=COMPARE_THREE,
            )
        )
    return sweeps


def _r3_run(run: Run) -> list[dict[str, Any]]:
    # Each number of flows is a sweep of its own, named N<n>.
    return _bulk_run(run, int(run.sweep[1:]))


def _r3_analyse(c: Context) -> pd.DataFrame:
    return comparison_table(c, THREE_NAMES, _r3_run, ["tcp", "N"], bounds=BULK_BOUNDS)


#: "Pacing also achieves almost the same performance": RTT-weighted Jain within 5%.
PACED_CLOSE = 0.05


def _r3_fairness(table: pd.DataFrame) -> list[Check]:
    checks = []
    for n in BULK_NS:
        fair = {t: _bulk(table, "RTT-weighted Jain", t, n) for t in ("Reno", "Paced", "Randomized")}
        for other in ("Reno", "Paced"):
            checks.append(
                compare(
                    f"N = {n}: Randomized's RTT-weighted Jain index against {other}'s",
                    fair["Randomized"],
                    ">",
                    fair[other],
                )
            )
        checks.append(
            compare(
                f"N = {n}: Reno's RTT-weighted Jain index against Paced's",
                fair["Reno"],
                "<",
                fair["Paced"],
            )
        )
    return checks


def _r3_paced_close(table: pd.DataFrame) -> list[Check]:
    return [
        within(
            f"N = {n}: Paced's RTT-weighted Jain index against Randomized's",
            _bulk(table, "RTT-weighted Jain", "Paced", n),
            _bulk(table, "RTT-weighted Jain", "Randomized", n),
            PACED_CLOSE,
        )
        for n in BULK_NS
    ]


def _r3_throughput(table: pd.DataFrame) -> list[Check]:
    return [
        check
        for n in BULK_NS
        for check in _best_at(table, n, (("throughput Mb/s", ">"),), ("Reno", "Paced"))
    ]


def _r3_losses(table: pd.DataFrame) -> list[Check]:
    return [
        check
        for n in BULK_NS
        for check in _best_at(table, n, (("loss rate", "<"), ("timeouts", "<")), ("Reno", "Paced"))
    ]


R3 = Study(
    id="R3",
    slug="bulk-different-rtt",
    title="Bulk transfer, different RTTs (Fig. 7)",
    source=f"{SOURCE}, Fig. 7",
    setup="Dumbbell 4 Mb/s, DropTail 25 packets, RTT_i = 80 + i*40/N ms, N = 10..50; fairness is "
    "the RTT-weighted Jain index (sum x_i RTT_i)^2 / (n sum (x_i RTT_i)^2).",
    warmup=(
        "none: throughput, loss rate, timeouts and fairness over each whole run (flows start in "
        "the first second)"
    ),
    assumptions=(*COMMON, "run length 100 s (the paper gives none); quick: 20 s"),
    sweeps=_r3_sweeps,
    analyse=_r3_analyse,
    claims=(
        Claim(
            "Randomized is the most fair; Reno's fairness curve is the lowest",
            "at every N: Randomized's RTT-weighted Jain index above Reno's and Paced's, and "
            "Reno's below Paced's (paired by seed; reversed where the other way)",
            _r3_fairness,
        ),
        Claim(
            "Pacing achieves almost the same fairness as Randomized",
            "at every N: Paced's RTT-weighted Jain index within 5% of Randomized's "
            "(equivalence on the per-seed relative difference)",
            _r3_paced_close,
        ),
        Claim(
            "Randomized's throughput is marginally higher",
            "at every N: Randomized's aggregate throughput above Reno's and above Paced's "
            "(paired by seed; reversed where below)",
            _r3_throughput,
        ),
        Claim(
            "With different RTTs Randomized outperforms Reno and Paced in drop rates and timeouts "
            "(section X)",
            "at every N: Randomized's loss rate and timeouts below Reno's and below Paced's "
            "(paired by seed; reversed where above)",
            _r3_losses,
        ),
    ),
    figure=FigureSpec("bulk transfer, RTT 80-120 ms", x="N", hue="tcp", xlabel="flows N"),
    algorithms=("reno", "paced", "randomized"),
    max_replicates=24,
)
