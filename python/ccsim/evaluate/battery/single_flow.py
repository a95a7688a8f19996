"""Single flow: one flow's utilization and queueing delay against the buffer's size."""

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

BUFFERS_QUICK = (0.1, 1.0, 10.0)
BUFFERS_FULL = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    buffers = BUFFERS_QUICK if plan.quick else BUFFERS_FULL
    duration = plan.seconds(10, 30)
    scenario = base_scenario("single-flow", duration, [subject.flow(rtt=RTT, mss=MSS)])
    scenario["trace"] = {"sample_interval": "10ms"}
    axes = {"topology.buffer": {"name": "buffer", "values": [f"{b:g}bdp" for b in buffers]}}
    name = f"single-flow.{role_of(alg, subject)}"
    sweep = sweep_file(name, scenario, plan, axes)
    return [TestSweep("single-flow", subject, role_of(alg, subject), sweep, warmup_s=duration / 5)]


TEST = Test(
    "single-flow",
    "One flow: utilization and queueing delay against buffer size",
    "Does the algorithm fill the link with a shallow buffer, and how much queue does it "
    "keep with a deep one?",
    "draft-irtf-iccrg-tcpeval, basic scenarios (access link); the buffer-size range of "
    "its sensitivity analysis",
    sweeps,
)
