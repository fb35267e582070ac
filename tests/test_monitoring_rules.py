"""Monitoring settings that Helm, Kubernetes or Azure would refuse at `pulumi up`, or that would do nothing: refused by
plan, each with its key and the reason."""

from __future__ import annotations

import copy

import pytest

from components.config import ConfigError, stack_config_from_mapping
from tests.conftest import MINIMAL_STACK, as_config


def problems(monitoring: dict, **sections: object) -> list[str]:
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["monitoring"] = monitoring
    data.update(sections)
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in caught.value.problems]


def accepted(monitoring: dict, **sections: object) -> None:
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["monitoring"] = monitoring
    data.update(sections)
    stack_config_from_mapping(as_config(data))


@pytest.mark.parametrize(("settings", "expected"), [
    ({"cpuRequest": "300m"}, "cluster.monitoring.gpuMetrics.cpuRequest: '300m' is above cpuLimit '200m'; Kubernetes "
     "refuses a request above its limit: lower it, or raise cpuLimit"),
    ({"cpuRequest": "1", "cpuLimit": "900m"}, "cluster.monitoring.gpuMetrics.cpuRequest: '1' is above cpuLimit '900m'"),
    ({"memoryRequest": "1Gi", "memoryLimit": "512Mi"}, "cluster.monitoring.gpuMetrics.memoryRequest: '1Gi' is above "
     "memoryLimit '512Mi'"),
])
def test_exporter_requests_above_their_limits_are_refused(settings, expected):
    (line,) = problems({"gpuMetrics": {"enabled": True, **settings}})
    assert line.startswith(expected), line


def test_equal_requests_and_limits_pass():
    accepted({"gpuMetrics": {"enabled": True, "cpuRequest": "1", "cpuLimit": "1000m", "memoryRequest": "1Gi",
                             "memoryLimit": "1024Mi"}})


def test_an_exporter_release_name_over_helms_53_characters_is_refused_by_the_drivers_rule():
    (line,) = problems({"gpuMetrics": {"releaseName": "a" * 54}})
    assert line == (f"cluster.monitoring.gpuMetrics.releaseName: '{'a' * 54}' is not a Helm release name; use a DNS "
                    "label of at most 53 characters")
    accepted({"gpuMetrics": {"releaseName": "a" * 53}})


def test_the_exporter_with_the_drivers_release_name_in_the_drivers_namespace_is_refused():
    (line,) = problems({"gpuMetrics": {"enabled": True, "namespace": "gpu", "releaseName": "dra"}},
                       draDriver={"namespace": "gpu", "releaseName": "dra"})
    assert line == ("cluster.monitoring.gpuMetrics.releaseName: 'dra' is the driver's release in the same namespace "
                    "'gpu' (draDriver.releaseName, draDriver.namespace); Helm release names are unique in a namespace: "
                    "choose another")
    accepted({"gpuMetrics": {"enabled": True, "namespace": "gpu", "releaseName": "dra"}},
             draDriver={"namespace": "other", "releaseName": "dra"})


def test_the_exporter_in_the_samples_restricted_namespace_is_refused():
    (line,) = problems({"gpuMetrics": {"enabled": True, "namespace": "dra-demo"}},
                       samples={"namespace": "dra-demo"})
    assert line.startswith("cluster.monitoring.gpuMetrics.namespace: 'dra-demo' is the samples' namespace "
                           "(samples.namespace), whose restricted pod security"), line
    accepted({"gpuMetrics": {"enabled": True, "namespace": "dra-demo"}},
             samples={"namespace": "dra-demo", "enabled": False})


def test_names_derived_from_a_cluster_name_are_checked_as_written_names_are():
    data_cluster = {**MINIMAL_STACK["cluster"], "name": "gpu_cluster", "dnsPrefix": "gpu"}
    found = problems({"managedPrometheus": True, "grafana": {"enabled": True}}, cluster={
        **data_cluster, "monitoring": {"managedPrometheus": True, "grafana": {"enabled": True}}})
    assert found == [
        "cluster.monitoring.workspaceId: unset, so the Azure Monitor workspace is created with a name derived from "
        "cluster.name, 'amw-gpu_cluster', which is not a workspace name (4-44 letters, digits and '-', not starting or "
        "ending with '-'); name an existing workspace here, or choose a cluster name of letters, digits and '-'",
        "cluster.monitoring.grafana.name: the default, derived from cluster.name, is 'amg-gpu_cluster', which is not a "
        "Managed Grafana name (2-23 letters, digits and '-', starting with a letter and not ending with '-'); set "
        "monitoring.grafana.name",
    ]


def test_a_named_grafana_and_an_existing_workspace_need_no_derived_name():
    workspace = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Monitor/"
                 "accounts/amw")
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"].update(name="gpu_cluster", dnsPrefix="gpu", monitoring={
        "managedPrometheus": True, "workspaceId": workspace, "grafana": {"enabled": True, "name": "amg-gpu"}})
    stack_config_from_mapping(as_config(data))


def test_a_service_monitor_with_nothing_to_scrape_is_refused():
    (line,) = problems({"gpuMetrics": {"serviceMonitor": True}}, draDriver={"chartVersion": "25.8.1"})
    assert line == ("cluster.monitoring.gpuMetrics.serviceMonitor: asks for scrape objects, but nothing here serves "
                    "metrics to scrape: gpuMetrics.enabled is false and the driver chart 25.8.1 serves none (0.4.x "
                    "does); set gpuMetrics.enabled: true, or remove it")
    accepted({"gpuMetrics": {"serviceMonitor": True}})  # the 0.4.x driver's metrics are scraped


def test_an_alert_threshold_that_can_never_fire_is_refused():
    (line,) = problems({"alerts": {"framebufferPercent": 100}})
    assert line == "cluster.monitoring.alerts.framebufferPercent: must be a whole number from 1 to 99 (got 100)"


def test_a_wrong_exporter_chart_version_is_told_in_the_packages_words():
    (line,) = problems({"gpuMetrics": {"chartVersion": "4.8.1"}})
    assert line == ("cluster.monitoring.gpuMetrics.chartVersion: '4.8.1' is not a dcgm-exporter chart version this "
                    "package has checked (values, templates, RBAC); choose one of 4.8.2, 4.8.3")
