"""What a sweep directory says about its runs (see :mod:`ccsim.sweeps`): the command that made
it, the summary of its runs over the replicates, and its result store."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim.runner import version

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.store import Store


#: The file of a sweep directory that records the command that made it.
COMMAND_FILE = "command.json"
#: The runs table's summary numbers that :func:`summarise_runs` summarises by default.
SUMMARY_METRICS = ("goodput_bps", "jain", "utilization", "loss_rate", "timeouts")


def record_command(directory: str | os.PathLike[str], command: str) -> Path:
    """Record in ``DIRECTORY/command.json`` the command line that made the sweep directory,
    with the working directory it ran in and ccsim's version; returns the file.

    Written once the sweep has its manifest (a directory holding only this file would not be
    taken for a sweep directory).
    """
    path = Path(directory) / COMMAND_FILE
    record = {"command": command, "cwd": os.getcwd(), "ccsim_version": version()}
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path


def recorded_command(directory: str | os.PathLike[str]) -> dict[str, Any] | None:
    """What :func:`record_command` recorded for a sweep directory (None: nothing, or unreadable)."""
    try:
        record = json.loads((Path(directory) / COMMAND_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("command"), str) else None


def summarise_runs(
    runs: pd.DataFrame,
    params: Sequence[str],
    metrics: Sequence[str] = SUMMARY_METRICS,
    level: float = 0.95,
) -> pd.DataFrame:
    """The summary of a sweep: for each combination of the ``params`` (``seed`` is left out, so
    the seeds are the replicates) and each of the ``metrics`` (columns of the catalogue's runs
    table), the mean over the finished runs and its ``level`` confidence interval by Student's t.

    Returns one row per combination and metric, combinations in the order of the runs table,
    metrics in the order given: the parameters, ``metric``, ``mean``, ``sd``, ``half_width``,
    ``ci_low``, ``ci_high``, ``n`` (finished runs with a value; the interval is NaN, undefined,
    when n < 2) and ``points`` (all points of the combination, finished or not). See
    :func:`ccsim.metrics.mean_ci`.
    """
    # pandas (and the metrics built on it) only to summarise: sweep files load without it
    import pandas as pd

    from ccsim.metrics import mean_ci

    keys = [p for p in params if p != "seed"]
    if not metrics:
        raise ValueError("no summary number to summarise; expected at least one metric")
    done = runs["status"] == "done"
    frames = []
    for index, metric in enumerate(metrics):
        values = runs.assign(_value=runs[metric].astype(float).where(done))
        stats = mean_ci(values, keys, "_value", level)
        stats.insert(len(keys), "metric", metric)
        stats["_group"], stats["_metric"] = range(len(stats)), index
        frames.append(stats)
    table = pd.concat(frames, ignore_index=True)
    table = table.sort_values(["_group", "_metric"], kind="stable").drop(
        columns=["_group", "_metric"]
    )
    if keys:
        sizes = runs.groupby(keys, sort=False, dropna=False).size().rename("points").reset_index()
        table = table.merge(sizes, on=keys, how="left", sort=False)
    else:
        table["points"] = len(runs)
    return table.reset_index(drop=True)


def open_store(directory: str | Path) -> Store:
    """The result store of a sweep directory (for queries and plots)."""
    from ccsim.store import Store  # pandas: only when a store is opened

    return Store.open(directory)
