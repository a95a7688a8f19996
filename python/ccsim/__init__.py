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

The package is two layers, and the library never imports the lab (tests/test_layers.py checks
this, and that no module imports one that imports it back):

* **Library**, what one run needs: :mod:`~ccsim.errors` and :mod:`~ccsim.units` (bad input, the
  units of settings), :mod:`~ccsim.scenario` (the scenario model, its checks and TOML input),
  :mod:`~ccsim.pycc` (congestion control written in Python), :mod:`~ccsim.harness` (one
  algorithm driven by a script, without a network), :mod:`~ccsim.leo` (a satellite path as link
  schedules), :mod:`~ccsim.runner` (running a
  scenario in the engine, ``ccsim._core``), :mod:`~ccsim.results` (the tables that come back),
  :mod:`~ccsim.store` (many runs' results on disk, queried with SQL), :mod:`~ccsim.metrics`,
  :mod:`~ccsim.fluid` and :mod:`~ccsim.compare` (the papers' metrics and models, and flow-by-flow
  comparison of stored runs) and :mod:`~ccsim.display` (where the lab registers how the
  library's objects are drawn in Jupyter).
* **Lab**, experiments made of many runs, built on the library: :mod:`~ccsim.sweeps` (sweep
  files and their points), :mod:`~ccsim.executors` and :mod:`~ccsim.sweep_run` (running a
  sweep on a process pool or a Dask cluster into a store), :mod:`~ccsim.plots` (figures),
  :mod:`~ccsim.explore` (queries and figures of a results directory), :mod:`ccsim.studies` (the
  seed papers' studies and their verdicts), :mod:`ccsim.conformance` (this build's checks against
  published laws and specifications), :mod:`ccsim.evaluate` (the standard battery for one
  algorithm and its report card), :mod:`~ccsim.report` (HTML reports, and the HTML of
  results and study reports in Jupyter) and :mod:`~ccsim.cli` (the ``ccsim`` command).

This module offers names of both layers; it imports the lab's (and pandas) only when they are
first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ccsim import display
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
    from ccsim.sweep_run import sweep
    from ccsim.sweeps import Sweep

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
    "sweep": "ccsim.sweep_run",
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


def _load_html_renderers() -> None:
    """Import ccsim.report, which registers how results and study reports are drawn in Jupyter;
    imported on the first display, not with the package, because it needs pandas."""
    import ccsim.report  # noqa: F401  (registers its renderers in ccsim.display)


display.load_renderers_with(_load_html_renderers)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return importlib.import_module("ccsim.runner").version()
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"ccsim.{name}")
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")
