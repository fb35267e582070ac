"""AksCluster: one inline system pool, DRA-ready Kubernetes, a secret kubeconfig and an explicit provider."""

from __future__ import annotations

import base64

import yaml

from components.azure.cluster import AksCluster
from components.azure.kubeconfig import decode_kubeconfig
from components.config import ClusterConfig
from components.offline import SECRET, capture

CLUSTER = "azure-native:containerservice:ManagedCluster"


def make(preview: bool, **overrides):
    data = {"name": "aks-t", "location": "westeurope", "resourceGroup": {"name": "rg-t"}, **overrides}
    config = ClusterConfig.model_validate(data)
    return capture(lambda: AksCluster("c", config), preview=preview)


def test_cluster_inputs(preview):
    plan = make(preview, kubernetesVersion="1.35")
    inputs = plan.one(CLUSTER).inputs
    assert inputs["resourceName"] == "aks-t"
    assert inputs["kubernetesVersion"] == "1.35"
    assert inputs["identity"] == {"type": "SystemAssigned"}
    assert inputs["enableRBAC"] is True
    assert inputs["oidcIssuerProfile"] == {"enabled": True}
    assert inputs["securityProfile"]["workloadIdentity"] == {"enabled": True}
    assert inputs["networkProfile"]["networkPlugin"] == "azure"
    assert inputs["networkProfile"]["networkPluginMode"] == "overlay"


def test_only_inline_pool_is_the_system_pool(preview):
    pools = make(preview, systemPool={"count": 3, "zones": [1, 2, 3]}).one(CLUSTER).inputs["agentPoolProfiles"]
    assert len(pools) == 1
    assert pools[0]["mode"] == "System"
    assert pools[0]["count"] == 3
    assert pools[0]["availabilityZones"] == ["1", "2", "3"]
    assert "gpuProfile" not in pools[0]


def test_resource_group_created_or_referenced(preview):
    created = make(preview)
    assert created.one("azure-native:resources:ResourceGroup").inputs["resourceGroupName"] == "rg-t"
    existing = make(preview, resourceGroup={"name": "rg-shared", "create": False})
    assert existing.all("azure-native:resources:ResourceGroup") == []
    assert existing.one(CLUSTER).inputs["resourceGroupName"] == "rg-shared"


def test_protect_reaches_cluster_and_group(preview):
    plan = make(preview, protect=True)
    assert plan.one(CLUSTER).options["protect"] is True
    assert plan.one("azure-native:resources:ResourceGroup").options["protect"] is True
    assert make(preview).one(CLUSTER).options["protect"] is False


def test_kubeconfig_is_a_secret_and_feeds_an_explicit_provider(preview):
    plan = make(preview)
    provider = plan.one("pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == SECRET
    cluster = plan.one(CLUSTER)
    assert cluster.urn in provider.dependencies
    # the credentials are fetched for this cluster, by name, in its resource group, once it exists: a first preview
    # (the cluster is not there yet) asks for none, and its kubeconfig is unknown
    invokes = [i for i in plan.invokes if i.token.endswith("listManagedClusterUserCredentials")]
    if preview:
        assert invokes == []
    else:
        assert [i.args for i in invokes] == [{"resourceGroupName": "rg-t", "resourceName": "aks-t"}]


def test_the_mock_kubeconfig_is_valid_yaml():
    from components.offline.mocks import OfflineProviders

    result = OfflineProviders(preview=False).call(
        "azure-native:containerservice:listManagedClusterUserCredentials", {"resourceName": "x"}
    )
    doc = yaml.safe_load(decode_kubeconfig(result["kubeconfigs"][0]["value"]))
    assert doc["kind"] == "Config" and doc["clusters"][0]["cluster"]["server"].startswith("https://")
    assert base64.b64decode(result["kubeconfigs"][0]["value"])  # really base64, like the API


def test_stack_outputs_mark_the_kubeconfig_secret(preview):
    import pulumi

    def program():
        c = AksCluster("c", ClusterConfig(name="a", location="westeurope", resource_group={"name": "rg"}))
        pulumi.export("kubeconfig", c.kubeconfig)
        pulumi.export("name", c.cluster_name)

    plan = capture(program, preview=preview)
    assert plan.outputs["kubeconfig"] == SECRET
    assert plan.outputs["name"] == "a"


def test_provider_identifier_is_known_in_a_preview_and_follows_only_replacements(preview):
    # pulumi-kubernetes replaces its provider (and every object) when clusterIdentifier changes: it must be known in
    # any preview, stay the same for in-place cluster updates, and change for what replaces the cluster.
    def identifier(**overrides):
        return make(preview, **overrides).one("pulumi:providers:kubernetes").inputs["clusterIdentifier"]

    base = identifier()
    assert base.startswith("aks:rg-t/aks-t#")
    for in_place in ({"tags": {"team": "ml"}}, {"kubernetesVersion": "1.35"}, {"skuTier": "Standard"},
                     {"systemPool": {"count": 3}}):
        assert identifier(**in_place) == base, in_place
    for replacing in ({"location": "northeurope"}, {"dnsPrefix": "other"}, {"resourceGroup": {"name": "rg-u"}}):
        assert identifier(**replacing) != base, replacing


# --- production settings: network, API server, upgrades, monitoring, node resource group -------------------------------
MAINTENANCE = "azure-native:containerservice:MaintenanceConfiguration"
SUBNET = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/"
    "virtualNetworks/vnet/subnets/nodes"
)
WINDOW = {"dayOfWeek": "Sunday", "startTime": "02:00", "durationHours": 6, "utcOffset": "+01:00"}


def test_production_settings_reach_the_cluster(preview):
    plan = make(
        preview,
        nodeResourceGroup="rg-t-nodes",
        network={"vnetSubnetId": SUBNET},
        apiServer={"authorizedIpRanges": ["203.0.113.0/24", "198.51.100.0/28"]},
        upgrades={"channel": "patch", "nodeOsChannel": "NodeImage"},
        monitoring={"managedPrometheus": True},
    )
    inputs = plan.one(CLUSTER).inputs
    assert inputs["nodeResourceGroup"] == "rg-t-nodes"
    assert inputs["agentPoolProfiles"][0]["vnetSubnetID"] == SUBNET
    assert inputs["apiServerAccessProfile"] == {"authorizedIPRanges": ["203.0.113.0/24", "198.51.100.0/28"]}
    assert inputs["autoUpgradeProfile"] == {"upgradeChannel": "patch", "nodeOSUpgradeChannel": "NodeImage"}
    assert inputs["azureMonitorProfile"] == {"metrics": {"enabled": True}}
    assert plan.one(CLUSTER).options["ignoreChanges"] == []  # patch keeps the minor version the stack wrote


def test_unset_settings_send_nothing_new(preview):
    # A stack that sets none of them plans exactly the inputs it had before they existed: no diff for existing clusters.
    inputs = make(preview).one(CLUSTER).inputs
    for key in ("nodeResourceGroup", "apiServerAccessProfile", "autoUpgradeProfile", "azureMonitorProfile"):
        assert key not in inputs, key
    assert "vnetSubnetID" not in inputs["agentPoolProfiles"][0]
    assert make(preview).all(MAINTENANCE) == []


def test_private_cluster_and_cleared_ranges(preview):
    assert make(preview, apiServer={"private": True}).one(CLUSTER).inputs["apiServerAccessProfile"] == {
        "enablePrivateCluster": True
    }
    # [] is sent: it is how AKS is told to drop earlier ranges; unset sends nothing.
    assert make(preview, apiServer={"authorizedIpRanges": []}).one(CLUSTER).inputs["apiServerAccessProfile"] == {
        "authorizedIPRanges": []
    }
    assert make(preview, monitoring={"managedPrometheus": False}).one(CLUSTER).inputs["azureMonitorProfile"] == {
        "metrics": {"enabled": False}
    }


def test_a_window_becomes_one_maintenance_configuration_per_scheduled_channel(preview):
    plan = make(preview, upgrades={"channel": "patch", "nodeOsChannel": "SecurityPatch", "maintenanceWindow": WINDOW})
    cluster = plan.one(CLUSTER)
    configs = {m.inputs["configName"]: m for m in plan.all(MAINTENANCE)}
    assert set(configs) == {"aksManagedAutoUpgradeSchedule", "aksManagedNodeOSUpgradeSchedule"}
    for m in configs.values():
        # The cluster's name is known in a preview too (it is what the stack sent), and the window waits for the cluster.
        assert (m.inputs["resourceName"], m.inputs["resourceGroupName"]) == ("aks-t", "rg-t")
        assert cluster.urn in m.dependencies
        assert m.inputs["maintenanceWindow"] == {
            "schedule": {"weekly": {"dayOfWeek": "Sunday", "intervalWeeks": 1}},
            "startTime": "02:00",
            "durationHours": 6,
            "utcOffset": "+01:00",
        }
    only_os = make(preview, upgrades={"channel": "none", "maintenanceWindow": WINDOW})
    assert [m.inputs["configName"] for m in only_os.all(MAINTENANCE)] == ["aksManagedNodeOSUpgradeSchedule"]


def test_a_channel_that_moves_minor_versions_owns_the_version(preview):
    plan = make(preview, upgrades={"channel": "stable"}, kubernetesVersion="1.35")
    # the inline system pool moves with it (auto-upgrade "always upgrades the control plane and node pools together")
    assert sorted(plan.one(CLUSTER).options["ignoreChanges"]) == [
        "agentPoolProfiles[0].orchestratorVersion", "kubernetesVersion"]
    assert plan.one(CLUSTER).inputs["kubernetesVersion"] == "1.35"  # still sent at creation


def test_node_resource_group_feeds_the_provider_identifier_other_new_settings_do_not(preview):
    def identifier(**overrides):
        return make(preview, **overrides).one("pulumi:providers:kubernetes").inputs["clusterIdentifier"]

    base = identifier()
    assert identifier(nodeResourceGroup="rg-t-nodes") != base
    assert identifier(nodeResourceGroup="rg-t-nodes") != identifier(nodeResourceGroup="rg-t-nodes2")
    for in_place in (
        {"apiServer": {"authorizedIpRanges": ["203.0.113.0/24"]}},
        {"upgrades": {"channel": "patch", "maintenanceWindow": WINDOW}},
        {"monitoring": {"managedPrometheus": True}},
        {"network": {"vnetSubnetId": SUBNET}},  # refused for the system pool, never a cluster replacement
    ):
        assert identifier(**in_place) == base, in_place


IDENTITY = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/"
    "userAssignedIdentities/id-aks"
)


def test_a_user_assigned_identity_replaces_the_system_assigned_one(preview):
    inputs = make(preview, identityId=IDENTITY).one(CLUSTER).inputs
    assert inputs["identity"] == {"type": "UserAssigned", "userAssignedIdentities": [IDENTITY]}
    assert make(preview).one(CLUSTER).inputs["identity"] == {"type": "SystemAssigned"}
