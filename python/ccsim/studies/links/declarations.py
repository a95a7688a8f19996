"""C1 and C2 as ``ccsim study`` runs them."""

from __future__ import annotations

from ccsim.studies.core import FigureSpec, Study
from ccsim.studies.links.analysis import c1_table, c2_table, c3_table
from ccsim.studies.links.claims import C1_CLAIMS, C2_CLAIMS, C3_CLAIMS
from ccsim.studies.links.common import (
    ALFREDSSON,
    BBR_AGGREGATION_COMMIT,
    BBR_AGGREGATION_SLIDES,
    BBR_PAPER,
    C1_ALGORITHMS,
    C2_ALGORITHMS,
    C3_ALGORITHMS,
    C3_SENDERS,
    MSS,
    PANTHEON,
    PROFILE,
    RFC9438,
    SPROUT,
    START_JITTER,
    TCPEVAL,
    TRACES_SETTING,
    VEGAS,
    VERUS,
)
from ccsim.studies.links.step_run import DRAINED_S
from ccsim.studies.links.workload import (
    C1_BUFFER_PKTS,
    C1_LINK_DELAY,
    C1_QUICK_TIMES,
    C1_RTT,
    C1_TIMES,
    C2_BUFFER,
    C2_QUICK_TIMES,
    C2_RTT,
    C2_TIMES,
    C3_ACK_SPACING_MS,
    C3_BUFFER,
    C3_LEVELS,
    C3_QUICK_LEVELS,
    C3_QUICK_REPLICATES,
    C3_QUICK_SENDERS,
    C3_QUICK_TIMES,
    C3_RATE_BPS,
    C3_RTT,
    C3_TIMES,
    FULL_REPLICATES,
    QUICK_REPLICATES,
    RAMP_WINDOW_S,
    c1_sweeps,
    c2_sweeps,
    c3_sweeps,
)

#: The most seeds a full run goes up to while a check is inconclusive.
MAX_REPLICATES = 10

COMMON_ASSUME = (
    "linux profile (Linux 6.x: RACK-TLP, PRR, DSACK and undo, delayed ACKs, 25 us send-time "
    f"noise); MSS {MSS} B, so 1500-byte packets; one bulk flow a run, starting at a time drawn "
    f"uniformly in [0, {START_JITTER}) per seed; {FULL_REPLICATES} seeds (quick: "
    f"{QUICK_REPLICATES}), up to {MAX_REPLICATES} while a check is inconclusive",
)

C1 = Study(
    id="C1",
    slug="links-cellular",
    title="One flow at a time over a cellular trace: throughput against 95th-percentile "
    "one-way delay (CUBIC, BBR, BBRv3, Vegas, FAST)",
    source=f"{SPROUT}; {PANTHEON}; {VERUS}; {ALFREDSSON}",
    setup=f"a dumbbell whose bottleneck replays a Mahimahi-format trace (each .down file of "
    f"${TRACES_SETTING}, its .up file on the ACKs' direction; unset: the package's copy of examples/traces/"
    f"synthetic-cellular), {C1_BUFFER_PKTS}-packet drop-tail buffer, base RTT {C1_RTT}; "
    f"one flow of {', '.join(C1_ALGORITHMS)} at a time; its throughput and the 95th "
    "percentile of its segments' one-way delay",
    warmup=f"{C1_TIMES[1]:g} s of {C1_TIMES[0]:g} s (quick: {C1_QUICK_TIMES[1]:g} s of "
    f"{C1_QUICK_TIMES[0]:g} s, {QUICK_REPLICATES} seeds)",
    assumptions=(
        *COMMON_ASSUME,
        f"the trace link carries {C1_LINK_DELAY} each way and the access links the rest of "
        "the base RTT; the trace loops (Mahimahi's rule) and its unused opportunities are "
        "lost; the recorded traces are not shipped (docs/studies/links.md says where to get "
        "them)",
        "throughput: the flow's delivered rate averaged after the warm-up (100 ms samples); "
        "one-way delay: for each ACK back at the sender after the warm-up, the segment it "
        "answers: the receiver's arrival time less the send time (the ACK's timestamp option in the flow's "
        "packet capture): propagation, queueing and waiting for the trace's opportunities",
    ),
    sweeps=c1_sweeps,
    analyse=c1_table,
    claims=C1_CLAIMS,
    figure=FigureSpec("One flow over a cellular trace", x=None, hue="algorithm"),
    algorithms=C1_ALGORITHMS,
    profile=PROFILE,
    max_replicates=MAX_REPLICATES,
)

C2 = Study(
    id="C2",
    slug="links-rate-step",
    title="A rate step 100 -> 20 -> 100 Mb/s: time to 90 % after the step up, queue peak "
    "and time to drain after the step down (CUBIC, Reno, BBR, BBRv3, Vegas)",
    source=f"{TCPEVAL}; {BBR_PAPER}; {RFC9438}; {VEGAS}",
    setup=f"a 100 Mb/s dumbbell with a {C2_BUFFER} drop-tail buffer (at 100 Mb/s, "
    f"{C2_RTT}) whose rate_schedule steps to 20 Mb/s and back; one flow of "
    f"{', '.join(C2_ALGORITHMS)} at a time, base RTT {C2_RTT}",
    warmup=f"the steps at {C2_TIMES[1]:g} s and {C2_TIMES[2]:g} s of {C2_TIMES[0]:g} s "
    f"(quick: {C2_QUICK_TIMES[1]:g} s and {C2_QUICK_TIMES[2]:g} s of {C2_QUICK_TIMES[0]:g} s, "
    f"{QUICK_REPLICATES} seeds); everything before the step down is warm-up",
    assumptions=(
        *COMMON_ASSUME,
        "the rate changes at its instant for the packet in transmission and the queue "
        "(docs/links.md); flow rate and queue sampled every 10 ms",
        f"time to 90 %: from the step up to the end of the first {RAMP_WINDOW_S * 1e3:g} ms "
        "window in which the flow delivered at least 90 Mb/s (the rest of the run when it "
        f"never does); queue peak: the most packets queued at the bottleneck at 20 Mb/s; time "
        f"to drain: from the step down until the queue, from its peak on, first holds at most "
        f"{DRAINED_S * 1e3:g} ms at 20 Mb/s (the whole low period when it never does)",
    ),
    sweeps=c2_sweeps,
    analyse=c2_table,
    claims=C2_CLAIMS,
    figure=FigureSpec("A rate step 100 -> 20 -> 100 Mb/s", x=None, hue="algorithm"),
    algorithms=C2_ALGORITHMS,
    profile=PROFILE,
    max_replicates=MAX_REPLICATES,
)

C3 = Study(
    id="C3",
    slug="links-ack-aggregation",
    title="ACK aggregation: throughput against ACKs a burst on the ACK path (CUBIC, Reno, BBR, "
    "BBRv3, and the BBRs without their ACK-aggregation allowance)",
    source=f"{BBR_AGGREGATION_COMMIT}; {BBR_AGGREGATION_SLIDES}",
    setup=f"a {C3_RATE_BPS / 1e6:g} Mb/s dumbbell, base RTT {C3_RTT}, {C3_BUFFER} drop-tail "
    "buffers; the ACK direction of the bottleneck aggregates (reverse_aggregation, "
    "docs/links.md) at level N = "
    f"{', '.join(map(str, C3_LEVELS))}: each burst after a channel-access delay uniform in "
    f"[0.5, 1.5] x N x {C3_ACK_SPACING_MS:g} ms, up to 2N ACKs (level 1: a plain link); one "
    f"flow of {', '.join(C3_SENDERS)} at a time",
    warmup=f"{C3_TIMES[1]:g} s of {C3_TIMES[0]:g} s (quick: {C3_QUICK_TIMES[1]:g} s of "
    f"{C3_QUICK_TIMES[0]:g} s, levels {', '.join(map(str, C3_QUICK_LEVELS))}, "
    f"{', '.join(C3_QUICK_SENDERS)} only, {C3_QUICK_REPLICATES} seeds)",
    assumptions=(
        *COMMON_ASSUME,
        f"the access delay scales with the level so that a burst collects about N ACKs: at "
        f"{C3_RATE_BPS / 1e6:g} Mb/s the receiver acknowledges about 2100 times a second (delayed "
        f"ACKs), one every {C3_ACK_SPACING_MS:g} ms or so; the data direction is a plain link",
        "throughput: the flow's delivered rate averaged after the warm-up (100 ms samples); "
        "'bbr-no-extra-acked' and 'bbr3-no-extra-acked' are BBR and BBRv3 with the parameter "
        "ack_aggregation off",
    ),
    sweeps=c3_sweeps,
    analyse=c3_table,
    claims=C3_CLAIMS,
    figure=FigureSpec(
        "Throughput against ACK aggregation", x="level", hue="algorithm", xlabel="ACKs a burst"
    ),
    algorithms=C3_ALGORITHMS,
    profile=PROFILE,
    max_replicates=MAX_REPLICATES,
)

#: C1, C2 and C3, as ``ccsim study`` lists them.
STUDIES: tuple[Study, ...] = (C1, C2, C3)
__all__ = ["C1", "C2", "C3", "MAX_REPLICATES", "STUDIES"]
