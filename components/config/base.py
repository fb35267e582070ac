"""The base of every config model, and the small types several sections share."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from .errors import python_args_error
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


class _PythonArgs(type(BaseModel)):
    """Calling a model's class (``GpuNodePoolArgs(vm_size=...)``) is the Python API: its bad arguments raise ConfigError
    named as Python writes them. Validating data (``model_validate``, stack files, nested models) never passes here,
    so those keep the stack file's names; a custom ``__init__`` would not do, since pydantic calls it for nested models.
    """

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except ValidationError as exc:
            raise python_args_error(cls, exc) from None


class Model(BaseModel, metaclass=_PythonArgs):
    """Base for every config model: camelCase keys, unknown keys rejected, validated on assignment too."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        arbitrary_types_allowed=True,
    )

