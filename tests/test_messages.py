"""Messages a new user meets, each saying what to write: a section written as a switch, a dict where an Args class
belongs, the Args class a mistake belongs to."""

from __future__ import annotations

import copy

import pytest

from components.config import ConfigError, stack_config_from_mapping
from tests.conftest import MINIMAL_STACK, as_config


def problems(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize(("where", "value", "told"), [
    (("gpuPools", 0, "spot"), True, "gpuPools[0].spot: must be a mapping with the keys evictionPolicy, maxPrice (got "
                                    "true); to turn it on with its defaults, write spot: {}"),
    (("gpuPools", 0, "spot"), False, "(got false); to leave it off, leave spot out"),
    (("samples",), False, "(got false); to turn it off, write samples: {enabled: false}"),
    (("cluster", "monitoring", "gpuMetrics"), True, "(got true); to turn it on, write gpuMetrics: {enabled: true}"),
])
def test_a_section_written_as_a_switch_is_told_how_to_switch_it(where, value, told):
    data = copy.deepcopy(MINIMAL_STACK)
    parent = data
    for part in where[:-1]:
        parent = parent.setdefault(part, {}) if isinstance(part, str) else parent[part]
    parent[where[-1]] = value
    (line,) = problems(data)
    assert line.endswith(told), line


def test_python_is_told_the_switch_in_its_own_words():
    from components import GpuNodePoolArgs

    with pytest.raises(ConfigError) as caught:
        GpuNodePoolArgs(name="a", vm_size="Standard_NV6ads_A10_v5", cluster_name="c", resource_group_name="rg",
                        spot=True)
    assert str(caught.value.problems[0]).endswith("(got true); to turn it on with its defaults, write spot=SpotConfig()")
