"""Scenario files as data: the file read and parsed as TOML, the bound on how deeply it may nest,
the name a file gives its scenario, and data made ready to be written back as TOML."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ccsim.errors import ScenarioError

#: The deepest nesting of tables and lists a scenario may have (a real one needs four).
MAX_DEPTH = 32


class TomlSyntaxError(ScenarioError):
    """A TOML syntax error, so that a file's reader can put the file name in front."""


def read_scenario_file(path: Path) -> str:
    """The text of a scenario file; a file that cannot be read is a :class:`ScenarioError`
    naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ScenarioError(f"{path}: is a directory, expected a scenario file") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not a UTF-8 text file") from None
    except OSError as error:
        raise ScenarioError(f"{path}: cannot read: {error.strerror or error}") from None


def parse_toml(text: str) -> dict[str, Any]:
    """TOML text as data; bad syntax is a :class:`TomlSyntaxError`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TomlSyntaxError(f"invalid TOML: {error}") from None
    except RecursionError:
        raise TomlSyntaxError(
            f"invalid TOML: values nested too deeply; expected at most {MAX_DEPTH} levels"
        ) from None


def name_from_stem(stem: str) -> str:
    """A valid scenario name from a file name: other characters become '_'."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", stem).lstrip("._-")
    return name or "scenario"


def _nesting_depth(data: Any, limit: int) -> int:
    """How deeply ``data`` nests lists and dicts, counting no further than ``limit + 1``;
    iterative, so that any input is measured without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping | list | tuple):
            deepest = max(deepest, depth + 1)
            if deepest > limit:
                return deepest
            children = value.values() if isinstance(value, Mapping) else value
            stack.extend((child, depth + 1) for child in children)
    return deepest


def check_depth(data: Any) -> None:
    if _nesting_depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise ScenarioError(
            f"tables and lists nested more than {MAX_DEPTH} deep; expected a scenario "
            "as docs/scenario-format.md describes it"
        )


def toml_ready(value: Any) -> Any:
    """Drop unset (None) and empty values, which TOML cannot or need not say; ``kind`` first."""
    if isinstance(value, dict):
        cleaned = {k: toml_ready(v) for k, v in value.items()}
        cleaned = {k: v for k, v in cleaned.items() if not _is_empty(v)}
        if "kind" in cleaned:
            cleaned = {"kind": cleaned.pop("kind"), **cleaned}
        return cleaned
    if isinstance(value, list | tuple):
        return [toml_ready(v) for v in value]
    return value


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, dict | list) and not value)
