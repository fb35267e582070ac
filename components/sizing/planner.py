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

from dataclasses import replace
from typing import Any

from ..catalog import A10_SIZES, MIG_PROFILES, MIG_SIZES
from ..config import GpuPoolConfig, StackConfig
from ..config.credentials import CREDENTIAL_SHOWN, without_credentials
from ..kubernetes.selectors import SIZE_CLASSES
from ..kubernetes.selectors import usable_memory_gib as a10_usable_gib
from ..kubernetes.slice_kinds import mig_kinds, usable_memory_gib
from .choice import choose
from .cost import WHOLE_A10, costs, whole_gpus
from .extended import named_no_fit
from .families import FAMILIES, Family, compare, mig_note, mig_ready, place_mig
from .model import SLICE_SIZES, Change, CostLine, Finding, Placement, PoolPlan, Workload
from .packing import pack_shared
from .placement import devices_of, margin_note, no_fit, nodes_for, nodes_of, place, size_class_for
from .plan import SizingPlan
from .prices import PriceTable
from .stack_pools import check_stack, suggest_pools

__all__ = [
    "SLICE_SIZES", "WHOLE_A10", "Change", "CostLine", "Finding", "Placement", "PoolPlan", "SizingPlan", "Workload",
    "nodes_for", "plan_sizing", "size_class_for", "usable_sizes",
]


def usable_sizes(margin_percent: int) -> dict[int, float]:
    """Each size class's usable GPU memory (GiB) at this margin, smallest first."""
    return {s: a10_usable_gib(s, margin_percent) for s in SIZE_CLASSES}


def _pool_plans(placed: list[Placement]) -> list[PoolPlan]:
    """One plan per VM size (and MIG profile) and set of stack pools (catalog order: A10 slices smallest first, then
    the MIG sizes and profiles)."""
    groups: dict[tuple[str, str | None, tuple[int, ...]], list[Placement]] = {}
    for p in placed:
        assert p.vm_size is not None
        groups.setdefault((p.vm_size, p.aks_profile, p.stack_pools), []).append(p)
    order = [*A10_SIZES, *MIG_SIZES]

    def key(k: tuple[str, str | None, tuple[int, ...]]) -> tuple[int, int, tuple[int, ...]]:
        return order.index(k[0]), MIG_PROFILES.index(k[1]) if k[1] else -1, k[2]

    plans = []
    for (vm_size, profile, stack_pools), here in sorted(groups.items(), key=lambda kv: key(kv[0])):
        nodes = nodes_of(vm_size, profile, here)
        plans.append(PoolPlan(vm_size, devices_of(here), nodes, min(1, nodes), nodes, stack_pools,
                              tuple(p.workload.name for p in here), profile))
    return plans


def families_of(family: Family | None, stack: StackConfig | None) -> tuple[Family, ...]:
    """The families a plan chooses from: the one asked for; else a stack's own (its pools'); else A10 alone (the
    `size` command opens both when there is no stack)."""
    if family is not None:
        return (family,)
    if stack is not None:
        kinds = {"mig" if p.is_mig else "a10" for p in stack.gpu_pools}
        return tuple(f for f in FAMILIES if f in kinds)
    return ("a10",)


def _place(w: Workload, margin: int, klass: str, pools: list[GpuPoolConfig], prices: PriceTable,
           families: tuple[Family, ...]) -> Placement:
    """A stack's pool that holds it (A10 first, as before, then MIG); else a new A10 slice, else a new MIG slice."""
    a10 = place(w, margin, klass, pools) if "a10" in families else None
    if a10 is not None and a10.stack_pools:
        return a10
    mig = place_mig(w, margin, pools, prices) if "mig" in families else None
    if mig is not None and mig.stack_pools:
        return mig
    if a10 is not None and a10.vm_size is not None:
        return a10
    return mig or a10 or Placement(w, None, None, None, [])


def _no_fit(index: int, w: Workload, margin: int, families: tuple[Family, ...], family: Family | None,
            on_stack: bool) -> Finding:
    """The error for a workload no slice of the families holds (A10 alone: as before; by name: `extended`)."""
    if w.resource is not None:
        return named_no_fit(index, w, margin, families, family, on_stack)
    key = f"workloads[{index}]"
    reason = mig_ready(w)
    if families == ("mig",):
        if reason:
            return Finding("error", "no-fit", f"{w.name}: {reason}; it is not placed", key)
    elif "mig" not in families or reason:
        return no_fit(index, w, margin)
    kinds = [k for k in mig_kinds() if w.devices == 1 or k.per_gpu >= 2]  # a pair: two slices of one GPU
    most = max(kinds, key=lambda k: usable_memory_gib(k, margin))
    which = "any MIG slice holds" if w.devices == 1 else "a MIG slice that comes two to a GPU holds"
    mig = (f"more than {which} (at most {usable_memory_gib(most, margin):.1f} GiB usable: {most.label}, with the "
           f"{margin} % margin)")
    if "a10" not in families:
        per = "" if w.devices == 1 else " per device"
        return Finding("error", "no-fit", f"{w.name}: {w.memory_gib:g} GiB{per} is {mig}; it is not placed", key)
    a10 = no_fit(index, w, margin)
    return replace(a10, message=a10.message.replace("; it is not placed", f"; and {mig}; it is not placed"))


def plan_sizing(
    workloads: list[Workload], prices: PriceTable, stack: StackConfig | None = None,
    margin_percent: int | None = None, device_class: str | None = None,
    written_pools: list[dict[str, Any]] | None = None, price_findings: list[Finding] | None = None,
    sharing: bool = False, family: Family | None = None, compare_families: bool = False,
) -> SizingPlan:
    """Places every workload, counts nodes per pool, costs the plan and its baselines, checks the stack if given.

    The margin and the DeviceClass are the stack's samples settings when a stack is given, else the defaults (or
    what the caller says). `written_pools` is the stack file's own gpuPools list (kept as written in the suggestion);
    `price_findings` are the price table's own warnings (a region it fell back from); `sharing` adds the packing onto
    shared slices (`packing`), compared with this plan. `family` restricts the slices to one family (else
    `families_of`); `compare_families` opens both (without a stack) and compares them per workload."""
    from ..config import SamplesConfig

    samples = stack.samples if stack else SamplesConfig()
    margin = samples.memory_margin_percent if margin_percent is None else margin_percent
    klass = samples.device_class_name if device_class is None else device_class
    stack_pools = stack.gpu_pools if stack else []
    families = FAMILIES if compare_families and family is None and stack is None else families_of(family, stack)
    placements = choose([_place(w, margin, klass, stack_pools, prices, families) for w in workloads], margin, klass,
                        prices, families)
    findings = list(price_findings or [])
    findings += [_no_fit(i, p.workload, margin, families, family, stack is not None)
                 for i, p in enumerate(placements) if p.vm_size is None]
    notes = [n for n in (margin_note(p, margin) for p in placements if p.aks_profile is None) if n]
    notes += [mig_note(p, margin, prices, [q.name for q in stack_pools]) for p in placements if p.aks_profile]
    placed = [p for p in placements if p.vm_size is not None]
    pools = _pool_plans(placed)
    for vm_size in sorted({p.vm_size for p in pools} | set(whole_gpus(placed))):
        if prices.hourly(vm_size) is None:
            findings.append(Finding("warning", "no-price", f"no price known for {vm_size} in {prices.region} (the "
                                    "price table has none there, so Azure is not known to sell it there; `size "
                                    "--regions all` shows where it is priced); it is left out of the sums, which say "
                                    "they are partial, never counted as 0", "prices"))
    if stack is not None:
        findings += check_stack(stack, pools, [p.workload for p in placements if p.vm_size is None])
    snippet, changes = suggest_pools(pools, stack, written_pools)
    shown = without_credentials(snippet, "gpuPools", CREDENTIAL_SHOWN)  # printed, and pasted into PR comments
    if shown is not snippet:
        notes.append(f"the suggested gpuPools show a value or key that looks like a credential as '{CREDENTIAL_SHOWN}'; "
                     "keep the stack file's own there, or better, keep the credential out of plain text (`pulumi "
                     "config set --secret`)")
        snippet = shown
    lines = costs(pools, placed, prices)
    shared = None
    if sharing:
        plain = (lines["plan"], sum(p.nodes for p in pools), sum(p.devices for p in pools))
        shared = pack_shared(workloads, margin, prices, placements, plain, stack_pools)
    compared = compare(placements, margin, prices) if len(families) > 1 and stack is None else []
    return SizingPlan(margin, klass, placements, pools, lines, prices, findings, snippet, changes, notes,
                      [p.name for p in stack_pools], stack is not None, shared, None, families, compared)
