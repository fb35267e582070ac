"""NvidiaDraDriver: the NVIDIA DRA driver as a Helm release, with values right for A10 vGPU on AKS and the chart version."""

from __future__ import annotations

import copy
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field

from .catalog import GPU_PRESENT_LABEL, DriverChart
from .config import DraDriverConfig, GpuPoolConfig

# The release name 25.x installs use; 0.4.0 (renamed chart) keeps its objects' names with it.
LEGACY_NAME = "nvidia-dra-driver-gpu"


class NvidiaDraDriverArgs(DraDriverConfig):
    """The driver's settings plus the GPU pools it serves (their labels and taints shape the kubelet plugin)."""

    pools: list[GpuPoolConfig] = Field(min_length=1, description="The GPU pools whose nodes run the kubelet plugin.")


def feature_gates(config: DraDriverConfig) -> dict[str, bool]:
    """The gates to pass: IMEX DNS names off (A10 GRID drivers are too old), what that implies, then the user's."""
    gates = {"IMEXDaemonsWithDNSNames": False}
    # ComputeDomainCliques (on by default from 25.12) requires IMEXDaemonsWithDNSNames: turn it off with it.
    gates.update({gate: False for gate in sorted(config.chart.default_gates)})
    gates.update(config.feature_gates)
    return gates


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


def deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """Helm's merge: maps merge key by key, anything else (lists, scalars, null) replaces."""
    merged = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def driver_values(config: DraDriverConfig, pools: list[GpuPoolConfig]) -> dict[str, Any]:
    """The Helm values for this chart version and these pools (plain data; `extraValues` merged last)."""
    chart: DriverChart = config.chart
    values: dict[str, Any] = {
        "nvidiaDriverRoot": "/",
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": config.compute_domains}},
        "gpuResourcesEnabledOverride": True,
        "featureGates": feature_gates(config),
        "kubeletPlugin": {
            "nodeSelector": plugin_node_selector(pools),
            "tolerations": plugin_tolerations(pools),
        },
    }
    if config.compute_domains:
        # The chart's controller wants a control-plane node, which AKS does not have: run it on the system pool.
        values["controller"] = {
            "nodeSelector": None,
            "affinity": None,
            "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}],
        }
    if chart.needs_name_override:
        values["nameOverride"] = LEGACY_NAME
    return deep_merge(values, config.extra_values)


def release_chart(chart: DriverChart) -> tuple[str, str | None]:
    """(chart, repository) as helm takes them: OCI charts are a full reference with no repository."""
    if chart.repository.startswith("oci://"):
        return f"{chart.repository}/{chart.chart}", None
    return chart.chart, chart.repository


class NvidiaDraDriver(pulumi.ComponentResource):
    """The NVIDIA DRA driver (helm.v3.Release) that publishes each node's A10 vGPU as a DRA device."""

    release_name: pulumi.Output[str]
    """The Helm release's name."""
    namespace: pulumi.Output[str]
    """The namespace the driver runs in."""
    values: dict[str, Any]
    """The exact Helm values passed to the release."""

    def __init__(self, name: str, args: NvidiaDraDriverArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("aks-dra-vgpu:index:NvidiaDraDriver", name, None, opts)
        if self.get_provider("kubernetes::Release") is None:
            raise pulumi.InputPropertiesError(
                "NvidiaDraDriver needs an explicit Kubernetes provider",
                [{"property_path": "opts.providers", "reason": "pass providers={'kubernetes': provider}"}],
            )
        self.values = driver_values(args, args.pools)
        chart, repository = release_chart(args.chart)
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=args.release_name,
            chart=chart,
            version=args.chart_version,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=repository) if repository else None,
            namespace=args.namespace,
            create_namespace=True,
            values=self.values,
            allow_null_values=True,  # controller.nodeSelector/affinity: null must reach Helm to delete the defaults
            atomic=True,
            cleanup_on_fail=True,
            timeout=args.timeout_seconds,
            max_history=10,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.release_name = release.name
        self.namespace = release.namespace
        self.register_outputs({"releaseName": self.release_name, "namespace": self.namespace, "values": self.values})
