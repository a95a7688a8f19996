"""Seed-003 studies S1-S3 (Sync-TCP): the paper's path with finite queues, claims decided with
intervals on hand-made replicate tables, and quick runs.

Quick runs of seeds 1-12 (``ccsim study S1 --quick --replicates 12``, likewise S2), judged on
every three consecutive seeds (first seed 1 to 10), gave:

    S1, time to cwnd 50 (s): Reno 0.34 in every seed; Sync-TCP 1.85 1.16 1.60 3.54 1.77 25 1.91
        1.76 2.36 1.23 1.81 25 (in seeds 6 and 12 it never got there), above Reno's in every
        seed; sync-tcp-hs equal to Reno under both alpha0 readings in every seed. Claims 1 and 3
        reproduced in all ten triples; claim 2 inconclusive in all ten (its 0.85 s band), never
        reversed.
    S2, ns-2's 50-packet queues: Reno never reaches 500 within 25 s and loses 69-92 packets
        before; Sync-TCP reaches it in 6.8-16.0 s after losing 46-271 packets; sync-tcp-hs
        loses 99-244 packets and reaches 500 in one seed of twelve; goodput Mb/s: Reno 26.1-30.0,
        Sync-TCP 22.1-26.4, sync-tcp-hs 15.2-18.6, lower than both in every seed. Claim 1
        (Reno late) reproduced, claims 6 and 7 (the modification's throughput) reversed and the
        clock-offset claim reproduced in all ten triples; claim 4 (modification in 4 s) and
        claim 5 (no early loss) never held; claim 3 (Sync-TCP's losses) never reversed.
    S3, reverse path idle, one 20 s run per seed (seeds 1-5): Sync-TCP's mean queueing delay
        3.3-3.9 ms against HSTCP's 13.7-18.9 ms, no drop after the warm-up, goodput 0.93-0.94 of
        the link.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pandas as pd
import pytest
from ccsim import studies
from ccsim.studies import core
from ccsim.studies import sync_tcp as seed003
from ccsim.studies.core import (
    HELD,
    INCONCLUSIVE,
    NOT_RUN_QUICK,
    REPRODUCED,
    REVERSED,
    Settings,
    run_study,
)
from conftest import requires_engine

S1, S2, S3 = (studies.get(name) for name in ("S1", "S2", "S3"))


def _have(*names: str) -> bool:
    registry = core.available_algorithms() or set()
    return all(name in registry for name in names)


# ---- the setup ------------------------------------------------------------------------------------


def test_ns2_queue_limit_counts_the_packet_on_the_wire() -> None:
    assert seed003.ns2_buffer(50) == "49pkts"
    assert seed003.ns2_buffer(100) == "99pkts"
    with pytest.raises(ValueError):
        seed003.ns2_buffer(0)


def test_s1_s2_every_link_has_ns2s_default_queue_and_the_flows_share_the_hosts() -> None:
    assert studies.get("sync-tcp-high-speed") is S2
    for study, rate, window in ((S1, "10Mbps", 50), (S2, "100Mbps", 500)):
        sweeps = {s["name"]: s for s in study.sweeps(Settings())}
        scenario = sweeps["sync-tcp"]["scenario"]
        topology = scenario["topology"]
        assert topology["kind"] == "explicit"
        assert topology["nodes"] == ["source", "R0", "R1", "destination"]
        links = topology["links"]
        assert [(link["src"], link["dst"]) for link in links] == [
            ("source", "R0"),
            ("R0", "R1"),
            ("R1", "destination"),
        ]
        for link in links:
            # Duplex by default: the same queue in both directions.
            assert link.get("duplex", True) is True
            assert (link["rate"], link["delay"], link["buffer"]) == (rate, "10ms", "49pkts")
        measured, reverse = scenario["flows"]
        assert (measured["src"], measured["dst"]) == ("source", "destination")
        assert (reverse["src"], reverse["dst"], reverse["cc"]) == ("destination", "source", "reno")
        assert measured["max_window"] == reverse["max_window"] == window
        assert measured["mss"] == 1460
    s2 = {s["name"]: s["scenario"]["flows"][0] for s in S2.sweeps(Settings())}
    assert s2["sync-tcp-clock-offset-m20-ms"]["clock_offset"] == "-20ms"
    assert s2["sync-tcp-hs-packets"]["params"] == {"alpha0_mode": 1}
    for study in (S1, S2, S3):
        assert study.max_replicates is not None
        assert [len(s["seeds"]) for s in study.sweeps(Settings(quick=True))] == [3] * len(
            study.sweeps(Settings(quick=True))
        )


def test_s3_access_links_have_ns2s_default_queue() -> None:
    for sweep in S3.sweeps(Settings()):
        assert sweep["scenario"]["topology"]["access_buffer"] == "49pkts"


def test_sensitivity_variants_change_one_setting_each() -> None:
    queue = seed003.Variant("q", "queue 100", queue_limit=100)
    study = seed003.variant_study(S2, queue)
    sweeps = {s["name"]: s["scenario"] for s in study.sweeps(Settings())}
    assert set(sweeps) == {seed003.sweep_name(label) for label in seed003.CONFIGS}
    assert sweeps["reno"]["topology"]["links"][0]["buffer"] == "99pkts"
    assert not any(c.text.startswith("(ours)") for c in study.claims)
    weight = seed003.Variant("w", "w_avg 1/4", sync={"w_avg": 0.25})
    sweeps = {
        s["name"]: s["scenario"] for s in seed003.variant_study(S2, weight).sweeps(Settings())
    }
    assert sweeps["reno"]["flows"][0]["params"] == {}
    assert sweeps["sync-tcp"]["flows"][0]["params"] == {"w_avg": 0.25}
    assert sweeps["sync-tcp-hs-packets"]["flows"][0]["params"] == {"alpha0_mode": 1, "w_avg": 0.25}
    alpha = seed003.Variant("a", "alpha0 in segments", modified={"alpha0_mode": 1})
    sweeps = {s["name"]: s["scenario"] for s in seed003.variant_study(S2, alpha).sweeps(Settings())}
    assert sweeps["sync-tcp"]["flows"][0]["params"] == {}
    assert sweeps["sync-tcp-hs"]["flows"][0]["params"] == {"alpha0_mode": 1}


def test_sensitivity_summary_is_a_table_of_claims_against_variants() -> None:
    rows = [
        {"study": "S2", "variant": v, "claim": c, "verdict": f"{v}-{c}"}
        for v in ("default", "queue 100")
        for c in (1, 2)
    ]
    text = seed003.sensitivity_summary(pd.DataFrame(rows))
    assert "| variant | claim 1 | claim 2 |" in text
    assert "| queue 100 | queue 100-1 | queue 100-2 |" in text


# ---- claims on hand-made replicate tables --------------------------------------------------------


def _table(values: dict[tuple[str, str], list[float]]) -> pd.DataFrame:
    """A comparison table from per-seed values: (algorithm, metric) -> values of seeds 1, 2, ..."""
    records = [
        {"algorithm": label, "metric": metric, "seed": seed, "value": v}
        for (label, metric), per_seed in values.items()
        for seed, v in enumerate(per_seed, start=1)
    ]
    return core.summarise(records, ["algorithm"], bounds=seed003.STARTUP_BOUNDS)


def _times(**per_label: list[float]) -> dict[tuple[str, str], list[float]]:
    names = {"hs": "sync-tcp-hs", "hs_packets": "sync-tcp-hs (alpha0 in packets)"}
    return {(names.get(k, k.replace("_", "-")), seed003.REACH): v for k, v in per_label.items()}


def test_s1_sync_tcp_later_than_reno_held_tied_and_reversed() -> None:
    claim = S1.claims[1]
    reno = [0.34, 0.35, 0.34, 0.34]
    held = claim.judge(_table(_times(reno=reno, sync_tcp=[0.8, 0.9, 0.85, 0.95])))
    assert [c.outcome for c in held.checks] == [HELD, HELD]
    assert held.verdict == REPRODUCED
    # The same times per seed: a tie decides nothing.
    tied = claim.judge(_table(_times(reno=reno, sync_tcp=list(reno))))
    assert tied.checks[0].outcome == INCONCLUSIVE
    # Sync-TCP clearly the faster: the claim's direction is reversed.
    reversed_ = claim.judge(_table(_times(reno=reno, sync_tcp=[0.2, 0.21, 0.2, 0.22])))
    assert reversed_.checks[0].outcome == REVERSED


def test_s1_a_straddling_interval_is_inconclusive_and_stays_in_range() -> None:
    claim = S1.claims[1]
    table = _table(_times(reno=[0.34] * 3, sync_tcp=[0.1, 24.9, 0.3]))
    result = claim.judge(table)
    assert [c.outcome for c in result.checks] == [INCONCLUSIVE, INCONCLUSIVE]
    row = table[(table["algorithm"] == "sync-tcp") & (table["metric"] == seed003.REACH)].iloc[0]
    assert 0.0 <= row["ci_low"] <= row["ci_high"] <= seed003.DURATION_S
    # Fewer than three runs: no interval at all, and no decision.
    two = claim.judge(_table(_times(reno=[0.34] * 2, sync_tcp=[0.9, 0.95])))
    assert {c.outcome for c in two.checks} == {INCONCLUSIVE}
    assert "no interval" in two.checks[0].text


def test_s1_modified_equals_reno_and_not_run_without_it() -> None:
    claim = S1.claims[2]
    reno = [0.34, 0.35, 0.34]
    same = claim.judge(_table(_times(reno=reno, hs=reno, hs_packets=reno)))
    assert same.verdict == REPRODUCED
    quick = claim.judge(_table(_times(reno=reno, hs=reno)), quick=True)
    assert quick.verdict == NOT_RUN_QUICK


def test_s2_reno_late_on_a_lossy_path_and_not_on_a_lossless_one() -> None:
    claim = S2.claims[0]
    late = claim.judge(_table(_times(reno=[25.0] * 3, sync_tcp=[12.4, 7.3, 9.8])))
    assert late.verdict == REPRODUCED
    # What the path with a 10,000-packet source queue gave: Reno at 500 in 0.52 s.
    early = claim.judge(_table(_times(reno=[0.52] * 3, sync_tcp=[7.1, 8.9, 6.5])))
    assert [c.outcome for c in early.checks] == ["failed", REVERSED]


def test_s2_loss_claims_count_packets_per_run() -> None:
    def drops(label: str, values: list[float]) -> dict[tuple[str, str], list[float]]:
        return {(label, seed003.DROPS_BEFORE): values}

    sync_losses, no_loss = S2.claims[2], S2.claims[4]
    assert sync_losses.judge(_table(drops("sync-tcp", [135, 100, 113]))).verdict == REPRODUCED
    assert sync_losses.judge(_table(drops("sync-tcp", [0, 0, 0]))).verdict == REVERSED
    assert no_loss.judge(_table(drops("sync-tcp-hs", [0, 0, 0, 0]))).verdict == REPRODUCED
    assert no_loss.judge(_table(drops("sync-tcp-hs", [99, 120, 110, 105]))).verdict == REVERSED
    # One run of three with losses: the interval straddles one packet per run.
    mixed = no_loss.judge(_table(drops("sync-tcp-hs", [0, 0, 30])))
    assert mixed.verdict == INCONCLUSIVE


def test_s2_throughput_claims_are_paired_by_seed() -> None:
    claim = S2.claims[5]
    # Seeds differ a lot, the modification is ahead in each by about 1 Mb/s: held.
    table = _table(
        {
            ("sync-tcp-hs", seed003.GOODPUT): [21.0, 41.0, 61.0, 81.0],
            ("sync-tcp", seed003.GOODPUT): [20.0, 40.2, 59.9, 80.1],
        }
    )
    assert claim.judge(table).verdict == REPRODUCED


def _s3_table(values: dict[tuple[str, str, str], list[float]]) -> pd.DataFrame:
    records = [
        {"reverse path": path, "algorithm": cc, "metric": metric, "seed": seed, "value": v}
        for (path, cc, metric), per_seed in values.items()
        for seed, v in enumerate(per_seed, start=1)
    ]
    return core.summarise(records, ["reverse path", "algorithm"], bounds=seed003.S3_BOUNDS)


def test_s3_no_drops_on_either_side_is_a_tie() -> None:
    values = {
        (path, cc, seed003.LOSS_RATE): [0.0, 0.0, 0.0]
        for path in ("idle", "congested")
        for cc in ("sync-tcp", *seed003.LOSS_BASED)
    }
    result = S3.claims[1].judge(_s3_table(values))
    assert {c.outcome for c in result.checks} == {INCONCLUSIVE}
    assert result.verdict == INCONCLUSIVE


def test_s3_goodput_ratio_thresholds() -> None:
    values: dict[tuple[str, str, str], list[float]] = {}
    for path in ("idle", "congested"):
        values[(path, "reno", seed003.UTILIZATION)] = [0.9, 0.8, 0.85]
        values[(path, "sync-tcp", seed003.UTILIZATION)] = [0.9, 0.8, 0.85]
        values[(path, "sync-tcp-hs", seed003.UTILIZATION)] = [0.3, 0.3, 0.3]
    outcomes = [c.outcome for c in S3.claims[2].judge(_s3_table(values)).checks]
    assert outcomes == [HELD, REVERSED, HELD, REVERSED]


# ---- quick runs -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def s1(tmp_path_factory: pytest.TempPathFactory) -> core.StudyReport:
    if not _have("sync-tcp", "sync-tcp-hs"):
        pytest.skip("engine lacks Sync-TCP")
    return run_study(S1, Settings(quick=True), tmp_path_factory.mktemp("s1"), workers=2)


def _runs(report: core.StudyReport) -> pd.DataFrame:
    return core.per_run(report.table)


def _per_seed(report: core.StudyReport, label: str, metric: str) -> pd.Series:
    runs = _runs(report)
    rows = runs[(runs["algorithm"] == label) & (runs["metric"] == metric)]
    return rows.set_index("seed")["value"].sort_index()


def _intervals_in_range(table: pd.DataFrame, bounds: dict[str, tuple[float, float]]) -> None:
    for _, row in table.iterrows():
        if math.isnan(row["ci_low"]):
            continue
        low, high = bounds[row["metric"]]
        assert low <= row["ci_low"] <= row["ours"] <= row["ci_high"] <= high, row.to_dict()


@requires_engine
def test_s1_quick(s1: core.StudyReport) -> None:
    assert s1.replicates == 3
    _intervals_in_range(s1.table, seed003.STARTUP_BOUNDS)
    reno = _per_seed(s1, "reno", seed003.REACH)
    assert ((reno > 0.2) & (reno < 0.8)).all()
    assert (_per_seed(s1, "sync-tcp", seed003.REACH) > reno).all()
    for label in ("sync-tcp-hs", "sync-tcp-hs (alpha0 in packets)"):
        pd.testing.assert_series_equal(_per_seed(s1, label, seed003.REACH), reno, check_names=False)
    verdicts = [v.verdict for v in s1.verdicts]
    assert verdicts[0] == verdicts[2] == REPRODUCED
    assert verdicts[1] != REVERSED
    assert (s1.directory / "S1-cwnd.png").exists()


@pytest.fixture(scope="module")
def s2(tmp_path_factory: pytest.TempPathFactory) -> core.StudyReport:
    if not _have("sync-tcp", "sync-tcp-hs"):
        pytest.skip("engine lacks Sync-TCP")
    return run_study(S2, Settings(quick=True), tmp_path_factory.mktemp("s2"), workers=2)


@requires_engine
def test_s2_quick_the_finite_source_queue_makes_reno_late(s2: core.StudyReport) -> None:
    _intervals_in_range(s2.table, seed003.STARTUP_BOUNDS)
    assert (_per_seed(s2, "reno", seed003.REACHED) == 0).all()
    assert (_per_seed(s2, "reno", seed003.DROPS_BEFORE) > 0).all()
    assert (_per_seed(s2, "sync-tcp", seed003.REACHED) == 1).all()
    assert (_per_seed(s2, "sync-tcp", seed003.DROPS_BEFORE) > 0).all()
    assert (_per_seed(s2, "sync-tcp-hs", seed003.DROPS_BEFORE) > 0).all()
    verdicts = [v.verdict for v in s2.verdicts]
    assert verdicts[0] == REPRODUCED  # Reno late
    assert verdicts[2] != REVERSED  # Sync-TCP's losses
    assert verdicts[3] != REPRODUCED and verdicts[4] != REPRODUCED  # the modification's start
    assert verdicts[5] == verdicts[6] == REVERSED  # the modification's throughput
    assert verdicts[7] == REPRODUCED  # a clock offset changes nothing


@requires_engine
def test_s2_quick_a_clock_offset_changes_nothing(s2: core.StudyReport) -> None:
    rows = s2.table[s2.table["algorithm"].isin(["sync-tcp", "sync-tcp (clock offset -20 ms)"])]
    wide = rows.pivot(index="metric", columns="algorithm", values="ours")
    pd.testing.assert_series_equal(
        wide["sync-tcp"], wide["sync-tcp (clock offset -20 ms)"], check_names=False
    )


def _s3_idle(settings: Settings) -> list[dict[str, Any]]:
    keep = {"sync-tcp-one-way", "highspeed-one-way"}
    return [s for s in seed003.s3_sweeps(settings) if s["name"] in keep]


@requires_engine
def test_s3_quick_idle_reverse_path_sync_tcp_keeps_the_queue_short(tmp_path: Any) -> None:
    if not _have("sync-tcp"):
        pytest.skip("engine lacks Sync-TCP")
    study = dataclasses.replace(S3, sweeps=_s3_idle)
    report = run_study(study, Settings(quick=True, replicates=1), tmp_path, workers=2)
    _intervals_in_range(report.table, seed003.S3_BOUNDS)

    def of(metric: str, cc: str) -> float:
        return core.value(report.table, metric, **{"reverse path": "idle", "algorithm": cc})

    assert of(seed003.QUEUE_DELAY, "sync-tcp") < 0.5 * of(seed003.QUEUE_DELAY, "highspeed")
    assert of(seed003.LOSS_RATE, "sync-tcp") == 0
    assert of(seed003.UTILIZATION, "sync-tcp") >= 0.9
    # Claims about protocols this run left out are not graded.
    assert {v.verdict for v in report.verdicts} == {NOT_RUN_QUICK}
