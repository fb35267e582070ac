"""What a plan costs per hour and month from a price table, beside two baselines (one whole A10 per replica, one pool
of the largest size needed for everything), with the share of the paid-for GPU memory the workloads use."""

from __future__ import annotations

from ..catalog import A10_SIZES
from .model import CostLine, Placement, PoolPlan
from .placement import nodes_for, requested_of
from .prices import PriceTable

WHOLE_A10 = {1: "Standard_NV36ads_A10_v5", 2: "Standard_NV72ads_A10_v5"}  # one whole A10 per device, by devices per pod


def cost_line(label: str, nodes_by_vm: dict[str, int], requested: float, prices: PriceTable, vm: str | None = None
              ) -> CostLine:
    """What these nodes cost per hour and month (None when a size has no price), beside the GPU memory asked for."""
    provisioned = sum(n * A10_SIZES[v].devices_per_node * A10_SIZES[v].gpu_memory_gib for v, n in nodes_by_vm.items())
    if any(prices.hourly(v) is None for v in nodes_by_vm):
        return CostLine(label, None, None, requested, provisioned, vm)
    hourly = sum(n * prices.prices[v] for v, n in nodes_by_vm.items())
    return CostLine(label, hourly, hourly * prices.hours_per_month, requested, provisioned, vm)


def costs(pools: list[PoolPlan], placed: list[Placement], prices: PriceTable) -> dict[str, CostLine]:
    """The plan's cost and the two baselines, for the workloads that fit."""
    requested = requested_of(placed)
    planned: dict[str, int] = {}
    for p in pools:
        planned[p.vm_size] = planned.get(p.vm_size, 0) + p.nodes
    lines = {"plan": cost_line("right-sized (this plan)", planned, requested, prices)}
    whole: dict[str, int] = {}
    for p in placed:
        vm = WHOLE_A10[p.workload.devices]
        whole[vm] = whole.get(vm, 0) + p.workload.count
    lines["wholeA10PerWorkload"] = cost_line("one whole A10 per replica", whole, requested, prices)
    if pools:
        largest = max((A10_SIZES[p.vm_size] for p in pools), key=lambda s: (s.gpu_memory_gib, s.devices_per_node))
        lines["largestSizePool"] = cost_line(
            f"one pool of {largest.vm_size}", {largest.vm_size: nodes_for(largest, placed)}, requested, prices,
            largest.vm_size,
        )
    else:
        lines["largestSizePool"] = cost_line("one pool of the largest size needed", {}, requested, prices)
    return lines


def placed_cost(label: str, placed: list[Placement], prices: PriceTable) -> CostLine:
    """What these placements cost on their own slices, as the plan places them (nodes per VM size)."""
    by_vm: dict[str, list[Placement]] = {}
    for p in placed:
        if p.vm_size is not None:
            by_vm.setdefault(p.vm_size, []).append(p)
    nodes = {vm: nodes_for(A10_SIZES[vm], here) for vm, here in by_vm.items()}
    return cost_line(label, nodes, requested_of(placed), prices)
