"""R4 and R10: web transfers, their latency and their synchronization."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from ccsim import metrics
from ccsim.studies.core import (
    CORRELATION,
    NONNEGATIVE,
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Settings,
    Study,
    compare,
    measure,
)
from ccsim.studies.randomized_tcp.common import (
    COMMON,
    COMPARE_THREE,
    MSS,
    SOURCE,
    THREE_NAMES,
    Run,
    comparison_table,
    dumbbell_scenario,
    sweep_definition,
)

# ---- R4 and R10: short web-like transfers -------------------------------------------------------

#: Fig. 8's transfer sizes (packets); "very short" is 10-200.
WEB_SIZES = (10, 50, 100, 200, 500, 1000, 2500)
WEB_SHORT = tuple(p for p in WEB_SIZES if p <= 200)
WEB_BOUNDS = {
    "mean latency s": NONNEGATIVE,
    "transfers": NONNEGATIVE,
    "unfinished": NONNEGATIVE,
    "mean latency s, unfinished at run end (lower bound)": NONNEGATIVE,
    "cwnd correlation": CORRELATION,
}


def _r4_sweeps(s: Settings) -> list[dict[str, Any]]:
    sweeps = []
    for packets in s.pick(list(WEB_SIZES), list(WEB_SHORT)):
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
        scenario = dumbbell_scenario(
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
        sweeps.append(
            sweep_definition(f"size{packets}", scenario, s.seeds(3, 3), compare=COMPARE_THREE)
        )
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


def _web_key(run: Run) -> dict[str, Any]:
    return {"tcp": run.config, "packets": int(run.sweep.removeprefix("size"))}


def _r4_run(run: Run) -> list[dict[str, Any]]:
    """The run's mean transfer latency, its finished and unfinished transfers, and the mean
    latency counting the unfinished ones at their elapsed time."""
    flows = run.load("flows")
    transfers = flows[flows["generator"].notna()]
    finished = (
        transfers["completed"].astype(bool)
        if "completed" in transfers
        else transfers["completion_s"].notna()
    )
    done = transfers.loc[finished, "completion_s"]
    # A transfer still running at the end has no completion time; its elapsed time up to the
    # end is a lower bound on it, so the mean with those is a lower bound too.
    end = float(flows["end_s"].max())
    elapsed = end - transfers.loc[~finished, "start_s"]
    values = (
        ("mean latency s", done.mean()),
        ("transfers", len(done)),
        ("unfinished", (~finished).sum()),
        ("mean latency s, unfinished at run end (lower bound)", pd.concat([done, elapsed]).mean()),
    )
    return run.records(_web_key(run), values)


def _r10_run(run: Run) -> list[dict[str, Any]]:
    """R4's values of the run and the mean correlation of its slots' windows."""
    correlation = _slot_correlation(run.load("series"), run.load("flows"))
    return _r4_run(run) + run.records(_web_key(run), [("cwnd correlation", correlation)])


def _web_analyse(
    measure_run: Callable[[Run], list[dict[str, Any]]],
) -> Callable[[Context], pd.DataFrame]:
    def analyse(c: Context) -> pd.DataFrame:
        return comparison_table(c, THREE_NAMES, measure_run, ["tcp", "packets"], bounds=WEB_BOUNDS)

    return analyse


def _latency(table: pd.DataFrame, tcp: str, packets: int) -> Quantity:
    return measure(table, "mean latency s", tcp=tcp, packets=packets)


def _faster(table: pd.DataFrame, packets: int, fast: str, slow: str) -> Check:
    return compare(
        f"{packets} packets: {fast}'s mean latency against {slow}'s",
        _latency(table, fast, packets),
        "<",
        _latency(table, slow, packets),
        unit="s",
    )


def r4_short(table: pd.DataFrame) -> list[Check]:
    return [
        _faster(table, p, fast, slow)
        for p in WEB_SHORT
        for fast, slow in (("Reno", "Paced"), ("Reno", "Randomized"), ("Randomized", "Paced"))
    ]


def _r4_long(table: pd.DataFrame) -> list[Check]:
    return [
        _faster(table, p, "Reno", slow)
        for p in WEB_SIZES
        if p > 200
        for slow in ("Randomized", "Paced")
    ]


def _r4_gap(table: pd.DataFrame) -> list[Check]:
    def gap(packets: int) -> Quantity:
        return _latency(table, "Randomized", packets) / _latency(table, "Reno", packets) - 1.0

    small, large = WEB_SIZES[0], WEB_SIZES[-1]
    return [
        compare(
            f"(Randomized - Reno) / Reno latency at {large} packets against at {small} packets",
            gap(large),
            "<",
            gap(small),
        )
    ]


_WEB_ASSUMPTIONS = (
    *COMMON,
    (
        "run until about 500 transfers complete: the run length is set from the size "
        "(20 transfers per slot at a fair share, +30%); quick: 15 s, 10-200 packets only"
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
    "Reno and Paced draw nothing at random here: only Randomized differs between seeds",
)

R4 = Study(
    id="R4",
    slug="web-latency",
    title="Short web-like transfers (Fig. 8)",
    source=f"{SOURCE}, Fig. 8",
    setup="Dumbbell 4 Mb/s, RTT 100 ms, buffer 1/4 BDP (25 packets); 25 transfers always active "
    "(closed loop); transfer size 10..2500 packets; mean transfer latency.",
    warmup="none: every transfer counts, from the first of the run",
    assumptions=_WEB_ASSUMPTIONS,
    sweeps=_r4_sweeps,
    analyse=_web_analyse(_r4_run),
    claims=(
        Claim(
            "For 10-200 packets Reno performs the best, Paced the worst, Randomized between",
            "at 10, 50, 100 and 200 packets: mean latency Reno < Paced, Reno < Randomized and "
            "Randomized < Paced (paired by seed; each reversed where the other way)",
            r4_short,
        ),
        Claim(
            "Above 200 packets Reno still performs the best",
            "at 500, 1000 and 2500 packets: Reno's mean latency below Randomized's and Paced's "
            "(paired by seed; reversed where above)",
            _r4_long,
        ),
        Claim(
            "The difference between Reno's and Randomized's latencies shrinks as the transfers "
            "grow",
            "(Randomized - Reno) / Reno mean latency smaller at 2500 packets than at 10 (paired "
            "by seed; reversed where larger)",
            _r4_gap,
        ),
    ),
    figure=FigureSpec(
        "mean transfer latency",
        x="packets",
        hue="tcp",
        xlabel="transfer size (packets)",
    ),
    algorithms=("reno", "paced", "randomized"),
    max_replicates=12,
)


def _r10_claims(table: pd.DataFrame) -> list[Check]:
    return [
        compare(
            f"{p} packets: Randomized's mean slot cwnd correlation against Paced's",
            measure(table, "cwnd correlation", tcp="Randomized", packets=p),
            "<",
            measure(table, "cwnd correlation", tcp="Paced", packets=p),
        )
        for p in WEB_SIZES
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
        *_WEB_ASSUMPTIONS,
        "the first 5 s are left out of the correlation (warm-up)",
    ),
    sweeps=_r4_sweeps,
    analyse=_web_analyse(_r10_run),
    claims=(
        Claim(
            "Randomized's covariance is consistently below Paced's",
            "at every size: mean pairwise slot correlation of Randomized below Paced's (paired "
            "by seed; reversed where above)",
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
    max_replicates=12,
)
