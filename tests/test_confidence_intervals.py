"""Confidence intervals over replicates (ccsim.metrics.t_interval, mean_ci, ci_half_width), in
the figures over a sweep, and in the summary of a sweep's runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from ccsim import metrics, plots
from ccsim.sweeps import summarise_runs

# t(0.975, 3), from tables of Student's t: 3.182446305284263.
T_975_3 = 3.182446305284263


def test_t_interval_of_one_to_four_by_hand() -> None:
    """[1, 2, 3, 4]: mean 2.5, s = sqrt(5/3), half-width t(0.975, 3) s / sqrt(4)."""
    s = math.sqrt(((1 - 2.5) ** 2 + (2 - 2.5) ** 2 + (3 - 2.5) ** 2 + (4 - 2.5) ** 2) / 3)
    half = T_975_3 * s / 2
    interval = metrics.t_interval([1.0, 2.0, 3.0, 4.0])
    assert interval.mean == 2.5 and interval.n == 4
    assert interval.half_width == pytest.approx(half, rel=1e-12)
    assert half == pytest.approx(2.0543, abs=1e-4)
    assert (interval.low, interval.high) == pytest.approx((2.5 - half, 2.5 + half), rel=1e-12)


def test_t_interval_level_and_missing_values() -> None:
    wide = metrics.t_interval([1.0, 2.0, 3.0, 4.0], level=0.99)
    narrow = metrics.t_interval([1.0, 2.0, 3.0, 4.0], level=0.90)
    assert narrow.half_width < 2.0543 < wide.half_width
    # t(0.995, 3) = 5.840909
    assert wide.half_width == pytest.approx(5.840909 * math.sqrt(5 / 3) / 2, rel=1e-6)
    # NaNs are left out and not counted
    assert metrics.t_interval([1.0, np.nan, 3.0]) == metrics.t_interval([1.0, 3.0])
    for level in (0.0, 1.0, 95):
        with pytest.raises(ValueError, match="confidence level"):
            metrics.t_interval([1.0, 2.0], level=level)


def test_one_replicate_has_an_undefined_interval_not_a_zero_one() -> None:
    one = metrics.t_interval([7.0])
    assert one.mean == 7.0 and one.n == 1
    assert math.isnan(one.half_width) and math.isnan(one.low) and math.isnan(one.high)
    none = metrics.t_interval([np.nan])
    assert none.n == 0 and math.isnan(none.mean)
    # Identical replicates: the interval is defined and has no width.
    same = metrics.t_interval([3.0, 3.0, 3.0])
    assert same.half_width == 0.0 and same.low == same.high == 3.0


def test_ci_half_width_from_sd_and_n() -> None:
    half = metrics.ci_half_width([math.sqrt(5 / 3), 1.0, 2.0], [4, 1, 0])
    assert half[0] == pytest.approx(2.0543, abs=1e-4)
    assert np.isnan(half[1:]).all()


def test_mean_ci_per_group_in_order_of_appearance() -> None:
    frame = pd.DataFrame(
        {
            "cc": ["reno", "cubic", "reno", "reno", "reno", "cubic", "bbr"],
            "loss": [0.01, 0.01, 0.01, 0.01, 0.01, 0.01, np.nan],
            "goodput": [1.0, 10.0, 2.0, 3.0, 4.0, 12.0, 5.0],
        }
    )
    table = metrics.mean_ci(frame, ["cc", "loss"], "goodput")
    assert list(table.columns) == [
        "cc",
        "loss",
        "mean",
        "sd",
        "half_width",
        "ci_low",
        "ci_high",
        "n",
    ]
    assert table["cc"].tolist() == ["reno", "cubic", "bbr"]  # first appearance, NaN key kept
    reno, cubic, bbr = (table.iloc[i] for i in range(3))
    assert (reno["mean"], reno["n"]) == (2.5, 4)
    assert reno["half_width"] == pytest.approx(T_975_3 * math.sqrt(5 / 3) / 2)
    assert reno["ci_low"] == pytest.approx(2.5 - reno["half_width"])
    # two values 10 and 12: s = sqrt(2), so the half-width is t(0.975, 1) sqrt(2) / sqrt(2)
    assert cubic["half_width"] == pytest.approx(12.706205, rel=1e-6)
    assert bbr["n"] == 1 and math.isnan(bbr["half_width"]) and math.isnan(bbr["ci_high"])
    # No grouping: one row over everything.
    everything = metrics.mean_ci(frame, None, "goodput")
    assert len(everything) == 1 and everything["n"].iloc[0] == 7
    with pytest.raises(ValueError, match="no column 'nope'"):
        metrics.mean_ci(frame, "nope", "goodput")


def test_metric_figure_draws_no_bar_for_a_single_replicate() -> None:
    table = pd.DataFrame({"loss": [0.01, 0.01, 0.02], "goodput_bps": [1e6, 3e6, 2e6]})
    figure = plots.metric_figure(table, "loss", "goodput_bps", log_x=False)
    (container,) = figure.axes[0].containers
    segments = container.lines[2][0].get_segments()
    low, high = segments[0][:, 1]
    # 1 and 3 Mb/s: s = sqrt(2) Mb/s, half-width t(0.975, 1) sqrt(2) / sqrt(2) Mb/s
    # above the mean of 2 Mb/s; below it the bar stops at 0, as goodput cannot be negative.
    assert high - 2 == pytest.approx(12.706205, rel=1e-6)
    assert low == 0
    # The point of one run has an undefined interval: its bar is NaN (not drawn), not zero.
    assert np.isnan(segments[1]).all()


def test_sweep_summary_of_runs() -> None:
    runs = pd.DataFrame(
        {
            "algorithm": ["reno"] * 4 + ["cubic"] * 3,
            "seed": [1, 2, 3, 4, 1, 2, 3],
            "status": ["done"] * 4 + ["done", "failed", "pending"],
            "goodput_bps": [1.0, 2.0, 3.0, 4.0, 9.0, None, None],
            "jain": [1.0, 1.0, 1.0, 1.0, 0.5, 0.7, None],
        }
    )
    summary = summarise_runs(runs, ["algorithm", "seed"], ["goodput_bps", "jain"])
    assert summary[["algorithm", "metric"]].values.tolist() == [
        ["reno", "goodput_bps"],
        ["reno", "jain"],
        ["cubic", "goodput_bps"],
        ["cubic", "jain"],
    ]
    reno = summary.iloc[0]
    assert (reno["mean"], reno["n"], reno["points"]) == (2.5, 4, 4)
    assert reno["half_width"] == pytest.approx(T_975_3 * math.sqrt(5 / 3) / 2)
    assert summary.iloc[1]["half_width"] == 0.0
    # Only finished runs count: the failed run's jain is left out, one value remains.
    cubic_jain = summary.iloc[3]
    assert (cubic_jain["mean"], cubic_jain["n"], cubic_jain["points"]) == (0.5, 1, 3)
    assert math.isnan(cubic_jain["half_width"])
