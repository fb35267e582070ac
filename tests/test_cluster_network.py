"""cluster.network's pod range, service range and DNS service IP: sent as AKS takes them, checked offline, and a change
shown as the cluster's replacement."""

from __future__ import annotations

import copy

import pytest

from components.azure.cluster_identity import cluster_identifier
from components.config import ClusterConfig, ConfigError, StackConfig, validate
from components.offline import capture
from components.platform import GpuPlatform
from components.review.diff import diff_plans

CLUSTER = "azure-native:containerservice:ManagedCluster"
PROVIDER = "pulumi:providers:kubernetes"
SUBNET = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/providers/Microsoft.Network/"
          "virtualNetworks/spoke/subnets/snet-nodes")


def cluster_data(**network) -> dict:
    return {"name": "aks-n", "location": "westeurope", "resourceGroup": {"name": "rg-n"}, "network": network}


def stack(**network) -> StackConfig:
    return StackConfig.model_validate({
        "cluster": cluster_data(**network),
        "gpuPools": [{"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "count": 1}],
    })


def test_defaults_are_what_aks_and_the_sdk_used_before(preview):
    plan = capture(lambda: GpuPlatform("gpu", stack()), preview=preview)
    profile = plan.one(CLUSTER).inputs["networkProfile"]
    assert (profile["podCidr"], profile["serviceCidr"], profile["dnsServiceIP"]) == ("10.244.0.0/16", "10.0.0.0/16",
                                                                                     "10.0.0.10")
    assert (profile["networkPlugin"], profile["networkPluginMode"]) == ("azure", "overlay")
    # The provider's identity is what it was before these settings existed: existing stacks replace nothing.
    assert cluster_identifier(stack().cluster) == cluster_identifier(stack(podCidr="10.244.0.0/16").cluster)


def test_a_spoke_in_10_0_can_move_the_cluster_ranges(preview):
    config = stack(vnetSubnetId=SUBNET, podCidr="192.168.0.0/16", serviceCidr="172.16.0.0/16", dnsServiceIp="172.16.0.10")
    plan = capture(lambda: GpuPlatform("gpu", config), preview=preview)
    profile = plan.one(CLUSTER).inputs["networkProfile"]
    assert (profile["podCidr"], profile["serviceCidr"], profile["dnsServiceIP"]) == ("192.168.0.0/16", "172.16.0.0/16",
                                                                                     "172.16.0.10")
    # A new cluster: its Kubernetes provider (and every object through it) is replaced with it.
    assert plan.one(PROVIDER).inputs["clusterIdentifier"] != cluster_identifier(stack().cluster)


@pytest.mark.parametrize(("network", "path", "text"), [
    ({"podCidr": "10.0.0.0/8"}, "cluster.network.serviceCidr", "overlaps podCidr '10.0.0.0/8'"),
    ({"serviceCidr": "10.244.0.0/16", "dnsServiceIp": "10.244.0.10"}, "cluster.network.serviceCidr",
     "overlaps podCidr"),
    ({"serviceCidr": "172.16.0.0/16"}, "cluster.network.dnsServiceIp", "'10.0.0.10' is outside serviceCidr '172.16.0.0/16'"),
    ({"dnsServiceIp": "10.0.0.1"}, "cluster.network.dnsServiceIp", "the first address (the kubernetes service)"),
    ({"dnsServiceIp": "10.0.0.0"}, "cluster.network.dnsServiceIp", "is reserved in '10.0.0.0/16'"),
    ({"dnsServiceIp": "10.0.0.300"}, "cluster.network.dnsServiceIp", "is not an IP address"),
    ({"podCidr": "10.244.0.1/16"}, "cluster.network.podCidr", "has host bits set; the range it names is '10.244.0.0/16'"),
    ({"podCidr": "10.244.0.0"}, "cluster.network.podCidr", "is not a CIDR range"),
    ({"podCidr": "10.244.0.0/26"}, "cluster.network.podCidr", "gives each node a /24"),
    ({"podCidr": "fd00::/48"}, "cluster.network.podCidr", "is IPv6"),
    ({"serviceCidr": "10.0.0.0/8", "podCidr": "192.168.0.0/16"}, "cluster.network.serviceCidr", "at most a /12"),
    ({"serviceCidr": "172.31.0.0/16", "dnsServiceIp": "172.31.0.10"}, "cluster.network.serviceCidr",
     "overlaps 172.31.0.0/16, which AKS does not allow"),
])
def test_bad_ranges_name_their_key(network, path, text):
    with pytest.raises(ConfigError) as err:
        validate(ClusterConfig, cluster_data(**network), "cluster")
    assert any(p.path == path and text in p.message for p in err.value.problems), err.value.problems


def test_changing_a_range_later_is_shown_as_a_new_cluster():
    old = capture(lambda: GpuPlatform("gpu", stack()), stack="dev").to_dict()
    new = capture(lambda: GpuPlatform("gpu", stack(serviceCidr="172.16.0.0/16", dnsServiceIp="172.16.0.10")),
                  stack="dev").to_dict()
    changed = {r.name: r for r in diff_plans(copy.deepcopy(old), new).resources}
    cluster = changed["gpu-cluster-aks"]
    assert cluster.operation == "replace"
    assert {ch.path for ch in cluster.changes} >= {"networkProfile.serviceCidr", "networkProfile.dnsServiceIP"}
