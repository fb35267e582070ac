"""The cross-section checks on the parts of a stack that validate on their own: what a failed whole-stack validation
did not get to check, so one run reports every mistake (config.loading runs them after StackConfig refused the data)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..catalog import SIZE_CLASSES
from .base import KubernetesVersion
from .cluster import ClusterConfig, SystemPoolConfig
from .driver import DraDriverConfig
from .errors import Problem
from .extended_resources import ExtendedResourcesConfig, mig_profiles, nvidia_gpu_values
from .extended_rules import nvidia_gpu_choices, offered
from .fleet_membership import FleetMembershipConfig, member_name_problem
from .monitoring import MonitoringConfig
from .nvidia_gpu_hints import nvidia_gpu_refusal
from .pools import GpuPoolConfig
from .salvage import salvage
from .samples import SamplesConfig
from .stack import cross_problems
from .syntax import CLUSTER_NAME, POOL_NAME
from .upgrades import pinned_pool_problems, version_owner
from .validation import validated_or_none as _part


def _part_chart(raw_driver: Any) -> str | None:
    """The driver's chart version alone, when that much validates (the default when it is not written)."""
    if not isinstance(raw_driver, Mapping):
        return None
    part = _part(DraDriverConfig, {"chartVersion": raw_driver["chartVersion"]} if "chartVersion" in raw_driver else {})
    return part.chart_version if part else None


def _part_version(raw_cluster: Any) -> str | None:
    """The cluster's Kubernetes version alone, when that much validates (the default when it is not written)."""
    if not isinstance(raw_cluster, Mapping):
        return None
    field = ClusterConfig.model_fields["kubernetes_version"]
    if "kubernetesVersion" not in raw_cluster:
        return field.get_default(call_default_factory=True)
    try:
        return TypeAdapter(KubernetesVersion).validate_python(raw_cluster["kubernetesVersion"])
    except (ValidationError, ValueError, TypeError):
        return None


def _extended_part(raw: Any) -> tuple[ExtendedResourcesConfig | None, list[str]]:
    """The extendedResources section with its keys that failed left out, and those keys (["extendedResources"]: the
    whole section is unusable); (None, []) when it is not written. Its version rules read none of its keys, so they
    are judged even beside a mistyped domain."""
    if raw is None:
        return None, []
    whole = _part(ExtendedResourcesConfig, raw)
    if whole is not None:
        return whole, []
    part, left_out = salvage(ExtendedResourcesConfig, raw) if isinstance(raw, Mapping) else (None, [])
    return part, (left_out or ["extendedResources"]) if part is not None else ["extendedResources"]


NVIDIA_GPU_KEY = "extendedResources.nvidiaGpu"


def _nvidia_gpu_said(told: Sequence[Problem], raw_extended: Any, pools: list[tuple[int, GpuPoolConfig]],
                     all_pools: bool) -> list[Problem]:
    """`told` with nvidiaGpu's refusal said with the stack in view: the value it likely meant and the choices of the
    stack's pools (its field alone knows neither), or of every value where a pool did not validate."""
    written = raw_extended.get("nvidiaGpu") if isinstance(raw_extended, Mapping) else None
    if written is None or _part(ExtendedResourcesConfig, {"nvidiaGpu": written}) is not None:
        return list(told)  # a value refused only beside the pools is said by the offer rule, with its choices
    if all_pools and pools:
        (sizes, profiles), choices = offered(pools), nvidia_gpu_choices(pools)
    else:
        sizes, profiles, choices = list(SIZE_CLASSES), mig_profiles(), nvidia_gpu_values()
    said = nvidia_gpu_refusal(written, sizes, profiles, choices, all_pools and bool(pools))
    return [Problem(p.path, said) if p.path == NVIDIA_GPU_KEY else p for p in told]


def partial_problems(data: Any, told: Sequence[Problem] = ()) -> list[Problem]:
    """What a failed whole-stack validation `told` (nvidiaGpu's refusal said with the stack's pools in view), then
    the cross-section checks on the sections (and pools) of raw stack data that validate on their own: what it did
    not get to check, so one run reports every mistake."""
    if not isinstance(data, Mapping):
        return list(told)
    raw_cluster = data.get("cluster")
    cluster, cluster_left_out = _part(ClusterConfig, raw_cluster), []
    if cluster is None and isinstance(raw_cluster, Mapping):  # its keys that validate, the others left out
        cluster, cluster_left_out = salvage(ClusterConfig, raw_cluster)
    system = _part(SystemPoolConfig, raw_cluster.get("systemPool", {})) if isinstance(raw_cluster, Mapping) else None
    raw_driver = data.get("draDriver", {})
    driver = _part(DraDriverConfig, raw_driver)
    if driver is None and isinstance(raw_driver, Mapping):  # its namespace alone, when that much is right
        namespace = _part(DraDriverConfig, {"namespace": raw_driver["namespace"]} if "namespace" in raw_driver else {})
    else:
        namespace = driver
    samples = _part(SamplesConfig, data.get("samples", {}))
    raw_extended = data.get("extendedResources")
    extended, extended_left_out = _extended_part(raw_extended)
    raw = data.get("gpuPools")
    raw_pools = list(raw) if isinstance(raw, list) else []
    found = [(i, _part(GpuPoolConfig, p)) for i, p in enumerate(raw_pools)]
    pools = [(i, p) for i, p in found if p is not None]
    names = [(i, p["name"]) for i, p in enumerate(raw_pools)
             if isinstance(p, Mapping) and isinstance(p.get("name"), str) and POOL_NAME.fullmatch(p["name"])]
    release = _part(DraDriverConfig, {"releaseName": raw_driver["releaseName"]}) if isinstance(raw_driver, Mapping) \
        and "releaseName" in raw_driver else (driver or namespace)
    raw_monitoring = raw_cluster.get("monitoring", {}) if isinstance(raw_cluster, Mapping) else None
    watched, left_out = salvage(MonitoringConfig, raw_monitoring) if isinstance(raw_monitoring, Mapping) else (None, [])
    raw_name = raw_cluster.get("name") if isinstance(raw_cluster, Mapping) else None
    cluster_name = raw_name if isinstance(raw_name, str) and CLUSTER_NAME.fullmatch(raw_name) else None
    problems = cross_problems(cluster, pools, bool(raw_pools) and len(pools) == len(raw_pools),
                              namespace.namespace if namespace else None, samples, system.name if system else None,
                              release.release_name if release else None, names, len(raw_pools), driver,
                              (watched, cluster_name, left_out), cluster_left_out,
                              driver.chart_version if driver else _part_chart(raw_driver),
                              None if cluster else _part_version(raw_cluster),
                              (extended, extended_left_out),
                              isinstance(raw_driver, Mapping) and "hostDriverVersion" not in raw_driver,
                              [p.get("vmSize") if isinstance(p, Mapping) else None for p in raw_pools])
    membership = _part(FleetMembershipConfig, data.get("fleetMembership"))
    if membership is not None and cluster_name is not None:
        problem = member_name_problem(membership, cluster_name)
        problems += [problem] if problem else []
    # A member's version is the fleet's, whatever else failed; a channel's, when the channel validated.
    channel_known = cluster is not None and not any(out.split(".")[0] == "upgrades" for out in cluster_left_out)
    channel = cluster.upgrades.channel if channel_known else None
    problems += pinned_pool_problems(pools, version_owner(channel, membership is not None))
    said = _nvidia_gpu_said(told, raw_extended, pools, bool(raw_pools) and len(pools) == len(raw_pools))
    return said + [Problem(key, message) for key, message in problems]
