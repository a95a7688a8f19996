"""pydantic's validation errors as one-line :class:`~ccsim.errors.ScenarioError`s: the key path
as the user wrote it (without the kinds pydantic inserts), the value and what was expected."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import get_args

from pydantic import ValidationError

from ccsim.errors import PathItem, ScenarioError, show_value
from ccsim.scenario.topology import Dumbbell, Explicit, ParkingLot
from ccsim.scenario.traffic import ClosedLoopGenerator, OpenLoopGenerator

# pydantic puts the discriminator's value in error locations ("topology.dumbbell.rate"); these
# are the values to leave out when showing a path to the user.
_UNION_TAGS = {"dumbbell", "parking_lot", "explicit", "closed_loop", "open_loop"}

# Expectations for required keys, by path without list indices.
_EXPECTED_FOR_MISSING = {
    "duration": 'a run length like "60s"',
    "topology": "a [topology] table",
    "topology.bottleneck_rate": 'a rate like "100Mbps"',
    "topology.bottleneck_delay": 'a one-way delay like "5ms"',
    "topology.routers": "the number of routers, at least 2",
    "topology.rate": 'a rate like "100Mbps"',
    "topology.delay": 'a one-way delay per hop like "5ms"',
    "topology.nodes": 'a list of node names like ["a", "b"]',
    "topology.links": "at least one [[topology.links]] table",
    "topology.links.src": "a node name",
    "topology.links.dst": "a node name",
    "topology.links.rate": 'a rate like "100Mbps"',
    "topology.links.delay": 'a one-way delay like "5ms"',
    "flows.cc": 'an algorithm name like "newreno" (see `ccsim algorithms`)',
    "generators.cc": 'an algorithm name like "newreno" (see `ccsim algorithms`)',
    "generators.size": 'a size like "100KB" or a table like { dist = "exponential", mean = "100KB" }',
    "generators.size.dist": '"fixed", "exponential" or "pareto"',
    "generators.size.mean": 'a size like "100KB"',
    "generators.slots": "the number of transfers kept active, like 25",
    "generators.rate": "arrivals per second, like 10.0",
}


def _user_path(loc: Sequence[PathItem]) -> list[PathItem]:
    """A pydantic error location without the discriminator values pydantic inserts."""
    path: list[PathItem] = []
    for item in loc:
        after_union = bool(path) and (
            path[-1] == "topology" or (isinstance(path[-1], int) and path[-2:-1] == ["generators"])
        )
        if isinstance(item, str) and item in _UNION_TAGS and after_union:
            continue
        path.append(item)
    return path


def scenario_error(error: ValidationError) -> ScenarioError:
    """The first pydantic error as a one-line :class:`ScenarioError`."""
    first = error.errors()[0]
    path = _user_path(first["loc"])
    ctx = first.get("ctx") or {}
    original = ctx.get("error")
    kind = first["type"]
    value = first.get("input")
    if isinstance(original, ScenarioError):
        if not original.path and _is_list_of_tables(value) and (header := _header(path)):
            return ScenarioError(_one_table_expected(header), path)  # [[stack]] for [stack]
        return original.under(path)
    if kind == "missing":
        key = ".".join(p for p in path if isinstance(p, str))
        expected = _EXPECTED_FOR_MISSING.get(key)
        detail = "required key is missing" + (f"; expected {expected}" if expected else "")
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        if not isinstance(value, Mapping):
            detail = f"{show_value(value)} is not a table; expected a table with a kind key"
        else:
            tags = ", ".join(f'"{tag}"' for tag in _union_tags(path))
            path.append("kind")
            shown = (
                "required key is missing"
                if "kind" not in value
                else f"{show_value(value['kind'])} is not valid"
            )
            detail = f"{shown}; expected one of {tags}"
    elif kind == "list_type" and isinstance(value, Mapping) and _header(path) in _TABLE_LISTS:
        header = _header(path)
        detail = (
            f"is a single table ([{header}]); expected a list of tables: "
            f"write [[{header}]], with two brackets, above each entry"
        )
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        detail = f"{show_value(value)} is not a table; expected a TOML table"
        if _is_list_of_tables(value) and (header := _header(path)):
            detail = _one_table_expected(header)
    elif original is not None:
        detail = str(original)
    elif kind in ("too_short", "string_too_short"):
        least = ctx.get("min_length", 1)
        what = "a non-empty string" if kind == "string_too_short" else f"at least {least} entries"
        detail = f"{show_value(value)} is too short; expected {what}"
    else:
        expected = first["msg"].removeprefix("Input should be ")
        if expected.startswith(("greater", "less")):
            expected = f"a value {expected}"
        detail = f"{show_value(value)} is not valid; expected {_double_quoted(expected)}"
    return ScenarioError(detail, path)


# The keys written as lists of tables, [[flows]], which [flows] (one table) is a slip for.
_TABLE_LISTS = {"flows", "generators", "topology.links"}


def _header(path: Sequence[PathItem]) -> str:
    """The TOML table header of ``path`` ("topology.links"), or "" below a list index."""
    if not all(isinstance(item, str) for item in path):
        return ""
    return ".".join(str(item) for item in path)


def _one_table_expected(header: str) -> str:
    return (
        f"is a list of tables ([[{header}]]); expected one table: "
        f"write [{header}], with one pair of brackets"
    )


def _is_list_of_tables(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _union_tags(path: Sequence[PathItem]) -> tuple[str, ...]:
    """The kinds accepted by the union at ``path`` (the topology or a generator)."""
    union = (
        Dumbbell | ParkingLot | Explicit
        if path[-1:] == ["topology"]
        else ClosedLoopGenerator | OpenLoopGenerator
    )
    return tuple(get_args(cls.model_fields["kind"].annotation)[0] for cls in get_args(union))


def _double_quoted(text: str) -> str:
    """pydantic quotes choices as 'a'; TOML (and our messages) use "a"."""
    return re.sub(r"'([^']*)'", r'"\1"', text)
