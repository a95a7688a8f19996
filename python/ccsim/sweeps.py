"""Sweeps and comparative studies: many runs of one base scenario, described by a TOML file.

A sweep file names a base scenario, the keys to vary (``[axes]``), the seeds (``replicates`` or
``seeds``) and, optionally, a ``[compare]`` table of algorithms and mixtures: every combination
is one *point*, and every point is one run of the engine. docs/experiments.md describes the
format; :func:`ccsim.sweep` (:mod:`ccsim.sweep_run`) runs one (``ccsim sweep FILE`` on the
command line).

Runs of a comparative study differ only in the algorithms of the flows: the seed, the flows,
their start times and transfer sizes are the same (the engine keys every random draw by seed,
entity and purpose), so their results can be joined flow by flow.

Each run is stored under a hash of its fully resolved scenario (:func:`run_id`): two points that
resolve to the same scenario are the same run, simulated once.

:func:`summarise_runs` gives, per parameter combination, the mean of the runs' summary numbers
over the replicates with a 95% confidence interval (Student's t) and their number.
:func:`record_command` keeps the command that made a sweep directory in ``command.json`` beside
its manifest (``ccsim report`` shows it).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim.errors import ScenarioError, show_value
from ccsim.runner import version
from ccsim.scenario import Scenario

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.store import Store

__all__ = [
    "COMMAND_FILE",
    "RESERVED_COLUMNS",
    "SUMMARY_METRICS",
    "Algorithm",
    "Axis",
    "Mixture",
    "Point",
    "Sweep",
    "record_command",
    "recorded_command",
    "run_id",
    "summarise_runs",
]

#: Catalogue columns that sweep parameters may not be named after.
RESERVED_COLUMNS = frozenset(
    {"point", "run_id", "reference_run", "status", "error", "seed", "algorithm", "mixture"}
)
_SWEEP_KEYS = ("name", "scenario", "set", "axes", "replicates", "seeds", "compare")
_RANGE_KEYS = {"start", "stop", "step", "num", "scale"}
_AXIS_KEYS = _RANGE_KEYS | {"values", "name"}
_BUILTIN_MIXTURES = ("all", "half", "one")
#: The file of a sweep directory that records the command that made it.
COMMAND_FILE = "command.json"
#: The runs table's summary numbers that :func:`summarise_runs` summarises by default.
SUMMARY_METRICS = ("goodput_bps", "jain", "utilization", "loss_rate", "timeouts")


def run_id(scenario: Scenario) -> str:
    """The run's identity: the first 16 hex digits of the SHA-256 of its resolved scenario.

    The hash is over the engine's JSON (``Scenario.resolve()``) with sorted keys and no spaces,
    so it changes exactly when the simulation would.
    """
    spec = json.dumps(scenario.resolve(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(spec.encode()).hexdigest()[:16]


# ---- the parts of a sweep ----------------------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """One varied key: ``key`` is a scenario key path, ``name`` its catalogue column."""

    key: str
    name: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Algorithm:
    """An entry of ``compare.algorithms``: a name for the catalogue, an engine cc and params."""

    name: str
    cc: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Mixture:
    """Which flows run the compared algorithm; the others run the baseline.

    ``flows`` is ``"all"``, ``"half"`` (flows 0, 2, 4, ... in the order of the expanded
    ``[[flows]]`` tables), ``"one"`` (flow 0) or an explicit tuple of flow indices.
    ``generators`` says whether generator transfers run the compared algorithm.
    """

    name: str
    flows: str | tuple[int, ...]
    generators: bool

    def chooses(self, index: int) -> bool:
        """Whether flow ``index`` (numbered from 0 over the expanded flows) runs the compared
        algorithm."""
        if self.flows == "all":
            return True
        if self.flows == "half":
            return index % 2 == 0
        if self.flows == "one":
            return index == 0
        return index in self.flows


@dataclass(frozen=True)
class Point:
    """One run of a sweep: its parameters (the catalogue columns) and its scenario."""

    index: int
    params: Mapping[str, Any]
    scenario: Scenario
    run_id: str
    #: The run this one is compared with flow by flow (the all-baseline run of the same
    #: workload), or None outside comparative studies.
    reference: str | None = None

    def describe(self) -> str:
        """``rate=10Mbps algorithm=reno seed=2``: how messages and tables name the point."""
        return " ".join(f"{name}={_show(value)}" for name, value in self.params.items())


def _show(value: Any) -> str:
    return value if isinstance(value, str) else show_value(value)


# ---- the sweep ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sweep:
    """A sweep file, checked: build one with :meth:`load`, :meth:`from_toml` or :meth:`from_dict`.

    :meth:`points` expands it into runs (axes, then compare cells, then seeds, varying fastest
    last).
    """

    name: str
    base: Scenario
    set: dict[str, Any]
    axes: list[Axis]
    seeds: list[int]
    algorithms: list[Algorithm] = field(default_factory=list)
    mixtures: list[Mixture] = field(default_factory=list)
    baseline: Algorithm | None = None
    #: Whether the all-baseline run of each workload is added when the compare cells lack it.
    reference: bool = True
    # Building every point's scenario takes about a millisecond each: done once.
    _points: list[Point] = field(default_factory=list, init=False, repr=False, compare=False)

    # ---- construction ---------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> Sweep:
        """Read a sweep file; a relative ``scenario`` path is relative to the file."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ScenarioError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise ScenarioError(f"{path}: is a directory, expected a sweep file") from None
        except (OSError, UnicodeDecodeError) as error:
            raise ScenarioError(f"{path}: cannot read: {error}") from None
        return cls.from_toml(text, name=path.stem, directory=path.parent)

    @classmethod
    def from_toml(cls, text: str, name: str | None = None, directory: Path | None = None) -> Sweep:
        """Parse sweep TOML; ``name`` is used when the text sets none."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ScenarioError(f"invalid TOML: {error}") from None
        if name is not None:
            data.setdefault("name", re.sub(r"[^A-Za-z0-9._-]", "_", name) or "sweep")
        return cls.from_dict(data, directory=directory)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], directory: Path | None = None) -> Sweep:
        """Build from a dict shaped like the sweep file."""
        for key in data:
            if key not in _SWEEP_KEYS:
                raise ScenarioError(
                    f"unknown key; expected one of: {', '.join(_SWEEP_KEYS)}", (key,)
                )
        base = _load_base(data.get("scenario"), directory)
        name = data.get("name", base.name)
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
            raise ScenarioError(
                f"{show_value(name)} is not a valid name; expected letters, digits, '.', '-' "
                "or '_' (it names the results directory)",
                ("name",),
            )
        compare = _table(data.get("compare", {}), ("compare",))
        algorithms, mixtures, baseline, reference = _parse_compare(compare)
        fixed = _flatten(_table(data.get("set", {}), ("set",)), ("set",), leaf=_is_leaf_value)
        axes = _parse_axes(_table(data.get("axes", {}), ("axes",)))
        if algorithms:
            _refuse_compared_keys(fixed, axes)
        sweep = cls(
            name=name,
            base=base,
            set=fixed,
            axes=axes,
            seeds=_parse_seeds(data, base.seed),
            algorithms=algorithms,
            mixtures=mixtures,
            baseline=baseline,
            reference=reference,
        )
        sweep.points()  # every point must make a valid scenario: fail now, not mid-sweep
        return sweep

    # ---- expansion ------------------------------------------------------------------------------

    @property
    def comparative(self) -> bool:
        """Whether the sweep has a ``[compare]`` table."""
        return bool(self.algorithms)

    def columns(self) -> list[str]:
        """The catalogue's parameter columns, in order."""
        compare = ["algorithm", "mixture"] if self.comparative else []
        return [axis.name for axis in self.axes] + compare + ["seed"]

    def points(self) -> list[Point]:
        """Every run of the sweep, in order; raises :class:`ScenarioError` naming a bad point."""
        if not self._points:
            self._points.extend(self._expand())
        return list(self._points)

    def _expand(self) -> list[Point]:
        points: list[Point] = []
        for values in itertools.product(*(axis.values for axis in self.axes)):
            overrides = dict(self.set) | {a.key: v for a, v in zip(self.axes, values, strict=True)}
            params = {a.name: v for a, v in zip(self.axes, values, strict=True)}
            for cell, seed in itertools.product(self._cells(), self.seeds):
                point_params = params | self._cell_params(cell) | {"seed": seed}
                scenario = self._scenario(overrides, cell, seed, point_params)
                points.append(Point(len(points), point_params, scenario, run_id(scenario)))
        return _with_references(points, self)

    def _cells(self) -> list[tuple[Algorithm, Mixture] | None]:
        """The compare cells (algorithm, mixture), or one None cell outside comparisons."""
        if not self.comparative:
            return [None]
        assert self.baseline is not None
        pairs = [(a, m) for m in self.mixtures for a in self.algorithms]
        has_reference = any(a.name == self.baseline.name and m.name == "all" for a, m in pairs)
        if self.reference and not has_reference:
            pairs.append((self.baseline, _ALL))
        return [*pairs]

    @staticmethod
    def _cell_params(cell: tuple[Algorithm, Mixture] | None) -> dict[str, Any]:
        if cell is None:
            return {}
        return {"algorithm": cell[0].name, "mixture": cell[1].name}

    def _scenario(
        self,
        overrides: Mapping[str, Any],
        cell: tuple[Algorithm, Mixture] | None,
        seed: int,
        params: Mapping[str, Any],
    ) -> Scenario:
        try:
            scenario = self.base.with_overrides(overrides)
            data = scenario.data()
            if cell is not None:
                assert self.baseline is not None
                _apply_mixture(data, cell[0], cell[1], self.baseline)
            data["seed"] = seed
            data["name"] = self.name
            return Scenario.model_validate(data)
        except ScenarioError as error:
            shown = " ".join(f"{k}={_show(v)}" for k, v in params.items())
            raise ScenarioError(f"sweep point {shown}: {error}") from None

    def describe(self) -> str:
        """One line: name, number of runs and what varies."""
        parts = [f"{axis.name} x{len(axis.values)}" for axis in self.axes]
        if self.comparative:
            parts.append(f"{len(self.algorithms)} algorithms x {len(self.mixtures)} mixtures")
        parts.append(f"{len(self.seeds)} seed{'s' if len(self.seeds) != 1 else ''}")
        points = self.points()
        runs = len({p.run_id for p in points})
        return f"{self.name}: {len(points)} points, {runs} distinct runs ({', '.join(parts)})"

    def to_data(self) -> dict[str, Any]:
        """The sweep as a dict with the base scenario inline (stored in the result store)."""
        data: dict[str, Any] = {
            "name": self.name,
            "scenario": self.base.data(),
            "seeds": self.seeds,
        }
        if self.set:
            data["set"] = dict(self.set)
        data["axes"] = {
            axis.key: {"name": axis.name, "values": list(axis.values)} for axis in self.axes
        }
        if self.comparative:
            assert self.baseline is not None
            data["compare"] = {
                "algorithms": [_algorithm_data(a) for a in self.algorithms],
                "mixtures": [_mixture_data(m) for m in self.mixtures],
                "baseline": _algorithm_data(self.baseline),
                "reference": self.reference,
            }
        return data


_ALL = Mixture("all", "all", True)


def _with_references(points: list[Point], sweep: Sweep) -> list[Point]:
    """Give each point of a comparative sweep the run id of its all-baseline reference."""
    if not sweep.comparative:
        return points
    assert sweep.baseline is not None
    workload_columns = [name for name in sweep.columns() if name not in ("algorithm", "mixture")]

    def workload(point: Point) -> tuple[str, ...]:
        return tuple(json.dumps(point.params[c], sort_keys=True) for c in workload_columns)

    references = {
        workload(p): p.run_id
        for p in points
        if p.params["algorithm"] == sweep.baseline.name and p.params["mixture"] == "all"
    }
    return [
        Point(p.index, p.params, p.scenario, p.run_id, references.get(workload(p))) for p in points
    ]


# ---- the mixture: which flow runs which algorithm ----------------------------------------------


def _apply_mixture(
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


def _refuse_compared_keys(fixed: Mapping[str, Any], axes: Sequence[Axis]) -> None:
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


# ---- parsing the file --------------------------------------------------------------------------


def _table(value: Any, path: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{show_value(value)} is not a table; expected a TOML table", path)
    return dict(value)


def _load_base(value: Any, directory: Path | None) -> Scenario:
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
        return Scenario.model_validate(_table(value, ("scenario",)))
    except ScenarioError as error:
        raise error.under(("scenario",)) from None


def _is_leaf_value(value: Any) -> bool:
    return not isinstance(value, Mapping)


def _is_axis_leaf(value: Any) -> bool:
    # A table of range or value keys describes one axis; any other table is a level of a dotted
    # key written without quotes (`topology.loss = [...]` is the table `topology`).
    return not isinstance(value, Mapping) or (bool(value) and set(value) <= _AXIS_KEYS)


def _flatten(table: Mapping[str, Any], path: tuple[str, ...], leaf: Any) -> dict[str, Any]:
    """``{"topology": {"loss": x}}`` -> ``{"topology.loss": x}``, down to values where ``leaf``."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if leaf(value):
            flat[key] = value
        else:
            for inner, item in _flatten(value, (*path, key), leaf).items():
                flat[f"{key}.{inner}"] = item
    return flat


def _parse_axes(table: Mapping[str, Any]) -> list[Axis]:
    flat = _flatten(table, ("axes",), leaf=_is_axis_leaf)
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


_QUANTITY = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z]*)\s*")


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


def _parse_seeds(data: Mapping[str, Any], base_seed: int) -> list[int]:
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


def _parse_compare(
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


def _algorithm_data(algorithm: Algorithm) -> dict[str, Any]:
    data: dict[str, Any] = {"name": algorithm.name, "cc": algorithm.cc}
    if algorithm.params:
        data["params"] = dict(algorithm.params)
    return data


def _mixture_data(mixture: Mixture) -> Any:
    if isinstance(mixture.flows, str) and mixture.name == mixture.flows:
        return mixture.name
    return {"name": mixture.name, "flows": list(mixture.flows), "generators": mixture.generators}


def record_command(directory: str | os.PathLike[str], command: str) -> Path:
    """Record in ``DIRECTORY/command.json`` the command line that made the sweep directory,
    with the working directory it ran in and ccsim's version; returns the file.

    Written once the sweep has its manifest (a directory holding only this file would not be
    taken for a sweep directory).
    """
    path = Path(directory) / COMMAND_FILE
    record = {"command": command, "cwd": os.getcwd(), "ccsim_version": version()}
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path


def recorded_command(directory: str | os.PathLike[str]) -> dict[str, Any] | None:
    """What :func:`record_command` recorded for a sweep directory (None: nothing, or unreadable)."""
    try:
        record = json.loads((Path(directory) / COMMAND_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("command"), str) else None


def summarise_runs(
    runs: pd.DataFrame,
    params: Sequence[str],
    metrics: Sequence[str] = SUMMARY_METRICS,
    level: float = 0.95,
) -> pd.DataFrame:
    """The summary of a sweep: for each combination of the ``params`` (``seed`` is left out, so
    the seeds are the replicates) and each of the ``metrics`` (columns of the catalogue's runs
    table), the mean over the finished runs and its ``level`` confidence interval by Student's t.

    Returns one row per combination and metric, combinations in the order of the runs table,
    metrics in the order given: the parameters, ``metric``, ``mean``, ``sd``, ``half_width``,
    ``ci_low``, ``ci_high``, ``n`` (finished runs with a value; the interval is NaN, undefined,
    when n < 2) and ``points`` (all points of the combination, finished or not). See
    :func:`ccsim.metrics.mean_ci`.
    """
    # pandas (and the metrics built on it) only to summarise: sweep files load without it
    import pandas as pd

    from ccsim.metrics import mean_ci

    keys = [p for p in params if p != "seed"]
    if not metrics:
        raise ValueError("no summary number to summarise; expected at least one metric")
    done = runs["status"] == "done"
    frames = []
    for index, metric in enumerate(metrics):
        values = runs.assign(_value=runs[metric].astype(float).where(done))
        stats = mean_ci(values, keys, "_value", level)
        stats.insert(len(keys), "metric", metric)
        stats["_group"], stats["_metric"] = range(len(stats)), index
        frames.append(stats)
    table = pd.concat(frames, ignore_index=True)
    table = table.sort_values(["_group", "_metric"], kind="stable").drop(
        columns=["_group", "_metric"]
    )
    if keys:
        sizes = runs.groupby(keys, sort=False, dropna=False).size().rename("points").reset_index()
        table = table.merge(sizes, on=keys, how="left", sort=False)
    else:
        table["points"] = len(runs)
    return table.reset_index(drop=True)


def open_store(directory: str | Path) -> Store:
    """The result store of a sweep directory (for queries and plots)."""
    from ccsim.store import Store  # pandas: only when a store is opened

    return Store.open(directory)


def unique_runs(points: Iterable[Point]) -> list[Point]:
    """The first point of each distinct run, in order."""
    seen: set[str] = set()
    unique = []
    for point in points:
        if point.run_id not in seen:
            seen.add(point.run_id)
            unique.append(point)
    return unique
