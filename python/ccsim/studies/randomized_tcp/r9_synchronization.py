"""R9: loss synchronization between flows."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
    CORRELATION,
    UNIT,
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
    COMPARE_THREE,
    SOURCE,
    THREE_NAMES,
    Run,
    dumbbell_scenario,
    named_runs,
    note_access_queues,
    run_seed,
    study_directory,
    sweep_definition,
)

# ---- R9: synchronization of bulk flows ---------------------------------------------------------

_R9_PUBLISHED = {
    ("2 flows 3Mbps", "Reno", "(0,1)"): 0.4254,
    ("2 flows 3Mbps", "Paced", "(0,1)"): -0.4124,
    ("2 flows 3Mbps", "Randomized", "(0,1)"): 0.1721,
    ("2 flows 4Mbps", "Reno", "(0,1)"): 0.3152,
    ("2 flows 4Mbps", "Paced", "(0,1)"): -0.1839,
    ("2 flows 4Mbps", "Randomized", "(0,1)"): 0.1604,
    ("2 flows 5Mbps", "Reno", "(0,1)"): 0.6700,
    ("2 flows 5Mbps", "Paced", "(0,1)"): -0.3302,
    ("2 flows 5Mbps", "Randomized", "(0,1)"): 0.0799,
    ("3 flows 4Mbps", "Reno", "(0,1)"): 0.5183,
    ("3 flows 4Mbps", "Paced", "(0,1)"): -0.1454,
    ("3 flows 4Mbps", "Randomized", "(0,1)"): 0.2525,
    ("3 flows 4Mbps", "Reno", "(0,2)"): 0.5416,
    ("3 flows 4Mbps", "Paced", "(0,2)"): -0.1537,
    ("3 flows 4Mbps", "Randomized", "(0,2)"): 0.1422,
    # The OCR's "(1,4)" row of Table VII, read as the third pair of 3 flows (see assumptions).
    ("3 flows 4Mbps", "Reno", "(1,2)"): 0.3492,
    ("3 flows 4Mbps", "Paced", "(1,2)"): -0.1833,
    ("3 flows 4Mbps", "Randomized", "(1,2)"): 0.1535,
}
#: The (case, pair) entries of Tables VI and VII.
R9_TABULATED = tuple(dict.fromkeys((case, pair) for case, _, pair in _R9_PUBLISHED))
#: Randomized's correlation "near zero": the narrowest band symmetric about zero, in steps of
#: 0.05, that holds every value the paper itself reports for Randomized (+0.08..+0.25, Tables
#: VI-VII). Symmetric, because section IV calls a value "equal to or close to 0" optimal and a
#: large negative one synchronization "in a negative sense".
R9_NEAR_ZERO = 0.3
#: Reno "synchronized": a correlation above this; "reversed": below its negative.
R9_SYNCHRONIZED = 0.1


def _r9_sweeps(s: Settings) -> list[dict[str, Any]]:
    duration = s.pick("1000s", "120s")
    trace = {"sample_interval": "100ms"}
    seeds = s.seeds(5, 3)
    two = [{"cc": "reno", "rtt": "100ms", "count": 2}]
    sweeps = [
        sweep_definition(
            "two",
            dumbbell_scenario("3Mbps", two, duration=duration, delay="40ms", trace=trace),
            seeds,
            axes={"topology.bottleneck_rate": ["3Mbps", "4Mbps", "5Mbps"]},
            compare=COMPARE_THREE,
        ),
    ]
    for n in s.pick([3, 10, 25], [3]):
        flows = [{"cc": "reno", "rtt": "100ms", "count": n}]
        sweeps.append(
            sweep_definition(
                f"n{n}",
                dumbbell_scenario("4Mbps", flows, duration=duration, delay="40ms", trace=trace),
                seeds,
                compare=COMPARE_THREE,
            )
        )
    return sweeps


def _r9_case(run: Run) -> str:
    """The row of Tables VI-VII (or Fig. 10) a run belongs to."""
    if run.sweep == "two":
        return f"2 flows {run.point['bottleneck_rate']}"
    return f"{run.sweep[1:]} flows 4Mbps"


def _r9_pair(pair: Any) -> str:
    return f"({int(pair.flow_a)},{int(pair.flow_b)})"


def _r9_run(run: Run, pairs: pd.DataFrame) -> list[dict[str, Any]]:
    """Each pair's cwnd correlation (up to 3 flows: Tables VI-VII) or, with more flows, the
    summary of all pairs; and the mean over the pairs."""
    corr = pairs["correlation"]
    if len(pairs) <= 3:
        values = [(_r9_pair(p), p.correlation) for _, p in pairs.iterrows()]
    else:
        values = [
            ("share of pairs > 0", float((corr > 0).mean())),
            ("mean |pair|", float(corr.abs().mean())),
            ("min pair", float(corr.min())),
            ("max pair", float(corr.max())),
        ]
    values.append(("mean pair", float(corr.mean())))
    return run.records({"case": _r9_case(run), "tcp": run.config}, values)


def _r9_analyse(c: Context) -> pd.DataFrame:
    records = []
    warmup = 10.0
    # Fig. 10: every pair's correlation (mean over seeds) for the cases with more than 3 flows.
    many: list[dict[str, Any]] = []
    for run in named_runs(c, THREE_NAMES):
        pairs = metrics.cwnd_correlation_pairs(run.load("series"), warmup_s=warmup)
        records += _r9_run(run, pairs)
        if len(pairs) > 3:
            many += [
                {
                    "case": _r9_case(run),
                    "tcp": run.config,
                    "seed": run_seed(run.point),
                    "pair": _r9_pair(p),
                    "value": p.correlation,
                }
                for _, p in pairs.iterrows()
            ]
    if many:
        _r9_pairs_figure(c, pd.DataFrame(many))
    note_access_queues(c)
    metrics_ = {str(r["metric"]) for r in records}
    bounds = {m: CORRELATION for m in metrics_} | {
        "share of pairs > 0": UNIT,
        "mean |pair|": UNIT,
    }
    return summarise(records, ["case", "tcp"], _R9_PUBLISHED, bounds=bounds)


def _r9_pairs_figure(c: Context, pairs: pd.DataFrame) -> None:
    """``R9-pairs.png`` next to the study's files: Fig. 10 as the paper draws it, the
    correlation of every pair (mean over seeds) against the pair's index in the order (0,1),
    (0,2), ..., (1,2), ..., one panel per number of flows, a line per algorithm (one colour in
    every panel, one legend under them)."""
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import palette
    from ccsim.studies.figures import figure_legend

    path = study_directory(c) / "R9-pairs.png"
    cases = list(dict.fromkeys(pairs["case"]))
    looks = palette.looks(str(tcp) for tcp in pairs["tcp"])
    figure = Figure(figsize=(11, 3.6 * len(cases) + 0.6), layout="constrained")
    axes = figure.subplots(len(cases), 1, squeeze=False)
    for ax, case in zip(axes[:, 0], cases, strict=True):
        rows = pairs[pairs["case"] == case]
        order = list(dict.fromkeys(rows["pair"]))
        for tcp, group in rows.groupby("tcp", sort=False):
            mean = group.groupby("pair")["value"].mean().reindex(order)
            ax.plot(
                range(len(order)), mean.to_numpy(), lw=0.9, label=str(tcp), **looks[str(tcp)].line()
            )
        ax.axhline(0, color=palette.NEUTRAL, lw=0.6)
        ax.set_title(f"{case}: cwnd correlation per pair (Fig. 10)", fontsize=10)
        ax.set_xlabel("pair index ((0,1), (0,2), ..., (1,2), ...)")
        ax.set_ylabel("correlation")
        ax.set_ylim(-1.05, 1.05)
        ax.grid(alpha=0.3)
    figure_legend(figure, list(axes[:, 0]), fontsize=9)
    figure.savefig(path, dpi=110)
    c.notes.append(f"R9: per-pair figure (Fig. 10) {path}")


def _r9_entry(table: pd.DataFrame, tcp: str, case: str, pair: str) -> Quantity:
    return measure(table, pair, case=case, tcp=tcp)


def _r9_label(case: str, pair: str) -> str:
    return f"{case}, pair {pair}" if case.startswith("3") else case


def _r9_reno(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{_r9_label(case, pair)}: Reno's cwnd correlation",
            _r9_entry(table, "Reno", case, pair),
            ">",
            R9_SYNCHRONIZED,
            reversal=-R9_SYNCHRONIZED,
            required=f"> {R9_SYNCHRONIZED:g} (reversed below -{R9_SYNCHRONIZED:g})",
        )
        for case, pair in R9_TABULATED
    ]


def _r9_paced(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{_r9_label(case, pair)}: Paced's cwnd correlation",
            _r9_entry(table, "Paced", case, pair),
            "<",
            0.0,
        )
        for case, pair in R9_TABULATED
    ]


def _r9_randomized(table: pd.DataFrame) -> list[Check]:
    """Tables VI-VII: Randomized's correlation is near zero (the paper's own values,
    +0.08..+0.25, lie in the band)."""
    return [
        band(
            f"{_r9_label(case, pair)}: Randomized's cwnd correlation",
            _r9_entry(table, "Randomized", case, pair),
            -R9_NEAR_ZERO,
            R9_NEAR_ZERO,
        )
        for case, pair in R9_TABULATED
    ]


def r9_many(table: pd.DataFrame) -> list[Check]:
    """Fig. 10 (10 and 25 flows): Reno highly synchronized, Paced and Randomized break it, and
    Randomized gets better than Paced as flows increase."""
    checks = []
    for n in (10, 25):
        case = f"{n} flows 4Mbps"
        reno = measure(table, "mean pair", case=case, tcp="Reno")
        for other in ("Paced", "Randomized"):
            checks.append(
                compare(
                    f"{n} flows: mean pairwise cwnd correlation, Reno minus {other}",
                    reno - measure(table, "mean pair", case=case, tcp=other),
                    ">",
                    R9_SYNCHRONIZED,
                    reversal=-R9_SYNCHRONIZED,
                    required=f"> {R9_SYNCHRONIZED:g} (reversed below -{R9_SYNCHRONIZED:g})",
                )
            )
    case = "25 flows 4Mbps"
    checks.append(
        compare(
            "25 flows: mean |pairwise cwnd correlation|, Randomized against Paced",
            measure(table, "mean |pair|", case=case, tcp="Randomized"),
            "<",
            measure(table, "mean |pair|", case=case, tcp="Paced"),
        )
    )
    return checks


R9 = Study(
    id="R9",
    slug="synchronization",
    title="Synchronization of bulk flows (Tables VI, VII, Fig. 10)",
    source=f"{SOURCE}, Tables VI-VII, Fig. 10",
    setup="Dumbbell, RTT 100 ms, buffer 25 packets (1/4 BDP at 4 Mb/s), 1000 s, cwnd sampled "
    "every 0.1 s; Pearson correlation of cwnd series per pair; 2 flows at 3/4/5 Mb/s, 3, 10 "
    "and 25 flows at 4 Mb/s; Fig. 10's per-pair curves in R9-pairs.png.",
    warmup="10 s: the first 10 s of the cwnd series (slow start) are left out of the correlation",
    assumptions=(
        *COMMON,
        (
            "the paper's 'covariance coefficient' is the Pearson correlation (its text defines it "
            "as normalized covariance); the first 10 s are left out (slow start)"
        ),
        "pairs are numbered from 0: the paper's (1,2) is (0,1)",
        (
            "Table VII (3 flows) lists pairs (1,2), (1,3) and, in the OCR, '(1,4)', which 3 flows "
            "do not have; read as the third pair (2,3), ours (1,2)"
        ),
        (
            f"'near zero' (Randomized) is the band +-{R9_NEAR_ZERO:g}: the narrowest symmetric "
            "band in steps of 0.05 holding every Randomized value the paper reports "
            "(+0.08..+0.25)"
        ),
        "quick: 120 s, 2 and 3 flows only",
    ),
    sweeps=_r9_sweeps,
    analyse=_r9_analyse,
    claims=(
        Claim(
            "Reno's windows are synchronized (positive correlation; Tables VI-VII)",
            "every entry of Tables VI-VII: Reno's correlation > 0.1; reversed below -0.1",
            _r9_reno,
        ),
        Claim(
            "Paced TCP is out of phase (negative correlation; Tables VI-VII)",
            "every entry of Tables VI-VII: Paced's correlation < 0; reversed above 0",
            _r9_paced,
        ),
        Claim(
            "Randomized keeps the synchronization near zero (Tables VI-VII)",
            f"every entry of Tables VI-VII: Randomized's correlation within +-{R9_NEAR_ZERO:g} "
            "(the paper's own values +0.08..+0.25 lie inside); no direction to reverse",
            _r9_randomized,
        ),
        Claim(
            "Fig. 10: with 10 and 25 flows Reno stays synchronized while Paced and Randomized "
            "break it; Randomized gets better than Paced as flows increase",
            "10 and 25 flows: Reno's mean pair minus Paced's and minus Randomized's > 0.1 "
            "(reversed below -0.1); 25 flows: Randomized's mean |pair| below Paced's (reversed: "
            "above)",
            r9_many,
        ),
    ),
    figure=FigureSpec("cwnd correlation by pair"),
    algorithms=("reno", "paced", "randomized"),
    max_replicates=20,
)
