"""When a change replaces the AKS cluster: the inputs pulumi-azure-native replaces it on, and the Kubernetes provider's
clusterIdentifier built from them."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..config import ClusterConfig


# The ManagedCluster inputs this package sets whose change makes pulumi-azure-native replace the cluster: its URL path
# parameters and the curated force-new list (pulumi/pulumi-azure-native provider/pkg/gen/replacement.go,
# ContainerService.ManagedCluster; checked against v3.29.0).
def replacement_identity(config: ClusterConfig) -> dict[str, Any]:
    """The values that, when any changes, give a new cluster (a replacement) rather than an update of this one."""
    identity: dict[str, Any] = {
        "resourceGroupName": config.resource_group.name,
        "resourceName": config.name,
        "location": config.location,
        "dnsPrefix": config.effective_dns_prefix,
        "networkProfile": {
            "networkPlugin": "azure",
            "networkPluginMode": "overlay",
            "networkDataplane": "cilium",
            "networkPolicy": "cilium",
        },
    }
    # Force-new too (replacement.go: "nodeResourceGroup"); left out when unset so that existing clusters keep the
    # identifier (and the Kubernetes provider) they had.
    if config.node_resource_group is not None:
        identity["nodeResourceGroup"] = config.node_resource_group
    # Force-new since PR #4771 (podCidr, serviceCidr, dnsServiceIP); left out at AKS's defaults for the same reason.
    identity["networkProfile"].update(config.network.custom_ranges)
    return identity


def cluster_identifier(config: ClusterConfig) -> str:
    """The Kubernetes provider's clusterIdentifier: changes exactly when the cluster is replaced.

    pulumi-kubernetes replaces its provider (and so every object created through it) when clusterIdentifier changes,
    and updates it in place when only the kubeconfig changes (provider/pkg/provider/provider.go, DiffConfig). Built
    from inputs, it is known in every preview: an in-place cluster update (tags, tier, version) replaces nothing
    in Kubernetes, while a change that replaces the cluster replaces the provider with it. The cluster's resourceUID
    would say the same after the fact but is unknown in any preview of a cluster update.
    """
    identity = replacement_identity(config)
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    return f"aks:{config.resource_group.name}/{config.name}#{digest}"
