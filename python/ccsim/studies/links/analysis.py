"""From runs to records. C1: each flow's throughput after the warm-up and the one-way delay of
every segment it sent after the warm-up, read from its packet capture (an ACK's timestamp
option carries the time the receiver got the segment it answers and that segment's send time).
C2: the flow's rate and the bottleneck queue around the two steps.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ccsim.studies.core import Context, metric_records, summarise, with_intervals
from ccsim.studies.links.common import (
    AGG_SHARE,
    AGG_THROUGHPUT,
    BOUNDS,
    CAPACITY_USED,
    DRAIN_TIME,
    LOW_UTILIZATION,
    MEDIAN_DELAY,
    P95_DELAY,
    QUEUE_PEAK,
    RAMP_TIME,
    RETX,
    THROUGHPUT,
)
from ccsim.studies.links.figures import c1_figure, c2_figure
from ccsim.studies.links.step_run import StepRun
from ccsim.studies.links.workload import (
    C2_SAMPLE_S,
    C3_RATE_BPS,
    RAMP_WINDOW_S,
    Config,
    c1_configs,
    c2_configs,
    c3_configs,
)

# ---- one-way delays from a flow's capture ------------------------------------------------------------

#: The port every receiver answers from (docs/pcap.md): a record from it is an ACK.
RECEIVER_PORT = 5001
_TIMESTAMP_OPTION = 8
_WRAP_US = 1 << 32
_NANOSECOND_MAGIC = 0xA1B23C4D


def _timestamps(options: bytes) -> tuple[int, int] | None:
    """TSval and TSecr of a TCP header's options, None without the option."""
    i = 0
    while i < len(options):
        kind = options[i]
        if kind == 0:
            return None
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(options) or options[i + 1] < 2:
            return None
        length = options[i + 1]
        if kind == _TIMESTAMP_OPTION and length == 10 and i + 10 <= len(options):
            tsval, tsecr = struct.unpack_from(">II", options, i + 2)
            return tsval, tsecr
        i += length
    return None


def one_way_delays(capture: bytes, since_s: float = 0.0) -> np.ndarray:
    """The one-way delay, in seconds, of the segment each ACK in a flow's capture answers, for
    the ACKs back at the sender at or after ``since_s``: the ACK's TSval (when the receiver got
    the segment, microseconds, modulo 2^32) less its TSecr (when the segment was sent), as
    ccsim writes them (docs/pcap.md)."""
    if len(capture) < 24:
        return np.empty(0)
    # Nanosecond or microsecond record times, as the file's magic number says.
    scale = 1e9 if struct.unpack_from("<I", capture, 0)[0] == _NANOSECOND_MAGIC else 1e6
    delays = []
    offset = 24
    while offset + 16 <= len(capture):
        seconds, fraction, included = struct.unpack_from("<III", capture, offset)
        packet = capture[offset + 16 : offset + 16 + included]
        offset += 16 + included
        if seconds + fraction / scale < since_s or len(packet) < 20:
            continue
        ip_header = (packet[0] & 0x0F) * 4
        tcp = packet[ip_header:]
        if len(tcp) < 20 or int.from_bytes(tcp[0:2], "big") != RECEIVER_PORT:
            continue
        stamps = _timestamps(tcp[20 : (tcp[12] >> 4) * 4])
        if stamps is None:
            continue
        tsval, tsecr = stamps
        delays.append(((tsval - tsecr) % _WRAP_US) / 1e6)
    return np.asarray(delays, dtype=float)


def _bottleneck(links: pd.DataFrame) -> pd.Series:
    return links[(links["src"] == "R1") & (links["dst"] == "R2")].iloc[0]


def _retx_percent(flows: pd.DataFrame) -> float:
    sent = float(flows["packets_sent"].iloc[0])
    return 100.0 * float(flows["retransmits"].iloc[0]) / sent if sent > 0 else math.nan


# ---- C1 ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CellularRun:
    throughput_mbps: float
    delays_s: np.ndarray
    capacity_bps: float
    retx_percent: float

    def percentile_ms(self, q: float) -> float:
        return float(np.percentile(self.delays_s, q)) * 1e3 if len(self.delays_s) else math.nan


def measure_cellular(
    load: Callable[[str], pd.DataFrame], config: Config, capture: bytes
) -> CellularRun:
    series = load("series")
    late = series[(series["flow"] == 0) & (series["t_s"] > config.warmup_s)]
    return CellularRun(
        throughput_mbps=float(late["rate_bps"].mean()) / 1e6 if len(late) else math.nan,
        delays_s=one_way_delays(capture, config.warmup_s),
        capacity_bps=float(_bottleneck(load("links"))["rate_bps"]),
        retx_percent=_retx_percent(load("flows")),
    )


def cellular_runs(c: Context, configs: list[Config]) -> Iterator[tuple[Config, int, CellularRun]]:
    """Every finished run of C1, measured: as :meth:`Context.each_run`, but each run's packet
    capture (a file of its run directory, not a table) read as well."""
    for config in configs:
        result = c.results.get(config.name)
        if result is None:
            continue
        for point, load in c.points(config.name):
            path = result.store.run_dir(point["run_id"]) / "pcap" / "flow-0.pcap"
            yield config, int(point["seed"]), measure_cellular(load, config, path.read_bytes())


C1_KEYS = ["trace", "algorithm"]


def c1_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for config, seed, run in cellular_runs(c, c1_configs(c.settings)):
        records += metric_records(
            config.keys,
            seed,
            {
                THROUGHPUT: run.throughput_mbps,
                P95_DELAY: run.percentile_ms(95.0),
                MEDIAN_DELAY: run.percentile_ms(50.0),
                CAPACITY_USED: run.throughput_mbps * 1e6 / run.capacity_bps,
                RETX: run.retx_percent,
            },
        )
    table = summarise(records, C1_KEYS, bounds=BOUNDS)
    c1_figure(c, with_intervals(table))
    return table


# ---- C2 ------------------------------------------------------------------------------------------------


def measure_step(load: Callable[[str], pd.DataFrame], config: Config) -> StepRun:
    assert config.steps_s is not None
    series = load("series")
    mine = series[series["flow"] == 0].sort_values("t_s")
    window = max(1, round(RAMP_WINDOW_S / C2_SAMPLE_S))
    rate = mine["rate_bps"].astype(float).rolling(window, min_periods=window).mean()
    link = int(_bottleneck(load("links"))["link"])
    queues = load("queues")
    queue = queues[queues["link"] == link].sort_values("t_s")
    return StepRun(
        t_s=mine["t_s"].to_numpy(float),
        rate_bps=rate.fillna(0.0).to_numpy(float),
        queue_t_s=queue["t_s"].to_numpy(float),
        queue_pkts=queue["queue_pkts"].to_numpy(float),
        down_s=config.steps_s[0],
        up_s=config.steps_s[1],
        end_s=config.duration_s,
    )


C2_KEYS = ["algorithm"]


def c2_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    shown: dict[str, StepRun] = {}
    first = c.settings.first_seed
    for config, seed, run in c.each_run(c2_configs(c.settings), measure_step):
        records += metric_records(
            config.keys,
            seed,
            {
                RAMP_TIME: run.ramp_time(),
                QUEUE_PEAK: run.queue_peak(),
                DRAIN_TIME: run.drain_time(),
                LOW_UTILIZATION: run.low_utilization(),
            },
        )
        if seed == first:
            shown[config.cc] = run
    table = summarise(records, C2_KEYS, bounds=BOUNDS)
    c2_figure(c, with_intervals(table), shown)
    return table


# ---- C3 ------------------------------------------------------------------------------------------------


def measure_throughput(load: Callable[[str], pd.DataFrame], config: Config) -> float:
    """The flow's delivered rate averaged after the warm-up, Mb/s."""
    series = load("series")
    late = series[(series["flow"] == 0) & (series["t_s"] > config.warmup_s)]
    return float(late["rate_bps"].mean()) / 1e6 if len(late) else math.nan


C3_KEYS = ["algorithm", "level"]


def c3_table(c: Context) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for config, seed, mbps in c.each_run(c3_configs(c.settings), measure_throughput):
        records += metric_records(
            config.keys, seed, {AGG_THROUGHPUT: mbps, AGG_SHARE: mbps * 1e6 / C3_RATE_BPS}
        )
    return summarise(records, C3_KEYS, bounds=BOUNDS)
