"""Running sweeps: local pool and Dask give the same store, re-runs skip, failures are reported,
and the DuckDB catalogue answers SQL over every run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import ccsim
import pandas as pd
import pytest
from ccsim.errors import ScenarioError
from ccsim.store import Store
from conftest import UNCONNECTED_EXPLICIT, requires_engine, run_cli

pytestmark = requires_engine

# Only reno and newreno exist in the engine today, so the third "algorithm" is Reno with a
# gentler decrease (beta = 0.7): a parameter variant, which is a run like any other.
THREE_BY_TWO_BY_TWO = """
name = "grid"
replicates = 2
[axes]
"topology.bottleneck_rate" = ["10Mbps", "20Mbps"]
[compare]
algorithms = ["reno", "newreno", { name = "reno-b0.7", cc = "reno", params = { beta = 0.7 } }]
"""


def store_files(root: Path) -> dict[str, bytes]:
    """Every Parquet file of a store's runs, by path relative to runs/."""
    return {
        str(path.relative_to(root / "runs")): path.read_bytes()
        for path in sorted((root / "runs").glob("*/*.parquet"))
    }


def comparable_runs(result: Any) -> pd.DataFrame:
    # wall_s is the only thing that may differ between two executions of the same runs.
    return result.runs.drop(columns=["wall_s"])


@pytest.fixture(scope="module")
def local_grid(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The grid run on a local pool of two processes (shared by the tests of this module)."""
    directory = tmp_path_factory.mktemp("local")
    from conftest import SWEEP_BASE

    (directory / "base.toml").write_text(SWEEP_BASE)
    (directory / "grid.toml").write_text(f'scenario = "base.toml"\n{THREE_BY_TWO_BY_TWO}')
    return ccsim.sweep(directory / "grid.toml", directory / "out", workers=2)


def test_local_sweep_runs_every_point(local_grid: Any) -> None:
    result = local_grid
    assert result.ok and result.completed == 12 and result.skipped == 0
    runs = result.runs
    assert len(runs) == 12 and (runs["status"] == "done").all()
    assert sorted(runs.columns[:7]) == sorted(
        ["point", "run_id", "reference_run", "bottleneck_rate", "algorithm", "mixture", "seed"]
    )
    assert set(runs["algorithm"]) == {"reno", "newreno", "reno-b0.7"}
    assert runs["bottleneck_rate_bps"].tolist() == [10e6] * 6 + [20e6] * 6  # numeric twin
    assert set(os.listdir(result.store.runs_dir)) == set(runs["run_id"])
    # every reference run is the all-Reno run of the same rate and seed
    reno = runs[runs["algorithm"] == "reno"].set_index(["bottleneck_rate", "seed"])["run_id"]
    for row in runs.itertuples():
        assert row.reference_run == reno[(row.bottleneck_rate, row.seed)]


def test_dask_cluster_gives_identical_tables(local_grid: Any, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    grid = local_grid.store.root.parent / "grid.toml"
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        result = ccsim.sweep(grid, tmp_path / "dask", scheduler=cluster.scheduler_address)
        # the command line's --scheduler takes the same path
        from ccsim.cli import main

        with pytest.raises(SystemExit) as status:
            main(["sweep", str(grid), "--out", str(tmp_path / "cli"), "--quiet",
                  "--scheduler", cluster.scheduler_address])  # fmt: skip
        assert status.value.code == 0
    assert result.ok and result.completed == 12
    assert store_files(result.store.root) == store_files(local_grid.store.root)
    assert store_files(tmp_path / "cli") == store_files(local_grid.store.root)
    pd.testing.assert_frame_equal(comparable_runs(result), comparable_runs(local_grid))
    sql = "SELECT algorithm, seed, flow, goodput_bps FROM flows ORDER BY ALL"
    pd.testing.assert_frame_equal(result.query(sql), local_grid.query(sql))


def test_sql_over_the_catalogue(local_grid: Any) -> None:
    store = local_grid.store
    by_cc = store.query("SELECT cc, avg(goodput_bps) AS mean FROM flows GROUP BY cc ORDER BY cc")
    # the same numbers straight from the Parquet files
    frames = [pd.read_parquet(path) for path in sorted(store.runs_dir.glob("*/flows.parquet"))]
    expected = pd.concat(frames).groupby("cc")["goodput_bps"].mean()
    assert by_cc["cc"].tolist() == ["newreno", "reno"]
    assert by_cc["mean"].tolist() == pytest.approx(expected.loc[["newreno", "reno"]].tolist())
    # parameters are columns of every view
    counts = store.query(
        "SELECT algorithm, bottleneck_rate, count(*) AS n FROM flows GROUP BY ALL ORDER BY ALL"
    )
    assert len(counts) == 6 and (counts["n"] == 2 * 4).all()  # 2 seeds x 4 flows
    for table in ("links", "series", "queues", "drops"):
        rows = store.query(f"SELECT count(DISTINCT run_id) AS runs FROM {table}")
        assert rows["runs"][0] == 12, table
    # the catalogue's summary numbers agree with the flows of each run
    check = store.query(
        "SELECT r.run_id, any_value(r.goodput_bps) AS total, sum(f.goodput_bps) AS summed "
        "FROM runs r JOIN flows f USING (point) GROUP BY r.run_id"
    )
    assert check["total"].tolist() == pytest.approx(check["summed"].tolist())


def test_catalogue_works_from_any_directory(local_grid: Any, tmp_path: Path) -> None:
    import duckdb

    copy = tmp_path / "moved"
    import shutil

    shutil.copytree(local_grid.store.root, copy)
    moved = Store.open(copy).query("SELECT count(*) AS n FROM flows")
    assert moved["n"][0] == 12 * 4
    # the duckdb shell, started inside the directory, sees the same views
    cwd = os.getcwd()
    os.chdir(copy)
    try:
        with duckdb.connect("catalog.duckdb", read_only=True) as connection:
            assert connection.execute("SELECT count(*) FROM flows").fetchone()[0] == 48
    finally:
        os.chdir(cwd)


def test_rerun_skips_finished_runs(local_grid: Any) -> None:
    root = local_grid.store.root
    before = {p: p.stat().st_mtime_ns for p in root.glob("runs/*/flows.parquet")}
    again = ccsim.sweep(root.parent / "grid.toml", root, workers=2)
    assert again.completed == 0 and again.skipped == 12 and again.ok
    assert {p: p.stat().st_mtime_ns for p in root.glob("runs/*/flows.parquet")} == before


def test_catalogue_is_reconciled_with_the_files(local_grid: Any, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(local_grid.store.root, root)
    store = Store.open(root)
    victim = store.query("SELECT run_id FROM runs WHERE point = 3")["run_id"][0]
    shutil.rmtree(store.run_dir(victim))
    # the query notices the missing run before answering
    status = store.query(f"SELECT status FROM runs WHERE run_id = '{victim}'")["status"][0]
    assert status == "pending"
    assert store.query("SELECT count(*) AS n FROM flows")["n"][0] == 11 * 4
    result = ccsim.sweep(local_grid.store.root.parent / "grid.toml", root, workers=1)
    assert result.completed == 1 and result.skipped == 11
    assert (store.run_dir(victim) / "flows.parquet").read_bytes() == (
        local_grid.store.run_dir(victim) / "flows.parquet"
    ).read_bytes()


def test_failed_run_is_reported_and_does_not_stop_the_others(
    tmp_path: Path, write_sweep: Any
) -> None:
    # flows[1] goes to "b" (reachable) or to "c" (on another island: the engine refuses it).
    path = write_sweep('[axes]\n"flows.1.dst" = ["b", "c"]\n', base=UNCONNECTED_EXPLICIT)
    result = ccsim.sweep(path, tmp_path / "out", workers=1)
    assert not result.ok and result.completed == 1
    (failure,) = result.failures
    assert failure.points == ("dst=c seed=1",)
    assert "no route" in failure.error
    runs = result.runs.set_index("dst")
    assert runs.loc["b", "status"] == "done" and runs.loc["c", "status"] == "failed"
    assert "no route" in runs.loc["c", "error"]
    # from the command line: the failure table names the parameters, exit status 1
    cli = run_cli("sweep", path, "--out", "again", cwd=tmp_path)
    assert cli.returncode == 1, cli.stderr
    assert "Failed runs" in cli.stderr and "dst=c" in cli.stderr and "no route" in cli.stderr
    assert "1 run now, 0 already done, 1 failed" in " ".join(cli.stdout.split())


def test_store_refuses_other_directories(tmp_path: Path, write_sweep: Any) -> None:
    path = write_sweep("")
    (tmp_path / "thesis").mkdir()
    (tmp_path / "thesis" / "chapter1.tex").write_text("...")
    with pytest.raises(ScenarioError, match="not a ccsim sweep directory"):
        ccsim.sweep(path, tmp_path / "thesis")
    assert os.listdir(tmp_path / "thesis") == ["chapter1.tex"]


def test_one_sweep_at_a_time(tmp_path: Path, write_sweep: Any) -> None:
    path = write_sweep("")
    store = Store.create(tmp_path / "out")
    with store.lock(), pytest.raises(ScenarioError, match="another sweep is running"):
        ccsim.sweep(path, tmp_path / "out", workers=1)


def test_cli_sweep_query_and_dry_run(tmp_path: Path, write_sweep: Any) -> None:
    path = write_sweep('replicates = 2\n[compare]\nalgorithms = ["newreno"]\n')
    plan = run_cli("sweep", path, "--dry-run", cwd=tmp_path)
    assert plan.returncode == 0, plan.stderr
    assert "4 points, 4 distinct runs" in " ".join(plan.stdout.split())
    assert not (tmp_path / "results").exists()
    done = run_cli("sweep", path, "--workers", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Sweep sweep: mean over replicates" in done.stdout and "goodput" in done.stdout
    out = tmp_path / "results" / "sweep"
    query = run_cli(
        "query", out, "SELECT cc, count(*) AS n FROM flows GROUP BY cc ORDER BY cc", cwd=tmp_path
    )
    assert query.returncode == 0, query.stderr
    assert "newreno" in query.stdout and "2 rows" in query.stdout
    csv = run_cli(
        "query",
        out,
        "SELECT cc, count(*) AS n FROM flows GROUP BY cc ORDER BY cc",
        "-f",
        "csv",
        cwd=tmp_path,
    )
    assert csv.stdout.splitlines() == ["cc,n", "newreno,8", "reno,8"]
    bad = run_cli("query", out, "SELECT nope FROM flows", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("error: query failed:")
    assert len(bad.stderr.splitlines()) == 1
    # one run's directory can be queried as well
    run_dir = next((out / "runs").iterdir())
    one = run_cli("query", run_dir, "SELECT count(*) AS n FROM flows", "-f", "csv", cwd=tmp_path)
    assert one.stdout.splitlines() == ["n", "4"]


def test_bad_sweep_file_is_bad_input(tmp_path: Path, write_sweep: Any) -> None:
    path = write_sweep('[axes]\n"topology.loss" = [0.0, 1.5]\n')
    result = run_cli("sweep", path, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: sweep point loss=1.5 seed=1: topology.loss")
    assert not (tmp_path / "results").exists()


def test_time_to_cwnd_over_a_sweeps_catalogue(local_grid: Any) -> None:
    """metrics.time_to_cwnd on the catalogue's views: one row per run and flow, the same as on
    each run's own tables."""
    from ccsim import metrics

    store = local_grid.store
    series = store.query("SELECT run_id, flow, t_s, cwnd_pkts FROM series")
    flows = store.query("SELECT run_id, flow, start_s FROM flows")
    drops = store.query("SELECT run_id, flow, t_s FROM drops")
    everything = metrics.time_to_cwnd(series, 10, flows=flows, drops=drops)
    assert everything.index.names == ["run_id", "flow"]
    assert len(everything) == len(flows)
    run_id = sorted(set(flows["run_id"]))[0]
    directory = store.run_dir(run_id)
    alone = metrics.time_to_cwnd(
        pd.read_parquet(directory / "series.parquet"),
        10,
        flows=pd.read_parquet(directory / "flows.parquet"),
        drops=pd.read_parquet(directory / "drops.parquet"),
    )
    pd.testing.assert_frame_equal(everything.loc[run_id], alone, check_names=False)


def _two_sweeps(tmp_path: Path) -> list[tuple[Any, Path]]:
    """Two small sweeps with different flow counts (4 and 8 Reno flows), listed cheaper first."""
    from ccsim.sweeps import Sweep
    from conftest import SWEEP_BASE

    base = ccsim.Scenario.from_toml(SWEEP_BASE)
    light = Sweep.from_dict(
        {"name": "light", "scenario": base.data(), "compare": {"algorithms": ["reno", "newreno"]}}
    )
    heavy_data = base.data()
    heavy_data["flows"][0]["count"] = 8
    heavy = Sweep.from_dict(
        {"name": "heavy", "scenario": heavy_data, "compare": {"algorithms": ["reno", "newreno"]}}
    )
    return [(light, tmp_path / "light"), (heavy, tmp_path / "heavy")]


def test_sweeps_sharing_one_pool_store_what_each_would_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sweeps through one executor: each store holds exactly its own runs, byte-identical to
    the sweep run alone, and the runs were queued most expensive first (the heavy sweep's,
    listed second)."""
    from ccsim import executors
    from ccsim.sweep_run import run_sweep, run_sweeps

    order: list[str] = []
    serial = executors.SerialExecutor.run

    def recording(self: Any, tasks: Any, on_done: Any) -> None:
        order.extend(Path(task.root).name for task in tasks)
        serial(self, tasks, on_done)

    monkeypatch.setattr(executors.SerialExecutor, "run", recording)
    jobs = _two_sweeps(tmp_path / "together")
    together = run_sweeps(jobs, workers=1)
    assert order == ["heavy", "heavy", "light", "light"]
    assert [r.completed for r in together] == [2, 2] and all(r.ok for r in together)
    for (sweep, target), result in zip(jobs, together, strict=True):
        alone = run_sweep(sweep, tmp_path / "alone" / target.name, workers=1)
        assert store_files(alone.store.root) == store_files(target)
        pd.testing.assert_frame_equal(comparable_runs(alone), comparable_runs(result))
    flows = {
        r.store.root.name: r.query("SELECT count(*) AS n FROM flows")["n"][0] for r in together
    }
    assert flows == {"light": 2 * 4, "heavy": 2 * 8}


def test_sweeps_sharing_one_pool_need_their_own_directories(tmp_path: Path) -> None:
    from ccsim.sweep_run import run_sweeps

    (light, _), (heavy, _) = _two_sweeps(tmp_path)
    with pytest.raises(ValueError, match="same directory"):
        run_sweeps([(light, tmp_path / "x"), (heavy, tmp_path / "x")], workers=1)
    assert not (tmp_path / "x").exists()


# ---- Ctrl-C ----------------------------------------------------------------------------------

# Three runs on three workers: a short one, whose worker then waits idle for work, and two long
# ones (half a minute each), in progress when Ctrl-C comes.
_SHORT_AND_LONG_RUNS = """
[set]
"flows.0.count" = 10
"trace.sample_interval" = "10s"
"trace.drops" = false
[axes]
duration = ["1s", "10000s", "10001s"]
"""


def _process_group(pgid: int) -> list[int]:
    """The processes of group ``pgid`` but its leader (Linux's /proc)."""
    members = []
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except (OSError, ValueError):
            continue  # not a process, or one that has just ended
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses
        pgrp = int(stat.rsplit(")", 1)[1].split()[2])
        if pgrp == pgid and int(entry) != pgid:
            members.append(int(entry))
    return members


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux's /proc")
def test_ctrl_c_prints_one_line_and_no_worker_traceback(tmp_path: Path) -> None:
    """A terminal's Ctrl-C sends SIGINT to the whole process group, the pool's workers included,
    and may reach them before the sweep acts: the workers ignore it, and only the sweep reacts (it
    stops them). stderr holds its one line, not a worker's KeyboardInterrupt traceback (as an idle
    worker, or one still starting, would print)."""
    import signal
    import subprocess
    import sys
    import time
    from contextlib import suppress

    from conftest import PACKAGE_PARENT, SWEEP_BASE

    (tmp_path / "base.toml").write_text(SWEEP_BASE)
    (tmp_path / "slow.toml").write_text(f'scenario = "base.toml"\n{_SHORT_AND_LONG_RUNS}')
    out = tmp_path / "out"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_PARENT), env.get("PYTHONPATH")]))

    def as_in_a_terminal() -> None:
        # Its own process group, as a shell gives a foreground job, and SIGINT's default action
        # (a job started in the background by a non-interactive shell inherits it ignored).
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    process = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "sweep", str(tmp_path / "slow.toml"), "--out", str(out),
         "--workers", "3", "-q"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=as_in_a_terminal,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not ((out / "runs").is_dir() and os.listdir(out / "runs")):
            assert process.poll() is None, f"the sweep ended first: {process.communicate()}"
            assert time.monotonic() < deadline, "no run finished within a minute"
            time.sleep(0.02)
        # The short run is done: one worker waits for work, two are in their runs.
        workers = _process_group(process.pid)
        assert len(workers) >= 3, workers  # and multiprocessing's resource tracker
        for pid in workers:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGINT)
        time.sleep(0.5)  # long enough for a worker that took it to print its traceback
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    assert stderr.count("interrupted") == 1, stderr
    assert stderr.startswith("error: interrupted; finished runs are kept in"), stderr
    assert len(stderr.splitlines()) == 1, stderr
    assert len(os.listdir(out / "runs")) == 1  # the long runs were stopped, not finished
    # The workers did not outlive the sweep: nothing is left of its process group.
    deadline = time.monotonic() + 10
    while _process_group(process.pid):
        assert time.monotonic() < deadline, "a worker of the interrupted sweep is still running"
        time.sleep(0.05)
