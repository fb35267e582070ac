"""The kubelets behind extended resource names (pure): every GPU node whose devices a class that maps a name can select
must run a 1.36 kubelet, and what the classes say is not what a running scheduler remembers.

- A 1.35 kubelet admits a pod asking an extended resource its node does not list (kubernetes/kubernetes
  pkg/kubelet/lifecycle/predicate.go, removeMissingExtendedResources) and, with the DRAExtendedResource gate off, never
  prepares the claim the scheduler wrote for it (pkg/kubelet/cm/dra/manager.go): the container starts **without the
  GPU** while the device stays allocated. The node's kubelet version is `status.nodeInfo.kubeletVersion`; which names
  reach it is decided by the live classes' own selectors, evaluated on the devices the node publishes (`cel`), or, where
  it publishes none yet, by the slices the stack's classes and the chart's gpu.nvidia.com (any A10 slice) select.
- The 1.36 scheduler keeps one class per name in memory and forgets it when any class carrying it is deleted
  (staging/src/k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache/extendedresourcecache.go,
  removeResourceName2class): no object shows that memory, so a read-only verify says so and `--smoke` asks a pod.
"""

from __future__ import annotations

from ..catalog import GPU_DEVICE_CLASS, GPU_DRIVER_NAME
from ..config import GpuPoolConfig
from ..config.samples import EXTENDED_RESOURCE_FROM
from ..kubernetes.extended_classes import ExtendedClass
from ..kubernetes.slice_kinds import slice_of_pool
from .cel import CelError, selects
from .checks_cluster import gpu_nodes
from .checks_devices import node_devices, selector_expressions
from .checks_extended import classes_by_name, mapped_name
from .client import Obj
from .expected import Expected, parse_version
from .report import Check, fail, ok, skip
from .snapshot import Snapshot

_FROM = ".".join(map(str, EXTENDED_RESOURCE_FROM))


def kubelet_version(node: Obj) -> str | None:
    """The node's kubelet version as it reports it (`v1.35.4`), or None where it reports none."""
    found = ((node.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion")
    return str(found) if found else None


def names_reaching(devices: list[Obj], live: list[Obj]) -> list[str]:
    """The names whose mapping classes select one of these published devices (their CEL, as the allocator runs it)."""
    found = []
    for device_class in live:
        name = mapped_name(device_class)
        try:
            if name and any(selects(selector_expressions(device_class.get("spec")), GPU_DRIVER_NAME, d) for d in devices):
                found.append(name)
        except CelError:
            found.append(name)  # a selector that cannot be read may select it: count it
    return sorted(set(found))


def _declared_reaching(pool: GpuPoolConfig, declared: tuple[ExtendedClass, ...], live: list[Obj]) -> list[str]:
    """Without published devices: the stack's classes that select the pool's slice, and the chart's (any A10 slice)."""
    kind = slice_of_pool(pool)
    names = {c.resource_name for c in declared if kind in c.slices}
    if kind.family == "a10":
        names |= {n for n, owners in classes_by_name(live).items() if GPU_DEVICE_CLASS in owners}
    return sorted(names)


def check_kubelets(snap: Snapshot, exp: Expected) -> list[Check]:
    """Fail on every GPU node older than 1.36 that a mapped name can reach; one line for the nodes that are fine."""
    live = snap.device_classes
    if not classes_by_name(live) and not exp.extended:
        return []
    checks, fine = [], 0
    for name, (node, pool) in sorted(gpu_nodes(snap, exp).items()):
        version = kubelet_version(node)
        parsed = parse_version(version) if version else None
        if parsed is None or parsed[:2] >= EXTENDED_RESOURCE_FROM:
            fine += parsed is not None
            continue
        devices = node_devices(snap, name) or []
        reaching = names_reaching(devices, live) if devices else _declared_reaching(pool, exp.extended, live)
        if not reaching:
            fine += 1
            continue
        checks.append(fail("extended-kubelet", name, (
            f"kubelet {version} is older than {_FROM}, and {', '.join(reaching)} can select this node's slices: a pod "
            "asking for it is admitted here but its claim is never prepared, so the container runs without the GPU "
            f"while the device stays allocated; upgrade pool {pool.name} to {_FROM} (its orchestratorVersion) or "
            "cordon the node"), "extended-kubelet-too-old"))
    if fine and not checks:
        checks.append(ok("extended-kubelet", "gpu nodes", f"every GPU node a mapped name can reach runs a {_FROM}+ "
                         "kubelet"))
    return checks


def scheduler_memory(live: list[Obj], declared: tuple[ExtendedClass, ...], smoke: bool) -> list[Check]:
    """One line saying that the classes do not show what a running scheduler serves each name with."""
    if not classes_by_name(live) and not declared:
        return []
    if smoke:
        return []  # the smoke's pods ask the scheduler itself
    return [skip("scheduler-memory", "extended resources", "not checked without --smoke: the classes show what a "
                 "scheduler that lists them serves, but a running 1.36 scheduler forgets a name when any class that "
                 "carries it is deleted and gives it back only when a class that maps it is next updated "
                 "(extendedresourcecache.go, removeResourceName2class); `verify --smoke` asks the scheduler with a pod "
                 "per name")]
