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

This module holds :class:`Sweep` and offers the names of the modules it is built from:
:mod:`~ccsim.sweeps.points` (axes, algorithms, mixtures, points, run ids),
:mod:`~ccsim.sweeps.grid` (the file's ``[set]``, ``[axes]`` and seeds, ranges),
:mod:`~ccsim.sweeps.mixtures` (``[compare]`` and which flow runs which algorithm) and
:mod:`~ccsim.sweeps.summaries` (the recorded command, the summary over replicates).
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccsim import pycc
from ccsim.errors import ScenarioError, show_value
from ccsim.scenario import Scenario
from ccsim.sweeps.grid import (
    expand_range,
    flatten_keys,
    is_leaf_value,
    load_base_scenario,
    parse_axes,
    parse_seeds,
    refuse_scenario_file,
    require_table,
)
from ccsim.sweeps.mixtures import (
    ALL_MIXTURE,
    algorithm_data,
    apply_mixture,
    mixture_data,
    parse_compare,
    refuse_compared_keys,
)
from ccsim.sweeps.points import (
    RESERVED_COLUMNS,
    Algorithm,
    Axis,
    Mixture,
    Point,
    run_id,
    show_param_value,
    unique_runs,
)
from ccsim.sweeps.summaries import (
    COMMAND_FILE,
    SUMMARY_METRICS,
    open_store,
    record_command,
    recorded_command,
    summarise_runs,
)

__all__ = [
    "COMMAND_FILE",
    "RESERVED_COLUMNS",
    "SUMMARY_METRICS",
    "Algorithm",
    "Axis",
    "Mixture",
    "Point",
    "Sweep",
    "expand_range",
    "open_store",
    "record_command",
    "recorded_command",
    "run_id",
    "summarise_runs",
    "unique_runs",
]

_SWEEP_KEYS = ("name", "scenario", "set", "axes", "replicates", "seeds", "compare")


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
        data = _parse_toml(text)
        refuse_scenario_file(data, path)  # the message names the file
        return cls.from_dict(_with_name(data, path.stem), directory=path.parent)

    @classmethod
    def from_toml(cls, text: str, name: str | None = None, directory: Path | None = None) -> Sweep:
        """Parse sweep TOML; ``name`` is used when the text sets none."""
        return cls.from_dict(_with_name(_parse_toml(text), name), directory=directory)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], directory: Path | None = None) -> Sweep:
        """Build from a dict shaped like the sweep file."""
        refuse_scenario_file(data)
        for key in data:
            if key not in _SWEEP_KEYS:
                raise ScenarioError(
                    f"unknown key; expected one of: {', '.join(_SWEEP_KEYS)}", (key,)
                )
        base = load_base_scenario(data.get("scenario"), directory)
        name = data.get("name", base.name)
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
            raise ScenarioError(
                f"{show_value(name)} is not a valid name; expected letters, digits, '.', '-' "
                "or '_' (it names the results directory)",
                ("name",),
            )
        compare = require_table(data.get("compare", {}), ("compare",))
        algorithms, mixtures, baseline, reference = parse_compare(compare)
        fixed = flatten_keys(
            require_table(data.get("set", {}), ("set",)), ("set",), leaf=is_leaf_value
        )
        axes = parse_axes(require_table(data.get("axes", {}), ("axes",)))
        if algorithms:
            refuse_compared_keys(fixed, axes)
        sweep = cls(
            name=name,
            base=base,
            set=fixed,
            axes=axes,
            seeds=parse_seeds(data, base.seed),
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
            pairs.append((self.baseline, ALL_MIXTURE))
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
                apply_mixture(data, cell[0], cell[1], self.baseline)
            data["seed"] = seed
            data["name"] = self.name
            # A compared algorithm may live in a module beside the base scenario file, as a
            # flow's own algorithm may: look for it there too.
            with pycc.modules_beside(self.base.directory):
                return Scenario.model_validate(data)
        except ScenarioError as error:
            shown = " ".join(f"{k}={show_param_value(v)}" for k, v in params.items())
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
                "algorithms": [algorithm_data(a) for a in self.algorithms],
                "mixtures": [mixture_data(m) for m in self.mixtures],
                "baseline": algorithm_data(self.baseline),
                "reference": self.reference,
            }
        return data


def _parse_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"invalid TOML: {error}") from None


def _with_name(data: dict[str, Any], name: str | None) -> dict[str, Any]:
    """``data`` with ``name`` (made a valid name) as its name, unless it sets one."""
    if name is not None:
        data.setdefault("name", re.sub(r"[^A-Za-z0-9._-]", "_", name) or "sweep")
    return data


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
