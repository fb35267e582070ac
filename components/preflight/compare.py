"""Demand against what is free: per subscription and region, each VM family's vCPUs, the regional total and Spot, and
each VM size's restrictions in the region and in the pools' zones. Pure.

A family's needs add up across every pool (and, for a fleet, every member stack) that deploys to the same subscription
and region; a size's family and vCPUs come only from the SKU API (`family`, the `vCPUs` capability), never from its
name. A VM must fit both its family's quota and the regional total (MicrosoftDocs/azure-compute-docs
articles/virtual-machines/quotas.md: "the vCPUs for the VM must not exceed the vCPU quota for the VM size family or the
total regional vCPU quota"); a Spot VM only the Spot quota (`demand` says why).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .demand import PoolDemand, StackDemand
from .facts import REGIONAL_TOTAL, SPOT_TOTAL, RegionFacts, Sku

FAMILY, REGIONAL, SPOT = "family", "regional", "spot"


@dataclass(frozen=True)
class QuotaCheck:
    """One quota of one region: what the stacks need at most, the limit, the use, and the pools that need it."""

    subscription: str
    region: str
    name: str  # the quota as the usages API names it: a VM family, `cores` or `lowPriorityCores`
    kind: str  # FAMILY, REGIONAL or SPOT
    needed: int
    limit: int
    used: int
    pools: tuple[str, ...]  # "stack/pool" of each pool counted
    listed: bool = True  # False: the region's usages name no such quota (taken as limit 0)
    surge: int = 0  # the part of `needed` that only an upgrade's surge nodes use

    @property
    def available(self) -> int:
        """vCPUs free under the limit."""
        return max(0, self.limit - self.used)

    @property
    def missing(self) -> int:
        """vCPUs the limit lacks for what is needed (0 when it fits)."""
        return max(0, self.needed - self.available)

    @property
    def ok(self) -> bool:
        """Whether what is needed fits what is free."""
        return self.missing == 0


@dataclass(frozen=True)
class SkuCheck:
    """One VM size in one region: why this subscription cannot use it there (nothing when it can)."""

    subscription: str
    region: str
    vm_size: str
    pools: tuple[str, ...]
    pool_zones: tuple[str, ...]  # every zone a pool of this size asks for
    zones: tuple[str, ...]  # zones where the size is offered and open to this subscription
    restricted: tuple[str, ...]  # one reason a line; empty when usable
    priced_in: tuple[str, ...] = ()  # regions of the package's price table that price the size (when restricted)

    @property
    def ok(self) -> bool:
        """Whether every pool of this size can get its VMs here."""
        return not self.restricted


@dataclass(frozen=True)
class Preflight:
    """Every quota and size checked, and lines worth saying that are no shortfall."""

    quotas: tuple[QuotaCheck, ...]
    skus: tuple[SkuCheck, ...]
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Enough quota everywhere and no size restricted."""
        return all(q.ok for q in self.quotas) and all(s.ok for s in self.skus)


def _label(p: PoolDemand) -> str:
    return f"{p.stack}/{p.pool}"


def sku_reasons(sku: Sku | None, region: str, pool_zones: Iterable[str], spot: bool) -> list[str]:
    """Why pools of this size (in these zones; on Spot when `spot`) cannot get their VMs in `region`."""
    if sku is None:
        return [f"not offered in {region}: the SKU list for this subscription and region has no such size"]
    reasons = []
    whole = sku.region_restriction
    if whole is not None:
        reasons.append(f"restricted in {region} for this subscription ({whole.reason})")
    closed = set(sku.restricted_zones)
    zones = sorted(set(pool_zones))
    restricted = [z for z in zones if z in closed]
    if restricted:
        why = ", ".join(sorted({r.reason for r in sku.restrictions if r.kind == "Zone"}))
        reasons.append(f"zone {', '.join(restricted)} restricted for this subscription ({why})")
    absent = [z for z in zones if z not in closed and z not in sku.zones]
    if absent:
        reasons.append(f"zone {', '.join(absent)} does not offer it")
    if spot and sku.spot_capable is False:
        reasons.append("not offered as Spot (LowPriorityCapable is False)")
    return reasons


def _region_checks(demands: list[StackDemand], facts: RegionFacts,
                   priced_in: Callable[[str], list[str]]) -> tuple[list[QuotaCheck], list[SkuCheck], list[str]]:
    pools = [p for d in demands for p in d.pools]
    sub, region = facts.subscription, facts.region
    skus: list[SkuCheck] = []
    notes: list[str] = []
    for vm_size in dict.fromkeys(p.vm_size for p in pools):
        using = [p for p in pools if p.vm_size == vm_size]
        zones = tuple(sorted({z for p in using for z in p.zones}))
        sku = facts.skus.get(vm_size)
        reasons = sku_reasons(sku, region, zones, any(p.spot for p in using))
        offered = sku.open_zones if sku is not None else ()
        elsewhere = tuple(r for r in priced_in(vm_size) if r != region) if reasons else ()
        skus.append(SkuCheck(sub, region, vm_size, tuple(_label(p) for p in using), zones, offered, tuple(reasons),
                             elsewhere))
    needs: dict[tuple[str, str], tuple[int, int, list[str]]] = {}
    for p in pools:
        sku = facts.skus.get(p.vm_size)
        if sku is None:
            continue  # not offered: said under the sizes; there is no family to count it against
        if sku.vcpus is None:
            notes.append(f"{_label(p)}: the SKU API gives {p.vm_size} no vCPUs capability in {region}: not counted")
            continue
        for key in ([(SPOT, SPOT_TOTAL)] if p.spot else [(FAMILY, sku.family), (REGIONAL, REGIONAL_TOTAL)]):
            total, surge, labels = needs.get(key, (0, 0, []))
            needs[key] = (total + p.total * sku.vcpus, surge + p.surge * sku.vcpus, [*labels, _label(p)])
    quotas = []
    order = {FAMILY: 0, REGIONAL: 1, SPOT: 2}
    for (kind, name), (needed, surge, labels) in sorted(needs.items(),
                                                         key=lambda kv: (order[kv[0][0]], kv[0][1].casefold())):
        usage = facts.usage(name)
        limit, used = (usage.limit, usage.current) if usage else (0, 0)
        quotas.append(QuotaCheck(sub, region, usage.name if usage else name, kind, needed, limit, used,
                                 tuple(dict.fromkeys(labels)), listed=usage is not None, surge=surge))
    return quotas, skus, notes


def check(demands: list[StackDemand], facts: dict[tuple[str, str], RegionFacts],
          priced_in: Callable[[str], list[str]] = lambda size: []) -> Preflight:
    """Every (subscription, region) the stacks deploy to, its quotas summed over its stacks' pools and its sizes
    checked; `facts` holds what ARM answered for each, `priced_in` the price table's regions for a size."""
    groups: dict[tuple[str, str], list[StackDemand]] = {}
    for d in demands:
        groups.setdefault((d.subscription, d.region), []).append(d)
    quotas: list[QuotaCheck] = []
    skus: list[SkuCheck] = []
    notes: list[str] = []
    for key, group in groups.items():
        q, s, n = _region_checks(group, facts[key], priced_in)
        quotas += q
        skus += s
        notes += n
    return Preflight(tuple(quotas), tuple(skus), tuple(notes))
