"""The monitoring section of the cluster: what AKS collects and where it goes."""

from __future__ import annotations

from pydantic import Field

from .base import Model


class MonitoringConfig(Model):
    """Cluster monitoring add-ons."""

    managed_prometheus: bool | None = Field(
        None,
        description="Azure Monitor managed Prometheus (azureMonitorProfile.metrics.enabled): true runs AKS's metrics "
        "agent on every node, false turns it off, unset leaves it as it is. Its Azure Monitor workspace and data "
        "collection rule are not created by this package; see docs/production.md.",
    )
