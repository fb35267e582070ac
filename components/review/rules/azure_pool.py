"""What changing an AKS agent pool (a GPU pool) does: each input the package sends, with its rule or its in-place entry.

Checked against AKS's docs, the AKS REST API and pulumi-azure-native's force-new list (replacement.go, AgentPool:
gpuInstanceProfile, vmSize, networkProfile.nodePublicIPTags). Refusals that only terraform-provider-azurerm states
(its ForceNew flags and cycled properties are Terraform's choices) say so.
"""

from __future__ import annotations

from . import azure_sources as src
from .model import CLUSTER, POOL, InPlace, Rule

_ARM_ID = "part of the ARM resource id (the URL): another value is another resource"
_NO_UPDATE = "Pulumi attempts an in-place update (not in pulumi-azure-native's force-new list), which AKS refuses"
_CYCLED = (
    "no AKS doc describes an in-place change and azurerm can only do it by cycling the whole pool; " + _NO_UPDATE +
    ": add a new pool beside it"
)


def rolling_upgrade(resource: str, path: str, how: str) -> Rule:
    """A node pool's Kubernetes version (a separate pool, or the cluster's inline one): AKS's rolling upgrade of its
    nodes, in place (upgrade-node-pools)."""
    return Rule(resource, path, "rebuild", "api", how, src.AKS_DOCS + "upgrade-node-pools")


RULES: tuple[Rule, ...] = (
    Rule(POOL, "resourceGroupName", "replace", "provider", _ARM_ID, src.PATH_PARAMETERS),
    Rule(POOL, "resourceName", "replace", "provider", _ARM_ID + " (the cluster the pool belongs to)", src.PATH_PARAMETERS),
    Rule(POOL, "agentPoolName", "replace", "provider", _ARM_ID, src.PATH_PARAMETERS, shown=1),
    Rule(POOL, "vmSize", "replace", "provider",
         "in pulumi-azure-native's force-new list; AKS: you can't change the VM size of a node pool after you create it "
         "(create-node-pools)", src.FORCE_NEW, shown=2),
    Rule(POOL, "gpuInstanceProfile", "replace", "provider",
         "in the force-new list: the GPU instance profile can't be changed after node pool creation",
         src.GPU_INSTANCE_PROFILE_PR, shown=3),  # the one immutable MIG setting: on view beside the size
    Rule(POOL, "networkProfile.nodePublicIPTags", "replace", "provider",
         "in the force-new list since pulumi-azure-native 3.22.0 (PR #4771; before it the whole networkProfile was)",
         src.FORCE_NEW),
    Rule(POOL, "osType", "refused", "api", "a pool's OS type is fixed at creation (azurerm: os_type is ForceNew); " + _NO_UPDATE
         + ": add a new pool beside it", src.AZURERM_POOL),
    Rule(POOL, "gpuProfile.driver", "refused", "api",
         "AKS: the managementMode, migStrategy and driver fields under gpuProfile are immutable after node pool creation; "
         + _NO_UPDATE, src.AKS_DOCS + "aks-managed-gpu-nodes", shown=12),
    # The managed GPU profile (managementMode Managed: AKS installs the NVIDIA driver, device plugin and DCGM exporter;
    # MicrosoftDocs/azure-aks-docs, articles/aks/aks-managed-gpu-nodes.md) on an existing pool: immutable like the driver
    # field beside it, and the policy no-managed-gpu-profile forbids Managed outright.
    Rule(POOL, "gpuProfile.nvidia", "refused", "api",
         "AKS: the managementMode, migStrategy and driver fields under gpuProfile are immutable after node pool creation; "
         + _NO_UPDATE + "; and this package's policy no-managed-gpu-profile forbids managementMode Managed beside the "
         "DRA driver (AKS's device plugin would hand out the GPUs the DRA driver publishes)",
         src.AKS_DOCS + "aks-managed-gpu-nodes"),
    Rule(POOL, "maxPods", "refused", "api",
         "AKS: you can't change the max pods setting of a node pool after you create it (create-node-pools; Azure/AKS "
         "#1790); " + _NO_UPDATE, src.AKS_DOCS + "create-node-pools"),
    Rule(POOL, "availabilityZones", "refused", "api",
         "AKS: you can't change the number of availability zones after you create a node pool; " + _NO_UPDATE,
         src.AKS_DOCS + "reliability-availability-zones-configure", shown=9),
    Rule(POOL, "osDiskSizeGB", "refused", "api",
         "AKS: you can't change the OS disk size after cluster or node pool creation; " + _NO_UPDATE,
         src.AKS_DOCS + "concepts-storage"),
    Rule(POOL, "osDiskType", "refused", "api",
         "the AKS API: osDiskType may not be changed after creation; " + _NO_UPDATE, src.AKS_POOL_API, shown=17),
    *(
        Rule(POOL, path, "refused", "api", _CYCLED, src.AZURERM_POOL, shown=19 if path == "vnetSubnetID" else None)
        for path in ("vnetSubnetID", "podSubnetID", "kubeletDiskType", "enableNodePublicIP")
    ),
    *(
        Rule(POOL, path, "refused", "api",
             "AKS applies custom node configuration to the nodes of a new pool only (custom-node-configuration); "
             + _CYCLED, src.AKS_DOCS + "custom-node-configuration")
        for path in ("kubeletConfig", "linuxOSConfig")
    ),
    Rule(POOL, "enableEncryptionAtHost", "refused", "api",
         "AKS enables host encryption on an existing cluster by adding a new node pool; " + _NO_UPDATE,
         src.AKS_DOCS + "enable-host-encryption"),
    Rule(POOL, "enableUltraSSD", "refused", "api",
         "AKS enables Ultra disks on an existing cluster by adding a new node pool; " + _NO_UPDATE,
         src.AKS_DOCS + "use-ultra-disks"),
    # Not refused: AKS switches FIPS on and off on an existing Linux pool (`az aks nodepool update
    # --enable-fips-image`, GA 2024), and pulumi-azure-native has no force-new rule for it; azurerm still cycles.
    Rule(POOL, "enableFIPS", "rebuild", "api",
         "AKS updates an existing Linux pool to FIPS (or back) in place and reimages its nodes",
         src.AKS_DOCS + "enable-fips-nodes"),
    rolling_upgrade(POOL, "orchestratorVersion",
                    "a rolling Kubernetes upgrade of the pool: AKS adds surge nodes (maxSurge), then cordons, drains "
                    "and reimages each node; GPU pods are evicted and their claims allocated again on upgraded nodes"),
    Rule(POOL, "osSKU", "rebuild", "api",
         "AKS migrates between Linux OS SKUs in place (az aks nodepool update --os-sku) by reimaging every node",
         src.AKS_DOCS + "upgrade-os-version"),
    *(
        Rule(POOL, path, "refused", "api", "AKS: " + why + "; " + _NO_UPDATE, src.AKS_DOCS + "spot-node-pool", shown=row)
        for path, row, why in (
            ("scaleSetPriority", 13, "you can't change ScaleSetPriority or SpotMaxPrice after creation"),
            ("scaleSetEvictionPolicy", 14, "the priority and eviction-policy values can only be set during node pool creation"),
            ("spotMaxPrice", 15, "you can't change ScaleSetPriority or SpotMaxPrice after creation"),
        )
    ),
    Rule(POOL, "capacityReservationGroupID", "refused", "api",
         "on the stable API a pool is tied to its capacity reservation group at creation; associating one with an "
         "existing pool is an AKS preview (aks-preview `az aks nodepool update --crg-id`, which reimages the nodes); "
         + _NO_UPDATE, src.AKS_DOCS + "use-capacity-reservation-groups", shown=18),
    Rule(POOL, "scaleDownMode", "note", "api",
         "changed in place; switching from Deallocate to Delete deletes the pool's deallocated VMs (and their disks)",
         src.AKS_DOCS + "scale-down-mode", shown=16),
    Rule(POOL, None, "replace", "engine", "its cluster is replaced: a pool is a child of its cluster", src.AKS_POOL_API,
         after=CLUSTER),
)

IN_PLACE: tuple[InPlace, ...] = (
    InPlace(POOL, "mode", src.AKS_DOCS + "use-system-pools", shown=4),
    InPlace(POOL, "count", src.AKS_DOCS + "scale-cluster", shown=5),
    InPlace(POOL, "enableAutoScaling", src.AKS_DOCS + "cluster-autoscaler", shown=6),
    InPlace(POOL, "minCount", src.AKS_DOCS + "cluster-autoscaler", shown=7),
    InPlace(POOL, "maxCount", src.AKS_DOCS + "cluster-autoscaler", shown=8),
    InPlace(POOL, "nodeLabels", src.AKS_DOCS + "use-labels", shown=10),
    InPlace(POOL, "nodeTaints", src.AKS_DOCS + "use-node-taints", shown=11),
    InPlace(POOL, "upgradeSettings.maxSurge", src.AKS_DOCS + "upgrade-cluster"),
    InPlace(POOL, "tags", src.AKS_DOCS + "use-tags"),
    # Sent as a constant (components/azure/gpu_pool.py): it never changes.
    InPlace(POOL, "type", "constant VirtualMachineScaleSets in components/azure/gpu_pool.py"),
)
