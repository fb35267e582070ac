"""The sizing planner (pure): the right slice size across the range, nodes for repeated workloads, two-device
workloads on NV72ads, what fits nowhere, cost against the baselines, and a stack's pools checked."""

from __future__ import annotations

import copy

import pytest

from components.config import StackConfig
from components.kubernetes.selectors import usable_memory_gib
from components.sizing.planner import Workload, nodes_for, plan_sizing, size_class_for
from components.sizing.prices import PriceTable, load_prices
from tests.conftest import MINIMAL_STACK

PRICES = PriceTable.model_validate({
    "region": "testregion", "currency": "EUR", "date": "2026-01-01", "source": "test figures", "hoursPerMonth": 730,
    "prices": {"Standard_NV6ads_A10_v5": 1.0, "Standard_NV12ads_A10_v5": 2.0, "Standard_NV18ads_A10_v5": 3.0,
               "Standard_NV36ads_A10_v5": 6.0, "Standard_NV36adms_A10_v5": 8.0, "Standard_NV72ads_A10_v5": 12.0},
})


def u(size: int, margin: int = 10) -> float:
    return usable_memory_gib(size, margin)


# --- one workload, across the range -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("gib", "size", "vm"), [
    (0.5, 4, "Standard_NV6ads_A10_v5"),
    (u(4), 4, "Standard_NV6ads_A10_v5"),
    (u(4) + 0.001, 8, "Standard_NV12ads_A10_v5"),
    (4, 8, "Standard_NV12ads_A10_v5"),  # 4 GiB does not fit a 4 GB slice: it reports up to 10 % less
    (u(8), 8, "Standard_NV12ads_A10_v5"),
    (u(8) + 0.001, 12, "Standard_NV18ads_A10_v5"),
    (10, 12, "Standard_NV18ads_A10_v5"),
    (u(12), 12, "Standard_NV18ads_A10_v5"),
    (u(12) + 0.001, 24, "Standard_NV36ads_A10_v5"),
    (u(24), 24, "Standard_NV36ads_A10_v5"),
    (u(24) + 0.001, None, None),
    (48, None, None),
])
def test_the_smallest_slice_whose_usable_memory_holds_it(gib, size, vm):
    plan = plan_sizing([Workload("w", gib)], PRICES)
    (p,) = plan.placements
    assert (p.size_class, p.vm_size) == (size, vm)
    assert p.claim_template == (f"a10-vgpu-{size}gib" if size else None)
    assert plan.fits is (size is not None)


def test_the_margin_decides_what_is_usable():
    assert size_class_for(3.9, 0) == 4 and size_class_for(3.9, 10) == 8
    assert size_class_for(3.9, 25) == 8


def test_what_fits_nowhere_is_reported_never_placed():
    plan = plan_sizing([Workload("ok", 2), Workload("llm70b", 40, 2)], PRICES)
    assert not plan.fits
    (error,) = [f for f in plan.findings if f.severity == "error"]
    assert (error.kind, error.key) == ("no-fit", "workloads[1]")
    assert error.message.startswith("llm70b: 40 GiB is more than any single A10 slice holds (at most 21.6 GiB usable")
    assert [p.vm_size for p in plan.pools] == ["Standard_NV6ads_A10_v5"]  # nothing planned for it
    assert plan.costs["plan"].requested_gib == 2  # nor costed


# --- nodes ------------------------------------------------------------------------------------------------------------
def test_repeated_workloads_count_nodes_per_size():
    plan = plan_sizing([Workload("embed", 3, 5), Workload("chat", 7, 3), Workload("rerank", 2, 2), Workload("ft", 20)],
                       PRICES)
    pools = {p.vm_size: (p.devices, p.nodes, p.min_count, p.max_count) for p in plan.pools}
    assert pools == {
        "Standard_NV6ads_A10_v5": (7, 7, 1, 7),
        "Standard_NV12ads_A10_v5": (3, 3, 1, 3),
        "Standard_NV36ads_A10_v5": (1, 1, 1, 1),
    }
    assert [p.vm_size for p in plan.pools] == ["Standard_NV6ads_A10_v5", "Standard_NV12ads_A10_v5",
                                               "Standard_NV36ads_A10_v5"]  # smallest slices first


def test_two_device_workloads_take_a_whole_nv72ads_node_each():
    plan = plan_sizing([Workload("pair", 20, 3, devices=2)], PRICES)
    (p,) = plan.placements
    assert (p.vm_size, p.claim_template, p.size_class) == ("Standard_NV72ads_A10_v5", "a10-vgpu-2x24gib", 24)
    (pool,) = plan.pools
    assert (pool.vm_size, pool.devices, pool.nodes) == ("Standard_NV72ads_A10_v5", 6, 3)
    assert not plan_sizing([Workload("pair", 23, devices=2)], PRICES).fits  # per device more than a 24 GB slice


def test_nv72ads_packs_two_single_devices_per_node():
    stack = stack_with({"name": "big", "vmSize": "Standard_NV72ads_A10_v5", "autoscaling": {"minCount": 1, "maxCount": 9}})
    plan = plan_sizing([Workload("ft", 20, 5), Workload("pair", 20, 1, devices=2)], PRICES, stack)
    (pool,) = plan.pools
    assert (pool.vm_size, pool.devices, pool.nodes) == ("Standard_NV72ads_A10_v5", 7, 4)  # 1 node for the pair + 3 for 5
    assert plan.fits


def test_nodes_for_counts_slots():
    from components.catalog import A10_SIZES

    plan = plan_sizing([Workload("a", 20, 3)], PRICES)
    assert nodes_for(A10_SIZES["Standard_NV36ads_A10_v5"], plan.placements) == 3
    assert nodes_for(A10_SIZES["Standard_NV72ads_A10_v5"], plan.placements) == 2


# --- cost -------------------------------------------------------------------------------------------------------------
def test_cost_beside_the_two_baselines_with_utilisation():
    plan = plan_sizing([Workload("embed", 3, 4), Workload("chat", 7, 2), Workload("ft", 20)], PRICES)
    c = plan.costs
    assert (c["plan"].hourly, c["plan"].monthly) == (4 * 1 + 2 * 2 + 6, (4 + 4 + 6) * 730)
    assert c["plan"].requested_gib == 3 * 4 + 7 * 2 + 20
    assert c["plan"].provisioned_gib == 4 * 4 + 2 * 8 + 24
    assert c["plan"].utilisation == pytest.approx(46 / 56)
    assert c["wholeA10PerWorkload"].hourly == 7 * 6.0 and c["wholeA10PerWorkload"].provisioned_gib == 7 * 24
    assert (c["largestSizePool"].vm_size, c["largestSizePool"].hourly) == ("Standard_NV36ads_A10_v5", 7 * 6.0)
    assert c["plan"].hourly < c["largestSizePool"].hourly and c["plan"].utilisation > c["wholeA10PerWorkload"].utilisation


def test_largest_size_baseline_is_the_largest_size_needed_not_always_a_whole_a10():
    plan = plan_sizing([Workload("a", 2, 3), Workload("b", 6)], PRICES)
    assert (plan.costs["largestSizePool"].vm_size, plan.costs["largestSizePool"].hourly) == ("Standard_NV12ads_A10_v5", 8.0)


def test_a_price_table_without_a_size_leaves_cost_out_and_says_so():
    partial = PRICES.model_copy(update={"prices": {"Standard_NV6ads_A10_v5": 1.0}})
    plan = plan_sizing([Workload("a", 2), Workload("b", 6)], partial)
    assert plan.costs["plan"].hourly is None and plan.costs["plan"].monthly is None
    assert {f.kind for f in plan.findings} == {"no-price"} and plan.fits  # a warning, not a misfit


def test_the_packaged_price_table_records_region_currency_date_source():
    table = load_prices()
    assert (table.region, table.currency, table.hours_per_month) == ("eastus", "USD", 730)
    assert table.date and table.source and "Retail Prices API" in table.source
    from components.catalog import A10_SIZES, MIG_SIZES

    assert set(A10_SIZES) <= set(table.prices) <= set(A10_SIZES) | set(MIG_SIZES)


# --- a stack ----------------------------------------------------------------------------------------------------------
def stack_with(*pools: dict, **samples) -> StackConfig:
    data = copy.deepcopy(MINIMAL_STACK)
    data["gpuPools"] = list(pools)
    if samples:
        data["samples"] = samples
    return StackConfig.model_validate(data)


def test_a_stack_lacking_a_needed_size_is_refused():
    stack = stack_with({"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "autoscaling": {"minCount": 1, "maxCount": 5}})
    plan = plan_sizing([Workload("chat", 7, 2), Workload("ft", 20)], PRICES, stack)
    assert not plan.fits
    (error,) = [f for f in plan.findings if f.severity == "error"]
    assert (error.kind, error.key) == ("missing-size", "gpuPools")
    assert "no pool offers 24 GiB slices (Standard_NV36ads_A10_v5) to ft" in error.message
    assert [p["vmSize"] for p in plan.gpu_pools] == ["Standard_NV12ads_A10_v5", "Standard_NV36ads_A10_v5"]
    assert plan.gpu_pools[1] == {"name": "nv36ads", "vmSize": "Standard_NV36ads_A10_v5",
                                 "autoscaling": {"minCount": 1, "maxCount": 1}}
    (change,) = plan.changes
    assert str(change) == ("nv36ads: new pool (Standard_NV36ads_A10_v5 with maxCount 1: no pool offers its slices "
                           "to ft)")


def test_a_pool_too_small_names_its_max_count_and_the_snippet_raises_it():
    stack = stack_with({"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "autoscaling": {"minCount": 1, "maxCount": 2},
                        "taints": ["sku=gpu:NoSchedule"]})
    plan = plan_sizing([Workload("chat", 7, 5)], PRICES, stack)
    (error,) = plan.findings
    assert (error.kind, error.key) == ("max-count", "gpuPools[0].autoscaling.maxCount")
    assert error.message == ("third (Standard_NV12ads_A10_v5) has maxCount 2 (2 devices); chat needs 5 nodes (5 devices): "
                             "raise third's maxCount to 5")
    (change,) = plan.changes
    assert (change.pool, change.key, change.old, change.new) == ("third", "autoscaling.maxCount", 2, 5)
    assert plan.gpu_pools == [{"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "taints": ["sku=gpu:NoSchedule"],
                               "autoscaling": {"minCount": 1, "maxCount": 5}}]
    (p,) = plan.placements
    assert p.tolerations == [{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]


def test_fixed_count_pools_are_checked_at_their_count():
    stack = stack_with({"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "count": 1})
    (error,) = plan_sizing([Workload("chat", 7, 2)], PRICES, stack).findings
    assert error.key == "gpuPools[0].count"


def test_pools_nothing_needs_and_scale_from_zero_are_warnings():
    stack = stack_with(
        {"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "autoscaling": {"minCount": 0, "maxCount": 4}},
        {"name": "full", "vmSize": "Standard_NV36ads_A10_v5", "autoscaling": {"minCount": 0, "maxCount": 2}},
    )
    plan = plan_sizing([Workload("chat", 7, 2)], PRICES, stack)
    assert plan.fits
    found = {(f.kind, f.key) for f in plan.findings}
    assert found == {("unused-pool", "gpuPools[1]"), ("scale-from-zero", "gpuPools[0].autoscaling.minCount")}
    assert [p["name"] for p in plan.gpu_pools] == ["third", "full"]  # the unused pool is kept, as written
    assert plan.gpu_pools[0]["autoscaling"] == {"minCount": 0, "maxCount": 4}  # minCount as written
    assert plan.changes == []


def test_a_stack_pool_of_the_class_is_used_over_the_catalogs_smallest():
    stack = stack_with({"name": "fullm", "vmSize": "Standard_NV36adms_A10_v5", "autoscaling": {"minCount": 1, "maxCount": 3}},
                       deviceClassName="team-a10", memoryMarginPercent=5)
    plan = plan_sizing([Workload("ft", 22.5, 2)], PRICES, stack)  # 22.5 GiB fits 24 GB at a 5 % margin only
    (p,) = plan.placements
    assert (p.vm_size, p.claim_template) == ("Standard_NV36adms_A10_v5", "team-a10-24gib")
    assert plan.margin_percent == 5 and plan.fits


def test_a_stack_that_fits_everything_passes():
    stack = stack_with(
        {"name": "small", "vmSize": "Standard_NV6ads_A10_v5", "autoscaling": {"minCount": 1, "maxCount": 4}},
        {"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "autoscaling": {"minCount": 1, "maxCount": 6}},
    )
    plan = plan_sizing([Workload("embed", 3, 4), Workload("chat", 7, 6)], PRICES, stack)
    assert plan.fits and plan.findings == []
