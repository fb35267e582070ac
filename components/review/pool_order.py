"""Which GPU pools of a plan must not run at the same time, and why the plan orders the ones it does.

Pools of one cluster need no order among themselves: AKS refuses a second operation on the *same* pool while one runs,
not operations on two pools (AKS troubleshooting, "Cluster pending operation (OperationNotAllowed) errors"; cilium/cilium
#25944 was an operation on a pool still Creating; the Azure Verified Modules keep their pools `for_each`, in parallel).
Pools that join one bring-your-own subnet do conflict: AKS sets the virtual network's ownership for each and refuses
while it is Updating (SetVNetOwnershipFailed, Azure/AKS #4522), so terraform-provider-azurerm locks the subnet while it
creates a pool (internal/services/containers/kubernetes_cluster_node_pool_resource.go; #32001, #32682).
"""

from __future__ import annotations

from ..offline.plan import Plan, Registration
from .provisioning_times import kind_of
from .waits import upstream_of, waits_for

SUBNET_REASON = (
    "AKS sets the virtual network's ownership for each pool on a bring-your-own subnet and refuses a second while the "
    "network is Updating (SetVNetOwnershipFailed, Azure/AKS #4522); terraform-provider-azurerm locks the subnet for the "
    "same reason (kubernetes_cluster_node_pool_resource.go)"
)


def subnet_of(pool: Registration) -> str | None:
    """The bring-your-own subnet a planned AgentPool joins (lower case: ARM IDs compare case-insensitively), if any."""
    subnet = pool.inputs.get("vnetSubnetID")
    return subnet.lower() if isinstance(subnet, str) and subnet else None


def _short(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def subnet_groups(plan: Plan) -> dict[str, list[Registration]]:
    """The plan's GPU pools by the bring-your-own subnet they join (pools in AKS's own network are left out)."""
    groups: dict[str, list[Registration]] = {}
    for r in sorted(plan.resources, key=lambda r: r.urn):
        subnet = subnet_of(r) if kind_of(r) == "GPU agent pool" else None
        if subnet:
            groups.setdefault(subnet, []).append(r)
    return groups


def unordered_pools(plan: Plan) -> list[str]:
    """GPU pools on one bring-your-own subnet that the plan lets run at the same time: `pulumi up` may fail."""
    upstream = upstream_of(waits_for(plan))
    found = []
    for subnet, pools in subnet_groups(plan).items():
        for i, a in enumerate(pools):
            for b in pools[i + 1:]:
                if a.urn not in upstream(b.urn) and b.urn not in upstream(a.urn):
                    found.append(
                        f"GPU pools {_short(a.urn)} and {_short(b.urn)} share the subnet {subnet.rsplit('/', 1)[-1]} and "
                        f"may be created at once: {SUBNET_REASON}; chain them (depends_on)"
                    )
    return found


def pool_notes(plan: Plan) -> list[str]:
    """Why the plan's pools run side by side or one after another, one line per group."""
    notes = []
    groups = subnet_groups(plan)
    for subnet, pools in groups.items():
        if len(pools) > 1:
            notes.append(
                f"GPU pools {', '.join(_short(p.urn) for p in pools)} share the subnet {subnet.rsplit('/', 1)[-1]}: "
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
