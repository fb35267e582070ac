"""AksCluster: one inline system pool, DRA-ready Kubernetes, a secret kubeconfig and an explicit provider."""

from __future__ import annotations

import base64

import yaml

from components.cluster import AksCluster, decode_kubeconfig
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
