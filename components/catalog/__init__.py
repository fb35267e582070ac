"""Data, not logic: the NVadsA10_v5 sizes and the NVIDIA DRA driver charts this package knows.

Sources: MicrosoftDocs azure-compute-docs (articles/virtual-machines/sizes/gpu-accelerated/nvadsa10v5-series.md: the
Basics, Local Storage and Accelerators tabs; "Ephemeral OS Disk: Supported") for the sizes; the driver's Helm charts and
source (NVIDIA/k8s-dra-driver-gpu tags v25.8.1, v25.12.0, since moved to kubernetes-sigs/dra-driver-nvidia-gpu: v0.4.0,
v0.4.1) for the charts.
Values marked "unverified" in the docs are kept here as data so a correction is a one-line change.

Also here: AKS's GRID driver per node image (`host_drivers`), the price table (`prices`, `data/`), and the SDK
releases this package supports (`sdk_versions`). Imports nothing of ours.
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
    """One release of the NVIDIA DRA driver chart, with the facts the Helm values and upgrades depend on."""

    version: str
    chart: str  # chart name in its repository
    repository: str
    feature_gates: frozenset[str]  # every gate the binaries accept; an unknown gate is a startup error
    chart_path: str  # the chart's folder in the driver's source repository, at tag v<version>
    crd_files: tuple[str, ...]  # the chart's crds/ folder: Helm installs these once and never upgrades them
    checkpoint_format: int  # the kubelet plugin's checkpoint revision; a plugin cannot read a newer one (no downgrade)
    min_host_driver: str | None = None  # NVIDIA driver the driver needs on the node; None: none documented
    host_driver_reason: str = ""  # why, with the source
    withdrawn: str | None = None  # why the package refuses this version whatever the stack says (names the fix)
    needs_name_override: bool = False  # renamed chart: keep 25.x object names on upgrade
    # Gates on by default that require IMEXDaemonsWithDNSNames (a startup error without it): with IMEX off on A10 vGPU
    # they must be off too.
    gates_requiring_imex: frozenset[str] = frozenset()
    has_resource_api_version: bool = False  # the chart's `resourceApiVersion` value (25.12+): pin the DRA API
    # `kubeletPlugin.metrics` / `controller.metrics` (0.4.x: HTTP_ENDPOINT :8080, METRICS_PATH /metrics in
    # templates/kubeletplugin.yaml and controller.yaml); 25.x serves none (only gRPC health on 51515/51516).
    has_metrics: bool = False

    @property
    def source_tag(self) -> str:
        """The git tag the chart was published from."""
        return f"v{self.version}"

    @property
    def crd_urls(self) -> tuple[str, ...]:
        """The chart's CRDs at the tag it was published from, as upstream's upgrade guide applies them."""
        return tuple(f"{CRD_SOURCE}/refs/tags/{self.source_tag}/{self.chart_path}/crds/{f}" for f in self.crd_files)


# Gate sets as the driver registers them (pkg/featuregates/featuregates.go: each gate's spec carries the release line
# that added it, 0.2 = 25.8, 0.3 = 25.12, 0.4; at tag v0.4.1 the gates are those of v0.4.0). The charts only forward
# `featureGates` as FEATURE_GATES (`name=bool,` pairs) to every driver container, so the binaries are the source of truth.
# Kubernetes component-base logging gates (logsapi.AddFeatureGates), accepted by every version's binaries.
_LOGGING_GATES = frozenset({"ContextualLogging", "LoggingAlphaOptions", "LoggingBetaOptions"})
_GATES_25_8 = _LOGGING_GATES | {"TimeSlicingSettings", "MPSSupport", "IMEXDaemonsWithDNSNames"}
_GATES_25_12 = _GATES_25_8 | {
    "ComputeDomainCliques",
    "PassthroughSupport",
    "NVMLDeviceHealthCheck",
    "DynamicMIG",
    "CrashOnNVLinkFabricErrors",
}
_GATES_0_4 = _GATES_25_12 | {"DeviceMetadata"}

NGC_REPOSITORY = "https://helm.ngc.nvidia.com/nvidia"
SIGS_REPOSITORY = "oci://registry.k8s.io/dra-driver-nvidia/charts"
# Every tag, 25.x included, lives in kubernetes-sigs/dra-driver-nvidia-gpu (NVIDIA/k8s-dra-driver-gpu moved there).
CRD_SOURCE = "https://raw.githubusercontent.com/kubernetes-sigs/dra-driver-nvidia-gpu"
_CHART_PATH_25 = "deployments/helm/nvidia-dra-driver-gpu"
_CHART_PATH_0_4 = "deployments/helm/dra-driver-nvidia-gpu"
_CRDS_25_8 = ("resource.nvidia.com_computedomains.yaml",)
_CRDS_25_12 = ("resource.nvidia.com_computedomaincliques.yaml", "resource.nvidia.com_computedomains.yaml")

# The upstream prerequisite from the first release that documents one (docs/prerequisites.md, v0.4.0 and v0.4.1).
_GPU_ALLOCATION_DRIVER = (
    "the driver's documented prerequisite for GPU allocation "
    "(kubernetes-sigs/dra-driver-nvidia-gpu docs/prerequisites.md at v0.4.1)"
)

DRIVER_CHARTS: dict[str, DriverChart] = {
    c.version: c
    for c in (
        # No documented minimum at v25.8.1 (no prerequisites page); the AKS team's guide ran it on GRID 550.144.06.
        DriverChart("25.8.1", "nvidia-dra-driver-gpu", NGC_REPOSITORY, frozenset(_GATES_25_8), _CHART_PATH_25,
                    _CRDS_25_8, checkpoint_format=1),
        DriverChart(
            "25.12.0",
            "nvidia-dra-driver-gpu",
            NGC_REPOSITORY,
            frozenset(_GATES_25_12),
            _CHART_PATH_25,
            _CRDS_25_12,
            # cmd/gpu-kubelet-plugin/checkpointv.go: PreparedClaimV2 gains name and namespace.
            checkpoint_format=2,
            min_host_driver="580",
            host_driver_reason=(
                "its kubelet plugin calls an NVML function that exists only in NVIDIA drivers >= 580 and crashes on "
                "AKS's GRID driver for A10 (550/570) (kubernetes-sigs/dra-driver-nvidia-gpu#1014, fixed in 0.4.0)"
            ),
            gates_requiring_imex=frozenset({"ComputeDomainCliques"}),
            has_resource_api_version=True,
        ),
        DriverChart(
            "0.4.0",
            "dra-driver-nvidia-gpu",
            SIGS_REPOSITORY,
            frozenset(_GATES_0_4),
            _CHART_PATH_0_4,
            _CRDS_25_12,
            # cmd/gpu-kubelet-plugin/checkpointv.go: CheckpointV2 gains nodeBootID (docs/upgrade.md: no downgrade).
            checkpoint_format=3,
            min_host_driver="565",
            host_driver_reason=_GPU_ALLOCATION_DRIVER,
            withdrawn=(
                "with nameOverride (which keeps the 25.x object names) its controller and kubelet-plugin pod templates "
                "carry the label nvidia-dra-driver-gpu-component twice, a duplicated YAML key that Argo CD, Flux and "
                "other strict YAML readers reject (kubernetes-sigs/dra-driver-nvidia-gpu#1184); use 0.4.1, which fixes it"
            ),
            needs_name_override=True,
            gates_requiring_imex=frozenset({"ComputeDomainCliques"}),
            has_resource_api_version=True,
            has_metrics=True,
        ),
        # 2026-06-30; fixes #1184. Values, gates and CRDs as in 0.4.0 (tag v0.4.1, 764900e).
        DriverChart(
            "0.4.1",
            "dra-driver-nvidia-gpu",
            SIGS_REPOSITORY,
            frozenset(_GATES_0_4),
            _CHART_PATH_0_4,
            _CRDS_25_12,
            checkpoint_format=3,
            min_host_driver="565",
            host_driver_reason=_GPU_ALLOCATION_DRIVER,
            needs_name_override=True,
            gates_requiring_imex=frozenset({"ComputeDomainCliques"}),
            has_resource_api_version=True,
            has_metrics=True,
        ),
    )
}

# The maintained chart (kubernetes-sigs), the one AKS's node images carry themselves; see docs/upgrading.md.
DEFAULT_CHART_VERSION = "0.4.1"
# The versions a stack may choose (a withdrawn one is known only to say why it is refused).
OFFERED_CHART_VERSIONS = tuple(v for v, c in DRIVER_CHARTS.items() if c.withdrawn is None)

# The DRA API the charts' objects use: GA (resource.k8s.io/v1) from Kubernetes 1.34, this package's minimum. Pinned
# where the chart has `resourceApiVersion`: its auto-detection trusts .Capabilities.APIVersions, which some
# environments misreport (the chart's values.yaml comment).
RESOURCE_API_VERSION = "resource.k8s.io/v1"

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
    ("nameOverride",): "the chart version (0.4.x keeps the 25.x object names with nameOverride)",
    ("resourceApiVersion",): "the package (it pins resource.k8s.io/v1 where the chart has the value)",
    # Lists replace in Helm: a user list would drop the tolerations of the pools' taints (no plugin, no ResourceSlice).
    ("kubeletPlugin", "tolerations"): "gpuPools[].taints (the kubelet plugin tolerates every taint of the pools)",
    ("kubeletPlugin", "nodeSelector"): "gpuPools[].labels (the kubelet plugin selects the pools' nodes by label)",
    # AKS has no control-plane nodes: the chart's default placement would leave the ComputeDomain controller Pending.
    ("controller", "nodeSelector"): "the package (it clears the chart's control-plane placement for AKS)",
    ("controller", "affinity"): "the package (it clears the chart's control-plane placement for AKS)",
    ("controller", "tolerations"): "the package (the controller tolerates CriticalAddonsOnly, AKS's system-pool taint)",
}
