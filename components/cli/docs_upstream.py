"""Generated parts of docs/upgrading.md and docs/sizing.md about keeping up with upstream: AKS's Kubernetes versions,
the worked example of the driver upgrade to 0.5.0 and of sharing a slice by memory, and the sizing example of packing
workloads onto shared slices. Written by `python -m components docs` with the other generated blocks (`cli.docs`)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from ..catalog import DRIVER_CHARTS
from ..catalog.kubernetes_versions import AKS_MINORS, AKS_VERSIONS_AS_OF, AKS_VERSIONS_SOURCE, WARN_DAYS_BEFORE_END

UPGRADING = Path("docs/upgrading.md")
VERSIONS_BLOCK = "aks-kubernetes-versions"
DRIVER_UPGRADE_BLOCK = "driver-upgrade-example"
SHARED_SIZING_BLOCK = "sizing-shared-example"
UPGRADE_STACK = "prod"
SHARED_EXAMPLE = ("infer=5x4", "embed=2x6", "rerank=3x2")
"""The sizing example of docs/sizing.md for slices shared by memory."""


def aks_versions_table() -> str:
    """The Kubernetes minors AKS offers (components/catalog/kubernetes_versions.py), as a Markdown table."""
    status = {"preview": "preview (no SLA)", "ga": "GA", "lts-only": "LTS only (Premium tier)"}
    rows = ["| minor | on AKS | GA on AKS | end of standard support | end of LTS | newest known patch | unverified |",
            "|---|---|---|---|---|---|---|"]

    def month(day: date | None) -> str:
        return day.strftime("%Y-%m") if day else "-"

    for m in AKS_MINORS.values():
        patch = f"{m.text}.{m.newest_patch}" if m.newest_patch is not None else "-"
        lts_end = month(m.end_of_lts) if m.lts else "no LTS"
        rows.append(f"| {m.text} | {status[m.status]} | {m.ga or '-'} | {month(m.end_of_standard_support)} | {lts_end} "
                    f"| {patch} | {m.unverified or '-'} |")
    return "\n".join(rows) + (
        f"\n\nAs of {AKS_VERSIONS_AS_OF.isoformat()}; sources: {AKS_VERSIONS_SOURCE}. Every minor from 1.27 on can run "
        "with Long-Term Support (Premium tier, `supportPlan: AKSLongTermSupport`). The calendar gives months; the checks "
        f"take a month's last day. `plan` warns {WARN_DAYS_BEFORE_END} days before a minor's end of standard support and "
        "after it, judged on the day `plan` runs. What the table alone says (the minors offered, preview, LTS only, the "
        f"newest patch) is true as of {AKS_VERSIONS_AS_OF.isoformat()}: refusals name that date, and after it the preview "
        "and LTS-only warnings do too; a newer package knows more.\n"
    )


def _paths(values: Any, prefix: str = "") -> dict[str, Any]:
    """A values tree flattened to dotted paths (lists and scalars are leaves, as Helm merges them)."""
    if not isinstance(values, dict):
        return {prefix: values}
    found: dict[str, Any] = {}
    for key, value in values.items():
        found.update(_paths(value, f"{prefix}.{key}" if prefix else key))
    return found


def _values_change(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """One line per value path the change adds, changes or removes."""
    old, new = _paths(before), _paths(after)
    lines = []
    for path in sorted(set(old) | set(new)):
        if path not in old:
            lines.append(f"+ {path}: {json.dumps(new[path])}")
        elif path not in new:
            lines.append(f"- {path}: {json.dumps(old[path])}")
        elif old[path] != new[path]:
            lines.append(f"~ {path}: {json.dumps(old[path])} -> {json.dumps(new[path])}")
    return lines


def driver_upgrade_example(project_dir: Path) -> str:
    """The prod stack moved to chart 0.5.0, then one pool shared by memory: what changes in the driver's values, the
    upgrade verdicts, and the memory claim templates the samples add."""
    from ..config import stack_config_from_mapping
    from ..kubernetes.chart_upgrades import chart_transition
    from ..kubernetes.dra_driver import driver_values, release_chart
    from ..kubernetes.dra_samples import claim_settings
    from ..kubernetes.memory_claims import memory_template_name
    from ..offline import load_project, read_stack_config

    project = load_project(project_dir)
    raw, _ = read_stack_config(project, UPGRADE_STACK)
    stack = stack_config_from_mapping(raw, project.name)
    before = driver_values(stack.dra_driver, stack.gpu_pools)
    moved = stack.dra_driver.model_copy(update={"chart_version": "0.5.0"})
    step1 = driver_values(moved, stack.gpu_pools)
    shared_pool = stack.gpu_pools[0]
    pools = [shared_pool.model_copy(update={"sharing": "memory"}), *stack.gpu_pools[1:]]
    step2 = driver_values(moved, pools)

    def verdict(old: str, new: str) -> str:
        t = chart_transition(release_chart(DRIVER_CHARTS[old])[0], old, release_chart(DRIVER_CHARTS[new])[0], new)
        return f"- {old} → {new}: **{'in place' if t.allowed else 'refused'}**: {t.reason}."

    settings = claim_settings(stack.samples, pools)
    names = [memory_template_name(settings.device_class_name, m) for m in settings.memory_requests_gib]
    out = [
        f"Step 1, the `{UPGRADE_STACK}` stack from chart {stack.dra_driver.chart_version} to 0.5.0 "
        "(`draDriver.chartVersion: 0.5.0`); the driver's Helm values change like this:", "", "```diff",
        *_values_change(before, step1), "```", "",
        "The verdicts `diff` prints for the Release (`components/kubernetes/chart_upgrades.py`):", "",
        verdict(stack.dra_driver.chart_version, "0.5.0"), verdict("25.8.1", "0.5.0"),
        verdict("0.5.0", stack.dra_driver.chart_version), "",
        f"Step 2, after `cluster.kubernetesVersion` has reached 1.36 one minor at a time: pool `{shared_pool.name}` "
        "shares its slices (`sharing: memory`); the values change like this:", "", "```diff",
        *_values_change(step1, step2), "```", "",
        f"and the samples add the memory claim templates {', '.join(f'`{n}`' for n in names) or 'none'} "
        f"(slices of {', '.join(f'{s} GB' for s in settings.memory_sizes)}, smallest first).", "",
    ]
    return "\n".join(out)


def shared_sizing_example() -> str:
    """The sizing example for shared slices: the command, then the packing it prints."""
    from ..config import SamplesConfig
    from ..sizing.command import parse_workload
    from ..sizing.packing import pack_shared, to_markdown
    from ..sizing.prices import load_prices

    prices = load_prices()
    plan = pack_shared([parse_workload(w) for w in SHARED_EXAMPLE], SamplesConfig().memory_margin_percent, prices)
    command = ("python -m components size " + " ".join(f"--workload {w}" for w in SHARED_EXAMPLE)
               + " --sharing memory --format markdown")
    return f"```bash\n{command}\n```\n\nprints, after the one-slice-per-replica plan:\n\n" + to_markdown(
        plan, prices.currency, heading="####")
