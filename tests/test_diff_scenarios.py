"""Change scenarios on the real stacks, planned by the real program and diffed as a pull request would: what an update
preview of pulumi-azure-native and pulumi-kubernetes would show for each kind of change."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from components.offline import load_project, run_project
from components.offline.project import StackFileError
from components.review.diff import diff_plans
from components.review.diff_text import format_diff
from tests.conftest import ROOT

NS = "aks-dra-vgpu:"
Config = dict[str, Any]
KUBERNETES = ("kubernetes:", "pulumi:providers:kubernetes")


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[Config], None]], Any]:
    """Plans a stack as it is and with one edit; returns the diff of the two."""
    work = tmp_path_factory.mktemp("scenarios")
    shutil.copy(ROOT / "Pulumi.yaml", work / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", work / "__main__.py")
    (work / "stacks").mkdir()
    base: dict[str, dict[str, Any]] = {}

    def plan(stack: str, config: Config) -> dict[str, Any]:
        (work / "stacks" / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False))
        return json.loads(run_project(load_project(work), stack).to_json())

    def run(stack: str, edit: Callable[[Config], None]):
        original = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
        if stack not in base:
            base[stack] = plan(stack, original)
        changed = copy.deepcopy(original)
        edit(changed)
        after = plan(stack, changed)
        run.last_plans = (base[stack], after)
        return diff_plans(base[stack], after)

    return run


def operations(result) -> dict[str, str]:
    return {r.name: r.operation for r in result.resources}


def kubernetes_touched(result) -> list[str]:
    return [r.name for r in result.resources if r.type.startswith(KUBERNETES)]


def pools(config: Config) -> list[dict[str, Any]]:
    return config[NS + "gpuPools"]


@pytest.mark.parametrize("edit", [
    lambda c: c[NS + "cluster"]["tags"].update(team="ml"),
    lambda c: c[NS + "cluster"].update(skuTier="Premium"),
    lambda c: c[NS + "cluster"]["systemPool"].update(count=5),
], ids=["tags", "tier", "system-count"])
def test_in_place_cluster_changes_touch_no_kubernetes_object(scenario, edit):
    result = scenario("prod", edit)
    assert result.has_changes and kubernetes_touched(result) == []
    assert set(operations(result).values()) == {"update"}, operations(result)
    assert result.exit_status == 3


def test_a_kubernetes_upgrade_upgrades_the_control_plane_and_every_pool_in_place(scenario):
    result = scenario("prod", lambda c: c[NS + "cluster"].update(kubernetesVersion="1.36"))
    ops = operations(result)
    names = [f"gpu-{p['name']}-pool" for p in pools(yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"])]
    # On 1.36 the chart's gpu.nvidia.com maps nvidia.com/gpu, and the package keeps a class of its own for that name
    # (created, so that no later change deletes one: config/extended_rules.py).
    kept = {"gpu-extended-resources": "create", "gpu-extended-resources-aks-dra-vgpu-nvidia-gpu": "create"}
    assert len(names) >= 2 and ops == {"gpu-cluster-aks": "update", **dict.fromkeys(names, "update"), **kept}
    for pool in names:
        (change,) = next(r for r in result.resources if r.name == pool).changes
        assert (change.path, change.old, change.new) == ("orchestratorVersion", "1.35", "1.36")
    text = format_diff(result)
    assert "rolling upgrade" in text and "surge" in text
    assert kubernetes_touched(result) == ["gpu-extended-resources-aks-dra-vgpu-nvidia-gpu"]
    assert result.exit_status == 3


def test_a_pool_pinned_for_a_staged_rollout_stays_behind(scenario):
    # The MIG stack's pools: no class maps a name that selects a MIG slice there (extendedResources is not set, and
    # the chart's gpu.nvidia.com selects whole GPUs only), so a 1.35 kubelet is no hazard.
    def edit(c: Config) -> None:
        c[NS + "cluster"]["kubernetesVersion"] = "1.36"
        pools(c)[1]["kubernetesVersion"] = "1.35"

    ops = operations(scenario("mig", edit))
    pinned = f"gpu-{pools(yaml.safe_load((ROOT / 'stacks' / 'Pulumi.mig.yaml').read_text())['config'])[1]['name']}-pool"
    assert ops["gpu-cluster-aks"] == "update" and pinned not in ops


def test_an_a10_pool_cannot_stay_behind_on_1_35_where_the_chart_maps_nvidia_gpu(scenario):
    def edit(c: Config) -> None:
        c[NS + "cluster"]["kubernetesVersion"] = "1.36"
        pools(c)[1]["kubernetesVersion"] = "1.35"

    with pytest.raises(StackFileError, match=r"gpuPools\[1\] \(a10full\)\.kubernetesVersion: '1\.35' is older than 1\.36, "
                       r"and the classes that map nvidia\.com/gpu select this pool's slices: .* the container runs "
                       r"without the GPU while the device stays allocated; pin '1\.36' or newer"):
        scenario("prod", edit)


def test_skipping_a_minor_version_is_refused(scenario):
    result = scenario("prod", lambda c: c[NS + "cluster"].update(kubernetesVersion="1.37"))
    assert operations(result)["gpu-cluster-aks"] == "refused" and result.exit_status == 4


def test_replacing_the_dev_cluster_replaces_everything_in_it(scenario):
    result = scenario("dev", lambda c: c[NS + "cluster"].update(location="northeurope"))
    ops = operations(result)
    assert ops["gpu-cluster-aks"] == "replace" and ops["gpu-cluster-k8s"] == "replace"
    assert ops["gpu-a10s-pool"] == "replace"
    kube = [r for r in result.resources if r.type.startswith("kubernetes:")]
    assert kube and all(r.operation == "replace" for r in kube)
    assert next(r for r in result.resources if r.name == "gpu-cluster-aks").delete_before_replace is True
    assert not result.blocked


def test_a_vm_size_change_replaces_the_pool_delete_first(scenario):
    result = scenario("prod", lambda c: pools(c)[1].update(vmSize="Standard_NV36adms_A10_v5"))
    (pool,) = result.resources
    assert (pool.name, pool.operation, pool.delete_before_replace) == ("gpu-a10full-pool", "replace", True)
    assert "DOWNTIME" in format_diff(result)


@pytest.mark.parametrize("edit", [
    lambda c: pools(c)[0].update(maxPods=60),
    lambda c: pools(c)[0].update(zones=["1"]),
    lambda c: pools(c)[0].update(osDiskSizeGb=256),
], ids=["maxPods", "zones", "osDisk"])
def test_pool_changes_aks_refuses_are_refused_with_exit_4(scenario, edit):
    result = scenario("prod", edit)
    (pool,) = result.resources
    assert pool.operation == "refused" and pool.refused_by == "Azure"
    assert "safe path" in format_diff(result) and result.exit_status == 4


def test_new_autoscaling_bounds_are_an_update(scenario):
    result = scenario("prod", lambda c: pools(c)[0]["autoscaling"].update(maxCount=9))
    assert operations(result) == {"gpu-a10third-pool": "update"} and result.exit_status == 3


def test_a_chart_upgrade_is_in_place_and_a_downgrade_is_refused(scenario):
    up = scenario("prod", lambda c: c[NS + "draDriver"].update(chartVersion="25.8.1"))
    (release,) = [r for r in up.resources if r.type == "kubernetes:helm.sh/v3:Release"]
    # prod runs 0.4.1: going back to 25.8.1 is refused (the plugin's checkpoint is forward-only)
    assert release.operation == "refused" and up.exit_status == 4
    assert any("forward-only" in r.why for r in release.reasons)
    # Neither Helm nor the API server stops a downgrade: the package refuses it as its own policy.
    assert release.refused_by == "this package"
    assert "REFUSED by this package's policy" in format_diff(up) and "Kubernetes API server" not in format_diff(up)


def test_from_25_8_1_to_0_4_1_the_release_is_updated_in_place(scenario):
    scenario("prod", lambda c: c[NS + "draDriver"].update(chartVersion="25.8.1"))
    on_0_4_1, on_25_8_1 = scenario.last_plans
    forward = diff_plans(on_25_8_1, on_0_4_1)  # the upgrade: a stack on 25.8.1 moving to 0.4.1
    (release,) = [r for r in forward.resources if r.type == "kubernetes:helm.sh/v3:Release"]
    assert release.operation == "update" and forward.exit_status == 3
    assert any(w.startswith("chart:") and "in-place" in w for w in release.warnings)


def test_a_claim_template_spec_change_replaces_it_delete_first(scenario):
    result = scenario("dev", lambda c: c[NS + "samples"].update(memoryMarginPercent=20))
    templates = [r for r in result.resources if r.type == "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"]
    assert templates and all(r.operation == "replace" and r.delete_before_replace for r in templates)
    assert result.exit_status == 3


def test_a_renamed_driver_release_is_replaced_delete_first(scenario):
    result = scenario("dev", lambda c: c.setdefault(NS + "draDriver", {}).update(releaseName="dra"))
    (release,) = [r for r in result.resources if r.type == "kubernetes:helm.sh/v3:Release"]
    assert release.operation == "replace" and release.delete_before_replace is True


def test_prod_moving_region_while_protected_is_refused(scenario):
    result = scenario("prod", lambda c: c[NS + "cluster"].update(location="northeurope"))
    (cluster,) = [r for r in result.resources if r.type == "azure-native:containerservice:ManagedCluster"]
    assert cluster.operation == "refused" and cluster.refused_by == "Pulumi" and result.exit_status == 4


def test_prod_moving_region_and_unprotecting_in_one_update_is_a_delete_first_replacement(scenario):
    result = scenario("prod", lambda c: c[NS + "cluster"].update(location="northeurope", protect=False))
    (cluster,) = [r for r in result.resources if r.type == "azure-native:containerservice:ManagedCluster"]
    assert cluster.operation == "replace" and cluster.delete_before_replace is True
    assert any("protect is turned off in this same update" in w for w in cluster.warnings)
    assert result.exit_status == 3
