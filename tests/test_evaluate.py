"""``ccsim evaluate``: the report card, Python algorithms, resuming, pairing by seed, bad input.

The battery runs at a tenth of its quick run length (``battery.TIME_SCALE``) with one baseline,
so that the whole file stays within CI's budget.
"""

from __future__ import annotations

import base64
import csv
import json
import tomllib
from pathlib import Path

import pytest
from conftest import EXAMPLES, requires_engine

pytestmark = requires_engine


@pytest.fixture(scope="module")
def short_runs() -> object:
    from ccsim.evaluate import battery

    saved = battery.TIME_SCALE
    battery.TIME_SCALE = 0.1
    yield battery
    battery.TIME_SCALE = saved


@pytest.fixture(scope="module")
def cubic(tmp_path_factory: pytest.TempPathFactory, short_runs: object) -> object:
    from ccsim.evaluate import evaluate

    out = tmp_path_factory.mktemp("evaluate") / "cubic"
    return evaluate("cubic", against=["reno"], quick=True, out=out, workers=2, command="x")


def test_report_card_holds_the_summary(cubic) -> None:
    from ccsim.evaluate import BATTERY_VERSION, TESTS

    assert not cubic.failures
    html = (cubic.directory / "report.html").read_text()
    assert f"v{BATTERY_VERSION}" in html
    assert 'data-table="summary"' in html
    # One per test, two for intra-fairness (goodput against RTT, Jain's index),
    # inter-protocol (share, harm), rate-step, basic-scenarios (each direction) and
    # standard-tcp (G against L, and each).
    assert html.count("data:image/png") == 17
    for test in TESTS:
        assert f'id="{test}"' in html
    assert "fills" in html and "Mathis" in html and "against reno" in html
    assert "DualPI2, against reno" in html and "cubic to reno DropTail 1 BDP" in html
    assert "Web-like transfers beside one long cubic flow" in html
    assert "of the GEO satellite path at a mean RTT of" in html
    assert "On the suite's GEO satellite scenario at 85% offered load" in html
    assert "Half the transfers running cubic beside standard TCP's" in html
    assert "Across three 100 Mb/s bottlenecks a cubic flow gets" in html
    assert "At 85% offered load on the suite's access link, cubic's transfers use" in html
    text = (cubic.directory / "summary.csv").read_text()
    rows = list(csv.DictReader(text.splitlines()))
    assert {r["test"] for r in rows} == set(TESTS)
    assert {r["battery_version"] for r in rows} == {BATTERY_VERSION}
    for row in rows:
        if row["role"] == "baseline":
            assert row["algorithm"] == "reno" and row["difference"] != ""
        # At a tenth of the run length (2 s) a size class of short transfers may be empty in a
        # seed, and the three-hop flow of the parking lot may have had nothing acknowledged yet.
        assert row["n"] == "3" or (
            row["test"] in ("short-flows", "multi-bottleneck") and row["n"] in "12"
        )
    # Each test's sweep file is written and runs as it stands.
    from ccsim.sweeps import Sweep

    files = sorted((cubic.directory / "scenarios").glob("*.toml"))
    assert len(files) == len(cubic.sweeps)
    for path in files:
        Sweep.load(path)


def test_pairs_by_seed(cubic) -> None:
    frame = cubic.measurements_frame()
    for (test, _, _), group in frame.groupby(["test", "metric", "condition"]):
        seeds = {role: set(g["seed"]) for role, g in group.groupby("role")}
        # Every role sees the same transfer sizes, so a size class is empty in the same seeds.
        assert seeds["alg"] == {1, 2, 3} or test == "short-flows"
        assert all(s == seeds["alg"] for s in seeds.values())
    # ALG's and the baseline's sweeps differ in the algorithm only: same seeds, same flows.
    by_name = {s.name: s.sweep for s in cubic.sweeps}
    for name, sweep in by_name.items():
        if not name.endswith(".alg"):
            continue
        other = by_name[name.removesuffix(".alg") + ".reno"]
        assert other["seeds"] == sweep["seeds"] and other["axes"] == sweep["axes"]
        for key in ("flows", "generators"):
            mine = [
                {k: v for k, v in f.items() if k != "cc"} for f in sweep["scenario"].get(key, [])
            ]
            assert mine == [
                {k: v for k, v in f.items() if k != "cc"} for f in other["scenario"].get(key, [])
            ]
            assert mine or key == "generators" or name.startswith(("basic-", "standard-", "delay-"))


def test_python_algorithm_evaluates(tmp_path: Path, short_runs: object) -> None:
    from ccsim.evaluate import evaluate

    path = EXAMPLES / "python_cc" / "reno.py"
    # Without baselines (ALG's runs alone), and one test: two flows.
    result = evaluate(
        f"{path}:Reno", against=[], quick=True, out=tmp_path, workers=1, tests=["convergence"]
    )
    assert not result.failures
    assert result.alg.cc == "reno:Reno"
    scenario = tomllib.loads((tmp_path / "scenarios" / "convergence.alg.toml").read_text())
    assert scenario["scenario"]["flows"][0]["cc"] == "reno:Reno"
    assert (tmp_path / "report.html").is_file()
    assert {r.test for r in result.summary} == {"convergence"}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["nosuch"], 'unknown algorithm "nosuch"'),
        (["cubic", "--params", "foo=1"], 'cubic has no parameter "foo"'),
        (["cubic", "--params", "beta"], '--params "beta": expected NAME=VALUE'),
        (["cubic", "--against", "reno,nosuch"], 'unknown algorithm "nosuch"'),
        (["missing.py:Cls"], "no such file missing.py"),
        (["cubic", "--tests", "paths,nosuch"], "no test 'nosuch' in the battery"),
        (["cubic", "--cellular-trace", "nosuch.down"], "--cellular-trace nosuch.down: no such"),
        (["cubic", "--tests", "paths", "--cellular-trace", "bad.down"], "is not a whole number"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    args: list[str], fragment: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from ccsim.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.down").write_text("10\nnot a time\n")
    with pytest.raises(SystemExit) as caught:
        main(["evaluate", *args, "--quick", "--out", "out"])
    assert caught.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert fragment in lines[0]
    assert "Traceback" not in captured.err + captured.out
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "results").exists()


def test_command_prints_the_summary(cubic, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from ccsim.cli import main

    # The command on the directory the fixture filled (in this process, so with its short
    # runs): a rerun, which runs nothing and finds the same numbers.
    summary = (cubic.directory / "summary.csv").read_text()
    drawn = (cubic.directory / "figures" / "single-flow.png").stat().st_mtime_ns
    monkeypatch.chdir(cubic.directory)
    args = ["evaluate", "cubic", "--against", "reno", "--quick", "--out", ".", "--format", "csv"]
    with pytest.raises(SystemExit) as caught:
        main(args)
    assert caught.value.code == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert header[:4] == ["test", "metric", "condition", "alg"]
    assert "minus_reno" in header
    record = json.loads((cubic.directory / "evaluate.json").read_text())
    assert record["ran"] == 0 and record["runs"] == cubic.runs
    assert (cubic.directory / "summary.csv").read_text() == summary
    # Nothing changed, so the figures were not drawn again: the card shows the same files.
    assert (cubic.directory / "figures" / "single-flow.png").stat().st_mtime_ns == drawn
    figures = json.loads((cubic.directory / "figures" / "figures.json").read_text())
    assert sum(len(names) for names in figures["figures"].values()) == 17
    html = (cubic.directory / "report.html").read_text()
    png = (cubic.directory / "figures" / "single-flow.png").read_bytes()
    assert base64.b64encode(png).decode("ascii") in html


def test_dask_scheduler_gives_the_same_numbers(cubic, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from ccsim.evaluate import evaluate

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        # ALG alone (no baselines), one test: its runs are the fixture's runs, made elsewhere.
        result = evaluate(
            "cubic",
            against=[],
            quick=True,
            out=tmp_path,
            scheduler=cluster.scheduler_address,
            tests=["convergence"],
        )
    assert not result.failures and result.ran == result.runs
    local = {(r.test, r.metric, r.condition): r.value.values for r in cubic.summary}
    for row in result.summary:
        assert row.value.values == local[(row.test, row.metric, row.condition)]


def test_algorithm_and_params_as_given() -> None:
    from ccsim.evaluate import parse_algorithm, parse_params

    params = parse_params(["beta=0.8", "fast_convergence=false", "hystart=true"])
    assert params == {"beta": 0.8, "fast_convergence": False, "hystart": True}
    alg, directory = parse_algorithm("cubic", params)
    assert (alg.cc, directory) == ("cubic", None)
    assert alg.name == "cubic(beta=0.8,fast_convergence=false,hystart=true)"
    alg, directory = parse_algorithm(str(EXAMPLES / "python_cc" / "reno.py") + ":Reno")
    assert (alg.name, alg.cc, directory) == ("Reno", "reno:Reno", EXAMPLES / "python_cc")


def test_each_test_measures_the_metrics_it_declares(cubic) -> None:
    from ccsim.evaluate import TESTS

    for m in cubic.measurements:
        if not m.metric.startswith("_"):  # raw numbers, for harm
            assert m.metric in [metric.name for metric in TESTS[m.test].metrics], m


@pytest.mark.parametrize(
    ("differences", "reading"),
    [
        ((0.0, 0.0, 0.0), "same as cubic"),  # identical runs
        ((-0.01, -0.02, -0.015), "same as cubic"),  # certain, but below the table's precision
        ((-5.0, 5.0, 0.0), "no clear difference from cubic"),  # mean 0, wide interval
        ((3.0, 3.2, 2.9), "above cubic"),
        ((-3.0, -3.2, -2.9), "below cubic"),
        ((1.0, 2.0), "too few seeds to compare with cubic"),
    ],
)
def test_reading_of_a_paired_difference(differences: tuple[float, ...], reading: str) -> None:
    from ccsim.evaluate.analysis import SummaryRow
    from ccsim.evaluate.card import _against
    from ccsim.studies.evidence import Quantity

    row = SummaryRow("single-flow", "utilization", "buffer 1 BDP", 1.0, Quantity(), (), "%")
    difference = Quantity(dict(enumerate(differences, start=1)))
    assert _against(row, difference, "cubic") == reading


def test_unknown_test_is_refused(tmp_path: Path) -> None:
    from ccsim.errors import ScenarioError
    from ccsim.evaluate import evaluate

    with pytest.raises(ScenarioError, match="no test 'nosuch' in the battery"):
        evaluate("cubic", quick=True, out=tmp_path / "out", tests=["nosuch"])
    assert not (tmp_path / "out").exists()


def test_convergence_time_from_windows() -> None:
    import numpy as np
    import pandas as pd
    from ccsim.evaluate.battery.convergence import convergence_time

    # Two flows sampled every 10 ms from a join at 10 s to 30 s: the second gets a tenth of the
    # first's rate until 14 s, then as much. Jain's index over a 1 s window is 0.88 with 0.6 s
    # of the unfair part in it (from 13.4 s), 0.92 with 0.5 s (from 13.5 s), and more after.
    t = np.round(np.arange(10.01, 30.0001, 0.01), 2)
    second = np.where(t <= 14.0, 1e6, 10e6)
    frame = pd.DataFrame(
        {
            "t_s": np.concatenate([t, t]),
            "flow": [0] * len(t) + [1] * len(t),
            "rate_bps": np.concatenate([np.full(len(t), 10e6), second]),
        }
    )
    assert convergence_time(frame, 10.0, 30.0) == pytest.approx(3.5)
    # Never fair: the whole span to the last window's start, a lower bound.
    frame.loc[frame["flow"] == 1, "rate_bps"] = 1e6
    assert convergence_time(frame, 10.0, 30.0) == pytest.approx(19.0)


def test_rtt_exponent() -> None:
    from ccsim.evaluate.battery.intra_fairness import rtt_exponent

    rtts = [10, 50, 100, 200]
    assert rtt_exponent(rtts, [1e6 * 100 / r for r in rtts]) == pytest.approx(-1.0)
    assert rtt_exponent(rtts, [5e6] * 4) == pytest.approx(0.0, abs=1e-12)


def test_harm_in_both_directions() -> None:
    from ccsim.evaluate.battery import Measurement
    from ccsim.evaluate.battery.inter_protocol import derive_harm

    def raw(metric: str, role: str, opponent: str, value: float) -> Measurement:
        return Measurement("inter-protocol", metric, f"droptail vs {opponent}", role, 1, value)

    measurements = [
        # reno against reno: 20 Mb/s at 60 ms; against ALG: 10 Mb/s at 80 ms.
        raw("_opponent goodput", "reno", "reno", 20e6),
        raw("_opponent RTT", "reno", "reno", 0.060),
        raw("_opponent goodput", "alg", "reno", 10e6),
        raw("_opponent RTT", "alg", "reno", 0.080),
        # ALG against itself: 25 Mb/s at 50 ms; against reno: 30 Mb/s at 80 ms.
        raw("_subject goodput", "alg", "alg", 25e6),
        raw("_subject RTT", "alg", "alg", 0.050),
        raw("_subject goodput", "alg", "reno", 30e6),
        raw("_subject RTT", "alg", "reno", 0.080),
    ]
    harm = {(m.metric, m.condition): m.value for m in derive_harm(measurements, ["reno"])}
    assert harm == pytest.approx(
        {
            ("throughput harm", "DropTail 1 BDP, to reno"): 50.0,  # (20 - 10) / 20
            ("delay harm", "DropTail 1 BDP, to reno"): 25.0,  # (80 - 60) / 80
            ("throughput harm", "DropTail 1 BDP, from reno"): -20.0,  # (25 - 30) / 25: a gain
            ("delay harm", "DropTail 1 BDP, from reno"): 37.5,  # (80 - 50) / 80
        }
    )


def test_basic_scenarios_render_the_suite() -> None:
    from ccsim.evaluate.battery import Algorithm, Plan, basic_scenarios, suite

    # draft-irtf-iccrg-tcpeval-01, Table 1: the nine paths' base RTTs without the central link,
    # in ms; the access link's central link adds 2 x 2 ms.
    table_1 = [4, 74, 150, 28, 98, 174, 54, 124, 200]
    assert sorted(round(r * 1e3, 6) for r in suite.ACCESS_LINK.rtts_s()) == sorted(
        t + 4 for t in table_1
    )
    assert suite.ACCESS_LINK.median_rtt_s == pytest.approx(0.102)
    # The satellite link: 100 ms of its 40 Mb/s down is 1000 ms of its 4 Mb/s up.
    geo = suite.GEO_SATELLITE.topology()
    assert geo["buffer"] == "334pkts"
    assert geo["reverse_rate_schedule"] == [["0s", "4e+06bps"]]
    assert "reverse_rate_schedule" not in suite.TRANS_OCEANIC.topology()

    alg = Algorithm("x", "cubic", {"beta": 0.8})
    sweeps = basic_scenarios.sweeps(alg, alg, [], Plan(quick=False, seeds=(1, 2)))
    assert len(sweeps) == 4 * 3
    for sweep in sweeps:
        scenario = sweep.sweep["scenario"]
        link = next(s for s, _, _ in basic_scenarios.SCENARIOS if s.label in sweep.condition)
        load = int(sweep.condition.rpartition(", ")[2].rstrip("%")) / 100
        offered = {False: 0.0, True: 0.0}
        rtts = {False: set(), True: set()}
        for generator in scenario["generators"]:
            assert generator["cc"] == "cubic" and generator["params"] == {"beta": 0.8}
            reverse = generator.get("reverse", False)
            mss = generator["mss"]
            # Offered bits per second, headers included.
            offered[reverse] += generator["rate"] * 100_000 * (mss + 52) / mss * 8
            rtts[reverse].add(generator["rtt_choices"][0])
        assert offered[False] == pytest.approx(load * link.rate_bps, rel=1e-4)
        assert offered[True] == pytest.approx(0.25 * offered[False], rel=1e-4)
        assert len(rtts[False]) == len(rtts[True]) == len(set(link.rtts_s()))
        assert len(scenario["generators"]) == 2 * 9 * 2  # both ways, nine paths, two sizes


def test_basic_scenarios_carry_what_is_offered() -> None:
    """Below capacity the central link carries the offered load (every transfer finishes); at
    110% it is full and drops."""
    from ccsim import run
    from ccsim.evaluate.battery import Algorithm, Plan, basic_scenarios
    from ccsim.scenario import Scenario

    alg = Algorithm("cubic", "cubic")
    sweeps = {
        s.condition: s.sweep["scenario"]
        for s in basic_scenarios.sweeps(alg, alg, [], Plan(quick=False, seeds=(1,)))
    }
    measured = {}
    for load in (60, 110):
        spec = dict(sweeps[f"access link, {load}%"], duration="20s", seed=3)
        links = run(Scenario.model_validate(spec)).links
        forward = links[(links["src"] == "R1") & (links["dst"] == "R2")].iloc[0]
        measured[load] = (forward["utilization"], forward["drops"] / forward["arrivals"])
    # The offered 60% is Poisson arrivals of heavy-tailed sizes: over 20 s, within a tenth.
    assert measured[60][0] == pytest.approx(0.60, abs=0.1)
    assert measured[110][0] > 0.9 and measured[110][1] > measured[60][1]
    assert measured[110][1] > 0


def test_paths_take_a_recorded_cellular_trace(tmp_path: Path) -> None:
    from ccsim.evaluate.battery import Algorithm, Plan, paths

    alg = Algorithm("cubic", "cubic")

    def cellular(plan: Plan) -> tuple[str, dict[str, object]]:
        sweep = next(s for s in paths.sweeps(alg, alg, [], plan) if s.name.startswith("paths.cel"))
        return sweep.condition, sweep.sweep["scenario"]["topology"]

    condition, topology = cellular(Plan(quick=True, seeds=(1,)))
    assert condition == "cellular trace, 40 ms"
    assert topology["trace"] == str(paths.SYNTHETIC_CELLULAR)
    assert topology["reverse_trace"] == str(paths.SYNTHETIC_CELLULAR.with_suffix(".up"))
    # A recorded trace: its .up twin carries the ACKs when it is there.
    down = tmp_path / "Operator-LTE.down"
    down.write_text("1\n2\n")
    condition, topology = cellular(Plan(quick=True, seeds=(1,), cellular_trace=down))
    assert condition == "cellular trace Operator-LTE, 40 ms"
    assert topology["trace"] == str(down) and "reverse_trace" not in topology
    down.with_suffix(".up").write_text("1\n")
    assert cellular(Plan(quick=True, seeds=(1,), cellular_trace=down))[1]["reverse_trace"] == str(
        down.with_suffix(".up")
    )


def test_help_names_every_test(capsys) -> None:
    from ccsim.cli import main
    from ccsim.evaluate import TESTS

    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in TESTS:
        assert name in text, name


def test_ramp_up_times_from_samples() -> None:
    import pandas as pd
    from ccsim.evaluate.battery.convergence import ramp_up_times

    # Joined at 10 s, sampled every 10 ms for 5 s at 12 Mb/s: 15,000 bytes a sample.
    t = [round(10 + 0.01 * k, 2) for k in range(1, 501)]
    series = pd.DataFrame({"t_s": t, "rate_bps": [12e6] * len(t)})
    assert ramp_up_times(series, 10.0) == pytest.approx([0.01, 0.1, 1.0, 5.0])  # 15 MB: never


def test_gain_and_loss_against_standard_tcp() -> None:
    from ccsim.evaluate.battery import Algorithm, Measurement, Plan, standard_tcp

    alg = Algorithm("bbr", "bbr")
    sweeps = standard_tcp.sweeps(alg, alg, [], Plan(quick=True, seeds=(1,)))
    by_role: dict[str, dict[str, dict[str, object]]] = {}
    for s in sweeps:
        by_role.setdefault(s.role, {})[s.condition] = s.sweep["scenario"]
    assert set(by_role) == {"alg", "standard"}
    for condition, mix in by_role["alg"].items():
        base = by_role["standard"][condition]
        camp_a = [g for g in mix["generators"] if g["label"].startswith("A ")]
        # Camp A is the same in both runs; camp B differs in its algorithm only.
        assert camp_a == [g for g in base["generators"] if g["label"].startswith("A ")]
        assert {g["cc"] for g in camp_a} == {"reno"}
        camp_b = [g for g in mix["generators"] if g["label"].startswith("B ")]
        assert {g["cc"] for g in camp_b} == {"bbr"}
        assert [{**g, "cc": "reno"} for g in camp_b] == [
            g for g in base["generators"] if g["label"].startswith("B ")
        ]

    # G and L from the camps' goodputs: MIX over BASELINE, per role and seed.
    def raw(camp: str, role: str, value: float) -> Measurement:
        return Measurement("standard-tcp", f"_camp {camp} goodput", "10 Mb/s, 100%", role, 1, value)

    derived = standard_tcp.derive(
        [
            raw("A", "standard", 4e6),
            raw("B", "standard", 5e6),
            raw("A", "alg", 3e6),
            raw("B", "alg", 6e6),
        ],
        [],
    )
    assert {(m.metric, m.role): m.value for m in derived} == pytest.approx(
        {("gain G", "alg"): 1.2, ("loss L", "alg"): 0.75}
    )


def test_an_aggressive_algorithm_takes_from_standard_tcp_in_overload() -> None:
    """BBR beside Reno's transfers at 150% load on the 10 Mb/s link: its camp gains, Reno's
    loses (measured: G 1.14, L 0.81 over 60 s)."""
    from ccsim import run
    from ccsim.evaluate.battery import Algorithm, Plan, standard_tcp
    from ccsim.scenario import Scenario

    alg = Algorithm("bbr", "bbr")
    goodput = {}
    for s in standard_tcp.sweeps(alg, alg, [], Plan(quick=True, seeds=(1,))):
        if s.condition == "10 Mb/s, 150%":
            flows = run(Scenario.model_validate(dict(s.sweep["scenario"], seed=1))).flows
            for camp in "AB":
                chosen = flows["label"].str.startswith(f"{camp} ")
                goodput[(s.role, camp)] = float(flows.loc[chosen, "bytes_acked"].sum())
    gain = goodput[("alg", "B")] / goodput[("standard", "B")]
    loss = goodput[("alg", "A")] / goodput[("standard", "A")]
    assert gain > 1.05 and loss < 0.95, (gain, loss)


def test_multi_bottleneck_parking_lot() -> None:
    """Every flow at 60 ms across the parking lot, the three-hop flow on three bottlenecks; each
    bottleneck full (its one-hop flow and the three-hop flow use it all but the headers), and
    the test's ratio is the one-hop flows' mean goodput over the three-hop flow's."""
    from ccsim import run
    from ccsim.evaluate.battery import Algorithm, Plan, multi_bottleneck
    from ccsim.scenario import Scenario

    alg = Algorithm("reno", "reno")
    (sweep,) = multi_bottleneck.sweeps(alg, alg, [], Plan(quick=True, seeds=(1,)))
    results = run(Scenario.model_validate(dict(sweep.sweep["scenario"], seed=2)))
    flows = results.flows
    assert set(flows["base_rtt_s"].round(6)) == {0.06}
    assert list(flows["hops"]) == [3, 1, 1, 1]
    acked_bps = flows["bytes_acked"].to_numpy() * 8 / float(results.summary["duration_s"])
    for one_hop in acked_bps[1:]:
        assert 85e6 < acked_bps[0] + one_hop < 100e6 * 1448 / 1500
    goodput = flows["goodput_bps"].to_numpy()
    measured = {m.metric: m.value for m in multi_bottleneck.measure(_run_of(sweep, results))}
    ratio = measured["one-hop / three-hop goodput"]
    assert ratio == pytest.approx(goodput[1:].mean() / goodput[0])
    assert 0 < measured["drop rate"] < 100


def _run_of(sweep: object, results: object) -> object:
    from ccsim.evaluate.battery.common import Run

    return Run(sweep, {"seed": 1}, results)  # type: ignore[arg-type]


def test_the_satellite_uplink_is_the_thin_one() -> None:
    """The suite's satellite link is 40 Mb/s down and 4 Mb/s up: the reverse transfers together
    get at most the uplink's rate (less headers and the forward flows' ACKs), the forward ones
    far more."""
    from ccsim import run
    from ccsim.evaluate.battery import Algorithm, Plan, basic_scenarios
    from ccsim.scenario import Scenario

    alg = Algorithm("cubic", "cubic")
    sweeps = {
        s.condition: s.sweep["scenario"]
        for s in basic_scenarios.sweeps(alg, alg, [], Plan(quick=True, seeds=(1,)))
    }
    results = run(Scenario.model_validate(dict(sweeps["GEO satellite, 85%"], seed=1)))
    flows = results.flows
    duration = float(results.summary["duration_s"])
    reverse = flows.loc[flows["reverse"] == 1, "bytes_acked"].sum() * 8 / duration
    forward = flows.loc[flows["reverse"] == 0, "bytes_acked"].sum() * 8 / duration
    assert 1e6 < reverse < 4e6 * 1448 / 1500
    assert forward > 5 * reverse
    links = results.links
    up = links[(links["src"] == "R2") & (links["dst"] == "R1")].iloc[0]
    assert up["utilization"] > 0.9  # offered 8.5 Mb/s of transfers: the uplink is full
