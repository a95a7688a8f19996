"""The scenario schema: defaults, resolution to the engine's JSON, overrides, and error messages.

Algorithm names are checked against the stand-in registry of conftest.py, except in the tests
named ``test_engine_*``, which use the real engine's registry and hand it the resolved JSON.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ccsim.errors import ScenarioError
from ccsim.scenario import Scenario
from conftest import EXAMPLES, SMALL_DUMBBELL, requires_engine


@pytest.fixture(autouse=True)
def _registry(request: pytest.FixtureRequest) -> None:
    if not request.node.name.startswith("test_engine_"):
        request.getfixturevalue("fake_registry")


def dumbbell(**top: Any) -> dict[str, Any]:
    """A minimal dumbbell scenario as a dict; keyword arguments replace top-level keys."""
    data: dict[str, Any] = {
        "duration": "10s",
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": "100Mbps",
            "bottleneck_delay": "5ms",
        },
        "flows": [{"cc": "newreno", "rtt": "20ms"}],
    }
    data.update(top)
    return data


def parking_lot(**top: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "duration": "10s",
        "topology": {
            "kind": "parking_lot",
            "routers": 4,
            "rate": "20Mbps",
            "delay": "5ms",
            "bdp_rtt": "40ms",
        },
        "flows": [{"cc": "newreno", "src": "R0", "dst": "R3"}],
    }
    data.update(top)
    return data


def explicit(**top: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "duration": "10s",
        "topology": {
            "kind": "explicit",
            "nodes": ["a", "b", "c"],
            "bdp_rtt": "30ms",
            "links": [
                {"src": "a", "dst": "b", "rate": "10Mbps", "delay": "2ms"},
                {"src": "b", "dst": "c", "rate": "100Mbps", "delay": "1ms", "buffer": "20pkts"},
            ],
        },
        "flows": [{"cc": "newreno", "src": "a", "dst": "c"}],
    }
    data.update(top)
    return data


def error_of(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as caught:
        Scenario.model_validate(data)
    message = str(caught.value)
    assert "\n" not in message
    return message


# ---- defaults --------------------------------------------------------------------------------


def test_defaults_are_filled_in() -> None:
    scenario = Scenario.model_validate(dumbbell())
    assert scenario.name == "scenario"
    assert scenario.seed == 1
    assert scenario.profile == "ns2"
    topology = scenario.topology
    assert topology.access_rate == 4 * 100_000_000
    assert str(topology.buffer) == "1bdp"
    assert topology.queue == "droptail"
    assert topology.loss == 0.0
    assert str(topology.access_buffer) == "10000pkts"
    flow = scenario.flows[0]
    assert flow.label == "newreno"
    assert (flow.count, flow.mss, flow.start, flow.start_jitter, flow.size) == (1, 1000, 0, 0, None)
    assert scenario.trace.sample_interval is None and scenario.trace.drops is False


def test_name_defaults_to_the_file_stem(write_scenario) -> None:
    path = write_scenario(SMALL_DUMBBELL.replace('name = "small"', ""), stem="my run")
    assert Scenario.load(path).name == "my_run"
    assert Scenario.from_toml(SMALL_DUMBBELL, name="other").name == "small"  # the file wins


def test_red_defaults() -> None:
    data = dumbbell()
    data["topology"]["queue"] = "red"
    red = Scenario.model_validate(data).resolve()["topology"]["forward"]["queue"]
    assert red == {
        "kind": "red",
        "limit_pkts": 241,
        "min_th": 5.0,
        "max_th": 15.0,
        "max_p": 0.1,
        "w_q": 0.002,
        "gentle": True,
        "wait": True,
        "mean_pktsize": 500,
    }


# ---- resolution to the engine's JSON ---------------------------------------------------------

FLOW_KEYS = {
    "label", "cc", "cc_params", "mss_bytes", "max_window_pkts", "delayed_ack",
    "reverse", "clock_offset_ns", "clock_drift_ppm", "src", "dst", "rtt_ns", "start_ns", "start_jitter_ns", "size_bytes",
}  # fmt: skip
GENERATOR_KEYS = {
    "label", "cc", "cc_params", "mss_bytes", "max_window_pkts", "delayed_ack",
    "reverse", "clock_offset_ns", "clock_drift_ppm", "arrivals", "size", "start_ns", "rtt_choices_ns", "rtt_dist", "endpoints", "sources",
}  # fmt: skip
LINK_KEYS = {"rate_bps", "delay_ns", "queue", "loss", "jitter_ns"}


def test_resolved_dumbbell_matches_the_spec() -> None:
    spec = Scenario.model_validate(dumbbell(seed=9)).resolve()
    assert set(spec) == {
        "name",
        "seed",
        "duration_ns",
        "stack",
        "topology",
        "flows",
        "generators",
        "trace",
    }
    assert (spec["seed"], spec["duration_ns"]) == (9, 10_000_000_000)
    assert spec["stack"] == {"profile": "ns2", "overrides": {}}
    topology = spec["topology"]
    assert set(topology) == {"kind", "forward", "reverse", "access_rate_bps", "access_queue"}
    assert set(topology["forward"]) == LINK_KEYS
    assert topology["forward"] == {
        "rate_bps": 100_000_000,
        "delay_ns": 5_000_000,
        "queue": {"kind": "droptail", "limit_pkts": 241, "limit_bytes": None},
        "loss": {"kind": "none"},
        "jitter_ns": 0,
    }
    assert topology["access_queue"] == {
        "kind": "droptail",
        "limit_pkts": 10_000,
        "limit_bytes": None,
    }
    (flow,) = spec["flows"]
    assert set(flow) == FLOW_KEYS
    assert flow["rtt_ns"] == 20_000_000 and flow["size_bytes"] is None and flow["src"] is None
    assert spec["trace"] == {"sample_interval_ns": None, "drops": False}
    json.dumps(spec, allow_nan=False)  # plain JSON


def test_flow_groups_expand() -> None:
    data = dumbbell(
        flows=[{"cc": "newreno", "count": 3, "rtt": "20ms"}, {"cc": "reno", "rtt": "30ms"}]
    )
    flows = Scenario.model_validate(data).resolve()["flows"]
    assert [f["cc"] for f in flows] == ["newreno", "newreno", "newreno", "reno"]
    flows[0]["cc"] = "changed"
    assert flows[1]["cc"] == "newreno"  # separate dicts


def test_losses_and_bytes_buffer() -> None:
    data = dumbbell()
    data["topology"].update(loss=0.01, reverse_loss=0.001, buffer="64KB")
    topology = Scenario.model_validate(data).resolve()["topology"]
    assert topology["forward"]["loss"] == {"kind": "bernoulli", "p": 0.01}
    assert topology["reverse"]["loss"] == {"kind": "bernoulli", "p": 0.001}
    assert topology["forward"]["queue"] == {
        "kind": "droptail",
        "limit_pkts": None,
        "limit_bytes": 64_000,
    }


def test_flow_details_resolve() -> None:
    flow = {
        "cc": "cubic",
        "rtt": "50ms",
        "start": "1.5s",
        "start_jitter": "250ms",
        "size": "2MB",
        "mss": 1460,
        "label": "bulk",
        "max_window": 500,
        "delayed_ack": True,
        "params": {"beta": 0.8, "fast_convergence": False, "hystart_low_window": 8},
        "reverse": True,
        "clock_offset": "-2.5ms",
        "clock_drift_ppm": 40,
    }
    (resolved,) = Scenario.model_validate(dumbbell(flows=[flow])).resolve()["flows"]
    assert resolved == {
        "label": "bulk",
        "cc": "cubic",
        "cc_params": {"beta": 0.8, "fast_convergence": 0.0, "hystart_low_window": 8.0},
        "mss_bytes": 1460,
        "max_window_pkts": 500,
        "delayed_ack": True,
        "reverse": True,
        "clock_offset_ns": -2_500_000,
        "clock_drift_ppm": 40.0,
        "src": None,
        "dst": None,
        "rtt_ns": 50_000_000,
        "start_ns": 1_500_000_000,
        "start_jitter_ns": 250_000_000,
        "size_bytes": 2_000_000,
    }
    assert all(isinstance(v, float) for v in resolved["cc_params"].values())


def test_stack_overrides_use_the_spec_names() -> None:
    stack = {
        "delayed_ack": True,
        "min_rto": "1s",
        "default_max_window": 64,
        "ssthresh_basis": "flight_size",
    }
    overrides = Scenario.model_validate(dumbbell(profile="rfc", stack=stack)).resolve()["stack"]
    assert overrides == {
        "profile": "rfc",
        "overrides": {
            "delayed_ack": True,
            "min_rto_ns": 1_000_000_000,
            "default_max_window_pkts": 64,
            "ssthresh_basis": "flight_size",
        },
    }


def test_generators_resolve() -> None:
    generators = [
        {
            "kind": "closed_loop",
            "cc": "reno",
            "slots": 25,
            "size": "100KB",
            "rtt_choices": ["40ms", "80ms"],
        },
        {
            "kind": "open_loop",
            "cc": "newreno",
            "rate": 10,
            "stop": "5s",
            "start": "1s",
            "size": {"dist": "pareto", "mean": "100KB", "shape": 1.5},
            "rtt_choices": ["40ms"],
        },
        {
            "kind": "open_loop",
            "cc": "newreno",
            "rate": 2.5,
            "size": {"dist": "exponential", "mean": "1MB"},
            "rtt_choices": ["40ms"],
        },
    ]
    spec = Scenario.model_validate(dumbbell(generators=generators)).resolve()
    closed, pareto, exponential = spec["generators"]
    assert set(closed) == GENERATOR_KEYS
    assert closed["arrivals"] == {"kind": "closed_loop", "slots": 25}
    assert closed["size"] == {"kind": "fixed", "bytes": 100_000}
    assert closed["rtt_choices_ns"] == [40_000_000, 80_000_000] and closed["endpoints"] == []
    assert pareto["arrivals"] == {"kind": "open_loop", "rate_per_s": 10.0, "stop_ns": 5_000_000_000}
    assert pareto["size"] == {"kind": "pareto", "mean_bytes": 100_000.0, "shape": 1.5}
    assert pareto["start_ns"] == 1_000_000_000
    assert exponential["arrivals"]["stop_ns"] is None
    assert exponential["size"] == {"kind": "exponential", "mean_bytes": 1_000_000.0}
    assert closed["rtt_dist"] is None and closed["sources"] is None


def test_generator_rtt_distributions_and_sources_resolve() -> None:
    generators = [
        {"kind": "closed_loop", "cc": "reno", "slots": 4, "size": "10KB",
         "rtt_dist": {"dist": "uniform", "min": "40ms", "max": "120ms"}},
        {"kind": "open_loop", "cc": "reno", "rate": 3, "size": "10KB", "sources": 100,
         "rtt_dist": {"dist": "exponential", "mean": "130ms"}},
    ]  # fmt: skip
    spec = Scenario.model_validate(dumbbell(generators=generators)).resolve()
    uniform, exponential = spec["generators"]
    assert uniform["rtt_dist"] == {"kind": "uniform", "min_ns": 40_000_000, "max_ns": 120_000_000}
    assert exponential["rtt_dist"] == {"kind": "exponential", "mean_ns": 130_000_000}
    assert exponential["sources"] == 100 and uniform["sources"] is None


@pytest.mark.parametrize(
    ("rtt_dist", "where", "words"),
    [
        ({"dist": "uniform", "min": "40ms"}, "rtt_dist.max", "required for a uniform"),
        ({"dist": "exponential", "mean": "130ms", "min": "1ms"}, "rtt_dist.min", "not used"),
        ({"dist": "uniform", "min": "90ms", "max": "40ms"}, "rtt_dist.max", "below min"),
        ({"dist": "normal", "mean": "1ms"}, "rtt_dist.dist", "normal"),
    ],
)
def test_bad_rtt_distributions_name_the_key(rtt_dist: dict, where: str, words: str) -> None:
    gen = {"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "10KB", "rtt_dist": rtt_dist}
    with pytest.raises(ScenarioError) as err:
        Scenario.model_validate(dumbbell(generators=[gen]))
    assert where in str(err.value) and words in str(err.value)


def test_rtt_choices_and_rtt_dist_together_are_rejected() -> None:
    gen = {"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "10KB",
           "rtt_choices": ["40ms"], "rtt_dist": {"dist": "exponential", "mean": "50ms"}}  # fmt: skip
    with pytest.raises(ScenarioError, match="either rtt_choices or rtt_dist"):
        Scenario.model_validate(dumbbell(generators=[gen]))


def test_bdp_uses_the_mean_of_an_rtt_distribution() -> None:
    # Only a generator with RTTs uniform on [20, 60] ms: mean 40 ms. At 10 Mbps and 1040-byte
    # packets, 1 BDP = 10e6 * 0.040 / 8320 = 48.08 -> 49 packets.
    gen = {"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "10KB",
           "rtt_dist": {"dist": "uniform", "min": "20ms", "max": "60ms"}}  # fmt: skip
    data = dumbbell(generators=[gen])
    data["flows"] = []
    data["topology"].update(bottleneck_rate="10Mbps", bottleneck_delay="5ms", buffer="1bdp")
    spec = Scenario.model_validate(data).resolve()
    assert spec["topology"]["forward"]["queue"]["limit_pkts"] == 49


def test_parking_lot_resolves() -> None:
    data = parking_lot(generators=[
        {"kind": "closed_loop", "cc": "reno", "slots": 2, "size": "10KB", "endpoints": [["R1", "R2"]]}
    ])  # fmt: skip
    spec = Scenario.model_validate(data).resolve()
    topology = spec["topology"]
    assert set(topology) == {
        "kind", "routers", "forward", "reverse", "access_rate_bps", "access_delay_ns", "access_queue"
    }  # fmt: skip
    assert topology["routers"] == 4
    assert topology["access_rate_bps"] == 80_000_000
    assert topology["access_delay_ns"] == 1_000_000
    # 20 Mbps x 40 ms / (8 x 1040 B) = 96.15 -> 97 packets
    assert topology["forward"]["queue"]["limit_pkts"] == 97
    assert spec["flows"][0]["src"] == "R0" and spec["flows"][0]["rtt_ns"] is None
    assert spec["generators"][0]["endpoints"] == [["R1", "R2"]]


def test_explicit_links_are_duplex_by_default() -> None:
    data = explicit()
    data["topology"]["links"][0].update(loss=0.02, reverse_loss=0.01, monitor=True)
    data["topology"]["links"][1]["duplex"] = False
    links = Scenario.model_validate(data).resolve()["topology"]["links"]
    assert [(link["src"], link["dst"]) for link in links] == [("a", "b"), ("b", "a"), ("b", "c")]
    forward, reverse, one_way = links
    assert set(forward) == {"src", "dst", "monitor"} | LINK_KEYS
    assert forward["loss"] == {"kind": "bernoulli", "p": 0.02} and forward["monitor"] is True
    assert reverse["loss"] == {"kind": "bernoulli", "p": 0.01} and reverse["monitor"] is False
    # 10 Mbps x 30 ms / (8 x 1040 B) = 36.06 -> 37 packets
    assert forward["queue"]["limit_pkts"] == 37 == reverse["queue"]["limit_pkts"]
    assert one_way["queue"]["limit_pkts"] == 20


# ---- BDP buffers, hand-computed ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("flows", "generators", "buffer", "packets"),
    [
        # one RTT: 100 Mbps x 20 ms / (8 x 1040 B) = 240.38
        ([{"cc": "newreno", "rtt": "20ms"}], [], "1bdp", 241),
        ([{"cc": "newreno", "rtt": "20ms"}], [], "0.5bdp", 121),
        # mean of 20 ms once and 40 ms three times = 35 ms: 420.67
        (
            [{"cc": "newreno", "rtt": "20ms"}, {"cc": "reno", "rtt": "40ms", "count": 3}],
            [],
            "1bdp",
            421,
        ),
        # the largest MSS counts: 35 ms with 1500 B packets = 291.67
        (
            [
                {"cc": "newreno", "rtt": "20ms"},
                {"cc": "reno", "rtt": "40ms", "count": 3, "mss": 1460},
            ],
            [],
            "1bdp",
            292,
        ),
        # generator RTT choices count once each: mean(20, 40, 60) = 40 ms: 480.77
        (
            [{"cc": "newreno", "rtt": "20ms"}],
            [
                {
                    "kind": "closed_loop",
                    "cc": "reno",
                    "slots": 5,
                    "size": "1MB",
                    "rtt_choices": ["40ms", "60ms"],
                }
            ],
            "1bdp",
            481,
        ),
        ([{"cc": "newreno", "rtt": "20ms"}], [], "2bdp", 481),
    ],
)
def test_bdp_buffer_on_a_dumbbell(flows, generators, buffer: str, packets: int) -> None:
    data = dumbbell(flows=flows, generators=generators)
    data["topology"]["buffer"] = buffer
    queue = Scenario.model_validate(data).resolve()["topology"]["forward"]["queue"]
    assert queue["limit_pkts"] == packets


def test_bdp_rtt_overrides_the_mean_rtt() -> None:
    data = dumbbell()
    data["topology"]["bdp_rtt"] = "100ms"  # 1201.9 packets
    assert (
        Scenario.model_validate(data).resolve()["topology"]["forward"]["queue"]["limit_pkts"]
        == 1202
    )


def test_bdp_access_buffer_uses_the_access_rate() -> None:
    data = dumbbell()
    data["topology"].update(access_buffer="1bdp", access_rate="1Gbps")  # 1 Gbps x 20 ms: 2403.8
    assert Scenario.model_validate(data).resolve()["topology"]["access_queue"]["limit_pkts"] == 2404


# ---- TOML in and out -----------------------------------------------------------------------------


@pytest.mark.parametrize("example", ["dumbbell", "parking_lot", "explicit", "two_way"])
def test_examples_load_and_round_trip(example: str) -> None:
    scenario = Scenario.load(EXAMPLES / f"{example}.toml")
    assert scenario.name == example
    text = scenario.to_toml()
    again = Scenario.from_toml(text)
    assert again.resolve() == scenario.resolve()
    assert again.to_toml() == text


def test_example_dumbbell_is_what_the_brief_says() -> None:
    spec = Scenario.load(EXAMPLES / "dumbbell.toml").resolve()
    assert len(spec["flows"]) == 10 and {f["cc"] for f in spec["flows"]} == {"newreno"}
    assert {f["rtt_ns"] for f in spec["flows"]} == {20_000_000}
    assert spec["topology"]["forward"]["rate_bps"] == 100_000_000
    assert spec["topology"]["access_rate_bps"] == 1_000_000_000
    assert spec["topology"]["forward"]["queue"] == {
        "kind": "droptail",
        "limit_pkts": 241,
        "limit_bytes": None,
    }
    assert spec["duration_ns"] == 20_000_000_000


def test_to_toml_fills_defaults() -> None:
    text = Scenario.model_validate(dumbbell(name="x")).to_toml()
    for line in [
        'access_rate = "400Mbps"',
        'buffer = "1bdp"',
        'label = "newreno"',
        'size = "inf"',
        'profile = "ns2"',
    ]:
        assert line in text
    assert "[stack]" not in text  # nothing set: no empty table


def test_generator_sizes_round_trip() -> None:
    generators = [
        {"kind": "closed_loop", "cc": "reno", "slots": 2, "size": "100KB", "rtt_choices": ["40ms"]},
        {"kind": "open_loop", "cc": "reno", "rate": 1.0, "rtt_choices": ["40ms"],
         "size": {"dist": "pareto", "mean": "64KiB", "shape": 1.2}},
    ]  # fmt: skip
    scenario = Scenario.model_validate(dumbbell(generators=generators))
    text = scenario.to_toml()
    assert 'size = "100KB"' in text
    assert Scenario.from_toml(text).resolve() == scenario.resolve()


# ---- overrides ---------------------------------------------------------------------------------


def test_overrides_parse_toml_values() -> None:
    base = Scenario.model_validate(dumbbell())
    changed = base.with_overrides(
        {"topology.loss": "0.01", "flows.0.cc": "reno", "seed": "42", "flows[0].rtt": "30ms"}
    )
    assert changed.topology.loss == 0.01
    assert changed.flows[0].cc == "reno" and changed.flows[0].label == "reno"
    assert changed.seed == 42 and changed.flows[0].rtt == 30_000_000
    assert base.topology.loss == 0.0 and base.flows[0].cc == "newreno"  # the original is unchanged


def test_overrides_create_tables_and_take_lists() -> None:
    data = dumbbell(
        generators=[
            {
                "kind": "closed_loop",
                "cc": "reno",
                "slots": 1,
                "size": "1MB",
                "rtt_choices": ["40ms"],
            }
        ]
    )
    changed = Scenario.model_validate(data).with_overrides(
        {
            "trace.sample_interval": "10ms",
            "generators.0.rtt_choices": '["50ms", "60ms"]',
            "stack.delayed_ack": "true",
        }
    )
    assert changed.trace.sample_interval == 10_000_000
    assert changed.generators[0].rtt_choices == [50_000_000, 60_000_000]
    assert changed.stack.delayed_ack is True


def test_overrides_apply_to_what_the_user_wrote() -> None:
    # The default access rate (4 x bottleneck) must follow a new bottleneck rate.
    changed = Scenario.model_validate(dumbbell()).with_overrides(
        {"topology.bottleneck_rate": "1Gbps"}
    )
    assert changed.topology.access_rate == 4_000_000_000


def test_overrides_accept_the_word_inf() -> None:
    data = dumbbell(flows=[{"cc": "newreno", "rtt": "20ms", "size": "1MB"}])
    assert (
        Scenario.model_validate(data).with_overrides({"flows.0.size": "inf"}).flows[0].size is None
    )


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"flows.3.cc": "reno"}, "cannot set flows.3.cc: flows has 1 entries"),
        ({"flows.x.cc": "reno"}, "cannot set flows.x.cc"),
        ({"flows.0.cc.x": "1"}, 'cannot set flows.0.cc.x: flows.0.cc is "newreno", not a table'),
        ({"topology..rate": "1"}, "is not a key path"),
        ({"topology.loss": "2"}, "topology.loss: 2 is not valid; expected a value less than 1"),
        (
            {"topology.bottleneck_rate": "100Mbs"},
            'topology.bottleneck_rate: "100Mbs" is not a rate',
        ),
        ({"flows.0.colour": "red"}, "flows[0].colour: unknown key"),
    ],
)
def test_bad_overrides(overrides: dict[str, str], fragment: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        Scenario.model_validate(dumbbell()).with_overrides(overrides)
    assert fragment in str(caught.value)


# ---- errors ------------------------------------------------------------------------------------


def _without(data: dict[str, Any], *path: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    node = data
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return data


def _with(data: dict[str, Any], value: Any, *path: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    node = data
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(node, dict) else node[key]
    node[path[-1]] = value
    return data


BAD_INPUTS = [
    # (scenario, expected start of the message, a fragment it must contain)
    (_without(dumbbell(), "topology", "bottleneck_rate"), "topology.bottleneck_rate: ", 'required key is missing; expected a rate like "100Mbps"'),
    (_without(dumbbell(), "duration"), "duration: ", "required key is missing"),
    (_without(dumbbell(), "topology"), "topology: ", "required key is missing"),
    (_without(dumbbell(), "flows", 0, "cc"), "flows[0].cc: ", "required key is missing; expected an algorithm name"),
    (_with(dumbbell(), "100Mbs", "topology", "bottleneck_rate"), "topology.bottleneck_rate: ",
     '"100Mbs" is not a rate; expected a number with a unit like "100Mbps" (bps, Kbps, Mbps, Gbps)'),
    (_with(dumbbell(), "-5ms", "topology", "bottleneck_delay"), "topology.bottleneck_delay: ", '"-5ms" is negative'),
    (_with(dumbbell(), "-1Gbps", "topology", "access_rate"), "topology.access_rate: ", "is negative"),
    (_with(dumbbell(), 60, "duration"), "duration: ", "60 is not a time"),
    (_with(dumbbell(), "0s", "duration"), "duration: ", "is zero"),
    (_with(dumbbell(), "1", "colour"), "colour: ", "unknown key; expected one of: name, seed, duration"),
    (_with(dumbbell(), "1", "topology", "bottlenek_rate"), "topology.bottlenek_rate: ", "unknown key; expected one of: kind, bottleneck_rate"),
    (_with(dumbbell(), 1, "flows", 0, "rtts"), "flows[0].rtts: ", "unknown key"),
    (_with(dumbbell(), "renoo", "flows", 0, "cc"), "flows[0].cc: ", 'unknown algorithm "renoo"; expected one of: cubic, newreno, reno'),
    (_with(dumbbell(), {"alpha": 1.0}, "flows", 0, "params"), "flows[0].params.alpha: ", 'newreno has no parameter "alpha"; expected one of: beta'),
    (_with(dumbbell(), {"beta": 1.5}, "flows", 0, "params"), "flows[0].params.beta: ", "1.5 is out of range; expected a value from 0.01 to 0.99"),
    (_with(dumbbell(), {"beta": True}, "flows", 0, "params"), "flows[0].params.beta: ", "expected a number"),
    (_with(dumbbell(), {"beta": "x"}, "flows", 0, "params"), "flows[0].params.beta: ", "is not a parameter value"),
    (dumbbell(flows=[{"cc": "reno", "rtt": "20ms", "params": {"x": 1}}]), "flows[0].params.x: ", "expected none (it takes no parameters)"),
    (_with(dumbbell(), "9ms", "flows", 0, "rtt"), "flows[0].rtt: ", 'is below twice the bottleneck delay; expected a base RTT of at least "10ms"'),
    (_without(dumbbell(), "flows", 0, "rtt"), "flows[0].rtt: ", "required on a dumbbell"),
    (_with(dumbbell(), "R0", "flows", 0, "src"), "flows[0].src: ", "not allowed on a dumbbell"),
    (_with(dumbbell(), 0, "flows", 0, "count"), "flows[0].count: ", "expected a value greater than or equal to 1"),
    (_with(dumbbell(), "2", "flows", 0, "count"), "flows[0].count: ", '"2" is not valid; expected a valid integer'),
    (_with(dumbbell(), "20s", "flows", 0, "start"), "flows[0].start: ", "is not before the end of the run"),
    (_with(dumbbell(), "0B", "flows", 0, "size"), "flows[0].size: ", "is zero"),
    (_with(dumbbell(), 1.0, "topology", "loss"), "topology.loss: ", "expected a value less than 1"),
    (_with(dumbbell(), -1, "seed"), "seed: ", "expected a value greater than or equal to 0"),
    (_with(dumbbell(), "bsd", "profile"), "profile: ", 'expected "ns2", "rfc", "linux-sack" or "linux"'),
    (_with(dumbbell(), "a/b", "name"), "name: ", "is not a valid name"),
    (_with(dumbbell(), [], "flows"), "flows: ", "no traffic"),
    (_with(dumbbell(), "star", "topology", "kind"), "topology.kind: ", '"star" is not valid; expected one of "dumbbell", "parking_lot", "explicit"'),
    (_without(dumbbell(), "topology", "kind"), "topology.kind: ", "required key is missing"),
    (
        _with(dumbbell(), "sfq", "topology", "queue"),
        "topology.queue: ",
        'expected "droptail", "red", "codel", "fq_codel", "pie", "dualpi2" or "step"',
    ),
    (_with(dumbbell(), {"min_th": 5}, "topology", "red"), "topology.red: ", 'given but queue is "droptail"'),
    (_with(_with(dumbbell(), "red", "topology", "queue"), "64KB", "topology", "buffer"), "topology.buffer: ", "a RED queue is limited in packets"),
    (_with(_with(dumbbell(), "red", "topology", "queue"), {"min_th": 20}, "topology", "red"), "topology.red.max_th: ", "expected max_th > min_th"),
    (_with(dumbbell(), "1.5pkts", "topology", "buffer"), "topology.buffer: ", "not a whole number of packets"),
    (_with(dumbbell(), "fast", "stack", "min_rto"), "stack.min_rto: ", '"fast" is not a time'),
    (_with(dumbbell(), 1, "stack", "delayed_ack"), "stack.delayed_ack: ", "expected a valid boolean"),
    (_with(dumbbell(), "nwereno", "stack", "recovery"), "stack.recovery: ", 'expected "reno", "newreno", "sack" or "rack-tlp"'),
    (_with(dumbbell(), {"sack": True, "recovery": "newreno"}, "stack"), "stack.sack: ",
     'true contradicts recovery = "newreno"; expected false with that recovery'),
    (_with(dumbbell(), "x", "trace"), "trace: ", "is not a table"),
    (_with(dumbbell(), "0s", "trace", "sample_interval"), "trace.sample_interval: ", "is zero"),
    # generators
    (dumbbell(generators=[{"kind": "closed", "cc": "reno", "slots": 1, "size": "1MB"}]), "generators[0].kind: ", 'expected one of "closed_loop", "open_loop"'),
    (dumbbell(generators=[{"kind": "open_loop", "cc": "reno", "slots": 1, "size": "1MB", "rtt_choices": ["40ms"]}]), "generators[0].slots: ", "unknown key"),
    (dumbbell(generators=[{"kind": "closed_loop", "cc": "reno", "size": "1MB", "rtt_choices": ["40ms"]}]), "generators[0].slots: ", "required key is missing"),
    (dumbbell(generators=[{"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "inf", "rtt_choices": ["40ms"]}]), "generators[0].size: ", '"inf" is not allowed here'),
    (dumbbell(generators=[{"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "1Mb", "rtt_choices": ["40ms"]}]), "generators[0].size: ", '"1Mb" is not a size'),
    (dumbbell(generators=[{"kind": "closed_loop", "cc": "reno", "slots": 1, "size": {"dist": "pareto", "mean": "1MB"}, "rtt_choices": ["40ms"]}]),
     "generators[0].size.shape: ", "required for a pareto distribution"),
    (dumbbell(generators=[{"kind": "closed_loop", "cc": "reno", "slots": 1, "size": {"dist": "exponential", "mean": "1MB", "shape": 2.0}, "rtt_choices": ["40ms"]}]),
     "generators[0].size.shape: ", "only a pareto distribution has a shape"),
    (dumbbell(generators=[{"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "1MB"}]), "generators[0].rtt_choices: ", "required on a dumbbell"),
    (dumbbell(generators=[{"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "1MB", "rtt_choices": ["40ms", "4ms"]}]), "generators[0].rtt_choices[1]: ", "below twice"),
    (dumbbell(generators=[{"kind": "closed_loop", "cc": "cubicc", "slots": 1, "size": "1MB", "rtt_choices": ["40ms"]}]), "generators[0].cc: ", "unknown algorithm"),
    # parking lot
    (_with(parking_lot(), "R4", "flows", 0, "dst"), "flows[0].dst: ", '"R4" is not a router; expected one of: R0, R1, R2, R3'),
    (_with(parking_lot(), "R0", "flows", 0, "dst"), "flows[0].dst: ", "is the same as the source"),
    (_without(parking_lot(), "flows", 0, "src"), "flows[0].src: ", 'required on a parking lot; expected a router name like "R0"'),
    (_with(parking_lot(), 1, "topology", "routers"), "topology.routers: ", "greater than or equal to 2"),
    (_without(parking_lot(), "topology", "bdp_rtt"), "topology.bdp_rtt: ", 'required because topology.buffer is "1bdp"'),
    (parking_lot(generators=[{"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "1MB"}]), "generators[0].endpoints: ", "required on a parking lot"),
    (parking_lot(generators=[{"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "1MB", "endpoints": [["R0", "R9"]]}]),
     "generators[0].endpoints[0][1]: ", '"R9" is not a router'),
    (parking_lot(generators=[{"kind": "closed_loop", "cc": "reno", "slots": 1, "size": "1MB", "endpoints": [["R0", "R1"]], "rtt_choices": ["1s"]}]),
     "generators[0].rtt_choices: ", "not allowed on a parking lot"),
    # explicit
    (_with(explicit(), "z", "topology", "links", 1, "dst"), "topology.links[1].dst: ", '"z" is not a node; expected one of: a, b, c'),
    (_with(explicit(), "a", "topology", "links", 0, "dst"), "topology.links[0].dst: ", "is the same as src"),
    (_with(explicit(), ["a", "b", "a"], "topology", "nodes"), "topology.nodes[2]: ", "listed twice"),
    (_with(explicit(), "z", "flows", 0, "dst"), "flows[0].dst: ", '"z" is not a node'),
    (_with(explicit(), "40ms", "flows", 0, "rtt"), "flows[0].rtt: ", '"40ms" is not allowed on an explicit topology'),
    (_without(explicit(), "topology", "bdp_rtt"), "topology.bdp_rtt: ", 'required because topology.links[0].buffer is "1bdp"'),
    (_with(explicit(), [], "topology", "links"), "topology.links: ", "expected at least 1 entries"),
    (_without(explicit(), "topology", "links", 0, "rate"), "topology.links[0].rate: ", "required key is missing"),
    (_with(_with(explicit(), False, "topology", "links", 0, "duplex"), 0.1, "topology", "links", 0, "reverse_loss"),
     "topology.links[0].reverse_loss: ", "duplex = false"),
    (explicit(topology=explicit()["topology"] | {"links": [*explicit()["topology"]["links"], {"src": "b", "dst": "a", "rate": "1Mbps", "delay": "1ms"}]}),
     "topology.links[2]: ", 'a link from "b" to "a" is already given'),
    (_with(dumbbell(), 200_000, "flows", 0, "clock_drift_ppm"), "flows[0].clock_drift_ppm: ", "less than or equal to 100000"),
    (_with(dumbbell(), "-x", "flows", 0, "clock_offset"), "flows[0].clock_offset: ", "is not a time"),
    (_with(dumbbell(), "yes", "flows", 0, "reverse"), "flows[0].reverse: ", "boolean"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "prefix", "fragment"), BAD_INPUTS)
def test_bad_input_names_the_key(data: dict[str, Any], prefix: str, fragment: str) -> None:
    message = error_of(data)
    assert message.startswith(prefix), message
    assert fragment in message, message


def test_scenario_error_is_a_value_error_with_a_path() -> None:
    with pytest.raises(ValueError) as caught:
        Scenario.model_validate(_with(dumbbell(), "100Mbs", "topology", "bottleneck_rate"))
    error = caught.value
    assert isinstance(error, ScenarioError)
    assert error.path == ("topology", "bottleneck_rate")


def test_constructor_raises_scenario_errors_too() -> None:
    with pytest.raises(ScenarioError, match=r"^topology\.bottleneck_rate: "):
        Scenario(**_with(dumbbell(), "100Mbs", "topology", "bottleneck_rate"))


def test_toml_syntax_error() -> None:
    with pytest.raises(ScenarioError, match=r"^invalid TOML: .*line 2"):
        Scenario.from_toml('name = "x"\nduration = \n')


def test_load_errors(tmp_path: Path, write_scenario) -> None:
    with pytest.raises(ScenarioError, match="no such file"):
        Scenario.load(tmp_path / "missing.toml")
    with pytest.raises(ScenarioError, match="is a directory"):
        Scenario.load(tmp_path)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00junk")
    with pytest.raises(ScenarioError, match="not a UTF-8 text file"):
        Scenario.load(binary)
    broken = write_scenario("duration = [", stem="broken")
    with pytest.raises(ScenarioError, match=r"broken\.toml: invalid TOML"):
        Scenario.load(broken)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(write_scenario) -> None:
    path = write_scenario(SMALL_DUMBBELL)
    path.chmod(0)
    with pytest.raises(ScenarioError, match="cannot read"):
        Scenario.load(path)


# ---- the engine accepts what we resolve ------------------------------------------------------


def _kitchen_sink() -> list[dict[str, Any]]:
    """Scenarios that between them use every key of the format."""
    sink = dumbbell(
        name="sink",
        seed=3,
        profile="linux",
        stack={
            "initial_window": 4.0, "per_ack_counting": False, "slow_start_cap": 0.0,
            "ssthresh_basis": "cwnd", "initial_ssthresh_is_window": False, "rto_formula": "linux",
            "rtt_sampling": "every_ack", "min_rto": "200ms", "initial_rto": "1s", "max_rto": "60s",
            "clock_granularity": "1ms", "delayed_ack": True, "delayed_ack_timeout": "40ms",
            "cwnd_gating": True, "partial_window_deflation": True,
            "restart_rto_every_partial_ack": False, "dupack_threshold": 3, "default_max_window": 1000,
        },
        flows=[{
            "cc": "newreno", "count": 2, "rtt": "30ms", "start": "10ms", "start_jitter": "5ms",
            "size": "1MB", "mss": 1460, "label": "x", "max_window": 100, "delayed_ack": False,
            "params": {"beta": 0.7}, "reverse": True, "clock_offset": "-1ms", "clock_drift_ppm": -20.5,
        }],
        generators=[
            {"kind": "closed_loop", "cc": "reno", "slots": 2, "size": "20KB", "rtt_choices": ["40ms"],
             "reverse": True},
            {"kind": "open_loop", "cc": "reno", "rate": 5.0, "stop": "1s",
             "size": {"dist": "pareto", "mean": "20KB", "shape": 1.5}, "rtt_choices": ["40ms", "60ms"]},
        ],
        trace={"sample_interval": "10ms", "drops": True},
    )  # fmt: skip
    sink["topology"].update(
        queue="red", red={"min_th": 3, "max_th": 9, "max_p": 0.2, "w_q": 0.01, "gentle": False, "wait": False,
                          "mean_pktsize": 1000},
        loss=0.001, reverse_loss=0.001, access_rate="1Gbps", access_buffer="500pkts",
    )  # fmt: skip
    lot = parking_lot(generators=[
        {"kind": "open_loop", "cc": "newreno", "rate": 2.0, "size": {"dist": "exponential", "mean": "30KB"},
         "endpoints": [["R0", "R2"], ["R1", "R3"]]}
    ])  # fmt: skip
    lot["topology"].update(access_rate="100Mbps", access_delay="2ms", queue="red")
    lot["flows"][0]["rtt"] = "100ms"
    return [sink, lot, explicit()]


@requires_engine
@pytest.mark.parametrize("example", ["dumbbell", "parking_lot", "explicit", "two_way"])
def test_engine_accepts_examples(example: str) -> None:
    from ccsim import _core

    scenario = Scenario.load(EXAMPLES / f"{example}.toml")
    _core.Simulation(json.dumps(scenario.resolve()))


@requires_engine
@pytest.mark.parametrize("index", range(3))
def test_engine_accepts_every_key(index: int) -> None:
    from ccsim import _core

    scenario = Scenario.model_validate(_kitchen_sink()[index])
    _core.Simulation(json.dumps(scenario.resolve()))


@requires_engine
def test_engine_registry_checks_names() -> None:
    message = error_of(_with(dumbbell(), "renoo", "flows", 0, "cc"))
    assert message.startswith('flows[0].cc: unknown algorithm "renoo"; expected one of: ')
    assert "newreno" in message


# ---- one schema: the engine's knobs, queue kinds and profiles ----------------------------------

from ccsim.scenario import _STACK_ENGINE_NAMES, Stack  # noqa: E402

# A value of [stack] numbers that differs from every profile's, and the engine's value for it\n# (others: _other_value).
STACK_VALUES: dict[str, tuple[Any, Any]] = {
    "initial_window": (7.0, 7.0),
    "slow_start_cap": (3.0, 3.0),
    "min_rto": ("150ms", 150_000_000),
    "initial_rto": ("2500ms", 2_500_000_000),
    "max_rto": ("90s", 90_000_000_000),
    "max_backoff": (32, 32),
    "clock_granularity": ("5ms", 5_000_000),
    "delayed_ack_timeout": ("70ms", 70_000_000),
    "dupack_threshold": (5, 5),
    "default_max_window": (500, 500),
    "send_overhead": ("1ms", 1_000_000),
}


def _other_value(setting: dict[str, Any], profile: str) -> tuple[Any, Any]:
    """A value of a [stack] setting other than ``profile``'s, as written and as the engine holds
    it: from ``STACK_VALUES`` where given, else from the engine's table of settings (another
    choice, the other boolean, or a number within the bounds that no profile uses), so that a
    new setting is covered without editing this test."""
    key, default = setting["key"], setting["defaults"][profile]
    if setting["choices"]:
        other = next(c for c in setting["choices"] if c != default)
        return other, other
    if setting["kind"] == "bool":
        return not default, not default
    if STACK_VALUES.get(key, (None, None))[0] is not None:
        return STACK_VALUES[key]
    used = {v for v in setting["defaults"].values() if v is not None}
    value = max(used, default=setting["min"]) + 1
    value = min(value, setting["max"]) if setting["max"] is not None else value
    if setting["kind"] == "time":
        return f"{int(value)}ns", int(value)
    return value, value


def test_a_new_setting_gets_a_value_other_than_every_profiles() -> None:
    defaults = {"ns2": 3, "rfc": 4, "linux": None}
    new_int = {
        "key": "new",
        "kind": "int",
        "min": 1,
        "max": 10,
        "choices": [],
        "defaults": defaults,
    }
    assert _other_value(new_int, "ns2") == (5, 5)
    new_time = new_int | {"kind": "time", "max": None}
    assert _other_value(new_time, "rfc") == ("5ns", 5)
    choice = new_int | {"kind": "choice", "choices": ["a", "b"], "defaults": {"ns2": "a"}}
    assert _other_value(choice, "ns2") == ("b", "b")


def _engine_key(key: str) -> str:
    return _STACK_ENGINE_NAMES.get(key, key)


@requires_engine
def test_every_engine_knob_can_be_written_in_stack() -> None:
    from ccsim import _core

    profiles = _core.stack_profiles()
    assert sorted(profiles) == ["linux", "linux-sack", "ns2", "rfc"]
    engine_knobs = set(profiles["ns2"]) - {"profile"}
    assert {_engine_key(key) for key in Stack.model_fields} == engine_knobs
    assert set(Scenario.model_fields["profile"].annotation.__args__) == set(profiles)  # type: ignore[union-attr]
    from ccsim.scenario import QueueKind

    assert set(QueueKind.__args__) == set(_core.queue_kinds())  # type: ignore[attr-defined]


@requires_engine
@pytest.mark.parametrize("profile", ["ns2", "rfc", "linux-sack", "linux"])
def test_every_stack_knob_round_trips(profile: str) -> None:
    """Each knob, written with a value other than the profile's, is resolved, run and reported."""
    from ccsim import _core
    from ccsim.runner import run

    settings = {setting["key"]: setting for setting in _core.stack_settings()}
    for key in Stack.model_fields:
        engine_key = _engine_key(key)
        written, expected = _other_value(settings[key], profile)
        scenario = Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
            {"profile": profile, "duration": "300ms", f"stack.{key}": written}
        )
        assert scenario.resolve()["stack"]["overrides"] == {engine_key: expected}
        reloaded = Scenario.from_toml(scenario.to_toml())
        assert reloaded.resolve()["stack"] == scenario.resolve()["stack"], key
        results = run(scenario)
        assert results.summary["stack"][engine_key] == expected, key


@requires_engine
@pytest.mark.parametrize(("profile", "window"), [("ns2", 2), ("rfc", 3), ("linux", 10)])
def test_an_explicit_value_equal_to_the_default_is_kept(profile: str, window: int) -> None:
    from ccsim.runner import run

    scenario = Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"profile": profile, "duration": "300ms", "stack.initial_window": window}
    )
    assert scenario.resolve()["stack"]["overrides"] == {"initial_window": window}
    again = Scenario.from_toml(scenario.to_toml())
    assert again.stack.initial_window == window
    assert again.resolve()["stack"]["overrides"] == {"initial_window": window}
    # Under rfc the formula would give 4 segments for a 1000-byte MSS; the written 3 is used.
    assert run(scenario).summary["stack"]["initial_window"] == window


@requires_engine
def test_the_rtt_floor_is_the_same_in_python_and_the_engine() -> None:
    """A dumbbell RTT of exactly twice the bottleneck delay is accepted by both, 1 ns less by
    both (engine/topology.rs Network::attach and Dumbbell._check_rtt)."""
    from ccsim import _core

    ok = Scenario.from_toml(SMALL_DUMBBELL).with_overrides({"flows.0.rtt": "10ms"})
    _core.Simulation(json.dumps(ok.resolve()))
    with pytest.raises(ScenarioError, match=r'flows\[0\]\.rtt: .*at least "10ms"'):
        Scenario.from_toml(SMALL_DUMBBELL).with_overrides({"flows.0.rtt": "9999999ns"})
    spec = ok.resolve()
    spec["flows"][0]["rtt_ns"] = 9_999_999
    with pytest.raises(ValueError, match=r"flows\[0\]\.rtt"):
        _core.Simulation(json.dumps(spec))


@requires_engine
@pytest.mark.parametrize(
    ("change", "key"),
    [
        (
            lambda s: s["topology"]["forward"].update(loss={"kind": "bernoulli", "p": 2.0}),
            "topology.forward.loss.p",
        ),
        (lambda s: s["stack"]["overrides"].update(initial_window=-1.0), "stack.initial_window"),
        (lambda s: s["stack"]["overrides"].update(dupack_threshold=0), "stack.dupack_threshold"),
        (lambda s: s["stack"]["overrides"].update(max_rto_ns=0), "stack.max_rto_ns"),
        (
            lambda s: s["topology"]["forward"].update(delay_ns=2**63 - 1000),
            "topology.forward.delay_ns",
        ),
        (lambda s: s.update(duration_ns=2**64 - 1), "duration_ns"),
        (lambda s: s["flows"][0].update(start_ns=2**64 - 10), "flows[0].start_ns"),
        (
            lambda s: s["topology"]["forward"]["queue"].update(limit_pkts=10**30 // 10**12),
            "topology.forward.queue.limit_pkts",
        ),
    ],
)
def test_the_engine_rejects_what_it_cannot_run(change: Any, key: str) -> None:
    """Whoever calls it: a spec the schema would never produce, handed to the engine directly."""
    from ccsim import _core

    spec = Scenario.from_toml(SMALL_DUMBBELL).resolve()
    change(spec)
    with pytest.raises(ValueError) as caught:
        _core.Simulation(json.dumps(spec))
    assert str(caught.value).startswith(f"{key}: "), caught.value


@pytest.mark.parametrize(
    ("topology", "path"),
    [("dumbbell", ("forward", "reverse")), ("parking_lot", ("forward", "reverse"))],
)
def test_topology_jitter_reaches_the_core_links(topology: str, path: tuple[str, str]) -> None:
    if topology == "dumbbell":
        scenario = Scenario.from_toml(SMALL_DUMBBELL).with_overrides({"topology.jitter": "1ms"})
    else:
        scenario = Scenario.model_validate({
            "duration": "1s",
            "topology": {"kind": "parking_lot", "routers": 3, "rate": "10Mbps", "delay": "2ms",
                         "buffer": "50pkts", "jitter": "250us"},
            "flows": [{"cc": "reno", "src": "R0", "dst": "R2"}],
        })  # fmt: skip
    resolved = scenario.resolve()["topology"]
    expected = 1_000_000 if topology == "dumbbell" else 250_000
    assert [resolved[direction]["jitter_ns"] for direction in path] == [expected, expected]
    assert Scenario.from_toml(scenario.to_toml()).resolve()["topology"] == resolved
    with pytest.raises(ScenarioError, match=r"^topology\.jitter: "):
        scenario.with_overrides({"topology.jitter": "-1ms"})


def test_explicit_link_jitter_applies_to_both_directions() -> None:
    scenario = Scenario.model_validate({
        "duration": "1s",
        "topology": {"kind": "explicit", "nodes": ["a", "b"], "links": [
            {"src": "a", "dst": "b", "rate": "10Mbps", "delay": "1ms", "buffer": "10pkts",
             "jitter": "3ms"}]},
        "flows": [{"cc": "reno", "src": "a", "dst": "b"}],
    })  # fmt: skip
    links = scenario.resolve()["topology"]["links"]
    assert [link["jitter_ns"] for link in links] == [3_000_000, 3_000_000]
    with pytest.raises(ScenarioError, match=r"^topology\.links\[0\]\.jitter: "):
        scenario.with_overrides({"topology.links.0.jitter": "1e30s"})


def test_a_negative_clock_offset_survives_a_toml_round_trip() -> None:
    data = _with(dumbbell(), "-1.5ms", "flows", 0, "clock_offset")
    scenario = Scenario.model_validate(data)
    again = Scenario.from_toml(scenario.to_toml())
    assert again.resolve()["flows"][0]["clock_offset_ns"] == -1_500_000
    assert again.resolve() == scenario.resolve()


@requires_engine
def test_reverse_flows_load_the_other_direction_and_ack_compression_costs_throughput() -> None:
    """examples/two_way.toml: the reverse flows' data crosses R2 -> R1, and the forward
    direction carries less than when all four flows send the same way."""
    import ccsim

    def links(scenario: Scenario) -> pd.DataFrame:
        return ccsim.run(scenario).links.set_index(["src", "dst"])

    two_way = Scenario.load(EXAMPLES / "two_way.toml")
    one_way = two_way.with_overrides({"flows.1.reverse": False})
    both, forward = links(two_way), links(one_way)
    assert both.loc[("R2", "R1"), "utilization"] > 0.5
    assert forward.loc[("R2", "R1"), "utilization"] < 0.1  # ACKs only
    # measured: 0.685 two-way against 0.978 one-way
    assert both.loc[("R1", "R2"), "utilization"] < 0.85 * forward.loc[("R1", "R2"), "utilization"]


# ---- one table where a list of tables is expected, and the other way round -------------------

_TOML_DUMBBELL = """
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
"""
_TOML_FLOW = """
cc = "newreno"
rtt = "20ms"
"""


@pytest.mark.parametrize(
    ("text", "key", "fix"),
    [
        (_TOML_DUMBBELL + "[flows]" + _TOML_FLOW, "flows", "write [[flows]], with two brackets"),
        (
            _TOML_DUMBBELL + '[generators]\nkind = "closed_loop"\ncc = "newreno"\nslots = 2\n'
            'size = "10KB"\nrtt_choices = ["20ms"]\n',
            "generators",
            "write [[generators]], with two brackets",
        ),
        (
            'duration = "10s"\n[topology]\nkind = "explicit"\nnodes = ["a", "b"]\n'
            '[topology.links]\nsrc = "a"\ndst = "b"\nrate = "10Mbps"\ndelay = "5ms"\n'
            '[[flows]]\ncc = "newreno"\nsrc = "a"\ndst = "b"\n',
            "topology.links",
            "write [[topology.links]], with two brackets",
        ),
    ],
)
def test_a_single_table_where_a_list_of_tables_belongs_says_to_use_double_brackets(
    text: str, key: str, fix: str
) -> None:
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_toml(text)
    message = str(caught.value)
    assert message.startswith(f"{key}: is a single table ([{key}]); expected a list of tables")
    assert fix in message


@pytest.mark.parametrize("key", ["topology", "stack", "trace", "limits"])
def test_a_list_of_tables_where_one_table_belongs_says_to_use_single_brackets(key: str) -> None:
    text = _TOML_DUMBBELL + "[[flows]]" + _TOML_FLOW + f"[[{key}]]\n"
    if key == "topology":  # the whole topology written as [[topology]]
        text = _TOML_DUMBBELL.replace("[topology]", "[[topology]]") + "[[flows]]" + _TOML_FLOW
    else:
        text += {"stack": "sack = true", "trace": 'sample_interval = "1s"', "limits": "x = 1"}[key]
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_toml(text)
    assert str(caught.value) == (
        f"{key}: is a list of tables ([[{key}]]); expected one table: "
        f"write [{key}], with one pair of brackets"
    )


def test_a_list_that_is_not_of_tables_keeps_the_plain_message() -> None:
    # Only a table-for-a-list-of-tables slip gets the bracket advice.
    with pytest.raises(ScenarioError) as caught:
        Scenario.model_validate(dumbbell(flows="newreno"))
    assert "[[flows]]" not in str(caught.value)
    with pytest.raises(ScenarioError, match=r"^stack: 3 is not a table; expected a TOML table$"):
        Scenario.model_validate(dumbbell(stack=3))


# ---- an override of the algorithm keeps the old algorithm's parameters ---------------------------

# cubic's parameters, of which newreno takes beta only (in the fake registry and the engine alike).
CUBIC_WITH_PARAMS = SMALL_DUMBBELL.replace(
    'cc = "newreno"\ncount = 2',
    'cc = "cubic"\ncount = 2\nparams = { beta = 0.8, hystart_low_window = 8 }',
)


def test_parameters_left_from_the_old_algorithm_say_whose_they_are_and_how_to_drop_them() -> None:
    base = Scenario.from_toml(CUBIC_WITH_PARAMS)
    with pytest.raises(ScenarioError) as caught:
        base.with_overrides({"flows[0].cc": "newreno"})
    error = caught.value
    assert error.path == ("flows", 0, "params", "hystart_low_window")  # beta is newreno's too
    assert error.detail == (
        '"hystart_low_window" is a parameter of cubic, kept when flows.0.cc was set to newreno, '
        'which has no parameter "hystart_low_window" (it takes beta); drop cubic\'s parameters '
        "by also setting flows.0.params to {} (--set 'flows.0.params={}'), or give newreno's own"
    )
    # Doing what it says, or giving the new algorithm's parameters, is accepted.
    dropped = base.with_overrides({"flows.0.cc": "newreno", "flows.0.params": "{}"})
    assert dropped.flows[0].params == {}
    given = base.with_overrides({"flows.0.cc": "newreno", "flows.0.params": {"beta": 0.6}})
    assert given.flows[0].params == {"beta": 0.6}
    # An algorithm that takes every parameter left keeps them.
    only_beta = Scenario.from_toml(CUBIC_WITH_PARAMS.replace(", hystart_low_window = 8", ""))
    assert only_beta.with_overrides({"flows.0.cc": "newreno"}).flows[0].params == {"beta": 0.8}


def test_parameters_set_with_the_new_algorithm_count_as_its_own() -> None:
    # The user set this parameter for newreno: the usual message, about newreno alone.
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_toml(CUBIC_WITH_PARAMS).with_overrides(
            {"flows.0.cc": "newreno", "flows.0.params.c": 0.5, "flows.0.params.beta": 0.5}
        )
    message = str(caught.value)
    assert message.startswith("flows[0].params.")
    assert "parameter of cubic" in message  # hystart_low_window was left, c was not
    assert "hystart_low_window" in message
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
            {"flows.0.cc": "reno", "flows.0.params.c": 0.5}
        )
    assert str(caught.value) == (
        'flows[0].params.c: reno has no parameter "c"; expected none (it takes no parameters)'
    )


@requires_engine
def test_the_command_line_names_the_old_algorithms_parameters_and_exits_2(tmp_path: Path) -> None:
    from conftest import run_cli

    (tmp_path / "cubic.toml").write_text(CUBIC_WITH_PARAMS, encoding="utf-8")
    done = run_cli("run", "cubic.toml", "--set", "flows.0.cc=newreno", "--out", "out", cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith('error: flows[0].params.hystart_low_window: "hystart_low_window"')
    assert "is a parameter of cubic" in lines[0] and "--set 'flows.0.params={}'" in lines[0]
    assert not (tmp_path / "out").exists()


def test_a_sweep_axis_over_the_algorithm_names_the_point_and_the_old_parameters(
    tmp_path: Path,
) -> None:
    import ccsim

    (tmp_path / "base.toml").write_text(CUBIC_WITH_PARAMS, encoding="utf-8")
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        'scenario = "base.toml"\n[axes]\n"flows.0.cc" = ["cubic", "newreno"]\n', encoding="utf-8"
    )
    with pytest.raises(ScenarioError) as caught:
        ccsim.Sweep.load(sweep).points()
    message = str(caught.value)
    assert "newreno" in message and "flows[0].params.hystart_low_window" in message
    assert "is a parameter of cubic" in message
