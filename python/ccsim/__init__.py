"""ccsim: a fast packet-level simulator for TCP congestion control.

The Rust engine (``ccsim._core``) does everything per packet; this package is the part a person
touches: scenario files (:class:`Scenario`), running them (:func:`run`), the tables that come back
(:class:`Results`) and the ``ccsim`` command.

>>> import ccsim
>>> scenario = ccsim.Scenario.load("examples/dumbbell.toml")      # doctest: +SKIP
>>> results = ccsim.run(scenario.with_overrides({"topology.loss": "0.001"}))  # doctest: +SKIP
>>> results.flows[["flow", "cc", "goodput_bps"]]                 # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ccsim.errors import EngineError, ScenarioError
from ccsim.scenario import Scenario

if TYPE_CHECKING:
    from ccsim.results import Results
    from ccsim.runner import run, version

__all__ = ["Scenario", "Results", "run", "version", "ScenarioError", "EngineError", "__version__"]

# Importing pandas takes about a third of a second; the command line's error paths, `validate`
# and `--version` do not need it, so these names are imported on first use.
_LAZY = {"Results": "ccsim.results", "run": "ccsim.runner", "version": "ccsim.runner"}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return importlib.import_module("ccsim.runner").version()
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")
