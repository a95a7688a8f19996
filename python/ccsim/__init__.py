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
:mod:`ccsim.plots` their figures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ccsim.errors import EngineError, ScenarioError
from ccsim.scenario import Scenario

if TYPE_CHECKING:
    from ccsim import metrics, plots
    from ccsim.results import Results
    from ccsim.runner import run, version
    from ccsim.store import Store
    from ccsim.sweeps import Sweep, sweep

__all__ = [
    "EngineError",
    "Results",
    "Scenario",
    "ScenarioError",
    "Store",
    "Sweep",
    "__version__",
    "metrics",
    "plots",
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
