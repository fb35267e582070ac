"""The NVIDIA driver on the GPU nodes: AKS's GRID driver for A10 per node image, as data, and how versions compare.

AKS installs the GRID driver on NVadsA10_v5 nodes itself (gpuProfile.driver: Install); which one depends on the pool's
node image. The DRA driver charts need a minimum host driver (components.catalog, DriverChart.min_host_driver): these
facts say what a stack gets when it does not state `draDriver.hostDriverVersion`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NODE_IMAGE = re.compile(r"(\d{6})\.(\d{2})\.(\d+)", re.ASCII)


def driver_version(text: str) -> tuple[int, ...]:
    """'570.211.01' -> (570, 211, 1): NVIDIA driver versions compare part by part as numbers ('570.237' > '570.211.01')."""
    return tuple(int(part) for part in text.split("."))


def node_image_version(text: str) -> tuple[int, int, int]:
    """'202606.08.1' or 'AKSUbuntu-2204gen2containerd-202606.08.1' -> (202606, 8, 1); ValueError otherwise."""
    found = _NODE_IMAGE.search(text)
    if found is None or not text.endswith(found.group(0)):
        raise ValueError(f"'{text}' is not an AKS node image version; write it like '202606.08.1'")
    year_month, day, build = found.groups()
    return int(year_month), int(day), int(build)


@dataclass(frozen=True)
class GridDriver:
    """One GRID driver line AKS installs on A10 nodes, with the node images that carry it."""

    version: str  # as NVIDIA writes it (570.237 really has two parts: Azure/aks-gpu#179)
    first_node_image: str | None  # the first AKS node image with it; None when AKS has not said (then: `since`)
    since: str  # when it reached AKS, as the source says it
    source: str


# Oldest first. Sources: Azure/aks-gpu#154 (550.144.06 -> 570.211.01, vGPU 18.6, merged 2026-05-19), Azure/AKS#5875 (A10 node
# pools must run node image 202606.08.1 or later by 2026-07-24: the host side moved to the 570 branch), Azure/aks-gpu#179
# (570.211.01 -> 570.237, vGPU 18.8, merged 2026-08-17; the node image that first carries it is not announced).
AKS_A10_GRID_DRIVERS: tuple[GridDriver, ...] = (
    GridDriver("550.144.06", None, "until node image 202605.27.0", "Azure/aks-gpu#154"),
    GridDriver("570.211.01", "202606.08.1", "node image 202606.08.1, mandatory by 2026-07-24",
               "Azure/AKS#5875, Azure/aks-gpu#154"),
    GridDriver("570.237", None, "about 2026-08 (node image not announced)", "Azure/aks-gpu#179"),
)

# What a stack that states no host driver runs: since 2026-07-24 AKS supports A10 pools only on node images
# 202606.08.1 or later (Azure/AKS#5875), so every supported A10 node has at least 570.211.01.
AKS_MIN_SUPPORTED_GRID_DRIVER = "570.211.01"
AKS_MIN_SUPPORTED_NODE_IMAGE = "202606.08.1"
AKS_GRID_DEADLINE = "2026-07-24"


def min_grid_driver_for_node_image(image: str) -> GridDriver:
    """The oldest GRID driver an A10 node on this node image can carry (a later image may carry a newer one)."""
    version = node_image_version(image)
    found = AKS_A10_GRID_DRIVERS[0]
    for driver in AKS_A10_GRID_DRIVERS:
        if driver.first_node_image is not None and version >= node_image_version(driver.first_node_image):
            found = driver
    return found


def grid_driver_named(version: str) -> GridDriver | None:
    """The AKS GRID line with exactly this version, if AKS ships one."""
    return next((d for d in AKS_A10_GRID_DRIVERS if d.version == version), None)


# What AKS installs on the MIG sizes (A100, H100, H200): the CUDA LTS driver of the `aks-gpu-cuda-lts` image, R580.
# Azure/AgentBaker pkg/agent/baker.go GetGPUDriverType gives "cuda-lts" to every size that is neither an A10 size
# (ConvergedGPUDriverSizes), an RTX PRO 6000 size nor the old NCv1; the version is that image's in
# parts/common/components.json (docs/mig.md).
AKS_MIG_CUDA_DRIVER = "580.159.04"
