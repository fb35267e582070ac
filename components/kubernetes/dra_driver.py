"""NvidiaDraDriver: the NVIDIA DRA driver as a Helm release, with values right for A10 vGPU on AKS and the chart version.

The values are decided by pure functions (config + served GPU pools -> plain data), so they can be tested, rendered
with the real chart, and shown by the offline CLI without Pulumi; the component only wraps them in a
``helm.v3.Release`` on an explicit Kubernetes provider.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from typing import Any

import pulumi
import yaml
from pydantic import Field, model_validator

from ..catalog import GPU_PRESENT_LABEL, RESOURCE_API_VERSION, DriverChart
from ..config import DraDriverConfig, GpuPoolConfig, KeyedProblemsError
from ..config.args import component_args
from ..config.driver import nodes_driver_problems, sharing_problems
from ..config.mig_pools import driver_mig_problems
from ..config.pools import GpuPools
from ..outputs import register_declared
from .providers import require_kubernetes_provider
from .release_outputs import HelmReleaseOutputs
from .tolerations import pool_settings, pool_tolerations

# The name 25.x installs give their objects; the renamed 0.4.x chart keeps it with nameOverride, so an upgrade from 25.x
# updates the same DaemonSet (its selector is immutable) instead of starting a second driver beside the first
# (kubernetes-sigs/dra-driver-nvidia-gpu docs/upgrade.md: required on the first upgrade, harmless after).
LEGACY_NAME = "nvidia-dra-driver-gpu"

# The toleration the AKS team's guide gives the controller: AKS's system pool may carry CriticalAddonsOnly.
CONTROLLER_TOLERATIONS = [{"key": "CriticalAddonsOnly", "operator": "Exists"}]


class NvidiaDraDriverArgs(DraDriverConfig):
    """The driver's settings plus the GPU pools it serves (their labels and taints shape the kubelet plugin).

    `enabled` is GpuPlatform's switch; a NvidiaDraDriver that is built always installs its release.
    """

    pools: GpuPools = Field(
        description="The GPU pools whose nodes run the kubelet plugin (GpuNodePool components or their settings)."
    )

    @model_validator(mode="after")
    def _sharing_needs_the_chart(self) -> NvidiaDraDriverArgs:
        problems = sharing_problems(self.chart_version, None, list(enumerate(self.pools)), "chartVersion", None)
        problems += driver_mig_problems(self.chart_version, self.feature_gates, list(enumerate(self.pools)),
                                        "chartVersion", "featureGates", "pools")
        problems += nodes_driver_problems(self.chart_version, self.host_driver_version,
                                          [pool.vm_size for pool in self.pools], "chartVersion")
        if problems:
            raise KeyedProblemsError(*((key.replace("gpuPools", "pools", 1), text) for key, text in problems))
        return self



# The `consumableShares` mode the package uses for a pool with `sharing: memory`: each device publishes its memory with
# requestPolicy {default: max, validRange {min 1Mi, max, step 1Mi}} and allowMultipleAllocations (kubernetes-sigs/
# dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/consumable_shares.go, case "memory").
CONSUMABLE_SHARES_MODE = "memory"


def shares_memory(pools: list[GpuPoolConfig]) -> bool:
    """Whether any served pool shares its slices by memory (then the driver publishes consumable memory)."""
    return any(pool.sharing == "memory" for pool in pools)


def feature_gates(config: DraDriverConfig, pools: list[GpuPoolConfig] | None = None) -> dict[str, bool]:
    """The gates to pass: IMEX DNS names off (A10 GRID drivers are too old), what that implies, ConsumableShares where a
    pool shares its slices, then the user's."""
    gates = {"IMEXDaemonsWithDNSNames": False}
    # From 25.12, ComputeDomainCliques is on by default and the binaries refuse to start with it on and IMEX off.
    gates.update({gate: False for gate in sorted(config.chart.gates_requiring_imex)})
    if pools and shares_memory(pools) and config.chart.has_consumable_shares:
        # The plugin refuses to start with consumableShares set and the gate off (cmd/gpu-kubelet-plugin/main.go).
        gates["ConsumableShares"] = True
    gates.update(config.feature_gates)  # validated in DraDriverConfig: known to the chart, never re-enabling IMEX
    return dict(sorted(gates.items()))


def plugin_tolerations(pools: list[GpuPoolConfig]) -> list[dict[str, str]]:
    """One toleration per distinct taint of the served pools: a tainted pool still gets its plugin and ResourceSlice."""
    return pool_tolerations(pools)


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


def driver_values(config: DraDriverConfig, pools: list[GpuPoolConfig], *, metrics: bool = False) -> dict[str, Any]:
    """The Helm values for this chart version and these pools (plain data; `extraValues` merged last).

    The value keys are the same in every supported chart version (25.8.1, 25.12.0 and the renamed 0.4.1 and 0.5.0); what
    differs per version is the gate set, the gates IMEX-off implies, 0.4+'s nameOverride, from 25.12 the pinned DRA API
    version, and from 0.5.0 the image digest and `consumableShares` (only where a pool shares its slices).
    Every key sent exists in that version's values.yaml (the chart has no schema: an unknown key would
    be silently ignored); the chart tests check it against the real charts. Pools: settings or GpuNodePool components.
    """
    pools = pool_settings(pools)
    values: dict[str, Any] = {
        # AKS installs the GRID driver on the host itself.
        "nvidiaDriverRoot": "/",
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": config.compute_domains}},
        # The chart refuses GPU mode without it (its guard against running beside the nvidia.com/gpu device plugin;
        # AKS's own GPU setup installs no device plugin when its managed-GPU preview is off).
        "gpuResourcesEnabledOverride": True,
        "featureGates": feature_gates(config, pools),
        "kubeletPlugin": {
            "nodeSelector": plugin_node_selector(pools),
            "tolerations": plugin_tolerations(pools),
        },
    }
    if config.compute_domains:
        # The chart's controller asks for a control-plane node, which AKS does not have: 25.x requires one (a pod that
        # stays Pending), 0.4.x only prefers one and tolerates CriticalAddonsOnly. Either way clear its placement
        # (null deletes a chart default) and tolerate the system pool's CriticalAddonsOnly taint.
        values["controller"] = {"nodeSelector": None, "affinity": None, "tolerations": copy.deepcopy(CONTROLLER_TOLERATIONS)}
    if config.chart.needs_name_override:
        values["nameOverride"] = LEGACY_NAME
    if config.chart.has_resource_api_version:
        values["resourceApiVersion"] = RESOURCE_API_VERSION
    if config.chart.image_tag:
        # The chart renders `<image.repository>:<image.tag>`: the release tag with the promoted digest, so a re-pushed
        # tag cannot change what runs (the project signs nothing). extraValues may still point image.* at a mirror.
        values["image"] = {"tag": config.chart.image_tag}
    if shares_memory(pools) and config.chart.has_consumable_shares:
        # One kubelet-plugin DaemonSet serves every GPU node and takes one CONSUMABLE_SHARES for all of them
        # (templates/kubeletplugin.yaml); a second release would collide on the cluster-scoped objects the chart names
        # itself (the gpu.nvidia.com, mig.nvidia.com, vfio.gpu.nvidia.com DeviceClasses; compute-domain-daemon-role). So the
        # devices of unshared pools become shareable too, and stay whole for whole-slice claims: a request without a
        # capacity consumes the policy's default, which is the whole memory (docs/sizing.md, "Sharing a slice").
        values["consumableShares"] = CONSUMABLE_SHARES_MODE
    if metrics and config.chart.has_metrics:
        # On by default in 0.4.x; said explicitly where something scrapes them, so a chart default cannot turn them off.
        values["kubeletPlugin"]["metrics"] = {"enabled": True}
        if config.compute_domains:
            values["controller"]["metrics"] = {"enabled": True}
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


def without_nulls(values: Mapping[str, Any]) -> dict[str, Any]:
    """The values with every null left out (they travel in a values file: see null_values)."""
    kept: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            continue
        kept[key] = without_nulls(value) if isinstance(value, Mapping) else value
    return kept


def crd_files(config: DraDriverConfig) -> list[tuple[str, str]]:
    """(resource-name suffix, URL) of each CRD Pulumi applies before the release: only with compute domains on.

    Helm installs a chart's crds/ on the first install and never again, so an upgrade would leave the ComputeDomain
    CRDs of the old version (upstream's upgrade guide applies the new ones first). The charts are not in this package,
    so the CRDs come from the driver's repository at the chart's own tag, as that guide applies them.
    """
    if not config.compute_domains:
        return []
    return [(_crd_suffix(url), url) for url in config.chart.crd_urls]


def _crd_suffix(url: str) -> str:
    """'.../resource.nvidia.com_computedomains.yaml' -> 'computedomains'."""
    return url.rsplit("/", 1)[-1].removesuffix(".yaml").rsplit("_", 1)[-1]


def release_chart(chart: DriverChart) -> tuple[str, str | None]:
    """(chart, repository) as Helm takes them: an OCI chart is one full reference and has no repository."""
    if chart.repository.startswith("oci://"):
        return f"{chart.repository}/{chart.chart}", None
    return chart.chart, chart.repository


def values_revision(chart_version: str, values: Mapping[str, Any]) -> str:
    """`<chart version>/<16 hex digits of the values' SHA-256>`: changes whenever an apply of the release would (the
    chart or its values), and reads the same for the same release on every run (keys sorted)."""
    text = json.dumps(values, sort_keys=True, separators=(",", ":"), default=str)
    return f"{chart_version}/{hashlib.sha256(text.encode()).hexdigest()[:16]}"


NvidiaDraDriverOutputs = HelmReleaseOutputs
"""What a NvidiaDraDriver gives back: its release's name, namespace, chart version and values."""


class NvidiaDraDriver(NvidiaDraDriverOutputs, pulumi.ComponentResource):
    """The NVIDIA DRA driver (helm.v3.Release) that publishes each node's A10 vGPU as a DRA device.

    Needs an explicit Kubernetes provider (``providers={"kubernetes": provider}``, or from its parent) and refuses to
    start without one. It waits for nothing but that provider's cluster: the kubelet plugin DaemonSet waits for GPU
    nodes by itself, so GPU pools and the driver are created in parallel.
    """

    def __init__(
        self,
        name: str,
        args: NvidiaDraDriverArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        secret_values: bool = False,
        metrics: bool = False,
    ):
        """`secret_values`: pass the Helm values as a secret (when any of them came from a secret config value), so they
        are encrypted in the state and shown as [secret] in previews. `metrics`: turn the driver's own metrics
        endpoints on where the chart version has them (something scrapes them)."""
        args = component_args(NvidiaDraDriverArgs, args)
        require_kubernetes_provider("NvidiaDraDriver", opts)
        super().__init__("aks-dra-vgpu:index:NvidiaDraDriver", name, None, opts)
        # Imported here so that `import components` (config, CLI) does not load the Kubernetes SDK.
        import pulumi_kubernetes as k8s

        self.chart_version = args.chart_version
        self.values = driver_values(args, args.pools, metrics=metrics)
        chart, repository = release_chart(args.chart)
        nulls = null_values(self.values)
        # With compute domains on, Pulumi owns the CRDs: applied before the release and updated with the chart version.
        # yaml.v2.ConfigFile reads a URL in the provider (pulumi-kubernetes provider/pkg/provider/yaml/v2/yaml.go); a
        # dependency on a remote component waits for its children (pulumi/pulumi sdk/python/lib/pulumi/runtime/rpc.py,
        # _add_dependency), so the release is upgraded only after the CRDs are. Retained on delete (the children inherit
        # it: pulumi/pulumi pkg/resource/deploy/source_eval.go): deleting a CRD deletes every ComputeDomain, and Helm
        # never deletes them either.
        crds = [
            k8s.yaml.v2.ConfigFile(
                f"{name}-crd-{suffix}",
                file=url,
                opts=pulumi.ResourceOptions(parent=self, retain_on_delete=True),
            )
            for suffix, url in crd_files(args)
        ]
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=args.release_name,
            chart=chart,
            version=args.chart_version,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=repository) if repository else None,
            namespace=args.namespace,
            create_namespace=True,
            # A null deletes a chart default (controller placement). pulumi-kubernetes before 4.30 drops inline nulls on
            # the way to Helm unless allowNullValues is set (#2034, #3811); from 4.30 it keeps them and allowNullValues
            # has no effect (helm_release.go, #4293). This package supports 4.26 and up, and nulls in a values file
            # arrive with every release: so the nulls go in a values file, and everything else inline.
            values=pulumi.Output.secret(without_nulls(self.values)) if secret_values else without_nulls(self.values),
            value_yaml_files=[pulumi.StringAsset(yaml.safe_dump(nulls, sort_keys=True))] if nulls else None,
            atomic=True,  # a failed install or upgrade rolls back instead of leaving a half-installed driver
            cleanup_on_fail=True,
            timeout=args.timeout_seconds,
            max_history=10,
            # Helm would install its own copy of the CRDs on a first install; Pulumi's are the ones that get upgraded.
            skip_crds=True if crds else None,
            # A new name or namespace replaces the release (helm_release.go), create-first by the provider's choice:
            # two drivers would then fight over the same cluster-scoped objects (DeviceClasses, RBAC). Delete first.
            opts=pulumi.ResourceOptions(parent=self, depends_on=crds or None, delete_before_replace=True),
        )
        self.release_name = release.name
        self.namespace = release.namespace
        # Another resource's output among the values (a caller's extraValues) is resolved before it is digested.
        revision = pulumi.Output.from_input(self.values).apply(lambda v: values_revision(args.chart_version, v))
        self.revision: pulumi.Output[str] = pulumi.Output.secret(revision) if secret_values else revision
        """What changes with every apply of the release: its chart version and a digest of its values."""
        register_declared(self, values=pulumi.Output.secret(self.values) if secret_values else self.values)
