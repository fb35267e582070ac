"""aks-dra-vgpu: Pulumi components for GPU sharing on AKS with Kubernetes DRA over NVIDIA A10 vGPU slices.

Installed, the package is imported as ``aks_dra_vgpu``; this folder is ``components`` only inside its own repository
(pyproject.toml maps the name), so every import within the package is relative. Importing the package loads only the
config layer; a component's module (and its cloud SDK) loads on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .config import ConfigError, StackConfig, load_stack_config

__version__ = "0.2.0"

_LAZY = {
    "AksCluster": ".cluster",
    "AksClusterArgs": ".cluster",
    "GpuNodePool": ".gpu_pool",
    "GpuNodePoolArgs": ".gpu_pool",
    "NvidiaDraDriver": ".dra_driver",
    "NvidiaDraDriverArgs": ".dra_driver",
    "DraSamples": ".dra_samples",
    "DraSamplesArgs": ".dra_samples",
    "DraClaimTemplates": ".claim_templates",
    "DraClaimTemplatesArgs": ".claim_templates",
    "tolerations_for_size": ".tolerations",
    "GpuPlatform": ".platform",
    "GpuPlatformArgs": ".platform",
}

__all__ = ["ConfigError", "StackConfig", "load_stack_config", *_LAZY]

if TYPE_CHECKING:
    from .claim_templates import DraClaimTemplates as DraClaimTemplates
    from .claim_templates import DraClaimTemplatesArgs as DraClaimTemplatesArgs
    from .cluster import AksCluster as AksCluster
    from .cluster import AksClusterArgs as AksClusterArgs
    from .dra_driver import NvidiaDraDriver as NvidiaDraDriver
    from .dra_driver import NvidiaDraDriverArgs as NvidiaDraDriverArgs
    from .dra_samples import DraSamples as DraSamples
    from .dra_samples import DraSamplesArgs as DraSamplesArgs
    from .gpu_pool import GpuNodePool as GpuNodePool
    from .gpu_pool import GpuNodePoolArgs as GpuNodePoolArgs
    from .platform import GpuPlatform as GpuPlatform
    from .platform import GpuPlatformArgs as GpuPlatformArgs
    from .tolerations import tolerations_for_size as tolerations_for_size


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
