"""The samples section: DeviceClass, claim templates, shared claim and sample Job."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ..catalog import CHART_DEVICE_CLASSES
from .base import Model, unset
from .extended_resources import NVIDIA_GPU, extended_resource_name_problem
from .syntax import DNS_SUBDOMAIN, IMAGE, parse_k8s_version
from .types import NamespaceName

# Kubernetes versions from which a DeviceClass's extendedResourceName works by default: the DRAExtendedResource gate is
# alpha (off) in 1.34 and 1.35, beta (on) from 1.36 (kubernetes/kubernetes pkg/features/versioned_kube_features.go;
# KEP-5004). The field is in the v1 schema from 1.34, and with the gate off the API server silently drops it
# (pkg/registry/resource/deviceclass/strategy.go, dropDisabledDRAExtendedResourceFields): only this check tells.
EXTENDED_RESOURCE_FROM = (1, 36)

Fit = Literal["bestFit", "exact"]
"""bestFit: a slice of the template's own size first, larger ones only when none is free; exact: that size only."""


def check_device_class_name(v: str) -> str:
    """A DeviceClass name this package may create: a DNS subdomain that is none of the NVIDIA chart's own classes."""
    if v in CHART_DEVICE_CLASSES:
        raise ValueError(
            f"'{v}' is created by the NVIDIA chart; choose another name (taken: {', '.join(sorted(CHART_DEVICE_CLASSES))})"
        )
    if not DNS_SUBDOMAIN.fullmatch(v):
        raise ValueError(f"'{v}' is not a DeviceClass name; use a DNS subdomain (lowercase, digits, '-', '.')")
    return v


class SamplesConfig(Model):
    """The resource.k8s.io/v1 objects that show and use the A10 vGPUs: DeviceClass, claim templates, a shared claim, a Job."""

    enabled: bool = Field(True, description="Create the DeviceClass, claim templates and shared claim.")
    namespace: NamespaceName = Field(
        "dra-samples",
        description="Namespace for the claims and the sample Job; this package creates it (pod security 'restricted', "
        "all traffic denied), so never 'default', 'kube-*' or the driver's namespace.",
    )
    device_class_name: str = Field(
        "a10-vgpu",
        description="DeviceClass for A10 vGPUs; must not reuse a chart-created name.",
        json_schema_extra={"not": {"enum": sorted(CHART_DEVICE_CLASSES)}},
    )
    memory_margin_percent: int = Field(
        10, ge=0, le=25,
        description="How far below nominal a slice's reported GPU memory may read and still match (0-25 %).",
    )
    fit: Fit = Field(
        "bestFit",
        description="How claim templates pick a slice: bestFit takes the template's own size first and a larger slice "
        "only when none is free (DRA prioritized list); exact takes that size only.",
    )
    shared_claim: bool = Field(True, description="Create a ResourceClaim that several pods share (one vGPU).")
    workload: bool = Field(True, description="Run the sample Job (nvidia-smi -L on a claimed vGPU).")
    workload_memory_gib: int | None = Field(
        None,
        ge=1,
        alias="workloadMemoryGiB",
        description="GPU memory the sample Job asks for; default: the smallest pool's slice.",
    )
    # A plain glibc image is enough: the DRA driver's CDI edits mount the host driver's nvidia-smi and libraries into
    # the container (the AKS walkthrough uses ubuntu:22.04 the same way); a CUDA image would add gigabytes for nothing.
    image: str = Field(
        "ubuntu:24.04",
        description="Image of the sample Job: any glibc-based image; the DRA driver injects nvidia-smi and the driver "
        "libraries from the host (CDI), so no CUDA image is needed. Pin a digest for production clusters.",
    )
    extended_resource_name: str | None = unset(
        "Deprecated: use extendedResources. Kubernetes 1.36 or newer only: the samples' DeviceClass (any A10 slice) "
        "also serves pods that ask for this extended resource (e.g. 'example.com/a10'); never 'nvidia.com/gpu' "
        "(extendedResources.nvidiaGpu says what that gets). Off by default.",
    )

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, v: str) -> str:
        if v == "default" or v.startswith("kube-"):
            raise ValueError(
                f"'{v}' is refused: the samples label their namespace pod-security 'restricted' and deny all traffic "
                "in it, which would break what already runs there; choose a namespace of their own (e.g. 'dra-samples')"
            )
        return v

    @field_validator("image")
    @classmethod
    def _image(cls, v: str) -> str:
        if not IMAGE.fullmatch(v):
            raise ValueError(
                f"'{v}' is not an image reference; write [registry/]repository[:tag][@sha256:digest], e.g. 'ubuntu:24.04'"
            )
        return v

    @field_validator("device_class_name")
    @classmethod
    def _device_class(cls, v: str) -> str:
        return check_device_class_name(v)

    @field_validator("extended_resource_name")
    @classmethod
    def _extended_resource(cls, v: str | None) -> str | None:
        if v is None:
            return v
        problem = extended_resource_name_problem(v)
        if problem:
            raise ValueError(problem)
        if v == NVIDIA_GPU:
            # The chart's gpu.nvidia.com maps it too, and this class selects any A10 slice: which of the two serves a
            # pod would follow creation order (deprecated setting; extendedResources states one meaning).
            raise ValueError(f"'{v}' is refused here: the driver chart's gpu.nvidia.com class maps it too, and which "
                             "class serves a pod would follow creation order; set extendedResources.nvidiaGpu instead "
                             "(docs/extended-resources.md)")
        return v


def extended_resource_problem(kubernetes_version: str | None, version_key: str) -> str | None:
    """Why a DeviceClass extendedResourceName cannot be used on this Kubernetes version, or None when it can."""
    wanted = ".".join(map(str, EXTENDED_RESOURCE_FROM))
    if kubernetes_version is None:
        return f"needs the cluster's Kubernetes version ({version_key}): it works from {wanted} on; set {version_key}"
    if parse_k8s_version(kubernetes_version) < EXTENDED_RESOURCE_FROM:
        return (
            f"needs Kubernetes {wanted} or newer ({version_key} is '{kubernetes_version}'): before {wanted} the "
            f"DRAExtendedResource feature gate is alpha and off, and the API server drops the field; set {version_key} "
            f"to '{wanted}' (pools that pin a version too), or leave extendedResourceName unset"
        )
    return None
