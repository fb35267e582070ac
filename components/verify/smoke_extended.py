"""`verify --smoke` for extended resources: per name the stack maps, one pod that asks for it as workloads written for
the device plugin do (`resources.limits: {<name>: 1}`, requests equal: Kubernetes requires both, and whole numbers),
in the smoke's own scratch namespace; checks that the claim the scheduler made names the stack's class and that the
device it got is the slice (A10 size class or MIG profile) that class promises.

The scheduler writes that claim at PreBind and records it in the pod's `status.extendedResourceClaimStatus`
(kubernetes/kubernetes pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go); the rest (the
namespace, the watch, the cleanup) is the claim smoke's (`smoke`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..kubernetes.extended_classes import ExtendedClass, fix_command
from ..kubernetes.slice_kinds import slice_of, slice_of_pool
from .checks_cluster import gpu_nodes
from .checks_devices import memory_mib, node_devices
from .client import ClusterClient, Obj
from .expected import Expected, Template
from .report import Check, fail, ok, skip, warn
from .smoke import DEFAULT_IMAGE, LABELS, Progress, _watch, in_scratch_namespace
from .snapshot import Snapshot

SMOKE_COUNT = "1"


def forgotten(pod: Obj, name: str, class_name: str) -> Check | None:
    """The finding for a pod asking `name` that the scheduler sends away as for a device plugin's resource
    (`Insufficient <name>`, noderesources fit.go) although `class_name` maps the name: the running 1.36 scheduler forgot
    it when a class carrying it was deleted (extendedresourcecache.go, removeResourceName2class). None otherwise."""
    message = next((str(c.get("message") or "") for c in (pod.get("status") or {}).get("conditions") or []
                    if c.get("type") == "PodScheduled" and c.get("status") == "False"), "")
    if f"Insufficient {name}" not in message:
        return None
    return fail("smoke", name, f"the scheduler treats {name} as a device plugin's resource ({' '.join(message.split())[:160]})"
                f" although {class_name} maps it: a running 1.36 scheduler forgets a name when any class carrying it is "
                f"deleted, and maps it again only when a class that maps it is updated; run `{fix_command(class_name)}` "
                "(new pods are served at once; pods already Pending wait for the scheduler's next retry, at most five "
                "minutes)",
                "extended-name-forgotten")


def extended_pod_body(exp: Expected, found: ExtendedClass, image: str) -> Obj:
    """The sample pod (locked down, `nvidia-smi -L`), asking for one `found.resource_name` instead of a claim, with the
    tolerations of the pools that offer the class's slices (non-spot ones where there are any)."""
    from ..kubernetes.dra_samples import pod_spec
    from ..kubernetes.tolerations import pool_tolerations

    offering = [p for p in exp.pools if slice_of_pool(p) in found.slices]
    tolerations = pool_tolerations(p for p in offering if p.spot is None) or pool_tolerations(offering)
    spec = pod_spec(exp.stack.samples.model_copy(update={"image": image}), "", tolerations)
    del spec["resourceClaims"]
    container = spec["containers"][0]
    container["imagePullPolicy"] = "IfNotPresent"
    resources = container["resources"]
    del resources["claims"]
    resources["requests"][found.resource_name] = SMOKE_COUNT
    resources["limits"][found.resource_name] = SMOKE_COUNT
    slug = found.class_name.removeprefix("aks-dra-vgpu-").replace(".", "")
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": f"smoke-{slug}-", "labels": dict(LABELS)}, "spec": spec}


def _claim_classes(client: ClusterClient, namespace: str, pod_name: str) -> list[str]:
    """The classes the pod's extended-resource claim names (exactly.deviceClassName per request)."""
    status = (client.read_pod(namespace, pod_name).get("status") or {}).get("extendedResourceClaimStatus") or {}
    if not status.get("resourceClaimName"):
        return []
    claim = client.read_resource_claim(namespace, status["resourceClaimName"])
    return [str((r.get("exactly") or {}).get("deviceClassName"))
            for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []]


def _verdict(client: ClusterClient, namespace: str, classes: dict[str, ExtendedClass],
             pods: dict[str, tuple[Template, str]]) -> Any:
    def verdict(exp: Expected, snap: Snapshot, template: Template, results: list[Obj]) -> Check:
        found = classes[template.key]
        served = _claim_classes(client, namespace, pods[template.key][1])
        where = ", ".join(f"{r.get('pool')}/{r.get('device')}" for r in results)
        if any(c != found.class_name for c in served):
            return fail("smoke", template.key, f"the scheduler's claim names {', '.join(served)}, not the stack's "
                        f"{found.class_name}: another class serves {template.key}", "extended-name-taken")
        kinds = []
        for r in results:
            device = next((d for d in node_devices(snap, str(r.get("pool"))) or [] if d.get("name") == r.get("device")),
                          None)
            kinds.append(slice_of(device, memory_mib(device), exp.margin_percent) if device else None)
        shown = ", ".join(k.label if k else "an unknown device" for k in kinds)
        if len(results) == 1 and all(k in found.slices for k in kinds):
            return ok("smoke", template.key, f"served by {found.class_name}: {where} ({shown})")
        return fail("smoke", template.key, f"{found.class_name} gave {where} ({shown}), not "
                    f"{' or '.join(k.label for k in found.slices)}", "smoke-wrong-size")
    return verdict


def run_extended_smoke(client: ClusterClient, exp: Expected, snap: Snapshot, *, image: str | None, deadline: Any,
                       progress: Progress) -> list[Check]:
    """One pod per mapped name (where a node offers its slice), watched and cleaned up; one check per name."""
    nodes = gpu_nodes(snap, exp)
    runnable: dict[str, ExtendedClass] = {}
    checks = []
    for found in exp.extended:
        if not found.slices:
            checks.append(skip("smoke", found.resource_name, f"{found.class_name} serves nothing by design "
                               "(nvidiaGpu: none)"))
        elif any(slice_of_pool(p) in found.slices for _, p in nodes.values()):
            runnable[found.resource_name] = found
        else:
            checks.append(warn("smoke", found.resource_name, "not run: no node of its slice runs now (pool at zero?)",
                               "pool-at-zero"))
    if not runnable:
        return checks
    quiet = dataclasses.replace(exp, metrics_namespace=None)  # dcgm-exporter's attribution is the claim smoke's check

    def start(namespace: str) -> list[Check]:
        pods: dict[str, tuple[Template, str]] = {}
        for name, found in runnable.items():
            pod = client.create("Pod", extended_pod_body(exp, found, image or DEFAULT_IMAGE), namespace)
            pods[name] = (Template(name, found.class_name, None, 1, {}, found.slices[0]), pod["metadata"]["name"])
            progress(f"smoke: pod {pod['metadata']['name']} asks for {name}: 1")
        return _watch(client, quiet, snap, namespace, pods, deadline, progress,
                      verdict=_verdict(client, namespace, runnable, pods),
                      stuck=lambda template, pod: forgotten(pod, template.key, runnable[template.key].class_name))

    return checks + in_scratch_namespace(client, progress, start)
