"""Output directories and damaged inputs: `ccsim run --out` replaces only a directory ccsim wrote,
reports on half-written directories fail with one line, sweeps refuse axes that would silently do
nothing or collapse, and overrides apply before the scenario is checked."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import ccsim
import numpy as np
import pytest
from ccsim.errors import ScenarioError
from ccsim.results import Results
from ccsim.sweeps import Sweep
from conftest import ROOT, SMALL_DUMBBELL, requires_engine, run_cli

# ---- a results directory without the engine ---------------------------------------------------


def _table(columns: dict[str, tuple[str, list[Any]]]) -> dict[str, Any]:
    numpy_dtypes = {"f64": "<f8", "u32": "<u4"}
    return {
        "names": list(columns),
        "dtypes": [dtype for dtype, _ in columns.values()],
        "data": [
            list(values) if dtype == "str" else np.asarray(values, numpy_dtypes[dtype]).tobytes()
            for dtype, values in columns.values()
        ],
    }


@pytest.fixture
def results(fake_registry: Any) -> Results:
    output = {
        "tables": {
            "flows": _table({"flow": ("u32", [0]), "cc": ("str", ["newreno"])}),
            "links": _table({"link": ("u32", [0]), "utilization": ("f64", [0.5])}),
        },
        "stats": {"events": 10, "packet_hops": 9, "sim_end_ns": 2_000_000_000},
        "stack": {"profile": "ns2"},
    }
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL)
    return Results.from_engine(scenario, output, wall_s=0.1, version="0.0.test")


def _entries(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


# ---- run --out: replace only what ccsim wrote ------------------------------------------------


def test_a_foreign_directory_with_a_summary_json_is_not_replaced(
    results: Results, tmp_path: Path
) -> None:
    foreign = tmp_path / "analysis"
    foreign.mkdir()
    (foreign / "summary.json").write_text('{"mean": 3}')
    (foreign / "thesis.tex").write_text("years of work")
    before = _entries(foreign)
    with pytest.raises(ScenarioError, match=r"analysis: .*not written by ccsim"):
        results.write(foreign)
    assert _entries(foreign) == before


def test_a_results_directory_with_a_users_file_is_not_replaced(
    results: Results, tmp_path: Path
) -> None:
    target = results.write(tmp_path / "r")
    (target / "notes.md").write_text("what I saw")
    with pytest.raises(ScenarioError, match=r"r: holds notes\.md, which ccsim did not write"):
        results.write(target)
    assert (target / "notes.md").read_text() == "what I saw"


def test_a_run_directory_of_a_sweep_is_not_replaced(results: Results, tmp_path: Path) -> None:
    store = tmp_path / "sweep"
    run = results.write(store / "runs" / "0123456789abcdef")
    (store / "sweep.json").write_text("{}")
    before = _entries(run)
    for target in (run, store / "runs" / "fedcba9876543210", store / "runs", store):
        with pytest.raises(ScenarioError, match="inside the sweep directory"):
            results.write(target)
    assert _entries(run) == before


def test_its_own_directories_are_replaced(results: Results, tmp_path: Path) -> None:
    target = results.write(tmp_path / "r")
    summary = json.loads((target / "summary.json").read_text())
    assert summary["written_by"] == "ccsim" and summary["results_format"] == 1
    # what `ccsim plot` and `ccsim report` put there is ccsim's too, and stale once replaced
    (target / "plots").mkdir()
    (target / "plots" / "cdf.png").write_bytes(b"png")
    (target / "report.html").write_text("<html>")
    results.write(target)
    assert not (target / "plots").exists() and not (target / "report.html").exists()
    # the marker is about the files, not the run: it does not show in the summary
    assert "written_by" not in Results.load(target).summary
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_a_directory_written_before_the_marker_is_replaced(
    results: Results, tmp_path: Path
) -> None:
    target = results.write(tmp_path / "old")
    summary = json.loads((target / "summary.json").read_text())
    del summary["written_by"], summary["results_format"]
    (target / "summary.json").write_text(json.dumps(summary))
    results.write(target)
    assert json.loads((target / "summary.json").read_text())["written_by"] == "ccsim"


def test_a_symbolic_link_is_not_replaced(results: Results, tmp_path: Path) -> None:
    real = results.write(tmp_path / "real")
    link = tmp_path / "latest"
    link.symlink_to(real)
    with pytest.raises(ScenarioError, match="latest: is a symbolic link"):
        results.write(link)
    assert link.is_symlink() and (real / "summary.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest", "real"]


@requires_engine
def test_ccsim_run_refuses_a_foreign_directory_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "small.toml").write_text(SMALL_DUMBBELL)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "summary.json").write_text("{}")
    (tmp_path / "mine" / "data.csv").write_text("1,2,3")
    done = run_cli("run", "small.toml", "--out", "mine", "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: mine: ") and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert (tmp_path / "mine" / "data.csv").read_text() == "1,2,3"


# ---- reading damaged directories -------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "fragment"),
    [
        ("no flows", r"flows\.parquet: missing"),
        ("truncated summary", r"summary\.json: not valid JSON"),
        ("summary not an object", r"summary\.json: .* expected a JSON object"),
        ("truncated links", r"links\.parquet: not a readable Parquet file"),
        ("empty series", r"series\.parquet: not a readable Parquet file"),
        ("no scenario", r"scenario\.toml: no such file"),
    ],
)
def test_a_damaged_results_directory_is_named_in_one_line(
    results: Results, tmp_path: Path, damage: str, fragment: str
) -> None:
    from ccsim.report import write_report

    target = results.write(tmp_path / "r")
    if damage == "no flows":
        (target / "flows.parquet").unlink()
    elif damage == "truncated summary":
        text = (target / "summary.json").read_text()
        (target / "summary.json").write_text(text[:40])
    elif damage == "summary not an object":
        (target / "summary.json").write_text("[1, 2]")
    elif damage == "truncated links":
        data = (target / "links.parquet").read_bytes()
        (target / "links.parquet").write_bytes(data[: len(data) // 2])
    elif damage == "empty series":
        (target / "series.parquet").write_bytes(b"")
    else:
        (target / "scenario.toml").unlink()
    for read in (Results.load, write_report):
        with pytest.raises(ScenarioError, match=fragment) as caught:
            read(target)
        assert "\n" not in str(caught.value)


def _fake_store(directory: Path, manifest: str) -> Path:
    directory.mkdir()
    (directory / "runs").mkdir()
    (directory / "sweep.json").write_text(manifest)
    return directory


@pytest.mark.parametrize(
    ("manifest", "fragment"),
    [
        ('{"format": 1, "sweep": {"na', r"sweep\.json: not valid JSON"),
        ("", r"sweep\.json: not valid JSON"),
        ('{"format": 1}', r'sweep\.json: no "sweep" object'),
        ('{"format": 1, "sweep": {}, "columns": ["a"], "points": [{"point": 0}]}', "points"),
        ("[]", r"sweep\.json: .*expected a JSON object"),
    ],
)
def test_a_damaged_manifest_is_named_in_one_line(
    tmp_path: Path, manifest: str, fragment: str
) -> None:
    from ccsim.explore import make_plots, run_query
    from ccsim.report import write_report

    store = _fake_store(tmp_path / "sweep", manifest)
    for read in (
        write_report,
        lambda d: run_query(d, "SELECT * FROM runs"),
        lambda d: make_plots(d, ["metric"]),
    ):
        with pytest.raises(ScenarioError, match=fragment) as caught:
            read(store)
        assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("files", "fragment"),
    [
        ({"study.json": '{"study": "R6", "tit'}, r"study\.json: not valid JSON"),
        ({"study.json": '{"title": "x"}'}, r'study\.json: no "study" name'),
        ({"study.json": '{"study": "R6"}', "R6.csv": ""}, r"R6\.csv: not a readable CSV table"),
    ],
)
def test_a_damaged_study_directory_is_named_in_one_line(
    tmp_path: Path, files: dict[str, str], fragment: str
) -> None:
    from ccsim.report import write_report

    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ScenarioError, match=fragment) as caught:
        write_report(tmp_path)
    assert "\n" not in str(caught.value)


@requires_engine
def test_a_run_file_the_catalogue_cannot_read_is_named_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalogue's views read every done run's Parquet files; should one be damaged after
    the store's checks, a report or a plot says which file in one line."""
    import duckdb
    from ccsim import plots
    from ccsim.explore import make_plots
    from ccsim.report import write_report

    sweep = Sweep.from_dict({"scenario": ccsim.Scenario.from_toml(SMALL_DUMBBELL).data()})
    ccsim.sweep(sweep, tmp_path / "s", workers=1)
    damaged = "runs/0123456789abcdef/flows.parquet"

    def unreadable(*args: Any, **kwargs: Any) -> Any:
        raise duckdb.InvalidInputException(f"No magic bytes found at end of file '{damaged}'")

    monkeypatch.setattr(plots, "sweep_figures", unreadable)
    monkeypatch.setattr(plots, "plot_sweep", unreadable)
    for read in (write_report, lambda d: make_plots(d, ["cdf"])):
        with pytest.raises(ScenarioError, match="s: cannot read the runs' tables: ") as caught:
            read(tmp_path / "s")
        assert damaged in str(caught.value) and "\n" not in str(caught.value)


@requires_engine
def test_ccsim_report_on_half_written_directories(tmp_path: Path) -> None:
    (tmp_path / "small.toml").write_text(SMALL_DUMBBELL)
    done = run_cli("run", "small.toml", "--out", "r", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (tmp_path / "r" / "flows.parquet").unlink()
    _fake_store(tmp_path / "s", '{"format": 1, "sweep"')
    for directory, file in (("r", "flows.parquet"), ("s", "sweep.json")):
        done = run_cli("report", directory, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
        assert done.stderr.startswith(f"error: {Path(directory) / file}: ")


# ---- sweeps that would silently do something else ----------------------------------------------

FOUR_FLOWS = """
name = "four"
duration = "2s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"

[[flows]]
cc = "newreno"
count = 4
rtt = "40ms"
"""


def _sweep(text: str, tmp_path: Path, base: str = FOUR_FLOWS) -> Sweep:
    (tmp_path / "base.toml").write_text(base)
    (tmp_path / "sweep.toml").write_text(f'scenario = "base.toml"\n{text}')
    return Sweep.load(tmp_path / "sweep.toml")


@pytest.mark.usefixtures("fake_registry")
@pytest.mark.parametrize(
    ("table", "key"),
    [
        ('[axes]\n"flows.0.params.beta" = [0.5, 0.7]', "axes.flows.0.params.beta"),
        ('[axes]\n"flows[0].cc" = ["newreno", "cubic"]', "axes.flows[0].cc"),
        ('[set]\n"flows.0.params.beta" = 0.5', "set.flows.0.params.beta"),
        ("[set.flows.0.params]\nbeta = 0.5", "set.flows.0.params.beta"),
    ],
)
def test_a_compared_sweep_refuses_keys_its_mixtures_overwrite(
    tmp_path: Path, table: str, key: str
) -> None:
    compare = '[compare]\nalgorithms = ["newreno", "cubic"]\nmixtures = ["all", "one"]\n'
    with pytest.raises(ScenarioError, match=rf"^{re.escape(key)}: ") as e:
        _sweep(f"{table}\n{compare}", tmp_path)
    assert "compare.algorithms" in str(e.value) and "\n" not in str(e.value)
    # without [compare] the same axis varies the runs
    if table.startswith("[axes]"):
        assert len({p.run_id for p in _sweep(table, tmp_path).points()}) == 2


@pytest.mark.usefixtures("fake_registry")
def test_an_algorithms_parameters_vary_through_compare_algorithms(tmp_path: Path) -> None:
    """What the refusal points to: one compared entry per value."""
    sweep = _sweep(
        "[compare]\n"
        'algorithms = [{ cc = "newreno", params = { beta = 0.5 } }, '
        '{ cc = "newreno", params = { beta = 0.7 } }]\n'
        'mixtures = ["all", "one"]\n',
        tmp_path,
    )
    assert len({p.run_id for p in sweep.points()}) == 5  # 2 x 2 and the all-Reno reference


def test_an_axis_of_equal_values_of_different_types_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(ROOT))  # examples.python_cc
    base = FOUR_FLOWS.replace('"newreno"', '"examples.python_cc.reno:Reno"')
    with pytest.raises(ScenarioError, match=r"^axes\.flows\.0\.params\.alpha: 1 and true ") as e:
        _sweep('[axes]\n"flows.0.params.alpha" = [1, true, 1.0]', tmp_path, base)
    assert "\n" not in str(e.value)
    with pytest.raises(ScenarioError, match=r"^axes\.topology\.loss: 0 and 0\.0 "):
        _sweep('[axes]\n"topology.loss" = [0, 0.0, 0.01]', tmp_path, base)
    # different values of different types are different runs
    sweep = _sweep('[axes]\n"flows.0.params.alpha" = [2, true, 0.5]', tmp_path, base)
    assert len({p.run_id for p in sweep.points()}) == 3


# ---- overrides before checks -------------------------------------------------------------------


def test_overrides_apply_before_the_scenario_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "gone.toml"
    path.write_text(SMALL_DUMBBELL.replace('cc = "newreno"', 'cc = "no_such_module_28:Gone"'))
    with pytest.raises(ScenarioError, match="no_such_module_28"):
        ccsim.Scenario.load(path)
    scenario = ccsim.Scenario.load(path, overrides={"flows.0.cc": "reno"})
    assert [group.cc for group in scenario.flows] == ["reno", "reno"]
    assert scenario.name == "small" and scenario.flows[1].size == 30_000
    # the same as overriding a loadable file afterwards
    fine = tmp_path / "fine.toml"
    fine.write_text(SMALL_DUMBBELL)
    assert (
        ccsim.Scenario.load(fine, overrides={"seed": "9", "flows[1].size": "1MB"}).resolve()
        == ccsim.Scenario.load(fine).with_overrides({"seed": "9", "flows[1].size": "1MB"}).resolve()
    )
    with pytest.raises(ScenarioError, match=r"cannot set flows\.5\.cc"):
        ccsim.Scenario.load(path, overrides={"flows.5.cc": "reno"})


def test_the_command_line_applies_set_before_checking(tmp_path: Path) -> None:
    (tmp_path / "gone.toml").write_text(
        SMALL_DUMBBELL.replace('cc = "newreno"', 'cc = "no_such_module_28:Gone"')
    )
    refused = run_cli("validate", "gone.toml", cwd=tmp_path)
    assert refused.returncode == 2 and "no_such_module_28" in refused.stderr
    done = run_cli("validate", "gone.toml", "--set", "flows.0.cc=reno", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
