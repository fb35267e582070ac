"""Prometheus rules as data: AKS's own recording rules, the GPU recording rules, and the alerts for shared A10s.

One description of each rule, two renderings: Azure's ``PrometheusRuleGroup`` rules (for managed Prometheus: ISO 8601
durations, integer severities; pulumi-azure-native alertsmanagement PrometheusRuleArgs, API 2023-03-01) and a
``monitoring.coreos.com/v1`` PrometheusRule (kube-prometheus-stack). Every metric name comes from its source:
the exporter's fields (counters.py), the scrape objects' job names (scrape.py), kube-state-metrics and the API server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ..config.monitoring import AlertsConfig
from .counters import MIG_LABELS
from .scrape import EXPORTER_JOB, PLUGIN_JOB

_DATA = Path(__file__).with_name("data") / "aks_recording_rules.json"


@dataclass(frozen=True)
class PromRule:
    """One recording rule (`record`) or alert (`alert`), with what an operator reads when it fires."""

    expr: str
    record: str | None = None
    alert: str | None = None
    for_minutes: int = 0
    summary: str = ""
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RuleGroup:
    """A named group of rules, evaluated every `interval_minutes`."""

    name: str
    description: str
    rules: tuple[PromRule, ...]
    interval_minutes: int = 1


@cache
def aks_recording_groups() -> tuple[RuleGroup, ...]:
    """The Linux node and Kubernetes recording rule groups AKS's onboarding creates (Azure/prometheus-collector
    AddonArmTemplate/FullAzureMonitorMetricsProfile.json), rules exactly as there."""
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    return tuple(
        RuleGroup(g["name"], g["description"], tuple(
            PromRule(r["expression"], record=r["record"], labels=dict(r.get("labels", {}))) for r in g["rules"]
        ))
        for g in data["groups"]
    )


# Distinct devices per vGPU profile: a device shared by several pods has one series per pod, so count UUIDs first.
_DEVICES = 'count by (modelName, UUID) (DCGM_FI_DEV_FB_FREE{job="gpu-metrics"%s})'
_ALLOCATED = ', dra_claim_name!=""'
# A MIG slice is (UUID, GPU_I_ID) of its parent GPU, its profile GPU_I_PROFILE (counters.MIG_LABELS).
_SLICE = ", ".join(MIG_LABELS)
_MIG_SLICES = f'count by (modelName, {_SLICE}, UUID) (DCGM_FI_DEV_FB_FREE{{job="{EXPORTER_JOB}", GPU_I_PROFILE!=""}})'


def gpu_recording(mig: bool = False) -> RuleGroup:
    """The GPU recording rules; with `mig` (a stack with MIG pools) also the MIG slices per GPU model and profile.

    Slices allocated and free stay the A10's: the exporter gives MIG rows no dra_claim_name (it keys MIG devices by
    the parent GPU's UUID while MIG rows are keyed `<gpu>-<GPU_I_ID>`: internal/pkg/transformation/dra.go
    GetDeviceInfo, collector/types.go GetIDOfType), so a MIG slice would always count as free.
    """
    rules = [
        PromRule(
            f'DCGM_FI_DEV_FB_USED{{job="{EXPORTER_JOB}"}} / (DCGM_FI_DEV_FB_USED{{job="{EXPORTER_JOB}"}} '
            f'+ DCGM_FI_DEV_FB_FREE{{job="{EXPORTER_JOB}"}})',
            record="gpu:framebuffer_used:ratio",
        ),
        PromRule(f"count by (modelName) ({_DEVICES % ''})", record="modelname:gpu_slices:count"),
        # The exporter sets dra_claim_name only on a device some ResourceClaim has allocated.
        PromRule(f"count by (modelName) ({_DEVICES % _ALLOCATED})", record="modelname:gpu_slices_allocated:count"),
        PromRule(
            "modelname:gpu_slices:count - (modelname:gpu_slices_allocated:count or modelname:gpu_slices:count * 0)",
            record="modelname:gpu_slices_free:count",
        ),
    ]
    if mig:
        rules.append(PromRule(f"count by (modelName, GPU_I_PROFILE) ({_MIG_SLICES})",
                              record="modelname_profile:gpu_mig_slices:count"))
    return RuleGroup("GpuRecordingRules",
                     "A10 slices: framebuffer use, and slices allocated and free per vGPU profile (aks-dra-vgpu)"
                     + ("; MIG slices per GPU model and profile" if mig else ""), tuple(rules))


AKS_RECORDED_METRICS = frozenset(r.record for g in aks_recording_groups() for r in g.rules if r.record)
"""What AKS's own recording rules record (the package creates them with managed Prometheus): pods to workloads among
them, which the dashboard's right-sizing row joins on."""
GPU_RECORDING = gpu_recording()
"""The recording rules of a stack without MIG pools."""
RECORDED_METRICS = frozenset(r.record for r in gpu_recording(mig=True).rules if r.record)


def gpu_alerts(config: AlertsConfig, *, plugin_scraped: bool, node_label: str, mig: bool = False) -> RuleGroup:
    """The GPU alerts, thresholds and durations from the stack; the plugin alert only where the driver is scraped.
    `node_label` is the exporter image's label for the node (`GpuMetricsConfig.node_label`). With `mig` (MIG pools in
    the stack) the framebuffer alert fires per MIG slice (its rows share the parent's UUID, told apart by GPU_I_ID) and
    names the profile; XID errors stay per GPU (DCGM reports them for the device)."""
    job = f'job="{EXPORTER_JOB}"'
    node = node_label
    per_slice = f", {_SLICE}" if mig else ""
    rules = [
        PromRule(
            f"max by ({node}, UUID, modelName, err_code) (DCGM_FI_DEV_XID_ERRORS{{{job}}}) > 0",
            alert="GpuXidError", for_minutes=config.xid_minutes,
            summary="A GPU reported an XID error (err_code): check the node's driver and the workload on it.",
        ),
        PromRule(
            f"100 * max by ({node}, UUID, modelName{per_slice}, namespace, pod) (DCGM_FI_DEV_FB_USED{{{job}}} / "
            f"(DCGM_FI_DEV_FB_USED{{{job}}} + DCGM_FI_DEV_FB_FREE{{{job}}})) > {config.framebuffer_percent}",
            alert="GpuFramebufferNearFull", for_minutes=config.framebuffer_minutes,
            summary=f"A slice's framebuffer is over {config.framebuffer_percent}% used: the next allocation may fail.",
        ),
        # Pending on a claim: kube-state-metrics' kube_pod_resourceclaim_info (EXPERIMENTAL, from v2.20.0) tells which
        # pods have claims; kube_pod_status_unschedulable (STABLE) which cannot be placed.
        PromRule(
            "max by (namespace, pod) (kube_pod_status_unschedulable) * on (namespace, pod) group_left () "
            "max by (namespace, pod) (kube_pod_resourceclaim_info) > 0",
            alert="DraClaimUnschedulable", for_minutes=config.pending_claim_minutes,
            summary="A pod with a ResourceClaim is unschedulable: no node has a free device that satisfies the claim.",
        ),
        # No metric counts ResourceSlices per node; the API server's object count does for the cluster. Every GPU node
        # (one exporter target each) publishes one slice for gpu.nvidia.com.
        PromRule(
            f'count(max by (node) (up{{{job}}})) > max(apiserver_storage_objects{{resource="resourceslices.resource.k8s.io"}})',
            alert="GpuNodeWithoutResourceSlice", for_minutes=config.missing_slice_minutes,
            summary="Fewer ResourceSlices than GPU nodes: a node's devices are not published, so claims cannot use them.",
        ),
        PromRule(
            f"max by ({node}, UUID, modelName) (DCGM_FI_DEV_VGPU_LICENSE_STATUS{{{job}}}) == 0",
            alert="VgpuLicenceNotAcquired", for_minutes=config.licence_minutes,
            summary="A vGPU has no licence: without one the GRID driver throttles it (see the node's nvidia-gridd log).",
        ),
    ]
    if plugin_scraped:
        rules.insert(2, PromRule(
            f'(up{{job="{PLUGIN_JOB}"}} == 0) or (max by (node) (up{{{job}}} == 1) unless on (node) '
            f'max by (node) (up{{job="{PLUGIN_JOB}"}}))',
            alert="DraKubeletPluginDown", for_minutes=config.plugin_down_minutes,
            summary="The DRA kubelet plugin is down on a GPU node: its devices are not prepared for new pods.",
        ))
    return RuleGroup("GpuAlerts", "Alerts for shared A10 vGPU slices under DRA (aks-dra-vgpu)", tuple(rules))


def iso_minutes(minutes: int) -> str:
    """Azure's duration form (ISO 8601), e.g. PT5M."""
    return f"PT{minutes}M"


def azure_rules(group: RuleGroup, severity: int = 2) -> list[dict[str, Any]]:
    """The group's rules as pulumi-azure-native PrometheusRuleArgs keyword arguments (note `for_`)."""
    out: list[dict[str, Any]] = []
    for rule in group.rules:
        if rule.record:
            labels = {"labels": dict(rule.labels)} if rule.labels else {}
            out.append({"record": rule.record, "expression": rule.expr, **labels})
            continue
        item: dict[str, Any] = {"alert": rule.alert, "expression": rule.expr, "severity": severity,
                                "annotations": {"summary": rule.summary}, "labels": dict(rule.labels) or None}
        if rule.for_minutes:
            item["for_"] = iso_minutes(rule.for_minutes)
        out.append({k: v for k, v in item.items() if v is not None})
    return out


def prometheus_rule(groups: list[RuleGroup], name: str, namespace: str) -> dict[str, Any]:
    """A monitoring.coreos.com/v1 PrometheusRule holding these groups (kube-prometheus-stack)."""
    spec_groups = []
    for group in groups:
        rules = []
        for rule in group.rules:
            if rule.record:
                labels = {"labels": dict(rule.labels)} if rule.labels else {}
                rules.append({"record": rule.record, "expr": rule.expr, **labels})
            else:
                item: dict[str, Any] = {"alert": rule.alert, "expr": rule.expr, "annotations": {"summary": rule.summary}}
                if rule.for_minutes:
                    item["for"] = f"{rule.for_minutes}m"
                rules.append(item)
        spec_groups.append({"name": group.name, "interval": f"{group.interval_minutes}m", "rules": rules})
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"groups": spec_groups},
    }
