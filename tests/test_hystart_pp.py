"""HyStart++ (RFC 9406), the stack's `hystart`, on one flow's first slow start: a single Reno flow
alone on a 100 Mb/s, 40 ms dumbbell with a one-BDP drop-tail queue (480 packets), `linux`
profile, 3 s. Without HyStart++ slow start overshoots the pipe plus queue by about as much again
and loses hundreds of segments at once; with it the flow enters Conservative Slow Start near one
BDP and loses far fewer. docs/slow-start.md has the longer runs' table (985 drops against 248).
"""

from __future__ import annotations

import ccsim
import pytest
from ccsim.errors import ScenarioError
from ccsim.runner import check_conservation
from conftest import requires_engine


def _scenario(cc: str, stack_hystart: str, **params: float) -> ccsim.Scenario:
    flow: dict[str, object] = {"cc": cc, "rtt": "40ms"}
    if params:
        flow["params"] = params
    return ccsim.Scenario.model_validate(
        {
            "name": f"hystart-{cc}-{stack_hystart}",
            "duration": "3s",
            "profile": "linux",
            "stack": {"hystart": stack_hystart},
            "topology": {
                "kind": "dumbbell",
                "bottleneck_rate": "100Mb/s",
                "bottleneck_delay": "10ms",
                "buffer": "1bdp",
            },
            "flows": [flow],
            "trace": {"sample_interval": "10ms"},
        }
    )


@pytest.fixture(scope="module")
def reno() -> dict[str, ccsim.Results]:
    return {mode: ccsim.run(_scenario("reno", mode)) for mode in ("off", "rfc9406")}


@requires_engine
def test_hystart_pp_ends_slow_start_before_the_overshoot(reno: dict[str, ccsim.Results]) -> None:
    off, on = (reno[m].flows.iloc[0] for m in ("off", "rfc9406"))
    assert off["drops"] > 200, off["drops"]
    assert on["drops"] < off["drops"] / 2, (on["drops"], off["drops"])
    assert on["goodput_bps"] >= 0.98 * off["goodput_bps"]
    for res in reno.values():
        check_conservation(res)
    assert reno["rfc9406"].summary["stack"]["hystart"] == "rfc9406"


@requires_engine
def test_hystart_pp_reports_its_phase_in_the_series(reno: dict[str, ccsim.Results]) -> None:
    series = reno["rfc9406"].series
    states = set(series["cc_hspp_state"].dropna().astype(int))
    assert {0, 1} <= states, states  # slow start, then CSS (and avoidance after it)
    assert "cc_hspp_state" not in reno["off"].series.columns


@requires_engine
def test_cubics_own_hystart_written_on_contradicts_the_stacks() -> None:
    with pytest.raises(ScenarioError, match="hystart"):
        ccsim.run(_scenario("cubic", "rfc9406", hystart=1.0))
    # Left to the profile, CUBIC's own HyStart steps aside for HyStart++.
    flows = ccsim.run(_scenario("cubic", "rfc9406")).flows
    assert flows["goodput_bps"].iloc[0] > 80e6
