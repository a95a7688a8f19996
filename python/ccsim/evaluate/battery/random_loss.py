"""Random loss: one flow's goodput under loss that is not congestion, against the Mathis line."""

from __future__ import annotations

import math

from ccsim.evaluate.battery.common import (
    GOODPUT,
    MSS,
    RATE_BPS,
    RTT,
    RTT_S,
    Algorithm,
    Measurement,
    Metric,
    Plan,
    Run,
    Summary,
    Test,
    TestSweep,
    base_scenario,
    role_of,
    sweep_file,
)
from ccsim.evaluate.battery.drawing import Drawing
from ccsim.studies.evidence import NONNEGATIVE

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "random-loss"

LOSSES_QUICK = (1e-5, 1e-3, 1e-2)
LOSSES_FULL = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2)


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    losses = LOSSES_QUICK if plan.quick else LOSSES_FULL
    scenario = base_scenario(
        NAME, plan.seconds(20, 60), [subject.flow(rtt=RTT, mss=MSS)], buffer="1bdp"
    )
    axes = {"topology.loss": {"name": "loss", "values": list(losses)}}
    sweep = sweep_file(f"{NAME}.{role_of(alg, subject)}", scenario, plan, axes)
    return [TestSweep(NAME, subject, role_of(alg, subject), sweep)]


def mathis_bps(loss: float, rtt_s: float = RTT_S, mss: int = MSS) -> float:
    """The Mathis rate with delayed ACKs (C = sqrt(3/4)), capped at the link rate."""
    return min(math.sqrt(3 / 4) * mss * 8 / (rtt_s * math.sqrt(loss)), RATE_BPS)


GOODPUT_BY_MATHIS = Metric("goodput / Mathis", "", NONNEGATIVE, "{:.2f}")


def measure(run: Run) -> list[Measurement]:
    loss = float(run.params["loss"])
    goodput = float(run.results.flows["goodput_bps"].sum())
    condition = f"loss {loss:g}"
    return [
        run.measurement(GOODPUT, condition, goodput / 1e6, loss),
        run.measurement(GOODPUT_BY_MATHIS, condition, goodput / mathis_bps(loss, RTT_S), loss),
    ]


def readings(summary: Summary) -> list[str]:
    loss = summary.find(GOODPUT, "loss 0.001")
    ratio = summary.find(GOODPUT_BY_MATHIS, "loss 0.001")
    if not (loss and ratio and loss.value.has_data):
        return []
    return [
        f"At 0.1% random loss it gets {loss.value.mean:.1f} Mb/s, "
        f"{ratio.value.mean:.1f} times the Mathis rate ({mathis_bps(1e-3) / 1e6:.1f} Mb/s)."
    ]


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    import matplotlib.pyplot as plt

    if not drawing.measured(GOODPUT):
        return []
    figure, ax = plt.subplots(figsize=(6, 4))
    drawing.lines(GOODPUT, ax, log_x=True)
    losses = list(LOSSES_FULL)
    ax.plot(losses, [mathis_bps(p) / 1e6 for p in losses], "k--", label="Mathis (C = 0.87)")
    ax.set_yscale("log")
    ax.set_xlabel("random loss rate")
    drawing.legend(ax)
    return [(NAME, drawing.png(figure))]


TEST = Test(
    NAME,
    "One flow under random loss, with the Mathis line",
    "How far does goodput fall with loss that is not congestion (wireless, corruption)? "
    "Reno-like algorithms follow the Mathis law; loss-agnostic ones stay above it.",
    "Mathis et al., CCR 1997; draft-irtf-iccrg-tcpeval-01 leaves physical-layer losses to "
    "a later version (section 4.4.5.2)",
    sweeps,
    measure,
    (GOODPUT, GOODPUT_BY_MATHIS),
    ("flows",),
    readings=readings,
    figures=figures,
)
