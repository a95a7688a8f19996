"""Inter-protocol fairness: one flow of the algorithm beside one of each baseline, the share it
takes and the harm each does to the other."""

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

#: The inter-protocol test's queues at the bottleneck.
INTER_QUEUES = ("droptail", "fq_codel", "dualpi2")


def sweeps(
    alg: Algorithm, subject: Algorithm, against: list[Algorithm], plan: Plan
) -> list[TestSweep]:
    # The evaluated algorithm meets itself and every baseline; each baseline meets itself. A
    # share is read against the baseline's own (half the link, in a fair world), and harm (Ware
    # et al.) against each algorithm's goodput and delay when it competes with itself.
    opponents = [alg, *against] if subject is alg else [subject]
    out = []
    for opponent in opponents:
        flows = [
            subject.flow(label="subject", rtt=RTT, mss=MSS, start_jitter="1s"),
            opponent.flow(label="opponent", rtt=RTT, mss=MSS, start_jitter="1s"),
        ]
        duration = plan.seconds(20, 60)
        scenario = base_scenario("inter-protocol", duration, flows)
        role = role_of(alg, subject)
        # "alg" names ALG as an opponent even when a baseline has its name (cubic against cubic).
        opponent_role = "alg" if opponent is alg else opponent.slug
        axes = {"topology.queue": {"name": "queue", "values": list(INTER_QUEUES)}}
        sweep = sweep_file(f"inter-protocol.{role}-vs-{opponent_role}", scenario, plan, axes)
        out.append(
            TestSweep(
                "inter-protocol",
                subject,
                role,
                sweep,
                opponent,
                warmup_s=duration / 4,
                opponent_role=opponent_role,
            )
        )
    return out


TEST = Test(
    "inter-protocol",
    "Sharing with each baseline",
    "What share does one flow of the algorithm take from one flow of each baseline, in a "
    "drop-tail queue of one BDP, under FQ-CoDel (which should enforce half) and under "
    "DualPI2? How much does it harm the baseline (its loss of goodput, and the rise of "
    "its RTT, against the baseline competing with itself), and how much does the "
    "baseline harm it?",
    'draft-irtf-iccrg-tcpeval, inter-protocol fairness ("TCP-friendliness"); Ware, '
    "Mukerjee, Seshan and Sherry, HotNets 2019 (Beyond Jain's Fairness Index: Setting "
    "the Bar for the Deployment of Congestion Control Algorithms): harm",
    sweeps,
)
