"""The rules that make an extended-resource mapping safe, as (key, message) pairs run where every stack problem is
collected (`stack.cross_problems`), each on the parts that validated, and the facts they share with the components.

What the 1.36 scheduler remembers (kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/deviceclass/
extendedresourcecache/extendedresourcecache.go at v1.36.2): one class per name, in memory. A class that is added or
updated takes the name when the slot is empty, or when it is newer (creationTimestamp), or as old with a lower name
(`updateResourceName2class`); a class that is deleted takes the name out of the slot **whichever class held it**
(`removeResourceName2class`), and a remaining class gets it back only when it is next updated, or when kube-scheduler
restarts and lists every class (which AKS users cannot make it do). A winner recomputed on delete (`betterDeviceClass`,
`recomputeWinner`) arrives with kubernetes/kubernetes#141110, in 1.37. So the package never hands a name over by
deleting a class: on 1.36 it keeps its nvidia.com/gpu class whatever nvidiaGpu says (`keeps_nvidia_gpu_class`), and
`review` simulates the cache through an update.

- Kubernetes 1.36 or newer on the cluster *and on every pool a mapped class can select*, the chart's own class included:
  the DRAExtendedResource gate is beta and on from 1.36 in kube-apiserver, the scheduler, the controller-manager and
  the kubelet (pkg/features/kube_features.go). A 1.35 kubelet admits a pod asking a name its node does not list
  (pkg/kubelet/lifecycle/predicate.go, removeMissingExtendedResources) and, with the gate off, never prepares the
  scheduler's claim (pkg/kubelet/cm/dra/manager.go): the container runs **without the GPU** while the device stays
  allocated.
- Unique names: across the package's classes, samples.extendedResourceName and the chart's own mapping (per chart
  version). Only nvidia.com/gpu is shared, with the chart's gpu.nvidia.com, and the package's class is made to win it.
- `gpuProfile.nvidia.managementMode: Managed` (AKS runs the device plugin, which wins on that node: noderesources
  fit.go uses the device plugin wherever allocatable > 0) is not a stack setting: the package always sends
  `gpuProfile.driver: Install`, and pulumi-azure-native's default AgentPool API has no `nvidia` block. A pool someone
  switches by hand is seen only on the live cluster, so that rule lives in `verify`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..catalog import DRIVER_CHARTS, GPU_DEVICE_CLASS
from .extended_resources import (
    CHART_CLASS,
    NOT_SERVED,
    NVIDIA_GPU,
    NVIDIA_GPU_CLASS,
    ExtendedResourcesConfig,
    a10_class_name,
    a10_resource_name,
    a10_size_of,
    mig_class_name,
    mig_resource_name,
)
from .nvidia_gpu_hints import nvidia_gpu_meant
from .samples import EXTENDED_RESOURCE_FROM, SamplesConfig
from .syntax import parse_k8s_version

T = TypeVar("T")

_FROM = ".".join(map(str, EXTENDED_RESOURCE_FROM))
Pools = list[tuple[int, Any]]  # (index in gpuPools, GpuPoolConfig)


def scheduler_pick(candidates: Iterable[T], age: Callable[[T], Any], name: Callable[[T], str]) -> T | None:
    """Which of the classes that map one extended resource name a scheduler that has just listed every class serves it
    with: the newest (the largest `age`), ties by the lower class name (`updateResourceName2class` folded over every
    class, in any order: extendedresourcecache.go); None when none maps it. A running 1.36 scheduler may remember less:
    a deletion empties the slot (module docstring, and `review.scheduler_cache`). `verify` reads the age from
    creationTimestamp, `diff` from the order an update creates classes in."""
    found = list(candidates)
    if not found:
        return None
    newest = max(age(c) for c in found)
    return min((c for c in found if age(c) == newest), key=name)


def chart_extended_names(chart_version: str | None, kubernetes_version: str | None) -> dict[str, str]:
    """The extended resource names the driver chart's own classes map once the chart is *applied* on this cluster, name
    -> class ({"nvidia.com/gpu": "gpu.nvidia.com"} from 25.12.0 and 0.4.0 on, applied at Kubernetes 1.36+); {} where
    none. A class applied before an in-place upgrade to 1.36 keeps no mapping until the chart is applied again: the API
    server drops the field while the gate is off (pkg/registry/resource/deviceclass/strategy.go,
    dropDisabledDRAExtendedResourceFields)."""
    chart = DRIVER_CHARTS.get(chart_version) if chart_version else None
    if chart is None or chart.gpu_class_extended_resource is None or kubernetes_version is None:
        return {}
    if parse_k8s_version(kubernetes_version) < EXTENDED_RESOURCE_FROM:
        return {}
    return {chart.gpu_class_extended_resource: GPU_DEVICE_CLASS}


CHART_NAMES = frozenset(c.gpu_class_extended_resource for c in DRIVER_CHARTS.values() if c.gpu_class_extended_resource)
"""Every name some version of the driver chart maps through its own class: a package class carrying one shares it."""


def keeps_nvidia_gpu_class(choice: str | None, driver_enabled: bool | None, chart_version: str | None,
                           kubernetes_version: str | None) -> bool:
    """Whether the package declares its own nvidia.com/gpu class: for every nvidiaGpu it is given where the package runs
    the driver ('any' selects any GPU device, as the chart's class does), and with nvidiaGpu unset wherever the chart
    maps the name, so that moving between those settings, or removing extendedResources, updates the class in place
    instead of deleting it (a deletion would leave the name unserved on 1.36). Where the driver is someone else's, only
    a slice or 'none' (which `extended_problems` refuses there)."""
    if driver_enabled is False:
        return choice not in (None, CHART_CLASS)
    if choice is not None:
        return True
    return NVIDIA_GPU in chart_extended_names(chart_version, kubernetes_version)


def offered(pools: Iterable[tuple[int, Any]]) -> tuple[list[int], list[str]]:
    """(A10 slice sizes, MIG profiles) the pools offer, each smallest first."""
    sizes = sorted({p.size.gpu_memory_gib for _, p in pools if not p.is_mig})
    kinds = sorted({(s.memory_gib, s.compute_units, s.profile) for _, p in pools if (s := p.mig_slice) is not None})
    return sizes, [profile for _, _, profile in kinds]


def nvidia_gpu_choices(pools: Iterable[tuple[int, Any]]) -> list[str]:
    """What extendedResources.nvidiaGpu may be beside these pools."""
    sizes, profiles = offered(list(pools))
    return [*(f"{size}GiB" for size in sizes), *profiles, NOT_SERVED, CHART_CLASS]


def nvidia_gpu_offer_problem(choice: str | None, pools: list[tuple[int, Any]]) -> str | None:
    """Why nvidiaGpu names no slice these pools offer (a size or profile none of them has), or None."""
    if choice is None or choice in (NOT_SERVED, CHART_CLASS) or not pools:
        return None
    sizes, profiles = offered(pools)
    size = a10_size_of(choice)
    if (size is not None and size in sizes) or (size is None and choice in profiles):
        return None
    choices = nvidia_gpu_choices(pools)
    meant = nvidia_gpu_meant(choice, sizes, profiles)
    hint = f" (did you mean '{meant}'?)" if meant in choices else ""
    return f"'{choice}' is no slice the pools offer{hint}; choose one of {', '.join(choices)}"


def package_names(extended: ExtendedResourcesConfig, pools: Iterable[tuple[int, Any]],
                  nvidia_gpu_class: bool) -> dict[str, str]:
    """The names the package's classes map, name -> class (what the ExtendedResources component creates);
    `nvidia_gpu_class`: `keeps_nvidia_gpu_class`'s answer."""
    sizes, profiles = offered(list(pools))
    names: dict[str, str] = {}
    if extended.slices:
        names |= {a10_resource_name(extended.domain, size): a10_class_name(size) for size in sizes}
        names |= {mig_resource_name(profile): mig_class_name(profile) for profile in profiles}
    if nvidia_gpu_class:
        names[NVIDIA_GPU] = NVIDIA_GPU_CLASS
    return names


def selecting_names(pool: Any, extended: ExtendedResourcesConfig | None, nvidia_gpu_class: bool,
                    chart_names: Mapping[str, str], sample_name: str | None) -> list[str]:
    """The mapped names whose classes can select this pool's slices: its A10 size's or MIG profile's name,
    nvidia.com/gpu where a class that maps it selects this slice (the package's class: the size or profile nvidiaGpu
    names, or any A10 slice for 'any' and unset; the chart's gpu.nvidia.com: any A10 slice, never a MIG one, and it
    counts even where the package's class wins, since a deletion can hand the name back to it), and
    samples.extendedResourceName (its class selects any A10 slice)."""
    names = []
    mig = pool.mig_slice
    if extended is not None and extended.slices:
        names.append(mig_resource_name(mig.profile) if mig is not None
                     else a10_resource_name(extended.domain, pool.size.gpu_memory_gib))
    choice = extended.nvidia_gpu if extended is not None else None
    picked = (choice == mig.profile) if mig is not None else (a10_size_of(str(choice)) == pool.size.gpu_memory_gib)
    if nvidia_gpu_class and choice not in (None, CHART_CLASS, NOT_SERVED) and picked:
        names.append(NVIDIA_GPU)
    if mig is None and (NVIDIA_GPU in chart_names or (nvidia_gpu_class and choice in (None, CHART_CLASS))):
        names.append(NVIDIA_GPU)
    if sample_name is not None and mig is None:
        names.append(sample_name)
    return list(dict.fromkeys(names))


def cluster_version_problem(cluster_version: str | None, key: str,
                            cluster_key: str = "cluster.kubernetesVersion") -> tuple[str, str] | None:
    """Kubernetes 1.36+ on the cluster, said at `key` (the setting that needs it), with the fix."""
    if cluster_version is None or parse_k8s_version(cluster_version) >= EXTENDED_RESOURCE_FROM:
        return None
    return (key, f"needs Kubernetes {_FROM} or newer ({cluster_key} is '{cluster_version}'): before {_FROM} the "
            f"DRAExtendedResource feature gate is alpha and off, and the API server drops the field; set {cluster_key}"
            f" to '{_FROM}' (pools that pin a version too), or remove this setting")


def pool_version_problems(pools: Iterable[tuple[int, Any]], names_of: Callable[[Any], list[str]],
                          pools_key: str = "gpuPools", version_of: Callable[[Any], str | None] | None = None,
                          ) -> list[tuple[str, str]]:
    """Kubernetes 1.36+ on every pool whose slices a mapped class can select (`names_of` says which names), by the
    version the pool runs (`version_of`; default its own pin): its kubelet needs the gate, or the pod runs without the
    GPU. One problem per pool, naming every name that reaches it."""
    problems = []
    for index, pool in pools:
        runs = version_of(pool) if version_of else pool.kubernetes_version
        if runs is None or parse_k8s_version(runs) >= EXTENDED_RESOURCE_FROM or not (names := names_of(pool)):
            continue
        shown = ", ".join(dict.fromkeys(names))
        problems.append((f"{pools_key}[{index}].kubernetesVersion", (
            f"'{runs}' is older than {_FROM}, and the classes that map {shown} select this pool's slices: a {runs} "
            f"kubelet admits a pod asking for it but never prepares the scheduler's claim (the DRAExtendedResource gate"
            f" is off there), so the container runs without the GPU while the device stays allocated; pin '{_FROM}' "
            "or newer, or leave it unset (the cluster's version)")))
    return problems


def extended_problems(
    extended: ExtendedResourcesConfig | None, samples: SamplesConfig | None, cluster_version: str | None,
    pools: Pools, all_pools: bool, driver_enabled: bool | None, chart_version: str | None,
    left_out: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """Every rule of the extendedResources section, of samples.extendedResourceName and of the chart's own mapping, on
    what validated (None: did not). `pools` are the pools that validated, by index; `all_pools` whether that is all of
    them; `left_out` the section's keys that failed (a rule reading one of them does not run)."""
    problems: list[tuple[str, str]] = []
    key = "extendedResources"
    sample_name = samples.extended_resource_name if samples is not None and samples.enabled else None
    chart_names = chart_extended_names(chart_version, cluster_version) if driver_enabled is not False else {}
    choice = extended.nvidia_gpu if extended is not None else None
    keep = keeps_nvidia_gpu_class(choice, driver_enabled, chart_version, cluster_version)
    written = extended is not None or bool(left_out)
    if written and (found := cluster_version_problem(cluster_version, key)):
        problems.append(found)
    if cluster_version is not None and parse_k8s_version(cluster_version) >= EXTENDED_RESOURCE_FROM:
        # With keys of the section refused, only what stands without them (the chart's mapping, the samples' name).
        reaching = extended if not left_out else None
        problems += pool_version_problems(
            pools, lambda pool: selecting_names(pool, reaching, keep and reaching is not None, chart_names, sample_name))
    if extended is None:  # samples.extendedResourceName's cluster version: stack.cross_problems says it
        return problems
    if all_pools and not pools:
        problems.append((key, "there are no GPU pools whose slices it could map"))
    if not left_out and not package_names(extended, pools, keep):
        problems.append((key, "maps no name: set slices: true, or nvidiaGpu to a slice or 'none' (with "
                         "draDriver.enabled: false, 'any' leaves nvidia.com/gpu to the driver's own class)"))
    if all_pools and (found := nvidia_gpu_offer_problem(choice, pools)):
        problems.append((f"{key}.nvidiaGpu", found))
    if choice not in (None, CHART_CLASS) and driver_enabled is False:
        problems.append((f"{key}.nvidiaGpu", (
            f"'{choice}' needs the package's class {NVIDIA_GPU_CLASS} to win nvidia.com/gpu over the driver's "
            f"{GPU_DEVICE_CLASS}, which Kubernetes decides by creation order; with draDriver.enabled: false the "
            "driver's classes are someone else's and the package cannot create its class after theirs. Set "
            f"nvidiaGpu: '{CHART_CLASS}' (or leave it unset), or let the package run the driver")))
    if "slices" in left_out:  # which classes there are follows from it
        return problems
    ours = package_names(extended, pools, keep)
    if "nvidiaGpu" in left_out:  # whether the nvidia.com/gpu class is there follows from it
        ours.pop(NVIDIA_GPU, None)
    classes = set(ours.values())
    if "domain" in left_out:  # the A10 slices' names follow from it, never a class's name
        ours = {name: cls for name, cls in ours.items() if not name.startswith(f"{extended.domain}/")}
    for name, cls in ours.items():
        if name != NVIDIA_GPU and name in chart_names:
            problems.append((key, f"'{name}' (class {cls}) is also mapped by the chart's class {chart_names[name]}"))
    if sample_name is not None and sample_name in ours:
        problems.append(("samples.extendedResourceName", (
            f"'{sample_name}' is also mapped by extendedResources' class {ours[sample_name]}: one name must have one "
            "class (Kubernetes picks the class created last); remove samples.extendedResourceName")))
    if samples is not None and samples.enabled and samples.device_class_name in classes:
        problems.append(("samples.deviceClassName", f"'{samples.device_class_name}' is the name of one of "
                         "extendedResources' classes; choose another"))
    return problems
