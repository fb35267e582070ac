"""The cluster autoscaler and DRA nodes: (advisory) an autoscaled DRA pool whose nodes the autoscaler counts as unready.

Upstream cluster-autoscaler 1.35 (kubernetes/autoscaler `cluster-autoscaler/processors/customresources/gpu_processor.go`,
`FilterOutNodesWithUnreadyResources`) marks a node unready when it carries the cloud provider's GPU label and has no GPU
allocatable (`utils/gpu/gpu.go`: nvidia.com/gpu and the other vendors' names), unless the provider names a DRA driver
for it; only GCE does (`cloudprovider/gce/gce_cloud_provider.go`). The Azure provider's label is
kubernetes.azure.com/accelerator (`cloudprovider/azure/azure_cloud_provider.go`, `GPULabel()`), which AKS documents as a
label it sets on GPU nodes (MicrosoftDocs/azure-aks-docs `articles/aks/use-labels.md`). A DRA pool runs AKS's driver and no
device plugin, so its nodes have no GPU allocatable. Unready nodes are never a template for new ones
(`processors/nodeinfosprovider/mixed_nodeinfos_processor.go`), and past `ok-total-unready-count` and
`max-total-unready-percentage` the autoscaler halts (`clusterstate/clusterstate.go`, `IsClusterHealthy`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..catalog import GPU_PRESENT_LABEL
from ..config import value_at

AKS_GPU_LABEL = "kubernetes.azure.com/accelerator"
"""The label the Azure provider of the cluster autoscaler reads as "this node has a GPU" (`GPULabel()`)."""

AUTOSCALER_UNREADY_WHY = (
    f"the cluster autoscaler (1.35) likely counts its nodes as unready: they carry AKS's {AKS_GPU_LABEL} label and no "
    "GPU allocatable (cluster-autoscaler processors/customresources/gpu_processor.go), so it never builds new nodes "
    "from them and halts all scaling past its unready thresholds"
)


def _is_agent_pool(type_token: str) -> bool:
    parts = type_token.split(":")
    return len(parts) == 3 and parts[0] == "azure-native" and parts[1].split("/")[0] == "containerservice" and (
        parts[2] == "AgentPool"
    )


def check_autoscaler_gpu_label(type_token: str, inputs: Mapping[str, Any]) -> list[str]:
    """Advisory: a DRA-serving GPU pool (labelled for the kubelet plugin) that the cluster autoscaler manages, whose
    nodes that autoscaler likely counts as unready for want of GPU allocatable."""
    if not _is_agent_pool(type_token):
        return []
    label_key, label_value = GPU_PRESENT_LABEL
    if value_at(inputs, ("nodeLabels", label_key)) != label_value or value_at(inputs, ("enableAutoScaling",)) is not True:
        return []
    name = value_at(inputs, ("agentPoolName",))
    return [
        f"pool {name if isinstance(name, str) else '?'} autoscales, but {AUTOSCALER_UNREADY_WHY}; size it for its peak "
        "(minCount) and see docs/extended-resources.md, \"Autoscaling on AKS\""
    ]
