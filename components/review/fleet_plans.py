"""A fleet read from its plan documents alone (`plan --fleet --out`): the Fleet, its strategy and each member as the
plans declare them, for `diff --fleet`'s summary, and what says two folders of plans do not belong together.

Pure: plan documents (dicts) in, data and problems out. A diff's summary must describe the two plans compared, never
the stack files as they are now (they may have moved on since either plan was made). The fields read are the inputs
the components send (azure/fleet.py, azure/fleet_member.py, azure/cluster.py, azure/gpu_pool.py): the Fleet's
`fleetName`, `resourceGroupName`, `location`, `hubProfile`; the strategy's `updateStrategyName` and `strategy.stages`;
the FleetMember's `fleetMemberName`, `fleetName`, `resourceGroupName`, `group`; the cluster's `location`; each GPU
pool (label `nvidia.com/gpu.present=true`) with its `vmSize`, `count`, `minCount`, `maxCount`, `enableAutoScaling`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..sizing.prices import prices_for

FLEET = "azure-native:containerservice:Fleet"
STRATEGY = "azure-native:containerservice:FleetUpdateStrategy"
MEMBER = "azure-native:containerservice:FleetMember"
CLUSTER = "azure-native:containerservice:ManagedCluster"
AGENT_POOL = "azure-native:containerservice:AgentPool"
GPU_LABEL = "nvidia.com/gpu.present"


@dataclass(frozen=True)
class GpuCost:
    """What a member's GPU nodes cost per hour at its region's prices: with the fewest and with the most nodes, of the
    pools the table prices; the sizes it has no price for are left out of both, never counted as 0."""

    currency: str
    least: float
    most: float
    region: str
    warning: str | None  # the price table fell back to another region
    unpriced: tuple[str, ...] = ()  # VM sizes of the member's pools with no price in `region`, left out of the sums
    priced: bool = True  # some pool has a price (or there is no GPU pool): the sums say something

    @property
    def unpriced_text(self) -> str:
        """'no price known for <size> in <region>' for each size left out ('' when none is)."""
        return "; ".join(f"no price known for {size} in {self.region}" for size in self.unpriced)


@dataclass(frozen=True)
class PlannedStage:
    """A stage of the planned update strategy."""

    name: str
    groups: tuple[str, ...]


@dataclass(frozen=True)
class PlannedStrategy:
    """The planned update strategy: its name and stages."""

    name: str
    stages: tuple[PlannedStage, ...]


@dataclass(frozen=True)
class PlannedFleet:
    """The Fleet as a fleet stack's plan declares it (the attributes the summary reads of a FleetConfig)."""

    name: str
    resource_group_name: str
    location: str
    hub: bool
    update_strategy: PlannedStrategy


@dataclass(frozen=True)
class PlannedMember:
    """A member as its stack's plan declares it: the FleetMember, its cluster's region, its GPU pools."""

    member_name: str
    fleet_name: str
    resource_group_name: str
    group: str
    region: str
    gpu_pools: tuple[tuple[str, int, int], ...]  # (vmSize, fewest nodes, most nodes)


def _inputs(plan: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    return [r.get("inputs") or {} for r in plan.get("resources") or [] if isinstance(r, dict) and r.get("type") == type_]


def _first(plan: dict[str, Any], type_: str) -> dict[str, Any] | None:
    """The inputs of the plan's first resource of `type_`, or None when it declares none."""
    found = _inputs(plan, type_)
    return found[0] if found else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def planned_fleet(plan: dict[str, Any]) -> PlannedFleet | None:
    """The Fleet a plan declares, or None when it declares none."""
    fleet = _first(plan, FLEET)
    if fleet is None:
        return None
    strategy = _first(plan, STRATEGY) or {}
    stages = tuple(PlannedStage(_text(s.get("name")), tuple(_text(g.get("name")) for g in s.get("groups") or []))
                   for s in (strategy.get("strategy") or {}).get("stages") or [])
    return PlannedFleet(_text(fleet.get("fleetName")), _text(fleet.get("resourceGroupName")),
                        _text(fleet.get("location")), bool(fleet.get("hubProfile")),
                        PlannedStrategy(_text(strategy.get("updateStrategyName")), stages))


def planned_member(plan: dict[str, Any]) -> PlannedMember | None:
    """The member a plan declares (its FleetMember), or None when it joins no fleet."""
    member = _first(plan, MEMBER)
    if member is None:
        return None
    cluster = _first(plan, CLUSTER) or {}
    pools = []
    for pool in _inputs(plan, AGENT_POOL):
        if (pool.get("nodeLabels") or {}).get(GPU_LABEL) != "true":
            continue
        count = _int(pool.get("count"))
        fewest, most = ((_int(pool.get("minCount")), _int(pool.get("maxCount"))) if pool.get("enableAutoScaling")
                        else (count, count))
        pools.append((_text(pool.get("vmSize")), fewest, most))
    return PlannedMember(_text(member.get("fleetMemberName")), _text(member.get("fleetName")),
                         _text(member.get("resourceGroupName")), _text(member.get("group")),
                         _text(cluster.get("location")), tuple(pools))


def planned_cost(member: PlannedMember) -> GpuCost:
    """What the member's GPU nodes cost per hour, from its plan's pools and region; a size the table has no price for
    there is named and left out."""
    table, warning = prices_for(member.region)
    least = most = 0.0
    unpriced = []
    for vm_size, fewest, top in member.gpu_pools:
        price = table.hourly(vm_size)
        if price is None:
            unpriced.append(vm_size)
            continue
        least += fewest * price
        most += top * price
    priced = not member.gpu_pools or len(unpriced) < len(member.gpu_pools)
    return GpuCost(table.currency, least, most, table.region, warning, tuple(sorted(set(unpriced))), priced)


def folder_problems(side: str, folder: str, plans: dict[str, dict[str, Any]]) -> list[str]:
    """What says a folder's plans are not one fleet's: a file holding another stack's plan (renamed or copied over),
    two Fleets, or a member of another fleet than the one planned beside it."""
    problems = []
    for stack, plan in sorted(plans.items()):
        inside = plan.get("stack")
        if isinstance(inside, str) and inside and inside != stack:
            problems.append(f"{side} {folder}/{stack}.json holds the plan of stack {inside}, not {stack}")
    fleets = {s: f for s, p in plans.items() if (f := planned_fleet(p)) is not None}
    if len(fleets) > 1:
        problems.append(f"{side} {folder} holds the plans of {len(fleets)} fleet stacks ({', '.join(sorted(fleets))});"
                        " one folder is one fleet (`plan --fleet NAME --out FOLDER`)")
    if len(fleets) == 1:
        (fleet_stack, fleet), = fleets.items()
        for stack, plan in sorted(plans.items()):
            member = planned_member(plan)
            if member and (member.fleet_name, member.resource_group_name) != (fleet.name, fleet.resource_group_name):
                problems.append(f"{side} {folder}/{stack}.json is a member of fleet {member.fleet_name} (resource "
                                f"group {member.resource_group_name}), not of {fleet.name} ({fleet.resource_group_name})"
                                f" that {fleet_stack}.json declares")
    return problems
