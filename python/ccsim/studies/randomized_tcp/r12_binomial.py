"""R12: binomial congestion control (IIAD, SQRT) against Reno and Randomized TCP."""

from __future__ import annotations

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
    Settings,
    Study,
    compare,
    measure,
    summarise,
)
from ccsim.studies.randomized_tcp.common import (
    COMMON,
    RANDOMIZED,
    SOURCE,
    Run,
    comparison_table,
    dumbbell_scenario,
    grade_sensitivity,
    kbps,
    named_records,
    sweep_definition,
)

# ---- R12: binomial schemes ---------------------------------------------------------------------

_R12_NAMES = {
    ("iiad", "one"): "IIAD vs Reno",
    ("sqrt", "one"): "SQRT vs Reno",
    ("iiad-rand", "one"): "rand IIAD vs Randomized",
    ("sqrt-rand", "one"): "rand SQRT vs Randomized",
}
#: IIAD and SQRT as the general binomial law: (k, l).
_R12_LAWS = {"IIAD": (1.0, 0.0), "SQRT": (0.5, 0.5)}
#: The a, b of the runs the verdicts read: ns-2's test suite (tcl/test/test-suite-aimd.tcl), not
#: the paper's, which it does not give.
R12_A, R12_B = 1.0, 0.67
#: The sensitivity sweep: increase constants a and decrease constants b around ns-2's, on and
#: off the TCP-compatible line a / b = 3/2 (Bansal and Balakrishnan), with and without ns-2's
#: slowdown() halving.
R12_SENSITIVITY_A = (0.5, 1.0, 1.5)
R12_SENSITIVITY_B = (0.33, 0.5, 0.67, 0.9)
R12_SENSITIVITY_HALVING = (False, True)
#: "Beaten down": the beaten flow's throughput below this fraction of the other's.
R12_BEATEN = 0.8
#: "Markedly fairer": smaller/larger throughput at least this much higher randomized.
R12_FAIRER = 0.1
R12_BOUNDS = {
    "binomial kb/s": NONNEGATIVE,
    "TCP kb/s": NONNEGATIVE,
    "Jain": UNIT,
    "min/max": UNIT,
}


def _r12_settings() -> list[tuple[float, float, bool]]:
    return [
        (a, b, halving)
        for halving in R12_SENSITIVITY_HALVING
        for a in R12_SENSITIVITY_A
        for b in R12_SENSITIVITY_B
    ]


def _r12_variant(scheme: str, a: float, b: float, halving: bool, randomize: bool) -> str:
    return (
        f"{'rand ' if randomize else ''}{scheme} a={a:g} b={b:g}{' ns2-halving' if halving else ''}"
    )


def _r12_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [{"cc": "reno", "rtt": "100ms"}, {"cc": "reno", "rtt": "100ms"}]
    # Two flows on 1 Mb/s cost little: quick keeps the full length and drops seeds, since
    # 40 s runs swing too much with start times to say anything.
    duration, seeds = "200s", s.seeds(5, 3)
    plain = {"algorithms": ["iiad", "sqrt"], "mixtures": ["one"], "baseline": "reno"}
    randomized = {
        "algorithms": [
            {"name": "iiad-rand", "cc": "iiad", "params": {"randomize": True}},
            {"name": "sqrt-rand", "cc": "sqrt", "params": {"randomize": True}},
        ],
        "mixtures": ["one"],
        "baseline": RANDOMIZED,
    }
    rflows = [{**f, "cc": "randomized"} for f in flows]
    sweeps = [
        sweep_definition(
            "plain",
            dumbbell_scenario("1Mbps", flows, duration=duration, delay="40ms"),
            seeds,
            compare=plain,
        ),
        sweep_definition(
            "randomized",
            dumbbell_scenario("1Mbps", rflows, duration=duration, delay="40ms"),
            seeds,
            compare=randomized,
        ),
    ]
    if s.quick:
        return sweeps
    for randomize, base, baseline in ((False, flows, "reno"), (True, rflows, RANDOMIZED)):
        variants = [
            {
                "name": _r12_variant(scheme, a, b, halving, randomize),
                "cc": "binomial",
                "params": {
                    "k": k,
                    "l": law_l,
                    "a": a,
                    "b": b,
                    "randomize": randomize,
                    "ns2_halving": halving,
                },
            }
            for a, b, halving in _r12_settings()
            for scheme, (k, law_l) in _R12_LAWS.items()
        ]
        sweeps.append(
            sweep_definition(
                f"sensitivity-{'randomized' if randomize else 'plain'}",
                dumbbell_scenario("1Mbps", base, duration=duration, delay="40ms"),
                seeds,
                compare={
                    "algorithms": variants,
                    "mixtures": ["one"],
                    "baseline": baseline,
                    "reference": False,
                },
            )
        )
    return sweeps


def _r12_values(run: Run) -> list[tuple[str, float]]:
    """The binomial flow's and the TCP flow's goodput, and their fairness."""
    x = run.load("flows").sort_values("flow")["goodput_bps"].to_numpy()
    return [
        ("binomial kb/s", kbps(x[0])),
        ("TCP kb/s", kbps(x[1])),
        ("Jain", metrics.jain_index(x)),
        # Jain's index of two flows cannot fall below 0.5 and a 1:2 split still scores 0.9, so
        # the smaller/larger throughput ratio is what the verdict reads.
        ("min/max", float(x.min() / x.max())),
    ]


def _r12_run(run: Run) -> list[dict[str, Any]]:
    return run.records({"config": run.config}, _r12_values(run))


def _r12_analyse(c: Context) -> pd.DataFrame:
    # The sensitivity sweeps' variants are none of _R12_NAMES: the table is the main sweeps'.
    _r12_sensitivity(c)
    return comparison_table(c, _R12_NAMES, _r12_run, ["config"], bounds=R12_BOUNDS)


def _r12_sensitivity(c: Context) -> None:
    """The verdicts of R12's claims at every (a, b, ns-2 halving) of the sensitivity sweep
    (:func:`grade_sensitivity`)."""
    # Each variant's name (its configuration in the sweep) -> its setting and the main
    # configuration it varies.
    variants = {
        _r12_variant(scheme, a, b, halving, randomize): {
            "a": a,
            "b": b,
            "ns2 halving": halving,
            "config": config,
        }
        for a, b, halving in _r12_settings()
        for scheme in _R12_LAWS
        for randomize, config in (
            (False, f"{scheme} vs Reno"),
            (True, f"rand {scheme} vs Randomized"),
        )
    }

    def measure_run(run: Run) -> list[dict[str, Any]]:
        return run.records(variants[run.config], _r12_values(run))

    names = {(variant, "one"): variant for variant in variants}
    sweeps = ("sensitivity-plain", "sensitivity-randomized")
    records = named_records(c, names, measure_run, sweeps)
    if not records:
        return
    table = summarise(records, ["a", "b", "ns2 halving", "config"], bounds=R12_BOUNDS)
    scope = (
        f"a in {min(R12_SENSITIVITY_A):g}..{max(R12_SENSITIVITY_A):g}, b in "
        f"{min(R12_SENSITIVITY_B):g}..{max(R12_SENSITIVITY_B):g}, ns-2 halving off and on"
    )
    grade_sensitivity(c, "R12", R12.claims, table, ["a", "b", "ns2 halving"], scope)


def r12_beat_down(table: pd.DataFrame) -> list[Check]:
    """[3] via the paper: IIAD and SQRT beat down TCP on DropTail (Fig. 12 a, c)."""
    checks = []
    for scheme in ("IIAD", "SQRT"):
        config = f"{scheme} vs Reno"
        ratio = measure(table, "TCP kb/s", config=config) / measure(
            table, "binomial kb/s", config=config
        )
        checks.append(
            compare(
                f"{scheme} vs Reno: Reno's throughput / {scheme}'s",
                ratio,
                "<",
                R12_BEATEN,
                reversal=1 / R12_BEATEN,
                required=(
                    f"< {R12_BEATEN:g} (reversed above 1/{R12_BEATEN:g} = {1 / R12_BEATEN:g}: "
                    f"Reno beats {scheme} down)"
                ),
            )
        )
    return checks


def r12_fairer(table: pd.DataFrame) -> list[Check]:
    checks = []
    for scheme in ("IIAD", "SQRT"):
        plain = measure(table, "min/max", config=f"{scheme} vs Reno")
        rand = measure(table, "min/max", config=f"rand {scheme} vs Randomized")
        checks.append(
            compare(
                f"{scheme}: smaller/larger throughput, randomized pair minus plain pair",
                rand - plain,
                ">",
                R12_FAIRER,
                reversal=-R12_FAIRER,
                required=f"> {R12_FAIRER:g} (reversed below -{R12_FAIRER:g})",
            )
        )
    return checks


R12 = Study(
    id="R12",
    slug="binomial",
    title="Binomial schemes (Fig. 12)",
    source=f"{SOURCE}, Fig. 12",
    setup="Dumbbell 1 Mb/s, RTT 100 ms, DropTail 25 packets; IIAD (k=1, l=0) vs Reno and SQRT "
    "(k=l=0.5) vs Reno, then randomized IIAD / SQRT vs Randomized TCP; one flow each. "
    "Sensitivity: the same pairs over a and b (sweeps sensitivity-*).",
    warmup="none: each flow's goodput over its whole 200 s run (flows start in the first second)",
    assumptions=(
        *COMMON,
        (
            "200 s runs; fairness read as the ratio of the smaller to the larger of the two flows' "
            "throughputs (the paper shows throughput curves, Fig. 12, without a number); Jain's "
            "index is reported too"
        ),
        (
            f"IIAD and SQRT with a = {R12_A:g}, b = {R12_B:g} (ns-2's test-suite-aimd.tcl; the "
            "paper gives none) and the binomial law from the first decrease (no ns-2 slowdown() "
            "halving); the verdicts are re-graded over a in 0.5..1.5, b in 0.33..0.9, with and "
            "without ns-2's halving (R12-sensitivity.csv, notes); quick runs skip that sweep"
        ),
    ),
    sweeps=_r12_sweeps,
    analyse=_r12_analyse,
    claims=(
        Claim(
            "IIAD and SQRT beat down TCP when sharing a DropTail gateway",
            "for each scheme: TCP's throughput / the binomial flow's (per seed) < 0.8; reversed "
            "above 1/0.8 (TCP beats the scheme down)",
            r12_beat_down,
        ),
        Claim(
            "Randomized binomial schemes competing with Randomized TCP are markedly fairer",
            "for each scheme: smaller/larger throughput of the randomized pair minus the plain "
            "pair's (paired by seed) > 0.1; reversed below -0.1",
            r12_fairer,
        ),
    ),
    figure=FigureSpec("binomial schemes against TCP"),
    algorithms=("iiad", "sqrt", "randomized"),
    max_replicates=40,
)
