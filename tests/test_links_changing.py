"""Links that change (docs/links.md): rate, delay and loss schedules and traces of delivery
opportunities in Mahimahi's format, from the scenario file to the engine's spec and the run."""

from __future__ import annotations

import itertools
import struct
from pathlib import Path
from typing import Any

import ccsim
import pytest
from ccsim.errors import ScenarioError
from conftest import EXAMPLES, SMALL_DUMBBELL, requires_engine, run_cli

MS = 1_000_000
S = 1_000_000_000


def _with_topology(lines: str, text: str = SMALL_DUMBBELL) -> str:
    return text.replace('buffer = "1bdp"\n', f'buffer = "1bdp"\n{lines}\n', 1)


def _resolved(lines: str, **more: Any) -> dict[str, Any]:
    return ccsim.Scenario.from_toml(_with_topology(lines), **more).resolve()["topology"]


def test_schedules_resolve_to_the_engines_points_in_both_directions() -> None:
    topo = _resolved(
        'rate_schedule = [["1s", "5Mbps"], ["1.5s", 0], ["1.6s", "0"], ["1.7s", "20Mbps"]]\n'
        'reverse_delay_schedule = { points = [["0s", "5ms"], ["0.5s", "30ms"]], repeat = "1s" }\n'
        'loss_schedule = [["0.2s", 0.01]]'
    )
    forward, reverse = topo["forward"], topo["reverse"]
    assert forward["rate_schedule"] == {
        "points": [[S, 5_000_000], [3 * S // 2, 0], [8 * S // 5, 0], [17 * S // 10, 20_000_000]]
    }
    assert forward["loss_schedule"] == {"points": [[S // 5, 0.01]]}
    assert reverse["delay_schedule"] == {
        "points": [[0, 5 * MS], [S // 2, 30 * MS]],
        "repeat_ns": S,
    }
    assert "rate_schedule" not in reverse and "delay_schedule" not in forward


def test_a_scenario_without_changes_resolves_as_before() -> None:
    topo = ccsim.Scenario.from_toml(SMALL_DUMBBELL).resolve()["topology"]
    keys = {"rate_schedule", "delay_schedule", "loss_schedule", "trace"}
    assert not keys & set(topo["forward"]) and not keys & set(topo["reverse"])


@pytest.mark.parametrize(
    ("lines", "fragment"),
    [
        ('rate_schedule = [["2s", "5Mbps"], ["1s", "6Mbps"]]', "rate_schedule.points[1][0]"),
        ('delay_schedule = { points = [["2s", "5ms"]], repeat = "1s" }', "not below repeat"),
        ('loss_schedule = [["1s", 1.5]]', "loss_schedule"),
        ('rate_schedule = [["1s", "fast"]]', "rate_schedule"),
        ("rate_schedule = []", "rate_schedule"),
    ],
)
def test_bad_schedules_name_their_key(lines: str, fragment: str) -> None:
    with pytest.raises(ScenarioError) as error:
        ccsim.Scenario.from_toml(_with_topology(lines))
    assert fragment in str(error.value), str(error.value)


def test_an_explicit_link_takes_reverse_changes_only_when_duplex() -> None:
    text = """
name = "x"
duration = "1s"
[topology]
kind = "explicit"
nodes = ["a", "b"]
[[topology.links]]
src = "a"
dst = "b"
rate = "10Mbps"
delay = "5ms"
buffer = "50pkts"
duplex = false
reverse_rate_schedule = [["1s", "5Mbps"]]
[[flows]]
cc = "reno"
src = "a"
dst = "b"
"""
    with pytest.raises(ScenarioError, match="duplex = false"):
        ccsim.Scenario.from_toml(text)
    links = ccsim.Scenario.from_toml(text.replace("duplex = false\n", "")).resolve()["topology"][
        "links"
    ]
    assert "rate_schedule" not in links[0] and links[1]["rate_schedule"]["points"] == [
        [S, 5_000_000]
    ]


def test_a_trace_resolves_to_its_entries_and_mean_rate(tmp_path: Path) -> None:
    trace = tmp_path / "link.down"
    trace.write_text("1\n1\n2\n4\n")
    topo = _resolved(f'trace = "{trace}"')
    assert topo["forward"]["trace"] == {"ms": [1, 1, 2, 4]}
    # 4 opportunities of 1500 bytes in 4 ms: 12 Mb/s.
    assert topo["forward"]["rate_bps"] == 12_000_000
    assert "trace" not in topo["reverse"]


def test_a_relative_trace_is_found_beside_the_scenario_file(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "up").write_text("2\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text(_with_topology('reverse_trace = "traces/up"'))
    topo = ccsim.Scenario.load(scenario).resolve()["topology"]
    assert topo["reverse"]["trace"] == {"ms": [2]}
    assert topo["reverse"]["rate_bps"] == 6_000_000


def test_a_scenario_with_a_trace_written_back_finds_it_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "up").write_text("2\n")
    (tmp_path / "s.toml").write_text(_with_topology('reverse_trace = "up"'))
    written = ccsim.Scenario.load(tmp_path / "s.toml").to_toml()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    again = ccsim.Scenario.from_toml(written).resolve()["topology"]["reverse"]
    assert again["trace"] == {"ms": [2]}


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("1\n2\n12.5\n", 'line 3: "12.5" is not a whole number of milliseconds'),
        ("1\n\n3\n", 'line 2: "" is not a whole number of milliseconds'),
        ("5\n3\n", "line 2: 3 is before the line above (5)"),
        ("", "is empty"),
        ("0\n0\n", "line 2: the trace ends at 0 ms"),
    ],
)
def test_a_bad_trace_line_is_one_error_naming_file_line_and_value(
    tmp_path: Path, content: str, fragment: str
) -> None:
    trace = tmp_path / "bad.trace"
    trace.write_text(content)
    with pytest.raises(ScenarioError) as error:
        _resolved(f'trace = "{trace}"')
    message = str(error.value)
    assert message.startswith(f"topology.trace: {trace}"), message
    assert fragment in message, message


def test_a_trace_and_a_rate_schedule_on_one_direction_are_an_error(tmp_path: Path) -> None:
    trace = tmp_path / "t"
    trace.write_text("1\n")
    with pytest.raises(ScenarioError, match="rate schedule or a trace"):
        _resolved(f'trace = "{trace}"\nrate_schedule = [["1s", "5Mbps"]]')


@requires_engine
def test_a_bad_trace_exits_with_status_2_and_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "bad.trace").write_text("1\n2\nx\n")
    (tmp_path / "s.toml").write_text(_with_topology('trace = "bad.trace"'))
    result = run_cli("run", "s.toml", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "bad.trace line 3" in lines[0], result.stderr
    assert "Traceback" not in result.stderr


@requires_engine
def test_during_an_outage_packets_wait_in_the_queue_and_nothing_leaves() -> None:
    text = _with_topology('rate_schedule = [["1s", 0], ["2s", "10Mbps"]]')
    text = text.replace('duration = "2s"', 'duration = "3s"')
    text += '\n[trace]\nsample_interval = "10ms"\n'
    r = ccsim.run(ccsim.Scenario.from_toml(text))
    queue = r.queues[(r.queues["link"] == 0) & (r.queues["t_s"] > 1.0) & (r.queues["t_s"] <= 2.0)]
    lengths = queue["queue_pkts"].tolist()
    assert len(lengths) >= 99
    assert lengths == sorted(lengths) and lengths[-1] > 0, "packets wait, none leaves"
    # Utilization counts the time at a positive rate: at most 2 s of the 3.
    assert r.links["utilization"][0] <= 2 / 3 + 1e-9


@requires_engine
def test_the_cellular_example_runs_and_is_deterministic(tmp_path: Path) -> None:
    scenario = ccsim.Scenario.load(EXAMPLES / "cellular.toml", overrides={"duration": "8s"})
    a, b = ccsim.run(scenario), ccsim.run(scenario)
    assert a.flows.equals(b.flows) and a.links.equals(b.links)
    bottleneck = a.links.iloc[0]
    assert bottleneck["rate_bps"] == 12_600_000
    # The link never carries more than the trace offers: 8 s of a 12.6 Mb/s mean at most.
    delivered_bits = a.flows["bytes_acked"].sum() * 8
    assert 0.5 * 8 * 12.6e6 < delivered_bits < 8 * 12.6e6


def test_the_capacity_steps_follow_the_schedule_and_the_trace() -> None:
    from ccsim.plots.capacity import capacity_steps

    schedule = {
        "rate_bps": 10_000_000,
        "rate_schedule": {"points": [[S // 2, 0], [S, 20_000_000]], "repeat_ns": 2 * S},
    }
    times, rates = capacity_steps(schedule, 3 * S)
    assert times == [0.0, 0.5, 1.0, 2.5, 3.0]
    assert rates == [10e6, 0.0, 20e6, 0.0, 0.0]
    # A trace of 2 opportunities in its 2 ms period, 1 ms apart: 12 Mb/s in every 100 ms bin
    # but the first (the opportunities at 1 to 99 ms).
    times, rates = capacity_steps({"rate_bps": 1, "trace": {"ms": [1, 2]}}, S // 5)
    assert times == [0.0, 0.1, 0.2] and rates == [11.88e6, 12e6, 12e6]


@requires_engine
def test_the_throughput_figure_draws_the_traces_capacity_under_the_flows() -> None:
    from ccsim.plots import add_capacity, throughput_figure

    scenario = ccsim.Scenario.load(EXAMPLES / "cellular.toml", overrides={"duration": "2s"})
    results = ccsim.run(scenario)
    figure = add_capacity(throughput_figure(results.series), scenario)
    lines = {line.get_label(): line for line in figure.axes[0].get_lines()}
    capacity = lines["link capacity"].get_ydata()
    # 100 ms bins of the synthetic downlink: 12, 18, 24, 20 Mb/s ..., and the outage.
    assert max(capacity) == pytest.approx(24.0) and min(capacity) == 0.0


@requires_engine
def test_ccsim_plot_throughput_draws_the_capacity_of_a_changing_link(tmp_path: Path) -> None:
    from ccsim.plots import run_figures

    scenario = ccsim.Scenario.load(EXAMPLES / "cellular.toml", overrides={"duration": "2s"})
    figure = run_figures(ccsim.run(scenario), ["throughput"])["throughput"]
    assert "link capacity" in {line.get_label() for line in figure.axes[0].get_lines()}
    fixed = ccsim.Scenario.load(
        EXAMPLES / "dumbbell.toml", overrides={"duration": "2s", "trace.sample_interval": "100ms"}
    )
    figure = run_figures(ccsim.run(fixed), ["throughput"])["throughput"]
    assert "link capacity" not in {line.get_label() for line in figure.axes[0].get_lines()}


# ---- Aggregation (Wi-Fi-like bursts) and schedules given as arrays ---------------------------


def test_aggregation_resolves_on_either_direction_and_only_where_set() -> None:
    topo = _resolved(
        'aggregation = { max_packets = 32, max_time = "4ms", access_delay = { dist = "uniform", '
        'min = "0ms", max = "1ms" } }\n'
        'reverse_aggregation = { max_packets = 16, access_delay = "2ms" }'
    )
    assert topo["forward"]["aggregation"] == {
        "max_packets": 32,
        "max_time_ns": 4 * MS,
        "access_min_ns": 0,
        "access_max_ns": MS,
    }
    assert topo["reverse"]["aggregation"] == {
        "max_packets": 16,
        "max_time_ns": 4 * MS,
        "access_min_ns": 2 * MS,
        "access_max_ns": 2 * MS,
    }
    plain = ccsim.Scenario.from_toml(SMALL_DUMBBELL).resolve()["topology"]
    assert "aggregation" not in plain["forward"] and "aggregation" not in plain["reverse"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            "aggregation = { max_packets = 0 }",
            "topology.aggregation.max_packets: 0",
        ),
        ('aggregation = { max_time = "0s" }', "topology.aggregation.max_time"),
        (
            'reverse_aggregation = { access_delay = { min = "2ms", max = "1ms" } }',
            'topology.reverse_aggregation.access_delay.max: "1ms" is below min ("2ms")',
        ),
        ("aggregation = { max_packets = 4, burst = 2 }", "topology.aggregation.burst"),
        (
            'aggregation = {}\nrate_schedule = [["1s", "5Mbps"]]',
            "topology.aggregation: is set with rate_schedule; expected aggregation on a link of "
            "fixed rate",
        ),
        (
            'aggregation = {}\nqueue = "codel"',
            'topology.aggregation: is set with queue = "codel"; expected a queue that decides on '
            "arrival",
        ),
    ],
)
def test_bad_aggregation_values_are_one_line_naming_the_key(lines: str, message: str) -> None:
    with pytest.raises(ScenarioError) as error:
        ccsim.Scenario.from_toml(_with_topology(lines))
    text = str(error.value)
    assert message in text and "\n" not in text.strip(), text


@requires_engine
def test_ack_aggregation_runs_and_changes_the_run() -> None:
    plain = ccsim.Scenario.from_toml(SMALL_DUMBBELL)
    bursts = plain.with_overrides(
        {"topology.reverse_aggregation": {"max_packets": 16, "access_delay": "3ms"}}
    )
    a, b = ccsim.run(plain), ccsim.run(bursts)
    assert a.flows["goodput_bps"].to_list() != b.flows["goodput_bps"].to_list()
    assert ccsim.run(bursts).flows.equals(b.flows)


def test_schedules_given_as_numpy_arrays_resolve_as_lists_do() -> None:
    np = pytest.importorskip("numpy")
    lists = _resolved(
        'rate_schedule = [["1s", "5Mbps"], ["1.5s", 0]]\n'
        'delay_schedule = { points = [["0s", "5ms"], ["0.5s", "30ms"]], repeat = "1s" }\n'
        'loss_schedule = [["0.2s", 0.01]]'
    )
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {
            # (times, values): seconds and bit/s ...
            "topology.rate_schedule": (np.array([1.0, 1.5]), np.array([5e6, 0.0])),
            # ... or rows of [time, value] (seconds, seconds), with a period.
            "topology.delay_schedule": {
                "points": np.array([[0.0, 0.005], [0.5, 0.03]]),
                "repeat": "1s",
            },
            "topology.loss_schedule": (np.array([0.2]), np.array([0.01])),
        }
    )
    arrays = scenario.resolve()["topology"]
    for key in ("rate_schedule", "delay_schedule", "loss_schedule"):
        assert arrays["forward"][key] == lists["forward"][key], key
    with pytest.raises(ScenarioError) as error:
        ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
            {"topology.rate_schedule": (np.array([1.0, 2.0]), np.array([5e6]))}
        )
    assert "2 times and 1 values" in str(error.value)


def test_aggregation_on_a_parking_lot_and_an_explicit_link_only_where_there_is_a_link() -> None:
    lot = """
name = "x"
duration = "1s"
[topology]
kind = "parking_lot"
routers = 3
rate = "10Mbps"
delay = "5ms"
buffer = "50pkts"
reverse_aggregation = { max_packets = 8, access_delay = "1ms" }
[[flows]]
cc = "reno"
src = "R0"
dst = "R2"
"""
    topo = ccsim.Scenario.from_toml(lot).resolve()["topology"]
    assert "aggregation" not in topo["forward"]
    assert topo["reverse"]["aggregation"]["max_packets"] == 8
    explicit = """
name = "x"
duration = "1s"
[topology]
kind = "explicit"
nodes = ["a", "b"]
[[topology.links]]
src = "a"
dst = "b"
rate = "10Mbps"
delay = "5ms"
buffer = "50pkts"
duplex = false
reverse_aggregation = { max_packets = 8 }
[[flows]]
cc = "reno"
src = "a"
dst = "b"
"""
    with pytest.raises(ScenarioError, match="reverse_aggregation or duplex = true"):
        ccsim.Scenario.from_toml(explicit)
    links = ccsim.Scenario.from_toml(explicit.replace("duplex = false\n", "")).resolve()[
        "topology"
    ]["links"]
    assert "aggregation" not in links[0] and links[1]["aggregation"]["max_packets"] == 8


def _ack_arrivals_s(capture: bytes) -> list[float]:
    """The times (s) at which a flow's sender received its ACKs, from its pcap file: the records
    from the receivers' port (docs/pcap.md)."""
    scale = 1e9 if struct.unpack_from("<I", capture, 0)[0] == 0xA1B23C4D else 1e6
    times, offset = [], 24
    while offset + 16 <= len(capture):
        seconds, fraction, included = struct.unpack_from("<III", capture, offset)
        packet = capture[offset + 16 : offset + 16 + included]
        offset += 16 + included
        tcp = packet[(packet[0] & 0x0F) * 4 :]
        if int.from_bytes(tcp[0:2], "big") == 5001:
            times.append(seconds + fraction / scale)
    return times


@requires_engine
def test_the_sender_receives_aggregated_acks_in_bursts_at_least_the_access_delay_apart() -> None:
    """ACKs aggregated on the reverse direction reach the sender in bursts: within a burst a few
    microseconds apart (the access link's serialisation), between bursts at least the shortest
    access delay (2 ms); on the plain reverse link the ACKs come spread out in between."""
    overrides = {"trace.pcap": {"flows": [0]}, "duration": "3s"}
    plain = ccsim.Scenario.from_toml(SMALL_DUMBBELL, overrides=overrides)
    bursts = plain.with_overrides(
        {
            "topology.reverse_aggregation": {
                "max_packets": 16,
                "access_delay": {"min": "2ms", "max": "4ms"},
            }
        }
    )

    def gaps(scenario: ccsim.Scenario) -> list[float]:
        times = _ack_arrivals_s(ccsim.run(scenario).pcap["flow-0"])
        assert len(times) > 100
        return [b - a for a, b in itertools.pairwise(times)]

    between = [g for g in gaps(plain) if 100e-6 <= g < 2e-3]
    assert len(between) > 50, "the plain link spreads the ACKs"
    grouped = gaps(bursts)
    assert all(g < 100e-6 or g >= 2e-3 for g in grouped)
    assert sum(g < 100e-6 for g in grouped) > 50, "ACKs arrive together"
