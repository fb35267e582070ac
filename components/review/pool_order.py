"""Which GPU pools of a plan must not run at the same time, and why the plan orders the ones it does.

Pools of one cluster need no order among themselves: AKS refuses a second operation on the *same* pool while one runs,
not operations on two pools (AKS troubleshooting, "Cluster pending operation (OperationNotAllowed) errors"; cilium/cilium
#25944 was an operation on a pool still Creating; the Azure Verified Modules keep their pools `for_each`, in parallel).
Pools that join one bring-your-own virtual network do conflict, on one subnet or on two: AKS sets the network's
ownership for each and refuses while the VNet is Updating (SetVNetOwnershipFailed, VirtualNetworkNotInSucceededState,
Azure/AKS #4522), so terraform-provider-azurerm locks the VNet while it creates a pool (PR #32682,
internal/services/containers/kubernetes_cluster_node_pool_resource.go).

One stage of the critical path (`critical_path`): the plan's GPU pools and its wait graph (`waits`) in, plain data out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..config.azure import virtual_network_of
from ..offline.plan import Registration

SUBNET_REASON = (
    "AKS sets the virtual network's ownership for each pool in a bring-your-own VNet and refuses a second while the "
    "VNet is Updating (SetVNetOwnershipFailed, VirtualNetworkNotInSucceededState: Azure/AKS #4522); "
    "terraform-provider-azurerm locks the VNet for the same reason (PR #32682)"
)


@dataclass(frozen=True)
class PoolOrder:
    """The plan's GPU pools by the bring-your-own virtual network they join, the pools of one network that the plan
    lets run at the same time (`pulumi up` may fail), and why it runs its pools side by side or one after another."""

    networks: dict[str, list[Registration]]  # virtual network -> its pools (pools in AKS's own network left out)
    warnings: tuple[str, ...]
    notes: tuple[str, ...]


def pool_order(pools: Sequence[Registration], waits: Mapping[str, list[str]]) -> PoolOrder:
    """The order of the plan's GPU pools, judged against what each resource waits for (`waits.waits_for`)."""
    upstream = _upstream_of(waits)
    networks = _networks(pools)
    return PoolOrder(networks, tuple(_unordered(networks, upstream)), tuple(_notes(networks, pools)))


def _upstream_of(waits: Mapping[str, list[str]]) -> Callable[[str], set[str]]:
    """A function giving everything a resource waits for, directly or through others (each walk done once)."""
    before: dict[str, set[str]] = {}

    def upstream(urn: str) -> set[str]:
        if urn not in before:
            found: set[str] = set()
            stack = list(waits.get(urn, []))
            while stack:
                dep = stack.pop()
                if dep not in found:
                    found.add(dep)
                    stack.extend(waits.get(dep, []))
            before[urn] = found
        return before[urn]

    return upstream


def _networks(pools: Sequence[Registration]) -> dict[str, list[Registration]]:
    """The pools by the bring-your-own virtual network they join through their subnet (lower case: ARM IDs compare
    case-insensitively), by urn: pools on two subnets of one VNet race as much as pools on one subnet."""
    networks: dict[str, list[Registration]] = {}
    for pool in sorted(pools, key=lambda p: p.urn):
        subnet = pool.inputs.get("vnetSubnetID")
        network = virtual_network_of(subnet) if isinstance(subnet, str) else None
        if network:
            networks.setdefault(network, []).append(pool)
    return networks


def _short(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def _unordered(networks: Mapping[str, list[Registration]], upstream: Callable[[str], set[str]]) -> list[str]:
    """Pools of one bring-your-own VNet that the plan lets run at the same time: neither waits for the other."""
    found = []
    for network, pools in networks.items():
        for i, a in enumerate(pools):
            for b in pools[i + 1:]:
                if a.urn not in upstream(b.urn) and b.urn not in upstream(a.urn):
                    found.append(
                        f"GPU pools {_short(a.urn)} and {_short(b.urn)} share the virtual network "
                        f"{network.rsplit('/', 1)[-1]} and may be created at once: {SUBNET_REASON}; chain them (depends_on)"
                    )
    return found


def _notes(networks: Mapping[str, list[Registration]], pools: Sequence[Registration]) -> list[str]:
    """Why the pools run side by side or one after another, one line per group."""
    notes = []
    for network, grouped in networks.items():
        if len(grouped) > 1:
            notes.append(
                f"GPU pools {', '.join(_short(p.urn) for p in grouped)} share the virtual network "
                f"{network.rsplit('/', 1)[-1]}: one after another, because {SUBNET_REASON}"
            )
    in_networks = {p.urn for grouped in networks.values() for p in grouped}
    free = [p for p in pools if p.urn not in in_networks]
    if len(free) > 1 or (free and in_networks):
        notes.append(
            f"GPU pools {', '.join(sorted(_short(p.urn) for p in free))} run side by side: AKS refuses a second operation "
            "on the same pool, not on two pools (AKS troubleshooting, OperationNotAllowed)"
        )
    return notes
