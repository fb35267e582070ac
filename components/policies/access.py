"""Access invariant (advisory): an Entra ID cluster with Azure RBAC leaves someone able to reach its Kubernetes API.

With `aadProfile.enableAzureRBAC` and local accounts off, AKS authorises Kubernetes calls only through Azure role
assignments on the cluster (or above it) and its admin groups (`aadProfile.adminGroupObjectIDs`); a stack that grants
neither leaves the Kubernetes half of `pulumi up` refused with 403 unless access comes from outside the stack
(learn.microsoft.com/azure/aks/manage-azure-rbac; the role IDs are in catalog/roles.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog.roles import AKS_RBAC_ADMIN, AKS_RBAC_CLUSTER_ADMIN, AKS_RBAC_ROLES, AKS_RBAC_WRITER
from ..config import MISSING, value_at

# Roles that let the Kubernetes half of `pulumi up` write (Reader only reads).
_WRITERS = (AKS_RBAC_CLUSTER_ADMIN, AKS_RBAC_ADMIN, AKS_RBAC_WRITER)
_HIDDEN = ("[secret]", "[unknown]")


def _kind(type_token: str) -> str:
    parts = type_token.split(":")
    return f"{parts[0]}:{parts[1].split('/')[0]}:{parts[2]}" if len(parts) == 3 else type_token


def _grants(inputs: Mapping[str, Any], cluster: str) -> bool:
    """A role assignment of a writing AKS RBAC role whose scope is (or may be) this cluster."""
    role = value_at(inputs, ("roleDefinitionId",))
    if not isinstance(role, str) or role.rsplit("/", 1)[-1].lower() not in _WRITERS:
        return False
    scope = value_at(inputs, ("scope",))
    if scope is MISSING:
        return False
    # The cluster's ID is unknown until it exists: an unknown scope may be the cluster (the package's own grants are).
    return scope in _HIDDEN or f"/managedclusters/{cluster}".lower() in str(scope).lower()


def check_entra_id_access(resources: Iterable[tuple[str, str, Mapping[str, Any]]]) -> list[str]:
    """Advisory: every Entra ID (Azure RBAC) cluster of the plan has an admin group or a writing AKS RBAC role grant."""
    resources = list(resources)
    grants = [inputs for _, type_token, inputs in resources
              if _kind(type_token) == "azure-native:authorization:RoleAssignment"]
    found = []
    for _, type_token, inputs in resources:
        if _kind(type_token) != "azure-native:containerservice:ManagedCluster":
            continue
        if value_at(inputs, ("aadProfile", "enableAzureRBAC")) is not True:
            continue
        groups = value_at(inputs, ("aadProfile", "adminGroupObjectIDs"))
        if groups in _HIDDEN or (isinstance(groups, list) and groups):
            continue
        name = str(value_at(inputs, ("resourceName",)))
        if any(_grants(g, name) for g in grants):
            continue
        found.append(
            f"Entra ID cluster {name} leaves no one able to reach its Kubernetes API: local accounts are off, Azure RBAC "
            f"authorises every call, and the stack grants no admin group and no {AKS_RBAC_ROLES[AKS_RBAC_CLUSTER_ADMIN]} "
            "(or Admin/Writer) role on it, so the driver release, DeviceClass and claims are refused (403) unless access "
            "is granted outside this stack; keep cluster.auth.grantDeployer true, or list cluster.auth.adminGroupObjectIds "
            "or cluster.auth.adminPrincipals"
        )
    return found
