"""Extended resources served by DRA: which classes a stack maps (pure API), their CEL against published devices
(evaluated by the CEL engine verify uses), the names' rules and the chart's own mapping per chart version."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from components.catalog import DRIVER_CHARTS, GPU_DRIVER_NAME, OFFERED_CHART_VERSIONS
from components.config import ConfigError, StackConfig, validate
from components.kubernetes.extended_classes import (
    ANY_GPU_SELECTOR,
    NVIDIA_GPU,
    NVIDIA_GPU_CLASS,
    chart_extended_names,
    extended_classes,
    extended_resource_name_problem,
    mig_resource_name,
    nvidia_gpu_warning,
)
from components.verify.cel import selects
from tests.verify_cluster import gpu_device, mig_device

BASE = {
    "cluster": {"name": "aks-serving", "location": "westeurope", "resourceGroup": {"name": "rg-serving"},
                "kubernetesVersion": "1.36", "systemPool": {"vmSize": "Standard_D4ds_v5", "count": 1}},
    "gpuPools": [{"name": "small", "vmSize": "Standard_NV12ads_A10_v5", "zones": ["1"]},
                 {"name": "big", "vmSize": "Standard_NV36ads_A10_v5", "zones": ["1"]}],
    "samples": {"workload": False},
    "extendedResources": {"nvidiaGpu": "8GiB"},
}
MIG_POOLS = [{"name": "ampere", "vmSize": "Standard_NC24ads_A100_v4", "gpuInstanceProfile": "MIG3g", "zones": ["1"]},
             {"name": "hopper", "vmSize": "Standard_ND96isr_H100_v5", "gpuInstanceProfile": "MIG3g", "zones": ["1"]}]


def stack(**changes) -> dict:
    """BASE with top-level sections replaced (None removes one)."""
    data = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def problems(data: dict) -> list[str]:
    """Every problem of the stack, as 'key: message'."""
    with pytest.raises(ConfigError) as err:
        validate(StackConfig, data)
    return [f"{p.path}: {p.message}" for p in err.value.problems]


# --- the pure API ------------------------------------------------------------------------------------------------------
def test_one_class_per_a10_size_and_one_for_nvidia_gpu_in_a_stable_order():
    classes = extended_classes(validate(StackConfig, stack()))
    assert [(c.resource_name, c.class_name, [k.key for k in c.slices]) for c in classes] == [
        ("aks-dra-vgpu.io/a10-8gib", "aks-dra-vgpu-a10-8gib", ["8GiB"]),
        ("aks-dra-vgpu.io/a10-24gib", "aks-dra-vgpu-a10-24gib", ["24GiB"]),
        ("nvidia.com/gpu", "aks-dra-vgpu-nvidia-gpu", ["8GiB"]),
    ]


def test_a_mig_profile_on_two_architectures_is_one_name_selecting_both():
    data = stack(gpuPools=MIG_POOLS, extendedResources={"nvidiaGpu": "3g.40gb"})
    classes = extended_classes(validate(StackConfig, data))
    assert [(c.resource_name, c.class_name, [k.key for k in c.slices]) for c in classes] == [
        ("nvidia.com/mig-3g.40gb", "aks-dra-vgpu-mig-3g.40gb", ["a100-80gb-3g.40gb", "h100-80gb-3g.40gb"]),
        ("nvidia.com/gpu", "aks-dra-vgpu-nvidia-gpu", ["a100-80gb-3g.40gb", "h100-80gb-3g.40gb"]),
    ]


def test_not_served_selects_nothing_and_any_and_unset_select_any_gpu_device():
    none = extended_classes(validate(StackConfig, stack(extendedResources={"nvidiaGpu": "none", "slices": False})))
    assert [(c.resource_name, c.slices, c.selector) for c in none] == [("nvidia.com/gpu", (), "false")]
    # 'any', unset, or no section at all on 1.36 with a chart that maps the name: the package keeps its class, selecting
    # what the chart's gpu.nvidia.com selects (any A10 slice, never a MIG one), so no change ever has to delete it.
    for section in ({"nvidiaGpu": "any", "slices": False}, {"slices": False}, None):
        (kept,) = extended_classes(validate(StackConfig, stack(extendedResources=section)))
        assert (kept.resource_name, kept.class_name, kept.selector) == ("nvidia.com/gpu", NVIDIA_GPU_CLASS,
                                                                        ANY_GPU_SELECTOR)
        assert [k.key for k in kept.slices] == ["8GiB", "24GiB"]
    # A chart that maps nothing (25.8.1) or a cluster below 1.36: nothing to keep.
    assert extended_classes(validate(StackConfig, stack(extendedResources=None, draDriver={"chartVersion": "25.8.1"}))) \
        == ()
    old = stack(extendedResources=None)
    old["cluster"]["kubernetesVersion"] = "1.35"
    assert extended_classes(validate(StackConfig, old)) == ()
    # A driver that is someone else's: their class serves 'any'.
    assert extended_classes(validate(StackConfig, stack(extendedResources={"nvidiaGpu": "any"},
                                                        draDriver={"enabled": False})))[-1].resource_name != NVIDIA_GPU


def test_the_any_gpu_selector_is_the_charts_own_with_a_presence_check():
    assert ANY_GPU_SELECTOR == ("device.driver == 'gpu.nvidia.com' && 'type' in device.attributes['gpu.nvidia.com'] && "
                                "device.attributes['gpu.nvidia.com'].type == 'gpu'")
    for device, chosen in [(gpu_device(0, "NVIDIA A10-8Q", "8Gi"), True), (gpu_device(0, "NVIDIA A10", "24Gi"), True),
                           (mig_device(0, "Standard_NC24ads_A100_v4", "MIG3g", 0), False)]:
        assert selects([ANY_GPU_SELECTOR], GPU_DRIVER_NAME, device) is chosen


def test_the_domain_names_the_a10_classes():
    data = stack(extendedResources={"domain": "gpu.example.com"})
    assert [c.resource_name for c in extended_classes(validate(StackConfig, data))] == [
        "gpu.example.com/a10-8gib", "gpu.example.com/a10-24gib", NVIDIA_GPU]


def test_the_nvidia_gpu_class_sorts_before_the_charts():
    # The scheduler's tie-break for two classes created in the same second is the lower name.
    assert NVIDIA_GPU_CLASS < "gpu.nvidia.com"
    assert all(c.class_name < "gpu.nvidia.com"
               for c in extended_classes(validate(StackConfig, stack(gpuPools=BASE["gpuPools"] + MIG_POOLS))))


# --- CEL against devices as the driver publishes them ---------------------------------------------------------------------
A10_8 = gpu_device(0, "NVIDIA A10-8Q", "7900Mi")
A10_12 = gpu_device(1, "NVIDIA A10-12Q", "11800Mi")
A10_24 = gpu_device(2, "NVIDIA A10-24Q", "23028Mi")
A100_3G = mig_device(0, "Standard_NC24ads_A100_v4", "MIG3g", 0)
H100_3G = mig_device(0, "Standard_ND96isr_H100_v5", "MIG3g", 0)
A100_1G = mig_device(0, "Standard_NC24ads_A100_v4", "MIG1g", 0)
DEVICES = {"a10-8": A10_8, "a10-12": A10_12, "a10-24": A10_24, "a100-3g": A100_3G, "h100-3g": H100_3G,
           "a100-1g": A100_1G}


def selected(selector: str) -> list[str]:
    """The fixture devices a class's CEL selects."""
    return [name for name, device in DEVICES.items() if selects([selector], GPU_DRIVER_NAME, device)]


def test_each_class_selects_exactly_what_its_name_promises():
    data = stack(gpuPools=BASE["gpuPools"] + MIG_POOLS, extendedResources={"nvidiaGpu": "24GiB"})
    by_name = {c.resource_name: selected(c.selector) for c in extended_classes(validate(StackConfig, data))}
    assert by_name == {
        "aks-dra-vgpu.io/a10-8gib": ["a10-8"],
        "aks-dra-vgpu.io/a10-24gib": ["a10-24"],  # not the 8 GiB one: a class has no prioritized list
        "nvidia.com/mig-3g.40gb": ["a100-3g", "h100-3g"],
        "nvidia.com/gpu": ["a10-24"],
    }


def test_not_served_selects_no_device():
    data = stack(extendedResources={"nvidiaGpu": "none", "slices": False})
    assert [selected(c.selector) for c in extended_classes(validate(StackConfig, data))] == [[]]


# --- names ---------------------------------------------------------------------------------------------------------------------
def test_mig_profiles_are_named_as_the_gpu_operators_mixed_strategy_names_them():
    assert mig_resource_name("3g.40gb") == "nvidia.com/mig-3g.40gb"
    # NVIDIA/k8s-device-plugin internal/rm/rm.go: '+' becomes '.'
    assert mig_resource_name("1g.10gb+me") == "nvidia.com/mig-1g.10gb.me"
    assert mig_resource_name("1g.10gb+me+gfx") == "nvidia.com/mig-1g.10gb.me.gfx"
    with pytest.raises(ValueError) as err:
        mig_resource_name("1g 10gb")
    assert str(err.value).startswith("MIG profile '1g 10gb' gives no extended resource name: 'nvidia.com/mig-1g 10gb'")


@pytest.mark.parametrize("name, message", [
    ("gpu", "'gpu' is not an extended resource name: it needs a domain"),
    ("kubernetes.io/gpu", "'kubernetes.io/gpu' is not an extended resource name: it is in the kubernetes.io namespace"),
    ("node.kubernetes.io/gpu", "is in the kubernetes.io namespace"),
    ("requests.example.com/gpu", "starts with 'requests.', which Kubernetes keeps for quota names"),
    ("example.com/" + "a" * 64, "the name 1-63 characters"),
    ("example.com/mig-1g.10gb+me", "alphanumeric at both ends, with '-', '_' or '.' between"),
    ("Example.com/gpu", "the domain a DNS subdomain"),
])
def test_extended_resource_names_follow_is_extended_resource_name(name, message):
    assert message in extended_resource_name_problem(name)


@pytest.mark.parametrize("name", ["nvidia.com/gpu", "nvidia.com/mig-3g.40gb", "aks-dra-vgpu.io/a10-8gib",
                                  "example.com/" + "a" * 63])
def test_valid_extended_resource_names(name):
    assert extended_resource_name_problem(name) is None


# --- the chart's own mapping, per chart version ------------------------------------------------------------------------
@pytest.mark.parametrize("version", sorted(DRIVER_CHARTS))
def test_the_charts_gpu_class_maps_nvidia_gpu_from_1_36_where_it_renders_v1(version):
    expected = {} if version == "25.8.1" else {"nvidia.com/gpu": "gpu.nvidia.com"}
    assert chart_extended_names(version, "1.36") == expected
    assert chart_extended_names(version, "1.35") == {}  # the API server drops the field while the gate is off


def test_chart_extended_names_match_the_charts_templates():
    """Read from each chart's own templates/deviceclass-gpu.yaml where the charts are at hand."""
    import os

    folder = os.environ.get("DRA_CHARTS_DIR")
    if not folder:
        pytest.skip("DRA_CHARTS_DIR is not set")
    for version in OFFERED_CHART_VERSIONS:
        chart = DRIVER_CHARTS[version]
        path = Path(folder) / f"{chart.chart}-{'0.5.0-dev' if version == '0.5.0' else version}"
        text = (path / "templates" / "deviceclass-gpu.yaml").read_text()
        mapped = "extendedResourceName: nvidia.com/gpu" in text
        assert mapped == (chart.gpu_class_extended_resource == "nvidia.com/gpu"), version
        values = yaml.safe_load((path / "values.yaml").read_text())
        assert "extendedResourceName" not in str(values), version  # no value to drop the chart's mapping


# --- the plan's warning ----------------------------------------------------------------------------------------------------
def test_plan_warns_when_the_chart_serves_nvidia_gpu_unstated():
    warning = nvidia_gpu_warning(validate(StackConfig, stack(extendedResources=None)))
    assert warning == (
        "a pod asking for nvidia.com/gpu is given any GPU device whatever its size: the driver chart's gpu.nvidia.com "
        "class maps nvidia.com/gpu once the chart is applied on Kubernetes 1.36+ (a cluster upgraded in place from 1.35 "
        "gets it at the chart's next apply), and the package's class aks-dra-vgpu-nvidia-gpu selects the same; set "
        "extendedResources.nvidiaGpu to a slice the pools offer (8GiB, 24GiB, e.g. '8GiB'), 'none', or 'any' to accept "
        "it")
    # The slices suggested are the pools': a MIG-only stack is offered its profile, not an A10 size it has no pool of.
    mig = nvidia_gpu_warning(validate(StackConfig, stack(extendedResources=None, gpuPools=MIG_POOLS)))
    assert mig is not None and "a slice the pools offer (3g.40gb, e.g. '3g.40gb')" in mig
    assert nvidia_gpu_warning(validate(StackConfig, stack())) is None
    assert nvidia_gpu_warning(validate(StackConfig, stack(extendedResources={"nvidiaGpu": "any"}))) is None
    old = stack(extendedResources=None)
    old["cluster"]["kubernetesVersion"] = "1.35"
    assert nvidia_gpu_warning(validate(StackConfig, old)) is None
    assert nvidia_gpu_warning(validate(StackConfig, stack(extendedResources=None, draDriver={"chartVersion": "25.8.1"}))) \
        is None
