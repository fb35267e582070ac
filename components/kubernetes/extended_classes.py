"""Which DeviceClasses serve which extended resource names (pure): one class per name, each selecting exactly what its
name promises, through the same selectors the claim templates use (`slice_kinds.slice_selector`).

A pod asking `resources.limits: {<name>: N}` is given N devices of the class that maps `<name>` (KEP-5004, Kubernetes
1.36: at PreBind the scheduler writes a claim `<pod>-extended-resources-<random>` of one ExactCount request per
container and resource). A class has no prioritized list, so an A10 size class selects that size alone, never larger
ones; a MIG class selects its profile on every GPU architecture the pools have it on (the GPU Operator's mixed
strategy names a profile the same on an A100 80GB and an H100 80GB, so one name serves both, as it did under the
device plugin).

Only nvidia.com/gpu is shared on purpose, with the chart's gpu.nvidia.com: the package's class is created after the
driver's release and its name sorts first, so it wins (config/extended_rules.py has the 1.36 scheduler's rule). On
1.36 the package keeps that class whatever nvidiaGpu says ('any' and unset select any GPU device, as the chart's class
does): a deletion would drop the name from the scheduler's memory even though the chart's class still maps it.
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
from ..config.extended_rules import CHART_NAMES, chart_extended_names, keeps_nvidia_gpu_class, nvidia_gpu_choices
from .selectors import device_class_selector
from .slice_kinds import Slice, order, slice_of_pool, slice_selector

__all__ = [
    "ANY_GPU_SELECTOR",
    "CHART_NAMES",
    "NVIDIA_GPU",
    "NVIDIA_GPU_CLASS",
    "ExtendedClass",
    "chart_extended_names",
    "class_spec",
    "extended_classes",
    "extended_resource_name_problem",
    "fix_command",
    "mig_resource_name",
    "nvidia_gpu_warning",
    "offered_slices",
]

_ATTRS = f"device.attributes['{GPU_DRIVER_NAME}']"
MIG_DEVICE_SELECTOR = f"device.driver == '{GPU_DRIVER_NAME}' && 'type' in {_ATTRS} && {_ATTRS}.type == 'mig'"
"""A MIG device of the NVIDIA driver (the chart's mig.nvidia.com selects the same, without the presence check)."""
ANY_GPU_SELECTOR = f"device.driver == '{GPU_DRIVER_NAME}' && 'type' in {_ATTRS} && {_ATTRS}.type == 'gpu'"
"""Any GPU device of the NVIDIA driver, whatever its size, never a MIG slice: what the chart's gpu.nvidia.com selects
(templates/deviceclass-gpu.yaml), with the presence check a missing attribute needs in CEL."""
NOTHING = "false"
REMAP_ANNOTATION = "aks-dra-vgpu.io/remapped"
"""What `fix_command` writes: any in-place update makes the scheduler's informer see the class again."""
"""The selector of a class that serves nothing ('not served')."""


@dataclass(frozen=True)
class ExtendedClass:
    """One DeviceClass of the package and the extended resource name it maps."""

    resource_name: str  # "aks-dra-vgpu.io/a10-8gib", "nvidia.com/mig-3g.40gb", "nvidia.com/gpu"
    class_name: str  # the DeviceClass metadata.name this package creates
    slices: tuple[Slice, ...]  # what it selects; () means it serves nothing ("not served")
    selector: str  # the CEL expression (slice_selector's: one truth with the claim templates)


def fix_command(class_name: str) -> str:
    """The one command that gives a name its class back on a running 1.36 scheduler that forgot it (a class carrying
    the name was deleted): an in-place update of the class, which takes an empty slot (extendedresourcecache.go,
    updateResourceName2class)."""
    return f'kubectl annotate deviceclass {class_name} {REMAP_ANNOTATION}="$(date +%s)" --overwrite'


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


def _served(choice: str | None, offered: list[Slice]) -> tuple[Slice, ...]:
    """The slices nvidiaGpu names among those offered: an A10 size, a MIG profile (on each GPU it is on), none, or
    every A10 slice ('any', or unset: any GPU device)."""
    if choice == NOT_SERVED:
        return ()
    if choice is None or choice == CHART_CLASS:
        return tuple(k for k in offered if k.family == "a10")
    size = a10_size_of(choice)
    if size is not None:
        return tuple(k for k in offered if k.family == "a10" and k.memory_gib == size)
    return tuple(k for k in offered if k.family == "mig" and k.profile == choice)


def classes_for(extended: ExtendedResourcesConfig, pools: list[Any], margin_percent: int,
                nvidia_gpu_class: bool) -> tuple[ExtendedClass, ...]:
    """The classes `extended` asks for beside these pools: A10 sizes, then MIG profiles (smallest first), then
    nvidia.com/gpu's where `nvidia_gpu_class` (`keeps_nvidia_gpu_class`'s answer)."""
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
    if nvidia_gpu_class:
        choice = extended.nvidia_gpu
        kinds = _served(choice, offered)
        selector = ANY_GPU_SELECTOR if choice in (None, CHART_CLASS) else selector_of(kinds, margin_percent)
        classes.append(ExtendedClass(NVIDIA_GPU, NVIDIA_GPU_CLASS, kinds, selector))
    return tuple(classes)


def extended_classes(config: StackConfig) -> tuple[ExtendedClass, ...]:
    """What the stack maps through the package's own classes, in a stable order: extendedResources' classes, and the
    nvidia.com/gpu class kept on 1.36 even without that section (`keeps_nvidia_gpu_class`).

    samples.extendedResourceName (deprecated) stays on the samples' DeviceClass, which selects any A10 slice."""
    extended, driver = config.extended_resources, config.dra_driver
    keep = keeps_nvidia_gpu_class(extended.nvidia_gpu if extended else None, driver.enabled, driver.chart_version,
                                  config.cluster.kubernetes_version)
    if extended is None and not keep:
        return ()
    return classes_for(extended or ExtendedResourcesConfig(slices=False), config.gpu_pools,
                       config.samples.memory_margin_percent, keep)


def class_spec(found: ExtendedClass) -> dict[str, Any]:
    """The DeviceClass spec (resource.k8s.io/v1) of one class."""
    return {"selectors": [{"cel": {"expression": found.selector}}], "extendedResourceName": found.resource_name}


def nvidia_gpu_warning(config: StackConfig) -> str | None:
    """What plan warns when nvidia.com/gpu is served by any GPU device because the stack says nothing about it: the
    chart maps it on 1.36+ (from the chart's next apply there), and the package's class follows the chart's meaning."""
    extended = config.extended_resources
    if (extended is not None and extended.nvidia_gpu is not None) or not config.dra_driver.enabled:
        return None
    if NVIDIA_GPU not in chart_extended_names(config.dra_driver.chart_version, config.cluster.kubernetes_version):
        return None
    pools = list(enumerate(config.gpu_pools))
    slices = [c for c in nvidia_gpu_choices(pools) if c not in (NOT_SERVED, CHART_CLASS)]
    example = next((c for c in slices if a10_size_of(c) is not None), slices[0] if slices else None)
    return (f"a pod asking for {NVIDIA_GPU} is given any GPU device whatever its size: the driver chart's "
            f"{GPU_DEVICE_CLASS} class maps {NVIDIA_GPU} once the chart is applied on Kubernetes 1.36+ (a cluster "
            "upgraded in place from 1.35 gets it at the chart's next apply), and the package's class "
            f"{NVIDIA_GPU_CLASS} selects the same; set extendedResources.nvidiaGpu to a slice the pools offer "
            f"({', '.join(slices)}{f', e.g. {example!r}' if example else ''}), '{NOT_SERVED}', or '{CHART_CLASS}' to "
            "accept it")
