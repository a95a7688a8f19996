"""What a scenario asks of the engine before it runs: its registry of algorithms, its stack
settings and its stack profiles, each read once.

The engine is optional here (the pure-Python parts work without it being built), so it is
imported inside the functions, and without it they return None: the checks that need them are
skipped, and the engine makes the same checks again when it runs.

Call these as attributes of this module (``engine.algorithm_registry()``): tests replace them with
``monkeypatch.setattr(ccsim.scenario.engine, "algorithm_registry", ...)``.
"""

from __future__ import annotations

from functools import cache
from typing import Any


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
