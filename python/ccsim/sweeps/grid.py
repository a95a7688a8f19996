"""Reading a sweep file's tables (see :mod:`ccsim.sweeps`): the base scenario, the fixed keys of
``[set]``, the axes of ``[axes]`` with their lists and ranges, and the seeds."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ccsim.errors import ScenarioError, show_value
from ccsim.scenario import Scenario
from ccsim.sweeps.points import RESERVED_COLUMNS, Axis

_RANGE_KEYS = {"start", "stop", "step", "num", "scale"}
_AXIS_KEYS = _RANGE_KEYS | {"values", "name"}


def require_table(value: Any, path: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{show_value(value)} is not a table; expected a TOML table", path)
    return dict(value)


# Tables of a scenario file that a sweep file has only inside [scenario], as they are written.
_SCENARIO_TABLES = {"topology": "[topology]", "flows": "[[flows]]", "generators": "[[generators]]"}


def refuse_scenario_file(data: Mapping[str, Any], path: Path | None = None) -> None:
    """A scenario file given as a sweep file (``ccsim sweep dumbbell.toml``): say what it is, and
    show the shortest sweep file over it."""
    if "scenario" in data:
        return
    found = [written for key, written in _SCENARIO_TABLES.items() if key in data]
    if not found:
        return
    what = f"{path}: is a scenario file" if path is not None else "this is a scenario file"
    run = f"ccsim run {path}" if path is not None else "ccsim run"
    scenario = path.name if path is not None else "SCENARIO.toml"
    raise ScenarioError(
        f"{what} (it has {' and '.join(found)}), not a sweep file: run it with {run}, or sweep "
        f'it with a sweep file beside it such as the two lines scenario = "{scenario}" and '
        'axes = { "topology.loss" = [0.001, 0.01] } (docs/experiments.md)'
    )


def load_base_scenario(value: Any, directory: Path | None) -> Scenario:
    if value is None:
        raise ScenarioError(
            'required key is missing; expected a scenario file path like "dumbbell.toml" '
            "or a [scenario] table",
            ("scenario",),
        )
    if isinstance(value, str):
        path = Path(value)
        if not path.is_absolute() and directory is not None:
            path = directory / path
        try:
            return Scenario.load(path)
        except ScenarioError as error:
            raise ScenarioError(str(error), ("scenario",)) from None
    try:
        return Scenario.model_validate(require_table(value, ("scenario",)))
    except ScenarioError as error:
        raise error.under(("scenario",)) from None


def is_leaf_value(value: Any) -> bool:
    return not isinstance(value, Mapping)


def _is_axis_leaf(value: Any) -> bool:
    # A table of range or value keys describes one axis; any other table is a level of a dotted
    # key written without quotes (`topology.loss = [...]` is the table `topology`).
    return not isinstance(value, Mapping) or (bool(value) and set(value) <= _AXIS_KEYS)


def flatten_keys(table: Mapping[str, Any], path: tuple[str, ...], leaf: Any) -> dict[str, Any]:
    """``{"topology": {"loss": x}}`` -> ``{"topology.loss": x}``, down to values where ``leaf``."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if leaf(value):
            flat[key] = value
        else:
            for inner, item in flatten_keys(value, (*path, key), leaf).items():
                flat[f"{key}.{inner}"] = item
    return flat


def parse_axes(table: Mapping[str, Any]) -> list[Axis]:
    flat = flatten_keys(table, ("axes",), leaf=_is_axis_leaf)
    raw: list[tuple[str, str | None, tuple[Any, ...]]] = []
    for key, spec in flat.items():
        path = ("axes", key)
        if re.sub(r"\[(\d+)\]", r".\1", key).split(".")[0] in ("seed", "name"):
            raise ScenarioError(
                "cannot be an axis; expected replicates or seeds for seeds, and no name axis", path
            )
        given_name, values = _axis_values(spec, path)
        raw.append((key, given_name, values))
    names = _axis_names(raw)
    axes = [Axis(key, name, values) for (key, _, values), name in zip(raw, names, strict=True)]
    return axes


def _axis_values(spec: Any, path: tuple[str, ...]) -> tuple[str | None, tuple[Any, ...]]:
    if isinstance(spec, list):
        values: Sequence[Any] = spec
        name = None
    elif isinstance(spec, Mapping):
        name = spec.get("name")
        if name is not None and not isinstance(name, str):
            raise ScenarioError(f"{show_value(name)} is not a column name", (*path, "name"))
        if "values" in spec:
            if set(spec) & _RANGE_KEYS:
                raise ScenarioError(
                    "give either values or a range (start, stop...), not both", path
                )
            values = spec["values"]
            if not isinstance(values, list):
                raise ScenarioError(f"{show_value(values)} is not a list", (*path, "values"))
        else:
            values = expand_range(spec, path)
    else:
        raise ScenarioError(
            f"{show_value(spec)} is not a list of values or a range; expected e.g. "
            "[0.001, 0.01] or { start = 10, stop = 50, step = 10 }",
            path,
        )
    if not values:
        raise ScenarioError("is empty; expected at least one value", path)
    if len({json.dumps(v, sort_keys=True) for v in values}) != len(values):
        raise ScenarioError(f"{show_value(list(values))} repeats a value", path)
    equal = _equal_values(values)
    if equal is not None:
        # 1, 1.0 and true are one number to the scenario and the engine: their points would share
        # one run (and, with a Python algorithm, its constructor would see the first one's type).
        raise ScenarioError(
            f"{show_value(equal[0])} and {show_value(equal[1])} are equal values of different "
            "types, so their points would be one run; expected distinct values",
            path,
        )
    return name, tuple(values)


def _equal_values(values: Sequence[Any]) -> tuple[Any, Any] | None:
    """The first two values that Python finds equal (``1``, ``1.0``, ``True``), if any."""
    seen: dict[Any, Any] = {}
    tables_and_lists: list[Any] = []
    for value in values:
        try:
            earlier = seen.setdefault(value, value)
        except TypeError:  # a list or a table: axes of them are short, compare each pair
            earlier = next((v for v in tables_and_lists if v == value), value)
            tables_and_lists.append(value)
        if earlier is not value:
            return earlier, value
    return None


def _axis_names(raw: Sequence[tuple[str, str | None, tuple[Any, ...]]]) -> list[str]:
    """Column names: as given, else the key's last word (``topology.loss`` -> ``loss``) when that
    is unambiguous, else the whole key with ``_`` for ``.`` (``flows_0_rtt``)."""
    words = [re.sub(r"\[(\d+)\]", r".\1", key).split(".") for key, _, _ in raw]
    last = [next(w for w in reversed(parts) if not w.isdigit()) for parts in words]
    names = []
    for (key, given, _), parts, word in zip(raw, words, last, strict=True):
        if given is not None:
            name = given
        elif last.count(word) == 1 and word not in RESERVED_COLUMNS:
            name = word
        else:
            name = "_".join(parts)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in RESERVED_COLUMNS:
            raise ScenarioError(
                f"{show_value(name)} is not a usable column name; expected letters, digits and "
                f"'_', not one of: {', '.join(sorted(RESERVED_COLUMNS))}",
                ("axes", key, "name"),
            )
        names.append(name)
    for name in names:
        if names.count(name) > 1:
            raise ScenarioError(f"two axes are named {name!r}; give one a name = ...", ("axes",))
    return names


# A number and its unit as written ("10Mbps", "10Mb/s"); the scenario checks the unit.
_QUANTITY = re.compile(
    r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z]*(?:/[A-Za-z]+)?)\s*"
)


def expand_range(spec: Mapping[str, Any], path: Sequence[str | int] = ()) -> list[Any]:
    """The values of a range table.

    ``{start, stop, step}``: start, start + step, ... up to stop inclusive.
    ``{start, stop, num, scale}``: ``num`` values from start to stop inclusive, evenly spaced
    (``scale = "linear"``, the default) or evenly spaced in log (``scale = "log"``).
    Quantities with a unit (``"10Mbps"``) give values in that unit; all must use the same one.
    """
    unknown = set(spec) - _AXIS_KEYS
    if unknown:
        raise ScenarioError(
            f"unknown key {sorted(unknown)[0]!r}; expected start, stop and step or num", path
        )
    for key in ("start", "stop"):
        if key not in spec:
            raise ScenarioError(
                f"the range has no {key}; expected start, stop and step or num", path
            )
    if ("step" in spec) == ("num" in spec):
        raise ScenarioError("expected exactly one of step or num in a range", path)
    start, unit, integral = _number(spec["start"], (*path, "start"))
    stop, stop_unit, stop_integral = _number(spec["stop"], (*path, "stop"))
    step, step_unit, step_integral = (
        _number(spec["step"], (*path, "step")) if "step" in spec else (None, unit, False)
    )
    if len({unit, stop_unit, step_unit}) > 1:
        units = sorted({unit, stop_unit, step_unit})
        raise ScenarioError(f"mixes units {units}; expected one unit for the range", path)
    if step is not None:
        numbers = _stepped(start, stop, step, (*path, "step"))
        integral = integral and stop_integral and step_integral
    else:
        numbers = _spaced(start, stop, spec["num"], spec.get("scale", "linear"), path)
        integral = False
    return [_range_value(x, unit, integral) for x in numbers]


def _number(value: Any, path: Sequence[str | int]) -> tuple[float, str, bool]:
    if isinstance(value, bool):
        raise ScenarioError(f"{show_value(value)} is not a number", path)
    if isinstance(value, int | float):
        return float(value), "", isinstance(value, int)
    if isinstance(value, str) and (match := _QUANTITY.fullmatch(value)):
        return float(match.group(1)), match.group(2), False
    raise ScenarioError(f'{show_value(value)} is not a number or a quantity like "10Mbps"', path)


def _stepped(start: float, stop: float, step: float, path: Sequence[str | int]) -> list[float]:
    if step == 0 or (stop - start) / step < 0:
        raise ScenarioError(f"a step of {step:g} never goes from start to stop", path)
    # The tolerance keeps a stop that is reached up to rounding (0.1 steps to 0.3).
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > 100_000:
        raise ScenarioError(f"gives {count} values; expected at most 100000", path)
    return [start + k * step for k in range(count)]


def _spaced(
    start: float, stop: float, num: Any, scale: Any, path: Sequence[str | int]
) -> list[float]:
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise ScenarioError(
            f"{show_value(num)} is not a count; expected an integer >= 1", (*path, "num")
        )
    if num == 1:
        return [start]
    if scale == "linear":
        return [start + (stop - start) * k / (num - 1) for k in range(num)]
    if scale == "log":
        if start <= 0 or stop <= 0:
            raise ScenarioError("a log range needs positive start and stop", path)
        ratio = math.log(stop / start)
        return [start * math.exp(ratio * k / (num - 1)) for k in range(num)]
    raise ScenarioError(
        f'{show_value(scale)} is not a scale; expected "linear" or "log"', (*path, "scale")
    )


def _range_value(x: float, unit: str, integral: bool) -> Any:
    if integral:
        return round(x)
    rounded = float(f"{x:.12g}")  # 0.1 + 0.2 is 0.30000000000000004; a sweep value should be 0.3
    if unit:
        return f"{rounded:.12g}{unit}"
    return rounded


def parse_seeds(data: Mapping[str, Any], base_seed: int) -> list[int]:
    if "replicates" in data and "seeds" in data:
        raise ScenarioError("give either replicates or seeds, not both", ("seeds",))
    if "seeds" in data:
        seeds = data["seeds"]
        if (
            not isinstance(seeds, list)
            or not seeds
            or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**64 for s in seeds
            )
        ):
            raise ScenarioError(
                f"{show_value(seeds)} is not a list of seeds; expected e.g. [1, 2, 3]", ("seeds",)
            )
        if len(set(seeds)) != len(seeds):
            raise ScenarioError(f"{show_value(seeds)} repeats a seed", ("seeds",))
        return list(seeds)
    replicates = data.get("replicates", 1)
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
        raise ScenarioError(
            f"{show_value(replicates)} is not a count; expected an integer >= 1", ("replicates",)
        )
    return [base_seed + k for k in range(replicates)]
