"""GpuNodePool: a separate User AgentPool of an NVadsA10_v5 size, labelled for the DRA driver, GRID driver installed."""

from __future__ import annotations

import pytest

from components.azure.gpu_pool import GpuNodePool, GpuNodePoolArgs
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


# --- production settings: spot, scale-down, disks, capacity reservation, subnet, tags -----------------------------------
SPOT_TAINT = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
SUB = "00000000-0000-0000-0000-000000000000"
SUBNET = f"/subscriptions/{SUB}/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/gpu"
CRG = f"/subscriptions/{SUB}/resourceGroups/rg-cap/providers/Microsoft.Compute/capacityReservationGroups/crg-a10"


def test_spot_pool_inputs(preview):
    plan, pool = make(preview, spot={"evictionPolicy": "Deallocate", "maxPrice": 0.75}, taints=["sku=gpu:NoSchedule"],
                      autoscaling={"minCount": 0, "maxCount": 4})
    inputs = plan.one(POOL).inputs
    assert (inputs["scaleSetPriority"], inputs["scaleSetEvictionPolicy"], inputs["spotMaxPrice"]) == (
        "Spot", "Deallocate", 0.75
    )
    # AKS's own spot taint and label are declared (AKS reports them back; leaving them out shows drift on refresh).
    assert inputs["nodeTaints"] == ["sku=gpu:NoSchedule", SPOT_TAINT]
    assert inputs["nodeLabels"]["kubernetes.azure.com/scalesetpriority"] == "spot"
    assert "upgradeSettings" not in inputs  # no surge for spot pools
    # What the driver and workloads must tolerate includes the spot taint.
    assert {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot",
            "effect": "NoSchedule"} in [t.toleration() for t in pool.taints]


def test_regular_pool_sends_no_spot_fields(preview):
    inputs = make(preview)[0].one(POOL).inputs
    for key in ("scaleSetPriority", "scaleSetEvictionPolicy", "spotMaxPrice", "scaleDownMode", "osDiskType",
                "capacityReservationGroupID", "vnetSubnetID", "tags"):
        assert key not in inputs, key
    assert inputs["upgradeSettings"] == {"maxSurge": "1"}


def test_scale_down_disks_capacity_subnet_and_tags(preview):
    plan, _ = make(preview, scaleDownMode="Deallocate", capacityReservationGroupId=CRG, vnetSubnetId=SUBNET,
                   tags={"team": "ml"}, maxSurge="2")
    inputs = plan.one(POOL).inputs
    assert inputs["scaleDownMode"] == "Deallocate"
    assert inputs["osDiskType"] == "Managed"  # what Deallocate needs; AKS would otherwise pick Ephemeral here
    assert inputs["capacityReservationGroupID"] == CRG
    assert inputs["vnetSubnetID"] == SUBNET
    assert inputs["tags"] == {"team": "ml"}
    assert inputs["upgradeSettings"] == {"maxSurge": "2"}
    ephemeral, _ = make(preview, osDiskType="Ephemeral", osDiskSizeGb=300)  # fits NV12ads' 360 GiB temp disk
    assert ephemeral.one(POOL).inputs["osDiskType"] == "Ephemeral"


def test_an_ephemeral_disk_the_catalog_cannot_check_is_said_to_be_unchecked(monkeypatch):
    import dataclasses

    import pulumi

    from components import catalog

    warned: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, *args, **kwargs: warned.append(message))
    make(False, osDiskType="Ephemeral")
    assert warned == []  # NV12ads' temp disk is known: checked, nothing to say
    size = catalog.A10_SIZES["Standard_NV12ads_A10_v5"]
    monkeypatch.setitem(catalog.A10_SIZES, size.vm_size, dataclasses.replace(size, temp_disk_gib=None))
    plan, _ = make(False, osDiskType="Ephemeral", osDiskSizeGb=2048)
    assert plan.one(POOL).inputs["osDiskType"] == "Ephemeral"  # accepted: AKS decides
    assert len(warned) == 1 and "unchecked" in warned[0] and "Standard_NV12ads_A10_v5" in warned[0]
