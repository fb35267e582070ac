"""GpuFleet and a platform's FleetMember: what they register, in both engine modes, and the example fleet's plans."""

from __future__ import annotations

import copy

import pytest

from components.config import FleetConfig, StackConfig
from components.offline import Plan, capture, load_project, run_project
from components.offline.capture import ORGANIZATION
from components.platform import GpuPlatform
from tests.conftest import MINIMAL_STACK, ROOT

FLEET = "azure-native:containerservice:Fleet"
MEMBER = "azure-native:containerservice:FleetMember"
STRATEGY = "azure-native:containerservice:FleetUpdateStrategy"
PROFILE = "azure-native:containerservice:AutoUpgradeProfile"
CLUSTER = "azure-native:containerservice:ManagedCluster"

FLEET_DATA = {
    "name": "fleet-a", "resourceGroupName": "rg-fleet", "location": "westeurope",
    "updateStrategy": {"name": "staged", "stages": [
        {"name": "canary", "groups": ["canary"], "afterStageWaitInSeconds": 3600},
        {"name": "rest", "groups": ["wave-1", "wave-2"]}]},
    "autoUpgrade": {"channel": "Stable", "nodeImageSelection": "Consistent"},
}


def fleet_plan(preview: bool, data: dict) -> Plan:
    from components.azure.fleet import GpuFleet

    config = FleetConfig.model_validate(data)
    return capture(lambda: GpuFleet("fleet", config), preview=preview)


def one(plan: Plan, type_: str):
    found = [r for r in plan.resources if r.type == type_]
    assert len(found) == 1, [r.type for r in plan.resources]
    return found[0]


def test_a_hubless_fleet_its_strategy_and_its_profile(preview: bool) -> None:
    plan = fleet_plan(preview, FLEET_DATA)
    fleet = one(plan, FLEET)
    assert fleet.inputs == {"fleetName": "fleet-a", "location": "westeurope", "resourceGroupName": "rg-fleet"}
    strategy = one(plan, STRATEGY)
    assert strategy.inputs["strategy"] == {"stages": [
        {"name": "canary", "groups": [{"name": "canary"}], "afterStageWaitInSeconds": 3600},
        {"name": "rest", "groups": [{"name": "wave-1"}, {"name": "wave-2"}], "afterStageWaitInSeconds": 0}]}
    assert fleet.urn in strategy.dependencies
    profile = one(plan, PROFILE)
    # The API's channel string, not AKS's lowercase UpgradeChannel the SDK types the input with.
    assert profile.inputs["channel"] == "Stable"
    assert profile.inputs["nodeImageSelection"] == {"type": "Consistent"}
    assert profile.inputs["autoUpgradeProfileName"] == "stable"
    assert strategy.urn in profile.dependencies  # updateStrategyId is the strategy's id
    assert all(r.parent == one(plan, "aks-dra-vgpu:index:GpuFleet").urn for r in (fleet, strategy, profile))


def test_a_hub_and_no_profile(preview: bool) -> None:
    data = {**FLEET_DATA, "hub": {"dnsPrefix": "fleet-a", "vmSize": "Standard_D4ds_v5"}, "createResourceGroup": False}
    data.pop("autoUpgrade")
    plan = fleet_plan(preview, data)
    assert one(plan, FLEET).inputs["hubProfile"] == {"dnsPrefix": "fleet-a", "agentProfile": {"vmSize": "Standard_D4ds_v5"}}
    assert not [r for r in plan.resources if r.type in (PROFILE, "azure-native:resources:ResourceGroup")]


def test_the_python_api_names_keys_as_python_writes_them() -> None:
    from components import ConfigError, GpuFleetArgs

    with pytest.raises(ConfigError, match="update_strategy"):
        GpuFleetArgs(name="fleet-a", resource_group_name="rg", location="westeurope")


def member_data(**membership: str) -> dict:
    data = copy.deepcopy(MINIMAL_STACK)
    data["fleetMembership"] = {"fleetStack": "fleet", "group": "canary", **membership}
    return data


def member_plan(preview: bool, data: dict) -> Plan:
    config = StackConfig.model_validate(data)
    outputs = {f"{ORGANIZATION}/aks-dra-vgpu/fleet": {"fleetName": "fleet-a", "fleetResourceGroupName": "rg-fleet"}}
    return capture(lambda: GpuPlatform("gpu", config), preview=preview, stack_outputs=outputs)


def test_a_member_joins_with_its_cluster_and_group(preview: bool) -> None:
    plan = member_plan(preview, member_data())
    member = one(plan, MEMBER)
    cluster = one(plan, CLUSTER)
    assert member.inputs["fleetName"] == "fleet-a" and member.inputs["resourceGroupName"] == "rg-fleet"
    assert member.inputs["group"] == "canary"
    assert member.inputs["fleetMemberName"] == "aks-test"
    assert cluster.urn in member.dependencies
    assert member.parent == one(plan, "aks-dra-vgpu:index:GpuPlatform").urn
    if not preview:
        assert member.inputs["clusterResourceId"].endswith("/managedClusters/aks-test")
    # The fleet's update runs own the version from now on: the stack's version is its first one only.
    assert "kubernetesVersion" in cluster.options["ignoreChanges"]


def test_a_member_name_of_its_own(preview: bool) -> None:
    assert one(member_plan(preview, member_data(memberName="weu-1")), MEMBER).inputs["fleetMemberName"] == "weu-1"


def test_no_membership_no_member_and_the_version_is_the_stacks(preview: bool) -> None:
    config = StackConfig.model_validate(MINIMAL_STACK)
    plan = capture(lambda: GpuPlatform("gpu", config), preview=preview)
    assert not [r for r in plan.resources if r.type == MEMBER]
    assert one(plan, CLUSTER).options["ignoreChanges"] == []


@pytest.mark.parametrize("stack", ["fleet-weu", "fleet-eus"])
def test_the_example_members_plan_alone_reading_the_fleet_stack_file(stack: str) -> None:
    plan = run_project(load_project(ROOT), stack, preview=True)
    member = one(plan, MEMBER)
    assert member.inputs["fleetName"] == "fleet-gpu-prod"
    assert member.inputs["resourceGroupName"] == "rg-fleet-gpu-prod"
    assert member.inputs["group"] == {"fleet-weu": "canary", "fleet-eus": "wave-1"}[stack]
    assert one(plan, CLUSTER).urn in member.dependencies
    assert plan.outputs["fleetMemberName"] == f"aks-dra-prod-{stack[-3:]}"


def test_the_example_fleet_stack_plans() -> None:
    plan = run_project(load_project(ROOT), "fleet", preview=True)
    groups = [g["name"] for s in one(plan, STRATEGY).inputs["strategy"]["stages"] for g in s["groups"]]
    assert groups == ["canary", "wave-1"]
    assert one(plan, PROFILE).inputs["channel"] == "NodeImage"
    assert plan.outputs["fleetName"] == "fleet-gpu-prod"
    assert "hubProfile" not in one(plan, FLEET).inputs
