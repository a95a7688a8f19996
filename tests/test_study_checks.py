"""How a study decides: quantities over replicates, intervals within a quantity's range, checks
that hold, fail, reverse or stay inconclusive by their interval, and the verdict rule.

The tables here are made by hand (records with seeds), so every outcome is known in advance."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ccsim.studies import core
from ccsim.studies.checks import (
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
    Check,
    Claim,
    band,
    compare,
    grade,
    within,
)
from ccsim.studies.evidence import (
    CORRELATION,
    NONNEGATIVE,
    UNIT,
    Quantity,
    interval,
    measure,
)
from conftest import requires_engine
from hypothesis import given
from hypothesis import strategies as st


def q(*values: float, bounds: tuple[float, float] = (-math.inf, math.inf)) -> Quantity:
    """Values of seeds 1, 2, ..."""
    return Quantity.replicated(dict(enumerate(values, start=1)), bounds)


# ---- intervals ----------------------------------------------------------------------------------


def test_interval_is_students_t_and_none_below_three_runs() -> None:
    low, high = interval([1.0, 2.0, 3.0, 4.0])
    # 2.5 +- t(0.975, 3) sd / sqrt(4), sd = sqrt(5/3)
    assert (low, high) == pytest.approx((2.5 - 2.0543, 2.5 + 2.0543), abs=1e-4)
    assert interval([1.0, 2.0]) is None
    assert interval([]) is None
    assert interval([2.0, 2.0, 2.0]) == (2.0, 2.0)


@given(
    st.lists(st.floats(0.0, 1.0), min_size=3, max_size=12),
    st.sampled_from([UNIT, NONNEGATIVE, CORRELATION]),
)
def test_interval_never_leaves_the_quantitys_range(values: list[float], bounds: Any) -> None:
    low, high = interval(values, bounds)  # type: ignore[misc]
    assert bounds[0] <= low <= high <= bounds[1]
    mean = sum(values) / len(values)
    assert low - 1e-12 <= mean <= high + 1e-12


def test_quantities_pair_by_seed() -> None:
    a = Quantity.replicated({1: 10.0, 2: 20.0, 3: 30.0, 4: 99.0}, NONNEGATIVE)
    b = Quantity.replicated({1: 9.0, 2: 19.0, 3: 29.0}, NONNEGATIVE)
    difference = a - b
    # Only the seeds both have; the paired difference has no spread at all.
    assert dict(difference.values) == {1: 1.0, 2: 1.0, 3: 1.0}
    assert difference.interval() == (1.0, 1.0)
    # Its range follows from the operands' ranges.
    assert difference.bounds == (-math.inf, math.inf)
    assert (q(0.5, 0.6, 0.7, bounds=UNIT) - q(0.1, 0.2, 0.3, bounds=UNIT)).bounds == (-1.0, 1.0)
    ratio = a / b
    assert ratio.values[1] == pytest.approx(10 / 9)
    assert (a * 2).mean == pytest.approx(2 * a.mean) and (a * 2).bounds == (0.0, math.inf)
    exact = Quantity.of(5.0)
    assert exact.exact and exact.interval() == (5.0, 5.0)
    assert dict((a - exact).values) == {1: 5.0, 2: 15.0, 3: 25.0, 4: 94.0}
    mixed = Quantity.combine(max, a, b, bounds=NONNEGATIVE)
    assert dict(mixed.values) == {1: 10.0, 2: 20.0, 3: 30.0}
    assert not (a - Quantity()).has_data


def test_measure_reads_one_row_or_the_per_seed_mean_of_several() -> None:
    records = [
        {"cc": cc, "flow": flow, "metric": "g", "seed": seed, "value": value}
        for cc, flow, values in (
            ("reno", "a", (1.0, 2.0, 3.0)),
            ("reno", "b", (3.0, 4.0, 5.0)),
            ("cubic", "a", (7.0, 8.0)),
        )
        for seed, value in enumerate(values, start=1)
    ]
    table = core.summarise(records, ["cc", "flow"], {("bbr", "a", "g"): 1.0}, {"g": NONNEGATIVE})
    one = measure(table, "g", cc="reno", flow="a")
    assert dict(one.values) == {1: 1.0, 2: 2.0, 3: 3.0} and one.bounds == NONNEGATIVE
    both = measure(table, "g", cc="reno", flow=["a", "b"])
    assert dict(both.values) == {1: 2.0, 2: 3.0, 3: 4.0}
    # Rows with different seeds: only the seeds every row has.
    assert set(measure(table, "g", flow="a", cc=["reno", "cubic"]).values) == {1, 2}
    # A row not run (published only) or missing: no data.
    assert not measure(table, "g", cc="bbr", flow="a").has_data
    assert not measure(table, "g", cc="vegas").has_data


# ---- checks -------------------------------------------------------------------------------------


def test_a_tie_is_never_a_win() -> None:
    """The case seen in H2: -0.49999999999999994 against -0.5 is equality, not a difference."""
    proposal = q(-0.5, -0.5, -0.49999999999999994, bounds=CORRELATION)
    reno = q(-0.5, -0.5, -0.5, bounds=CORRELATION)
    assert compare("rank", proposal, ">", reno).outcome == INCONCLUSIVE
    assert compare("rank", reno, "<", proposal).outcome == INCONCLUSIVE
    assert compare("share", q(0.5, 0.5, 0.5), ">=", 0.5).outcome == INCONCLUSIVE
    # A real difference with no spread is decided.
    assert compare("rank", q(-0.4, -0.4, -0.4), ">", reno).outcome == HELD


def test_compare_holds_reverses_fails_or_straddles() -> None:
    winner = q(10.0, 11.0, 12.0, 11.5)
    loser = q(5.0, 6.5, 6.0, 5.5)
    check = compare("goodput, a vs b", winner, ">", loser, unit="Mb/s")
    assert check.outcome == HELD
    assert check.text.startswith("goodput, a vs b: 11.1 vs 5.75 Mb/s, difference 5.38 (")
    assert check.text.endswith("n = 4), required: difference > 0")
    assert compare("x", loser, ">", winner).outcome == REVERSED
    # Paired: large seed-to-seed spread, constant difference: decided.
    spread = q(1.0, 50.0, 100.0)
    assert compare("x", spread + 1.0, ">", spread).outcome == HELD
    # Unpaired noise: the difference straddles 0.
    assert compare("x", q(1.0, 5.0, 3.0), ">", q(2.0, 4.0, 3.1)).outcome == INCONCLUSIVE
    # A threshold missed clearly is a failure when nothing counts as the opposite...
    assert compare("x", q(0.5, 0.6, 0.55), ">=", 0.9, reversal=None).outcome == FAILED
    # ... and reversed beyond a stated boundary.
    assert compare("ratio", q(1.5, 1.6, 1.7), "<", 0.2, reversal=1.0).outcome == REVERSED
    assert compare("ratio", q(0.5, 0.6, 0.7), "<", 0.2, reversal=1.0).outcome == FAILED
    # Too few runs: no interval, never held.
    few = compare("x", q(100.0, 101.0), ">", 1.0)
    assert few.outcome == INCONCLUSIVE and "n = 2: fewer than 3 runs, no interval" in few.text
    assert compare("x", Quantity(), ">", 1.0).outcome == NO_DATA
    assert compare("x", winner, ">", Quantity()).outcome == NO_DATA


def test_reversal_against_another_quantity() -> None:
    """H1's winners: above the best other (held); clearly below the others' median
    (reversed); between the two (failed)."""
    best, median = q(50.0, 52.0, 51.0), q(20.0, 22.0, 21.0)
    assert compare("w", q(60.0, 63.0, 61.0), ">", best, reversal=median).outcome == HELD
    assert compare("w", q(10.0, 11.0, 12.0), ">", best, reversal=median).outcome == REVERSED
    assert compare("w", q(30.0, 31.0, 32.0), ">", best, reversal=median).outcome == FAILED


def test_within_is_an_equivalence_test() -> None:
    assert within("a vs b", q(10.0, 10.1, 9.9), q(10.0, 10.0, 10.0), 0.05).outcome == HELD
    assert within("a vs b", q(20.0, 21.0, 19.0), q(10.0, 10.0, 10.0), 0.05).outcome == FAILED
    # The means agree but the spread is too large to say they are within 5 %.
    wide = within("a vs b", q(5.0, 15.0, 10.0), q(10.0, 10.0, 10.0), 0.05)
    assert wide.outcome == INCONCLUSIVE


def test_band() -> None:
    assert band("corr", q(0.05, -0.02, 0.01), -0.2, 0.2).outcome == HELD
    assert band("corr", q(0.6, 0.7, 0.65), -0.2, 0.2).outcome == FAILED
    assert band("corr", q(0.6, 0.7, 0.65), -0.2, 0.2, reversal=(0.5, 1.0)).outcome == REVERSED
    assert band("corr", q(0.0, 0.4, 0.2), -0.2, 0.2).outcome == INCONCLUSIVE


# ---- the verdict rule ---------------------------------------------------------------------------


def checks(*outcomes: str) -> list[Check]:
    return [Check(f"c{i}", outcome) for i, outcome in enumerate(outcomes)]


def test_the_verdict_rule() -> None:
    assert grade(checks(HELD, HELD)) == REPRODUCED
    assert grade(checks(HELD, INCONCLUSIVE)) == core.INCONCLUSIVE
    assert grade(checks(INCONCLUSIVE)) == core.INCONCLUSIVE
    assert grade(checks(HELD, FAILED)) == PARTLY
    assert grade(checks(HELD, HELD, FAILED, INCONCLUSIVE)) == PARTLY
    # F3 under the old rule: "partly" with 7 of 8 checks failed. Now: not reproduced.
    assert grade(checks(HELD, *[FAILED] * 7)) == NOT_REPRODUCED
    # Some held, some reversed: the claim is contradicted where it reversed.
    assert grade(checks(HELD, HELD, REVERSED)) == NOT_REPRODUCED
    assert grade(checks(REVERSED, REVERSED, FAILED)) == REVERSED
    assert grade(checks(REVERSED, FAILED)) == NOT_REPRODUCED  # half is not a majority
    assert grade(checks(REVERSED)) == REVERSED
    assert grade(checks(FAILED)) == NOT_REPRODUCED
    assert grade(checks(HELD, NO_DATA)) == NOT_RUN
    assert grade(checks(HELD, NO_DATA), quick=True) == NOT_RUN_QUICK
    assert grade([]) == NOT_RUN
    with pytest.raises(ValueError, match="outcome 'maybe'"):
        Check("x", "maybe")


def test_a_claim_judges_a_table() -> None:
    records = [
        {"cc": cc, "metric": "g", "seed": s, "value": v}
        for cc, values in (("a", (3.0, 4.0, 5.0)), ("b", (1.0, 2.0, 3.5)))
        for s, v in enumerate(values, start=1)
    ]
    table = core.summarise(records, ["cc"], bounds={"g": NONNEGATIVE})
    claim = Claim(
        "a beats b, and c beats b",
        "goodput a > b and c > b, paired",
        lambda t: [
            compare("a vs b", measure(t, "g", cc="a"), ">", measure(t, "g", cc="b")),
            compare("c vs b", measure(t, "g", cc="c"), ">", measure(t, "g", cc="b")),
        ],
    )
    result = claim.judge(table)
    assert [c.outcome for c in result.checks] == [HELD, NO_DATA]
    assert result.verdict == NOT_RUN
    assert claim.judge(table, quick=True).verdict == NOT_RUN_QUICK


# ---- more replicates while a check is inconclusive ------------------------------------------------


def _noisy_study(cap: int | None) -> core.Study:
    """One short Reno flow over a lossy link; the claim compares its goodput with its own mean
    over the first three seeds, which keeps it inconclusive whatever the number of seeds."""

    def sweeps(settings: core.Settings) -> list[dict[str, Any]]:
        return [
            {
                "name": "one",
                "scenario": {
                    "name": "noisy",
                    "duration": "2s",
                    "topology": {
                        "kind": "dumbbell",
                        "bottleneck_rate": "10Mbps",
                        "bottleneck_delay": "5ms",
                        "loss": 0.01,
                    },
                    "flows": [{"cc": "reno", "rtt": "20ms"}],
                },
                "seeds": settings.seeds(3, 3),
            }
        ]

    def analyse(context: core.Context) -> pd.DataFrame:
        records = [
            {
                "metric": "goodput",
                "seed": int(p["seed"]),
                "value": float(load("flows").iloc[0]["goodput_bps"]),
            }
            for p, load in context.points("one")
        ]
        return core.summarise(records, [], bounds={"goodput": NONNEGATIVE})

    def evaluate(table: pd.DataFrame) -> list[Check]:
        goodput = measure(table, "goodput")
        return [compare("goodput vs its own mean", goodput, ">", goodput.mean)]

    return core.Study(
        id="T1",
        slug="test",
        title="test",
        source="test",
        setup="test",
        assumptions=("test",),
        sweeps=sweeps,
        analyse=analyse,
        claims=(Claim("noise", "none", evaluate),),
        figure=core.FigureSpec("goodput"),
        warmup="none",
        max_replicates=cap,
    )


@requires_engine
def test_a_full_run_adds_replicates_up_to_the_cap(tmp_path: Path) -> None:
    report = core.run_study(_noisy_study(12), core.Settings(), tmp_path / "full", workers=1)
    # 3 -> 6 -> 12 seeds, then the cap: the check stays inconclusive.
    assert report.replicates == 12
    assert report.verdicts[0].verdict == core.INCONCLUSIVE
    # Every run was made by this call, the earlier passes' included: none was reused.
    assert report.runs == 12 and report.reused == 0
    assert any("running 6" in note for note in report.notes)
    assert any("running 12" in note for note in report.notes)
    runs = pd.read_csv(report.directory / "T1-runs.csv")
    assert sorted(runs["seed"]) == list(range(1, 13))
    again = core.run_study(_noisy_study(12), core.Settings(), tmp_path / "full", workers=1)
    assert again.runs == 12 and again.reused == 12
    # A quick run, or replicates set by hand, never adds any.
    quick = core.run_study(_noisy_study(12), core.Settings(quick=True), tmp_path / "q", workers=1)
    assert quick.replicates == 3
    fixed = core.Settings(replicates=4)
    assert core.run_study(_noisy_study(12), fixed, tmp_path / "f", workers=1).replicates == 4
    # Without a cap the study's own count is kept.
    assert (
        core.run_study(_noisy_study(None), core.Settings(), tmp_path / "n", workers=1).replicates
        == 3
    )


def test_a_study_without_sweeps_adds_no_replicates_and_counts_its_own(tmp_path: Path) -> None:
    """A model run in Python (no sweeps): its replicates are its table's runs, and an
    inconclusive check cannot ask for more."""

    def analyse(context: core.Context) -> pd.DataFrame:
        records = [{"metric": "x", "seed": s, "value": float(s % 2)} for s in range(1, 6)]
        return core.summarise(records, [], bounds={"x": UNIT})

    study = core.Study(
        id="T2",
        slug="test-model",
        title="test",
        source="test",
        setup="test",
        assumptions=("test",),
        sweeps=lambda settings: [],
        analyse=analyse,
        claims=(Claim("x", "x > 0.4", lambda t: [compare("x", measure(t, "x"), ">", 0.4)]),),
        figure=core.FigureSpec("x"),
        warmup="none",
        max_replicates=40,
    )
    report = core.run_study(study, core.Settings(), tmp_path, workers=1)
    assert report.verdicts[0].verdict == core.INCONCLUSIVE
    assert report.replicates == 5 and not report.notes
