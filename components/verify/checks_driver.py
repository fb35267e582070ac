"""Checks of the DaemonSets that must run on every GPU node (the DRA kubelet plugin, dcgm-exporter) and of the
driver's controller: which nodes have no ready pod, and why (pure)."""

from __future__ import annotations

from .checks_cluster import gpu_nodes
from .client import Obj
from .expected import Expected
from .placement import DAEMON_TOLERATIONS, blocking_taints, node_ready, pod_ready, pod_trouble, unmet_selectors
from .report import Check, fail, ok, skip, warn
from .snapshot import Snapshot

# A node's daemon pod: ready; starting (a kubelet reported it started, or it still waits to be scheduled); unstarted
# (bound to the node, but no kubelet ever started it: no status.startTime); broken (stuck, or it can never run there).
READY, STARTING, UNSTARTED, BROKEN = "ready", "starting", "unstarted", "broken"


def _owned(pod: Obj, ds: Obj) -> bool:
    uid = (ds.get("metadata") or {}).get("uid")
    refs = (pod.get("metadata") or {}).get("ownerReferences") or []
    if uid and any(r.get("uid") == uid for r in refs):
        return True
    wanted = ((ds.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    have = (pod.get("metadata") or {}).get("labels") or {}
    return bool(wanted) and all(have.get(k) == v for k, v in wanted.items())


def _target_node(pod: Obj) -> str | None:
    """The node a daemon pod runs on, or is meant for (the controller pins it by a matchFields affinity)."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return spec["nodeName"]
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or []:
        for f in term.get("matchFields") or []:
            if f.get("key") == "metadata.name" and f.get("values"):
                return f["values"][0]
    return None


def _pending_reason(pod: Obj) -> str:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "False":
            return " ".join(str(c.get("message") or c.get("reason") or "not scheduled").split())[:200]
    return f"phase {(pod.get('status') or {}).get('phase') or 'Pending'}"


def coverage(what: str, ds: Obj, pods: list[Obj], nodes: dict[str, Obj], fix_taint: str, fix_label: str,
             fix_broken: str) -> tuple[list[Check], dict[str, str]]:
    """One check per GPU node: a ready pod of this DaemonSet, or why not. Also each node's state (ready, starting,
    broken) for the checks that follow (a node without a plugin has no ResourceSlice)."""
    template = ((ds.get("spec") or {}).get("template") or {}).get("spec") or {}
    tolerations = [*(template.get("tolerations") or []), *DAEMON_TOLERATIONS]
    by_node: dict[str, Obj] = {}
    for pod in pods:
        target = _target_node(pod)
        if target and _owned(pod, ds) and not (pod.get("metadata") or {}).get("deletionTimestamp"):
            by_node.setdefault(target, pod)
    checks, state = [], {}
    for name, node in sorted(nodes.items()):
        pod = by_node.get(name)
        if pod is not None and pod_ready(pod):
            checks.append(ok(what, name, f"pod {pod['metadata']['name']} is ready"))
            state[name] = READY
            continue
        trouble = pod_trouble(pod) if pod is not None else None
        missing = unmet_selectors(node, template)
        taints = blocking_taints(node, tolerations)
        if pod is None and missing:
            checks.append(fail(what, name, f"no pod: the node does not match its node selector ({'; '.join(missing)})",
                               fix_label))
            state[name] = BROKEN
        elif pod is None and taints:
            checks.append(fail(what, name, f"no pod: it does not tolerate the node's taint(s) {', '.join(taints)}",
                               fix_taint))
            state[name] = BROKEN
        elif trouble:
            checks.append(fail(what, name, f"pod {pod['metadata']['name']} is stuck: {trouble}", fix_broken))
            state[name] = BROKEN
        elif pod is None:
            why = "the node is not Ready" if not node_ready(node) else "the DaemonSet controller has not created one yet"
            checks.append(warn(what, name, f"no pod yet: {why}", fix_broken))
            state[name] = STARTING
        elif not (pod.get("spec") or {}).get("nodeName"):
            checks.append(warn(what, name, f"pod {pod['metadata']['name']} is not scheduled: {_pending_reason(pod)}",
                               fix_broken))
            state[name] = STARTING
        else:
            status = pod.get("status") or {}
            started = bool(status.get("startTime"))
            how = f"{status.get('phase') or 'Pending'}" + ("" if started else ", not started by the node's kubelet yet")
            checks.append(warn(what, name, f"pod {pod['metadata']['name']} is not ready yet ({how})", fix_broken))
            state[name] = STARTING if started else UNSTARTED
    return checks, state


def _find(items: list[Obj], name: str, prefix: bool = False) -> Obj | None:
    for item in items:
        found = item["metadata"]["name"]
        if found == name or (prefix and found.startswith(name)):
            return item
    return None


def check_driver(snap: Snapshot, exp: Expected) -> tuple[list[Check], dict[str, str]]:
    """The DRA kubelet plugin on every GPU node (and the controller when compute domains are on); each node's state."""
    nodes = {name: node for name, (node, _) in gpu_nodes(snap, exp).items()}
    if exp.driver_namespace is None or exp.plugin_daemon_set is None:
        return [skip("dra-plugin", "draDriver", "draDriver.enabled is false: the driver is someone else's (the "
                     "ResourceSlice checks still apply)")], {}
    subject = f"{exp.driver_namespace}/{exp.plugin_daemon_set}"
    ds = _find(snap.driver_daemon_sets, exp.plugin_daemon_set)
    if ds is None:
        return [fail("dra-plugin", subject, "the kubelet plugin DaemonSet does not exist: the driver's Helm release is "
                     "not installed (or under another name)", "driver-not-installed")], {n: BROKEN for n in nodes}
    checks, state = coverage("dra-plugin", ds, snap.driver_pods, nodes, "plugin-taint-not-tolerated",
                             "plugin-node-selector", "plugin-not-running")
    if exp.controller_deployment:
        checks.append(_controller(snap, exp))
    return checks, state


def _controller(snap: Snapshot, exp: Expected) -> Check:
    subject = f"{exp.driver_namespace}/{exp.controller_deployment}"
    deployment = _find(snap.driver_deployments, exp.controller_deployment or "")
    if deployment is None:
        return fail("dra-controller", subject, "the ComputeDomain controller Deployment does not exist (computeDomains "
                    "is on)", "driver-not-installed")
    available = (deployment.get("status") or {}).get("availableReplicas") or 0
    if available >= 1:
        return ok("dra-controller", subject, f"{available} replica(s) available")
    return warn("dra-controller", subject, "no replica available yet", "controller-not-available")


def check_monitoring(snap: Snapshot, exp: Expected) -> list[Check]:
    """dcgm-exporter ready on every GPU node, when the stack turns GPU metrics on."""
    if exp.metrics_namespace is None or exp.metrics_release is None:
        return [skip("gpu-metrics", "monitoring.gpuMetrics", "GPU metrics are off in this stack")]
    nodes = {name: node for name, (node, _) in gpu_nodes(snap, exp).items()}
    ds = _find(snap.metrics_daemon_sets, exp.metrics_release, prefix=True)
    if ds is None:
        return [fail("gpu-metrics", f"{exp.metrics_namespace}/{exp.metrics_release}", "the dcgm-exporter DaemonSet "
                     "does not exist: its Helm release is not installed", "metrics-not-installed")]
    checks, _ = coverage("gpu-metrics", ds, snap.metrics_pods, nodes, "metrics-taint-not-tolerated",
                         "metrics-node-selector", "metrics-not-running")
    return checks
