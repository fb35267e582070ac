"""Documentation generated from the code, so it cannot drift: the configuration reference, the sizing table, the README graph.

`python -m components docs` writes them (`--check` only reports what is out of date); the tests fail when a committed
copy differs from what the code generates now.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import tempfile
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from .catalog import A10_SIZES, A10Size
from .config import PROJECT, SamplesConfig, StackConfig
from .dra_samples import claim_template_name, min_memory_mib

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
def admitted_sizes(template_gib: int, margin_percent: int) -> list[A10Size]:
    """The sizes whose devices a ``<class>-<N>gib`` claim template matches when they read at least (100 - margin) % of nominal."""
    need = min_memory_mib(template_gib, margin_percent)
    return [s for s in A10_SIZES.values() if min_memory_mib(s.gpu_memory_gib, margin_percent) >= need]


def sizing_table(margin_percent: int | None = None, device_class: str | None = None) -> str:
    """The NVadsA10_v5 sizes (Markdown table) with the claim template of each size and what that template admits."""
    defaults = SamplesConfig.model_fields
    margin = defaults["memory_margin_percent"].default if margin_percent is None else margin_percent
    klass = defaults["device_class_name"].default if device_class is None else device_class
    rows = [
        "| VM size | vCPU | RAM (GiB) | share of one A10 | GPU memory per device (GiB) | devices per node | vGPU profile "
        "| claim template | template needs (MiB) | template admits |",
        "|---|---:|---:|---:|---:|---:|---|---|---:|---|",
    ]
    for size in A10_SIZES.values():
        template = claim_template_name(klass, size.gpu_memory_gib)
        admits = ", ".join(s.short_name for s in admitted_sizes(size.gpu_memory_gib, margin))
        rows.append(
            f"| `{size.vm_size}` | {size.vcpus} | {size.ram_gib} | {size.gpu_share} | {size.gpu_memory_gib} "
            f"| {size.devices_per_node} | {size.vgpu_profile} | `{template}` "
            f"| {min_memory_mib(size.gpu_memory_gib, margin)} | {admits} |"
        )
    return "\n".join(rows) + "\n"


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
    return {
        CONFIG_REFERENCE: config_reference(),
        SIZING: replace_block(sizing, SIZING_BLOCK, sizing_table(), str(SIZING)),
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
