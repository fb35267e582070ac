"""The NVIDIA DRA driver charts this package knows (tags v25.8.1, v25.12.0 of NVIDIA/k8s-dra-driver-gpu, since moved
to kubernetes-sigs/dra-driver-nvidia-gpu: v0.4.0, v0.4.1, v0.5.0): gates, guards, CRDs, and the Helm values A10 vGPU
needs."""

from __future__ import annotations

from dataclasses import dataclass, replace


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
    # The chart's `consumableShares` value (0.5.0+), passed to the kubelet plugin as CONSUMABLE_SHARES; it needs the
    # ConsumableShares gate (cmd/gpu-kubelet-plugin/main.go refuses to start otherwise).
    has_consumable_shares: bool = False
    # The driver image as `image.tag` (the chart renders `<repository>:<tag>`): the release tag pinned to the digest
    # upstream promoted, since the project publishes no signatures. None: the chart's own tag (v<appVersion>).
    image_tag: str | None = None
    image_source: str = ""  # where the digest comes from
    # Gates the package refuses to turn on for AKS, gate -> why (the gate stays known: false is accepted).
    refused_gates: tuple[tuple[str, str], ...] = ()
    # Whether the kubelet plugin publishes a MIG-enabled GPU whole beside its MIG slices (kubernetes-sigs/
    # dra-driver-nvidia-gpu#719). Fixed by #776 (main, 2025-12-08: in v25.12.0, v0.4.0, v0.4.1 and 0.5.0) and its
    # backport #781 to release-25.8 (2025-12-09, in v25.8.1, not in v25.8.0): every chart here carries the fix.
    announces_mig_parent: bool = False
    # The extendedResourceName the chart gives its own `gpu.nvidia.com` DeviceClass (templates/deviceclass-gpu.yaml:
    # `extendedResourceName: nvidia.com/gpu` whenever it renders resource.k8s.io/v1, which the package pins where the
    # chart has `resourceApiVersion`); the chart has no value to drop it (values.yaml of 0.4.1 and 0.5.0). None: the
    # template has no such field (25.8.1). The API server drops the field before Kubernetes 1.36 (gate off).
    gpu_class_extended_resource: str | None = None

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
# 0.5.0 (pkg/featuregates/featuregates.go, Version 0.5 / 0.4 specs added after v0.4.1; upstream's 0.4.1 -> 0.5.0 notes
# in site/content/docs/upgrade.md name the first three). FabricManagerPartitioning (NVSwitch partitions, Version 0.5) is
# registered on main since 2026-06-04, before the 0.5.0 branch point: known, meaningless on A10.
_GATES_0_5 = _GATES_0_4 | {"ConsumableShares", "HostManagedIMEXDaemon", "DRAListTypeAttributes", "FabricManagerPartitioning"}

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

_CHART_0_4_0 = DriverChart(
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
    gpu_class_extended_resource="nvidia.com/gpu",
)

# Kubernetes' own DRAListTypeAttributes gate is alpha and off in 1.36 (pkg/features/versioned_kube_features.go), and
# AKS turns on no alpha API server gates; the driver's gate needs it on in the control plane (featuregates.go).
_LIST_ATTRIBUTES_WHY = (
    "needs Kubernetes' own DRAListTypeAttributes gate (alpha and off in 1.36) on the API server, which AKS does not "
    "let you turn on: the list-valued attributes would not be accepted"
)
_CONSUMABLE_SHARES_WHY = "is set by the package where a pool shares its slices: use gpuPools[].sharing: memory"

_CHART_0_5_0 = replace(
    _CHART_0_4_0,
    version="0.5.0",
    feature_gates=frozenset(_GATES_0_5),
    withdrawn=None,
    # device_state.go: a prepared claim's config state gains timeSliceApplied (0.5.0 stops injecting TimeSlicing and
    # resets it on unprepare); a 0.4 plugin re-marshals the checkpoint without it and rejects it as corrupted.
    checkpoint_format=4,
    host_driver_reason=(
        "the driver's documented prerequisite for GPU allocation "
        "(kubernetes-sigs/dra-driver-nvidia-gpu site/content/docs/prerequisites.md before v0.5.0)"
    ),
    has_consumable_shares=True,
    # kubernetes/k8s.io PR #9845 (promotion of v0.5.0, 2026-08-19): `gcrane digest .../dra-driver-nvidia-gpu:v0.5.0`.
    image_tag="v0.5.0@sha256:e1f104e64383ee693e982a5e6b7cf0b750023aaa5cc9b7dcc37c8e0549232933",
    image_source="kubernetes/k8s.io#9845 (the image promoted to registry.k8s.io for v0.5.0, digest by gcrane)",
    refused_gates=(("DRAListTypeAttributes", _LIST_ATTRIBUTES_WHY),),
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
            gpu_class_extended_resource="nvidia.com/gpu",
        ),
        _CHART_0_4_0,
        # 2026-06-30; fixes #1184. Values, gates and CRDs as in 0.4.0 (tag v0.4.1, 764900e).
        replace(_CHART_0_4_0, version="0.4.1", withdrawn=None),
        # 2026-08-19 (issue #1365; chart oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu 0.5.0,
        # digest sha256:47e43e3f... in kubernetes/k8s.io#9845). Values add `consumableShares` and
        # resources.computeDomains.imex.*; none renamed.
        _CHART_0_5_0,
    )
}

# Gates no stack may set by hand, in any chart version that knows them (the package sets them from other settings).
MANAGED_GATES: dict[str, str] = {"ConsumableShares": _CONSUMABLE_SHARES_WHY}

# The maintained chart line AKS itself carries: node images ship dra-driver 0.4.x for the coming managed driver (Azure/
# AgentBaker #8797, Azure/AKS #5962). 0.5.0 changes nothing a whole A10 vGPU slice needs (real vGPU support is planned
# for 0.6, upstream #1439) and its new features are alpha gates: it is offered, and needed for shared slices. See
# docs/upgrading.md ("Which driver version").
DEFAULT_CHART_VERSION = "0.4.1"
# The first chart whose kubelet plugin can publish a device several claims take GPU memory from (ConsumableShares).
CONSUMABLE_SHARES_FROM = "0.5.0"
# The versions a stack may choose (a withdrawn one is known only to say why it is refused).
OFFERED_CHART_VERSIONS = tuple(v for v, c in DRIVER_CHARTS.items() if c.withdrawn is None)

# The DRA API the charts' objects use: GA (resource.k8s.io/v1) from Kubernetes 1.34, this package's minimum. Pinned
# where the chart has `resourceApiVersion`: its auto-detection trusts .Capabilities.APIVersions, which some
# environments misreport (the chart's values.yaml comment).
RESOURCE_API_VERSION = "resource.k8s.io/v1"

GPU_DEVICE_CLASS = "gpu.nvidia.com"
"""The chart's DeviceClass for whole GPUs (an A10 vGPU slice is one): the one that maps nvidia.com/gpu."""

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
    # 0.5.0+: the package sets it (with its gate) where a pool shares its slices; a value without the gate stops the plugin.
    ("consumableShares",): "gpuPools[].sharing (memory: the package sets consumableShares and its gate)",
    # Lists replace in Helm: a user list would drop the tolerations of the pools' taints (no plugin, no ResourceSlice).
    ("kubeletPlugin", "tolerations"): "gpuPools[].taints (the kubelet plugin tolerates every taint of the pools)",
    ("kubeletPlugin", "nodeSelector"): "gpuPools[].labels (the kubelet plugin selects the pools' nodes by label)",
    # AKS has no control-plane nodes: the chart's default placement would leave the ComputeDomain controller Pending.
    ("controller", "nodeSelector"): "the package (it clears the chart's control-plane placement for AKS)",
    ("controller", "affinity"): "the package (it clears the chart's control-plane placement for AKS)",
    ("controller", "tolerations"): "the package (the controller tolerates CriticalAddonsOnly, AKS's system-pool taint)",
}
