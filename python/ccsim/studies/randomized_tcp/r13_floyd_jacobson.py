"""R13: Floyd and Jacobson's phase-effect scenario."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ccsim.studies.core import (
    UNIT,
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Settings,
    Study,
    compare,
    measure,
    summarise,
)
from ccsim.studies.randomized_tcp.common import (
    COMMON,
    NS2_QUEUE,
    RANDOMIZED,
    RENO_RANDOMIZED_NAMES,
    SOURCE,
    Run,
    named_records,
    note_access_queues,
    sweep_definition,
    within_range,
)

# ---- R13: Floyd-Jacobson phase effects ---------------------------------------------------------

#: The RTT ratios where the paper's Reno source 2 takes most of the losses.
R13_SPIKE = (1.85, 2.05)
#: "Most of the losses": a drop share above this; "almost no loss": below R13_LITTLE.
R13_MOST, R13_LITTLE = 0.6, 0.2
#: The fine sweep of source 1's access delay (ms, steps of 1 ms): RTT ratios about 1.80..2.10.
R13_FINE_MS = (89.0, 121.0)
R13_ROUTERS = frozenset({"gw", "sink"})
R13_MULTI_ROUTERS = frozenset({"gw1", "gw2", "sink"})


def _r13_sweeps(s: Settings) -> list[dict[str, Any]]:
    ratios = s.pick([round(1.0 + 0.05 * k, 2) for k in range(25)], [1.0, 1.5, 1.9, 2.0, 2.2])
    # RTT_i = 2 (d_i + 100 ms) (access delay d_i, gateway-sink 100 ms; acks return the same
    # way), so RTT1/RTT2 = r needs d1 = r (5 + 100) - 100 ms.
    delays = [f"{max(0.0, r * 105 - 100):.2f}ms" for r in ratios]

    def access(src: str) -> dict[str, Any]:
        return {"src": src, "dst": "gw", "rate": "8Mbps", "delay": "5ms", "buffer": NS2_QUEUE}

    scenario = {
        "name": "study",
        "seed": 1,
        "duration": s.pick("100s", "60s"),
        "topology": {
            "kind": "explicit",
            "nodes": ["s1", "s2", "gw", "sink"],
            "links": [
                access("s1"),
                access("s2"),
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
    sweeps = [
        sweep_definition(
            "fj",
            scenario,
            s.seeds(3, 3),
            axes={"topology.links.0.delay": {"name": "delay1", "values": delays}},
            compare={"algorithms": ["reno", RANDOMIZED], "baseline": "reno"},
        ),
        sweep_definition(
            "fj-multi",
            _r13_multi_scenario(s.pick("100s", "60s")),
            s.seeds(3, 3),
            axes={
                "topology.links.0.delay": {
                    "name": "delay1",
                    "values": s.pick(delays, [delays[0], delays[2], delays[4]]),
                }
            },
            compare={"algorithms": ["reno", RANDOMIZED], "baseline": "reno"},
        ),
    ]
    if not s.quick:
        # Floyd and Jacobson's pattern repeats whenever the RTT moves by one bottleneck service
        # time (1040 B at 800 Kb/s: 10.4 ms). The step of 0.05 in the ratio moves the RTT by
        # 10.5 ms, so it samples the pattern at almost the same phase every time; around the
        # paper's spike the delay is swept again in steps of 1 ms (under 1/10 of the pattern).
        fine = [f"{d:.2f}ms" for d in np.arange(R13_FINE_MS[0], R13_FINE_MS[1] + 0.5, 1.0)]
        sweeps.append(
            sweep_definition(
                "fj-fine",
                scenario,
                s.seeds(3, 3),
                axes={"topology.links.0.delay": {"name": "delay1", "values": fine}},
                compare={"algorithms": ["reno", RANDOMIZED], "baseline": "reno"},
            )
        )
    return sweeps


def _r13_multi_scenario(duration: str) -> dict[str, Any]:
    """Fig. 15 as we read it (the figure did not survive the OCR; every choice is an assumption
    printed with the study): Fig. 13's sources 1 and 2 (8 Mb/s access, source 2 at 5 ms, source
    1's delay swept) into gateway 1; bottleneck 1 gateway 1 -> gateway 2 and bottleneck 2
    gateway 2 -> sink, both 800 kb/s / 50 ms / 15 packets (the single bottleneck's 100 ms split
    in two, so RTT2 stays 210 ms); source 3 joins at gateway 2 (8 Mb/s / 5 ms, RTT 110 ms) and
    shares bottleneck 2 only. Access links have ns-2's default queue."""

    def link(src: str, dst: str, rate: str, delay: str, buffer: str) -> dict[str, Any]:
        return {"src": src, "dst": dst, "rate": rate, "delay": delay, "buffer": buffer}

    links = [
        link("s1", "gw1", "8Mbps", "5ms", NS2_QUEUE),
        link("s2", "gw1", "8Mbps", "5ms", NS2_QUEUE),
        link("s3", "gw2", "8Mbps", "5ms", NS2_QUEUE),
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


def _r13_ratio(point: pd.Series) -> float:
    d1 = float(str(point["delay1"]).removesuffix("ms"))
    return round((d1 + 100) / 105, 3)


def _r13_run(run: Run) -> list[dict[str, Any]]:
    """Fig. 14's quantities: source 2's share of the throughput and of the bottleneck's drops
    over the last 50 s."""
    flows, drops, series = run.load("flows"), run.load("drops"), run.load("series")
    since = float(flows["end_s"].max()) - 50.0  # the last 50 s, as the paper averages
    rate = series[series["t_s"] >= since].groupby("flow")["rate_bps"].mean()
    bottleneck = int(run.load("links").set_index(["src", "dst"]).loc[("gw", "sink"), "link"])
    lost = (
        drops[(drops["t_s"] >= since) & (drops["link"] == bottleneck) & (drops["is_ack"] == 0)]
        .groupby("flow")
        .size()
    )
    total_drops = lost.sum()
    values = {
        "source 2 throughput share": rate.get(1, 0.0) / rate.sum() if rate.sum() else math.nan,
        "source 2 drop share": lost.get(1, 0) / total_drops if total_drops else math.nan,
    }
    return run.records({"ratio": _r13_ratio(run.point), "tcp": run.config}, values.items())


def _r13_multi_run(run: Run) -> list[dict[str, Any]]:
    """Fig. 16's quantities: source 3's share of bottleneck 2's drops and throughput, and (to
    show where the losses are) bottleneck 1's share of all bottleneck drops."""
    flows, drops, series = run.load("flows"), run.load("drops"), run.load("series")
    since = float(flows["end_s"].max()) - 50.0
    rate = series[series["t_s"] >= since].groupby("flow")["rate_bps"].mean()
    ids = run.load("links").set_index(["src", "dst"])["link"]
    late = drops[(drops["t_s"] >= since) & (drops["is_ack"] == 0)]
    at2 = late[late["link"] == int(ids.loc[("gw2", "sink")])].groupby("flow").size()
    at1 = int((late["link"] == int(ids.loc[("gw1", "gw2")])).sum())
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
    return run.records({"ratio": _r13_ratio(run.point), "tcp": run.config}, values.items())


def _r13_analyse(c: Context) -> pd.DataFrame:
    # The single bottleneck's rows first, then the two bottlenecks' (the sweeps run in the
    # order fj, fj-multi, fj-fine).
    records = named_records(c, RENO_RANDOMIZED_NAMES, _r13_run, ["fj", "fj-fine"])
    records += named_records(c, RENO_RANDOMIZED_NAMES, _r13_multi_run, ["fj-multi"])
    _r13_access_queues(c)
    bounds = {str(r["metric"]): UNIT for r in records}
    return summarise(records, ["ratio", "tcp"], bounds=bounds)


def _r13_access_queues(c: Context) -> None:
    """:func:`note_access_queues` over each topology with its own routers."""
    for sweeps, routers in (("fj", R13_ROUTERS), ("fj-multi", R13_MULTI_ROUTERS)):
        part = Context(c.settings, {k: v for k, v in c.results.items() if k.startswith(sweeps)})
        if sweeps == "fj":
            part.results.pop("fj-multi", None)
        note_access_queues(part, routers)
        c.notes += [f"{sweeps}: {note}" for note in part.notes]


def _r13_ratios(table: pd.DataFrame, metric: str, tcp: str) -> list[float]:
    rows = table[(table["metric"] == metric) & (table["tcp"] == tcp) & (table["runs"] > 0)]
    return sorted(float(r) for r in rows["ratio"].unique())


def _r13_over(
    table: pd.DataFrame, tcp: str, ratios: Sequence[float], statistic: Callable[..., float]
) -> Quantity:
    """Per seed, ``statistic`` of source 2's drop shares at ``ratios``."""
    shares = [measure(table, "source 2 drop share", ratio=r, tcp=tcp) for r in ratios]
    if not shares:
        return Quantity()
    return Quantity.combine(lambda *v: float(statistic(v)), *shares, bounds=UNIT)


def _r13_claims(table: pd.DataFrame) -> list[Check]:
    reno = _r13_ratios(table, "source 2 drop share", "Reno")
    rand = _r13_ratios(table, "source 2 drop share", "Randomized")
    spike = within_range(reno, *R13_SPIKE)
    others = [r for r in reno if r not in spike]
    if not spike or not others or not rand:
        return [Check.no_data("Reno at ratios in and outside 1.85-2.05, and Randomized")]
    return [
        compare(
            f"Reno: source 2's largest drop share at RTT ratios 1.85-2.05 ({len(spike)} ratios)",
            _r13_over(table, "Reno", spike, max),
            ">",
            R13_MOST,
            reversal=None,
        ),
        compare(
            f"Reno: source 2's median drop share at the other ratios ({len(others)})",
            _r13_over(table, "Reno", others, np.median),
            "<",
            R13_LITTLE,
            reversal=None,
        ),
        compare(
            f"Randomized: source 2's largest drop share over all ratios ({len(rand)})",
            _r13_over(table, "Randomized", rand, max),
            "<=",
            R13_MOST,
            reversal=None,
        ),
    ]


def _r13_multi_claims(table: pd.DataFrame) -> list[Check]:
    metric = "multi: source 3 drop share at bottleneck 2"
    ratios = _r13_ratios(table, metric, "Reno")
    if not ratios:
        return [Check.no_data("Reno and Randomized on two bottlenecks")]
    reno = measure(table, metric, tcp="Reno", ratio=ratios)
    rand = measure(table, metric, tcp="Randomized", ratio=ratios)
    return [
        compare(
            f"Reno: source 3's share of bottleneck 2's drops, mean over {len(ratios)} ratios",
            reno,
            ">",
            R13_MOST,
            reversal=0.4,
            required="> 0.6 (published about 0.8; reversed below 0.4)",
        ),
        compare(
            "source 3's share of bottleneck 2's drops, Randomized minus Reno",
            rand - reno,
            "<",
            -0.2,
            reversal=0.2,
            required="< -0.2 (published about 0.4 - 0.8; reversed above +0.2)",
        ),
    ]


R13 = Study(
    id="R13",
    slug="floyd-jacobson",
    title="Floyd-Jacobson phase effects (Fig. 13-16)",
    source=f"{SOURCE}, Fig. 13-16",
    setup="Two sources on 8 Mb/s access links (source 2: 5 ms) into a gateway, gateway to sink "
    "800 kb/s / 100 ms, DropTail 15 packets, 1000 B packets; source 1's access delay swept so "
    "that RTT1/RTT2 spans 1 to 2.2; shares over the last 50 s of each 100 s run. Multiple "
    "bottlenecks (Fig. 15-16): the same two sources cross two 800 kb/s bottlenecks in a row, a "
    "third source joins at the second; source 3's share of the second bottleneck's drops.",
    warmup="50 s of each 100 s run (quick: 10 s of 60 s): the shares are those of the last 50 s",
    assumptions=(
        *COMMON[1:],
        "packets of 1000 B read as ns-2 packetSize_ 1000 (ccsim mss = 1000: 1040 B on the wire)",
        "access links (8 Mb/s) with ns-2's default queue (limit_ 50: 49 waiting); bottlenecks 15 "
        "packets",
        "'Randomized' runs both sources Randomized",
        "throughput over the last 50 s = mean of the sampled delivery rate (every 0.5 s)",
        (
            "RTT ratios 1.0..2.2 in steps of 0.05 (quick: 1.0, 1.5, 1.9, 2.0, 2.2), and around the "
            "paper's spike source 1's delay in steps of 1 ms (ratios 1.80..2.10; sweep fj-fine): "
            "the pattern repeats every bottleneck service time (10.4 ms of RTT), which the 0.05 "
            "step (10.5 ms of RTT) would sample at one phase"
        ),
        (
            "Fig. 15 (lost in the OCR) read as: sources 1, 2 as in Fig. 13 into gateway 1; "
            "bottlenecks gateway 1 -> gateway 2 and gateway 2 -> sink, each 800 kb/s / 50 ms / 15 "
            "packets (Fig. 13's 100 ms split in two, RTT2 = 210 ms); source 3 on 8 Mb/s / 5 ms into "
            "gateway 2 (RTT3 110 ms), crossing bottleneck 2 only; source 1's access delay swept as "
            "in Fig. 13; all three sources Reno, then all three Randomized"
        ),
    ),
    sweeps=_r13_sweeps,
    analyse=_r13_analyse,
    claims=(
        Claim(
            "With Reno, source 2 sees almost no loss except at some RTT ratios (1.85-2.05) where "
            "it takes most losses; with Randomized it never takes a disproportionate share",
            "per seed: Reno's largest source-2 drop share at ratios 1.85-2.05 > 0.6 and its "
            "median at the other ratios < 0.2; Randomized's largest over all ratios <= 0.6 (no "
            "direction to reverse: a spike is there or not)",
            _r13_claims,
        ),
        Claim(
            "Multiple bottlenecks: source 3 sees about 80% of the second bottleneck's losses "
            "with Reno, about 40% with Randomized",
            "source 3's share of bottleneck 2's drops, per seed mean over the RTT ratios: Reno "
            "> 0.6 (reversed: < 0.4); Randomized minus Reno < -0.2 (reversed: > +0.2)",
            _r13_multi_claims,
        ),
    ),
    figure=FigureSpec("source 2's shares vs RTT ratio", x="ratio", hue="tcp", xlabel="RTT1 / RTT2"),
    algorithms=("reno", "randomized"),
    max_replicates=24,
)
