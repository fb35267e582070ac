"""Which GPU pools of a plan must not run at the same time, and why the plan orders the ones it does.

Pools of one cluster need no order among themselves: AKS refuses a second operation on the *same* pool while one runs,
not operations on two pools (AKS troubleshooting, "Cluster pending operation (OperationNotAllowed) errors"; cilium/cilium
#25944 was an operation on a pool still Creating; the Azure Verified Modules keep their pools `for_each`, in parallel).
Pools that join one bring-your-own virtual network do conflict, on one subnet or on two: AKS sets the network's
ownership for each and refuses while the VNet is Updating (SetVNetOwnershipFailed, VirtualNetworkNotInSucceededState,
Azure/AKS #4522), so terraform-provider-azurerm locks the VNet while it creates a pool (PR #32682,
internal/services/containers/kubernetes_cluster_node_pool_resource.go).
"""

from __future__ import annotations

from ..config.azure import virtual_network_of
from ..offline.plan import Plan, Registration
from .provisioning_times import kind_of
from .waits import upstream_of, waits_for

SUBNET_REASON = (
    "AKS sets the virtual network's ownership for each pool in a bring-your-own VNet and refuses a second while the "
    "VNet is Updating (SetVNetOwnershipFailed, VirtualNetworkNotInSucceededState: Azure/AKS #4522); "
    "terraform-provider-azurerm locks the VNet for the same reason (PR #32682)"
)


def subnet_of(pool: Registration) -> str | None:
    """The bring-your-own virtual network a planned AgentPool joins through its subnet (lower case: ARM IDs compare
    case-insensitively), if any: pools on two subnets of one VNet race as much as pools on one subnet."""
    subnet = pool.inputs.get("vnetSubnetID")
    return virtual_network_of(subnet) if isinstance(subnet, str) else None


def _short(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def subnet_groups(plan: Plan) -> dict[str, list[Registration]]:
    """The plan's GPU pools by the bring-your-own virtual network they join (pools in AKS's own network are left out)."""
    groups: dict[str, list[Registration]] = {}
    for r in sorted(plan.resources, key=lambda r: r.urn):
        subnet = subnet_of(r) if kind_of(r) == "GPU agent pool" else None
        if subnet:
            groups.setdefault(subnet, []).append(r)
    return groups


def unordered_pools(plan: Plan) -> list[str]:
    """GPU pools in one bring-your-own VNet that the plan lets run at the same time: `pulumi up` may fail."""
    upstream = upstream_of(waits_for(plan))
    found = []
    for subnet, pools in subnet_groups(plan).items():
        for i, a in enumerate(pools):
            for b in pools[i + 1:]:
                if a.urn not in upstream(b.urn) and b.urn not in upstream(a.urn):
                    found.append(
                        f"GPU pools {_short(a.urn)} and {_short(b.urn)} share the virtual network "
                        f"{subnet.rsplit('/', 1)[-1]} and may be created at once: {SUBNET_REASON}; chain them (depends_on)"
                    )
    return found


def pool_notes(plan: Plan) -> list[str]:
    """Why the plan's pools run side by side or one after another, one line per group."""
    notes = []
    groups = subnet_groups(plan)
    for subnet, pools in groups.items():
        if len(pools) > 1:
            notes.append(
                f"GPU pools {', '.join(_short(p.urn) for p in pools)} share the virtual network {subnet.rsplit('/', 1)[-1]}: "
                f"one after another, because {SUBNET_REASON}"
            )
    grouped = {p.urn for pools in groups.values() for p in pools}
    free = [r for r in plan.resources if kind_of(r) == "GPU agent pool" and r.urn not in grouped]
    if len(free) > 1 or (free and grouped):
        notes.append(
            f"GPU pools {', '.join(sorted(_short(p.urn) for p in free))} run side by side: AKS refuses a second operation "
            "on the same pool, not on two pools (AKS troubleshooting, OperationNotAllowed)"
        )
    return notes
