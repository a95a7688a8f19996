"""DualPI2 (RFC 9332) from the scenario side: its table's defaults (Linux's sch_dualpi2) resolve to
the engine's queue spec, bad values name their key, and a run reports both queues' state in the
``queues`` table with each queue's counters adding up."""

from __future__ import annotations

from typing import Any

import ccsim
import pytest
from ccsim.errors import ScenarioError
from ccsim.scenario import QUEUE_INSPECT_NAMES, Scenario
from conftest import requires_engine


@pytest.fixture(autouse=True)
def _registry(request: pytest.FixtureRequest) -> None:
    if "engine" not in request.node.name:
        request.getfixturevalue("fake_registry")


def dumbbell(dualpi2: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    topology: dict[str, Any] = {
        "kind": "dumbbell",
        "bottleneck_rate": "40Mbps",
        "bottleneck_delay": "5ms",
        "queue": "dualpi2",
        "buffer": "10000pkts",
    }
    if dualpi2 is not None:
        topology["dualpi2"] = dualpi2
    data: dict[str, Any] = {
        "duration": "10s",
        "topology": topology,
        "flows": [{"cc": "newreno", "rtt": "40ms"}],
    }
    data.update(top)
    return data


def test_defaults_are_linux_sch_dualpi2s() -> None:
    queue = Scenario.model_validate(dumbbell()).resolve()["topology"]["forward"]["queue"]
    assert queue == {
        "kind": "dualpi2",
        "limit_pkts": 10_000,
        "target_ns": 15_000_000,
        "tupdate_ns": 16_000_000,
        "alpha": 0.16,
        "beta": 3.2,
        "step_thresh_ns": 1_000_000,
        "min_qlen_step": 0,
        "coupling": 2.0,
        "c_weight_pct": 10,
        "drop_overload": True,
        "drop_early": False,
        "ecn_mask": 1,
    }


def test_options_resolve() -> None:
    table = {
        "target": "20ms",
        "step_thresh": "500us",
        "coupling": 1.5,
        "c_weight": 25,
        "drop_overload": False,
        "drop_early": True,
        "classify": "any_ect",
    }
    queue = Scenario.model_validate(dumbbell(table)).resolve()["topology"]["forward"]["queue"]
    assert queue["target_ns"] == 20_000_000 and queue["step_thresh_ns"] == 500_000
    assert (queue["coupling"], queue["c_weight_pct"], queue["ecn_mask"]) == (1.5, 25, 3)
    assert (queue["drop_overload"], queue["drop_early"]) == (False, True)


@pytest.mark.parametrize(
    ("table", "key", "words"),
    [
        ({"c_weight": 101}, "topology.dualpi2.c_weight", "less than or equal to 100"),
        ({"coupling": 0}, "topology.dualpi2.coupling", "greater than or equal to 0.001"),
        ({"tupdate": "0s"}, "topology.dualpi2.tupdate", ""),
        ({"classify": "ect0"}, "topology.dualpi2.classify", "l4s_ect"),
        ({"alpha": -1.0}, "topology.dualpi2.alpha", "greater than or equal to 0"),
    ],
)
def test_bad_values_name_the_key(table: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        Scenario.model_validate(dumbbell(table))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(key + ": ") and words in message, message


def test_a_buffer_in_bytes_is_rejected() -> None:
    data = dumbbell()
    data["topology"]["buffer"] = "64KB"
    with pytest.raises(ScenarioError, match="a DualPI2 queue is limited in packets"):
        Scenario.model_validate(data)


@requires_engine
def test_engine_run_reports_both_queues_and_they_add_up() -> None:
    data = dumbbell(
        duration="8s",
        profile="linux",
        flows=[{"cc": "cubic", "rtt": "40ms", "count": 2}, {"cc": "dctcp", "rtt": "40ms"}],
    )
    data["stack"] = {"ecn": True}
    data["trace"] = {"sample_interval": "10ms"}
    results = ccsim.run(Scenario.model_validate(data))
    queues = results.queues
    assert QUEUE_INSPECT_NAMES["dualpi2"] <= set(queues.columns)
    for q in ("c", "l"):
        held = queues[f"{q}_out"] + queues[f"{q}_drops"] + queues[f"{q}_len_pkts"]
        assert (queues[f"{q}_in"] == held).all()
    forward = queues[(queues["link"] == 0) & (queues["t_s"] >= 3.0)]
    assert forward["c_marks"].iloc[-1] > 0
    assert (forward["l_in"] == 0).all()  # ECN flows send ECT(0): all classic
    delay = forward["c_delay_s"].mean()
    assert 0.008 < delay < 0.025, delay
    assert ((forward["prob_c"] - forward["prob_base"] ** 2).abs() < 1e-12).all()
