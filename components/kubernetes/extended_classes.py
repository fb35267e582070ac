"""Which DeviceClasses serve which extended resource names (pure): one class per name, each selecting exactly what its
name promises, through the same selectors the claim templates use (`slice_kinds.slice_selector`).

A pod asking `resources.limits: {<name>: N}` is given N devices of the class that maps `<name>` (KEP-5004, Kubernetes
1.36: at PreBind the scheduler writes a claim `<pod>-extended-resources-<random>` of one ExactCount request per
container and resource). A class has no prioritized list, so an A10 size class selects that size alone, never larger
ones; a MIG class selects its profile on every GPU architecture the pools have it on (the GPU Operator's mixed
strategy names a profile the same on an A100 80GB and an H100 80GB, so one name serves both, as it did under the
device plugin).

Names that repeat across classes are resolved by the scheduler: the class created last wins, ties by the lower name
(kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache/
extendedresourcecache.go, updateResourceName2class). Only nvidia.com/gpu is shared on purpose (with the chart's
gpu.nvidia.com): `ExtendedResources` creates its class after the driver's release, and `NVIDIA_GPU_CLASS` sorts first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog import GPU_DEVICE_CLASS, GPU_DRIVER_NAME
from ..config import StackConfig
from ..config.extended_resources import (
    CHART_CLASS,
    NOT_SERVED,
    NVIDIA_GPU,
    NVIDIA_GPU_CLASS,
    ExtendedResourcesConfig,
    a10_class_name,
    a10_resource_name,
    a10_size_of,
    extended_resource_name_problem,
    mig_class_name,
    mig_resource_name,
)
from ..config.extended_rules import chart_extended_names
from .selectors import device_class_selector
from .slice_kinds import Slice, order, slice_of_pool, slice_selector

__all__ = [
    "NVIDIA_GPU",
    "NVIDIA_GPU_CLASS",
    "ExtendedClass",
    "chart_extended_names",
    "class_spec",
    "extended_classes",
    "extended_resource_name_problem",
    "mig_resource_name",
    "nvidia_gpu_warning",
    "offered_slices",
]

_ATTRS = f"device.attributes['{GPU_DRIVER_NAME}']"
MIG_DEVICE_SELECTOR = f"device.driver == '{GPU_DRIVER_NAME}' && 'type' in {_ATTRS} && {_ATTRS}.type == 'mig'"
"""A MIG device of the NVIDIA driver (the chart's mig.nvidia.com selects the same, without the presence check)."""
NOTHING = "false"
"""The selector of a class that serves nothing ('not served')."""


@dataclass(frozen=True)
class ExtendedClass:
    """One DeviceClass of the package and the extended resource name it maps."""

    resource_name: str  # "aks-dra-vgpu.io/a10-8gib", "nvidia.com/mig-3g.40gb", "nvidia.com/gpu"
    class_name: str  # the DeviceClass metadata.name this package creates
    slices: tuple[Slice, ...]  # what it selects; () means it serves nothing ("not served")
    selector: str  # the CEL expression (slice_selector's: one truth with the claim templates)


def offered_slices(pools: list[Any]) -> list[Slice]:
    """The distinct slices the pools (GpuPoolConfigs) offer, best fit first."""
    return sorted({slice_of_pool(pool) for pool in pools}, key=order)


def selector_of(slices: tuple[Slice, ...], margin_percent: int) -> str:
    """CEL for a device that is one of `slices` (all of one family), or `false` for none."""
    if not slices:
        return NOTHING
    base = device_class_selector() if slices[0].family == "a10" else MIG_DEVICE_SELECTOR
    each = [slice_selector(kind, margin_percent) for kind in slices]
    return f"{base} && {each[0]}" if len(each) == 1 else f"{base} && ({' || '.join(f'({e})' for e in each)})"


def _served(choice: str, offered: list[Slice]) -> tuple[Slice, ...]:
    """The slices nvidiaGpu names among those offered: an A10 size, a MIG profile (on each GPU it is on), or none."""
    if choice == NOT_SERVED:
        return ()
    size = a10_size_of(choice)
    if size is not None:
        return tuple(k for k in offered if k.family == "a10" and k.memory_gib == size)
    return tuple(k for k in offered if k.family == "mig" and k.profile == choice)


def classes_for(extended: ExtendedResourcesConfig, pools: list[Any], margin_percent: int) -> tuple[ExtendedClass, ...]:
    """The classes `extended` asks for beside these pools: A10 sizes, then MIG profiles (smallest first), then
    nvidia.com/gpu's (unless 'any' or unset)."""
    offered = offered_slices(pools)
    classes: list[ExtendedClass] = []
    if extended.slices:
        for kind in (k for k in offered if k.family == "a10"):
            classes.append(ExtendedClass(a10_resource_name(extended.domain, kind.memory_gib),
                                         a10_class_name(kind.memory_gib), (kind,), selector_of((kind,), margin_percent)))
        profiles = list(dict.fromkeys(k.profile for k in offered if k.family == "mig"))
        for profile in profiles:
            kinds = tuple(k for k in offered if k.family == "mig" and k.profile == profile)
            classes.append(ExtendedClass(mig_resource_name(profile), mig_class_name(profile), kinds,
                                         selector_of(kinds, margin_percent)))
    if extended.nvidia_gpu is not None and extended.nvidia_gpu != CHART_CLASS:
        kinds = _served(extended.nvidia_gpu, offered)
        classes.append(ExtendedClass(NVIDIA_GPU, NVIDIA_GPU_CLASS, kinds, selector_of(kinds, margin_percent)))
    return tuple(classes)


def extended_classes(config: StackConfig) -> tuple[ExtendedClass, ...]:
    """What the stack maps through the package's own classes, in a stable order (none without extendedResources).

    samples.extendedResourceName (deprecated) stays on the samples' DeviceClass, which selects any A10 slice."""
    if config.extended_resources is None:
        return ()
    return classes_for(config.extended_resources, config.gpu_pools, config.samples.memory_margin_percent)


def class_spec(found: ExtendedClass) -> dict[str, Any]:
    """The DeviceClass spec (resource.k8s.io/v1) of one class."""
    return {"selectors": [{"cel": {"expression": found.selector}}], "extendedResourceName": found.resource_name}


def nvidia_gpu_warning(config: StackConfig) -> str | None:
    """What plan warns when the chart's class serves nvidia.com/gpu and the stack says nothing about it."""
    extended = config.extended_resources
    if (extended is not None and extended.nvidia_gpu is not None) or not config.dra_driver.enabled:
        return None
    if NVIDIA_GPU not in chart_extended_names(config.dra_driver.chart_version, config.cluster.kubernetes_version):
        return None
    return (f"a pod asking for {NVIDIA_GPU} is given any GPU device whatever its size: the driver chart's "
            f"{GPU_DEVICE_CLASS} class maps {NVIDIA_GPU} on Kubernetes 1.36+; set extendedResources.nvidiaGpu to a "
            f"slice size (e.g. '8GiB'), '{NOT_SERVED}', or '{CHART_CLASS}' to accept it")
