"""Azure resources that two stack files of one project would both manage: a Fleet, or an AKS cluster (each `pulumi up`
would undo the other's, and a cluster joined to a fleet twice is counted twice).

An Azure resource is its ARM ID: subscription, resource group, provider type and name
(``/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.ContainerService/managedClusters/{resourceName}``,
Azure/azure-rest-api-specs containerservice/.../managedClusters.json; ``.../fleets/{fleetName}``, fleets.json), and
"resource and resource group names are case-insensitive unless noted" (learn.microsoft.com, Azure Resource Manager,
resource-name-rules: "always perform a case-insensitive comparison of names"). A stack that sets no
``azure-native:subscriptionId`` deploys to the caller's subscription: two such stacks are taken to share it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..config.errors import Problem
from ..config.fleet_rules import at
from ..config.loading import decoded_section

SUBSCRIPTION_KEY = "azure-native:subscriptionId"


@dataclass(frozen=True)
class Declared:
    """One Azure resource a stack file declares, as ARM names it (lowercased), and where the file names it."""

    file: str
    key: str  # the config key path that names it: fleet.name, cluster.name
    identity: tuple[str, str, str]  # (subscription or '', resource group, name), casefolded
    shown: tuple[str, str]  # (name, resource group) as written


def declared_fleet(file: str, config: Mapping[str, Any], project: str) -> Declared | None:
    """The Fleet a stack file declares (its `fleet` section's name and resource group), None when it names none."""
    fleet = decoded_section(config.get(f"{project}:fleet"))
    return _declared(file, "fleet.name", config, fleet.get("name"), fleet.get("resourceGroupName"))


def declared_cluster(file: str, config: Mapping[str, Any], project: str) -> Declared | None:
    """The AKS cluster a stack file declares (cluster.name in cluster.resourceGroup.name), None when it names none."""
    cluster = decoded_section(config.get(f"{project}:cluster"))
    group = cluster.get("resourceGroup")
    return _declared(file, "cluster.name", config, cluster.get("name"),
                     group.get("name") if isinstance(group, Mapping) else None)


def _declared(file: str, key: str, config: Mapping[str, Any], name: Any, group: Any) -> Declared | None:
    if not isinstance(name, str) or not isinstance(group, str) or not name or not group:
        return None
    subscription = config.get(SUBSCRIPTION_KEY)
    sub = subscription.casefold() if isinstance(subscription, str) else ""
    return Declared(file, key, (sub, group.casefold(), name.casefold()), (name, group))


def twice_declared(declared: list[Declared], what: str, concerned: set[str] | None = None,
                   members: Mapping[str, str] | None = None) -> list[Problem]:
    """Each resource declared by more than one stack file, said at every later file naming the first (only those where
    one of the files is in `concerned`, when given); `members` (file -> member name) says a cluster joined twice."""
    first: dict[tuple[str, str, str], Declared] = {}
    problems = []
    for item in declared:
        seen = first.setdefault(item.identity, item)
        if seen is item or (concerned is not None and not {seen.file, item.file} & concerned):
            continue
        if concerned is not None and item.file not in concerned:  # said at the file this review is about
            seen, item = item, seen
        name, group = item.shown
        joined = ""
        if members and seen.file in members and item.file in members:
            joined = (f"; the fleet would join it twice (as members '{members[seen.file]}' and '{members[item.file]}') "
                      "and count its cost twice")
        problems.append(at(item.file, item.key, (
            f"{what} '{name}' in resource group '{group}' is also declared by {seen.file} ({seen.key}): both stacks "
            f"would manage one Azure resource (ARM names are case-insensitive), each `pulumi up` undoing the other's"
            f"{joined}; give each stack its own, or keep one of them")))
    return problems
