"""Documentation generated from the code, so it cannot drift: the configuration reference and the stack file's JSON Schema,
the plugin's package schema, the sizing table, the README graph, the critical-path figures (`docs_figures`).

`python -m components docs` writes them (`--check` only reports what is out of date); the tests fail when a committed
copy differs from what the code generates now.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..catalog import A10_SIZES, A10Size
from ..config import SamplesConfig
from ..config.reference import REGENERATE, STACK_SCHEMA, config_reference, stack_schema
from ..host.contract import schema_text as plugin_schema
from ..kubernetes.claim_templates import claim_template_name, pair_template_name
from ..kubernetes.selectors import SIZE_CLASSES, max_memory_mib, min_memory_mib
from .docs_figures import CRITICAL_PATH_BLOCK, STACKS_BLOCK, StackPlans, critical_path_table, stacks_table

CONFIG_REFERENCE = Path("docs/configuration.md")
PLUGIN_SCHEMA = Path("components/host/schema.json")
SIZING = Path("docs/sizing.md")
SAFE_CHANGES = Path("docs/safe-changes.md")
DASHBOARD = Path("docs/grafana/gpu-dashboard.json")
RULES_BLOCK = "diff-rules"
README = Path("README.md")
PERFORMANCE = Path("docs/performance.md")
SIZING_BLOCK = "sizing-table"
GRAPH_BLOCK = "resource-graph-dev"
GRAPH_STACK = "dev"

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
    from ..sizing.command import parse_workload
    from ..sizing.planner import plan_sizing
    from ..sizing.prices import load_prices
    from ..sizing.report import to_markdown

    plan = plan_sizing([parse_workload(w) for w in SIZING_EXAMPLE], load_prices(), compare_families=True)  # as `size`
    command = "python -m components size " + " ".join(f"--workload {w}" for w in SIZING_EXAMPLE) + " --format markdown"
    right, whole = plan.costs["plan"], plan.costs["wholeA10PerWorkload"]
    summary = (
        f"In short: right-sized, these workloads cost {right.hourly / whole.hourly:.0%} of one whole A10 per replica "
        f"({right.hourly:.2f} against {whole.hourly:.2f} {plan.prices.currency} an hour) and use "
        f"{right.utilisation:.0%} of the GPU memory they pay for, against {whole.utilisation:.0%}.\n"
    )
    return f"```bash\n{command}\n```\n\n" + to_markdown(plan, heading_level=3) + "\n" + summary


SIZING_STACK_BLOCK = "sizing-stack-example"
SIZING_STACK = ("prod", ("--workload", "inference=7x6"), ("--slice", "training=24x2"))
"""The second worked example: a stack's pools checked, with a workload asked for by slice."""


def sizing_stack_example(project_dir: Path) -> str:
    """The stack example: `size --stack prod` with a slice, and what it prints (the prod pools kept as written)."""
    from ..sizing.command import parse_slice, parse_workload
    from ..sizing.planner import plan_sizing
    from ..sizing.prices import prices_for
    from ..sizing.report import to_markdown
    from ..sizing.stack_file import read_stack_file

    stack_name, *asks = SIZING_STACK
    parse = {"--workload": parse_workload, "--slice": parse_slice}
    stack, written = read_stack_file(str(project_dir), stack_name)
    prices, _ = prices_for(stack.cluster.location)
    plan = plan_sizing([parse[flag](text) for flag, text in asks], prices, stack, written_pools=written)
    command = ("python -m components size " + " ".join(f"{flag} {text}" for flag, text in asks)
               + f" --stack {stack_name} --format markdown")
    return f"```bash\n{command}\n```\n\n" + to_markdown(plan, heading_level=3)


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


def resource_graph(project_dir: Path, stack: str = GRAPH_STACK, stack_plans: StackPlans | None = None) -> str:
    """The Mermaid graph of a stack's offline plan (`stack_plans`: plans already made for `project_dir`)."""
    from ..review.mermaid import to_mermaid

    return to_mermaid((stack_plans or StackPlans(project_dir))(stack))


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


def generated_files() -> dict[Path, str]:
    """The files docs writes whole (every other generated text is a block inside a hand-written file)."""
    from ..observability.dashboard import dashboard_json

    return {DASHBOARD: dashboard_json(), CONFIG_REFERENCE: config_reference(), STACK_SCHEMA: stack_schema(),
            PLUGIN_SCHEMA: plugin_schema()}


def expected_files(project_dir: Path) -> dict[Path, str]:
    """What every generated file (or file with a generated block) should contain now, by path below `project_dir`."""
    root = Path(project_dir)
    if not root.is_dir():
        raise DocsError(f"--project-dir {root}: not a folder")
    sizing = _read(root, SIZING)
    readme = _read(root, README)
    from ..review.replacement_rules import rules_table

    safe_changes = _read(root, SAFE_CHANGES)
    performance = _read(root, PERFORMANCE)
    plans = StackPlans(root)  # dev's and prod's plans, each made once for the three blocks that quote them
    critical = critical_path_table(root, plans)
    from .docs_upstream import (
        DRIVER_UPGRADE_BLOCK,
        SHARED_SIZING_BLOCK,
        UPGRADING,
        VERSIONS_BLOCK,
        aks_versions_table,
        driver_upgrade_example,
        shared_sizing_example,
    )

    upgrading = _read(root, UPGRADING)

    return {
        **generated_files(),
        SAFE_CHANGES: replace_block(safe_changes, RULES_BLOCK, rules_table(), str(SAFE_CHANGES)),
        SIZING: replace_block(
            replace_block(
                replace_block(
                    replace_block(sizing, SIZING_BLOCK, sizing_table(), str(SIZING)), SIZING_EXAMPLE_BLOCK,
                    sizing_example(), str(SIZING),
                ),
                SIZING_STACK_BLOCK, sizing_stack_example(root), str(SIZING),
            ),
            SHARED_SIZING_BLOCK, shared_sizing_example(), str(SIZING),
        ),
        UPGRADING: replace_block(
            replace_block(upgrading, VERSIONS_BLOCK, aks_versions_table(), str(UPGRADING)),
            DRIVER_UPGRADE_BLOCK, driver_upgrade_example(root), str(UPGRADING),
        ),
        README: replace_block(
            replace_block(
                replace_block(readme, GRAPH_BLOCK, mermaid_block(resource_graph(root, stack_plans=plans)), str(README)),
                CRITICAL_PATH_BLOCK, critical, str(README),
            ),
            STACKS_BLOCK, stacks_table(root, plans), str(README),
        ),
        PERFORMANCE: replace_block(performance, CRITICAL_PATH_BLOCK, critical, str(PERFORMANCE)),
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
