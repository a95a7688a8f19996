"""pcap export (``[trace] pcap``): the files of the example dumbbell, parsed with dpkt, against the
drop log and the flows and links tables; the mapping of docs/pcap.md; bad keys."""

from __future__ import annotations

import io
import struct
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

import ccsim
import dpkt
import pytest
from ccsim.errors import ScenarioError
from ccsim.results import Results
from ccsim.scenario import Scenario
from conftest import EXAMPLES, SMALL_DUMBBELL, requires_engine, run_cli

pytestmark = requires_engine

MSS = 1000  # examples/dumbbell.toml
FLOWS = 10
BOTTLENECK = "R1->R2"


def isn(flow: int) -> tuple[int, int]:
    """The sender's and the receiver's initial sequence numbers, as docs/pcap.md states them."""
    h = flow * 2654435761 % 2**32
    return (h + 1_000_000) % 2**32, (h + 3_000_000_000) % 2**32


def sender_port(flow: int) -> int:
    return 1024 + flow % 64512


@dataclass
class Seg:
    t: Decimal
    ip: dpkt.ip.IP
    orig_len: int

    @property
    def tcp(self) -> dpkt.tcp.TCP:
        return self.ip.tcp

    @property
    def payload(self) -> int:
        return self.ip.len - 4 * self.ip.hl - 4 * self.tcp.off

    def options(self) -> dict[int, bytes]:
        return dict(dpkt.tcp.parse_opts(self.tcp.opts))

    def sack_blocks(self) -> list[tuple[int, int]]:
        raw = self.options().get(dpkt.tcp.TCP_OPT_SACK, b"")
        return [struct.unpack(">II", raw[i : i + 8]) for i in range(0, len(raw), 8)]

    def timestamps(self) -> tuple[int, int]:
        return struct.unpack(">II", self.options()[dpkt.tcp.TCP_OPT_TIMESTAMP])


def parse(data: bytes) -> list[Seg]:
    """Every record of a pcap file; checks the file header on the way."""
    magic, major, minor, _, _, snaplen, linktype = struct.unpack("<IHHiIII", data[:24])
    assert (magic, major, minor, linktype) == (0xA1B23C4D, 2, 4, 101)
    reader = dpkt.pcap.Reader(io.BytesIO(data))
    out = []
    offset = 24
    for t, buf in reader:
        incl, orig = struct.unpack("<II", data[offset + 8 : offset + 16])
        offset += 16 + incl
        assert incl == len(buf) <= snaplen
        ip = dpkt.ip.IP(buf)
        assert isinstance(ip.data, dpkt.tcp.TCP)
        assert orig == ip.len, "the original length is the whole packet's"
        out.append(Seg(t, ip, orig))
    assert offset == len(data)
    return out


@cache
def dumbbell(profile: str) -> Results:
    """examples/dumbbell.toml for 3 s, every flow and the bottleneck captured, drops logged."""
    scenario = Scenario.load(EXAMPLES / "dumbbell.toml").with_overrides(
        {
            "profile": profile,
            "duration": "3s",
            "trace.drops": "true",
            "trace.pcap": f'{{ flows = {list(range(FLOWS))}, links = ["{BOTTLENECK}"] }}',
        }
    )
    return ccsim.run(scenario)


def flow_capture(results: Results, flow: int) -> tuple[list[Seg], list[Seg]]:
    """A flow's capture at its sender: (what it sent, what it received)."""
    segs = parse(results.pcap[f"flow-{flow}"])
    sent = [s for s in segs if s.tcp.sport == sender_port(flow)]
    received = [s for s in segs if s.tcp.dport == sender_port(flow)]
    assert len(sent) + len(received) == len(segs)
    return sent, received


def data_of(sent: list[Seg]) -> list[Seg]:
    return [s for s in sent if s.payload > 0]


def test_one_file_per_capture_point_in_the_scenarios_order() -> None:
    results = dumbbell("linux")
    assert list(results.pcap) == ["link-R1-R2", *(f"flow-{f}" for f in range(FLOWS))]


@pytest.mark.parametrize("profile", ["linux", "ns2"])
def test_data_segments_count_and_number_as_the_flows_table_says(profile: str) -> None:
    results = dumbbell(profile)
    flows = results.flows.set_index("flow")
    for flow in range(FLOWS):
        sent, _ = flow_capture(results, flow)
        data = data_of(sent)
        row = flows.loc[flow]
        assert len(data) == row["packets_sent"]
        first = isn(flow)[0] + 1
        assert data[0].tcp.seq == first, "the first data byte is ISN + 1"
        offsets = [(s.tcp.seq - first) % 2**32 for s in data]
        assert all(o % MSS == 0 for o in offsets)
        assert all(s.payload == MSS and s.orig_len == 20 + 32 + MSS for s in data)
        # Each segment's first transmission and its retransmissions.
        counts = Counter(offsets)
        assert sum(counts.values()) - len(counts) == row["retransmits"]
        sender_ip = bytes([10, 0, 0, 2 + 2 * flow])  # s<i> follows R1, R2 and the earlier flows
        assert all(s.ip.src == sender_ip for s in sent)


@pytest.mark.parametrize("profile", ["linux", "ns2"])
def test_every_dropped_segment_is_sent_again(profile: str) -> None:
    results = dumbbell(profile)
    drops = results.drops
    data_drops = drops[drops["is_ack"] == 0]
    assert len(data_drops) > 100, "the example overshoots in slow start"
    acked = results.flows.set_index("flow")["bytes_acked"] // MSS
    repaired = 0
    for flow in range(FLOWS):
        sent, _ = flow_capture(results, flow)
        first = isn(flow)[0] + 1
        times = Counter((s.tcp.seq - first) % 2**32 // MSS for s in data_of(sent))
        # The drops table gives a lost SYN as segment 0 of its flow (the send noise of the linux
        # profile can put one into a full queue).
        times[0] += sum(1 for s in sent if s.tcp.flags & dpkt.tcp.TH_SYN)
        dropped = Counter(data_drops[data_drops["flow"] == flow]["seq"].tolist())
        for seq, n in dropped.items():
            # Every copy dropped was sent; a segment acknowledged by the end was sent once more.
            delivered = seq < acked[flow]
            assert times[seq] >= n + delivered, (flow, seq, n, times[seq])
            repaired += delivered
    assert repaired > 50


def test_sack_blocks_lie_above_the_ack_on_segment_edges() -> None:
    results = dumbbell("linux")
    blocks_seen = 0
    for flow in range(FLOWS):
        _, received = flow_capture(results, flow)
        first = isn(flow)[0] + 1
        acks = [s for s in received if not s.tcp.flags & dpkt.tcp.TH_SYN]
        assert all(s.tcp.seq == isn(flow)[1] + 1 for s in acks)
        cumulative = [(s.tcp.ack - first) % 2**32 for s in acks]
        assert cumulative == sorted(cumulative), "ACKs arrive in order on a FIFO path"
        for s, ack in zip(acks, cumulative, strict=True):
            assert ack % MSS == 0
            for left, right in s.sack_blocks():
                blocks_seen += 1
                left, right = (left - first) % 2**32, (right - first) % 2**32
                assert ack < left < right
                assert left % MSS == 0 and right % MSS == 0
    assert blocks_seen > 100


def test_the_bottleneck_capture_holds_every_arrival_and_drop() -> None:
    results = dumbbell("linux")
    segs = parse(results.pcap["link-R1-R2"])
    links = results.links
    bottleneck = links[(links["src"] == "R1") & (links["dst"] == "R2")].iloc[0]
    assert len(segs) == bottleneck["arrivals"]
    assert [s.t for s in segs] == sorted(s.t for s in segs)
    seen = Counter(
        (s.t, s.tcp.sport - 1024, (s.tcp.seq - isn(s.tcp.sport - 1024)[0] - 1) % 2**32 // MSS)
        for s in segs
        if s.payload > 0
    )
    # A lost SYN is segment 0 of its flow in the drops table.
    seen.update((s.t, s.tcp.sport - 1024, 0) for s in segs if s.tcp.flags == dpkt.tcp.TH_SYN)
    drops = results.drops
    here = drops[(drops["link"] == bottleneck["link"]) & (drops["is_ack"] == 0)]
    assert len(here) > 0
    for row in here.itertuples():
        t = Decimal(round(row.t_s * 1e9)) / Decimal(10**9)
        assert seen[(t, row.flow, row.seq)] >= 1, row


def test_handshake_and_timestamps() -> None:
    results = dumbbell("linux")
    flows = results.flows.set_index("flow")
    for flow in range(FLOWS):
        sent, received = flow_capture(results, flow)
        syn, syn_ack = sent[0], received[0]
        assert syn.tcp.flags == dpkt.tcp.TH_SYN and syn.tcp.seq == isn(flow)[0]
        assert syn_ack.tcp.flags == dpkt.tcp.TH_SYN | dpkt.tcp.TH_ACK
        assert (syn_ack.tcp.seq, syn_ack.tcp.ack) == (isn(flow)[1], isn(flow)[0] + 1)
        for s in (syn, syn_ack):
            options = s.options()
            assert options[dpkt.tcp.TCP_OPT_MSS] == MSS.to_bytes(2, "big")
            assert dpkt.tcp.TCP_OPT_SACKOK in options
        assert abs(float(syn.t) - flows.loc[flow, "start_s"]) < 1e-9
        # TSval: microseconds of the send time (data) or of the receiver's arrival (ACK); an ACK
        # echoes its segment's.
        for s in data_of(sent):
            assert s.timestamps() == (int(s.t * 10**6) % 2**32, 0)
        sent_at = {int(s.t * 10**6) for s in sent}
        for s in received[1:]:
            val, ecr = s.timestamps()
            assert ecr in sent_at and ecr <= val <= int(s.t * 10**6)


def test_ns2_flows_have_no_handshake_and_no_sack() -> None:
    results = dumbbell("ns2")
    sent, received = flow_capture(results, 0)
    assert not any(s.tcp.flags & dpkt.tcp.TH_SYN for s in sent + received)
    assert not any(s.sack_blocks() for s in received)


def test_a_finite_transfer_ends_with_its_real_last_segment(write_scenario) -> None:
    path = write_scenario(SMALL_DUMBBELL + "\n[trace]\npcap = { flows = [2] }\n")
    results = ccsim.run(Scenario.load(path))
    sent, received = flow_capture(results, 2)
    size = 30_000
    data = data_of(sent)
    first = isn(2)[0] + 1
    assert sum(s.payload for s in data) >= size
    last = max(data, key=lambda s: (s.tcp.seq - first) % 2**32)
    assert (last.tcp.seq - first) % 2**32 + last.payload == size
    assert (received[-1].tcp.ack - first) % 2**32 == size


ECN_DUMBBELL = """
name = "ecn"
profile = "linux"
duration = "1s"

[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "1ms"
buffer = "200pkts"
queue = "step"

[topology.step]
k = "20pkts"

[[flows]]
cc = "dctcp"
count = 2
rtt = "4ms"

[trace]
pcap = { flows = [0], links = ["R1->R2"] }
"""


def test_ecn_codepoints_and_flags(write_scenario) -> None:
    results = ccsim.run(Scenario.load(write_scenario(ECN_DUMBBELL)))
    sent, received = flow_capture(results, 0)
    assert sent[0].tcp.flags == dpkt.tcp.TH_SYN | dpkt.tcp.TH_ECE | dpkt.tcp.TH_CWR
    codepoints = Counter(s.ip.tos & 3 for s in data_of(sent))
    assert codepoints[0b10] > 0 and codepoints[0b11] == 0, "ECT(0) from the sender, no CE yet"
    assert any(s.tcp.flags & dpkt.tcp.TH_ECE for s in received)
    marked = Counter(s.ip.tos & 3 for s in parse(results.pcap["link-R1-R2"]) if s.payload)
    assert marked[0b11] == 0, "captured as they enter: marks come later, in the queue"


def test_results_directory_holds_the_files_and_loads_them(tmp_path: Path) -> None:
    results = dumbbell("linux")
    written = results.write(tmp_path / "out")
    names = sorted(p.name for p in (written / "pcap").iterdir())
    assert names == sorted(f"{name}.pcap" for name in results.pcap)
    assert Results.load(written).pcap == results.pcap


def test_runs_without_capture_have_no_files(tmp_path: Path, write_scenario) -> None:
    results = ccsim.run(Scenario.load(write_scenario(SMALL_DUMBBELL)))
    assert results.pcap == {}
    assert not (results.write(tmp_path / "out") / "pcap").exists()
    assert "pcap" not in results.scenario.resolve()["trace"]


@pytest.mark.parametrize(
    ("pcap", "fragment"),
    [
        ("{ link = [] }", "trace.pcap.link: unknown key"),
        ('{ links = ["R1-R2"] }', 'trace.pcap.links[0]: "R1-R2" is not a link name'),
        ('{ links = ["R1->R2", "R1->R2"] }', "trace.pcap.links[1]"),
        ('{ links = ["R1->R9"] }', 'trace.pcap.links[0]: no link "R1->R9"'),
        ("{ flows = [3] }", "trace.pcap.flows[0]: no flow 3"),
        ("{ flows = [-1] }", "trace.pcap.flows[0]"),
        ('{ flows = ["0"] }', "trace.pcap.flows[0]"),
    ],
)
def test_bad_keys_name_the_key(write_scenario, pcap: str, fragment: str) -> None:
    path = write_scenario(SMALL_DUMBBELL + f"\n[trace]\npcap = {pcap}\n")
    with pytest.raises(ScenarioError) as error:
        ccsim.run(Scenario.load(path))
    assert fragment in str(error.value)


def test_the_command_line_writes_the_files_or_exits_2(tmp_path: Path, write_scenario) -> None:
    ok = write_scenario(SMALL_DUMBBELL + '\n[trace]\npcap = { links = ["s0->R1"] }\n', "ok")
    result = run_cli("run", ok, "-o", tmp_path / "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [p.name for p in (tmp_path / "out" / "pcap").iterdir()] == ["link-s0-R1.pcap"]
    assert "pcap: 1 file in" in result.stdout and "link-s0-R1" in result.stdout
    bad = write_scenario(SMALL_DUMBBELL + '\n[trace]\npcap = { links = ["s0->R2"] }\n', "bad")
    result = run_cli("run", bad, "-o", tmp_path / "bad", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "trace.pcap.links[0]" in result.stderr
    assert not (tmp_path / "bad").exists()
