"""A run is done when its files are what was written: a damaged run is found (on resume and by
`ccsim query --verify`) and run again, the catalogue reads only this sweep's intact runs, and a
catalogue that cannot be rebuilt leaves the old one answering queries."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccsim
import pytest
from ccsim import store as store_module
from ccsim.store import RUN_CHECKSUMS, Store
from conftest import SWEEP_BASE, requires_engine, run_cli

pytestmark = requires_engine

# Two runs (Reno and NewReno on the four-flow dumbbell), a fraction of a second each.
TWO_RUNS = '[compare]\nalgorithms = ["reno", "newreno"]\n'
FLOWS_PER_RUN = 4


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding base.toml, sweep.toml and out/, the finished sweep's store; tests
    damage copies of it."""
    directory = tmp_path_factory.mktemp("finished")
    (directory / "base.toml").write_text(SWEEP_BASE)
    (directory / "sweep.toml").write_text(f'scenario = "base.toml"\n{TWO_RUNS}')
    result = ccsim.sweep(directory / "sweep.toml", directory / "out", workers=1)
    assert result.ok and result.completed == 2
    return directory


@pytest.fixture
def copy(finished: Path, tmp_path: Path) -> Path:
    """A copy of the finished sweep (its directory holds sweep.toml and out/)."""
    target = tmp_path / "copy"
    shutil.copytree(finished, target)
    return target


def first_run(out: Path) -> str:
    return sorted(os.listdir(out / "runs"))[0]


def flip_one_bit(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))


def empty_the_directory(directory: Path) -> None:
    shutil.rmtree(directory)
    directory.mkdir()


def truncate(path: Path, size: int) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(size)


DAMAGES: dict[str, Callable[[Path], None]] = {
    "emptied directory": empty_the_directory,
    "flows.parquet deleted": lambda run: (run / "flows.parquet").unlink(),
    "flows.parquet truncated": lambda run: truncate(
        run / "flows.parquet", (run / "flows.parquet").stat().st_size // 2
    ),
    "links.parquet zero-length": lambda run: truncate(run / "links.parquet", 0),
    "one bit flipped in flows.parquet": lambda run: flip_one_bit(run / "flows.parquet"),
    "one bit flipped in series.parquet": lambda run: flip_one_bit(run / "series.parquet"),
    "metrics.json deleted": lambda run: (run / "metrics.json").unlink(),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_run_is_run_again_on_resume(
    damage: str, copy: Path, finished: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = copy / "out"
    victim = first_run(out)
    DAMAGES[damage](out / "runs" / victim)
    check = Store.open(out).check_runs()
    assert set(check.damaged) == {victim} and len(check.done) == 1
    result = ccsim.sweep(copy / "sweep.toml", out, workers=1)
    assert result.ok and result.completed == 1 and result.skipped == 1 and result.damaged == 1
    # and says so, one line naming the run
    said = capfd.readouterr().err
    assert f"run {victim} is damaged" in said and "running it again" in said
    # the run directory is again what the sweep wrote in the first place
    original = finished / "out" / "runs" / victim
    assert sorted(os.listdir(out / "runs" / victim)) == sorted(os.listdir(original))
    for path in original.glob("*.parquet"):
        assert (out / "runs" / victim / path.name).read_bytes() == path.read_bytes()
    assert Store.open(out).check_runs().damaged == {}
    runs = result.query("SELECT status, count(*) AS n FROM runs GROUP BY status")
    assert runs.to_dict("records") == [{"status": "done", "n": 2}]
    flows = result.query("SELECT count(*) AS n FROM flows")["n"][0]
    assert flows == 2 * FLOWS_PER_RUN


def test_damaged_files_are_moved_aside_not_deleted(copy: Path) -> None:
    out = copy / "out"
    victim = first_run(out)
    flip_one_bit(out / "runs" / victim / "flows.parquet")
    flipped = (out / "runs" / victim / "flows.parquet").read_bytes()
    ccsim.sweep(copy / "sweep.toml", out, workers=1)
    (kept,) = (out / "damaged").iterdir()
    assert kept.name.startswith(victim)
    assert (kept / "flows.parquet").read_bytes() == flipped


def test_the_damage_is_named(copy: Path) -> None:
    out = copy / "out"
    victim = first_run(out)
    run = out / "runs" / victim
    truncate(run / "flows.parquet", 10)
    assert "flows.parquet" in Store.open(out).check_runs().damaged[victim]
    assert "10 bytes" in Store.open(out).check_runs().damaged[victim]
    assert not Store.open(out).holds(victim)
    # the catalogue says so too, until the sweep runs it again
    status = Store.open(out).query(f"SELECT status, error FROM runs WHERE run_id = '{victim}'")
    assert status["status"][0] == "damaged" and "flows.parquet" in status["error"][0]
    assert Store.open(out).query("SELECT count(*) AS n FROM flows")["n"][0] == FLOWS_PER_RUN


def test_every_file_of_a_run_is_listed_with_its_size_and_checksum(finished: Path) -> None:
    run = finished / "out" / "runs" / first_run(finished / "out")
    listing = json.loads((run / RUN_CHECKSUMS).read_text())
    files = {p.name for p in run.iterdir() if p.is_file() and p.name != RUN_CHECKSUMS}
    assert set(listing["files"]) == files
    for name, entry in listing["files"].items():
        data = (run / name).read_bytes()
        assert entry == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def test_runs_written_before_checksums_are_done_when_their_files_open(copy: Path) -> None:
    """A run without checksums.json (an earlier ccsim) counts as done when its files are there
    and open; an emptied or truncated one is run again."""
    out = copy / "out"
    intact, broken = sorted(os.listdir(out / "runs"))
    for run_id in (intact, broken):
        (out / "runs" / run_id / RUN_CHECKSUMS).unlink()
    truncate(out / "runs" / broken / "flows.parquet", 100)
    check = Store.open(out).check_runs()
    assert check.done == {intact} and check.legacy == {intact} and set(check.damaged) == {broken}
    result = ccsim.sweep(copy / "sweep.toml", out, workers=1)
    assert result.completed == 1 and result.skipped == 1
    assert (out / "runs" / broken / RUN_CHECKSUMS).is_file()
    assert not (out / "runs" / intact / RUN_CHECKSUMS).exists()  # left as it was


def test_stray_parquet_files_under_runs_break_neither_sweep_nor_queries(copy: Path) -> None:
    out = copy / "out"
    for directory in ("notes", "0123456789abcdef"):  # not a run; a run of no point of this sweep
        (out / "runs" / directory).mkdir()
        for table in ("flows", "links", "series"):
            (out / "runs" / directory / f"{table}.parquet").write_bytes(b"")
    result = ccsim.sweep(copy / "sweep.toml", out, workers=1)
    assert result.ok and result.completed == 0 and result.skipped == 2
    assert result.query("SELECT count(*) AS n FROM flows")["n"][0] == 2 * FLOWS_PER_RUN
    query = run_cli("query", out, "SELECT count(*) AS n FROM series", "-f", "csv", cwd=copy)
    assert query.returncode == 0 and query.stderr == "", query.stderr
    assert int(query.stdout.splitlines()[1]) > 0
    # the stray files are left where they are
    assert (out / "runs" / "notes" / "flows.parquet").read_bytes() == b""


def test_query_verify_finds_a_flipped_bit(copy: Path) -> None:
    out = copy / "out"
    intact = run_cli("query", "--verify", out, cwd=copy)
    assert intact.returncode == 0, intact.stderr
    assert "2 runs checked: 2 intact" in intact.stdout
    victim = first_run(out)
    flip_one_bit(out / "runs" / victim / "series.parquet")
    damaged = run_cli("query", "--verify", out, cwd=copy)
    assert damaged.returncode == 1, damaged.stderr
    lines = damaged.stdout.splitlines()
    (line,) = [line for line in lines if victim in line]
    assert "series.parquet" in line and "SHA-256" in line
    assert "1 intact, 1 damaged" in lines[-1]
    # nothing was changed by looking
    assert not (out / "damaged").exists() and (out / "runs" / victim).is_dir()


def test_query_verify_needs_a_sweep_directory(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run_cli("query", "--verify", tmp_path / "empty", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
    assert "sweep directory" in result.stderr


# ---- the catalogue -----------------------------------------------------------------------------


def wal_only_writer(path: Path, runs: Any, *rest: Any, **named: Any) -> None:
    """A catalogue whose checkpoint fails without a word (as on a full disk): the tables reach
    only the write-ahead log, and the database file itself stays empty."""
    import duckdb

    connection = duckdb.connect(str(path))
    connection.execute("PRAGMA disable_checkpoint_on_shutdown")
    connection.execute("SET wal_autocheckpoint = '10GB'")
    connection.register("frame", runs)
    connection.execute("CREATE TABLE runs AS SELECT * FROM frame")
    for table in ("flows", "links", "series", "queues", "drops"):
        connection.execute(f"CREATE VIEW {table} AS SELECT 1 AS x")
    connection.close()


def full_disk_writer(path: Path, *rest: Any, **named: Any) -> None:
    import duckdb

    duckdb.connect(str(path)).close()
    raise duckdb.IOException(f'Could not write file "{path}": No space left on device')


def empty_database_writer(path: Path, *rest: Any, **named: Any) -> None:
    import duckdb

    duckdb.connect(str(path)).close()


WRITERS = {
    "checkpoint fails silently": wal_only_writer,
    "disk full": full_disk_writer,
    "empty database": empty_database_writer,
}


@pytest.mark.parametrize("failure", list(WRITERS))
def test_a_failed_rebuild_keeps_the_old_catalogue(
    failure: str, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = copy / "out"
    store = Store.open(out)
    before = store.catalog_path.read_bytes()
    monkeypatch.setattr(store_module, "write_catalog", WRITERS[failure])
    with pytest.raises(OSError) as error:
        store.rebuild_catalog()
    message = str(error.value.strerror)
    assert error.value.filename == str(store.catalog_path)
    assert "\n" not in message and "kept" in message, message
    assert store.catalog_path.read_bytes() == before
    assert not [name for name in os.listdir(out) if name.endswith((".tmp", ".wal"))]
    # a query that finds the catalogue out of date cannot rebuild it, and answers from the old one
    monkeypatch.setattr(Store, "catalog_is_current", lambda self: False)
    assert store.query("SELECT count(*) AS n FROM flows")["n"][0] == 2 * FLOWS_PER_RUN


def test_a_sweep_whose_catalogue_cannot_be_rebuilt_fails_in_one_line(
    copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ccsim.cli import main

    before = (copy / "out" / "catalog.duckdb").read_bytes()
    # One run gone: the sweep runs it again, and so must rebuild the catalogue (a store with
    # nothing to run whose catalogue agrees with its files is left alone).
    shutil.rmtree(copy / "out" / "runs" / first_run(copy / "out"))
    monkeypatch.setattr(store_module, "write_catalog", full_disk_writer)
    with pytest.raises(SystemExit) as status:
        main(["sweep", str(copy / "sweep.toml"), "--out", str(copy / "out"), "-q"])
    assert status.value.code == 1
    stderr = capsys.readouterr().err
    assert stderr.startswith("error: ") and len(stderr.splitlines()) == 1, stderr
    assert "catalog.duckdb" in stderr and "No space left on device" in stderr
    assert (copy / "out" / "catalog.duckdb").read_bytes() == before


def test_a_rerun_with_nothing_to_do_leaves_the_catalogue_alone(copy: Path) -> None:
    out = copy / "out"
    catalogue = out / "catalog.duckdb"
    before = (catalogue.read_bytes(), catalogue.stat().st_mtime_ns)
    result = ccsim.sweep(copy / "sweep.toml", out, workers=1)
    assert result.skipped == 2
    assert (catalogue.read_bytes(), catalogue.stat().st_mtime_ns) == before
    # A stale catalogue (a run's status no longer matches its files) is rebuilt all the same.
    shutil.rmtree(out / "runs" / first_run(out))
    ccsim.sweep(copy / "sweep.toml", out, workers=1)
    assert Store.open(out).catalog_is_current()
