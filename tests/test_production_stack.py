"""The production settings end to end: the prod stack plans every Azure field they map to, the driver and the samples
tolerate AKS's spot taint, a bad value of each new key exits 2 naming it (through the CLI, nothing registered), and
the diff says what changing each one costs."""

from __future__ import annotations

import contextlib
import copy
import io
import json
from typing import Any

import pytest
import yaml

import tests.test_bad_input as battery
from components.cli import main
from components.config import StackConfig, stack_config_from_mapping
from components.kubernetes.dra_driver import driver_values
from components.kubernetes.tolerations import tolerations_for_size as workload_tolerations
from components.offline import capture
from components.platform import GpuPlatform
from components.review.diff import diff_plans
from tests.conftest import ROOT
from tests.stack_files import starts

NS = "aks-dra-vgpu:"
PROD = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]
SPOT_KEY = "kubernetes.azure.com/scalesetpriority"
SPOT_TOLERATION = {"key": SPOT_KEY, "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
MAINTENANCE = "azure-native:containerservice:MaintenanceConfiguration"

# The bad-input battery's scratch project and registration spy, shared rather than copied.
scratch = battery.scratch
monitors = battery.monitors


def prod_config(edit: Any = None) -> StackConfig:
    config = copy.deepcopy(PROD)
    if edit is not None:
        edit(config)
    return stack_config_from_mapping(config)


def pools_by_name(plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["inputs"]["agentPoolName"]: r["inputs"] for r in plan["resources"] if r["type"] == POOL}


@pytest.fixture(scope="module")
def prod_plan() -> dict[str, Any]:
    """`plan --stack prod --json` through the CLI, as a reviewer would run it."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["plan", "--stack", "prod", "--project-dir", str(ROOT), "--json"]) == 0
    return json.loads(buffer.getvalue())


# --- the prod stack plans every field ------------------------------------------------------------------------------------
def test_prod_plans_the_cluster_fields(prod_plan):
    cluster = next(r for r in prod_plan["resources"] if r["type"] == CLUSTER)["inputs"]
    subnet = PROD[NS + "cluster"]["network"]["vnetSubnetId"]
    assert cluster["nodeResourceGroup"] == "rg-aks-dra-prod-nodes"
    assert cluster["agentPoolProfiles"][0]["vnetSubnetID"] == subnet
    assert cluster["apiServerAccessProfile"] == {"authorizedIPRanges": ["203.0.113.0/24", "198.51.100.0/28"]}
    assert cluster["autoUpgradeProfile"] == {"upgradeChannel": "patch", "nodeOSUpgradeChannel": "NodeImage"}
    assert cluster["azureMonitorProfile"] == {"metrics": {"enabled": True}}
    assert cluster["identity"] == {"type": "UserAssigned", "userAssignedIdentities": [PROD[NS + "cluster"]["identityId"]]}
    windows = {r["inputs"]["configName"]: r["inputs"] for r in prod_plan["resources"] if r["type"] == MAINTENANCE}
    assert set(windows) == {"aksManagedAutoUpgradeSchedule", "aksManagedNodeOSUpgradeSchedule"}
    assert {w["maintenanceWindow"]["schedule"]["weekly"]["dayOfWeek"] for w in windows.values()} == {"Sunday"}


def test_prod_uses_entra_id_and_its_ci_identity_can_deploy_unattended(prod_plan):
    # The README advises Entra ID for production: local accounts off, Azure RBAC, a non-interactive kubelogin login.
    cluster = next(r for r in prod_plan["resources"] if r["type"] == CLUSTER)
    auth = PROD[NS + "cluster"]["auth"]
    assert cluster["inputs"]["disableLocalAccounts"] is True
    assert cluster["inputs"]["aadProfile"] == {
        "managed": True, "enableAzureRBAC": True, "adminGroupObjectIDs": auth["adminGroupObjectIds"]
    }
    assert auth["loginMode"] in ("azurecli", "workloadidentity", "spn")
    # The CI identity (a service principal signed in by azure/login) gets Cluster Admin; the provider waits for it.
    (grant,) = [r for r in prod_plan["resources"] if r["name"].endswith("-deployer-admin")]
    assert grant["type"] == "azure-native:authorization:RoleAssignment"
    # Who runs Pulumi is known once the provider answers: not in a plan. The role is: it is a constant, and the
    # subscription its ID names is asked without waiting for the cluster.
    assert grant["inputs"]["principalId"] == "[unknown]"
    assert grant["inputs"]["roleDefinitionId"].endswith("/roleDefinitions/b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b")
    assert grant["inputs"]["principalType"] == "ServicePrincipal" and cluster["urn"] in grant["dependencies"]
    updated = capture(lambda: GpuPlatform("gpu", prod_config()), stack="prod", preview=False)
    role = updated.one("azure-native:authorization:RoleAssignment", grant["name"]).inputs["roleDefinitionId"]
    assert role.endswith("/providers/Microsoft.Authorization/roleDefinitions/b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b")
    provider = next(r for r in prod_plan["resources"] if r["type"] == "pulumi:providers:kubernetes")
    assert grant["urn"] in provider["dependencies"]


def test_prod_plans_the_pool_fields(prod_plan):
    pools = pools_by_name(prod_plan)
    subnet = PROD[NS + "cluster"]["network"]["vnetSubnetId"]
    spot, third, full = pools["a10spot"], pools["a10third"], pools["a10full"]
    assert (spot["scaleSetPriority"], spot["scaleSetEvictionPolicy"], spot["spotMaxPrice"]) == ("Spot", "Delete", -1)
    assert "kubernetes.azure.com/scalesetpriority=spot:NoSchedule" in spot["nodeTaints"]
    assert "upgradeSettings" not in spot
    assert (third["scaleDownMode"], third["osDiskType"]) == ("Deallocate", "Managed")
    assert full["osDiskType"] == "Ephemeral"
    assert full["capacityReservationGroupID"].endswith("/capacityReservationGroups/crg-a10-westeurope")
    for name, inputs in pools.items():
        assert inputs["vnetSubnetID"] == subnet, name  # inherited from the cluster
        # cluster tags reach every pool; the pool's own tag is added
        assert inputs["tags"] == {"environment": "prod", "cost-center": "ml-platform",
                                  "workload-class": inputs["nodeLabels"]["workload-class"]}, name


def test_a_pools_own_tags_and_subnet_win(preview):
    subnet = PROD[NS + "cluster"]["network"]["vnetSubnetId"].replace("snet-aks-nodes", "snet-gpu")

    def edit(config):
        config[NS + "gpuPools"][0].update(tags={"environment": "prod-gpu"}, vnetSubnetId=subnet)

    plan = capture(lambda: GpuPlatform("gpu", prod_config(edit)), preview=preview).to_dict()
    first = pools_by_name(plan)[PROD[NS + "gpuPools"][0]["name"]]
    assert first["tags"] == {"environment": "prod-gpu", "cost-center": "ml-platform"}
    assert first["vnetSubnetID"] == subnet


# --- every consumer of pool taints sees AKS's spot taint -------------------------------------------------------------------
def test_the_driver_tolerates_the_spot_taint_so_spot_nodes_get_a_resource_slice():
    config = prod_config()
    values = driver_values(config.dra_driver, config.gpu_pools)
    assert SPOT_TOLERATION in values["kubeletPlugin"]["tolerations"]
    regular_only = [p for p in config.gpu_pools if p.spot is None]
    assert SPOT_TOLERATION not in driver_values(config.dra_driver, regular_only)["kubeletPlugin"]["tolerations"]


def test_workloads_tolerate_the_spot_taint_only_when_they_opt_in():
    config = prod_config()
    # 8 GiB slices: the inference pool and the spot pool offer them; without opting in only the regular pool is open
    # (its taint tolerated, AKS's spot taint not), so an 8 GiB pod never lands on a10spot.
    regular = workload_tolerations(config.gpu_pools, 8)
    assert SPOT_TOLERATION not in regular
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"} in regular
    assert SPOT_TOLERATION in workload_tolerations(config.gpu_pools, 8, spot=True)
    # 24 GiB: only the (regular) full-A10 pool; nothing tolerates spot that does not need to, even when asked.
    assert SPOT_TOLERATION not in workload_tolerations(config.gpu_pools, 24, spot=True)


def test_tolerations_take_the_pool_components_the_readme_passes(preview):
    """`tolerations_for_size(pools, 8)` with the GpuNodePool components themselves, as the README shows."""
    config = prod_config()
    found: dict[str, Any] = {}

    def program() -> None:
        platform = GpuPlatform("gpu", config)
        found["with_components"] = workload_tolerations(platform.pools, 8)
        found["spot"] = workload_tolerations(platform.pools, 8, spot=True)

    capture(program, preview=preview)
    assert found["with_components"] == workload_tolerations(config.gpu_pools, 8)
    assert SPOT_TOLERATION not in found["with_components"] and SPOT_TOLERATION in found["spot"]


def test_rendered_prod_values_tolerate_the_spot_taint(tmp_path):
    assert main(["render", "--stack", "prod", "--project-dir", str(ROOT), "--out", str(tmp_path)]) == 0
    values = next(tmp_path.glob("helm/*/values.yaml"))
    tolerations = yaml.safe_load(values.read_text())["kubeletPlugin"]["tolerations"]
    assert SPOT_TOLERATION in tolerations


# --- bad values exit 2, naming the key, before anything is registered --------------------------------------------------------
SUBNET = PROD[NS + "cluster"]["network"]["vnetSubnetId"]
put, case = battery.put, battery.case

CASES = [
    case("location-misspelt", put("cluster.location", "westeruope"), "cluster.location", "did you mean 'westeurope'"),
    case("location-unknown", put("cluster.location", "mars"), "cluster.location", "not an Azure region"),
    case("location-without-a10", put("cluster.location", "francesouth"), "cluster.location",
         "the price table has no Standard_NV12ads_A10_v5, Standard_NV36ads_A10_v5 in francesouth", "'francecentral'"),
    case("service-cidr-overlaps-pods", put("cluster.network.serviceCidr", "10.244.0.0/16"), "cluster.network.serviceCidr",
         "overlaps podCidr"),
    case("dns-ip-outside-services", put("cluster.network.dnsServiceIp", "10.1.0.10"), "cluster.network.dnsServiceIp",
         "outside serviceCidr"),
    case("admin-principal-untyped", put("cluster.auth.adminPrincipals", [{"objectId": "00000000-0000-0000-0000-000000000001"}]),
         "cluster.auth.adminPrincipals[0].principalType", "required"),
    case("node-rg-same", put("cluster.nodeResourceGroup", "rg-aks-dra-prod"), "cluster.nodeResourceGroup",
         "own resource group"),
    case("node-rg-chars", put("cluster.nodeResourceGroup", "nodes rg"), "cluster.nodeResourceGroup",
         "not a resource group name"),
    case("subnet-not-arm", put("cluster.network.vnetSubnetId", "snet-aks-nodes"), "cluster.network.vnetSubnetId",
         "write a full ARM ID"),
    case("api-range-host-bits", put("cluster.apiServer.authorizedIpRanges", ["203.0.113.9/24"]),
         "cluster.apiServer.authorizedIpRanges", "'203.0.113.0/24'"),
    case("api-private-with-ranges", put("cluster.apiServer.private", True), "cluster.apiServer.authorizedIpRanges",
         "private: true"),
    case("upgrade-channel-unknown", put("cluster.upgrades.channel", "latest"), "cluster.upgrades.channel",
         "'none', 'patch', 'stable', 'rapid' or 'node-image'"),
    case("node-os-channel-unknown", put("cluster.upgrades.nodeOsChannel", "Weekly"), "cluster.upgrades.nodeOsChannel",
         "'None', 'Unmanaged', 'NodeImage' or 'SecurityPatch'"),
    case("window-day", put("cluster.upgrades.maintenanceWindow.dayOfWeek", "sunday"),
         "cluster.upgrades.maintenanceWindow.dayOfWeek", "'Sunday'"),
    case("window-start", put("cluster.upgrades.maintenanceWindow.startTime", "2am"),
         "cluster.upgrades.maintenanceWindow.startTime", "'HH:MM'"),
    case("window-short", put("cluster.upgrades.maintenanceWindow.durationHours", 1),
         "cluster.upgrades.maintenanceWindow.durationHours", "from 4 to 24"),
    case("window-offset", put("cluster.upgrades.maintenanceWindow.utcOffset", "+1"),
         "cluster.upgrades.maintenanceWindow.utcOffset", "'+HH:MM' or '-HH:MM'"),
    case("patch-channel-patch-version", put("cluster.kubernetesVersion", "1.35.3"), "cluster.kubernetesVersion",
         "write '1.35'"),
    case("prometheus-not-bool", put("cluster.monitoring.managedPrometheus", "maybe"),
         "cluster.monitoring.managedPrometheus", "true or false"),
    case("spot-eviction", put("gpuPools[2].spot.evictionPolicy", "Stop"), "gpuPools[2].spot.evictionPolicy",
         "'Delete' or 'Deallocate'"),
    case("spot-price-zero", put("gpuPools[2].spot.maxPrice", 0), "gpuPools[2].spot.maxPrice", "-1"),
    case("spot-with-surge", put("gpuPools[2].maxSurge", "1"), "gpuPools[2].maxSurge", "no upgrade surge"),
    case("scale-down-mode", put("gpuPools[0].scaleDownMode", "Stop"), "gpuPools[0].scaleDownMode",
         "'Delete' or 'Deallocate'"),
    case("deallocate-ephemeral", put("gpuPools[0].osDiskType", "Ephemeral"), "gpuPools[0].osDiskType",
         "scaleDownMode Delete"),
    case("os-disk-type", put("gpuPools[1].osDiskType", "Ultra"), "gpuPools[1].osDiskType", "'Managed' or 'Ephemeral'"),
    case("ephemeral-too-big", put("gpuPools[1].osDiskSizeGb", 2000), "gpuPools[1].osDiskSizeGb", "at most 1440"),
    case("crg-not-arm", put("gpuPools[1].capacityReservationGroupId", "crg-a10"),
         "gpuPools[1].capacityReservationGroupId", "Microsoft.Compute/capacityReservationGroups"),
    case("crg-without-identity", battery.drop("cluster.identityId"), "gpuPools[1].capacityReservationGroupId",
         "needs cluster.identityId"),
    case("identity-not-arm", put("cluster.identityId", "id-aks-dra-prod"), "cluster.identityId",
         "Microsoft.ManagedIdentity/userAssignedIdentities"),
    case("pool-subnet-other-vnet", put("gpuPools[0].vnetSubnetId", SUBNET.replace("vnet-prod", "vnet-other")),
         "gpuPools[0].vnetSubnetId", "one virtual network"),
    case("pool-tag-number", put("gpuPools[0].tags", {"workload-class": 3}), "gpuPools[0].tags.workload-class",
         "must be text"),
]


def test_every_new_case_is_distinct():
    assert len({c.id for c in CASES}) == len(CASES) >= 20


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_a_bad_new_setting_exits_2_naming_its_key(c, scratch, monitors, capsys):
    battery.write_stack(scratch, c.id, c)
    status, out, err = battery.plan(scratch, c.id, capsys)
    assert status == 2, err
    assert out == "" and "Traceback" not in err
    about = [line for line in err.strip().splitlines() if starts(line, c.path + ":")]
    assert about and any(all(f in line for f in c.allowed) for line in about), (c.allowed, err)
    assert battery.registered(monitors) == []


# --- what changing each one costs -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def prod_doc() -> dict[str, Any]:
    return capture(lambda: GpuPlatform("gpu", prod_config()), stack="prod").to_dict()


def diff_after(prod_doc: dict[str, Any], edit: Any) -> Any:
    new = capture(lambda: GpuPlatform("gpu", prod_config(edit)), stack="prod").to_dict()
    return {r.name: r for r in diff_plans(prod_doc, new).resources}


def pool_index(name: str) -> int:
    return [p["name"] for p in PROD[NS + "gpuPools"]].index(name)


def test_making_a_pool_spot_is_refused_in_place(prod_doc):
    # Not in pulumi-azure-native's force-new list: Pulumi attempts the update and AKS refuses it (nothing replaced).
    changed = diff_after(prod_doc, lambda c: c[NS + "gpuPools"][pool_index("a10third")].update(spot={}, maxSurge=None))
    pool = changed["gpu-a10third-pool"]
    assert pool.operation == "refused" and pool.refused_by == "Azure"
    priority = next(ch for ch in pool.changes if ch.path == "scaleSetPriority")
    assert {(r.effect, r.mechanism) for r in priority.rules} == {("refused", "api")}
    assert any(w.startswith("safe path") for w in pool.warnings)


def test_a_new_capacity_reservation_is_refused_in_place(prod_doc):
    crg = PROD[NS + "gpuPools"][pool_index("a10full")]["capacityReservationGroupId"].replace("crg-a10", "crg-b")
    changed = diff_after(prod_doc, lambda c: c[NS + "gpuPools"][pool_index("a10full")].update(
        capacityReservationGroupId=crg))
    assert changed["gpu-a10full-pool"].operation == "refused"


def test_scale_down_mode_and_tags_change_in_place(prod_doc):
    def edit(c):
        pool = c[NS + "gpuPools"][pool_index("a10third")]
        pool.update(scaleDownMode="Delete", tags={"workload-class": "serving"})

    changed = diff_after(prod_doc, edit)
    pool = changed["gpu-a10third-pool"]
    assert pool.operation == "update"
    mode = next(ch for ch in pool.changes if ch.path == "scaleDownMode")
    assert {r.effect for r in mode.rules} == {"note"} and "deallocated VMs" in mode.rules[0].why


def test_api_ranges_and_upgrade_channels_change_in_place_with_a_note(prod_doc):
    def edit(c):
        c[NS + "cluster"]["apiServer"]["authorizedIpRanges"] = ["203.0.113.0/24"]
        c[NS + "cluster"]["upgrades"]["channel"] = "stable"

    changed = diff_after(prod_doc, edit)
    cluster = changed["gpu-cluster-aks"]
    assert cluster.operation == "update"
    assert {r.effect for ch in cluster.changes for r in ch.rules} == {"note"}
    assert "gpu-cluster-k8s" not in changed  # the Kubernetes provider (and every object) stays


def test_a_new_node_resource_group_replaces_the_cluster_and_its_provider(prod_doc):
    changed = diff_after(prod_doc, lambda c: c[NS + "cluster"].update(nodeResourceGroup="rg-aks-dra-prod-nodes2"))
    # prod protects its cluster: Pulumi refuses the replacement (exit 4) rather than deleting it
    assert changed["gpu-cluster-aks"].operation == "refused" and changed["gpu-cluster-aks"].refused_by == "Pulumi"
    assert changed["gpu-cluster-k8s"].action == "replace"  # clusterIdentifier follows nodeResourceGroup
    assert changed["gpu-cluster-upgrade-window"].action == "replace"  # children of the replaced cluster


def test_going_private_is_refused_in_place(prod_doc):
    def edit(c):
        c[NS + "cluster"]["apiServer"] = {"private": True}

    cluster = diff_after(prod_doc, edit)["gpu-cluster-aks"]
    private = next(ch for ch in cluster.changes if ch.path == "apiServerAccessProfile.enablePrivateCluster")
    assert {(r.effect, r.mechanism) for r in private.rules} == {("refused", "api")}
    assert cluster.operation == "refused" and cluster.refused_by == "Azure"  # only a new cluster is private
