"""Seed-004 study L1 (high-speed TCPs on a 1 Gb/s parking lot): its workload, common random
numbers across protocols, the claims on hand-made replicate tables, and a quick run.

The claims are tested on tables of three seeds built here: a world shaped as the paper describes
it (every claim reproduced), then ties, straddling intervals and reversals, and the quick run's
protocols alone (the claims about the others are "not run in --quick"). The quick run itself
(60 s, light load, no loss, Reno, HSTCP, H-TCP and AReno alone and mixed with Reno, 3 seeds) is
checked only for what held with seeds 1-3, 4-6 and 7-9 (the numbers are in the docstrings).
"""

from __future__ import annotations

from collections.abc import Sequence

import ccsim
import numpy as np
import pandas as pd
import pytest
from ccsim import studies
from ccsim.studies import core
from ccsim.studies import highspeed_parking_lot as seed004
from ccsim.studies.core import (
    HELD,
    INCONCLUSIVE,
    NO_DATA,
    NOT_RUN_QUICK,
    REPRODUCED,
    REVERSED,
    Settings,
    run_study,
    summarise,
)
from ccsim.sweeps import Sweep
from conftest import requires_engine

L1 = studies.get("L1")
KEYS = ["load", "loss", "algorithm", "mixture", "by", "bin"]
SEEDS = (1, 2, 3)
#: The claims, by what they are about (their order in the study).
(
    GAIN,
    FAVOUR_SHORT,
    UNFRIENDLY,
    HTCP,
    COMPOUND,
    ARENO,
    SCALABLE_HOPS,
    LONG_FLOWS,
    TRADE_OFF,
    LIFETIMES,
) = range(10)


# ---- hand-made replicate tables ------------------------------------------------------------------

Rows = dict[tuple[str, str, str, str], Sequence[float]]


def _world() -> Rows:
    """Per (algorithm, metric, by, bin), three seeds' values as the paper describes them: the
    short-favouring three gain most at short RTTs and hops and take from Reno; H-TCP and AReno
    gain everywhere, flatter than Reno; Compound is friendly with a milder gain."""
    reno_util = (0.40, 0.45, 0.50)
    reno_fit = (0.06, 0.07, 0.08)
    rows: Rows = {
        ("reno", seed004.UTILIZATION, "all", "all"): reno_util,
        ("reno", seed004.FAST_SLOW, "all", "all"): reno_fit,
        ("reno", seed004.RELATIVE, "all", "all"): (1.0, 1.0, 1.0),
        ("reno", seed004.SHORT_SPEEDUP, "all", "all"): (1.0, 1.0, 1.0),
    }

    def protocol(
        name: str,
        util_gain: float,
        relative: Sequence[float],
        hops: Sequence[Sequence[float]],
        fit_factor: float,
        friendliness: Sequence[float],
        speedup: Sequence[float],
    ) -> None:
        rows[(name, seed004.UTILIZATION, "all", "all")] = [u + util_gain for u in reno_util]
        rows[(name, seed004.RELATIVE, "all", "all")] = relative
        for h, values in enumerate(hops, start=1):
            rows[(name, seed004.RELATIVE, "hops", str(h))] = values
        rows[(name, seed004.FAST_SLOW, "all", "all")] = [f * fit_factor for f in reno_fit]
        rows[(name, seed004.FRIENDLINESS, "all", "all")] = friendliness
        rows[(name, seed004.SHORT_SPEEDUP, "all", "all")] = speedup

    steep = [(3.0, 3.2, 3.4), (2.0, 2.1, 2.2), (1.5, 1.6, 1.7), (0.90, 0.91, 0.92)]
    even = [(2.0, 2.1, 2.2), (2.1, 2.2, 2.3), (2.2, 2.3, 2.4), (2.3, 2.4, 2.5)]
    for name in ("highspeed", "scalable", "bic"):
        protocol(name, 0.10, (2.0, 2.2, 2.4), steep, 0.5, (0.60, 0.62, 0.64), (3.0, 3.2, 3.4))
    protocol("htcp", 0.08, (2.0, 2.2, 2.4), even, 2.0, (0.70, 0.72, 0.74), (1.0, 1.01, 1.02))
    protocol("areno", 0.08, (2.0, 2.2, 2.4), even, 2.0, (0.95, 0.96, 0.97), (1.0, 1.01, 1.02))
    protocol("compound", 0.03, (1.3, 1.4, 1.5), even, 2.0, (0.95, 0.96, 0.97), (1.0, 1.01, 1.02))
    return rows


def _table(rows: Rows, load: str = "heavy", loss: str = "clean") -> pd.DataFrame:
    records = []
    for (algorithm, metric, by, bin_), values in rows.items():
        mixture = "half" if metric == seed004.FRIENDLINESS else "all"
        for seed, v in zip(SEEDS, values, strict=False):
            records.append(
                {
                    "load": load,
                    "loss": loss,
                    "algorithm": algorithm,
                    "mixture": mixture,
                    "by": by,
                    "bin": bin_,
                    "metric": metric,
                    "seed": seed,
                    "value": v,
                }
            )
    return summarise(records, KEYS, bounds=seed004.BOUNDS)


def _judge(rows: Rows, index: int, quick: bool = False) -> core.ClaimResult:
    return L1.claims[index].judge(_table(rows), quick=quick)


def _outcome(result: core.ClaimResult, *words: str) -> str:
    (check,) = [c for c in result.checks if all(w in c.text for w in words)]
    return check.outcome


def test_every_claim_is_reproduced_in_a_world_shaped_as_the_paper_describes() -> None:
    table = _table(_world())
    verdicts = [claim.judge(table).verdict for claim in L1.claims]
    assert verdicts == [REPRODUCED] * len(L1.claims)
    # Every check names the judged condition and ends with what was required.
    for claim in L1.claims:
        for check in claim.judge(table).checks:
            assert check.text.startswith("heavy load, no random loss: ")
            assert "required" in check.text


def test_quick_runs_grade_only_the_protocols_they_ran() -> None:
    """A quick run has Reno, HSTCP, H-TCP and AReno: every claim that needs Scalable, BIC or
    Compound is "not run in --quick", with a "not measured" check for each missing protocol,
    never graded on the protocols that happen to be there."""
    quick = {k: v for k, v in _world().items() if k[0] in seed004.QUICK_PROTOCOLS}
    table = _table(quick, load="light")
    results = [claim.judge(table, quick=True) for claim in L1.claims]
    graded = [i for i, r in enumerate(results) if r.verdict != NOT_RUN_QUICK]
    assert graded == [HTCP, ARENO]
    assert results[HTCP].verdict == results[ARENO].verdict == REPRODUCED
    gain = results[GAIN]
    assert [c.outcome for c in gain.checks if "highspeed" in c.text] == [HELD, HELD]
    missing = [c for c in gain.checks if "highspeed" not in c.text]
    assert len(missing) == 4 and all(c.outcome == NO_DATA for c in missing)
    assert all(c.text.endswith("not measured") for c in missing)
    assert all(c.text.startswith("light load, no random loss: ") for c in gain.checks)
    # Outside quick mode a missing protocol is "not run", still never graded.
    assert L1.claims[GAIN].judge(table).verdict == core.NOT_RUN


def test_a_tie_is_inconclusive_never_a_win() -> None:
    rows = _world()
    rows[("highspeed", seed004.RELATIVE, "all", "all")] = (1.0, 1.0, 1.0)
    rows[("htcp", seed004.UTILIZATION, "all", "all")] = rows[
        ("reno", seed004.UTILIZATION, "all", "all")
    ]
    gain = _judge(rows, GAIN)
    assert _outcome(gain, "highspeed: relative throughput") == INCONCLUSIVE
    assert gain.verdict == INCONCLUSIVE
    assert _outcome(_judge(rows, HTCP), "htcp: backbone utilization") == INCONCLUSIVE


def test_a_straddling_interval_is_inconclusive() -> None:
    rows = _world()
    rows[("bic", seed004.FRIENDLINESS, "all", "all")] = (0.80, 0.95, 1.05)
    result = _judge(rows, UNFRIENDLY)
    assert _outcome(result, "bic") == INCONCLUSIVE
    assert result.verdict == INCONCLUSIVE
    # Two seeds give no interval at all: inconclusive however clear the two values look.
    rows[("bic", seed004.FRIENDLINESS, "all", "all")] = (0.5, 0.5)
    assert _outcome(_judge(rows, UNFRIENDLY), "bic") == INCONCLUSIVE


def test_a_clear_opposite_is_reversed() -> None:
    rows = _world()
    # BIC's 4-hop flows gain more than its 1-hop flows in every seed.
    rows[("bic", seed004.RELATIVE, "hops", "4")] = (5.0, 5.5, 4.8)
    result = _judge(rows, FAVOUR_SHORT)
    assert _outcome(result, "bic: relative throughput of 1-hop flows vs 4-hop") == REVERSED
    # Every protocol's Reno flows do better than next to Reno: the claim is reversed.
    for name in seed004.SHORT_FAVOURING:
        rows[(name, seed004.FRIENDLINESS, "all", "all")] = (1.10, 1.12, 1.14)
    assert _judge(rows, UNFRIENDLY).verdict == REVERSED
    # Between the friendly 0.9 and the reversing 1: failed, not reversed.
    for name in seed004.SHORT_FAVOURING:
        rows[(name, seed004.FRIENDLINESS, "all", "all")] = (0.94, 0.95, 0.96)
    assert {c.outcome for c in _judge(rows, UNFRIENDLY).checks} == {core.FAILED}


def test_protocols_are_compared_paired_by_seed() -> None:
    """Reno's utilization varies from seed to seed far more than HSTCP's gain over it: the two
    means' intervals overlap, the per-seed difference's does not."""
    rows = _world()
    rows[("reno", seed004.UTILIZATION, "all", "all")] = (0.20, 0.40, 0.60)
    rows[("highspeed", seed004.UTILIZATION, "all", "all")] = (0.211, 0.409, 0.612)
    assert _outcome(_judge(rows, GAIN), "highspeed: backbone utilization") == HELD


def test_scalable_gaining_at_four_hops_fails_the_only_short_hops_claim() -> None:
    rows = _world()
    rows[("scalable", seed004.RELATIVE, "hops", "4")] = (1.5, 1.6, 1.7)
    result = _judge(rows, SCALABLE_HOPS)
    assert [c.outcome for c in result.checks] == [HELD, core.FAILED, HELD]
    assert result.verdict == core.PARTLY


def test_compound_more_efficient_than_the_others_reverses_milder() -> None:
    rows = _world()
    rows[("compound", seed004.UTILIZATION, "all", "all")] = (0.60, 0.65, 0.70)
    result = _judge(rows, COMPOUND)
    assert [c.outcome for c in result.checks] == [HELD, HELD, *[REVERSED] * 5]
    assert result.verdict == REVERSED


def test_the_long_lived_reading_compares_short_file_speed_up_with_relative_throughput() -> None:
    rows = _world()
    for name in seed004.SHORT_FAVOURING:  # short files barely faster, long flows much faster
        rows[(name, seed004.SHORT_SPEEDUP, "all", "all")] = (0.95, 0.96, 0.97)
    result = _judge(rows, LIFETIMES)
    assert [c.outcome for c in result.checks] == [REVERSED] * 3 + [HELD] * 3
    assert result.verdict == core.NOT_REPRODUCED


# ---- the setup -----------------------------------------------------------------------------------


def test_l1_runs_under_linux_on_the_seeds_parking_lot() -> None:
    assert studies.get("highspeed-parking-lot") is L1 and L1.profile == "linux-sack"
    assert L1.max_replicates == seed004.MAX_REPLICATES > seed004.FULL_REPLICATES >= 3
    sweeps = L1.sweeps(Settings(profile="linux-sack"))
    names = [s["name"] for s in sweeps]
    assert names == ["heavy-clean-s1", "heavy-clean-s2", "heavy-clean-s3"]
    heavy = sweeps[1]
    assert heavy["seeds"] == [2] and heavy["scenario"]["seed"] == 2
    assert heavy["compare"]["algorithms"] == [seed004.protocol_entry(a) for a in seed004.PROTOCOLS]
    # The 2.6.22 modules' arithmetic for every Linux module, and so for every flow on Reno.
    assert heavy["compare"]["baseline"] == {
        "name": "reno",
        "cc": "reno",
        "params": {"linux26": True},
    }
    assert heavy["compare"]["algorithms"][-1] == {
        "name": "areno",
        "cc": "areno",
        "params": {"linux26": True},
    }
    assert heavy["compare"]["mixtures"] == ["all", "half"]
    topology = heavy["scenario"]["topology"]
    assert (topology["routers"], topology["rate"], topology["buffer"]) == (5, "1Gbps", "2MB")
    # Every link's queue: the backbone's stated 2 MB, DropTail; ns-2's 50 packets elsewhere.
    assert (topology["queue"], topology["access_buffer"]) == ("droptail", "49pkts")
    assert topology["loss"] == topology["reverse_loss"] == 0.0
    (short,) = heavy["scenario"]["generators"]
    assert (short["sources"], short["rate"], short["size"]["mean"]) == (100, 100.0, "1MB")
    assert len(heavy["scenario"]["flows"]) <= 40
    for sweep in sweeps:
        Sweep.from_dict(sweep | {"set": {"profile": "linux"}})


def test_replicates_are_counted_although_each_seed_is_a_sweep_of_its_own() -> None:
    """Each seed draws its own long-lived flows, so each is a sweep of one seed; the machinery
    counts the distinct seeds of all sweeps, so it counts the replicates (and adds them) right."""
    sweeps = L1.sweeps(Settings(profile="linux-sack", replicates=5))
    assert [s["seeds"][0] for s in sweeps if s["name"].startswith("heavy")] == [1, 2, 3, 4, 5]
    assert core.seeds_per_point(L1, Settings(profile="linux-sack", replicates=5)) == 5
    assert core.seeds_per_point(L1, Settings(profile="linux-sack")) == seed004.FULL_REPLICATES
    quick = L1.sweeps(Settings(quick=True, profile="linux-sack"))
    assert [s["name"] for s in quick] == [
        "light-clean-s1", "light-clean-s2", "light-clean-s3",
    ]  # fmt: skip
    assert quick[0]["compare"]["algorithms"] == [
        seed004.protocol_entry(a) for a in seed004.QUICK_PROTOCOLS
    ]
    assert quick[0]["scenario"]["duration"] == "60s"


def test_the_light_load_companion_judges_every_claim_on_each_condition() -> None:
    study = seed004.light_load_study()
    sweeps = study.sweeps(Settings(profile="linux-sack"))
    assert [s["name"] for s in sweeps] == [
        "light-clean-s1", "light-clean-s2", "light-clean-s3",
        "light-lossy-s1", "light-lossy-s2", "light-lossy-s3",
    ]  # fmt: skip
    assert sweeps[3]["scenario"]["topology"]["loss"] == seed004.LOSS
    assert len(sweeps[0]["scenario"]["flows"]) <= 10
    assert len(study.claims) == 2 * len(L1.claims)
    table = pd.concat(
        [_table(_world(), load="light"), _table(_world(), load="light", loss="lossy")]
    )
    results = [c.judge(table) for c in study.claims]
    assert [r.verdict for r in results] == [REPRODUCED] * len(study.claims)
    lossy = results[len(L1.claims)]
    assert lossy.claim.startswith("light load, random loss 1e-05: ")
    assert all(c.text.startswith("light load, random loss 1e-05: ") for c in lossy.checks)
    # Only one condition run: the other's claims are not graded.
    clean = _table(_world(), load="light")
    assert study.claims[len(L1.claims)].judge(clean).verdict == core.NOT_RUN
    assert study.claims[0].judge(clean).verdict == REPRODUCED


def test_the_era_option_is_set_in_one_place_for_every_protocol(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert seed004.protocol_entry("bic") == {
        "name": "bic",
        "cc": "bic",
        "params": {"linux26": True},
    }
    # AReno is not a Linux module but runs with their per-ACK counting, as in the paper's patch.
    assert seed004.protocol_entry("areno") == {
        "name": "areno",
        "cc": "areno",
        "params": {"linux26": True},
    }
    monkeypatch.setattr(seed004.common, "ERA_PARAMS", {})
    assert seed004.protocol_entry("bic") == "bic"
    era = {a: {"era": "2.6"} for a in seed004.PROTOCOLS}
    monkeypatch.setattr(seed004.common, "ERA_PARAMS", era)
    monkeypatch.setattr(seed004.common, "ERA_STACK", {"tcp_era": "2.6"})
    sweep = L1.sweeps(Settings(profile="linux-sack"))[0]
    assert sweep["compare"]["algorithms"][3] == {"name": "bic", "cc": "bic", "params": era["bic"]}
    assert sweep["compare"]["baseline"] == {"name": "reno", "cc": "reno", "params": {"era": "2.6"}}
    assert sweep["scenario"]["stack"] == {"initial_window": 3, "tcp_era": "2.6"}
    variant = seed004.protocol_entry("areno", name="areno a=3 b=0.1", alpha=3.0, beta=0.1)
    assert variant["params"] == {"era": "2.6", "alpha": 3.0, "beta": 0.1}


def test_the_areno_sensitivity_study_varies_alpha_and_beta_on_the_judged_condition() -> None:
    study = seed004.areno_study()
    sweeps = study.sweeps(Settings(profile="linux-sack"))
    assert {s["name"] for s in sweeps} == {
        "heavy-clean-s1", "heavy-clean-s2", "heavy-clean-s3",
    }  # fmt: skip
    entries = sweeps[0]["compare"]["algorithms"]
    assert len(entries) == len(seed004.ARENO_ALPHAS) * len(seed004.ARENO_BETAS) == 9
    assert {(e["params"]["alpha"], e["params"]["beta"]) for e in entries} == {
        (a, b) for a in seed004.ARENO_ALPHAS for b in seed004.ARENO_BETAS
    }
    assert len(study.claims) == 3 * 9
    # Each pair's claims read that pair's rows.
    rows = {
        (seed004.areno_variant(3.0, 0.03) if k[0] == "areno" else k[0], *k[1:]): v
        for k, v in _world().items()
        if k[0] in ("reno", "areno")
    }
    table = _table(rows)
    judged = [c.judge(table).verdict for c in study.claims if "a=3 b=0.03" in c.text]
    assert judged == [REPRODUCED] * 3
    assert study.claims[-1].judge(table).verdict == core.NOT_RUN
    # A quick run has two of the pairs; the others' claims are not graded.
    quick = study.sweeps(Settings(profile="linux-sack", quick=True))
    assert {
        (e["params"]["alpha"], e["params"]["beta"]) for e in quick[0]["compare"]["algorithms"]
    } == set(seed004.ARENO_QUICK_PAIRS)


def test_long_lived_flows_span_every_hop_count_both_ways_and_repeat_per_seed() -> None:
    flows = seed004.long_lived_flows(40, seed=1)
    assert flows == seed004.long_lived_flows(40, seed=1)
    assert flows != seed004.long_lived_flows(40, seed=2)
    ends = [(int(f["src"][1:]), int(f["dst"][1:])) for f in flows]
    assert {abs(b - a) for a, b in ends} == {1, 2, 3, 4}
    assert any(b > a for a, b in ends) and any(b < a for a, b in ends)
    rtts = np.array([float(f["rtt"].removesuffix("us")) / 1e3 for f in flows])
    # Exponential with mean 130 ms, never below the path's own 2 ms per hop.
    assert 80 < rtts.mean() < 200
    assert all(r >= 2 * abs(b - a) for r, (a, b) in zip(rtts, ends, strict=True))


def test_the_15_ms_per_link_reading_raises_short_draws_to_the_longer_path() -> None:
    scenario = seed004.l1_scenario("heavy", 0.0, "600s", seed=1, backbone_delay_ms=15)
    assert scenario["topology"]["delay"] == "15ms"
    for flow in scenario["flows"]:
        hops = abs(int(flow["dst"][1:]) - int(flow["src"][1:]))
        assert float(flow["rtt"].removesuffix("us")) >= 30_000 * hops
    ccsim.Scenario.model_validate(scenario | {"profile": "linux"})


@requires_engine
def test_runs_that_differ_in_protocol_share_every_flow_and_file() -> None:
    base = seed004.l1_scenario("light", 0.0, "8s", seed=3, start_mean_s=2.0)

    def flows_with(cc: str) -> pd.DataFrame:
        scenario = dict(base)
        scenario["flows"] = [f | {"cc": cc} for f in base["flows"]]
        scenario["generators"] = [g | {"cc": cc} for g in base["generators"]]
        return ccsim.run(ccsim.Scenario.model_validate(scenario)).flows

    reno, hstcp = flows_with("reno"), flows_with("highspeed")
    long_reno, long_hstcp = seed004.long_lived(reno), seed004.long_lived(hstcp)
    np.testing.assert_array_equal(long_reno["start_s"], long_hstcp["start_s"])
    np.testing.assert_array_equal(long_reno["base_rtt_s"], long_hstcp["base_rtt_s"])
    # Open-loop arrivals do not depend on the protocol: every short file starts at the same
    # time from the same source in both runs.
    short = {tuple(r) for r in reno.loc[reno["label"] == "short", ["src", "start_s"]].to_numpy()}
    other = {tuple(r) for r in hstcp.loc[hstcp["label"] == "short", ["src", "start_s"]].to_numpy()}
    assert short == other and len(short) > 500
    assert not np.array_equal(long_reno["goodput_bps"], long_hstcp["goodput_bps"])


# ---- the quick run -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> core.StudyReport:
    """L1 --quick, shortened from 60 s to 20 s for test time (the 60 s run takes minutes on two
    cores); its long-lived flows start with a 3 s mean so that the short run has them."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(seed004.workload, "QUICK_DURATION", "20s")
        patch.setattr(seed004.workload, "QUICK_START_MEAN_S", 3.0)
        return run_study(
            L1, Settings(quick=True, profile="linux-sack"), tmp_path_factory.mktemp("l1"), workers=2
        )


@requires_engine
def test_l1_quick_grades_only_what_it_ran(quick: core.StudyReport) -> None:
    assert (quick.directory / "L1-figures.png").exists()
    assert quick.replicates == seed004.QUICK_REPLICATES
    verdicts = [v.verdict for v in quick.verdicts]
    not_run = [i for i, v in enumerate(verdicts) if v == NOT_RUN_QUICK]
    # Every claim needs Scalable, BIC or Compound but H-TCP's and AReno's own.
    assert not_run == [i for i in range(len(L1.claims)) if i not in (HTCP, ARENO)]
    for i in not_run:
        assert all(
            c.outcome != NO_DATA or c.text.endswith("not measured")
            for c in quick.verdicts[i].checks
        )


@requires_engine
def test_l1_quick_reno_against_itself_and_h_tcp_above_reno_in_utilization(
    quick: core.StudyReport,
) -> None:
    """Reno's relative throughput is exactly 1 in every seed, and H-TCP's backbone utilization is
    above Reno's: on the 20 s run 0.408 against 0.365, difference 0.043 (0.035 to 0.051, seeds
    1-3). On the 60 s quick run this check and H-TCP's relative throughput held with seeds 1-3,
    4-6 and 7-9 (docs/studies/highspeed-parking-lot.md); on 20 s H-TCP's relative throughput,
    1.88 (0.28 to 3.47), is inconclusive, so it is not asserted, nor is any AReno check."""
    rt = quick.table[(quick.table["metric"] == seed004.RELATIVE) & (quick.table["by"] == "all")]
    (reno,) = rt[rt["algorithm"] == "reno"]["replicates"]
    assert [v for _, v in reno.values] == [1.0, 1.0, 1.0]
    assert _outcome(quick.verdicts[HTCP], "htcp: backbone utilization") == HELD
