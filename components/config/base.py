"""The base of every config model, and the small types several sections share."""

from __future__ import annotations

import re
import types
import typing
from typing import Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from ..catalog import MIN_KUBERNETES_PATCH, MIN_KUBERNETES_VERSION
from .aliases import remember
from .syntax import POOL_NAME, json_pattern, parse_k8s_version
from .validation import python_args_error
from .versions import offered_problem


def _as_str_list(value: Any) -> Any:
    """YAML writes zones as numbers; AKS wants strings."""
    if isinstance(value, list):
        return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
    return value


def _pool_name(v: str) -> str:
    if not POOL_NAME.fullmatch(v):
        raise ValueError(f"'{v}' is not a pool name; use 1-12 lowercase letters and digits, starting with a letter")
    return v


def _version_is_text(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # The hint quotes the user's own value; YAML has already turned an unquoted 1.30 into 1.3, so say that too.
        text = str(value)
        hint = f"'{text}'"
        if isinstance(value, float) and len(text.partition(".")[2]) == 1:
            hint += f" (or '{text}0': YAML reads an unquoted {text}0 as {text})"
        raise ValueError(f"{text} is a number; quote the version so YAML keeps it as written: {hint}")
    return value


def _dra_ready(value: str) -> str:
    if parse_k8s_version(value) < MIN_KUBERNETES_VERSION:
        minimum = ".".join(map(str, MIN_KUBERNETES_VERSION))
        raise ValueError(f"'{value}' is too old; DRA (resource.k8s.io/v1) needs Kubernetes {minimum} or newer")
    parts = tuple(int(part) for part in value.split("."))
    if len(parts) == 3 and parts[:2] == MIN_KUBERNETES_PATCH[:2] and parts < MIN_KUBERNETES_PATCH:
        patch = ".".join(map(str, MIN_KUBERNETES_PATCH))
        raise ValueError(
            f"'{value}' is too old; the NVIDIA DRA driver needs Kubernetes {patch} or newer (its prerequisites): "
            f"write '{patch}', or '{value.rsplit('.', 1)[0]}' for AKS's newest patch"
        )
    problem = offered_problem(value)  # components.catalog.kubernetes_versions: the minors and patches AKS offers
    if problem:
        raise ValueError(problem)
    return value


def matching(pattern: re.Pattern[str], problem: str) -> AfterValidator:
    """A check that refuses text the pattern does not match whole, saying "'<text>' <problem>"."""

    def check(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(f"'{value}' {problem}")
        return value

    return AfterValidator(check)


def unset(description: str, **constraints: Any) -> Any:
    """An optional setting: unset (None) unless the stack says otherwise; `constraints` as pydantic's Field takes them."""
    return Field(None, description=description, **constraints)


KubernetesVersion = Annotated[str, BeforeValidator(_version_is_text), AfterValidator(_dra_ready)]
"""A Kubernetes version as text (major.minor[.patch]) that DRA's resource.k8s.io/v1 runs on: 1.34 or newer."""

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


class _PythonArgs(type(BaseModel)):
    """Calling a model's class (``GpuNodePoolArgs(vm_size=...)``) is the Python API: its bad arguments raise ConfigError
    named as Python writes them. Validating data (``model_validate``, stack files, nested models) never passes here,
    so those keep the stack file's names; a custom ``__init__`` would not do, since pydantic calls it for nested models.
    """

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except ValidationError as exc:
            raise python_args_error(cls, exc, kwargs if not args else None) from None


class Model(BaseModel, metaclass=_PythonArgs):
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

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        remember(cls)  # error messages name a key as the Python caller writes it (aliases.py)

    @model_validator(mode="before")
    @classmethod
    def _null_is_unset(cls, data: Any) -> Any:
        # One rule for null in every section: an optional key written as null (`maxPods:` or `maxPods: null`) is the
        # key left out, and takes its default; a required key's null is still refused.
        if not isinstance(data, dict):
            return data
        optional = {key for name, f in cls.model_fields.items() if not f.is_required() for key in (name, f.alias)}
        return {k: v for k, v in data.items() if not (v is None and k in optional)}

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

