"""The monitoring rules that read other sections: the exporter's release beside the driver's and the samples', the
names derived from the cluster's name (checked by the rule a name the user writes is checked by), and scrape objects
with nothing to scrape.

Azure's naming rules, from Azure/azure-rest-api-specs: a Managed Grafana's `workspaceName` matches
``^[a-zA-Z][a-z0-9A-Z-]{0,28}[a-z0-9A-Z]$`` (specification/dashboard/resource-manager/Microsoft.Dashboard/stable/
2024-10-01/grafana.json; this package keeps the 2-23 characters of Azure's naming-rules page, `GRAFANA_NAME`), an Azure
Monitor workspace's `azureMonitorWorkspaceName` matches ``^(?!-)[a-zA-Z0-9-]+[^-]$`` (specification/monitor/
resource-manager/Microsoft.Monitor/Accounts/stable/2023-04-03/monitoringAccounts_API.json; 4-44 characters on the
naming-rules page).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .monitoring import GRAFANA_NAME, GRAFANA_NAME_RULE, MonitoringConfig

if TYPE_CHECKING:
    from .driver import DraDriverConfig
    from .samples import SamplesConfig

WORKSPACE_NAME = re.compile(r"(?!-)[a-zA-Z0-9-]{3,43}[^-]", re.ASCII)
WORKSPACE_NAME_RULE = "4-44 letters, digits and '-', not starting or ending with '-'"


def workspace_name(cluster: str) -> str:
    """The Azure Monitor workspace's name the package derives: 'amw-' and the cluster's name, cut to 44."""
    return f"amw-{cluster}"[:44].rstrip("-")


def grafana_name(config: MonitoringConfig, cluster: str) -> str:
    """The Managed Grafana's name: the stack's, or 'amg-' and the cluster's name cut to 23 characters."""
    return config.grafana.name or f"amg-{cluster}"[:23].rstrip("-")


def derived_name_problems(monitoring: MonitoringConfig, cluster: str) -> list[tuple[str, str]]:
    """The names derived from the cluster's name, checked as a name written by hand would be: a cluster name may hold
    '_', which neither Azure Monitor workspaces nor Managed Grafanas take."""
    problems = []
    if monitoring.collects and monitoring.workspace_id is None:
        name = workspace_name(cluster)
        if not WORKSPACE_NAME.fullmatch(name):
            problems.append(("monitoring.workspaceId", (
                f"unset, so the Azure Monitor workspace is created with a name derived from cluster.name, '{name}', "
                f"which is not a workspace name ({WORKSPACE_NAME_RULE}); name an existing workspace here, or choose a "
                "cluster name of letters, digits and '-'")))
    if monitoring.collects and monitoring.grafana.enabled and monitoring.grafana.name is None:
        name = grafana_name(monitoring, cluster)
        if not GRAFANA_NAME.fullmatch(name):
            problems.append(("monitoring.grafana.name", (
                f"the default, derived from cluster.name, is '{name}', which is not a Managed Grafana name "
                f"({GRAFANA_NAME_RULE}); set monitoring.grafana.name")))
    return problems


def monitoring_problems(
    monitoring: MonitoringConfig, cluster_name: str | None, driver: DraDriverConfig | None,
    driver_namespace: str | None, driver_release: str | None, samples: SamplesConfig | None,
) -> list[tuple[str, str]]:
    """The monitoring rules that read the cluster's name, the driver and the samples (each when it validated); keys
    are the stack file's, from the top."""
    problems = []
    if cluster_name is not None:
        problems += [(f"cluster.{key}", text) for key, text in derived_name_problems(monitoring, cluster_name)]
    metrics = monitoring.gpu_metrics
    key = "cluster.monitoring.gpuMetrics"
    if metrics.enabled:
        if metrics.namespace == driver_namespace and metrics.release_name == driver_release:
            # Helm keeps a release's record in its namespace, by name: a second install of the name is refused
            # ("cannot re-use a name that is still in use", helm/helm pkg/action/install.go).
            problems.append((f"{key}.releaseName", (
                f"'{metrics.release_name}' is the driver's release in the same namespace '{metrics.namespace}' "
                "(draDriver.releaseName, draDriver.namespace); Helm release names are unique in a namespace: choose "
                "another")))
        if samples is not None and samples.enabled and metrics.namespace == samples.namespace:
            problems.append((f"{key}.namespace", (
                f"'{metrics.namespace}' is the samples' namespace (samples.namespace), whose restricted pod security "
                "refuses the exporter's host access and whose deny-all network policy stops its scrapes; choose "
                "another")))
    elif metrics.service_monitor and driver is not None and not (driver.enabled and driver.chart.has_metrics):
        problems.append((f"{key}.serviceMonitor", (
            "asks for scrape objects, but nothing here serves metrics to scrape: gpuMetrics.enabled is false and the "
            + ("driver is not this stack's (draDriver.enabled: false)" if not driver.enabled else
               f"driver chart {driver.chart_version} serves none (0.4.x does)")
            + "; set gpuMetrics.enabled: true, or remove it")))
    return problems
