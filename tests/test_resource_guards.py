"""Resource guards: a run estimates what it will hold and write before it starts (the sampled
series in bytes, the pcap files at the captured links' rates) and refuses, in one line naming the
key to change, what exceeds ``[limits]``; the engine bounds the inspect columns an algorithm may
create, and a record that cannot get memory stops the run with "out of memory" naming it, rather
than aborting the process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import ccsim
import pytest
import tomli_w
from ccsim.errors import ScenarioError
from ccsim.scenario import (
    DEFAULT_INSPECT_COLUMNS,
    SERIES_PEAK_COPIES,
    Scenario,
    estimated_pcap_bytes,
    estimated_series_bytes,
)
from conftest import EXAMPLES, PACKAGE_PARENT, ROOT, requires_engine, run_cli


def dumbbell(**top: Any) -> dict[str, Any]:
    """A dumbbell scenario as a dict; keys given replace the top-level ones."""
    data: dict[str, Any] = {
        "name": "guarded",
        "duration": "100s",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "10Mbps",
            "bottleneck_delay": "5ms",
        },
        "flows": [{"cc": "newreno", "count": 100, "rtt": "20ms"}],
    }
    data.update(top)
    return data


def refusal(data: dict[str, Any]) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        Scenario.model_validate(data)
    assert "\n" not in str(caught.value)
    return caught.value


# ---- the sampled series, in bytes ---------------------------------------------------------------


def test_series_under_the_row_limit_but_too_large_in_memory_are_refused() -> None:
    # 980 flows sampled every 1 ms for 100 s: 9.8e7 rows, under limits.samples (1e8), took 13.5 GB.
    data = dumbbell(trace={"sample_interval": "1ms"})
    data["flows"][0]["count"] = 980
    error = refusal(data)
    assert error.path == ("trace", "sample_interval")
    message = str(error)
    assert "9.8e+07 flow rows" in message and "about 13 GB in memory" in message, message
    assert 'limits.series_bytes = "4GiB"' in message and "set limits.series_bytes" in message
    Scenario.model_validate(data | {"limits": {"series_bytes": "16GiB"}})


def test_the_series_estimate_is_the_measured_bytes_per_row() -> None:
    # Measured: 100 newreno flows every 1 ms for 100 s peaked 1.31 GB above the same run
    # without sampling (ccsim/scenario/resources.py says how).
    scenario = Scenario.model_validate(dumbbell(trace={"sample_interval": "1ms"}))
    estimate, flow_rows, queue_rows = estimated_series_bytes(scenario)
    assert (flow_rows, queue_rows) == (100 * 100_001, 2 * 100_001)
    assert estimate == SERIES_PEAK_COPIES * (flow_rows * 44 + queue_rows * 32)
    assert 1.25e9 < estimate < 1.4e9
    assert estimated_series_bytes(Scenario.model_validate(dumbbell())) == (0, 0, 0)


def test_a_flow_is_counted_from_its_start() -> None:
    data = dumbbell(trace={"sample_interval": "1s"})
    data["flows"][0] |= {"count": 1, "start": "50s"}
    assert estimated_series_bytes(Scenario.model_validate(data))[1] == 51


@requires_engine
def test_the_inspect_columns_of_the_engine_algorithms_are_counted() -> None:
    series = {"sample_interval": "1ms"}
    newreno = Scenario.model_validate(dumbbell(trace=series))
    data = dumbbell(trace=series)
    data["flows"][0]["cc"] = "cubic"  # reports w_max and k
    cubic = Scenario.model_validate(data)
    extra = estimated_series_bytes(cubic)[0] - estimated_series_bytes(newreno)[0]
    assert extra == SERIES_PEAK_COPIES * 100 * 100_001 * 2 * 8


@requires_engine
def test_the_stacks_own_columns_are_counted_on_every_flow() -> None:
    """HyStart++ adds its phase and baseline to each flow's row; DSACK and undo their counts,
    and F-RTO its spurious timeouts, under SACK-based recovery only."""
    series = {"trace": {"sample_interval": "1ms"}}
    plain = estimated_series_bytes(Scenario.model_validate(dumbbell(**series)))[0]

    def extra(stack: dict[str, object], profile: str = "ns2") -> int:
        data = dumbbell(**series) | {"stack": stack, "profile": profile}
        columns = estimated_series_bytes(Scenario.model_validate(data))[0] - plain
        return columns // (SERIES_PEAK_COPIES * 100 * 100_001 * 8)

    assert extra({"hystart": "rfc9406"}) == 2
    assert extra({"recovery": "sack", "dsack": True, "undo": True}) == 2
    assert extra({"recovery": "rack-tlp", "dsack": True, "frto": True}) == 3
    assert extra({"recovery": "newreno", "dsack": True}) == 0
    assert extra({"dsack": True}, profile="linux-sack") == 2
    assert extra({}, profile="linux") == 3  # DSACK, undo and F-RTO are Linux 6.x's


@requires_engine
def test_a_python_algorithm_with_inspect_counts_as_many_columns_as_it_may_create(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(ROOT))
    (tmp_path / "guard_inspecting.py").write_text(INSPECTING, encoding="utf-8")
    data = dumbbell(trace={"sample_interval": "10ms"})
    data["flows"][0] |= {"cc": "guard_inspecting:Inspecting", "count": 10}
    rows = 10 * 10_001
    estimate = estimated_series_bytes(Scenario.model_validate(data))[0]
    per_row = 44 + DEFAULT_INSPECT_COLUMNS * 8
    assert estimate == SERIES_PEAK_COPIES * (rows * per_row + 2 * 10_001 * 32)
    fewer = data | {"limits": {"inspect_columns": 2}}
    assert estimated_series_bytes(Scenario.model_validate(fewer))[0] < estimate


# ---- pcap files ---------------------------------------------------------------------------------


def captured(duration: str, **pcap: Any) -> dict[str, Any]:
    data = dumbbell(duration=duration, trace={"pcap": pcap})
    data["topology"]["bottleneck_rate"] = "1Gbps"
    data["flows"][0]["count"] = 4
    return data


def test_pcap_of_a_fast_link_for_long_is_refused_with_the_estimate_and_the_key() -> None:
    error = refusal(captured("300s", links=["R1->R2"]))
    assert error.path == ("trace", "pcap", "links", 0)
    message = str(error)
    assert "about 2.45 GB of pcap files" in message and "R1->R2 at 1Gbps" in message, message
    assert 'limits.pcap_bytes = "1GB"' in message and "set limits.pcap_bytes" in message
    Scenario.model_validate(captured("300s", links=["R1->R2"]) | {"limits": {"pcap_bytes": "3GB"}})


def test_the_pcap_estimate_is_the_measured_bytes_per_packet() -> None:
    # Measured: 10 s at the 1 Gbps bottleneck wrote 80 882 640 bytes (1 189 450 packets).
    files = estimated_pcap_bytes(Scenario.model_validate(captured("10s", links=["R1->R2"])))
    assert [(path, what) for path, what, _ in files] == [
        (("trace", "pcap", "links", 0), "R1->R2 at 1Gbps")
    ]
    assert 80_882_640 <= files[0][2] < 1.02 * 80_882_640
    # 60 s of the same (627 MB in the report, with both directions) is under the default.
    Scenario.model_validate(captured("60s", links=["R1->R2"]))


def test_a_captured_finite_transfer_is_bounded_by_its_size() -> None:
    data = captured("1000s", flows=[0])
    data["flows"][0]["size"] = "10MB"
    ((_, _, size),) = estimated_pcap_bytes(Scenario.model_validate(data))
    assert size == 2 * 2 * 10_000 * 68  # each segment twice, an ACK each, 68 bytes a record


def test_byte_limits_take_sizes_or_numbers_and_write_back_as_sizes() -> None:
    limits = {"series_bytes": 8 * 2**30, "pcap_bytes": "2GB", "inspect_columns": 8}
    scenario = Scenario.model_validate(dumbbell(limits=limits))
    assert (scenario.limits.series_bytes, scenario.limits.pcap_bytes) == (8 * 2**30, 2 * 10**9)
    again = Scenario.from_toml(scenario.to_toml())
    assert again.limits == scenario.limits
    assert 'series_bytes = "8GiB"' in scenario.to_toml()
    for bad in ({"series_bytes": 0}, {"pcap_bytes": "lots"}, {"inspect_columns": 0}):
        with pytest.raises(ScenarioError, match=r"^limits\."):
            Scenario.model_validate(dumbbell(limits=bad))


def test_default_limits_leave_the_resolved_scenario_and_so_the_run_id_as_they_were() -> None:
    resolved = Scenario.model_validate(dumbbell()).resolve()
    assert "limits" not in resolved
    raised = Scenario.model_validate(dumbbell(limits={"series_bytes": "8GiB"})).resolve()
    assert raised == resolved, "what only the front end checks does not reach the engine"
    columns = Scenario.model_validate(dumbbell(limits={"inspect_columns": 300})).resolve()
    assert columns["limits"] == {"inspect_columns": 300}


def test_the_example_scenarios_are_within_the_default_limits() -> None:
    for path in sorted(EXAMPLES.glob("*.toml")):
        if not path.stem.startswith("sweep_"):
            Scenario.load(path)


# ---- inspect columns, bounded by the engine ------------------------------------------------------

INSPECTING = textwrap.dedent(
    """
    from examples.python_cc.reno import Reno

    class Inspecting(Reno):
        def inspect(self, now):
            return {"a": 1.0, "b": 2.0}

    class Growing(Reno):
        calls = 0

        def inspect(self, now):
            Growing.calls += 1
            return {f"k{Growing.calls}": 1.0}
    """
)

GROWING = """
name = "growing"
duration = "1s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"

[[flows]]
cc = "guard_inspecting:Growing"
rtt = "20ms"

[trace]
sample_interval = "10ms"
"""


@pytest.fixture
def inspecting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module of the inspecting algorithms, importable here and by a `ccsim` subprocess."""
    module_dir = tmp_path / "modules"
    module_dir.mkdir()
    (module_dir / "guard_inspecting.py").write_text(INSPECTING, encoding="utf-8")
    monkeypatch.syspath_prepend(str(module_dir))
    monkeypatch.syspath_prepend(str(ROOT))
    paths = [str(module_dir), str(ROOT), os.environ.get("PYTHONPATH")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))
    return module_dir


@requires_engine
def test_an_inspect_that_reports_a_new_name_each_sample_stops_at_the_limit(
    inspecting: Path,
) -> None:
    from ccsim import _core

    scenario = Scenario.from_toml(GROWING)
    # Bad input, like a limit checked before the run: the scenario asks for more than it allows.
    with pytest.raises(ScenarioError) as caught:
        ccsim.run(scenario)
    message = str(caught.value)
    assert "\n" not in message
    assert "growing" in message and "limits.inspect_columns" in message, message
    assert 'algorithm "guard_inspecting:Growing"' in message
    assert f"expected at most {DEFAULT_INSPECT_COLUMNS}" in message
    assert isinstance(caught.value.__cause__, _core.LimitExceededError)
    # Raised, the limit lets the run through, with a column per name.
    raised = scenario.with_overrides({"limits.inspect_columns": 200})
    series = ccsim.run(raised).series
    assert 90 <= sum(name.startswith("cc_k") for name in series.columns) <= 101


@requires_engine
def test_the_engine_raises_its_own_error_naming_the_run(inspecting: Path) -> None:
    from ccsim import _core, pycc

    scenario = Scenario.from_toml(GROWING).with_overrides({"limits.inspect_columns": 3})
    simulation = _core.Simulation(json.dumps(scenario.resolve()), pycc.makers(scenario))
    with pytest.raises(_core.LimitExceededError, match=r"^scenario growing: limits\.inspect_col"):
        simulation.advance(scenario.duration)
    with pytest.raises(RuntimeError, match="already finished or crashed"):
        simulation.advance(scenario.duration)


@requires_engine
def test_the_command_line_says_it_in_one_line(inspecting: Path, tmp_path: Path) -> None:
    path = tmp_path / "growing.toml"
    path.write_text(GROWING, encoding="utf-8")
    done = run_cli("run", path, "--out", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("error: ") and "limits.inspect_columns" in done.stderr
    assert not (tmp_path / "out").exists()


@requires_engine
def test_the_engine_lists_what_each_algorithm_inspects() -> None:
    from ccsim import _core

    inspects = {info["name"]: info["inspect"] for info in _core.algorithms()}
    assert inspects["cubic"] == ["w_max", "k"] and inspects["newreno"] == []


# ---- out of memory ------------------------------------------------------------------------------

OUT_OF_MEMORY = """
import resource, sys
import ccsim
from ccsim.errors import EngineError

scenario = ccsim.Scenario.from_toml(sys.argv[1])
ccsim.run(scenario.with_overrides({"duration": "1s"}))  # everything imported and warm
status = open("/proc/self/status").read().split("VmSize:")[1]
size = int(status.split()[0]) * 1024
# Room for the run's steady state, not for its series (about 2 GB in the engine's columns).
resource.setrlimit(resource.RLIMIT_AS, (size + 300 * 2**20, resource.RLIM_INFINITY))
try:
    ccsim.run(scenario)
except EngineError as error:
    print(type(error.__cause__).__name__, error)
    sys.exit(3)
print("finished")
"""


@requires_engine
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
def test_a_series_that_cannot_get_memory_is_out_of_memory_not_an_abort(tmp_path: Path) -> None:
    data = dumbbell(
        name="hungry",
        duration="500s",
        trace={"sample_interval": "1ms"},
        limits={"series_bytes": "16GiB"},
    )
    done = subprocess.run(
        [sys.executable, "-c", OUT_OF_MEMORY, tomli_w.dumps(data)],
        env={"PYTHONPATH": str(PACKAGE_PARENT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Today the allocation failure aborts the process (SIGABRT, status -6).
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr[-2000:])
    line = done.stdout.strip()
    assert line.startswith("OutOfMemoryError scenario hungry: out of memory: "), line
    assert "the sampled series could not grow" in line
