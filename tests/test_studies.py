"""Named studies (ccsim.studies): the registry, the verdict and table machinery, the command,
and the seed-000 studies in --quick mode with the claims our model reproduces robustly."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from ccsim import studies
from ccsim.errors import ScenarioError
from ccsim.studies import core
from ccsim.studies.core import summarise
from conftest import run_cli

SEED000 = [f"R{i}" for i in range(1, 14)]


def _have(*names: str) -> bool:
    registry = core.available_algorithms() or set()
    return all(name in registry for name in names)


def needs(*names: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not _have(*names), reason=f"engine lacks {', '.join(names)}")


# ---- registry -----------------------------------------------------------------------------------


def test_every_study_is_registered_once_with_a_slug() -> None:
    listed = studies.list_studies()
    ids = [s.id for s in listed]
    assert ids[: len(SEED000)] == SEED000
    assert ids[len(SEED000) :] == [
        "F1", "F2", "F3", "F4", "H1", "H2", "H3", "S1", "S2", "S3", "L1", "L1-light", "L1-areno",
        "B1", "B2", "B3", "B4", "Q1", "Q2", "Q3", "C1", "C2", "C3",
    ]  # fmt: skip
    assert len(set(ids)) == len(ids)
    assert len({s.slug for s in listed}) == len(listed)
    for study in listed:
        assert study.assumptions, study.id  # every study states its assumptions
        assert study.claims, study.id


def test_get_by_id_any_case_or_slug() -> None:
    assert studies.get("r6") is studies.get("R6") is studies.get("phase-effects")
    with pytest.raises(ScenarioError, match="unknown study 'R99'"):
        studies.get("R99")


def test_bad_profile_is_refused() -> None:
    with pytest.raises(ScenarioError, match="unknown profile"):
        studies.run("R6", quick=True, profile="bsd")


# ---- verdicts and tables ------------------------------------------------------------------------


def test_settings_first_seed() -> None:
    assert core.Settings(replicates=3, first_seed=4).seeds(5, 1) == [4, 5, 6]
    assert core.Settings(quick=True).seeds(5, 2) == [1, 2]


def test_summarise_means_spread_and_published_rows() -> None:
    records = [
        {"config": "x", "metric": "m", "seed": 1, "value": 1.0},
        {"config": "x", "metric": "m", "seed": 2, "value": 3.0},
        {"config": "x", "metric": "m", "seed": 3, "value": 2.0},
        {"config": "y", "metric": "m", "seed": 1, "value": 5.0},
        {"config": "y", "metric": "m", "seed": 2, "value": 6.0},
    ]
    table = summarise(records, ["config"], {("x", "m"): 2.5, ("z", "m"): 7.0})
    assert list(table.columns) == ["config", *core.VALUE_COLUMNS]
    x = table[table["config"] == "x"].iloc[0]
    assert (x["ours"], x["runs"], x["published"]) == (2.0, 3, 2.5)
    assert x["sd"] == pytest.approx(1.0)
    # 95% CI of the mean of 1, 3, 2: 2 +- t(0.975, 2) 1 / sqrt(3) = 2 +- 2.4841
    assert (x["ci_low"], x["ci_high"]) == pytest.approx((2 - 2.484138, 2 + 2.484138))
    assert x["replicates"].values == ((1, 1.0), (2, 3.0), (3, 2.0))
    y = table[table["config"] == "y"].iloc[0]
    assert math.isnan(y["published"])
    # Two runs: too few for an interval (t(0.975, 1) = 12.7 makes it meaningless).
    assert y["runs"] == 2 and math.isnan(y["ci_low"]) and math.isnan(y["ci_high"])
    # A published row we did not run is still shown, with our side empty.
    z = table[table["config"] == "z"].iloc[0]
    assert z["runs"] == 0 and math.isnan(z["ours"]) and z["published"] == 7.0
    assert math.isnan(z["ci_low"])
    assert core.value(table, "m", config="x") == 2.0
    assert math.isnan(core.value(table, "m", config="nope"))
    # Shown as the command prints it: the interval, or "-" where there is none.
    header, rows = core.shown_rows(table)
    assert header == ["config", "metric", "ours", "95% CI", "n", "published"]
    assert rows[0] == ["x", "m", "2", "[-0.4841, 4.484]", "3", "2.5"]
    assert rows[1][3] == "-" and rows[2][3:5] == ["-", "0"]


def test_summarise_keeps_intervals_in_the_quantitys_range() -> None:
    """A Jain index near 1 with a wide spread: the t interval would pass 1; within [0, 1] it
    stops there. Several records of one run (one per transfer) make one replicate."""
    records = [
        {"config": "a", "metric": "jain", "seed": s, "value": v}
        for s, v in ((1, 0.99), (2, 0.6), (3, 0.98))
    ] + [
        {"config": "a", "metric": "time", "seed": s, "value": v}
        for s, values in ((1, [1.0, 3.0]), (2, [2.0]), (3, [0.1]))
        for v in values
    ]
    table = summarise(records, ["config"], bounds={"jain": core.UNIT, "time": core.NONNEGATIVE})
    jain = table[table["metric"] == "jain"].iloc[0]
    assert jain["ci_high"] == 1.0 and 0 <= jain["ci_low"] < jain["ours"]
    time_ = table[table["metric"] == "time"].iloc[0]
    assert time_["runs"] == 3 and time_["ours"] == pytest.approx((2.0 + 2.0 + 0.1) / 3)
    assert time_["ci_low"] == 0.0


def test_tables_without_intervals_get_them_from_sd_and_runs() -> None:
    table = pd.DataFrame(
        [
            {"config": "a", "metric": "m", "ours": 2.5, "sd": math.sqrt(5 / 3), "runs": 4},
            {"config": "b", "metric": "m", "ours": 1.0, "sd": 0.5, "runs": 2},
        ]
    ).assign(published=math.nan)
    filled = core.with_intervals(table)
    assert list(filled.columns) == [
        "config",
        "metric",
        "ours",
        "sd",
        "ci_low",
        "ci_high",
        "runs",
        "published",
    ]
    half = 3.182446305284263 * math.sqrt(5 / 3) / 2  # t(0.975, 3) s / sqrt(4)
    assert filled["ci_high"].iloc[0] == pytest.approx(2.5 + half)
    assert math.isnan(filled["ci_low"].iloc[1])  # two runs: no interval
    assert core.with_intervals(filled) is filled


# Every study states its warm-up.
STATED = studies.list_studies()


@pytest.mark.parametrize("study", STATED, ids=[s.id for s in STATED])
def test_every_study_states_its_warm_up(study: core.Study) -> None:
    assert study.warmup, f"{study.id} does not state its warm-up"
    assert study.warmup.startswith("none") or any(ch.isdigit() for ch in study.warmup)
    from rich.console import Console

    console = Console(record=True, width=200)
    core.print_setup(study, core.Settings(quick=True), console)
    assert f"warm-up: {study.warmup}" in console.export_text()


def test_study_command_repeats_the_settings() -> None:
    r6 = studies.get("R6")
    assert core.study_command(r6, core.Settings()) == "ccsim study R6"
    settings = core.Settings(quick=True, profile="linux", replicates=2, first_seed=3)
    assert core.study_command(r6, settings, Path("results/studies/R6-linux-quick")) == (
        "ccsim study R6 --quick --profile linux --replicates 2 --first-seed 3"
    )
    assert core.study_command(r6, settings, "out dir") == (
        "ccsim study R6 --quick --profile linux --replicates 2 --first-seed 3 --out 'out dir'"
    )


def test_missing_algorithms_are_dropped_not_run() -> None:
    sweep = {
        "name": "s",
        "scenario": {"flows": [{"cc": "reno"}]},
        "compare": {
            "algorithms": ["paced", {"name": "r", "cc": "randomized"}, "newreno"],
            "mixtures": ["one"],
            "baseline": "reno",
        },
    }
    pruned, missing = core.prune(sweep, {"reno", "newreno"})
    assert missing == ["paced", "randomized"]
    assert pruned is not None and pruned["compare"]["algorithms"] == ["newreno"]
    assert sweep["compare"]["algorithms"][0] == "paced"  # the study's own dict is not changed
    # Nothing left to compare: only the all-baseline reference runs.
    pruned, _ = core.prune(sweep, {"reno"})
    assert pruned is not None and pruned["compare"] == {
        "algorithms": ["reno"],
        "mixtures": ["all"],
        "baseline": "reno",
    }
    # Without the baseline the sweep cannot run at all.
    assert core.prune(sweep, {"newreno"})[0] is None


# ---- the command --------------------------------------------------------------------------------


def test_cli_lists_studies(tmp_path: Path) -> None:
    done = run_cli("study", "--list", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for text in ("R1", "R13", "phase-effects", "burst-losses"):
        assert text in done.stdout


def test_cli_unknown_study_is_one_line_and_status_2(tmp_path: Path) -> None:
    done = run_cli("study", "R99", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: unknown study 'R99'")
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "results").exists()
