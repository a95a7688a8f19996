"""Phase effects (docs/phase-effects.md): at a sub-packet-time RTT shift of zero the 80 ms flow of
a two-flow 1 BDP DropTail dumbbell is locked out; jitter of one packet time removes the lock.

Full-length runs (120 s, warm-up 40 s) at two shifts and two seeds, `linux-sack` profile (SACK, so
no flow sits in one ns-2 NewReno recovery for the whole run). Measured when written (short/long
steady-state ratio, seeds 1 and 2): no jitter, shift 0 us: 6.24, 5.07 (geomean 5.62); shift
40 us: 2.64, 1.68 (2.11), gap 2.67. Router jitter 83.2 us: shift 0: 3.39, 4.52 (3.91); shift
40: 4.58, 1.87 (2.93), gap 1.34. About 8 s on 2 cores.
"""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "phase_jitter.py"


@pytest.fixture(scope="module")
def pj():
    # Imported by name so that the process pool's workers can unpickle its dataclasses.
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        return importlib.import_module("phase_jitter")
    finally:
        sys.path.remove(str(EXAMPLE.parent))


@pytest.fixture(scope="module")
def outcomes(pj):
    points = pj.grid(["linux-sack"], ["none", "router jitter 83us"], [0, 40], [1, 2], 120.0, 40.0)
    return pj.run_all(points, 2)


def _geo(pj, outcomes, jitter, shift):
    return pj.geo_mean(
        [o.ratio for o in outcomes if o.point.jitter == jitter and o.point.shift_us == shift]
    )


def test_without_jitter_the_phase_locks_out_the_long_flow(pj, outcomes):
    locked, unlocked = _geo(pj, outcomes, "none", 0), _geo(pj, outcomes, "none", 40)
    mean_q_ms = sum(o.mean_queue_pkts for o in outcomes) / len(outcomes) * pj.PACKET_TIME_US / 1000
    assert not any(o.stuck for o in outcomes)
    assert locked / unlocked > 2.0, (locked, unlocked)
    assert locked > pj.sync_bound(mean_q_ms), (locked, mean_q_ms)


def test_jitter_removes_the_dependence_on_the_shift(pj, outcomes):
    at0, at40 = (
        _geo(pj, outcomes, "router jitter 83us", 0),
        _geo(pj, outcomes, "router jitter 83us", 40),
    )
    assert abs(math.log(at0 / at40)) < math.log(1.7), (at0, at40)
