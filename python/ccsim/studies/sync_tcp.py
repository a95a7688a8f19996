"""Seed 003, Sync-TCP in high-speed environments: studies S1-S2 (docs/studies/sync-tcp.md),
S3, a question the paper leaves open, and a sensitivity sweep of S1-S2 over what the
paper does not give (:func:`sensitivity`).

S1 and S2 are the paper's start-up experiments (its Table 1 and Fig. 2): one source node, two
finite-buffer DropTail routers and one destination node in a line, every link 10 ms (a 60 ms
base RTT) and at the study's rate; "two-way TCP traffic": the measured flow from the source to
the destination and one Reno bulk flow from the destination to the source, over the same links;
25 s. How long the measured flow's cwnd takes to reach the maximum window (50 at 10 Mb/s in S1,
500 at 100 Mb/s in S2; both the path's BDP with 1500-byte packets), whether it lost packets
before, and its goodput. Compared: Reno, Sync-TCP (``sync-tcp``) and the modified Sync-TCP
(``sync-tcp-hs``), the latter under both readings of its constant increase alpha0
(``alpha0_mode``: 0, the default, +alpha0 x cwnd per RTT; 1, +alpha0 segments per RTT).

Every link has a DropTail queue in each direction. The paper gives no size, so each is ns-2's
default queue limit, 50 packets (:data:`NS2_QUEUE_LIMIT`). ns-2 counts the packet being
transmitted in its limit and ccsim does not, so that is ccsim's ``buffer = "49pkts"``
(:func:`ns2_buffer`). The queue that decides is the source's own: every link has the same rate,
so a window that grows faster than the ACKs return queues there and nowhere else.

S3 (ours) asks whether Sync-TCP's delay-based detection still pays at 1 Gb/s when the reverse
path is congested: RTT-based signals see the reverse queue, Sync-TCP's one-way delays do not.

Choices the paper leaves open are in ``S1_ASSUME``, ``S2_ASSUME`` and ``S3_ASSUME``; the ones a
verdict may hang on (the queue size, Sync-TCP's averaging weight, alpha0's unit) are varied by
:func:`sensitivity`:

    python3 -c "from ccsim.studies import sync_tcp; sync_tcp.sensitivity(workers=2)"
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
    NONNEGATIVE,
    UNIT,
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Settings,
    Study,
    StudyReport,
    band,
    compare,
    measure,
    run_study,
    summarise,
    within,
)

SOURCE = "seed 003 (Sync-TCP in high-speed environments)"
MSS = 1460
#: ns-2's default queue limit (``Queue set limit_ 50``), used on every link where the paper gives
#: no size.
NS2_QUEUE_LIMIT = 50


def ns2_buffer(limit: int) -> str:
    """ccsim's ``buffer`` for an ns-2 DropTail queue of ``limit`` packets.

    ns-2's DropTail drops an arrival when the packets waiting plus one reach ``limit_``, the
    packet on the wire being outside the queue, so at most ``limit - 1`` packets wait; ccsim's
    limit counts waiting packets (crates/ccsim-core/src/net/qdisc/droptail.rs).

    >>> ns2_buffer(50)
    '49pkts'
    """
    if limit < 1:
        raise ValueError(f"queue limit {limit}: at least 1")
    return f"{limit - 1}pkts"


#: The compared configurations: a label, the algorithm, its parameters and other keys of the
#: measured flow (its hosts' clocks).
Config = tuple[str, dict[str, Any], dict[str, Any]]
CONFIGS: dict[str, Config] = {
    "reno": ("reno", {}, {}),
    "sync-tcp": ("sync-tcp", {}, {}),
    "sync-tcp-hs": ("sync-tcp-hs", {}, {}),
    "sync-tcp-hs (alpha0 in packets)": ("sync-tcp-hs", {"alpha0_mode": 1}, {}),
}
#: S2 also runs Sync-TCP with unsynchronised clocks (ours): the receiver's clock 20 ms behind
#: the sender's, or running 100 ppm fast or slow (a free-running quartz clock; NTP keeps a host
#: within a few ppm).
CLOCK_CONFIGS: dict[str, Config] = {
    "sync-tcp (clock offset -20 ms)": ("sync-tcp", {}, {"clock_offset": "-20ms"}),
    "sync-tcp (clock drift +100 ppm)": ("sync-tcp", {}, {"clock_drift_ppm": 100.0}),
    "sync-tcp (clock drift -100 ppm)": ("sync-tcp", {}, {"clock_drift_ppm": -100.0}),
}
DURATION_S = 25.0
REACH = "time to max window s (25: not reached)"
REACHED = "reached within 25 s (share of runs)"
DROPS_BEFORE = "data packets lost before it"
EARLY = "lost packets before it (share of runs)"
GOODPUT = "goodput Mb/s"
#: The range of every quantity of S1 and S2.
STARTUP_BOUNDS = {
    REACH: (0.0, DURATION_S),
    REACHED: UNIT,
    DROPS_BEFORE: NONNEGATIVE,
    EARLY: UNIT,
    GOODPUT: NONNEGATIVE,
}
#: The paper's "X s" from one run is read as "within a factor of ABOUT of X" (0.4 s: 0.2 to
#: 0.8 s; 8 s: 4 to 16 s).
ABOUT = 2.0
#: Seeds per configuration in a full run (quick: 3), and the most a full run goes up to while a
#: check is inconclusive.
STARTUP_SEEDS = 5
STARTUP_MAX_REPLICATES = 80

#: The paper's numbers: S1 time to cwnd 50 (Reno 0.4 s, Sync-TCP 0.85 s, modified = Reno);
#: S2 time to cwnd 500 (Sync-TCP 8 s, modified 4 s; Reno "could not reach this size until
#: 25 seconds"), Sync-TCP with losses, the modified without early loss.
S1_PUBLISHED = {("reno", REACH): 0.4, ("sync-tcp", REACH): 0.85, ("sync-tcp-hs", REACH): 0.4}
S2_PUBLISHED = {
    ("reno", REACH): 25.0,
    ("sync-tcp", REACH): 8.0,
    ("sync-tcp-hs", REACH): 4.0,
    ("sync-tcp", REACHED): 1.0,
    ("sync-tcp-hs", REACHED): 1.0,
    ("sync-tcp", EARLY): 1.0,
    ("sync-tcp-hs", EARLY): 0.0,
}


@dataclasses.dataclass(frozen=True)
class Variant:
    """A setting of what the paper does not give: the queue limit of every link (ns-2's way of
    counting), Sync-TCP's parameters (for ``sync-tcp`` and ``sync-tcp-hs``) and the modified
    Sync-TCP's own (for ``sync-tcp-hs``)."""

    slug: str
    description: str
    queue_limit: int = NS2_QUEUE_LIMIT
    sync: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    modified: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def params(self, cc: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The measured flow's parameters under this variant."""
        merged = dict(params)
        if cc.startswith("sync-tcp"):
            merged |= dict(self.sync)
        if cc == "sync-tcp-hs":
            merged |= dict(self.modified)
        return merged


#: The studies' own setting: ns-2's default queue on every link, Sync-TCP's defaults
#: (docs/algorithms.md, sync-tcp).
DEFAULT = Variant("default", f"ns-2 defaults: queue limit {NS2_QUEUE_LIMIT}, w_avg 1/8")


def _startup_assume(rate: str, window: int) -> tuple[str, ...]:
    return (
        "ns2 profile (Reno-family recovery, no delayed ACKs, initial window 2, as the paper's "
        f"ns-2 agents), 1500-byte packets (MSS {MSS} B): the maximum window {window} is the BDP "
        f"of the 60 ms path at {rate}",
        (
            f"source - R0 - R1 - destination, every link {rate} and 10 ms; every link has a "
            f"DropTail queue of ns-2's default limit {NS2_QUEUE_LIMIT} packets in each direction "
            f"(source->R0, R0->R1, R1->destination and back; ccsim buffer "
            f"{ns2_buffer(NS2_QUEUE_LIMIT)}, as ns-2 counts the packet on the wire): the paper "
            "states 'finite-buffer droptail' routers and no size"
        ),
        (
            f"two-way traffic: one Reno bulk flow (max window {window}) from the destination "
            "node to the source node over the same links, starting at a random time in [0, 1 s) "
            "drawn per seed; the measured flow starts at 0"
        ),
        (
            "25 s runs; cwnd sampled every 10 ms (times known to 10 ms); a run that does not "
            "reach the window counts 25 s; 'lost before' counts the measured flow's data "
            f"packets dropped before it got there; {STARTUP_SEEDS} seeds, more while a check is "
            f"inconclusive, up to {STARTUP_MAX_REPLICATES} (quick: 3)"
        ),
        (
            "sync-tcp-hs is reported under both readings of alpha0: +0.375 x cwnd per RTT "
            "(the default, which the claims are judged on) and +0.375 segments per RTT"
        ),
        (
            "Sync-TCP's averaging weight w_avg = 1/8 and the queue size are not given by the "
            "paper: sync_tcp.sensitivity() varies them (docs/studies/sync-tcp.md)"
        ),
    )


def startup_scenario(
    cc: str,
    params: dict[str, Any],
    rate: str,
    window: int,
    clocks: dict[str, Any] | None = None,
    queue_limit: int = NS2_QUEUE_LIMIT,
) -> dict[str, Any]:
    """The measured flow source -> destination and a Reno bulk flow destination -> source on
    the S1/S2 path: source - R0 - R1 - destination, every link ``rate``, 10 ms and an ns-2
    DropTail queue of ``queue_limit`` packets in each direction."""
    nodes = ["source", "R0", "R1", "destination"]
    buffer = ns2_buffer(queue_limit)
    return {
        "name": "study",
        "seed": 1,
        "duration": f"{DURATION_S:g}s",
        "topology": {
            "kind": "explicit",
            "nodes": nodes,
            "links": [
                {"src": a, "dst": b, "rate": rate, "delay": "10ms", "buffer": buffer}
                for a, b in itertools.pairwise(nodes)
            ],
        },
        "trace": {"sample_interval": "10ms", "drops": True},
        "flows": [
            {
                "cc": cc,
                "src": "source",
                "dst": "destination",
                "mss": MSS,
                "max_window": window,
                "label": "measured",
                "params": dict(params),
                **(clocks or {}),
            },
            {
                "cc": "reno",
                "src": "destination",
                "dst": "source",
                "mss": MSS,
                "max_window": window,
                "start_jitter": "1s",
                "label": "reverse reno",
            },
        ],
    }


def _startup_sweeps(
    rate: str, window: int, configs: dict[str, Config], variant: Variant = DEFAULT
) -> Callable[[Settings], list[dict[str, Any]]]:
    def sweeps(s: Settings) -> list[dict[str, Any]]:
        return [
            {
                "name": _sweep_name(label),
                "scenario": startup_scenario(
                    cc, variant.params(cc, params), rate, window, clocks, variant.queue_limit
                ),
                "seeds": s.seeds(STARTUP_SEEDS, 3),
            }
            for label, (cc, params, clocks) in configs.items()
        ]

    return sweeps


def _sweep_name(label: str) -> str:
    """A store-friendly name: ``sync-tcp (clock drift +100 ppm)`` -> ``sync-tcp-clock-drift-p100-ppm``."""
    for old, new in (
        (" (alpha0 in packets)", "-packets"),
        ("+", "p"),
        ("-20", "m20"),
        ("-100", "m100"),
    ):
        label = label.replace(old, new)
    return label.replace(" (", "-").replace(")", "").replace(" ", "-")


def _label(sweep: str) -> str:
    return next(label for label in (*CONFIGS, *CLOCK_CONFIGS) if _sweep_name(label) == sweep)


def _cwnd_figure(c: Context, study_id: str, window: int) -> None:
    """``<ID>-cwnd.png``: the measured flow's cwnd over the first 25 s in the first seed's run
    of every configuration (the paper's Fig. 2)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(8, 4.8))
    store = None
    for sweep in c.results:
        if c.results[sweep] is None:
            continue
        store = c.results[sweep].store
        first = min(c.points(sweep), key=lambda p: int(p[0]["seed"]))
        series = first[1]("series")
        mine = series[series["flow"] == 0]
        ax.plot(mine["t_s"], mine["cwnd_pkts"].clip(upper=2 * window), lw=1, label=_label(sweep))
    ax.axhline(window, color="grey", ls=":", label=f"maximum window {window}")
    ax.set_xlabel("time s")
    ax.set_ylabel(f"cwnd, segments (clipped at {2 * window})")
    ax.set_title(f"{study_id}: cwnd of the measured flow, first seed (ccsim)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    figure.tight_layout()
    if store is not None:
        path = store.root.parent.parent / f"{study_id}-cwnd.png"
        figure.savefig(path, dpi=100)
        c.notes.append(f"{study_id}: cwnd over time {path}")
    plt.close(figure)


def _startup_analyse(
    study_id: str, window: int, published: dict[tuple[Any, ...], float]
) -> Callable[[Context], pd.DataFrame]:
    def analyse(c: Context) -> pd.DataFrame:
        records: list[dict[str, Any]] = []
        for sweep in c.results:
            if c.results[sweep] is None:
                continue
            label = _label(sweep)
            for point, load in c.points(sweep):
                flows, drops = load("flows"), load("drops")
                data_drops = drops[drops["is_ack"] == 0]
                reach = metrics.time_to_cwnd(load("series"), window, flows, data_drops).loc[0]
                time = float(reach["after_start_s"])
                reached = not math.isnan(time)
                goodput = float(flows.loc[flows["flow"] == 0, "goodput_bps"].iloc[0]) / 1e6
                for metric, number in (
                    (REACH, time if reached else DURATION_S),
                    (REACHED, float(reached)),
                    (DROPS_BEFORE, float(reach["drops_before"])),
                    (EARLY, float(reach["early_loss"])),
                    (GOODPUT, goodput),
                ):
                    records.append(
                        {
                            "algorithm": label,
                            "metric": metric,
                            "seed": int(point["seed"]),
                            "value": number,
                        }
                    )
        if records:
            _cwnd_figure(c, study_id, window)
        return summarise(records, ["algorithm"], published, bounds=STARTUP_BOUNDS)

    return analyse


# ---- the claims of S1 and S2 ------------------------------------------------------------------

#: The modified Sync-TCP as the claims judge it (alpha0 = +37.5 % of cwnd per RTT).
MODIFIED = "sync-tcp-hs"


def _time(table: pd.DataFrame, label: str) -> Quantity:
    return measure(table, REACH, algorithm=label)


def _about(label: str, quantity: Quantity, published: float) -> Check:
    """The paper's "``published`` s", within a factor of :data:`ABOUT`."""
    return band(label, quantity, published / ABOUT, published * ABOUT, unit="s")


def _s1_reno(table: pd.DataFrame) -> list[Check]:
    return [_about("Reno's time to 50", _time(table, "reno"), 0.4)]


def _s1_sync_slower(table: pd.DataFrame) -> list[Check]:
    reno, sync = _time(table, "reno"), _time(table, "sync-tcp")
    return [
        compare("time to 50, Sync-TCP vs Reno (paired by seed)", sync, ">", reno, unit="s"),
        _about("Sync-TCP's time to 50", sync, 0.85),
    ]


def _s1_modified_is_reno(table: pd.DataFrame) -> list[Check]:
    reno = _time(table, "reno")
    return [
        within(f"time to 50, {label} vs Reno", _time(table, label), reno, 0.05, unit="s")
        for label in (MODIFIED, "sync-tcp-hs (alpha0 in packets)")
    ]


def _s2_reno_late(table: pd.DataFrame) -> list[Check]:
    reno, sync = _time(table, "reno"), _time(table, "sync-tcp")
    late = DURATION_S / ABOUT
    return [
        compare(
            "Reno's time to 500 (25 s if not reached)",
            reno,
            ">",
            late,
            unit="s",
            reversal=None,
            required=f"> {late:g} s (about 25 s, or not within the run)",
        ),
        compare("time to 500, Reno vs Sync-TCP (paired by seed)", reno, ">", sync, unit="s"),
    ]


def _s2_sync_time(table: pd.DataFrame) -> list[Check]:
    return [_about("Sync-TCP's time to 500 (25 s if not reached)", _time(table, "sync-tcp"), 8.0)]


def _s2_sync_losses(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            "Sync-TCP's data packets lost before reaching 500, per run",
            measure(table, DROPS_BEFORE, algorithm="sync-tcp"),
            ">=",
            1.0,
            required=">= 1 (reversed: < 1)",
        )
    ]


def _s2_modified_time(modified: str) -> Callable[[pd.DataFrame], list[Check]]:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        mine, sync = _time(table, modified), _time(table, "sync-tcp")
        return [
            _about(f"{modified}'s time to 500 (25 s if not reached)", mine, 4.0),
            compare(
                f"time to 500, {modified} vs Sync-TCP (paired by seed)", mine, "<", sync, unit="s"
            ),
        ]

    return evaluate


def _s2_modified_no_loss(modified: str) -> Callable[[pd.DataFrame], list[Check]]:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        return [
            compare(
                f"{modified}'s data packets lost before reaching 500, per run",
                measure(table, DROPS_BEFORE, algorithm=modified),
                "<",
                1.0,
                required="< 1 (reversed: >= 1)",
            )
        ]

    return evaluate


def _s2_modified_goodput(modified: str, other: str) -> Callable[[pd.DataFrame], list[Check]]:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        name = "Sync-TCP" if other == "sync-tcp" else "Reno"
        return [
            compare(
                f"goodput over the 25 s, {modified} vs {name} (paired by seed)",
                measure(table, GOODPUT, algorithm=modified),
                ">",
                measure(table, GOODPUT, algorithm=other),
                unit="Mb/s",
            )
        ]

    return evaluate


def _s2_offset_changes_nothing(table: pd.DataFrame) -> list[Check]:
    label = "sync-tcp (clock offset -20 ms)"
    checks = [
        within(
            f"{name}, receiver clock 20 ms behind vs synchronised",
            measure(table, metric, algorithm=label),
            measure(table, metric, algorithm="sync-tcp"),
            0.01,
            unit=unit,
        )
        for metric, name, unit in (
            (REACH, "time to 500 (25 s if not reached)", "s"),
            (GOODPUT, "goodput", "Mb/s"),
        )
    ]
    skewed = measure(table, DROPS_BEFORE, algorithm=label)
    synced = measure(table, DROPS_BEFORE, algorithm="sync-tcp")
    if not skewed.has_data or not synced.has_data:
        checks.append(
            Check.no_data("data packets lost before reaching 500, offset vs synchronised")
        )
    else:
        checks.append(
            band(
                "data packets lost before reaching 500, receiver clock 20 ms behind minus "
                "synchronised (paired by seed)",
                skewed - synced,
                -0.5,
                0.5,
            )
        )
    return checks


def _s1_claims() -> tuple[Claim, ...]:
    return (
        Claim(
            "Reno reaches the maximum window 50 in 0.4 s",
            f"Reno's mean time to 50 within a factor of {ABOUT:g} of 0.4 s (0.2 to 0.8 s)",
            _s1_reno,
        ),
        Claim(
            "Sync-TCP takes 0.85 s to reach 50, longer than Reno (it grows by at most 50 % per "
            "RTT where Reno doubles)",
            "Sync-TCP's time minus Reno's, paired by seed, > 0 (reversed: < 0); Sync-TCP's mean "
            f"time within a factor of {ABOUT:g} of 0.85 s (0.425 to 1.7 s)",
            _s1_sync_slower,
        ),
        Claim(
            "the modified Sync-TCP behaves exactly like Reno at low speed (50 < C_low = 100)",
            "sync-tcp-hs's time to 50, under either alpha0 reading, within 5 % of Reno's "
            "(relative difference paired by seed)",
            _s1_modified_is_reno,
        ),
    )


def _s2_claims(modified: str = MODIFIED) -> tuple[Claim, ...]:
    return (
        Claim(
            "Reno could not reach 500 until 25 s, when Sync-TCP did in 8 s",
            f"Reno's mean time to 500 (25 s if not reached) > {DURATION_S / ABOUT:g} s "
            "(failed otherwise); Reno's time minus Sync-TCP's, paired by seed, > 0 (reversed: < 0)",
            _s2_reno_late,
        ),
        Claim(
            "Sync-TCP reaches the maximum window 500 in 8 s",
            f"Sync-TCP's mean time to 500 (25 s if not reached) within a factor of {ABOUT:g} of "
            "8 s (4 to 16 s)",
            _s2_sync_time,
        ),
        Claim(
            "Sync-TCP's start-up is deteriorated by packet losses",
            "Sync-TCP's data packets lost before reaching 500: >= 1 per run on average "
            "(reversed: < 1)",
            _s2_sync_losses,
        ),
        Claim(
            "the modified Sync-TCP reaches 500 in only 4 s, sooner than Sync-TCP",
            f"{modified}'s mean time to 500 (25 s if not reached) within a factor of "
            f"{ABOUT:g} of 4 s (2 to 8 s); its time minus Sync-TCP's, paired by seed, < 0 "
            "(reversed: > 0)",
            _s2_modified_time(modified),
        ),
        Claim(
            "the modified Sync-TCP avoids the early packet loss",
            f"{modified}'s data packets lost before reaching 500: < 1 per run on average "
            "(reversed: >= 1)",
            _s2_modified_no_loss(modified),
        ),
        Claim(
            "behaving like Reno in slow start up to C_low greatly improves Sync-TCP's throughput "
            "at high speed",
            f"goodput over the 25 s, {modified} minus Sync-TCP, paired by seed, > 0 "
            "(reversed: < 0)",
            _s2_modified_goodput(modified, "sync-tcp"),
        ),
        Claim(
            "the modified Sync-TCP gives better throughput than Reno in high-speed environments "
            "(section 1)",
            f"goodput over the 25 s, {modified} minus Reno, paired by seed, > 0 (reversed: < 0)",
            _s2_modified_goodput(modified, "reno"),
        ),
    )


S2_OURS = Claim(
    "(ours) Sync-TCP needs no synchronised clocks, only clocks that run at the same rate: a "
    "constant offset changes nothing",
    "with the receiver's clock 20 ms behind, Sync-TCP's time to 500 and goodput within 1 % of "
    "those with synchronised clocks (relative difference paired by seed), and its packets lost "
    "before reaching 500 within 0.5 of theirs",
    _s2_offset_changes_nothing,
)


# ---- S3 (ours): 1 Gb/s, 20-200 ms, with and without a congested reverse path ----------------------

S3_PROTOCOLS = ("reno", "highspeed", "cubic", "sync-tcp", "sync-tcp-hs")
S3_RTTS = ("20ms", "60ms", "120ms", "200ms")
LOSS_BASED = ("reno", "highspeed", "cubic")
QUEUE_DELAY = "forward queueing delay ms (mean)"
UTILIZATION = "forward goodput / link rate"
LOSS_RATE = "forward drops per second"
S3_BOUNDS = {QUEUE_DELAY: NONNEGATIVE, UTILIZATION: UNIT, LOSS_RATE: NONNEGATIVE}
S3_SEEDS = 5
S3_MAX_REPLICATES = 20

S3_ASSUME = (
    "ns2 profile with SACK recovery (as the seed-002 studies at 100 Mb/s and above), MSS 1460 B",
    (
        "dumbbell, 1 Gb/s bottleneck with 5 ms one-way delay, DropTail buffer 1/4 BDP at "
        "100 ms (2140 packets) in each direction (ours: the paper has no 1 Gb/s setup); every "
        "host's 10 Gb/s access link has a DropTail queue of ns-2's default limit "
        f"{NS2_QUEUE_LIMIT} packets in each direction (ccsim buffer {ns2_buffer(NS2_QUEUE_LIMIT)})"
    ),
    "forward: four flows of the protocol with base RTTs 20, 60, 120, 200 ms",
    (
        "reverse path: idle (ACKs only) or congested by four Reno bulk flows with the same "
        "RTTs sending the other way"
    ),
    (
        "flows start at random times in [0, 2 s); 60 s runs (quick: 20 s), measured after a "
        f"10 s warm-up (quick: 5 s); drops count the forward flows' packets lost at any queue; "
        f"{S3_SEEDS} seeds, more while a check is inconclusive, up to {S3_MAX_REPLICATES} "
        "(quick: 3)"
    ),
)


def _s3_plan(s: Settings) -> dict[str, Any]:
    return {
        "duration": s.pick("60s", "20s"),
        "warmup": s.pick(10.0, 5.0),
        "seeds": s.seeds(S3_SEEDS, 3),
    }


def s3_scenario(cc: str, reverse_load: bool, duration: str) -> dict[str, Any]:
    """Four ``cc`` flows at 20-200 ms over 1 Gb/s, optionally with four reverse Reno flows."""
    flows: list[dict[str, Any]] = [
        {"cc": cc, "rtt": rtt, "mss": MSS, "start_jitter": "2s", "label": cc} for rtt in S3_RTTS
    ]
    if reverse_load:
        flows += [
            {
                "cc": "reno",
                "rtt": rtt,
                "mss": MSS,
                "start_jitter": "2s",
                "reverse": True,
                "label": "reverse reno",
            }
            for rtt in S3_RTTS
        ]
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "1Gbps",
            "bottleneck_delay": "5ms",
            "access_rate": "10Gbps",
            "buffer": "0.25bdp",
            "bdp_rtt": "100ms",
            "access_buffer": ns2_buffer(NS2_QUEUE_LIMIT),
        },
        "stack": {"sack": True},
        "trace": {"sample_interval": "100ms", "drops": True},
        "flows": flows,
    }


def _s3_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _s3_plan(s)
    return [
        {
            "name": f"{cc}-{'two-way' if reverse else 'one-way'}",
            "scenario": s3_scenario(cc, reverse, plan["duration"]),
            "seeds": plan["seeds"],
        }
        for reverse in (False, True)
        for cc in S3_PROTOCOLS
    ]


def _late_drops(drops: pd.DataFrame, flows: pd.Series, warmup: float, end: float) -> float:
    """Drops per second of the given flows after the warm-up."""
    late = drops[drops["flow"].isin(flows) & (drops["t_s"] > warmup)]
    return len(late) / (end - warmup)


def _s3_analyse(c: Context) -> pd.DataFrame:
    plan = _s3_plan(c.settings)
    warmup, plan_end = plan["warmup"], float(plan["duration"].removesuffix("s"))
    records: list[dict[str, Any]] = []
    for sweep in c.results:
        if c.results[sweep] is None:
            continue
        cc, reverse = sweep.rsplit("-", 2)[0], sweep.endswith("two-way")
        for point, load in c.points(sweep):
            links, queues = load("links"), load("queues")
            forward = links[(links["src"] == "R1") & (links["dst"] == "R2")].iloc[0]
            late = queues[(queues["link"] == forward["link"]) & (queues["t_s"] > warmup)]
            delay_ms = float(late["queue_bytes"].mean()) * 8 / float(forward["rate_bps"]) * 1e3
            flows, series = load("flows"), load("series")
            mine = flows[flows["label"] == cc]
            rates = series[series["flow"].isin(mine["flow"]) & (series["t_s"] > warmup)]
            goodput = float(rates.groupby("t_s")["rate_bps"].sum().mean())
            key = {
                "reverse path": "congested" if reverse else "idle",
                "algorithm": cc,
                "seed": int(point["seed"]),
            }
            for metric, number in (
                (QUEUE_DELAY, delay_ms),
                (UTILIZATION, goodput / float(forward["rate_bps"])),
                (LOSS_RATE, _late_drops(load("drops"), mine["flow"], warmup, plan_end)),
            ):
                records.append(key | {"metric": metric, "value": number})
    return summarise(records, ["reverse path", "algorithm"], bounds=S3_BOUNDS)


def _s3_sync_lower(metric: str, label: str) -> Callable[[pd.DataFrame], list[Check]]:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        checks = []
        for path in ("idle", "congested"):
            mine = measure(table, metric, **{"reverse path": path, "algorithm": "sync-tcp"})
            for other in LOSS_BASED:
                theirs = measure(table, metric, **{"reverse path": path, "algorithm": other})
                checks.append(
                    compare(
                        f"reverse path {path}: {label}, Sync-TCP vs {other} (paired by seed)",
                        mine,
                        "<",
                        theirs,
                    )
                )
        return checks

    return evaluate


def _s3_utilization(table: pd.DataFrame) -> list[Check]:
    checks = []
    for path in ("idle", "congested"):
        reno = measure(table, UTILIZATION, **{"reverse path": path, "algorithm": "reno"})
        for label in ("sync-tcp", "sync-tcp-hs"):
            mine = measure(table, UTILIZATION, **{"reverse path": path, "algorithm": label})
            checks.append(
                compare(
                    f"reverse path {path}: {label}'s goodput over Reno's (ratio paired by seed)",
                    mine / reno,
                    ">=",
                    0.9,
                    reversal=0.5,
                    required=">= 0.9 (reversed: < 0.5)",
                )
            )
    return checks


# ---- the studies ----------------------------------------------------------------------------------

S1_SETUP = (
    "one flow (Reno, Sync-TCP, modified Sync-TCP) from the source node over two routers to the "
    "destination node at 10 Mb/s, every link 10 ms with ns-2's default 50-packet DropTail "
    "queue, max window 50, one Reno flow from the destination to the source; time for cwnd to "
    "reach 50"
)
S2_SETUP = (
    "as S1 at 100 Mb/s with max window 500: time for cwnd to reach 500, packets lost before, "
    "goodput over the 25 s"
)
STARTUP_WARMUP = (
    "none: the time to reach the window is measured from the flow's start, the goodput over the "
    "whole run"
)

STUDIES: tuple[Study, ...] = (
    Study(
        id="S1",
        slug="sync-tcp-low-speed",
        title="Time for cwnd to reach 50 at 10 Mb/s, two-way traffic",
        source=SOURCE,
        setup=S1_SETUP,
        warmup=STARTUP_WARMUP,
        assumptions=_startup_assume("10 Mb/s", 50),
        sweeps=_startup_sweeps("10Mbps", 50, CONFIGS),
        analyse=_startup_analyse("S1", 50, S1_PUBLISHED),
        claims=_s1_claims(),
        figure=FigureSpec("S1: time to cwnd 50 (ccsim vs paper)"),
        algorithms=("reno", "sync-tcp", "sync-tcp-hs"),
        max_replicates=STARTUP_MAX_REPLICATES,
    ),
    Study(
        id="S2",
        slug="sync-tcp-high-speed",
        title="Time for cwnd to reach 500 at 100 Mb/s, two-way traffic (Fig. 2)",
        source=SOURCE,
        setup=S2_SETUP,
        warmup=STARTUP_WARMUP,
        assumptions=_startup_assume("100 Mb/s", 500),
        sweeps=_startup_sweeps("100Mbps", 500, CONFIGS | CLOCK_CONFIGS),
        analyse=_startup_analyse("S2", 500, S2_PUBLISHED),
        claims=(*_s2_claims(), S2_OURS),
        figure=FigureSpec("S2: time to cwnd 500, losses and goodput (ccsim vs paper)"),
        algorithms=("reno", "sync-tcp", "sync-tcp-hs"),
        max_replicates=STARTUP_MAX_REPLICATES,
    ),
    Study(
        id="S3",
        slug="sync-tcp-two-way-1g",
        title="Sync-TCP against Reno, HSTCP and CUBIC at 1 Gb/s, reverse path idle or congested "
        "(ours)",
        source=SOURCE + ", a question it leaves open",
        setup="four flows of one protocol (RTTs 20-200 ms) over a 1 Gb/s dumbbell, the reverse "
        "path idle or loaded by four Reno flows; forward queueing delay, goodput and drops",
        warmup="10 s (quick: 5 s): queueing delay, drops and goodput are measured after it",
        assumptions=S3_ASSUME,
        sweeps=_s3_sweeps,
        analyse=_s3_analyse,
        claims=(
            Claim(
                "(ours) Sync-TCP's early detection keeps the queue shorter than loss-based TCPs, "
                "also when the reverse path is congested",
                "mean forward queueing delay after warm-up, Sync-TCP minus reno, highspeed and "
                "cubic, paired by seed, < 0 with the reverse path idle and congested "
                "(reversed: > 0)",
                _s3_sync_lower(QUEUE_DELAY, "queueing delay ms"),
            ),
            Claim(
                "(ours) Sync-TCP loses fewer packets than loss-based TCPs",
                "forward drops per second after warm-up, Sync-TCP minus reno, highspeed and "
                "cubic, paired by seed, < 0 with the reverse path idle and congested "
                "(reversed: > 0)",
                _s3_sync_lower(LOSS_RATE, "drops/s"),
            ),
            Claim(
                "(ours) the short queue costs little throughput",
                "forward goodput after warm-up of sync-tcp and sync-tcp-hs over Reno's, paired "
                "by seed, >= 0.9 with the reverse path idle and congested (reversed: < 0.5)",
                _s3_utilization,
            ),
        ),
        figure=FigureSpec("S3: forward queueing delay, goodput and drops"),
        algorithms=S3_PROTOCOLS,
        max_replicates=S3_MAX_REPLICATES,
    ),
)


# ---- sensitivity of S1 and S2 to what the paper does not give ------------------------------------

#: The variants :func:`sensitivity` runs, one setting changed at a time from :data:`DEFAULT`:
#: the queue limit of every link (the paper: "finite", no size; the source's queue decides),
#: Sync-TCP's averaging weight (our default 1/8, not verified against Weigle's code) and
#: the unit of alpha0 (the claims about the modification are judged on the fraction reading).
SENSITIVITY: tuple[Variant, ...] = (
    DEFAULT,
    *(
        Variant(f"queue-{limit}", f"queue limit {limit} on every link", queue_limit=limit)
        for limit in (75, 100, 125, 150, 200, 300)
    ),
    Variant("w-avg-1-16", "Sync-TCP's w_avg 1/16", sync={"w_avg": 1 / 16}),
    Variant("w-avg-1-4", "Sync-TCP's w_avg 1/4", sync={"w_avg": 1 / 4}),
    Variant(
        "alpha0-segments",
        "alpha0 in segments (+0.375 per RTT)",
        modified={"alpha0_mode": 1},
    ),
)


def variant_study(study: Study, variant: Variant) -> Study:
    """S1 or S2 under ``variant``: the paper's claims only (not ours), the paper's configurations
    (no clock variants)."""
    rate, window = {"S1": ("10Mbps", 50), "S2": ("100Mbps", 500)}[study.id]
    return dataclasses.replace(
        study,
        sweeps=_startup_sweeps(rate, window, CONFIGS, variant),
        claims=tuple(c for c in study.claims if not c.text.startswith("(ours)")),
        assumptions=(*study.assumptions, f"sensitivity variant: {variant.description}"),
    )


def sensitivity(
    *,
    quick: bool = False,
    workers: int | None = None,
    out: str | Path = Path("results") / "studies" / "seed003-sensitivity",
    variants: tuple[Variant, ...] = SENSITIVITY,
    progress: bool = True,
) -> pd.DataFrame:
    """S1 and S2 under every variant of :data:`SENSITIVITY` (S1 without the alpha0 variant, which
    cannot matter below C_low): each a full study (replicates added while a check is
    inconclusive, up to the study's cap) into ``out/<ID>/<variant>``. Returns, and writes to
    ``out/sensitivity.csv``, one row per study, variant and claim: the verdict, the number of
    seeds and the mean time to the maximum window of each configuration; prints the verdicts
    as a table of claims against variants."""
    root = Path(out)
    rows: list[dict[str, Any]] = []
    for study_id in ("S1", "S2"):
        base = next(s for s in STUDIES if s.id == study_id)
        for variant in variants:
            if study_id == "S1" and variant.modified:
                continue
            report = run_study(
                variant_study(base, variant),
                Settings(quick=quick),
                root / study_id / variant.slug,
                workers=workers,
            )
            rows += _sensitivity_rows(report, variant)
            if progress:
                done = ", ".join(f"{i + 1}: {v.verdict}" for i, v in enumerate(report.verdicts))
                print(f"{study_id} {variant.description}: {done} ({report.replicates} seeds)")
    table = pd.DataFrame(rows)
    root.mkdir(parents=True, exist_ok=True)
    table.to_csv(root / "sensitivity.csv", index=False)
    if progress:
        print(sensitivity_summary(table))
    return table


def _sensitivity_rows(report: StudyReport, variant: Variant) -> list[dict[str, Any]]:
    table = report.table
    times = {
        f"mean time, {label}": round(_time(table, label).mean, 2)
        for label in ("reno", "sync-tcp", MODIFIED)
    }
    return [
        {
            "study": report.study.id,
            "variant": variant.description,
            "claim": index + 1,
            "text": result.claim,
            "verdict": result.verdict,
            "seeds": report.replicates,
            **times,
        }
        for index, result in enumerate(report.verdicts)
    ]


def sensitivity_summary(table: pd.DataFrame) -> str:
    """The verdicts of :func:`sensitivity` as a Markdown table per study: a row per variant, a
    column per claim."""
    parts = []
    for study_id, rows in table.groupby("study", sort=False):
        wide = rows.pivot(index="variant", columns="claim", values="verdict")
        wide = wide.reindex(list(dict.fromkeys(rows["variant"])))
        header = ["variant", *(f"claim {c}" for c in wide.columns)]
        lines = [
            f"{study_id}:",
            "| " + " | ".join(header) + " |",
            "| " + " | ".join("---" for _ in header) + " |",
        ]
        lines += [
            "| " + " | ".join([str(v), *(str(x) for x in wide.loc[v])]) + " |" for v in wide.index
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
