"""The public sources the Azure rules cite, named once (AKS docs, the AKS REST API, the providers' source)."""

AKS_DOCS = "https://learn.microsoft.com/azure/aks/"
AKS_POOL_API = "https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update"
AKS_CLUSTER_API = "https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update"
AKS_MAINTENANCE_API = "https://learn.microsoft.com/rest/api/aks/maintenance-configurations/create-or-update"
ARM_GROUP_API = "https://learn.microsoft.com/rest/api/resources/resource-groups/create-or-update"
ARM_TAGS = "https://learn.microsoft.com/azure/azure-resource-manager/management/tag-resources"
ARM_DELETE_GROUP = "https://learn.microsoft.com/azure/azure-resource-manager/management/delete-resource-group"
# pulumi-azure-native's curated force-new list; the per-field networkProfile entries came with PR #4771 (first in
# 3.22.0, this package's floor): before it any networkProfile change replaced the cluster.
FORCE_NEW = "https://github.com/pulumi/pulumi-azure-native/blob/master/provider/pkg/gen/replacement.go"
NETWORK_PROFILE_PR = "https://github.com/pulumi/pulumi-azure-native/pull/4771"
# Every PUT path parameter is a replace key (calculateDetailedDiff: `p.Location == "path"`).
PATH_PARAMETERS = "https://github.com/pulumi/pulumi-azure-native/blob/master/provider/pkg/provider/diff.go"
GPU_INSTANCE_PROFILE_PR = "https://github.com/pulumi/pulumi-azure-native/pull/3655"
INLINE_POOLS_PR = "https://github.com/pulumi/pulumi-azure-native/pull/2774"
ADD_INLINE_POOL = "https://github.com/pulumi/pulumi-azure-native/issues/579"
# terraform-provider-azurerm cycles a pool through a temporary one for these (cycleNodePoolProperties); where AKS's own
# docs say nothing, that is the only public statement that AKS has no in-place path.
AZURERM_POOL = (
    "https://github.com/hashicorp/terraform-provider-azurerm/blob/main/internal/services/containers/"
    "kubernetes_cluster_node_pool_resource.go"
)
MAX_PODS_ISSUE = "https://github.com/Azure/AKS/issues/1790"
