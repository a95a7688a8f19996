"""The single-algorithm harness (ccsim.harness): hand-computed traces and published response
functions, driven without a network."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from ccsim import CongestionControl, CongestionControlError, register_cc
from ccsim._core import AckSample, CongestionEvent
from ccsim.errors import ScenarioError
from ccsim.harness import Harness


def test_reno_doubles_per_round_in_slow_start_then_halves_on_a_loss() -> None:
    h = Harness("reno")
    assert h.round(rtt="100ms") == 10
    # The first ACK starts round 1; the last of the ten ends it (the sender's rounds).
    assert (h.cwnd, h.now, h.rounds) == (20.0, 100_000_000, 2)
    h.round(rtt="100ms")
    assert h.cwnd == 40.0
    h.loss()
    # Linux: ssthresh = cwnd / 2; the sender holds recovery until the flight is acknowledged.
    assert (h.cwnd, h.ssthresh, h.ca_state) == (20.0, 20.0, "recovery")
    h.round(rtt="100ms")
    assert h.ca_state == "open"


def test_reno_adds_about_one_segment_per_round_in_congestion_avoidance() -> None:
    h = Harness("reno")
    h.set_window(50, 50)
    h.round(rtt="50ms")  # the first ACK starts a round of its own
    before = h.cwnd
    for _ in range(10):
        h.round(rtt="50ms")
    # cwnd += 1/cwnd per segment: 50 segments a round add a little under one.
    assert 9.5 < h.cwnd - before <= 10.0


def test_dctcp_alpha_follows_the_marked_fraction_of_each_round() -> None:
    h = Harness("dctcp")
    h.set_window(20, 20)
    h.round(rtt="10ms", marks=10)
    g = 1 / 16
    # The first ACK starts round 1 alone (marked: F = 1, alpha stays 1); the round it starts
    # holds the other 19 ACKs, 9 of them marked.
    alpha = (1 - g) * 1.0 + g * 9 / 19
    assert h.inspect()["alpha"] == pytest.approx(alpha, abs=1e-12)
    # One ECN reduction in the window, by alpha / 2 with alpha = 1 then: a halving.
    assert h.ssthresh == 10.0
    h.round(rtt="10ms")
    assert h.inspect()["alpha"] == pytest.approx((1 - g) * alpha, abs=1e-12)


def test_cubic_follows_rfc9438_w_of_t_after_a_loss() -> None:
    # RFC 9438 eq. 1-2 with C = 0.4, beta = 0.7: W(t) = C (t - K)^3 + W_max,
    # K = cbrt(W_max (1 - beta) / C); t from the first ACK in congestion avoidance.
    h = Harness("cubic")
    h.set_window(100, 100)
    h.fill()
    h.loss()
    h.round(rtt="100ms")
    assert (h.cwnd, h.inspect()["w_max"]) == (70.0, 100.0)
    k = (100 * 0.3 / 0.4) ** (1 / 3)
    start = h.now
    for _ in range(80):
        h.round(rtt="100ms")
        t = (h.now - start) / 1e9
        expected = 0.4 * (t - k) ** 3 + 100
        assert h.cwnd == pytest.approx(expected, rel=0.02), t


@pytest.mark.parametrize("window", [1000, 10_000, 83_000])
def test_highspeed_decrease_follows_rfc3649(window: int) -> None:
    # RFC 3649 section 5: b(w) = (b_high - 0.5) (log w - log 38) / (log 83000 - log 38) + 0.5,
    # b_high = 0.1. Linux's table (which ccsim uses) holds it in steps of about 0.01.
    h = Harness("highspeed")
    h.set_window(window, window)
    h.round(rtt="100ms")  # Linux moves its table row in congestion avoidance only
    w = h.cwnd
    h.loss()
    b = (0.1 - 0.5) * (math.log(w) - math.log(38)) / (math.log(83000) - math.log(38)) + 0.5
    assert 1 - h.cwnd / w == pytest.approx(b, abs=0.015)


def test_a_timeout_sets_cwnd_to_one_and_only_the_first_lowers_ssthresh() -> None:
    h = Harness("newreno")
    h.set_window(20, 20)
    h.fill()
    h.timeout()
    assert (h.cwnd, h.ssthresh, h.ca_state) == (1.0, 10.0, "loss")
    h.timeout()
    assert h.ssthresh == 10.0


def test_bbr_paces_and_reports_its_model() -> None:
    h = Harness("bbr")
    for _ in range(10):
        h.round(rtt="50ms")
    state = h.state()
    assert state["pacing_rate"] is not None and state["pacing_rate"] > 0
    assert state["cc_min_rtt"] == pytest.approx(0.05)
    assert state["cc_btlbw"] > 0


def test_scripts_that_cannot_happen_are_refused_with_a_reason() -> None:
    h = Harness("reno")
    h.send(2)
    with pytest.raises(ValueError, match="only 2 in flight"):
        h.ack(3)
    with pytest.raises(ValueError, match="ce = 2"):
        h.ack(1, ce=2)
    with pytest.raises(ScenarioError):
        h.elapse("ten seconds")
    with pytest.raises(ValueError, match="renoo"):
        Harness("renoo")
    with pytest.raises(ValueError, match="profile"):
        Harness("reno", profile="bsd")


EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "python_cc"


@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))


@pytest.mark.usefixtures("on_path")
def test_a_python_algorithm_is_driven_like_a_built_in_one() -> None:
    # The Python Reno of the examples against the engine's: the same script, the same windows.
    python, rust = Harness("reno:Reno"), Harness("reno")
    for h in (python, rust):
        h.round(rtt="100ms")
        h.round(rtt="100ms")
        h.loss()
        h.round(rtt="100ms")
        for _ in range(5):
            h.round(rtt="100ms")
    assert python.cwnd == pytest.approx(rust.cwnd, rel=1e-9)
    assert python.ssthresh == rust.ssthresh == 20.0


class _WrongDecrease(CongestionControl):
    """Reno whose loss reduction keeps 90% of the window instead of half."""

    def on_ack(self, ack: AckSample) -> None:
        self.cwnd += ack.acked / self.cwnd if self.cwnd >= self.ssthresh else ack.acked

    def on_congestion(self, event: CongestionEvent) -> None:
        self.ssthresh = max(self.cwnd * 0.9, 2.0)
        self.cwnd = self.ssthresh


class _Raises(CongestionControl):
    def on_ack(self, ack: AckSample) -> None:
        raise ZeroDivisionError("on purpose")

    def on_congestion(self, event: CongestionEvent) -> None:
        pass


def test_a_unit_test_catches_a_wrong_decrease_and_a_failing_hook_raises() -> None:
    register_cc("harness-wrong-decrease", _WrongDecrease)
    register_cc("harness-raises", _Raises)
    h = Harness("harness-wrong-decrease")
    h.set_window(40, 40)
    h.fill()
    h.loss()
    assert h.cwnd != 20.0  # what a test of Reno's halving would catch
    bad = Harness("harness-raises")
    with pytest.raises(CongestionControlError) as raised:
        bad.round(rtt="10ms")
    assert isinstance(raised.value.__cause__, ZeroDivisionError)


@pytest.mark.usefixtures("on_path")
def test_the_documented_unit_test_passes() -> None:
    doc = (EXAMPLES.parents[1] / "docs" / "python-cc.md").read_text(encoding="utf-8")
    section = doc.split("## Unit-testing an algorithm without a network", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(code, namespace)  # the documented test, as a user would copy it
    test = namespace["test_my_reno_halves_and_grows_one_segment_per_round"]
    assert callable(test)
    test()
