"""The whole stack: cluster, GPU pools, DRA driver and samples, with the checks that span sections."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import Field, PrivateAttr, field_validator, model_validator

from .azure import SUBNET, ArmId, parse_arm_id
from .base import Model
from .cluster import ClusterConfig
from .driver import DraDriverConfig
from .errors import KeyedProblemsError
from .limits import derived_name_problem, derived_names, merged_tag_problems, pool_count_problem
from .pools import GpuPoolConfig
from .samples import SamplesConfig, extended_resource_problem
from .versions import pool_skew_problem


class StackConfig(Model):
    """Everything one environment declares: cluster, GPU pools, DRA driver and samples."""

    cluster: ClusterConfig = Field(description="The AKS cluster.")
    gpu_pools: list[GpuPoolConfig] = Field(min_length=1, description="GPU node pools (at least one).")
    dra_driver: DraDriverConfig = Field(default_factory=DraDriverConfig, description="The NVIDIA DRA driver release.")
    samples: SamplesConfig = Field(default_factory=SamplesConfig, description="DRA sample objects.")
    # Which sections came from secret config (not a setting: Pulumi says it, see `loading.load_stack_config`).
    _secret_sections: frozenset[str] = PrivateAttr(default_factory=frozenset)

    @property
    def secret_sections(self) -> frozenset[str]:
        """The top-level keys (camelCase) set as secrets: what is built from them must be passed as a secret."""
        return self._secret_sections

    def with_secret_sections(self, keys: Iterable[str]) -> StackConfig:
        """This config with `keys` marked as secret sections."""
        copy = self.model_copy()
        copy._secret_sections = frozenset(keys)
        return copy

    @field_validator("gpu_pools")
    @classmethod
    def _unique(cls, pools: list[GpuPoolConfig]) -> list[GpuPoolConfig]:
        seen: dict[str, int] = {}
        for index, pool in enumerate(pools):
            if pool.name in seen:
                raise ValueError(
                    f"pool name '{pool.name}' is used twice (gpuPools[{seen[pool.name]}] and gpuPools[{index}]); "
                    "pool names must be unique"
                )
            seen[pool.name] = index
        too_many = pool_count_problem(len(pools))
        if too_many:
            raise ValueError(too_many)
        return pools

    @model_validator(mode="after")
    def _cross(self) -> StackConfig:
        problems: list[tuple[str, str]] = []
        system = self.cluster.system_pool.name
        for index, pool in enumerate(self.gpu_pools):
            if pool.name == system:
                problems.append((
                    f"gpuPools[{index}].name", f"'{system}' is the system pool's name (cluster.systemPool.name); "
                    "choose another: pool names are unique in a cluster"
                ))
        self._pool_subnets()
        self._capacity_reservations()
        skew = [
            (f"gpuPools[{index}].kubernetesVersion", problem)
            for index, pool in enumerate(self.gpu_pools)
            if pool.kubernetes_version
            and (problem := pool_skew_problem(pool.kubernetes_version, self.cluster.kubernetes_version))
        ]
        if skew:
            raise KeyedProblemsError(*skew)
        largest = max(p.size.gpu_memory_gib for p in self.gpu_pools)
        wanted = self.samples.workload_memory_gib
        if wanted is not None and wanted > largest:
            offered = sorted({p.size.gpu_memory_gib for p in self.gpu_pools})
            problems.append((
                "samples.workloadMemoryGiB", f"{wanted} GiB is more than any pool's slice offers "
                f"(pools offer {', '.join(map(str, offered))} GiB); choose at most {largest}"
            ))
        if self.samples.namespace == self.dra_driver.namespace:
            problems.append((
                "samples.namespace", f"'{self.samples.namespace}' is the driver's namespace (draDriver.namespace): the "
                "samples' restricted pod security and deny-all policy would stop the driver; choose another"
            ))
        if self.samples.extended_resource_name is not None:
            problem = extended_resource_problem(self.cluster.kubernetes_version, "cluster.kubernetesVersion")
            if problem:
                problems.append(("samples.extendedResourceName", problem))
        problems += self._limits()
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    def _limits(self) -> list[tuple[str, str]]:
        """Azure's tag limits on what each pool is given, and the length of the names the samples derive."""
        problems = merged_tag_problems(self.cluster.tags, [p.tags for p in self.gpu_pools])
        if self.samples.enabled:
            sizes = [p.size.gpu_memory_gib for p in self.gpu_pools]
            two = any(p.size.devices_per_node >= 2 for p in self.gpu_pools)
            names = derived_names(self.samples.device_class_name, sizes, two, self.samples.shared_claim)
            problem = derived_name_problem(self.samples.device_class_name, names)
            if problem:
                problems.append(("samples.deviceClassName", problem))
        return problems

    def _capacity_reservations(self) -> None:
        """A pool on a capacity reservation group needs a user-assigned cluster identity (learn.microsoft.com/azure/aks/
        use-capacity-reservation-groups: "System-assigned managed identities don't work for this feature")."""
        if self.cluster.identity_id is not None:
            return
        problems = [
            (f"gpuPools[{index}].capacityReservationGroupId",
             "needs cluster.identityId: AKS uses capacity reservation groups only through a user-assigned cluster "
             "identity with Contributor on the reservation's resource group")
            for index, pool in enumerate(self.gpu_pools) if pool.capacity_reservation_group_id is not None
        ]
        if problems:
            raise KeyedProblemsError(*problems)

    def _pool_subnets(self) -> None:
        """A pool's own subnet needs the cluster's, in the same virtual network (learn.microsoft.com/azure/aks/
        create-node-pools, "Add a node pool with a unique subnet": all node pool subnets in one VNet)."""
        cluster_subnet = self.cluster.network.vnet_subnet_id
        problems = []
        for index, pool in enumerate(self.gpu_pools):
            if pool.vnet_subnet_id is None:
                continue
            key = f"gpuPools[{index}].vnetSubnetId"
            if cluster_subnet is None:
                problems.append((key, "needs cluster.network.vnetSubnetId: the system pool must be in the same "
                                 "virtual network, so give the cluster a subnet of it too"))
                continue
            own, cluster = parse_arm_id(pool.vnet_subnet_id, SUBNET), parse_arm_id(cluster_subnet, SUBNET)
            if isinstance(own, ArmId) and isinstance(cluster, ArmId) and own.parent() != cluster.parent():
                problems.append((key, f"is in virtual network '{own.names[0]}', not in cluster.network.vnetSubnetId's "
                                 f"'{cluster.names[0]}'; AKS needs every pool's subnet in one virtual network"))
        if problems:
            raise KeyedProblemsError(*problems)


