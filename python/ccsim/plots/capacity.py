"""The capacity of a bottleneck that changes (a rate schedule or a trace, docs/links.md), drawn
under the flows' sending rates in the throughput figure.

The capacity is read from the resolved scenario: a step at each point of a rate schedule (the
link's own rate before the first, points recurring with ``repeat_ns``), or for a trace, the
opportunities of each bin times 1500 bytes over the bin (a trace's capacity is in bursts, a
millisecond at a time, and is shown averaged, by default over the run's sample interval)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes

from ccsim.scenario.link_changes import OPPORTUNITY_BYTES

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000
#: The bin of a trace's capacity when the run sampled no series.
DEFAULT_BIN_NS = 100 * NS_PER_MS


def bottleneck_link(topology: Mapping[str, Any]) -> Mapping[str, Any]:
    """The link direction whose capacity the throughput figure shows: the dumbbell's
    bottleneck or the parking lot's router-to-router links, data direction; on an explicit
    topology, the first monitored link (else the first)."""
    if topology["kind"] in ("dumbbell", "parking_lot"):
        forward: Mapping[str, Any] = topology["forward"]
        return forward
    links: list[Mapping[str, Any]] = topology["links"]
    return next((link for link in links if link.get("monitor")), links[0])


def changes_rate(link: Mapping[str, Any]) -> bool:
    """Whether the link's capacity changes during the run."""
    return "rate_schedule" in link or "trace" in link


def capacity_steps(
    link: Mapping[str, Any], until_ns: int, bin_ns: int = DEFAULT_BIN_NS
) -> tuple[list[float], list[float]]:
    """The link's capacity from 0 to ``until_ns``: (times s, bit/s), a step from each time to
    the next (the last value holds to ``until_ns``, the last time)."""
    if "trace" in link:
        return _trace_steps(link["trace"]["ms"], until_ns, bin_ns)
    rate = int(link["rate_bps"])
    schedule = link.get("rate_schedule")
    if schedule is None:
        return [0.0, until_ns / NS_PER_S], [float(rate), float(rate)]
    points = [(int(at), int(value)) for at, value in schedule["points"]]
    period = int(schedule.get("repeat_ns", 0))
    changes: list[tuple[int, int]] = []
    cycle = 0
    while True:
        offset = cycle * period
        changes += [(offset + at, value) for at, value in points if offset + at < until_ns]
        cycle += 1
        if period == 0 or cycle * period >= until_ns:
            break
    times, rates = [0.0], [float(rate)]
    for at, value in changes:
        times.append(at / NS_PER_S)
        rates.append(float(value))
    times.append(until_ns / NS_PER_S)
    rates.append(rates[-1])
    return times, rates


def _trace_steps(ms: list[int], until_ns: int, bin_ns: int) -> tuple[list[float], list[float]]:
    period_ns = ms[-1] * NS_PER_MS
    bins = max(1, -(-until_ns // bin_ns))
    counts = [0] * bins
    cycle = 0
    while cycle * period_ns < until_ns:
        for entry in ms:
            at = cycle * period_ns + entry * NS_PER_MS
            if at >= until_ns:
                break
            counts[at // bin_ns] += 1
        cycle += 1
    bits_per_s = [n * OPPORTUNITY_BYTES * 8 * NS_PER_S / bin_ns for n in counts]
    times = [i * bin_ns / NS_PER_S for i in range(bins)] + [until_ns / NS_PER_S]
    return times, [*bits_per_s, bits_per_s[-1]]


def draw_capacity(
    axes: Axes,
    topology: Mapping[str, Any],
    until_ns: int,
    bin_ns: int | None = None,
    *,
    x_scale: float = 1.0,
    y_scale: float = 1e-6,
    label: str = "link capacity",
) -> bool:
    """Draw the bottleneck's capacity on a throughput figure's axes as a grey step line under
    the flows, when it changes during the run: times in seconds times ``x_scale``, rates in b/s
    times ``y_scale`` (the figure's units). Returns whether it drew anything."""
    link = bottleneck_link(topology)
    if not changes_rate(link):
        return False
    times, rates = capacity_steps(link, until_ns, bin_ns or DEFAULT_BIN_NS)
    axes.step(
        [t * x_scale for t in times],
        [r * y_scale for r in rates],
        where="post",
        color="0.6",
        linewidth=1.0,
        zorder=0,
        label=label,
    )
    return True
