"""F2 and F3: the variability of the congestion window, and fairness between Free-Drop flows."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
    NONNEGATIVE,
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
from ccsim.studies.free_drop.common import (
    COMMON,
    COV,
    COV_RATIO,
    CUTS,
    CUTS_MEAN,
    DEFAULT,
    LOSSES,
    LOSSES_MEAN,
    MEAN_COV_RATIO,
    MSS,
    NS2_QUEUE,
    SHIFTED,
    SOURCE,
    TCP,
    TCP_CUTS_MEAN,
    TCP_LOSSES_MEAN,
    Variant,
    f1_f2_assumptions,
    fixed_window_name,
    free_drop_options,
    mean_of,
    quantity_records,
    set_published,
    shifted_name,
)
from ccsim.studies.free_drop.f1_response_curves import (
    F1_MAX_REPLICATES,
    config_p_values,
    f1_plan,
    f1_sweeps,
    free_drop_configs,
    lossy_points,
    mean_over,
    plan_of,
)

# ---- F2 ------------------------------------------------------------------------------------------

F2_BOUNDS = {
    COV: NONNEGATIVE,
    COV_RATIO: NONNEGATIVE,
    MEAN_COV_RATIO: NONNEGATIVE,
    CUTS: NONNEGATIVE,
    LOSSES: NONNEGATIVE,
    CUTS_MEAN: NONNEGATIVE,
    TCP_CUTS_MEAN: NONNEGATIVE,
    LOSSES_MEAN: NONNEGATIVE,
    TCP_LOSSES_MEAN: NONNEGATIVE,
}


def _f2_analyse(c: Context) -> pd.DataFrame:
    plan = f1_plan(c.settings)
    records: list[dict[str, Any]] = []
    for r in lossy_points(c):
        for metric, key in ((COV, "cov"), (CUTS, "cuts_per_s"), (LOSSES, "losses_per_s")):
            keys = {"config": r["config"], "p": r["p"], "seed": r["seed"]}
            records.append(keys | {"metric": metric, "value": r[key]})
    runs = summarise(records, ["config", "p"], bounds=F2_BOUNDS)
    nan = math.nan
    shifted = []
    for config in free_drop_configs(plan):
        ps = config_p_values(plan, config)
        ratios = []
        for p in ps:
            ratio = measure(runs, COV, config=config, p=p) / measure(runs, COV, config=TCP, p=p)
            ratios.append(ratio)
            records += quantity_records(ratio, config=config, p=p, metric=COV_RATIO)
        mean = Quantity.combine(mean_of, *ratios) if ratios else Quantity()
        records += quantity_records(mean, config=config, p=nan, metric=MEAN_COV_RATIO)
        if config.startswith("FD eps="):
            shifted.append(mean)
        for metric, mine, tcp in (
            (CUTS, CUTS_MEAN, TCP_CUTS_MEAN),
            (LOSSES, LOSSES_MEAN, TCP_LOSSES_MEAN),
        ):
            for label, whose in ((mine, config), (tcp, TCP)):
                records += quantity_records(
                    mean_over(runs, metric, whose, ps), config=config, p=nan, metric=label
                )
    if shifted:
        records += quantity_records(
            Quantity.combine(mean_of, *shifted), config=SHIFTED, p=nan, metric=MEAN_COV_RATIO
        )
    table = summarise(records, ["config", "p"], bounds=F2_BOUNDS)
    set_published(table, MEAN_COV_RATIO, 1.6, config=SHIFTED)
    table.attrs["plan"] = plan
    return table


def f2_ratio(table: pd.DataFrame) -> list[Check]:
    plan = plan_of(table)
    checks = [
        compare(
            f"{shifted_name(eps)}: CoV of cwnd over TCP's at the same p and seed, mean over its p",
            measure(table, MEAN_COV_RATIO, config=shifted_name(eps)),
            ">",
            1.0,
        )
        for eps in plan["eps"]
    ]
    checks.append(
        band(
            "the three shifted curves: mean CoV ratio FD/TCP",
            measure(table, MEAN_COV_RATIO, config=SHIFTED),
            1.2,
            2.0,
        )
    )
    return checks


def f2_events(table: pd.DataFrame) -> list[Check]:
    """The paper's "higher rates of congestion events", a congestion event being a loss that
    makes the window shrink: Free-Drop's window cuts per second against TCP's at the same p."""
    return [
        compare(
            f"{config}: window cuts per second, mean over its p, against TCP's at the same p",
            measure(table, CUTS_MEAN, config=config),
            ">",
            measure(table, TCP_CUTS_MEAN, config=config),
            unit="/s",
        )
        for config in free_drop_configs(plan_of(table))
    ]


def f2_study(variant: Variant) -> Study:
    return Study(
        id="F2",
        slug="cwnd-cov",
        title="Coefficient of variation of cwnd, TCP vs Free-Drop TCP (Fig. 2)",
        source=SOURCE,
        setup="the runs of F1; cwnd sampled every 100 ms after a 30 s warm-up; CoV per run; "
        "ratio Free-Drop / TCP at each p and seed; window cuts per second",
        warmup=(
            "30 s (quick: 10 s) for the CoV of cwnd; loss events and window cuts per second count "
            "the whole run"
        ),
        assumptions=(*f1_f2_assumptions(variant), "quick mode: 60 s runs, warm-up 10 s"),
        sweeps=functools.partial(f1_sweeps, variant=variant),
        analyse=_f2_analyse,
        claims=(
            Claim(
                "Free-Drop's CoV of cwnd is increased, about 1.6 times TCP's (Fig. 2, on the "
                "runs of Fig. 1's shifted curves)",
                "for each shifted curve (eps = 5e-5, 5e-4, 1e-3), the per-seed mean over its p of "
                "CoV_FD/CoV_TCP at the same p above 1 (reversed below 1); the mean of the three "
                "within 1.2..2.0",
                f2_ratio,
            ),
            Claim(
                "Free-Drop's higher throughput comes with a higher rate of congestion events "
                "(abstract: a possible cost; a congestion event is a loss that makes the window "
                "shrink)",
                "for every Free-Drop configuration (fixed w = 10, 100, 1000 and the three "
                "shifted curves), window cuts per second, mean over its p, above TCP's at the "
                "same p, paired by seed; reversed below",
                f2_events,
            ),
        ),
        figure=FigureSpec(
            "CoV of cwnd vs loss rate p", x="p", hue="config", xlabel="loss probability p"
        ),
        algorithms=("newreno", "freedrop"),
        max_replicates=F1_MAX_REPLICATES,
    )


# ---- F3 ------------------------------------------------------------------------------------------

F3_CASES = (
    ("50Mbps", "0.2bdp"),
    ("500Mbps", "0.2bdp"),
    ("50Mbps", "1bdp"),
    ("500Mbps", "1bdp"),
)
F3_W = DEFAULT.f3_w
JAIN = "Jain index"
TOTAL = "total goodput Mb/s"
LOST = "packets lost /s (all flows)"
#: Jain's index of 5 flows lies in [1/5, 1].
F3_BOUNDS = {JAIN: (0.2, 1.0), TOTAL: NONNEGATIVE, LOST: NONNEGATIVE}
#: "Fair": Jain's index at least this; "little to choose": indices within this of each other.
FAIR = 0.9
CLOSE = 0.05


def f3_case(rate: str, buf: str) -> str:
    return f"{rate} buf {buf}"


def _f3_scenario(
    cc: str, params: Mapping[str, Any] | None, duration: str, access: str = NS2_QUEUE
) -> dict[str, Any]:
    flow: dict[str, Any] = {
        "cc": cc,
        "rtt": "50ms",
        "mss": MSS,
        "count": 5,
        "start_jitter": "1s",
    }
    if params:
        flow["params"] = dict(params)
    return {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "50Mbps",
            "bottleneck_delay": "10ms",
            "queue": "droptail",
            "buffer": "1bdp",
            "access_buffer": access,
        },
        "flows": [flow],
    }


def _f3_plan(s: Settings) -> dict[str, Any]:
    return {"duration": s.pick("600s", "120s"), "seeds": s.seeds(3, 3)}


def f3_sweeps(s: Settings, variant: Variant = DEFAULT) -> list[dict[str, Any]]:
    plan = _f3_plan(s)
    axes = {
        "topology.bottleneck_rate": ["50Mbps", "500Mbps"],
        "topology.buffer": ["0.2bdp", "1bdp"],
    }
    fd = {"w": variant.f3_w, **variant.fd_params}
    return [
        {
            "name": "tcp",
            "scenario": _f3_scenario("newreno", None, plan["duration"], variant.queue),
            "seeds": plan["seeds"],
            "axes": axes,
        },
        {
            "name": f"fd-w{variant.f3_w}",
            "scenario": _f3_scenario("freedrop", fd, plan["duration"], variant.queue),
            "seeds": plan["seeds"],
            "axes": axes,
        },
    ]


def _f3_analyse(c: Context) -> pd.DataFrame:
    records = []
    duration = float(_f3_plan(c.settings)["duration"].removesuffix("s"))
    for sweep in c.results:
        config = TCP if sweep == "tcp" else fixed_window_name(int(sweep.removeprefix("fd-w")))
        for point, load in c.points(sweep):
            flows = load("flows")
            keys = {
                "case": f3_case(point["bottleneck_rate"], point["buffer"]),
                "config": config,
                "seed": int(point["seed"]),
            }
            records.append(
                keys | {"metric": JAIN, "value": metrics.jain_index(flows["goodput_bps"])}
            )
            records.append(
                keys | {"metric": TOTAL, "value": float(flows["goodput_bps"].sum()) / 1e6}
            )
            records.append(keys | {"metric": LOST, "value": float(flows["drops"].sum()) / duration})
    return summarise(records, ["case", "config"], bounds=F3_BOUNDS)


def _f3_fd(table: pd.DataFrame) -> str:
    """The Free-Drop configuration of the table (whatever its w)."""
    configs = sorted(str(c) for c in table["config"].unique() if str(c).startswith("FD w="))
    return configs[0] if configs else fixed_window_name(F3_W)


def f3_fair(table: pd.DataFrame) -> list[Check]:
    checks = []
    fd = _f3_fd(table)
    for rate, buf in F3_CASES:
        case = f3_case(rate, buf)
        for config in (TCP, fd):
            checks.append(
                compare(
                    f"{case}: {config} Jain index",
                    measure(table, JAIN, case=case, config=config),
                    ">=",
                    FAIR,
                    reversal=None,
                )
            )
    return checks


def f3_close(table: pd.DataFrame) -> list[Check]:
    fd = _f3_fd(table)
    checks = []
    for rate, buf in F3_CASES:
        case = f3_case(rate, buf)
        ours = measure(table, JAIN, case=case, config=fd)
        tcp = measure(table, JAIN, case=case, config=TCP)
        if not ours.has_data or not tcp.has_data:
            checks.append(Check.no_data(f"{case}: Jain index, {fd} minus TCP"))
            continue
        checks.append(
            band(f"{case}: Jain index, {fd} minus TCP (paired by seed)", ours - tcp, -CLOSE, CLOSE)
        )
    return checks


def _f3_more(metric: str, what: str) -> Callable[[pd.DataFrame], list[Check]]:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        fd = _f3_fd(table)
        return [
            compare(
                f"{f3_case(rate, buf)}: {what}, {fd} against TCP",
                measure(table, metric, case=f3_case(rate, buf), config=fd),
                ">",
                measure(table, metric, case=f3_case(rate, buf), config=TCP),
            )
            for rate, buf in F3_CASES
        ]

    return evaluate


def _f3_assume(variant: Variant) -> tuple[str, ...]:
    access = (
        f"ns-2's default limit 50 ({variant.queue} in ccsim)"
        if variant.queue == NS2_QUEUE
        else f"{variant.queue} (sensitivity variant)"
    )
    return (
        *COMMON,
        "RTT 50 ms, 600 s (quick: 120 s), flows start in the first second",
        (
            "dumbbell: each sender -> R1 on its own access link (4x the bottleneck rate) -> "
            "bottleneck R1 -> R2 (10 ms) -> each receiver on its own access link"
        ),
        (
            "bottleneck, both directions: DropTail of 20% or 100% of the BDP at 50 ms with "
            "1040-byte packets (the paper's ~20% and ~100%: 61 and 301 packets at 50 Mb/s, 601 "
            "and 3005 at 500 Mb/s)"
        ),
        f"every access link, both directions: DropTail of {access}; the paper gives none",
        f"Free-Drop w = {variant.f3_w} (the paper gives none for Fig. 3)",
        *free_drop_options(variant),
        "no random loss: only queue overflow",
    )


F3_MAX_REPLICATES = 24


def f3_study(variant: Variant) -> Study:
    return Study(
        id="F3",
        slug="free-drop-fairness",
        title="Jain's index of 5 flows, TCP vs Free-Drop TCP (Fig. 3)",
        source=SOURCE,
        setup="dumbbell, 5 flows of one protocol, RTT 50 ms; bottleneck 50 and 500 Mb/s; "
        "DropTail queue 20% and 100% of the BDP; Jain index of the flows' goodputs, total "
        "goodput and packets lost per second; 3 seeds (more while a check is inconclusive)",
        warmup=(
            "none: each flow's goodput is taken over its whole run (flows start in the first "
            "second)"
        ),
        assumptions=_f3_assume(variant),
        sweeps=functools.partial(f3_sweeps, variant=variant),
        analyse=_f3_analyse,
        claims=(
            Claim(
                "TCP and Free-Drop are both fair protocols (Fig. 3a-d: 'Free-Drop TCP is "
                "essentially fair under these conditions')",
                f"in each of the four cases, TCP's and Free-Drop's Jain index at least {FAIR}",
                f3_fair,
            ),
            Claim(
                "There is little to choose between TCP and Free-Drop from the standpoint of "
                "fairness (Fig. 3a-d)",
                f"in each case, Free-Drop's Jain index minus TCP's (paired by seed) within "
                f"+-{CLOSE}",
                f3_close,
            ),
            Claim(
                "Free-Drop produces more packet losses (section 2)",
                "in each case, packets lost per second (all five flows) above TCP's, paired by "
                "seed; reversed below",
                _f3_more(LOST, "packets lost per second"),
            ),
            Claim(
                "In the aggregate, Free-Drop flows tend toward higher utilization (section 2)",
                "in each case, the five flows' total goodput above TCP's, paired by seed; "
                "reversed below",
                _f3_more(TOTAL, "total goodput"),
            ),
        ),
        figure=FigureSpec("Jain index, goodput and losses, 5 flows"),
        algorithms=("newreno", "freedrop"),
        max_replicates=F3_MAX_REPLICATES,
    )
