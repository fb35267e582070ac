"""Which slice is this? One answer for both families of GPU pool: A10 vGPU size classes and MIG slices.

Claim templates, verify and the planner ask here, never a second copy:
- A10 (type `gpu`): a size class, the band of reported memory around a nominal size (`selectors`, unchanged).
- MIG (type `mig`, the chart's `mig.nvidia.com` DeviceClass): a slice is its `profile` attribute ("1g.10gb") on a GPU of
  one architecture. The driver publishes each MIG device with `type: mig`, `profile`, `parentUUID`, `productName`,
  `architecture` and the versions of its parent, and capacity `memory` (bytes from NVML's MiB, so a 1g.10gb reads
  9728Mi), `multiprocessors`, engines and `memorySliceN` (kubernetes-sigs/dra-driver-nvidia-gpu
  cmd/gpu-kubelet-plugin/mig.go, CommonAttributesMig and CommonCapacitiesMig, and deviceinfo.go MigDeviceInfo.GetDevice,
  v0.4.1; the same attributes in deviceinfo.go at v25.8.1 and v25.12.0).
Profile names repeat across GPU models (a 1g.10gb is on the A100 80GB and on the H100 80GB, with different compute), so
a MIG slice is matched on the profile and the GPU's architecture, which the driver takes from go-nvlib
(vendor/github.com/NVIDIA/go-nvlib/pkg/nvlib/device/device.go, GetArchitectureAsString: "Ampere", "Hopper"). The
product name is not used: the catalog marks it unverified on Azure's nodes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from ..catalog import A10_SIZES, GPU_DRIVER_NAME, SIZE_CLASSES
from ..catalog.mig import MIG_SIZES, MigGpu, MigSlice, mig_slice
from .selectors import holds as nominal_holds
from .selectors import min_memory_mib as nominal_min_memory_mib
from .selectors import size_class_of, size_class_selector
from .selectors import usable_memory_gib as nominal_usable_gib

MIG_DEVICE_CLASS = "mig.nvidia.com"
"""The chart's DeviceClass for MIG devices: `device.driver == 'gpu.nvidia.com' && ...type == 'mig'` (never ours)."""
PARENT_ATTRIBUTE = f"{GPU_DRIVER_NAME}/parentUUID"
"""The fully qualified attribute two slices of one GPU share (a claim's constraints[].matchAttribute)."""
# go-nvlib GetArchitectureAsString, by the GPU family the catalog's model names start with.
ARCHITECTURES = {"A100": "Ampere", "H100": "Hopper", "H200": "Hopper"}

_ATTRS = f"device.attributes['{GPU_DRIVER_NAME}']"
_CAPACITY = f"device.capacity['{GPU_DRIVER_NAME}']"
Family = Literal["a10", "mig"]


@dataclass(frozen=True)
class Slice:
    """One kind of slice a pool's nodes publish: an A10 size class, or a MIG profile on one GPU model."""

    family: Family
    memory_gib: int  # nominal, per device
    profile: str = ""  # MIG: the driver's `profile` attribute, "1g.10gb"
    gpu_model: str = ""  # MIG: the catalog's GPU model, "A100 80GB"
    architecture: str = ""  # MIG: the parent GPU's `architecture` attribute
    compute_units: int = 0  # MIG: sevenths of the GPU's compute
    per_gpu: int = 1  # MIG: slices AKS lays out on each GPU

    @property
    def key(self) -> str:
        """How outputs and verify name it: ``8GiB``, or ``a100-80gb-1g.10gb`` (GPU model, then profile)."""
        return f"{self.memory_gib}GiB" if self.family == "a10" else f"{gpu_slug(self.gpu_model)}-{self.profile}"

    @property
    def label(self) -> str:
        """How a person names it: ``8 GiB slice`` (an A10's) or ``1g.10gb on A100 80GB``."""
        return f"{self.memory_gib} GiB slice" if self.family == "a10" else f"{self.profile} on {self.gpu_model}"


def gpu_slug(model: str) -> str:
    """A DNS-label part for a GPU model: ``A100 80GB`` -> ``a100-80gb``."""
    return "-".join(model.lower().split())


def profile_slug(profile: str) -> str:
    """A DNS-label part for a MIG profile, as the driver names devices (dots dropped): ``1g.10gb`` -> ``1g10gb``."""
    return profile.replace(".", "")


def architecture_of(gpu: MigGpu) -> str:
    """The `architecture` the driver publishes for this GPU model's devices."""
    return ARCHITECTURES[gpu.model.split()[0]]


def a10_slice(gpu_memory_gib: int) -> Slice:
    """The A10 size class of this nominal size."""
    return Slice("a10", gpu_memory_gib)


def mig_kind(gpu: MigGpu, piece: MigSlice) -> Slice:
    """The MIG slice `piece` on GPU model `gpu`."""
    return Slice("mig", piece.memory_gib, piece.profile, gpu.model, architecture_of(gpu), piece.compute_units,
                 piece.per_gpu)


def pool_slice(vm_size: str, aks_profile: str | None = None) -> Slice:
    """What each device of a pool of this VM size (and AKS gpuInstanceProfile, for MIG) is."""
    if aks_profile:
        return mig_kind(MIG_SIZES[vm_size].gpu, mig_slice(vm_size, aks_profile))
    return a10_slice(A10_SIZES[vm_size].gpu_memory_gib)


def slice_of_pool(pool: Any) -> Slice:
    """What each device of this pool (a GpuPoolConfig) is."""
    return pool_slice(pool.vm_size, pool.mig_profile)


def devices_per_node(vm_size: str, aks_profile: str | None = None) -> int:
    """How many devices a node of such a pool publishes: the A10 size's vGPUs, or GPUs x slices per GPU for MIG."""
    if aks_profile:
        return MIG_SIZES[vm_size].gpus * mig_slice(vm_size, aks_profile).per_gpu
    return A10_SIZES[vm_size].devices_per_node


@cache
def mig_kinds() -> tuple[Slice, ...]:
    """Every MIG slice the catalog knows, once per GPU model (the PCIe and SXM A100 80GB are one model), best fit
    first. The catalog is constant, so this is worked out once (`slice_of` asks it for every published device)."""
    found = {mig_kind(size.gpu, piece) for size in MIG_SIZES.values() for piece in size.gpu.slices.values()}
    return tuple(sorted(found, key=order))


def order(kind: Slice) -> tuple[int, int, str, str]:
    """Best fit first: less memory, then less compute, then by name (stable)."""
    return kind.memory_gib, kind.compute_units, kind.gpu_model, kind.profile


def a10_kinds() -> tuple[Slice, ...]:
    """Every A10 size class as a slice, smallest first."""
    return tuple(a10_slice(size) for size in SIZE_CLASSES)


def smallest_holding(kinds: Iterable[Slice], margin_percent: int, memory_gib: float) -> Slice | None:
    """The best-fit slice of `kinds` whose usable memory holds `memory_gib` at the margin, or None: the one answer to
    "which slice does this need?" that `size` places stated needs by and `rightsize` recommends measured peaks by."""
    return min((k for k in kinds if holds(k, margin_percent, memory_gib)), key=order, default=None)


# --- memory ----------------------------------------------------------------------------------------------------------
def min_memory_mib(kind: Slice, margin_percent: int) -> int:
    """The least memory (MiB) a device of this kind may report and still count: nominal less the margin (the same
    rule for both families: `selectors.min_memory_mib`)."""
    return nominal_min_memory_mib(kind.memory_gib, margin_percent)


def max_memory_mib(kind: Slice, margin_percent: int) -> int:
    """Where a MIG slice's band ends (MiB, exclusive): nominal plus the margin. (A10 bands: `selectors`.)"""
    return math.floor(kind.memory_gib * 1024 * (100 + margin_percent) / 100) + 1


def usable_memory_gib(kind: Slice, margin_percent: int) -> float:
    """The GPU memory a workload may count on in one such slice (both families: `selectors.usable_memory_gib`, the
    figure every report prints and every fit is decided by)."""
    return nominal_usable_gib(kind.memory_gib, margin_percent)


def holds(kind: Slice, margin_percent: int, memory_gib: float) -> bool:
    """Whether one such slice holds a workload needing `memory_gib` at the margin (the one rule: `selectors.holds`)."""
    return nominal_holds(kind.memory_gib, margin_percent, memory_gib)


# --- CEL -------------------------------------------------------------------------------------------------------------
def slice_selector(kind: Slice, margin_percent: int) -> str:
    """CEL for one device of this kind, beside its DeviceClass's: the A10 band, or the MIG profile and architecture.

    Every attribute is checked for presence first (a missing one is an evaluation error in CEL, which aborts the
    allocation, not false).
    """
    if kind.family == "a10":
        return size_class_selector(kind.memory_gib, margin_percent)
    return (f"'profile' in {_ATTRS} && {_ATTRS}.profile == '{kind.profile}'"
            f" && 'architecture' in {_ATTRS} && {_ATTRS}.architecture == '{kind.architecture}'")


def memory_at_least_selector(memory_gib: int) -> str:
    """CEL: the device reports at least this much memory (false, not an error, without a memory capacity)."""
    return f"'memory' in {_CAPACITY} && {_CAPACITY}.memory.compareTo(quantity('{memory_gib}Gi')) >= 0"


# --- live devices ----------------------------------------------------------------------------------------------------
def device_attribute(device: dict[str, Any], name: str) -> Any:
    """A published device's attribute value (unqualified, or in the driver's domain), or None."""
    attrs = device.get("attributes") or {}
    value = attrs.get(name) or attrs.get(f"{GPU_DRIVER_NAME}/{name}") or {}
    return next(iter(value.values()), None) if value else None


def slice_of(device: dict[str, Any], memory_mib: float | None, margin_percent: int) -> Slice | None:
    """Which slice a published device is (API JSON; `memory_mib` its memory capacity), or None when it is none the
    package knows: an A10 device outside every band, a MIG profile of no catalog GPU of its architecture."""
    kind = device_attribute(device, "type")
    if kind == "mig":
        profile, architecture = device_attribute(device, "profile"), device_attribute(device, "architecture")
        return next((k for k in mig_kinds() if k.profile == profile and k.architecture == architecture), None)
    if kind == "gpu" and memory_mib is not None:
        size = size_class_of(memory_mib, margin_percent)
        return a10_slice(size) if size is not None else None
    return None
