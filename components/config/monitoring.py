"""The monitoring section of the cluster: what AKS collects, where it goes, the GPU metrics, the alerts and Grafana."""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from ..catalog import DCGM_EXPORTER_CHARTS, DEFAULT_DCGM_EXPORTER_CHART, allowed_tags, dra_refusal, node_label
from ..catalog.regions import region_problem
from .base import Model, matching, unset
from .errors import KeyedProblemsError
from .types import AzureMonitorWorkspaceId, NamespaceName, ReleaseName, checked

# The dcgm-exporter chart versions this package has checked (values keys, templates, RBAC), the image each publishes,
# and what a tag tells, live in catalog/dcgm_exporter.py.

# Azure Managed Grafana names: 2-23 letters, digits and '-', starting with a letter, not ending with '-' (Azure's
# naming rules; the API's own pattern allows up to 30: monitoring_rules.py cites it).
GRAFANA_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,21}[A-Za-z0-9]", re.ASCII)
GRAFANA_NAME_RULE = "2-23 letters, digits and '-', starting with a letter and not ending with '-'"
GrafanaName = Annotated[str, matching(GRAFANA_NAME, f"is not a Managed Grafana name; use {GRAFANA_NAME_RULE}")]
# Kubernetes quantities as these settings take them: CPU in cores or millicores, memory in Mi or Gi.
_CPU = re.compile(r"([0-9]+)(m?)", re.ASCII)
_MEMORY = re.compile(r"([0-9]+)(Mi|Gi)", re.ASCII)


def _millicores(text: str) -> int:
    number, milli = _CPU.fullmatch(text).groups()  # type: ignore[union-attr]  (the field's pattern matched)
    return int(number) * (1 if milli else 1000)


def _mebibytes(text: str) -> int:
    number, unit = _MEMORY.fullmatch(text).groups()  # type: ignore[union-attr]
    return int(number) * (1024 if unit == "Gi" else 1)
Minutes = Annotated[int, Field(ge=0, le=1440)]
ImageTag = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")]


class GrafanaConfig(Model):
    """An Azure Managed Grafana linked to the Azure Monitor workspace."""

    enabled: bool = Field(False, description="Create an Azure Managed Grafana reading the workspace (needs managedPrometheus).")
    name: GrafanaName | None = unset("The Grafana's name (default 'amg-' and the cluster's name, cut to 23).")
    sku: Literal["Standard", "Essential"] = Field("Standard", description="The Grafana's SKU.")


class GpuMetricsConfig(Model):
    """NVIDIA's dcgm-exporter on every GPU node, attributing each slice's metrics to the pod and ResourceClaim using it."""

    enabled: bool = Field(
        False,
        description="Install the dcgm-exporter Helm chart with kubernetesDRA.enabled, on GPU nodes only, tolerating every "
        "GPU pool's taints. Scraped by managed Prometheus when managedPrometheus is true, else by a ServiceMonitor when "
        "serviceMonitor is true.",
    )
    chart_version: str = Field(
        DEFAULT_DCGM_EXPORTER_CHART,
        description="The dcgm-exporter chart version: 4.8.3 (image 4.6.0-4.8.3, reads resource.k8s.io/v1); 4.8.2 only "
        "with an imageTag of exporter 4.8.3 or newer (its own image waits for resource.k8s.io/v1beta1).",
        json_schema_extra={"enum": list(DCGM_EXPORTER_CHARTS)},
    )
    image_tag: ImageTag | None = unset(
        "The exporter image tag (default: the chart's own: 4.6.0-4.8.3-distroless for 4.8.3, 4.5.3-4.8.2-distroless "
        "for 4.8.2). Exporter 4.8.3 or newer: older images read ResourceSlices only through resource.k8s.io/v1beta1, "
        "which Kubernetes does not serve by default, and never start (refused). The tag also decides the node label "
        "the alerts and dashboard group by (hostname from 4.8.3). See docs/observability.md.",
    )
    namespace: NamespaceName = Field("gpu-metrics", description="The exporter's namespace (created by the release).")
    release_name: ReleaseName = Field(
        "dcgm-exporter", description="The Helm release's name (a DNS label of at most 53 characters, Helm's limit)."
    )
    cpu_request: str = Field("100m", pattern=r"^[0-9]+m?$", description="The exporter's CPU request.")
    cpu_limit: str = Field("200m", pattern=r"^[0-9]+m?$", description="The exporter's CPU limit.")
    memory_request: str = Field("128Mi", pattern=r"^[0-9]+(Mi|Gi)$", description="The exporter's memory request.")
    memory_limit: str = Field("512Mi", pattern=r"^[0-9]+(Mi|Gi)$", description="The exporter's memory limit.")
    scrape_interval_seconds: int = Field(30, ge=5, le=300, description="How often the metrics are scraped.")
    service_monitor: bool = Field(
        False,
        description="Without managed Prometheus: create monitoring.coreos.com/v1 ServiceMonitor/PodMonitor objects and "
        "a PrometheusRule (for kube-prometheus-stack); without enabled, only the DRA driver's PodMonitor. Never "
        "together with managedPrometheus (one scrape object a target).",
    )

    @field_validator("chart_version")
    @classmethod
    def _chart(cls, v: str) -> str:
        if v not in DCGM_EXPORTER_CHARTS:
            raise ValueError(f"'{v}' is not a dcgm-exporter chart version this package has checked (values, templates, "
                             f"RBAC); choose one of {', '.join(DCGM_EXPORTER_CHARTS)}")
        return v

    always_deployed: ClassVar[bool] = False  # GpuMetricsArgs: the component deploys whatever `enabled` says

    @model_validator(mode="after")
    def _image_reads_v1(self) -> GpuMetricsConfig:
        # The exporter runs with DRA attribution always (kubernetesDRA.enabled): an image that waits for a v1beta1
        # cache never starts on Kubernetes 1.34+ (catalog/dcgm_exporter.py has the sources).
        reason = dra_refusal(self.image)
        if reason is not None and (self.enabled or self.always_deployed):
            whose = "" if self.image_tag is not None else f"chart {self.chart_version}'s image: "
            raise KeyedProblemsError(("imageTag", f"{whose}{reason}; use {allowed_tags()}"))
        return self

    @property
    def image(self) -> str:
        """The exporter image tag in use: the one set, or the chart's own."""
        return self.image_tag or DCGM_EXPORTER_CHARTS[self.chart_version]

    @property
    def node_label(self) -> str:
        """The label naming the node on the exporter's metrics, for the image in use (catalog.node_label)."""
        return node_label(self.image)

    @model_validator(mode="after")
    def _requests_within_limits(self) -> GpuMetricsConfig:
        # Kubernetes refuses a container whose request is above its limit (kubernetes/kubernetes
        # pkg/apis/core/validation/validation.go, ValidateResourceRequirements: "must be less than or equal to ... limit").
        problems = []
        if _millicores(self.cpu_request) > _millicores(self.cpu_limit):
            problems.append(("cpuRequest", f"'{self.cpu_request}' is above cpuLimit '{self.cpu_limit}'; Kubernetes "
                             "refuses a request above its limit: lower it, or raise cpuLimit"))
        if _mebibytes(self.memory_request) > _mebibytes(self.memory_limit):
            problems.append(("memoryRequest", f"'{self.memory_request}' is above memoryLimit '{self.memory_limit}'; "
                             "Kubernetes refuses a request above its limit: lower it, or raise memoryLimit"))
        if problems:
            raise KeyedProblemsError(*problems)
        return self


class AlertsConfig(Model):
    """The GPU alerts: thresholds, and how long (minutes) a condition must hold before it fires."""

    enabled: bool = Field(True, description="Create the GPU alert rule group wherever GPU metrics are collected.")
    xid_minutes: Minutes = Field(0, description="An XID error on a GPU: fire after this many minutes (0: at once).")
    # Above 100 % can never be: the alert would never fire.
    framebuffer_percent: int = Field(
        90, ge=1, le=99, description="A slice's framebuffer used above this percentage (1-99) ..."
    )
    framebuffer_minutes: Minutes = Field(10, description="... for this many minutes.")
    plugin_down_minutes: Minutes = Field(5, description="The DRA kubelet plugin not scraped on a GPU node for this long.")
    pending_claim_minutes: Minutes = Field(10, description="A pod with a ResourceClaim unschedulable for this long.")
    missing_slice_minutes: Minutes = Field(15, description="Fewer ResourceSlices than GPU nodes for this long.")
    licence_minutes: Minutes = Field(5, description="A vGPU without a licence (DCGM_FI_DEV_VGPU_LICENSE_STATUS 0) this long.")
    severity: int = Field(2, ge=0, le=4, description="Azure alert severity of every rule (0 critical ... 4 verbose).")


class MonitoringConfig(Model):
    """Cluster monitoring: managed Prometheus and where it writes, GPU metrics, GPU alerts, Grafana."""

    managed_prometheus: bool | None = unset(
        "Azure Monitor managed Prometheus: true runs AKS's metrics agent (azureMonitorProfile.metrics) and "
        "creates what it writes to, as AKS's own onboarding does: an Azure Monitor workspace (or uses workspaceId), a "
        "data collection endpoint and rule (stream Microsoft-PrometheusMetrics), the rule's association with the "
        "cluster, and AKS's node and Kubernetes recording rule groups. false turns the agent off; unset leaves it.",
    )
    workspace_id: AzureMonitorWorkspaceId | None = unset(
        "ARM ID of an existing Azure Monitor workspace (…/providers/Microsoft.Monitor/accounts/…) to write to, "
        "instead of creating one.",
    )
    # Any region ARM names (catalog/regions.py): the workspace needs no GPU sizes there.
    workspace_location: Annotated[str, checked(region_problem)] | None = Field(
        None,
        description="The existing workspace's region as ARM writes it (e.g. westeurope), where its data collection "
        "endpoint and rule must live (default: the cluster's location); checked against the catalog's Azure regions.",
    )
    grafana: GrafanaConfig = Field(default_factory=GrafanaConfig, description="Azure Managed Grafana.")
    gpu_metrics: GpuMetricsConfig = Field(default_factory=GpuMetricsConfig, description="GPU metrics (dcgm-exporter).")
    alerts: AlertsConfig = Field(default_factory=AlertsConfig, description="GPU alert rules.")

    @model_validator(mode="after")
    def _consistent(self) -> MonitoringConfig:
        problems = []
        if self.managed_prometheus is not True:
            for key, value in (("workspaceId", self.workspace_id), ("workspaceLocation", self.workspace_location)):
                if value is not None:
                    problems.append((key, "is only used with managedPrometheus: true; set that, or remove it"))
            if self.grafana.enabled:
                problems.append(("grafana.enabled", "Managed Grafana reads the managed Prometheus workspace; set "
                                 "managedPrometheus: true, or remove it"))
        if self.workspace_location is not None and self.workspace_id is None:
            problems.append(("workspaceLocation", "names the region of an existing workspace; set workspaceId too"))
        if self.managed_prometheus is True and self.gpu_metrics.service_monitor:
            problems.append(("gpuMetrics.serviceMonitor", "is for a Prometheus of your own; with managedPrometheus: true "
                             "the targets are scraped through azmonitoring.coreos.com/v1 objects (one scrape object per "
                             "target): remove it"))
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    @property
    def collects(self) -> bool:
        """Managed Prometheus is on, and so its workspace, rule and association are created."""
        return self.managed_prometheus is True

    @property
    def scrape_group(self) -> str | None:
        """The API group of the scrape objects the stack's Prometheus reads, or None when nothing scrapes."""
        if self.collects:
            return "azmonitoring.coreos.com"
        if self.gpu_metrics.service_monitor:
            return "monitoring.coreos.com"
        return None
