"""Checks of the API server and the GPU pools' nodes (pure: a Snapshot and the Expected state in, Checks out)."""

from __future__ import annotations

from ..catalog import A10_SIZES, GPU_PRESENT_LABEL, SCALE_FROM_ZERO_WHY
from ..catalog.mig import MIG_SIZES
from ..config import GpuPoolConfig
from ..kubernetes.slice_kinds import slice_of_pool
from .client import Obj
from .expected import INSTANCE_TYPE_LABEL, POOL_LABEL, Expected, parse_version
from .placement import labels, node_ready, taint_text
from .report import Check, fail, ok, warn
from .snapshot import Snapshot


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def check_api(snap: Snapshot, exp: Expected) -> list[Check]:
    """The server answers, its version meets the stack's (and 1.34.2), and it serves resource.k8s.io/v1."""
    major, minor = snap.version.get("major"), snap.version.get("minor")
    text = str(snap.version.get("gitVersion") or (f"{major}.{minor}" if major and minor else ""))
    if not text:  # /version answered without one: no Kubernetes API server behind that address (a proxy, a stub)
        return [fail("api", snap.server, "the server answered /version with no Kubernetes version (no gitVersion, major "
                     "or minor): it is not a Kubernetes API server, or a proxy in front of one answers for it; check "
                     "the kubeconfig's server address", "not-kubernetes")]
    checks = [ok("api", snap.server, f"the API server answers (Kubernetes {text})")]
    found = parse_version(text)
    if found is None:
        checks.append(warn("version", text, "cannot read the server's version; compare it with the stack by hand"))
    elif found < exp.min_version:
        checks.append(fail("version", text, f"the cluster runs {_dotted(found)}, older than {_dotted(exp.min_version)} "
                           f"(the stack's kubernetesVersion '{exp.stack.cluster.kubernetes_version}', and at least "
                           "1.34.2 for the NVIDIA DRA driver)", "cluster-version"))
    else:
        checks.append(ok("version", text, f"{_dotted(found)} meets {_dotted(exp.min_version)}"))
    if "v1" in snap.resource_versions:
        checks.append(ok("dra-api", "resource.k8s.io", f"serves {', '.join(snap.resource_versions)}"))
    else:
        served = ", ".join(snap.resource_versions) or "none"
        checks.append(fail("dra-api", "resource.k8s.io", f"resource.k8s.io/v1 is not served (served: {served}); DRA is "
                           "GA from Kubernetes 1.34", "dra-api-not-served"))
    for what, why in sorted(snap.errors.items()):
        checks.append(fail("access", what, f"cannot read: {why}", "verify-access"))
    return checks


def pool_nodes(snap: Snapshot, pool: GpuPoolConfig) -> list[Obj]:
    """The nodes AKS labelled as this pool's."""
    return [n for n in snap.nodes if labels(n).get(POOL_LABEL) == pool.name]


def gpu_nodes(snap: Snapshot, exp: Expected) -> dict[str, tuple[Obj, GpuPoolConfig]]:
    """Every node of the stack's GPU pools: name -> (node, pool)."""
    found = {}
    for pool in exp.pools:
        for node in pool_nodes(snap, pool):
            found[node["metadata"]["name"]] = (node, pool)
    return found


def _pool_bounds(pool: GpuPoolConfig) -> tuple[int, int]:
    if pool.autoscaling is not None:
        return pool.autoscaling.min_count, pool.autoscaling.max_count
    return pool.initial_count, pool.initial_count


def _empty_pool(pool: GpuPoolConfig) -> Check:
    low, high = _pool_bounds(pool)
    if low == 0:
        return warn("pool", pool.name, f"no node (autoscaled to zero, {low}-{high}): nothing to check yet, and a pod "
                    f"claiming a {slice_of_pool(pool).label} will not bring one: {SCALE_FROM_ZERO_WHY}; "
                    "set minCount: 1 to keep a node", "pool-at-zero")
    return fail("pool", pool.name, f"no node labelled {POOL_LABEL}={pool.name}, expected at least {low}: the pool does "
                "not exist in this cluster, or its nodes have not joined", "pool-without-nodes")


def _node_problems(node: Obj, pool: GpuPoolConfig) -> list[str]:
    """What a pool's node lacks of what the pool declares: the GPU label, the pool's labels and taints, its VM size."""
    have = labels(node)
    problems = []
    key, value = GPU_PRESENT_LABEL
    if have.get(key) != value:
        problems.append(f"label {key}={value} is missing (the DRA kubelet plugin selects nodes by it: no plugin, no "
                        "ResourceSlice)")
    for k, v in sorted(pool.node_labels.items()):
        if k != key and have.get(k) != v:
            problems.append(f"label {k}={v} is missing")
    taints = {taint_text(t) for t in (node.get("spec") or {}).get("taints") or []}
    for taint in pool.parsed_taints:
        if str(taint) not in taints:
            problems.append(f"taint {taint} is missing (workloads of other sizes could land here)")
    instance = have.get(INSTANCE_TYPE_LABEL)
    if instance and instance.lower() != pool.vm_size.lower():
        problems.append(f"runs {instance}, the pool declares {pool.vm_size}")
    return problems


def check_pools(snap: Snapshot, exp: Expected) -> list[Check]:
    """Per GPU pool: its nodes exist (or it is at zero), each carries the GPU label, the pool's labels and taints."""
    checks: list[Check] = []
    for pool in exp.pools:
        nodes = pool_nodes(snap, pool)
        if not nodes:
            checks.append(_empty_pool(pool))
            continue
        low, _ = _pool_bounds(pool)
        starting = [n["metadata"]["name"] for n in nodes if not node_ready(n)]
        summary = f"{len(nodes)} node(s) of {pool.vm_size}"
        if len(nodes) < low:
            checks.append(warn("pool", pool.name, f"{summary}, fewer than minCount {low}: still scaling up"))
        elif starting:
            checks.append(warn("pool", pool.name, f"{summary}; not Ready yet: {', '.join(starting)}", "node-not-ready"))
        else:
            checks.append(ok("pool", pool.name, f"{summary}, all Ready"))
        for node in nodes:
            name = node["metadata"]["name"]
            problems = _node_problems(node, pool)
            if problems:
                checks.append(fail("node", name, f"pool {pool.name}: " + "; ".join(problems), "node-labels-taints"))
            else:
                shown = ", ".join(str(t) for t in pool.parsed_taints) or "no taints"
                checks.append(ok("node", name, f"pool {pool.name}: {GPU_PRESENT_LABEL[0]}={GPU_PRESENT_LABEL[1]}, {shown}"))
    known = {p.name for p in exp.pools}
    for node in snap.nodes:
        have = labels(node)
        instance = have.get(INSTANCE_TYPE_LABEL)
        looks_gpu = have.get(GPU_PRESENT_LABEL[0]) == GPU_PRESENT_LABEL[1] or instance in A10_SIZES or instance in MIG_SIZES
        if looks_gpu and have.get(POOL_LABEL) not in known:
            pool = have.get(POOL_LABEL) or "(no agentpool label)"
            checks.append(warn("node", node["metadata"]["name"], f"a GPU node in pool {pool}, which the stack does not "
                               f"declare (its pools: {', '.join(sorted(known))})", "node-outside-stack"))
    return checks
