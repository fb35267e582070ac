"""The production settings of the cluster and its pools, as config: what each accepts, what it refuses (one problem per
key, naming what is allowed), and what it decides (spot taint and label, surge, OS disk type, inheritance, windows)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from components.catalog import A10_SIZES, A10Size
from components.config import ConfigError, GpuPoolConfig, StackConfig, validate
from components.config.azure import (
    CAPACITY_RESERVATION_GROUP,
    SUBNET,
    ArmId,
    check_cidr,
    check_hh_mm,
    check_utc_offset,
    parse_arm_id,
)
from components.config.pool_parts import SPOT_LABEL, SPOT_TAINT, ephemeral_os_disk_problem, ephemeral_os_disk_unchecked
from components.config.upgrades import AUTO_UPGRADE_SCHEDULE, NODE_OS_UPGRADE_SCHEDULE
from tests.conftest import MINIMAL_STACK

SUB = "00000000-0000-0000-0000-000000000000"
SUBNET_ID = f"/subscriptions/{SUB}/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet-a/subnets/nodes"
OTHER_SUBNET = f"/subscriptions/{SUB}/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet-a/subnets/gpu"
FOREIGN_SUBNET = f"/subscriptions/{SUB}/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet-b/subnets/gpu"
CRG = f"/subscriptions/{SUB}/resourceGroups/rg-cap/providers/Microsoft.Compute/capacityReservationGroups/crg-a10"


def stack(cluster: dict[str, Any] | None = None, pool: dict[str, Any] | None = None) -> dict[str, Any]:
    """The minimal stack with extra cluster and first-pool keys."""
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"].update(cluster or {})
    data["gpuPools"][0].update(pool or {})
    return data


def problems(data: dict[str, Any]) -> dict[str, str]:
    """Key path -> message of every problem in a stack (fails when the stack is valid)."""
    with pytest.raises(ConfigError) as caught:
        validate(StackConfig, data)
    return {p.path: p.message for p in caught.value.problems}


def pool(**keys: Any) -> GpuPoolConfig:
    return GpuPoolConfig.model_validate({"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5", **keys})


# --- syntax rules -------------------------------------------------------------------------------------------------------
def test_arm_ids_parse_case_insensitively_and_name_their_parts():
    parsed = parse_arm_id(SUBNET_ID.replace("resourceGroups", "resourcegroups"), SUBNET)
    assert parsed == ArmId(SUB, "rg-net", ("vnet-a", "nodes"))
    assert parsed.parent() == (SUB, "rg-net", ("vnet-a",))
    assert isinstance(parse_arm_id(CRG.replace("capacityReservationGroups", "capacityreservationgroups"),
                                   CAPACITY_RESERVATION_GROUP), ArmId)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("snet-aks", "not a subnet ID"),
        (SUBNET_ID.replace(SUB, "my-sub"), "not a GUID"),
        (SUBNET_ID.replace("Microsoft.Network", "Microsoft.Compute"), "expected 'Microsoft.Network'"),
        (SUBNET_ID.replace("/subnets/", "/subnet/"), "expected 'subnets'"),
        (SUBNET_ID + "/", "not a subnet ID"),
        (SUBNET_ID.replace("rg-net", "rg net"), "not a resource group name"),
        (SUBNET_ID.replace("/nodes", "/-nodes"), "not a resource name"),
        (CRG, "not a subnet ID"),
    ],
)
def test_a_bad_subnet_id_says_what_form_is_expected(text, fragment):
    message = parse_arm_id(text, SUBNET)
    assert isinstance(message, str) and fragment in message
    assert "/providers/Microsoft.Network/virtualNetworks/{virtualNetworkName}/subnets/{subnetName}" in message


@pytest.mark.parametrize("text", ["203.0.113.0/24", "0.0.0.0/32", "10.1.2.3/32", "2001:db8::/32"])
def test_cidr_ranges_accepted(text):
    assert check_cidr(text) is None


@pytest.mark.parametrize(
    "text, fragment",
    [("203.0.113.7", "/32"), ("203.0.113.7/24", "203.0.113.0/24"), ("300.1.1.1/8", "not a CIDR"), ("a/b", "not a CIDR")],
)
def test_cidr_ranges_refused_with_the_fix(text, fragment):
    assert fragment in (check_cidr(text) or "")


@pytest.mark.parametrize("text, ok", [("00:00", True), ("23:59", True), ("24:00", False), ("2:00", False),
                                      ("02:60", False), ("0200", False)])
def test_start_times(text, ok):
    assert (check_hh_mm(text) is None) is ok


@pytest.mark.parametrize("text, ok", [("+00:00", True), ("+05:30", True), ("-12:00", True), ("+14:00", True),
                                      ("+14:30", False), ("-12:30", False), ("01:00", False), ("+1:00", False),
                                      ("+01:60", False)])
def test_utc_offsets(text, ok):
    assert (check_utc_offset(text) is None) is ok


# --- GPU pools -----------------------------------------------------------------------------------------------------------
def test_a_spot_pool_carries_aks_spot_taint_and_label_for_every_consumer():
    spot = pool(spot={}, taints=["sku=gpu:NoSchedule"])
    assert spot.node_taints == ["sku=gpu:NoSchedule", SPOT_TAINT]
    assert [str(t) for t in spot.effective_taints] == ["sku=gpu:NoSchedule", SPOT_TAINT]
    assert spot.parsed_taints == spot.effective_taints  # the name the driver and samples have always used
    assert spot.node_labels[SPOT_LABEL[0]] == SPOT_LABEL[1]
    assert {t.key for t in spot.effective_taints} >= {"kubernetes.azure.com/scalesetpriority"}
    regular = pool(taints=["sku=gpu:NoSchedule"])
    assert regular.node_taints == ["sku=gpu:NoSchedule"] and SPOT_LABEL[0] not in regular.node_labels


def test_spot_defaults_and_surge():
    spot = pool(spot={})
    assert (spot.spot.eviction_policy, spot.spot.max_price) == ("Delete", -1)
    assert spot.upgrade_surge is None  # AKS has no surge for spot pools
    assert pool().upgrade_surge == "1" and pool(maxSurge="33%").upgrade_surge == "33%"
    # A round trip through model_dump (what GpuPlatform hands GpuNodePool) keeps a spot pool valid.
    assert GpuPoolConfig.model_validate(spot.model_dump()).upgrade_surge is None


def test_deallocating_pools_ask_for_managed_os_disks():
    assert pool(scaleDownMode="Deallocate").effective_os_disk_type == "Managed"
    assert pool(scaleDownMode="Deallocate", osDiskType="Managed").effective_os_disk_type == "Managed"
    assert pool(scaleDownMode="Delete").effective_os_disk_type is None  # AKS decides
    assert pool(osDiskType="Ephemeral").effective_os_disk_type == "Ephemeral"


def test_ephemeral_os_disk_checked_against_the_catalogs_temp_disk():
    six = A10_SIZES["Standard_NV6ads_A10_v5"]
    assert six.temp_disk_gib == 180
    assert ephemeral_os_disk_problem(six, 180) is None
    assert "180 GiB temp disk" in (ephemeral_os_disk_problem(six, 200) or "")
    unknown = A10Size("Standard_NVXads_A10_v5", 1, 1, "1", 1, 1, "NVIDIA A10", temp_disk_gib=None)
    assert ephemeral_os_disk_problem(unknown, 2048) is None and ephemeral_os_disk_unchecked(unknown)
    assert not any(ephemeral_os_disk_unchecked(s) for s in A10_SIZES.values())


def test_inheriting_merges_tags_and_defaults_the_subnet():
    own = pool(tags={"team": "ml", "environment": "staging"}, vnetSubnetId=OTHER_SUBNET)
    merged = own.inheriting({"environment": "prod", "cost-center": "42"}, SUBNET_ID)
    assert merged.tags == {"environment": "staging", "cost-center": "42", "team": "ml"}
    assert merged.vnet_subnet_id == OTHER_SUBNET
    assert pool().inheriting({"environment": "prod"}, SUBNET_ID).vnet_subnet_id == SUBNET_ID
    assert pool().inheriting({}, None).tags == {}


@pytest.mark.parametrize(
    "keys, path, fragment",
    [
        ({"spot": {"evictionPolicy": "Stop"}}, "gpuPools[0].spot.evictionPolicy", "'Delete' or 'Deallocate'"),
        ({"spot": {"maxPrice": 0}}, "gpuPools[0].spot.maxPrice", "-1"),
        ({"spot": {"maxPrice": -2}}, "gpuPools[0].spot.maxPrice", "greater than 0"),
        ({"spot": {"maxPrice": 0.1234567}}, "gpuPools[0].spot.maxPrice", "5 decimals"),
        ({"spot": {"maxPrice": True}}, "gpuPools[0].spot.maxPrice", "not a price"),
        ({"spot": {"maxPrice": "cheap"}}, "gpuPools[0].spot.maxPrice", "cheap"),
        ({"spot": {"bid": 1}}, "gpuPools[0].spot.bid", "allowed keys: evictionPolicy, maxPrice"),
        ({"spot": {}, "maxSurge": "1"}, "gpuPools[0].maxSurge", "spot pools take no upgrade surge"),
        ({"taints": [SPOT_TAINT]}, "gpuPools[0].taints", "set spot"),
        ({"scaleDownMode": "Stop"}, "gpuPools[0].scaleDownMode", "'Delete' or 'Deallocate'"),
        ({"osDiskType": "Premium"}, "gpuPools[0].osDiskType", "'Managed' or 'Ephemeral'"),
        ({"scaleDownMode": "Deallocate", "osDiskType": "Ephemeral"}, "gpuPools[0].osDiskType", "scaleDownMode Delete"),
        ({"vmSize": "Standard_NV6ads_A10_v5", "osDiskType": "Ephemeral", "osDiskSizeGb": 256},
         "gpuPools[0].osDiskSizeGb", "at most 180"),
        ({"capacityReservationGroupId": "crg-a10"}, "gpuPools[0].capacityReservationGroupId",
         "Microsoft.Compute/capacityReservationGroups/{capacityReservationGroupName}"),
        ({"capacityReservationGroupId": SUBNET_ID}, "gpuPools[0].capacityReservationGroupId",
         "not a capacityReservationGroup ID"),
        ({"vnetSubnetId": CRG}, "gpuPools[0].vnetSubnetId", "not a subnet ID"),
        ({"tags": {"team": 7}}, "gpuPools[0].tags.team", "must be text"),
    ],
)
def test_bad_pool_settings_name_their_key(keys, path, fragment):
    found = problems(stack(pool=keys))
    assert path in found, found
    assert fragment in found[path], found[path]


IDENTITY = f"/subscriptions/{SUB}/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-aks"


def test_capacity_reservations_need_a_user_assigned_identity():
    found = problems(stack(pool={"capacityReservationGroupId": CRG}))
    assert "cluster.identityId" in found["gpuPools[0].capacityReservationGroupId"]
    ok = validate(StackConfig, stack(cluster={"identityId": IDENTITY}, pool={"capacityReservationGroupId": CRG}))
    assert ok.cluster.identity_id == IDENTITY
    found = problems(stack(cluster={"identityId": CRG}))
    assert "Microsoft.ManagedIdentity/userAssignedIdentities/{userAssignedIdentityName}" in found["cluster.identityId"]


def test_pool_subnets_need_the_clusters_network():
    found = problems(stack(pool={"vnetSubnetId": OTHER_SUBNET}))
    assert "cluster.network.vnetSubnetId" in found["gpuPools[0].vnetSubnetId"]
    found = problems(stack(cluster={"network": {"vnetSubnetId": SUBNET_ID}}, pool={"vnetSubnetId": FOREIGN_SUBNET}))
    assert "'vnet-b'" in found["gpuPools[0].vnetSubnetId"] and "one virtual network" in found["gpuPools[0].vnetSubnetId"]
    ok = validate(StackConfig, stack(cluster={"network": {"vnetSubnetId": SUBNET_ID}}, pool={"vnetSubnetId": OTHER_SUBNET}))
    assert ok.gpu_pools[0].vnet_subnet_id == OTHER_SUBNET


# --- cluster -------------------------------------------------------------------------------------------------------------
def test_cluster_settings_accepted():
    config = validate(StackConfig, stack(cluster={
        "nodeResourceGroup": "rg-nodes",
        "network": {"vnetSubnetId": SUBNET_ID},
        "apiServer": {"authorizedIpRanges": ["203.0.113.0/24"]},
        "upgrades": {"channel": "patch", "nodeOsChannel": "SecurityPatch",
                     "maintenanceWindow": {"dayOfWeek": "Saturday", "startTime": "22:00", "utcOffset": "+05:30"}},
        "monitoring": {"managedPrometheus": True},
    })).cluster
    assert config.upgrades.maintenance_window.duration_hours == 4
    assert config.upgrades.scheduled_configurations == (AUTO_UPGRADE_SCHEDULE, NODE_OS_UPGRADE_SCHEDULE)
    assert not config.version_follows_channel


@pytest.mark.parametrize(
    "upgrades, names",
    [
        ({"channel": "patch", "nodeOsChannel": "Unmanaged"}, (AUTO_UPGRADE_SCHEDULE,)),
        ({"channel": "none"}, (NODE_OS_UPGRADE_SCHEDULE,)),  # AKS's default node OS channel is NodeImage
        ({"nodeOsChannel": "SecurityPatch"}, (NODE_OS_UPGRADE_SCHEDULE,)),
        ({"channel": "none", "nodeOsChannel": "None"}, ()),
    ],
)
def test_a_window_schedules_exactly_the_channels_aks_schedules(upgrades, names):
    config = validate(StackConfig, stack(cluster={"upgrades": upgrades})).cluster
    assert config.upgrades.scheduled_configurations == names


@pytest.mark.parametrize("channel, follows", [("stable", True), ("rapid", True), ("patch", False), ("node-image", False)])
def test_channels_that_move_minor_versions_own_the_version(channel, follows):
    config = validate(StackConfig, stack(cluster={"upgrades": {"channel": channel}})).cluster
    assert config.version_follows_channel is follows


WINDOW = {"dayOfWeek": "Sunday", "startTime": "02:00"}


@pytest.mark.parametrize(
    "keys, path, fragment",
    [
        ({"nodeResourceGroup": "rg nodes!"}, "cluster.nodeResourceGroup", "not a resource group name"),
        ({"nodeResourceGroup": "RG-TEST"}, "cluster.nodeResourceGroup", "cluster's own resource group"),
        ({"network": {"vnetSubnetId": "snet"}}, "cluster.network.vnetSubnetId", "not a subnet ID"),
        ({"network": {"vnetSubnetID": SUBNET_ID}}, "cluster.network.vnetSubnetID", "did you mean 'vnetSubnetId'?"),
        ({"apiServer": {"authorizedIpRanges": ["203.0.113.7"]}}, "cluster.apiServer.authorizedIpRanges", "/32"),
        ({"apiServer": {"authorizedIpRanges": ["10.0.0.0/8", "10.0.0.0/8"]}}, "cluster.apiServer.authorizedIpRanges",
         "listed twice"),
        ({"apiServer": {"authorizedIpRanges": [f"10.0.{i}.0/24" for i in range(201)]}},
         "cluster.apiServer.authorizedIpRanges", "at most 200"),
        ({"apiServer": {"private": True, "authorizedIpRanges": ["10.0.0.0/8"]}}, "cluster.apiServer.authorizedIpRanges",
         "private: true"),
        ({"apiServer": {"private": "maybe"}}, "cluster.apiServer.private", "true or false"),
        ({"upgrades": {"channel": "latest"}}, "cluster.upgrades.channel", "'none', 'patch', 'stable', 'rapid' or 'node-image'"),
        ({"upgrades": {"nodeOsChannel": "nodeimage"}}, "cluster.upgrades.nodeOsChannel", "'NodeImage'"),
        ({"upgrades": {"channel": "patch"}, "kubernetesVersion": "1.34.2"}, "cluster.kubernetesVersion", "'1.34'"),
        ({"upgrades": {"channel": "none", "nodeOsChannel": "Unmanaged", "maintenanceWindow": WINDOW}},
         "cluster.upgrades.maintenanceWindow", "schedules nothing"),
        ({"upgrades": {"channel": "patch", "maintenanceWindow": {**WINDOW, "dayOfWeek": "Sun"}}},
         "cluster.upgrades.maintenanceWindow.dayOfWeek", "'Sunday'"),
        ({"upgrades": {"channel": "patch", "maintenanceWindow": {**WINDOW, "startTime": "25:00"}}},
         "cluster.upgrades.maintenanceWindow.startTime", "'HH:MM'"),
        ({"upgrades": {"channel": "patch", "maintenanceWindow": {**WINDOW, "durationHours": 2}}},
         "cluster.upgrades.maintenanceWindow.durationHours", "from 4 to 24"),
        ({"upgrades": {"channel": "patch", "maintenanceWindow": {**WINDOW, "utcOffset": "CET"}}},
         "cluster.upgrades.maintenanceWindow.utcOffset", "'+HH:MM'"),
        ({"upgrades": {"channel": "patch", "maintenanceWindow": {"dayOfWeek": "Sunday"}}},
         "cluster.upgrades.maintenanceWindow.startTime", "required key is missing"),
        ({"monitoring": {"managedPrometheus": "sometimes"}}, "cluster.monitoring.managedPrometheus", "true or false"),
        ({"monitoring": {"prometheus": True}}, "cluster.monitoring.prometheus", "did you mean 'managedPrometheus'?"),
    ],
)
def test_bad_cluster_settings_name_their_key(keys, path, fragment):
    found = problems(stack(cluster=keys))
    assert path in found, found
    assert fragment in found[path], found[path]


def test_several_problems_are_reported_at_once():
    found = problems(stack(
        cluster={"nodeResourceGroup": "rg-test", "upgrades": {"channel": "stable"}, "kubernetesVersion": "1.35.1"},
    ))
    assert {"cluster.nodeResourceGroup", "cluster.kubernetesVersion"} <= set(found)
