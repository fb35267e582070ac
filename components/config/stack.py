"""The whole stack: cluster, GPU pools, DRA driver and samples, with the checks that span sections."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import Field, PrivateAttr, model_validator

from ..catalog import SIZE_CLASSES
from .azure import SUBNET, ArmId, parse_arm_id
from .base import Model
from .cluster import ClusterConfig
from .driver import DraDriverConfig, nodes_driver_problems, sharing_problems
from .errors import KeyedProblemsError
from .extended_resources import ExtendedResourcesConfig
from .extended_rules import extended_problems
from .fleet_membership import FleetMembershipConfig, member_name_problem
from .limits import derived_name_problem, derived_names, merged_tag_problems, pool_count_problem
from .mig_pools import driver_mig_problems
from .monitoring import MonitoringConfig
from .monitoring_rules import monitoring_problems
from .pool_regions import pool_region_problems
from .pools import GpuPoolConfig
from .samples import SamplesConfig, extended_resource_problem
from .upgrades import pinned_pool_problems, version_owner
from .versions import pool_skew_problem


class StackConfig(Model):
    """Everything one environment declares: cluster, GPU pools, DRA driver and samples."""

    cluster: ClusterConfig = Field(description="The AKS cluster.")
    gpu_pools: list[GpuPoolConfig] = Field(min_length=1, description="GPU node pools (at least one).")
    dra_driver: DraDriverConfig = Field(default_factory=DraDriverConfig, description="The NVIDIA DRA driver release.")
    samples: SamplesConfig = Field(default_factory=SamplesConfig, description="DRA sample objects.")
    extended_resources: ExtendedResourcesConfig | None = Field(
        None, description="Serve pods written for the device plugin (nvidia.com/gpu, nvidia.com/mig-<profile>) with "
        "right-sized DRA slices, one DeviceClass per name (Kubernetes 1.36+; docs/extended-resources.md); unset: none.",
    )
    fleet_membership: FleetMembershipConfig | None = Field(
        None, description="Join an Azure Kubernetes Fleet Manager fleet declared by another stack of this project "
        "(docs/fleet.md); unset: no fleet.",
    )
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

    @model_validator(mode="after")
    def _cross(self) -> StackConfig:
        problems = cross_problems(self.cluster, list(enumerate(self.gpu_pools)), True, self.dra_driver.namespace,
                                  self.samples, self.cluster.system_pool.name, self.dra_driver.release_name,
                                  driver=self.dra_driver, driver_chart=self.dra_driver.chart_version,
                                  extended=(self.extended_resources, []))
        if self.fleet_membership is not None:
            problem = member_name_problem(self.fleet_membership, self.cluster.name)
            problems += [problem] if problem else []
        owner = version_owner(self.cluster.upgrades.channel, self.fleet_membership is not None)
        problems += pinned_pool_problems(enumerate(self.gpu_pools), owner)
        if problems:
            raise KeyedProblemsError(*problems)
        return self


# --- checks that span sections, on whatever parts validated -----------------------------------------------------------
Pools = list[tuple[int, GpuPoolConfig]]


def cross_problems(
    cluster: ClusterConfig | None, pools: Pools, all_pools: bool, driver_namespace: str | None,
    samples: SamplesConfig | None, system_pool: str | None, driver_release: str | None = None,
    names: list[tuple[int, str]] | None = None, pool_count: int | None = None, driver: DraDriverConfig | None = None,
    monitoring: tuple[MonitoringConfig | None, str | None, list[str]] | None = None, cluster_left_out: list[str] = (),
    driver_chart: str | None = None, cluster_version: str | None = None,
    extended: tuple[ExtendedResourcesConfig | None, list[str]] = (None, []), host_driver_unstated: bool = False,
    vm_sizes: list[object] | None = None,
) -> list[tuple[str, str]]:
    """Every check that spans sections, each run when the parts it reads validated (`pools` are the pools that did, by
    index; `all_pools` says whether that is all of them; the driver's namespace and release and the system pool's
    name, when they did; `names`: every pool name that is a valid name, also of a pool that did not validate, default
    the validated pools'; `pool_count`: how many pools are written; `cluster_left_out`: the cluster's keys that failed,
    so the cluster is its other keys, and a rule reading one of those does not run; `cluster_version`: the cluster's
    Kubernetes version when only that much validated; `extended`: the extendedResources section with its keys that
    failed left out, and those keys; `host_driver_unstated`: the driver section did not validate whole, but it states
    no hostDriverVersion; `vm_sizes`: every pool's vmSize as written, default the validated pools'), so one run lists
    every mistake."""
    problems: list[tuple[str, str]] = []

    def reads(key: str) -> bool:  # the cluster's key a rule reads is the user's, not a default standing in for it
        return not any(key == out or key.startswith(f"{out}.") or out.startswith(f"{key}.") for out in cluster_left_out)

    names = [(index, pool.name) for index, pool in pools] if names is None else names
    problems += _duplicate_names(names)
    too_many = pool_count_problem(len(pools) if pool_count is None else pool_count)
    if too_many:
        problems.append(("gpuPools", too_many))
    if system_pool is not None:
        problems += [
            (f"gpuPools[{index}].name", f"'{system_pool}' is the system pool's name (cluster.systemPool.name); "
             "choose another: pool names are unique in a cluster")
            for index, name in names if name == system_pool
        ]
    # The monitoring rules run on the monitoring section with its failed keys left out (`salvage`), never at those keys.
    watched, cluster_name, left_out = monitoring or (cluster.monitoring if cluster else None,
                                                     cluster.name if cluster else None, [])
    if watched is not None:
        problems += [
            (key, text) for key, text in
            monitoring_problems(watched, cluster_name, driver, driver_namespace, driver_release, samples)
            if not any(key == f"cluster.monitoring.{out}" or key.startswith(f"cluster.monitoring.{out}.")
                       for out in left_out)
        ]
    if cluster is not None:
        problems += pool_region_problems(cluster.location, pools) if reads("location") else []
        problems += _pool_subnets(cluster, pools) if reads("network.vnetSubnetId") else []
        problems += _capacity_reservations(cluster, pools) if reads("identityId") else []
        # Azure's tag limits on what each pool is given: its tags merged over the cluster's.
        problems += [(f"gpuPools[{index}].tags", problem)
                     for index, pool in pools for _, problem in merged_tag_problems(cluster.tags, [pool.tags])
                     if reads("tags")]
        problems += [
            (f"gpuPools[{index}].kubernetesVersion", problem)
            for index, pool in pools
            if pool.kubernetes_version and reads("kubernetesVersion")
            and (problem := pool_skew_problem(pool.kubernetes_version, cluster.kubernetes_version))
        ]
    # Slices shared by memory: the driver's chart version and the Kubernetes versions, each judged when it validated.
    # A refused kubernetesVersion is unknown here, not its default: the user is told once, at that key.
    version = (cluster.kubernetes_version if reads("kubernetesVersion") else None) if cluster else cluster_version
    problems += sharing_problems(driver_chart, version, pools, "draDriver.chartVersion", "cluster.kubernetesVersion")
    # MIG pools beside the driver section: its gates and chart version, each judged when it validated.
    problems += driver_mig_problems(driver_chart, driver.feature_gates if driver else None, pools,
                                    "draDriver.chartVersion", "draDriver.featureGates")
    # The driver AKS installs where none is stated follows the pools' sizes (GRID on A10, R580 on MIG sizes).
    if (driver is not None and driver.host_driver_version is None) or (driver is None and host_driver_unstated):
        sizes = [pool.vm_size for _, pool in pools] if vm_sizes is None else vm_sizes
        problems += nodes_driver_problems(driver_chart, None, sizes, "draDriver.chartVersion")
    section, section_left_out = extended
    if section is not None or section_left_out or samples is not None:
        problems += extended_problems(section, samples, version, pools, all_pools,
                                      driver.enabled if driver else None, driver_chart, section_left_out)
    if samples is not None:
        a10 = [(index, pool) for index, pool in pools if not pool.is_mig]
        problems += _sample_memory(samples, a10, all_pools) + _derived_names(samples, a10)
        # MIG pools alone: the samples' templates and shared claim are made for their MIG slices (dra_samples
        # claim_settings), but the sample Job asks for an A10 slice, which no pool here offers.
        if samples.enabled and samples.workload and all_pools and pools and not a10:
            problems.append(("samples.workload", "the sample Job asks for an A10 vGPU slice and every pool here is a "
                             "MIG pool (the claim templates and shared claim are made for its MIG slices); set "
                             "samples.workload: false"))
        if driver_namespace is not None and samples.namespace == driver_namespace:
            problems.append((
                "samples.namespace", f"'{samples.namespace}' is the driver's namespace (draDriver.namespace): the "
                "samples' restricted pod security and deny-all policy would stop the driver; choose another"
            ))
        if cluster is not None and samples.extended_resource_name is not None and reads("kubernetesVersion"):
            problem = extended_resource_problem(cluster.kubernetes_version, "cluster.kubernetesVersion")
            if problem:
                problems.append(("samples.extendedResourceName", problem))
    return problems


def _duplicate_names(names: list[tuple[int, str]]) -> list[tuple[str, str]]:
    """A pool name used twice (by pools that validated or not: a name is checked on its own)."""
    seen: dict[str, int] = {}
    problems = []
    for index, name in names:
        if name in seen:
            problems.append(("gpuPools", f"pool name '{name}' is used twice (gpuPools[{seen[name]}] and "
                             f"gpuPools[{index}]); pool names must be unique"))
        else:
            seen[name] = index
    return problems


def _sample_memory(samples: SamplesConfig, pools: Pools, all_pools: bool) -> list[tuple[str, str]]:
    """The sample Job's memory against the pools' slices; with a pool that did not validate, only what no A10 slice
    holds is certain to be wrong."""
    wanted = samples.workload_memory_gib
    if wanted is None:
        return []
    offered = sorted({p.size.gpu_memory_gib for _, p in pools})
    if all_pools and offered and wanted > offered[-1]:
        return [("samples.workloadMemoryGiB", f"{wanted} GiB is more than any pool's slice offers "
                 f"(pools offer {', '.join(map(str, offered))} GiB); choose at most {offered[-1]}")]
    if not all_pools and wanted > SIZE_CLASSES[-1]:
        return [("samples.workloadMemoryGiB", f"{wanted} GiB is more than any A10 slice holds (at most "
                 f"{SIZE_CLASSES[-1]} GiB, a whole A10); choose at most the largest slice your pools offer")]
    return []


def _derived_names(samples: SamplesConfig, pools: Pools) -> list[tuple[str, str]]:
    """The names the samples derive from deviceClassName (one per slice size the pools offer) within Kubernetes' limit."""
    if not samples.enabled or not pools:
        return []
    sizes = [p.size.gpu_memory_gib for _, p in pools]
    two = any(p.size.devices_per_node >= 2 for _, p in pools)
    names = derived_names(samples.device_class_name, sizes, two, samples.shared_claim)
    problem = derived_name_problem(samples.device_class_name, names)
    return [("samples.deviceClassName", problem)] if problem else []


def _capacity_reservations(cluster: ClusterConfig, pools: Pools) -> list[tuple[str, str]]:
    """A pool on a capacity reservation group needs a user-assigned cluster identity (learn.microsoft.com/azure/aks/
    use-capacity-reservation-groups: "System-assigned managed identities don't work for this feature")."""
    if cluster.identity_id is not None:
        return []
    return [
        (f"gpuPools[{index}].capacityReservationGroupId",
         "needs cluster.identityId: AKS uses capacity reservation groups only through a user-assigned cluster "
         "identity with Contributor on the reservation's resource group")
        for index, pool in pools if pool.capacity_reservation_group_id is not None
    ]


def _pool_subnets(cluster: ClusterConfig, pools: Pools) -> list[tuple[str, str]]:
    """A pool's own subnet needs the cluster's, in the same virtual network (learn.microsoft.com/azure/aks/
    create-node-pools, "Add a node pool with a unique subnet": all node pool subnets in one VNet)."""
    cluster_subnet = cluster.network.vnet_subnet_id
    problems = []
    for index, pool in pools:
        if pool.vnet_subnet_id is None:
            continue
        key = f"gpuPools[{index}].vnetSubnetId"
        if cluster_subnet is None:
            problems.append((key, "needs cluster.network.vnetSubnetId: the system pool must be in the same "
                             "virtual network, so give the cluster a subnet of it too"))
            continue
        own, parent = parse_arm_id(pool.vnet_subnet_id, SUBNET), parse_arm_id(cluster_subnet, SUBNET)
        if isinstance(own, ArmId) and isinstance(parent, ArmId) and own.parent() != parent.parent():
            problems.append((key, f"is in virtual network '{own.names[0]}', not in cluster.network.vnetSubnetId's "
                             f"'{parent.names[0]}'; AKS needs every pool's subnet in one virtual network"))
    return problems

