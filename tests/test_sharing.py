"""`gpuPools[].sharing: memory`: refused without driver 0.5.0 and Kubernetes 1.36 (naming both), and what it turns on
in the driver's values (consumableShares and its gate, for the one kubelet-plugin DaemonSet the chart has)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from components.config import ConfigError, DraDriverConfig, GpuPoolConfig, stack_config_from_mapping, validate
from components.kubernetes.dra_driver import NvidiaDraDriverArgs, driver_values, feature_gates
from tests.conftest import MINIMAL_STACK, as_config

SHARED = {"name": "shared", "vmSize": "Standard_NV36ads_A10_v5", "count": 1, "sharing": "memory"}


def stack(version: str = "1.36", chart: str | None = "0.5.0", **pool: Any) -> dict[str, Any]:
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = version
    data["gpuPools"].append({**SHARED, **pool})
    if chart:
        data["draDriver"] = {"chartVersion": chart}
    return data


def problems(data: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in caught.value.problems]


def test_sharing_defaults_to_none_and_memory_is_accepted_on_0_5_0_and_1_36():
    config = stack_config_from_mapping(as_config(stack()))
    assert [p.sharing for p in config.gpu_pools] == ["none", "memory"]


@pytest.mark.parametrize(("version", "chart", "lacking"), [
    ("1.35", "0.5.0", "cluster.kubernetesVersion is '1.35'"),
    ("1.36", "0.4.1", "draDriver.chartVersion is '0.4.1'"),
    ("1.36", None, "draDriver.chartVersion is '0.4.1'"),  # the default chart does not share
    ("1.35", "25.8.1", "draDriver.chartVersion is '25.8.1' and cluster.kubernetesVersion is '1.35'"),
])
def test_memory_sharing_is_refused_naming_both_keys_and_values(version, chart, lacking):
    (line,) = problems(stack(version, chart))
    assert line == (
        "gpuPools[1].sharing: 'memory' needs draDriver.chartVersion 0.5.0 or newer (the driver's ConsumableShares) and "
        "Kubernetes 1.36 or newer (DRAConsumableCapacity, on by default from 1.36); "
        f"{lacking}: raise them, or set sharing: none"
    )


def test_a_pool_pinned_below_1_36_cannot_share():
    # (and, on 1.36 with a chart whose gpu.nvidia.com maps nvidia.com/gpu, a 1.35 kubelet is refused at the pin itself)
    sharing, pinned = problems(stack("1.36", "0.5.0", kubernetesVersion="1.35"))
    assert sharing.startswith("gpuPools[1].sharing: ") and "gpuPools[1].kubernetesVersion is '1.35'" in sharing
    assert pinned.startswith("gpuPools[1].kubernetesVersion: '1.35' is older than 1.36, and the classes that map "
                             "nvidia.com/gpu select this pool's slices")


def test_the_sharing_check_runs_beside_other_mistakes():
    data = stack("1.35", "0.4.1")
    data["gpuPools"][0]["vmSize"] = "Standard_NV12ads"  # another pool is broken: still one run, every problem
    found = problems(data)
    assert [line.split(":", 1)[0] for line in found] == ["gpuPools[0].vmSize", "gpuPools[1].sharing"]


@pytest.mark.parametrize(("version", "told"), [
    ("1.31", "cluster.kubernetesVersion: '1.31' is too old"),
    ("abc", "cluster.kubernetesVersion: 'abc' is not a Kubernetes version"),
    (1.36, "cluster.kubernetesVersion: 1.36 is a number; quote the version"),  # unquoted in YAML
])
def test_a_refused_kubernetes_version_is_told_once_not_judged_as_its_default(version, told):
    # The sharing rule reads cluster.kubernetesVersion: refused, it is unknown, not the default '1.35' standing in.
    (line,) = problems(stack(version))
    assert line.startswith(told), line


def test_a_refused_cluster_key_elsewhere_still_lets_the_sharing_rule_judge_the_version():
    data = stack("1.35")
    data["cluster"]["location"] = "nowhere"
    found = problems(data)
    assert [line.split(":", 1)[0] for line in found] == ["cluster.location", "gpuPools[1].sharing"], found


def test_unknown_sharing_modes_are_refused():
    (line,) = problems(stack(sharing="timeSlicing"))
    assert line.startswith("gpuPools[1].sharing: ") and "'none' or 'memory'" in line


# --- the driver's values --------------------------------------------------------------------------------------------
def pools(*sharing: str) -> list[GpuPoolConfig]:
    return [GpuPoolConfig.model_validate({**SHARED, "name": f"p{i}", "sharing": s}) for i, s in enumerate(sharing)]


def test_a_shared_pool_turns_on_consumable_shares_and_its_gate():
    config = DraDriverConfig.model_validate({"chartVersion": "0.5.0"})
    values = driver_values(config, pools("none", "memory"))
    assert values["consumableShares"] == "memory" and values["featureGates"]["ConsumableShares"] is True
    plain = driver_values(config, pools("none"))
    assert "consumableShares" not in plain and "ConsumableShares" not in plain["featureGates"]
    assert feature_gates(config) == feature_gates(config, pools("none"))


def test_0_5_0_pins_its_image_by_digest_and_older_charts_keep_their_tag():
    assert driver_values(DraDriverConfig.model_validate({"chartVersion": "0.5.0"}), pools("none"))["image"] == {
        "tag": "v0.5.0@sha256:e1f104e64383ee693e982a5e6b7cf0b750023aaa5cc9b7dcc37c8e0549232933"}
    assert "image" not in driver_values(DraDriverConfig.model_validate({"chartVersion": "0.4.1"}), pools("none"))


def test_the_driver_component_refuses_shared_pools_on_an_older_chart():
    with pytest.raises(ConfigError, match=r"pools\[0\]\.sharing: 'memory' needs draDriver.chartVersion 0.5.0"):
        validate(NvidiaDraDriverArgs, {"chartVersion": "0.4.1", "pools": pools("memory")})
    assert NvidiaDraDriverArgs.model_validate({"chartVersion": "0.5.0", "pools": pools("memory")}).chart_version == "0.5.0"


@pytest.mark.parametrize(("driver", "key", "words"), [
    ({"featureGates": {"ConsumableShares": True}}, "featureGates.ConsumableShares", "use gpuPools[].sharing: memory"),
    ({"featureGates": {"ConsumableShares": False}}, "featureGates.ConsumableShares", "use gpuPools[].sharing: memory"),
    ({"featureGates": {"DRAListTypeAttributes": True}}, "featureGates.DRAListTypeAttributes", "must stay false on AKS"),
    ({"extraValues": {"consumableShares": "memory"}}, "extraValues.consumableShares", "use gpuPools[].sharing"),
])
def test_what_the_package_sets_for_sharing_cannot_be_set_by_hand(driver, key, words):
    with pytest.raises(ConfigError) as caught:
        validate(DraDriverConfig, {"chartVersion": "0.5.0", **driver})
    (problem,) = caught.value.problems
    assert str(problem).split(": ", 1)[0].endswith(key) and words in str(problem)


def test_0_5_0_knows_its_new_gates_and_0_4_1_does_not():
    config = DraDriverConfig.model_validate({"chartVersion": "0.5.0", "featureGates": {
        "HostManagedIMEXDaemon": False, "DRAListTypeAttributes": False}})
    assert feature_gates(config)["IMEXDaemonsWithDNSNames"] is False  # the A10 GRID trap stays off
    assert feature_gates(config)["ComputeDomainCliques"] is False
    with pytest.raises(ConfigError, match=r"HostManagedIMEXDaemon unknown to chart 0\.4\.1"):
        validate(DraDriverConfig, {"chartVersion": "0.4.1", "featureGates": {"HostManagedIMEXDaemon": False}})
