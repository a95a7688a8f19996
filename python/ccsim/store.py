"""The result store of a sweep: one directory per run, a manifest, and a DuckDB catalogue.

Layout of a sweep directory::

    sweep.json          the manifest: the sweep (base scenario inline) and every point with its
                        parameters, run id and reference run
    catalog.duckdb      table ``runs`` (one row per point: parameters, status, error, summary
                        numbers) and views ``flows``, ``links``, ``series``, ``queues``, ``drops``
                        over every finished run's Parquet files, with the run's parameters joined in
    runs/<run id>/      a results directory (as ``ccsim run`` writes) plus metrics.json, the
                        run's summary numbers; the run id is a hash of the resolved scenario
    errors/<run id>.json   why a run failed (removed when it succeeds on a later attempt)
    .staging/           runs being written; emptied when a sweep starts

A run directory appears in one rename once every file in it is written, so ``runs/`` never holds
half a run, whatever kills the writer. The catalogue is derived data: it is rebuilt from the
manifest and the directories (into a new file renamed over the old one) when a sweep starts,
while it runs and when it ends, and when a query finds it out of date.

The views read the Parquet files by paths relative to the sweep directory, so the directory can
be moved; :meth:`Store.connect` points DuckDB there (``file_search_path``), and in the ``duckdb``
shell, start it inside the directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ccsim.errors import ScenarioError
from ccsim.results import TABLES

if TYPE_CHECKING:
    import duckdb

    from ccsim.results import Results

__all__ = ["CATALOG", "MANIFEST", "Store", "run_metrics"]

MANIFEST = "sweep.json"
CATALOG = "catalog.duckdb"
METRICS = "metrics.json"
_FORMAT = 1
_RUN_ID = re.compile(r"[0-9a-f]{16}")
# What a sweep directory holds besides its manifest.
_STORE_ENTRIES = {"runs", "errors", ".staging", ".lock", CATALOG, "plots"}

# Columns of each table as the engine writes them, for the views of tables no run has written
# yet (a view must have columns to be queried). Runs' own files take precedence.
_EMPTY_SCHEMAS = {
    "flows": {"flow": "UINTEGER", "label": "VARCHAR", "cc": "VARCHAR", "goodput_bps": "DOUBLE"},
    "links": {"link": "UINTEGER", "src": "VARCHAR", "dst": "VARCHAR", "utilization": "DOUBLE"},
    "series": {
        "t_s": "DOUBLE",
        "flow": "UINTEGER",
        "cwnd_pkts": "DOUBLE",
        "ssthresh_pkts": "DOUBLE",
        "srtt_s": "DOUBLE",
        "rate_bps": "DOUBLE",
    },
    "queues": {
        "t_s": "DOUBLE",
        "link": "UINTEGER",
        "queue_pkts": "UINTEGER",
        "queue_bytes": "UBIGINT",
        "avg_queue_pkts": "DOUBLE",
    },
    "drops": {
        "t_s": "DOUBLE",
        "link": "UINTEGER",
        "flow": "UINTEGER",
        "seq": "UINTEGER",
        "is_ack": "UTINYINT",
        "kind": "UTINYINT",
    },
}


def run_metrics(results: Results) -> dict[str, Any]:
    """The small summary of one run kept in the catalogue (and sent back by a worker).

    ``goodput_bps`` is the sum over flows; ``jain`` Jain's index of the flows' goodputs;
    ``utilization`` the bottleneck's (busiest link); ``loss_rate`` data drops / packets sent;
    ``mean_completion_s`` the mean transfer time of finished transfers.
    """
    from ccsim import metrics

    flows, links = results.flows, results.links
    sent, drops = int(flows["packets_sent"].sum()), int(flows["drops"].sum())
    finished = flows["completion_s"].dropna()
    return {
        "flows": len(flows),
        "goodput_bps": float(flows["goodput_bps"].sum()),
        "jain": metrics.jain_index(flows["goodput_bps"]) if len(flows) else None,
        "utilization": metrics.link_utilization(links) if len(links) else None,
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
_METRIC_COLUMNS = {
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


class Store:
    """A sweep directory: ``Store(root)`` only names it; :meth:`create` and :meth:`open` check."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).absolute()

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
        return (self.root / MANIFEST).is_file() or names <= _STORE_ENTRIES

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
            import fcntl
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
    ) -> None:
        """Record the sweep and its points (each ``{point, run_id, reference_run, params}``)."""
        manifest = {
            "format": _FORMAT,
            "sweep": sweep,
            "columns": list(columns),
            "points": list(points),
        }
        _write_atomically(self.root / MANIFEST, json.dumps(manifest, indent=1) + "\n")

    def manifest(self) -> dict[str, Any]:
        """The manifest written by the sweep."""
        manifest: dict[str, Any] = json.loads((self.root / MANIFEST).read_text(encoding="utf-8"))
        return manifest

    # ---- runs -----------------------------------------------------------------------------------

    def completed(self) -> set[str]:
        """Run ids whose directory is in ``runs/`` (complete by construction)."""
        if not self.runs_dir.is_dir():
            return set()
        return {p.name for p in self.runs_dir.iterdir() if _RUN_ID.fullmatch(p.name) and p.is_dir()}

    def failures(self) -> dict[str, dict[str, Any]]:
        """Recorded failures by run id: ``{"error": message, "kind": exception type, ...}``."""
        failed = {}
        if self.errors_dir.is_dir():
            for path in self.errors_dir.glob("*.json"):
                with contextlib.suppress(OSError, ValueError):
                    failed[path.stem] = json.loads(path.read_text(encoding="utf-8"))
        return failed

    def save_run(self, run_id: str, results: Results, metrics: Mapping[str, Any]) -> Path:
        """Write a run's directory; it appears under ``runs/`` complete or not at all.

        If another writer got there first (a run repeated after an interruption), its directory
        is kept: both hold the same deterministic results.
        """
        self.staging_dir.mkdir(parents=True, exist_ok=True)
        staging = results.write(self.staging_dir / f"{run_id}.{uuid.uuid4().hex}")
        try:
            _write_atomically(staging / METRICS, json.dumps(metrics, indent=1) + "\n")
            target = self.run_dir(run_id)
            try:
                os.rename(staging, target)
            except OSError:
                if not target.is_dir():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.clear_failure(run_id)
        return self.run_dir(run_id)

    def save_failure(self, run_id: str, record: Mapping[str, Any]) -> None:
        """Record why a run failed."""
        self.errors_dir.mkdir(parents=True, exist_ok=True)
        _write_atomically(self.errors_dir / f"{run_id}.json", json.dumps(record, indent=1) + "\n")

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
                match = _TEMPORARY.fullmatch(path.name)
                if match and not _process_alive(int(match.group(1) or 0)):
                    path.unlink(missing_ok=True)

    def load_run(self, run_id: str) -> Results:
        """The results of one finished run."""
        from ccsim.results import Results

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
        """The ``runs`` table as the files say now: one row per point of the manifest."""
        manifest = self.manifest()
        done, failed = self.completed(), self.failures()
        rows = []
        for point in manifest["points"]:
            run_id = point["run_id"]
            status = "done" if run_id in done else "failed" if run_id in failed else "pending"
            row = {
                "point": point["point"],
                "run_id": run_id,
                "reference_run": point.get("reference_run"),
            }
            row |= point["params"]
            row["status"] = status
            row["error"] = failed[run_id].get("error") if status == "failed" else None
            metrics = self.run_metrics(run_id) if status == "done" else {}
            row |= {name: metrics.get(name) for name in _METRIC_COLUMNS}
            rows.append(row)
        columns = ["point", "run_id", "reference_run", *manifest["columns"], "status", "error"]
        table = pd.DataFrame(rows, columns=[*columns, *_METRIC_COLUMNS])
        # Text columns stay text when empty (reference_run outside comparisons, error when
        # nothing failed), so that SQL on them works the same in every sweep.
        table = table.astype({"reference_run": "string", "error": "string", **_METRIC_COLUMNS})
        return _typed(table, manifest["columns"])

    def rebuild_catalog(self) -> None:
        """Write the catalogue afresh from the manifest and the run directories."""
        runs = self.runs_table()
        temporary = self.root / _temporary_name(CATALOG)
        try:
            _write_catalog(
                temporary,
                runs,
                self.root,
                params=[c for c in runs.columns if c not in _METRIC_COLUMNS],
            )
            os.replace(temporary, self.catalog_path)
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
        import duckdb

        connection = duckdb.connect(str(self.catalog_path), read_only=True)
        _search_here(connection, self.root)
        return connection

    def query(self, sql: str) -> pd.DataFrame:
        """Run SQL on the catalogue (rebuilt first if out of date) and return a DataFrame."""
        if not self.catalog_is_current():
            # In a directory we may not write, query the catalogue as it is.
            with contextlib.suppress(OSError):
                self.rebuild_catalog()
        with self.connect() as connection:
            return connection.execute(sql).df()


# ---- writing the catalogue ---------------------------------------------------------------------


def _typed(table: pd.DataFrame, params: Sequence[str]) -> pd.DataFrame:
    """Give each parameter column one SQL-friendly type; add numeric twins of quantities."""
    for name in params:
        values = table[name].tolist()
        table[name] = _one_type(values)
        twin = _quantity_twin(values)
        if twin is not None:
            suffix, numbers = twin
            table[f"{name}_{suffix}"] = numbers
    return table


def _one_type(values: list[Any]) -> pd.Series:
    if all(isinstance(v, bool) for v in values):
        return pd.Series(values, dtype=bool)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        # Seeds go up to 2^64 - 1, beyond int64.
        return pd.Series(values, dtype="int64" if max(values) < 2**63 else "uint64")
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return pd.Series(values, dtype="float64")
    return pd.Series([v if isinstance(v, str) else json.dumps(v) for v in values], dtype=object)


def _quantity_twin(values: list[Any]) -> tuple[str, list[float]] | None:
    """``"10Mbps"`` values also as numbers: ``rate_bps``, ``rtt_s`` or ``buffer_bytes`` columns,
    so that SQL can sort and plots can place them."""
    from ccsim import units

    if not values or not all(isinstance(v, str) for v in values):
        return None
    for suffix, parse, scale in (
        ("bps", units.parse_rate, 1.0),
        ("s", units.parse_time, 1e-9),
        ("bytes", units.parse_size, 1.0),
    ):
        try:
            return suffix, [parse(v) * scale for v in values]
        except ScenarioError:
            continue
    return None


def _write_catalog(path: Path, runs: pd.DataFrame, root: Path, params: Sequence[str]) -> None:
    import duckdb

    connection = duckdb.connect(str(path))
    try:
        _search_here(connection, root)
        connection.register("runs_frame", runs)
        connection.execute("CREATE TABLE runs AS SELECT * FROM runs_frame")
        connection.unregister("runs_frame")
        done = set(runs.loc[runs["status"] == "done", "run_id"])
        for table in TABLES:
            connection.execute(_view_sql(table, root, done, params))
    finally:
        connection.close()


def _search_here(connection: duckdb.DuckDBPyConnection, root: Path) -> None:
    """Resolve the views' relative Parquet paths in the sweep directory."""
    quoted = str(root).replace("'", "''")
    connection.execute(f"SET file_search_path = '{quoted}'")


def _view_sql(table: str, root: Path, done: set[str], params: Sequence[str]) -> str:
    """A view of one table over every finished run, with the run's parameters in front."""
    import pyarrow.parquet as pq

    files = (root / "runs" / run_id / f"{table}.parquet" for run_id in sorted(done))
    example = next((path for path in files if path.is_file()), None)
    if example is not None:
        source = f"read_parquet('runs/*/{table}.parquet', filename = true, union_by_name = true)"
        columns = pq.read_schema(example).names
    else:
        schema = _EMPTY_SCHEMAS[table]
        casts = ", ".join(f"NULL::{kind} AS {name}" for name, kind in schema.items())
        source = f"(SELECT NULL::VARCHAR AS filename, {casts} WHERE false)"
        columns = list(schema)
    # A parameter named like a column of the table (an axis called "label") yields to it.
    selected = [
        f'r."{p}"' if p not in columns else f'r."{p}" AS "sweep_{p}"'
        for p in params
        if p not in ("status", "error")
    ]
    run_of_file = r"regexp_extract(t.filename, '([0-9a-f]{16})[/\\][^/\\]+$', 1)"
    return (
        f"CREATE VIEW {table} AS SELECT {', '.join(selected)}, t.* EXCLUDE (filename) "
        f"FROM {source} AS t JOIN runs AS r ON r.run_id = {run_of_file} "
        "WHERE r.status = 'done'"
    )


# Temporary files of the catalogue and the manifest: ".NAME.PID.HEX.tmp" (and DuckDB's ".wal"
# beside one); files of an earlier format have no PID.
_TEMPORARY = re.compile(
    rf"\.(?:{re.escape(CATALOG)}|{re.escape(MANIFEST)})\.(?:(\d+)\.)?[0-9a-f]{{32}}\.tmp(?:\.wal)?"
)


def _temporary_name(name: str) -> str:
    """A temporary file name beside ``name``, carrying this process's id so that a later sweep
    can tell a dead writer's leftovers from a live writer's file."""
    return f".{name}.{os.getpid()}.{uuid.uuid4().hex}.tmp"


def _process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (0: unknown, treated as dead)."""
    if pid <= 0 or pid == os.getpid():
        return pid == os.getpid()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists but is not ours, or cannot tell: leave its files alone
    return True


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(_temporary_name(path.name))
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
