"""Inter-protocol fairness: one flow of the algorithm beside one of each baseline, the share it
takes and the harm each does to the other."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ccsim.evaluate.battery.common import (
    MSS,
    RTT,
    Algorithm,
    Measurement,
    Metric,
    Plan,
    Run,
    Summary,
    SummaryRow,
    Test,
    TestSweep,
    base_scenario,
    role_of,
    sweep_file,
)
from ccsim.evaluate.battery.drawing import Drawing

#: The test's name: its sweeps', its measurements' and its section of the card.
NAME = "inter-protocol"

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
        scenario = base_scenario(NAME, duration, flows)
        role = role_of(alg, subject)
        # "alg" names ALG as an opponent even when a baseline has its name (cubic against cubic).
        opponent_role = "alg" if opponent is alg else opponent.slug
        axes = {"topology.queue": {"name": "queue", "values": list(INTER_QUEUES)}}
        sweep = sweep_file(f"{NAME}.{role}-vs-{opponent_role}", scenario, plan, axes)
        out.append(
            TestSweep(
                NAME,
                subject,
                role,
                sweep,
                opponent,
                warmup_s=duration / 4,
                opponent_role=opponent_role,
            )
        )
    return out


SHARE = Metric("share", "%", (0.0, 100.0), "{:.1f}")
THROUGHPUT_HARM = Metric("throughput harm", "%", (-math.inf, 100.0), "{:.1f}")
DELAY_HARM = Metric("delay harm", "%", (-math.inf, 100.0), "{:.1f}")

_QUEUE_NAMES = {"droptail": "DropTail 1 BDP", "fq_codel": "FQ-CoDel", "dualpi2": "DualPI2"}


def queue_name(queue: str) -> str:
    return _QUEUE_NAMES.get(queue, queue)


def measure(run: Run) -> list[Measurement]:
    sweep = run.sweep
    assert sweep.opponent is not None and sweep.opponent_role is not None
    by_label = run.results.flows.set_index("label")
    goodput = by_label["goodput_bps"].astype(float)
    rtt = by_label["mean_rtt_s"].astype(float)
    queue = str(run.params["queue"])
    order = float(INTER_QUEUES.index(queue)) if queue in INTER_QUEUES else 9.0
    # The raw numbers harm is computed from (derive_harm), kept under the queue and the
    # opponent's role; not summarised.
    raw = f"{queue} vs {sweep.opponent_role}"
    out = [
        run.measurement(f"_{who} goodput", raw, goodput[who], order)
        for who in ("subject", "opponent")
    ] + [run.measurement(f"_{who} RTT", raw, rtt[who], order) for who in ("subject", "opponent")]
    if sweep.opponent_role == "alg" and sweep.role == "alg":
        return out  # ALG against itself: the reference for harm, not a share
    total = float(goodput.sum())
    share = float(goodput["subject"]) / total if total > 0 else float("nan")
    condition = f"{queue_name(queue)}, against {sweep.opponent.name}"
    return [*out, run.measurement(SHARE, condition, 100 * share, order)]


def derive_harm(measurements: Sequence[Measurement], baselines: Sequence[str]) -> list[Measurement]:
    """Harm in both directions (Ware et al., HotNets 2019), per queue, baseline and seed, from
    the inter-protocol runs' raw goodputs and RTTs: ALG's harm to a baseline B compares B's
    flow against ALG with B's flow against B (the opponent flow in both runs: the same start
    under the same seed); B's harm to ALG compares ALG's flow against B with ALG's against ALG
    (the subject flow in both). Goodput is more-is-better, harm = (x - y) / x; RTT is
    less-is-better, harm = (y - x) / y; x is the reference (against itself), y against the other
    algorithm. In percent; negative when the other algorithm helps."""
    raw: dict[tuple[str, str, str, int], float] = {}
    queues: dict[str, float] = {}
    for m in measurements:
        if m.test == NAME and m.metric.startswith("_"):
            queue, _, opponent = m.condition.partition(" vs ")
            raw[(m.metric, m.role, f"{queue}|{opponent}", m.seed)] = m.value
            queues[queue] = m.order
    out = []
    seeds = sorted({key[3] for key in raw})
    for queue, order in sorted(queues.items(), key=lambda item: item[1]):
        for b_index, baseline in enumerate(baselines):
            for seed in seeds:

                def get(
                    metric: str, role: str, opponent: str, queue: str = queue, seed: int = seed
                ) -> float:
                    return raw.get((metric, role, f"{queue}|{opponent}", seed), math.nan)

                pairs = {
                    (THROUGHPUT_HARM, "to"): (
                        get("_opponent goodput", baseline, baseline),
                        get("_opponent goodput", "alg", baseline),
                    ),
                    (DELAY_HARM, "to"): (
                        get("_opponent RTT", baseline, baseline),
                        get("_opponent RTT", "alg", baseline),
                    ),
                    (THROUGHPUT_HARM, "from"): (
                        get("_subject goodput", "alg", "alg"),
                        get("_subject goodput", "alg", baseline),
                    ),
                    (DELAY_HARM, "from"): (
                        get("_subject RTT", "alg", "alg"),
                        get("_subject RTT", "alg", baseline),
                    ),
                }
                for (metric, direction), (alone, beside) in pairs.items():
                    if metric is THROUGHPUT_HARM:
                        value = (alone - beside) / alone if alone > 0 else math.nan
                    else:
                        value = (beside - alone) / beside if beside > 0 else math.nan
                    if math.isnan(value):
                        continue
                    condition = f"{queue_name(queue)}, {direction} {baseline}"
                    sort = order * 100 + b_index * 2 + (direction == "from")
                    out.append(
                        Measurement(NAME, metric.name, condition, "alg", seed, 100 * value, sort)
                    )
    return out


def readings(summary: Summary) -> list[str]:
    """The share ALG takes against each algorithm in each queue; then, per baseline, the harm
    each does to the other."""
    out = []
    shares = []
    for row in summary.rows:
        if row.metric == SHARE.name and row.value.has_data:
            queue, _, opponent = row.condition.partition(", against ")
            shares.append(f"{row.value.mean:.0f}% against {opponent} in {queue}")
    if shares:
        out.append(
            f"One {summary.name} flow takes " + ", ".join(shares) + " (50% is an even share)."
        )
    return out + _harm_readings(summary)


def _harm_readings(summary: Summary) -> list[str]:
    """One sentence per baseline: the harm each does to the other's goodput and RTT, by queue."""
    out = []
    for baseline in summary.baselines:
        parts: dict[str, list[str]] = {"to": [], "from": []}
        for direction in parts:
            for row in summary.rows:
                if row.metric != THROUGHPUT_HARM.name:
                    continue
                queue, _, rest = row.condition.partition(", ")
                if rest != f"{direction} {baseline}" or not row.value.has_data:
                    continue
                text = f"{queue} {_percent(row, THROUGHPUT_HARM)}"
                delay = summary.find(DELAY_HARM, row.condition)
                if delay and delay.value.has_data:
                    text += f" and {_percent(delay, DELAY_HARM)}"
                parts[direction].append(text)
        if parts["to"] or parts["from"]:
            text = (
                f"Harm (Ware et al.) to goodput and to RTT, against each competing with itself "
                f"(negative: a gain): {summary.name} to {baseline} "
                + ("; ".join(parts["to"]) or "-")
            )
            text += f"; {baseline} to {summary.name} " + ("; ".join(parts["from"]) or "-")
            out.append(text + ".")
    return out


def _percent(row: SummaryRow, metric: Metric) -> str:
    """``mean% [low, high]``."""
    text = metric.shown(row.value)
    return text.replace(" [", "% [", 1) if " [" in text else text + "%"


def harm_reading(row: SummaryRow) -> str | None:
    """A harm row's reading, from its own interval: who is harmed, or gains, or neither."""
    if row.metric not in (THROUGHPUT_HARM.name, DELAY_HARM.name):
        return None
    rest = row.condition.partition(", ")[2]
    direction, _, baseline = rest.partition(" ")
    who = f"ALG harms {baseline}" if direction == "to" else f"{baseline} harms ALG"
    what = "goodput" if row.metric == THROUGHPUT_HARM.name else "RTT"
    ci = row.value.interval()
    if ci is None:
        return "too few seeds"
    if ci[0] > 0:
        return f"{who} ({what})"
    if ci[1] < 0:
        gainer = baseline if direction == "to" else "ALG"
        return f"a gain for {gainer} ({what})"
    return f"no clear harm ({what})"


def figures(drawing: Drawing) -> list[tuple[str, bytes]]:
    # A dashed line at an even share.
    return drawing.bars([SHARE], reference=50) + drawing.bars([THROUGHPUT_HARM, DELAY_HARM])


TEST = Test(
    NAME,
    "Sharing with each baseline",
    "What share does one flow of the algorithm take from one flow of each baseline, in a "
    "drop-tail queue of one BDP, under FQ-CoDel (which should enforce half) and under "
    "DualPI2? How much does it harm the baseline (its loss of goodput, and the rise of "
    "its RTT, against the baseline competing with itself), and how much does the "
    "baseline harm it?",
    "draft-irtf-iccrg-tcpeval-01, section 6.1 (impact on standard TCP traffic: its gain "
    "and loss are goodput ratios against a baseline run, as harm is); Ware, "
    "Mukerjee, Seshan and Sherry, HotNets 2019 (Beyond Jain's Fairness Index: Setting "
    "the Bar for the Deployment of Congestion Control Algorithms): harm",
    sweeps,
    measure,
    (SHARE, THROUGHPUT_HARM, DELAY_HARM),
    ("flows",),
    derive=derive_harm,
    readings=readings,
    row_reading=harm_reading,
    figures=figures,
)
