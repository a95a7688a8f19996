"""What a scenario asks of the engine before it runs: its registry of algorithms, its stack
settings and its stack profiles (each read once), and its check of a resolved scenario, where
the rules between settings live (``stack.max_rto`` against the profile's ``min_rto``, a dumbbell
flow's RTT against the bottleneck delay).

The engine is optional here (the pure-Python parts work without it being built), so it is
imported inside the functions, and without it they return None: the checks that need them are
skipped, and the engine makes the same checks again when it runs.

Call these as attributes of this module (``engine.algorithm_registry()``): tests replace them with
``monkeypatch.setattr(ccsim.scenario.engine, "algorithm_registry", ...)``.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from ccsim.errors import ScenarioError


@cache
def algorithm_registry() -> dict[str, dict[str, Any]] | None:
    """The engine's algorithms by name, or None when the engine is not built.

    Without the engine the names cannot be checked here; the engine checks them again anyway.
    """
    try:
        from ccsim import _core
    except ImportError:
        return None
    return {info["name"]: dict(info) for info in _core.algorithms()}


@cache
def stack_settings() -> list[dict[str, Any]] | None:
    """The engine's ``[stack]`` settings (key, kind, bounds or choices, each profile's value,
    description), in the order the documentation lists them; None without the engine."""
    try:
        from ccsim import _core
    except ImportError:
        return None
    return [dict(setting) for setting in _core.stack_settings()]


@cache
def stack_profiles() -> dict[str, dict[str, Any]] | None:
    """The engine's stack profiles (each one's resolved knobs), or None without the engine."""
    try:
        from ccsim import _core
    except ImportError:
        return None
    return dict(_core.stack_profiles())


def validate(spec: dict[str, Any]) -> None:
    """Raise :class:`ScenarioError` with the engine's one-line message (the user's key, the value
    and what was expected) when the engine would not run the resolved scenario ``spec``; nothing
    without the engine, which makes the same check when it is built and runs."""
    try:
        from ccsim import _core
    except ImportError:
        return
    try:
        _core.validate(json.dumps(spec))
    except ValueError as error:
        raise ScenarioError(str(error)) from None
