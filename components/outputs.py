"""Component outputs, declared once: each component's outputs are `output(...)` attributes of one declaration class.

A component class inherits its declaration (``class GpuNodePool(GpuNodePoolOutputs, pulumi.ComponentResource)``) and
sets the attributes as it builds; `register_declared` registers exactly those, under their schema names. The plugin's
construct state (`values_by_schema_name`) and the schema's outputs (`declared_outputs`, with the attribute's type) read
the same declaration, so an output is written once: name, type, description and whether it is secret.

May import nothing of the package: the components import it.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
from pydantic.alias_generators import to_camel


class output:  # noqa: N801 (read as a declaration keyword: `pool_name: pulumi.Output[str] = output("...")`)
    """One declared output: its description and whether every SDK must treat it as secret."""

    def __init__(self, description: str, *, secret: bool = False) -> None:
        self.description = description
        self.secret = secret
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        # Set on the instance, the value hides this (a non-data descriptor); read before that, it is a mistake.
        if instance is None:
            return self
        raise AttributeError(f"{type(instance).__name__}.{self.name} is read before the component set it")

    @property
    def schema_name(self) -> str:
        """The output's name in every other language and in the engine's state: the attribute's, camelCased."""
        return to_camel(self.name)


@dataclass(frozen=True)
class DeclaredOutput:
    """One output as the schema sees it: its declaration and the Python type of its value."""

    spec: output
    annotation: Any


@functools.cache
def declared_outputs(declaration: type) -> tuple[DeclaredOutput, ...]:
    """The declaration's outputs in the order written (base classes first), each with its evaluated type.

    Only the classes that declare outputs have their annotations evaluated (a component's other bases, the SDK's own
    classes among them, annotate with names their modules import only for type checkers); once per class.
    """
    found: dict[str, DeclaredOutput] = {}
    for klass in reversed(declaration.__mro__):
        declared = {name: value for name, value in vars(klass).items() if isinstance(value, output)}
        if declared:
            hints = typing.get_type_hints(klass)
            found.update({name: DeclaredOutput(spec, hints.get(name, Any)) for name, spec in declared.items()})
    return tuple(found.values())


def _wire(value: Any) -> Any:
    """A value as the engine takes it: Outputs and plain data as they are; a value object (a Taint) as its text."""
    if value is None or isinstance(value, (str, int, float, bool, pulumi.Output)):
        return value
    if isinstance(value, Mapping):
        return {key: _wire(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_wire(item) for item in value]
    return str(value)


def values_by_schema_name(component: object, **overrides: Any) -> dict[str, Any]:
    """The component's declared outputs under their schema names, unset (None) ones left out; `overrides` by attribute
    name replace a value (e.g. a secret-wrapped copy)."""
    out: dict[str, Any] = {}
    for declared in declared_outputs(type(component)):
        name = declared.spec.name
        value = overrides[name] if name in overrides else getattr(component, name)
        if value is not None:
            out[declared.spec.schema_name] = _wire(value)
    return out


def lift(target: object, source: object, declaration: type) -> None:
    """Gives `target` the outputs `declaration` declares, with `source`'s values (a GpuPlatform its cluster's)."""
    for declared in declared_outputs(declaration):
        setattr(target, declared.spec.name, getattr(source, declared.spec.name))


def register_declared(component: pulumi.ComponentResource, **overrides: Any) -> None:
    """Registers the component's declared outputs (see `values_by_schema_name`)."""
    component.register_outputs(values_by_schema_name(component, **overrides))
