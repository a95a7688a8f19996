"""``ccsim evaluate``: a versioned battery of tests for one congestion-control algorithm, run
beside baselines under the same seeds, summarised in a report card (docs/evaluate.md).

:mod:`~ccsim.evaluate.battery` holds the tests, one module each (its sweeps, what it measures
in a run, its metrics, its readings and figures), and :data:`BATTERY_VERSION`;
:mod:`~ccsim.evaluate.analysis` measures each run by its test and summarises over seeds, paired
by seed; :mod:`~ccsim.evaluate.card` the report card (HTML, CSV, readings);
:mod:`~ccsim.evaluate.run` the whole run (:func:`evaluate`).
"""

from __future__ import annotations

from ccsim.evaluate.battery import BATTERY_VERSION, TESTS, Algorithm
from ccsim.evaluate.run import Evaluation, evaluate, parse_algorithm, parse_params

__all__ = [
    "BATTERY_VERSION",
    "TESTS",
    "Algorithm",
    "Evaluation",
    "evaluate",
    "parse_algorithm",
    "parse_params",
]
