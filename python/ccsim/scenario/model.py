"""The scenario: its tables (:class:`~ccsim.scenario.resolve.ScenarioTables`), built from a file,
TOML text or a dict, checked across tables, and written back as TOML.

Validation happens in two layers:

* the models check each table on its own: types, units (``"100Mbps"``), unknown keys, and
  constraints within one table (RED thresholds, a RED queue needs a packet limit);
* :meth:`Scenario._check_consistency` checks what spans tables: flow endpoints against the
  topology, algorithm names and parameters against the engine's registry, that every "bdp"
  buffer has a reference RTT and what the run would hold against ``[limits]``; then it asks the
  engine (:func:`ccsim.scenario.engine.validate`), whose rules between settings (dumbbell RTTs
  against the bottleneck delay, the stack's knobs against the profile) are defined there once.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import PrivateAttr, ValidationError, field_validator, model_validator

import ccsim.scenario.engine as engine
from ccsim import pycc
from ccsim.errors import ScenarioError, format_path, show_value
from ccsim.scenario.algorithms import check_algorithm
from ccsim.scenario.fields import KeyPath
from ccsim.scenario.overrides import apply_overrides
from ccsim.scenario.resolve import ScenarioTables
from ccsim.scenario.resources import check_limits
from ccsim.scenario.toml_file import (
    TomlSyntaxError,
    check_depth,
    name_from_stem,
    parse_toml,
    read_scenario_file,
    toml_ready,
)
from ccsim.scenario.traffic import Transfer
from ccsim.scenario.validation_errors import scenario_error
from ccsim.units import format_time

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Scenario(ScenarioTables):
    """One simulation run: topology, traffic, stack profile, duration and seed.

    Build one with :meth:`load`, :meth:`from_toml` or :meth:`model_validate` (a dict shaped like
    the TOML file); :meth:`resolve` gives the engine's JSON structure, :meth:`to_toml` the file
    with every default filled in.
    """

    # The input as given, so that overrides apply to what the user wrote, not to filled defaults
    # (an override of bottleneck_rate must still move the default access_rate with it).
    _source: dict[str, Any] = PrivateAttr(default_factory=dict)
    # The directory of the file it was read from: a Python algorithm's module is looked for
    # there too, also when an override names one later (ccsim.pycc.modules_beside).
    _directory: Path | None = PrivateAttr(default=None)

    def __init__(self, **data: Any) -> None:
        check_depth(data)
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise scenario_error(error) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Scenario:
        """Validate a dict shaped like the TOML file; errors raise :class:`ScenarioError`."""
        check_depth(obj)
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as error:
            raise scenario_error(error) from None

    @model_validator(mode="wrap")
    @classmethod
    def _remember_source(cls, data: Any, handler: Any) -> Scenario:
        scenario: Scenario = handler(data)
        if isinstance(data, Mapping):
            scenario._source = copy.deepcopy(dict(data))
        return scenario

    @field_validator("name")
    @classmethod
    def _name_is_a_directory_name(cls, name: str) -> str:
        if not _NAME.fullmatch(name):
            raise ScenarioError(
                f"{show_value(name)} is not a valid name; expected letters, digits, '.', '-' or '_' "
                "(it names the results directory)"
            )
        return name

    @model_validator(mode="after")
    def _check_consistency(self) -> Scenario:
        if self.duration == 0:
            raise ScenarioError('"0s" is zero; expected a run length like "60s"', ("duration",))
        if not self.flows and not self.generators:
            raise ScenarioError(
                "no traffic; expected at least one [[flows]] or [[generators]] table", ("flows",)
            )
        for i, flow in enumerate(self.flows):
            self._check_transfer(flow, ("flows", i))
            self.topology.check_flow(flow, ("flows", i))
        for i, gen in enumerate(self.generators):
            self._check_transfer(gen, ("generators", i))
            self.topology.check_generator(gen, ("generators", i))
        self._check_bdp_rtt()
        check_limits(self)
        # The rules between settings are the engine's (one definition, whoever builds the spec).
        engine.validate(self.engine_spec())
        return self

    def _check_transfer(self, transfer: Transfer, path: KeyPath) -> None:
        if transfer.start >= self.duration:
            raise ScenarioError(
                f'"{format_time(transfer.start)}" is not before the end of the run '
                f"({format_time(self.duration)}); expected an earlier start",
                (*path, "start"),
            )
        check_algorithm(transfer, path)

    def _check_bdp_rtt(self) -> None:
        if self.bdp_rtt_ns() is not None:
            return
        for path, buffer in self.topology.buffers():
            if buffer.unit == "bdp":
                raise ScenarioError(
                    f'required because {format_path(path)} is "{buffer}"; '
                    'expected the reference RTT for BDP buffers, like "100ms"',
                    ("topology", "bdp_rtt"),
                )

    # ---- construction -----------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, overrides: Mapping[str, Any] | None = None) -> Scenario:
        """Read a scenario file; its name defaults to the file name without ``.toml``.

        ``overrides`` (as for :meth:`with_overrides`) replace keys of the file before anything
        is checked: ``--set flows.0.cc=reno`` runs a file whose algorithm cannot be imported
        here, or whose value for a key is wrong, as the overridden scenario.
        """
        path = Path(path)
        text = read_scenario_file(path)
        try:
            with pycc.modules_beside(path.parent):
                scenario = cls.from_toml(text, name=name_from_stem(path.stem), overrides=overrides)
        except TomlSyntaxError as error:
            raise ScenarioError(f"{path}: {error}") from None
        scenario._directory = path.parent
        return scenario

    @classmethod
    def from_toml(
        cls, text: str, name: str | None = None, overrides: Mapping[str, Any] | None = None
    ) -> Scenario:
        """Parse TOML text; ``name`` is used when the text sets none; ``overrides`` (as for
        :meth:`with_overrides`) replace keys before the scenario is checked."""
        data = parse_toml(text)
        if name is not None and "name" not in data:
            data["name"] = name
        apply_overrides(data, overrides or {})
        return cls.model_validate(data)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Scenario:
        """A copy with keys replaced: ``{"topology.loss": "0.01", "flows.0.cc": "cubic"}``.

        String values are read as TOML values when they parse as one (``"0.01"`` is a number,
        ``"true"`` a boolean, ``'["40ms"]'`` a list) and kept as strings otherwise
        (``"100Mbps"``). A path may index into a list: ``flows.0.cc`` or ``flows[0].cc``.
        """
        data = self.data()
        with pycc.modules_beside(self._directory):
            apply_overrides(data, overrides)
            scenario = Scenario.model_validate(data)
        scenario._directory = self._directory
        return scenario

    @property
    def directory(self) -> Path | None:
        """The directory of the file the scenario was read from (None when it was not read from
        a file): a Python algorithm's module is looked for there after ``sys.path``. A copy made
        by :meth:`with_overrides` keeps it; to validate data of it yourself, do so inside
        ``ccsim.pycc.modules_beside(scenario.directory)``."""
        return self._directory

    def data(self) -> dict[str, Any]:
        """The scenario as the user wrote it: a dict shaped like the TOML file (a copy).

        Defaults are not filled in, so a flow without a ``label`` still has none and will follow
        its ``cc``; ``Scenario.model_validate(scenario.data())`` gives the same scenario back.
        """
        return copy.deepcopy(self._source) or toml_ready(self.model_dump(mode="json"))

    # ---- output -----------------------------------------------------------------------------

    def to_toml(self) -> str:
        """The scenario as TOML with every default filled in; loads back to the same scenario."""
        return tomli_w.dumps(toml_ready(self.model_dump(mode="json")))
