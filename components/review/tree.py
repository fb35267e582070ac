"""The plan for people: resources as a tree, each with the few settings a reviewer looks for."""

from __future__ import annotations

import json
from typing import Any

from ..catalog.roles import role_label
from ..config import MISSING, value_at
from ..offline.plan import Plan, walk
from .replacement_rules import tree_settings
from .rules.azure_fleet import AUTO_UPGRADE, FLEET, FLEET_MEMBER, STRATEGY
from .rules.azure_monitoring import ROLE_ASSIGNMENT
from .rules.model import CLUSTER, GROUP, MAINTENANCE, POOL

# Per type: the input paths worth a glance (dotted; missing ones are skipped). The Azure types' rows come from the
# diff's rules and in-place entries (each marks its row), so a setting's rule and its place in the tree are one entry.
KEY_SETTINGS: dict[str, tuple[str, ...]] = {
    **{type_: tree_settings(type_) for type_ in (GROUP, CLUSTER, POOL, MAINTENANCE, FLEET, STRATEGY, AUTO_UPGRADE,
                                                 FLEET_MEMBER)},
    # Who gets which role where: the role by name and ID (catalog/roles.py), however ARM spells the ID.
    ROLE_ASSIGNMENT: ("roleDefinitionId", "principalType", "principalId", "scope"),
    "pulumi:providers:kubernetes": ("kubeconfig",),
    "kubernetes:helm.sh/v3:Release": ("name", "chart", "version", "namespace", "repositoryOpts.repo", "skipCrds"),
    "kubernetes:yaml/v2:ConfigFile": ("file",),
    "kubernetes:resource.k8s.io/v1:DeviceClass": ("metadata.name", "spec.extendedResourceName", "spec.selectors"),
    "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate": ("metadata.name", "spec.spec.devices.requests"),
    "kubernetes:resource.k8s.io/v1:ResourceClaim": ("metadata.name", "spec.devices.requests"),
    "kubernetes:core/v1:Namespace": ("metadata.name",),
    "kubernetes:networking.k8s.io/v1:NetworkPolicy": ("metadata.name", "spec.policyTypes"),
    "kubernetes:batch/v1:Job": ("metadata.name", "metadata.namespace"),
}


def _short(value: Any) -> str:
    if isinstance(value, list) and value and all(isinstance(v, dict) and "name" in v for v in value):
        # Inline pools and device requests: name them and the one or two facts that matter.
        return "[" + ", ".join(_summary(v) for v in value) + "]"
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else value
    return text


def _summary(item: dict[str, Any]) -> str:
    facts = [str(item[k]) for k in ("mode", "vmSize", "count") if k in item]
    return item["name"] + (f" ({' '.join(facts)})" if facts else "")


def _row(type_: str, path: str, value: Any) -> str:
    """One setting's row; a role assignment's role shows by name and ID."""
    if type_ == ROLE_ASSIGNMENT and path == "roleDefinitionId":
        return f"role: {role_label(value) or _short(value)}"
    return f"{path}: {_short(value)}"


def render_tree(plan: Plan) -> str:
    """A readable, deterministic tree of the plan."""
    lines = [f"{plan.project}/{plan.stack}: {len(plan.resources)} resources"]
    for depth, r in walk(plan):
        kind = r.type.rsplit(":", 1)[-1]
        flags = []
        if r.options.get("protect"):
            flags.append("protected")
        if r.options.get("retainOnDelete"):
            flags.append("retained on delete")
        if r.options.get("ignoreChanges"):
            flags.append("ignores " + ",".join(r.options["ignoreChanges"]))
        head = f"{'  ' * depth}- {kind} {r.name}" + (f"  [{'; '.join(flags)}]" if flags else "")
        lines.append(head)
        for path in KEY_SETTINGS.get(r.type, ()):
            value = value_at(r.inputs, path.split("."))
            if value not in (MISSING, None):
                lines.append(f"{'  ' * depth}    {_row(r.type, path, value)}")
    if plan.outputs:
        lines.append("outputs:")
        for key in sorted(plan.outputs):
            lines.append(f"  {key}: {_short(plan.outputs[key])}")
    return "\n".join(lines) + "\n"
