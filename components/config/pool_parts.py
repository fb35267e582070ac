"""The parts of a GPU pool's settings with rules of their own: spot (AKS's spot label, taint and price rules),
autoscaling bounds, and whether an ephemeral OS disk fits a size's temp disk."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from ..catalog import A10Size, MigSize
from .base import Model
from .errors import KeyedProblemsError

# What AKS puts on every spot node, label and taint (learn.microsoft.com/azure/aks/spot-node-pool, "Limitations").
# A spot pool declares both itself: AKS reports them in the pool's nodeLabels/nodeTaints, so leaving them out makes every
# refresh show drift (terraform-provider-azurerm #9454 / PR #14030, cluster-api-provider-azure #3976).
SPOT_LABEL = ("kubernetes.azure.com/scalesetpriority", "spot")
SPOT_TAINT = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
# Spot prices are US dollars per hour with at most five decimals (learn.microsoft.com/azure/virtual-machines/spot-vms).
SPOT_PRICE_DECIMALS = 5
# One extra node at a time: a GPU node is expensive, and each upgrade reimages (and reinstalls GRID on) every node.
DEFAULT_SURGE = "1"


class SpotConfig(Model, defer_build=True):
    """Run the pool on Azure Spot VMs: far cheaper, no SLA, evicted whenever Azure needs the capacity back."""

    eviction_policy: Literal["Delete", "Deallocate"] = Field(
        "Delete",
        description="What happens to an evicted VM (scaleSetEvictionPolicy): Delete (default; the autoscaler can "
        "replace it) or Deallocate (kept stopped, still counts against your quota, and its disks are billed).",
    )
    max_price: float = Field(
        -1,
        description="Highest price per VM-hour in US dollars (spotMaxPrice, up to 5 decimals); -1 (default) pays up "
        "to the pay-as-you-go price, so VMs are evicted only for capacity, never for price.",
    )

    @field_validator("max_price", mode="before")
    @classmethod
    def _price_is_a_number(cls, v: object) -> object:
        if isinstance(v, bool):
            raise ValueError(f"{v} is not a price; write -1 or a price in US dollars greater than 0, e.g. 0.5")
        return v

    @field_validator("max_price")
    @classmethod
    def _price(cls, v: float) -> float:
        if v != -1 and v <= 0:
            raise ValueError(f"{v} is not a price; write -1 (up to the pay-as-you-go price) or a price greater than 0")
        if round(v, SPOT_PRICE_DECIMALS) != v:
            raise ValueError(f"{v} has more than {SPOT_PRICE_DECIMALS} decimals; Azure takes spot prices to 5 decimals")
        return v


class AutoscalingConfig(Model, defer_build=True):
    """Cluster-autoscaler bounds; with autoscaling the node count is the autoscaler's, never drift."""

    min_count: int = Field(ge=0, le=1000, description="Fewest nodes (0-1000; 0 lets the pool scale to zero).")
    max_count: int = Field(ge=1, le=1000, description="Most nodes (1-1000), at least minCount.")

    @model_validator(mode="after")
    def _bounds(self) -> AutoscalingConfig:
        if self.min_count > self.max_count:
            raise KeyedProblemsError(("minCount", f"{self.min_count} is greater than maxCount {self.max_count}; need min <= max"))
        return self


def ephemeral_os_disk_problem(size: A10Size | MigSize, os_disk_size_gb: int) -> str | None:
    """Why an ephemeral OS disk of this size cannot live on the VM's temp disk, or None (also when the size is unknown)."""
    if size.temp_disk_gib is None or os_disk_size_gb <= size.temp_disk_gib:
        return None
    return (
        f"{os_disk_size_gb} GB does not fit {size.vm_size}'s {size.temp_disk_gib} GiB temp disk, where an Ephemeral OS "
        f"disk lives; choose at most {size.temp_disk_gib}, or osDiskType Managed"
    )


def ephemeral_os_disk_unchecked(size: A10Size | MigSize) -> bool:
    """Whether the catalog cannot check an ephemeral OS disk on this size (its temp disk is not known)."""
    return size.temp_disk_gib is None
