"""The sizing planner: workloads (GPU memory or a named slice each, replicas) -> slice sizes, claim templates, nodes
per pool, the stack's pools checked pool by pool, the gpuPools that would fit, and cost.

Pure: plain data in, plain data out; the CLI's `size` command (`sizing.command`) and docs/sizing.md use it. The rules
live beside the code that applies them: placing a workload (`placement`), the stack's pools and the suggestion
(`stack_pools`), cost (`cost`).

- A size class is planned on its smallest VM size, or, with a stack, on the VM size of the stack's first pool of that
  class the workload may use. A two-device workload needs a node with two devices (Standard_NV72ads_A10_v5).
- Nodes: one device per slot; Standard_NV72ads_A10_v5 has two, a two-device pod takes a whole node.
- Suggested autoscaling for a new pool: maxCount = the nodes every replica needs at once; minCount = 1, never 0 (the
  cluster autoscaler's Azure node template carries no ResourceSlices, so it cannot scale a DRA pool up from zero).
"""

from __future__ import annotations

from typing import Any

from ..catalog import A10_SIZES
from ..config import StackConfig
from ..kubernetes.selectors import SIZE_CLASSES, usable_memory_gib
from .cost import WHOLE_A10, costs
from .model import SLICE_SIZES, Change, CostLine, Finding, Placement, PoolPlan, SizingPlan, Workload
from .packing import pack_shared
from .placement import devices_of, margin_note, no_fit, nodes_for, place, size_class_for
from .prices import PriceTable
from .stack_pools import check_stack, suggest_pools

__all__ = [
    "SLICE_SIZES", "WHOLE_A10", "Change", "CostLine", "Finding", "Placement", "PoolPlan", "SizingPlan", "Workload",
    "nodes_for", "plan_sizing", "size_class_for", "usable_sizes",
]


def usable_sizes(margin_percent: int) -> dict[int, float]:
    """Each size class's usable GPU memory (GiB) at this margin, smallest first."""
    return {s: usable_memory_gib(s, margin_percent) for s in SIZE_CLASSES}


def _pool_plans(placed: list[Placement]) -> list[PoolPlan]:
    """One plan per VM size and set of stack pools (catalog order: smallest slices first)."""
    groups: dict[tuple[str, tuple[int, ...]], list[Placement]] = {}
    for p in placed:
        assert p.vm_size is not None
        groups.setdefault((p.vm_size, p.stack_pools), []).append(p)
    order = list(A10_SIZES)
    plans = []
    for (vm_size, stack_pools), here in sorted(groups.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
        nodes = nodes_for(A10_SIZES[vm_size], here)
        plans.append(PoolPlan(vm_size, devices_of(here), nodes, min(1, nodes), nodes, stack_pools,
                              tuple(p.workload.name for p in here)))
    return plans


def plan_sizing(
    workloads: list[Workload], prices: PriceTable, stack: StackConfig | None = None,
    margin_percent: int | None = None, device_class: str | None = None,
    written_pools: list[dict[str, Any]] | None = None, price_findings: list[Finding] | None = None,
    sharing: bool = False,
) -> SizingPlan:
    """Places every workload, counts nodes per pool, costs the plan and its baselines, checks the stack if given.

    The margin and the DeviceClass are the stack's samples settings when a stack is given, else the defaults (or
    what the caller says). `written_pools` is the stack file's own gpuPools list (kept as written in the suggestion);
    `price_findings` are the price table's own warnings (a region it fell back from); `sharing` adds the packing onto
    shared slices (`packing`), compared with this plan."""
    from ..config import SamplesConfig

    samples = stack.samples if stack else SamplesConfig()
    margin = samples.memory_margin_percent if margin_percent is None else margin_percent
    klass = samples.device_class_name if device_class is None else device_class
    stack_pools = stack.gpu_pools if stack else []
    placements = [place(w, margin, klass, stack_pools) for w in workloads]
    findings = list(price_findings or [])
    findings += [no_fit(i, p.workload, margin) for i, p in enumerate(placements) if p.vm_size is None]
    notes = [n for n in (margin_note(p, margin) for p in placements) if n]
    placed = [p for p in placements if p.vm_size is not None]
    pools = _pool_plans(placed)
    for vm_size in sorted({p.vm_size for p in pools} | {WHOLE_A10[p.workload.devices] for p in placed}):
        if prices.hourly(vm_size) is None:
            findings.append(Finding("warning", "no-price", f"the price table has no price for {vm_size}; costs left out",
                                    "prices"))
    if stack is not None:
        findings += check_stack(stack, pools, [p.workload for p in placements if p.vm_size is None])
    snippet, changes = suggest_pools(pools, stack, written_pools)
    lines = costs(pools, placed, prices)
    shared = None
    if sharing:
        plain = (lines["plan"], sum(p.nodes for p in pools), sum(p.devices for p in pools))
        shared = pack_shared(workloads, margin, prices, placements, plain, stack_pools)
    return SizingPlan(margin, klass, placements, pools, lines, prices, findings, snippet, changes, notes,
                      [p.name for p in stack_pools], stack is not None, shared)

