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


# --- a project whose stack holds none of the package's settings ----------------------------------------------------------
@pytest.fixture
def consumer(tmp_path):
    """A consumer project (its own name, a stack folder) whose stack file sets only the consumer's own key."""
    (tmp_path / "Pulumi.yaml").write_text("name: consumer\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  consumer:team: ml\n")
    (tmp_path / "__main__.py").write_text("import pulumi\n")
    return tmp_path


NONE_OF_OURS = ("stacks/Pulumi.dev.yaml: sets none of this package's settings, which are read under the project's name "
                "'consumer:' (consumer:cluster and consumer:gpuPools at least; docs/configuration.md lists every key)")


@pytest.mark.parametrize("command", [["size", "--workload", "infer=4"], ["verify"]])
def test_size_and_verify_name_the_namespace_and_the_stack_file(command, consumer, capsys):
    from components.cli import main

    assert main([*command, "--stack", "dev", "--project-dir", str(consumer)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [NONE_OF_OURS]


def test_the_package_settings_under_another_namespace_are_pointed_at(consumer, capsys):
    from components.cli import main

    (consumer / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  aks-dra-vgpu:cluster: {name: x}\n")
    assert main(["verify", "--stack", "dev", "--project-dir", str(consumer)]) == 2
    assert capsys.readouterr().err.strip() == (f"{NONE_OF_OURS}; aks-dra-vgpu:cluster is under another namespace: "
                                               "write it under 'consumer:'")


def test_a_program_reading_the_settings_is_told_before_it_runs(consumer, capsys):
    from components.cli import main

    (consumer / "__main__.py").write_text("from components import load_stack_config\n\nload_stack_config()\n")
    assert main(["plan", "--stack", "dev", "--project-dir", str(consumer)]) == 2
    assert capsys.readouterr().err.strip() == NONE_OF_OURS
