"""A component's arguments as the Python caller gave them: its Args class, or a dict of the same arguments.

Pulumi's own Python SDKs take a resource's arguments as an ``*Args`` class or as the matching ``*ArgsDict`` (a
TypedDict: pulumi/pulumi-azure-native `sdk/python/pulumi_azure_native/containerservice/_inputs.py`), so a dict is
accepted here too, and validated as the class would be; anything else is told which class to use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from .errors import ConfigError, Problem

M = TypeVar("M", bound=BaseModel)


def component_args(args_class: type[M], given: Any) -> M:
    """`given` as the component's arguments: a model as it is, a dict (Python or stack-file key names) built into
    `args_class` (its mistakes are the class's own, `invalid <class>`), anything else a ConfigError naming the class."""
    if isinstance(given, BaseModel):
        return given  # type: ignore[return-value]  # the class, or the config model it extends (GpuPlatform's parts)
    if isinstance(given, Mapping) and all(isinstance(key, str) for key in given):
        return args_class(**given)
    name = args_class.__name__
    raise ConfigError([Problem("args", f"must be a {name} or a dict of its arguments (got {type(given).__name__}); "
                               f"write {name}(...) with the arguments it documents")], title=f"invalid {name}")
