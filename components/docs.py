"""Documentation generated from the code, so it cannot drift: the configuration reference and the stack file's JSON Schema,
the sizing table, the README graph.

`python -m components docs` writes them (`--check` only reports what is out of date); the tests fail when a committed
copy differs from what the code generates now.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .catalog import A10_SIZES, A10Size
from .claim_templates import claim_template_name, pair_template_name
from .config import PROJECT, SamplesConfig, StackConfig
from .config.schema import models_schema, stack_file_schema
from .selectors import SIZE_CLASSES, max_memory_mib, min_memory_mib

REGENERATE = "python -m components docs"
CONFIG_REFERENCE = Path("docs/configuration.md")
STACK_SCHEMA = Path("docs/stack.schema.json")
SIZING = Path("docs/sizing.md")
SAFE_CHANGES = Path("docs/safe-changes.md")
RULES_BLOCK = "diff-rules"
README = Path("README.md")
SIZING_BLOCK = "sizing-table"
GRAPH_BLOCK = "resource-graph-dev"
GRAPH_STACK = "dev"

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
    for section in found:
        depth = section.path.count(".") + 2
        doc = " ".join(section.schema.get("description", "").split())
        lines += ["", f"{'#' * min(depth, 6)} {_heading(section.path)}", "", f"{doc} Python: `{section.name}`.", ""]
        lines += field_rows(section.path, section.schema, anchors)
    return "\n".join(lines) + "\n"


def stack_schema() -> str:
    """docs/stack.schema.json: the JSON Schema of a whole stack file, as stable, readable JSON."""
    return json.dumps(stack_file_schema(), indent=2, ensure_ascii=False) + "\n"


# --- sizing ------------------------------------------------------------------------------------------------------------------
SIZING_EXAMPLE_BLOCK = "sizing-example"
SIZING_EXAMPLE = ("embed=3x6", "chat=6x3", "asr=10x2", "finetune=20")
"""The worked example of docs/sizing.md: `python -m components size` with these workloads and the packaged prices."""


def admitted_sizes(template_gib: int, margin_percent: int) -> list[A10Size]:
    """The sizes a ``<class>-<N>gib`` template's first choice takes: those whose devices, reading anywhere from nominal
    down to (100 - margin) % of it, stay inside the template's memory band."""
    low, high = min_memory_mib(template_gib, margin_percent), max_memory_mib(template_gib, margin_percent)
    return [
        s for s in A10_SIZES.values()
        if low <= min_memory_mib(s.gpu_memory_gib, margin_percent) and s.gpu_memory_gib * 1024 < high
    ]


def sizing_table(margin_percent: int | None = None, device_class: str | None = None) -> str:
    """The NVadsA10_v5 sizes (Markdown table) with each size's claim template, its memory band, what its first choice
    takes and what a best-fit template tries next."""
    defaults = SamplesConfig.model_fields
    margin = defaults["memory_margin_percent"].default if margin_percent is None else margin_percent
    klass = defaults["device_class_name"].default if device_class is None else device_class
    rows = [
        "| VM size | vCPU | RAM (GiB) | share of one A10 | GPU memory per device (GiB) | devices per node | vGPU profile "
        "| claim template | template band (MiB) | first choice takes | bestFit then tries |",
        "|---|---:|---:|---:|---:|---:|---|---|---|---|---|",
    ]
    for size in A10_SIZES.values():
        gib = size.gpu_memory_gib
        template = f"`{claim_template_name(klass, gib)}`"
        if size.devices_per_node == 2:
            template += f", `{pair_template_name(klass)}` (both devices)"
        takes = ", ".join(s.short_name for s in admitted_sizes(gib, margin))
        larger = [f"{s} GiB" for s in SIZE_CLASSES if s > gib]
        rows.append(
            f"| `{size.vm_size}` | {size.vcpus} | {size.ram_gib} | {size.gpu_share} | {gib} "
            f"| {size.devices_per_node} | {size.vgpu_profile} | {template} "
            f"| {min_memory_mib(gib, margin)} to {max_memory_mib(gib, margin) - 1} | {takes} "
            f"| {', '.join(larger) or '-'} |"
        )
    return "\n".join(rows) + "\n"


def sizing_example() -> str:
    """The worked example: the command line, then what it prints with `--format markdown` (headings one level down)."""
    from .prices import load_prices
    from .size_command import parse_workload
    from .sizing import plan_sizing
    from .sizing_report import to_markdown

    plan = plan_sizing([parse_workload(w) for w in SIZING_EXAMPLE], load_prices())
    command = "python -m components size " + " ".join(f"--workload {w}" for w in SIZING_EXAMPLE) + " --format markdown"
    right, whole = plan.costs["plan"], plan.costs["wholeA10PerWorkload"]
    summary = (
        f"In short: right-sized, these workloads cost {right.hourly / whole.hourly:.0%} of one whole A10 per replica "
        f"({right.hourly:.2f} against {whole.hourly:.2f} {plan.prices.currency} an hour) and use "
        f"{right.utilisation:.0%} of the GPU memory they pay for, against {whole.utilisation:.0%}.\n"
    )
    return f"```bash\n{command}\n```\n\n" + to_markdown(plan, heading_level=3) + "\n" + summary


# --- generated blocks inside hand-written files ------------------------------------------------------------------------------
class DocsError(ValueError):
    """A documentation file that cannot be regenerated (e.g. its generated block's markers are missing)."""


def markers(name: str) -> tuple[str, str]:
    """The comment lines that enclose a generated block."""
    return f"<!-- BEGIN GENERATED {name}: {REGENERATE} -->", f"<!-- END GENERATED {name} -->"


def replace_block(text: str, name: str, content: str, source: str = "") -> str:
    """`text` with the block between `name`'s markers replaced by `content`; DocsError when the markers are missing."""
    begin, end = markers(name)
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start or text.count(begin) != 1:
        raise DocsError(f"{source or 'text'}: needs one generated block '{name}' ({begin} ... {end})")
    return text[: start + len(begin)] + "\n" + content + text[stop:]


def read_block(text: str, name: str) -> str | None:
    """The content between `name`'s markers, or None when they are missing."""
    begin, end = markers(name)
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        return None
    return text[start + len(begin) + 1 : stop]


def mermaid_block(diagram: str) -> str:
    """A Mermaid diagram as a fenced Markdown block."""
    return f"```mermaid\n{diagram}```\n"


def resource_graph(project_dir: Path, stack: str = GRAPH_STACK) -> str:
    """The Mermaid graph of a stack's offline plan."""
    from .offline import load_project, run_project
    from .offline.mermaid import to_mermaid

    return to_mermaid(run_project(load_project(project_dir), stack, preview=True))


def _read(root: Path, path: Path) -> str:
    """A documentation file's text; DocsError (one line) when it is missing, not a file, not UTF-8 or a link."""
    target = root / path
    if target.is_symlink():
        raise DocsError(f"{path}: a symbolic link; docs reads and writes only the repository's own files")
    if not target.is_file():
        raise DocsError(f"{path}: no such file in {root} (docs runs in the repository's folder: --project-dir)")
    try:
        return target.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocsError(f"{path}: not UTF-8 text (byte at offset {exc.start})") from None
    except OSError as exc:
        raise DocsError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def expected_files(project_dir: Path) -> dict[Path, str]:
    """What every generated file (or file with a generated block) should contain now, by path below `project_dir`."""
    root = Path(project_dir)
    if not root.is_dir():
        raise DocsError(f"--project-dir {root}: not a folder")
    sizing = _read(root, SIZING)
    readme = _read(root, README)
    from .offline.replacement_rules import rules_table

    safe_changes = _read(root, SAFE_CHANGES)
    return {
        SAFE_CHANGES: replace_block(safe_changes, RULES_BLOCK, rules_table(), str(SAFE_CHANGES)),
        CONFIG_REFERENCE: config_reference(),
        STACK_SCHEMA: stack_schema(),
        SIZING: replace_block(
            replace_block(sizing, SIZING_BLOCK, sizing_table(), str(SIZING)), SIZING_EXAMPLE_BLOCK, sizing_example(),
            str(SIZING),
        ),
        README: replace_block(readme, GRAPH_BLOCK, mermaid_block(resource_graph(root)), str(README)),
    }


def sync_docs(project_dir: Path, check: bool = False) -> list[Path]:
    """Writes the generated documentation (unless `check`); returns the files that were (or would be) changed."""
    root = Path(project_dir)
    changed = []
    for path, text in expected_files(root).items():
        target = root / path
        current = _read(root, path) if target.exists() or target.is_symlink() else None
        if current != text:
            changed.append(path)
            if not check:
                _write(target, text)
    return changed


def _write(target: Path, text: str) -> None:
    """Replaces the file in one step (a new file renamed over the old): an interrupted run never leaves half a README."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, target.stat().st_mode & 0o777 if target.exists() else 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
