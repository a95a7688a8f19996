"""F4: the fluid model against Monte-Carlo Poisson losses."""

from __future__ import annotations

import math
import time
from typing import Any

import pandas as pd

from ccsim import fluid
from ccsim.studies.core import (
    NONNEGATIVE,
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Study,
    band,
    measure,
    summarise,
    within,
)
from ccsim.studies.free_drop.common import RTT_S, SOURCE, log_log_slope

# ---- F4 ------------------------------------------------------------------------------------------

F4_LAMBDAS = (1.0, 5.0, 20.0)
F4_P = (1e-5, 1e-4)
F4_W = (2, 10, 20)
#: The fluid-model CoV of the window at these p w, Free-Drop over TCP (for comparison with
#: Fig. 2; not a claim of the fluid model).
F4_COV_PW = (0.01, 2.0)
BRL = "B RTT^2 lambda"
BRPW = "B RTT p sqrt(w)"
P_SLOPE = "slope in p"
SLOPE_W = "slope in w"
MC_EXACT = "MC / exact fluid law"
WINDOW_COV = "window CoV"
CUT_RATE = "cut rate / (lambda^2 T)"
GAP_COV = "CoV of the time between cuts"
F4_BOUNDS = {BRL: NONNEGATIVE, BRPW: NONNEGATIVE, MC_EXACT: NONNEGATIVE, WINDOW_COV: NONNEGATIVE}


def _f4_point(p: float, w: int) -> str:
    return f"p={p:g} w={w}"


def _f4_exact(p: float, w: int) -> tuple[float, float]:
    """The fluid model's cut rate over lambda^2 T and the CoV of the time between cuts at
    lambda T = p w (exact, :func:`ccsim.fluid.cycle_moments`; 1 and 1 for a Poisson process of
    rate lambda^2 T)."""
    x = p * w
    m1, m2 = fluid.cycle_moments(1.0, x)
    return fluid.cut_probability(1.0, x) / x, math.sqrt(m2 / m1**2 - 1)


def _f4_analyse(c: Context) -> pd.DataFrame:
    n_paths = c.settings.pick(2000, 500)
    seeds = c.settings.seeds(10, 3)
    started = time.perf_counter()
    records: list[dict[str, Any]] = []
    for seed in seeds:
        run = {"seed": seed}
        tcp_cov = math.nan
        for lam in F4_LAMBDAS:
            result = fluid.simulate(lam, math.inf, RTT_S, n_paths=n_paths, seed=seed)
            keys = run | {"model": "TCP", "x": f"lambda={lam:g}"}
            records.append(keys | {"metric": BRL, "value": result.throughput * RTT_S**2 * lam})
            records.append(keys | {"metric": WINDOW_COV, "value": result.window_cov})
            tcp_cov = result.window_cov if lam == 1.0 else tcp_cov
        throughput: dict[tuple[float, int], float] = {}
        for p in F4_P:
            for w in F4_W:
                result = fluid.simulate_packet(p, w, RTT_S, n_paths=n_paths, seed=seed)
                throughput[(p, w)] = result.throughput
                keys = run | {"model": "FD", "x": _f4_point(p, w)}
                records.append(
                    keys | {"metric": BRPW, "value": result.throughput * RTT_S * p * math.sqrt(w)}
                )
                exact = fluid.fd_packet_throughput(p, w, RTT_S)
                records.append(keys | {"metric": MC_EXACT, "value": result.throughput / exact})
                records.append(keys | {"metric": WINDOW_COV, "value": result.window_cov})
        for w in F4_W:
            b = [throughput[(p, w)] for p in F4_P]
            records.append(
                run
                | {"model": "FD", "x": f"w={w}", "metric": P_SLOPE, "value": log_log_slope(F4_P, b)}
            )
        for p in F4_P:
            b = [throughput[(p, w)] for w in F4_W]
            records.append(
                run
                | {
                    "model": "FD",
                    "x": f"p={p:g}",
                    "metric": SLOPE_W,
                    "value": log_log_slope(F4_W, b),
                }
            )
        # The fluid model's CoV of the window, Free-Drop over TCP, at p w = 0.01 and 2 (near the
        # fluid model's largest CoV, docs/fluid.md): for comparison with Fig. 2.
        for pw in F4_COV_PW:
            result = fluid.simulate_packet(1e-3, pw / 1e-3, RTT_S, n_paths=n_paths, seed=seed)
            records.append(
                run
                | {
                    "model": "FD",
                    "x": f"p w={pw:g}",
                    "metric": "CoV ratio FD/TCP",
                    "value": result.window_cov / tcp_cov,
                }
            )
    for p in F4_P:
        for w in F4_W:
            rate, gaps = _f4_exact(p, w)
            keys = {"model": "FD", "x": _f4_point(p, w), "seed": 0}
            records.append(keys | {"metric": CUT_RATE, "value": rate})
            records.append(keys | {"metric": GAP_COV, "value": gaps})
    c.notes.append(
        f"F4: Monte Carlo with {n_paths} paths per replicate, {len(seeds)} replicates, took "
        f"{time.perf_counter() - started:.1f} s"
    )
    published: dict[tuple[Any, ...], float] = {}
    for lam in F4_LAMBDAS:
        published[("TCP", f"lambda={lam:g}", BRL)] = 2.0
    for w in F4_W:
        published[("FD", f"w={w}", P_SLOPE)] = -1.0
    for p in F4_P:
        published[("FD", f"p={p:g}", SLOPE_W)] = -0.5
        for w in F4_W:
            published[("FD", _f4_point(p, w), BRPW)] = fluid.FLUID_ALPHA
            published[("FD", _f4_point(p, w), CUT_RATE)] = 1.0
            published[("FD", _f4_point(p, w), GAP_COV)] = 1.0
    for pw in F4_COV_PW:
        published[("FD", f"p w={pw:g}", "CoV ratio FD/TCP")] = 1.6
    return summarise(records, ["model", "x"], published, bounds=F4_BOUNDS)


def _f4_tcp(table: pd.DataFrame) -> list[Check]:
    return [
        within(
            f"lambda = {lam:g}/s: B RTT^2 lambda (Monte Carlo)",
            measure(table, BRL, model="TCP", x=f"lambda={lam:g}"),
            2.0,
            0.02,
        )
        for lam in F4_LAMBDAS
    ]


def _f4_fd(table: pd.DataFrame) -> list[Check]:
    checks = [
        band(
            f"w = {w}: log-log slope of B in p (p = {', '.join(f'{p:g}' for p in F4_P)})",
            measure(table, P_SLOPE, model="FD", x=f"w={w}"),
            -1.05,
            -0.95,
        )
        for w in F4_W
    ]
    checks += [
        band(
            f"p = {p:g}: log-log slope of B in w (w = {', '.join(map(str, F4_W))})",
            measure(table, SLOPE_W, model="FD", x=f"p={p:g}"),
            -0.55,
            -0.45,
        )
        for p in F4_P
    ]
    checks += [
        within(
            f"{_f4_point(p, w)}: B RTT p sqrt(w), the constant alpha of eq. (4) (Monte Carlo)",
            measure(table, BRPW, model="FD", x=_f4_point(p, w)),
            fluid.FLUID_ALPHA,
            0.02,
        )
        for p in F4_P
        for w in F4_W
    ]
    return checks


def f4_poisson(table: pd.DataFrame) -> list[Check]:
    """Exact: the cut process of the fluid model at small lambda T (no table needed)."""
    checks = []
    for p in F4_P:
        for w in F4_W:
            rate, gaps = _f4_exact(p, w)
            point = f"{_f4_point(p, w)} (lambda T = {p * w:g})"
            checks.append(
                within(f"{point}: cut rate over lambda^2 T (exact)", Quantity.of(rate), 1.0, 0.01)
            )
            checks.append(
                within(
                    f"{point}: CoV of the time between cuts (exact; 1 for a Poisson process)",
                    Quantity.of(gaps),
                    1.0,
                    0.01,
                )
            )
    return checks


F4 = Study(
    id="F4",
    slug="free-drop-fluid",
    title="Fluid model of TCP and Free-Drop TCP: Monte Carlo vs the closed forms",
    source=SOURCE,
    setup="Monte Carlo of dW = dt/RTT with Poisson losses (ccsim.fluid), RTT 50 ms; TCP "
    "(every loss halves) and Free-Drop (a loss halves only after another within T = w/B); "
    "10 replicates (quick: 3), each its own random stream; the cut process's exact moments",
    warmup=(
        "the first 30 loss cycles of each Monte Carlo path are discarded "
        "(ccsim.fluid.simulate's default)"
    ),
    assumptions=(
        "the fluid model of section 2 as docs/fluid.md states it; no links (no queues)",
        "lambda = p B, T = w / B (the paper's substitution)",
        "2000 paths per replicate (quick: 500)",
    ),
    sweeps=lambda s: [],
    analyse=_f4_analyse,
    claims=(
        Claim(
            "TCP in the fluid model: B = 2/(RTT^2 lambda) (eq. 3)",
            "B RTT^2 lambda within 2% of 2 at each lambda (interval of the relative "
            "difference over replicates)",
            _f4_tcp,
        ),
        Claim(
            "Free-Drop in the fluid model: B ~ alpha/(RTT p sqrt(w)) at small p (eq. 4)",
            "log-log slope in p within -1.05..-0.95 at each w and in w within -0.55..-0.45 "
            "at each p; B RTT p sqrt(w) within 2% of sqrt(2), the alpha of eq. 3 in the same "
            "model, at each (p, w)",
            _f4_fd,
        ),
        Claim(
            "Congestion events become a Poisson process of rate lambda(1 - exp(-lambda T)) "
            "~ lambda^2 T as lambda T -> 0 (section 2)",
            "at each (p, w) of F4 (lambda T = p w <= 2e-3): the exact cut rate over "
            "lambda^2 T within 1% of 1, and the exact CoV of the time between cuts within 1% "
            "of 1 (an exponential's)",
            f4_poisson,
        ),
    ),
    figure=FigureSpec("fluid model"),
    algorithms=(),
    # No escalation: a study without sweeps has no replicates the core can count (it would
    # ask for 2 seeds again and again); its 10 replicates are all Monte Carlo.
    max_replicates=None,
)
