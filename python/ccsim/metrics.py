"""The metrics of the seed studies, as pure functions over result tables.

Every function takes plain numbers or the pandas tables of :class:`ccsim.Results` (``flows``,
``links``, ``series``, ``queues``, ``drops``) and returns numbers or new tables; nothing is read
from disk and nothing is changed in place. Each docstring gives the formula and where it comes
from ("seed NNN" is one of the seed papers, whose experiments docs/studies/ describes; the
analytic oracles are listed in docs/experiments.md, section "Metrics").

Throughputs are ``goodput_bps`` unless a ``column`` says otherwise. Flows of two runs are matched
by :func:`flow_keys`: a bulk flow by its index, a generator transfer by (generator, source, how
many transfers that source had started before it), which is what the engine keeps common between
runs that differ only in protocol.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

__all__ = [
    "Interval",
    "bottleneck",
    "burst_losses",
    "ci_half_width",
    "cwnd_correlation",
    "cwnd_correlation_pairs",
    "cwnd_cov",
    "ecdf",
    "flow_keys",
    "jain_index",
    "join_flows",
    "link_utilization",
    "loss_episodes",
    "mathis_throughput",
    "mean_ci",
    "mean_relative_throughput",
    "pftk_approx_throughput",
    "pftk_throughput",
    "phase_shares",
    "relative_throughput",
    "reno_friendliness",
    "reno_friendliness_of_means",
    "rtt_weighted_jain_index",
    "t_interval",
    "throughput_variance",
    "time_to_cwnd",
    "transfer_time_by_size",
]

# ---- fairness and spread ------------------------------------------------------------------------


def _values(x: Sequence[float] | np.ndarray | pd.Series) -> np.ndarray:
    values = np.asarray(x, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("expected a non-empty one-dimensional sequence of numbers")
    return values


def jain_index(x: Sequence[float] | np.ndarray | pd.Series) -> float:
    """Jain's fairness index ``J = (sum x_i)^2 / (n * sum x_i^2)``.

    In ``[1/n, 1]``: 1 when all ``x_i`` are equal, ``k/n`` when ``k`` flows share equally and the
    others get nothing. Jain, Chiu and Hawe, DEC-TR-301 (1984); used by seeds 001 (F3) and 002 (H2).
    All zeros give 1 (nobody is favoured).
    """
    values = _values(x)
    squares = float(np.sum(values**2))
    if squares == 0:
        return 1.0
    return float(np.sum(values)) ** 2 / (values.size * squares)


def rtt_weighted_jain_index(
    x: Sequence[float] | np.ndarray | pd.Series, rtt: Sequence[float] | np.ndarray | pd.Series
) -> float:
    """Seed 000's RTT-weighted Jain index ``(sum x_i RTT_i)^2 / (n * sum (x_i RTT_i)^2)``.

    Weighting each throughput by its flow's RTT makes the index 1 when throughput is inversely
    proportional to RTT, the share TCP's AIMD aims at (seed 000, R3).
    """
    values, rtts = _values(x), _values(rtt)
    if values.shape != rtts.shape:
        raise ValueError(f"{values.size} throughputs but {rtts.size} RTTs; expected one per flow")
    return jain_index(values * rtts)


def throughput_variance(x: Sequence[float] | np.ndarray | pd.Series, ddof: int = 0) -> float:
    """Variance of per-flow throughputs ``sum (x_i - mean)^2 / (n - ddof)`` (seed 002, H2).

    ``ddof=0`` (the default) is the population variance of the flows present; ``ddof=1`` the
    sample variance, for treating the flows as a sample.
    """
    values = _values(x)
    if values.size - ddof <= 0:
        raise ValueError(f"{values.size} values are too few for ddof={ddof}")
    return float(np.var(values, ddof=ddof))


# ---- confidence intervals over replicates ---------------------------------------------------


class Interval(NamedTuple):
    """The mean of some replicates and its confidence interval (see :func:`t_interval`)."""

    mean: float
    half_width: float
    low: float
    high: float
    n: int


def _check_level(level: float) -> float:
    if not 0 < level < 1:
        raise ValueError(f"confidence level {level} is not in (0, 1)")
    return float(level)


def ci_half_width(
    sd: float | Sequence[float] | np.ndarray | pd.Series,
    n: int | Sequence[int] | np.ndarray | pd.Series,
    level: float = 0.95,
) -> np.ndarray:
    """Half-width of the Student t confidence interval of a mean: ``t(1 - a/2, n - 1) sd / sqrt(n)``
    with ``a = 1 - level``, ``sd`` the sample standard deviation (``ddof = 1``) of ``n`` values.

    Element-wise over arrays. NaN where ``n < 2`` (one replicate says nothing about the spread:
    the width is undefined, not zero) or where ``sd`` is NaN.
    """
    from scipy import stats

    level = _check_level(level)
    sds = np.asarray(sd, dtype=float)
    counts = np.asarray(n, dtype=float)
    enough = counts >= 2
    dof = np.where(enough, counts - 1, 1.0)
    t = stats.t.ppf(0.5 + level / 2, dof)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = t * sds / np.sqrt(np.where(enough, counts, 1.0))
    return np.asarray(np.where(enough, half, np.nan), dtype=float)


def t_interval(values: Sequence[float] | np.ndarray | pd.Series, level: float = 0.95) -> Interval:
    """The mean of ``values`` (replicates, e.g. one number per seed) and its ``level`` confidence
    interval by Student's t: ``mean +- t(1 - a/2, n - 1) s / sqrt(n)``, ``s`` the sample standard
    deviation, ``a = 1 - level``.

    NaNs are left out and ``n`` counts the rest. With one value the half-width and the bounds are
    NaN (undefined, not zero); with none the mean is NaN too.
    """
    clean = np.asarray(values, dtype=float).ravel()
    clean = clean[~np.isnan(clean)]
    n = int(clean.size)
    mean = float(clean.mean()) if n else math.nan
    sd = float(clean.std(ddof=1)) if n >= 2 else math.nan
    half = float(ci_half_width(sd, n, level))
    return Interval(mean, half, mean - half, mean + half, n)


def mean_ci(
    frame: pd.DataFrame,
    by: str | Sequence[str] | None,
    value: str,
    level: float = 0.95,
) -> pd.DataFrame:
    """Mean and Student t confidence interval of column ``value`` per group of ``by``.

    Each row of ``frame`` is one replicate (a run, a seed); rows are grouped by the ``by`` columns
    (None or ``[]``: all rows are one group) in order of first appearance, NaN keys included.
    Returns one row per group: the ``by`` columns, then ``mean``, ``sd`` (sample standard
    deviation), ``half_width``, ``ci_low``, ``ci_high`` (``mean -+ half_width``) and ``n`` (the
    group's non-NaN values), as :func:`t_interval` computes them: a group of one value has NaN
    ``sd``, ``half_width``, ``ci_low`` and ``ci_high``.

    >>> runs = pd.DataFrame({"cc": ["reno"] * 4, "goodput": [1.0, 2.0, 3.0, 4.0]})
    >>> row = mean_ci(runs, "cc", "goodput").iloc[0]
    >>> f"{row['mean']:.2f} +- {row['half_width']:.3f} (n = {row['n']})"
    '2.50 +- 2.054 (n = 4)'
    """
    _check_level(level)
    keys = [by] if isinstance(by, str) else list(by or [])
    missing = [c for c in [*keys, value] if c not in frame.columns]
    if missing:
        raise ValueError(f"no column {missing[0]!r}; the table has: {', '.join(map(str, frame))}")
    values = frame[value].astype(float)
    if keys:
        grouped = values.groupby([frame[k] for k in keys], sort=False, dropna=False)
        table = grouped.agg(["mean", "std", "count"]).reset_index()
        table.columns = [*keys, "mean", "sd", "n"]
    else:
        table = pd.DataFrame(
            {"mean": [values.mean()], "sd": [values.std()], "n": [int(values.count())]}
        )
    table["n"] = table["n"].astype(int)
    table["half_width"] = ci_half_width(table["sd"], table["n"], level)
    table["ci_low"] = table["mean"] - table["half_width"]
    table["ci_high"] = table["mean"] + table["half_width"]
    return table[[*keys, "mean", "sd", "half_width", "ci_low", "ci_high", "n"]]


# ---- window dynamics ---------------------------------------------------------------------------


def _after_warmup(series: pd.DataFrame, warmup_s: float) -> pd.DataFrame:
    return series[series["t_s"] >= warmup_s]


def cwnd_cov(series: pd.DataFrame, warmup_s: float = 0.0) -> pd.Series:
    """Coefficient of variation of each flow's cwnd after a warm-up (seed 001, F2).

    ``CoV = std(cwnd) / mean(cwnd)`` over the samples with ``t_s >= warmup_s`` (population
    standard deviation). Returns a Series indexed by flow.
    """
    kept = _after_warmup(series, warmup_s)
    grouped = kept.groupby("flow")["cwnd_pkts"]
    return (grouped.std(ddof=0) / grouped.mean()).rename("cwnd_cov")


def time_to_cwnd(
    series: pd.DataFrame,
    target: float,
    flows: pd.DataFrame | None = None,
    drops: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """When each flow's cwnd first reaches ``target`` segments, and whether it lost packets
    before (seed 003, S1-S2: time to reach the maximum window, and "early loss").

    ``reached_s`` is the first sampling instant with ``cwnd_pkts >= target`` (NaN if never), so
    it is known to within one ``sample_interval``. With the ``flows`` table, ``after_start_s``
    counts from the flow's start. With the ``drops`` table (``[trace] drops = true``),
    ``drops_before`` counts the flow's drops before ``reached_s`` (all of its drops if it never
    got there) and ``early_loss`` says whether there were any. Returns one row per flow of the
    series, indexed by flow; over a sweep's catalogue views (tables with a ``run_id`` column),
    one row per run and flow, indexed by both.
    """
    if not target > 0:
        raise ValueError(f"target: {target} is not a positive window")
    keys = [key for key in ("run_id", "flow") if key in series.columns]
    ordered = series.sort_values([*keys, "t_s"], kind="stable")
    hits = ordered[ordered["cwnd_pkts"] >= target].groupby(keys)["t_s"].min()
    index = ordered[keys].drop_duplicates().sort_values(keys)
    out = pd.DataFrame(
        index=pd.MultiIndex.from_frame(index) if len(keys) > 1 else pd.Index(index["flow"])
    )
    out["reached_s"] = hits.reindex(out.index).astype(float)
    if flows is not None:
        starts = flows.set_index(keys)["start_s"].reindex(out.index)
        out["after_start_s"] = out["reached_s"] - starts
    if drops is not None:
        first = out["reached_s"].fillna(np.inf).rename("limit").reset_index()
        joined = drops[[*keys, "t_s"]].merge(first, on=keys, how="inner")
        before = joined[joined["t_s"] < joined["limit"]].groupby(keys).size()
        out["drops_before"] = before.reindex(out.index, fill_value=0).astype(int)
        out["early_loss"] = out["drops_before"] > 0
    return out


def cwnd_correlation(
    series: pd.DataFrame, warmup_s: float = 0.0, flows: Sequence[int] | None = None
) -> pd.DataFrame:
    """Pairwise Pearson correlation ("covariance coefficient") of cwnd series (seed 000, R9).

    ``r_ij = cov(w_i, w_j) / (std(w_i) std(w_j))`` over the sampling instants after ``warmup_s``
    at which both flows have a sample. Near +1: the windows rise and fall together (synchronized
    losses); near -1: in anti-phase; near 0: independent. Returns a square DataFrame indexed and
    labelled by flow, with 1 on the diagonal.
    """
    kept = _after_warmup(series, warmup_s)
    if flows is not None:
        kept = kept[kept["flow"].isin(list(flows))]
    wide = kept.pivot_table(index="t_s", columns="flow", values="cwnd_pkts", aggfunc="mean")
    matrix = wide.corr(method="pearson", min_periods=2)
    matrix.index.name = matrix.columns.name = "flow"
    return matrix


def cwnd_correlation_pairs(
    series: pd.DataFrame, warmup_s: float = 0.0, flows: Sequence[int] | None = None
) -> pd.DataFrame:
    """The upper triangle of :func:`cwnd_correlation` as rows ``flow_a < flow_b, correlation``."""
    matrix = cwnd_correlation(series, warmup_s, flows)
    rows = [
        (int(a), int(b), float(matrix.loc[a, b]))
        for i, a in enumerate(matrix.index)
        for b in matrix.columns[i + 1 :]
    ]
    return pd.DataFrame(rows, columns=["flow_a", "flow_b", "correlation"])


# ---- losses ------------------------------------------------------------------------------------

#: Drop kinds in the drop log: 0 queue overflow, 1 early drop by the AQM (RED), 2 random loss.
QUEUE_DROP_KINDS = (0, 1)

EpisodeGap = float | Callable[[int], float] | None


def _gap_for_flows(drops: pd.DataFrame, flows: pd.DataFrame | None, gap_s: EpisodeGap) -> pd.Series:
    """The episode gap of each drop's flow, in seconds."""
    if isinstance(gap_s, int | float):
        return pd.Series(float(gap_s), index=drops.index)
    if callable(gap_s):
        return drops["flow"].map(lambda f: float(gap_s(int(f))))
    if flows is None:
        raise ValueError("the default episode rule (one RTT) needs the flows table for the RTTs")
    # The flow's measured mean RTT (queueing included) is the RTT its losses are spread over;
    # a flow with no RTT sample falls back to its base RTT.
    rtt = flows.set_index("flow")["mean_rtt_s"].fillna(flows.set_index("flow")["base_rtt_s"])
    return drops["flow"].map(rtt)


def loss_episodes(
    drops: pd.DataFrame,
    flows: pd.DataFrame | None = None,
    gap_s: EpisodeGap = None,
    kinds: Sequence[int] = QUEUE_DROP_KINDS,
) -> pd.DataFrame:
    """Group each flow's data drops at each link into loss episodes.

    Episode rule (the default, as assumed for seed 000's R11): a drop belongs to the current
    episode of its (link, flow) when it comes less than one RTT of that flow after the previous
    drop of the same flow at the same link; otherwise it opens a new episode. ``gap_s`` replaces
    the RTT with a fixed number of seconds, or a function of the flow index. Only data packets
    dropped by a queue are counted by default (``kinds``: 0 overflow, 1 AQM early drop; add 2 for
    random link loss).

    Returns one row per episode: ``link, flow, start_s, end_s, drops``.
    """
    columns = ["link", "flow", "start_s", "end_s", "drops"]
    data = drops[(drops["is_ack"] == 0) & drops["kind"].isin(list(kinds))]
    if data.empty:
        return pd.DataFrame({c: pd.Series(dtype=float) for c in columns})
    data = data.sort_values(["link", "flow", "t_s"], kind="stable")
    gap = _gap_for_flows(data, flows, gap_s)
    previous = data.groupby(["link", "flow"])["t_s"].shift()
    # A drop opens an episode when it is the first of its (link, flow) or far from the last one.
    opens = previous.isna() | ((data["t_s"] - previous) >= gap)
    episode = opens.cumsum()
    grouped = data.groupby(episode)
    return pd.DataFrame(
        {
            "link": grouped["link"].first().to_numpy(),
            "flow": grouped["flow"].first().to_numpy(),
            "start_s": grouped["t_s"].min().to_numpy(),
            "end_s": grouped["t_s"].max().to_numpy(),
            "drops": grouped.size().to_numpy(),
        }
    )


def burst_losses(
    drops: pd.DataFrame,
    flows: pd.DataFrame | None = None,
    gap_s: EpisodeGap = None,
    kinds: Sequence[int] = QUEUE_DROP_KINDS,
) -> pd.DataFrame:
    """Burst losses per flow (seed 000, R11): loss episodes with more than one drop of the flow.

    Episodes are those of :func:`loss_episodes` (same ``gap_s`` and ``kinds``). Returns one row per
    flow that lost anything: ``flow, episodes, bursts, burst_drops`` (drops inside bursts).
    """
    episodes = loss_episodes(drops, flows, gap_s, kinds)
    bursty = episodes["drops"] > 1
    table = pd.DataFrame(
        {
            "flow": episodes["flow"],
            "episodes": 1,
            "bursts": bursty.astype(int),
            "burst_drops": episodes["drops"].where(bursty, 0),
        }
    )
    return (
        table.groupby("flow", as_index=False)
        .sum()
        .astype({"episodes": int, "bursts": int, "burst_drops": int})
    )


def phase_shares(
    flows: pd.DataFrame, drops: pd.DataFrame, link: int, column: str = "goodput_bps"
) -> pd.DataFrame:
    """Each flow's share of throughput and of the drops at ``link`` (phase effects, seed 000).

    ``throughput_share_i = x_i / sum x`` over the flows given; ``drop_share_i = d_i / sum d``
    where ``d_i`` counts the flow's data packets dropped at ``link`` (any kind). Floyd and
    Jacobson's phase effect shows as a drop share far from the throughput share (R13).
    Shares are NaN when the link dropped nothing.
    """
    at_link = drops[(drops["link"] == link) & (drops["is_ack"] == 0)]
    counts = at_link.groupby("flow").size()
    dropped = flows["flow"].map(counts).fillna(0).astype(int)
    total_drops = int(dropped.sum())
    throughput = flows[column].astype(float)
    return pd.DataFrame(
        {
            "flow": flows["flow"].to_numpy(),
            "throughput_share": (throughput / throughput.sum()).to_numpy(),
            "drops": dropped.to_numpy(),
            "drop_share": (dropped / total_drops if total_drops else dropped * np.nan).to_numpy(),
        }
    )


# ---- flow-by-flow comparison -------------------------------------------------------------------


def flow_keys(flows: pd.DataFrame) -> pd.Series:
    """A key naming "the same flow" in two runs that differ only in protocol.

    A ``[[flows]]`` flow is ``"flow <index>"``. A generator transfer is ``"gen <g> <source> #<k>"``:
    the k-th transfer (from 0, by start time) of that generator source; its size is the same in
    every run with the same seed, while its flow index and start time may not be (a closed-loop
    source starts its next transfer when the last one ends).
    """
    generator = flows["generator"] if "generator" in flows else pd.Series(-1, index=flows.index)
    keys = "flow " + flows["flow"].astype(str)
    from_gen = generator >= 0
    if from_gen.any():
        transfers = flows[from_gen].sort_values(["start_s", "flow"], kind="stable")
        rank = transfers.groupby([generator[from_gen], transfers["src"]]).cumcount()
        gen_keys = (
            "gen "
            + generator[from_gen].astype(str)
            + " "
            + transfers["src"]
            + " #"
            + rank.astype(str)
        )
        keys[from_gen] = gen_keys.reindex(keys[from_gen].index)
    return keys.rename("key")


def join_flows(
    flows: pd.DataFrame, reference: pd.DataFrame, columns: Sequence[str] = ("goodput_bps",)
) -> pd.DataFrame:
    """Match the flows of two runs by :func:`flow_keys`; columns get suffixes ``_x`` and ``_ref``.

    Only flows present in both runs are kept (a generator source may start more transfers in one
    run than in the other).
    """
    keep = ["key", "flow", "cc", "label", "base_rtt_s", *columns]
    left = flows.assign(key=flow_keys(flows))[[c for c in keep if c in flows or c == "key"]]
    right = reference.assign(key=flow_keys(reference))[
        [c for c in keep if c in reference or c == "key"]
    ]
    return left.merge(right, on="key", suffixes=("_x", "_ref"), validate="one_to_one")


def relative_throughput(
    flows: pd.DataFrame, reference: pd.DataFrame, column: str = "goodput_bps"
) -> pd.DataFrame:
    """Per-flow relative throughput (seed 004): ``x_i(X) / x_i(all Reno)``.

    ``flows`` is a run with protocol X, ``reference`` the same workload with every flow on Reno
    (common random numbers: same seed, same flows). Returns one row per matched flow: ``key,
    flow, cc_x, cc_ref, <column>_x, <column>_ref, ratio`` (NaN where the reference is 0).
    """
    joined = join_flows(flows, reference, (column,))
    ref = joined[f"{column}_ref"].astype(float)
    joined["ratio"] = joined[f"{column}_x"].astype(float) / ref.where(ref != 0)
    return joined


def mean_relative_throughput(
    flows: pd.DataFrame, reference: pd.DataFrame, column: str = "goodput_bps"
) -> float:
    """Seed 004's relative throughput: the mean over flows of :func:`relative_throughput`'s ratio.

    ``RT(X) = (1/n) sum_i x_i(X) / x_i(Reno)``. Flows whose reference throughput is zero are left
    out of the mean.
    """
    return float(relative_throughput(flows, reference, column)["ratio"].mean())


def _reno_pairs(
    flows: pd.DataFrame, reference: pd.DataFrame, baseline: str, column: str
) -> pd.DataFrame:
    joined = join_flows(flows, reference, (column,))
    reno = joined[joined["cc_x"] == baseline]
    if reno.empty:
        raise ValueError(f"the mixed run has no {baseline!r} flow matched in the reference run")
    return reno


def reno_friendliness(
    flows: pd.DataFrame,
    reference: pd.DataFrame,
    baseline: str = "reno",
    column: str = "goodput_bps",
) -> float:
    """Seed 004's Reno friendliness of protocol X, as its slides define it: the mean over the Reno
    flows of each flow's throughput when it shares the network with X flows over the same flow's
    throughput when every flow is Reno.

    ``F(X) = (1/n) sum_i x_i(with X) / x_i(all Reno)`` over the flows whose ``cc`` is
    ``baseline`` in the mixed run ``flows``; ``reference`` is the all-Reno run of the same
    workload. Flows with zero reference throughput are left out. Below 1: X takes bandwidth from
    Reno. :func:`reno_friendliness_of_means` is the ratio of the two means instead.
    """
    reno = _reno_pairs(flows, reference, baseline, column)
    ref = reno[f"{column}_ref"].astype(float)
    return float((reno[f"{column}_x"].astype(float) / ref.where(ref != 0)).mean())


def reno_friendliness_of_means(
    flows: pd.DataFrame,
    reference: pd.DataFrame,
    baseline: str = "reno",
    column: str = "goodput_bps",
) -> float:
    """The Reno flows' mean throughput next to X over the same flows' mean when all are Reno.

    Weighted by throughput, unlike :func:`reno_friendliness` (the mean of per-flow ratios): a few
    fast Reno flows dominate it.
    """
    reno = _reno_pairs(flows, reference, baseline, column)
    return float(reno[f"{column}_x"].mean() / reno[f"{column}_ref"].mean())


# ---- links -------------------------------------------------------------------------------------


def bottleneck(links: pd.DataFrame) -> pd.Series:
    """The busiest link direction (highest utilization, then most drops): a row of ``links``."""
    order = links.sort_values(["utilization", "drops"], ascending=False, kind="stable")
    return order.iloc[0]


def link_utilization(links: pd.DataFrame, link: int | Sequence[int] | None = None) -> float:
    """Link utilization: busy time / run time, from the ``utilization`` column.

    One link: its utilization. Several: their mean (seed 004 averages the backbone links).
    None: the bottleneck's (:func:`bottleneck`).
    """
    if link is None:
        return float(bottleneck(links)["utilization"])
    wanted = [link] if isinstance(link, int) else list(link)
    chosen = links[links["link"].isin(wanted)]
    if len(chosen) != len(set(wanted)):
        missing = sorted(set(wanted) - set(chosen["link"].tolist()))
        raise ValueError(f"no link {missing} in the links table")
    return float(chosen["utilization"].mean())


# ---- distributions -----------------------------------------------------------------------------


def ecdf(values: Sequence[float] | np.ndarray | pd.Series) -> pd.DataFrame:
    """The empirical CDF: rows ``value, p`` with ``p = (number of values <= value) / n``.

    NaNs are left out; ties give one step per distinct value.
    """
    clean = np.asarray(values, dtype=float)
    clean = np.sort(clean[~np.isnan(clean)])
    distinct, counts = np.unique(clean, return_counts=True)
    return pd.DataFrame({"value": distinct, "p": np.cumsum(counts) / max(clean.size, 1)})


def transfer_time_by_size(
    flows: pd.DataFrame, edges: Sequence[float] | None = None
) -> pd.DataFrame:
    """Mean transfer time of finished transfers by size bucket (seeds 000 R4, 004).

    Buckets are ``[edges[k], edges[k+1])`` in bytes; the default is one bucket per power of ten.
    Transfers that did not finish (``completion_s`` NaN) and endless flows are left out.
    Returns ``size_from, size_to, transfers, mean_s`` for each bucket that holds a transfer.
    """
    done = flows[np.isfinite(flows["size_bytes"]) & flows["completion_s"].notna()]
    if done.empty:
        return pd.DataFrame(columns=["size_from", "size_to", "transfers", "mean_s"])
    sizes = done["size_bytes"].astype(float)
    if edges is None:
        low = math.floor(math.log10(max(sizes.min(), 1)))
        high = math.floor(math.log10(max(sizes.max(), 1))) + 1
        edges = [10.0**k for k in range(low, high + 1)]
    bucket = pd.cut(sizes, bins=list(edges), right=False)
    grouped = done.groupby(bucket, observed=True)["completion_s"]
    table = grouped.agg(transfers="size", mean_s="mean").reset_index(names="bucket")
    table.insert(0, "size_from", [interval.left for interval in table["bucket"]])
    table.insert(1, "size_to", [interval.right for interval in table["bucket"]])
    return table.drop(columns="bucket")


# ---- analytic oracles (docs/experiments.md, section "Metrics") --------------------------------


def mathis_throughput(p: float, rtt_s: float, b: int = 1, constant: float | None = None) -> float:
    """Mathis et al. (CCR 1997): ``B = C / (RTT sqrt(p))`` packets per second.

    ``C = sqrt(3 / (2 b))`` (1.225 with an ACK per packet, 0.866 with delayed ACKs, ``b = 2``)
    unless ``constant`` is given. Multiply by the MSS for bytes per second.
    """
    _check_probability(p)
    c = math.sqrt(3 / (2 * b)) if constant is None else constant
    return c / (rtt_s * math.sqrt(p))


def _check_probability(p: float) -> None:
    if not 0 < p < 1:
        raise ValueError(f"loss probability {p} is not in (0, 1)")


def pftk_throughput(
    p: float, rtt_s: float, t0_s: float, b: int = 1, wmax: float = math.inf
) -> float:
    """Padhye, Firoiu, Towsley and Kurose (SIGCOMM 1998), the full model, in packets per second.

    With ``q = 1 - p``::

        E[W] = (2 + b)/(3b) + sqrt(8 q / (3 b p) + ((2 + b)/(3b))^2)
        Q(w) = min(1, (1 - q^3)(1 + q^3 (1 - q^(w-3))) / (1 - q^w))
        f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6
        E[W] < Wmax:  B = (q/p + E[W] + Q(E[W])/q) / (RTT (b E[W]/2 + 1) + Q(E[W]) T0 f(p)/q)
        otherwise:    B = (q/p + Wmax + Q(Wmax)/q)
                          / (RTT (b Wmax/8 + q/(p Wmax) + 2) + Q(Wmax) T0 f(p)/q)

    ``t0_s`` is the base retransmission timeout, ``b`` packets per ACK, ``wmax`` the receiver
    window in packets.
    """
    _check_probability(p)
    q = 1 - p
    k = (2 + b) / (3 * b)
    expected_w = k + math.sqrt(8 * q / (3 * b * p) + k * k)
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    if expected_w < wmax:
        w = expected_w
        rounds = rtt_s * (b * w / 2 + 1)
    else:
        w = wmax
        rounds = rtt_s * (b * w / 8 + q / (p * w) + 2)
    timeout = _pftk_timeout_probability(q, w)
    return (q / p + w + timeout / q) / (rounds + timeout * t0_s * f / q)


def _pftk_timeout_probability(q: float, w: float) -> float:
    """PFTK's Q(w): the probability that a loss indication is a timeout, for window ``w``."""
    return min(1.0, float((1 - q**3) * (1 + q**3 * (1 - q ** (w - 3))) / (1 - q**w)))


def pftk_approx_throughput(
    p: float, rtt_s: float, t0_s: float, b: int = 1, wmax: float = math.inf
) -> float:
    """PFTK's approximate model (the form TFRC, RFC 5348, uses), in packets per second::

    B = min(Wmax / RTT, 1 / (RTT sqrt(2 b p / 3) + T0 min(1, 3 sqrt(3 b p / 8)) p (1 + 32 p^2)))
    """
    _check_probability(p)
    denominator = rtt_s * math.sqrt(2 * b * p / 3) + t0_s * min(
        1.0, 3 * math.sqrt(3 * b * p / 8)
    ) * p * (1 + 32 * p * p)
    return min(wmax / rtt_s, 1 / denominator)
