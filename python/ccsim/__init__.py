"""ccsim: a fast packet-level simulator for TCP congestion control.

The Rust engine (``ccsim._core``) does everything per packet; this package is the part a person
touches: scenario files (:class:`Scenario`), running them (:func:`run`), the tables that come back
(:class:`Results`) and the ``ccsim`` command.

>>> import ccsim
>>> scenario = ccsim.Scenario.load("examples/dumbbell.toml")      # doctest: +SKIP
>>> results = ccsim.run(scenario.with_overrides({"topology.loss": "0.001"}))  # doctest: +SKIP
>>> results.flows[["flow", "cc", "goodput_bps"]]                 # doctest: +SKIP

Many runs at once, compared flow by flow: :func:`sweep` runs a sweep file (docs/experiments.md)
into a result store queryable with SQL; :mod:`ccsim.metrics` has the seed papers' metrics and
:mod:`ccsim.plots` their figures. New algorithms can be written in Python, without rebuilding the
engine: subclass :class:`CongestionControl` (docs/python-cc.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ccsim.errors import EngineError, ScenarioError
from ccsim.pycc import CongestionControl, register_cc
from ccsim.scenario import Scenario

if TYPE_CHECKING:
    from ccsim import metrics, plots
    from ccsim._core import (
        AckSample,
        CongestionControlError,
        CongestionEvent,
        PacingContext,
        SentSample,
    )
    from ccsim.results import Results
    from ccsim.runner import run, version
    from ccsim.store import Store
    from ccsim.sweeps import Sweep, sweep

__all__ = [
    "AckSample",
    "CongestionControl",
    "CongestionControlError",
    "CongestionEvent",
    "EngineError",
    "PacingContext",
    "Results",
    "Scenario",
    "ScenarioError",
    "SentSample",
    "Store",
    "Sweep",
    "__version__",
    "metrics",
    "plots",
    "register_cc",
    "run",
    "sweep",
    "version",
]

# Importing pandas takes about a third of a second; the command line's error paths, `validate`
# and `--version` do not need it, so these names are imported on first use.
_LAZY = {
    "Results": "ccsim.results",
    "run": "ccsim.runner",
    "version": "ccsim.runner",
    "Sweep": "ccsim.sweeps",
    "sweep": "ccsim.sweeps",
    "Store": "ccsim.store",
    # Congestion control in Python (ccsim.pycc): the exception a failing hook stops a run with,
    # and the types its hooks receive, from the engine.
    "CongestionControlError": "ccsim._core",
    "AckSample": "ccsim._core",
    "CongestionEvent": "ccsim._core",
    "SentSample": "ccsim._core",
    "PacingContext": "ccsim._core",
}
_SUBMODULES = {"metrics", "plots"}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return importlib.import_module("ccsim.runner").version()
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"ccsim.{name}")
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")
