"""The code stays ruff-clean (settings in pyproject.toml)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def test_ruff_is_clean():
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' installs it)")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "concise", str(ROOT)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_importing_the_package_for_config_does_not_load_cloud_sdks(fresh_process):
    assert not any(m.startswith(("pulumi_azure_native", "pulumi_kubernetes")) for m in fresh_process["imported"])
