"""Placing one workload: its size class (by the memory it needs, after the margin, or by the slice it names), the VM
size and claim template, the stack's pools that may run it (spot pools only for workloads that opt in), and the
tolerations of exactly those pools.

Rules (docs/sizing.md says them for people):
- By memory: the smallest size class whose *usable* memory holds it (nominal less the margin the claim templates use:
  a slice may report that much below nominal and still match). When the margin moved it up a size, one line says so.
- By slice: that slice's own class and claim template (48 is two 24 GiB devices on one Standard_NV72ads_A10_v5 node).
- By an extended resource name: only the A10 slices its name's class selects (`Workload.takes`): on the stack's pools
  of one of them, best fit first, else the smallest that holds what it needs (`named_size_class`).
- A spot pool serves a workload only when the workload opts in (`spot: true`, `--spot NAME`); a workload gets the
  tolerations of the pools it may run on and no other pool's (so never AKS's spot taint without opting in).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..catalog import A10_SIZES, MIG_SIZES, A10Size
from ..catalog.mig import mig_slice
from ..config import GpuPoolConfig
from ..kubernetes.claim_templates import PAIR_SIZE, claim_template_name, pair_template_name
from ..kubernetes.selectors import SIZE_CLASSES, holds, usable_memory_gib, vm_sizes_of_class
from ..kubernetes.slice_kinds import a10_kinds, devices_per_node, smallest_holding
from ..kubernetes.tolerations import pool_tolerations
from .model import UNIT, Finding, Placement, Workload


def a_slice(gib: int) -> str:
    """'a 4 GiB slice', 'an 8 GiB slice' (the article as the number is said)."""
    return f"{'an' if gib in (8, 18, 80) else 'a'} {gib} {UNIT} slice"


def size_class_for(memory_gib: float, margin_percent: int) -> int | None:
    """The smallest size class whose usable memory holds this much, or None (`slice_kinds.smallest_holding`)."""
    kind = smallest_holding(a10_kinds(), margin_percent, memory_gib)
    return kind.memory_gib if kind else None


def named_size_class(workload: Workload, margin_percent: int, pools: list[GpuPoolConfig]) -> int | None:
    """The A10 slice a workload asking for an extended resource name goes to: of those its class selects and that hold
    it, the smallest a usable pool of the stack offers, else the smallest; None when none does."""
    sizes = [k.memory_gib for k in sorted(workload.served_by, key=lambda k: k.memory_gib)
             if k.family == "a10" and workload.takes(k, margin_percent)]
    offered = [s for s in sizes if eligible_pools(pools, s, workload)]
    return next(iter(offered or sizes), None)


def _size_class(workload: Workload, margin_percent: int, pools: list[GpuPoolConfig]) -> int | None:
    if workload.slice_gib is not None:
        return workload.slice_gib
    if workload.resource is not None:
        return named_size_class(workload, margin_percent, pools)
    size = size_class_for(workload.memory_gib, margin_percent)
    if workload.devices == 2 and size is not None:
        size = PAIR_SIZE  # only Standard_NV72ads_A10_v5 nodes have two devices
        if not holds(size, margin_percent, workload.memory_gib):
            size = None
    return size


def eligible_pools(pools: list[GpuPoolConfig], size: int, workload: Workload) -> tuple[int, ...]:
    """The stack's pools that may run this workload: of its size class with enough devices per node, of one VM size
    (the first such pool's); spot pools for a workload that opts in (other pools when there is no spot pool of the
    class), never otherwise."""
    of_class = [i for i, p in enumerate(pools)  # A10 pools: a MIG pool's slices are placed by `families`
                if not p.is_mig and p.size.gpu_memory_gib == size and p.size.devices_per_node >= workload.devices]
    on_demand = [i for i in of_class if pools[i].spot is None]
    spot = [i for i in of_class if pools[i].spot is not None]
    chosen = (spot or on_demand) if workload.spot else on_demand
    if not chosen:
        return ()
    vm_size = pools[chosen[0]].vm_size
    return tuple(i for i in chosen if pools[i].vm_size == vm_size)


def place(workload: Workload, margin_percent: int, device_class: str, pools: list[GpuPoolConfig]) -> Placement:
    """The size class, VM size, claim template, pools and tolerations of one workload (None when nothing holds it)."""
    size = _size_class(workload, margin_percent, pools)
    if size is None:
        return Placement(workload, None, None, None, [])
    chosen = eligible_pools(pools, size, workload)
    vm_size = pools[chosen[0]].vm_size if chosen else vm_sizes_of_class(size, workload.devices)[0].vm_size
    template = pair_template_name(device_class) if workload.devices == 2 else claim_template_name(device_class, size)
    return Placement(workload, size, vm_size, template, pool_tolerations(pools[i] for i in chosen), chosen)


def nominal_for(workload: Workload) -> int | None:
    """The smallest nominal slice at least as large as the memory asked for (margin aside), or None (asked for by
    slice or by name: what it gets is what it asked for)."""
    if workload.slice_gib is not None or workload.resource is not None:
        return None
    classes = [PAIR_SIZE] if workload.devices == 2 else SIZE_CLASSES
    return next((s for s in classes if s >= workload.memory_gib), None)


def _ask(workload: Workload, nominal: int) -> str:
    return f"--slice {workload.name}={nominal * workload.devices}"


def margin_note(placement: Placement, margin_percent: int) -> str | None:
    """One line when the margin moved a workload asked for by memory up a size (or out of every size)."""
    w = placement.workload
    nominal = nominal_for(w)
    if nominal is None or placement.size_class is None or placement.size_class == nominal:
        return None
    offers = usable_memory_gib(nominal, margin_percent)
    return (f"{w.name}: {w.memory_gib:g} GiB needs the {placement.size_class} GiB slice: {a_slice(nominal)} offers "
            f"{offers:.1f} GiB after the {margin_percent} % margin; ask `{_ask(w, nominal)}` to take it")


def no_fit(index: int, workload: Workload, margin_percent: int) -> Finding:
    """The error for a workload no slice holds, with the slice to ask for when the margin alone kept it out."""
    largest = SIZE_CLASSES[-1]
    most = usable_memory_gib(largest, margin_percent)
    per = "per device " if workload.devices == 2 else ""
    nominal = nominal_for(workload)
    hint = (f"; ask `{_ask(workload, nominal)}` to take the whole slice{'s' if workload.devices == 2 else ''}"
            if nominal is not None else _two_devices_hint(workload, margin_percent))
    return Finding(
        "error", "no-fit",
        f"{workload.name}: {workload.memory_gib:g} GiB {per}is more than any single A10 slice holds (at most "
        f"{most:.1f} GiB usable of {largest} GiB with the {margin_percent} % margin){hint}; it is not placed",
        f"workloads[{index}]",
    )


def _two_devices_hint(workload: Workload, margin_percent: int) -> str:
    """For one device's worth that fits two whole A10s: the node that has them, and how to ask for both."""
    pair = next(s for s in A10_SIZES.values() if s.devices_per_node == 2)
    both = 2 * usable_memory_gib(PAIR_SIZE, margin_percent)
    if workload.devices != 1 or workload.memory_gib > both:
        return ""
    return (f"; {pair.vm_size} has two {PAIR_SIZE} GiB devices ({2 * PAIR_SIZE} GiB) on one node: a workload that "
            f"spreads its memory over two GPUs can claim both (a multi-device claim): ask `--slice {workload.name}=48`, "
            f"or `devices: 2` with memoryGiB per device in a workloads file")


def nodes_for(vm: A10Size, placements: Iterable[Placement]) -> int:
    """Nodes of this size that run every replica at once: a two-device pod takes a node, single devices fill slots."""
    return nodes_of(vm.vm_size, None, placements)


def pairs_per_node(vm_size: str, aks_profile: str | None = None) -> int:
    """Two-device replicas one node holds: its two whole A10s (Standard_NV72ads_A10_v5), or two MIG slices of one GPU
    per GPU that has two (a claim for two devices sharing `parentUUID`: `kubernetes.mig_claims.mig_pair_spec`)."""
    if aks_profile:
        return MIG_SIZES[vm_size].gpus * (mig_slice(vm_size, aks_profile).per_gpu // 2)
    return A10_SIZES[vm_size].devices_per_node // 2


def nodes_of(vm_size: str, aks_profile: str | None, placements: Iterable[Placement]) -> int:
    """Nodes of this size (and MIG profile) that run every replica at once: its devices are an A10 size's vGPUs or a
    MIG node's slices (`slice_kinds.devices_per_node`), and it holds `pairs_per_node` two-device replicas."""
    items = list(placements)
    two = sum(p.workload.count for p in items if p.workload.devices == 2)
    singles = sum(p.workload.count for p in items if p.workload.devices == 1)
    return node_count(devices_per_node(vm_size, aks_profile), two, singles, pairs_per_node(vm_size, aks_profile))


def node_count(per_node: int, pairs: int, singles: int, pairs_per_node: int = 1) -> int:
    """Nodes of `per_node` devices for `pairs` two-device replicas (`pairs_per_node` to a node: both A10s of a
    Standard_NV72ads_A10_v5, or two MIG slices on each GPU) and `singles` one-device ones: the pairs' nodes first, and
    the singles fill what the pairs leave before a node is added (what `nodes_of` counts)."""
    if not pairs:
        return math.ceil(singles / per_node)
    if pairs_per_node < 1:
        raise ValueError(f"a node of {per_node} devices holds no two-device replica")
    nodes = math.ceil(pairs / pairs_per_node)
    spare = nodes * per_node - 2 * pairs
    return nodes + math.ceil(max(0, singles - spare) / per_node)


def devices_of(placements: Iterable[Placement]) -> int:
    """Devices the replicas take at once."""
    return sum(p.workload.count * p.workload.devices for p in placements)


def requested_gib(p: Placement) -> float:
    """GPU memory per device a placed replica counts for: what it needs, or the whole slice it asked for (by size, or
    by an extended resource name alone: the slice its name gives it here)."""
    w = p.workload
    if w.resource is not None and not w.memory_gib and p.size_class is not None:
        return float(p.size_class)
    return w.requested_gib


def requested_of(placements: Iterable[Placement]) -> float:
    """GPU memory the replicas count for (a slice asked for by size or by name counts whole)."""
    return sum(requested_gib(p) * p.workload.count * p.workload.devices for p in placements)
