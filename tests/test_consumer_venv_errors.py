"""A consumer's mistakes are told at the consumer's own line even when the virtualenv lives inside the project (Pulumi's
own layout: `.venv/lib/python3.x/site-packages/aks_dra_vgpu/...` is under the project's folder, but not the user's code)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from components.cli import main

ROOT = Path(__file__).resolve().parents[1]
IMPORT_NAME = "aks_dra_vgpu"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project whose virtualenv holds the package (a link to this checkout's sources) under its own folder, imported
    from there by the program as an installed package would be."""
    site = tmp_path / ".venv" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    site.mkdir(parents=True)
    (site / IMPORT_NAME).symlink_to(ROOT / "components", target_is_directory=True)
    (tmp_path / "Pulumi.yaml").write_text("name: consumer\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    before = {name: module for name, module in sys.modules.items() if name.split(".")[0] == IMPORT_NAME}
    for name in before:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(site))
    yield tmp_path
    for name in [n for n in sys.modules if n.split(".")[0] == IMPORT_NAME]:
        del sys.modules[name]
    sys.modules.update(before)


def plan_errors(project: Path, program: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    (project / "__main__.py").write_text(program)
    assert main(["plan", "--stack", "dev", "--project-dir", str(project)]) == 2
    return capsys.readouterr().err.strip().splitlines()


def test_the_package_is_imported_from_inside_the_project(project, capsys):
    lines = plan_errors(project, f"import {IMPORT_NAME}\nraise RuntimeError({IMPORT_NAME}.__file__)\n", capsys)
    assert f".venv/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages/{IMPORT_NAME}/" in lines[0]


def test_a_wrong_argument_type_is_told_at_the_programs_line(project, capsys):
    program = (f"from {IMPORT_NAME} import GpuNodePool, GpuNodePoolArgs\n\n"
               'GpuNodePool("nc-a10", GpuNodePoolArgs(name="a", vm_size="Standard_NV12ads_A10_v5", cluster_name="c",\n'
               '                                     resource_group_name="rg", max_pods="many"))\n')
    lines = plan_errors(project, program, capsys)
    assert len(lines) == 1 and lines[0].startswith(
        "__main__.py:3: GpuNodePool 'nc-a10': invalid GpuNodePoolArgs: max_pods:"), lines


def test_a_missing_provider_is_told_at_the_programs_line(project, capsys):
    program = (f"from {IMPORT_NAME} import DraSamples, DraSamplesArgs\n\n"
               'DraSamples("demo", DraSamplesArgs(pools=[{"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5"}]))\n')
    assert plan_errors(project, program, capsys) == [
        "__main__.py:3: DraSamples 'demo': DraSamples needs an explicit Kubernetes provider: opts.providers: pass "
        "providers={'kubernetes': provider}"]


def test_an_attribute_error_inside_the_package_is_told_at_the_programs_line(project, capsys):
    program = (f"import pulumi\nfrom {IMPORT_NAME} import DraSamples, DraSamplesArgs\n\n"
               'DraSamples("demo", DraSamplesArgs(pools=[{"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5"}]),\n'
               '           opts=pulumi.ResourceOptions(providers=["not a provider"]))\n')
    lines = plan_errors(project, program, capsys)
    assert len(lines) == 1 and lines[0].startswith("__main__.py:4: "), lines
    assert "AttributeError" in lines[0] and "site-packages" not in lines[0], lines
