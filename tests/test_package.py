"""The package as others install it: one version everywhere, a changelog for it, typed, and a lazy public API."""

from __future__ import annotations

import re
import subprocess
import sys

try:
    import tomllib
except ImportError:  # Python 3.10: pytest brings tomli there
    import tomli as tomllib

import components
from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
PUBLIC = ("AksCluster", "GpuNodePool", "NvidiaDraDriver", "DraSamples", "GpuPlatform")


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
    newest = text.split(f"## [{components.__version__}]", 1)[1].split("\n## [", 1)[0]
    assert "### Added" in newest
    for name in PUBLIC:
        assert f"`{name}`" in newest, name
    sections = set(re.findall(r"^### (.+)$", text, re.M))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, sections


def test_the_package_is_typed_and_ships_its_marker():
    assert (ROOT / "components" / "py.typed").is_file()
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert "py.typed" in setuptools["package-data"]["components"]
    assert setuptools["packages"]["find"]["include"] == ["components*"]
    # find_packages only sees folders with an __init__.py: every code folder of the package needs one.
    for folder in (ROOT / "components").rglob("*"):
        if folder.is_dir() and folder.name != "__pycache__" and any(folder.glob("*.py")):
            assert (folder / "__init__.py").is_file(), folder


def test_requirements_txt_matches_the_package_dependencies():
    """Pulumi programs and the multi-language plugin install requirements.txt; pip install reads pyproject.toml."""

    def names(lines: list[str]) -> set[str]:
        return {re.split(r"[<>=!~ ;\[]", line.strip(), maxsplit=1)[0].lower().replace("_", "-")
                for line in lines if line.strip() and not line.strip().startswith("#")}

    required = names(PYPROJECT["project"]["dependencies"])
    assert names((ROOT / "requirements.txt").read_text().splitlines()) == required


def test_public_api_is_lazy_and_complete():
    assert set(PUBLIC) | {f"{n}Args" for n in PUBLIC} | {"load_stack_config"} <= set(components.__all__)
    code = (
        "import sys, components\n"
        "heavy = [m for m in sys.modules if m.startswith(('pulumi_azure_native', 'pulumi_kubernetes'))]\n"
        "assert not heavy and 'components.provider_host' not in sys.modules, heavy\n"
        "from components import GpuPlatform, GpuNodePool, NvidiaDraDriver, DraSamples, AksCluster\n"
        "import pulumi\n"
        "assert all(issubclass(c, pulumi.ComponentResource) for c in (GpuPlatform, GpuNodePool, NvidiaDraDriver,"
        " DraSamples, AksCluster))\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip() == "ok", result.stderr
