"""What a run will hold and write, estimated before it starts, and the scenario's checks against
``[limits]``: flows in all, open-loop transfers, packets a buffer holds, sampled rows, the memory
of the sampled series and the bytes of the pcap files.

A refusal names the key, the estimate and the limit in one line, and how to raise the limit.
"""

from __future__ import annotations

from typing import Any

import ccsim.scenario.engine as engine
from ccsim import pycc
from ccsim.errors import ScenarioError
from ccsim.scenario.fields import KeyPath
from ccsim.scenario.resolve import ScenarioTables
from ccsim.scenario.topology import Dumbbell, Explicit, ParkingLot
from ccsim.scenario.traffic import (
    DEFAULT_MSS,
    ClosedLoopGenerator,
    FlowGroup,
    OpenLoopGenerator,
    Transfer,
)
from ccsim.units import HEADER_BYTES, format_rate, format_size, format_time


def check_limits(scenario: ScenarioTables) -> None:
    """Quantities that multiply into memory or events, against ``[limits]``."""
    limits = scenario.limits
    total = 0
    sources: list[tuple[KeyPath, int]] = [
        (("flows", i, "count"), group.count) for i, group in enumerate(scenario.flows)
    ]
    for i, gen in enumerate(scenario.generators):
        if isinstance(gen, ClosedLoopGenerator):
            sources.append((("generators", i, "slots"), gen.slots))
        else:
            default = max(len(gen.rtt_choices), len(gen.endpoints), 1)
            sources.append((("generators", i, "sources"), gen.sources or default))
    for path, n in sources:
        total += n
        if total > limits.flows:
            raise _over_limit(str(n), "flows in all", limits.flows, "flows", path)
    expected = 0.0
    for i, gen in enumerate(scenario.generators):
        if isinstance(gen, OpenLoopGenerator):
            end = min(gen.stop if gen.stop is not None else scenario.duration, scenario.duration)
            expected += gen.rate * max(0, end - gen.start) / 1e9
            if expected > limits.transfers:
                shown = f"{gen.rate:g} per second (about {expected:.3g} transfers)"
                raise _over_limit(
                    shown, "transfers", limits.transfers, "transfers", ("generators", i, "rate")
                )
    packet = scenario.largest_mss() + HEADER_BYTES
    rtt = scenario.bdp_rtt_ns()
    for path, buffer, rate in scenario.topology.buffer_rates():
        if buffer.unit == "bdp" and rtt is None:
            continue  # reported by Scenario._check_bdp_rtt
        pkts, size = buffer.limits(rate, rtt, packet)
        held = pkts if pkts is not None else -(-(size or 0) // packet)
        if held > limits.buffer_pkts:
            raise ScenarioError(
                f'"{buffer}" is {held} packets; expected at most {limits.buffer_pkts} '
                "(set limits.buffer_pkts in the scenario to allow more)",
                path,
            )
    if scenario.trace.sample_interval is not None:
        rows = (total + 1) * (scenario.duration // scenario.trace.sample_interval + 1)
        if rows > limits.samples:
            raise ScenarioError(
                f'"{format_time(scenario.trace.sample_interval)}" gives about {rows} samples; '
                f"expected at most {limits.samples} (a longer interval, or set "
                "limits.samples in the scenario to allow more)",
                ("trace", "sample_interval"),
            )
        _check_series_bytes(scenario)
    _check_pcap_bytes(scenario)


def _check_series_bytes(scenario: ScenarioTables) -> None:
    limit = scenario.limits.series_bytes
    estimate, flow_rows, queue_rows = estimated_series_bytes(scenario)
    if estimate <= limit:
        return
    inspect = _inspect_columns(scenario)
    columns = f" ({inspect} inspect columns each)" if inspect else ""
    # An algorithm written in Python is counted at the bound: lowering it lowers the estimate.
    fewer = ", a lower limits.inspect_columns" if inspect == scenario.limits.inspect_columns else ""
    raise ScenarioError(
        f'"{format_time(scenario.trace.sample_interval or 0)}" gives {flow_rows:.3g} flow rows'
        f"{columns} and {queue_rows:.3g} queue rows, about {_gigabytes(estimate)} in memory; "
        f'expected at most {_gigabytes(limit)} (limits.series_bytes = "{format_size(limit)}"):'
        f" a longer interval, a shorter run or fewer flows{fewer}, or set "
        "limits.series_bytes in the scenario to allow more",
        ("trace", "sample_interval"),
    )


def _check_pcap_bytes(scenario: ScenarioTables) -> None:
    limit = scenario.limits.pcap_bytes
    files = estimated_pcap_bytes(scenario)
    estimate = sum(size for _, _, size in files)
    if estimate <= limit:
        return
    path, what, size = max(files, key=lambda file: file[2])
    points = f"{len(files)} capture point{'s' if len(files) != 1 else ''}"
    raise ScenarioError(
        f"{points} over {format_time(scenario.duration)} would write about "
        f"{_gigabytes(estimate)} of pcap files (the largest: {what}, {_gigabytes(size)}); "
        f'expected at most {_gigabytes(limit)} (limits.pcap_bytes = "{format_size(limit)}"):'
        " capture fewer links or flows or a shorter run, or set limits.pcap_bytes in the "
        "scenario to allow more",
        path,
    )


def _over_limit(shown: str, what: str, limit: int, key: str, path: KeyPath) -> ScenarioError:
    return ScenarioError(
        f"{shown} is too many {what}; expected at most {limit} "
        f"(set limits.{key} in the scenario to allow more)",
        path,
    )


# What the sampled series and the pcap files of a run take, estimated before it starts.
#
# Series: the engine records each row's values in columns (a flow row: t_s, cwnd_pkts,
# ssthresh_pkts, srtt_s and rate_bps as f64, flow as u32; a queue row: t_s, avg_queue_pkts as
# f64, queue_bytes as u64, link and queue_pkts as u32; each inspect name an f64 column). The peak
# comes after the run, when the columns exist about three times over: the engine's bytes handed
# to Python, the arrays made from them and the DataFrame's blocks. Measured with /usr/bin/time -v
# (maximum resident set size less that of the same run without sampling), 100 flows sampled
# every 1 ms for 100 s (1e7 flow rows): newreno 129 B per row (3 x 44 = 132), cubic with 2 inspect
# columns 179 B (3 x 60 = 180), sync-tcp with 5 columns 252 B (3 x 84 = 252).
SERIES_PEAK_COPIES = 3
SERIES_FLOW_ROW_BYTES = 5 * 8 + 4
SERIES_QUEUE_ROW_BYTES = 2 * 8 + 8 + 2 * 4
SERIES_INSPECT_VALUE_BYTES = 8
#: The inspect names of each queue discipline (Qdisc::inspect in crates/ccsim-core), for the
#: columns of the queues table; RED reports its marks only with ECN, CoDel and FQ-CoDel their
#: ce_marks only with ce_threshold, PIE its step_marks only with l4s_step.
QUEUE_INSPECT_NAMES: dict[str, frozenset[str]] = {
    "droptail": frozenset(),
    "red": frozenset({"marks"}),
    "step": frozenset({"marks"}),
    "codel": frozenset({"sojourn_s", "drop_state", "aqm_count", "aqm_drops", "marks", "ce_marks"}),
    "fq_codel": frozenset({"sojourn_s", "drop_state", "aqm_drops", "marks", "ce_marks"}),
    "pie": frozenset({"sojourn_s", "drop_prob", "aqm_drops", "marks", "step_marks"}),
    "dualpi2": frozenset(
        {
            "sojourn_s",
            "prob_base",
            "prob_c",
            "prob_l",
            *(f"{q}_{name}" for q in "cl" for name in ("len_pkts", "delay_s", "in", "out")),
            *(f"{q}_{name}" for q in "cl" for name in ("drops", "marks")),
            "l_step_marks",
            "aqm_drops",
            "marks",
        }
    ),
}
# pcap: a record is a 16-byte header and the packet's headers: IPv4 (20) and TCP with the
# timestamp option (32); SACK blocks lengthen some ACKs. Measured: 1 Gb/s for 10 s captured at
# the bottleneck gave 80 882 640 bytes for 1 189 450 packets (68.0 B each, 99% of the link's
# rate in 1040-byte packets); one flow's capture 68.2 B per data packet and ACK. The run holds
# about twice the files' bytes at the end (the engine's records and files, then Python's copy).
PCAP_RECORD_BYTES = 68


def estimated_series_bytes(scenario: ScenarioTables) -> tuple[int, int, int]:
    """The memory the sampled series of ``scenario`` take at their peak, with their rows:
    ``(bytes, flow rows, queue rows)``; zeros without ``trace.sample_interval``.

    Every flow of a group is counted from its start to the end of the run, each closed-loop slot
    and open-loop source as one flow for the whole run. A flow row carries the inspect columns
    the scenario's engine algorithms report, or ``limits.inspect_columns`` of them when an
    algorithm written in Python has an ``inspect()`` (it may report any names, up to that bound).
    """
    interval = scenario.trace.sample_interval
    if interval is None:
        return 0, 0, 0

    def samples_after(start: int) -> int:
        return max(0, scenario.duration - start) // interval + 1

    flow_rows = sum(group.count * samples_after(group.start) for group in scenario.flows)
    for gen in scenario.generators:
        if isinstance(gen, ClosedLoopGenerator):
            concurrent = gen.slots
        else:
            concurrent = gen.sources or max(len(gen.rtt_choices), len(gen.endpoints), 1)
        flow_rows += concurrent * samples_after(gen.start)
    queue_kinds = _monitored_queue_kinds(scenario.topology)
    queue_rows = len(queue_kinds) * samples_after(0)
    queue_columns = len(frozenset().union(*(QUEUE_INSPECT_NAMES.get(k, ()) for k in queue_kinds)))
    flow_bytes = SERIES_FLOW_ROW_BYTES + _inspect_columns(scenario) * SERIES_INSPECT_VALUE_BYTES
    queue_bytes = SERIES_QUEUE_ROW_BYTES + queue_columns * SERIES_INSPECT_VALUE_BYTES
    total = SERIES_PEAK_COPIES * (flow_rows * flow_bytes + queue_rows * queue_bytes)
    return total, flow_rows, queue_rows


def _inspect_columns(scenario: ScenarioTables) -> int:
    """The inspect columns a flow row of the series may carry (see estimated_series_bytes)."""
    bound = scenario.limits.inspect_columns
    registry = engine.algorithm_registry() or {}
    names: set[str] = set()
    for transfer in [*scenario.flows, *scenario.generators]:
        if pycc.is_python_cc(transfer.cc):
            # Checked importable already (check_algorithm); its names are known only at run time.
            if pycc.resolve(transfer.cc).inspect is not pycc.CongestionControl.inspect:
                return bound
            continue
        names.update(registry.get(transfer.cc, {}).get("inspect", ()))
    return min(len(names) + _stack_inspect_columns(scenario), bound)


def _stack_inspect_columns(scenario: ScenarioTables) -> int:
    """The inspect columns the stack adds to every flow's, whatever its algorithm: HyStart++'s
    phase and baseline, and the counts of DSACKs, undos and spurious timeouts under SACK-based
    recovery (crates/ccsim-core/src/cc/common/hystart_pp.rs, tcp/undo.rs). At most what the
    engine reports: a guard may count a column that a run leaves out."""
    profile = (engine.stack_profiles() or {}).get(scenario.profile, {})

    def knob(key: str) -> Any:
        written = getattr(scenario.stack, key, None)
        return profile.get(key) if written is None else written

    columns = 2 if knob("hystart") not in (None, "off") else 0
    if knob("recovery") in ("sack", "rack-tlp") or knob("sack"):
        if knob("dsack") or knob("undo") or knob("frto"):
            columns += 3 if knob("frto") else 2
    return columns


def _monitored_queue_kinds(topology: Dumbbell | ParkingLot | Explicit) -> list[str]:
    """The queue discipline of every link whose queue is sampled (as the engine picks them:
    both directions of a dumbbell's or parking lot's core links; the explicit links marked
    ``monitor``, in their given direction, or every direction of every link when none is)."""
    if isinstance(topology, Dumbbell):
        return [topology.queue] * 2
    if isinstance(topology, ParkingLot):
        return [topology.queue] * (2 * (topology.routers - 1))
    if any(link.monitor for link in topology.links):
        return [link.queue for link in topology.links if link.monitor]
    return [link.queue for link in topology.links for _ in range(2 if link.duplex else 1)]


def estimated_pcap_bytes(scenario: ScenarioTables) -> list[tuple[KeyPath, str, int]]:
    """The bytes of each pcap file of ``[trace] pcap``, estimated: ``(key path, what, bytes)``.

    A link's file: every packet the link can carry at its rate, in packets of the smallest MSS,
    from the first transfer's start to the end of the run. A flow's file: its data packets at the
    rate of its path's slowest access or core link (at most each segment of a finite transfer
    twice), and an ACK for each.
    """
    pcap = scenario.trace.pcap
    if pcap is None:
        return []
    transfers: list[Transfer] = [*scenario.flows, *scenario.generators]
    packet = min((t.mss for t in transfers), default=DEFAULT_MSS) + HEADER_BYTES
    first_start = min((t.start for t in transfers), default=0)
    topology = scenario.topology

    def packets_at(rate: int, start: int) -> int:
        return rate * max(0, scenario.duration - start) // (8 * 10**9 * packet)

    out: list[tuple[KeyPath, str, int]] = []
    for i, name in enumerate(pcap.links):
        rate = _link_rate(topology, name)
        packets = packets_at(rate, first_start)
        shown = f"{name} at {format_rate(rate)}" if rate else name
        out.append((("trace", "pcap", "links", i), shown, packets * PCAP_RECORD_BYTES))
    groups = [group for group in scenario.flows for _ in range(group.count)]
    for i, flow in enumerate(pcap.flows):
        if flow < len(groups):
            group = groups[flow]
            rate = _path_rate(topology, group)
            data = packets_at(rate, group.start)
            if group.size is not None:
                data = min(data, 2 * -(-group.size // group.mss))
        else:
            # A generator's transfer: its size is drawn at run time.
            rate = max(_link_rates(topology).values(), default=0)
            data = packets_at(rate, first_start)
        shown = f"flow {flow} at {format_rate(rate)}"
        out.append((("trace", "pcap", "flows", i), shown, 2 * data * PCAP_RECORD_BYTES))
    return out


def _link_rates(topology: Dumbbell | ParkingLot | Explicit) -> dict[str, int]:
    """The rate of every "SRC->DST" link between named nodes (routers and explicit nodes)."""
    if isinstance(topology, Explicit):
        rates = {}
        for link in topology.links:
            rates[f"{link.src}->{link.dst}"] = link.rate
            if link.duplex:
                rates[f"{link.dst}->{link.src}"] = link.rate
        return rates
    if isinstance(topology, Dumbbell):
        return {"R1->R2": topology.bottleneck_rate, "R2->R1": topology.bottleneck_rate}
    rates = {}
    for i in range(topology.routers - 1):
        rates[f"R{i}->R{i + 1}"] = rates[f"R{i + 1}->R{i}"] = topology.rate
    return rates


def _link_rate(topology: Dumbbell | ParkingLot | Explicit, name: str) -> int:
    """The rate of the link named "SRC->DST": a core link's, else (a host's link on a dumbbell
    or parking lot) the access rate; 0 for a name the engine will reject."""
    rates = _link_rates(topology)
    if name in rates or isinstance(topology, Explicit):
        return rates.get(name, 0)
    return topology.access_rate or 0


def _path_rate(topology: Dumbbell | ParkingLot | Explicit, flow: FlowGroup) -> int:
    """An upper bound on a flow's rate: its slowest link among access and core on a dumbbell or
    parking lot; on an explicit topology the slower of the fastest link out of its source and
    the fastest into its destination."""
    if isinstance(topology, Dumbbell):
        return min(topology.bottleneck_rate, topology.access_rate or topology.bottleneck_rate)
    if isinstance(topology, ParkingLot):
        return min(topology.rate, topology.access_rate or topology.rate)
    rates = _link_rates(topology)
    src, dst = (flow.dst, flow.src) if flow.reverse else (flow.src, flow.dst)
    out = max((r for name, r in rates.items() if name.split("->")[0] == src), default=0)
    into = max((r for name, r in rates.items() if name.split("->")[1] == dst), default=0)
    return min(out, into)


def _gigabytes(n: int) -> str:
    """Bytes for a reader: ``"13 GB"``, ``"981 MB"``."""
    return f"{n / 1e9:.3g} GB" if n >= 10**9 else f"{n / 1e6:.3g} MB"
