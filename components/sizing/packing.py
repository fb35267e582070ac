"""Slices shared by GPU memory: workloads packed onto shared slices (first-fit decreasing), with nodes and cost.

Beside the planner's one-slice-per-replica answer, for pools with `sharing: memory`: every replica asks for its GPU
memory rounded up to whole GiB (the memory claim templates come in whole GiB: `kubernetes.memory_claims`), and replicas
are packed, largest first, into the first slice that still has room for them, a new slice opened only when none has
(first-fit decreasing: never more than 11/9 of the fewest slices plus one). A slice holds what it reports at the least
(its nominal memory less the margin), which is also what the scheduler will let claims take (`kubernetes.
shared_slices`). Every single-device VM size whose slice holds the largest replica is tried; the cheapest (or, without
prices, the one with the least GPU memory paid for) is the answer. Workloads asked for by slice, and two-device ones,
are not shared: they keep their whole slices.

What sharing does not give: no memory isolation (a pod can use more than it asked for and starve its neighbours) and
no fair share of compute between the pods on one GPU; MPS is not available with consumable shares (the driver refuses
it: cmd/gpu-kubelet-plugin/device_state.go).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ..catalog import A10_SIZES
from ..kubernetes.selectors import usable_memory_gib
from .model import Workload
from .prices import PriceTable


@dataclass(frozen=True)
class SharedSlice:
    """One shared slice and the replicas packed onto it (name, GiB)."""

    replicas: tuple[tuple[str, int], ...]

    @property
    def used_gib(self) -> int:
        """GPU memory the replicas ask for."""
        return sum(gib for _, gib in self.replicas)


@dataclass(frozen=True)
class SharedOption:
    """The replicas packed onto slices of one VM size: slices, nodes, cost."""

    vm_size: str
    usable_gib: float
    slices: tuple[SharedSlice, ...]
    nodes: int
    hourly: float | None
    monthly: float | None

    @property
    def requested_gib(self) -> int:
        """GPU memory every replica asks for, together."""
        return sum(s.used_gib for s in self.slices)

    @property
    def provisioned_gib(self) -> int:
        """Nominal GPU memory of the nodes paid for."""
        size = A10_SIZES[self.vm_size]
        return self.nodes * size.devices_per_node * size.gpu_memory_gib


@dataclass(frozen=True)
class SharedPlan:
    """The cheapest packing, every packing tried, and the workloads that are not shared (by slice, two devices)."""

    best: SharedOption | None
    options: tuple[SharedOption, ...]
    not_shared: tuple[str, ...]


def replicas_of(workloads: list[Workload]) -> tuple[list[tuple[str, int]], list[str]]:
    """(name, GiB asked for) per replica of the workloads that can share, and the names of those that cannot."""
    shared, kept = [], []
    for w in workloads:
        if w.slice_gib is not None or w.devices != 1:
            kept.append(w.name)
            continue
        gib = max(1, math.ceil(w.memory_gib))
        shared += [(w.name if w.count == 1 else f"{w.name}#{i + 1}", gib) for i in range(w.count)]
    return shared, kept


def first_fit_decreasing(replicas: list[tuple[str, int]], capacity_gib: float) -> list[SharedSlice] | None:
    """Replicas packed largest first into the first slice with room; None when one is larger than a slice holds."""
    bins: list[list[tuple[str, int]]] = []
    for name, gib in sorted(replicas, key=lambda r: (-r[1], r[0])):
        if gib > capacity_gib:
            return None
        for slot in bins:
            if sum(g for _, g in slot) + gib <= capacity_gib:
                slot.append((name, gib))
                break
        else:
            bins.append([(name, gib)])
    return [SharedSlice(tuple(slot)) for slot in bins]


def pack_shared(workloads: list[Workload], margin_percent: int, prices: PriceTable) -> SharedPlan:
    """Every single-device VM size that can hold the largest replica, packed; the cheapest first."""
    replicas, kept = replicas_of(workloads)
    options = []
    for size in A10_SIZES.values():
        if size.devices_per_node != 1 or not replicas:
            continue
        usable = usable_memory_gib(size.gpu_memory_gib, margin_percent)
        slices = first_fit_decreasing(replicas, usable)
        if slices is None:
            continue
        nodes = math.ceil(len(slices) / size.devices_per_node)
        hourly = prices.hourly(size.vm_size)
        hourly = None if hourly is None else hourly * nodes
        monthly = None if hourly is None else hourly * prices.hours_per_month
        options.append(SharedOption(size.vm_size, usable, tuple(slices), nodes, hourly, monthly))
    options.sort(key=lambda o: (o.hourly is None, o.hourly or 0.0, o.provisioned_gib, o.vm_size))
    return SharedPlan(options[0] if options else None, tuple(options), tuple(kept))


def to_dict(plan: SharedPlan) -> dict[str, Any]:
    """The JSON shape."""
    def option(o: SharedOption) -> dict[str, Any]:
        return {"vmSize": o.vm_size, "usableGiBPerSlice": round(o.usable_gib, 2), "slices": len(o.slices),
                "nodes": o.nodes, "hourly": None if o.hourly is None else round(o.hourly, 4),
                "monthly": None if o.monthly is None else round(o.monthly, 2),
                "requestedGiB": o.requested_gib, "provisionedGiB": o.provisioned_gib,
                "packing": [[f"{n} {g} GiB" for n, g in s.replicas] for s in o.slices]}

    return {"best": option(plan.best) if plan.best else None, "options": [option(o) for o in plan.options],
            "notShared": list(plan.not_shared)}


def to_markdown(plan: SharedPlan, currency: str, heading: str = "###") -> str:
    """The packing for docs/sizing.md and `size --sharing memory --format markdown`."""
    lines = [f"{heading} Shared by memory (pools with `sharing: memory`)", ""]
    if plan.best is None:
        return "\n".join([*lines, "Nothing to share: every workload asks for a slice, or two devices.", ""])
    lines += ["| VM size | GiB a slice holds | slices | nodes | per hour | per month | GPU memory asked / paid for |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for o in plan.options:
        money = ("-", "-") if o.hourly is None else (f"{o.hourly:.2f} {currency}", f"{o.monthly:.0f} {currency}")
        mark = " (cheapest)" if o is plan.best else ""
        lines.append(f"| `{o.vm_size}`{mark} | {o.usable_gib:.1f} | {len(o.slices)} | {o.nodes} | {money[0]} "
                     f"| {money[1]} | {o.requested_gib} / {o.provisioned_gib} GiB |")
    lines += ["", f"On `{plan.best.vm_size}`, slice by slice (first-fit decreasing):", ""]
    lines += [f"{i + 1}. {', '.join(f'{n} ({g} GiB)' for n, g in s.replicas)}: {s.used_gib} of "
              f"{plan.best.usable_gib:.1f} GiB" for i, s in enumerate(plan.best.slices)]
    if plan.not_shared:
        lines += ["", f"Not shared (asked for by slice, or two devices): {', '.join(plan.not_shared)}."]
    lines += ["", "Sharing gives no memory isolation and no fair share of compute between the pods on one slice; "
              "MPS is not available with it.", ""]
    return "\n".join(lines)


def to_text(plan: SharedPlan, currency: str) -> str:
    """The packing for a terminal (the Markdown, whose tables read well enough as text)."""
    return to_markdown(plan, currency, heading="").lstrip() + "\n"


def with_shared(report: str, fmt: str, plan: SharedPlan, currency: str) -> str:
    """A `size` report with the packing added: a `sharedByMemory` key in JSON, a section after the text or Markdown."""
    if fmt == "json":
        document = json.loads(report)
        document["sharedByMemory"] = to_dict(plan)
        return json.dumps(document, indent=2, sort_keys=True) + "\n"
    return report + "\n" + (to_markdown(plan, currency) if fmt == "markdown" else to_text(plan, currency))
