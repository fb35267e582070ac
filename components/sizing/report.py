"""A sizing plan for machines (JSON), for people (text) and for pull-request comments (Markdown)."""

from __future__ import annotations

import json
from typing import Any

import yaml

from ..catalog import A10_SIZES
from ..config import PROJECT
from ..kubernetes.selectors import usable_memory_gib
from ..kubernetes.slice_kinds import Slice, pool_slice
from ..kubernetes.slice_kinds import usable_memory_gib as slice_usable_gib
from . import family_report, regions, shared_report
from .cost_text import COST_ORDER, cost_dict, distinct_costs, line_cell, money_cell, rounded
from .model import CostLine, Placement, PoolPlan
from .plan import SizingPlan
from .planner import usable_sizes
from .tables import md_table, text_table


def _kind(vm_size: str, aks_profile: str | None) -> Slice:
    return pool_slice(vm_size, aks_profile)


def _usable_gib(plan: SizingPlan, p: Placement) -> float | None:
    if p.size_class is None or p.vm_size is None:
        return None
    if p.aks_profile is not None:
        return slice_usable_gib(_kind(p.vm_size, p.aks_profile), plan.margin_percent)
    return usable_memory_gib(p.size_class, plan.margin_percent)


def _usable(plan: SizingPlan, p: Placement) -> float | None:
    usable = _usable_gib(plan, p)
    return None if usable is None else round(usable, 2)


def _family_keys(vm_size: str | None, aks_profile: str | None) -> dict[str, Any]:
    """The keys a MIG slice adds to a workload or pool of the JSON document (null for an A10 slice)."""
    kind = _kind(vm_size, aks_profile) if vm_size and aks_profile else None
    return {"family": None if vm_size is None else "mig" if kind else "a10", "gpuInstanceProfile": aks_profile,
            "migProfile": kind.profile if kind else None, "gpuModel": kind.gpu_model if kind else None}


def _pool_names(plan: SizingPlan, indexes: tuple[int, ...]) -> list[str]:
    return [plan.pool_names[i] for i in indexes]


def to_dict(plan: SizingPlan) -> dict[str, Any]:
    """The JSON document of `size --json`: workloads, pools, cost, problems, and the gpuPools that would fit."""
    prices = plan.prices
    return {
        "marginPercent": plan.margin_percent,
        "deviceClassName": plan.device_class,
        "usableGiB": {str(k): round(v, 2) for k, v in usable_sizes(plan.margin_percent).items()},
        "workloads": [
            {
                "name": p.workload.name,
                "memoryGiB": p.workload.stated_gib,  # as written: null when asked for by slice or by a name alone
                "slice": None if p.workload.slice_gib is None else p.workload.slice_gib * p.workload.devices,
                "extendedResource": p.workload.resource,
                "count": p.workload.count,
                "devices": p.workload.devices,
                "spot": p.workload.spot,
                "sizeClassGiB": p.size_class,
                "usableGiB": _usable(plan, p),
                "vmSize": p.vm_size,
                "claimTemplate": p.claim_template,
                "stackPools": _pool_names(plan, p.stack_pools),
                "tolerations": p.tolerations,
                **_family_keys(p.vm_size, p.aks_profile),
            }
            for p in plan.placements
        ],
        "notes": plan.notes,
        "pools": [
            {
                "vmSize": p.vm_size,
                "stackPools": _pool_names(plan, p.stack_pools),
                "workloads": list(p.workloads),
                "devices": p.devices,
                "nodes": p.nodes,
                "minCount": p.min_count,
                "maxCount": p.max_count,
                "hourly": rounded(_node_price(plan, p.vm_size, p.nodes)),
                **_family_keys(p.vm_size, p.aks_profile),
            }
            for p in plan.pools
        ],
        "cost": {
            "currency": prices.currency,
            "region": prices.region,
            "date": prices.date,
            "source": prices.source,
            "hoursPerMonth": prices.hours_per_month,
            **{key: cost_dict(plan.costs[key]) for key in COST_ORDER},
        },
        "problems": [f.to_dict() for f in plan.findings],
        "fits": plan.fits,
        "gpuPools": plan.gpu_pools,
        "gpuPoolsChanges": [c.to_dict() for c in plan.changes],
        **extra_keys(plan),
    }


def extra_keys(plan: SizingPlan) -> dict[str, Any]:
    """The keys only some runs have: the packing onto shared slices (`sharedByMemory`), other regions (`regions`)."""
    keys: dict[str, Any] = {}
    if plan.shared is not None:
        keys["sharedByMemory"] = shared_report.to_dict(plan.shared, plan.prices.currency, plan.prices.hours_per_month)
    if plan.regions is not None:
        keys["regions"] = regions.to_dict(plan.regions)
    if plan.families != ("a10",):
        keys["families"] = list(plan.families)
    if plan.compared:
        keys["familyComparison"] = family_report.to_dicts(plan.compared, plan.margin_percent)
    return keys


def to_json(plan: SizingPlan) -> str:
    """Deterministic JSON (keys sorted)."""
    return json.dumps(to_dict(plan), indent=2, sort_keys=True) + "\n"


def _node_price(plan: SizingPlan, vm_size: str, nodes: int) -> float | None:
    price = plan.prices.hourly(vm_size)
    return None if price is None else price * nodes


class _StackFileDumper(yaml.SafeDumper):
    """Indents list items under their key, as the stack files in stacks/ are written."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def snippet_yaml(plan: SizingPlan) -> str:
    """The gpuPools list as a stack file writes it (under `config:`)."""
    return yaml.dump({f"{PROJECT}:gpuPools": plan.gpu_pools}, Dumper=_StackFileDumper, sort_keys=False,
                     default_flow_style=False)


def _fmt_share(line: CostLine) -> str:
    u = line.utilisation
    return "n/a" if u is None else f"{u:.0%}"


def _tolerations_text(tolerations: list[dict[str, str]]) -> str:
    return ", ".join(f"{t['key']}={t['value']}:{t['effect']}" if "value" in t else f"{t['key']}:{t['effect']}"
                     for t in tolerations) or "-"


def _slice_text(plan: SizingPlan, p: Placement) -> str:
    if p.size_class is None or p.vm_size is None:
        return "none"
    two = "2 x " if p.workload.devices == 2 else ""
    if p.aks_profile is not None:
        return f"{two}{_kind(p.vm_size, p.aks_profile).label} ({_usable_gib(plan, p):.1f} GiB usable)"
    return f"{two}{p.size_class} GiB ({usable_memory_gib(p.size_class, plan.margin_percent):.1f} GiB usable)"


def _pool_cells(plan: SizingPlan, p: PoolPlan) -> list[str]:
    """VM size, GiB per device and usable GiB of a pool (a MIG pool's VM size names its profile and slice)."""
    kind = _kind(p.vm_size, p.aks_profile)
    vm = f"{p.vm_size} ({p.aks_profile}: {kind.profile})" if p.aks_profile else p.vm_size
    usable = slice_usable_gib(kind, plan.margin_percent) if p.aks_profile else usable_memory_gib(
        A10_SIZES[p.vm_size].gpu_memory_gib, plan.margin_percent)
    return [vm, str(kind.memory_gib), f"{usable:.1f}"]


def _pool_text(plan: SizingPlan, p: PoolPlan) -> str:
    return ", ".join(_pool_names(plan, p.stack_pools)) or "new"


def _rows(plan: SizingPlan) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The report's tables as (header, rows), shared by the text and Markdown forms."""
    currency = plan.prices.currency
    workloads = [
        [p.workload.name, p.workload.asked, str(p.workload.count), str(p.workload.devices),
         "yes" if p.workload.spot else "-", _slice_text(plan, p), p.vm_size or "fits nowhere", p.claim_template or "-",
         _tolerations_text(p.tolerations)]
        for p in plan.placements
    ]
    pools = [
        [_pool_text(plan, p) if plan.has_stack else "new", *_pool_cells(plan, p), str(p.devices),
         str(p.nodes), money_cell(_node_price(plan, p.vm_size, p.nodes), currency)]
        for p in plan.pools
    ]
    costs = [
        [line.label, line_cell(line, currency), line_cell(line, currency, plan.prices.hours_per_month),
         f"{line.requested_gib:g} / {line.provisioned_gib:g}", _fmt_share(line)]
        for line in distinct_costs(plan)[0]
    ]
    problems = [[f.severity, f.key or "-", f.message] for f in plan.findings]
    return {
        "workloads": (["workload", "asked", "count", "devices", "spot", "slice", "VM size", "claim template",
                       "tolerations"], workloads),
        "pools": (["pool", "VM size", "GiB per device", "usable GiB", "devices", "nodes", "per hour"], pools),
        "cost": (["option", "per hour", f"per month ({plan.prices.hours_per_month:g} h)", "GPU GiB used / provisioned",
                  "utilisation"], costs),
        "problems": (["severity", "key", "problem"], problems),
    }


def _prices_line(plan: SizingPlan) -> str:
    p = plan.prices
    return f"Prices: {p.currency}, {p.region}, as of {p.date}; source: {p.source}."


def _usable_line(plan: SizingPlan) -> str:
    sizes = ", ".join(f"{v:.1f} of {k} GiB" for k, v in usable_sizes(plan.margin_percent).items())
    return f"Usable GPU memory per slice after the {plan.margin_percent} % margin: {sizes}."


def _changes_lines(plan: SizingPlan) -> list[str]:
    if not plan.has_stack:
        return []
    if not plan.changes:
        return ["Changes to the stack's gpuPools: none (every pool as written)."]
    return ["Changes to the stack's gpuPools (every other setting as written):", *[f"- {c}" for c in plan.changes]]


def to_text(plan: SizingPlan) -> str:
    """The report for a terminal: aligned tables, the problems, and the gpuPools snippet."""
    out = [f"Sizing (a slice counts for its nominal GPU memory less {plan.margin_percent} %)", _usable_line(plan), ""]
    for title, (header, rows) in _rows(plan).items():
        if not rows:
            out += [f"{title}: none", ""]
            continue
        out += [f"{title}:", *text_table(header, rows), ""]
        if title == "cost" and distinct_costs(plan)[1]:
            out += [*distinct_costs(plan)[1], ""]
        if title == "workloads" and plan.notes:
            out += [*plan.notes, ""]
    out += [_prices_line(plan), ""]
    changes = _changes_lines(plan)
    if changes:
        out += [*changes, ""]
    out += ["gpuPools that would fit:", snippet_yaml(plan).rstrip(), ""]
    if plan.compared:
        out += family_report.text_lines(plan.compared, plan.margin_percent, plan.prices.currency)
    if plan.shared is not None:
        out += shared_report.text_lines(plan.shared, plan.prices.currency, plan.prices.hours_per_month)
    if plan.regions is not None:
        out += regions.text_lines(plan.regions)
    out.append("everything fits" if plan.fits else "something does not fit (exit 3)")  # the summary comes last
    return "\n".join(out) + "\n"


def to_markdown(plan: SizingPlan, heading_level: int = 3) -> str:
    """The report as Markdown (for a pull-request comment or docs): tables, problems, the snippet in a YAML block."""
    h = "#" * heading_level
    verdict = "Everything fits." if plan.fits else "**Something does not fit.**"
    out = [f"{h} GPU sizing", "", f"{verdict} {_usable_line(plan)}", ""]
    titles = {"workloads": "Workloads", "pools": "Pools", "cost": "Cost", "problems": "Problems"}
    for key, (header, rows) in _rows(plan).items():
        if key == "problems" and not rows:
            continue
        out += [f"{h}# {titles[key]}", ""]
        out += md_table(header, rows) if rows else ["none"]
        out.append("")
        if key == "workloads" and plan.notes:
            out += [*(f"- {n}" for n in plan.notes), ""]
        if key == "cost":
            same = distinct_costs(plan)[1]
            out += [*(f"- {n}" for n in same), *([""] if same else []), _prices_line(plan), ""]
    changes = _changes_lines(plan)
    if changes:
        out += [*changes, ""]
    out += [f"{h}# gpuPools that would fit", "", "```yaml", snippet_yaml(plan).rstrip(), "```", ""]
    if plan.compared:
        out += family_report.to_markdown(plan.compared, plan.margin_percent, plan.prices.currency, f"{h}#")
    if plan.shared is not None:
        out += [shared_report.to_markdown(plan.shared, plan.prices.currency, h, plan.prices.hours_per_month)]
    if plan.regions is not None:
        out += regions.to_markdown(plan.regions, f"{h}#")
    return "\n".join(out)
