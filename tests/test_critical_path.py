"""The `pulumi up` critical path: a pure function on plans, checked on hand-made plans and on the real prod stack."""

from __future__ import annotations

import dataclasses

import pytest
import yaml

from components.cli import main
from components.config import StackConfig
from components.offline import Plan, Registration, capture
from components.offline.urns import provider_urn
from components.platform import GpuPlatform
from components.review.critical_path import Step, critical_path, format_critical_path, schedule
from components.review.provisioning_times import TYPICAL, Typical, kind_of
from components.review.waits import waits_for
from tests.conftest import ROOT

RG, AKS, POOL = "azure-native:resources:ResourceGroup", "azure-native:containerservice:ManagedCluster", (
    "azure-native:containerservice:AgentPool"
)
MAINTENANCE = "azure-native:containerservice:MaintenanceConfiguration"
K8S, HELM, NS, JOB = (
    "pulumi:providers:kubernetes", "kubernetes:helm.sh/v3:Release", "kubernetes:core/v1:Namespace", "kubernetes:batch/v1:Job"
)
MINUTES = {kind: t.minutes for kind, t in TYPICAL.items()}


def res(name: str, type_: str, *, deps: tuple[str, ...] = (), provider: str | None = None, parent: str | None = None,
        custom: bool = True, inputs: dict | None = None) -> Registration:
    """A registration as the engine records it, urn made from the name."""
    return Registration(
        urn=f"urn:pulumi:t::p::{type_}::{name}", type=type_, name=name, custom=custom, parent=parent,
        provider=provider, dependencies=list(deps), inputs=inputs or {}, options={},
    )


SUBNET = "/subscriptions/0/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/snet-nodes"


def urn(name: str, type_: str) -> str:
    return f"urn:pulumi:t::p::{type_}::{name}"


def plan_of(*resources: Registration) -> Plan:
    return Plan("p", "t", sorted(resources, key=lambda r: r.urn))


def steps_of(plan: Plan) -> dict[str, Step]:
    """Every custom resource's start and finish, scheduled as `critical_path` schedules them."""
    return schedule(plan, {r.urn: kind_of(r) for r in plan.resources}, waits_for(plan))


def platform(*, pool_waits_for_pool: bool = False, driver_waits_for_pool: bool = False, subnet: str | None = None) -> Plan:
    """Cluster, two pools (side by side, or chained on a shared subnet), provider, driver, namespace and a job: the
    shape GpuPlatform declares."""
    rg, aks = urn("rg", RG), urn("aks", AKS)
    k8s = urn("k8s", K8S)
    on_cluster = f"{k8s}::k8s-id"
    on_subnet = {"vnetSubnetID": subnet} if subnet else {}
    return plan_of(
        res("rg", RG),
        res("aks", AKS, deps=(rg,)),
        res("pool-a", POOL, deps=(rg, aks), inputs=on_subnet),
        res("pool-b", POOL, deps=(rg, aks, *([urn("pool-a", POOL)] if pool_waits_for_pool else [])), inputs=on_subnet),
        res("k8s", K8S, deps=(aks,)),
        res("driver", HELM, provider=on_cluster, deps=(urn("pool-a", POOL),) if driver_waits_for_pool else ()),
        res("ns", NS, provider=on_cluster),
        res("job", JOB, provider=on_cluster, deps=(urn("ns", NS),)),
    )


# --- pure function, hand-made plans ------------------------------------------------------------------------------------
def test_a_chain_adds_up_and_is_named_in_order():
    plan = plan_of(res("rg", RG), res("aks", AKS, deps=(urn("rg", RG),)),
                   res("pool", POOL, deps=(urn("aks", AKS),)))
    result = critical_path(plan)
    assert [s.name for s in result.steps] == ["rg", "aks", "pool"]
    assert result.minutes == pytest.approx(MINUTES["resource group"] + MINUTES["AKS cluster"] + MINUTES["GPU agent pool"])
    assert result.chain == "rg -> aks -> pool"
    assert [s.start for s in result.steps] == pytest.approx([0, MINUTES["resource group"],
                                                              MINUTES["resource group"] + MINUTES["AKS cluster"]])


def test_parallel_branches_take_the_longest_not_the_sum():
    result = critical_path(platform())
    expected = MINUTES["resource group"] + MINUTES["AKS cluster"] + max(
        MINUTES["GPU agent pool"], MINUTES["Kubernetes provider"] + MINUTES["Helm release"]
    )
    assert result.minutes == pytest.approx(expected)
    assert result.steps[-1].kind == "GPU agent pool"
    assert result.reaches_floor and result.warnings == ()
    assert "side by side" in result.notes[0]


def test_pools_in_aks_own_network_run_side_by_side_and_a_chain_there_misses_the_floor():
    chained = critical_path(platform(pool_waits_for_pool=True))
    assert chained.warnings == () and not chained.reaches_floor
    assert chained.minutes - chained.floor_minutes == pytest.approx(MINUTES["GPU agent pool"])


def test_a_resource_waits_for_its_provider_resource():
    plan = plan_of(res("aks", AKS), res("k8s", K8S, deps=(urn("aks", AKS),)),
                   res("driver", HELM, provider=f"{urn('k8s', K8S)}::some-id"))
    steps = steps_of(plan)
    assert steps[urn("driver", HELM)].start == pytest.approx(MINUTES["AKS cluster"])
    assert waits_for(plan)[urn("driver", HELM)] == [urn("k8s", K8S)]


def test_default_providers_outside_the_plan_are_not_waited_for():
    plan = plan_of(res("rg", RG, provider="urn:pulumi:t::p::pulumi:providers:azure-native::default::id"))
    assert waits_for(plan)[urn("rg", RG)] == []


def test_components_take_no_time_and_children_do_not_wait_for_their_parent():
    component = res("platform", "pkg:index:Platform", custom=False)
    plan = plan_of(component, res("rg", RG, parent=component.urn), res("ns", NS, parent=component.urn))
    steps = steps_of(plan)
    assert component.urn not in steps
    assert all(s.start == 0 for s in steps.values())


def test_waiting_for_a_component_means_waiting_for_everything_inside_it():
    outer = res("outer", "pkg:index:Outer", custom=False)
    inner = res("inner", "pkg:index:Inner", custom=False, parent=outer.urn)
    plan = plan_of(outer, inner, res("aks", AKS, parent=inner.urn), res("rg", RG, parent=outer.urn),
                   res("job", JOB, deps=(outer.urn,)))
    assert waits_for(plan)[urn("job", JOB)] == sorted([urn("aks", AKS), urn("rg", RG)])
    assert steps_of(plan)[urn("job", JOB)].start == pytest.approx(MINUTES["AKS cluster"])


def test_a_dependency_cycle_is_an_error_not_a_hang():
    plan = plan_of(res("a", NS, deps=(urn("b", JOB),)), res("b", JOB, deps=(urn("a", NS),)))
    with pytest.raises(ValueError, match="cycle"):
        critical_path(plan)


def test_a_long_chain_needs_no_recursion():
    chain = [res("n0", NS)] + [res(f"n{i}", NS, deps=(urn(f"n{i - 1}", NS),)) for i in range(1, 3000)]
    assert critical_path(plan_of(*chain)).minutes == pytest.approx(3000 * MINUTES["Kubernetes object"])


def test_unknown_kinds_are_priced_as_other_and_the_table_is_a_parameter():
    bucket = res("x", "aws:s3:Bucket")
    plan = plan_of(bucket, res("ns", NS, deps=(bucket.urn,)))
    assert kind_of(bucket) == "other"
    table = {**TYPICAL, "other": Typical("other", 10.0, "test"), "Kubernetes object": Typical("Kubernetes object", 1.0, "t")}
    assert critical_path(plan, table).minutes == pytest.approx(11.0)


def test_provider_reference_is_split_from_its_id():
    assert provider_urn("urn:pulumi:s::p::pulumi:providers:kubernetes::k8s::04da6b54") == (
        "urn:pulumi:s::p::pulumi:providers:kubernetes::k8s"
    )
    assert provider_urn(None) is None


def test_pools_on_one_subnet_that_may_run_at_once_are_flagged_and_the_chain_is_explained():
    good = critical_path(platform(pool_waits_for_pool=True, subnet=SUBNET))
    bad = critical_path(platform(subnet=SUBNET))
    assert good.reaches_floor and good.warnings == ()
    assert "share the virtual network vnet: one after another" in good.notes[0] and "Azure/AKS #4522" in good.notes[0]
    assert "note: GPU pools pool-a, pool-b share the virtual network" in format_critical_path(good)
    assert bad.minutes == pytest.approx(good.minutes - MINUTES["GPU agent pool"])  # faster on paper, but it may fail
    assert not bad.reaches_floor
    assert "SetVNetOwnershipFailed" in bad.warnings[0] and "chain them" in bad.warnings[0]
    assert "SetVNetOwnershipFailed" in format_critical_path(bad)


def test_pools_on_two_subnets_of_one_vnet_that_may_run_at_once_are_flagged():
    sibling = SUBNET.replace("snet-nodes", "snet-other")
    two = platform(subnet=SUBNET)
    pools = [dataclasses.replace(r, inputs={"vnetSubnetID": sibling}) if r.name == "pool-b" else r for r in two.resources]
    found = critical_path(dataclasses.replace(two, resources=pools)).warnings
    assert len(found) == 1 and "share the virtual network vnet" in found[0] and "VirtualNetworkNotInSucceededState" in found[0]
    other_vnet = SUBNET.replace("virtualNetworks/vnet/", "virtualNetworks/vnet-b/")
    apart = [dataclasses.replace(r, inputs={"vnetSubnetID": other_vnet}) if r.name == "pool-b" else r for r in two.resources]
    assert critical_path(dataclasses.replace(two, resources=apart)).warnings == ()


def test_subnet_ids_compare_case_insensitively():
    shouting = platform(subnet=SUBNET)
    pools = [dataclasses.replace(r, inputs={"vnetSubnetID": SUBNET.upper()}) if r.name == "pool-b" else r
             for r in shouting.resources]
    assert critical_path(dataclasses.replace(shouting, resources=pools)).warnings


def test_a_driver_waiting_for_a_pool_is_caught_when_the_driver_is_slow():
    slow_driver = {**TYPICAL, "Helm release": Typical("Helm release", 7.0, "test")}
    assert critical_path(platform(), slow_driver).reaches_floor
    assert not critical_path(platform(driver_waits_for_pool=True), slow_driver).reaches_floor


def test_manual_recipe_runs_every_command_after_the_other():
    steps = critical_path(platform()).manual
    assert [s.typical.kind for s in steps] == ["resource group", "AKS cluster", "GPU agent pool", "GPU agent pool", "node label",
                                       "Helm release", "Kubernetes object", "Kubernetes object"]
    assert critical_path(platform()).manual_minutes == pytest.approx(sum(s.typical.minutes for s in steps))


# --- the real prod plan ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def prod(shipped_plan) -> Plan:
    return shipped_plan("prod")


def test_prod_reaches_the_floor(prod):
    """Prod's pools share the cluster's bring-your-own subnet: one after another, after the maintenance windows."""
    result = critical_path(prod)
    pools, windows = prod.all(POOL), prod.all(MAINTENANCE)
    assert len(pools) >= 2 and len(windows) == 2
    expected = MINUTES["resource group"] + MINUTES["AKS cluster"] + len(windows) * MINUTES["maintenance configuration"] + max(
        len(pools) * MINUTES["GPU agent pool"],
        MINUTES["Kubernetes provider"] + MINUTES["Helm release"] + _sample_chain(prod),
    )
    assert result.floor_minutes == pytest.approx(expected)
    assert result.minutes == pytest.approx(expected) and result.reaches_floor
    assert [s.kind for s in result.steps] == [
        "resource group", "AKS cluster", *["maintenance configuration"] * len(windows), *["GPU agent pool"] * len(pools)
    ]
    assert len(result.notes) == 1 and "share the virtual network vnet-prod: one after another" in result.notes[0]


@pytest.fixture(scope="module")
def prod_in_aks_network() -> Plan:
    """Prod planned without its own subnet: the pools join AKS's own network."""
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    data = {key.split(":", 1)[1]: value for key, value in doc["config"].items()}
    del data["cluster"]["network"]
    config = StackConfig.model_validate(data)
    return capture(lambda: GpuPlatform("gpu", config), preview=True)


def test_prod_without_its_own_subnet_is_the_cluster_and_one_pool(prod_in_aks_network):
    plan = prod_in_aks_network
    result = critical_path(plan)
    assert len(plan.all(POOL)) >= 2 and all("vnetSubnetID" not in p.inputs for p in plan.all(POOL))
    # The cluster's two maintenance windows go one after the other (each is a write on the cluster), then the pools.
    windows = ["maintenance configuration"] * len(plan.all(MAINTENANCE))
    assert [s.kind for s in result.steps] == ["resource group", "AKS cluster", *windows, "GPU agent pool"]
    assert result.minutes == pytest.approx(
        MINUTES["resource group"] + MINUTES["AKS cluster"] + len(windows) * MINUTES["maintenance configuration"]
        + MINUTES["GPU agent pool"]
    )
    assert result.reaches_floor and result.warnings == () and "side by side" in result.notes[0]


def test_every_pool_waits_for_the_cluster_and_its_maintenance_windows(prod, prod_in_aks_network):
    for plan in (prod, prod_in_aks_network):
        waits = waits_for(plan)
        writes = {r.urn for r in plan.resources if r.type in (AKS, MAINTENANCE)}
        assert len(writes) >= 2
        for pool in plan.all(POOL):
            assert writes <= set(waits[pool.urn]) | {u for w in waits[pool.urn] for u in waits.get(w, [])}, pool.name


def _sample_chain(plan: Plan) -> float:
    """The longest chain among the Kubernetes objects, counted by hand from their own dependencies."""
    objects = {r.urn: r for r in plan.resources if r.custom and r.type.startswith("kubernetes:") and r.type != HELM}
    depth: dict[str, int] = {}

    def level(u: str) -> int:
        if u not in depth:
            depth[u] = 1 + max((level(d) for d in objects[u].dependencies if d in objects), default=0)
        return depth[u]

    return max(level(u) for u in objects) * MINUTES["Kubernetes object"]


def test_prod_pools_on_its_subnet_run_one_after_another_and_the_driver_waits_for_no_pool(prod):
    waits = waits_for(prod)
    pools = {r.urn for r in prod.all(POOL)}
    assert critical_path(prod).warnings == ()
    for r in prod.resources:
        if r.type == HELM:
            assert not set(waits[r.urn]) & pools, f"{r.name} waits for a GPU pool"


def test_prod_samples_wait_only_for_what_they_reference(prod):
    waits = waits_for(prod)
    provider = prod.one(K8S).urn
    for r in prod.resources:
        if r.custom and r.type.startswith("kubernetes:") and r.type != HELM:
            assert provider in waits[r.urn]
            assert all(prod.by_urn(u).type.startswith("kubernetes:") or u == provider for u in waits[r.urn]), r.name


def test_prod_with_its_subnet_chain_broken_is_caught(prod):
    pools = {r.urn for r in prod.all(POOL)}
    unchained = [dataclasses.replace(r, dependencies=[d for d in r.dependencies if d not in pools]) if r.urn in pools else r
                 for r in prod.resources]
    broken = dataclasses.replace(prod, resources=unchained)
    assert critical_path(broken).warnings and not critical_path(broken).reaches_floor


def test_prod_beats_the_manual_recipe(prod):
    result = critical_path(prod)
    pools = len(prod.all(POOL))
    objects = sum(1 for r in prod.resources if kind_of(r) == "Kubernetes object")
    assert result.manual_minutes == pytest.approx(
        MINUTES["resource group"] + MINUTES["AKS cluster"] + pools * MINUTES["GPU agent pool"] + MINUTES["node label"]
        + len(prod.all("kubernetes:helm.sh/v3:Release")) * MINUTES["Helm release"] + objects * MINUTES["Kubernetes object"]
    )
    assert result.minutes < result.manual_minutes


def test_cli_prints_the_critical_path(capsys):
    assert main(["plan", "--stack", "prod", "--project-dir", str(ROOT), "--critical-path"]) == 0
    out = capsys.readouterr().out
    assert "pulumi up critical path" in out and "(reached)" in out and "manual recipe" in out
    assert "gpu-cluster-aks" in out.split("pulumi up critical path", 1)[1]
