"""The base of every config model, and the small types several sections share."""

from __future__ import annotations

import typing
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.alias_generators import to_camel

from .syntax import POOL_NAME, json_pattern


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
_ZONE_IDS = typing.get_args(Zone)
# The JSON schema accepts what _as_str_list does: YAML's 1, 2, 3 as well as "1", "2", "3".
Zones = Annotated[
    list[Zone],
    BeforeValidator(_as_str_list),
    Field(default_factory=list, json_schema_extra={"items": {"enum": [*_ZONE_IDS, *map(int, _ZONE_IDS)]}}),
]
PoolName = Annotated[str, AfterValidator(_pool_name), Field(json_schema_extra={"pattern": json_pattern(POOL_NAME)})]
"""An AKS pool name (Linux): lowercase alphanumeric, starting with a letter, 1-12 characters."""


class Model(BaseModel):
    """Base for every config model: camelCase keys, unknown keys rejected, validated on assignment too."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        arbitrary_types_allowed=True,
    )

