"""Fluid models of Reno and Free-Drop TCP: Monte Carlo, closed forms and response curves.

Source: seed 001, Baryshnikov, Coffman, Feng and Misra, "Free-Drop TCP" (2006), section 2 and
section 3 (THROUGHPUT); the Reno sawtooth is Mathis, Semke, Mahdavi and Ott (CCR 1997). The
oracles are described in docs/fluid.md; studies F1 and F4 use them
(docs/studies/free-drop-tcp.md).

The fluid model (seed 001, eq. 1). The congestion window ``W`` (packets) grows at ``dW/dt =
1/RTT``. Losses arrive as a Poisson process of rate ``lam`` (per second). A loss arriving at ``t``
halves ``W`` if and only if another loss arrived in ``[t - T, t)``, i.e. if the gap since the
previous arrival is shorter than ``T`` seconds. ``T = inf`` removes the condition (every arrival
halves: TCP); ``T = 0`` means no arrival is ever preceded within the window, so nothing is ever
cut and the window grows without bound (reported as an infinite throughput). The throughput is
the rate ``W/RTT``, so ``B = E[W]/RTT`` with ``E`` the time average.

Cycles. Each cut happens at an arrival, and whether a later arrival cuts depends only on later
gaps, which are i.i.d. ``Exp(lam)``: the times ``D`` between cuts are i.i.d. (a renewal process).
``D`` is the sum of the gaps up to and including the first gap shorter than ``T``; with
``q = 1 - exp(-lam T)`` (the probability that an arrival cuts) it is, exactly::

    D = M T + Gamma(M, 1/lam) + G,   M ~ Geometric(q) - 1 (long gaps first),
                                     G ~ Exp(lam) conditioned on G < T (the short, cutting gap).

With ``a`` the window just after a cut, ``a' = (a + D/RTT)/2``, so stationary ``E[a] = E[D]/RTT``
and (``a`` is independent of the cycle's own ``D``) the time-average window is::

    E[W] = E[D]/RTT + E[D^2] / (2 RTT E[D]).                                             (*)

:func:`simulate` samples whole cycles for thousands of paths at once (no per-event Python loop);
:func:`simulate_arrivals` steps through every loss arrival (in vectorized blocks) and serves as an
independent check of the cycle reduction.

Units: seconds, packets, packets per second.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "FLUID_ALPHA",
    "FluidResult",
    "ShiftedFit",
    "cut_probability",
    "cycle_moments",
    "fd_asymptotic_throughput",
    "fd_packet_throughput",
    "fd_throughput",
    "fit_shifted_response",
    "reno_periodic_cov",
    "reno_periodic_window",
    "reno_poisson_cov",
    "reno_poisson_window",
    "shift_window",
    "shift_window_exact",
    "shifted_response",
    "simulate",
    "simulate_arrivals",
    "simulate_packet",
    "tcp_throughput",
]

#: The constant of seed 001 eq. (4) ``B ~ alpha/(RTT p sqrt(w))`` in the fluid model: ``sqrt(2)``
#: (derived in :func:`fd_asymptotic_throughput`; the paper states only ``sqrt(3/2) <= alpha <=
#: sqrt(2)`` for eq. (2), the Reno law, "depending on model details").
FLUID_ALPHA = math.sqrt(2.0)

# ---- argument checks ---------------------------------------------------------------------------


def _positive(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value}")
    return value


def _window_time(T: float) -> float:
    T = float(T)
    if math.isnan(T) or T < 0:
        raise ValueError(f"T (the loss window, seconds) must be >= 0 or inf, got {T}")
    return T


def _probability(p: float) -> float:
    p = float(p)
    if not 0 < p < 1:
        raise ValueError(f"loss probability p must be in (0, 1), got {p}")
    return p


def _packet_window(w: float) -> float:
    w = float(w)
    if math.isnan(w) or w < 0:
        raise ValueError(f"w (the packet-loss window, packets) must be >= 0 or inf, got {w}")
    return w


def _count(name: str, value: int, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    return int(value)


# ---- Monte Carlo -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FluidResult:
    """Time averages of one Monte Carlo run, each with its standard error (``*_se``).

    ``throughput`` is ``B = E[W]/RTT`` (packets/s), ``mean_window`` the time-average window
    ``E[W]`` (packets), ``window_cov`` the coefficient of variation ``sqrt(E[W^2] - E[W]^2)/E[W]``
    of the window over time, ``cut_rate`` the halvings per second (``lam q`` in expectation).
    Standard errors come from a jackknife over groups of independent paths. With ``T = 0`` no
    cut ever happens: throughput and window are ``inf`` and the CoV ``nan``.
    """

    throughput: float
    throughput_se: float
    mean_window: float
    mean_window_se: float
    window_cov: float
    window_cov_se: float
    cut_rate: float
    n_paths: int


def _never_cut(n_paths: int) -> FluidResult:
    inf, nan = math.inf, math.nan
    return FluidResult(inf, nan, inf, nan, nan, nan, 0.0, n_paths)


def _statistics(sums: np.ndarray, rtt: float) -> np.ndarray:
    """(mean window, CoV, cut rate) from pooled sums (time, int W dt, int W^2 dt, cuts)."""
    time, w1, w2, cuts = sums
    mean = w1 / time
    var = max(w2 / time - mean**2, 0.0)
    return np.array([mean, math.sqrt(var) / mean, cuts / time])


def _summarize(per_path: np.ndarray, rtt: float, groups: int = 32) -> FluidResult:
    """Ratio estimators over all paths; jackknife standard errors over ``groups`` path groups.

    ``per_path`` has rows (time, int W dt, int W^2 dt, cuts) and one column per path.
    """
    n_paths = per_path.shape[1]
    g = min(groups, n_paths)
    group_sums = np.stack([part.sum(axis=1) for part in np.array_split(per_path, g, axis=1)])
    total = group_sums.sum(axis=0)
    full = _statistics(total, rtt)
    leave_out = np.stack([_statistics(total - s, rtt) for s in group_sums])
    se = np.sqrt((g - 1) / g * ((leave_out - leave_out.mean(axis=0)) ** 2).sum(axis=0))
    mean, cov, cut_rate = full
    return FluidResult(
        throughput=float(mean / rtt),
        throughput_se=float(se[0] / rtt),
        mean_window=float(mean),
        mean_window_se=float(se[0]),
        window_cov=float(cov),
        window_cov_se=float(se[1]),
        cut_rate=float(cut_rate),
        n_paths=n_paths,
    )


def _check_simulation(lam: float, T: float, rtt: float, n_paths: int) -> tuple[float, float, float]:
    lam, rtt = _positive("lam (loss arrivals per second)", lam), _positive("rtt", rtt)
    _count("n_paths", n_paths, 2)
    return lam, _window_time(T), rtt


def _cycle_lengths(
    rng: np.random.Generator, lam: float, T: float, shape: tuple[int, int]
) -> np.ndarray:
    """Exact samples of the time ``D`` between cuts (module docstring, "Cycles")."""
    if math.isinf(T):
        return rng.exponential(1 / lam, shape)
    q = cut_probability(lam, T)
    long_gaps = rng.geometric(q, shape) - 1
    short_gap = -np.log1p(-rng.random(shape) * q) / lam
    return long_gaps * T + rng.gamma(long_gaps, 1 / lam) + short_gap


def simulate(
    lam: float,
    T: float,
    rtt: float,
    *,
    n_paths: int = 2000,
    n_cycles: int = 300,
    warmup_cycles: int = 30,
    seed: int | None = 0,
) -> FluidResult:
    """Monte Carlo of the seed-001 fluid model, one whole cut cycle at a time.

    ``n_paths`` independent paths of ``warmup_cycles + n_cycles`` cycles each. Cycle lengths
    ``D`` are drawn exactly (module docstring); the window just after each cut follows
    ``a_{n+1} = (a_n + D_n/RTT)/2`` from ``a_0 = 0`` (a linear filter, run along the cycle axis)
    and, within a cycle, ``W(t) = a + t/RTT``, so each cycle contributes::

        int W dt   = a D + D^2/(2 RTT)
        int W^2 dt = a^2 D + a D^2/RTT + D^3/(3 RTT^2)

    The first ``warmup_cycles`` are discarded (the start is forgotten as ``2^-n``). ``T = inf``
    is TCP (halve at every arrival); ``T = 0`` never cuts (see :class:`FluidResult`).
    """
    lam, T, rtt = _check_simulation(lam, T, rtt, n_paths)
    n_cycles = _count("n_cycles", n_cycles, 1)
    warmup_cycles = _count("warmup_cycles", warmup_cycles, 0)
    if T == 0:
        return _never_cut(n_paths)
    rng = np.random.default_rng(seed)
    d = _cycle_lengths(rng, lam, T, (warmup_cycles + n_cycles, n_paths))
    # scipy takes most of a second to import: only when a model needs it
    from scipy.signal import lfilter

    after_cut = lfilter([0.5], [1.0, -0.5], d / rtt, axis=0)
    start = np.vstack([np.zeros((1, n_paths)), after_cut[:-1]])[warmup_cycles:]
    d = d[warmup_cycles:]
    w1 = start * d + d**2 / (2 * rtt)
    w2 = start**2 * d + start * d**2 / rtt + d**3 / (3 * rtt**2)
    cuts = np.full(n_paths, float(n_cycles))
    return _summarize(np.stack([d.sum(0), w1.sum(0), w2.sum(0), cuts]), rtt)


def _arrival_block(
    start: np.ndarray, gaps: np.ndarray, cut: np.ndarray, rtt: float
) -> tuple[np.ndarray, np.ndarray]:
    """Evolve windows over a block of arrivals in closed form; return (starts of gaps, end).

    With ``x_k = g_k/RTT`` and ``f_k`` = 1/2 if arrival k cuts else 1, ``W_{k+1} = f_k (W_k +
    x_k)``; with ``P_k = f_0 ... f_{k-1}`` this is ``W_k = P_k (W_0 + sum_{j<k} x_j/P_j)``. Blocks
    are short enough (64 arrivals) that ``P_k >= 2^-64`` stays well inside float range.
    """
    factors = np.where(cut, 0.5, 1.0)
    prod = np.vstack([np.ones((1, start.size)), np.cumprod(factors, axis=0)])
    partial = np.cumsum(gaps / rtt / prod[:-1], axis=0)
    windows = prod * np.vstack([start[None, :], start[None, :] + partial])
    return windows[:-1], windows[-1]


def simulate_arrivals(
    lam: float,
    T: float,
    rtt: float,
    *,
    n_paths: int = 1000,
    n_arrivals: int = 2000,
    warmup_arrivals: int = 200,
    seed: int | None = 0,
) -> FluidResult:
    """Monte Carlo of the fluid model arrival by arrival (a check on :func:`simulate`).

    Gaps between loss arrivals are i.i.d. ``Exp(lam)``; arrival k halves the window iff its gap
    ``g_k < T``. Windows are evolved in blocks of 64 arrivals for all paths at once
    (:func:`_arrival_block`); per gap, ``int W dt = W g + g^2/(2 RTT)`` and ``int W^2 dt = W^2 g
    + W g^2/RTT + g^3/(3 RTT^2)``. The cost grows as ``1/q``; prefer :func:`simulate` at small
    ``lam T``.
    """
    lam, T, rtt = _check_simulation(lam, T, rtt, n_paths)
    n_arrivals = _count("n_arrivals", n_arrivals, 1)
    warmup_arrivals = _count("warmup_arrivals", warmup_arrivals, 0)
    if T == 0:
        return _never_cut(n_paths)
    rng = np.random.default_rng(seed)
    window = np.zeros(n_paths)
    sums = np.zeros((4, n_paths))
    done = 0
    while done < warmup_arrivals + n_arrivals:
        size = min(64, warmup_arrivals + n_arrivals - done)
        gaps = rng.exponential(1 / lam, (size, n_paths))
        cut = gaps < T
        starts, window = _arrival_block(window, gaps, cut, rtt)
        kept = np.arange(done, done + size) >= warmup_arrivals
        g, w = gaps[kept], starts[kept]
        sums += np.stack(
            [
                g.sum(0),
                (w * g + g**2 / (2 * rtt)).sum(0),
                (w**2 * g + w * g**2 / rtt + g**3 / (3 * rtt**2)).sum(0),
                cut[kept].sum(0),
            ]
        )
        done += size
    return _summarize(sums, rtt)


def simulate_packet(p: float, w: float, rtt: float, **options: int | None) -> FluidResult:
    """Monte Carlo throughput for the packet-model parameters ``(p, w)`` of seed 001 section 2.

    The paper maps the packet model onto the fluid model by ``lam = B p`` (losses per second =
    packets per second times loss probability) and ``T = w/B`` (``w`` packets last ``w/B``
    seconds), where ``B`` is the throughput itself. ``lam T = p w`` whatever ``B`` is, and the
    fluid model is scale-free: at fixed ``lam T``, time scales as ``1/lam`` and the window as
    ``1/(lam RTT)``, so ``B(lam, T) = c(lam T)/(lam RTT^2)`` with a dimensionless ``c``. The
    fixed point ``B = B(p B, w/B)`` is then ``B = sqrt(c(p w)/p)/RTT``. One :func:`simulate` at
    ``lam = 1/RTT, T = p w RTT`` measures ``c`` and the rest follows exactly (the relative
    standard error of ``B`` is half that of ``c``). ``options`` go to :func:`simulate`.
    """
    p, w, rtt = _probability(p), _packet_window(w), _positive("rtt", rtt)
    lam = 1 / rtt
    fluid = simulate(lam, p * w / lam, rtt, **options)  # type: ignore[arg-type]
    if math.isinf(fluid.throughput):
        return fluid
    c = fluid.throughput * lam * rtt**2
    b = math.sqrt(c / p) / rtt
    rel = fluid.throughput_se / fluid.throughput / 2
    return FluidResult(
        throughput=b,
        throughput_se=b * rel,
        mean_window=b * rtt,
        mean_window_se=b * rtt * rel,
        window_cov=fluid.window_cov,
        window_cov_se=fluid.window_cov_se,
        cut_rate=fluid.cut_rate * (p * b) / lam,
        n_paths=fluid.n_paths,
    )


# ---- closed forms ------------------------------------------------------------------------------


def tcp_throughput(lam: float, rtt: float) -> float:
    """Seed 001 eq. (3) (from Misra, Gong and Towsley 1999): ``B = 2/(RTT^2 lam)`` packets/s.

    Every Poisson arrival halves: ``D ~ Exp(lam)``, ``E[D] = 1/lam``, ``E[D^2] = 2/lam^2``, and
    (*) gives ``E[W] = 2/(lam RTT)``. With ``lam = p B`` this is ``B = sqrt(2)/(RTT sqrt(p))``,
    eq. (2) with ``alpha = sqrt(2)``.
    """
    return 2.0 / (_positive("rtt", rtt) ** 2 * _positive("lam", lam))


def cut_probability(lam: float, T: float) -> float:
    """``q = 1 - exp(-lam T)``: the chance that a loss arrival halves the window (seed 001 sec. 2).

    ``lam T`` small: ``q = lam T + O((lam T)^2)``; ``T = inf``: 1 (TCP); ``T = 0``: 0.
    """
    lam, T = _positive("lam", lam), _window_time(T)
    return 1.0 if math.isinf(T) else -math.expm1(-lam * T)


def cycle_moments(lam: float, T: float) -> tuple[float, float]:
    """Exact ``(E[D], E[D^2])`` of the time between cuts (module docstring, "Cycles").

    With ``e = exp(-lam T)``, ``q = 1 - e``, long gaps ``L = T + Exp(lam)`` (``E[L] = T + 1/lam``,
    ``Var L = 1/lam^2``), their number ``M`` (``E[M] = e/q``, ``E[M^2] = e(1 + e)/q^2``) and the
    short gap ``G`` (``E[G] = (1 - e(1 + lam T))/(lam q)``, ``E[G^2] = (2 - e((lam T)^2 + 2 lam T
    + 2))/(lam^2 q)``)::

        E[D]   = 1/(lam q)                                         (Wald)
        E[D^2] = E[M] Var L + E[M^2] E[L]^2 + 2 E[M] E[L] E[G] + E[G^2]

    ``T = 0`` gives ``(inf, inf)``.
    """
    lam, T = _positive("lam", lam), _window_time(T)
    if T == 0:
        return math.inf, math.inf
    if math.isinf(T):
        return 1 / lam, 2 / lam**2
    x = lam * T
    e, q = math.exp(-x), -math.expm1(-x)
    mean_l, var_l = T + 1 / lam, 1 / lam**2
    mean_m, mean_m2 = e / q, e * (1 + e) / q**2
    mean_g = (1 - e * (1 + x)) / (lam * q)
    mean_g2 = (2 - e * (x * x + 2 * x + 2)) / (lam**2 * q)
    second = mean_m * var_l + mean_m2 * mean_l**2 + 2 * mean_m * mean_l * mean_g + mean_g2
    return 1 / (lam * q), second


def fd_throughput(lam: float, T: float, rtt: float) -> float:
    """Exact throughput of the seed-001 fluid model, ``B = E[W]/RTT`` with (*) and
    :func:`cycle_moments`: ``B = (E[D] + E[D^2]/(2 E[D]))/RTT^2``.

    Limits: ``T = inf`` gives eq. (3), ``2/(RTT^2 lam)``; ``lam T -> 0`` gives ``D`` nearly
    exponential with rate ``lam q ~ lam^2 T`` (the paper's asymptotic Poisson law), so ``B ~
    2/(RTT^2 lam^2 T)``; ``T = 0`` gives ``inf``.
    """
    rtt = _positive("rtt", rtt)
    m1, m2 = cycle_moments(lam, T)
    if math.isinf(m1):
        return math.inf
    return (m1 + m2 / (2 * m1)) / rtt**2


def fd_packet_throughput(p: float, w: float, rtt: float) -> float:
    """Exact fluid-model throughput for packet parameters: ``B = sqrt(c(p w)/p)/RTT``.

    ``c(x) = lam RTT^2 B(lam, x/lam)`` from :func:`fd_throughput` (any ``lam``; see
    :func:`simulate_packet` for the mapping ``lam = p B``, ``T = w/B``). ``c(inf) = 2`` gives
    TCP's ``sqrt(2)/(RTT sqrt(p))``; ``c(x) ~ 2/x`` gives eq. (4), ``sqrt(2)/(RTT p sqrt(w))``.
    ``w = 0`` gives ``inf``.
    """
    p, w, rtt = _probability(p), _packet_window(w), _positive("rtt", rtt)
    c = fd_throughput(1.0, p * w, 1.0)
    return math.sqrt(c / p) / rtt


def fd_asymptotic_throughput(p: float, w: float, rtt: float, alpha: float = FLUID_ALPHA) -> float:
    """Seed 001 eq. (4): ``B ~ alpha/(RTT p sqrt(w))`` as ``p -> 0`` (and ``p w -> 0``).

    Derivation (paper, sec. 2): an arrival cuts with probability ``1 - exp(-lam T) ~ lam T``, so
    cuts form an asymptotically Poisson process of rate ``lam^2 T``; eq. (3) with that rate gives
    ``B = 2/(RTT^2 lam^2 T)``. Substituting ``lam = B p`` and ``T = w/B``: ``lam^2 T = B p^2 w``,
    so ``B^2 = 2/(RTT^2 p^2 w)``, i.e. ``alpha = sqrt(2)`` in the fluid model. The paper states no
    value for eq. (4)'s alpha; for eq. (2) it gives ``sqrt(3/2) <= alpha <= sqrt(2)``.
    """
    p, w, rtt = _probability(p), _packet_window(w), _positive("rtt", rtt)
    alpha = _positive("alpha", alpha)
    return math.inf if w == 0 else alpha / (rtt * p * math.sqrt(w))


def reno_periodic_window(p: float) -> float:
    """Mathis et al. (1997) sawtooth, one loss every ``1/p`` packets: ``E[W] = sqrt(3/(2p))``.

    W climbs from ``Wm/2`` to ``Wm`` in ``Wm/2`` RTTs, sending ``3 Wm^2/8 = 1/p`` packets, so
    ``Wm = sqrt(8/(3p))`` and the mean is ``3 Wm/4``. (In the fluid model: deterministic ``D``
    in (*) gives ``B = 3/(2 RTT^2 lam)``, the same law.) Throughput: divide by RTT.
    """
    return math.sqrt(3 / (2 * _probability(p)))


def reno_periodic_cov() -> float:
    """CoV of the periodic sawtooth window: uniform on ``[Wm/2, Wm]``, ``1/(3 sqrt(3)) = 0.192``."""
    return 1 / (3 * math.sqrt(3))


def reno_poisson_window(p: float) -> float:
    """Reno with Poisson losses (fluid model, ``T = inf``): ``E[W] = sqrt(2/p)``.

    Eq. (3) ``B = 2/(RTT^2 lam)`` with ``lam = p B`` gives ``B RTT = sqrt(2/p)``.
    """
    return math.sqrt(2 / _probability(p))


def reno_poisson_cov() -> float:
    """CoV of the window of the Poisson-loss fluid model: ``1/sqrt(3) = 0.577``.

    Time averages over a cycle (``a`` = window after a cut, ``D ~ Exp(lam)``, units ``lam = RTT =
    1``): ``E[a] = 1``, ``E[a^2] = (2 E[a]^2 + E[D^2])/3 = 4/3``, ``E[W] = 2``, ``E[W^2] =
    E[a^2] + E[a] E[D^2] + E[D^3]/3 = 16/3``, so ``Var W = 4/3`` and the CoV is ``1/sqrt(3)``.
    """
    return 1 / math.sqrt(3)


# ---- response curves ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ShiftedFit:
    """Least-squares fit of ``B = beta/sqrt(p - eps)``, with standard errors from the Jacobian."""

    beta: float
    eps: float
    beta_se: float
    eps_se: float


def shifted_response(p: np.ndarray | float, beta: float, eps: float) -> np.ndarray:
    """Seed 001 sec. 3: the shifted response curve ``B = beta/sqrt(p - eps)`` (``eps < p``)."""
    return beta / np.sqrt(np.asarray(p, dtype=float) - eps)


def fit_shifted_response(
    p: Sequence[float] | np.ndarray, throughput: Sequence[float] | np.ndarray
) -> ShiftedFit:
    """Fit ``beta/sqrt(p - eps)`` to ``(p, throughput)`` points by least squares (seed 001, Fig. 1a).

    ``scipy.optimize.curve_fit`` with ``eps`` bounded below the smallest ``p`` (so every point
    stays on the curve's domain); the start is ``eps = 0`` and ``beta`` = median of ``B sqrt(p)``
    (the TCP fit). Errors are the square roots of the diagonal of the estimated covariance.
    """
    x, y = np.asarray(p, dtype=float), np.asarray(throughput, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or x.size < 3:
        raise ValueError(
            "expected equal-length one-dimensional p and throughput, at least 3 points"
        )
    if not (np.all((x > 0) & (x < 1)) and np.all(np.isfinite(y) & (y > 0))):
        raise ValueError("p must lie in (0, 1) and throughputs must be positive and finite")
    beta0 = float(np.median(y * np.sqrt(x)))
    upper = float(x.min()) * (1 - 1e-9)
    # scipy takes most of a second to import: only when a model needs it
    from scipy.optimize import curve_fit

    (beta, eps), cov = curve_fit(
        shifted_response,
        x,
        y,
        p0=[beta0, 0.0],
        bounds=([0.0, -np.inf], [np.inf, upper]),
    )
    beta_se, eps_se = np.sqrt(np.diag(cov))
    return ShiftedFit(float(beta), float(eps), float(beta_se), float(eps_se))


def shift_window(
    p: float, eps: float, rtt: float, beta: float | None = None, alpha: float = FLUID_ALPHA
) -> float:
    """Seed 001 sec. 3: the ``w(p)`` that shifts the response curve by ``eps`` along ``p``.

    Equating eq. (4) to the target ``beta/sqrt(p - eps)``: ``alpha/(RTT p sqrt(w)) = beta/sqrt(p
    - eps)``, so::

        w(p) = (alpha/(RTT beta))^2 (p - eps)/p^2         (the paper: w(p) = Theta((p - eps)/p^2))

    ``beta`` defaults to TCP's own coefficient ``alpha/RTT`` (shifting the TCP curve), which makes
    ``w(p) = (p - eps)/p^2``. Requires ``0 <= eps < p``.
    """
    p, rtt, alpha = _probability(p), _positive("rtt", rtt), _positive("alpha", alpha)
    eps = float(eps)
    if not 0 <= eps < p:
        raise ValueError(f"the shift eps must satisfy 0 <= eps < p = {p}, got {eps}")
    beta = alpha / rtt if beta is None else _positive("beta", beta)
    return (alpha / (rtt * beta)) ** 2 * (p - eps) / p**2


def shift_window_exact(p: float, eps: float, rtt: float, beta: float | None = None) -> float:
    """The ``w`` for which the *exact* fluid law :func:`fd_packet_throughput` equals
    ``beta/sqrt(p - eps)`` (``beta`` defaults to TCP's fluid coefficient ``sqrt(2)/RTT``).

    :func:`shift_window` uses the asymptotic eq. (4), valid only while ``p w`` is small; its
    ``w = (p - eps)/p^2`` makes ``p w = 1 - eps/p``, which is not small once ``p >> eps``, and
    there it overshoots the target. Here ``c(p w) = p (beta RTT)^2/(p - eps)`` is solved for
    ``p w`` (``c`` decreases from ``inf`` at 0 to 2 at ``inf``) by bracketing root search, so a
    solution exists iff the target exceeds TCP's ``sqrt(2/p)/RTT``.
    """
    p, rtt = _probability(p), _positive("rtt", rtt)
    eps = float(eps)
    if not 0 <= eps < p:
        raise ValueError(f"the shift eps must satisfy 0 <= eps < p = {p}, got {eps}")
    beta = FLUID_ALPHA / rtt if beta is None else _positive("beta", beta)
    target = p * (beta * rtt) ** 2 / (p - eps)
    if target <= 2:
        raise ValueError(
            f"beta/sqrt(p - eps) = {beta / math.sqrt(p - eps):.6g} is not above TCP's "
            f"{math.sqrt(2 / p) / rtt:.6g} packets/s: no window w reaches it"
        )

    def excess(log_x: float) -> float:
        return fd_throughput(1.0, math.exp(log_x), 1.0) - target

    lo, hi = -1.0, 1.0
    while excess(lo) < 0:
        lo -= 2.0
    while excess(hi) > 0:
        hi += 2.0
    # scipy takes most of a second to import: only when a model needs it
    from scipy.optimize import brentq

    return math.exp(brentq(excess, lo, hi, xtol=1e-12, rtol=1e-12)) / p
