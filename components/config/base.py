"""The base of every config model, and the small types several sections share."""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator
from pydantic.alias_generators import to_camel

from .syntax import POOL_NAME


def _as_str_list(value: Any) -> Any:
    """YAML writes zones as numbers; AKS wants strings."""
    if isinstance(value, list):
        return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
    return value


def _pool_name(v: str) -> str:
    if not POOL_NAME.fullmatch(v):
        raise ValueError(f"'{v}' is not a pool name; use 1-12 lowercase letters and digits, starting with a letter")
    return v


Zone = Literal["1", "2", "3"]
Zones = Annotated[list[Zone], BeforeValidator(_as_str_list), Field(default_factory=list)]
PoolName = Annotated[str, AfterValidator(_pool_name)]
"""An AKS pool name (Linux): lowercase alphanumeric, starting with a letter, 1-12 characters."""


class Model(BaseModel):
    """Base for every config model: camelCase keys, unknown keys rejected, values of exactly their type (strict)."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        arbitrary_types_allowed=True,
        # No coercion: `protect: 1`, `count: true` or `enabled: "yes"` would otherwise pass as something else.
        strict=True,
    )

    @field_validator("*", mode="before")
    @classmethod
    def _whole_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        # The one coercion kept: 3.0 for a whole-number field, since Pulumi's wire carries every number as a 64-bit
        # float (google.protobuf.Value), so a multi-language caller's 3 arrives as 3.0.
        if isinstance(value, float) and value.is_integer() and info.field_name and _takes_int(cls, info.field_name):
            return int(value)
        return value


def _takes_int(model: type[BaseModel], field_name: str) -> bool:
    annotation = model.model_fields[field_name].annotation
    options = typing.get_args(annotation) if typing.get_origin(annotation) in (Union, types.UnionType) else (annotation,)
    return int in options

