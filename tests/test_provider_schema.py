"""Multi-language use: the schema the plugin serves (through the SDK's own GetSchema), generated from the config models
and output declarations, its agreement with the stack file's schema, and the hosted components being the package's own
components (one resource each, in every language).

The plugin started as its own process and called over gRPC is in test_plugin.py; a setting added to a model reaching
GetSchema with no second edit is in test_contract.py.
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import pytest
from pulumi.provider.server import ProviderServicer
from pulumi.runtime.proto import provider_pb2

from components import __version__
from components.catalog import A10_SIZES, DEFAULT_CHART_VERSION, DRIVER_CHARTS, MIG_SIZES, OFFERED_CHART_VERSIONS
from components.config.reference import STACK_SCHEMA
from components.host import contract, enum_notes
from components.host.hosted import HOSTED
from components.host.server import ComponentHost, committed_schema
from components.outputs import declared_outputs
from tests.conftest import ROOT

PACKAGE = "aks-dra-vgpu"
SERVED = (
    "AksCluster", "GpuNodePool", "NvidiaDraDriver", "DraSamples", "DraClaimTemplates", "ExtendedResources", "GpuMetrics",
    "GpuPlatform", "GpuFleet",
)  # nine: the fleet's (docs/fleet.md) and the extended resources' (docs/extended-resources.md) with the seven
# Where a caller passes another resource's value (names, IDs, a namespace): Inputs; every other setting is plain.
TAKES_OUTPUTS = {
    "GpuNodePool": {"clusterName", "resourceGroupName"},
    "NvidiaDraDriver": {"namespace"},
    "DraClaimTemplates": {"namespace"},
    "ExtendedResources": {"driverRelease", "driverRevision"},
    "DraDriverSettings": {"namespace"},
    "ClusterAuth": {"tenantId", "clientId", "adminGroupObjectIds[]"},
    "AdminPrincipal": {"objectId"},
}
SECRETS = {("AksCluster", "kubeconfig"), ("AksCluster", "providerKubeconfig"),
           ("GpuPlatform", "kubeconfig"), ("GpuPlatform", "providerKubeconfig")}
# The stack file's sections and the plugin's types and components that take the same settings.
STACK_SECTIONS = {"ClusterConfig": ("AksCluster", "ClusterSettings"), "GpuPoolConfig": ("GpuNodePool", "GpuPool"),
                  "DraDriverConfig": ("NvidiaDraDriver", "DraDriverSettings"), "SamplesConfig": ("DraSamples", "SamplesSettings"),
                  "ExtendedResourcesConfig": ("ExtendedResources", "ExtendedResourcesSettings")}


@functools.cache
def hosted() -> ComponentHost:
    """One host for the module, as the plugin process keeps one for all its Constructs."""
    return ComponentHost()


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    """The package schema exactly as `pulumi package add` receives it: the GetSchema RPC of the hosted provider."""
    servicer = ProviderServicer(hosted(), [], "")
    response = asyncio.run(servicer.GetSchema(provider_pb2.GetSchemaRequest(version=0), None))
    return json.loads(response.schema)


@pytest.fixture(scope="module")
def stack_schema() -> dict[str, Any]:
    """The stack file's JSON Schema as committed (docs/stack.schema.json)."""
    return json.loads((ROOT / STACK_SCHEMA).read_text())


def resource(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return schema["resources"][f"{PACKAGE}:index:{name}"]


def schema_type(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return schema["types"][f"{PACKAGE}:index:{name}"]


def test_the_host_serves_the_committed_schema_which_is_what_the_models_generate_now(schema):
    assert schema == {**committed_schema(), "version": __version__}
    assert committed_schema() == contract.package_schema()
    assert json.loads((ROOT / "components/host/schema.json").read_text()) == committed_schema()


def test_every_public_component_is_served_from_the_one_table(schema):
    assert tuple(HOSTED) == SERVED
    assert set(schema["resources"]) == {f"{PACKAGE}:index:{name}" for name in SERVED}
    import components

    for name, entry in HOSTED.items():
        assert getattr(components, name) is entry.component, name  # the public class, not a copy
        assert issubclass(entry.component, entry.outputs), name


@pytest.mark.parametrize("name", SERVED)
def test_each_component_is_a_described_component_with_typed_inputs_and_outputs(schema, name):
    spec = resource(schema, name)
    assert spec["isComponent"] is True
    assert spec["description"] and "\n" not in spec["description"]
    assert spec["inputProperties"] and spec["properties"]
    for kind in ("inputProperties", "properties"):
        for prop, definition in spec[kind].items():
            assert definition.get("description"), f"{name}.{prop} has no description"
            assert "type" in definition or "$ref" in definition, f"{name}.{prop} has no type"


@pytest.mark.parametrize("name", SERVED)
def test_inputs_are_the_args_models_fields_under_the_stack_files_names(schema, name):
    model = HOSTED[name].args
    spec = resource(schema, name)
    assert set(spec["inputProperties"]) == {f.alias for f in model.model_fields.values()}
    assert set(spec["requiredInputs"]) == {f.alias for f in model.model_fields.values() if f.is_required()}


def test_every_schema_type_is_described_and_typed(schema):
    for token, spec in schema["types"].items():
        assert spec.get("description"), token
        if "enum" in spec:
            assert spec["type"] == "string" and all(e.get("description") for e in spec["enum"]), token
            continue
        for prop, definition in spec["properties"].items():
            assert definition.get("description"), f"{token}.{prop}"
            assert "type" in definition or "$ref" in definition, f"{token}.{prop}"


def test_chart_versions_are_the_offered_ones_and_vm_sizes_the_catalogs(schema):
    versions = [e["value"] for e in schema_type(schema, "ChartVersion")["enum"]]
    assert versions == list(OFFERED_CHART_VERSIONS)
    assert not {v for v, chart in DRIVER_CHARTS.items() if chart.withdrawn} & set(versions)  # 0.4.0 is refused
    assert [e["value"] for e in schema_type(schema, "VmSize")["enum"]] == [*A10_SIZES, *MIG_SIZES]
    assert resource(schema, "NvidiaDraDriver")["inputProperties"]["chartVersion"]["default"] == DEFAULT_CHART_VERSION


def test_a_mig_slice_takes_only_the_mig_sizes(schema):
    slice_ref = schema_type(schema, "MigSliceRef")["properties"]["vmSize"]
    assert slice_ref["$ref"] == "#/types/aks-dra-vgpu:index:MigVmSize"
    members = schema_type(schema, "MigVmSize")["enum"]
    assert [e["value"] for e in members] == list(MIG_SIZES)
    assert members[0]["description"].startswith("MIG: 24 vCPUs")


def test_every_enum_note_names_a_member_the_models_accept(schema):
    members = {(token.rsplit(":", 1)[-1], e["value"]) for token, spec in schema["types"].items() for e in spec.get("enum", [])}
    assert set(enum_notes.MEMBER_NOTES) <= members
    named = {token.rsplit(":", 1)[-1] for token in schema["types"]}
    assert set(enum_notes.ENUM_DESCRIPTIONS) <= named
    assert set(enum_notes.ENUM_NAMES.values()) <= named and set(enum_notes.TYPE_NAMES.values()) <= named


def test_kubeconfig_outputs_are_secret_and_nothing_else_is(schema):
    found = {(name.rsplit(":", 1)[-1], prop) for name, spec in schema["resources"].items()
             for prop, definition in spec["properties"].items() if definition.get("secret")}
    assert found == SECRETS


@pytest.mark.parametrize("name", SERVED)
def test_outputs_are_the_components_one_declaration(schema, name):
    declared = declared_outputs(HOSTED[name].outputs)
    spec = resource(schema, name)["properties"]
    assert list(spec) == [d.spec.schema_name for d in declared]
    assert {k: v["description"] for k, v in spec.items()} == {d.spec.schema_name: d.spec.description for d in declared}


def test_output_types_follow_the_declared_annotations(schema):
    pool = resource(schema, "GpuNodePool")["properties"]
    assert pool["poolName"]["type"] == "string" and pool["gpuMemoryGib"]["type"] == "integer"
    assert pool["taints"] == {**pool["taints"], "type": "array", "items": {"type": "string"}}  # Taints travel as text
    platform = resource(schema, "GpuPlatform")
    assert "deviceClassName" not in platform["required"] and "clusterName" in platform["required"]
    assert resource(schema, "NvidiaDraDriver")["properties"]["values"]["additionalProperties"] == contract.ANY


def _inputs_taking_outputs(properties: dict[str, Any]) -> set[str]:
    found = set()
    for prop, definition in properties.items():
        if not definition.get("plain", False):
            found.add(prop)
        for nested in ("items", "additionalProperties"):
            inner = definition.get(nested) or {}
            if inner and not inner.get("plain", False):
                found.add(f"{prop}[]")
    return found


def test_values_from_other_resources_are_inputs_everything_else_is_plain(schema):
    found = {name: _inputs_taking_outputs(resource(schema, name)["inputProperties"]) for name in SERVED}
    found |= {t.rsplit(":", 1)[-1]: _inputs_taking_outputs(spec["properties"]) for t, spec in schema["types"].items()
              if "properties" in spec}
    assert {k: v for k, v in found.items() if v} == TAKES_OUTPUTS


@pytest.mark.parametrize(("name", "key"), [("NvidiaDraDriver", "pools"), ("DraSamples", "pools"), ("ExtendedResources", "pools"),
                                           ("GpuPlatform", "gpuPools")])
def test_driver_samples_and_platform_take_the_one_pool_type(schema, name, key):
    assert resource(schema, name)["inputProperties"][key]["items"]["$ref"] == f"#/types/{PACKAGE}:index:GpuPool"


def test_extended_resources_alone_takes_the_platforms_settings_plus_what_a_stack_would_say(schema):
    spec = resource(schema, "ExtendedResources")
    settings = schema_type(schema, "ExtendedResourcesSettings")["properties"]
    platform = resource(schema, "GpuPlatform")["inputProperties"]["extendedResources"]
    assert platform["$ref"] == f"#/types/{PACKAGE}:index:ExtendedResourcesSettings"
    assert set(settings) == {"slices", "domain", "nvidiaGpu"}
    assert {k: v for k, v in spec["inputProperties"].items() if k in settings} == settings
    assert set(spec["inputProperties"]) - set(settings) == {"pools", "kubernetesVersion", "memoryMarginPercent",
                                                            "driverRelease", "chartVersion", "driverRevision"}
    assert spec["requiredInputs"] == ["kubernetesVersion", "pools"]
    assert spec["inputProperties"]["memoryMarginPercent"]["default"] == 10
    assert spec["inputProperties"]["domain"]["default"] == "aks-dra-vgpu.io"
    assert spec["properties"]["deviceClasses"]["additionalProperties"] == {"type": "string"}
    assert spec["required"] == ["deviceClasses"]


def test_nvidia_gpu_offers_exactly_what_validation_accepts(schema):
    from components.config import ConfigError, validate
    from components.config.extended_resources import ExtendedResourcesConfig

    ref = f"#/types/{PACKAGE}:index:NvidiaGpu"
    assert resource(schema, "ExtendedResources")["inputProperties"]["nvidiaGpu"]["$ref"] == ref
    assert schema_type(schema, "ExtendedResourcesSettings")["properties"]["nvidiaGpu"]["$ref"] == ref
    members = {e["value"]: e["name"] for e in schema_type(schema, "NvidiaGpu")["enum"]}
    assert (members["8GiB"], members["3g.40gb"], members["none"], members["any"]) == ("V8GiB", "V3g_40gb", "NoGpu", "Any")
    for value in members:
        assert validate(ExtendedResourcesConfig, {"nvidiaGpu": value}).nvidia_gpu == value
    for value in ("16GiB", "nvidia.com/gpu", "3g.40GB"):
        with pytest.raises(ConfigError, match=f"nvidiaGpu: '{value}' is not an A10 slice size"):
            validate(ExtendedResourcesConfig, {"nvidiaGpu": value})


def test_no_type_shares_a_components_token(schema):
    # Go's SDK generator renames such a type (`...Type`, pulumi/pulumi pkg/codegen/go/gen.go, duplicateTokens); the
    # settings types are named apart instead, as ClusterSettings and SamplesSettings are.
    assert not set(schema["types"]) & set(schema["resources"])
    assert {"ExtendedResourcesSettings", "GpuMetricsSettings"} <= {t.rsplit(":", 1)[-1] for t in schema["types"]}


def test_a_gpu_node_pool_takes_a_gpu_pools_properties_exactly_plus_its_cluster(schema):
    pool = schema_type(schema, "GpuPool")["properties"]
    inputs = resource(schema, "GpuNodePool")["inputProperties"]
    assert {k: v for k, v in inputs.items() if k in pool} == pool
    assert set(inputs) - set(pool) == {"clusterName", "resourceGroupName", "clusterKubernetesVersion",
                                       "upgradedWithCluster"}


# --- agreement with the stack file's schema ---------------------------------------------------------------------------
def _stack_facts(prop: dict[str, Any]) -> tuple[Any, Any]:
    """(enum members, default) of one stack-schema property, through its anyOf (null, a Pulumi secret)."""
    branches = [prop, *prop.get("anyOf", [])]
    members = next((b.get("enum", [b.get("const")]) for b in branches if "enum" in b or "const" in b), None)
    default = prop.get("default")
    return members, default if isinstance(default, (str, int, float, bool)) else None


def _plugin_facts(schema: dict[str, Any], prop: dict[str, Any]) -> tuple[Any, Any]:
    target = schema["types"].get(prop.get("$ref", "").removeprefix("#/types/"), {})
    members = [e["value"] for e in target["enum"]] if "enum" in target else None
    return members, prop.get("default")


def _agreement(schema: dict[str, Any], stack: dict[str, Any], plugin: dict[str, Any]) -> list[str]:
    """What differs between a stack-schema object and a plugin object: names, enum members, defaults."""
    problems = []
    if set(stack["properties"]) != set(plugin):
        problems.append(f"names: {sorted(set(stack['properties']) ^ set(plugin))}")
    for key in set(stack["properties"]) & set(plugin):
        stack_members, stack_default = _stack_facts(stack["properties"][key])
        plugin_members, plugin_default = _plugin_facts(schema, plugin[key])
        if stack_members is not None and all(isinstance(m, str) for m in stack_members) and stack_members != plugin_members:
            problems.append(f"{key}: members {stack_members} vs {plugin_members}")
        if stack_default != plugin_default:
            problems.append(f"{key}: default {stack_default!r} vs {plugin_default!r}")
    return problems


@pytest.mark.parametrize("section", sorted(STACK_SECTIONS))
def test_the_plugin_agrees_with_the_stack_schema_on_names_enum_members_and_defaults(schema, stack_schema, section):
    stack = stack_schema["$defs"][section]
    component, type_name = STACK_SECTIONS[section]
    assert _agreement(schema, stack, schema_type(schema, type_name)["properties"]) == []
    inputs = resource(schema, component)["inputProperties"]
    assert _agreement(schema, stack, {k: v for k, v in inputs.items() if k in stack["properties"]}) == []


def test_every_nested_model_of_the_stack_schema_is_a_plugin_type_that_agrees(schema, stack_schema):
    for name, stack in stack_schema["$defs"].items():
        if name == "PulumiSecret" or name == "StackConfig":
            continue
        if name == "FleetConfig":  # a fleet stack's section is GpuFleet's inputs, as StackConfig is GpuPlatform's
            assert _agreement(schema, stack, resource(schema, "GpuFleet")["inputProperties"]) == [], name
            continue
        assert _agreement(schema, stack, schema_type(schema, contract.type_name(name))["properties"]) == [], name


def test_defaults_are_the_model_field_defaults(schema):
    pool = schema_type(schema, "GpuPool")["properties"]
    assert (pool["maxPods"]["default"], pool["osSku"]["default"], pool["osDiskSizeGb"]["default"]) == (110, "Ubuntu", 128)
    assert "default" not in pool["zones"]  # the schema takes defaults of booleans, numbers, strings and enums only


def test_the_agreement_check_can_fail(schema, stack_schema):
    stack = stack_schema["$defs"]["GpuPoolConfig"]
    plugin = dict(schema_type(schema, "GpuPool")["properties"])
    plugin["maxPods"] = {**plugin["maxPods"], "default": 100}
    plugin["osSku"] = {**plugin["osSku"], "$ref": f"#/types/{PACKAGE}:index:OsType"}
    del plugin["tags"]
    problems = _agreement(schema, stack, plugin)
    assert any(p.startswith("names") for p in problems) and any("maxPods" in p for p in problems)
    assert any("osSku: members" in p for p in problems)
