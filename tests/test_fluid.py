"""ccsim.fluid: Monte Carlo of the seed-001 fluid model against its closed forms.

Monte Carlo tolerances are stated in standard errors (SE) reported by the simulation itself
(jackknife over path groups); 4 SE fails by chance about once in 16,000 runs, and the seeds are
fixed, so the tests are deterministic. Each run takes a few hundredths of a second.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from ccsim import fluid, metrics

RTT = 0.05

# ---- TCP: every arrival halves (T = inf) ---------------------------------------------------------


@pytest.mark.parametrize(("lam", "rtt"), [(1.0, 0.1), (20.0, 0.05), (0.3, 0.2)])
def test_tcp_monte_carlo_matches_eq3(lam: float, rtt: float) -> None:
    exact = fluid.tcp_throughput(lam, rtt)
    assert exact == pytest.approx(2 / (rtt**2 * lam))
    mc = fluid.simulate(lam, math.inf, rtt, seed=1)
    assert mc.throughput == pytest.approx(exact, rel=0.05)
    assert abs(mc.throughput - exact) < 4 * mc.throughput_se
    assert mc.throughput_se < 0.01 * exact  # the 5% check is not vacuous
    assert mc.mean_window == pytest.approx(mc.throughput * rtt)
    assert mc.cut_rate == pytest.approx(lam, rel=0.02)


def test_tcp_window_cov_is_one_over_root_three() -> None:
    mc = fluid.simulate(1.0, math.inf, RTT, seed=2)
    assert abs(mc.window_cov - fluid.reno_poisson_cov()) < 4 * mc.window_cov_se
    assert mc.window_cov_se < 0.01


def test_reno_laws_in_packet_terms() -> None:
    p = 1e-3
    # eq. (3) with lam = p B: B RTT = sqrt(2/p); and the exact FD law reduces to it at w = inf
    assert fluid.reno_poisson_window(p) == pytest.approx(math.sqrt(2000))
    assert fluid.fd_packet_throughput(p, math.inf, RTT) * RTT == pytest.approx(math.sqrt(2000))
    # Mathis' sawtooth is metrics.mathis_throughput times RTT
    assert fluid.reno_periodic_window(p) == pytest.approx(metrics.mathis_throughput(p, RTT) * RTT)
    assert fluid.reno_periodic_window(p) == pytest.approx(math.sqrt(1500))


def test_periodic_sawtooth_cov_matches_a_sampled_sawtooth() -> None:
    wmax = 80.0
    saw = np.linspace(wmax / 2, wmax, 200_001)  # W(t) over one period, uniform in time
    assert saw.std() / saw.mean() == pytest.approx(fluid.reno_periodic_cov(), rel=1e-4)
    assert fluid.reno_periodic_cov() == pytest.approx(0.19245, abs=1e-5)


# ---- Free-Drop: the exact fluid law and the Monte Carlo -------------------------------------------


@pytest.mark.parametrize("lam_t", [0.01, 0.3, 1.0, 5.0])
def test_monte_carlo_matches_exact_fluid_throughput(lam_t: float) -> None:
    lam = 4.0
    mc = fluid.simulate(lam, lam_t / lam, RTT, seed=3)
    exact = fluid.fd_throughput(lam, lam_t / lam, RTT)
    assert abs(mc.throughput - exact) < 4 * mc.throughput_se
    assert mc.cut_rate == pytest.approx(lam * fluid.cut_probability(lam, lam_t / lam), rel=0.02)


def test_cycle_sampling_agrees_with_arrival_by_arrival_simulation() -> None:
    lam, T = 2.0, 0.25  # q = 0.39: about 2.5 arrivals per cut
    cycles = fluid.simulate(lam, T, RTT, seed=4)
    arrivals = fluid.simulate_arrivals(lam, T, RTT, n_paths=500, n_arrivals=2000, seed=5)
    for field in ("throughput", "window_cov"):
        a, b = getattr(cycles, field), getattr(arrivals, field)
        se = math.hypot(getattr(cycles, f"{field}_se"), getattr(arrivals, f"{field}_se"))
        assert abs(a - b) < 4 * se, field
    assert arrivals.cut_rate == pytest.approx(lam * (1 - math.exp(-lam * T)), rel=0.02)


def test_exact_law_has_the_papers_limits() -> None:
    lam = 3.0
    assert fluid.fd_throughput(lam, 1e9, RTT) == pytest.approx(fluid.tcp_throughput(lam, RTT))
    # lam T -> 0: cuts are Poisson with rate lam^2 T, so B -> 2/(RTT^2 lam^2 T)
    T = 1e-4 / lam
    assert fluid.fd_throughput(lam, T, RTT) == pytest.approx(2 / (RTT**2 * lam**2 * T), rel=1e-3)
    # and eq. (4) with alpha = sqrt(2) in packet terms
    assert fluid.fd_packet_throughput(1e-5, 10, RTT) == pytest.approx(
        fluid.fd_asymptotic_throughput(1e-5, 10, RTT), rel=1e-3
    )


def test_packet_mapping_is_a_fixed_point() -> None:
    p, w = 1e-3, 50.0
    mc = fluid.simulate_packet(p, w, RTT, seed=6)
    assert abs(mc.throughput - fluid.fd_packet_throughput(p, w, RTT)) < 4 * mc.throughput_se
    # simulating at lam = p B, T = w/B gives back B
    b = mc.throughput
    again = fluid.simulate(p * b, w / b, RTT, seed=7)
    assert abs(again.throughput - b) < 4 * math.hypot(again.throughput_se, mc.throughput_se)


def _loglog_slope(x: np.ndarray, y: np.ndarray, se: np.ndarray) -> tuple[float, float]:
    """Weighted least-squares slope of log y on log x and its standard error."""
    sigma = se / y  # SE of log y
    slope_and_intercept, cov = np.polyfit(np.log(x), np.log(y), 1, w=1 / sigma, cov="unscaled")
    return float(slope_and_intercept[0]), float(math.sqrt(cov[0, 0]))


def test_free_drop_throughput_falls_as_one_over_p() -> None:
    # fixed w = 10, p w between 1e-4 and 1e-3: deep in the small-p regime, where the exact law's
    # slope is -1 to within 2e-4. Each point has a relative SE near 0.1%, which over one decade of p
    # gives a slope SE near 1e-3; 4 SE plus the model's own 2e-4 makes the 0.01 bound below.
    ps = np.geomspace(1e-5, 1e-4, 5)
    runs = [fluid.simulate_packet(p, 10, RTT, seed=10 + i) for i, p in enumerate(ps)]
    slope, se = _loglog_slope(
        ps, np.array([r.throughput for r in runs]), np.array([r.throughput_se for r in runs])
    )
    assert se < 0.0025
    assert abs(slope + 1) < max(4 * se, 0.01)
    # and TCP's slope over the same range is -1/2: the test tells the two laws apart
    tcp = [fluid.simulate_packet(p, math.inf, RTT, seed=20 + i) for i, p in enumerate(ps)]
    tcp_slope, _ = _loglog_slope(
        ps, np.array([r.throughput for r in tcp]), np.array([r.throughput_se for r in tcp])
    )
    assert abs(tcp_slope + 0.5) < 0.01


def test_free_drop_throughput_falls_as_one_over_root_w() -> None:
    # fixed p = 1e-4, w from 2 to 20 (p w <= 2e-3): exact slope -0.4996; same error budget as above
    ws = np.geomspace(2, 20, 5)
    runs = [fluid.simulate_packet(1e-4, w, RTT, seed=30 + i) for i, w in enumerate(ws)]
    slope, se = _loglog_slope(
        ws, np.array([r.throughput for r in runs]), np.array([r.throughput_se for r in runs])
    )
    assert se < 0.0025
    assert abs(slope + 0.5) < max(4 * se, 0.01)


# ---- edge cases --------------------------------------------------------------------------------


def test_zero_window_never_cuts() -> None:
    # T = 0: no arrival has another within the preceding 0 s, so the window grows without bound
    assert fluid.cut_probability(1.0, 0.0) == 0.0
    assert fluid.fd_throughput(1.0, 0.0, RTT) == math.inf
    assert fluid.fd_packet_throughput(1e-3, 0, RTT) == math.inf
    assert fluid.fd_asymptotic_throughput(1e-3, 0, RTT) == math.inf
    for result in (fluid.simulate(1.0, 0.0, RTT), fluid.simulate_arrivals(1.0, 0.0, RTT)):
        assert result.throughput == math.inf
        assert math.isnan(result.window_cov)
        assert result.cut_rate == 0.0


def test_huge_window_is_tcp() -> None:
    lam = 2.0
    assert fluid.cut_probability(lam, math.inf) == 1.0
    assert fluid.cut_probability(lam, 1e6) == 1.0
    big = fluid.simulate(lam, 1e6, RTT, seed=8)
    assert abs(big.throughput - fluid.tcp_throughput(lam, RTT)) < 4 * big.throughput_se


def test_tiny_window_is_finite_and_huge() -> None:
    lam, T = 1.0, 1e-7
    mc = fluid.simulate(lam, T, RTT, seed=9)
    exact = fluid.fd_throughput(lam, T, RTT)
    assert exact == pytest.approx(2 / (RTT**2 * lam**2 * T), rel=1e-5)
    assert abs(mc.throughput - exact) < 4 * mc.throughput_se


def test_seeded_runs_repeat() -> None:
    a = fluid.simulate(1.0, 0.5, RTT, n_paths=50, n_cycles=50, seed=11)
    b = fluid.simulate(1.0, 0.5, RTT, n_paths=50, n_cycles=50, seed=11)
    c = fluid.simulate(1.0, 0.5, RTT, n_paths=50, n_cycles=50, seed=12)
    assert a == b
    assert a.throughput != c.throughput


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: fluid.simulate(0.0, 1.0, RTT), "lam"),
        (lambda: fluid.simulate(math.nan, 1.0, RTT), "lam"),
        (lambda: fluid.simulate(1.0, -1.0, RTT), "T"),
        (lambda: fluid.simulate(1.0, math.nan, RTT), "T"),
        (lambda: fluid.simulate(1.0, 1.0, 0.0), "rtt"),
        (lambda: fluid.simulate(1.0, 1.0, RTT, n_paths=1), "n_paths"),
        (lambda: fluid.simulate(1.0, 1.0, RTT, n_cycles=0), "n_cycles"),
        (lambda: fluid.simulate(1.0, 1.0, RTT, warmup_cycles=-1), "warmup_cycles"),
        (lambda: fluid.simulate_arrivals(1.0, 1.0, RTT, n_arrivals=0), "n_arrivals"),
        (lambda: fluid.tcp_throughput(-1.0, RTT), "lam"),
        (lambda: fluid.fd_packet_throughput(0.0, 10, RTT), "loss probability"),
        (lambda: fluid.fd_packet_throughput(1.0, 10, RTT), "loss probability"),
        (lambda: fluid.fd_packet_throughput(1e-3, -1, RTT), "w"),
        (lambda: fluid.simulate_packet(1e-3, -1, RTT), "w"),
        (lambda: fluid.shift_window(1e-3, 2e-3, RTT), "eps"),
        (lambda: fluid.shift_window_exact(1e-3, -1e-4, RTT), "eps"),
        (lambda: fluid.shift_window_exact(1e-3, 0.0, RTT, beta=1.0), "TCP"),
        (lambda: fluid.fit_shifted_response([1e-3, 2e-3], [1.0, 2.0]), "at least 3"),
        (lambda: fluid.fit_shifted_response([1e-3, 2e-3, 3e-3], [1.0, 2.0]), "equal-length"),
        (lambda: fluid.fit_shifted_response([0, 2e-3, 3e-3], [1.0, 2.0, 3.0]), "p must lie"),
        (lambda: fluid.fit_shifted_response([1e-3, 2e-3, 3e-3], [1.0, -2.0, 3.0]), "positive"),
    ],
)
def test_invalid_arguments_raise(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call()


# ---- response curves ---------------------------------------------------------------------------


def test_fit_recovers_beta_and_eps_from_noisy_data() -> None:
    beta, eps = 28.0, 5e-4
    p = np.geomspace(6e-4, 2e-2, 40)
    rng = np.random.default_rng(13)
    y = fluid.shifted_response(p, beta, eps) * (1 + 0.02 * rng.standard_normal(p.size))
    fit = fluid.fit_shifted_response(p, y)
    assert abs(fit.beta - beta) < 4 * fit.beta_se
    assert abs(fit.eps - eps) < 4 * fit.eps_se
    assert fit.beta_se < 0.02 * beta and fit.eps_se < 0.1 * eps  # precise enough to mean something


def test_fit_finds_no_shift_in_a_tcp_curve() -> None:
    p = np.geomspace(1e-4, 1e-2, 20)
    fit = fluid.fit_shifted_response(p, [fluid.fd_packet_throughput(x, math.inf, RTT) for x in p])
    assert fit.beta == pytest.approx(math.sqrt(2) / RTT, rel=1e-6)
    assert abs(fit.eps) < 1e-9


def test_shift_window_produces_the_shift_under_eq4() -> None:
    eps = 5e-4
    p = np.geomspace(5.5e-4, 1e-2, 12)
    w = [fluid.shift_window(x, eps, RTT) for x in p]
    assert w[0] == pytest.approx((p[0] - eps) / p[0] ** 2)
    b = np.array([fluid.fd_asymptotic_throughput(x, wx, RTT) for x, wx in zip(p, w, strict=True)])
    assert b == pytest.approx(fluid.shifted_response(p, math.sqrt(2) / RTT, eps), rel=1e-12)
    fit = fluid.fit_shifted_response(p, b)
    assert fit.eps == pytest.approx(eps, rel=1e-6)


def test_exact_shift_window_produces_the_shift_in_the_fluid_model() -> None:
    eps = 5e-4
    p = np.geomspace(5.5e-4, 1e-2, 8)
    w = [fluid.shift_window_exact(x, eps, RTT) for x in p]
    b = np.array([fluid.fd_packet_throughput(x, wx, RTT) for x, wx in zip(p, w, strict=True)])
    fit = fluid.fit_shifted_response(p, b)
    assert fit.eps == pytest.approx(eps, rel=1e-6)
    assert fit.beta == pytest.approx(math.sqrt(2) / RTT, rel=1e-6)
    # near p = eps both rules agree (p w small); far above it eq. (4) asks for a much smaller w
    assert w[0] == pytest.approx(fluid.shift_window(p[0], eps, RTT), rel=0.15)
    assert w[-1] > 3 * fluid.shift_window(p[-1], eps, RTT)
    # and the Monte Carlo agrees at one of these points
    mc = fluid.simulate_packet(p[3], w[3], RTT, seed=14)
    assert abs(mc.throughput - b[3]) < 4 * mc.throughput_se
