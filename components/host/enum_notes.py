"""What the schema says about names and closed sets that the config models cannot say: the published type and enum
names, and a line per enum member for other languages' docs (IntelliSense, generated SDK docs).

Which values a set holds is never written here: that comes from the models (and so from the catalog for VM sizes and
chart versions). A note for a value the models no longer accept fails tests/test_provider_schema.py; a value without a
note is described by its facts (VM sizes, charts) or by the value itself.
"""

from __future__ import annotations

from ..catalog import A10_SIZES, DEFAULT_CHART_VERSION, DRIVER_CHARTS, MIG_SIZES
from ..config.extended_resources import a10_size_of

TYPE_NAMES = {
    "AuthConfig": "ClusterAuth",
    "ClusterConfig": "ClusterSettings",
    "DraDriverConfig": "DraDriverSettings",
    "ExtendedResourcesConfig": "ExtendedResourcesSettings",
    "GpuMetricsConfig": "GpuMetricsSettings",
    "SamplesConfig": "SamplesSettings",
}
"""Object type names published before they were generated, and those that would otherwise share a component's token
(ExtendedResources, GpuMetrics: Go's SDK generator would rename such a type, pulumi/pulumi pkg/codegen/go/gen.go,
duplicateTokens); any other model: its class name without ``Config``."""

ENUM_NAMES = {
    ("AuthConfig", "mode"): "AuthMode",
    ("UpgradesConfig", "channel"): "UpgradeChannel",
    ("MaintenanceWindowConfig", "dayOfWeek"): "WeekDay",
    ("GpuMetricsConfig", "chartVersion"): "DcgmExporterChartVersion",
    ("MigSliceRef", "vmSize"): "MigVmSize",
}
"""Enum names where the property's own name (PascalCased) would say too little, by (model, property)."""

ENUM_DESCRIPTIONS = {
    "VmSize": "An NVadsA10_v5 VM size (each VM a fixed hypervisor slice of one NVIDIA A10, or two A10s), or a MIG size "
    "(A100, H100, H200) that AKS partitions with the pool's gpuInstanceProfile.",
    "MigVmSize": "A MIG-capable VM size (A100, H100, H200): its GPU model decides which slices a claim template can ask for.",
    "ChartVersion": "A version of the NVIDIA DRA driver chart this package offers (withdrawn versions are not).",
}

MEMBER_NOTES: dict[tuple[str, str], str] = {
    ("SkuTier", "Free"): "No uptime SLA.",
    ("SkuTier", "Standard"): "Uptime SLA, for production.",
    ("SkuTier", "Premium"): "Standard plus long-term support.",
    ("AuthMode", "localAccounts"): "Kubernetes RBAC with cluster-local credentials (simple, for dev).",
    ("AuthMode", "entraId"): "Entra ID with Azure RBAC; local accounts disabled.",
    ("LoginMode", "azurecli"): "The Azure CLI's login.",
    ("LoginMode", "workloadidentity"): "A federated token, e.g. GitHub Actions OIDC.",
    ("LoginMode", "spn"): "A service principal's secret from the environment.",
    ("OsType", "Linux"): "The only choice: the DRA driver runs only on Linux.",
    ("OsSku", "Ubuntu"): "Ubuntu.",
    ("OsSku", "AzureLinux"): "Azure Linux.",
    ("EvictionPolicy", "Delete"): "The VM is deleted; the autoscaler can replace it.",
    ("EvictionPolicy", "Deallocate"): "The VM is kept stopped: still counts against quota, its disks are billed.",
    ("ScaleDownMode", "Delete"): "The VM is deleted (AKS's default).",
    ("ScaleDownMode", "Deallocate"): "The VM is stopped, its disk kept: a GPU node comes back faster; needs Managed OS disks.",
    ("OsDiskType", "Managed"): "A managed disk.",
    ("OsDiskType", "Ephemeral"): "The VM's local temp disk: faster reimage and boot, free; must fit the size's temp disk.",
    ("UpgradeChannel", "none"): "No automatic Kubernetes upgrades.",
    ("UpgradeChannel", "patch"): "The latest patch of the minor version.",
    ("UpgradeChannel", "stable"): "New minor versions too, one behind the newest.",
    ("UpgradeChannel", "rapid"): "The newest minor versions.",
    ("UpgradeChannel", "node-image"): "Node images only.",
    ("NodeOsChannel", "None"): "No node OS upgrades.",
    ("NodeOsChannel", "Unmanaged"): "The OS's own unattended upgrades.",
    ("NodeOsChannel", "NodeImage"): "Weekly node images, reimaging every node (AKS's default).",
    ("NodeOsChannel", "SecurityPatch"): "Security patches applied to the running image.",
    ("Fit", "bestFit"): "The template's own size first, a larger slice only when none is free (DRA prioritized list).",
    ("Fit", "exact"): "That size only.",
    ("NvidiaGpu", "none"): "Not served: the package's class maps nvidia.com/gpu and selects nothing; such pods stay Pending.",
    ("NvidiaGpu", "any"): "The driver chart's gpu.nvidia.com class serves it: any GPU device, whatever its size.",
}
"""A line per member of the closed sets the catalog does not describe, by (enum, value)."""


def enum_description(enum: str, property_description: str) -> str:
    """An enum's description: its own where one is written, else that of the first property that uses it."""
    return ENUM_DESCRIPTIONS.get(enum, property_description)


def member_description(enum: str, value: str) -> str:
    """One member's line: from the catalog for VM sizes and chart versions, else its note, else the value itself."""
    if enum == "VmSize" and value in A10_SIZES:
        size = A10_SIZES[value]
        share = "a whole A10" if size.gpu_share == "1" else f"{size.gpu_share} A10s" if size.devices_per_node > 1 else (
            f"{size.gpu_share} of an A10")
        return (f"{share[0].upper()}{share[1:]}: {size.vcpus} vCPUs, {size.ram_gib} GiB, {size.devices_per_node} x "
                f"{size.gpu_memory_gib} GB vGPU ({size.vgpu_profile}).")
    if enum in ("VmSize", "MigVmSize") and value in MIG_SIZES:
        mig = MIG_SIZES[value]
        return (f"MIG: {mig.vcpus} vCPUs, {mig.ram_gib} GiB, {mig.gpus} x {mig.gpu.model}, partitioned by "
                "gpuInstanceProfile.")
    if enum == "ChartVersion" and value in DRIVER_CHARTS:
        chart = DRIVER_CHARTS[value]
        needs = f"; needs an NVIDIA driver >= {chart.min_host_driver} on the nodes" if chart.min_host_driver else ""
        default = " (the default)" if value == DEFAULT_CHART_VERSION else ""
        return f"The {chart.chart} chart from {chart.repository}{default}{needs}."
    if enum == "NvidiaGpu" and value not in ("none", "any"):
        size = a10_size_of(value)
        return (f"The {size} GiB A10 slice, where a pool offers it." if size else
                f"MIG profile {value}, on every GPU a MIG pool lays it out on.")
    return MEMBER_NOTES.get((enum, value), f"{value}.")
