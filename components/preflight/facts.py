"""What ARM answered for one subscription and region, as plain values: the Compute usages (a limit and the current use
per quota: each VM family, the regional total `cores`, Spot's `lowPriorityCores`) and the VM sizes' SKUs (quota
family, vCPUs, zones, restrictions for this subscription).

Field meanings are the Compute REST API's (Azure/azure-rest-api-specs, specification/compute/resource-manager/
Microsoft.Compute: ComputeRP `Usage` {name.value, currentValue, limit}; Skus/stable/2021-07-01/skus.json `ResourceSku`
{family, capabilities[{name, value}], locationInfo[{location, zones}], restrictions[{type Location|Zone, values,
restrictionInfo{locations, zones}, reasonCode QuotaId|NotAvailableForSubscription}]}).
"""

from __future__ import annotations

from dataclasses import dataclass, field

REGIONAL_TOTAL = "cores"  # "Total Regional vCPUs"
SPOT_TOTAL = "lowPriorityCores"  # "Total Regional Spot vCPUs"


@dataclass(frozen=True)
class Usage:
    """One quota of a region: its name as the usages API spells it, the vCPUs in use and the limit."""

    name: str
    current: int
    limit: int


@dataclass(frozen=True)
class Restriction:
    """Why a SKU cannot be used here: in the whole region (Location) or in some zones (Zone)."""

    kind: str  # "Location" or "Zone"
    reason: str  # reasonCode: NotAvailableForSubscription, QuotaId
    zones: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sku:
    """A VM size as the SKU API lists it for one region: its quota family, vCPUs and zones, and its restrictions."""

    name: str
    family: str
    vcpus: int | None
    zones: tuple[str, ...]
    restrictions: tuple[Restriction, ...] = ()
    spot_capable: bool | None = None  # the LowPriorityCapable capability; None when the SKU does not say

    @property
    def region_restriction(self) -> Restriction | None:
        """The restriction that closes the whole region to this subscription, or None."""
        return next((r for r in self.restrictions if r.kind == "Location"), None)

    @property
    def restricted_zones(self) -> tuple[str, ...]:
        """The zones a Zone restriction closes to this subscription."""
        return tuple(sorted({z for r in self.restrictions if r.kind == "Zone" for z in r.zones}))

    @property
    def open_zones(self) -> tuple[str, ...]:
        """The zones where this subscription may place the size: offered, and not restricted (none when the whole
        region is)."""
        if self.region_restriction is not None:
            return ()
        closed = set(self.restricted_zones)
        return tuple(z for z in self.zones if z not in closed)


@dataclass(frozen=True)
class RegionFacts:
    """Usages (by name, casefolded: the SKU API and the usages API do not always agree on case) and SKUs of a region."""

    subscription: str
    region: str
    usages: dict[str, Usage] = field(default_factory=dict)
    skus: dict[str, Sku] = field(default_factory=dict)

    def usage(self, name: str) -> Usage | None:
        """The quota named `name` (any case), or None when the region lists no such quota."""
        return self.usages.get(name.casefold())


def usages_by_name(usages: list[Usage]) -> dict[str, Usage]:
    """Usages keyed by their casefolded name."""
    return {u.name.casefold(): u for u in usages}
