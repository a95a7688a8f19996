"""What ``ccsim run`` prints after a run: the stack profile, the flows and links tables, the two
queues of a DualPI2 bottleneck, Jain's fairness index, and, when flows configured alike end far
apart, one line on why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from ccsim.cli.tables import Column, OutputTable, compact_numbers, print_table, rate_unit
from ccsim.units import format_setting

#: At most this many flows are listed after a run; the rest are in flows.parquet.
MAX_FLOW_ROWS = 20
#: Flows configured alike whose goodputs differ by more than this factor (max/min) ...
SPREAD_RATIO = 2.0
#: ... or whose Jain index is below this are explained.
SPREAD_JAIN = 0.9
#: Where the documentation explains why flows configured alike end far apart.
SPREAD_DOCS = 'docs/scenario-format.md, "Why identical flows differ"'
#: How the loss recovery procedures are named.
RECOVERY_NAMES = {"reno": "Reno", "newreno": "NewReno", "sack": "SACK"}
#: A DualPI2 link's two queues: their prefix in the queues series, and how the table names them.
DUALPI2_QUEUES = (("l", "L"), ("c", "C"))
#: What a DualPI2 run without sampling prints instead of its queues' delays.
DUALPI2_UNSAMPLED = (
    "DualPI2: each queue's delay is read from the queues series; "
    'set [trace] sample_interval (e.g. "10ms") to see it here'
)


def print_run_summary(
    console: Console,
    summary: Mapping[str, Any],
    flows: Any,
    links: Any,
    written: Path,
    *,
    groups: Sequence[Sequence[int]] = (),
    recoveries: Mapping[str, str] | None = None,
    wide: bool = False,
    queues: Any = None,
    dualpi2: bool = False,
) -> None:
    """The summary of a run. ``groups`` are the flows (by flow number) configured alike, e.g.
    the flows of one ``[[flows]]`` table; ``recoveries`` maps each algorithm that ran to the loss
    recovery its flows used, when the profile leaves it to the algorithm. ``queues`` is the
    run's queues series and ``dualpi2`` whether a sampled link runs DualPI2: then the table of
    its two queues follows the links (or, without samples, a line on how to get it)."""
    console.print(escape(profile_line(summary, recoveries or {})))
    if len(flows):
        print_table(console, flow_table(flows), wide=wide)
        for line in fairness_lines(flows, groups, summary, recoveries or {}):
            console.print(escape(line))
    if len(links):
        print_table(console, link_table(links), wide=wide)
    if dualpi2:
        table = dualpi2_table(queues, links)
        if table is not None:
            print_table(console, table, wide=wide)
        elif queues is None or not len(queues):
            console.print(escape(DUALPI2_UNSAMPLED))
    console.print(escape(closing_line(summary, written)))


def profile_line(summary: Mapping[str, Any], recoveries: Mapping[str, str]) -> str:
    """``profile ns2: initial_window=2 ...``; a recovery left to each algorithm is said so, with
    the procedure each algorithm of the run used."""
    stack = dict(summary.get("stack") or {})
    profile = stack.pop("profile", summary.get("profile"))
    knobs = []
    for key, value in stack.items():
        shown = format_setting(key, value)
        if key == "recovery" and value is None:
            used = ", ".join(
                f"{cc}: {RECOVERY_NAMES.get(r, r)}" for cc, r in sorted(recoveries.items())
            )
            shown = f"per algorithm ({used})" if used else "per algorithm"
        knobs.append(f"{key.removesuffix('_ns')}={shown}")
    return f"profile {profile}: {' '.join(knobs)}"


def closing_line(summary: Mapping[str, Any], written: Path) -> str:
    rate = summary.get("events_per_s")
    speed = f" ({rate / 1e6:.2f} M events/s)" if rate else ""
    wall = summary.get("wall_s") or 0.0
    took = f"{wall:.2f} s" if wall >= 1 else f"{wall * 1000:.0f} ms"
    return f"simulated {summary.get('duration_s'):g} s in {took}{speed}; results in {written}"


# ---- the tables -----------------------------------------------------------------------------------


def _column(frame: Any, key: str) -> list[Any]:
    return frame[key].tolist() if key in frame.columns else [None] * len(frame)


def flow_table(flows: Any) -> OutputTable:
    """The flows: number, label (when it is not the algorithm's name), algorithm, base RTT,
    goodput, then what explains a goodput (retransmissions, timeouts, fast retransmits, mean
    RTT), those left out first when the terminal is narrow."""
    unit, factor = rate_unit(_column(flows, "goodput_bps"))
    labels, ccs = _column(flows, "label"), _column(flows, "cc")
    columns = [Column("flow", _column(flows, "flow"), align="right", fold_constant=False)]
    if labels != ccs:
        columns.append(Column("label", labels, drop_rank=1))
    columns += [
        Column("cc", ccs),
        Column(
            "base_rtt_s",
            _column(flows, "base_rtt_s"),
            compact_numbers(_column(flows, "base_rtt_s"), 1e3),
            name="base RTT",
            unit="ms",
            align="right",
            drop_rank=2,
        ),
        Column(
            "goodput_bps",
            _column(flows, "goodput_bps"),
            compact_numbers(_column(flows, "goodput_bps"), 1 / factor),
            name="goodput",
            unit=unit,
            align="right",
            fold_constant=False,
        ),
    ]
    for key, name, rank in [
        ("retransmits", "retransmits", 5),
        ("timeouts", "timeouts", 4),
        ("fast_retransmits", "fast retransmits", 6),
    ]:
        values = _column(flows, key)
        columns.append(
            Column(key, values, compact_numbers(values), name=name, align="right", drop_rank=rank)
        )
    columns.append(
        Column(
            "mean_rtt_s",
            _column(flows, "mean_rtt_s"),
            compact_numbers(_column(flows, "mean_rtt_s"), 1e3),
            name="mean RTT",
            unit="ms",
            align="right",
            drop_rank=7,
            fold_constant=False,
        )
    )
    return OutputTable(
        "flows",
        "Flows",
        columns,
        max_rows=MAX_FLOW_ROWS,
        row_noun="flow",
        more_rows_hint="all in flows.parquet, or --format csv",
    )


def link_table(links: Any) -> OutputTable:
    """The busiest link (the bottleneck) and every link that dropped packets."""
    rows = links.to_dict("records")
    busiest = max(range(len(rows)), key=lambda i: rows[i].get("utilization") or 0.0)
    shown = links.iloc[
        [i for i, row in enumerate(rows) if i == busiest or (row.get("drops") or 0) > 0]
    ]
    rates = _column(shown, "rate_bps")
    unit, factor = rate_unit(rates)
    paths = [
        f"{s} -> {d}" for s, d in zip(_column(shown, "src"), _column(shown, "dst"), strict=True)
    ]
    columns = [
        Column("link", _column(shown, "link"), align="right", fold_constant=False),
        Column("path", paths, fold_constant=False, drop_rank=3),
        Column("rate_bps", rates, compact_numbers(rates, 1 / factor), name="rate", unit=unit,
               align="right", fold_constant=False),
        Column("utilization", _column(shown, "utilization"),
               compact_numbers(_column(shown, "utilization"), 100), name="utilization",
               unit="%", align="right", fold_constant=False),
        Column("drops", _column(shown, "drops"), align="right", fold_constant=False,
               drop_rank=1),
        Column("mean_queue_pkts", _column(shown, "mean_queue_pkts"),
               compact_numbers(_column(shown, "mean_queue_pkts")), name="mean queue",
               unit="pkts", align="right", fold_constant=False, drop_rank=2),
    ]  # fmt: skip
    return OutputTable("links", "Links (the busiest, and every link that dropped packets)", columns)


def dualpi2_table(queues: Any, links: Any) -> OutputTable | None:
    """The L and C queues of the busiest sampled DualPI2 link: each queue's delay (its head
    packet's waiting time at each sample, 0 while empty: mean and 95th percentile), mean length,
    and its packets sent, marked and dropped by the last sample. None without DualPI2 samples."""
    if queues is None or "l_delay_s" not in getattr(queues, "columns", ()):
        return None
    sampled = queues[queues["l_in"].notna()]
    if not len(sampled):
        return None
    utilization = dict(zip(_column(links, "link"), _column(links, "utilization"), strict=True))
    link = max(sorted(set(sampled["link"])), key=lambda n: utilization.get(n) or 0.0)
    rows = sampled[sampled["link"] == link]
    names, mean, p95, length, sent, marks, drops = [], [], [], [], [], [], []
    for prefix, name in DUALPI2_QUEUES:
        delay = rows[f"{prefix}_delay_s"]
        names.append(name)
        mean.append(float(delay.mean()))
        p95.append(float(delay.quantile(0.95)))
        length.append(float(rows[f"{prefix}_len_pkts"].mean()))
        last = rows.iloc[-1]
        sent.append(int(last[f"{prefix}_out"]))
        marks.append(int(last[f"{prefix}_marks"]))
        drops.append(int(last[f"{prefix}_drops"]))
    delays = mean + p95
    delay_cells = compact_numbers(delays, 1e3)
    times = sorted(set(rows["t_s"]))
    every = compact_numbers([times[1] - times[0]], 1e3)[0] if len(times) > 1 else "-"
    columns = [
        Column("queue", names, fold_constant=False),
        Column("mean_delay_s", mean, delay_cells[:2], name="mean delay", unit="ms",
               align="right", fold_constant=False),
        Column("p95_delay_s", p95, delay_cells[2:], name="p95 delay", unit="ms",
               align="right", fold_constant=False),
        Column("mean_len_pkts", length, compact_numbers(length), name="mean length",
               unit="pkts", align="right", fold_constant=False, drop_rank=3),
        Column("packets", sent, align="right", fold_constant=False, drop_rank=4),
        Column("marks", marks, align="right", fold_constant=False, drop_rank=1),
        Column("drops", drops, align="right", fold_constant=False, drop_rank=2),
    ]  # fmt: skip
    return OutputTable(
        "queues",
        f"Queues (DualPI2 on link {link})",
        columns,
        notes=[
            "L: the low-latency queue (ECT(1) and CE unless [topology.dualpi2] classify says "
            f"otherwise), C: the classic queue. delay: the head packet's waiting time, sampled "
            f"every {every} ms (0 while empty); packets sent, marks and drops by the last sample"
        ],
    )


# ---- fairness, and why flows configured alike differ -------------------------------------------


def _flows_numbered(numbers: Sequence[int]) -> str:
    """``flow 4``, ``flows 4 and 7``, ``flows 1, 2 and 3``, ``6 flows (1, 2, 3, 4, 5, ...)``."""
    shown = [str(n) for n in numbers]
    if len(shown) == 1:
        return f"flow {shown[0]}"
    if len(shown) > 5:
        return f"{len(shown)} flows ({', '.join(shown[:5])}, ...)"
    return f"flows {', '.join(shown[:-1])} and {shown[-1]}"


def _span(values: Sequence[float], scale: float = 1.0) -> str:
    """``7.79 to 13.4``: the range of ``values`` (times ``scale``), or the one value."""
    cells = compact_numbers([min(values), max(values)], scale)
    return cells[0] if cells[0] == cells[1] else f"{cells[0]} to {cells[1]}"


def _each(values: Sequence[float], scale: float = 1.0) -> str:
    """``1.12 and 1.13``: each value (times ``scale``), in order; a range when there are many."""
    if len(values) > 3:
        return _span(values, scale)
    cells = compact_numbers(values, scale)
    return cells[0] if len(cells) == 1 else f"{', '.join(cells[:-1])} and {cells[-1]}"


def _rounded(values: Sequence[float]) -> list[float]:
    """Counts per event, to the unit from 10 up and to a tenth below."""
    return [float(round(v)) if v >= 10 else round(v, 1) for v in values]


def _per_recovery(row: Mapping[str, Any]) -> float:
    """Segments retransmitted per loss recovery (fast retransmit or timeout) of a flow."""
    events = (row.get("fast_retransmits") or 0) + (row.get("timeouts") or 0)
    return float(row.get("retransmits") or 0) / max(events, 1)


def _recovery_reason(cc: str, recovery: str | None, profile: str) -> str:
    """What the run's loss recovery does with several losses in one window."""
    procedure = RECOVERY_NAMES.get(recovery or "", recovery or "its algorithm's own")
    where = f"The {profile} profile runs {cc} with {procedure} recovery"
    if recovery == "newreno":
        return (
            f"{where}, without SACK: it repairs one lost segment per round trip, so a window "
            "that lost many takes many round trips, or a timeout"
        )
    if recovery == "reno":
        return (
            f"{where}: it leaves recovery at the first new ACK, so further losses of the window "
            "wait for another fast retransmit or a timeout"
        )
    return f"{where}: which flows a burst of drops hits decides who backs off"


def fairness_lines(
    flows: Any,
    groups: Sequence[Sequence[int]],
    summary: Mapping[str, Any],
    recoveries: Mapping[str, str],
) -> list[str]:
    """Jain's index of the bulk flows' goodputs (overall, and within each group of flows
    configured alike), and, for the group of alike flows that differ most (max/min goodput
    above :data:`SPREAD_RATIO` or Jain below :data:`SPREAD_JAIN`), a line on what the flows
    table shows of why, and where the documentation explains it."""
    from ccsim.metrics import jain_index  # numpy: only once there are flows

    by_flow = {int(row["flow"]): row for row in flows.to_dict("records")}
    bulk = [
        n
        for n, row in by_flow.items()
        if int(row.get("generator", -1)) < 0 and row.get("goodput_bps") is not None
    ]
    if len(bulk) < 2:
        return []
    goodput = {n: float(by_flow[n]["goodput_bps"]) for n in bulk}
    alike = [[n for n in group if n in goodput] for group in groups if len(group) >= 2]
    alike = [g for g in alike if len(g) >= 2]
    line = f"Jain's fairness index of the goodputs: {jain_index(list(goodput.values())):.3f} over {len(bulk)} flows"
    if len(alike) > 1 or (alike and len(alike[0]) != len(bulk)):
        parts = [
            f"{jain_index([goodput[n] for n in g]):.3f} among flows {g[0]}-{g[-1]} ({by_flow[g[0]]['cc']})"
            for g in alike
        ]
        line += f"; {', '.join(parts)}"
    lines = [line + " (1 = equal shares)"]
    spread = [g for g in alike if _spread(g, goodput)]
    if spread:
        worst = min(spread, key=lambda g: jain_index([goodput[n] for n in g]))
        stack = summary.get("stack") or {}
        profile = str(stack.get("profile", summary.get("profile")))
        cc = str(by_flow[worst[0]]["cc"])
        recovery = stack.get("recovery") or recoveries.get(cc)
        lines.append(_why_line(worst, by_flow, goodput, cc, recovery, profile))
    return lines


def _spread(group: Sequence[int], goodput: Mapping[int, float]) -> bool:
    from ccsim.metrics import jain_index

    values = [goodput[n] for n in group]
    low, high = min(values), max(values)
    return (high > SPREAD_RATIO * low) or jain_index(values) < SPREAD_JAIN


def _why_line(
    group: Sequence[int],
    by_flow: Mapping[int, Mapping[str, Any]],
    goodput: Mapping[int, float],
    cc: str,
    recovery: str | None,
    profile: str,
) -> str:
    ordered = sorted(group, key=lambda n: goodput[n])
    median = goodput[ordered[len(ordered) // 2]]
    slow = [n for n in group if goodput[n] < median / 2] or [ordered[0]]
    others = [n for n in group if n not in slow]
    unit, factor = rate_unit([goodput[n] for n in group])
    said = (
        f"why: {_flows_numbered(slow)} got {_each([goodput[n] for n in slow], 1 / factor)} "
        f"{unit}, the {len(others)} other {cc} flows configured alike "
        f"{_span([goodput[n] for n in others], 1 / factor)}"
    )
    seen = []
    timeouts = {n: float(by_flow[n].get("timeouts") or 0) for n in group}
    slow_timeouts = sum(timeouts[n] for n in slow) / len(slow)
    other_timeouts = sum(timeouts[n] for n in others) / max(len(others), 1)
    if slow_timeouts >= other_timeouts + 1:
        seen.append(
            f"they timed out {_each([timeouts[n] for n in slow])} times, the others "
            f"{_span([timeouts[n] for n in others])}"
        )
    per_recovery = {n: _per_recovery(by_flow[n]) for n in group}
    slow_longest = max(per_recovery[n] for n in slow)
    others_longest = max((per_recovery[n] for n in others), default=0.0)
    if slow_longest > 2 * max(others_longest, 1.0):
        seen.append(
            f"they retransmitted {_each(_rounded([per_recovery[n] for n in slow]))} segments "
            f"per loss recovery, the others {_span(_rounded([per_recovery[n] for n in others]))}"
        )
    if not seen:
        seen.append(
            "the flows table shows no more timeouts or longer recoveries for them: which flows "
            "the drops hit, and when, decides it (docs/phase-effects.md)"
        )
    return f"{said}: {'; '.join(seen)}. {_recovery_reason(cc, recovery, profile)} ({SPREAD_DOCS})."
