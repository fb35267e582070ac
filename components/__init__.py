"""aks-dra-vgpu: Pulumi components for GPU sharing on AKS with Kubernetes DRA over NVIDIA A10 vGPU slices.

Installed, the package is imported as ``aks_dra_vgpu``; this folder is ``components`` only inside its own repository
(pyproject.toml maps the name), so every import within the package is relative. Importing the package loads nearly
nothing: the config layer, a component's module and its cloud SDK load on first use (`python -m components` starts its
supervising process from here, which must stay small).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# `verify` is the function: bound here, after its subpackage is imported, it stays the function (the import system binds
# a subpackage to its parent's attribute of the same name once, when it first loads it). The subpackage's own __init__
# is small: the checks and the Kubernetes client load on the first call.
from .verify import verify

__version__ = "0.2.0"

_LAZY = {
    "ConfigError": ".config",
    "GpuPoolConfig": ".config",
    "StackConfig": ".config",
    "load_stack_config": ".config",
    "FleetConfig": ".config.fleet",
    "load_fleet_config": ".config.fleet_loading",
    "AksCluster": ".azure.cluster",
    "AksClusterArgs": ".azure.cluster",
    "GpuNodePool": ".azure.gpu_pool",
    "GpuNodePoolArgs": ".azure.gpu_pool",
    "NvidiaDraDriver": ".kubernetes.dra_driver",
    "NvidiaDraDriverArgs": ".kubernetes.dra_driver",
    "DraSamples": ".kubernetes.dra_samples",
    "DraSamplesArgs": ".kubernetes.dra_samples",
    "DraClaimTemplates": ".kubernetes.claim_templates",
    "DraClaimTemplatesArgs": ".kubernetes.claim_templates",
    "ExtendedResources": ".kubernetes.extended_resources",
    "ExtendedResourcesArgs": ".kubernetes.extended_resources",
    "GpuMetrics": ".observability.exporter",
    "GpuMetricsArgs": ".observability.exporter",
    "tolerations_for_size": ".kubernetes.tolerations",
    "GpuPlatform": ".platform",
    "GpuPlatformArgs": ".platform",
    "GpuFleet": ".azure.fleet",
    "GpuFleetArgs": ".azure.fleet",
}

__all__ = ["verify", *_LAZY]

if TYPE_CHECKING:
    from .azure.cluster import AksCluster as AksCluster
    from .azure.cluster import AksClusterArgs as AksClusterArgs
    from .azure.fleet import GpuFleet as GpuFleet
    from .azure.fleet import GpuFleetArgs as GpuFleetArgs
    from .azure.gpu_pool import GpuNodePool as GpuNodePool
    from .azure.gpu_pool import GpuNodePoolArgs as GpuNodePoolArgs
    from .config import ConfigError as ConfigError
    from .config import GpuPoolConfig as GpuPoolConfig
    from .config import StackConfig as StackConfig
    from .config import load_stack_config as load_stack_config
    from .config.fleet import FleetConfig as FleetConfig
    from .config.fleet_loading import load_fleet_config as load_fleet_config
    from .kubernetes.claim_templates import DraClaimTemplates as DraClaimTemplates
    from .kubernetes.claim_templates import DraClaimTemplatesArgs as DraClaimTemplatesArgs
    from .kubernetes.dra_driver import NvidiaDraDriver as NvidiaDraDriver
    from .kubernetes.dra_driver import NvidiaDraDriverArgs as NvidiaDraDriverArgs
    from .kubernetes.dra_samples import DraSamples as DraSamples
    from .kubernetes.dra_samples import DraSamplesArgs as DraSamplesArgs
    from .kubernetes.extended_resources import ExtendedResources as ExtendedResources
    from .kubernetes.extended_resources import ExtendedResourcesArgs as ExtendedResourcesArgs
    from .kubernetes.tolerations import tolerations_for_size as tolerations_for_size
    from .observability.exporter import GpuMetrics as GpuMetrics
    from .observability.exporter import GpuMetricsArgs as GpuMetricsArgs
    from .platform import GpuPlatform as GpuPlatform
    from .platform import GpuPlatformArgs as GpuPlatformArgs


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
