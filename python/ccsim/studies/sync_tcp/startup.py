"""S1 and S2: start-up at low and at high speed, Sync-TCP against Reno and HighSpeed TCP."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Settings,
    Study,
    band,
    compare,
    measure,
    summarise,
    within,
)
from ccsim.studies.sync_tcp.common import (
    ABOUT,
    CLOCK_CONFIGS,
    CONFIGS,
    DEFAULT,
    DROPS_BEFORE,
    DURATION_S,
    EARLY,
    GOODPUT,
    MSS,
    NS2_QUEUE_LIMIT,
    REACH,
    REACHED,
    S1_PUBLISHED,
    S2_PUBLISHED,
    SOURCE,
    STARTUP_BOUNDS,
    STARTUP_MAX_REPLICATES,
    STARTUP_SEEDS,
    Config,
    Variant,
    ns2_buffer,
)


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


def startup_sweeps(
    rate: str, window: int, configs: dict[str, Config], variant: Variant = DEFAULT
) -> Callable[[Settings], list[dict[str, Any]]]:
    def sweeps(s: Settings) -> list[dict[str, Any]]:
        return [
            {
                "name": sweep_name(label),
                "scenario": startup_scenario(
                    cc, variant.params(cc, params), rate, window, clocks, variant.queue_limit
                ),
                "seeds": s.seeds(STARTUP_SEEDS, 3),
            }
            for label, (cc, params, clocks) in configs.items()
        ]

    return sweeps


def sweep_name(label: str) -> str:
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
    return next(label for label in (*CONFIGS, *CLOCK_CONFIGS) if sweep_name(label) == sweep)


def _cwnd_figure(c: Context, study_id: str, window: int) -> None:
    """``<ID>-cwnd.png``: the measured flow's cwnd over the first 25 s in the first seed's run
    of every configuration (the paper's Fig. 2), each in its algorithm's colour (configurations
    of one algorithm told apart by line style)."""
    from matplotlib.figure import Figure  # slow to import: only to draw

    from ccsim.plots import outside_legend, palette

    figure = Figure(figsize=(9.5, 4.8), layout="constrained")
    ax = figure.subplots()
    store = None
    drawn = [sweep for sweep in c.results if c.results[sweep] is not None]
    looks = palette.looks([_label(sweep) for sweep in drawn])
    for sweep in drawn:
        store = c.results[sweep].store
        first = min(c.points(sweep), key=lambda p: int(p[0]["seed"]))
        series = first[1]("series")
        mine = series[series["flow"] == 0]
        label = _label(sweep)
        ax.plot(
            mine["t_s"],
            mine["cwnd_pkts"].clip(upper=2 * window),
            lw=1,
            label=label,
            **looks[label].line(),
        )
    ax.axhline(window, color=palette.NEUTRAL, ls=":", label=f"maximum window {window}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title(
        f"{study_id}: cwnd of the measured flow, first seed (ccsim; clipped at {2 * window})"
    )
    ax.grid(alpha=0.3)
    outside_legend(ax, fontsize=7)
    if store is not None:
        path = store.root.parent.parent / f"{study_id}-cwnd.png"
        figure.savefig(path, dpi=100)
        c.notes.append(f"{study_id}: cwnd over time {path}")


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


def reach_time(table: pd.DataFrame, label: str) -> Quantity:
    return measure(table, REACH, algorithm=label)


def _about(label: str, quantity: Quantity, published: float) -> Check:
    """The paper's "``published`` s", within a factor of :data:`ABOUT`."""
    return band(label, quantity, published / ABOUT, published * ABOUT, unit="s")


def _s1_reno(table: pd.DataFrame) -> list[Check]:
    return [_about("Reno's time to 50", reach_time(table, "reno"), 0.4)]


def _s1_sync_slower(table: pd.DataFrame) -> list[Check]:
    reno, sync = reach_time(table, "reno"), reach_time(table, "sync-tcp")
    return [
        compare("time to 50, Sync-TCP vs Reno (paired by seed)", sync, ">", reno, unit="s"),
        _about("Sync-TCP's time to 50", sync, 0.85),
    ]


def _s1_modified_is_reno(table: pd.DataFrame) -> list[Check]:
    reno = reach_time(table, "reno")
    return [
        within(f"time to 50, {label} vs Reno", reach_time(table, label), reno, 0.05, unit="s")
        for label in (MODIFIED, "sync-tcp-hs (alpha0 in packets)")
    ]


def _s2_reno_late(table: pd.DataFrame) -> list[Check]:
    reno, sync = reach_time(table, "reno"), reach_time(table, "sync-tcp")
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
    return [
        _about("Sync-TCP's time to 500 (25 s if not reached)", reach_time(table, "sync-tcp"), 8.0)
    ]


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
        mine, sync = reach_time(table, modified), reach_time(table, "sync-tcp")
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


S1 = Study(
    id="S1",
    slug="sync-tcp-low-speed",
    title="Time for cwnd to reach 50 at 10 Mb/s, two-way traffic",
    source=SOURCE,
    setup=S1_SETUP,
    warmup=STARTUP_WARMUP,
    assumptions=_startup_assume("10 Mb/s", 50),
    sweeps=startup_sweeps("10Mbps", 50, CONFIGS),
    analyse=_startup_analyse("S1", 50, S1_PUBLISHED),
    claims=_s1_claims(),
    figure=FigureSpec("S1: time to cwnd 50 (ccsim vs paper)"),
    algorithms=("reno", "sync-tcp", "sync-tcp-hs"),
    max_replicates=STARTUP_MAX_REPLICATES,
)


S2 = Study(
    id="S2",
    slug="sync-tcp-high-speed",
    title="Time for cwnd to reach 500 at 100 Mb/s, two-way traffic (Fig. 2)",
    source=SOURCE,
    setup=S2_SETUP,
    warmup=STARTUP_WARMUP,
    assumptions=_startup_assume("100 Mb/s", 500),
    sweeps=startup_sweeps("100Mbps", 500, CONFIGS | CLOCK_CONFIGS),
    analyse=_startup_analyse("S2", 500, S2_PUBLISHED),
    claims=(*_s2_claims(), S2_OURS),
    figure=FigureSpec("S2: time to cwnd 500, losses and goodput (ccsim vs paper)"),
    algorithms=("reno", "sync-tcp", "sync-tcp-hs"),
    max_replicates=STARTUP_MAX_REPLICATES,
)
