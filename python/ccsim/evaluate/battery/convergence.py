"""Convergence: how long a second flow of the algorithm takes to share fairly with a running
one."""

from __future__ import annotations

from ccsim.evaluate.battery.common import (
    MSS,
    RTT,
    Algorithm,
    Plan,
    Test,
    TestSweep,
    base_scenario,
    role_of,
    sweep_file,
)

#: The convergence test's windows: Jain's index of the two flows' goodputs over each window of
#: this length, the windows starting every step.
CONVERGENCE_WINDOW_S = 1.0
CONVERGENCE_STEP_S = 0.1
#: The index the windows must keep from the convergence time on.
CONVERGENCE_JAIN = 0.9


def join_time(duration_s: float) -> float:
    """When the convergence test's second flow starts."""
    return duration_s / 3


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = role_of(alg, subject)
    duration = plan.seconds(30, 60)
    flows = [
        subject.flow(label="first", rtt=RTT, mss=MSS),
        subject.flow(label="second", rtt=RTT, mss=MSS, start=f"{join_time(duration):g}s"),
    ]
    scenario = base_scenario("convergence", duration, flows)
    scenario["trace"] = {"sample_interval": "10ms"}
    sweep = sweep_file(f"convergence.{role}", scenario, plan, {})
    return [TestSweep("convergence", subject, role, sweep)]


TEST = Test(
    "convergence",
    "Convergence of a second flow",
    "A flow of the algorithm runs alone; a second one joins at a third of the run. How "
    "long until the two share fairly, Jain's index over every 1 s window from then on at "
    "least 0.9?",
    "draft-irtf-iccrg-tcpeval, intra-protocol fairness (convergence times)",
    sweeps,
)
