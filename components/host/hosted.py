"""The plugin's component table, in one place (as pulumi-awsx's `resources.ts` is): each component other languages get,
by its schema name, with the class the host builds, the args model its inputs validate into, and its outputs.

The schema (`contract.py`), Construct (`server.py`) and the tests all read this table; nothing else lists components.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pydantic import BaseModel

from .. import platform
from ..azure import cluster, fleet, gpu_pool
from ..kubernetes import claim_templates, dra_driver, dra_samples, extended_resources
from ..observability import exporter


@dataclass(frozen=True)
class Hosted:
    """One component as the plugin serves it."""

    component: type[pulumi.ComponentResource]
    args: type[BaseModel]
    outputs: type

    @property
    def description(self) -> str:
        """The component's one-line summary: the first line of its class docstring."""
        return (self.component.__doc__ or "").strip().splitlines()[0]


HOSTED: dict[str, Hosted] = {
    "AksCluster": Hosted(cluster.AksCluster, cluster.AksClusterArgs, cluster.AksClusterOutputs),
    "GpuNodePool": Hosted(gpu_pool.GpuNodePool, gpu_pool.GpuNodePoolArgs, gpu_pool.GpuNodePoolOutputs),
    "NvidiaDraDriver": Hosted(dra_driver.NvidiaDraDriver, dra_driver.NvidiaDraDriverArgs, dra_driver.NvidiaDraDriverOutputs),
    "DraSamples": Hosted(dra_samples.DraSamples, dra_samples.DraSamplesArgs, dra_samples.DraSamplesOutputs),
    "DraClaimTemplates": Hosted(
        claim_templates.DraClaimTemplates, claim_templates.DraClaimTemplatesArgs, claim_templates.DraClaimTemplatesOutputs
    ),
    "ExtendedResources": Hosted(
        extended_resources.ExtendedResources, extended_resources.ExtendedResourcesArgs,
        extended_resources.ExtendedResourcesOutputs,
    ),
    "GpuMetrics": Hosted(exporter.GpuMetrics, exporter.GpuMetricsArgs, exporter.GpuMetricsOutputs),
    "GpuPlatform": Hosted(platform.GpuPlatform, platform.GpuPlatformArgs, platform.GpuPlatformOutputs),
    "GpuFleet": Hosted(fleet.GpuFleet, fleet.GpuFleetArgs, fleet.GpuFleetOutputs),
}
"""What the plugin serves, in schema order."""
