"""Seed-002 study H1 (TCP-Fusion, one flow on a lossy 100 Mb/s link) in a shortened quick run.

The run is H1's quick mode cut to six algorithms (Reno, Fusion, the proposal, AReno, FAST, Libra)
and p = 1e-4, 1e-3, 1e-2 (about 6 s on one core). Bounds below come from seeds 1, 2 and 3
(goodput Mb/s, seed 1 / 2 / 3):

    p = 1e-4: reno 26.6/27.1/29.5, libra 26.8/27.5/29.7, areno 82.1/85.9/79.9,
              fast 88.5/89.7/88.7, fusion = fusion-rf 94.6/94.6/94.7
    p = 1e-3: reno 7.8/10.2/7.9, libra 7.9/10.6/8.1, areno 46.7/67.2/34.9,
              fast 61.2/63.0/61.0, fusion = fusion-rf 92.5/94.4/78.4
    p = 1e-2: reno 2.24/2.14/2.38, libra 2.32/2.41/2.58, areno 11.5/12.0/10.7,
              fast 15.7/16.2/16.0, fusion = fusion-rf 32.7/34.0/20.8

so the smallest winner/Reno ratio is 2.7 (AReno at 1e-4), fusion-rf equals fusion to 0.1 %, Libra
is within 13 % of Reno, and every curve falls with p.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd
import pytest
from ccsim import studies
from ccsim.studies import core, seed002
from ccsim.studies.core import REPRODUCED, REVERSED, Settings, run_study
from conftest import requires_engine

ALGORITHMS = ("reno", "fusion", "fusion-rf", "areno", "fast", "libra")
LOSSES = [1e-4, 1e-3, 1e-2]
H1 = seed002.STUDIES[0]


def _have(*names: str) -> bool:
    registry = core.available_algorithms() or set()
    return all(name in registry for name in names)


def _small(settings: Settings) -> list[dict[str, Any]]:
    sweeps = []
    for sweep in seed002._h1_sweeps(settings):
        if sweep["name"] in ALGORITHMS:
            sweep["axes"]["topology.loss"] = LOSSES
            sweeps.append(sweep)
    return sweeps


def test_h1_is_registered_with_the_fig2_topology() -> None:
    assert studies.get("H1") is H1
    assert studies.get("fusion-lossy-link") is H1
    assert H1.assumptions and len(H1.claims) == 5
    full = {s["name"]: s for s in seed002._h1_sweeps(Settings())}
    assert set(full) == set(seed002.ALGORITHMS)
    scenario = full["fusion-rf"]["scenario"]
    topology = scenario["topology"]
    assert topology["bottleneck_rate"] == "100Mbps"
    assert topology["bottleneck_delay"] == "1ms"
    assert topology["access_rate"] == "1Gbps"
    assert topology["buffer"] == "1bdp"
    assert scenario["flows"][0]["rtt"] == "40ms"
    assert scenario["stack"] == {"sack": True}
    assert full["reno"]["axes"]["topology.loss"] == list(seed002.LOSSES)
    quick = seed002._h1_sweeps(Settings(quick=True))
    assert len(quick) < len(full)


def _table(goodputs: dict[str, list[float]]) -> pd.DataFrame:
    records = [
        {"algorithm": a, "loss": p, "metric": seed002.GOODPUT, "value": v}
        for a, values in goodputs.items()
        for p, v in zip(seed002.LOSSY, values, strict=True)
    ]
    return core.summarise(records, ["algorithm", "loss"])


def test_h1_winner_claim_can_fail_and_reverse() -> None:
    claim = H1.claims[2]
    losing = _table(
        {
            "reno": [90.0, 80.0, 70.0, 60.0, 50.0],
            "scalable": [95.0, 90.0, 80.0, 70.0, 60.0],
            "fusion-rf": [10.0, 9.0, 8.0, 7.0, 6.0],
            "areno": [10.0, 9.0, 8.0, 7.0, 6.0],
            "fast": [10.0, 9.0, 8.0, 7.0, 6.0],
        }
    )
    assert claim.judge(losing).verdict == REVERSED
    winning = _table(
        {
            "reno": [10.0, 9.0, 8.0, 7.0, 6.0],
            "fusion-rf": [90.0, 80.0, 70.0, 60.0, 50.0],
            "areno": [90.0, 80.0, 70.0, 60.0, 50.0],
            "fast": [90.0, 80.0, 70.0, 60.0, 50.0],
        }
    )
    assert claim.judge(winning).verdict == REPRODUCED


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> core.StudyReport:
    if not _have(*ALGORITHMS):
        pytest.skip("engine lacks a seed-002 algorithm")
    study = dataclasses.replace(H1, sweeps=_small)
    return run_study(study, Settings(quick=True), tmp_path_factory.mktemp("h1"), workers=1)


def _goodput(report: core.StudyReport) -> pd.DataFrame:
    rows = report.table[report.table["metric"] == seed002.GOODPUT]
    return rows.pivot(index="algorithm", columns="loss", values="ours")


@requires_engine
def test_h1_quick_winners_beat_reno_at_every_loss_rate(quick: core.StudyReport) -> None:
    goodput = _goodput(quick)
    for p in LOSSES:
        for winner in seed002.WINNERS:
            # smallest measured ratio 2.7 (AReno at p = 1e-4)
            assert goodput.loc[winner, p] > 2 * goodput.loc["reno", p], (winner, p)
    assert quick.verdict(2) == REPRODUCED


@requires_engine
def test_h1_quick_proposal_is_fusion_and_libra_is_reno(quick: core.StudyReport) -> None:
    goodput = _goodput(quick)
    np.testing.assert_allclose(goodput.loc["fusion-rf"], goodput.loc["fusion"], rtol=0.01)
    np.testing.assert_allclose(goodput.loc["libra"], goodput.loc["reno"], rtol=0.2)
    assert quick.verdict(3) == REPRODUCED
    assert quick.verdict(4) == REPRODUCED


@requires_engine
def test_h1_quick_goodput_falls_with_loss(quick: core.StudyReport) -> None:
    goodput = _goodput(quick)
    for algorithm in ALGORITHMS:
        row = goodput.loc[algorithm, LOSSES].to_numpy()
        assert np.all(np.diff(row) < 0), algorithm
    # No point below 1e-5 in this run: the near-link-rate claim is not run, not passed.
    assert quick.verdict(0) == core.NOT_RUN
    assert (quick.directory / "H1-loglog.png").exists()


# ---- H2 and H3 -----------------------------------------------------------------------------------
#
# Quick runs of seeds 1-4, one seed at a time (`ccsim study H2 --quick --replicates 1
# --first-seed k`), gave (seed 1 / 2 / 3 / 4):
#
#   H2, RED, Jain's index: proposal 0.993/0.996/0.977/0.992, fusion 0.759/0.869/0.739/0.691,
#       reno 0.754/0.812/0.774/0.896
#   H2, RED, throughput variance (Mb/s)^2: proposal 4.0/2.3/13.4/4.6, fusion 185/87/204/257,
#       reno 142/97/132/48
#   H2, DropTail losses after warm-up: proposal 435/413/361/336, fusion 9/205/4/5, reno 5/0/3/4
#   H2, 40/50 ms vs 80/100 ms goodput (Mb/s; the seeds with the smallest .. largest ratio):
#       DropTail reno 31.4 vs 16.6 .. 41.0 vs 7.1, fusion 26.0 vs 22.1 .. 40.4 vs 7.7; RED reno
#       25.4 vs 15.1 .. 32.7 vs 9.8, fusion 28.7 vs 19.4 .. 36.8 vs 11.2
#   H2, 40 ms vs 100 ms flow: the 40 ms flow got more in every seed and queue except seed 1 under
#       DropTail (Reno 21.6 vs 24.5, Fusion 17.9 vs 37.5 Mb/s)
#   H3: proposal max/min over RTT 1.31 (seeds 1-2 mean) and 1.23-1.48 single seeds, Reno's
#       4.6-6.3; the Reno flow's share against the proposal >= 35 % at every RTT in the seeds 1-2
#       mean, >= 31.9 % in seeds 1-3, and 29.7 % at 100 ms in seed 4
#
# The tests run the default quick mode (seeds 1 and 2 together), where every asserted bound held,
# including the two that one single seed misses (seed 1's 40 vs 100 ms DropTail flows, seed 4's
# share). Three claims vary from seed to seed at this scale and are not asserted here: the DropTail
# dominance claim (partly in seed 1), RED's Fusion-vs-Reno loss order (Fusion lost fewer packets
# than Reno in seeds 2-4; Fusion 17-20, Reno 18-20) and H3's Fusion-above-Reno claim (partly in
# seeds 1 and 3, where Fusion got less than the Reno flow at equal RTTs).

H2 = studies.get("H2")
H3 = studies.get("H3")


def test_h2_h3_are_registered_with_the_papers_setup() -> None:
    assert studies.get("fusion-rtt-fairness") is H2
    assert studies.get("fusion-reno-friendliness") is H3
    sweeps = seed002._h2_sweeps(Settings())
    assert {s["name"] for s in sweeps} == {
        f"{cc}-{q}" for cc in ("reno", "fusion", "fusion-rf") for q in ("droptail", "red")
    }
    scenario = next(s for s in sweeps if s["name"] == "fusion-rf-red")["scenario"]
    assert scenario["topology"]["bdp_rtt"] == "100ms"
    assert [f["rtt"] for f in scenario["flows"]] == ["40ms", "50ms", "80ms", "100ms"]
    red = scenario["topology"]["red"]
    # ns-2's automatic RED for 100 Mb/s with mean_pktsize_ 500: C = 25000 packets/s.
    assert red["min_th"] == pytest.approx(0.005 * 25000 / 2)
    assert red["max_th"] == pytest.approx(3 * red["min_th"])
    assert red["w_q"] == pytest.approx(4.0e-5, rel=1e-3)
    h3 = seed002._h3_sweeps(Settings())
    assert [s["name"] for s in h3] == ["reno", "fusion", "fusion-rf"]
    assert h3[0]["axes"]["flows.1.rtt"][0] == "20ms"
    assert [f["start_jitter"] for f in h3[0]["scenario"]["flows"]] == ["5s", "5s"]
    assert h3[0]["scenario"]["topology"]["bdp_rtt"] == "40ms"


def _h2_table(jain: dict[str, float]) -> pd.DataFrame:
    records = [
        {"queue": "red", "algorithm": cc, "flow": seed002.ALL, "metric": seed002.JAIN, "value": v}
        for cc, v in jain.items()
    ]
    return core.summarise(records, ["queue", "algorithm", "flow"])


def test_h2_fairness_claim_can_fail_and_reverse() -> None:
    claim = H2.claims[4]
    assert claim.judge(_h2_table({"fusion-rf": 0.99, "fusion": 0.8, "reno": 0.8})).verdict == (
        REPRODUCED
    )
    reversed_ = claim.judge(_h2_table({"fusion-rf": 0.6, "fusion": 0.8, "reno": 0.85}))
    assert reversed_.verdict == REVERSED
    assert [c.outcome for c in reversed_.checks] == [core.REVERSED, core.REVERSED, core.FAILED]


def test_h3_constant_claim_reverses_when_the_proposal_varies_more_than_reno() -> None:
    records = [
        {"competitor": cc, "rtt_ms": rtt, "metric": seed002.OTHER_GOODPUT, "value": v}
        for cc, values in {"fusion-rf": [60.0, 30.0, 10.0], "reno": [50.0, 45.0, 40.0]}.items()
        for rtt, v in zip([20.0, 40.0, 200.0], values, strict=True)
    ]
    table = core.summarise(records, ["competitor", "rtt_ms"])
    result = H3.claims[2].judge(table)
    assert [c.outcome for c in result.checks] == [core.FAILED, core.REVERSED]


@pytest.fixture(scope="module")
def h2_quick(tmp_path_factory: pytest.TempPathFactory) -> core.StudyReport:
    if not _have("reno", "fusion", "fusion-rf"):
        pytest.skip("engine lacks a seed-002 algorithm")
    return run_study(H2, Settings(quick=True), tmp_path_factory.mktemp("h2"), workers=2)


def _h2(report: core.StudyReport, metric: str, queue: str, cc: str, flow: str = "all") -> float:
    return core.value(report.table, metric, queue=queue, algorithm=cc, flow=flow)


@requires_engine
def test_h2_quick_proposal_is_fairest_under_red(h2_quick: core.StudyReport) -> None:
    jain = {cc: _h2(h2_quick, seed002.JAIN, "red", cc) for cc in ("fusion-rf", "fusion", "reno")}
    variance = {cc: _h2(h2_quick, seed002.VARIANCE, "red", cc) for cc in jain}
    assert jain["fusion-rf"] >= 0.95  # single seeds: 0.977 .. 0.996
    assert jain["fusion-rf"] > max(jain["fusion"], jain["reno"]) + 0.05  # smallest gap 0.096
    assert variance["fusion-rf"] < 0.5 * min(variance["fusion"], variance["reno"])  # worst 0.10
    assert (h2_quick.verdict(4), h2_quick.verdict(5)) == (REPRODUCED, REPRODUCED)
    assert (h2_quick.directory / "H2-throughput.png").exists()


@requires_engine
def test_h2_quick_short_flows_win_and_the_proposal_loses_most(
    h2_quick: core.StudyReport,
) -> None:
    for queue in ("droptail", "red"):
        for cc in ("reno", "fusion"):
            short = _h2(h2_quick, seed002.FLOW_GOODPUT, queue, cc, "40 ms")
            long_ = _h2(h2_quick, seed002.FLOW_GOODPUT, queue, cc, "100 ms")
            assert short > long_, (queue, cc)
    proposal = _h2(h2_quick, seed002.LOST, "droptail", "fusion-rf")
    for other in ("fusion", "reno"):
        # smallest single-seed ratio 2.0 (seed 2: 413 against Fusion's 205)
        assert proposal > 1.5 * _h2(h2_quick, seed002.LOST, "droptail", other)
    assert [h2_quick.verdict(i) for i in (0, 2, 3)] == [REPRODUCED] * 3


@pytest.fixture(scope="module")
def h3_quick(tmp_path_factory: pytest.TempPathFactory) -> core.StudyReport:
    if not _have("reno", "fusion", "fusion-rf"):
        pytest.skip("engine lacks a seed-002 algorithm")
    return run_study(H3, Settings(quick=True), tmp_path_factory.mktemp("h3"), workers=2)


@requires_engine
def test_h3_quick_proposal_is_flat_over_rtt_and_reno_is_not(h3_quick: core.StudyReport) -> None:
    proposal, reno = (
        seed002._spread(h3_quick.table, "fusion-rf"),
        seed002._spread(h3_quick.table, "reno"),
    )
    assert proposal <= 1.5  # single seeds 1.23 .. 1.48
    assert proposal < 0.5 * reno  # Reno's 4.6 .. 6.3
    shares = seed002._curve(h3_quick.table, seed002.RENO_SHARE, "fusion-rf")["ours"]
    assert len(shares) == len(seed002.H3_QUICK_RTTS_MS) and shares.min() >= 0.3
    assert [h3_quick.verdict(i) for i in (0, 2, 3)] == [REPRODUCED] * 3
