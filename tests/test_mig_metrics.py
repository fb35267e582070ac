"""The exporter's MIG labels (GPU_I_PROFILE, GPU_I_ID) in the recording rules, the alerts and the dashboard: per slice
where the stack has MIG pools, and A10-only stacks' rules exactly as before."""

from __future__ import annotations

import copy

import yaml

from components.config import stack_config_from_mapping
from components.config.monitoring import AlertsConfig
from components.observability.counters import MIG_LABELS
from components.observability.dashboard import panels
from components.observability.rules import GPU_RECORDING, gpu_alerts, gpu_recording
from components.observability.wiring import gpu_rule_groups
from tests.conftest import ROOT

PROJECT = "aks-dra-vgpu"


def _config(stack: str, monitoring: bool = True):
    data = copy.deepcopy(yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"])
    if monitoring:
        data[f"{PROJECT}:cluster"]["monitoring"] = {"managedPrometheus": True, "gpuMetrics": {"enabled": True}}
    return stack_config_from_mapping(data)


def _exprs(groups) -> str:
    return "\n".join(r.expr for g in groups for r in g.rules)


def test_a10_stacks_get_the_rules_they_always_had():
    groups = gpu_rule_groups(_config("prod", monitoring=False))
    assert groups[0] == GPU_RECORDING == gpu_recording(False)
    assert not any(label in _exprs(groups) for label in MIG_LABELS)
    assert [r.record for r in GPU_RECORDING.rules] == [
        "gpu:framebuffer_used:ratio", "modelname:gpu_slices:count", "modelname:gpu_slices_allocated:count",
        "modelname:gpu_slices_free:count"]


def test_a_stack_with_mig_pools_alerts_per_slice_and_counts_slices_per_profile():
    groups = gpu_rule_groups(_config("mig"))
    recording, alerts = groups
    mig = next(r for r in recording.rules if r.record == "modelname_profile:gpu_mig_slices:count")
    assert mig.expr.startswith("count by (modelName, GPU_I_PROFILE) (count by (modelName, GPU_I_PROFILE, GPU_I_ID, UUID)")
    assert 'GPU_I_PROFILE!=""' in mig.expr
    framebuffer = next(r for r in alerts.rules if r.alert == "GpuFramebufferNearFull")
    assert "max by (hostname, UUID, modelName, GPU_I_PROFILE, GPU_I_ID, namespace, pod)" in framebuffer.expr
    # XID errors are the GPU's: one alert per GPU, not one per slice.
    xid = next(r for r in alerts.rules if r.alert == "GpuXidError")
    assert "GPU_I_ID" not in xid.expr
    a10 = gpu_alerts(AlertsConfig(), plugin_scraped=False, node_label="hostname")
    assert next(r for r in a10.rules if r.alert == "GpuFramebufferNearFull").expr == framebuffer.expr.replace(
        ", GPU_I_PROFILE, GPU_I_ID", "")


def test_the_dashboard_shows_mig_slices_by_profile_and_instance():
    board = {p["title"]: p for p in panels()}
    per_slice = board["Framebuffer used per slice"]["targets"][0]
    assert "GPU_I_PROFILE, GPU_I_ID" in per_slice["expr"] and "{{GPU_I_PROFILE}} {{GPU_I_ID}}" in per_slice["legendFormat"]
    assert board["MIG slices per GPU model and profile"]["targets"][0]["expr"] == "modelname_profile:gpu_mig_slices:count"
    near_full = board["GPU alert conditions now"]["targets"][1]["expr"]
    assert near_full.startswith("count(max by (UUID, GPU_I_ID) (")
    assert "no claim labels" in board["Claims and their slices"]["description"]
