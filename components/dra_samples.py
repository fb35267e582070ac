"""DraSamples: resource.k8s.io/v1 objects that select A10 vGPU slices by size, and a sample Job that uses one.

Pure functions decide (CEL selectors, device requests, the Job's spec); the component only registers what they return.
"""

from __future__ import annotations

import math
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field, model_validator

from .catalog import GPU_DRIVER_NAME
from .config import GpuPoolConfig, KeyedProblemsError, SamplesConfig
from .config.pools import GpuPools
from .providers import require_kubernetes_provider

_ATTRS = f"device.attributes['{GPU_DRIVER_NAME}']"
_CAPACITY = f"device.capacity['{GPU_DRIVER_NAME}']"
# A10 and its vGPU profiles ("NVIDIA A10-4Q", "NVIDIA A10-8Q", … with series A, B, C or Q); not A100, A10G or A16.
A10_PRODUCT_PATTERN = "^NVIDIA A10(-[0-9]+[ABCQ])?$"

JOB_NAME = "nvidia-smi"
# `nvidia-smi -L` lists the GPUs the container sees, one line with name and UUID each: proof that the claim reached the
# container, and the vGPU profile (e.g. "NVIDIA A10-8Q") shows which slice size the scheduler picked. The AKS team's
# walkthrough runs it in a Pod that then sleeps (`bash -c "nvidia-smi -L; … sleep 9999"` in ubuntu:22.04); a Job that
# runs only `nvidia-smi -L` finishes, releases the vGPU at once, keeps its log, and needs no shell.
JOB_COMMAND = ["nvidia-smi", "-L"]
REQUEST_NAME = "gpu"


class DraSamplesArgs(SamplesConfig):
    """The samples' settings plus the GPU pools they target (their slice sizes and taints).

    `enabled` is GpuPlatform's switch; a DraSamples that is built always creates its objects.
    """

    pools: GpuPools = Field(
        description="The GPU pools the claims and the Job may land on (GpuNodePool components or their settings)."
    )

    @model_validator(mode="after")
    def _workload_fits(self) -> DraSamplesArgs:
        wanted = self.workload_memory_gib
        if wanted is not None and wanted > sizes_in_use(self.pools)[-1]:
            offered = ", ".join(map(str, sizes_in_use(self.pools)))
            raise KeyedProblemsError(("workloadMemoryGiB", f"{wanted} GiB is more than any pool's slice offers ({offered} GiB)"))
        return self


# --- CEL selectors --------------------------------------------------------------------------------------------------
def device_class_selector() -> str:
    """CEL for the DeviceClass: a GPU published by the NVIDIA driver whose product is an A10 (or an A10 vGPU slice).

    A missing attribute is an evaluation error in CEL (and an error aborts the whole allocation), not false: every
    attribute is checked for presence first. An unknown domain yields an empty map, so the lookups themselves are safe.
    """
    return (
        f"device.driver == '{GPU_DRIVER_NAME}'"
        f" && 'type' in {_ATTRS} && {_ATTRS}.type == 'gpu'"
        f" && 'productName' in {_ATTRS} && {_ATTRS}.productName.matches('{A10_PRODUCT_PATTERN}')"
    )


def min_memory_mib(gpu_memory_gib: int, margin_percent: int) -> int:
    """The least memory (MiB) a device of this nominal size may report and still count: nominal minus the margin.

    Slices report a little under nominal (an 8 GB slice reads about 7.8 GiB), so comparing with the nominal value, or
    with ==, would match nothing. The margin must stay below the gap to the next smaller size: the closest sizes, 8
    and 12 GiB, are 33 % apart, and the setting allows at most 25 %.
    """
    return math.floor(gpu_memory_gib * 1024 * (100 - margin_percent) / 100)


def memory_selector(gpu_memory_gib: int, margin_percent: int) -> str:
    """CEL: the device has at least this nominal GPU memory, less the margin; false (not an error) without a memory capacity."""
    minimum = f"quantity('{min_memory_mib(gpu_memory_gib, margin_percent)}Mi')"
    return f"'memory' in {_CAPACITY} && {_CAPACITY}.memory.compareTo({minimum}) >= 0"


# --- claims -------------------------------------------------------------------------------------------------------
def sizes_in_use(pools: list[GpuPoolConfig]) -> list[int]:
    """The distinct per-device GPU memory sizes (GiB) the pools offer, smallest first."""
    return sorted({p.size.gpu_memory_gib for p in pools})


def claim_template_name(device_class: str, gpu_memory_gib: int) -> str:
    """The ResourceClaimTemplate for devices of at least this size, e.g. ``a10-vgpu-8gib``."""
    return f"{device_class}-{gpu_memory_gib}gib"


def shared_claim_name(device_class: str) -> str:
    """The ResourceClaim that several pods share, e.g. ``a10-vgpu-shared``."""
    return f"{device_class}-shared"


def device_request(config: SamplesConfig, gpu_memory_gib: int) -> dict[str, Any]:
    """A v1 device request (note the `exactly` wrapper, new in v1) for one device with at least this memory."""
    return {
        "name": REQUEST_NAME,
        "exactly": {
            "deviceClassName": config.device_class_name,
            "allocationMode": "ExactCount",
            "count": 1,
            "selectors": [{"cel": {"expression": memory_selector(gpu_memory_gib, config.memory_margin_percent)}}],
        },
    }


def claim_spec(config: SamplesConfig, gpu_memory_gib: int) -> dict[str, Any]:
    """A ResourceClaimSpec asking for one A10 vGPU with at least this much memory."""
    return {"devices": {"requests": [device_request(config, gpu_memory_gib)]}}


# --- the sample Job ---------------------------------------------------------------------------------------------------
def workload_memory(config: SamplesConfig, pools: list[GpuPoolConfig]) -> int:
    """The size class the sample Job asks for: the configured memory rounded up to a size in use, or the smallest."""
    wanted = config.workload_memory_gib or 0
    for size in sizes_in_use(pools):
        if size >= wanted:
            return size
    raise ValueError(f"workloadMemoryGiB: {wanted} GiB is more than any pool's slice offers")


def workload_tolerations(pools: list[GpuPoolConfig], gpu_memory_gib: int) -> list[dict[str, str]]:
    """Tolerations for the taints of every pool whose devices are big enough for the Job (sorted, each once)."""
    found: dict[str, dict[str, str]] = {}
    for pool in pools:
        if pool.size.gpu_memory_gib >= gpu_memory_gib:
            for taint in pool.parsed_taints:
                found.setdefault(str(taint), taint.toleration())
    return [found[k] for k in sorted(found)]


def job_spec(config: SamplesConfig, pools: list[GpuPoolConfig]) -> dict[str, Any]:
    """The sample Job: `nvidia-smi -L` on one claimed vGPU, as locked down as a GPU pod can be.

    The image is a plain glibc base image, not a CUDA image: the driver's kubelet plugin hands the container a CDI
    device whose edits mount the host driver's user-space libraries and binaries, `nvidia-smi` among them (NVIDIA
    k8s-dra-driver-gpu `cmd/gpu-kubelet-plugin/cdi.go` via nvidia-container-toolkit `pkg/nvcdi`). nvidia-smi is
    dynamically linked against glibc, so musl or static images (alpine, busybox, distroless/static) cannot run it.
    """
    size = workload_memory(config, pools)
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": {
            # nobody:nogroup. NVIDIA device nodes are mode 0666 by default (NVreg_DeviceFileMode): no root needed.
            "runAsNonRoot": True,
            "runAsUser": 65534,
            "runAsGroup": 65534,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "resourceClaims": [
            {"name": REQUEST_NAME, "resourceClaimTemplateName": claim_template_name(config.device_class_name, size)}
        ],
        "containers": [
            {
                "name": JOB_NAME,
                "image": config.image,
                "imagePullPolicy": "Always",
                "command": list(JOB_COMMAND),
                "resources": {
                    "claims": [{"name": REQUEST_NAME}],
                    "requests": {"cpu": "100m", "memory": "128Mi"},
                    "limits": {"cpu": "500m", "memory": "256Mi"},
                },
                "securityContext": {
                    "allowPrivilegeEscalation": False,
                    # runc runs the CDI createContainer hooks (ld cache, .so symlinks) before it remounts the root
                    # read-only, so injection still works; a runtime that mounts the root read-only earlier makes the hook
                    # fail ("error running createContainer hook": kserve/kserve#5711 dropped this setting for that).
                    "readOnlyRootFilesystem": True,
                    "privileged": False,
                    "capabilities": {"drop": ["ALL"]},
                },
            }
        ],
    }
    tolerations = workload_tolerations(pools, size)
    if tolerations:
        pod_spec["tolerations"] = tolerations
    return {
        "backoffLimit": 2,
        # Gives up (and frees the claim) if no GPU node turns up within an hour, e.g. a pool at zero that never scales.
        "activeDeadlineSeconds": 3600,
        # No ttlSecondsAfterFinished: Kubernetes would delete the finished Job and `pulumi up --refresh` recreate it.
        "template": {"metadata": {"labels": {"app.kubernetes.io/name": JOB_NAME}}, "spec": pod_spec},
    }


def scanner_skips(image: str) -> dict[str, str]:
    """checkov's skip annotations for the checks the sample Job knowingly leaves to the stack's owner, each with why.

    Everything else checkov asks of a pod the Job meets (see `job_spec`); a digest-pinned image needs no skip.
    """
    reasons = []
    if "@sha256:" not in image:
        reasons.append("CKV_K8S_43=the image is the samples.image setting; pin it by digest (name@sha256:...) there")
    return {f"checkov.io/skip{i}": reason for i, reason in enumerate(reasons, 1)}


def deny_all_network_policy() -> dict[str, Any]:
    """A NetworkPolicy spec that selects every pod of the namespace and allows no traffic either way.

    `nvidia-smi -L` neither listens nor connects (the kubelet pulls the image, not the pod); the cluster's network
    policy engine (Cilium) enforces it.
    """
    return {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}


def job_metadata(namespace: pulumi.Input[str], image: str = "") -> dict[str, Any]:
    """The Job's metadata: GPU nodes may not exist yet (pools scale from zero), so `pulumi up` must not wait for it."""
    annotations = {"pulumi.com/skipAwait": "true", **scanner_skips(image)}
    return {"name": JOB_NAME, "namespace": namespace, "annotations": annotations}


class DraSamples(pulumi.ComponentResource):
    """A DeviceClass for A10 vGPUs, a claim template per slice size in use, a shared claim, and an optional sample Job.

    Needs an explicit Kubernetes provider. Nothing here waits for the driver's Helm release or the GPU pools: the API
    server accepts DeviceClasses and claims before any device exists, and the Job is created without waiting.
    """

    device_class_name: pulumi.Output[str]
    """The DeviceClass that selects A10 vGPU devices."""
    claim_template_names: dict[str, pulumi.Output[str]]
    """ResourceClaimTemplate per minimum slice size, keyed like '8GiB'."""
    shared_claim_name: pulumi.Output[str] | None
    """The ResourceClaim several pods can share, when enabled."""
    job_name: pulumi.Output[str] | None
    """The sample Job, when enabled."""
    namespace: pulumi.Output[str]
    """The namespace of the claims and the Job."""

    def __init__(self, name: str, args: DraSamplesArgs, opts: pulumi.ResourceOptions | None = None):
        require_kubernetes_provider("DraSamples", opts)
        super().__init__("aks-dra-vgpu:index:DraSamples", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        ns = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={"name": args.namespace, "labels": {"pod-security.kubernetes.io/enforce": "restricted"}},
            opts=child,
        )
        # Namespaced objects take the namespace's output name: they wait for the namespace, and nothing else does.
        self.namespace = ns.metadata.name
        device_class = k8s.resource.v1.DeviceClass(
            f"{name}-class",
            metadata={"name": args.device_class_name},
            spec={"selectors": [{"cel": {"expression": device_class_selector()}}]},
            opts=child,
        )
        self.device_class_name = device_class.metadata.name

        # Requests name the class as plain text (the API does not check it exists); depends_on keeps create and delete
        # in order so a claim never sits pointing at a missing class.
        after_class = pulumi.ResourceOptions(parent=self, depends_on=[device_class])
        self.claim_template_names = {}
        templates: dict[int, k8s.resource.v1.ResourceClaimTemplate] = {}
        for size in sizes_in_use(args.pools):
            templates[size] = k8s.resource.v1.ResourceClaimTemplate(
                f"{name}-{size}gib",
                metadata={"name": claim_template_name(args.device_class_name, size), "namespace": self.namespace},
                spec={"spec": claim_spec(args, size)},
                opts=after_class,
            )
            self.claim_template_names[f"{size}GiB"] = templates[size].metadata.name

        self.shared_claim_name = None
        if args.shared_claim:
            claim = k8s.resource.v1.ResourceClaim(
                f"{name}-shared",
                metadata={"name": shared_claim_name(args.device_class_name), "namespace": self.namespace},
                spec=claim_spec(args, sizes_in_use(args.pools)[0]),
                opts=after_class,
            )
            self.shared_claim_name = claim.metadata.name

        self.job_name = None
        if args.workload:
            deny_all = k8s.networking.v1.NetworkPolicy(
                f"{name}-deny-all",
                metadata={"name": "deny-all", "namespace": self.namespace},
                spec=deny_all_network_policy(),
                opts=child,
            )
            job = k8s.batch.v1.Job(
                f"{name}-{JOB_NAME}",
                metadata=job_metadata(self.namespace, args.image),
                spec=job_spec(args, args.pools),
                # The pod names its claim template as text: create the template first, delete it last. The pod
                # starts with the deny-all policy already in place.
                opts=pulumi.ResourceOptions(
                    parent=self, depends_on=[templates[workload_memory(args, args.pools)], deny_all]
                ),
            )
            self.job_name = job.metadata.name
        self.register_outputs(
            {
                "deviceClassName": self.device_class_name,
                "claimTemplateNames": self.claim_template_names,
                "sharedClaimName": self.shared_claim_name,
                "jobName": self.job_name,
                "namespace": self.namespace,
            }
        )
