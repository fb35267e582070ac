"""What a claim asks for: the claim settings, the names of templates, and best-fit ResourceClaimSpecs for A10 vGPU slice
sizes (pure; `claim_templates` declares them).

A template's first choice admits only its own size class (a lower and an upper memory bound, see `selectors`). With
`fit: bestFit` larger classes follow as alternatives, smallest first, in a DRA prioritized list: a request with
`firstAvailable` sub-requests, of which the scheduler takes the first it can satisfy on a node
(resource.k8s.io/v1 DeviceRequest.firstAvailable, at most 8; KEP-4816 kubernetes/enhancements
keps/sig-scheduling/4816-dra-prioritized-list). Feature gate DRAPrioritizedList: beta and on by default from 1.34, GA
from 1.36 (kubernetes/kubernetes pkg/features/versioned_kube_features.go; staging/src/k8s.io/kube-scheduler/pkg/
features/kube_features.go). Across nodes the order is a preference, not a rule: the scheduler's DynamicResources
plugin scores a node higher the earlier the alternative it satisfies (pkg/scheduler/framework/plugins/
dynamicresources/dynamicresources.go, Score/computeScore), weighed with its other scores. `fit: exact` asks for the
template's own size only and never lands on a larger slice.

Two devices on one node (Standard_NV72ads_A10_v5) need no matchAttribute constraint: the scheduler allocates all of a
claim's devices for the one node it is placing the pod on (staging/src/k8s.io/dynamic-resource-allocation/structured/
allocator.go, "Allocate calculates the allocation(s) for one particular node"), and node-local devices are published
per node (ResourceSlice spec.nodeName). The NVIDIA driver publishes no node-level attribute to match on anyway: its
device attributes are per device (uuid, productName, pcieBusID, …; cmd/gpu-kubelet-plugin/deviceinfo.go, Attributes).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator, model_validator

from ..catalog import PAIR_SIZE
from ..config import Model
from ..config.errors import KeyedProblemsError
from ..config.limits import derived_name_problem
from ..config.samples import Fit, check_device_class_name
from .memory_claims import memory_claim_spec, memory_problem, memory_template_key, memory_template_name
from .mig_claims import MigSliceRef, mig_claim_spec, mig_template_specs
from .mig_claims import memory_problem as mig_memory_problem
from .selectors import SIZE_CLASSES, check_size_class, device_class_selector, size_class_selector
from .slice_kinds import Slice, order

REQUEST_NAME = "gpu"
# Standard_NV72ads_A10_v5 presents two whole A10s (24 GB each): the only size with more than one device per node.


class ClaimSettings(Model):
    """How claims select A10 slices and MIG slices: the DeviceClass they name, the memory margin, the fit, the slices
    on offer."""

    sizes: list[int] = Field(
        default_factory=list,
        description="A10 slice sizes (GiB per device) to make claim templates for: " + ", ".join(map(str, SIZE_CLASSES))
        + ". At least one size or one MIG slice.",
    )
    two_devices: bool = Field(
        False, description="Also a template for two 24 GB devices on one node (Standard_NV72ads_A10_v5 nodes)."
    )
    device_class_name: str = Field("a10-vgpu", description="The DeviceClass the requests name.")
    memory_margin_percent: int = Field(
        10, ge=0, le=25,
        description="How far below nominal a slice's reported GPU memory may read and still match (0-25 %).",
    )
    fit: Fit = Field("bestFit", description="bestFit: own size first, larger only when none is free; exact: own size only.")
    memory_requests_gib: list[int] = Field(
        default_factory=list,
        alias="memoryRequestsGiB",
        description="GPU memory amounts (GiB) to make shared-slice templates for: each asks for that much memory of one "
        "slice that several claims share (pools with sharing: memory, driver 0.5.0+, Kubernetes 1.36+), smallest "
        "slice first. No memory isolation between the pods on one slice.",
        json_schema_extra={"items": {"type": "integer", "minimum": 1, "maximum": max(SIZE_CLASSES)}},
    )
    shared_sizes: list[int] = Field(
        default_factory=list,
        description="Slice sizes (GiB) of the shared pools the memory templates may land on; empty: every size in sizes.",
    )

    mig_slices: list[MigSliceRef] = Field(
        default_factory=list,
        description="MIG slices to make claim templates for, each a MIG VM size and a profile (MIG1g ... MIG7g or the "
        "slice's name, e.g. 3g.47gb): one template per slice (per GPU model: a 1g.10gb and a 1g.12gb differ), through "
        "the chart's mig.nvidia.com DeviceClass, larger slices on offer as best-fit alternatives.",
    )
    mig_memory_requests_gib: list[int] = Field(
        default_factory=list,
        alias="migMemoryRequestsGiB",
        description="GPU memory amounts (GiB) to make MIG templates for: each asks for one MIG slice on offer that holds "
        "that much at the memory margin, the smallest first.",
        json_schema_extra={"items": {"type": "integer", "minimum": 1}},
    )
    mig_two_slices: bool = Field(
        False, description="Also a template for two slices on one GPU (same parentUUID) per MIG slice that comes at "
        "least two to a GPU.",
    )

    @field_validator("sizes", "shared_sizes")
    @classmethod
    def _sizes(cls, v: list[int]) -> list[int]:
        for size in v:
            check_size_class(size)
        return sorted(set(v))

    @field_validator("memory_requests_gib")
    @classmethod
    def _memory_requests(cls, v: list[int]) -> list[int]:
        bad = [m for m in v if not 1 <= m <= max(SIZE_CLASSES)]
        if bad:
            raise ValueError(f"{', '.join(map(str, bad))} GiB: each request is 1-{max(SIZE_CLASSES)} GiB (one A10 at most)")
        return sorted(set(v))

    @field_validator("mig_memory_requests_gib")
    @classmethod
    def _mig_memory_requests(cls, v: list[int]) -> list[int]:
        bad = [m for m in v if m < 1]
        if bad:
            raise ValueError(f"{', '.join(map(str, bad))} GiB: each request is at least 1 GiB")
        return sorted(set(v))

    @model_validator(mode="after")
    def _memory_fits(self) -> ClaimSettings:
        problems = [("memoryRequestsGiB", p) for m in self.memory_requests_gib
                    if (p := memory_problem(m, self.memory_sizes, self.memory_margin_percent))]
        if not self.sizes and not self.mig_slices:
            problems.append(("sizes", "no slice on offer: give at least one A10 size (sizes) or one MIG slice "
                             "(migSlices)"))
        if self.memory_requests_gib and not self.memory_sizes:
            problems = [p for p in problems if p[0] != "memoryRequestsGiB"] + [
                ("memoryRequestsGiB", "shared-slice templates need an A10 size in sizes or sharedSizes")]
        problems += [("migMemoryRequestsGiB", p) for m in self.mig_memory_requests_gib
                     if (p := mig_memory_problem(m, self.mig_kinds, self.memory_margin_percent))]
        names = [memory_template_name(self.device_class_name, m) for m in self.memory_requests_gib]
        too_long = derived_name_problem(self.device_class_name, names)
        if too_long:
            problems.append(("deviceClassName", too_long))
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    @property
    def mig_kinds(self) -> list[Slice]:
        """The MIG slices on offer (each once, however many sizes name it)."""
        return list(dict.fromkeys(ref.kind for ref in self.mig_slices))

    @property
    def memory_sizes(self) -> list[int]:
        """The slice sizes memory claims may land on: the shared pools' sizes, or every size on offer."""
        return self.shared_sizes or self.sizes

    @field_validator("device_class_name")
    @classmethod
    def _device_class(cls, v: str) -> str:
        return check_device_class_name(v)


# --- names ---------------------------------------------------------------------------------------------------------
def claim_template_name(device_class: str, gpu_memory_gib: int) -> str:
    """The ResourceClaimTemplate for one slice of this size class, e.g. ``a10-vgpu-8gib``."""
    return f"{device_class}-{gpu_memory_gib}gib"


def pair_template_name(device_class: str) -> str:
    """The ResourceClaimTemplate for two 24 GB devices on one node, e.g. ``a10-vgpu-2x24gib``."""
    return f"{device_class}-2x{PAIR_SIZE}gib"


def shared_claim_name(device_class: str) -> str:
    """The ResourceClaim that several pods share, e.g. ``a10-vgpu-shared``."""
    return f"{device_class}-shared"


def template_key(gpu_memory_gib: int, devices: int = 1) -> str:
    """How outputs key a template: ``8GiB``, or ``2x24GiB`` for the two-device one."""
    return f"{gpu_memory_gib}GiB" if devices == 1 else f"{devices}x{gpu_memory_gib}GiB"


def subrequest_name(gpu_memory_gib: int) -> str:
    """A prioritized-list alternative's name (a DNS label): ``8gib``; constraints and config refer to ``gpu/8gib``."""
    return f"{gpu_memory_gib}gib"


# --- requests --------------------------------------------------------------------------------------------------------
def alternatives(settings: ClaimSettings, gpu_memory_gib: int) -> list[int]:
    """The size classes a template for this size tries, in order: its own, then (bestFit) each larger size on offer."""
    own = check_size_class(gpu_memory_gib)
    if settings.fit == "exact":
        return [own]
    return [own, *(size for size in settings.sizes if size > own)]


def _selection(settings: ClaimSettings, gpu_memory_gib: int, count: int) -> dict[str, Any]:
    return {
        "deviceClassName": settings.device_class_name,
        "allocationMode": "ExactCount",
        "count": count,
        "selectors": [{"cel": {"expression": size_class_selector(gpu_memory_gib, settings.memory_margin_percent)}}],
    }


def device_request(settings: ClaimSettings, gpu_memory_gib: int, count: int = 1) -> dict[str, Any]:
    """A v1 device request for `count` devices of this size class: `exactly` when there is one choice, else a
    `firstAvailable` list smallest first. The request is always named `gpu`, so pods refer to it the same either way."""
    choices = alternatives(settings, gpu_memory_gib)
    if len(choices) == 1:
        return {"name": REQUEST_NAME, "exactly": _selection(settings, gpu_memory_gib, count)}
    return {
        "name": REQUEST_NAME,
        "firstAvailable": [{"name": subrequest_name(size), **_selection(settings, size, count)} for size in choices],
    }


def claim_spec(settings: ClaimSettings, gpu_memory_gib: int, count: int = 1) -> dict[str, Any]:
    """A ResourceClaimSpec asking for `count` A10 slices of this size class (best fit or exact)."""
    return {"devices": {"requests": [device_request(settings, gpu_memory_gib, count)]}}


def template_specs(settings: ClaimSettings) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every template these settings make: output key -> (template name, ResourceClaimSpec)."""
    specs = {
        template_key(size): (claim_template_name(settings.device_class_name, size), claim_spec(settings, size))
        for size in settings.sizes
    }
    if settings.two_devices:
        specs[template_key(PAIR_SIZE, 2)] = (
            pair_template_name(settings.device_class_name),
            claim_spec(settings.model_copy(update={"fit": "exact"}), PAIR_SIZE, count=2),
        )
    specs.update(mig_template_specs(settings.mig_kinds, settings.mig_memory_requests_gib, settings.memory_margin_percent,
                                    exact=settings.fit == "exact", two_slices=settings.mig_two_slices))
    for memory in settings.memory_requests_gib:
        specs[memory_template_key(memory)] = (
            memory_template_name(settings.device_class_name, memory),
            memory_claim_spec(settings.device_class_name, memory, settings.memory_sizes, settings.memory_margin_percent,
                              exact=settings.fit == "exact"),
        )
    return specs


def shared_claim_spec(settings: ClaimSettings) -> dict[str, Any]:
    """The shared claim's spec: one slice of the smallest A10 size on offer, or of the smallest MIG slice without one."""
    if settings.sizes:
        return claim_spec(settings, settings.sizes[0])
    kinds = settings.mig_kinds
    return mig_claim_spec(min(kinds, key=order), kinds, settings.memory_margin_percent, settings.fit == "exact")


def device_class_spec(extended_resource_name: str | None = None) -> dict[str, Any]:
    """The DeviceClass spec: A10 slices of any size; optionally the extended resource its devices serve (1.36+)."""
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": device_class_selector()}}]}
    if extended_resource_name is not None:
        spec["extendedResourceName"] = extended_resource_name
    return spec
