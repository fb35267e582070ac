"""The code stays ruff-clean (settings in pyproject.toml)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.forked_command import run_with_the_package_of


def test_ruff_is_clean():
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' installs it)")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "concise", str(ROOT)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_importing_the_package_for_config_does_not_load_cloud_sdks(fresh_process):
    assert not any(m.startswith(("pulumi_azure_native", "pulumi_kubernetes")) for m in fresh_process["imported"])


def test_the_dev_plan_builds_no_model_it_does_not_use(fresh_process):
    # Building a pydantic model (its core schema, validator and serializer) is most of what importing the config layer
    # costs. The models of a fleet stack, of a MIG pool's slices, of claim templates and of sections only ever nested
    # in a stack are built when first used (`defer_build`), so the dev plan (no fleet, no MIG) builds none of them.
    assert fresh_process["status"] == 0
    deferred = {"FleetConfig", "FleetHubConfig", "UpdateStrategyConfig", "UpdateStageConfig", "AutoUpgradeConfig",
                "FleetStackConfig", "FleetMembershipConfig", "MigSliceRef", "DraClaimTemplatesArgs", "GpuPlatformArgs",
                "ClusterConfig", "AksClusterArgs", "ResourceGroupConfig", "SystemPoolConfig", "AdminPrincipal",
                "AutoscalingConfig", "SpotConfig", "MaintenanceWindowConfig"}
    assert "StackConfig" in fresh_process["built"]
    assert deferred.isdisjoint(fresh_process["built"]), sorted(deferred & set(fresh_process["built"]))


def test_a_deferred_model_refuses_bad_input_on_its_first_use():
    # With the package imported afresh (a fork that imports it again), so that FleetConfig's first validation is the
    # one that builds it.
    probe = ("from components.config import ConfigError, FleetConfig\n"
             "from components.config.validation import validate\n"
             "assert type(FleetConfig.__pydantic_validator__).__name__ == 'MockValSer', 'built before its first use'\n"
             "try:\n    validate(FleetConfig, {'resourceGroup': 'rg'}, 'fleet')\n"
             "except ConfigError as exc:\n    print(exc)\n")
    out = run_with_the_package_of(ROOT, probe)
    assert "fleet.name: required key is missing" in out
    assert "fleet.resourceGroup: unknown key (did you mean 'resourceGroupName'?)" in out
