"""Pool taints to tolerations, in one function: the driver's plugin tolerates every served pool, a workload only the
pools of its own size class."""

from __future__ import annotations

import re

from components import tolerations_for_size
from components.config import GpuPoolConfig
from components.kubernetes.dra_driver import plugin_tolerations
from components.kubernetes.tolerations import pool_tolerations
from tests.conftest import ROOT


def pool(name: str, vm_size: str, taints: list[str]) -> GpuPoolConfig:
    return GpuPoolConfig.model_validate({"name": name, "vmSize": vm_size, "taints": taints})


SMALL = pool("small", "Standard_NV6ads_A10_v5", ["sku=gpu:NoSchedule"])
THIRD = pool("third", "Standard_NV12ads_A10_v5", ["nvidia.com/gpu=present:NoSchedule"])
FULL = pool("full", "Standard_NV36ads_A10_v5", ["nvidia.com/gpu=present:NoSchedule", "tier=training:NoSchedule"])
PAIRS = pool("pairs", "Standard_NV72ads_A10_v5", ["tier=pairs:NoExecute", "dedicated:NoSchedule"])
POOLS = [SMALL, THIRD, FULL, PAIRS]


def test_each_taint_once_sorted_matching_exactly():
    assert pool_tolerations([THIRD, FULL]) == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": "tier", "operator": "Equal", "value": "training", "effect": "NoSchedule"},
    ]
    assert pool_tolerations([PAIRS])[0] == {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}
    assert pool_tolerations([]) == []


def test_the_plugin_tolerates_every_pool():
    assert plugin_tolerations(POOLS) == pool_tolerations(POOLS)
    assert len(plugin_tolerations(POOLS)) == 5


def test_a_size_class_tolerates_only_its_own_pools():
    assert tolerations_for_size(POOLS, 4) == pool_tolerations([SMALL])
    assert tolerations_for_size(POOLS, 8) == pool_tolerations([THIRD])
    assert tolerations_for_size(POOLS, 12) == []
    # 24 GiB: every pool whose devices are 24 GiB, whatever its VM size.
    assert tolerations_for_size(POOLS, 24) == pool_tolerations([FULL, PAIRS])
    smaller = {t["key"] + t.get("value", "") for t in tolerations_for_size(POOLS, 8)}
    assert "tiertraining" not in smaller and "skugpu" not in smaller  # never a bigger (or smaller) pool's taint


def test_taints_become_tolerations_in_one_place_only():
    """No other module of the package builds tolerations from taints (the plugin's and the samples' come from here)."""
    offenders = []
    for path in (ROOT / "components").rglob("*.py"):
        if path.name in ("tolerations.py", "syntax.py"):  # the one function, and Taint.toleration() it calls
            continue
        if re.search(r"\.toleration\(\)", path.read_text(encoding="utf-8")):
            offenders.append(path.relative_to(ROOT).as_posix())
    assert offenders == []


SPOT = GpuPoolConfig.model_validate(
    {"name": "spot", "vmSize": "Standard_NV12ads_A10_v5", "taints": ["nvidia.com/gpu=present:NoSchedule"], "spot": {}}
)
SPOT_TOLERATION = {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot",
                   "effect": "NoSchedule"}


def test_spot_only_when_asked():
    """A workload gets a spot pool's taints only with spot=True (the sizing planner's opt-in); the DaemonSets always."""
    assert SPOT_TOLERATION not in tolerations_for_size([THIRD, SPOT], 8)
    assert tolerations_for_size([THIRD, SPOT], 8) == pool_tolerations([THIRD])
    assert SPOT_TOLERATION in tolerations_for_size([THIRD, SPOT], 8, spot=True)
    assert tolerations_for_size([SPOT], 8) == []  # a class served only by spot: nothing without opting in
    assert SPOT_TOLERATION in plugin_tolerations([THIRD, SPOT])


def test_pools_as_settings_dicts_or_anything_else():
    as_dict = {"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "taints": ["nvidia.com/gpu=present:NoSchedule"]}
    assert tolerations_for_size([as_dict], 8) == pool_tolerations([THIRD])
    assert tolerations_for_size([], 8) == []
    try:
        tolerations_for_size([42], 8)
    except ValueError as exc:
        assert "pools[0]" in str(exc) and "GpuNodePool" in str(exc)
    else:
        raise AssertionError("a number is not a pool")


def test_gpu_pool_config_is_public():
    import components

    assert "GpuPoolConfig" in components.__all__
    assert components.GpuPoolConfig is GpuPoolConfig


def test_values_functions_take_the_pool_components_too():
    """What the README passes (GpuNodePool components) works wherever pools are taken, as their settings do."""
    from components.config import DraDriverConfig
    from components.config.monitoring import GpuMetricsConfig
    from components.kubernetes.dra_driver import driver_values
    from components.observability.exporter import exporter_values

    class Component:  # a GpuNodePool keeps its validated settings on `.config`
        config = THIRD

    driver = DraDriverConfig()
    assert driver_values(driver, [Component()]) == driver_values(driver, [THIRD])
    assert exporter_values(GpuMetricsConfig(), [Component()]) == exporter_values(GpuMetricsConfig(), [THIRD])
    assert tolerations_for_size([Component()], 8) == pool_tolerations([THIRD])
