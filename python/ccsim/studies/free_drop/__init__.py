"""Seed 001, Free-Drop TCP: studies F1-F4 (docs/studies/free-drop-tcp.md), and a
sensitivity sweep of F1-F3 over what the paper does not give (:func:`sensitivity`).

Free-Drop TCP (``freedrop``, parameter ``w`` in packet transmissions) is NewReno whose halving on
a loss happens only when another loss occurred within the last ``w`` transmissions. F1 and F2
are the paper's single-flow lossy-link runs (Fig. 1 and 2), F3 its five-flow fairness runs
(Fig. 3), F4 its fluid model (section 2; pure Python, :mod:`ccsim.fluid`, no engine runs).

Every check decides with the interval of its quantity over replicates (seeds), paired by seed
where two configurations are compared (:mod:`ccsim.studies.checks`); the claims and their
criteria are written from the paper's text (docs/studies/free-drop-tcp.md has their history).

Choices common to the packet-level studies (printed with each):

* TCP is ``newreno``: Free-Drop in ccsim uses NewReno recovery, so the two differ only in the
  rule that decides whether a loss halves the window.
* MSS 1000 B (ns-2's default ``packetSize_``; the paper gives none).
* Queues: every link of the dumbbell (bottleneck and access links, both directions) is DropTail.
  Where the paper gives no size (every link of F1/F2, the access links of F3) it is ns-2's default
  limit of 50 packets, which is ccsim's ``49pkts`` (ns-2 counts the packet on the wire in its
  limit, ccsim does not: :data:`NS2_QUEUE`). F3's bottleneck has the paper's 20% and 100% of the
  BDP.
* F1/F2: the receiver window is 2 BDP (7500 packets at 600 Mb/s, 50 ms, 1000 B); the paper
  gives none, and ns-2's default ``window_`` of 20 packets would cap TCP far below its curve.

What a verdict may hang on and the paper does not give (the queues, Free-Drop's counting rule
and timeout rule, the constant of w(p), F3's w) is varied by :func:`sensitivity`::

    python3 -c "from ccsim.studies import free_drop; free_drop.sensitivity(workers=2)"

The package: ``common`` holds the link, the metric names, the sensitivity variants and the curve
fits; ``f1_response_curves``, ``f2_f3`` and ``f4_fluid`` declare the studies with their sweeps,
analysis and checks; ``sensitivity`` runs F1-F3 under each variant.
"""

from __future__ import annotations

from ccsim.studies.core import Study
from ccsim.studies.free_drop.common import (
    COV,
    CUTS_MEAN,
    DEFAULT,
    FIT_EPS,
    FIXED,
    GOODPUT,
    LAW_SLOPE,
    LOSSES_MEAN,
    MEAN_COV_RATIO,
    NS2_QUEUE,
    RATIO,
    SENSITIVITY,
    SHIFTED,
    SLOPE,
    TCP_CUTS_MEAN,
    TCP_LOSSES_MEAN,
    W_SLOPE,
    fit_shift,
    shifted_name,
)
from ccsim.studies.free_drop.f1_response_curves import (
    f1_above,
    f1_law,
    f1_plan,
    f1_shift,
    f1_study,
    f1_sweeps,
    f1_tcp_slope,
    free_drop_configs,
    law_range,
    w_range,
)
from ccsim.studies.free_drop.f2_f3 import (
    F3_BOUNDS,
    F3_CASES,
    JAIN,
    f2_events,
    f2_ratio,
    f2_study,
    f3_case,
    f3_close,
    f3_fair,
    f3_study,
    f3_sweeps,
)
from ccsim.studies.free_drop.f4_fluid import BRL, F4, f4_poisson
from ccsim.studies.free_drop.sensitivity import sensitivity, sensitivity_summary, variant_study

__all__ = [
    "BRL",
    "COV",
    "CUTS_MEAN",
    "DEFAULT",
    "F3_BOUNDS",
    "F3_CASES",
    "F4",
    "FIT_EPS",
    "FIXED",
    "GOODPUT",
    "JAIN",
    "LAW_SLOPE",
    "LOSSES_MEAN",
    "MEAN_COV_RATIO",
    "NS2_QUEUE",
    "RATIO",
    "SENSITIVITY",
    "SHIFTED",
    "SLOPE",
    "STUDIES",
    "TCP_CUTS_MEAN",
    "TCP_LOSSES_MEAN",
    "W_SLOPE",
    "f1_above",
    "f1_law",
    "f1_plan",
    "f1_shift",
    "f1_study",
    "f1_sweeps",
    "f1_tcp_slope",
    "f2_events",
    "f2_ratio",
    "f2_study",
    "f3_case",
    "f3_close",
    "f3_fair",
    "f3_study",
    "f3_sweeps",
    "f4_poisson",
    "fit_shift",
    "free_drop_configs",
    "law_range",
    "sensitivity",
    "sensitivity_summary",
    "shifted_name",
    "variant_study",
    "w_range",
]


# ---- the studies ---------------------------------------------------------------------------------


STUDIES: tuple[Study, ...] = (f1_study(DEFAULT), f2_study(DEFAULT), f3_study(DEFAULT), F4)
