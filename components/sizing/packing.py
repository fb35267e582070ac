"""Slices shared by GPU memory: workloads packed onto shared slices (first-fit decreasing), with nodes and cost, and
compared with the one-slice-per-replica plan.

Beside the planner's one-slice-per-replica answer, for pools with `sharing: memory`: every replica asks for its GPU
memory rounded up to whole GiB (the memory claim templates come in whole GiB: `kubernetes.memory_claims`), and replicas
are packed, largest first, into the first slice that still has room for them, a new slice opened only when none has
(first-fit decreasing: never more than 11/9 of the fewest slices plus one). Whether a slice has room is decided by the
scheduler's own consumable-capacity rule (`kubernetes.shared_slices.fits`, over the request policy the driver publishes
for a slice reporting what its band admits at the least: nominal memory less the margin), not by a copy of it here.

Where the replicas may go: without a stack, every single-device VM size whose slice holds the largest replica; with a
stack that has pools with `sharing: memory`, those pools (a spot pool only for the workloads that opt in, as the
planner's placement rule has it), each in its own numbers (its maxCount). Workloads asked for by slice, two-device
ones, and a replica no candidate slice holds keep their whole slices, as the plan places them; an option's cost counts
them, so every option is compared with the plan for the same workloads. The cheapest option comes first, and the
plan says which is cheaper: sharing, or one slice per replica.

What sharing does not give: no memory isolation (a pod can use more than it asked for and starve its neighbours) and
no fair share of compute between the pods on one GPU; MPS is not available with consumable shares (the driver refuses
it: cmd/gpu-kubelet-plugin/device_state.go).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ..catalog import A10_SIZES
from ..config import GpuPoolConfig
from ..kubernetes.selectors import min_memory_mib
from ..kubernetes.shared_slices import MIB, MemoryPolicy, fits, published_policy
from .cost import cost_line, placed_cost
from .model import CostLine, Placement, Workload
from .prices import PriceTable
from .stack_pools import max_nodes

GIB_MIB = 1024
PlainPlan = tuple[CostLine, int, int]
"""The one-slice-per-replica plan as the packing is compared with it: its cost, nodes and devices."""


@dataclass(frozen=True)
class SharedSlice:
    """One shared slice and the replicas packed onto it (name, GiB)."""

    replicas: tuple[tuple[str, int], ...]

    @property
    def used_gib(self) -> int:
        """GPU memory the replicas ask for."""
        return sum(gib for _, gib in self.replicas)


@dataclass(frozen=True)
class Candidate:
    """Where replicas may be packed: a VM size, or a stack's shared pool of one."""

    vm_size: str
    pool: str | None = None
    pool_index: int | None = None
    max_nodes: int | None = None
    spot: bool = False


@dataclass(frozen=True)
class SharedOption:
    """The replicas packed onto slices of one VM size (or one shared pool): slices, nodes, cost, and the workloads it
    leaves on their own slices (`kept`: their cost as the plan places them)."""

    vm_size: str
    usable_gib: float
    slices: tuple[SharedSlice, ...]
    nodes: int
    hourly: float | None
    monthly: float | None
    pool: str | None = None
    pool_index: int | None = None
    max_nodes: int | None = None
    kept: CostLine | None = None
    not_shared: tuple[str, ...] = ()

    @property
    def requested_gib(self) -> int:
        """GPU memory every shared replica asks for, together."""
        return sum(s.used_gib for s in self.slices)

    @property
    def provisioned_gib(self) -> int:
        """Nominal GPU memory of the nodes paid for."""
        size = A10_SIZES[self.vm_size]
        return self.nodes * size.devices_per_node * size.gpu_memory_gib

    @property
    def total_hourly(self) -> float | None:
        """Per hour for every workload: the shared nodes and the kept workloads' own slices."""
        if self.hourly is None or (self.kept is not None and self.kept.hourly is None):
            return None
        return self.hourly + ((self.kept.hourly or 0.0) if self.kept else 0.0)

    @property
    def label(self) -> str:
        """How people read the option: the pool and its size, or the size."""
        return f"{self.pool} ({self.vm_size})" if self.pool else self.vm_size


@dataclass(frozen=True)
class SharedPlan:
    """The cheapest packing, every packing tried, the workloads no option shares, the plan it is compared with, and
    one line for each candidate that cannot take the replicas (or has too few nodes)."""

    best: SharedOption | None
    options: tuple[SharedOption, ...]
    not_shared: tuple[str, ...]
    plain: CostLine | None = None
    plain_nodes: int = 0
    plain_devices: int = 0
    notes: tuple[str, ...] = ()
    stack_pools: bool = False  # the candidates are the stack's shared pools

    @property
    def cheaper(self) -> Literal["plan", "shared", "same"] | None:
        """Which costs less for the same workloads: the one-slice-per-replica plan or the best sharing (None: no
        option, or a price missing)."""
        shared = self.best.total_hourly if self.best else None
        plan = self.plain.hourly if self.plain else None
        if shared is None or plan is None:
            return None
        if math.isclose(shared, plan, abs_tol=0.005):
            return "same"
        return "shared" if shared < plan else "plan"


def slice_policy(gpu_memory_gib: int, margin_percent: int) -> MemoryPolicy:
    """The request policy the driver publishes for a shared slice of this size that reports the least its band admits
    (nominal less the margin): what the planner may count on."""
    return published_policy(min_memory_mib(gpu_memory_gib, margin_percent) * MIB)


def replicas_of(workloads: list[Workload]) -> tuple[list[tuple[str, int]], list[str]]:
    """(name, GiB asked for) per replica of the workloads that can share, and the names of those that cannot: asked
    for by slice, two devices, or an extended resource name (the scheduler's claim takes a device its class selects)."""
    shared, kept = [], []
    for w in workloads:
        if w.slice_gib is not None or w.devices != 1 or w.resource is not None:
            kept.append(w.name)
            continue
        gib = max(1, math.ceil(w.memory_gib))
        shared += [(w.name if w.count == 1 else f"{w.name}#{i + 1}", gib) for i in range(w.count)]
    return shared, kept


def first_fit_decreasing(replicas: list[tuple[str, int]], policy: MemoryPolicy) -> list[SharedSlice] | None:
    """Replicas packed largest first into the first slice the scheduler would let them share; None when one is
    larger than a slice holds."""
    bins: list[list[tuple[str, int]]] = []
    asked: list[list[int]] = []  # the MiB each slice's claims request, as the scheduler charges them
    # A slice that once had no room for a request never has room for it again (slices only fill up), so the search
    # for each request size starts at the first slice not yet found full for it: each slice is tried at most once
    # per size it refuses, not once per replica.
    start: dict[int, int] = {}
    for name, gib in sorted(replicas, key=lambda r: (-r[1], r[0])):
        mib = gib * GIB_MIB
        if not fits([mib], policy):
            return None
        i = start.get(gib, 0)
        while i < len(bins) and not fits([*asked[i], mib], policy):
            i += 1
        start[gib] = i
        if i == len(bins):
            bins.append([])
            asked.append([])
        bins[i].append((name, gib))
        asked[i].append(mib)
    return [SharedSlice(tuple(slot)) for slot in bins]


def candidates(pools: list[GpuPoolConfig] | None) -> list[Candidate]:
    """The stack's shared pools, or (no stack, or none shares) every single-device VM size."""
    shared = [Candidate(p.vm_size, p.name, i, max_nodes(p), p.spot is not None)
              for i, p in enumerate(pools or []) if p.sharing == "memory"]
    return shared or [Candidate(s.vm_size) for s in A10_SIZES.values() if s.devices_per_node == 1]


def _base(name: str) -> str:
    return name.split("#", 1)[0]


def _option(c: Candidate, replicas: list[tuple[str, int]], kept: list[str], margin: int, prices: PriceTable,
            placed: dict[str, Placement]) -> SharedOption | str:
    """One candidate packed, or the line saying why it cannot take the replicas."""
    size = A10_SIZES[c.vm_size]
    policy = slice_policy(size.gpu_memory_gib, margin)
    slices = first_fit_decreasing(replicas, policy)
    usable = policy.capacity_mib / GIB_MIB
    if slices is None:
        largest = max(replicas, key=lambda r: r[1])
        return (f"{c.pool} ({c.vm_size}) shares slices that hold {usable:.1f} GiB: too small for "
                f"{_base(largest[0])} ({largest[1]} GiB)")
    nodes = math.ceil(len(slices) / size.devices_per_node)
    line = cost_line("", {c.vm_size: nodes}, 0, prices)
    kept_line = placed_cost("kept", [placed[n] for n in kept if n in placed], prices) if kept else None
    return SharedOption(c.vm_size, usable, tuple(slices), nodes, line.hourly, line.monthly, c.pool, c.pool_index,
                        c.max_nodes, kept_line, tuple(kept))


def _too_big(w: Workload, holds: dict[str | None, float]) -> str:
    """The line for a workload whose replicas no candidate's slice holds (by pool, or the most any size holds)."""
    gib = math.ceil(w.memory_gib)
    rounded = f" ({w.memory_gib:g} rounded up to whole GiB)" if gib != w.memory_gib else ""
    where = (", ".join(f"{pool}: {usable:.1f} GiB" for pool, usable in holds.items()) if None not in holds
             else f"at most {max(holds.values()):.1f} GiB")
    return (f"{w.name} asks for {gib} GiB a replica{rounded}, more than a shared slice holds ({where}); it keeps its "
            "own slice")


def _capacity_note(o: SharedOption, pools: list[GpuPoolConfig]) -> str | None:
    if o.pool_index is None or o.max_nodes is None or o.nodes <= o.max_nodes:
        return None
    pool = pools[o.pool_index]
    key = f"gpuPools[{o.pool_index}].{'autoscaling.maxCount' if pool.autoscaling else 'count'}"
    return (f"{o.pool} ({o.vm_size}) runs at most {o.max_nodes} node{'s' if o.max_nodes != 1 else ''}; this packing "
            f"needs {o.nodes}: raise {key} to {o.nodes}")


def pack_shared(workloads: list[Workload], margin_percent: int, prices: PriceTable,
                placements: list[Placement] | None = None, plain: PlainPlan | None = None,
                pools: list[GpuPoolConfig] | None = None) -> SharedPlan:
    """Every candidate (the stack's shared pools, else every single-device VM size) packed, the cheapest for every
    workload first, compared with `plain` (the one-slice-per-replica plan of `placements`: its cost, nodes, devices)."""
    placed = {p.workload.name: p for p in placements or [] if p.vm_size is not None}
    unplaced = {p.workload.name for p in placements or [] if p.vm_size is None}
    replicas, kept = replicas_of([w for w in workloads if w.name not in unplaced])
    found = candidates(pools)
    notes: list[str] = []
    if replicas:  # a replica no candidate's slice holds keeps its own slice
        holds = {c.pool: slice_policy(A10_SIZES[c.vm_size].gpu_memory_gib, margin_percent).capacity_mib / GIB_MIB
                 for c in found}
        shareable = {_base(n) for n, _ in replicas}
        for w in workloads:
            if w.name in shareable and math.ceil(w.memory_gib) > max(holds.values()):
                kept.append(w.name)
                notes.append(_too_big(w, holds))
        replicas = [r for r in replicas if _base(r[0]) not in kept]
    spot = {w.name for w in workloads if w.spot}
    options: list[SharedOption] = []
    for c in found:
        mine = [r for r in replicas if not c.spot or _base(r[0]) in spot]  # a spot pool serves only those who opt in
        if not mine:
            continue
        others = kept + sorted({_base(n) for n, _ in replicas} - {_base(n) for n, _ in mine})
        option = _option(c, mine, others, margin_percent, prices, placed)
        if isinstance(option, str):
            if c.pool:  # a size too small for the largest replica is simply not an option
                notes.append(option)
            continue
        options.append(option)
    options.sort(key=lambda o: (o.total_hourly is None, o.total_hourly or 0.0, o.provisioned_gib, o.vm_size,
                                o.pool or ""))
    notes += [n for n in (_capacity_note(o, pools or []) for o in options) if n]
    stack_pools = any(c.pool for c in found)
    cost, nodes, devices = plain or (None, 0, 0)
    return SharedPlan(options[0] if options else None, tuple(options), tuple(kept), cost, nodes, devices, tuple(notes),
                      stack_pools)
