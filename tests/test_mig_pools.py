"""MIG pools: the profile a pool names, what the AgentPool gets, and every refusal, each naming its key."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from components.azure.agent_pool import agent_pool_properties
from components.azure.gpu_pool import GpuNodePool, GpuNodePoolArgs
from components.catalog import DRIVER_CHARTS
from components.config import ConfigError, GpuPoolConfig, stack_config_from_mapping
from components.config.mig_pools import driver_mig_problems
from components.offline import capture
from components.policies import check_gpu_pool
from tests.conftest import MINIMAL_STACK, as_config

A100 = "Standard_NC24ads_A100_v4"
POOL = "azure-native:containerservice:AgentPool"


def mig_pool(**extra) -> dict:
    return {"name": "mig", "vmSize": A100, "gpuInstanceProfile": "MIG3g", "count": 1, **extra}


def stack(*pools: dict, driver: dict | None = None, **sections) -> dict:
    data = copy.deepcopy(MINIMAL_STACK)
    data["gpuPools"] = [*data["gpuPools"], *pools]
    if driver is not None:
        data["draDriver"] = driver
    data.update(sections)
    return data


def problems(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in caught.value.problems]


# --- what a MIG pool is ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("written", ["MIG3g", "3g.40gb"])
def test_the_profile_in_aks_words_or_as_the_slice_name(written):
    pool = GpuPoolConfig.model_validate(mig_pool(gpuInstanceProfile=written))
    assert (pool.is_mig, pool.mig_profile, pool.slice_memory_gib, pool.devices_per_node) == (True, "MIG3g", 40, 2)
    props = agent_pool_properties(pool)
    assert props["gpu_instance_profile"] == "MIG3g"
    assert props["gpu_profile"].driver == "Install"
    assert props["node_labels"]["nvidia.com/gpu.present"] == "true"


def test_an_a10_pool_sends_no_profile_and_has_no_mig_slice():
    pool = GpuPoolConfig.model_validate(MINIMAL_STACK["gpuPools"][0])
    assert (pool.is_mig, pool.mig_profile, pool.mig_slice) == (False, None, None)
    assert agent_pool_properties(pool)["gpu_instance_profile"] is None  # None is not sent: the A10 plan is unchanged
    assert (pool.slice_memory_gib, pool.devices_per_node) == (8, 1)


def test_a_mig_pool_is_never_read_as_an_a10_slice():
    pool = GpuPoolConfig.model_validate(mig_pool())
    with pytest.raises(TypeError, match=r"'mig' .* is a MIG pool"):
        _ = pool.size


def test_an_h100_nvl_pool_gets_its_own_slices():
    pool = GpuPoolConfig.model_validate(mig_pool(vmSize="Standard_NC80adis_H100_v5", gpuInstanceProfile="3g.47gb"))
    assert (pool.mig_profile, pool.slice_memory_gib, pool.devices_per_node) == ("MIG3g", 47, 4)


# --- refusals, one each ---------------------------------------------------------------------------------------------------
def test_a_profile_on_an_a10_size():
    (line,) = problems(stack(mig_pool(vmSize="Standard_NV36ads_A10_v5")))
    assert line.startswith("gpuPools[1].gpuInstanceProfile: 'MIG3g' partitions GPUs with MIG, but "
                           "Standard_NV36ads_A10_v5 is an NVadsA10_v5 size")
    assert "remove gpuInstanceProfile, or choose one of Standard_NC24ads_A100_v4" in line


def test_a_typo_of_a_mig_size_is_told_the_mig_size():
    (line,) = problems(stack(mig_pool(vmSize="Standard_NC24ads_A100")))
    assert "(did you mean 'Standard_NC24ads_A100_v4'?)" in line


def test_a_profile_on_a_size_of_neither_family():
    (line,) = problems(stack(mig_pool(vmSize="Standard_NC6s_v3")))
    assert line.startswith("gpuPools[1].vmSize: 'Standard_NC6s_v3' is not an NVadsA10_v5 size")
    assert line.endswith("or a MIG size with gpuInstanceProfile (docs/mig.md)")


def test_a_mig_size_without_a_profile():
    (line,) = problems(stack({"name": "mig", "vmSize": A100, "count": 1}))
    assert line.startswith("gpuPools[1].gpuInstanceProfile: Standard_NC24ads_A100_v4 is a MIG size: set how AKS "
                           "partitions its GPUs, one of MIG1g (1g.10gb), MIG2g (2g.20gb), MIG3g (3g.40gb)")
    assert "it is valid to use mig-capable gpus without a partitioning profile" in line  # AKS accepts it: GPUs whole


def test_a_slice_of_another_gpu_is_too_wide_for_the_size():
    (line,) = problems(stack(mig_pool(vmSize="Standard_ND96asr_v4", gpuInstanceProfile="3g.40gb")))
    assert line == (
        "gpuPools[1].gpuInstanceProfile: '3g.40gb' is not what AKS lays out on A100 40GB: each gpuInstanceProfile "
        "gives the smallest-memory slice of its width (Azure/AgentBaker mig-partition.sh), here MIG3g = 3g.20gb; "
        "choose one of MIG1g (1g.5gb), MIG2g (2g.10gb), MIG3g (3g.20gb), MIG4g (4g.20gb), MIG7g (7g.40gb)"
    )


def test_a_slice_the_gpu_has_but_aks_never_lays_out():
    (line,) = problems(stack(mig_pool(gpuInstanceProfile="1g.20gb")))
    assert "'1g.20gb' is not what AKS lays out on A100 80GB" in line and "here MIG1g = 1g.10gb" in line


def test_not_a_profile_at_all():
    (line,) = problems(stack(mig_pool(gpuInstanceProfile="MIG5g")))
    assert line.startswith("gpuPools[1].gpuInstanceProfile: 'MIG5g' is not a MIG profile of Standard_NC24ads_A100_v4 "
                           "(1 x A100 80GB); choose one of MIG1g (1g.10gb)")


def test_driver_none_with_a_profile_is_a_policy_violation():
    pool = GpuPoolConfig.model_validate(mig_pool())
    inputs = {"vmSize": A100, "gpuInstanceProfile": "MIG3g", "gpuProfile": {"driver": "None"},
              "nodeLabels": pool.node_labels}
    (message,) = check_gpu_pool(POOL, inputs)
    assert message.startswith("gpuProfile.driver is 'None' with gpuInstanceProfile 'MIG3g': AKS partitions GPUs only "
                              "where it installs the driver")
    assert check_gpu_pool(POOL, {**inputs, "gpuProfile": {"driver": "Install"}}) == []


def test_the_policy_refuses_a_mig_size_without_a_profile_and_a_profile_on_an_a10():
    labels = {"nvidia.com/gpu.present": "true"}
    (whole,) = check_gpu_pool(POOL, {"vmSize": A100, "gpuProfile": {"driver": "Install"}, "nodeLabels": labels})
    assert whole == "gpuInstanceProfile is missing on MIG size Standard_NC24ads_A100_v4: AKS would leave its GPUs whole"
    (a10,) = check_gpu_pool(POOL, {"vmSize": "Standard_NV36ads_A10_v5", "gpuInstanceProfile": "MIG1g",
                                   "gpuProfile": {"driver": "Install"}, "nodeLabels": labels})
    assert a10.startswith("gpuInstanceProfile 'MIG1g' on Standard_NV36ads_A10_v5")


def test_dynamic_mig_beside_a_pool_aks_partitions():
    (line,) = problems(stack(mig_pool(), driver={"featureGates": {"DynamicMIG": True}}))
    assert line.startswith("draDriver.featureGates.DynamicMIG: must stay false beside pools AKS partitions "
                           "(gpuPools[1] (Standard_NC24ads_A100_v4, MIG3g))")
    assert "destroys the GPU instances it did not create" in line


def test_dynamic_mig_off_or_without_mig_pools_is_fine():
    stack_config_from_mapping(as_config(stack(mig_pool(), driver={"featureGates": {"DynamicMIG": False}})))
    stack_config_from_mapping(as_config(stack(driver={"featureGates": {"DynamicMIG": True}})))


def test_every_chart_here_carries_the_fix_for_a_gpu_announced_whole():
    # #776 on main (v25.12.0, v0.4.0, v0.4.1, 0.5.0) and its backport #781 in v25.8.1 (the driver's git history).
    assert not any(chart.announces_mig_parent for chart in DRIVER_CHARTS.values())


def test_a_chart_older_than_the_fix_is_refused_beside_mig_pools(monkeypatch):
    old = replace(DRIVER_CHARTS["25.8.1"], version="25.8.0", announces_mig_parent=True)
    monkeypatch.setitem(DRIVER_CHARTS, "25.8.0", old)
    pools = [(0, GpuPoolConfig.model_validate(MINIMAL_STACK["gpuPools"][0])), (1, GpuPoolConfig.model_validate(mig_pool()))]
    (problem,) = driver_mig_problems("25.8.0", {}, pools, "draDriver.chartVersion", "draDriver.featureGates")
    assert problem[0] == "draDriver.chartVersion"
    assert problem[1].startswith("'25.8.0' announces a MIG-enabled GPU whole beside its slices")
    assert "(kubernetes-sigs/dra-driver-nvidia-gpu#719, fixed by #776)" in problem[1]
    assert "need one of 25.8.1, 25.12.0, 0.4.1, 0.5.0" in problem[1]
    assert driver_mig_problems("25.8.0", {}, pools[:1], "c", "g") == []  # no MIG pool: nothing to announce twice


def test_mig_slices_may_be_shared_by_memory_where_a10_slices_may():
    # The driver applies consumable shares to static MIG devices as to GPUs (cmd/gpu-kubelet-plugin/allocatable.go,
    # GetDevice: MigStaticDeviceType -> applyConsumableShares): the same rule as an A10 pool, no more.
    shared = mig_pool(sharing="memory")
    (line,) = problems(stack(shared))
    assert line.startswith("gpuPools[1].sharing: 'memory' needs draDriver.chartVersion 0.5.0 or newer")
    data = stack(shared, driver={"chartVersion": "0.5.0"})
    data["cluster"]["kubernetesVersion"] = "1.36"
    assert stack_config_from_mapping(as_config(data)).gpu_pools[1].sharing == "memory"


def test_mig_pools_alone_refuse_only_the_sample_job():
    data = stack()
    data["gpuPools"] = [mig_pool()]
    (line,) = problems(data)
    assert line.startswith("samples.workload: the sample Job asks for an A10 vGPU slice and every pool here is a MIG pool")
    assert line.endswith("set samples.workload: false")
    data["samples"] = {"workload": False, "workloadMemoryGiB": 8}  # the Job's memory is moot without the Job
    config = stack_config_from_mapping(as_config(data))
    assert (config.samples.enabled, config.gpu_pools[0].mig_profile) == (True, "MIG3g")
    data["samples"] = {"enabled": False}  # off altogether, the Job setting is moot too
    assert stack_config_from_mapping(as_config(data)).samples.workload is True


# --- all at once ------------------------------------------------------------------------------------------------------------
def test_a_stack_with_several_mig_mistakes_hears_of_all_of_them_in_one_run():
    data = stack(
        mig_pool(name="ona10", vmSize="Standard_NV36ads_A10_v5"),              # 1: a profile on an A10
        {"name": "whole", "vmSize": A100, "count": 1},                          # 2: a MIG size without a profile
        mig_pool(name="wrong", vmSize="Standard_ND96asr_v4", gpuInstanceProfile="3g.40gb"),  # 3: another GPU's slice
        mig_pool(name="good"),                                                  # (valid: the driver is judged beside it)
        driver={"featureGates": {"DynamicMIG": True}},                          # 4: DynamicMIG beside it
    )
    found = problems(data)
    keys = [line.split(": ", 1)[0] for line in found]
    assert keys == ["gpuPools[1].gpuInstanceProfile", "gpuPools[2].gpuInstanceProfile", "gpuPools[3].gpuInstanceProfile",
                    "draDriver.featureGates.DynamicMIG"], found


# --- the component ------------------------------------------------------------------------------------------------------
def test_a_gpu_node_pool_of_mig_slices(preview):
    args = GpuNodePoolArgs.model_validate({**mig_pool(vmSize="Standard_ND96amsr_A100_v4", gpuInstanceProfile="1g.10gb",
                                                      osDiskType="Ephemeral", osDiskSizeGb=256),
                                           "clusterName": "aks", "resourceGroupName": "rg"})
    holder = {}
    plan = capture(lambda: holder.setdefault("pool", GpuNodePool("p", args)), preview=preview)
    inputs = plan.one(POOL).inputs
    assert (inputs["gpuInstanceProfile"], inputs["gpuProfile"], inputs["osDiskType"]) == ("MIG1g", {"driver": "Install"},
                                                                                           "Ephemeral")
    assert (holder["pool"].gpu_memory_gib, holder["pool"].devices_per_node) == (10, 56)  # 8 GPUs x 7 slices


def test_an_ephemeral_os_disk_is_checked_against_a_mig_sizes_temp_disk():
    (line,) = problems(stack(mig_pool(osDiskType="Ephemeral", osDiskSizeGb=128)))  # NC24ads_A100_v4: 64 GiB temp disk
    assert line.startswith("gpuPools[1].osDiskSizeGb: 128 GB does not fit Standard_NC24ads_A100_v4's 64 GiB temp disk")


# --- the host driver a chart needs, by the driver AKS installs on the pools' sizes -----------------------------------
def test_chart_25_12_runs_where_every_pool_is_a_mig_pool_on_akss_r580_driver():
    # AKS installs its CUDA LTS driver (R580, 580.159.04) on the MIG sizes (AgentBaker GetGPUDriverType: cuda-lts), which
    # has the NVML call 25.12.0's plugin makes (kubernetes-sigs/dra-driver-nvidia-gpu#1014).
    data = stack(driver={"chartVersion": "25.12.0"}, samples={"workload": False})
    data["gpuPools"] = [mig_pool()]
    assert stack_config_from_mapping(as_config(data)).dra_driver.chart_version == "25.12.0"


def test_chart_25_12_is_still_refused_beside_an_a10_pool():
    (line,) = problems(stack(mig_pool(), driver={"chartVersion": "25.12.0"}))
    assert line.startswith("draDriver.chartVersion: 25.12.0 is refused: it needs an NVIDIA driver >= 580 on the nodes")


def test_chart_25_12_beside_a_pool_of_unknown_size_waits_for_it_and_an_a10_typo_is_still_an_a10():
    data = stack(driver={"chartVersion": "25.12.0"}, samples={"workload": False})
    data["gpuPools"] = [mig_pool(), mig_pool(name="two", vmSize="Standard_NC24ads_A100")]
    assert [line.partition(":")[0] for line in problems(data)] == ["gpuPools[1].vmSize"]
    data["gpuPools"] = [mig_pool(), {"name": "a10", "vmSize": "Standard_NV12ads_A10_v5", "count": "x"}]
    assert [line.partition(":")[0] for line in problems(data)] == ["gpuPools[1].count", "draDriver.chartVersion"]


def test_the_driver_component_alone_judges_its_pools_the_same_way():
    from components.kubernetes.dra_driver import NvidiaDraDriverArgs

    mig = GpuPoolConfig.model_validate(mig_pool())
    assert NvidiaDraDriverArgs(chartVersion="25.12.0", pools=[mig]).chart_version == "25.12.0"
    a10 = GpuPoolConfig.model_validate(MINIMAL_STACK["gpuPools"][0])
    with pytest.raises(ConfigError) as caught:
        NvidiaDraDriverArgs(chartVersion="25.12.0", pools=[mig, a10])
    assert "chart_version: 25.12.0 is refused: it needs an NVIDIA driver >= 580" in str(caught.value)
