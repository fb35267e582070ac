"""How long each kind of resource typically takes to create, and which kind a planned resource is (critical_path)."""

from __future__ import annotations

from dataclasses import dataclass

from ..offline.plan import Registration


@dataclass(frozen=True)
class Typical:
    """How long one kind of resource typically takes to create, and where that figure comes from."""

    kind: str
    minutes: float
    source: str


# Typical first-creation times. Where no primary source states a figure, the source says so: treat it as an estimate.
TYPICAL: dict[str, Typical] = {
    t.kind: t
    for t in (
        Typical("resource group", 0.1, "estimate: a synchronous ARM write (Azure Resource Manager), seconds"),
        Typical(
            "AKS cluster",
            8.0,
            "estimate: AKS quickstarts (learn.microsoft.com/azure/aks) say 'a few minutes'; measured runs of 5-18 min "
            "are reported",
        ),
        Typical(
            "GPU agent pool",
            6.0,
            "estimate: VM scale set plus AKS's GRID driver install; Microsoft Q&A reports 5-10 min for a GPU node on AKS",
        ),
        Typical(
            "maintenance configuration",
            0.1,
            "estimate: one ARM write on the cluster (AKS REST API, Maintenance Configurations - Create Or Update)",
        ),
        Typical("Kubernetes provider", 0.0, "Pulumi docs (explicit providers): a provider holds configuration only"),
        Typical(
            "Helm release",
            2.0,
            "estimate: helm.v3.Release waits for the release's workloads (Pulumi docs: Release, skipAwait=false); "
            "the driver images come from nvcr.io",
        ),
        Typical(
            "Kubernetes object",
            0.05,
            "estimate: Pulumi's await logic treats Namespaces, DeviceClasses, claims and policies as ready when created; "
            "the sample Job is skipAwait",
        ),
        Typical("fleet", 1.0, "estimate: a hubless Fleet is an ARM resource with no compute behind it (Azure Kubernetes "
                "Fleet Manager docs give no figure)"),
        Typical("fleet with a hub", 8.0, "estimate: a hub is a Microsoft-managed single-node AKS cluster (Fleet FAQ), "
                "so as long as the 'AKS cluster' row"),
        Typical("fleet member", 1.0, "estimate: joining a cluster to a fleet (FleetMember PUT); no figure is published"),
        Typical("fleet policy", 0.1, "estimate: one ARM write (FleetUpdateStrategy, AutoUpgradeProfile)"),
        Typical("node label", 0.1, "estimate: one `kubectl label nodes` (manual recipe only)"),
        Typical("other provider", 0.0, "Pulumi docs (explicit providers): a provider holds configuration only"),
        Typical("component", 0.0, "Pulumi docs (component resources): a logical grouping, nothing is provisioned"),
        Typical("other", 1.0, "estimate: a resource kind this table does not know"),
    )
}

_KIND_OF_TYPE = {
    "azure-native:resources:ResourceGroup": "resource group",
    "azure-native:containerservice:ManagedCluster": "AKS cluster",
    "azure-native:containerservice:AgentPool": "GPU agent pool",
    "azure-native:containerservice:MaintenanceConfiguration": "maintenance configuration",
    "pulumi:providers:kubernetes": "Kubernetes provider",
    "kubernetes:helm.sh/v3:Release": "Helm release",
    "azure-native:containerservice:FleetMember": "fleet member",
    "azure-native:containerservice:FleetUpdateStrategy": "fleet policy",
    "azure-native:containerservice:AutoUpgradeProfile": "fleet policy",
}


def kind_of(resource: Registration) -> str:
    """The row of the table a resource is priced by."""
    if not resource.custom:
        return "component"
    if resource.type == "azure-native:containerservice:Fleet":
        return "fleet with a hub" if resource.inputs.get("hubProfile") else "fleet"
    if resource.type in _KIND_OF_TYPE:
        return _KIND_OF_TYPE[resource.type]
    if resource.type.startswith("kubernetes:"):
        return "Kubernetes object"
    if resource.type.startswith("pulumi:providers:"):
        return "other provider"
    return "other"
