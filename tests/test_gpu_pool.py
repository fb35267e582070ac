"""GpuNodePool: a separate User AgentPool of an NVadsA10_v5 size, labelled for the DRA driver, GRID driver installed."""

from __future__ import annotations

import pytest

from components.gpu_pool import GpuNodePool, GpuNodePoolArgs
from components.offline import capture

POOL = "azure-native:containerservice:AgentPool"


def make(preview: bool, **overrides):
    args = GpuNodePoolArgs.model_validate(
        {"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5", "clusterName": "aks", "resourceGroupName": "rg",
         **overrides}
    )
    holder = {}

    def program():
        holder["pool"] = GpuNodePool("p", args)

    plan = capture(program, preview=preview)
    return plan, holder["pool"]


def test_pool_inputs(preview):
    plan, _ = make(preview, labels={"team": "ml"}, zones=["1"], count=2)
    inputs = plan.one(POOL).inputs
    assert inputs["agentPoolName"] == "gpu"
    assert inputs["resourceName"] == "aks"
    assert inputs["resourceGroupName"] == "rg"
    assert inputs["mode"] == "User"
    assert inputs["osType"] == "Linux"
    assert inputs["vmSize"] == "Standard_NV12ads_A10_v5"
    assert inputs["gpuProfile"] == {"driver": "Install"}
    assert inputs["nodeLabels"] == {"team": "ml", "nvidia.com/gpu.present": "true"}
    assert inputs["availabilityZones"] == ["1"]
    assert inputs["count"] == 2
    assert inputs["enableAutoScaling"] is False
    assert inputs["upgradeSettings"] == {"maxSurge": "1"}
    assert plan.one(POOL).options["ignoreChanges"] == []


def test_autoscaled_pool_never_diffs_on_count(preview):
    plan, _ = make(preview, autoscaling={"minCount": 0, "maxCount": 4})
    pool = plan.one(POOL)
    assert pool.inputs["enableAutoScaling"] is True
    assert (pool.inputs["minCount"], pool.inputs["maxCount"]) == (0, 4)
    assert pool.inputs["count"] == 0  # the creation count only
    assert pool.options["ignoreChanges"] == ["count"]


def test_taints_pass_through_and_are_exposed(preview):
    plan, pool = make(preview, taints=["sku=gpu:NoSchedule"])
    assert plan.one(POOL).inputs["nodeTaints"] == ["sku=gpu:NoSchedule"]
    assert [t.toleration() for t in pool.taints] == [
        {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
    ]


@pytest.mark.parametrize(
    "size, memory, devices",
    [("Standard_NV6ads_A10_v5", 4, 1), ("Standard_NV36ads_A10_v5", 24, 1), ("Standard_NV72ads_A10_v5", 24, 2)],
)
def test_pool_exposes_what_driver_and_samples_need(size, memory, devices):
    _, pool = make(False, vmSize=size)
    assert (pool.gpu_memory_gib, pool.devices_per_node) == (memory, devices)
    assert pool.node_labels["nvidia.com/gpu.present"] == "true"


def test_cluster_name_may_be_another_resources_output(preview):
    import pulumi_azure_native.resources as resources

    holder = {}

    def program():
        rg = resources.ResourceGroup("rg", resource_group_name="rg-x", location="westeurope")
        holder["pool"] = GpuNodePool(
            "p",
            GpuNodePoolArgs(name="gpu", vm_size="Standard_NV6ads_A10_v5", cluster_name="aks", resource_group_name=rg.name),
        )

    plan = capture(program, preview=preview)
    rg = plan.one("azure-native:resources:ResourceGroup")
    pool = plan.one(POOL)
    # azure-native's ResourceGroup echoes its name only once created: unknown in a first preview
    assert pool.inputs["resourceGroupName"] == ("[unknown]" if preview else "rg-x")
    assert rg.urn in pool.dependencies
