"""GpuNodePool: an AKS user pool of NVadsA10_v5 VMs, labelled for the NVIDIA DRA driver, with the GRID driver installed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi_azure_native.containerservice as containerservice
from pydantic import Field, model_validator

from ..config import GpuPoolConfig, KeyedProblemsError, StrInput, Taint
from ..config.pool_parts import ephemeral_os_disk_unchecked
from ..config.versions import pool_skew_problem


class GpuNodePoolArgs(GpuPoolConfig):
    """A GPU pool's settings plus the cluster it joins."""

    cluster_name: StrInput = Field(description="Name of the ManagedCluster the pool joins.")
    resource_group_name: StrInput = Field(description="Resource group of that cluster.")
    cluster_kubernetes_version: str | None = Field(
        None,
        description="The control plane's Kubernetes version: the pool follows it (orchestratorVersion) unless it pins "
        "kubernetes_version. Without either, AKS picks the control plane's version at creation and the pool never "
        "upgrades with the cluster (an AKS cluster PUT does not upgrade separately managed pools).",
    )

    @model_validator(mode="after")
    def _within_skew(self) -> GpuNodePoolArgs:
        if self.kubernetes_version and self.cluster_kubernetes_version:
            problem = pool_skew_problem(self.kubernetes_version, self.cluster_kubernetes_version)
            if problem:
                raise KeyedProblemsError(("kubernetesVersion", problem))
        return self

    @property
    def orchestrator_version(self) -> str | None:
        """The version the pool runs: its own pin, else the control plane's."""
        return self.kubernetes_version or self.cluster_kubernetes_version


def agent_pool_properties(pool: GpuPoolConfig, orchestrator_version: str | None = None) -> dict[str, Any]:
    """The AgentPool's inputs (snake_case, as the SDK takes them) that follow from the pool's config alone."""
    props: dict[str, Any] = {
        # Separately managed pools upgrade only through their own orchestratorVersion (Azure/AKS #2905, #3087).
        "orchestrator_version": orchestrator_version or pool.kubernetes_version,
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
        # With AKS's own spot taint on a spot pool: AKS reports it back, so declaring it keeps refreshes clean.
        "node_taints": pool.node_taints or None,
        "availability_zones": pool.zones or None,
        "max_pods": pool.max_pods,
        "os_disk_size_gb": pool.os_disk_size_gb,
        "os_disk_type": pool.effective_os_disk_type,
        "scale_down_mode": pool.scale_down_mode,
        "capacity_reservation_group_id": pool.capacity_reservation_group_id,
        "vnet_subnet_id": pool.vnet_subnet_id,
        "tags": pool.tags or None,
        # Sent at creation; with autoscaling the autoscaler owns it afterwards (see ignore_changes below).
        "count": pool.initial_count,
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


def ignored_changes(pool: GpuPoolConfig) -> list[str]:
    """Inputs Pulumi must not diff: an autoscaled pool's count drifts by design (pulumi-azure-native #2943)."""
    return ["count"] if pool.autoscaling else []


def shared_subnet_predecessors(pools: Sequence[GpuPoolConfig]) -> list[int | None]:
    """Per pool, the index of the last pool before it on the same bring-your-own subnet (None: nothing to wait for).

    Pools of one cluster need no order among themselves: AKS refuses a second operation on the *same* pool while one
    runs, not operations on two pools (AKS troubleshooting, "Cluster pending operation (OperationNotAllowed) errors";
    cilium/cilium #25944 was an operation on a pool still Creating). What fails is two pools joining one
    bring-your-own subnet at once: AKS sets the virtual network's ownership for each and refuses while it is Updating
    (SetVNetOwnershipFailed / VirtualNetworkNotInSucceededState, Azure/AKS #4522), which is why terraform-provider-azurerm
    locks the subnet while it creates a pool (internal/services/containers/kubernetes_cluster_node_pool_resource.go,
    `locks.MultipleByID(&subnetIDsToLock)`; hashicorp/terraform-provider-azurerm #32001, #32682). Pools in AKS's own
    network (no vnetSubnetID) run side by side. Compose GpuNodePools yourself: pass the AgentPool of the pool this
    names in `depends_on`, as GpuPlatform does.
    """
    last: dict[str, int] = {}
    found: list[int | None] = []
    for index, pool in enumerate(pools):
        subnet = pool.vnet_subnet_id.lower() if pool.vnet_subnet_id else None  # ARM IDs compare case-insensitively
        found.append(last.get(subnet) if subnet else None)
        if subnet:
            last[subnet] = index
    return found


def _waits_for(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    """The resources given in the component's own depends_on (a resource or a list of them)."""
    given = opts.depends_on if opts is not None else None
    if given is None:
        return []
    return [given] if isinstance(given, pulumi.Resource) else [r for r in given if isinstance(r, pulumi.Resource)]


class GpuNodePool(pulumi.ComponentResource):
    """One NVadsA10_v5 pool: every node presents fixed A10 vGPU slices that the DRA driver publishes."""

    pool_name: pulumi.Output[str]
    """The AKS agent pool name."""
    node_labels: dict[str, str]
    """Labels every node carries (includes nvidia.com/gpu.present=true)."""
    taints: list[Taint]
    """Taints every node carries (AKS's spot taint included); the DRA plugin and GPU workloads must tolerate them."""
    gpu_memory_gib: int
    """Nominal GPU memory of each vGPU device on this pool's nodes."""
    devices_per_node: int
    """vGPU devices each node presents."""
    config: GpuPoolConfig
    """The validated pool settings (for the driver and samples)."""
    agent_pool: containerservice.AgentPool
    """The AKS agent pool itself: what anything that must wait for this pool's Azure operation depends on."""

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("aks-dra-vgpu:index:GpuNodePool", name, None, opts)
        self.config = GpuPoolConfig.model_validate(
            args.model_dump(exclude={"cluster_name", "resource_group_name", "cluster_kubernetes_version"})
        )
        self.agent_pool = pool = containerservice.AgentPool(
            f"{name}-pool",
            resource_group_name=args.resource_group_name,
            resource_name_=args.cluster_name,
            **agent_pool_properties(self.config, args.orchestrator_version),
            # What the component waits for, its AgentPool waits for (in GpuPlatform: the cluster's maintenance
            # configurations, and the pool before it on a shared bring-your-own subnet).
            opts=pulumi.ResourceOptions(
                parent=self, ignore_changes=ignored_changes(self.config), depends_on=_waits_for(opts)
            ),
        )
        # The name as sent, once the pool exists (known in a preview too: AKS keeps the name verbatim).
        self.pool_name = pool.urn.apply(lambda _: self.config.name)
        if self.config.os_disk_type == "Ephemeral" and ephemeral_os_disk_unchecked(self.config.size):
            pulumi.log.warn(
                f"{name}: osDiskType Ephemeral is unchecked: the catalog does not know {self.config.vm_size}'s temp "
                "disk, so AKS decides whether the OS disk fits",
                resource=self,
            )
        self.node_labels = self.config.node_labels
        self.taints = self.config.effective_taints
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
