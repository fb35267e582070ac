"""Stack config: defaults, camelCase keys, every problem reported at once with the path the user wrote."""

from __future__ import annotations

import pytest

from components.config import (
    ConfigError,
    GpuPoolConfig,
    StackConfig,
    parse_taint,
    stack_config_from_mapping,
    validate,
)
from tests.conftest import as_config


def problems(data) -> list[str]:
    with pytest.raises(ConfigError) as info:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in info.value.problems]


def test_minimal_stack_gets_defaults(stack_data):
    config = stack_config_from_mapping(as_config(stack_data))
    assert isinstance(config, StackConfig)
    assert config.cluster.kubernetes_version == "1.35"
    assert config.dra_driver.chart_version == "0.4.1"
    assert config.dra_driver.namespace == "nvidia-dra-driver-gpu"
    assert config.samples.device_class_name == "a10-vgpu"
    assert config.gpu_pools[0].node_labels == {"nvidia.com/gpu.present": "true"}


def test_config_values_arrive_as_json_strings_like_the_cli_sends_them(stack_data):
    import json

    wire = {k: json.dumps(v) for k, v in as_config(stack_data).items()}
    assert stack_config_from_mapping(wire).gpu_pools[0].vm_size == "Standard_NV12ads_A10_v5"


def test_other_namespaces_are_left_to_their_providers(stack_data):
    config = {**as_config(stack_data), "azure-native:location": "westeurope"}
    assert stack_config_from_mapping(config).cluster.location == "westeurope"


def test_the_four_classic_mistakes_are_reported_together(stack_data):
    stack_data["cluster"]["kubernetesVersion"] = "1.33"
    stack_data["gpuPools"] = [
        {"name": "waytoolongname", "vmSize": "Standard_NV6ads", "autoscaling": {"minCount": 3, "maxCount": 1}}
    ]
    found = problems(stack_data)
    assert any(p.startswith("cluster.kubernetesVersion:") and "1.34 or newer" in p for p in found)
    assert any(p.startswith("gpuPools[0].name:") and "1-12 lowercase" in p for p in found)
    assert any(p.startswith("gpuPools[0].vmSize:") and "Standard_NV6ads_A10_v5" in p for p in found)
    assert any(p.startswith("gpuPools[0].autoscaling.minCount:") and "min <= max" in p for p in found)
    assert len(found) == 4


def test_unknown_keys_are_rejected_with_a_suggestion(stack_data):
    stack_data["gpuPools"][0]["vmsize"] = "x"
    stack_data["sample"] = {}
    found = problems(stack_data)
    assert ("sample: unknown key (did you mean 'samples'?); allowed keys: cluster, gpuPools, draDriver, samples, "
            "extendedResources, fleetMembership") in found
    assert any(p.startswith("gpuPools[0].vmsize: unknown key (did you mean 'vmSize'?)") for p in found)


def test_yaml_number_for_a_version_is_explained(stack_data):
    stack_data["cluster"]["kubernetesVersion"] = 1.34
    assert any("quote the version" in p for p in problems(stack_data))


@pytest.mark.parametrize("version", ["1.34.0", "1.34.1"])
def test_a_pinned_134_patch_below_the_drivers_prerequisite_is_refused(stack_data, version):
    stack_data["cluster"]["kubernetesVersion"] = version
    assert problems(stack_data) == [
        f"cluster.kubernetesVersion: '{version}' is too old; the NVIDIA DRA driver needs Kubernetes 1.34.2 or newer "
        "(its prerequisites): write '1.34.2', or '1.34' for AKS's newest patch"
    ]


@pytest.mark.parametrize("version", ["1.34", "1.34.2", "1.34.9", "1.35.0"])
def test_versions_that_meet_the_drivers_prerequisite_pass(stack_data, version):
    stack_data["cluster"]["kubernetesVersion"] = version
    assert stack_config_from_mapping(as_config(stack_data)).cluster.kubernetes_version == version


def test_duplicate_pool_names(stack_data):
    stack_data["gpuPools"].append(dict(stack_data["gpuPools"][0]))
    assert any(p.startswith("gpuPools:") and "used twice" in p for p in problems(stack_data))


@pytest.mark.parametrize(
    "labels, fragment",
    [
        ({"kubernetes.azure.com/mode": "x"}, "reserved"),
        ({"kubernetes.io/role": "gpu"}, "reserved"),
        ({"bad key!": "x"}, "label key"),
        ({"team": "-bad-"}, "label value"),
        ({"nvidia.com/gpu.present": "false"}, "must be 'true'"),
    ],
)
def test_bad_labels(stack_data, labels, fragment):
    stack_data["gpuPools"][0]["labels"] = labels
    found = problems(stack_data)
    assert any(p.startswith("gpuPools[0].labels:") and fragment in p for p in found), found


def test_user_labels_merge_with_the_gpu_label():
    pool = GpuPoolConfig(name="gpu", vm_size="Standard_NV6ads_A10_v5", labels={"team": "ml"})
    assert pool.node_labels == {"team": "ml", "nvidia.com/gpu.present": "true"}


@pytest.mark.parametrize("text", ["sku=gpu", "sku=gpu:Sometimes", "=x:NoSchedule", "a b=c:NoExecute"])
def test_bad_taints(text):
    with pytest.raises(ValueError, match=r"NoSchedule, PreferNoSchedule, NoExecute|label key|not a taint"):
        parse_taint(text)


def test_taint_toleration_matches_exactly():
    assert parse_taint("sku=gpu:NoSchedule").toleration() == {
        "key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule",
    }
    assert parse_taint("dedicated:NoExecute").toleration() == {
        "key": "dedicated", "operator": "Exists", "effect": "NoExecute",
    }


def test_count_outside_autoscaling_bounds(stack_data):
    stack_data["gpuPools"][0]["autoscaling"] = {"minCount": 1, "maxCount": 2}
    stack_data["gpuPools"][0]["count"] = 5
    assert any(p.startswith("gpuPools[0].count:") and "[1, 2]" in p for p in problems(stack_data))


def test_autoscaled_pool_starts_at_its_minimum():
    pool = GpuPoolConfig.model_validate(
        {"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5", "autoscaling": {"minCount": 0, "maxCount": 2}}
    )
    assert pool.initial_count == 0


def test_zones_written_as_numbers_become_strings():
    pool = validate(GpuPoolConfig, {"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5", "zones": [1, 2]})
    assert pool.zones == ["1", "2"]


def test_driver_chart_version_and_gates(stack_data):
    stack_data["draDriver"] = {"chartVersion": "25.12.0", "featureGates": {"NoSuchGate": True}}
    found = problems(stack_data)
    assert any(p.startswith("draDriver.chartVersion:") and "580" in p for p in found)
    assert any(p.startswith("draDriver.featureGates:") and "NoSuchGate" in p and "known gates" in p for p in found)


def test_driver_25_12_accepted_with_a_new_enough_host_driver(stack_data):
    stack_data["draDriver"] = {"chartVersion": "25.12.0", "hostDriverVersion": "580.65.06"}
    assert stack_config_from_mapping(as_config(stack_data)).dra_driver.chart_version == "25.12.0"


def test_extra_values_cannot_drop_required_flags(stack_data):
    stack_data["draDriver"] = {"extraValues": {"gpuResourcesEnabledOverride": False, "namespace": "x"}}
    found = problems(stack_data)
    assert any(p.startswith("draDriver.extraValues.gpuResourcesEnabledOverride:") for p in found)
    assert any(p.startswith("draDriver.extraValues.namespace:") for p in found)


def test_device_class_may_not_reuse_a_chart_name(stack_data):
    stack_data["samples"] = {"deviceClassName": "gpu.nvidia.com"}
    assert any(p.startswith("samples.deviceClassName:") and "created by the NVIDIA chart" in p for p in problems(stack_data))


def test_sample_memory_larger_than_any_pool(stack_data):
    stack_data["samples"] = {"workloadMemoryGiB": 12}
    found = problems(stack_data)
    assert any(p.startswith("samples.workloadMemoryGiB:") and "at most 8" in p for p in found), found


def test_missing_sections(stack_data):
    del stack_data["gpuPools"]
    assert "gpuPools: required key is missing" in problems(stack_data)
