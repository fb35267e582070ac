"""GpuNodePool: an AKS user pool of NVadsA10_v5 VMs (or of a MIG size AKS partitions), labelled for the NVIDIA DRA
driver, with the NVIDIA driver installed by AKS."""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
import pulumi_azure_native.containerservice as containerservice
from pydantic import Field, model_validator

from ..config import GpuPoolConfig, KeyedProblemsError, StrInput, Taint
from ..config.args import component_args
from ..config.azure import virtual_network_of
from ..config.base import unset
from ..config.pool_parts import ephemeral_os_disk_unchecked
from ..config.versions import pool_skew_problem
from ..outputs import output, register_declared
from .agent_pool import agent_pool_properties, ignored_changes


class GpuNodePoolArgs(GpuPoolConfig):
    """A GPU pool's settings plus the cluster it joins."""

    cluster_name: StrInput = Field(description="Name of the ManagedCluster the pool joins.")
    resource_group_name: StrInput = Field(description="Resource group of that cluster.")
    cluster_kubernetes_version: str | None = unset(
        "The control plane's Kubernetes version: the pool follows it (orchestratorVersion) unless it pins "
        "kubernetes_version. Without either, AKS picks the control plane's version at creation and the pool never "
        "upgrades with the cluster (an AKS cluster PUT does not upgrade separately managed pools).",
    )

    upgraded_with_cluster: bool = Field(
        False,
        description="The cluster's version is moved by AKS's stable or rapid channel or by a fleet's update runs, "
        "which upgrade every pool with the control plane: the pool's version is sent when it is created and never "
        "diffed after (a change would move this pool alone: ahead of its control plane, which AKS refuses, or back "
        "after an upgrade). A pool pinned with kubernetes_version is refused with it.",
    )

    @property
    def orchestrator_version(self) -> str | None:
        """The version the pool runs: its own pin, else the control plane's."""
        return self.kubernetes_version or self.cluster_kubernetes_version

    @model_validator(mode="after")
    def _within_skew(self) -> GpuNodePoolArgs:
        if self.kubernetes_version and self.upgraded_with_cluster:
            raise KeyedProblemsError(("kubernetesVersion", (
                f"'{self.kubernetes_version}' pins this pool, but upgradedWithCluster says the cluster's upgrades "
                "move every pool with the control plane, and its version is sent only when the pool is created; "
                "leave it unset")))
        if self.kubernetes_version and self.cluster_kubernetes_version:
            problem = pool_skew_problem(self.kubernetes_version, self.cluster_kubernetes_version)
            if problem:
                raise KeyedProblemsError(("kubernetesVersion", problem))
        return self


def shared_vnet_predecessors(pools: Sequence[GpuPoolConfig]) -> list[int | None]:
    """Per pool, the index of the last pool before it in the same bring-your-own virtual network (None: nothing to wait
    for). Two subnets of one VNet count as one network: the race is on the VNet.

    Pools of one cluster need no order among themselves: AKS refuses a second operation on the *same* pool while one
    runs, not operations on two pools (AKS troubleshooting, "Cluster pending operation (OperationNotAllowed) errors";
    cilium/cilium #25944 was an operation on a pool still Creating). What fails is two pools joining one bring-your-own
    virtual network at once: AKS sets the network's ownership for each and refuses while the *virtual network* is
    Updating (SetVNetOwnershipFailed, "VirtualNetworkNotInSucceededState": the error names the VNet, Azure/AKS #4522),
    which is why terraform-provider-azurerm locks the VNet beside the subnet while it creates a pool
    (hashicorp/terraform-provider-azurerm PR #32682, internal/services/containers/kubernetes_cluster_node_pool_resource.go;
    before it only the subnet: #32001). The VNet is the subnet ID's parent (`.../virtualNetworks/<vnet>`), compared
    case-insensitively as ARM does. Pools in AKS's own network (no vnetSubnetID) run side by side. Compose GpuNodePools
    yourself: pass the AgentPool of the pool this names in `depends_on`, as GpuPlatform does.
    """
    last: dict[str, int] = {}
    found: list[int | None] = []
    for index, pool in enumerate(pools):
        vnet = virtual_network_of(pool.vnet_subnet_id)
        found.append(last.get(vnet) if vnet else None)
        if vnet:
            last[vnet] = index
    return found


shared_subnet_predecessors = shared_vnet_predecessors
"""The former name of shared_vnet_predecessors (pools were chained per subnet; the race is per virtual network)."""


def _waits_for(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    """The resources given in the component's own depends_on (a resource or a list of them)."""
    given = opts.depends_on if opts is not None else None
    if given is None:
        return []
    return [given] if isinstance(given, pulumi.Resource) else [r for r in given if isinstance(r, pulumi.Resource)]


class GpuNodePoolOutputs:
    """What a GpuNodePool gives back, in Python and in every other language."""

    pool_name: pulumi.Output[str] = output("The AKS agent pool name.")
    node_labels: dict[str, str] = output("Labels every node carries (includes nvidia.com/gpu.present=true).")
    taints: list[Taint] = output(
        "Taints every node carries ('key=value:Effect', AKS's spot taint included); GPU workloads must tolerate them."
    )
    gpu_memory_gib: int = output("Nominal GPU memory (GiB) of each device on this pool's nodes (vGPU or MIG slice).")
    devices_per_node: int = output("Devices each node presents (vGPU devices, or GPUs x MIG slices per GPU).")


class GpuNodePool(GpuNodePoolOutputs, pulumi.ComponentResource):
    """One GPU pool: every node presents fixed A10 vGPU slices, or the MIG slices AKS lays out at boot
    (gpuInstanceProfile), and the DRA driver publishes them."""

    config: GpuPoolConfig
    """The validated pool settings (for the driver and samples)."""
    orchestrator_version: str | None
    """The Kubernetes version the pool runs: its pin, else the control plane's it was given (ExtendedResources checks
    it: a kubelet older than 1.36 never prepares an extended-resource claim)."""
    agent_pool: containerservice.AgentPool
    """The AKS agent pool itself: what anything that must wait for this pool's Azure operation depends on."""

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        args = component_args(GpuNodePoolArgs, args)
        super().__init__("aks-dra-vgpu:index:GpuNodePool", name, None, opts)
        self.config = GpuPoolConfig.model_validate(
            args.model_dump(exclude={"cluster_name", "resource_group_name", "cluster_kubernetes_version",
                                     "upgraded_with_cluster"})
        )
        self.orchestrator_version = args.orchestrator_version
        self.agent_pool = pool = containerservice.AgentPool(
            f"{name}-pool",
            resource_group_name=args.resource_group_name,
            resource_name_=args.cluster_name,
            **agent_pool_properties(self.config, args.orchestrator_version),
            # What the component waits for, its AgentPool waits for (in GpuPlatform: the cluster's maintenance
            # configurations, and the pool before it in a shared bring-your-own VNet).
            opts=pulumi.ResourceOptions(
                parent=self, ignore_changes=ignored_changes(self.config, args.upgraded_with_cluster),
                depends_on=_waits_for(opts),
            ),
        )
        # The name as sent, once the pool exists (known in a preview too: AKS keeps the name verbatim).
        self.pool_name = pool.urn.apply(lambda _: self.config.name)
        if self.config.os_disk_type == "Ephemeral" and ephemeral_os_disk_unchecked(self.config.catalog_size):
            pulumi.log.warn(
                f"{name}: osDiskType Ephemeral is unchecked: the catalog does not know {self.config.vm_size}'s temp "
                "disk, so AKS decides whether the OS disk fits",
                resource=self,
            )
        self.node_labels = self.config.node_labels
        self.taints = self.config.effective_taints
        self.gpu_memory_gib = self.config.slice_memory_gib
        self.devices_per_node = self.config.devices_per_node
        register_declared(self)
