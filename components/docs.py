"""Documentation generated from the code, so it cannot drift: the configuration reference, the sizing table, the README graph.

`python -m components docs` writes them (`--check` only reports what is out of date); the tests fail when a committed
copy differs from what the code generates now.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from .catalog import A10_SIZES, A10Size
from .claim_templates import claim_template_name, pair_template_name
from .config import PROJECT, SamplesConfig, StackConfig
from .selectors import SIZE_CLASSES, max_memory_mib, min_memory_mib

REGENERATE = "python -m components docs"
CONFIG_REFERENCE = Path("docs/configuration.md")
SIZING = Path("docs/sizing.md")
README = Path("README.md")
SIZING_BLOCK = "sizing-table"
GRAPH_BLOCK = "resource-graph-dev"
GRAPH_STACK = "dev"

_SCALARS = {str: "string", int: "integer", bool: "boolean", float: "number", Any: "any value"}


# --- configuration reference -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Section:
    """One model as it appears in a stack file: the key path it sits at and its fields."""

    path: str  # camelCase path as written in a stack file, e.g. ``gpuPools[].autoscaling``
    model: type[BaseModel]


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


def _strip(annotation: Any) -> tuple[Any, bool]:
    """(the annotation without Annotated/Optional, whether None is allowed)."""
    optional = False
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            optional = optional or len(args) < len(typing.get_args(annotation))
            # Values another resource produces (pulumi.Output) never come from a stack file.
            plain = [a for a in args if getattr(a, "__name__", "") != "Output"] or args
            annotation = plain[0] if len(plain) == 1 else Union[tuple(plain)]  # noqa: UP007 (built at run time)
            if len(plain) > 1:
                return annotation, optional
        else:
            return annotation, optional


def _nested(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """(the model a field holds, whether as a list of them)."""
    t, _ = _strip(annotation)
    if _is_model(t):
        return t, False
    if typing.get_origin(t) is list:
        item, _ = _strip(typing.get_args(t)[0])
        if _is_model(item):
            return item, True
    return None, False


def key_of(name: str, field: FieldInfo) -> str:
    """The key as a stack file writes it (the camelCase alias)."""
    return field.alias or name


def sections(model: type[BaseModel] = StackConfig, path: str = "") -> list[Section]:
    """Every model below `model` (depth-first, in field order), each at the key path a stack file writes it."""
    found: list[Section] = []
    for name, field in model.model_fields.items():
        inner, is_list = _nested(field.annotation)
        if inner is None:
            continue
        key = key_of(name, field)
        sub = f"{path}.{key}" if path else key
        sub += "[]" if is_list else ""
        found.append(Section(sub, inner))
        found.extend(sections(inner, sub))
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.lower()).replace(" ", "-")


def _heading(section: Section) -> str:
    """Top-level sections are named as the stack file's key (``aks-dra-vgpu:gpuPools``), nested ones by their path."""
    if "." not in section.path:
        return f"`{PROJECT}:{section.path.removesuffix('[]')}`"
    return f"`{section.path}`"


def type_text(annotation: Any, anchors: dict[type[BaseModel], str] | None = None) -> str:
    """A field's type in words (``list of string``, ``map of string to boolean``, ``object``), optionals marked."""
    anchors = anchors or {}
    t, optional = _strip(annotation)
    origin = typing.get_origin(t)
    if _is_model(t):
        text = f"object ([{t.__name__}](#{anchors[t]}))" if t in anchors else "object"
    elif origin is Literal:
        kinds = {type(v) for v in typing.get_args(t)}
        text = _SCALARS.get(kinds.pop(), "value") if len(kinds) == 1 else "value"
    elif origin is list:
        text = f"list of {type_text(typing.get_args(t)[0], anchors)}"
    elif origin is dict:
        key, value = typing.get_args(t)
        text = "map" if value is Any else f"map of {type_text(key, anchors)} to {type_text(value, anchors)}"
    elif origin in (Union, types.UnionType):
        text = " or ".join(type_text(a, anchors) for a in typing.get_args(t))
    else:
        text = _SCALARS.get(t, getattr(t, "__name__", str(t)))
    return f"{text} or null" if optional else text


def _literal_values(annotation: Any) -> list[Any]:
    t, _ = _strip(annotation)
    if typing.get_origin(t) is list:
        t, _ = _strip(typing.get_args(t)[0])
    return list(typing.get_args(t)) if typing.get_origin(t) is Literal else []


def allowed_text(field: FieldInfo) -> str:
    """Allowed values from the type (Literal choices) and the field's bounds (ge/le/min_length)."""
    parts = []
    values = _literal_values(field.annotation)
    if values:
        parts.append(", ".join(f"`{json.dumps(v)}`" for v in values))
    # pydantic keeps Field(ge=, le=, min_length=) as annotated-types markers, each with one such attribute.
    low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
    high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
    min_len = next((m.min_length for m in field.metadata if hasattr(m, "min_length")), None)
    if low is not None and high is not None:
        parts.append(f"{low} to {high}")
    elif low is not None:
        parts.append(f"at least {low}")
    elif high is not None:
        parts.append(f"at most {high}")
    if min_len:
        parts.append(f"at least {min_len} item{'s' if min_len > 1 else ''}")
    return "; ".join(parts) or "—"


def default_text(field: FieldInfo) -> str:
    """The default as a stack file would write it (JSON, which YAML reads), or *required*."""
    if field.is_required():
        return "**required**"
    value = field.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "its defaults"
    if value is None:
        return "unset"
    return f"`{json.dumps(value)}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def field_rows(section: Section, anchors: dict[type[BaseModel], str]) -> list[str]:
    """The Markdown table of one model's fields, keys written as full stack-file paths."""
    rows = ["| key | type | default | allowed | description |", "|---|---|---|---|---|"]
    for name, field in section.model.model_fields.items():
        key = f"{section.path}.{key_of(name, field)}" if section.path else f"{PROJECT}:{key_of(name, field)}"
        rows.append(
            f"| `{key}` | {_cell(type_text(field.annotation, anchors))} | {_cell(default_text(field))} "
            f"| {_cell(allowed_text(field))} | {_cell(field.description or '')} |"
        )
    return rows


def config_reference() -> str:
    """The configuration reference (Markdown): every stack-file key with its type, default, allowed values and meaning."""
    found = sections()
    anchors = {s.model: slug(_heading(s)) for s in found}
    lines = [
        f"<!-- Generated from components/config.py by `{REGENERATE}`; do not edit by hand. -->",
        "# Configuration reference",
        "",
        f"Stack settings live in `stacks/Pulumi.<stack>.yaml` under the project's namespace (`{PROJECT}:<key>`), with",
        "camelCase keys. Unknown keys are errors, and every problem in a stack is reported at once, each with its key.",
        "Python code builds the same models (named below) with snake_case attribute names.",
        "",
        f"The top-level keys ({StackConfig.__name__}):",
        "",
        *field_rows(Section("", StackConfig), anchors),
    ]
    for section in found:
        depth = section.path.count(".") + 2
        doc = inspect.cleandoc(section.model.__doc__ or "")
        lines += ["", f"{'#' * min(depth, 6)} {_heading(section)}", "", f"{doc} Python: `{section.model.__name__}`.", ""]
        lines += field_rows(section, anchors)
    return "\n".join(lines) + "\n"


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


def expected_files(project_dir: Path) -> dict[Path, str]:
    """What every generated file (or file with a generated block) should contain now, by path below `project_dir`."""
    root = Path(project_dir)
    sizing = (root / SIZING).read_text(encoding="utf-8")
    readme = (root / README).read_text(encoding="utf-8")
    return {
        CONFIG_REFERENCE: config_reference(),
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
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current != text:
            changed.append(path)
            if not check:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
    return changed
