"""The cluster section: resource group, system pool, Entra ID access, Kubernetes version, network, API server access,
upgrades, monitoring."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from ..catalog.regions import region_problem
from .access import ApiServerConfig, AuthConfig, NetworkConfig
from .base import KubernetesVersion, Model, PoolName, Zones, matching, unset
from .errors import KeyedProblemsError
from .limits import Tags
from .monitoring import MonitoringConfig
from .syntax import CLUSTER_NAME, DNS_PREFIX, DNS_PREFIX_RULE
from .types import AzureVmSize, DnsPrefix, ResourceGroupName, UserAssignedIdentityId, checked
from .upgrades import MINOR_CHANNELS, VERSION_CHANNELS, UpgradesConfig


class ResourceGroupConfig(Model, defer_build=True):
    """Where the cluster lives: a resource group this stack creates, or an existing one it only references."""

    name: ResourceGroupName = Field(
        description="Resource group name (1-90 characters: letters, digits, '-', '_', '.', '(', ')')."
    )
    create: bool = Field(True, description="Create the group (true) or use an existing group of that name (false).")


class SystemPoolConfig(Model, defer_build=True):
    """The cluster's one inline pool: System mode, for cluster add-ons (GPU pools are never inline)."""

    name: PoolName = Field("system", description="Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters.")
    vm_size: AzureVmSize = Field("Standard_D4ds_v5", description="VM size of the system nodes.")
    count: int = Field(1, ge=1, le=1000, description="Number of system nodes (1-1000).")
    zones: Zones = Field(description="Availability zones to spread the system nodes over ('1', '2', '3').")
    max_pods: int = Field(110, ge=10, le=250, description="Maximum pods per node (10-250); immutable.")
    os_disk_size_gb: int = Field(128, ge=30, le=2048, description="OS disk size in GB.")
    critical_addons_only: bool = Field(
        False, description="Taint the system nodes CriticalAddonsOnly=true:NoSchedule (AKS best practice for busy clusters)."
    )


class ClusterConfig(Model, defer_build=True):
    """The AKS cluster: Kubernetes version, location, resource group, system pool, access."""

    name: Annotated[str, matching(CLUSTER_NAME, "is not a cluster name; use 1-63 letters, digits, '-' and '_'")] = Field(
        description="ManagedCluster name (1-63: letters, digits, '-', '_')."
    )
    # A region that exists, spelt as ARM spells it (catalog/regions.py says why not); that it sells each GPU pool's
    # size is checked beside the pools (config/pool_regions.py).
    location: Annotated[str, checked(region_problem)] = Field(
        description="Azure region as ARM names it, e.g. 'westeurope' (not 'West Europe'), that sells every GPU pool's "
        "VM size: checked against the catalog's regions and price table (components/catalog/data/regions.yaml and "
        "prices.yaml, with their sources and dates). Fixed at creation: a change replaces the cluster."
    )
    resource_group: ResourceGroupConfig = Field(description="The resource group to create or use.")
    kubernetes_version: KubernetesVersion = Field(
        "1.35",
        description=(
            "Kubernetes version, major.minor[.patch]; 1.34 or newer (DRA resource.k8s.io/v1 is GA); the version catalog "
            "decides which AKS offers and when support ends."
        ),
    )
    dns_prefix: DnsPrefix | None = unset("DNS prefix of the API server (immutable); defaults to name.")
    sku_tier: Literal["Free", "Standard", "Premium"] = Field("Free", description="AKS control-plane tier.")
    system_pool: SystemPoolConfig = Field(default_factory=SystemPoolConfig, description="The inline System pool.")
    auth: AuthConfig = Field(default_factory=AuthConfig, description="Kubernetes API authentication.")
    protect: bool = Field(
        False,
        description="Protect the cluster (and a resource group this stack creates) from deletion and replacement: "
        "`pulumi up` and `pulumi destroy` stop with an error instead (losing the cluster loses every workload and its "
        "state). Turn it off in a separate update to delete on purpose. See docs/safe-changes.md.",
    )
    retain_on_delete: bool = Field(
        False,
        description="When Pulumi deletes the cluster (and a resource group this stack creates), keep them in Azure and "
        "only forget them: for handing a cluster over to another stack or tool. GPU pools are still deleted; a "
        "replacement still replaces. See docs/safe-changes.md.",
    )
    tags: Tags = Field(
        default_factory=dict,
        description="Azure tags for the resource group, the cluster and every GPU pool (a pool's own tags win).",
    )
    network: NetworkConfig = Field(default_factory=NetworkConfig, description="The nodes' virtual network.")
    api_server: ApiServerConfig = Field(default_factory=ApiServerConfig, description="Kubernetes API server access.")
    upgrades: UpgradesConfig = Field(default_factory=UpgradesConfig, description="Automatic upgrades and their window.")
    monitoring: MonitoringConfig = Field(default_factory=MonitoringConfig, description="Monitoring add-ons.")
    identity_id: UserAssignedIdentityId | None = unset(
        "ARM ID of a user-assigned managed identity (/subscriptions/…/resourceGroups/…/providers/"
        "Microsoft.ManagedIdentity/userAssignedIdentities/…) for the control plane, instead of the system-assigned one "
        "AKS creates. Needed for capacity reservation groups (AKS: system-assigned identities don't work for them); "
        "give it its roles (Network Contributor on the subnet, Contributor on the reservation's group) beforehand.",
    )
    node_resource_group: ResourceGroupName | None = unset(
        "Name of the resource group AKS creates for the nodes, disks and load balancers (nodeResourceGroup; "
        "default MC_<group>_<cluster>_<location>). Must not exist yet; fixed at creation (a change replaces the "
        "cluster).",
    )

    @property
    def effective_dns_prefix(self) -> str:
        """The API server's DNS prefix: the one set, or the cluster name."""
        return self.dns_prefix or self.name

    @model_validator(mode="after")
    def _default_dns_prefix(self) -> ClusterConfig:
        if self.dns_prefix is None and not DNS_PREFIX.fullmatch(self.name):
            raise KeyedProblemsError((
                "dnsPrefix",
                f"the default (the cluster name '{self.name}') is not a DNS prefix; set dnsPrefix: {DNS_PREFIX_RULE}",
            ))
        return self

    @model_validator(mode="after")
    def _auth(self) -> ClusterConfig:
        if self.auth.mode == "localAccounts" and self.auth.admin_group_object_ids:
            raise KeyedProblemsError(("auth.adminGroupObjectIds", "needs auth.mode 'entraId'; allowed only with Entra ID"))
        return self

    @model_validator(mode="after")
    def _cross(self) -> ClusterConfig:
        problems: list[tuple[str, str]] = []
        group = self.node_resource_group
        # AKS creates the node resource group itself and refuses an existing one (learn.microsoft.com/azure/aks/faq,
        # "Can I provide my own name for the AKS node resource group?").
        if group is not None and group.lower() == self.resource_group.name.lower():
            problems.append((
                "nodeResourceGroup",
                f"'{group}' is the cluster's own resource group; AKS creates the node resource group and refuses an "
                "existing one: choose another name",
            ))
        channel = self.upgrades.channel
        if channel in VERSION_CHANNELS and self.kubernetes_version.count(".") == 2:
            minor = ".".join(self.kubernetes_version.split(".")[:2])
            problems.append((
                "kubernetesVersion",
                f"'{self.kubernetes_version}' pins a patch version, but upgrades.channel '{channel}' moves it; write "
                f"'{minor}' (the next `pulumi up` would otherwise try to downgrade the cluster)",
            ))
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    @property
    def version_follows_channel(self) -> bool:
        """Whether AKS moves the minor version by itself (stable/rapid), so kubernetesVersion is the first one only."""
        return self.upgrades.channel in MINOR_CHANNELS


