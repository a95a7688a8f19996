"""Comparative sweeps (see :mod:`ccsim.sweeps`): the ``[compare]`` table read into algorithms
and mixtures, and a mixture applied to a scenario, choosing which flow runs which algorithm."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ccsim.errors import ScenarioError, show_value
from ccsim.sweeps.points import Algorithm, Axis, Mixture

_BUILTIN_MIXTURES = ("all", "half", "one")
#: Every flow and generator: the mixture of the reference runs.
ALL_MIXTURE = Mixture("all", "all", True)


def parse_compare(
    compare: Mapping[str, Any],
) -> tuple[list[Algorithm], list[Mixture], Algorithm | None, bool]:
    if not compare:
        return [], [], None, True
    allowed = ("algorithms", "mixtures", "baseline", "reference")
    for key in compare:
        if key not in allowed:
            raise ScenarioError(
                f"unknown key; expected one of: {', '.join(allowed)}", ("compare", key)
            )
    entries = compare.get("algorithms")
    if not isinstance(entries, list) or not entries:
        raise ScenarioError(
            'expected a list of algorithms like ["reno", "newreno"]', ("compare", "algorithms")
        )
    algorithms = [_parse_algorithm(e, ("compare", "algorithms", i)) for i, e in enumerate(entries)]
    mixtures_given = compare.get("mixtures", ["all"])
    if not isinstance(mixtures_given, list) or not mixtures_given:
        raise ScenarioError('expected a list like ["all", "half", "one"]', ("compare", "mixtures"))
    mixtures = [_parse_mixture(m, ("compare", "mixtures", i)) for i, m in enumerate(mixtures_given)]
    baseline = _parse_algorithm(compare.get("baseline", "reno"), ("compare", "baseline"))
    for what, names in (
        ("algorithm", [a.name for a in algorithms]),
        ("mixture", [m.name for m in mixtures]),
    ):
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ScenarioError(f"two {what}s are named {repeated[0]!r}", ("compare",))
    clash = [a for a in algorithms if a.name == baseline.name and a != baseline]
    if clash:
        raise ScenarioError(
            f"the algorithm {baseline.name!r} differs from the baseline of that name", ("compare",)
        )
    reference = compare.get("reference", True)
    if not isinstance(reference, bool):
        raise ScenarioError(
            f"{show_value(reference)} is not true or false", ("compare", "reference")
        )
    return algorithms, mixtures, baseline, reference


def _parse_algorithm(entry: Any, path: tuple[str | int, ...]) -> Algorithm:
    if isinstance(entry, str) and entry:
        return Algorithm(entry, entry)
    if isinstance(entry, Mapping) and isinstance(entry.get("cc"), str):
        extra = set(entry) - {"name", "cc", "params"}
        if extra:
            raise ScenarioError(
                f"unknown key {sorted(extra)[0]!r}; expected name, cc, params", path
            )
        params = entry.get("params", {})
        if not isinstance(params, Mapping):
            raise ScenarioError(f"{show_value(params)} is not a table", (*path, "params"))
        name = entry.get("name") or _default_algorithm_name(entry["cc"], params)
        return Algorithm(str(name), entry["cc"], dict(params))
    raise ScenarioError(
        f'{show_value(entry)} is not an algorithm; expected a name like "reno" or a table like '
        '{ name = "reno-b0.7", cc = "reno", params = { beta = 0.7 } }',
        path,
    )


def _default_algorithm_name(cc: str, params: Mapping[str, Any]) -> str:
    return "-".join([cc, *(f"{k}{v}" for k, v in sorted(params.items()))])


def _parse_mixture(entry: Any, path: tuple[str | int, ...]) -> Mixture:
    if entry in _BUILTIN_MIXTURES:
        return Mixture(entry, entry, generators=entry == "all")
    if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
        extra = set(entry) - {"name", "flows", "generators"}
        if extra:
            raise ScenarioError(
                f"unknown key {sorted(extra)[0]!r}; expected name, flows, generators", path
            )
        flows = entry.get("flows")
        valid = isinstance(flows, list) and all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in flows
        )
        if not valid or not flows:
            raise ScenarioError(
                f"{show_value(flows)} is not a list of flow indices; expected e.g. [0, 9]",
                (*path, "flows"),
            )
        generators = entry.get("generators", False)
        if not isinstance(generators, bool):
            raise ScenarioError(
                f"{show_value(generators)} is not true or false", (*path, "generators")
            )
        return Mixture(entry["name"], tuple(sorted(set(flows))), generators)
    raise ScenarioError(
        f'{show_value(entry)} is not a mixture; expected "all", "half", "one" or a table like '
        '{ name = "one-long", flows = [9] }',
        path,
    )


def algorithm_data(algorithm: Algorithm) -> dict[str, Any]:
    data: dict[str, Any] = {"name": algorithm.name, "cc": algorithm.cc}
    if algorithm.params:
        data["params"] = dict(algorithm.params)
    return data


def mixture_data(mixture: Mixture) -> Any:
    if isinstance(mixture.flows, str) and mixture.name == mixture.flows:
        return mixture.name
    return {"name": mixture.name, "flows": list(mixture.flows), "generators": mixture.generators}


# ---- the mixture: which flow runs which algorithm ----------------------------------------------


def apply_mixture(
    data: dict[str, Any], algorithm: Algorithm, mixture: Mixture, baseline: Algorithm
) -> None:
    """Set every flow's and generator's algorithm in scenario ``data`` (changed in place)."""
    groups = data.get("flows") or []
    if mixture.flows != "all":
        groups = _expand_groups(groups)  # one table per flow, so each flow can differ
        count = len(groups)
        if isinstance(mixture.flows, tuple) and any(i >= count for i in mixture.flows):
            raise ScenarioError(
                f"mixture {mixture.name!r} names flow {max(mixture.flows)}, "
                f"but the scenario has {count} flows (numbered from 0)"
            )
    for index, group in enumerate(groups):
        chosen = mixture.chooses(index)
        _assign(group, algorithm if chosen else baseline)
    if groups:
        data["flows"] = groups
    for generator in data.get("generators") or []:
        _assign(generator, algorithm if mixture.generators else baseline)


def _expand_groups(groups: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``count = n`` tables as n tables of one flow. The engine sees the same flows either way
    (the scenario expands groups in order), so the random draws of every flow are unchanged."""
    expanded = []
    for group in groups:
        # The overridden scenario was validated before this, so count is a positive integer.
        single = {k: v for k, v in group.items() if k != "count"}
        expanded += [copy.deepcopy(single) for _ in range(group.get("count", 1))]
    return expanded


def _assign(transfer: dict[str, Any], algorithm: Algorithm) -> None:
    transfer["cc"] = algorithm.cc
    # The old parameters belong to the old algorithm.
    if algorithm.params:
        transfer["params"] = dict(algorithm.params)
    else:
        transfer.pop("params", None)


def refuse_compared_keys(fixed: Mapping[str, Any], axes: Sequence[Axis]) -> None:
    """Refuse ``set`` and axis keys that the compare cells overwrite at every point (a flow's or
    generator's ``cc`` and ``params``: see :func:`_assign`), which would silently change nothing.

    An algorithm's parameter cannot be an axis of a comparison: a flow runs the baseline or one
    of several compared algorithms, each with parameters of its own (Reno has no beta), so a
    value of one flow's parameter has no meaning across the cells. The compared entries say it
    instead, one per value.
    """
    keys = [("set", key) for key in fixed] + [("axes", axis.key) for axis in axes]
    for table, key in keys:
        parts = re.sub(r"\[(\d+)\]", r".\1", key).split(".")
        if len(parts) < 3 or parts[0] not in ("flows", "generators"):
            continue
        what = "axis" if table == "axes" else "setting"
        if parts[2] == "params":
            raise ScenarioError(
                f"[compare] gives every flow and generator its algorithm's parameters at every "
                f"point, so this {what} would change nothing; expected the values in "
                'compare.algorithms, one entry per value: { cc = "cubic", params = { beta = 0.7 } }',
                (table, key),
            )
        if parts[2] == "cc":
            raise ScenarioError(
                f"[compare] chooses every flow's and generator's algorithm at every point, so "
                f"this {what} would change nothing; expected the algorithms in compare.algorithms",
                (table, key),
            )
