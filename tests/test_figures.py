"""Figures fit to publish: one colour per algorithm in every panel, legends clear of the data,
error bars inside the range a quantity can take, labels that do not run into each other, and
study timings a person reads at a glance. Drawn from small hand-made tables (no engine)."""

from __future__ import annotations

import dataclasses
import itertools
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from ccsim import plots, studies
from ccsim.plots import palette
from ccsim.scenario import engine
from ccsim.studies.console import duration_text, timing_line
from ccsim.studies.evidence import NONNEGATIVE, UNIT
from ccsim.studies.figures import study_figure
from ccsim.studies.model import FigureSpec, Settings
from ccsim.studies.tables import summarise
from matplotlib.colors import to_hex

SEEDS = (1, 2, 3)


def drawn(figure: Any) -> Any:
    """Lay the figure out and draw it as saving to PNG does; returns the renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def overlap(a: Any, b: Any) -> bool:
    """Whether two display boxes share more than a pixel's sliver."""
    return bool(min(a.x1, b.x1) - max(a.x0, b.x0) > 1 and min(a.y1, b.y1) - max(a.y0, b.y0) > 1)


def legends(figure: Any) -> list[Any]:
    found = [ax.get_legend() for ax in figure.axes if ax.get_legend() is not None]
    return found + list(figure.legends)


def assert_legends_clear_of_data(figure: Any) -> None:
    renderer = drawn(figure)
    boxes = legends(figure)
    assert boxes, "the figure has no legend"
    for legend, ax in itertools.product(boxes, figure.axes):
        if ax.get_visible():
            box = legend.get_window_extent(renderer)
            assert not overlap(box, ax.get_window_extent(renderer)), (
                f"legend over the data of {ax.get_title()!r}"
            )


def assert_tick_labels_apart(ax: Any, renderer: Any, axis: str = "x") -> None:
    ticks = getattr(ax, f"get_{axis}ticklabels")()
    boxes = [t.get_window_extent(renderer) for t in ticks if t.get_visible() and t.get_text()]
    for a, b in itertools.pairwise(sorted(boxes, key=lambda box: box.x0 + box.y0)):
        assert not overlap(a, b), f"tick labels overlap on {ax.get_title()!r}"


# ---- the palette -------------------------------------------------------------------------------


def test_every_engine_algorithm_has_its_own_fixed_colour() -> None:
    registry = engine.algorithm_registry()
    if registry is None:
        pytest.skip("ccsim._core (the engine) is not built")
    assert set(registry) <= set(palette.ALGORITHM_COLOURS), "give a new algorithm its colour"
    assert set(palette.ALGORITHM_COLOURS.values()) <= set(palette.COLOURS)


def test_labels_name_their_algorithm() -> None:
    assert palette.algorithm_of("HSTCP") == "highspeed"
    assert palette.algorithm_of("Paced Reno") == "paced"
    assert palette.algorithm_of("newreno (ccsim)") == "newreno"
    assert palette.algorithm_of("Randomized alpha=1 (diagnostic)") == "randomized"
    assert palette.algorithm_of("FD w=8") is None and palette.algorithm_of("40 ms") is None
    # the same name the same colour, whatever else the figure shows and in whatever order
    one = palette.looks(["highspeed", "reno", "westwood", "bic"])
    other = palette.looks(["HSTCP", "bic", "westwood"], {"HSTCP": "highspeed"})
    assert (
        one["highspeed"].colour == other["HSTCP"].colour == palette.ALGORITHM_COLOURS["highspeed"]
    )
    assert one["westwood"].colour != one["bic"].colour


def test_more_series_than_colours_differ_by_line_style() -> None:
    names = list(palette.ALGORITHM_COLOURS)[:14]
    looks = palette.looks(names)
    assert len({(look.colour, look.linestyle) for look in looks.values()}) == 14
    # configurations that are no algorithm: distinct colours while some are free
    configs = palette.looks(["TCP", "FD w=8", "FD w=16", "FD w=32"], {"TCP": "newreno"})
    assert len({look.colour for look in configs.values()}) == 4
    assert configs == palette.looks(["FD w=32", "FD w=16", "TCP", "FD w=8"], {"TCP": "newreno"})


# ---- a study figure ----------------------------------------------------------------------------


def records(rows: dict[tuple[str, int], tuple[float, float]]) -> list[dict[str, Any]]:
    """Per-seed records of goodput (near zero for some: intervals meet the bound) and Jain's
    index (near one)."""
    out = []
    rng = np.random.default_rng(7)
    for (tcp, n), (goodput, jain) in rows.items():
        for seed in SEEDS:
            key = {"tcp": tcp, "N": n, "seed": seed}
            out.append(key | {"metric": "goodput Mb/s", "value": goodput * rng.uniform(0.1, 1.9)})
            out.append(
                key | {"metric": "Jain index", "value": min(1.0, jain + rng.normal(0, 0.05))}
            )
    return out


TCPS = ("Reno", "Paced", "Randomized", "HSTCP")


@pytest.fixture(scope="module")
def line_table() -> pd.DataFrame:
    rows = {(tcp, n): (0.05 * (i + 1), 0.97) for i, tcp in enumerate(TCPS) for n in (2, 4, 8)}
    bounds = {"goodput Mb/s": NONNEGATIVE, "Jain index": UNIT}
    published = {("Reno", 4, "Jain index"): 0.9, ("HSTCP", 4, "Jain index"): 0.8}
    return summarise(records(rows), ["tcp", "N"], published, bounds)


def line_study() -> Any:
    return dataclasses.replace(
        studies.get("R2"), figure=FigureSpec("test", x="N", hue="tcp", xlabel="flows N")
    )


def test_a_study_figure_gives_each_algorithm_one_colour_in_every_panel(
    line_table: pd.DataFrame,
) -> None:
    figure = study_figure(line_study(), Settings(quick=True), line_table)
    colours: dict[str, set[str]] = {}
    for ax in figure.axes:
        # ours: error-bar containers (their line carries the colour); the paper's: plain lines
        drawn_lines = [(c.get_label(), c.lines[0]) for c in ax.containers]
        drawn_lines += [(line.get_label(), line) for line in ax.get_lines()]
        for label, line in drawn_lines:
            name = str(label).removesuffix(" (ccsim)").removesuffix(" (paper)")
            if not name.startswith("_"):
                colours.setdefault(name, set()).add(to_hex(line.get_color()))
    assert set(colours) == set(TCPS)
    assert all(len(seen) == 1 for seen in colours.values()), colours
    for tcp in TCPS:
        algorithm = palette.algorithm_of(tcp)
        assert algorithm is not None
        assert colours[tcp] == {palette.ALGORITHM_COLOURS[algorithm].lower()}
    assert_legends_clear_of_data(figure)


def test_study_error_bars_stay_within_the_quantity_range(line_table: pd.DataFrame) -> None:
    # the same table without declared ranges: the figure still keeps goodput >= 0, Jain <= 1
    unbounded = line_table.assign(
        ci_low=line_table["ours"] - 5.0, ci_high=line_table["ours"] + 5.0, replicates=None
    )
    for table in (line_table, unbounded):
        figure = study_figure(line_study(), Settings(quick=True), table)
        low, high = {"goodput Mb/s": (0.0, np.inf), "Jain index": (0.0, 1.0)}.values()
        for ax in figure.axes:
            lo, hi = low if ax.get_title() == "goodput Mb/s" else high
            segments = [
                seg for c in ax.containers for col in c.lines[2] for seg in col.get_segments()
            ]
            assert segments, f"no error bars in {ax.get_title()!r}"
            ys = np.concatenate([seg[:, 1] for seg in segments])
            assert ys.min() >= lo - 1e-12 and ys.max() <= hi + 1e-12, ax.get_title()
    # the hand-made goodputs spread widely near zero: the t interval itself would go below it
    goodput = line_table[line_table["metric"] == "goodput Mb/s"]
    assert (goodput["ci_low"] == 0).any()


def test_bars_of_many_rows_keep_their_labels_apart_and_colours_by_algorithm() -> None:
    rows = []
    for queue, algorithm, flow, seed in itertools.product(
        ("droptail", "red"), ("reno", "fusion", "fusion-rf"), range(4), SEEDS
    ):
        key = {"queue": queue, "algorithm": algorithm, "flow": flow, "seed": seed}
        rows.append(key | {"metric": "goodput Mb/s", "value": 10.0 + flow + seed})
        rows.append(key | {"metric": "losses", "value": float(seed)})
    table = summarise(rows, ["queue", "algorithm", "flow"], bounds={"losses": NONNEGATIVE})
    study = dataclasses.replace(studies.get("H2"), figure=FigureSpec("bars"))
    figure = study_figure(study, Settings(quick=True), table)
    renderer = drawn(figure)
    for ax in figure.axes:
        if not ax.get_visible():
            continue
        assert_tick_labels_apart(ax, renderer)
        filled = [p for p in ax.patches if p.get_fill() and p.get_facecolor()[:3] != (1, 1, 1)]
        assert len(filled) == 24  # ours, one per row
        by_label = table[table["metric"] == ax.get_title()]["algorithm"].tolist()
        for patch, algorithm in zip(filled, by_label, strict=True):
            assert to_hex(patch.get_facecolor()) == palette.ALGORITHM_COLOURS[algorithm].lower()
    assert_legends_clear_of_data(figure)


# ---- the figures of runs and sweeps ------------------------------------------------------------


def hand_series() -> pd.DataFrame:
    t = np.linspace(0.0, 2.0, 21)
    frames = []
    for flow in range(3):
        frame = pd.DataFrame({"t_s": t, "flow": flow, "cwnd_pkts": 10.0 + flow + 5 * t})
        frame["rate_bps"] = 1e6 * (flow + 1)
        frame["cc_diff"] = 2.0 if flow != 1 else np.nan
        frame["cc_w_max"] = 20.0 if flow == 1 else np.nan
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_run_figures_keep_legends_off_the_data_and_name_state_units() -> None:
    algorithms = {0: "vegas", 1: "cubic", 2: "vegas"}
    figure = plots.cwnd_figure(hand_series(), title="mixed", algorithms=algorithms)
    window, diff, w_max = figure.axes
    assert [diff.get_ylabel(), w_max.get_ylabel()] == ["diff (packets)", "w_max (packets)"]
    # each state panel names the flows that report it; colours are the algorithms'
    assert [t.get_text() for t in diff.get_legend().get_texts()] == ["0 vegas", "2 vegas"]
    assert [t.get_text() for t in w_max.get_legend().get_texts()] == ["1 cubic"]
    lines = window.get_lines()
    assert to_hex(lines[1].get_color()) == palette.ALGORITHM_COLOURS["cubic"].lower()
    assert lines[0].get_color() == lines[2].get_color()  # both Vegas: told apart by style
    assert lines[0].get_linestyle() != lines[2].get_linestyle()
    assert_legends_clear_of_data(figure)
    flows = pd.DataFrame(
        {"flow": [0, 1, 2], "cc": ["westwood", "bic", "westwood"], "goodput_bps": [1e6, 2e6, 3e6]}
    )
    bars = plots.flow_bars_figure(flows)
    colours = {c.get_label(): to_hex(c.patches[0].get_facecolor()) for c in bars.axes[0].containers}
    assert colours["westwood"] != colours["bic"]
    assert_legends_clear_of_data(bars)


def test_sweep_figure_intervals_clipped_and_log_ticks_apart() -> None:
    loss = [1e-4, 1e-3, 1e-2, 1e-1]
    table = pd.DataFrame(
        {
            "loss": np.repeat(loss, 3).tolist() * 2,
            "algorithm": ["reno"] * 12 + ["cubic"] * 12,
            "jain": [1.0, 0.9, 1.0] * 8,
            "goodput_bps": [1e5, 9e6, 2e5] * 8,
        }
    )
    for column, (low, high) in (("jain", (0.0, 1.0)), ("goodput_bps", (0.0, np.inf))):
        figure = plots.metric_figure(table, "loss", column, hue="algorithm")
        (ax,) = figure.axes
        scale = 1e-6 if column.endswith("_bps") else 1.0
        ys = np.concatenate(
            [s[:, 1] for c in ax.containers for col in c.lines[2] for s in col.get_segments()]
        )
        assert ys.min() >= low * scale - 1e-12 and ys.max() <= high * scale + 1e-12
        assert_legends_clear_of_data(figure)
        assert_tick_labels_apart(ax, drawn(figure))


# ---- study timing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.4, "0.4 s"),
        (4.2, "4 s"),
        (59.4, "59 s"),
        (61.0, "1.0 min"),
        (852, "14.2 min"),
        (9000, "2.5 h"),
    ],
)
def test_durations_read_in_seconds_minutes_or_hours(seconds: float, text: str) -> None:
    assert duration_text(seconds) == text


def test_timing_line_says_seconds_under_a_minute() -> None:
    report = SimpleNamespace(
        study=SimpleNamespace(id="R10"), runs=6, reused=6, elapsed_s=4.1, workers=2
    )
    assert timing_line(report) == "R10: 6 runs (6 reused) in 4 s on 2 workers"  # type: ignore[arg-type]
