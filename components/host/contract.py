"""The multi-language package schema (what GetSchema serves), generated from the config models and output declarations.

Nothing here knows a setting. Each component's inputs are its args model's pydantic JSON schema (the same one that
makes docs/stack.schema.json: names as the stack file spells them, enums as validation accepts them, defaults,
descriptions); nested models become object types written once (the pool type every component shares, as pulumi-eks
writes `nodeGroupProperties` once); outputs are the component's `output(...)` declarations (`components/outputs.py`).

Pulumi's schema (pulumi/pulumi pkg/codegen/schema/schema.go): a TypeSpec with ``plain: true`` "does not accept
eventual values", so SDKs type it as a plain value; without it, an Input that takes another resource's output. Here a
field takes outputs exactly when its model type admits a ``pulumi.Output`` (``StrInput``). ``default`` is written only
for booleans, numbers, strings and enums, the only defaults the schema binder accepts (pkg/codegen/schema/bind.go,
bindDefaultValue). Pure: the same models give the same schema, byte for byte (`schema_text`).
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Union

import pulumi
from pydantic import BaseModel

from ..config import PROJECT
from ..config.schema import models_schema
from ..outputs import declared_outputs
from .enum_notes import ENUM_NAMES, TYPE_NAMES, enum_description, member_description
from .hosted import HOSTED, Hosted

PACKAGE = PROJECT
"""The Pulumi package name: the first part of every type token (``aks-dra-vgpu:index:GpuNodePool``)."""
ANY = {"$ref": "pulumi.json#/Any"}
_PRIMITIVES = {"string", "integer", "number", "boolean"}
_KEYWORDS = {"None", "True", "False"}


def token(name: str) -> str:
    """The type token of a resource or type of this package."""
    return f"{PACKAGE}:index:{name}"


def type_name(model_name: str) -> str:
    """A nested model's schema type name: its published name, else its class name without ``Config``."""
    return TYPE_NAMES.get(model_name, model_name.removesuffix("Config"))


def _takes_output(annotation: Any) -> bool:
    """Whether a value of this annotation may be another resource's output (``str | pulumi.Output``)."""
    if typing.get_origin(annotation) is typing.Annotated:
        return _takes_output(typing.get_args(annotation)[0])
    if annotation is pulumi.Output or typing.get_origin(annotation) is pulumi.Output:
        return True
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return any(_takes_output(a) for a in typing.get_args(annotation))
    return False


def _item_annotation(annotation: Any) -> Any:
    """The item (or map value) type of a list or dict annotation, through Optional and Annotated."""
    if typing.get_origin(annotation) is typing.Annotated:
        return _item_annotation(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _item_annotation(inner[0]) if len(inner) == 1 else Any
    args = typing.get_args(annotation)
    return args[-1] if typing.get_origin(annotation) in (list, dict) and args else Any


def _models(model: type[BaseModel], found: dict[str, type[BaseModel]] | None = None) -> dict[str, type[BaseModel]]:
    """Every model reachable from `model` by its fields, by class name (as pydantic names its $defs)."""
    found = {} if found is None else found
    found[model.__name__] = model
    for field in model.model_fields.values():
        for candidate in _flatten(field.annotation):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel) and candidate.__name__ not in found:
                _models(candidate, found)
    return found


def _flatten(annotation: Any) -> list[Any]:
    return [annotation, *(inner for arg in typing.get_args(annotation) for inner in _flatten(arg))]


class _Builder:
    """Collects the shared object and enum types while it converts the components' properties."""

    def __init__(self) -> None:
        self.types: dict[str, dict[str, Any]] = {}
        self.models: dict[str, type[BaseModel]] = {}

    # --- types ---------------------------------------------------------------------------------------------------------
    def object_type(self, model_name: str, definition: Mapping[str, Any]) -> str:
        """The token of a nested model's object type, declared once."""
        name = type_name(model_name)
        if token(name) not in self.types:
            self.types[token(name)] = {}  # reserved first: a model may refer to itself
            properties, required = self.properties(self.models[model_name], definition)
            spec: dict[str, Any] = {"type": "object", "description": definition.get("description", ""),
                                    "properties": properties}
            if required:
                spec["required"] = required
            self.types[token(name)] = spec
        return token(name)

    def enum_type(self, name: str, values: list[str], description: str) -> str:
        """The token of a closed set of text values; the same name must always mean the same values."""
        spec = {
            "type": "string",
            "description": enum_description(name, description),
            "enum": [{"name": _member_name(name, v), "value": v, "description": member_description(name, v)}
                     for v in values],
        }
        existing = self.types.get(token(name))
        if existing is not None and [e["value"] for e in existing["enum"]] != values:
            raise ValueError(f"enum {name} would stand for two different sets of values; name one in ENUM_NAMES")
        self.types.setdefault(token(name), spec)
        return token(name)

    # --- properties ----------------------------------------------------------------------------------------------------
    def properties(self, model: type[BaseModel], schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """A model's properties as Pulumi properties (by alias), and the required ones."""
        by_alias = {field.alias or name: field for name, field in model.model_fields.items()}
        out = {}
        for alias, prop in schema.get("properties", {}).items():
            annotation = by_alias[alias].annotation
            enum_name = ENUM_NAMES.get((model.__name__, alias), alias[:1].upper() + alias[1:])
            out[alias] = self.property(prop, annotation, enum_name)
        return out, sorted(schema.get("required", []))

    def property(self, prop: Mapping[str, Any], annotation: Any, enum_name: str) -> dict[str, Any]:
        """One property: description, type, default where the schema allows one, and whether it is plain."""
        spec: dict[str, Any] = {"description": prop.get("description", "")}
        core = _without_null(prop)
        spec.update(self.kind(core, enum_name, prop.get("description", ""), _item_annotation(annotation)))
        default = prop.get("default")
        is_enum = "enum" in self.types.get(spec.get("$ref", "").removeprefix("#/types/"), {})
        if isinstance(default, (str, int, float, bool)) and (spec.get("type") in _PRIMITIVES or is_enum):
            spec["default"] = default
        if not _takes_output(annotation):
            spec["plain"] = True
        return spec

    def kind(self, core: Mapping[str, Any], enum_name: str, description: str, item: Any) -> dict[str, Any]:
        """The type part of a property: a reference, an enum, a primitive, a list or a map."""
        if "$ref" in core:
            return {"$ref": f"#/types/{self.object_type(core['$ref'].rsplit('/', 1)[-1], self.definitions[core['$ref']])}"}
        values = [core["const"]] if "const" in core else core.get("enum")
        if values and all(isinstance(v, str) for v in values):
            return {"$ref": f"#/types/{self.enum_type(enum_name, list(values), description)}"}
        kind = core.get("type")
        if kind == "array":
            items = self.kind(_without_null(core.get("items", {})), enum_name, description, Any)
            return {"type": "array", "items": {**items, **({} if _takes_output(item) else {"plain": True})}}
        if kind == "object":
            values_schema = core.get("additionalProperties")
            inner = self.kind(values_schema, enum_name, description, Any) if isinstance(values_schema, dict) else ANY
            return {"type": "object", "additionalProperties": {**inner, **({} if _takes_output(item) else {"plain": True})}}
        if kind in _PRIMITIVES:
            return {"type": kind}
        if values:  # mixed-type values (zones: "1" or 1): the type of the first
            return {"type": "string" if isinstance(values[0], str) else "integer"}
        return dict(ANY)

    definitions: dict[str, Mapping[str, Any]] = {}


def _without_null(prop: Mapping[str, Any]) -> Mapping[str, Any]:
    """An optional property's one non-null alternative (pydantic writes ``X | None`` as anyOf [X, null])."""
    branches = [b for b in prop.get("anyOf", []) if b != {"type": "null"}]
    return branches[0] if "anyOf" in prop and len(branches) == 1 else prop


def _member_name(enum: str, value: str) -> str:
    """An enum member's name in every SDK: the value as an identifier (``node-image`` -> NodeImage, 25.8.1 -> V25_8_1)."""
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", value):
        name = value[0].upper() + value[1:]
    elif value[0].isdigit():
        name = "V" + re.sub(r"\W", "_", value)
    else:
        name = "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", value) if part)
    # `None` is a keyword in Python and reads as "unset" elsewhere: "no <last word of the enum>" instead.
    return "No" + re.findall(r"[A-Z][a-z0-9]*", enum)[-1] if name in _KEYWORDS else name


def _output_kind(annotation: Any) -> tuple[dict[str, Any], bool]:
    """An output's type from its Python annotation, and whether it is always set."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _output_kind(inner[0])[0], False
    if annotation is pulumi.Output or origin is pulumi.Output:
        return _output_kind(args[0] if args else Any)
    if origin is list:
        return {"type": "array", "items": _output_kind(args[0])[0]}, True
    if origin is dict:
        return {"type": "object", "additionalProperties": _output_kind(args[1])[0]}, True
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if annotation in simple:
        return {"type": simple[annotation]}, True
    if annotation is Any:
        return dict(ANY), True
    return {"type": "string"}, True  # a value object (a Taint) travels as its text


def resource_spec(builder: _Builder, hosted: Hosted) -> dict[str, Any]:
    """One component: its inputs from its args model, its outputs from its declaration."""
    schema = models_schema(hosted.args)
    builder.models.update(_models(hosted.args))
    builder.definitions = {f"#/$defs/{name}": spec for name, spec in schema.get("$defs", {}).items()}
    inputs, required_inputs = builder.properties(hosted.args, schema)
    outputs, required = {}, []
    for declared in declared_outputs(hosted.outputs):
        kind, always = _output_kind(declared.annotation)
        outputs[declared.spec.schema_name] = {"description": declared.spec.description, **kind,
                                              **({"secret": True} if declared.spec.secret else {})}
        if always:
            required.append(declared.spec.schema_name)
    return {"isComponent": True, "description": hosted.description, "type": "object", "inputProperties": inputs,
            "requiredInputs": required_inputs, "properties": outputs, "required": sorted(required)}


def package_schema(hosted: Mapping[str, Hosted] = HOSTED, version: str | None = None) -> dict[str, Any]:
    """The package schema of the hosted components (version left out unless given: the host adds its own)."""
    builder = _Builder()
    resources = {token(name): resource_spec(builder, spec) for name, spec in hosted.items()}
    languages = ("nodejs", "python", "csharp", "java", "go")
    return {
        "name": PACKAGE,
        **({"version": version} if version else {}),
        "displayName": PACKAGE,
        "description": "AKS with NVIDIA A10 vGPU node pools and Kubernetes DRA (the NVIDIA DRA driver), as components.",
        "language": {language: {"respectSchemaVersion": True} for language in languages},
        "resources": resources,
        "types": dict(sorted(builder.types.items())),
    }


def schema_text(hosted: Mapping[str, Hosted] = HOSTED) -> str:
    """The committed schema file's text (components/host/schema.json): stable, readable JSON."""
    return json.dumps(package_schema(hosted), indent=2, ensure_ascii=False) + "\n"
