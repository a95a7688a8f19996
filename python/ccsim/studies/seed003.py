"""Seed 003, Sync-TCP in high-speed environments: studies S1-S2 of docs/studies.md (shared
material), and S3, a question the paper leaves open.

S1 and S2 are the paper's start-up experiments: one flow over source - router - router -
destination (every link 10 ms, so the base RTT is 60 ms), with one Reno bulk flow sending the
other way (two-way traffic), for 25 s; how long the flow's cwnd takes to reach the maximum window
(50 at 10 Mb/s in S1, 500 at 100 Mb/s in S2; both are the path's BDP with 1500-byte packets), and
whether it lost packets before. Compared: Reno, Sync-TCP (``sync-tcp``) and the modified
Sync-TCP (``sync-tcp-hs``), the latter under both readings of its constant increase alpha0
(``alpha0_mode``: 0, the default, +alpha0 x cwnd per RTT; 1, +alpha0 segments per RTT).

S3 (ours) asks whether Sync-TCP's delay-based detection still pays at 1 Gb/s when the reverse
path is congested: RTT-based signals see the reverse queue, Sync-TCP's one-way delays do not.

Choices the paper leaves open are in ``S1_ASSUME``, ``S2_ASSUME`` and ``S3_ASSUME``.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
    Check,
    Claim,
    Context,
    FigureSpec,
    Settings,
    Study,
    check,
    summarise,
    value,
)

SOURCE = "seed 003 (Sync-TCP in high-speed environments)"
MSS = 1460
#: The compared configurations: a label, the algorithm, its parameters and other keys of the
#: measured flow (its hosts' clocks).
CONFIGS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "reno": ("reno", {}, {}),
    "sync-tcp": ("sync-tcp", {}, {}),
    "sync-tcp-hs": ("sync-tcp-hs", {}, {}),
    "sync-tcp-hs (alpha0 in packets)": ("sync-tcp-hs", {"alpha0_mode": 1}, {}),
}
#: S2 also runs Sync-TCP with unsynchronised clocks (ours): the receiver's clock 20 ms behind
#: the sender's, or running 100 ppm fast or slow (a free-running quartz clock; NTP keeps a host
#: within a few ppm).
CLOCK_CONFIGS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "sync-tcp (clock offset -20 ms)": ("sync-tcp", {}, {"clock_offset": "-20ms"}),
    "sync-tcp (clock drift +100 ppm)": ("sync-tcp", {}, {"clock_drift_ppm": 100.0}),
    "sync-tcp (clock drift -100 ppm)": ("sync-tcp", {}, {"clock_drift_ppm": -100.0}),
}
DURATION = "25s"
REACH = "time to reach the maximum window, s"
REACHED = "reached it within 25 s (share of runs)"
EARLY = "lost packets before reaching it (share of runs)"
DROPS_BEFORE = "drops before reaching it"
GOODPUT = "goodput Mb/s"

#: The paper's numbers: S1 time to cwnd 50 (Reno 0.4 s, Sync-TCP 0.85 s, modified = Reno);
#: S2 time to cwnd 500 (Sync-TCP about 8 s, modified about 4 s; Reno not within 25 s).
S1_PUBLISHED = {("reno", REACH): 0.4, ("sync-tcp", REACH): 0.85, ("sync-tcp-hs", REACH): 0.4}
S2_PUBLISHED = {
    ("sync-tcp", REACH): 8.0,
    ("sync-tcp-hs", REACH): 4.0,
    ("reno", REACHED): 0.0,
    ("sync-tcp", REACHED): 1.0,
    ("sync-tcp-hs", REACHED): 1.0,
    ("sync-tcp", EARLY): 1.0,
    ("sync-tcp-hs", EARLY): 0.0,
}


def _startup_assume(rate: str, window: int) -> tuple[str, ...]:
    return (
        "ns2 profile (Reno-family recovery, as the paper's ns-2 agents), 1500-byte packets "
        f"(MSS {MSS} B): the maximum window {window} is the BDP of the 60 ms path at {rate}",
        (
            f"source - R0 - R1 - destination, every link {rate} and 10 ms; DropTail buffers "
            "of 100 packets at the routers (the paper: finite, size not given)"
        ),
        (
            f"two-way traffic: one Reno bulk flow (max window {window}) sends from the "
            "destination side to the source side, starting at a random time in [0, 1 s) drawn "
            "per seed; the measured flow starts at 0"
        ),
        "25 s runs; cwnd sampled every 10 ms (the times below are known to 10 ms); 5 seeds "
        "(quick: 2)",
        (
            "sync-tcp-hs is reported under both readings of alpha0: +0.375 x cwnd per RTT "
            "(the default) and +0.375 segments per RTT"
        ),
    )


def startup_scenario(
    cc: str, params: dict[str, Any], rate: str, window: int, clocks: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One measured flow R0 -> R1 and a Reno bulk flow R1 -> R0 on the S1/S2 path."""
    return {
        "name": "study",
        "seed": 1,
        "duration": DURATION,
        "topology": {
            "kind": "parking_lot",
            "routers": 2,
            "rate": rate,
            "delay": "10ms",
            "access_rate": rate,
            "access_delay": "10ms",
            "buffer": "100pkts",
        },
        "trace": {"sample_interval": "10ms", "drops": True},
        "flows": [
            {
                "cc": cc,
                "src": "R0",
                "dst": "R1",
                "mss": MSS,
                "max_window": window,
                "label": "measured",
                "params": dict(params),
                **(clocks or {}),
            },
            {
                "cc": "reno",
                "src": "R0",
                "dst": "R1",
                "reverse": True,
                "mss": MSS,
                "max_window": window,
                "start_jitter": "1s",
                "label": "reverse reno",
            },
        ],
    }


def _startup_sweeps(
    rate: str, window: int, configs: dict[str, tuple[str, dict[str, Any], dict[str, Any]]]
) -> Any:
    def sweeps(s: Settings) -> list[dict[str, Any]]:
        return [
            {
                "name": _sweep_name(label),
                "scenario": startup_scenario(cc, params, rate, window, clocks),
                "seeds": s.seeds(5, 2),
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
        _, load = next(iter(c.points(sweep)))
        series = load("series")
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


def _startup_analyse(study_id: str, window: int, published: dict[tuple[Any, ...], float]) -> Any:
    def analyse(c: Context) -> pd.DataFrame:
        records: list[dict[str, Any]] = []
        for sweep in c.results:
            if c.results[sweep] is None:
                continue
            label = _label(sweep)
            for _, load in c.points(sweep):
                flows = load("flows")
                reach = metrics.time_to_cwnd(load("series"), window, flows, load("drops")).loc[0]
                reached = not math.isnan(float(reach["reached_s"]))
                for metric, number in (
                    (REACH, float(reach["after_start_s"])),
                    (REACHED, float(reached)),
                    (EARLY, float(reach["early_loss"])),
                    (DROPS_BEFORE, float(reach["drops_before"])),
                    (GOODPUT, float(flows.loc[flows["flow"] == 0, "goodput_bps"].iloc[0]) / 1e6),
                ):
                    if metric == REACH and not reached:
                        continue
                    records.append({"algorithm": label, "metric": metric, "value": number})
        if records:
            _cwnd_figure(c, study_id, window)
        return summarise(records, ["algorithm"], published)

    return analyse


def _reach(table: pd.DataFrame, label: str) -> float:
    return value(table, REACH, algorithm=label)


def _share(table: pd.DataFrame, metric: str, label: str) -> float:
    return value(table, metric, algorithm=label)


def _s1_sync_slower(table: pd.DataFrame) -> list[Check]:
    reno, sync = _reach(table, "reno"), _reach(table, "sync-tcp")
    return [
        check(
            f"Reno reaches 50 in {reno:.2f} s (<= 0.6 s)",
            reno,
            test=lambda r: r <= 0.6,
        ),
        check(
            f"Sync-TCP takes {sync:.2f} s, more than 1.5 x Reno's {reno:.2f} s (reversed: less "
            "than Reno's)",
            sync,
            reno,
            test=lambda s, r: s > 1.5 * r,
            reverse=lambda s, r: s < r,
        ),
    ]


def _s1_modified_is_reno(table: pd.DataFrame) -> list[Check]:
    reno = _reach(table, "reno")
    checks = []
    for label in ("sync-tcp-hs", "sync-tcp-hs (alpha0 in packets)"):
        mine = _reach(table, label)
        checks.append(
            check(
                f"{label} reaches 50 in {mine:.2f} s, within 0.05 s of Reno's {reno:.2f} s",
                mine,
                reno,
                test=lambda m, r: abs(m - r) <= 0.05,
            )
        )
    return checks


def _s2_reno_never(table: pd.DataFrame) -> list[Check]:
    share = _share(table, REACHED, "reno")
    return [
        check(
            f"Reno reaches 500 within 25 s in {share:.0%} of runs (claim: none)",
            share,
            test=lambda v: v == 0,
            reverse=lambda v: v == 1,
        )
    ]


def _s2_sync_after_losses(table: pd.DataFrame) -> list[Check]:
    reached = _share(table, REACHED, "sync-tcp")
    early = _share(table, EARLY, "sync-tcp")
    time = _reach(table, "sync-tcp")
    return [
        check(
            f"Sync-TCP reaches 500 within 25 s in {reached:.0%} of runs (all)",
            reached,
            test=lambda v: v == 1,
        ),
        check(
            f"Sync-TCP takes {time:.1f} s (4 to 16 s: 'about 8 s')",
            time,
            test=lambda t: 4 <= t <= 16,
        ),
        check(
            f"Sync-TCP lost packets before reaching 500 in {early:.0%} of runs (>= 50 %)",
            early,
            test=lambda v: v >= 0.5,
        ),
    ]


def _s2_modified_faster(table: pd.DataFrame) -> list[Check]:
    mine, sync = _reach(table, "sync-tcp-hs"), _reach(table, "sync-tcp")
    early = _share(table, EARLY, "sync-tcp-hs")
    reached = _share(table, REACHED, "sync-tcp-hs")
    return [
        check(
            f"sync-tcp-hs reaches 500 in {reached:.0%} of runs (all)",
            reached,
            test=lambda v: v == 1,
        ),
        check(
            f"sync-tcp-hs takes {mine:.1f} s, less than Sync-TCP's {sync:.1f} s (reversed: more)",
            mine,
            sync,
            test=lambda m, s: m < s,
            reverse=lambda m, s: m > s,
        ),
        check(
            f"sync-tcp-hs lost packets before reaching 500 in {early:.0%} of runs (none)",
            early,
            test=lambda v: v == 0,
            reverse=lambda v: v == 1,
        ),
    ]


def _s2_offset_changes_nothing(table: pd.DataFrame) -> list[Check]:
    label = "sync-tcp (clock offset -20 ms)"
    checks = []
    for metric in (REACH, EARLY, GOODPUT):
        synced, skewed = (
            value(table, metric, algorithm="sync-tcp"),
            value(table, metric, algorithm=label),
        )
        checks.append(
            check(
                f"{metric}: {skewed:.4g} with the receiver's clock 20 ms behind, {synced:.4g} "
                "with synchronised clocks (equal)",
                skewed,
                synced,
                test=lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(b)),
            )
        )
    return checks


# ---- S3 (ours): 1 Gb/s, 20-200 ms, with and without a congested reverse path ----------------------

S3_PROTOCOLS = ("reno", "highspeed", "cubic", "sync-tcp", "sync-tcp-hs")
S3_RTTS = ("20ms", "60ms", "120ms", "200ms")
LOSS_BASED = ("reno", "highspeed", "cubic")
QUEUE_DELAY = "forward queueing delay ms (mean)"
UTILIZATION = "forward goodput / link rate"
LOSS_RATE = "forward drops per second"

S3_ASSUME = (
    "ns2 profile with SACK recovery (as the seed-002 studies at 100 Mb/s and above), MSS 1460 B",
    (
        "dumbbell, 1 Gb/s bottleneck with 5 ms one-way delay, 10 Gb/s access links, DropTail "
        "buffer 1/4 BDP at 100 ms (2140 packets)"
    ),
    "forward: four flows of the protocol with base RTTs 20, 60, 120, 200 ms",
    (
        "reverse path: idle (ACKs only) or congested by four Reno bulk flows with the same "
        "RTTs sending the other way"
    ),
    (
        "flows start at random times in [0, 2 s); 60 s runs (quick: 20 s), measured after a "
        "10 s warm-up (quick: 5 s); 3 seeds (quick: 1)"
    ),
)


def _s3_plan(s: Settings) -> dict[str, Any]:
    return {
        "duration": s.pick("60s", "20s"),
        "warmup": s.pick(10.0, 5.0),
        "seeds": s.seeds(3, 1),
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
        for _, load in c.points(sweep):
            links, queues = load("links"), load("queues")
            forward = links[(links["src"] == "R1") & (links["dst"] == "R2")].iloc[0]
            late = queues[(queues["link"] == forward["link"]) & (queues["t_s"] > warmup)]
            delay_ms = float(late["queue_bytes"].mean()) * 8 / float(forward["rate_bps"]) * 1e3
            flows, series = load("flows"), load("series")
            mine = flows[flows["label"] == cc]
            rates = series[series["flow"].isin(mine["flow"]) & (series["t_s"] > warmup)]
            goodput = float(rates.groupby("t_s")["rate_bps"].sum().mean())
            key = {"reverse path": "congested" if reverse else "idle", "algorithm": cc}
            for metric, number in (
                (QUEUE_DELAY, delay_ms),
                (UTILIZATION, goodput / float(forward["rate_bps"])),
                (LOSS_RATE, _late_drops(load("drops"), mine["flow"], warmup, plan_end)),
            ):
                records.append(key | {"metric": metric, "value": number})
    return summarise(records, ["reverse path", "algorithm"])


def _s3_sync_lower(metric: str, label: str) -> Any:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        checks = []
        for path in ("idle", "congested"):
            mine = value(table, metric, **{"reverse path": path, "algorithm": "sync-tcp"})
            for other in LOSS_BASED:
                theirs = value(table, metric, **{"reverse path": path, "algorithm": other})
                checks.append(
                    check(
                        f"reverse path {path}: Sync-TCP's {label} {mine:.3g} < {other}'s "
                        f"{theirs:.3g} (reversed: higher)",
                        mine,
                        theirs,
                        test=lambda a, b: a < b,
                        reverse=lambda a, b: a > b,
                    )
                )
        return checks

    return evaluate


def _s3_utilization(table: pd.DataFrame) -> list[Check]:
    checks = []
    for path in ("idle", "congested"):
        reno = value(table, UTILIZATION, **{"reverse path": path, "algorithm": "reno"})
        for label in ("sync-tcp", "sync-tcp-hs"):
            mine = value(table, UTILIZATION, **{"reverse path": path, "algorithm": label})
            checks.append(
                check(
                    f"reverse path {path}: {label}'s goodput is {mine:.2f} of the link rate, at "
                    f"least 0.9 x Reno's {reno:.2f}",
                    mine,
                    reno,
                    test=lambda a, b: a >= 0.9 * b,
                    reverse=lambda a, b: a < 0.5 * b,
                )
            )
    return checks


STUDIES: tuple[Study, ...] = (
    Study(
        id="S1",
        slug="sync-tcp-low-speed",
        title="Time for cwnd to reach 50 at 10 Mb/s, two-way traffic",
        source=SOURCE,
        setup="one flow (Reno, Sync-TCP, modified Sync-TCP) over source - router - router - "
        "destination at 10 Mb/s, every link 10 ms, max window 50, one Reno flow the other way; "
        "time for cwnd to reach 50",
        warmup=(
            "none: the time to reach the window is measured from the flow's start, the goodput "
            "over the whole run"
        ),
        assumptions=_startup_assume("10 Mb/s", 50),
        sweeps=_startup_sweeps("10Mbps", 50, CONFIGS),
        analyse=_startup_analyse("S1", 50, S1_PUBLISHED),
        claims=(
            Claim(
                "Sync-TCP reaches the maximum window later than Reno (0.85 s vs 0.4 s)",
                "Reno reaches 50 within 0.6 s; Sync-TCP takes more than 1.5 x Reno's time "
                "(reversed: less than Reno's)",
                _s1_sync_slower,
            ),
            Claim(
                "the modified Sync-TCP is Reno below C_low (50 < 100)",
                "sync-tcp-hs, under either alpha0 reading, within 0.05 s of Reno",
                _s1_modified_is_reno,
            ),
        ),
        figure=FigureSpec("S1: time to cwnd 50 (ccsim vs paper)"),
        algorithms=("reno", "sync-tcp", "sync-tcp-hs"),
    ),
    Study(
        id="S2",
        slug="sync-tcp-high-speed",
        title="Time for cwnd to reach 500 at 100 Mb/s, two-way traffic (Fig. 2)",
        source=SOURCE,
        setup="as S1 at 100 Mb/s with max window 500: time for cwnd to reach 500, and whether "
        "the flow lost packets before",
        warmup=(
            "none: the time to reach the window is measured from the flow's start, the goodput "
            "over the whole run"
        ),
        assumptions=_startup_assume("100 Mb/s", 500),
        sweeps=_startup_sweeps("100Mbps", 500, CONFIGS | CLOCK_CONFIGS),
        analyse=_startup_analyse("S2", 500, S2_PUBLISHED),
        claims=(
            Claim(
                "Reno does not reach 500 within 25 s",
                "no Reno run reaches 500 (reversed: every run does)",
                _s2_reno_never,
            ),
            Claim(
                "Sync-TCP reaches 500 in about 8 s, after losses",
                "every Sync-TCP run reaches 500, in 4 to 16 s on average, and at least half "
                "lose packets before",
                _s2_sync_after_losses,
            ),
            Claim(
                "the modified Sync-TCP reaches 500 in about 4 s, without early loss",
                "every sync-tcp-hs run (alpha0 = 37.5 % per RTT) reaches 500, sooner than "
                "Sync-TCP (reversed: later), and none loses packets before (reversed: all do)",
                _s2_modified_faster,
            ),
            Claim(
                "(ours) Sync-TCP needs no synchronised clocks, only clocks that run at the same "
                "rate: a constant offset changes nothing",
                "with the receiver's clock 20 ms behind, Sync-TCP's time to 500, early-loss share "
                "and goodput equal those with synchronised clocks",
                _s2_offset_changes_nothing,
            ),
        ),
        figure=FigureSpec("S2: time to cwnd 500 and early losses (ccsim vs paper)"),
        algorithms=("reno", "sync-tcp", "sync-tcp-hs"),
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
                "mean forward queueing delay after warm-up: sync-tcp < reno, highspeed and "
                "cubic, with the reverse path idle and congested (reversed: higher)",
                _s3_sync_lower(QUEUE_DELAY, "queueing delay (ms)"),
            ),
            Claim(
                "(ours) Sync-TCP loses fewer packets than loss-based TCPs",
                "forward drops per second after warm-up: sync-tcp < reno, highspeed and cubic, "
                "reverse path idle and congested (reversed: higher)",
                _s3_sync_lower(LOSS_RATE, "drops/s"),
            ),
            Claim(
                "(ours) the short queue costs little throughput",
                "forward goodput (after warm-up) of sync-tcp and sync-tcp-hs >= 0.9 x Reno's, "
                "reverse path idle and congested (reversed: < 0.5 x)",
                _s3_utilization,
            ),
        ),
        figure=FigureSpec("S3: forward queueing delay, goodput and drops"),
        algorithms=S3_PROTOCOLS,
    ),
)
