"""The configuration reference (docs/configuration.md) and the stack file's JSON Schema (docs/stack.schema.json),
both rendered from the models' JSON schema (components.config.schema) with no per-field code."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from . import PROJECT, StackConfig
from .schema import models_schema, stack_file_schema

REGENERATE = "python -m components docs"
STACK_SCHEMA = Path("docs/stack.schema.json")


# --- configuration reference -----------------------------------------------------------------------------------------------
# Rendered from pydantic's JSON schema of the models (components.config.schema), so the reference says what the published
# docs/stack.schema.json says: one table per model ($defs), with its types, enums, bounds, defaults and descriptions.
_WORDS = {"array": "list"}  # JSON Schema type names as the tables say them; the others read as they are
_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null", list: "list", dict: "object"}


@dataclass(frozen=True)
class Section:
    """One model as it appears in a stack file: the key path it sits at, its name in the schema's $defs, its schema."""

    path: str  # camelCase path as written in a stack file, e.g. ``gpuPools[].autoscaling``
    name: str
    schema: dict[str, Any]


def _ref_name(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref", "")
    return ref.rsplit("/", 1)[-1] if ref.startswith("#/$defs/") else None


def _models_at(node: Any, path: str) -> list[tuple[str, str]]:
    """(key path, model name) for every model a property's schema holds: itself, in a list, in a map, or as an option."""
    if not isinstance(node, dict):
        return []
    name = _ref_name(node)
    if name:
        return [(path, name)]
    found = [m for sub in node.get("anyOf", []) + node.get("oneOf", []) for m in _models_at(sub, path)]
    found += _models_at(node.get("items"), path + "[]")
    found += _models_at(node.get("additionalProperties"), path + ".<key>")
    return found


def sections(schema: dict[str, Any], path: str = "", node: dict[str, Any] | None = None,
             above: tuple[str, ...] = ()) -> list[Section]:
    """Every model below the schema's root (depth-first, in field order), each at the key path a stack file writes it."""
    node = schema if node is None else node
    defs = schema.get("$defs", {})
    found: list[Section] = []
    for key, prop in node.get("properties", {}).items():
        for where, name in _models_at(prop, f"{path}.{key}" if path else key):
            if name in above:
                continue  # a model that holds itself has its table once, where it first appears
            found.append(Section(where, name, defs[name]))
            found.extend(sections(schema, where, defs[name], (*above, name)))
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.lower()).replace(" ", "-")


def _heading(path: str) -> str:
    """Top-level sections are named as the stack file's key (``aks-dra-vgpu:gpuPools``), nested ones by their path."""
    if "." not in path:
        return f"`{PROJECT}:{path.removesuffix('[]')}`"
    return f"`{path}`"


def _options(node: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """(the alternatives a schema allows, other than null; whether null is one of them)."""
    branches = node.get("anyOf") or node.get("oneOf")
    if not branches:
        return [node], node.get("type") == "null"
    plain = [b for b in branches if b.get("type") != "null"]
    return plain, len(plain) < len(branches)


def _values_type(values: list[Any]) -> str:
    kinds = list(dict.fromkeys(_JSON_TYPES.get(type(v), "value") for v in values))
    return " or ".join(kinds) if kinds else "any value"


def type_text(node: dict[str, Any], anchors: dict[str, str] | None = None) -> str:
    """A schema's type in words (``list of string``, ``map of string to boolean``, ``object``), null marked."""
    anchors = anchors or {}
    options, nullable = _options(node)
    texts = list(dict.fromkeys(_one_type(o, anchors) for o in options))
    text = " or ".join(texts) if texts != ["null"] else "null"
    return f"{text} or null" if nullable and text != "null" else text


def _one_type(node: dict[str, Any], anchors: dict[str, str]) -> str:
    name = _ref_name(node)
    if name:
        return f"object ([{name}](#{anchors[name]}))" if name in anchors else "object"
    if "anyOf" in node or "oneOf" in node:
        return type_text(node, anchors)
    kind = node.get("type")
    if kind == "array":
        return f"list of {type_text(node['items'], anchors)}" if isinstance(node.get("items"), dict) else "list"
    if kind == "object" and "properties" not in node:
        value = node.get("additionalProperties", True)
        return f"map of string to {type_text(value, anchors)}" if isinstance(value, dict) and value else "map"
    if isinstance(kind, str):
        return _WORDS.get(kind, kind)
    if isinstance(kind, list):
        return " or ".join(_WORDS.get(k, k) for k in kind)
    if "const" in node:
        return _values_type([node["const"]])
    if "enum" in node:
        return _values_type(node["enum"])
    return "any value"


def _code(values: list[Any]) -> str:
    return ", ".join(f"`{json.dumps(v)}`" for v in values)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _range(low: Any, high: Any, unit: str = "") -> str | None:
    suffix = f" {unit}" if unit else ""
    if low is not None and low == high:
        return f"exactly {low}{suffix}"
    if low is not None and high is not None:
        return f"{low} to {high}{suffix}"
    if low is not None:
        return f"at least {low}{suffix}"
    return f"at most {high}{suffix}" if high is not None else None


def allowed_text(node: dict[str, Any]) -> str:
    """What a schema allows beyond its type: choices, bounds, lengths, patterns, keys (for lists, of their items)."""
    parts: list[str] = []
    options, _ = _options(node)
    for option in options:
        parts += _allowed(option)
        if option.get("type") == "array" and isinstance(option.get("items"), dict):
            parts += [p for o in _options(option["items"])[0] for p in _allowed(o)]
    return "; ".join(dict.fromkeys(parts)) or "—"


def _allowed(node: dict[str, Any]) -> list[str]:
    parts = []
    if "enum" in node:
        parts.append(_code(node["enum"]))
    if "const" in node:
        parts.append(_code([node["const"]]))
    bounds = [
        _range(node.get("minimum"), node.get("maximum")),
        f"more than {node['exclusiveMinimum']}" if "exclusiveMinimum" in node else None,
        f"less than {node['exclusiveMaximum']}" if "exclusiveMaximum" in node else None,
        _range(node.get("minLength"), node.get("maxLength"), "characters"),
    ]
    parts += [b for b in bounds if b]
    if "minItems" in node or "maxItems" in node:
        low, high = node.get("minItems"), node.get("maxItems")
        parts.append(f"at least {_plural(low, 'item')}" if high is None else _range(low or 0, high, "items") or "")
    if "pattern" in node:
        parts.append(f"matching `{node['pattern']}`")
    if isinstance(node.get("not"), dict) and "enum" in node["not"]:
        parts.append(f"not {_code(node['not']['enum'])}")
    names = node.get("propertyNames")
    if isinstance(names, dict) and "enum" in names:
        parts.append(f"keys: {_code(names['enum'])}")
    return parts


def default_text(key: str, node: dict[str, Any], required: list[str]) -> str:
    """The default as a stack file would write it (JSON, which YAML reads), or *required*."""
    if key in required:
        return "**required**"
    if "default" not in node:
        return "—"
    value = node["default"]
    if value is None:
        return "unset"
    if isinstance(value, dict) and any(_ref_name(o) for o in _options(node)[0]):
        return "its defaults"
    return f"`{json.dumps(value)}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def field_rows(path: str, schema: dict[str, Any], anchors: dict[str, str]) -> list[str]:
    """The Markdown table of one model's properties, keys written as full stack-file paths."""
    rows = ["| key | type | default | allowed | description |", "|---|---|---|---|---|"]
    required = schema.get("required", [])
    for key, prop in schema.get("properties", {}).items():
        full = f"{path}.{key}" if path else f"{PROJECT}:{key}"
        rows.append(
            f"| `{full}` | {_cell(type_text(prop, anchors))} | {_cell(default_text(key, prop, required))} "
            f"| {_cell(allowed_text(prop))} | {_cell(prop.get('description', ''))} |"
        )
    return rows


def config_reference(model: type[BaseModel] = StackConfig) -> str:
    """The configuration reference (Markdown): every stack-file key with its type, default, allowed values and meaning."""
    schema = models_schema(model)
    found = sections(schema)
    anchors: dict[str, str] = {}
    for section in found:
        anchors.setdefault(section.name, slug(_heading(section.path)))
    lines = [
        f"<!-- Generated from the JSON schema of components/config/ by `{REGENERATE}`; do not edit by hand. -->",
        "# Configuration reference",
        "",
        f"Stack settings live in `stacks/Pulumi.<stack>.yaml` under the project's namespace (`{PROJECT}:<key>`), with",
        "camelCase keys. Unknown keys are errors, and every problem in a stack is reported at once, each with its key.",
        "Python code builds the same models (named below) with snake_case attribute names. The same rules, as a JSON",
        f"Schema that editors check stacks against while you type: [{STACK_SCHEMA.name}]({STACK_SCHEMA.name}).",
        "",
        f"The top-level keys ({schema.get('title', model.__name__)}):",
        "",
        *field_rows("", schema, anchors),
    ]
    lines += _section_tables(found, anchors)
    if model is StackConfig:
        lines += _fleet_stack_reference()
    return "\n".join(lines) + "\n"


def _section_tables(found: list[Section], anchors: dict[str, str]) -> list[str]:
    lines: list[str] = []
    for section in found:
        depth = section.path.count(".") + 2
        doc = " ".join(section.schema.get("description", "").split())
        lines += ["", f"{'#' * min(depth, 6)} {_heading(section.path)}", "", f"{doc} Python: `{section.name}`.", ""]
        lines += field_rows(section.path, section.schema, anchors)
    return lines


def _fleet_stack_reference() -> list[str]:
    """The keys of a fleet stack (docs/fleet.md): a stack file with the `fleet` section instead of a platform."""
    from .fleet import FleetStackConfig

    schema = models_schema(FleetStackConfig)
    found = sections(schema)
    anchors = {section.name: slug(_heading(section.path)) for section in found}
    return [
        "",
        "## Fleet stacks",
        "",
        f"A fleet stack (docs/fleet.md) sets `{PROJECT}:fleet` and no platform section; its member stacks join it with",
        f"`{PROJECT}:fleetMembership`. The top-level key ({schema.get('title', 'FleetStackConfig')}):",
        "",
        *field_rows("", schema, anchors),
        *_section_tables(found, anchors),
    ]


def stack_schema() -> str:
    """docs/stack.schema.json: the JSON Schema of a whole stack file, as stable, readable JSON."""
    return json.dumps(stack_file_schema(), indent=2, ensure_ascii=False) + "\n"
