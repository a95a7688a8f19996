"""Flow-by-flow comparison across the runs of a comparative sweep.

Every point of a sweep with a ``[compare]`` table has a *reference run*: the same workload (same
axis values, same seed) with every flow on the baseline algorithm (Reno by default). These
functions join each run's flows with its reference run's (:func:`ccsim.metrics.join_flows`) and
return tables with the point's parameters in front, ready for plots or SQL-free analysis.
"""

from __future__ import annotations

import pandas as pd

from ccsim import metrics
from ccsim.store import Store

__all__ = ["flow_by_flow", "relative_throughput", "reno_friendliness"]


def _comparable(store: Store) -> pd.DataFrame:
    runs = store.query("SELECT * FROM runs WHERE status = 'done' ORDER BY point")
    if "reference_run" not in runs or runs["reference_run"].isna().all():
        raise ValueError(f"{store.root}: not a comparative sweep (no [compare] table)")
    done = set(runs["run_id"])
    return runs[runs["reference_run"].isin(done)]


def _params(store: Store) -> list[str]:
    return ["point", "run_id", "reference_run", *store.manifest()["columns"]]


def _flows(store: Store, run_id: str, cache: dict[str, pd.DataFrame]) -> pd.DataFrame:
    if run_id not in cache:
        cache[run_id] = pd.read_parquet(store.run_dir(run_id) / "flows.parquet")
    return cache[run_id]


def flow_by_flow(store: Store, column: str = "goodput_bps") -> pd.DataFrame:
    """One row per (point, flow): the flow's ``column`` in the point's run and in its reference
    run, and their ratio (seed 004's per-flow relative throughput).

    Columns: the point's parameters, then ``key, flow_x, flow_ref, cc_x, cc_ref, label_x,
    label_ref, base_rtt_s_x, base_rtt_s_ref, <column>_x, <column>_ref, ratio``.
    """
    runs, tables = _comparable(store), []
    cache: dict[str, pd.DataFrame] = {}
    params = _params(store)
    for _, run in runs.iterrows():
        flows = _flows(store, run["run_id"], cache)
        reference = _flows(store, run["reference_run"], cache)
        table = metrics.relative_throughput(flows, reference, column)
        for name in reversed(params):
            table.insert(0, name, run[name])
        tables.append(table)
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=params)


def relative_throughput(store: Store, column: str = "goodput_bps") -> pd.DataFrame:
    """Seed 004's relative throughput per point: the mean over flows of the per-flow ratio."""
    table = flow_by_flow(store, column)
    params = _params(store)
    return (
        table.groupby(params, sort=False, dropna=False)["ratio"]
        .mean()
        .reset_index(name="relative_throughput")
    )


def reno_friendliness(store: Store, column: str = "goodput_bps") -> pd.DataFrame:
    """Seed 004's Reno friendliness per point that has baseline flows: the mean over the
    baseline flows of (throughput next to the compared algorithm) / (the same flow's throughput
    in the all-baseline run), as :func:`ccsim.metrics.reno_friendliness`."""
    baseline = store.manifest()["sweep"]["compare"]["baseline"]["cc"]
    runs, rows = _comparable(store), []
    cache: dict[str, pd.DataFrame] = {}
    params = _params(store)
    for _, run in runs.iterrows():
        flows = _flows(store, run["run_id"], cache)
        if not (flows["cc"] == baseline).any():
            continue
        reference = _flows(store, run["reference_run"], cache)
        value = metrics.reno_friendliness(flows, reference, baseline, column)
        rows.append({name: run[name] for name in params} | {"reno_friendliness": value})
    return pd.DataFrame(rows, columns=[*params, "reno_friendliness"])
