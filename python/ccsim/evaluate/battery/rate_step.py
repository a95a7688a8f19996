"""Rate step: one flow's start-up, and its adaptation when the link's rate drops to a fifth and
comes back."""

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

#: The rate-step test's link: 100 Mb/s, 20 Mb/s from a third of the run, 100 Mb/s again from
#: two thirds.
STEP_HIGH_BPS = 100e6
STEP_LOW_BPS = 20e6


def step_times(duration_s: float) -> tuple[float, float]:
    """When the rate-step test's link steps down and back up."""
    return duration_s / 3, 2 * duration_s / 3


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    duration = plan.seconds(30, 60)
    down, up = step_times(duration)
    scenario = base_scenario(
        "rate-step",
        duration,
        [subject.flow(rtt=RTT, mss=MSS)],
        bottleneck_rate=f"{STEP_HIGH_BPS / 1e6:g}Mbps",
        rate_schedule=[
            [f"{down:g}s", f"{STEP_LOW_BPS / 1e6:g}Mbps"],
            [f"{up:g}s", f"{STEP_HIGH_BPS / 1e6:g}Mbps"],
        ],
    )
    scenario["trace"] = {"sample_interval": "10ms"}
    role = role_of(alg, subject)
    sweep = sweep_file(f"rate-step.{role}", scenario, plan, {})
    return [TestSweep("rate-step", subject, role, sweep)]


TEST = Test(
    "rate-step",
    "Start-up and adaptation to a rate step",
    "How fast does one flow fill a 100 Mb/s link after its start, and after the link "
    "comes back from 20 Mb/s; how much queue does it build when the rate drops to a "
    "fifth under it?",
    "draft-irtf-iccrg-tcpeval, transients (a sudden change in capacity)",
    sweeps,
)
