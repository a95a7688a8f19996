"""Worker pools and hooks that misbehave: a run that kills its worker is recorded as crashed while
the others finish; two sweeps sharing a Dask scheduler each get their own runs; a hook's
SystemExit or KeyboardInterrupt is the algorithm's error, not the sweep's end; Ctrl-C stops a
slow constructor at once and prints one line, however the workers were caught."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccsim
import pytest
from ccsim.store import Store
from conftest import PACKAGE_PARENT, ROOT, SMALL_DUMBBELL, SWEEP_BASE, requires_engine, run_cli

pytestmark = [requires_engine, pytest.mark.usefixtures("python_cc_path")]
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")


def subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_PARENT), str(ROOT)])
    return env


MISBEHAVING = """
import os
import signal
import sys
import time
from pathlib import Path

from examples.python_cc.reno import Reno


class KilledAt(Reno):
    \"\"\"Reno, except that the point whose rank is `doomed` kills its own process (as the
    kernel's out-of-memory killer would) after a few ACKs.\"\"\"

    def __init__(self, rank: int = 0, doomed: int = 5) -> None:
        super().__init__()
        self.rank = rank
        self.doomed = doomed
        self.acks = 0

    def on_ack(self, ack):
        self.acks += 1
        if self.rank == self.doomed and self.acks == 20:
            os.kill(os.getpid(), signal.SIGKILL)
        super().on_ack(ack)


class Exits(Reno):
    def on_ack(self, ack):
        sys.exit(3)


class Interrupts(Reno):
    def on_congestion(self, event):
        raise KeyboardInterrupt


class ExitsWhileBuilt(Reno):
    def __init__(self) -> None:
        raise SystemExit("no thanks")


class SlowToBuild(Reno):
    \"\"\"Half a second per flow; counts its constructions and marks the first in a file.\"\"\"

    built = 0

    def __init__(self) -> None:
        super().__init__()
        type(self).built += 1
        marker = os.environ.get("CCSIM_TEST_MARKER")
        if marker:  # written whole (renamed into place): Ctrl-C may come at any moment
            Path(f"{marker}.tmp").write_text(str(type(self).built))
            os.replace(f"{marker}.tmp", marker)
        time.sleep(0.5)


class InterruptedWhileBuilt(Reno):
    \"\"\"Ctrl-C lands in the first constructor.\"\"\"

    built = 0

    def __init__(self) -> None:
        super().__init__()
        type(self).built += 1
        raise KeyboardInterrupt
"""


# ---- a worker that dies ------------------------------------------------------------------------


@posix_only
def test_a_run_that_kills_its_worker_is_recorded_as_crashed_and_the_others_finish(
    module: Callable[[str], str], write_sweep: Callable[..., Path], tmp_path: Path
) -> None:
    name = module(MISBEHAVING)
    base = SWEEP_BASE.replace('cc = "reno"', f'cc = "{name}:KilledAt"')
    path = write_sweep('[axes]\n"flows.0.params.rank" = [1, 2, 3, 4, 5, 6, 7, 8]\n', base=base)
    result = ccsim.sweep(path, tmp_path / "out", workers=2)

    assert result.completed == 7, result.failures
    (failure,) = result.failures
    assert failure.points == ("rank=5 seed=1",)
    assert "SIGKILL" in failure.error and "BrokenProcessPool" not in failure.error
    store = Store.open(tmp_path / "out")
    runs = result.runs.set_index("rank")
    assert (runs.drop(index=5)["status"] == "done").all() and runs.loc[5, "status"] == "failed"
    assert sorted(os.listdir(store.runs_dir)) == sorted(runs.drop(index=5)["run_id"])
    recorded = store.failures()[failure.run_id]
    assert recorded["kind"] == "WorkerCrashed" and "SIGKILL" in recorded["error"]
    assert os.listdir(store.staging_dir) == []

    # Started again, the sweep leaves the seven alone; the doomed run crashes again.
    written = {p: p.stat().st_mtime_ns for p in store.runs_dir.glob("*/flows.parquet")}
    again = ccsim.sweep(path, tmp_path / "out", workers=2)
    assert again.skipped == 7 and again.completed == 0 and len(again.failures) == 1
    assert {p: p.stat().st_mtime_ns for p in store.runs_dir.glob("*/flows.parquet")} == written


# ---- two sweeps on one Dask scheduler ----------------------------------------------------------


def _four_run_sweep() -> ccsim.Sweep:
    from ccsim.sweeps import Sweep

    base = ccsim.Scenario.from_toml(SWEEP_BASE)
    return Sweep.from_dict(
        {
            "name": "same",
            "scenario": base.data(),
            "replicates": 2,
            "compare": {"algorithms": ["reno", "newreno"]},
        }
    )


def _holds_every_run(result: Any) -> None:
    expected = {point.run_id for point in result.points}
    assert result.ok and result.completed == len(expected), result.failures
    assert set(os.listdir(result.store.runs_dir)) == expected
    assert (result.runs["status"] == "done").all()


def test_two_sweeps_of_one_file_on_one_dask_scheduler_each_get_their_runs(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from ccsim.sweep_run import run_sweep, run_sweeps

    sweep = _four_run_sweep()
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        # Through one executor ...
        together = run_sweeps([(sweep, tmp_path / "a"), (sweep, tmp_path / "b")], scheduler=address)
        # ... and as two sweeps started at the same time, each with its own client.
        results: dict[str, Any] = {}
        errors: list[BaseException] = []

        def one(name: str) -> None:
            try:
                results[name] = run_sweep(sweep, tmp_path / name, scheduler=address)
            except BaseException as error:  # reported below, in the test's thread
                errors.append(error)

        threads = [threading.Thread(target=one, args=(name,)) for name in ("c", "d")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert errors == []
    for result in [*together, results["c"], results["d"]]:
        _holds_every_run(result)


def test_a_run_reported_done_but_missing_from_the_store_is_not_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a worker writing somewhere else (no shared file system) or a stale result from the
    cluster looks like: the outcome says done, the store has nothing."""
    from ccsim import sweep_run
    from ccsim.executors import RunOutcome

    class WritesNothing:
        def run(self, tasks: Any, on_done: Any) -> None:
            for task in tasks:
                on_done(task, RunOutcome(task.run_id, True, {"goodput_bps": 1.0}))

    monkeypatch.setattr(sweep_run, "make_executor", lambda *args, **kwargs: WritesNothing())
    result = sweep_run.run_sweep(_four_run_sweep(), tmp_path / "out")
    assert result.completed == 0 and len(result.failures) == 4
    assert all("is not in this store" in failure.error for failure in result.failures)
    assert (result.runs["status"] == "failed").all()


# ---- SystemExit and KeyboardInterrupt in hooks -------------------------------------------------


def test_system_exit_in_a_hook_is_the_algorithms_error(module: Callable[[str], str]) -> None:
    name = module(MISBEHAVING)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"flows.0.cc": f"{name}:Exits"}
    )
    try:
        ccsim.run(scenario)
    except ccsim.CongestionControlError as error:
        message = str(error)
        assert message.startswith(f'on_ack of "{name}:Exits" (at ')
        assert message.endswith("s of simulated time) raised SystemExit: 3"), message
        assert isinstance(error.__cause__, SystemExit)
    except SystemExit as error:
        pytest.fail(f"the hook's SystemExit ended the run as it is: {error!r}")
    else:
        pytest.fail("the run went on")

    built = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"flows.0.cc": f"{name}:ExitsWhileBuilt"}
    )
    try:
        ccsim.run(built)
    except ccsim.CongestionControlError as error:
        assert (
            str(error)
            == f'the constructor of "{name}:ExitsWhileBuilt" raised SystemExit: no thanks'
        )
    except SystemExit as error:
        pytest.fail(f"the constructor's SystemExit ended the run as it is: {error!r}")


def test_keyboard_interrupt_in_a_hook_where_no_ctrl_c_can_land_is_the_algorithms_error(
    module: Callable[[str], str],
) -> None:
    """Off the main thread (a Dask worker's thread) Ctrl-C never raises KeyboardInterrupt: one
    raised there came from the hook."""
    name = module(MISBEHAVING)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"flows.0.cc": f"{name}:Interrupts"}
    )
    caught: list[BaseException] = []

    def run() -> None:
        try:
            ccsim.run(scenario)
        except BaseException as error:
            caught.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    (error,) = caught
    assert isinstance(error, ccsim.CongestionControlError), repr(error)
    assert str(error).startswith(f'on_congestion of "{name}:Interrupts" (at ')
    assert str(error).endswith("raised KeyboardInterrupt")


def test_a_workers_hook_exiting_or_interrupting_fails_that_run_only(
    module: Callable[[str], str], write_sweep: Callable[..., Path], tmp_path: Path
) -> None:
    name = module(MISBEHAVING)
    path = write_sweep(f'[axes]\n"flows.0.cc" = ["reno", "{name}:Exits", "{name}:Interrupts"]\n')
    try:
        result = ccsim.sweep(path, tmp_path / "out", workers=2)
    except (SystemExit, KeyboardInterrupt) as error:
        pytest.fail(f"a worker's hook ended the whole sweep: {error!r}")
    assert result.completed == 1 and len(result.failures) == 2
    errors = {failure.points[0].split()[0]: failure.error for failure in result.failures}
    assert errors[f"cc={name}:Exits"].startswith(
        f'CongestionControlError: on_ack of "{name}:Exits" (at '
    )
    assert errors[f"cc={name}:Exits"].endswith("raised SystemExit: 3")
    assert errors[f"cc={name}:Interrupts"].endswith("raised KeyboardInterrupt")
    assert os.listdir(Store.open(tmp_path / "out").staging_dir) == []


def test_the_command_line_reports_a_hooks_exit_as_a_failed_run(
    module: Callable[[str], str],
    write_sweep: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = module(MISBEHAVING)  # found in the current directory; its base class on PYTHONPATH
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    path = write_sweep(f'[axes]\n"flows.0.cc" = ["reno", "{name}:Exits"]\n')
    done = run_cli("sweep", path, "--out", "out", "-j", "2", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "1 run now, 0 already done, 1 failed" in " ".join(done.stdout.split())
    assert "Failed runs" in done.stderr and "SystemExit" in done.stderr
    assert os.listdir(tmp_path / "out" / ".staging") == []


# ---- Ctrl-C ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("ctrl_c_reaches_this_thread")
def test_an_interrupt_in_a_constructor_stops_building_the_other_flows(
    module: Callable[[str], str],
) -> None:
    name = module(MISBEHAVING)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"flows.0.cc": f"{name}:InterruptedWhileBuilt", "flows.0.count": 20}
    )
    with pytest.raises(KeyboardInterrupt):
        ccsim.run(scenario)
    assert sys.modules[name].InterruptedWhileBuilt.built == 1


@posix_only
def test_ctrl_c_while_a_slow_constructor_runs_ends_the_run_at_once(
    module: Callable[[str], str], tmp_path: Path
) -> None:
    name = module(MISBEHAVING)
    (tmp_path / "s.toml").write_text(
        SMALL_DUMBBELL.replace('cc = "newreno"', f'cc = "{name}:SlowToBuild"').replace(
            "count = 2", "count = 30"
        ),
        encoding="utf-8",
    )
    marker = tmp_path / "building"
    env = subprocess_env()
    env["CCSIM_TEST_MARKER"] = str(marker)
    process = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "run", "s.toml", "--out", "out", "-q"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert marker.exists(), process.stderr.read() if process.stderr else ""
        process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, stderr = process.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, stderr
    assert stderr.startswith("error: interrupted") and stderr.count("\n") == 1, stderr
    assert took < 3.0, f"{took:.1f} s to stop; {marker.read_text()} flows built"
    assert int(marker.read_text()) <= 2


def _starting_workers(pid: int) -> list[int]:
    """The process ids of the pool workers (spawned interpreters) whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid and b"--multiprocessing-fork" in command:
            found.append(int(entry))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_ctrl_c_as_the_workers_start_prints_one_line(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the whole process group, workers still importing included:
    they must stay quiet, and the sweep prints its one line."""
    (tmp_path / "base.toml").write_text(
        SWEEP_BASE.replace('duration = "1s"', 'duration = "30s"'), encoding="utf-8"
    )
    (tmp_path / "sweep.toml").write_text(
        'scenario = "base.toml"\nreplicates = 8\n', encoding="utf-8"
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "sweep", "sweep.toml", "--out", "out", "-j", "2", "-q"],
        cwd=tmp_path, env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not _starting_workers(process.pid) and time.monotonic() < deadline:
            assert process.poll() is None, "the sweep ended before a worker started"
            time.sleep(0.002)
        # The workers' share of the Ctrl-C first, while they import (the parent's alone is
        # test_interrupt's), then the whole group's.
        time.sleep(0.1)
        for worker in _starting_workers(process.pid):
            os.kill(worker, signal.SIGINT)
        time.sleep(0.3)
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130, stderr
    assert stderr.startswith("error: interrupted; finished runs are kept in"), stderr
    assert stderr.count("\n") == 1, stderr
