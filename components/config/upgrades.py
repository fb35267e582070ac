"""The cluster's automatic upgrades: Kubernetes and node-image channels, and the weekly window they may run in.

Field names and values as AKS takes them (Azure/azure-rest-api-specs, Microsoft.ContainerService/aks/stable/2025-09-01/
managedClusters.json: ``ManagedClusterAutoUpgradeProfile.upgradeChannel`` / ``nodeOSUpgradeChannel``, ``MaintenanceWindow``,
``WeeklySchedule``, ``WeekDay``; the same enums in pulumi_azure_native.containerservice: ``UpgradeChannel``,
``NodeOSUpgradeChannel``, ``WeekDay``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import Field, model_validator

from .base import Model, unset
from .errors import KeyedProblemsError
from .types import HhMm, UtcOffset

UpgradeChannel = Literal["none", "patch", "stable", "rapid", "node-image"]
NodeOsChannel = Literal["None", "Unmanaged", "NodeImage", "SecurityPatch"]
WeekDay = Literal["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# The maintenance configurations AKS reads for each kind of automatic upgrade: only these names gate anything (Azure/
# azure-cli src/azure-cli/azure/cli/command_modules/acs/maintenanceconfiguration.py: "--config-name must be one of
# default, aksManagedAutoUpgradeSchedule or aksManagedNodeOSUpgradeSchedule").
AUTO_UPGRADE_SCHEDULE = "aksManagedAutoUpgradeSchedule"
NODE_OS_UPGRADE_SCHEDULE = "aksManagedNodeOSUpgradeSchedule"
# Channels that move the Kubernetes version by themselves: after creation the version is theirs, not the stack's.
VERSION_CHANNELS = ("patch", "stable", "rapid")
MINOR_CHANNELS = ("stable", "rapid")
# Node OS channels AKS schedules (Unmanaged is the OS's own unattended upgrades, None is nothing).
SCHEDULED_NODE_OS_CHANNELS = ("NodeImage", "SecurityPatch")
# What AKS uses when nodeOSUpgradeChannel is not sent ("The default is NodeImage", managedClusters.json).
DEFAULT_NODE_OS_CHANNEL = "NodeImage"


def version_owner(channel: str | None, fleet_member: bool) -> str | None:
    """Who moves the cluster's Kubernetes version after creation, the control plane and every pool together, when it
    is not the stack (None): a fleet's update runs ("Full" upgrades "the control plane and all agent pools",
    azure-rest-api-specs fleets.json ManagedClusterUpgradeType), or AKS's stable or rapid channel ("Cluster
    auto-upgrade always upgrades the control plane and node pools together", learn.microsoft.com/azure/aks/
    auto-upgrade-cluster). The stack then sends every version once, at creation, and never diffs it."""
    if fleet_member:
        return "the fleet's update runs (fleetMembership)"
    if channel in MINOR_CHANNELS:
        return f"AKS's upgrades.channel '{channel}'"
    return None


def pinned_pool_problems(pools: Iterable[tuple[int, Any]], owner: str | None) -> list[tuple[str, str]]:
    """A pool that pins its own version where `owner` (`version_owner`) moves every pool with the control plane: the
    pin would hold only until the owner's first upgrade, and sending it again would ask AKS to move that pool back."""
    if owner is None:
        return []
    return [
        (f"gpuPools[{index}].kubernetesVersion", (
            f"'{pool.kubernetes_version}' pins this pool, but the cluster's version belongs to {owner}, each of "
            "whose upgrades moves the control plane and every pool together, and the stack sends a pool's version "
            "only when it creates the pool; leave it unset (the pool starts at the control plane's version and "
            "moves with it)"))
        for index, pool in pools if pool.kubernetes_version
    ]


class MaintenanceWindowConfig(Model, defer_build=True):
    """A weekly window in which AKS may run the automatic upgrades this stack turns on."""

    day_of_week: WeekDay = Field(description="Day the window opens.")
    start_time: HhMm = Field(description="Time the window opens, 'HH:MM' (00:00-23:59) in utcOffset's time zone.")
    duration_hours: int = Field(4, ge=4, le=24, description="Length of the window in hours (4-24, AKS's bounds).")
    utc_offset: UtcOffset = Field("+00:00", description="Time zone of startTime, '+HH:MM' or '-HH:MM' (default UTC).")



class UpgradesConfig(Model):
    """Automatic upgrades: which channels AKS follows and when it may act (unset: AKS's defaults, no window)."""

    channel: UpgradeChannel | None = unset(
        "Kubernetes auto-upgrade channel (autoUpgradeProfile.upgradeChannel): none, patch (latest patch of "
        "the minor version), stable, rapid (new minor versions too) or node-image. With patch, stable or rapid the "
        "channel owns the version after creation: write kubernetesVersion as major.minor; with stable or rapid the "
        "stack stops diffing kubernetesVersion.",
    )
    node_os_channel: NodeOsChannel | None = unset(
        "Node OS auto-upgrade channel (autoUpgradeProfile.nodeOSUpgradeChannel): None, Unmanaged, NodeImage "
        "(AKS's default when unset: weekly node images, reimaging every node, GPU nodes reinstall the GRID driver) or "
        "SecurityPatch. See docs/production.md for what a node image upgrade means for the DRA driver.",
    )
    maintenance_window: MaintenanceWindowConfig | None = unset(
        "Weekly window for the channels set here: becomes the aksManagedAutoUpgradeSchedule (channel) and "
        "aksManagedNodeOSUpgradeSchedule (nodeOsChannel NodeImage, AKS's default, or SecurityPatch) maintenance "
        "configurations.",
    )

    @model_validator(mode="after")
    def _window_has_work(self) -> UpgradesConfig:
        if self.maintenance_window is not None and not self.scheduled_configurations:
            raise KeyedProblemsError((
                "maintenanceWindow",
                "schedules nothing: channel is unset or 'none' and nodeOsChannel "
                f"'{self.node_os_channel}' is not scheduled by AKS; set channel, or nodeOsChannel 'NodeImage' or "
                "'SecurityPatch'",
            ))
        return self

    @property
    def scheduled_configurations(self) -> tuple[str, ...]:
        """The AKS maintenance configuration names the window applies to, for the channels set here."""
        names = []
        if self.channel not in (None, "none"):
            names.append(AUTO_UPGRADE_SCHEDULE)
        if (self.node_os_channel or DEFAULT_NODE_OS_CHANNEL) in SCHEDULED_NODE_OS_CHANNELS:
            names.append(NODE_OS_UPGRADE_SCHEDULE)
        return tuple(names)
