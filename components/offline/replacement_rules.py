"""Which changes replace a resource, which Azure refuses in place, and what a replacement costs: one table, each rule sourced.

The diff (``components.offline.diff``) asks this module two questions about every changed input path: does a rule
match it, and what does the rule do. Rules are data; the few functions below only parse and match property paths.

Effects (checked against pulumi-azure-native v3.29, pulumi-kubernetes v4.34 and the Pulumi engine v3.2xx):
- ``replace``: Pulumi deletes the resource and creates it again. ``mechanism="provider"``: the provider's Diff asks for
  it (pulumi-azure-native: URL path parameters and its curated force-new list; pulumi-kubernetes: its force-new
  list); ``mechanism="engine"``: the engine does (the resource's replaceOnChanges option, a new provider, or a
  dependency replaced delete-first whose change the dependent's Diff turns into a replacement).
- ``refused``: Pulumi attempts an in-place update and the service refuses it (Azure, or the Kubernetes API server):
  ``pulumi up`` fails and nothing is replaced; the change needs a procedure (docs/safe-changes.md).
- ``rebuild``: changed in place by re-creating nodes one after the other (a rolling upgrade or reimage).
- ``note``: changed in place, with a consequence worth a line in the review.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Literal

Effect = Literal["replace", "rebuild", "refused", "note"]
Refuser = Literal["Azure", "the Kubernetes API server", "Pulumi"]
Mechanism = Literal["provider", "api", "engine"]
PathPart = str | int  # a key, a list index, or "*" (any list item)

SAFE_CHANGES_DOC = "docs/safe-changes.md"

GROUP = "azure-native:resources:ResourceGroup"
CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
K8S_PROVIDER = "pulumi:providers:kubernetes"
RELEASE = "kubernetes:helm.sh/v3:Release"
NAMESPACE = "kubernetes:core/v1:Namespace"
JOB = "kubernetes:batch/v1:Job"
DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
CLAIM = "kubernetes:resource.k8s.io/v1:ResourceClaim"
CLAIM_TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"


@dataclass(frozen=True)
class Rule:
    """One fact about changing a resource: which inputs (or which replaced dependency) trigger what, and the source."""

    type: str  # a type token, or a glob such as "kubernetes:*"
    path: str | None  # input path in Pulumi's property-path syntax ("[*]" = any list item); None for a cascade
    effect: Effect
    mechanism: Mechanism
    why: str
    source: str
    after: str | None = None  # cascade: applies when a resource this one depends on, of this type (glob), is replaced


# --- sources, named once ---------------------------------------------------------------------------------------------
_AKS_POOL_API = "https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update"
_AKS_CLUSTER_API = "https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update"
_ARM_GROUP_API = "https://learn.microsoft.com/rest/api/resources/resource-groups/create-or-update"
_AKS_POOL_LIMITS = "https://learn.microsoft.com/azure/aks/manage-node-pools#limitations"
_AZURE_NATIVE_FORCE_NEW = "https://github.com/pulumi/pulumi-azure-native/blob/master/provider/pkg/gen/replacement.go"
_AZURE_NATIVE_POOL_PR = "https://github.com/pulumi/pulumi-azure-native/pull/3655"
_AZURE_NATIVE_INLINE_POOLS = "https://github.com/pulumi/pulumi-azure-native/pull/2774"
# The properties the azurerm provider can only change by cycling the pool through a temporary one.
_POOL_CYCLING = "https://www.pulumi.com/registry/packages/azure/api-docs/containerservice/kubernetesclusternodepool/"
_AZURERM_POOL = (
    "https://github.com/hashicorp/terraform-provider-azurerm/blob/main/internal/services/containers/"
    "kubernetes_cluster_node_pool_resource.go"
)
_AKS_GPU_DRIVER = "https://learn.microsoft.com/azure/aks/nvidia-gpu-operator"
_AZURE_LINUX_MIGRATION = "https://learn.microsoft.com/azure/azure-linux/tutorial-azure-linux-migration"
_AKS_UPGRADE = "https://learn.microsoft.com/azure/aks/upgrade-cluster"
_AKS_POOL_UPGRADE = "https://learn.microsoft.com/azure/aks/upgrade-node-pools"
_AKS_MAX_PODS = "https://github.com/Azure/AKS/issues/1790"
_ARM_DELETE_GROUP = "https://learn.microsoft.com/azure/azure-resource-manager/management/delete-resource-group"
_K8S_FORCE_NEW = "https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/diff.go"
_HELM_RELEASE_DIFF = "https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/helm_release.go"
_K8S_SSA_IMMUTABLE = "https://github.com/pulumi/pulumi-kubernetes/pull/2232"
_K8S_CLAIM = "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/resource-claim-v1/"
_K8S_CLAIM_TEMPLATE = "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/resource-claim-template-v1/"
_K8S_DEVICE_CLASS = "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/device-class-v1/"
_K8S_PROVIDER_DIFF = "https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/provider.go"
_PROVIDER_CHANGE = "https://github.com/pulumi/pulumi/issues/10082"
_REPLACE_ON_CHANGES = "https://www.pulumi.com/docs/concepts/options/replaceonchanges/"

# AKS production settings (issue 13).
MAINTENANCE = "azure-native:containerservice:MaintenanceConfiguration"
_AKS_SCALE_DOWN_MODE = "https://learn.microsoft.com/azure/aks/scale-down-mode"
_AKS_PRIVATE_CLUSTERS = "https://learn.microsoft.com/azure/aks/private-clusters"
_AKS_AUTHORIZED_RANGES = "https://learn.microsoft.com/azure/aks/api-server-authorized-ip-ranges"
_AKS_AUTO_UPGRADE = "https://learn.microsoft.com/azure/aks/auto-upgrade-cluster"
_AKS_MANAGED_PROMETHEUS = "https://learn.microsoft.com/azure/azure-monitor/containers/kubernetes-monitoring-enable"
_AKS_MANAGED_IDENTITY = "https://learn.microsoft.com/azure/aks/use-managed-identity"
_AKS_MAINTENANCE_API = "https://learn.microsoft.com/rest/api/aks/maintenance-configurations/create-or-update"

_ARM_ID = "part of the ARM resource id (the URL): another value is another resource"
_CYCLED = (
    "not in pulumi-azure-native's force-new list, so Pulumi attempts an in-place update; AKS cannot change it on an "
    "existing pool (azurerm can only do it by cycling the whole pool): add a new pool beside it"
)


RULES: tuple[Rule, ...] = (
    # --- resource group -----------------------------------------------------------------------------------------------
    Rule(GROUP, "resourceGroupName", "replace", "provider", _ARM_ID, _ARM_GROUP_API),
    Rule(GROUP, "location", "replace", "provider", "a resource group cannot move to another region", _AZURE_NATIVE_FORCE_NEW),
    # --- AKS cluster ----------------------------------------------------------------------------------------------------
    Rule(CLUSTER, "resourceGroupName", "replace", "provider", _ARM_ID, _AKS_CLUSTER_API),
    Rule(CLUSTER, "resourceName", "replace", "provider", _ARM_ID, _AKS_CLUSTER_API),
    *(
        Rule(CLUSTER, path, "replace", "provider", "create-only in the AKS API; pulumi-azure-native forces a new cluster",
             _AZURE_NATIVE_FORCE_NEW)
        for path in (
            "location", "dnsPrefix", "fqdnSubdomain", "diskEncryptionSetID", "linuxProfile", "windowsProfile",
            "nodeResourceGroup", "networkProfile.serviceCidr", "networkProfile.serviceCidrs",
            "networkProfile.dnsServiceIP", "networkProfile.networkMode", "networkProfile.networkPlugin",
            "networkProfile.networkPluginMode", "networkProfile.podCidr", "networkProfile.networkDataplane",
            "networkProfile.networkPolicy", "networkProfile.outboundType",
        )
    ),
    Rule(CLUSTER, "kubernetesVersion", "note", "api",
         "a control plane upgrade, in place; separately managed pools follow only through their own "
         "orchestratorVersion (Azure/AKS #2905)", _AKS_UPGRADE),
    Rule(CLUSTER, "agentPoolProfiles[*].orchestratorVersion", "rebuild", "api",
         "the system pool's rolling upgrade, in the same request as the control plane: surge, cordon, drain, reimage",
         _AKS_POOL_UPGRADE),
    # The inline system pool: AKS refuses these in place, and the cluster must not be replaced for them.
    *(
        Rule(CLUSTER, f"agentPoolProfiles[*].{path}", "refused", "api",
             f"AKS cannot change an existing pool's {path}, and pulumi-azure-native no longer replaces the whole cluster "
             "for inline pool changes: add a new system pool first, then retire the old one",
             _AZURE_NATIVE_INLINE_POOLS if path == "vmSize" else _POOL_CYCLING)
        for path in ("vmSize", "availabilityZones", "maxPods", "osDiskSizeGB", "vnetSubnetID")
    ),
    Rule(CLUSTER, "agentPoolProfiles[*].name", "refused", "api",
         "renaming the inline system pool removes it and adds another in one request; add the new system pool first",
         _AKS_CLUSTER_API),
    # --- GPU pools (AgentPool) ------------------------------------------------------------------------------------------
    Rule(POOL, "resourceGroupName", "replace", "provider", _ARM_ID, _AKS_POOL_API),
    Rule(POOL, "resourceName", "replace", "provider", _ARM_ID + " (the cluster the pool belongs to)", _AKS_POOL_API),
    Rule(POOL, "agentPoolName", "replace", "provider", _ARM_ID, _AKS_POOL_API),
    Rule(POOL, "vmSize", "replace", "provider", "AKS cannot change a VM scale set pool's VM size", _AKS_POOL_LIMITS),
    Rule(POOL, "gpuInstanceProfile", "replace", "provider", "the GPU instance profile is fixed at creation",
         _AZURE_NATIVE_POOL_PR),
    Rule(POOL, "networkProfile.nodePublicIPTags", "replace", "provider", "create-only in the AKS API",
         _AZURE_NATIVE_FORCE_NEW),
    Rule(POOL, "osType", "refused", "api", "a pool's OS type is fixed at creation (azurerm: ForceNew); " + _CYCLED,
         _AZURERM_POOL),
    Rule(POOL, "gpuProfile", "refused", "api",
         "the GPU driver choice is applied when a node is created (azurerm: gpu_driver is ForceNew); " + _CYCLED,
         _AKS_GPU_DRIVER),
    *(
        Rule(POOL, path, "refused", "api", _CYCLED, _AKS_MAX_PODS if path == "maxPods" else _POOL_CYCLING)
        for path in (
            "maxPods", "availabilityZones", "vnetSubnetID", "podSubnetID", "osDiskSizeGB", "osDiskType",
            "kubeletDiskType", "kubeletConfig", "linuxOSConfig", "enableFIPS", "enableEncryptionAtHost",
            "enableUltraSSD", "enableNodePublicIP",
        )
    ),
    Rule(POOL, "orchestratorVersion", "rebuild", "api",
         "a rolling Kubernetes upgrade of the pool: AKS adds surge nodes (maxSurge), then cordons, drains and reimages "
         "each node; GPU pods are evicted and their claims allocated again on upgraded nodes",
         _AKS_POOL_UPGRADE),
    Rule(POOL, "osSKU", "rebuild", "api",
         "AKS migrates the OS SKU in place by reimaging every node (or you add a new pool with the new OS)",
         _AZURE_LINUX_MIGRATION),
    # --- Kubernetes objects ---------------------------------------------------------------------------------------------
    Rule("kubernetes:*", "metadata.name", "replace", "provider", "an object's name is its identity", _K8S_FORCE_NEW),
    Rule("kubernetes:*", "metadata.namespace", "replace", "provider", "an object cannot move to another namespace",
         _K8S_FORCE_NEW),
    *(
        Rule(JOB, path, "replace", "provider", "immutable in a Job", _K8S_FORCE_NEW)
        for path in ("spec.template", "spec.completions", "spec.parallelism", "spec.selector")
    ),
    Rule(CLAIM_TEMPLATE, "spec", "refused", "api",
         "a ResourceClaimTemplate's spec is immutable, and pulumi-kubernetes has no force-new rule for resource.k8s.io "
         "objects, so it plans an update the API server refuses (422 field is immutable); the package's claim objects "
         "carry replaceOnChanges [spec] (with deleteBeforeReplace) so Pulumi replaces them instead", _K8S_FORCE_NEW),
    Rule(CLAIM, "spec", "refused", "api",
         "a ResourceClaim's spec is immutable, and pulumi-kubernetes has no force-new rule for resource.k8s.io "
         "objects, so it plans an update the API server refuses (422 field is immutable); the package's claim objects "
         "carry replaceOnChanges [spec] (with deleteBeforeReplace) so Pulumi replaces them instead", _K8S_FORCE_NEW),
    Rule(DEVICE_CLASS, "spec", "note", "api",
         "a DeviceClass's spec is mutable and updated in place; claims already allocated keep the devices they got "
         "under the old selectors, only new allocations use the new ones", _K8S_DEVICE_CLASS),
    Rule(RELEASE, "name", "replace", "provider", "a Helm release's name is its identity", _HELM_RELEASE_DIFF),
    Rule(RELEASE, "namespace", "replace", "provider", "a Helm release cannot move to another namespace",
         _HELM_RELEASE_DIFF),
    # --- AKS production settings (issue 13): spot, scale-down, disks, capacity, subnets, API server, upgrades ----------
    # pulumi-azure-native forces a new AgentPool only for vmSize, gpuInstanceProfile and nodePublicIPTags, and a new
    # ManagedCluster for nodeResourceGroup and the network parts listed above (replacement.go): everything below is
    # attempted in place. osDiskType and vnetSubnetID of a GPU pool are in the cycled list above; tags (pools and
    # cluster) and spot nodes' declared label and taint are plain in-place updates (azurerm updates them in place).
    *(
        Rule(POOL, path, "refused", "api", why + "; Pulumi attempts an in-place update, which AKS refuses", _AZURERM_POOL)
        for path, why in (
            ("scaleSetPriority", "a pool is spot or regular from its creation: AKS cannot change an existing pool's "
             "priority (azurerm: priority is ForceNew)"),
            ("scaleSetEvictionPolicy", "the spot eviction policy is fixed at creation (azurerm: eviction_policy is "
             "ForceNew)"),
            ("spotMaxPrice", "the spot max price is fixed at creation (azurerm: spot_max_price is ForceNew)"),
            ("capacityReservationGroupID", "a pool is tied to its capacity reservation group at creation (azurerm: "
             "capacity_reservation_group_id is ForceNew)"),
        )
    ),
    Rule(POOL, "scaleDownMode", "note", "api",
         "changed in place; switching from Deallocate to Delete deletes the pool's deallocated VMs (and their disks)",
         _AKS_SCALE_DOWN_MODE),
    Rule(CLUSTER, "apiServerAccessProfile.enablePrivateCluster", "refused", "api",
         "AKS cannot convert an existing cluster into a private one (or back), and pulumi-azure-native does not force "
         "a new cluster for it: the update is refused; only a new cluster is private",
         _AKS_PRIVATE_CLUSTERS),
    Rule(CLUSTER, "apiServerAccessProfile.authorizedIPRanges", "note", "api",
         "changed in place and enforced at once: whatever runs `pulumi up` (the Kubernetes provider) must stay inside "
         "the new ranges, or it loses the API server", _AKS_AUTHORIZED_RANGES),
    Rule(CLUSTER, "autoUpgradeProfile", "note", "api",
         "changed in place; AKS starts the channel's upgrades in the next maintenance window (at any time without "
         "one), and a node image upgrade reimages every GPU node (docs/production.md)", _AKS_AUTO_UPGRADE),
    Rule(CLUSTER, "identity", "note", "api",
         "changed in place (az aks update --assign-identity): the control plane switches identity, which needs the "
         "roles the old one had (Network Contributor on the subnet, Contributor for a capacity reservation group)",
         _AKS_MANAGED_IDENTITY),
    Rule(CLUSTER, "azureMonitorProfile.metrics.enabled", "note", "api",
         "changed in place: AKS adds (or removes) its metrics agent on every node", _AKS_MANAGED_PROMETHEUS),
    Rule(MAINTENANCE, "resourceGroupName", "replace", "provider", _ARM_ID, _AKS_MAINTENANCE_API),
    Rule(MAINTENANCE, "resourceName", "replace", "provider", _ARM_ID + " (the cluster it schedules)",
         _AKS_MAINTENANCE_API),
    Rule(MAINTENANCE, "configName", "replace", "provider",
         _ARM_ID + "; AKS reads only aksManagedAutoUpgradeSchedule and aksManagedNodeOSUpgradeSchedule",
         _AKS_MAINTENANCE_API),
    Rule(MAINTENANCE, None, "replace", "engine", "its cluster is replaced: a maintenance configuration is a child of "
         "its cluster", _AKS_MAINTENANCE_API, after=CLUSTER),
    # --- end of AKS production settings ---------------------------------------------------------------------------------
    # --- providers and cascades -----------------------------------------------------------------------------------------
    Rule(K8S_PROVIDER, "clusterIdentifier", "replace", "provider",
         "with clusterIdentifier set, pulumi-kubernetes replaces its provider exactly when it changes (DiffConfig), "
         "and with it every object the provider manages; kubeconfig changes are updates in place",
         _K8S_PROVIDER_DIFF),
    Rule("*", None, "replace", "engine", "its provider is replaced, and a provider's resources are replaced with it",
         _PROVIDER_CHANGE, after="pulumi:providers:*"),
    # A dependency replaced delete-first: the engine deletes, first, every dependent whose Diff (with the inputs it
    # takes from the dependency unknown) asks for a replacement (pulumi/pulumi pkg/resource/deploy/step_generator.go,
    # calculateDependentReplacements). A pool's resourceName and resourceGroupName are path parameters.
    Rule(CLUSTER, None, "replace", "engine", "its resource group is replaced: deleting a group deletes what is in it",
         _ARM_DELETE_GROUP, after=GROUP),
    Rule(POOL, None, "replace", "engine", "its cluster is replaced: a pool is a child of its cluster", _AKS_POOL_API,
         after=CLUSTER),
)

PROVIDER_CHANGED = Rule(
    "*", "provider", "replace", "engine", "it moves to another provider: Pulumi replaces a resource whose provider changes",
    _PROVIDER_CHANGE,
)
"""Applied when a resource's provider reference points to another provider than before."""


def replace_on_changes_rule(path: str) -> Rule:
    """The rule a resource's own ``replaceOnChanges`` option adds for one of its paths."""
    return Rule("*", path, "replace", "engine", "the resource's replaceOnChanges option lists it", _REPLACE_ON_CHANGES)


@dataclass(frozen=True)
class Impact:
    """What replacing (or deleting) a resource of one type costs the people using the platform."""

    replaced: str
    deleted: str | None = None
    safe_path: bool = False  # point the reader at docs/safe-changes.md


IMPACTS: dict[str, Impact] = {
    POOL: Impact(
        replaced="DOWNTIME for the GPU workloads on this pool: pulumi-azure-native replaces delete-first (the new pool "
        "has the same name), so every node and every pod on it goes away before the new nodes exist; GPU claims wait "
        "until new nodes join and the DRA driver publishes their devices again",
        deleted="every pod on this pool loses its node and its GPU: drain it first",
        safe_path=True,
    ),
    CLUSTER: Impact(
        replaced="the whole cluster is deleted and created again: every node, workload, claim and Kubernetes object in "
        "it is lost (the DRA driver and samples are reinstalled, your own workloads are not)",
        deleted="the cluster and everything running in it are deleted",
        safe_path=True,
    ),
    GROUP: Impact(
        replaced="the resource group and everything in it are deleted and created again",
        deleted="the resource group and everything in it are deleted",
        safe_path=True,
    ),
    K8S_PROVIDER: Impact(replaced="every Kubernetes object this provider manages is replaced with it"),
    RELEASE: Impact(
        replaced="the NVIDIA DRA driver is uninstalled and installed again: while it is gone no new GPU claim can be "
        "allocated (pods that already run keep their devices)",
        deleted="the NVIDIA DRA driver is uninstalled: no GPU claim can be allocated any more",
    ),
    NAMESPACE: Impact(
        replaced="deleting a namespace deletes every object in it (claims, claim templates, jobs)",
        deleted="deleting a namespace deletes every object in it (claims, claim templates, jobs)",
    ),
    CLAIM: Impact(
        replaced="pods sharing this claim lose it and must be recreated to use the new one",
        deleted="pods sharing this claim lose it",
    ),
    CLAIM_TEMPLATE: Impact(
        replaced="running pods keep the claims made from the old template; new pods get claims from the new one",
        deleted="new pods that name this template cannot start",
    ),
}


# --- property paths ---------------------------------------------------------------------------------------------------
_SEGMENT = re.compile(r'\.?([^.\[\]]+)|\[(\d+|\*)\]|\["((?:[^"\\]|\\.)*)"\]', re.ASCII)  # ASCII digits only


def parse_path(text: str) -> tuple[PathPart, ...]:
    """Parses Pulumi's property-path syntax (``a.b[0]``, ``a["x.y"]``, ``a[*].b``) into parts; raises ValueError."""
    parts: list[PathPart] = []
    pos = 0
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"'{text}' is not a property path (at character {pos + 1})")
        key, index, quoted = m.groups()
        if key is not None:
            parts.append(key)
        elif index is not None:
            parts.append("*" if index == "*" else int(index))
        else:
            parts.append(quoted.replace('\\"', '"'))
        pos = m.end()
    return tuple(parts)


_PLAIN_KEY = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*\Z")  # \Z: `$` would pass a key ending in a newline


def format_path(parts: tuple[PathPart, ...]) -> str:
    """The inverse of parse_path: ``networkProfile.podCidr``, ``nodeTaints[1]``, ``nodeLabels["nvidia.com/gpu.present"]``."""
    text = ""
    for part in parts:
        if isinstance(part, int) or part == "*":
            text += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            text += f".{part}" if text else part
        else:
            text += '["' + part.replace('"', '\\"') + '"]'
    return text


def is_prefix(pattern: tuple[PathPart, ...], path: tuple[PathPart, ...]) -> bool:
    """Whether `pattern` names `path` or one of its ancestors ("*" stands for any list index or key)."""
    if len(pattern) > len(path):
        return False
    return all(p == "*" or p == q for p, q in zip(pattern, path[: len(pattern)], strict=True))


def type_matches(pattern: str, type_: str) -> bool:
    """Whether a rule's type (a token or a glob) covers a type token."""
    return pattern == type_ or fnmatch.fnmatchcase(type_, pattern)


def input_rules(type_: str) -> list[tuple[tuple[PathPart, ...], Rule]]:
    """The rules about this type's inputs, each with its parsed path."""
    return [(parse_path(r.path), r) for r in RULES if r.path is not None and r.after is None and type_matches(r.type, type_)]


def cascade_rules(type_: str, dependency_type: str) -> list[Rule]:
    """The rules that replace a resource of `type_` when a resource it depends on, of `dependency_type`, is replaced."""
    return [
        r for r in RULES
        if r.after is not None and type_matches(r.type, type_) and type_matches(r.after, dependency_type)
    ]


# --- the table for people (docs/safe-changes.md) -------------------------------------------------------------------
_EFFECT_TEXT = {
    "replace": "replaced",
    "refused": "attempted in place and refused: `pulumi up` fails (exit 4 in `diff`)",
    "rebuild": "in place, node by node",
    "note": "in place",
}


def rules_table() -> str:
    """Every rule as a Markdown table row: resource type, path (or what it follows), effect, why, source."""
    rows = ["| resource | change | effect | why | source |", "|---|---|---|---|---|"]
    for rule in RULES:
        change = f"`{rule.path}`" if rule.path else f"a replaced `{rule.after}` it depends on"
        effect = _EFFECT_TEXT[rule.effect] + (" (by the engine)" if rule.mechanism == "engine" else "")
        why = rule.why.replace("|", "\\|")
        rows.append(f"| `{rule.type}` | {change} | {effect} | {why} | <{rule.source}> |")
    return "\n".join(rows) + "\n"
