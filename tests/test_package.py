"""The package as others install it: its own import name (`aks_dra_vgpu`) beside a consumer's own `components`, one
version everywhere, a changelog for it, typed, a lazy public API, and Python API errors named as Python writes them."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10: pytest brings tomli there
    import tomli as tomllib

import components
from components.config import ConfigError
from tests.conftest import ROOT, parsed

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
PUBLIC = ("AksCluster", "GpuNodePool", "NvidiaDraDriver", "DraSamples", "GpuPlatform")
IMPORT_NAME = "aks_dra_vgpu"


def test_one_semver_version_in_pyproject_and_the_package():
    version = PYPROJECT["project"]["version"]
    assert SEMVER.match(version), version
    assert components.__version__ == version


def test_changelog_follows_keep_a_changelog_and_describes_this_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n")
    assert "Keep a Changelog" in text and "Semantic Versioning" in text
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert headings[0] == ("Unreleased", ""), headings
    released = headings[1:]
    assert released and all(SEMVER.match(v) and d for v, d in released), released
    assert released[0][0] == components.__version__, "the newest release in CHANGELOG.md is not the package's version"
    dates = [d for _, d in released]
    assert dates == sorted(dates, reverse=True)
    sections = set(re.findall(r"^### (.+)$", text, re.M))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, sections
    for name in PUBLIC:
        assert f"`{name}`" in text, name


def test_changelog_tells_how_to_move_from_components_to_aks_dra_vgpu():
    newest = (ROOT / "CHANGELOG.md").read_text().split(f"## [{components.__version__}]", 1)[1].split("\n## [", 1)[0]
    assert "### Changed" in newest and "Migrat" in newest
    assert "from components import" in newest and f"from {IMPORT_NAME} import" in newest
    assert f"python -m {IMPORT_NAME}" in newest


def test_only_the_import_name_is_installed_mapped_onto_the_components_folder():
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert setuptools["package-dir"] == {IMPORT_NAME: "components"}
    assert "py.typed" in setuptools["package-data"][IMPORT_NAME]
    assert (ROOT / "components" / "py.typed").is_file()
    # Every code folder is a listed package (and has an __init__.py), under the import name only.
    folders = sorted(
        folder for folder in [ROOT / "components", *(ROOT / "components").rglob("*")]
        if folder.is_dir() and folder.name != "__pycache__" and any(folder.glob("*.py"))
    )
    for folder in folders:
        assert (folder / "__init__.py").is_file(), folder
    expected = [".".join((IMPORT_NAME, *f.relative_to(ROOT / "components").parts)) for f in folders]
    assert sorted(setuptools["packages"]) == sorted(expected)


def test_code_inside_the_package_imports_itself_only_relatively():
    # Installed, the package is `aks_dra_vgpu`: an absolute `components` import would find the consumer's folder.
    for path in (ROOT / "components").rglob("*.py"):
        for node in ast.walk(parsed(path)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            assert not any(n == "components" or n.startswith("components.") for n in names), f"{path}:{node.lineno}"


def test_requirements_txt_matches_the_package_dependencies():
    """Pulumi programs and the multi-language plugin install requirements.txt; pip install reads pyproject.toml."""

    def names(lines: list[str]) -> set[str]:
        return {re.split(r"[<>=!~ ;\[]", line.strip(), maxsplit=1)[0].lower().replace("_", "-")
                for line in lines if line.strip() and not line.strip().startswith("#")}

    required = names(PYPROJECT["project"]["dependencies"])
    assert names((ROOT / "requirements.txt").read_text().splitlines()) == required


def test_public_api_is_lazy_and_complete(tmp_path):
    assert set(PUBLIC) | {f"{n}Args" for n in PUBLIC} | {"load_stack_config"} <= set(components.__all__)
    code = (
        f"import sys, {IMPORT_NAME} as package\n"
        "heavy = [m for m in sys.modules if m.startswith(('pulumi_azure_native', 'pulumi_kubernetes'))]\n"
        f"assert not heavy and '{IMPORT_NAME}.provider_host' not in sys.modules, heavy\n"
        "assert 'components' not in sys.modules\n"
        f"from {IMPORT_NAME} import GpuPlatform, GpuNodePool, NvidiaDraDriver, DraSamples, AksCluster\n"
        "import pulumi\n"
        "assert all(issubclass(c, pulumi.ComponentResource) for c in (GpuPlatform, GpuNodePool, NvidiaDraDriver,"
        " DraSamples, AksCluster))\n"
        "print('ok')\n"
    )
    # From another folder: the installed name, not the checkout's folder.
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert result.stdout.strip() == "ok", result.stderr


# --- installed for real (not editable), beside a consumer's own `components` package ------------------------------------
CONSUMER_MAIN = """\
import pulumi

from aks_dra_vgpu import GpuNodePool, GpuNodePoolArgs
from components.tagging import TEAM_LABELS  # the consumer's own package of the same folder name

config = pulumi.Config()
pool = GpuNodePool(
    "a10s",
    GpuNodePoolArgs(
        name="a10s",
        vm_size="Standard_NV6ads_A10_v5",
        labels=TEAM_LABELS,
        cluster_name=config.require("clusterName"),
        resource_group_name=config.require("resourceGroupName"),
    ),
)
pulumi.export("poolName", pool.pool_name)
"""


def build_installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A fresh virtualenv with the package's wheel installed (no link to this checkout), and a consumer project: the
    session's `installed` fixture (tests/conftest.py), built once for this module and tests/test_docs_snippets.py.

    The wheel is built by the project's own build backend from a copy of the sources; the virtualenv reaches the
    dependencies (pulumi, pydantic, …) of the one running the tests through a path file, not this package.
    """
    work = tmp_path_factory.mktemp("install")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "components", source / "components", ignore=shutil.ignore_patterns("__pycache__"))
    build = "from setuptools import build_meta; print(build_meta.build_wheel(r'%s'))" % (work / "dist")
    built = subprocess.run([sys.executable, "-c", build], cwd=source, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    wheel = work / "dist" / built.stdout.strip().splitlines()[-1]

    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True, text=True,
    )
    assert installed.returncode == 0, installed.stderr
    target = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    # Path-file lines only add folders: the editable install's own path file in there is not run, so only the wheel
    # provides aks_dra_vgpu in this virtualenv.
    (Path(target) / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")

    consumer = work / "consumer"
    (consumer / "components").mkdir(parents=True)
    (consumer / "components" / "__init__.py").write_text('"""The consumer\'s own components."""\n')
    (consumer / "components" / "tagging.py").write_text('TEAM_LABELS = {"team": "ml-platform"}\n')
    (consumer / "Pulumi.yaml").write_text("name: consumer-gpu\nruntime: python\n")
    (consumer / "Pulumi.dev.yaml").write_text(
        "config:\n  consumer-gpu:clusterName: aks-shared\n  consumer-gpu:resourceGroupName: rg-shared\n"
    )
    (consumer / "__main__.py").write_text(CONSUMER_MAIN)
    return python, consumer


def _run(python: Path, consumer: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PULUMI_CONFIG")}
    return subprocess.run([str(python), *args], cwd=consumer, capture_output=True, text=True, env=env, timeout=300)


def test_the_wheel_holds_only_aks_dra_vgpu_and_both_packages_import(installed):
    python, consumer = installed
    code = textwrap.dedent(f"""
        import json, sys
        import {IMPORT_NAME}, components.tagging
        from importlib.metadata import files
        print(json.dumps({{"package": {IMPORT_NAME}.__file__, "version": {IMPORT_NAME}.__version__,
                          "consumer": components.__file__, "labels": components.tagging.TEAM_LABELS,
                          "top": sorted({{str(f).split("/")[0] for f in files("aks-dra-vgpu")}})}}))
    """)
    result = _run(python, consumer, "-c", code)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert str(python.parent.parent) in found["package"] and found["version"] == components.__version__
    assert found["consumer"] == str(consumer / "components" / "__init__.py")
    assert found["labels"] == {"team": "ml-platform"}
    assert found["top"] == [IMPORT_NAME, f"aks_dra_vgpu-{components.__version__}.dist-info"]


def test_the_installed_package_ships_the_plugin_schema_it_serves(installed):
    python, consumer = installed
    code = f"from {IMPORT_NAME}.host.server import committed_schema; print(sorted(committed_schema()['resources']))"
    result = _run(python, consumer, "-c", code)
    assert result.returncode == 0, result.stderr
    assert "'aks-dra-vgpu:index:DraClaimTemplates'" in result.stdout


def test_the_installed_cli_plans_a_consumer_project_that_has_its_own_components(installed):
    python, consumer = installed
    result = _run(python, consumer, "-m", IMPORT_NAME, "plan", "--project-dir", str(consumer), "--stack", "dev", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    pool = next(r for r in doc["resources"] if r["type"] == "azure-native:containerservice:AgentPool")
    assert pool["inputs"]["nodeLabels"] == {"team": "ml-platform", "nvidia.com/gpu.present": "true"}
    assert pool["inputs"]["resourceName"] == "aks-shared"
    assert doc["outputs"]["poolName"] == "a10s"
    usage = _run(python, consumer, "-m", IMPORT_NAME, "--help")
    assert usage.stdout.startswith(f"usage: python -m {IMPORT_NAME} ")


# --- the Python API's errors --------------------------------------------------------------------------------------------
def test_bad_python_arguments_raise_one_error_named_as_python_writes_them():
    from components import NvidiaDraDriverArgs

    with pytest.raises(ConfigError) as caught:
        NvidiaDraDriverArgs(
            chart_version="25.12.0",
            pools=[{"name": "ok", "vm_size": "Standard_NV6ads_A10_v5"},
                   {"name": "gpu", "vm_size": "Standard_NV6ads", "taints": ["sku=gpu:NoSchedule", "sku=gpu"]}],
        )
    text = str(caught.value)
    lines = text.splitlines()
    assert lines[0] == "invalid NvidiaDraDriverArgs:"
    assert any(line.startswith("  pools[1].vm_size: 'Standard_NV6ads' is not an NVadsA10_v5 size") for line in lines)
    assert any(line.startswith("  pools[1].taints[1]: 'sku=gpu' is not a taint") for line in lines)
    # No pydantic footer, no internal markers, no stack-file names.
    for leftover in ("pydantic", "errors.pydantic.dev", "Value error", "[type=", "input_value", "vmSize"):
        assert leftover not in text, leftover


def test_python_errors_name_arguments_and_what_is_allowed_and_are_pulumi_input_errors():
    import pulumi

    from components import GpuNodePoolArgs

    with pytest.raises(ConfigError) as caught:
        GpuNodePoolArgs(name="gpu", vm_size="Standard_NC6s_v3", cluster_name=5, resource_group_name="rg",
                        autoscaling={"min_count": 3, "max_count": 2}, os_sku="Windows", zone=["1"])
    error = caught.value
    assert isinstance(error, pulumi.InputPropertiesError) and isinstance(error, ValueError)
    reasons = {e["property_path"]: e["reason"] for e in error.errors or []}
    assert set(reasons) == {"vm_size", "cluster_name", "autoscaling.min_count", "os_sku", "zone"}
    assert "choose one of Standard_NV6ads_A10_v5" in reasons["vm_size"]
    assert reasons["cluster_name"] == "must be a str or a pulumi.Output (got 5)"
    assert reasons["autoscaling.min_count"] == "3 is greater than max_count 2; need min <= max"
    assert "'Ubuntu' or 'AzureLinux'" in reasons["os_sku"]
    assert reasons["zone"].startswith("unknown argument (did you mean 'zones'?)")


def test_stack_files_and_the_schema_keep_their_camel_case_names():
    from components.config import StackConfig, validate

    with pytest.raises(ConfigError) as caught:
        validate(StackConfig, {"cluster": {"name": "x", "location": "westeurope", "resourceGroup": {"name": "rg"}},
                               "gpuPools": [{"name": "gpu", "vmSize": "Standard_NV6ads"}]})
    assert [p.path for p in caught.value.problems] == ["gpuPools[0].vmSize"]


def test_a_pool_is_defined_once_and_handed_to_the_driver_and_samples_as_it_is():
    from components import DraSamplesArgs, GpuNodePool, GpuNodePoolArgs, NvidiaDraDriverArgs
    from components.config import GpuPoolConfig
    from components.offline import capture

    args = GpuNodePoolArgs(name="gpu", vm_size="Standard_NV12ads_A10_v5", taints=["sku=gpu:NoSchedule"],
                           cluster_name="aks", resource_group_name="rg")
    settings = GpuPoolConfig(**args.model_dump(include=set(GpuPoolConfig.model_fields)))
    given: list[object] = [args, settings]
    capture(lambda: given.append(GpuNodePool("gpu", args)))  # the component itself
    for pool in given:
        for built in (NvidiaDraDriverArgs(pools=[pool]), DraSamplesArgs(pools=[pool])):
            assert type(built.pools[0]) is GpuPoolConfig and built.pools[0] == settings, pool
