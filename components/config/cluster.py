"""The cluster section: resource group, system pool, Entra ID access, Kubernetes version."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic.alias_generators import to_snake

from ..catalog import MIN_KUBERNETES_VERSION
from .base import Model, PoolName, Zones
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
    parse_k8s_version,
)

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
    admin_group_object_ids: list[str] = Field(
        default_factory=list, description="Entra ID group object IDs that are cluster admins (entraId only)."
    )
    login_mode: Literal["azurecli", "workloadidentity", "spn"] = Field(
        "azurecli",
        description="kubelogin's non-interactive login mode for the Kubernetes provider (entraId only); "
        "never device code, so `pulumi up` works in CI.",
    )
    tenant_id: str | None = Field(
        None,
        description="Entra ID tenant for kubelogin's --tenant-id (entraId only). Default: azurecli uses the tenant of "
        "`az login`, spn the cluster's tenant, workloadidentity AZURE_TENANT_ID.",
    )
    client_id: str | None = Field(
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
    def _group_ids(cls, v: list[str]) -> list[str]:
        bad = [g for g in v if not GUID.fullmatch(g)]
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
    def _guid(cls, v: str | None) -> str | None:
        if v is not None and not GUID.fullmatch(v):
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


class ClusterConfig(Model):
    """The AKS cluster: Kubernetes version, location, resource group, system pool, access."""

    name: str = Field(description="ManagedCluster name (1-63: letters, digits, '-', '_').")
    location: str = Field(description="Azure region, e.g. 'westeurope' (must offer NVadsA10_v5).")
    resource_group: ResourceGroupConfig = Field(description="The resource group to create or use.")
    kubernetes_version: str = Field(
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
    tags: dict[str, str] = Field(default_factory=dict, description="Azure tags for the resource group and cluster.")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not CLUSTER_NAME.fullmatch(v):
            raise ValueError(f"'{v}' is not a cluster name; use 1-63 letters, digits, '-' and '_'")
        return v

    @field_validator("location")
    @classmethod
    def _location(cls, v: str) -> str:
        if not LOCATION.fullmatch(v):
            raise ValueError(f"'{v}' is not an Azure region name; write it like 'westeurope' or 'eastus2'")
        return v

    @field_validator("kubernetes_version", mode="before")
    @classmethod
    def _version_is_text(cls, v: Any) -> Any:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            raise ValueError(f"{v} is a number; quote the version so YAML keeps it as written, e.g. '1.34'")
        return v

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        if parse_k8s_version(v) < MIN_KUBERNETES_VERSION:
            minimum = ".".join(map(str, MIN_KUBERNETES_VERSION))
            raise ValueError(f"'{v}' is too old; DRA (resource.k8s.io/v1) needs Kubernetes {minimum} or newer")
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


