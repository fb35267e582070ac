"""The checks: pure functions from a resource's type token and inputs (camelCase, as the engine sees them) to
violation messages.

Inputs may be plain dicts and lists (the offline plan) or the policy SDK's read-only Mapping/Sequence proxies, so the
checks only ever use the Mapping protocol. A value the plan cannot see (``[unknown]``, ``[secret]``) is no violation by
itself; under the policy SDK reading an unknown value raises, and the SDK reports that it could not check it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog import (
    A10_SIZES,
    CHART_DEVICE_CLASSES,
    DEFAULT_CHART_VERSION,
    DRIVER_CHARTS,
    GPU_PRESENT_LABEL,
    MIG_SIZES,
    MIN_KUBERNETES_VERSION,
    REQUIRED_VALUES,
    SCALE_FROM_ZERO_WHY,
)
from ..config import MISSING, parse_k8s_version, value_at

__all__ = [
    "SCALE_FROM_ZERO_WHY",
    "check_device_class_name",
    "check_dra_driver_release",
    "check_gpu_pool",
    "check_kubernetes_support",
    "check_kubernetes_version",
    "check_scale_from_zero",
    "check_unique_device_classes",
]

# What the offline plan writes for values it cannot see (components.offline.engine: SECRET, UNKNOWN).
_HIDDEN = ("[secret]", "[unknown]")
# Azure's GPU VM families: NC, ND, NG, NV (every N-series size has a GPU).
# ASCII only: under IGNORECASE, Unicode case folding lets U+017F (long s) match 's'; `\Z`, since `$` passes a trailing newline.
_GPU_VM_SIZE = re.compile(r"^Standard_N[CDGV]", re.IGNORECASE | re.ASCII)
_EXACT_VERSION = re.compile(r"^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?\Z", re.ASCII)
_IMEX_GATE = ("featureGates", "IMEXDaemonsWithDNSNames")
_MIN_VERSION = ".".join(map(str, MIN_KUBERNETES_VERSION))



def _hidden(value: Any) -> bool:
    return isinstance(value, str) and value in _HIDDEN


def _get(data: Any, *path: str) -> Any:
    """The value at a key path of nested mappings, or MISSING; a hidden value on the way is returned as it is."""
    return value_at(data, path, stop=_hidden)


def _show(value: Any) -> str:
    return "missing" if value is MISSING else repr(value)


def _is_type(token: str, package_module: str, kind: str) -> bool:
    """Whether a type token names `kind` in `package:module`, whatever the API version (e.g. azure-native's
    `containerservice/v20240901` or Kubernetes' `resource.k8s.io/v1beta2`)."""
    parts = token.split(":")
    if len(parts) != 3:
        return False
    package, module, name = parts
    wanted_package, _, wanted_module = package_module.partition(":")
    return package == wanted_package and module.split("/")[0] == wanted_module and name == kind


# --- the checks ------------------------------------------------------------------------------------------------------------
def check_gpu_pool(type_token: str, inputs: Mapping[str, Any]) -> list[str]:
    """A GPU pool is NVadsA10_v5, or a MIG size partitioned by AKS (gpuInstanceProfile), labelled
    nvidia.com/gpu.present=true, with the driver installed by AKS.

    A pool counts as a GPU pool when its VM size is an N-series (GPU) size, or it carries the label or a gpuProfile:
    so a GPU pool that lost its label, or moved to another GPU family, is still caught; a CPU pool is left alone.
    """
    if not _is_type(type_token, "azure-native:containerservice", "AgentPool"):
        return []
    vm_size = _get(inputs, "vmSize")
    labels = _get(inputs, "nodeLabels")
    label_key, label_value = GPU_PRESENT_LABEL
    label = _get(labels, label_key)
    driver = _get(inputs, "gpuProfile", "driver")
    gpu_size = isinstance(vm_size, str) and bool(_GPU_VM_SIZE.match(vm_size))
    if not (gpu_size or label is not MISSING or _get(inputs, "gpuProfile") is not MISSING):
        return []
    problems = []
    profile = _get(inputs, "gpuInstanceProfile")
    mig_size = isinstance(vm_size, str) and vm_size in MIG_SIZES
    if isinstance(vm_size, str) and vm_size in A10_SIZES and not _hidden(profile) and profile not in (MISSING, None):
        problems.append(f"gpuInstanceProfile {_show(profile)} on {vm_size}: the A10's vGPU slices have no MIG")
    if not _hidden(vm_size) and vm_size not in A10_SIZES and not mig_size:
        problems.append(
            f"vmSize {_show(vm_size)} is not an NVadsA10_v5 size: the DeviceClass, claims and Helm values assume A10 "
            f"vGPU slices; use one of {', '.join(A10_SIZES)}, or a MIG size with gpuInstanceProfile"
        )
    if mig_size and not _hidden(profile) and profile in (MISSING, None):
        # AKS leaves a MIG size's GPUs whole without a profile (Azure/AgentBaker cse_main.sh): no claim here selects them.
        problems.append(f"gpuInstanceProfile is missing on MIG size {vm_size}: AKS would leave its GPUs whole")
    if mig_size and not _hidden(driver) and not _hidden(profile) and profile not in (MISSING, None) \
            and driver != "Install":
        # AgentBaker cse_main.sh partitions inside the driver install (skipped when the driver is not installed).
        problems.append(
            f"gpuProfile.driver is {_show(driver)} with gpuInstanceProfile {_show(profile)}: AKS partitions GPUs only "
            "where it installs the driver, so nothing would lay out the MIG slices; set 'Install'"
        )
        driver = "Install"  # said once, in MIG's words
    if not _hidden(label) and label != label_value:
        problems.append(
            f"nodeLabels['{label_key}'] is {_show(label)}, must be '{label_value}': the DRA kubelet plugin runs only on "
            "nodes with it, so the pool would publish no ResourceSlice"
        )
    if not _hidden(driver) and driver != "Install":
        problems.append(
            f"gpuProfile.driver is {_show(driver)}, must be 'Install' (set explicitly): the DRA driver uses the "
            "driver AKS installs on the host (GRID on A10, and on MIG sizes the one beside which AKS partitions)"
        )
    return problems


# Why each required Helm value matters, said in the violation so that the fix is obvious.
_WHY_VALUE: dict[tuple[str, ...], str] = {
    ("resources", "gpus", "enabled"): "the driver must publish GPUs",
    ("gpuResourcesEnabledOverride",): "the chart refuses GPU mode without it",
    ("nvidiaDriverRoot",): "AKS installs the GRID driver on the host",
    _IMEX_GATE: "the gate needs GRID >= 570.158.01, newer than AKS's A10 driver",
}


def _is_driver_chart(chart: Any) -> bool:
    if not isinstance(chart, str):
        return False
    names = {c.chart for c in DRIVER_CHARTS.values()}
    return chart in names or chart.rsplit("/", 1)[-1] in names  # a full OCI reference ends with the chart's name


def check_dra_driver_release(type_token: str, inputs: Mapping[str, Any]) -> list[str]:
    """The NVIDIA DRA driver's Helm release sets the flags A10 vGPU on AKS needs, pins its version, and does not run
    in the default namespace. Other Helm releases are not checked."""
    if not _is_type(type_token, "kubernetes:helm.sh", "Release") or not _is_driver_chart(_get(inputs, "chart")):
        return []
    problems = []
    for path, required in [*REQUIRED_VALUES.items(), (_IMEX_GATE, False)]:
        actual = _get(inputs, "values", *path)
        # Type too: a string "true" is not Helm's boolean true.
        if not _hidden(actual) and (actual != required or type(actual) is not type(required)):
            why = _WHY_VALUE.get(path, "A10 vGPU on AKS needs it")
            problems.append(f"values.{'.'.join(path)} is {_show(actual)}, must be {required!r}: {why}")
    version = _get(inputs, "version")
    if not _hidden(version) and not (isinstance(version, str) and _EXACT_VERSION.match(version)):
        problems.append(
            f"version is {_show(version)}: pin an exact chart version (e.g. '{DEFAULT_CHART_VERSION}'), "
            "since the driver's gates and guards differ from version to version"
        )
    namespace = _get(inputs, "namespace")
    if not _hidden(namespace) and namespace in (MISSING, None, "", "default"):
        problems.append(
            f"namespace is {_show(namespace)}: the chart refuses the default namespace; give the release its own "
            "(e.g. 'nvidia-dra-driver-gpu')"
        )
    return problems


def check_device_class_name(type_token: str, inputs: Mapping[str, Any]) -> list[str]:
    """No DeviceClass takes a name the NVIDIA chart creates: two owners of one object would overwrite each other."""
    if not (type_token.startswith("kubernetes:resource.k8s.io/") and type_token.endswith(":DeviceClass")):
        return []
    name = _get(inputs, "metadata", "name")
    if isinstance(name, str) and name in CHART_DEVICE_CLASSES:
        return [
            f"metadata.name '{name}' is a DeviceClass the NVIDIA chart creates; choose another name "
            f"(taken: {', '.join(sorted(CHART_DEVICE_CLASSES))})"
        ]
    return []


def check_kubernetes_version(type_token: str, inputs: Mapping[str, Any]) -> list[str]:
    """The cluster runs Kubernetes 1.34 or newer, where DRA (resource.k8s.io/v1) is GA."""
    if not _is_type(type_token, "azure-native:containerservice", "ManagedCluster"):
        return []
    version = _get(inputs, "kubernetesVersion")
    if _hidden(version):
        return []
    if version is MISSING or version is None:
        return [f"kubernetesVersion is not set: AKS would pick its default, which may be older; pin {_MIN_VERSION} or newer"]
    try:
        too_old = parse_k8s_version(str(version)) < MIN_KUBERNETES_VERSION
    except ValueError as exc:
        return [f"kubernetesVersion: {exc}"]
    if too_old:
        return [f"kubernetesVersion '{version}' is older than {_MIN_VERSION}: DRA (resource.k8s.io/v1) is GA from {_MIN_VERSION}"]
    return []


def check_kubernetes_support(type_token: str, inputs: Mapping[str, Any]) -> list[str]:
    """Advisory: the cluster's minor is in preview on AKS, offered only as LTS, or near or past the end of its standard
    support (components.catalog.kubernetes_versions), judged on today's date."""
    from datetime import date

    from ..config.versions import support_warning

    if not _is_type(type_token, "azure-native:containerservice", "ManagedCluster"):
        return []
    version = _get(inputs, "kubernetesVersion")
    if _hidden(version) or not isinstance(version, str):
        return []
    try:
        warning = support_warning(version, date.today())
    except ValueError:
        return []  # not a version: check_kubernetes_version says so
    return [f"kubernetesVersion '{version}': {warning}"] if warning else []


def check_scale_from_zero(type_token: str, inputs: Mapping[str, Any]) -> list[str]:
    """Advisory: a DRA-serving GPU pool (labelled for the kubelet plugin) that autoscales from minCount 0 may never get
    a node for a pod waiting on a ResourceClaim."""
    if not _is_type(type_token, "azure-native:containerservice", "AgentPool"):
        return []
    label_key, label_value = GPU_PRESENT_LABEL
    if _get(inputs, "nodeLabels", label_key) != label_value or _get(inputs, "enableAutoScaling") is not True:
        return []
    if _get(inputs, "minCount") != 0:
        return []
    name = _get(inputs, "agentPoolName")
    return [
        f"pool {name if isinstance(name, str) else '?'} autoscales from minCount 0: {SCALE_FROM_ZERO_WHY}; "
        "set autoscaling.minCount to 1 to keep a node (and its devices) ready"
    ]


# The NVIDIA DRA driver's chart under its two names (NGC's 25.x, kubernetes-sigs' 0.4+). Its templates create
# DeviceClasses (templates/deviceclass-*.yaml of every chart version): gpu.nvidia.com, mig.nvidia.com and
# vfio.gpu.nvidia.com when resources.gpus.enabled (which the package always sets), the two compute-domain classes when
# resources.computeDomains.enabled (the chart's default: true).
DRIVER_CHART_NAMES = frozenset({"nvidia-dra-driver-gpu", "dra-driver-nvidia-gpu"})
_GPU_CLASSES = ("gpu.nvidia.com", "mig.nvidia.com", "vfio.gpu.nvidia.com")
_COMPUTE_DOMAIN_CLASSES = ("compute-domain-daemon.nvidia.com", "compute-domain-default-channel.nvidia.com")


def release_device_classes(type_token: str, inputs: Mapping[str, Any]) -> list[str]:
    """The DeviceClasses a Helm release of the NVIDIA DRA driver chart creates (none for any other resource)."""
    if not (type_token.startswith("kubernetes:helm.sh/") and type_token.endswith(":Release")):
        return []
    chart = _get(inputs, "chart")
    if not isinstance(chart, str) or chart.rstrip("/").rsplit("/", 1)[-1] not in DRIVER_CHART_NAMES:
        return []
    values = _get(inputs, "values")
    if _hidden(values) or not isinstance(values, Mapping):
        return list(_GPU_CLASSES)  # values held as a secret: the package always turns the GPU classes on
    names = list(_GPU_CLASSES) if _get(values, "resources", "gpus", "enabled") is True else []
    if _get(values, "resources", "computeDomains", "enabled") is not False:
        names += _COMPUTE_DOMAIN_CLASSES
    return names


def check_unique_device_classes(
    resources: Iterable[tuple[str, str, Mapping[str, Any]]], providers: Mapping[str, str | None] | None = None,
) -> list[tuple[str, str]]:
    """(urn, message) for every DeviceClass whose name an earlier resource of the plan already creates on the same
    cluster (the same Kubernetes provider): a DeviceClass resource, or a release of the NVIDIA driver chart, which
    creates its classes itself. A DeviceClass is cluster-scoped, so two owners would overwrite (and on delete remove)
    each other's object; Helm refuses to install a release over objects another release owns."""
    first: dict[tuple[str | None, str], str] = {}
    found = []
    for urn, type_token, inputs in resources:
        cluster = (providers or {}).get(urn)
        if type_token.startswith("kubernetes:resource.k8s.io/") and type_token.endswith(":DeviceClass"):
            name = _get(inputs, "metadata", "name")
            names = [name] if isinstance(name, str) and not _hidden(name) else []
        else:
            names = release_device_classes(type_token, inputs)
        for name in names:
            if (cluster, name) in first:
                found.append((urn, f"DeviceClass '{name}' is also declared by {first[(cluster, name)]}: a DeviceClass is "
                                   "cluster-scoped, so only one component may create it (one NVIDIA DRA driver release "
                                   "per cluster); let the others name it without creating it"))
            else:
                first[(cluster, name)] = urn
    return found
