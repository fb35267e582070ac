"""The GPU pools section: one NVadsA10_v5 size per pool, labels, taints, autoscaling, spot, disks, subnet, tags.

AgentPool field names and values as AKS takes them (Azure/azure-rest-api-specs, Microsoft.ContainerService/aks/stable/
2025-09-01/managedClusters.json, ``ManagedClusterAgentPoolProfileProperties``: scaleSetPriority, scaleSetEvictionPolicy,
spotMaxPrice, scaleDownMode, osDiskType, capacityReservationGroupID, vnetSubnetID, tags; the same enums in
pulumi_azure_native.containerservice: ``ScaleSetPriority``, ``ScaleSetEvictionPolicy``, ``ScaleDownMode``, ``OSDiskType``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from ..catalog import A10_SIZES, GPU_PRESENT_LABEL, MIG_SIZES, RESERVED_LABEL_PREFIXES, A10Size
from .base import KubernetesVersion, Model, PoolName, Zones, unset
from .errors import KeyedProblemsError
from .limits import Tags
from .mig_pools import MigPoolParts, pool_profile_problems
from .pool_parts import (
    DEFAULT_SURGE,
    SPOT_LABEL,
    SPOT_TAINT,
    AutoscalingConfig,
    SpotConfig,
    ephemeral_os_disk_problem,
)
from .size_hints import size_hint
from .syntax import Taint, check_label_key, check_label_value, parse_taint
from .types import CapacityReservationGroupId, SubnetId, Surge, TaintText


class GpuPoolConfig(MigPoolParts, Model):
    """A GPU node pool of one size: NVadsA10_v5 (fixed vGPU slices), or a MIG size whose GPUs AKS partitions into the
    slices of its gpuInstanceProfile; either way the DRA driver publishes the slices."""

    name: PoolName = Field(description="Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters.")
    # The enum is for the JSON schema (editors); the validator below keeps its "did you mean" for everyone else.
    vm_size: str = Field(
        description="The NVadsA10_v5 size of every node in the pool (docs/sizing.md compares them), or a MIG size "
        "(A100, H100, H200) with gpuInstanceProfile (docs/mig.md).",
        json_schema_extra={"enum": [*A10_SIZES, *MIG_SIZES]},
    )
    gpu_instance_profile: str | None = unset(
        "MIG sizes only, and required there: how AKS partitions every GPU of every node (gpuInstanceProfile): MIG1g, "
        "MIG2g, MIG3g, MIG4g or MIG7g, or the slice it gives on this size's GPU (e.g. 3g.40gb on an A100 80GB), "
        "translated. Fixed at creation: a change replaces the pool (docs/mig.md).",
    )
    count: int | None = Field(
        None, ge=0, le=1000,
        description="Node count (0-1000). With autoscaling, the initial count only (default minCount); never diffed.",
    )
    autoscaling: AutoscalingConfig | None = unset("Turn on the cluster autoscaler with these bounds.")
    zones: Zones = Field(
        description="Availability zones ('1', '2', '3'); fixed at creation: AKS refuses a change in place (add a new "
        "pool beside it; docs/safe-changes.md).",
    )
    labels: dict[str, str] = Field(
        default_factory=dict, description="Extra node labels; nvidia.com/gpu.present=true is always added."
    )
    taints: list[TaintText] = Field(
        default_factory=list,
        description="Node taints, 'key=value:Effect'; the DRA plugin and samples tolerate them (and AKS's spot taint "
        "on a spot pool).",
    )
    max_pods: int = Field(
        110, ge=10, le=250,
        description="Maximum pods per node (10-250); fixed at creation: AKS refuses a change in place (add a new pool "
        "beside it; docs/safe-changes.md).",
    )
    os_type: Literal["Linux"] = Field("Linux", description="GPU pools are Linux: the DRA driver runs only there.")
    os_sku: Literal["Ubuntu", "AzureLinux"] = Field("Ubuntu", description="Node OS image; changed in place, each node reimaged.")
    os_disk_size_gb: int = Field(128, ge=30, le=2048, description="OS disk size in GB.")
    max_surge: Surge | None = unset(
        "Upgrade surge: extra nodes during upgrades, a number or a percentage (default '1'). Not for spot "
        "pools (AKS upgrades spot nodes without surge).",
    )
    spot: SpotConfig | None = unset(
        "Run on Spot VMs (scaleSetPriority Spot). AKS labels and taints spot nodes "
        "kubernetes.azure.com/scalesetpriority=spot:NoSchedule; the DRA plugin and samples tolerate it. Fixed at "
        "creation: AKS refuses a change in place (add a new pool beside it; docs/safe-changes.md).",
    )
    scale_down_mode: Literal["Delete", "Deallocate"] | None = unset(
        "What scaling down does to a VM (scaleDownMode): Delete (AKS's default) or Deallocate (stopped, "
        "disk kept: a GPU node comes back with its GRID driver and images in place, faster than a new one; its "
        "managed OS disk is still billed). Deallocate needs Managed OS disks; see docs/sizing.md.",
    )
    os_disk_type: Literal["Managed", "Ephemeral"] | None = unset(
        "OS disk (osDiskType): Ephemeral (on the VM's local temp disk: faster reimage and boot, free; "
        "checked against the size's temp disk where the catalog knows it) or Managed. Unset: AKS picks Ephemeral "
        "when it fits, except with scaleDownMode Deallocate (Managed). Fixed at creation: AKS refuses a change in place "
        "(add a new pool beside it; docs/safe-changes.md).",
    )
    capacity_reservation_group_id: CapacityReservationGroupId | None = unset(
        "ARM ID of a capacity reservation group (/subscriptions/…/resourceGroups/…/providers/"
        "Microsoft.Compute/capacityReservationGroups/…) whose reserved NVadsA10_v5 capacity the pool's VMs use "
        "(capacityReservationGroupID). The cluster identity needs access to it. Fixed at creation: AKS refuses a change "
        "in place.",
    )
    vnet_subnet_id: SubnetId | None = unset(
        "ARM ID of the subnet for this pool's nodes (vnetSubnetID); default cluster.network.vnetSubnetId. "
        "Must be in the same virtual network as the cluster's subnet.",
    )
    tags: Tags = Field(
        default_factory=dict,
        description="Azure tags for the pool's VM scale set, merged over cluster.tags (these win).",
    )
    sharing: Literal["none", "memory"] = Field(
        "none",
        description="none: each claim gets whole slices. memory: several claims share one slice by GPU memory (the "
        "driver's ConsumableShares; needs draDriver.chartVersion 0.5.0 or newer and Kubernetes 1.36 or newer). No "
        "memory isolation or fair compute between the pods on one slice; see docs/sizing.md.",
    )
    kubernetes_version: KubernetesVersion | None = unset(
        "Pin this pool's Kubernetes version (orchestratorVersion) for a staged rollout; default: the "
        "cluster's kubernetesVersion, so the pool upgrades with the cluster. Never newer than the control plane, at "
        "most two minor versions behind it; refused where a fleet's update runs or the stable or rapid channel own "
        "the version (they upgrade every pool with the control plane).",
    )

    @field_validator("vm_size")
    @classmethod
    def _vm_size(cls, v: str) -> str:
        if v not in A10_SIZES and v not in MIG_SIZES:
            # The MIG sizes by reference: listed here they would push the A10 choices out of a one-line error.
            raise ValueError(
                f"'{v}' is not an NVadsA10_v5 size{size_hint(v, A10_SIZES, MIG_SIZES)}; choose one of "
                f"{', '.join(A10_SIZES)}, or a MIG size with gpuInstanceProfile (docs/mig.md)"
            )
        return v

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        problems = []
        for key, value in v.items():
            if key.startswith(RESERVED_LABEL_PREFIXES):
                problems.append(
                    f"label key '{key}' uses a reserved prefix; AKS reserves {', '.join(RESERVED_LABEL_PREFIXES)}"
                )
            elif key == GPU_PRESENT_LABEL[0] and value != GPU_PRESENT_LABEL[1]:
                problems.append(f"label '{key}' must be '{GPU_PRESENT_LABEL[1]}' (the DRA plugin selects nodes by it)")
            else:
                problem = check_label_key(key) or check_label_value(value)
                if problem:
                    problems.append(problem)
        if problems:
            raise ValueError("; ".join(problems))
        return v

    @field_validator("taints")
    @classmethod
    def _taints(cls, v: list[str]) -> list[str]:
        parsed = [parse_taint(text) for text in v]
        for text, taint in zip(v, parsed, strict=True):
            if taint.key == SPOT_LABEL[0]:
                raise ValueError(f"'{text}': AKS puts this taint on spot nodes itself; set spot: {{}} instead")
        twice = sorted({t for t in v if v.count(t) > 1})
        if twice:
            raise ValueError(f"{', '.join(repr(t) for t in twice)} listed twice; list each taint once")
        # Kubernetes refuses a node whose taints repeat a key and effect (kubernetes/kubernetes
        # pkg/apis/core/validation/validation.go, validateNodeTaints: "taints must be unique by key and effect pair").
        seen: dict[tuple[str, str], str] = {}
        for text, taint in zip(v, parsed, strict=True):
            first = seen.setdefault((taint.key, taint.effect), text)
            if first != text:
                raise ValueError(
                    f"'{first}' and '{text}' have the same key and effect; Kubernetes allows one taint per key and effect"
                )
        return v

    @model_validator(mode="after")
    def _spot_and_disks(self) -> GpuPoolConfig:
        problems: list[tuple[str, str]] = []
        if self.spot is not None and self.max_surge is not None:
            # AKS has no surge for spot pools (terraform-provider-azurerm kubernetes_cluster_node_pool_resource.go:
            # "Spot pools do not support `max_surge`").
            problems.append(("maxSurge", "spot pools take no upgrade surge (AKS upgrades spot nodes in place); remove it"))
        if self.scale_down_mode == "Deallocate" and self.os_disk_type == "Ephemeral":
            # learn.microsoft.com/azure/aks/scale-down-mode, "Limitations": ephemeral OS disks aren't supported.
            problems.append((
                "osDiskType",
                "Ephemeral cannot be kept with scaleDownMode Deallocate (AKS deallocates only VMs with managed OS "
                "disks); use Managed, or scaleDownMode Delete",
            ))
        problem = (ephemeral_os_disk_problem(self.catalog_size, self.os_disk_size_gb)
                   if self.os_disk_type == "Ephemeral" else None)
        if problem:
            problems.append(("osDiskSizeGb", problem))
        problems += pool_profile_problems(self.vm_size, self.gpu_instance_profile)
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    @model_validator(mode="after")
    def _count(self) -> GpuPoolConfig:
        a = self.autoscaling
        if a and self.count is not None and not a.min_count <= self.count <= a.max_count:
            raise KeyedProblemsError(("count", f"{self.count} is outside the autoscaling bounds [{a.min_count}, {a.max_count}]"))
        return self

    @property
    def size(self) -> A10Size:
        """The catalog entry of this A10 pool's VM size; a MIG pool has none (see `mig_size`), so code that sizes A10
        slices cannot mistake a MIG slice for one."""
        if self.vm_size not in A10_SIZES:
            raise TypeError(f"pool '{self.name}' ({self.vm_size}) is a MIG pool: read mig_size and mig_slice")
        return A10_SIZES[self.vm_size]

    @property
    def node_labels(self) -> dict[str, str]:
        """The labels every node gets: the user's, the one the DRA plugin selects by, and AKS's spot label."""
        labels = {**self.labels, GPU_PRESENT_LABEL[0]: GPU_PRESENT_LABEL[1]}
        if self.spot is not None:
            labels[SPOT_LABEL[0]] = SPOT_LABEL[1]
        return labels

    @property
    def node_taints(self) -> list[str]:
        """The taints every node carries, as AKS takes them: the user's, plus AKS's spot taint on a spot pool."""
        return [*self.taints, SPOT_TAINT] if self.spot is not None else list(self.taints)

    @property
    def effective_taints(self) -> list[Taint]:
        """Every taint the nodes carry, parsed: what the DRA plugin and GPU workloads must tolerate."""
        return [parse_taint(t) for t in self.node_taints]

    @property
    def parsed_taints(self) -> list[Taint]:
        """The same as effective_taints (the user's taints and AKS's spot taint), under its first name."""
        return self.effective_taints

    @property
    def upgrade_surge(self) -> str | None:
        """The maxSurge to send: the one set, or '1'; none for a spot pool (AKS has no surge for spot)."""
        if self.spot is not None:
            return None
        return self.max_surge or DEFAULT_SURGE

    @property
    def effective_os_disk_type(self) -> str | None:
        """The osDiskType to send: the one set, Managed for a pool that deallocates, else None (AKS decides)."""
        if self.os_disk_type is None and self.scale_down_mode == "Deallocate":
            # AKS would pick Ephemeral on these sizes (their temp disks hold the default OS disk), which Deallocate
            # cannot keep: learn.microsoft.com/azure/aks/scale-down-mode says to ask for Managed explicitly.
            return "Managed"
        return self.os_disk_type

    def inheriting(self, tags: Mapping[str, str], vnet_subnet_id: str | None) -> GpuPoolConfig:
        """This pool with the cluster's defaults filled in: its tags merged over the cluster's, its subnet or the cluster's."""
        return self.model_copy(
            update={"tags": {**tags, **self.tags}, "vnet_subnet_id": self.vnet_subnet_id or vnet_subnet_id}
        )

    @property
    def initial_count(self) -> int:
        """The count sent to AKS at creation: the configured one, or the autoscaler's minimum, or 1."""
        if self.count is not None:
            return self.count
        return self.autoscaling.min_count if self.autoscaling else 1


def _pool_settings(value: Any) -> Any:
    """A pool given as its GpuNodePool (or GpuNodePoolArgs) stands for its settings: each pool is defined once."""
    if not isinstance(value, list):
        return value
    found = []
    for item in value:
        settings = getattr(item, "config", item)  # a GpuNodePool component keeps its validated settings there
        if isinstance(settings, GpuPoolConfig) and type(settings) is not GpuPoolConfig:
            settings = GpuPoolConfig.model_validate(settings.model_dump(include=set(GpuPoolConfig.model_fields)))
        found.append(settings)
    return found


def a10_pools(pools: list[GpuPoolConfig]) -> list[GpuPoolConfig]:
    """The pools of A10 vGPU slices among these: what the A10 claim templates, samples and size classes are made for."""
    return [pool for pool in pools if not pool.is_mig]


GpuPools = Annotated[list[GpuPoolConfig], BeforeValidator(_pool_settings), Field(min_length=1)]
"""The GPU pools a driver or the samples serve: GpuNodePool components, their args or their settings (at least one)."""
