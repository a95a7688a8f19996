"""The stack's `quick_acks` (Linux's quick-ACK mode at the start of a connection): a receiver that
delays ACKs acknowledges its first segments each at once. A 15-segment transfer over 40 ms under
the `linux` profile (initial window 10, delayed ACKs of up to 40 ms) then has no segment waiting for
the delayed-ACK timer in its first round trips: measured when written, it completes in 120.6 ms
instead of 160.7 ms, one delayed-ACK timeout sooner; a bulk flow's goodput does not change."""

from __future__ import annotations

import ccsim
import pytest
from ccsim.runner import check_conservation
from conftest import requires_engine


def _run(quick_acks: int, size: str | None) -> ccsim.Results:
    flow: dict[str, object] = {"cc": "cubic", "rtt": "40ms"}
    if size is not None:
        flow["size"] = size
    return ccsim.run(
        ccsim.Scenario.model_validate(
            {
                "duration": "3s",
                "profile": "linux",
                "stack": {"quick_acks": quick_acks},
                "topology": {
                    "kind": "dumbbell",
                    "bottleneck_rate": "100Mb/s",
                    "bottleneck_delay": "5ms",
                    "buffer": "1bdp",
                },
                "flows": [flow],
            }
        )
    )


@requires_engine
def test_quick_acks_spare_a_short_transfer_the_delayed_ack_timer() -> None:
    without, with_ = (_run(n, "15000B") for n in (0, 16))
    saved = without.flows["completion_s"].iloc[0] - with_.flows["completion_s"].iloc[0]
    assert saved == pytest.approx(0.040, abs=0.002), saved
    check_conservation(with_)


@requires_engine
def test_quick_acks_leave_a_bulk_flow_as_it_was() -> None:
    without, with_ = (_run(n, None).flows["goodput_bps"].iloc[0] for n in (0, 16))
    assert with_ == pytest.approx(without, rel=0.01)
