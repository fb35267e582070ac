"""What TypeScript, Go, C#, Java and YAML see of the package: the multi-language schema, declared in Python types.

`pulumi.provider.experimental` derives a package schema from annotations (pulumi/pulumi
`sdk/python/lib/pulumi/provider/experimental/analyzer.py`): a component's inputs from its `__init__`'s `args`, a
TypedDict whose key docstrings become descriptions; its outputs from the class's annotated attributes. The enums they
use are in `provider_enums.py`, the settings types in `provider_types.py`. The analyzer has no way to mark a property
secret: `SECRET_OUTPUTS` lists those, and the host marks them in the schema it serves.

Only declarations live here: the classes below are never instantiated. The host (`provider_host.py`) builds the
package's own component for each, so a component is one resource with one type token in every language. The analyzer
evaluates the annotations at run time, so this module does not use `from __future__ import annotations`.
"""

from typing import Any, TypedDict

import pulumi

from ..config import PROJECT
from .enums import ChartVersion, Fit, OsDiskType, OsSku, OsType, ScaleDownMode, VmSize
from .types import Autoscaling, ClusterSettings, DraDriverSettings, GpuPool, SamplesSettings, Spot

PACKAGE = PROJECT
"""The Pulumi package name: the first part of every type token (``aks-dra-vgpu:index:GpuNodePool``)."""


# --- component arguments (their keys become the components' input properties) -----------------------------------------
# GpuPool's keys are restated, not inherited: the analyzer reads key docstrings from the class's own body, so keys a
# TypedDict inherits reach the schema without descriptions. tests/test_provider_schema.py keeps both in step.
class GpuNodePoolInputs(TypedDict):
    """A GPU pool's settings (a GpuPool's keys) plus the cluster it joins."""

    name: str
    """Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters."""
    vm_size: VmSize
    """The NVadsA10_v5 size: how big a slice of an A10 each node presents."""
    count: int | None
    """Node count (0-1000). With autoscaling, the initial count only (default minCount); never diffed."""
    autoscaling: Autoscaling | None
    """Turn on the cluster autoscaler with these bounds."""
    zones: list[str] | None
    """Availability zones ('1', '2', '3'); immutable (a change replaces the pool)."""
    labels: dict[str, str] | None
    """Extra node labels; nvidia.com/gpu.present=true is always added."""
    taints: list[str] | None
    """Node taints, 'key=value:Effect'; the DRA plugin and samples tolerate them."""
    max_pods: int | None
    """Maximum pods per node (10-250, default 110); immutable."""
    os_type: OsType | None
    """The node OS (Linux, the only choice: the DRA driver runs only there)."""
    os_sku: OsSku | None
    """Node OS image (default Ubuntu); immutable."""
    os_disk_size_gb: int | None
    """OS disk size in GB (default 128)."""
    max_surge: str | None
    """Upgrade surge: extra nodes during upgrades, a number or a percentage (default '1'); not for spot pools."""
    spot: Spot | None
    """Run on Spot VMs; AKS labels and taints spot nodes and the DRA plugin and samples tolerate it. Fixed at creation."""
    scale_down_mode: ScaleDownMode | None
    """What scaling down does to a VM: Delete (AKS's default) or Deallocate (needs Managed OS disks)."""
    os_disk_type: OsDiskType | None
    """OS disk: Ephemeral or Managed; unset lets AKS pick. Fixed at creation."""
    capacity_reservation_group_id: str | None
    """ARM ID of a capacity reservation group whose reserved NVadsA10_v5 capacity the VMs use. Fixed at creation."""
    vnet_subnet_id: str | None
    """ARM ID of the subnet for this pool's nodes; default cluster.network.vnetSubnetId (same virtual network)."""
    tags: dict[str, str] | None
    """Azure tags for the pool's VM scale set, merged over the cluster's tags (these win)."""
    kubernetes_version: str | None
    """Pin the pool's Kubernetes version for a staged rollout; default: the cluster's (never newer, at most 2 behind)."""
    cluster_name: pulumi.Input[str]
    """Name of the ManagedCluster the pool joins, e.g. an AksCluster's clusterName."""
    resource_group_name: pulumi.Input[str]
    """Resource group of that cluster, e.g. an AksCluster's resourceGroupName."""
    cluster_kubernetes_version: str | None
    """The control plane's Kubernetes version, e.g. an AksCluster's: the pool follows it unless it pins its own."""


class NvidiaDraDriverInputs(TypedDict):
    """The driver's settings plus the GPU pools it serves (their labels and taints shape the kubelet plugin)."""

    enabled: bool | None
    """Install this package's driver release; false leaves the driver to someone else (e.g. AKS's managed DRA driver)."""
    chart_version: ChartVersion | None
    """Chart version (default 0.4.1)."""
    namespace: pulumi.Input[str] | None
    """Namespace of the release, e.g. a Namespace you manage (never 'default'; default 'nvidia-dra-driver-gpu')."""
    release_name: str | None
    """Helm release name (default 'nvidia-dra-driver-gpu')."""
    compute_domains: bool | None
    """Install the ComputeDomain controller (multi-node NVLink/IMEX; meaningless on A10 vGPU)."""
    feature_gates: dict[str, bool] | None
    """Extra driver feature gates; only gates the chart version knows."""
    host_driver_version: str | None
    """NVIDIA driver version the GPU nodes run, if not AKS's GRID 550/570 (e.g. '580.65.06')."""
    timeout_seconds: int | None
    """How long Helm waits for the release (60-3600 s, default 600)."""
    extra_values: dict[str, Any] | None
    """Helm values merged in last; cannot drop the flags A10 vGPU needs."""
    pools: list[GpuPool]
    """The GPU pools whose nodes run the kubelet plugin (at least one): the same GpuPool values the GpuNodePools take."""


class DraSamplesInputs(TypedDict):
    """The samples' settings plus the GPU pools they target (their slice sizes and taints)."""

    namespace: str | None
    """Namespace for the claims and the sample Job (default 'dra-samples')."""
    device_class_name: str | None
    """DeviceClass for A10 vGPUs (default 'a10-vgpu'); must not reuse a chart-created name."""
    memory_margin_percent: int | None
    """How far below nominal a slice's reported GPU memory may read and still match (0-25 %, default 10)."""
    fit: Fit | None
    """How claim templates pick a slice: bestFit (default; larger only when none is free) or exact."""
    shared_claim: bool | None
    """Create a ResourceClaim that several pods share (one vGPU)."""
    workload: bool | None
    """Run the sample Job (nvidia-smi -L on a claimed vGPU)."""
    workload_memory_gib: int | None
    """GPU memory (GiB) the sample Job asks for; default: the smallest pool's slice."""
    image: str | None
    """Image of the sample Job: any glibc-based image (the driver injects nvidia-smi); pin a digest in production."""
    extended_resource_name: str | None
    """Kubernetes 1.36+: the DeviceClass also serves pods asking for this extended resource (e.g. 'nvidia.com/gpu')."""
    pools: list[GpuPool]
    """The GPU pools the claims and the Job may land on (at least one): the same GpuPool values the GpuNodePools take."""
    kubernetes_version: str | None
    """The cluster's Kubernetes version (major.minor), e.g. an AksCluster's; needed only with extendedResourceName."""


class GpuPlatformInputs(TypedDict):
    """Everything one environment declares: cluster, GPU pools, DRA driver and samples."""

    cluster: ClusterSettings
    """The AKS cluster."""
    gpu_pools: list[GpuPool]
    """GPU node pools (at least one)."""
    dra_driver: DraDriverSettings | None
    """The NVIDIA DRA driver release."""
    samples: SamplesSettings | None
    """DRA sample objects."""


# --- the components: their inputs (args) and outputs (annotated attributes) ---------------------------------------------
class _Declaration(pulumi.ComponentResource):
    """A component as the schema describes it; the host builds the package's component of the same name instead."""

    def __init__(self, name: str, args: Any, opts: pulumi.ResourceOptions | None = None) -> None:
        raise TypeError(f"{type(self).__name__} here only declares the schema; use the package's {type(self).__name__}")


class AksCluster(_Declaration):
    """An AKS cluster for DRA (Kubernetes >= 1.34) with one inline system pool; build a Kubernetes provider from it."""

    resource_group_name: pulumi.Output[str]
    """The resource group the cluster lives in."""
    cluster_name: pulumi.Output[str]
    """The ManagedCluster's name."""
    cluster_id: pulumi.Output[str]
    """The ManagedCluster's ARM id."""
    resource_uid: pulumi.Output[str]
    """The ManagedCluster's resourceUID: changes only when the cluster is replaced."""
    oidc_issuer_url: pulumi.Output[str]
    """The cluster's OIDC issuer (for workload identity federation)."""
    kubeconfig: pulumi.Output[str]
    """A user kubeconfig as AKS hands it out (secret); with Entra ID it logs in by device code, for people only."""
    provider_kubeconfig: pulumi.Output[str]
    """The kubeconfig for a Kubernetes provider and CI (secret): with Entra ID, a non-interactive kubelogin login."""

    def __init__(self, name: str, args: ClusterSettings, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(name, args, opts)


class GpuNodePool(_Declaration):
    """One NVadsA10_v5 pool in an AKS cluster, labelled for the NVIDIA DRA driver: every node presents A10 vGPU slices."""

    pool_name: pulumi.Output[str]
    """The AKS agent pool name."""
    node_labels: dict[str, str]
    """Labels every node carries (includes nvidia.com/gpu.present=true)."""
    taints: list[str]
    """Taints every node carries ('key=value:Effect'); GPU workloads must tolerate them."""
    gpu_memory_gib: int
    """Nominal GPU memory (GiB) of each vGPU device on this pool's nodes."""
    devices_per_node: int
    """vGPU devices each node presents."""

    def __init__(self, name: str, args: GpuNodePoolInputs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(name, args, opts)


class NvidiaDraDriver(_Declaration):
    """The NVIDIA DRA driver (Helm release) set up for A10 vGPU on AKS; needs an explicit Kubernetes provider."""

    release_name: pulumi.Output[str]
    """The Helm release's name."""
    namespace: pulumi.Output[str]
    """The namespace the driver runs in."""
    chart_version: str
    """The pinned chart version."""
    values: dict[str, Any]
    """The exact Helm values passed to the release."""

    def __init__(self, name: str, args: NvidiaDraDriverInputs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(name, args, opts)


class DraSamples(_Declaration):
    """DRA objects for A10 vGPUs: DeviceClass, claim templates per slice size, shared claim, sample Job; needs a provider."""

    device_class_name: pulumi.Output[str]
    """The DeviceClass that selects A10 vGPU devices."""
    claim_template_names: dict[str, pulumi.Output[str]]
    """ResourceClaimTemplate per minimum slice size, keyed like '8GiB'."""
    shared_claim_name: pulumi.Output[str] | None
    """The ResourceClaim several pods can share, when enabled."""
    job_name: pulumi.Output[str] | None
    """The sample Job, when enabled."""
    namespace: pulumi.Output[str]
    """The namespace of the claims and the Job."""

    def __init__(self, name: str, args: DraSamplesInputs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(name, args, opts)


class GpuPlatform(_Declaration):
    """AKS + NVadsA10_v5 pools + the NVIDIA DRA driver + DRA samples: the AKS team's DRA-over-vGPU recipe in one."""

    cluster_name: pulumi.Output[str]
    """The ManagedCluster's name."""
    resource_group_name: pulumi.Output[str]
    """The resource group the cluster lives in."""
    cluster_id: pulumi.Output[str]
    """The ManagedCluster's ARM id."""
    resource_uid: pulumi.Output[str]
    """The ManagedCluster's resourceUID: changes only when the cluster is replaced."""
    kubeconfig: pulumi.Output[str]
    """A user kubeconfig as AKS hands it out (secret); with Entra ID it logs in by device code, for people only."""
    provider_kubeconfig: pulumi.Output[str]
    """The kubeconfig the platform's Kubernetes provider uses (secret), for other programs and CI: never interactive."""
    gpu_pools: list[pulumi.Output[str]]
    """The GPU pools' agent pool names, in input order."""
    dra_driver_release: pulumi.Output[str]
    """The NVIDIA DRA driver's Helm release name."""
    device_class_name: pulumi.Output[str] | None
    """The DeviceClass that selects A10 vGPU devices, when the samples are enabled."""
    claim_template_names: dict[str, pulumi.Output[str]] | None
    """ResourceClaimTemplate per minimum slice size, keyed like '8GiB', when the samples are enabled."""
    shared_claim_name: pulumi.Output[str] | None
    """The ResourceClaim several pods can share, when the samples and the shared claim are enabled."""
    samples_namespace: pulumi.Output[str] | None
    """The namespace of the sample claims and Job, when the samples are enabled."""

    def __init__(self, name: str, args: GpuPlatformInputs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(name, args, opts)


DECLARATIONS: list[type[pulumi.ComponentResource]] = [AksCluster, GpuNodePool, NvidiaDraDriver, DraSamples, GpuPlatform]
"""What the plugin serves, in schema order."""

SECRET_OUTPUTS: dict[str, tuple[str, ...]] = {
    "AksCluster": ("kubeconfig", "providerKubeconfig"),
    "GpuPlatform": ("kubeconfig", "providerKubeconfig"),
}
"""Outputs every SDK must treat as secret (schema ``secret: true``), by component."""
