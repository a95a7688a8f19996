"""Every figure renders from a real small run, with the expected titles, labels and scales."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import EXAMPLES, HAVE_ENGINE, SMALL_DUMBBELL, requires_engine, run_cli

pytest.importorskip("matplotlib")

import ccsim
from ccsim import plots

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not HAVE_ENGINE:  # the figures are drawn from a real run
        pytest.skip("ccsim._core (the engine) is not built")
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"trace.sample_interval": "50ms", "trace.drops": "true", "topology.buffer": "10pkts"}
    )
    return ccsim.run(scenario).write(tmp_path_factory.mktemp("plots") / "small")


@pytest.fixture(scope="module")
def results(run_dir: Path) -> Any:
    return ccsim.Results.load(run_dir)


def labels(figure: Any) -> tuple[str, str, str]:
    (axes,) = figure.axes
    return axes.get_title(), axes.get_xlabel(), axes.get_ylabel()


def rendered(figure: Any, path: Path) -> bytes:
    plots.save(figure, path)
    data = path.read_bytes()
    assert len(data) > 1000
    return data


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (
            lambda r: plots.cwnd_figure(r.series),
            ("Congestion window", "time (s)", "cwnd (packets)"),
        ),
        (
            lambda r: plots.throughput_figure(r.series),
            ("Throughput", "time (s)", "throughput (Mb/s)"),
        ),
        (
            lambda r: plots.queue_figure(r.queues, link=0),
            ("Queue length", "time (s)", "queue length (packets)"),
        ),
        (lambda r: plots.flow_bars_figure(r.flows), ("Per-flow goodput", "flow", "goodput (Mb/s)")),
        (
            lambda r: plots.cdf_figure({"all": r.flows["goodput_bps"]}),
            ("CDF of goodput", "goodput (Mb/s)", "fraction of flows at or below"),
        ),
    ],
    ids=["cwnd", "throughput", "queue", "flows", "cdf"],
)
def test_each_figure_renders_with_its_labels(
    make: Any, expected: tuple[str, str, str], results: Any, tmp_path: Path
) -> None:
    figure = make(results)
    assert labels(figure) == expected
    assert rendered(figure, tmp_path / "figure.png").startswith(PNG_MAGIC)
    svg = rendered(figure, tmp_path / "figure.svg").decode()
    assert "<svg" in svg and expected[0].split()[0] in svg


def test_time_series_show_one_line_per_flow_in_the_right_units(results: Any) -> None:
    figure = plots.throughput_figure(results.series, flows=[0, 1])
    lines = figure.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["flow 0", "flow 1"]
    flow0 = results.series[results.series["flow"] == 0]
    np.testing.assert_allclose(lines[0].get_ydata(), flow0["rate_bps"] / 1e6)  # Mb/s
    assert figure.axes[0].get_legend() is not None


def test_bars_are_coloured_by_algorithm(results: Any) -> None:
    figure = plots.flow_bars_figure(results.flows)
    legend = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert legend == ["newreno", "reno"]
    heights = [patch.get_height() for patch in figure.axes[0].patches]
    assert sorted(heights) == pytest.approx(sorted(results.flows["goodput_bps"] / 1e6))


def test_untraced_runs_have_no_time_series() -> None:
    with pytest.raises(ValueError, match=r"trace\.sample_interval"):
        plots.cwnd_figure(pd.DataFrame())


# ---- metric against a sweep parameter ----------------------------------------------------------

RESPONSE = pd.DataFrame(
    {
        "loss": [0.001, 0.001, 0.01, 0.01, 0.1, 0.1] * 2,
        "algorithm": ["reno"] * 6 + ["newreno"] * 6,
        "goodput_bps": [9e6, 11e6, 3e6, 3e6, 1e6, 1e6, 8e6, 8e6, 2e6, 4e6, 1e6, 1e6],
    }
)


def test_metric_figure_error_bars_over_replicates(tmp_path: Path) -> None:
    figure = plots.metric_figure(RESPONSE, "loss", "goodput_bps", hue="algorithm")
    axes = figure.axes[0]
    assert labels(figure) == ("Goodput vs loss probability", "loss probability", "goodput (Mb/s)")
    # loss spans two decades and the metric is a throughput: log-log, as response curves are drawn
    assert axes.get_xscale() == "log" and axes.get_yscale() == "log"
    reno, _ = axes.containers
    np.testing.assert_allclose(reno.lines[0].get_ydata(), [10, 3, 1])  # means, Mb/s
    # 95% CI of the mean of (9, 11): t(0.975, 1) x std 1.414 / sqrt(2) = 12.706
    (segments,) = [reno.lines[2][0].get_segments()]
    low, high = segments[0][:, 1]
    # the t interval 10 -+ 12.7 would go below zero: a goodput cannot, so it stops there
    assert high - 10 == pytest.approx(12.7062, rel=1e-4) and low == 0
    assert segments[1][0, 1] == segments[1][1, 1]  # identical replicates: no spread
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["reno", "newreno"]
    assert rendered(figure, tmp_path / "metric.png").startswith(PNG_MAGIC)


def test_metric_figure_linear_when_values_are_close() -> None:
    table = RESPONSE.assign(loss=RESPONSE["loss"].map({0.001: 10.0, 0.01: 20.0, 0.1: 30.0}))
    figure = plots.metric_figure(table, "loss", "goodput_bps")
    assert figure.axes[0].get_xscale() == "linear" and figure.axes[0].get_yscale() == "linear"
    assert (
        plots.metric_figure(table, "loss", "goodput_bps", log_y=True).axes[0].get_yscale() == "log"
    )


def test_axis_labels_carry_units() -> None:
    assert plots.axis_label("bottleneck_rate_bps") == ("bottleneck rate (Mb/s)", 1e-6)
    assert plots.axis_label("rtt_s") == ("rtt (s)", 1.0)
    assert plots.axis_label("utilization")[0] == "bottleneck utilization (fraction)"


def test_save_refuses_other_formats(results: Any, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        plots.save(plots.cwnd_figure(results.series), tmp_path / "figure.jpg")


# ---- ccsim plot --------------------------------------------------------------------------------


def test_cli_plots_a_run(run_dir: Path, tmp_path: Path) -> None:
    result = run_cli("plot", run_dir, "--out", tmp_path / "figures", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    written = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert written == ["cdf.png", "cwnd.png", "flows.png", "queue.png", "throughput.png"]
    assert all((tmp_path / "figures" / name).read_bytes().startswith(PNG_MAGIC) for name in written)
    svg = run_cli("plot", run_dir, "-k", "cwnd", "-f", "svg", "-o", tmp_path / "svg", cwd=tmp_path)
    assert svg.returncode == 0, svg.stderr
    assert "cwnd (packets)" in (tmp_path / "svg" / "cwnd.svg").read_text()


@requires_engine
def test_cli_plots_a_sweep(tmp_path: Path, write_sweep: Any) -> None:
    path = write_sweep(
        'replicates = 2\n[axes]\n"topology.bottleneck_rate" = ["10Mbps", "20Mbps"]\n'
        '[compare]\nalgorithms = ["newreno"]\n'
    )
    result = ccsim.sweep(path, tmp_path / "out", workers=1)
    figure = plots.metric_figure(result.runs, "bottleneck_rate_bps", "goodput_bps", hue="algorithm")
    assert labels(figure) == (
        "Goodput vs bottleneck rate",
        "bottleneck rate (Mb/s)",
        "goodput (Mb/s)",
    )
    assert [t.get_text() for t in figure.axes[0].get_legend().get_texts()] == ["newreno", "reno"]
    result = run_cli("plot", tmp_path / "out", "--y", "goodput_bps", "--y", "jain", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    written = sorted(p.name for p in (tmp_path / "out" / "plots").iterdir())
    assert written == [
        "cdf_goodput.png",
        "goodput_bps_vs_bottleneck_rate_bps.png",
        "jain_vs_bottleneck_rate_bps.png",
    ]
    # a run inside the sweep: its figures go under the sweep's plots/, not into the run
    run = next((tmp_path / "out" / "runs").iterdir())
    single = run_cli("plot", run, "-k", "cwnd", cwd=tmp_path)
    assert single.returncode == 0, single.stderr
    assert (tmp_path / "out" / "plots" / run.name / "cwnd.png").is_file()
    assert not (run / "plots").exists()
    bad = run_cli("plot", tmp_path / "out", "--y", "nope", cwd=tmp_path)
    assert bad.returncode == 2 and "no column 'nope'" in bad.stderr


def test_cli_plot_of_a_non_results_directory(tmp_path: Path) -> None:
    result = run_cli("plot", tmp_path, cwd=tmp_path)
    assert result.returncode == 2
    assert "neither a sweep directory" in result.stderr


def test_legends_name_flows_by_label_and_colours_do_not_repeat() -> None:
    # Twelve flows with distinct labels, more than the palette's colours.
    t = np.linspace(0.0, 1.0, 5)
    series = pd.DataFrame(
        {"t_s": np.tile(t, 12), "flow": np.repeat(np.arange(12), 5), "cwnd_pkts": 1.0}
    )
    flows = pd.DataFrame({"flow": np.arange(12), "label": [f"cc{i}" for i in range(12)]})
    figure = plots.cwnd_figure(series, labels=plots.flow_labels(flows))
    lines = figure.axes[0].get_lines()
    assert [line.get_label() for line in lines] == [f"{i} cc{i}" for i in range(12)]
    # seven colour-blind-safe colours, then a line style: no two flows look alike
    assert len({(line.get_color(), line.get_linestyle()) for line in lines}) == 12
    # Identical labels say nothing: legends fall back to flow numbers.
    same = flows.assign(label="newreno")
    assert plots.flow_labels(same) is None


# ---- an algorithm's state ahead of the stack's ---------------------------------------------------


@requires_engine
def test_bbr_cwnd_figure_draws_bbrs_state_ahead_of_the_stacks(tmp_path: Path) -> None:
    # Under the linux profile the stack adds its DSACK, undo and F-RTO counts to BBR's six
    # columns: nine in all, past the panel limit. BBR's own take the panels, in its order.
    scenario = ccsim.Scenario.load(EXAMPLES / "bbr.toml").with_overrides({"duration": "1s"})
    results = ccsim.Results.load(ccsim.run(scenario).write(tmp_path / "bbr"))
    assert {"cc_dsacks", "cc_undos", "cc_spurious_timeouts"} <= set(results.series.columns)
    figure = plots.run_figures(results, ["cwnd"])["cwnd"]
    _, *panels = figure.axes
    assert [axes.get_ylabel() for axes in panels] == [
        "state (code)",
        "btlbw (packets/s)",
        "min_rtt (s)",
        "pacing_rate (packets/s)",
        "pacing_gain (factor)",
        "cwnd_gain (factor)",
    ]
    (note,) = figure.texts
    assert note.get_text().endswith(": dsacks, undos, spurious_timeouts")
    result = run_cli("plot", tmp_path / "bbr", "-k", "cwnd", "-f", "svg", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    svg = (tmp_path / "bbr" / "plots" / "cwnd.svg").read_text()
    assert all(name in svg for name in ("state (code)", "btlbw", "min_rtt", "pacing_rate"))


@requires_engine
def test_state_panels_put_the_stacks_columns_last() -> None:
    t = np.linspace(0.0, 1.0, 5)
    series = pd.DataFrame({"t_s": np.tile(t, 2), "flow": np.repeat([0, 1], 5), "cwnd_pkts": 1.0})
    for column in ("cc_undos", "cc_dsacks", "cc_hspp_state", "cc_zeta", "cc_w_max", "cc_k"):
        series[column] = 1.0
    # An algorithm the engine knows, in the order it reports; others by name; the stack's last.
    assert plots.state_order(list(series.columns[3:]), ["cubic"]) == [
        "cc_w_max",
        "cc_k",
        "cc_zeta",
        "cc_hspp_state",
        "cc_dsacks",
        "cc_undos",
    ]
    assert plots.state_order(list(series.columns[3:])) == [
        "cc_k",
        "cc_w_max",
        "cc_zeta",
        "cc_hspp_state",
        "cc_dsacks",
        "cc_undos",
    ]
    figure = plots.cwnd_figure(series, algorithms={0: "cubic", 1: "cubic"})
    assert [axes.get_ylabel() for axes in figure.axes[1:]] == [
        "w_max (packets)",
        "k (s)",
        "zeta (as reported)",
        "hspp_state (code)",
        "dsacks (count)",
        "undos (count)",
    ]
    # chosen explicitly, a stack column is drawn where it is asked for
    chosen = plots.cwnd_figure(series, state=["cc_undos", "cc_k"])
    assert [axes.get_ylabel() for axes in chosen.axes[1:]] == ["undos (count)", "k (s)"]
