"""Who may reach an Entra ID cluster's Kubernetes API: Azure role assignments on the cluster, and the wait until AKS
honours them.

With Entra ID and Azure RBAC (local accounts off) AKS authorises every Kubernetes request against Azure role
assignments; nothing grants the identity that runs Pulumi a role by itself, so the driver release and the DRA objects
would be refused (403). By default that identity (azure-native's client config, `authorization.get_client_config`,
token azure-native:authorization:getClientConfig) gets "Azure Kubernetes Service RBAC Cluster Admin" on the cluster;
a stack may turn that off and name its own principals (catalog/roles.py has the role IDs and their sources).

Role assignments are auto-named: pulumi-azure-native gives a RoleAssignment without roleAssignmentName a random GUID
once and keeps it in the state (AutoNameUuid, provider/pkg/provider/provider.go; ARM wants a GUID name), as the Grafana
reader assignment in observability/ does. Azure updates neither a principal nor a role in place
(RoleAssignmentUpdateNotPermitted), so a change of either replaces the assignment, deleting the old one first (a second
assignment of the same principal, role and scope is refused: RoleAssignmentExists).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import pulumi
import pulumi_azure_native.authorization as authorization

from ..catalog.roles import AKS_RBAC_CLUSTER_ADMIN, ROLE_PROPAGATION_MINUTES, role_definition_id
from ..config import AuthConfig

# What Azure refuses to change in place on an assignment: replaced (delete first) instead.
IMMUTABLE = ["principalId", "principalType", "roleDefinitionId"]


class ClusterAdmins:
    """The role assignments that let principals reach an Entra ID cluster's Kubernetes API."""

    deployer: authorization.RoleAssignment | None
    """The identity running Pulumi, unless grantDeployer is false (or the cluster uses local accounts)."""
    principals: list[authorization.RoleAssignment]
    """One per auth.adminPrincipals entry, in config order."""

    def __init__(self, name: str, auth: AuthConfig, cluster: pulumi.CustomResource, parent: pulumi.Resource):
        self.deployer = None
        self.principals = []
        if auth.mode != "entraId" or not (auth.grant_deployer or auth.admin_principals):
            return
        # The role is a constant, and its ID names the subscription, which pulumi-azure-native answers from its own
        # credentials with no resource needed (provider/pkg/provider/auth_getclientconfig.go, GetClientConfig:
        # SubscriptionID is the credential's): asked at once, so a first `pulumi preview` (and the offline plan, with
        # its placeholder subscription) shows which role is granted, before and after the first `up` alike.
        subscription = authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(parent=parent))
        # Who runs Pulumi is asked once the cluster exists (the grants need it anyway): a first preview shows the
        # principal as unknown rather than an answer the offline plan would have to make up.
        client = authorization.get_client_config_output(
            opts=pulumi.InvokeOutputOptions(parent=parent, depends_on=[cluster])
        )
        cluster_id = cluster.id
        role = subscription.subscription_id.apply(lambda sub: role_definition_id(sub, AKS_RBAC_CLUSTER_ADMIN))
        opts = pulumi.ResourceOptions(parent=parent, replace_on_changes=IMMUTABLE, delete_before_replace=True)
        def grant(suffix: str, principal_id: pulumi.Input[str], principal_type: str, why: str) -> authorization.RoleAssignment:
            return authorization.RoleAssignment(f"{name}-{suffix}", principal_id=principal_id, principal_type=principal_type,
                                                role_definition_id=role, scope=cluster_id, description=f"aks-dra-vgpu: {why}",
                                                opts=opts)

        if auth.grant_deployer:
            # azure-native would send 'User' (the API's default), which ARM refuses for a service principal.
            self.deployer = grant("deployer-admin", client.object_id, auth.deployer_type,
                                  "the identity that runs Pulumi reaches the Kubernetes API")
        for index, principal in enumerate(auth.admin_principals):
            # Named by object ID where it is plain, so reordering the list replaces nothing.
            suffix = principal.object_id.lower() if isinstance(principal.object_id, str) else str(index)
            self.principals.append(grant(f"admin-{suffix}", principal.object_id, principal.principal_type,
                                         "cluster.auth.adminPrincipals"))

    @property
    def all(self) -> list[authorization.RoleAssignment]:
        """Every assignment, the deployer's first."""
        return [*([self.deployer] if self.deployer else []), *self.principals]

    def after_propagation(self, value: pulumi.Output[Any]) -> pulumi.Output[Any]:
        """`value` once every assignment here is old enough for AKS to honour it (immediately when none is new).

        AKS: "New role assignments can take up to five minutes to propagate and be updated by the authorization server"
        (learn.microsoft.com/azure/aks/manage-azure-rbac). Only the run that creates an assignment waits, and only for
        what is left of those minutes since its createdOn: the Kubernetes provider gets its kubeconfig after that, so
        the driver release and the DRA objects are not refused while the grant propagates.
        """
        if not self.all:
            return value
        created = pulumi.Output.all(*(a.created_on for a in self.all))
        return pulumi.Output.all(value, created).apply(lambda v: _wait_then(v[0], v[1]))


def propagation_delay(created_on: Sequence[str | None], now: datetime, minutes: float = ROLE_PROPAGATION_MINUTES) -> float:
    """Seconds still to wait until the newest assignment is `minutes` old (0 when none is new or none is known; never
    more than `minutes`, whatever the clocks say)."""
    newest = max((t for t in (_parse(c) for c in created_on) if t is not None), default=None)
    if newest is None:
        return 0.0
    left = minutes * 60 - (now - newest).total_seconds()
    return max(0.0, min(left, minutes * 60))


def _parse(text: str | None) -> datetime | None:
    """An ARM timestamp ('2026-12-04T16:58:01.1234567Z'), or None when it is not one."""
    if not text:
        return None
    digits = text.strip().replace("Z", "+00:00")
    if "." in digits:  # ARM writes 7 fractional digits; fromisoformat takes at most 6
        head, _, tail = digits.partition(".")
        fraction = "".join(ch for ch in tail if ch.isdigit())
        digits = f"{head}.{fraction[:6]}{tail[len(fraction):]}"
    try:
        parsed = datetime.fromisoformat(digits)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


async def _wait_then(value: Any, created_on: Sequence[str | None]) -> Any:
    delay = propagation_delay(created_on, datetime.now(timezone.utc))
    if delay > 0:
        pulumi.log.info(f"waiting {delay:.0f} s for the new Azure RBAC role assignments to reach AKS")
        await asyncio.sleep(delay)
    return value
