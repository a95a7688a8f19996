"""Comparative studies on the engine: runs that differ only in protocol share their workload, and
join flow by flow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ccsim
import numpy as np
import pandas as pd
import pytest
from ccsim import compare, metrics
from conftest import requires_engine

pytestmark = requires_engine

# Ten flows, two RTT groups, start times spread over a second; the long-RTT group sends 300 KB.
TEN_FLOWS = """
name = "ten"
seed = 4
duration = "3s"

[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "5ms"
buffer = "30pkts"

[[flows]]
label = "short"
cc = "reno"
count = 5
rtt = "30ms"
start_jitter = "1s"

[[flows]]
label = "long"
cc = "reno"
count = 5
rtt = "90ms"
start_jitter = "1s"
size = "300KB"
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Any:
    directory = tmp_path_factory.mktemp("study")
    sweep = {
        "name": "study",
        "scenario": __import__("tomllib").loads(TEN_FLOWS),
        "compare": {"algorithms": ["reno", "newreno"], "mixtures": ["all", "half"]},
    }
    return ccsim.sweep(sweep, directory / "out", workers=2)


def flows_of(study: Any, algorithm: str, mixture: str) -> pd.DataFrame:
    run = study.query(
        f"SELECT run_id FROM runs WHERE algorithm = '{algorithm}' AND mixture = '{mixture}'"
    )["run_id"][0]
    return study.store.load_run(run).flows


def test_every_flow_has_the_same_start_and_size_under_both_protocols(study: Any) -> None:
    reno, newreno = flows_of(study, "reno", "all"), flows_of(study, "newreno", "all")
    assert len(reno) == len(newreno) == 10
    assert set(reno["cc"]) == {"reno"} and set(newreno["cc"]) == {"newreno"}
    np.testing.assert_array_equal(reno["start_s"], newreno["start_s"])
    np.testing.assert_array_equal(reno["size_bytes"], newreno["size_bytes"])
    assert reno["start_s"].nunique() == 10  # the jitter did spread them: the check is not vacuous
    assert reno["label"].tolist() == ["short"] * 5 + ["long"] * 5
    # ...while what the protocol controls did change
    assert not np.array_equal(reno["goodput_bps"], newreno["goodput_bps"])


def test_flow_by_flow_relative_throughput(study: Any) -> None:
    table = compare.flow_by_flow(study.store)
    newreno = table[(table["algorithm"] == "newreno") & (table["mixture"] == "all")]
    assert len(newreno) == 10  # one row per flow
    assert newreno["key"].tolist() == [f"flow {i}" for i in range(10)]
    assert (newreno["flow_x"] == newreno["flow_ref"]).all()
    assert set(newreno["cc_x"]) == {"newreno"} and set(newreno["cc_ref"]) == {"reno"}
    expected = (
        flows_of(study, "newreno", "all")["goodput_bps"]
        / flows_of(study, "reno", "all")["goodput_bps"]
    )
    np.testing.assert_allclose(newreno["ratio"], expected)
    summary = compare.relative_throughput(study.store).set_index(["algorithm", "mixture"])
    assert summary.loc[("newreno", "all"), "relative_throughput"] == pytest.approx(expected.mean())
    assert summary.loc[("reno", "all"), "relative_throughput"] == pytest.approx(1.0)


def test_half_mixture_and_reno_friendliness(study: Any) -> None:
    half = flows_of(study, "newreno", "half")
    assert half["cc"].tolist() == ["newreno", "reno"] * 5
    reference = flows_of(study, "reno", "all")
    np.testing.assert_array_equal(half["start_s"], reference["start_s"])
    reno = half["cc"] == "reno"
    # The seed's slide formula: the mean over the Reno flows of their per-flow ratios.
    # (flows whose reference throughput is zero are left out).
    ref = reference.loc[reno, "goodput_bps"].to_numpy()
    kept = ref > 0
    by_hand = (half.loc[reno, "goodput_bps"].to_numpy()[kept] / ref[kept]).mean()
    friendliness = compare.reno_friendliness(study.store).set_index(["algorithm", "mixture"])
    assert friendliness.loc[("newreno", "half"), "reno_friendliness"] == pytest.approx(by_hand)
    assert friendliness.loc[("reno", "all"), "reno_friendliness"] == pytest.approx(1.0)
    assert ("newreno", "all") not in friendliness.index  # no Reno flow to measure there


def test_sql_joins_a_run_with_its_reference(study: Any) -> None:
    table = study.query(
        "SELECT x.flow, x.goodput_bps / r.goodput_bps AS ratio FROM flows x "
        "JOIN flows r ON r.run_id = x.reference_run AND r.flow = x.flow "
        "WHERE x.algorithm = 'newreno' AND x.mixture = 'all' AND r.algorithm = 'reno' "
        "AND r.mixture = 'all' ORDER BY x.flow"
    )
    python = compare.flow_by_flow(study.store)
    python = python[(python["algorithm"] == "newreno") & (python["mixture"] == "all")]
    np.testing.assert_allclose(table["ratio"], python["ratio"])


def test_generator_transfers_keep_their_sizes_across_protocols(tmp_path: Path) -> None:
    base = (
        TEN_FLOWS
        + """
[[generators]]
kind = "closed_loop"
slots = 3
size = { dist = "exponential", mean = "40KB" }
cc = "reno"
rtt_choices = ["40ms", "80ms"]
"""
    )
    sweep = {"name": "gen", "scenario": __import__("tomllib").loads(base),
             "compare": {"algorithms": ["newreno"]}}  # fmt: skip
    result = ccsim.sweep(sweep, tmp_path / "out", workers=1)
    runs = result.runs.set_index("algorithm")["run_id"]
    newreno = result.store.load_run(runs["newreno"]).flows
    reno = result.store.load_run(runs["reno"]).flows
    joined = metrics.join_flows(newreno, reno, ("size_bytes",))
    transfers = joined[joined["key"].str.startswith("gen")]
    assert len(transfers) >= 6
    np.testing.assert_array_equal(transfers["size_bytes_x"], transfers["size_bytes_ref"])
    assert transfers["size_bytes_x"].nunique() > 3  # random sizes, matched one for one
