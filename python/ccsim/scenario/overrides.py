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
    is read as TOML when it parses as a TOML value (:func:`parse_override_value`).

    An override of a transfer's ``cc`` keeps its ``params``: when the new algorithm does not
    take them, the error says they are the old one's and how to drop them."""
    replaced_cc = _written_algorithms(data, overrides)
    for key, value in overrides.items():
        parsed = parse_override_value(value) if isinstance(value, str) else value
        _set_path(data, key, parsed)
    for (group, index), old_cc in replaced_cc.items():
        _check_kept_params(data, group, index, old_cc, overrides)


def _key_parts(key: str) -> list[str]:
    """``a.b[0].c`` or ``a.b.0.c`` as ``["a", "b", "0", "c"]``."""
    return re.sub(r"\[(\d+)\]", r".\1", key).split(".")


def _written_algorithms(
    data: Mapping[str, Any], overrides: Mapping[str, Any]
) -> dict[tuple[str, int], str]:
    """The ``cc`` written in ``data`` of each transfer whose ``cc`` an override sets, by
    (group, index): ``("flows", 0)``."""
    found: dict[tuple[str, int], str] = {}
    for key in overrides:
        parts = _key_parts(key)
        if len(parts) != 3 or parts[0] not in _TRANSFERS or not parts[1].isdigit():
            continue
        if parts[2] != "cc":
            continue
        transfers = data.get(parts[0])
        index = int(parts[1])
        if isinstance(transfers, list) and index < len(transfers):
            transfer = transfers[index]
            if isinstance(transfer, Mapping) and isinstance(transfer.get("cc"), str):
                found.setdefault((parts[0], index), transfer["cc"])
    return found


#: The tables of transfers, each with a ``cc`` and its ``params``.
_TRANSFERS = ("flows", "generators")


def _check_kept_params(
    data: Mapping[str, Any], group: str, index: int, old_cc: str, overrides: Mapping[str, Any]
) -> None:
    """When overrides replaced the ``cc`` of ``data[group][index]`` but left parameters of the
    old algorithm that the new one does not take, say so (the usual check would only say that
    the new algorithm has no such parameter)."""
    # Imported here: the algorithms' checks need the scenario's models, which need this module.
    from ccsim.scenario.algorithms import parameters_taken

    transfer = data[group][index]
    new_cc, params = transfer.get("cc"), transfer.get("params")
    if not isinstance(new_cc, str) or new_cc == old_cc or not isinstance(params, Mapping):
        return
    written = [_key_parts(key) for key in overrides]
    prefix = [group, str(index), "params"]
    if prefix in written:
        return  # the overrides give the new algorithm's parameters themselves
    given_now = {parts[3] for parts in written if len(parts) == 4 and parts[:3] == prefix}
    taken = parameters_taken(new_cc)
    if taken is None:
        return
    for name in params:
        if name in taken or name in given_now:
            continue
        takes = f"it takes {', '.join(taken)}" if taken else "it takes none"
        where = f"{group}.{index}"
        raise ScenarioError(
            f"{show_value(name)} is a parameter of {old_cc}, kept when {where}.cc was set to "
            f"{new_cc}, which has no parameter {show_value(name)} ({takes}); "
            f"drop {old_cc}'s parameters by also setting {where}.params to {{}} "
            f"(--set '{where}.params={{}}'), or give {new_cc}'s own",
            (group, index, "params", name),
        )


def _set_path(data: dict[str, Any], key: str, value: Any) -> None:
    """Set ``data[a][b][0][c] = value`` for the key ``a.b.0.c`` (or ``a.b[0].c``)."""
    parts = _key_parts(key)
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
