"""Data, not logic: the NVadsA10_v5 sizes and the NVIDIA DRA driver charts this package knows.

Sources: MicrosoftDocs azure-compute-docs (articles/virtual-machines/sizes/gpu-accelerated/nvadsa10v5-series.md: the
Basics, Local Storage and Accelerators tabs; "Ephemeral OS Disk: Supported") for the sizes; the driver's Helm charts
(NVIDIA/k8s-dra-driver-gpu tags v25.8.1, v25.12.0; kubernetes-sigs/dra-driver-nvidia-gpu v0.4.0) for the charts.
Values marked "unverified" in the docs are kept here as data so a correction is a one-line change.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class A10Size:
    """One NVadsA10_v5 VM size: a fixed hypervisor slice of an NVIDIA A10."""

    vm_size: str
    vcpus: int
    ram_gib: int
    gpu_share: str  # fraction of one physical A10, as people say it
    gpu_memory_gib: int  # nominal frame buffer per device
    devices_per_node: int  # vGPU devices the VM presents (and the DRA driver publishes)
    vgpu_profile: str  # productName the driver reports for each device
    # Local (temp) disk, the only local disk the size table lists (no cache disk): where an ephemeral OS disk lives.
    # None = not known here, so an ephemeral OS disk's size goes unchecked.
    temp_disk_gib: int | None = None

    @property
    def short_name(self) -> str:
        """A DNS-safe short name, e.g. ``nv12ads`` for Standard_NV12ads_A10_v5."""
        return self.vm_size.split("_")[1].lower()


A10_SIZES: dict[str, A10Size] = {
    s.vm_size: s
    for s in (
        A10Size("Standard_NV6ads_A10_v5", 6, 55, "1/6", 4, 1, "NVIDIA A10-4Q", 180),
        A10Size("Standard_NV12ads_A10_v5", 12, 110, "1/3", 8, 1, "NVIDIA A10-8Q", 360),
        A10Size("Standard_NV18ads_A10_v5", 18, 220, "1/2", 12, 1, "NVIDIA A10-12Q", 720),
        A10Size("Standard_NV36ads_A10_v5", 36, 440, "1", 24, 1, "NVIDIA A10-24Q", 1440),
        A10Size("Standard_NV36adms_A10_v5", 36, 880, "1", 24, 1, "NVIDIA A10-24Q", 2880),
        A10Size("Standard_NV72ads_A10_v5", 72, 880, "2", 24, 2, "NVIDIA A10-24Q", 2880),
    )
}

# The label the driver's kubelet plugin selects nodes by (its default affinity); every GPU pool carries it.
GPU_PRESENT_LABEL = ("nvidia.com/gpu.present", "true")

# The DRA driver name that publishes GPU devices, and the attribute domain of those devices.
GPU_DRIVER_NAME = "gpu.nvidia.com"

# Label prefixes AKS reserves on node pools (nodeLabels under them are rejected by the API).
RESERVED_LABEL_PREFIXES = ("kubernetes.azure.com/", "kubernetes.io/")

# Kubernetes versions: DRA is GA (resource.k8s.io/v1) from 1.34.
MIN_KUBERNETES_VERSION = (1, 34)


@dataclass(frozen=True)
class DriverChart:
    """One release of the NVIDIA DRA driver chart, with the facts the Helm values depend on."""

    version: str
    chart: str  # chart name in its repository
    repository: str
    feature_gates: frozenset[str]  # every gate the binaries accept; an unknown gate is a startup error
    min_host_driver: tuple[int, ...] | None = None  # NVIDIA driver the kubelet plugin needs, if above AKS's GRID
    refusal: str | None = None  # why it is refused unless the stack states a host driver >= min_host_driver
    needs_name_override: bool = False  # renamed chart: keep 25.x object names on upgrade
    # Gates on by default that require IMEXDaemonsWithDNSNames (a startup error without it): with IMEX off on A10 vGPU
    # they must be off too.
    gates_requiring_imex: frozenset[str] = frozenset()


# Gate sets as the driver registers them (pkg/featuregates/featuregates.go: each gate's spec carries the release line
# that added it, 25.8 / 25.12 / 0.4). The charts only forward `featureGates` as FEATURE_GATES (`name=bool,` pairs) to
# every driver container, so the binaries are the source of truth.
# Kubernetes component-base logging gates, accepted by every version's binaries.
_LOGGING_GATES = frozenset({"ContextualLogging", "LoggingAlphaOptions", "LoggingBetaOptions"})
_GATES_25_8 = _LOGGING_GATES | {"TimeSlicingSettings", "MPSSupport", "IMEXDaemonsWithDNSNames"}
_GATES_25_12 = _GATES_25_8 | {
    "ComputeDomainCliques",
    "PassthroughSupport",
    "NVMLDeviceHealthCheck",
    "DynamicMIG",
    "CrashOnNVLinkFabricErrors",
}

NGC_REPOSITORY = "https://helm.ngc.nvidia.com/nvidia"
SIGS_REPOSITORY = "oci://registry.k8s.io/dra-driver-nvidia/charts"

DRIVER_CHARTS: dict[str, DriverChart] = {
    c.version: c
    for c in (
        DriverChart("25.8.1", "nvidia-dra-driver-gpu", NGC_REPOSITORY, frozenset(_GATES_25_8)),
        DriverChart(
            "25.12.0",
            "nvidia-dra-driver-gpu",
            NGC_REPOSITORY,
            frozenset(_GATES_25_12),
            min_host_driver=(580,),
            refusal=(
                "its kubelet plugin calls an NVML function that exists only in NVIDIA drivers >= 580 and crashes on "
                "AKS's GRID driver for A10 (550/570) (kubernetes-sigs/dra-driver-nvidia-gpu#1014); "
                "use 25.8.1 or 0.4.0, or set draDriver.hostDriverVersion to a driver >= 580"
            ),
            gates_requiring_imex=frozenset({"ComputeDomainCliques"}),
        ),
        DriverChart(
            "0.4.0",
            "dra-driver-nvidia-gpu",
            SIGS_REPOSITORY,
            frozenset(_GATES_25_12 | {"DeviceMetadata"}),
            needs_name_override=True,
            gates_requiring_imex=frozenset({"ComputeDomainCliques"}),
        ),
    )
}

DEFAULT_CHART_VERSION = "25.8.1"

# DeviceClasses the chart itself creates: never create one with these names.
CHART_DEVICE_CLASSES = frozenset(
    {
        "gpu.nvidia.com",
        "mig.nvidia.com",
        "vfio.gpu.nvidia.com",
        "compute-domain-daemon.nvidia.com",
        "compute-domain-default-channel.nvidia.com",
    }
)

# Helm values A10 vGPU on AKS cannot do without (the AKS team's guide); `extraValues` may not change them.
REQUIRED_VALUES: dict[tuple[str, ...], object] = {
    ("resources", "gpus", "enabled"): True,
    # The chart refuses GPU mode without it (a guard against running beside the nvidia.com/gpu device plugin).
    ("gpuResourcesEnabledOverride",): True,
    # AKS installs the GRID driver on the host.
    ("nvidiaDriverRoot",): "/",
}
# Values that have a dedicated setting (or that the chart refuses) and so may not appear in `extraValues`.
MANAGED_VALUES: dict[tuple[str, ...], str] = {
    ("featureGates",): "draDriver.featureGates",
    ("namespace",): "draDriver.namespace (the chart refuses a 'namespace' value)",
    # The chart puts every object in namespaceOverride and skips its own 'default' namespace check when it is set.
    ("namespaceOverride",): "draDriver.namespace",
    ("resources", "computeDomains"): "draDriver.computeDomains",
    ("nameOverride",): "the chart version (0.4.0 keeps 25.x names with nameOverride)",
    # Lists replace in Helm: a user list would drop the tolerations of the pools' taints (no plugin, no ResourceSlice).
    ("kubeletPlugin", "tolerations"): "gpuPools[].taints (the kubelet plugin tolerates every taint of the pools)",
    ("kubeletPlugin", "nodeSelector"): "gpuPools[].labels (the kubelet plugin selects the pools' nodes by label)",
    # AKS has no control-plane nodes: the chart's default placement would leave the ComputeDomain controller Pending.
    ("controller", "nodeSelector"): "the package (it clears the chart's control-plane placement for AKS)",
    ("controller", "affinity"): "the package (it clears the chart's control-plane placement for AKS)",
    ("controller", "tolerations"): "the package (the controller tolerates CriticalAddonsOnly, AKS's system-pool taint)",
}
