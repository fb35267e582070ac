"""What a reviewer must know about a diff: the cost of each replacement, refusals and their safe paths, rolling
upgrades and their GPU-workload impact, and what makes an update unsafe to apply as a whole."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..catalog import A10_SIZES, DRIVER_CHARTS, GPU_PRESENT_LABEL
from ..config.syntax import MISSING
from ..offline.plan import SECRET
from ..offline.urns import local_urn
from .replacement import Replacement
from .replacement_rules import IMPACTS, canonical_type
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


def _is_driver_chart(chart: Any) -> bool:
    """Whether a Release installs the NVIDIA DRA driver: its chart by name, or an OCI reference ending in that name."""
    return isinstance(chart, str) and chart.rsplit("/", 1)[-1] in _DRIVER_CHART_NAMES


def successor_name(name: str) -> str:
    """A name for the pool that takes over from `name`: the same stem with the next number, still 1-12 characters."""
    stem = name.rstrip("0123456789") or "pool"
    digits = name[len(stem):]
    number = str(int(digits) + 1 if digits else 2)
    return stem[: 12 - len(number)] + number


def _pool_of(res: dict[str, Any], change: ValueChange) -> dict[str, Any]:
    """The pool a version change belongs to: the AgentPool itself, or the cluster's inline pool the path names."""
    inputs = res.get("inputs")
    if not isinstance(inputs, dict):
        return {}
    if canonical_type(res["type"]) != CLUSTER:
        return inputs
    head = change.path.split(".", 1)[0]  # agentPoolProfiles[0] or agentPoolProfiles[name="system"]
    profiles = inputs.get("agentPoolProfiles")
    if not head.startswith("agentPoolProfiles[") or not isinstance(profiles, list):
        return {}
    label = head[len("agentPoolProfiles["):-1]
    if label.isdigit() and int(label) < len(profiles) and isinstance(profiles[int(label)], dict):
        return profiles[int(label)]
    return next((p for p in profiles if isinstance(p, dict) and "name=" + json.dumps(p.get("name")) == label), {})


def _pool_upgrade(new: dict[str, Any], change: ValueChange) -> str:
    """A rolling upgrade in the words that fit the pool: a GPU pool's pods and claims, or a system pool's add-ons."""
    pool = _pool_of(new, change)
    settings = pool.get("upgradeSettings")
    surge = settings.get("maxSurge", "1") if isinstance(settings, dict) else "1"
    start = (
        f"{change.path} {change.old} -> {change.new}: a rolling upgrade, one node after another: AKS adds {surge} "
        "surge node(s), then cordons, drains and reimages each "
    )
    labels = pool.get("nodeLabels")
    key, value = GPU_PRESENT_LABEL
    vm_size = pool.get("vmSize")
    if (isinstance(labels, dict) and labels.get(key) == value) or (isinstance(vm_size, str) and vm_size in A10_SIZES):
        return start + (
            "GPU node; GPU pods are evicted and wait until an upgraded node publishes its vGPU again (a "
            "PodDisruptionBudget decides how many may go at once)"
        )
    if pool.get("mode") == "System":
        return start + (
            "system node; the cluster's add-ons (CoreDNS, metrics-server) and the controllers scheduled there move to the "
            "next node; no GPU workload runs here (a PodDisruptionBudget decides how many may go at once)"
        )
    return start + "node; its pods are evicted and scheduled again (a PodDisruptionBudget decides how many may go at once)"


def resource_warnings(
    operation: str, old: dict[str, Any], new: dict[str, Any] | None, changes: list[ValueChange], protected: bool,
    replacement: Replacement | None = None,
) -> list[str]:
    """Downtime, protection, retention, rolling changes, secrets: one line each. What a replacement costs is read from
    its one decision (`replacement`: delete first or create first); a refusal's reason is on its change line only."""
    found: list[str] = []
    type_ = canonical_type(old["type"])
    old_options = old.get("options") or {}
    impact = IMPACTS.get(type_)
    if type_ == RELEASE and not _is_driver_chart((old.get("inputs") or {}).get("chart")):
        impact = OTHER_RELEASE
    own_replacement = any("replace" in c.effects for c in changes)
    if protected:
        found.append(_PROTECTED_DELETE if new is None else _PROTECTED if own_replacement else _PROTECTED_CASCADE)
    if operation == "replace" and old_options.get("protect") and not ((new or {}).get("options") or {}).get("protect"):
        found.append(_UNPROTECTED)
    if operation == "replace" and impact:
        found.append(impact.on_replace(replacement.delete_first if replacement else True))
    if replacement and not replacement.delete_first and type_.startswith("azure-native:"):
        # azure-native's Create first checks that the resource does not exist (CanCreate): a new one with the same
        # name, so the same ARM id, cannot be created beside the old one.
        found.append(
            "created first with the same name as the old one, so Azure Resource Manager would find it already there "
            "(pulumi-azure-native's Create refuses an existing resource): set deleteBeforeReplace on it"
        )
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
            # A refusal is said once: its change line carries the rule ("refused in place: why; source"), the header
            # who refuses and what fails, and the safe path above what to do instead.
            if rule.effect == "rebuild" and new is not None and change.path.endswith("orchestratorVersion"):
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
    added = {d.name for d in diffs if d.operation == "create" and canonical_type(d.type) == POOL}
    gone = {d.name for d in diffs if d.operation in ("delete", "replace") and canonical_type(d.type) == POOL}
    if added and gone:
        found.append(
            "GPU pools are added and removed (or replaced) in the same update: workloads get no time to move; add the new "
            f"pool first, drain, and remove the old one in a later update ({SAFE_CHANGES_DOC})"
        )
    # The same name and type leaving and arriving means its URN changed (a new parent): Pulumi recreates it.
    arriving = {(canonical_type(d.type), d.name) for d in diffs if d.operation == "create"}
    for d in diffs:
        if d.operation == "delete" and (canonical_type(d.type), d.name) in arriving:
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
                    "clusterIdentifier follow the cluster (components.azure.cluster_identity.cluster_identifier) before applying"
                )
    return found
