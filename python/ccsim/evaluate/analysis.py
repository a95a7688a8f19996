"""What the battery measures in each run, and the summary over seeds.

Each run gives a few :class:`~ccsim.evaluate.battery.Measurement` s; :func:`summarise` gathers
them per test, metric and condition into one :class:`~ccsim.studies.evidence.Quantity` per
algorithm (a value per seed), and compares the evaluated algorithm with each baseline on their
per-seed differences (the runs of one seed share their random draws, so the difference carries
less noise than the two means apart).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ccsim.evaluate.battery.common import RATE_BPS, RTT_S, Measurement, TestSweep
from ccsim.evaluate.battery.convergence import (
    CONVERGENCE_JAIN,
    CONVERGENCE_STEP_S,
    CONVERGENCE_WINDOW_S,
    join_time,
)
from ccsim.evaluate.battery.inter_protocol import INTER_QUEUES
from ccsim.evaluate.battery.intra_fairness import FAIRNESS_RTTS_MS
from ccsim.evaluate.battery.random_loss import mathis_bps
from ccsim.evaluate.battery.rate_step import STEP_HIGH_BPS, STEP_LOW_BPS, step_times
from ccsim.evaluate.battery.short_flows import SHORT_CLASSES
from ccsim.metrics import jain_index
from ccsim.results import Results
from ccsim.studies.evidence import NONNEGATIVE, UNIT, Bounds, Quantity

__all__ = [
    "METRICS",
    "TABLES_READ",
    "Comparison",
    "SummaryRow",
    "derive_harm",
    "measure_run",
    "summarise",
]


@dataclass(frozen=True)
class Metric:
    unit: str
    bounds: Bounds
    #: How a value is printed (after scaling to ``unit``).
    fmt: str


METRICS: dict[str, Metric] = {
    "utilization": Metric("%", (0.0, 100.0), "{:.1f}"),
    "mean queue delay": Metric("ms", NONNEGATIVE, "{:.1f}"),
    "p95 queue delay": Metric("ms", NONNEGATIVE, "{:.1f}"),
    "goodput": Metric("Mb/s", NONNEGATIVE, "{:.2f}"),
    "goodput / Mathis": Metric("", NONNEGATIVE, "{:.2f}"),
    "Jain index": Metric("", UNIT, "{:.3f}"),
    "RTT exponent": Metric("", (-math.inf, math.inf), "{:.2f}"),
    "10 ms / 200 ms goodput": Metric("", NONNEGATIVE, "{:.2f}"),
    "convergence time": Metric("s", NONNEGATIVE, "{:.1f}"),
    "share": Metric("%", (0.0, 100.0), "{:.1f}"),
    "throughput harm": Metric("%", (-math.inf, 100.0), "{:.1f}"),
    "delay harm": Metric("%", (-math.inf, 100.0), "{:.1f}"),
    "median completion time": Metric("ms", NONNEGATIVE, "{:.0f}"),
    "p95 completion time": Metric("ms", NONNEGATIVE, "{:.0f}"),
    # The paths' utilization: on a trace link the share of the trace's mean capacity, which a
    # run can exceed a little (the trace's opportunities carry any packet size), so not capped.
    "capacity used": Metric("%", NONNEGATIVE, "{:.1f}"),
    "mean RTT": Metric("ms", NONNEGATIVE, "{:.1f}"),
    "time to 90% utilization": Metric("s", NONNEGATIVE, "{:.2f}"),
    "queue peak": Metric("ms", NONNEGATIVE, "{:.0f}"),
}

#: The rate-step test smooths each flow's sampled goodput over this many samples (100 ms)
#: before asking when it reaches 90% of the link.
SMOOTHING_SAMPLES = 10

RTT_CONDITION = "RTT 10, 50, 100, 200 ms"
RTT_RATIO = "10 ms / 200 ms goodput"

_QUEUE_NAMES = {"droptail": "DropTail 1 BDP", "fq_codel": "FQ-CoDel", "dualpi2": "DualPI2"}


def queue_name(queue: str) -> str:
    return _QUEUE_NAMES.get(queue, queue)


def derive_harm(measurements: Sequence[Measurement], baselines: Sequence[str]) -> list[Measurement]:
    """Harm in both directions (Ware et al., HotNets 2019), per queue, baseline and seed, from
    the inter-protocol runs' raw goodputs and RTTs: ALG's harm to a baseline B compares B's
    flow against ALG with B's flow against B (the opponent flow in both runs: the same start
    under the same seed); B's harm to ALG compares ALG's flow against B with ALG's against ALG
    (the subject flow in both). Goodput is more-is-better, harm = (x - y) / x; RTT is
    less-is-better, harm = (y - x) / y; x is the reference (against itself), y against the other
    algorithm. In percent; negative when the other algorithm helps."""
    raw: dict[tuple[str, str, str, int], float] = {}
    queues: dict[str, float] = {}
    for m in measurements:
        if m.test == "inter-protocol" and m.metric.startswith("_"):
            queue, _, opponent = m.condition.partition(" vs ")
            raw[(m.metric, m.role, f"{queue}|{opponent}", m.seed)] = m.value
            queues[queue] = m.order
    out = []
    seeds = sorted({key[3] for key in raw})
    for queue, order in sorted(queues.items(), key=lambda item: item[1]):
        for b_index, baseline in enumerate(baselines):
            for seed in seeds:

                def get(
                    metric: str, role: str, opponent: str, queue: str = queue, seed: int = seed
                ) -> float:
                    return raw.get((metric, role, f"{queue}|{opponent}", seed), math.nan)

                pairs = {
                    ("throughput harm", "to"): (
                        get("_opponent goodput", baseline, baseline),
                        get("_opponent goodput", "alg", baseline),
                    ),
                    ("delay harm", "to"): (
                        get("_opponent RTT", baseline, baseline),
                        get("_opponent RTT", "alg", baseline),
                    ),
                    ("throughput harm", "from"): (
                        get("_subject goodput", "alg", "alg"),
                        get("_subject goodput", "alg", baseline),
                    ),
                    ("delay harm", "from"): (
                        get("_subject RTT", "alg", "alg"),
                        get("_subject RTT", "alg", baseline),
                    ),
                }
                for (metric, direction), (alone, beside) in pairs.items():
                    if metric == "throughput harm":
                        value = (alone - beside) / alone if alone > 0 else math.nan
                    else:
                        value = (beside - alone) / beside if beside > 0 else math.nan
                    if math.isnan(value):
                        continue
                    condition = f"{queue_name(queue)}, {direction} {baseline}"
                    sort = order * 100 + b_index * 2 + (direction == "from")
                    out.append(
                        Measurement(
                            "inter-protocol", metric, condition, "alg", seed, 100 * value, sort
                        )
                    )
    return out


#: The result tables each test's measurements read (the others are not loaded).
TABLES_READ: dict[str, tuple[str, ...]] = {
    "single-flow": ("links", "queues"),
    "random-loss": ("flows",),
    "intra-fairness": ("flows",),
    "convergence": ("series",),
    "inter-protocol": ("flows",),
    "short-flows": ("flows",),
    "rate-step": ("series", "queues"),
    "paths": ("flows", "links"),
}


def measure_run(sweep: TestSweep, params: dict[str, Any], results: Results) -> list[Measurement]:
    """The measurements of one run of ``sweep`` at the point ``params`` (its axis values and
    seed)."""
    seed = int(params["seed"])
    role = sweep.role
    test = sweep.test

    def m(metric: str, condition: str, value: float, order: float = 0.0) -> Measurement:
        return Measurement(test, metric, condition, role, seed, float(value), order)

    flows = results.flows
    if test == "single-flow":
        bdp = float(str(params["buffer"]).removesuffix("bdp"))
        condition = f"buffer {bdp:g} BDP"
        links = results.links
        utilization = float(links.loc[links["link"] == 0, "utilization"].iloc[0])
        queue = results.queues
        queue = queue[(queue["link"] == 0) & (queue["t_s"] >= sweep.warmup_s)]
        delay_ms = queue["queue_bytes"].to_numpy(dtype=float) * 8 / RATE_BPS * 1e3
        return [
            m("utilization", condition, 100 * utilization, bdp),
            m("mean queue delay", condition, float(np.mean(delay_ms)), bdp),
            m("p95 queue delay", condition, float(np.percentile(delay_ms, 95)), bdp),
        ]
    if test == "random-loss":
        loss = float(params["loss"])
        goodput = float(flows["goodput_bps"].sum())
        condition = f"loss {loss:g}"
        return [
            m("goodput", condition, goodput / 1e6, loss),
            m("goodput / Mathis", condition, goodput / mathis_bps(loss, RTT_S), loss),
        ]
    if test == "intra-fairness":
        if "flow_count" in params:
            n = int(params["flow_count"])
            return [m("Jain index", f"{n} flows", jain_index(flows["goodput_bps"]), n)]
        by_label = flows.groupby("label")["goodput_bps"].sum()
        goodputs = [float(by_label[f"rtt{ms}ms"]) for ms in FAIRNESS_RTTS_MS]
        short, long_ = goodputs[0], goodputs[-1]
        condition = RTT_CONDITION
        ratio = short / long_ if long_ > 0 else float("nan")
        return [
            *(
                m("goodput", f"RTT {ms} ms", g / 1e6, ms)
                for ms, g in zip(FAIRNESS_RTTS_MS, goodputs, strict=True)
            ),
            m("Jain index", condition, jain_index(goodputs), 100),
            m(RTT_RATIO, condition, ratio, 100),
            m("RTT exponent", condition, rtt_exponent(FAIRNESS_RTTS_MS, goodputs), 100),
        ]
    if test == "convergence":
        duration = float(results.summary["duration_s"])
        time = convergence_time(results.series, join_time(duration), duration)
        return [m("convergence time", "second flow joins", time, 0)]
    if test == "inter-protocol":
        assert sweep.opponent is not None and sweep.opponent_role is not None
        by_label = flows.set_index("label")
        goodput = by_label["goodput_bps"].astype(float)
        rtt = by_label["mean_rtt_s"].astype(float)
        queue = str(params["queue"])
        order = float(INTER_QUEUES.index(queue)) if queue in INTER_QUEUES else 9.0
        # The raw numbers harm is computed from (derive_harm), kept under the queue and the
        # opponent's role; not summarised.
        raw = f"{queue} vs {sweep.opponent_role}"
        out = [
            m(f"_{who} goodput", raw, goodput[who], order) for who in ("subject", "opponent")
        ] + [m(f"_{who} RTT", raw, rtt[who], order) for who in ("subject", "opponent")]
        if sweep.opponent_role == "alg" and role == "alg":
            return out  # ALG against itself: the reference for harm, not a share
        total = float(goodput.sum())
        share = float(goodput["subject"]) / total if total > 0 else float("nan")
        condition = f"{queue_name(queue)}, against {sweep.opponent.name}"
        return [*out, m("share", condition, 100 * share, order)]
    if test == "short-flows":
        duration = float(results.summary["duration_s"])
        web = flows[flows["label"] != "background"]
        # A transfer unfinished at the end counts with the time it had (a lower bound).
        times = np.where(
            web["completed"].astype(bool),
            web["completion_s"].astype(float),
            duration - web["start_s"].astype(float),
        )
        sizes = web["size_bytes"].to_numpy(dtype=float)
        out = []
        low = 0.0
        for i, (high, label) in enumerate(SHORT_CLASSES):
            chosen = times[(sizes >= low) & (sizes < high)] * 1e3
            low = high
            if not len(chosen):
                continue
            out.append(m("median completion time", label, float(np.median(chosen)), i))
            out.append(m("p95 completion time", label, float(np.percentile(chosen, 95)), i))
        return out
    if test == "paths":
        links = results.links
        utilization = float(links.loc[links["link"] == 0, "utilization"].iloc[0])
        rtt_ms = float(flows["mean_rtt_s"].iloc[0]) * 1e3
        return [
            m("capacity used", sweep.condition, 100 * utilization, sweep.order),
            m("mean RTT", sweep.condition, rtt_ms, sweep.order),
        ]
    if test == "rate-step":
        duration = float(results.summary["duration_s"])
        down, up = step_times(duration)
        series = results.series
        goodput = series.groupby("t_s")["rate_bps"].sum().sort_index()
        smooth = goodput.rolling(SMOOTHING_SAMPLES, min_periods=1).mean()
        queue = results.queues
        queue = queue[(queue["link"] == 0) & (queue["t_s"] >= down) & (queue["t_s"] < up)]
        peak_ms = float(queue["queue_bytes"].max()) * 8 / STEP_LOW_BPS * 1e3
        return [
            m("time to 90% utilization", "after the start", _time_to(smooth, 0.0, down), 0),
            m("time to 90% utilization", "after the step up", _time_to(smooth, up, duration), 2),
            m("queue peak", "after the step down to 20 Mb/s", peak_ms, 1),
        ]
    raise ValueError(f"no measurements for test {test!r}")


def rtt_exponent(rtts_ms: Sequence[float], goodputs: Sequence[float]) -> float:
    """The slope of log goodput against log RTT, fitted by least squares: goodput grows as
    RTT to this power (0: RTT-fair; -1: goodput inversely proportional to RTT). A flow with no
    goodput counts as 1 kb/s, so that its logarithm is finite."""
    x = np.log(np.asarray(rtts_ms, dtype=float))
    y = np.log(np.maximum(np.asarray(goodputs, dtype=float), 1e3))
    return float(np.polyfit(x, y, 1)[0])


def convergence_time(series: pd.DataFrame, join: float, end: float) -> float:
    """Seconds from ``join`` until Jain's index of the flows' goodputs, over every window of
    :data:`CONVERGENCE_WINDOW_S` starting on a :data:`CONVERGENCE_STEP_S` grid from then to the
    run's end, stays at least :data:`CONVERGENCE_JAIN`; when the last window is below it, the
    whole span from ``join`` to that window's start (a lower bound)."""
    rates = series[series["t_s"] > join].pivot_table(
        index="t_s", columns="flow", values="rate_bps", aggfunc="sum", fill_value=0.0
    )
    starts = np.arange(join, end - CONVERGENCE_WINDOW_S + 1e-9, CONVERGENCE_STEP_S)
    if rates.shape[1] < 2 or not len(starts):
        return max(end - CONVERGENCE_WINDOW_S - join, 0.0)
    times = rates.index.to_numpy(dtype=float)
    values = rates.to_numpy(dtype=float)
    # Cumulative sums give each window's mean rate per flow in one subtraction.
    cumulative = np.vstack([np.zeros(values.shape[1]), np.cumsum(values, axis=0)])
    low = np.searchsorted(times, starts, side="right")
    high = np.searchsorted(times, starts + CONVERGENCE_WINDOW_S, side="right")
    sums = cumulative[high] - cumulative[low]
    squares = (sums**2).sum(axis=1)
    jain = np.where(squares > 0, sums.sum(axis=1) ** 2 / (sums.shape[1] * squares), 0.0)
    below = np.flatnonzero(jain < CONVERGENCE_JAIN)
    if not len(below):
        return 0.0
    last = int(below[-1])
    if last == len(starts) - 1:
        return float(starts[last] - join)
    return float(starts[last + 1] - join)


def _time_to(goodput: pd.Series, start: float, end: float) -> float:
    """Seconds from ``start`` until the smoothed goodput first reaches 90% of the 100 Mb/s link
    (samples after ``start`` only); the whole span to ``end`` when it never does (a lower
    bound)."""
    after = goodput[(goodput.index > start) & (goodput.index < end)]
    reached = after[after >= 0.9 * STEP_HIGH_BPS]
    when = float(reached.index[0]) if len(reached) else end
    return when - start


@dataclass(frozen=True)
class Comparison:
    """A baseline's quantity and the paired difference (evaluated minus baseline)."""

    baseline: str
    value: Quantity
    difference: Quantity


@dataclass(frozen=True)
class SummaryRow:
    test: str
    metric: str
    condition: str
    order: float
    value: Quantity
    comparisons: tuple[Comparison, ...]

    @property
    def unit(self) -> str:
        return METRICS[self.metric].unit


def summarise(
    measurements: Iterable[Measurement], baselines: Sequence[str], tests: Sequence[str]
) -> list[SummaryRow]:
    """One row per test, metric and condition (in the battery's order, then by axis value):
    the evaluated algorithm's quantity and, for each baseline measured at that condition, the
    baseline's and the paired difference."""
    frame = pd.DataFrame([vars(m) for m in measurements])
    if frame.empty:
        return []
    # Raw numbers other metrics derive from (named with a leading "_") are not summarised.
    frame = frame[frame["metric"].isin(list(METRICS))]
    if frame.empty:
        return []
    rows: list[SummaryRow] = []
    metric_order = {name: i for i, name in enumerate(METRICS)}
    keys = frame[["test", "metric", "condition", "order"]].drop_duplicates()
    keys = keys.assign(
        t=keys["test"].map({t: i for i, t in enumerate(tests)}),
        k=keys["metric"].map(metric_order),
    ).sort_values(["t", "k", "order", "condition"], kind="stable")
    for key in keys.itertuples(index=False):
        here = frame[
            (frame["test"] == key.test)
            & (frame["metric"] == key.metric)
            & (frame["condition"] == key.condition)
        ]
        bounds = METRICS[key.metric].bounds

        def quantity(role: str, selected: pd.DataFrame = here, b: Bounds = bounds) -> Quantity:
            chosen = selected[selected["role"] == role]
            return Quantity.replicated(zip(chosen["seed"], chosen["value"], strict=True), b)

        value = quantity("alg")
        comparisons = []
        for baseline in baselines:
            other = quantity(baseline)
            if other.has_data:
                comparisons.append(Comparison(baseline, other, value - other))
        rows.append(
            SummaryRow(
                key.test, key.metric, key.condition, float(key.order), value, tuple(comparisons)
            )
        )
    return rows
