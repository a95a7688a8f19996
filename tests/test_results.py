"""Result tables, the results directory (atomic, deterministic) and running on the engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ccsim
import ccsim.results
import ccsim.runner
import numpy as np
import pandas as pd
import pytest
from ccsim.errors import ScenarioError
from ccsim.results import Results, table_to_frame
from conftest import SMALL_DUMBBELL, UNCONNECTED_EXPLICIT, requires_engine

# The minimum columns of docs/design.md.
FLOW_COLUMNS = {
    "flow", "label", "cc", "src", "dst", "start_s", "end_s", "base_rtt_s", "bytes_acked",
    "goodput_bps", "packets_sent", "retransmits", "drops", "timeouts", "fast_retransmits",
    "completion_s", "mean_rtt_s", "src_router", "dst_router", "hops", "reverse",
}  # fmt: skip
LINK_COLUMNS = {
    "link", "src", "dst", "rate_bps", "utilization", "packets", "drops", "mean_queue_pkts",
    "max_queue_pkts",
}  # fmt: skip
SERIES_COLUMNS = {"t_s", "flow", "cwnd_pkts", "ssthresh_pkts", "srtt_s", "rate_bps"}


def engine_table(columns: dict[str, tuple[str, Any]]) -> dict[str, Any]:
    """An engine-shaped table from ``{name: (dtype, values)}``."""
    numpy_dtypes = {"f64": "<f8", "u64": "<u8", "i64": "<i8", "u32": "<u4", "u8": "<u1"}
    names, dtypes, data = [], [], []
    for name, (dtype, values) in columns.items():
        names.append(name)
        dtypes.append(dtype)
        data.append(
            list(values)
            if dtype == "str"
            else np.asarray(values, dtype=numpy_dtypes[dtype]).tobytes()
        )
    return {"names": names, "dtypes": dtypes, "data": data}


def fake_output(series_rows: int = 0) -> dict[str, Any]:
    """A finish() result with two flows, one link and optionally some series rows."""
    empty = engine_table({})
    return {
        "tables": {
            "flows": engine_table(
                {
                    "flow": ("u32", [0, 1]),
                    "label": ("str", ["a", "b"]),
                    "goodput_bps": ("f64", [1.5e6, float("nan")]),
                    "bytes_acked": ("u64", [2**40, 0]),
                }
            ),
            "links": engine_table(
                {
                    "link": ("u32", [0]),
                    "drops": ("i64", [-1]),
                    "monitored": ("u8", [1]),
                }
            ),
            "series": engine_table({"t_s": ("f64", np.arange(series_rows) * 0.1)}),
            "queues": empty,
            "drops": empty,
        },
        "stats": {"events": 1000, "packet_hops": 900, "sim_end_ns": 2_000_000_000},
        "stack": {"profile": "ns2", "min_rto_ns": 200_000_000},
    }


@pytest.fixture
def scenario(fake_registry: Any) -> ccsim.Scenario:
    return ccsim.Scenario.from_toml(SMALL_DUMBBELL)


@pytest.fixture
def results(scenario: ccsim.Scenario) -> Results:
    return Results.from_engine(scenario, fake_output(series_rows=3), wall_s=0.5, version="0.0.test")


# ---- tables --------------------------------------------------------------------------------------


def test_table_to_frame_reads_every_dtype() -> None:
    frame = table_to_frame(fake_output()["tables"]["flows"])
    assert list(frame.columns) == ["flow", "label", "goodput_bps", "bytes_acked"]
    assert frame["flow"].dtype == np.uint32 and frame["bytes_acked"].dtype == np.uint64
    assert frame["bytes_acked"].tolist() == [2**40, 0]
    assert frame["label"].tolist() == ["a", "b"]
    assert np.isnan(frame["goodput_bps"][1])
    links = table_to_frame(fake_output()["tables"]["links"])
    assert links["drops"].tolist() == [-1] and links["monitored"].dtype == np.uint8
    frame.loc[0, "goodput_bps"] = 0.0  # the frame owns writable data


def test_empty_table() -> None:
    assert table_to_frame({"names": [], "dtypes": [], "data": []}).empty
    frame = table_to_frame(engine_table({"t_s": ("f64", []), "link": ("str", [])}))
    assert list(frame.columns) == ["t_s", "link"] and len(frame) == 0


def test_unknown_dtype_is_reported() -> None:
    with pytest.raises(ValueError, match="unknown dtype 'c128'"):
        table_to_frame({"names": ["x"], "dtypes": ["c128"], "data": [b""]})


def test_summary(results: Results) -> None:
    summary = results.summary
    assert summary["name"] == "small" and summary["seed"] == 5 and summary["profile"] == "ns2"
    assert summary["duration_s"] == 2.0 and summary["wall_s"] == 0.5
    assert summary["events"] == 1000 and summary["events_per_s"] == 2000.0
    assert summary["stack"]["min_rto_ns"] == 200_000_000
    assert summary["ccsim_version"] == "0.0.test"


# ---- the results directory -------------------------------------------------------------------


def test_write_and_load(results: Results, tmp_path: Path) -> None:
    target = results.write(tmp_path / "out" / "small")
    names = sorted(p.name for p in target.iterdir())
    # queues and drops are empty: not written
    assert names == [
        "flows.parquet",
        "links.parquet",
        "scenario.toml",
        "series.parquet",
        "summary.json",
    ]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["small"]  # no temporary left behind
    loaded = Results.load(target)
    pd.testing.assert_frame_equal(loaded.flows, results.flows, check_dtype=False)
    assert loaded.summary == json.loads(json.dumps(results.summary))
    assert loaded.scenario.resolve() == results.scenario.resolve()
    assert loaded.queues.empty


def test_parquet_is_byte_identical(
    results: Results, scenario: ccsim.Scenario, tmp_path: Path
) -> None:
    again = Results.from_engine(
        scenario, fake_output(series_rows=3), wall_s=9.9, version="0.0.test"
    )
    first, second = results.write(tmp_path / "a"), again.write(tmp_path / "b")
    for name in ("flows", "links", "series"):
        assert (first / f"{name}.parquet").read_bytes() == (second / f"{name}.parquet").read_bytes()
    assert (first / "scenario.toml").read_text() == (second / "scenario.toml").read_text()


def test_parquet_has_no_pandas_metadata(results: Results, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    schema = pq.read_schema(results.write(tmp_path / "r") / "flows.parquet")
    assert not schema.metadata or b"pandas" not in schema.metadata


def test_write_replaces_an_earlier_results_directory(results: Results, tmp_path: Path) -> None:
    target = results.write(tmp_path / "r")
    # a table of an earlier run that traced drops; this one does not
    (target / "drops.parquet").write_bytes((target / "flows.parquet").read_bytes())
    results.write(target)
    assert not (target / "drops.parquet").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_failed_write_leaves_nothing(
    results: Results, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(frame: pd.DataFrame, path: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ccsim.results, "_write_parquet", broken)
    with pytest.raises(OSError):
        results.write(tmp_path / "new")
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_old_directory(
    results: Results, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = results.write(tmp_path / "r")
    before = (target / "flows.parquet").read_bytes()
    monkeypatch.setattr(ccsim.results, "_write_parquet", lambda frame, path: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        results.write(target)
    assert (target / "flows.parquet").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_write_refuses_to_replace_other_directories(results: Results, tmp_path: Path) -> None:
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "thesis.tex").write_text("...")
    with pytest.raises(ScenarioError, match="not a ccsim results directory"):
        results.write(precious)
    assert (precious / "thesis.tex").exists()
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(ScenarioError, match="not a directory"):
        results.write(a_file)


def test_load_refuses_other_directories(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="not a ccsim results directory"):
        Results.load(tmp_path)


# ---- running on the engine -------------------------------------------------------------------


PARKING_LOT_DIRECTIONS = """
name = "directions"
duration = "1s"
[topology]
kind = "parking_lot"
routers = 4
rate = "20Mbps"
delay = "2ms"
buffer = "100pkts"
[[flows]]
cc = "reno"
src = "R0"
dst = "R3"
[[flows]]
cc = "reno"
src = "R1"
dst = "R3"
reverse = true
[[generators]]
kind = "open_loop"
cc = "reno"
rate = 20.0
size = "10KB"
endpoints = [["R2", "R1"]]
"""


@requires_engine
def test_flows_name_their_routers_hops_and_direction() -> None:
    flows = ccsim.run(ccsim.Scenario.from_toml(PARKING_LOT_DIRECTIONS)).flows
    rows = flows[["src_router", "dst_router", "hops", "reverse"]].itertuples(index=False)
    as_tuples = [(s, d, int(h), int(r)) for s, d, h, r in rows]
    assert as_tuples[:2] == [("R0", "R3", 3, 0), ("R3", "R1", 2, 1)]
    generated = as_tuples[2:]
    assert generated and all(t == ("R2", "R1", 1, 1) for t in generated)


@requires_engine
def test_run_returns_the_tables_of_the_design() -> None:
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"trace.sample_interval": "100ms", "trace.drops": "true"}
    )
    results = ccsim.run(scenario)
    assert FLOW_COLUMNS <= set(results.flows.columns)
    assert LINK_COLUMNS <= set(results.links.columns)
    assert SERIES_COLUMNS <= set(results.series.columns)
    assert {"t_s", "link", "queue_pkts", "queue_bytes"} <= set(results.queues.columns)
    assert len(results.flows) == 3 and len(results.series) > 0
    assert results.flows["goodput_bps"].gt(0).all()
    finite = results.flows[results.flows["label"] == "reno"]
    assert np.isfinite(finite["completion_s"]).all()  # the 30KB transfer finished
    summary = results.summary
    assert (
        summary["events"] > 0
        and summary["wall_s"] > 0
        and summary["ccsim_version"] == ccsim.version()
    )
    assert summary["stack"]["profile"] == "ns2"


@requires_engine
def test_runs_are_deterministic(tmp_path: Path) -> None:
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"trace.sample_interval": "50ms"}
    )
    first = ccsim.run(scenario).write(tmp_path / "first")
    second = ccsim.run(scenario).write(tmp_path / "second")
    for name in ("flows", "links", "series", "queues"):
        path = first / f"{name}.parquet"
        if path.exists():
            assert path.read_bytes() == (second / f"{name}.parquet").read_bytes(), name
    different = ccsim.run(scenario.with_overrides({"seed": "6"})).write(tmp_path / "third")
    assert (different / "flows.parquet").read_bytes() != (first / "flows.parquet").read_bytes()


@requires_engine
def test_engine_rejection_is_a_scenario_error_naming_the_flow_group() -> None:
    scenario = ccsim.Scenario.from_toml(UNCONNECTED_EXPLICIT)
    with pytest.raises(ScenarioError, match=r"flows\[1\]"):
        ccsim.run(scenario)
    # groups are expanded for the engine; the message must still point at the user's table
    grouped = scenario.with_overrides({"flows.0.count": "3"})
    with pytest.raises(ScenarioError, match=r"flows\[1\]"):
        ccsim.run(grouped)


@requires_engine
def test_progress_bar_is_quiet_for_short_runs(capsys: pytest.CaptureFixture[str]) -> None:
    ccsim.run(ccsim.Scenario.from_toml(SMALL_DUMBBELL), progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


# ---- the runner, on a stand-in engine ------------------------------------------------------------


class FakeSimulation:
    """Records how it is driven; fails where told to."""

    def __init__(self, spec_json: str, fail_at: int | None = None) -> None:
        self.spec = json.loads(spec_json)
        self.duration_ns = self.spec["duration_ns"]
        self.now_ns = 0
        self.calls: list[int] = []
        self.fail_at = fail_at

    def advance(self, until_ns: int) -> bool:
        if self.fail_at is not None and len(self.calls) == self.fail_at:
            raise RuntimeError("engine crashed: index out of bounds")
        self.calls.append(until_ns)
        self.now_ns = until_ns
        return until_ns >= self.duration_ns

    def finish(self) -> dict[str, Any]:
        return fake_output()


class FakeEngine:
    def __init__(self, **options: Any) -> None:
        self.options = options
        self.simulations: list[FakeSimulation] = []

    def Simulation(self, spec_json: str) -> FakeSimulation:
        if self.options.get("reject"):
            raise ValueError(self.options["reject"])
        simulation = FakeSimulation(spec_json, self.options.get("fail_at"))
        self.simulations.append(simulation)
        return simulation

    def version(self) -> str:
        return "0.0.fake"


def test_run_advances_in_chunks(scenario: ccsim.Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeEngine()
    monkeypatch.setattr(ccsim.runner, "engine", lambda: fake)
    # The stand-in's tables carry no packet accounting to check.
    monkeypatch.delenv(ccsim.runner.CHECK_INVARIANTS_ENV)
    results = ccsim.run(scenario)
    (simulation,) = fake.simulations
    assert len(simulation.calls) == 100
    assert simulation.calls == sorted(simulation.calls) and simulation.calls[-1] == 2_000_000_000
    assert simulation.spec == scenario.engine_spec()
    assert results.summary["ccsim_version"] == "0.0.fake"


def test_engine_crash_names_the_scenario(
    scenario: ccsim.Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ccsim.runner, "engine", lambda: FakeEngine(fail_at=3))
    with pytest.raises(
        ccsim.EngineError, match=r"^small: the engine failed while running: engine crashed"
    ):
        ccsim.run(scenario)


@requires_engine
def test_the_engine_names_the_flow_group_the_user_wrote() -> None:
    # Three flows a -> b, then one a -> c, which has no route: the engine's flow 3 is flows[1].
    first_group = '[[flows]]\ncc = "newreno"\nsrc = "a"\ndst = "b"'
    assert first_group in UNCONNECTED_EXPLICIT
    text = UNCONNECTED_EXPLICIT.replace(first_group, first_group + "\ncount = 3")
    scenario = ccsim.Scenario.from_toml(text)
    assert scenario.engine_spec()["flow_groups"] == [3, 1]
    with pytest.raises(ScenarioError) as caught:
        ccsim.run(scenario)
    assert str(caught.value).startswith("flows[1]"), caught.value
    assert "no route" in str(caught.value)
    # The groups name flows in messages only: the run's identity is the resolved scenario alone.
    assert "flow_groups" not in scenario.resolve()


@requires_engine
def test_the_engine_checks_a_dumbbell_rtt_in_the_group_that_wrote_it() -> None:
    from ccsim import _core

    spec = ccsim.Scenario.from_toml(SMALL_DUMBBELL).engine_spec()
    groups = spec["flow_groups"]
    assert len(groups) >= 2, "the check below needs a second group"
    spec["flows"][groups[0]]["rtt_ns"] = 1  # the first flow of the second group
    with pytest.raises(ValueError, match=r'^flows\[1\]\.rtt: "1ns" is below twice the bottleneck'):
        _core.validate(json.dumps(spec))


@requires_engine
def test_the_conservation_check_catches_a_missing_packet() -> None:
    from ccsim.runner import check_conservation

    results = ccsim.run(ccsim.Scenario.from_toml(SMALL_DUMBBELL))
    check_conservation(results)  # a real run balances
    results.flows.loc[0, "packets_delivered"] -= 1
    with pytest.raises(ccsim.EngineError, match="not conserved at flow 0"):
        check_conservation(results)


@requires_engine
def test_a_traced_table_is_written_even_without_rows(tmp_path: Path) -> None:
    """A run that drops nothing still has its drops.parquet when drops are traced (with the
    table's columns), so a reader can tell "no drops" from "not traced"."""
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"topology.buffer": "1000pkts", "duration": "0.5s", "trace.drops": True}
    )
    results = ccsim.run(scenario)
    assert len(results.drops) == 0
    results.write(tmp_path / "traced")
    drops = pd.read_parquet(tmp_path / "traced" / "drops.parquet")
    assert len(drops) == 0 and {"t_s", "flow", "link"} <= set(drops.columns)
    untraced = ccsim.run(scenario.with_overrides({"trace.drops": False}))
    untraced.write(tmp_path / "untraced")
    assert not (tmp_path / "untraced" / "drops.parquet").exists()
