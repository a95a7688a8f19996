"""Random loss: one flow's goodput under loss that is not congestion, against the Mathis line."""

from __future__ import annotations

import math

from ccsim.evaluate.battery.common import (
    MSS,
    RATE_BPS,
    RTT,
    RTT_S,
    Algorithm,
    Plan,
    Test,
    TestSweep,
    base_scenario,
    role_of,
    sweep_file,
)

LOSSES_QUICK = (1e-5, 1e-3, 1e-2)
LOSSES_FULL = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2)


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    losses = LOSSES_QUICK if plan.quick else LOSSES_FULL
    scenario = base_scenario(
        "random-loss", plan.seconds(20, 60), [subject.flow(rtt=RTT, mss=MSS)], buffer="1bdp"
    )
    axes = {"topology.loss": {"name": "loss", "values": list(losses)}}
    sweep = sweep_file(f"random-loss.{role_of(alg, subject)}", scenario, plan, axes)
    return [TestSweep("random-loss", subject, role_of(alg, subject), sweep)]


def mathis_bps(loss: float, rtt_s: float = RTT_S, mss: int = MSS) -> float:
    """The Mathis rate with delayed ACKs (C = sqrt(3/4)), capped at the link rate."""
    return min(math.sqrt(3 / 4) * mss * 8 / (rtt_s * math.sqrt(loss)), RATE_BPS)


TEST = Test(
    "random-loss",
    "One flow under random loss, with the Mathis line",
    "How far does goodput fall with loss that is not congestion (wireless, corruption)? "
    "Reno-like algorithms follow the Mathis law; loss-agnostic ones stay above it.",
    "Mathis et al., CCR 1997; draft-irtf-iccrg-tcpeval's note on non-congestion loss",
    sweeps,
)
