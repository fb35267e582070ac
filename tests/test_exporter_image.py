"""The dcgm-exporter image: the default reads resource.k8s.io/v1, images that hang without v1beta1 are refused with the
reason, and every alert, recording rule and dashboard query groups by the node label of the image in use."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
import yaml

from components.catalog import DCGM_EXPORTER_CHARTS, DEFAULT_DCGM_EXPORTER_CHART, dra_refusal, node_label, unchecked_image
from components.catalog.dcgm_exporter import CHECKED_IMAGES
from components.config import ConfigError, stack_config_from_mapping
from components.config.monitoring import AlertsConfig, GpuMetricsConfig
from components.observability.dashboard import dashboard
from components.observability.exporter import GpuMetricsArgs, exporter_values
from components.observability.rules import aks_recording_groups, gpu_alerts, prometheus_rule
from components.offline import capture
from components.platform import GpuPlatform
from tests.conftest import ROOT

NS = "aks-dra-vgpu:"
PROD = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]
RULE_GROUP = "azure-native:alertsmanagement:PrometheusRuleGroup"


def _prod(gpu_metrics: dict[str, Any]) -> dict[str, Any]:
    config = copy.deepcopy(PROD)
    config[NS + "cluster"]["monitoring"]["gpuMetrics"].update(gpu_metrics)
    return config


def _problems(config: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(config)
    return str(caught.value)


# --- the tag decides: one function each --------------------------------------------------------------------------------
@pytest.mark.parametrize(("tag", "label"), [
    ("4.5.3-4.8.2-distroless", "Hostname"),
    ("4.4.2-4.7.1-ubuntu22.04", "Hostname"),
    ("4.6.0-4.8.3-distroless", "hostname"),
    ("4.6.0-4.8.3", "hostname"),
    ("4.6.1-4.8.4-distroless", "hostname"),
    ("5.0.0-5.0.0", "hostname"),
])
def test_node_label_follows_the_exporter_version(tag, label):
    assert node_label(tag) == label


def test_which_tags_are_refused_and_why():
    assert "resource.k8s.io/v1beta1" in dra_refusal("4.5.3-4.8.2-distroless")
    assert "resource.k8s.io/v1beta1" in dra_refusal("4.3.1-4.4.0-ubuntu22.04")  # the first tag with DRA (#535)
    assert "predates DRA attribution" in dra_refusal("4.2.3-4.2.0-ubuntu22.04")
    # "4.2.3-4.3.0" is a branch of NVIDIA/dcgm-exporter, never a tag: the first DRA release is named instead.
    assert dra_refusal("4.2.3-4.2.0-ubuntu22.04").endswith(
        "predates DRA attribution (first released in exporter 4.4.0, tag 4.3.1-4.4.0, NVIDIA/dcgm-exporter #535): "
        "no claim labels")
    assert "not a dcgm-exporter release tag" in dra_refusal("latest")
    assert dra_refusal("4.6.0-4.8.3-distroless") is None and dra_refusal("4.6.1-4.8.4") is None
    with pytest.raises(ValueError, match="not a dcgm-exporter release tag"):
        node_label("latest")


def test_the_default_image_reads_v1():
    assert DEFAULT_DCGM_EXPORTER_CHART == "4.8.3"
    config = GpuMetricsConfig(enabled=True)
    assert config.image == DCGM_EXPORTER_CHARTS["4.8.3"] == "4.6.0-4.8.3-distroless"
    pools = [{"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5"}]
    assert exporter_values(config, GpuMetricsArgs(pools=pools).pools)["image"]["tag"] == "4.6.0-4.8.3-distroless"
    assert dra_refusal(config.image) is None and config.node_label == "hostname"


def test_exporter_4_8_4_is_checked_and_a_newer_one_is_said_to_be_unchecked():
    assert CHECKED_IMAGES[(4, 8, 4)] == "4.6.1-4.8.4-distroless (NVIDIA/dcgm-exporter #745)"
    assert unchecked_image("4.6.1-4.8.4-distroless") is None and unchecked_image("4.6.0-4.8.3") is None
    note = unchecked_image("4.7.0-4.9.0-distroless")
    assert note.startswith("imageTag '4.7.0-4.9.0-distroless' is exporter 4.9.0, newer than any this package has "
                           "checked (4.6.1-4.8.4-distroless (NVIDIA/dcgm-exporter #745))")
    # Chart 4.8.4 is not in reach to render: its image goes with chart 4.8.3.
    assert "4.8.4" not in DCGM_EXPORTER_CHARTS
    config = stack_config_from_mapping(_prod({"imageTag": "4.6.1-4.8.4-distroless"}))
    assert config.cluster.monitoring.gpu_metrics.chart_version == "4.8.3"
    assert config.cluster.monitoring.gpu_metrics.node_label == "hostname"


def test_the_exporter_component_warns_of_an_unchecked_image(monkeypatch):
    import pulumi

    from components.observability.exporter import GpuMetrics

    warned: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, *a, **k: warned.append(message))
    pools = [{"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5"}]

    def program(tag: str) -> None:
        import pulumi_kubernetes as k8s

        provider = k8s.Provider("k8s", kubeconfig="{}")
        GpuMetrics("m", GpuMetricsArgs(image_tag=tag, pools=pools), pulumi.ResourceOptions(provider=provider))

    capture(lambda: program("4.6.1-4.8.4-distroless"), preview=True)
    assert warned == []
    capture(lambda: program("4.7.0-4.9.0-distroless"), preview=True)
    assert len(warned) == 1 and warned[0].startswith("m: imageTag '4.7.0-4.9.0-distroless' is exporter 4.9.0")


# --- refused in the stack, with the key path, the reason and the allowed values ---------------------------------------------
@pytest.mark.parametrize("gpu_metrics", [
    {"imageTag": "4.5.3-4.8.2-distroless"},
    {"chartVersion": "4.8.2"},
    {"imageTag": "nightly"},
])
def test_a_hanging_or_unknown_image_is_refused(gpu_metrics):
    text = _problems(_prod(gpu_metrics))
    assert "cluster.monitoring.gpuMetrics.imageTag:" in text
    assert ("4.6.0-4.8.3-distroless or 4.6.1-4.8.4-distroless, or another release tag of exporter 4.8.3 or newer"
            in text)
    if "nightly" not in str(gpu_metrics):
        assert "resource.k8s.io/v1beta1" in text and "no timeout" in text


def test_chart_4_8_2_with_a_v1_image_is_accepted_and_a_disabled_exporter_is_not_checked():
    config = stack_config_from_mapping(_prod({"chartVersion": "4.8.2", "imageTag": "4.6.0-4.8.3-distroless"}))
    assert config.cluster.monitoring.gpu_metrics.node_label == "hostname"
    off = _prod({"enabled": False, "chartVersion": "4.8.2"})
    assert stack_config_from_mapping(off).cluster.monitoring.gpu_metrics.image == "4.5.3-4.8.2-distroless"


def test_the_component_args_refuse_a_hanging_image_even_when_not_enabled():
    with pytest.raises(ConfigError, match=re.escape("image_tag: '4.5.3-4.8.2-distroless' reads ResourceSlices only")):
        GpuMetricsArgs(image_tag="4.5.3-4.8.2-distroless", pools=[{"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5"}])


# --- every query groups by the image's node label -------------------------------------------------------------------------
def _node_labels_in(expr: str) -> set[str]:
    return set(re.findall(r"\b(Hostname|hostname)\b", expr))


@pytest.mark.parametrize("label", ["hostname", "Hostname"])
def test_alerts_and_dashboard_group_by_the_given_label(label):
    alerts = gpu_alerts(AlertsConfig(), plugin_scraped=True, node_label=label)
    grouped = [r.expr for r in alerts.rules if _node_labels_in(r.expr)]
    assert len(grouped) == 3 and all(_node_labels_in(e) == {label} for e in grouped)
    exprs = [t["expr"] for p in dashboard(node_label=label)["panels"] for t in p.get("targets", [])]  # rows: none
    legends = [t["legendFormat"] for p in dashboard(node_label=label)["panels"] for t in p.get("targets", [])]
    assert {lab for e in exprs + legends for lab in _node_labels_in(e)} == {label}
    assert any("{{" + label + "}}" in legend for legend in legends)


def test_the_plan_and_the_committed_dashboard_use_the_default_images_label(preview):
    plan = capture(lambda: GpuPlatform("gpu", stack_config_from_mapping(PROD)), preview=preview)
    alerts = [r for r in plan.resources if r.type == RULE_GROUP and r.inputs["ruleGroupName"].startswith("GpuAlerts")]
    assert len(alerts) == 1
    exprs = [rule["expression"] for rule in alerts[0].inputs["rules"]]
    assert sum("max by (hostname," in e for e in exprs) == 3
    assert not any("Hostname" in e for e in exprs)
    committed = (ROOT / "docs" / "grafana" / "gpu-dashboard.json").read_text()
    assert "Hostname" not in committed and "hostname" in committed


# --- AKS's recording rules as Microsoft ships them ------------------------------------------------------------------------
def test_workload_type_labels_on_the_four_relabel_rules(preview):
    rules = [r for g in aks_recording_groups() for r in g.rules if r.record == "namespace_workload_pod:kube_pod_owner:relabel"]
    assert [r.labels for r in rules] == [{"workload_type": t} for t in ("deployment", "daemonset", "statefulset", "job")]
    plan = capture(lambda: GpuPlatform("gpu", stack_config_from_mapping(PROD)), preview=preview)
    group = next(r for r in plan.resources
                 if r.type == RULE_GROUP and r.inputs["ruleGroupName"].startswith("KubernetesRecordingRulesRuleGroup"))
    planned = [r.get("labels") for r in group.inputs["rules"] if r["record"] == "namespace_workload_pod:kube_pod_owner:relabel"]
    assert planned == [{"workload_type": t} for t in ("deployment", "daemonset", "statefulset", "job")]
    kube = prometheus_rule(list(aks_recording_groups()), "aks", "monitoring")
    assert sum("labels" in r for g in kube["spec"]["groups"] for r in g["rules"]) == 4
