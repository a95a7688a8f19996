"""Looking at results on disk: SQL and figures over one run or a whole sweep.

Both accept either kind of directory: a results directory (``ccsim run``, or ``runs/<id>`` of a
sweep) or a sweep directory (``ccsim sweep``). The command line's ``query`` and ``plot`` call these.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ccsim import plots
from ccsim.errors import ScenarioError
from ccsim.results import TABLES, read_json_object
from ccsim.store import MANIFEST, Store

if TYPE_CHECKING:
    import duckdb

__all__ = ["directory_kind", "make_plots", "query_error", "read_manifest", "run_query"]


def directory_kind(directory: str | os.PathLike[str]) -> str:
    """``"sweep"`` or ``"run"``; :class:`ScenarioError` for anything else."""
    path = Path(directory)
    if (path / MANIFEST).is_file():
        return "sweep"
    if (path / "summary.json").is_file():
        return "run"
    if not path.exists():
        raise ScenarioError(f"{path}: no such directory")
    raise ScenarioError(
        f"{path}: neither a sweep directory (no {MANIFEST}) nor a results directory "
        "(no summary.json)"
    )


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """A sweep directory's manifest, checked for what readers of the store use: a JSON object
    with the ``sweep``, its ``columns`` and its ``points`` (each with ``point``, ``run_id`` and
    ``params``). A damaged one raises :class:`ScenarioError` naming the file."""
    path = Path(directory) / MANIFEST
    again = "run the sweep again (the same command) to rewrite it"
    manifest = read_json_object(
        path,
        "the manifest ccsim sweep writes",
        remedy=again,
        missing="a sweep directory",
    )
    for key, kind in (("sweep", dict), ("columns", list), ("points", list)):
        if not isinstance(manifest.get(key), kind):
            what = "object" if kind is dict else "list"
            raise ScenarioError(
                f'{path}: no "{key}" {what}; expected the manifest ccsim sweep writes: {again}'
            )
    for index, point in enumerate(manifest["points"]):
        if not (
            isinstance(point, dict)
            and isinstance(point.get("run_id"), str)
            and isinstance(point.get("params"), dict)
            and "point" in point
        ):
            raise ScenarioError(
                f"{path}: points[{index}] is not a point (point, run_id, params); expected the "
                f"manifest ccsim sweep writes: {again}"
            )
    return manifest


def run_query(directory: str | os.PathLike[str], sql: str) -> pd.DataFrame:
    """Run DuckDB SQL over a sweep's catalogue or over one run's tables.

    A bad query is bad input: it raises :class:`ScenarioError` with DuckDB's message.
    """
    import duckdb  # slow to import: only where SQL is needed

    try:
        if directory_kind(directory) == "sweep":
            read_manifest(directory)  # a damaged one: one line naming it
            return Store.open(directory).query(sql)
        with _run_connection(Path(directory)) as connection:
            return connection.execute(sql).df()
    except duckdb.Error as error:
        raise ScenarioError(f"query failed: {query_error(error)}") from None


def query_error(error: BaseException) -> str:
    """The first line of a DuckDB error: its messages span lines ("LINE 1: ..."), the first
    says what is wrong (and names the file, when a run's Parquet file is damaged)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _run_connection(directory: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with one view per Parquet table of a results directory."""
    import duckdb  # slow to import: only where SQL is needed

    connection = duckdb.connect()
    for table in TABLES:
        path = directory / f"{table}.parquet"
        if path.is_file():
            quoted = str(path.absolute()).replace("'", "''")
            connection.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{quoted}')")
    return connection


def _run_plots_dir(directory: Path) -> Path:
    """DIR/plots, except for a run inside a sweep: SWEEP/plots/<run id>, so that the run
    directories of the store hold only what the run wrote."""
    parent = directory.absolute().parent
    if parent.name == "runs" and (parent.parent / MANIFEST).is_file():
        return parent.parent / "plots" / directory.name
    return directory / "plots"


def make_plots(
    directory: str | os.PathLike[str],
    kinds: Sequence[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    fmt: str = "png",
    *,
    x: str | None = None,
    y: Sequence[str] | None = None,
    hue: str | None = None,
) -> list[Path]:
    """The figures of a run or a sweep directory (see :mod:`ccsim.plots`); returns the files.

    Plotting problems a user can fix (a run without traces, an unknown column) raise
    :class:`ScenarioError`.
    """
    import duckdb  # slow to import: only where SQL is needed

    try:
        if directory_kind(directory) == "run":
            out = out if out is not None else _run_plots_dir(Path(directory))
            return plots.plot_run(directory, out, fmt, kinds=list(kinds) if kinds else None)
        read_manifest(directory)  # a damaged one: one line naming it, not a KeyError
        store = Store.open(directory)
        wanted = set(kinds or ("metric", "cdf"))
        unknown = wanted - {"metric", "cdf"}
        if unknown:
            raise ScenarioError(
                f"--kind {sorted(unknown)[0]} draws one run; for a sweep use metric or cdf, or "
                "plot a run directory: DIR/runs/<run id>"
            )
        metric_y = tuple(y) if y else ("goodput_bps", "jain", "utilization", "loss_rate")
        return plots.plot_sweep(
            store, out, fmt, y=metric_y, x=x, hue=hue,
            metric="metric" in wanted, cdf="cdf" in wanted,
        )  # fmt: skip
    except ScenarioError:
        raise
    except duckdb.Error as error:
        # A run's Parquet file the catalogue's views cannot read (truncated, damaged).
        raise ScenarioError(
            f"{directory}: cannot read the runs' tables: {query_error(error)}"
        ) from None
    except (ValueError, KeyError) as error:
        message = error.args[0] if error.args else str(error)
        raise ScenarioError(f"cannot plot {directory}: {message}") from None
