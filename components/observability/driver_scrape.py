"""DraDriverScrape: the one scrape object for the NVIDIA DRA driver's kubelet plugin, where its chart serves metrics."""

from __future__ import annotations

import pulumi

from ..config import DraDriverConfig
from ..kubernetes.dra_driver import LEGACY_NAME
from ..kubernetes.providers import require_kubernetes_provider
from .scrape import custom_resource, plugin_scrape_object


def scrapes_driver(driver: DraDriverConfig, scrape_group: str | None) -> bool:
    """The driver is ours, its chart version serves metrics (0.4.x), and a Prometheus reads scrape objects."""
    return driver.enabled and driver.chart.has_metrics and scrape_group is not None


class DraDriverScrape(pulumi.ComponentResource):
    """A PodMonitor (of the stack's Prometheus group) for the DRA kubelet plugin's metrics on :8080."""

    def __init__(
        self, name: str, driver: DraDriverConfig, scrape_group: str, interval_seconds: int,
        opts: pulumi.ResourceOptions | None = None,
    ):
        require_kubernetes_provider("DraDriverScrape", opts)
        super().__init__("aks-dra-vgpu:index:DraDriverScrape", name, None, opts)

        manifest = plugin_scrape_object(
            scrape_group, driver.namespace, driver.release_name, driver.chart, LEGACY_NAME, interval_seconds
        )
        custom_resource(f"{name}-podmonitor", manifest, pulumi.ResourceOptions(parent=self))
        self.register_outputs({})
