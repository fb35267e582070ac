"""Multi-language use: the schema the plugin serves (built offline through the SDK's own GetSchema), its agreement with
the Python args, and the hosted components delegating to the Python ones."""

from __future__ import annotations

import asyncio
import json
import types
import typing
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError, ProviderServicer
from pulumi.runtime.proto import provider_pb2
from pydantic import BaseModel

from components import __version__, provider_host
from components.cluster import AksClusterArgs
from components.config import (
    ApiServerConfig,
    AuthConfig,
    AutoscalingConfig,
    DraDriverConfig,
    GpuPoolConfig,
    MaintenanceWindowConfig,
    MonitoringConfig,
    NetworkConfig,
    ResourceGroupConfig,
    SamplesConfig,
    SpotConfig,
    StackConfig,
    SystemPoolConfig,
    UpgradesConfig,
)
from components.dra_driver import NvidiaDraDriverArgs
from components.dra_samples import DraSamplesArgs
from components.gpu_pool import GpuNodePoolArgs
from components.offline import Plan, capture
from tests.conftest import ROOT

PACKAGE = "aks-dra-vgpu"
COMPONENT_NAMES = ("AksCluster", "GpuNodePool", "NvidiaDraDriver", "DraSamples", "GpuPlatform")

# Each component's inputs mirror the Python args; each schema type mirrors a config model. Keys left out on purpose:
COMPONENT_ARGS: dict[str, tuple[type[BaseModel], set[str]]] = {
    "AksCluster": (AksClusterArgs, set()),
    "GpuNodePool": (GpuNodePoolArgs, set()),
    "NvidiaDraDriver": (NvidiaDraDriverArgs, {"enabled"}),  # GpuPlatform's switch, like the samples'
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
    "ClusterNetwork": NetworkConfig,
    "ApiServer": ApiServerConfig,
    "MaintenanceWindow": MaintenanceWindowConfig,
    "Upgrades": UpgradesConfig,
    "Monitoring": MonitoringConfig,
    "Spot": SpotConfig,
}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    """The package schema exactly as `pulumi package add` receives it: the GetSchema RPC of the hosted provider."""
    provider = ComponentProvider(provider_host.COMPONENTS, PACKAGE, version=__version__)
    servicer = ProviderServicer(provider, [], "")
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
    assert {t.rsplit(":", 1)[-1] for t in schema["types"]} == set(TYPE_MODELS)
    for token, spec in schema["types"].items():
        assert spec.get("description"), token
        for prop, definition in spec["properties"].items():
            assert definition.get("description"), f"{token}.{prop}"
            assert "type" in definition or "$ref" in definition, f"{token}.{prop}"


def test_outputs_the_callers_need(schema):
    expected = {
        "AksCluster": {"clusterName", "resourceGroupName", "clusterId", "oidcIssuerUrl", "kubeconfig", "providerKubeconfig"},
        "GpuNodePool": {"poolName", "nodeLabels", "taints", "gpuMemoryGib", "devicesPerNode"},
        "NvidiaDraDriver": {"releaseName", "namespace", "chartVersion", "values"},
        "DraSamples": {"deviceClassName", "claimTemplateNames", "sharedClaimName", "jobName", "namespace"},
        "GpuPlatform": {"clusterName", "resourceGroupName", "kubeconfig", "gpuPools", "draDriverRelease",
                        "deviceClassName", "claimTemplateNames"},
    }
    for name, outputs in expected.items():
        assert set(resource(schema, name)["properties"]) == outputs, name
    pool = resource(schema, "GpuNodePool")["properties"]
    assert pool["poolName"]["type"] == "string" and pool["gpuMemoryGib"]["type"] == "integer"
    assert pool["taints"] == {**pool["taints"], "type": "array"} and pool["taints"]["items"]["type"] == "string"


def test_only_values_from_other_resources_are_inputs_everything_else_is_plain(schema):
    for name in COMPONENT_NAMES:
        for prop, definition in resource(schema, name)["inputProperties"].items():
            takes_outputs = name == "GpuNodePool" and prop in {"clusterName", "resourceGroupName"}
            assert definition.get("plain", False) is not takes_outputs, f"{name}.{prop}"


# --- agreement with the Python args ----------------------------------------------------------------------------------
def _schema_kind(model_annotation: Any) -> str:
    """The schema type a pydantic field's annotation should become: string, integer, boolean, array, object or $ref."""
    args = [a for a in typing.get_args(model_annotation) if a is not type(None)]
    origin = typing.get_origin(model_annotation)
    if origin in (typing.Union, types.UnionType):
        if any(a is pulumi.Output for a in args) or any(typing.get_origin(a) is pulumi.Output for a in args):
            return "string"  # StrInput: a string or a string another resource produces
        return _schema_kind(args[0])
    if origin is typing.Literal:
        return {str: "string", int: "integer", bool: "boolean"}[type(typing.get_args(model_annotation)[0])]
    if origin is typing.Annotated:
        return _schema_kind(typing.get_args(model_annotation)[0])
    if origin is list:
        return "array"
    if origin is dict:
        return "object"
    if model_annotation is typing.Any:
        return "$ref"
    if isinstance(model_annotation, type) and issubclass(model_annotation, BaseModel):
        return "$ref"
    return {str: "string", int: "integer", bool: "boolean", float: "number"}[model_annotation]


def _check_mirror(where: str, properties: dict[str, Any], required: list[str], model: type[BaseModel], left_out: set[str]):
    by_schema_name = {_camel(name): (name, field) for name, field in model.model_fields.items() if name not in left_out}
    missing = sorted(set(by_schema_name) - set(properties))
    extra = sorted(set(properties) - set(by_schema_name))
    assert not missing and not extra, (
        f"{where} and {model.__name__} disagree: add {missing} to / remove {extra} from the TypedDicts in "
        "components/provider_host.py"
    )
    wanted = sorted(schema_name for schema_name, (_, field) in by_schema_name.items() if field.is_required())
    assert sorted(required) == wanted, f"{where}: required {sorted(required)}, the Python args require {wanted}"
    for schema_name, (_, field) in by_schema_name.items():
        definition = properties[schema_name]
        kind = "$ref" if "$ref" in definition else definition["type"]
        assert kind == _schema_kind(field.annotation), f"{where}.{schema_name}: {kind} vs {field.annotation}"


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part.capitalize() for part in rest)


@pytest.mark.parametrize("name", COMPONENT_NAMES)
def test_component_inputs_mirror_the_python_args(schema, name):
    model, left_out = COMPONENT_ARGS[name]
    spec = resource(schema, name)
    _check_mirror(name, spec["inputProperties"], spec.get("requiredInputs", []), model, left_out)


@pytest.mark.parametrize("type_name", sorted(TYPE_MODELS))
def test_schema_types_mirror_the_config_models(schema, type_name):
    spec = schema["types"][f"{PACKAGE}:index:{type_name}"]
    _check_mirror(type_name, spec["properties"], spec.get("required", []), TYPE_MODELS[type_name], set())


def test_the_mirror_check_can_fail():
    with pytest.raises(AssertionError, match="disagree"):
        _check_mirror("X", {"name": {"type": "string"}}, ["name"], ResourceGroupConfig, set())
    with pytest.raises(AssertionError, match="required"):
        _check_mirror("X", {"name": {"type": "string"}, "create": {"type": "boolean"}}, [], ResourceGroupConfig, set())
    with pytest.raises(AssertionError, match="integer"):
        _check_mirror("X", {"name": {"type": "integer"}, "create": {"type": "boolean"}}, ["name"], ResourceGroupConfig, set())


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


def construct(type_name: str, inputs: dict[str, Any], *, preview: bool, kubernetes: bool = False) -> tuple[Plan, dict]:
    """Runs the host's Construct for one component under the offline engine; returns the plan and the returned state."""
    host = ComponentProvider(provider_host.COMPONENTS, PACKAGE, version=__version__)
    state: dict[str, Any] = {}

    def program() -> None:
        opts = pulumi.ResourceOptions()
        if kubernetes:
            import pulumi_kubernetes as k8s

            opts = pulumi.ResourceOptions(providers={"kubernetes": k8s.Provider("caller", kubeconfig="{}")})
        state.update(host.construct(type_name, f"{PACKAGE}:index:{type_name}", inputs, opts).state)

    return capture(program, preview=preview), state


def test_gpu_node_pool_delegates_to_the_python_component(preview):
    plan, state = construct("GpuNodePool", POOL_INPUTS, preview=preview)
    pool = plan.one("azure-native:containerservice:AgentPool")
    assert pool.inputs["agentPoolName"] == "gpu" and pool.inputs["resourceName"] == "aks-shared"
    assert pool.inputs["minCount"] == 0 and pool.inputs["maxCount"] == 3
    # User map keys are the user's: never camelCased on the way in.
    assert pool.inputs["nodeLabels"] == {"team_a": "ml", "nvidia.com/gpu.present": "true"}
    assert pool.options["ignoreChanges"] == ["count"]
    hosted, inner = sorted(plan.all("aks-dra-vgpu:index:GpuNodePool"), key=lambda r: len(r.urn))
    assert inner.parent == hosted.urn and pool.parent == inner.urn
    assert state["gpuMemoryGib"] == 8 and state["taints"] == ["sku=gpu:NoSchedule"]
    assert state["nodeLabels"]["nvidia.com/gpu.present"] == "true"


def test_bad_inputs_are_refused_at_once_with_their_schema_paths_before_anything_is_registered():
    bad = {**POOL_INPUTS, "vmSize": "Standard_NC6s_v3", "autoscaling": {"minCount": 3.0, "maxCount": 2.0}, "maxPods": 5.0}
    with pytest.raises(ComponentInitError) as caught:
        construct("GpuNodePool", bad, preview=True)
    error = caught.value.inner
    assert isinstance(error, pulumi.InputPropertiesError)
    paths = {e["property_path"] for e in error.errors or []}
    assert paths == {"vmSize", "autoscaling.minCount", "maxPods"}
    for path in paths:  # the host shows the caller only the message: it must carry every problem
        assert f"  {path}: " in error.message


def test_kubernetes_components_refuse_to_run_without_an_explicit_provider():
    inputs = {"pools": [{"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5"}]}
    for name in ("NvidiaDraDriver", "DraSamples"):
        with pytest.raises(ComponentInitError, match="explicit Kubernetes provider"):
            construct(name, inputs, preview=True)


def test_driver_and_samples_use_the_callers_provider():
    # One engine mode is enough here: both modes of the delegated components are covered by their own modules.
    preview = False
    inputs = {"pools": [{"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5", "taints": ["sku=gpu:NoSchedule"]}]}
    plan, state = construct("NvidiaDraDriver", inputs, preview=preview, kubernetes=True)
    caller = plan.one("pulumi:providers:kubernetes", "caller")
    release = plan.one("kubernetes:helm.sh/v3:Release")
    assert release.provider.startswith(caller.urn + "::")
    assert state["chartVersion"] == "0.4.1"
    assert {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"} in (
        state["values"]["kubeletPlugin"]["tolerations"]
    )

    plan, state = construct("DraSamples", {**inputs, "workload": False}, preview=preview, kubernetes=True)
    objects = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert {r.type.rsplit(":", 1)[-1] for r in objects} == {"Namespace", "DeviceClass", "ResourceClaimTemplate",
                                                             "ResourceClaim"}
    caller = plan.one("pulumi:providers:kubernetes", "caller")
    assert all(r.provider.startswith(caller.urn + "::") for r in objects)


def test_gpu_platform_and_aks_cluster_build_the_cluster():
    preview = False
    cluster = {"name": "aks-x", "location": "westeurope", "resourceGroup": {"name": "rg-x"}, "kubernetesVersion": "1.34"}
    plan, state = construct("AksCluster", cluster, preview=preview)
    assert plan.one("azure-native:containerservice:ManagedCluster").inputs["kubernetesVersion"] == "1.34"
    assert set(state) >= {"clusterName", "kubeconfig"}

    platform = {"cluster": cluster, "gpuPools": [{"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5", "count": 1.0}]}
    plan, state = construct("GpuPlatform", platform, preview=preview)
    assert len(plan.all("azure-native:containerservice:ManagedCluster")) == 1
    assert plan.one("azure-native:containerservice:AgentPool").inputs["vmSize"] == "Standard_NV6ads_A10_v5"
    assert len(plan.all("kubernetes:helm.sh/v3:Release")) == 1
    assert len(state["gpuPools"]) == 1


# --- the plugin manifest and entry point ---------------------------------------------------------------------------------
def test_plugin_manifest_starts_the_provider_host():
    manifest = yaml.safe_load((ROOT / "PulumiPlugin.yaml").read_text())
    assert manifest["runtime"]["name"] == "python"
    entry = ROOT / manifest["main"]
    assert entry.is_file() and entry.name == "__main__.py"
    source = entry.read_text()
    assert "from components.provider_host import main" in source and "main()" in source
    # The plugin's venv is made from requirements.txt: it must hold what the hosted components import.
    requirements = Path(ROOT / "requirements.txt").read_text()
    for dependency in ("pulumi", "pulumi-azure-native", "pulumi-kubernetes", "pydantic", "PyYAML"):
        assert dependency in requirements, dependency
