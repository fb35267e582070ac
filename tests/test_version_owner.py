"""Who moves a cluster's Kubernetes version: where a fleet's update runs or AKS's stable/rapid channel do, they move
the control plane and every pool together, so the stack diffs neither the cluster's version nor any pool's, refuses a
pool pinned apart, and `diff` says who owns a version the stack file changes."""

from __future__ import annotations

import copy
import json

import pytest

from components.azure.gpu_pool import GpuNodePoolArgs
from components.config import ConfigError, StackConfig, stack_config_from_mapping
from components.offline import capture
from components.offline.capture import ORGANIZATION
from components.platform import GpuPlatform
from components.review.diff import diff_plans
from tests.conftest import MINIMAL_STACK, as_config

CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
OWNED = ["kubernetesVersion", "agentPoolProfiles[0].orchestratorVersion"]


def stack(version: str = "1.35", member: bool = True, channel: str | None = None) -> dict:
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = version
    data["gpuPools"].append({"name": "second", "vmSize": "Standard_NV36ads_A10_v5", "count": 1})
    if channel:
        data["cluster"]["upgrades"] = {"channel": channel}
    if member:
        data["fleetMembership"] = {"fleetStack": "fleet", "group": "canary"}
    return data


def plan_of(data: dict, preview: bool = False) -> dict:
    config = StackConfig.model_validate(data)
    outputs = {f"{ORGANIZATION}/aks-dra-vgpu/fleet": {"fleetName": "fleet-a", "fleetResourceGroupName": "rg-fleet"}}
    return json.loads(capture(lambda: GpuPlatform("gpu", config), preview=preview, stack_outputs=outputs).to_json())


def of_type(plan: dict, type_: str) -> list[dict]:
    return [r for r in plan["resources"] if r["type"] == type_]


@pytest.mark.parametrize("owner", [{"member": True}, {"member": False, "channel": "stable"},
                                   {"member": False, "channel": "rapid"}], ids=["fleet", "stable", "rapid"])
def test_an_owned_version_is_sent_at_creation_and_diffed_nowhere(owner, preview):
    plan = plan_of(stack(**owner), preview)
    (cluster,) = of_type(plan, CLUSTER)
    assert sorted(cluster["options"]["ignoreChanges"]) == sorted(OWNED)
    assert cluster["inputs"]["agentPoolProfiles"][0]["orchestratorVersion"] == "1.35"
    pools = of_type(plan, POOL)
    assert len(pools) == 2
    for pool in pools:
        assert "orchestratorVersion" in pool["options"]["ignoreChanges"], pool["name"]
        assert pool["inputs"]["orchestratorVersion"] == "1.35"  # the version a new pool starts at


@pytest.mark.parametrize("channel", [None, "none", "patch", "node-image"])
def test_a_version_the_stack_owns_is_diffed_on_the_cluster_and_every_pool(channel):
    plan = plan_of(stack(member=False, channel=channel))
    assert of_type(plan, CLUSTER)[0]["options"]["ignoreChanges"] == []
    assert all("orchestratorVersion" not in p["options"]["ignoreChanges"] for p in of_type(plan, POOL))


@pytest.mark.parametrize("owner", [{"member": True}, {"member": False, "channel": "stable"}], ids=["fleet", "stable"])
def test_raising_an_owned_version_moves_no_pool_ahead_and_says_who_owns_it(owner):
    result = diff_plans(plan_of(stack("1.35", **owner)), plan_of(stack("1.36", **owner)))
    azure = [r for r in result.resources if r.type.startswith("azure-native:")]
    assert azure == [], [(r.name, r.operation, [c.path for c in r.changes]) for r in azure]
    (said,) = [w for w in result.warnings if "kubernetesVersion 1.35 -> 1.36" in w]
    assert said.startswith("gpu-cluster-aks: kubernetesVersion 1.35 -> 1.36 is not applied by this update, to the "
                           "control plane or to any pool: "), said
    who = ("the fleet's update runs own this member's version" if owner["member"]
           else "AKS's auto-upgrade channel 'stable' owns it")
    assert who in said, said


def test_a_pool_moved_while_the_control_plane_is_ignored_is_refused_as_aks_refuses_it():
    # A program (an older one, or someone's own) that diffs the pools' versions but not the cluster's: the update
    # sends the deployed control plane's 1.35 and the pools' 1.36.
    old, new = plan_of(stack("1.35")), plan_of(stack("1.36"))
    for pool in of_type(new, POOL):
        pool["options"]["ignoreChanges"] = []
    result = diff_plans(old, new)
    refused = [r for r in result.resources if r.type == POOL]
    assert refused and all(r.operation == "refused" for r in refused), [(r.name, r.operation) for r in refused]
    assert any("'1.36' is newer than the control plane (1.35)" in why.why for r in refused for why in r.reasons)


@pytest.mark.parametrize(("owner", "named"), [
    ({"member": True}, "the fleet's update runs (fleetMembership)"),
    ({"member": False, "channel": "stable"}, "AKS's upgrades.channel 'stable'"),
])
def test_a_pool_pinned_apart_from_an_owned_version_is_refused(owner, named):
    data = stack(**owner)
    data["gpuPools"][1]["kubernetesVersion"] = "1.34"
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    assert [str(p) for p in caught.value.problems] == [
        f"gpuPools[1].kubernetesVersion: '1.34' pins this pool, but the cluster's version belongs to {named}, each of "
        "whose upgrades moves the control plane and every pool together, and the stack sends a pool's version only "
        "when it creates the pool; leave it unset (the pool starts at the control plane's version and moves with it)"]
    # beside another mistake, still said
    data["cluster"]["protect"] = "maybe"
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    assert [p.path for p in caught.value.problems] == ["cluster.protect", "gpuPools[1].kubernetesVersion"]


def test_a_gpu_node_pool_pinned_and_upgraded_with_its_cluster_is_refused():
    with pytest.raises(ConfigError) as caught:
        GpuNodePoolArgs(**{**MINIMAL_STACK["gpuPools"][0], "clusterName": "c", "resourceGroupName": "rg",
                           "kubernetesVersion": "1.35", "upgradedWithCluster": True})
    assert "kubernetes_version: '1.35' pins this pool, but upgraded_with_cluster says" in str(caught.value)
