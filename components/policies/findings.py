"""The pack: every check named, with its level (`POLICIES`), and what a plan's findings are (violations per resource, the
stack-wide DeviceClass rule, the advisories `plan` prints as warnings)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .access import check_entra_id_access
from .autoscaling import check_autoscaler_gpu_label
from .credentials import NO_PLAIN_CREDENTIALS
from .observability import check_gpu_metrics_in_prod, check_managed_gpu_profile
from .rules import (
    check_device_class_name,
    check_dra_driver_release,
    check_gpu_pool,
    check_kubernetes_support,
    check_kubernetes_version,
    check_scale_from_zero,
    check_unique_device_classes,
)

__all__ = [
    "ENTRA_ID_ACCESS",
    "ENTRA_ID_ACCESS_DESCRIPTION",
    "GPU_METRICS_IN_PROD",
    "GPU_METRICS_IN_PROD_DESCRIPTION",
    "POLICIES",
    "UNIQUE_DEVICE_CLASS",
    "UNIQUE_DEVICE_CLASS_DESCRIPTION",
    "PolicyCheck",
    "Violation",
    "check_plan",
    "check_resource",
    "format_violations",
    "plan_findings",
]

Check = Callable[[str, Mapping[str, Any]], list[str]]


@dataclass(frozen=True)
class PolicyCheck:
    """One named invariant: the policy pack turns each into a ResourceValidationPolicy of the same name."""

    name: str
    description: str
    check: Check
    mandatory: bool = True


POLICIES: tuple[PolicyCheck, ...] = (
    PolicyCheck(
        "a10-gpu-pool",
        "GPU node pools are NVadsA10_v5 (or MIG sizes with gpuInstanceProfile), labelled nvidia.com/gpu.present=true, "
        "with gpuProfile.driver Install.",
        check_gpu_pool,
    ),
    PolicyCheck(
        "dra-driver-release",
        "The NVIDIA DRA driver release sets resources.gpus.enabled, gpuResourcesEnabledOverride and "
        "featureGates.IMEXDaemonsWithDNSNames=false, pins its version and avoids the default namespace.",
        check_dra_driver_release,
    ),
    PolicyCheck(
        "no-chart-device-class",
        "No DeviceClass reuses a name the NVIDIA DRA driver chart creates.",
        check_device_class_name,
    ),
    PolicyCheck(
        "kubernetes-1-34",
        "The AKS cluster runs Kubernetes 1.34 or newer (DRA resource.k8s.io/v1 is GA).",
        check_kubernetes_version,
    ),
    PolicyCheck(
        "aks-kubernetes-support",
        "The cluster's Kubernetes minor is one AKS supports as GA, not near or past its end of standard support "
        "(advisory: LTS keeps an old minor supported).",
        check_kubernetes_support,
        mandatory=False,
    ),
    PolicyCheck(
        "dra-pool-scale-from-zero",
        "A GPU pool that serves DRA claims keeps at least one node: the cluster autoscaler cannot scale it up from zero "
        "for a ResourceClaim.",
        check_scale_from_zero,
        mandatory=False,
    ),
    PolicyCheck(
        "dra-pool-autoscaler-gpu-label",
        "A GPU pool that serves DRA claims is sized for its peak: the cluster autoscaler counts a node with AKS's GPU "
        "label and no GPU allocatable as unready, so it cannot scale the pool for claims.",
        check_autoscaler_gpu_label,
        mandatory=False,
    ),
    PolicyCheck(
        "no-managed-gpu-profile",
        "No node pool uses AKS's managed GPU profile (device plugin and DCGM exporter) beside the DRA driver.",
        check_managed_gpu_profile,
    ),
)

UNIQUE_DEVICE_CLASS = "unique-device-class"
"""The stack-wide policy: no two resources declare the same DeviceClass name."""
UNIQUE_DEVICE_CLASS_DESCRIPTION = "No two resources of a stack declare the same (cluster-scoped) DeviceClass."
GPU_METRICS_IN_PROD = "gpu-metrics-in-prod"
"""The stack-wide advisory policy: a production stack with GPU pools installs GPU metrics."""
GPU_METRICS_IN_PROD_DESCRIPTION = "A production stack with GPU pools installs GPU metrics (dcgm-exporter)."
ENTRA_ID_ACCESS = "entra-id-access"
"""The stack-wide advisory policy: an Entra ID (Azure RBAC) cluster grants someone access to its Kubernetes API."""
ENTRA_ID_ACCESS_DESCRIPTION = (
    "An Entra ID cluster with Azure RBAC has an admin group or an AKS RBAC role assignment that can write to it."
)


@dataclass(frozen=True)
class Violation:
    """One policy violated by one resource."""

    policy: str
    urn: str
    message: str
    mandatory: bool


def check_resource(type_token: str, inputs: Mapping[str, Any], urn: str = "") -> list[Violation]:
    """Every policy's violations for one resource."""
    return [
        Violation(policy.name, urn, message, policy.mandatory)
        for policy in POLICIES
        for message in policy.check(type_token, inputs)
    ]


def _resources(plan: Any) -> Iterable[tuple[str, str, Mapping[str, Any]]]:
    """(urn, type, inputs) of a Plan, or of a plan document (`plan --json`)."""
    if isinstance(plan, Mapping):
        return [(r["urn"], r["type"], r.get("inputs") or {}) for r in plan["resources"]]
    return [(r.urn, r.type, r.inputs) for r in plan.resources]


def _providers(plan: Any) -> dict[str, str | None]:
    """urn -> the resource's provider reference (which cluster a Kubernetes object goes to)."""
    if isinstance(plan, Mapping):
        return {r["urn"]: r.get("provider") for r in plan["resources"]}
    return {r.urn: r.provider for r in plan.resources}


def _with_dependencies(plan: Any) -> list[tuple[str, str, Mapping[str, Any], list[str]]]:
    """(urn, type, inputs, dependencies) of a Plan, or of a plan document."""
    if isinstance(plan, Mapping):
        return [(r["urn"], r["type"], r.get("inputs") or {}, list(r.get("dependencies") or [])) for r in plan["resources"]]
    return [(r.urn, r.type, r.inputs, list(r.dependencies)) for r in plan.resources]


def _stack(plan: Any) -> str:
    """The plan's stack name ('' when it has none)."""
    return str(plan.get("stack", "") if isinstance(plan, Mapping) else getattr(plan, "stack", "") or "")


def check_plan(plan: Any) -> list[Violation]:
    """Every violation in an offline plan (a Plan, or the `plan --json` document): per resource in resource order, then
    the stack-wide ones."""
    resources = list(_resources(plan))
    found = [v for urn, type_, inputs in resources for v in check_resource(type_, inputs, urn)]
    found += [Violation(UNIQUE_DEVICE_CLASS, urn, message, True)
              for urn, message in check_unique_device_classes(resources, _providers(plan))]
    advisories = check_gpu_metrics_in_prod(resources, _stack(plan))
    found += [Violation(GPU_METRICS_IN_PROD, "", message, False) for message in advisories]
    found += [Violation(ENTRA_ID_ACCESS, "", message, False) for message in check_entra_id_access(_with_dependencies(plan))]
    return found


def plan_findings(plan: Any) -> tuple[list[str], list[str]]:
    """What `plan` itself reports on stderr: (errors, warnings). Errors: objects two components would both create;
    warnings: the advisory policies."""
    resources = list(_resources(plan))
    errors = [f"{urn}: {message}" for urn, message in check_unique_device_classes(resources, _providers(plan))]
    warnings = [
        message
        for _, type_, inputs in resources
        for policy in POLICIES
        if not policy.mandatory
        for message in policy.check(type_, inputs)
    ]
    warnings += check_gpu_metrics_in_prod(resources, _stack(plan))
    warnings += check_entra_id_access(_with_dependencies(plan))
    return errors, warnings


def format_violations(violations: list[Violation]) -> str:
    """The policy report for people: one block per violation, or a line saying every policy held."""
    if not violations:
        names = [*(p.name for p in POLICIES), UNIQUE_DEVICE_CLASS, GPU_METRICS_IN_PROD, ENTRA_ID_ACCESS,
                 NO_PLAIN_CREDENTIALS]
        return f"\npolicy: no violations ({len(names)} policies: {', '.join(names)})\n"
    mandatory = sum(v.mandatory for v in violations)
    lines = [f"\npolicy: {len(violations)} violation{'s' if len(violations) != 1 else ''} ({mandatory} mandatory)"]
    for v in violations:
        lines.append(f"  [{'mandatory' if v.mandatory else 'advisory'}] {v.policy}: {v.urn}")
        lines.append(f"      {v.message}")
    return "\n".join(lines) + "\n"
