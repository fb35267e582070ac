"""The rules that make an extended-resource mapping safe, as (key, message) pairs run where every stack problem is
collected (`stack.cross_problems`), each on the parts that validated.

- Kubernetes 1.36 or newer on the cluster *and every pool*: the DRAExtendedResource gate is beta and on from 1.36 in
  kube-apiserver, the scheduler, the controller-manager and the kubelet (pkg/features/kube_features.go); a 1.35 node
  would admit the pod and never prepare its claim.
- Unique names: across the package's classes, samples.extendedResourceName and the chart's own mapping (per chart
  version). Kubernetes takes two classes with one name and picks the one created last, ties by the lower name
  (extendedresourcecache.go, updateResourceName2class): the package's nvidia.com/gpu class is made to win that
  (the component's ordering), every other duplicate is refused.
- `gpuProfile.nvidia.managementMode: Managed` (AKS runs the device plugin, which wins on that node: noderesources
  fit.go uses the device plugin wherever allocatable > 0) is not a stack setting: the package always sends
  `gpuProfile.driver: Install`, and pulumi-azure-native's default AgentPool API has no `nvidia` block. A pool someone
  switches by hand is seen only on the live cluster, so that rule lives in `verify`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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
from .samples import EXTENDED_RESOURCE_FROM, SamplesConfig
from .syntax import parse_k8s_version

T = TypeVar("T")

_FROM = ".".join(map(str, EXTENDED_RESOURCE_FROM))


def scheduler_pick(candidates: Iterable[T], age: Callable[[T], Any], name: Callable[[T], str]) -> T | None:
    """Which of the classes that map one extended resource name the scheduler gives a pod: the newest (the largest
    `age`), ties by the lower class name (kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/
    deviceclass/extendedresourcecache/extendedresourcecache.go, betterDeviceClass); None when none maps it. `verify`
    reads the age from creationTimestamp, `diff` from the order an update creates classes in."""
    found = list(candidates)
    if not found:
        return None
    newest = max(age(c) for c in found)
    return min((c for c in found if age(c) == newest), key=name)


def chart_extended_names(chart_version: str | None, kubernetes_version: str | None) -> dict[str, str]:
    """The extended resource names the driver chart's own classes map on this cluster, name -> class
    ({"nvidia.com/gpu": "gpu.nvidia.com"} from 25.12.0 and 0.4.0 on, at Kubernetes 1.36+); {} where none."""
    chart = DRIVER_CHARTS.get(chart_version) if chart_version else None
    if chart is None or chart.gpu_class_extended_resource is None or kubernetes_version is None:
        return {}
    if parse_k8s_version(kubernetes_version) < EXTENDED_RESOURCE_FROM:
        return {}  # the API server drops the field while the gate is off
    return {chart.gpu_class_extended_resource: GPU_DEVICE_CLASS}


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
    return f"'{choice}' is no slice the pools offer; choose one of {', '.join(nvidia_gpu_choices(pools))}"


def package_names(extended: ExtendedResourcesConfig, pools: Iterable[tuple[int, Any]]) -> dict[str, str]:
    """The names the package's classes map, name -> class (what the ExtendedResources component creates)."""
    sizes, profiles = offered(list(pools))
    names: dict[str, str] = {}
    if extended.slices:
        names |= {a10_resource_name(extended.domain, size): a10_class_name(size) for size in sizes}
        names |= {mig_resource_name(profile): mig_class_name(profile) for profile in profiles}
    if extended.nvidia_gpu is not None and extended.nvidia_gpu != CHART_CLASS:
        names[NVIDIA_GPU] = NVIDIA_GPU_CLASS
    return names


def cluster_version_problem(cluster_version: str | None, key: str,
                            cluster_key: str = "cluster.kubernetesVersion") -> tuple[str, str] | None:
    """Kubernetes 1.36+ on the cluster, said at `key` (the setting that needs it)."""
    if cluster_version is None or parse_k8s_version(cluster_version) >= EXTENDED_RESOURCE_FROM:
        return None
    return (key, f"needs Kubernetes {_FROM} or newer ({cluster_key} is '{cluster_version}'): before {_FROM} the "
            "DRAExtendedResource feature gate is alpha and off, and the API server drops the field")


def pool_version_problems(pools: Iterable[tuple[int, Any]], users: str, pools_key: str = "gpuPools") -> list[tuple[str, str]]:
    """Kubernetes 1.36+ on every pool that pins its own version (its orchestratorVersion): the kubelet needs the gate."""
    verb = "need" if " and " in users else "needs"
    return [
        (f"{pools_key}[{index}].kubernetesVersion", (
            f"'{pinned}' is older than {_FROM}, and {users} {verb} the DRAExtendedResource gate in every node's kubelet:"
            f" a {pinned} node admits a pod asking for an extended resource and never prepares its claim; "
            f"pin {_FROM} or newer, or leave it unset (the cluster's version)"))
        for index, pool in pools
        if (pinned := pool.kubernetes_version) is not None and parse_k8s_version(pinned) < EXTENDED_RESOURCE_FROM
    ]


def extended_problems(
    extended: ExtendedResourcesConfig | None, samples: SamplesConfig | None, cluster_version: str | None,
    pools: list[tuple[int, Any]], all_pools: bool, driver_enabled: bool | None, chart_version: str | None,
    left_out: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """Every rule of the extendedResources section and of samples.extendedResourceName, on what validated (None:
    did not). `pools` are the pools that validated, by index; `all_pools` whether that is all of them; `left_out` the
    section's keys that failed (its version rules, which read none of them, still run; a rule reading one does not)."""
    problems: list[tuple[str, str]] = []
    sample_name = samples.extended_resource_name if samples is not None and samples.enabled else None
    written = extended is not None or bool(left_out)
    users = [k for k, on in (("extendedResources", written),
                             ("samples.extendedResourceName", sample_name is not None)) if on]
    problems += pool_version_problems(pools, " and ".join(users)) if users else []
    key = "extendedResources"
    problems += [found] if written and (found := cluster_version_problem(cluster_version, key)) else []
    if extended is None:  # samples.extendedResourceName's cluster version: stack.cross_problems says it
        return problems
    choice = extended.nvidia_gpu
    if all_pools and not pools:
        problems.append((key, "there are no GPU pools whose slices it could map"))
    if not extended.slices and choice is None and not left_out:
        problems.append((key, "maps no name: set slices: true, or nvidiaGpu"))
    if all_pools and (found := nvidia_gpu_offer_problem(choice, pools)):
        problems.append((f"{key}.nvidiaGpu", found))
    if choice is not None and choice != CHART_CLASS and driver_enabled is False:
        problems.append((f"{key}.nvidiaGpu", (
            f"'{choice}' needs the package's class {NVIDIA_GPU_CLASS} to win nvidia.com/gpu over the driver's "
            f"{GPU_DEVICE_CLASS}, which Kubernetes decides by creation order; with draDriver.enabled: false the "
            "driver's classes are someone else's and the package cannot create its class after theirs. Set "
            f"nvidiaGpu: '{CHART_CLASS}' (or leave it unset), or let the package run the driver")))
    chart_names = chart_extended_names(chart_version, cluster_version) if driver_enabled is not False else {}
    if choice == CHART_CLASS and driver_enabled and chart_version is not None and NVIDIA_GPU not in chart_names \
            and chart_version in DRIVER_CHARTS:
        problems.append((f"{key}.nvidiaGpu", (
            f"'{CHART_CLASS}' leaves nvidia.com/gpu to the chart's {GPU_DEVICE_CLASS} class, which chart "
            f"'{chart_version}' gives no extendedResourceName here, so nothing would serve it; choose a slice "
            f"({', '.join(nvidia_gpu_choices(pools)[:-1])}) or use a chart that maps it")))
    if left_out:  # the names below follow from slices, domain and nvidiaGpu together
        return problems
    ours = package_names(extended, pools)
    for name, cls in ours.items():
        if name != NVIDIA_GPU and name in chart_names:
            problems.append((key, f"'{name}' (class {cls}) is also mapped by the chart's class {chart_names[name]}"))
    if sample_name is not None and sample_name in ours:
        problems.append(("samples.extendedResourceName", (
            f"'{sample_name}' is also mapped by extendedResources' class {ours[sample_name]}: one name must have one "
            "class (Kubernetes picks the class created last); remove samples.extendedResourceName")))
    if samples is not None and samples.enabled and samples.device_class_name in set(ours.values()):
        problems.append(("samples.deviceClassName", f"'{samples.device_class_name}' is the name of one of "
                         "extendedResources' classes; choose another"))
    return problems
