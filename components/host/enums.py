"""The multi-language schema's closed sets: each `str` Enum becomes a schema enum, its members' docstrings their
descriptions (pulumi/pulumi `sdk/python/lib/pulumi/provider/experimental/analyzer.py`). The settings types that use
them are in `provider_types.py`. Annotations must be evaluable at run time: no `from __future__ import annotations`.
"""

from enum import Enum
from typing import Any


# --- closed sets ------------------------------------------------------------------------------------------------------
class ClosedSet(str, Enum):
    """A closed set of text values: an enum in every SDK.

    A value outside the set (from YAML, or an SDK built from an older schema) is not refused by the SDK's conversion,
    whose message names neither the key nor what is allowed: it reaches the package's own checks, which report it
    with the allowed values and with every other problem at once.
    """

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = value
        member._value_ = value
        return member


class VmSize(ClosedSet):
    """An NVadsA10_v5 VM size: each VM is a fixed hypervisor slice of one NVIDIA A10 (or two A10s)."""

    Standard_NV6ads_A10_v5 = "Standard_NV6ads_A10_v5"
    """1/6 of an A10: 6 vCPUs, 55 GiB, one 4 GB vGPU (NVIDIA A10-4Q)."""
    Standard_NV12ads_A10_v5 = "Standard_NV12ads_A10_v5"
    """1/3 of an A10: 12 vCPUs, 110 GiB, one 8 GB vGPU (NVIDIA A10-8Q)."""
    Standard_NV18ads_A10_v5 = "Standard_NV18ads_A10_v5"
    """1/2 of an A10: 18 vCPUs, 220 GiB, one 12 GB vGPU."""
    Standard_NV36ads_A10_v5 = "Standard_NV36ads_A10_v5"
    """A whole A10: 36 vCPUs, 440 GiB, one 24 GB GPU."""
    Standard_NV36adms_A10_v5 = "Standard_NV36adms_A10_v5"
    """A whole A10 with more memory: 36 vCPUs, 880 GiB, one 24 GB GPU."""
    Standard_NV72ads_A10_v5 = "Standard_NV72ads_A10_v5"
    """Two A10s: 72 vCPUs, 880 GiB, two 24 GB GPUs."""


class ChartVersion(ClosedSet):
    """A version of the NVIDIA DRA driver chart this package knows how to configure."""

    V25_8_1 = "25.8.1"
    """The version the AKS team's guide tested on A10 vGPU."""
    V25_12_0 = "25.12.0"
    """Needs an NVIDIA driver >= 580 on the nodes (refused on AKS's GRID driver unless hostDriverVersion says so)."""
    V0_4_0 = "0.4.0"
    """The renamed chart (kubernetes-sigs/dra-driver-nvidia-gpu); upgrades from 25.x keep their object names."""
    V0_4_1 = "0.4.1"
    """The renamed chart with the 0.4.0 fixes (default); upgrades from 25.x keep their object names."""


class SkuTier(ClosedSet):
    """The AKS control plane's pricing tier."""

    Free = "Free"
    """No uptime SLA (default)."""
    Standard = "Standard"
    """Uptime SLA, for production."""
    Premium = "Premium"
    """Standard plus long-term support."""


class AuthMode(ClosedSet):
    """How the Kubernetes API authenticates callers."""

    LocalAccounts = "localAccounts"
    """Kubernetes RBAC with cluster-local credentials (default; simple, for dev)."""
    EntraId = "entraId"
    """Entra ID with Azure RBAC; local accounts disabled."""


class LoginMode(ClosedSet):
    """kubelogin's non-interactive login for the Kubernetes provider (never device code: it would hang CI)."""

    AzureCli = "azurecli"
    """The Azure CLI's login (default)."""
    WorkloadIdentity = "workloadidentity"
    """A federated token, e.g. GitHub Actions OIDC."""
    ServicePrincipal = "spn"
    """A service principal's secret from the environment."""


class OsType(ClosedSet):
    """The node OS of a GPU pool."""

    Linux = "Linux"
    """The only choice: the DRA driver runs only on Linux."""


class OsSku(ClosedSet):
    """The node OS image of a GPU pool."""

    Ubuntu = "Ubuntu"
    """Ubuntu (default)."""
    AzureLinux = "AzureLinux"
    """Azure Linux."""


class EvictionPolicy(ClosedSet):
    """What happens to an evicted Spot VM (scaleSetEvictionPolicy)."""

    Delete = "Delete"
    """The VM is deleted; the autoscaler can replace it (default)."""
    Deallocate = "Deallocate"
    """The VM is kept stopped: still counts against quota, its disks are billed."""


class ScaleDownMode(ClosedSet):
    """What scaling a pool down does to a VM (scaleDownMode)."""

    Delete = "Delete"
    """The VM is deleted (AKS's default)."""
    Deallocate = "Deallocate"
    """The VM is stopped with its disk kept: a GPU node comes back faster; needs Managed OS disks."""


class OsDiskType(ClosedSet):
    """Where a node's OS disk lives (osDiskType)."""

    Managed = "Managed"
    """A managed disk."""
    Ephemeral = "Ephemeral"
    """The VM's local temp disk: faster reimage and boot, free; must fit the size's temp disk."""


class UpgradeChannel(ClosedSet):
    """The Kubernetes auto-upgrade channel AKS follows (autoUpgradeProfile.upgradeChannel)."""

    NoChannel = "none"
    """No automatic Kubernetes upgrades."""
    Patch = "patch"
    """The latest patch of the minor version."""
    Stable = "stable"
    """New minor versions too, one behind the newest."""
    Rapid = "rapid"
    """The newest minor versions."""
    NodeImage = "node-image"
    """Node images only."""


class NodeOsChannel(ClosedSet):
    """The node OS auto-upgrade channel (autoUpgradeProfile.nodeOSUpgradeChannel)."""

    NoChannel = "None"
    """No node OS upgrades."""
    Unmanaged = "Unmanaged"
    """The OS's own unattended upgrades."""
    NodeImage = "NodeImage"
    """Weekly node images, reimaging every node (AKS's default)."""
    SecurityPatch = "SecurityPatch"
    """Security patches applied to the running image."""


class WeekDay(ClosedSet):
    """A day of the week."""

    Monday = "Monday"
    """Monday."""
    Tuesday = "Tuesday"
    """Tuesday."""
    Wednesday = "Wednesday"
    """Wednesday."""
    Thursday = "Thursday"
    """Thursday."""
    Friday = "Friday"
    """Friday."""
    Saturday = "Saturday"
    """Saturday."""
    Sunday = "Sunday"
    """Sunday."""


class Fit(ClosedSet):
    """How claim templates pick an A10 slice."""

    BestFit = "bestFit"
    """The template's own size first, a larger slice only when none is free (DRA prioritized list; default)."""
    Exact = "exact"
    """That size only."""
