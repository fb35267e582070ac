"""The NVadsA10_v5 sizes (MicrosoftDocs azure-compute-docs, articles/virtual-machines/sizes/gpu-accelerated/
nvadsa10v5-series.md: Basics, Local Storage and Accelerators tabs) and the labels and versions DRA on AKS rests on."""

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

SIZE_CLASSES: tuple[int, ...] = tuple(sorted({s.gpu_memory_gib for s in A10_SIZES.values()}))
"""The nominal slice sizes, GiB per device (4, 8, 12, 24): what claims and pools are sized by."""
PAIR_SIZE = next(s.gpu_memory_gib for s in A10_SIZES.values() if s.devices_per_node == 2)
"""GiB per device of the size that presents two devices on one node (two whole A10s)."""

# The label the driver's kubelet plugin selects nodes by (its default affinity); every GPU pool carries it.
GPU_PRESENT_LABEL = ("nvidia.com/gpu.present", "true")

# The DRA driver name that publishes GPU devices, and the attribute domain of those devices.
GPU_DRIVER_NAME = "gpu.nvidia.com"

# Label prefixes AKS reserves on node pools (nodeLabels under them are rejected by the API).
RESERVED_LABEL_PREFIXES = ("kubernetes.azure.com/", "kubernetes.io/")

# Kubernetes versions: DRA is GA (resource.k8s.io/v1) from 1.34.
MIN_KUBERNETES_VERSION = (1, 34)
# The NVIDIA DRA driver's own prerequisite (kubernetes-sigs/dra-driver-nvidia-gpu docs/prerequisites.md at v0.4.0 and
# v0.4.1: "v1.34.2 or later"): a pinned 1.34 patch must be 1.34.2 or newer. A bare "1.34" lets AKS pick its patch.
MIN_KUBERNETES_PATCH = (1, 34, 2)

# The Azure node template models GPUs only as nvidia.com/gpu capacity (azure_template.go), and TemplateNodeInfo hands the
# simulator that node with no ResourceSlices (azure_scale_set.go: framework.NewNodeInfo(node, nil, ...)).
SCALE_FROM_ZERO_WHY = (  # why a DRA pool cannot scale up from zero nodes
    "the cluster autoscaler's Azure node template has no ResourceSlices (kubernetes/autoscaler "
    "cluster-autoscaler/cloudprovider/azure/azure_template.go), so it cannot tell that a new node would satisfy a "
    "ResourceClaim: pods waiting on one stay Pending"
)
