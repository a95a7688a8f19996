"""L1 and its companions (light load, AReno's alpha and beta) as ``ccsim study`` runs them."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from ccsim.studies.core import (
    Check,
    Claim,
    FigureSpec,
    Settings,
    Study,
)
from ccsim.studies.highspeed_parking_lot.analysis import analyser
from ccsim.studies.highspeed_parking_lot.claims import (
    CLAIMS,
    areno_checks,
    lifetime_comparison,
    long_favoured,
)
from ccsim.studies.highspeed_parking_lot.common import (
    FULL_REPLICATES,
    L1_ASSUME,
    LIGHT_CONDITIONS,
    LOSS,
    MAX_REPLICATES,
    PROTOCOLS,
    QUICK_CONDITIONS,
    SOURCE,
    protocol_entry,
)
from ccsim.studies.highspeed_parking_lot.workload import (
    protocol_sweeps,
    workload_plan,
    workload_sweeps,
)

STUDIES: tuple[Study, ...] = (
    Study(
        id="L1",
        slug="highspeed-parking-lot",
        title="Legacy and high-speed TCPs on a 1 Gb/s parking lot, alone and mixed with Reno",
        source=SOURCE,
        setup="5-router parking lot, 1 Gb/s backbone both ways with 2 MB DropTail buffers, "
        "access queues of ns-2's default limit_ 50 (49 waiting); 40 long-lived flows (RTT exponential, mean 130 ms; 1-4 hops, "
        "both directions) and 100 short-file sources; Reno, HSTCP, Scalable, BIC, H-TCP, "
        "Compound and AReno alone and mixed with Reno; every flow compared with itself under "
        "Reno",
        warmup=(
            "none: each long-lived flow's goodput over its own life, backbone utilization over "
            "the whole run, every short transfer that finished in both runs compared"
        ),
        assumptions=L1_ASSUME,
        sweeps=protocol_sweeps,
        analyse=analyser(figures=True),
        claims=CLAIMS,
        figure=FigureSpec("L1: utilization, relative throughput, friendliness, transfer times"),
        algorithms=PROTOCOLS,
        profile="linux-sack",
        max_replicates=MAX_REPLICATES,
    ),
)


# ---- companions: the light load (``ccsim study L1-light``), and AReno's alpha and beta
# (``ccsim study L1-areno``). Each is a registered study; they run L1's own seeds
# (``FULL_REPLICATES``) and add none.


def _on_condition(
    table: pd.DataFrame, evaluate: Callable[[pd.DataFrame], Sequence[Check]], load: str, loss: str
) -> list[Check]:
    """A claim's checks on one condition's rows."""
    return list(evaluate(table[(table["load"] == load) & (table["loss"] == loss)]))


def _condition_words(load: str, loss: str) -> str:
    return f"{load} load, {'no random loss' if loss == 'clean' else f'random loss {LOSS:g}'}"


def _light_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = workload_plan(s)
    entries = [protocol_entry(a) for a in plan["protocols"]]
    return workload_sweeps(s, entries, s.pick(LIGHT_CONDITIONS, QUICK_CONDITIONS))


def light_load_study() -> Study:
    """L1's claims on the light load (10 long-lived flows), without and with random loss."""
    claims = tuple(
        Claim(
            f"{_condition_words(load, loss)}: {claim.text}",
            claim.criterion,
            functools.partial(_on_condition, evaluate=claim.evaluate, load=load, loss=loss),
        )
        for load, loss in LIGHT_CONDITIONS
        for claim in CLAIMS
    )
    return Study(
        id="L1-light",
        slug="highspeed-parking-lot-light",
        title="L1 on the light load (10 long-lived flows), without and with random loss",
        source=SOURCE,
        setup="L1's parking lot with 10 long-lived flows, without random loss and with 1e-5 on "
        "every backbone link direction; the seven protocols alone and mixed with Reno",
        warmup=STUDIES[0].warmup,
        assumptions=L1_ASSUME,
        sweeps=_light_sweeps,
        analyse=analyser(figures=False),
        claims=claims,
        figure=FigureSpec("L1: light load"),
        algorithms=PROTOCOLS,
        profile="linux-sack",
        max_replicates=FULL_REPLICATES,
    )


# AReno's alpha and beta.
#
# The paper gives no values for AReno's alpha and beta; the study runs the defaults (alpha 10
# pkt/s, beta 0.1). ``ccsim study L1-areno`` re-runs AReno's part of the judged condition over a
# grid of both and judges AReno's checks for each pair.

#: alpha (packets per second: the probe adds alpha (B/R) RTT packets per RTT) and beta (the
#: fraction of the window taken back per RTT at the congestion delay): a factor of 3 either side
#: of the defaults, 10 and 0.1.
ARENO_ALPHAS = (3.0, 10.0, 30.0)
ARENO_BETAS = (0.03, 0.1, 0.3)
#: No replicates are added: each pair runs L1's own seeds.
ARENO_MAX_REPLICATES = FULL_REPLICATES


def areno_variant(alpha: float, beta: float) -> str:
    """The catalogue name of AReno with ``alpha`` and ``beta``."""
    return f"areno a={alpha:g} b={beta:g}"


#: The pairs a quick run has (the others print "not run in --quick").
ARENO_QUICK_PAIRS = ((10.0, 0.1), (30.0, 0.1))


def _areno_pairs(s: Settings) -> list[tuple[float, float]]:
    if s.quick:
        return list(ARENO_QUICK_PAIRS)
    return [(a, b) for a in ARENO_ALPHAS for b in ARENO_BETAS]


def _areno_sweeps(s: Settings) -> list[dict[str, Any]]:
    entries = [
        protocol_entry("areno", name=areno_variant(a, b), alpha=a, beta=b)
        for a, b in _areno_pairs(s)
    ]
    return workload_sweeps(s, entries, workload_plan(s)["conditions"])


def _long_favoured_checks(table: pd.DataFrame, name: str) -> list[Check]:
    return [long_favoured(table, name)]


def _long_lived_checks(table: pd.DataFrame, name: str) -> list[Check]:
    return [lifetime_comparison(table, name, False)]


def _areno_claims(pairs: Sequence[tuple[float, float]]) -> tuple[Claim, ...]:
    """L1's AReno claims, each judged on AReno's checks with every (alpha, beta) pair."""
    claims = []
    for alpha, beta in pairs:
        name = areno_variant(alpha, beta)
        claims += [
            Claim(
                f"{name}: AReno is efficient, fair and friendly: all flows improve",
                CLAIMS[5].criterion,
                functools.partial(areno_checks, name=name),
            ),
            Claim(
                f"{name}: AReno allocates more resource to long flows (300 ms RTT)",
                "relative throughput at 300 ms over at 30 ms > 1 (reversed: < 1)",
                functools.partial(_long_favoured_checks, name=name),
            ),
            Claim(
                f"{name}: read as long-lived / short-lived flows, AReno allocates more resource "
                "to the long-lived flows",
                "the long-lived flows' relative throughput above the short files' speed-up over "
                "all-Reno (paired by seed; reversed: below)",
                functools.partial(_long_lived_checks, name=name),
            ),
        ]
    return tuple(claims)


def areno_study() -> Study:
    """L1's AReno checks over ``ARENO_ALPHAS`` x ``ARENO_BETAS`` (``ccsim study L1-areno``;
    quick: the ``ARENO_QUICK_PAIRS`` on L1's quick setup)."""
    pairs = _areno_pairs(Settings(quick=False))
    return Study(
        id="L1-areno",
        slug="highspeed-parking-lot-areno",
        title="L1's AReno checks over alpha and beta (the paper gives neither)",
        source=SOURCE,
        setup="L1's judged condition (heavy load, no random loss; quick: light load), AReno "
        f"with alpha in {', '.join(f'{a:g}' for a in ARENO_ALPHAS)} pkt/s and beta in "
        f"{', '.join(f'{b:g}' for b in ARENO_BETAS)}, alone and mixed with Reno",
        warmup=STUDIES[0].warmup,
        assumptions=L1_ASSUME[:-1],
        sweeps=_areno_sweeps,
        analyse=analyser(figures=False),
        claims=_areno_claims(pairs),
        figure=FigureSpec("L1: AReno over alpha and beta"),
        algorithms=("areno",),
        profile="linux-sack",
        max_replicates=ARENO_MAX_REPLICATES,
    )


#: L1 and its companions, the light load and AReno's alpha and beta, as ``ccsim study`` lists them.
STUDIES = (*STUDIES, light_load_study(), areno_study())
