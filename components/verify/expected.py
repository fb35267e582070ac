"""What a stack says should be on the cluster, derived from its StackConfig by the package's own functions.

Nothing here is a second copy: the pools' labels and taints come from `GpuPoolConfig`, the claim templates and the
DeviceClass from `kubernetes.claim_templates` (through `dra_samples.claim_settings`, as the samples make them), the
kubelet plugin's tolerations from `kubernetes.tolerations`, the driver's object names from its Helm values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..catalog import MIN_KUBERNETES_PATCH, PAIR_SIZE
from ..config import GpuPoolConfig, StackConfig
from ..kubernetes.extended_classes import ExtendedClass, extended_classes
from ..kubernetes.slice_kinds import Slice

# The kubelet plugin DaemonSet and controller Deployment are named `<chart name or nameOverride>-kubelet-plugin` and
# `-controller` in every supported chart (templates/kubeletplugin.yaml, controller.yaml: `include "...name"`).
PLUGIN_SUFFIX = "-kubelet-plugin"
CONTROLLER_SUFFIX = "-controller"
# The labels AKS puts on every node (learn.microsoft.com/azure/aks/use-labels: kubernetes.azure.com/agentpool, mode).
POOL_LABEL = "kubernetes.azure.com/agentpool"
MODE_LABEL = "kubernetes.azure.com/mode"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class Template:
    """A claim template the stack declares: its name, size class, device count and ResourceClaimSpec."""

    key: str
    name: str
    size: int | None  # A10 GiB per device; None for MIG and for kinds this module does not know (drift still checked)
    devices: int
    spec: dict[str, Any]
    kind: Slice | None = None  # the slice its first choice asks for, of either family; None: unknown (memory templates)


@dataclass(frozen=True)
class Expected:
    """Everything `verify` compares the cluster with."""

    stack: StackConfig
    pools: list[GpuPoolConfig]
    min_version: tuple[int, int, int]
    driver_namespace: str | None
    plugin_daemon_set: str | None
    controller_deployment: str | None
    samples_namespace: str | None
    device_class: str | None
    device_class_spec: dict[str, Any] | None
    templates: list[Template] = field(default_factory=list)
    shared_claim: tuple[str, dict[str, Any]] | None = None
    margin_percent: int = 10
    fit: str = "bestFit"
    metrics_namespace: str | None = None
    metrics_release: str | None = None
    extended: tuple[ExtendedClass, ...] = ()  # the classes that serve extended resource names (extendedResources)

    def pool(self, name: str) -> GpuPoolConfig | None:
        """The GPU pool of this name, or None."""
        return next((p for p in self.pools if p.name == name), None)


def parse_version(text: str) -> tuple[int, int, int] | None:
    """`v1.34.2` (a server's gitVersion, maybe with `+aks...`) or `1.35` -> (1, 34, 2) / (1, 35, 0); None otherwise."""
    m = _VERSION.match(text.strip())
    if not m:
        return None
    return int(m[1]), int(m[2]), int(m[3] or 0)


def expected(stack: StackConfig) -> Expected:
    """What this stack should have put on the cluster."""
    pools = list(stack.gpu_pools)
    wanted = parse_version(stack.cluster.kubernetes_version) or (*MIN_KUBERNETES_PATCH,)
    metrics = stack.cluster.monitoring.gpu_metrics
    return Expected(
        stack=stack,
        pools=pools,
        min_version=max(wanted, MIN_KUBERNETES_PATCH),
        **_driver_objects(stack, pools),
        **_sample_objects(stack, pools),
        metrics_namespace=metrics.namespace if metrics.enabled else None,
        metrics_release=metrics.release_name if metrics.enabled else None,
        extended=extended_classes(stack),
    )


def _driver_objects(stack: StackConfig, pools: list[GpuPoolConfig]) -> dict[str, Any]:
    """The driver's namespace and the names of its kubelet plugin DaemonSet and controller Deployment (from its Helm
    values); all None when the package does not install it."""
    from ..kubernetes.dra_driver import driver_values

    driver = stack.dra_driver
    namespace = driver.namespace if driver.enabled and isinstance(driver.namespace, str) else None
    plugin = controller = None
    if namespace is not None:
        values = driver_values(driver, pools)
        name = values.get("nameOverride") or driver.chart.chart  # 0.4.x: LEGACY_NAME, so the 25.x names stay
        plugin = f"{name}{PLUGIN_SUFFIX}"
        controller = f"{name}{CONTROLLER_SUFFIX}" if driver.compute_domains else None
    return {"driver_namespace": namespace, "plugin_daemon_set": plugin, "controller_deployment": controller}


def _sample_objects(stack: StackConfig, pools: list[GpuPoolConfig]) -> dict[str, Any]:
    """The samples' namespace, DeviceClass, claim templates and shared claim, as the samples make them (none when they
    are off), and the claims' memory margin and fit."""
    from ..kubernetes.claim_templates import (
        device_class_spec,
        shared_claim_name,
        shared_claim_spec,
        template_key,
        template_specs,
    )
    from ..kubernetes.dra_samples import claim_settings
    from ..kubernetes.mig_claims import mig_template_key
    from ..kubernetes.slice_kinds import a10_slice

    samples = stack.samples
    found: dict[str, Any] = {"margin_percent": samples.memory_margin_percent, "fit": samples.fit}
    if not samples.enabled:
        return {**found, "samples_namespace": None, "device_class": None, "device_class_spec": None}
    settings = claim_settings(samples, pools)
    known: dict[str, tuple[int | None, int, Slice]] = {
        template_key(size): (size, 1, a10_slice(size)) for size in settings.sizes}
    known[template_key(PAIR_SIZE, 2)] = (PAIR_SIZE, 2, a10_slice(PAIR_SIZE))
    for kind in settings.mig_kinds:
        known[mig_template_key(kind)] = (None, 1, kind)
        known[mig_template_key(kind, 2)] = (None, 2, kind)
    templates = []
    for key, (name, spec) in template_specs(settings).items():
        size, devices, kind = known.get(key, (None, 1, None))
        templates.append(Template(key, name, size, devices, spec, kind))
    shared = (shared_claim_name(settings.device_class_name), shared_claim_spec(settings)) if samples.shared_claim else None
    return {**found, "samples_namespace": samples.namespace, "device_class": samples.device_class_name,
            "device_class_spec": device_class_spec(samples.extended_resource_name), "templates": templates,
            "shared_claim": shared}
