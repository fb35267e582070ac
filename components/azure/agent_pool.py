"""One AgentPool-args mapping: what AKS takes for a node pool, shared by the GPU pools (separate AgentPool resources)
and the cluster's inline system pool (a ManagedClusterAgentPoolProfile), so the two never spell a property apart.

The AgentPool and the inline profile take the same property names (Azure/azure-rest-api-specs,
Microsoft.ContainerService/aks/stable/2025-09-01/managedClusters.json: ``ManagedClusterAgentPoolProfileProperties`` is
both the AgentPool's properties and, with ``name``, the profile); pulumi-azure-native's Python SDK spells them alike
(`containerservice.AgentPool`, `containerservice.ManagedClusterAgentPoolProfileArgs`).
"""

from __future__ import annotations

from typing import Any

import pulumi_azure_native.containerservice as containerservice

from ..config import ClusterConfig, GpuPoolConfig


def shared_pool_properties(
    *,
    mode: str,
    os_type: str,
    vm_size: str,
    count: int,
    zones: list[str],
    max_pods: int,
    os_disk_size_gb: int,
    node_taints: list[str],
    vnet_subnet_id: str | None,
    orchestrator_version: str | None,
) -> dict[str, Any]:
    """The properties every pool of this package sets, as both the AgentPool and the inline profile take them."""
    return {
        "mode": mode,
        "orchestrator_version": orchestrator_version,
        "os_type": os_type,
        "type": "VirtualMachineScaleSets",
        "vm_size": vm_size,
        "count": count,
        "availability_zones": zones or None,
        "max_pods": max_pods,
        "os_disk_size_gb": os_disk_size_gb,
        "node_taints": node_taints or None,
        "vnet_subnet_id": vnet_subnet_id,
    }


def system_pool_profile(config: ClusterConfig) -> containerservice.ManagedClusterAgentPoolProfileArgs:
    """The cluster's one inline pool (System mode); GPU pools are separate AgentPools (editing inline pools updates the
    cluster)."""
    pool = config.system_pool
    return containerservice.ManagedClusterAgentPoolProfileArgs(
        name=pool.name,
        **shared_pool_properties(
            mode="System",
            os_type="Linux",
            vm_size=pool.vm_size,
            count=pool.count,
            zones=pool.zones,
            max_pods=pool.max_pods,
            os_disk_size_gb=pool.os_disk_size_gb,
            node_taints=["CriticalAddonsOnly=true:NoSchedule"] if pool.critical_addons_only else [],
            vnet_subnet_id=config.network.vnet_subnet_id,
            # The system pool upgrades with the control plane in the same PUT only when told to (Azure/AKS #2905).
            orchestrator_version=config.kubernetes_version,
        ),
    )


def agent_pool_properties(pool: GpuPoolConfig, orchestrator_version: str | None = None) -> dict[str, Any]:
    """The AgentPool's inputs (snake_case, as the SDK takes them) that follow from the pool's config alone."""
    props: dict[str, Any] = {
        **shared_pool_properties(
            mode="User",
            os_type=pool.os_type,
            vm_size=pool.vm_size,
            count=pool.initial_count,  # with autoscaling the autoscaler owns it afterwards (see ignored_changes)
            zones=pool.zones,
            max_pods=pool.max_pods,
            os_disk_size_gb=pool.os_disk_size_gb,
            # With AKS's own spot taint on a spot pool: AKS reports it back, so declaring it keeps refreshes clean.
            node_taints=pool.node_taints,
            vnet_subnet_id=pool.vnet_subnet_id,
            # Separately managed pools upgrade only through their own orchestratorVersion (Azure/AKS #2905, #3087).
            orchestrator_version=orchestrator_version or pool.kubernetes_version,
        ),
        "agent_pool_name": pool.name,
        "os_sku": pool.os_sku,
        # AKS installs its GRID driver on NVadsA10_v5 (the DRA driver uses the host driver). Not the preview
        # "managed GPU" mode: that adds the nvidia.com/gpu device plugin, which collides with DRA. On a MIG size AKS
        # installs its CUDA datacenter driver and partitions only where it installs one (Azure/AgentBaker cse_main.sh).
        "gpu_profile": containerservice.GPUProfileArgs(driver="Install"),
        # MIG pools only (None is not sent): the AgentPool's `gpuInstanceProfile` (pulumi-azure-native 3.x
        # containerservice.AgentPool `gpu_instance_profile`, enum GPUInstanceProfile MIG1g..MIG7g), a slice name
        # already translated; force-new in pulumi-azure-native (provider/pkg/gen/replacement.go, PR #3655).
        "gpu_instance_profile": pool.mig_profile,
        "node_labels": pool.node_labels,
        "os_disk_type": pool.effective_os_disk_type,
        "scale_down_mode": pool.scale_down_mode,
        "capacity_reservation_group_id": pool.capacity_reservation_group_id,
        "tags": pool.tags or None,
    }
    surge = pool.upgrade_surge
    if surge is not None:
        props["upgrade_settings"] = containerservice.AgentPoolUpgradeSettingsArgs(max_surge=surge)
    if pool.spot is not None:
        props.update(
            scale_set_priority="Spot",
            scale_set_eviction_policy=pool.spot.eviction_policy,
            spot_max_price=pool.spot.max_price,
        )
    if pool.autoscaling:
        props.update(
            enable_auto_scaling=True,
            min_count=pool.autoscaling.min_count,
            max_count=pool.autoscaling.max_count,
        )
    else:
        props["enable_auto_scaling"] = False
    return props


def ignored_changes(pool: GpuPoolConfig, upgraded_with_cluster: bool = False) -> list[str]:
    """Inputs Pulumi must not diff: an autoscaled pool's count drifts by design (pulumi-azure-native #2943), and the
    version of a pool that AKS's channel or a fleet's update runs upgrade with the control plane
    (`config.upgrades.version_owner`): diffing it would move this pool alone, ahead of its control plane, which AKS
    refuses, or back after an upgrade."""
    return (["count"] if pool.autoscaling else []) + (["orchestratorVersion"] if upgraded_with_cluster else [])
