"""What a plan costs per hour and month from a price table, beside two baselines (one whole GPU per replica: a whole
A10, or for a MIG slice a whole GPU of its size; one pool of the largest A10 size needed for the A10 workloads), with
the share of the paid-for GPU memory the workloads use."""

from __future__ import annotations

import math

from ..catalog import A10_SIZES, MIG_SIZES
from .model import CostLine, Placement, PoolPlan
from .placement import nodes_for, nodes_of, requested_of
from .prices import PriceTable

WHOLE_A10 = {1: "Standard_NV36ads_A10_v5", 2: "Standard_NV72ads_A10_v5"}  # one whole A10 per device, by devices per pod


def node_gpu_gib(vm_size: str) -> int:
    """The nominal GPU memory a node of this size pays for: its A10 slices, or its GPUs whole (MIG)."""
    if vm_size in MIG_SIZES:
        size = MIG_SIZES[vm_size]
        return size.gpus * size.gpu.memory_gib
    a10 = A10_SIZES[vm_size]
    return a10.devices_per_node * a10.gpu_memory_gib


def cost_line(label: str, nodes_by_vm: dict[str, int], requested: float, prices: PriceTable, vm: str | None = None
              ) -> CostLine:
    """What these nodes cost per hour and month (None when a size has no price), beside the GPU memory asked for."""
    provisioned = sum(n * node_gpu_gib(v) for v, n in nodes_by_vm.items())
    unpriced = tuple(sorted(v for v in nodes_by_vm if prices.hourly(v) is None))
    if unpriced:  # the total is not known: None for every comparison, the priced part kept for the report to show
        known = sum(n * prices.prices[v] for v, n in nodes_by_vm.items() if v not in unpriced)
        return CostLine(label, None, None, requested, provisioned, vm, unpriced, known)
    hourly = sum(n * prices.prices[v] for v, n in nodes_by_vm.items())
    return CostLine(label, hourly, hourly * prices.hours_per_month, requested, provisioned, vm)


def whole_gpus(placed: list[Placement]) -> dict[str, int]:
    """Nodes for one whole GPU per replica: a whole A10 (two for a two-device pod), or a whole GPU of the MIG slice's
    size (its nodes hold several)."""
    whole: dict[str, int] = {}
    mig: dict[str, int] = {}
    for p in placed:
        if p.aks_profile is not None and p.vm_size is not None:
            mig[p.vm_size] = mig.get(p.vm_size, 0) + p.workload.count
            continue
        vm = WHOLE_A10[p.workload.devices]
        whole[vm] = whole.get(vm, 0) + p.workload.count
    for vm, replicas in mig.items():
        whole[vm] = whole.get(vm, 0) + math.ceil(replicas / MIG_SIZES[vm].gpus)
    return whole


def costs(pools: list[PoolPlan], placed: list[Placement], prices: PriceTable) -> dict[str, CostLine]:
    """The plan's cost and the two baselines, for the workloads that fit."""
    requested = requested_of(placed)
    planned: dict[str, int] = {}
    for p in pools:
        planned[p.vm_size] = planned.get(p.vm_size, 0) + p.nodes
    lines = {"plan": cost_line("right-sized (this plan)", planned, requested, prices)}
    mig = any(p.aks_profile is not None for p in placed)
    lines["wholeA10PerWorkload"] = cost_line("one whole GPU per replica" if mig else "one whole A10 per replica",
                                             whole_gpus(placed), requested, prices)
    a10_pools = [p for p in pools if p.aks_profile is None]
    mig_nodes = {p.vm_size: 0 for p in pools if p.aks_profile is not None}
    for p in pools:
        if p.aks_profile is not None:
            mig_nodes[p.vm_size] += p.nodes
    beside = " and the MIG pools as planned" if mig_nodes else ""
    if a10_pools:
        largest = max((A10_SIZES[p.vm_size] for p in a10_pools), key=lambda s: (s.gpu_memory_gib, s.devices_per_node))
        nodes = {largest.vm_size: nodes_for(largest, [p for p in placed if p.aks_profile is None])}
        for vm, n in mig_nodes.items():
            nodes[vm] = nodes.get(vm, 0) + n
        lines["largestSizePool"] = cost_line(f"one pool of {largest.vm_size}{beside}", nodes, requested, prices,
                                             largest.vm_size)
    else:
        label = "the MIG pools as planned" if mig_nodes else "one pool of the largest size needed"
        lines["largestSizePool"] = cost_line(label, mig_nodes, requested, prices)
    return lines


def placed_cost(label: str, placed: list[Placement], prices: PriceTable) -> CostLine:
    """What these placements cost on their own slices, as the plan places them (nodes per VM size and profile)."""
    by_node: dict[tuple[str, str | None], list[Placement]] = {}
    for p in placed:
        if p.vm_size is not None:
            by_node.setdefault((p.vm_size, p.aks_profile), []).append(p)
    nodes: dict[str, int] = {}
    for (vm, profile), here in by_node.items():
        nodes[vm] = nodes.get(vm, 0) + nodes_of(vm, profile, here)
    return cost_line(label, nodes, requested_of(placed), prices)
