"""Response functions through the single-algorithm harness: each algorithm's increase and
decrease against the formula its specification publishes."""

from __future__ import annotations

import math

from ccsim.conformance.check import Check
from ccsim.harness import Harness

RTT = "100ms"


def _decrease(cc: str, window: float) -> float:
    """The fraction of a window of ``window`` segments (reached in congestion avoidance) that a
    loss removes."""
    h = Harness(cc)
    h.set_window(window, window)
    h.round(rtt=RTT)
    before = h.cwnd
    h.loss()
    return 1 - h.cwnd / before


def _increase_per_round(cc: str, window: float, rounds: int = 10) -> float:
    """Mean growth per round trip in congestion avoidance from ``window`` segments."""
    h = Harness(cc)
    h.set_window(window, window)
    h.round(rtt=RTT)  # the first ACK starts a round of its own
    start = h.cwnd
    for _ in range(rounds):
        h.round(rtt=RTT)
    return (h.cwnd - start) / rounds


def _cubic_after_loss(cc: str, t_over_k: float) -> float:
    """cwnd at t = t_over_k x K after a loss at W_max = 100 (RTT 100 ms)."""
    h = Harness(cc)
    h.set_window(100, 100)
    h.fill()
    h.loss()
    h.round(rtt=RTT)
    k = (100 * (1 - 0.7) / 0.4) ** (1 / 3)
    start = h.now
    while (h.now - start) / 1e9 < t_over_k * k - 1e-9:
        h.round(rtt=RTT)
    return h.cwnd


def _hstcp_b(w: float) -> float:
    """RFC 3649 section 5: b(w) between 0.5 at 38 segments and 0.1 at 83000, linear in log w."""
    return (0.1 - 0.5) * (math.log(w) - math.log(38)) / (math.log(83000) - math.log(38)) + 0.5


def _hstcp_a(w: float) -> float:
    """RFC 3649 section 5: a(w) = w^2 p(w) 2 b(w) / (2 - b(w)), p(w) = 0.078 / w^1.2."""
    b = _hstcp_b(w)
    return float(w * w * (0.078 / w**1.2) * 2 * b / (2 - b))


def _dctcp_alpha(cc: str) -> float:
    """alpha after a window of 20 whose first ten ACKs were marked (the first ACK is a round of
    its own; the round after it holds 9 marked of 19)."""
    h = Harness(cc)
    h.set_window(20, 20)
    h.round(rtt="10ms", marks=10)
    return h.inspect()["alpha"]


def _htcp_mean_alpha(d0: float, d1: float) -> float:
    """H-TCP's mean increase per RTT over D = d0..d1 seconds after the last congestion event
    (d0 >= Delta_L = 1 s), with beta = 0.5 and RTT_min = 100 ms (no scaling): the mean of
    2 (1 - beta) alpha(D), alpha(D) = 1 + 10 x + (x / 2)^2, x = D - Delta_L."""
    x0, x1 = d0 - 1.0, d1 - 1.0
    return 1 + 10 * (x0 + x1) / 2 + (x1**3 - x0**3) / (12 * (x1 - x0))


def _growth_after_loss(cc: str, d0: float, d1: float, window: float, rtt: str = RTT) -> float:
    """Mean growth per RTT from D = d0 to d1 seconds after the end of a recovery from a first
    loss at ``window`` segments (in congestion avoidance)."""
    h = Harness(cc)
    h.set_window(window, window)
    h.round(rtt=rtt)
    h.loss()
    h.round(rtt=rtt)  # the recovery ends with this round: D counts from here
    epoch = h.now
    while (h.now - epoch) / 1e9 < d0 - 1e-9:
        h.round(rtt=rtt)
    start_cwnd, rounds = h.cwnd, 0
    while (h.now - epoch) / 1e9 < d1 - 1e-9:
        h.round(rtt=rtt)
        rounds += 1
    return (h.cwnd - start_cwnd) / rounds


def _htcp_decrease_through_a_queue(cc: str, buffer: float, event: int = 5) -> float:
    """The fraction of the window the ``event``-th loss removes on a path of 1000 segments/s and
    100 ms whose drop-tail buffer holds ``buffer`` segments: each round trip takes the base RTT
    plus the queue the window builds (at most ``buffer``), and a round at a full buffer ends in
    a loss. RTT_min is 100 ms, RTT_max 100 ms + buffer / 1000 segments/s."""
    capacity, base = 1000.0, 0.1
    top = capacity * base + buffer
    h = Harness(cc)
    h.set_window(top, top)
    events = 0
    for _ in range(100_000):  # an algorithm that never fills the buffer fails, not hangs
        full = h.cwnd >= top
        h.round(rtt=round(min(max(base, h.cwnd / capacity), top / capacity) * 1e9))
        if full:
            before = h.cwnd
            h.loss()
            events += 1
            if events == event:
                return 1 - h.cwnd / before
    raise RuntimeError(f"{events} losses in 100000 round trips: the window never filled the buffer")


def _check(
    id: str,
    what: str,
    source: str,
    reference: float,
    tolerance: float,
    relative: bool,
    algorithm: str,
    measure: object,
) -> Check:
    assert callable(measure)
    return Check(id, what, source, reference, tolerance, relative, (algorithm,), measure)


CHECKS = [
    _check(
        "reno.decrease",
        "Reno: fraction of the window a loss removes",
        "RFC 5681 section 3.2, eq. 4 (Linux: from cwnd)",
        0.5,
        1e-9,
        False,
        "reno",
        lambda u: _decrease(u("reno"), 40),
    ),
    _check(
        "reno.increase",
        "Reno: growth per RTT in congestion avoidance at 50 segments",
        "RFC 5681 section 3.1: one segment per RTT (cwnd += 1/cwnd per segment: a little under)",
        1.0,
        0.05,
        False,
        "reno",
        lambda u: _increase_per_round(u("reno"), 50),
    ),
    _check(
        "newreno.decrease",
        "NewReno: fraction of the window a loss removes",
        "RFC 6582 section 3.2 with RFC 5681 eq. 4",
        0.5,
        1e-9,
        False,
        "newreno",
        lambda u: _decrease(u("newreno"), 40),
    ),
    _check(
        "cubic.decrease",
        "CUBIC: fraction of the window a loss removes",
        "RFC 9438 section 4.6: beta_cubic = 0.7",
        0.3,
        1e-9,
        False,
        "cubic",
        lambda u: _decrease(u("cubic"), 100),
    ),
    _check(
        "cubic.w_at_k",
        "CUBIC: cwnd at t = K after a loss at W_max = 100 (RTT 100 ms)",
        "RFC 9438 eq. 1-2: W(K) = W_max, K = cbrt(W_max (1 - beta) / C), C = 0.4",
        100.0,
        0.02,
        True,
        "cubic",
        lambda u: _cubic_after_loss(u("cubic"), 1.0),
    ),
    _check(
        "cubic.w_at_2k",
        "CUBIC: cwnd at t = 2K after a loss at W_max = 100 (RTT 100 ms)",
        "RFC 9438 eq. 1: W(2K) = C K^3 + W_max",
        0.4 * (100 * 0.3 / 0.4) + 100,
        0.02,
        True,
        "cubic",
        lambda u: _cubic_after_loss(u("cubic"), 2.0),
    ),
    *(
        _check(
            f"highspeed.b_{w}",
            f"HighSpeed: decrease b(w) at w = {w}",
            "RFC 3649 section 5 (Linux holds it as a table, in steps of about 0.01)",
            _hstcp_b(w),
            0.015,
            False,
            "highspeed",
            lambda u, w=w: _decrease(u("highspeed"), w),
        )
        for w in (1000, 10_000, 83_000)
    ),
    *(
        _check(
            f"highspeed.a_{w}",
            f"HighSpeed: increase a(w) per RTT at w = {w}",
            "RFC 3649 section 5: a(w) = w^2 p(w) 2 b(w) / (2 - b(w)), p(w) = 0.078 / w^1.2",
            _hstcp_a(w),
            0.05,
            True,
            "highspeed",
            lambda u, w=w: _increase_per_round(u("highspeed"), w, rounds=2),
        )
        for w in (1000, 10_000)
    ),
    _check(
        "bic.decrease",
        "BIC: fraction of the window a loss removes",
        "Xu, Harfoush, Rhee, INFOCOM 2004: beta = 0.8 (Linux: 819/1024)",
        0.2,
        0.001,
        False,
        "bic",
        lambda u: _decrease(u("bic"), 1000),
    ),
    _check(
        "htcp.decrease",
        "H-TCP: fraction of the window the first loss removes",
        "Leith & Shorten, PFLDnet 2004; Linux tcp_htcp.c: beta starts at BETA_MIN = 0.5",
        0.5,
        1e-9,
        False,
        "htcp",
        lambda u: _decrease(u("htcp"), 100),
    ),
    _check(
        "htcp.increase_low_speed",
        "H-TCP: growth per RTT 0.1-0.9 s after a loss (RTT 10 ms, 100 segments)",
        "Leith & Shorten 2004: alpha = 1 for Delta <= Delta_L = 1 s (Linux: a segment per cwnd + 1 ACKs)",
        1.0,
        0.03,
        False,
        "htcp",
        lambda u: _growth_after_loss(u("htcp"), 0.1, 0.9, 100, rtt="10ms"),
    ),
    *(
        _check(
            f"htcp.increase_{d0}_{d0 + 1}s",
            f"H-TCP: growth per RTT {d0}-{d0 + 1} s after a first loss (RTT 100 ms, beta 0.5)",
            "Leith & Shorten 2004; tcp_htcp.c: alpha = 1 + 10 (D - 1) + ((D - 1)/2)^2, "
            "x 2 (1 - beta), its mean over the interval (Linux truncates: about 0.5 less)",
            _htcp_mean_alpha(d0, d0 + 1),
            0.04,
            True,
            "htcp",
            # A large window: Linux's counter (a segment per cwnd / alpha + 1 ACKs) costs <1%.
            lambda u, d0=d0: _growth_after_loss(u("htcp"), d0, d0 + 1, 10_000),
        )
        for d0 in (2, 4)
    ),
    _check(
        "htcp.beta_adaptive",
        "H-TCP: fraction of the window the 5th loss removes, RTT 100 ms to 140 ms (queue)",
        "Leith & Shorten 2004; tcp_htcp.c: beta = RTT_min / RTT_max (Linux: in 1/128, truncated)",
        1 - 100 / 140,
        0.008,
        False,
        "htcp",
        lambda u: _htcp_decrease_through_a_queue(u("htcp"), 40),
    ),
    _check(
        "htcp.beta_max",
        "H-TCP: fraction of the window the 5th loss removes, RTT 100 ms to 110 ms",
        "Leith & Shorten 2004; tcp_htcp.c: beta <= 0.8 (BETA_MAX = 102/128)",
        0.2,
        0.008,
        False,
        "htcp",
        lambda u: _htcp_decrease_through_a_queue(u("htcp"), 10),
    ),
    _check(
        "htcp.beta_min",
        "H-TCP: fraction of the window the 5th loss removes, RTT 100 ms to 300 ms",
        "Leith & Shorten 2004; tcp_htcp.c: beta >= 0.5 (BETA_MIN = 64/128; RTT_min / RTT_max "
        "is 1/3 here)",
        0.5,
        0.008,
        False,
        "htcp",
        lambda u: _htcp_decrease_through_a_queue(u("htcp"), 200),
    ),
    _check(
        "scalable.decrease",
        "Scalable: fraction of the window a loss removes",
        "Kelly, CCR 33(2) 2003: b = 1/8",
        0.125,
        1e-9,
        False,
        "scalable",
        lambda u: _decrease(u("scalable"), 1000),
    ),
    _check(
        "scalable.increase",
        "Scalable: growth per RTT at 1000 segments",
        "Kelly 2003: a = 0.01 per acknowledged segment, 1% of the window per RTT",
        10.0,
        0.02,
        True,
        "scalable",
        lambda u: _increase_per_round(u("scalable"), 1000, rounds=1),
    ),
    _check(
        "dctcp.alpha",
        "DCTCP: alpha after a window with 9 of 19 segments marked (alpha from 1)",
        "RFC 8257 section 3.3: alpha = (1 - g) alpha + g F, g = 1/16",
        (1 - 1 / 16) + (1 / 16) * 9 / 19,
        1e-12,
        False,
        "dctcp",
        lambda u: _dctcp_alpha(u("dctcp")),
    ),
]

__all__ = ["CHECKS"]
