"""examples/sweep_aqm.toml and its figure script, on a shortened copy (two seeds, 20 s runs; the
full sweep is 5 seeds of 60 s): the table has every queue and workload, the figure is written,
and the comparison says what README's tour says of the full sweep. About 15 s on 2 cores.
"""

from __future__ import annotations

import importlib
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import ccsim
import pandas as pd
import pytest
from conftest import requires_engine

pytestmark = requires_engine
pytest.importorskip("matplotlib")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def figure_module() -> ModuleType:
    sys.path.insert(0, str(EXAMPLES))
    try:
        return importlib.import_module("sweep_aqm_figure")
    finally:
        sys.path.remove(str(EXAMPLES))


@pytest.fixture(scope="module")
def stats(figure_module: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    data = tomllib.loads((EXAMPLES / "sweep_aqm.toml").read_text())
    data["replicates"] = 2
    data["scenario"]["duration"] = "20s"
    out = tmp_path_factory.mktemp("sweep") / "sweep_aqm"
    result = ccsim.sweep(data, out, workers=2)
    assert result.failures == []
    table: pd.DataFrame = figure_module.summary(figure_module.per_run(ccsim.Store.open(out)))
    return table


def _mean(stats: pd.DataFrame, queue: str, workload: str, metric: str) -> float:
    row = stats[(stats.queue == queue) & (stats.workload == workload) & (stats.metric == metric)]
    return float(row["mean"].iloc[0])


def test_every_queue_and_workload_is_summarised(
    figure_module: ModuleType, stats: pd.DataFrame, tmp_path: Path
) -> None:
    groups = set(zip(stats.queue.astype(str), stats.workload.astype(str), strict=True))
    assert groups == {
        (q, w) for q in figure_module.QUEUES for w in figure_module.WORKLOADS.values()
    }
    assert (stats[stats.metric == "goodput_mbps"]["mean"] > 15).all()
    # Only the queues that decide at dequeue report a sojourn time.
    sojourn = stats[stats.metric == "sojourn_ms"]
    reported = sojourn[sojourn["mean"].notna()].queue.astype(str)
    assert set(reported) == {"codel", "fq_codel", "pie"}
    assert "fq_codel" in figure_module.text_table(stats)
    figure_module.plot(stats, tmp_path / "aqm.png")
    assert (tmp_path / "aqm.png").stat().st_size > 10_000


def test_aqms_cut_the_delay_and_fq_codel_evens_the_rtts(stats: pd.DataFrame) -> None:
    for workload in ("all Reno", "all CUBIC"):
        tail = _mean(stats, "droptail", workload, "backlog_ms")
        assert tail > 100, tail
        for queue, bound_ms in [("codel", 15), ("fq_codel", 10), ("pie", 25)]:
            assert _mean(stats, queue, workload, "backlog_ms") < bound_ms, (queue, workload)
        # The per-packet sojourn and the sampled backlog agree (one FIFO drains at the link rate).
        codel = _mean(stats, "codel", workload, "sojourn_ms")
        assert codel == pytest.approx(_mean(stats, "codel", workload, "backlog_ms"), rel=0.1)
        jain_fq = _mean(stats, "fq_codel", workload, "jain")
        assert jain_fq > 0.95, (workload, jain_fq)
        for queue in ("droptail", "red", "codel", "pie"):
            assert _mean(stats, queue, workload, "jain") < jain_fq - 0.1, (queue, workload)
