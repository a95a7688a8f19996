"""Packet exchanges of loss recovery, as Linux's packetdrill tests assert them: one flow over a
whole stack, chosen segments lost, and the sender's capture (``[trace] pcap``) read segment by
segment: when a retransmission leaves, after which ACKs, and how much is sent in recovery.

A segment is lost by a loss schedule on the bottleneck that is (almost) 1 exactly while that
segment is put on the wire: a first run without losses gives the times, and the run with the
schedule must drop exactly the chosen segments (else the measurement raises). The runs are
deterministic, so the same segment is on the wire at the same time in both."""

from __future__ import annotations

import itertools
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from ccsim.conformance.check import Check
from ccsim.runner import run
from ccsim.scenario import Scenario

__all__ = ["CHECKS", "Segment", "read_pcap"]

MSS = 1000
#: The bottleneck's one-way delay: the drop log stamps a drop this long after the loss decision.
BOTTLENECK_DELAY_S = 0.010
#: A loss schedule's probabilities lie in [0, 1); the runs check that the chosen segments, and no
#: others, were dropped.
CERTAIN = 0.999999


@dataclass(frozen=True)
class Segment:
    """One TCP segment of a capture: ``outgoing`` from the flow's sender; sequence numbers
    relative to the first byte of data (ACKs: the next byte expected), SACK blocks likewise."""

    t: float
    outgoing: bool
    seq: int
    ack: int
    length: int
    sack: tuple[tuple[int, int], ...]
    syn: bool = False


def read_pcap(data: bytes) -> list[Segment]:
    """The segments of a ccsim capture (nanosecond pcap, raw IPv4): the sender is the first
    packet's source; the data's sequence numbers start after the SYN's."""
    (magic,) = struct.unpack_from("<I", data)
    if magic != 0xA1B23C4D:
        raise ValueError(f"not a nanosecond pcap (magic {magic:#x})")
    raw = []
    offset = 24
    while offset < len(data):
        sec, nsec, length, _ = struct.unpack_from("<IIII", data, offset)
        packet = data[offset + 16 : offset + 16 + length]
        offset += 16 + length
        ihl = (packet[0] & 0xF) * 4
        (total,) = struct.unpack_from(">H", packet, 2)
        tcp = packet[ihl:]
        seq, ack = struct.unpack_from(">II", tcp, 4)
        doff = (tcp[12] >> 4) * 4
        syn = bool(tcp[13] & 0x02)
        raw.append(
            (sec + nsec * 1e-9, packet[12:16], seq, ack, total - ihl - doff, syn, tcp[20:doff])
        )
    sender = raw[0][1]
    data_isn = int(next(r[2] for r in raw if r[1] == sender)) + 1

    def rel(x: int) -> int:
        return (x - data_isn) % 2**32

    out = []
    for t, src, seq, ack, length, syn, options in raw:
        outgoing = src == sender
        blocks = tuple((rel(a), rel(b)) for a, b in _sack_blocks(options))
        seq_rel = rel(seq) if outgoing and not syn else 0
        ack_rel = rel(ack) if not outgoing and not syn else 0
        out.append(Segment(t, outgoing, seq_rel, ack_rel, length, blocks, syn))
    return out


def _sack_blocks(options: bytes) -> list[tuple[int, int]]:
    blocks = []
    i = 0
    while i < len(options):
        kind = options[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        size = options[i + 1]
        if kind == 5:
            blocks += [struct.unpack_from(">II", options, j) for j in range(i + 2, i + size, 8)]
        i += max(size, 2)
    return blocks


def _scenario(
    size: str, recovery: str, loss_schedule: list[list[Any]] | None, duration: str = "10s"
) -> dict[str, Any]:
    """One Reno transfer of ``size`` over 10 Mb/s, 40 ms, a buffer it never fills, Linux's
    stack with ``recovery``; its sender's capture and the capture of the link after the
    bottleneck (when each segment left it), and the drop log."""
    topology: dict[str, Any] = {
        "kind": "dumbbell",
        "bottleneck_rate": "10Mbps",
        "bottleneck_delay": f"{BOTTLENECK_DELAY_S * 1e3:g}ms",
        "buffer": "1000pkts",
    }
    if loss_schedule:
        topology["loss_schedule"] = loss_schedule
    return {
        "name": "conformance-exchange",
        "seed": 1,
        "duration": duration,
        "profile": "linux",
        "stack": {"recovery": recovery},
        "topology": topology,
        "flows": [{"cc": "reno", "rtt": "40ms", "size": size, "mss": MSS}],
        "trace": {
            "pcap": {"flows": [0], "links": ["R2->r0"]},
            "drops": True,
            "sample_interval": "1ms",
        },
    }


@cache
def _exchange(
    size: str, recovery: str, lost: tuple[int, ...], duration: str = "10s"
) -> tuple[list[Segment], Any]:
    """The sender's capture and the results of a transfer whose segments ``lost`` (0-based,
    consecutive, first transmissions) are lost at the bottleneck, and only they."""
    base = run(Scenario.model_validate(_scenario(size, recovery, None, duration)))
    # A segment's loss is decided as it leaves the bottleneck, one delay before the next link.
    left = [s.t - BOTTLENECK_DELAY_S for s in read_pcap(base.pcap["link-R2-r0"]) if s.length > 0]
    first, last = min(lost), max(lost)
    start = (left[first - 1] + left[first]) / 2
    end = (left[last] + left[last + 1]) / 2 if last + 1 < len(left) else left[last] + 1e-3
    schedule = [[f"{start * 1e9:.0f}ns", CERTAIN], [f"{end * 1e9:.0f}ns", 0.0]]
    results = run(Scenario.model_validate(_scenario(size, recovery, schedule, duration)))
    dropped = sorted(int(s) for s in results.drops["seq"])
    if dropped != sorted(lost):
        raise RuntimeError(f"the loss schedule dropped segments {dropped}, not {sorted(lost)}")
    return read_pcap(results.pcap["flow-0"]), results


def _retransmissions(capture: Sequence[Segment], seq: int) -> list[float]:
    """Times the segment starting at byte ``seq`` left after its first transmission."""
    sent = [s.t for s in capture if s.outgoing and s.length > 0 and s.seq == seq]
    return sent[1:]


def _dupacks_before_fast_retransmit() -> float:
    """Duplicate ACKs the sender received before retransmitting segment 20 of 60, lost alone,
    without SACK (NewReno recovery)."""
    capture, _ = _exchange("60KB", "newreno", (20,))
    seq = 20 * MSS
    retransmitted = _retransmissions(capture, seq)[0]
    acks = [s for s in capture if not s.outgoing and s.ack == seq and s.t <= retransmitted]
    # The first ACK of ``seq`` is the new ACK of the segment before; the rest are duplicates.
    return float(len(acks) - 1)


def _send_times(capture: Sequence[Segment]) -> dict[int, float]:
    """Each segment's first transmission time."""
    first: dict[int, float] = {}
    for s in capture:
        if s.outgoing and s.length > 0:
            first.setdefault(s.seq, s.t)
    return first


def _min_rtt(capture: Sequence[Segment]) -> float:
    """The smallest RTT sample: the handshake's, or a cumulative ACK's time less the first send
    of the segment it completes, for segments sent once (Karn)."""
    sent = _send_times(capture)
    retransmitted = {s.seq for s in capture if s.outgoing and s.length > 0 and sent[s.seq] != s.t}
    samples = [
        s.t - sent[s.ack - MSS]
        for s in capture
        if not s.outgoing and s.ack - MSS in sent and s.ack - MSS not in retransmitted
    ]
    syn, syn_ack = (
        next(s.t for s in capture if s.syn and s.outgoing is way) for way in (True, False)
    )
    return min([syn_ack - syn, *samples])


def _rack_reordering_window() -> float:
    """Segments 56 and 57 of 60 lost: two segments above them are SACKed (fewer than DupThresh),
    so RACK waits its reordering window before marking them lost. Returns the wait in minimum
    RTTs: the retransmission's time, less the lost segment's send time and RACK.rtt (the RTT of
    the most recently sent segment the last ACK delivered)."""
    capture, _ = _exchange("60KB", "rack-tlp", (56, 57))
    sent = _send_times(capture)
    lost = 56 * MSS
    retransmitted = _retransmissions(capture, lost)[0]
    last_ack = [s for s in capture if not s.outgoing and s.t <= retransmitted][-1]
    newest = max((b - MSS for _, b in last_ack.sack), key=lambda seq: sent[seq])
    rack_rtt = last_ack.t - sent[newest]
    return (retransmitted - sent[lost] - rack_rtt) / _min_rtt(capture)


def _tlp_probe_timeout() -> float:
    """The last two segments of 60 lost: nothing arrives to SACK, and the sender's loss probe
    leaves a probe timeout after the last ACK. Returns it in SRTTs (the sender's, sampled
    between that ACK and the probe)."""
    capture, results = _exchange("60KB", "rack-tlp", (58, 59))
    probe = min(_retransmissions(capture, 58 * MSS) + _retransmissions(capture, 59 * MSS))
    last_ack = [s for s in capture if not s.outgoing and s.t < probe][-1]
    series = results.series
    between = series[(series["t_s"] > last_ack.t) & (series["t_s"] < probe)]
    return (probe - last_ack.t) / float(between["srtt_s"].iloc[-1])


def _prr_send_ratio() -> float:
    """One segment lost from a bulk window of Reno under Linux's stack (RACK-TLP, PRR): over the
    first half of the recovery's ACKs, segments sent (the retransmission included) per segment
    those ACKs delivered (cumulatively ACKed or newly SACKed). PRR sends ssthresh / RecoverFS of
    what is delivered; RFC 6675 alone would send nothing there (pipe is still above ssthresh)."""
    capture, _ = _exchange("inf", "rack-tlp", (120,), "1s")
    start = _retransmissions(capture, 120 * MSS)[0]
    recovery_point = max(s.seq + s.length for s in capture if s.outgoing and s.t < start)
    sacked: set[int] = set()
    una = 0
    acks: list[tuple[float, int]] = []  # the recovery's ACKs after the one that started it
    for s in capture:
        if s.outgoing:
            continue
        covered = {seq for a, b in s.sack for seq in range(a, b, MSS)}
        covered |= set(range(una, s.ack, MSS))
        newly = covered - sacked
        sacked |= newly
        una = max(una, s.ack)
        if s.t > start:
            acks.append((s.t, len(newly)))
            if s.ack >= recovery_point:
                break
    half = len(acks) // 2
    until = acks[half][0]  # what the first half's ACKs let out leaves before the next ACK
    sent = sum(1 for s in capture if s.outgoing and s.length > 0 and start <= s.t < until)
    return sent / sum(n for _, n in acks[:half])


def _rto_backoff() -> float:
    """A bulk transfer whose path loses everything after 1 s: the mean ratio of
    successive intervals between the retransmissions of the first lost segment (each a
    timeout's)."""
    data = _scenario("inf", "rack-tlp", [["1s", CERTAIN], ["30s", 0.0]], duration="30s")
    results = run(Scenario.model_validate(data))
    drops = results.drops
    first = int(drops["seq"].min())
    # The first drop is the segment's original transmission, lost before any timeout.
    times = sorted(float(t) for t in drops[drops["seq"] == first]["t_s"])[1:]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    if len(gaps) < 3:
        raise RuntimeError(
            f"{len(times)} transmissions of the first lost segment: too few to see backoff"
        )
    ratios = [b / a for a, b in itertools.pairwise(gaps)]
    return sum(ratios) / len(ratios)


CHECKS = [
    Check(
        "recovery.dupthresh",
        "Fast retransmit: duplicate ACKs before a lost segment's retransmission (NewReno, no SACK)",
        "RFC 5681 section 3.2: the third duplicate ACK triggers fast retransmit",
        3.0,
        0.0,
        False,
        (),
        lambda u: _dupacks_before_fast_retransmit(),
    ),
    Check(
        "recovery.rack_reo_wnd",
        "RACK: wait beyond RACK.rtt before a lost segment is retransmitted, 2 SACKed (min RTTs)",
        "RFC 8985 section 6.2: reo_wnd = min_RTT / 4 while fewer than DupThresh segments are SACKed",
        0.25,
        0.01,
        False,
        (),
        lambda u: _rack_reordering_window(),
    ),
    Check(
        "recovery.tlp_pto",
        "TLP: loss probe after the last ACK when the tail is lost (SRTTs)",
        "RFC 8985 section 7.2: PTO = 2 SRTT with more than one segment in flight",
        2.0,
        0.02,
        False,
        (),
        lambda u: _tlp_probe_timeout(),
    ),
    Check(
        "recovery.prr_rate",
        "PRR: segments sent per segment delivered over the first half of a Reno recovery",
        "RFC 6937 section 3: sndcnt = prr_delivered x ssthresh / RecoverFS - prr_out (0.5 for Reno)",
        0.5,
        0.05,
        False,
        (),
        lambda u: _prr_send_ratio(),
    ),
    Check(
        "recovery.rto_backoff",
        "RTO: ratio of successive retransmission timeouts while everything is lost",
        "RFC 6298 section 5.5: RTO <- 2 RTO at each expiry",
        2.0,
        0.02,
        False,
        (),
        lambda u: _rto_backoff(),
    ),
]
