"""Intra-protocol fairness: flows of the algorithm sharing one bottleneck, at one RTT and
across RTTs."""

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

#: The fairness test's flow counts.
FLOW_COUNTS = (2, 8, 16)
#: The RTT-fairness flows' base RTTs (ms), all through one bottleneck at once.
FAIRNESS_RTTS_MS = (10, 50, 100, 200)


def sweeps(alg: Algorithm, subject: Algorithm, _: list[Algorithm], plan: Plan) -> list[TestSweep]:
    role = role_of(alg, subject)
    duration = plan.seconds(20, 60)
    # Starts spread over the first second, so that the flows do not start in one phase.
    flows = [subject.flow(rtt=RTT, mss=MSS, count=2, start_jitter="1s")]
    scenario = base_scenario("intra-fairness", duration, flows)
    axes = {"flows.0.count": {"name": "flow_count", "values": list(FLOW_COUNTS)}}
    together = sweep_file(f"intra-fairness.{role}", scenario, plan, axes)
    rtts = [
        subject.flow(label=f"rtt{ms}ms", rtt=f"{ms}ms", mss=MSS, start_jitter="1s")
        for ms in FAIRNESS_RTTS_MS
    ]
    # The buffer is one BDP of a 100 ms path, as a router sized for the middle of the range.
    rtt_scenario = base_scenario(
        "rtt-fairness", duration, rtts, bdp_rtt="100ms", bottleneck_delay="2ms"
    )
    rtt_sweep = sweep_file(f"rtt-fairness.{role}", rtt_scenario, plan, {})
    return [
        TestSweep("intra-fairness", subject, role, together, warmup_s=duration / 4),
        TestSweep("intra-fairness", subject, role, rtt_sweep, warmup_s=duration / 4),
    ]


TEST = Test(
    "intra-fairness",
    "Fairness among flows of the algorithm, and across RTTs",
    "Do flows of the same algorithm share equally (2, 8 and 16 flows), and how does the "
    "goodput of flows at 10, 50, 100 and 200 ms of RTT through one bottleneck depend on "
    "their RTT?",
    "draft-irtf-iccrg-tcpeval, intra-protocol and RTT fairness",
    sweeps,
)
