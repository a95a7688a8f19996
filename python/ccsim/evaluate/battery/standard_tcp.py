"""Impact on standard TCP: the evaluation suite's gain and loss (draft-irtf-iccrg-tcpeval-01,
section 6.1).

Two camps of transfers share the suite's dumbbell, each offered half the load over the nine
paths: camp A always runs standard TCP (Reno with SACK, no ECN), camp B runs the algorithm in the
MIX run and standard TCP in the BASELINE run. The algorithm's gain is camp B's goodput in MIX
over camp B's in BASELINE, G = T(B)_mix / T(B)_baseline; the loss it inflicts is camp A's,
L = T(A)_mix / T(A)_baseline (the goodput of a camp: its bytes acknowledged over the run). Each
camp sees the same arrivals and sizes in both runs of a seed (its generators' draws are keyed by
seed, generator and transfer), so the ratios are paired. The suite makes the two camps' transfers
copies of each other; here each camp has its own draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ccsim.evaluate.battery.common import (
    Algorithm,
    Measurement,
    Metric,
    Plan,
    Run,
    Summary,
    SummaryRow,
    Test,
    TestSweep,
    role_of,
    sweep_file,
)
from ccsim.evaluate.battery.drawing import Drawing
from ccsim.evaluate.battery.suite import SuiteScenario, generators
from ccsim.studies.evidence import NONNEGATIVE

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "standard-tcp"

#: The suite's standard TCP: SACK TCP without ECN (RFC 2883), as the `linux` profile runs Reno.
STANDARD = Algorithm("standard", "reno")
#: The role of the BASELINE run (both camps standard), measured once per evaluation.
BASELINE_ROLE = "standard"

#: The suite's dumbbell with the ramp-up test's capacities (sections 6.1.1 and 5.2.1): a central
#: link of 10 Mb/s or 1 Gb/s, 2 ms one way, edges of 1 Gb/s; a buffer of 100 ms, one BDP at the
#: paths' mean RTT, as the basic scenarios size it. Each with its offered loads (both camps
#: together): the suite's 50 and 100%, and on the 10 Mb/s link an overload of 150%, which is not
#: the suite's: below capacity every transfer finishes, so a camp's goodput is mostly what it was
#: offered, whatever its algorithm. Then its run lengths, quick and full (0: not run).
LINKS = (
    (SuiteScenario("10m", "10 Mb/s", 10e6, 10e6, 0.002, 1e9, 0.100), (50, 100, 150), 60, 120),
    (SuiteScenario("1g", "1 Gb/s", 1e9, 1e9, 0.002, 1e9, 0.100), (50, 100), 0, 20),
)


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    """The MIX sweeps of ``subject`` (camp B); with ALG's, the BASELINE sweeps (both standard)."""
    out = []
    runs = [(subject, role_of(alg, subject))]
    if subject is alg:
        runs.append((STANDARD, BASELINE_ROLE))
    for camp_b, role in runs:
        for index, (link, loads, quick_s, full_s) in enumerate(LINKS):
            duration = plan.seconds(quick_s, full_s)
            if duration <= 0:
                continue  # not in a quick run
            for load_pct in loads:
                half = load_pct / 200
                spec = {
                    "name": f"{NAME}-{link.name}-{load_pct}",
                    "duration": f"{duration:g}s",
                    "profile": "linux",
                    "topology": link.topology(),
                    "generators": generators(link, STANDARD.flow(), half, label="A ")
                    + generators(link, camp_b.flow(), half, label="B "),
                }
                name = f"{NAME}.{link.name}-{load_pct}.{role}"
                out.append(
                    TestSweep(
                        NAME,
                        camp_b,
                        role,
                        sweep_file(name, spec, plan, {}),
                        condition=f"{link.label}, {load_pct}%",
                        order=index * 1000 + load_pct,
                    )
                )
    return out


GAIN = Metric("gain G", "", NONNEGATIVE, "{:.3f}")
LOSS = Metric("loss L", "", NONNEGATIVE, "{:.3f}")
#: The raw numbers G and L are derived from: each camp's goodput in one run (not summarised).
_CAMP_GOODPUT = "_camp {} goodput"


def measure(run: Run) -> list[Measurement]:
    flows = run.results.flows
    duration_s = float(run.results.summary["duration_s"])
    condition, order = run.sweep.condition, run.sweep.order
    out = []
    for camp in ("A", "B"):
        acked = flows.loc[flows["label"].str.startswith(f"{camp} "), "bytes_acked"]
        goodput = float(acked.astype(float).sum()) * 8 / duration_s
        out.append(run.measurement(_CAMP_GOODPUT.format(camp), condition, goodput, order))
    return out


def derive(measurements: Sequence[Measurement], baselines: Sequence[str]) -> list[Measurement]:
    """G and L for ALG and each baseline, per condition and seed: its MIX run's camps over the
    BASELINE run's."""
    raw: dict[tuple[str, str, str, int], float] = {}
    orders: dict[str, float] = {}
    for m in measurements:
        if m.test == NAME and m.metric.startswith("_camp"):
            raw[(m.metric, m.role, m.condition, m.seed)] = m.value
            orders[m.condition] = m.order
    out = []
    for (metric, role, condition, seed), value in sorted(raw.items()):
        if role == BASELINE_ROLE or metric != _CAMP_GOODPUT.format("A"):
            continue
        for ratio, camp in ((GAIN, "B"), (LOSS, "A")):
            mix = raw.get((_CAMP_GOODPUT.format(camp), role, condition, seed), math.nan)
            base = raw.get((_CAMP_GOODPUT.format(camp), BASELINE_ROLE, condition, seed), math.nan)
            value = mix / base if base > 0 else math.nan
            out.append(
                Measurement(NAME, ratio.name, condition, role, seed, value, orders[condition])
            )
    return out


def readings(summary: Summary) -> list[str]:
    """At each link's highest load: ALG's G and L, and the baselines'."""
    parts = []
    for link, loads, _, _ in LINKS:
        condition = f"{link.label}, {loads[-1]}%"
        gain = summary.find(GAIN, condition)
        loss = summary.find(LOSS, condition)
        if not (gain and loss and gain.value.has_data and loss.value.has_data):
            continue
        parts.append(
            f"at {condition} load G = {GAIN.shown(gain.value)} and L = {LOSS.shown(loss.value)}"
            + _beside(gain, loss)
        )
    if not parts:
        return []
    return [
        f"Half the transfers running {summary.name} beside standard TCP's (Reno with SACK) "
        "on the suite's dumbbell, against all of them Reno (G: their goodput over Reno's in "
        "their place; L: the Reno camp's over its own; 1 is no change): " + "; ".join(parts) + "."
    ]


def _beside(gain: SummaryRow, loss: SummaryRow) -> str:
    others = [
        f"{g.baseline}: G {GAIN.fmt.format(g.value.mean)}, L {LOSS.fmt.format(lo.value.mean)}"
        for g, lo in zip(gain.comparisons, loss.comparisons, strict=True)
    ]
    return f" ({'; '.join(others)})" if others else ""


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    """The suite's plot of G against L (one point per algorithm and condition: the means over
    seeds), then G and L by condition."""
    import matplotlib.pyplot as plt

    if not drawing.measured(GAIN):
        return []
    frame = drawing.frame
    means = frame[frame["metric"].isin([GAIN.name, LOSS.name])].pivot_table(
        index=["role", "condition", "order"], columns="metric", values="value", aggfunc="mean"
    )
    figure, ax = plt.subplots(figsize=(6.5, 4.5))
    for role, label in drawing.roles:
        if role not in means.index.get_level_values("role"):
            continue
        chosen = means.loc[role].sort_index(level="order")
        ax.plot(chosen[LOSS.name], chosen[GAIN.name], marker="o", linestyle="", label=label)
        for (condition, _), row in chosen.iterrows():
            ax.annotate(condition, (row[LOSS.name], row[GAIN.name]), fontsize=7, alpha=0.7)
    ax.axhline(1.0, color="k", linestyle="--", linewidth=1)
    ax.axvline(1.0, color="k", linestyle="--", linewidth=1)
    ax.set_xlabel("loss L: standard TCP's goodput beside it over its own")
    ax.set_ylabel("gain G: its goodput over standard TCP's in its place")
    ax.grid(alpha=0.3)
    drawing.legend(ax)
    return [("standard-tcp-G-against-L", drawing.png(figure)), *drawing.bars([GAIN, LOSS], 1.0)]


TEST = Test(
    NAME,
    "Impact on standard TCP traffic: gain and loss",
    "Half the transfers on the suite's dumbbell (nine paths of 8-204 ms, both ways, 50% and "
    "100% offered load, and 150% on its 10 Mb/s link) run the algorithm, half standard TCP (Reno with SACK): how much more "
    "does the algorithm's half get than standard TCP got in its place (G), and how much of "
    "its own goodput does the standard half keep (L)?",
    "draft-irtf-iccrg-tcpeval-01, section 6.1 (impact on standard TCP traffic: paired MIX "
    "and BASELINE runs, G = T(B)_mix / T(B)_baseline, L = T(A)_mix / T(A)_baseline; its "
    "camps are copies of each other's transfers, ccsim's have their own draws)",
    sweeps,
    measure,
    (GAIN, LOSS),
    ("flows",),
    derive=derive,
    readings=readings,
    figures=figures,
)
