"""The standard figures: time series of one run, per-flow bars, CDFs, and metrics over a sweep.

Each ``*_figure`` function takes result tables and returns a matplotlib
:class:`~matplotlib.figure.Figure` (no pyplot state, so it is safe in threads and scripts);
:func:`save` writes it as PNG or SVG. :func:`plot_run` and :func:`plot_sweep` make the whole set
for a results directory or a sweep directory (what ``ccsim plot`` does).

Figures are made to be printed: titled, axes labelled with units, 11-point text, thick lines,
a grid, legends outside the data. Every algorithm has one colour in every figure, colour-blind
safe (:mod:`ccsim.plots.palette`); per-flow lines of a run that mixes algorithms take their
algorithm's colour, flows of one algorithm told apart by line style. Error bars over replicates
are 95% confidence intervals of the mean (Student's t, :func:`ccsim.metrics.mean_ci`) within the
range the quantity can take (no negative goodput, no Jain's index above 1); a point of a single
replicate has none (its interval is undefined). :func:`run_figures` and :func:`sweep_figures` return the figures without writing
them (``ccsim report`` embeds them).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec

import numpy as np
import pandas as pd

from ccsim import metrics
from ccsim.plots import palette
from ccsim.plots.capacity import draw_capacity
from ccsim.results import Results

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ccsim.store import Store

__all__ = [
    "FORMATS",
    "STACK_STATE",
    "add_capacity",
    "axis_label",
    "cdf_figure",
    "cwnd_figure",
    "dualpi2_links",
    "flow_algorithms",
    "flow_bars_figure",
    "metric_figure",
    "numeric_axes",
    "outside_legend",
    "plot_run",
    "plot_sweep",
    "quantity_range",
    "queue_figure",
    "run_figures",
    "save",
    "state_columns",
    "state_label",
    "state_order",
    "sweep_figures",
    "throughput_figure",
    "tidy_log_ticks",
]

FORMATS = ("png", "svg")
P = ParamSpec("P")
#: More lines than this and the legend is left out (it would say nothing); past half of it the
#: legend takes two columns.
MAX_LEGEND = 24
#: Prefix of the ``series`` columns that carry an algorithm's own state (its ``inspect`` hook).
STATE_PREFIX = "cc_"
#: The cwnd figure draws at most this many state panels under the window.
MAX_STATE_PANELS = 6
#: The ``cc_*`` columns the stack adds to every flow's, whatever its algorithm: HyStart++'s phase
#: and baseline, and the counts of DSACKs, undos and spurious timeouts under SACK-based recovery
#: (crates/ccsim-core/src/cc/common/hystart_pp.rs, tcp/undo.rs). The cwnd figure draws them after
#: the algorithm's own, so that the stack's counts never crowd out what the algorithm decides by.
STACK_STATE = (
    "cc_hspp_state",
    "cc_hspp_css_baseline",
    "cc_dsacks",
    "cc_undos",
    "cc_spurious_timeouts",
)

_STYLE: dict[str, Any] = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.fontsize": 9,
    "lines.linewidth": 1.6,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
}

# Names and units of the columns a figure may show: (label, multiplier to the shown unit).
_LABELS: dict[str, tuple[str, float]] = {
    "t_s": ("time (s)", 1.0),
    "cwnd_pkts": ("cwnd (packets)", 1.0),
    "ssthresh_pkts": ("ssthresh (packets)", 1.0),
    "srtt_s": ("smoothed RTT (s)", 1.0),
    "rate_bps": ("throughput (Mb/s)", 1e-6),
    "goodput_bps": ("goodput (Mb/s)", 1e-6),
    "queue_pkts": ("queue length (packets)", 1.0),
    "avg_queue_pkts": ("average queue (packets)", 1.0),
    "utilization": ("bottleneck utilization (fraction)", 1.0),
    "jain": ("Jain's fairness index", 1.0),
    "loss_rate": ("loss rate (drops / packet sent)", 1.0),
    "loss": ("loss probability", 1.0),
    "drops": ("drops (packets)", 1.0),
    "retransmits": ("retransmissions (packets)", 1.0),
    "timeouts": ("timeouts", 1.0),
    "mean_completion_s": ("mean transfer time (s)", 1.0),
    "completion_s": ("transfer time (s)", 1.0),
    "relative_throughput": ("relative throughput (X / Reno)", 1.0),
    "reno_friendliness": ("Reno friendliness", 1.0),
    "flow": ("flow", 1.0),
}
_SUFFIXES = (
    ("_bps", "Mb/s", 1e-6),
    ("_s", "s", 1.0),
    ("_bytes", "KB", 1e-3),
    ("_pkts", "packets", 1.0),
)


def axis_label(column: str) -> tuple[str, float]:
    """A column's axis label with its unit, and the factor from the column's unit to it."""
    if column in _LABELS:
        return _LABELS[column]
    for suffix, unit, scale in _SUFFIXES:
        if column.endswith(suffix):
            return f"{column.removesuffix(suffix).replace('_', ' ')} ({unit})", scale
    return column.replace("_", " "), 1.0


def _quantity(column: str) -> str:
    """The label of a column without its unit: "goodput" for goodput_bps."""
    return axis_label(column)[0].split(" (")[0]


def _styled(make: Callable[P, Figure]) -> Callable[P, Figure]:
    """Build the figure under the print style: text and lines take the style's sizes when they
    are created, so the whole function runs inside it."""

    @functools.wraps(make)
    def styled(*args: P.args, **kwargs: P.kwargs) -> Figure:
        with _style():
            return make(*args, **kwargs)

    return styled


def _figure(title: str) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure  # matplotlib is slow to import: only to draw

    figure = Figure(figsize=(6.4, 4.0), layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title)
    return figure, axes


def _label(axes: Axes, x: str, y: str) -> tuple[float, float]:
    x_label, x_scale = axis_label(x)
    y_label, y_scale = axis_label(y)
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    return x_scale, y_scale


def _legend(axes: Axes, title: str | None = None) -> None:
    outside_legend(axes, title)


def outside_legend(axes: Axes, title: str | None = None, fontsize: float | None = None) -> None:
    """The legend of ``axes`` to the right of it, outside the data area, so that it never hides
    a line (the figure's constrained layout makes room for it); none past :data:`MAX_LEGEND`
    entries."""
    handles, _ = axes.get_legend_handles_labels()
    if 0 < len(handles) <= MAX_LEGEND:
        axes.legend(
            title=title,
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0.0,
            frameon=True,
            ncols=1 if len(handles) <= MAX_LEGEND // 2 else 2,
            fontsize=fontsize,
        )


def tidy_log_ticks(axes: Axes) -> None:
    """Label only the decades of a log axis spanning more than one, so labels cannot run into
    each other (matplotlib also labels minor ticks on short log spans)."""
    from matplotlib.ticker import LogLocator, NullFormatter

    for axis, scale in ((axes.xaxis, axes.get_xscale()), (axes.yaxis, axes.get_yscale())):
        if scale != "log":
            continue
        low, high = sorted(axis.get_view_interval())
        if low > 0 and high / low >= 10:
            axis.set_major_locator(LogLocator(base=10, numticks=8))
            axis.set_minor_formatter(NullFormatter())


# ---- one run -----------------------------------------------------------------------------------


def _per_flow_lines(
    series: pd.DataFrame,
    column: str,
    title: str,
    flows: Sequence[int] | None,
    labels: Mapping[int, str] | None,
    algorithms: Mapping[int, str] | None = None,
) -> Figure:
    chosen = _chosen_flows(series, flows)
    figure, axes = _figure(title)
    looks = _flow_looks(chosen, algorithms)
    labels = labels or _mixed_labels(chosen, algorithms)
    _draw_per_flow(axes, chosen, column, labels, looks)
    _legend(axes)
    return figure


def _chosen_flows(series: pd.DataFrame, flows: Sequence[int] | None) -> pd.DataFrame:
    if series.empty:
        raise ValueError("no sampled series: run the scenario with trace.sample_interval set")
    return series if flows is None else series[series["flow"].isin(list(flows))]


def _flow_looks(
    chosen: pd.DataFrame, algorithms: Mapping[int, str] | None
) -> dict[Any, palette.Look]:
    """A look per flow, the same in every panel of a figure. Flows of a run that mixes algorithms
    take their algorithm's colour (as in every other figure), flows sharing one told apart by
    line style; otherwise (one algorithm, or none known) each flow its own colour, a line style
    added past the palette's seven."""
    flows = sorted(int(f) for f in chosen["flow"].unique())
    ccs = {f: algorithms[f] for f in flows if algorithms and f in algorithms}
    if len(set(ccs.values())) > 1:
        return palette.looks(flows, ccs)
    n = len(palette.COLOURS)
    return {
        flow: palette.Look(
            palette.COLOURS[i % n],
            palette.LINE_STYLES[(i // n) % len(palette.LINE_STYLES)],
            palette.MARKERS[(i // n) % len(palette.MARKERS)],
        )
        for i, flow in enumerate(flows)
    }


def _mixed_labels(
    chosen: pd.DataFrame, algorithms: Mapping[int, str] | None
) -> dict[int, str] | None:
    """Legend names by algorithm where lines are coloured by it (a run mixing algorithms), so
    that the key says whose colour is whose."""
    flows = [int(f) for f in chosen["flow"].unique()]
    ccs = {f: algorithms[f] for f in flows if algorithms and f in algorithms}
    return ccs if len(set(ccs.values())) > 1 else None


def _draw_per_flow(
    axes: Axes,
    chosen: pd.DataFrame,
    column: str,
    labels: Mapping[int, str] | None,
    looks: Mapping[Any, palette.Look],
    *,
    x_label: bool = True,
) -> None:
    """One line of ``column`` per flow; flows with no value in it are left out."""
    x_scale, y_scale = _label(axes, "t_s", column)
    if not x_label:
        axes.set_xlabel("")
    for flow, samples in chosen.groupby("flow"):
        if samples[column].isna().all():
            continue
        name = f"{flow} {labels[flow]}" if labels and flow in labels else f"flow {flow}"
        axes.plot(
            samples["t_s"] * x_scale,
            samples[column] * y_scale,
            label=name,
            **looks[int(flow)].line(),
        )


def state_columns(series: pd.DataFrame) -> list[str]:
    """The ``cc_*`` columns of a series table that hold a value somewhere: what the flows'
    algorithms reported of their own state (Vegas's ``cc_diff``, CUBIC's ``cc_w_max``...)."""
    return [
        str(c)
        for c in series.columns
        if str(c).startswith(STATE_PREFIX) and series[c].notna().any()
    ]


def state_order(columns: Sequence[str], algorithms: Sequence[str] = ()) -> list[str]:
    """``columns`` (``cc_*`` names) in the order the cwnd figure gives them panels: each of
    ``algorithms``' own columns in the order the engine's algorithm reports them (the
    ``inspect`` names of ``ccsim algorithms``), algorithm by algorithm; then the others but the
    stack's (a Python algorithm's; any, without the engine) in name order; then the stack's
    (:data:`STACK_STATE`), in that order."""
    from ccsim.scenario import engine  # the registry is read only to order a figure's panels

    registry = engine.algorithm_registry() or {}
    present = set(columns)
    ordered: list[str] = []
    for cc in algorithms:
        for name in registry.get(cc, {}).get("inspect", ()):
            column = STATE_PREFIX + name
            if column in present and column not in ordered and column not in STACK_STATE:
                ordered.append(column)
    ordered += sorted(c for c in present if c not in ordered and c not in STACK_STATE)
    return ordered + [c for c in STACK_STATE if c in present]


def _chosen_algorithms(chosen: pd.DataFrame, algorithms: Mapping[int, str] | None) -> list[str]:
    """The algorithms of the chosen flows, each once, in the order of its first flow."""
    if not algorithms:
        return []
    flows = sorted(int(f) for f in chosen["flow"].unique())
    return list(dict.fromkeys(algorithms[f] for f in flows if f in algorithms))


def flow_labels(flows: pd.DataFrame) -> dict[int, str] | None:
    """Each flow's label, for legends, when the labels tell flows apart (else None)."""
    if flows.empty or flows["label"].nunique() <= 1:
        return None
    return dict(zip(flows["flow"].astype(int), flows["label"].astype(str), strict=True))


def flow_algorithms(flows: pd.DataFrame) -> dict[int, str] | None:
    """Each flow's algorithm (flow id -> ``cc``), to colour per-flow lines by algorithm."""
    if flows.empty or "cc" not in flows:
        return None
    return dict(zip(flows["flow"].astype(int), flows["cc"].astype(str), strict=True))


@_styled
def cwnd_figure(
    series: pd.DataFrame,
    flows: Sequence[int] | None = None,
    title: str = "Congestion window",
    labels: Mapping[int, str] | None = None,
    state: bool | Sequence[str] = True,
    algorithms: Mapping[int, str] | None = None,
) -> Figure:
    """cwnd (packets) over time, one line per flow (``flows``: which; default all; ``labels``:
    legend names by flow id).

    With ``state`` (the default), each ``cc_*`` column of the series that the chosen flows
    reported (an algorithm's own state: Vegas's diff, CUBIC's W_max and K, BBR's mode and
    model...) gets a panel under the window, sharing its time axis, one line per reporting flow
    in the flow's colour; at most :data:`MAX_STATE_PANELS` of them, chosen in this order
    (:func:`state_order`): the algorithms' own columns first, then the ones the stack adds to
    every flow (:data:`STACK_STATE`: HyStart++'s, and the DSACK, undo and F-RTO counts of the
    ``linux`` profile). Among an algorithm's own, those of an algorithm that ``algorithms``
    names and the engine knows come in the order it reports them (BBR: state, btlbw, min_rtt,
    pacing_rate, pacing_gain, cwnd_gain), algorithms in the order of their first flow; the
    rest (a Python algorithm's, or every column when ``algorithms`` is not given) in name order.
    ``state`` may instead list the columns to draw; ``False`` draws the window alone. Columns
    left out are named under the figure. ``algorithms`` (flow id -> algorithm) also colours a
    mixed run's flows by algorithm.
    """
    chosen = _chosen_flows(series, flows)
    left_out: list[str] = []
    if state is True:
        reported = state_order(state_columns(chosen), _chosen_algorithms(chosen, algorithms))
        columns, left_out = reported[:MAX_STATE_PANELS], reported[MAX_STATE_PANELS:]
    elif state is False:
        columns = []
    else:
        columns = list(state)
        missing = [c for c in columns if c not in chosen.columns]
        if missing:
            present = ", ".join(state_columns(chosen)) or "none"
            raise ValueError(f"no state column {missing[0]!r} in the series; present: {present}")
    if not columns:
        return _per_flow_lines(series, "cwnd_pkts", title, flows, labels, algorithms)
    figure = _window_and_state(chosen, columns, title, labels, algorithms)
    if left_out:
        names = ", ".join(c.removeprefix(STATE_PREFIX) for c in left_out)
        figure.text(0.01, 0.0, f"Not drawn (over {MAX_STATE_PANELS} panels): {names}", fontsize=9)
    return figure


def _window_and_state(
    chosen: pd.DataFrame,
    columns: Sequence[str],
    title: str,
    labels: Mapping[int, str] | None,
    algorithms: Mapping[int, str] | None,
) -> Figure:
    from matplotlib.figure import Figure  # matplotlib is slow to import: only to draw

    figure = Figure(figsize=(6.4, 4.0 + 1.7 * len(columns)), layout="constrained")
    panels = figure.subplots(
        1 + len(columns),
        1,
        sharex=True,
        squeeze=False,
        gridspec_kw={"height_ratios": [2.2] + [1.0] * len(columns)},
    )[:, 0]
    window, *rest = panels
    window.set_title(title)
    looks = _flow_looks(chosen, algorithms)
    labels = labels or _mixed_labels(chosen, algorithms)
    _draw_per_flow(window, chosen, "cwnd_pkts", labels, looks, x_label=False)
    _legend(window)
    for i, (axes, column) in enumerate(zip(rest, columns, strict=True)):
        _draw_per_flow(axes, chosen, column, labels, looks, x_label=i == len(columns) - 1)
        axes.set_ylabel(state_label(column))
        # The flows that report this state: a key of its own, as not every flow does.
        _legend(axes)
    return figure


#: Units of the state the engine's algorithms report (their ``inspect`` hooks, crates/.../cc).
_STATE_UNITS = {
    "w_max": "packets",
    "k": "s",
    "diff": "packets",
    "dwnd": "packets",
    "reno": "packets",
    "gamma": "packets",
    "floor": "packets",
    "pipe": "packets",
    "bwe": "packets/s",
    "avg_rtt": "s",
    "base_rtt": "s",
    "rtt_cong": "s",
    "qdelay": "s",
    "t": "s",
    "c": "fraction",
    "beta": "fraction",
    "losses": "count",
    "cuts": "count",
    "dsacks": "count",
    "undos": "count",
    "spurious_timeouts": "count",
    "btlbw": "packets/s",
    "pacing_rate": "packets/s",
    "min_rtt": "s",
    "pacing_gain": "factor",
    "cwnd_gain": "factor",
    "state": "code",
    "hspp_state": "code",
    "hspp_css_baseline": "s",
    "phase": "code",
    "region": "code",
    "trend": "code",
    "indication": "code",
    "mode": "code",
}


def state_label(column: str) -> str:
    """The axis label of a state column: its name without the prefix and its unit ("cc_w_max"
    -> "w_max (packets)"); "as reported" for a name whose unit is not known (alpha: segments per
    RTT for H-TCP and Illinois, a fraction for DCTCP; a Python algorithm's own names)."""
    name = column.removeprefix(STATE_PREFIX)
    return f"{name} ({_STATE_UNITS.get(name, 'as reported')})"


@_styled
def throughput_figure(
    series: pd.DataFrame,
    flows: Sequence[int] | None = None,
    title: str = "Throughput",
    labels: Mapping[int, str] | None = None,
    algorithms: Mapping[int, str] | None = None,
) -> Figure:
    """Sampled sending rate (Mb/s) over time, one line per flow."""
    return _per_flow_lines(series, "rate_bps", title, flows, labels, algorithms)


#: A DualPI2 link's two queues in the ``queues`` series: column prefix, legend name, colour.
DUALPI2_QUEUES = (("l", "L queue", palette.VERMILLION), ("c", "C queue", palette.BLUE))
#: Line styles that tell the links of a DualPI2 queue figure apart (each queue keeps its colour).
_LINK_STYLES = ("-", "--", ":", "-.")


def add_capacity(figure: Figure, scenario: Any) -> Figure:
    """The throughput figure of a run of ``scenario`` (a :class:`ccsim.Scenario`) with its
    bottleneck's capacity drawn under the flows when it changes (a rate schedule or a trace:
    :mod:`ccsim.plots.capacity`); the figure, for chaining:
    ``add_capacity(throughput_figure(results.series, ...), results.scenario)``."""
    axes = figure.axes[0]
    _, x_scale = axis_label("t_s")
    _, y_scale = axis_label("rate_bps")
    interval = scenario.trace.sample_interval or None
    topology = scenario.resolve()["topology"]
    if draw_capacity(axes, topology, scenario.duration, interval, x_scale=x_scale, y_scale=y_scale):
        outside_legend(axes)
    return figure


def dualpi2_links(queues: pd.DataFrame) -> list[int]:
    """The links of a ``queues`` series that run DualPI2 (that report their L queue)."""
    if "l_len_pkts" not in queues.columns:
        return []
    return sorted(int(n) for n in queues.loc[queues["l_len_pkts"].notna(), "link"].unique())


@_styled
def queue_figure(
    queues: pd.DataFrame, link: int | None = None, title: str = "Queue length"
) -> Figure:
    """Queue length (packets) over time at a monitored link (default: every one); RED's average
    queue as a dashed line where the link has one. Where a link runs DualPI2, two panels: the
    delay of its L and C queues (each head packet's waiting time), and their lengths, a line
    per queue (a link without DualPI2 drawn in the lengths panel as one line)."""
    if queues.empty:
        raise ValueError("no sampled queues: run the scenario with trace.sample_interval set")
    chosen = queues if link is None else queues[queues["link"] == link]
    dual = dualpi2_links(chosen)
    if dual:
        return _dualpi2_queue_figure(chosen, dual, title)
    figure, axes = _figure(title)
    x_scale, _ = _label(axes, "t_s", "queue_pkts")
    for i, (link_id, samples) in enumerate(chosen.groupby("link")):
        colour = palette.COLOURS[i % len(palette.COLOURS)]
        axes.step(
            samples["t_s"] * x_scale,
            samples["queue_pkts"],
            where="post",
            color=colour,
            label=f"link {link_id}",
        )
        if "avg_queue_pkts" in samples and samples["avg_queue_pkts"].notna().any():
            axes.plot(
                samples["t_s"] * x_scale,
                samples["avg_queue_pkts"],
                "--",
                color=colour,
                label=f"link {link_id} average",
            )
    _legend(axes)
    return figure


def _dualpi2_queue_figure(chosen: pd.DataFrame, dual: Sequence[int], title: str) -> Figure:
    """The DualPI2 form of :func:`queue_figure`: delay over length, L and C queues apart."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.4, 5.6), layout="constrained")
    delay_axes, length_axes = figure.subplots(2, 1, sharex=True)
    delay_axes.set_title(title)
    delay_axes.set_ylabel("queue delay (ms)")
    x_scale, _ = _label(length_axes, "t_s", "queue_pkts")
    for i, (link_id, samples) in enumerate(chosen.groupby("link")):
        style = _LINK_STYLES[i % len(_LINK_STYLES)]
        t = samples["t_s"] * x_scale
        if link_id not in dual:
            length_axes.step(
                t,
                samples["queue_pkts"],
                where="post",
                color=palette.NEUTRAL,
                linestyle=style,
                label=f"link {link_id}",
            )
            continue
        for prefix, name, colour in DUALPI2_QUEUES:
            label = f"link {link_id} {name}"
            look = {"where": "post", "color": colour, "linestyle": style, "label": label}
            delay_axes.step(t, samples[f"{prefix}_delay_s"] * 1e3, **look)
            length_axes.step(t, samples[f"{prefix}_len_pkts"], **look)
    _legend(delay_axes)
    if len(length_axes.get_lines()) > len(delay_axes.get_lines()):
        _legend(length_axes)
    return figure


@_styled
def flow_bars_figure(
    flows: pd.DataFrame, column: str = "goodput_bps", title: str | None = None
) -> Figure:
    """One bar per flow of ``column`` (goodput by default), coloured by algorithm."""
    figure, axes = _figure(title or f"Per-flow {_quantity(column)}")
    _, y_scale = _label(axes, "flow", column)
    looks = palette.looks(flows["cc"].astype(str).unique().tolist())
    hatches = {"-": None, "--": "//", ":": "..", "-.": "xx"}
    for cc, rows in flows.groupby("cc", sort=False):
        look = looks[str(cc)]
        axes.bar(
            rows["flow"],
            rows[column] * y_scale,
            color=look.colour,
            hatch=hatches[look.linestyle],
            edgecolor="white" if look.linestyle != "-" else None,
            label=str(cc),
        )
    axes.set_xticks(flows["flow"].tolist() if len(flows) <= 30 else axes.get_xticks())
    axes.grid(False, axis="x")
    _legend(axes, "algorithm")
    return figure


@_styled
def cdf_figure(
    groups: Mapping[str, Sequence[float] | pd.Series],
    column: str = "goodput_bps",
    title: str | None = None,
    log_x: bool = False,
) -> Figure:
    """Empirical CDFs of ``column`` values, one step line per group (e.g. per algorithm)."""
    figure, axes = _figure(title or f"CDF of {_quantity(column)}")
    x_scale, _ = _label(axes, column, "flow")
    axes.set_ylabel("fraction of flows at or below")
    looks = palette.looks([str(name) for name in groups])
    for name, values in groups.items():
        cdf = metrics.ecdf(values)
        axes.step(
            cdf["value"] * x_scale,
            cdf["p"],
            where="post",
            label=str(name),
            **looks[str(name)].line(),
        )
    axes.set_ylim(0, 1.02)
    if log_x:
        axes.set_xscale("log")
        tidy_log_ticks(axes)
    _legend(axes)
    return figure


# ---- over a sweep ------------------------------------------------------------------------------


@_styled
def metric_figure(
    table: pd.DataFrame,
    x: str,
    y: str,
    hue: str | None = None,
    log_x: bool | None = None,
    log_y: bool | None = None,
    title: str | None = None,
) -> Figure:
    """``y`` against ``x``, one line per ``hue`` value, mean and 95% CI over the rows of each
    (x, hue) (the replicates; Student's t). A point of one row has no error bar: its interval is
    undefined.

    Log axes by default where the field uses them: x when its values are positive and span at
    least two decades (loss rates); y too when x is log and y is a throughput (response curves).
    """
    data = table.dropna(subset=[y])
    data = data[pd.to_numeric(data[x], errors="coerce").notna()]
    if data.empty:
        raise ValueError(f"no numeric {x!r} values with a {y!r} to plot")
    xs = pd.to_numeric(data[x]).astype(float)
    if log_x is None:
        log_x = bool((xs > 0).all() and xs.max() / xs.min() >= 100)
    if log_y is None:
        log_y = bool(log_x and y.endswith("_bps") and (data[y] > 0).all())
    default = f"{_quantity(y)} vs {_quantity(x)}"
    figure, axes = _figure(title or default[:1].upper() + default[1:])
    x_scale, y_scale = _label(axes, x, y)
    groups = list(data.groupby(hue, sort=False)) if hue else [(None, data)]
    looks = palette.looks([str(name) for name, _ in groups])
    for name, rows in groups:
        stats = _mean_ci(rows, x, y)
        mean = stats["mean"].to_numpy(float)
        axes.errorbar(
            stats["x"].to_numpy(float) * x_scale,
            mean * y_scale,
            yerr=np.vstack([mean - stats["ci_low"], stats["ci_high"] - mean]) * y_scale,
            capsize=3,
            label=None if name is None else str(name),
            **looks[str(name)].points(),
        )
    if log_x:
        axes.set_xscale("log")
    if log_y:
        axes.set_yscale("log")
    tidy_log_ticks(axes)
    _legend(axes, hue)
    return figure


def _mean_ci(rows: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    """Mean of ``y`` per ``x`` (sorted) and its 95% confidence interval, ``ci_low`` to
    ``ci_high``, within the range ``y`` can take (:func:`quantity_range`); NaN for one row: no
    error bar is drawn."""
    numeric = rows.assign(x=pd.to_numeric(rows[x]).astype(float))
    table = metrics.mean_ci(numeric, "x", y, level=0.95).sort_values("x", kind="stable")
    low, high = quantity_range(y)
    table["ci_low"] = table["ci_low"].clip(lower=low, upper=high)
    table["ci_high"] = table["ci_high"].clip(lower=low, upper=high)
    return table.reset_index(drop=True)


#: Columns whose values are fractions, in [0, 1].
_FRACTIONS = frozenset({"jain", "loss_rate", "loss", "reno_friendliness_share"})
#: Columns that cannot be negative besides the quantities with a unit suffix.
_NONNEGATIVE = frozenset(
    {"utilization", "drops", "retransmits", "timeouts", "relative_throughput", "reno_friendliness"}
)


def quantity_range(column: str) -> tuple[float, float]:
    """The values a column can take, so that no interval drawn leaves them: [0, 1] for Jain's
    index and loss rates, [0, inf) for rates, times, sizes and counts, else any."""
    if column in _FRACTIONS:
        return 0.0, 1.0
    if column in _NONNEGATIVE or column.endswith(tuple(s for s, _, _ in _SUFFIXES)):
        return 0.0, float("inf")
    return float("-inf"), float("inf")


# ---- files -------------------------------------------------------------------------------------


def save(figure: Figure, path: str | os.PathLike[str]) -> Path:
    """Write ``figure`` as PNG or SVG (from the file's suffix); returns the path."""
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise ValueError(f"{path}: expected a .png or .svg file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _style():
        figure.savefig(path, format=fmt)
    return path


def _style() -> Any:
    from matplotlib import rc_context  # matplotlib is slow to import: only to draw

    return rc_context(_STYLE)  # type: ignore[arg-type]  # matplotlib types keys as literals


def plot_run(
    directory: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    fmt: str = "png",
    kinds: Sequence[str] | None = None,
) -> list[Path]:
    """Figures of one results directory into ``out`` (default ``DIRECTORY/plots``).

    Kinds: ``cwnd`` (with a panel per ``cc_*`` state column the algorithms reported),
    ``throughput``, ``queue`` (when the run was traced), ``flows`` (goodput per flow) and ``cdf``
    (of per-flow goodput). Returns the files written.
    """
    results = Results.load(directory)
    target = Path(out) if out is not None else Path(directory) / "plots"
    figures = run_figures(results, kinds)
    return [save(figure, target / f"{kind}.{fmt}") for kind, figure in figures.items()]


def run_figures(results: Any, kinds: Sequence[str] | None = None) -> dict[str, Figure]:
    """The figures of one run (a :class:`ccsim.Results`) by kind, as :func:`plot_run` draws
    them: ``cwnd``, ``throughput`` and ``queue`` when the run was traced, ``flows`` and ``cdf``;
    ``kinds`` chooses (an untraced kind asked for raises ValueError)."""
    name = results.scenario.name
    labels = flow_labels(results.flows)
    algorithms = flow_algorithms(results.flows)
    makers: dict[str, Callable[[], Figure]] = {
        "cwnd": lambda: cwnd_figure(
            results.series,
            title=f"{name}: congestion window",
            labels=labels,
            algorithms=algorithms,
        ),
        # A bottleneck whose rate changes (a schedule, a trace) has its capacity drawn under
        # the flows' rates.
        "throughput": lambda: add_capacity(
            throughput_figure(
                results.series, title=f"{name}: throughput", labels=labels, algorithms=algorithms
            ),
            results.scenario,
        ),
        "queue": lambda: queue_figure(
            results.queues,
            title=f"{name}: queue delay and length"
            if dualpi2_links(results.queues)
            else f"{name}: queue length",
        ),
        "flows": lambda: flow_bars_figure(results.flows, title=f"{name}: goodput per flow"),
        "cdf": lambda: cdf_figure(
            {"all flows": results.flows["goodput_bps"]}, title=f"{name}: CDF of flow goodput"
        ),
    }
    traced = {
        "cwnd": not results.series.empty,
        "throughput": not results.series.empty,
        "queue": not results.queues.empty,
    }
    wanted = list(kinds) if kinds else [k for k in makers if traced.get(k, True)]
    _check_kinds(wanted, makers)
    return {kind: makers[kind]() for kind in wanted}


def plot_sweep(
    store: Store,
    out: str | os.PathLike[str] | None = None,
    fmt: str = "png",
    y: Sequence[str] = ("goodput_bps", "jain", "utilization", "loss_rate"),
    x: str | None = None,
    hue: str | None = None,
    *,
    metric: bool = True,
    cdf: bool = True,
) -> list[Path]:
    """Figures of a sweep into ``out`` (default ``SWEEP/plots``).

    With ``metric``: each column of ``y`` (of the ``runs`` table) against ``x`` (default: every
    numeric sweep parameter), one line per ``hue`` value (default: the algorithm in a
    comparative sweep), mean and 95% CI over seeds. With ``cdf``: the CDF of per-flow goodput,
    one line per ``hue`` value. Returns the files written.
    """
    target = Path(out) if out is not None else store.root / "plots"
    figures = sweep_figures(store, y, x, hue, metric=metric, cdf=cdf)
    return [save(figure, target / f"{name}.{fmt}") for name, figure in figures.items()]


def sweep_figures(
    store: Store,
    y: Sequence[str] = ("goodput_bps", "jain", "utilization", "loss_rate"),
    x: str | None = None,
    hue: str | None = None,
    *,
    metric: bool = True,
    cdf: bool = True,
) -> dict[str, Figure]:
    """The figures of a sweep by file stem (``goodput_bps_vs_loss``, ``cdf_goodput``), as
    :func:`plot_sweep` draws them, without writing them."""
    runs = store.query("SELECT * FROM runs WHERE status = 'done'")
    if runs.empty:
        raise ValueError("no finished run in the sweep yet")
    columns = store.manifest()["columns"]
    hue = hue or ("algorithm" if "algorithm" in columns else None)
    for name in [x, hue, *y]:
        if name is not None and name not in runs.columns:
            raise ValueError(
                f"no column {name!r} in the runs table; expected one of: {', '.join(runs.columns)}"
            )
    figures: dict[str, Figure] = {}
    if metric:
        x_columns = [x] if x else numeric_axes(runs, columns)
        if not x_columns:
            raise ValueError("no numeric sweep parameter to put on the x axis; give --x")
        for x_column in x_columns:
            for y_column in y:
                figure = metric_figure(runs, x_column, y_column, hue=hue)
                figures[f"{y_column}_vs_{x_column}"] = figure
    if cdf:
        figures["cdf_goodput"] = _goodput_cdf(store, hue)
    return figures


def _goodput_cdf(store: Store, hue: str | None) -> Figure:
    selected = f'"{hue}", goodput_bps' if hue else "goodput_bps"
    flows = store.query(f"SELECT {selected} FROM flows")
    if hue:
        groups = {str(name): rows["goodput_bps"] for name, rows in flows.groupby(hue, sort=False)}
    else:
        groups = {"all flows": flows["goodput_bps"]}
    return cdf_figure(groups, title=f"{store.root.name}: CDF of flow goodput")


def numeric_axes(runs: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    """Sweep parameters to use as x: numeric ones, or the numeric twin of a quantity
    (``bottleneck_rate`` -> ``bottleneck_rate_bps``), when they take more than one value."""
    chosen = []
    for name in columns:
        if name in ("seed", "algorithm", "mixture"):
            continue
        twins = [
            c
            for c in runs.columns
            if c.startswith(f"{name}_") and c.removeprefix(f"{name}_") in ("bps", "s", "bytes")
        ]
        column = (
            name if pd.api.types.is_numeric_dtype(runs[name]) else (twins[0] if twins else None)
        )
        if column is not None and runs[column].nunique() > 1:
            chosen.append(column)
    return chosen


def _check_kinds(wanted: Sequence[str], makers: Mapping[str, Any]) -> None:
    for kind in wanted:
        if kind not in makers:
            raise ValueError(f"unknown plot kind {kind!r}; expected one of: {', '.join(makers)}")
