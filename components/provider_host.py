"""Multi-language use: the package's components served to TypeScript, Go, C#, Java and YAML stacks.

`pulumi package add <this repository>` starts the plugin (PulumiPlugin.yaml -> provider/__main__.py -> `main()` here),
which hosts the classes below through `pulumi.provider.experimental.component_provider_host`. The host derives the
package schema from type annotations: inputs from `__init__(self, name, args: SomeInputs, opts=None)` where
`SomeInputs` is a TypedDict (property descriptions are the docstrings under each key), outputs from the annotated
class attributes.

A thin layer, not a second implementation. Each hosted class takes the plain dict the host hands it, validates it into
the package's pydantic args (same rules, same messages as in Python, reported before anything is registered) and
builds the Python component of the same name as its only child. Why wrappers at all: the host needs TypedDict args and
annotations it can evaluate at run time, while the Python components take pydantic models and postpone their
annotations. For the same reason this module does not use `from __future__ import annotations`.

Optional keys are written `X | None` (the host's analyzer reads that as optional in every SDK version that has it).
Plain settings are plain in the schema (SDKs take literal values, validated at construction); only values that come
from other resources (`clusterName`, `resourceGroupName`) are inputs. Kubernetes objects go through the provider the
caller passes (`providers: {kubernetes: ...}`), never an ambient KUBECONFIG.
"""

import inspect
import typing
from collections.abc import Mapping
from typing import Any, TypedDict

import pulumi
from pydantic import BaseModel

from . import __version__
from . import cluster as _cluster
from . import dra_driver as _dra_driver
from . import dra_samples as _dra_samples
from . import gpu_pool as _gpu_pool
from . import platform as _platform
from .config import PROJECT, ConfigError, StackConfig, validate
from .providers import require_kubernetes_provider

PACKAGE = PROJECT
"""The Pulumi package name: the first part of every type token (``aks-dra-vgpu:index:GpuNodePool``)."""


# --- input types ------------------------------------------------------------------------------------------------------
class ResourceGroup(TypedDict):
    """Where the cluster lives: a resource group this stack creates, or an existing one it only references."""

    name: str
    """Resource group name (1-90 characters: letters, digits, '-', '_', '.', '(', ')')."""
    create: bool | None
    """Create the group (true, default) or use an existing group of that name (false)."""


class SystemPool(TypedDict):
    """The cluster's one inline pool: System mode, for cluster add-ons (GPU pools are never inline)."""

    name: str | None
    """Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters (default 'system')."""
    vm_size: str | None
    """VM size of the system nodes (default Standard_D4ds_v5)."""
    count: int | None
    """Number of system nodes (1-1000, default 1)."""
    zones: list[str] | None
    """Availability zones to spread the system nodes over ('1', '2', '3')."""
    max_pods: int | None
    """Maximum pods per node (10-250, default 110); immutable."""
    os_disk_size_gb: int | None
    """OS disk size in GB (default 128)."""
    critical_addons_only: bool | None
    """Taint the system nodes CriticalAddonsOnly=true:NoSchedule (AKS best practice for busy clusters)."""


class ClusterAuth(TypedDict):
    """How Kubernetes API access is authenticated."""

    mode: str | None
    """'localAccounts' (default, cluster-local credentials) or 'entraId' (Entra ID, Azure RBAC, no local accounts)."""
    admin_group_object_ids: list[str] | None
    """Entra ID group object IDs that are cluster admins (entraId only)."""
    login_mode: str | None
    """kubelogin's login mode for the provider (entraId only): 'azurecli' (default), 'workloadidentity' or 'spn'."""
    tenant_id: str | None
    """Entra ID tenant for kubelogin's --tenant-id (entraId only); default: the login's own tenant."""
    client_id: str | None
    """Application (client) ID kubelogin signs in as, for spn and workloadidentity (entraId only); never a secret."""
    environment: str | None
    """Azure cloud for spn logins, e.g. 'AzurePublicCloud' (entraId only); default: the cloud in the kubeconfig."""


class ClusterNetwork(TypedDict):
    """Where the nodes live: a subnet of your own virtual network, or (unset) a network AKS creates."""

    vnet_subnet_id: str | None
    """ARM ID of an existing subnet for the system pool's and every GPU pool's nodes (a pool's own overrides it)."""


class ApiServer(TypedDict):
    """Who can reach the Kubernetes API server (apiServerAccessProfile)."""

    authorized_ip_ranges: list[str] | None
    """CIDR ranges allowed to reach the public API server (at most 200); [] removes the restriction."""
    private: bool | None
    """A private cluster: the API server has only a private IP; fixed at creation (default false)."""


class MaintenanceWindow(TypedDict):
    """A weekly window in which AKS may run the automatic upgrades this stack turns on."""

    day_of_week: str
    """Day the window opens: 'Monday' ... 'Sunday'."""
    start_time: str
    """Time the window opens, 'HH:MM' (00:00-23:59) in utcOffset's time zone."""
    duration_hours: int | None
    """Length of the window in hours (4-24, default 4)."""
    utc_offset: str | None
    """Time zone of startTime, '+HH:MM' or '-HH:MM' (default '+00:00')."""


class Upgrades(TypedDict):
    """Automatic upgrades: which channels AKS follows and when it may act."""

    channel: str | None
    """Kubernetes auto-upgrade channel: 'none', 'patch', 'stable', 'rapid' or 'node-image'."""
    node_os_channel: str | None
    """Node OS auto-upgrade channel: 'None', 'Unmanaged', 'NodeImage' (AKS's default) or 'SecurityPatch'."""
    maintenance_window: MaintenanceWindow | None
    """Weekly window for the channels set here (AKS's aksManagedAutoUpgradeSchedule / aksManagedNodeOSUpgradeSchedule)."""


class Monitoring(TypedDict):
    """Cluster monitoring add-ons."""

    managed_prometheus: bool | None
    """Azure Monitor managed Prometheus on (true) or off (false); unset leaves it as it is."""


class ClusterSettings(TypedDict):
    """The AKS cluster: Kubernetes version, location, resource group, system pool, access."""

    name: str
    """ManagedCluster name (1-63: letters, digits, '-', '_')."""
    location: str
    """Azure region, e.g. 'westeurope' (must offer NVadsA10_v5)."""
    resource_group: ResourceGroup
    """The resource group to create or use."""
    kubernetes_version: str | None
    """Kubernetes version, major.minor[.patch]; 1.34 or newer (DRA resource.k8s.io/v1 is GA). Default '1.34'."""
    dns_prefix: str | None
    """DNS prefix of the API server (immutable); defaults to the cluster name."""
    sku_tier: str | None
    """AKS control-plane tier: 'Free' (default), 'Standard' or 'Premium'."""
    system_pool: SystemPool | None
    """The inline System pool."""
    auth: ClusterAuth | None
    """Kubernetes API authentication."""
    protect: bool | None
    """Protect the cluster (and a resource group this stack creates) from deletion and replacement."""
    retain_on_delete: bool | None
    """When Pulumi deletes the cluster (and a created resource group), keep them in Azure and only forget them."""
    tags: dict[str, str] | None
    """Azure tags for the resource group, the cluster and every GPU pool (a pool's own tags win)."""
    network: ClusterNetwork | None
    """The nodes' virtual network."""
    api_server: ApiServer | None
    """Kubernetes API server access."""
    upgrades: Upgrades | None
    """Automatic upgrades and their window."""
    monitoring: Monitoring | None
    """Monitoring add-ons."""
    identity_id: str | None
    """ARM ID of a user-assigned managed identity for the control plane (needed for capacity reservation groups)."""
    node_resource_group: str | None
    """Name of the resource group AKS creates for the nodes (must not exist yet); fixed at creation."""


class Autoscaling(TypedDict):
    """Cluster-autoscaler bounds; with autoscaling the node count is the autoscaler's, never drift."""

    min_count: int
    """Fewest nodes (0-1000; 0 lets the pool scale to zero)."""
    max_count: int
    """Most nodes (1-1000), at least minCount."""


class Spot(TypedDict):
    """Run the pool on Azure Spot VMs: far cheaper, no SLA, evicted whenever Azure needs the capacity back."""

    eviction_policy: str | None
    """What happens to an evicted VM: 'Delete' (default) or 'Deallocate'."""
    max_price: float | None
    """Highest price per VM-hour in US dollars; -1 (default) pays up to the pay-as-you-go price."""


class GpuPool(TypedDict):
    """A GPU node pool of one NVadsA10_v5 size: every node presents fixed A10 vGPU slices to the DRA driver."""

    name: str
    """Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters."""
    vm_size: str
    """An NVadsA10_v5 size, e.g. Standard_NV6ads_A10_v5 (1/6 A10), Standard_NV12ads_A10_v5 (1/3), Standard_NV36ads_A10_v5."""
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
    os_type: str | None
    """'Linux' (the only choice: the DRA driver runs only there)."""
    os_sku: str | None
    """Node OS image: 'Ubuntu' (default) or 'AzureLinux'; immutable."""
    os_disk_size_gb: int | None
    """OS disk size in GB (default 128)."""
    max_surge: str | None
    """Upgrade surge: extra nodes during upgrades, a number or a percentage (default '1'; none for spot pools)."""
    spot: Spot | None
    """Run on Spot VMs; the DRA plugin and samples tolerate AKS's spot taint. Fixed at creation."""
    scale_down_mode: str | None
    """What scaling down does to a VM: 'Delete' (AKS's default) or 'Deallocate' (stopped, managed OS disk kept)."""
    os_disk_type: str | None
    """OS disk: 'Ephemeral' (on the temp disk, checked against the size) or 'Managed'; unset: AKS decides."""
    capacity_reservation_group_id: str | None
    """ARM ID of a capacity reservation group whose reserved capacity the pool's VMs use. Fixed at creation."""
    vnet_subnet_id: str | None
    """ARM ID of the subnet for this pool's nodes; default the cluster's (same virtual network)."""
    tags: dict[str, str] | None
    """Azure tags for the pool's VM scale set (on a GpuPlatform, merged over cluster.tags)."""
    kubernetes_version: str | None
    """Pin this pool's Kubernetes version for a staged rollout (default: the cluster's)."""


class DraDriverSettings(TypedDict):
    """The NVIDIA DRA driver Helm release."""

    enabled: bool | None
    """Install this package's driver release (default true); false leaves the driver to AKS's managed one."""
    chart_version: str | None
    """Chart version: '0.4.1' (default, the maintained kubernetes-sigs chart), '25.8.1' or '25.12.0'."""
    namespace: str | None
    """Namespace of the release (never 'default'; default 'nvidia-dra-driver-gpu')."""
    release_name: str | None
    """Helm release name (default 'nvidia-dra-driver-gpu')."""
    compute_domains: bool | None
    """Install the ComputeDomain controller (multi-node NVLink/IMEX; meaningless on A10 vGPU)."""
    feature_gates: dict[str, bool] | None
    """Extra driver feature gates; only gates the chart version knows."""
    host_driver_version: str | None
    """NVIDIA driver version the GPU nodes run (default: AKS's GRID driver for A10); checked against the chart's minimum."""
    timeout_seconds: int | None
    """How long Helm waits for the release (60-3600 s, default 600)."""
    extra_values: dict[str, Any] | None
    """Helm values merged in last; cannot drop the flags A10 vGPU needs."""


class SamplesSettings(TypedDict):
    """The resource.k8s.io/v1 objects that show and use the A10 vGPUs: DeviceClass, claim templates, a shared claim, a Job."""

    enabled: bool | None
    """Create the samples at all (default true)."""
    namespace: str | None
    """Namespace for the claims and the sample Job (default 'dra-samples')."""
    device_class_name: str | None
    """DeviceClass for A10 vGPUs (default 'a10-vgpu'); must not reuse a chart-created name."""
    memory_margin_percent: int | None
    """How far below nominal a slice's reported GPU memory may read and still match (0-25 %, default 10)."""
    fit: str | None
    """How claim templates pick a slice: 'bestFit' (default; own size first, larger only when none is free) or 'exact'."""
    shared_claim: bool | None
    """Create a ResourceClaim that several pods share (one vGPU)."""
    workload: bool | None
    """Run the sample Job (nvidia-smi -L on a claimed vGPU)."""
    workload_memory_gib: int | None
    """GPU memory (GiB) the sample Job asks for; default: the smallest pool's slice."""
    image: str | None
    """Image of the sample Job: any glibc-based image (the driver injects nvidia-smi); pin a digest in production."""
    extended_resource_name: str | None
    """Kubernetes 1.36+ only: the extended resource (e.g. 'nvidia.com/gpu') the DeviceClass serves with DRA devices."""


# --- component arguments (their keys become the components' input properties) -----------------------------------------
class GpuNodePoolInputs(TypedDict):
    """A GPU pool's settings plus the cluster it joins."""

    name: str
    """Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters."""
    vm_size: str
    """An NVadsA10_v5 size, e.g. Standard_NV6ads_A10_v5 (1/6 A10), Standard_NV12ads_A10_v5 (1/3), Standard_NV36ads_A10_v5."""
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
    os_type: str | None
    """'Linux' (the only choice: the DRA driver runs only there)."""
    os_sku: str | None
    """Node OS image: 'Ubuntu' (default) or 'AzureLinux'; immutable."""
    os_disk_size_gb: int | None
    """OS disk size in GB (default 128)."""
    max_surge: str | None
    """Upgrade surge: extra nodes during upgrades, a number or a percentage (default '1'; none for spot pools)."""
    spot: Spot | None
    """Run on Spot VMs; the DRA plugin and samples tolerate AKS's spot taint. Fixed at creation."""
    scale_down_mode: str | None
    """What scaling down does to a VM: 'Delete' (AKS's default) or 'Deallocate' (stopped, managed OS disk kept)."""
    os_disk_type: str | None
    """OS disk: 'Ephemeral' (on the temp disk, checked against the size) or 'Managed'; unset: AKS decides."""
    capacity_reservation_group_id: str | None
    """ARM ID of a capacity reservation group whose reserved capacity the pool's VMs use. Fixed at creation."""
    vnet_subnet_id: str | None
    """ARM ID of the subnet for this pool's nodes; default the cluster's (same virtual network)."""
    tags: dict[str, str] | None
    """Azure tags for the pool's VM scale set (on a GpuPlatform, merged over cluster.tags)."""
    kubernetes_version: str | None
    """Pin this pool's Kubernetes version for a staged rollout (default: the cluster's)."""
    cluster_kubernetes_version: str | None
    """The control plane's Kubernetes version; the pool follows it unless it pins kubernetes_version."""
    cluster_name: pulumi.Input[str]
    """Name of the ManagedCluster the pool joins."""
    resource_group_name: pulumi.Input[str]
    """Resource group of that cluster."""


class NvidiaDraDriverInputs(TypedDict):
    """The driver's settings plus the GPU pools it serves (their labels and taints shape the kubelet plugin)."""

    chart_version: str | None
    """Chart version: '0.4.1' (default, the maintained kubernetes-sigs chart), '25.8.1' or '25.12.0'."""
    namespace: str | None
    """Namespace of the release (never 'default'; default 'nvidia-dra-driver-gpu')."""
    release_name: str | None
    """Helm release name (default 'nvidia-dra-driver-gpu')."""
    compute_domains: bool | None
    """Install the ComputeDomain controller (multi-node NVLink/IMEX; meaningless on A10 vGPU)."""
    feature_gates: dict[str, bool] | None
    """Extra driver feature gates; only gates the chart version knows."""
    host_driver_version: str | None
    """NVIDIA driver version the GPU nodes run (default: AKS's GRID driver for A10); checked against the chart's minimum."""
    timeout_seconds: int | None
    """How long Helm waits for the release (60-3600 s, default 600)."""
    extra_values: dict[str, Any] | None
    """Helm values merged in last; cannot drop the flags A10 vGPU needs."""
    pools: list[GpuPool]
    """The GPU pools whose nodes run the kubelet plugin (at least one)."""


class DraSamplesInputs(TypedDict):
    """The samples' settings plus the GPU pools they target (their slice sizes and taints)."""

    namespace: str | None
    """Namespace for the claims and the sample Job (default 'dra-samples')."""
    device_class_name: str | None
    """DeviceClass for A10 vGPUs (default 'a10-vgpu'); must not reuse a chart-created name."""
    memory_margin_percent: int | None
    """How far below nominal a slice's reported GPU memory may read and still match (0-25 %, default 10)."""
    fit: str | None
    """How claim templates pick a slice: 'bestFit' (default; own size first, larger only when none is free) or 'exact'."""
    shared_claim: bool | None
    """Create a ResourceClaim that several pods share (one vGPU)."""
    workload: bool | None
    """Run the sample Job (nvidia-smi -L on a claimed vGPU)."""
    workload_memory_gib: int | None
    """GPU memory (GiB) the sample Job asks for; default: the smallest pool's slice."""
    image: str | None
    """Image of the sample Job: any glibc-based image (the driver injects nvidia-smi); pin a digest in production."""
    extended_resource_name: str | None
    """Kubernetes 1.36+ only: the extended resource (e.g. 'nvidia.com/gpu') the DeviceClass serves with DRA devices."""
    pools: list[GpuPool]
    """The GPU pools the claims and the Job may land on (at least one)."""
    kubernetes_version: str | None
    """The cluster's Kubernetes version (major.minor); needed only with extended_resource_name."""


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


# --- from the host's plain dicts to the package's pydantic args ---------------------------------------------------------
def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model a field holds (directly, optionally, or as list items), if any."""
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
        inner = typing.get_args(candidate)
        if typing.get_origin(candidate) is list and inner and isinstance(inner[0], type) and issubclass(inner[0], BaseModel):
            return inner[0]
    return None


def to_config_keys(model: type[BaseModel], data: Mapping[str, Any]) -> dict[str, Any]:
    """Renames the host's snake_case keys to the model's camelCase aliases, model by model.

    Only keys of the models themselves are renamed: user maps (labels, tags, featureGates, extraValues) keep their keys.
    Validating by alias makes every error name the key as a multi-language user writes it (``gpuPools[0].vmSize``).
    """
    out: dict[str, Any] = {}
    for key, value in data.items():
        field = model.model_fields.get(key)
        if field is None:
            out[key] = value  # unknown: pydantic reports it, with the keys that are allowed
            continue
        sub = _nested_model(field.annotation)
        if sub is not None and isinstance(value, Mapping):
            value = to_config_keys(sub, value)
        elif sub is not None and isinstance(value, list):
            value = [to_config_keys(sub, v) if isinstance(v, Mapping) else v for v in value]
        out[field.alias or key] = value
    return out


def validated(model: type[BaseModel], args: Mapping[str, Any], component: str) -> Any:
    """The pydantic args for a hosted component, or one InputPropertiesError that lists every problem.

    The host reports only an error's message to the caller, so the message itself carries one line per problem.
    """
    try:
        return validate(model, to_config_keys(model, args))
    except ConfigError as error:
        lines = "\n".join(f"  {p}" for p in error.problems)
        raise pulumi.InputPropertiesError(
            f"invalid {component} arguments:\n{lines}",
            [{"property_path": p.path, "reason": p.message} for p in error.problems],
        ) from None


def _token(component: type) -> str:
    return f"{PACKAGE}:index:{component.__name__}"


# --- the hosted components ----------------------------------------------------------------------------------------------
class AksCluster(pulumi.ComponentResource):
    """An AKS cluster for DRA (Kubernetes >= 1.34) with one inline system pool; build a Kubernetes provider from it."""

    resource_group_name: pulumi.Output[str]
    """The resource group the cluster lives in."""
    cluster_name: pulumi.Output[str]
    """The ManagedCluster's name."""
    cluster_id: pulumi.Output[str]
    """The ManagedCluster's ARM id."""
    oidc_issuer_url: pulumi.Output[str]
    """The cluster's OIDC issuer (for workload identity federation)."""
    kubeconfig: pulumi.Output[str]
    """A user kubeconfig for the cluster, as AKS hands it out (secret)."""
    provider_kubeconfig: pulumi.Output[str]
    """The kubeconfig for a Kubernetes provider (secret): with Entra ID, a non-interactive kubelogin login."""

    def __init__(self, name: str, args: ClusterSettings, opts: pulumi.ResourceOptions | None = None) -> None:
        config = validated(_cluster.AksClusterArgs, args, "AksCluster")
        super().__init__(_token(AksCluster), name, None, opts)
        inner = _cluster.AksCluster(name, config, pulumi.ResourceOptions(parent=self))
        self.resource_group_name = inner.resource_group_name
        self.cluster_name = inner.cluster_name
        self.cluster_id = inner.cluster_id
        self.oidc_issuer_url = inner.oidc_issuer_url
        self.kubeconfig = inner.kubeconfig
        self.provider_kubeconfig = inner.provider_kubeconfig
        self.register_outputs(
            {
                "resourceGroupName": self.resource_group_name,
                "clusterName": self.cluster_name,
                "clusterId": self.cluster_id,
                "oidcIssuerUrl": self.oidc_issuer_url,
                "kubeconfig": self.kubeconfig,
                "providerKubeconfig": self.provider_kubeconfig,
            }
        )


class GpuNodePool(pulumi.ComponentResource):
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
        config = validated(_gpu_pool.GpuNodePoolArgs, args, "GpuNodePool")
        super().__init__(_token(GpuNodePool), name, None, opts)
        inner = _gpu_pool.GpuNodePool(name, config, pulumi.ResourceOptions(parent=self))
        self.pool_name = inner.pool_name
        self.node_labels = dict(inner.node_labels)
        self.taints = [str(t) for t in inner.taints]
        self.gpu_memory_gib = inner.gpu_memory_gib
        self.devices_per_node = inner.devices_per_node
        self.register_outputs(
            {
                "poolName": self.pool_name,
                "nodeLabels": self.node_labels,
                "taints": self.taints,
                "gpuMemoryGib": self.gpu_memory_gib,
                "devicesPerNode": self.devices_per_node,
            }
        )


class NvidiaDraDriver(pulumi.ComponentResource):
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
        config = validated(_dra_driver.NvidiaDraDriverArgs, args, "NvidiaDraDriver")
        require_kubernetes_provider("NvidiaDraDriver", opts)
        super().__init__(_token(NvidiaDraDriver), name, None, opts)
        inner = _dra_driver.NvidiaDraDriver(name, config, pulumi.ResourceOptions(parent=self))
        self.release_name = inner.release_name
        self.namespace = inner.namespace
        self.chart_version = inner.chart_version
        self.values = inner.values
        self.register_outputs(
            {
                "releaseName": self.release_name,
                "namespace": self.namespace,
                "chartVersion": self.chart_version,
                "values": self.values,
            }
        )


class DraSamples(pulumi.ComponentResource):
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
        config = validated(_dra_samples.DraSamplesArgs, args, "DraSamples")
        require_kubernetes_provider("DraSamples", opts)
        super().__init__(_token(DraSamples), name, None, opts)
        inner = _dra_samples.DraSamples(name, config, pulumi.ResourceOptions(parent=self))
        self.device_class_name = inner.device_class_name
        self.claim_template_names = dict(inner.claim_template_names)
        self.shared_claim_name = inner.shared_claim_name
        self.job_name = inner.job_name
        self.namespace = inner.namespace
        self.register_outputs(
            {
                "deviceClassName": self.device_class_name,
                "claimTemplateNames": self.claim_template_names,
                "sharedClaimName": self.shared_claim_name,
                "jobName": self.job_name,
                "namespace": self.namespace,
            }
        )


class GpuPlatform(pulumi.ComponentResource):
    """AKS + NVadsA10_v5 pools + the NVIDIA DRA driver + DRA samples: the AKS team's DRA-over-vGPU recipe in one."""

    cluster_name: pulumi.Output[str]
    """The ManagedCluster's name."""
    resource_group_name: pulumi.Output[str]
    """The resource group the cluster lives in."""
    kubeconfig: pulumi.Output[str]
    """A user kubeconfig for the cluster (secret)."""
    gpu_pools: list[pulumi.Output[str]]
    """The GPU pools' agent pool names, in input order."""
    dra_driver_release: pulumi.Output[str] | None
    """The NVIDIA DRA driver's Helm release name, unless draDriver.enabled is false."""
    device_class_name: pulumi.Output[str] | None
    """The DeviceClass that selects A10 vGPU devices, when the samples are enabled."""
    claim_template_names: dict[str, pulumi.Output[str]] | None
    """ResourceClaimTemplate per minimum slice size, keyed like '8GiB', when the samples are enabled."""

    def __init__(self, name: str, args: GpuPlatformInputs, opts: pulumi.ResourceOptions | None = None) -> None:
        config: StackConfig = validated(_platform.GpuPlatformArgs, args, "GpuPlatform")
        super().__init__(_token(GpuPlatform), name, None, opts)
        inner = _platform.GpuPlatform(name, config, pulumi.ResourceOptions(parent=self))
        self.cluster_name = inner.cluster.cluster_name
        self.resource_group_name = inner.cluster.resource_group_name
        self.kubeconfig = inner.cluster.kubeconfig
        self.gpu_pools = [pool.pool_name for pool in inner.pools]
        self.dra_driver_release = inner.driver.release_name if inner.driver else None
        self.device_class_name = inner.samples.device_class_name if inner.samples else None
        self.claim_template_names = dict(inner.samples.claim_template_names) if inner.samples else None
        self.register_outputs(
            {
                "clusterName": self.cluster_name,
                "resourceGroupName": self.resource_group_name,
                "kubeconfig": self.kubeconfig,
                "gpuPools": self.gpu_pools,
                "draDriverRelease": self.dra_driver_release,
                "deviceClassName": self.device_class_name,
                "claimTemplateNames": self.claim_template_names,
            }
        )


COMPONENTS: list[type[pulumi.ComponentResource]] = [AksCluster, GpuNodePool, NvidiaDraDriver, DraSamples, GpuPlatform]
"""What the plugin serves, in schema order."""


def main() -> None:
    """Serves the components to the Pulumi engine (the plugin's entry point; the engine passes its address in argv)."""
    from pulumi.provider.experimental import component_provider_host

    # SDKs before `version` existed publish the package as 0.0.0; still serve rather than fail on an older SDK.
    versioned = "version" in inspect.signature(component_provider_host).parameters
    component_provider_host(COMPONENTS, name=PACKAGE, **({"version": __version__} if versioned else {}))
