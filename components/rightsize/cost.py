"""What slices cost: a slice's price is its VM's hourly price at the region (the package's price table,
`sizing.prices`) divided by the slices that VM holds (`slice_kinds.devices_per_node`: an A10 size's vGPUs, or GPUs x
the MIG layout's slices per GPU). Pure.

Which VM: the stack's first GPU pool of that slice (with `--stack`), else the smallest VM size that has it, as `size`
plans a size class on its smallest VM size (`sizing.planner`). A 24 GiB A10 slice is then a Standard_NV36ads_A10_v5,
though a Standard_NV72ads_A10_v5 also holds two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog import MIG_SIZES, slice_profile_to_aks
from ..kubernetes.selectors import vm_sizes_of_class
from ..kubernetes.slice_kinds import Slice, devices_per_node, slice_of_pool
from ..sizing.prices import PriceTable
from .units import IdleDevice
from .usage import Measurements
from .verdicts import IDLE, Assessment, intervals, slice_of


@dataclass(frozen=True)
class SlicePrice:
    """One slice's VM, the slices a node of it holds, and the price of one slice for an hour (None: unpriced)."""

    vm_size: str
    per_node: int
    hourly: float | None


def slice_price(kind: Slice, prices: PriceTable, pools: Sequence[Any] = ()) -> SlicePrice | None:
    """What one slice of this kind costs an hour; None when no VM size the package knows has it."""
    pool = next((p for p in pools if slice_of_pool(p) == kind), None)
    if pool is not None:
        vm, profile = pool.vm_size, pool.mig_profile
    elif kind.family == "a10":
        sizes = vm_sizes_of_class(kind.memory_gib)
        if not sizes:
            return None
        vm, profile = sizes[0].vm_size, None
    else:
        vm = next((s.vm_size for s in MIG_SIZES.values() if s.gpu.model == kind.gpu_model
                   and slice_profile_to_aks(s.vm_size, kind.profile)), "")
        if not vm:
            return None
        profile = slice_profile_to_aks(vm, kind.profile)
    per_node = devices_per_node(vm, profile)
    node = prices.hourly(vm)
    return SlicePrice(vm, per_node, None if node is None else node / per_node)


@dataclass(frozen=True)
class Costed:
    """An assessment with what it costs an hour now and recommended, and over the window."""

    assessment: Assessment
    now: SlicePrice | None
    hourly_now: float | None
    hourly_recommended: float | None
    window_cost: float | None  # device-hours x the price of the slice held


def cost(found: Assessment, prices: PriceTable, pools: Sequence[Any] = ()) -> Costed:
    """The assessment's prices: now = devices held at once x its slice's price; recommended = the same devices of the
    recommended slice (0 for an idle slice, which is released; as now where nothing is recommended)."""
    now = slice_price(found.held, prices, pools) if found.held else None
    hourly_now = now.hourly * found.devices if now and now.hourly is not None else None
    if found.verdict == IDLE:
        recommended: float | None = 0.0
    elif found.recommended is None or found.recommended == found.held:
        recommended = hourly_now
    else:
        price = slice_price(found.recommended, prices, pools)
        recommended = price.hourly * found.devices if price and price.hourly is not None else None
    window = now.hourly * found.hours if now and now.hourly is not None else None
    return Costed(found, now, hourly_now, recommended, window)


@dataclass(frozen=True)
class IdleLine:
    """An idle device, its slice, its price per hour and the hours it was published in the window."""

    device: IdleDevice
    kind: Slice | None
    hourly: float | None
    hours: float


def idle_lines(idle: Sequence[IdleDevice], found: Measurements, prices: PriceTable, pools: Sequence[Any],
               margin_percent: int, step_s: int) -> list[IdleLine]:
    """Each idle device with its slice, its price per hour and the hours it was published."""
    lines = []
    for device in idle:
        kind = slice_of(device.rows[0], found.framebuffer.get(device.device), margin_percent)
        price = slice_price(kind, prices, pools) if kind else None
        spans = intervals(device.rows, step_s)
        hours = sum(end - start for found_spans in spans.values() for start, end in found_spans) / 3600
        lines.append(IdleLine(device, kind, price.hourly if price else None, hours))
    return lines


def namespaces(costed: Sequence[Costed]) -> list[tuple[str, str, float, float | None]]:
    """Per cluster and namespace (a shared claim's own; MIG slices no pod is named on under ""): slice-hours and their
    cost over the window, the chargeback OpenCost cannot do for fractional or DRA slices."""
    found: dict[tuple[str, str], tuple[float, float | None]] = {}
    for item in costed:
        unit = item.assessment.unit
        hours, money = found.get((unit.cluster, unit.namespace), (0.0, 0.0))
        money = None if money is None or item.window_cost is None else money + item.window_cost
        found[(unit.cluster, unit.namespace)] = (hours + item.assessment.hours, money)
    return [(cluster, namespace, hours, money) for (cluster, namespace), (hours, money) in sorted(found.items())]
