"""DraSamples: resource.k8s.io/v1 objects that select A10 vGPU slices by size, and a sample Job that uses one."""

from __future__ import annotations

import math
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field

from .catalog import GPU_DRIVER_NAME
from .config import GpuPoolConfig, SamplesConfig

_ATTRS = f"device.attributes['{GPU_DRIVER_NAME}']"
_MEMORY = f"device.capacity['{GPU_DRIVER_NAME}'].memory"
# A10 and its vGPU profiles ("NVIDIA A10-4Q", "NVIDIA A10-8Q", …); not A100, A10G or A16.
A10_PRODUCT_PATTERN = "^NVIDIA A10(-[0-9]+[ABCQ])?$"


class DraSamplesArgs(SamplesConfig):
    """The samples' settings plus the GPU pools they target (their sizes and taints)."""

    pools: list[GpuPoolConfig] = Field(min_length=1, description="The GPU pools the claims and the Job may land on.")


def device_class_selector() -> str:
    """CEL for the DeviceClass: a GPU published by the NVIDIA driver whose product is an A10 (or an A10 vGPU slice).

    A missing attribute is an evaluation error in CEL, not false: every attribute is checked for presence first.
    """
    return (
        f"device.driver == '{GPU_DRIVER_NAME}'"
        f" && 'type' in {_ATTRS} && {_ATTRS}.type == 'gpu'"
        f" && 'productName' in {_ATTRS} && {_ATTRS}.productName.matches('{A10_PRODUCT_PATTERN}')"
    )


def min_memory_mib(gpu_memory_gib: int, margin_percent: int) -> int:
    """The least memory (MiB) a device of this nominal size may report and still count: nominal minus the margin."""
    return math.floor(gpu_memory_gib * 1024 * (100 - margin_percent) / 100)


def memory_selector(gpu_memory_gib: int, margin_percent: int) -> str:
    """CEL: the device has at least this nominal GPU memory, less the margin (a slice reads a little under nominal)."""
    return f"{_MEMORY}.compareTo(quantity('{min_memory_mib(gpu_memory_gib, margin_percent)}Mi')) >= 0"


def sizes_in_use(pools: list[GpuPoolConfig]) -> list[int]:
    """The distinct per-device GPU memory sizes (GiB) the pools offer, smallest first."""
    return sorted({p.size.gpu_memory_gib for p in pools})


def claim_template_name(device_class: str, gpu_memory_gib: int) -> str:
    """The ResourceClaimTemplate for devices of at least this size, e.g. ``a10-vgpu-8gib``."""
    return f"{device_class}-{gpu_memory_gib}gib"


def device_request(config: SamplesConfig, gpu_memory_gib: int) -> dict[str, Any]:
    """A v1 device request (note the `exactly` wrapper) for one device with at least this memory."""
    return {
        "name": "gpu",
        "exactly": {
            "deviceClassName": config.device_class_name,
            "allocationMode": "ExactCount",
            "count": 1,
            "selectors": [{"cel": {"expression": memory_selector(gpu_memory_gib, config.memory_margin_percent)}}],
        },
    }


def workload_memory(config: SamplesConfig, pools: list[GpuPoolConfig]) -> int:
    """The size class the sample Job asks for: the configured memory rounded up to a size in use, or the smallest."""
    wanted = config.workload_memory_gib or 0
    return next(size for size in sizes_in_use(pools) if size >= wanted)


def workload_tolerations(pools: list[GpuPoolConfig], gpu_memory_gib: int) -> list[dict[str, str]]:
    """Tolerations for the taints of every pool whose devices are big enough for the Job."""
    found: dict[str, dict[str, str]] = {}
    for pool in pools:
        if pool.size.gpu_memory_gib >= gpu_memory_gib:
            for taint in pool.parsed_taints:
                found.setdefault(str(taint), taint.toleration())
    return [found[k] for k in sorted(found)]


def job_spec(config: SamplesConfig, pools: list[GpuPoolConfig]) -> dict[str, Any]:
    """The sample Job: `nvidia-smi -L` on one claimed vGPU, as locked down as a GPU pod can be."""
    size = workload_memory(config, pools)
    return {
        "backoffLimit": 2,
        "activeDeadlineSeconds": 3600,
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "nvidia-smi"}},
            "spec": {
                "restartPolicy": "Never",
                "automountServiceAccountToken": False,
                "securityContext": {
                    "runAsNonRoot": True,
                    "runAsUser": 65534,
                    "runAsGroup": 65534,
                    "seccompProfile": {"type": "RuntimeDefault"},
                },
                "resourceClaims": [
                    {"name": "gpu", "resourceClaimTemplateName": claim_template_name(config.device_class_name, size)}
                ],
                "tolerations": workload_tolerations(pools, size),
                "containers": [
                    {
                        "name": "nvidia-smi",
                        "image": config.image,
                        "imagePullPolicy": "Always",
                        "command": ["nvidia-smi", "-L"],
                        "resources": {
                            "claims": [{"name": "gpu"}],
                            "requests": {"cpu": "100m", "memory": "128Mi"},
                            "limits": {"cpu": "500m", "memory": "256Mi"},
                        },
                        "securityContext": {
                            "allowPrivilegeEscalation": False,
                            "readOnlyRootFilesystem": True,
                            "privileged": False,
                            "capabilities": {"drop": ["ALL"]},
                        },
                    }
                ],
            },
        },
    }


class DraSamples(pulumi.ComponentResource):
    """A DeviceClass for A10 vGPUs, a claim template per slice size in use, a shared claim, and a sample Job."""

    device_class_name: pulumi.Output[str]
    """The DeviceClass that selects A10 vGPU devices."""
    claim_template_names: dict[str, pulumi.Output[str]]
    """ResourceClaimTemplate per minimum slice size, keyed like '8GiB'."""
    shared_claim_name: pulumi.Output[str] | None
    """The ResourceClaim several pods can share, when enabled."""
    namespace: pulumi.Output[str]
    """The namespace of the claims and the Job."""

    def __init__(self, name: str, args: DraSamplesArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("aks-dra-vgpu:index:DraSamples", name, None, opts)
        if self.get_provider("kubernetes::Namespace") is None:
            raise pulumi.InputPropertiesError(
                "DraSamples needs an explicit Kubernetes provider",
                [{"property_path": "opts.providers", "reason": "pass providers={'kubernetes': provider}"}],
            )
        child = pulumi.ResourceOptions(parent=self)
        ns = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={"name": args.namespace, "labels": {"pod-security.kubernetes.io/enforce": "restricted"}},
            opts=child,
        )
        self.namespace = ns.metadata.name
        device_class = k8s.resource.v1.DeviceClass(
            f"{name}-class",
            metadata={"name": args.device_class_name},
            spec={"selectors": [{"cel": {"expression": device_class_selector()}}]},
            opts=child,
        )
        self.device_class_name = device_class.metadata.name

        # Claims name the class by the class's output, so they wait for it and nothing else.
        in_ns = pulumi.ResourceOptions(parent=self, depends_on=[device_class])
        self.claim_template_names = {}
        templates: dict[int, k8s.resource.v1.ResourceClaimTemplate] = {}
        for size in sizes_in_use(args.pools):
            template = k8s.resource.v1.ResourceClaimTemplate(
                f"{name}-{size}gib",
                metadata={"name": claim_template_name(args.device_class_name, size), "namespace": self.namespace},
                spec={"spec": {"devices": {"requests": [device_request(args, size)]}}},
                opts=in_ns,
            )
            templates[size] = template
            self.claim_template_names[f"{size}GiB"] = template.metadata.name

        self.shared_claim_name = None
        if args.shared_claim:
            smallest = sizes_in_use(args.pools)[0]
            claim = k8s.resource.v1.ResourceClaim(
                f"{name}-shared",
                metadata={"name": f"{args.device_class_name}-shared", "namespace": self.namespace},
                spec={"devices": {"requests": [device_request(args, smallest)]}},
                opts=in_ns,
            )
            self.shared_claim_name = claim.metadata.name

        if args.workload:
            k8s.batch.v1.Job(
                f"{name}-nvidia-smi",
                metadata={
                    "name": "nvidia-smi",
                    "namespace": self.namespace,
                    # GPU nodes may not exist yet (pools scale from zero): `pulumi up` must not wait for the Job.
                    "annotations": {"pulumi.com/skipAwait": "true"},
                },
                spec=job_spec(args, args.pools),
                # The pod names its claim template by name: create the template first.
                opts=pulumi.ResourceOptions(parent=self, depends_on=[templates[workload_memory(args, args.pools)]]),
            )
        self.register_outputs(
            {
                "deviceClassName": self.device_class_name,
                "claimTemplateNames": self.claim_template_names,
                "sharedClaimName": self.shared_claim_name,
                "namespace": self.namespace,
            }
        )
