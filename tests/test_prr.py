"""Proportional Rate Reduction (RFC 9937), the stack's `prr`, on SACK recovery: examples/dumbbell.toml
under the linux-sack profile (SACK recovery without PRR, the linux profile before Linux 6.x), shortened to 2 s. Ten NewReno flows overflow a drop-tail queue; without
PRR one recovery sends cwnd - pipe in one burst, with it no sender puts more on its access link at
once than its initial window. docs/loss-recovery.md has the longer runs' numbers.

Measured when written (seed 1): the largest queue on a sender's access link is 13 packets with
`prr = "off"` and 9 (the initial window of 10, less the one on the wire) in every PRR mode."""

from __future__ import annotations

import ccsim
import pytest
from ccsim.errors import ScenarioError
from ccsim.runner import check_conservation
from conftest import EXAMPLES, requires_engine

MODES = ("off", "rfc9937", "ssrb", "crb")


def _run(prr: str) -> ccsim.Results:
    scenario = ccsim.Scenario.load(
        EXAMPLES / "dumbbell.toml",
        overrides={"profile": "linux-sack", "duration": "2s", "stack.prr": prr},
    )
    return ccsim.run(scenario)


@pytest.fixture(scope="module")
def runs() -> dict[str, ccsim.Results]:
    return {prr: _run(prr) for prr in MODES}


def _largest_burst(res: ccsim.Results) -> int:
    """The largest queue on a sender's own access link: what it sent at one instant, less one."""
    links = res.links
    return int(links[links["src"].str.startswith("s")]["max_queue_pkts"].max())


@requires_engine
def test_prr_sends_no_recovery_burst_beyond_the_initial_window(
    runs: dict[str, ccsim.Results],
) -> None:
    bursts = {prr: _largest_burst(res) for prr, res in runs.items()}
    assert bursts["off"] > 9, bursts  # RFC 6675 does burst here
    for prr in MODES[1:]:
        assert bursts[prr] == 9, bursts
        assert runs[prr].flows["fast_retransmits"].sum() > 0


@requires_engine
def test_prr_conserves_packets_and_reports_its_stack(runs: dict[str, ccsim.Results]) -> None:
    for prr, res in runs.items():
        check_conservation(res)
        stack = res.summary["stack"]
        assert (stack["prr"], stack["recovery"]) == (prr, "sack")


@requires_engine
def test_prr_asks_for_sack_recovery_and_rejects_a_procedure_without_it() -> None:
    alone = ccsim.Scenario.load(
        EXAMPLES / "dumbbell.toml", overrides={"duration": "300ms", "stack.prr": "rfc9937"}
    )
    stack = ccsim.run(alone).summary["stack"]
    assert (stack["profile"], stack["recovery"], stack["sack"]) == ("ns2", "sack", True)
    for other, written in (
        ({"stack.recovery": "newreno"}, 'recovery = "newreno"'),
        ({"profile": "linux", "stack.sack": False}, "sack = false"),
    ):
        with pytest.raises(ScenarioError) as caught:
            ccsim.Scenario.load(EXAMPLES / "dumbbell.toml", overrides={"stack.prr": "crb", **other})
        assert str(caught.value).startswith(f'stack.prr: "crb" contradicts {written}; '), caught
