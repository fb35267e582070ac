"""A stack's GPU pools against the plan, pool by pool, and the `gpuPools` that would fit.

- Capacity and maxCount advice is per pool, in that pool's own numbers (never a sum across pools).
- The suggestion keeps every pool as the stack file writes it (spot settings, minCount, taints, labels, tags, zones,
  disks, and pools nothing here uses), changes only what must change (a maxCount or count too small, a size the
  stack lacks), and lists each change with its reason.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from ..catalog import A10_SIZES, MIG_SIZES, SCALE_FROM_ZERO_WHY
from ..config import GpuPoolConfig, StackConfig
from ..kubernetes.slice_kinds import devices_per_node, pool_slice, slice_of_pool
from .model import Change, Finding, PoolPlan, Workload
from .placement import nominal_for

SPOT_OPT_IN = "`spot: true` in the workloads file, or `--spot NAME`"


def max_nodes(pool: GpuPoolConfig) -> int:
    """The most nodes the pool runs: its maxCount, or its fixed count."""
    return pool.autoscaling.max_count if pool.autoscaling else pool.initial_count


def _count_key(pool: GpuPoolConfig) -> str:
    return "autoscaling.maxCount" if pool.autoscaling else "count"


def _names(names: Sequence[str]) -> str:
    return f"{', '.join(names)} need{'s' if len(names) == 1 else ''}"


def _nodes(n: int) -> str:
    return f"{n} node{'s' if n != 1 else ''}"


def shortfall(plan: PoolPlan, pools: list[GpuPoolConfig]) -> int:
    """Nodes the plan needs beyond what its pools hold, each at its own maxCount (or count)."""
    return max(0, plan.nodes - sum(max_nodes(pools[i]) for i in plan.stack_pools))


def _offered(plan: PoolPlan) -> str:
    """What the plan's slices are, as the messages say it: '8 GiB slices (Standard_NV12ads_A10_v5)', or a MIG
    profile's slices with its size and gpuInstanceProfile."""
    if plan.aks_profile is not None:
        kind = pool_slice(plan.vm_size, plan.aks_profile)
        return f"{kind.profile} slices of {kind.gpu_model} ({plan.vm_size}, gpuInstanceProfile {plan.aks_profile})"
    vm = A10_SIZES[plan.vm_size]
    return f"{vm.gpu_memory_gib} GiB slices{' two to a node' if vm.devices_per_node == 2 else ''} ({plan.vm_size})"


def _missing(plan: PoolPlan, stack_pools: list[GpuPoolConfig]) -> Finding:
    spot_only = [p.name for p in stack_pools if p.vm_size == plan.vm_size and p.spot is not None]
    why = (f"; {', '.join(spot_only)} {'is a spot pool' if len(spot_only) == 1 else 'are spot pools'}, which a "
           f"workload uses only when it opts in ({SPOT_OPT_IN})") if spot_only else ""
    return Finding(
        "error", "missing-size",
        f"no pool offers {_offered(plan)} to {', '.join(plan.workloads)}{why}: add one (see the gpuPools snippet)",
        "gpuPools",
    )


def _too_small(plan: PoolPlan, stack_pools: list[GpuPoolConfig], missing: int) -> Finding:
    first = plan.stack_pools[0]
    pool = stack_pools[first]
    per_node = devices_per_node(plan.vm_size, plan.aks_profile)
    own = max_nodes(pool)
    word = "maxCount" if pool.autoscaling else "count"
    others = [stack_pools[i] for i in plan.stack_pools[1:]]
    beside = "".join(f"; {p.name} holds {_nodes(max_nodes(p))} more at its own {'maxCount' if p.autoscaling else 'count'} "
                     f"{max_nodes(p)}" for p in others)
    return Finding(
        "error", "max-count",
        f"{pool.name} ({plan.vm_size}) has {word} {own} ({own * per_node} devices); "
        f"{_names(plan.workloads)} {_nodes(plan.nodes)} ({plan.devices} devices){beside}: raise {pool.name}'s {word} "
        f"to {own + missing}",
        f"gpuPools[{first}].{_count_key(pool)}",
    )


def check_stack(stack: StackConfig, pools: list[PoolPlan], unplaced: list[Workload]) -> list[Finding]:
    """The stack's GPU pools against the plan: sizes no usable pool offers, pools too small (each in its own numbers),
    pools nothing here uses (kept, and named when an unplaced workload nearly fits them), pools scaling from zero."""
    findings: list[Finding] = []
    nearly: dict[int, list[str]] = {}
    for w in unplaced:
        nominal = nominal_for(w)
        if nominal is not None:
            nearly.setdefault(nominal, []).append(w.name)
    stack_pools = stack.gpu_pools
    for plan in pools:
        if not plan.stack_pools:
            findings.append(_missing(plan, stack_pools))
            continue
        missing = shortfall(plan, stack_pools)
        if missing:
            findings.append(_too_small(plan, stack_pools, missing))
    used = {i for plan in pools for i in plan.stack_pools}
    for index, pool in enumerate(stack_pools):
        if index not in used:
            spot = (f"; a spot pool serves only workloads that opt in ({SPOT_OPT_IN})"
                    if pool.spot is not None else "")
            kind = slice_of_pool(pool)
            near = [] if pool.is_mig else nearly.get(kind.memory_gib, [])
            kept = (f"{', '.join(near)} nearly fit{'s' if len(near) == 1 else ''} its slices (ask by slice, see above)"
                    if near else "while a workload is not placed" if unplaced else "for work not listed here")
            slices = f"{kind.profile} slices of {kind.gpu_model}" if pool.is_mig else f"{kind.memory_gib} GiB slices"
            findings.append(Finding(
                "warning", "unused-pool",
                f"{pool.name} ({pool.vm_size}, {slices}): no workload listed here runs on "
                f"it{spot}; it stays in the suggestion, {kept}",
                f"gpuPools[{index}]",
            ))
        elif pool.autoscaling and pool.autoscaling.min_count == 0:
            findings.append(Finding(
                "warning", "scale-from-zero",
                f"{pool.name} scales from 0: {SCALE_FROM_ZERO_WHY}; keep at least 1 node (the suggestion keeps the "
                "minCount you wrote)",
                f"gpuPools[{index}].autoscaling.minCount",
            ))
    return findings


def _new_name(short: str, taken: set[str]) -> str:
    name, n = short, 1
    while name in taken:  # another pool already has the name (pool names are at most 12 characters)
        n += 1
        name = f"{short[: 12 - len(str(n))]}{n}"
    taken.add(name)
    return name


def _new_pool(plan: PoolPlan, taken: set[str]) -> dict[str, Any]:
    """A new pool for the plan's slices, as a stack file writes it (a MIG pool names its gpuInstanceProfile)."""
    short = MIG_SIZES[plan.vm_size].short_name if plan.aks_profile else A10_SIZES[plan.vm_size].short_name
    entry: dict[str, Any] = {"name": _new_name(short, taken), "vmSize": plan.vm_size}
    if plan.aks_profile:
        entry["gpuInstanceProfile"] = plan.aks_profile
    entry["autoscaling"] = {"minCount": plan.min_count, "maxCount": plan.max_count}
    return entry


def written_pools(stack: StackConfig) -> list[dict[str, Any]]:
    """The stack's pools in stack-file form: the keys the file sets, nothing filled in from defaults."""
    return [p.model_dump(by_alias=True, exclude_unset=True) for p in stack.gpu_pools]


def suggest_pools(
    pools: list[PoolPlan], stack: StackConfig | None, written: list[dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], list[Change]]:
    """The `gpuPools` list that would fit and what it changes: every pool of the stack as written (`written`, the
    stack file's own list, else `written_pools`), the maxCount (or count) raised where a pool is too small, a new pool
    for each size no usable pool offers."""
    if stack is None:
        snippet: list[dict[str, Any]] = []
        taken: set[str] = set()
        for plan in pools:
            snippet.append(_new_pool(plan, taken))
        return snippet, []
    snippet = copy.deepcopy(written if written is not None else written_pools(stack))
    taken = {p.name for p in stack.gpu_pools}
    changes: list[Change] = []
    for plan in pools:
        if plan.stack_pools:
            missing = shortfall(plan, stack.gpu_pools)
            if missing:
                first = plan.stack_pools[0]
                pool = stack.gpu_pools[first]
                own = max_nodes(pool)
                entry = snippet[first]
                target = entry.setdefault("autoscaling", {}) if pool.autoscaling else entry
                target["maxCount" if pool.autoscaling else "count"] = own + missing
                beside = "".join(f"; {stack.gpu_pools[i].name} holds {_nodes(max_nodes(stack.gpu_pools[i]))}"
                                 for i in plan.stack_pools[1:])
                changes.append(Change(pool.name, _count_key(pool), own, own + missing,
                                      f"{_names(plan.workloads)} {_nodes(plan.nodes)} of {plan.vm_size}{beside}"))
            continue
        entry = _new_pool(plan, taken)
        name = entry["name"]
        snippet.append(entry)
        changes.append(Change(name, "", None, plan.vm_size,
                              f"{plan.vm_size} with maxCount {plan.max_count}: no pool offers its slices to "
                              f"{', '.join(plan.workloads)}"))
    return snippet, changes
