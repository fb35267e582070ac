"""The sizing planner: workloads (GPU memory each, replicas) -> slice sizes, claim templates, nodes per pool, and cost.

Pure: plain data in, plain data out; the CLI's `size` command (`size_command`) and docs/sizing.md use it.

Rules (docs/sizing.md says them for people):
- A workload gets the smallest size class whose *usable* memory holds it: nominal less the margin the claim templates
  use (a slice may report that much below nominal and still match). One that no single slice holds fits nowhere:
  it is reported, never placed.
- A size class is planned on its smallest VM size, or, with a stack, on the VM size of the stack's first pool of that
  class. A two-device workload needs a node with two devices (Standard_NV72ads_A10_v5).
- Nodes: one device per slot; Standard_NV72ads_A10_v5 has two, a two-device pod takes a whole node.
- Suggested autoscaling: maxCount = the nodes every replica needs at once; minCount = 1, never 0 (the cluster
  autoscaler's Azure node template carries no ResourceSlices, so it cannot scale a DRA pool up from zero).
- Cost per hour and month from a price table, beside two baselines: one whole A10 per replica, and one pool of the
  largest size needed for everything; GPU-memory utilisation = memory asked for / memory the nodes have.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..catalog import A10_SIZES, A10Size
from ..catalog.prices import PriceTable
from ..config import GpuPoolConfig, StackConfig
from ..kubernetes.claim_templates import PAIR_SIZE, claim_template_name, pair_template_name
from ..kubernetes.selectors import SIZE_CLASSES, usable_memory_gib, vm_sizes_of_class
from ..kubernetes.tolerations import tolerations_for_size
from ..policies import SCALE_FROM_ZERO_WHY

WHOLE_A10 = {1: "Standard_NV36ads_A10_v5", 2: "Standard_NV72ads_A10_v5"}  # one whole A10 per device, by devices per pod


@dataclass(frozen=True)
class Workload:
    """A workload: GPU memory per device (GiB), replicas, and devices per replica (1, or 2 on one node)."""

    name: str
    memory_gib: float
    count: int = 1
    devices: int = 1


@dataclass(frozen=True)
class Finding:
    """One thing the planner reports: an error (something does not fit) or a warning, at a key when there is one."""

    severity: Literal["error", "warning"]
    kind: str
    message: str
    key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape."""
        return {"severity": self.severity, "kind": self.kind, "key": self.key, "message": self.message}


@dataclass(frozen=True)
class Placement:
    """Where one workload goes: its size class, VM size and claim template (all None when it fits nowhere)."""

    workload: Workload
    size_class: int | None
    vm_size: str | None
    claim_template: str | None
    tolerations: list[dict[str, str]]


@dataclass(frozen=True)
class PoolPlan:
    """One VM size the workloads need: devices, nodes, suggested autoscaling, and the stack's pools it maps to."""

    vm_size: str
    devices: int
    nodes: int
    min_count: int
    max_count: int
    stack_pools: tuple[int, ...] = ()  # indexes into the stack's gpuPools of this VM size


@dataclass(frozen=True)
class CostLine:
    """One way to run the workloads: what it costs and how much of its GPU memory the workloads use."""

    label: str
    hourly: float | None
    monthly: float | None
    requested_gib: float
    provisioned_gib: float
    vm_size: str | None = None

    @property
    def utilisation(self) -> float | None:
        """Memory asked for / memory provisioned, or None when nothing is provisioned."""
        return self.requested_gib / self.provisioned_gib if self.provisioned_gib else None


@dataclass
class SizingPlan:
    """Everything the planner decided, in the order people read it."""

    margin_percent: int
    device_class: str
    placements: list[Placement]
    pools: list[PoolPlan]
    costs: dict[str, CostLine]
    prices: PriceTable
    findings: list[Finding] = field(default_factory=list)
    gpu_pools: list[dict[str, Any]] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        """Whether everything fits: no error among the findings."""
        return not any(f.severity == "error" for f in self.findings)


# --- placing workloads ---------------------------------------------------------------------------------------------
def size_class_for(memory_gib: float, margin_percent: int) -> int | None:
    """The smallest size class whose usable memory holds this much, or None."""
    return next((s for s in SIZE_CLASSES if usable_memory_gib(s, margin_percent) >= memory_gib), None)


def _stack_choice(pools: list[GpuPoolConfig], size_class: int, devices: int) -> str | None:
    """The VM size of the stack's first pool of this class with enough devices per node, or None."""
    return next(
        (p.vm_size for p in pools if p.size.gpu_memory_gib == size_class and p.size.devices_per_node >= devices), None
    )


def place(workload: Workload, margin_percent: int, device_class: str, pools: list[GpuPoolConfig]) -> Placement:
    """The size class, VM size, claim template and tolerations of one workload (None everywhere when nothing holds it)."""
    size = size_class_for(workload.memory_gib, margin_percent)
    if workload.devices == 2 and size is not None:
        size = PAIR_SIZE  # only Standard_NV72ads_A10_v5 nodes have two devices
        if usable_memory_gib(size, margin_percent) < workload.memory_gib:
            size = None
    if size is None:
        return Placement(workload, None, None, None, [])
    vm_size = _stack_choice(pools, size, workload.devices) or vm_sizes_of_class(size, workload.devices)[0].vm_size
    template = pair_template_name(device_class) if workload.devices == 2 else claim_template_name(device_class, size)
    return Placement(workload, size, vm_size, template, tolerations_for_size(pools, size))


def nodes_for(vm: A10Size, placements: Iterable[Placement]) -> int:
    """Nodes of this size that run every replica at once: a two-device pod takes a node, single devices fill slots."""
    pairs = sum(p.workload.count for p in placements if p.workload.devices == 2)
    singles = sum(p.workload.count for p in placements if p.workload.devices == 1)
    spare = pairs * (vm.devices_per_node - 2) if pairs else 0
    return pairs + math.ceil(max(0, singles - spare) / vm.devices_per_node)


def _devices(placements: Iterable[Placement]) -> int:
    return sum(p.workload.count * p.workload.devices for p in placements)


def _requested(placements: Iterable[Placement]) -> float:
    return sum(p.workload.memory_gib * p.workload.count * p.workload.devices for p in placements)


def _no_fit(index: int, workload: Workload, margin_percent: int) -> Finding:
    most = usable_memory_gib(SIZE_CLASSES[-1], margin_percent)
    per = "per device " if workload.devices == 2 else ""
    return Finding(
        "error", "no-fit",
        f"{workload.name}: {workload.memory_gib:g} GiB {per}is more than any single A10 slice holds (at most "
        f"{most:.1f} GiB usable of {SIZE_CLASSES[-1]} GiB with the {margin_percent} % margin); it is not placed",
        f"workloads[{index}]",
    )


# --- cost ------------------------------------------------------------------------------------------------------------
def _cost(label: str, nodes_by_vm: dict[str, int], requested: float, prices: PriceTable, vm: str | None = None) -> CostLine:
    provisioned = sum(n * A10_SIZES[v].devices_per_node * A10_SIZES[v].gpu_memory_gib for v, n in nodes_by_vm.items())
    hourly_prices = [prices.hourly(v) for v in nodes_by_vm]
    if any(p is None for p in hourly_prices):
        return CostLine(label, None, None, requested, provisioned, vm)
    hourly = sum(n * prices.prices[v] for v, n in nodes_by_vm.items())
    return CostLine(label, hourly, hourly * prices.hours_per_month, requested, provisioned, vm)


def costs(pools: list[PoolPlan], placed: list[Placement], prices: PriceTable) -> dict[str, CostLine]:
    """The plan's cost and the two baselines, for the workloads that fit."""
    requested = _requested(placed)
    lines = {"plan": _cost("right-sized (this plan)", {p.vm_size: p.nodes for p in pools}, requested, prices)}
    whole: dict[str, int] = {}
    for p in placed:
        vm = WHOLE_A10[p.workload.devices]
        whole[vm] = whole.get(vm, 0) + p.workload.count
    lines["wholeA10PerWorkload"] = _cost("one whole A10 per replica", whole, requested, prices)
    if pools:
        largest = max((A10_SIZES[p.vm_size] for p in pools), key=lambda s: (s.gpu_memory_gib, s.devices_per_node))
        lines["largestSizePool"] = _cost(
            f"one pool of {largest.vm_size}", {largest.vm_size: nodes_for(largest, placed)}, requested, prices,
            largest.vm_size,
        )
    else:
        lines["largestSizePool"] = _cost("one pool of the largest size needed", {}, requested, prices)
    return lines


# --- the stack -------------------------------------------------------------------------------------------------------
def _max_nodes(pool: GpuPoolConfig) -> int:
    return pool.autoscaling.max_count if pool.autoscaling else pool.initial_count


def check_stack(stack: StackConfig, pools: list[PoolPlan], placed: list[Placement]) -> list[Finding]:
    """The stack's GPU pools against the plan: size classes missing, maxCount too small, pools nothing needs."""
    findings: list[Finding] = []
    stack_pools = stack.gpu_pools
    for plan in pools:
        vm = A10_SIZES[plan.vm_size]
        if not plan.stack_pools:
            users = sorted({p.workload.name for p in placed if p.vm_size == plan.vm_size})
            findings.append(Finding(
                "error", "missing-size",
                f"no pool offers {vm.gpu_memory_gib} GiB slices{' two to a node' if vm.devices_per_node == 2 else ''} "
                f"({plan.vm_size}), which {', '.join(users)} need{'s' if len(users) == 1 else ''}: add one "
                "(see the gpuPools snippet)",
                "gpuPools",
            ))
            continue
        capacity = sum(_max_nodes(stack_pools[i]) for i in plan.stack_pools)
        if capacity < plan.nodes:
            first = plan.stack_pools[0]
            pool = stack_pools[first]
            key = f"gpuPools[{first}].autoscaling.maxCount" if pool.autoscaling else f"gpuPools[{first}].count"
            wanted = _max_nodes(pool) + plan.nodes - capacity
            findings.append(Finding(
                "error", "max-count",
                f"{pool.name} ({plan.vm_size}) can grow to {capacity} node{'s' if capacity != 1 else ''} "
                f"({capacity * vm.devices_per_node} devices); the workloads need {plan.nodes} ({plan.devices} devices): "
                f"raise it to {wanted}",
                key,
            ))
    planned = {i for plan in pools for i in plan.stack_pools}
    for index, pool in enumerate(stack_pools):
        if index not in planned:
            findings.append(Finding(
                "warning", "unneeded-pool",
                f"{pool.name} ({pool.vm_size}, {pool.size.gpu_memory_gib} GiB slices): none of these workloads needs "
                "it; remove it, or keep it for work not listed here",
                f"gpuPools[{index}]",
            ))
        elif pool.autoscaling and pool.autoscaling.min_count == 0:
            findings.append(Finding(
                "warning", "scale-from-zero",
                f"{pool.name} scales from 0: {SCALE_FROM_ZERO_WHY}; keep at least 1 node",
                f"gpuPools[{index}].autoscaling.minCount",
            ))
    return findings


def gpu_pools_snippet(pools: list[PoolPlan], stack: StackConfig | None) -> list[dict[str, Any]]:
    """The `gpuPools` list (stack-file form) that would fit: the stack's pools of the needed sizes with room enough,
    new pools for sizes it lacks, pools nothing needs left out."""
    snippet: list[dict[str, Any]] = []
    taken = {p.name for p in stack.gpu_pools} if stack else set()
    for plan in pools:
        if stack and plan.stack_pools:
            others = sum(_max_nodes(stack.gpu_pools[i]) for i in plan.stack_pools[1:])
            for n, index in enumerate(plan.stack_pools):
                pool = stack.gpu_pools[index]
                entry = pool.model_dump(by_alias=True, exclude_defaults=True, exclude={"count", "autoscaling"})
                low = max(pool.autoscaling.min_count, 1) if pool.autoscaling else 1
                high = max(_max_nodes(pool), plan.nodes - others) if n == 0 else _max_nodes(pool)
                entry["autoscaling"] = {"minCount": min(low, high), "maxCount": high}
                snippet.append(entry)
            continue
        short = A10_SIZES[plan.vm_size].short_name
        name, n = short, 1
        while name in taken:  # another pool of the stack already has the name (pool names are at most 12 characters)
            n += 1
            name = f"{short[: 12 - len(str(n))]}{n}"
        taken.add(name)
        snippet.append({
            "name": name, "vmSize": plan.vm_size, "autoscaling": {"minCount": plan.min_count, "maxCount": plan.max_count},
        })
    return snippet


# --- the whole plan --------------------------------------------------------------------------------------------------
def plan_sizing(
    workloads: list[Workload], prices: PriceTable, stack: StackConfig | None = None,
    margin_percent: int | None = None, device_class: str | None = None,
) -> SizingPlan:
    """Places every workload, counts nodes per VM size, costs the plan and its baselines, checks the stack if given.

    The margin and the DeviceClass are the stack's samples settings when a stack is given, else the defaults (or
    what the caller says)."""
    from ..config import SamplesConfig

    samples = stack.samples if stack else SamplesConfig()
    margin = samples.memory_margin_percent if margin_percent is None else margin_percent
    klass = samples.device_class_name if device_class is None else device_class
    stack_pools = stack.gpu_pools if stack else []
    placements = [place(w, margin, klass, stack_pools) for w in workloads]
    findings = [_no_fit(i, p.workload, margin) for i, p in enumerate(placements) if p.vm_size is None]
    placed = [p for p in placements if p.vm_size is not None]
    pools = []
    for vm_size in A10_SIZES:  # catalog order: smallest slices first
        here = [p for p in placed if p.vm_size == vm_size]
        if here:
            nodes = nodes_for(A10_SIZES[vm_size], here)
            matching = tuple(i for i, p in enumerate(stack_pools) if p.vm_size == vm_size)
            pools.append(PoolPlan(vm_size, _devices(here), nodes, min(1, nodes), nodes, matching))
    for vm_size in sorted({p.vm_size for p in pools} | {WHOLE_A10[p.workload.devices] for p in placed}):
        if prices.hourly(vm_size) is None:
            findings.append(Finding("warning", "no-price", f"the price table has no price for {vm_size}; costs left out",
                                    "prices"))
    if stack is not None:
        findings += check_stack(stack, pools, placed)
    return SizingPlan(margin, klass, placements, pools, costs(pools, placed, prices), prices, findings,
                      gpu_pools_snippet(pools, stack))
