"""What the platform adds for monitoring, in one call: managed Prometheus, GPU metrics, the driver's scrape object and,
for a Prometheus of the user's own, the PrometheusRule. GpuPlatform calls it only when monitoring asks for something."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from ..config import StackConfig
from .driver_scrape import DraDriverScrape, scrapes_driver
from .exporter import GpuMetrics, GpuMetricsArgs
from .prometheus import ManagedPrometheus
from .rules import RuleGroup, aks_recording_groups, gpu_alerts, gpu_recording, prometheus_rule
from .scrape import custom_resource


@dataclass
class Observability:
    """The monitoring components a platform created (None where off)."""

    prometheus: ManagedPrometheus | None = None
    gpu_metrics: GpuMetrics | None = None
    driver_scrape: DraDriverScrape | None = None


def gpu_rule_groups(args: StackConfig) -> list[RuleGroup]:
    """The GPU recording rules and alerts, when GPU metrics are collected by some Prometheus."""
    monitoring = args.cluster.monitoring
    if not monitoring.gpu_metrics.enabled or monitoring.scrape_group is None:
        return []
    mig = any(p.is_mig for p in args.gpu_pools)  # MIG rows need GPU_I_ID to tell slices apart
    groups = [gpu_recording(mig)]
    if monitoring.alerts.enabled:
        groups.append(gpu_alerts(
            monitoring.alerts, plugin_scraped=scrapes_driver(args.dra_driver, monitoring.scrape_group),
            node_label=monitoring.gpu_metrics.node_label, mig=mig,
        ))
    return groups


def observe(
    name: str,
    args: StackConfig,
    *,
    cluster_id: pulumi.Input[str],
    resource_group_name: pulumi.Input[str],
    azure: pulumi.ResourceOptions,
    on_cluster: pulumi.ResourceOptions,
) -> Observability:
    """Declares the monitoring resources: Azure ones with `azure`, Kubernetes ones with `on_cluster` (its provider)."""
    monitoring = args.cluster.monitoring
    group = monitoring.scrape_group
    found = Observability()
    if monitoring.collects:
        found.prometheus = ManagedPrometheus(
            f"{name}-prometheus",
            config=monitoring,
            cluster_name=args.cluster.name,
            cluster_id=cluster_id,
            resource_group_name=resource_group_name,
            location=args.cluster.location,
            rule_groups=[*aks_recording_groups(), *gpu_rule_groups(args)],
            tags=args.cluster.tags,
            private_cluster=args.cluster.api_server.private,
            opts=azure,
        )
    if monitoring.gpu_metrics.enabled:
        found.gpu_metrics = GpuMetrics(
            f"{name}-gpu-metrics",
            GpuMetricsArgs(**monitoring.gpu_metrics.model_dump(), pools=args.gpu_pools, scrape_group=group),
            on_cluster,
        )
        if group == "monitoring.coreos.com":
            _prometheus_rule(name, args, found.gpu_metrics, on_cluster)
    if group is not None and scrapes_driver(args.dra_driver, group):
        found.driver_scrape = DraDriverScrape(
            f"{name}-dra-driver-scrape", args.dra_driver, group, monitoring.gpu_metrics.scrape_interval_seconds, on_cluster
        )
    return found


def _prometheus_rule(name: str, args: StackConfig, metrics: GpuMetrics, on_cluster: pulumi.ResourceOptions) -> None:
    """The GPU rules as a monitoring.coreos.com/v1 PrometheusRule beside the exporter (kube-prometheus-stack)."""
    manifest = prometheus_rule(gpu_rule_groups(args), "gpu-rules", args.cluster.monitoring.gpu_metrics.namespace)
    after_metrics = pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[metrics]))
    custom_resource(f"{name}-gpu-rules", manifest, after_metrics)
