"""The example stack `mig`: an A10 pool and an A100 MIG pool side by side, planned offline, and what `diff` says when
the MIG pool's profile changes."""

from __future__ import annotations

import copy
import json
import shutil
from typing import Any

import pytest
import yaml

from components.offline import load_project, run_project
from components.policies import check_gpu_pool
from components.review.diff import diff_plans
from components.review.diff_text import format_diff
from tests.conftest import ROOT

NS = "aks-dra-vgpu:"
POOL = "azure-native:containerservice:AgentPool"
CONFIG = yaml.safe_load((ROOT / "stacks" / "Pulumi.mig.yaml").read_text())["config"]


@pytest.fixture(scope="module")
def plan_of(tmp_path_factory: pytest.TempPathFactory):
    """Plans the project with a given `mig` stack config (the real program, offline)."""
    work = tmp_path_factory.mktemp("mig")
    shutil.copy(ROOT / "Pulumi.yaml", work / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", work / "__main__.py")
    (work / "stacks").mkdir()

    def plan(config: dict[str, Any]) -> dict[str, Any]:
        (work / "stacks" / "Pulumi.mig.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False))
        return json.loads(run_project(load_project(work), "mig").to_json())

    return plan


@pytest.fixture(scope="module")
def base(plan_of) -> dict[str, Any]:
    return plan_of(CONFIG)


def pools(plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["inputs"]["agentPoolName"]: r["inputs"] for r in plan["resources"] if r["type"] == POOL}


def test_the_example_stack_plans_both_families(base):
    found = pools(base)
    assert found["a100mig"]["vmSize"] == "Standard_NC24ads_A100_v4"
    assert found["a100mig"]["gpuInstanceProfile"] == "MIG3g"  # written as 3g.40gb, sent in AKS's words
    assert found["a100mig"]["gpuProfile"] == {"driver": "Install"}
    assert found["a100mig"]["nodeLabels"] == {"nvidia.com/gpu.present": "true"}
    assert "gpuInstanceProfile" not in found["a10s"]
    release = next(r for r in base["resources"] if r["type"] == "kubernetes:helm.sh/v3:Release")
    # The kubelet plugin tolerates the MIG pool's taint: its nodes get a plugin and ResourceSlices too.
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"} in \
        release["inputs"]["values"]["kubeletPlugin"]["tolerations"]


def test_a_profile_change_replaces_the_mig_pool_delete_first_with_its_source(plan_of, base):
    changed = copy.deepcopy(CONFIG)
    changed[NS + "gpuPools"][1]["gpuInstanceProfile"] = "MIG2g"
    result = diff_plans(base, plan_of(changed))
    pool, *templates = result.resources
    assert (pool.name, pool.operation, pool.delete_before_replace) == ("gpu-a100mig-pool", "replace", True)
    # The samples' claim template follows the slice the pool now lays out: 3g.40gb goes, 2g.20gb comes.
    assert sorted((t.name, t.operation) for t in templates) == [
        ("gpu-dra-samples-a100-80gb-2g.20gb", "create"), ("gpu-dra-samples-a100-80gb-3g.40gb", "delete")]
    (change,) = pool.changes
    assert change.path == "gpuInstanceProfile"
    text = format_diff(result)
    assert "DOWNTIME" in text and "https://github.com/pulumi/pulumi-azure-native/pull/3655" in text


def test_the_slice_name_and_the_aks_name_are_the_same_pool(plan_of, base):
    changed = copy.deepcopy(CONFIG)
    changed[NS + "gpuPools"][1]["gpuInstanceProfile"] = "MIG3g"
    assert not diff_plans(base, plan_of(changed)).has_changes


def test_the_example_stack_passes_the_gpu_pool_policy(base):
    for r in base["resources"]:
        if r["type"] == POOL:
            assert check_gpu_pool(POOL, r["inputs"]) == [], r["name"]


def test_the_plan_tree_shows_the_mig_pools_profile_beside_its_size_and_only_there() -> None:
    from components.review.tree import render_tree

    tree = render_tree(run_project(load_project(ROOT), "mig")).splitlines()
    size = tree.index("        vmSize: Standard_NC24ads_A100_v4")
    assert tree[size + 1] == "        gpuInstanceProfile: MIG3g"  # immutable: a new value replaces the pool
    assert sum("gpuInstanceProfile" in line for line in tree) == 1  # the A10 pool has none
