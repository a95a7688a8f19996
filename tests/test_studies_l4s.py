"""Studies Q1-Q3 (L4S: DualPI2 coexistence, a scalable flow in one classic queue, RTT
independence): the configurations, the claims on hand-made replicate tables, and each study's
quick run through ``ccsim.studies.run`` (its table, its files, checks that evaluate; outcomes
are not fixed here: quick runs are a first look, not results).

Configurations of ``prague`` run once the engine has it; until then Q1 and Q2 have DCTCP's rows
only and Q3's claims about Prague are "not run in --quick".
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from ccsim import studies
from ccsim.studies import core, l4s
from ccsim.studies.checks import OUTCOMES
from ccsim.studies.core import (
    FAILED,
    HELD,
    INCONCLUSIVE,
    NOT_RUN_QUICK,
    REPRODUCED,
    REVERSED,
    Settings,
    summarise,
)
from ccsim.studies.l4s import claims as l4s_claims
from ccsim.studies.l4s.common import (
    C_DELAY,
    JAIN,
    L_DELAY,
    L_DROPS,
    RATIO,
    SHORT_LONG,
    SHORT_TARGET,
)
from conftest import requires_engine, run_cli

SEEDS = (1, 2, 3)


def _have(name: str) -> bool:
    return name in (core.available_algorithms() or set())


# ---- configurations --------------------------------------------------------------------------------


def test_every_configuration_declares_its_flows() -> None:
    """Full runs: Q1 2 paths x 2 senders x 3 counts, Q2 2 paths x 2 senders x 4 queues; every
    scalable flow first; DualPI2 classifies every ECN-capable packet into L."""
    full = Settings(quick=False, profile="linux")
    q1 = l4s.q1_configs(full)
    assert len(q1) == 12 and len({c.name for c in q1}) == 12
    assert sorted({len(c.flows) - 1 for c in q1}) == [1, 4, 8]
    assert {c.flows[0]["cc"] for c in q1} == {"prague", "dctcp"}
    assert {f["cc"] for c in q1 for f in c.flows[1:]} == {"cubic"}
    assert {c.queue for c in q1} == {"dualpi2"}
    assert all(c.queue_table == {"classify": "any_ect"} for c in q1)
    q2 = l4s.q2_configs(full)
    assert len(q2) == 16
    assert {c.keys["queue"] for c in q2} == {"fifo", "red-ecn", "fq_codel", "dualpi2"}
    red = next(c for c in q2 if c.keys["queue"] == "red-ecn")
    assert red.queue == "red" and red.queue_table is not None and red.queue_table["ecn"]
    assert red.buffer == "1bdp" and red.bdp_rtt == "50ms"
    quick = Settings(quick=True, profile="linux")
    assert len(l4s.q1_configs(quick)) == 4 and len(l4s.q2_configs(quick)) == 8
    for study in l4s.STUDIES:
        assert study.profile == "linux"
        sweep = study.sweeps(full)[0]
        assert sweep["seeds"] == [1, 2, 3, 4, 5]
        assert core.prune(sweep, {"cubic", "dctcp"})[1] in ([], ["prague"])


def test_q3_declares_five_rtts_and_the_variants_it_can_write() -> None:
    configs = l4s.q3_configs(Settings(quick=False, profile="linux"))
    names = [c.name for c in configs]
    assert "q3-prague" in names and "q3-dctcp" in names
    for config in configs:
        assert [f["rtt"] for f in config.flows] == ["5ms", "10ms", "25ms", "50ms", "100ms"]
    # Prague without its scaling is declared exactly when the engine's Prague can turn it off.
    scaling = l4s.prague_scaling_param()
    assert ("q3-prague-no-scaling" in names) == (scaling is not None)
    if scaling is not None:
        off = next(c for c in configs if c.name == "q3-prague-no-scaling")
        assert off.flows[0]["params"] == {scaling[0]: scaling[1]}


# ---- the claims on hand-made tables ----------------------------------------------------------------


def _q1_table(values: dict[str, tuple[float, float, float]], l4s_cc: str = "dctcp") -> pd.DataFrame:
    records = [
        {
            "config": f"40M-50ms {l4s_cc}",
            "path": "40M-50ms",
            "l4s": l4s_cc,
            "n_cubic": 1,
            "metric": metric,
            "seed": seed,
            "value": v,
        }
        for metric, per_seed in values.items()
        for seed, v in zip(SEEDS, per_seed, strict=True)
    ]
    return summarise(records, ["config", "path", "l4s", "n_cubic"], bounds=l4s.BOUNDS)


def test_q1_claims_as_designed_and_missed() -> None:
    good = _q1_table(
        {
            RATIO: (0.9, 1.0, 1.1),
            L_DELAY: (0.2, 0.3, 0.25),
            C_DELAY: (14.0, 15.0, 16.0),
            L_DROPS: (0.0, 0.0, 0.0),
        }
    )
    assert [c.judge(good).verdict for c in l4s.Q1.claims] == [REPRODUCED] * 4
    bad = _q1_table(
        {
            RATIO: (4.0, 5.0, 6.0),
            L_DELAY: (3.0, 3.2, 3.1),
            C_DELAY: (5.0, 5.5, 6.0),
            L_DROPS: (1.0, 1.2, 1.1),
        }
    )
    outcomes = [c.judge(bad).checks[0].outcome for c in l4s.Q1.claims]
    # A missed band or threshold is a failure: none of these claims has an opposite.
    assert outcomes == [FAILED] * 4


def test_q1_c_delay_is_relative_to_the_target() -> None:
    """15 ms +- 20 %: 12-18 ms holds, a mean of 17.9 whose interval crosses 18 is inconclusive."""
    inside = _q1_table({C_DELAY: (14.5, 15.0, 15.5)})
    assert [c.outcome for c in l4s_claims.q1_c_delay(inside)] == [HELD]
    edge = _q1_table({C_DELAY: (17.5, 17.9, 18.3)})
    assert [c.outcome for c in l4s_claims.q1_c_delay(edge)] == [INCONCLUSIVE]


def _q2_table(ratios: dict[str, tuple[float, float, float]]) -> pd.DataFrame:
    records = [
        {
            "config": "40M-50ms dctcp",
            "path": "40M-50ms",
            "l4s": "dctcp",
            "queue": queue,
            "metric": RATIO,
            "seed": seed,
            "value": v,
        }
        for queue, per_seed in ratios.items()
        for seed, v in zip(SEEDS, per_seed, strict=True)
    ]
    return summarise(records, ["config", "path", "l4s", "queue"], bounds=l4s.BOUNDS)


def test_q2_claims_published_and_reversed() -> None:
    published = _q2_table(
        {"red-ecn": (8.0, 10.0, 12.0), "fifo": (1.1, 1.2, 1.3), "fq_codel": (0.95, 1.0, 1.05)}
    )
    assert [c.judge(published).verdict for c in l4s.Q2.claims] == [REPRODUCED] * 4
    # The opposite world: the classic flow wins under RED, the scalable one dominates the FIFO,
    # FQ-CoDel further from even than RED.
    opposite = _q2_table(
        {"red-ecn": (0.5, 0.6, 0.7), "fifo": (5.0, 6.0, 7.0), "fq_codel": (0.2, 0.25, 0.3)}
    )
    verdicts = [c.judge(opposite).verdict for c in l4s.Q2.claims]
    assert verdicts[0] == verdicts[1] == verdicts[3] == REVERSED
    assert [c.outcome for c in l4s_claims.q2_fq(opposite)] == [FAILED]


def test_q2_even_ratio_under_red_is_inconclusive_not_a_win() -> None:
    even = _q2_table({"red-ecn": (1.0, 1.0, 1.0)})
    assert [c.outcome for c in l4s_claims.q2_classic_ecn(even)] == [INCONCLUSIVE]


def _q3_table(rows: dict[str, dict[str, tuple[float, float, float]]]) -> pd.DataFrame:
    scaling = {"prague": "on", "prague-no-scaling": "off", "dctcp": "off"}
    records = [
        {
            "config": config,
            "algorithm": config.split("-")[0],
            "rtt_scaling": scaling[config],
            "metric": metric,
            "seed": seed,
            "value": v,
        }
        for config, metrics in rows.items()
        for metric, per_seed in metrics.items()
        for seed, v in zip(SEEDS, per_seed, strict=True)
    ]
    return summarise(records, ["config", "algorithm", "rtt_scaling"], bounds=l4s.BOUNDS)


def test_q3_claims_with_and_without_prague() -> None:
    scaled = {SHORT_TARGET: (0.95, 1.0, 1.05), SHORT_LONG: (1.5, 1.6, 1.7), JAIN: (0.9,) * 3}
    unscaled = {SHORT_TARGET: (5.0, 6.0, 7.0), SHORT_LONG: (50.0, 60.0, 70.0), JAIN: (0.4,) * 3}
    table = _q3_table({"prague": scaled, "prague-no-scaling": unscaled, "dctcp": unscaled})
    assert [c.judge(table).verdict for c in l4s.Q3.claims] == [REPRODUCED] * 3
    assert len(l4s_claims.q3_dependent_without(table)) == 2
    # Without Prague only DCTCP's claim is judged; the two about Prague are not run.
    dctcp_only = _q3_table({"dctcp": unscaled})
    verdicts = [c.judge(dctcp_only, quick=True).verdict for c in l4s.Q3.claims]
    assert verdicts == [NOT_RUN_QUICK, REPRODUCED, NOT_RUN_QUICK]


# ---- quick runs ------------------------------------------------------------------------------------


def _quick(sid: str, out: Path) -> studies.StudyReport:
    report = studies.run(sid, quick=True, out=out / sid, workers=2)
    assert report.replicates == 3
    assert report.settings.profile == "linux"
    for name in (f"{sid}.csv", f"{sid}-runs.csv", f"{sid}.png", f"{sid}-verdicts.csv"):
        assert (report.directory / name).stat().st_size > 0, name
    metadata = json.loads((report.directory / "study.json").read_text())
    assert [v["verdict"] for v in metadata["verdicts"]] == [v.verdict for v in report.verdicts]
    for verdict in report.verdicts:
        assert verdict.verdict in core.VERDICTS
        assert {c.outcome for c in verdict.checks} <= set(OUTCOMES)
    table = report.table[report.table["runs"] > 0]
    for metric, (low, high) in l4s.BOUNDS.items():
        values = table[table["metric"] == metric]["ours"]
        assert ((values >= low - 1e-12) & (values <= high + 1e-12)).all(), metric
    return report


def _senders() -> set[str]:
    return {"prague", "dctcp"} if _have("prague") else {"dctcp"}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("l4s-studies")


@requires_engine
def test_q1_quick(out: Path) -> None:
    """Q1 quick: 40 Mb/s, 50 ms; 1 and 4 CUBIC flows; the L queue short, nothing dropped there."""
    report = _quick("Q1", out)
    table = report.table[report.table["runs"] > 0]
    assert set(table["l4s"]) == _senders()
    assert set(table["n_cubic"]) == {1, 4}
    assert [len(v.checks) for v in report.verdicts] == [2 * len(_senders())] * 4
    l_delay = table[table["metric"] == L_DELAY]["ours"]
    assert (l_delay < table[table["metric"] == C_DELAY]["ours"].min()).all()


@requires_engine
def test_q2_quick(out: Path) -> None:
    """Q2 quick: 40 Mb/s, 50 ms, the four queues, one scalable flow against one CUBIC flow."""
    report = _quick("Q2", out)
    table = report.table[report.table["runs"] > 0]
    assert set(table["queue"]) == {"fifo", "red-ecn", "fq_codel", "dualpi2"}
    assert [len(v.checks) for v in report.verdicts] == [len(_senders())] * 4


@requires_engine
def test_q3_quick(out: Path) -> None:
    """Q3 quick: DCTCP always; Prague's claims only once the engine has it."""
    report = _quick("Q3", out)
    table = report.table[report.table["runs"] > 0]
    assert "dctcp" in set(table["config"])
    ranks = table[table["metric"] == "rank correlation RTT-goodput"]["ours"]
    assert ranks.between(-1, 1).all()
    if not _have("prague"):
        assert [v.verdict for v in report.verdicts][0::2] == [NOT_RUN_QUICK] * 2
        assert any("not in this engine" in note for note in report.notes)


@requires_engine
def test_cli_lists_the_l4s_studies(tmp_path: Path) -> None:
    done = run_cli("study", "--list", "--format", "csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for text in ("l4s-dualpi2-coexistence", "l4s-single-queue", "l4s-rtt-independence"):
        assert text in done.stdout
    assert not math.isnan(l4s_claims.C_TARGET_MS)
