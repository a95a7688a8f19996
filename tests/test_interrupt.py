"""A sweep killed at any moment (SIGINT or SIGKILL) and started again finishes with every run
present exactly once, none half-written, and a catalogue that agrees with the files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import ccsim
import pytest
from ccsim.results import Results
from ccsim.store import Store
from conftest import PACKAGE_PARENT, requires_engine

pytestmark = [requires_engine, pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]

# 24 runs of a few tenths of a second each: long enough to interrupt in the middle.
SLOW_BASE = """
name = "slow"
duration = "20s"

[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "5ms"
buffer = "1bdp"

[[flows]]
cc = "reno"
count = 10
rtt = "40ms"
start_jitter = "200ms"

[trace]
sample_interval = "20ms"
drops = true
"""

SWEEP = """
replicates = 6
[axes]
"topology.loss" = [0.0, 0.001]
[compare]
algorithms = ["reno", "newreno"]
"""
TOTAL = 24


def start_sweep(path: Path, out: Path) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_PARENT), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ccsim",
            "sweep",
            str(path),
            "--out",
            str(out),
            "--workers",
            "2",
            "-q",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A job started in the background by a non-interactive shell (as CI may run the suite)
        # inherits SIGINT ignored, and Python then keeps ignoring it: give the sweep the default
        # disposition, as an interactive Ctrl-C would find it.
        preexec_fn=_default_sigint,
    )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_runs(out: Path, count: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        runs = out / "runs"
        if runs.is_dir() and len(os.listdir(runs)) >= count:
            return
        if process.poll() is not None:
            pytest.fail(f"the sweep ended before it could be interrupted: {process.stderr.read()}")
        time.sleep(0.02)
    pytest.fail("no run finished within a minute")


def check_complete(out: Path) -> None:
    """Every run of the manifest is there exactly once, complete, and catalogued as done."""
    store = Store.open(out)
    manifest = store.manifest()
    expected = {point["run_id"] for point in manifest["points"]}
    assert len(expected) == TOTAL
    present = os.listdir(store.runs_dir)
    assert sorted(present) == sorted(expected)  # no run missing, none twice, nothing else
    assert os.listdir(store.staging_dir) == []  # nothing half-written left behind
    for run_id in present:
        directory = store.run_dir(run_id)
        names = set(os.listdir(directory))
        assert {"scenario.toml", "summary.json", "metrics.json", "flows.parquet",
                "links.parquet", "series.parquet", "drops.parquet"} <= names  # fmt: skip
        results = Results.load(directory)  # every file is readable
        assert len(results.flows) == 10
        assert ccsim.sweeps.run_id(results.scenario) == run_id
        json.loads((directory / "metrics.json").read_text())
    # the catalogue file itself (not rebuilt by this check) agrees with the files
    with store.connect() as connection:
        rows = connection.execute("SELECT run_id, status FROM runs").fetchall()
        flows = connection.execute("SELECT count(*), count(DISTINCT run_id) FROM flows").fetchone()
    assert sorted(run for run, _ in rows) == sorted(expected)
    assert {status for _, status in rows} == {"done"}
    assert flows == (TOTAL * 10, TOTAL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_interrupted_sweep_resumes(sig: signal.Signals, tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(SLOW_BASE)
    path = tmp_path / "sweep.toml"
    path.write_text(f'scenario = "base.toml"\n{SWEEP}')
    out = tmp_path / "out"

    process = start_sweep(path, out)
    try:
        wait_for_runs(out, 2, process)
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    done_before = len(os.listdir(out / "runs"))
    assert done_before < TOTAL, f"the sweep finished despite the signal: {stderr}"
    if sig == signal.SIGINT:
        assert process.returncode == 130
        assert stderr.startswith("error: interrupted; finished runs are kept in")
        # Interrupted cleanly: the catalogue already agrees with what was finished.
        with Store.open(out).connect() as connection:
            done = connection.execute("SELECT count(*) FROM runs WHERE status = 'done'").fetchone()
        assert done[0] == done_before
    else:
        assert process.returncode == -signal.SIGKILL

    result = ccsim.sweep(path, out, workers=2)
    assert result.ok
    assert result.skipped >= done_before and result.skipped + result.completed == TOTAL
    check_complete(out)


def test_ctrl_c_stops_a_long_run_at_once(tmp_path: Path) -> None:
    """`ccsim run` on a run of many minutes: SIGINT ends it at once, says so, writes nothing."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_PARENT), env.get("PYTHONPATH")]))
    (tmp_path / "long.toml").write_text(SLOW_BASE.replace('duration = "20s"', 'duration = "3000s"'))
    process = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "run", str(tmp_path / "long.toml"), "--out",
         str(tmp_path / "out"), "-q"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint,
    )  # fmt: skip
    try:
        time.sleep(3)  # well into the run (one percent of it takes longer than this)
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert stderr.startswith("error: interrupted") and stderr.count("\n") == 1, stderr
    # Stopped, not run on for minutes: the bound leaves room for the interpreter's exit on a
    # machine whose every core is busy (the suite runs its files in parallel: 1.08 s was seen).
    assert took < 3.0, took
    assert sorted(os.listdir(tmp_path)) == ["long.toml"]  # nothing half-written


def test_a_sweep_removes_catalogue_temporaries_of_dead_writers(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(SLOW_BASE.replace('duration = "20s"', 'duration = "1s"'))
    path = tmp_path / "sweep.toml"
    path.write_text('scenario = "base.toml"\nreplicates = 1\n')
    out = tmp_path / "out"
    ccsim.sweep(path, out, workers=1)
    # What a sweep killed while rebuilding its catalogue leaves: an old-style name, one of a dead
    # process (pid far above any real one), and one of a live writer (this process), to be kept.
    dead = [
        out / ".catalog.duckdb.0123456789abcdef0123456789abcdef.tmp",
        out / ".catalog.duckdb.999999999.0123456789abcdef0123456789abcdef.tmp",
        out / ".catalog.duckdb.999999999.0123456789abcdef0123456789abcdef.tmp.wal",
        out / ".sweep.json.999999999.0123456789abcdef0123456789abcdef.tmp",
    ]
    live = out / f".catalog.duckdb.{os.getpid()}.0123456789abcdef0123456789abcdef.tmp"
    for leftover in [*dead, live]:
        leftover.write_bytes(b"half a catalogue")
    ccsim.sweep(path, out, workers=1)
    assert [p for p in dead if p.exists()] == []
    assert live.exists()
