"""Access invariant (advisory): an Entra ID cluster with Azure RBAC leaves someone able to reach its Kubernetes API.

With `aadProfile.enableAzureRBAC` and local accounts off, AKS authorises Kubernetes calls only through Azure role
assignments on the cluster (or above it) and its admin groups (`aadProfile.adminGroupObjectIDs`); a stack that grants
neither leaves the Kubernetes half of `pulumi up` refused with 403 unless access comes from outside the stack
(learn.microsoft.com/azure/aks/manage-azure-rbac; the role IDs are in catalog/roles.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..catalog.roles import AKS_RBAC_ADMIN, AKS_RBAC_CLUSTER_ADMIN, AKS_RBAC_ROLES, AKS_RBAC_WRITER
from ..config import value_at

# Roles that let the Kubernetes half of `pulumi up` write (Reader only reads).
_WRITERS = (AKS_RBAC_CLUSTER_ADMIN, AKS_RBAC_ADMIN, AKS_RBAC_WRITER)
_HIDDEN = ("[secret]", "[unknown]")


def _kind(type_token: str) -> str:
    parts = type_token.split(":")
    return f"{parts[0]}:{parts[1].split('/')[0]}:{parts[2]}" if len(parts) == 3 else type_token


def _grants(inputs: Mapping[str, Any], dependencies: Iterable[str], cluster: str, cluster_urn: str) -> bool:
    """A role assignment of a writing AKS RBAC role on this cluster. Before anything exists the role's ID (it names the
    subscription) and the cluster's ID may both be unknown: then an assignment that depends on the cluster and whose
    role is unknown may be one (the package's own grants are); one scoped elsewhere (Grafana's reader) is not."""
    role = value_at(inputs, ("roleDefinitionId",))
    scope = value_at(inputs, ("scope",))
    role_fits = role in _HIDDEN or (isinstance(role, str) and role.rsplit("/", 1)[-1].lower() in _WRITERS)
    if scope in _HIDDEN:
        scope_fits = cluster_urn in dependencies
    else:
        scope_fits = isinstance(scope, str) and scope.lower().endswith(f"/managedclusters/{cluster}".lower())
    return role_fits and scope_fits


Resource = tuple[str, str, Mapping[str, Any], Sequence[str]]
"""(urn, type, inputs, dependencies) of a planned resource."""


def check_entra_id_access(resources: Iterable[Resource]) -> list[str]:
    """Advisory: every Entra ID (Azure RBAC) cluster of the plan has an admin group or a writing AKS RBAC role grant."""
    resources = list(resources)
    grants = [(inputs, deps) for _, type_token, inputs, deps in resources
              if _kind(type_token) == "azure-native:authorization:RoleAssignment"]
    found = []
    for urn, type_token, inputs, _ in resources:
        if _kind(type_token) != "azure-native:containerservice:ManagedCluster":
            continue
        if value_at(inputs, ("aadProfile", "enableAzureRBAC")) is not True:
            continue
        groups = value_at(inputs, ("aadProfile", "adminGroupObjectIDs"))
        if groups in _HIDDEN or (isinstance(groups, list) and groups):
            continue
        name = str(value_at(inputs, ("resourceName",)))
        if any(_grants(g, deps, name, urn) for g, deps in grants):
            continue
        found.append(
            f"Entra ID cluster {name} leaves no one able to reach its Kubernetes API: local accounts are off, Azure RBAC "
            f"authorises every call, and the stack grants no admin group and no {AKS_RBAC_ROLES[AKS_RBAC_CLUSTER_ADMIN]} "
            "(or Admin/Writer) role on it, so the driver release, DeviceClass and claims are refused (403) unless access "
            "is granted outside this stack; keep cluster.auth.grantDeployer true, or list cluster.auth.adminGroupObjectIds "
            "or cluster.auth.adminPrincipals"
        )
    return found
