"""L4S signalling from the scenario side: the stack's ``ect`` and ``ecn_feedback`` settings, and
AccECN's counts in a Python algorithm's ``ack.ce_delivered``: over a run they add up to the CE
marks the bottleneck made."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import ccsim
import pytest
from ccsim.errors import ScenarioError
from ccsim.scenario import Scenario
from conftest import requires_engine

pytestmark = [requires_engine, pytest.mark.usefixtures("python_cc_path")]

# One 3000-segment transfer on 10 Mb/s, 20 ms RTT (a BDP of 24 segments), step marking at 10
# packets, sampled every 100 ms so that the queues table has a row after the transfer ends.
STEP = """
name = "accecn"
seed = 3
duration = "10s"
profile = "linux-sack"

[stack]
ecn_feedback = "accecn"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
buffer = "1000pkts"
queue = "step"

[topology.step]
k = "10pkts"

[[flows]]
cc = "newreno"
rtt = "20ms"
mss = 1000
size = "3000KB"

[trace]
sample_interval = "100ms"
"""

# A window held at 40 segments (a standing queue of about 16 at the bottleneck, so most
# segments are marked), ECN-capable, seeing every ACK and summing what each reports.
COUNTER = """
import ccsim

class Counter(ccsim.CongestionControl):
    sets_cwnd_on_every_ack = True
    needs_ecn = True
    totals: dict = {}

    def on_ack(self, ack):
        t = type(self).totals
        t["ce"] = t.get("ce", 0.0) + ack.ce_delivered
        t["ece_acks"] = t.get("ece_acks", 0) + (ack.ce_delivered > 0) - ack.ece
        t["delivered"] = t.get("delivered", 0.0) + ack.delivered_now
        t["running_delivered"] = ack.delay.delivered
        t["running_ce"] = ack.delay.delivered_ce
        self.cwnd = 40.0

    def on_congestion(self, event):
        pass
"""


def run_counter(module: Callable[[str], str], **overrides: Any) -> tuple[Any, dict[str, float]]:
    name = module(COUNTER)
    scenario = Scenario.from_toml(STEP).with_overrides(
        {"flows.0.cc": f"{name}:Counter"} | overrides
    )
    results = ccsim.run(scenario)
    return results, sys.modules[name].Counter.totals


def forward_marks(results: Any) -> float:
    queues = results.queues
    return float(queues[queues["link"] == 0]["marks"].iloc[-1])


def test_accecn_counts_add_up_to_the_marks_the_queue_made(module: Callable[[str], str]) -> None:
    results, totals = run_counter(module)
    assert bool(results.flows.loc[0, "completed"])
    marks = forward_marks(results)
    assert marks > 500
    assert totals["ce"] == marks
    assert totals["delivered"] == 3000
    assert totals["ece_acks"] == 0, "ece is set exactly on the ACKs that report marks"
    # The sender's running totals (what DCTCP reads) are the same sums, kept for every ACK.
    assert (totals["running_delivered"], totals["running_ce"]) == (3000, marks)


def test_ect1_and_one_bit_feedback_also_report_every_mark(module: Callable[[str], str]) -> None:
    # Per-segment echo: an ACK with ECE stands for its whole delivery (delayed ACKs of two
    # segments, one of them marked, count both), so the sum is at least the marks.
    results, totals = run_counter(module, **{"stack.ecn_feedback": "dctcp", "stack.ect": "ect1"})
    assert totals["ce"] >= forward_marks(results) > 500
    assert totals["running_ce"] == totals["ce"]


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("ect", "ect2", '"auto", "ect0" or "ect1"'),
        ("ecn_feedback", "l4s", '"auto", "rfc3168", "dctcp" or "accecn"'),
    ],
)
def test_a_bad_value_names_the_key_the_value_and_the_choices(
    key: str, value: str, expected: str
) -> None:
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_toml(STEP.replace('ecn_feedback = "accecn"', f'{key} = "{value}"'))
    assert str(caught.value) == f'stack.{key}: "{value}" is not valid; expected {expected}'


def test_the_settings_are_the_engines_with_auto_under_every_profile() -> None:
    from ccsim.scenario.stack import STACK_SETTINGS

    by_key = {s["key"]: s for s in STACK_SETTINGS}
    assert by_key["ect"]["choices"] == ["auto", "ect0", "ect1"]
    assert by_key["ecn_feedback"]["choices"] == ["auto", "rfc3168", "dctcp", "accecn"]
    for key in ("ect", "ecn_feedback"):
        assert set(by_key[key]["defaults"].values()) == {"auto"}
