"""The extendedResources section: which extended resource names (`nvidia.com/gpu`, `nvidia.com/mig-3g.40gb`,
`aks-dra-vgpu.io/a10-8gib`) the stack serves with DRA, each through a DeviceClass of the package (Kubernetes 1.36+).

Pure rules about names live here, so the stack's checks, the samples' setting and the components share one copy:
- `extended_resource_name_problem`: Kubernetes' IsExtendedResourceName (kubernetes/kubernetes pkg/apis/core/v1/helper/
  helpers.go: not in the `kubernetes.io/` namespace, not starting with `requests.`, and `requests.<name>` a qualified
  name, k8s.io/apimachinery's IsQualifiedName, strfmt.go), which DeviceClass validation applies to
  `spec.extendedResourceName` (pkg/apis/resource/validation/validation.go).
- `mig_resource_name`: the name the NVIDIA device plugin gives a MIG profile under the GPU Operator's "mixed" strategy,
  `strings.ReplaceAll("mig-"+profile, "+", ".")` (NVIDIA/k8s-device-plugin internal/rm/rm.go,
  AddDefaultResourcesToConfig), so `1g.10gb+me` becomes `nvidia.com/mig-1g.10gb.me`, then checked as the plugin does
  (api/config/v1/resources.go NewResourceName) and as Kubernetes does.

A10 slices have no NVIDIA name: the device plugin names every whole GPU or vGPU `nvidia.com/gpu`, whatever its size,
and NVIDIA owns that domain. So the per-size names are `<domain>/a10-<N>gib` under a domain the stack sets (default
`aks-dra-vgpu.io`); `nvidia.com` is refused there, since a name NVIDIA defines later would then mean two things.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, WithJsonSchema, field_validator

from ..catalog import MIG_SIZES, SIZE_CLASSES
from .base import Model, unset
from .syntax import DNS_SUBDOMAIN, check_label_key

NVIDIA_GPU = "nvidia.com/gpu"
"""The device plugin's name for a whole GPU (or an A10 vGPU slice): what most GPU workloads ask for."""
NVIDIA_DOMAIN = "nvidia.com"
DEFAULT_DOMAIN = "aks-dra-vgpu.io"
DOMAIN_MAX = 253 - len("requests.")
"""The longest domain whose names pass IsExtendedResourceName (its `requests.<name>` prefix is a DNS subdomain)."""
NOT_SERVED = "none"
"""nvidiaGpu: the package's class maps nvidia.com/gpu and selects nothing, so such pods stay Pending."""
CHART_CLASS = "any"
"""nvidiaGpu: the chart's gpu.nvidia.com class serves nvidia.com/gpu: any GPU device, whatever its size."""


def extended_resource_name_problem(name: str) -> str | None:
    """Why `name` is not an extended resource name Kubernetes accepts (IsExtendedResourceName), or None."""
    _, slash, short = name.partition("/")
    if not slash:
        why = "it needs a domain, <domain>/<name> (e.g. 'nvidia.com/gpu')"
    elif "kubernetes.io/" in name:
        why = "it is in the kubernetes.io namespace, which Kubernetes keeps for its own resources"
    elif name.startswith("requests."):
        why = "it starts with 'requests.', which Kubernetes keeps for quota names"
    elif "/" in short or check_label_key(f"requests.{name}"):
        why = ("write <domain>/<name>, the domain a DNS subdomain and the name 1-63 characters, alphanumeric at both "
               "ends, with '-', '_' or '.' between")
    else:
        return None
    return f"'{name}' is not an extended resource name: {why}"


def mig_resource_name(profile: str) -> str:
    """`nvidia.com/mig-<profile>` as the GPU Operator's mixed strategy names a MIG profile ('+' becomes '.');
    ValueError with the reason when even that is no valid extended resource name."""
    name = f"{NVIDIA_DOMAIN}/" + f"mig-{profile}".replace("+", ".")
    problem = extended_resource_name_problem(name)
    if problem:
        raise ValueError(f"MIG profile '{profile}' gives no extended resource name: {problem}")
    return name


def a10_resource_name(domain: str, memory_gib: int) -> str:
    """The extended resource name of one A10 slice size: `<domain>/a10-<N>gib`."""
    return f"{domain}/a10-{memory_gib}gib"


def mig_profiles() -> list[str]:
    """Every MIG profile the catalog's GPUs are laid out in, smallest first (what nvidiaGpu may name)."""
    found = {(s.memory_gib, s.compute_units, s.profile) for size in MIG_SIZES.values() for s in size.gpu.slices.values()}
    return [profile for _, _, profile in sorted(found)]


def a10_size_of(value: str) -> int | None:
    """The A10 size class `value` names ('8GiB' -> 8), or None when it names none: exactly as the size classes are
    written, so '08GiB' or a number too long to read is told the choices, as any other word is."""
    return {f"{size}GiB": size for size in SIZE_CLASSES}.get(value)


def nvidia_gpu_values() -> list[str]:
    """Every value nvidiaGpu takes, whatever the pools (they narrow it): the A10 sizes, the MIG profiles, none, any."""
    return [*(f"{size}GiB" for size in SIZE_CLASSES), *mig_profiles(), NOT_SERVED, CHART_CLASS]


NvidiaGpuChoice = Annotated[str, WithJsonSchema({"type": "string", "enum": nvidia_gpu_values()})]
"""nvidiaGpu's text: offered as the closed set it is in the stack file's schema and the plugin's (checked below)."""


class ExtendedResourcesConfig(Model):
    """Serve pods written for the device plugin (`resources.limits: {nvidia.com/gpu: 1}`, `nvidia.com/mig-3g.40gb`)
    with DRA slices of a stated size: one DeviceClass per name (Kubernetes 1.36 or newer on the cluster and every
    pool; docs/extended-resources.md)."""

    slices: bool = Field(
        True,
        description="Map a name to every slice the pools offer: '<domain>/a10-<N>gib' per A10 slice size, and "
        "'nvidia.com/mig-<profile>' per MIG profile the MIG pools lay out (the GPU Operator's mixed-strategy names), "
        "each selecting exactly that size or profile.",
    )
    domain: str = Field(
        DEFAULT_DOMAIN,
        description="Domain of the A10 slice names ('<domain>/a10-8gib'). NVIDIA defines no per-size names, and owns "
        "nvidia.com, so that domain is refused here.",
    )
    nvidia_gpu: NvidiaGpuChoice | None = unset(
        "What a pod asking for nvidia.com/gpu gets: an A10 slice size the pools offer ('8GiB'), a MIG profile the MIG "
        "pools lay out ('3g.40gb'), 'none' (not served: such pods stay Pending with the scheduler's reason), or 'any' "
        "(the driver chart's gpu.nvidia.com class: any GPU device, whatever its size). Unset: the chart's class "
        "serves it where the chart maps it, and plan warns.",
    )

    @field_validator("domain")
    @classmethod
    def _domain(cls, v: str) -> str:
        if len(v) > DOMAIN_MAX:  # IsExtendedResourceName checks 'requests.<domain>/...' as a 253-character prefix
            raise ValueError(f"is {len(v)} characters; a domain of extended resource names is at most {DOMAIN_MAX} "
                             f"(Kubernetes checks 'requests.<domain>' as a DNS subdomain of at most 253)")
        if not DNS_SUBDOMAIN.fullmatch(v):
            raise ValueError(f"'{v}' is not a domain; write a DNS subdomain (lowercase letters, digits, '-' and '.', "
                             f"each part starting and ending with a letter or digit) such as '{DEFAULT_DOMAIN}'")
        if v == NVIDIA_DOMAIN or v.endswith(f".{NVIDIA_DOMAIN}"):
            raise ValueError(f"'{v}' is NVIDIA's domain, which defines no per-size A10 names; choose a domain of your "
                             f"own, e.g. '{DEFAULT_DOMAIN}'")
        problem = extended_resource_name_problem(a10_resource_name(v, max(SIZE_CLASSES)))
        if problem:
            raise ValueError(f"'{v}' gives no valid names: {problem}")
        return v

    @field_validator("nvidia_gpu")
    @classmethod
    def _nvidia_gpu(cls, v: str | None) -> str | None:
        if v is None or v in (NOT_SERVED, CHART_CLASS) or a10_size_of(v) or v in mig_profiles():
            return v
        sizes = ", ".join(f"{size}GiB" for size in SIZE_CLASSES)
        raise ValueError(f"'{v}' is not an A10 slice size ({sizes}), a MIG profile ({', '.join(mig_profiles())}), "
                         f"'{NOT_SERVED}' or '{CHART_CLASS}'")


# --- the package's DeviceClass names ---------------------------------------------------------------------------------
# Fixed names, all under one prefix that sorts before the chart's `gpu.nvidia.com`: the scheduler's tie-break for two
# classes created in the same second is the lower name (kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-
# allocation/deviceclass/extendedresourcecache/extendedresourcecache.go, updateResourceName2class).
CLASS_PREFIX = "aks-dra-vgpu"
NVIDIA_GPU_CLASS = f"{CLASS_PREFIX}-nvidia-gpu"
"""The package's class for nvidia.com/gpu (nvidiaGpu a size, a profile, or 'none')."""


def a10_class_name(memory_gib: int) -> str:
    """The package's DeviceClass for one A10 slice size: `aks-dra-vgpu-a10-8gib`."""
    return f"{CLASS_PREFIX}-a10-{memory_gib}gib"


def mig_class_name(profile: str) -> str:
    """The package's DeviceClass for one MIG profile: `aks-dra-vgpu-mig-3g.40gb` (named after its resource name)."""
    return f"{CLASS_PREFIX}-{mig_resource_name(profile).partition('/')[2]}"
