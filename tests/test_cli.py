"""The ``ccsim`` command, run as ``python -m ccsim`` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import (
    EXAMPLES,
    PACKAGE_PARENT,
    SMALL_DUMBBELL,
    UNCONNECTED_EXPLICIT,
    requires_engine,
    run_cli,
)

FILES = {"scenario.toml", "summary.json", "flows.parquet", "links.parquet"}


def assert_bad_input(result, cwd: Path, fragment: str) -> None:
    """Exit 2, exactly one line `error: ...` on stderr, no traceback, no results directory."""
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.stderr + result.stdout
    assert not (cwd / "results").exists()


# ---- bad input -------------------------------------------------------------------------------

BAD_SCENARIOS = {
    "missing key": (
        SMALL_DUMBBELL.replace('bottleneck_rate = "10Mbps"\n', ""),
        "topology.bottleneck_rate: required key is missing",
    ),
    "malformed unit": (
        SMALL_DUMBBELL.replace('"10Mbps"', '"100Mbs"'),
        'topology.bottleneck_rate: "100Mbs" is not a rate; expected a number with a unit like "100Mbps"',
    ),
    "negative delay": (
        SMALL_DUMBBELL.replace('bottleneck_delay = "5ms"', 'bottleneck_delay = "-5ms"'),
        'topology.bottleneck_delay: "-5ms" is negative',
    ),
    "unknown key": (SMALL_DUMBBELL.replace("seed = 5", "sed = 5"), "sed: unknown key"),
    "toml syntax": (SMALL_DUMBBELL.replace("seed = 5", "seed = "), "invalid TOML"),
}


@pytest.mark.parametrize("case", sorted(BAD_SCENARIOS))
def test_bad_scenarios(case: str, tmp_path: Path, write_scenario) -> None:
    text, fragment = BAD_SCENARIOS[case]
    result = run_cli("run", write_scenario(text), cwd=tmp_path)
    assert_bad_input(result, tmp_path, fragment)
    assert result.stdout == ""


def test_validate_reports_bad_scenarios_the_same_way(tmp_path: Path, write_scenario) -> None:
    text, fragment = BAD_SCENARIOS["malformed unit"]
    assert_bad_input(run_cli("validate", write_scenario(text), cwd=tmp_path), tmp_path, fragment)


@requires_engine
def test_unknown_algorithm(tmp_path: Path, write_scenario) -> None:
    path = write_scenario(SMALL_DUMBBELL.replace('cc = "reno"', 'cc = "renoo"'))
    result = run_cli("run", path, cwd=tmp_path)
    assert_bad_input(result, tmp_path, 'flows[1].cc: unknown algorithm "renoo"; expected one of: ')


@requires_engine
@pytest.mark.parametrize("command", ["run", "validate"])
def test_flow_between_unconnected_nodes(command: str, tmp_path: Path, write_scenario) -> None:
    result = run_cli(command, write_scenario(UNCONNECTED_EXPLICIT), cwd=tmp_path)
    assert_bad_input(result, tmp_path, "flows[1]")


def test_missing_file(tmp_path: Path) -> None:
    assert_bad_input(run_cli("run", "nope.toml", cwd=tmp_path), tmp_path, "nope.toml: no such file")


def test_unreadable_files(tmp_path: Path) -> None:
    (tmp_path / "binary.toml").write_bytes(b"\x00\xff\xfe")
    assert_bad_input(run_cli("run", "binary.toml", cwd=tmp_path), tmp_path, "not a UTF-8 text file")
    (tmp_path / "adir").mkdir()
    assert_bad_input(run_cli("run", "adir", cwd=tmp_path), tmp_path, "is a directory")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_file_without_read_permission(tmp_path: Path, write_scenario) -> None:
    path = write_scenario(SMALL_DUMBBELL)
    path.chmod(0)
    assert_bad_input(run_cli("run", path, cwd=tmp_path), tmp_path, "cannot read")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--set", "seed"], '--set "seed": expected KEY=VALUE'),
        (["--set", "topology.bottleneck_rate=100Mbs"], '"100Mbs" is not a rate'),
        (["--set", "flows.7.cc=reno"], "cannot set flows.7.cc"),
        (["--bogus"], "No such option: --bogus"),
    ],
)
def test_bad_command_lines(args: list[str], fragment: str, tmp_path: Path, write_scenario) -> None:
    result = run_cli("run", write_scenario(SMALL_DUMBBELL), *args, cwd=tmp_path)
    assert_bad_input(result, tmp_path, fragment)


def test_missing_argument(tmp_path: Path) -> None:
    assert_bad_input(run_cli("run", cwd=tmp_path), tmp_path, "Missing argument 'SCENARIO'")


def test_out_must_not_be_another_directory(tmp_path: Path, write_scenario) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.txt").write_text("keep me")
    result = run_cli("run", write_scenario(SMALL_DUMBBELL), "--out", "docs", cwd=tmp_path)
    assert_bad_input(result, tmp_path, "not a ccsim results directory")
    assert (tmp_path / "docs" / "notes.txt").read_text() == "keep me"


# ---- help, version, validate, algorithms ---------------------------------------------------------


def test_version(tmp_path: Path) -> None:
    result = run_cli("--version", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("ccsim ")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--help"],
            ["run", "validate", "algorithms", "sweep", "query", "plot", "report", "--version"],
        ),
        (["report", "--help"], ["DIR", "--out", "FILE", "self-contained", "docs/reports.md"]),
        (["run", "--help"], ["SCENARIO", "--out", "--set", "--quiet", "KEY=VALUE"]),
        (["validate", "--help"], ["SCENARIO", "--set"]),
        (["algorithms", "--help"], ["NAME", "parameters", "--format", "--wide"]),
        (
            ["sweep", "--help"],
            [
                "SWEEP",
                "--out",
                "--workers",
                "--scheduler",
                "ADDRESS",
                "--dry-run",
                "--quiet",
                "docs/experiments.md",
                "again",
            ],
        ),
        (["query", "--help"], ["DIR", "SQL", "--format", "csv", "json", "--max-rows", "runs"]),
        (
            ["study", "--help"],
            ["--list", "--quick", "--profile", "--replicates", "--first-seed", "reversed"],
        ),
        (
            ["plot", "--help"],
            [
                "DIR",
                "--kind",
                "cwnd",
                "throughput",
                "queue",
                "flows",
                "cdf",
                "metric",
                "--out",
                "--format",
                "svg",
                "--x",
                "--y",
                "--hue",
            ],
        ),
    ],
)
def test_help(args: list[str], expected: list[str], tmp_path: Path) -> None:
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 0
    for word in expected:
        assert word in result.stdout


def test_validate_ok(tmp_path: Path) -> None:
    result = run_cli("validate", EXAMPLES / "dumbbell.toml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok: dumbbell (10 flows, dumbbell topology, 20s, profile ns2)"
    assert not (tmp_path / "results").exists()


@requires_engine
def test_algorithms(tmp_path: Path) -> None:
    result = run_cli("algorithms", cwd=tmp_path)
    assert result.returncode == 0
    assert "newreno" in result.stdout and "loss, high speed" in result.stdout
    reno = run_cli("algorithms", "reno", cwd=tmp_path)
    assert reno.returncode == 0, reno.stderr
    beta = next(line for line in reno.stdout.splitlines() if line.startswith("beta "))
    assert beta.split()[:2] == ["beta", "0.5"]
    unknown = run_cli("algorithms", "renoo", cwd=tmp_path)
    assert unknown.returncode == 2 and 'unknown algorithm "renoo"' in unknown.stderr


@requires_engine
def test_algorithms_show_defaults_that_depend_on_the_profile() -> None:
    from ccsim.cli.algorithm_tables import describe_param
    from ccsim.runner import engine

    cubic = next(a for a in engine().algorithms() if a["name"] == "cubic")
    hystart = next(p for p in cubic["params"] if p["name"] == "hystart")
    assert hystart["profile_defaults"] == {"linux": 1.0, "linux-sack": 1.0}
    assert describe_param(hystart).startswith("hystart = false, linux: true, linux-sack: true")


# ---- runs ----------------------------------------------------------------------------------------


@requires_engine
def test_run_writes_the_results_directory(tmp_path: Path, write_scenario) -> None:
    result = run_cli("run", write_scenario(SMALL_DUMBBELL), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    for word in [
        "profile ns2",
        "Flows",
        "goodput Mb/s",
        "retransmits",
        "timeouts",
        "utilization",
        "R1 -> R2",
    ]:
        assert word in result.stdout
    out = tmp_path / "results" / "small"
    assert {p.name for p in out.iterdir()} == FILES
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["small"]

    import pyarrow.parquet as pq

    flows = pq.read_schema(out / "flows.parquet").names
    assert {"flow", "label", "cc", "goodput_bps", "retransmits", "timeouts", "completion_s"} <= set(
        flows
    )
    links = pq.read_schema(out / "links.parquet").names
    assert {"link", "utilization", "drops", "mean_queue_pkts"} <= set(links)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["name"] == "small" and summary["seed"] == 5 and summary["profile"] == "ns2"
    # the written scenario runs again as it is
    rerun = run_cli("run", out / "scenario.toml", "--out", "again", "--quiet", cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    assert (tmp_path / "again" / "flows.parquet").read_bytes() == (
        out / "flows.parquet"
    ).read_bytes()


@requires_engine
def test_traces_are_written_when_asked(tmp_path: Path, write_scenario) -> None:
    path = write_scenario(SMALL_DUMBBELL)
    args = [
        "--set",
        "trace.sample_interval=100ms",
        "--set",
        "trace.drops=true",
        "--out",
        "traced",
        "-q",
    ]
    result = run_cli("run", path, *args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    names = {p.name for p in (tmp_path / "traced").iterdir()}
    assert FILES | {"series.parquet", "queues.parquet", "drops.parquet"} == names


@requires_engine
def test_same_seed_same_bytes(tmp_path: Path, write_scenario) -> None:
    path = write_scenario(SMALL_DUMBBELL)
    for out in ("first", "second"):
        result = run_cli(
            "run",
            path,
            "--out",
            out,
            "--quiet",
            "--set",
            "trace.sample_interval=50ms",
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stderr
    for name in ("flows", "links", "series", "queues"):
        first = (tmp_path / "first" / f"{name}.parquet").read_bytes()
        assert first == (tmp_path / "second" / f"{name}.parquet").read_bytes(), name


@requires_engine
def test_set_overrides_reach_the_run(tmp_path: Path, write_scenario) -> None:
    path = write_scenario(SMALL_DUMBBELL)
    overrides = [
        "--set",
        "flows.0.cc=reno",
        "--set",
        "seed=11",
        "--set",
        "topology.loss=0.01",
        "--set",
        "name=changed",
    ]
    result = run_cli("run", path, *overrides, "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "results" / "changed"
    written = tomllib.loads((out / "scenario.toml").read_text())
    assert written["seed"] == 11 and written["topology"]["loss"] == 0.01
    assert written["flows"][0]["cc"] == "reno"

    import pyarrow.parquet as pq

    flows = pq.read_table(out / "flows.parquet").to_pydict()
    assert flows["cc"] == ["reno", "reno", "reno"]
    links = pq.read_table(out / "links.parquet").to_pydict()
    assert sum(links["drops"]) > 0


@requires_engine
@pytest.mark.parametrize("example", ["dumbbell", "parking_lot", "explicit"])
def test_examples_run(example: str, tmp_path: Path) -> None:
    result = run_cli("run", EXAMPLES / f"{example}.toml", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert FILES <= {p.name for p in (tmp_path / "results" / example).iterdir()}


def test_engine_crash_exits_1_with_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    write_scenario,
    fake_registry,
) -> None:
    import ccsim.runner
    from ccsim.cli import main

    def crash(scenario, *, progress: bool = False):
        raise ccsim.runner.EngineError(
            f"{scenario.name}: the engine failed while running: boom\nat line 2"
        )

    monkeypatch.setattr(ccsim.runner, "run", crash)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as caught:
        main(["run", str(write_scenario(SMALL_DUMBBELL))])
    assert caught.value.code == 1
    err = capsys.readouterr().err
    assert err == "error: small: the engine failed while running: boom at line 2\n"
    assert not (tmp_path / "results").exists()


# ---- hostile input (each of these once hung, aborted or printed a traceback) ---------------------

GENERATOR = """
duration = "2s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
[[generators]]
cc = "reno"
size = "100KB"
rtt_choices = ["40ms"]
"""


@pytest.mark.parametrize(
    ("sets", "prefix", "fragment"),
    [
        (["stack.max_rto=0s"], "stack.max_rto: ", 'expected at least "1us"'),
        (["stack.min_rto=0s", "stack.initial_rto=0s"], "stack.min_rto: ", 'at least "1us"'),
        (["stack.max_rto=100ms"], "stack.max_rto: ", "expected max_rto >= min_rto"),
        (["flows.0.count=1000000"], "flows[0].count: ", "limits.flows"),
        (["topology.buffer=1e5000pkts"], "topology.buffer: ", "expected at most"),
        (["topology.buffer=1e999999999pkts"], "topology.buffer: ", "expected at most"),
        (["topology.buffer=1e30pkts"], "topology.buffer: ", "expected at most"),
        (["topology.buffer=20000000pkts"], "topology.buffer: ", "limits.buffer_pkts"),
        (["duration=18446744073s", "flows.0.start=18446744072s"], "duration: ", "at most"),
        (["trace.sample_interval=1ns"], "trace.sample_interval: ", "limits.samples"),
    ],
)
def test_hostile_overrides_get_exit_2_naming_the_key(
    sets: list[str], prefix: str, fragment: str, tmp_path: Path
) -> None:
    for command in ("validate", "run"):
        args = [command, EXAMPLES / "dumbbell.toml", "--set", "duration=2s"]
        for item in sets:
            args += ["--set", item]
        result = run_cli(*args, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith(f"error: {prefix}"), result.stderr
        assert fragment in result.stderr and result.stderr.count("\n") == 1
        assert os.listdir(tmp_path) == []  # nothing written


@pytest.mark.parametrize(
    ("generator", "prefix"),
    [
        ('kind = "closed_loop"\nslots = 4294967295', "generators[0].slots: "),
        ('kind = "open_loop"\nrate = 1e300', "generators[0].rate: "),
        ('kind = "open_loop"\nrate = 1e6', "generators[0].rate: "),
    ],
)
def test_generators_that_would_exhaust_memory(generator: str, prefix: str, tmp_path: Path) -> None:
    text = GENERATOR.replace("[[generators]]", f"[[generators]]\n{generator}")
    path = tmp_path / "gen.toml"
    path.write_text(text)
    result = run_cli("validate", path, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith(f"error: {prefix}"), result.stderr
    # A scenario that means it raises the limit; then it passes (the run would be its choice).
    if "rate = 1e6" in generator:
        path.write_text(text + "\n[limits]\ntransfers = 3000000\n")
        result = run_cli("validate", path, cwd=tmp_path)
        assert result.returncode == 0, result.stderr


def test_deeply_nested_values(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text('duration = "2s"\nx = ' + "[" * 2000 + "]" * 2000 + "\n")
    result = run_cli("validate", path, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "nested too deeply" in result.stderr
    assert "Traceback" not in result.stderr
    # Shallow enough for the TOML reader, too deep for a scenario.
    path.write_text('duration = "2s"\nx = ' + "[" * 100 + "]" * 100 + "\n")
    result = run_cli("validate", path, cwd=tmp_path)
    assert result.returncode == 2 and "nested more than" in result.stderr, result.stderr
    result = run_cli(
        "validate",
        EXAMPLES / "dumbbell.toml",
        "--set",
        "x=" + "[" * 3000 + "]" * 3000,
        cwd=tmp_path,
    )
    assert result.returncode == 2 and "nested too deeply" in result.stderr, result.stderr


@requires_engine
def test_a_tiny_rto_with_drops_traced_still_ends(tmp_path: Path) -> None:
    result = run_cli(
        "run",
        EXAMPLES / "dumbbell.toml",
        "--set",
        "duration=1s",
        "--set",
        "stack.min_rto=1us",
        "--set",
        "stack.max_rto=1ms",
        "--set",
        "trace.drops=true",
        "-q",
        "--out",
        tmp_path / "o",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "o" / "summary.json").is_file()


def test_a_ctrl_c_while_the_cli_loads_is_one_line(tmp_path: Path) -> None:
    # A stand-in for typer that is interrupted while it loads, as a Ctrl-C on a cold start is.
    (tmp_path / "typer").mkdir()
    (tmp_path / "typer" / "__init__.py").write_text("raise KeyboardInterrupt\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(PACKAGE_PARENT)]))
    result = subprocess.run(
        [sys.executable, "-m", "ccsim", "--help"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 130
    assert result.stderr == "error: interrupted\n"
