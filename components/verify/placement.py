"""Why a pod can or cannot run on a node: taints against tolerations, node selectors and required node affinity, as
the scheduler and the DaemonSet controller decide it (kubernetes/kubernetes staging/src/k8s.io/api/core/v1
toleration.go ToleratesTaint; staging/src/k8s.io/component-helpers/scheduling/corev1 helpers.go and nodeaffinity).
Pure functions over API JSON."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]

# Tolerations the DaemonSet controller adds to every daemon pod (pkg/controller/daemon/util/daemonset_util.go,
# AddOrUpdateDaemonPodTolerations): a node's condition taints never keep a daemon pod away.
DAEMON_TOLERATIONS: list[Obj] = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


def taint_text(taint: Obj) -> str:
    """`key=value:Effect` (or `key:Effect`)."""
    value = taint.get("value")
    return f"{taint.get('key')}={value}:{taint.get('effect')}" if value else f"{taint.get('key')}:{taint.get('effect')}"


def tolerates(toleration: Obj, taint: Obj) -> bool:
    """core/v1 Toleration.ToleratesTaint: effect (empty matches all), key (empty with Exists matches all), value."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    return operator == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")


def blocking_taints(node: Obj, tolerations: list[Obj]) -> list[str]:
    """The node's NoSchedule/NoExecute taints none of these tolerations tolerates (PreferNoSchedule never blocks)."""
    taints = (node.get("spec") or {}).get("taints") or []
    return [
        taint_text(t) for t in taints
        if t.get("effect") in ("NoSchedule", "NoExecute") and not any(tolerates(tol, t) for tol in tolerations)
    ]


def labels(obj: Obj) -> dict[str, str]:
    """An object's labels."""
    return (obj.get("metadata") or {}).get("labels") or {}


def _expression_holds(expr: Obj, node_labels: dict[str, str]) -> bool:
    key, operator, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
    present = key in node_labels
    if operator == "In":
        return present and node_labels[key] in values
    if operator == "NotIn":
        return not present or node_labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and values:
        try:
            have, want = int(node_labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if operator == "Gt" else have < want
    return False


def _expression_text(expr: Obj) -> str:
    values = ",".join(expr.get("values") or [])
    return f"{expr.get('key')} {expr.get('operator')} ({values})" if values else f"{expr.get('key')} {expr.get('operator')}"


def unmet_selectors(node: Obj, pod_spec: Obj) -> list[str]:
    """What of the pod's nodeSelector and required node affinity this node's labels do not meet (empty: all met).

    Affinity terms are ORed (one must hold), a term's expressions ANDed; matchFields (by node name) are not checked:
    the DaemonSet controller sets them per node itself."""
    node_labels = labels(node)
    missing = [f"{k}={v}" for k, v in (pod_spec.get("nodeSelector") or {}).items() if node_labels.get(k) != v]
    required = (((pod_spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = [t for t in required.get("nodeSelectorTerms") or [] if t.get("matchExpressions")]
    if terms and not any(all(_expression_holds(e, node_labels) for e in t["matchExpressions"]) for t in terms):
        alternatives = " or ".join(" and ".join(_expression_text(e) for e in t["matchExpressions"]) for t in terms)
        missing.append(f"node affinity ({alternatives})")
    return missing


def node_ready(node: Obj) -> bool:
    """The node's Ready condition is True."""
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in (node.get("status") or {}).get("conditions") or [])


def pod_ready(pod: Obj) -> bool:
    """The pod's Ready condition is True."""
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in (pod.get("status") or {}).get("conditions") or [])


# Container states that do not heal by waiting (kubelet's waiting reasons).
BROKEN_WAITING = frozenset({
    "CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "InvalidImageName", "CreateContainerConfigError",
    "CreateContainerError", "RunContainerError",
})


def pod_trouble(pod: Obj) -> str | None:
    """Why a pod's containers are stuck (`CrashLoopBackOff: ...`), or None when nothing is stuck."""
    status = pod.get("status") or {}
    for container in [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]:
        waiting = (container.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") in BROKEN_WAITING:
            message = " ".join(str(waiting.get("message") or "").split())[:160]
            return f"container {container.get('name')}: {waiting['reason']}" + (f" ({message})" if message else "")
    return None
