"""Multi-language use: the schema the plugin serves (built through the SDK's own GetSchema), its agreement with the
Python args, and the hosted components being the package's own components (one resource each, in every language).

The plugin started as its own process and called over gRPC is in test_plugin.py.
"""

from __future__ import annotations

import asyncio
import functools
import json
import types
import typing
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pulumi.provider.server import ComponentInitError, ProviderServicer
from pulumi.runtime.proto import provider_pb2
from pydantic import BaseModel

from components import __version__
from components.azure.cluster import AksClusterArgs
from components.azure.gpu_pool import GpuNodePoolArgs
from components.catalog import A10_SIZES, DEFAULT_CHART_VERSION, DRIVER_CHARTS
from components.config import (
    ApiServerConfig,
    AuthConfig,
    AutoscalingConfig,
    DraDriverConfig,
    GpuPoolConfig,
    MonitoringConfig,
    NetworkConfig,
    ResourceGroupConfig,
    SamplesConfig,
    SpotConfig,
    StackConfig,
    SystemPoolConfig,
)
from components.config.monitoring import AlertsConfig, GpuMetricsConfig, GrafanaConfig
from components.config.upgrades import MaintenanceWindowConfig, UpgradesConfig
from components.host import schema as provider_schema
from components.host.server import BUILDERS, ComponentHost
from components.kubernetes.dra_driver import NvidiaDraDriverArgs
from components.kubernetes.dra_samples import DraSamplesArgs
from components.offline import SECRET, Plan, capture
from tests.conftest import ROOT

PACKAGE = "aks-dra-vgpu"
COMPONENT_NAMES = ("AksCluster", "GpuNodePool", "NvidiaDraDriver", "DraSamples", "GpuPlatform")

# Each component's inputs mirror the Python args; each schema type mirrors a config model. Keys left out on purpose:
COMPONENT_ARGS: dict[str, tuple[type[BaseModel], set[str]]] = {
    "AksCluster": (AksClusterArgs, set()),
    "GpuNodePool": (GpuNodePoolArgs, set()),
    "NvidiaDraDriver": (NvidiaDraDriverArgs, set()),
    "DraSamples": (DraSamplesArgs, {"enabled"}),  # GpuPlatform's switch; a DraSamples that is built always creates
    "GpuPlatform": (StackConfig, set()),
}
TYPE_MODELS: dict[str, type[BaseModel]] = {
    "ResourceGroup": ResourceGroupConfig,
    "SystemPool": SystemPoolConfig,
    "ClusterAuth": AuthConfig,
    "ClusterSettings": AksClusterArgs,
    "Autoscaling": AutoscalingConfig,
    "GpuPool": GpuPoolConfig,
    "DraDriverSettings": DraDriverConfig,
    "SamplesSettings": SamplesConfig,
    "Network": NetworkConfig,
    "ApiServer": ApiServerConfig,
    "Upgrades": UpgradesConfig,
    "MaintenanceWindow": MaintenanceWindowConfig,
    "Monitoring": MonitoringConfig,
    "Grafana": GrafanaConfig,
    "GpuMetricsSettings": GpuMetricsConfig,
    "Alerts": AlertsConfig,
    "Spot": SpotConfig,
}


def _allowed(model: type[BaseModel], field: str) -> set[str]:
    """The values a Literal field (or an optional one) of a config model allows."""
    annotation = model.model_fields[field].annotation
    if typing.get_origin(annotation) is not typing.Literal:  # `Literal[...] | None`
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    return set(typing.get_args(annotation))


# Every closed set the schema offers as an enum, and what the Python side allows there.
ENUMS: dict[str, set[str]] = {
    "VmSize": set(A10_SIZES),
    "ChartVersion": set(DRIVER_CHARTS),
    "SkuTier": _allowed(AksClusterArgs, "sku_tier"),
    "AuthMode": _allowed(AuthConfig, "mode"),
    "LoginMode": _allowed(AuthConfig, "login_mode"),
    "OsType": _allowed(GpuPoolConfig, "os_type"),
    "OsSku": _allowed(GpuPoolConfig, "os_sku"),
    "EvictionPolicy": _allowed(SpotConfig, "eviction_policy"),
    "ScaleDownMode": _allowed(GpuPoolConfig, "scale_down_mode"),
    "OsDiskType": _allowed(GpuPoolConfig, "os_disk_type"),
    "UpgradeChannel": _allowed(UpgradesConfig, "channel"),
    "NodeOsChannel": _allowed(UpgradesConfig, "node_os_channel"),
    "WeekDay": _allowed(MaintenanceWindowConfig, "day_of_week"),
    "Fit": _allowed(SamplesConfig, "fit"),
}
# Where a caller passes another resource's value (names, IDs, a namespace): Inputs; every other setting is plain.
TAKES_OUTPUTS = {
    "GpuNodePool": {"clusterName", "resourceGroupName"},
    "NvidiaDraDriver": {"namespace"},
    "DraDriverSettings": {"namespace"},
    "ClusterAuth": {"tenantId", "clientId", "adminGroupObjectIds[]"},
}
SECRETS = {("AksCluster", "kubeconfig"), ("AksCluster", "providerKubeconfig"),
           ("GpuPlatform", "kubeconfig"), ("GpuPlatform", "providerKubeconfig")}


@functools.cache
def hosted() -> ComponentHost:
    """One host for the module, as the plugin process keeps one for all its Constructs (its analysis of the component
    types costs ~0.5 s; Construct keeps no state between calls)."""
    return ComponentHost()


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    """The package schema exactly as `pulumi package add` receives it: the GetSchema RPC of the hosted provider."""
    servicer = ProviderServicer(hosted(), [], "")
    response = asyncio.run(servicer.GetSchema(provider_pb2.GetSchemaRequest(version=0), None))
    return json.loads(response.schema)


def resource(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return schema["resources"][f"{PACKAGE}:index:{name}"]


def test_package_name_and_version(schema):
    assert schema["name"] == PACKAGE
    assert schema["version"] == __version__


@pytest.mark.parametrize("name", COMPONENT_NAMES)
def test_each_component_is_a_described_component_with_typed_inputs_and_outputs(schema, name):
    spec = resource(schema, name)
    assert spec["isComponent"] is True
    assert spec["description"] and "\n" not in spec["description"]
    assert spec["inputProperties"] and spec["properties"]
    for kind in ("inputProperties", "properties"):
        for prop, definition in spec[kind].items():
            assert definition.get("description"), f"{name}.{prop} has no description"
            assert "type" in definition or "$ref" in definition, f"{name}.{prop} has no type"


def test_every_schema_type_is_described_and_typed(schema):
    assert {t.rsplit(":", 1)[-1] for t in schema["types"]} == set(TYPE_MODELS) | set(ENUMS)
    for token, spec in schema["types"].items():
        assert spec.get("description"), token
        if "enum" in spec:
            assert spec["type"] == "string" and all(e.get("description") for e in spec["enum"]), token
            continue
        for prop, definition in spec["properties"].items():
            assert definition.get("description"), f"{token}.{prop}"
            assert "type" in definition or "$ref" in definition, f"{token}.{prop}"


@pytest.mark.parametrize("enum", sorted(ENUMS))
def test_closed_sets_are_enums_with_exactly_what_the_package_allows(schema, enum):
    values = {e["value"] for e in schema["types"][f"{PACKAGE}:index:{enum}"]["enum"]}
    assert values == ENUMS[enum]


def test_vm_sizes_chart_versions_os_skus_and_login_modes_are_enum_typed(schema):
    def ref(spec: dict[str, Any], key: str) -> str:
        return spec[key]["$ref"].rsplit(":", 1)[-1]

    pool_type = schema["types"][f"{PACKAGE}:index:GpuPool"]["properties"]
    pool_inputs = resource(schema, "GpuNodePool")["inputProperties"]
    for spec in (pool_type, pool_inputs):
        assert (ref(spec, "vmSize"), ref(spec, "osSku"), ref(spec, "osType")) == ("VmSize", "OsSku", "OsType")
    assert ref(resource(schema, "NvidiaDraDriver")["inputProperties"], "chartVersion") == "ChartVersion"
    auth = schema["types"][f"{PACKAGE}:index:ClusterAuth"]["properties"]
    assert (ref(auth, "mode"), ref(auth, "loginMode")) == ("AuthMode", "LoginMode")


def test_kubeconfig_outputs_are_secret_and_nothing_else_is(schema):
    found = {(name.rsplit(":", 1)[-1], prop) for name, spec in schema["resources"].items()
             for prop, definition in spec["properties"].items() if definition.get("secret")}
    assert found == SECRETS


def test_outputs_the_callers_need(schema):
    expected = {
        "AksCluster": {"clusterName", "resourceGroupName", "clusterId", "resourceUid", "oidcIssuerUrl", "kubeconfig",
                       "providerKubeconfig"},
        "GpuNodePool": {"poolName", "nodeLabels", "taints", "gpuMemoryGib", "devicesPerNode"},
        "NvidiaDraDriver": {"releaseName", "namespace", "chartVersion", "values"},
        "DraSamples": {"deviceClassName", "claimTemplateNames", "sharedClaimName", "jobName", "namespace"},
        "GpuPlatform": {"clusterName", "resourceGroupName", "clusterId", "resourceUid", "kubeconfig", "providerKubeconfig",
                        "gpuPools", "draDriverRelease", "deviceClassName", "claimTemplateNames", "sharedClaimName",
                        "samplesNamespace"},
    }
    for name, outputs in expected.items():
        assert set(resource(schema, name)["properties"]) == outputs, name
    pool = resource(schema, "GpuNodePool")["properties"]
    assert pool["poolName"]["type"] == "string" and pool["gpuMemoryGib"]["type"] == "integer"
    assert pool["taints"] == {**pool["taints"], "type": "array"} and pool["taints"]["items"]["type"] == "string"


def _inputs_taking_outputs(properties: dict[str, Any]) -> set[str]:
    found = set()
    for prop, definition in properties.items():
        if not definition.get("plain", False):
            found.add(prop)
        items = definition.get("items") or {}
        if items and not items.get("plain", False):
            found.add(f"{prop}[]")
    return found


def test_values_from_other_resources_are_inputs_everything_else_is_plain(schema):
    found = {name: _inputs_taking_outputs(resource(schema, name)["inputProperties"]) for name in COMPONENT_NAMES}
    found |= {t: _inputs_taking_outputs(schema["types"][f"{PACKAGE}:index:{t}"]["properties"]) for t in TYPE_MODELS}
    assert {k: v for k, v in found.items() if v} == TAKES_OUTPUTS


def test_driver_and_samples_take_the_same_pool_type_as_the_platform(schema):
    pool_ref = f"#/types/{PACKAGE}:index:GpuPool"
    for name, key in (("NvidiaDraDriver", "pools"), ("DraSamples", "pools"), ("GpuPlatform", "gpuPools")):
        assert resource(schema, name)["inputProperties"][key]["items"]["$ref"] == pool_ref, name
    # A GpuNodePool takes the same keys as a GpuPool (plus its cluster): the same value serves both.
    pool_keys = set(schema["types"][f"{PACKAGE}:index:GpuPool"]["properties"])
    cluster_keys = {"clusterName", "resourceGroupName", "clusterKubernetesVersion"}
    assert set(resource(schema, "GpuNodePool")["inputProperties"]) == pool_keys | cluster_keys


# --- agreement with the Python args ----------------------------------------------------------------------------------
def _schema_kind(model_annotation: Any) -> str:
    """The schema type a pydantic field's annotation should become: string, integer, boolean, array, object or $ref."""
    args = [a for a in typing.get_args(model_annotation) if a is not type(None)]
    origin = typing.get_origin(model_annotation)
    if origin is typing.Annotated:  # a constrained type (KubernetesVersion): the type it constrains
        return _schema_kind(args[0])
    if origin in (typing.Union, types.UnionType):
        if any(a is pulumi.Output for a in args) or any(typing.get_origin(a) is pulumi.Output for a in args):
            return "string"  # StrInput: a string or a string another resource produces
        return _schema_kind(args[0])
    if origin is typing.Literal:
        return {str: "string", int: "integer", bool: "boolean"}[type(typing.get_args(model_annotation)[0])]
    if origin is list:
        return "array"
    if origin is dict:
        return "object"
    if model_annotation is typing.Any:
        return "$ref"
    if isinstance(model_annotation, type) and issubclass(model_annotation, BaseModel):
        return "$ref"
    return {str: "string", int: "integer", bool: "boolean", float: "number"}[model_annotation]


def _kind(definition: dict[str, Any], types_: dict[str, Any]) -> str:
    """The schema's kind of a property, an enum counting as the type of its values."""
    if "$ref" not in definition:
        return definition["type"]
    target = types_.get(definition["$ref"].removeprefix("#/types/"), {})
    return target["type"] if "enum" in target else "$ref"


def _check_mirror(where: str, properties: dict[str, Any], required: list[str], model: type[BaseModel], left_out: set[str],
                  types_: dict[str, Any] | None = None):
    by_schema_name = {_camel(name): (name, field) for name, field in model.model_fields.items() if name not in left_out}
    missing = sorted(set(by_schema_name) - set(properties))
    extra = sorted(set(properties) - set(by_schema_name))
    assert not missing and not extra, (
        f"{where} and {model.__name__} disagree: add {missing} to / remove {extra} from the TypedDicts in "
        "components/provider_schema.py"
    )
    wanted = sorted(schema_name for schema_name, (_, field) in by_schema_name.items() if field.is_required())
    assert sorted(required) == wanted, f"{where}: required {sorted(required)}, the Python args require {wanted}"
    for schema_name, (_, field) in by_schema_name.items():
        kind = _kind(properties[schema_name], types_ or {})
        assert kind == _schema_kind(field.annotation), f"{where}.{schema_name}: {kind} vs {field.annotation}"


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part.capitalize() for part in rest)


@pytest.mark.parametrize("name", COMPONENT_NAMES)
def test_component_inputs_mirror_the_python_args(schema, name):
    model, left_out = COMPONENT_ARGS[name]
    spec = resource(schema, name)
    _check_mirror(name, spec["inputProperties"], spec.get("requiredInputs", []), model, left_out, schema["types"])


@pytest.mark.parametrize("type_name", sorted(TYPE_MODELS))
def test_schema_types_mirror_the_config_models(schema, type_name):
    spec = schema["types"][f"{PACKAGE}:index:{type_name}"]
    _check_mirror(type_name, spec["properties"], spec.get("required", []), TYPE_MODELS[type_name], set(), schema["types"])


def test_the_mirror_check_can_fail():
    with pytest.raises(AssertionError, match="disagree"):
        _check_mirror("X", {"name": {"type": "string"}}, ["name"], ResourceGroupConfig, set())
    with pytest.raises(AssertionError, match="required"):
        _check_mirror("X", {"name": {"type": "string"}, "create": {"type": "boolean"}}, [], ResourceGroupConfig, set())
    with pytest.raises(AssertionError, match="integer"):
        _check_mirror("X", {"name": {"type": "integer"}, "create": {"type": "boolean"}}, ["name"], ResourceGroupConfig, set())


def test_the_declarations_only_declare():
    with pytest.raises(TypeError, match="only declares the schema"):
        provider_schema.GpuNodePool("x", {"name": "x"})  # type: ignore[typeddict-item]
    assert set(BUILDERS) == set(COMPONENT_NAMES) == {c.__name__ for c in provider_schema.DECLARATIONS}


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
              outputs: dict[str, str] | None = None) -> tuple[Plan, dict]:
    """Runs the host's Construct for one component under the offline engine; returns the plan and the returned state.

    `outputs` names inputs to send as Outputs (value from another resource) instead of plain values.
    """
    host = hosted()
    state: dict[str, Any] = {}

    def program() -> None:
        opts = pulumi.ResourceOptions()
        if kubernetes:
            import pulumi_kubernetes as k8s

            opts = pulumi.ResourceOptions(providers={"kubernetes": k8s.Provider("caller", kubeconfig="{}")})
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

    monkeypatch.setitem(BUILDERS, "GpuNodePool", broken)
    with pytest.raises(ComponentInitError, match="boom"):
        construct("GpuNodePool", POOL_INPUTS, preview=True)


def test_kubernetes_components_refuse_to_run_without_an_explicit_provider():
    inputs = {"pools": [{"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5"}]}
    for name in ("NvidiaDraDriver", "DraSamples"):
        with pytest.raises(pulumi.InputPropertiesError, match="explicit Kubernetes provider"):
            construct(name, inputs, preview=True)


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


def test_gpu_platform_and_aks_cluster_build_the_cluster_and_return_every_declared_output(schema):
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
    assert set(state) == set(resource(schema, "GpuPlatform")["properties"])
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
    # anything else is ignored. The language host runs the folder's __main__.py (see components/plugin.py).
    manifest = yaml.safe_load((ROOT / "PulumiPlugin.yaml").read_text())
    assert set(manifest) <= {"runtime", "packages", "requiredPulumiVersion", "template"}
    assert manifest["runtime"]["name"] == "python"
    assert not (ROOT / "provider").exists()
    source = (ROOT / "__main__.py").read_text()
    assert "if started_as_plugin():\n    serve()" in source
    # The plugin's venv is made from requirements.txt: it must hold what the hosted components import.
    requirements = Path(ROOT / "requirements.txt").read_text()
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
