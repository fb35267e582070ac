"""Kubernetes version changes in a diff: which upgrades AKS takes, and which it refuses (components.config.versions)."""

from __future__ import annotations

from typing import Any

from ..config.versions import pool_skew_problem, upgrade_problem
from .rules.model import CLUSTER, POOL, RELEASE, Rule

FLEET_MEMBER = "azure-native:containerservice:FleetMember"

_UPGRADE_BLOCKED = "https://learn.microsoft.com/troubleshoot/azure/azure-kubernetes/error-codes/aks-upgrade-blocked"
_POOL_VERSION = (
    "https://learn.microsoft.com/dotnet/api/microsoft.azure.management.containerservice.models.agentpool."
    "orchestratorversion"
)
_CHART_SOURCE = "https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/main/docs/upgrade.md; "
_VERSION_PATHS = {CLUSTER: ("kubernetesVersion",), POOL: ("orchestratorVersion",)}


def _version_path(type_: str, path: str) -> bool:
    """A Kubernetes version: the cluster's, a pool's, or an inline pool's (by index or by name)."""
    inline = type_ == CLUSTER and path.startswith("agentPoolProfiles[") and path.endswith("].orchestratorVersion")
    return inline or path in _VERSION_PATHS.get(type_, ())


def upgrade_rule(type_: str, path: str, before: Any, after: Any) -> list[Rule]:
    """A refusal when a version moves in a way AKS does not upgrade (down, or across more than one minor version)."""
    if not _version_path(type_, path) or not isinstance(before, str) or not isinstance(after, str):
        return []
    try:
        problem = upgrade_problem(before, after)
    except ValueError:
        return []
    return [Rule(type_, path, "refused", "api", problem, _UPGRADE_BLOCKED)] if problem else []


def _pools_of(cluster: dict[str, Any], index: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    inputs = cluster.get("inputs") or {}
    return [
        r for r in index.values()
        if r.get("type") == POOL
        and (r.get("inputs") or {}).get("resourceName") == inputs.get("resourceName")
        and (r.get("inputs") or {}).get("resourceGroupName") == inputs.get("resourceGroupName")
    ]


def _cluster_of(pool: dict[str, Any], index: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    for r in index.values():
        if r.get("type") == CLUSTER and pool in _pools_of(r, index):
            return r
    return None


def _ignores(resource: dict[str, Any], path: str) -> bool:
    return path in ((resource.get("options") or {}).get("ignoreChanges") or [])


def _sent(resource: dict[str, Any], path: str, old_index: dict[str, dict[str, Any]], key: str) -> Any:
    """The value of `path` the update sends: the new plan's, or the old one's where the new plan ignores the path and
    an old state exists (Pulumi then keeps the value in the state: pulumi.com/docs/iac/concepts/options/ignorechanges,
    "Uses the serialized value from the stack state for any later previews or updates")."""
    old = old_index.get(key)
    if old is not None and _ignores(resource, path):
        return (old.get("inputs") or {}).get(path)
    return (resource.get("inputs") or {}).get(path)


def version_rules(resource: dict[str, Any], index: dict[str, dict[str, Any]],
                  old_index: dict[str, dict[str, Any]] | None = None) -> list[Rule]:
    """Refusals from AKS's skew rule between a changed pool (or cluster) and the other side in the new plan, each by
    the version the update sends (an ignored version stays the deployed one: `old_index`, by the same keys)."""
    if resource.get("type") == POOL:
        cluster = _cluster_of(resource, index)
        pairs = [(resource, cluster)] if cluster else []
    elif resource.get("type") == CLUSTER:
        pairs = [(pool, resource) for pool in _pools_of(resource, index)]
    else:
        return []
    found = []
    keys = {id(r): k for k, r in index.items()}
    for pool, cluster in pairs:
        version = _sent(pool, "orchestratorVersion", old_index or {}, keys.get(id(pool), ""))
        control_plane = _sent(cluster, "kubernetesVersion", old_index or {}, keys.get(id(cluster), ""))
        if not isinstance(version, str) or not isinstance(control_plane, str):
            continue
        try:
            problem = pool_skew_problem(version, control_plane)
        except ValueError:
            continue
        if problem:
            name = (pool.get("inputs") or {}).get("agentPoolName", pool.get("name"))
            found.append(Rule(str(resource["type"]), None, "refused", "api", f"pool {name}: {problem}", _POOL_VERSION))
    return found


def chart_rules(old: dict[str, Any], new: dict[str, Any]) -> list[Rule]:
    """A refusal when the driver release moves to a chart version it must not (a downgrade: components.kubernetes.chart_upgrades);
    an in-place upgrade, with its note, otherwise."""
    from ..kubernetes.chart_upgrades import chart_transition

    if new.get("type") != RELEASE:
        return []
    before, after = old.get("inputs") or {}, new.get("inputs") or {}
    moved = (before.get("chart"), before.get("version")) != (after.get("chart"), after.get("version"))
    values = (before.get("chart"), before.get("version"), after.get("chart"), after.get("version"))
    if not moved or not all(isinstance(v, str) for v in values):
        return []
    verdict = chart_transition(*values)  # type: ignore[arg-type]
    effect = "note" if verdict.allowed else "refused"
    return [Rule(RELEASE, None, effect, "api", verdict.reason, _CHART_SOURCE + verdict.source)]


def owned_version_warnings(old_index: dict[str, dict[str, Any]], new_index: dict[str, dict[str, Any]]) -> list[str]:
    """A cluster whose kubernetesVersion the new plan changes but ignores: this update applies nothing of it, and who
    moves the version instead (a fleet's update runs where the plan joins a fleet, AKS's channel where it is stable or
    rapid), so a version bump is never a silent no-op."""
    found = []
    member = any(r.get("type") == FLEET_MEMBER for r in new_index.values())
    for key, cluster in new_index.items():
        old = old_index.get(key)
        if cluster.get("type") != CLUSTER or old is None or not _ignores(cluster, "kubernetesVersion"):
            continue
        before = (old.get("inputs") or {}).get("kubernetesVersion")
        after = (cluster.get("inputs") or {}).get("kubernetesVersion")
        if not isinstance(before, str) or not isinstance(after, str) or before == after:
            continue
        channel = ((cluster.get("inputs") or {}).get("autoUpgradeProfile") or {}).get("upgradeChannel")
        if member:
            owner = ("the fleet's update runs own this member's version and move the control plane and every pool "
                     "together: start one (`python -m components fleet-rollout --fleet <fleet stack> "
                     f"--kubernetes-version <a {after} patch>`)")
        elif channel in ("stable", "rapid"):
            owner = (f"AKS's auto-upgrade channel '{channel}' owns it and upgrades the control plane, then every pool, "
                     "by itself")
        else:
            owner = "the plan ignores it (ignoreChanges)"
        found.append(f"{cluster.get('name')}: kubernetesVersion {before} -> {after} is not applied by this update, "
                     f"to the control plane or to any pool: {owner}; the stack's version is the one a new cluster or "
                     "pool starts at, and the one the package's version rules read: raise it once the cluster runs it")
    return found
