"""What the query API answered, as value objects: one `UsageRow` per device and pod (the exporter writes a device's
row once per pod using it, and once with no pod when nobody does), each device's framebuffer, and each pod's
workload. Pure: built from the answers' JSON, checked for what would make every figure wrong (no exporter series, no
FB_FREE, no DRA attribution), never touching the network."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from ..catalog import DCGM_EXPORTER_CHARTS, DEFAULT_DCGM_EXPORTER_CHART
from ..observability.scrape import EXPORTER_JOB
from ..observability.usage_queries import FB_FREE, FB_USED

FIXED_IMAGE = DCGM_EXPORTER_CHARTS[DEFAULT_DCGM_EXPORTER_CHART]
"""The exporter image the package pins: DRA labels read through resource.k8s.io/v1, node label `hostname`."""
BUSY_FRACTION = 0.01  # framebuffer in use above 1 %: some process holds a CUDA context there


@dataclass(frozen=True, order=True)
class DeviceKey:
    """One device (slice): an A10 vGPU by its UUID, a MIG slice by its parent's UUID and its GPU instance."""

    cluster: str
    node: str
    uuid: str
    instance: str = ""  # GPU_I_ID, on MIG rows only


@dataclass(frozen=True)
class UsageRow:
    """One device as one pod used it over the window (no pod: the device's own row while nobody used it)."""

    device: DeviceKey
    profile: str  # GPU_I_PROFILE ("3g.40gb") on a MIG row, else ""
    model: str  # modelName: the vGPU profile ("NVIDIA A10-8Q"), or the MIG slice's parent GPU
    namespace: str
    pod: str
    claim: str
    claim_namespace: str
    peak_mib: float
    low_mib: float | None = None
    first: float | None = None  # POSIX seconds, to the subquery step
    last: float | None = None
    utilisation: float | None = None  # average DCGM_FI_DEV_GPU_UTIL, percent

    @property
    def used(self) -> bool:
        """A ResourceClaim held the device: the exporter attributed the row. (A row nobody uses may still carry `pod`
        and `namespace`: the scrape target's own, the exporter pod's, which the scrape object adds.)"""
        return bool(self.claim)

    @property
    def mig(self) -> bool:
        return bool(self.profile)


@dataclass(frozen=True)
class Owner:
    """A pod's workload, as AKS's recording rule names it."""

    workload: str
    kind: str  # deployment, daemonset, statefulset, job (the rule's workload_type)


@dataclass
class Measurements:
    """Everything one window's answers say."""

    rows: list[UsageRow]
    framebuffer: dict[DeviceKey, float]  # MiB, used + free
    owners: dict[tuple[str, str, str], Owner]  # (cluster, namespace, pod) -> workload


def _value(item: dict[str, Any]) -> float | None:
    try:
        value = float(item["value"][1])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _labels(item: dict[str, Any]) -> dict[str, str]:
    metric = item.get("metric")
    return {str(k): str(v) for k, v in metric.items()} if isinstance(metric, dict) else {}


def _device(labels: dict[str, str]) -> DeviceKey:
    """The device a row is: `node` (the scrape object's) or the image's own node label, whichever the row has."""
    node = labels.get("node") or labels.get("hostname") or labels.get("Hostname") or ""
    return DeviceKey(labels.get("cluster", ""), node, labels.get("UUID", ""), labels.get("GPU_I_ID", ""))


def _row_key(labels: dict[str, str]) -> frozenset[tuple[str, str]]:
    """A row's labels: every per-row query groups by the same ones, so equal label sets are one row."""
    return frozenset(labels.items())


def measurements(answers: dict[str, list[dict[str, Any]]]) -> Measurements:
    """The answers of `usage_queries`, by query name, as Measurements."""
    extra: dict[str, dict[frozenset[tuple[str, str]], float]] = {}
    for name in ("low", "first", "last", "utilisation"):
        extra[name] = {}
        for item in answers.get(name, []):
            value = _value(item)
            if value is not None:
                extra[name][_row_key(_labels(item))] = value
    rows = []
    for item in answers.get("peak", []):
        labels, value = _labels(item), _value(item)
        if value is None:
            continue
        key = _row_key(labels)
        rows.append(UsageRow(
            _device(labels), labels.get("GPU_I_PROFILE", ""), labels.get("modelName", ""), labels.get("namespace", ""),
            labels.get("pod", ""), labels.get("dra_claim_name", ""), labels.get("dra_claim_namespace", ""), value,
            extra["low"].get(key), extra["first"].get(key), extra["last"].get(key), extra["utilisation"].get(key)))
    framebuffer: dict[DeviceKey, float] = {}
    for item in answers.get("framebuffer", []):
        value = _value(item)
        if value is not None and value > 0:
            key = _device(_labels(item))
            framebuffer[key] = max(value, framebuffer.get(key, 0.0))
    owners: dict[tuple[str, str, str], Owner] = {}
    for item in answers.get("owners", []):
        labels = _labels(item)
        if labels.get("pod") and labels.get("workload"):
            key = (labels.get("cluster", ""), labels.get("namespace", ""), labels["pod"])
            found = Owner(labels["workload"], labels.get("workload_type", ""))
            if key not in owners or _rank(found) < _rank(owners[key]):  # one owner per pod, the same whatever the order
                owners[key] = found
    return Measurements(sorted(rows, key=lambda r: (r.device, r.namespace, r.pod)), framebuffer, owners)


_NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", re.ASCII)  # a DNS label, as Kubernetes names namespaces


def claimed_namespaces(found: Measurements) -> tuple[str, ...]:
    """The namespaces of the pods that held a claim, whose owners the report needs (sorted, each a DNS label)."""
    return tuple(sorted({r.namespace for r in found.rows if r.used and _NAMESPACE.fullmatch(r.namespace)}))


# The rule's workload types, the controller a person names first: kubernetes-mixin's version of the rule (rules/
# apps.libsonnet, k8s.rules.pod_owner) has more types than AKS's four (replicaset, barepod, staticpod, a Job's owner).
_PREFERRED = ("deployment", "statefulset", "daemonset", "job")


def _rank(owner: Owner) -> tuple[int, str, str]:
    kind = owner.kind
    return (_PREFERRED.index(kind) if kind in _PREFERRED else len(_PREFERRED)), kind, owner.workload


def missing(found: Measurements, where: str) -> str | None:
    """Why these answers cannot be right-sized from (one line naming the metric or label and its fix), or None.
    `where` says which endpoint and window, for the message."""
    if not found.rows:
        return (f"no {FB_USED} series with job=\"{EXPORTER_JOB}\" {where}: dcgm-exporter's metrics are not there; "
                "cluster.monitoring.gpuMetrics.enabled installs the exporter and the scrape object that names that "
                "job (docs/observability.md)")
    if not found.framebuffer:
        return (f"no {FB_FREE} series with job=\"{EXPORTER_JOB}\" {where}, so no slice's size can be read (used + "
                f"free): keep {FB_FREE} in the exporter's counter list (the package's own list has it: "
                "gpuMetrics.enabled)")
    a10 = [r for r in found.rows if not r.mig]
    busy = [r for r in a10 if r.peak_mib > BUSY_FRACTION * found.framebuffer.get(r.device, math.inf)]
    if a10 and busy and not any(r.used for r in a10):
        return (f"no GPU row {where} carries the DRA labels (dra_claim_name) though {len(busy)} device row(s) show "
                "framebuffer in use: attribution to ResourceClaims is off (an exporter older than 4.4.0, the first with "
                f"it, or kubernetesDRA off), so no workload can be told; run dcgm-exporter {FIXED_IMAGE} "
                "(gpuMetrics.imageTag, the package's default) with kubernetesDRA.enabled, as gpuMetrics.enabled sets it")
    return None
