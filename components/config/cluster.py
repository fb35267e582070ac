"""The cluster section: resource group, system pool, Entra ID access, Kubernetes version, network, API server access,
upgrades, monitoring."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic.alias_generators import to_snake

from .azure import SUBNET, USER_ASSIGNED_IDENTITY, arm_id_or_error, check_cidr
from .base import KubernetesVersion, Model, PoolName, Zones, matching
from .errors import KeyedProblemsError
from .syntax import (
    CLUSTER_NAME,
    DNS_PREFIX,
    ENVIRONMENT,
    GUID,
    INTERACTIVE_LOGINS,
    LOCATION,
    RESOURCE_GROUP,
    VM_SIZE,
    StrInput,
)
from .upgrades import MINOR_CHANNELS, VERSION_CHANNELS, UpgradesConfig

DNS_PREFIX_RULE = "use 1-54 letters, digits and '-', starting and ending with a letter or digit"


class ResourceGroupConfig(Model):
    """Where the cluster lives: a resource group this stack creates, or an existing one it only references."""

    name: str = Field(description="Resource group name (1-90 characters: letters, digits, '-', '_', '.', '(', ')').")
    create: bool = Field(True, description="Create the group (true) or use an existing group of that name (false).")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not RESOURCE_GROUP.fullmatch(v):
            raise ValueError(f"'{v}' is not a resource group name; use 1-90 letters, digits, '-', '_', '.', '(', ')'")
        return v


class SystemPoolConfig(Model):
    """The cluster's one inline pool: System mode, for cluster add-ons (GPU pools are never inline)."""

    name: PoolName = Field("system", description="Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters.")
    vm_size: str = Field("Standard_D4ds_v5", description="VM size of the system nodes.")
    count: int = Field(1, ge=1, le=1000, description="Number of system nodes (1-1000).")
    zones: Zones = Field(description="Availability zones to spread the system nodes over ('1', '2', '3').")
    max_pods: int = Field(110, ge=10, le=250, description="Maximum pods per node (10-250); immutable.")
    os_disk_size_gb: int = Field(128, ge=30, le=2048, description="OS disk size in GB.")
    critical_addons_only: bool = Field(
        False, description="Taint the system nodes CriticalAddonsOnly=true:NoSchedule (AKS best practice for busy clusters)."
    )

    @field_validator("vm_size")
    @classmethod
    def _vm_size(cls, v: str) -> str:
        if not VM_SIZE.fullmatch(v):
            raise ValueError(f"'{v}' is not an Azure VM size; write it like 'Standard_D4ds_v5'")
        return v


class AuthConfig(Model):
    """How Kubernetes API access is authenticated."""

    mode: Literal["localAccounts", "entraId"] = Field(
        "localAccounts",
        description="localAccounts: Kubernetes RBAC with cluster-local credentials (simple, for dev); entraId: Entra ID "
        "(AAD) with Azure RBAC and local accounts disabled.",
    )
    # IDs may come from other resources (an Entra ID group, an application, a managed identity): checked when plain.
    admin_group_object_ids: list[StrInput] = Field(
        default_factory=list, description="Entra ID group object IDs that are cluster admins (entraId only)."
    )
    login_mode: Literal["azurecli", "workloadidentity", "spn"] = Field(
        "azurecli",
        description="kubelogin's non-interactive login mode for the Kubernetes provider (entraId only); "
        "never device code, so `pulumi up` works in CI.",
    )
    tenant_id: StrInput | None = Field(
        None,
        description="Entra ID tenant for kubelogin's --tenant-id (entraId only). Default: azurecli uses the tenant of "
        "`az login`, spn the cluster's tenant, workloadidentity AZURE_TENANT_ID.",
    )
    client_id: StrInput | None = Field(
        None,
        description="Application (client) ID kubelogin signs in as, for spn and workloadidentity (entraId only). "
        "Default: AZURE_CLIENT_ID (or AAD_SERVICE_PRINCIPAL_CLIENT_ID for spn) at run time. Never a secret: the "
        "secret comes from AZURE_CLIENT_SECRET or AAD_SERVICE_PRINCIPAL_CLIENT_SECRET.",
    )
    environment: str | None = Field(
        None,
        description="Azure cloud for spn logins, e.g. 'AzurePublicCloud', 'AzureUSGovernmentCloud', 'AzureChinaCloud' "
        "(entraId only). Default: the cloud named in the cluster's kubeconfig.",
    )

    @field_validator("login_mode", mode="before")
    @classmethod
    def _non_interactive(cls, v: Any) -> Any:
        # A clearer word than "not allowed" for the one mistake that matters: an interactive login hangs in CI.
        if v in INTERACTIVE_LOGINS:
            raise ValueError(
                f"'{v}' waits for a person to sign in, so `pulumi up` would hang in CI; "
                "choose 'azurecli', 'workloadidentity' or 'spn'"
            )
        return v

    @field_validator("admin_group_object_ids")
    @classmethod
    def _group_ids(cls, v: list[StrInput]) -> list[StrInput]:
        bad = [g for g in v if isinstance(g, str) and not GUID.fullmatch(g)]
        if bad:
            verb = "is not an object ID" if len(bad) == 1 else "are not object IDs"
            raise ValueError(f"{', '.join(repr(g) for g in bad)} {verb}; write each as a GUID")
        return v

    @field_validator("environment")
    @classmethod
    def _environment(cls, v: str | None) -> str | None:
        # kubelogin takes an Azure cloud name (--environment); it lands in the kubeconfig's exec arguments.
        if v is not None and not ENVIRONMENT.fullmatch(v):
            raise ValueError(f"'{v}' is not an Azure cloud name; write it like 'AzurePublicCloud' or 'AzureChinaCloud'")
        return v

    @field_validator("tenant_id", "client_id")
    @classmethod
    def _guid(cls, v: StrInput | None) -> StrInput | None:
        if isinstance(v, str) and not GUID.fullmatch(v):
            raise ValueError(f"'{v}' is not a GUID; copy the ID from Entra ID, e.g. '00000000-0000-0000-0000-000000000000'")
        return v

    @model_validator(mode="after")
    def _entra_only(self) -> AuthConfig:
        if self.mode == "entraId":
            return self
        given = [key for key in ("tenantId", "clientId", "environment") if getattr(self, to_snake(key)) is not None]
        if given:
            raise KeyedProblemsError(*((key, "needs mode 'entraId'; allowed only with Entra ID") for key in given))
        return self


class NetworkConfig(Model):
    """Where the nodes live: a subnet of your own virtual network, or (unset) a network AKS creates."""

    vnet_subnet_id: str | None = Field(
        None,
        description="ARM ID of an existing subnet (/subscriptions/…/resourceGroups/…/providers/Microsoft.Network/"
        "virtualNetworks/…/subnets/…) for the system pool's and every GPU pool's nodes (vnetSubnetID); a GPU pool's "
        "own vnetSubnetId overrides it, in the same virtual network. The cluster identity needs Network Contributor on "
        "it. AKS cannot move existing nodes to another subnet (docs/safe-changes.md).",
    )

    @field_validator("vnet_subnet_id")
    @classmethod
    def _subnet(cls, v: str | None) -> str | None:
        return arm_id_or_error(v, SUBNET)


# AKS accepts up to 200 authorized ranges on a public API server (learn.microsoft.com/azure/aks/
# api-server-authorized-ip-ranges, "Limitations and considerations").
MAX_AUTHORIZED_RANGES = 200


class ApiServerConfig(Model):
    """Who can reach the Kubernetes API server (apiServerAccessProfile)."""

    authorized_ip_ranges: list[str] | None = Field(
        None,
        description="CIDR ranges allowed to reach the public API server (authorizedIPRanges, at most 200), e.g. your "
        "CI runners' egress and your office; everyone else is refused before authentication. Not with private: true. "
        "'0.0.0.0/32' allows only the cluster's own egress; [] removes the restriction; unset leaves it as it is.",
    )
    private: bool = Field(
        False,
        description="A private cluster (enablePrivateCluster): the API server gets only a private IP in the nodes' "
        "network, so `pulumi up` (the Kubernetes provider) must run from a machine that reaches it; see "
        "docs/production.md. Fixed at creation: AKS cannot make an existing cluster private.",
    )

    @field_validator("authorized_ip_ranges")
    @classmethod
    def _ranges(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return v
        problems = [p for p in (check_cidr(r) for r in v) if p]
        twice = sorted({r for r in v if v.count(r) > 1})
        if twice:
            problems.append(f"{', '.join(repr(r) for r in twice)} listed twice; list each range once")
        if len(v) > MAX_AUTHORIZED_RANGES:
            problems.append(f"{len(v)} ranges; AKS allows at most {MAX_AUTHORIZED_RANGES}")
        if problems:
            raise ValueError("; ".join(problems))
        return v

    @model_validator(mode="after")
    def _private_has_no_public_ranges(self) -> ApiServerConfig:
        if self.private and self.authorized_ip_ranges:
            raise KeyedProblemsError((
                "authorizedIpRanges",
                "cannot be used with private: true (AKS applies authorized ranges to the public API server only); "
                "remove the ranges or set private: false",
            ))
        return self


class MonitoringConfig(Model):
    """Cluster monitoring add-ons."""

    managed_prometheus: bool | None = Field(
        None,
        description="Azure Monitor managed Prometheus (azureMonitorProfile.metrics.enabled): true runs AKS's metrics "
        "agent on every node, false turns it off, unset leaves it as it is. Its Azure Monitor workspace and data "
        "collection rule are not created by this package; see docs/production.md.",
    )


class ClusterConfig(Model):
    """The AKS cluster: Kubernetes version, location, resource group, system pool, access."""

    name: Annotated[str, matching(CLUSTER_NAME, "is not a cluster name; use 1-63 letters, digits, '-' and '_'")] = Field(
        description="ManagedCluster name (1-63: letters, digits, '-', '_')."
    )
    location: Annotated[str, matching(LOCATION, "is not an Azure region name; write it like 'westeurope' or 'eastus2'")] = (
        Field(description="Azure region, e.g. 'westeurope' (must offer NVadsA10_v5).")
    )
    resource_group: ResourceGroupConfig = Field(description="The resource group to create or use.")
    kubernetes_version: KubernetesVersion = Field(
        "1.34", description="Kubernetes version, major.minor[.patch]; 1.34 or newer (DRA resource.k8s.io/v1 is GA)."
    )
    dns_prefix: str | None = Field(None, description="DNS prefix of the API server (immutable); defaults to name.")
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
    tags: dict[str, str] = Field(
        default_factory=dict,
        description="Azure tags for the resource group, the cluster and every GPU pool (a pool's own tags win).",
    )
    network: NetworkConfig = Field(default_factory=NetworkConfig, description="The nodes' virtual network.")
    api_server: ApiServerConfig = Field(default_factory=ApiServerConfig, description="Kubernetes API server access.")
    upgrades: UpgradesConfig = Field(default_factory=UpgradesConfig, description="Automatic upgrades and their window.")
    monitoring: MonitoringConfig = Field(default_factory=MonitoringConfig, description="Monitoring add-ons.")
    identity_id: str | None = Field(
        None,
        description="ARM ID of a user-assigned managed identity (/subscriptions/…/resourceGroups/…/providers/"
        "Microsoft.ManagedIdentity/userAssignedIdentities/…) for the control plane, instead of the system-assigned one "
        "AKS creates. Needed for capacity reservation groups (AKS: system-assigned identities don't work for them); "
        "give it its roles (Network Contributor on the subnet, Contributor on the reservation's group) beforehand.",
    )
    node_resource_group: str | None = Field(
        None,
        description="Name of the resource group AKS creates for the nodes, disks and load balancers (nodeResourceGroup; "
        "default MC_<group>_<cluster>_<location>). Must not exist yet; fixed at creation (a change replaces the "
        "cluster).",
    )

    @field_validator("identity_id")
    @classmethod
    def _identity(cls, v: str | None) -> str | None:
        return arm_id_or_error(v, USER_ASSIGNED_IDENTITY)

    @field_validator("node_resource_group")
    @classmethod
    def _node_resource_group(cls, v: str | None) -> str | None:
        if v is not None and not RESOURCE_GROUP.fullmatch(v):
            raise ValueError(f"'{v}' is not a resource group name; use 1-90 letters, digits, '-', '_', '.', '(', ')'")
        return v

    @field_validator("dns_prefix")
    @classmethod
    def _dns_prefix(cls, v: str | None) -> str | None:
        if v is not None and not DNS_PREFIX.fullmatch(v):
            raise ValueError(f"'{v}' is not a DNS prefix; {DNS_PREFIX_RULE}")
        return v

    @model_validator(mode="after")
    def _default_dns_prefix(self) -> ClusterConfig:
        if self.dns_prefix is None and not DNS_PREFIX.fullmatch(self.name):
            raise KeyedProblemsError((
                "dnsPrefix",
                f"the default (the cluster name '{self.name}') is not a DNS prefix; set dnsPrefix: {DNS_PREFIX_RULE}",
            ))
        return self

    @property
    def effective_dns_prefix(self) -> str:
        """The API server's DNS prefix: the one set, or the cluster name."""
        return self.dns_prefix or self.name

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


