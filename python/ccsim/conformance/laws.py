"""Laws and documented dynamics of whole runs: Reno's and NewReno's throughput under random loss
(Mathis et al.; Padhye, Firoiu, Towsley and Kurose), Free-Drop's law (seed 001), DCTCP under
step marking (Alizadeh et al.), BBR's PROBE_RTT rhythm, DualPI2's coupling."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from ccsim.conformance.check import Check, Uses
from ccsim.metrics import pftk_throughput
from ccsim.runner import run
from ccsim.scenario import Scenario


def _run(data: dict[str, Any]) -> Any:
    return run(Scenario.model_validate(data))


def _lossy_path(name: str, cc: str, p: float, duration: str) -> dict[str, Any]:
    """One flow of ``cc`` under Bernoulli loss ``p`` on the laws' path: 100 Mb/s, 100 ms base
    RTT, a buffer far above the window, 1000-byte segments, the ns2 profile (an ACK per
    segment), seed 7."""
    return {
        "name": name,
        "seed": 7,
        "duration": duration,
        "profile": "ns2",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "100Mbps",
            "bottleneck_delay": "20ms",
            "buffer": "10000pkts",
            "queue": "droptail",
            "loss": p,
        },
        "flows": [{"cc": cc, "rtt": "100ms", "mss": 1000}],
    }


def _mathis_ratio(cc: str, p: float) -> float:
    """Goodput of one flow under Bernoulli loss ``p`` (100 Mb/s, 100 ms, a buffer far above the
    window, one ACK per segment: the ns2 profile) over the Mathis law at its measured mean RTT."""
    # About 20 loss cycles of the law's window.
    flow = _run(_lossy_path("conformance-mathis", cc, p, f"{20 / math.sqrt(p):.0f}s")).flows.iloc[0]
    law = 1000 * 8 / flow.mean_rtt_s * math.sqrt(1.5) / math.sqrt(p)
    return float(flow.goodput_bps / law)


#: The ns2 profile's floor on the retransmission timeout (RFC 6298: max(min_rto, SRTT + max(G,
#: 4 RTTVAR))), which is the timeout on the Mathis checks' path: SRTT is about 105 ms there, and
#: the sender's capture shows first timeouts 200 ms after the last ACK that advanced the window.
NS2_MIN_RTO_S = 0.2


@cache
def _pftk_ratio(cc: str, p: float) -> float:
    """Send rate of one flow under Bernoulli loss ``p`` (the Mathis checks' path and ns2 profile:
    an ACK per segment, b = 1) over PFTK's full model at the run's own loss-indication rate and
    mean RTT, with T0 the profile's 200 ms.

    The model's p is loss indications per segment sent, the losses of one round being one
    indication: here fast retransmits plus timeouts (every expiry; a backed-off one needs its
    retransmission lost too, a fraction p of them) over segments sent. Its B(p) counts every
    segment sent, retransmissions included, and so does the send rate."""
    duration = round(40 / math.sqrt(p))  # about 500 loss indications at the law's rate
    flow = _run(_lossy_path("conformance-pftk", cc, p, f"{duration}s")).flows.iloc[0]
    sent = float(flow.packets_sent)
    indication_rate = float(flow.fast_retransmits + flow.timeouts) / sent
    model = pftk_throughput(indication_rate, float(flow.mean_rtt_s), NS2_MIN_RTO_S, b=1)
    return sent / duration / model


@cache
def _bbr_probe_rtt(cc: str) -> tuple[float, float]:
    """(first time in PROBE_RTT, smallest cwnd during it) of one BBR flow alone on 10 Mb/s,
    20 ms, one BDP of drop-tail buffer (examples/bbr.toml's path)."""
    data = {
        "name": "conformance-bbr",
        "seed": 1,
        "duration": "12s",
        "profile": "linux",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "10Mbps",
            "bottleneck_delay": "5ms",
            "buffer": "1bdp",
            "queue": "droptail",
        },
        "flows": [{"cc": cc, "rtt": "20ms"}],
        "trace": {"sample_interval": "10ms"},
    }
    series = _run(data).series
    probing = series[series["cc_state"] == 3]
    if probing.empty:
        return math.nan, math.nan
    first = float(probing["t_s"].min())
    episode = probing[probing["t_s"] <= first + 0.5]
    return first, float(episode["cwnd_pkts"].min())


@cache
def _dualpi2_queue(prague: str) -> pd.DataFrame:
    """The bottleneck's queue samples, 10 s of one Prague and one CUBIC flow through DualPI2 at
    40 Mb/s, 50 ms (examples/l4s.toml's setup)."""
    data = {
        "name": "conformance-dualpi2",
        "seed": 1,
        "duration": "10s",
        "profile": "linux",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "40Mbps",
            "bottleneck_delay": "5ms",
            "buffer": "10000pkts",
            "queue": "dualpi2",
        },
        "flows": [
            {"label": "l4s", "cc": prague, "rtt": "50ms", "start_jitter": "1s"},
            {"label": "classic", "cc": "cubic", "rtt": "50ms", "start_jitter": "1s"},
        ],
        "trace": {"sample_interval": "10ms"},
    }
    queues = _run(data).queues
    return queues[queues["link"] == 0]


def _coupling_error(prague: str, which: str) -> float:
    """Largest difference over the run between the probability the queue applied and RFC 9332's
    coupling of its base probability p': p_C = p'^2, p_CL = min(k p', 1) with k = 2. NaN when p'
    never rose above 0 (the check would prove nothing)."""
    q = _dualpi2_queue(prague)
    base = q["prob_base"].to_numpy()
    if not (base > 0).any():
        return math.nan
    expected = base**2 if which == "classic" else np.minimum(2 * base, 1.0)
    applied = q["prob_c" if which == "classic" else "prob_l"].to_numpy()
    return float(np.max(np.abs(applied - expected)))


def _l_queue_delay_ms(prague: str) -> float:
    q = _dualpi2_queue(prague)
    return float(q[q["t_s"] >= 5]["l_delay_s"].mean() * 1e3)


#: Free-Drop's packet-loss window in the law checks (ccsim's default).
FREEDROP_W = 100


def _freedrop_law(p: float, w: float = FREEDROP_W) -> float:
    """The seed paper's eq. (4), B RTT = alpha / (p sqrt(w)) segments, with Reno's alpha =
    sqrt(3/2) (the paper's range is sqrt(3/2) to sqrt(2))."""
    return math.sqrt(1.5) / (p * math.sqrt(w))


@cache
def _freedrop_window(cc: str, p: float, cuts: float) -> float:
    """Goodput in segments per base RTT of one flow under Bernoulli loss ``p`` on a 10 Gb/s,
    20 ms path the flow never fills (ns2 profile, one ACK per segment), after a fifth of the run,
    which lasts about ``cuts`` window halvings of the model (tests/it/freedrop.rs's setup). The
    receiver window caps the start-up overshoot at 8 model windows."""
    rate = p * (1 - (1 - p) ** FREEDROP_W)  # halvings per segment in the packet model
    window = math.sqrt(1.5 / rate)
    duration = max(1.25 * cuts / rate / (window / 0.020), 10.0)
    data = {
        "name": "conformance-freedrop",
        "seed": 3,
        "duration": f"{duration:.1f}s",
        "profile": "ns2",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "10Gbps",
            "bottleneck_delay": "5ms",
            "buffer": "100000pkts",
            "loss": p,
        },
        "flows": [
            {
                "cc": cc,
                "rtt": "20ms",
                "mss": 1000,
                "max_window": math.ceil(8 * window),
            }
        ],
        "trace": {"sample_interval": "100ms"},
    }
    series = _run(data).series
    after = series[series["t_s"] > duration / 5]
    return float(after["rate_bps"].mean() / 8 / 1000 * 0.020)


def _freedrop_exponent(cc: str) -> float:
    """-d ln B / d ln p between p = 3e-4 and 1e-3."""
    low, high = _freedrop_window(cc, 3e-4, 20), _freedrop_window(cc, 1e-3, 40)
    return math.log(low / high) / math.log(1e-3 / 3e-4)


@cache
def _dctcp_step(cc: str, rtt_ms: float, k: int) -> tuple[float, float, float]:
    """One DCTCP flow alone through a step-marking queue (marks CE on arrivals that find ``k``
    packets waiting) at 100 Mb/s, base RTT ``rtt_ms``, 10 s, ns2 profile (an ACK per segment, the
    analysis's per-packet feedback), no receive-window limit. Returns (W*, the mean alpha after
    the first second, CE marks per window reduction), W* = C x RTT + K in packets on the wire
    (Alizadeh et al.'s critical window for N = 1)."""
    data = {
        "name": "conformance-dctcp",
        "seed": 1,
        "duration": "10s",
        "profile": "ns2",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "100Mbps",
            "bottleneck_delay": "0.1ms",
            "buffer": "2000pkts",
            "queue": "step",
            "step": {"k": f"{k}pkts"},
        },
        "flows": [{"cc": cc, "rtt": f"{rtt_ms:g}ms", "mss": 1500, "max_window": 100_000}],
        "trace": {"sample_interval": "1ms"},
    }
    results = _run(data)
    queue = results.queues[results.queues["link"] == 0]
    busy = queue[queue["queue_pkts"] > 0]
    wire_bytes = float((busy["queue_bytes"] / busy["queue_pkts"]).median())
    flow = results.flows.iloc[0]
    bdp = 100e6 / 8 / wire_bytes * float(flow["base_rtt_s"])
    w_star = bdp + k
    series = results.series
    alpha = float(series[series["t_s"] > 1.0]["cc_alpha"].mean())
    marks_per_cut = float(queue["marks"].iloc[-1]) / max(int(flow["window_cuts"]), 1)
    return w_star, alpha, marks_per_cut


#: DCTCP's law checks: W* = C x RTT + K of about 126 packets (9.6 ms at 100 Mb/s, K = 48), where
#: g = 1/16 meets the paper's bound g < 1.386 / sqrt(2 (C x RTT + K)) = 0.087.
DCTCP_RTT_MS, DCTCP_K = 9.6, 48


def _dctcp_alpha_over_law(cc: str) -> float:
    w_star, alpha, _ = _dctcp_step(cc, DCTCP_RTT_MS, DCTCP_K)
    return alpha / math.sqrt(2 / w_star)


def _dctcp_marks_per_window(cc: str) -> float:
    w_star, _, marks_per_cut = _dctcp_step(cc, DCTCP_RTT_MS, DCTCP_K)
    return marks_per_cut / w_star


def _mathis_measure(cc: str, p: float) -> Callable[[Uses], float]:
    return lambda uses: _mathis_ratio(uses(cc), p)


def _pftk_measure(cc: str, p: float) -> Callable[[Uses], float]:
    return lambda uses: _pftk_ratio(uses(cc), p)


CHECKS = [
    *(
        Check(
            f"{cc}.mathis_{p:g}",
            f"{cc.capitalize()}: goodput over the Mathis law under random loss p = {p:g}",
            "Mathis et al., CCR 27(3) 1997: MSS/RTT x sqrt(3/2) / sqrt(p), one ACK per segment",
            1.0,
            0.2,
            False,
            (cc,),
            _mathis_measure(cc, p),
        )
        for cc in ("reno", "newreno")
        for p in (0.003, 0.01)
    ),
    *(
        Check(
            f"{cc}.pftk_{p:g}",
            f"{cc.capitalize()}: send rate over PFTK's full model at its loss-indication rate,"
            f" random loss p = {p:g}",
            "Padhye, Firoiu, Towsley, Kurose, SIGCOMM 1998, eq. (31), b = 1: p = (fast"
            " retransmits + timeouts) / segments sent, T0 = the RTO (200 ms)",
            1.0,
            0.1,
            False,
            (cc,),
            _pftk_measure(cc, p),
        )
        for cc in ("reno", "newreno")
        for p in (0.005, 0.01, 0.02)
    ),
    Check(
        "freedrop.law_1e-3",
        "Free-Drop (w = 100): goodput x RTT over the paper's law at random loss p = 1e-3",
        "Free-Drop TCP (seed 001) eq. (4): B RTT = alpha / (p sqrt(w)), alpha = sqrt(3/2) to sqrt(2)",
        1.0,
        0.2,
        False,
        ("freedrop",),
        lambda u: _freedrop_window(u("freedrop"), 1e-3, 40) / _freedrop_law(1e-3),
    ),
    Check(
        "freedrop.p_exponent",
        "Free-Drop (w = 100): -d ln(goodput) / d ln(p) between p = 3e-4 and 1e-3",
        "Free-Drop TCP (seed 001) eq. (4): B ~ 1 / p (Reno's law: 1 / sqrt(p))",
        1.0,
        0.25,
        False,
        ("freedrop",),
        lambda u: _freedrop_exponent(u("freedrop")),
    ),
    Check(
        "dctcp.marks_per_cut",
        "DCTCP under step marking (W* = C RTT + K = 126): CE marks per window reduction over W*",
        "Alizadeh et al., SIGCOMM 2010, section 3.3: one window of marks per sawtooth cycle",
        1.0,
        0.1,
        False,
        ("dctcp",),
        lambda u: _dctcp_marks_per_window(u("dctcp")),
    ),
    Check(
        "dctcp.alpha_law",
        "DCTCP under step marking (W* = C RTT + K = 126): mean alpha over sqrt(2 / W*)",
        "Alizadeh et al., SIGCOMM 2010, eq. (9): alpha ~ sqrt(2 / W*), one flow, an ACK per segment",
        1.0,
        0.1,
        False,
        ("dctcp",),
        lambda u: _dctcp_alpha_over_law(u("dctcp")),
    ),
    Check(
        "bbr.probe_rtt_time",
        "BBR: first PROBE_RTT (s) with the minimum RTT unchanged since the start",
        "tcp_bbr.c: bbr_min_rtt_win_sec = 10 (the min-RTT filter's window)",
        10.0,
        0.5,
        False,
        ("bbr",),
        lambda u: _bbr_probe_rtt(u("bbr"))[0],
    ),
    Check(
        "bbr.probe_rtt_cwnd",
        "BBR: cwnd in PROBE_RTT (segments)",
        "tcp_bbr.c: bbr_cwnd_min_target = 4",
        4.0,
        0.0,
        False,
        ("bbr",),
        lambda u: _bbr_probe_rtt(u("bbr"))[1],
    ),
    Check(
        "dualpi2.classic_coupling",
        "DualPI2: largest |p_C - p'^2| over a Prague + CUBIC run",
        "RFC 9332 section 2.4: the classic drop/mark probability is the square of p'",
        0.0,
        1e-12,
        False,
        ("prague",),
        lambda u: _coupling_error(u("prague"), "classic"),
    ),
    Check(
        "dualpi2.l4s_coupling",
        "DualPI2: largest |p_CL - min(2 p', 1)| over a Prague + CUBIC run",
        "RFC 9332 section 2.4: coupled L4S probability k p', k = 2 (Linux default)",
        0.0,
        1e-12,
        False,
        ("prague",),
        lambda u: _coupling_error(u("prague"), "l4s"),
    ),
    Check(
        "dualpi2.l_queue_delay",
        "DualPI2: mean L-queue delay (ms) of a Prague flow beside CUBIC, after 5 s",
        "RFC 9332 section 1: about 1 ms of L4S queueing delay (step threshold 1 ms)",
        0.5,
        0.5,
        False,
        ("prague",),
        lambda u: _l_queue_delay_ms(u("prague")),
    ),
]

__all__ = ["CHECKS"]
