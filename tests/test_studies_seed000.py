"""Result tests for the seed-000 studies (Randomized TCP) at --quick scale: one per published
claim, asserting what our model shows robustly over seeds.

Where we reproduce the paper, the test asserts the paper's direction; where we do not, it
asserts our measured direction, with the reason. Every bound comes from the spread of the quick
results over seeds 1-4 (each seed run alone, ``Settings(quick=True, replicates=1,
first_seed=k)``), recorded next to it; none was widened to make a test pass. The quoted numbers
were re-measured after the engine's change of tie order (events at the same instant run by kind,
then in an order shuffled per instant); one bound no longer covers every seed: R10's at 200
packets (seeds 3 and 4), said next to it. R5, R6, R9 and R12 are tested in tests/test_studies.py
(their quick runs serve the command tests too).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from ccsim.studies import core, seed000
from ccsim.studies.core import Settings, run_study, value
from conftest import requires_engine

QUICK = Settings(quick=True)


def _have(*names: str) -> bool:
    registry = core.available_algorithms() or set()
    return all(name in registry for name in names)


needs_paper_algorithms = pytest.mark.skipif(
    not _have("reno", "paced", "randomized"), reason="engine lacks paced/randomized"
)


def _run(study: core.Study, out: Path) -> core.StudyReport:
    return run_study(study, QUICK, out, workers=1)


def _wide(table: pd.DataFrame, metric: str, key: str) -> pd.DataFrame:
    rows = table[(table["metric"] == metric) & (table["runs"] > 0)]
    return rows.pivot_table(index=key, columns="tcp", values="ours")


@requires_engine
@needs_paper_algorithms
def test_r1_quick_losses_rise_with_the_interval(tmp_path: Path) -> None:
    """R1 (not reproduced): the paper finds I = 1 best. In our model, with the paper's increase
    scaling (RTT_eff/R)^2, which grows with I, loss at I = 1 is above loss at I = 0 in every
    curve (docs/studies/randomized-tcp.md, R1: the scaling over-compensates).

    Measured loss(I=1)/loss(I=0), seeds 1-4: 1 Mb/s (6-packet buffer) 1.019, 1.096, 1.022, 1.033;
    4 Mb/s 25 packets 1.135, 1.105, 1.099, 1.082; RTT 80-120 ms 1.099, 1.085, 1.103, 1.085 (the
    alpha = 1 diagnostic at 1 Mb/s: 0.963, 1.019, 1.002, 0.897, so it is not asserted).
    """
    report = _run(seed000.R1, tmp_path)
    table = report.table
    loss = table[table["metric"] == "loss rate"]
    for case in loss["case"].unique():
        curve = loss[loss["case"] == case].set_index("I")["ours"]
        assert set(curve.index) == {0.0, 0.5, 1.0}, case
        if "(diag)" in case:
            continue
        assert curve[1.0] > curve[0.0], case
    assert report.verdict(0) != core.REPRODUCED


@requires_engine
@needs_paper_algorithms
def test_r2_quick_randomized_loses_most(tmp_path: Path) -> None:
    """R2 claim 2 (reversed): the paper has Paced losing most and Randomized best at large N.
    Ours: Randomized has the highest loss rate at N = 30 (its scaled increase, R2's diagnostic)
    and Reno the lowest; Randomized also gets the least throughput (claim 1, not reproduced).

    Measured at N = 30, seeds 1-4: loss rate Reno 0.057, 0.059, 0.054, 0.057; Paced 0.066,
    0.067, 0.066, 0.065; Randomized 0.075, 0.069, 0.075, 0.071; throughput Mb/s Reno
    3.481-3.506, Randomized 3.173-3.197.
    """
    report = _run(seed000.R2, tmp_path)
    loss = _wide(report.table, "loss rate", "N")
    throughput = _wide(report.table, "throughput Mb/s", "N")
    at30 = loss.loc[30]
    assert at30["Randomized"] > at30["Paced"] > at30["Reno"]
    assert throughput.loc[30, "Reno"] > throughput.loc[30, "Randomized"]
    assert report.verdict(1) == core.REVERSED


@requires_engine
@needs_paper_algorithms
def test_r3_quick_rtt_fairness_order(tmp_path: Path) -> None:
    """R3 (partly): the paper's order holds, Randomized most RTT-fair, Reno least, Paced
    between (but more than 0.05 below Randomized at every seed, so not "close").

    Measured RTT-weighted Jain at N = 10, seeds 1-4: Reno 0.570, 0.556, 0.662, 0.337; Paced
    0.856, 0.919, 0.881, 0.847; Randomized 0.973, 0.980, 0.975, 0.973.
    """
    report = _run(seed000.R3, tmp_path)
    jain = _wide(report.table, "RTT-weighted Jain", "N").loc[10]
    assert jain["Randomized"] > 0.95
    assert jain["Randomized"] > jain["Paced"] > jain["Reno"] + 0.1
    assert jain["Reno"] < 0.8


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> dict[str, core.StudyReport]:
    """R4 and R10 share their sweeps: R10 run into R4's directory re-analyses R4's runs."""
    out = tmp_path_factory.mktemp("web")
    r4 = run_study(seed000.R4, QUICK, out, workers=1)
    r10 = run_study(seed000.R10, QUICK, out, workers=1)
    return {"R4": r4, "R10": r10}


@requires_engine
@needs_paper_algorithms
def test_a_study_reports_its_runs_the_reused_ones_and_its_wall_time(
    web: dict[str, core.StudyReport],
) -> None:
    """R10 re-analyses R4's runs: all of them are reused, none of R4's were; the summary line
    says so, with the wall time and the workers."""
    r4, r10 = web["R4"], web["R10"]
    assert r4.runs > 0 and r4.reused == 0
    assert r10.runs > 0 and r10.reused == r10.runs
    assert r4.elapsed_s > 0 and r10.elapsed_s > 0
    line = core.timing_line(r10)
    assert line.startswith(f"R10: {r10.runs} runs ({r10.runs} reused) in ")
    assert line.endswith("min on 1 worker")


@requires_engine
@needs_paper_algorithms
def test_r4_quick_reno_fastest_and_unfinished_counted(
    web: dict[str, core.StudyReport],
) -> None:
    """R4 (partly): Reno is fastest at 10 and 200 packets, as published; Randomized, not
    Paced, is slowest. Transfers still running at the end are counted, not dropped.

    Measured mean latency (s), seeds 1-4 (Reno and Paced draw nothing random here, so only
    Randomized varies): 10 packets Reno 0.328, Paced 0.382, Randomized 0.400-0.402; 200
    packets Reno 5.969, Paced 6.345, Randomized 6.834-7.095. Unfinished in the default quick
    run (seed 1): 25 (one per slot) for every algorithm and size.
    """
    table = web["R4"].table
    latency = _wide(table, "mean latency s", "packets")
    for packets in (10, 200):
        row = latency.loc[packets]
        assert row["Reno"] < row["Paced"] and row["Reno"] < row["Randomized"], packets
    unfinished = _wide(table, "unfinished", "packets")
    # 25 closed-loop slots: at most one transfer per slot is cut off by the end of the run.
    assert ((unfinished >= 1) & (unfinished <= 25)).all().all()
    bound = _wide(table, "mean latency s, unfinished at run end (lower bound)", "packets")
    assert (bound.loc[200] > 0).all()


@requires_engine
@needs_paper_algorithms
def test_r10_quick_slot_correlation(web: dict[str, core.StudyReport]) -> None:
    """R10 (not reproduced): the paper has Randomized's slot correlation below Paced's at every
    size. Ours is far below Paced's at 10 packets, as published. At 200 packets every
    correlation is small (a slot's window restarts with every transfer), but Randomized's is
    above Paced's in every seed, and in seeds 3 and 4 it is above 0.1.

    Measured mean slot correlation, seeds 1-4 (Reno and Paced draw nothing random here, so only
    Randomized varies): 10 packets Paced 0.413, Randomized 0.019, 0.063, 0.030, 0.028 (Reno
    0.384); 200 packets Paced 0.041, Randomized 0.083, 0.080, 0.103, 0.108 (Reno 0.054).
    """
    table = web["R10"].table
    corr = _wide(table, "cwnd correlation", "packets")
    assert corr.loc[10, "Randomized"] < corr.loc[10, "Paced"] - 0.25
    # "Small" against the 0.38-0.41 of Reno and Paced at 10 packets, with a bound every seed
    # meets (seeds 1-4 reach 0.108); and the direction the paper's claim fails in.
    assert (corr.loc[200].abs() < 0.15).all()
    assert corr.loc[200, "Randomized"] > corr.loc[200, "Paced"]


@requires_engine
@needs_paper_algorithms
def test_r7_quick_phase_effect_against_the_short_flows(tmp_path: Path) -> None:
    """R7 (reversed; not reproduced): Table IV's ten Reno flows favour the 60 ms flows (short/long
    1.88). Ours lock the short flows out instead (which flow loses depends on the exact packet
    timing at the queue, see R6), all Randomized brings the ratio near 1/RTT's 1.33, and one
    randomized flow barely moves it.

    Measured short/long, seeds 1-4: all Reno 0.192, 0.254, 0.226, 0.236; all Randomized 1.188,
    1.139, 1.303, 1.092; one long Randomized 0.326, 0.350, 0.254, 0.292; one short Randomized
    0.274, 0.200, 0.259, 0.193 (distance from 1.33 at least 0.88 of all Reno's).
    """
    report = _run(seed000.R7, tmp_path)
    table = report.table
    ratio = {
        c: value(table, "short/long", config=c)
        for c in (
            "all Reno",
            "all Randomized",
            "1 long Randomized",
            "1 short Randomized",
        )
    }
    assert ratio["all Reno"] < 0.4
    assert abs(ratio["all Randomized"] - seed000.R7_IDEAL) < 0.3
    reno = seed000.R7_IDEAL - ratio["all Reno"]
    for config in ("1 long Randomized", "1 short Randomized"):
        assert seed000.R7_IDEAL - ratio[config] > 0.8 * reno, config
    assert report.verdict(0) == core.REVERSED
    assert report.verdict(1) == core.NOT_REPRODUCED


@requires_engine
@needs_paper_algorithms
def test_r8_quick_randomizing_the_short_flows_helps_the_long_ones(
    tmp_path: Path,
) -> None:
    """R8 (partly): randomizing the short flows helps the long ones far more than randomizing
    the long ones, as published. All Randomized does not remove the bias (long/short stays well
    below 1; Reno/Reno swings too much between seeds to compare with).

    Measured long/short, seeds 1-4: Reno/Reno 0.056, 0.594, 0.236, 0.756; Random/Random 0.340,
    0.253, 0.266, 0.265; Reno long + Random short 0.710, 0.305, 0.584, 0.375; Random long + Reno
    short 0.085, 0.113, 0.087, 0.089.
    """
    report = _run(seed000.R8, tmp_path)
    table = report.table
    short_r = value(table, "long/short", config="Reno long + Random short")
    long_r = value(table, "long/short", config="Random long + Reno short")
    assert short_r > long_r + 0.15
    assert long_r < 0.2
    assert value(table, "long/short", config="Random/Random") < 0.45
    assert report.verdicts[0].checks[1].outcome == core.HELD


@requires_engine
@needs_paper_algorithms
def test_r11_quick_randomized_has_more_burst_losses(tmp_path: Path) -> None:
    """R11 (reversed): the paper has Reno with several times Randomized's burst losses. Ours has
    more with Randomized at every point: a timer-driven sender keeps sending into a full queue
    for an RTT and loses consecutive slots (docs, "Why R11 does not reproduce").

    Measured burst losses at 1 Mb/s, seeds 1-4: N = 20 Reno 106, 102, 104, 116 / Randomized
    140, 141, 131, 137; N = 30 Reno 172, 163, 160, 169 / Randomized 224, 204, 226, 211
    (Randomized/Reno 1.18-1.41).
    """
    report = _run(seed000.R11, tmp_path)
    bursts = _wide(report.table, "burst losses", "flows")
    assert list(bursts.index) == [20, 30]
    assert (bursts["Randomized"] > 1.1 * bursts["Reno"]).all()
    assert report.verdict(0) == core.REVERSED


@requires_engine
@needs_paper_algorithms
def test_r13_quick_no_spike_and_multiple_bottleneck_lockout(tmp_path: Path) -> None:
    """R13 claim 1 (not reproduced): no Floyd-Jacobson spike with Reno, source 2's drop share
    stays between about 0.25 and 0.5 at every ratio. Claim 2 (reproduced): on two bottlenecks
    source 3 takes most of bottleneck 2's losses with Reno, far fewer with Randomized.

    Measured, seeds 1-4: Reno source 2 drop share max 0.500, 0.481, 0.483, 0.500, min 0.256,
    0.281, 0.300, 0.257; source 3's share at bottleneck 2 (mean over ratios) Reno 0.914,
    0.915, 0.955, 0.909, Randomized 0.543, 0.521, 0.533, 0.526.
    """
    report = _run(seed000.R13, tmp_path)
    table = report.table
    share = table[(table["metric"] == "source 2 drop share") & (table["tcp"] == "Reno")]
    assert sorted(share["ratio"]) == [1.0, 1.5, 1.9, 2.0, 2.2]
    assert share["ours"].max() < 0.55 and share["ours"].min() > 0.2
    multi = table[table["metric"] == "multi: source 3 drop share at bottleneck 2"]
    reno = multi[multi["tcp"] == "Reno"]["ours"].mean()
    rand = multi[multi["tcp"] == "Randomized"]["ours"].mean()
    assert reno > 0.85
    assert rand < reno - 0.3
    assert report.verdict(0) == core.NOT_REPRODUCED
    assert report.verdict(1) == core.REPRODUCED


# ---- the direction of each criterion, on hand-made tables ---------------------------------------


def _table(rows: list[dict[str, object]], keys: list[str]) -> pd.DataFrame:
    return core.summarise(rows, keys)


def test_r6_lockout_of_the_short_flow_is_reversed_not_reproduced() -> None:
    rows = [
        {"rate": rate, "config": "Reno/Reno", "metric": "short share", "value": share}
        for rate, share in (("2Mbps", 0.85), ("3Mbps", 0.15))
    ]
    checks = seed000._r6_phase(_table(rows, ["rate", "config"]))
    assert [c.outcome for c in checks] == [core.HELD, core.REVERSED]
    assert core.grade(checks) == core.PARTLY
    rows[0]["value"] = 0.2
    assert core.grade(seed000._r6_phase(_table(rows, ["rate", "config"]))) == core.REVERSED


def test_r9_negative_randomized_is_reversed_and_fig10_reads_pairs() -> None:
    published = {
        ("2 flows 3Mbps", tcp, "(0,1)"): v
        for tcp, v in (("Reno", 0.43), ("Paced", -0.41), ("Randomized", 0.17))
    }
    rows = [
        {"case": "2 flows 3Mbps", "tcp": tcp, "metric": m, "value": v}
        for tcp, v in (("Reno", 0.9), ("Paced", -0.2), ("Randomized", -0.19))
        for m in ("(0,1)", "mean pair")
    ]
    table = core.summarise(rows, ["case", "tcp"], published)
    assert seed000._r9_randomized(table)[0].outcome == core.REVERSED
    table.loc[(table["tcp"] == "Randomized") & (table["metric"] == "(0,1)"), "ours"] = 0.1
    assert seed000._r9_randomized(table)[0].outcome == core.HELD
    assert core.grade(seed000._r9_many(table)) == core.NOT_RUN  # no 10/25-flow rows


def test_r12_reno_beating_iiad_is_reversed() -> None:
    rows = [
        {"config": f"{s} vs Reno", "metric": m, "value": v}
        for s, b, t in (("IIAD", 300.0, 600.0), ("SQRT", 520.0, 400.0))
        for m, v in (("binomial Kbps", b), ("TCP Kbps", t))
    ]
    checks = seed000._r12_beat_down(_table(rows, ["config"]))
    assert [c.outcome for c in checks] == [core.REVERSED, core.HELD]


def test_r11_more_bursts_with_randomized_is_reversed() -> None:
    rows = [
        {"rate": "1Mbps", "flows": n, "tcp": tcp, "metric": "burst losses", "value": v}
        for n, reno, rand in ((20, 100.0, 140.0), (30, 160.0, 220.0))
        for tcp, v in (("Reno", reno), ("Randomized", rand))
    ]
    checks = seed000._r11_claims(_table(rows, ["rate", "flows", "tcp"]))
    assert [c.outcome for c in checks] == [core.FAILED, core.REVERSED]
    assert core.grade(checks) == core.REVERSED
