"""Bad stacks are told everything at once, in their own words: cross-section checks run on whatever validated, refused
chart versions are never offered as choices, version hints quote the value the user wrote."""

from __future__ import annotations

import copy

import pytest

from components.config import ConfigError, stack_config_from_mapping
from tests.conftest import MINIMAL_STACK, as_config


def problems(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in caught.value.problems]


def test_five_independent_mistakes_get_five_messages_in_one_run():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = 1.35                                     # 1: unquoted
    data["gpuPools"] = [{"name": "gpu", "vmSize": "Standard_NV36ads_A10_v", "count": 1},  # 2: a VM size typo
                        {"name": "system", "vmSize": "Standard_NV12ads_A10_v5", "count": 1}]  # 3: the system pool's name
    data["samples"] = {"workloadMemoryGiB": 48, "namespace": "nvidia-dra-driver-gpu"}  # 4: no slice holds 48; 5: ns
    found = problems(data)
    keys = [line.split(": ", 1)[0] for line in found]
    assert keys == ["cluster.kubernetesVersion", "gpuPools[0].vmSize", "gpuPools[1].name", "samples.workloadMemoryGiB",
                    "samples.namespace"], found
    assert "48 GiB is more than any A10 slice holds (at most 24 GiB" in found[3]


def test_a_sixth_mistake_in_the_driver_does_not_hide_the_namespace_clash():
    data = copy.deepcopy(MINIMAL_STACK)
    data["draDriver"] = {"chartVersion": "0.4.0"}
    data["samples"] = {"namespace": "nvidia-dra-driver-gpu"}
    keys = [line.split(": ", 1)[0] for line in problems(data)]
    assert keys == ["draDriver.chartVersion", "samples.namespace"]


def test_with_every_pool_valid_the_sample_memory_is_checked_against_the_pools_own_slices():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.3x"
    data["samples"] = {"workloadMemoryGiB": 12}
    found = problems(data)
    assert found[1] == ("samples.workloadMemoryGiB: 12 GiB is more than any pool's slice offers (pools offer 8 GiB); "
                        "choose at most 8")


@pytest.mark.parametrize(("value", "hint"), [
    (1.35, "quote the version so YAML keeps it as written: '1.35'"),
    (1.3, "'1.3' (or '1.30': YAML reads an unquoted 1.30 as 1.3)"),
    (2, "quote the version so YAML keeps it as written: '2'"),
])
def test_an_unquoted_version_is_told_its_own_value(value, hint):
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = value
    (line,) = problems(data)
    assert line.startswith(f"cluster.kubernetesVersion: {value} is a number") and hint in line, line
    assert "'1.34'" not in line


def test_a_malformed_version_hint_starts_from_the_users_numbers():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.35.x"
    (line,) = problems(data)
    assert line.endswith("e.g. '1.35'"), line


@pytest.mark.parametrize(("driver", "refused"), [
    ({"chartVersion": "25.12.0"}, "25.12.0"),
    ({"chartVersion": "0.4.0"}, "0.4.0"),
    ({"chartVersion": "0.6.0"}, "25.12.0"),
    ({"chartVersion": "25.12.0", "hostDriverVersion": "570.211.01"}, "25.12.0"),
])
def test_a_refused_version_is_never_among_the_choices(driver, refused):
    data = copy.deepcopy(MINIMAL_STACK)
    data["draDriver"] = driver
    (line,) = problems(data)
    choices = line.rsplit("choose ", 1)[1] if "choose " in line else line.rsplit("use ", 1)[1]
    assert refused not in choices, line
