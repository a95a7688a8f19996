"""Algorithms' own state in the sampled series (``cc_*`` columns) and in the cwnd figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ccsim
import numpy as np
import pandas as pd
import pytest
from conftest import SMALL_DUMBBELL, requires_engine, run_cli

pytestmark = requires_engine

FIXED = ["t_s", "flow", "cwnd_pkts", "ssthresh_pkts", "srtt_s", "rate_bps"]

MIXED = """
name = "mixed"
seed = 3
duration = "4s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
buffer = "1bdp"

[trace]
sample_interval = "50ms"

[[flows]]
cc = "vegas"
rtt = "40ms"

[[flows]]
cc = "cubic"
rtt = "40ms"

[[flows]]
cc = "newreno"
rtt = "40ms"
"""


@pytest.fixture(scope="module")
def mixed() -> Any:
    return ccsim.run(ccsim.Scenario.from_toml(MIXED))


def test_state_columns_follow_the_fixed_ones_sorted_with_nan_elsewhere(mixed: Any) -> None:
    series = mixed.series
    assert list(series.columns) == [*FIXED, "cc_diff", "cc_k", "cc_w_max"]
    by_flow = series.groupby("flow")
    # Vegas (flow 0) reports diff only, CUBIC (flow 1) w_max and k, NewReno (flow 2) nothing.
    assert by_flow["cc_diff"].apply(lambda v: v.notna().any()).to_dict() == {
        0: True,
        1: False,
        2: False,
    }
    assert by_flow["cc_w_max"].apply(lambda v: v.notna().any()).to_dict() == {
        0: False,
        1: True,
        2: False,
    }
    diff = series.loc[series["flow"] == 0, "cc_diff"].dropna()
    assert (diff >= 0).all() and (diff == np.floor(diff)).all()  # packets, truncated as Linux


def test_state_columns_survive_parquet_unchanged(mixed: Any, tmp_path: Path) -> None:
    loaded = ccsim.Results.load(mixed.write(tmp_path / "run"))
    pd.testing.assert_frame_equal(loaded.series, mixed.series)
    again = ccsim.run(ccsim.Scenario.from_toml(MIXED)).write(tmp_path / "again")
    assert (again / "series.parquet").read_bytes() == (
        tmp_path / "run" / "series.parquet"
    ).read_bytes()


def test_algorithms_reporting_nothing_add_no_columns() -> None:
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"trace.sample_interval": "50ms"}
    )
    series = ccsim.run(scenario).series
    assert len(series) > 0
    assert list(series.columns) == FIXED


def test_cwnd_figure_draws_a_panel_per_state_column(mixed: Any, tmp_path: Path) -> None:
    from ccsim import plots

    figure = plots.cwnd_figure(mixed.series, title="mixed")
    window, *panels = figure.axes
    assert window.get_title() == "mixed" and window.get_ylabel() == "cwnd (packets)"
    assert [axes.get_ylabel() for axes in panels] == ["diff (packets)", "k (s)", "w_max (packets)"]
    assert panels[-1].get_xlabel() == "time (s)" and window.get_xlabel() == ""
    # one line per reporting flow, in that flow's colour in the window panel
    assert [line.get_label() for line in window.get_lines()] == ["flow 0", "flow 1", "flow 2"]
    (diff_line,) = panels[0].get_lines()
    assert diff_line.get_label() == "flow 0"
    assert diff_line.get_color() == window.get_lines()[0].get_color()
    vegas = mixed.series[mixed.series["flow"] == 0]
    np.testing.assert_array_equal(diff_line.get_ydata(), vegas["cc_diff"])
    plots.save(figure, tmp_path / "cwnd.png")
    assert (tmp_path / "cwnd.png").stat().st_size > 1000
    # chosen columns, or the window alone
    assert len(plots.cwnd_figure(mixed.series, state=["cc_w_max"]).axes) == 2
    assert len(plots.cwnd_figure(mixed.series, state=False).axes) == 1
    assert len(plots.cwnd_figure(mixed.series, flows=[2]).axes) == 1  # NewReno reports nothing
    with pytest.raises(ValueError, match="cc_nope"):
        plots.cwnd_figure(mixed.series, state=["cc_nope"])


def test_ccsim_plot_draws_the_state(mixed: Any, tmp_path: Path) -> None:
    run = mixed.write(tmp_path / "run")
    result = run_cli("plot", run, "-k", "cwnd", "-f", "svg", "-o", tmp_path / "svg", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    svg = (tmp_path / "svg" / "cwnd.svg").read_text()
    assert all(name in svg for name in ("cwnd (packets)", "diff", "w_max"))
