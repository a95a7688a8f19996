"""Writing and checking the DuckDB catalogue of a sweep directory (see :mod:`ccsim.store`):
table ``runs`` with typed parameter columns, and a view per results table over the done runs'
Parquet files."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ccsim.errors import ScenarioError
from ccsim.results import TABLES
from ccsim.units import parse_rate, parse_size, parse_time

if TYPE_CHECKING:
    import duckdb

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


def type_param_columns(table: pd.DataFrame, params: Sequence[str]) -> pd.DataFrame:
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
    if not values or not all(isinstance(v, str) for v in values):
        return None
    for suffix, parse, scale in (
        ("bps", parse_rate, 1.0),
        ("s", parse_time, 1e-9),
        ("bytes", parse_size, 1.0),
    ):
        try:
            return suffix, [parse(v) * scale for v in values]
        except ScenarioError:
            continue
    return None


def write_catalog(
    path: Path,
    runs: pd.DataFrame,
    root: Path,
    params: Sequence[str],
    sources: Mapping[str, Sequence[str]],
) -> None:
    """Write table ``runs`` and a view per table over ``sources[table]``, Parquet files by
    paths relative to ``root``."""
    import duckdb  # slow to import: only where SQL is needed

    connection = duckdb.connect(str(path))
    try:
        set_file_search_path(connection, root)
        connection.register("runs_frame", runs)
        connection.execute("CREATE TABLE runs AS SELECT * FROM runs_frame")
        connection.unregister("runs_frame")
        for table in TABLES:
            connection.execute(_view_sql(table, root, sources.get(table, ()), params))
        # The checkpoint on close fails without a word (a full disk leaves the tables in the
        # write-ahead log only); asked for here, its failure is an error.
        connection.execute("CHECKPOINT")
    finally:
        connection.close()


def check_catalog(path: Path, *, points: int, done: int) -> None:
    """Raise ValueError unless the catalogue at ``path`` is complete in its file: no write-ahead
    log beside it (whose tables would be lost with it), table ``runs`` with ``points`` rows of
    which ``done`` are done, and every view."""
    import duckdb  # slow to import: only where SQL is needed

    wal = Path(f"{path}.wal")
    if wal.is_file() and wal.stat().st_size > 0:
        raise ValueError("its tables did not reach the file: the checkpoint failed")
    connection = duckdb.connect(str(path), read_only=True)
    try:
        counted = connection.execute(
            "SELECT count(*), count(*) FILTER (WHERE status = 'done') FROM runs"
        ).fetchone()
        views = {
            row[0]
            for row in connection.execute(
                "SELECT view_name FROM duckdb_views() WHERE NOT internal"
            ).fetchall()
        }
    finally:
        connection.close()
    if counted != (points, done):
        found = f"{counted[0]} points, {counted[1]} done" if counted else "nothing"
        raise ValueError(f"the new catalogue counts {found}; expected {points}, {done} done")
    missing = [table for table in TABLES if table not in views]
    if missing:
        raise ValueError(f"the new catalogue has no view {missing[0]}")


def set_file_search_path(connection: duckdb.DuckDBPyConnection, root: Path) -> None:
    """Resolve the views' relative Parquet paths in the sweep directory."""
    quoted = str(root).replace("'", "''")
    connection.execute(f"SET file_search_path = '{quoted}'")


def _view_sql(table: str, root: Path, files: Sequence[str], params: Sequence[str]) -> str:
    """A view of one table over the Parquet ``files`` of done runs (paths relative to ``root``),
    with each run's parameters in front."""
    import pyarrow.parquet as pq  # slow to import: only where Parquet is read

    columns = None
    for name in files:  # the columns of the first file that reads (the view reads them all)
        with contextlib.suppress(OSError, ValueError):
            columns = pq.read_schema(root / name).names
            break
    if columns is not None:
        listed = ", ".join("'" + name.replace("'", "''") + "'" for name in files)
        source = f"read_parquet([{listed}], filename = true, union_by_name = true)"
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
