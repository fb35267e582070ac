"""DraClaimTemplates: best-fit ResourceClaimTemplates for A10 vGPU slice sizes (and an optional shared claim), in a
namespace the consumer owns.

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
device attributes are per device (uuid, productName, pcieBusID, …; DOMAIN §5).
"""

from __future__ import annotations

from typing import Any

import pulumi
from pydantic import Field, field_validator, model_validator

from ..catalog import PAIR_SIZE
from ..config import Model
from ..config.args import component_args
from ..config.errors import KeyedProblemsError
from ..config.limits import derived_name_problem
from ..config.samples import Fit, check_device_class_name
from ..config.types import NamespaceInput
from ..outputs import output, register_declared
from .memory_claims import memory_claim_spec, memory_problem, memory_template_key, memory_template_name
from .providers import require_kubernetes_provider
from .selectors import SIZE_CLASSES, check_size_class, device_class_selector, size_class_selector

REQUEST_NAME = "gpu"
# Standard_NV72ads_A10_v5 presents two whole A10s (24 GB each): the only size with more than one device per node.


class ClaimSettings(Model):
    """How claims select A10 slices: the DeviceClass they name, the memory margin, the fit, the sizes on offer."""

    sizes: list[int] = Field(
        min_length=1,
        description="Slice sizes (GiB per device) to make claim templates for: " + ", ".join(map(str, SIZE_CLASSES)) + ".",
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

    @model_validator(mode="after")
    def _memory_fits(self) -> ClaimSettings:
        problems = [("memoryRequestsGiB", p) for m in self.memory_requests_gib
                    if (p := memory_problem(m, self.memory_sizes, self.memory_margin_percent))]
        names = [memory_template_name(self.device_class_name, m) for m in self.memory_requests_gib]
        too_long = derived_name_problem(self.device_class_name, names)
        if too_long:
            problems.append(("deviceClassName", too_long))
        if problems:
            raise KeyedProblemsError(*problems)
        return self

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
    for memory in settings.memory_requests_gib:
        specs[memory_template_key(memory)] = (
            memory_template_name(settings.device_class_name, memory),
            memory_claim_spec(settings.device_class_name, memory, settings.memory_sizes, settings.memory_margin_percent,
                              exact=settings.fit == "exact"),
        )
    return specs


def device_class_spec(extended_resource_name: str | None = None) -> dict[str, Any]:
    """The DeviceClass spec: A10 slices of any size; optionally the extended resource its devices serve (1.36+)."""
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": device_class_selector()}}]}
    if extended_resource_name is not None:
        spec["extendedResourceName"] = extended_resource_name
    return spec


# --- declaring the objects (shared with DraSamples, which keeps its children's names and URNs) ---------------------------
def declare_device_class(
    name: str, device_class_name: str, opts: pulumi.ResourceOptions, extended_resource_name: str | None = None
) -> Any:
    """The cluster-scoped DeviceClass (one owner per cluster: `plan` refuses two components declaring the same name)."""
    import pulumi_kubernetes as k8s

    return k8s.resource.v1.DeviceClass(
        f"{name}-class", metadata={"name": device_class_name}, spec=device_class_spec(extended_resource_name), opts=opts
    )


def declare_claims(
    name: str, settings: ClaimSettings, namespace: pulumi.Input[str], shared_claim: bool, opts: pulumi.ResourceOptions
) -> tuple[dict[str, Any], Any | None]:
    """The templates (by output key) and the shared claim (or None) in `namespace`, each registered with `opts`.

    A claim's spec is immutable and pulumi-kubernetes has no force-new rule for resource.k8s.io objects
    (provider/pkg/provider/diff.go): without replaceOnChanges a new spec is planned as an update that the API server
    refuses (422). With it Pulumi replaces the object, delete-first: the new one has the same name.
    """
    import pulumi_kubernetes as k8s

    opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(replace_on_changes=["spec"], delete_before_replace=True))

    templates = {
        key: k8s.resource.v1.ResourceClaimTemplate(
            f"{name}-{key.lower()}",
            metadata={"name": template_name, "namespace": namespace},
            spec={"spec": spec},
            opts=opts,
        )
        for key, (template_name, spec) in template_specs(settings).items()
    }
    shared = None
    if shared_claim:
        shared = k8s.resource.v1.ResourceClaim(
            f"{name}-shared",
            metadata={"name": shared_claim_name(settings.device_class_name), "namespace": namespace},
            spec=claim_spec(settings, settings.sizes[0]),
            opts=opts,
        )
    return templates, shared


class DraClaimTemplatesArgs(ClaimSettings):
    """Claim templates (and optionally a shared claim, and the DeviceClass) in a namespace the consumer owns."""

    namespace: NamespaceInput = Field(
        description="The namespace the templates go in (a name, or another resource's output); never created here."
    )
    shared_claim: bool = Field(False, description="Also a ResourceClaim of the smallest size that several pods share.")
    device_class: bool = Field(
        False,
        description="Also create the DeviceClass (cluster-scoped: only one component in a cluster may create it; "
        "leave off when DraSamples or another stack already does).",
    )



def _depends_on(opts: pulumi.ResourceOptions | None) -> list[Any]:
    """The resources these options wait for, as a list (ResourceOptions takes one resource or a list)."""
    found = opts.depends_on if opts is not None else None
    if found is None:
        return []
    return list(found) if isinstance(found, (list, tuple)) else [found]


class DraClaimTemplatesOutputs:
    """What a DraClaimTemplates gives back, in Python and in every other language."""

    claim_template_names: dict[str, pulumi.Output[str]] = output(
        "ResourceClaimTemplate per slice size, keyed like '8GiB' (and '2x24GiB' for two devices on one node, 'mem5GiB' for "
        "5 GiB of a slice shared by memory)."
    )
    shared_claim_name: pulumi.Output[str] | None = output("The ResourceClaim several pods can share, when asked for.")
    device_class_name: pulumi.Output[str] = output("The DeviceClass the requests name (created here only with deviceClass).")
    namespace: pulumi.Output[str] = output("The namespace the templates are in.")


class DraClaimTemplates(DraClaimTemplatesOutputs, pulumi.ComponentResource):
    """Best-fit claim templates for A10 vGPU slice sizes in a namespace the consumer owns (it never creates or owns it).

    Needs an explicit Kubernetes provider. What the component is told to wait for (`depends_on`), its objects wait for.
    """
    templates: dict[str, Any]
    """The ResourceClaimTemplate resources, by the same keys (for `depends_on`)."""

    def __init__(self, name: str, args: DraClaimTemplatesArgs, opts: pulumi.ResourceOptions | None = None):
        require_kubernetes_provider("DraClaimTemplates", opts)
        args = component_args(DraClaimTemplatesArgs, args)
        super().__init__("aks-dra-vgpu:index:DraClaimTemplates", name, None, opts)
        waits_for = _depends_on(opts)
        device_class_name: pulumi.Input[str] = args.device_class_name
        if args.device_class:
            device_class = declare_device_class(
                name, args.device_class_name, pulumi.ResourceOptions(parent=self, depends_on=waits_for or None)
            )
            device_class_name = device_class.metadata.name
            # Requests name the class as text (the API does not check it): create it first, delete it last.
            waits_for = [*waits_for, device_class]
        self.templates, shared = declare_claims(
            name, args, args.namespace, args.shared_claim, pulumi.ResourceOptions(parent=self, depends_on=waits_for or None)
        )
        self.claim_template_names = {key: t.metadata.name for key, t in self.templates.items()}
        self.shared_claim_name = shared.metadata.name if shared is not None else None
        self.device_class_name = pulumi.Output.from_input(device_class_name)
        self.namespace = pulumi.Output.from_input(args.namespace)
        register_declared(self)
