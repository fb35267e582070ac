"""GpuMetrics: NVIDIA's dcgm-exporter as a Helm release, attributing every A10 slice's metrics to its pod and claim.

The values are decided by a pure function (settings + the GPU pools -> plain data), so they can be rendered with the
real chart and shown offline; the component wraps them in a ``helm.v3.Release`` and adds the scrape objects that
match the stack's Prometheus (scrape.py). Every values key below exists in dcgm-exporter charts 4.8.2 and 4.8.3
(NVIDIA/dcgm-exporter tags 4.5.3-4.8.2 and 4.6.0-4.8.3, deployment/values.yaml); the chart tests render them with both
real charts. The image must read resource.k8s.io/v1: catalog/dcgm_exporter.py.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pulumi
from pydantic import Field

from ..catalog import GPU_PRESENT_LABEL, unchecked_image
from ..config.args import component_args
from ..config.base import unset
from ..config.monitoring import GpuMetricsConfig
from ..config.pools import GpuPools
from ..kubernetes.providers import require_kubernetes_provider
from ..kubernetes.release_outputs import HelmReleaseOutputs
from ..kubernetes.tolerations import pool_settings, pool_tolerations
from ..outputs import register_declared
from .counters import counters_csv, counters_for
from .scrape import custom_resource, exporter_scrape_object

DCGM_REPOSITORY = "https://nvidia.github.io/dcgm-exporter/helm-charts"
DCGM_CHART = "dcgm-exporter"
DCGM_IMAGE = "nvcr.io/nvidia/k8s/dcgm-exporter"
METRICS_PORT = 9400  # the chart's service.port


class GpuMetricsArgs(GpuMetricsConfig):
    """The exporter's settings plus the GPU pools it runs on (their taints are tolerated) and the scrape group."""

    always_deployed: ClassVar[bool] = True

    pools: GpuPools = Field(description="The GPU pools whose nodes run the exporter (GpuNodePool settings).")
    scrape_group: str | None = unset(
        "The API group of the scrape object to create: azmonitoring.coreos.com (AKS's managed Prometheus), "
        "monitoring.coreos.com (kube-prometheus-stack), or None for none.",
    )


def exporter_values(config: GpuMetricsConfig, pools: GpuPools) -> dict[str, Any]:
    """The Helm values for dcgm-exporter on these pools (settings or GpuNodePool components; plain data)."""
    pools = pool_settings(pools)
    key, value = GPU_PRESENT_LABEL
    return {
        "image": {"repository": DCGM_IMAGE, "tag": config.image},
        # With it the exporter reads ResourceSlices and ResourceClaims and labels each device's metrics with the pod
        # and claim (KUBERNETES_ENABLE_DRA; templates/daemonset.yaml), and the chart grants the RBAC for it
        # (templates/clusterrole.yaml: pods and resourceslices, get/list/watch).
        "kubernetesDRA": {"enabled": True},
        # Only GPU nodes: every GPU pool carries the label the DRA kubelet plugin selects by.
        "nodeSelector": {key: value},
        # Lists replace in Helm: the chart's control-plane toleration goes (AKS has no control-plane nodes), and every
        # GPU pool's taints are tolerated, AKS's spot taint included, through the one tolerations function.
        "tolerations": pool_tolerations(pools),
        "customMetrics": counters_csv(counters_for(pools)),
        "resources": {
            "requests": {"cpu": config.cpu_request, "memory": config.memory_request},
            "limits": {"cpu": config.cpu_limit, "memory": config.memory_limit},
        },
        # The scrape object is Pulumi's (one per target, of the stack's Prometheus group): never the chart's too.
        "serviceMonitor": {"enabled": False},
    }


GpuMetricsOutputs = HelmReleaseOutputs
"""What a GpuMetrics gives back: the dcgm-exporter release's name, namespace, chart version and values."""


class GpuMetrics(GpuMetricsOutputs, pulumi.ComponentResource):
    """dcgm-exporter on every GPU node (helm.v3.Release), metrics per DRA claim, plus its one scrape object.

    Needs an explicit Kubernetes provider, like every Kubernetes component of this package.
    """

    def __init__(self, name: str, args: GpuMetricsArgs, opts: pulumi.ResourceOptions | None = None):
        require_kubernetes_provider("GpuMetrics", opts)
        args = component_args(GpuMetricsArgs, args)
        super().__init__("aks-dra-vgpu:index:GpuMetrics", name, None, opts)
        import pulumi_kubernetes as k8s  # loaded only when GPU metrics are on

        self.chart_version = args.chart_version
        unchecked = unchecked_image(args.image)  # accepted, but newer than any exporter the catalog has read
        if unchecked:
            pulumi.log.warn(f"{name}: {unchecked}", resource=self)
        self.values = exporter_values(args, args.pools)
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=args.release_name,
            chart=DCGM_CHART,
            version=args.chart_version,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=DCGM_REPOSITORY),
            namespace=args.namespace,
            create_namespace=True,
            values=self.values,
            atomic=True,
            cleanup_on_fail=True,
            max_history=10,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.release_name = release.name
        self.namespace = release.namespace
        if args.scrape_group is not None:
            manifest = exporter_scrape_object(args, args.scrape_group)
            custom_resource(f"{name}-scrape", manifest, pulumi.ResourceOptions(parent=self, depends_on=[release]))
        register_declared(self)
