"""Seed-001 studies (Free-Drop TCP, F1-F4) in --quick mode: the claims that hold robustly.

F1 and F2 share their sweeps, so F2 run into F1's directory reuses F1's runs (no new runs).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from ccsim.studies import core, seed001
from ccsim.studies.core import Settings, run_study
from conftest import requires_engine

QUICK = Settings(quick=True)
STUDY = {s.id: s for s in seed001.STUDIES}


def _have(*names: str) -> bool:
    registry = core.available_algorithms() or set()
    return all(name in registry for name in names)


needs_freedrop = pytest.mark.skipif(
    not _have("newreno", "freedrop"), reason="engine lacks freedrop"
)


def _rows(table: pd.DataFrame, **keys: object) -> pd.DataFrame:
    for key, wanted in keys.items():
        table = table[table[key] == wanted]
    return table


def test_seed001_studies_are_defined_with_assumptions_and_claims() -> None:
    assert list(STUDY) == ["F1", "F2", "F3", "F4"]
    assert len({s.slug for s in seed001.STUDIES}) == 4
    for study in seed001.STUDIES:
        assert study.assumptions and study.claims, study.id


def test_f1_shifted_windows_follow_the_rule() -> None:
    # w(p) = (p - eps)/p^2: the shifted sweeps carry that window, rounded.
    sweeps = {s["name"]: s for s in seed001._f1_sweeps(QUICK)}
    shifted = sweeps["fd-eps0.0005-p0.001"]["scenario"]
    assert shifted["topology"]["loss"] == 1e-3
    assert shifted["flows"][0]["params"]["w"] == round((1e-3 - 5e-4) / 1e-6)
    assert sweeps["tcp"]["axes"]["topology.loss"] == [1e-4, 1e-3, 1e-2]


@pytest.fixture(scope="module")
def lossy(tmp_path_factory: pytest.TempPathFactory) -> dict[str, core.StudyReport]:
    out = tmp_path_factory.mktemp("f1")
    f1 = run_study(STUDY["F1"], QUICK, out, workers=1)
    # Same sweeps, same store: F2 only re-analyses F1's runs.
    f2 = run_study(STUDY["F2"], QUICK, out, workers=1)
    return {"F1": f1, "F2": f2}


@requires_engine
@needs_freedrop
def test_f1_quick_tcp_square_root_law_and_free_drop_above_and_steeper(
    lossy: dict[str, core.StudyReport],
) -> None:
    table = lossy["F1"].table
    slope = "slope d log B / d log p"
    tcp_slope = core.value(table, slope, config="TCP")
    assert -0.6 <= tcp_slope <= -0.4
    tcp = _rows(table, config="TCP", metric="goodput Mb/s").set_index("p")["ours"]
    assert list(tcp.index) == [1e-4, 1e-3, 1e-2]
    for w in (10, 100):
        config = f"FD w={w}"
        fd = _rows(table, config=config, metric="goodput Mb/s").set_index("p")["ours"]
        assert (fd[tcp.index] > tcp).all(), config
        assert core.value(table, slope, config=config) < tcp_slope - 0.2, config
    # The fluid curves sit next to the packet points, and the verdicts follow the checks.
    assert len(_rows(table, config="fluid TCP", metric="goodput Mb/s")) == 3
    assert lossy["F1"].verdict(0) == core.REPRODUCED
    assert lossy["F1"].verdict(1) == core.REPRODUCED
    wall = core.value(table, "engine wall time s", config="all runs")
    assert 0 < wall < 60
    for f in lossy["F1"].files:
        assert Path(f).exists()


@requires_engine
@needs_freedrop
def test_f1_quick_shift_fit_is_reported(lossy: dict[str, core.StudyReport]) -> None:
    fitted = _rows(lossy["F1"].table, config="FD eps=0.0005", metric="fitted eps")
    assert len(fitted) == 1
    assert fitted["published"].iloc[0] == 5e-4
    assert math.isfinite(fitted["ours"].iloc[0])


@requires_engine
@needs_freedrop
def test_f2_quick_reuses_f1_runs_and_reports_cov_ratios(
    lossy: dict[str, core.StudyReport],
) -> None:
    f2 = lossy["F2"]
    assert f2.runs == lossy["F1"].runs  # the same points, from the cache
    table = f2.table
    cov = _rows(table, metric="cwnd CoV")
    assert set(cov["config"]) == {"TCP", "FD w=10", "FD w=100", "FD eps=0.0005"}
    tcp = _rows(cov, config="TCP")["ours"]
    assert ((tcp > 0.1) & (tcp < 1.0)).all()  # a sawtooth, not a flat line
    ratios = _rows(table, metric="mean CoV ratio FD/TCP")
    assert (ratios["published"] == 1.6).all() and len(ratios) == 3


@requires_engine
@needs_freedrop
def test_f3_quick_has_the_four_cases_for_both_protocols(tmp_path: Path) -> None:
    report = run_study(STUDY["F3"], QUICK, tmp_path, workers=1)
    jain = _rows(report.table, metric="Jain index")
    cases = {
        "50Mbps buf 0.2bdp",
        "500Mbps buf 0.2bdp",
        "50Mbps buf 1bdp",
        "500Mbps buf 1bdp",
    }
    for config in ("TCP", "FD w=100"):
        rows = _rows(jain, config=config)
        assert set(rows["case"]) == cases, config
        assert ((rows["ours"] > 0.2) & (rows["ours"] <= 1.0)).all(), config
    assert len(report.verdicts[0].checks) == 8


def test_f4_quick_fluid_monte_carlo_matches_the_closed_forms(tmp_path: Path) -> None:
    report = run_study(STUDY["F4"], QUICK, tmp_path)
    table = report.table
    tcp = _rows(table, metric="B RTT^2 lambda")
    assert len(tcp) == 3
    # B = 2/(RTT^2 lambda) within 5%.
    assert ((tcp["ours"] - 2).abs() <= 0.1).all()
    assert ((_rows(table, metric="slope in p")["ours"] + 1).abs() <= 0.05).all()
    assert ((_rows(table, metric="slope in w")["ours"] + 0.5).abs() <= 0.05).all()
    assert [v.verdict for v in report.verdicts] == [core.REPRODUCED, core.REPRODUCED]
