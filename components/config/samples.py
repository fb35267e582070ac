"""The samples section: DeviceClass, claim templates, shared claim and sample Job."""

from __future__ import annotations

from pydantic import Field, field_validator

from ..catalog import CHART_DEVICE_CLASSES
from .base import Model
from .syntax import DNS_LABEL, DNS_SUBDOMAIN, IMAGE


class SamplesConfig(Model):
    """The resource.k8s.io/v1 objects that show and use the A10 vGPUs: DeviceClass, claim templates, a shared claim, a Job."""

    enabled: bool = Field(True, description="Create the DeviceClass, claim templates and shared claim.")
    namespace: str = Field("dra-samples", description="Namespace for the claims and the sample Job.")
    device_class_name: str = Field(
        "a10-vgpu", description="DeviceClass for A10 vGPUs; must not reuse a chart-created name."
    )
    memory_margin_percent: int = Field(
        10, ge=0, le=25,
        description="How far below nominal a slice's reported GPU memory may read and still match (0-25 %).",
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

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, v: str) -> str:
        if not DNS_LABEL.fullmatch(v):
            raise ValueError(f"'{v}' is not a namespace name; use a DNS label (lowercase, digits, '-')")
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
        if v in CHART_DEVICE_CLASSES:
            raise ValueError(
                f"'{v}' is created by the NVIDIA chart; choose another name (taken: {', '.join(sorted(CHART_DEVICE_CLASSES))})"
            )
        if not DNS_SUBDOMAIN.fullmatch(v):
            raise ValueError(f"'{v}' is not a DeviceClass name; use a DNS subdomain (lowercase, digits, '-', '.')")
        return v


