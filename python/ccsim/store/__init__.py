"""The result store of a sweep: one directory per run, a manifest, and a DuckDB catalogue.

Layout of a sweep directory::

    sweep.json          the manifest: the sweep (base scenario inline) and every point with its
                        parameters, run id and reference run
    catalog.duckdb      table ``runs`` (one row per point: parameters, status, error, summary
                        numbers) and views ``flows``, ``links``, ``series``, ``queues``, ``drops``
                        over every finished run's Parquet files, with the run's parameters joined in
    runs/<run id>/      a results directory (as ``ccsim run`` writes) plus metrics.json, the
                        run's summary numbers, and checksums.json, every other file's size and
                        SHA-256 (written last); the run id is a hash of the resolved scenario
    errors/<run id>.json   why a run failed (removed when it succeeds on a later attempt)
    damaged/<run id>.<time>.<hex>/   a damaged run directory, moved aside when the run was
                        written again (never deleted by ccsim)
    .staging/           runs being written; emptied when a sweep starts

A run directory appears in one rename once every file in it is written, so ``runs/`` never holds
half a run, whatever kills the writer. A run is *done* when its directory holds every file its
checksums.json lists, with the sizes listed (checked whenever the catalogue is checked or
rebuilt) and the checksums listed (checked when a sweep resumes, :meth:`Store.check_runs`, and by
``ccsim query --verify``): a file lost, truncated or changed after the run, a power cut that
kept the rename but not the data, make the run not done, and the next sweep runs it again. Runs
written before checksums were recorded are done when their files are there and open.

The catalogue is derived data: it is rebuilt from the manifest and the run directories when a
sweep starts, while it runs and when it ends, and when a query finds it out of date; into a new
file that is checked (fully written, its tables and views there, every run counted) before it is
renamed over the old one, so a rebuild that fails (a full disk) leaves the old catalogue.

The views read the Parquet files by paths relative to the sweep directory, so the directory can
be moved; :meth:`Store.connect` points DuckDB there (``file_search_path``), and in the ``duckdb``
shell, start it inside the directory.

This module holds :class:`Store` and offers the names of the modules it is built from:
:mod:`~ccsim.store.files` (the layout's file names, atomic writes), :mod:`~ccsim.store.catalog`
(writing and checking the catalogue) and :mod:`~ccsim.store.integrity` (checking run
directories against their checksums).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ccsim.errors import ScenarioError
from ccsim.metrics import jain_index, link_utilization
from ccsim.results import TABLES, Results

# The catalogue's and the run files' helpers live in modules of their own; Store finds them here
# (tests replace write_catalog on this module to make a rebuild fail).
from ccsim.store.catalog import (
    check_catalog,
    set_file_search_path,
    type_param_columns,
    write_catalog,
)
from ccsim.store.files import (
    CATALOG,
    DAMAGED,
    MANIFEST,
    MANIFEST_FORMAT,
    METRICS,
    RUN_CHECKSUMS,
    RUN_ID_PATTERN,
    STORE_ENTRIES,
    TEMPORARY_FILE_PATTERN,
    describe_error,
    process_alive,
    temporary_name,
    write_atomically,
)
from ccsim.store.integrity import run_damage, write_checksums

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "CATALOG",
    "MANIFEST",
    "METRIC_COLUMNS",
    "RUN_CHECKSUMS",
    "CatalogError",
    "RunCheck",
    "Store",
    "run_metrics",
]


def run_metrics(results: Results) -> dict[str, Any]:
    """The small summary of one run kept in the catalogue (and sent back by a worker).

    ``goodput_bps`` is the sum over flows; ``jain`` Jain's index of the flows' goodputs;
    ``utilization`` the bottleneck's (busiest link); ``loss_rate`` data drops / packets sent;
    ``mean_completion_s`` the mean transfer time of finished transfers.
    """
    flows, links = results.flows, results.links
    sent, drops = int(flows["packets_sent"].sum()), int(flows["drops"].sum())
    finished = flows["completion_s"].dropna()
    return {
        "flows": len(flows),
        "goodput_bps": float(flows["goodput_bps"].sum()),
        "jain": jain_index(flows["goodput_bps"]) if len(flows) else None,
        "utilization": link_utilization(links) if len(links) else None,
        "drops": drops,
        "loss_rate": drops / sent if sent else 0.0,
        "retransmits": int(flows["retransmits"].sum()),
        "timeouts": int(flows["timeouts"].sum()),
        "mean_completion_s": float(finished.mean()) if len(finished) else None,
        "events": results.summary.get("events"),
        "wall_s": results.summary.get("wall_s"),
    }


# The summary numbers of run_metrics() as catalogue columns, with their types (nullable: a
# run not done has none).
METRIC_COLUMNS = {
    "flows": "Int64",
    "goodput_bps": "float64",
    "jain": "float64",
    "utilization": "float64",
    "drops": "Int64",
    "loss_rate": "float64",
    "retransmits": "Int64",
    "timeouts": "Int64",
    "mean_completion_s": "float64",
    "events": "Int64",
    "wall_s": "float64",
}


class CatalogError(OSError):
    """The catalogue could not be rebuilt (a full disk, a new file that failed its check); the
    previous catalogue, if any, is kept. ``filename`` is the catalogue's path, ``strerror`` one
    line saying what failed."""


@dataclass(frozen=True)
class RunCheck:
    """What :meth:`Store.check_runs` found in the run directories it looked at."""

    #: Runs whose directory holds what was written.
    done: frozenset[str] = frozenset()
    #: Damaged runs, each with what is wrong ("flows.parquet is 10 bytes; expected 2048").
    damaged: dict[str, str] = field(default_factory=dict)
    #: Those of ``done`` written before checksums were recorded: their files were opened, their
    #: contents could not be checked.
    legacy: frozenset[str] = frozenset()
    #: The files each done run wrote (those its checksums.json lists; for runs written before
    #: checksums were recorded, those in its directory), by path in the run directory.
    files: dict[str, frozenset[str]] = field(default_factory=dict)


class Store:
    """A sweep directory: ``Store(root)`` only names it; :meth:`create` and :meth:`open` check."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).absolute()
        # Runs a check of the checksums by this object found damaged. A changed byte keeps the
        # size, so the catalogue (which checks sizes only) asks again about these until they
        # are written anew.
        self._found_damaged: dict[str, str] = {}

    # ---- places ---------------------------------------------------------------------------------

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"

    @property
    def errors_dir(self) -> Path:
        return self.root / "errors"

    @property
    def staging_dir(self) -> Path:
        return self.root / ".staging"

    @property
    def catalog_path(self) -> Path:
        return self.root / CATALOG

    def run_dir(self, run_id: str) -> Path:
        """Where run ``run_id`` lives once complete."""
        return self.runs_dir / run_id

    # ---- opening --------------------------------------------------------------------------------

    @classmethod
    def create(cls, root: str | os.PathLike[str]) -> Store:
        """A store at ``root``: a new or empty directory, or an earlier sweep directory.

        Anything else is refused with :class:`ScenarioError`, so a sweep never writes into a
        directory it did not make.
        """
        store = cls(root)
        if store.root.exists():
            if not store.root.is_dir():
                raise ScenarioError(f"{store.root}: exists and is not a directory")
            if not store._is_store_or_empty():
                raise ScenarioError(
                    f"{store.root}: exists and is not a ccsim sweep directory; "
                    "expected a new path or an earlier sweep directory"
                )
        for directory in (store.runs_dir, store.errors_dir, store.staging_dir):
            directory.mkdir(parents=True, exist_ok=True)
        return store

    def _is_store_or_empty(self) -> bool:
        # A sweep killed before writing its manifest leaves only the store's own entries.
        names = {path.name for path in self.root.iterdir()}
        return (self.root / MANIFEST).is_file() or names <= STORE_ENTRIES

    @classmethod
    def open(cls, root: str | os.PathLike[str]) -> Store:
        """An existing sweep directory (one with a manifest)."""
        store = cls(root)
        if not (store.root / MANIFEST).is_file():
            raise ScenarioError(f"{store.root}: not a ccsim sweep directory (no {MANIFEST})")
        return store

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the directory for one sweep at a time (released by the OS if the process dies)."""
        try:
            import fcntl  # POSIX only
        except ImportError:  # not POSIX: no lock, as before
            yield
            return
        with open(self.root / ".lock", "w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ScenarioError(
                    f"{self.root}: another sweep is running in this directory"
                ) from None
            yield

    # ---- the manifest ---------------------------------------------------------------------------

    def write_manifest(
        self, sweep: Mapping[str, Any], columns: Sequence[str], points: Sequence[Mapping[str, Any]]
    ) -> bool:
        """Record the sweep and its points (each ``{point, run_id, reference_run, params}``).
        Returns whether the manifest changed (a file already holding the same is left alone)."""
        manifest = {
            "format": MANIFEST_FORMAT,
            "sweep": sweep,
            "columns": list(columns),
            "points": list(points),
        }
        text = json.dumps(manifest, indent=1) + "\n"
        path = self.root / MANIFEST
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if path.read_text(encoding="utf-8") == text:
                return False
        write_atomically(path, text)
        return True

    def manifest(self) -> dict[str, Any]:
        """The manifest written by the sweep; :class:`ScenarioError` if it is not one."""
        path = self.root / MANIFEST
        expected = "expected the manifest that ccsim sweep writes"
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as error:
            raise ScenarioError(
                f"{path}: not valid JSON ({describe_error(error)}); {expected}"
            ) from None
        if not (
            isinstance(manifest, dict)
            and isinstance(manifest.get("columns"), list)
            and isinstance(manifest.get("points"), list)
        ):
            raise ScenarioError(f"{path}: no list of points and columns; {expected}")
        for index, point in enumerate(manifest["points"]):
            # Run ids name directories: one that is not a run id could point anywhere.
            if not (
                isinstance(point, dict)
                and isinstance(point.get("run_id"), str)
                and RUN_ID_PATTERN.fullmatch(point["run_id"])
                and isinstance(point.get("params"), dict)
            ):
                raise ScenarioError(
                    f"{path}: point {index} has no run id of 16 hex digits and params; {expected}"
                )
        return manifest

    # ---- runs -----------------------------------------------------------------------------------

    def completed(self) -> set[str]:
        """The runs of this sweep that are done: their directories hold every file listed in
        their checksums.json, with its size and SHA-256 (each file is read). What is damaged is
        in :meth:`check_runs`."""
        return set(self.check_runs().done)

    def holds(self, run_id: str) -> bool:
        """Whether run ``run_id`` is done in this store, as far as sizes tell: its directory
        holds every file its checksums.json lists, with the size listed (no file is read)."""
        return run_id in self.check_runs([run_id], checksums=False).done

    def run_directories(self) -> list[str]:
        """Every run directory in ``runs/``, of this sweep or an earlier one (sorted run ids)."""
        if not self.runs_dir.is_dir():
            return []
        return sorted(
            p.name
            for p in self.runs_dir.iterdir()
            if RUN_ID_PATTERN.fullmatch(p.name) and p.is_dir()
        )

    def check_runs(
        self, run_ids: Iterable[str] | None = None, *, checksums: bool = True
    ) -> RunCheck:
        """Check the directories of ``run_ids``: by default the manifest's runs (every run
        directory when there is no manifest). A run without a directory is neither done nor
        damaged: it has not run.

        A run is done when every file its checksums.json lists is there with the size and (with
        ``checksums``, which reads every file) the SHA-256 listed; a run written before
        checksums were recorded, when its files are there, hold something and open.
        """
        if run_ids is None:
            run_ids = (
                [point["run_id"] for point in self.manifest()["points"]]
                if (self.root / MANIFEST).is_file()
                else self.run_directories()
            )
        files: dict[str, frozenset[str]] = {}
        legacy: set[str] = set()
        damaged: dict[str, str] = {}
        for run_id in dict.fromkeys(run_ids):
            directory = self.run_dir(run_id)
            if not os.path.lexists(directory):
                continue
            problem: str | None = "not a directory"
            written, recorded = frozenset[str](), True
            if directory.is_dir():
                problem, written, recorded = run_damage(directory, checksums=checksums)
            if problem is not None:
                damaged[run_id] = problem
            else:
                files[run_id] = written
                if not recorded:
                    legacy.add(run_id)
            if checksums:
                if problem is None:
                    self._found_damaged.pop(run_id, None)
                else:
                    self._found_damaged[run_id] = problem
        return RunCheck(frozenset(files), damaged, frozenset(legacy), files)

    def failures(self) -> dict[str, dict[str, Any]]:
        """Recorded failures by run id: ``{"error": message, "kind": exception type, ...}``."""
        failed = {}
        if self.errors_dir.is_dir():
            for path in self.errors_dir.glob("*.json"):
                with contextlib.suppress(OSError, ValueError):
                    failed[path.stem] = json.loads(path.read_text(encoding="utf-8"))
        return failed

    def save_run(self, run_id: str, results: Results, metrics: Mapping[str, Any]) -> Path:
        """Write a run's directory; it appears under ``runs/`` complete or not at all, with
        checksums.json (written last) listing every other file's size and SHA-256.

        If the run's directory is already there and intact (another writer got there first: a
        run repeated after an interruption), it is kept: both hold the same deterministic
        results. A damaged one is moved to ``damaged/`` and replaced.
        """
        self.staging_dir.mkdir(parents=True, exist_ok=True)
        staging = results.write(self.staging_dir / f"{run_id}.{uuid.uuid4().hex}")
        try:
            write_atomically(staging / METRICS, json.dumps(metrics, indent=1) + "\n")
            write_checksums(staging)
            self._install(run_id, staging)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.clear_failure(run_id)
        return self.run_dir(run_id)

    def _install(self, run_id: str, staging: Path) -> None:
        """Rename a written run into ``runs/``, unless an intact copy is there already."""
        target = self.run_dir(run_id)
        failure: OSError | None = None
        for _attempt in range(3):  # other writers of the same run may move things meanwhile
            try:
                os.rename(staging, target)  # also over an empty directory (an emptied run)
                self._found_damaged.pop(run_id, None)
                return
            except OSError as error:
                failure = error
            if not os.path.lexists(target):
                continue
            if target.is_dir() and run_damage(target, checksums=True)[0] is None:
                return
            self._move_aside(target)
        assert failure is not None
        raise failure

    def _move_aside(self, target: Path) -> None:
        """Move a damaged run directory to ``damaged/``: ccsim does not delete what may hold
        someone's files, and the damaged copy may tell what happened to the disk."""
        aside = self.root / DAMAGED
        aside.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        with contextlib.suppress(FileNotFoundError):  # another writer moved it first
            os.rename(target, aside / f"{target.name}.{stamp}.{uuid.uuid4().hex[:8]}")

    def save_failure(self, run_id: str, record: Mapping[str, Any]) -> None:
        """Record why a run failed."""
        self.errors_dir.mkdir(parents=True, exist_ok=True)
        write_atomically(self.errors_dir / f"{run_id}.json", json.dumps(record, indent=1) + "\n")

    def clear_failure(self, run_id: str) -> None:
        """Forget a recorded failure (the run has now succeeded)."""
        with contextlib.suppress(FileNotFoundError):
            (self.errors_dir / f"{run_id}.json").unlink()

    def clean_staging(self) -> None:
        """Remove runs half-written by an interrupted sweep, and the temporary files of a
        catalogue or manifest whose writer died (killed while rebuilding the catalogue)."""
        if self.staging_dir.is_dir():
            for path in self.staging_dir.iterdir():
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
        if self.root.is_dir():
            for path in self.root.iterdir():
                match = TEMPORARY_FILE_PATTERN.fullmatch(path.name)
                if match and not process_alive(int(match.group(1) or 0)):
                    path.unlink(missing_ok=True)

    def load_run(self, run_id: str) -> Results:
        """The results of one finished run."""
        return Results.load(self.run_dir(run_id))

    def run_metrics(self, run_id: str) -> dict[str, Any]:
        """The summary numbers of one finished run (its metrics.json)."""
        path = self.run_dir(run_id) / METRICS
        try:
            metrics: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return metrics
        except (OSError, ValueError):
            return {}

    # ---- the catalogue --------------------------------------------------------------------------

    def runs_table(self) -> pd.DataFrame:
        """The ``runs`` table as the files say now: one row per point of the manifest.

        A run's status is ``done`` (its files have the sizes recorded: the checksums are checked
        when a sweep resumes), ``failed`` (its last attempt failed), ``damaged`` (its directory
        does not hold what was written; ``error`` says what is wrong) or ``pending``.
        """
        return self._runs_table()[0]

    def _runs_table(self) -> tuple[pd.DataFrame, dict[str, frozenset[str]]]:
        """The ``runs`` table, and the files each done run wrote."""
        manifest = self.manifest()
        check = self.check_runs([point["run_id"] for point in manifest["points"]], checksums=False)
        files, damaged = dict(check.files), dict(check.damaged)
        suspects = sorted(files.keys() & self._found_damaged.keys())
        if suspects:
            rechecked = self.check_runs(suspects)
            for run_id in rechecked.damaged:
                del files[run_id]
            damaged |= rechecked.damaged
        done = files.keys()
        failed = self.failures()
        rows = []
        for point in manifest["points"]:
            run_id = point["run_id"]
            status, error = "pending", None
            if run_id in done:
                status = "done"
            elif run_id in failed:
                status, error = "failed", failed[run_id].get("error")
            elif run_id in damaged:
                status, error = "damaged", damaged[run_id]
            row = {
                "point": point["point"],
                "run_id": run_id,
                "reference_run": point.get("reference_run"),
            }
            row |= point["params"]
            row["status"] = status
            row["error"] = error
            metrics = self.run_metrics(run_id) if status == "done" else {}
            row |= {name: metrics.get(name) for name in METRIC_COLUMNS}
            rows.append(row)
        columns = ["point", "run_id", "reference_run", *manifest["columns"], "status", "error"]
        table = pd.DataFrame(rows, columns=[*columns, *METRIC_COLUMNS])
        # Text columns stay text when empty (reference_run outside comparisons, error when
        # nothing failed), so that SQL on them works the same in every sweep.
        table = table.astype({"reference_run": "string", "error": "string", **METRIC_COLUMNS})
        return type_param_columns(table, manifest["columns"]), files

    def rebuild_catalog(self) -> None:
        """Write the catalogue afresh from the manifest and the run directories.

        The views read the Parquet files each done run listed when it was written, named one
        by one (no pattern over ``runs/``, where anything may lie). The new catalogue is written
        to a temporary file and checked (fully written, no write-ahead log left beside it; table
        ``runs`` with every point and as many done runs; every view) before it replaces the
        old one. On failure the old catalogue stays and :class:`CatalogError` says why.
        """
        import duckdb  # slow to import: only where SQL is needed

        runs, files = self._runs_table()
        sources: dict[str, list[str]] = {table: [] for table in TABLES}
        for run_id in sorted(files):
            for table in TABLES:
                if f"{table}.parquet" in files[run_id]:
                    sources[table].append(f"runs/{run_id}/{table}.parquet")
        temporary = self.root / temporary_name(CATALOG)
        try:
            write_catalog(
                temporary,
                runs,
                self.root,
                params=[c for c in runs.columns if c not in METRIC_COLUMNS],
                sources=sources,
            )
            check_catalog(temporary, points=len(runs), done=int((runs["status"] == "done").sum()))
            os.replace(temporary, self.catalog_path)
        except (duckdb.Error, OSError, ValueError) as error:
            kept = (
                "the previous catalogue is kept"
                if self.catalog_path.is_file()
                else "there was no catalogue before"
            )
            raise CatalogError(
                error.errno if isinstance(error, OSError) and error.errno else errno.EIO,
                f"not rebuilt ({describe_error(error)}); {kept}",
                str(self.catalog_path),
            ) from None
        finally:
            temporary.unlink(missing_ok=True)
            Path(f"{temporary}.wal").unlink(missing_ok=True)

    def catalog_is_current(self) -> bool:
        """Whether the catalogue's statuses agree with the run directories and error files."""
        if not self.catalog_path.is_file():
            return False
        try:
            with self.connect() as connection:
                listed = connection.execute("SELECT run_id, status FROM runs").fetchall()
        except Exception:  # an unreadable catalogue is rebuilt like a stale one
            return False
        expected = self.runs_table()
        return sorted(listed) == sorted(zip(expected["run_id"], expected["status"], strict=True))

    def connect(self) -> duckdb.DuckDBPyConnection:
        """A read-only DuckDB connection to the catalogue, resolving paths in this directory."""
        import duckdb  # slow to import: only where SQL is needed

        connection = duckdb.connect(str(self.catalog_path), read_only=True)
        set_file_search_path(connection, self.root)
        return connection

    def query(self, sql: str) -> pd.DataFrame:
        """Run SQL on the catalogue (rebuilt first if out of date) and return a DataFrame."""
        if not self.catalog_is_current():
            try:
                self.rebuild_catalog()
            except OSError:
                # A directory we may not write, or a full disk: answer from the catalogue as it
                # is, if there is one.
                if not self.catalog_path.is_file():
                    raise
        with self.connect() as connection:
            return connection.execute(sql).df()
