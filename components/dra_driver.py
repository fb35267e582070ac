"""NvidiaDraDriver: the NVIDIA DRA driver as a Helm release, with values right for A10 vGPU on AKS and the chart version.

The values are decided by pure functions (config + served GPU pools -> plain data), so they can be tested, rendered
with the real chart, and shown by the offline CLI without Pulumi; the component only wraps them in a
``helm.v3.Release`` on an explicit Kubernetes provider.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pulumi
import yaml
from pydantic import Field

from .catalog import GPU_PRESENT_LABEL, DriverChart
from .config import DraDriverConfig, GpuPoolConfig
from .providers import require_kubernetes_provider

# The name 25.x installs give their objects; 0.4.0 (renamed chart) keeps it with nameOverride, so an upgrade from 25.x
# updates the same DaemonSet (its selector is immutable) instead of starting a second driver beside the first.
LEGACY_NAME = "nvidia-dra-driver-gpu"

# The toleration the AKS team's guide gives the controller: AKS's system pool may carry CriticalAddonsOnly.
CONTROLLER_TOLERATIONS = [{"key": "CriticalAddonsOnly", "operator": "Exists"}]


class NvidiaDraDriverArgs(DraDriverConfig):
    """The driver's settings plus the GPU pools it serves (their labels and taints shape the kubelet plugin)."""

    pools: list[GpuPoolConfig] = Field(min_length=1, description="The GPU pools whose nodes run the kubelet plugin.")


def feature_gates(config: DraDriverConfig) -> dict[str, bool]:
    """The gates to pass: IMEX DNS names off (A10 GRID drivers are too old), what that implies, then the user's."""
    gates = {"IMEXDaemonsWithDNSNames": False}
    # From 25.12, ComputeDomainCliques is on by default and the binaries refuse to start with it on and IMEX off.
    gates.update({gate: False for gate in sorted(config.chart.gates_requiring_imex)})
    gates.update(config.feature_gates)  # validated in DraDriverConfig: known to the chart, never re-enabling IMEX
    return dict(sorted(gates.items()))


def plugin_tolerations(pools: list[GpuPoolConfig]) -> list[dict[str, str]]:
    """One toleration per distinct taint of the served pools: a tainted pool still gets its plugin and ResourceSlice."""
    seen: dict[str, dict[str, str]] = {}
    for pool in pools:
        for taint in pool.parsed_taints:
            seen.setdefault(str(taint), taint.toleration())
    return [seen[k] for k in sorted(seen)]


def plugin_node_selector(pools: list[GpuPoolConfig]) -> dict[str, str]:
    """The labels every served pool's nodes share (always nvidia.com/gpu.present=true); ANDed with the chart's affinity."""
    common = dict(pools[0].node_labels)
    for pool in pools[1:]:
        common = {k: v for k, v in common.items() if pool.node_labels.get(k) == v}
    common.setdefault(*GPU_PRESENT_LABEL)
    return dict(sorted(common.items()))


def deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's merge: maps merge key by key, anything else (lists, scalars, null) replaces."""
    merged = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def driver_values(config: DraDriverConfig, pools: list[GpuPoolConfig]) -> dict[str, Any]:
    """The Helm values for this chart version and these pools (plain data; `extraValues` merged last).

    The value keys are the same in every supported chart version (25.8.1, 25.12.0 and the renamed 0.4.0); what
    differs per version is the gate set, the gates IMEX-off implies, and 0.4.0's nameOverride.
    """
    values: dict[str, Any] = {
        # AKS installs the GRID driver on the host itself.
        "nvidiaDriverRoot": "/",
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": config.compute_domains}},
        # The chart refuses GPU mode without it (its guard against running beside the nvidia.com/gpu device plugin;
        # AKS's own GPU setup installs no device plugin when its managed-GPU preview is off).
        "gpuResourcesEnabledOverride": True,
        "featureGates": feature_gates(config),
        "kubeletPlugin": {
            "nodeSelector": plugin_node_selector(pools),
            "tolerations": plugin_tolerations(pools),
        },
    }
    if config.compute_domains:
        # The chart's controller wants a control-plane node, which AKS does not have: clear its placement (null
        # deletes a chart default) and tolerate the system pool's CriticalAddonsOnly taint.
        values["controller"] = {"nodeSelector": None, "affinity": None, "tolerations": copy.deepcopy(CONTROLLER_TOLERATIONS)}
    if config.chart.needs_name_override:
        values["nameOverride"] = LEGACY_NAME
    return deep_merge(values, config.extra_values)


def null_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Only the keys whose value is null (nested maps kept): the chart defaults these values delete."""
    found: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            found[key] = None
        elif isinstance(value, Mapping):
            below = null_values(value)
            if below:
                found[key] = below
    return found


def release_chart(chart: DriverChart) -> tuple[str, str | None]:
    """(chart, repository) as Helm takes them: an OCI chart is one full reference and has no repository."""
    if chart.repository.startswith("oci://"):
        return f"{chart.repository}/{chart.chart}", None
    return chart.chart, chart.repository


class NvidiaDraDriver(pulumi.ComponentResource):
    """The NVIDIA DRA driver (helm.v3.Release) that publishes each node's A10 vGPU as a DRA device.

    Needs an explicit Kubernetes provider (``providers={"kubernetes": provider}``, or from its parent) and refuses to
    start without one. It waits for nothing but that provider's cluster: the kubelet plugin DaemonSet waits for GPU
    nodes by itself, so GPU pools and the driver are created in parallel.
    """

    release_name: pulumi.Output[str]
    """The Helm release's name."""
    namespace: pulumi.Output[str]
    """The namespace the driver runs in."""
    chart_version: str
    """The pinned chart version."""
    values: dict[str, Any]
    """The exact Helm values passed to the release."""

    def __init__(
        self,
        name: str,
        args: NvidiaDraDriverArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        secret_values: bool = False,
    ):
        """`secret_values`: pass the Helm values as a secret (when any of them came from a secret config value), so they
        are encrypted in the state and shown as [secret] in previews."""
        require_kubernetes_provider("NvidiaDraDriver", opts)
        super().__init__("aks-dra-vgpu:index:NvidiaDraDriver", name, None, opts)
        # Imported here so that `import components` (config, CLI) does not load the Kubernetes SDK.
        import pulumi_kubernetes as k8s

        self.chart_version = args.chart_version
        self.values = driver_values(args, args.pools)
        chart, repository = release_chart(args.chart)
        nulls = null_values(self.values)
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=args.release_name,
            chart=chart,
            version=args.chart_version,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=repository) if repository else None,
            namespace=args.namespace,
            create_namespace=True,
            values=pulumi.Output.secret(self.values) if secret_values else self.values,
            # A null deletes a chart default (controller placement). Inline nulls have been dropped on the way to Helm
            # by some SDK/provider versions (pulumi-kubernetes #2034, #3811); nulls in a values file always arrive.
            value_yaml_files=[pulumi.StringAsset(yaml.safe_dump(nulls, sort_keys=True))] if nulls else None,
            allow_null_values=True,
            atomic=True,  # a failed install or upgrade rolls back instead of leaving a half-installed driver
            cleanup_on_fail=True,
            timeout=args.timeout_seconds,
            max_history=10,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.release_name = release.name
        self.namespace = release.namespace
        self.register_outputs(
            {"releaseName": self.release_name, "namespace": self.namespace, "chartVersion": self.chart_version,
             "values": pulumi.Output.secret(self.values) if secret_values else self.values}
        )
