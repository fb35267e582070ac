"""`render`: each stack's Kubernetes objects as complete manifests that pass the official schemas, plus the Helm values."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from components.cli import main
from components.offline import Plan, load_project, run_project
from components.offline.output_dir import MANIFEST
from components.offline.render import CLUSTER_SCOPED_KINDS, render
from tests.conftest import ROOT

VERSIONS = ("1.34", "1.35")
STACKS = ("dev", "prod")
RELEASE = "nvidia-dra-driver-gpu"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict[str, tuple[Plan, Path, list[Path]]]:
    """Each stack planned once and rendered into its own folder: (plan, folder, written paths)."""
    project = load_project(ROOT)
    out = {}
    for stack in STACKS:
        plan = run_project(project, stack, preview=True)
        folder = tmp_path_factory.mktemp(stack)
        out[stack] = (plan, folder, render(plan, folder))
    return out


def load(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def manifests(folder: Path) -> dict[str, dict]:
    return {p.name: load(p) for p in sorted((folder / "kubernetes").glob("*.yaml"))}


def test_dev_renders_one_file_per_object(rendered):
    _, folder, written = rendered["dev"]
    assert sorted(manifests(folder)) == [
        "deviceclass-a10-vgpu.yaml",
        "job-nvidia-smi.yaml",
        "namespace-dra-samples.yaml",
        "networkpolicy-deny-all.yaml",
        "resourceclaim-a10-vgpu-shared.yaml",
        "resourceclaimtemplate-a10-vgpu-4gib.yaml",
    ]
    on_disk = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    assert written == on_disk
    assert [p.relative_to(folder).as_posix() for p in on_disk if p.parts[-3] == "helm"] == [
        f"helm/{RELEASE}/release.yaml", f"helm/{RELEASE}/values.yaml"
    ]


def test_prod_renders_its_sizes_and_no_job(rendered):
    _, folder, _ = rendered["prod"]
    assert sorted(manifests(folder)) == [
        "deviceclass-a10-vgpu.yaml",
        "namespace-dra-samples.yaml",
        "resourceclaim-a10-vgpu-shared.yaml",
        "resourceclaimtemplate-a10-vgpu-24gib.yaml",
        "resourceclaimtemplate-a10-vgpu-8gib.yaml",
    ]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("stack", STACKS)
def test_every_object_passes_the_strict_schema(rendered, stack, version):
    found = manifests(rendered[stack][1])
    assert found
    for name, obj in found.items():
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as err:
            pytest.fail(f"{stack}: {name} is not a valid {version} object: {err.message}")


@pytest.mark.parametrize("stack", STACKS)
def test_manifests_are_complete_as_applied(rendered, stack):
    plan, folder, _ = rendered[stack]
    for name, obj in manifests(folder).items():
        assert list(obj)[:3] == ["apiVersion", "kind", "metadata"], name
        assert obj["metadata"]["name"] and "[unknown]" not in yaml.safe_dump(obj), name
        if obj["kind"] not in CLUSTER_SCOPED_KINDS:
            assert obj["metadata"]["namespace"] == "dra-samples", name
        assert not [k for k in obj if k.startswith("__")], name
        assert name == f"{obj['kind'].lower()}-{obj['metadata']['name']}.yaml"
    # The same objects as the plan declares, field for field.
    declared = {r.inputs["metadata"]["name"]: r.inputs for r in plan.resources if r.type.startswith("kubernetes:resource")}
    for obj in manifests(folder).values():
        if obj["metadata"]["name"] in declared:
            assert obj == declared[obj["metadata"]["name"]]


def _claim(request: dict) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "x", "namespace": "dra-samples"},
        "spec": {"devices": {"requests": [request]}},
    }


@pytest.mark.parametrize("version", VERSIONS)
def test_a_v1beta1_shaped_request_fails_v1_validation(version):
    v1beta1 = {"name": "gpu", "deviceClassName": "a10-vgpu", "allocationMode": "ExactCount", "count": 1}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(_claim(v1beta1), version, strict=True)
    v1 = {"name": "gpu", "exactly": {k: v for k, v in v1beta1.items() if k != "name"}}
    kubernetes_validate.validate(_claim(v1), version, strict=True)  # the same request, v1-shaped, passes


@pytest.mark.parametrize("stack", STACKS)
def test_values_are_exactly_what_the_release_gets_with_the_driver_flags(rendered, stack):
    plan, folder, _ = rendered[stack]
    values = load(folder / "helm" / RELEASE / "values.yaml")
    assert values == plan.one("kubernetes:helm.sh/v3:Release").inputs["values"]
    assert values["resources"]["gpus"]["enabled"] is True
    assert values["gpuResourcesEnabledOverride"] is True
    assert values["featureGates"]["IMEXDaemonsWithDNSNames"] is False
    assert values["nvidiaDriverRoot"] == "/"
    assert values["kubeletPlugin"]["nodeSelector"]["nvidia.com/gpu.present"] == "true"


def test_prod_values_let_the_plugin_onto_tainted_pools(rendered):
    values = load(rendered["prod"][1] / "helm" / RELEASE / "values.yaml")
    keys = {t["key"] for t in values["kubeletPlugin"]["tolerations"]}
    assert keys == {"nvidia.com/gpu", "workload-class"}


@pytest.mark.parametrize("stack", STACKS)
def test_release_file_names_chart_version_repository_namespace(rendered, stack):
    release = load(rendered[stack][1] / "helm" / RELEASE / "release.yaml")
    assert release == {
        "name": RELEASE,
        "chart": "nvidia-dra-driver-gpu",
        "version": "25.8.1",
        "repository": "https://helm.ngc.nvidia.com/nvidia",
        "namespace": "nvidia-dra-driver-gpu",
    }


@pytest.mark.parametrize("stack", STACKS)
def test_stack_outputs_name_the_device_class_and_templates(rendered, stack):
    outputs = rendered[stack][0].outputs
    assert outputs["deviceClassName"] == "a10-vgpu"
    expected = {"dev": {"4GiB": "a10-vgpu-4gib"}, "prod": {"8GiB": "a10-vgpu-8gib", "24GiB": "a10-vgpu-24gib"}}
    assert outputs["claimTemplateNames"] == expected[stack]


def test_cli_render_is_byte_identical_to_an_earlier_render(rendered, tmp_path):
    _, folder, written = rendered["dev"]
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main(["render", "--stack", "dev", "--project-dir", str(ROOT), "--out", str(tmp_path)]) == 0
    again = sorted(p for p in tmp_path.rglob("*") if p.is_file() and p.name != MANIFEST)
    assert stdout.getvalue().split() == [str(p) for p in again]
    assert [p.relative_to(tmp_path) for p in again] == [p.relative_to(folder) for p in written]
    for new, old in zip(again, written, strict=True):
        assert new.read_bytes() == old.read_bytes(), new.name


def test_rerender_removes_what_it_wrote_before_and_keeps_other_files(rendered, tmp_path):
    dev, prod = rendered["dev"][0], rendered["prod"][0]
    render(dev, tmp_path)
    stale = tmp_path / "kubernetes" / "job-nvidia-smi.yaml"
    assert stale.exists()
    mine = {tmp_path / "NOTES.txt": "mine\n", tmp_path / "kubernetes" / "mine.yaml": "mine\n",
            tmp_path / "helm" / "old-release" / "values.yaml": "{}\n"}
    for path, text in mine.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    render(prod, tmp_path)
    assert not stale.exists()  # written by the dev render, not declared by prod
    assert {path: path.read_text() for path in mine} == mine  # never written by render: untouched
    assert (tmp_path / "kubernetes" / "deviceclass-a10-vgpu.yaml").exists()
