"""``[stack]``: scenario-wide overrides of the stack profile's knobs.

The settings are the engine's (``_core.stack_settings()``, defined once in
crates/ccsim-core/src/tcp/stack_settings.rs): the model below is built from that table, so a setting
added there is a key here, checked as the table says, with no edit to this file. The rules
between settings (``sack`` against ``recovery``, ``max_rto`` against the profile's ``min_rto``)
are the engine's too: :func:`ccsim.scenario.engine.validate` asks it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, create_model, model_validator

import ccsim.scenario.engine as engine
from ccsim.errors import ScenarioError
from ccsim.scenario.fields import Flag, Table, Time, time_at_least


def _bound(value: float) -> float | int:
    # A whole-number bound is written as one in messages ("at least 1", not "1.0").
    return int(value) if float(value).is_integer() else value


def _field_type(setting: Mapping[str, Any]) -> Any:
    """The pydantic type of one engine setting: its kind with its bounds or choices."""
    kind = setting["kind"]
    if kind == "bool":
        return Flag
    if kind == "choice":
        return Literal.__getitem__(tuple(setting["choices"]))
    if kind == "time":
        # Time parses unit strings and bounds them above; the setting's floor is checked after.
        return Annotated[Time, time_at_least(setting["min"])] if setting["min"] > 0 else Time
    low, high = _bound(setting["min"]), _bound(setting["max"])
    if kind == "int":
        return Annotated[int, Field(strict=True, ge=low, le=high)]
    if kind == "float":
        return Annotated[float, Field(strict=True, ge=low, le=high, allow_inf_nan=False)]
    raise ValueError(f"the engine's stack setting {setting['key']} has an unknown kind {kind!r}")


class StackTable(Table):
    """What holds whatever the settings are: the engine's form of the written settings.
    :class:`Stack` adds one field per engine setting."""

    @model_validator(mode="before")
    @classmethod
    def _settings_need_the_engine(cls, data: Any) -> Any:
        # Without the engine there is no table of settings, so no key is known: say why.
        if not cls.model_fields and isinstance(data, Mapping) and data:
            raise ScenarioError(
                "[stack] settings are the engine's, and the engine (ccsim._core) is not built; "
                "expected no [stack] keys without it",
                (str(next(iter(data))),),
            )
        return data

    def resolve(self) -> dict[str, Any]:
        """The engine's ``StackOverrides``: only the knobs that were set."""
        overrides = {}
        for key in type(self).model_fields:
            value = getattr(self, key)
            if value is not None:
                overrides[STACK_ENGINE_NAMES.get(key, key)] = value
        return overrides


#: The engine's settings, or none when the engine is not built (then ``[stack]`` takes no key).
STACK_SETTINGS: list[dict[str, Any]] = engine.stack_settings() or []

#: [stack] keys whose engine name carries the unit (``min_rto`` -> ``min_rto_ns``).
STACK_ENGINE_NAMES: dict[str, str] = {
    s["key"]: s["field"] for s in STACK_SETTINGS if s["key"] != s["field"]
}

#: The shortest retransmission timeout (min_rto, initial_rto, max_rto), as the engine checks it.
#: A zero timeout would retransmit in a loop that never lets simulated time advance.
MIN_RTO_NS: int = next((s["min"] for s in STACK_SETTINGS if s["key"] == "min_rto"), 1_000)

if TYPE_CHECKING:

    class Stack(StackTable):
        """Scenario-wide overrides of the stack profile's knobs (``[stack]``)."""

        def __getattr__(self, key: str) -> Any: ...

else:
    Stack = create_model(
        "Stack",
        __base__=StackTable,
        __module__=__name__,
        __doc__="Scenario-wide overrides of the stack profile's knobs (``[stack]``); unset keys "
        "keep the profile's value. Times are unit strings here and ``*_ns`` integers in the "
        "engine. One field per setting of the engine's table (``_core.stack_settings()``).",
        **{s["key"]: (_field_type(s) | None, None) for s in STACK_SETTINGS},
    )
