"""From runs to records: each flow's goodput after the warm-up, the per-flow rate ratio of the
scalable flows to the classic ones, Jain's index, each queue's delay, marks and drops after the
warm-up; and the studies' tables.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ccsim import metrics
from ccsim.studies.core import Context, metric_records, summarise, with_intervals
from ccsim.studies.l4s.common import (
    BOUNDS,
    C_DELAY,
    C_DROPS,
    C_MARKS,
    CLASSIC,
    CLASSIC_RETX,
    DROPS,
    JAIN,
    L4S_RETX,
    L_DELAY,
    L_DROPS,
    L_MARKS,
    L_SHARE,
    MARKS,
    QUEUE_DELAY,
    RANK,
    RATIO,
    SCALABLE,
    SHORT_LONG,
    SHORT_TARGET,
    UTILIZATION,
    goodput_metric,
)
from ccsim.studies.l4s.figures import q1_figure, q2_figure, q3_figure
from ccsim.studies.l4s.workload import Q3_RTTS_MS, Config, q1_configs, q2_configs, q3_configs

# ---- one run --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunMeasures:
    """What one run gives, after its warm-up."""

    cc: list[str]
    base_rtt_ms: np.ndarray
    #: Mean delivered rate after the warm-up, Mb/s, per flow (flow order).
    goodput_mbps: np.ndarray
    #: Retransmitted segments over segments sent, %, per flow, over the whole run.
    retx_percent: np.ndarray
    #: The bottleneck queue's sampled state after the warm-up (``queues`` rows of its link).
    queue: pd.DataFrame
    rate_bps: float
    #: The bottleneck's packets arrived, dropped and marked CE over the whole run.
    arrivals: float = math.nan
    drops: float = math.nan
    marks: float = math.nan

    def mean_goodput(self, names: tuple[str, ...]) -> float:
        values = [g for g, c in zip(self.goodput_mbps, self.cc, strict=True) if c in names]
        return float(np.mean(values)) if values else math.nan

    def ratio(self) -> float:
        """A scalable flow's mean goodput over a classic flow's."""
        classic = self.mean_goodput((CLASSIC,))
        return self.mean_goodput(SCALABLE) / classic if classic > 0 else math.nan

    def share(self) -> float:
        total = float(self.goodput_mbps.sum())
        mine = sum(g for g, c in zip(self.goodput_mbps, self.cc, strict=True) if c in SCALABLE)
        return float(mine) / total if total > 0 else math.nan

    def retx(self, names: tuple[str, ...]) -> float:
        values = [r for r, c in zip(self.retx_percent, self.cc, strict=True) if c in names]
        return float(np.mean(values)) if values else math.nan

    def utilization(self) -> float:
        return float(self.goodput_mbps.sum()) * 1e6 / self.rate_bps

    def mean_ms(self, column: str) -> float:
        """The mean of a delay column of the queue (seconds) after the warm-up, in ms."""
        if column not in self.queue or not len(self.queue):
            return math.nan
        return float(self.queue[column].mean()) * 1e3

    def backlog_delay_ms(self) -> float:
        """The mean backlog in bytes over the link rate, ms."""
        if not len(self.queue):
            return math.nan
        return float(self.queue["queue_bytes"].mean()) * 8.0 / self.rate_bps * 1e3

    def counted(self, column: str) -> float:
        """How much a counter of the queue grew after the warm-up."""
        if column not in self.queue or len(self.queue) < 2:
            return math.nan
        values = self.queue[column].astype(float)
        return float(values.iloc[-1] - values.iloc[0])

    def percent(self, counter: str, arrivals: str) -> float:
        total = self.counted(arrivals)
        return 100.0 * self.counted(counter) / total if total > 0 else math.nan


def measure_run(load: Callable[[str], pd.DataFrame], config: Config) -> RunMeasures:
    flows = load("flows").sort_values("flow")
    series = load("series")
    late = series[series["t_s"] > config.warmup_s]
    rates = late.groupby("flow")["rate_bps"].mean()
    goodput = np.array([float(rates.get(int(i), 0.0)) / 1e6 for i in flows["flow"]])
    sent = flows["packets_sent"].astype(float).to_numpy()
    count = flows["retransmits"].astype(float).to_numpy()
    retx = np.where(sent > 0, 100.0 * count / np.maximum(sent, 1.0), np.nan)
    links = load("links")
    bottleneck = links[(links["src"] == "R1") & (links["dst"] == "R2")]
    link_id = int(bottleneck["link"].iloc[0]) if len(bottleneck) else 0
    queues = load("queues")
    # The counters' value at the end of the warm-up is the last sample at or before it.
    mine = queues[(queues["link"] == link_id) & (queues["t_s"] >= config.warmup_s)]
    every = queues[queues["link"] == link_id]
    marks = float(every["marks"].max()) if "marks" in every and len(every) else math.nan
    return RunMeasures(
        cc=[str(c) for c in flows["cc"]],
        base_rtt_ms=flows["base_rtt_s"].astype(float).to_numpy() * 1e3,
        goodput_mbps=goodput,
        retx_percent=retx,
        queue=mine.sort_values("t_s").reset_index(drop=True),
        rate_bps=config.rate_bps,
        arrivals=float(bottleneck["arrivals"].iloc[0]) if len(bottleneck) else math.nan,
        drops=float(bottleneck["drops"].iloc[0]) if len(bottleneck) else math.nan,
        marks=marks,
    )


# ---- Q1: coexistence in DualPI2 -------------------------------------------------------------------

Q1_KEYS = ["config", "path", "l4s", "n_cubic"]


def dualq_values(run: RunMeasures) -> dict[str, float]:
    """Per-queue delay, marks and drops of a DualPI2 run."""
    return {
        L_DELAY: run.mean_ms("l_delay_s"),
        C_DELAY: run.mean_ms("c_delay_s"),
        L_MARKS: run.percent("l_marks", "l_in"),
        L_DROPS: run.percent("l_drops", "l_in"),
        C_DROPS: run.percent("c_drops", "c_in"),
        C_MARKS: run.percent("c_marks", "c_in"),
    }


def q1_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for config, seed, run in c.each_run(q1_configs(c.settings), measure_run):
        records += metric_records(
            config.keys,
            seed,
            {
                RATIO: run.ratio(),
                JAIN: metrics.jain_index(run.goodput_mbps),
                **dualq_values(run),
                L4S_RETX: run.retx(SCALABLE),
                CLASSIC_RETX: run.retx((CLASSIC,)),
                UTILIZATION: run.utilization(),
            },
        )
    table = summarise(records, Q1_KEYS, bounds=BOUNDS)
    q1_figure(c, with_intervals(table))
    return table


# ---- Q2: a scalable flow in a single classic queue ----------------------------------------------

Q2_KEYS = ["config", "path", "l4s", "queue"]


def q2_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for config, seed, run in c.each_run(q2_configs(c.settings), measure_run):
        values = {
            RATIO: run.ratio(),
            L_SHARE: run.share(),
            JAIN: metrics.jain_index(run.goodput_mbps),
            QUEUE_DELAY: run.backlog_delay_ms(),
            L4S_RETX: run.retx(SCALABLE),
            CLASSIC_RETX: run.retx((CLASSIC,)),
            UTILIZATION: run.utilization(),
        }
        if config.queue == "dualpi2":
            values |= dualq_values(run)
        else:
            values[MARKS] = 100.0 * run.marks / run.arrivals if run.arrivals > 0 else math.nan
            values[DROPS] = 100.0 * run.drops / run.arrivals if run.arrivals > 0 else math.nan
        records += metric_records(config.keys, seed, values)
    table = summarise(records, Q2_KEYS, bounds=BOUNDS)
    q2_figure(c, with_intervals(table))
    return table


# ---- Q3: RTT independence -------------------------------------------------------------------------

Q3_KEYS = ["config", "algorithm", "rtt_scaling"]


def rank_correlation(x: list[float], y: list[float]) -> float:
    from scipy.stats import spearmanr

    if len(set(y)) < 2:
        return math.nan
    return float(spearmanr(x, y).statistic)


def q3_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for config, seed, run in c.each_run(q3_configs(c.settings), measure_run):
        by_rtt = dict(zip(Q3_RTTS_MS, run.goodput_mbps, strict=True))
        shortest, target, longest = by_rtt[5.0], by_rtt[25.0], by_rtt[100.0]
        values = {goodput_metric(r): float(g) for r, g in by_rtt.items()}
        values |= {
            SHORT_TARGET: shortest / target if target > 0 else math.nan,
            SHORT_LONG: shortest / longest if longest > 0 else math.nan,
            JAIN: metrics.jain_index(run.goodput_mbps),
            RANK: rank_correlation(list(Q3_RTTS_MS), list(run.goodput_mbps)),
            L_DELAY: run.mean_ms("l_delay_s"),
            L_MARKS: run.percent("l_marks", "l_in"),
            UTILIZATION: run.utilization(),
        }
        records += metric_records(config.keys, seed, values)
    bounds = BOUNDS | {goodput_metric(r): (0.0, math.inf) for r in Q3_RTTS_MS}
    table = summarise(records, Q3_KEYS, bounds=bounds)
    q3_figure(c, with_intervals(table), Q3_RTTS_MS)
    return table
