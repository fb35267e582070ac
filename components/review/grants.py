"""What a role assignment grants, in words a reviewer checks: the role by name and ID, to what kind of principal.

The plan tree and the diff both say it, so a reviewer sees which role the deployer (or Grafana) gets whether or not
the principal and the scope are known yet (they are not before the first `up`; the role is: catalog/roles.py).
"""

from __future__ import annotations

from typing import Any

from ..catalog.roles import role_label
from .replacement_rules import canonical_type
from .rules.azure_monitoring import ROLE_ASSIGNMENT


def granted_role(type_: str, inputs: dict[str, Any] | None) -> str | None:
    """The role a role assignment grants, by name and ID where the package knows it; None for another resource."""
    if canonical_type(type_) != ROLE_ASSIGNMENT or not isinstance(inputs, dict):
        return None
    return role_label(inputs.get("roleDefinitionId")) or f"the role {inputs.get('roleDefinitionId', '[unknown]')}"


def grant_text(type_: str, inputs: dict[str, Any] | None) -> str | None:
    """'grants Azure Kubernetes Service RBAC Cluster Admin (b1ff04bb-…) to a ServicePrincipal' for a role assignment;
    None for any other resource."""
    role = granted_role(type_, inputs)
    if role is None or inputs is None:
        return None
    kind = inputs.get("principalType")
    principal = inputs.get("principalId")
    who = f"a {kind}" if isinstance(kind, str) else "a principal"
    if isinstance(principal, str) and not principal.startswith("["):
        who += f" {principal}"
    return f"grants {role} to {who}"
