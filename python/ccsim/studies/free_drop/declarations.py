"""The studies F1-F4 as ``ccsim study`` runs them: setup, sweeps, analysis and claims."""

from __future__ import annotations

import functools

from ccsim.studies.core import (
    Claim,
    FigureSpec,
    Study,
)
from ccsim.studies.free_drop.common import DEFAULT, SOURCE, Variant, _f12_assume
from ccsim.studies.free_drop.f1_response_curves import (
    _f1_above,
    _f1_analyse,
    _f1_law,
    _f1_shift,
    _f1_sweeps,
    _f1_tcp_slope,
)
from ccsim.studies.free_drop.f2_f3 import (
    CLOSE,
    FAIR,
    LOST,
    TOTAL,
    _f2_analyse,
    _f2_events,
    _f2_ratio,
    _f3_analyse,
    _f3_assume,
    _f3_close,
    _f3_fair,
    _f3_more,
    _f3_sweeps,
)
from ccsim.studies.free_drop.f4_fluid import _f4_analyse, _f4_fd, _f4_poisson, _f4_tcp

# ---- the studies ---------------------------------------------------------------------------------

F1_MAX_REPLICATES = 12
F3_MAX_REPLICATES = 24


def _f1(variant: Variant) -> Study:
    return Study(
        id="F1",
        slug="response-curves",
        title="Response curves of TCP and Free-Drop TCP, and the shifted curves (Fig. 1)",
        source=SOURCE,
        setup="one flow over a 600 Mb/s link with random loss p, RTT 50 ms, 10-minute runs, "
        "3 seeds (more while a check is inconclusive); goodput vs p for TCP, Free-Drop at fixed "
        "w and with w(p) for the shift eps; fluid-model curves at the same p; per-seed fits of "
        "beta/sqrt(p - eps)",
        warmup=(
            "30 s (quick: 10 s): goodput is the mean delivered rate sampled after it, so the "
            "slow-start overshoot does not count"
        ),
        assumptions=_f12_assume(variant),
        sweeps=functools.partial(_f1_sweeps, variant=variant),
        analyse=_f1_analyse,
        claims=(
            Claim(
                "TCP's response curve is B ~ 1/sqrt(p) (eq. 2; Fig. 1's eps = 0 curve)",
                "the per-seed log-log slope of TCP's goodput in p over p = 1e-4..1e-2 lies in "
                "-0.6..-0.4",
                _f1_tcp_slope,
            ),
            Claim(
                "At fixed w, Free-Drop's throughput is greater than TCP's (abstract: 'the "
                "greater asymptotic throughput for a given window size w')",
                "in the law's range (p w <= 0.1 and eq. 4's throughput at most half the link "
                "rate), each fixed-w goodput over TCP's at the same p and seed, geometric mean "
                "over the range, above 1 (reversed below)",
                _f1_above,
            ),
            Claim(
                "At fixed w, Free-Drop's throughput follows B ~ 1/(p sqrt(w)) rather than "
                "1/sqrt(p) (abstract; eq. 4, 'this formula in fact holds')",
                "in the law's range (p w <= 0.1 and eq. 4's throughput at most half the link "
                "rate): each fixed-w curve's per-seed log-log slope in p within -1.25..-0.75 "
                "(reversed above -0.5, TCP's); at each p with two such w, the slope in w within "
                "-0.75..-0.25 (reversed above 0)",
                _f1_law,
            ),
            Claim(
                "w(p) = Theta((p - eps)/p^2) shifts TCP's response curve by eps along p "
                "(Fig. 1a-c)",
                "for each eps, the per-seed fit of beta/sqrt(p - eps) to the shifted curve (a "
                "line through 1/B^2 against p, eps free on both sides) gives a fitted eps "
                "between half and twice the designed one; reversed below 0 (shifted the other "
                "way)",
                _f1_shift,
            ),
        ),
        figure=FigureSpec(
            "goodput vs loss rate p", x="p", hue="config", xlabel="loss probability p"
        ),
        algorithms=("newreno", "freedrop"),
        max_replicates=F1_MAX_REPLICATES,
    )


def _f2(variant: Variant) -> Study:
    return Study(
        id="F2",
        slug="cwnd-cov",
        title="Coefficient of variation of cwnd, TCP vs Free-Drop TCP (Fig. 2)",
        source=SOURCE,
        setup="the runs of F1; cwnd sampled every 100 ms after a 30 s warm-up; CoV per run; "
        "ratio Free-Drop / TCP at each p and seed; window cuts per second",
        warmup=(
            "30 s (quick: 10 s) for the CoV of cwnd; loss events and window cuts per second count "
            "the whole run"
        ),
        assumptions=(*_f12_assume(variant), "quick mode: 60 s runs, warm-up 10 s"),
        sweeps=functools.partial(_f1_sweeps, variant=variant),
        analyse=_f2_analyse,
        claims=(
            Claim(
                "Free-Drop's CoV of cwnd is increased, about 1.6 times TCP's (Fig. 2, on the "
                "runs of Fig. 1's shifted curves)",
                "for each shifted curve (eps = 5e-5, 5e-4, 1e-3), the per-seed mean over its p of "
                "CoV_FD/CoV_TCP at the same p above 1 (reversed below 1); the mean of the three "
                "within 1.2..2.0",
                _f2_ratio,
            ),
            Claim(
                "Free-Drop's higher throughput comes with a higher rate of congestion events "
                "(abstract: a possible cost; a congestion event is a loss that makes the window "
                "shrink)",
                "for every Free-Drop configuration (fixed w = 10, 100, 1000 and the three "
                "shifted curves), window cuts per second, mean over its p, above TCP's at the "
                "same p, paired by seed; reversed below",
                _f2_events,
            ),
        ),
        figure=FigureSpec(
            "CoV of cwnd vs loss rate p", x="p", hue="config", xlabel="loss probability p"
        ),
        algorithms=("newreno", "freedrop"),
        max_replicates=F1_MAX_REPLICATES,
    )


def _f3(variant: Variant) -> Study:
    return Study(
        id="F3",
        slug="free-drop-fairness",
        title="Jain's index of 5 flows, TCP vs Free-Drop TCP (Fig. 3)",
        source=SOURCE,
        setup="dumbbell, 5 flows of one protocol, RTT 50 ms; bottleneck 50 and 500 Mb/s; "
        "DropTail queue 20% and 100% of the BDP; Jain index of the flows' goodputs, total "
        "goodput and packets lost per second; 3 seeds (more while a check is inconclusive)",
        warmup=(
            "none: each flow's goodput is taken over its whole run (flows start in the first "
            "second)"
        ),
        assumptions=_f3_assume(variant),
        sweeps=functools.partial(_f3_sweeps, variant=variant),
        analyse=_f3_analyse,
        claims=(
            Claim(
                "TCP and Free-Drop are both fair protocols (Fig. 3a-d: 'Free-Drop TCP is "
                "essentially fair under these conditions')",
                f"in each of the four cases, TCP's and Free-Drop's Jain index at least {FAIR}",
                _f3_fair,
            ),
            Claim(
                "There is little to choose between TCP and Free-Drop from the standpoint of "
                "fairness (Fig. 3a-d)",
                f"in each case, Free-Drop's Jain index minus TCP's (paired by seed) within "
                f"+-{CLOSE}",
                _f3_close,
            ),
            Claim(
                "Free-Drop produces more packet losses (section 2)",
                "in each case, packets lost per second (all five flows) above TCP's, paired by "
                "seed; reversed below",
                _f3_more(LOST, "packets lost per second"),
            ),
            Claim(
                "In the aggregate, Free-Drop flows tend toward higher utilization (section 2)",
                "in each case, the five flows' total goodput above TCP's, paired by seed; "
                "reversed below",
                _f3_more(TOTAL, "total goodput"),
            ),
        ),
        figure=FigureSpec("Jain index, goodput and losses, 5 flows"),
        algorithms=("newreno", "freedrop"),
        max_replicates=F3_MAX_REPLICATES,
    )


STUDIES: tuple[Study, ...] = (
    _f1(DEFAULT),
    _f2(DEFAULT),
    _f3(DEFAULT),
    Study(
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
                _f4_poisson,
            ),
        ),
        figure=FigureSpec("fluid model"),
        algorithms=(),
        # No escalation: a study without sweeps has no replicates the core can count (it would
        # ask for 2 seeds again and again); its 10 replicates are all Monte Carlo.
        max_replicates=None,
    ),
)
