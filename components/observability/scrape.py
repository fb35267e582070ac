"""Scrape objects, one per target, of the group the stack's Prometheus reads (pure manifests).

- AKS's managed Prometheus (ama-metrics) reads only ``azmonitoring.coreos.com/v1`` ServiceMonitor/PodMonitor objects, in
  any namespace, and ignores the open-source ``monitoring.coreos.com`` ones on purpose (Azure/prometheus-collector
  internal/docs/Operator-CRD.md; otelcollector/configuration-reader-builder/main.go selects every object).
- kube-prometheus-stack's Prometheus operator reads ``monitoring.coreos.com/v1``.

A target gets exactly one object: the group is chosen once, from the stack (MonitoringConfig.scrape_group).
The exporter is scraped through its Service (a ServiceMonitor, port ``metrics``); the DRA driver's kubelet plugin has
no Service nor a named port (its chart only sets HTTP_ENDPOINT ``:8080``, dra-driver-nvidia-gpu 0.4.x
templates/kubeletplugin.yaml), so it gets a PodMonitor with ``portNumber`` (a field of both groups' PodMonitor CRDs).
"""

from __future__ import annotations

from typing import Any

from ..catalog import DriverChart

SCRAPE_OBJECTS = {"azmonitoring.coreos.com": "v1", "monitoring.coreos.com": "v1"}
EXPORTER_JOB = "gpu-metrics"
PLUGIN_JOB = "dra-kubelet-plugin"
PLUGIN_METRICS_PORT = 8080  # kubeletPlugin.metrics.gpuHttpEndpoint ":8080" in the 0.4.x charts


def custom_resource(name: str, manifest: dict[str, Any], opts: Any) -> Any:
    """A Kubernetes custom resource (scrape object, rule) declared from its manifest; pulumi_kubernetes loads only here."""
    import pulumi_kubernetes as k8s

    return k8s.apiextensions.CustomResource(
        name,
        api_version=manifest["apiVersion"],
        kind=manifest["kind"],
        metadata=manifest["metadata"],
        spec=manifest["spec"],
        opts=opts,
    )


def _api_version(group: str) -> str:
    if group not in SCRAPE_OBJECTS:
        raise ValueError(f"unknown scrape object group {group!r}; one of {', '.join(SCRAPE_OBJECTS)}")
    return f"{group}/{SCRAPE_OBJECTS[group]}"


def _relabelings(job: str) -> list[dict[str, Any]]:
    """A stable job name (the alerts and dashboard select by it) and the node, which the alerts join on."""
    return [
        {"action": "replace", "targetLabel": "job", "replacement": job},
        {"action": "replace", "sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node"},
    ]


def exporter_scrape_object(config: Any, group: str) -> dict[str, Any]:
    """The ServiceMonitor for the dcgm-exporter release (its Service's selector labels, templates/_helpers.tpl)."""
    return {
        "apiVersion": _api_version(group),
        "kind": "ServiceMonitor",
        "metadata": {"name": config.release_name, "namespace": config.namespace},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "dcgm-exporter",
                                         "app.kubernetes.io/instance": config.release_name}},
            "namespaceSelector": {"matchNames": [config.namespace]},
            "endpoints": [{
                "port": "metrics",
                "path": "/metrics",
                "interval": f"{config.scrape_interval_seconds}s",
                # The pod and claim labels are the exporter's own: keep them when they clash with the target's.
                "honorLabels": True,
                "relabelings": _relabelings(EXPORTER_JOB),
            }],
        },
    }


def plugin_pod_labels(chart: DriverChart, release_name: str, legacy_name: str) -> dict[str, str]:
    """The kubelet plugin's pod labels: instance plus `<name>-component: kubelet-plugin`, name being nameOverride when
    the chart needs it (templates/_helpers.tpl, selectorLabels)."""
    name = legacy_name if chart.needs_name_override else chart.chart
    return {"app.kubernetes.io/instance": release_name, f"{name}-component": "kubelet-plugin"}


def plugin_scrape_object(
    group: str, namespace: str, release_name: str, chart: DriverChart, legacy_name: str, interval_seconds: int
) -> dict[str, Any]:
    """The PodMonitor for the DRA driver's kubelet plugin (its metrics on :8080, only in charts that have them)."""
    return {
        "apiVersion": _api_version(group),
        "kind": "PodMonitor",
        "metadata": {"name": f"{release_name}-kubelet-plugin", "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": plugin_pod_labels(chart, release_name, legacy_name)},
            "namespaceSelector": {"matchNames": [namespace]},
            "podMetricsEndpoints": [{
                "portNumber": PLUGIN_METRICS_PORT,
                "path": "/metrics",
                "interval": f"{interval_seconds}s",
                "relabelings": _relabelings(PLUGIN_JOB),
            }],
        },
    }
