"""Claims for MIG slices, in the user's words: by slice (a profile on one GPU model) or by GPU memory, best fit first.

Every request names the chart's `mig.nvidia.com` DeviceClass (`device.driver == 'gpu.nvidia.com' &&
device.attributes['gpu.nvidia.com'].type == 'mig'`, the chart's templates/deviceclass-mig.yaml) and selects within it
(`slice_kinds.slice_selector`: profile and architecture). With `fit: bestFit` a slice template lists, after its own
slice, the larger slices on offer as DRA prioritized-list alternatives (`firstAvailable`, at most 8), less memory first,
then less compute: the same thinking as the A10 templates (`claim_specs`). A memory template lists the slices on offer
that hold the amount at the memory margin, and each alternative also requires the device to report at least that much
memory, so a slice whose reported memory falls short is never handed out whatever the catalog says.

Two slices on one GPU: one request for two devices with `constraints[].matchAttribute: gpu.nvidia.com/parentUUID`
(resource.k8s.io/v1 DeviceConstraint; the driver publishes `parentUUID` on every MIG device, mig.go
CommonAttributesMig), so the scheduler only picks two slices whose parent GPU is the same.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator, model_validator

from ..catalog.mig import MIG_SIZES, slice_profile_to_aks
from ..config import Model
from ..config.errors import KeyedProblemsError
from .slice_kinds import (
    MIG_DEVICE_CLASS,
    PARENT_ATTRIBUTE,
    Slice,
    gpu_slug,
    holds,
    memory_at_least_selector,
    order,
    pool_slice,
    profile_slug,
    slice_selector,
    usable_memory_gib,
)

REQUEST_NAME = "gpu"
MAX_ALTERNATIVES = 8  # resource.k8s.io/v1 DeviceRequest.firstAvailable: at most 8 sub-requests
TEMPLATE_PREFIX = "mig"


class MigSliceRef(Model, defer_build=True):
    """A MIG slice to make claim templates for: a MIG VM size (its GPU model) and a profile, in AKS's words (MIG1g ...
    MIG7g) or the slice's (1g.10gb)."""

    # The enum is for the schemas (editors, other languages' SDKs); the validator below keeps its message for the rest.
    vm_size: str = Field(description="A MIG-capable VM size (its GPU model decides the slices): " + ", ".join(MIG_SIZES)
                         + ".", json_schema_extra={"enum": list(MIG_SIZES)})
    profile: str = Field(description="The slice: MIG1g ... MIG7g (AKS's gpuInstanceProfile) or its name, e.g. 1g.10gb.")

    @field_validator("vm_size")
    @classmethod
    def _vm_size(cls, v: str) -> str:
        if v not in MIG_SIZES:
            raise ValueError(f"'{v}' is not a MIG-capable size; choose one of {', '.join(MIG_SIZES)}")
        return v

    @model_validator(mode="after")
    def _profile(self) -> MigSliceRef:
        if slice_profile_to_aks(self.vm_size, self.profile) is None:
            gpu = MIG_SIZES[self.vm_size].gpu
            names = ", ".join(f"{aks} ({s.profile})" for aks, s in gpu.slices.items())
            raise KeyedProblemsError(("profile", f"'{self.profile}' is no slice of the {gpu.model} in {self.vm_size}; "
                                                 f"choose one of {names}"))
        return self

    @property
    def kind(self) -> Slice:
        """The slice this names."""
        return pool_slice(self.vm_size, slice_profile_to_aks(self.vm_size, self.profile))


# --- names -----------------------------------------------------------------------------------------------------------
def mig_template_name(kind: Slice, devices: int = 1) -> str:
    """The ResourceClaimTemplate for one slice (``mig-a100-80gb-1g10gb``) or two on one GPU (``mig-2x-...``)."""
    count = f"{devices}x-" if devices > 1 else ""
    return f"{TEMPLATE_PREFIX}-{count}{gpu_slug(kind.gpu_model)}-{profile_slug(kind.profile)}"


def mig_template_key(kind: Slice, devices: int = 1) -> str:
    """How outputs key it: ``a100-80gb-1g.10gb``, or ``2xa100-80gb-1g.10gb`` for two on one GPU."""
    return f"{devices}x{kind.key}" if devices > 1 else kind.key


def mig_memory_template_name(memory_gib: int) -> str:
    """The ResourceClaimTemplate asking for a MIG slice of at least this much memory: ``mig-mem-40gib``."""
    return f"{TEMPLATE_PREFIX}-mem-{memory_gib}gib"


def mig_memory_template_key(memory_gib: int) -> str:
    """How outputs key a MIG memory template: ``migMem40GiB``."""
    return f"migMem{memory_gib}GiB"


def subrequest_name(kind: Slice) -> str:
    """A prioritized-list alternative's name (a DNS label): ``a100-80gb-1g10gb``."""
    return f"{gpu_slug(kind.gpu_model)}-{profile_slug(kind.profile)}"


# --- requests --------------------------------------------------------------------------------------------------------
def mig_alternatives(own: Slice, offered: list[Slice], exact: bool) -> list[Slice]:
    """The slices a template for `own` tries, in order: its own, then (best fit) each larger one on offer."""
    if exact:
        return [own]
    larger = [k for k in sorted(set(offered), key=order) if k != own and order(k) > order(own)]
    return [own, *larger][:MAX_ALTERNATIVES]


def memory_slices(memory_gib: int, offered: list[Slice], margin_percent: int) -> list[Slice]:
    """The slices on offer that hold this much memory at the margin, best fit first."""
    return [k for k in sorted(set(offered), key=order) if holds(k, margin_percent, memory_gib)]


def memory_problem(memory_gib: int, offered: list[Slice], margin_percent: int) -> str | None:
    """Why no MIG slice on offer holds this much memory, or None."""
    if memory_slices(memory_gib, offered, margin_percent):
        return None
    if not offered:
        return f"{memory_gib} GiB: no MIG slice is on offer (migSlices) to hold it"
    held = ", ".join(f"{k.label} holds {usable_memory_gib(k, margin_percent):.1f} GiB"
                     for k in sorted(set(offered), key=order))
    return (f"{memory_gib} GiB fits no MIG slice on offer ({held} at a {margin_percent} % memory margin); ask for "
            "less, or offer a wider slice")


def _selection(kind: Slice, margin_percent: int, count: int, extra: list[str]) -> dict[str, Any]:
    return {
        "deviceClassName": MIG_DEVICE_CLASS,
        "allocationMode": "ExactCount",
        "count": count,
        "selectors": [{"cel": {"expression": e}} for e in (slice_selector(kind, margin_percent), *extra)],
    }


def _request(choices: list[Slice], margin_percent: int, count: int = 1, extra: list[str] | None = None) -> dict[str, Any]:
    """`exactly` for one choice, else `firstAvailable` in the given order; always named `gpu`."""
    if len(choices) == 1:
        return {"name": REQUEST_NAME, "exactly": _selection(choices[0], margin_percent, count, extra or [])}
    return {"name": REQUEST_NAME, "firstAvailable": [
        {"name": subrequest_name(k), **_selection(k, margin_percent, count, extra or [])} for k in choices]}


def mig_claim_spec(own: Slice, offered: list[Slice], margin_percent: int, exact: bool = False) -> dict[str, Any]:
    """A ResourceClaimSpec for one MIG slice of this kind (best fit over `offered`, or exact)."""
    return {"devices": {"requests": [_request(mig_alternatives(own, offered, exact), margin_percent)]}}


def mig_pair_spec(kind: Slice, margin_percent: int) -> dict[str, Any]:
    """Two slices of this kind on one GPU: one request for two devices that share `parentUUID` (exact: a best-fit pair
    on one GPU would need a larger slice's GPU to hold two as well)."""
    return {"devices": {
        "requests": [_request([kind], margin_percent, count=2)],
        "constraints": [{"requests": [REQUEST_NAME], "matchAttribute": PARENT_ATTRIBUTE}],
    }}


def mig_memory_spec(memory_gib: int, offered: list[Slice], margin_percent: int, exact: bool = False) -> dict[str, Any]:
    """One MIG slice with at least `memory_gib` GiB: the smallest slices on offer that hold it first."""
    fitting = memory_slices(memory_gib, offered, margin_percent)
    if not fitting:
        raise ValueError(memory_problem(memory_gib, offered, margin_percent))
    choices = fitting[:1] if exact else fitting[:MAX_ALTERNATIVES]
    return {"devices": {"requests": [_request(choices, margin_percent, extra=[memory_at_least_selector(memory_gib)])]}}


def mig_template_specs(offered: list[Slice], memory_requests_gib: list[int], margin_percent: int, *, exact: bool,
                       two_slices: bool) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every MIG template: output key -> (template name, ResourceClaimSpec); one per slice on offer, a pair per slice
    that comes at least two to a GPU (with `two_slices`), one per memory amount."""
    kinds = sorted(set(offered), key=order)
    specs = {mig_template_key(k): (mig_template_name(k), mig_claim_spec(k, kinds, margin_percent, exact)) for k in kinds}
    if two_slices:
        for k in kinds:
            if k.per_gpu >= 2:
                specs[mig_template_key(k, 2)] = (mig_template_name(k, 2), mig_pair_spec(k, margin_percent))
    for memory in memory_requests_gib:
        specs[mig_memory_template_key(memory)] = (
            mig_memory_template_name(memory), mig_memory_spec(memory, kinds, margin_percent, exact))
    return specs
