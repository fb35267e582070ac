"""examples/existing-cluster: a separate Pulumi project that adds only a GPU pool, the driver and the samples to a cluster
it does not own, planned by the offline engine like any other Pulumi Python project."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest
import yaml

from components.cli import main
from components.offline import SECRET, Plan, load_project, run_project
from tests.conftest import ROOT, SAMPLE_TYPES

EXAMPLE = ROOT / "examples" / "existing-cluster"
PROJECT = "gpu-on-existing-aks"

POOL = "azure-native:containerservice:AgentPool"
RELEASE = "kubernetes:helm.sh/v3:Release"
PROVIDER = "pulumi:providers:kubernetes"
SAMPLE_OBJECTS = set(SAMPLE_TYPES)
COMPONENTS = {"aks-dra-vgpu:index:GpuNodePool", "aks-dra-vgpu:index:NvidiaDraDriver", "aks-dra-vgpu:index:DraSamples"}


@pytest.fixture(scope="module")
def plans() -> dict[bool, Plan]:
    """The example's dev stack, planned once per engine mode (preview: unknown outputs; update: as `pulumi up`)."""
    project = load_project(EXAMPLE)
    return {preview: run_project(project, "dev", preview=preview) for preview in (True, False)}


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "update"])
def test_plan_holds_only_the_pool_the_driver_the_samples_and_the_provider(plans, preview):
    plan = plans[preview]
    types = {r.type for r in plan.resources}
    assert types <= {POOL, RELEASE, PROVIDER, *SAMPLE_OBJECTS, *COMPONENTS}, types
    # Each of the expected kinds is there (a plan with nothing in it would pass the subset check alone).
    assert types >= {POOL, RELEASE, PROVIDER, *SAMPLE_OBJECTS, *COMPONENTS}, types
    assert len(plan.all(POOL)) == 1 and len(plan.all(RELEASE)) == 1 and len(plan.all(PROVIDER)) == 1
    for owned_elsewhere in ("azure-native:containerservice:ManagedCluster", "azure-native:resources:ResourceGroup"):
        assert plan.all(owned_elsewhere) == []
    assert plan.invokes == []  # no credential lookup: the kubeconfig comes from the stack's config


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "update"])
def test_pool_joins_the_cluster_named_in_config(plans, preview):
    stack = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text())["config"]
    pool = plans[preview].one(POOL).inputs
    assert pool["resourceName"] == stack[f"{PROJECT}:clusterName"]
    assert pool["resourceGroupName"] == stack[f"{PROJECT}:resourceGroupName"]
    assert pool["vmSize"] == stack[f"{PROJECT}:gpuPool"]["vmSize"]
    assert pool["nodeLabels"]["nvidia.com/gpu.present"] == "true"


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "update"])
def test_kubernetes_objects_use_the_example_provider_built_from_the_secret_kubeconfig(plans, preview):
    plan = plans[preview]
    provider = plan.one(PROVIDER)
    assert provider.name == "existing-aks"
    assert provider.inputs["kubeconfig"] == SECRET
    k8s_objects = [r for r in plan.resources if r.type == RELEASE or r.type in SAMPLE_OBJECTS]
    assert k8s_objects
    for r in k8s_objects:
        assert r.provider is not None and r.provider.startswith(provider.urn + "::"), (r.name, r.provider)


def test_the_stack_keeps_the_kubeconfig_a_secret():
    doc = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text())
    assert set(doc["config"][f"{PROJECT}:kubeconfig"]) == {"secure"}


def test_cli_plans_the_example_project(capsys):
    status = main(["plan", "--project-dir", str(EXAMPLE), "--stack", "dev", "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    doc = json.loads(out)
    assert doc["project"] == PROJECT and doc["stack"] == "dev"
    assert "ManagedCluster" not in out
    assert doc["outputs"]["gpuPool"] == "a10s"


def test_bad_settings_are_reported_at_once_under_their_keys(tmp_path: Path):
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    doc = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text())
    doc["config"][f"{PROJECT}:gpuPool"]["vmSize"] = "Standard_NC6s_v3"
    doc["config"][f"{PROJECT}:draDriver"]["namespace"] = "default"
    (tmp_path / "Pulumi.bad.yaml").write_text(yaml.safe_dump(doc))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["plan", "--project-dir", str(tmp_path), "--stack", "bad"])
    lines = err.getvalue().strip().splitlines()
    assert status == 2, err.getvalue()
    assert any(line.startswith("gpuPool.vmSize:") for line in lines), lines
    assert any(line.startswith("draDriver.namespace:") for line in lines), lines


def test_requirements_install_the_package_from_this_checkout():
    lines = [line.strip() for line in (EXAMPLE / "requirements.txt").read_text().splitlines()]
    wanted = [line for line in lines if line and not line.startswith("#")]
    assert wanted == ["../.."]
    assert (EXAMPLE / wanted[0] / "pyproject.toml").resolve() == ROOT / "pyproject.toml"


def test_the_example_imports_the_package_by_its_installed_name():
    import ast

    tree = ast.parse((EXAMPLE / "__main__.py").read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert {"aks_dra_vgpu", "aks_dra_vgpu.config"} <= modules
    assert not any(m == "components" or m.startswith("components.") for m in modules), modules
