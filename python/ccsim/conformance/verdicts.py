"""The seed studies' robust quick verdicts: claims of the seed papers that their study's quick
runs reproduced by a wide margin (the studies' tests record the values: H1's over seeds 1-3,
R13's over the seed sets 1-3, 4-6 and 7-9), measured here on one seed of the study's own quick
scenario. A study's claim is a direction
("more than Reno", "most of the drops"), so these checks are one-sided: ours at least (or at
most) the boundary the study's check uses."""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from ccsim.conformance.check import AT_LEAST, AT_MOST, Check, Uses
from ccsim.runner import run
from ccsim.scenario import Scenario

__all__ = ["CHECKS"]


def _run(data: dict[str, Any]) -> Any:
    return run(Scenario.model_validate(data))


@cache
def _h1_goodput(cc: str) -> float:
    """Goodput (Mb/s) of one flow on study H1's path (seed 002's Fig. 2: 100 Mb/s, 1 ms, a 40 ms
    RTT, one BDP of buffer) under random loss p = 1e-3, 30 s as in the quick run, seed 1."""
    from ccsim.studies.tcp_fusion.h1_lossy_link import scenario

    flow = _run(scenario(cc, "30s", loss=1e-3)).flows.iloc[0]
    return float(flow["goodput_bps"]) / 1e6


def _h1_fusion_over_reno(uses: Uses) -> float:
    return _h1_goodput(uses("fusion")) / _h1_goodput(uses("reno"))


@cache
def _r13_source3_share(cc: str) -> float:
    """Study R13's two bottlenecks in a row (seed 000, Floyd and Jacobson's Fig. 15-16, as the
    study reads them), every source running ``cc``, RTT ratio 1, seed 1, the quick run's 60 s:
    source 3's share of the second bottleneck's drops over the last 50 s."""
    from ccsim.studies.randomized_tcp.common import RANDOMIZED
    from ccsim.studies.randomized_tcp.r13_floyd_jacobson import _r13_multi_scenario

    data = _r13_multi_scenario("60s")
    data["topology"]["links"][0]["delay"] = "5.00ms"  # source 1's access: RTT1 / RTT2 = 1
    params = RANDOMIZED["params"]
    assert isinstance(params, dict)
    for flow in data["flows"]:
        if cc == "randomized":
            flow["cc"], flow["params"] = RANDOMIZED["cc"], dict(params)
        else:
            flow["cc"] = cc
    results = _run(data)
    since = float(results.flows["end_s"].max()) - 50.0
    links = results.links.set_index(["src", "dst"])["link"]
    drops = results.drops
    late = drops[(drops["t_s"] >= since) & (drops["is_ack"] == 0)]
    at2 = late[late["link"] == int(links.loc[("gw2", "sink")])].groupby("flow").size()
    return float(at2.get(2, 0) / at2.sum()) if at2.sum() else math.nan


CHECKS = [
    Check(
        "study.h1_fusion_over_reno",
        "H1 (seed 002): TCP-Fusion's goodput over Reno's on a 100 Mb/s, 40 ms path at p = 1e-3",
        "TCP-Fusion (seed 002), Fig. 2: Fusion above Reno at every loss rate (quick: 9-12 times)",
        1.0,
        0.0,
        False,
        ("fusion", "reno"),
        _h1_fusion_over_reno,
        kind=AT_LEAST,
    ),
    Check(
        "study.r13_reno_lockout",
        "R13 (seed 000): Reno's source 3 share of bottleneck 2's drops, two bottlenecks in a row",
        "Floyd & Jacobson via Randomized TCP (seed 000), Fig. 16: most of them (published about "
        "0.8; quick 0.91-0.93)",
        0.6,
        0.0,
        False,
        ("reno",),
        lambda u: _r13_source3_share(u("reno")),
        kind=AT_LEAST,
    ),
    Check(
        "study.r13_randomized_relief",
        "R13 (seed 000): the same share under Randomized TCP minus Reno's",
        "Randomized TCP (seed 000), Fig. 16: randomization removes the lockout (quick: -0.38)",
        -0.2,
        0.0,
        False,
        ("reno",),
        lambda u: _r13_source3_share("randomized") - _r13_source3_share(u("reno")),
        kind=AT_MOST,
    ),
]
