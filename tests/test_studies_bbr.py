"""Studies B1-B4 (BBR against CUBIC, BBR v3 against v1): Ware et al.'s model worked by hand,
the claims on hand-made replicate tables, and each study's quick run through
``ccsim.studies.run`` (its table, its files, and checks that evaluate; outcomes are not fixed
here: quick runs are a first look, not results).

Configurations of ``bbr3`` run once the engine has it; until then B4's claims, which all
compare v3 with v1, are "not run in --quick", and B3 has v1's rows only.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from ccsim import studies
from ccsim.studies import bbr, core
from ccsim.studies.bbr import claims as bbr_claims
from ccsim.studies.bbr.common import BBR_RETX, BBR_SHARE, CUBIC_RETX, LONG_SHORT, RANK
from ccsim.studies.checks import OUTCOMES
from ccsim.studies.core import (
    HELD,
    INCONCLUSIVE,
    NO_DATA,
    NOT_RUN_QUICK,
    REPRODUCED,
    REVERSED,
    Settings,
    summarise,
)
from conftest import requires_engine, run_cli

SEEDS = (1, 2, 3)


def _have(name: str) -> bool:
    return name in (core.available_algorithms() or set())


# ---- Ware et al.'s model ---------------------------------------------------------------------------


def test_ware_model_by_hand() -> None:
    """100 Mb/s, 40 ms, 1500-byte packets: c = 8333.3 packets/s, one BDP 333.3 packets.

    4 BDP: q = 1333.3, p = 1/2 - 1/8 - 4/1333.3 = 0.372, PROBE_RTT (0.16 + 0.2 + 0.04) / 10
    = 0.04 of the time: BBR (1 - 0.372) x 0.96 = 0.6029. 16 BDP: p = 0.5 - 1/32 - 4/5333.3 =
    0.46800, PROBE_RTT 0.088: 0.53200 x 0.912 = 0.48518."""
    assert bbr.ware_share(4.0, 100e6) == pytest.approx(0.628 * 0.96, abs=1e-6)
    assert bbr.ware_share(16.0, 100e6) == pytest.approx(0.532 * 0.912, abs=1e-6)
    # One BDP: the loss-based flows' part is negative, BBR's share is capped at the link.
    assert bbr.ware_share(0.5, 100e6) == 1.0
    # The loss-based flows' count does not enter; more BBR flows lower the loss-based part by
    # their 4 packets each.
    assert bbr.ware_share(16.0, 100e6, bbr_flows=4) > bbr.ware_share(16.0, 100e6)


def test_b3_rtts_are_evenly_spaced() -> None:
    assert bbr.b3_rtts_ms(2) == [10.0, 100.0]
    assert bbr.b3_rtts_ms(10) == [10.0 + 10.0 * i for i in range(10)]


def test_every_configuration_declares_its_flows() -> None:
    """Full runs: B1 has 8 buffers at 100 Mb/s and 4 at 1 Gb/s, each 1v1 and 2v2; B2 5 counts x
    2 buffers; B3 and B4 declare v3 beside v1 (pruned, not run, while the engine lacks it)."""
    full = Settings(quick=False, profile="linux")
    b1 = bbr.b1_configs(full)
    assert len(b1) == (8 + 4) * 2 and len({c.name for c in b1}) == len(b1)
    assert {len(c.flows) for c in b1} == {2, 4}
    b2 = bbr.b2_configs(full)
    assert sorted({len(c.flows) - 1 for c in b2}) == [1, 2, 4, 8, 16]
    assert {c.flows[0]["cc"] for c in b2} == {"bbr"}
    assert {c.keys["algorithm"] for c in bbr.b3_configs(full)} == {"bbr", "bbr3"}
    assert {c.keys["algorithm"] for c in bbr.b4_configs(full)} == {"bbr", "bbr3"}
    for study in bbr.STUDIES:
        assert study.profile == "linux"
        sweep = study.sweeps(full)[0]
        assert sweep["seeds"] == [1, 2, 3, 4, 5]
        pruned, missing = core.prune(sweep, {"cubic", "reno"})
        assert pruned is None and missing == ["bbr"]


# ---- the claims on hand-made tables ----------------------------------------------------------------


def _table(rows: dict[tuple[str, float, str], tuple[float, float, float]]) -> pd.DataFrame:
    records = [
        {
            "config": config,
            "rate": config.split()[0],
            "mix": config.split()[1],
            "buffer_bdp": bdp,
            "metric": metric,
            "seed": seed,
            "value": value,
        }
        for (config, bdp, metric), values in rows.items()
        for seed, value in zip(SEEDS, values, strict=True)
    ]
    return summarise(records, ["config", "rate", "mix", "buffer_bdp"], bounds=bbr.BOUNDS)


def _b1_world(shallow_share: float, deep_share: float) -> pd.DataFrame:
    rows: dict[tuple[str, float, str], tuple[float, float, float]] = {}
    for bdp, share in ((0.1, shallow_share), (0.5, shallow_share - 0.02), (16.0, deep_share)):
        spread = (share - 0.01, share, share + 0.01)
        rows[("100M 1v1", bdp, BBR_SHARE)] = spread
        rows[("100M 1v1", bdp, BBR_RETX)] = (2.0, 2.1, 2.2)
        rows[("100M 1v1", bdp, CUBIC_RETX)] = (0.5, 0.6, 0.7)
    return _table(rows)


def test_b1_claims_as_published_and_reversed() -> None:
    published = bbr.B1.claims
    table = _b1_world(0.9, 0.2)
    assert [c.judge(table).verdict for c in published] == [REPRODUCED] * 4
    # Judged on what ran: two shallow buffers, the deepest one, one trend per configuration.
    assert len(bbr_claims.b1_shallow_share(table)) == 2
    assert len(bbr_claims.b1_deep_share(table)) == 1
    swapped = _b1_world(0.2, 0.9)
    assert [c.judge(swapped).verdict for c in published[:3]] == [REVERSED] * 3


def test_b1_tie_is_inconclusive_and_missing_rows_are_not_run() -> None:
    even = _b1_world(0.5, 0.5)
    outcomes = [check.outcome for check in bbr_claims.b1_deep_share(even)]
    assert outcomes == [INCONCLUSIVE]
    empty = _table({})
    assert [c.judge(empty, quick=True).verdict for c in bbr.B1.claims] == [NOT_RUN_QUICK] * 4


def test_b3_claim_reads_rank_and_ratio() -> None:
    records = [
        {"algorithm": "bbr", "flows": 2, "metric": m, "seed": s, "value": v}
        for s in SEEDS
        for m, v in ((RANK, 1.0 - 0.1 * s), (LONG_SHORT, 2.0 + s))
    ]
    table = summarise(records, ["algorithm", "flows"], bounds=bbr.BOUNDS)
    checks = bbr_claims.b3_longer_rtt_gets_more(table)
    assert [c.outcome for c in checks] == [HELD, HELD]


def test_b4_claims_need_both_versions() -> None:
    records = [
        {
            "config": f"bbr vs {p}",
            "algorithm": "bbr",
            "partner": p,
            "buffer_bdp": 2.0,
            "metric": BBR_SHARE,
            "seed": s,
            "value": 0.9,
        }
        for p in ("cubic", "reno")
        for s in SEEDS
    ]
    table = summarise(records, ["config", "algorithm", "partner", "buffer_bdp"], bounds=bbr.BOUNDS)
    checks = bbr_claims.b4_coexistence(table)
    assert len(checks) == 2 and {c.outcome for c in checks} == {NO_DATA}


# ---- quick runs ------------------------------------------------------------------------------------


def _quick(sid: str, out: Path) -> studies.StudyReport:
    report = studies.run(sid, quick=True, out=out / sid, workers=2)
    assert report.replicates == 3
    assert report.settings.profile == "linux"
    _files_written(report)
    for verdict in report.verdicts:
        assert verdict.verdict in core.VERDICTS
        assert verdict.checks, verdict.claim
        assert {c.outcome for c in verdict.checks} <= set(OUTCOMES)
    return report


def _files_written(report: studies.StudyReport) -> None:
    sid = report.study.id
    for name in (f"{sid}.csv", f"{sid}-runs.csv", f"{sid}.png", f"{sid}-verdicts.csv"):
        assert (report.directory / name).stat().st_size > 0, name
    metadata = json.loads((report.directory / "study.json").read_text())
    assert metadata["study"] == sid
    assert [v["verdict"] for v in metadata["verdicts"]] == [v.verdict for v in report.verdicts]
    csv = pd.read_csv(report.directory / f"{sid}.csv")
    shown = csv.dropna(subset=["ci_low"])
    assert (shown["ci_low"] <= shown["ours"] + 1e-12).all()
    assert (shown["ours"] <= shown["ci_high"] + 1e-12).all()


def _ran(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["runs"] > 0]


def _in_range(table: pd.DataFrame) -> None:
    for metric, (low, high) in bbr.BOUNDS.items():
        values = _ran(table[table["metric"] == metric])["ours"]
        assert ((values >= low - 1e-12) & (values <= high + 1e-12)).all(), metric


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bbr-studies")


@requires_engine
def test_b1_quick(out: Path) -> None:
    """B1 quick: 100 Mb/s, buffers 0.25, 1 and 16 BDP, 1v1 and 2v2, 3 seeds of 20 s."""
    report = _quick("B1", out)
    table = _ran(report.table)
    assert set(table["config"]) == {"100M 1v1", "100M 2v2"}
    assert set(table["buffer_bdp"]) == {0.25, 1.0, 16.0}
    assert set(table["runs"]) == {3}
    _in_range(table)
    # Every claim is judged on what ran: two configurations each.
    assert [len(v.checks) for v in report.verdicts] == [2, 2, 2, 2]
    assert NOT_RUN_QUICK not in {v.verdict for v in report.verdicts}


@requires_engine
def test_b2_quick(out: Path) -> None:
    """B2 quick: 1 BBR vs 1, 4 and 16 CUBIC in 16 BDP; the model is the published column."""
    report = _quick("B2", out)
    shares = _ran(report.table[report.table["metric"] == BBR_SHARE])
    assert sorted(shares["n_cubic"]) == [1, 4, 16]
    assert shares["published"].tolist() == pytest.approx([bbr.ware_share(16.0, 100e6)] * 3)
    _in_range(report.table)
    assert [len(v.checks) for v in report.verdicts] == [2, 3]


@requires_engine
def test_b3_quick(out: Path) -> None:
    """B3 quick: 2 and 5 flows of each version at RTTs 10-100 ms."""
    report = _quick("B3", out)
    table = _ran(report.table)
    algorithms = {"bbr", "bbr3"} if _have("bbr3") else {"bbr"}
    assert set(table["algorithm"]) == algorithms
    assert set(table["flows"]) == {2, 5}
    _in_range(table)
    ranks = table[table["metric"] == RANK]["ours"]
    assert ranks.between(-1, 1).all() and not ranks.isna().any()
    assert len(report.verdicts[0].checks) == 4


@requires_engine
def test_b4_quick(out: Path) -> None:
    """B4 quick: 2 BDP; every claim compares v3 with v1, so without bbr3 none is run."""
    report = _quick("B4", out)
    table = _ran(report.table)
    assert set(table["partner"]) == {"cubic", "reno", "itself"}
    _in_range(table)
    if _have("bbr3"):
        assert set(table["algorithm"]) == {"bbr", "bbr3"}
        assert NOT_RUN_QUICK not in {v.verdict for v in report.verdicts}
    else:
        assert set(table["algorithm"]) == {"bbr"}
        assert [v.verdict for v in report.verdicts] == [NOT_RUN_QUICK] * 3
        assert any("not in this engine" in note for note in report.notes)


@requires_engine
def test_cli_lists_the_bbr_studies(tmp_path: Path) -> None:
    done = run_cli("study", "--list", "--format", "csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for text in ("bbr-vs-cubic-buffers", "bbr-vs-n-cubic", "bbr-rtt-fairness", "bbr-v3-vs-v1"):
        assert text in done.stdout
    assert not math.isnan(bbr.ware_share(2.0, 1e9))
