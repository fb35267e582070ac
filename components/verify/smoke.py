"""`verify --smoke`: per claim template (or size), a short pod in a scratch namespace of its own that claims a slice
and runs `nvidia-smi -L`; checks the claim is allocated, the device is the template's size (best fit), the pod
completes; with GPU metrics on, that dcgm-exporter's metrics (through the API server's pod proxy) carry the pod.

Everything it creates lives in one namespace it creates itself (generateName: never an existing one), deleted on
success, failure, timeout, Ctrl-C and SIGTERM. It never writes anywhere else.
"""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from ..catalog import GPU_DRIVER_NAME
from ..kubernetes.selectors import size_class_of
from ..kubernetes.slice_kinds import a10_slice, order, slice_of, slice_of_pool
from ..signals import signal_handler
from .checks_cluster import gpu_nodes
from .checks_devices import memory_mib, node_devices
from .client import ApiError, ClusterClient, Obj
from .expected import Expected, Template
from .report import Check, fail, ok, skip, warn
from .snapshot import Snapshot

# A CUDA base image pinned by tag (NVIDIA's supported tags, gitlab.com/nvidia/container-images/cuda doc/supported-tags.md,
# "CUDA 12.4.1 Update"): CUDA 12.4 is what AKS's A10 GRID 550 driver supports. nvidia-smi itself comes from the host
# driver through the DRA driver's CDI edits; the image only needs a shell and glibc. Pin a digest with --image.
DEFAULT_IMAGE = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"
NAMESPACE_PREFIX = "aks-dra-vgpu-verify-"
LABELS = {"app.kubernetes.io/managed-by": "aks-dra-vgpu", "app.kubernetes.io/component": "verify-smoke"}
# dcgm-exporter collects every 30 s by default (its -c 30000): a pod that holds its slice this long shows in the metrics.
HOLD_SECONDS = 75
CLEANUP_RESERVE = 20.0
POLL = 3.0
Progress = Callable[[str], None]


def templates_for(exp: Expected, sizes: list[int] | None) -> list[Template]:
    """The templates to try: the stack's (known slices: one per A10 size and per MIG template), or one per asked A10
    size built from the stack's claim settings."""
    if not sizes:
        return [t for t in exp.templates if t.kind is not None]
    from ..kubernetes.claim_templates import claim_spec, claim_template_name
    from ..kubernetes.dra_samples import claim_settings

    settings = claim_settings(exp.stack.samples, exp.pools)
    return [Template(f"{s}GiB", claim_template_name(settings.device_class_name, s), s, 1, claim_spec(settings, s),
                     a10_slice(s)) for s in sizes]


def pod_body(exp: Expected, template: Template, image: str, hold: int) -> Obj:
    """The smoke pod: the sample Job's locked-down pod (restricted PSA; the tolerations of the pools that offer the
    template's slice only)."""
    from ..kubernetes.dra_samples import job_spec, pod_spec
    from ..kubernetes.tolerations import pool_tolerations

    if template.kind is not None and template.kind.family == "mig":
        # The sample pod with the tolerations of the MIG pools that offer the slice (a stack of MIG pools alone has no
        # A10 size for the sample Job: the pod is built on the template itself).
        samples = exp.stack.samples.model_copy(update={"image": image})
        offering = [p for p in exp.pools if p.is_mig and slice_of_pool(p) == template.kind]
        tolerations = pool_tolerations(p for p in offering if p.spot is None) or pool_tolerations(offering)
        spec = pod_spec(samples, template.name, tolerations)
    else:
        samples = exp.stack.samples.model_copy(update={"image": image, "workload_memory_gib": template.size})
        spec = job_spec(samples, exp.pools)["template"]["spec"]
    spec["resourceClaims"][0]["resourceClaimTemplateName"] = template.name
    container = spec["containers"][0]
    container["imagePullPolicy"] = "IfNotPresent"
    if hold:
        container["command"] = ["sh", "-c", f"nvidia-smi -L && sleep {hold}"]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": f"smoke-{template.key.lower()}-", "labels": dict(LABELS)}, "spec": spec}


def _interrupt(number: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _terminate_as_interrupt() -> contextlib.AbstractContextManager[bool]:
    """SIGTERM ends the smoke like Ctrl-C (the cleanup runs), where a handler can be set."""
    return signal_handler(signal.SIGTERM, _interrupt)


def run_smoke(client: ClusterClient, exp: Expected, snap: Snapshot, *, sizes: list[int] | None, image: str | None,
              deadline: Any, progress: Progress) -> list[Check]:
    """Creates, watches and deletes the smoke pods; one check per template, and one per metrics check."""
    if exp.device_class is None:
        return [skip("smoke", "samples", "samples.enabled is false: no DeviceClass to claim from")]
    nodes = gpu_nodes(snap, exp)
    runnable, checks = [], []
    for template in templates_for(exp, sizes):
        if any(slice_of_pool(p) == template.kind and p.devices_per_node >= template.devices for _, p in nodes.values()):
            runnable.append(template)
        else:
            checks.append(warn("smoke", template.key, "not run: no node of this size runs now (pool at zero?)",
                               "pool-at-zero"))
    if not runnable:
        return checks
    hold = HOLD_SECONDS if exp.metrics_namespace else 0

    def start(namespace: str) -> list[Check]:
        pods = {}
        for template in runnable:
            client.create("ResourceClaimTemplate", {
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": template.name, "labels": dict(LABELS)}, "spec": {"spec": template.spec}},
                namespace)
            pod = client.create("Pod", pod_body(exp, template, image or DEFAULT_IMAGE, hold), namespace)
            pods[template.key] = (template, pod["metadata"]["name"])
            progress(f"smoke: pod {pod['metadata']['name']} claims {template.key}")
        return _watch(client, exp, snap, namespace, pods, deadline, progress)

    return checks + in_scratch_namespace(client, progress, start)


def in_scratch_namespace(client: ClusterClient, progress: Progress, work: Callable[[str], list[Check]]) -> list[Check]:
    """Runs `work` in a namespace of its own (generateName, restricted PSA), deleted afterwards whatever happens
    (failure, timeout, Ctrl-C, SIGTERM); a refusal of the API server is one failed check."""
    namespace = None
    with _terminate_as_interrupt():
        try:
            created = client.create("Namespace", {"apiVersion": "v1", "kind": "Namespace", "metadata": {
                "generateName": NAMESPACE_PREFIX,
                "labels": {**LABELS, "pod-security.kubernetes.io/enforce": "restricted"}}})
            namespace = created["metadata"]["name"]
            progress(f"smoke: namespace {namespace}")
            return work(namespace)
        except ApiError as exc:
            return [fail("smoke", namespace or "namespace", f"the API server refused: {exc}", "verify-access")]
        finally:
            if namespace is not None:
                with contextlib.suppress(Exception):
                    client.delete_namespace(namespace)
                progress(f"smoke: deleted namespace {namespace}")


def _allocated(client: ClusterClient, namespace: str, pod: Obj) -> list[Obj] | None:
    """The devices allocated to the pod's claim, or None while unallocated."""
    status = pod.get("status") or {}
    names = [s.get("resourceClaimName") for s in status.get("resourceClaimStatuses") or []]
    names.append((status.get("extendedResourceClaimStatus") or {}).get("resourceClaimName"))  # extended resources
    for name in filter(None, names):
        claim = client.read_resource_claim(namespace, name)
        results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results")
        return results or None
    return None


def _size_verdict(exp: Expected, snap: Snapshot, template: Template, results: list[Obj]) -> Check:
    if template.kind is not None and template.kind.family == "mig":
        return _mig_verdict(exp, snap, template, results)
    sizes = []
    for r in results:
        device = next((d for d in node_devices(snap, r.get("pool", "")) or [] if d.get("name") == r.get("device")), None)
        mib = memory_mib(device) if device else None
        sizes.append(size_class_of(mib, exp.margin_percent) if mib is not None else None)
    where = ", ".join(f"{r.get('pool')}/{r.get('device')}" for r in results)
    if r_wrong := [r for r in results if r.get("driver") != GPU_DRIVER_NAME]:
        return fail("smoke", template.key, f"allocated from another driver: {r_wrong}", "smoke-wrong-size")
    if len(results) == template.devices and all(s == template.size for s in sizes):
        return ok("smoke", template.key, f"claim allocated its own size: {where}")
    if len(results) == template.devices and all(s is not None and template.size and s > template.size for s in sizes):
        return warn("smoke", template.key, f"claim allocated a larger slice ({sizes} GiB) at {where}: best fit found no "
                    "free slice of its own size")
    return fail("smoke", template.key, f"claim allocated {where} of size(s) {sizes} GiB, not {template.key}",
                "smoke-wrong-size")


def _mig_verdict(exp: Expected, snap: Snapshot, template: Template, results: list[Obj]) -> Check:
    """A MIG template's allocation: its own slice (ok), a larger one (best fit found none free: warn), else wrong."""
    kind = template.kind
    found = []
    for r in results:
        device = next((d for d in node_devices(snap, r.get("pool", "")) or [] if d.get("name") == r.get("device")), None)
        found.append(slice_of(device, memory_mib(device), exp.margin_percent) if device else None)
    where = ", ".join(f"{r.get('pool')}/{r.get('device')}" for r in results)
    if len(results) == template.devices and all(f == kind for f in found):
        return ok("smoke", template.key, f"claim allocated its own slice ({kind.label if kind else ''}): {where}")
    if kind and len(results) == template.devices and all(f is not None and order(f) > order(kind) for f in found):
        shown = ", ".join(f.label for f in found if f)
        return warn("smoke", template.key, f"claim allocated a larger slice ({shown}) at {where}: best fit found no "
                    "free slice of its own")
    shown = ", ".join(f.label if f else "an unknown device" for f in found)
    return fail("smoke", template.key, f"claim allocated {where} ({shown}), not {template.key}", "smoke-wrong-size")


Verdict = Callable[[Expected, Snapshot, Template, list[Obj]], Check]
Stuck = Callable[[Template, Obj], Check | None]
"""Given a pod not allocated yet: a finding that ends its wait (it can never be scheduled), or None to keep waiting."""


def _watch(client: ClusterClient, exp: Expected, snap: Snapshot, namespace: str,
           pods: dict[str, tuple[Template, str]], deadline: Any, progress: Progress,
           verdict: Verdict | None = None, stuck: Stuck | None = None) -> list[Check]:
    """Follows each pod until it ends (or the deadline), one verdict per allocation; `stuck` may end a pod that will
    never be scheduled early, with its own finding."""
    checks: list[Check] = []
    pending = dict(pods)
    allocation_seen: set[str] = set()
    metrics_seen: set[str] = set()
    # dcgm-exporter never attributes a MIG slice's rows to a pod (docs/observability.md): nothing to wait for there.
    for key, (template, _) in pods.items():
        if exp.metrics_namespace and template.kind is not None and template.kind.family == "mig":
            metrics_seen.add(key)
            checks.append(skip("smoke-metrics", template.key, "not checked: dcgm-exporter labels no MIG slice with its "
                               "pod (it keys MIG devices by the parent GPU's UUID; docs/observability.md)"))
    while pending:
        for key, (template, name) in list(pending.items()):
            pod = client.read_pod(namespace, name)
            if key not in allocation_seen:
                results = _allocated(client, namespace, pod)
                if results:
                    allocation_seen.add(key)
                    checks.append((verdict or _size_verdict)(exp, snap, template, results))
                elif stuck is not None and (found := stuck(template, pod)) is not None:
                    checks.append(found)
                    del pending[key]
                    continue
            phase = (pod.get("status") or {}).get("phase")
            if phase == "Running" and exp.metrics_namespace and key not in metrics_seen and _metrics_carry(
                    client, exp, namespace, pod):
                metrics_seen.add(key)
                checks.append(ok("smoke-metrics", template.key, f"dcgm-exporter attributes the slice to pod {namespace}/{name}"))
            if phase in ("Succeeded", "Failed"):
                output = " | ".join(line.strip() for line in client.pod_log(namespace, name).splitlines() if line.strip())
                if phase == "Succeeded":
                    checks.append(ok("smoke", template.key, f"pod {name} completed: {output[:300] or '(no output)'}"))
                else:
                    checks.append(fail("smoke", template.key, f"pod {name} failed: {output[:300] or '(no output)'}",
                                       "smoke-pod-failed"))
                if exp.metrics_namespace and key not in metrics_seen:
                    checks.append(warn("smoke-metrics", template.key, "dcgm-exporter's metrics never carried the pod's "
                                       "pod/namespace labels while it ran", "metrics-without-pod"))
                del pending[key]
        if not pending:
            break
        if deadline.left() <= CLEANUP_RESERVE + POLL:
            for key, (template, name) in pending.items():
                pod = client.read_pod(namespace, name)
                why = next((c.get("message") for c in (pod.get("status") or {}).get("conditions") or []
                            if c.get("type") == "PodScheduled" and c.get("status") == "False"), None)
                state = "unallocated" if key not in allocation_seen else "allocated"
                checks.append(fail("smoke", template.key, f"pod {name} did not complete in time (claim {state}"
                                   + (f"; {' '.join(str(why).split())[:200]}" if why else "") + ")", "smoke-timeout"))
            break
        progress(f"smoke: waiting for {', '.join(sorted(pending))} ({deadline.left():.0f} s left)")
        time.sleep(POLL)
    return checks


def _metrics_carry(client: ClusterClient, exp: Expected, namespace: str, pod: Obj) -> bool:
    """Whether the dcgm-exporter on the pod's node reports a metric labelled with this pod and namespace."""
    from ..observability.exporter import METRICS_PORT

    node = (pod.get("spec") or {}).get("nodeName")
    try:
        exporters = [p for p in client.list_pods(exp.metrics_namespace or "") if (p.get("spec") or {}).get("nodeName") == node]
        for exporter in exporters:
            text = client.pod_proxy_get(exp.metrics_namespace or "", exporter["metadata"]["name"], METRICS_PORT, "metrics")
            wanted = (f'pod="{pod["metadata"]["name"]}"', f'namespace="{namespace}"')
            if any(all(w in line for w in wanted) for line in text.splitlines() if not line.startswith("#")):
                return True
    except ApiError:
        return False
    return False
