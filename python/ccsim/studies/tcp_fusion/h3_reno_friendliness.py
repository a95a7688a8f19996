"""H3: friendliness towards Reno."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ccsim.studies.core import (
    CORRELATION,
    NONNEGATIVE,
    UNIT,
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
)
from ccsim.studies.tcp_fusion.common import ACCESS_BUFFER, MSS, PROPOSAL, RTT, SOURCE
from ccsim.studies.tcp_fusion.h2_rtt_fairness import (
    RED,
    START_JITTER,
    late_goodput_mbps,
    rank_correlation,
)

# ---- H3: a 40 ms Reno flow against one Reno / Fusion / proposal flow of swept RTT, RED ------------

H3_COMPETITORS = ("reno", "fusion", PROPOSAL)
H3_RTTS_MS = (20, 40, 60, 80, 100, 140, 200)
H3_QUICK_RTTS_MS = (20, 40, 100, 200)
RENO_GOODPUT = "Reno (40 ms) goodput Mb/s"
OTHER_GOODPUT = "competitor goodput Mb/s"
RENO_SHARE = "Reno (40 ms) share"

H3_ASSUME = (
    "ns2 profile with SACK recovery, MSS 1000 B, as H1",
    (
        "Fig. 2 dumbbell, 100 Mb/s 1 ms bottleneck, buffer 1 BDP at 40 ms (481 packets), "
        "access links 1 Gb/s with ns-2's default DropTail queues (limit_ 50: 49 waiting), "
        "RED as H2 (ns-2's automatic configuration)"
    ),
    "competitor RTTs 20, 40, 60, 80, 100, 140, 200 ms (quick: 20, 40, 100, 200)",
    (
        "both flows start at random times in [0, 5 s); runs of 120 s (quick: 40 s), goodput "
        "after a 20 s warm-up (quick: 10 s); 5 seeds, up to 20 while a check is inconclusive (quick: 3)"
    ),
)


def _h3_plan(s: Settings) -> dict[str, Any]:
    return {
        "rtts": s.pick(H3_RTTS_MS, H3_QUICK_RTTS_MS),
        "duration": s.pick("120s", "40s"),
        "warmup": s.pick(20.0, 10.0),
        "seeds": s.seeds(5, 3),
    }


def h3_scenario(competitor: str, rtt_ms: int, duration: str) -> dict[str, Any]:
    """A 40 ms Reno flow and one ``competitor`` flow at ``rtt_ms``, RED, BDP buffer at 40 ms."""
    topology = {
        "kind": "dumbbell",
        "bottleneck_rate": "100Mbps",
        "bottleneck_delay": "1ms",
        "access_rate": "1Gbps",
        "access_buffer": ACCESS_BUFFER,
        "buffer": "1bdp",
        "bdp_rtt": RTT,
        "queue": "red",
        "red": dict(RED),
    }
    flow = {"mss": MSS, "start_jitter": START_JITTER}
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": topology,
        "stack": {"sack": True},
        "trace": {"sample_interval": "1s"},
        "flows": [
            {"cc": "reno", "rtt": RTT, "label": "reno 40 ms", **flow},
            {"cc": competitor, "rtt": f"{rtt_ms}ms", "label": competitor, **flow},
        ],
    }


def h3_sweeps(s: Settings) -> list[dict[str, Any]]:
    plan = _h3_plan(s)
    return [
        {
            "name": competitor,
            "scenario": h3_scenario(competitor, plan["rtts"][0], plan["duration"]),
            "seeds": plan["seeds"],
            "axes": {"flows.1.rtt": [f"{r}ms" for r in plan["rtts"]]},
        }
        for competitor in H3_COMPETITORS
    ]


def _h3_analyse(c: Context) -> pd.DataFrame:
    warmup = _h3_plan(c.settings)["warmup"]
    records: list[dict[str, Any]] = []
    for sweep in c.results:
        if c.results[sweep] is None:
            continue
        for point, load in c.points(sweep):
            rtt_ms = float(str(point["rtt"]).removesuffix("ms"))
            reno, other = late_goodput_mbps(load("series"), 2, warmup)
            key = {"competitor": sweep, "rtt_ms": rtt_ms, "seed": int(point["seed"])}
            share = reno / (reno + other) if reno + other > 0 else math.nan
            for metric, number in (
                (RENO_GOODPUT, reno),
                (OTHER_GOODPUT, other),
                (RENO_SHARE, share),
            ):
                records.append(key | {"metric": metric, "value": number})
    bounds = {RENO_GOODPUT: NONNEGATIVE, OTHER_GOODPUT: NONNEGATIVE, RENO_SHARE: UNIT}
    table = summarise(records, ["competitor", "rtt_ms"], bounds=bounds)
    if len(table):
        table = table.sort_values(["metric", "competitor", "rtt_ms"], kind="stable")
        table = table.reset_index(drop=True)
    return table


def _rtts(table: pd.DataFrame, competitor: str) -> list[float]:
    """The competitor RTTs run, ascending."""
    rows = table[(table["metric"] == OTHER_GOODPUT) & (table["competitor"] == competitor)]
    return sorted(float(r) for r in rows[rows["runs"] > 0]["rtt_ms"])


def _h3(table: pd.DataFrame, metric: str, competitor: str, rtt_ms: float) -> Quantity:
    return measure(table, metric, competitor=competitor, rtt_ms=rtt_ms)


def _curve(table: pd.DataFrame, competitor: str) -> tuple[list[float], list[Quantity]]:
    """The competitor's goodput at each swept RTT (per seed)."""
    rtts = _rtts(table, competitor)
    return rtts, [_h3(table, OTHER_GOODPUT, competitor, r) for r in rtts]


def _falls_with_rtt(table: pd.DataFrame, competitor: str) -> Check:
    rtts, curve = _curve(table, competitor)
    label = f"{competitor}: rank correlation of its RTT and its goodput in each seed"
    if len(rtts) < 3:
        return Check.no_data(label)
    rho = Quantity.combine(lambda *g: rank_correlation(rtts, list(g)), *curve, bounds=CORRELATION)
    return compare(label, rho, "<=", -0.8, reversal=0.5, required="<= -0.8 (reversed: >= 0.5)")


def _h3_reno(table: pd.DataFrame) -> list[Check]:
    ratio = _h3(table, OTHER_GOODPUT, "reno", 40.0) / _h3(table, RENO_GOODPUT, "reno", 40.0)
    return [
        band(
            "equal RTTs (40 ms): the competing Reno's goodput / the first Reno's",
            ratio,
            0.7,
            1 / 0.7,
        ),
        _falls_with_rtt(table, "reno"),
    ]


def _h3_fusion(table: pd.DataFrame) -> list[Check]:
    ratio = _h3(table, OTHER_GOODPUT, "fusion", 40.0) / _h3(table, RENO_GOODPUT, "fusion", 40.0)
    return [
        compare(
            "equal RTTs (40 ms): Fusion's goodput / Reno's",
            ratio,
            ">",
            1.0,
            reversal=0.9,
            required="> 1 (reversed: < 0.9)",
        ),
        _falls_with_rtt(table, "fusion"),
    ]


def goodput_spread(table: pd.DataFrame, competitor: str) -> Quantity:
    """Per seed, max / min of the competitor's goodput over the swept RTTs."""
    rtts, curve = _curve(table, competitor)
    if len(rtts) < 2:
        return Quantity()
    return Quantity.combine(
        lambda *g: max(g) / min(g) if min(g) > 0 else math.nan, *curve, bounds=(1.0, math.inf)
    )


def _h3_constant(table: pd.DataFrame) -> list[Check]:
    mine = goodput_spread(table, PROPOSAL)
    return [
        compare(
            "proposal: max / min of its goodput over the swept RTTs, in each seed",
            mine,
            "<=",
            1.5,
            reversal=None,
        ),
        compare(
            "max / min of the goodput over the swept RTTs, proposal vs competing Reno",
            mine,
            "<",
            goodput_spread(table, "reno"),
        ),
    ]


def _h3_friendly(table: pd.DataFrame) -> list[Check]:
    rtts = _rtts(table, PROPOSAL)
    return [
        compare(
            f"against the proposal at {rtt:g} ms: the 40 ms Reno flow's share of the two flows' "
            "goodput",
            _h3(table, RENO_SHARE, PROPOSAL, rtt),
            ">=",
            0.3,
            reversal=0.15,
            required=">= 0.3 (reversed: < 0.15)",
        )
        for rtt in rtts
    ] or [Check.no_data("the Reno flow's share against the proposal")]


H3 = Study(
    id="H3",
    slug="fusion-reno-friendliness",
    title="A 40 ms Reno flow against a Reno, Fusion or proposal flow of varying RTT, RED (Fig. 7)",
    source=SOURCE,
    setup="one Reno flow at 40 ms and one Reno, Fusion or fusion-rf flow whose RTT is swept "
    "from 20 to 200 ms, RED bottleneck of 100 Mb/s with a BDP buffer; both flows' goodput",
    warmup="20 s (quick: 10 s): throughput is counted after it",
    assumptions=H3_ASSUME,
    sweeps=h3_sweeps,
    analyse=_h3_analyse,
    claims=(
        Claim(
            "two Reno flows share fairly only at equal RTTs; the longer the competitor's "
            "RTT, the less it gets",
            "at 40 ms the competing Reno's goodput / the first Reno's in [0.7, 1.43]; per "
            "seed, the rank correlation of the competing Reno's RTT and goodput <= -0.8 "
            "(reversed: >= 0.5)",
            _h3_reno,
        ),
        Claim(
            "Fusion takes more than Reno, and more the smaller its RTT",
            "at 40 ms Fusion's goodput / the Reno flow's > 1 (reversed: < 0.9); per seed, "
            "the rank correlation of Fusion's RTT and goodput <= -0.8 (reversed: >= 0.5)",
            _h3_fusion,
        ),
        Claim(
            "the proposal's throughput stays almost constant over RTT",
            "per seed, max/min of the proposal's goodput over the swept RTTs <= 1.5 (failed "
            "when clearly above), and below the competing Reno's max/min, paired (reversed: "
            "above)",
            _h3_constant,
        ),
        Claim(
            "the proposal does not expel Reno, even at large RTT",
            "at every swept RTT the 40 ms Reno flow keeps >= 30 % of the two flows' goodput "
            "(reversed: < 15 %)",
            _h3_friendly,
        ),
    ),
    figure=FigureSpec(
        "goodput of the 40 ms Reno flow and its competitor vs the competitor's RTT",
        x="rtt_ms",
        hue="competitor",
        xlabel="competitor's RTT, ms",
    ),
    algorithms=H3_COMPETITORS,
    max_replicates=20,
)
