"""What a reviewer must know about a diff: the cost of each replacement, refusals and their safe paths, rolling
upgrades and their GPU-workload impact, and what makes an update unsafe to apply as a whole."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog import DRIVER_CHARTS
from ..config.syntax import MISSING
from ..offline.plan import SECRET
from ..offline.urns import local_urn
from .replacement_rules import IMPACTS
from .rules.impacts import OTHER_RELEASE
from .rules.model import CLUSTER, K8S_PROVIDER, POOL, RELEASE, SAFE_CHANGES_DOC

if TYPE_CHECKING:
    from .diff_model import ResourceDiff, ValueChange

_DRIVER_CHART_NAMES = frozenset(chart.chart for chart in DRIVER_CHARTS.values())
_PROTECTED = (
    "protected: `pulumi up` stops with an error instead of replacing it; to do this on purpose, turn protect off in "
    "the same update (Pulumi refuses a replacement only when the old and the new state are protected)"
)
_PROTECTED_DELETE = (
    "protected: `pulumi up` stops with an error instead of deleting it; to do this on purpose, turn protect off in one "
    "update and remove it in the next (or `pulumi state unprotect`)"
)
_PROTECTED_CASCADE = (
    "protected: replacing what it depends on would replace it too, and Pulumi refuses that for a protected resource; "
    "unprotect it first (`pulumi state unprotect`, or protect off in an earlier update)"
)
_UNPROTECTED = (
    "protect is turned off in this same update, so Pulumi replaces it (the engine refuses only when the old and the new "
    "state are both protected: pkg/resource/deploy/step_generator.go)"
)


def successor_name(name: str) -> str:
    """A name for the pool that takes over from `name`: the same stem with the next number, still 1-12 characters."""
    stem = name.rstrip("0123456789") or "pool"
    digits = name[len(stem):]
    number = str(int(digits) + 1 if digits else 2)
    return stem[: 12 - len(number)] + number


def _pool_upgrade(new: dict[str, Any], change: ValueChange) -> str:
    surge = ((new.get("inputs") or {}).get("upgradeSettings") or {}).get("maxSurge", "1")
    return (
        f"{change.path} {change.old} -> {change.new}: a rolling upgrade, one node after another: AKS adds {surge} surge "
        "node(s), then cordons, drains and reimages each GPU node; GPU pods are evicted and wait until an upgraded node "
        "publishes its vGPU again (a PodDisruptionBudget decides how many may go at once)"
    )


def resource_warnings(
    operation: str, old: dict[str, Any], new: dict[str, Any] | None, changes: list[ValueChange], protected: bool
) -> list[str]:
    """Downtime, protection, retention, refused and rolling changes, secrets: one line each."""
    found: list[str] = []
    type_ = old["type"]
    old_options = old.get("options") or {}
    impact = IMPACTS.get(type_)
    if type_ == RELEASE and (old.get("inputs") or {}).get("chart") not in _DRIVER_CHART_NAMES:
        impact = OTHER_RELEASE
    own_replacement = any("replace" in c.effects for c in changes)
    if protected:
        found.append(_PROTECTED_DELETE if new is None else _PROTECTED if own_replacement else _PROTECTED_CASCADE)
    if operation == "replace" and old_options.get("protect") and not ((new or {}).get("options") or {}).get("protect"):
        found.append(_UNPROTECTED)
    if operation == "replace" and impact:
        found.append(impact.replaced)
    if operation == "delete" and impact and impact.deleted:
        found.append(impact.deleted)
    if operation == "delete" and old_options.get("retainOnDelete"):
        where = "in the cluster" if type_.startswith("kubernetes:") else "in Azure (and keeps costing)"
        found.append(f"retainOnDelete: Pulumi forgets it but it stays {where} until removed there")
    if operation == "replace" and old_options.get("retainOnDelete"):
        found.append("retainOnDelete: the old one is left in Azure; a replacement with the same name then collides with it")
    own_refusal = any("refused" in c.effects for c in changes)
    if type_ == POOL and ((operation == "replace" and own_replacement) or (operation == "refused" and own_refusal)):
        # Only the pool's own settings can move to a pool beside it; a pool replaced with its cluster cannot.
        name = str((old.get("inputs") or {}).get("agentPoolName", ""))
        found.append(
            f"safe path: add a pool beside it (e.g. '{successor_name(name)}' with the new settings), `pulumi up`, drain "
            f"'{name}', then remove it in a second update ({SAFE_CHANGES_DOC})"
        )
    elif operation in ("replace", "delete") and impact and impact.safe_path:
        found.append(f"see {SAFE_CHANGES_DOC} before you apply this")
    for change in changes:
        for rule in change.rules:
            if rule.effect == "refused" and operation == "refused":
                if type_.startswith("kubernetes:"):
                    who, fails = "the Kubernetes API server", "`pulumi preview` already fails (server-side apply's dry run)"
                else:
                    who, fails = "Azure", "`pulumi up` fails"
                found.append(f"{who} refuses {change.path} in place, so {fails}: {rule.why} ({SAFE_CHANGES_DOC})")
            elif rule.effect == "rebuild" and new is not None and change.path.endswith("orchestratorVersion"):
                found.append(_pool_upgrade(new, change))
            elif rule.effect == "rebuild":
                found.append(f"{change.path}: every node is rebuilt, workloads are evicted node by node: {rule.why}")
            elif rule.effect == "note":
                found.append(f"{change.path}: {rule.why}")
        if change.old == SECRET and change.new not in (SECRET, MISSING):
            found.append(f"{change.path} was a secret and is not one now: a credential may end up in plain text")
        elif change.secret:
            found.append(f"{change.path}: a secret may have changed (only its marker is compared)")
    return list(dict.fromkeys(found))


def plan_warnings(diffs: list[ResourceDiff], outputs: tuple[ValueChange, ...]) -> list[str]:
    """Warnings about the update as a whole."""
    found = []
    added = {d.name for d in diffs if d.operation == "create" and d.type == POOL}
    gone = {d.name for d in diffs if d.operation in ("delete", "replace") and d.type == POOL}
    if added and gone:
        found.append(
            "GPU pools are added and removed (or replaced) in the same update: workloads get no time to move; add the new "
            f"pool first, drain, and remove the old one in a later update ({SAFE_CHANGES_DOC})"
        )
    # The same name and type leaving and arriving means its URN changed (a new parent): Pulumi recreates it.
    arriving = {(d.type, d.name) for d in diffs if d.operation == "create"}
    for d in diffs:
        if d.operation == "delete" and (d.type, d.name) in arriving:
            found.append(
                f"{d.type.rsplit(':', 1)[-1]} {d.name} is deleted and created again because its URN changed (another "
                "parent?); add an alias to keep it"
            )
    for change in outputs:
        if change.old == SECRET and change.new not in (SECRET, MISSING):
            found.append(f"output {change.path} was a secret and is not one now: a credential may end up in plain text")
    return found


def blocked_reasons(diffs: list[ResourceDiff], new_index: dict[str, dict[str, Any]]) -> list[str]:
    """Why the update must not be applied as it stands, beyond refused resources."""
    operations = {d.key: d.operation for d in diffs}
    found = []
    for key, res in sorted(new_index.items()):
        if res.get("type") != K8S_PROVIDER or operations.get(key) == "replace":
            continue
        for dep in res.get("dependencies") or []:
            dep_key = local_urn(dep)
            if (new_index.get(dep_key) or {}).get("type") == CLUSTER and operations.get(dep_key) == "replace":
                found.append(
                    f"{res.get('name')}: its cluster is replaced but the provider is not (clusterIdentifier unchanged): "
                    "Pulumi would keep the Kubernetes objects in state for a cluster that no longer has them; make "
                    "clusterIdentifier follow the cluster (components.azure.cluster.cluster_identifier) before applying"
                )
    return found
