"""GpuPlatform: cluster -> GPU pools, in parallel with provider -> driver and samples; Kubernetes only via that provider."""

from __future__ import annotations

import copy

import pytest

from components.azure.gpu_pool import shared_subnet_predecessors, shared_vnet_predecessors
from components.config import StackConfig
from components.offline import Plan, Registration, capture
from components.platform import GpuPlatform
from tests.conftest import SAMPLE_TYPES, all_waits

POOL = "azure-native:containerservice:AgentPool"
CLUSTER = "azure-native:containerservice:ManagedCluster"
RELEASE = "kubernetes:helm.sh/v3:Release"
PROVIDER = "pulumi:providers:kubernetes"

STACK = {
    "cluster": {"name": "aks-p", "location": "westeurope", "resourceGroup": {"name": "rg-p"}},
    "gpuPools": [
        {"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "autoscaling": {"minCount": 0, "maxCount": 3},
         "taints": ["nvidia.com/gpu=present:NoSchedule"]},
        {"name": "full", "vmSize": "Standard_NV36ads_A10_v5", "count": 1},
    ],
    "samples": {"workload": True},
}


def make(preview: bool, data: dict) -> Plan:
    config = StackConfig.model_validate(data)
    return capture(lambda: GpuPlatform("gpu", config), preview=preview)


@pytest.fixture(scope="module")
def plans() -> dict[bool, Plan]:
    """The two-pool platform, captured once per engine mode."""
    return {preview: make(preview, STACK) for preview in (True, False)}


def _urn(link: str) -> str:
    """A provider reference is `<urn>::<id>`; the urn is everything before the last `::`."""
    return link.rsplit("::", 1)[0]


def types_of(plan: Plan, urns: set[str]) -> set[str]:
    index = {r.urn: r.type for r in plan.resources}
    return {index[u] for u in urns if u in index}


def test_helm_release_never_waits_for_a_gpu_pool(plans, preview):
    plan = plans[preview]
    assert len(plan.all(POOL)) == 2
    upstream = types_of(plan, all_waits(plan, plan.one(RELEASE).urn))
    assert POOL not in upstream
    assert {PROVIDER, CLUSTER} <= upstream  # the walk does reach through the provider to the cluster


def test_samples_wait_for_neither_pools_nor_the_release(plans, preview):
    plan = plans[preview]
    samples = [r for r in plan.resources if r.type in SAMPLE_TYPES]
    assert len(samples) == 7  # namespace, class, 2 templates, shared claim, deny-all policy, job
    for r in samples:
        upstream = types_of(plan, all_waits(plan, r.urn))
        assert POOL not in upstream and RELEASE not in upstream, r.name
        assert CLUSTER in upstream, r.name


SUBNET = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/"
    "vnet/subnets/snet-nodes"
)


def on_subnet(pool_subnets: list[str | None]) -> dict:
    """STACK with the cluster on a bring-your-own subnet and each pool on the subnet given (None: the cluster's)."""
    data = copy.deepcopy(STACK)
    data["cluster"]["network"] = {"vnetSubnetId": SUBNET}
    data["gpuPools"].append({"name": "spare", "vmSize": "Standard_NV12ads_A10_v5", "count": 1})
    for pool, subnet in zip(data["gpuPools"], pool_subnets, strict=True):
        if subnet:
            pool["vnetSubnetId"] = subnet
    return data


def test_pools_in_aks_network_wait_for_the_cluster_only_never_for_each_other_or_kubernetes(plans, preview):
    # AKS refuses a second operation on the same pool, not on two pools (AKS troubleshooting, OperationNotAllowed).
    plan = plans[preview]
    pools = plan.all(POOL)
    assert len(pools) >= 2
    for pool in pools:
        upstream = all_waits(plan, pool.urn)
        assert plan.one(CLUSTER).urn in upstream
        assert not {t for t in types_of(plan, upstream) if t.startswith(("kubernetes:", "pulumi:providers"))}
        assert not {p.urn for p in pools} & upstream, f"{pool.name} waits for another pool"
    components = plan.all("aks-dra-vgpu:index:GpuNodePool")
    assert [c.dependencies for c in components] == [[], []]


def test_pools_in_one_bring_your_own_vnet_are_chained_in_config_order(preview):
    plan = make(preview, on_subnet([None, None, None]))
    by_name = {p.inputs["agentPoolName"]: p for p in plan.all(POOL)}
    assert by_name["third"].inputs["vnetSubnetID"] == by_name["spare"].inputs["vnetSubnetID"] == SUBNET
    assert by_name["third"].urn in by_name["full"].dependencies  # the same VNet: one after another, in config order
    assert by_name["full"].urn in by_name["spare"].dependencies
    assert not {p.urn for p in by_name.values()} & set(by_name["third"].dependencies)
    component = next(r for r in plan.all("aks-dra-vgpu:index:GpuNodePool") if r.urn == by_name["spare"].parent)
    assert component.dependencies == [by_name["full"].urn]  # the AgentPool itself, not its component


def test_pools_on_two_subnets_of_one_vnet_are_chained_too(preview):
    # Azure/AKS #4522: the ownership update is on the VNet (VirtualNetworkNotInSucceededState), whatever the subnet.
    sibling = SUBNET.replace("snet-nodes", "snet-other")
    plan = make(preview, on_subnet([None, sibling, None]))
    by_name = {p.inputs["agentPoolName"]: p for p in plan.all(POOL)}
    assert by_name["full"].inputs["vnetSubnetID"] == sibling != by_name["third"].inputs["vnetSubnetID"]
    assert by_name["third"].urn in by_name["full"].dependencies  # another subnet of the same VNet: still chained
    assert by_name["full"].urn in by_name["spare"].dependencies
    assert by_name["third"].urn not in by_name["spare"].dependencies  # a chain, not a fan: each waits for the last


def test_vnet_predecessors_are_the_last_pool_in_the_same_vnet_case_insensitively():
    shouting = SUBNET.replace("snet-nodes", "SNET-B").replace("virtualNetworks/vnet/", "VIRTUALNETWORKS/VNET/")
    other = SUBNET.replace("virtualNetworks/vnet/", "virtualNetworks/vnet-b/")
    config = StackConfig.model_validate(on_subnet([None, shouting, None]))
    pools = [p.inheriting({}, config.cluster.network.vnet_subnet_id) for p in config.gpu_pools]
    assert shared_vnet_predecessors(pools) == [None, 0, 1]
    # Composed by hand (GpuPlatform refuses two VNets): another VNet is another race.
    pools[2] = pools[2].model_copy(update={"vnet_subnet_id": other})
    assert shared_vnet_predecessors(pools) == [None, 0, None]
    assert shared_vnet_predecessors([p.model_copy(update={"vnet_subnet_id": None}) for p in pools]) == [None] * 3
    assert shared_subnet_predecessors is shared_vnet_predecessors  # the former name still works


def test_pools_wait_for_the_clusters_maintenance_windows(preview):
    data = copy.deepcopy(STACK)
    data["cluster"]["upgrades"] = {"channel": "patch", "nodeOsChannel": "NodeImage",
                                   "maintenanceWindow": {"dayOfWeek": "Sunday", "startTime": "02:00"}}
    plan = make(preview, data)
    windows = {r.urn for r in plan.all("azure-native:containerservice:MaintenanceConfiguration")}
    assert windows
    for pool in plan.all(POOL):
        assert windows <= set(pool.dependencies), pool.name


def test_every_kubernetes_resource_uses_the_clusters_provider(plans, preview):
    plan = plans[preview]
    provider = plan.one(PROVIDER)
    assert provider.parent == plan.one("aks-dra-vgpu:index:AksCluster").urn
    assert provider.inputs["kubeconfig"] == "[secret]"
    kube = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert len(kube) == 8  # the release and the seven sample objects
    for r in kube:
        assert r.provider is not None and _urn(r.provider) == provider.urn, r.name


def test_walk_finds_a_pool_reached_through_another_resource():
    """The check above can fail: a release that waits for a pool through an intermediate is caught."""

    def reg(name: str, type_: str, deps: list[str], provider: str | None = None) -> Registration:
        return Registration(f"urn:{name}", type_, name, True, None, provider, deps, {}, {})

    plan = Plan("p", "s", [
        reg("pool", POOL, []),
        reg("cm", "kubernetes:core/v1:ConfigMap", ["urn:pool"]),
        reg("k8s", PROVIDER, ["urn:cm"]),
        reg("release", RELEASE, [], provider="urn:k8s::id"),
    ])
    assert POOL in types_of(plan, all_waits(plan, "urn:release"))


def test_components_nest_under_the_platform(plans, preview):
    plan = plans[preview]
    platform = plan.one("aks-dra-vgpu:index:GpuPlatform").urn
    for type_ in ("AksCluster", "GpuNodePool", "NvidiaDraDriver", "DraSamples"):
        for r in plan.all(f"aks-dra-vgpu:index:{type_}"):
            assert r.parent == platform, r.name


def test_samples_target_every_pools_size(plans, preview):
    templates = plans[preview].all("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    names = sorted(r.inputs["metadata"]["name"] for r in templates)
    assert names == ["a10-vgpu-24gib", "a10-vgpu-8gib"]
    job = plans[preview].one("kubernetes:batch/v1:Job").inputs["spec"]["template"]["spec"]
    assert job["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]


def test_samples_off_creates_none(preview):
    data = copy.deepcopy(STACK)
    data["samples"] = {"enabled": False}
    plan = make(preview, data)
    assert [r.type for r in plan.resources if r.type in SAMPLE_TYPES] == []
    assert plan.all("aks-dra-vgpu:index:DraSamples") == []
    assert len(plan.all(RELEASE)) == 1 and len(plan.all(POOL)) == 2
