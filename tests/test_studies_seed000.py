"""The seed-000 studies (Randomized TCP): their claims judged on hand-made replicate tables.

Each test builds a comparison table from per-seed records, as a study's analysis does, and checks
what a claim's checks make of it: a clear effect holds, the opposite one reverses, an interval
that straddles the boundary (or fewer than 3 seeds) is inconclusive, a tie is never a win, and a
configuration that was not run makes the claim "not run". The setups themselves (every link's
queue, the sensitivity grid of R12) are checked on the sweep definitions, without running them.
The quick runs are in tests/test_studies_seed000_quick.py.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ccsim.studies import core
from ccsim.studies import randomized_tcp as seed000
from ccsim.studies.core import (
    FAILED,
    HELD,
    INCONCLUSIVE,
    NO_DATA,
    NOT_REPRODUCED,
    NOT_RUN,
    NOT_RUN_QUICK,
    PARTLY,
    REPRODUCED,
    REVERSED,
    Settings,
    grade,
)


def _records(key: dict[str, Any], metric: str, values: Sequence[float]) -> list[dict[str, Any]]:
    """One record per seed (seeds 1, 2, ...) of one row."""
    return [key | {"metric": metric, "seed": s, "value": v} for s, v in enumerate(values, 1)]


def _table(rows: Iterable[dict[str, Any]], keys: list[str], bounds: Any = None) -> pd.DataFrame:
    return core.summarise(list(rows), keys, bounds=bounds)


def _outcomes(checks: Sequence[core.Check]) -> list[str]:
    return [c.outcome for c in checks]


# ---- the module uses the new checks only ----------------------------------------------------------


def test_every_check_decides_with_intervals() -> None:
    """No transitional mean-only check (core.check, Check(text, True/False)) is left, and every
    record carries its seed."""
    package = Path(inspect.getfile(seed000)).parent
    source = "".join(path.read_text(encoding="utf-8") for path in sorted(package.glob("*.py")))
    assert "core.check(" not in source and " check(" not in source
    assert "Check(" not in source.replace("Check.no_data(", "")
    assert source.count('"seed"') >= 1 and "run_seed(point)" in source


# ---- setups --------------------------------------------------------------------------------------


def _links(scenario: dict[str, Any]) -> list[tuple[str, str]]:
    """(what, buffer) of every queue a scenario sets."""
    topology = scenario["topology"]
    if topology["kind"] in ("dumbbell", "parking_lot"):
        return [("bottleneck", topology["buffer"]), ("access", topology["access_buffer"])]
    routers = {"gw", "gw1", "gw2", "sink"}
    return [
        ("bottleneck" if {link["src"], link["dst"]} <= routers else "access", link["buffer"])
        for link in topology["links"]
    ]


@pytest.mark.parametrize("quick", [False, True])
def test_every_link_has_the_papers_queue_or_ns2s_default(quick: bool) -> None:
    """Bottlenecks get the paper's buffer; every other link ns-2's default DropTail queue
    (limit_ 50: 49 waiting packets), never the deep 10,000-packet default of ccsim's access
    links."""
    paper = {"6pkts", "13pkts", "15pkts", "25pkts", "50pkts"}
    for study in seed000.STUDIES:
        for sweep in study.sweeps(Settings(quick=quick)):
            scenario = sweep["scenario"]
            assert scenario["topology"].get("queue", "droptail") == "droptail", study.id
            for what, buffer in _links(scenario):
                if what == "access":
                    assert buffer == seed000.NS2_QUEUE == "49pkts", (study.id, sweep["name"])
                else:
                    assert buffer in paper, (study.id, sweep["name"], buffer)
            for axis in sweep.get("axes", {}):
                assert "access" not in axis, (study.id, axis)


def test_every_study_has_a_cap_and_quick_runs_three_seeds() -> None:
    for study in seed000.STUDIES:
        full = study.sweeps(Settings())
        quick = study.sweeps(Settings(quick=True))
        assert study.max_replicates is not None
        assert study.max_replicates >= max(len(s["seeds"]) for s in full), study.id
        assert {len(s["seeds"]) for s in full} <= {3, 5, 10}, study.id
        assert {len(s["seeds"]) for s in quick} == {3}, study.id


def test_r12_sensitivity_grid_brackets_ns2s_constants() -> None:
    """R12's sensitivity sweeps run IIAD and SQRT as the general binomial law over a and b around
    ns-2's a = 1, b = 0.67, with and without ns-2's halving, against Reno and (randomized)
    against Randomized TCP; quick runs leave them out."""
    sweeps = {s["name"]: s for s in seed000.R12.sweeps(Settings())}
    assert set(sweeps) == {"plain", "randomized", "sensitivity-plain", "sensitivity-randomized"}
    assert seed000.R12_A in seed000.R12_SENSITIVITY_A
    assert seed000.R12_B in seed000.R12_SENSITIVITY_B
    settings = len(seed000.R12_SENSITIVITY_A) * len(seed000.R12_SENSITIVITY_B) * 2
    for name, randomize in (("sensitivity-plain", False), ("sensitivity-randomized", True)):
        variants = sweeps[name]["compare"]["algorithms"]
        assert len(variants) == 2 * settings
        assert len({v["name"] for v in variants}) == len(variants)
        assert {v["cc"] for v in variants} == {"binomial"}
        assert {v["params"]["randomize"] for v in variants} == {randomize}
        assert {(v["params"]["k"], v["params"]["l"]) for v in variants} == {(1.0, 0.0), (0.5, 0.5)}
    quick = {s["name"] for s in seed000.R12.sweeps(Settings(quick=True))}
    assert quick == {"plain", "randomized"}


@pytest.mark.parametrize("sid", ["R6", "R7"])
def test_phase_studies_rerun_over_the_bottleneck_delay(sid: str) -> None:
    """R6 and R7 give the flows' RTTs only: the sensitivity sweep runs the same configurations
    at other one-way bottleneck delays (the access links carry the rest of each RTT); quick runs
    leave it out."""
    study = {"R6": seed000.R6, "R7": seed000.R7}[sid]
    sweeps = {s["name"]: s for s in study.sweeps(Settings())}
    assert set(sweeps) == {"pair" if sid == "R6" else "ten", "sensitivity"}
    main = sweeps["pair" if sid == "R6" else "ten"]
    assert main["scenario"]["topology"]["bottleneck_delay"] == seed000.PHASE_DELAY
    delays = sweeps["sensitivity"]["axes"]["topology.bottleneck_delay"]
    assert delays == list(seed000.PHASE_DELAYS) and seed000.PHASE_DELAY not in delays
    assert sweeps["sensitivity"]["compare"] == main["compare"]
    assert "sensitivity" not in {s["name"] for s in study.sweeps(Settings(quick=True))}


def test_r13_sweeps_the_spike_in_steps_of_one_millisecond() -> None:
    sweeps = {s["name"]: s for s in seed000.R13.sweeps(Settings())}
    fine = sweeps["fj-fine"]["axes"]["topology.links.0.delay"]["values"]
    delays = [float(d.removesuffix("ms")) for d in fine]
    assert delays[0] == 89.0 and delays[-1] == 121.0
    assert all(b - a == 1.0 for a, b in itertools.pairwise(delays))
    ratios = [(d + 100) / 105 for d in delays]
    assert ratios[0] <= 1.85 and ratios[-1] >= 2.05


# ---- R1: trends over I, per seed -----------------------------------------------------------------


def _r1_rows(case: str, loss: dict[float, list[float]], throughput: float = 1.0) -> list[Any]:
    rows = []
    for i, values in loss.items():
        key = {"case": case, "I": i}
        rows += _records(key, "loss rate", values)
        rows += _records(key, "timeouts", [100 * v for v in values])
        rows += _records(key, "throughput Mb/s", [throughput] * len(values))
    return rows


def test_r1_losses_falling_with_i_hold_and_rising_reverse() -> None:
    """Spearman's correlation of loss with I is computed seed by seed: falling in every seed holds,
    rising reverses; throughput equal at I = 0 and 1 (a tie with the boundary's side) holds,
    since "equal or higher" allows 2% below."""
    falling = {0.0: [0.30, 0.32, 0.31], 0.5: [0.25, 0.27, 0.26], 1.0: [0.20, 0.22, 0.21]}
    table = _table(_r1_rows("1Mbps buf 6pkts N=30", falling), ["case", "I"])
    checks = seed000.r1_curve(table, "1Mbps buf 6pkts N=30", "1 Mb/s")
    assert _outcomes(checks) == [HELD, HELD, HELD]
    rising = {0.0: falling[1.0], 0.5: falling[0.5], 1.0: falling[0.0]}
    table = _table(_r1_rows("1Mbps buf 6pkts N=30", rising), ["case", "I"])
    checks = seed000.r1_curve(table, "1Mbps buf 6pkts N=30", "1 Mb/s")
    assert _outcomes(checks)[:2] == [REVERSED, REVERSED]


def test_r1_a_figure_not_run_is_not_graded() -> None:
    table = _table(
        _r1_rows("1Mbps buf 6pkts N=30", {0.0: [0.3] * 3, 1.0: [0.2] * 3}), ["case", "I"]
    )
    fig3 = seed000.R1.claims[1]
    assert fig3.judge(table, quick=True).verdict == NOT_RUN_QUICK
    assert fig3.judge(table).verdict == NOT_RUN


# ---- R2 and R3: equal throughput, paired comparisons ---------------------------------------------


def _bulk(values: dict[tuple[str, int, str], Sequence[float]]) -> pd.DataFrame:
    rows = [
        r
        for (tcp, n, metric), v in values.items()
        for r in _records({"tcp": tcp, "N": n}, metric, v)
    ]
    return _table(rows, ["tcp", "N"], seed000.BULK_BOUNDS)


def test_r3_pairing_by_seed_resolves_a_small_consistent_deficit() -> None:
    """Randomized 0.1 Mb/s below Reno in every seed, while both swing by 1 Mb/s from seed to seed:
    apart the two intervals overlap, the paired difference is exactly -0.1 and reverses the
    claim "Randomized's throughput is marginally higher"."""
    reno = [3.0, 3.5, 4.0]
    values = {
        (tcp, n, "throughput Mb/s"): [x - offset for x in reno]
        for n in seed000.BULK_NS
        for tcp, offset in (("Reno", 0.0), ("Paced", 0.05), ("Randomized", 0.1))
    }
    claim = seed000.R3.claims[2]
    result = claim.judge(_bulk(values))
    assert {c.outcome for c in result.checks} == {REVERSED}
    assert result.verdict == REVERSED
    assert "difference -0.1 (-0.1 to -0.1, n = 3)" in result.checks[0].text


def test_r2_equal_throughput_is_an_equivalence_test() -> None:
    """Within 5%: an interval of the relative difference inside +-0.05 holds, one outside fails
    (never reversed: "equal" has no opposite side), one across the edge is inconclusive."""
    values: dict[tuple[str, int, str], Sequence[float]] = {}
    for n in seed000.BULK_NS:
        values[("Reno", n, "throughput Mb/s")] = [3.0, 3.2, 3.4]
        values[("Paced", n, "throughput Mb/s")] = [3.03, 3.2, 3.37]  # within 1%
        values[("Randomized", n, "throughput Mb/s")] = [2.7, 2.88, 3.06]  # 10% below
    checks = seed000.r2_equal(_bulk(values))
    assert _outcomes(checks) == [HELD, FAILED] * len(seed000.BULK_NS)
    assert grade(checks) == PARTLY  # half held, none reversed
    values[("Randomized", 10, "throughput Mb/s")] = [2.85, 3.2, 3.4]  # -5% .. 0%: straddles
    assert seed000.r2_equal(_bulk(values))[1].outcome == INCONCLUSIVE


def test_r2_two_seeds_give_no_interval_and_decide_nothing() -> None:
    values = {
        (tcp, 50, metric): v
        for tcp, v in (("Reno", [0.05, 0.06]), ("Paced", [0.09, 0.1]), ("Randomized", [0.01, 0.02]))
        for metric in ("loss rate", "timeouts", "throughput Mb/s", "Jain")
    }
    checks = seed000.r2_randomized_best(_bulk(values))
    assert {c.outcome for c in checks} == {INCONCLUSIVE}
    assert "fewer than 3 runs" in checks[0].text
    assert grade(checks) == INCONCLUSIVE


# ---- R4: ties are not wins -----------------------------------------------------------------------


def test_r4_equal_latencies_are_a_tie_not_a_win() -> None:
    """Reno and Paced draw nothing random in R4, so equal latencies are equal in every seed: the
    difference is exactly 0, which decides neither way."""
    rows = []
    for p in seed000.WEB_SHORT:
        for tcp, latency in (("Reno", 1.0), ("Paced", 1.0), ("Randomized", 1.5)):
            rows += _records({"tcp": tcp, "packets": p}, "mean latency s", [latency] * 3)
    checks = seed000.r4_short(_table(rows, ["tcp", "packets"], seed000.WEB_BOUNDS))
    reno_paced, reno_rand, rand_paced = checks[:3]
    assert reno_paced.outcome == INCONCLUSIVE
    assert reno_rand.outcome == HELD
    assert rand_paced.outcome == REVERSED
    assert (
        seed000.R4.claims[1].judge(_table(rows, ["tcp", "packets"]), quick=True).verdict
        == NOT_RUN_QUICK
    )


# ---- R5: one-seed luck is not a verdict ----------------------------------------------------------


def _r5(ratios: Sequence[float]) -> pd.DataFrame:
    rows = _records({"config": "Reno vs Randomized", "tcp": "X/Reno"}, "throughput ratio", ratios)
    return _table(rows, ["config", "tcp"], seed000.R5_BOUNDS)


def test_r5_even_competition_needs_an_interval_inside_the_band() -> None:
    """Seeds 1-3 of the quick run once gave 0.84, 0.82, 1.50: a mean of 1.05 inside 0.85..1.18,
    which the mean-only check called reproduced. Its interval spans most of the band and more:
    inconclusive. Twenty seeds around 1.31 lie outside: failed (nothing is the opposite of
    "even"). Ratios within a few percent of 1 hold."""
    claim = seed000.R5.claims[1]
    assert claim.judge(_r5([0.84, 0.82, 1.50])).verdict == INCONCLUSIVE
    far = claim.judge(_r5([1.31 + 0.02 * (-1) ** s for s in range(20)]))
    assert _outcomes(far.checks) == [FAILED] and far.verdict == NOT_REPRODUCED
    assert claim.judge(_r5([0.98, 1.02, 1.0, 1.01])).verdict == REPRODUCED


def test_r5_table_counts_compare_the_two_flows_of_one_run() -> None:
    rows = []
    for tcp, losses, timeouts in (
        ("Reno", [60, 70, 65], [10, 12, 11]),
        ("Paced", [80, 88, 85], [5, 6, 4]),
    ):
        key = {"config": "Reno vs Paced", "tcp": tcp}
        rows += _records(key, "losses", losses) + _records(key, "timeouts", timeouts)
    checks = seed000.R5.claims[2].evaluate(_table(rows, ["config", "tcp"], seed000.R5_BOUNDS))
    assert _outcomes(checks) == [HELD, REVERSED]
    assert grade(checks) == NOT_REPRODUCED


# ---- R6, R7: thresholds with their own reversal --------------------------------------------------


def test_r6_lockout_of_the_short_flow_is_reversed_not_reproduced() -> None:
    rows = []
    for rate, shares in (("2Mbps", [0.84, 0.86, 0.85]), ("3Mbps", [0.14, 0.16, 0.15])):
        rows += _records({"rate": rate, "config": "Reno/Reno"}, "short share", shares)
    table = _table(rows, ["rate", "config"], {"short share": core.UNIT})
    checks = seed000.r6_phase(table)
    assert _outcomes(checks) == [HELD, REVERSED]
    assert grade(checks) == NOT_REPRODUCED
    rows = [r | {"value": 1 - r["value"]} if r["rate"] == "2Mbps" else r for r in rows]
    table = _table(rows, ["rate", "config"], {"short share": core.UNIT})
    assert grade(seed000.r6_phase(table)) == REVERSED


def test_r6_a_share_between_the_thresholds_is_failed_not_reversed() -> None:
    """0.57: no phase effect either way, so neither held nor reversed."""
    rows = []
    for rate in ("2Mbps", "3Mbps"):
        rows += _records({"rate": rate, "config": "Reno/Reno"}, "short share", [0.56, 0.57, 0.58])
    checks = seed000.r6_phase(_table(rows, ["rate", "config"], {"short share": core.UNIT}))
    assert _outcomes(checks) == [FAILED, FAILED]


def test_r7_distance_ratios_are_taken_seed_by_seed() -> None:
    """One randomized flow halves the distance from 1/RTT's 1.33 in every seed: held, whatever
    the all-Reno ratio itself does from seed to seed."""
    ideal = seed000.R7_IDEAL
    reno = [0.2, 0.6, 0.4]
    one = [ideal - 0.5 * (ideal - r) for r in reno]
    rows = _records({"config": "all Reno"}, "short/long", reno)
    for config in ("1 long Randomized", "1 short Randomized"):
        rows += _records({"config": config}, "short/long", one)
    checks = seed000.r7_claims(_table(rows, ["config"]))
    assert _outcomes(checks) == [HELD, HELD]
    assert "0.5 (0.5 to 0.5, n = 3)" in checks[0].text


# ---- R9: near zero is a band ---------------------------------------------------------------------


def _r9(randomized: Sequence[float]) -> pd.DataFrame:
    rows = []
    for case, pair in seed000.R9_TABULATED:
        rows += _records({"case": case, "tcp": "Randomized"}, pair, randomized)
    return _table(rows, ["case", "tcp"], {p: core.CORRELATION for _, p in seed000.R9_TABULATED})


def test_r9_randomized_near_zero_is_a_band_either_side_of_zero() -> None:
    """The paper's own values (+0.08..+0.25) and small negative ones are near zero; a value
    clearly beyond +-0.3 fails (no reversal); one across the edge is inconclusive."""
    claim = seed000.R9.claims[2]
    assert claim.judge(_r9([0.15, 0.17, 0.16])).verdict == REPRODUCED
    assert claim.judge(_r9([-0.19, -0.17, -0.18])).verdict == REPRODUCED
    assert claim.judge(_r9([0.5, 0.52, 0.51])).verdict == NOT_REPRODUCED
    assert {c.outcome for c in claim.evaluate(_r9([0.5, 0.52, 0.51]))} == {FAILED}
    assert claim.judge(_r9([0.2, 0.3, 0.4])).verdict == INCONCLUSIVE
    assert f"required in [-{seed000.R9_NEAR_ZERO:g}, {seed000.R9_NEAR_ZERO:g}]" in (
        claim.evaluate(_r9([0.1, 0.1, 0.1]))[0].text
    )


def test_r9_fig10_is_not_run_without_10_and_25_flows() -> None:
    checks = seed000.r9_many(_r9([0.1, 0.1, 0.1]))
    assert {c.outcome for c in checks} == {NO_DATA}
    assert grade(checks, quick=True) == NOT_RUN_QUICK


# ---- R11, R12, R13 -------------------------------------------------------------------------------


def test_r11_more_bursts_with_randomized_is_reversed() -> None:
    rows = []
    for rate in ("1Mbps", "2Mbps"):
        for n, reno, rand in (
            (20, [100, 104, 98], [140, 150, 145]),
            (30, [60, 62, 64], [220, 230, 210]),
        ):
            rows += _records({"rate": rate, "flows": n, "tcp": "Reno"}, "burst losses", reno)
            rows += _records({"rate": rate, "flows": n, "tcp": "Randomized"}, "burst losses", rand)
    table = _table(rows, ["rate", "flows", "tcp"], {"burst losses": core.NONNEGATIVE})
    several = seed000.r11_several(table)
    assert _outcomes(several) == [REVERSED, REVERSED]
    trend = seed000.r11_trend(table)
    assert _outcomes(trend) == [REVERSED, REVERSED, REVERSED, REVERSED]


def test_r12_reno_beating_iiad_is_reversed() -> None:
    rows = []
    for scheme, binomial, tcp in (
        ("IIAD", [300, 310, 290], [600, 590, 610]),
        ("SQRT", [520, 530, 510], [380, 390, 370]),
    ):
        key = {"config": f"{scheme} vs Reno"}
        rows += _records(key, "binomial kb/s", binomial) + _records(key, "TCP kb/s", tcp)
    checks = seed000.r12_beat_down(_table(rows, ["config"], seed000.R12_BOUNDS))
    assert _outcomes(checks) == [REVERSED, HELD]
    assert grade(checks) == NOT_REPRODUCED


def test_r12_fairer_compares_the_pairs_seed_by_seed() -> None:
    rows = []
    for scheme in ("IIAD", "SQRT"):
        rows += _records({"config": f"{scheme} vs Reno"}, "min/max", [0.4, 0.6, 0.5])
        rows += _records({"config": f"rand {scheme} vs Randomized"}, "min/max", [0.6, 0.8, 0.7])
    checks = seed000.r12_fairer(_table(rows, ["config"], seed000.R12_BOUNDS))
    assert _outcomes(checks) == [HELD, HELD]


def _r13(reno: dict[float, Sequence[float]], rand: dict[float, Sequence[float]]) -> pd.DataFrame:
    rows = []
    for tcp, shares in (("Reno", reno), ("Randomized", rand)):
        for ratio, values in shares.items():
            rows += _records({"ratio": ratio, "tcp": tcp}, "source 2 drop share", values)
    return _table(rows, ["ratio", "tcp"], {"source 2 drop share": core.UNIT})


def test_r13_a_spike_in_the_papers_band_with_little_loss_elsewhere_is_reproduced() -> None:
    ratios = [1.0, 1.5, 1.8, 1.9, 2.0, 2.2]
    spike = {r: [0.9, 0.85, 0.95] if r == 1.9 else [0.05, 0.08, 0.1] for r in ratios}
    smooth = {r: [0.4, 0.45, 0.5] for r in ratios}
    claim = seed000.R13.claims[0]
    assert claim.judge(_r13(spike, smooth)).verdict == REPRODUCED
    # Our Reno: no spike, about 0.3 everywhere: failed, not reversed (a spike is there or not).
    flat = {r: [0.3, 0.32, 0.28] for r in ratios}
    result = claim.judge(_r13(flat, smooth))
    assert _outcomes(result.checks) == [FAILED, FAILED, HELD]
    assert result.verdict == NOT_REPRODUCED
    # Without a ratio inside 1.85-2.05 the claim is not graded.
    assert claim.judge(_r13({1.0: [0.1] * 3}, smooth)).verdict == NOT_RUN


def test_verdict_rule_partly_needs_half_held_and_none_reversed() -> None:
    """R2's "Paced loses most": 6 of 10 held, 4 inconclusive is partly only if none reversed."""
    held = [core.Check("x", HELD)] * 6
    assert grade([*held, *[core.Check("y", FAILED)] * 4]) == PARTLY
    assert grade([*held, *[core.Check("y", REVERSED)] * 4]) == NOT_REPRODUCED
