"""What changing an AKS cluster, its resource group or its maintenance windows does: each input the package sends, with
its rule or its in-place entry.

Checked against pulumi-azure-native's force-new list (replacement.go: ManagedCluster location, dnsPrefix, fqdnSubdomain,
diskEncryptionSetID, linuxProfile, windowsProfile, nodeResourceGroup and, since PR #4771 in 3.22.0, ten networkProfile
fields; ResourceGroup location), its path parameters (diff.go), AKS's docs and the AKS REST API.
"""

from __future__ import annotations

from . import azure_sources as src
from .azure_pool import rolling_upgrade
from .model import CLUSTER, GROUP, MAINTENANCE, InPlace, Rule

_ARM_ID = "part of the ARM resource id (the URL): another value is another resource"
_FORCE_NEW = "in pulumi-azure-native's force-new list: a new cluster"
_INLINE = (
    "pulumi-azure-native no longer replaces the cluster for inline pool changes (PR #2774), so it attempts an update "
    "AKS refuses: add a new system pool first, then retire the old one"
)

RULES: tuple[Rule, ...] = (
    # --- resource group -------------------------------------------------------------------------------------------------
    Rule(GROUP, "resourceGroupName", "replace", "provider", _ARM_ID, src.PATH_PARAMETERS, shown=1),
    Rule(GROUP, "location", "replace", "provider", "in the force-new list: a resource group cannot move to another region",
         src.FORCE_NEW, shown=2),
    # --- AKS cluster ----------------------------------------------------------------------------------------------------
    Rule(CLUSTER, "resourceGroupName", "replace", "provider", _ARM_ID, src.PATH_PARAMETERS),
    Rule(CLUSTER, "resourceName", "replace", "provider", _ARM_ID, src.PATH_PARAMETERS, shown=1),
    Rule(CLUSTER, "kubernetesVersion", "note", "api",
         "a control plane upgrade, in place; separately managed pools follow only through their own "
         "orchestratorVersion (Azure/AKS #2905)", src.AKS_DOCS + "upgrade-cluster", shown=2),
    Rule(CLUSTER, "location", "replace", "provider", _FORCE_NEW, src.FORCE_NEW, shown=3),
    *(
        Rule(CLUSTER, path, "replace", "provider", _FORCE_NEW, src.FORCE_NEW, shown=7 if path == "nodeResourceGroup" else None)
        for path in ("dnsPrefix", "fqdnSubdomain", "diskEncryptionSetID", "linuxProfile", "windowsProfile", "nodeResourceGroup")
    ),
    *(
        Rule(CLUSTER, f"networkProfile.{path}", "replace", "provider",
             _FORCE_NEW + " (" + ("create-only in AKS" if create_only else
                                  "AKS migrates it only one way, so the provider stays conservative") + "; PR #4771)",
             src.FORCE_NEW, shown=5 if path == "networkPluginMode" else None)
        for path, create_only in (
            ("serviceCidr", True), ("serviceCidrs", True), ("dnsServiceIP", True), ("networkMode", True),
            ("networkPlugin", False), ("networkPluginMode", False), ("podCidr", False), ("networkDataplane", False),
            ("networkPolicy", False), ("outboundType", False),
        )
    ),
    rolling_upgrade(CLUSTER, "agentPoolProfiles[*].orchestratorVersion",
                    "the system pool's rolling upgrade, in the same request as the control plane: surge, cordon, "
                    "drain, reimage"),
    Rule(CLUSTER, "agentPoolProfiles[*].name", "refused", "api",
         "renaming the inline system pool adds a pool through the cluster, which AKS refuses (\"Adding agent pools to an "
         "existing cluster is not allowed through managed cluster operations\"); add the new system pool first",
         src.ADD_INLINE_POOL, shown=4, shows="agentPoolProfiles"),
    *(
        Rule(CLUSTER, f"agentPoolProfiles[*].{path}", "refused", "api", f"AKS: {why}; {_INLINE}", source)
        for path, why, source in (
            ("vmSize", "you can't change the VM size of a node pool after you create it", src.INLINE_POOLS_PR),
            ("availabilityZones", "you can't change the number of availability zones after you create a node pool",
             src.AKS_DOCS + "reliability-availability-zones-configure"),
            ("maxPods", "you can't change the max pods setting of a node pool after you create it",
             src.AKS_DOCS + "create-node-pools"),
            ("osDiskSizeGB", "you can't change the OS disk size after cluster or node pool creation",
             src.AKS_DOCS + "concepts-storage"),
            ("vnetSubnetID", "no doc describes moving a pool to another subnet (azurerm cycles the pool)", src.AZURERM_POOL),
        )
    ),
    Rule(CLUSTER, "apiServerAccessProfile.enablePrivateCluster", "refused", "api",
         "AKS cannot convert an existing cluster into a private one (or back) unless it uses API Server VNet Integration, "
         "and pulumi-azure-native does not force a new cluster for it: the update is refused",
         src.AKS_DOCS + "private-clusters", shown=8, shows="apiServerAccessProfile"),
    Rule(CLUSTER, "apiServerAccessProfile.authorizedIPRanges", "note", "api",
         "changed in place and enforced at once: whatever runs `pulumi up` (the Kubernetes provider) must stay inside "
         "the new ranges, or it loses the API server", src.AKS_DOCS + "api-server-authorized-ip-ranges",
         shown=8, shows="apiServerAccessProfile"),
    Rule(CLUSTER, "autoUpgradeProfile", "note", "api",
         "changed in place; AKS starts the channel's upgrades in the next maintenance window (at any time without "
         "one), and a node image upgrade reimages every GPU node (docs/production.md)", src.AKS_DOCS + "auto-upgrade-cluster",
         shown=9),
    Rule(CLUSTER, "identity", "note", "api",
         "changed in place (az aks update --assign-identity): the control plane switches identity, which needs the "
         "roles the old one had (Network Contributor on the subnet, Contributor for a capacity reservation group)",
         src.AKS_DOCS + "use-managed-identity", shown=12, shows="identity.type"),
    Rule(CLUSTER, "azureMonitorProfile.metrics.enabled", "note", "api",
         "changed in place: AKS adds (or removes) its metrics agent on every node",
         "https://learn.microsoft.com/azure/azure-monitor/containers/kubernetes-monitoring-enable", shown=10),
    Rule(CLUSTER, "aadProfile", "note", "api",
         "changed in place (az aks update --enable-aad); AKS cannot turn Entra ID integration off once it is on",
         src.AKS_DOCS + "entra-id-control-plane-authentication", shown=13,
         shows=("aadProfile.enableAzureRBAC", "aadProfile.adminGroupObjectIDs")),
    Rule(CLUSTER, None, "replace", "engine", "its resource group is replaced: deleting a group deletes what is in it",
         src.ARM_DELETE_GROUP, after=GROUP),
    # --- maintenance windows --------------------------------------------------------------------------------------------
    Rule(MAINTENANCE, "resourceGroupName", "replace", "provider", _ARM_ID, src.PATH_PARAMETERS),
    Rule(MAINTENANCE, "resourceName", "replace", "provider", _ARM_ID + " (the cluster it schedules)", src.PATH_PARAMETERS),
    Rule(MAINTENANCE, "configName", "replace", "provider",
         _ARM_ID + "; AKS reads only aksManagedAutoUpgradeSchedule and aksManagedNodeOSUpgradeSchedule",
         src.AKS_MAINTENANCE_API, shown=1),
    Rule(MAINTENANCE, None, "replace", "engine", "its cluster is replaced: a maintenance configuration is a child of "
         "its cluster", src.AKS_MAINTENANCE_API, after=CLUSTER),
)

_WINDOW = src.AKS_DOCS + "planned-maintenance"
IN_PLACE: tuple[InPlace, ...] = (
    InPlace(GROUP, "tags", src.ARM_TAGS),
    InPlace(CLUSTER, "tags", src.AKS_DOCS + "use-tags"),
    InPlace(CLUSTER, "disableLocalAccounts", src.AKS_DOCS + "manage-local-accounts-managed-azure-ad", shown=6),
    InPlace(CLUSTER, "sku.tier", src.AKS_DOCS + "free-standard-pricing-tiers", shown=11),
    InPlace(CLUSTER, "networkProfile.loadBalancerSku", src.NETWORK_PROFILE_PR),
    InPlace(CLUSTER, "agentPoolProfiles[*].count", src.AKS_DOCS + "scale-cluster"),
    InPlace(CLUSTER, "agentPoolProfiles[*].nodeTaints", src.AKS_DOCS + "use-node-taints"),
    # Sent as constants (components/azure/cluster.py): they never change.
    *(
        InPlace(CLUSTER, path, "constant in components/azure/cluster.py")
        for path in (
            "sku.name", "enableRBAC", "oidcIssuerProfile.enabled", "securityProfile.workloadIdentity.enabled",
            "agentPoolProfiles[*].mode", "agentPoolProfiles[*].osType", "agentPoolProfiles[*].type",
        )
    ),
    InPlace(MAINTENANCE, "maintenanceWindow.schedule.weekly.dayOfWeek", _WINDOW, shown=2),
    InPlace(MAINTENANCE, "maintenanceWindow.schedule.weekly.intervalWeeks", _WINDOW),
    InPlace(MAINTENANCE, "maintenanceWindow.startTime", _WINDOW, shown=3),
    InPlace(MAINTENANCE, "maintenanceWindow.durationHours", _WINDOW, shown=4),
    InPlace(MAINTENANCE, "maintenanceWindow.utcOffset", _WINDOW, shown=5),
)
