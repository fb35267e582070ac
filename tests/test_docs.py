"""Generated documentation stays true: the configuration reference lists every model field as the code has it, the
sizing table matches the catalog and the claim selectors, and `python -m components docs` writes (or checks) them.
The stack file's JSON Schema is tested as editors use it: shipped stacks pass, bad ones fail where the models fail."""

from __future__ import annotations

import json
import re
import shutil
import types
import typing
from pathlib import Path
from typing import Annotated, Literal, Union

import pytest
import yaml
from jsonschema import Draft202012Validator
from jsonschema.validators import validator_for
from pydantic import BaseModel, Field

from components.catalog import (
    A10_SIZES,
    CHART_DEVICE_CLASSES,
    DEFAULT_CHART_VERSION,
    DRIVER_CHARTS,
    MIG_SIZES,
    OFFERED_CHART_VERSIONS,
)
from components.cli import main
from components.cli.docs import (
    CONFIG_REFERENCE,
    DASHBOARD,
    PLUGIN_SCHEMA,
    SIZING,
    SIZING_BLOCK,
    SIZING_EXAMPLE,
    SIZING_EXAMPLE_BLOCK,
    STACK_SCHEMA,
    admitted_sizes,
    config_reference,
    generated_files,
    read_block,
    sizing_example,
    sizing_table,
    stack_schema,
)
from components.config import (
    ConfigError,
    GpuPoolConfig,
    Model,
    SamplesConfig,
    StackConfig,
    StrInput,
    stack_config_from_mapping,
    validate,
)
from components.config.schema import stack_file_schema
from components.config.syntax import DNS_LABEL, DNS_SUBDOMAIN, POOL_NAME, SURGE, json_pattern
from components.kubernetes.claim_templates import claim_template_name
from components.kubernetes.selectors import max_memory_mib, min_memory_mib
from tests.conftest import ROOT

REGENERATE = "out of date: run `python -m components docs` and commit the result"


def models_below(model: type[BaseModel], path: str = "") -> list[tuple[str, type[BaseModel]]]:
    """(stack-file path, model) for every model reachable from `model`; written apart from components.cli.docs on purpose."""
    found = []
    for name, field in model.model_fields.items():
        key = field.alias or name
        todo = [(field.annotation, f"{path}.{key}" if path else key)]
        while todo:
            annotation, where = todo.pop()
            origin = typing.get_origin(annotation)
            if origin in (Union, types.UnionType, Annotated):
                todo += [(a, where) for a in typing.get_args(annotation) if a is not type(None)]
            elif origin is list:
                todo.append((typing.get_args(annotation)[0], where + "[]"))
            elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
                found.append((where, annotation))
                found += models_below(annotation, where)
    return found


def test_configuration_md_is_the_generated_reference():
    committed = (ROOT / CONFIG_REFERENCE).read_text(encoding="utf-8")
    assert committed == config_reference(), f"{CONFIG_REFERENCE} is {REGENERATE}"


def test_every_model_field_has_a_row_with_its_description():
    text = config_reference()
    from components.config.fleet import FleetStackConfig

    # A platform stack's keys, then a fleet stack's (docs/fleet.md).
    everything = [("", StackConfig), *models_below(StackConfig), ("", FleetStackConfig), *models_below(FleetStackConfig)]
    assert {m.__name__ for _, m in everything} >= {"ClusterConfig", "GpuPoolConfig", "AutoscalingConfig",
                                                   "DraDriverConfig", "SamplesConfig", "AuthConfig"}
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    for path, model in everything:
        assert f"`{model.__name__}`" in text or f"({model.__name__})" in text, model.__name__
        for name, field in model.model_fields.items():
            key = f"{path}.{field.alias}" if path else f"aks-dra-vgpu:{field.alias}"
            row = next((r for r in rows if r.startswith(f"| `{key}` |")), None)
            assert row is not None, f"no row for {key} ({model.__name__}.{name})"
            assert " ".join((field.description or "").split()).replace("|", "\\|") in row, key
    assert len(rows) == sum(len(m.model_fields) for _, m in everything)


def row(text: str, key: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(f"| `{key}` |"))
    return [cell.strip() for cell in line.strip("|").split(" | ")]


@pytest.mark.parametrize(
    ("key", "type_", "default", "allowed"),
    [
        ("cluster.name", "string", "**required**", "—"),
        ("cluster.kubernetesVersion", "string", '`"1.35"`', "—"),
        ("cluster.auth.mode", "string", '`"localAccounts"`', '`"localAccounts"`, `"entraId"`'),
        ("cluster.systemPool.count", "integer", "`1`", "1 to 1000"),
        ("cluster.systemPool.zones", "list of string or integer", "`[]`", '`"1"`, `"2"`, `"3"`, `1`, `2`, `3`'),
        ("cluster.systemPool.name", "string", '`"system"`', "matching `^[a-z][a-z0-9]{0,11}$`"),
        ("cluster.systemPool", "object ([SystemPoolConfig](#clustersystempool))", "its defaults", "—"),
        ("gpuPools[].vmSize", "string", "**required**", ", ".join(f'`"{size}"`' for size in [*A10_SIZES, *MIG_SIZES])),
        ("gpuPools[].count", "integer or null", "unset", "0 to 1000"),
        ("gpuPools[].autoscaling.minCount", "integer", "**required**", "0 to 1000"),
        ("draDriver.chartVersion", "string", f'`"{DEFAULT_CHART_VERSION}"`',
         ", ".join(f'`"{version}"`' for version in OFFERED_CHART_VERSIONS)),
        ("draDriver.featureGates", "map of string to boolean", "`{}`",
         "keys: " + ", ".join(f'`"{gate}"`' for gate in sorted(set().union(*(c.feature_gates for c in DRIVER_CHARTS.values()))))),
        ("samples.deviceClassName", "string", '`"a10-vgpu"`',
         "not " + ", ".join(f'`"{name}"`' for name in sorted(CHART_DEVICE_CLASSES))),
        ("draDriver.extraValues", "map", "`{}`", "—"),
        ("samples.workloadMemoryGiB", "integer or null", "unset", "at least 1"),
        ("aks-dra-vgpu:gpuPools", "list of object ([GpuPoolConfig](#aks-dra-vgpugpupools))", "**required**",
         "at least 1 item"),
    ],
)
def test_reference_rows_say_what_the_models_say(key, type_, default, allowed):
    cells = row(config_reference(), key)
    assert cells[1:4] == [type_, default, allowed]


def test_links_point_at_headings_that_exist():
    text = config_reference()
    anchors = {link.split("](#", 1)[1].split(")", 1)[0] for link in text.split("[")[1:] if "](#" in link}
    headings = {
        "".join(ch for ch in line.lstrip("#").strip().lower() if ch.isalnum() or ch in " -_").replace(" ", "-")
        for line in text.splitlines() if line.startswith("#")
    }
    assert anchors and anchors <= headings, anchors - headings


# --- the stack file's JSON Schema ------------------------------------------------------------------------------------------
STACK_FILES = ["stacks/Pulumi.dev.yaml", "stacks/Pulumi.prod.yaml", "examples/existing-cluster/Pulumi.dev.yaml"]


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads((ROOT / STACK_SCHEMA).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def validator(schema) -> Draft202012Validator:
    return Draft202012Validator(schema)


def dev_stack() -> dict:
    return yaml.safe_load((ROOT / "stacks/Pulumi.dev.yaml").read_text(encoding="utf-8"))


def problems(validator: Draft202012Validator, doc: dict) -> list[tuple[list, str]]:
    """(path, validator keyword) of every error the schema finds, paths as lists of keys and indexes."""
    return [(list(e.absolute_path), e.validator) for e in validator.iter_errors(doc)]


def test_stack_schema_json_is_the_generated_one():
    committed = (ROOT / STACK_SCHEMA).read_text(encoding="utf-8")
    assert committed == stack_schema(), f"{STACK_SCHEMA} is {REGENERATE}"


def test_the_schema_is_a_valid_draft_2020_12_schema(schema):
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert validator_for(schema) is Draft202012Validator
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("path", STACK_FILES)
def test_the_shipped_stacks_are_valid(validator, path):
    doc = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    assert problems(validator, doc) == []


CLUSTER, POOLS, DRIVER, SAMPLES = (f"aks-dra-vgpu:{key}" for key in ("cluster", "gpuPools", "draDriver", "samples"))


def _set(doc: dict, path: list, value) -> dict:
    node = doc
    for part in path[:-1]:
        node = node.setdefault(part, {}) if isinstance(node, dict) else node[part]
    node[path[-1]] = value
    return doc


def _drop(doc: dict, path: list) -> dict:
    node = doc
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]
    return doc


# (what to change in the dev stack, where the schema must find the problem); the models must refuse each one too.
BAD = {
    "unknown key in a section": (lambda d: _set(d, ["config", CLUSTER, "nmae"], "x"), ["config", CLUSTER]),
    "unknown key in a pool": (lambda d: _set(d, ["config", POOLS, 0, "vmsize"], "x"), ["config", POOLS, 0]),
    "unknown key deep down": (lambda d: _set(d, ["config", POOLS, 0, "autoscaling", "max"], 3),
                              ["config", POOLS, 0, "autoscaling"]),
    "wrong vmSize": (lambda d: _set(d, ["config", POOLS, 0, "vmSize"], "Standard_NV6ads"), ["config", POOLS, 0, "vmSize"]),
    "a non-A10 vmSize": (lambda d: _set(d, ["config", POOLS, 0, "vmSize"], "Standard_D4ds_v5"),
                         ["config", POOLS, 0, "vmSize"]),
    "negative count": (lambda d: _set(d, ["config", POOLS, 0, "count"], -1), ["config", POOLS, 0, "count"]),
    "count over the bound": (lambda d: _set(d, ["config", POOLS, 0, "count"], 1001), ["config", POOLS, 0, "count"]),
    "count as text": (lambda d: _set(d, ["config", POOLS, 0, "count"], "two"), ["config", POOLS, 0, "count"]),
    "unknown chart version": (lambda d: _set(d, ["config", DRIVER, "chartVersion"], "25.9.0"),
                              ["config", DRIVER, "chartVersion"]),
    "unknown feature gate": (lambda d: _set(d, ["config", DRIVER, "featureGates"], {"NoSuchGate": True}),
                             ["config", DRIVER, "featureGates"]),
    "zone 4": (lambda d: _set(d, ["config", POOLS, 0, "zones"], ["4"]), ["config", POOLS, 0, "zones", 0]),
    "pool name with capitals": (lambda d: _set(d, ["config", POOLS, 0, "name"], "GPU"), ["config", POOLS, 0, "name"]),
    "the chart's DeviceClass name": (lambda d: _set(d, ["config", SAMPLES, "deviceClassName"], "gpu.nvidia.com"),
                                     ["config", SAMPLES, "deviceClassName"]),
    "no GPU pool": (lambda d: _set(d, ["config", POOLS], []), ["config", POOLS]),
    "a required section missing": (lambda d: _drop(d, ["config", POOLS]), ["config"]),
    "a required key missing": (lambda d: _drop(d, ["config", CLUSTER, "location"]), ["config", CLUSTER]),
}


@pytest.mark.parametrize("name", BAD)
def test_the_schema_refuses_what_the_models_refuse(validator, name):
    change, where = BAD[name]
    doc = change(dev_stack())
    assert where in [path for path, _ in problems(validator, doc)], problems(validator, doc)
    with pytest.raises(ConfigError):
        stack_config_from_mapping(doc["config"])


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: _set(d, ["configs"], {}), []),  # a stack file has no such key (pulumi's ProjectStack)
        (lambda d: _set(d, ["config", "location"], "westeurope"), ["config"]),  # a config key needs a namespace
        (lambda d: _set(d, ["config", CLUSTER, "tags", "owner"], {"secure": 1}), ["config", CLUSTER, "tags", "owner"]),
        (lambda d: _set(d, ["config", CLUSTER, "tags", "owner"], {"secure": "x", "plain": "y"}),
         ["config", CLUSTER, "tags", "owner"]),
        # a secret stands for a string, never for a number
        (lambda d: _set(d, ["config", POOLS, 0, "count"], {"secure": "AAAB"}), ["config", POOLS, 0, "count"]),
    ],
)
def test_the_schema_refuses_what_pulumi_refuses(validator, change, where):
    assert where in [path for path, _ in problems(validator, change(dev_stack()))]


@pytest.mark.parametrize(
    "change",
    [
        lambda d: _set(d, ["config", POOLS, 0, "zones"], [1, 2]),  # YAML numbers: the models make them strings
        lambda d: _set(d, ["config", "azure-native:location"], "westeurope"),  # a provider's setting
        lambda d: _set(d, ["config", "aks-dra-vgpu:team"], "gpu-platform"),  # the program's own, not a near-miss
        lambda d: _set(d, ["config", "aks-dra-vgpu:config:owner"], "me"),  # pulumi's old key form
    ],
)
def test_the_schema_accepts_what_the_models_accept(validator, change):
    doc = change(dev_stack())
    assert problems(validator, doc) == []
    stack_config_from_mapping(doc["config"])


@pytest.mark.parametrize(
    "change",
    [
        # Pulumi decrypts secrets before the program sees them, so a secret may stand wherever text goes.
        lambda d: _set(d, ["config", CLUSTER, "tags", "owner"], {"secure": "AAABAKJ"}),
        lambda d: _set(d, ["config", CLUSTER, "name"], {"secure": "AAABAKJ"}),
        lambda d: _set(d, ["config", POOLS, 0, "taints"], [{"secure": "AAABAKJ"}]),
        lambda d: _set(d, ["config", "aks-dra-vgpu:token"], {"secure": "AAABAKJ"}),
        lambda d: {**d, "secretsprovider": "passphrase", "encryptionsalt": "v1:abc", "environment": ["gpu/dev"]},
        lambda d: {**d, "environment": {"imports": ["gpu/dev"]}},
    ],
)
def test_the_schema_accepts_pulumi_secrets_and_stack_file_keys(validator, change):
    assert problems(validator, change(dev_stack())) == []


def test_a_stack_without_the_packages_keys_is_not_held_to_its_required_sections(validator):
    assert problems(validator, {"config": {"other:gpuPool": {"name": "a10s"}}}) == []
    assert problems(validator, {}) == []
    # Any one of its keys makes it a stack of this package, which needs a cluster and GPU pools.
    assert ["config"] in [p for p, _ in problems(validator, {"config": {SAMPLES: {"workload": False}}})]


def test_every_model_is_in_the_schema_with_its_keys_and_no_others(schema):
    for _, model in [("", StackConfig), *models_below(StackConfig)]:
        definition = schema["$defs"][model.__name__] if model is not StackConfig else None
        keys = [field.alias or name for name, field in model.model_fields.items()]
        if definition is None:
            # The platform's sections, then a fleet stack's (docs/fleet.md).
            assert list(schema["properties"]["config"]["properties"]) == [f"aks-dra-vgpu:{k}" for k in keys] + [
                "aks-dra-vgpu:fleet"]
            continue
        assert list(definition["properties"]) == keys, model.__name__
        assert definition["additionalProperties"] is False, model.__name__


def test_closed_sets_come_from_the_catalog_and_the_models_keep_their_own_words(schema):
    pool = schema["$defs"]["GpuPoolConfig"]["properties"]["vmSize"]
    assert pool["anyOf"][0]["enum"] == [*A10_SIZES, *MIG_SIZES]
    driver = schema["$defs"]["DraDriverConfig"]["properties"]
    assert driver["chartVersion"]["anyOf"][0]["enum"] == list(OFFERED_CHART_VERSIONS)
    assert set(driver["featureGates"]["propertyNames"]["enum"]) == set().union(
        *(chart.feature_gates for chart in DRIVER_CHARTS.values())
    )
    # The schema's enum is for editors; the model's validator still answers with its "did you mean".
    with pytest.raises(ConfigError) as err:
        validate(GpuPoolConfig, {"name": "a10s", "vmSize": "Standard_NV6ads"})
    assert "did you mean 'Standard_NV6ads_A10_v5'?" in str(err.value)


@pytest.mark.parametrize("rule", [POOL_NAME, DNS_LABEL, DNS_SUBDOMAIN, SURGE])
@pytest.mark.parametrize("text", ["a", "a10s", "A10", "1a", "abcdefghijklm", "a-b", "a.b", "-a", "a-", "33%", "100%", "0"])
def test_a_rule_as_a_json_pattern_matches_what_fullmatch_matches(rule, text):
    assert (re.search(json_pattern(rule), text) is not None) == (rule.fullmatch(text) is not None)


class _Inner(Model):
    """A part."""

    level: int = Field(3, ge=1, le=5, description="How deep.")


class _Grown(Model):
    """A model with field kinds the real ones may grow into."""

    share: float = Field(0.5, gt=0, lt=1, description="A share.")
    mode: Literal["a", "b"] | None = Field(None, description="A choice, or nothing.")
    parts: list[_Inner] = Field(default_factory=list, description="Several parts.")
    by_name: dict[str, _Inner] = Field(default_factory=dict, description="Parts by name.")
    label: str = Field(min_length=2, max_length=8, description="Short text.")
    source: StrInput = Field("x", description="Text, or another resource's output.")


def test_the_generator_needs_no_code_for_a_new_field():
    text = config_reference(_Grown)
    assert row(text, "aks-dra-vgpu:share")[1:4] == ["number", "`0.5`", "more than 0; less than 1"]
    assert row(text, "aks-dra-vgpu:mode")[1:4] == ["string or null", "unset", '`"a"`, `"b"`']
    assert row(text, "aks-dra-vgpu:parts")[1:3] == ["list of object ([_Inner](#aks-dra-vgpuparts))", "`[]`"]
    assert row(text, "aks-dra-vgpu:byName")[1] == "map of string to object ([_Inner](#aks-dra-vgpuparts))"
    assert row(text, "aks-dra-vgpu:label")[1:4] == ["string", "**required**", "2 to 8 characters"]
    assert row(text, "aks-dra-vgpu:source")[1] == "string"  # another resource's output never comes from a file
    assert row(text, "parts[].level")[1:4] == ["integer", "`3`", "1 to 5"]
    assert row(text, "byName.<key>.level")[1:4] == ["integer", "`3`", "1 to 5"]
    schema = stack_file_schema(_Grown, project="demo")
    Draft202012Validator.check_schema(schema)
    good = {"config": {"demo:label": "ok", "demo:parts": [{"level": 2}], "demo:byName": {"x": {"level": 5}}}}
    assert problems(Draft202012Validator(schema), good) == []
    bad = {"config": {"demo:label": "ok", "demo:parts": [{"level": 9}], "demo:share": 1}}
    assert sorted(p for p, _ in problems(Draft202012Validator(schema), bad)) == [
        ["config", "demo:parts", 0, "level"], ["config", "demo:share"]
    ]


def test_each_caller_of_the_models_schema_gets_a_copy_of_its_own():
    # The schema is generated once per model: what one caller changes in its copy never reaches the next caller.
    from components.config.schema import models_schema

    first = models_schema(_Grown)
    first["properties"]["share"]["default"] = 0.9
    first["$defs"].clear()
    again = models_schema(_Grown)
    assert again["properties"]["share"]["default"] == 0.5 and "_Inner" in again["$defs"]


# --- sizing --------------------------------------------------------------------------------------------------------------
def test_sizing_md_has_the_generated_table():
    committed = read_block((ROOT / SIZING).read_text(encoding="utf-8"), SIZING_BLOCK)
    assert committed == sizing_table(), f"the sizing table in {SIZING} is {REGENERATE}"


def test_sizing_table_matches_catalog_and_selectors():
    margin = SamplesConfig.model_fields["memory_margin_percent"].default
    klass = SamplesConfig.model_fields["device_class_name"].default
    lines = sizing_table().splitlines()[2:]
    assert len(lines) == len(A10_SIZES)
    for line, size in zip(lines, A10_SIZES.values(), strict=True):
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        assert cells[0] == f"`{size.vm_size}`"
        assert cells[1:6] == [str(size.vcpus), str(size.ram_gib), size.gpu_share, str(size.gpu_memory_gib),
                              str(size.devices_per_node)]
        assert cells[7].startswith(f"`{claim_template_name(klass, size.gpu_memory_gib)}`")
        low, high = min_memory_mib(size.gpu_memory_gib, margin), max_memory_mib(size.gpu_memory_gib, margin)
        assert cells[8] == f"{low} to {high - 1}"
        assert ("2x24gib" in cells[7]) is (size.devices_per_node == 2)


@pytest.mark.parametrize("margin", [0, 10, 25])
def test_a_templates_first_choice_takes_exactly_its_own_size(margin):
    for template in {s.gpu_memory_gib for s in A10_SIZES.values()}:
        admitted = {s.vm_size for s in admitted_sizes(template, margin)}
        assert admitted == {s.vm_size for s in A10_SIZES.values() if s.gpu_memory_gib == template}


def test_sizing_md_has_the_generated_worked_example():
    committed = read_block((ROOT / SIZING).read_text(encoding="utf-8"), SIZING_EXAMPLE_BLOCK)
    assert committed == sizing_example(), f"the worked example in {SIZING} is {REGENERATE}"
    assert "Everything fits." in committed and "#### Cost" in committed and "utilisation" in committed
    for workload in SIZING_EXAMPLE:
        assert f"--workload {workload}" in committed


def test_sizing_md_has_the_generated_stack_example_with_prods_pools_unchanged():
    from components.cli.docs import SIZING_STACK_BLOCK, sizing_stack_example

    committed = read_block((ROOT / SIZING).read_text(encoding="utf-8"), SIZING_STACK_BLOCK)
    assert committed == sizing_stack_example(ROOT), f"the stack example in {SIZING} is {REGENERATE}"
    assert "--slice training=24x2 --stack prod" in committed and "Everything fits." in committed
    assert "Changes to the stack's gpuPools: none (every pool as written)." in committed


def test_the_margin_keeps_a_slightly_short_slice_in_its_own_class():
    # An 8 GB slice has been seen reporting about 7.8 GiB: the 8 GiB template must still take it.
    assert min_memory_mib(8, SamplesConfig.model_fields["memory_margin_percent"].default) <= 7.8 * 1024


# --- the docs command ------------------------------------------------------------------------------------------------------
@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """The files the docs command reads and writes, copied out of the repository."""
    for name in ("Pulumi.yaml", "__main__.py", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / SIZING, tmp_path / SIZING)
    shutil.copy(ROOT / "docs" / "safe-changes.md", tmp_path / "docs" / "safe-changes.md")
    shutil.copy(ROOT / "docs" / "performance.md", tmp_path / "docs" / "performance.md")
    shutil.copy(ROOT / "docs" / "upgrading.md", tmp_path / "docs" / "upgrading.md")
    return tmp_path


def test_docs_command_checks_then_writes(capsys, repo_copy):
    generated = generated_files()  # the files written whole: the copy has none of them yet
    assert set(generated) == {DASHBOARD, CONFIG_REFERENCE, STACK_SCHEMA, PLUGIN_SCHEMA}
    assert main(["docs", "--project-dir", str(repo_copy), "--check"]) == 3
    assert sorted(capsys.readouterr().out.split()) == sorted(str(path) for path in generated)
    assert not any((repo_copy / path).exists() for path in generated)
    assert main(["docs", "--project-dir", str(repo_copy)]) == 0
    assert sorted(capsys.readouterr().out.split()) == sorted(str(path) for path in generated)
    for path, text in generated.items():
        assert (repo_copy / path).read_text(encoding="utf-8") == text
    assert main(["docs", "--project-dir", str(repo_copy), "--check"]) == 0
    assert capsys.readouterr().out == ""


def test_docs_command_reports_a_missing_generated_block(capsys, repo_copy):
    readme = repo_copy / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("<!-- END GENERATED resource-graph-dev -->", ""))
    assert main(["docs", "--project-dir", str(repo_copy)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "README.md: needs one generated block 'resource-graph-dev'" in err


def test_safe_changes_lists_every_rule_the_diff_applies():
    from components.review.replacement_rules import RULES

    text = (ROOT / "docs" / "safe-changes.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert f"| `{rule.type}` | " in text and rule.source in text, rule


def test_upgrading_and_sizing_carry_the_generated_upstream_examples():
    from components.cli import docs_upstream as upstream
    from components.cli.docs import markers

    upgrading = (ROOT / upstream.UPGRADING).read_text(encoding="utf-8")
    example = upstream.driver_upgrade_example(ROOT)
    assert read_block(upgrading, upstream.VERSIONS_BLOCK) == upstream.aks_versions_table()
    assert read_block(upgrading, upstream.DRIVER_UPGRADE_BLOCK) == example
    assert "+ consumableShares: \"memory\"" in example
    assert "| 1.36 | GA | 2026-06-19 | 2027-06 | 2028-06 | 1.36.3 | - |" in upstream.aks_versions_table()
    sizing = (ROOT / SIZING).read_text(encoding="utf-8")
    shared = upstream.shared_sizing_example()
    assert read_block(sizing, upstream.SHARED_SIZING_BLOCK) == shared
    assert "first-fit decreasing" in shared and markers(upstream.SHARED_SIZING_BLOCK)[0] in sizing
