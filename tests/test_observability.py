"""Observability: managed Prometheus that collects, GPU metrics, one scrape object per target, the rules and the dashboard."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml

from components.config import ConfigError, stack_config_from_mapping
from components.config.monitoring import AlertsConfig
from components.observability.counters import COUNTERS, counters_for, emitted_metrics
from components.observability.dashboard import QUERYABLE, dashboard, dashboard_json, promql_metrics
from components.observability.rules import (
    AKS_RECORDED_METRICS,
    GPU_RECORDING,
    RECORDED_METRICS,
    aks_recording_groups,
    azure_rules,
    gpu_alerts,
)
from components.offline import capture
from components.offline.plan import Plan
from components.platform import GpuPlatform
from components.policies import check_plan
from components.policies.observability import check_gpu_metrics_in_prod, check_managed_gpu_profile
from components.review.replacement_rules import parse_path
from components.review.rules.azure_monitoring import RULES as MONITORING_RULES
from tests.conftest import ROOT

PROJECT = "aks-dra-vgpu"
SCRAPE_KINDS = ("ServiceMonitor", "PodMonitor")


def _stack(monitoring: dict[str, Any] | None, stack: str = "prod") -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    data = copy.deepcopy(data)
    if monitoring is None:
        data[f"{PROJECT}:cluster"].pop("monitoring", None)
    else:
        data[f"{PROJECT}:cluster"]["monitoring"] = monitoring
    return data


def _run(data: dict[str, Any], preview: bool = True) -> Plan:
    config = stack_config_from_mapping(data)
    return capture(lambda: GpuPlatform("gpu", config), stack="prod", preview=preview)


def _plan(monitoring: dict[str, Any] | None, preview: bool = True) -> Plan:
    return _run(_stack(monitoring), preview)


@pytest.fixture(scope="module")
def prod(shipped_plan) -> Plan:
    return shipped_plan("prod")


def _scrape_objects(plan: Plan) -> list[Any]:
    return [r for r in plan.resources if r.type.startswith("kubernetes:") and r.type.rsplit(":", 1)[-1] in SCRAPE_KINDS]


# --- managed Prometheus ------------------------------------------------------------------------------------------------
def test_prod_plans_workspace_dce_dcr_association_and_rule_groups(prod):
    workspace = prod.one("azure-native:monitor:AzureMonitorWorkspace")
    assert workspace.inputs["location"] == "westeurope"
    dce = prod.one("azure-native:monitor:DataCollectionEndpoint")
    assert (dce.inputs["kind"], dce.inputs["location"]) == ("Linux", "westeurope")
    dcr = prod.one("azure-native:monitor:DataCollectionRule").inputs
    assert dcr["dataSources"]["prometheusForwarder"][0]["streams"] == ["Microsoft-PrometheusMetrics"]
    assert dcr["dataFlows"] == [{"destinations": ["MonitoringAccount1"], "streams": ["Microsoft-PrometheusMetrics"]}]
    assert dcr["destinations"]["monitoringAccounts"][0]["name"] == "MonitoringAccount1"
    dcra = prod.one("azure-native:monitor:DataCollectionRuleAssociation")
    cluster = prod.one("azure-native:containerservice:ManagedCluster")
    assert cluster.urn in dcra.dependencies
    assert cluster.inputs["azureMonitorProfile"]["metrics"]["enabled"] is True
    groups = {r.inputs["ruleGroupName"]: r.inputs for r in prod.all("azure-native:alertsmanagement:PrometheusRuleGroup")}
    assert set(groups) == {f"{g}-aks-dra-prod" for g in (
        "NodeRecordingRulesRuleGroup", "KubernetesRecordingRulesRuleGroup", "GpuRecordingRules", "GpuAlerts")}
    node = groups["NodeRecordingRulesRuleGroup-aks-dra-prod"]
    assert node["interval"] == "PT1M" and node["clusterName"] == "aks-dra-prod" and len(node["rules"]) == 11
    assert len(groups["KubernetesRecordingRulesRuleGroup-aks-dra-prod"]["rules"]) == 19
    alerts = {r["alert"]: r for r in groups["GpuAlerts-aks-dra-prod"]["rules"]}
    assert set(alerts) == {"GpuXidError", "GpuFramebufferNearFull", "DraKubeletPluginDown", "DraClaimUnschedulable",
                           "GpuNodeWithoutResourceSlice", "VgpuLicenceNotAcquired"}
    assert alerts["GpuFramebufferNearFull"]["for"] == "PT10M" and "> 90" in alerts["GpuFramebufferNearFull"]["expression"]


def test_grafana_reads_the_workspace_with_its_role(prod):
    grafana = prod.one("azure-native:dashboard:Grafana").inputs
    assert grafana["identity"] == {"type": "SystemAssigned"}
    role = prod.one("azure-native:authorization:RoleAssignment", "gpu-prometheus-grafana-reader").inputs
    assert role["principalType"] == "ServicePrincipal"
    assert str(role.get("roleDefinitionId", "")).endswith("b0d8363b-8ddd-447d-831f-62ca05bff136") or (
        role.get("roleDefinitionId") == "[unknown]"
    )


def test_an_existing_workspace_is_used_not_created():
    workspace = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-mon/providers/"
                 "Microsoft.Monitor/accounts/amw-shared")
    plan = _plan({"managedPrometheus": True, "workspaceId": workspace, "workspaceLocation": "northeurope"})
    assert not plan.all("azure-native:monitor:AzureMonitorWorkspace")
    dcr = plan.one("azure-native:monitor:DataCollectionRule").inputs
    assert dcr["destinations"]["monitoringAccounts"][0]["accountResourceId"] == workspace
    assert dcr["location"] == "northeurope"


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "update"])
def test_thresholds_and_durations_are_config(preview):
    plan = _plan({"managedPrometheus": True, "gpuMetrics": {"enabled": True},
                  "alerts": {"framebufferPercent": 75, "framebufferMinutes": 3, "xidMinutes": 2}}, preview)
    group = next(r for r in plan.all("azure-native:alertsmanagement:PrometheusRuleGroup")
                 if r.inputs["ruleGroupName"].startswith("GpuAlerts"))
    rules = {r["alert"]: r for r in group.inputs["rules"]}
    assert "> 75" in rules["GpuFramebufferNearFull"]["expression"] and rules["GpuFramebufferNearFull"]["for"] == "PT3M"
    assert rules["GpuXidError"]["for"] == "PT2M"


# --- scrape objects: exactly one per target, of the stack's group -------------------------------------------------------
def test_managed_prometheus_scrapes_through_azmonitoring_only(prod):
    objects = _scrape_objects(prod)
    assert sorted(r.inputs["kind"] for r in objects) == ["PodMonitor", "ServiceMonitor"]
    assert {r.inputs["apiVersion"] for r in objects} == {"azmonitoring.coreos.com/v1"}
    release = next(r for r in prod.all("kubernetes:helm.sh/v3:Release") if r.inputs["chart"] == "dcgm-exporter")
    assert release.inputs["values"]["serviceMonitor"] == {"enabled": False}  # not the chart's own as well


def test_kube_prometheus_stack_gets_monitoring_coreos_objects_and_a_prometheus_rule():
    plan = _plan({"gpuMetrics": {"enabled": True, "serviceMonitor": True}})
    assert not plan.all("azure-native:monitor:DataCollectionRule")
    objects = [r for r in plan.resources if r.type.startswith("kubernetes:monitoring.coreos.com/v1:")]
    assert sorted(r.inputs["kind"] for r in objects) == ["PodMonitor", "PrometheusRule", "ServiceMonitor"]
    assert not [r for r in plan.resources if "azmonitoring" in r.type]


def test_service_monitor_without_the_exporter_scrapes_the_drivers_own_metrics():
    # Neither the exporter nor managed Prometheus: the driver (0.4.x serves metrics) is what a Prometheus of the
    # user's scrapes, so its PodMonitor is created and its metrics turned on, not nothing at all.
    plan = _plan({"gpuMetrics": {"serviceMonitor": True}})
    assert [(r.inputs["apiVersion"], r.inputs["kind"]) for r in _scrape_objects(plan)] == [
        ("monitoring.coreos.com/v1", "PodMonitor")]
    driver = plan.one("kubernetes:helm.sh/v3:Release", "gpu-dra-driver-release")
    assert driver.inputs["values"]["kubeletPlugin"]["metrics"] == {"enabled": True}
    assert not plan.all("kubernetes:monitoring.coreos.com/v1:PrometheusRule")  # the GPU rules read the exporter's


def test_no_prometheus_no_scrape_object_and_the_driver_values_unchanged():
    plan = _plan({"gpuMetrics": {"enabled": True}})
    assert not _scrape_objects(plan)
    driver = plan.one("kubernetes:helm.sh/v3:Release", "gpu-dra-driver-release")
    assert "metrics" not in driver.inputs["values"]["kubeletPlugin"]


def test_driver_metrics_on_where_scraped(prod):
    driver = prod.one("kubernetes:helm.sh/v3:Release", "gpu-dra-driver-release")
    assert driver.inputs["values"]["kubeletPlugin"]["metrics"] == {"enabled": True}
    monitor = next(r for r in _scrape_objects(prod) if r.inputs["kind"] == "PodMonitor").inputs
    assert monitor["spec"]["podMetricsEndpoints"][0]["portNumber"] == 8080
    assert monitor["spec"]["selector"]["matchLabels"]["nvidia-dra-driver-gpu-component"] == "kubelet-plugin"


def test_the_driver_of_25_8_has_no_metrics_and_no_scrape_object():
    data = _stack({"managedPrometheus": True, "gpuMetrics": {"enabled": True}})
    data[f"{PROJECT}:draDriver"]["chartVersion"] = "25.8.1"
    plan = _run(data)
    assert [r.inputs["kind"] for r in _scrape_objects(plan)] == ["ServiceMonitor"]
    alerts = next(r for r in plan.all("azure-native:alertsmanagement:PrometheusRuleGroup")
                  if r.inputs["ruleGroupName"].startswith("GpuAlerts"))
    assert "DraKubeletPluginDown" not in {r["alert"] for r in alerts.inputs["rules"]}


# --- config --------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("monitoring", "message"), [
    ({"managedPrometheus": True, "gpuMetrics": {"serviceMonitor": True}},
     "cluster.monitoring.gpuMetrics.serviceMonitor: is for a Prometheus of your own"),
    ({"grafana": {"enabled": True}}, "cluster.monitoring.grafana.enabled: Managed Grafana reads the managed Prometheus"),
    ({"managedPrometheus": True, "workspaceId": "/subscriptions/x"}, "cluster.monitoring.workspaceId: '/subscriptions/x'"),
    ({"gpuMetrics": {"chartVersion": "4.0.0"}}, "cluster.monitoring.gpuMetrics.chartVersion"),
    ({"alerts": {"framebufferPercent": 101}}, "cluster.monitoring.alerts.framebufferPercent"),
])
def test_bad_monitoring_config_names_the_key(monitoring, message):
    with pytest.raises(ConfigError) as err:
        stack_config_from_mapping(_stack(monitoring))
    assert message in str(err.value)


# --- counters, rules, dashboard --------------------------------------------------------------------------------------------
def test_fractional_pools_never_get_profiling_fields():
    stack = stack_config_from_mapping(_stack(None))
    fields = {c.field for c in counters_for(stack.gpu_pools)}
    assert not [f for f in fields if f.startswith("DCGM_FI_PROF_")]
    whole = [p for p in stack.gpu_pools if p.size.gpu_memory_gib == 24]
    assert {c.field for c in COUNTERS if c.profiling} <= {c.field for c in counters_for(whole)}


def test_every_dashboard_query_reads_only_emitted_or_recorded_metrics():
    board = json.loads((ROOT / "docs/grafana/gpu-dashboard.json").read_text())
    assert board == dashboard() and board["schemaVersion"] >= 36 and board["panels"]
    # what even a fractional-only cluster has, and AKS's own records (pods to workloads, for the right-sizing row)
    always = emitted_metrics(counters_for([])) | RECORDED_METRICS | AKS_RECORDED_METRICS
    for panel in board["panels"]:
        if panel["type"] == "row":  # a row only groups the panels below it
            assert set(panel) >= {"id", "title", "gridPos"} and "targets" not in panel
            continue
        assert {"id", "type", "title", "gridPos", "targets"} <= set(panel)
        for target in panel["targets"]:
            used = promql_metrics(target["expr"])
            assert used and used <= always, (panel["title"], used - always)
    assert (ROOT / "docs/grafana/gpu-dashboard.json").read_text() == dashboard_json()


def test_the_metric_extractor_can_fail():
    assert promql_metrics('sum by (pod) (rate(foo_total{job="x"}[5m])) / bar') == {"foo_total", "bar"}
    assert not promql_metrics("vector(0)")
    assert "up" not in QUERYABLE


def test_recording_rules_feed_only_on_exporter_metrics():
    for rule in GPU_RECORDING.rules:
        assert promql_metrics(rule.expr) <= emitted_metrics() | RECORDED_METRICS, rule.record
    assert [len(g.rules) for g in aks_recording_groups()] == [11, 19]


def test_azure_rules_use_iso_durations_and_severity():
    rules = azure_rules(gpu_alerts(AlertsConfig(licence_minutes=7, severity=1), plugin_scraped=True, node_label="hostname"), 1)
    licence = next(r for r in rules if r["alert"] == "VgpuLicenceNotAcquired")
    assert licence["for_"] == "PT7M" and licence["severity"] == 1
    assert "for_" not in next(r for r in rules if r["alert"] == "GpuXidError")  # 0 minutes: fires at once


# --- policies, diff rules, import cost --------------------------------------------------------------------------------------
def test_managed_gpu_profile_is_refused():
    token = "azure-native:containerservice/v20250702preview:AgentPool"
    assert check_managed_gpu_profile(token, {"gpuProfile": {"nvidia": {"managementMode": "Managed"}}})
    assert not check_managed_gpu_profile(token, {"gpuProfile": {"nvidia": {"managementMode": "Unmanaged"}}})


def test_prod_without_gpu_metrics_is_warned_about(prod):
    assert not check_gpu_metrics_in_prod([(r.urn, r.type, r.inputs) for r in prod.resources], "prod")
    plain = _plan({"managedPrometheus": True})
    found = check_gpu_metrics_in_prod([(r.urn, r.type, r.inputs) for r in plain.resources], "prod")
    assert found and "a10third" in found[0]
    assert [v.policy for v in check_plan(plain) if v.policy == "gpu-metrics-in-prod"] == ["gpu-metrics-in-prod"]


def test_monitoring_diff_rules_name_real_inputs():
    from pulumi_azure_native import alertsmanagement, authorization, monitor
    from pulumi_azure_native import dashboard as grafana

    classes = {"AzureMonitorWorkspace": monitor.AzureMonitorWorkspaceArgs, "DataCollectionEndpoint":
               monitor.DataCollectionEndpointArgs, "DataCollectionRule": monitor.DataCollectionRuleArgs,
               "DataCollectionRuleAssociation": monitor.DataCollectionRuleAssociationArgs,
               "PrometheusRuleGroup": alertsmanagement.PrometheusRuleGroupArgs, "Grafana": grafana.GrafanaArgs,
               "RoleAssignment": authorization.RoleAssignmentArgs}
    for rule in (r for r in MONITORING_RULES if r.path is not None):  # a cascade rule names a dependency, not an input
        args = classes[rule.type.rsplit(":", 1)[-1]]
        head = parse_path(rule.path)[0]
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in head)
        assert hasattr(args, snake), (rule.type, rule.path)


def test_monitoring_off_loads_no_monitoring_sdk(fresh_process):
    # pulumi_azure_native registers every module as a lazy stub; a module really loaded has imported its submodules.
    # `fresh_process` planned dev (monitoring off) in a fresh interpreter, as `python -m components plan` does.
    assert fresh_process["status"] == 0
    assert [m for m in fresh_process["planned"] if m.startswith(('pulumi_azure_native.monitor.',
            'pulumi_azure_native.alertsmanagement.', 'pulumi_azure_native.dashboard.', 'components.observability'))] == []
