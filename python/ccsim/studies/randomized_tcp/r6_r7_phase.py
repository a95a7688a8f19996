"""R6 and R7: phase effects, with two flows and with ten."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from ccsim.studies.core import (
    NONNEGATIVE,
    UNIT,
    Bounds,
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
    summarise,
)
from ccsim.studies.randomized_tcp.common import (
    COMMON,
    MSS,
    RANDOMIZED,
    SOURCE,
    Run,
    dumbbell_scenario,
    grade_sensitivity,
    kbps,
    named_records,
    note_access_queues,
    sweep_definition,
)

# ---- R6 and R7: phase effects on one bottleneck -------------------------------------------------

#: Shares of a 60 ms and an 80 ms flow if throughput goes as 1/RTT.
FAIR_SHORT, FAIR_LONG = 8 / 14, 6 / 14
#: How far from the 1/RTT share is a phase effect (and how near is "near").
PHASE_MARGIN = 0.1
_R6_NAMES = {("reno", "all"): "Reno/Reno", ("randomized", "short"): "Reno/Random"}
_R6_RATES = ("2Mbps", "3Mbps")
_R6_PUBLISHED = {
    ("2Mbps", "Reno/Reno", "long share"): 0.29,
    ("2Mbps", "Reno/Reno", "short share"): 0.71,
    ("2Mbps", "Reno/Random", "long share"): 0.46,
    ("2Mbps", "Reno/Random", "short share"): 0.54,
    ("3Mbps", "Reno/Reno", "long share"): 0.34,
    ("3Mbps", "Reno/Reno", "short share"): 0.66,
    ("3Mbps", "Reno/Random", "long share"): 0.44,
    ("3Mbps", "Reno/Random", "short share"): 0.56,
    ("2Mbps", "Reno/Reno", "long pkts/s"): 119.81,
    ("2Mbps", "Reno/Reno", "short pkts/s"): 298.93,
    ("2Mbps", "Reno/Random", "long pkts/s"): 166.11,
    ("2Mbps", "Reno/Random", "short pkts/s"): 196.3,
    ("3Mbps", "Reno/Reno", "long pkts/s"): 208.42,
    ("3Mbps", "Reno/Reno", "short pkts/s"): 408.05,
    ("3Mbps", "Reno/Random", "long pkts/s"): 241.64,
    ("3Mbps", "Reno/Random", "short pkts/s"): 300.08,
}


#: The bottleneck's one-way delay of R6 and R7 (the paper gives each flow's RTT only; the access
#: links carry the rest), and the other delays their sensitivity sweeps run: which flow a phase
#: effect locks out depends on where each flow's packets fall at the queue.
PHASE_DELAY = "20ms"
PHASE_DELAYS = ("5ms", "10ms", "15ms", "25ms")


def _r6_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [
        {"cc": "reno", "rtt": "60ms", "label": "short"},
        {"cc": "reno", "rtt": "80ms", "label": "long"},
    ]
    compare_ = {
        "algorithms": [RANDOMIZED],
        "mixtures": [{"name": "short", "flows": [0]}],
        "baseline": "reno",
    }
    scenario = dumbbell_scenario("2Mbps", flows, duration=s.pick("200s", "40s"), delay=PHASE_DELAY)
    sweeps = [
        sweep_definition(
            "pair",
            scenario,
            s.seeds(10, 3),
            axes={"topology.bottleneck_rate": list(_R6_RATES)},
            compare=compare_,
        )
    ]
    if not s.quick:
        sweeps.append(
            sweep_definition(
                "sensitivity",
                scenario,
                s.seeds(10, 3),
                axes={
                    "topology.bottleneck_rate": list(_R6_RATES),
                    "topology.bottleneck_delay": list(PHASE_DELAYS),
                },
                compare=compare_,
            )
        )
    return sweeps


R6_BOUNDS = {
    "short share": UNIT,
    "long share": UNIT,
    "short pkts/s": NONNEGATIVE,
    "long pkts/s": NONNEGATIVE,
}


def _phase_delay(run: Run) -> str:
    """The run's bottleneck one-way delay: its sensitivity setting (the main sweep's is
    :data:`PHASE_DELAY`)."""
    return str(run.point.get("bottleneck_delay", PHASE_DELAY))


def _phase_table(
    c: Context,
    study: Study,
    main: str,
    names: Mapping[tuple[str, str], str],
    measure_run: Callable[[Run], list[dict[str, Any]]],
    keys: Sequence[str],
    published: Mapping[tuple[Any, ...], float],
    bounds: Mapping[str, Bounds],
) -> pd.DataFrame:
    """The comparison table of the ``main`` sweep's runs by ``keys``; with the sensitivity
    sweep run, the study's claims are also graded at each bottleneck delay
    (:func:`grade_sensitivity`). ``measure_run`` keys its records by "delay" too."""
    records = named_records(c, names, measure_run, [main])
    note_access_queues(c)
    sensitivity = named_records(c, names, measure_run, ["sensitivity"])
    if sensitivity:
        table = summarise(records + sensitivity, ["delay", *keys], bounds=bounds)
        scope = f"bottleneck one-way delay {', '.join([*PHASE_DELAYS, PHASE_DELAY])}"
        grade_sensitivity(c, study.id, study.claims, table, ["delay"], scope)
    main_records = [{k: v for k, v in r.items() if k != "delay"} for r in records]
    return summarise(main_records, keys, published, bounds=bounds)


def _r6_run(run: Run) -> list[dict[str, Any]]:
    """Each flow's share of the goodput and its packets per second."""
    flows = run.load("flows").set_index("label")
    total = flows["goodput_bps"].sum()
    key = {"delay": _phase_delay(run), "rate": run.point["bottleneck_rate"], "config": run.config}
    records = []
    for which in ("short", "long"):
        x = flows.loc[which, "goodput_bps"]
        # Table III's throughputs are packets (500 B) per second, as its header says.
        records += run.records(
            key, ((f"{which} share", x / total), (f"{which} pkts/s", x / (8 * MSS)))
        )
    return records


def _r6_analyse(c: Context) -> pd.DataFrame:
    return _phase_table(
        c, R6, "pair", _R6_NAMES, _r6_run, ["rate", "config"], _R6_PUBLISHED, R6_BOUNDS
    )


def _short_share(table: pd.DataFrame, rate: str, config: str) -> Quantity:
    return measure(table, "short share", rate=rate, config=config)


def r6_phase(table: pd.DataFrame) -> list[Check]:
    """Table III: at each rate the long (80 ms) flow is the one locked out (short share 0.71 and
    0.66 against the 1/RTT share 0.57)."""
    return [
        compare(
            f"{rate}: two Reno flows, the short flow's share",
            _short_share(table, rate, "Reno/Reno"),
            ">",
            FAIR_SHORT + PHASE_MARGIN,
            reversal=FAIR_SHORT - PHASE_MARGIN,
            required=(
                f"> {FAIR_SHORT + PHASE_MARGIN:.3f} (1/RTT share {FAIR_SHORT:.3f} + 0.1; "
                f"reversed below {FAIR_SHORT - PHASE_MARGIN:.3f}, the short flow locked out)"
            ),
        )
        for rate in _R6_RATES
    ]


def _r6_fix(table: pd.DataFrame) -> list[Check]:
    checks = []
    for rate in _R6_RATES:
        randomized = _short_share(table, rate, "Reno/Random")
        reno = _short_share(table, rate, "Reno/Reno")
        checks.append(
            band(
                f"{rate}: short flow Randomized, its share",
                randomized,
                FAIR_SHORT - PHASE_MARGIN,
                FAIR_SHORT + PHASE_MARGIN,
            )
        )
        closer = Quantity.combine(
            lambda r, p: abs(r - FAIR_SHORT) - abs(p - FAIR_SHORT), randomized, reno
        )
        checks.append(
            compare(
                f"{rate}: distance of the short flow's share from 1/RTT's, short flow "
                "Randomized minus two Reno flows",
                closer,
                "<",
                0.0,
            )
        )
    return checks


R6 = Study(
    id="R6",
    slug="phase-effects",
    title="Phase effects, two flows (Table III)",
    source=f"{SOURCE}, Table III",
    setup="Dumbbell, DropTail 25 packets, bottleneck 2 and 3 Mb/s; a short (60 ms) and a long "
    "(80 ms) flow: both Reno, then long Reno + short Randomized. Fair shares by 1/RTT: 0.57 "
    "short / 0.43 long.",
    warmup=(
        "none: each flow's goodput is taken over its whole run (flows start in the first second)"
    ),
    assumptions=(
        *COMMON,
        (
            "200 s runs (the paper gives none; quick: 40 s); bottleneck one-way delay 20 ms (the "
            "paper gives the RTTs only): the verdicts are re-graded at 5, 10, 15 and 25 ms "
            "(R6-sensitivity.csv, notes); quick runs skip that sweep"
        ),
        (
            "Table III's throughputs are packets of 500 B per second, as its header says (the "
            "study's summary calls them Kbps, but 418 kb/s would leave the 2 Mb/s link 80% "
            "idle; 418 pkts/s fills 84% of it)"
        ),
    ),
    sweeps=_r6_sweeps,
    analyse=_r6_analyse,
    claims=(
        Claim(
            "Two Reno flows of different RTT stray far from the 1/RTT shares (phase effects): "
            "the long (80 ms) flow is locked out at 2 and 3 Mb/s",
            "at each rate: short share > 0.57 + 0.1 (the long flow loses); reversed at a rate "
            "where it is < 0.57 - 0.1 (the short flow loses)",
            r6_phase,
        ),
        Claim(
            "Randomizing one flow brings the shares back near 1/RTT",
            "at each rate, short flow Randomized: its share within 0.57 +- 0.1 (no reversal), "
            "and nearer 0.57 than with two Reno flows (paired by seed; reversed where further)",
            _r6_fix,
        ),
    ),
    figure=FigureSpec("two flows, 60 and 80 ms: throughput shares"),
    algorithms=("reno", "randomized"),
    max_replicates=40,
)

_R7_NAMES = {
    ("reno", "all"): "all Reno",
    ("randomized", "all"): "all Randomized",
    ("randomized", "one-long"): "1 long Randomized",
    ("randomized", "one-short"): "1 short Randomized",
}
_R7_PUBLISHED = {
    ("all Reno", "short Kbps"): 62.6,
    ("all Reno", "long Kbps"): 33.35,
    ("all Randomized", "short Kbps"): 41.50,
    ("all Randomized", "long Kbps"): 33.60,
    ("1 long Randomized", "short Kbps"): 45.51,
    ("1 long Randomized", "long Kbps"): 35.80,
    ("1 short Randomized", "short Kbps"): 50.02,
    ("1 short Randomized", "long Kbps"): 34.71,
    ("all Reno", "short/long"): 62.6 / 33.35,
    ("all Randomized", "short/long"): 41.50 / 33.60,
    ("1 long Randomized", "short/long"): 45.51 / 35.80,
    ("1 short Randomized", "short/long"): 50.02 / 34.71,
}
#: Per-flow throughput ratio short/long by 1/RTT (60 and 80 ms).
R7_IDEAL = 80 / 60
#: A phase effect for the short flows: short/long beyond this factor of the 1/RTT ratio.
R7_FACTOR = 1.2


def _r7_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [
        {"cc": "reno", "rtt": "60ms", "label": "short", "count": 5},
        {"cc": "reno", "rtt": "80ms", "label": "long", "count": 5},
    ]
    mixtures = [
        "all",
        {"name": "one-long", "flows": [9]},
        {"name": "one-short", "flows": [4]},
    ]
    compare_ = {"algorithms": [RANDOMIZED], "mixtures": mixtures, "baseline": "reno"}
    scenario = dumbbell_scenario("1Mbps", flows, duration=s.pick("200s", "40s"), delay=PHASE_DELAY)
    sweeps = [sweep_definition("ten", scenario, s.seeds(5, 3), compare=compare_)]
    if not s.quick:
        sweeps.append(
            sweep_definition(
                "sensitivity",
                scenario,
                s.seeds(5, 3),
                axes={"topology.bottleneck_delay": list(PHASE_DELAYS)},
                compare=compare_,
            )
        )
    return sweeps


R7_BOUNDS = {"short Kbps": NONNEGATIVE, "long Kbps": NONNEGATIVE, "short/long": NONNEGATIVE}


def _r7_run(run: Run) -> list[dict[str, Any]]:
    """The mean goodput of a short and of a long flow, and their ratio."""
    mean = run.load("flows").groupby("label")["goodput_bps"].mean()
    values = (
        ("short Kbps", kbps(mean["short"])),
        ("long Kbps", kbps(mean["long"])),
        ("short/long", mean["short"] / mean["long"]),
    )
    return run.records({"delay": _phase_delay(run), "config": run.config}, values)


def _r7_analyse(c: Context) -> pd.DataFrame:
    return _phase_table(c, R7, "ten", _R7_NAMES, _r7_run, ["config"], _R7_PUBLISHED, R7_BOUNDS)


def _r7_ratio(table: pd.DataFrame, config: str) -> Quantity:
    return measure(table, "short/long", config=config)


def _r7_direction(table: pd.DataFrame) -> list[Check]:
    """Table IV, all Reno: the 60 ms flows get 1.88 times the 80 ms flows' throughput, well
    above 1/RTT's 1.33."""
    return [
        compare(
            "all Reno: per-flow short/long throughput ratio",
            _r7_ratio(table, "all Reno"),
            ">",
            R7_FACTOR * R7_IDEAL,
            reversal=R7_IDEAL / R7_FACTOR,
            required=(
                f"> 1.2 x 1.33 = {R7_FACTOR * R7_IDEAL:.2f} (reversed below 1.33 / 1.2 = "
                f"{R7_IDEAL / R7_FACTOR:.2f}: the short flows lose)"
            ),
        )
    ]


def _r7_removed(table: pd.DataFrame) -> list[Check]:
    return [
        band(
            "all Randomized: per-flow short/long throughput ratio",
            _r7_ratio(table, "all Randomized"),
            R7_IDEAL / R7_FACTOR,
            R7_FACTOR * R7_IDEAL,
        )
    ]


def r7_claims(table: pd.DataFrame) -> list[Check]:
    reno = _r7_ratio(table, "all Reno")
    checks = []
    for config in ("1 long Randomized", "1 short Randomized"):
        relative = Quantity.combine(
            lambda one, all_reno: (
                abs(one - R7_IDEAL) / abs(all_reno - R7_IDEAL) if all_reno != R7_IDEAL else math.nan
            ),
            _r7_ratio(table, config),
            reno,
            bounds=NONNEGATIVE,
        )
        checks.append(
            compare(
                f"{config}: distance of short/long from 1.33 relative to all Reno's",
                relative,
                "<=",
                0.75,
                reversal=1 / 0.75,
                required="<= 0.75 (reversed above 4/3)",
            )
        )
    return checks


R7 = Study(
    id="R7",
    slug="phase-effects-ten",
    title="Phase effects, ten flows (Table IV)",
    source=f"{SOURCE}, Table IV",
    setup="Dumbbell 1 Mb/s, DropTail 25 packets; 5 short (60 ms) and 5 long (80 ms) flows: all "
    "Reno, all Randomized, one long Randomized, one short Randomized; mean per-flow Kbps.",
    warmup=(
        "none: each flow's goodput is taken over its whole run (flows start in the first second)"
    ),
    assumptions=(
        *COMMON,
        "200 s runs (the paper gives none; quick: 40 s)",
        (
            "bottleneck one-way delay 20 ms (the paper gives the RTTs only): the verdicts are "
            "re-graded at 5, 10, 15 and 25 ms (R7-sensitivity.csv, notes); quick runs skip that "
            "sweep"
        ),
    ),
    sweeps=_r7_sweeps,
    analyse=_r7_analyse,
    claims=(
        Claim(
            "With ten Reno flows, phase effects favour the short (60 ms) flows: 62.6 against "
            "33.35 Kb/s per flow",
            "all Reno: per-flow short/long throughput ratio > 1.2 x the 1/RTT ratio 1.33; "
            "reversed if < 1.33 / 1.2 (the short flows lose)",
            _r7_direction,
        ),
        Claim(
            "Phase effects are removed when all the sources use Randomized TCP",
            "all Randomized: per-flow short/long within 1.33 / 1.2 .. 1.2 x 1.33 (the first "
            "claim's threshold of a phase effect, either way); no direction to reverse",
            _r7_removed,
        ),
        Claim(
            "One randomized flow reduces phase effects for all",
            "with one Randomized flow (long or short), the distance of the short/long "
            "per-flow throughput ratio from 1.33, relative to all Reno's in the same seed, "
            "<= 0.75 (shrinks by a quarter or more); reversed if > 4/3 (grows by a third)",
            r7_claims,
        ),
    ),
    figure=FigureSpec("ten flows, 5 at 60 ms and 5 at 80 ms"),
    algorithms=("reno", "randomized"),
    max_replicates=40,
)
