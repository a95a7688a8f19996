"""Undo of spurious window reductions (docs/loss-recovery.md, "Undo: DSACK and F-RTO"): bulk
CUBIC flows through a reordering bottleneck (examples/reordering.toml, shortened) under RFC 6675
SACK recovery, which takes a segment held back for a lost one. With `dsack` the receiver reports
the retransmission that then arrives twice; with `undo` the sender takes that, or the timestamp of
the held segment's own ACK (Eifel), as proof that the fast retransmit was spurious and puts its
window back.

Measured when written (10 s, seeds 1 and 2 together, 1% of data packets 3 ms late): without undo
189 recovery episodes and 13.3 Mb/s of goodput; with it 513 episodes, 379 of them undone, and
44.6 Mb/s."""

from __future__ import annotations

from typing import Any

import ccsim
import pytest
from ccsim.runner import check_conservation
from conftest import EXAMPLES, requires_engine

SEEDS = (1, 2)


def _scenario(seed: int, duration: str = "10s", **stack: Any) -> ccsim.Scenario:
    overrides = {
        "duration": duration,
        "seed": seed,
        "stack.recovery": "sack",
        "trace.sample_interval": "500ms",
        **{f"stack.{key}": value for key, value in stack.items()},
    }
    return ccsim.Scenario.load(EXAMPLES / "reordering.toml", overrides=overrides)


def _last(res: ccsim.Results, column: str) -> float:
    """The flows' last sampled values of a series column, added up (0 if no flow reports it)."""
    series = res.series
    if column not in series:
        return 0.0
    return float(series.groupby("flow")[column].max().sum())


def _totals(runs: list[ccsim.Results]) -> dict[str, float]:
    for res in runs:
        check_conservation(res)
    return {
        "mbps": sum(r.flows["goodput_bps"].sum() for r in runs) / len(runs) / 1e6,
        "recoveries": float(sum(r.flows["fast_retransmits"].sum() for r in runs)),
        "dsacks": sum(_last(r, "cc_dsacks") for r in runs),
        "undos": sum(_last(r, "cc_undos") for r in runs),
    }


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, float]]:
    cases = {"off": {}, "dsack": {"dsack": True}, "undo": {"dsack": True, "undo": True}}
    return {
        name: _totals([ccsim.run(_scenario(seed, **stack)) for seed in SEEDS])
        for name, stack in cases.items()
    }


@requires_engine
def test_dsack_alone_changes_nothing_but_reports_the_duplicates(
    runs: dict[str, dict[str, float]],
) -> None:
    off, dsack = runs["off"], runs["dsack"]
    assert dsack["mbps"] == off["mbps"] and dsack["recoveries"] == off["recoveries"]
    assert dsack["dsacks"] > 50 and dsack["undos"] == 0, dsack


@requires_engine
def test_undo_puts_back_the_windows_reordering_cut(runs: dict[str, dict[str, float]]) -> None:
    off, undo = runs["off"], runs["undo"]
    assert undo["undos"] > 50, undo
    assert undo["undos"] <= undo["recoveries"], undo
    assert undo["mbps"] > 1.4 * off["mbps"], (undo, off)


@requires_engine
@pytest.mark.usefixtures("python_cc_path")
def test_a_python_algorithm_gives_its_own_undo() -> None:
    from examples.python_cc.reno import Reno

    calls: list[tuple[float, float]] = []

    class UndoRecorder(Reno):
        def undo_cwnd(self, now: int, prior_cwnd: float) -> float:
            calls.append((self.cwnd, prior_cwnd))
            return max(self.cwnd, prior_cwnd)

    ccsim.register_cc("undo-recorder", UndoRecorder)
    scenario = _scenario(1, "3s", dsack=True, undo=True).with_overrides(
        {"flows.0.cc": "undo-recorder"}
    )
    res = ccsim.run(scenario)
    check_conservation(res)
    assert calls, "the hook was called"
    assert len(calls) == _last(res, "cc_undos"), calls


@requires_engine
def test_frto_finds_timeouts_that_a_too_short_rto_made_spurious() -> None:
    """No reordering, but a 1 ms minimum RTO: the timeout (SRTT + 4 RTTVAR) fires while ACKs are
    delayed behind a growing queue. F-RTO finds some of those timeouts spurious and undoes them."""
    base = {"topology.reorder.probability": 0.0, "stack.min_rto": "1ms"}
    plain = ccsim.run(_scenario(1, **{"min_rto": "1ms"}).with_overrides(base))
    frto = ccsim.run(_scenario(1, frto=True).with_overrides(base))
    for res in (plain, frto):
        check_conservation(res)
    assert plain.flows["timeouts"].sum() > 0
    assert "cc_spurious_timeouts" not in plain.series
    spurious = _last(frto, "cc_spurious_timeouts")
    assert 0 < spurious <= frto.flows["timeouts"].sum(), spurious
    assert _last(frto, "cc_undos") == spurious
