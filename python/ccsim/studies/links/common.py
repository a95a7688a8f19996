"""What both changing-link studies share: the sources, the algorithms, the metric names and their
ranges, where C1's traces come from, and the dumbbell of one run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ccsim.studies.core import NONNEGATIVE, UNIT

SPROUT = (
    "Winstein, Sivaraman, Balakrishnan, NSDI 2013 (Stochastic Forecasts Achieve High "
    "Throughput and Low Delay over Cellular Networks: Sprout, the Saturator traces that "
    "Mahimahi ships)"
)
PANTHEON = (
    "Yan et al., USENIX ATC 2018 (Pantheon: the training ground for Internet "
    "congestion-control research)"
)
VERUS = (
    "Zaki et al., SIGCOMM 2015 (Adaptive Congestion Control for Unpredictable Cellular Networks)"
)
ALFREDSSON = (
    "Alfredsson et al., WoWMoM 2013 (Impact of TCP Congestion Control on Bufferbloat in "
    "Cellular Networks)"
)
TCPEVAL = (
    "draft-irtf-iccrg-tcpeval (Common TCP Evaluation Suite, after draft-irtf-tmrg-tests, "
    "Andrew and Floyd): its changing-bandwidth (ramp-up) test"
)
BBR_PAPER = (
    "Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, ACM Queue 2016 (BBR: Congestion-Based "
    "Congestion Control): the bottleneck bandwidth as a max over 10 round trips, gain 1.25 one "
    "round in 8"
)
BBR_AGGREGATION_COMMIT = (
    "Linux commit 78dc70ebaa38 (Jha, Cardwell, Cheng, 2019, Linux 5.1: tcp_bbr: adapt cwnd based "
    "on ack aggregation estimation): with cwnd at 2 BDP, ACKs arriving in bursts after long "
    "silences leave the bottleneck idle; loss-based senders grow cwnd until the buffer is full "
    "and do not have this issue; the extra_acked estimate added to cwnd restores throughput"
)
BBR_AGGREGATION_SLIDES = (
    "Cardwell et al., IETF 101 ICCRG (An Update on BBR Work at Google): the ACK-aggregation "
    "estimate, measured on wifi paths; draft-ietf-ccwg-bbr (BBR.extra_acked added to the "
    "cwnd)"
)
RFC9438 = "RFC 9438 (CUBIC), section 1 and 4: window growth independent of RTT, fast at high BDP"
VEGAS = (
    "Brakmo and Peterson, IEEE JSAC 1995 (TCP Vegas): alpha-beta packets queued, a linear "
    "increase of one segment per RTT"
)

#: Both studies run under Linux 6.x's stack, where BBR and BBRv3 run.
PROFILE = "linux"
#: 1500-byte packets on the wire (mss + 40): one per trace opportunity.
MSS = 1460
WIRE_BYTES = MSS + 40
#: Each flow's start is drawn uniformly in [0, START_JITTER) per seed: the seeds differ in where
#: in the trace (and in the stack's send-time noise) the flow starts.
START_JITTER = "1s"

CUBIC = "cubic"
RENO = "reno"
BBR = "bbr"
BBR3 = "bbr3"
VEGAS_CC = "vegas"
FAST = "fast"
#: C1's senders: loss-based, model-based, delay-based (Vegas, and FAST as the Copa-like
#: delay-based controller ccsim has).
C1_ALGORITHMS = (CUBIC, BBR, BBR3, VEGAS_CC, FAST)
DELAY_BASED = (VEGAS_CC, FAST)
C2_ALGORITHMS = (CUBIC, RENO, BBR, BBR3, VEGAS_CC)
#: C3's BBRs without their ACK-aggregation allowance (the ``ack_aggregation`` parameter off).
BBR_NO_ALLOWANCE = "bbr-no-extra-acked"
BBR3_NO_ALLOWANCE = "bbr3-no-extra-acked"
#: C3's senders: each label, its algorithm and its parameters.
C3_SENDERS: dict[str, tuple[str, dict[str, Any]]] = {
    CUBIC: (CUBIC, {}),
    RENO: (RENO, {}),
    BBR: (BBR, {}),
    BBR3: (BBR3, {}),
    BBR_NO_ALLOWANCE: (BBR, {"ack_aggregation": False}),
    BBR3_NO_ALLOWANCE: (BBR3, {"ack_aggregation": False}),
}
C3_ALGORITHMS = (CUBIC, RENO, BBR, BBR3)

# ---- C1: where the traces come from ---------------------------------------------------------------

#: The setting that points C1 at a directory of traces (every ``NAME.down`` in it, with
#: ``NAME.up`` for the ACKs when present); unset: the synthetic trace shipped with the package
#: (the same files as examples/traces/, which examples/cellular.toml replays).
TRACES_SETTING = "CCSIM_CELLULAR_TRACES"


def default_trace_directory() -> Path:
    """The synthetic trace installed with the package, so that C1 runs wherever ccsim is
    installed (examples/traces/ is in the source tree only)."""
    return Path(__file__).resolve().parent / "traces"


def trace_directory() -> Path:
    """The directory C1 takes its traces from: the setting's, else the synthetic one's."""
    chosen = os.environ.get(TRACES_SETTING, "").strip()
    return Path(chosen).expanduser().resolve() if chosen else default_trace_directory()


def traces(directory: Path | None = None) -> list[tuple[str, Path, Path | None]]:
    """Each downlink trace of ``directory``: (name, ``.down`` file, ``.up`` file or None), by
    name; empty when the directory is missing."""
    directory = trace_directory() if directory is None else directory
    if not directory.is_dir():
        return []
    found = []
    for down in sorted(directory.glob("*.down")):
        up = down.with_suffix(".up")
        found.append((down.stem, down, up if up.is_file() else None))
    return found


# ---- metric names and their ranges ---------------------------------------------------------------

THROUGHPUT = "throughput Mb/s"
P95_DELAY = "p95 one-way delay ms"
MEDIAN_DELAY = "median one-way delay ms"
CAPACITY_USED = "share of the trace's capacity"
RETX = "retransmissions % of sent"

RAMP_TIME = "time to 90% after the step up s"
QUEUE_PEAK = "queue peak after the step down pkts"
DRAIN_TIME = "time to drain after the step down s"
LOW_UTILIZATION = "utilization at the low rate"

AGG_THROUGHPUT = "throughput Mb/s"
AGG_SHARE = "share of the link"
AGG_RTT = "median RTT ms"

PERCENT = (0.0, 100.0)
BOUNDS = {
    THROUGHPUT: NONNEGATIVE,
    P95_DELAY: NONNEGATIVE,
    MEDIAN_DELAY: NONNEGATIVE,
    CAPACITY_USED: NONNEGATIVE,
    RETX: PERCENT,
    RAMP_TIME: NONNEGATIVE,
    QUEUE_PEAK: NONNEGATIVE,
    DRAIN_TIME: NONNEGATIVE,
    LOW_UTILIZATION: UNIT,
    AGG_SHARE: NONNEGATIVE,
    AGG_RTT: NONNEGATIVE,
}


def dumbbell(
    topology: dict[str, Any],
    cc: str,
    rtt: str,
    duration_s: float,
    trace: dict[str, Any],
    params: dict[str, Any] | None = None,
    label: str | None = None,
) -> dict[str, Any]:
    """One run: a dumbbell with these ``topology`` keys and one bulk flow of ``cc`` (base RTT
    ``rtt``; ``params``: the algorithm's, ``label`` its name in the tables), its ``[trace]``
    table as given."""
    flow: dict[str, Any] = {
        "cc": cc,
        "rtt": rtt,
        "mss": MSS,
        "start_jitter": START_JITTER,
        "label": label or cc,
    }
    if params:
        flow["params"] = params
    return {
        "name": "study",
        "seed": 1,
        "duration": f"{duration_s:g}s",
        "topology": {"kind": "dumbbell", **topology},
        "trace": trace,
        "flows": [flow],
    }
