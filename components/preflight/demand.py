"""What a stack can use at most, pool by pool: the nodes it may run (maxCount, or count) plus the surge nodes an upgrade
adds, on which quota (Spot or standard), in which zones. Pure: a validated StackConfig in, values out.

How Azure counts each part, and where that is written:
- Upgrade surge: `maxSurge` is a node count or a percentage "of the total agent pool size at the time of the upgrade.
  For percentages, fractional nodes are rounded up. If not specified, the default is 10%" (Azure/azure-rest-api-specs,
  Microsoft.ContainerService aks/stable/2025-09-01/managedClusters.json, AgentPoolUpgradeSettings.maxSurge; the same
  text in pulumi_azure_native.containerservice.AgentPoolUpgradeSettingsArgs). The package sends no maxSurge for the
  inline system pool, so AKS's 10% applies there; a GPU pool sends its own, '1' by default; a Spot pool has none.
- Spot: "Spot vCPU quotas apply to spot virtual machines (VMs) across all VM families" and standard quotas to the
  rest (MicrosoftDocs/azure-management-docs articles/quotas/spot-quota.md): a Spot pool counts against the regional
  Spot quota (`lowPriorityCores`) only, never a family's or the regional total.
- Deallocated VMs: "Quota is calculated based on the total number of cores in use both allocated and deallocated"
  (MicrosoftDocs/azure-compute-docs articles/virtual-machines/quotas.md), and a Spot VM evicted with Deallocate "will
  count against your quota" (spot-vms.md). A pool with `scaleDownMode: Deallocate` keeps the VMs it scaled down, and
  "the deallocated nodes are started first before any new nodes are provisioned" (MicrosoftDocs/azure-aks-docs
  articles/aks/scale-down-mode.md): it never holds more VMs than its highest count, but holds that many even scaled
  down. So every pool is counted at its most (maxCount), and such a pool is marked `held`: its quota is not given back
  to other pools or stacks when it scales down.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import GpuPoolConfig, StackConfig
from ..config.pool_parts import DEFAULT_SURGE

AKS_DEFAULT_SURGE = "10%"  # what AKS uses when a pool sends no maxSurge (managedClusters.json, see above)


@dataclass(frozen=True)
class PoolDemand:
    """One pool at its most: `nodes` it may run, `surge` nodes an upgrade adds, and how each was found."""

    stack: str
    pool: str
    vm_size: str
    nodes: int
    surge: int
    spot: bool
    held: bool  # scaled-down (or evicted) VMs are deallocated and keep counting against quota
    zones: tuple[str, ...]
    basis: str  # how `nodes` was found: "maxCount 4", "count 2"
    surge_basis: str  # how `surge` was found: "maxSurge '1'", "maxSurge '33%' of 4, rounded up", ...

    @property
    def total(self) -> int:
        """VMs the pool may hold at once: its nodes and an upgrade's surge."""
        return self.nodes + self.surge


@dataclass(frozen=True)
class StackDemand:
    """Every pool of one stack, and where it deploys: its subscription and region."""

    stack: str
    subscription: str
    region: str
    pools: tuple[PoolDemand, ...]


def surge_nodes(surge: str, nodes: int) -> int:
    """The nodes an upgrade adds for `maxSurge` (a count, or a percentage of `nodes` rounded up, as AKS rounds it)."""
    if surge.endswith("%"):
        percent = int(surge[:-1])
        return -(-nodes * percent // 100)  # ceiling without floats: 33% of 4 is 2, 10% of 1 is 1
    return int(surge)


def _surge_basis(surge: str, nodes: int, default: bool) -> str:
    said = f"AKS's default maxSurge '{surge}'" if default else f"maxSurge '{surge}'"
    return f"{said} of {nodes}, rounded up" if surge.endswith("%") else said


def gpu_pool_demand(stack: str, pool: GpuPoolConfig) -> PoolDemand:
    """A GPU pool at its most: maxCount with autoscaling, else its count; plus its upgrade surge (none on Spot)."""
    nodes = pool.autoscaling.max_count if pool.autoscaling else pool.initial_count
    basis = f"maxCount {nodes}" if pool.autoscaling else f"count {nodes}"
    surge_text = pool.upgrade_surge  # None for Spot: AKS upgrades Spot nodes without surge
    surge = surge_nodes(surge_text, nodes) if surge_text else 0
    surge_basis = _surge_basis(surge_text, nodes, default=False) if surge_text else "Spot: no upgrade surge"
    held = pool.scale_down_mode == "Deallocate" or (pool.spot is not None and pool.spot.eviction_policy == "Deallocate")
    return PoolDemand(stack, pool.name, pool.vm_size, nodes, surge, pool.spot is not None, held, tuple(pool.zones),
                      basis, surge_basis)


def stack_demand(stack: str, config: StackConfig, subscription: str) -> StackDemand:
    """Every pool of a stack at its most, in the stack's region: the system pool first, then the GPU pools."""
    system = config.cluster.system_pool
    pools = [PoolDemand(stack, system.name, system.vm_size, system.count,
                        surge_nodes(AKS_DEFAULT_SURGE, system.count), False, False, tuple(system.zones),
                        f"count {system.count}", _surge_basis(AKS_DEFAULT_SURGE, system.count, default=True))]
    pools += [gpu_pool_demand(stack, pool) for pool in config.gpu_pools]
    return StackDemand(stack, subscription, config.cluster.location, tuple(pools))


def planned_pool_demand(stack: str, pool: str, vm_size: str, max_count: int) -> PoolDemand:
    """A pool `size` suggests, at its most: maxCount nodes and the package's default surge for a GPU pool ('1')."""
    return PoolDemand(stack, pool, vm_size, max_count, surge_nodes(DEFAULT_SURGE, max_count), False, False, (),
                      f"maxCount {max_count}", _surge_basis(DEFAULT_SURGE, max_count, default=False))
