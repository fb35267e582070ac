"""Both families of slice as the planner buys them: A10 vGPU slices (one VM size, fixed slices) and MIG slices (a
MIG size partitioned by an AKS gpuInstanceProfile), each at its region's price.

"Which slice is this?" is asked of `kubernetes.slice_kinds` (`pool_slice`, `devices_per_node`, `usable_memory_gib`),
the one answer that knows both families; the catalogs (`catalog.sizes`, `catalog.mig`) say what each size holds.

- The price of a slice is the node's price divided by the slices a node holds (`devices_per_node`: an A10 size's
  vGPUs, or a MIG size's GPUs x the slices its profile lays out on each).
- A workload asked for by memory first gets, by the family rules, the A10 slice of the smallest class that holds it,
  else the MIG slice cheapest a slice that holds it with the memory margin (ties: the node with fewer slices, then less
  memory); `choice` then moves it to the slices of the cheapest plan, whole nodes paid for. Slices asked for by size
  (`--slice`) are A10 notions and stay A10's. A workload asking for an extended resource name gets only the slices its
  name's class selects (`Workload.takes`), of either family.
- Two devices per replica are two whole A10s of one Standard_NV72ads_A10_v5 node, or two MIG slices of one GPU (a claim
  for two devices that share `parentUUID`, `kubernetes.mig_claims.mig_pair_spec`; from CUDA 12/R570 one process
  enumerates one compute instance per GPU instance, so it sees both: NVIDIA's MIG user guide, "CUDA Device
  Enumeration"; AKS installs the R580 datacenter driver on the MIG sizes, Azure/AgentBaker `pkg/agent/baker.go`
  GetGPUDriverType). The two share no peer-to-peer link. A node holds `placement.pairs_per_node` of them.
- With a stack, a workload goes to the stack's MIG pools of the smallest slice that holds it (a spot pool only for a
  workload that opts in), else the cheapest MIG slice is suggested as a new pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..catalog import A10_SIZES, MIG_PROFILES, MIG_SIZES
from ..config import GpuPoolConfig
from ..kubernetes.mig_claims import mig_template_name
from ..kubernetes.slice_kinds import Slice, devices_per_node, holds, mig_kinds, order, pool_slice, usable_memory_gib
from ..kubernetes.tolerations import pool_tolerations
from .model import Placement, Workload
from .placement import node_count, pairs_per_node
from .prices import PriceTable

Family = Literal["a10", "mig"]
FAMILIES: tuple[Family, ...] = ("a10", "mig")


@dataclass(frozen=True)
class Offer:
    """Slices of one kind on one VM size (and, for MIG, one AKS profile), at a node price."""

    vm_size: str
    aks_profile: str | None
    kind: Slice
    per_node: int
    node_hourly: float | None

    @property
    def family(self) -> Family:
        """`a10` or `mig`."""
        return self.kind.family

    @property
    def per_slice(self) -> float | None:
        """The price of one slice an hour: the node's price / the slices a node holds."""
        return None if self.node_hourly is None else self.node_hourly / self.per_node

    def usable_gib(self, margin_percent: int) -> float:
        """What a workload may count on in one slice: its nominal memory less the margin."""
        return usable_memory_gib(self.kind, margin_percent)

    @property
    def pairs(self) -> int:
        """Two-device replicas a node holds (two slices of one GPU, or both A10s of one node)."""
        return pairs_per_node(self.vm_size, self.aks_profile)

    def holds(self, workload: Workload, margin_percent: int) -> bool:
        """Whether its slices may serve the workload: one each of its devices (`Workload.takes`: the slices its name
        selects, the memory at the margin, the rule `usable_gib` prints), two on one GPU or node for a pair."""
        return (workload.devices == 1 or self.pairs >= 1) and workload.takes(self.kind, margin_percent)

    def nodes(self, workload: Workload) -> int:
        """Nodes that hold the workload's replicas alone (a pair two slices of one GPU, or both A10s of a node)."""
        two = workload.count if workload.devices == 2 else 0
        return node_count(self.per_node, two, workload.count - two, self.pairs)

    @property
    def label(self) -> str:
        """How people name the slice: ``8 GiB slice`` or ``3g.47gb on H100 NVL 94GB``."""
        return self.kind.label


def offer(vm_size: str, aks_profile: str | None, prices: PriceTable) -> Offer:
    """The slices a node of this size (and profile) holds, at this table's price."""
    return Offer(vm_size, aks_profile, pool_slice(vm_size, aks_profile), devices_per_node(vm_size, aks_profile),
                 prices.hourly(vm_size))


def offers(prices: PriceTable, family: Family | None = None) -> list[Offer]:
    """Every slice on sale: each A10 size, and each MIG size under each AKS profile (or those of one family)."""
    found = [] if family == "mig" else [offer(vm, None, prices) for vm in A10_SIZES]
    if family != "a10":
        found += [offer(vm, profile, prices) for vm in MIG_SIZES for profile in MIG_PROFILES]
    return found


def rank(o: Offer) -> tuple[bool, float, int, int, str, str]:
    """Cheapest a slice first, priced before unpriced; then the node with fewer slices, less memory, by name."""
    return o.per_slice is None, o.per_slice or 0.0, o.per_node, o.kind.memory_gib, o.vm_size, o.aks_profile or ""


def holding(workload: Workload, margin_percent: int, found: list[Offer]) -> list[Offer]:
    """The offers one of whose slices holds the workload at the margin, cheapest first."""
    return sorted((o for o in found if o.holds(workload, margin_percent)), key=rank)


def mig_ready(workload: Workload) -> str | None:
    """Why a workload cannot go on a MIG slice here (asked for by A10 slice), or None."""
    if workload.slice_gib is not None:
        return "asked for by A10 slice (`--slice`); ask by memory (`--workload NAME=GiB`) to size it on MIG"
    return None


def _pool_offer(pool: GpuPoolConfig, prices: PriceTable) -> Offer:
    return offer(pool.vm_size, pool.mig_profile, prices)


def stack_mig_pools(workload: Workload, margin_percent: int, pools: list[GpuPoolConfig], prices: PriceTable
                    ) -> tuple[int, ...]:
    """The stack's MIG pools that may run this workload: of the smallest slice that holds it, of one VM size and
    profile (the first such pool's); spot pools for a workload that opts in (others when none), never otherwise."""
    fit = [i for i, p in enumerate(pools) if p.is_mig and p.mig_profile
           and _pool_offer(p, prices).holds(workload, margin_percent)]
    on_demand = [i for i in fit if pools[i].spot is None]
    spot = [i for i in fit if pools[i].spot is not None]
    chosen = (spot or on_demand) if workload.spot else on_demand
    if not chosen:
        return ()
    best = min(chosen, key=lambda i: (pool_slice(pools[i].vm_size, pools[i].mig_profile).memory_gib, i))
    same = (pools[best].vm_size, pools[best].mig_profile)
    return tuple(i for i in chosen if (pools[i].vm_size, pools[i].mig_profile) == same)


def place_mig(workload: Workload, margin_percent: int, pools: list[GpuPoolConfig], prices: PriceTable
              ) -> Placement | None:
    """The MIG slice for one workload: on the stack's MIG pools, else the cheapest MIG slice that holds it (None when
    none does, or the workload is not one for MIG)."""
    if mig_ready(workload) is not None:
        return None
    chosen = stack_mig_pools(workload, margin_percent, pools, prices)
    if chosen:
        o = _pool_offer(pools[chosen[0]], prices)
    else:
        found = holding(workload, margin_percent, offers(prices, "mig"))
        if not found:
            return None
        o = found[0]
    return Placement(workload, o.kind.memory_gib, o.vm_size, mig_template_name(o.kind, workload.devices),
                     pool_tolerations(pools[i] for i in chosen), chosen, o.aks_profile)


@dataclass(frozen=True)
class FamilyRow:
    """One workload on one family's slice: the offer, and what its replicas cost on whole nodes of it."""

    workload: Workload
    offer: Offer
    usable_gib: float
    planned: bool  # the slice the plan gives it

    @property
    def nodes(self) -> int:
        """Nodes that hold the workload's replicas alone."""
        return self.offer.nodes(self.workload)

    @property
    def hourly(self) -> float | None:
        """Those nodes' price an hour."""
        return None if self.offer.node_hourly is None else self.nodes * self.offer.node_hourly


def compare(placements: list[Placement], margin_percent: int, prices: PriceTable) -> list[FamilyRow]:
    """For each workload placed, the slice the plan gives it and, of each family, the slice cheapest a slice that
    holds it (when another), cheapest a slice first (a workload for one family alone gets that family's rows)."""
    rows: list[FamilyRow] = []
    for p in placements:
        if p.vm_size is None:
            continue
        planned = offer(p.vm_size, p.aks_profile, prices)
        here = [FamilyRow(p.workload, planned, planned.usable_gib(margin_percent), True)]
        for family in FAMILIES if mig_ready(p.workload) is None else ():
            best = next(iter(holding(p.workload, margin_percent, offers(prices, family))), None)
            if best is not None and (best.vm_size, best.aks_profile) != (p.vm_size, p.aks_profile):
                here.append(FamilyRow(p.workload, best, best.usable_gib(margin_percent), False))
        rows += sorted(here, key=lambda r: (rank(r.offer), not r.planned))
    return rows


def too_small(workload: Workload, margin_percent: int) -> Slice | None:
    """The MIG slice (least nominal memory) whose nominal memory holds the workload but whose usable memory does not:
    the one a reader would reach for, and why it is not the answer (none for a name: it gets what its name selects)."""
    if workload.resource is not None:
        return None
    found = [k for k in mig_kinds() if k.memory_gib >= workload.memory_gib and not holds(k, margin_percent, workload.memory_gib)
             and (workload.devices == 1 or k.per_gpu >= 2)]
    return min(found, key=order, default=None)


def mig_note(p: Placement, margin_percent: int, prices: PriceTable, pool_names: list[str]) -> str:
    """One line for a workload on a MIG slice: which slice, what it holds, where it comes from and its price."""
    assert p.vm_size is not None
    o = offer(p.vm_size, p.aks_profile, prices)
    w = p.workload
    where = (f"on {', '.join(pool_names[i] for i in p.stack_pools)} ({o.vm_size}, {o.aks_profile})" if p.stack_pools
             else f"the cheapest plan's slice for it (whole nodes paid for): {o.vm_size} ({o.aks_profile})")
    money = ("" if o.node_hourly is None or o.per_slice is None else
             f" at {o.node_hourly:.2f} {prices.currency} an hour holds {o.per_node}, {o.per_slice:.2f} "
             f"{prices.currency} a slice")
    small = too_small(w, margin_percent)
    smaller = (f"; a {small.profile} ({usable_memory_gib(small, margin_percent):.1f} GiB usable) is too small once the "
               "margin is taken" if small else "")
    usable = f"{o.usable_gib(margin_percent):.1f} GiB usable of {o.kind.memory_gib}"
    if w.devices == 2:
        gets = f"{w.asked} per device gets two {o.kind.profile} of one {o.kind.gpu_model} ({usable} each"
    else:
        gets = f"{w.asked} gets {o.label} ({usable}"
    return f"{w.name}: {gets} at the {margin_percent} % margin), {where}{money}{smaller}"
