"""What every table of a scenario file is built from: the table base, which turns unknown keys
into errors, and the field types, which parse quantities written with units."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    model_validator,
)

from ccsim.errors import PathItem, ScenarioError, show_value
from ccsim.units import (
    Buffer,
    format_rate,
    format_signed_time,
    format_size,
    format_time,
    parse_buffer,
    parse_rate,
    parse_signed_time,
    parse_size,
    parse_time,
    parse_transfer_size,
)

# Field types. Quantities are stored as the engine's integers and written back as unit strings,
# so model_dump() output loads again. The lambdas keep pydantic from passing its `info` argument
# into the parsers' optional `path` parameter.

Rate = Annotated[int, BeforeValidator(lambda v: parse_rate(v)), PlainSerializer(format_rate)]
Time = Annotated[int, BeforeValidator(lambda v: parse_time(v)), PlainSerializer(format_time)]
SignedTime = Annotated[
    int, BeforeValidator(lambda v: parse_signed_time(v)), PlainSerializer(format_signed_time)
]
Size = Annotated[int, BeforeValidator(lambda v: parse_size(v)), PlainSerializer(format_size)]
TransferSize = Annotated[
    int | None,
    BeforeValidator(lambda v: parse_transfer_size(v)),
    PlainSerializer(lambda v: "inf" if v is None else format_size(v)),
]
BufferSize = Annotated[
    Buffer, BeforeValidator(lambda v: parse_buffer(v)), PlainSerializer(lambda b: str(b))
]


def time_at_least(least_ns: int) -> Any:
    """A Time field's lower bound, checked after parsing, with the bound in the message."""

    def check(ns: int) -> int:
        if ns < least_ns:
            raise ScenarioError(
                f'"{format_time(ns)}" is too short; expected at least "{format_time(least_ns)}"'
            )
        return ns

    return AfterValidator(check)


Probability = Annotated[float, Field(strict=True, ge=0, lt=1, allow_inf_nan=False)]
PositiveFloat = Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)]
Count = Annotated[int, Field(strict=True, ge=1, lt=2**32)]
Threshold = Annotated[float, Field(strict=True, gt=0, le=1e12, allow_inf_nan=False)]
Seed = Annotated[int, Field(strict=True, ge=0, lt=2**64)]
Name = Annotated[str, Field(strict=True, min_length=1)]
Flag = Annotated[bool, Field(strict=True)]

#: Where a value sits in the file: keys and list indices, as ``("flows", 0, "rtt")``.
KeyPath = tuple[PathItem, ...]


class Table(BaseModel):
    """A TOML table: unknown keys are errors that list the keys this table accepts."""

    model_config = ConfigDict(extra="forbid", validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            for key in data:
                if key not in cls.model_fields:
                    allowed = ", ".join(cls.model_fields)
                    raise ScenarioError(f"unknown key; expected one of: {allowed}", (str(key),))
        elif not isinstance(data, BaseModel):
            raise ScenarioError(f"{show_value(data)} is not a table; expected a TOML table")
        return data
