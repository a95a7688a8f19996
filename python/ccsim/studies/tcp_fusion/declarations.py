"""The studies H1-H3 as ``ccsim study`` runs them: setup, sweeps, analysis and claims."""

from __future__ import annotations

from ccsim.studies.core import (
    Claim,
    FigureSpec,
    Study,
)
from ccsim.studies.tcp_fusion.common import ALGORITHMS, PROPOSAL, SOURCE
from ccsim.studies.tcp_fusion.h1_lossy_link import (
    H1_ASSUME,
    _h1_analyse,
    _h1_degrade,
    _h1_near_link,
    _h1_sweeps,
    _h1_winners,
    _pair_close,
)
from ccsim.studies.tcp_fusion.h2_rtt_fairness import (
    H2_ALGORITHMS,
    H2_ASSUME,
    JAIN,
    VARIANCE,
    _h2_analyse,
    _h2_fairest,
    _h2_losses,
    _h2_proposal_dominance,
    _h2_short_wins,
    _h2_sweeps,
)
from ccsim.studies.tcp_fusion.h3_reno_friendliness import (
    H3_ASSUME,
    H3_COMPETITORS,
    _h3_analyse,
    _h3_constant,
    _h3_friendly,
    _h3_fusion,
    _h3_reno,
    _h3_sweeps,
)

STUDIES: tuple[Study, ...] = (
    Study(
        id="H1",
        slug="fusion-lossy-link",
        title="Throughput of one flow against random loss, Reno to TCP-Fusion (Fig. 3)",
        source=SOURCE,
        setup="one flow, RTT 40 ms, over a 100 Mb/s 1 ms bottleneck with a BDP buffer and "
        "random loss p = 1e-6 .. 1e-1; goodput vs p for Reno, NewReno, Fusion, the proposal "
        "(fusion-rf), AReno, FAST, Libra, Compound, Westwood and the high-speed TCPs",
        warmup="none: goodput and drops over each whole run",
        assumptions=H1_ASSUME,
        sweeps=_h1_sweeps,
        analyse=_h1_analyse,
        claims=(
            Claim(
                "every algorithm uses nearly the link bandwidth when p < 1e-5",
                "for each algorithm and each p < 1e-5, goodput >= 90 % of the 96.15 Mb/s "
                "goodput ceiling (failed when clearly below)",
                _h1_near_link,
            ),
            Claim(
                "throughput degrades as the loss rate increases",
                "for each algorithm, per seed, goodput at the largest p / goodput at the "
                "smallest < 0.2 (reversed: > 1)",
                _h1_degrade,
            ),
            Claim(
                "the proposal, AReno and FAST are more efficient on the lossy link than the others",
                "per seed, the geometric mean of goodput over p = 1e-4 .. 1e-2 of each of "
                "fusion-rf, areno and fast above the best of every other algorithm's (Fusion, "
                "equal to the proposal here, excluded); reversed when clearly below the others' "
                "median",
                _h1_winners,
            ),
            Claim(
                "the proposal behaves as Fusion on one 40 ms flow",
                "fusion-rf goodput within 5 % of fusion's at every p (the interval of the "
                "relative difference within +-5 %)",
                _pair_close(PROPOSAL, "fusion", 0.05),
            ),
            Claim(
                "Libra (gamma set for a 40 ms RTT) behaves as Reno",
                "libra goodput within 20 % of reno's at every p (the interval of the relative "
                "difference within +-20 %)",
                _pair_close("libra", "reno", 0.20),
            ),
        ),
        figure=FigureSpec(
            "goodput vs random loss p (log-log in H1-loglog.png)",
            x="loss",
            hue="algorithm",
            xlabel="loss probability p",
        ),
        algorithms=ALGORITHMS,
        max_replicates=12,
    ),
    Study(
        id="H2",
        slug="fusion-rtt-fairness",
        title="Four flows of one protocol at 40/50/80/100 ms, DropTail and RED (Fig. 4-6, "
        "Tables II-IV)",
        source=SOURCE,
        setup="four flows of Reno, Fusion or the proposal (fusion-rf) with RTTs 40, 50, 80, "
        "100 ms over the 100 Mb/s bottleneck with a BDP buffer (at 100 ms), DropTail or RED; "
        "per-flow throughput and losses, Jain's index and the variance of the four throughputs "
        "over start-time changes",
        warmup="20 s (quick: 10 s): throughput and losses are counted after it",
        assumptions=H2_ASSUME,
        sweeps=_h2_sweeps,
        analyse=_h2_analyse,
        claims=(
            Claim(
                "DropTail: Reno's and Fusion's short-RTT flows take more of the link than the "
                "long-RTT flows",
                "for reno and fusion under DropTail, mean goodput of the 40 and 50 ms flows > "
                "that of the 80 and 100 ms flows (reversed: lower)",
                _h2_short_wins("droptail"),
            ),
            Claim(
                "DropTail: under the proposal one flow dominates, the RTT order is lost, and "
                "the dominating flow seldom loses packets",
                "under DropTail, paired by seed: the largest flow's share of goodput higher for "
                "the proposal than for Reno and for Fusion; the RTT-goodput rank correlation "
                "higher (less in RTT order) than Reno's and Fusion's; the proposal's largest flow "
                "loses fewer packets than the mean of its other three flows (ratio < 1); each "
                "reversed when clearly the other way",
                _h2_proposal_dominance,
            ),
            Claim(
                "DropTail: the proposal loses far more packets than Fusion and Reno "
                "(Table II: 290 vs 28 and 22)",
                "total losses after warm-up under DropTail, paired by seed: proposal > fusion "
                "and proposal > reno (reversed: lower)",
                _h2_losses("droptail", [(PROPOSAL, "fusion"), (PROPOSAL, "reno")]),
            ),
            Claim(
                "RED: Reno's and Fusion's throughputs stay in RTT order, and their short-RTT "
                "flows lose more (Table III)",
                "for reno and fusion under RED, mean goodput of the 40/50 ms flows > that of "
                "the 80/100 ms flows, and the 40 ms flow's losses > the 100 ms flow's "
                "(reversed: lower)",
                _h2_short_wins("red", with_losses=True),
            ),
            Claim(
                "RED: the proposal is the fairest (Table IV: Jain 0.997 vs 0.812 and 0.834)",
                "Jain's index under RED, paired by seed: proposal > fusion and > reno "
                "(reversed: lower), and the proposal's >= 0.95 (failed when clearly below)",
                _h2_fairest(JAIN, lower_is_better=False),
            ),
            Claim(
                "the proposal's throughput variance over start times is lower than the others' "
                "(Fig. 6)",
                "the four throughputs' variance (eq. 11) under RED, paired by seed: proposal "
                "< fusion and < reno (reversed: higher)",
                _h2_fairest(VARIANCE, lower_is_better=True),
            ),
            Claim(
                "RED: the proposal loses most, Fusion next, Reno least (Table III: 571, 206, 114)",
                "total losses after warm-up under RED, paired by seed: proposal > fusion and "
                "fusion > reno (each step reversed when lower)",
                _h2_losses("red", [(PROPOSAL, "fusion"), ("fusion", "reno")]),
            ),
        ),
        figure=FigureSpec("per-flow goodput, losses, Jain's index, variance (ccsim vs paper)"),
        algorithms=H2_ALGORITHMS,
        max_replicates=40,
    ),
    Study(
        id="H3",
        slug="fusion-reno-friendliness",
        title="A 40 ms Reno flow against a Reno, Fusion or proposal flow of varying RTT, RED "
        "(Fig. 7)",
        source=SOURCE,
        setup="one Reno flow at 40 ms and one Reno, Fusion or fusion-rf flow whose RTT is swept "
        "from 20 to 200 ms, RED bottleneck of 100 Mb/s with a BDP buffer; both flows' goodput",
        warmup="20 s (quick: 10 s): throughput is counted after it",
        assumptions=H3_ASSUME,
        sweeps=_h3_sweeps,
        analyse=_h3_analyse,
        claims=(
            Claim(
                "two Reno flows share fairly only at equal RTTs; the longer the competitor's "
                "RTT, the less it gets",
                "at 40 ms the competing Reno's goodput / the first Reno's in [0.7, 1.43]; per "
                "seed, the rank correlation of the competing Reno's RTT and goodput <= -0.8 "
                "(reversed: >= 0.5)",
                _h3_reno,
            ),
            Claim(
                "Fusion takes more than Reno, and more the smaller its RTT",
                "at 40 ms Fusion's goodput / the Reno flow's > 1 (reversed: < 0.9); per seed, "
                "the rank correlation of Fusion's RTT and goodput <= -0.8 (reversed: >= 0.5)",
                _h3_fusion,
            ),
            Claim(
                "the proposal's throughput stays almost constant over RTT",
                "per seed, max/min of the proposal's goodput over the swept RTTs <= 1.5 (failed "
                "when clearly above), and below the competing Reno's max/min, paired (reversed: "
                "above)",
                _h3_constant,
            ),
            Claim(
                "the proposal does not expel Reno, even at large RTT",
                "at every swept RTT the 40 ms Reno flow keeps >= 30 % of the two flows' goodput "
                "(reversed: < 15 %)",
                _h3_friendly,
            ),
        ),
        figure=FigureSpec(
            "goodput of the 40 ms Reno flow and its competitor vs the competitor's RTT",
            x="rtt_ms",
            hue="competitor",
            xlabel="competitor's RTT, ms",
        ),
        algorithms=H3_COMPETITORS,
        max_replicates=20,
    ),
)
