"""Data, not logic: the NVadsA10_v5 sizes and the NVIDIA DRA driver charts this package knows.

Sources: MicrosoftDocs azure-compute-docs (articles/virtual-machines/sizes/gpu-accelerated/nvadsa10v5-series.md: the
Basics, Local Storage and Accelerators tabs; "Ephemeral OS Disk: Supported") for the sizes; the driver's Helm charts and
source (NVIDIA/k8s-dra-driver-gpu tags v25.8.1, v25.12.0, since moved to kubernetes-sigs/dra-driver-nvidia-gpu: v0.4.0,
v0.4.1, v0.5.0) for the charts; AKS's Kubernetes versions (`kubernetes_versions`).
Values marked "unverified" in the docs are kept here as data so a correction is a one-line change.

Also here: AKS's GRID driver per node image (`host_drivers`), the price table (`prices`, `data/`), and the SDK
releases this package supports (`sdk_versions`), the dcgm-exporter charts and what an image tag tells
(`dcgm_exporter`), and the MIG sizes AKS partitions with the slices each `gpuInstanceProfile` gives (`mig`).
Imports nothing of ours.
"""

from .charts import (
    CHART_DEVICE_CLASSES,
    CONSUMABLE_SHARES_FROM,
    CRD_SOURCE,
    DEFAULT_CHART_VERSION,
    DRIVER_CHARTS,
    GPU_DEVICE_CLASS,
    MANAGED_GATES,
    MANAGED_VALUES,
    NGC_REPOSITORY,
    OFFERED_CHART_VERSIONS,
    REQUIRED_VALUES,
    RESOURCE_API_VERSION,
    SIGS_REPOSITORY,
    DriverChart,
)
from .dcgm_exporter import (
    DCGM_EXPORTER_CHARTS,
    DEFAULT_DCGM_EXPORTER_CHART,
    allowed_tags,
    dra_refusal,
    node_label,
    unchecked_image,
)
from .mig import (
    MIG_GPUS,
    MIG_PROFILES,
    MIG_SIZES,
    MigGpu,
    MigSize,
    MigSlice,
    mig_slice,
    slice_profile_to_aks,
)
from .sizes import (
    A10_SIZES,
    GPU_DRIVER_NAME,
    GPU_PRESENT_LABEL,
    MIN_KUBERNETES_PATCH,
    MIN_KUBERNETES_VERSION,
    PAIR_SIZE,
    RESERVED_LABEL_PREFIXES,
    SCALE_FROM_ZERO_WHY,
    SIZE_CLASSES,
    A10Size,
)

__all__ = [
    "A10_SIZES",
    "CHART_DEVICE_CLASSES",
    "CONSUMABLE_SHARES_FROM",
    "CRD_SOURCE",
    "DCGM_EXPORTER_CHARTS",
    "DEFAULT_CHART_VERSION",
    "DEFAULT_DCGM_EXPORTER_CHART",
    "DRIVER_CHARTS",
    "GPU_DEVICE_CLASS",
    "GPU_DRIVER_NAME",
    "GPU_PRESENT_LABEL",
    "MANAGED_GATES",
    "MANAGED_VALUES",
    "MIG_GPUS",
    "MIG_PROFILES",
    "MIG_SIZES",
    "MIN_KUBERNETES_PATCH",
    "MIN_KUBERNETES_VERSION",
    "NGC_REPOSITORY",
    "OFFERED_CHART_VERSIONS",
    "PAIR_SIZE",
    "REQUIRED_VALUES",
    "RESERVED_LABEL_PREFIXES",
    "RESOURCE_API_VERSION",
    "SCALE_FROM_ZERO_WHY",
    "SIGS_REPOSITORY",
    "SIZE_CLASSES",
    "A10Size",
    "DriverChart",
    "MigGpu",
    "MigSize",
    "MigSlice",
    "allowed_tags",
    "dra_refusal",
    "mig_slice",
    "node_label",
    "slice_profile_to_aks",
    "unchecked_image",
]
