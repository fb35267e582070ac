"""GpuPlatform: composes cluster -> GPU pools in parallel with (provider -> NVIDIA DRA driver -> DRA samples)."""

from __future__ import annotations

from typing import Any

import pulumi

from .azure.cluster import AksCluster
from .azure.gpu_pool import GpuNodePool, GpuNodePoolArgs
from .config import StackConfig
from .kubernetes.dra_driver import NvidiaDraDriver, NvidiaDraDriverArgs
from .kubernetes.dra_samples import DraSamples, DraSamplesArgs
from .secret_config import secret_inputs, secret_texts

GpuPlatformArgs = StackConfig
"""The whole platform's settings (see StackConfig)."""


class GpuPlatform(pulumi.ComponentResource):
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
    observability: Any
    """The monitoring components (components.observability.wiring.Observability), or None when monitoring is off."""

    def __init__(self, name: str, args: GpuPlatformArgs, opts: pulumi.ResourceOptions | None = None):
        texts = secret_texts(args)
        if texts:  # values from secret config stay secret in every child that carries them (secret_config.py)
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(transformations=[secret_inputs(texts)]))
        super().__init__("aks-dra-vgpu:index:GpuPlatform", name, None, opts)
        self.cluster = AksCluster(f"{name}-cluster", args.cluster, pulumi.ResourceOptions(parent=self))
        # Pools are chained, each after the one before: AKS refuses a second agent pool operation on a cluster while
        # one runs ("OperationNotAllowed: Another agentpool operation ... is in progress"; cilium/cilium #25944,
        # Azure/terraform-azurerm-avm-ptn-aks-production #25), and pulumi-azure-native does not retry it. The chain
        # also makes a Kubernetes upgrade roll through the pools one at a time, after the control plane.
        self.pools = []
        previous: list[pulumi.Resource] = []
        for pool in args.gpu_pools:
            node_pool = GpuNodePool(
                f"{name}-{pool.name}",
                GpuNodePoolArgs(
                    # Every pool inherits the cluster's tags and subnet unless it sets its own.
                    **pool.inheriting(args.cluster.tags, args.cluster.network.vnet_subnet_id).model_dump(),
                    cluster_name=self.cluster.cluster_name,
                    resource_group_name=self.cluster.resource_group_name,
                    cluster_kubernetes_version=args.cluster.kubernetes_version,
                ),
                pulumi.ResourceOptions(parent=self, depends_on=previous),
            )
            self.pools.append(node_pool)
            # The next pool waits for this pool's AgentPool itself, not for its component: the same dependency
            # (a component stands for its children, and this one has one), but the Python SDK checks every new
            # dependency for a cycle by walking all that the target already depends on (pulumi/pulumi
            # sdk/python/lib/pulumi/runtime/resource_cycle_breaker.py), and a chain through the components doubles
            # both the walks and the chain they walk: ~1.5 s more of a 300-pool plan (docs/performance.md).
            previous = [node_pool.agent_pool]
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
                secret_values=bool(args.secret_sections & {"draDriver", "gpuPools"}),
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
        self.observability = None
        if _wants_monitoring(args):
            from .observability.wiring import observe  # monitoring's modules load only when a stack uses them

            self.observability = observe(
                name, args, cluster_id=self.cluster.cluster_id, resource_group_name=self.cluster.resource_group_name,
                azure=pulumi.ResourceOptions(parent=self), on_cluster=on_cluster,
            )
        outputs = {
            "clusterName": self.cluster.cluster_name,
            "resourceGroupName": self.cluster.resource_group_name,
            "clusterId": self.cluster.cluster_id,
            "resourceUid": self.cluster.resource_uid,
            "kubeconfig": self.cluster.kubeconfig,
            "providerKubeconfig": self.cluster.provider_kubeconfig,
            "gpuPools": [p.pool_name for p in self.pools],
        }
        if self.driver:
            outputs["draDriverRelease"] = self.driver.release_name
        if self.samples:
            outputs["deviceClassName"] = self.samples.device_class_name
            outputs["claimTemplateNames"] = self.samples.claim_template_names
            outputs["sharedClaimName"] = self.samples.shared_claim_name
            outputs["samplesNamespace"] = self.samples.namespace
        if self.observability and self.observability.prometheus:
            outputs["monitorWorkspaceId"] = self.observability.prometheus.workspace_id
        if self.observability and self.observability.gpu_metrics:
            outputs["gpuMetricsRelease"] = self.observability.gpu_metrics.release_name
        self.register_outputs(outputs)


def _wants_monitoring(args: GpuPlatformArgs) -> bool:
    """Monitoring creates something (managed Prometheus collects, or GPU metrics are on)."""
    return args.cluster.monitoring.collects or args.cluster.monitoring.gpu_metrics.enabled


def _driver_scraped(args: GpuPlatformArgs) -> bool:
    """Something scrapes the DRA driver's own metrics (then its chart is told to serve them, where it can)."""
    return args.cluster.monitoring.scrape_group is not None and args.dra_driver.chart.has_metrics
