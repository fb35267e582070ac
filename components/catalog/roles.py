"""Azure built-in roles that authorise Kubernetes API calls on an Entra ID cluster with Azure RBAC, and how long a new
assignment takes to count.

With `aadProfile.enableAzureRBAC` AKS authorises every Kubernetes request against Azure role assignments (local accounts
are off), so whoever runs the Kubernetes half of `pulumi up` needs one of these roles on the cluster (or to be in one of
the AKS admin groups). Sources:
- Role IDs: learn.microsoft.com/azure/role-based-access-control/built-in-roles/containers (the built-in roles page,
  "Azure Kubernetes Service RBAC Cluster Admin" ... "Reader"); the same IDs are in AKS's
  learn.microsoft.com/azure/aks/manage-azure-rbac ("Use Azure RBAC for Kubernetes authorization", "Built-in roles").
- Propagation: the same AKS page, "Before you begin": "New role assignments can take up to five minutes to propagate
  and be updated by the authorization server."
- Principal types: a role assignment's `principalType` must match the principal's kind in Entra ID, or ARM refuses it
  (`UnmatchedPrincipalType`); the 2022-04-01 API (azure-native's default for RoleAssignment) defaults it to `User`
  (Azure/azure-rest-api-specs #21664), so a service principal must say so.
Imports nothing of ours.
"""

from __future__ import annotations

from typing import Final

AKS_RBAC_CLUSTER_ADMIN: Final = "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"
"""Azure Kubernetes Service RBAC Cluster Admin: everything in the cluster, what the deploying identity gets."""
AKS_RBAC_ADMIN: Final = "3498e952-d568-435e-9b2c-8d77e338d7f7"
"""Azure Kubernetes Service RBAC Admin: everything in a namespace (or, at cluster scope, most cluster objects)."""
AKS_RBAC_WRITER: Final = "a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb"
"""Azure Kubernetes Service RBAC Writer: read/write most objects in a namespace; no roles or role bindings."""
AKS_RBAC_READER: Final = "7f6c6a51-bcf8-42ba-9220-52d62157d7db"
"""Azure Kubernetes Service RBAC Reader: read-only, no secrets."""

AKS_RBAC_ROLES: Final[dict[str, str]] = {
    AKS_RBAC_CLUSTER_ADMIN: "Azure Kubernetes Service RBAC Cluster Admin",
    AKS_RBAC_ADMIN: "Azure Kubernetes Service RBAC Admin",
    AKS_RBAC_WRITER: "Azure Kubernetes Service RBAC Writer",
    AKS_RBAC_READER: "Azure Kubernetes Service RBAC Reader",
}
"""The built-in roles that let a principal reach the Kubernetes API of an Azure RBAC cluster, by role definition ID."""

MONITORING_DATA_READER: Final = "b0d8363b-8ddd-447d-831f-62ca05bff136"
"""Monitoring Data Reader: granted on the Azure Monitor workspace to Grafana's identity (azure-cli
acs/azuremonitormetrics/amg/link.py; built-in roles page, "Monitor")."""

ROLE_NAMES: Final[dict[str, str]] = {**AKS_RBAC_ROLES, MONITORING_DATA_READER: "Monitoring Data Reader"}
"""Every built-in role the package grants, by role definition ID: what the plan and the diff name."""

BUILT_IN_ROLES_SOURCE: Final = "https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/containers"
AKS_AZURE_RBAC_SOURCE: Final = "https://learn.microsoft.com/azure/aks/manage-azure-rbac"

ROLE_PROPAGATION_MINUTES: Final = 5.0
"""How long AKS's authorization server may take to honour a new role assignment (AKS manage-azure-rbac)."""

PRINCIPAL_TYPES: Final = ("User", "Group", "ServicePrincipal")
"""The principalType values ARM accepts on a role assignment (a managed identity is a ServicePrincipal)."""


def role_definition_id(subscription_id: str, role: str) -> str:
    """The subscription-scoped ID of a built-in role definition, as a role assignment names it.

    ARM types `roleDefinitionId` as a plain string ("The role definition ID.") and its examples send this form
    (azure-rest-api-specs specification/authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/
    examples/RoleAssignments_CreateForResource.json); what it answers varies (the tenant form
    `/providers/Microsoft.Authorization/roleDefinitions/<id>` in that example's response, the scope's subscription on a
    GET: azure-rest-api-specs #10939, #11103), so the package sends this one form and reads roles by their last segment.
    """
    return f"/subscriptions/{subscription_id}/providers/Microsoft.Authorization/roleDefinitions/{role}"


def role_label(role_definition_id: object) -> str | None:
    """'Azure Kubernetes Service RBAC Cluster Admin (b1ff04bb-…)' for a role definition ID (any form) of a role the
    package grants; the ID's last segment for another role; None for anything that is not an ID (unknown, secret)."""
    if not isinstance(role_definition_id, str) or "/roleDefinitions/" not in role_definition_id:
        return None
    guid = role_definition_id.rstrip("/").rsplit("/", 1)[-1]
    name = ROLE_NAMES.get(guid.lower())
    return f"{name} ({guid})" if name else guid
