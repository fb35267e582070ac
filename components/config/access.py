"""How the cluster is reached: Entra ID access (AuthConfig), its own network (NetworkConfig) and the API server's
exposure (ApiServerConfig)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic.alias_generators import to_snake

from .azure import check_cidr, network_problems
from .base import Model, unset
from .credentials import SECRET_SHOWN, looks_like
from .errors import KeyedProblemsError
from .syntax import GUID, INTERACTIVE_LOGINS, StrInput
from .types import CloudName, SubnetId


class AdminPrincipal(Model, defer_build=True):
    """One Entra ID principal granted Azure Kubernetes Service RBAC Cluster Admin on the cluster."""

    # May come from another resource (a managed identity, an application's service principal): checked when plain.
    object_id: StrInput = Field(description="The principal's object ID in Entra ID (not an application's client ID).")
    principal_type: Literal["User", "Group", "ServicePrincipal"] = Field(
        description="What the object ID is: ARM refuses an assignment whose type does not match the principal "
        "(UnmatchedPrincipalType); a managed identity is a ServicePrincipal."
    )

    @field_validator("object_id")
    @classmethod
    def _object_id(cls, v: StrInput) -> StrInput:
        if isinstance(v, str) and not GUID.fullmatch(v):
            raise ValueError(f"'{v}' is not an object ID; write it as a GUID, e.g. '00000000-0000-0000-0000-000000000000'")
        return v


class AuthConfig(Model):
    """How Kubernetes API access is authenticated, and (Entra ID) who is authorised to reach the cluster."""

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
    tenant_id: StrInput | None = unset(
        "Entra ID tenant for kubelogin's --tenant-id (entraId only). Default: azurecli uses the tenant of "
        "`az login`, spn the cluster's tenant, workloadidentity AZURE_TENANT_ID.",
    )
    client_id: StrInput | None = unset(
        "Application (client) ID kubelogin signs in as, for spn and workloadidentity (entraId only). "
        "Default: AZURE_CLIENT_ID (or AAD_SERVICE_PRINCIPAL_CLIENT_ID for spn) at run time. Never a secret: the "
        "secret comes from AZURE_CLIENT_SECRET or AAD_SERVICE_PRINCIPAL_CLIENT_SECRET.",
    )
    environment: CloudName | None = unset(
        "Azure cloud for spn logins, e.g. 'AzurePublicCloud', 'AzureUSGovernmentCloud', 'AzureChinaCloud' "
        "(entraId only). Default: the cloud named in the cluster's kubeconfig.",
    )

    grant_deployer: bool = Field(
        True,
        description="Grant the identity that runs Pulumi (azure-native's client config: the signed-in user, service "
        "principal or managed identity) 'Azure Kubernetes Service RBAC Cluster Admin' on the cluster, so the "
        "Kubernetes half of `pulumi up` (driver release, DeviceClass, claims) is authorised (entraId only). The "
        "Kubernetes provider waits for the assignment and, on the run that creates it, for the up to five minutes "
        "AKS takes to honour it. The grant follows whoever runs `pulumi up`: another identity replaces it. Set false "
        "when access comes from adminGroupObjectIds, adminPrincipals or outside this stack.",
    )
    deployer_principal_type: Literal["User", "ServicePrincipal"] | None = unset(
        "What kind of identity runs Pulumi, for the deployer's role assignment (ARM refuses one whose type does not "
        "match: UnmatchedPrincipalType). Default: User with loginMode azurecli (a person's `az login`), "
        "ServicePrincipal with spn and workloadidentity. Set ServicePrincipal when CI signs the Azure CLI in as a "
        "service principal or managed identity (azure/login).",
    )
    admin_principals: list[AdminPrincipal] = Field(
        default_factory=list,
        description="Further Entra ID users, groups or service principals granted 'Azure Kubernetes Service RBAC "
        "Cluster Admin' on the cluster through Azure RBAC (entraId only), e.g. the CI identity when grantDeployer is "
        "false. Do not list the identity that runs Pulumi while grantDeployer is true: Azure refuses a second "
        "identical assignment (RoleAssignmentExists).",
    )

    @property
    def deployer_type(self) -> str:
        """The principalType of the deploying identity's role assignment: the one set, or the login mode's kind."""
        if self.deployer_principal_type is not None:
            return self.deployer_principal_type
        return "User" if self.login_mode == "azurecli" else "ServicePrincipal"

    @property
    def grants_deployer(self) -> bool:
        """Whether the deploying identity gets a role on the cluster (Entra ID with grantDeployer on)."""
        return self.mode == "entraId" and self.grant_deployer

    @property
    def nobody_admitted(self) -> bool:
        """An Entra ID cluster this stack gives no one access to: no grant, no admin group, no admin principal."""
        return (
            self.mode == "entraId"
            and not self.grant_deployer
            and not self.admin_group_object_ids
            and not self.admin_principals
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

    @field_validator("tenant_id", "client_id")
    @classmethod
    def _guid(cls, v: StrInput | None) -> StrInput | None:
        if isinstance(v, str) and not GUID.fullmatch(v):
            if looks_like("clientSecret", v):  # a credential pasted in the wrong place is never repeated
                raise ValueError("is not a GUID and looks like a client secret (not shown); write the application's "
                                 "client ID, a GUID such as '00000000-0000-0000-0000-000000000000', and keep the secret "
                                 "out of the stack file")
            raise ValueError(f"'{v}' is not a GUID; copy the ID from Entra ID, e.g. '00000000-0000-0000-0000-000000000000'")
        return v

    @model_validator(mode="after")
    def _entra_only(self) -> AuthConfig:
        if self.mode == "entraId":
            return self
        given = [key for key in ("tenantId", "clientId", "environment", "deployerPrincipalType")
                 if getattr(self, to_snake(key)) is not None]
        if self.admin_principals:
            given.append("adminPrincipals")
        if given:
            raise KeyedProblemsError(*((key, "needs mode 'entraId'; allowed only with Entra ID") for key in given))
        return self

    @model_validator(mode="after")
    def _principals(self) -> AuthConfig:
        problems: list[tuple[str, str]] = []
        if self.deployer_principal_type is not None and not self.grant_deployer:
            problems.append(("deployerPrincipalType", "needs grantDeployer: true (it types the deployer's grant)"))
        seen: dict[str, int] = {}
        for index, principal in enumerate(self.admin_principals):
            if not isinstance(principal.object_id, str):
                continue
            key = principal.object_id.lower()
            if key in seen:
                problems.append((
                    f"adminPrincipals[{index}].objectId",
                    f"'{principal.object_id}' is listed twice (also adminPrincipals[{seen[key]}]); Azure refuses a "
                    "second identical role assignment (RoleAssignmentExists): list each principal once",
                ))
            else:
                seen[key] = index
        if problems:
            raise KeyedProblemsError(*problems)
        return self


class NetworkConfig(Model):
    """Where the nodes live: a subnet of your own virtual network, or (unset) a network AKS creates."""

    vnet_subnet_id: SubnetId | None = unset(
        "ARM ID of an existing subnet (/subscriptions/…/resourceGroups/…/providers/Microsoft.Network/"
        "virtualNetworks/…/subnets/…) for the system pool's and every GPU pool's nodes (vnetSubnetID); a GPU pool's "
        "own vnetSubnetId overrides it, in the same virtual network. The cluster identity needs Network Contributor on "
        "it. AKS cannot move existing nodes to another subnet (docs/safe-changes.md).",
    )
    pod_cidr: str = Field(
        "10.244.0.0/16",
        description="IPv4 range pods get their addresses from (networkProfile.podCidr; Azure CNI Overlay gives each "
        "node a /24 of it, so it is not an address space of your virtual network). Must not overlap serviceCidr, the "
        "nodes' subnet, peered networks or on-premises ranges the pods talk to. Fixed in practice: a change replaces "
        "the cluster (pulumi-azure-native's force-new list; `diff` says so), so choose it before the first "
        "`pulumi up`.",
    )
    service_cidr: str = Field(
        "10.0.0.0/16",
        description="IPv4 range of the cluster's service addresses (networkProfile.serviceCidr; at most a /12, not "
        "169.254.0.0/16, 172.30.0.0/16, 172.31.0.0/16 or 192.0.2.0/24). Must not overlap podCidr, the nodes' subnet "
        "(a bring-your-own subnet in 10.0.0.0/16 needs another range), peered networks or on-premises ranges. "
        "Create-only in AKS: a change replaces the cluster (`diff` says so).",
    )
    dns_service_ip: str = Field(
        "10.0.0.10",
        description="CoreDNS's service address (networkProfile.dnsServiceIP): inside serviceCidr, not its first "
        "address (the kubernetes service). Create-only in AKS: a change replaces the cluster (`diff` says so).",
    )

    @model_validator(mode="after")
    def _ranges(self) -> NetworkConfig:
        problems = network_problems(self.pod_cidr, self.service_cidr, self.dns_service_ip)
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    @property
    def custom_ranges(self) -> dict[str, str]:
        """The networkProfile ranges this stack sets away from AKS's defaults (camelCase, as sent)."""
        defaults = {name: field.default for name, field in NetworkConfig.model_fields.items()
                    if name in ("pod_cidr", "service_cidr", "dns_service_ip")}
        sent = {"pod_cidr": "podCidr", "service_cidr": "serviceCidr", "dns_service_ip": "dnsServiceIP"}
        return {sent[name]: getattr(self, name) for name, default in defaults.items() if getattr(self, name) != default}


# AKS accepts up to 200 authorized ranges on a public API server (learn.microsoft.com/azure/aks/
# api-server-authorized-ip-ranges, "Limitations and considerations").
MAX_AUTHORIZED_RANGES = 200


class ApiServerConfig(Model):
    """Who can reach the Kubernetes API server (apiServerAccessProfile)."""

    authorized_ip_ranges: list[str] | None = unset(
        "CIDR ranges allowed to reach the public API server (authorizedIPRanges, at most 200), e.g. your "
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
        if SECRET_SHOWN in v:
            # A secure range, which the offline plan never decrypts: no CIDR to check, and no advice built from it.
            problems = ["a secure value ([secret]) cannot be checked offline, where it is never decrypted; write the "
                        "ranges in plain text: an address range is no credential"]
        else:
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
