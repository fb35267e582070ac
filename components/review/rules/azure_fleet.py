"""What changing an Azure Kubernetes Fleet Manager resource does (GpuFleet's Fleet, update strategy and auto-upgrade
profile, a platform's FleetMember): each input the package sends, with its rule or its in-place entry.

Grounded in Fleet's API (Azure/azure-rest-api-specs specification/containerservice/resource-manager/
Microsoft.ContainerService/fleet/preview/2024-05-02-preview/fleets.json, the API of pulumi-azure-native's default
module; FleetMember and FleetUpdateStrategy checked in stable/2026-06-01/fleets.json too, unchanged): the URL path
parameters (fleetName, fleetMemberName, updateStrategyName, autoUpgradeProfileName, the resource group) name another
resource; a top-level property whose ``x-ms-mutability`` is ``[read, create]`` is create-only, and pulumi-azure-native
replaces the resource when one changes (provider/pkg/gen/properties.go, ``forceNew``; the force-new list of
provider/pkg/gen/replacement.go only adds to them and names no Fleet resource): ``FleetMemberProperties.clusterResourceId``
and every AutoUpgradeProfile property. ``FleetMemberUpdateProperties.group`` and ``FleetUpdateStrategyProperties.strategy``
(``[read, update, create]``) change in place.

The hub is the exception that looks like the rule. ``FleetProperties.hubProfile`` carries no ``x-ms-mutability``;
the create-only fields sit one level down, in ``FleetHubProfile`` (``dnsPrefix``, ``agentProfile``,
``apiServerAccessProfile``), and properties.go marks a create-only property of a referenced type
``forceNewSetOnReferencedType``, not ``ForceNew`` ("a non-updatable property at a subtype level ... does not mandate the
replacement of the whole resource"); provider/pkg/provider/diff.go replaces only on ``ForceNew`` keys. So Pulumi plans
every hub change as an update in place, and what happens is Azure's (MicrosoftDocs/azure-aks-docs
articles/kubernetes-fleet/upgrade-hub-cluster-type.md): a hubless fleet is upgraded to a hub in place (the same PUT as
``az fleet create --enable-hub``), after which each member must be rejoined with ``az fleet member reconcile``; "a
Kubernetes Fleet resource that already has a hub cluster can't be downgraded", and its hub settings "are immutable":
Azure refuses removing or changing a hub at ``pulumi up``.
"""

from __future__ import annotations

from . import azure_sources as src
from .model import CLUSTER, GROUP, InPlace, Rule

FLEET = "azure-native:containerservice:Fleet"
FLEET_MEMBER = "azure-native:containerservice:FleetMember"
STRATEGY = "azure-native:containerservice:FleetUpdateStrategy"
AUTO_UPGRADE = "azure-native:containerservice:AutoUpgradeProfile"

FLEET_API = ("https://github.com/Azure/azure-rest-api-specs/blob/main/specification/containerservice/resource-manager/"
             "Microsoft.ContainerService/fleet/preview/2024-05-02-preview/fleets.json")
FLEET_API_STABLE = ("https://github.com/Azure/azure-rest-api-specs/blob/main/specification/containerservice/"
                    "resource-manager/Microsoft.ContainerService/fleet/stable/2026-06-01/fleets.json")
HUB_UPGRADE = ("https://github.com/MicrosoftDocs/azure-aks-docs/blob/main/articles/kubernetes-fleet/"
               "upgrade-hub-cluster-type.md")

_ARM_ID = "part of the ARM resource id (the URL): another value is another resource"
_CREATE_ONLY = "create-only in Fleet's API (x-ms-mutability read, create): pulumi-azure-native replaces the"
_HUB_IN_PLACE = ("Pulumi updates the fleet in place (hubProfile is not create-only; its create-only fields are nested, and "
                 "pulumi-azure-native replaces only on top-level ones: provider/pkg/gen/properties.go, forceNew)")
_HUB_REFUSED = ("Azure refuses it at `pulumi up` (a fleet with a hub cannot be downgraded to hubless, and its hub settings "
                "are immutable); nothing is replaced. To remove or change a hub, create a new fleet beside this one and "
                "move the members to it")
_MEMBERS_LEAVE = ("the fleet's members leave it and its update runs and strategies go with it; every member stack must "
                  "join the new fleet again (`pulumi up` each)")

RULES: tuple[Rule, ...] = (
    # --- the Fleet ------------------------------------------------------------------------------------------------------
    Rule(FLEET, "resourceGroupName", "replace", "provider", f"{_ARM_ID}: {_MEMBERS_LEAVE}", src.PATH_PARAMETERS),
    Rule(FLEET, "fleetName", "replace", "provider", f"{_ARM_ID}: {_MEMBERS_LEAVE}", src.PATH_PARAMETERS, shown=1),
    Rule(FLEET, "hubProfile", "note", "api",
         f"a hub added to a hubless fleet: {_HUB_IN_PLACE}, and Azure upgrades the fleet to a hub in place (as `az fleet "
         "create --enable-hub` does). Then rejoin each member that was in the fleet before: `az fleet member reconcile "
         "-g <group> -f <fleet> -n <member>` (members that join later need none)",
         HUB_UPGRADE, shown=3, when="added"),
    Rule(FLEET, "hubProfile", "refused", "api", f"a hub removed: {_HUB_IN_PLACE}, and {_HUB_REFUSED}",
         HUB_UPGRADE, when="removed"),
    Rule(FLEET, "hubProfile", "refused", "api",
         f"a hub's settings changed (FleetHubProfile's dnsPrefix, agentProfile, apiServerAccessProfile are create-only): "
         f"{_HUB_IN_PLACE}, and {_HUB_REFUSED}", HUB_UPGRADE, when="changed"),
    Rule(FLEET, "location", "refused", "api",
         "an Azure resource cannot move to another region: Azure refuses the in-place update; create a new fleet beside "
         "it", FLEET_API, shown=2),
    # --- its update strategy ------------------------------------------------------------------------------------------
    Rule(STRATEGY, "resourceGroupName", "replace", "provider", _ARM_ID, src.PATH_PARAMETERS),
    Rule(STRATEGY, "fleetName", "replace", "provider", _ARM_ID, src.PATH_PARAMETERS),
    Rule(STRATEGY, "updateStrategyName", "replace", "provider",
         f"{_ARM_ID}; an auto-upgrade profile names the strategy by id and is replaced with it", src.PATH_PARAMETERS,
         shown=1),
    Rule(STRATEGY, "strategy", "note", "api",
         "changed in place: update runs created from now on copy the new stages; a run already created keeps the "
         "strategy it copied (fleets.json, UpdateRunProperties.updateStrategyId)", FLEET_API, shown=2),
    # --- its auto-upgrade profile: every property create-only --------------------------------------------------------
    *(Rule(AUTO_UPGRADE, path, "replace", "provider", _ARM_ID, src.PATH_PARAMETERS)
      for path in ("resourceGroupName", "fleetName", "autoUpgradeProfileName")),
    *(Rule(AUTO_UPGRADE, path, "replace", "provider",
           f"{_CREATE_ONLY} profile (delete, then create): no run starts in between", FLEET_API, shown=shown)
      for path, shown in (("channel", 1), ("nodeImageSelection", 2), ("disabled", 3), ("updateStrategyId", None))),
    # --- a platform's membership -------------------------------------------------------------------------------------
    *(Rule(FLEET_MEMBER, path, "replace", "provider",
           f"{_ARM_ID}: the cluster leaves the fleet (or its old name) and joins again as a new member",
           src.PATH_PARAMETERS, shown=1 if path == "fleetMemberName" else None)
      for path in ("resourceGroupName", "fleetName", "fleetMemberName")),
    Rule(FLEET_MEMBER, "clusterResourceId", "replace", "provider",
         f"{_CREATE_ONLY} member: the old cluster leaves the fleet and the new one joins", FLEET_API, shown=3),
    Rule(FLEET_MEMBER, "group", "note", "api",
         "changed in place (PATCH, FleetMemberUpdateProperties.group): update runs created from now on upgrade the "
         "member in its new group's stage", FLEET_API, shown=2),
    # --- what the engine replaces with a dependency replaced delete-first --------------------------------------------
    Rule(FLEET, None, "replace", "engine", "its resource group is replaced: deleting a group deletes what is in it",
         src.ARM_DELETE_GROUP, after=GROUP),
    *(Rule(type_, None, "replace", "engine", "its fleet is replaced: a child resource of the fleet goes with it",
           FLEET_API, after=FLEET) for type_ in (STRATEGY, AUTO_UPGRADE)),
    Rule(AUTO_UPGRADE, None, "replace", "engine",
         "its update strategy is replaced: updateStrategyId is create-only", FLEET_API, after=STRATEGY),
    Rule(FLEET_MEMBER, None, "replace", "engine",
         "its cluster is replaced: clusterResourceId is create-only, so the new cluster joins as a new member",
         FLEET_API, after=CLUSTER),
)
"""The Fleet, its strategy, its auto-upgrade profile and a platform's FleetMember: what each change does."""

IN_PLACE: tuple[InPlace, ...] = (
    # FleetPatch takes tags (and identity) only: a tags change is a PATCH of the same fleet.
    InPlace(FLEET, "tags", FLEET_API),
)
