"""From runs to records: each flow's goodput after the warm-up, retransmissions, the bottleneck's
queueing delay; the studies' tables; and Ware et al.'s model of BBR's share.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ccsim import metrics
from ccsim.studies.bbr.common import (
    BBR_RETX,
    BBR_RETX_COUNT,
    BBR_SHARE,
    BOUNDS,
    CUBIC_RETX,
    CUBIC_RETX_COUNT,
    JAIN,
    LONG_SHORT,
    LONGEST,
    LOSS_BASED,
    PARTNER_RETX,
    QUEUE_DELAY,
    RANK,
    RATES,
    RETX,
    RTT_S,
    SHORTEST,
    UTILIZATION,
    VERSIONS,
    WIRE_BYTES,
)
from ccsim.studies.bbr.figures import b1_figure, b2_figure
from ccsim.studies.bbr.workload import (
    Config,
    b1_configs,
    b2_configs,
    b3_configs,
    b3_rtts_ms,
    b4_configs,
)
from ccsim.studies.core import Context, Settings, metric_records, summarise

# ---- Ware et al.'s model -------------------------------------------------------------------------


def ware_share(
    buffer_bdp: float,
    rate_bps: float,
    rtt_s: float = RTT_S,
    bbr_flows: int = 1,
    packet_bytes: int = WIRE_BYTES,
) -> float:
    """BBR's share of the link against loss-based flows by Ware et al.'s closed form (IMC 2019,
    section 4): BBR is limited by its in-flight cap, so the loss-based flows hold
    ``p = 1/2 - 1/(2X) - 4N/q`` of the link while BBR probes for bandwidth (X the buffer in
    BDPs, q the buffer in packets, N the BBR flows, each keeping 4 packets in flight in
    PROBE_RTT), and BBR spends ``(q/c + 0.2 s + l) / 10 s`` of its time in PROBE_RTT (draining
    the queue, 200 ms, a round trip; once every 10 s). BBR's share is ``(1 - p)`` of the time
    outside PROBE_RTT, at most 1. The number of loss-based flows does not enter."""
    capacity = rate_bps / (8.0 * packet_bytes)  # packets per second
    queue = buffer_bdp * capacity * rtt_s  # packets
    loss_based = 0.5 - 1.0 / (2.0 * buffer_bdp) - 4.0 * bbr_flows / queue
    probe_rtt = (queue / capacity + 0.2 + rtt_s) / 10.0
    return float(min(1.0, max(0.0, (1.0 - loss_based) * (1.0 - probe_rtt))))


# ---- one run --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunMeasures:
    """What one run gives, after its warm-up where stated."""

    cc: list[str]
    base_rtt_s: np.ndarray
    #: Mean delivered rate after the warm-up, Mb/s, per flow (flow order).
    goodput_mbps: np.ndarray
    #: Retransmitted segments over segments sent, %, per flow, over the whole run.
    retx_percent: np.ndarray
    #: Retransmitted segments per flow, over the whole run.
    retx_count: np.ndarray
    #: Mean queueing delay at the bottleneck after the warm-up, ms.
    queue_delay_ms: float
    #: Goodput of every flow after the warm-up over the link rate.
    utilization: float

    def share(self, names: tuple[str, ...]) -> float:
        """The flows running one of ``names``: their share of the goodput."""
        total = float(self.goodput_mbps.sum())
        mine = float(sum(g for g, c in zip(self.goodput_mbps, self.cc, strict=True) if c in names))
        return mine / total if total > 0 else math.nan

    def retx(self, names: tuple[str, ...], counts: bool = False) -> float:
        """The retransmission percentage (``counts``: the retransmitted segments) of the flows
        running one of ``names``, their mean."""
        per_flow = self.retx_count if counts else self.retx_percent
        values = [r for r, c in zip(per_flow, self.cc, strict=True) if c in names]
        return float(np.mean(values)) if values else math.nan


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
    mine = queues[(queues["link"] == link_id) & (queues["t_s"] > config.warmup_s)]
    rate_bps = RATES[config.rate]
    delay = float(mine["queue_bytes"].mean()) * 8.0 / rate_bps * 1e3 if len(mine) else math.nan
    return RunMeasures(
        cc=[str(c) for c in flows["cc"]],
        base_rtt_s=flows["base_rtt_s"].astype(float).to_numpy(),
        goodput_mbps=goodput,
        retx_percent=retx,
        retx_count=count,
        queue_delay_ms=delay,
        utilization=float(goodput.sum()) * 1e6 / rate_bps,
    )


# ---- B1: BBR vs CUBIC over buffer sizes ------------------------------------------------------------

B1_KEYS = ["config", "rate", "mix", "buffer_bdp"]


def b1_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for config, seed, run in c.each_run(b1_configs(c.settings), measure_run):
        records += metric_records(
            config.keys,
            seed,
            {
                BBR_SHARE: run.share(VERSIONS),
                BBR_RETX: run.retx(VERSIONS),
                CUBIC_RETX: run.retx(("cubic",)),
                BBR_RETX_COUNT: run.retx(VERSIONS, counts=True),
                CUBIC_RETX_COUNT: run.retx(("cubic",), counts=True),
                QUEUE_DELAY: run.queue_delay_ms,
                UTILIZATION: run.utilization,
            },
        )
    table = summarise(records, B1_KEYS, bounds=BOUNDS)
    b1_figure(c, table)
    return table


# ---- B2: one BBR against N CUBIC -------------------------------------------------------------------

B2_KEYS = ["buffer", "buffer_bdp", "n_cubic"]


def b2_model(settings: Settings) -> dict[tuple[Any, ...], float]:
    """Ware et al.'s prediction of BBR's share for every B2 configuration, as the table's
    published value of the share row."""
    return {
        (config.keys["buffer"], config.keys["buffer_bdp"], config.keys["n_cubic"], BBR_SHARE): (
            ware_share(config.buffer_bdp, RATES[config.rate])
        )
        for config in b2_configs(settings)
    }


def b2_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for config, seed, run in c.each_run(b2_configs(c.settings), measure_run):
        records += metric_records(
            config.keys,
            seed,
            {
                BBR_SHARE: run.share(VERSIONS),
                BBR_RETX: run.retx(VERSIONS),
                CUBIC_RETX: run.retx(("cubic",)),
                QUEUE_DELAY: run.queue_delay_ms,
                UTILIZATION: run.utilization,
            },
        )
    table = summarise(records, B2_KEYS, b2_model(c.settings), bounds=BOUNDS)
    b2_figure(c, table)
    return table


# ---- B3: RTT fairness among BBR flows --------------------------------------------------------------

B3_KEYS = ["algorithm", "flows"]


def rank_correlation(x: list[float], y: list[float]) -> float:
    from scipy.stats import spearmanr

    if len(set(y)) < 2:
        return math.nan
    return float(spearmanr(x, y).statistic)


def b3_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for config, seed, run in c.each_run(b3_configs(c.settings), measure_run):
        rtts = b3_rtts_ms(int(config.keys["flows"]))
        goodput = list(run.goodput_mbps)
        shortest, longest = goodput[0], goodput[-1]
        records += metric_records(
            config.keys,
            seed,
            {
                SHORTEST: shortest,
                LONGEST: longest,
                LONG_SHORT: longest / shortest if shortest > 0 else math.nan,
                RANK: rank_correlation(rtts, goodput),
                JAIN: metrics.jain_index(run.goodput_mbps),
                UTILIZATION: run.utilization,
                QUEUE_DELAY: run.queue_delay_ms,
                RETX: run.retx(VERSIONS),
            },
        )
    return summarise(records, B3_KEYS, bounds=BOUNDS)


# ---- B4: v3 against v1 ---------------------------------------------------------------------------

B4_KEYS = ["config", "algorithm", "partner", "buffer_bdp"]


def b4_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for config, seed, run in c.each_run(b4_configs(c.settings), measure_run):
        values = {
            BBR_RETX: run.retx(VERSIONS),
            QUEUE_DELAY: run.queue_delay_ms,
            UTILIZATION: run.utilization,
        }
        if config.keys["partner"] == "itself":
            values[JAIN] = metrics.jain_index(run.goodput_mbps)
        else:
            values[BBR_SHARE] = run.share(VERSIONS)
            values[PARTNER_RETX] = run.retx(LOSS_BASED)
        records += metric_records(config.keys, seed, values)
    return summarise(records, B4_KEYS, bounds=BOUNDS)
