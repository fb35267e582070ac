"""The multi-language schema's settings types, as `pulumi.provider.experimental` reads them.

A TypedDict becomes an object type, its keys' docstrings their descriptions; `X | None` is optional; `pulumi.Input[X]`
takes another resource's output, anything else is plain (pulumi/pulumi `sdk/python/lib/pulumi/provider/experimental/
analyzer.py`). The closed sets they use are in `provider_enums.py`, the components that take them in
`provider_schema.py`. Annotations must be evaluable at run time: no `from __future__ import annotations` here.
"""

from typing import Any, TypedDict

import pulumi

from .enums import (
    AuthMode,
    ChartVersion,
    EvictionPolicy,
    Fit,
    LoginMode,
    NodeOsChannel,
    OsDiskType,
    OsSku,
    OsType,
    ScaleDownMode,
    SkuTier,
    UpgradeChannel,
    VmSize,
    WeekDay,
)


# --- input types ------------------------------------------------------------------------------------------------------
# Zones stay text: the SDK maps a list of enum values as a list of objects (ComponentProvider.map_input_properties).
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

    mode: AuthMode | None
    """localAccounts (default, cluster-local credentials) or entraId (Entra ID, Azure RBAC, no local accounts)."""
    admin_group_object_ids: list[pulumi.Input[str]] | None
    """Entra ID group object IDs that are cluster admins, e.g. an Entra ID group's objectId (entraId only)."""
    login_mode: LoginMode | None
    """kubelogin's login mode for the provider (entraId only); default azurecli."""
    tenant_id: pulumi.Input[str] | None
    """Entra ID tenant for kubelogin's --tenant-id (entraId only); default: the login's own tenant."""
    client_id: pulumi.Input[str] | None
    """Application (client) ID kubelogin signs in as, for spn and workloadidentity (entraId only); never a secret."""
    environment: str | None
    """Azure cloud for spn logins, e.g. 'AzurePublicCloud' (entraId only); default: the cloud in the kubeconfig."""


class Network(TypedDict):
    """Where the nodes live: a subnet of your own virtual network, or (unset) a network AKS creates."""

    vnet_subnet_id: str | None
    """ARM ID of an existing subnet for the system pool's and every GPU pool's nodes; a pool's own vnetSubnetId wins."""


class ApiServer(TypedDict):
    """Who can reach the Kubernetes API server (apiServerAccessProfile)."""

    authorized_ip_ranges: list[str] | None
    """CIDR ranges allowed to reach the public API server (at most 200); [] removes the restriction."""
    private: bool | None
    """A private cluster (API server on a private IP only); fixed at creation."""


class MaintenanceWindow(TypedDict):
    """A weekly window in which AKS may run the automatic upgrades the stack turns on."""

    day_of_week: WeekDay
    """Day the window opens."""
    start_time: str
    """Time the window opens, 'HH:MM' (00:00-23:59) in utcOffset's time zone."""
    duration_hours: int | None
    """Length of the window in hours (4-24, default 4)."""
    utc_offset: str | None
    """Time zone of startTime, '+HH:MM' or '-HH:MM' (default UTC)."""


class Upgrades(TypedDict):
    """Automatic upgrades: which channels AKS follows and when it may act (unset: AKS's defaults, no window)."""

    channel: UpgradeChannel | None
    """Kubernetes auto-upgrade channel; with patch, stable or rapid the channel owns the version after creation."""
    node_os_channel: NodeOsChannel | None
    """Node OS auto-upgrade channel (AKS's default NodeImage reimages every node weekly)."""
    maintenance_window: MaintenanceWindow | None
    """Weekly window for the channels set here."""


class Grafana(TypedDict):
    """An Azure Managed Grafana linked to the Azure Monitor workspace."""

    enabled: bool | None
    """Create an Azure Managed Grafana reading the workspace (needs managedPrometheus)."""
    name: str | None
    """The Grafana's name (default 'amg-' and the cluster's name, cut to 23)."""
    sku: str | None
    """The Grafana's SKU: Standard (default) or Essential."""


class GpuMetricsSettings(TypedDict):
    """NVIDIA's dcgm-exporter on every GPU node, attributing each slice's metrics to its pod and ResourceClaim."""

    enabled: bool | None
    """Install dcgm-exporter with kubernetesDRA.enabled on the GPU nodes."""
    chart_version: str | None
    """The dcgm-exporter chart version (4.8.2)."""
    image_tag: str | None
    """The exporter image tag (default: the chart's own)."""
    namespace: str | None
    """The exporter's namespace (default gpu-metrics)."""
    release_name: str | None
    """The Helm release's name (default dcgm-exporter)."""
    cpu_request: str | None
    """The exporter's CPU request."""
    cpu_limit: str | None
    """The exporter's CPU limit."""
    memory_request: str | None
    """The exporter's memory request."""
    memory_limit: str | None
    """The exporter's memory limit."""
    scrape_interval_seconds: int | None
    """How often the metrics are scraped (seconds)."""
    service_monitor: bool | None
    """Without managed Prometheus: monitoring.coreos.com/v1 scrape objects and a PrometheusRule."""


class Alerts(TypedDict):
    """The GPU alerts: thresholds, and how long (minutes) a condition must hold before it fires."""

    enabled: bool | None
    """Create the GPU alert rules wherever GPU metrics are collected."""
    xid_minutes: int | None
    """An XID error: minutes before it fires."""
    framebuffer_percent: int | None
    """A slice's framebuffer used above this percentage ..."""
    framebuffer_minutes: int | None
    """... for this many minutes."""
    plugin_down_minutes: int | None
    """The DRA kubelet plugin down on a GPU node for this long."""
    pending_claim_minutes: int | None
    """A pod with a ResourceClaim unschedulable for this long."""
    missing_slice_minutes: int | None
    """Fewer ResourceSlices than GPU nodes for this long."""
    licence_minutes: int | None
    """A vGPU without a licence for this long."""
    severity: int | None
    """Azure alert severity (0-4)."""


class Monitoring(TypedDict):
    """Cluster monitoring: managed Prometheus and where it writes, GPU metrics, GPU alerts, Grafana."""

    managed_prometheus: bool | None
    """Azure Monitor managed Prometheus: true creates the workspace, DCE, DCR, association and rules; false off."""
    workspace_id: str | None
    """ARM ID of an existing Azure Monitor workspace to write to."""
    workspace_location: str | None
    """The existing workspace's region (default: the cluster's location)."""
    grafana: Grafana | None
    """Azure Managed Grafana."""
    gpu_metrics: GpuMetricsSettings | None
    """GPU metrics (dcgm-exporter)."""
    alerts: Alerts | None
    """GPU alert rules."""


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
    sku_tier: SkuTier | None
    """AKS control-plane tier (default Free)."""
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
    network: Network | None
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
    """Name of the resource group AKS creates for the nodes (must not exist yet; fixed at creation)."""


class Autoscaling(TypedDict):
    """Cluster-autoscaler bounds; with autoscaling the node count is the autoscaler's, never drift."""

    min_count: int
    """Fewest nodes (0-1000; 0 lets the pool scale to zero)."""
    max_count: int
    """Most nodes (1-1000), at least minCount."""


class Spot(TypedDict):
    """Run the pool on Azure Spot VMs: far cheaper, no SLA, evicted whenever Azure needs the capacity back."""

    eviction_policy: EvictionPolicy | None
    """What happens to an evicted VM: Delete (default) or Deallocate."""
    max_price: float | None
    """Highest price per VM-hour in US dollars (up to 5 decimals); -1 (default) pays up to the pay-as-you-go price."""


class GpuPool(TypedDict):
    """A GPU node pool of one NVadsA10_v5 size; define it once and pass it to GpuNodePool, NvidiaDraDriver, DraSamples."""

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


class DraDriverSettings(TypedDict):
    """The NVIDIA DRA driver Helm release."""

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
