"""GpuPlatform: composes cluster -> GPU pools (side by side) in parallel with (provider -> NVIDIA DRA driver -> DRA samples)."""

from __future__ import annotations

from typing import Any

import pulumi

from .azure.cluster import AksCluster, ClusterOutputs
from .azure.gpu_pool import GpuNodePool, GpuNodePoolArgs, shared_vnet_predecessors
from .config import DraDriverConfig, StackConfig
from .config.args import component_args
from .config.extended_resources import ExtendedResourcesConfig
from .config.extended_rules import keeps_nvidia_gpu_class
from .config.upgrades import version_owner
from .kubernetes.dra_driver import NvidiaDraDriver, NvidiaDraDriverArgs
from .kubernetes.dra_samples import DraSamples, DraSamplesArgs
from .kubernetes.extended_classes import nvidia_gpu_warning
from .kubernetes.extended_resources import ExtendedResources, ExtendedResourcesArgs
from .outputs import lift, output, register_declared
from .secret_config import driver_values_secret, secret_inputs, secret_texts


class GpuPlatformArgs(StackConfig, defer_build=True):
    """The whole platform's settings (see StackConfig): a class of its own, so a Python caller's mistakes are told as
    `invalid GpuPlatformArgs`, the name they wrote."""


class GpuPlatformOutputs(ClusterOutputs):
    """What a GpuPlatform gives back, in Python and in every other language: its cluster's outputs, and these."""

    gpu_pools: list[pulumi.Output[str]] = output("The GPU pools' agent pool names, in input order.")
    dra_driver_release: pulumi.Output[str] | None = output(
        "The NVIDIA DRA driver's Helm release name, unless draDriver.enabled is false."
    )
    device_class_name: pulumi.Output[str] | None = output(
        "The DeviceClass that selects A10 vGPU devices, when the samples are enabled."
    )
    claim_template_names: dict[str, pulumi.Output[str]] | None = output(
        "ResourceClaimTemplate per slice size, keyed like '8GiB', when the samples are enabled."
    )
    shared_claim_name: pulumi.Output[str] | None = output(
        "The ResourceClaim several pods can share, when the samples and the shared claim are enabled."
    )
    samples_namespace: pulumi.Output[str] | None = output(
        "The namespace of the sample claims and Job, when the samples are enabled."
    )
    extended_resource_classes: dict[str, pulumi.Output[str]] | None = output(
        "The DeviceClass serving each extended resource name (e.g. 'nvidia.com/gpu'), when extendedResources is set or "
        "the package keeps its nvidia.com/gpu class (Kubernetes 1.36 with a driver chart that maps that name)."
    )
    monitor_workspace_id: pulumi.Output[str] | None = output(
        "The Azure Monitor workspace managed Prometheus writes to, when monitoring.managedPrometheus is true."
    )
    prometheus_query_endpoint: pulumi.Output[str] | None = output(
        "The Azure Monitor workspace's Prometheus query endpoint, what `python -m components rightsize --prometheus` "
        "reads, when monitoring.managedPrometheus is true and the package creates the workspace."
    )
    gpu_metrics_release: pulumi.Output[str] | None = output(
        "The dcgm-exporter Helm release name, when monitoring.gpuMetrics is enabled."
    )
    grafana_endpoint: pulumi.Output[str] | None = output(
        "The Azure Managed Grafana's URL (where the GPU dashboard is imported), when monitoring.grafana is enabled."
    )
    fleet_member_name: pulumi.Output[str] | None = output(
        "The cluster's FleetMember name in the fleet, when fleetMembership is set."
    )


class GpuPlatform(GpuPlatformOutputs, pulumi.ComponentResource):
    """AKS + NVadsA10_v5 pools + the NVIDIA DRA driver + DRA samples: the AKS team's recipe as one component.

    Only composes: cluster -> (GPU pools) in parallel with (Kubernetes provider -> driver, samples).
    """

    cluster: AksCluster
    """The cluster and its Kubernetes provider."""
    pools: list[GpuNodePool]
    """The GPU pools, in config order."""
    driver: NvidiaDraDriver | None
    """The NVIDIA DRA driver release, unless draDriver.enabled is false (someone else runs the driver)."""
    samples: DraSamples | None
    """The DRA sample objects, when enabled."""
    extended_resources: ExtendedResources | None
    """The DeviceClasses serving extended resource names, when extendedResources is set or the package keeps its
    nvidia.com/gpu class on 1.36."""
    observability: Any
    """The monitoring components (components.observability.wiring.Observability), or None when monitoring is off."""
    fleet_member: Any
    """The cluster's FleetMember (pulumi_azure_native.containerservice), when fleetMembership is set; else None."""

    def __init__(self, name: str, args: GpuPlatformArgs, opts: pulumi.ResourceOptions | None = None):
        args = component_args(GpuPlatformArgs, args)
        texts = secret_texts(args)
        if texts:  # values from secret config stay secret in every child that carries them (secret_config.py)
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(transformations=[secret_inputs(texts)]))
        super().__init__("aks-dra-vgpu:index:GpuPlatform", name, None, opts)
        membership = args.fleet_membership
        self.cluster = AksCluster(f"{name}-cluster", args.cluster, pulumi.ResourceOptions(parent=self),
                                  fleet_member=membership is not None)
        # Pools wait for the cluster (they name it) and for every other cluster-level write, because AKS refuses a
        # cluster operation while a pool operation runs and the reverse ("Managed Cluster operation is not allowed:
        # Another operation ... is in progress on agent pool ...": AKS troubleshooting, "Cluster pending operation
        # (OperationNotAllowed) errors"; Azure/terraform-azurerm-avm-ptn-aks-production #25). A maintenance
        # configuration is a child of the managed cluster, and no AKS source says whether its PUT counts as a cluster
        # operation: the pools wait for it too, which costs seconds. Among themselves pools run side by side, except
        # those in one bring-your-own virtual network (any of its subnets), chained in config order
        # (shared_vnet_predecessors says why).
        cluster_writes: list[pulumi.Resource] = list(self.cluster.maintenance_configurations)
        # Whoever moves the control plane's version moves every pool with it (config.upgrades.version_owner).
        owner = version_owner(args.cluster.upgrades.channel, membership is not None)
        pools = [pool.inheriting(args.cluster.tags, args.cluster.network.vnet_subnet_id) for pool in args.gpu_pools]
        self.pools = []
        for pool, before in zip(pools, shared_vnet_predecessors(pools), strict=True):
            node_pool = GpuNodePool(
                f"{name}-{pool.name}",
                GpuNodePoolArgs(
                    # Every pool inherits the cluster's tags and subnet unless it sets its own.
                    **pool.model_dump(),
                    cluster_name=self.cluster.cluster_name,
                    resource_group_name=self.cluster.resource_group_name,
                    cluster_kubernetes_version=args.cluster.kubernetes_version,
                    upgraded_with_cluster=owner is not None,
                ),
                # A pool waits for the AgentPool before it itself, not for its component: the same dependency (a
                # component stands for its children, and this one has one), but the Python SDK checks every new
                # dependency for a cycle by walking all that the target already depends on (pulumi/pulumi
                # sdk/python/lib/pulumi/runtime/resource_cycle_breaker.py), and a chain through the components doubles
                # both the walks and the chain they walk (docs/performance.md).
                pulumi.ResourceOptions(
                    parent=self,
                    depends_on=[*cluster_writes, *([self.pools[before].agent_pool] if before is not None else [])],
                ),
            )
            self.pools.append(node_pool)
        # Kubernetes objects reach the cluster through its explicit provider only; none waits for a GPU pool
        # (the driver's DaemonSet waits for GPU nodes by itself), so pools and driver are created in parallel.
        # The samples do not wait for the driver either: the API server takes DeviceClasses and claims before any
        # device is published, and the sample Job is created without waiting for its pod.
        on_cluster = pulumi.ResourceOptions(parent=self, providers={"kubernetes": self.cluster.provider})
        # `enabled: false` hands the driver to someone else (AKS's managed DRA driver): only our release goes; the
        # samples' DeviceClass and claims name the driver (gpu.nvidia.com), not our release, and stay untouched.
        self.driver = None
        if args.dra_driver.enabled:
            self.driver = NvidiaDraDriver(
                f"{name}-dra-driver",
                NvidiaDraDriverArgs(**args.dra_driver.model_dump(), pools=args.gpu_pools),
                on_cluster,
                # The values come from draDriver and from the pools' labels and taints: secret if any of them is.
                secret_values=driver_values_secret(args),
                metrics=_driver_scraped(args),
            )
        self.samples = None
        if args.samples.enabled:
            self.samples = DraSamples(
                f"{name}-dra-samples",
                DraSamplesArgs(
                    **args.samples.model_dump(), pools=args.gpu_pools, kubernetes_version=args.cluster.kubernetes_version
                ),
                on_cluster,
            )
        self.extended_resources = None
        extended, driver = args.extended_resources, args.dra_driver
        # On 1.36 the package keeps its nvidia.com/gpu class even without the section (config/extended_rules.py): the
        # component keeps its name, so adding or removing extendedResources updates its classes instead of re-creating.
        if extended is not None or keeps_nvidia_gpu_class(None, driver.enabled, driver.chart_version,
                                                          args.cluster.kubernetes_version):
            self.extended_resources = ExtendedResources(
                f"{name}-extended-resources",
                ExtendedResourcesArgs(
                    **(extended or ExtendedResourcesConfig(slices=False)).model_dump(), pools=args.gpu_pools,
                    kubernetes_version=args.cluster.kubernetes_version,
                    memory_margin_percent=args.samples.memory_margin_percent,
                    driver_release=_release_identity(driver) if driver.enabled else None,
                    chart_version=driver.chart_version if driver.enabled else None,
                    driver_revision=self.driver.revision if self.driver else None,
                ),
                on_cluster,
                driver=self.driver,
            )
        self.extended_resource_classes = self.extended_resources.device_classes if self.extended_resources else None
        warning = nvidia_gpu_warning(args)
        if warning:
            pulumi.log.warn(f"extendedResources.nvidiaGpu: {warning}", resource=self)
        self.observability = None
        if _wants_monitoring(args):
            from .observability.wiring import observe  # monitoring's modules load only when a stack uses them

            self.observability = observe(
                name, args, cluster_id=self.cluster.cluster_id, resource_group_name=self.cluster.resource_group_name,
                azure=pulumi.ResourceOptions(parent=self), on_cluster=on_cluster,
            )
        self.fleet_member = None
        self.fleet_member_name = None
        if membership is not None:
            from .azure.fleet_member import join_fleet  # Fleet's module loads only when a stack joins a fleet

            self.fleet_member = join_fleet(name, membership, args.cluster.name, self.cluster, self)
            member_name = membership.member_name or args.cluster.name
            self.fleet_member_name = self.fleet_member.urn.apply(lambda _: member_name)
        lift(self, self.cluster, ClusterOutputs)
        samples, observed = self.samples, self.observability
        self.gpu_pools = [p.pool_name for p in self.pools]
        self.dra_driver_release = self.driver.release_name if self.driver else None
        self.device_class_name = samples.device_class_name if samples else None
        self.claim_template_names = samples.claim_template_names if samples else None
        self.shared_claim_name = samples.shared_claim_name if samples else None
        self.samples_namespace = samples.namespace if samples else None
        prometheus = observed.prometheus if observed else None
        gpu_metrics = observed.gpu_metrics if observed else None
        self.monitor_workspace_id = prometheus.workspace_id if prometheus else None
        self.prometheus_query_endpoint = prometheus.query_endpoint if prometheus else None
        self.gpu_metrics_release = gpu_metrics.release_name if gpu_metrics else None
        self.grafana_endpoint = prometheus.grafana_endpoint if prometheus else None
        register_declared(self)


def _wants_monitoring(args: GpuPlatformArgs) -> bool:
    """Monitoring creates something: managed Prometheus collects, GPU metrics are on, or a Prometheus of the user's
    reads scrape objects (gpuMetrics.serviceMonitor), which the driver's own metrics get even without the exporter
    (config/monitoring_rules.py refuses serviceMonitor where nothing serves metrics)."""
    monitoring = args.cluster.monitoring
    return monitoring.collects or monitoring.gpu_metrics.enabled or monitoring.scrape_group is not None


def _driver_scraped(args: GpuPlatformArgs) -> bool:
    """Something scrapes the DRA driver's own metrics (then its chart is told to serve them, where it can)."""
    return args.cluster.monitoring.scrape_group is not None and args.dra_driver.chart.has_metrics


def _release_identity(driver: DraDriverConfig) -> pulumi.Input[str]:
    """The driver release as '<namespace>/<release name>'; joined as an Output where the namespace is another
    resource's output (a caller in another language), which formatting would turn into a placeholder text."""
    if isinstance(driver.namespace, pulumi.Output):
        return pulumi.Output.concat(driver.namespace, "/", driver.release_name)
    return f"{driver.namespace}/{driver.release_name}"
