"""Overrides: keys of a scenario replaced before it is checked (``--set flows.0.cc=reno``,
:meth:`Scenario.with_overrides`), their string values read as TOML values when they parse as
one."""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from ccsim.errors import ScenarioError, show_value
from ccsim.scenario.toml_file import MAX_DEPTH


def parse_override_value(text: str) -> Any:
    """A ``--set`` value: a TOML value when it parses as one, else the string itself."""
    try:
        value = tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise ScenarioError(
            f"{show_value(text)} is nested too deeply; expected at most {MAX_DEPTH} levels"
        ) from None
    # TOML reads a bare `inf` or `nan` as a float, but here they mean the word ("size=inf").
    if isinstance(value, float) and not math.isfinite(value):
        return text
    return value


def apply_overrides(data: dict[str, Any], overrides: Mapping[str, Any]) -> None:
    """Set each ``key: value`` of ``overrides`` in scenario ``data`` (in place); a string value
    is read as TOML when it parses as a TOML value (:func:`parse_override_value`)."""
    for key, value in overrides.items():
        parsed = parse_override_value(value) if isinstance(value, str) else value
        _set_path(data, key, parsed)


def _set_path(data: dict[str, Any], key: str, value: Any) -> None:
    """Set ``data[a][b][0][c] = value`` for the key ``a.b.0.c`` (or ``a.b[0].c``)."""
    parts = re.sub(r"\[(\d+)\]", r".\1", key).split(".")
    if any(part == "" for part in parts):
        raise ScenarioError(
            f"{show_value(key)} is not a key path; expected something like topology.loss"
        )
    node: Any = data
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        where = ".".join(parts[:depth]) or "the scenario"
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ScenarioError(
                    f"cannot set {key}: {where} has {len(node)} entries; expected an index below {len(node)}"
                )
            index: Any = int(part)
        elif isinstance(node, dict):
            index = part
        else:
            raise ScenarioError(f"cannot set {key}: {where} is {show_value(node)}, not a table")
        if last:
            node[index] = value
        else:
            if isinstance(node, dict) and index not in node:
                node[index] = {}
            node = node[index]
