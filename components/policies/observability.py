"""Observability invariants: no AKS-managed GPU profile beside DRA, and (advisory) GPU metrics wherever prod has GPUs.

AKS's managed GPU profile (`gpuProfile.nvidia.managementMode: Managed`, preview API versions of AgentPool; AKS docs
"Use fully managed GPU nodes", learn.microsoft.com/azure/aks/aks-managed-gpu-nodes) installs the NVIDIA device plugin and
its own DCGM exporter on the pool: the device plugin hands out the same GPUs the DRA driver publishes (the DRA
driver chart refuses GPU mode beside it without gpuResourcesEnabledOverride), so the two would double-allocate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog import GPU_PRESENT_LABEL
from ..config import MISSING, value_at

DCGM_CHART = "dcgm-exporter"
PROD_WORDS = ("prod", "production")


def _is_agent_pool(type_token: str) -> bool:
    parts = type_token.split(":")
    return len(parts) == 3 and parts[0] == "azure-native" and parts[1].split("/")[0] == "containerservice" and (
        parts[2] == "AgentPool"
    )


def check_managed_gpu_profile(type_token: str, inputs: Mapping[str, Any]) -> list[str]:
    """A node pool does not ask AKS to manage its GPUs (device plugin + DCGM exporter), which clashes with DRA."""
    if not _is_agent_pool(type_token):
        return []
    mode = value_at(inputs, ("gpuProfile", "nvidia", "managementMode"))
    if isinstance(mode, str) and mode.lower() == "managed":
        return [
            "gpuProfile.nvidia.managementMode is 'Managed': AKS then installs the NVIDIA device plugin and its own DCGM "
            "exporter, and the device plugin hands out the GPUs the DRA driver publishes; leave it unset (or "
            "'Unmanaged') and use monitoring.gpuMetrics for GPU metrics"
        ]
    return []


def _is_prod(stack: str, resources: list[tuple[str, str, Mapping[str, Any]]]) -> bool:
    """The stack's name, or its cluster's `environment` tag, says production."""
    if any(word in stack.lower() for word in PROD_WORDS):
        return True
    for _, type_token, inputs in resources:
        if type_token.endswith(":ManagedCluster"):
            tag = value_at(inputs, ("tags", "environment"))
            if isinstance(tag, str) and tag.lower() in PROD_WORDS:
                return True
    return False


def check_gpu_metrics_in_prod(resources: Iterable[tuple[str, str, Mapping[str, Any]]], stack: str = "") -> list[str]:
    """Advisory: a production stack with GPU pools installs GPU metrics (a dcgm-exporter release)."""
    resources = list(resources)
    key, value = GPU_PRESENT_LABEL
    gpu_pools = [
        inputs.get("agentPoolName", urn) for urn, type_token, inputs in resources
        if _is_agent_pool(type_token) and value_at(inputs, ("nodeLabels", key)) == value
    ]
    if not gpu_pools or not _is_prod(stack, resources):
        return []
    for _, type_token, inputs in resources:
        chart = value_at(inputs, ("chart",))
        if type_token.endswith(":Release") and chart is not MISSING and str(chart).rsplit("/", 1)[-1] == DCGM_CHART:
            return []
    return [
        f"production GPU pools ({', '.join(map(str, gpu_pools))}) without GPU metrics: nobody sees XID errors, full "
        "framebuffers or unlicensed vGPUs; set cluster.monitoring.gpuMetrics.enabled (docs/observability.md)"
    ]
