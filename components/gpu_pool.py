"""GpuNodePool: an AKS user pool of NVadsA10_v5 VMs, labelled for the NVIDIA DRA driver, with the GRID driver installed."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_azure_native.containerservice as containerservice
from pydantic import Field

from .config import GpuPoolConfig, StrInput, Taint


class GpuNodePoolArgs(GpuPoolConfig):
    """A GPU pool's settings plus the cluster it joins."""

    cluster_name: StrInput = Field(description="Name of the ManagedCluster the pool joins.")
    resource_group_name: StrInput = Field(description="Resource group of that cluster.")


def agent_pool_properties(pool: GpuPoolConfig) -> dict[str, Any]:
    """The AgentPool's inputs (snake_case, as the SDK takes them) that follow from the pool's config alone."""
    props: dict[str, Any] = {
        "agent_pool_name": pool.name,
        "mode": "User",
        "os_type": pool.os_type,
        "os_sku": pool.os_sku,
        "type": "VirtualMachineScaleSets",
        "vm_size": pool.vm_size,
        # AKS installs its GRID driver on NVadsA10_v5 (the DRA driver uses the host driver). Not the preview
        # "managed GPU" mode: that adds the nvidia.com/gpu device plugin, which collides with DRA.
        "gpu_profile": containerservice.GPUProfileArgs(driver="Install"),
        "node_labels": pool.node_labels,
        "node_taints": pool.taints or None,
        "availability_zones": pool.zones or None,
        "max_pods": pool.max_pods,
        "os_disk_size_gb": pool.os_disk_size_gb,
        "upgrade_settings": containerservice.AgentPoolUpgradeSettingsArgs(max_surge=pool.max_surge),
        # Sent at creation; with autoscaling the autoscaler owns it afterwards (see ignore_changes below).
        "count": pool.initial_count,
    }
    if pool.autoscaling:
        props.update(
            enable_auto_scaling=True,
            min_count=pool.autoscaling.min_count,
            max_count=pool.autoscaling.max_count,
        )
    else:
        props["enable_auto_scaling"] = False
    return props


def ignored_changes(pool: GpuPoolConfig) -> list[str]:
    """Inputs Pulumi must not diff: an autoscaled pool's count drifts by design (pulumi-azure-native #2943)."""
    return ["count"] if pool.autoscaling else []


class GpuNodePool(pulumi.ComponentResource):
    """One NVadsA10_v5 pool: every node presents fixed A10 vGPU slices that the DRA driver publishes."""

    pool_name: pulumi.Output[str]
    """The AKS agent pool name."""
    node_labels: dict[str, str]
    """Labels every node carries (includes nvidia.com/gpu.present=true)."""
    taints: list[Taint]
    """Taints every node carries; the DRA plugin and GPU workloads must tolerate them."""
    gpu_memory_gib: int
    """Nominal GPU memory of each vGPU device on this pool's nodes."""
    devices_per_node: int
    """vGPU devices each node presents."""
    config: GpuPoolConfig
    """The validated pool settings (for the driver and samples)."""

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("aks-dra-vgpu:index:GpuNodePool", name, None, opts)
        self.config = GpuPoolConfig.model_validate(args.model_dump(exclude={"cluster_name", "resource_group_name"}))
        pool = containerservice.AgentPool(
            f"{name}-pool",
            resource_group_name=args.resource_group_name,
            resource_name_=args.cluster_name,
            **agent_pool_properties(self.config),
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=ignored_changes(self.config)),
        )
        # The name as sent, once the pool exists (known in a preview too: AKS keeps the name verbatim).
        self.pool_name = pool.urn.apply(lambda _: self.config.name)
        self.node_labels = self.config.node_labels
        self.taints = self.config.parsed_taints
        self.gpu_memory_gib = self.config.size.gpu_memory_gib
        self.devices_per_node = self.config.size.devices_per_node
        self.register_outputs(
            {
                "poolName": self.pool_name,
                "nodeLabels": self.node_labels,
                "taints": [str(t) for t in self.taints],
                "gpuMemoryGib": self.gpu_memory_gib,
                "devicesPerNode": self.devices_per_node,
            }
        )
