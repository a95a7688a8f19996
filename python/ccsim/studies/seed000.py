"""Seed 000, Randomized TCP: studies R1-R13 of docs/studies.md (shared material).

Every study is written against the paper's algorithms: ``reno`` (the paper's base, Reno loss
recovery), ``paced``, ``randomized`` (parameter ``interval`` I; its increase parameter is scaled
as section III.A says) and the binomial ``iiad`` and ``sqrt`` (with ``randomize``). Until the
engine has all of them, the configurations it can run are run and the others are reported as
not run.

Choices common to every study (printed with each):

* Packet size. The paper's "MSS 500 B" is ns-2's ``packetSize_``, which ns-2 puts on the wire
  with 40 B of TCP/IP headers; ccsim's ``mss = 500`` is the same thing (500 B payload, 540 B on
  the wire), so the two queue and serialize identically. R13's "1000 B packets" are read the same
  way (``mss = 1000``).
* Buffers are given in packets as the paper counts them ("1/4 BDP" at 4 Mbps and 100 ms is 25
  packets of 500 B), not recomputed from ccsim's 540-byte packets.
* "End-to-end propagation" is read as the base round-trip time, as the paper's default "round
  trip time of 100 ms" is; the bottleneck's one-way delay is a fixed part of it and the access
  links carry the rest.
* Flows start at uniform random times in the first second (``start_jitter``): the seed moves
  them, and replicates over seeds show how much two-flow results swing with start times.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
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

MSS = 500
COMMON = (
    "MSS 500 B = ns-2 packetSize_ 500: 500 B payload + 40 B headers on the wire (ccsim mss = 500)",
    "delayed ACKs off (the ns2 profile's default), Reno loss recovery, ACKs 40 B",
    "access links 4x the bottleneck rate; buffers in packets as the paper counts them",
    "flows start uniformly at random in the first second; replicates differ in the seed only",
    (
        "no send overhead and no router jitter (ns-2's default overhead_ = 0): the phase effects "
        "they would break up are part of what the paper studies (docs/phase-effects.md)"
    ),
)
RANDOMIZED = {"name": "randomized", "cc": "randomized", "params": {"interval": 1.0}}
PACED = "paced"
#: Diagnostic only (not the paper's algorithm): Randomized TCP without the (RTT_eff/R)^2 scaling
#: of its increase (alpha = 1, Reno's one segment per RTT), to measure what the scaling does.
RANDOMIZED_A1 = {
    "name": "randomized-a1",
    "cc": "randomized",
    "params": {"interval": 1.0, "scale_increase": False},
}
DIAGNOSTIC = "Randomized alpha=1 (diagnostic)"
SOURCE = "seed 000 (Randomized TCP)"


def _scenario(
    rate: str,
    flows: Sequence[Mapping[str, Any]],
    *,
    duration: str,
    buffer: str = "25pkts",
    delay: str = "20ms",
    trace: Mapping[str, Any] | None = None,
    generators: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """A dumbbell scenario (as data) with the paper's packet size and start jitter."""
    data: dict[str, Any] = {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": rate,
            "bottleneck_delay": delay,
            "buffer": buffer,
        },
    }
    if flows:
        data["flows"] = [{"mss": MSS, "start_jitter": "1s", **f} for f in flows]
    if generators:
        data["generators"] = [{"mss": MSS, **g} for g in generators]
    if trace:
        data["trace"] = dict(trace)
    return data


def _sweep(name: str, scenario: dict[str, Any], seeds: list[int], **parts: Any) -> dict[str, Any]:
    return {"name": name, "scenario": scenario, "seeds": seeds, **parts}


def _config(point: pd.Series, names: Mapping[tuple[str, str], str]) -> str | None:
    """The study's name of a comparative point's (algorithm, mixture), None if not one of its."""
    return names.get((point.get("algorithm"), point.get("mixture")))


def _kbps(x: float) -> float:
    return x / 1e3


# ---- R1 --------------------------------------------------------------------------------------


#: Fig. 2/3's buffer is "one-fourth the delay bandwidth product" (section V.A): 1/4 of the BDP at
#: 100 ms in 500 B packets, rounded to the nearest packet (halves up).
R1_RATES = {"1Mbps": "6pkts", "2Mbps": "13pkts", "4Mbps": "25pkts"}
#: Section V: "a bottleneck link of 1 Mbps, all other links of bandwidth 4 Mbps" (not 4x the
#: bottleneck, section IV's rule), for every variant of R1.
R1_ACCESS = "4Mbps"


def _r1_sweeps(s: Settings) -> list[dict[str, Any]]:
    intervals = s.pick([round(0.1 * k, 1) for k in range(11)], [0.0, 0.5, 1.0])
    algorithms: list[dict[str, Any]] = [
        {"name": f"I={i}", "cc": "randomized", "params": {"interval": i}} for i in intervals
    ]
    compare = {"algorithms": algorithms, "baseline": RANDOMIZED, "reference": False}
    # Diagnostic, not the paper's algorithm: the bandwidth curves with alpha = 1 at every I (the
    # paper's increase scaling grows with I, from 1 at I = 0 to about 1.3-1.4 at I = 1).
    plain = [
        {
            "name": f"I={i} a=1",
            "cc": "randomized",
            "params": {"interval": i, "scale_increase": False},
        }
        for i in intervals
    ]
    seeds = s.seeds(3, 1)
    duration = s.pick("100s", "20s")
    counts = s.pick([30, 50], [30])
    flows = [{"cc": "randomized", "rtt": "100ms", "count": counts[0]}]

    def scenario(rate: str, buffer: str, delay: str, fl: Any) -> dict[str, Any]:
        data = _scenario(rate, fl, duration=duration, delay=delay, buffer=buffer)
        data["topology"]["access_rate"] = R1_ACCESS
        return data

    sweeps = []
    # One sweep per rate: the buffer goes with the rate (axes always form a full grid).
    for rate in s.pick(list(R1_RATES), ["1Mbps"]):
        for name, algs in (("bandwidth", algorithms), ("diagnostic", plain)):
            sweeps.append(
                _sweep(
                    f"{name}-{rate}",
                    scenario(rate, R1_RATES[rate], "40ms", flows),
                    seeds,
                    axes={"flows.0.count": counts},
                    compare={**compare, "algorithms": algs},
                )
            )
    sweeps.append(
        _sweep(
            "buffer",
            scenario("4Mbps", "25pkts", "40ms", flows),
            seeds,
            axes={
                "flows.0.count": counts,
                "topology.buffer": s.pick(["25pkts", "50pkts", "75pkts", "100pkts"], ["25pkts"]),
            },
            compare=compare,
        )
    )
    for n in counts:
        rtts = [{"cc": "randomized", "rtt": f"{80 + i * 40 / n:g}ms"} for i in range(n)]
        sweeps.append(
            _sweep(
                f"rtt-{n}",
                scenario("4Mbps", "25pkts", "30ms", rtts),
                seeds,
                compare=compare,
            )
        )
    return sweeps


def _r1_case(sweep: str, point: pd.Series) -> str:
    """The curve a point of R1 belongs to (without N)."""
    if sweep.startswith("bandwidth-"):
        rate = sweep.removeprefix("bandwidth-")
        return f"{rate} buf {R1_RATES[rate]}"
    if sweep.startswith("diagnostic-"):
        rate = sweep.removeprefix("diagnostic-")
        return f"{rate} buf {R1_RATES[rate]} alpha=1 (diag)"
    if sweep == "buffer":
        return f"4Mbps buf {point.get('buffer')}"
    return "4Mbps rtt 80-120ms"


def _r1_analyse(c: Context) -> pd.DataFrame:
    records = []
    seen: set[str] = set()
    for sweep in c.results:
        for point, _ in c.points(sweep):
            variant = _r1_case(sweep, point)
            n = int(point["count"]) if "count" in point else int(sweep.split("-")[1])
            # The 4 Mbps point of the bandwidth sweep is the 25-packet point of the buffer sweep
            # (the same configuration and seed): count it once.
            key = f"{variant} N={n} {point['algorithm']} seed {point['seed']}"
            if key in seen:
                continue
            seen.add(key)
            interval = float(str(point["algorithm"]).removeprefix("I=").split()[0])
            for metric, v in (
                ("loss rate", point["loss_rate"]),
                ("throughput Mb/s", point["goodput_bps"] / 1e6),
                ("timeouts", point["timeouts"]),
            ):
                records.append(
                    {
                        "case": f"{variant} N={n}",
                        "I": interval,
                        "metric": metric,
                        "value": float(v),
                    }
                )
    return summarise(records, ["case", "I"])


def _r1_extreme(rows: pd.DataFrame, best: bool) -> bool | None:
    """Is I = 1 the best (``best``) or the worst point of one curve: loss and timeouts within 5%
    of the curve's minimum (maximum) and throughput within 2% of its maximum (minimum)? None when
    the curve lacks I = 1 or another I."""
    ok = True
    for metric, low_is_good, tolerance in (
        ("loss rate", True, 0.05),
        ("timeouts", True, 0.05),
        ("throughput Mb/s", False, 0.02),
    ):
        curve = rows[rows["metric"] == metric].set_index("I")["ours"]
        if 1.0 not in curve.index or len(curve) < 2:
            return None
        at_one = curve.loc[1.0]
        if low_is_good == best:  # I = 1 must be (near) the lowest
            ok &= at_one <= curve.min() * (1 + tolerance) + 1e-12
        else:  # (near) the highest
            ok &= at_one >= curve.max() * (1 - tolerance)
    return bool(ok)


def _r1_best_at_one(table: pd.DataFrame) -> list[Check]:
    """In each curve, is I = 1 the best point (lowest loss and timeouts within 5%, throughput
    within 2% of the highest)? Reversed: I = 1 is the worst point by the mirror rule (highest
    loss and timeouts within 5%, throughput within 2% of the lowest) in as many curves."""
    curves = [
        case
        for case in table[table["metric"] == "loss rate"]["case"].unique()
        if "(diag)" not in case  # the alpha = 1 diagnostic is not the paper's algorithm
    ]
    if len(curves) == 0:
        return [Check("I = 1 best for losses, timeouts and throughput", None)]
    best = worst = 0
    for case in curves:
        rows = table[table["case"] == case]
        at_best, at_worst = _r1_extreme(rows, True), _r1_extreme(rows, False)
        if at_best is None or at_worst is None:
            return [Check("curves with I = 1 and another I", None)]
        best += at_best
        worst += at_worst
    share, against = best / len(curves), worst / len(curves)
    return [
        Check(
            f"I = 1 is best in {best} of {len(curves)} curves (need >= 80%; worst in {worst})",
            share >= 0.8,
            reversed=share < 0.8 and against >= 0.8,
        ),
        Check(
            f"... at least half of them ({share:.0%}; worst in {against:.0%})",
            share >= 0.5,
            reversed=share < 0.5 and against >= 0.5,
        ),
    ]


R1 = Study(
    id="R1",
    slug="randomization-interval",
    title="Randomization interval sweep (Fig. 2-5)",
    source=f"{SOURCE}, Fig. 2-5",
    setup="Dumbbell, RTT 100 ms, access links 4 Mbps (section V); Randomized TCP with I = 0..1 "
    "(step 0.1; I = 0 is Paced); 30 and 50 flows; variants: bottleneck 1/2/4 Mbps with a buffer "
    "of 1/4 BDP, 6/13/25 packets (Fig. 2/3), buffer 25..100 packets at 4 Mbps (Fig. 4), "
    "per-flow RTT 80 + i*40/N ms at 4 Mbps, 25 packets (Fig. 5).",
    warmup=(
        "none: loss rate, throughput and timeouts over each whole run (flows start in the first "
        "second)"
    ),
    assumptions=(
        *COMMON[:2],
        (
            "access links 4 Mbps whatever the bottleneck (section V: 'all other links of bandwidth "
            "4 Mbps'; at a 4 Mbps bottleneck they run at its rate)"
        ),
        "buffers in packets as the paper counts them; 1/4 BDP rounded to the nearest packet",
        *COMMON[3:],
        "run length 100 s (the paper gives none); bandwidths of Fig. 2/3: 1, 2 and 4 Mbps",
        (
            "I = 0 runs the randomized algorithm with interval 0 (Paced spacing with Randomized's "
            "increase rule, as the paper's 'I = 0 is Paced' reads)"
        ),
    ),
    sweeps=_r1_sweeps,
    analyse=_r1_analyse,
    claims=(
        Claim(
            "I = 1 gives the lowest losses and timeouts with equal or higher throughput in "
            "nearly all cases",
            "per curve (variant, N): loss and timeouts at I = 1 within 5% of the curve's "
            "minimum and throughput within 2% of its maximum; reproduced if >= 80% of curves, "
            "partly if >= 50%; each check reversed if I = 1 is instead the worst point (loss and "
            "timeouts within 5% of the maximum, throughput within 2% of the minimum) in as many",
            _r1_best_at_one,
        ),
    ),
    figure=FigureSpec(
        "loss, throughput, timeouts vs randomization interval",
        x="I",
        hue="case",
        xlabel="randomization interval I",
    ),
    algorithms=("randomized",),
)


# ---- R2 and R3: bulk transfers, same and different RTTs -----------------------------------------

_THREE = {"algorithms": ["reno", PACED, RANDOMIZED], "baseline": "reno"}
_THREE_NAMES = {
    ("reno", "all"): "Reno",
    ("paced", "all"): "Paced",
    ("randomized", "all"): "Randomized",
}


def _r2_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [{"cc": "reno", "rtt": "100ms", "count": 10}]
    scenario = _scenario("4Mbps", flows, duration=s.pick("100s", "20s"), delay="40ms")
    axes = {"flows.0.count": s.pick([10, 20, 30, 40, 50], [10, 30])}
    return [
        _sweep("bulk", scenario, s.seeds(3, 1), axes=axes, compare=_THREE),
        # Diagnostic, not one of the paper's configurations: Randomized with alpha = 1.
        _sweep(
            "bulk-diagnostic",
            scenario,
            s.seeds(3, 1),
            axes=axes,
            compare={
                "algorithms": [RANDOMIZED_A1],
                "baseline": "reno",
                "reference": False,
            },
        ),
    ]


def _bulk_records(
    c: Context,
    sweep: str,
    n: int | None = None,
    names: Mapping[tuple[str, str], str] = _THREE_NAMES,
) -> list[dict[str, Any]]:
    records = []
    for point, load in c.points(sweep):
        config = _config(point, names)
        if config is None:
            continue
        flows = load("flows")
        count = n if n is not None else int(point["count"])
        values = {
            "throughput Mb/s": point["goodput_bps"] / 1e6,
            "loss rate": point["loss_rate"],
            "timeouts": point["timeouts"],
            "Jain": metrics.jain_index(flows["goodput_bps"]),
            "RTT-weighted Jain": metrics.rtt_weighted_jain_index(
                flows["goodput_bps"], flows["base_rtt_s"]
            ),
        }
        records += [
            {"tcp": config, "N": count, "metric": m, "value": float(v)} for m, v in values.items()
        ]
    return records


def _r2_analyse(c: Context) -> pd.DataFrame:
    diagnostic = {("randomized-a1", "all"): DIAGNOSTIC}
    records = _bulk_records(c, "bulk") + _bulk_records(c, "bulk-diagnostic", names=diagnostic)
    table = summarise(records, ["tcp", "N"])
    return table[table["metric"] != "RTT-weighted Jain"].reset_index(drop=True)


def _by(table: pd.DataFrame, metric: str, tcp: str) -> pd.Series:
    rows = table[(table["metric"] == metric) & (table["tcp"] == tcp)]
    return rows.set_index("N")["ours"].sort_index()


def _r2_claims(table: pd.DataFrame) -> list[Check]:
    reno, paced, rand = (_by(table, "throughput Mb/s", t) for t in ("Reno", "Paced", "Randomized"))
    if reno.empty or paced.empty or rand.empty:
        return [Check("Reno, Paced and Randomized all run", None)]
    spread = (
        pd.concat([reno, paced, rand], axis=1).max(axis=1)
        / pd.concat([reno, paced, rand], axis=1).min(axis=1)
        - 1
    )
    return [
        Check(
            f"throughputs within 5% of each other at every N (worst {spread.max():.1%})",
            bool((spread <= 0.05).all()),
        )
    ]


def _r2_losses(table: pd.DataFrame) -> list[Check]:
    loss = {t: _by(table, "loss rate", t) for t in ("Reno", "Paced", "Randomized")}
    if any(v.empty for v in loss.values()):
        return [Check("Reno, Paced and Randomized all run", None)]
    frame = pd.DataFrame(loss)
    paced_most = (frame["Paced"] >= frame.max(axis=1)).mean()
    paced_least = (frame["Paced"] <= frame.min(axis=1)).mean()
    largest = frame.index.max()
    rand_best = frame.loc[largest, "Randomized"] <= frame.loc[largest].min()
    rand_worst = frame.loc[largest, "Randomized"] >= frame.loc[largest].max()
    return [
        Check(
            f"Paced has the highest loss rate at {paced_most:.0%} of N (need >= 80%; "
            f"reversed: the lowest at >= 80%, here {paced_least:.0%})",
            bool(paced_most >= 0.8),
            reversed=bool(paced_most < 0.8 and paced_least >= 0.8),
        ),
        Check(
            f"Randomized has the lowest loss rate at the largest N ({largest}; reversed: "
            f"the highest{' - it has' if rand_worst else ''})",
            bool(rand_best),
            reversed=bool(not rand_best and rand_worst),
        ),
    ]


R2 = Study(
    id="R2",
    slug="bulk-same-rtt",
    title="Bulk transfer, same RTT (Fig. 6)",
    source=f"{SOURCE}, Fig. 6",
    setup="Dumbbell 4 Mbps, RTT 100 ms, DropTail 25 packets; N = 10..50 flows, all Reno, all "
    "Paced or all Randomized (I = 1).",
    warmup=(
        "none: throughput, loss rate, timeouts and fairness over each whole run (flows start in "
        "the first second)"
    ),
    assumptions=(*COMMON, "run length 100 s (the paper gives none)"),
    sweeps=_r2_sweeps,
    analyse=_r2_analyse,
    claims=(
        Claim(
            "Reno, Paced and Randomized get equal throughput",
            "aggregate throughputs within 5% of each other at every N",
            _r2_claims,
        ),
        Claim(
            "Paced loses most; Randomized is best as N grows",
            "Paced's loss rate is the highest at >= 80% of N; Randomized's is the lowest at "
            "the largest N",
            _r2_losses,
        ),
    ),
    figure=FigureSpec("bulk transfer, same RTT", x="N", hue="tcp", xlabel="flows N"),
    algorithms=("reno", "paced", "randomized"),
)


def _r3_sweeps(s: Settings) -> list[dict[str, Any]]:
    sweeps = []
    for n in s.pick([10, 20, 30, 40, 50], [10]):
        flows = [{"cc": "reno", "rtt": f"{80 + i * 40 / n:g}ms"} for i in range(n)]
        sweeps.append(
            _sweep(
                f"N{n}",
                _scenario("4Mbps", flows, duration=s.pick("100s", "20s"), delay="30ms"),
                s.seeds(3, 1),
                compare=_THREE,
            )
        )
    return sweeps


def _r3_analyse(c: Context) -> pd.DataFrame:
    records = []
    for name in c.results:
        records += _bulk_records(c, name, int(name[1:]))
    return summarise(records, ["tcp", "N"])


def _r3_fairness(table: pd.DataFrame) -> list[Check]:
    fair = {t: _by(table, "RTT-weighted Jain", t) for t in ("Reno", "Paced", "Randomized")}
    if any(v.empty for v in fair.values()):
        return [Check("Reno, Paced and Randomized all run", None)]
    frame = pd.DataFrame(fair)
    top = {t: (frame[t] >= frame.max(axis=1) - 1e-9).mean() for t in frame}
    bottom = {t: (frame[t] <= frame.min(axis=1) + 1e-9).mean() for t in frame}
    return [
        Check(
            f"Randomized has the highest RTT-weighted Jain index at >= 80% of N "
            f"({top['Randomized']:.0%}; reversed: the lowest at >= 80%)",
            bool(top["Randomized"] >= 0.8),
            reversed=bool(top["Randomized"] < 0.8 and bottom["Randomized"] >= 0.8),
        ),
        Check(
            f"Reno has the lowest at >= 80% of N ({bottom['Reno']:.0%}; reversed: the "
            f"highest at >= 80%)",
            bool(bottom["Reno"] >= 0.8),
            reversed=bool(bottom["Reno"] < 0.8 and top["Reno"] >= 0.8),
        ),
        Check(
            "Paced within 0.05 of Randomized at every N",
            bool(((frame["Randomized"] - frame["Paced"]).abs() <= 0.05).all()),
        ),
    ]


R3 = Study(
    id="R3",
    slug="bulk-different-rtt",
    title="Bulk transfer, different RTTs (Fig. 7)",
    source=f"{SOURCE}, Fig. 7",
    setup="Dumbbell 4 Mbps, DropTail 25 packets, RTT_i = 80 + i*40/N ms, N = 10..50; fairness is "
    "the RTT-weighted Jain index (sum x_i RTT_i)^2 / (n sum (x_i RTT_i)^2).",
    warmup=(
        "none: throughput, loss rate, timeouts and fairness over each whole run (flows start in "
        "the first second)"
    ),
    assumptions=(*COMMON, "run length 100 s (the paper gives none)"),
    sweeps=_r3_sweeps,
    analyse=_r3_analyse,
    claims=(
        Claim(
            "Randomized most fair, Paced close, Reno least fair",
            "RTT-weighted Jain: Randomized highest and Reno lowest at >= 80% of N, Paced "
            "within 0.05 of Randomized",
            _r3_fairness,
        ),
    ),
    figure=FigureSpec("bulk transfer, RTT 80-120 ms", x="N", hue="tcp", xlabel="flows N"),
    algorithms=("reno", "paced", "randomized"),
)


# ---- R4 and R10: short web-like transfers -------------------------------------------------------


def _r4_sweeps(s: Settings) -> list[dict[str, Any]]:
    sweeps = []
    for packets in s.pick([10, 50, 100, 200, 500, 1000, 2500], [10, 200]):
        # Long enough for about 500 transfers: 25 slots share 4 Mb/s, so one transfer of P
        # packets takes about P * 540 * 8 / 160 kb/s; 20 of them per slot, plus a margin.
        seconds = max(30, math.ceil(1.3 * 20 * packets * 540 * 8 / 160e3))
        generators = [
            {
                "kind": "closed_loop",
                "slots": 25,
                "size": f"{packets * MSS}B",
                "cc": "reno",
                "rtt_choices": ["100ms"],
            }
        ]
        scenario = _scenario(
            "4Mbps",
            [],
            duration=s.pick(f"{seconds}s", "15s"),
            delay="40ms",
            generators=generators,
            trace={"sample_interval": "100ms"},
        )
        # The paper's setting under any profile: no handshake, as ns-2's one-way agents (the
        # ns2 profile's default; linux and rfc would otherwise add one RTT per transfer).
        scenario["stack"] = {"handshake": False}
        sweeps.append(_sweep(f"size{packets}", scenario, s.seeds(2, 1), compare=_THREE))
    return sweeps


def _slot_correlation(series: pd.DataFrame, flows: pd.DataFrame) -> float:
    """Mean pairwise Pearson correlation of the slots' cwnd series (R10): a closed-loop slot's
    window at time t is that of the transfer it runs then."""
    if series.empty:
        return math.nan
    by_slot = series.assign(flow=series["flow"].map(flows.set_index("flow")["src"]))
    codes = {name: i for i, name in enumerate(sorted(by_slot["flow"].dropna().unique()))}
    by_slot = by_slot.assign(flow=by_slot["flow"].map(codes))
    pairs = metrics.cwnd_correlation_pairs(by_slot, warmup_s=5.0)
    return float(pairs["correlation"].mean())


def _r4_records(c: Context, with_sync: bool) -> list[dict[str, Any]]:
    records = []
    for name in c.results:
        packets = int(name.removeprefix("size"))
        for point, load in c.points(name):
            config = _config(point, _THREE_NAMES)
            if config is None:
                continue
            flows = load("flows")
            transfers = flows[flows["generator"].notna()]
            finished = (
                transfers["completed"].astype(bool)
                if "completed" in transfers
                else transfers["completion_s"].notna()
            )
            done = transfers.loc[finished, "completion_s"]
            # A transfer still running at the end has no completion time; its elapsed time up
            # to the end is a lower bound on it, so the mean with those is a lower bound too.
            end = float(flows["end_s"].max())
            elapsed = end - transfers.loc[~finished, "start_s"]
            key = {"tcp": config, "packets": packets}
            records += [
                key | {"metric": "mean latency s", "value": float(done.mean())},
                key | {"metric": "transfers", "value": float(len(done))},
                key | {"metric": "unfinished", "value": float((~finished).sum())},
                key
                | {
                    "metric": "mean latency s, unfinished at run end (lower bound)",
                    "value": float(pd.concat([done, elapsed]).mean()),
                },
            ]
            if with_sync:
                records.append(
                    {
                        "tcp": config,
                        "packets": packets,
                        "metric": "cwnd correlation",
                        "value": _slot_correlation(load("series"), flows),
                    }
                )
    return records


def _r4_claims(table: pd.DataFrame) -> list[Check]:
    lat = {
        t: _by_key(table, "mean latency s", t, "packets") for t in ("Reno", "Paced", "Randomized")
    }
    if any(v.empty for v in lat.values()):
        return [Check("Reno, Paced and Randomized all run", None)]
    frame = pd.DataFrame(lat)
    small = frame[frame.index <= 200]
    gap = (frame["Randomized"] - frame["Reno"]) / frame["Reno"]
    reno_fastest = bool((small["Reno"] <= small.min(axis=1) + 1e-9).all())
    reno_slowest = bool((small["Reno"] >= small.max(axis=1) - 1e-9).all())
    paced_slowest = (frame["Paced"] >= frame.max(axis=1) - 1e-9).mean()
    paced_fastest = (frame["Paced"] <= frame.min(axis=1) + 1e-9).mean()
    return [
        Check(
            "Reno fastest at every size <= 200 packets (reversed: slowest at every one)",
            reno_fastest,
            reversed=not reno_fastest and reno_slowest,
        ),
        Check(
            f"Paced slowest at >= 80% of sizes ({paced_slowest:.0%}; reversed: fastest at "
            f">= 80%, here {paced_fastest:.0%})",
            bool(paced_slowest >= 0.8),
            reversed=bool(paced_slowest < 0.8 and paced_fastest >= 0.8),
        ),
        Check(
            f"Randomized-Reno gap shrinks from smallest to largest size "
            f"({gap.iloc[0]:.0%} -> {gap.iloc[-1]:.0%}; reversed: it grows)",
            bool(gap.iloc[-1] < gap.iloc[0]),
            reversed=bool(gap.iloc[-1] > gap.iloc[0]),
        ),
    ]


def _by_key(table: pd.DataFrame, metric: str, tcp: str, key: str) -> pd.Series:
    rows = table[(table["metric"] == metric) & (table["tcp"] == tcp)]
    return rows.set_index(key)["ours"].sort_index()


R4 = Study(
    id="R4",
    slug="web-latency",
    title="Short web-like transfers (Fig. 8)",
    source=f"{SOURCE}, Fig. 8",
    setup="Dumbbell 4 Mbps, RTT 100 ms, buffer 1/4 BDP (25 packets); 25 transfers always active "
    "(closed loop); transfer size 10..2500 packets; mean transfer latency.",
    warmup="none: every transfer counts, from the first of the run",
    assumptions=(
        *COMMON,
        (
            "run until about 500 transfers complete: the run length is set from the size "
            "(20 transfers per slot at a fair share, +30%)"
        ),
        (
            "no handshake under every profile ([stack] handshake = false, as ns-2's one-way "
            "agents): a transfer's first segment leaves at its start, and its latency runs from "
            "there to its last ACK"
        ),
        (
            "transfers still running at the end are counted ('unfinished') and left out of "
            "the mean latency; a second mean counts them at their elapsed time (a lower bound)"
        ),
    ),
    sweeps=_r4_sweeps,
    analyse=lambda c: summarise(_r4_records(c, with_sync=False), ["tcp", "packets"]),
    claims=(
        Claim(
            "Reno fastest for 10-200 packets, Paced slowest, Randomized between; the gap "
            "shrinks as size grows",
            "Reno lowest latency at every size <= 200; Paced highest at >= 80% of sizes; "
            "(Randomized - Reno)/Reno smaller at the largest size than the smallest",
            _r4_claims,
        ),
    ),
    figure=FigureSpec(
        "mean transfer latency",
        x="packets",
        hue="tcp",
        xlabel="transfer size (packets)",
    ),
    algorithms=("reno", "paced", "randomized"),
)


def _r10_claims(table: pd.DataFrame) -> list[Check]:
    paced = _by_key(table, "cwnd correlation", "Paced", "packets")
    rand = _by_key(table, "cwnd correlation", "Randomized", "packets")
    if paced.empty or rand.empty:
        return [Check("Paced and Randomized both run", None)]
    below = (rand < paced).mean()
    above = (rand > paced).mean()
    return [
        Check(
            f"Randomized below Paced at {below:.0%} of sizes (need all; reversed: above at "
            f"all, here {above:.0%})",
            bool(below == 1.0),
            reversed=bool(above == 1.0),
        )
    ]


R10 = Study(
    id="R10",
    slug="web-synchronization",
    title="Synchronization with short web transfers (Fig. 11)",
    source=f"{SOURCE}, Fig. 11",
    setup="The setup of R4; mean pairwise correlation of the 25 closed-loop slots' cwnd series "
    "(a slot's window is that of the transfer it runs), sampled every 0.1 s.",
    warmup=(
        "5 s: the cwnd correlation leaves out the first 5 s; the latencies count every transfer, "
        "from the first"
    ),
    assumptions=(
        *R4.assumptions,
        "the first 5 s are left out of the correlation (warm-up)",
    ),
    sweeps=_r4_sweeps,
    analyse=lambda c: summarise(_r4_records(c, with_sync=True), ["tcp", "packets"]),
    claims=(
        Claim(
            "Randomized's covariance is consistently below Paced's",
            "mean pairwise slot correlation of Randomized below Paced's at every size",
            _r10_claims,
        ),
    ),
    figure=FigureSpec(
        "short transfers: latency and cwnd correlation",
        x="packets",
        hue="tcp",
        xlabel="transfer size (packets)",
    ),
    algorithms=("reno", "paced", "randomized"),
)


# ---- R5: interaction with Reno ------------------------------------------------------------------

_R5_NAMES = {
    ("paced", "one"): "Reno vs Paced",
    ("randomized", "one"): "Reno vs Randomized",
    ("randomized-a1", "one"): f"Reno vs {DIAGNOSTIC}",
    ("reno", "all"): "Reno vs Reno",
}
_R5_PUBLISHED = {
    ("Reno vs Paced", "Reno", "Kbps"): 480.21,
    ("Reno vs Paced", "Paced", "Kbps"): 351.86,
    ("Reno vs Paced", "Reno", "losses"): 118,
    ("Reno vs Paced", "Paced", "losses"): 202,
    ("Reno vs Paced", "Reno", "timeouts"): 6,
    ("Reno vs Paced", "Paced", "timeouts"): 28,
    ("Reno vs Randomized", "Reno", "Kbps"): 389.31,
    ("Reno vs Randomized", "Randomized", "Kbps"): 408.92,
    ("Reno vs Randomized", "Reno", "losses"): 162,
    ("Reno vs Randomized", "Randomized", "losses"): 210,
    ("Reno vs Randomized", "Reno", "timeouts"): 22,
    ("Reno vs Randomized", "Randomized", "timeouts"): 32,
}


def _r5_sweeps(s: Settings) -> list[dict[str, Any]]:
    # Flow 0 runs the compared algorithm ("one"), flow 1 stays Reno.
    flows = [{"cc": "reno", "rtt": "100ms"}, {"cc": "reno", "rtt": "100ms"}]
    return [
        _sweep(
            "pair",
            _scenario("1Mbps", flows, duration=s.pick("100s", "30s"), delay="40ms"),
            s.seeds(10, 3),
            compare={
                "algorithms": [PACED, RANDOMIZED, RANDOMIZED_A1],
                "mixtures": ["one"],
                "baseline": "reno",
            },
        )
    ]


def _r5_analyse(c: Context) -> pd.DataFrame:
    records = []
    for point, load in c.points("pair"):
        config = _config(point, _R5_NAMES)
        if config is None:
            continue
        flows = load("flows").sort_values("flow")
        for _, f in flows.iterrows():
            tcp = "Reno" if f["cc"] == "reno" else f["cc"].capitalize()
            if config == "Reno vs Reno":
                tcp = f"Reno {int(f['flow'])}"
            for metric, v in (
                ("Kbps", _kbps(f["goodput_bps"])),
                ("losses", f["drops"]),
                ("timeouts", f["timeouts"]),
            ):
                records.append({"config": config, "tcp": tcp, "metric": metric, "value": float(v)})
        if config != "Reno vs Reno":
            x = flows[flows["cc"] != "reno"]["goodput_bps"].iloc[0]
            reno = flows[flows["cc"] == "reno"]["goodput_bps"].iloc[0]
            records.append(
                {
                    "config": config,
                    "tcp": "X/Reno",
                    "metric": "throughput ratio",
                    "value": float(x / reno),
                }
            )
    published = dict(_R5_PUBLISHED)
    published[("Reno vs Paced", "X/Reno", "throughput ratio")] = 351.86 / 480.21
    published[("Reno vs Randomized", "X/Reno", "throughput ratio")] = 408.92 / 389.31
    return summarise(records, ["config", "tcp"], published)


def _r5_paced(table: pd.DataFrame) -> list[Check]:
    r = value(table, "throughput ratio", config="Reno vs Paced")
    return [
        check(
            f"Paced/Reno throughput ratio {r:.2f} < 0.85 (reversed: > 1/0.85 = 1.18)",
            r,
            test=lambda r: r < 0.85,
            reverse=lambda r: r > 1 / 0.85,
        )
    ]


def _r5_randomized(table: pd.DataFrame) -> list[Check]:
    r = value(table, "throughput ratio", config="Reno vs Randomized")
    return [
        check(
            f"Randomized/Reno throughput ratio {r:.2f} within 0.85..1.18",
            r,
            test=lambda r: 0.85 <= r <= 1.18,
        )
    ]


R5 = Study(
    id="R5",
    slug="interaction-with-reno",
    title="Interaction with Reno (Tables I, II)",
    source=f"{SOURCE}, Tables I-II",
    setup="Dumbbell 1 Mbps, RTT 100 ms, DropTail 25 packets; one Reno flow against one Paced "
    "flow, then against one Randomized flow (I = 1).",
    warmup=(
        "none: each flow's goodput, losses and timeouts over its whole run (flows start in the "
        "first second)"
    ),
    assumptions=(
        *COMMON,
        (
            "100 s runs; throughput in Kbps (the tables' header says pkts/s, but 480 pkts/s of "
            "500 B would exceed the 1 Mbps link; the text says Kbps)"
        ),
        "the mean over seeds is reported: the paper gives one run",
    ),
    sweeps=_r5_sweeps,
    analyse=_r5_analyse,
    claims=(
        Claim(
            "Paced is beaten down by Reno",
            "mean Paced/Reno throughput ratio < 0.85",
            _r5_paced,
        ),
        Claim(
            "Randomized competes evenly with Reno",
            "mean Randomized/Reno throughput ratio in 0.85..1.18 (the paper's is 1.05)",
            _r5_randomized,
        ),
    ),
    figure=FigureSpec("one flow each: Reno against Paced / Randomized"),
    algorithms=("reno", "paced", "randomized"),
)


# ---- R6 and R7: phase effects on one bottleneck -------------------------------------------------

#: Shares of a 60 ms and an 80 ms flow if throughput goes as 1/RTT.
FAIR_SHORT, FAIR_LONG = 8 / 14, 6 / 14
_R6_NAMES = {("reno", "all"): "Reno/Reno", ("randomized", "short"): "Reno/Random"}
_R6_PUBLISHED = {
    ("2Mbps", "Reno/Reno", "long share"): 0.29,
    ("2Mbps", "Reno/Reno", "short share"): 0.71,
    ("2Mbps", "Reno/Random", "long share"): 0.46,
    ("2Mbps", "Reno/Random", "short share"): 0.54,
    ("3Mbps", "Reno/Reno", "long share"): 0.34,
    ("3Mbps", "Reno/Reno", "short share"): 0.66,
    ("3Mbps", "Reno/Random", "long share"): 0.44,
    ("3Mbps", "Reno/Random", "short share"): 0.56,
    ("2Mbps", "Reno/Reno", "long pkts/s"): 119.81,
    ("2Mbps", "Reno/Reno", "short pkts/s"): 298.93,
    ("2Mbps", "Reno/Random", "long pkts/s"): 166.11,
    ("2Mbps", "Reno/Random", "short pkts/s"): 196.3,
    ("3Mbps", "Reno/Reno", "long pkts/s"): 208.42,
    ("3Mbps", "Reno/Reno", "short pkts/s"): 408.05,
    ("3Mbps", "Reno/Random", "long pkts/s"): 241.64,
    ("3Mbps", "Reno/Random", "short pkts/s"): 300.08,
}


def _r6_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [
        {"cc": "reno", "rtt": "60ms", "label": "short"},
        {"cc": "reno", "rtt": "80ms", "label": "long"},
    ]
    return [
        _sweep(
            "pair",
            _scenario("2Mbps", flows, duration=s.pick("200s", "40s")),
            s.seeds(10, 3),
            axes={"topology.bottleneck_rate": ["2Mbps", "3Mbps"]},
            compare={
                "algorithms": [RANDOMIZED],
                "mixtures": [{"name": "short", "flows": [0]}],
                "baseline": "reno",
            },
        )
    ]


def _r6_analyse(c: Context) -> pd.DataFrame:
    records = []
    for point, load in c.points("pair"):
        config = _config(point, _R6_NAMES)
        if config is None:
            continue
        flows = load("flows").set_index("label")
        total = flows["goodput_bps"].sum()
        for which in ("short", "long"):
            x = flows.loc[which, "goodput_bps"]
            # Table III's throughputs are packets (500 B) per second, as its header says.
            for metric, v in (
                (f"{which} share", x / total),
                (f"{which} pkts/s", x / (8 * MSS)),
            ):
                records.append(
                    {
                        "rate": point["bottleneck_rate"],
                        "config": config,
                        "metric": metric,
                        "value": float(v),
                    }
                )
    return summarise(records, ["rate", "config"], _R6_PUBLISHED)


def _r6_phase(table: pd.DataFrame) -> list[Check]:
    """Table III: at each rate the long (80 ms) flow is the one locked out (short share 0.71 and
    0.66 against the 1/RTT share 0.57)."""
    checks = []
    for rate in ("2Mbps", "3Mbps"):
        short = value(table, "short share", rate=rate, config="Reno/Reno")
        checks.append(
            check(
                f"{rate}: two Reno flows, the long flow loses: short share {short:.2f} > "
                f"0.57 + 0.1 (reversed: < 0.57 - 0.1, the short flow loses)",
                short,
                test=lambda x: x - FAIR_SHORT > 0.1,
                reverse=lambda x: FAIR_SHORT - x > 0.1,
            )
        )
    return checks


def _r6_fix(table: pd.DataFrame) -> list[Check]:
    checks = []
    for rate in ("2Mbps", "3Mbps"):
        reno = abs(value(table, "short share", rate=rate, config="Reno/Reno") - FAIR_SHORT)
        rand = abs(value(table, "short share", rate=rate, config="Reno/Random") - FAIR_SHORT)
        checks.append(
            check(
                f"{rate}: randomizing the short flow brings its share within 0.1 of "
                f"0.57 and closer than Reno/Reno ({rand:.2f} vs {reno:.2f}; reversed: "
                f"further than 0.1 and further than Reno/Reno)",
                reno,
                rand,
                test=lambda a, b: b < 0.1 and b < a,
                reverse=lambda a, b: b > 0.1 and b > a,
            )
        )
    return checks


R6 = Study(
    id="R6",
    slug="phase-effects",
    title="Phase effects, two flows (Table III)",
    source=f"{SOURCE}, Table III",
    setup="Dumbbell, DropTail 25 packets, bottleneck 2 and 3 Mbps; a short (60 ms) and a long "
    "(80 ms) flow: both Reno, then long Reno + short Randomized. Fair shares by 1/RTT: 0.57 "
    "short / 0.43 long.",
    warmup=(
        "none: each flow's goodput is taken over its whole run (flows start in the first second)"
    ),
    assumptions=(
        *COMMON,
        "200 s runs (the paper gives none); bottleneck one-way delay 20 ms",
        (
            "Table III's throughputs are packets of 500 B per second, as its header says (studies.md "
            "calls them Kbps, but 418 Kbps would leave the 2 Mbps link 80% idle; 418 pkts/s fills "
            "84% of it)"
        ),
    ),
    sweeps=_r6_sweeps,
    analyse=_r6_analyse,
    claims=(
        Claim(
            "Two Reno flows of different RTT stray far from the 1/RTT shares (phase effects): "
            "the long (80 ms) flow is locked out at 2 and 3 Mb/s",
            "at each rate: mean short share - 0.57 > 0.1 (the long flow loses); reversed at a "
            "rate where 0.57 - short share > 0.1 (the short flow loses)",
            _r6_phase,
        ),
        Claim(
            "Randomizing one flow brings the shares back near 1/RTT",
            "at each rate: |short share - 0.57| < 0.1 with the short flow Randomized, and "
            "smaller than with two Reno flows; reversed where it is > 0.1 and larger",
            _r6_fix,
        ),
    ),
    figure=FigureSpec("two flows, 60 and 80 ms: throughput shares"),
    algorithms=("reno", "randomized"),
)

_R7_NAMES = {
    ("reno", "all"): "all Reno",
    ("randomized", "all"): "all Randomized",
    ("randomized", "one-long"): "1 long Randomized",
    ("randomized", "one-short"): "1 short Randomized",
}
_R7_PUBLISHED = {
    ("all Reno", "short Kbps"): 62.6,
    ("all Reno", "long Kbps"): 33.35,
    ("all Randomized", "short Kbps"): 41.50,
    ("all Randomized", "long Kbps"): 33.60,
    ("1 long Randomized", "short Kbps"): 45.51,
    ("1 long Randomized", "long Kbps"): 35.80,
    ("1 short Randomized", "short Kbps"): 50.02,
    ("1 short Randomized", "long Kbps"): 34.71,
    ("all Reno", "short/long"): 62.6 / 33.35,
    ("all Randomized", "short/long"): 41.50 / 33.60,
    ("1 long Randomized", "short/long"): 45.51 / 35.80,
    ("1 short Randomized", "short/long"): 50.02 / 34.71,
}


def _r7_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [
        {"cc": "reno", "rtt": "60ms", "label": "short", "count": 5},
        {"cc": "reno", "rtt": "80ms", "label": "long", "count": 5},
    ]
    mixtures = [
        "all",
        {"name": "one-long", "flows": [9]},
        {"name": "one-short", "flows": [4]},
    ]
    return [
        _sweep(
            "ten",
            _scenario("1Mbps", flows, duration=s.pick("200s", "40s")),
            s.seeds(5, 2),
            compare={
                "algorithms": [RANDOMIZED],
                "mixtures": mixtures,
                "baseline": "reno",
            },
        )
    ]


def _r7_analyse(c: Context) -> pd.DataFrame:
    records = []
    for point, load in c.points("ten"):
        config = _config(point, _R7_NAMES)
        if config is None:
            continue
        flows = load("flows")
        mean = flows.groupby("label")["goodput_bps"].mean()
        for metric, v in (
            ("short Kbps", _kbps(mean["short"])),
            ("long Kbps", _kbps(mean["long"])),
            ("short/long", mean["short"] / mean["long"]),
        ):
            records.append({"config": config, "metric": metric, "value": float(v)})
    return summarise(records, ["config"], _R7_PUBLISHED)


#: Per-flow throughput ratio short/long by 1/RTT (60 and 80 ms).
R7_IDEAL = 80 / 60


def _r7_direction(table: pd.DataFrame) -> list[Check]:
    """Table IV, all Reno: the 60 ms flows get 1.88 times the 80 ms flows' throughput, well
    above 1/RTT's 1.33."""
    r = value(table, "short/long", config="all Reno")
    return [
        check(
            f"all Reno: short/long {r:.2f} > 1.2 x 1.33 = 1.6, the long flows lose "
            f"(reversed: < 1.33 / 1.2 = 1.11, the short flows lose)",
            r,
            test=lambda x: x > 1.2 * R7_IDEAL,
            reverse=lambda x: x < R7_IDEAL / 1.2,
        )
    ]


def _r7_claims(table: pd.DataFrame) -> list[Check]:
    reno = abs(value(table, "short/long", config="all Reno") - R7_IDEAL)
    checks = []
    for config in ("1 long Randomized", "1 short Randomized"):
        d = abs(value(table, "short/long", config=config) - R7_IDEAL)
        checks.append(
            check(
                f"{config}: |short/long - 1.33| {d:.2f} at most 3/4 of all Reno's "
                f"{reno:.2f} (reversed: at least 4/3 of it)",
                reno,
                d,
                test=lambda a, b: b <= 0.75 * a,
                reverse=lambda a, b: b >= a / 0.75,
            )
        )
    return checks


R7 = Study(
    id="R7",
    slug="phase-effects-ten",
    title="Phase effects, ten flows (Table IV)",
    source=f"{SOURCE}, Table IV",
    setup="Dumbbell 1 Mbps, DropTail 25 packets; 5 short (60 ms) and 5 long (80 ms) flows: all "
    "Reno, all Randomized, one long Randomized, one short Randomized; mean per-flow Kbps.",
    warmup=(
        "none: each flow's goodput is taken over its whole run (flows start in the first second)"
    ),
    assumptions=(*COMMON, "200 s runs (the paper gives none)"),
    sweeps=_r7_sweeps,
    analyse=_r7_analyse,
    claims=(
        Claim(
            "With ten Reno flows, phase effects favour the short (60 ms) flows: 62.6 against "
            "33.35 Kb/s per flow",
            "all Reno: per-flow short/long throughput ratio > 1.2 x the 1/RTT ratio 1.33; "
            "reversed if < 1.33 / 1.2 (the short flows lose)",
            _r7_direction,
        ),
        Claim(
            "One randomized flow reduces phase effects for all",
            "with one Randomized flow (long or short), the distance of the short/long "
            "per-flow throughput ratio from the 1/RTT ratio 1.33 shrinks by a quarter or "
            "more from all Reno's; reversed if it grows by a third or more",
            _r7_claims,
        ),
    ),
    figure=FigureSpec("ten flows, 5 at 60 ms and 5 at 80 ms"),
    algorithms=("reno", "randomized"),
)


# ---- R8: two bottlenecks ------------------------------------------------------------------------

_R8_NAMES = {
    ("reno", "all"): "Reno/Reno",
    ("randomized", "all"): "Random/Random",
    ("randomized", "short"): "Reno long + Random short",
    ("randomized", "long"): "Random long + Reno short",
}
_R8_PUBLISHED_ROWS = {
    "Reno/Reno": (50.28, 44.08, 106.18, 108.16),
    "Random/Random": (61.28, 55.64, 83.84, 84.36),
    "Reno long + Random short": (56.12, 59.24, 85.20, 86.00),
    "Random long + Reno short": (50.04, 55.00, 94.50, 98.92),
}
_R8_PUBLISHED = {
    (c, f"S{i + 1} Kbps"): v for c, row in _R8_PUBLISHED_ROWS.items() for i, v in enumerate(row)
}
_R8_PUBLISHED |= {
    (c, "long/short"): (r[0] + r[1]) / (r[2] + r[3]) for c, r in _R8_PUBLISHED_ROWS.items()
}


def _r8_sweeps(s: Settings) -> list[dict[str, Any]]:
    scenario = {
        "name": "study",
        "seed": 1,
        "duration": s.pick("200s", "40s"),
        "topology": {
            "kind": "parking_lot",
            "routers": 3,
            "rate": "1Mbps",
            "delay": "20ms",
            "buffer": "25pkts",
            "access_rate": "4Mbps",
        },
        "flows": [
            {"cc": "reno", "src": "R0", "dst": "R2", "rtt": "120ms", "label": "S1"},
            {"cc": "reno", "src": "R0", "dst": "R2", "rtt": "120ms", "label": "S2"},
            {"cc": "reno", "src": "R0", "dst": "R1", "rtt": "60ms", "label": "S3"},
            {"cc": "reno", "src": "R1", "dst": "R2", "rtt": "60ms", "label": "S4"},
        ],
    }
    for flow in scenario["flows"]:
        flow.update({"mss": MSS, "start_jitter": "1s"})
    mixtures = [
        "all",
        {"name": "short", "flows": [2, 3]},
        {"name": "long", "flows": [0, 1]},
    ]
    return [
        _sweep(
            "chain",
            scenario,
            s.seeds(5, 2),
            compare={
                "algorithms": [RANDOMIZED],
                "mixtures": mixtures,
                "baseline": "reno",
            },
        )
    ]


def _r8_analyse(c: Context) -> pd.DataFrame:
    records = []
    for point, load in c.points("chain"):
        config = _config(point, _R8_NAMES)
        if config is None:
            continue
        x = load("flows").set_index("label")["goodput_bps"]
        for label in ("S1", "S2", "S3", "S4"):
            records.append({"config": config, "metric": f"{label} Kbps", "value": _kbps(x[label])})
        records.append(
            {
                "config": config,
                "metric": "long/short",
                "value": float((x["S1"] + x["S2"]) / (x["S3"] + x["S4"])),
            }
        )
    return summarise(records, ["config"], _R8_PUBLISHED)


def _r8_claims(table: pd.DataFrame) -> list[Check]:
    reno = value(table, "long/short", config="Reno/Reno")
    rand = value(table, "long/short", config="Random/Random")
    short_r = value(table, "long/short", config="Reno long + Random short")
    long_r = value(table, "long/short", config="Random long + Reno short")
    return [
        check(
            f"all Randomized raises long/short over all Reno by > 0.1 ({reno:.2f} -> "
            f"{rand:.2f}; reversed: lowers it by > 0.1)",
            reno,
            rand,
            test=lambda a, b: b > a + 0.1,
            reverse=lambda a, b: b < a - 0.1,
        ),
        check(
            f"randomizing the short flows helps the long ones more than randomizing the long "
            f"ones ({short_r:.2f} vs {long_r:.2f}; reversed: less)",
            short_r,
            long_r,
            test=lambda a, b: a > b,
            reverse=lambda a, b: a < b,
        ),
    ]


R8 = Study(
    id="R8",
    slug="multiple-bottlenecks",
    title="Multiple bottlenecks (Table V, Fig. 9)",
    source=f"{SOURCE}, Table V",
    setup="Chain of three routers, two 1 Mbps / 20 ms bottlenecks, other links 4 Mbps; long "
    "flows S1, S2 cross both (RTT 120 ms), short flows S3, S4 one each (RTT 60 ms); "
    "configurations (long, short) in {Reno, Random}^2.",
    warmup=(
        "none: each flow's goodput is taken over its whole run (flows start in the first second)"
    ),
    assumptions=(
        *COMMON,
        "200 s runs; the stated 120/60 ms are base RTTs; 25-packet buffers",
    ),
    sweeps=_r8_sweeps,
    analyse=_r8_analyse,
    claims=(
        Claim(
            "Phase effects against the long flows with Reno; removed when all are Randomized, "
            "reduced by randomizing the short flows, not by randomizing the long ones",
            "long/short throughput ratio: all Random > all Reno + 0.1 (reversed: < all Reno - "
            "0.1), and (Reno long + Random short) > (Random long + Reno short) (reversed: <)",
            _r8_claims,
        ),
    ),
    figure=FigureSpec("two bottlenecks: per-source Kbps"),
    algorithms=("reno", "randomized"),
)


# ---- R9: synchronization of bulk flows ---------------------------------------------------------

_R9_PUBLISHED = {
    ("2 flows 3Mbps", "Reno", "(0,1)"): 0.4254,
    ("2 flows 3Mbps", "Paced", "(0,1)"): -0.4124,
    ("2 flows 3Mbps", "Randomized", "(0,1)"): 0.1721,
    ("2 flows 4Mbps", "Reno", "(0,1)"): 0.3152,
    ("2 flows 4Mbps", "Paced", "(0,1)"): -0.1839,
    ("2 flows 4Mbps", "Randomized", "(0,1)"): 0.1604,
    ("2 flows 5Mbps", "Reno", "(0,1)"): 0.6700,
    ("2 flows 5Mbps", "Paced", "(0,1)"): -0.3302,
    ("2 flows 5Mbps", "Randomized", "(0,1)"): 0.0799,
    ("3 flows 4Mbps", "Reno", "(0,1)"): 0.5183,
    ("3 flows 4Mbps", "Paced", "(0,1)"): -0.1454,
    ("3 flows 4Mbps", "Randomized", "(0,1)"): 0.2525,
    ("3 flows 4Mbps", "Reno", "(0,2)"): 0.5416,
    ("3 flows 4Mbps", "Paced", "(0,2)"): -0.1537,
    ("3 flows 4Mbps", "Randomized", "(0,2)"): 0.1422,
    # The OCR's "(1,4)" row of Table VII, read as the third pair of 3 flows (see assumptions).
    ("3 flows 4Mbps", "Reno", "(1,2)"): 0.3492,
    ("3 flows 4Mbps", "Paced", "(1,2)"): -0.1833,
    ("3 flows 4Mbps", "Randomized", "(1,2)"): 0.1535,
}


def _r9_sweeps(s: Settings) -> list[dict[str, Any]]:
    duration = s.pick("1000s", "120s")
    trace = {"sample_interval": "100ms"}
    seeds = s.seeds(5, 3)
    two = [{"cc": "reno", "rtt": "100ms", "count": 2}]
    sweeps = [
        _sweep(
            "two",
            _scenario("3Mbps", two, duration=duration, delay="40ms", trace=trace),
            seeds,
            axes={
                "topology.bottleneck_rate": s.pick(["3Mbps", "4Mbps", "5Mbps"], ["3Mbps", "5Mbps"])
            },
            compare=_THREE,
        ),
    ]
    for n in s.pick([3, 10, 25], [3]):
        flows = [{"cc": "reno", "rtt": "100ms", "count": n}]
        sweeps.append(
            _sweep(
                f"n{n}",
                _scenario("4Mbps", flows, duration=duration, delay="40ms", trace=trace),
                seeds,
                compare=_THREE,
            )
        )
    return sweeps


def _r9_analyse(c: Context) -> pd.DataFrame:
    records = []
    warmup = 10.0
    # Fig. 10: every pair's correlation (mean over seeds) for the cases with more than 3 flows.
    many: list[dict[str, Any]] = []
    for name in c.results:
        for point, load in c.points(name):
            config = _config(point, _THREE_NAMES)
            if config is None:
                continue
            pairs = metrics.cwnd_correlation_pairs(load("series"), warmup_s=warmup)
            if name == "two":
                case = f"2 flows {point['bottleneck_rate']}"
            else:
                case = f"{name[1:]} flows 4Mbps"
            base = {"case": case, "tcp": config}
            if len(pairs) <= 3:
                for _, p in pairs.iterrows():
                    records.append(
                        base
                        | {
                            "metric": f"({int(p.flow_a)},{int(p.flow_b)})",
                            "value": p.correlation,
                        }
                    )
            else:
                corr = pairs["correlation"]
                many += [
                    base | {"pair": f"({int(p.flow_a)},{int(p.flow_b)})", "value": p.correlation}
                    for _, p in pairs.iterrows()
                ]
                for metric, v in (
                    ("share of pairs > 0", float((corr > 0).mean())),
                    ("mean |pair|", float(corr.abs().mean())),
                    ("min pair", float(corr.min())),
                    ("max pair", float(corr.max())),
                ):
                    records.append(base | {"metric": metric, "value": v})
            records.append(
                base | {"metric": "mean pair", "value": float(pairs["correlation"].mean())}
            )
    if many:
        _r9_pairs_figure(c, pd.DataFrame(many))
    return summarise(records, ["case", "tcp"], _R9_PUBLISHED)


def _r9_pairs_figure(c: Context, pairs: pd.DataFrame) -> None:
    """``R9-pairs.png`` next to the study's files: Fig. 10 as the paper draws it, the
    correlation of every pair (mean over seeds) against the pair's index in the order (0,1),
    (0,2), ..., (1,2), ..., one panel per number of flows, a line per algorithm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    store = next(r for r in c.results.values() if r is not None).store
    path = store.root.parent.parent / "R9-pairs.png"
    cases = list(dict.fromkeys(pairs["case"]))
    figure, axes = plt.subplots(len(cases), 1, figsize=(11, 3.6 * len(cases)), squeeze=False)
    for ax, case in zip(axes[:, 0], cases, strict=True):
        rows = pairs[pairs["case"] == case]
        order = list(dict.fromkeys(rows["pair"]))
        for tcp, group in rows.groupby("tcp", sort=False):
            mean = group.groupby("pair")["value"].mean().reindex(order)
            ax.plot(range(len(order)), mean.to_numpy(), lw=0.9, label=str(tcp))
        ax.axhline(0, color="grey", lw=0.6)
        ax.set_title(f"{case}: cwnd correlation per pair (Fig. 10)", fontsize=10)
        ax.set_xlabel("pair index ((0,1), (0,2), ..., (1,2), ...)")
        ax.set_ylabel("correlation")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    c.notes.append(f"R9: per-pair figure (Fig. 10) {path}")


def _r9_wide(table: pd.DataFrame, metric: str = "mean pair") -> pd.DataFrame | None:
    """Our values of one metric per case (rows) and algorithm (columns); None unless all three
    algorithms ran in every case."""
    rows = table[(table["metric"] == metric) & (table["runs"] > 0)]
    wide = rows.pivot_table(index="case", columns="tcp", values="ours")
    if (
        any(t not in wide for t in ("Reno", "Paced", "Randomized"))
        or wide.isna().any().any()
        or wide.empty
    ):
        return None
    return wide


def _r9_reno(table: pd.DataFrame) -> list[Check]:
    wide = _r9_wide(table)
    if wide is None:
        return [Check("Reno, Paced and Randomized all run in every case", None)]
    reno = wide["Reno"]
    return [
        Check(
            f"Reno > 0.1 in every case (min {reno.min():.2f}; reversed: < -0.1 in every case)",
            bool(reno.min() > 0.1),
            reversed=bool(reno.max() < -0.1),
        )
    ]


def _r9_paced(table: pd.DataFrame) -> list[Check]:
    wide = _r9_wide(table)
    if wide is None:
        return [Check("Reno, Paced and Randomized all run in every case", None)]
    paced = wide["Paced"]
    negative, positive = (paced < 0).mean(), (paced > 0).mean()
    return [
        Check(
            f"Paced < 0 in >= 2/3 of the cases ({negative:.0%}; max {paced.max():.2f}; "
            f"reversed: > 0 in >= 2/3, here {positive:.0%})",
            bool(negative >= 2 / 3),
            reversed=bool(negative < 2 / 3 and positive >= 2 / 3),
        )
    ]


def _r9_tabulated(table: pd.DataFrame) -> pd.DataFrame:
    """Our per-pair values of the pairs Tables VI and VII give (case x pair rows, algorithm
    columns)."""
    rows = table[
        table["metric"].str.startswith("(") & table["published"].notna() & (table["runs"] > 0)
    ]
    return rows.pivot_table(index=["case", "metric"], columns="tcp", values="ours")


def _r9_randomized(table: pd.DataFrame) -> list[Check]:
    """Tables VI-VII: Randomized's correlation is small and positive (+0.08..+0.25), below
    Reno's, in every tabulated case."""
    wide = _r9_tabulated(table)
    if wide.empty or any(t not in wide for t in ("Reno", "Randomized")):
        return [Check("Reno and Randomized run in the tabulated cases", None)]
    rand, reno = wide["Randomized"], wide["Reno"]
    inside = ((rand > 0) & (rand < reno)).mean()
    negative = (rand < 0).mean()
    return [
        Check(
            f"Randomized positive and below Reno at every tabulated pair ({inside:.0%} of "
            f"{len(rand)}; range {rand.min():.2f}..{rand.max():.2f}, published "
            f"+0.08..+0.25; reversed: negative at every one)",
            bool(inside == 1.0),
            reversed=bool(negative == 1.0),
        )
    ]


def _r9_many(table: pd.DataFrame) -> list[Check]:
    """Fig. 10 (10 and 25 flows): Reno highly synchronized, Paced and Randomized break it, and
    Randomized gets better than Paced as flows increase."""
    checks = []
    for n in (10, 25):
        case = f"{n} flows 4Mbps"
        reno = value(table, "mean pair", case=case, tcp="Reno")
        paced = value(table, "mean pair", case=case, tcp="Paced")
        rand = value(table, "mean pair", case=case, tcp="Randomized")
        checks.append(
            check(
                f"{n} flows: Reno's mean pair {reno:.2f} above Paced's {paced:.2f} and "
                f"Randomized's {rand:.2f} by > 0.1 (reversed: below both by > 0.1)",
                reno,
                paced,
                rand,
                test=lambda r, p, x: r > max(p, x) + 0.1,
                reverse=lambda r, p, x: r < min(p, x) - 0.1,
            )
        )
    paced = value(table, "mean |pair|", case="25 flows 4Mbps", tcp="Paced")
    rand = value(table, "mean |pair|", case="25 flows 4Mbps", tcp="Randomized")
    checks.append(
        check(
            f"25 flows: Randomized closer to zero than Paced (mean |pair| {rand:.3f} < "
            f"{paced:.3f}; reversed: further)",
            paced,
            rand,
            test=lambda p, x: x < p,
            reverse=lambda p, x: x > p,
        )
    )
    return checks


R9 = Study(
    id="R9",
    slug="synchronization",
    title="Synchronization of bulk flows (Tables VI, VII, Fig. 10)",
    source=f"{SOURCE}, Tables VI-VII, Fig. 10",
    setup="Dumbbell, RTT 100 ms, buffer 25 packets (1/4 BDP at 4 Mbps), 1000 s, cwnd sampled "
    "every 0.1 s; Pearson correlation of cwnd series per pair; 2 flows at 3/4/5 Mbps, 3, 10 "
    "and 25 flows at 4 Mbps; Fig. 10's per-pair curves in R9-pairs.png.",
    warmup="10 s: the first 10 s of the cwnd series (slow start) are left out of the correlation",
    assumptions=(
        *COMMON,
        (
            "the paper's 'covariance coefficient' is the Pearson correlation (its text defines it "
            "as normalized covariance); the first 10 s are left out (slow start)"
        ),
        "pairs are numbered from 0: the paper's (1,2) is (0,1)",
        (
            "Table VII (3 flows) lists pairs (1,2), (1,3) and, in the OCR, '(1,4)', which 3 flows "
            "do not have; read as the third pair (2,3), ours (1,2)"
        ),
    ),
    sweeps=_r9_sweeps,
    analyse=_r9_analyse,
    claims=(
        Claim(
            "Reno's windows are synchronized (positive correlation)",
            "mean pairwise correlation > 0.1 in every case; reversed if < -0.1 in every case",
            _r9_reno,
        ),
        Claim(
            "Paced TCP is out of phase (negative correlation)",
            "mean pairwise correlation < 0 in at least 2/3 of the cases; reversed if > 0 in at "
            "least 2/3",
            _r9_paced,
        ),
        Claim(
            "Randomized keeps the synchronization low but positive, below Reno's "
            "(Tables VI-VII: +0.08..+0.25)",
            "every pair the tables give: 0 < Randomized < Reno; reversed if Randomized < 0 at "
            "every one",
            _r9_randomized,
        ),
        Claim(
            "Fig. 10: with 10 and 25 flows Reno stays synchronized while Paced and Randomized "
            "break it; Randomized gets better than Paced as flows increase",
            "10 and 25 flows: Reno's mean pair > both others' + 0.1 (reversed: < both - 0.1); "
            "25 flows: Randomized's mean |pair| below Paced's (reversed: above)",
            _r9_many,
        ),
    ),
    figure=FigureSpec("cwnd correlation by pair"),
    algorithms=("reno", "paced", "randomized"),
)


# ---- R11: burst losses -------------------------------------------------------------------------

_R11_PUBLISHED = {
    ("1Mbps", 20, "Reno"): 87,
    ("1Mbps", 20, "Randomized"): 23,
    ("1Mbps", 25, "Reno"): 119,
    ("1Mbps", 25, "Randomized"): 18,
    ("1Mbps", 30, "Reno"): 141,
    ("1Mbps", 30, "Randomized"): 15,
    ("2Mbps", 20, "Reno"): 1,
    ("2Mbps", 20, "Randomized"): 27,
    ("2Mbps", 25, "Reno"): 100,
    ("2Mbps", 25, "Randomized"): 31,
    ("2Mbps", 30, "Reno"): 168,
    ("2Mbps", 30, "Randomized"): 28,
}


def _r11_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [{"cc": "reno", "rtt": "200ms", "count": 20}]
    return [
        _sweep(
            "bursts",
            _scenario(
                "1Mbps",
                flows,
                duration=s.pick("100s", "30s"),
                delay="80ms",
                trace={"drops": True},
            ),
            s.seeds(3, 1),
            axes={
                "topology.bottleneck_rate": s.pick(["1Mbps", "2Mbps"], ["1Mbps"]),
                "flows.0.count": s.pick([20, 25, 30], [20, 30]),
            },
            compare={"algorithms": ["reno", RANDOMIZED], "baseline": "reno"},
        ),
    ]


def _r11_analyse(c: Context) -> pd.DataFrame:
    names = {("reno", "all"): "Reno", ("randomized", "all"): "Randomized"}
    records = []
    for point, load in c.points("bursts"):
        config = _config(point, names)
        if config is None:
            continue
        bursts = metrics.burst_losses(load("drops"), load("flows"))
        key = {
            "rate": point["bottleneck_rate"],
            "flows": int(point["count"]),
            "tcp": config,
        }
        records.append(key | {"metric": "burst losses", "value": float(bursts["bursts"].sum())})
        records.append(key | {"metric": "drops", "value": float(point["drops"])})
        records.append(
            key
            | {
                "metric": "back-to-back drops",
                "value": float(_back_to_back(load("drops"))),
            }
        )
    published = {(*k, "burst losses"): v for k, v in _R11_PUBLISHED.items()}
    return summarise(records, ["rate", "flows", "tcp"], published)


def _back_to_back(drops: pd.DataFrame) -> int:
    """Drops of a segment right after the flow's previous segment was dropped at the same
    queue (consecutive sequence numbers): the paper's "back-to-back losses", shown beside the
    episode-based count that studies.md asks for."""
    data = drops[(drops["is_ack"] == 0) & drops["kind"].isin(list(metrics.QUEUE_DROP_KINDS))]
    data = data.sort_values(["link", "flow", "t_s"], kind="stable")
    previous = data.groupby(["link", "flow"])["seq"].shift()
    return int(((data["seq"].astype(float) - previous) == 1).sum())


def _r11_claims(table: pd.DataFrame) -> list[Check]:
    rows = table[table["metric"] == "burst losses"]
    wide = rows.pivot_table(index=["rate", "flows"], columns="tcp", values="ours")
    if "Reno" not in wide or "Randomized" not in wide or wide.isna().any().any():
        return [Check("Reno and Randomized both run", None)]
    ratio = wide["Reno"] / wide["Randomized"].clip(lower=1)
    largest = wide.index.get_level_values("flows").max()
    at_most = ratio[wide.index.get_level_values("flows") == largest]
    inverse = wide["Randomized"] / wide["Reno"].clip(lower=1)
    inverse_most = inverse[wide.index.get_level_values("flows") == largest]
    return [
        Check(
            f"Reno >= 3x Randomized's burst losses at the largest N ({largest}): "
            f"{', '.join(f'{r:.1f}x' for r in at_most)} (reversed: Randomized >= 3x Reno's)",
            bool((at_most >= 3).all()),
            reversed=bool(not (at_most >= 3).all() and (inverse_most >= 3).all()),
        ),
        Check(
            f"Reno > Randomized at every point (ratios {', '.join(f'{r:.1f}' for r in ratio)}"
            f"; reversed: Randomized > Reno at every point)",
            bool((ratio > 1).all()),
            reversed=bool((wide["Randomized"] > wide["Reno"]).all()),
        ),
    ]


R11 = Study(
    id="R11",
    slug="burst-losses",
    title="Burst losses (Table VIII)",
    source=f"{SOURCE}, Table VIII",
    setup="Dumbbell 1 and 2 Mbps, 20/25/30 flows, RTT 200 ms, buffer 25 packets; burst loss = "
    "more than one drop of a flow in one loss episode (drops of one flow at one queue less than "
    "one RTT apart).",
    warmup="none: every drop of the run counts (flows start in the first second)",
    assumptions=(
        *COMMON,
        "'end-to-end propagation 200 ms' read as the base RTT; 100 s runs",
        (
            "the 'average number of burst losses' is the total over all flows of one run, averaged "
            "over seeds (the paper does not say over what it averages)"
        ),
        "one RTT = the flow's measured mean RTT (queueing included)",
    ),
    sweeps=_r11_sweeps,
    analyse=_r11_analyse,
    claims=(
        Claim(
            "Reno has several times more burst losses than Randomized as flows increase",
            "burst losses Reno / Randomized >= 3 at the largest N of each rate, and > 1 at "
            "every point; reversed: the same with Reno and Randomized swapped",
            _r11_claims,
        ),
    ),
    figure=FigureSpec("burst losses", x="flows", hue="tcp", xlabel="flows"),
    algorithms=("reno", "randomized"),
)


# ---- R12: binomial schemes ---------------------------------------------------------------------


def _r12_sweeps(s: Settings) -> list[dict[str, Any]]:
    flows = [{"cc": "reno", "rtt": "100ms"}, {"cc": "reno", "rtt": "100ms"}]
    # Two flows on 1 Mb/s cost little: quick keeps the full length and drops seeds, since
    # 40 s runs swing too much with start times to say anything.
    duration, seeds = "200s", s.seeds(5, 3)
    plain = {"algorithms": ["iiad", "sqrt"], "mixtures": ["one"], "baseline": "reno"}
    randomized = {
        "algorithms": [
            {"name": "iiad-rand", "cc": "iiad", "params": {"randomize": True}},
            {"name": "sqrt-rand", "cc": "sqrt", "params": {"randomize": True}},
        ],
        "mixtures": ["one"],
        "baseline": RANDOMIZED,
    }
    rflows = [{**f, "cc": "randomized"} for f in flows]
    return [
        _sweep(
            "plain",
            _scenario("1Mbps", flows, duration=duration, delay="40ms"),
            seeds,
            compare=plain,
        ),
        _sweep(
            "randomized",
            _scenario("1Mbps", rflows, duration=duration, delay="40ms"),
            seeds,
            compare=randomized,
        ),
    ]


def _r12_analyse(c: Context) -> pd.DataFrame:
    names = {
        ("iiad", "one"): "IIAD vs Reno",
        ("sqrt", "one"): "SQRT vs Reno",
        ("iiad-rand", "one"): "rand IIAD vs Randomized",
        ("sqrt-rand", "one"): "rand SQRT vs Randomized",
    }
    records = []
    for sweep in ("plain", "randomized"):
        for point, load in c.points(sweep):
            config = _config(point, names)
            if config is None:
                continue
            x = load("flows").sort_values("flow")["goodput_bps"].to_numpy()
            records += [
                {"config": config, "metric": "binomial Kbps", "value": _kbps(x[0])},
                {"config": config, "metric": "TCP Kbps", "value": _kbps(x[1])},
                {"config": config, "metric": "Jain", "value": metrics.jain_index(x)},
                # Jain's index of two flows cannot fall below 0.5 and a 1:2 split still scores
                # 0.9, so the smaller/larger throughput ratio is what the verdict reads.
                {
                    "config": config,
                    "metric": "min/max",
                    "value": float(x.min() / x.max()),
                },
            ]
    return summarise(records, ["config"])


def _r12_beat_down(table: pd.DataFrame) -> list[Check]:
    """[3] via the paper: IIAD and SQRT beat down TCP on DropTail (Fig. 12 a, c)."""
    checks = []
    for scheme in ("IIAD", "SQRT"):
        config = f"{scheme} vs Reno"
        binomial = value(table, "binomial Kbps", config=config)
        tcp = value(table, "TCP Kbps", config=config)
        checks.append(
            check(
                f"{scheme} beats Reno down: Reno/{scheme} throughput {tcp / binomial:.2f} "
                f"(need < 0.8; reversed if {scheme}/Reno {binomial / tcp:.2f} < 0.8)",
                binomial,
                tcp,
                test=lambda b, t: t / b < 0.8,
                reverse=lambda b, t: b / t < 0.8,
            )
        )
    return checks


def _r12_fairer(table: pd.DataFrame) -> list[Check]:
    checks = []
    for scheme in ("IIAD", "SQRT"):
        plain = value(table, "min/max", config=f"{scheme} vs Reno")
        rand = value(table, "min/max", config=f"rand {scheme} vs Randomized")
        checks.append(
            check(
                f"{scheme}: randomized pair fairer, min/max {rand:.2f} >= plain {plain:.2f} "
                f"+ 0.1 (reversed: <= plain - 0.1)",
                plain,
                rand,
                test=lambda a, b: b >= a + 0.1,
                reverse=lambda a, b: b <= a - 0.1,
            )
        )
    return checks


R12 = Study(
    id="R12",
    slug="binomial",
    title="Binomial schemes (Fig. 12)",
    source=f"{SOURCE}, Fig. 12",
    setup="Dumbbell 1 Mbps, RTT 100 ms, DropTail 25 packets; IIAD (k=1, l=0) vs Reno and SQRT "
    "(k=l=0.5) vs Reno, then randomized IIAD / SQRT vs Randomized TCP; one flow each.",
    warmup="none: each flow's goodput over its whole 200 s run (flows start in the first second)",
    assumptions=(
        *COMMON,
        (
            "200 s runs; fairness read as the ratio of the smaller to the larger of the two flows' "
            "throughputs (the paper shows throughput curves, Fig. 12, without a number); Jain's "
            "index is reported too"
        ),
    ),
    sweeps=_r12_sweeps,
    analyse=_r12_analyse,
    claims=(
        Claim(
            "IIAD and SQRT beat down TCP when sharing a DropTail gateway",
            "for each scheme: TCP's throughput / the binomial flow's < 0.8; reversed for a "
            "scheme whose own throughput / TCP's < 0.8 (TCP beats it)",
            _r12_beat_down,
        ),
        Claim(
            "Randomized binomial schemes competing with Randomized TCP are markedly fairer",
            "for each scheme: smaller/larger throughput of the randomized pair at least 0.1 "
            "above the plain pair's; reversed if 0.1 below",
            _r12_fairer,
        ),
    ),
    figure=FigureSpec("binomial schemes against TCP"),
    algorithms=("iiad", "sqrt", "randomized"),
)


# ---- R13: Floyd-Jacobson phase effects ---------------------------------------------------------


def _r13_sweeps(s: Settings) -> list[dict[str, Any]]:
    ratios = s.pick([round(1.0 + 0.05 * k, 2) for k in range(25)], [1.0, 1.5, 1.9, 2.0, 2.2])
    # RTT_i = 2 (d_i + 100 ms) (access delay d_i, gateway-sink 100 ms; acks return the same
    # way), so RTT1/RTT2 = r needs d1 = r (5 + 100) - 100 ms.
    delays = [f"{max(0.0, r * 105 - 100):.2f}ms" for r in ratios]
    scenario = {
        "name": "study",
        "seed": 1,
        "duration": s.pick("100s", "60s"),
        "topology": {
            "kind": "explicit",
            "nodes": ["s1", "s2", "gw", "sink"],
            "links": [
                {
                    "src": "s1",
                    "dst": "gw",
                    "rate": "8Mbps",
                    "delay": "5ms",
                    "buffer": "10000pkts",
                },
                {
                    "src": "s2",
                    "dst": "gw",
                    "rate": "8Mbps",
                    "delay": "5ms",
                    "buffer": "10000pkts",
                },
                {
                    "src": "gw",
                    "dst": "sink",
                    "rate": "800Kbps",
                    "delay": "100ms",
                    "buffer": "15pkts",
                    "monitor": True,
                },
            ],
        },
        "flows": [
            {
                "cc": "reno",
                "src": "s1",
                "dst": "sink",
                "mss": 1000,
                "label": "source 1",
                "start_jitter": "1s",
            },
            {
                "cc": "reno",
                "src": "s2",
                "dst": "sink",
                "mss": 1000,
                "label": "source 2",
                "start_jitter": "1s",
            },
        ],
        "trace": {"drops": True, "sample_interval": "500ms"},
    }
    return [
        _sweep(
            "fj",
            scenario,
            s.seeds(3, 1),
            axes={"topology.links.0.delay": {"name": "delay1", "values": delays}},
            compare={"algorithms": ["reno", RANDOMIZED], "baseline": "reno"},
        ),
        _sweep(
            "fj-multi",
            _r13_multi_scenario(s.pick("100s", "60s")),
            s.seeds(3, 1),
            axes={
                "topology.links.0.delay": {
                    "name": "delay1",
                    "values": s.pick(delays, [delays[0], delays[2], delays[4]]),
                }
            },
            compare={"algorithms": ["reno", RANDOMIZED], "baseline": "reno"},
        ),
    ]


def _r13_multi_scenario(duration: str) -> dict[str, Any]:
    """Fig. 15 as we read it (the figure did not survive the OCR; every choice is an assumption
    printed with the study): Fig. 13's sources 1 and 2 (8 Mbps access, source 2 at 5 ms, source
    1's delay swept) into gateway 1; bottleneck 1 gateway 1 -> gateway 2 and bottleneck 2
    gateway 2 -> sink, both 800 Kbps / 50 ms / 15 packets (the single bottleneck's 100 ms split
    in two, so RTT2 stays 210 ms); source 3 joins at gateway 2 (8 Mbps / 5 ms, RTT 110 ms) and
    shares bottleneck 2 only."""

    def link(src: str, dst: str, rate: str, delay: str, buffer: str) -> dict[str, Any]:
        return {"src": src, "dst": dst, "rate": rate, "delay": delay, "buffer": buffer}

    links = [
        link("s1", "gw1", "8Mbps", "5ms", "10000pkts"),
        link("s2", "gw1", "8Mbps", "5ms", "10000pkts"),
        link("s3", "gw2", "8Mbps", "5ms", "10000pkts"),
        link("gw1", "gw2", "800Kbps", "50ms", "15pkts") | {"monitor": True},
        link("gw2", "sink", "800Kbps", "50ms", "15pkts") | {"monitor": True},
    ]
    flows = [
        {
            "cc": "reno",
            "src": f"s{i}",
            "dst": "sink",
            "mss": 1000,
            "label": f"source {i}",
            "start_jitter": "1s",
        }
        for i in (1, 2, 3)
    ]
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "explicit",
            "nodes": ["s1", "s2", "s3", "gw1", "gw2", "sink"],
            "links": links,
        },
        "flows": flows,
        "trace": {"drops": True, "sample_interval": "500ms"},
    }


def _r13_analyse(c: Context) -> pd.DataFrame:
    names = {("reno", "all"): "Reno", ("randomized", "all"): "Randomized"}
    records = []
    for point, load in c.points("fj"):
        config = _config(point, names)
        if config is None:
            continue
        flows, drops, series = load("flows"), load("drops"), load("series")
        end = float(flows["end_s"].max())
        since = end - 50.0  # the last 50 s, as the paper averages
        late = series[series["t_s"] >= since]
        rate = late.groupby("flow")["rate_bps"].mean()
        bottleneck = int(load("links").set_index(["src", "dst"]).loc[("gw", "sink"), "link"])
        lost = (
            drops[(drops["t_s"] >= since) & (drops["link"] == bottleneck) & (drops["is_ack"] == 0)]
            .groupby("flow")
            .size()
        )
        d1 = float(str(point["delay1"]).removesuffix("ms"))
        ratio = round((d1 + 100) / 105, 2)
        total_drops = lost.sum()
        records += [
            {
                "ratio": ratio,
                "tcp": config,
                "metric": "source 2 throughput share",
                "value": float(rate.get(1, 0.0) / rate.sum()) if rate.sum() else math.nan,
            },
            {
                "ratio": ratio,
                "tcp": config,
                "metric": "source 2 drop share",
                "value": float(lost.get(1, 0) / total_drops) if total_drops else math.nan,
            },
        ]
    records += _r13_multi_records(c, names)
    return summarise(records, ["ratio", "tcp"])


def _r13_multi_records(c: Context, names: Mapping[tuple[str, str], str]) -> list[dict[str, Any]]:
    """Fig. 16's quantities: source 3's share of bottleneck 2's drops and throughput, and (to
    show where the losses are) bottleneck 1's share of all bottleneck drops."""
    records = []
    for point, load in c.points("fj-multi"):
        config = _config(point, names)
        if config is None:
            continue
        flows, drops, series = load("flows"), load("drops"), load("series")
        since = float(flows["end_s"].max()) - 50.0
        rate = series[series["t_s"] >= since].groupby("flow")["rate_bps"].mean()
        ids = load("links").set_index(["src", "dst"])["link"]
        late = drops[(drops["t_s"] >= since) & (drops["is_ack"] == 0)]
        at2 = late[late["link"] == int(ids.loc[("gw2", "sink")])].groupby("flow").size()
        at1 = int((late["link"] == int(ids.loc[("gw1", "gw2")])).sum())
        d1 = float(str(point["delay1"]).removesuffix("ms"))
        ratio = round((d1 + 100) / 105, 2)
        values = {
            "multi: source 3 drop share at bottleneck 2": at2.get(2, 0) / at2.sum()
            if at2.sum()
            else math.nan,
            "multi: source 3 throughput share": rate.get(2, 0.0) / rate.sum()
            if rate.sum()
            else math.nan,
            "multi: bottleneck 1 share of drops": at1 / (at1 + at2.sum())
            if at1 + at2.sum()
            else math.nan,
        }
        records += [
            {"ratio": ratio, "tcp": config, "metric": m, "value": float(v)}
            for m, v in values.items()
        ]
    return records


def _r13_multi_claims(table: pd.DataFrame) -> list[Check]:
    share = table[table["metric"] == "multi: source 3 drop share at bottleneck 2"]
    reno = share[share["tcp"] == "Reno"]["ours"].dropna()
    rand = share[share["tcp"] == "Randomized"]["ours"].dropna()
    if reno.empty or rand.empty:
        return [Check("Reno and Randomized both run on two bottlenecks", None)]
    return [
        Check(
            f"Reno: source 3 takes most of bottleneck 2's losses (mean share over ratios "
            f"{reno.mean():.2f} > 0.6; published about 0.8; reversed: < 0.4)",
            bool(reno.mean() > 0.6),
            reversed=bool(reno.mean() < 0.4),
        ),
        Check(
            f"Randomized: considerably less (mean {rand.mean():.2f} at least 0.2 below "
            f"Reno's {reno.mean():.2f}; published about 0.4; reversed: 0.2 above)",
            bool(rand.mean() <= reno.mean() - 0.2),
            reversed=bool(rand.mean() >= reno.mean() + 0.2),
        ),
    ]


def _r13_claims(table: pd.DataFrame) -> list[Check]:
    share = table[table["metric"] == "source 2 drop share"]
    reno = share[share["tcp"] == "Reno"].set_index("ratio")["ours"].dropna()
    rand = share[share["tcp"] == "Randomized"].set_index("ratio")["ours"].dropna()
    if reno.empty or rand.empty:
        return [Check("Reno and Randomized both run", None)]
    spikes = reno[reno > 0.6]
    return [
        Check(
            f"Reno: source 2 takes most losses (> 60%) at some ratios "
            f"({', '.join(f'{r:g}' for r in spikes.index) or 'none'}) and little (< 20%) at "
            f"others (min {reno.min():.2f})",
            bool(len(spikes) and reno.min() < 0.2),
        ),
        Check(
            f"Randomized: no such spike (max source 2 drop share {rand.max():.2f} <= 0.6)",
            bool(rand.max() <= 0.6),
        ),
    ]


R13 = Study(
    id="R13",
    slug="floyd-jacobson",
    title="Floyd-Jacobson phase effects (Fig. 13-16)",
    source=f"{SOURCE}, Fig. 13-16",
    setup="Two sources on 8 Mbps access links (source 2: 5 ms) into a gateway, gateway to sink "
    "800 Kbps / 100 ms, DropTail 15 packets, 1000 B packets; source 1's access delay swept so "
    "that RTT1/RTT2 spans 1 to 2.2; shares over the last 50 s of each 100 s run. Multiple "
    "bottlenecks (Fig. 15-16): the same two sources cross two 800 Kbps bottlenecks in a row, a "
    "third source joins at the second; source 3's share of the second bottleneck's drops.",
    warmup="50 s of each 100 s run (quick: 10 s of 60 s): the shares are those of the last 50 s",
    assumptions=(
        *COMMON[1:],
        "packets of 1000 B read as ns-2 packetSize_ 1000 (ccsim mss = 1000: 1040 B on the wire)",
        "'Randomized' runs both sources Randomized",
        "throughput over the last 50 s = mean of the sampled delivery rate (every 0.5 s)",
        (
            "Fig. 15 (lost in the OCR) read as: sources 1, 2 as in Fig. 13 into gateway 1; "
            "bottlenecks gateway 1 -> gateway 2 and gateway 2 -> sink, each 800 Kbps / 50 ms / 15 "
            "packets (Fig. 13's 100 ms split in two, RTT2 = 210 ms); source 3 on 8 Mbps / 5 ms into "
            "gateway 2 (RTT3 110 ms), crossing bottleneck 2 only; source 1's access delay swept as "
            "in Fig. 13; all three sources Reno, then all three Randomized"
        ),
    ),
    sweeps=_r13_sweeps,
    analyse=_r13_analyse,
    claims=(
        Claim(
            "With Reno, source 2 sees almost no loss except at some RTT ratios where it takes "
            "most losses; with Randomized no such spikes",
            "Reno: source 2's drop share > 0.6 at one ratio or more and < 0.2 at another; "
            "Randomized: <= 0.6 at every ratio (no direction to reverse: a spike is there or "
            "not)",
            _r13_claims,
        ),
        Claim(
            "Multiple bottlenecks: source 3 sees about 80% of the second bottleneck's losses "
            "with Reno, about 40% with Randomized",
            "mean over RTT ratios of source 3's share of bottleneck 2's drops: Reno > 0.6 "
            "(reversed: < 0.4); Randomized at least 0.2 lower (reversed: 0.2 higher)",
            _r13_multi_claims,
        ),
    ),
    figure=FigureSpec("source 2's shares vs RTT ratio", x="ratio", hue="tcp", xlabel="RTT1 / RTT2"),
    algorithms=("reno", "randomized"),
)


STUDIES: tuple[Study, ...] = (R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13)
