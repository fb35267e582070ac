"""Multi-language use: the hosted components, constructed the way the engine's Construct call does, are the package's
own components (one resource each, in every language); bad inputs come back as one structured error.

The schema they are served with is in test_provider_schema.py; the plugin as its own process in test_plugin.py.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pulumi
import pytest
import yaml
from pulumi.provider.server import ComponentInitError

from components.catalog import DEFAULT_CHART_VERSION
from components.host.hosted import HOSTED
from components.offline import SECRET, Plan, capture
from tests.conftest import ROOT
from tests.test_provider_schema import PACKAGE, hosted, resource, schema  # noqa: F401 (the schema fixture)

# --- the hosted components, constructed the way the engine's Construct call does --------------------------------------
POOL_INPUTS = {
    "name": "gpu",
    "vmSize": "Standard_NV12ads_A10_v5",
    "autoscaling": {"minCount": 0.0, "maxCount": 3.0},  # numbers arrive as floats over the wire
    "labels": {"team_a": "ml"},
    "taints": ["sku=gpu:NoSchedule"],
    "clusterName": "aks-shared",
    "resourceGroupName": "rg-shared",
}


def construct(type_name: str, inputs: dict[str, Any], *, preview: bool, kubernetes: bool = False,
              outputs: dict[str, str] | None = None, waits: bool = False) -> tuple[Plan, dict]:
    """Runs the host's Construct for one component under the offline engine; returns the plan and the returned state.

    `outputs` names inputs to send as Outputs (value from another resource) instead of plain values; with `waits`, the
    caller's dependsOn holds a Namespace "before" (through the caller's provider).
    """
    host = hosted()
    state: dict[str, Any] = {}

    def program() -> None:
        opts = pulumi.ResourceOptions()
        if kubernetes:
            import pulumi_kubernetes as k8s

            provider = k8s.Provider("caller", kubeconfig="{}")
            before = k8s.core.v1.Namespace("before", opts=pulumi.ResourceOptions(provider=provider)) if waits else None
            opts = pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=before)
        sent = {**inputs, **{k: pulumi.Output.from_input(v) for k, v in (outputs or {}).items()}}
        state.update(host.construct(type_name, f"{PACKAGE}:index:{type_name}", sent, opts).state)

    return capture(program, preview=preview), state


def test_gpu_node_pool_is_one_resource_the_python_component(preview):
    plan, state = construct("GpuNodePool", POOL_INPUTS, preview=preview)
    pool = plan.one("azure-native:containerservice:AgentPool")
    assert pool.inputs["agentPoolName"] == "gpu" and pool.inputs["resourceName"] == "aks-shared"
    assert pool.inputs["minCount"] == 0 and pool.inputs["maxCount"] == 3
    # User map keys are the user's: never camelCased on the way in.
    assert pool.inputs["nodeLabels"] == {"team_a": "ml", "nvidia.com/gpu.present": "true"}
    assert pool.options["ignoreChanges"] == ["count"]
    (component,) = plan.all("aks-dra-vgpu:index:GpuNodePool")  # no wrapper of the same type around it
    assert component.parent is None and pool.parent == component.urn
    assert state["gpuMemoryGib"] == 8 and state["taints"] == ["sku=gpu:NoSchedule"]
    assert state["nodeLabels"]["nvidia.com/gpu.present"] == "true"


def test_names_may_come_from_other_resources(preview):
    inputs = {k: v for k, v in POOL_INPUTS.items() if k not in ("clusterName", "resourceGroupName")}
    plan, _ = construct("GpuNodePool", inputs, preview=preview,
                        outputs={"clusterName": "aks-from-elsewhere", "resourceGroupName": "rg-from-elsewhere"})
    pool = plan.one("azure-native:containerservice:AgentPool").inputs
    assert (pool["resourceName"], pool["resourceGroupName"]) == ("aks-from-elsewhere", "rg-from-elsewhere")


def test_bad_inputs_are_refused_at_once_with_their_schema_paths_before_anything_is_registered():
    bad = {**POOL_INPUTS, "vmSize": "Standard_NC6s_v3", "autoscaling": {"minCount": 3.0, "maxCount": 2.0}, "maxPods": 5.0,
           "taints": ["sku=gpu:NoSchedule", "sku=gpu"], "osSku": "Windows"}
    host, caught = hosted(), []

    def program() -> None:
        try:
            host.construct("gpu", f"{PACKAGE}:index:GpuNodePool", bad, None)
        except pulumi.InputPropertiesError as exc:  # not wrapped: the server sends it to the engine as it is
            caught.append(exc)

    plan = capture(program, preview=True)
    assert plan.resources == [] and len(caught) == 1
    error = caught[0]
    paths = {e["property_path"] for e in error.errors or []}
    assert paths == {"vmSize", "autoscaling.minCount", "maxPods", "taints[1]", "osSku"}
    for path in paths:  # callers that show only the message still see every problem
        assert f"  {path}: " in error.message
    # A value outside an enum reaches the package's own check: allowed values named, not just "invalid value".
    assert "choose one of Standard_NV6ads_A10_v5" in next(e["reason"] for e in error.errors if e["property_path"] == "vmSize")
    assert "'Ubuntu' or 'AzureLinux'" in next(e["reason"] for e in error.errors if e["property_path"] == "osSku")


def test_an_error_in_a_component_is_reported_with_its_stack_not_swallowed(monkeypatch):
    def broken(*_: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setitem(HOSTED, "GpuNodePool", dataclasses.replace(HOSTED["GpuNodePool"], component=broken))
    with pytest.raises(ComponentInitError, match="boom"):
        construct("GpuNodePool", POOL_INPUTS, preview=True)


def test_kubernetes_components_refuse_to_run_without_an_explicit_provider():
    inputs = {"pools": [{"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5"}]}
    for name, more in (("NvidiaDraDriver", {}), ("DraSamples", {}), ("ExtendedResources", {"kubernetesVersion": "1.36"})):
        with pytest.raises(pulumi.InputPropertiesError, match="explicit Kubernetes provider"):
            construct(name, {**inputs, **more}, preview=True)


def test_driver_and_samples_use_the_callers_provider_and_namespace():
    # One engine mode is enough here: both modes of the delegated components are covered by their own modules.
    preview = False
    inputs = {"pools": [{"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5", "taints": ["sku=gpu:NoSchedule"]}]}
    plan, state = construct("NvidiaDraDriver", inputs, preview=preview, kubernetes=True, outputs={"namespace": "gpu-ops"})
    caller = plan.one("pulumi:providers:kubernetes", "caller")
    release = plan.one("kubernetes:helm.sh/v3:Release")
    assert release.provider.startswith(caller.urn + "::")
    assert release.inputs["namespace"] == "gpu-ops"
    assert len(plan.all("aks-dra-vgpu:index:NvidiaDraDriver")) == 1
    assert state["chartVersion"] == DEFAULT_CHART_VERSION
    assert {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"} in (
        state["values"]["kubeletPlugin"]["tolerations"]
    )

    plan, state = construct("DraSamples", {**inputs, "workload": False}, preview=preview, kubernetes=True)
    objects = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert {r.type.rsplit(":", 1)[-1] for r in objects} == {"Namespace", "DeviceClass", "ResourceClaimTemplate",
                                                             "ResourceClaim"}
    caller = plan.one("pulumi:providers:kubernetes", "caller")
    assert all(r.provider.startswith(caller.urn + "::") for r in objects)
    assert len(plan.all("aks-dra-vgpu:index:DraSamples")) == 1


CLUSTER = {"name": "aks-x", "location": "westeurope", "resourceGroup": {"name": "rg-x"}, "kubernetesVersion": "1.34"}


def test_gpu_platform_and_aks_cluster_build_the_cluster_and_return_every_declared_output(schema):  # noqa: F811
    preview = False
    plan, state = construct("AksCluster", CLUSTER, preview=preview)
    assert plan.one("azure-native:containerservice:ManagedCluster").inputs["kubernetesVersion"] == "1.34"
    assert set(state) == set(resource(schema, "AksCluster")["properties"])

    platform = {"cluster": CLUSTER, "gpuPools": [{"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5", "count": 1.0}]}
    plan, state = construct("GpuPlatform", platform, preview=preview)
    for token in ("aks-dra-vgpu:index:GpuPlatform", "aks-dra-vgpu:index:AksCluster", "aks-dra-vgpu:index:GpuNodePool",
                  "azure-native:containerservice:ManagedCluster", "kubernetes:helm.sh/v3:Release"):
        assert len(plan.all(token)) == 1, token
    assert plan.one("azure-native:containerservice:AgentPool").inputs["vmSize"] == "Standard_NV6ads_A10_v5"
    # Every declared output but the monitoring ones (this platform has monitoring off: those stay unregistered).
    # No fleetMembership either: no FleetMember and no fleetMemberName; no extendedResources: no class map.
    monitoring = {"monitorWorkspaceId", "prometheusQueryEndpoint", "gpuMetricsRelease", "grafanaEndpoint",
                  "fleetMemberName", "extendedResourceClasses"}
    assert set(state) == set(resource(schema, "GpuPlatform")["properties"]) - monitoring
    assert len(state["gpuPools"]) == 1


def test_entra_id_ids_may_come_from_other_resources():
    tenant, client = "11111111-2222-3333-4444-555555555555", "66666666-7777-8888-9999-000000000000"
    host = hosted()

    def program() -> None:
        auth = {"mode": "entraId", "loginMode": "spn",
                "tenantId": pulumi.Output.from_input(tenant), "clientId": pulumi.Output.from_input(client)}
        state = host.construct("x", f"{PACKAGE}:index:AksCluster", {**CLUSTER, "auth": auth}, None).state
        pulumi.export("secret", state["providerKubeconfig"])
        pulumi.export("text", pulumi.Output.unsecret(state["providerKubeconfig"]))

    outputs = capture(program, preview=False).outputs
    assert outputs["secret"] == SECRET
    exec_args = yaml.safe_load(outputs["text"])["users"][0]["user"]["exec"]["args"]
    assert exec_args[exec_args.index("--tenant-id") + 1] == tenant
    assert exec_args[exec_args.index("--client-id") + 1] == client
    assert exec_args[exec_args.index("--login") + 1] == "spn"


# --- the plugin manifest -----------------------------------------------------------------------------------------------
def test_plugin_manifest_has_only_what_pulumi_reads_and_no_main():
    # PluginProject: runtime, packages, requiredPulumiVersion, template (pulumi/pulumi sdk/go/common/workspace/project.go);
    # anything else is ignored. The language host runs the folder's __main__.py (see components/host/plugin.py).
    manifest = yaml.safe_load((ROOT / "PulumiPlugin.yaml").read_text())
    assert set(manifest) <= {"runtime", "packages", "requiredPulumiVersion", "template"}
    assert manifest["runtime"]["name"] == "python"
    assert not (ROOT / "provider").exists()
    source = (ROOT / "__main__.py").read_text()
    assert "if started_as_plugin():\n    serve()" in source
    # The plugin's venv is made from requirements.txt: it must hold what the hosted components import.
    requirements = (ROOT / "requirements.txt").read_text()
    for dependency in ("pulumi", "pulumi-azure-native", "pulumi-kubernetes", "pydantic", "PyYAML"):
        assert dependency in requirements, dependency


def test_the_newer_settings_reach_azure_through_the_host():
    # Nested settings types (spot, upgrades with its window, API server, monitoring) are renamed and validated like
    # the stack file's.
    preview = False
    pool = {**POOL_INPUTS, "spot": {"evictionPolicy": "Deallocate", "maxPrice": 0.5}, "tags": {"team": "ml"},
            "kubernetesVersion": "1.34", "clusterKubernetesVersion": "1.35", "osDiskType": "Managed"}
    plan, _ = construct("GpuNodePool", pool, preview=preview)
    agent_pool = plan.one("azure-native:containerservice:AgentPool").inputs
    assert (agent_pool["scaleSetPriority"], agent_pool["scaleSetEvictionPolicy"], agent_pool["spotMaxPrice"]) == (
        "Spot", "Deallocate", 0.5)
    assert agent_pool["orchestratorVersion"] == "1.34" and agent_pool["tags"] == {"team": "ml"}
    assert agent_pool["osDiskType"] == "Managed"

    cluster = {**CLUSTER, "upgrades": {"channel": "patch", "maintenanceWindow": {"dayOfWeek": "Sunday",
                                                                                 "startTime": "02:00"}},
               "apiServer": {"authorizedIpRanges": ["203.0.113.0/24"]}, "monitoring": {"managedPrometheus": True}}
    plan, _ = construct("AksCluster", cluster, preview=preview)
    managed = plan.one("azure-native:containerservice:ManagedCluster").inputs
    assert managed["autoUpgradeProfile"]["upgradeChannel"] == "patch"
    assert managed["apiServerAccessProfile"]["authorizedIPRanges"] == ["203.0.113.0/24"]
    windows = plan.all("azure-native:containerservice:MaintenanceConfiguration")  # the channel's and the node OS's
    assert {w.inputs["configName"] for w in windows} == {"aksManagedAutoUpgradeSchedule", "aksManagedNodeOSUpgradeSchedule"}
    assert {w.inputs["maintenanceWindow"]["schedule"]["weekly"]["dayOfWeek"] for w in windows} == {"Sunday"}


def test_a_wrong_nested_setting_names_its_schema_path():
    pool = {**POOL_INPUTS, "spot": {"evictionPolicy": "Stop"}}
    with pytest.raises(pulumi.InputPropertiesError) as caught:
        construct("GpuNodePool", pool, preview=True)
    assert "spot.evictionPolicy" in str(caught.value) and "Deallocate" in str(caught.value)


def test_claim_templates_are_served_too_in_a_namespace_from_another_resource():
    plan, state = construct("DraClaimTemplates", {"sizes": [4.0, 8.0], "sharedClaim": True}, preview=False,
                            kubernetes=True, outputs={"namespace": "team-a"})
    templates = plan.all("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert {t.inputs["metadata"]["namespace"] for t in templates} == {"team-a"} and len(templates) == 2
    assert set(state) == {"claimTemplateNames", "sharedClaimName", "deviceClassName", "namespace"}
    assert len(plan.all("aks-dra-vgpu:index:DraClaimTemplates")) == 1


EXTENDED = {"pools": [{"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5"}, {"name": "big", "vmSize": "Standard_NV36ads_A10_v5"}],
            "kubernetesVersion": "1.36", "nvidiaGpu": "8GiB"}


def test_extended_resources_are_served_with_the_callers_provider_release_and_dependencies():
    plan, state = construct("ExtendedResources", EXTENDED, preview=False, kubernetes=True, waits=True,
                            outputs={"driverRelease": "gpu-ops/nvidia-dra-driver-gpu"})
    caller, before = plan.one("pulumi:providers:kubernetes", "caller"), plan.one("kubernetes:core/v1:Namespace")
    classes = plan.all("kubernetes:resource.k8s.io/v1:DeviceClass")
    assert {c.inputs["spec"]["extendedResourceName"]: c.inputs["metadata"]["name"] for c in classes} == {
        "aks-dra-vgpu.io/a10-8gib": "aks-dra-vgpu-a10-8gib", "aks-dra-vgpu.io/a10-24gib": "aks-dra-vgpu-a10-24gib",
        "nvidia.com/gpu": "aks-dra-vgpu-nvidia-gpu"}
    assert set(state) == {"deviceClasses"}
    assert set(state["deviceClasses"]) == {"aks-dra-vgpu.io/a10-8gib", "aks-dra-vgpu.io/a10-24gib", "nvidia.com/gpu"}
    assert all(c.provider.startswith(caller.urn + "::") and before.urn in c.dependencies for c in classes)
    ours = next(c for c in classes if c.inputs["metadata"]["name"] == "aks-dra-vgpu-nvidia-gpu")
    assert ours.inputs["metadata"]["annotations"] == {"aks-dra-vgpu.io/driver-release": "gpu-ops/nvidia-dra-driver-gpu"}
    # The release's identity replaces the class (delete first: its name is fixed); nothing else of the annotations does.
    assert (ours.options["replaceOnChanges"], ours.options["deleteBeforeReplace"]) == (
        ['metadata.annotations["aks-dra-vgpu.io/driver-release"]'], True)
    assert len(plan.all("aks-dra-vgpu:index:ExtendedResources")) == 1


def test_extended_resources_bad_inputs_come_back_at_once_each_at_its_property():
    bad = {**EXTENDED, "kubernetesVersion": "1.35", "nvidiaGpu": "12GiB", "domain": "nvidia.com"}
    with pytest.raises(pulumi.InputPropertiesError) as caught:
        construct("ExtendedResources", bad, preview=True, kubernetes=True)
    reasons = {e["property_path"]: e["reason"] for e in caught.value.errors or []}
    assert set(reasons) == {"domain", "kubernetesVersion", "nvidiaGpu", "driverRelease"}
    assert reasons["nvidiaGpu"] == "'12GiB' is no slice the pools offer; choose one of 8GiB, 24GiB, none, any"
    assert reasons["kubernetesVersion"].startswith("needs Kubernetes 1.36 or newer (kubernetesVersion is '1.35')")
    assert reasons["driverRelease"].startswith("required with nvidiaGpu '12GiB': the class aks-dra-vgpu-nvidia-gpu must")
    assert str(caught.value).startswith("invalid ExtendedResources inputs:\n")


@pytest.mark.parametrize(("name", "inputs", "path"), [
    ("GpuPlatform", {"cluster": CLUSTER, "gpuPools": [{"name": "gpu", "vmSize": "Standard_NC6"}]}, "gpuPools[0].vmSize"),
    ("AksCluster", {**CLUSTER, "auth": {"mode": "entraId", "loginMode": "devicecode"}}, "auth.loginMode"),
    ("DraClaimTemplates", {"sizes": [5.0], "namespace": "Team A"}, "namespace"),
    ("DraSamples", {"pools": [{**POOL_INPUTS, "vmSiz": "x"}]}, "pools[0].vmSiz"),
])
def test_every_components_bad_inputs_name_their_schema_path(name, inputs, path):
    with pytest.raises(pulumi.InputPropertiesError) as caught:
        construct(name, inputs, preview=True, kubernetes=True)
    assert path in {e["property_path"] for e in caught.value.errors or []}


def test_gpu_fleet_is_served_to_other_languages(preview):
    fleet = {"name": "fleet-a", "resourceGroupName": "rg-fleet", "location": "westeurope",
             "updateStrategy": {"name": "staged", "stages": [{"name": "canary", "groups": ["canary"],
                                                              "afterStageWaitInSeconds": 3600.0}]},
             "autoUpgrade": {"channel": "NodeImage"}}
    plan, state = construct("GpuFleet", fleet, preview=preview)
    strategy = plan.one("azure-native:containerservice:FleetUpdateStrategy")
    assert strategy.inputs["strategy"]["stages"][0]["afterStageWaitInSeconds"] == 3600
    assert plan.one("azure-native:containerservice:AutoUpgradeProfile").inputs["channel"] == "NodeImage"
    assert set(state) == {"fleetId", "fleetName", "fleetResourceGroupName", "updateStrategyId", "updateStrategyName",
                          "autoUpgradeProfileName"}


def test_a_platforms_driver_namespace_from_another_resource_reaches_the_nvidia_gpu_class_as_its_value():
    host = hosted()
    platform = {"cluster": {**CLUSTER, "kubernetesVersion": "1.36"},
                "gpuPools": [{"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5", "count": 1.0}],
                "extendedResources": {"nvidiaGpu": "8GiB"}}

    def program() -> None:
        inputs = {**platform, "draDriver": {"namespace": pulumi.Output.from_input("gpu-ops")}}
        host.construct("gpu", f"{PACKAGE}:index:GpuPlatform", inputs, None)

    plan = capture(program, preview=False)
    ours = next(c for c in plan.all("kubernetes:resource.k8s.io/v1:DeviceClass")
                if c.inputs["metadata"]["name"] == "aks-dra-vgpu-nvidia-gpu")
    annotations = ours.inputs["metadata"]["annotations"]
    assert annotations["aks-dra-vgpu.io/driver-release"] == "gpu-ops/nvidia-dra-driver-gpu"
    # and the driver's revision, so that each apply of the release updates the class after it
    assert set(annotations) == {"aks-dra-vgpu.io/driver-release", "aks-dra-vgpu.io/driver-revision"}
    assert annotations["aks-dra-vgpu.io/driver-revision"].startswith("0.4.1/")
