"""Phase effects: RTT unfairness of two NewReno flows against a sub-packet-time RTT shift.

Two NewReno flows of 20 ms and 80 ms base RTT share a 100 Mbps DropTail bottleneck (5 ms,
1 Gbps access links, 1 BDP buffer = 601 packets). The long flow's RTT is moved by 0-80 us, less
than the 83.2 us a 1040-byte packet takes at 100 Mbps, which changes nothing a real network
would notice but the phase of its packets against the short flow's at the drop-tail queue.
For each shift, seed and jitter setting the script measures the steady-state throughput ratio
short/long (mean goodput after a warm-up, from the sampled series), prints a table and draws a
figure with the synchronized-loss bound ((80+q)/(20+q))^2: results/phase-jitter/phase-jitter.png
by default, or the file --out names (the docs' copy: --out docs/figures/phase-jitter.png).

Jitter settings: none; ns-2's send overhead (`[stack] send_overhead`, each transmission leaves
after a uniform random delay up to one bottleneck packet time); router processing jitter
(`[topology] jitter`, the same bound, before the bottleneck queue in both directions).

    python examples/phase_jitter.py            # full run: 2 profiles x 3 settings x 9 shifts x 3 seeds
    python examples/phase_jitter.py --quick    # fewer points, shorter runs
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import ccsim

BASE = """
name = "phase-jitter"
duration = "120s"
profile = "ns2"
seed = 1

[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "5ms"
access_rate = "1Gbps"
buffer = "1bdp"

[trace]
sample_interval = "1s"

[[flows]]
cc = "newreno"
rtt = "20ms"
label = "short"
start_jitter = "1s"

[[flows]]
cc = "newreno"
rtt = "80ms"
label = "long"
start_jitter = "1s"
"""

#: One 1040-byte packet (1000-byte MSS + 40 bytes of headers) at 100 Mbps.
PACKET_TIME_US = 83.2
SHORT_RTT_MS = 20.0
LONG_RTT_MS = 80.0
#: Jitter settings: label -> scenario overrides. The bound is one bottleneck packet time.
JITTER = {
    "none": {},
    "send overhead 83us": {"stack.send_overhead": "83200ns"},
    "router jitter 83us": {"topology.jitter": "83200ns"},
}
PROFILES = ("ns2", "linux")
#: Below this steady-state goodput (2% of the link) a flow with a frozen ssthresh is 'stuck'.
STUCK_BPS = 2e6


@dataclass(frozen=True)
class Point:
    profile: str
    jitter: str
    shift_us: int
    seed: int
    duration_s: float
    warmup_s: float


@dataclass(frozen=True)
class Outcome:
    point: Point
    short_mbps: float
    long_mbps: float
    mean_queue_pkts: float
    stuck: bool  # a flow's ssthresh never changed after the warm-up: one recovery spans it all

    @property
    def ratio(self) -> float:
        return self.short_mbps / self.long_mbps if self.long_mbps > 0 else math.inf


def scenario(point: Point) -> ccsim.Scenario:
    overrides: dict[str, object] = {
        "profile": point.profile,
        "seed": point.seed,
        "duration": f"{point.duration_s}s",
        "flows.1.rtt": f"{int(LONG_RTT_MS * 1000) + point.shift_us}us",
    }
    overrides.update(JITTER[point.jitter])
    return ccsim.Scenario.from_toml(BASE).with_overrides(overrides)


def measure(point: Point) -> Outcome:
    """One run; throughput is the mean of the per-second goodput samples after the warm-up."""
    results = ccsim.run(scenario(point))
    series = results.series
    late = series[series.t_s > point.warmup_s]
    rate = late.groupby("flow").rate_bps.mean()
    # A flow that gets under 2% of the link and whose ssthresh is the same at every sample after
    # the warm-up took no new loss episode there: it sat in one recovery all along (ns-2's
    # NewReno repairs one hole per RTT, so a slow-start overshoot of ~1500 losses lasts ~120 s).
    frozen = late.groupby("flow").ssthresh_pkts.nunique() <= 1
    starved = rate < STUCK_BPS
    stuck = bool((frozen & starved).any())
    queues = results.queues
    bottleneck = queues[(queues.link == 0) & (queues.t_s > point.warmup_s)]
    return Outcome(
        point,
        rate.get(0, 0.0) / 1e6,
        rate.get(1, 0.0) / 1e6,
        float(bottleneck.queue_pkts.mean()),
        stuck,
    )


def sync_bound(q_ms: float) -> float:
    """Throughput ratio under synchronized losses (windows grow 1/RTT per RTT): (RTT ratio)^2."""
    return ((LONG_RTT_MS + q_ms) / (SHORT_RTT_MS + q_ms)) ** 2


def run_all(points: Sequence[Point], workers: int | None = None) -> list[Outcome]:
    with ProcessPoolExecutor(workers or os.cpu_count()) as pool:
        return list(pool.map(measure, points, chunksize=1))


def grid(
    profiles: Sequence[str],
    jitters: Sequence[str],
    shifts: Sequence[int],
    seeds: Sequence[int],
    duration_s: float,
    warmup_s: float,
) -> list[Point]:
    return [
        Point(p, j, s, seed, duration_s, warmup_s)
        for p in profiles
        for j in jitters
        for s in shifts
        for seed in seeds
    ]


def geo_mean(values: Sequence[float]) -> float:
    finite = [v for v in values if 0 < v < math.inf]
    return math.exp(sum(map(math.log, finite)) / len(finite)) if finite else math.nan


def table(outcomes: Sequence[Outcome]) -> str:
    lines = [
        f"{'profile':8} {'jitter':20} {'shift_us':>8}  ratio per seed (short/long; * = a flow stuck in one recovery)"
    ]
    keys = sorted(
        {(o.point.profile, o.point.jitter, o.point.shift_us) for o in outcomes},
        key=lambda k: (
            PROFILES.index(k[0]) if k[0] in PROFILES else 9,
            list(JITTER).index(k[1]),
            k[2],
        ),
    )
    for key in keys:
        row = sorted(
            (o for o in outcomes if (o.point.profile, o.point.jitter, o.point.shift_us) == key),
            key=lambda o: o.point.seed,
        )
        cells = " ".join(f"{o.ratio:8.2f}{'*' if o.stuck else ' '}" for o in row)
        lines.append(f"{key[0]:8} {key[1]:20} {key[2]:8}  {cells}")
    return "\n".join(lines)


def summary(outcomes: Sequence[Outcome]) -> str:
    """Per profile and jitter setting: range and geometric mean of the ratio over non-stuck runs."""
    lines = [
        f"{'profile':8} {'jitter':20} {'min':>6} {'max':>6} {'max/min':>7} {'geomean':>7} {'stuck':>5} {'mean q':>7}"
    ]
    for profile in PROFILES:
        for jitter in JITTER:
            sel = [o for o in outcomes if o.point.profile == profile and o.point.jitter == jitter]
            if not sel:
                continue
            ok = [o.ratio for o in sel if not o.stuck]
            q = sum(o.mean_queue_pkts for o in sel) / len(sel)
            lo, hi = (min(ok), max(ok)) if ok else (math.nan, math.nan)
            lines.append(
                f"{profile:8} {jitter:20} {lo:6.2f} {hi:6.2f} {hi / lo:7.2f} {geo_mean(ok):7.2f} "
                f"{len(sel) - len(ok):5d} {q:7.0f}"
            )
    return "\n".join(lines)


def plot(outcomes: Sequence[Outcome], path: Path, buffer_pkts: int = 601) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    profiles = [p for p in PROFILES if any(o.point.profile == p for o in outcomes)]
    fig, axes = plt.subplots(
        1, len(profiles), figsize=(5.2 * len(profiles), 4.2), sharey=True, squeeze=False
    )
    colors = {
        "none": "tab:red",
        "send overhead 83us": "tab:blue",
        "router jitter 83us": "tab:green",
    }
    full_q_ms = buffer_pkts * PACKET_TIME_US / 1000
    for ax, profile in zip(axes[0], profiles, strict=True):
        sel = [o for o in outcomes if o.point.profile == profile]
        mean_q_ms = sum(o.mean_queue_pkts for o in sel) / len(sel) * PACKET_TIME_US / 1000
        ax.axhspan(
            sync_bound(full_q_ms),
            sync_bound(mean_q_ms),
            color="0.85",
            zorder=0,
            label=f"sync. loss (q = {full_q_ms:.0f} ms full .. {mean_q_ms:.0f} ms mean)",
        )
        ax.axhline(
            (LONG_RTT_MS + mean_q_ms) / (SHORT_RTT_MS + mean_q_ms),
            color="0.5",
            ls=":",
            label="independent loss, RTT ratio (mean q)",
        )
        for jitter, color in colors.items():
            js = [o for o in sel if o.point.jitter == jitter]
            if not js:
                continue
            shifts = sorted({o.point.shift_us for o in js})
            ok = [o for o in js if not o.stuck]
            ax.scatter(
                [o.point.shift_us for o in ok], [o.ratio for o in ok], color=color, s=14, alpha=0.6
            )
            stuck = [o for o in js if o.stuck]
            if stuck:
                ax.scatter(
                    [o.point.shift_us for o in stuck],
                    [min(o.ratio, 900) for o in stuck],
                    color=color,
                    marker="x",
                    s=24,
                )
            ax.plot(
                shifts,
                [geo_mean([o.ratio for o in ok if o.point.shift_us == s]) for s in shifts],
                color=color,
                label=jitter,
            )
        ax.set_yscale("log")
        ax.set_title(f"profile {profile}, NewReno, 1 BDP DropTail")
        ax.set_xlabel(f"long flow's RTT shift, us (one packet = {PACKET_TIME_US} us)")
        ax.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("throughput ratio short/long (steady state)")
    axes[0][-1].legend(fontsize=7, loc="upper right")
    fig.suptitle(
        "20 ms vs 80 ms RTT: lines = geometric mean over seeds, x = a flow stuck in one recovery",
        fontsize=9,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 shifts, 60 s runs")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("results/phase-jitter/phase-jitter.png"),
        help="the figure's file (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    shifts = range(0, 81, 20) if args.quick else range(0, 81, 10)
    duration, warmup = (60.0, 20.0) if args.quick else (120.0, 40.0)
    points = grid(PROFILES, list(JITTER), list(shifts), [1, 2, 3], duration, warmup)
    outcomes = run_all(points, args.workers)
    print(table(outcomes))
    print()
    print(summary(outcomes))
    q_full = 601 * PACKET_TIME_US / 1000
    print(
        f"\nsynchronized-loss bound ((80+q)/(20+q))^2: q = 0: {sync_bound(0):.1f}, "
        f"q = full buffer {q_full:.0f} ms: {sync_bound(q_full):.2f}"
    )
    plot(outcomes, args.out)
    print(f"figure: {args.out}")


if __name__ == "__main__":
    sys.exit(main())
