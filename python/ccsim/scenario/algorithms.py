"""Algorithm names and parameters of the traffic, checked against the engine's registry (or, for
a class written in Python, against its constructor)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ccsim.scenario.engine as engine
from ccsim import pycc
from ccsim.errors import ScenarioError, show_value
from ccsim.scenario.fields import KeyPath
from ccsim.scenario.traffic import Transfer


def check_algorithm(transfer: Transfer, path: KeyPath) -> None:
    """A transfer's algorithm and parameters: a class written in Python must import and take
    them; an engine algorithm must be in the registry and take each parameter, in its range."""
    if pycc.is_python_cc(transfer.cc):
        # A class written in Python: importable here, its constructor taking these parameters.
        try:
            pycc.check(transfer.cc, transfer.params)
        except ScenarioError as error:
            raise error.under(path) from None
        return
    registry = engine.algorithm_registry()
    if registry is None:
        return
    info = registry.get(transfer.cc)
    if info is None:
        raise ScenarioError(
            f"unknown algorithm {show_value(transfer.cc)}; expected one of: {', '.join(sorted(registry))}"
            ' (or a Python class as "package.module:ClassName")',
            (*path, "cc"),
        )
    params = {param["name"]: param for param in info["params"]}
    for name, value in transfer.params.items():
        param_path = (*path, "params", name)
        if name not in params:
            expected = f"one of: {', '.join(params)}" if params else "none (it takes no parameters)"
            raise ScenarioError(
                f"{transfer.cc} has no parameter {show_value(name)}; expected {expected}",
                param_path,
            )
        _check_param_value(value, params[name], param_path)


def parameters_taken(cc: str) -> list[str] | None:
    """The names of the parameters algorithm ``cc`` takes; None when that is not known here
    (the engine is not built, the name is unknown, the class does not import or takes any
    keyword): then the scenario's own check says what is wrong, if anything."""
    if pycc.is_python_cc(cc):
        try:
            return pycc.parameter_names(cc)
        except ScenarioError:
            return None
    info = (engine.algorithm_registry() or {}).get(cc)
    return [param["name"] for param in info["params"]] if info is not None else None


def _check_param_value(value: Any, param: Mapping[str, Any], path: KeyPath) -> None:
    _check_param_kind(value, param, path)
    low, high = param.get("min"), param.get("max")
    if low is not None and high is not None and not low <= value <= high:
        raise ScenarioError(
            f"{show_value(value)} is out of range; expected a value from {low:g} to {high:g} "
            f"(default {param['default']:g})",
            path,
        )


def _check_param_kind(value: Any, param: Mapping[str, Any], path: KeyPath) -> None:
    kind = param["kind"]
    if kind == "bool":
        ok = isinstance(value, bool)
        expected = "true or false"
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
        expected = "an integer"
    else:
        ok = not isinstance(value, bool)
        expected = "a number"
    if not ok:
        raise ScenarioError(
            f"{show_value(value)} is not valid; expected {expected} (default {param['default']:g})",
            path,
        )
